/* intmap.c - open-addressing integer map; see intmap.h. */
#include "intmap.h"

#include "strmap.h"

#include <stdlib.h>
#include <string.h>

/* The map grows when an insertion would fill more than half of its slots: integer keys are
 * looked up far more often than they are added (one lookup per call record), and linear probing
 * finds a missing key fast only well below full. */
#define LG_INTMAP_MIN_SLOTS 64u

void lg_intmap_init(lg_intmap_t *m)
{
    memset(m, 0, sizeof *m);
}

void lg_intmap_destroy(lg_intmap_t *m)
{
    if (m == NULL)
        return;
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* The slot holding key, or the empty slot where it belongs. capacity must be > 0 and key must not
 * be LG_INTMAP_FREE. */
static lg_intmap_slot_t *find_slot(lg_intmap_slot_t *slots, size_t capacity, uint64_t key)
{
    size_t mask = capacity - 1;
    size_t i = (size_t)lg_hash64(key) & mask;
    while (slots[i].key != key && slots[i].key != LG_INTMAP_FREE)
        i = (i + 1) & mask;
    return &slots[i];
}

static bool rehash(lg_intmap_t *m, size_t capacity)
{
    lg_intmap_slot_t *slots = malloc(capacity * sizeof *slots);
    if (slots == NULL)
        return false;
    for (size_t i = 0; i < capacity; i++)
        slots[i].key = LG_INTMAP_FREE;
    for (size_t i = 0; i < m->capacity; i++)
        if (m->slots[i].key != LG_INTMAP_FREE)
            *find_slot(slots, capacity, m->slots[i].key) = m->slots[i];
    free(m->slots);
    m->slots = slots;
    m->capacity = capacity;
    return true;
}

bool lg_intmap_get(const lg_intmap_t *m, uint64_t key, uint64_t *value)
{
    const uint64_t *found;
    if (key == LG_INTMAP_FREE) {
        if (!m->has_free_key)
            return false;
        found = &m->free_key_value;
    } else {
        if (m->capacity == 0)
            return false;
        const lg_intmap_slot_t *s = find_slot(m->slots, m->capacity, key);
        if (s->key == LG_INTMAP_FREE)
            return false;
        found = &s->value;
    }
    if (value != NULL)
        *value = *found;
    return true;
}

uint64_t *lg_intmap_find_or_add(lg_intmap_t *m, uint64_t key, uint64_t value, bool *added)
{
    bool is_new;
    uint64_t *slot;
    if (key == LG_INTMAP_FREE) {
        is_new = !m->has_free_key;
        if (is_new) {
            m->has_free_key = true;
            m->free_key_value = value;
            m->count++;
        }
        slot = &m->free_key_value;
    } else {
        lg_intmap_slot_t *s = NULL;
        if (m->capacity > 0) {
            s = find_slot(m->slots, m->capacity, key);
            if (s->key == key) {
                if (added != NULL)
                    *added = false;
                return &s->value;
            }
        }
        /* A new key: grow first when it would fill more than half the slots. */
        if (2 * (m->count + 1) > m->capacity) {
            size_t capacity = m->capacity ? m->capacity : LG_INTMAP_MIN_SLOTS / 2;
            do {
                if (capacity > SIZE_MAX / 2 / sizeof *m->slots)
                    return NULL;
                capacity *= 2;
            } while (2 * (m->count + 1) > capacity);
            if (!rehash(m, capacity))
                return NULL;
            s = find_slot(m->slots, m->capacity, key);
        }
        is_new = true;
        *s = (lg_intmap_slot_t){key, value};
        m->count++;
        slot = &s->value;
    }
    if (added != NULL)
        *added = is_new;
    return slot;
}

bool lg_intmap_set(lg_intmap_t *m, uint64_t key, uint64_t value)
{
    uint64_t *v = lg_intmap_find_or_add(m, key, value, NULL);
    if (v == NULL)
        return false;
    *v = value;
    return true;
}

bool lg_intmap_next(const lg_intmap_t *m, size_t *cursor, uint64_t *key, uint64_t *value)
{
    /* Cursor 0 is the free key, then slot i is cursor i + 1. */
    if (*cursor == 0) {
        *cursor = 1;
        if (m->has_free_key) {
            *key = LG_INTMAP_FREE;
            *value = m->free_key_value;
            return true;
        }
    }
    for (size_t i = *cursor - 1; i < m->capacity; i++) {
        if (m->slots[i].key != LG_INTMAP_FREE) {
            *key = m->slots[i].key;
            *value = m->slots[i].value;
            *cursor = i + 2;
            return true;
        }
    }
    *cursor = m->capacity + 1;
    return false;
}
