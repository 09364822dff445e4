/* callgraph.c - the call graph as each function's callees and callers in two sorted lists (no
 * self arcs), plus exact weight totals per function.
 *
 * Layout of the data:
 *   callees    per vertex v: out[first[v].out, first[v + 1].out), its non-self arcs out by
 *              callee ascending (an arc listed twice gives two adjacent entries)
 *   callers    in[first[v].in, first[v + 1].in): its non-self arcs in, by caller
 *   out_w/in_w exact uint64_t totals per vertex, self arcs included
 * An entry holds the other end and the weight together, and a vertex's two starts sit side by
 * side, so a query reads three places in memory where separate arrays made it read six.
 *
 * Why lists of our own and not an igraph_t: the passes ask one question, "the neighbours of v
 * with both directed weights", about every candidate at least twice. A query on igraph's
 * incidence lists followed each incident edge id to the edge's ends and weight, three arrays of
 * E entries in edge order, so about one cache miss per neighbour on a large graph; and building
 * the igraph_t sorted the E edges twice more for indexes no query read (5.4 s and 400 MB of the
 * 1M-function benchmark). The lists are built in O(V + E) by counting sorts that read and write
 * in sequence, and a query merges two sorted runs (docs/benchmarks.md, "Optimizer scale").
 * igraph does the work it is good at where lorgen needs it: the DOT and GraphML exports
 * (src/output/emit_graph.c).
 */
#include "callgraph.h"

#include "mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Location the diagnostics of this module carry. */
#define LG_CG_WHERE "call graph"

/* Bits in the low half of a weight, as an entry holds it. */
#define LG_CG_HALF_BITS 32u

/* One end of a non-self arc and its weight, in 12 bytes (the weight in two halves, so that no
 * padding follows the node). */
typedef struct entry {
    uint32_t node;
    uint32_t wt_lo, wt_hi;
} entry_t;

/* Where a vertex's callees and callers start. */
typedef struct starts {
    size_t out, in;
} starts_t;

struct lg_callgraph {
    starts_t *first; /* per vertex + 1 */
    entry_t *out;    /* per non-self arc, by (caller, callee): the callee */
    entry_t *in;     /* per non-self arc, by (callee, caller): the caller */
    uint64_t *out_w; /* per vertex: summed weight of outgoing arcs */
    uint64_t *in_w;  /* per vertex: summed weight of incoming arcs */
    size_t nnodes;
    size_t narcs;
    size_t max_degree; /* largest degree bound */
};

static entry_t make_entry(uint32_t node, uint64_t weight)
{
    return (entry_t){node, (uint32_t)weight, (uint32_t)(weight >> LG_CG_HALF_BITS)};
}

static uint64_t entry_weight(const entry_t *e)
{
    return ((uint64_t)e->wt_hi << LG_CG_HALF_BITS) | e->wt_lo;
}

/* ---- build ------------------------------------------------------------------------------ */

static lg_err_t check_tables(const lg_program_t *prog, lg_diag_t *d)
{
    if (prog->nfns > UINT32_MAX)
        return lg_diag_fail(d, LG_ELIMIT, LG_CG_WHERE, "%zu functions: at most %u are supported",
                            prog->nfns, (unsigned)UINT32_MAX);
    if (prog->nfns > 0 && prog->fns == NULL)
        return lg_diag_fail(d, LG_EINVAL, LG_CG_WHERE, "%zu functions but no function table",
                            prog->nfns);
    if (prog->narcs > 0 && prog->arcs == NULL)
        return lg_diag_fail(d, LG_EINVAL, LG_CG_WHERE, "%zu arcs but no arc table", prog->narcs);
    return LG_OK;
}

static lg_err_t bad_arc(const lg_program_t *prog, size_t i, lg_diag_t *d)
{
    const lg_arc_t *a = &prog->arcs[i];
    return lg_diag_fail(d, LG_EINVAL, LG_CG_WHERE,
                        "arc %zu: %s index %u out of range (%zu functions)", i,
                        a->caller >= prog->nfns ? "caller" : "callee",
                        a->caller >= prog->nfns ? a->caller : a->callee, prog->nfns);
}

static bool arc_before(const lg_arc_t *a, const lg_arc_t *b)
{
    return a->caller != b->caller ? a->caller < b->caller : a->callee < b->callee;
}

/* Counts per vertex (in first[v].out and first[v].in, shifted to v + 1 for run_starts) its
 * non-self arcs out and in, sums its weight totals, checks every arc and tells whether the arcs
 * come in (caller, callee) order: one pass over the arcs. */
static lg_err_t count_arcs(lg_callgraph_t *g, const lg_program_t *prog, bool *sorted,
                           size_t *nonself, lg_diag_t *d)
{
    *sorted = true;
    *nonself = 0;
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        if (a->caller >= prog->nfns || a->callee >= prog->nfns)
            return bad_arc(prog, i, d);
        if (i > 0 && arc_before(a, &prog->arcs[i - 1]))
            *sorted = false;
        g->out_w[a->caller] = lg_sat_add(g->out_w[a->caller], a->weight);
        g->in_w[a->callee] = lg_sat_add(g->in_w[a->callee], a->weight);
        if (a->caller == a->callee)
            continue;
        g->first[a->caller + 1].out++;
        g->first[a->callee + 1].in++;
        (*nonself)++;
    }
    return LG_OK;
}

/* Turns the counts at first[v + 1] into where each run starts; records the degree bound. */
static void run_starts(lg_callgraph_t *g)
{
    for (size_t v = 0; v < g->nnodes; v++) {
        size_t nout = g->first[v + 1].out, nin = g->first[v + 1].in;
        if (nout + nin > g->max_degree)
            g->max_degree = nout + nin;
        g->first[v + 1].out = g->first[v].out + nout;
        g->first[v + 1].in = g->first[v].in + nin;
    }
}

/* Fills the callee and caller lists of g from prog (checked and counted). The callees come
 * from the arcs in (caller, callee) order: the program's own order normally (program.h), else
 * two stable counting sorts (by callee, then by caller) through a copy. The callers come from
 * the callees, distributed by callee while the callers ascend. So the lists do not depend on
 * the order of the arcs. Time and memory O(V + E). */
static lg_err_t fill_lists(lg_callgraph_t *g, const lg_program_t *prog, bool sorted, size_t nonself,
                           lg_diag_t *d)
{
    size_t n = prog->nfns, narcs = prog->narcs;
    size_t *next = malloc((n ? n : 1) * sizeof *next); /* per vertex: where its next entry goes */
    lg_arc_t *by_callee = sorted ? NULL : malloc((nonself ? nonself : 1) * sizeof *by_callee);
    if (next == NULL || (!sorted && by_callee == NULL)) {
        free(next);
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE,
                            "out of memory for the neighbour lists of %zu functions and %zu arcs",
                            n, narcs);
    }
    const lg_arc_t *arcs = prog->arcs;
    size_t narcs_ordered = narcs;
    if (!sorted) {
        /* Least significant key first: by callee here, stably by caller below. */
        for (size_t v = 0; v < n; v++)
            next[v] = g->first[v].in;
        for (size_t i = 0; i < narcs; i++)
            if (arcs[i].caller != arcs[i].callee)
                by_callee[next[arcs[i].callee]++] = arcs[i];
        arcs = by_callee;
        narcs_ordered = nonself;
    }
    for (size_t v = 0; v < n; v++)
        next[v] = g->first[v].out;
    for (size_t i = 0; i < narcs_ordered; i++) {
        const lg_arc_t *a = &arcs[i];
        if (a->caller != a->callee)
            g->out[next[a->caller]++] = make_entry(a->callee, a->weight);
    }
    for (size_t v = 0; v < n; v++)
        next[v] = g->first[v].in;
    for (size_t v = 0; v < n; v++)
        for (size_t k = g->first[v].out; k < g->first[v + 1].out; k++) {
            entry_t e = g->out[k];
            uint32_t callee = e.node;
            e.node = (uint32_t)v;
            g->in[next[callee]++] = e;
        }
    free(next);
    free(by_callee);
    return LG_OK;
}

lg_err_t lg_cg_new(const lg_program_t *prog, lg_callgraph_t **out, lg_diag_t *d)
{
    *out = NULL;
    LG_CHECK(check_tables(prog, d));
    lg_callgraph_t *g = calloc(1, sizeof *g);
    if (g == NULL)
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE, "out of memory for the call graph");
    g->nnodes = prog->nfns;
    g->narcs = prog->narcs;
    /* One element at least: calloc(0) may return NULL. */
    size_t nalloc = prog->nfns ? prog->nfns : 1;
    g->out_w = calloc(nalloc, sizeof *g->out_w);
    g->in_w = calloc(nalloc, sizeof *g->in_w);
    g->first = calloc(prog->nfns + 1, sizeof *g->first);
    if (g->out_w == NULL || g->in_w == NULL || g->first == NULL) {
        lg_cg_free(g);
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE,
                            "out of memory for the weights of %zu functions", prog->nfns);
    }
    bool sorted;
    size_t nonself;
    lg_err_t err = count_arcs(g, prog, &sorted, &nonself, d);
    if (err == LG_OK) {
        run_starts(g);
        g->out = malloc((nonself ? nonself : 1) * sizeof *g->out);
        g->in = malloc((nonself ? nonself : 1) * sizeof *g->in);
        if (g->out == NULL || g->in == NULL)
            err = lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE,
                               "out of memory for the neighbour lists of %zu functions and %zu "
                               "arcs",
                               prog->nfns, prog->narcs);
    }
    if (err == LG_OK)
        err = fill_lists(g, prog, sorted, nonself, d);
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
    free(g->first);
    free(g->out);
    free(g->in);
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
    return (g->first[node + 1].out - g->first[node].out) +
           (g->first[node + 1].in - g->first[node].in);
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
    const entry_t *o = &g->out[g->first[node].out], *o_end = &g->out[g->first[node + 1].out];
    const entry_t *i = &g->in[g->first[node].in], *i_end = &g->in[g->first[node + 1].in];
    size_t n = 0;
    while (o < o_end || i < i_end) {
        /* The lower neighbour id next (a callee first on a tie); entries of one neighbour are
         * adjacent and merge. */
        uint32_t v;
        uint64_t out = 0, in = 0;
        if (i == i_end || (o < o_end && o->node <= i->node)) {
            v = o->node;
            out = entry_weight(o++);
        } else {
            v = i->node;
            in = entry_weight(i++);
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
