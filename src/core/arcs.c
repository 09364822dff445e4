/* arcs.c - merging repeated arcs and proximity pairs. */
#include "arcs.h"

#include "mem.h"

#include <stdlib.h>

/* Both orders compare two function indexes, then the next: one rule for both types. */
static int cmp_indexes(uint32_t x1, uint32_t x2, uint32_t y1, uint32_t y2)
{
    if (x1 != y1)
        return x1 < y1 ? -1 : 1;
    if (x2 != y2)
        return x2 < y2 ? -1 : 1;
    return 0;
}

static int cmp_arc(const void *a, const void *b)
{
    const lg_arc_t *x = a, *y = b;
    return cmp_indexes(x->caller, x->callee, y->caller, y->callee);
}

static int cmp_pair(const void *a, const void *b)
{
    const lg_pair_t *x = a, *y = b;
    return cmp_indexes(x->a, x->b, y->a, y->b);
}

void lg_arcs_merge(lg_arc_t *arcs, size_t *n)
{
    if (*n == 0)
        return;
    qsort(arcs, *n, sizeof *arcs, cmp_arc);
    size_t out = 0;
    for (size_t i = 0; i < *n; i++) {
        if (out > 0 && cmp_arc(&arcs[out - 1], &arcs[i]) == 0)
            arcs[out - 1].weight = lg_sat_add(arcs[out - 1].weight, arcs[i].weight);
        else
            arcs[out++] = arcs[i];
    }
    *n = out;
}

void lg_pairs_merge(lg_pair_t *pairs, size_t *n)
{
    if (*n == 0)
        return;
    qsort(pairs, *n, sizeof *pairs, cmp_pair);
    size_t out = 0;
    for (size_t i = 0; i < *n; i++) {
        if (out > 0 && cmp_pair(&pairs[out - 1], &pairs[i]) == 0)
            pairs[out - 1].weight = lg_sat_add(pairs[out - 1].weight, pairs[i].weight);
        else
            pairs[out++] = pairs[i];
    }
    *n = out;
}
