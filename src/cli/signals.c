/* signals.c - the fatal signals, caught to remove the outputs' temporary files first. */
#include "signals.h"

#include "outfile.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

static const int fatal_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM};

static void on_fatal_signal(int sig)
{
    lg_outfile_remove_temporaries();
    /* SA_RESETHAND has restored the default action, and the signal stays blocked until the
     * handler returns: then it ends lorgen. */
    raise(sig);
}

void lg_cli_catch_fatal_signals(void)
{
    /* A write past the file-size limit (ulimit -f) then fails with EFBIG, "File too large", and
     * is reported and cleaned up like every failed write instead of ending lorgen. */
    signal(SIGXFSZ, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        sigaddset(&sa.sa_mask, fatal_signals[i]);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
        struct sigaction old;
        /* Ignored from the start (nohup, SIGINT of a background job): left ignored. */
        if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(fatal_signals[i], &sa, NULL);
    }
}
