/* test_default_order.c - the default's choice on its own (optimizer/default_order.h): chains up
 * to LG_DEFAULT_CHAINS_MAX_ARCS call arcs and the clique pass above, C3 second either way; a
 * named algorithm alone. Only the arc count is read, so the programs here hold nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clique.h"
#include "default_order.h"

#include <string.h>

static lg_program_t with_arcs(size_t narcs)
{
    lg_program_t prog;
    memset(&prog, 0, sizeof prog);
    prog.narcs = narcs;
    return prog;
}

static void test_default_is_chains_then_c3(void **state)
{
    (void)state;
    lg_program_t prog = with_arcs(LG_DEFAULT_CHAINS_MAX_ARCS);
    lg_order_choice_t c = lg_default_order(&prog, NULL);
    assert_string_equal(c.first, LG_ALGORITHM_CHAINS);
    assert_string_equal(c.second, LG_ALGORITHM_C3);
    assert_false(c.too_many_arcs);
}

static void test_clique_pass_above_the_arc_limit(void **state)
{
    (void)state;
    lg_program_t prog = with_arcs(LG_DEFAULT_CHAINS_MAX_ARCS + 1u);
    lg_order_choice_t c = lg_default_order(&prog, NULL);
    assert_string_equal(c.first, LG_CLIQUE_ALGORITHM);
    assert_string_equal(c.second, LG_ALGORITHM_C3);
    assert_true(c.too_many_arcs);
}

/* A named algorithm runs as named, whatever the size, and gets no second choice. */
static void test_named_algorithm_alone(void **state)
{
    (void)state;
    lg_program_t prog = with_arcs(LG_DEFAULT_CHAINS_MAX_ARCS + 1u);
    lg_order_choice_t c = lg_default_order(&prog, LG_ALGORITHM_CHAINS);
    assert_string_equal(c.first, LG_ALGORITHM_CHAINS);
    assert_null(c.second);
    assert_false(c.too_many_arcs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_is_chains_then_c3),
        cmocka_unit_test(test_clique_pass_above_the_arc_limit),
        cmocka_unit_test(test_named_algorithm_alone),
    };
    return cmocka_run_group_tests_name("default_order", tests, NULL, NULL);
}
