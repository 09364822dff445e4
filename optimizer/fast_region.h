/* fast_region.h - choosing the code for a small fast memory region (ITCM, TCM, on-chip RAM): the
 * units that save the most fetch cost within the region's bytes.
 *
 * Definitions:
 *   candidate  a unit (groups.h: a function, or a fixed group taken whole) that can move
 *              (lg_fn_movable: not excluded, not stuck in a shared section), that ran, and that
 *              no earlier region took
 *   value      the fetch cost it carries: its counter1_self when some unit of the program has a
 *              self cost, else its hits (the weight placement gives heat, placement.c)
 *   weight     its bytes (the larger of its linked size and its input section's size, which
 *              is larger where the linker relaxed its calls: moved away, they may not shrink)
 *              rounded up to its alignment. Laid out by alignment descending from an
 *              address aligned for the first, every unit then starts aligned with no padding in
 *              between, so the weights' sum is the span the members take (lg_fast_region_t
 *              .members lists them in that order)
 *   budget     the region's bytes less its headroom
 *
 * The choice is a 0/1 knapsack. It is exact (dynamic programming over the budget, counted in
 * granules: the greatest common divisor of the candidates' weights) when candidates x granules
 * stays within LG_FAST_REGION_EXACT_CELLS. Otherwise it takes the candidates by value per byte
 * (ties: more value, then input order) while they fit, then improves the set by swapping one
 * member for one candidate left out while a swap gains, and keeps the single most valuable
 * candidate instead if that is worth more. That set is worth at least half the best one, and at
 * least the fractional bound (lg_fast_region_t.bound) less the value of the first candidate the
 * greedy pass could not fit.
 *
 * Ties: the exact solution takes, of the sets of equal value, one of the fewest bytes, the later
 * candidates (input order) only where they gain; the greedy pass orders equal ratios by value
 * and then input order. The same program gives the same set.
 */
#ifndef LG_FAST_REGION_H
#define LG_FAST_REGION_H

#include "diag.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest candidates x budget granules solved exactly (cells of the table; its choice bits take
 * an eighth of this in bytes: 4 MiB). */
#define LG_FAST_REGION_EXACT_CELLS ((uint64_t)1 << 25)

/* Rounds of the greedy improvement pass at most (one swap each): bounds its time at this many
 * times members x candidates. */
#define LG_FAST_REGION_MAX_SWAPS 64

typedef struct lg_fast_region {
    uint32_t *members; /* unit indexes, by alignment descending, then input order */
    size_t nmembers;
    uint64_t budget; /* bytes it could take */
    uint64_t used;   /* bytes the members take, their alignment padding included */
    uint64_t value;  /* the members' summed value */
    uint64_t bound;  /* no set is worth more: value when exact, else the fractional bound */
    uint64_t candidates_value; /* summed value of every candidate */
    bool exact;                /* solved by dynamic programming */
    bool counters;             /* values are counter1_self, not hits */
} lg_fast_region_t;

void lg_fast_region_init(lg_fast_region_t *r);
void lg_fast_region_destroy(lg_fast_region_t *r);

/* The budget of a region of size bytes less headroom_percent (0 .. 100) of them, rounded down. */
uint64_t lg_fast_region_budget(uint64_t size, double headroom_percent);

/* The weight of a unit (bytes rounded up to its alignment). */
uint64_t lg_fast_region_weight(const lg_fn_t *f);

/* Whether prog uses counter1_self as value (some function has a self cost). */
bool lg_fast_region_counters(const lg_program_t *prog);

/* The value of unit f: its counter1_self when counters (lg_fast_region_counters), else its
 * hits. */
static inline uint64_t lg_fast_region_value(const lg_fn_t *f, bool counters)
{
    return counters ? f->counter1_self : f->hits;
}

/* Whether unit f is a candidate (see the definitions; taken: an earlier region took it), what
 * the choice weighs, and what the CLI's bounds on the choice look at. */
static inline bool lg_fast_region_candidate(const lg_fn_t *f, bool counters, bool taken)
{
    return !taken && lg_fn_movable(f) && lg_fast_region_value(f, counters) > 0;
}

/* Chooses r's members among prog's units for budget bytes. taken (NULL, or one flag per unit)
 * marks the units earlier regions took: they are no candidates. exact_cells is the limit of the
 * exact solution (LG_FAST_REGION_EXACT_CELLS; a test passes 0 to see the greedy pass). r is
 * overwritten; destroy it also after an error. */
lg_err_t lg_fast_region_choose(const lg_program_t *prog, const bool *taken, uint64_t budget,
                               uint64_t exact_cells, lg_fast_region_t *r, lg_diag_t *d);

#endif
