/* phase.h - choose where inside a cache line each large hot function starts.
 *
 * A function larger than a cache way maps onto itself: some of its own lines share a set and
 * evict each other, whatever the link order. (So can one a little smaller, when its start inside
 * a line makes it span one line more than a way holds: its first and last lines then share a
 * set.) Which lines those are does not change when the
 * whole function moves by whole lines, but it does change when it moves inside a line: code
 * aligned to 16 bytes in a 32-byte line starts at one of two phases, and the instructions then
 * fall into different lines. The linker picks the phase by accident. Measured with cachegrind
 * (docs/dev/experiments/2026-11-26-a-function-s-phase-in-the-cache-line.md): pcre2's 72 KiB matcher
 * alone
 * misses 2.28M times at phase 0 and 3.13M at phase 16 in an 8 KiB direct-mapped cache, lua's
 * 15 KiB interpreter loop 1.15M and 0.47M.
 *
 * The choice needs the order in which the function's instructions run, which a function-level
 * profile does not have. With per-instruction costs and the taken jumps between instructions,
 * a random walk over the function's control flow (walk.h) replays the function's fetches; each
 * candidate phase replays the same walk into a cache of the layout's geometry holding this
 * function alone. Removing other code's accesses never turns
 * a hit into a miss in an LRU cache, so these are the misses the function causes itself in any
 * layout; the candidate with the fewest is chosen when it saves enough.
 *
 * Costs are bounded: each function walks at most LG_PHASE_WALK_STEPS instructions and a run at
 * most LG_PHASE_BUDGET_STEPS over all functions (hottest first), each step touching every
 * candidate's cache once, so the time is O(budget * candidates) whatever the input.
 */
#ifndef LG_PHASE_H
#define LG_PHASE_H

#include "diag.h"
#include "layout.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Instructions one function's walk replays. The choices on the benchmark's programs were the
 * same from 500,000 steps to 8,000,000 (docs/benchmarks.md). */
#define LG_PHASE_WALK_STEPS (1u << 20) /* instructions */
/* Instructions all walks of one run replay together, hottest function first. */
#define LG_PHASE_BUDGET_STEPS (16u << 20) /* instructions */
/* The most phases tried per function: line size / alignment of the function, at most this. */
#define LG_PHASE_MAX_CANDIDATES 16u /* phases */
/* A phase is chosen only when it saves at least this share of the worst phase's misses ... */
#define LG_PHASE_MIN_SAVED_SHARE 0.05 /* of the worst candidate's misses */
/* ... and when the misses it saves, scaled from the walk to the function's profiled instructions,
 * are at least this many per million instructions of the whole profile: padding moves the code
 * after the function, which costs or saves a little by chance (about 1% on the benchmark), so a
 * choice must matter to the program, not only to a rarely run function. 100 per million is about
 * 0.3% of the misses of a program missing 3% of its fetches. */
#define LG_PHASE_MIN_SAVED_PER_MILLION 100u /* misses per 10^6 profiled instructions */

/* What the choice did, for the CLI's note and the report. */
typedef struct lg_phase_stats {
    size_t considered;      /* movable functions that can span more lines than a way holds,
                               with costs and jumps */
    size_t phased;          /* of those, functions given a phase */
    size_t skipped_budget;  /* considered but not walked: the run's budget was spent */
    uint64_t misses_worst;  /* predicted misses of the phased functions at their worst phase */
    uint64_t misses_chosen; /* ... and at the chosen one (same walks) */
    uint64_t steps;         /* instructions walked in all */
} lg_phase_stats_t;

/* For every movable function that some phase makes span more lines than a way of g holds (one
 * larger than a way, or nearly as large) and that has per-instruction costs and jumps,
 * predicts its own misses at each phase a multiple of its alignment inside a line, and when one
 * saves enough (above) sets LG_FN_PHASED, align = the line size and lead = that phase.
 * Functions already phased (a .LOR read back) are left alone. Deterministic. Returns LG_OK,
 * LG_EINVAL (bad geometry, reason in d) or LG_ENOMEM. */
lg_err_t lg_phase_choose(lg_program_t *p, const lg_geometry_t *g, lg_phase_stats_t *stats,
                         lg_diag_t *d);

#endif
