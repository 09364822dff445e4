/* calls.h - a weighted call from one function to another, as profiles and the program hold
 * them, and the merge of repeated pairs. */
#ifndef LG_CALLS_H
#define LG_CALLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct lg_call {
    uint32_t caller; /* function index (in a profile's funcs or the program's fns) */
    uint32_t callee;
    uint64_t weight; /* calls, or samples for sampled call stacks */
} lg_call_t;

/* Sorts calls by (caller, callee) and sums repeated pairs, saturating; *n shrinks to the number
 * of distinct pairs. O(n log n). */
void lg_calls_merge(lg_call_t *calls, size_t *n);

#endif
