/* outfile.c - write to a temporary file, rename into place when every output is complete.
 *
 * Writers get a stdio stream (fopencookie, a GNU extension) whose writes go through
 * write_cookie, so that the errno of the first failed write is kept: stdio alone only remembers
 * that a write failed, and by the time the writer returns, errno says something else.
 *
 * The table of temporary files (`temporaries`) is what lg_outfile_remove_temporaries reads from
 * a signal handler. It is only changed with every signal blocked, so a handler never sees it
 * half-updated; a name is made (mkstemp) and entered in one blocked stretch, and leaves the
 * table before it is freed. Its entries are lock-free atomics, which C11 lets a handler read.
 */
#define _GNU_SOURCE /* fopencookie */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Suffix mkstemp fills in; the temporary sits beside the target so rename() stays atomic. */
#define LG_OUTFILE_TMP_SUFFIX ".lorgen-tmp.XXXXXX"
/* Suffix of the hard link that keeps a replaced output's old contents while the renames run. */
#define LG_OUTFILE_OLD_SUFFIX ".lorgen-old.XXXXXX"
/* Permission bits an output keeps from the file it replaces: set-user-ID, set-group-ID and
 * sticky are dropped, they do not belong on a text file lorgen wrote. */
#define LG_OUTFILE_KEPT_MODE 0777u
/* Mode of a new output, less the umask. */
#define LG_OUTFILE_NEW_MODE 0666u

/* Temporary files that exist now, for lg_outfile_remove_temporaries; NULL marks a free slot. */
static const char *_Atomic temporaries[LG_OUTFILE_MAX_OPEN];
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "a signal handler reads the table");

static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, old);
}

static void restore_signals(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* Creates the temporary file named by the template tmp (mkstemp) and enters it in the table, with
 * signals blocked from before the name exists until it is entered. Returns the descriptor, or -1
 * with errno set (EMFILE when the table is full). */
static int create_temporary(char *tmp)
{
    sigset_t old;
    block_signals(&old);
    size_t slot = 0;
    while (slot < LG_OUTFILE_MAX_OPEN && temporaries[slot] != NULL)
        slot++;
    int fd = -1;
    if (slot == LG_OUTFILE_MAX_OPEN)
        errno = EMFILE;
    else
        fd = mkstemp(tmp);
    if (fd >= 0)
        temporaries[slot] = tmp;
    int e = errno;
    restore_signals(&old);
    errno = e;
    return fd;
}

static void unregister_temporary(const char *tmp)
{
    sigset_t old;
    block_signals(&old);
    for (size_t i = 0; i < LG_OUTFILE_MAX_OPEN; i++)
        if (temporaries[i] == tmp)
            temporaries[i] = NULL;
    restore_signals(&old);
}

void lg_outfile_remove_temporaries(void)
{
    /* unlink() is async-signal-safe; nothing else is called. */
    for (size_t i = 0; i < LG_OUTFILE_MAX_OPEN; i++) {
        const char *tmp = temporaries[i];
        if (tmp != NULL)
            unlink(tmp);
    }
}

/* ---- The stream writers write to ---------------------------------------------------------- */

static ssize_t write_cookie(void *cookie, const char *buf, size_t size)
{
    lg_outfile_t *o = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(o->fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (o->error == 0)
                o->error = n < 0 ? errno : EIO;
            break;
        }
        done += (size_t)n;
    }
    /* Fewer bytes than asked marks the stream as failed. */
    return (ssize_t)done;
}

/* Puts a stream over o->fd; the stream does not close the descriptor. */
static lg_err_t open_stream(lg_outfile_t *o, lg_diag_t *d)
{
    cookie_io_functions_t io = {.read = NULL, .write = write_cookie, .seek = NULL, .close = NULL};
    o->f = fopencookie(o, "w", io);
    if (o->f == NULL)
        return lg_diag_fail(d, LG_ENOMEM, o->path, "cannot write output: out of memory");
    return LG_OK;
}

/* ---- Opening ------------------------------------------------------------------------------ */

static lg_err_t open_in_place(lg_outfile_t *o, lg_diag_t *d)
{
    o->fd = open(o->target, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (o->fd < 0)
        return lg_diag_fail(d, LG_EIO, o->path, "cannot write output: %s", strerror(errno));
    return open_stream(o, d);
}

/* An existing regular file lorgen must not replace: one its owner has marked read-only (which
 * binds root too, who may write anything), or one lorgen's user may not write. Renaming over it
 * would succeed in a writable directory, but a write-protected file is a "do not touch" (a file
 * under version control kept read-only until checked out, a generated file frozen by hand). */
static lg_err_t refuse_read_only(const lg_outfile_t *o, const struct stat *st, lg_diag_t *d)
{
    unsigned mode = (unsigned)(st->st_mode & 07777);
    if ((st->st_mode & S_IWUSR) == 0)
        return lg_diag_fail(d, LG_EIO, o->path,
                            "output is read-only (mode %04o): not replaced; make it writable "
                            "(chmod u+w) or remove it to let lorgen write it",
                            mode);
    if (access(o->target, W_OK) != 0 && errno == EACCES)
        return lg_diag_fail(d, LG_EIO, o->path,
                            "output is not writable by this user (mode %04o, owner uid %ju): not "
                            "replaced",
                            mode, (uintmax_t)st->st_uid);
    return LG_OK;
}

/* Gives the temporary file the owner, group and permission bits of the file it replaces, or a
 * new file's mode. Failing to keep the owner is not an error: only root may give a file away. */
static void set_owner_and_mode(int fd, const struct stat *st, bool existed)
{
    if (!existed) {
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, LG_OUTFILE_NEW_MODE & ~mask);
        return;
    }
    if ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
        fchown(fd, st->st_uid, st->st_gid) != 0)
        (void)fchown(fd, (uid_t)-1, st->st_gid);
    /* After fchown, which may clear permission bits. */
    (void)fchmod(fd, st->st_mode & LG_OUTFILE_KEPT_MODE);
}

/* The file name path stands for: path, or for a symbolic link the file it leads to. */
static lg_err_t resolve_target(lg_outfile_t *o, lg_diag_t *d)
{
    struct stat lst;
    if (lstat(o->path, &lst) != 0 || !S_ISLNK(lst.st_mode)) {
        o->target = strdup(o->path);
        return o->target != NULL ? LG_OK : lg_diag_fail(d, LG_ENOMEM, o->path, "out of memory");
    }
    /* Written through, as an editor writes through a link: replacing the link itself would
     * cut whatever it ties together (a generated file kept elsewhere). A link leading nowhere
     * is refused, as GNU cp refuses it: it may have been left to redirect the write. */
    o->target = realpath(o->path, NULL);
    if (o->target == NULL)
        return lg_diag_fail(d, LG_EIO, o->path,
                            "output is a symbolic link that leads to no file (%s): not written "
                            "through",
                            strerror(errno));
    return LG_OK;
}

lg_err_t lg_outfile_open(lg_outfile_t *o, const char *path, lg_diag_t *d)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->path = strdup(path);
    if (o->path == NULL)
        return lg_diag_fail(d, LG_ENOMEM, path, "out of memory");
    lg_err_t err = LG_OK;
    if (strcmp(path, "-") == 0) {
        /* Whatever stdout holds goes first, so that the output follows it. */
        fflush(stdout);
        o->fd = STDOUT_FILENO;
        err = open_stream(o, d);
        if (err != LG_OK)
            o->fd = -1;
        goto out;
    }
    err = resolve_target(o, d);
    if (err != LG_OK)
        goto out;
    /* A device or pipe (/dev/null, a FIFO) is written in place: renaming a temporary file over
     * it would replace the device node with a regular file. */
    struct stat st;
    o->existed = stat(o->target, &st) == 0;
    if (o->existed && !S_ISREG(st.st_mode)) {
        err = open_in_place(o, d);
        goto out;
    }
    if (o->existed && (err = refuse_read_only(o, &st, d)) != LG_OK)
        goto out;
    size_t n = strlen(o->target) + sizeof LG_OUTFILE_TMP_SUFFIX;
    o->tmp = malloc(n);
    if (o->tmp == NULL) {
        err = lg_diag_fail(d, LG_ENOMEM, o->path, "out of memory");
        goto out;
    }
    snprintf(o->tmp, n, "%s%s", o->target, LG_OUTFILE_TMP_SUFFIX);
    o->fd = create_temporary(o->tmp);
    if (o->fd < 0) {
        err = lg_diag_fail(d, LG_EIO, o->path, "cannot create output: %s", strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        goto out;
    }
    set_owner_and_mode(o->fd, &st, o->existed);
    err = open_stream(o, d);
out:
    if (err != LG_OK)
        lg_outfile_abort(o);
    return err;
}

lg_err_t lg_outfile_write_failed(const lg_outfile_t *o, lg_err_t err, lg_diag_t *d)
{
    if (o->error != 0)
        return lg_diag_fail(d, err, o->path, "cannot write: %s", strerror(o->error));
    return lg_diag_fail(d, err, o->path, "cannot write: %s", lg_strerror(err));
}

/* ---- Committing --------------------------------------------------------------------------- */

/* Flushes and closes the stream, syncs a temporary file to disk and closes it. Returns false
 * with o->error set when anything failed. */
static bool finish_writing(lg_outfile_t *o)
{
    bool failed = fflush(o->f) != 0 || ferror(o->f);
    fclose(o->f); /* the cookie's stream: it has nothing left to write */
    o->f = NULL;
    /* A temporary file reaches the disk before it replaces the target, so that after a crash
     * the target is the old file or the new one, never an empty or partial one. Delayed
     * allocation can also report a full disk only here. */
    if (!failed && o->tmp != NULL && fsync(o->fd) != 0) {
        o->error = errno;
        failed = true;
    }
    if (o->fd != STDOUT_FILENO) {
        if (close(o->fd) != 0 && !failed) {
            o->error = errno;
            failed = true;
        }
    }
    o->fd = -1;
    if (failed && o->error == 0)
        o->error = EIO;
    return !failed;
}

/* Hard-links o->target's current contents to a new name beside it, o->backup, so that a
 * rename later in the sequence that fails can put it back. Without a backup (a file system
 * without hard links, or a target not lorgen's to link) the output cannot be put back. */
static void make_backup(lg_outfile_t *o)
{
    if (!o->existed)
        return;
    size_t n = strlen(o->target) + sizeof LG_OUTFILE_OLD_SUFFIX;
    o->backup = malloc(n);
    if (o->backup == NULL)
        return;
    snprintf(o->backup, n, "%s%s", o->target, LG_OUTFILE_OLD_SUFFIX);
    /* mkstemp picks a name nobody uses; link() needs it free again. */
    int fd = mkstemp(o->backup);
    bool linked =
        fd >= 0 && close(fd) == 0 && unlink(o->backup) == 0 && link(o->target, o->backup) == 0;
    if (!linked) {
        if (fd >= 0)
            unlink(o->backup);
        free(o->backup);
        o->backup = NULL;
    }
}

static void drop_backup(lg_outfile_t *o)
{
    if (o->backup != NULL)
        unlink(o->backup);
    free(o->backup);
    o->backup = NULL;
}

/* Undoes the rename of o: its old contents back from the backup, or no file if there was none
 * before. Returns false when the old contents are lost. */
static bool put_back(lg_outfile_t *o)
{
    bool ok;
    if (o->backup != NULL) {
        ok = rename(o->backup, o->target) == 0;
        if (ok) {
            free(o->backup);
            o->backup = NULL;
        }
    } else {
        ok = !o->existed && unlink(o->target) == 0;
    }
    return ok;
}

lg_err_t lg_outfile_commit_all(lg_outfile_t *files, size_t n, lg_diag_t *d)
{
    lg_err_t err = LG_OK;
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        lg_outfile_t *o = &files[i];
        if (o->path != NULL && !finish_writing(o))
            err = lg_diag_fail(d, LG_EIO, o->path, "write failed: %s", strerror(o->error));
    }
    /* Held back from here to the last rename: a signal then ends lorgen only once every output
     * is in place (the handler runs when the mask is restored). */
    sigset_t old;
    block_signals(&old);
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        lg_outfile_t *o = &files[i];
        if (o->tmp == NULL)
            continue;
        make_backup(o);
        if (rename(o->tmp, o->target) != 0) {
            err = lg_diag_fail(d, LG_EIO, o->path, "cannot replace output: %s", strerror(errno));
            break;
        }
        o->renamed = true;
        unregister_temporary(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    /* After a failed rename, every output renamed before it goes back to what it was. */
    for (size_t i = 0; i < n && err != LG_OK; i++) {
        lg_outfile_t *o = &files[i];
        if (!o->renamed)
            continue;
        if (put_back(o))
            lg_diag_add(d, LG_NOTE, o->path, "put back as it was, since a later output failed");
        else
            lg_diag_add(d, LG_ERROR, o->path,
                        "already replaced, and its old contents could not be put back (no hard "
                        "link could keep them)");
    }
    for (size_t i = 0; i < n; i++) {
        drop_backup(&files[i]);
        lg_outfile_abort(&files[i]);
    }
    restore_signals(&old);
    return err;
}

void lg_outfile_abort(lg_outfile_t *o)
{
    if (o->path == NULL) /* zeroed, or aborted already: its fd field means nothing */
        return;
    if (o->f != NULL)
        fclose(o->f);
    if (o->fd >= 0 && o->fd != STDOUT_FILENO)
        close(o->fd);
    if (o->tmp != NULL) {
        unlink(o->tmp);
        unregister_temporary(o->tmp);
    }
    free(o->tmp);
    free(o->backup);
    free(o->target);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

/* ---- Telling files apart ------------------------------------------------------------------ */

lg_file_id_t lg_file_id(const char *path)
{
    lg_file_id_t id = {0};
    struct stat st;
    if (stat(path, &st) == 0) {
        id = (lg_file_id_t){st.st_dev, st.st_ino, NULL, true, S_ISCHR(st.st_mode)};
        return id;
    }
    /* Not there yet: two outputs still meet if they name one entry of one directory. */
    const char *slash = strrchr(path, '/');
    const char *leaf = slash != NULL ? slash + 1 : path;
    char dir[PATH_MAX];
    size_t len = slash == NULL ? 0 : (slash == path ? 1 : (size_t)(slash - path));
    if (len >= sizeof dir)
        return id;
    if (len == 0)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)len, path);
    if (*leaf != '\0' && stat(dir, &st) == 0)
        id = (lg_file_id_t){st.st_dev, st.st_ino, leaf, true, false};
    return id;
}

bool lg_file_id_same(const lg_file_id_t *a, const lg_file_id_t *b)
{
    if (!a->known || !b->known || a->dev != b->dev || a->ino != b->ino)
        return false;
    if (a->leaf == NULL || b->leaf == NULL)
        return a->leaf == b->leaf;
    return strcmp(a->leaf, b->leaf) == 0;
}
