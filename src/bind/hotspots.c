/* hotspots.c - per-position profile costs and jumps to offsets inside functions (rules in
 * hotspots.h). */
#include "hotspots.h"

#include "mem.h"

#include <stdlib.h>

/* Where pos lands inside f under bias: true with *offset set, or false. */
static bool lands(const lg_fn_t *f, uint64_t pos, uint64_t bias, uint64_t *offset)
{
    if (f->address == UINT64_MAX || f->size == 0 || pos < bias)
        return false;
    uint64_t a = pos - bias;
    if (a < f->address || a - f->address >= f->size)
        return false;
    *offset = a - f->address;
    return true;
}

/* Summed cost of prof's positions that land inside their own function under bias. */
static uint64_t landed_cost(const lg_program_t *p, const lg_profile_t *prof, const int64_t *map,
                            uint64_t bias)
{
    uint64_t sum = 0, offset;
    for (size_t i = 0; i < prof->ncosts; i++) {
        const lg_pcost_t *c = &prof->costs[i];
        if (map[c->func] >= 0 && lands(&p->fns[map[c->func]], c->position, bias, &offset))
            sum = lg_sat_add(sum, c->cost);
    }
    return sum;
}

/* The load bias of the profiled run (rule in hotspots.h); 0 when nothing suggests another. */
static lg_err_t choose_bias(const lg_program_t *p, const lg_profile_t *prof, const int64_t *map,
                            uint64_t *bias)
{
    *bias = 0;
    size_t n = prof->nfuncs;
    uint64_t *lowest = malloc((n ? n : 1) * sizeof *lowest);
    uint64_t *total = calloc(n ? n : 1, sizeof *total);
    if (lowest == NULL || total == NULL) {
        free(lowest);
        free(total);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        lowest[i] = UINT64_MAX;
    for (size_t i = 0; i < prof->ncosts; i++) {
        const lg_pcost_t *c = &prof->costs[i];
        total[c->func] = lg_sat_add(total[c->func], c->cost);
        if (c->position < lowest[c->func])
            lowest[c->func] = c->position;
    }
    uint64_t best_cost = landed_cost(p, prof, map, 0);
    /* The functions with the most cost, one at a time (K passes: K is small). */
    for (unsigned k = 0; k < LG_HOTSPOT_BIAS_CANDIDATES; k++) {
        size_t top = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            if (total[i] > 0 && map[i] >= 0 && (top == SIZE_MAX || total[i] > total[top]))
                top = i;
        if (top == SIZE_MAX)
            break;
        total[top] = 0;
        const lg_fn_t *f = &p->fns[map[top]];
        if (f->address == UINT64_MAX || lowest[top] < f->address)
            continue;
        uint64_t candidate =
            (lowest[top] - f->address) / LG_HOTSPOT_BIAS_ALIGN * LG_HOTSPOT_BIAS_ALIGN;
        if (candidate == 0 || candidate == *bias)
            continue;
        uint64_t cost = landed_cost(p, prof, map, candidate);
        if (cost > best_cost || (cost == best_cost && candidate < *bias)) {
            best_cost = cost;
            *bias = candidate;
        }
    }
    free(lowest);
    free(total);
    return LG_OK;
}

lg_err_t lg_hotspots_bind(lg_program_t *p, size_t *cap, const lg_profile_t *prof,
                          const int64_t *map, double scale, lg_hotspot_stats_t *stats)
{
    *stats = (lg_hotspot_stats_t){0};
    if (prof->ncosts == 0)
        return LG_OK;
    if (prof->cost_positions != LG_POS_ADDRESS) {
        stats->dropped = prof->ncosts;
        for (size_t i = 0; i < prof->ncosts; i++)
            stats->dropped_cost = lg_sat_add(stats->dropped_cost, prof->costs[i].cost);
        return LG_OK;
    }
    LG_CHECK(choose_bias(p, prof, map, &stats->bias));
    for (size_t i = 0; i < prof->ncosts; i++) {
        const lg_pcost_t *c = &prof->costs[i];
        uint64_t offset;
        if (map[c->func] < 0 || !lands(&p->fns[map[c->func]], c->position, stats->bias, &offset)) {
            stats->dropped++;
            stats->dropped_cost = lg_sat_add(stats->dropped_cost, c->cost);
            if (map[c->func] >= 0 && (p->fns[map[c->func]].flags & LG_FN_AMBIGUOUS_NAME))
                stats->dropped_shared_name_cost =
                    lg_sat_add(stats->dropped_shared_name_cost, c->cost);
            continue;
        }
        if (!lg_grow((void **)&p->hotspots, cap, p->nhotspots + 1, sizeof *p->hotspots))
            return LG_ENOMEM;
        p->hotspots[p->nhotspots++] =
            (lg_hotspot_t){(uint32_t)map[c->func], offset, lg_scale_count(c->cost, scale)};
        stats->bound++;
    }
    return LG_OK;
}

lg_err_t lg_hotspots_bind_jumps(lg_program_t *p, size_t *cap, const lg_profile_t *prof,
                                const int64_t *map, double scale, lg_hotspot_stats_t *stats)
{
    stats->jumps_bound = stats->jumps_dropped = 0;
    /* Jumps are instruction addresses (loaders keep them only then); bias 0 without costs. */
    if (prof->cost_positions != LG_POS_ADDRESS) {
        stats->jumps_dropped = prof->njumps;
        return LG_OK;
    }
    for (size_t i = 0; i < prof->njumps; i++) {
        const lg_pjump_t *j = &prof->jumps[i];
        uint64_t from, to;
        if (map[j->func] < 0 || !lands(&p->fns[map[j->func]], j->from, stats->bias, &from) ||
            !lands(&p->fns[map[j->func]], j->to, stats->bias, &to)) {
            stats->jumps_dropped++;
            continue;
        }
        if (!lg_grow((void **)&p->hotjumps, cap, p->nhotjumps + 1, sizeof *p->hotjumps))
            return LG_ENOMEM;
        p->hotjumps[p->nhotjumps++] =
            (lg_hotjump_t){(uint32_t)map[j->func], from, to, lg_scale_count(j->count, scale)};
        stats->jumps_bound++;
    }
    return LG_OK;
}

