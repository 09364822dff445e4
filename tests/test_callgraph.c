/* test_callgraph.c - the call graph: neighbours in both directions, exact weights and totals,
 * limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "callgraph.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fills p with n functions named f0..f(n-1), 16 bytes each, in input order, and a copy of arcs
 * (in the order given); every string is malloc'd so lg_program_destroy frees it. */
static void program_of(lg_program_t *p, size_t n, const lg_arc_t *arcs, size_t narcs)
{
    make_numbered_program(p, n, 16);
    if (narcs > 0) {
        p->arcs = malloc(narcs * sizeof *p->arcs);
        assert_non_null(p->arcs);
        memcpy(p->arcs, arcs, narcs * sizeof *arcs);
    }
    p->narcs = narcs;
    p->has_call_edges = narcs > 0;
}

static void test_empty_graph(void **state)
{
    (void)state;
    lg_program_t p;
    program_of(&p, 0, NULL, 0);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_callgraph_t *g = NULL;
    assert_int_equal(lg_cg_new(&p, &g, &d), LG_OK);
    assert_non_null(g);
    assert_int_equal(lg_cg_node_count(g), 0);
    assert_int_equal(lg_cg_arc_count(g), 0);
    assert_int_equal(lg_cg_max_degree_bound(g), 0);
    lg_cg_free(g);
    lg_cg_free(NULL);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_neighbours_combine_both_directions(void **state)
{
    (void)state;
    /* f0 -> f1 (3), f1 -> f0 (4), f0 -> f2 (5), f2 -> f2 (7, self), f4 -> f0 (0); f3 isolated.
     * Listed out of (caller, callee) order on purpose. */
    const lg_arc_t arcs[] = {
        {2, 2, 7}, {1, 0, 4}, {0, 2, 5}, {0, 1, 3}, {4, 0, 0},
    };
    lg_program_t p;
    program_of(&p, 5, arcs, sizeof arcs / sizeof arcs[0]);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_callgraph_t *g = NULL;
    assert_int_equal(lg_cg_new(&p, &g, &d), LG_OK);
    assert_int_equal(lg_cg_node_count(g), 5);
    assert_int_equal(lg_cg_arc_count(g), 5);

    /* f0 touches 4 non-self arcs; f2's self arc is not counted. */
    assert_int_equal(lg_cg_degree_bound(g, 0), 4);
    assert_int_equal(lg_cg_degree_bound(g, 2), 1);
    assert_int_equal(lg_cg_degree_bound(g, 3), 0);
    assert_int_equal(lg_cg_max_degree_bound(g), 4);

    lg_cg_neighbour_t buf[4];
    size_t n = lg_cg_neighbours(g, 0, buf);
    assert_int_equal(n, 3);
    assert_int_equal(buf[0].node, 1);
    assert_int_equal(buf[0].out, 3);
    assert_int_equal(buf[0].in, 4);
    assert_int_equal(buf[0].weight, 7);
    assert_int_equal(buf[1].node, 2);
    assert_int_equal(buf[1].out, 5);
    assert_int_equal(buf[1].in, 0);
    assert_int_equal(buf[1].weight, 5);
    assert_int_equal(buf[2].node, 4); /* a zero-weight arc still makes a (weightless) neighbour */
    assert_int_equal(buf[2].weight, 0);

    /* The same pair seen from the other end. */
    n = lg_cg_neighbours(g, 1, buf);
    assert_int_equal(n, 1);
    assert_int_equal(buf[0].node, 0);
    assert_int_equal(buf[0].out, 4);
    assert_int_equal(buf[0].in, 3);
    assert_int_equal(buf[0].weight, 7);

    /* Self arcs never make a neighbour, but count in the totals. */
    n = lg_cg_neighbours(g, 2, buf);
    assert_int_equal(n, 1);
    assert_int_equal(buf[0].node, 0);
    assert_int_equal(buf[0].in, 5);
    assert_int_equal(lg_cg_out_weight(g, 2), 7);
    assert_int_equal(lg_cg_in_weight(g, 2), 12);
    assert_int_equal(lg_cg_out_weight(g, 0), 8);
    assert_int_equal(lg_cg_in_weight(g, 0), 4);
    assert_int_equal(lg_cg_neighbours(g, 3, buf), 0);
    assert_int_equal(lg_cg_out_weight(g, 3), 0);
    assert_int_equal(lg_cg_in_weight(g, 3), 0);

    lg_cg_free(g);
    assert_int_equal(d.count, 0);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_duplicate_arcs_are_summed(void **state)
{
    (void)state;
    /* program.h promises unique arcs; if a loader ever breaks that, weights still add up. */
    const lg_arc_t arcs[] = {{0, 1, 2}, {0, 1, 3}, {1, 0, 10}};
    lg_program_t p;
    program_of(&p, 2, arcs, 3);
    lg_callgraph_t *g = NULL;
    assert_int_equal(lg_cg_new(&p, &g, NULL), LG_OK);
    lg_cg_neighbour_t buf[3];
    assert_int_equal(lg_cg_neighbours(g, 0, buf), 1);
    assert_int_equal(buf[0].out, 5);
    assert_int_equal(buf[0].in, 10);
    assert_int_equal(buf[0].weight, 15);
    lg_cg_free(g);
    lg_program_destroy(&p);
}

static void test_weights_saturate(void **state)
{
    (void)state;
    const lg_arc_t arcs[] = {{0, 1, UINT64_MAX}, {1, 0, 1}, {0, 0, UINT64_MAX}, {2, 0, 2}};
    lg_program_t p;
    program_of(&p, 3, arcs, 4);
    lg_callgraph_t *g = NULL;
    assert_int_equal(lg_cg_new(&p, &g, NULL), LG_OK);
    lg_cg_neighbour_t buf[3];
    assert_int_equal(lg_cg_neighbours(g, 0, buf), 2);
    assert_true(buf[0].out == UINT64_MAX);
    assert_true(buf[0].weight == UINT64_MAX);
    assert_true(buf[1].in == 2); /* small weights stay exact */
    assert_true(lg_cg_out_weight(g, 0) == UINT64_MAX);
    assert_true(lg_cg_in_weight(g, 0) == UINT64_MAX);
    lg_cg_free(g);
    lg_program_destroy(&p);
}

static void test_bad_arc_index_is_rejected(void **state)
{
    (void)state;
    const lg_arc_t arcs[] = {{0, 1, 1}, {1, 9, 1}};
    lg_program_t p;
    program_of(&p, 2, arcs, 2);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_callgraph_t *g = (lg_callgraph_t *)&p; /* must be reset to NULL */
    assert_int_equal(lg_cg_new(&p, &g, &d), LG_EINVAL);
    assert_null(g);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "arc 1: callee index 9 out of range (2 functions)"));
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_weights_beyond_double_precision_stay_exact(void **state)
{
    (void)state;
    /* 2^53 + 1 is the first integer a double cannot hold: the graph must not round it. */
    const uint64_t big = (UINT64_C(1) << 53) + 1;
    const lg_arc_t arcs[] = {{0, 1, big}, {1, 0, big + 2}, {0, 0, big}};
    lg_program_t p;
    program_of(&p, 2, arcs, 3);
    lg_callgraph_t *g = NULL;
    assert_int_equal(lg_cg_new(&p, &g, NULL), LG_OK);
    lg_cg_neighbour_t buf[2];
    assert_int_equal(lg_cg_neighbours(g, 0, buf), 1);
    assert_true(buf[0].out == big);
    assert_true(buf[0].in == big + 2);
    assert_true(buf[0].weight == 2 * big + 2);
    assert_true(lg_cg_out_weight(g, 0) == 2 * big);
    assert_true(lg_cg_in_weight(g, 1) == big);
    lg_cg_free(g);
    lg_program_destroy(&p);
}

static void test_many_neighbours_are_sorted(void **state)
{
    (void)state;
    /* A star whose arcs alternate direction and come in scrambled order. */
    enum { N = 200 };
    lg_arc_t arcs[2 * (N - 1)];
    size_t na = 0;
    for (uint32_t i = N - 1; i >= 1; i--) {
        arcs[na++] = (lg_arc_t){0, i, i};
        if (i % 3 == 0)
            arcs[na++] = (lg_arc_t){i, 0, 1000};
    }
    lg_program_t p;
    program_of(&p, N, arcs, na);
    lg_callgraph_t *g = NULL;
    assert_int_equal(lg_cg_new(&p, &g, NULL), LG_OK);
    lg_cg_neighbour_t *buf = calloc(lg_cg_max_degree_bound(g), sizeof *buf);
    assert_non_null(buf);
    size_t n = lg_cg_neighbours(g, 0, buf);
    assert_int_equal(n, N - 1);
    for (size_t k = 0; k < n; k++) {
        uint32_t v = (uint32_t)(k + 1);
        assert_int_equal(buf[k].node, v);
        assert_int_equal(buf[k].out, v);
        assert_int_equal(buf[k].in, v % 3 == 0 ? 1000 : 0);
    }
    free(buf);
    lg_cg_free(g);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_graph),
        cmocka_unit_test(test_neighbours_combine_both_directions),
        cmocka_unit_test(test_duplicate_arcs_are_summed),
        cmocka_unit_test(test_weights_saturate),
        cmocka_unit_test(test_bad_arc_index_is_rejected),
        cmocka_unit_test(test_weights_beyond_double_precision_stay_exact),
        cmocka_unit_test(test_many_neighbours_are_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
