/* report_regions.h - the fast regions (--fast-region) as every report form shows them, computed
 * once: each region's bytes and the share of the profile's cost it took, the hottest executed
 * code left out of every region with why, and the calls that cross between a region and the rest.
 *
 * Definitions:
 *   value          a function's fetch cost as the choice weighs it (lg_fast_region_counters):
 *                  its counter1_self when the program has self costs, else its hits
 *   crossing call  an arc whose caller and callee are not in the same region: one in a region
 *                  and the other in another region or in none
 *   row order      the left-out list hottest first (lg_report_key_cmp); the crossing calls in
 *                  the call tables' row order (report_model.h)
 */
#ifndef LG_REPORT_REGIONS_H
#define LG_REPORT_REGIONS_H

#include "linkfind.h"
#include "report_model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Marks a function in no region (region_of). */
#define LG_REPORT_NO_REGION LG_LINKFIND_NO_REGION

/* Reach of an Arm Thumb-2 BL, the call a Cortex-M compiler emits, either way (bytes): 16 MiB.
 * A call whose ends lie further apart needs a veneer from the linker or a long call. */
#define LG_REPORT_ARM_BL_REACH ((uint64_t)16 << 20)

typedef struct lg_report_regions {
    size_t nregions;      /* in->lor->nregions; 0: no fast region, nothing else is filled */
    bool counters;        /* value is counter1_self, not hits */
    uint64_t total_value; /* over every function of the program */
    uint64_t *value;      /* per region: its members' value */
    uint32_t *region_of;  /* per function: its region, or LG_REPORT_NO_REGION */
    uint64_t largest_budget;
    lg_report_key_t *left; /* executed functions in no region, hottest first (index: function) */
    size_t nleft;
    lg_report_row_t *crossing; /* crossing calls in row order */
    size_t ncrossing;
    bool arm; /* the program is Arm code (EM_ARM): a far crossing call needs a veneer */
} lg_report_regions_t;

/* Fills out (no prior initialisation needed; free with lg_report_regions_destroy, also after an
 * error) from in->lor's regions and in->prog. Returns LG_OK or LG_ENOMEM. O(F + A log A). */
lg_err_t lg_report_regions_build(const lg_report_input_t *in, lg_report_regions_t *out);

/* Why executed fn is in no region, one phrase. */
const char *lg_report_region_left_reason(const lg_report_regions_t *r, const lg_fn_t *fn);

/* The value of fn (see the definitions). */
uint64_t lg_report_region_value(const lg_report_regions_t *r, const lg_fn_t *fn);

/* What lies on side fn of a crossing call, for people: the region's name, or "the rest". */
const char *lg_report_region_side(const lg_report_input_t *in, const lg_report_regions_t *r,
                                  uint32_t fn);

/* What a crossing call needs on this machine, or NULL when nothing is known to be needed: on
 * Arm, a veneer or a long call once its ends lie beyond LG_REPORT_ARM_BL_REACH. */
const char *lg_report_region_crossing_note(const lg_report_regions_t *r);

void lg_report_regions_destroy(lg_report_regions_t *r);

#endif
