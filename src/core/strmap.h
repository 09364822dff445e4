/* strmap.h - a hash map from borrowed strings to 32-bit ids (open addressing, linear probing).
 *
 * Keys are not copied: each key must stay valid and unchanged while the map lives. The map is used
 * to find functions by name in profiles, ELF symbol tables and .LOR files, names lorgen did not
 * choose: the hash is keyed per process (lg_strhash) so that loading stays linear for any names.
 * Where a name sits changes from run to run; only lookups are defined, never the slot order.
 */
#ifndef LG_STRMAP_H
#define LG_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lg_strmap {
    const char **keys; /* NULL marks an empty slot */
    uint32_t *values;
    size_t count;
    size_t capacity; /* a power of two, or 0 */
} lg_strmap_t;

void lg_strmap_init(lg_strmap_t *m);
void lg_strmap_destroy(lg_strmap_t *m);

/* Inserts key -> value. If the key is present its value is left as it is and *existing (if not
 * NULL) receives it; returns false only when memory runs out. Amortized O(1). */
bool lg_strmap_put(lg_strmap_t *m, const char *key, uint32_t value, uint32_t *existing);

/* Looks key up; returns true and sets *value when found. O(1) expected. */
bool lg_strmap_get(const lg_strmap_t *m, const char *key, uint32_t *value);

/* Same-named entries (statics of one name, aliases) are chained: next[i] is the entry after i
 * with i's name, or UINT32_MAX. Appends index to the chain that starts at first (the value
 * lg_strmap_put returned for the name); index == first starts a new chain. O(chain length). */
void lg_chain_append(uint32_t *next, uint32_t first, uint32_t index);

/* Puts key -> index and chains index after the earlier entries of that name. */
bool lg_strmap_put_chained(lg_strmap_t *m, uint32_t *next, const char *key, uint32_t index);

/* The hash the map uses: SipHash-1-3 under a key drawn once per process, so that no one can choose
 * names that collide. It differs between runs: nothing may order or bucket output by it, and no
 * caller may walk the map's slots. */
uint64_t lg_strhash(const char *s);

/* The same keyed hash of a 64-bit number (SipHash-1-3 of its 8 bytes), for tables keyed by
 * numbers lorgen did not choose, such as addresses read from an ELF file. The same rules hold:
 * it differs between runs, so only lookups may depend on it. */
uint64_t lg_hash64(uint64_t x);

/* SplitMix64's finalizer (Steele, Lea and Flood, OOPSLA 2014): a fixed bijection that spreads
 * every bit of x over the result, the same in every run (unlike lg_hash64): for seeds and for
 * noise that must repeat, never for tables keyed by input. */
uint64_t lg_mix64(uint64_t x);

#endif
