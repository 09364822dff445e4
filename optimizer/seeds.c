/* seeds.c - seed edges heaviest first by a counting sort over weight classes, and the radix sort
 * that orders the heaviest class (and the clique pass's candidates by hits). seeds.h says why.
 */
#include "seeds.h"

#include "bigalloc.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

/* Bits of the key one pass of the radix sort orders by. */
#define LG_RADIX_BITS 16u
#define LG_RADIX_BUCKETS (1u << LG_RADIX_BITS)
#define LG_RADIX_PASSES (64u / LG_RADIX_BITS)

/* ---- the radix sort --------------------------------------------------------------------- */

/* A least-significant-digit radix sort on the complemented weight, skipping the digits that
 * every record shares (the high digits of small weights): a few sequential passes where qsort
 * made about log2(n) and called a comparison per step (1.8 s against 0.6 s on 10M records). */
bool lg_sort_by_weight_desc(lg_weighted_t **a, lg_weighted_t **tmp, size_t n)
{
    if (n == 0)
        return true;
    size_t *count = calloc(LG_RADIX_PASSES * LG_RADIX_BUCKETS, sizeof *count);
    if (count == NULL)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = ~(*a)[i].weight;
        for (unsigned d = 0; d < LG_RADIX_PASSES; d++)
            count[d * LG_RADIX_BUCKETS + ((key >> (d * LG_RADIX_BITS)) & (LG_RADIX_BUCKETS - 1))]++;
    }
    for (unsigned d = 0; d < LG_RADIX_PASSES; d++) {
        size_t *c = &count[d * LG_RADIX_BUCKETS];
        uint64_t digit0 = (~(*a)[0].weight >> (d * LG_RADIX_BITS)) & (LG_RADIX_BUCKETS - 1);
        if (c[digit0] == n)
            continue; /* every record has this digit: the pass would not move anything */
        size_t sum = 0;
        for (size_t b = 0; b < LG_RADIX_BUCKETS; b++) {
            size_t k = c[b];
            c[b] = sum;
            sum += k;
        }
        const lg_weighted_t *from = *a;
        lg_weighted_t *to = *tmp;
        for (size_t i = 0; i < n; i++)
            to[c[(~from[i].weight >> (d * LG_RADIX_BITS)) & (LG_RADIX_BUCKETS - 1)]++] = from[i];
        *tmp = *a;
        *a = to;
    }
    free(count);
    return true;
}

/* ---- seed edges ------------------------------------------------------------------------- */

bool lg_seeds_init(lg_seeds_t *s, size_t cap)
{
    memset(s, 0, sizeof *s);
    s->cap = cap;
    s->pair = lg_big_alloc(cap ? cap : 1, sizeof *s->pair);
    s->cls = lg_big_alloc(cap ? cap : 1, sizeof *s->cls);
    s->count = calloc(LG_SEED_CLASSES, sizeof *s->count);
    return s->pair != NULL && s->cls != NULL && s->count != NULL;
}

void lg_seeds_destroy(lg_seeds_t *s)
{
    free(s->pair);
    free(s->cls);
    free(s->count);
    free(s->heavy);
    memset(s, 0, sizeof *s);
}

bool lg_seeds_grow_heavy(lg_seeds_t *s)
{
    return lg_grow((void **)&s->heavy, &s->heavy_cap, s->nheavy + 1, sizeof *s->heavy);
}

bool lg_seeds_sort(lg_seeds_t *s, lg_seed_pair_t **out)
{
    *out = NULL;
    lg_seed_pair_t *sorted = lg_big_alloc(s->n ? s->n : 1, sizeof *sorted);
    lg_weighted_t *tmp = malloc((s->nheavy ? s->nheavy : 1) * sizeof *tmp);
    if (sorted == NULL || tmp == NULL || !lg_sort_by_weight_desc(&s->heavy, &tmp, s->nheavy)) {
        free(sorted);
        free(tmp);
        return false;
    }
    free(tmp);
    /* The last class first, by weight; then one run per class, heaviest first, each in the
     * order added. count[c] becomes where class c's next pair goes. */
    for (size_t i = 0; i < s->nheavy; i++)
        sorted[i] = (lg_seed_pair_t){s->heavy[i].a, s->heavy[i].b};
    size_t at = 0;
    for (size_t c = LG_SEED_CLASSES; c-- > 0;) {
        size_t k = s->count[c];
        s->count[c] = at;
        at += k;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->cls[i] != LG_SEED_CLASSES - 1)
            sorted[s->count[s->cls[i]]++] = s->pair[i];
    *out = sorted;
    return true;
}
