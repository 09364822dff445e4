/* c3.c - C3 (call-chain clustering, "hfsort"): append each function's cluster after the
 * cluster of its most likely caller, densest functions first, then link the clusters densest
 * first. This follows lld's ELF CallGraphSort (the hfsort path) step by step.
 *
 * Definitions:
 *   candidate     an executed movable function (classify.h); only arcs between two candidates
 *                 count, as lld only counts arcs between sections of one output section
 *   weight        of a function: the sum of the weights of its incoming arcs, self arcs included
 *                 (lld's Cluster::weight); hits are NOT used, as in lld: a function nobody
 *                 calls has weight 0. Of a cluster: the sum of its members' weights
 *   size          of a function: its padded size in bytes; of a cluster: the sum over its
 *                 members (lld sums section sizes)
 *   density       weight / size (exact, cross-multiplied)
 *   predecessor   of f: the caller u != f with the heaviest arc u -> f, ties to the lower rank
 *                 (rank: input_order, then index). Chosen once from the arcs, as lld does, not
 *                 re-chosen as clusters form
 *   unlikely      the predecessor's arc carries at most LG_C3_MIN_EDGE_SHARE_PCT percent of f's
 *                 weight (lld: bestPred.weight * 10 <= initialWeight)
 *
 * Steps:
 *   * Classify (classify.h); cold and excluded functions follow in input order.
 *   * Every candidate is a cluster of its own. Compute weights and predecessors.
 *   * Visit the candidates once each by density descending, ties by rank (lld's stable_sort
 *     over its nodes). For f, still the first function of its cluster C:
 *     * skip f if it has no predecessor or the predecessor's arc is unlikely;
 *     * P = the cluster of the predecessor; skip if P is C (already together);
 *     * skip if size(P) + size(C) > LG_C3_MAX_CLUSTER_BYTES;
 *     * skip if the merged density (weight(P) + weight(C)) / (size(P) + size(C)) would drop
 *       below density(P) / LG_C3_MAX_DENSITY_DEGRADATION (lld isNewDensityBad);
 *     * else append C after P.
 *   * Order the clusters by density descending, ties by the rank of their first function.
 *
 * Consequence of following lld on weights: with a profile that has no call edges every weight
 * is 0, no cluster forms, and the result is the candidates in input order; "hot-first" is the
 * order for such profiles.
 *
 * Cost: one pass over the arcs, one sort of the candidates and one of the clusters, union-find
 * with path halving: O(E + V log V) time, O(V) memory besides the classification.
 *
 * Reference: G. Ottoni, B. Maher, "Optimizing Function Placement for Large-Scale Data-Center
 * Applications", CGO 2017, doi:10.1109/CGO.2017.7863743,
 * https://research.fb.com/wp-content/uploads/2017/01/cgo2017-hfsort-final1.pdf;
 * llvm/llvm-project lld/ELF/CallGraphSort.cpp (CallGraphSort::run, MAX_DENSITY_DEGRADATION,
 * MAX_CLUSTER_SIZE).
 */
#include "algorithms.h"

#include "mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* An arc carrying at most this share of its callee's weight, in percent, is too unlikely to
 * merge on (lld: weight * 10 <= total; BOLT MinArcProbability 0.1). */
#define LG_C3_MIN_EDGE_SHARE_PCT 10u
#define LG_C3_PERCENT 100u

/* Largest cluster, in bytes of padded sizes (lld MAX_CLUSTER_SIZE: half a 2 MiB huge page). */
#define LG_C3_MAX_CLUSTER_BYTES (1024u * 1024u)

/* A merge may lower the caller cluster's density by at most this factor (lld
 * MAX_DENSITY_DEGRADATION, BOLT CallerDegradeFactor). */
#define LG_C3_MAX_DENSITY_DEGRADATION 8u

/* Where the diagnostics of this pass point, and how its oversized warning ends. */
#define LG_C3_WHERE "c3 pass"
#define LG_C3_OVERSIZED "the cluster holding it is marked oversized"

typedef struct work {
    lg_i_order_t *o;
    const lg_program_t *prog;
    uint64_t *fn_weight; /* per function: incoming weight (lld initialWeight) */
    uint32_t *pred;      /* per function: predecessor, LG_I_NONE if none */
    uint64_t *pred_w;    /* per function: weight of the arc pred -> function */
    uint32_t *leader;    /* union-find: a cluster is named by its first function */
    uint32_t *next;      /* per function: the next member of its cluster, LG_I_NONE at the end */
    uint32_t *tail;      /* per cluster: last member */
    uint64_t *weight;    /* per cluster: sum of its members' weights, saturating */
    uint64_t *size;      /* per cluster: bytes of padded sizes, saturating */
} work_t;

typedef struct density_key {
    uint64_t weight, size; /* density weight/size, size > 0 */
    uint64_t rank;
} density_key_t;

/* Density descending, then rank ascending (a total order). */
static int density_key_cmp(const void *pa, const void *pb)
{
    const density_key_t *a = pa, *b = pb;
    int c = lg_i_density_cmp(a->weight, a->size, b->weight, b->size);
    if (c != 0)
        return c;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static uint32_t find(work_t *w, uint32_t x)
{
    while (w->leader[x] != x) {
        w->leader[x] = w->leader[w->leader[x]];
        x = w->leader[x];
    }
    return x;
}

/* Weights and predecessors from the arcs between candidates. The arcs were checked by
 * lg_cg_new; the result does not depend on their order (sums, and a total order for ties). */
static void read_arcs(work_t *w)
{
    const lg_program_t *p = w->prog;
    const uint8_t *cls = w->o->cls.cls;
    for (size_t k = 0; k < p->narcs; k++) {
        const lg_arc_t *a = &p->arcs[k];
        if (a->weight == 0 || cls[a->caller] != LG_CLASS_CANDIDATE ||
            cls[a->callee] != LG_CLASS_CANDIDATE)
            continue;
        uint32_t u = a->caller, v = a->callee;
        w->fn_weight[v] = lg_sat_add(w->fn_weight[v], a->weight);
        if (u == v)
            continue; /* a self arc weighs the function but is never its predecessor */
        if (w->pred[v] == LG_I_NONE || a->weight > w->pred_w[v] ||
            (a->weight == w->pred_w[v] && lg_rank_key(p, u) < lg_rank_key(p, w->pred[v]))) {
            w->pred[v] = u;
            w->pred_w[v] = a->weight;
        }
    }
}

/* True when f's predecessor arc carries at most LG_C3_MIN_EDGE_SHARE_PCT percent of f's weight:
 * pred_w * 100 <= weight * 10, exactly (128-bit products). */
static bool unlikely(const work_t *w, uint32_t f)
{
    return lg_i_mul_cmp(w->pred_w[f], LG_C3_PERCENT, w->fn_weight[f], LG_C3_MIN_EDGE_SHARE_PCT) <=
           0;
}

/* True when merging cluster c after cluster pc would drop the density below density(pc) /
 * LG_C3_MAX_DENSITY_DEGRADATION:  (Wp + Wc) / (Sp + Sc) < Wp / (Sp * 8). Both sizes sum to at
 * most LG_C3_MAX_CLUSTER_BYTES here, so Sp * 8 fits. */
static bool density_degrades(const work_t *w, uint32_t pc, uint32_t c)
{
    uint64_t merged_w = lg_sat_add(w->weight[pc], w->weight[c]);
    uint64_t merged_s = w->size[pc] + w->size[c];
    return lg_i_mul_cmp(merged_w, w->size[pc] * LG_C3_MAX_DENSITY_DEGRADATION, w->weight[pc],
                        merged_s) < 0;
}

/* Visits the candidates by density and merges each into its predecessor's cluster when
 * allowed. */
static lg_err_t cluster(work_t *w)
{
    lg_i_order_t *o = w->o;
    size_t n = o->cls.ncandidates;
    if (n == 0)
        return LG_OK;
    density_key_t *keys = malloc(n * sizeof *keys);
    if (keys == NULL)
        return lg_i_nomem(o, "the visiting order");
    for (size_t k = 0; k < n; k++) {
        uint32_t i = o->cls.candidates[k];
        keys[k] = (density_key_t){w->fn_weight[i], o->cls.padded[i], lg_rank_key(w->prog, i)};
    }
    qsort(keys, n, sizeof *keys, density_key_cmp);

    for (size_t k = 0; k < n; k++) {
        uint32_t f = lg_rank_index(keys[k].rank);
        /* Only the visited cluster is ever absorbed, so f still names its own cluster. */
        if (w->pred[f] == LG_I_NONE)
            continue;
        if (unlikely(w, f))
            continue;
        uint32_t pc = find(w, w->pred[f]);
        if (pc == f)
            continue; /* the predecessor is in f's cluster already */
        if (lg_sat_add(w->size[pc], w->size[f]) > LG_C3_MAX_CLUSTER_BYTES)
            continue;
        if (density_degrades(w, pc, f))
            continue;
        /* Append f's cluster after pc's. */
        w->leader[f] = pc;
        w->next[w->tail[pc]] = f;
        w->tail[pc] = w->tail[f];
        w->weight[pc] = lg_sat_add(w->weight[pc], w->weight[f]);
        w->size[pc] += w->size[f];
    }
    free(keys);
    return LG_OK;
}

/* Emits every cluster as a clique, then orders them by density (lld's final sort). */
static lg_err_t emit_clusters(work_t *w)
{
    lg_i_order_t *o = w->o;
    size_t n = o->cls.ncandidates;
    uint32_t *buf = malloc((n ? n : 1) * sizeof *buf);
    uint64_t *num = malloc((n ? n : 1) * sizeof *num);
    uint64_t *den = malloc((n ? n : 1) * sizeof *den);
    lg_err_t err = LG_OK;
    if (buf == NULL || num == NULL || den == NULL) {
        err = lg_i_nomem(o, "the clusters");
        goto out;
    }
    for (size_t k = 0; k < n && err == LG_OK; k++) {
        uint32_t r = o->cls.candidates[k];
        if (w->leader[r] != r)
            continue;
        size_t len = 0;
        for (uint32_t x = r; x != LG_I_NONE && len < n; x = w->next[x])
            buf[len++] = x;
        num[o->ncliques] = w->weight[r];
        den[o->ncliques] = w->size[r]; /* > 0: candidates have bytes */
        err = lg_i_add_clique(o, buf, len);
    }
    if (err == LG_OK)
        err = lg_i_sort_by_density(o, num, den);
out:
    free(buf);
    free(num);
    free(den);
    return err;
}

static lg_err_t work_alloc(work_t *w)
{
    size_t n = w->prog->nfns ? w->prog->nfns : 1; /* calloc(0) may return NULL */
    w->fn_weight = calloc(n, sizeof *w->fn_weight);
    w->pred = malloc(n * sizeof *w->pred);
    w->pred_w = calloc(n, sizeof *w->pred_w);
    w->leader = malloc(n * sizeof *w->leader);
    w->next = malloc(n * sizeof *w->next);
    w->tail = malloc(n * sizeof *w->tail);
    w->weight = calloc(n, sizeof *w->weight);
    w->size = calloc(n, sizeof *w->size);
    if (!w->fn_weight || !w->pred || !w->pred_w || !w->leader || !w->next || !w->tail ||
        !w->weight || !w->size)
        return lg_i_nomem(w->o, "the clusters");
    for (uint32_t i = 0; i < w->prog->nfns; i++) {
        w->pred[i] = w->next[i] = LG_I_NONE;
        w->leader[i] = w->tail[i] = i;
        w->size[i] = w->o->cls.padded[i];
    }
    return LG_OK;
}

static void work_free(work_t *w)
{
    free(w->fn_weight);
    free(w->pred);
    free(w->pred_w);
    free(w->leader);
    free(w->next);
    free(w->tail);
    free(w->weight);
    free(w->size);
}

static lg_err_t c3_body(lg_i_order_t *o)
{
    work_t w;
    memset(&w, 0, sizeof w);
    w.o = o;
    w.prog = o->prog;
    lg_err_t err = work_alloc(&w);
    if (err == LG_OK) {
        read_arcs(&w);
        memcpy(w.weight, w.fn_weight, (w.prog->nfns ? w.prog->nfns : 1) * sizeof *w.weight);
        err = cluster(&w);
    }
    if (err == LG_OK)
        err = emit_clusters(&w);
    work_free(&w);
    return err;
}

static const lg_i_algorithm_t c3_algorithm = {LG_ALGORITHM_C3, LG_C3_WHERE, LG_C3_OVERSIZED,
                                              c3_body};

lg_err_t lg_order_c3(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                     lg_diag_t *d)
{
    return lg_i_order_run(&c3_algorithm, prog, geo, out, d);
}
