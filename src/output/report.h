/* report.h - the clique report: what a person reads to review a link order.
 *
 * A summary first (inputs, functions bound and unbound, cache geometry, hot code against the
 * cache, estimated misses before and after with what the estimate leaves out and how well it
 * ranked layouts on the benchmark), the cliques by placement's weight (self cost when the
 * profiles give one, else hits), then one block per clique in link order (size and cache fill,
 * hits and weight, its functions with size, hits, weight and shares, the heaviest calls inside
 * it and across its boundary), then what was left out and why. Fixed-width
 * columns; rows sorted by weight with ties broken by name; max_rows caps every table, whose
 * TOTAL line still counts every row; so the report is byte-for-byte stable.
 *
 * The same facts for tools and as a picture: report_json.h, report_html.h.
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
    const lg_lor_t *lor;             /* for the list of inputs */
    const lg_bind_input_t *profiles; /* the profiles with the scale each was merged at */
    size_t nprofiles;
    bool normalized; /* scales include per-profile normalization (lg_bind_normalize) */
    size_t max_rows; /* rows per edge table and per left-out list; 0 = all */
    /* Estimated misses (lorgen eval's model) of the linked ELF's order and of the new one, when
     * `estimated`; not estimated without a linked ELF (no addresses to start from). */
    uint64_t misses_before, misses_after;
    bool estimated; /* misses_before and misses_after hold an estimate */
} lg_report_input_t;

lg_err_t lg_report_write(const lg_report_input_t *in, FILE *out);

#endif
