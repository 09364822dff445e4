/* callgraph.c - the call graph as each function's callees and callers in two sorted lists, plus
 * exact weight totals per function.
 *
 * Layout of the data:
 *   callees    per vertex v: arcs[first[v].out, first[v + 1].out), its arcs out in (caller,
 *              callee) order, self arcs included (a query skips them; an arc listed twice gives
 *              two adjacent entries). These are the program's own arcs, which program.h keeps
 *              in that order: the graph borrows them instead of copying 10M entries on the
 *              1M-function benchmark. Arcs in another order are sorted into a copy of its own.
 *   callers    in[first[v].in, first[v + 1].in): its non-self arcs in, by caller
 *   out_w/in_w exact uint64_t totals per vertex, self arcs included
 * A caller entry holds the other end and the weight together, and a vertex's two starts sit side
 * by side, so a query reads three places in memory where separate arrays made it read six.
 *
 * Why lists of our own and not an igraph_t: the passes ask one question, "the neighbours of v
 * with both directed weights", about every candidate at least twice. A query on igraph's
 * incidence lists followed each incident edge id to the edge's ends and weight, three arrays of
 * E entries in edge order, so about one cache miss per neighbour on a large graph; and building
 * the igraph_t sorted the E edges twice more for indexes no query read (5.4 s and 400 MB of the
 * 1M-function benchmark). The lists are built in O(V + E) by counting sorts, and a query merges
 * two sorted runs (docs/benchmarks.md, "Optimizer scale"). igraph does the work it is good at
 * where lorgen needs it: the DOT and GraphML exports (src/report/emit_graph.c).
 */
#include "callgraph.h"

#include "bigalloc.h"
#include "mem.h"
#include "prefetch.h"

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

/* Where a vertex's callees (an index into arcs) and callers (into in) start. */
typedef struct starts {
    size_t out, in;
} starts_t;

struct lg_callgraph {
    starts_t *first;      /* per vertex + 1 */
    const lg_arc_t *arcs; /* every arc, by (caller, callee): the program's, or own_arcs */
    lg_arc_t *own_arcs;   /* the arcs sorted, when the program's were not; else NULL */
    entry_t *in;          /* per non-self arc, by (callee, caller): the caller */
    uint64_t *out_w;      /* per vertex: summed weight of outgoing arcs */
    uint64_t *in_w;       /* per vertex: summed weight of incoming arcs */
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

/* Checks every arc and tells whether they come in (caller, callee) order; one pass. */
static lg_err_t check_arcs(const lg_program_t *prog, bool *sorted, lg_diag_t *d)
{
    *sorted = true;
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        if (a->caller >= prog->nfns || a->callee >= prog->nfns)
            return bad_arc(prog, i, d);
        if (i > 0 && arc_before(a, &prog->arcs[i - 1]))
            *sorted = false;
    }
    return LG_OK;
}

/* g->own_arcs: the program's arcs in (caller, callee) order, by two stable counting sorts (by
 * callee, then by caller) through a second buffer. Only for arcs that program.h's order does not
 * hold, so it may take the memory. */
static lg_err_t sort_arcs(lg_callgraph_t *g, const lg_program_t *prog, lg_diag_t *d)
{
    size_t n = prog->nfns, narcs = prog->narcs;
    size_t *next = calloc(n + 1, sizeof *next); /* per vertex: where its next arc goes */
    lg_arc_t *by_callee = malloc((narcs ? narcs : 1) * sizeof *by_callee);
    g->own_arcs = malloc((narcs ? narcs : 1) * sizeof *g->own_arcs);
    if (next == NULL || by_callee == NULL || g->own_arcs == NULL) {
        free(next);
        free(by_callee);
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE, "out of memory for sorting %zu arcs", narcs);
    }
    /* Least significant key first: by callee, then stably by caller. */
    for (size_t i = 0; i < narcs; i++)
        next[prog->arcs[i].callee + 1]++;
    for (size_t v = 0; v < n; v++)
        next[v + 1] += next[v];
    for (size_t i = 0; i < narcs; i++)
        by_callee[next[prog->arcs[i].callee]++] = prog->arcs[i];
    memset(next, 0, (n + 1) * sizeof *next);
    for (size_t i = 0; i < narcs; i++)
        next[by_callee[i].caller + 1]++;
    for (size_t v = 0; v < n; v++)
        next[v + 1] += next[v];
    for (size_t i = 0; i < narcs; i++)
        g->own_arcs[next[by_callee[i].caller]++] = by_callee[i];
    free(next);
    free(by_callee);
    g->arcs = g->own_arcs;
    return LG_OK;
}

/* Per vertex, in first[v + 1].out its arcs out, self arcs included, and in first[v].in its
 * non-self arcs in; the out totals, and the self arcs' share of the in totals. One pass over
 * the arcs, in order. */
static void count_arcs(lg_callgraph_t *g)
{
    for (size_t i = 0; i < g->narcs; i++) {
        const lg_arc_t *a = &g->arcs[i];
        /* The callees come in no order: their counts are scattered over the vertices. */
        if (i + LG_PREFETCH_AHEAD < g->narcs)
            lg_prefetch_write(&g->first[g->arcs[i + LG_PREFETCH_AHEAD].callee]);
        g->out_w[a->caller] = lg_sat_add(g->out_w[a->caller], a->weight);
        g->first[a->caller + 1].out++;
        if (a->caller == a->callee)
            g->in_w[a->callee] = lg_sat_add(g->in_w[a->callee], a->weight);
        else
            g->first[a->callee].in++;
    }
}

/* How many of v's arcs out are self arcs: they sit together in its run, which is sorted by
 * callee. O(log k) for a run of k arcs. */
static size_t self_arcs(const lg_callgraph_t *g, uint32_t v)
{
    size_t lo = g->first[v].out, hi = g->first[v + 1].out;
    while (lo < hi) { /* first arc of the run whose callee is not below v */
        size_t mid = lo + (hi - lo) / 2;
        if (g->arcs[mid].callee < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < g->first[v + 1].out && g->arcs[lo + n].callee == v)
        n++;
    return n;
}

/* Turns the counts into where each run starts (callers: where each run ends, for fill_callers)
 * and records the degree bound. */
static void run_starts(lg_callgraph_t *g)
{
    size_t in_end = 0;
    for (size_t v = 0; v < g->nnodes; v++) {
        g->first[v + 1].out += g->first[v].out;
        in_end += g->first[v].in;
        g->first[v].in = in_end;
    }
    g->first[g->nnodes].in = in_end;
    for (uint32_t v = 0; v < g->nnodes; v++) {
        size_t nin = v == 0 ? g->first[0].in : g->first[v].in - g->first[v - 1].in;
        size_t degree = g->first[v + 1].out - g->first[v].out - self_arcs(g, v) + nin;
        if (degree > g->max_degree)
            g->max_degree = degree;
    }
}

/* Fills the caller lists from the arcs, taken last to first into each callee's run from its end,
 * so the callers come out ascending and first[v].in ends at the start of v's run; then adds the
 * callers' weights to the in totals, run by run. Each arc touches two scattered places, its
 * callee's start and the entry it writes: the start is asked for two LG_PREFETCH_AHEAD steps
 * early, and the entry one step early, once the start has come and says where it goes.
 * Time O(V + E). */
static void fill_callers(lg_callgraph_t *g)
{
    const size_t ahead = LG_PREFETCH_AHEAD;
    for (size_t i = g->narcs; i-- > 0;) {
        if (i >= 2 * ahead)
            lg_prefetch_write(&g->first[g->arcs[i - 2 * ahead].callee]);
        if (i >= ahead) {
            size_t soon = g->first[g->arcs[i - ahead].callee].in; /* 0 only for a self arc */
            if (soon > 0)
                lg_prefetch_write(&g->in[soon - 1]);
        }
        const lg_arc_t *a = &g->arcs[i];
        if (a->caller != a->callee)
            g->in[--g->first[a->callee].in] = make_entry(a->caller, a->weight);
    }
    for (size_t v = 0; v < g->nnodes; v++)
        for (size_t k = g->first[v].in; k < g->first[v + 1].in; k++)
            g->in_w[v] = lg_sat_add(g->in_w[v], entry_weight(&g->in[k]));
}

lg_err_t lg_cg_new(const lg_program_t *prog, lg_callgraph_t **out, lg_diag_t *d)
{
    *out = NULL;
    LG_CHECK(check_tables(prog, d));
    bool sorted;
    LG_CHECK(check_arcs(prog, &sorted, d));
    lg_callgraph_t *g = calloc(1, sizeof *g);
    if (g == NULL)
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE, "out of memory for the call graph");
    g->nnodes = prog->nfns;
    g->narcs = prog->narcs;
    g->arcs = prog->arcs;
    /* One element at least: calloc(0) may return NULL. */
    size_t nalloc = prog->nfns ? prog->nfns : 1;
    g->out_w = lg_big_calloc(nalloc, sizeof *g->out_w);
    g->in_w = lg_big_calloc(nalloc, sizeof *g->in_w);
    g->first = lg_big_calloc(prog->nfns + 1, sizeof *g->first);
    if (g->out_w == NULL || g->in_w == NULL || g->first == NULL) {
        lg_cg_free(g);
        return lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE,
                            "out of memory for the weights of %zu functions", prog->nfns);
    }
    lg_err_t err = sorted ? LG_OK : sort_arcs(g, prog, d);
    if (err == LG_OK) {
        count_arcs(g);
        run_starts(g);
        size_t nin = g->first[g->nnodes].in;
        g->in = lg_big_alloc(nin ? nin : 1, sizeof *g->in);
        if (g->in == NULL)
            err = lg_diag_fail(d, LG_ENOMEM, LG_CG_WHERE,
                               "out of memory for the neighbour lists of %zu functions and %zu "
                               "arcs",
                               prog->nfns, prog->narcs);
    }
    if (err != LG_OK) {
        lg_cg_free(g);
        return err;
    }
    fill_callers(g);
    *out = g;
    return LG_OK;
}

void lg_cg_free(lg_callgraph_t *g)
{
    if (g == NULL)
        return;
    free(g->first);
    free(g->own_arcs);
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
    return (g->first[node + 1].out - g->first[node].out) - self_arcs(g, node) +
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
    const lg_arc_t *o = &g->arcs[g->first[node].out], *o_end = &g->arcs[g->first[node + 1].out];
    const entry_t *i = &g->in[g->first[node].in], *i_end = &g->in[g->first[node + 1].in];
    size_t n = 0;
    while (o < o_end || i < i_end) {
        /* The lower neighbour id next (a callee first on a tie); entries of one neighbour are
         * adjacent and merge. */
        uint32_t v;
        uint64_t out = 0, in = 0;
        if (i == i_end || (o < o_end && o->callee <= i->node)) {
            if (o->callee == node) { /* a self arc makes no neighbour */
                o++;
                continue;
            }
            v = o->callee;
            out = (o++)->weight;
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
