/* callgraph.c - the call graph as each function's callees and callers in two sorted lists (no
 * self arcs), plus exact weight totals per function.
 *
 * Layout of the data:
 *   callees    per vertex v: out_node/out_wt [out_first[v], out_first[v + 1]), its non-self
 *              arcs out by callee ascending (an arc listed twice gives two adjacent entries)
 *   callers    in_node/in_wt [in_first[v], in_first[v + 1]): its non-self arcs in, by caller
 *   out_w/in_w exact uint64_t totals per vertex, self arcs included
 *
 * Why lists of our own and not an igraph_t: the passes ask one question, "the neighbours of v
 * with both directed weights", about every candidate at least twice. A query on igraph's
 * incidence lists followed each incident edge id to the edge's ends and weight, three arrays of
 * E entries in edge order, so about one cache miss per neighbour on a large graph; and building
 * the igraph_t sorted the E edges twice more for indexes no query read (5.4 s and 400 MB of the
 * 1M-function benchmark). The lists are built in O(V + E) by counting sorts that read and write
 * in sequence, and a query merges two sorted runs (docs/benchmarks.md, "Optimizer scale").
 * igraph does the work it is good at where lorgen needs it: the DOT and GraphML exports
 * (src/emit_graph.c).
 */
#include "callgraph.h"

#include "mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Location the diagnostics of this module carry. */
#define LG_CG_WHERE "call graph"

struct lg_callgraph {
    size_t *out_first; /* per vertex + 1: where its callees start */
    uint32_t *out_node;          /* per non-self arc, by (caller, callee): the callee */
    uint64_t *out_wt;            /* its weight */
    size_t *in_first;            /* per vertex + 1: where its callers start */
    uint32_t *in_node;           /* per non-self arc, by (callee, caller): the caller */
    uint64_t *in_wt;             /* its weight */
    uint64_t *out_w;             /* per vertex: summed weight of outgoing arcs */
    uint64_t *in_w;              /* per vertex: summed weight of incoming arcs */
    size_t nnodes;
    size_t narcs;
    size_t max_degree; /* largest degree bound */
};

/* ---- build ------------------------------------------------------------------------------ */

static lg_err_t check_program(const lg_program_t *prog, lg_diag_t *d)
{
    if (prog->nfns > UINT32_MAX)
        return lg_diag_fail(d, LG_ELIMIT, LG_CG_WHERE, "%zu functions: at most %u are supported",
                            prog->nfns, (unsigned)UINT32_MAX);
    if (prog->nfns > 0 && prog->fns == NULL)
        return lg_diag_fail(d, LG_EINVAL, LG_CG_WHERE, "%zu functions but no function table",
                            prog->nfns);
    if (prog->narcs > 0 && prog->arcs == NULL)
        return lg_diag_fail(d, LG_EINVAL, LG_CG_WHERE, "%zu arcs but no arc table", prog->narcs);
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        if (a->caller >= prog->nfns || a->callee >= prog->nfns)
            return lg_diag_fail(d, LG_EINVAL, LG_CG_WHERE,
                                "arc %zu: %s index %u out of range (%zu functions)", i,
                                a->caller >= prog->nfns ? "caller" : "callee",
                                a->caller >= prog->nfns ? a->caller : a->callee, prog->nfns);
    }
    return LG_OK;
}

/* ---- neighbour lists ------------------------------------------------------------------- */

static bool arc_before(const lg_arc_t *a, const lg_arc_t *b)
{
    return a->caller != b->caller ? a->caller < b->caller : a->callee < b->callee;
}

/* first[v] = where the run of v starts when vertex u has count[u] entries; first[n] = end. */
static void run_starts(size_t *first, const size_t *count, size_t n)
{
    first[0] = 0;
    for (size_t v = 0; v < n; v++)
        first[v + 1] = first[v] + count[v];
}

/* Fills the callee and caller lists of g from prog (already checked). The callees come from
 * the arcs in (caller, callee) order: the program's own order normally (program.h), else two
 * stable counting sorts (by callee, then by caller) through a copy. The callers come from the
 * callees, distributed by callee while the callers ascend. So the lists do not depend on the
 * order of the arcs. Time and memory O(V + E). */
static lg_err_t build_lists(lg_callgraph_t *g, const lg_program_t *prog, lg_diag_t *d)
{
    size_t n = prog->nfns, narcs = prog->narcs;
    size_t *nout = calloc(n ? n : 1, sizeof *nout); /* per vertex: non-self arcs out */
    size_t *nin = calloc(n ? n : 1, sizeof *nin);   /* per vertex: non-self arcs in */
    size_t *next = malloc((n + 1) * sizeof *next);  /* per vertex: where its next entry goes */
    g->out_first = malloc((n + 1) * sizeof *g->out_first);
    g->in_first = malloc((n + 1) * sizeof *g->in_first);
    bool sorted = true;
    size_t nonself = 0;
    for (size_t i = 0; nout && nin && i < narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        if (i > 0 && arc_before(a, &prog->arcs[i - 1]))
            sorted = false;
        if (a->caller == a->callee)
            continue;
        nout[a->caller]++;
        nin[a->callee]++;
        nonself++;
    }
    /* One element at least: malloc(0) may return NULL. */
    size_t nalloc = nonself ? nonself : 1;
    g->out_node = malloc(nalloc * sizeof *g->out_node);
    g->out_wt = malloc(nalloc * sizeof *g->out_wt);
    g->in_node = malloc(nalloc * sizeof *g->in_node);
    g->in_wt = malloc(nalloc * sizeof *g->in_wt);
    lg_arc_t *by_callee = sorted ? NULL : malloc(nalloc * sizeof *by_callee);
    lg_err_t err = LG_OK;
    if (nout == NULL || nin == NULL || next == NULL || g->out_first == NULL ||
        g->in_first == NULL || g->out_node == NULL || g->out_wt == NULL || g->in_node == NULL ||
        g->in_wt == NULL || (!sorted && by_callee == NULL)) {
        err = lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE,
                           "out of memory for the neighbour lists of %zu functions and %zu arcs", n,
                           narcs);
        goto done;
    }
    run_starts(g->out_first, nout, n);
    run_starts(g->in_first, nin, n);
    const lg_arc_t *arcs = prog->arcs;
    size_t narcs_ordered = narcs;
    if (!sorted) {
        /* Least significant key first: by callee here, stably by caller below. */
        memcpy(next, g->in_first, n * sizeof *next);
        for (size_t i = 0; i < narcs; i++)
            if (arcs[i].caller != arcs[i].callee)
                by_callee[next[arcs[i].callee]++] = arcs[i];
        arcs = by_callee;
        narcs_ordered = nonself;
    }
    memcpy(next, g->out_first, n * sizeof *next);
    for (size_t i = 0; i < narcs_ordered; i++) {
        const lg_arc_t *a = &arcs[i];
        if (a->caller == a->callee)
            continue;
        size_t k = next[a->caller]++;
        g->out_node[k] = a->callee;
        g->out_wt[k] = a->weight;
    }
    memcpy(next, g->in_first, n * sizeof *next);
    for (size_t v = 0; v < n; v++) {
        for (size_t k = g->out_first[v]; k < g->out_first[v + 1]; k++) {
            size_t j = next[g->out_node[k]]++;
            g->in_node[j] = (uint32_t)v;
            g->in_wt[j] = g->out_wt[k];
        }
        if (nout[v] + nin[v] > g->max_degree)
            g->max_degree = nout[v] + nin[v];
    }
done:
    free(nout);
    free(nin);
    free(next);
    free(by_callee);
    return err;
}

lg_err_t lg_cg_new(const lg_program_t *prog, lg_callgraph_t **out, lg_diag_t *d)
{
    *out = NULL;
    LG_CHECK(check_program(prog, d));

    lg_callgraph_t *g = calloc(1, sizeof *g);
    if (g == NULL)
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE, "out of memory for the call graph");
    g->nnodes = prog->nfns;
    g->narcs = prog->narcs;
    /* One element at least: calloc(0) may return NULL. */
    size_t nalloc = prog->nfns ? prog->nfns : 1;
    g->out_w = calloc(nalloc, sizeof *g->out_w);
    g->in_w = calloc(nalloc, sizeof *g->in_w);
    if (g->out_w == NULL || g->in_w == NULL) {
        lg_cg_free(g);
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE,
                            "out of memory for the weights of %zu functions", prog->nfns);
    }
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        g->out_w[a->caller] = lg_sat_add(g->out_w[a->caller], a->weight);
        g->in_w[a->callee] = lg_sat_add(g->in_w[a->callee], a->weight);
    }

    lg_err_t err = build_lists(g, prog, d);
    if (err != LG_OK) {
        lg_cg_free(g);
        return err;
    }
    *out = g;
    return LG_OK;
}

void lg_cg_free(lg_callgraph_t *g)
{
    if (g == NULL)
        return;
    free(g->out_first);
    free(g->out_node);
    free(g->out_wt);
    free(g->in_first);
    free(g->in_node);
    free(g->in_wt);
    free(g->out_w);
    free(g->in_w);
    free(g);
}

/* ---- queries ---------------------------------------------------------------------------- */

size_t lg_cg_node_count(const lg_callgraph_t *g)
{
    return g->nnodes;
}

size_t lg_cg_arc_count(const lg_callgraph_t *g)
{
    return g->narcs;
}

size_t lg_cg_degree_bound(const lg_callgraph_t *g, uint32_t node)
{
    return (g->out_first[node + 1] - g->out_first[node]) +
           (g->in_first[node + 1] - g->in_first[node]);
}

size_t lg_cg_max_degree_bound(const lg_callgraph_t *g)
{
    return g->max_degree;
}

uint64_t lg_cg_out_weight(const lg_callgraph_t *g, uint32_t node)
{
    return g->out_w[node];
}

uint64_t lg_cg_in_weight(const lg_callgraph_t *g, uint32_t node)
{
    return g->in_w[node];
}

size_t lg_cg_neighbours(const lg_callgraph_t *g, uint32_t node, lg_cg_neighbour_t *buf)
{
    size_t o = g->out_first[node], o_end = g->out_first[node + 1];
    size_t i = g->in_first[node], i_end = g->in_first[node + 1];
    size_t n = 0;
    while (o < o_end || i < i_end) {
        /* The lower neighbour id next (a callee first on a tie); entries of one neighbour are
         * adjacent and merge. */
        uint32_t v;
        uint64_t out = 0, in = 0;
        if (i == i_end || (o < o_end && g->out_node[o] <= g->in_node[i])) {
            v = g->out_node[o];
            out = g->out_wt[o++];
        } else {
            v = g->in_node[i];
            in = g->in_wt[i++];
        }
        if (n > 0 && buf[n - 1].node == v) {
            buf[n - 1].out = lg_sat_add(buf[n - 1].out, out);
            buf[n - 1].in = lg_sat_add(buf[n - 1].in, in);
        } else {
            buf[n++] = (lg_cg_neighbour_t){v, out, in, 0};
        }
    }
    for (size_t k = 0; k < n; k++)
        buf[k].weight = lg_sat_add(buf[k].out, buf[k].in);
    return n;
}
