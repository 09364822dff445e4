/* hot_first.c - the two orders that ignore the call graph: "input" keeps the order the functions
 * have now, "hot-first" links the hottest function first (lld/BOLT "exec-count" ordering).
 *
 * Both put the candidates (executed movable functions, classify.h) in one sequence and cut it,
 * in order, into cache-sized cliques so that reports read well; the cut changes nothing in the
 * link order, which is exactly the sequence.
 *
 * Definitions:
 *   sequence   input: the candidates in rank order (input_order, then index)
 *              hot-first: the candidates by hits descending, ties in rank order
 *   packing    walking the sequence, a function joins the current clique when the clique, laid
 *              out from a fresh start with the function at its end (lg_place_after), stays
 *              within the cache; otherwise the clique is closed and the function opens the
 *              next. The order is fixed, so the exact laid-out size is used, not the
 *              order-independent fill bound of clique.c. An oversized function (padded size
 *              larger than the cache) closes the current clique and is a clique of its own
 *              (LG_CLIQUE_OVERSIZED, with a warning).
 *
 * Steps:
 *   * Classify (classify.h); cold and excluded functions follow in input order.
 *   * Build the sequence.
 *   * Pack it.
 *
 * Cost: one sort of the candidates, O(V log V); packing O(V).
 *
 * Reference: BOLT --reorder-functions=exec-count, llvm/llvm-project
 * bolt/lib/Passes/ReorderFunctions.cpp (stable sort by execution count).
 */
#include "algorithms.h"

#include <stdlib.h>

/* Where the diagnostics of these passes point. */
#define LG_INPUT_WHERE "input pass"
#define LG_HOT_FIRST_WHERE "hot-first pass"

static lg_err_t input_body(lg_i_order_t *o)
{
    return lg_i_pack(o, o->cls.candidates, o->cls.ncandidates);
}

typedef struct hot_key {
    uint64_t hits;
    uint64_t rank;
} hot_key_t;

/* Hits descending, then rank ascending (ranks are distinct: a total order). */
static int hot_cmp(const void *pa, const void *pb)
{
    const hot_key_t *a = pa, *b = pb;
    if (a->hits != b->hits)
        return a->hits > b->hits ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static lg_err_t hot_first_body(lg_i_order_t *o)
{
    size_t n = o->cls.ncandidates;
    if (n == 0)
        return LG_OK;
    hot_key_t *keys = malloc(n * sizeof *keys);
    uint32_t *seq = malloc(n * sizeof *seq);
    lg_err_t err = LG_OK;
    if (keys == NULL || seq == NULL) {
        err = lg_i_nomem(o, "the hot-first order");
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t i = o->cls.candidates[k];
        keys[k] = (hot_key_t){o->prog->fns[i].hits, lg_rank_key(o->prog, i)};
    }
    qsort(keys, n, sizeof *keys, hot_cmp);
    for (size_t k = 0; k < n; k++)
        seq[k] = lg_rank_index(keys[k].rank);
    err = lg_i_pack(o, seq, n);
out:
    free(keys);
    free(seq);
    return err;
}

static const lg_i_algorithm_t input_algorithm = {LG_ALGORITHM_INPUT, LG_INPUT_WHERE,
                                                 LG_I_OWN_CLIQUE, input_body};
static const lg_i_algorithm_t hot_first_algorithm = {LG_ALGORITHM_HOT_FIRST, LG_HOT_FIRST_WHERE,
                                                     LG_I_OWN_CLIQUE, hot_first_body};

lg_err_t lg_order_input(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                        lg_diag_t *d)
{
    return lg_i_order_run(&input_algorithm, prog, geo, out, d);
}

lg_err_t lg_order_hot_first(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                            lg_diag_t *d)
{
    return lg_i_order_run(&hot_first_algorithm, prog, geo, out, d);
}
