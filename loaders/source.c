/* source.c - the input of a profile loader: a forward window over a file or memory, lines,
 * messages, numbers and progress (source.h). */
#include "source.h"

#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UTF8_BOM "\xEF\xBB\xBF"
#define UTF8_BOM_LEN 3u

/* ---- Opening ------------------------------------------------------------------------------ */

static void set_options(lg_source_t *s, const lg_load_options_t *options)
{
    if (options != NULL) {
        s->progress = options->progress;
        s->progress_ctx = options->progress_ctx;
    }
    s->next_progress = LG_SOURCE_PROGRESS_BYTES;
}

/* What an empty window points at before it has memory of its own: lg_source_at on it is then an
 * offset of zero from a real address, never from a null pointer. */
static const uint8_t no_bytes[1];

lg_err_t lg_source_open(lg_source_t *s, const char *path, const lg_load_options_t *options,
                        lg_diag_t *d)
{
    return lg_source_open_as(s, path, NULL, options, d);
}

lg_err_t lg_source_open_as(lg_source_t *s, const char *path, const char *what,
                           const lg_load_options_t *options, lg_diag_t *d)
{
    *s = (lg_source_t){.path = path, .d = d, .from_path = true, .fd = -1, .data = no_bytes};
    set_options(s, options);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0)
        return lg_diag_fail(d, LG_EIO, path, "cannot open%s%s: %s", what != NULL ? " the " : "",
                            what != NULL ? what : "", strerror(errno));
    struct stat st;
    if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        s->size_known = true;
        s->size = (uint64_t)st.st_size;
        posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a hint: failure changes nothing */
    }
    return LG_OK;
}

void lg_source_memory(lg_source_t *s, const void *data, size_t size, const char *name,
                      const lg_load_options_t *options, lg_diag_t *d)
{
    *s = (lg_source_t){.path = name != NULL ? name : "(buffer)",
                       .d = d,
                       .fd = -1,
                       .size_known = true,
                       .size = data != NULL ? size : 0,
                       .data = data != NULL ? data : no_bytes,
                       .len = data != NULL ? size : 0,
                       .eof = true};
    set_options(s, options);
}

void lg_source_close(lg_source_t *s)
{
    if (s->fd >= 0)
        close(s->fd); /* read-only: nothing is lost if closing fails */
    free(s->buf);
    s->fd = -1;
    s->buf = NULL;
    s->cap = 0;
}

/* ---- Reading ------------------------------------------------------------------------------ */

void lg_i_source_report_progress(lg_source_t *s, uint64_t done)
{
    s->next_progress = done + LG_SOURCE_PROGRESS_BYTES;
    s->progress(s->progress_ctx, s->path, done, s->size);
}

/* Reads up to n bytes into p at the end of the window; *got 0 at the end of the input. */
static lg_err_t read_some(lg_source_t *s, uint8_t *p, size_t n, size_t *got)
{
    for (;;) {
        ssize_t k = read(s->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return lg_diag_fail(s->d, LG_EIO, s->path, "cannot read: %s", strerror(errno));
        *got = (size_t)k;
        return LG_OK;
    }
}

lg_err_t lg_source_read_at(const lg_source_t *s, uint64_t at, void *buf, size_t want, size_t *got)
{
    size_t n = 0;
    while (n < want) {
        ssize_t k = pread(s->fd, (uint8_t *)buf + n, want - n, (off_t)(at + n));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return lg_diag_fail(s->d, LG_EIO, s->path, "cannot read: %s", strerror(errno));
        if (k == 0)
            break;
        n += (size_t)k;
    }
    *got = n;
    return LG_OK;
}

/* Puts the window at buf + off with room for need bytes, its first keep bytes copied from src
 * (which may lie in the old memory). The memory is LG_SOURCE_ALIGN-aligned and grows by
 * doubling. */
static bool place_window(lg_source_t *s, size_t off, const uint8_t *src, size_t keep, size_t need)
{
    if (need > SIZE_MAX - off - LG_SOURCE_ALIGN)
        return false;
    size_t total = off + need;
    if (total > s->cap) {
        size_t cap = s->cap <= SIZE_MAX / 2 ? 2 * s->cap : 0;
        if (cap < total)
            cap = total;
        cap = (cap + LG_SOURCE_ALIGN - 1) / LG_SOURCE_ALIGN * LG_SOURCE_ALIGN;
        uint8_t *b = aligned_alloc(LG_SOURCE_ALIGN, cap);
        if (b == NULL)
            return false;
        if (keep > 0)
            memcpy(b + off, src, keep);
        free(s->buf);
        s->buf = b;
        s->cap = cap;
    } else if (keep > 0 && src != s->buf + off) {
        memmove(s->buf + off, src, keep);
    }
    s->data = s->buf + off;
    return true;
}

/* Moves the window to start at `at` (keeping the bytes it still holds from there) and reads until
 * it holds want bytes or the input ends. The window starts at at's place in a page, so that the
 * reads land in memory aligned as their file offsets are. */
lg_err_t lg_i_source_fill(lg_source_t *s, uint64_t at, size_t want)
{
    if (s->fd < 0) { /* memory: the window is all of it */
        s->eof = true;
        return LG_OK;
    }
    /* Keep what the window holds from `at`; drop the rest. */
    uint64_t end = s->base + s->len;
    size_t keep = 0;
    const uint8_t *src = NULL;
    if (at <= end) {
        keep = (size_t)(end - at);
        /* An empty window may have no memory yet: no offset from a null pointer. */
        if (keep > 0)
            src = s->data + (size_t)(at - s->base);
        s->pos -= s->pos < (size_t)(at - s->base) ? s->pos : (size_t)(at - s->base);
    } else { /* skip forward: seek when the file allows, else read and drop */
        s->pos = 0;
        if (lseek(s->fd, (off_t)at, SEEK_SET) < 0) {
            uint64_t skip = at - end;
            while (skip > 0) {
                uint8_t scratch[4096];
                size_t got = 0;
                LG_CHECK(read_some(s, scratch,
                                   skip < sizeof scratch ? (size_t)skip : sizeof scratch, &got));
                if (got == 0)
                    break;
                skip -= got;
            }
            if (skip > 0) {
                s->base = at - skip;
                s->len = 0;
                s->eof = true;
                return LG_OK;
            }
        }
    }
    /* Room past what is asked for, so that a window asked for again a little further on is
     * refilled only after a block or twice what was asked has been read. */
    size_t room = want + (want > LG_SOURCE_BLOCK_BYTES / 2 ? 2 * want : LG_SOURCE_BLOCK_BYTES);
    /* One byte stays free for the NUL after a last line without a line end. */
    if (!place_window(s, (size_t)(at % LG_SOURCE_ALIGN), src, keep, room + 1))
        return lg_diag_fail(s->d, LG_ENOMEM, s->path, "out of memory for a %zu-byte read window",
                            room + 1);
    s->base = at;
    s->len = keep;
    s->eof = false;
    uint8_t *w = s->buf + (size_t)(at % LG_SOURCE_ALIGN);
    while (s->len < want) {
        size_t got = 0;
        LG_CHECK(read_some(s, w + s->len, room - s->len, &got));
        if (got == 0) {
            s->eof = true;
            break;
        }
        s->len += got;
    }
    lg_source_progress(s, s->base + s->len, s->eof);
    return LG_OK;
}

lg_err_t lg_source_read_all(lg_source_t *s)
{
    if (s->size_known)
        return LG_OK;
    for (;;) {
        size_t off = (size_t)(s->base % LG_SOURCE_ALIGN);
        if (s->len > SIZE_MAX - LG_SOURCE_BLOCK_BYTES - 1 ||
            (off + s->len + LG_SOURCE_BLOCK_BYTES + 1 > s->cap &&
             !place_window(s, off, s->data, s->len, s->len + LG_SOURCE_BLOCK_BYTES + 1)))
            return lg_diag_fail(s->d, LG_ENOMEM, s->path, "out of memory reading the file");
        s->data = s->buf + off;
        size_t got = 0;
        LG_CHECK(read_some(s, s->buf + off + s->len, s->cap - off - 1 - s->len, &got));
        if (got == 0)
            break;
        s->len += got;
    }
    s->eof = true;
    s->size_known = true;
    s->size = s->base + s->len;
    return LG_OK;
}

/* ---- Loading ------------------------------------------------------------------------------ */

/* Runs read over an open source, then leaves out empty if it failed, and closes the source. */
static lg_err_t run(lg_read_fn read, lg_source_t *s, const lg_load_options_t *options,
                    lg_profile_t *out)
{
    static const lg_load_options_t defaults = {0};
    lg_err_t err = read(s, options != NULL ? options : &defaults, out);
    if (err != LG_OK) {
        /* Nothing partial on failure: a caller that ignores the error still sees no functions. */
        lg_profile_destroy(out);
        lg_profile_init(out);
    }
    lg_source_close(s);
    return err;
}

lg_err_t lg_load_file(lg_read_fn read, const char *path, const lg_load_options_t *options,
                      lg_profile_t *out, lg_diag_t *d)
{
    lg_source_t s;
    lg_err_t err = lg_source_open(&s, path, options, d);
    if (err != LG_OK) {
        lg_profile_destroy(out);
        lg_profile_init(out);
        return err;
    }
    return run(read, &s, options, out);
}

lg_err_t lg_load_memory(lg_read_fn read, const void *data, size_t size, const char *name,
                        const lg_load_options_t *options, lg_profile_t *out, lg_diag_t *d)
{
    lg_source_t s;
    lg_source_memory(&s, data, size, name, options, d);
    return run(read, &s, options, out);
}

/* ---- Lines -------------------------------------------------------------------------------- */

lg_err_t lg_source_next_line(lg_source_t *s, const lg_line_rules_t *rules, char **line, size_t *len,
                             bool *got)
{
    const uint8_t *nl;
    size_t held;
    for (;;) {
        held = s->len - s->pos;
        nl = held > 0 ? memchr(s->data + s->pos, '\n', held) : NULL;
        if (nl != NULL || s->eof)
            break;
        if (held > rules->max)
            return lg_source_fail(s, LG_ELIMIT, s->line + 1, 0,
                                  "line is longer than %zu bytes (%s)", rules->max,
                                  rules->max_name);
        LG_CHECK(lg_i_source_fill(s, s->base + s->pos, held + LG_SOURCE_BLOCK_BYTES));
    }
    if (nl == NULL && held == 0) {
        *got = false;
        return LG_OK;
    }
    size_t n = nl != NULL ? (size_t)(nl - (s->data + s->pos)) : held;
    s->line++;
    char *p;
    if (s->fd < 0) {
        /* Memory is the caller's and read-only: the line is copied. */
        if (n + 1 > s->cap && !lg_grow((void **)&s->buf, &s->cap, n + 1, 1))
            return lg_source_fail(s, LG_ENOMEM, s->line, 0, "out of memory reading a line");
        memcpy(s->buf, s->data + s->pos, n);
        p = (char *)s->buf;
    } else {
        /* the window keeps a byte free after its end */
        p = (char *)s->buf + (size_t)(s->data - s->buf) + s->pos;
    }
    s->pos += n + (nl != NULL);
    if (n > rules->max)
        return lg_source_fail(s, LG_ELIMIT, s->line, 0, "line is longer than %zu bytes (%s)",
                              rules->max, rules->max_name);
    const char *nul = memchr(p, '\0', n);
    if (nul != NULL)
        return lg_source_fail(s, LG_EFORMAT, s->line, (size_t)(nul - p) + 1,
                              "expected text, found a NUL byte");
    if (n > 0 && p[n - 1] == '\r')
        n--;
    if (rules->strip_bom && s->line == 1 && n >= UTF8_BOM_LEN &&
        memcmp(p, UTF8_BOM, UTF8_BOM_LEN) == 0) {
        p += UTF8_BOM_LEN;
        n -= UTF8_BOM_LEN;
    }
    p[n] = '\0';
    *line = p;
    *len = n;
    *got = true;
    return LG_OK;
}

/* ---- Messages ----------------------------------------------------------------------------- */

void lg_source_vreport(const lg_source_t *s, lg_severity_t severity, uint64_t line, size_t col,
                       const char *fmt, va_list ap)
{
    char *where = NULL;
    if (line > 0 && col > 0)
        where = lg_format("%s:%" PRIu64 ":%zu", s->path, line, col);
    else if (line > 0)
        where = lg_format("%s:%" PRIu64, s->path, line);
    lg_diag_vadd(s->d, severity, where != NULL ? where : s->path, fmt, ap);
    free(where);
}

void lg_source_report(const lg_source_t *s, lg_severity_t severity, uint64_t line, size_t col,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lg_source_vreport(s, severity, line, col, fmt, ap);
    va_end(ap);
}

lg_err_t lg_source_fail(const lg_source_t *s, lg_err_t err, uint64_t line, size_t col,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lg_source_vreport(s, LG_ERROR, line, col, fmt, ap);
    va_end(ap);
    return err;
}

void lg_source_vreport_record(const lg_source_t *s, lg_severity_t severity, uint64_t offset,
                              const char *section, uint64_t index, const char *fmt, va_list ap)
{
    char *where;
    if (index == LG_SOURCE_NO_RECORD)
        where = lg_format("%s:0x%" PRIx64 ": %s", s->path, offset, section);
    else
        where = lg_format("%s:0x%" PRIx64 ": %s%srecord %" PRIu64, s->path, offset,
                          section != NULL ? section : "", section != NULL ? " " : "", index);
    lg_diag_vadd(s->d, severity, where != NULL ? where : s->path, fmt, ap);
    free(where);
}

lg_err_t lg_source_fail_record(const lg_source_t *s, lg_err_t err, uint64_t offset,
                               const char *section, uint64_t index, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lg_source_vreport_record(s, LG_ERROR, offset, section, index, fmt, ap);
    va_end(ap);
    return err;
}

const char *lg_quote(const char *s, size_t n, size_t max, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= ' ' && c <= '~') { /* printable ASCII */
            out[k++] = (char)c;
        } else {
            static const char hex[] = "0123456789abcdef";
            out[k++] = '\\';
            out[k++] = 'x';
            out[k++] = hex[c >> 4];
            out[k++] = hex[c & 0xFu];
        }
    }
    if (n > max) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}

/* ---- Tokens and numbers ------------------------------------------------------------------- */

bool lg_span_is(lg_span_t t, const char *word)
{
    return t.n == strlen(word) && memcmp(t.s, word, t.n) == 0;
}

lg_span_t lg_span_skip_blanks(lg_span_t t)
{
    while (t.n > 0 && lg_is_blank(*t.s)) {
        t.s++;
        t.n--;
    }
    return t;
}

bool lg_span_next_word(lg_span_t *rest, lg_span_t *word)
{
    *rest = lg_span_skip_blanks(*rest);
    if (rest->n == 0)
        return false;
    size_t k = 0;
    while (k < rest->n && !lg_is_blank(rest->s[k]))
        k++;
    *word = (lg_span_t){rest->s, k};
    rest->s += k;
    rest->n -= k;
    return true;
}

int lg_digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

lg_number_status_t lg_parse_u64(const char *s, size_t n, unsigned flags, uint64_t *value)
{
    unsigned base = 10;
    if ((flags & LG_NUMBER_HEX_PREFIX) && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        n -= 2;
    }
    if (n == 0)
        return LG_NUMBER_BAD;
    /* v * base + d fits when v is below limit, or equal to it with d at most last: the division
     * is done once, not per digit (this runs for every timeline event of a text export). */
    const uint64_t limit = UINT64_MAX / base, last = UINT64_MAX % base;
    uint64_t v = 0;
    bool overflow = false;
    for (size_t i = 0; i < n; i++) {
        int d = lg_digit_value(s[i]);
        if (d < 0 || (unsigned)d >= base)
            return LG_NUMBER_BAD;
        if (v > limit || (v == limit && (uint64_t)d > last))
            overflow = true;
        v = v * base + (uint64_t)d;
    }
    if (overflow)
        return LG_NUMBER_OVERFLOW;
    *value = v;
    return LG_NUMBER_OK;
}
