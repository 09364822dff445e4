/* strmap.c - open-addressing string map; see strmap.h. */
#include "strmap.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Grow when more than this share of slots is used, in percent: linear probing degrades fast past
 * about 70%. */
#define LG_STRMAP_MAX_LOAD_PCT 70u
#define LG_STRMAP_MIN_SLOTS 64u

/* The hash is SipHash-1-3 (Aumasson and Bernstein; one compression round, three finalization
 * rounds) under a key drawn once per process. With a fixed hash, names chosen to share the low
 * bits of their hashes fall into one cluster and make loading quadratic: 80,000 such names took
 * 49.6 s with unkeyed FNV-1a. Without the key they cannot be chosen. No caller walks the table,
 * so the key changes where names sit, never what any output holds. */
#define SIP_INIT_V0 0x736f6d6570736575ull /* "somepseu" */
#define SIP_INIT_V1 0x646f72616e646f6dull /* "dorandom" */
#define SIP_INIT_V2 0x6c7967656e657261ull /* "lygenera" */
#define SIP_INIT_V3 0x7465646279746573ull /* "tedbytes" */
#define SIP_FINAL_XOR 0xffu

static uint64_t g_key[2];
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

static uint64_t rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64 - b));
}

uint64_t lg_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void draw_key(void)
{
    FILE *f = fopen("/dev/urandom", "rb");
    bool got = f != NULL && fread(g_key, sizeof g_key, 1, f) == 1;
    if (f != NULL)
        fclose(f);
    if (got)
        return;
    /* No /dev/urandom (a chroot): the clock and the stack's address (randomized by the loader)
     * still differ between runs, and an attacker has to guess them. */
    struct timespec t = {0};
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t seed = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
    seed ^= (uint64_t)(uintptr_t)&t;
    g_key[0] = lg_mix64(seed);
    g_key[1] = lg_mix64(seed ^ (uint64_t)getpid());
}

typedef struct sip {
    uint64_t v0, v1, v2, v3;
} sip_t;

/* inline: without it gcc -O2 calls the round and keeps the state in memory; lg_hash64 then took
 * 1.7 times the instructions, and a 512-way cache simulation 1.6 times as long. */
static inline void sip_round(sip_t *s)
{
    s->v0 += s->v1;
    s->v1 = rotl(s->v1, 13) ^ s->v0;
    s->v0 = rotl(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = rotl(s->v3, 16) ^ s->v2;
    s->v0 += s->v3;
    s->v3 = rotl(s->v3, 21) ^ s->v0;
    s->v2 += s->v1;
    s->v1 = rotl(s->v1, 17) ^ s->v2;
    s->v2 = rotl(s->v2, 32);
}

static inline void sip_word(sip_t *s, uint64_t m)
{
    s->v3 ^= m;
    sip_round(s);
    s->v0 ^= m;
}

/* The state before the first word, under the process key. */
static sip_t sip_start(void)
{
    pthread_once(&g_key_once, draw_key);
    sip_t s = {SIP_INIT_V0 ^ g_key[0], SIP_INIT_V1 ^ g_key[1], SIP_INIT_V2 ^ g_key[0],
               SIP_INIT_V3 ^ g_key[1]};
    return s;
}

static uint64_t sip_finish(sip_t *s)
{
    s->v2 ^= SIP_FINAL_XOR;
    sip_round(s);
    sip_round(s);
    sip_round(s);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

uint64_t lg_strhash(const char *str)
{
    const unsigned char *p = (const unsigned char *)str;
    size_t len = strlen(str);
    sip_t s = sip_start();
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = 0;
        for (unsigned k = 0; k < 8; k++)
            m |= (uint64_t)p[i + k] << (8 * k);
        sip_word(&s, m);
    }
    /* The last word: the remaining bytes, and the length's low byte on top. */
    uint64_t last = (uint64_t)(len & 0xff) << 56;
    for (size_t k = 0; whole + k < len; k++)
        last |= (uint64_t)p[whole + k] << (8 * k);
    sip_word(&s, last);
    return sip_finish(&s);
}

uint64_t lg_hash64(uint64_t x)
{
    /* SipHash-1-3 of x's 8 bytes, little-endian, like lg_strhash of an 8-byte string: the word,
     * then the length word (8 in the top byte). */
    sip_t s = sip_start();
    sip_word(&s, x);
    sip_word(&s, (uint64_t)8 << 56);
    return sip_finish(&s);
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
