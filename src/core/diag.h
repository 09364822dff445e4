/* diag.h - errors as values, and the diagnostic sink that carries their details.
 *
 * Library code (loaders/, optimizer/, the model and writers) never prints or exits. A function
 * that can fail returns an lg_err_t and records what went wrong, where, and what was expected in
 * an lg_diag_t owned by the caller. Only the CLI (src/cli) prints the entries.
 *
 * A location ("where") is free text chosen by the reporter, by convention:
 *   text inputs    path:LINE  or  path:LINE:COL
 *   binary inputs  path:0xOFFSET: record N
 *   ELF inputs     path: section NAME
 */
#ifndef LG_DIAG_H
#define LG_DIAG_H

#include <stdarg.h>
#include <stddef.h>

/* Error codes. Values are pinned: never renumber, never reuse a removed value. */
typedef enum lg_err {
    LG_OK = 0,
    LG_ENOMEM = 1,       /* allocation failed */
    LG_EIO = 2,          /* open, read or write failed */
    LG_EFORMAT = 3,      /* malformed input */
    LG_EUNSUPPORTED = 4, /* valid input that lorgen cannot use */
    LG_EINVAL = 5,       /* bad argument or option value */
    LG_EELF = 6,         /* libelf failure or unusable ELF */
    LG_EGRAPH = 7,       /* igraph failure */
    LG_ELIMIT = 8,       /* input exceeds a named resource limit */
} lg_err_t;

/* A readable name for an error code; never NULL. */
const char *lg_strerror(lg_err_t err);

typedef enum lg_severity {
    LG_NOTE = 0,
    LG_WARNING = 1,
    LG_ERROR = 2,
    /* A warning that -q still shows: the outputs lose something the user would not want lost
     * (hot code going cold, a profile with no cost). Printed and counted as a warning. */
    LG_ALERT = 3,
} lg_severity_t;

typedef struct lg_diag_entry {
    lg_severity_t severity;
    char *where;   /* location, see above; "" when the message has no location */
    char *message; /* one sentence, no trailing newline */
} lg_diag_entry_t;

/* Most entries one sink keeps: a broken input must not turn into gigabytes of warnings. Entries
 * past the cap are counted in `dropped`, never silently lost. */
#define LG_DIAG_MAX_ENTRIES 10000u

typedef struct lg_diag {
    lg_diag_entry_t *entries;
    size_t count;
    size_t capacity;
    size_t dropped;        /* entries not kept because of LG_DIAG_MAX_ENTRIES */
    size_t errors;         /* entries of severity LG_ERROR, kept or dropped */
    size_t warnings;       /* entries of severity LG_WARNING or LG_ALERT, kept or dropped */
} lg_diag_t;

void lg_diag_init(lg_diag_t *d);
/* Frees every entry; accepts a zeroed struct. */
void lg_diag_destroy(lg_diag_t *d);

/* Records one entry. d may be NULL (the entry is then discarded). If memory runs out the entry is
 * counted as dropped. */
void lg_diag_add(lg_diag_t *d, lg_severity_t severity, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void lg_diag_vadd(lg_diag_t *d, lg_severity_t severity, const char *where, const char *fmt,
                  va_list ap) __attribute__((format(printf, 4, 0)));

/* Records an error and returns err, so a failing check reads
 *     return lg_diag_fail(d, LG_EFORMAT, where, "expected ..., found ...", ...);
 */
lg_err_t lg_diag_fail(lg_diag_t *d, lg_err_t err, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Moves every entry of src to the end of dst and leaves src empty. */
void lg_diag_move(lg_diag_t *dst, lg_diag_t *src);

/* Forwards a failing lg_err_t to the caller. */
#define LG_CHECK(expr)                                                                             \
    do {                                                                                           \
        lg_err_t lg_check_err_ = (expr);                                                           \
        if (lg_check_err_ != LG_OK)                                                                \
            return lg_check_err_;                                                                  \
    } while (0)

#endif
