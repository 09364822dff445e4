/* calls.c - merging repeated weighted calls. */
#include "calls.h"

#include "mem.h"

#include <stdlib.h>

static int cmp_pair(const void *a, const void *b)
{
    const lg_call_t *x = a, *y = b;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    if (x->callee != y->callee)
        return x->callee < y->callee ? -1 : 1;
    return 0;
}

void lg_calls_merge(lg_call_t *calls, size_t *n)
{
    if (*n == 0)
        return;
    qsort(calls, *n, sizeof *calls, cmp_pair);
    size_t out = 0;
    for (size_t i = 0; i < *n; i++) {
        if (out > 0 && cmp_pair(&calls[out - 1], &calls[i]) == 0)
            calls[out - 1].weight = lg_sat_add(calls[out - 1].weight, calls[i].weight);
        else
            calls[out++] = calls[i];
    }
    *n = out;
}
