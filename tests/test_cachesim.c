/* test_cachesim.c - the set-associative LRU cache simulator: conflicts, LRU order, ranges that
 * span lines, full associativity, sets that are not a power of two, and agreement with naive
 * reference models on random and on structured traces, for scanned and for listed sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "cachesim.h"

#include <stdlib.h>
#include <string.h>

/* 32-byte lines throughout, as on the SH-4. */
#define LINE 32u

static void init_ok(lg_cachesim_t *c, uint32_t cache_size, uint32_t ways)
{
    lg_geometry_t g = {cache_size, LINE, ways};
    lg_diag_t d;
    lg_diag_init(&d);
    lg_err_t err = lg_cachesim_init(c, &g, &d);
    if (err != LG_OK)
        lg_test_diag_dump(&d);
    assert_int_equal(err, LG_OK);
    lg_diag_destroy(&d);
}

static void test_init_reset_destroy(void **state)
{
    (void)state;
    lg_cachesim_t c;
    init_ok(&c, 8192, 1);
    assert_int_equal(c.nsets, 256);
    assert_int_equal(c.line_shift, 5);
    assert_int_equal(c.accesses, 0);
    assert_int_equal(c.misses, 0);
    assert_int_equal(lg_cachesim_access(&c, 0x1000, 1), 1);
    assert_true(lg_cachesim_holds(&c, 0x101f));
    lg_cachesim_reset(&c);
    assert_false(lg_cachesim_holds(&c, 0x1000));
    assert_int_equal(c.accesses, 0);
    lg_cachesim_destroy(&c);
    lg_cachesim_destroy(&c); /* zeroed: accepted */

    lg_cachesim_t zero;
    memset(&zero, 0, sizeof zero);
    lg_cachesim_destroy(&zero);
    lg_cachesim_destroy(NULL);
}

static void test_bad_geometry_is_rejected(void **state)
{
    (void)state;
    const lg_geometry_t bad[] = {
        {8192, 24, 1}, /* line size not a power of two */
        {8192, 32, 0}, /* no ways */
        {0, 32, 1},    /* no cache */
        {8200, 32, 1}, /* not a multiple of line size x ways */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lg_cachesim_t c;
        lg_diag_t d;
        lg_diag_init(&d);
        assert_int_equal(lg_cachesim_init(&c, &bad[i], &d), LG_EINVAL);
        assert_int_equal(d.errors, 1);
        assert_null(c.lines);
        lg_cachesim_destroy(&c);
        lg_diag_destroy(&d);
    }
}

static void test_direct_mapped_conflict(void **state)
{
    (void)state;
    lg_cachesim_t c;
    init_ok(&c, 1024, 1); /* 32 sets */
    /* 0 and 1024 share set 0: alternating between them misses every time. */
    for (int i = 0; i < 10; i++) {
        assert_int_equal(lg_cachesim_access(&c, 0, 4), 1);
        assert_int_equal(lg_cachesim_access(&c, 1024, 4), 1);
    }
    assert_int_equal(c.accesses, 20);
    assert_int_equal(c.misses, 20);

    /* 0 and 32 are in different sets: two cold misses, then only hits. */
    lg_cachesim_reset(&c);
    for (int i = 0; i < 10; i++) {
        lg_cachesim_access(&c, 0, 4);
        lg_cachesim_access(&c, 32, 4);
    }
    assert_int_equal(c.accesses, 20);
    assert_int_equal(c.misses, 2);
    lg_cachesim_destroy(&c);
}

static void test_lru_eviction_order_in_a_two_way_set(void **state)
{
    (void)state;
    lg_cachesim_t c;
    init_ok(&c, 128, 2); /* 2 sets of 2 ways: addresses 0, 64, 128, 192 share set 0 */
    assert_true(lg_cachesim_access_line(&c, 0));  /* miss: [0] */
    assert_true(lg_cachesim_access_line(&c, 2));  /* miss: [2 0] */
    assert_false(lg_cachesim_access_line(&c, 0)); /* hit:  [0 2], 2 is now least recent */
    assert_true(lg_cachesim_access_line(&c, 4));  /* miss: evicts 2 -> [4 0] */
    assert_true(lg_cachesim_holds(&c, 0));
    assert_false(lg_cachesim_holds(&c, 64));
    assert_true(lg_cachesim_holds(&c, 128));
    assert_true(lg_cachesim_access_line(&c, 2)); /* miss: evicts 0 -> [2 4] */
    assert_false(lg_cachesim_holds(&c, 0));
    assert_true(lg_cachesim_holds(&c, 128));
    /* holds() does not refresh: 4 is still the least recent and goes next. */
    assert_true(lg_cachesim_access_line(&c, 6)); /* miss: evicts 4 -> [6 2] */
    assert_false(lg_cachesim_holds(&c, 128));
    /* The other set was never touched. */
    assert_true(lg_cachesim_access_line(&c, 1));
    assert_false(lg_cachesim_holds(&c, 0));
    assert_int_equal(c.accesses, 7);
    assert_int_equal(c.misses, 6);
    lg_cachesim_destroy(&c);
}

static void test_access_spanning_lines(void **state)
{
    (void)state;
    lg_cachesim_t c;
    init_ok(&c, 8192, 1);
    assert_int_equal(lg_cachesim_access(&c, 30, 4), 2); /* bytes 30..33: lines 0 and 1 */
    assert_int_equal(c.accesses, 2);
    assert_int_equal(lg_cachesim_access(&c, 0, 64), 0); /* the same two lines, now cached */
    assert_int_equal(lg_cachesim_access(&c, 64, 0), 0); /* nothing */
    assert_int_equal(c.accesses, 4);
    assert_int_equal(lg_cachesim_access(&c, 64, 32), 1);    /* exactly one line */
    assert_int_equal(lg_cachesim_access(&c, 100, 300), 10); /* lines 3 .. 12 */
    assert_int_equal(c.accesses, 15);
    assert_int_equal(c.misses, 13);

    assert_int_equal(lg_cachesim_span(5, 0, 0), 0);
    assert_int_equal(lg_cachesim_span(5, 0, 1), 1);
    assert_int_equal(lg_cachesim_span(5, 31, 2), 2);
    assert_int_equal(lg_cachesim_span(5, 32, 64), 2);
    /* Clipped at the top of the address space. */
    assert_int_equal(lg_cachesim_span(5, UINT64_MAX - 10, 100), 1);
    assert_int_equal(lg_cachesim_access(&c, UINT64_MAX - 40, UINT64_MAX), 2);
    lg_cachesim_destroy(&c);
}

static void test_fully_associative(void **state)
{
    (void)state;
    lg_cachesim_t c;
    init_ok(&c, 128, 4); /* one set of 4 ways */
    assert_int_equal(c.nsets, 1);
    const uint64_t addr[] = {0, 4096, 8192, 12288, 1u << 20};
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 4; i++)
            lg_cachesim_access(&c, addr[i], 1);
    assert_int_equal(c.misses, 4);      /* any four lines fit, wherever they are */
    lg_cachesim_access(&c, addr[4], 1); /* a fifth evicts the least recent, addr[0] */
    assert_false(lg_cachesim_holds(&c, addr[0]));
    for (int i = 1; i < 5; i++)
        assert_true(lg_cachesim_holds(&c, addr[i]));
    lg_cachesim_destroy(&c);

    /* cachegrind's fully-associative bound for the SH-4 cache: 8192,256,32. */
    init_ok(&c, 8192, 256);
    assert_int_equal(c.nsets, 1);
    for (int round = 0; round < 2; round++)
        for (uint64_t i = 0; i < 256; i++)
            lg_cachesim_access(&c, i * 8192, 1); /* all one set in a direct-mapped cache */
    assert_int_equal(c.misses, 256);
    lg_cachesim_destroy(&c);
}

static void test_sets_not_a_power_of_two(void **state)
{
    (void)state;
    lg_cachesim_t c;
    init_ok(&c, 96, 1); /* 3 sets */
    assert_int_equal(c.nsets, 3);
    assert_int_equal(c.set_mask, 0);
    lg_cachesim_access_line(&c, 0);
    lg_cachesim_access_line(&c, 2); /* set 2 */
    assert_true(lg_cachesim_holds(&c, 0));
    lg_cachesim_access_line(&c, 3); /* set 0: evicts line 0 */
    assert_false(lg_cachesim_holds(&c, 0));
    assert_true(lg_cachesim_holds(&c, 2 * LINE));
    lg_cachesim_destroy(&c);
}

static void test_reset_counters_keeps_contents(void **state)
{
    (void)state;
    lg_cachesim_t c;
    init_ok(&c, 1024, 2);
    lg_cachesim_access(&c, 0, 512); /* warm up */
    assert_int_equal(c.misses, 16);
    lg_cachesim_reset_counters(&c);
    assert_int_equal(lg_cachesim_access(&c, 0, 512), 0);
    assert_int_equal(c.accesses, 16);
    assert_int_equal(c.misses, 0);
    lg_cachesim_destroy(&c);
}

/* ---- a naive reference: every way has a last-use time; the oldest is evicted ------------ */

typedef struct naive {
    uint32_t nsets, ways;
    uint64_t *line, *used; /* nsets * ways */
    uint64_t clock, misses;
} naive_t;

static bool naive_access(naive_t *n, uint64_t line)
{
    uint64_t *l = &n->line[(line % n->nsets) * n->ways];
    uint64_t *u = &n->used[(line % n->nsets) * n->ways];
    n->clock++;
    uint32_t oldest = 0;
    for (uint32_t i = 0; i < n->ways; i++) {
        if (u[i] != 0 && l[i] == line) {
            u[i] = n->clock;
            return false;
        }
        if (u[i] < u[oldest])
            oldest = i;
    }
    l[oldest] = line;
    u[oldest] = n->clock;
    n->misses++;
    return true;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_agrees_with_a_naive_lru_model(void **state)
{
    (void)state;
    const lg_geometry_t geos[] = {
        {1024, LINE, 1}, {1024, LINE, 2}, {1024, LINE, 4}, {768, LINE, 2}, {256, LINE, 8},
    };
    for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
        lg_cachesim_t c;
        init_ok(&c, geos[gi].cache_size, geos[gi].ways);
        naive_t n = {c.nsets, geos[gi].ways, NULL, NULL, 0, 0};
        n.line = calloc((size_t)n.nsets * n.ways, sizeof *n.line);
        n.used = calloc((size_t)n.nsets * n.ways, sizeof *n.used);
        assert_non_null(n.line);
        assert_non_null(n.used);
        for (int i = 0; i < 20000; i++) {
            /* A skewed mix: mostly a small hot range, sometimes anywhere in 4x the cache. */
            uint64_t span = (rng() % 4 == 0 ? 4u : 1u) * geos[gi].cache_size / LINE;
            uint64_t line = rng() % span;
            assert_int_equal(lg_cachesim_access_line(&c, line), naive_access(&n, line));
        }
        assert_int_equal(c.misses, n.misses);
        assert_int_equal(c.accesses, 20000);
        free(n.line);
        free(n.used);
        lg_cachesim_destroy(&c);
    }
}

/* ---- both set representations against a plain LRU -------------------------------------- */

/* The simplest LRU there is: each set an array of its lines, most recently used first. */
typedef struct ref_lru {
    uint32_t nsets, ways;
    uint64_t *line; /* nsets * ways */
    uint32_t *used; /* per set: ways filled */
} ref_lru_t;

static void ref_init(ref_lru_t *r, uint32_t nsets, uint32_t ways)
{
    r->nsets = nsets;
    r->ways = ways;
    r->line = calloc((size_t)nsets * ways, sizeof *r->line);
    r->used = calloc(nsets, sizeof *r->used);
    assert_non_null(r->line);
    assert_non_null(r->used);
}

static void ref_destroy(ref_lru_t *r)
{
    free(r->line);
    free(r->used);
}

static bool ref_access(ref_lru_t *r, uint64_t line)
{
    uint32_t set = (uint32_t)(line % r->nsets);
    uint64_t *l = &r->line[(size_t)set * r->ways];
    uint32_t i = 0;
    while (i < r->used[set] && l[i] != line)
        i++;
    bool miss = i == r->used[set];
    if (miss && r->used[set] < r->ways)
        r->used[set]++;
    if (miss && i == r->ways)
        i--; /* full: the last, least recently used line goes */
    for (; i > 0; i--)
        l[i] = l[i - 1];
    l[0] = line;
    return miss;
}

static bool ref_holds(const ref_lru_t *r, uint64_t line)
{
    uint32_t set = (uint32_t)(line % r->nsets);
    for (uint32_t i = 0; i < r->used[set]; i++)
        if (r->line[(size_t)set * r->ways + i] == line)
            return true;
    return false;
}

/* splitmix64: a seeded generator, so a failing trace can be replayed. */
static uint64_t trace_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Checks holds() for line and a few lines around it against the reference. */
static void check_holds(const lg_cachesim_t *c, const ref_lru_t *r, uint64_t line)
{
    const uint64_t max_line = UINT64_MAX >> c->line_shift;
    const uint64_t probe[] = {line, line + 1, line - 1, line + c->nsets, line - c->nsets};
    for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        if (probe[i] > max_line)
            continue; /* wrapped past either end */
        assert_int_equal(lg_cachesim_holds(c, probe[i] << c->line_shift), ref_holds(r, probe[i]));
    }
}

/* Accesses needed to cover the patterns below several times over in every geometry. */
#define TRACE_ACCESSES 60000u
/* Under LORGEN_TEST_SMALL: still every pattern many times, and in every geometry more misses
 * than the cache has lines (the 3,072 lines of the largest take 4,200 to 5,000), so sets fill
 * and evict. */
#define SMALL_TRACE_ACCESSES 10000u

/* Replays a seeded trace with locality (loops, strides, random jumps, repeats, lines at the
 * top of the address space, ranges over several lines) and checks every answer. */
static void replay_against_reference(const lg_geometry_t *g, uint64_t seed, uint64_t accesses)
{
    lg_cachesim_t c;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_cachesim_init(&c, g, &d), LG_OK);
    lg_diag_destroy(&d);
    ref_lru_t r;
    ref_init(&r, c.nsets, g->ways);
    const uint64_t cache_lines = g->cache_size / g->line_size;
    const uint64_t max_line = UINT64_MAX >> c.line_shift;
    uint64_t s = seed, line = 0, misses = 0, n = 0;
    while (n < accesses) {
        uint64_t pick = trace_next(&s) % 8, len = 1 + trace_next(&s) % 64;
        uint64_t base = line, stride = 1, reps = 1;
        switch (pick) {
        case 0: /* a jump anywhere in a region of about three caches */
            base = trace_next(&s) % (3 * cache_lines);
            break;
        case 1: /* a loop over a short run of lines */
            reps = 2 + trace_next(&s) % 6;
            break;
        case 2: /* a stride that lands in one set every time */
            stride = c.nsets;
            break;
        case 3: /* a stride that walks the sets */
            stride = 1 + trace_next(&s) % 7;
            break;
        case 4: /* the top of the address space */
            base = max_line - trace_next(&s) % (2 * cache_lines);
            break;
        case 5: /* the same line again and again */
            stride = 0;
            break;
        case 6: /* a jump to a far line: the whole 64-bit range */
            base = trace_next(&s) % max_line;
            break;
        default: /* a byte range over several lines through lg_cachesim_access */
            break;
        }
        for (uint64_t k = 0; k < reps; k++) {
            for (uint64_t i = 0; i < len; i++) {
                uint64_t at = base + i * stride;
                if (at > max_line || at < base)
                    break; /* past the top of the address space */
                line = at;
                if (pick == 7) {
                    uint64_t bytes = 1 + trace_next(&s) % (4u * g->line_size);
                    uint64_t address = (line << c.line_shift) + trace_next(&s) % g->line_size;
                    uint64_t span = lg_cachesim_span(c.line_shift, address, bytes), want = 0;
                    for (uint64_t j = 0; j < span; j++)
                        want += ref_access(&r, (address >> c.line_shift) + j);
                    assert_int_equal(lg_cachesim_access(&c, address, bytes), want);
                    misses += want;
                    n += span;
                } else {
                    bool miss = ref_access(&r, line);
                    assert_int_equal(lg_cachesim_access_line(&c, line), miss);
                    misses += miss;
                    n++;
                }
                check_holds(&c, &r, line);
            }
        }
    }
    assert_int_equal(c.accesses, n);
    assert_int_equal(c.misses, misses);
    /* Everything the reference holds, the simulator holds: set by set, way by way. */
    for (uint32_t set = 0; set < r.nsets; set++)
        for (uint32_t i = 0; i < r.used[set]; i++)
            assert_true(lg_cachesim_holds(&c, r.line[(size_t)set * r.ways + i] << c.line_shift));
    ref_destroy(&r);
    lg_cachesim_destroy(&c);
}

static void test_both_set_kinds_match_a_plain_lru(void **state)
{
    (void)state;
    const uint32_t scan = LG_CACHESIM_SCAN_MAX_WAYS, list = LG_CACHESIM_SCAN_MAX_WAYS + 1;
    const lg_geometry_t geos[] = {
        {1024, LINE, 1},               /* direct mapped */
        {4096, LINE, 4},               /* 32 sets */
        {scan * LINE * 4, LINE, scan}, /* the largest scanned sets */
        {scan * LINE, LINE, scan},     /* ... fully associative */
        {list * LINE * 4, LINE, list}, /* the smallest listed sets */
        {list * LINE * 3, LINE, list}, /* ... 3 sets, not a power of two */
        {list * LINE, LINE, list},     /* ... fully associative */
        {48 * 4 * 5, 4, 48},           /* 4-byte lines, 5 sets */
        {32768, LINE, 1024},           /* fully associative, 1,024 ways */
        {1024 * 16 * 3, 16, 1024},     /* 3 sets of 1024 ways */
        {4096 * 64, 4096, 64},         /* the largest lines, fully associative */
    };
    uint64_t accesses = TRACE_ACCESSES;
    if (lg_test_small("traces of 10,000 accesses, not 60,000"))
        accesses = SMALL_TRACE_ACCESSES;
    for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            replay_against_reference(&geos[gi], seed * 0x1000193u + gi, accesses);
}

static void test_listed_sets_reset_and_reset_counters(void **state)
{
    (void)state;
    const uint32_t ways = 4 * LG_CACHESIM_SCAN_MAX_WAYS;
    lg_cachesim_t c;
    init_ok(&c, 3 * ways * LINE, ways); /* 3 listed sets */
    assert_non_null(c.links);
    const uint64_t lines = 3 * (uint64_t)ways;
    for (uint64_t i = 0; i < lines; i++)
        assert_true(lg_cachesim_access_line(&c, i));

    /* reset_counters: the same lines are still there, in the same order. */
    lg_cachesim_reset_counters(&c);
    assert_int_equal(c.accesses, 0);
    assert_int_equal(c.misses, 0);
    for (uint64_t i = 0; i < lines; i++)
        assert_true(lg_cachesim_holds(&c, i * LINE));
    assert_true(lg_cachesim_access_line(&c, lines)); /* set 0: evicts line 0, the oldest */
    assert_false(lg_cachesim_holds(&c, 0));
    assert_true(lg_cachesim_holds(&c, 3 * LINE));
    assert_false(lg_cachesim_access_line(&c, 3)); /* now line 6 is set 0's oldest */
    assert_true(lg_cachesim_access_line(&c, lines + 3));
    assert_false(lg_cachesim_holds(&c, 6 * LINE));
    assert_true(lg_cachesim_holds(&c, 3 * LINE));
    assert_int_equal(c.accesses, 3);
    assert_int_equal(c.misses, 2);

    /* reset: nothing is held, and the cache fills and evicts as a new one would. */
    lg_cachesim_reset(&c);
    assert_int_equal(c.accesses, 0);
    assert_int_equal(c.misses, 0);
    for (uint64_t i = 0; i <= lines + 3; i++)
        assert_false(lg_cachesim_holds(&c, i * LINE));
    for (int round = 0; round < 2; round++)
        for (uint64_t i = 0; i < lines; i += 3)
            lg_cachesim_access_line(&c, i); /* set 0 only, exactly full */
    assert_int_equal(c.misses, ways);
    assert_int_equal(c.accesses, 2 * ways);
    assert_true(lg_cachesim_access_line(&c, lines)); /* evicts line 0 again */
    assert_false(lg_cachesim_holds(&c, 0));
    assert_false(lg_cachesim_holds(&c, 1 * LINE)); /* sets 1 and 2 stayed empty */
    lg_cachesim_destroy(&c);
    assert_null(c.links);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_reset_destroy),
        cmocka_unit_test(test_bad_geometry_is_rejected),
        cmocka_unit_test(test_direct_mapped_conflict),
        cmocka_unit_test(test_lru_eviction_order_in_a_two_way_set),
        cmocka_unit_test(test_access_spanning_lines),
        cmocka_unit_test(test_fully_associative),
        cmocka_unit_test(test_sets_not_a_power_of_two),
        cmocka_unit_test(test_reset_counters_keeps_contents),
        cmocka_unit_test(test_agrees_with_a_naive_lru_model),
        cmocka_unit_test(test_both_set_kinds_match_a_plain_lru),
        cmocka_unit_test(test_listed_sets_reset_and_reset_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
