/* hotspots.h - bind a profile's per-position costs (instruction addresses) to offsets inside
 * the program's functions, so that placement sees where inside a large function its time goes,
 * and its jumps likewise, so that it sees in which order those places run.
 *
 * A position is an instruction address of the profiled run. It lands in a function when
 *   function address + bias <= position < function address + bias + size
 * where the bias is the load offset of the profiled run: 0 for a fixed-address executable, the
 * load base for a position-independent one (valgrind loads PIEs at 0x108000). The bias is not in
 * the profile, so it is chosen from the data: the candidates are 0 and, for the functions with
 * the most position cost, the page-aligned distance between their lowest position and their
 * address; the candidate under which the most cost lands inside its own function wins (ties: the
 * smaller bias). Costs that land outside their function (another build was profiled) are dropped
 * and counted. Source-line positions need the debug line tables to become offsets; they are not
 * used yet and are counted as dropped.
 *
 * A jump binds under the same bias when both its source and its target land inside the function
 * of its source (lg_hotjump_t): a jump that leaves it (a longjmp, a jump callgrind saw go into
 * another function, another build) says nothing about the order inside one function and is
 * dropped and counted, as are the jumps of unbound functions.
 */
#ifndef LG_HOTSPOTS_H
#define LG_HOTSPOTS_H

#include "diag.h"
#include "profile.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Alignment of a load bias: the page size of every target lorgen serves. */
#define LG_HOTSPOT_BIAS_ALIGN 4096u /* bytes */
/* Functions (those with the most position cost) whose distance to their profile positions is
 * tried as the load bias. */
#define LG_HOTSPOT_BIAS_CANDIDATES 16u /* functions */

/* What binding one profile's positions did. */
typedef struct lg_hotspot_stats {
    uint64_t bias;         /* load bias chosen (see above) */
    size_t bound;          /* positions that landed inside their function */
    size_t dropped;        /* positions outside their function, of unbound functions, or lines */
    uint64_t dropped_cost; /* their summed cost */
    /* Of dropped_cost: positions outside a bound function whose symbol name other functions
     * share (LG_FN_AMBIGUOUS_NAME), such as same-named statics a profile without debug
     * information keeps as one function. */
    uint64_t dropped_shared_name_cost;
    size_t jumps_bound;   /* jumps whose source and target landed inside its function */
    size_t jumps_dropped; /* jumps of unbound functions, or with an end outside the function */
} lg_hotspot_stats_t;

/* Appends prof's per-position costs to p->hotspots (capacity *cap), for the profile functions
 * that map[i] (>= 0) binds to a program function, costs multiplied by scale. The program's
 * functions need addresses (a linked ELF among the inputs); without them nothing binds.
 * Returns LG_OK or LG_ENOMEM. */
lg_err_t lg_hotspots_bind(lg_program_t *p, size_t *cap, const lg_profile_t *prof,
                          const int64_t *map, double scale, lg_hotspot_stats_t *stats);

/* Appends prof's jumps to p->hotjumps (capacity *cap) as offsets, for the jumps whose source and
 * target land inside the program function map[func] (>= 0), counts multiplied by scale. Call it
 * after lg_hotspots_bind with the same profile and its stats: the bias is stats->bias, and it
 * sets stats->jumps_bound and jumps_dropped. Returns LG_OK or LG_ENOMEM. O(jumps). */
lg_err_t lg_hotspots_bind_jumps(lg_program_t *p, size_t *cap, const lg_profile_t *prof,
                                const int64_t *map, double scale, lg_hotspot_stats_t *stats);


#endif
