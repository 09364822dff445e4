/* main.c - the lorgen program: parses the command line (options.h), then runs the command it
 * names (commands.h). The CLI, src/cli, is the only place that prints or exits.
 *
 * Inputs are told apart by content: ELF files and ar archives are program inputs, anything else
 * must be a profile in a known format (or the one --format names for the next profile).
 * LINKER OUTPUTS: --ld-script (--ld), --ld-include, --section-ordering, --gold, --lld.
 * Exit status: 0 success, 1 bad input or failed output, 2 bad usage, 3 (check only) the order
 * did not take effect (messages.h).
 */
#include "commands.h"
#include "messages.h"
#include "options.h"
#include "progress_line.h"
#include "signals.h"

#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    lg_cli_options_t o;
    lg_cli_status_t parsed = lg_cli_parse(argc, argv, &o);
    if (parsed == LG_CLI_RUN)
        parsed = lg_cli_check_files(&o);
    lg_cli_set_verbosity(o.verbosity);
    switch (parsed) {
    case LG_CLI_RUN:
        break;
    case LG_CLI_HELP:
        lg_cli_write_help(stdout);
        lg_cli_options_destroy(&o);
        return 0;
    case LG_CLI_VERSION:
        puts(LG_CLI_VERSION_TEXT);
        lg_cli_options_destroy(&o);
        return 0;
    case LG_CLI_USAGE:
        lg_cli_usage_error("%s", o.error);
    case LG_CLI_NOMEM:
        fputs("lorgen: out of memory\n", stderr);
        lg_cli_options_destroy(&o);
        return LG_EXIT_BAD_INPUT;
    }
    lg_cli_catch_fatal_signals();
    lg_cli_progress_line_t progress_line = {0};
    if (o.verbosity >= 1 && isatty(STDERR_FILENO)) {
        o.load.progress = lg_cli_progress_line_update;
        o.load.progress_ctx = &progress_line;
    }
    static int (*const commands[])(const lg_cli_options_t *) = {
        [LG_CLI_OPTIMIZE] = lg_cli_cmd_optimize,   [LG_CLI_SCRIPT] = lg_cli_cmd_script,
        [LG_CLI_CALLGRAPH] = lg_cli_cmd_callgraph, [LG_CLI_FORMATS] = lg_cli_cmd_formats,
        [LG_CLI_EVAL] = lg_cli_cmd_eval,           [LG_CLI_CHECK] = lg_cli_cmd_check,
    };
    int status = commands[o.command](&o);
    lg_cli_options_destroy(&o);
    return status;
}
