/* calls.h - one profile's calls as the build being ordered makes them.
 *
 * A profile often comes from another build than the one being linked: an instrumented build
 * (-finstrument-functions reports the functions it inlined as calls), an older build, another
 * compiler. A profiled call A -> B is made by this build only if A's code refers to B; when it
 * does not, B was inlined into A here, and that part of B's time and calls belongs to A's code.
 *
 * Definitions:
 *   absent       a profiled function with no symbol in the ELF inputs: inlined everywhere
 *   family       a function and its clones (program.h: lg_fn_t.family): the profile's foo may be
 *                this build's foo.part.0 or foo.isra.0
 *   inlined arc  a profiled arc A -> B that this build does not make: B is absent, or both are
 *                bound in different families, A's references are known (program.h:
 *                LG_FN_REFS_KNOWN), B's code was in A's translation unit (the same object
 *                file, or B is weak: a header's inline function), no code of A's family calls
 *                B's family (a reference names every function the linker may resolve it to:
 *                the default version foo@@V of foo, --wrap's __wrap_foo), and nothing
 *                suggests B is called through a pointer: its address is not taken (in data, or
 *                in code), and where the objects do not tell calls from taken addresses, every
 *                family that refers to it and ran in the profile also called it
 *   inlined share of a function  r(B) = the weight of its inlined in-arcs / the weight of all
 *                its in-arcs (self arcs left out); 1 for an absent function, 0 for one nobody
 *                called (an entry point runs out of line)
 *
 * What the profile's figures become:
 *   * the hits and self counters of a bound function B shrink by r(B): its out-of-line copy
 *     ran only for the calls this build makes. The inlined part is not credited to the callers:
 *     in an instrumented build the time of a small function is mostly the tracer's own cost
 *     per call (docs/dev/experiments/2026-11-26-tried-and-not-kept.md);
 *   * an arc A -> B that this build makes keeps the share (1 - r(A)) of its weight as A -> B;
 *     the share r(A), made by A's inlined copies, is credited to the callers A was inlined
 *     into, in proportion to how often each called A, and further up where those were inlined
 *     too (at most LG_INLINE_MAX_DEPTH levels);
 *   * an inlined arc gives no arc: the callee sits inside its caller already.
 * Without objects (no references known) only absent functions are inlined, as before.
 */
#ifndef LG_CALLS_H
#define LG_CALLS_H

#include "diag.h"
#include "profile.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* What a profile function binds to when it is not a program function index. */
#define LG_BIND_ABSENT (-1)   /* no symbol: most likely inlined everywhere in this build */
#define LG_BIND_UNUSABLE (-2) /* ambiguous, or a symbol without a size */

/* Most of a profile's distinct arcs between bound functions, in percent, that may be inlined
 * calls. A build inlines a minority of the call sites an instrumented build reports (2% to 25%
 * of the arcs on the benchmark programs, docs/benchmarks.md); when more would be, the profile's
 * calls contradict the objects' code (a profile of another program or build, or a made-up one),
 * and every call is trusted. */
#define LG_INLINE_MAX_PERCENT 50.0

/* Share of a profile's hits, in percent, that functions taken as inlined at every profiled call
 * may hold before lorgen names the hottest in a note: such a function goes among the
 * never-executed code, though this build has it out of line. A note, not a warning: with the
 * rule above the objects show the inlining (lua's luaV_mod, 1.5% of its .prf's hits, is inlined
 * into every caller in lvm.o), so a warning would be one nobody can act on. */
#define LG_INLINED_NOTE_PERCENT 1.0

/* Levels of nested inlining followed, and caller visits per profile (bounding the work). */
#define LG_INLINE_MAX_DEPTH 8u
#define LG_INLINE_MAX_STEPS (4u * 1024u * 1024u)

typedef struct lg_calls_stats {
    uint64_t unbound_edges;   /* arcs touching a function that is not bound (as read) */
    uint64_t unbound_weight;  /* their weight (as read) */
    uint64_t credited;        /* weight credited to the callers of inlined code (scaled) */
    uint64_t inlined_edges;   /* arcs between bound functions that this build inlined */
    uint64_t bound_edges;     /* arcs between distinct bound functions */
    uint64_t inlined_weight;  /* their weight (as read) */
    uint64_t total_weight;    /* weight of every arc between distinct functions (as read) */
    uint64_t hits_removed;    /* hits taken from out-of-line copies for their inlined calls */
    size_t inlined_functions; /* bound functions with a share inlined */
} lg_calls_stats_t;

/* Adds the calls of prof, scaled by scale, to p->arcs (growing it, capacity *arcs_cap; the
 * caller merges them) as this build makes them, and takes the inlined share of their hits and
 * self counters from the bound functions (whose profile figures bind_functions added). map[i]
 * is the program function of profile function i, or an LG_BIND_* code. Adds to *st. Returns
 * LG_OK or LG_ENOMEM; a warning in d (at prof->path) when LG_INLINE_MAX_STEPS cut the crediting
 * short. Time O((V + E) log E) plus at most LG_INLINE_MAX_STEPS caller visits. */
lg_err_t lg_bind_calls(lg_program_t *p, size_t *arcs_cap, const lg_profile_t *prof,
                       const int64_t *map, double scale, lg_calls_stats_t *st, lg_diag_t *d);

#endif
