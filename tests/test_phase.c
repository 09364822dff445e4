/* test_phase.c - the phase choice: a loop whose two instructions share a set at one phase and not
 * at the other gets the other; what is too small, unjumped, unmovable or already phased is left
 * alone; a near tie, or a gain too small for the whole program, changes nothing; 64-byte lines try
 * four phases; the same input gives the same choice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "phase.h"

#include <stdlib.h>
#include <string.h>

/* A 256-byte direct-mapped cache of 32-byte lines: 8 sets, a way of 256 bytes. */
static const lg_geometry_t tiny = {256, 32, 1};

/* p->hotspots and p->hotjumps from arrays (copied, sorted as the model keeps them). */
static void set_flow(lg_program_t *p, const lg_hotspot_t *hs, size_t nh, const lg_hotjump_t *js,
                     size_t nj)
{
    p->hotspots = malloc(nh * sizeof *hs);
    p->hotjumps = malloc((nj ? nj : 1) * sizeof *js);
    assert_non_null(p->hotspots);
    assert_non_null(p->hotjumps);
    memcpy(p->hotspots, hs, nh * sizeof *hs);
    if (nj)
        memcpy(p->hotjumps, js, nj * sizeof *js);
    p->nhotspots = nh;
    p->nhotjumps = nj;
}

static lg_phase_stats_t choose_ok(lg_program_t *p, const lg_geometry_t *g)
{
    lg_diag_t d;
    lg_diag_init(&d);
    lg_phase_stats_t st;
    lg_err_t err = lg_phase_choose(p, g, &st, &d);
    if (err != LG_OK)
        lg_test_diag_dump(&d);
    assert_int_equal(err, LG_OK);
    lg_diag_destroy(&d);
    return st;
}

/* Function 0 ("big", 600 bytes, 16-aligned) runs a loop between offsets 24 and 264. At phase 0
 * both are in set 0 (lines 0 and 8) and evict each other on every turn; at phase 16 offset 24
 * moves to line 1 (set 1) while 264 stays in line 8: no conflict. */
static const fn_spec_t loop_fns[] = {
    {"small", 64, 16, 10, 0},
    {"big", 600, 16, 1000, 0},
};
static const lg_hotspot_t loop_spots[] = {{1, 24, 100000}, {1, 264, 100000}};
static const lg_hotjump_t loop_jumps[] = {{1, 24, 264, 100000}, {1, 264, 24, 100000}};

static void test_loop_gets_the_phase_without_conflict(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, loop_spots, NELEMS(loop_spots), loop_jumps, NELEMS(loop_jumps));
    lg_phase_stats_t st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 1);
    assert_int_equal(st.phased, 1);
    assert_true(p.fns[1].flags & LG_FN_PHASED);
    assert_int_equal(p.fns[1].align, 32);
    assert_int_equal(p.fns[1].lead, 16);
    /* 100,000 steps: every one misses at phase 0, two compulsory misses at phase 16. */
    assert_int_equal(st.steps, 200000);
    assert_int_equal(st.misses_worst, 200000);
    assert_int_equal(st.misses_chosen, 2);
    assert_false(p.fns[0].flags & LG_FN_PHASED);
    assert_int_equal(p.fns[0].lead, 0);
    lg_program_destroy(&p);
}

/* The same loop shifted by half a line: now phase 0 is the one without conflict. */
static void test_the_other_phase_when_the_loop_moves(void **state)
{
    (void)state;
    /* 8 and 248: phase 0 puts them in lines 0 and 7 (sets 0 and 7), no conflict; phase 16 in
     * lines 0 and 8, both set 0. */
    static const lg_hotspot_t spots2[] = {{1, 8, 5000}, {1, 248, 5000}};
    static const lg_hotjump_t jumps2[] = {{1, 8, 248, 5000}, {1, 248, 8, 5000}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, spots2, NELEMS(spots2), jumps2, NELEMS(jumps2));
    lg_phase_stats_t st = choose_ok(&p, &tiny);
    assert_int_equal(st.phased, 1);
    assert_int_equal(p.fns[1].lead, 0);
    assert_int_equal(p.fns[1].align, 32);
    lg_program_destroy(&p);
}

/* A function smaller than a way can still meet itself: 250 bytes aligned to 16 start at phase 0
 * (lines 0 to 7 of the 256-byte way) or 16 (bytes 16 to 266: lines 0 to 8, the first and last
 * in set 0). Its loop between offsets 0 and 240 conflicts at phase 16 only, so it is pinned to
 * phase 0. At 240 bytes no phase reaches a ninth line: not considered. */
static void test_nearly_a_way_meets_itself_at_one_phase(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {{"small", 64, 16, 10, 0}, {"near", 250, 16, 1000, 0}};
    static const lg_hotspot_t spots[] = {{1, 0, 100000}, {1, 240, 100000}};
    static const lg_hotjump_t jumps[] = {{1, 0, 240, 100000}, {1, 240, 0, 100000}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    set_flow(&p, spots, NELEMS(spots), jumps, NELEMS(jumps));
    lg_phase_stats_t st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 1);
    assert_int_equal(st.phased, 1);
    assert_true(p.fns[1].flags & LG_FN_PHASED);
    assert_int_equal(p.fns[1].lead, 0);
    assert_int_equal(st.misses_chosen, 2);
    lg_program_destroy(&p);

    static const fn_spec_t shorter[] = {{"small", 64, 16, 10, 0}, {"near", 240, 16, 1000, 0}};
    static const lg_hotspot_t spots2[] = {{1, 0, 100000}, {1, 224, 100000}};
    static const lg_hotjump_t jumps2[] = {{1, 0, 224, 100000}, {1, 224, 0, 100000}};
    MAKE_NO_ARCS(&p, shorter);
    set_flow(&p, spots2, NELEMS(spots2), jumps2, NELEMS(jumps2));
    st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 0);
    assert_false(p.fns[1].flags & LG_FN_PHASED);
    lg_program_destroy(&p);
}

/* A function that no phase makes span more lines than a way cannot conflict with itself; one
 * without jumps, or whose positions carry no cost, has no run to replay; an unmovable one cannot be
 * padded; a phased one (from a .LOR) keeps its phase. */
static void test_left_alone(void **state)
{
    (void)state;
    lg_geometry_t big_cache = {1024, 32, 1}; /* the 600-byte function fits a way */
    lg_program_t p;
    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, loop_spots, NELEMS(loop_spots), loop_jumps, NELEMS(loop_jumps));
    lg_phase_stats_t st = choose_ok(&p, &big_cache);
    assert_int_equal(st.considered, 0);
    assert_false(p.fns[1].flags & LG_FN_PHASED);
    lg_program_destroy(&p);

    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, loop_spots, NELEMS(loop_spots), NULL, 0);
    st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 0);
    assert_int_equal(p.fns[1].align, 16);
    lg_program_destroy(&p);

    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, loop_spots, NELEMS(loop_spots), loop_jumps, NELEMS(loop_jumps));
    p.fns[1].flags |= LG_FN_SHARED_SECTION;
    st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 0);
    assert_int_equal(p.fns[1].lead, 0);
    lg_program_destroy(&p);

    static const lg_hotspot_t costless[] = {{1, 24, 0}, {1, 264, 0}};
    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, costless, NELEMS(costless), loop_jumps, NELEMS(loop_jumps));
    st = choose_ok(&p, &tiny);
    assert_int_equal(st.phased, 0);
    assert_int_equal(st.steps, 0);
    assert_false(p.fns[1].flags & LG_FN_PHASED);
    lg_program_destroy(&p);

    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, loop_spots, NELEMS(loop_spots), loop_jumps, NELEMS(loop_jumps));
    p.fns[1].flags |= LG_FN_PHASED;
    p.fns[1].align = 32;
    p.fns[1].lead = 0;
    st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 0);
    assert_int_equal(p.fns[1].lead, 0);
    lg_program_destroy(&p);
}

/* The same loop in a program whose other code runs 10^10 instructions: the 200,000 misses it
 * would save are 20 per million of the profile, under LG_PHASE_MIN_SAVED_PER_MILLION (100): not
 * worth moving the code after it. At 10^9 they are 200 per million: phased. */
static void test_small_stakes_change_nothing(void **state)
{
    (void)state;
    static const lg_hotspot_t heavy[] = {{0, 0, 10000000000ull}, {1, 24, 100000}, {1, 264, 100000}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, heavy, NELEMS(heavy), loop_jumps, NELEMS(loop_jumps));
    lg_phase_stats_t st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 1);
    assert_int_equal(st.phased, 0);
    assert_false(p.fns[1].flags & LG_FN_PHASED);
    lg_program_destroy(&p);

    static const lg_hotspot_t lighter[] = {
        {0, 0, 1000000000ull}, {1, 24, 100000}, {1, 264, 100000}};
    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, lighter, NELEMS(lighter), loop_jumps, NELEMS(loop_jumps));
    st = choose_ok(&p, &tiny);
    assert_int_equal(st.phased, 1);
    assert_int_equal(p.fns[1].lead, 16);
    lg_program_destroy(&p);
}

/* Two instructions that never share a set at either phase: both phases miss alike, nothing is
 * padded. */
static void test_a_tie_changes_nothing(void **state)
{
    (void)state;
    static const lg_hotspot_t spots[] = {{1, 0, 50000}, {1, 100, 50000}};
    static const lg_hotjump_t jumps[] = {{1, 0, 100, 50000}, {1, 100, 0, 50000}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, loop_fns);
    set_flow(&p, spots, NELEMS(spots), jumps, NELEMS(jumps));
    lg_phase_stats_t st = choose_ok(&p, &tiny);
    assert_int_equal(st.considered, 1);
    assert_int_equal(st.phased, 0);
    assert_false(p.fns[1].flags & LG_FN_PHASED);
    assert_int_equal(p.fns[1].align, 16);
    lg_program_destroy(&p);
}

/* 64-byte lines and a 16-byte alignment: phases 0, 16, 32 and 48 are tried. Offsets 56 and 552,
 * a way (512 bytes) and less than a line apart: phase 0 puts them in lines 0 and 8 (both set 0),
 * 16 in lines 1 and 8 (sets 1 and 0), 32 in lines 1 and 9 and 48 in lines 1 and 9 (both set 1).
 * Only phase 16 has no conflict. */
static void test_four_phases_in_a_64_byte_line(void **state)
{
    (void)state;
    lg_geometry_t g = {512, 64, 1}; /* 8 sets of 64 bytes */
    static const fn_spec_t fns[] = {{"big", 1200, 16, 1000, 0}};
    static const lg_hotspot_t spots[] = {{0, 56, 40000}, {0, 552, 40000}};
    static const lg_hotjump_t jumps[] = {{0, 56, 552, 40000}, {0, 552, 56, 40000}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    set_flow(&p, spots, NELEMS(spots), jumps, NELEMS(jumps));
    lg_phase_stats_t st = choose_ok(&p, &g);
    assert_int_equal(st.phased, 1);
    assert_int_equal(p.fns[0].lead, 16);
    assert_int_equal(p.fns[0].align, 64);
    lg_program_destroy(&p);
}

/* A function with a branchy body: the walk is random, but seeded by the function, so two runs
 * choose alike and predict the same misses. */
static void test_deterministic(void **state)
{
    (void)state;
    static const lg_hotspot_t spots[] = {{1, 0, 9000},   {1, 24, 9000},  {1, 40, 6000},
                                         {1, 264, 3000}, {1, 300, 9000}, {1, 560, 2000}};
    static const lg_hotjump_t jumps[] = {{1, 24, 264, 3000},
                                         {1, 40, 300, 6000},
                                         {1, 264, 300, 3000},
                                         {1, 300, 0, 7000},
                                         {1, 300, 560, 2000}};
    lg_phase_stats_t first = {0};
    uint64_t lead = 0;
    for (int run = 0; run < 2; run++) {
        lg_program_t p;
        MAKE_NO_ARCS(&p, loop_fns);
        set_flow(&p, spots, NELEMS(spots), jumps, NELEMS(jumps));
        lg_phase_stats_t st = choose_ok(&p, &tiny);
        if (run == 0) {
            first = st;
            lead = p.fns[1].lead;
        } else {
            assert_int_equal(st.misses_worst, first.misses_worst);
            assert_int_equal(st.misses_chosen, first.misses_chosen);
            assert_int_equal(st.steps, first.steps);
            assert_int_equal(p.fns[1].lead, lead);
        }
        lg_program_destroy(&p);
    }
    assert_true(first.steps > 0);
}

static void test_bad_geometry(void **state)
{
    (void)state;
    lg_geometry_t bad = {100, 32, 1};
    lg_program_t p;
    MAKE_NO_ARCS(&p, loop_fns);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_phase_stats_t st;
    assert_int_equal(lg_phase_choose(&p, &bad, &st, &d), LG_EINVAL);
    assert_true(d.count > 0);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_gets_the_phase_without_conflict),
        cmocka_unit_test(test_the_other_phase_when_the_loop_moves),
        cmocka_unit_test(test_nearly_a_way_meets_itself_at_one_phase),
        cmocka_unit_test(test_left_alone),
        cmocka_unit_test(test_small_stakes_change_nothing),
        cmocka_unit_test(test_a_tie_changes_nothing),
        cmocka_unit_test(test_four_phases_in_a_64_byte_line),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_bad_geometry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
