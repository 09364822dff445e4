/* layout.h - the optimizer's result: the new link order, grouped in cliques.
 *
 * Definitions:
 *   geometry  the instruction cache: total size, line size and associativity (ways)
 *   clique    functions that call each other, packed to fit the cache together, in link order
 *   cold      functions never executed: they follow the cliques in their input order, and the
 *             linker scripts do not name them
 */
#ifndef LG_LAYOUT_H
#define LG_LAYOUT_H

#include "diag.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SH-4 (SH7750): 8 KiB, 32-byte lines, direct-mapped. */
#define LG_CACHE_SIZE_DEFAULT 8192u /* bytes */
#define LG_LINE_SIZE_DEFAULT 32u    /* bytes */
#define LG_WAYS_DEFAULT 1u          /* direct-mapped */

/* Largest cache lorgen models: larger than any instruction cache. */
#define LG_CACHE_SIZE_MAX (64u << 20) /* bytes */

typedef struct lg_geometry {
    uint32_t cache_size; /* bytes, a multiple of line_size * ways */
    uint32_t line_size;  /* bytes, a power of two */
    uint32_t ways;       /* 1 = direct-mapped */
} lg_geometry_t;

/* Where code with alignment `align` (0 or 1: none) that must start `lead` bytes past a multiple
 * of it (lead < align; 0 unless the function is phased, program.h) starts when placed at or after
 * `offset`: the first such offset, so that a function already at its phase gets no padding. */
static inline uint64_t lg_start_after(uint64_t offset, uint64_t align, uint64_t lead)
{
    uint64_t a = align > 1 ? align : 1;
    return offset + (lead % a + a - offset % a) % a;
}

/* Where a function of `size` bytes and alignment `align` (0 or 1: none) ends when placed after
 * `offset` bytes of a section laid out from an address aligned to every member's alignment. A
 * phased function: lg_start_after with its lead, plus its size. */
static inline uint64_t lg_place_after(uint64_t offset, uint64_t size, uint64_t align)
{
    return lg_start_after(offset, align, 0) + size;
}

/* Where function f's code ends when laid out at or after `offset`, at its alignment and, when
 * phased, its lead (lg_start_after). */
static inline uint64_t lg_fn_end_after(uint64_t offset, const lg_fn_t *f)
{
    return lg_start_after(offset, f->align, f->lead) + f->size;
}

/* Checks that the geometry is usable; records why not. */
lg_err_t lg_geometry_check(const lg_geometry_t *g, lg_diag_t *d);

/* Algorithm name of a layout that keeps the input order: no cliques, every function in place
 * (the default's safeguard, safeguard.h, chose it). */
#define LG_ALGORITHM_KEPT "input-kept"

/* Clique flags. */
#define LG_CLIQUE_OVERSIZED 0x1u /* a single function larger than the cache */
#define LG_CLIQUE_NO_CALLS 0x2u  /* executed functions with no call edges left to group by:
                                    packed by hotness only */
#define LG_CLIQUE_FILLER 0x4u    /* never-executed functions placed to move the next clique to
                                    the cache offset chosen for it (cache-aware placement) */
#define LG_CLIQUE_REGION 0x8u    /* a fast region's members lent as a clique (src/cli/fast.c):
                                    laid out with their input sections' bytes where those are
                                    larger (lg_fast_region_weight) */

typedef struct lg_clique {
    uint32_t *fns; /* indexes into lg_program_t.fns, in link order */
    size_t nfns;
    uint64_t bytes;      /* its members laid out from a fresh start (lg_start_after: alignment
                            and phase padding included) */
    uint64_t hits;       /* sum of the members' hits */
    uint32_t flags;      /* LG_CLIQUE_* */
    uint64_t pad_before; /* bytes of padding the linker script inserts before this clique, when
                            no filler code could reach the offset chosen for it; 0 usually */
} lg_clique_t;

typedef struct lg_layout {
    lg_geometry_t geometry;
    const char *algorithm; /* static name, "cliques" */
    lg_clique_t *cliques;  /* in link order */
    size_t ncliques;
    uint32_t *cold; /* never-executed functions, in input order (listed for reports only) */
    size_t ncold;
    uint32_t *excluded; /* executed but not movable (shared section, zero size), input order */
    size_t nexcluded;
    uint64_t section_align; /* alignment in bytes the ordered code's start needs for the cache
                               offsets the placement chose (way size); 0 or 1: none */
} lg_layout_t;

void lg_layout_init(lg_layout_t *l);
/* Frees everything; accepts a zeroed struct. */
void lg_layout_destroy(lg_layout_t *l);

#endif
