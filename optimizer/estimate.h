/* estimate.h - estimate the instruction-cache misses of a placement of the program's functions by
 * replaying its profile through a simulated cache (cachesim.h); the model behind `lorgen eval`.
 *
 * A placement is one address per function. It comes from the linked ELF (the current order,
 * lg_addresses_from_elf) or from a layout (a proposed order, lg_addresses_from_layout). The
 * replay and its known biases are described in optimizer/estimate.c. Estimates are meant to be
 * compared with each other (which placement misses less); their absolute values are rough.
 */
#ifndef LG_ESTIMATE_H
#define LG_ESTIMATE_H

#include "diag.h"
#include "layout.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Address of a function that a placement does not place. */
#define LG_ADDRESS_NONE UINT64_MAX

/* Default bound on the replay's work, in line lookups: the profile's counts are scaled down
 * uniformly when replaying them in full would take more. Every default run replays twice (the
 * safeguard, safeguard.h), and lorgen must stay well under a second on real programs: about
 * 0.06 s direct-mapped and 0.1 s at 8 ways per replay on lua 5.4 (docs/benchmarks.md). */
#define LG_ESTIMATE_MAX_TOUCHES_DEFAULT (2u * 1000u * 1000u) /* lines */
/* Largest work bound accepted; larger requests are clamped (keeps the replay's integer
 * arithmetic exact). */
#define LG_ESTIMATE_MAX_TOUCHES_LIMIT (1u << 30) /* lines */
/* Default bytes of a function fetched per visit (entry, or resumption after a call returns);
 * a larger function is fetched a window at a time. Calibrated against cachegrind, see
 * estimate.c. */
#define LG_ESTIMATE_WINDOW_BYTES_DEFAULT 256u /* bytes */
/* window_bytes value that fetches every function whole at every visit. */
#define LG_ESTIMATE_WHOLE_BODY UINT64_MAX
/* Deepest call nesting replayed; a call past it is replayed later from the top (deferred). */
#define LG_ESTIMATE_MAX_DEPTH 1024u /* frames */

/* Bytes of one function the replay treats as its code, relative to its address (a hook for
 * per-position costs: only the hot lines of a large function). */
typedef struct lg_estimate_range {
    uint64_t offset; /* bytes from the function's address */
    uint64_t bytes;
} lg_estimate_range_t;

typedef struct lg_estimate_footprint {
    const lg_estimate_range_t *ranges; /* in execution-likely order; NULL with nranges 0 */
    size_t nranges;                    /* 0: the whole function [0, size) */
} lg_estimate_footprint_t;

typedef struct lg_estimate_opts {
    uint64_t max_touches;  /* work bound in line lookups; 0: LG_ESTIMATE_MAX_TOUCHES_DEFAULT */
    uint64_t window_bytes; /* bytes fetched per visit; 0: LG_ESTIMATE_WINDOW_BYTES_DEFAULT,
                              LG_ESTIMATE_WHOLE_BODY: whole function every visit */
    const lg_estimate_footprint_t *footprints; /* per function (nfns entries), or NULL: whole
                                                  functions. Borrowed for the call only. */
} lg_estimate_opts_t;

/* Fills o with the defaults. */
void lg_estimate_opts_init(lg_estimate_opts_t *o);

typedef struct lg_estimate {
    uint64_t accesses;   /* line lookups replayed */
    uint64_t misses;     /* of those, misses */
    uint64_t *fn_misses; /* per function (nfns entries): misses while fetching its code */
    size_t nfns;
    uint64_t invocations; /* function entries replayed */
    uint64_t calls;       /* of those, entries by a call along an arc (the rest are roots) */
    uint64_t steps;       /* visits replayed: entries plus resumptions after a call */
    uint64_t deferred;    /* calls past LG_ESTIMATE_MAX_DEPTH, replayed later as roots */
    uint64_t rounds;      /* rounds of root entries: 1, or 2 when some counts (cycles) could
                             only be reached as roots; 0 for an empty profile */
    uint64_t unplaced;    /* executed functions without an address (never fetched) */
    double scale;         /* replayed counts / profile counts: 1.0, or less when capped;
                             misses / scale extrapolates to the profile's counts */
} lg_estimate_t;

void lg_estimate_init(lg_estimate_t *e);
/* Frees fn_misses; accepts a zeroed struct. */
void lg_estimate_destroy(lg_estimate_t *e);

/* Fills addr_out (nfns entries, caller-owned) with the addresses a linker would give the
 * functions when linking layout at base, as the linker-script writer lays it out: the start
 * rounded up to layout->section_align (when > 1), then per clique in link order its pad_before
 * bytes and its functions, each at the next multiple of its alignment (lg_place_after; a
 * phased function at the first address lead bytes past a multiple of the line size,
 * lg_start_after on the address); then
 * every function no clique holds (cold, excluded, and any other) in input order, the same way.
 * Filler cliques (LG_CLIQUE_FILLER) are placed like the others. Every function gets an address
 * but those of a fast region that no clique holds (LG_FN_UNCACHED): LG_ADDRESS_NONE.
 * base is where the ordered code would start (lg_addresses_text_base gives a natural one).
 * Returns LG_OK, or LG_EINVAL when a clique names a function out of range or twice, or the
 * addresses would pass UINT64_MAX, with a diagnostic; then addr_out is unspecified.
 * O(nfns + clique members). */
lg_err_t lg_addresses_from_layout(const lg_program_t *prog, const lg_layout_t *layout,
                                  uint64_t base, uint64_t *addr_out, lg_diag_t *d);

/* Fills addr_out (nfns entries, caller-owned) with the functions' linked addresses
 * (lg_fn_t.address; LG_ADDRESS_NONE for a fast region's code, LG_FN_UNCACHED). Returns LG_OK, or LG_EUNSUPPORTED when some function has no address (only
 * object files were read), with a diagnostic. O(nfns). */
lg_err_t lg_addresses_from_elf(const lg_program_t *prog, uint64_t *addr_out, lg_diag_t *d);

/* The lowest known address of prog's functions, or 0 when none is known: a natural base for
 * lg_addresses_from_layout (the start of the program's text). O(nfns). */
uint64_t lg_addresses_text_base(const lg_program_t *prog);

/* Replays prog's profile (hits and call arcs) through a cache of geometry geo with the
 * functions at addr (nfns entries; LG_ADDRESS_NONE: not fetched) and fills out (initialised with
 * lg_estimate_init; any previous contents are freed). opts may be NULL for the defaults. prog,
 * addr, geo and opts are only read; out->fn_misses belongs to the caller (lg_estimate_destroy).
 * The result depends only on the inputs: the replay is deterministic.
 * Returns LG_OK, or LG_EINVAL (bad geometry, an arc out of range), LG_ELIMIT (2^32 - 1
 * functions or more), LG_ENOMEM, with a diagnostic; on error out is left empty.
 * Time: O(V + E) to prepare for V functions and E arcs; then O(log d) per replayed call for a
 * caller of d callees, O(log V) per root entry and O(ways) per line lookup, with at most about
 * opts->max_touches lookups (more by up to one visit per function and arc when the counts are
 * scaled down); memory O(V + E + LG_ESTIMATE_MAX_DEPTH + cache lines). */
lg_err_t lg_estimate_misses(const lg_program_t *prog, const uint64_t *addr,
                            const lg_geometry_t *geo, const lg_estimate_opts_t *opts,
                            lg_estimate_t *out, lg_diag_t *d);

#endif
