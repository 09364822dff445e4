/* progress_line.h - the line that shows, on a terminal, how far a long load has got:
 *
 *   lorgen: reading trace.BIN: 42% (1.2 GiB of 2.9 GiB)
 *
 * rewritten in place at most every LG_CLI_PROGRESS_INTERVAL_MS and cleared when the load ends,
 * so that the messages after it start on a clean line. main installs it (lg_load_options_t) only
 * when standard error is a terminal and -q is not given.
 */
#ifndef LG_CLI_PROGRESS_LINE_H
#define LG_CLI_PROGRESS_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Least time between two updates of the line, in milliseconds: often enough to show that a long
 * load moves, rarely enough to cost nothing. A load that ends sooner shows no line at all. */
#define LG_CLI_PROGRESS_INTERVAL_MS 250

typedef struct lg_cli_progress_line {
    struct timespec last; /* of the last update, or of the load's start */
    int width;            /* characters on the terminal line now; 0 when none */
} lg_cli_progress_line_t;

/* Starts the interval for a new load: short loads never show the line. line may be NULL (no
 * line is shown), as may every lg_cli_progress_line_t argument below. */
void lg_cli_progress_line_start(lg_cli_progress_line_t *line);

/* The lg_progress_fn of the loaders; ctx is the lg_cli_progress_line_t. */
void lg_cli_progress_line_update(void *ctx, const char *path, uint64_t done, uint64_t total);

/* Blanks the line, if one is shown, and puts the cursor back at its start. */
void lg_cli_progress_line_clear(lg_cli_progress_line_t *line);

/* n bytes for people, into out (size bytes): "512 B", "42.0 MiB", "1.2 GiB". */
void lg_cli_format_bytes(uint64_t n, char *out, size_t size);

#endif
