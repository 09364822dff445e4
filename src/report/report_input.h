/* report_input.h - what every report form (text, JSON, HTML) is given: the program, its layout
 * and .LOR, the profiles, and the estimate. Apart from report.h so that the facts the forms
 * share (report_model.h) sit below the writers that print them. */
#ifndef LG_REPORT_INPUT_H
#define LG_REPORT_INPUT_H

#include "bind.h"
#include "layout.h"
#include "lor.h"
#include "profile.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
