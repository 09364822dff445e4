/* report.h - the clique report: what a person reads to review a link order.
 *
 * A summary first (inputs, functions bound and unbound, cache geometry, hot code against the
 * cache), then one block per clique (size and cache fill, hits, its functions with size, hits
 * and share, the heaviest calls inside it and across its boundary), then what was left out and
 * why. Fixed-width columns; rows sorted by weight with ties broken by name, so the report is
 * byte-for-byte stable.
 */
#ifndef LG_REPORT_H
#define LG_REPORT_H

#include "bind.h"
#include "diag.h"
#include "layout.h"
#include "lor.h"
#include "profile.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Rows per table when the caller does not say. */
#define LG_REPORT_ROWS_DEFAULT 10u

typedef struct lg_report_input {
    const lg_program_t *prog;
    const lg_layout_t *layout;
    const lg_lor_t *lor; /* for the list of inputs */
    const lg_bind_input_t *profiles; /* the profiles with the scale each was merged at */
    size_t nprofiles;
    bool normalized; /* scales include per-profile normalization (lg_bind_normalize) */
    size_t max_rows; /* rows per edge table and per left-out list; 0 = all */
    /* Estimated misses (lorgen eval's model) of the linked ELF's order and of the new one;
     * both 0 when not estimated (no linked ELF). */
    uint64_t misses_before, misses_after;
} lg_report_input_t;

lg_err_t lg_report_write(const lg_report_input_t *in, FILE *out);

#endif
