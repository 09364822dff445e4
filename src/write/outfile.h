/* outfile.h - outputs that appear whole or not at all.
 *
 * An output is written to a temporary file beside the file it replaces and renamed over it only
 * by lg_outfile_commit_all, once every output of the run has been written, so a failed run
 * leaves the existing outputs untouched and never a partial one. What an output replaces:
 *   a regular file    replaced by rename; the new file keeps the old one's permission bits, and
 *                     its owner and group where lorgen may set them. A file its owner may not
 *                     write (u-w), or that lorgen's user may not write, is refused
 *   a symbolic link   written through: the file it leads to is replaced and the link stays. A
 *                     link that leads nowhere is refused
 *   nothing           created with mode 0666 less the umask
 *   a device, a FIFO  written in place (/dev/null, a pipe), without atomicity
 *   "-"               standard output, written in place
 * Temporary files are registered while they exist, so that a signal handler can remove them
 * (lg_outfile_remove_temporaries).
 */
#ifndef LG_OUTFILE_H
#define LG_OUTFILE_H

#include "diag.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Most outputs open at once: the room in the table of temporary files a signal handler removes.
 * lorgen writes at most eleven outputs and sixteen fast-region fragments in one run. */
#define LG_OUTFILE_MAX_OPEN 32u

typedef struct lg_outfile {
    char *path;   /* as given: messages name it */
    char *target; /* the file replaced: path, or the file a symbolic link at path leads to */
    char *tmp;    /* temporary file beside target; NULL when written in place */
    char *backup; /* during lg_outfile_commit_all: a hard link keeping target's old contents */
    FILE *f;      /* what the writer writes to */
    int fd;       /* under f; -1 when closed */
    int error;    /* errno of the first failed write or close; 0 while none failed */
    bool existed; /* target existed when opened */
    bool renamed; /* during lg_outfile_commit_all: target replaced by the new contents */
} lg_outfile_t;

/* Resolves path (see above) and creates its temporary file; o->f is then ready for writing.
 * On failure o is left zeroed, with an error in d. */
lg_err_t lg_outfile_open(lg_outfile_t *o, const char *path, lg_diag_t *d);

/* Records in d that a writer failed on o with err: the system's reason when a write failed
 * ("No space left on device", "File too large"), else err's name. Returns err. */
lg_err_t lg_outfile_write_failed(const lg_outfile_t *o, lg_err_t err, lg_diag_t *d);

/* Finishes the n outputs of files (zeroed entries are skipped): every one is flushed, synced to
 * disk and closed, then each is renamed over its target. If any fails, no target is left
 * replaced: outputs renamed before the failure are put back from hard links of their old
 * contents (or removed when they did not exist). Catchable signals are held back while the
 * renames run, so that an interrupt comes after the last one. Every entry is zeroed afterwards.
 * Returns LG_OK or the first failure, recorded in d. */
lg_err_t lg_outfile_commit_all(lg_outfile_t *files, size_t n, lg_diag_t *d);

/* Closes and removes the temporary file; the target is left as it was. Accepts a zeroed struct. */
void lg_outfile_abort(lg_outfile_t *o);

/* Removes the temporary file of every output open now. Async-signal-safe: for a handler of a
 * signal that ends the process. */
void lg_outfile_remove_temporaries(void);

/* What names a file, to tell whether two names are one file: its device and inode when it
 * exists, else its directory's device and inode and its last path component. */
typedef struct lg_file_id {
    dev_t dev;
    ino_t ino;
    const char *leaf; /* NULL when the file exists; else points into the path given */
    bool known;       /* false when neither the file nor its directory exists */
    bool device;      /* a character device (/dev/null): written in place, nothing replaced */
} lg_file_id_t;

/* Identifies path (symbolic links followed, as open() follows them). */
lg_file_id_t lg_file_id(const char *path);
/* True when a and b are known and name one file. */
bool lg_file_id_same(const lg_file_id_t *a, const lg_file_id_t *b);

#endif
