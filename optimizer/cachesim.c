/* cachesim.c - a set-associative LRU instruction-cache simulator over line addresses.
 *
 * Each set is a small array of line numbers kept most recently used first, as in cachegrind's
 * cg_sim.c: a lookup scans the set from the front; a hit at way i shifts ways 0..i-1 back by one
 * and puts the line at the front; a miss shifts the whole set back (dropping the last way, the
 * least recently used) and puts the new line at the front. Empty ways hold LG_CACHESIM_EMPTY and
 * sit at the back, so a cold cache fills front to back without a special case.
 *
 * Reference: valgrind, cachegrind/cg_sim.c (cachesim_setref_is_miss), https://valgrind.org/.
 */
#include "cachesim.h"

#include <stdlib.h>
#include <string.h>

static uint32_t log2_u32(uint32_t x)
{
    uint32_t s = 0;
    while ((1u << s) < x)
        s++;
    return s;
}

lg_err_t lg_cachesim_init(lg_cachesim_t *c, const lg_geometry_t *g, lg_diag_t *d)
{
    memset(c, 0, sizeof *c);
    LG_CHECK(lg_geometry_check(g, d));
    uint32_t nsets = g->cache_size / (g->line_size * g->ways);
    size_t nlines = (size_t)nsets * g->ways; /* <= cache_size / 4: no overflow */
    uint64_t *lines = malloc(nlines * sizeof *lines);
    if (lines == NULL)
        return lg_diag_fail(d, LG_ENOMEM, "", "out of memory for a cache of %zu lines", nlines);
    c->geometry = *g;
    c->line_shift = log2_u32(g->line_size);
    c->nsets = nsets;
    c->set_mask = (nsets & (nsets - 1)) == 0 ? nsets - 1 : 0;
    c->lines = lines;
    lg_cachesim_reset(c);
    return LG_OK;
}

void lg_cachesim_destroy(lg_cachesim_t *c)
{
    if (c == NULL)
        return;
    free(c->lines);
    memset(c, 0, sizeof *c);
}

void lg_cachesim_reset(lg_cachesim_t *c)
{
    size_t nlines = (size_t)c->nsets * c->geometry.ways;
    for (size_t i = 0; i < nlines; i++)
        c->lines[i] = LG_CACHESIM_EMPTY;
    lg_cachesim_reset_counters(c);
}

void lg_cachesim_reset_counters(lg_cachesim_t *c)
{
    c->accesses = 0;
    c->misses = 0;
}

static uint64_t *set_of(const lg_cachesim_t *c, uint64_t line)
{
    /* nsets == 1 (fully associative) has set_mask 0 and takes the mask path too. */
    uint64_t set = c->set_mask != 0 || c->nsets == 1 ? line & c->set_mask : line % c->nsets;
    return &c->lines[set * c->geometry.ways];
}

bool lg_cachesim_access_line(lg_cachesim_t *c, uint64_t line)
{
    uint64_t *set = set_of(c, line);
    uint32_t ways = c->geometry.ways;
    c->accesses++;
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
    const uint64_t *set = set_of(c, line);
    for (uint32_t i = 0; i < c->geometry.ways; i++)
        if (set[i] == line)
            return true;
    return false;
}
