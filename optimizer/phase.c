/* phase.c - choose where inside a cache line each large hot function starts (rules in phase.h). */
#include "phase.h"

#include "cachesim.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

/* One executed instruction of the function walked. */
typedef struct node {
    uint64_t offset;    /* from the function's start */
    double fall, exit;  /* weights of falling through to the next node and of leaving */
    double jumps;       /* summed weight of its taken jumps */
    double total;       /* fall + exit + jumps */
    size_t first, njmp; /* its jumps: targets[first .. first + njmp) */
} node_t;

/* The walk of one function: its nodes, jump targets and weights, entry weights cumulated. */
typedef struct walk {
    node_t *nodes;
    size_t n;
    uint32_t *target;  /* node index of each jump, grouped by source node */
    double *weight;    /* its weight */
    double *entry_cum; /* cumulative entry weights, entry_cum[n - 1] the total */
} walk_t;

static void walk_free(walk_t *w)
{
    free(w->nodes);
    free(w->target);
    free(w->weight);
    free(w->entry_cum);
    memset(w, 0, sizeof *w);
}

/* The node at offset, or SIZE_MAX when no executed instruction starts there. */
static size_t node_at(const walk_t *w, uint64_t offset)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->nodes[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->n && w->nodes[lo].offset == offset ? lo : SIZE_MAX;
}

static double positive(double x)
{
    return x > 0.0 ? x : 0.0;
}

/* Builds the graph of phase.h from the function's hotspots [hs, hs + nh) and hotjumps
 * [js, js + nj) (both sorted by offset). false when out of memory. */
static bool walk_build(walk_t *w, const lg_hotspot_t *hs, size_t nh, const lg_hotjump_t *js,
                       size_t nj)
{
    memset(w, 0, sizeof *w);
    w->nodes = calloc(nh ? nh : 1, sizeof *w->nodes);
    w->target = calloc(nj ? nj : 1, sizeof *w->target);
    w->weight = calloc(nj ? nj : 1, sizeof *w->weight);
    w->entry_cum = calloc(nh ? nh : 1, sizeof *w->entry_cum);
    double *count = calloc(nh ? nh : 1, sizeof *count), *in = calloc(nh ? nh : 1, sizeof *in);
    if (!w->nodes || !w->target || !w->weight || !w->entry_cum || !count || !in) {
        free(count);
        free(in);
        walk_free(w);
        return false;
    }
    w->n = nh;
    for (size_t k = 0; k < nh; k++) {
        w->nodes[k].offset = hs[k].offset;
        count[k] = (double)hs[k].cost;
    }
    /* Jumps come sorted by source, so each node's jumps are contiguous in target[]. */
    size_t m = 0;
    for (size_t i = 0; i < nj; i++) {
        size_t from = node_at(w, js[i].from), to = node_at(w, js[i].to);
        if (from == SIZE_MAX || to == SIZE_MAX || js[i].count == 0)
            continue;
        node_t *s = &w->nodes[from];
        if (s->njmp == 0)
            s->first = m;
        w->target[m] = (uint32_t)to;
        w->weight[m] = (double)js[i].count;
        s->njmp++;
        s->jumps += (double)js[i].count;
        in[to] += (double)js[i].count;
        m++;
    }
    double entries = 0.0;
    for (size_t k = 0; k < nh; k++) {
        node_t *s = &w->nodes[k];
        if (k + 1 < nh) {
            double left = positive(count[k] - s->jumps),
                   needed = positive(count[k + 1] - in[k + 1]);
            s->fall = left < needed ? left : needed;
        }
        s->exit = positive(count[k] - s->jumps - s->fall);
        s->total = s->fall + s->exit + s->jumps;
        double entry = positive(count[k] - in[k] - (k > 0 ? w->nodes[k - 1].fall : 0.0));
        entries += entry;
        w->entry_cum[k] = entries;
    }
    if (entries <= 0.0) /* a loop with no way in: start anywhere, by count */
        for (size_t k = 0; k < nh; k++)
            w->entry_cum[k] = (entries += count[k]);
    free(count);
    free(in);
    return true;
}

/* xorshift64*: the same walk on every run and machine. */
static double next_unit(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static size_t draw_entry(const walk_t *w, uint64_t *rng)
{
    double r = next_unit(rng) * w->entry_cum[w->n - 1];
    size_t lo = 0, hi = w->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->entry_cum[mid] <= r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The node after cur, or SIZE_MAX when the walk leaves the function. */
static size_t draw_next(const walk_t *w, size_t cur, uint64_t *rng)
{
    const node_t *s = &w->nodes[cur];
    if (s->total <= 0.0)
        return SIZE_MAX;
    double r = next_unit(rng) * s->total;
    for (size_t i = 0; i < s->njmp; i++) {
        r -= w->weight[s->first + i];
        if (r < 0.0)
            return w->target[s->first + i];
    }
    r -= s->fall;
    return r < 0.0 && cur + 1 < w->n ? cur + 1 : SIZE_MAX;
}

/* Walks steps instructions, each candidate phase phases[c] into its own cache; misses[c]. */
static void walk_run(const walk_t *w, uint64_t steps, uint64_t seed, lg_cachesim_t *caches,
                     const uint64_t *phases, size_t ncand, uint64_t *misses)
{
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1u, last[LG_PHASE_MAX_CANDIDATES];
    uint32_t shift = caches[0].line_shift;
    for (size_t c = 0; c < ncand; c++) {
        lg_cachesim_reset(&caches[c]);
        last[c] = LG_CACHESIM_EMPTY;
    }
    size_t cur = SIZE_MAX;
    for (uint64_t s = 0; s < steps; s++) {
        if (cur == SIZE_MAX)
            cur = draw_entry(w, &rng);
        for (size_t c = 0; c < ncand; c++) {
            uint64_t line = (w->nodes[cur].offset + phases[c]) >> shift;
            if (line != last[c]) /* the same line again always hits */
                lg_cachesim_access_line(&caches[c], line);
            last[c] = line;
        }
        cur = draw_next(w, cur, &rng);
    }
    for (size_t c = 0; c < ncand; c++)
        misses[c] = caches[c].misses;
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
static lg_err_t collect(const lg_program_t *p, uint64_t way, candidate_fn_t **out, size_t *nout,
                        uint64_t *total)
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
        if (j1 > j && lg_fn_movable(f) && f->size > way && !(f->flags & LG_FN_PHASED)) {
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
    uint64_t way = g->cache_size / g->ways;
    candidate_fn_t *cands;
    size_t ncands;
    uint64_t total;
    LG_CHECK(collect(p, way, &cands, &ncands, &total));
    stats->considered = ncands;
    if (ncands == 0) {
        free(cands);
        return LG_OK;
    }
    lg_cachesim_t caches[LG_PHASE_MAX_CANDIDATES];
    memset(caches, 0, sizeof caches);
    lg_err_t err = LG_OK;
    for (size_t c = 0; c < LG_PHASE_MAX_CANDIDATES && err == LG_OK; c++)
        err = lg_cachesim_init(&caches[c], g, d);
    uint64_t budget = LG_PHASE_BUDGET_STEPS;
    for (size_t i = 0; i < ncands && err == LG_OK; i++) {
        lg_fn_t *f = &p->fns[cands[i].fn];
        uint64_t step = f->align > 1 ? f->align : 1;
        if (step < g->line_size / LG_PHASE_MAX_CANDIDATES)
            step = g->line_size / LG_PHASE_MAX_CANDIDATES;
        uint64_t phases[LG_PHASE_MAX_CANDIDATES], misses[LG_PHASE_MAX_CANDIDATES];
        size_t ncand = 0;
        for (uint64_t q = 0; q < g->line_size && ncand < LG_PHASE_MAX_CANDIDATES; q += step)
            phases[ncand++] = q;
        if (ncand < 2)
            continue;
        uint64_t steps = cands[i].cost < LG_PHASE_WALK_STEPS ? cands[i].cost : LG_PHASE_WALK_STEPS;
        if (steps == 0) /* positions without cost: nothing ran to replay */
            continue;
        if (steps > budget) {
            stats->skipped_budget++;
            continue;
        }
        walk_t w;
        if (!walk_build(&w, p->hotspots + cands[i].hs, cands[i].nh, p->hotjumps + cands[i].js,
                        cands[i].nj)) {
            err = LG_ENOMEM;
            break;
        }
        walk_run(&w, steps, cands[i].fn, caches, phases, ncand, misses);
        walk_free(&w);
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
    for (size_t c = 0; c < LG_PHASE_MAX_CANDIDATES; c++)
        lg_cachesim_destroy(&caches[c]);
    free(cands);
    return err;
}
