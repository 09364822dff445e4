/* lor_internal.h - what the files of the .LOR floor share and nobody else needs: the flag words
 * both the writer and the reader spell, and the small helpers more than one of them calls. */
#ifndef LG_LOR_INTERNAL_H
#define LG_LOR_INTERNAL_H

#include "lor.h"
#include "strmap.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Frees what one fn entry owns (not the entry itself). */
void lg_lor_fn_free(lg_lor_fn_t *f);

/* Where a .LOR lists a function: its fn line, and the region it is a member of. */
#define LG_LOR_IN_CLIQUE SIZE_MAX /* lg_lor_listing_t.region of a clique's function */
typedef struct lg_lor_listing {
    size_t line;
    size_t region; /* index into lg_lor_t.regions, or LG_LOR_IN_CLIQUE */
} lg_lor_listing_t;

/* Every function of a .LOR being read, in its cliques and regions alike (lor_listed.c): one map
 * over the whole file, so a function listed twice is found wherever its two lines are. */
typedef struct lg_lor_listed {
    lg_strmap_t keys; /* a listing's name and files -> index into listings */
    char **owned;     /* the keys, which the map borrows */
    size_t nowned, owned_cap;
    lg_lor_listing_t *listings; /* in the order the lines were read */
    size_t nlistings, listings_cap;
} lg_lor_listed_t;

void lg_lor_listed_init(lg_lor_listed_t *l);
void lg_lor_listed_destroy(lg_lor_listed_t *l);

/* Records f (its line in f->line), listed in region (LG_LOR_IN_CLIQUE for a clique), unless an
 * earlier line names the same function: the same symbol, and no object= or source= on both
 * lines that differ (same-named statics are told apart so). Then *earlier is the first such line
 * and f is not recorded; else *earlier is NULL. O(1) expected. LG_ENOMEM when memory runs out. */
lg_err_t lg_lor_listed_add(lg_lor_listed_t *l, const lg_lor_fn_t *f, size_t region,
                           const lg_lor_listing_t **earlier);

/* True for the input kinds that record --include and --exclude rules. */
static inline bool lg_lor_is_select_kind(const char *kind)
{
    return strcmp(kind, "include") == 0 || strcmp(kind, "exclude") == 0;
}

/* The words of the flags on fn and clique lines, as written and as read. */
static const struct {
    uint32_t bit;
    const char *word;
} fn_flag_words[] = {
    {LG_FN_SECTION_INFERRED, "inferred"},
    {LG_FN_SHARED_SECTION, "shared"},
    {LG_FN_LOCAL, "local"},
    {LG_FN_AMBIGUOUS_NAME, "ambiguous"},
};

static const struct {
    uint32_t bit;
    const char *word;
} clique_flag_words[] = {
    {LG_CLIQUE_OVERSIZED, "oversized"},
    {LG_CLIQUE_NO_CALLS, "uncalled"},
    {LG_CLIQUE_FILLER, "filler"},
};

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

#endif
