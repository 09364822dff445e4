/* messages.h - what lorgen says on standard error: diagnostics, the notes of -v, usage errors,
 * and the exit statuses they end with.
 *
 * Every line starts with "lorgen: ". The verbosity (options.h: 0 errors only, 1 also warnings and
 * notes, 2 also the notes of -v) is set once, by main, and held here alone.
 */
#ifndef LG_CLI_MESSAGES_H
#define LG_CLI_MESSAGES_H

#include "diag.h"

/* Exit statuses (the manual page lists them). */
#define LG_EXIT_BAD_INPUT 1 /* bad input, or an output that could not be written */
#define LG_EXIT_USAGE 2     /* bad command line */
/* lorgen check: the linked ELF does not hold the functions in the order, or at the phases in
 * the cache line, that the .LOR asks. */
#define LG_EXIT_NOT_IN_ORDER 3

/* Sets what lg_cli_message and lg_cli_verbose show from now on (lg_cli_options_t.verbosity). */
void lg_cli_set_verbosity(int verbosity);

/* "lorgen: WHERE: SEVERITY: MESSAGE" (no "WHERE: " when where is NULL or empty). Warnings and
 * notes are not shown with -q. */
void lg_cli_message(lg_severity_t severity, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Shows every entry of d, then how many it dropped, and leaves d empty for the next step. */
void lg_cli_flush_diag(lg_diag_t *d);

/* "lorgen: MESSAGE": what lorgen is doing, shown only with -v. */
void lg_cli_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "lorgen: MESSAGE" and "Try 'lorgen --help'.", then exit status LG_EXIT_USAGE. */
_Noreturn void lg_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
