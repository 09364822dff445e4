/* test_winidea_map.c - winIDEA area handles -> functions, lines and other areas.
 *
 * The help's mapping example, the error messages for entries that contradict each other, and the
 * lookup itself on dense, sparse and mixed handle numberings checked against a plain list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "winidea_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    lg_profile_t p;
    lg_wi_map_t *m;
    lg_diag_t d;
} fixture_t;

static void setup(fixture_t *f)
{
    lg_profile_init(&f->p);
    lg_diag_init(&f->d);
    assert_int_equal(lg_wi_map_create(&f->p, &f->m), LG_OK);
}

static void teardown(fixture_t *f)
{
    lg_wi_map_destroy(f->m);
    lg_profile_destroy(&f->p);
    lg_diag_destroy(&f->d);
}

static void add_ok(fixture_t *f, uint32_t handle, uint32_t parent, const char *name, uint64_t value,
                   const char *file)
{
    lg_err_t err = lg_wi_map_add(f->m, handle, parent, name, value, file, &f->d);
    if (err != LG_OK)
        lg_test_diag_dump(&f->d);
    assert_int_equal(err, LG_OK);
}

/* The entry is refused with err and exactly this message (with an empty location). */
static void add_fails(fixture_t *f, uint32_t handle, uint32_t parent, const char *name,
                      uint64_t value, lg_err_t err, const char *message)
{
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_wi_map_add(f->m, handle, parent, name, value, NULL, &d), err);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.entries[0].where, "");
    assert_string_equal(d.entries[0].message, message);
    lg_diag_destroy(&d);
}

static void test_spec_example(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    /* * HANDLE(Functions) and * HANDLE(Data) of the help, lines under the function before. */
    add_ok(&f, 0x00000000, LG_WI_NO_PARENT, "main", 0, NULL);
    add_ok(&f, 0x10000000, 0x00000000, "{", 51, NULL);
    add_ok(&f, 0x10000004, 0x00000000, "TestStatic1();", 59, NULL);
    add_ok(&f, 0x00000001, LG_WI_NO_PARENT, "\"TestStatic1.c\"#StaticFunc", 0, NULL);
    add_ok(&f, 0x10000007, 0x00000001, "{", 6, NULL);
    add_ok(&f, 0x20000000, LG_WI_NO_PARENT, "TestStatic1##s_cStatic", 0, NULL);
    add_ok(&f, 0x30000000, LG_WI_NO_PARENT, "", 0, NULL);
    add_ok(&f, 0x30000000, LG_WI_NO_PARENT, "", 1, NULL); /* a state per value, one handle */
    add_ok(&f, 0x40000000, LG_WI_NO_PARENT, "AUX0", 0, NULL);
    add_ok(&f, 0x50000000, LG_WI_NO_PARENT, "", 3, NULL);
    add_ok(&f, 0x60000000, LG_WI_NO_PARENT, "inspector", 0, NULL); /* an unknown type */
    assert_int_equal(lg_wi_map_count(f.m), 10);

    assert_int_equal(f.p.nfuncs, 2);
    assert_string_equal(f.p.funcs[0].name, "main");
    assert_null(f.p.funcs[0].qual_name);
    assert_string_equal(f.p.funcs[1].name, "StaticFunc");
    assert_string_equal(f.p.funcs[1].qual_name, "TestStatic1.c");

    assert_int_equal(lg_wi_map_resolve(f.m, 0x00000000), 0);
    assert_int_equal(lg_wi_map_resolve(f.m, 0x00000001), 1);
    for (uint32_t h = 0x10000000; h <= 0x60000000; h += 0x10000000)
        assert_int_equal(lg_wi_map_resolve(f.m, h), LG_WI_NOT_FUNCTION);
    assert_int_equal(lg_wi_map_resolve(f.m, 0x00000002), LG_WI_UNMAPPED);
    assert_int_equal(lg_wi_map_resolve(f.m, 0x10000001), LG_WI_UNMAPPED);
    assert_int_equal(lg_wi_map_resolve(f.m, 0x70000000), LG_WI_UNMAPPED);
    assert_int_equal(lg_wi_map_resolve(f.m, 0xFFFFFFFF), LG_WI_UNMAPPED);

    uint32_t func;
    uint64_t line;
    assert_true(lg_wi_map_line(f.m, 0x10000004, &func, &line));
    assert_int_equal(func, 0);
    assert_int_equal(line, 59);
    assert_true(lg_wi_map_line(f.m, 0x10000007, &func, &line));
    assert_int_equal(func, 1);
    assert_int_equal(line, 6);
    assert_false(lg_wi_map_line(f.m, 0x10000001, &func, &line));
    assert_false(lg_wi_map_line(f.m, 0x00000000, &func, &line));
    teardown(&f);
}

static void test_names_and_files(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    /* Two statics of one name; FILE qualifies a plain name but not a "file"#name. */
    add_ok(&f, 0, LG_WI_NO_PARENT, "\"a.c\"#helper", 0, NULL);
    add_ok(&f, 1, LG_WI_NO_PARENT, "\"b.c\"#helper", 0, "ignored.c");
    add_ok(&f, 2, LG_WI_NO_PARENT, "plain", 0, "src/plain.c");
    add_ok(&f, 3, LG_WI_NO_PARENT, "plain2", 0, "");
    /* Not the static form: kept whole. */
    add_ok(&f, 4, LG_WI_NO_PARENT, "\"\"#x", 0, NULL);
    add_ok(&f, 5, LG_WI_NO_PARENT, "\"a.c\"#", 0, NULL);
    add_ok(&f, 6, LG_WI_NO_PARENT, "\"a.c\"x", 0, NULL);
    /* The same function under a second handle is one profile function. */
    add_ok(&f, 7, LG_WI_NO_PARENT, "\"a.c\"#helper", 0, NULL);
    /* The same handle again with the same name is accepted. */
    add_ok(&f, 0, LG_WI_NO_PARENT, "\"a.c\"#helper", 0, NULL);
    assert_int_equal(f.p.nfuncs, 7);
    assert_int_equal(lg_profile_find(&f.p, "helper", NULL, "a.c"), 0);
    assert_int_equal(lg_profile_find(&f.p, "helper", NULL, "b.c"), 1);
    assert_int_equal(lg_profile_find(&f.p, "plain", NULL, "src/plain.c"), 2);
    assert_int_equal(lg_profile_find(&f.p, "plain2", NULL, NULL), 3);
    assert_int_equal(lg_profile_find(&f.p, "\"\"#x", NULL, NULL), 4);
    assert_int_equal(lg_profile_find(&f.p, "\"a.c\"#", NULL, NULL), 5);
    assert_int_equal(lg_profile_find(&f.p, "\"a.c\"x", NULL, NULL), 6);
    assert_int_equal(lg_wi_map_resolve(f.m, 7), 0);
    teardown(&f);
}

static void test_contradictions(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    add_ok(&f, 0, LG_WI_NO_PARENT, "main", 0, NULL);
    add_ok(&f, 1, LG_WI_NO_PARENT, "\"x.c\"#f", 0, NULL);
    add_ok(&f, 0x10000000, 0, "{", 5, NULL);
    add_fails(&f, 0, LG_WI_NO_PARENT, "other", 0, LG_EFORMAT,
              "function handle 0x00000000 names 'other', it named 'main' before");
    add_fails(&f, 1, LG_WI_NO_PARENT, "f", 0, LG_EFORMAT,
              "function handle 0x00000001 names 'f', it named 'f' of x.c before");
    add_fails(&f, 2, LG_WI_NO_PARENT, "", 0, LG_EFORMAT,
              "expected a name for function handle 0x00000002, found none");
    add_fails(&f, 2, LG_WI_NO_PARENT, NULL, 0, LG_EFORMAT,
              "expected a name for function handle 0x00000002, found none");
    add_fails(&f, 0x10000001, LG_WI_NO_PARENT, "{", 5, LG_EFORMAT,
              "expected a function before line handle 0x10000001 (its parent), found none");
    add_fails(&f, 0x10000001, 9, "{", 5, LG_EFORMAT,
              "expected the parent of line handle 0x10000001 to be a function listed before it, "
              "found function handle 0x00000009 (not listed)");
    add_fails(&f, 0x10000001, 0x30000000, "{", 5, LG_EFORMAT,
              "expected the parent of line handle 0x10000001 to be a function listed before it, "
              "found state handle 0x30000000");
    add_fails(&f, 0x10000000, 0, "{", 6, LG_EFORMAT,
              "line handle 0x10000000 is line 6 of 'main', it was line 5 of 'main' before");
    add_ok(&f, 0x10000000, 0, "{", 5, NULL); /* the same again */
    teardown(&f);
}

/* A handle numbering: handles[i] for i < n, each a function named after its index or another
 * area; the lookups must agree with the list. */
static void check_numbering(const uint32_t *handles, size_t n)
{
    fixture_t f;
    setup(&f);
    char name[32];
    size_t functions = 0;
    add_ok(&f, 0x0FFFFFFE, LG_WI_NO_PARENT, "parent", 0, NULL);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "f%zu", i);
        uint32_t parent =
            lg_wi_handle_area(handles[i]) == LG_WI_LINE ? 0x0FFFFFFE : LG_WI_NO_PARENT;
        add_ok(&f, handles[i], parent, name, i, NULL);
        functions += lg_wi_handle_area(handles[i]) == LG_WI_FUNCTION;
    }
    assert_int_equal(f.p.nfuncs, functions + 1);
    assert_int_equal(lg_wi_map_count(f.m), n + 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t got = lg_wi_map_resolve(f.m, handles[i]);
        if (lg_wi_handle_area(handles[i]) != LG_WI_FUNCTION) {
            assert_int_equal(got, LG_WI_NOT_FUNCTION);
        } else {
            assert_true(got < f.p.nfuncs);
            snprintf(name, sizeof name, "f%zu", i);
            assert_string_equal(f.p.funcs[got].name, name);
        }
        uint32_t func;
        uint64_t line;
        if (lg_wi_handle_area(handles[i]) == LG_WI_LINE) {
            assert_true(lg_wi_map_line(f.m, handles[i], &func, &line));
            assert_int_equal(func, 0);
            assert_int_equal(line, i);
        }
        /* A neighbour that is not listed is unmapped. */
        uint32_t next = handles[i] + 1;
        bool listed = next == 0x0FFFFFFE;
        for (size_t k = 0; k < n && !listed; k++)
            listed = handles[k] == next;
        if (!listed)
            assert_int_equal(lg_wi_map_resolve(f.m, next), LG_WI_UNMAPPED);
    }
    teardown(&f);
}

static void test_dense_sparse_and_mixed_numberings(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint32_t *h = malloc(N * sizeof *h);
    assert_non_null(h);
    /* Dense from 0, as winIDEA numbers them, functions and lines interleaved. */
    for (size_t i = 0; i < N; i++)
        h[i] = (uint32_t)(i % 2 ? 0x10000000u + i : i);
    check_numbering(h, N);
    /* Sparse: every handle far from the others. */
    for (size_t i = 0; i < N; i++)
        h[i] = (uint32_t)(i * 65537u + 3u) & 0x0FFFFFFFu;
    check_numbering(h, N);
    /* Mixed: a far handle first, then dense ones that grow past it, in descending order, so
     * hashed handles must move into the growing dense table. */
    h[0] = 20000;
    for (size_t i = 1; i < N; i++)
        h[i] = (uint32_t)(N - i) * 7u;
    check_numbering(h, N);
    /* Random handles of every area type. */
    lg_test_seed(5);
    for (size_t i = 0; i < N; i++) {
        uint32_t v;
        bool dup;
        do {
            v = (uint32_t)lg_test_rng();
            v = (v & 0x7FFF) | (uint32_t)(lg_test_rng() % 6) << 28;
            if (lg_test_rng() % 8 == 0)
                v |= (uint32_t)lg_test_rng() & 0x0FFF0000u;
            dup = v == 0x0FFFFFFE;
            for (size_t k = 0; k < i && !dup; k++)
                dup = h[k] == v;
        } while (dup);
        h[i] = v;
    }
    check_numbering(h, N);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_names_and_files),
        cmocka_unit_test(test_contradictions),
        cmocka_unit_test(test_dense_sparse_and_mixed_numberings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
