/* seeds.h - weighted pairs of functions put in order heaviest first, ties in the order they were
 * added (a stable sort by weight): the clique pass's seed edges, and the radix sort under it.
 *
 * The clique pass adds every edge between free candidates (10M on the 1M-function benchmark,
 * docs/benchmarks.md "Optimizer scale") and then reads them back heaviest first. Profile
 * weights are heavy-tailed: almost every edge weighs less than LG_SEED_CLASSES calls. So the
 * edges are counted into one class per weight below that, all heavier ones in a last class,
 * and one counting pass puts them in order; only the last class, a handful, is sorted by weight
 * on its own. Each pair is written twice, as 8 bytes, where a radix sort of 16-byte records by
 * their full 64-bit weight moved them at least four times through two buffers.
 */
#ifndef LG_SEEDS_H
#define LG_SEEDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Weight classes the seeds are counted into: weights 0 .. LG_SEED_CLASSES - 2 each have a class
 * of their own, heavier ones share the last. 2^16 keeps the class in 16 bits and the counts
 * (512 KiB) in the cache. */
#define LG_SEED_CLASSES 65536u /* classes */

/* A weight and two function indexes. */
typedef struct lg_weighted {
    uint64_t weight;
    uint32_t a, b;
} lg_weighted_t;

/* A seed edge as the clique pass reads it back: lo the lower-ranked end. */
typedef struct lg_seed_pair {
    uint32_t lo, hi;
} lg_seed_pair_t;

/* Seed edges as they are added. Zero it, then lg_seeds_init. */
typedef struct lg_seeds {
    lg_seed_pair_t *pair; /* in the order added */
    uint16_t *cls;        /* per pair: its weight class */
    size_t n, cap;
    size_t *count;        /* per weight class: pairs added */
    lg_weighted_t *heavy; /* the pairs of the last class with their weights, in the order added */
    size_t nheavy, heavy_cap;
} lg_seeds_t;

/* Room for cap pairs. false when out of memory (then lg_seeds_destroy). */
bool lg_seeds_init(lg_seeds_t *s, size_t cap);

/* Frees everything; accepts a zeroed struct. */
void lg_seeds_destroy(lg_seeds_t *s);

/* Makes room for more heaviest pairs (lg_seeds_add's slow path). false when out of memory. */
bool lg_seeds_grow_heavy(lg_seeds_t *s);

/* Adds the pair (lo, hi) of the given weight; s has room for it (s->n < s->cap). false when out
 * of memory for the heaviest pairs' list. */
static inline bool lg_seeds_add(lg_seeds_t *s, uint64_t weight, uint32_t lo, uint32_t hi)
{
    bool heavy = weight >= LG_SEED_CLASSES - 1;
    uint16_t c = (uint16_t)(heavy ? LG_SEED_CLASSES - 1 : weight);
    if (heavy) {
        if (s->nheavy == s->heavy_cap && !lg_seeds_grow_heavy(s))
            return false;
        s->heavy[s->nheavy++] = (lg_weighted_t){weight, lo, hi};
    }
    s->pair[s->n] = (lg_seed_pair_t){lo, hi};
    s->cls[s->n++] = c;
    s->count[c]++;
    return true;
}

/* Writes the s->n pairs added, heaviest first and in the order added among equal weights, into a
 * new array *out (the caller frees it; lg_seeds_destroy may follow at once). false when out of
 * memory. Call it once. Time O(n + LG_SEED_CLASSES) plus the radix sort of the h pairs in the
 * last class; memory: the new array. */
bool lg_seeds_sort(lg_seeds_t *s, lg_seed_pair_t **out);

/* Sorts (*a)[0..n) by weight descending, stably: records of equal weight keep their order.
 * *tmp has room for n records; the two buffers may be swapped (*a receives the sorted one).
 * false when out of memory for the counts. Time O(n) per 16-bit digit the weights differ in. */
bool lg_sort_by_weight_desc(lg_weighted_t **a, lg_weighted_t **tmp, size_t n);

#endif
