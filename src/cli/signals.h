/* signals.h - an interrupted lorgen leaves no temporary output file behind. */
#ifndef LG_CLI_SIGNALS_H
#define LG_CLI_SIGNALS_H

/* Catches the signals whose default action ends lorgen (SIGHUP, SIGINT, SIGQUIT, SIGPIPE,
 * SIGTERM): the handler removes the temporary files of the outputs (outfile.h), then raises the
 * signal again, so lorgen still ends by it and its parent (a shell, make) sees that. Signals
 * ignored from the start stay ignored. SIGXFSZ is ignored, so that a write past the file-size
 * limit fails like any other write. Call once, before the first output is opened. */
void lg_cli_catch_fatal_signals(void);

#endif
