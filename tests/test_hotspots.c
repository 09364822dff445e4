/* test_hotspots.c - binding per-position costs and jumps to offsets inside functions
 * (src/bind/hotspots.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "hotspots.h"
#include "profile.h"
#include "program.h"

#include <stdlib.h>
#include <string.h>

/* Two functions of a linked ELF: f at 0x1000 (0x100 bytes), g at 0x1100 (0x80 bytes). */
static void make_linked(lg_program_t *p)
{
    lg_program_init(p);
    p->fns = calloc(2, sizeof *p->fns);
    assert_non_null(p->fns);
    p->nfns = 2;
    const char *names[] = {"f", "g"};
    for (size_t i = 0; i < 2; i++) {
        p->fns[i].symbol = strdup(names[i]);
        p->fns[i].section = strdup(".text");
        p->fns[i].input_order = (uint32_t)i;
    }
    p->fns[0].address = 0x1000, p->fns[0].size = 0x100;
    p->fns[1].address = 0x1100, p->fns[1].size = 0x80;
}

/* A profile of f and g (and an unbound h) with costs at the given positions plus bias. */
static void make_profile(lg_profile_t *prof, uint64_t bias, lg_pos_kind_t kind)
{
    lg_profile_init(prof);
    uint32_t id;
    const char *names[] = {"f", "g", "h"};
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(lg_profile_intern(prof, names[i], NULL, NULL, &id), LG_OK);
    assert_int_equal(lg_profile_add_cost(prof, 0, bias + 0x1000, 10), LG_OK);
    assert_int_equal(lg_profile_add_cost(prof, 0, bias + 0x1040, 30), LG_OK);
    assert_int_equal(lg_profile_add_cost(prof, 0, bias + 0x1040, 5), LG_OK); /* repeated */
    assert_int_equal(lg_profile_add_cost(prof, 1, bias + 0x1178, 7), LG_OK);
    assert_int_equal(lg_profile_add_cost(prof, 1, bias + 0x1180, 2), LG_OK); /* past g's end */
    assert_int_equal(lg_profile_add_cost(prof, 2, bias + 0x2000, 3), LG_OK); /* unbound h */
    prof->cost_positions = kind;
}

static const int64_t map_fg[] = {0, 1, -1};

static void check_bound(const lg_program_t *p)
{
    assert_int_equal(p->nhotspots, 3);
    assert_int_equal(p->hotspots[0].fn, 0);
    assert_int_equal(p->hotspots[0].offset, 0);
    assert_int_equal(p->hotspots[0].cost, 20); /* scale 2 */
    assert_int_equal(p->hotspots[1].offset, 0x40);
    assert_int_equal(p->hotspots[1].cost, 70);
    assert_int_equal(p->hotspots[2].fn, 1);
    assert_int_equal(p->hotspots[2].offset, 0x78);
    assert_int_equal(p->hotspots[2].cost, 14);
}

static void test_positions_of_the_profiled_elf(void **state)
{
    (void)state;
    lg_program_t p;
    lg_profile_t prof;
    make_linked(&p);
    make_profile(&prof, 0, LG_POS_ADDRESS);
    size_t cap = 0;
    lg_hotspot_stats_t st;
    assert_int_equal(lg_hotspots_bind(&p, &cap, &prof, map_fg, 2.0, &st), LG_OK);
    lg_program_merge_positions(&p);
    check_bound(&p);
    assert_int_equal(st.bias, 0);
    assert_int_equal(st.bound, 4);
    assert_int_equal(st.dropped, 2);
    assert_int_equal(st.dropped_cost, 5);
    lg_profile_destroy(&prof);
    lg_program_destroy(&p);
}

static void test_pie_load_bias_is_found(void **state)
{
    (void)state;
    /* valgrind loads a position-independent executable at 0x108000. */
    lg_program_t p;
    lg_profile_t prof;
    make_linked(&p);
    make_profile(&prof, 0x108000, LG_POS_ADDRESS);
    size_t cap = 0;
    lg_hotspot_stats_t st;
    assert_int_equal(lg_hotspots_bind(&p, &cap, &prof, map_fg, 2.0, &st), LG_OK);
    lg_program_merge_positions(&p);
    assert_int_equal(st.bias, 0x108000);
    check_bound(&p);
    lg_profile_destroy(&prof);
    lg_program_destroy(&p);
}

/* Jumps of f, g and the unbound h at the given addresses plus bias (make_profile's functions). */
static void add_jumps(lg_profile_t *prof, uint64_t bias)
{
    static const lg_pjump_t jumps[] = {
        {0, 0x1040, 0x1000, 7}, /* f: a loop back to its start */
        {0, 0x1040, 0x1080, 1}, /* same source, another target */
        {0, 0x1010, 0x1040, 4},
        {0, 0x1040, 0x1000, 3}, /* the first one again (another recursion level) */
        {0, 0x10f0, 0x1100, 2}, /* target g's first byte: leaves f */
        {1, 0x1178, 0x1100, 5}, /* g */
        {1, 0x1180, 0x1100, 9}, /* source past g's end */
        {2, 0x2000, 0x2004, 6}, /* unbound h */
    };
    for (size_t i = 0; i < sizeof jumps / sizeof jumps[0]; i++)
        assert_int_equal(lg_profile_add_jump(prof, jumps[i].func, bias + jumps[i].from,
                                             bias + jumps[i].to, jumps[i].count),
                         LG_OK);
}

static void assert_hotjump(const lg_program_t *p, size_t i, uint32_t fn, uint64_t from, uint64_t to,
                           uint64_t count)
{
    assert_true(i < p->nhotjumps);
    assert_int_equal(p->hotjumps[i].fn, fn);
    assert_int_equal(p->hotjumps[i].from, from);
    assert_int_equal(p->hotjumps[i].to, to);
    assert_int_equal(p->hotjumps[i].count, count);
}

/* Two profiles of the same jumps, one of a fixed-address run counted double, one of a PIE run:
 * jumps inside one function become offsets under each profile's bias, the others are dropped,
 * and repeats are summed within and across profiles. */
static void test_jumps_bind_inside_their_function(void **state)
{
    (void)state;
    lg_program_t p;
    lg_profile_t fixed, pie;
    make_linked(&p);
    make_profile(&fixed, 0, LG_POS_ADDRESS);
    add_jumps(&fixed, 0);
    make_profile(&pie, 0x108000, LG_POS_ADDRESS);
    add_jumps(&pie, 0x108000);
    size_t cap = 0, jumps_cap = 0;
    lg_hotspot_stats_t st;
    assert_int_equal(lg_hotspots_bind(&p, &cap, &fixed, map_fg, 2.0, &st), LG_OK);
    assert_int_equal(lg_hotspots_bind_jumps(&p, &jumps_cap, &fixed, map_fg, 2.0, &st), LG_OK);
    assert_int_equal(st.jumps_bound, 5);
    assert_int_equal(st.jumps_dropped, 3);
    assert_int_equal(lg_hotspots_bind(&p, &cap, &pie, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(st.bias, 0x108000);
    assert_int_equal(lg_hotspots_bind_jumps(&p, &jumps_cap, &pie, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(st.jumps_bound, 5);
    assert_int_equal(st.jumps_dropped, 3);
    assert_int_equal(p.nhotjumps, 10);
    lg_program_merge_positions(&p);

    /* Sorted by (fn, from, to), each count 2 * fixed + pie. */
    assert_int_equal(p.nhotjumps, 4);
    assert_hotjump(&p, 0, 0, 0x10, 0x40, 2 * 4 + 4);
    assert_hotjump(&p, 1, 0, 0x40, 0x00, 2 * (7 + 3) + (7 + 3));
    assert_hotjump(&p, 2, 0, 0x40, 0x80, 2 * 1 + 1);
    assert_hotjump(&p, 3, 1, 0x78, 0x00, 2 * 5 + 5);
    /* The costs bound as before. */
    assert_int_equal(p.nhotspots, 3);
    assert_int_equal(p.hotspots[1].cost, 70 + 35);
    lg_profile_destroy(&fixed);
    lg_profile_destroy(&pie);
    lg_program_destroy(&p);
}

/* Repeated jumps sum without wrapping. */
static void test_jump_counts_saturate(void **state)
{
    (void)state;
    lg_program_t p;
    lg_profile_t prof;
    make_linked(&p);
    make_profile(&prof, 0, LG_POS_ADDRESS);
    assert_int_equal(lg_profile_add_jump(&prof, 0, 0x1040, 0x1000, UINT64_MAX - 1), LG_OK);
    assert_int_equal(lg_profile_add_jump(&prof, 0, 0x1040, 0x1000, 5), LG_OK);
    size_t cap = 0, jumps_cap = 0;
    lg_hotspot_stats_t st;
    assert_int_equal(lg_hotspots_bind(&p, &cap, &prof, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(lg_hotspots_bind_jumps(&p, &jumps_cap, &prof, map_fg, 1.0, &st), LG_OK);
    lg_program_merge_positions(&p);
    assert_int_equal(p.nhotjumps, 1);
    assert_hotjump(&p, 0, 0, 0x40, 0x00, UINT64_MAX);
    lg_profile_destroy(&prof);
    lg_program_destroy(&p);
}

static void test_what_cannot_bind(void **state)
{
    (void)state;
    lg_program_t p;
    lg_profile_t prof;
    size_t cap = 0;
    lg_hotspot_stats_t st;

    /* Source lines are not offsets, and jumps with them are not either. */
    size_t jumps_cap = 0;
    make_linked(&p);
    make_profile(&prof, 0, LG_POS_LINE);
    add_jumps(&prof, 0);
    assert_int_equal(lg_hotspots_bind(&p, &cap, &prof, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(p.nhotspots, 0);
    assert_int_equal(st.dropped, 6);
    assert_int_equal(st.dropped_cost, 57);
    assert_int_equal(lg_hotspots_bind_jumps(&p, &jumps_cap, &prof, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(p.nhotjumps, 0);
    assert_int_equal(st.jumps_bound, 0);
    assert_int_equal(st.jumps_dropped, 8);
    lg_profile_destroy(&prof);

    /* Object files only: no addresses to compare with. */
    p.fns[0].address = p.fns[1].address = UINT64_MAX;
    make_profile(&prof, 0, LG_POS_ADDRESS);
    add_jumps(&prof, 0);
    assert_int_equal(lg_hotspots_bind(&p, &cap, &prof, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(p.nhotspots, 0);
    assert_int_equal(st.bound, 0);
    assert_int_equal(st.dropped, 6);
    assert_int_equal(lg_hotspots_bind_jumps(&p, &jumps_cap, &prof, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(p.nhotjumps, 0);
    assert_int_equal(st.jumps_dropped, 8);
    lg_profile_destroy(&prof);

    /* No costs at all: nothing to do. */
    lg_profile_init(&prof);
    assert_int_equal(lg_hotspots_bind(&p, &cap, &prof, map_fg, 1.0, &st), LG_OK);
    assert_int_equal(st.dropped, 0);
    lg_profile_destroy(&prof);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positions_of_the_profiled_elf),
        cmocka_unit_test(test_pie_load_bias_is_found),
        cmocka_unit_test(test_jumps_bind_inside_their_function),
        cmocka_unit_test(test_jump_counts_saturate),
        cmocka_unit_test(test_what_cannot_bind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
