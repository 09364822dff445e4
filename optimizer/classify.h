/* classify.h - sort every function of a program into cold, excluded or candidate, the one
 * classification all ordering algorithms share (the rules of optimizer/clique.c, step 1).
 *
 * Definitions:
 *   executed     hits > 0, or an arc of weight > 0 into or out of the function (self arcs
 *                included)
 *   movable      lg_fn_movable (program.h): size > 0 and a known section of its own
 *   cold         never executed: follows the ordered functions, in input order
 *   excluded     executed but not movable: the linker scripts cannot place it, input order
 *   candidate    executed and movable: what an ordering algorithm orders
 *   rank         (input_order, index in fns): the total order that breaks every remaining tie;
 *                lg_rank_key packs it into one integer
 *   padded size  a function's span (its size, and before it a phased function's lead:
 *                lg_fn_span) rounded up to its alignment (align 0 or 1: no padding)
 *   oversized    a candidate whose padded size exceeds the instruction cache
 */
#ifndef LG_CLASSIFY_H
#define LG_CLASSIFY_H

#include "callgraph.h"
#include "diag.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

typedef enum lg_fn_class {
    LG_CLASS_COLD = 0,      /* never executed */
    LG_CLASS_EXCLUDED = 1,  /* executed, not movable */
    LG_CLASS_CANDIDATE = 2, /* executed and movable */
} lg_fn_class_t;

typedef struct lg_classes {
    uint8_t *cls;         /* per function: lg_fn_class_t */
    uint64_t *padded;     /* per function: padded size in bytes (0 for non-candidates) */
    uint32_t *candidates; /* candidates in rank order */
    size_t ncandidates;
    uint32_t *cold; /* cold functions in rank order */
    size_t ncold;
    uint32_t *excluded; /* excluded functions in rank order */
    size_t nexcluded;
} lg_classes_t;

/* Alignments at or below this, in bytes, add no padding (0 and 1 both mean "unaligned"). */
#define LG_ALIGN_NO_PADDING 1u

/* Rank key: input_order in the high half, the index in the low half. Distinct functions have
 * distinct keys, so comparing keys is a total order. */
static inline uint64_t lg_rank_key(const lg_program_t *p, uint32_t i)
{
    return ((uint64_t)p->fns[i].input_order << 32) | i;
}

/* The function index a rank key was made from. */
static inline uint32_t lg_rank_index(uint64_t key)
{
    return (uint32_t)(key & UINT32_MAX);
}

/* f's span (lg_fn_span: lead and size) rounded up to a multiple of its alignment, saturating at
 * UINT64_MAX. */
uint64_t lg_padded_size(const lg_fn_t *f);

/* Classifies every function of prog, using the exact in and out totals of cg (built from prog
 * by lg_cg_new, which also checked the arcs). Fills *out (overwritten; the caller frees it with
 * lg_classes_destroy, also after an error). Returns LG_OK or LG_ENOMEM with a diagnostic in d
 * located at `where`. Time O(V log V), memory O(V). */
lg_err_t lg_classify(const lg_program_t *prog, const lg_callgraph_t *cg, lg_classes_t *out,
                     const char *where, lg_diag_t *d);

/* Frees everything; accepts a zeroed struct. */
void lg_classes_destroy(lg_classes_t *c);

/* Records the warning for the oversized candidate fn (padded size `padded`, cache `cache`
 * bytes) at `where`; `consequence` ends the sentence ("it gets a clique of its own"). */
void lg_warn_oversized(lg_diag_t *d, const char *where, const lg_fn_t *fn, uint64_t padded,
                       uint64_t cache, const char *consequence);

#endif
