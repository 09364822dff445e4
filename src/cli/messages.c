/* messages.c - lorgen's diagnostics on standard error, filtered by the verbosity. */
#include "messages.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* 0 errors and alerts only (-q), 1 also warnings and notes (default), 2 also the notes of -v. */
static int verbosity = 1;

void lg_cli_set_verbosity(int v)
{
    verbosity = v;
}

void lg_cli_message(lg_severity_t severity, const char *where, const char *fmt, ...)
{
    static const char *const names[] = {"note", "warning", "error", "warning"};
    if (severity != LG_ERROR && severity != LG_ALERT && verbosity < 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("lorgen: ", stderr);
    if (where != NULL && *where != '\0')
        fprintf(stderr, "%s: ", where);
    fprintf(stderr, "%s: ", names[severity]);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void lg_cli_flush_diag(lg_diag_t *d)
{
    for (size_t i = 0; i < d->count; i++)
        lg_cli_message(d->entries[i].severity, d->entries[i].where, "%s", d->entries[i].message);
    if (d->dropped > 0)
        lg_cli_message(LG_NOTE, "", "%zu more messages not shown", d->dropped);
    lg_diag_destroy(d);
    lg_diag_init(d);
}

void lg_cli_verbose(const char *fmt, ...)
{
    if (verbosity < 2)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("lorgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

_Noreturn void lg_cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("lorgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'lorgen --help'.\n", stderr);
    va_end(ap);
    exit(LG_EXIT_USAGE);
}
