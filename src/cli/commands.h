/* commands.h - lorgen's commands, one function each, indexed by lg_cli_command_t in main.c.
 *
 *   lorgen [options] PROFILE... ELF... -o OUT.lor [LINKER OUTPUTS] [--report F]   cmd_optimize.c
 *   lorgen script FILE.lor ELF... [LINKER OUTPUTS]                                cmd_lor.c
 *   lorgen check FILE.lor RELINKED-ELF [OBJECTS...]                               cmd_lor.c
 *   lorgen callgraph PROFILE... [ELF...] [-o FILE] [--dot FILE] [--graphml FILE]  cmd_callgraph.c
 *   lorgen eval PROFILE... ELF... [--lor FILE]                                    cmd_eval.c
 *   lorgen formats                                                                cmd_formats.c
 *
 * Each takes the parsed command line and returns the exit status (messages.h); a usage error
 * found only now exits from inside.
 */
#ifndef LG_CLI_COMMANDS_H
#define LG_CLI_COMMANDS_H

#include "options.h"

int lg_cli_cmd_optimize(const lg_cli_options_t *o);
int lg_cli_cmd_script(const lg_cli_options_t *o);
int lg_cli_cmd_check(const lg_cli_options_t *o);
int lg_cli_cmd_callgraph(const lg_cli_options_t *o);
int lg_cli_cmd_eval(const lg_cli_options_t *o);
int lg_cli_cmd_formats(const lg_cli_options_t *o);

#endif
