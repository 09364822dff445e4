/* source.h - the input of a profile loader, read once front to back: lines or bytes, the text
 * of messages about it, and progress.
 *
 * Every loader reads through one lg_source_t and keeps only its grammar. The source owns the
 * plumbing the formats share:
 *   bytes      a window over the input that only moves forward (lg_source_window): a file is
 *              read a block at a time, memory is the window itself
 *   lines      lg_source_next_line: one rule for every text format (a line ends at "\n", a
 *              trailing "\r" is dropped, a NUL byte or a line past the format's limit is an
 *              error); memory stays bounded by the limit, never by the file
 *   messages   "PATH:LINE[:COL]: ..." for text, "PATH:0xOFFSET: [SECTION] record N: ..." for
 *              binary input (lg_source_fail, lg_source_fail_record), found text quoted with
 *              lg_quote
 *   numbers    lg_parse_u64: decimal, or hexadecimal after "0x", with overflow told apart
 *   progress   the caller's lg_progress_fn, told how far a file of known size has been read,
 *              from the block reads (never per line or record)
 *   clean-up   lg_load_file and lg_load_memory run a format's reader and leave the profile empty
 *              when it fails: a caller that ignores the error sees no functions
 *
 * Definitions:
 *   window     input bytes [base, base + len) held at data; reads past it refill it
 *   blank      a space or a tab
 */
#ifndef LG_SOURCE_H
#define LG_SOURCE_H

#include "diag.h"
#include "profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Told how far a long load has come: done and total in bytes of the file being read. */
typedef void (*lg_progress_fn)(void *ctx, const char *path, uint64_t done, uint64_t total);

/* Options some formats take; a zeroed struct is the default. */
typedef struct lg_load_options {
    const char *event; /* perf script: the one event to read when several are interleaved */
    /* winIDEA binary timeline layout: 0 detect from the data, 10 version 1.0, 11 version 1.1 */
    unsigned bin_version;
    lg_progress_fn progress; /* told how far the reading of each file got; may be NULL */
    void *progress_ctx;
    /* Business Rules!: limits other than LG_BR_LIMITS_DEFAULT (tests); NULL for the default */
    const struct lg_br_limits *br_limits;
    /* Timelines: do not count which functions ran close together in time (lg_profile_t's
     * proximity pairs stay empty). Most of a timeline's reading time goes there, and only the
     * clique pass's cache placement reads them. */
    bool skip_proximity;
} lg_load_options_t;

/* Bytes of input read between two progress reports. */
#define LG_SOURCE_PROGRESS_BYTES (4u * 1024u * 1024u)
/* Bytes a file is read in at a time (a line or record window grows past it only as needed). */
#define LG_SOURCE_BLOCK_BYTES (256u * 1024u)
/* Alignment of a file's window memory: a page. Window bytes sit at the same place in a page as
 * their file offsets, so every read lands in memory aligned as the file offset is: the kernel
 * copies three to four times slower into a buffer whose place in a cache line differs from the
 * file offset's (measured on a 2.1 GB binary timeline: 1.4 s of system time into malloc's
 * 16-byte aligned buffer, 0.4 s into a page-aligned one). */
#define LG_SOURCE_ALIGN 4096u
/* A record index that is not given: the location is the section alone ("header"). */
#define LG_SOURCE_NO_RECORD UINT64_MAX

/* Part of a line: not NUL-terminated unless said so. */
typedef struct lg_span {
    const char *s;
    size_t n;
} lg_span_t;

/* How a text format's lines are read. */
typedef struct lg_line_rules {
    size_t max;           /* longest line, in bytes without its "\n" */
    const char *max_name; /* the limit's name in the message, e.g. "LG_CALLGRIND_MAX_LINE" */
    bool strip_bom;       /* drop a UTF-8 byte order mark before line 1 (columns count after it) */
} lg_line_rules_t;

typedef struct lg_source {
    const char *path; /* names the input in messages and in the profile */
    lg_diag_t *d;
    bool from_path; /* opened from a file name (not memory): files beside it may be looked for */
    lg_progress_fn progress;
    void *progress_ctx;
    uint64_t next_progress; /* bytes read when progress is next told */

    int fd;          /* -1 for memory */
    bool size_known; /* a regular file or memory: size holds its bytes */
    uint64_t size;
    const uint8_t *data; /* the window: input bytes [base, base + len) */
    uint64_t base;
    size_t len;
    size_t pos;   /* where the next line starts, within the window */
    uint8_t *buf; /* the window's memory when reading a file (LG_SOURCE_ALIGN-aligned:
                     data - buf is base modulo the alignment) */
    size_t cap;
    bool eof;      /* the window reaches the end of the input */
    uint64_t line; /* of the line last returned, from 1 */
} lg_source_t;

/* ---- Opening --------------------------------------------------------------------------------- */

/* Opens path for reading. options may be NULL. On failure records "cannot open: ..." and the
 * source needs no closing. */
lg_err_t lg_source_open(lg_source_t *s, const char *path, const lg_load_options_t *options,
                        lg_diag_t *d);
/* lg_source_open, failing with "cannot open the WHAT: ..." (what NULL: "cannot open: ..."). */
lg_err_t lg_source_open_as(lg_source_t *s, const char *path, const char *what,
                           const lg_load_options_t *options, lg_diag_t *d);
/* A source over memory the caller keeps alive; name (NULL: "(buffer)") names it in messages. */
void lg_source_memory(lg_source_t *s, const void *data, size_t size, const char *name,
                      const lg_load_options_t *options, lg_diag_t *d);
/* Closes the file and frees the window; accepts a closed or zeroed source. */
void lg_source_close(lg_source_t *s);

/* Reads what is left of an input of unknown size (a pipe) into memory, so that its size is
 * known. LG_OK at once when it is known already. */
lg_err_t lg_source_read_all(lg_source_t *s);

/* ---- Loading ------------------------------------------------------------------------------- */

/* A format's reader: fills out (initialised by the caller) from src. options is never NULL. On
 * failure it records one error and returns it; the caller empties out. */
typedef lg_err_t (*lg_read_fn)(lg_source_t *src, const lg_load_options_t *options,
                               lg_profile_t *out);

/* Runs read over the file path or over memory (name names it); options may be NULL. On failure
 * out is left empty (lg_profile_init state). */
lg_err_t lg_load_file(lg_read_fn read, const char *path, const lg_load_options_t *options,
                      lg_profile_t *out, lg_diag_t *d);
lg_err_t lg_load_memory(lg_read_fn read, const void *data, size_t size, const char *name,
                        const lg_load_options_t *options, lg_profile_t *out, lg_diag_t *d);

/* ---- Lines ------------------------------------------------------------------------------- */

/* Reads the next line: *line is NUL-terminated and writable until the next call, *len its bytes
 * without "\n" and a final "\r"; *got is false at the end of the input. Errors, at the line being
 * read: LG_ELIMIT "line is longer than MAX bytes (NAME)", LG_EFORMAT "expected text, found a NUL
 * byte" at PATH:LINE:COL, LG_EIO, LG_ENOMEM. Progress is told as blocks are read. */
lg_err_t lg_source_next_line(lg_source_t *s, const lg_line_rules_t *rules, char **line, size_t *len,
                             bool *got);

/* ---- Bytes ------------------------------------------------------------------------------- */

lg_err_t lg_i_source_fill(lg_source_t *s, uint64_t at, size_t want);

/* Reads file bytes [at, at + want) into buf, the caller's memory, without the window: *got is
 * want, or less where the file ends. For a reader that keeps its own buffers, possibly on another
 * thread: it touches only s->fd (with pread, so the window's reads are not moved), s->path and
 * s->d, and tells no progress. LG_EIO with "cannot read: ..." at PATH. */
lg_err_t lg_source_read_at(const lg_source_t *s, uint64_t at, void *buf, size_t want, size_t *got);

/* Makes input bytes [at, at + want) readable at lg_source_at(s, at), or all of them up to the end
 * of the input when it ends first (s->eof; s->base + s->len is then the end). at must not be
 * before the window (s->base). LG_EIO or LG_ENOMEM on failure, with a message at PATH:0xAT. */
static inline lg_err_t lg_source_window(lg_source_t *s, uint64_t at, size_t want)
{
    if (at - s->base <= s->len && want <= s->len - (size_t)(at - s->base))
        return LG_OK;
    return lg_i_source_fill(s, at, want);
}

static inline const uint8_t *lg_source_at(const lg_source_t *s, uint64_t at)
{
    return s->data + (size_t)(at - s->base);
}

/* Tells the progress callback, when there is one and the size is known, that done bytes have
 * been read; at most once per LG_SOURCE_PROGRESS_BYTES unless final. */
void lg_i_source_report_progress(lg_source_t *s, uint64_t done);
static inline void lg_source_progress(lg_source_t *s, uint64_t done, bool final)
{
    if (s->progress != NULL && s->size_known && (final || done >= s->next_progress))
        lg_i_source_report_progress(s, done);
}

/* ---- Messages ---------------------------------------------------------------------------- */

/* Records a message at PATH:LINE:COL, PATH:LINE (col 0) or PATH (line 0). */
void lg_source_vreport(const lg_source_t *s, lg_severity_t severity, uint64_t line, size_t col,
                       const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
void lg_source_report(const lg_source_t *s, lg_severity_t severity, uint64_t line, size_t col,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* An error there; returns err. */
lg_err_t lg_source_fail(const lg_source_t *s, lg_err_t err, uint64_t line, size_t col,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Records a message about binary input at "PATH:0xOFFSET: SECTION record N", "PATH:0xOFFSET:
 * record N" (section NULL) or "PATH:0xOFFSET: SECTION" (index LG_SOURCE_NO_RECORD). */
void lg_source_vreport_record(const lg_source_t *s, lg_severity_t severity, uint64_t offset,
                              const char *section, uint64_t index, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
lg_err_t lg_source_fail_record(const lg_source_t *s, lg_err_t err, uint64_t offset,
                               const char *section, uint64_t index, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* The loaders' shorthand for an error, one argument order for every loader (and for the
 * failure helpers of those that have their own, prf.c's and winidea_xml.c's): the reader r,
 * whose src is its lg_source_t, then the error, then where, then the message; returns err.
 * LG_FAIL_LINE is at PATH:LINE (line 0: PATH alone), LG_FAIL_RECORD at "PATH:0xOFFSET: record
 * N" (diag.h's convention for binary input). */
#define LG_FAIL_LINE(r, err, line, ...) lg_source_fail((r)->src, (err), (line), 0, __VA_ARGS__)
#define LG_FAIL_RECORD(r, err, offset, index, ...)                                                 \
    lg_source_fail_record((r)->src, (err), (offset), NULL, (index), __VA_ARGS__)

/* Room lg_quote needs for max bytes: each may become \xNN, then "..." and the NUL. */
#define LG_QUOTE_BUFFER(max) ((max)*4u + 4u)
/* Renders s[0, n) for a message: printable ASCII as is, other bytes as \xNN, cut after max bytes
 * with "...". out holds LG_QUOTE_BUFFER(max) bytes. Returns out. */
const char *lg_quote(const char *s, size_t n, size_t max, char *out);

/* ---- Tokens and numbers ------------------------------------------------------------------ */

static inline bool lg_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static inline bool lg_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The value of a decimal or hexadecimal digit (either case), or -1. */
int lg_digit_value(char c);

/* True when t is exactly word. */
bool lg_span_is(lg_span_t t, const char *word);
/* t without leading blanks. */
lg_span_t lg_span_skip_blanks(lg_span_t t);
/* Takes the next blank-separated word off *rest; false when none is left. */
bool lg_span_next_word(lg_span_t *rest, lg_span_t *word);

typedef enum lg_number_status {
    LG_NUMBER_OK,
    LG_NUMBER_BAD,      /* empty, or a character that is not a digit of the base */
    LG_NUMBER_OVERFLOW, /* digits only, more than 64 bits */
} lg_number_status_t;

/* Flags of lg_parse_u64. */
#define LG_NUMBER_HEX_PREFIX 1u /* "0x" or "0X" and hexadecimal digits are read too */

/* Reads s[0, n) as an unsigned number: decimal digits (and with LG_NUMBER_HEX_PREFIX, "0x" then
 * hexadecimal digits). *value is set on LG_NUMBER_OK only. */
lg_number_status_t lg_parse_u64(const char *s, size_t n, unsigned flags, uint64_t *value);

#endif
