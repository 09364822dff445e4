/* outfile.c - write to a temporary file, rename into place when complete. */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Suffix mkstemp fills in; the temporary sits beside the target so rename() stays atomic. */
#define LG_OUTFILE_TMP_SUFFIX ".lorgen-tmp.XXXXXX"

lg_err_t lg_outfile_open(lg_outfile_t *o, const char *path, lg_diag_t *d)
{
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    if (o->path == NULL)
        return LG_ENOMEM;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return LG_OK;
    }
    /* A device or pipe (/dev/null, /dev/stdout, a FIFO) is written in place: renaming a
     * temporary file over it would replace the device node with a regular file. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->f = fopen(path, "w");
        if (o->f == NULL) {
            int e = errno;
            lg_outfile_abort(o);
            return lg_diag_fail(d, LG_EIO, path, "cannot write output: %s", strerror(e));
        }
        return LG_OK;
    }
    size_t n = strlen(path) + sizeof LG_OUTFILE_TMP_SUFFIX;
    o->tmp = malloc(n);
    if (o->tmp == NULL) {
        lg_outfile_abort(o);
        return LG_ENOMEM;
    }
    snprintf(o->tmp, n, "%s%s", path, LG_OUTFILE_TMP_SUFFIX);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        lg_outfile_abort(o);
        return lg_diag_fail(d, LG_EIO, path, "cannot create output: %s", strerror(e));
    }
    /* mkstemp makes the file 0600; an output should get the usual mode under the umask. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (o->f == NULL) {
        int e = errno;
        close(fd);
        lg_outfile_abort(o);
        return lg_diag_fail(d, LG_EIO, path, "cannot write output: %s", strerror(e));
    }
    return LG_OK;
}

lg_err_t lg_outfile_commit(lg_outfile_t *o, lg_diag_t *d)
{
    lg_err_t err = LG_OK;
    if (o->tmp == NULL) { /* stdout, or a device or pipe written in place */
        bool on_stdout = o->f == stdout;
        bool failed = fflush(o->f) != 0 || ferror(o->f);
        int e = errno;
        if (!on_stdout && fclose(o->f) != 0 && !failed) {
            failed = true;
            e = errno;
        }
        if (failed)
            err = lg_diag_fail(d, LG_EIO, on_stdout ? "<stdout>" : o->path, "write failed: %s",
                               strerror(e));
        o->f = NULL;
        free(o->path);
        o->path = NULL;
        return err;
    }
    bool failed = ferror(o->f) != 0;
    int e = errno;
    if (fclose(o->f) != 0 && !failed) {
        failed = true;
        e = errno;
    }
    o->f = NULL;
    if (failed) {
        err = lg_diag_fail(d, LG_EIO, o->path, "write failed: %s", strerror(e));
    } else if (rename(o->tmp, o->path) != 0) {
        err = lg_diag_fail(d, LG_EIO, o->path, "cannot replace output: %s", strerror(errno));
    } else {
        free(o->tmp);
        o->tmp = NULL;
    }
    lg_outfile_abort(o);
    return err;
}

void lg_outfile_abort(lg_outfile_t *o)
{
    if (o->f != NULL && o->f != stdout)
        fclose(o->f);
    if (o->tmp != NULL)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
