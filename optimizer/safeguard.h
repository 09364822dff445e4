/* safeguard.h - never propose a layout the cache model predicts to miss more than the order the
 * program has now.
 *
 * The default layout is a bet on a model of the program (calls, heat, where code lands). When
 * the linked program is among the inputs, its current order can be replayed through the same
 * model (estimate.h) as the proposal; if the proposal is predicted to miss more, the input
 * order is kept: the layout is emptied (no cliques), so every linker output leaves the order
 * alone. Only a predicted loss of more than LG_SAFEGUARD_MARGIN_PERMILLE counts: below it the
 * two replays differ by less than the model can tell (xz at 8 KiB: the clique layout predicted
 * 0.04% worse than the input order measured 16% better). What the prediction is worth is in
 * docs/benchmarks.md ("How far the estimate can be trusted"): the guard stops the losses the model
 * can see, not the ones it cannot.
 *
 * In a cache of LG_SAFEGUARD_ASSOCIATIVE_WAYS ways or more it also asks whether there is
 * anything to remove: the input order is replayed once more in a fully-associative cache of the
 * same size and line size. When that replay misses no less than the real geometry's, the model
 * sees no conflict misses in the input order, and a new layout can only change where the code
 * meets the code lorgen does not model (the C library, the PLT, code the profile never ran), a
 * draw that costs as often as it pays: the input order is kept. Measured with the benchmark's
 * shifted links (docs/benchmarks.md): at 32 KiB 8-way lorgen's layouts of lua missed 1.16 to
 * 1.32 times as often as the input order on average over where libc lands, pcre2's 1.07, and
 * the model saw no conflict misses in either; it saw them in sqlite3 (2% of its replay), where
 * reordering removes nearly half of the misses. The rule holds only where code the model does
 * not place ran: the program needs shared libraries, or at least LG_SAFEGUARD_UNMODELLED_PERCENT
 * of what the profile ran (its self cost, else its hits) is in functions that did not bind or
 * that this build inlined. Where the model replays nearly all the code that ran (a static image
 * given with its C library, profiled by a tool that sees it), there is no such draw, and the comparison below decides alone: on the
 * benchmark's static links fed callgrind at 32 KiB 8-way (0.0% unbound), the rule kept the input
 * order of five programs where the layouts measured 0.86 to 1.00 of it (docs/dev/experiments/
 * 2026-11-27-whole-image-benchmark.md). Below that associativity the comparison says
 * nothing: a fully-associative LRU cache thrashes on a loop through code larger than itself
 * where a direct-mapped one keeps part of it, so xz at 8 KiB direct-mapped replays 28% worse
 * fully associative while 85% of its real misses are conflicts.
 */
#ifndef LG_SAFEGUARD_H
#define LG_SAFEGUARD_H

#include "diag.h"
#include "layout.h"
#include "program.h"

#include <stdbool.h>
#include <stdint.h>

/* Smallest predicted loss, in thousandths of the input order's predicted misses, that makes the
 * safeguard keep the input order. */
#define LG_SAFEGUARD_MARGIN_PERMILLE 20u /* 2% */

/* Fewest ways at which a cache whose input order shows no conflict misses in the replay keeps
 * that order (see above): from here on LRU inside a set behaves like the fully-associative LRU
 * it is compared with. */
#define LG_SAFEGUARD_ASSOCIATIVE_WAYS 4u /* ways */

/* Share of what the profile ran (its self cost, else its hits), in percent, outside the model
 * (functions that did not bind, or that this build inlined) from which the model is taken not
 * to see all the code that ran, and the no-conflicts rule above applies to a static program.
 * Measured on the benchmark's static links: 0.0% fed callgrind; 3.8% to 75.8% of the tracer's
 * time in functions the plain build inlined (a .prf). */
#define LG_SAFEGUARD_UNMODELLED_PERCENT 5.0

typedef enum lg_safeguard_verdict {
    LG_SAFEGUARD_UNCHECKED = 0,    /* no linked program among the inputs: nothing to compare with */
    LG_SAFEGUARD_PROPOSED = 1,     /* not predicted to miss more than the margin: kept as it is */
    LG_SAFEGUARD_KEPT_INPUT = 2,   /* predicted to miss more than the margin: the layout now keeps
                                      the input order */
    LG_SAFEGUARD_NO_CONFLICTS = 3, /* an associative cache and no conflict misses predicted in
                                      the input order: the layout now keeps the input order */
} lg_safeguard_verdict_t;

typedef struct lg_safeguard {
    lg_safeguard_verdict_t verdict;
    uint64_t input_misses;       /* predicted misses of the linked program's order */
    uint64_t proposed_misses;    /* predicted misses of the proposal (before any replacement); with
                                    LG_SAFEGUARD_NO_CONFLICTS not predicted: input_misses */
    uint64_t associative_misses; /* predicted misses of the input order in a fully-associative
                                    cache of the same size, when asked (else 0) */
} lg_safeguard_t;

/* Predicts the misses of prog's current order (the linked ELF's addresses) and of layout with
 * the default estimate options, for the cache geo. When the layout is predicted to miss more
 * than the input order plus LG_SAFEGUARD_MARGIN_PERMILLE, it is replaced in place by the input
 * order: its cliques are freed, every function that no longer has a place (the clique members)
 * joins layout->cold, which stays in input order, section_align becomes 0 and algorithm
 * LG_ALGORITHM_KEPT; excluded functions and the geometry stay. A layout that moves nothing (no
 * cliques) is never replaced. Without addresses (only object files were read) the layout is left
 * alone and the verdict is LG_SAFEGUARD_UNCHECKED. Fills *out. Returns LG_OK, or what
 * lg_estimate_misses returns (LG_EINVAL, LG_ELIMIT, LG_ENOMEM) with a diagnostic, the layout
 * unchanged. Time: two replays (three in an associative cache; estimate.h), bounded by
 * LG_ESTIMATE_MAX_TOUCHES_DEFAULT line lookups each, plus O(functions log functions) to rebuild the
 * input order; memory O(functions). */
lg_err_t lg_safeguard_layout(const lg_program_t *prog, const lg_geometry_t *geo,
                             lg_layout_t *layout, lg_safeguard_t *out, lg_diag_t *d);

#endif
