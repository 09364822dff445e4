/* default_order.h - which algorithm runs when none is named (--algorithm), and the second choice
 * tried when the safeguard refuses the first one's layout.
 *
 * The default is LG_DEFAULT_ALGORITHM (algorithms.h), or the clique pass for a program with more
 * call arcs than LG_DEFAULT_CHAINS_MAX_ARCS; when the safeguard keeps the input order instead of
 * its layout, LG_DEFAULT_SECOND_ALGORITHM's layout is tried under the same safeguard. An
 * algorithm the user names is kept as the literature defines it, for comparison, and gets no
 * second choice. The caller runs the algorithms and the safeguard; this only chooses.
 */
#ifndef LG_DEFAULT_ORDER_H
#define LG_DEFAULT_ORDER_H

#include "algorithms.h"
#include "program.h"

#include <stdbool.h>

/* Most call arcs the default orders with chains, whose time grows as E log^2 E in the worst
 * case: on this project's machine 2.0 s of CPU for 1M arcs (100k functions) and 34.6 s for 10M
 * arcs (1M functions), where the clique pass took 0.5 s and 6.0 s
 * (docs/dev/experiments/2026-11-26-run-of-2026-11-26-the-chains-default.md). Above it the
 * default is the clique pass. */
#define LG_DEFAULT_CHAINS_MAX_ARCS 1000000u

/* The default's second choice, tried when the safeguard predicts its first to miss more than the
 * input order: C3 is the classic order that fits the profiled run most closely (on the
 * benchmark's TRAIN workloads 0.71 of the input order's misses, the chains 0.80), while the
 * chains carry over better to other workloads
 * (docs/dev/experiments/2026-11-26-the-same-links-on-the-profiled-workload.md). It passes the same
 * safeguard, so the input order stays when both are predicted to lose. */
#define LG_DEFAULT_SECOND_ALGORITHM LG_ALGORITHM_C3

/* What lg_default_order chose; the names are static. */
typedef struct lg_order_choice {
    const char *first;  /* the algorithm to run */
    const char *second; /* the algorithm to try when the safeguard keeps the input order instead
                           of first's layout; NULL for none */
    bool too_many_arcs; /* first is the clique pass in the default's place: prog has more than
                           LG_DEFAULT_CHAINS_MAX_ARCS call arcs */
} lg_order_choice_t;

/* The algorithms to run on prog: named (one of lg_algorithm_names) with no second choice when
 * the user named one, else the default's as the opening comment says. Reads prog->narcs only.
 * O(1). */
lg_order_choice_t lg_default_order(const lg_program_t *prog, const char *named);

#endif
