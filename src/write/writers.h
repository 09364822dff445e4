/* writers.h - every file lorgen writes, behind one function shape.
 *
 * A run fills one lg_write_input_t with what it computed; the writer of each output kind reads
 * the part it writes from and is called as lg_writers[kind](in, out, d). The typed entry points
 * (lg_lor_write, lg_emit_ld_script, lg_report_write_html, ...) stay for callers that hold only
 * the one input they need.
 */
#ifndef LG_WRITERS_H
#define LG_WRITERS_H

#include "bind.h"
#include "diag.h"
#include "lor.h"
#include "program.h"
#include "report.h"

#include <stddef.h>
#include <stdio.h>

/* The output kinds, in the order lorgen writes and checks them. */
typedef enum lg_output {
    LG_OUTPUT_LOR,              /* the .LOR link-order file */
    LG_OUTPUT_LD_SCRIPT,        /* GNU ld -T script (emit_ld.h) */
    LG_OUTPUT_LD_INCLUDE,       /* GNU ld INCLUDE fragment */
    LG_OUTPUT_SECTION_ORDERING, /* GNU ld 2.43+ --section-ordering-file */
    LG_OUTPUT_GOLD,             /* gold --section-ordering-file (emit_order.h) */
    LG_OUTPUT_LLD,              /* lld --symbol-ordering-file */
    LG_OUTPUT_REPORT,           /* the text report (report.h) */
    LG_OUTPUT_REPORT_HTML,      /* report_html.h */
    LG_OUTPUT_REPORT_JSON,      /* report_json.h */
    LG_OUTPUT_DOT,              /* the call graph for Graphviz (emit_graph.h) */
    LG_OUTPUT_GRAPHML,          /* the call graph as GraphML */
    LG_OUTPUT_CALLGRAPH,        /* lld's --call-graph-ordering-file (emit_callgraph.h) */
    LG_OUTPUT_COUNT
} lg_output_t;

/* What a run hands its writers. Each kind reads only its part:
 *   lor                     LOR, LD_SCRIPT, LD_INCLUDE, SECTION_ORDERING, GOLD, LLD
 *   prog                    LLD: the functions' other names, when given
 *   report                  REPORT, REPORT_HTML, REPORT_JSON
 *   prog or profiles        DOT, GRAPHML, CALLGRAPH: by ELF symbol from the bound program, or
 *                           (prog NULL) by profiled name from the profiles */
typedef struct lg_write_input {
    const lg_lor_t *lor;
    const lg_report_input_t *report;
    const lg_program_t *prog;
    const lg_bind_input_t *profiles;
    size_t nprofiles;
} lg_write_input_t;

/* Writes one output of in to out. Returns LG_OK or the writer's error, with diagnostics in d. */
typedef lg_err_t (*lg_writer_fn)(const lg_write_input_t *in, FILE *out, lg_diag_t *d);

/* The writer of each kind. */
extern const lg_writer_fn lg_writers[LG_OUTPUT_COUNT];

#endif
