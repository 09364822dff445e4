/* cachesim.c - a set-associative LRU instruction-cache simulator over line addresses.
 *
 * Two representations of a set give the same results; the associativity picks one.
 *
 * Scanned sets (ways <= LG_CACHESIM_SCAN_MAX_WAYS). Each set is a small array of line numbers
 * kept most recently used first, as in cachegrind's cg_sim.c: a lookup scans the set from the
 * front; a hit at way i shifts ways 0..i-1 back by one and puts the line at the front; a miss
 * shifts the whole set back (dropping the last way, the least recently used) and puts the new
 * line at the front. Empty ways hold LG_CACHESIM_EMPTY and sit at the back, so a cold cache fills
 * front to back without a special case.
 *
 * Listed sets (more ways). The scan costs O(ways) per access, and the safeguard replays whole
 * programs in fully-associative caches of thousands of ways. There each set's slots form a
 * circular doubly linked list in LRU order, mru[set] its head, and one hash index over the cache
 * maps a line number to its slot. Empty slots hold LG_CACHESIM_EMPTY and sit at the least recently
 * used end, as in a scanned set: a miss takes the slot before the head (the least recently used
 * line, or an empty slot) and makes it the head, which in a circular list needs no relinking; a
 * hit unlinks its slot and puts it before the head. Every step is O(1), the index lookup O(1)
 * expected.
 *
 * The index is open addressing with linear probing and backward-shift deletion (no tombstones,
 * so probes stay short however long the run). Line numbers come from addresses in ELF files that
 * anyone can write, so the hash is keyed per process (lg_hash64): no chosen addresses can pile
 * into one probe run. The key only decides where slots sit in the index, which no result reads.
 *
 * Reference: valgrind, cachegrind/cg_sim.c (cachesim_setref_is_miss), https://valgrind.org/;
 * Knuth, TAOCP vol. 3, 6.4, Algorithm R (deletion with linear probing).
 */
#include "cachesim.h"

#include "strmap.h"

#include <stdlib.h>
#include <string.h>

/* Index slots per cache line, at least: the index is never more than half full, where linear
 * probing averages 2.5 probes for a line that is absent and 1.5 for one present (Knuth 6.4). */
#define LG_CACHESIM_INDEX_SLOTS_PER_LINE 2u

/* Marks a free index position. No slot has this number: the geometry's bounds (layout.c) allow
 * at most 2^24 lines. */
#define NO_SLOT UINT32_MAX

static uint32_t log2_u32(uint32_t x)
{
    uint32_t s = 0;
    while ((1u << s) < x)
        s++;
    return s;
}

static bool is_listed(const lg_cachesim_t *c)
{
    return c->geometry.ways > LG_CACHESIM_SCAN_MAX_WAYS;
}

static lg_err_t alloc_lists(lg_cachesim_t *c, size_t nlines, lg_diag_t *d)
{
    /* nlines <= 2^24 (the geometry's bounds), so the index size fits in 32 bits. */
    size_t size = 1;
    while (size < nlines * LG_CACHESIM_INDEX_SLOTS_PER_LINE)
        size *= 2;
    c->links = malloc(nlines * sizeof *c->links);
    c->mru = malloc((size_t)c->nsets * sizeof *c->mru);
    c->index = malloc(size * sizeof *c->index);
    c->index_mask = (uint32_t)(size - 1);
    if (c->links == NULL || c->mru == NULL || c->index == NULL)
        return lg_diag_fail(d, LG_ENOMEM, "", "out of memory for the index of a cache of %zu lines",
                            nlines);
    return LG_OK;
}

lg_err_t lg_cachesim_init(lg_cachesim_t *c, const lg_geometry_t *g, lg_diag_t *d)
{
    memset(c, 0, sizeof *c);
    LG_CHECK(lg_geometry_check(g, d));
    uint32_t nsets = g->cache_size / (g->line_size * g->ways);
    size_t nlines = (size_t)nsets * g->ways; /* <= cache_size / 4: no overflow */
    c->geometry = *g;
    c->line_shift = log2_u32(g->line_size);
    c->nsets = nsets;
    c->set_mask = (nsets & (nsets - 1)) == 0 ? nsets - 1 : 0;
    c->lines = malloc(nlines * sizeof *c->lines);
    lg_err_t err = LG_OK;
    if (c->lines == NULL)
        err = lg_diag_fail(d, LG_ENOMEM, "", "out of memory for a cache of %zu lines", nlines);
    else if (is_listed(c))
        err = alloc_lists(c, nlines, d);
    if (err != LG_OK) {
        lg_cachesim_destroy(c);
        return err;
    }
    lg_cachesim_reset(c);
    return LG_OK;
}

void lg_cachesim_destroy(lg_cachesim_t *c)
{
    if (c == NULL)
        return;
    free(c->lines);
    free(c->links);
    free(c->mru);
    free(c->index);
    memset(c, 0, sizeof *c);
}

void lg_cachesim_reset(lg_cachesim_t *c)
{
    uint32_t ways = c->geometry.ways;
    size_t nlines = (size_t)c->nsets * ways;
    for (size_t i = 0; i < nlines; i++)
        c->lines[i] = LG_CACHESIM_EMPTY;
    if (is_listed(c)) {
        /* Each set's list runs through its slots in slot order, all empty. */
        for (uint32_t s = 0; s < c->nsets; s++) {
            uint32_t first = s * ways, last = first + ways - 1;
            for (uint32_t i = first; i <= last; i++) {
                c->links[i].next = i == last ? first : i + 1;
                c->links[i].prev = i == first ? last : i - 1;
                c->links[i].home = 0; /* read only once the slot holds a line */
            }
            c->mru[s] = first;
        }
        for (size_t i = 0; i <= c->index_mask; i++)
            c->index[i] = NO_SLOT;
    }
    lg_cachesim_reset_counters(c);
}

void lg_cachesim_reset_counters(lg_cachesim_t *c)
{
    c->accesses = 0;
    c->misses = 0;
}

static uint32_t set_index(const lg_cachesim_t *c, uint64_t line)
{
    /* nsets == 1 (fully associative) has set_mask 0 and takes the mask path too. */
    return (uint32_t)(c->set_mask != 0 || c->nsets == 1 ? line & c->set_mask : line % c->nsets);
}

/* ---- scanned sets (lookups are in lg_cachesim_access_line, for speed) ------------------ */

static bool scan_holds(const lg_cachesim_t *c, uint64_t line)
{
    uint32_t ways = c->geometry.ways;
    const uint64_t *set = &c->lines[(size_t)set_index(c, line) * ways];
    for (uint32_t i = 0; i < ways; i++)
        if (set[i] == line)
            return true;
    return false;
}

/* ---- listed sets ----------------------------------------------------------------------- */

static uint32_t home_of(const lg_cachesim_t *c, uint64_t line)
{
    return (uint32_t)lg_hash64(line) & c->index_mask;
}

/* The index position holding line's slot, or the free position where its probe run ends. */
static uint32_t index_find(const lg_cachesim_t *c, uint64_t line, uint32_t home)
{
    uint32_t i = home;
    while (c->index[i] != NO_SLOT && c->lines[c->index[i]] != line)
        i = (i + 1) & c->index_mask;
    return i;
}

/* Takes slot out of the index and closes the gap: each later entry of the probe run whose home
 * does not lie cyclically in (gap, entry] moves back into the gap, so every remaining line is
 * still found from its home, without tombstones. */
static void index_remove(lg_cachesim_t *c, uint32_t slot)
{
    uint32_t mask = c->index_mask;
    uint32_t i = c->links[slot].home;
    while (c->index[i] != slot)
        i = (i + 1) & mask;
    for (uint32_t j = (i + 1) & mask; c->index[j] != NO_SLOT; j = (j + 1) & mask) {
        uint32_t home = c->links[c->index[j]].home;
        /* Distances back from j: the entry may move when the gap is no further than its home. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            c->index[i] = c->index[j];
            i = j;
        }
    }
    c->index[i] = NO_SLOT;
}

/* Looks line up in a listed set and counts a miss. Not inlined: inside lg_cachesim_access_line
 * its registers and stack frame slow the scanned sets down (cachegrind, direct-mapped: 36
 * instructions per access before listed sets existed, 49 with this inlined, 38 without). */
__attribute__((noinline)) static bool list_access(lg_cachesim_t *c, uint64_t line)
{
    uint32_t set = set_index(c, line);
    uint32_t head = c->mru[set];
    if (c->lines[head] == line)
        return false; /* the common case: the line just used, no hashing */
    lg_cachesim_link_t *l = c->links;
    uint32_t home = home_of(c, line);
    uint32_t at = index_find(c, line, home);
    uint32_t slot = c->index[at];
    if (slot != NO_SLOT) {
        /* A hit: unlink the slot and put it before the head, which makes it the head. */
        l[l[slot].prev].next = l[slot].next;
        l[l[slot].next].prev = l[slot].prev;
        uint32_t tail = l[head].prev;
        l[tail].next = slot;
        l[slot].prev = tail;
        l[slot].next = head;
        l[head].prev = slot;
        c->mru[set] = slot;
        return false;
    }
    /* A miss: the slot before the head holds the least recently used line or is an empty way. */
    slot = l[head].prev;
    if (c->lines[slot] != LG_CACHESIM_EMPTY) {
        index_remove(c, slot);
        at = index_find(c, line, home); /* the removal may have freed a position before it */
    }
    c->lines[slot] = line;
    l[slot].home = home;
    c->index[at] = slot;
    c->mru[set] = slot;
    c->misses++;
    return true;
}

static bool list_holds(const lg_cachesim_t *c, uint64_t line)
{
    return c->index[index_find(c, line, home_of(c, line))] != NO_SLOT;
}

/* ---- the interface --------------------------------------------------------------------- */

bool lg_cachesim_access_line(lg_cachesim_t *c, uint64_t line)
{
    c->accesses++;
    if (is_listed(c))
        return list_access(c, line);
    uint32_t ways = c->geometry.ways;
    uint64_t *set = &c->lines[(size_t)set_index(c, line) * ways];
    if (set[0] == line)
        return false; /* the common case: the line just used */
    uint32_t i = 1;
    while (i < ways && set[i] != line)
        i++;
    bool miss = i == ways;
    if (miss) {
        c->misses++;
        i = ways - 1; /* evict the least recently used way (or fill the first empty one) */
    }
    memmove(&set[1], &set[0], (size_t)i * sizeof *set);
    set[0] = line;
    return miss;
}

uint64_t lg_cachesim_span(uint32_t line_shift, uint64_t address, uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    uint64_t last = bytes - 1 > UINT64_MAX - address ? UINT64_MAX : address + (bytes - 1);
    return (last >> line_shift) - (address >> line_shift) + 1;
}

uint64_t lg_cachesim_access(lg_cachesim_t *c, uint64_t address, uint64_t bytes)
{
    uint64_t first = address >> c->line_shift;
    uint64_t n = lg_cachesim_span(c->line_shift, address, bytes);
    uint64_t misses = 0;
    for (uint64_t k = 0; k < n; k++)
        misses += lg_cachesim_access_line(c, first + k);
    return misses;
}

bool lg_cachesim_holds(const lg_cachesim_t *c, uint64_t address)
{
    uint64_t line = address >> c->line_shift;
    return is_listed(c) ? list_holds(c, line) : scan_holds(c, line);
}
