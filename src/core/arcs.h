/* arcs.h - the two weighted pairs of functions profiles and the program hold: a call arc, from
 * a caller to a callee, and a proximity pair, two functions that ran close together in time
 * (unordered, so stored with a < b); and the merge of repeated ones. */
#ifndef LG_ARCS_H
#define LG_ARCS_H

#include <stddef.h>
#include <stdint.h>

typedef struct lg_arc {
    uint32_t caller; /* function index (in a profile's funcs or the program's fns) */
    uint32_t callee;
    uint64_t weight; /* calls, or samples for sampled call stacks */
} lg_arc_t;

typedef struct lg_pair {
    uint32_t a, b;   /* function indexes, a < b */
    uint64_t weight; /* how often they ran close together (the loader's rule) */
} lg_pair_t;

/* Sorts arcs by (caller, callee) and sums repeated ones, saturating; *n shrinks to the number
 * of distinct arcs. O(n log n). */
void lg_arcs_merge(lg_arc_t *arcs, size_t *n);

/* The same for pairs, by (a, b). */
void lg_pairs_merge(lg_pair_t *pairs, size_t *n);

#endif
