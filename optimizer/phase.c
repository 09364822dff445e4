/* phase.c - choose where inside a cache line each large hot function starts (rules in phase.h). */
#include "phase.h"

#include "cachesim.h"
#include "mem.h"
#include "walk.h"

#include <stdlib.h>
#include <string.h>

/* Walks steps instructions, each candidate phase phases[c] into its own cache; misses[c]. */
static void walk_run(const lg_walk_t *w, uint64_t steps, uint64_t seed, lg_cachesim_t *caches,
                     const uint64_t *phases, size_t ncand, uint64_t *misses)
{
    uint64_t rng = lg_walk_seed(seed), last[LG_PHASE_MAX_CANDIDATES];
    uint32_t shift = caches[0].line_shift;
    for (size_t c = 0; c < ncand; c++) {
        lg_cachesim_reset(&caches[c]);
        last[c] = LG_CACHESIM_EMPTY;
    }
    size_t cur = LG_WALK_OUT;
    for (uint64_t s = 0; s < steps; s++) {
        if (cur == LG_WALK_OUT)
            cur = lg_walk_entry(w, &rng);
        for (size_t c = 0; c < ncand; c++) {
            uint64_t line = (w->nodes[cur].offset + phases[c]) >> shift;
            if (line != last[c]) /* the same line again always hits */
                lg_cachesim_access_line(&caches[c], line);
            last[c] = line;
        }
        cur = lg_walk_next(w, cur, &rng);
    }
    for (size_t c = 0; c < ncand; c++)
        misses[c] = caches[c].misses;
}

/* The distance between f's candidate phases: its alignment, at least a line over
 * LG_PHASE_MAX_CANDIDATES. */
static uint64_t phase_step(const lg_fn_t *f, const lg_geometry_t *g)
{
    uint64_t step = f->align > 1 ? f->align : 1;
    return step < g->line_size / LG_PHASE_MAX_CANDIDATES ? g->line_size / LG_PHASE_MAX_CANDIDATES
                                                         : step;
}

/* Whether f can span more lines than a way holds, so that at some phase its first and last
 * lines share a set: starting line_size - step bytes into a line (its last phase), it reaches
 * line_size - step + size bytes. A function of 250 bytes aligned to 16 meets itself in a 256-byte
 * way of 32-byte lines at phase 16 (bytes 16 to 266: 9 lines) though it is smaller than the way. */
static bool can_meet_itself(const lg_fn_t *f, const lg_geometry_t *g)
{
    uint64_t step = phase_step(f, g), way = g->cache_size / g->ways;
    return step < g->line_size && f->size > way - (g->line_size - step);
}

typedef struct candidate_fn {
    uint32_t fn;
    uint64_t cost;
    size_t hs, nh, js, nj; /* ranges in hotspots and hotjumps */
} candidate_fn_t;

static int by_cost_desc(const void *a, const void *b)
{
    const candidate_fn_t *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* The functions phase.h considers, with their ranges of hotspots and jumps; *total receives the
 * summed cost of every function's hotspots. */
static lg_err_t collect(const lg_program_t *p, const lg_geometry_t *g, candidate_fn_t **out,
                        size_t *nout, uint64_t *total)
{
    *out = NULL;
    *nout = 0;
    *total = 0;
    size_t cap = 0, h = 0, j = 0;
    while (h < p->nhotspots) {
        uint32_t fn = p->hotspots[h].fn;
        size_t h1 = h;
        uint64_t cost = 0;
        while (h1 < p->nhotspots && p->hotspots[h1].fn == fn)
            cost = lg_sat_add(cost, p->hotspots[h1++].cost);
        *total = lg_sat_add(*total, cost);
        while (j < p->nhotjumps && p->hotjumps[j].fn < fn)
            j++;
        size_t j1 = j;
        while (j1 < p->nhotjumps && p->hotjumps[j1].fn == fn)
            j1++;
        const lg_fn_t *f = &p->fns[fn];
        if (j1 > j && lg_fn_movable(f) && !(f->flags & LG_FN_GROUP) && can_meet_itself(f, g) &&
            !(f->flags & LG_FN_PHASED)) {
            if (!lg_grow((void **)out, &cap, *nout + 1, sizeof **out)) {
                free(*out);
                *out = NULL;
                *nout = 0;
                return LG_ENOMEM;
            }
            (*out)[(*nout)++] = (candidate_fn_t){fn, cost, h, h1 - h, j, j1 - j};
        }
        h = h1;
        j = j1;
    }
    if (*nout > 1) /* qsort's array may not be NULL, even for no elements */
        qsort(*out, *nout, sizeof **out, by_cost_desc);
    return LG_OK;
}

lg_err_t lg_phase_choose(lg_program_t *p, const lg_geometry_t *g, lg_phase_stats_t *stats,
                         lg_diag_t *d)
{
    memset(stats, 0, sizeof *stats);
    if (lg_geometry_check(g, d) != LG_OK)
        return LG_EINVAL;
    candidate_fn_t *cands;
    size_t ncands;
    uint64_t total;
    LG_CHECK(collect(p, g, &cands, &ncands, &total));
    stats->considered = ncands;
    if (ncands == 0) {
        free(cands);
        return LG_OK;
    }
    /* One cache per candidate phase, set up when a function first needs it: a 32-byte line with
     * code aligned to 16 needs two, not LG_PHASE_MAX_CANDIDATES. */
    lg_cachesim_t caches[LG_PHASE_MAX_CANDIDATES];
    memset(caches, 0, sizeof caches);
    size_t ncaches = 0;
    lg_err_t err = LG_OK;
    uint64_t budget = LG_PHASE_BUDGET_STEPS;
    for (size_t i = 0; i < ncands && err == LG_OK; i++) {
        lg_fn_t *f = &p->fns[cands[i].fn];
        uint64_t step = phase_step(f, g);
        uint64_t phases[LG_PHASE_MAX_CANDIDATES], misses[LG_PHASE_MAX_CANDIDATES];
        size_t ncand = 0;
        for (uint64_t q = 0; q < g->line_size && ncand < LG_PHASE_MAX_CANDIDATES; q += step)
            phases[ncand++] = q;
        if (ncand < 2)
            continue;
        for (; ncaches < ncand && err == LG_OK; ncaches++)
            err = lg_cachesim_init(&caches[ncaches], g, d);
        if (err != LG_OK)
            break;
        uint64_t steps = cands[i].cost < LG_PHASE_WALK_STEPS ? cands[i].cost : LG_PHASE_WALK_STEPS;
        if (steps == 0) /* positions without cost: nothing ran to replay */
            continue;
        if (steps > budget) {
            stats->skipped_budget++;
            continue;
        }
        lg_walk_t w;
        if (!lg_walk_build(&w, p->hotspots + cands[i].hs, cands[i].nh, p->hotjumps + cands[i].js,
                           cands[i].nj)) {
            err = LG_ENOMEM;
            break;
        }
        walk_run(&w, steps, cands[i].fn, caches, phases, ncand, misses);
        lg_walk_free(&w);
        budget -= steps;
        stats->steps += steps;
        size_t best = 0, worst = 0;
        for (size_t c = 1; c < ncand; c++) {
            if (misses[c] < misses[best])
                best = c;
            if (misses[c] > misses[worst])
                worst = c;
        }
        uint64_t saved = misses[worst] - misses[best];
        double saved_in_profile = (double)saved * (double)cands[i].cost / (double)steps;
        if ((double)saved < LG_PHASE_MIN_SAVED_SHARE * (double)misses[worst] ||
            saved_in_profile * 1e6 < (double)LG_PHASE_MIN_SAVED_PER_MILLION * (double)total)
            continue;
        f->flags |= LG_FN_PHASED;
        f->align = g->line_size;
        f->lead = phases[best];
        stats->phased++;
        stats->misses_worst += misses[worst];
        stats->misses_chosen += misses[best];
    }
    for (size_t c = 0; c < ncaches; c++)
        lg_cachesim_destroy(&caches[c]);
    free(cands);
    return err;
}
