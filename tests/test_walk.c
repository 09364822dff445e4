/* test_walk.c - the walk over a function's executed instructions: flow conservation gives falls,
 * exits and entries; jumps whose ends did not run are ignored; steps follow the weights; the
 * same seed gives the same walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A loop: 0 -> 4 -> 8, back from 8 to 0 nine times in ten, then 12 and out. Entered 10 times at
 * 0 (count 100 = 90 jumps back + 10 entries). */
static const lg_hotspot_t loop_spots[] = {{0, 0, 100}, {0, 4, 100}, {0, 8, 100}, {0, 12, 10}};
static const lg_hotjump_t loop_jumps[] = {{0, 8, 0, 90}};

static void test_flow_conservation(void **state)
{
    (void)state;
    lg_walk_t w;
    assert_true(lg_walk_build(&w, loop_spots, 4, loop_jumps, 1));
    assert_int_equal(w.n, 4);
    /* 0 and 4 fall through everything; 8 jumps 90 and falls 10 into 12; 12 leaves 10. */
    assert_true(w.nodes[0].fall == 100.0 && w.nodes[0].exit == 0.0);
    assert_true(w.nodes[1].fall == 100.0 && w.nodes[1].exit == 0.0);
    assert_true(w.nodes[2].jumps == 90.0 && w.nodes[2].fall == 10.0 && w.nodes[2].exit == 0.0);
    assert_true(w.nodes[3].fall == 0.0 && w.nodes[3].exit == 10.0);
    /* Only node 0 is an entry: 100 counted, 90 of them by the jump back. */
    assert_true(w.entry_cum[0] == 10.0 && w.entry_cum[3] == 10.0);
    uint64_t rng = lg_walk_seed(1);
    assert_int_equal(lg_walk_entry(&w, &rng), 0);
    lg_walk_free(&w);
    lg_walk_free(&w); /* a freed walk is zeroed: freeing it again is harmless */
}

static void test_jumps_into_unexecuted_code_are_ignored(void **state)
{
    (void)state;
    const lg_hotjump_t jumps[] = {{0, 4, 6, 50}, {0, 8, 0, 90}, {0, 8, 200, 5}};
    lg_walk_t w;
    assert_true(lg_walk_build(&w, loop_spots, 4, jumps, 3));
    assert_int_equal(w.nodes[1].njmp, 0); /* 6 is no instruction start */
    assert_int_equal(w.nodes[2].njmp, 1); /* 200 is outside the executed code */
    lg_walk_free(&w);
}

/* Over many steps the walk takes each edge in proportion to its weight: about 9 turns of the loop
 * per entry, so node 8 jumps back 90% of the time. */
static void test_steps_follow_the_weights(void **state)
{
    (void)state;
    lg_walk_t w;
    assert_true(lg_walk_build(&w, loop_spots, 4, loop_jumps, 1));
    uint64_t rng = lg_walk_seed(7), back = 0, on = 0, exits = 0;
    size_t cur = LG_WALK_OUT;
    for (int s = 0; s < 200000; s++) {
        if (cur == LG_WALK_OUT)
            cur = lg_walk_entry(&w, &rng);
        size_t next = lg_walk_next(&w, cur, &rng);
        if (cur == 2) {
            back += next == 0;
            on += next == 3;
        }
        exits += next == LG_WALK_OUT;
        assert_true(next == LG_WALK_OUT || next < w.n);
        cur = next;
    }
    double share = (double)back / (double)(back + on);
    assert_true(fabs(share - 0.9) < 0.01);
    assert_true(exits > 0);
    lg_walk_free(&w);
}

static void test_same_seed_same_walk(void **state)
{
    (void)state;
    lg_walk_t w;
    assert_true(lg_walk_build(&w, loop_spots, 4, loop_jumps, 1));
    uint64_t a = lg_walk_seed(3), b = lg_walk_seed(3), c = lg_walk_seed(4);
    size_t x = 0, y = 0, z = 0;
    int differ = 0;
    for (int s = 0; s < 1000; s++) {
        x = lg_walk_next(&w, x == LG_WALK_OUT ? lg_walk_entry(&w, &a) : x, &a);
        y = lg_walk_next(&w, y == LG_WALK_OUT ? lg_walk_entry(&w, &b) : y, &b);
        z = lg_walk_next(&w, z == LG_WALK_OUT ? lg_walk_entry(&w, &c) : z, &c);
        assert_int_equal(x, y);
        differ += x != z;
    }
    assert_true(differ > 0); /* another seed walks another way */
    lg_walk_free(&w);
}

/* A loop with no way in (every count explained by jumps) still has somewhere to start. */
static void test_loop_without_entry_starts_by_count(void **state)
{
    (void)state;
    const lg_hotspot_t spots[] = {{0, 0, 30}, {0, 4, 10}};
    const lg_hotjump_t jumps[] = {{0, 0, 0, 20}, {0, 4, 0, 10}};
    lg_walk_t w;
    assert_true(lg_walk_build(&w, spots, 2, jumps, 2));
    assert_true(w.entry_cum[1] == 40.0);
    lg_walk_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flow_conservation),
        cmocka_unit_test(test_jumps_into_unexecuted_code_are_ignored),
        cmocka_unit_test(test_steps_follow_the_weights),
        cmocka_unit_test(test_same_seed_same_walk),
        cmocka_unit_test(test_loop_without_entry_starts_by_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
