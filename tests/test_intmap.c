/* test_intmap.c - the integer map (lookups, growth, keys made to collide), and the profile's call
 * pairs, merged through it as they are added. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arcs.h"
#include "intmap.h"
#include "profile.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Keys loaded in the large and the flooding cases. */
#define MANY_KEYS 200000u
/* The flooding keys share this many low bits of splitmix64's finalizer, the unkeyed hash several
 * loaders' own tables used: the slot index in every table up to 2^18 slots, the size that holds
 * MANY_KEYS at half load. */
#define FLOOD_BITS 18u
/* Loading colliding keys may take at most this many times as long as ordinary keys. Linear probing
 * over one cluster is quadratic: thousands of times as long at MANY_KEYS. */
#define FLOOD_MAX_RATIO 10.0
/* Each load is timed this many times and the fastest kept: the machine runs other work. */
#define FLOOD_REPEATS 3

#define SPLITMIX_M1 0xbf58476d1ce4e5b9ull
#define SPLITMIX_M2 0x94d049bb133111ebull

static uint64_t splitmix(uint64_t x)
{
    x ^= x >> 30;
    x *= SPLITMIX_M1;
    x ^= x >> 27;
    x *= SPLITMIX_M2;
    return x ^ (x >> 31);
}

/* The inverse of an odd number modulo 2^64, by Newton's iteration. */
static uint64_t odd_inverse(uint64_t a)
{
    uint64_t x = a;
    for (int i = 0; i < 6; i++)
        x *= 2 - a * x;
    return x;
}

/* The inverse of x ^= x >> shift. */
static uint64_t unshift(uint64_t y, unsigned shift)
{
    uint64_t x = y;
    for (unsigned s = shift; s < 64; s += shift)
        x = y ^ (x >> shift);
    return x;
}

/* The key whose splitmix64 finalizer is h: every step of the finalizer is invertible. */
static uint64_t splitmix_preimage(uint64_t h)
{
    uint64_t x = unshift(h, 31);
    x *= odd_inverse(SPLITMIX_M2);
    x = unshift(x, 27);
    x *= odd_inverse(SPLITMIX_M1);
    return unshift(x, 30);
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Adds every key with its index as value and looks each up; returns the seconds it took, or a
 * negative number past give_up seconds (checked every few thousand keys, so that a quadratic map
 * fails in seconds). */
static double load_seconds(const void *all, size_t n, double give_up)
{
    const uint64_t *keys = all;
    lg_intmap_t m;
    lg_intmap_init(&m);
    double start = now_seconds();
    for (size_t i = 0; i < n; i++) {
        bool added = false;
        assert_non_null(lg_intmap_find_or_add(&m, keys[i], i, &added));
        assert_true(added);
        if (i % 4096 == 0 && now_seconds() - start > give_up) {
            lg_intmap_destroy(&m);
            return -1.0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t v = UINT64_MAX;
        assert_true(lg_intmap_get(&m, keys[i], &v));
        assert_int_equal(v, i);
    }
    double took = now_seconds() - start;
    assert_int_equal(m.count, n);
    lg_intmap_destroy(&m);
    return took;
}

static void test_find_or_add_keeps_the_first_value_and_set_replaces_it(void **state)
{
    (void)state;
    lg_intmap_t m;
    lg_intmap_init(&m);
    uint64_t v = 0;
    bool added = false;
    assert_false(lg_intmap_get(&m, 7, &v));
    uint64_t *slot = lg_intmap_find_or_add(&m, 7, 70, &added);
    assert_non_null(slot);
    assert_true(added);
    assert_int_equal(*slot, 70);
    slot = lg_intmap_find_or_add(&m, 7, 99, &added);
    assert_false(added);
    assert_int_equal(*slot, 70);
    *slot += 1; /* the pointer is the value */
    assert_true(lg_intmap_get(&m, 7, &v));
    assert_int_equal(v, 71);
    assert_true(lg_intmap_set(&m, 7, 5));
    assert_true(lg_intmap_set(&m, 8, 6));
    assert_true(lg_intmap_get(&m, 7, &v));
    assert_int_equal(v, 5);
    assert_true(lg_intmap_get(&m, 8, NULL));
    assert_false(lg_intmap_get(&m, 9, NULL));
    assert_int_equal(m.count, 2);
    lg_intmap_destroy(&m);
    lg_intmap_destroy(&m); /* a destroyed map is a zeroed one */
}

static void test_every_key_value_is_a_key_zero_and_the_free_marker_included(void **state)
{
    (void)state;
    lg_intmap_t m;
    lg_intmap_init(&m);
    const uint64_t keys[] = {0, LG_INTMAP_FREE, LG_INTMAP_FREE - 1, 1ull << 63, 1};
    const size_t n = sizeof keys / sizeof keys[0];
    for (size_t i = 0; i < n; i++)
        assert_true(lg_intmap_set(&m, keys[i], 100 + i));
    assert_int_equal(m.count, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        assert_true(lg_intmap_get(&m, keys[i], &v));
        assert_int_equal(v, 100 + i);
    }
    /* The walk meets each key once, whatever the order. */
    size_t cursor = 0, seen = 0;
    uint64_t key, value;
    bool met[5] = {false};
    while (lg_intmap_next(&m, &cursor, &key, &value)) {
        size_t i = (size_t)(value - 100);
        assert_true(i < n);
        assert_false(met[i]);
        assert_true(keys[i] == key);
        met[i] = true;
        seen++;
    }
    assert_int_equal(seen, n);
    assert_false(lg_intmap_next(&m, &cursor, &key, &value));
    lg_intmap_destroy(&m);
}

static void test_growth_keeps_every_key_of_a_large_load(void **state)
{
    (void)state;
    uint64_t *keys = malloc(MANY_KEYS * sizeof *keys);
    assert_non_null(keys);
    /* Multiples of a large power of two: one slot under an identity or shift hash. */
    for (size_t i = 0; i < MANY_KEYS; i++)
        keys[i] = (uint64_t)i << 40 | 3;
    assert_true(load_seconds(keys, MANY_KEYS, 1e9) >= 0);
    lg_intmap_t m;
    lg_intmap_init(&m);
    for (size_t i = 0; i < MANY_KEYS; i++)
        assert_true(lg_intmap_set(&m, keys[i], i));
    assert_true(m.capacity >= 2 * m.count); /* at most half full */
    for (size_t i = 0; i < MANY_KEYS; i += 7) {
        uint64_t v;
        assert_true(lg_intmap_get(&m, keys[i], &v));
        assert_int_equal(v, i);
        assert_false(lg_intmap_get(&m, keys[i] + 1, &v));
    }
    lg_intmap_destroy(&m);
    free(keys);
}

static void test_colliding_keys_load_as_fast_as_ordinary_ones(void **state)
{
    (void)state;
    /* Arrange: keys whose splitmix64 hashes share their low FLOOD_BITS bits, and ordinary ones. */
    uint64_t *flood = malloc(MANY_KEYS * sizeof *flood);
    uint64_t *plain = malloc(MANY_KEYS * sizeof *plain);
    assert_non_null(flood);
    assert_non_null(plain);
    const uint64_t mask = (1ull << FLOOD_BITS) - 1;
    for (size_t i = 0; i < MANY_KEYS; i++) {
        flood[i] = splitmix_preimage((uint64_t)(i + 1) << FLOOD_BITS | 0x2a5a5);
        plain[i] = i;
        assert_int_equal(splitmix(flood[i]) & mask, 0x2a5a5 & mask);
    }
    /* Act and assert: time both loads; close to linear for any keys. */
    lg_test_assert_no_flooding(load_seconds, plain, flood, MANY_KEYS, FLOOD_REPEATS,
                               FLOOD_MAX_RATIO, "keys");
    free(flood);
    free(plain);
}

/* ---- The profile's call pairs ------------------------------------------------------------- */

static void add_funcs(lg_profile_t *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%u", i);
        lg_pfunc_t f = {.name = name};
        assert_int_equal(lg_profile_add_func(p, &f, NULL), LG_OK);
    }
}

static void test_profile_sums_repeated_edges_as_they_are_added(void **state)
{
    (void)state;
    lg_profile_t p;
    lg_profile_init(&p);
    add_funcs(&p, 4);
    /* Arrange and act: repeated pairs, one of them past UINT64_MAX in total. */
    assert_int_equal(lg_profile_add_edge(&p, 2, 1, 5), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, 0, 3, 1), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, 2, 1, 7), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, 1, 1, UINT64_MAX - 1), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, 1, 1, 3), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, 0, 3, 2), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, 4, 0, 2), LG_EINVAL);
    /* Assert: one edge per pair while loading, in the order first added. */
    assert_int_equal(p.nedges, 3);
    assert_int_equal(p.edges[0].weight, 12);
    assert_int_equal(p.edges[1].weight, 3);
    assert_true(p.edges[2].weight == UINT64_MAX);
    lg_profile_finish_edges(&p);
    const lg_arc_t want[] = {{0, 3, 3}, {1, 1, UINT64_MAX}, {2, 1, 12}};
    assert_int_equal(p.nedges, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(p.edges[i].caller, want[i].caller);
        assert_int_equal(p.edges[i].callee, want[i].callee);
        assert_true(p.edges[i].weight == want[i].weight);
    }
    /* A pair added after finishing still merges. */
    assert_int_equal(lg_profile_add_edge(&p, 2, 1, 1), LG_OK);
    assert_int_equal(p.nedges, 3);
    assert_int_equal(p.edges[2].weight, 13);
    lg_profile_destroy(&p);
}

static void test_profile_proximity_pairs_are_unordered_and_summed(void **state)
{
    (void)state;
    lg_profile_t p;
    lg_profile_init(&p);
    add_funcs(&p, 3);
    assert_int_equal(lg_profile_add_proximity(&p, 2, 0, 4), LG_OK);
    assert_int_equal(lg_profile_add_proximity(&p, 0, 2, 1), LG_OK);
    assert_int_equal(lg_profile_add_proximity(&p, 1, 0, 1), LG_OK);
    assert_int_equal(lg_profile_add_proximity(&p, 1, 1, 1), LG_EINVAL);
    lg_profile_finish_edges(&p);
    assert_int_equal(p.nproximity, 2);
    assert_int_equal(p.proximity[0].a, 0);
    assert_int_equal(p.proximity[0].b, 1);
    assert_int_equal(p.proximity[0].weight, 1);
    assert_int_equal(p.proximity[1].a, 0);
    assert_int_equal(p.proximity[1].b, 2);
    assert_int_equal(p.proximity[1].weight, 5);
    lg_profile_destroy(&p);
}

/* Random repeated edges: merging as they come gives what appending and sort-merging gave. */
static void test_profile_edges_equal_a_sort_merge_of_every_record(void **state)
{
    (void)state;
    enum { FUNCS = 300, RECORDS = 100000 };
    lg_profile_t p;
    lg_profile_init(&p);
    add_funcs(&p, FUNCS);
    lg_arc_t *all = malloc(RECORDS * sizeof *all);
    assert_non_null(all);
    uint64_t x = 12345;
    for (size_t i = 0; i < RECORDS; i++) {
        x = splitmix(x + i);
        /* Skewed: a few hot callers, so pairs repeat often. */
        uint32_t caller = (uint32_t)(x % FUNCS) % ((x >> 20) % 2 ? 17 : FUNCS);
        uint32_t callee = (uint32_t)((x >> 32) % FUNCS) % 31;
        uint64_t weight = (x >> 60) == 15 ? UINT64_MAX / 3 : (x >> 40) % 1000;
        all[i] = (lg_arc_t){caller, callee, weight};
        assert_int_equal(lg_profile_add_edge(&p, caller, callee, weight), LG_OK);
    }
    size_t n = RECORDS;
    lg_arcs_merge(all, &n);
    lg_profile_finish_edges(&p);
    assert_int_equal(p.nedges, n);
    assert_memory_equal(p.edges, all, n * sizeof *all);
    free(all);
    lg_profile_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest map[] = {
        cmocka_unit_test(test_find_or_add_keeps_the_first_value_and_set_replaces_it),
        cmocka_unit_test(test_every_key_value_is_a_key_zero_and_the_free_marker_included),
        cmocka_unit_test(test_growth_keeps_every_key_of_a_large_load),
        cmocka_unit_test(test_colliding_keys_load_as_fast_as_ordinary_ones),
    };
    const struct CMUnitTest profile[] = {
        cmocka_unit_test(test_profile_sums_repeated_edges_as_they_are_added),
        cmocka_unit_test(test_profile_proximity_pairs_are_unordered_and_summed),
        cmocka_unit_test(test_profile_edges_equal_a_sort_merge_of_every_record),
    };
    int failed = cmocka_run_group_tests_name("integer map", map, NULL, NULL);
    failed += cmocka_run_group_tests_name("profile call pairs", profile, NULL, NULL);
    return failed;
}
