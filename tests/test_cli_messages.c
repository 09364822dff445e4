/* test_cli_messages.c - what the CLI says on standard error: the message format, the verbosity
 * filter, diagnostics flushed with their dropped count, usage errors, and the progress line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "messages.h"
#include "progress_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every test starts at the default verbosity. */
static int default_verbosity(void **state)
{
    (void)state;
    lg_cli_set_verbosity(1);
    return 0;
}

static void test_message_format(void **state)
{
    (void)state;
    lg_test_stderr_begin();
    lg_cli_message(LG_WARNING, "a.prf:3:1", "expected %s, found %d", "a number", 7);
    lg_cli_message(LG_ERROR, "", "no place");
    lg_cli_message(LG_NOTE, NULL, "no place either");
    assert_string_equal(lg_test_stderr_end(), "lorgen: a.prf:3:1: warning: expected a number, "
                                              "found 7\n"
                                              "lorgen: error: no place\n"
                                              "lorgen: note: no place either\n");
}

static void test_quiet_shows_errors_only(void **state)
{
    (void)state;
    lg_cli_set_verbosity(0);
    lg_test_stderr_begin();
    lg_cli_message(LG_NOTE, "", "a note");
    lg_cli_message(LG_WARNING, "", "a warning");
    lg_cli_message(LG_ERROR, "x", "an error");
    lg_cli_verbose("a step");
    assert_string_equal(lg_test_stderr_end(), "lorgen: x: error: an error\n");
}

static void test_verbose_only_with_v(void **state)
{
    (void)state;
    lg_test_stderr_begin();
    lg_cli_verbose("reading ELF %s", "a.out");
    assert_string_equal(lg_test_stderr_end(), "");
    lg_cli_set_verbosity(2);
    lg_test_stderr_begin();
    lg_cli_verbose("reading ELF %s", "a.out");
    assert_string_equal(lg_test_stderr_end(), "lorgen: reading ELF a.out\n");
}

static void test_flush_diag_in_order_with_dropped(void **state)
{
    (void)state;
    lg_diag_t d;
    lg_diag_init(&d);
    lg_diag_add(&d, LG_NOTE, "f.lor:2", "first");
    lg_diag_add(&d, LG_ERROR, "f.lor:9", "second");
    d.dropped = 3;
    lg_test_stderr_begin();
    lg_cli_flush_diag(&d);
    assert_string_equal(lg_test_stderr_end(), "lorgen: f.lor:2: note: first\n"
                                              "lorgen: f.lor:9: error: second\n"
                                              "lorgen: note: 3 more messages not shown\n");
    /* Flushed: empty and ready for the next step. */
    assert_int_equal(d.count, 0);
    assert_int_equal(d.dropped, 0);
    lg_test_stderr_begin();
    lg_cli_flush_diag(&d);
    assert_string_equal(lg_test_stderr_end(), "");
    lg_diag_destroy(&d);
}

static void test_usage_error_exits_2(void **state)
{
    (void)state;
    /* The child's exit flushes the buffers it inherited: empty them first. */
    fflush(NULL);
    lg_test_stderr_begin();
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        lg_cli_usage_error("unknown option '%s'", "--frobnicate");
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    const char *said = lg_test_stderr_end();
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), LG_EXIT_USAGE);
    assert_string_equal(said, "lorgen: unknown option '--frobnicate'\nTry 'lorgen --help'.\n");
}

static void expect_bytes(uint64_t n, const char *want)
{
    char out[32];
    lg_cli_format_bytes(n, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_format_bytes(void **state)
{
    (void)state;
    expect_bytes(0, "0 B");
    expect_bytes(1023, "1023 B");
    expect_bytes(1024, "1.0 KiB");
    expect_bytes(1536 * 1024, "1.5 MiB");
    expect_bytes(3ull << 30, "3.0 GiB");
    /* TiB is the largest unit. */
    expect_bytes(UINT64_MAX, "16777216.0 TiB");
}

/* Makes the next update due at once, as if the interval had passed. */
static void interval_passed(lg_cli_progress_line_t *line)
{
    line->last.tv_sec -= 3600;
}

static void test_progress_line(void **state)
{
    (void)state;
    lg_cli_progress_line_t line = {0};
    lg_cli_progress_line_start(&line);
    lg_test_stderr_begin();
    /* Within the interval of the start: nothing. */
    lg_cli_progress_line_update(&line, "big.bin", 1, 2);
    interval_passed(&line);
    lg_cli_progress_line_update(&line, "big.bin", 512, 1024);
    /* A shorter line blanks what the longer one left. */
    interval_passed(&line);
    lg_cli_progress_line_update(&line, "b", 1024, 1024);
    lg_cli_progress_line_clear(&line);
    const char *said = lg_test_stderr_end();
    const char *first = "\rlorgen: reading big.bin: 50% (512 B of 1.0 KiB)";
    const char *second = "\rlorgen: reading b: 100% (1.0 KiB of 1.0 KiB)";
    int width = (int)strlen(first) - 1;
    char want[256];
    snprintf(want, sizeof want, "%s%s%*s\r%*s\r", first, second,
             width - ((int)strlen(second) - 1), "", width, "");
    assert_string_equal(said, want);
    assert_int_equal(line.width, 0);
    /* No line: nothing to clear, nothing to start. */
    lg_test_stderr_begin();
    lg_cli_progress_line_clear(&line);
    lg_cli_progress_line_clear(NULL);
    lg_cli_progress_line_start(NULL);
    assert_string_equal(lg_test_stderr_end(), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_message_format, default_verbosity),
        cmocka_unit_test_setup(test_quiet_shows_errors_only, default_verbosity),
        cmocka_unit_test_setup(test_verbose_only_with_v, default_verbosity),
        cmocka_unit_test_setup(test_flush_diag_in_order_with_dropped, default_verbosity),
        cmocka_unit_test_setup(test_usage_error_exits_2, default_verbosity),
        cmocka_unit_test(test_format_bytes),
        cmocka_unit_test(test_progress_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
