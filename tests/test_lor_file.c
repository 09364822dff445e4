/* test_lor_file.c - a .LOR file read into memory: its bytes exactly, and the errors for a file
 * that is missing or too large. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "lor_file.h"

#include <stdlib.h>
#include <string.h>

/* The smallest limit lg_lor_read_file takes: its first buffer. */
#define SMALL_LIMIT (64u * 1024u)

static void test_reads_every_byte(void **state)
{
    (void)state;
    /* Larger than the first buffer, so that it grows; with a NUL, which is the parser's to
     * refuse, not the reader's. */
    size_t size = 200000;
    char *data = malloc(size);
    assert_non_null(data);
    for (size_t i = 0; i < size; i++)
        data[i] = (char)('a' + i % 26);
    data[7] = '\0';
    const char *path = lg_test_write_file("big.lor", data, size);
    lg_diag_t d;
    lg_diag_init(&d);
    char *text;
    size_t len;
    assert_int_equal(lg_lor_read_file(path, LG_LOR_MAX_FILE, &text, &len, &d), LG_OK);
    assert_int_equal(len, size);
    assert_memory_equal(text, data, size);
    assert_int_equal(d.count, 0);
    free(text);
    free(data);
    lg_diag_destroy(&d);
}

static void test_empty_file(void **state)
{
    (void)state;
    const char *path = lg_test_write_file("empty.lor", "", 0);
    lg_diag_t d;
    lg_diag_init(&d);
    char *text;
    size_t len = 99;
    assert_int_equal(lg_lor_read_file(path, LG_LOR_MAX_FILE, &text, &len, &d), LG_OK);
    assert_non_null(text);
    assert_int_equal(len, 0);
    free(text);
    lg_diag_destroy(&d);
}

static void test_missing_file(void **state)
{
    (void)state;
    lg_diag_t d;
    lg_diag_init(&d);
    char *text;
    size_t len;
    lg_err_t err = lg_lor_read_file(LORGEN_TEST_TMPDIR "/missing.lor", LG_LOR_MAX_FILE, &text,
                                    &len, &d);
    lg_test_assert_one_error_has(err, &d, LG_EIO, "missing.lor: cannot open: No such file");
    assert_null(text);
    lg_diag_destroy(&d);
}

static void test_limit(void **state)
{
    (void)state;
    size_t size = SMALL_LIMIT + 1;
    char *data = calloc(size, 1);
    assert_non_null(data);
    lg_diag_t d;
    lg_diag_init(&d);
    char *text;
    size_t len;
    /* One byte under the limit: read. */
    const char *path = lg_test_write_file("under.lor", data, SMALL_LIMIT - 1);
    assert_int_equal(lg_lor_read_file(path, SMALL_LIMIT, &text, &len, &d), LG_OK);
    assert_int_equal(len, SMALL_LIMIT - 1);
    free(text);
    /* Over it: refused, nothing returned. */
    path = lg_test_write_file("over.lor", data, size);
    lg_err_t err = lg_lor_read_file(path, SMALL_LIMIT, &text, &len, &d);
    lg_test_assert_one_error_has(err, &d, LG_ELIMIT,
                                 "over.lor: larger than 65536 bytes: not a .LOR file");
    assert_null(text);
    free(data);
    lg_diag_destroy(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_every_byte),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
