/* callgraph.h - the program's weighted call graph behind an opaque handle: each function's
 * neighbours with the weights between them, for the ordering passes.
 *
 * Node i is lg_program_t.fns[i]; every arc of the program is one directed edge caller -> callee
 * carrying its weight (self arcs included). The queries give each node's neighbours with the
 * undirected weight the clique pass groups by, and each node's total outgoing and incoming weight.
 *
 * Definitions:
 *   directed weight    w(u->v): the weight of the arc u -> v, 0 if there is none (arcs listed
 *                      twice are summed)
 *   undirected weight  w(u,v) = w(u->v) + w(v->u) for u != v, saturating at UINT64_MAX; self arcs
 *                      never make a neighbour
 *   degree bound       the number of non-self arcs touching a node: no node has more neighbours,
 *                      so it sizes the buffer a neighbour query fills
 *
 * Weights are exact 64-bit integers, saturating at UINT64_MAX where they add up. The graph is
 * lorgen's own compact lists, not an igraph_t: the neighbour query is the only one the passes
 * make, and igraph serves where it does graph work, the DOT and GraphML exports
 * (src/report/emit_graph.c; optimizer/callgraph.c says why).
 */
#ifndef LG_CALLGRAPH_H
#define LG_CALLGRAPH_H

#include "diag.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Opaque: each node's callees and callers in sorted lists, and its weight totals
 * (optimizer/callgraph.c). */
typedef struct lg_callgraph lg_callgraph_t;

/* One neighbour of a queried node q. */
typedef struct lg_cg_neighbour {
    uint32_t node;   /* index into lg_program_t.fns, never q */
    uint64_t out;    /* w(q -> node) */
    uint64_t in;     /* w(node -> q) */
    uint64_t weight; /* w(q, node) = out + in, saturating */
} lg_cg_neighbour_t;

/* Builds the call graph of prog into a new *out (the caller frees it with lg_cg_free). prog is
 * only read, and its arcs must stay as they are until the graph is freed: when they are in
 * program.h's (caller, callee) order the graph reads them in place instead of keeping a copy.
 * On error *out is NULL and d says why: LG_EINVAL for an arc whose caller or callee is not a
 * function of prog, LG_ELIMIT for more functions than uint32_t indexes, LG_ENOMEM.
 * Time and memory: O(V + E) for V functions and E arcs. */
lg_err_t lg_cg_new(const lg_program_t *prog, lg_callgraph_t **out, lg_diag_t *d);

/* Frees g and everything it holds; accepts NULL. */
void lg_cg_free(lg_callgraph_t *g);

/* Number of nodes (= prog->nfns at build time). O(1). */
size_t lg_cg_node_count(const lg_callgraph_t *g);

/* Number of directed edges (= prog->narcs at build time, self arcs included). O(1). */
size_t lg_cg_arc_count(const lg_callgraph_t *g);

/* Degree bound of node (< lg_cg_node_count): how many entries lg_cg_neighbours may write.
 * O(log k) for k arcs out of node. */
size_t lg_cg_degree_bound(const lg_callgraph_t *g, uint32_t node);

/* Largest degree bound over all nodes (0 for a graph without non-self arcs): one buffer of this
 * many entries serves every neighbour query. O(1). */
size_t lg_cg_max_degree_bound(const lg_callgraph_t *g);

/* Writes the distinct neighbours of node (< lg_cg_node_count) into buf, which the caller owns and
 * which has room for lg_cg_degree_bound(g, node) entries, in ascending node order, and returns
 * how many it wrote. Neighbours joined only by zero-weight arcs are listed with weight 0.
 * Time: O(k) for k = degree bound. Does not allocate. */
size_t lg_cg_neighbours(const lg_callgraph_t *g, uint32_t node, lg_cg_neighbour_t *buf);

/* Sum of the weights of every arc leaving node / entering node, self arcs included, saturating
 * at UINT64_MAX. O(1). */
uint64_t lg_cg_out_weight(const lg_callgraph_t *g, uint32_t node);
uint64_t lg_cg_in_weight(const lg_callgraph_t *g, uint32_t node);

#endif
