/* emit_graph.c - the call graph for graph tools through igraph's DOT and GraphML writers; see
 * emit_graph.h.
 *
 * The call graph the optimizer queries (optimizer/callgraph.c) carries no attributes; this file
 * builds a separate, short-lived igraph graph with names and weights as attributes, because
 * igraph's writers only write attributes. Attributes need an attribute handler, a process-wide
 * igraph setting: it is installed for the export only and the previous one is put back, so the
 * optimizer's graphs never pay for attribute bookkeeping. The same goes for igraph's error and
 * warning handlers (its defaults abort and print; a library must do neither). igraph 0.10.2 is
 * built without thread support: export from one thread at a time.
 */
#include "emit_graph.h"

#include "mem.h"
#include "strmap.h"

#include <igraph.h>
#include <stdlib.h>
#include <string.h>

/* Longest igraph reason kept for a diagnostic, in bytes. */
#define LG_GRAPH_REASON_MAX 256u

/* Location the diagnostics of this module carry. */
#define LG_GRAPH_WHERE "call graph export"

/* The graph to write: nodes with borrowed names, edges indexing them. */
typedef struct export_graph {
    const char **names;
    uint64_t *hits;
    uint64_t *sizes;
    size_t nnodes;
    lg_arc_t *edges;
    size_t nedges;
} export_graph_t;

static void export_free(export_graph_t *g)
{
    free(g->names);
    free(g->hits);
    free(g->sizes);
    free(g->edges);
    memset(g, 0, sizeof *g);
}

static bool export_alloc(export_graph_t *g, size_t nodes, size_t edges)
{
    memset(g, 0, sizeof *g);
    g->names = calloc(nodes ? nodes : 1, sizeof *g->names);
    g->hits = calloc(nodes ? nodes : 1, sizeof *g->hits);
    g->sizes = calloc(nodes ? nodes : 1, sizeof *g->sizes);
    g->edges = calloc(edges ? edges : 1, sizeof *g->edges);
    if (g->names && g->hits && g->sizes && g->edges)
        return true;
    export_free(g);
    return false;
}

/* ---- igraph handlers, for the duration of one export -------------------------------------- */

static char g_reason[LG_GRAPH_REASON_MAX]; /* process-wide like igraph's handlers */

static void record_error(const char *reason, const char *file, int line, igraph_error_t err)
{
    (void)err; /* the failing call returns it */
    snprintf(g_reason, sizeof g_reason, "%s (%s:%d)", reason ? reason : "", file ? file : "?",
             line);
    IGRAPH_FINALLY_FREE();
}

static void ignore_warning(const char *reason, const char *file, int line)
{
    (void)reason;
    (void)file;
    (void)line;
}

typedef struct saved_handlers {
    igraph_error_handler_t *error;
    igraph_warning_handler_t *warning;
    igraph_attribute_table_t *attributes;
} saved_handlers_t;

static saved_handlers_t install(void)
{
    g_reason[0] = '\0';
    saved_handlers_t s;
    s.error = igraph_set_error_handler(record_error);
    s.warning = igraph_set_warning_handler(ignore_warning);
    s.attributes = igraph_set_attribute_table(&igraph_cattribute_table);
    return s;
}

static void restore(const saved_handlers_t *s)
{
    igraph_set_attribute_table(s->attributes);
    igraph_set_warning_handler(s->warning);
    igraph_set_error_handler(s->error);
}

static lg_err_t igraph_fail(lg_diag_t *d, igraph_error_t err, const char *what)
{
    return lg_diag_fail(d, err == IGRAPH_ENOMEM ? LG_ENOMEM : LG_EGRAPH, LG_GRAPH_WHERE,
                        "igraph could not %s: %s%s%s", what, igraph_strerror(err),
                        g_reason[0] ? ": " : "", g_reason);
}

/* ---- writing ------------------------------------------------------------------------------ */

/* Sets the attributes of graph from g (attribute handler installed). */
static igraph_error_t set_attributes(igraph_t *graph, const export_graph_t *g)
{
    igraph_strvector_t names;
    igraph_vector_t numbers;
    IGRAPH_CHECK(igraph_strvector_init(&names, (igraph_integer_t)g->nnodes));
    IGRAPH_FINALLY(igraph_strvector_destroy, &names);
    for (size_t i = 0; i < g->nnodes; i++)
        IGRAPH_CHECK(igraph_strvector_set(&names, (igraph_integer_t)i, g->names[i]));
    IGRAPH_CHECK(igraph_cattribute_VAS_setv(graph, "name", &names));
    IGRAPH_CHECK(igraph_cattribute_VAS_setv(graph, "label", &names));
    igraph_strvector_destroy(&names);
    IGRAPH_FINALLY_CLEAN(1);

    size_t n = g->nnodes > g->nedges ? g->nnodes : g->nedges;
    IGRAPH_VECTOR_INIT_FINALLY(&numbers, (igraph_integer_t)n);
    IGRAPH_CHECK(igraph_vector_resize(&numbers, (igraph_integer_t)g->nnodes));
    for (size_t i = 0; i < g->nnodes; i++)
        VECTOR(numbers)[i] = (igraph_real_t)g->hits[i];
    IGRAPH_CHECK(igraph_cattribute_VAN_setv(graph, "hits", &numbers));
    for (size_t i = 0; i < g->nnodes; i++)
        VECTOR(numbers)[i] = (igraph_real_t)g->sizes[i];
    IGRAPH_CHECK(igraph_cattribute_VAN_setv(graph, "bytes", &numbers));
    IGRAPH_CHECK(igraph_vector_resize(&numbers, (igraph_integer_t)g->nedges));
    for (size_t i = 0; i < g->nedges; i++)
        VECTOR(numbers)[i] = (igraph_real_t)g->edges[i].weight;
    IGRAPH_CHECK(igraph_cattribute_EAN_setv(graph, "weight", &numbers));
    igraph_vector_destroy(&numbers);
    IGRAPH_FINALLY_CLEAN(1);
    return IGRAPH_SUCCESS;
}

static lg_err_t write_export(const export_graph_t *g, lg_graph_format_t format, FILE *out,
                             lg_diag_t *d)
{
    if (g->nnodes > (size_t)IGRAPH_INTEGER_MAX || g->nedges > (size_t)(IGRAPH_INTEGER_MAX / 2))
        return lg_diag_fail(d, LG_ELIMIT, LG_GRAPH_WHERE,
                            "%zu nodes and %zu edges: too many "
                            "for igraph",
                            g->nnodes, g->nedges);
    saved_handlers_t saved = install();
    lg_err_t err = LG_OK;
    igraph_vector_int_t ends;
    igraph_error_t ierr = igraph_vector_int_init(&ends, (igraph_integer_t)(2 * g->nedges));
    if (ierr != IGRAPH_SUCCESS) {
        err = igraph_fail(d, ierr, "allocate the edge list");
        goto out;
    }
    for (size_t i = 0; i < g->nedges; i++) {
        VECTOR(ends)[2 * i] = (igraph_integer_t)g->edges[i].caller;
        VECTOR(ends)[2 * i + 1] = (igraph_integer_t)g->edges[i].callee;
    }
    igraph_t graph;
    ierr = igraph_create(&graph, &ends, (igraph_integer_t)g->nnodes, IGRAPH_DIRECTED);
    igraph_vector_int_destroy(&ends);
    if (ierr != IGRAPH_SUCCESS) {
        err = igraph_fail(d, ierr, "create the graph");
        goto out;
    }
    ierr = set_attributes(&graph, g);
    if (ierr != IGRAPH_SUCCESS)
        err = igraph_fail(d, ierr, "set the attributes");
    if (err == LG_OK) {
        ierr = format == LG_GRAPH_DOT ? igraph_write_graph_dot(&graph, out)
                                      : igraph_write_graph_graphml(&graph, out, false);
        if (ierr != IGRAPH_SUCCESS)
            err = ierr == IGRAPH_EFILE ? LG_EIO : igraph_fail(d, ierr, "write the graph");
    }
    /* Destroyed with the attribute handler it was created with. */
    igraph_destroy(&graph);
out:
    restore(&saved);
    if (err == LG_OK && ferror(out))
        err = LG_EIO;
    return err;
}

lg_err_t lg_emit_graph_program(const lg_program_t *prog, lg_graph_format_t format, FILE *out,
                               lg_diag_t *d)
{
    /* Nodes: functions that ran or take part in a call, in input order. */
    uint32_t *node_of = malloc((prog->nfns ? prog->nfns : 1) * sizeof *node_of);
    if (node_of == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns; i++)
        node_of[i] = prog->fns[i].hits > 0 ? 0 : UINT32_MAX;
    for (size_t i = 0; i < prog->narcs; i++)
        node_of[prog->arcs[i].caller] = node_of[prog->arcs[i].callee] = 0;
    size_t nnodes = 0;
    for (size_t i = 0; i < prog->nfns; i++)
        if (node_of[i] != UINT32_MAX)
            node_of[i] = (uint32_t)nnodes++;
    export_graph_t g;
    if (!export_alloc(&g, nnodes, prog->narcs)) {
        free(node_of);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < prog->nfns; i++) {
        if (node_of[i] == UINT32_MAX)
            continue;
        g.names[node_of[i]] = prog->fns[i].symbol;
        g.hits[node_of[i]] = prog->fns[i].hits;
        g.sizes[node_of[i]] = prog->fns[i].size;
    }
    g.nnodes = nnodes;
    for (size_t i = 0; i < prog->narcs; i++)
        g.edges[i] = (lg_arc_t){node_of[prog->arcs[i].caller], node_of[prog->arcs[i].callee],
                                 prog->arcs[i].weight};
    g.nedges = prog->narcs;
    free(node_of);
    lg_arcs_merge(g.edges, &g.nedges); /* (caller, callee) order, already unique */
    lg_err_t err = write_export(&g, format, out, d);
    export_free(&g);
    return err;
}

lg_err_t lg_emit_graph_profiles(const lg_bind_input_t *inputs, size_t ninputs,
                                lg_graph_format_t format, FILE *out, lg_diag_t *d)
{
    size_t funcs = 0, edges = 0;
    for (size_t k = 0; k < ninputs; k++) {
        funcs += inputs[k].profile->nfuncs;
        edges += inputs[k].profile->nedges;
    }
    export_graph_t g;
    if (!export_alloc(&g, funcs, edges))
        return LG_ENOMEM;
    lg_strmap_t by_name;
    lg_strmap_init(&by_name);
    lg_err_t err = LG_OK;
    for (size_t k = 0; k < ninputs && err == LG_OK; k++) {
        const lg_profile_t *p = inputs[k].profile;
        double scale = inputs[k].scale;
        /* This profile's function i is node ids[i]; names of one profile may repeat (statics of
         * one name), and merge like across profiles. */
        uint32_t *ids = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof *ids);
        if (ids == NULL) {
            err = LG_ENOMEM;
            break;
        }
        for (size_t i = 0; i < p->nfuncs && err == LG_OK; i++) {
            uint32_t id = (uint32_t)g.nnodes;
            if (!lg_strmap_put(&by_name, p->funcs[i].name, id, &id)) {
                err = LG_ENOMEM;
                break;
            }
            if (id == g.nnodes)
                g.names[g.nnodes++] = p->funcs[i].name;
            g.hits[id] = lg_sat_add(g.hits[id], lg_scale_count(p->funcs[i].hits, scale));
            ids[i] = id;
        }
        for (size_t i = 0; i < p->nedges && err == LG_OK; i++)
            g.edges[g.nedges++] = (lg_arc_t){ids[p->edges[i].caller], ids[p->edges[i].callee],
                                              lg_scale_count(p->edges[i].weight, scale)};
        free(ids);
    }
    lg_strmap_destroy(&by_name);
    if (err == LG_OK) {
        lg_arcs_merge(g.edges, &g.nedges);
        err = write_export(&g, format, out, d);
    }
    export_free(&g);
    return err;
}
