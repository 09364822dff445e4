/* cmd_callgraph.c - lorgen callgraph PROFILE... [ELF...]: the merged call graph of the profiles,
 * bound to the program when ELF files are given, as text, DOT or GraphML. */
#include "commands.h"

#include "inputs.h"
#include "messages.h"
#include "outputs.h"

#include <stdlib.h>

int lg_cli_cmd_callgraph(const lg_cli_options_t *o)
{
    if (!lg_cli_wants(o, LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR) | LG_CLI_GRAPH_OUTPUTS))
        lg_cli_usage_error("callgraph: give -o FILE (or -o - for standard output), --dot FILE or "
                           "--graphml FILE");
    lg_diag_t d;
    lg_diag_init(&d);
    lg_cli_inputs_t in;
    int status = lg_cli_load_profiled(o, "callgraph: expected at least one profile", NULL, &in, &d);
    lg_bind_input_t *binds = status == 0 ? lg_cli_bind_inputs(&in, o->normalize) : NULL;
    lg_program_t prog;
    lg_program_init(&prog);
    bool bound = false;
    if (status == 0 && in.nelf > 0) {
        if (lg_bind(binds, in.nprofiles, &in.elf, &prog, &d) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
        bound = status == 0;
        lg_cli_flush_diag(&d);
        if (bound)
            lg_cli_warn_unbound(&prog);
    }
    if (status == 0) {
        lg_write_input_t written = {
            .prog = bound ? &prog : NULL, .profiles = binds, .nprofiles = in.nprofiles};
        status = lg_cli_write_outputs(o, LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR) | LG_CLI_GRAPH_OUTPUTS,
                                      LG_OUTPUT_CALLGRAPH, &written, NULL, &d);
    }
    free(binds);
    lg_program_destroy(&prog);
    lg_cli_inputs_destroy(&in);
    lg_diag_destroy(&d);
    return status;
}
