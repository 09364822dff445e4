/* outputs.h - the output files a command line names, written whole or not at all.
 *
 * A command names its outputs as a set of kinds, one bit per lg_output_t (writers.h); -o is
 * always at LG_OUTPUT_LOR, and each command says which writer it means (the .LOR, or
 * callgraph's call graph).
 */
#ifndef LG_CLI_OUTPUTS_H
#define LG_CLI_OUTPUTS_H

#include "diag.h"
#include "options.h"
#include "outfile.h"
#include "writers.h"

#include <stdbool.h>

#define LG_CLI_OUTPUT_BIT(kind) (1u << (kind))
/* --ld-script, --ld-include, --section-ordering, --gold, --lld */
#define LG_CLI_LINKER_OUTPUTS                                                                      \
    (LG_CLI_OUTPUT_BIT(LG_OUTPUT_LD_SCRIPT) | LG_CLI_OUTPUT_BIT(LG_OUTPUT_LD_INCLUDE) |            \
     LG_CLI_OUTPUT_BIT(LG_OUTPUT_SECTION_ORDERING) | LG_CLI_OUTPUT_BIT(LG_OUTPUT_GOLD) |           \
     LG_CLI_OUTPUT_BIT(LG_OUTPUT_LLD))
/* --report, --report-html, --report-json */
#define LG_CLI_REPORT_OUTPUTS                                                                      \
    (LG_CLI_OUTPUT_BIT(LG_OUTPUT_REPORT) | LG_CLI_OUTPUT_BIT(LG_OUTPUT_REPORT_HTML) |              \
     LG_CLI_OUTPUT_BIT(LG_OUTPUT_REPORT_JSON))
/* --dot, --graphml */
#define LG_CLI_GRAPH_OUTPUTS                                                                       \
    (LG_CLI_OUTPUT_BIT(LG_OUTPUT_DOT) | LG_CLI_OUTPUT_BIT(LG_OUTPUT_GRAPHML))

/* True when o names an output among kinds. */
bool lg_cli_wants(const lg_cli_options_t *o, unsigned kinds);

/* Writes the outputs o names among kinds, -o with the writer of main_kind, each to a temporary
 * file, then renames them all into place; if any write fails, none is renamed and existing
 * outputs stay as they were (outfile.h). files (LG_OUTFILE_MAX_OPEN of them, or NULL for none)
 * may hold outputs written already from LG_CLI_OUTPUTS on, the fast regions' fragments
 * (fast.h), which are renamed or aborted with the others; the output of kind k is opened at
 * files[k]. Every entry is closed and zeroed afterwards. Shows the messages of d. Returns 0 or
 * LG_EXIT_BAD_INPUT. */
int lg_cli_write_outputs(const lg_cli_options_t *o, unsigned kinds, lg_output_t main_kind,
                         const lg_write_input_t *in, lg_outfile_t *files, lg_diag_t *d);

#endif
