/* diag.c - the diagnostic sink and the one list of error strings. */
#include "diag.h"

#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lg_strerror(lg_err_t err)
{
    switch (err) {
    case LG_OK:
        return "success";
    case LG_ENOMEM:
        return "out of memory";
    case LG_EIO:
        return "input/output error";
    case LG_EFORMAT:
        return "malformed input";
    case LG_EUNSUPPORTED:
        return "unsupported input";
    case LG_EINVAL:
        return "invalid argument";
    case LG_EELF:
        return "unusable ELF file";
    case LG_EGRAPH:
        return "graph library failure";
    case LG_ELIMIT:
        return "input exceeds a limit";
    }
    return "unknown error";
}

void lg_diag_init(lg_diag_t *d)
{
    memset(d, 0, sizeof *d);
}

void lg_diag_destroy(lg_diag_t *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->count; i++) {
        free(d->entries[i].where);
        free(d->entries[i].message);
    }
    free(d->entries);
    memset(d, 0, sizeof *d);
}

static void count_severity(lg_diag_t *d, lg_severity_t severity)
{
    if (severity == LG_ERROR)
        d->errors++;
    else if (severity == LG_WARNING || severity == LG_ALERT)
        d->warnings++;
}

void lg_diag_vadd(lg_diag_t *d, lg_severity_t severity, const char *where, const char *fmt,
                  va_list ap)
{
    if (d == NULL)
        return;
    count_severity(d, severity);
    if (d->count >= LG_DIAG_MAX_ENTRIES) {
        d->dropped++;
        return;
    }
    if (d->count == d->capacity) {
        size_t cap = d->capacity ? d->capacity * 2 : 16;
        lg_diag_entry_t *grown = realloc(d->entries, cap * sizeof *grown);
        if (grown == NULL) {
            d->dropped++;
            return;
        }
        d->entries = grown;
        d->capacity = cap;
    }
    char *w = strdup(where != NULL ? where : "");
    char *m = lg_vformat(fmt, ap);
    if (w == NULL || m == NULL) {
        free(w);
        free(m);
        d->dropped++;
        return;
    }
    d->entries[d->count++] = (lg_diag_entry_t){severity, w, m};
}

void lg_diag_add(lg_diag_t *d, lg_severity_t severity, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lg_diag_vadd(d, severity, where, fmt, ap);
    va_end(ap);
}

lg_err_t lg_diag_fail(lg_diag_t *d, lg_err_t err, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lg_diag_vadd(d, LG_ERROR, where, fmt, ap);
    va_end(ap);
    return err;
}

void lg_diag_move(lg_diag_t *dst, lg_diag_t *src)
{
    for (size_t i = 0; i < src->count; i++) {
        lg_diag_entry_t *e = &src->entries[i];
        /* Re-add through the public path so caps and counters stay right. */
        lg_diag_add(dst, e->severity, e->where, "%s", e->message);
        /* The severity was counted again by lg_diag_add; src's count is dropped with src. */
    }
    dst->dropped += src->dropped;
    lg_diag_destroy(src);
}
