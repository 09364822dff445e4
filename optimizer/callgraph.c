/* callgraph.c - the call graph in igraph: one directed edge per arc, weights in an
 * igraph_vector_t; and, for neighbour queries, each vertex's callees and callers in two sorted
 * lists (no self loops).
 *
 * In the optimizer this is the only place where igraph types appear (src/output/emit_graph.c uses
 * igraph's writers for the --dot/--graphml exports): every igraph_error_t is turned into
 * LG_EGRAPH here, with igraph's reason in the diagnostic.
 *
 * Layout of the data:
 *   graph      directed igraph_t; vertex i = fns[i], edge e = arcs[e] (caller -> callee)
 *   weights    igraph_vector_t; weights[e] = arcs[e].weight as igraph_real_t
 *   callees    per vertex v: out_node/out_wt [out_first[v], out_first[v + 1]), its non-self
 *              arcs out by callee ascending (an arc listed twice gives two adjacent entries)
 *   callers    in_node/in_wt [in_first[v], in_first[v + 1]): its non-self arcs in, by caller
 *   out_w/in_w exact uint64_t totals per vertex, self arcs included
 * The weights of the two lists are the ones igraph holds (igraph_real_t, read back by
 * weight_from_real), so a query answers what one on igraph's own incidence lists would.
 *
 * Why the lists and not igraph's incidence lists (igraph_inclist_t), which the queries used to
 * read: a query on those followed each incident edge id to the edge's ends and weight, three
 * arrays of E entries in edge order, so about one cache miss per neighbour on a large graph, and
 * building them allocated one vector per vertex; the clique pass queries every candidate at
 * least twice. The lists are built in O(V + E) by counting sorts that read and write in
 * sequence, and a query merges two sorted runs (docs/benchmarks.md, "Optimizer scale").
 */
#include "callgraph.h"

#include "mem.h"

#include <igraph.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2^64 as a double: the first weight that does not fit uint64_t when read back from igraph. */
#define LG_CG_TWO_POW_64 18446744073709551616.0

/* Longest igraph reason (with its source location) kept for a diagnostic, in bytes. */
#define LG_CG_REASON_MAX 256u

/* Location the diagnostics of this module carry. */
#define LG_CG_WHERE "call graph"

struct lg_callgraph {
    igraph_t graph;
    igraph_vector_t weights;     /* per edge id */
    bool has_graph, has_weights; /* which igraph objects are live (partial builds) */
    size_t *out_first;           /* per vertex + 1: where its callees start */
    uint32_t *out_node;          /* per non-self arc, by (caller, callee): the callee */
    uint64_t *out_wt;            /* its weight as igraph holds it */
    size_t *in_first;            /* per vertex + 1: where its callers start */
    uint32_t *in_node;           /* per non-self arc, by (callee, caller): the caller */
    uint64_t *in_wt;             /* its weight as igraph holds it */
    uint64_t *out_w;             /* per vertex: summed weight of outgoing arcs */
    uint64_t *in_w;              /* per vertex: summed weight of incoming arcs */
    size_t nnodes;
    size_t narcs;
    size_t max_degree; /* largest degree bound */
};

/* ---- igraph error handling -------------------------------------------------------------- */

/* The last reason igraph reported, "reason (file:line)". igraph 0.10.2 is built without thread
 * support (IGRAPH_THREAD_SAFE 0), so its handlers are process-wide and so is this buffer. */
static char igraph_reason[LG_CG_REASON_MAX];

static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

/* Records the reason and frees igraph's temporaries (its contract for handlers that return);
 * the failing igraph function then returns its error code to us. */
static void record_igraph_error(const char *reason, const char *file, int line,
                                igraph_error_t igraph_errno)
{
    (void)igraph_errno; /* the caller sees the code as the return value */
    snprintf(igraph_reason, sizeof igraph_reason, "%s (%s:%d)", reason ? reason : "",
             file ? file : "?", line);
    IGRAPH_FINALLY_FREE();
}

/* igraph warnings would go to stderr; the library never prints. */
static void ignore_igraph_warning(const char *reason, const char *file, int line)
{
    (void)reason;
    (void)file;
    (void)line;
}

/* Replaces igraph's defaults (abort on error, print warnings). A handler that the program chose
 * itself (anything but the default) is put back: main or a test may want its own. */
static void install_handlers(void)
{
    igraph_error_handler_t *old_err = igraph_set_error_handler(record_igraph_error);
    if (old_err != NULL && old_err != igraph_error_handler_abort)
        igraph_set_error_handler(old_err);
    igraph_warning_handler_t *old_warn = igraph_set_warning_handler(ignore_igraph_warning);
    if (old_warn != NULL && old_warn != igraph_warning_handler_print)
        igraph_set_warning_handler(old_warn);
}

/* Maps a failed igraph call to LG_EGRAPH with igraph's reason. */
static lg_err_t igraph_fail(lg_diag_t *d, igraph_error_t err, const char *what)
{
    return lg_diag_fail(d, LG_EGRAPH, LG_CG_WHERE, "igraph could not %s: %s%s%s", what,
                        igraph_strerror(err), igraph_reason[0] ? ": " : "", igraph_reason);
}

/* ---- build ------------------------------------------------------------------------------ */

/* A weight stored in igraph, read back as an integer: negative or NaN never occur (we store
 * uint64_t values), and 2^64 (the rounding of values near UINT64_MAX) saturates. */
static uint64_t weight_from_real(igraph_real_t w)
{
    if (!(w > 0.0))
        return 0;
    if (w >= LG_CG_TWO_POW_64)
        return UINT64_MAX;
    return (uint64_t)w;
}

static lg_err_t check_program(const lg_program_t *prog, lg_diag_t *d)
{
    if (prog->nfns > UINT32_MAX || prog->nfns > (size_t)IGRAPH_INTEGER_MAX)
        return lg_diag_fail(d, LG_ELIMIT, LG_CG_WHERE, "%zu functions: at most %u are supported",
                            prog->nfns, (unsigned)UINT32_MAX);
    if (prog->narcs > SIZE_MAX / 2 || prog->narcs > (size_t)(IGRAPH_INTEGER_MAX / 2))
        return lg_diag_fail(d, LG_ELIMIT, LG_CG_WHERE, "%zu arcs: too many for igraph",
                            prog->narcs);
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

/* Creates the igraph objects of g from prog (already checked). */
static lg_err_t build_igraph(lg_callgraph_t *g, const lg_program_t *prog, lg_diag_t *d)
{
    igraph_vector_int_t edges;
    igraph_error_t err = igraph_vector_int_init(&edges, (igraph_integer_t)(2 * prog->narcs));
    if (err != IGRAPH_SUCCESS)
        return igraph_fail(d, err, "allocate the edge list");
    for (size_t i = 0; i < prog->narcs; i++) {
        VECTOR(edges)[2 * i] = (igraph_integer_t)prog->arcs[i].caller;
        VECTOR(edges)[2 * i + 1] = (igraph_integer_t)prog->arcs[i].callee;
    }
    err = igraph_create(&g->graph, &edges, (igraph_integer_t)prog->nfns, IGRAPH_DIRECTED);
    igraph_vector_int_destroy(&edges);
    if (err != IGRAPH_SUCCESS)
        return igraph_fail(d, err, "create the call graph");
    g->has_graph = true;

    err = igraph_vector_init(&g->weights, (igraph_integer_t)prog->narcs);
    if (err != IGRAPH_SUCCESS)
        return igraph_fail(d, err, "allocate the edge weights");
    g->has_weights = true;
    for (size_t i = 0; i < prog->narcs; i++)
        VECTOR(g->weights)[i] = (igraph_real_t)prog->arcs[i].weight;
    return LG_OK;
}

/* ---- neighbour lists ------------------------------------------------------------------- */

/* The arc's weight as igraph holds it. */
static uint64_t held_weight(const lg_arc_t *a)
{
    return weight_from_real((igraph_real_t)a->weight);
}

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
        g->out_wt[k] = held_weight(a);
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
    pthread_once(&handlers_once, install_handlers);
    igraph_reason[0] = '\0';
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

    lg_err_t err = build_igraph(g, prog, d);
    if (err == LG_OK)
        err = build_lists(g, prog, d);
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
    if (g->has_weights)
        igraph_vector_destroy(&g->weights);
    if (g->has_graph)
        igraph_destroy(&g->graph);
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
