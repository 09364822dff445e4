/* emit_graph.h - the weighted call graph for graph tools: Graphviz DOT and GraphML (Gephi,
 * yEd, networkx), written by igraph's own writers.
 *
 * Nodes are functions that ran or take part in a call; edges are caller -> callee calls.
 * Attributes:
 *   node  name (function name), label (the same, the label Graphviz and Gephi show), hits,
 *         bytes (its size; 0 when unknown: profiles without an ELF)
 *   edge  weight (calls, or samples for sampled call stacks)
 * igraph writes numbers as doubles: weights and hits above 2^53 lose their last digits.
 * Nodes are in the program's input order (profiles alone: order of first appearance), edges by
 * (caller, callee), so identical inputs give identical files.
 */
#ifndef LG_EMIT_GRAPH_H
#define LG_EMIT_GRAPH_H

#include "bind.h"
#include "diag.h"
#include "program.h"

#include <stdio.h>

typedef enum lg_graph_format {
    LG_GRAPH_DOT = 0,
    LG_GRAPH_GRAPHML = 1,
} lg_graph_format_t;

/* From a bound program, by ELF symbol name. Returns LG_OK, LG_ENOMEM, LG_EIO, or LG_EGRAPH
 * (igraph failed; why in d). */
lg_err_t lg_emit_graph_program(const lg_program_t *prog, lg_graph_format_t format, FILE *out,
                               lg_diag_t *d);

/* From profiles alone, by profiled name: functions and calls of one name are merged across
 * profiles, each profile's counts scaled by its scale. Same returns. */
lg_err_t lg_emit_graph_profiles(const lg_bind_input_t *inputs, size_t ninputs,
                                lg_graph_format_t format, FILE *out, lg_diag_t *d);

#endif
