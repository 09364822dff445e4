/* cachesim.h - a set-associative LRU instruction-cache simulator over line addresses.
 *
 * The cache has the geometry of layout.h: sets = cache_size / (line_size * ways), each holding
 * `ways` lines in least-recently-used order. An access names a byte range; every line the range
 * overlaps is looked up once, in address order: a hit moves the line to the most-recently-used
 * position of its set, a miss evicts the set's least-recently-used line (if the set is full) and
 * inserts the new one as most recently used. This is the policy of cachegrind's I1 model
 * (valgrind cg_sim.c), so misses compare with `--I1=size,ways,line`.
 *
 * Definitions:
 *   line number  address / line_size (a line's identity; the tag and the set index together)
 *   set index    line number modulo the number of sets (a mask when that is a power of two)
 *   access       one line looked up (cachegrind counts one access per instruction instead, so
 *                its access counts are larger; its miss counts are comparable)
 *
 * Cost: O(1) expected per line accessed. A set of at most LG_CACHESIM_SCAN_MAX_WAYS ways is an
 * array scanned and shifted, O(ways) with a small constant; a larger set is a linked LRU list with
 * a hash index over line numbers, so a fully-associative cache of 65,536 lines costs no more per
 * access than an 8-way one. Memory: 8 bytes per line of the cache for scanned sets; for listed
 * ones under 36 bytes per line, plus 4 per set.
 */
#ifndef LG_CACHESIM_H
#define LG_CACHESIM_H

#include "diag.h"
#include "layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Marks an empty way: no line number reaches it (line numbers are addresses / line_size, and
 * line_size >= 2). */
#define LG_CACHESIM_EMPTY UINT64_MAX

/* The most ways a set may have and still be scanned (ways); larger sets are kept as lists. Only
 * speed depends on it, never a result. Measured on 2,000,000 line accesses in a 32 KiB cache with
 * 32-byte lines, code of 1, 2 and 4 times the cache (miss ratios 0%, 13%, 28%), best of 5, in ns
 * per access, scan / list: 32 ways 11.0/11.2, 15.2/18.6, 13.2/24.1; 64 ways 17.4/12.4,
 * 20.1/18.6, 22.0/25.5; 128 ways 27/18, 33/24, 45/31. At 32 ways and below the scan never loses. */
#define LG_CACHESIM_SCAN_MAX_WAYS 32u

/* A slot of a listed set: its neighbours in the set's LRU list and where its line's probe
 * starts in the hash index. */
typedef struct lg_cachesim_link {
    uint32_t next; /* the next less recently used slot of the set (circular) */
    uint32_t prev; /* the next more recently used slot of the set (circular) */
    uint32_t home; /* the index position the line hashes to (kept so as not to hash again) */
} lg_cachesim_link_t;

typedef struct lg_cachesim {
    lg_geometry_t geometry;
    uint32_t line_shift; /* log2(line_size) */
    uint32_t nsets;      /* cache_size / (line_size * ways), >= 1 */
    uint32_t set_mask;   /* nsets - 1 when nsets is a power of two; else 0 (modulo is used) */
    uint64_t *lines;     /* nsets * ways line numbers (set s owns slots s * ways to s * ways +
                            ways - 1), LG_CACHESIM_EMPTY in unused ways; a scanned set is most
                            recently used first, a listed set in the order of its list */
    /* Listed sets only (ways > LG_CACHESIM_SCAN_MAX_WAYS); NULL otherwise. */
    lg_cachesim_link_t *links; /* per slot, as lines */
    uint32_t *mru;             /* per set: its most recently used slot */
    uint32_t *index;           /* hash index: the slots of filled ways, UINT32_MAX when free */
    uint32_t index_mask;       /* index size - 1 (a power of two) */
    uint64_t accesses;         /* lines looked up since the last reset */
    uint64_t misses;           /* of those, lines that were not in the cache */
} lg_cachesim_t;

/* Sets up an empty cache of geometry g (checked with lg_geometry_check; the reason goes to d).
 * c needs no prior initialisation; on success it owns memory freed by lg_cachesim_destroy, on
 * error it is left zeroed. Returns LG_OK, LG_EINVAL or LG_ENOMEM. O(cache lines). */
lg_err_t lg_cachesim_init(lg_cachesim_t *c, const lg_geometry_t *g, lg_diag_t *d);

/* Frees the cache; accepts a zeroed struct. */
void lg_cachesim_destroy(lg_cachesim_t *c);

/* Empties the cache and zeroes the counters. O(cache lines). */
void lg_cachesim_reset(lg_cachesim_t *c);

/* Zeroes the counters and keeps the contents (to measure after a warm-up). O(1). */
void lg_cachesim_reset_counters(lg_cachesim_t *c);

/* Looks up one line by line number (address >> line_shift), updating LRU order and counters.
 * Returns true on a miss. O(1) expected. */
bool lg_cachesim_access_line(lg_cachesim_t *c, uint64_t line);

/* Looks up every line that the bytes [address, address + bytes) overlap, in address order; the
 * range is clipped at the top of the address space. bytes == 0 touches nothing. Returns the
 * number of misses among those lines. O(lines touched) expected. */
uint64_t lg_cachesim_access(lg_cachesim_t *c, uint64_t address, uint64_t bytes);

/* True when the line holding address is in the cache. Does not count as an access and does not
 * change LRU order. O(1) expected. */
bool lg_cachesim_holds(const lg_cachesim_t *c, uint64_t address);

/* How many lines of line_shift bits the bytes [address, address + bytes) overlap (clipped at the
 * top of the address space); 0 when bytes == 0. O(1). */
uint64_t lg_cachesim_span(uint32_t line_shift, uint64_t address, uint64_t bytes);

#endif
