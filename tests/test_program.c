/* test_program.c - the program model's robustness-check noise (lg_program_perturb). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

static const fn_spec_t fns[] = {
    {"a", 64, 1, 1000000, 0}, {"b", 32, 1, 1, 0}, {"c", 16, 1, 0, 0}, {"d", 128, 1, 77777, 0}};
static const arc_spec_t arcs[] = {
    {"a", "b", 500000}, {"b", "c", 1}, {"a", "d", 123456}, {"d", "a", 3}};

static void make(lg_program_t *p)
{
    MAKE(p, fns, arcs);
    for (size_t i = 0; i < p->nfns; i++)
        p->fns[i].counter1_self = p->fns[i].hits * 10;
}

/* Each weight moves by at most the part asked for, a weight of 1 stays 1 and 0 stays 0. */
static void test_every_weight_within_the_part(void **state)
{
    (void)state;
    lg_program_t p;
    make(&p);
    lg_program_perturb(&p, 7, 0.05);
    for (size_t i = 0; i < p.nfns; i++) {
        double h = (double)fns[i].hits;
        assert_true((double)p.fns[i].hits >= h * 0.95 - 0.5);
        assert_true((double)p.fns[i].hits <= h * 1.05 + 0.5);
        assert_true((double)p.fns[i].counter1_self >= h * 10 * 0.95 - 0.5);
        assert_true((double)p.fns[i].counter1_self <= h * 10 * 1.05 + 0.5);
    }
    assert_int_equal(p.fns[1].hits, 1);
    assert_int_equal(p.fns[2].hits, 0);
    for (size_t i = 0; i < p.narcs; i++) {
        uint64_t w = 0;
        for (size_t k = 0; k < NELEMS(arcs); k++)
            if (p.arcs[i].caller == fn_index(fns, NELEMS(fns), arcs[k].caller) &&
                p.arcs[i].callee == fn_index(fns, NELEMS(fns), arcs[k].callee))
                w = arcs[k].weight;
        assert_true((double)p.arcs[i].weight >= (double)w * 0.95 - 0.5);
        assert_true((double)p.arcs[i].weight <= (double)w * 1.05 + 0.5);
        assert_true(p.arcs[i].weight > 0);
    }
    lg_program_destroy(&p);
}

/* One seed, one program; another seed, another. */
static void test_a_seed_gives_one_program(void **state)
{
    (void)state;
    lg_program_t p, q, r;
    make(&p);
    make(&q);
    make(&r);
    lg_program_perturb(&p, 1, 0.05);
    lg_program_perturb(&q, 1, 0.05);
    lg_program_perturb(&r, 2, 0.05);
    bool differs = false;
    for (size_t i = 0; i < p.nfns; i++) {
        assert_int_equal(p.fns[i].hits, q.fns[i].hits);
        differs = differs || p.fns[i].hits != r.fns[i].hits;
    }
    for (size_t i = 0; i < p.narcs; i++) {
        assert_int_equal(p.arcs[i].weight, q.arcs[i].weight);
        differs = differs || p.arcs[i].weight != r.arcs[i].weight;
    }
    assert_true(differs);
    /* Not the identity: the large weights move. */
    assert_int_not_equal(p.fns[0].hits, fns[0].hits);
    lg_program_destroy(&p);
    lg_program_destroy(&q);
    lg_program_destroy(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_weight_within_the_part),
        cmocka_unit_test(test_a_seed_gives_one_program),
    };
    return cmocka_run_group_tests_name("program", tests, NULL, NULL);
}
