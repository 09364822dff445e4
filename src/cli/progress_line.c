/* progress_line.c - the progress line of long loads on a terminal. */
#include "progress_line.h"

#include <inttypes.h>
#include <stdio.h>

void lg_cli_format_bytes(uint64_t n, char *out, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof *units) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(out, size, "%" PRIu64 " B", n);
    else
        snprintf(out, size, "%.1f %s", v, units[u]);
}

void lg_cli_progress_line_start(lg_cli_progress_line_t *line)
{
    if (line != NULL)
        clock_gettime(CLOCK_MONOTONIC, &line->last);
}

void lg_cli_progress_line_update(void *ctx, const char *path, uint64_t done, uint64_t total)
{
    lg_cli_progress_line_t *p = ctx;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms =
        (long long)(now.tv_sec - p->last.tv_sec) * 1000 + (now.tv_nsec - p->last.tv_nsec) / 1000000;
    if (ms < LG_CLI_PROGRESS_INTERVAL_MS)
        return;
    p->last = now;
    char have[32], all[32];
    lg_cli_format_bytes(done, have, sizeof have);
    lg_cli_format_bytes(total, all, sizeof all);
    unsigned percent = total > 0 ? (unsigned)(done * 100.0 / (double)total) : 0;
    int n = fprintf(stderr, "\rlorgen: reading %s: %u%% (%s of %s)", path, percent, have, all);
    /* Blank out what a longer previous line left behind. */
    if (n > 0 && n - 1 < p->width)
        fprintf(stderr, "%*s", p->width - (n - 1), "");
    if (n > 0 && n - 1 > p->width)
        p->width = n - 1;
    fflush(stderr);
}

void lg_cli_progress_line_clear(lg_cli_progress_line_t *line)
{
    if (line == NULL || line->width == 0)
        return;
    fprintf(stderr, "\r%*s\r", line->width, "");
    fflush(stderr);
    line->width = 0;
}
