/* placement.h - cache-aware placement: move the cliques of a layout to cache offsets where the
 * code that runs together does not share cache sets, filling the gaps with never-executed code.
 * The algorithm, its definitions, cost model and tie rules are described in
 * optimizer/placement.c.
 */
#ifndef LG_PLACEMENT_H
#define LG_PLACEMENT_H

#include "diag.h"
#include "layout.h"
#include "program.h"

/* Rewrites layout (the output of the clique pass or of any lg_order algorithm for prog) in
 * place so that hot code lands in the cache sets of geo where it conflicts least with hotter
 * code placed before it:
 *   * the hot cliques are put in link order by heat (hottest first; with hit counts only, the
 *     clique pass's order is kept), each clique's members keep their order;
 *   * before a clique, a gap may be opened: filled with never-executed movable functions taken
 *     from layout->cold, which become one clique flagged LG_CLIQUE_FILLER (hits 0) right before
 *     it, and any remainder becomes that clique's pad_before;
 *   * layout->section_align is set to the way size (cache_size / ways), the alignment the chosen
 *     offsets assume for the start of the ordered code;
 *   * one note in d reports the padding and the filler used, when a gap was opened.
 * layout->cliques and layout->cold are replaced by new arrays (the old ones are freed, the
 * member arrays of the hot cliques move over unchanged); layout->excluded, ->geometry and
 * ->algorithm are untouched. Every function stays in exactly one of cliques, cold or excluded;
 * cold keeps its input order; every clique's bytes and hits are recomputed (lg_place_after).
 * The layout is left unchanged when there is nothing to place (no cliques) or when placement
 * cannot matter: when the way size is one line or not a power of two (a note says why); when
 * the hot cliques laid out back to back fit one way, only section_align is set. prog and geo
 * are only read. The result depends only on prog, geo and layout.
 * Returns LG_OK; LG_EINVAL (bad geometry, a clique naming a function out of range or twice,
 * with a diagnostic), LG_ELIMIT (a layout spanning more than 2^62 bytes) or LG_ENOMEM, with
 * layout unchanged.
 * Time: O(N x L) per clique for N cache sets (way size / line size) and L lines of the clique
 * (at most N after folding), bounded overall by LG_PLACE_MAX_COST_TERMS, plus O(C log C) to
 * sort the C cold functions and O(C) per filled gap; memory O(N + functions). */
lg_err_t lg_place_for_cache(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *layout,
                            lg_diag_t *d);

/* Most conflict-cost terms (one line of a clique at one candidate offset) the whole pass
 * evaluates; a clique whose offsets would pass the bound is placed where it falls (no gap). */
#define LG_PLACE_MAX_COST_TERMS (1024u * 1024u * 1024u) /* terms: about a second */

/* Most padding the pass adds, as a percentage of the hot cliques' bytes: a gap whose unfilled
 * remainder would pass it is not opened. */
#define LG_PLACE_MAX_PAD_PERCENT 50u /* % */

#endif
