/* test_select.c - --include and --exclude (select.h): what a pattern names, and the order in
 * which the rules apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "select.h"

static void test_what_a_pattern_names(void **state)
{
    (void)state;
    const lg_select_rule_t out[] = {{false, "memcpy*"}};
    assert_true(lg_select_excludes(out, 1, "memcpy_avx", NULL));
    assert_false(lg_select_excludes(out, 1, "main", "obj/main.o"));
    const lg_select_rule_t object[] = {{false, "main.o"}};
    assert_true(lg_select_excludes(object, 1, "main", "obj/main.o")); /* base name */
    const lg_select_rule_t path[] = {{false, "obj/*.o"}};
    assert_true(lg_select_excludes(path, 1, "main", "obj/main.o")); /* whole path */
    const lg_select_rule_t archive[] = {{false, "libc.a"}};
    assert_true(lg_select_excludes(archive, 1, "strlen", "/usr/lib/libc.a(strlen.o)"));
    assert_false(lg_select_excludes(archive, 1, "main", "obj/main.o"));
    const lg_select_rule_t member[] = {{false, "str*.o"}};
    assert_true(lg_select_excludes(member, 1, "x", "/usr/lib/libc.a(strlen.o)"));
    assert_false(lg_select_excludes(member, 1, "x", "/usr/lib/libc.a(memcpy.o)"));
    /* A member name longer than LG_SELECT_NAME_BYTES is matched as a whole path only. */
    static char longname[5000];
    for (size_t i = 0; i < sizeof longname - 1; i++)
        longname[i] = i < 10 ? "lib.a(abc."[i] : 'x';
    longname[sizeof longname - 2] = ')';
    assert_false(lg_select_excludes(member, 1, "x", longname));
}

static void test_includes_then_excludes(void **state)
{
    (void)state;
    const lg_select_rule_t rules[] = {{true, "*.o"}, {false, "crt*.o"}, {true, "libm.a"}};
    assert_false(lg_select_excludes(rules, 3, "f", "a.o"));
    assert_true(lg_select_excludes(rules, 3, "_start", "crt1.o")); /* included, then out */
    assert_false(lg_select_excludes(rules, 3, "sin", "libm.a(s_sin.o)"));
    assert_false(lg_select_excludes(rules, 3, "strlen", "libc.a(strlen.o)")); /* member *.o */
    assert_true(lg_select_excludes(rules, 3, "strlen", "libc.a(strlen.obj)")); /* no include */
    assert_true(lg_select_excludes(rules, 3, "g", NULL));
    assert_false(lg_select_excludes(NULL, 0, "g", NULL)); /* no rules: everything takes part */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_a_pattern_names),
        cmocka_unit_test(test_includes_then_excludes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
