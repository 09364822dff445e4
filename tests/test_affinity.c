/* test_affinity.c - temporal affinity per cache set (optimizer/affinity.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "affinity.h"
#include "progbuild.h"

#include <stdlib.h>

static void test_affinity_follows_placed_neighbours(void **state)
{
    (void)state;
    /* 8 sets of 32 bytes. f runs close to g (weight 5) and h (weight 2), never to k. */
    const fn_spec_t fns[] = {
        {"f", 64, 1, 10, 0}, {"g", 64, 1, 10, 0}, {"h", 300, 1, 10, 0}, {"k", 64, 1, 10, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    p.proximity = malloc(2 * sizeof *p.proximity);
    assert_non_null(p.proximity);
    p.proximity[0] = (lg_pair_t){0, 1, 5};
    p.proximity[1] = (lg_pair_t){0, 2, 2};
    p.nproximity = 2;

    lg_affinity_t *a;
    assert_int_equal(lg_affinity_create(&p, 8, 32, &a), LG_OK);
    assert_true(lg_affinity_has_pairs(a, 0));
    assert_true(lg_affinity_has_pairs(a, 2));
    assert_false(lg_affinity_has_pairs(a, 3));

    double per_set[8];
    lg_affinity_sets(a, 0, per_set);
    for (int s = 0; s < 8; s++)
        assert_true(per_set[s] == 0.0); /* nothing placed yet */

    lg_affinity_place(a, 1, 16);  /* g: bytes 16-79, lines 0-2 */
    lg_affinity_place(a, 2, 224); /* h: 300 bytes from line 7, wraps over all 8 sets */
    lg_affinity_place(a, 3, 64);  /* k: no pair with f */
    lg_affinity_sets(a, 0, per_set);
    const double want[8] = {7, 7, 7, 2, 2, 2, 2, 2};
    for (int s = 0; s < 8; s++)
        assert_true(per_set[s] == want[s]);

    /* Symmetric: g sees f once f is placed. */
    lg_affinity_place(a, 0, 256 + 96); /* lines 11-12: sets 3-4 */
    lg_affinity_sets(a, 1, per_set);
    const double want_g[8] = {0, 0, 0, 5, 5, 0, 0, 0};
    for (int s = 0; s < 8; s++)
        assert_true(per_set[s] == want_g[s]);
    lg_affinity_destroy(a);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_affinity_follows_placed_neighbours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
