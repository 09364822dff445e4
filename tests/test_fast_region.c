/* test_fast_region.c - choosing a fast region's code (optimizer/fast_region.h) on programs whose
 * best set is known: ties, fixed groups, alignment, what never goes in, and the greedy pass
 * against a brute force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "fast_region.h"
#include "groups.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The members' symbols in the region's order, space-separated (static storage). */
static const char *members_text(const lg_program_t *p, const lg_fast_region_t *r)
{
    static char buf[1024];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->nmembers; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "",
                                p->fns[r->members[i]].symbol);
    return buf;
}

static void choose(const lg_program_t *p, uint64_t budget, uint64_t cells, lg_fast_region_t *r)
{
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_fast_region_choose(p, NULL, budget, cells, r, &d), LG_OK);
    lg_diag_destroy(&d);
}

/* Two smaller functions together beat the hottest one, which a greedy by value would take. */
static void test_exact_best_set(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {
        {"big", 60, 4, 100, 0}, {"left", 48, 4, 70, 0}, {"right", 48, 4, 70, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    lg_fast_region_t r;
    choose(&p, 100, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_true(r.exact);
    assert_string_equal(members_text(&p, &r), "left right");
    assert_int_equal(r.value, 140);
    assert_int_equal(r.used, 96);
    assert_int_equal(r.bound, 140);
    assert_int_equal(r.candidates_value, 240);
    lg_fast_region_destroy(&r);
    lg_program_destroy(&p);
}

/* Equal value: the set of fewer bytes, then the first in input order. */
static void test_ties(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {
        {"wide", 60, 1, 10, 0}, {"narrow", 40, 1, 10, 0}, {"twin", 40, 1, 10, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    lg_fast_region_t r;
    choose(&p, 60, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_string_equal(members_text(&p, &r), "narrow");
    assert_int_equal(r.used, 40);
    lg_fast_region_destroy(&r);
    choose(&p, 60, 0, &r); /* greedy: equal ratio and value, input order */
    assert_false(r.exact);
    assert_string_equal(members_text(&p, &r), "narrow");
    lg_fast_region_destroy(&r);
    lg_program_destroy(&p);
}

/* Alignment padding counts: two 10-byte functions aligned to 16 take 32 bytes. Members are
 * listed by alignment descending so that none needs padding. */
static void test_alignment_counts(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {
        {"small", 6, 2, 5, 0}, {"a16", 10, 16, 50, 0}, {"b16", 10, 16, 40, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    lg_fast_region_t r;
    choose(&p, 31, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_string_equal(members_text(&p, &r), "a16 small");
    assert_int_equal(r.used, 22);
    lg_fast_region_destroy(&r);
    choose(&p, 38, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_string_equal(members_text(&p, &r), "a16 b16 small");
    assert_int_equal(r.used, 38);
    lg_fast_region_destroy(&r);
    lg_program_destroy(&p);
}

/* Too big for the region, never executed, excluded, stuck in a shared section: never chosen;
 * a zero budget takes nothing. */
static void test_what_stays_out(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {{"huge", 5000, 4, 1000000, 0},
                                    {"cold", 8, 4, 0, 0},
                                    {"excluded", 8, 4, 900, LG_FN_EXCLUDED},
                                    {"stuck", 8, 4, 800, LG_FN_SECTION_UNKNOWN},
                                    {"warm", 8, 4, 3, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    lg_fast_region_t r;
    choose(&p, 1024, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_string_equal(members_text(&p, &r), "warm");
    assert_int_equal(r.candidates_value, 1000003);
    lg_fast_region_destroy(&r);
    choose(&p, 0, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_int_equal(r.nmembers, 0);
    assert_int_equal(r.used, 0);
    lg_fast_region_destroy(&r);
    choose(&p, 0, 0, &r);
    assert_int_equal(r.nmembers, 0);
    lg_fast_region_destroy(&r);
    lg_program_destroy(&p);
}

/* Self costs are the value when the program has them, not hits. */
static void test_counters_are_the_value(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {{"called", 40, 1, 1000, 0}, {"loops", 40, 1, 1, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    p.fns[0].counter1_self = 50;
    p.fns[1].counter1_self = 90000;
    lg_fast_region_t r;
    choose(&p, 40, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_true(r.counters);
    assert_string_equal(members_text(&p, &r), "loops");
    lg_fast_region_destroy(&r);
    lg_program_destroy(&p);
}

/* A fixed group (groups.h) is one unit: all of its bytes go in, or none. io_write, io_read and
 * io_close share io.o's .text: 196 bytes from io_write's start to io_close's end, 208 aligned. */
static void test_group_whole_or_not(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {
        {"main", 64, 16, 1, 0},
        {"io_read", 100, 16, 500, LG_FN_SHARED_SECTION},
        {"parse", 200, 16, 300, 0},
        {"io_write", 40, 16, 300, LG_FN_SHARED_SECTION},
        {"io_close", 20, 16, 0, LG_FN_SHARED_SECTION},
    };
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    const uint64_t at[] = {0x1000, 0x2040, 0x1100, 0x2000, 0x20b0};
    for (size_t i = 0; i < p.nfns; i++) {
        p.fns[i].address = at[i];
        if (p.fns[i].flags & LG_FN_SHARED_SECTION) {
            free(p.fns[i].section);
            p.fns[i].section = strdup(".text");
            p.fns[i].object = strdup("io.o");
            assert_non_null(p.fns[i].section);
            assert_non_null(p.fns[i].object);
        }
    }
    lg_groups_t g;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_groups_build(&p, &g, &d), LG_OK);
    uint32_t io = g.unit_of[1];
    assert_int_equal(lg_fast_region_weight(&g.units.fns[io]), 208);
    lg_fast_region_t r;
    choose(&g.units, 208, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_int_equal(r.nmembers, 1);
    assert_int_equal(r.members[0], io);
    assert_int_equal(r.value, 800);
    lg_fast_region_destroy(&r);
    /* One byte less: the group cannot go in part, parse (208 aligned) neither; main goes. */
    choose(&g.units, 207, LG_FAST_REGION_EXACT_CELLS, &r);
    assert_string_equal(members_text(&g.units, &r), "main");
    lg_fast_region_destroy(&r);
    /* An earlier region took the group: parse and main now. */
    bool *taken = calloc(g.units.nfns, sizeof *taken);
    assert_non_null(taken);
    taken[io] = true;
    assert_int_equal(
        lg_fast_region_choose(&g.units, taken, 400, LG_FAST_REGION_EXACT_CELLS, &r, &d), LG_OK);
    assert_string_equal(members_text(&g.units, &r), "main parse");
    lg_fast_region_destroy(&r);
    free(taken);
    lg_diag_destroy(&d);
    lg_groups_destroy(&g);
    lg_program_destroy(&p);
}

/* The best value over every subset (n small). */
static uint64_t brute_force(const lg_program_t *p, uint64_t budget)
{
    uint64_t best = 0;
    for (uint32_t set = 0; set < (1u << p->nfns); set++) {
        uint64_t w = 0, v = 0;
        for (size_t i = 0; i < p->nfns; i++)
            if (set & (1u << i)) {
                w += lg_fast_region_weight(&p->fns[i]);
                v += p->fns[i].hits;
            }
        if (w <= budget && v > best)
            best = v;
    }
    return best;
}

/* Small random programs: the exact choice is the brute force's value; the greedy one keeps the
 * header's bound (at least half the best, at most the fractional bound) and fits. */
static void test_greedy_against_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int round = 0; round < 300; round++) {
        size_t n = 1 + (size_t)(round % 12);
        lg_program_t p;
        make_numbered_program(&p, n, 1);
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            p.fns[i].size = 1 + (seed >> 33) % 300;
            p.fns[i].align = (uint64_t)1 << ((seed >> 20) % 4);
            p.fns[i].hits = (seed >> 45) % 1000;
            total += lg_fast_region_weight(&p.fns[i]);
        }
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t budget = (seed >> 33) % (total + 1);
        uint64_t best = brute_force(&p, budget);
        lg_fast_region_t exact, greedy;
        choose(&p, budget, LG_FAST_REGION_EXACT_CELLS, &exact);
        choose(&p, budget, 0, &greedy);
        assert_int_equal(exact.value, best);
        assert_true(exact.used <= budget);
        assert_true(greedy.used <= budget);
        assert_true(2 * greedy.value >= best);
        assert_true(greedy.value <= best);
        assert_true(greedy.bound >= best);
        lg_fast_region_destroy(&exact);
        lg_fast_region_destroy(&greedy);
        lg_program_destroy(&p);
    }
}

static void test_budget(void **state)
{
    (void)state;
    assert_int_equal(lg_fast_region_budget(1024, 0.0), 1024);
    assert_int_equal(lg_fast_region_budget(1000, 5.0), 950);
    assert_int_equal(lg_fast_region_budget(1000, 100.0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_best_set),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_alignment_counts),
        cmocka_unit_test(test_what_stays_out),
        cmocka_unit_test(test_counters_are_the_value),
        cmocka_unit_test(test_group_whole_or_not),
        cmocka_unit_test(test_greedy_against_brute_force),
        cmocka_unit_test(test_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
