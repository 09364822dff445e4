/* strmap.c - open-addressing string map; see strmap.h. */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

/* Grow when more than this share of slots is used, in percent: linear probing degrades fast past
 * about 70%. */
#define LG_STRMAP_MAX_LOAD_PCT 70u
#define LG_STRMAP_MIN_SLOTS 64u

uint64_t lg_strhash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a 64-bit offset basis */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull; /* FNV-1a 64-bit prime */
    }
    return h;
}

void lg_strmap_init(lg_strmap_t *m)
{
    memset(m, 0, sizeof *m);
}

void lg_strmap_destroy(lg_strmap_t *m)
{
    if (m == NULL)
        return;
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

static size_t find_slot(const char **keys, size_t capacity, const char *key)
{
    size_t mask = capacity - 1;
    size_t i = (size_t)lg_strhash(key) & mask;
    while (keys[i] != NULL && strcmp(keys[i], key) != 0)
        i = (i + 1) & mask;
    return i;
}

static bool rehash(lg_strmap_t *m, size_t capacity)
{
    const char **keys = calloc(capacity, sizeof *keys);
    uint32_t *values = calloc(capacity, sizeof *values);
    if (keys == NULL || values == NULL) {
        free(keys);
        free(values);
        return false;
    }
    for (size_t i = 0; i < m->capacity; i++) {
        if (m->keys[i] == NULL)
            continue;
        size_t j = find_slot(keys, capacity, m->keys[i]);
        keys[j] = m->keys[i];
        values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->capacity = capacity;
    return true;
}

bool lg_strmap_put(lg_strmap_t *m, const char *key, uint32_t value, uint32_t *existing)
{
    if ((m->count + 1) * 100 > m->capacity * LG_STRMAP_MAX_LOAD_PCT) {
        size_t capacity = m->capacity ? m->capacity : LG_STRMAP_MIN_SLOTS / 2;
        do {
            if (capacity > SIZE_MAX / 2 / sizeof(void *))
                return false;
            capacity *= 2;
        } while ((m->count + 1) * 100 > capacity * LG_STRMAP_MAX_LOAD_PCT);
        if (!rehash(m, capacity))
            return false;
    }
    size_t i = find_slot(m->keys, m->capacity, key);
    if (m->keys[i] != NULL) {
        if (existing != NULL)
            *existing = m->values[i];
        return true;
    }
    m->keys[i] = key;
    m->values[i] = value;
    m->count++;
    if (existing != NULL)
        *existing = value;
    return true;
}

bool lg_strmap_get(const lg_strmap_t *m, const char *key, uint32_t *value)
{
    if (m->capacity == 0)
        return false;
    size_t i = find_slot(m->keys, m->capacity, key);
    if (m->keys[i] == NULL)
        return false;
    *value = m->values[i];
    return true;
}

void lg_chain_append(uint32_t *next, uint32_t first, uint32_t index)
{
    next[index] = UINT32_MAX;
    if (first == index)
        return;
    uint32_t tail = first;
    while (next[tail] != UINT32_MAX)
        tail = next[tail];
    next[tail] = index;
}

bool lg_strmap_put_chained(lg_strmap_t *m, uint32_t *next, const char *key, uint32_t index)
{
    uint32_t first;
    if (!lg_strmap_put(m, key, index, &first))
        return false;
    lg_chain_append(next, first, index);
    return true;
}
