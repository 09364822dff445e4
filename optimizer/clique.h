/* clique.h - the "Call Proximity Hit Order" pass: partition the executed functions into cliques
 * that each fit the instruction cache, callers next to their callees, hottest clique first.
 * The algorithm, its definitions and its tie rules are described in optimizer/clique.c.
 */
#ifndef LG_CLIQUE_H
#define LG_CLIQUE_H

#include "diag.h"
#include "layout.h"
#include "program.h"

/* Name the pass leaves in lg_layout_t.algorithm. */
#define LG_CLIQUE_ALGORITHM "cliques"

/* Fills out (initialised by the caller with lg_layout_init, and empty) with the cliques of prog
 * for the cache geo: out->geometry = *geo, out->algorithm = LG_CLIQUE_ALGORITHM, the cliques in
 * link order, the never-executed functions in out->cold and the executed but unmovable ones in
 * out->excluded, both in input order. Every executed movable function is in exactly one clique;
 * every clique has bytes <= geo->cache_size except single-function LG_CLIQUE_OVERSIZED ones,
 * each reported by a warning in d. prog and geo are only read; out's arrays belong to the caller
 * (lg_layout_destroy). The result depends only on prog and geo, never on memory addresses.
 * Returns LG_OK, or LG_EINVAL (bad geometry or arcs), LG_ELIMIT or LG_ENOMEM with a
 * diagnostic in d; on error out is left empty.
 * Time: O((V + E) log (V + E)) for V functions and E arcs; memory O(V + E). */
lg_err_t lg_clique_partition(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                             lg_diag_t *d);

#endif
