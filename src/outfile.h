/* outfile.h - outputs that appear whole or not at all.
 *
 * An output is written to a temporary file in the target's directory and renamed over the target
 * only by lg_outfile_commit, so a failed run leaves an existing output untouched and never a
 * partial one. "-" writes to standard output instead, and a target that exists but is not a
 * regular file (/dev/null, a FIFO) is written in place; there is no atomicity in those cases.
 */
#ifndef LG_OUTFILE_H
#define LG_OUTFILE_H

#include "diag.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct lg_outfile {
    char *path; /* target */
    char *tmp;  /* temporary file beside it; NULL for stdout or a non-regular target */
    FILE *f;
} lg_outfile_t;

/* Creates the temporary file; o->f is ready for writing. */
lg_err_t lg_outfile_open(lg_outfile_t *o, const char *path, lg_diag_t *d);
/* Flushes, closes and renames into place. On failure the temporary file is removed. */
lg_err_t lg_outfile_commit(lg_outfile_t *o, lg_diag_t *d);
/* Closes and removes the temporary file; the target is left as it was. Accepts a zeroed struct. */
void lg_outfile_abort(lg_outfile_t *o);

#endif
