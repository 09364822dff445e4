/* affinity.h - temporal affinity for cache placement: how strongly a function runs close in
 * time to the code already placed in each cache set.
 *
 * Profiles made from a timeline carry proximity pairs (profile.h, program.h): functions that
 * ran close together in time, weighted by how often. Two pieces of code that share cache sets
 * evict each other only if they run close together; code that never runs near another can share
 * its sets for free. This is the idea of Gloy & Smith's temporal relationship graph (ACM TOPLAS
 * 21(5), 1999): the proximity weight of two procedures estimates the conflict misses their
 * overlap in the cache would cause.
 *
 * Definitions:
 *   proximity w(f, g)   the program's summed proximity weight of the pair (0 when absent)
 *   placed              a function whose layout offset has been recorded with
 *                       lg_affinity_place; its lines are the cache lines its bytes touch
 *   affinity of f to set s   the sum of w(f, g) over the placed functions g with a line in s
 */
#ifndef LG_AFFINITY_H
#define LG_AFFINITY_H

#include "diag.h"
#include "program.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct lg_affinity lg_affinity_t;

/* An affinity map for prog's proximity pairs and a cache of nsets sets of line bytes each. */
lg_err_t lg_affinity_create(const lg_program_t *prog, uint32_t nsets, uint64_t line,
                            lg_affinity_t **out);
void lg_affinity_destroy(lg_affinity_t *a);

/* True when function f has a proximity pair with some function. */
bool lg_affinity_has_pairs(const lg_affinity_t *a, uint32_t f);

/* Records that function f sits at layout offset (offset 0 maps to set 0). */
void lg_affinity_place(lg_affinity_t *a, uint32_t f, uint64_t offset);

/* Writes the affinity of f to every set into per_set (nsets entries). O(sum over f's placed
 * neighbours of their lines, at most nsets each). */
void lg_affinity_sets(const lg_affinity_t *a, uint32_t f, double *per_set);

#endif
