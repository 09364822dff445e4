/* test_cli_inputs.c - the inputs of a command line: told apart by content, loaded, refused with
 * the file and what was found; the head of an unknown file described; .LOR files read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "inputs.h"
#include "messages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A profile every build has (aprof, with calls) and an ELF file: this test program. */
#define PROFILE LORGEN_SOURCE_DIR "/tests/fixtures/aprof/v1_tree.aprof"
#define ELF "/proc/self/exe"

static void expect_head(const char *bytes, size_t n, size_t out_size, const char *want)
{
    char out[64];
    assert_true(out_size <= sizeof out);
    lg_cli_describe_head((const uint8_t *)bytes, n, out, out_size);
    assert_string_equal(out, want);
}

static void test_describe_head(void **state)
{
    (void)state;
    expect_head("hello\n", 6, 64, "68 65 6c 6c 6f 0a");
    /* Eight bytes at most. */
    expect_head("\x7f" "ELF\x02\x01\x01\x00\x00\x00", 10, 64, "7f 45 4c 46 02 01 01 00");
    expect_head("", 0, 64, "an empty file");
    /* A short buffer keeps whole bytes only. */
    expect_head("abcdef", 6, 10, "61 62 63");
}

/* Loads the files named by paths (n of them), expecting status and, on standard error, said. */
static void expect_load(const char *const *paths, size_t n, bool profiles_allowed, int status,
                        const char *said, lg_cli_inputs_t *in)
{
    lg_cli_input_t args[4];
    assert_true(n <= sizeof args / sizeof *args);
    for (size_t i = 0; i < n; i++)
        args[i] = (lg_cli_input_t){.path = paths[i], .weight = 1.0 + (double)i};
    lg_load_options_t load;
    memset(&load, 0, sizeof load);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_test_stderr_begin();
    int got = lg_cli_load_inputs(args, n, &load, profiles_allowed, in, &d);
    const char *text = lg_test_stderr_end();
    if (strstr(text, said) == NULL)
        print_message("expected on standard error: %s\nfound: %s\n", said, text);
    assert_int_equal(got, status);
    assert_non_null(strstr(text, said));
    lg_diag_destroy(&d);
}

static void test_profile_and_elf(void **state)
{
    (void)state;
    const char *paths[] = {PROFILE, ELF, PROFILE};
    lg_cli_inputs_t in;
    expect_load(paths, 3, true, 0, "", &in);
    assert_int_equal(in.nprofiles, 2);
    assert_int_equal(in.nelf, 1);
    assert_string_equal(in.elf_paths[0], ELF);
    assert_true(in.elf.nsyms > 0);
    /* Each profile keeps its own --weight. */
    assert_true(in.profile_weights[0] == 1.0);
    assert_true(in.profile_weights[1] == 3.0);
    lg_bind_input_t *b = lg_cli_bind_inputs(&in, false);
    assert_non_null(b);
    assert_ptr_equal(b[1].profile, &in.profiles[1]);
    assert_true(b[1].scale == 3.0);
    free(b);
    lg_cli_inputs_destroy(&in);
}

static void test_unknown_format(void **state)
{
    (void)state;
    const char *paths[] = {lg_test_write_file("hello.txt", "hello\n", 6)};
    lg_cli_inputs_t in;
    expect_load(paths, 1, true, LG_EXIT_BAD_INPUT,
                "hello.txt: error: unknown input format: expected an ELF file, an ar archive or "
                "a profile ('lorgen formats' lists them), found 68 65 6c 6c 6f 0a\n",
                &in);
    lg_cli_inputs_destroy(&in);
}

static void test_missing_file(void **state)
{
    (void)state;
    const char *paths[] = {ELF, LORGEN_TEST_TMPDIR "/missing.prf"};
    lg_cli_inputs_t in;
    expect_load(paths, 2, true, LG_EXIT_BAD_INPUT,
                "missing.prf: error: cannot read: No such file or directory\n", &in);
    lg_cli_inputs_destroy(&in);
}

static void test_profile_where_elf_only(void **state)
{
    (void)state;
    const char *paths[] = {ELF, PROFILE};
    lg_cli_inputs_t in;
    expect_load(paths, 2, false, LG_EXIT_BAD_INPUT,
                "v1_tree.aprof: error: expected ELF inputs only here, found a aprof profile\n",
                &in);
    lg_cli_inputs_destroy(&in);
}

static void test_read_lor(void **state)
{
    (void)state;
    const char *path = lg_test_write_file("a.lor", "lorgen-lor 1\n", 13);
    size_t len;
    char *text = lg_cli_read_lor(path, &len);
    assert_non_null(text);
    assert_int_equal(len, 13);
    assert_memory_equal(text, "lorgen-lor 1\n", 13);
    free(text);
    lg_test_stderr_begin();
    text = lg_cli_read_lor(LORGEN_TEST_TMPDIR "/missing.lor", &len);
    const char *said = lg_test_stderr_end();
    assert_null(text);
    assert_non_null(strstr(said, "missing.lor: error: cannot open: No such file or directory\n"));
    assert_memory_equal(said, "lorgen: ", 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_describe_head),
        cmocka_unit_test(test_profile_and_elf),
        cmocka_unit_test(test_unknown_format),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_profile_where_elf_only),
        cmocka_unit_test(test_read_lor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
