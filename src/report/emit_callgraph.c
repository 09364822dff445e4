/* emit_callgraph.c - lld call-graph ordering file; see emit_callgraph.h. */
#include "emit_callgraph.h"

#include "mem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct named_edge {
    const char *caller; /* borrowed from the profile or program */
    const char *callee;
    uint64_t weight;
} named_edge_t;

static int cmp_by_names(const void *a, const void *b)
{
    const named_edge_t *x = a, *y = b;
    int c = strcmp(x->caller, y->caller);
    return c ? c : strcmp(x->callee, y->callee);
}

static int cmp_for_output(const void *a, const void *b)
{
    const named_edge_t *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return cmp_by_names(a, b);
}

static bool has_space(const char *s)
{
    return strpbrk(s, " \t\r\n\v\f") != NULL;
}

/* Sums repeated name pairs, sorts for output and writes. Takes ownership of edges. */
static lg_err_t write_edges(named_edge_t *edges, size_t n, FILE *out, lg_diag_t *d)
{
    if (n > 0) {
        qsort(edges, n, sizeof *edges, cmp_by_names);
        size_t kept = 0;
        for (size_t i = 0; i < n; i++) {
            if (kept > 0 && cmp_by_names(&edges[kept - 1], &edges[i]) == 0)
                edges[kept - 1].weight = lg_sat_add(edges[kept - 1].weight, edges[i].weight);
            else
                edges[kept++] = edges[i];
        }
        n = kept;
        qsort(edges, n, sizeof *edges, cmp_for_output);
    }
    size_t skipped = 0;
    const char *example = NULL;
    for (size_t i = 0; i < n; i++) {
        if (has_space(edges[i].caller) || has_space(edges[i].callee)) {
            skipped++;
            example = has_space(edges[i].caller) ? edges[i].caller : edges[i].callee;
            continue;
        }
        fprintf(out, "%s %s %" PRIu64 "\n", edges[i].caller, edges[i].callee, edges[i].weight);
    }
    if (skipped > 0)
        lg_diag_add(d, LG_WARNING, "",
                    "%zu call edges left out: lld's format cannot hold names with spaces, such "
                    "as '%s'",
                    skipped, example);
    free(edges);
    return ferror(out) ? LG_EIO : LG_OK;
}

lg_err_t lg_emit_callgraph_profiles(const lg_bind_input_t *inputs, size_t ninputs, FILE *out,
                                    lg_diag_t *d)
{
    size_t total = 0;
    for (size_t k = 0; k < ninputs; k++)
        total += inputs[k].profile->nedges;
    named_edge_t *edges = malloc((total ? total : 1) * sizeof *edges);
    if (edges == NULL)
        return LG_ENOMEM;
    size_t n = 0;
    for (size_t k = 0; k < ninputs; k++) {
        const lg_profile_t *p = inputs[k].profile;
        for (size_t i = 0; i < p->nedges; i++)
            edges[n++] = (named_edge_t){p->funcs[p->edges[i].caller].name,
                                        p->funcs[p->edges[i].callee].name,
                                        lg_scale_count(p->edges[i].weight, inputs[k].scale)};
    }
    return write_edges(edges, n, out, d);
}

lg_err_t lg_emit_callgraph_program(const lg_program_t *prog, FILE *out, lg_diag_t *d)
{
    named_edge_t *edges = malloc((prog->narcs ? prog->narcs : 1) * sizeof *edges);
    if (edges == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->narcs; i++)
        edges[i] = (named_edge_t){prog->fns[prog->arcs[i].caller].symbol,
                                  prog->fns[prog->arcs[i].callee].symbol, prog->arcs[i].weight};
    return write_edges(edges, prog->narcs, out, d);
}
