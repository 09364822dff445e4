/* intmap.h - a hash map from 64-bit integer keys to 64-bit values (open addressing, linear
 * probing).
 *
 * The one integer map of lorgen: the profile merges repeated call pairs through it, and loaders
 * map the numbers of their formats (ids, handles, streams) to indices with it. A value is often
 * an index into an array the caller keeps (first-seen order), so that output never depends on
 * where a key sits. Keys come from files lorgen did not write, so the hash is keyed per process
 * (lg_hash64): no one can choose keys that pile into one cluster and make loading quadratic.
 * Wider keys are built from two maps: the first numbers one part densely, the second takes the
 * number with the other part (see lg_intmap_pair).
 */
#ifndef LG_INTMAP_H
#define LG_INTMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A key and its value side by side: a lookup touches one cache line. */
typedef struct lg_intmap_slot {
    uint64_t key; /* LG_INTMAP_FREE marks an empty slot */
    uint64_t value;
} lg_intmap_slot_t;

typedef struct lg_intmap {
    lg_intmap_slot_t *slots;
    size_t count;      /* keys held, the free key included */
    size_t capacity;   /* slots: a power of two, or 0 */
    bool has_free_key; /* the key LG_INTMAP_FREE, which no slot can hold, is held here */
    uint64_t free_key_value;
} lg_intmap_t;

/* The key value that marks an empty slot; as a key it is held outside the slots. */
#define LG_INTMAP_FREE UINT64_MAX

void lg_intmap_init(lg_intmap_t *m);
/* Frees the slots; accepts a zeroed map. */
void lg_intmap_destroy(lg_intmap_t *m);

/* Looks key up; returns true and sets *value (if not NULL) when found. O(1) expected. */
bool lg_intmap_get(const lg_intmap_t *m, uint64_t key, uint64_t *value);

/* The value of key, added with value when absent (*added, if not NULL, tells which). The pointer
 * stays valid until the next insertion; NULL when memory runs out (the map is unchanged).
 * Amortized O(1). */
uint64_t *lg_intmap_find_or_add(lg_intmap_t *m, uint64_t key, uint64_t value, bool *added);

/* Sets key -> value, adding or replacing; false only when memory runs out. */
bool lg_intmap_set(lg_intmap_t *m, uint64_t key, uint64_t value);

/* Walks the map: starting from *cursor = 0, each call sets *key and *value to the next entry and
 * returns true, false after the last. The order differs between runs (it follows the keyed
 * hash): use it only where order cannot matter, such as rebuilding a map. The map must not
 * change during the walk. */
bool lg_intmap_next(const lg_intmap_t *m, size_t *cursor, uint64_t *key, uint64_t *value);

/* Two 32-bit numbers as one key. */
static inline uint64_t lg_intmap_pair(uint32_t hi, uint32_t lo)
{
    return (uint64_t)hi << 32 | lo;
}

#endif
