/* wordtab.c - counts words in an open-addressing hash table (FNV-1a, linear probing). */
#include "demo.h"

#include <stdlib.h>
#include <string.h>

#define WT_MAX_LOAD_PERCENT 70

/* Same name as the static in checksum.c: a final avalanche so that linear probing spreads. */
static __attribute__((noinline)) uint32_t mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

uint32_t wt_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a'); /* case-insensitive */
        h = (h ^ c) * 16777619u;
    }
    return mix(h);
}

static int same_word(const word_entry_t *e, const char *s, size_t len)
{
    if (e->len != len)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char a = e->word[i], b = s[i];
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

static char *dup_lower(const char *s, size_t len)
{
    char *w = malloc(len + 1);
    if (w == NULL)
        die("out of memory");
    for (size_t i = 0; i < len; i++)
        w[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
    w[len] = '\0';
    return w;
}

void wt_init(wordtab_t *t, size_t cap)
{
    t->cap = cap;
    t->used = 0;
    t->slots = calloc(cap, sizeof *t->slots);
    if (t->slots == NULL)
        die("out of memory");
}

void wt_free(wordtab_t *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].word);
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

static size_t find_slot(const wordtab_t *t, uint32_t h, const char *s, size_t len)
{
    size_t i = h & (t->cap - 1);
    while (t->slots[i].word != NULL && !(t->slots[i].hash == h && same_word(&t->slots[i], s, len)))
        i = (i + 1) & (t->cap - 1);
    return i;
}

static void grow(wordtab_t *t)
{
    wordtab_t bigger;
    wt_init(&bigger, t->cap * 2);
    for (size_t i = 0; i < t->cap; i++) {
        word_entry_t *e = &t->slots[i];
        if (e->word == NULL)
            continue;
        size_t j = find_slot(&bigger, e->hash, e->word, e->len);
        bigger.slots[j] = *e;
        bigger.used++;
    }
    free(t->slots);
    *t = bigger;
}

void wt_add(wordtab_t *t, const char *word, size_t len)
{
    if ((t->used + 1) * 100 > t->cap * WT_MAX_LOAD_PERCENT)
        grow(t);
    uint32_t h = wt_hash(word, len);
    size_t i = find_slot(t, h, word, len);
    word_entry_t *e = &t->slots[i];
    if (e->word == NULL) {
        e->word = dup_lower(word, len);
        e->len = (unsigned)len;
        e->hash = h;
        t->used++;
    }
    e->count++;
}

size_t wt_collect(const wordtab_t *t, word_entry_t ***out)
{
    word_entry_t **v = malloc((t->used ? t->used : 1) * sizeof *v);
    if (v == NULL)
        die("out of memory");
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].word != NULL)
            v[n++] = &t->slots[i];
    *out = v;
    return n;
}
