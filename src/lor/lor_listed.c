/* lor_listed.c - the functions a .LOR lists, in its cliques and regions alike, so that the reader
 * refuses one listed twice (lor_internal.h).
 *
 * Two lines name the same function unless object= or source= tells them apart: both give an
 * object= and the two differ, or both give a source= and the two differ. That is no equality, so
 * a plain map from the symbol cannot answer it. Each line is instead put under four keys: its
 * symbol with, for the object and for the source file, either the file it gives (or "none") or
 * "any". A later line looks up the keys an earlier line it cannot be told from was put under:
 * for a file it gives, "none" and that file; for one it does not give, "any". That is at most
 * four lookups.
 * A line is looked up and put in O(1) expected, whatever the file holds. */
#include "lor_internal.h"

#include "mem.h"

#include <stdio.h>
#include <stdlib.h>

/* A file's place in a key when the line gives none, and when any file will do; a file given is
 * written "=LENGTH:NAME", which neither pattern can be. */
#define PATTERN_NONE "-"
#define PATTERN_ANY "*"

void lg_lor_listed_init(lg_lor_listed_t *l)
{
    memset(l, 0, sizeof *l);
    lg_strmap_init(&l->keys);
}

void lg_lor_listed_destroy(lg_lor_listed_t *l)
{
    lg_strmap_destroy(&l->keys);
    for (size_t i = 0; i < l->nowned; i++)
        free(l->owned[i]);
    free(l->owned);
    free(l->listings);
    memset(l, 0, sizeof *l);
}

/* Appends one part of a key at *w: a pattern as it is, or "=LENGTH:NAME". */
static void put_part(char **w, const char *pattern, const char *name)
{
    if (pattern != NULL) {
        size_t n = strlen(pattern);
        memcpy(*w, pattern, n);
        *w += n;
        return;
    }
    size_t n = strlen(name);
    *w += sprintf(*w, "=%zu:", n);
    memcpy(*w, name, n);
    *w += n;
}

/* The key of symbol with one pattern or name for each file; the symbol's length comes first
 * too, so that no name, whatever bytes it holds, makes another's key. Built by hand: printf's
 * parsing of a format took most of the time of reading a large .LOR. NULL when memory runs
 * out. */
static char *key_of(const char *symbol, const char *object, const char *object_pattern,
                    const char *source, const char *source_pattern)
{
    /* bytes besides the names: three "=LENGTH:" of at most 20 digits each, and the NUL */
    enum { KEY_OVERHEAD = 3 * 22 + 1 };
    size_t n = strlen(symbol) + (object ? strlen(object) : 0) + (source ? strlen(source) : 0);
    if (n > SIZE_MAX - KEY_OVERHEAD)
        return NULL;
    char *key = malloc(n + KEY_OVERHEAD);
    if (key == NULL)
        return NULL;
    char *w = key;
    put_part(&w, NULL, symbol);
    put_part(&w, object_pattern, object);
    put_part(&w, source_pattern, source);
    *w = '\0';
    return key;
}

/* Finds the earliest listing under key; updates *earliest (UINT32_MAX: none yet). */
static lg_err_t look_up(const lg_lor_listed_t *l, char *key, uint32_t *earliest)
{
    if (key == NULL)
        return LG_ENOMEM;
    uint32_t at;
    if (lg_strmap_get(&l->keys, key, &at) && at < *earliest)
        *earliest = at;
    free(key);
    return LG_OK;
}

/* Puts the listing index under key (kept when an earlier listing holds the key: the first one
 * is what a message names). The map borrows the key; l frees it. */
static lg_err_t put(lg_lor_listed_t *l, char *key, uint32_t index)
{
    if (key == NULL)
        return LG_ENOMEM;
    if (!lg_grow((void **)&l->owned, &l->owned_cap, l->nowned + 1, sizeof *l->owned)) {
        free(key);
        return LG_ENOMEM;
    }
    l->owned[l->nowned++] = key;
    uint32_t unused;
    return lg_strmap_put(&l->keys, key, index, &unused) ? LG_OK : LG_ENOMEM;
}

lg_err_t lg_lor_listed_add(lg_lor_listed_t *l, const lg_lor_fn_t *f, size_t region,
                           const lg_lor_listing_t **earlier)
{
    *earlier = NULL;
    const char *sym = f->symbol, *obj = f->object, *src = f->source;
    /* The keys an earlier line that does not tell f apart was put under: for each file f gives,
     * no such file or f's own; for each it does not, any. */
    const char *none_or_any_obj = obj ? PATTERN_NONE : PATTERN_ANY;
    const char *none_or_any_src = src ? PATTERN_NONE : PATTERN_ANY;
    uint32_t earliest = UINT32_MAX;
    for (int o = 0; o < (obj ? 2 : 1); o++) {
        for (int s = 0; s < (src ? 2 : 1); s++) {
            char *key = key_of(sym, o ? obj : NULL, o ? NULL : none_or_any_obj, s ? src : NULL,
                               s ? NULL : none_or_any_src);
            LG_CHECK(look_up(l, key, &earliest));
        }
    }
    if (earliest != UINT32_MAX) {
        *earlier = &l->listings[earliest];
        return LG_OK;
    }
    if (l->nlistings >= UINT32_MAX)
        return LG_ENOMEM; /* more lines than the map's values can number */
    if (!lg_grow((void **)&l->listings, &l->listings_cap, l->nlistings + 1, sizeof *l->listings))
        return LG_ENOMEM;
    uint32_t index = (uint32_t)l->nlistings;
    l->listings[l->nlistings++] = (lg_lor_listing_t){.line = f->line, .region = region};
    /* Under its own files (or none), and under "any" for each file a later line may not give. */
    const char *own_obj = obj ? NULL : PATTERN_NONE, *own_src = src ? NULL : PATTERN_NONE;
    LG_CHECK(put(l, key_of(sym, obj, own_obj, src, own_src), index));
    LG_CHECK(put(l, key_of(sym, NULL, PATTERN_ANY, src, own_src), index));
    LG_CHECK(put(l, key_of(sym, obj, own_obj, NULL, PATTERN_ANY), index));
    LG_CHECK(put(l, key_of(sym, NULL, PATTERN_ANY, NULL, PATTERN_ANY), index));
    return LG_OK;
}
