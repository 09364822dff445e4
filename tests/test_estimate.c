/* test_estimate.c - the miss estimate: placements from a layout and from the ELF, and the
 * replay on programs whose right answer is known (conflicting vs adjacent hot functions, a loop
 * that fits the cache, associativity), its counts, determinism and work bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "clique.h"
#include "estimate.h"
#include "layout.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- building programs by hand (as in test_clique.c) ------------------------------------ */

typedef struct fn_spec {
    const char *name;
    uint64_t size;  /* bytes */
    uint64_t align; /* bytes; 0 or 1 = none */
    uint64_t hits;
} fn_spec_t;

typedef struct arc_spec {
    const char *caller;
    const char *callee;
    uint64_t weight;
} arc_spec_t;

static uint32_t fn_index(const fn_spec_t *fns, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fns[i].name, name) == 0)
            return (uint32_t)i;
    fail_msg("no function named %s in the test program", name);
    return 0;
}

/* Fills p with the functions (in input order, no addresses) and the arcs; strings are malloc'd
 * so that lg_program_destroy frees them. */
static void make_program(lg_program_t *p, const fn_spec_t *fns, size_t n, const arc_spec_t *arcs,
                         size_t narcs)
{
    lg_program_init(p);
    p->fns = calloc(n ? n : 1, sizeof *p->fns);
    assert_non_null(p->fns);
    p->nfns = n;
    for (size_t i = 0; i < n; i++) {
        lg_fn_t *f = &p->fns[i];
        char section[256];
        snprintf(section, sizeof section, ".text.%s", fns[i].name);
        f->symbol = strdup(fns[i].name);
        f->section = strdup(section);
        assert_non_null(f->symbol);
        assert_non_null(f->section);
        f->address = UINT64_MAX;
        f->size = fns[i].size;
        f->align = fns[i].align;
        f->hits = fns[i].hits;
        f->input_order = (uint32_t)i;
    }
    p->arcs = calloc(narcs ? narcs : 1, sizeof *p->arcs);
    assert_non_null(p->arcs);
    p->narcs = narcs;
    for (size_t i = 0; i < narcs; i++)
        p->arcs[i] = (lg_arc_t){fn_index(fns, n, arcs[i].caller), fn_index(fns, n, arcs[i].callee),
                                arcs[i].weight};
    p->has_call_edges = narcs > 0;
}

#define MAKE(p, fns, arcs)                                                                         \
    make_program((p), (fns), sizeof(fns) / sizeof((fns)[0]), (arcs),                               \
                 sizeof(arcs) / sizeof((arcs)[0]))
#define MAKE_NO_ARCS(p, fns) make_program((p), (fns), sizeof(fns) / sizeof((fns)[0]), NULL, 0)

#define LINE 32u

static lg_geometry_t geometry(uint32_t cache_size, uint32_t ways)
{
    return (lg_geometry_t){cache_size, LINE, ways};
}

/* Runs the estimate, failing the test on error. */
static void estimate(const lg_program_t *p, const uint64_t *addr, lg_geometry_t g,
                     const lg_estimate_opts_t *o, lg_estimate_t *e)
{
    lg_diag_t d;
    lg_diag_init(&d);
    lg_estimate_init(e);
    lg_err_t err = lg_estimate_misses(p, addr, &g, o, e, &d);
    if (err != LG_OK)
        lg_test_diag_dump(&d);
    assert_int_equal(err, LG_OK);
    assert_int_equal(e->nfns, p->nfns);
    uint64_t sum = 0;
    for (size_t i = 0; i < p->nfns; i++)
        sum += e->fn_misses[i];
    assert_int_equal(sum, e->misses);
    assert_true(e->misses <= e->accesses);
    lg_diag_destroy(&d);
}

static uint64_t lines_of(uint64_t bytes)
{
    return (bytes + LINE - 1) / LINE;
}

/* ---- the ranking properties ------------------------------------------------------------- */

/* main runs a loop calling hot, and hot calls leaf in its own loop: hot and leaf alternate
 * 10000 times. */
static const fn_spec_t pair_fns[] = {
    {"main", 64, 1, 1},
    {"hot", 256, 1, 100},
    {"leaf", 256, 1, 10000},
};
static const arc_spec_t pair_arcs[] = {
    {"main", "hot", 100},
    {"hot", "leaf", 10000},
};

static void test_colliding_hot_pair_misses_far_more_than_adjacent(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, pair_fns, pair_arcs);
    lg_geometry_t dm = geometry(1024, 1);
    /* hot at 0 and leaf at 1024 share all 8 sets of hot; main sits clear at 512. */
    const uint64_t colliding[] = {512, 0, 1024};
    const uint64_t adjacent[] = {512, 0, 256};
    lg_estimate_t ec, ea;
    estimate(&p, colliding, dm, NULL, &ec);
    estimate(&p, adjacent, dm, NULL, &ea);

    uint64_t cold = lines_of(64) + lines_of(256) * 2;
    assert_int_equal(ea.misses, cold); /* everything fits: only the first fetch of each line */
    /* Each of the 10000 calls evicts hot's lines for leaf's and back again. */
    assert_true(ec.misses >= 10000u * 2u * lines_of(256));
    assert_true(ec.misses > 100 * ea.misses);
    assert_true(ec.fn_misses[1] >= 10000u * lines_of(256)); /* hot */
    assert_true(ec.fn_misses[2] >= 10000u * lines_of(256)); /* leaf */
    assert_int_equal(ec.fn_misses[0], lines_of(64));        /* main never conflicts */
    assert_int_equal(ec.scale, 1.0);
    assert_int_equal(ec.invocations, 1 + 100 + 10000);
    assert_int_equal(ec.calls, 100 + 10000);

    lg_estimate_destroy(&ec);
    lg_estimate_destroy(&ea);
    lg_program_destroy(&p);
}

static void test_two_ways_remove_the_collision(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, pair_fns, pair_arcs);
    /* Twice the size at 2 ways: still 32 sets, so 0 and 1024 still share sets. */
    lg_geometry_t two_way = geometry(2048, 2);
    const uint64_t colliding[] = {512, 0, 1024};
    lg_estimate_t e;
    estimate(&p, colliding, two_way, NULL, &e);
    assert_int_equal(e.misses, lines_of(64) + lines_of(256) * 2);

    /* Three functions on the same sets defeat 2 ways again: main moves onto them too, and
     * evicts one of the pair each time it resumes between its calls of hot. */
    const uint64_t three[] = {2048, 0, 1024};
    lg_estimate_t e3;
    estimate(&p, three, two_way, NULL, &e3);
    assert_true(e3.misses > 10 * e.misses);
    lg_estimate_destroy(&e);
    lg_estimate_destroy(&e3);
    lg_program_destroy(&p);
}

/* A loop of eight functions that fits the cache, placed contiguously by a layout: after the
 * first fetch of each line nothing misses. Spread over the sets the same cache conflicts. */
static void test_loop_that_fits_the_cache_only_misses_cold(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"main", 96, 16, 1},   {"f1", 200, 16, 5000}, {"f2", 120, 16, 5000}, {"f3", 250, 16, 5000},
        {"f4", 90, 16, 5000},  {"f5", 300, 16, 5000}, {"f6", 64, 16, 5000},  {"f7", 128, 16, 5000},
        {"f8", 100, 16, 5000}, {"cold", 4096, 16, 0},
    };
    const arc_spec_t arcs[] = {
        {"main", "f1", 5000}, {"main", "f2", 5000}, {"main", "f3", 5000}, {"main", "f4", 5000},
        {"main", "f5", 5000}, {"main", "f6", 5000}, {"main", "f7", 5000}, {"main", "f8", 5000},
    };
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_geometry_t dm = geometry(2048, 1);
    lg_layout_t l;
    lg_layout_init(&l);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_clique_partition(&p, &dm, &l, &d), LG_OK);
    assert_int_equal(l.ncliques, 1);

    uint64_t addr[10];
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x10000, addr, &d), LG_OK);
    lg_estimate_t e;
    estimate(&p, addr, dm, NULL, &e);
    uint64_t cold = 0;
    for (size_t i = 0; i < 9; i++) {
        uint64_t first = addr[i] / LINE, last = (addr[i] + p.fns[i].size - 1) / LINE;
        cold += last - first + 1;
    }
    assert_true(e.misses <= cold); /* lines shared by neighbours miss once */
    assert_true(e.misses >= cold - 8);
    assert_int_equal(e.fn_misses[9], 0); /* never executed: never fetched */
    assert_true(e.accesses > 80000);

    /* Each function 2 KiB apart: all on the same sets. */
    uint64_t spread[10];
    for (size_t i = 0; i < 10; i++)
        spread[i] = 0x10000 + i * 2048;
    lg_estimate_t es;
    estimate(&p, spread, dm, NULL, &es);
    assert_true(es.misses > 50 * e.misses);

    lg_estimate_destroy(&e);
    lg_estimate_destroy(&es);
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_deterministic(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"main", 100, 1, 1}, {"a", 700, 1, 3000}, {"b", 300, 1, 2000}, {"c", 900, 1, 2500},
        {"d", 150, 1, 9000}, {"e", 2000, 1, 400}, {"r", 120, 1, 5000}, {"stat", 400, 1, 700},
    };
    const arc_spec_t arcs[] = {
        {"main", "a", 3000}, {"a", "b", 2000}, {"a", "d", 4000}, {"b", "d", 3000},
        {"main", "c", 2500}, {"c", "e", 400},  {"e", "d", 2000}, {"c", "r", 1000},
        {"r", "r", 4000},    {"d", "a", 10},
    };
    lg_program_t p;
    MAKE(&p, fns, arcs);
    uint64_t addr[8];
    for (size_t i = 0; i < 8; i++)
        addr[i] = 0x4000 + i * 0x340;
    const lg_geometry_t geos[] = {geometry(2048, 1), geometry(4096, 2), geometry(2048, 64)};
    for (size_t g = 0; g < 3; g++) {
        lg_estimate_t e1, e2;
        estimate(&p, addr, geos[g], NULL, &e1);
        estimate(&p, addr, geos[g], NULL, &e2);
        assert_int_equal(e1.accesses, e2.accesses);
        assert_int_equal(e1.misses, e2.misses);
        assert_int_equal(e1.steps, e2.steps);
        assert_int_equal(e1.invocations, e2.invocations);
        assert_memory_equal(e1.fn_misses, e2.fn_misses, 8 * sizeof *e1.fn_misses);
        /* Every count replayed: each function entered max(hits, calls into it) times. */
        assert_int_equal(e1.invocations, 1 + 3010 + 2000 + 2500 + 9000 + 400 + 5000 + 700);
        assert_int_equal(e1.rounds, 1);
        assert_int_equal(e1.calls,
                         3000 + 2000 + 4000 + 3000 + 2500 + 400 + 2000 + 1000 + 4000 + 10);
        assert_int_equal(e1.steps, e1.invocations + e1.calls);
        /* Reusing an estimate frees what it held. */
        assert_int_equal(lg_estimate_misses(&p, addr, &geos[g], NULL, &e1, NULL), LG_OK);
        assert_int_equal(e1.misses, e2.misses);
        lg_estimate_destroy(&e1);
        lg_estimate_destroy(&e2);
    }
    lg_program_destroy(&p);
}

static void test_work_bound_is_respected(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"main", 64, 1, 1},
        {"hot", 256, 1, 1000000000000000ull},
        {"leaf", 256, 1, 4000000000000000ull},
        {"other", 96, 1, 7},
    };
    const arc_spec_t arcs[] = {
        {"main", "hot", 1000000000000000ull},
        {"hot", "leaf", 4000000000000000ull},
        {"main", "other", 7},
    };
    lg_program_t p;
    MAKE(&p, fns, arcs);
    const uint64_t addr[] = {512, 0, 1024, 2048};
    lg_estimate_opts_t o;
    lg_estimate_opts_init(&o);
    o.max_touches = 100000;
    clock_t t0 = clock();
    lg_estimate_t e;
    estimate(&p, addr, geometry(1024, 1), &o, &e);
    assert_true(e.scale < 1e-9);
    assert_true(e.accesses <= o.max_touches);
    assert_true(e.accesses > o.max_touches / 10);
    assert_true(e.fn_misses[3] > 0); /* a rare function still runs at least once */
    /* The conflict is still seen at the smaller scale. */
    assert_true(e.misses > e.accesses / 2);

    /* The default bound, on a huge count: finishes in well under a few seconds. */
    lg_estimate_t e2;
    estimate(&p, addr, geometry(1024, 1), NULL, &e2);
    assert_true(e2.accesses <= LG_ESTIMATE_MAX_TOUCHES_DEFAULT);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 10.0);
    lg_estimate_destroy(&e);
    lg_estimate_destroy(&e2);
    lg_program_destroy(&p);
}

/* ---- the replay's details --------------------------------------------------------------- */

static void test_caller_is_fetched_again_after_each_call(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"main", 64, 1, 1}, {"f", 32, 1, 3}};
    const arc_spec_t arcs[] = {{"main", "f", 3}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    const uint64_t addr[] = {0, 4096}; /* the same set of a 1 KiB cache */
    lg_estimate_t e;
    estimate(&p, addr, geometry(1024, 1), NULL, &e);
    /* main(2 lines) f main(line 0 again, line 1) f main f main: main's line 0 misses on every
     * visit (4), its line 1 once, f on every visit (3). */
    assert_int_equal(e.accesses, 4 * 2 + 3);
    assert_int_equal(e.fn_misses[0], 5);
    assert_int_equal(e.fn_misses[1], 3);
    assert_int_equal(e.steps, 1 + 3 + 3);
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

static void test_callees_alternate_as_in_a_loop(void **state)
{
    (void)state;
    /* main calls a 2000 times and b 1000 times; a and b share a set, main does not. In stride
     * order (a b a a b a a b ... a) every b evicts a and the next a evicts b back; run in two
     * phases (all a, then all b) they would miss twice in all. */
    const fn_spec_t fns[] = {{"main", 32, 1, 1}, {"a", 32, 1, 2000}, {"b", 32, 1, 1000}};
    const arc_spec_t arcs[] = {{"main", "a", 2000}, {"main", "b", 1000}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    const uint64_t addr[] = {32, 0, 1024};
    lg_estimate_t e;
    estimate(&p, addr, geometry(1024, 1), NULL, &e);
    assert_int_equal(e.fn_misses[0], 1);
    assert_int_equal(e.fn_misses[1], 1 + 1000);
    assert_int_equal(e.fn_misses[2], 1000);
    lg_estimate_destroy(&e);

    /* In a 2-way cache the same placement keeps both. */
    estimate(&p, addr, geometry(2048, 2), NULL, &e);
    assert_int_equal(e.misses, 3);
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

static void test_statistical_profile_replays_hits(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"a", 64, 1, 300}, {"b", 64, 1, 100}, {"c", 64, 1, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    const uint64_t addr[] = {0, 1024, 2048};
    lg_estimate_t e;
    estimate(&p, addr, geometry(1024, 1), NULL, &e);
    assert_int_equal(e.invocations, 400);
    assert_int_equal(e.calls, 0);
    assert_int_equal(e.rounds, 1);
    /* Stride order by hits: a a b a a a b a ... every b evicts a and back: 2 x 100 + 1 misses
     * of 2 lines each. */
    assert_int_equal(e.fn_misses[1], 100 * 2);
    assert_int_equal(e.fn_misses[0], 101 * 2);
    assert_int_equal(e.fn_misses[2], 0);
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

static void test_recursion_and_cycles_replay_every_count(void **state)
{
    (void)state;
    /* A deep self-recursion (100000 nested calls on average) and a mutual recursion entered
     * only from an unprofiled caller (no root count of its own). */
    const fn_spec_t fns[] = {
        {"main", 64, 1, 1},
        {"rec", 64, 1, 100001},
        {"ping", 64, 1, 50000},
        {"pong", 64, 1, 50000},
    };
    const arc_spec_t arcs[] = {
        {"main", "rec", 1},
        {"rec", "rec", 100000},
        {"ping", "pong", 50000},
        {"pong", "ping", 50000},
    };
    lg_program_t p;
    MAKE(&p, fns, arcs);
    const uint64_t addr[] = {0, 64, 128, 192};
    lg_estimate_t e;
    lg_estimate_opts_t o;
    lg_estimate_opts_init(&o);
    o.max_touches = 20u * 1000u * 1000u; /* room for every count: nothing scaled */
    estimate(&p, addr, geometry(1024, 1), &o, &e);
    /* Every call is replayed; the cycle's one entry from the top comes on top of its calls. */
    assert_int_equal(e.calls, 1 + 100000 + 50000 + 50000);
    assert_true(e.invocations >= 1 + 100001 + 50000 + 50000);
    assert_true(e.invocations <= 1 + 100001 + 50000 + 50000 + 1);
    assert_true(e.deferred > 0);
    assert_true(e.rounds >= 2);    /* ping and pong were entered only in a later round */
    assert_int_equal(e.misses, 8); /* everything fits */
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

static void test_large_function_is_fetched_a_window_at_a_time(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"main", 64, 1, 1}, {"big", 4096, 1, 10}, {"small", 32, 1, 100}};
    const arc_spec_t arcs[] = {{"main", "big", 10}, {"big", "small", 100}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    const uint64_t addr[] = {0, 1024, 64};
    lg_estimate_opts_t o;
    lg_estimate_opts_init(&o);
    o.window_bytes = 256;
    lg_estimate_t e;
    estimate(&p, addr, geometry(8192, 1), &o, &e);
    /* main: 1 + 10 visits of 2 lines; big: 10 + 100 visits of 8 lines; small: 100 of 1. */
    assert_int_equal(e.accesses, 11 * 2 + 110 * 8 + 100);
    /* 110 windows of 256 bytes sweep the 4096-byte body about 7 times: all of it is fetched,
     * each line once, in an 8 KiB cache. */
    assert_int_equal(e.fn_misses[1], 4096 / LINE);
    lg_estimate_destroy(&e);

    o.window_bytes = LG_ESTIMATE_WHOLE_BODY;
    estimate(&p, addr, geometry(8192, 1), &o, &e);
    assert_int_equal(e.accesses, 11 * 2 + 110 * 128 + 100);
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

static void test_footprints_narrow_a_body_to_its_hot_lines(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"main", 64, 1, 1}, {"big", 4096, 1, 1000}};
    const arc_spec_t arcs[] = {{"main", "big", 1000}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    /* In a 1 KiB cache, big's hot lines at 0x100..0x140 and 0xc40..0xc60 (sets 8, 9, 2) avoid
     * main's sets 0 and 1. */
    const uint64_t addr[] = {0, 0x10000};
    const lg_estimate_range_t hot[] = {{0x100, 0x40}, {0xc40, 0x20}};
    lg_estimate_footprint_t fp[2] = {{NULL, 0}, {hot, 2}};
    lg_estimate_opts_t o;
    lg_estimate_opts_init(&o);
    o.footprints = fp;
    lg_estimate_t e;
    estimate(&p, addr, geometry(1024, 1), &o, &e);
    assert_int_equal(e.accesses, 1001 * 2 + 1000 * 3);
    assert_int_equal(e.misses, 2 + 3);
    lg_estimate_destroy(&e);

    /* Whole, big covers main's sets and both miss on every call. */
    estimate(&p, addr, geometry(1024, 1), NULL, &e);
    assert_true(e.misses > 2000);
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

static void test_unplaced_functions_are_not_fetched(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"main", 64, 1, 1}, {"gone", 64, 1, 10}, {"zero", 0, 1, 5}};
    const arc_spec_t arcs[] = {{"main", "gone", 10}, {"main", "zero", 5}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    const uint64_t addr[] = {0, LG_ADDRESS_NONE, 64};
    lg_estimate_t e;
    estimate(&p, addr, geometry(1024, 1), NULL, &e);
    assert_int_equal(e.unplaced, 1); /* zero-size functions have nothing to fetch */
    assert_int_equal(e.fn_misses[1], 0);
    assert_int_equal(e.invocations, 16);
    assert_int_equal(e.accesses, 16 * 2); /* main, 16 visits of 2 lines */
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

static void test_errors_leave_the_estimate_empty(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, pair_fns, pair_arcs);
    const uint64_t addr[] = {0, 256, 512};
    lg_diag_t d;
    lg_diag_init(&d);
    lg_estimate_t e;
    lg_estimate_init(&e);
    lg_geometry_t bad = {1000, 32, 1};
    assert_int_equal(lg_estimate_misses(&p, addr, &bad, NULL, &e, &d), LG_EINVAL);
    assert_null(e.fn_misses);
    assert_int_equal(e.accesses, 0);

    p.arcs[1].callee = 7;
    lg_geometry_t g = geometry(1024, 1);
    assert_int_equal(lg_estimate_misses(&p, addr, &g, NULL, &e, &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "arc 1"));
    assert_null(e.fn_misses);
    lg_estimate_destroy(&e);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_empty_program(void **state)
{
    (void)state;
    lg_program_t p;
    make_program(&p, NULL, 0, NULL, 0);
    lg_estimate_t e;
    estimate(&p, NULL, geometry(1024, 1), NULL, &e);
    assert_int_equal(e.accesses, 0);
    assert_int_equal(e.invocations, 0);
    lg_estimate_destroy(&e);
    lg_estimate_destroy(&e);
    lg_program_destroy(&p);
}

/* ---- placements ------------------------------------------------------------------------- */

static void test_addresses_from_layout(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"a", 10, 4, 1},    {"b", 20, 16, 1}, {"c", 30, 1, 1},
        {"cold1", 5, 8, 0}, {"d", 7, 32, 1},  {"cold2", 3, 0, 0},
    };
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    uint32_t c1[] = {2, 1}, c2[] = {4};
    lg_clique_t cliques[] = {{.fns = c1, .nfns = 2}, {.fns = c2, .nfns = 1}};
    lg_layout_t l;
    lg_layout_init(&l);
    l.cliques = cliques;
    l.ncliques = 2;
    uint64_t addr[6];
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x1000, addr, &d), LG_OK);
    assert_int_equal(addr[2], 0x1000);      /* c: 30 bytes */
    assert_int_equal(addr[1], 0x1000 + 32); /* b aligned to 16 */
    assert_int_equal(addr[4], 0x1000 + 64); /* d aligned to 32, after b ends at 52 */
    /* The rest in input order: a (align 4) at 71 -> 72, cold1 (8) at 82 -> 88, cold2 at 93. */
    assert_int_equal(addr[0], 0x1000 + 72);
    assert_int_equal(addr[3], 0x1000 + 88);
    assert_int_equal(addr[5], 0x1000 + 93);

    /* Cache-aware placement: the start aligned to the way size, padding before a clique. */
    cliques[1].pad_before = 100;
    l.section_align = 0x800;
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x1010, addr, &d), LG_OK);
    assert_int_equal(addr[2], 0x1800);
    assert_int_equal(addr[1], 0x1800 + 32);
    assert_int_equal(addr[4], 0x1800 + 160); /* b ends at 52, + 100 = 152, aligned to 32 */
    assert_int_equal(addr[0], 0x1800 + 168);
    l.section_align = 0;
    cliques[1].pad_before = 0;

    /* A phased function (d at +16 in a 32-byte line): its code at the first address 16 bytes
     * past a line, the next function after its code. The line is the address's, as the linker
     * script pads to ABSOLUTE(.): from 0x1000, b ends at 0x1034 and d starts at 0x1050; from
     * 0x1010, b ends at 0x1044 and d starts at 0x1050 too (not a line later). */
    p.fns[4].flags |= LG_FN_PHASED;
    p.fns[4].lead = 16;
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x1000, addr, &d), LG_OK);
    assert_int_equal(addr[4], 0x1000 + 64 + 16);
    assert_int_equal(addr[0], 0x1000 + 88); /* d's code ends at 87, a aligned to 4 */
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x1010, addr, &d), LG_OK);
    assert_int_equal(addr[1], 0x1010 + 32);
    assert_int_equal(addr[4], 0x1050);
    p.fns[4].flags &= ~LG_FN_PHASED;
    p.fns[4].lead = 0;

    /* A fast region's code (a, out of the cliques) is fetched elsewhere: no address, and the
     * rest closes up (cold1 at 82 -> 88 before; now after d's end at 71 -> 72). From the ELF it
     * has none either. */
    p.fns[0].flags |= LG_FN_UNCACHED;
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x1000, addr, &d), LG_OK);
    assert_int_equal(addr[0], LG_ADDRESS_NONE);
    assert_int_equal(addr[3], 0x1000 + 72);
    for (size_t i = 0; i < p.nfns; i++)
        p.fns[i].address = 0x4000 + 0x100 * i;
    assert_int_equal(lg_addresses_from_elf(&p, addr, &d), LG_OK);
    assert_int_equal(addr[0], LG_ADDRESS_NONE);
    assert_int_equal(addr[1], 0x4100);
    p.fns[0].flags &= ~LG_FN_UNCACHED;

    /* A function in two cliques, or out of range. */
    uint32_t dup[] = {1};
    lg_clique_t twice[] = {{.fns = c1, .nfns = 2}, {.fns = dup, .nfns = 1}};
    l.cliques = twice;
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0, addr, &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "already placed"));
    uint32_t far[] = {6};
    lg_clique_t out_of_range[] = {{.fns = far, .nfns = 1}};
    l.cliques = out_of_range;
    l.ncliques = 1;
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0, addr, &d), LG_EINVAL);
    /* Past the address space. */
    l.ncliques = 0;
    assert_int_equal(lg_addresses_from_layout(&p, &l, UINT64_MAX - 50, addr, &d), LG_EINVAL);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_addresses_from_elf(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, pair_fns, pair_arcs);
    uint64_t addr[3];
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_addresses_from_elf(&p, addr, &d), LG_EUNSUPPORTED);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "no linked address"));
    assert_int_equal(lg_addresses_text_base(&p), 0);
    p.fns[0].address = 0x401000;
    p.fns[1].address = 0x400800;
    p.fns[2].address = 0x400c00;
    assert_int_equal(lg_addresses_from_elf(&p, addr, &d), LG_OK);
    assert_int_equal(addr[0], 0x401000);
    assert_int_equal(addr[2], 0x400c00);
    assert_int_equal(lg_addresses_text_base(&p), 0x400800);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* A clique layout of a program with call-heavy groups misses less than the input order when
 * the input order spreads the groups over the same sets. */
static void test_clique_layout_beats_a_conflicting_input_order(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"main", 128, 1, 1},  {"x1", 400, 1, 2000}, {"pad1", 1648, 1, 0}, {"x2", 400, 1, 2000},
        {"pad2", 1648, 1, 0}, {"x3", 400, 1, 2000}, {"pad3", 1648, 1, 0}, {"y1", 300, 1, 3000},
    };
    const arc_spec_t arcs[] = {
        {"main", "x1", 2000},
        {"x1", "x2", 2000},
        {"x2", "x3", 2000},
        {"x3", "y1", 3000},
    };
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_geometry_t dm = geometry(2048, 1);
    uint64_t input[8], best[8];
    uint64_t end = 0;
    for (size_t i = 0; i < 8; i++) {
        input[i] = end;
        end += p.fns[i].size;
        p.fns[i].address = input[i];
    }
    lg_layout_t l;
    lg_layout_init(&l);
    assert_int_equal(lg_clique_partition(&p, &dm, &l, NULL), LG_OK);
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0, best, NULL), LG_OK);
    uint64_t elf[8];
    assert_int_equal(lg_addresses_from_elf(&p, elf, NULL), LG_OK);
    lg_estimate_t ein, ebest;
    estimate(&p, elf, dm, NULL, &ein);
    estimate(&p, best, dm, NULL, &ebest);
    assert_true(ebest.misses * 10 < ein.misses);
    lg_estimate_destroy(&ein);
    lg_estimate_destroy(&ebest);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colliding_hot_pair_misses_far_more_than_adjacent),
        cmocka_unit_test(test_two_ways_remove_the_collision),
        cmocka_unit_test(test_loop_that_fits_the_cache_only_misses_cold),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_work_bound_is_respected),
        cmocka_unit_test(test_caller_is_fetched_again_after_each_call),
        cmocka_unit_test(test_callees_alternate_as_in_a_loop),
        cmocka_unit_test(test_statistical_profile_replays_hits),
        cmocka_unit_test(test_recursion_and_cycles_replay_every_count),
        cmocka_unit_test(test_large_function_is_fetched_a_window_at_a_time),
        cmocka_unit_test(test_footprints_narrow_a_body_to_its_hot_lines),
        cmocka_unit_test(test_unplaced_functions_are_not_fetched),
        cmocka_unit_test(test_errors_leave_the_estimate_empty),
        cmocka_unit_test(test_empty_program),
        cmocka_unit_test(test_addresses_from_layout),
        cmocka_unit_test(test_addresses_from_elf),
        cmocka_unit_test(test_clique_layout_beats_a_conflicting_input_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
