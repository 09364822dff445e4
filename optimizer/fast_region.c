/* fast_region.c - the 0/1 knapsack that fills a fast memory region (fast_region.h). */
#include "fast_region.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

typedef struct item {
    uint32_t unit;
    uint64_t value;  /* fetch cost it carries */
    uint64_t weight; /* bytes rounded up to its alignment */
} item_t;

void lg_fast_region_init(lg_fast_region_t *r)
{
    memset(r, 0, sizeof *r);
}

void lg_fast_region_destroy(lg_fast_region_t *r)
{
    free(r->members);
    lg_fast_region_init(r);
}

uint64_t lg_fast_region_budget(uint64_t size, double headroom_percent)
{
    if (!(headroom_percent > 0.0))
        return size;
    if (headroom_percent >= 100.0)
        return 0;
    double kept = (double)size * (100.0 - headroom_percent) / 100.0;
    return kept >= (double)size ? size : (uint64_t)kept;
}

uint64_t lg_fast_region_weight(const lg_fn_t *f)
{
    /* Moved away from its callees, code the linker relaxed (shortened) in the program as
     * linked now may not shrink again: its input section's bytes are what it can take. */
    uint64_t bytes = f->section_bytes > f->size ? f->section_bytes : f->size;
    uint64_t a = f->align > 1 ? f->align : 1;
    uint64_t rest = bytes % a;
    return rest == 0 ? bytes : lg_sat_add(bytes, a - rest);
}

bool lg_fast_region_counters(const lg_program_t *prog)
{
    for (size_t i = 0; i < prog->nfns; i++)
        if (prog->fns[i].counter1_self > 0)
            return true;
    return false;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* a's value per byte against b's: > 0 when a's is higher. */
static int ratio_cmp(const item_t *a, const item_t *b)
{
    __extension__ typedef unsigned __int128 wide_t;
    wide_t l = (wide_t)a->value * b->weight, r = (wide_t)b->value * a->weight;
    return l > r ? 1 : l < r ? -1 : 0;
}

/* Greedy order: value per byte descending, then value descending, then input order. */
static int by_ratio(const void *pa, const void *pb)
{
    const item_t *a = pa, *b = pb;
    int c = ratio_cmp(a, b);
    if (c != 0)
        return -c;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    return a->unit < b->unit ? -1 : a->unit > b->unit;
}

/* Exact: best[w] is the most value within w granules using the items seen so far; keep records
 * which item improved which cell, to read the set back. */
static lg_err_t solve_exact(const item_t *items, size_t n, uint64_t granule, uint64_t cap,
                            bool *take)
{
    uint64_t *best = calloc(cap + 1, sizeof *best);
    size_t row = (size_t)((cap + 1 + 7) / 8);
    unsigned char *keep = calloc(n * row + 1, 1);
    if (best == NULL || keep == NULL) {
        free(best);
        free(keep);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t w = items[i].weight / granule;
        for (uint64_t c = cap; c >= w; c--) {
            uint64_t with = lg_sat_add(best[c - w], items[i].value);
            if (with > best[c]) {
                best[c] = with;
                keep[i * row + c / 8] |= (unsigned char)(1u << (c % 8));
            }
            if (c == 0)
                break;
        }
    }
    uint64_t c = 0; /* the fewest granules that reach the best value */
    while (best[c] != best[cap])
        c++;
    for (size_t i = n; i-- > 0;)
        if (keep[i * row + c / 8] & (1u << (c % 8))) {
            take[i] = true;
            c -= items[i].weight / granule;
        }
    free(best);
    free(keep);
    return LG_OK;
}

/* Greedy by value per byte (items sorted so), then single swaps while one gains. Returns the
 * fractional bound. */
static uint64_t solve_greedy(const item_t *items, size_t n, uint64_t budget, bool *take)
{
    uint64_t used = 0, bound = 0;
    bool bounded = false; /* the fractional bound met its first item that does not fit */
    for (size_t i = 0; i < n; i++) {
        if (items[i].weight <= budget - used) {
            take[i] = true;
            used += items[i].weight;
            if (!bounded)
                bound = lg_sat_add(bound, items[i].value);
        } else if (!bounded) {
            bounded = true;
            double part =
                (double)items[i].value * (double)(budget - used) / (double)items[i].weight;
            bound = lg_sat_add(bound, (uint64_t)part + 1);
        }
    }
    for (int round = 0; round < LG_FAST_REGION_MAX_SWAPS; round++) {
        size_t out = n, in = n;
        uint64_t gain = 0;
        for (size_t i = 0; i < n; i++) {
            if (!take[i])
                continue;
            for (size_t j = 0; j < n; j++) {
                if (take[j] || items[j].value <= items[i].value ||
                    items[j].weight > budget - used + items[i].weight)
                    continue;
                if (items[j].value - items[i].value > gain) {
                    gain = items[j].value - items[i].value;
                    out = i;
                    in = j;
                }
            }
        }
        if (in == n)
            break;
        take[out] = false;
        take[in] = true;
        used = used - items[out].weight + items[in].weight;
        for (size_t j = 0; j < n; j++) /* room a swap freed */
            if (!take[j] && items[j].weight <= budget - used) {
                take[j] = true;
                used += items[j].weight;
            }
    }
    uint64_t value = 0;
    size_t top = n; /* the single most valuable item */
    for (size_t i = 0; i < n; i++) {
        if (take[i])
            value = lg_sat_add(value, items[i].value);
        if (top == n || items[i].value > items[top].value ||
            (items[i].value == items[top].value && items[i].unit < items[top].unit))
            top = i;
    }
    if (top < n && items[top].value > value) {
        memset(take, 0, n * sizeof *take);
        take[top] = true;
    }
    return bounded ? bound : value;
}

/* Members order: alignment descending (no padding between them), then input order; weight
 * holds the alignment here. */
static int by_alignment(const void *pa, const void *pb)
{
    const item_t *a = pa, *b = pb;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    return a->unit < b->unit ? -1 : a->unit > b->unit;
}

lg_err_t lg_fast_region_choose(const lg_program_t *prog, const bool *taken, uint64_t budget,
                               uint64_t exact_cells, lg_fast_region_t *r, lg_diag_t *d)
{
    lg_fast_region_init(r);
    r->budget = budget;
    r->counters = lg_fast_region_counters(prog);
    item_t *items = malloc((prog->nfns ? prog->nfns : 1) * sizeof *items);
    bool *take = calloc(prog->nfns ? prog->nfns : 1, sizeof *take);
    if (items == NULL || take == NULL) {
        free(items);
        free(take);
        lg_diag_add(d, LG_ERROR, "", "out of memory choosing the fast region");
        return LG_ENOMEM;
    }
    size_t n = 0;
    uint64_t granule = 0;
    for (size_t u = 0; u < prog->nfns; u++) {
        const lg_fn_t *f = &prog->fns[u];
        if (!lg_fast_region_candidate(f, r->counters, taken != NULL && taken[u]))
            continue;
        uint64_t value = lg_fast_region_value(f, r->counters);
        r->candidates_value = lg_sat_add(r->candidates_value, value);
        uint64_t weight = lg_fast_region_weight(f);
        if (weight > budget)
            continue;
        items[n++] = (item_t){(uint32_t)u, value, weight};
        granule = gcd(granule, weight);
    }
    lg_err_t err = LG_OK;
    if (n > 0) {
        uint64_t cap = budget / granule;
        if (cap < exact_cells / n) {
            r->exact = true;
            err = solve_exact(items, n, granule, cap, take);
        } else {
            qsort(items, n, sizeof *items, by_ratio);
            r->bound = solve_greedy(items, n, budget, take);
        }
    }
    if (err == LG_OK) {
        r->members = malloc((n ? n : 1) * sizeof *r->members);
        if (r->members == NULL)
            err = LG_ENOMEM;
    }
    if (err != LG_OK) {
        free(items);
        free(take);
        lg_diag_add(d, LG_ERROR, "", "out of memory choosing the fast region");
        return err;
    }
    size_t k = 0; /* the members, moved to items' front */
    for (size_t i = 0; i < n; i++)
        if (take[i]) {
            r->used += items[i].weight;
            r->value = lg_sat_add(r->value, items[i].value);
            const lg_fn_t *f = &prog->fns[items[i].unit];
            items[k++] = (item_t){items[i].unit, 0, f->align > 1 ? f->align : 1};
        }
    if (r->exact)
        r->bound = r->value;
    qsort(items, k, sizeof *items, by_alignment);
    for (size_t i = 0; i < k; i++)
        r->members[r->nmembers++] = items[i].unit;
    free(items);
    free(take);
    return LG_OK;
}
