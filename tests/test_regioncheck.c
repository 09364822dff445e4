/* test_regioncheck.c - lorgen check's fast region verdicts (regioncheck.h) on programs linked for
 * real: a.c and b.c of tests/fixtures/elf each have a static helper, and a script that adds an
 * output section .fast takes one of them, the other, or both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "bind.h"
#include "mem.h"
#include "regioncheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES LORGEN_SOURCE_DIR "/tests/fixtures/elf"
#define WORK LORGEN_TEST_TMPDIR "/regioncheck"

/* fast_a, fast_b and fast_both: the program with a.c's helper, b.c's, or both in .fast. */
static int build_fixtures(void **state)
{
    (void)state;
    const char *cmd =
        "set -e; mkdir -p " WORK "; cd " WORK "; "
        "for f in a b c; do gcc -O2 -ffunction-sections -c " FIXTURES "/$f.c -o $f.o; done; "
        "fast() { echo \"SECTIONS { .fast : { $2(.text.helper) } } INSERT BEFORE .text;\" >$1.ld; "
        "gcc a.o b.o c.o -Wl,-T,$1.ld -o fast_$1; }; "
        "fast a '*a.o'; fast b '*b.o'; fast both '*'";
    return lg_test_run(cmd) == 0 ? 0 : -1;
}

/* A region check and what its rows borrow names from. */
typedef struct checked {
    lg_elfsyms_t elf;
    lg_program_t prog;
    lg_lor_t lor;
    lg_regioncheck_t c;
} checked_t;

/* Checks a .LOR whose region .fast has one member, helper with the given object= and source=
 * (NULL: not given), against the program and its objects. */
static void check(const char *program, const char *object, const char *source, checked_t *k)
{
    const char *paths[] = {program, "a.o", "b.o", "c.o"};
    lg_elfsyms_init(&k->elf);
    lg_diag_t d;
    lg_diag_init(&d);
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        char path[512];
        snprintf(path, sizeof path, WORK "/%s", paths[i]);
        if (lg_elfsyms_read(&k->elf, path, &d) != LG_OK) {
            lg_test_diag_dump(&d);
            fail();
        }
    }
    lg_program_init(&k->prog);
    assert_int_equal(lg_bind(NULL, 0, &k->elf, &k->prog, &d), LG_OK);
    lg_lor_init(&k->lor);
    assert_int_equal(lg_lor_add_region(&k->lor, NULL, ".fast", 64, 64, 32, NULL, 0), LG_OK);
    lg_lor_region_t *r = &k->lor.regions[0];
    bool ok = true;
    r->fns[0] = (lg_lor_fn_t){.symbol = lg_strdup_opt("helper", &ok),
                              .object = lg_strdup_opt(object, &ok),
                              .source = lg_strdup_opt(source, &ok),
                              .align = 1};
    r->nfns = 1;
    assert_true(ok);
    assert_int_equal(lg_regioncheck_run(&k->lor, &k->prog, &k->elf, &k->c, &d), LG_OK);
    lg_diag_destroy(&d);
}

static void checked_destroy(checked_t *k)
{
    lg_regioncheck_destroy(&k->c);
    lg_lor_destroy(&k->lor);
    lg_program_destroy(&k->prog);
    lg_elfsyms_destroy(&k->elf);
}

/* The member's row, then the intruder's when intruder_source is not NULL. */
static void expect(const char *program, const char *object, const char *source, bool inside,
                   const char *intruder_source)
{
    checked_t k;
    check(program, object, source, &k);
    const lg_regioncheck_t *c = &k.c;
    assert_int_equal(c->nrows, intruder_source ? 2 : 1);
    assert_string_equal(c->rows[0].symbol, "helper");
    assert_true(c->rows[0].member);
    assert_int_equal(c->rows[0].ok, inside);
    assert_int_equal(c->inside, inside ? 1 : 0);
    assert_int_equal(c->outside, inside ? 0 : 1);
    /* Told from b.c's helper by its source file. */
    assert_non_null(c->rows[0].source);
    assert_string_equal(c->rows[0].source, "a.c");
    assert_string_equal(c->rows[0].section, inside ? ".fast" : ".text");
    assert_int_equal(c->intruders, intruder_source ? 1 : 0);
    if (intruder_source != NULL) {
        assert_false(c->rows[1].member);
        assert_string_equal(c->rows[1].symbol, "helper");
        assert_string_equal(c->rows[1].section, ".fast");
        assert_non_null(c->rows[1].source);
        assert_string_equal(c->rows[1].source, intruder_source);
        assert_int_not_equal(c->rows[1].address, c->rows[0].address);
    }
    checked_destroy(&k);
}

/* The member is a.c's helper, named by its object, its source file, or both: b.c's helper is no
 * member, and an intruder when it lies in .fast. */
static void test_same_named_statics_are_told_apart(void **state)
{
    (void)state;
    expect("fast_a", "a.o", NULL, true, NULL);
    expect("fast_a", NULL, "a.c", true, NULL);
    expect("fast_a", "a.o", "a.c", true, NULL);
    expect("fast_b", "a.o", NULL, false, "b.c");
    expect("fast_b", NULL, "a.c", false, "b.c");
    expect("fast_both", "a.o", NULL, true, "b.c");
    expect("fast_both", NULL, "a.c", true, "b.c");
}

/* A line that tells neither apart names the one that lies in the region; the other, when it lies
 * there too, is code the region did not count. */
static void test_statics_not_told_apart(void **state)
{
    (void)state;
    const char *programs[] = {"fast_a", "fast_b", "fast_both"};
    for (size_t i = 0; i < 3; i++) {
        checked_t k;
        check(programs[i], NULL, NULL, &k);
        assert_int_equal(k.c.inside, 1);
        assert_int_equal(k.c.intruders, i == 2 ? 1 : 0);
        checked_destroy(&k);
    }
}

int main(void)
{
    if (!lg_test_have("gcc"))
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_named_statics_are_told_apart),
        cmocka_unit_test(test_statics_not_told_apart),
    };
    return cmocka_run_group_tests(tests, build_fixtures, NULL);
}
