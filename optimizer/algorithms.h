/* algorithms.h - the ordering algorithms lorgen offers (--algorithm NAME) and the dispatcher that
 * runs one by name. Every algorithm fills an lg_layout_t (layout.h) from the same program with
 * the same classification (classify.h): the executed movable functions ("candidates") in
 * cliques in link order, the never-executed ones in layout->cold and the executed unmovable ones
 * in layout->excluded, both in input order.
 *
 *   cliques        Call Proximity Hit Order, cache-sized cliques (clique.h); the default
 *   input          the candidates in their input order, packed into cache-sized cliques
 *   hot-first      the candidates by hits, hottest first, packed into cache-sized cliques
 *   pettis-hansen  Pettis & Hansen's "closest is best" chain merging (pettis_hansen.c)
 *   c3             C3 / hfsort call-chain clustering as lld does it (c3.c)
 *
 * Definitions (the rest are in classify.h):
 *   packed         cut, in the order given, into consecutive cliques each closed before its
 *                  laid-out bytes would exceed the cache; an oversized function is a clique of
 *                  its own
 *   chain          pettis-hansen and c3 output chains (clusters) as cliques: they are not cut to
 *                  the cache and may be larger than it (up to 1 MiB of padded sizes, or one
 *                  larger function)
 *
 * Every result depends only on the program and the geometry, never on memory addresses or on
 * the order of the program's arcs; every remaining tie goes to the lower rank (input_order,
 * then index). In the layouts of input, hot-first, pettis-hansen and c3, lg_clique_t.bytes is
 * the clique laid out from a fresh start (lg_place_after), .hits the sum of the members' hits
 * (saturating), and .flags is LG_CLIQUE_OVERSIZED when a member's padded size exceeds the cache
 * (each such function also gets a warning), else 0: LG_CLIQUE_NO_CALLS is the clique pass's
 * alone.
 */
#ifndef LG_ALGORITHMS_H
#define LG_ALGORITHMS_H

#include "callgraph.h"
#include "classify.h"
#include "diag.h"
#include "layout.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Names the algorithms leave in lg_layout_t.algorithm ("cliques" is LG_CLIQUE_ALGORITHM). */
#define LG_ALGORITHM_INPUT "input"
#define LG_ALGORITHM_HOT_FIRST "hot-first"
#define LG_ALGORITHM_PETTIS_HANSEN "pettis-hansen"
#define LG_ALGORITHM_C3 "c3"
#define LG_ALGORITHM_CHAINS "chains"

/* The default: Pettis-Hansen chains cut into cache-sized cliques ("chains"). Measured against
 * the clique growth with placement ("cliques") over perturbed profiles
 * (docs/dev/experiments/2026-11-25-one-profile-many-layouts.md), it missed less on average from the
 * tracer's .prf, as much from
 * callgrind, and its misses moved less with small changes of the profile. */
#define LG_DEFAULT_ALGORITHM LG_ALGORITHM_CHAINS

/* The names lg_order accepts, default first (LG_DEFAULT_ALGORITHM); *n receives how many. The array and
 * its strings are static. O(1). */
const char *const *lg_algorithm_names(size_t *n);

/* Runs the algorithm called name (one of lg_algorithm_names) on prog for the cache geo.
 * out is initialised by the caller with lg_layout_init and empty; on success it receives the
 * layout (freed by the caller with lg_layout_destroy) with out->algorithm the static name and
 * out->geometry = *geo. prog and geo are only read. Returns LG_OK; LG_EINVAL with a diagnostic
 * listing the names for a NULL or unknown name; otherwise what the algorithm returns (LG_EINVAL
 * for a bad geometry or arcs, LG_ELIMIT, LG_ENOMEM), leaving out empty. */
lg_err_t lg_order(const char *name, const lg_program_t *prog, const lg_geometry_t *geo,
                  lg_layout_t *out, lg_diag_t *d);

/* The algorithms themselves, with lg_order's contract for one name each.
 * Time: input and hot-first O(V log V + E); pettis-hansen and chains O(V log V + E log^2 E) in
 * the worst case; c3 O(E + V log V). Memory O(V + E) each. */
lg_err_t lg_order_input(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                        lg_diag_t *d);
lg_err_t lg_order_hot_first(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                            lg_diag_t *d);
lg_err_t lg_order_pettis_hansen(const lg_program_t *prog, const lg_geometry_t *geo,
                                lg_layout_t *out, lg_diag_t *d);
/* chains: the order of pettis-hansen, cut into consecutive cliques that fit the cache (a
 * function larger than the cache alone), as hot-first packs its order. */
lg_err_t lg_order_chains(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                         lg_diag_t *d);
lg_err_t lg_order_c3(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                     lg_diag_t *d);

/* ---- internal to the algorithms of this header (algorithms.c) ---------------------------- */

/* Sentinel function index: "none" (lg_cg_new accepts at most UINT32_MAX functions, so no
 * function has this index). */
#define LG_I_NONE UINT32_MAX

/* How the oversized warning ends for the passes that cut cliques to the cache (lg_i_algorithm_t
 * oversized_consequence): the function is not cut, it stands alone. */
#define LG_I_OWN_CLIQUE "it gets a clique of its own"

/* Share of the program's hits or self cost, in percent, from which a function larger than the
 * cache gets a warning of its own: below it the user has nothing to act on (a start-up routine
 * that ran once), and such functions are counted in one note. */
#define LG_I_OVERSIZED_WARN_PERCENT 1.0

/* State one algorithm run shares with its body. */
typedef struct lg_i_order {
    const lg_program_t *prog;
    uint64_t cache;    /* bytes */
    const char *where; /* location of the run's diagnostics, "<name> pass" */
    lg_diag_t *d;
    lg_callgraph_t *cg;   /* the program's call graph */
    lg_classes_t cls;     /* the classification, candidates in rank order */
    lg_clique_t *cliques; /* the result so far; the body leaves them in link order */
    size_t ncliques, cliques_cap;
} lg_i_order_t;

/* One algorithm: its static name, the location of its diagnostics, how its warning for an
 * oversized function ends, and its body, which appends the cliques (lg_i_add_clique) and
 * orders them. */
typedef struct lg_i_algorithm {
    const char *name;
    const char *where;
    const char *oversized_consequence;
    lg_err_t (*body)(lg_i_order_t *o);
} lg_i_algorithm_t;

/* Checks geo, builds the call graph, classifies, warns about oversized candidates, runs
 * alg->body and fills *out; the contract of lg_order. */
lg_err_t lg_i_order_run(const lg_i_algorithm_t *alg, const lg_program_t *prog,
                        const lg_geometry_t *geo, lg_layout_t *out, lg_diag_t *d);

/* Appends a clique of fns[0..n) (n >= 1, copied) with its bytes, hits and flags. */
lg_err_t lg_i_add_clique(lg_i_order_t *o, const uint32_t *fns, size_t n);

/* Appends seq[0..n) as consecutive cliques, each closed before its functions, laid out in order
 * from a fresh start, would pass the cache size; a candidate larger than the cache stands
 * alone. */
lg_err_t lg_i_pack(lg_i_order_t *o, const uint32_t *seq, size_t n);

/* Records "out of memory for <what>" and returns LG_ENOMEM. */
lg_err_t lg_i_nomem(lg_i_order_t *o, const char *what);

/* Sign of a*b - c*d (-1, 0 or 1), computed exactly on 128-bit products. */
int lg_i_mul_cmp(uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/* Compares densities num_a/den_a and num_b/den_b (dens > 0) exactly: -1 when a is denser, 1
 * when b is, 0 when equal. */
int lg_i_density_cmp(uint64_t num_a, uint64_t den_a, uint64_t num_b, uint64_t den_b);

/* Reorders o->cliques by num[c]/den[c] descending (den[c] > 0), ties by the rank of the
 * clique's first function: a total order. num and den are indexed like o->cliques before the
 * sort. O(C log C). */
lg_err_t lg_i_sort_by_density(lg_i_order_t *o, const uint64_t *num, const uint64_t *den);

#endif
