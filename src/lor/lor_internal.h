/* lor_internal.h - what the files of the .LOR floor share and nobody else needs: the flag words
 * both the writer and the reader spell, and the small helpers more than one of them calls. */
#ifndef LG_LOR_INTERNAL_H
#define LG_LOR_INTERNAL_H

#include "lor.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Frees what one fn entry owns (not the entry itself). */
void lg_lor_fn_free(lg_lor_fn_t *f);

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
