/* test_cli_fast.c - the fast regions as the CLI chooses them (src/cli/fast.c): on Arm, the
 * members and the veneers their calls out of the region need fit its budget together. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "fast.h"
#include "messages.h"
#include "regionstubs.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* n hot functions h0.. (size bytes each, align 4, hits 100 - i) each calling cold functions of
 * their own (calls of them, never run), on Arm; refs sorted by (caller, callee). */
static void hot_callers(lg_program_t *p, size_t n, uint64_t size, size_t calls)
{
    make_numbered_program(p, n * (1 + calls), size);
    p->machine = EM_ARM;
    size_t nrefs = n * calls;
    p->refs = malloc((nrefs > 0 ? nrefs : 1) * sizeof *p->refs);
    assert_non_null(p->refs);
    for (size_t i = 0; i < p->nfns; i++) {
        p->fns[i].family = (uint32_t)i;
        p->fns[i].align = 4;
        p->fns[i].hits = i < n ? 100 - i : 0;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < calls; c++)
            p->refs[p->nrefs++] = (lg_arc_t){(uint32_t)i, (uint32_t)(n + i * calls + c), 0};
}

static lg_cli_region_t *choose(lg_program_t *p, uint64_t size)
{
    static lg_cli_fast_region_t spec;
    spec = (lg_cli_fast_region_t){.name = ".itcm_text", .size = size};
    lg_cli_options_t o;
    memset(&o, 0, sizeof o);
    o.fast = &spec;
    o.nfast = 1;
    lg_cli_region_t *regions = NULL;
    lg_diag_t d;
    lg_diag_init(&d);
    lg_cli_set_verbosity(0);
    assert_int_equal(lg_cli_choose_regions(&o, p, NULL, p, NULL, &regions, &d), 0);
    lg_diag_destroy(&d);
    return regions;
}

/* Six 32-byte functions fill 200 bytes; with a veneer each (unknown distance: counted as far)
 * five do, with 40 bytes of veneers. */
static void test_veneers_take_their_bytes(void **state)
{
    (void)state;
    lg_program_t p;
    hot_callers(&p, 10, 32, 1);
    lg_cli_region_t *r = choose(&p, 200);
    assert_int_equal(r->stubs.bytes_per_callee, LG_ARM_VENEER_BYTES);
    assert_false(r->stubs.where_known);
    assert_int_equal(r->nfns, 5);
    assert_int_equal(r->far_callees, 5);
    assert_int_equal(r->stub_bytes, 40);
    assert_int_equal(r->choice.used, 160);
    assert_int_equal(r->choice.budget, 160);
    lg_cli_regions_destroy(r, 1);
    lg_program_destroy(&p);
}

/* Whatever the sizes and calls, members and veneers never pass the region's size. */
static void test_members_and_veneers_always_fit(void **state)
{
    (void)state;
    srand(7);
    for (int run = 0; run < 200; run++) {
        lg_program_t p;
        size_t n = 1 + (size_t)rand() % 20, calls = (size_t)rand() % 6;
        hot_callers(&p, n, 4 + 4 * (uint64_t)(rand() % 16), calls);
        for (size_t i = 0; i < n; i++)
            p.fns[i].size = 4 + 4 * (uint64_t)(rand() % 24);
        uint64_t size = 8 + (uint64_t)(rand() % 600);
        lg_cli_region_t *r = choose(&p, size);
        assert_true(r->choice.used + r->stub_bytes <= size);
        assert_int_equal(r->stub_bytes, r->far_callees * LG_ARM_VENEER_BYTES);
        lg_cli_regions_destroy(r, 1);
        lg_program_destroy(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_veneers_take_their_bytes),
        cmocka_unit_test(test_members_and_veneers_always_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
