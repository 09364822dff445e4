/* callgraph.c - the call graph in igraph: one directed edge per arc, weights in an
 * igraph_vector_t, and incidence lists (both directions, no self loops) for neighbour queries.
 *
 * This file is the only place where igraph types appear: every igraph_error_t is turned into
 * LG_EGRAPH here, with igraph's reason in the diagnostic.
 *
 * Layout of the data:
 *   graph     directed igraph_t; vertex i = fns[i], edge e = arcs[e] (caller -> callee)
 *   weights   igraph_vector_t; weights[e] = arcs[e].weight as igraph_real_t
 *   inc       igraph_inclist_t (IGRAPH_ALL, IGRAPH_NO_LOOPS): the non-self edges touching each
 *             vertex; igraph lists them by neighbour id, which lets a query merge the two
 *             directions of a pair in one pass
 *   out_w/in_w exact uint64_t totals per vertex, self arcs included
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
    igraph_vector_t weights; /* per edge id */
    igraph_inclist_t inc;    /* per vertex: incident non-self edge ids */
    bool has_graph, has_weights, has_inc; /* which igraph objects are live (partial builds) */
    uint64_t *out_w;         /* per vertex: summed weight of outgoing arcs */
    uint64_t *in_w;          /* per vertex: summed weight of incoming arcs */
    size_t nnodes;
    size_t narcs;
    size_t max_degree; /* largest incidence list */
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

    err = igraph_inclist_init(&g->graph, &g->inc, IGRAPH_ALL, IGRAPH_NO_LOOPS);
    if (err != IGRAPH_SUCCESS)
        return igraph_fail(d, err, "build the incidence lists");
    g->has_inc = true;
    return LG_OK;
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
    if (err != LG_OK) {
        lg_cg_free(g);
        return err;
    }
    for (size_t v = 0; v < g->nnodes; v++) {
        size_t k = (size_t)igraph_vector_int_size(igraph_inclist_get(&g->inc, v));
        if (k > g->max_degree)
            g->max_degree = k;
    }
    *out = g;
    return LG_OK;
}

void lg_cg_free(lg_callgraph_t *g)
{
    if (g == NULL)
        return;
    if (g->has_inc)
        igraph_inclist_destroy(&g->inc);
    if (g->has_weights)
        igraph_vector_destroy(&g->weights);
    if (g->has_graph)
        igraph_destroy(&g->graph);
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
    return (size_t)igraph_vector_int_size(igraph_inclist_get(&g->inc, node));
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

/* Ascending neighbour id; entries of one neighbour are merged afterwards, so ties are free. */
static int neighbour_cmp(const void *a, const void *b)
{
    uint32_t x = ((const lg_cg_neighbour_t *)a)->node;
    uint32_t y = ((const lg_cg_neighbour_t *)b)->node;
    return (x > y) - (x < y);
}

size_t lg_cg_neighbours(const lg_callgraph_t *g, uint32_t node, lg_cg_neighbour_t *buf)
{
    const igraph_vector_int_t *inc = igraph_inclist_get(&g->inc, node);
    size_t k = (size_t)igraph_vector_int_size(inc);
    bool sorted = true;
    for (size_t i = 0; i < k; i++) {
        igraph_integer_t e = VECTOR(*inc)[i];
        uint64_t w = weight_from_real(VECTOR(g->weights)[e]);
        igraph_integer_t from = IGRAPH_FROM(&g->graph, e);
        lg_cg_neighbour_t *n = &buf[i];
        if (from == (igraph_integer_t)node) {
            n->node = (uint32_t)IGRAPH_TO(&g->graph, e);
            n->out = w;
            n->in = 0;
        } else {
            n->node = (uint32_t)from;
            n->out = 0;
            n->in = w;
        }
        if (i > 0 && n->node < buf[i - 1].node)
            sorted = false;
    }
    /* igraph 0.10 lists incident edges by neighbour id; sorting is only a safety net. */
    if (!sorted)
        qsort(buf, k, sizeof *buf, neighbour_cmp);
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        if (n > 0 && buf[n - 1].node == buf[i].node) {
            buf[n - 1].out = lg_sat_add(buf[n - 1].out, buf[i].out);
            buf[n - 1].in = lg_sat_add(buf[n - 1].in, buf[i].in);
        } else {
            buf[n++] = buf[i];
        }
    }
    for (size_t i = 0; i < n; i++)
        buf[i].weight = lg_sat_add(buf[i].out, buf[i].in);
    return n;
}
