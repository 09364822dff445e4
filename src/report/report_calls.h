/* report_calls.h - a clique's calls as the text and HTML reports list them: the calls inside it,
 * then those across its boundary, each list in row order (report_model.h), cut at the report's
 * row cap (-n) with the rest counted and summed.
 *
 * Which rows a list shows, in which order, what the rest weighs and what lies on the other side of
 * a boundary call are decided here once; a report only says how a list starts and ends and how a
 * row looks (lg_report_call_style_t), so the two forms list the same rows.
 */
#ifndef LG_REPORT_CALLS_H
#define LG_REPORT_CALLS_H

#include "report_model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The other side of a boundary row for people, "outside the cliques", "to clique 12" or "from
 * clique 3", fits this many bytes with its NUL. */
#define LG_REPORT_OTHER_SIDE_BYTES 32u

typedef struct lg_report_call_style {
    /* A list starts: its title ("calls inside", "calls across its boundary"); boundary: its rows
     * name the other side. */
    void (*begin)(FILE *out, const char *title, bool boundary);
    /* One row: the call and, in a boundary list, its other side (else NULL). */
    void (*row)(FILE *out, const lg_program_t *prog, const lg_arc_t *arc, const char *other_side);
    /* The rows past the cap: how many, and their summed weight. */
    void (*rest)(FILE *out, size_t more, uint64_t weight, bool boundary);
    /* A list ends; NULL: nothing to write. */
    void (*end)(FILE *out);
} lg_report_call_style_t;

/* Writes clique c's two lists of m (sorting their shown rows in m->rows) in style; a list
 * without rows is left out. Returns LG_OK, or LG_ENOMEM (lg_report_sort_rows) with a list perhaps
 * begun. */
lg_err_t lg_report_write_calls(const lg_report_input_t *in, const lg_report_model_t *m, size_t c,
                               const lg_report_call_style_t *style, FILE *out);

#endif
