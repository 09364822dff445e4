/* test_strmap.c - the string map: lookups, and loading names made to collide (hash flooding). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "strmap.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* As many names as the report of issue 13 loaded: 49.6 s with the old hash, 0.11 s ordinary. */
#define FLOOD_NAMES 80000u
/* The names collide in this many low bits of 64-bit FNV-1a, the map's hash before keying: the
 * slot index of every table up to 2^17 slots, the size that holds FLOOD_NAMES. */
#define FLOOD_BITS 17u
/* Loading colliding names may take at most this many times as long as ordinary names. Linear
 * probing over one cluster is quadratic: about 400 times as long at FLOOD_NAMES. */
#define FLOOD_MAX_RATIO 10.0
/* Each load is timed this many times and the fastest kept: the machine runs other work. */
#define FLOOD_REPEATS 3
#define NAME_CAP 32u

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

static const char ALPHABET[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$";
#define ALPHABET_LEN (sizeof ALPHABET - 1)

static uint64_t fnv_step(uint64_t h, unsigned char c)
{
    return (h ^ c) * FNV_PRIME;
}

/* The inverse of the (odd) FNV prime modulo 2^64, by Newton's iteration: each step doubles the
 * number of correct low bits. */
static uint64_t fnv_prime_inverse(void)
{
    uint64_t x = FNV_PRIME; /* correct in the low 3 bits for any odd number */
    for (int i = 0; i < 6; i++)
        x *= 2 - FNV_PRIME * x;
    return x;
}

/* Names whose FNV-1a hashes all end in the same FLOOD_BITS bits. Each is a unique prefix and four
 * characters c1..c4. The low bits of (h ^ c) * prime depend only on the low bits of h, so the
 * states after c1 that reach the target through c2 c3 c4 can be tabled by running the steps
 * backwards; then for each prefix a c1 is tried until its state is in the table. */
static char *colliding_names(size_t n)
{
    const uint64_t mask = (1ull << FLOOD_BITS) - 1, inv = fnv_prime_inverse();
    const uint64_t target = 0x5a5a5 & mask;
    uint32_t *tail = malloc((mask + 1) * sizeof *tail); /* state after c1 -> c2 c3 c4, or 0 */
    char *names = calloc(n, NAME_CAP);
    assert_non_null(tail);
    assert_non_null(names);
    memset(tail, 0, (mask + 1) * sizeof *tail);
    for (uint32_t a = 0; a < ALPHABET_LEN; a++)
        for (uint32_t b = 0; b < ALPHABET_LEN; b++)
            for (uint32_t c = 0; c < ALPHABET_LEN; c++) {
                uint64_t u3 = (target * inv) ^ (unsigned char)ALPHABET[c];
                uint64_t u2 = (u3 * inv) ^ (unsigned char)ALPHABET[b];
                uint64_t u1 = (u2 * inv) ^ (unsigned char)ALPHABET[a];
                tail[u1 & mask] = 1u + (a << 16 | b << 8 | c);
            }
    for (size_t i = 0; i < n; i++) {
        char *name = names + i * NAME_CAP;
        int len = snprintf(name, NAME_CAP, "flood_%06zu_", i);
        uint64_t h = FNV_OFFSET;
        for (int k = 0; k < len; k++)
            h = fnv_step(h, (unsigned char)name[k]);
        bool found = false;
        for (size_t a = 0; a < ALPHABET_LEN && !found; a++) {
            uint32_t t = tail[fnv_step(h, (unsigned char)ALPHABET[a]) & mask];
            if (t == 0)
                continue;
            t--;
            name[len] = ALPHABET[a];
            name[len + 1] = ALPHABET[t >> 16];
            name[len + 2] = ALPHABET[(t >> 8) & 0xff];
            name[len + 3] = ALPHABET[t & 0xff];
            found = true;
        }
        assert_true(found);
    }
    free(tail);
    return names;
}

static char *ordinary_names(size_t n)
{
    char *names = calloc(n, NAME_CAP);
    assert_non_null(names);
    for (size_t i = 0; i < n; i++)
        snprintf(names + i * NAME_CAP, NAME_CAP, "plain_%06u_fn%u", (unsigned)(i % 1000000u),
                 (unsigned)(i * 7919 % 10007));
    return names;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Puts every name and looks each up; returns the seconds it took, or a negative number when it
 * passed give_up seconds (checked every few thousand names, so that a quadratic map fails the
 * test in seconds instead of running for a minute). */
static double load_seconds(const void *all, size_t n, double give_up)
{
    const char *names = all;
    lg_strmap_t m;
    lg_strmap_init(&m);
    double start = now_seconds();
    for (size_t i = 0; i < n; i++) {
        assert_true(lg_strmap_put(&m, names + i * NAME_CAP, (uint32_t)i, NULL));
        if (i % 4096 == 0 && now_seconds() - start > give_up) {
            lg_strmap_destroy(&m);
            return -1.0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t v = UINT32_MAX;
        assert_true(lg_strmap_get(&m, names + i * NAME_CAP, &v));
        assert_int_equal(v, i);
    }
    double took = now_seconds() - start;
    assert_int_equal(m.count, n);
    lg_strmap_destroy(&m);
    return took;
}

static void test_colliding_names_load_as_fast_as_ordinary_ones(void **state)
{
    (void)state;
    /* Arrange: names that all share the old hash's low bits, and ordinary ones. */
    char *flood = colliding_names(FLOOD_NAMES);
    char *plain = ordinary_names(FLOOD_NAMES);
    uint64_t mask = (1ull << FLOOD_BITS) - 1, first = FNV_OFFSET;
    for (const char *p = flood; *p; p++)
        first = fnv_step(first, (unsigned char)*p);
    for (size_t i = 0; i < FLOOD_NAMES; i += 997) {
        uint64_t h = FNV_OFFSET;
        for (const char *p = flood + i * NAME_CAP; *p; p++)
            h = fnv_step(h, (unsigned char)*p);
        assert_int_equal(h & mask, first & mask);
    }
    /* Act and assert: time both loads; close to linear for any names. */
    lg_test_assert_no_flooding(load_seconds, plain, flood, FLOOD_NAMES, FLOOD_REPEATS,
                               FLOOD_MAX_RATIO, "names");
    free(flood);
    free(plain);
}

static void test_put_keeps_the_first_value_and_chains_the_rest(void **state)
{
    (void)state;
    lg_strmap_t m;
    lg_strmap_init(&m);
    uint32_t next[3], existing = 0, v = 0;
    assert_false(lg_strmap_get(&m, "a", &v));
    assert_true(lg_strmap_put_chained(&m, next, "a", 0));
    assert_true(lg_strmap_put_chained(&m, next, "b", 1));
    assert_true(lg_strmap_put_chained(&m, next, "a", 2));
    assert_true(lg_strmap_put(&m, "a", 9, &existing));
    assert_int_equal(existing, 0);
    assert_true(lg_strmap_get(&m, "a", &v));
    assert_int_equal(v, 0);
    assert_int_equal(next[0], 2);
    assert_int_equal(next[2], UINT32_MAX);
    assert_int_equal(next[1], UINT32_MAX);
    assert_false(lg_strmap_get(&m, "c", &v));
    assert_int_equal(m.count, 2);
    lg_strmap_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_keeps_the_first_value_and_chains_the_rest),
        cmocka_unit_test(test_colliding_names_load_as_fast_as_ordinary_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
