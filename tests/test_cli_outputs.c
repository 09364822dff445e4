/* test_cli_outputs.c - the outputs a command line names: which kinds it asks for, and all of
 * them written or none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "lor.h"
#include "messages.h"
#include "outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Options that name -o and, when not NULL, --ld-script. */
static lg_cli_options_t options(const char *lor, const char *ld)
{
    lg_cli_options_t o;
    memset(&o, 0, sizeof o);
    o.outputs[LG_OUTPUT_LOR] = lor;
    o.outputs[LG_OUTPUT_LD_SCRIPT] = ld;
    return o;
}

/* True when the size bytes of text hold needle. */
static bool contains(const uint8_t *text, size_t size, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(text + i, needle, n) == 0)
            return true;
    return false;
}

static void test_wants(void **state)
{
    (void)state;
    lg_cli_options_t o = options("x.lor", NULL);
    assert_true(lg_cli_wants(&o, LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR)));
    assert_false(lg_cli_wants(&o, LG_CLI_LINKER_OUTPUTS | LG_CLI_REPORT_OUTPUTS));
    o.outputs[LG_OUTPUT_GOLD] = "x.gold";
    assert_true(lg_cli_wants(&o, LG_CLI_LINKER_OUTPUTS));
    assert_false(lg_cli_wants(&o, LG_CLI_GRAPH_OUTPUTS));
    o.outputs[LG_OUTPUT_GRAPHML] = "x.graphml";
    assert_true(lg_cli_wants(&o, LG_CLI_GRAPH_OUTPUTS));
    assert_false(lg_cli_wants(&o, 0));
}

static void test_writes_the_kinds_asked(void **state)
{
    (void)state;
    char lor_path[4096], ld_path[4096];
    snprintf(lor_path, sizeof lor_path, "%s/w.lor", LORGEN_TEST_TMPDIR);
    snprintf(ld_path, sizeof ld_path, "%s/w.ld", LORGEN_TEST_TMPDIR);
    unlink(lor_path);
    unlink(ld_path);
    lg_cli_options_t o = options(lor_path, ld_path);
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_write_input_t in = {.lor = &lor};
    lg_diag_t d;
    lg_diag_init(&d);
    /* Only -o among the kinds: --ld-script is not written. */
    assert_int_equal(
        lg_cli_write_outputs(&o, LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR), LG_OUTPUT_LOR, &in, NULL, &d),
        0);
    size_t size;
    uint8_t *text = lg_test_read_file(lor_path, &size);
    assert_non_null(text);
    assert_true(contains(text, size, "lorgen-lor 1\n"));
    free(text);
    assert_int_equal(access(ld_path, F_OK), -1);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

static void test_one_failure_writes_none(void **state)
{
    (void)state;
    char lor_path[4096];
    snprintf(lor_path, sizeof lor_path, "%s/none.lor", LORGEN_TEST_TMPDIR);
    unlink(lor_path);
    lg_cli_options_t o = options(lor_path, LORGEN_TEST_TMPDIR "/no/such/dir/x.ld");
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_write_input_t in = {.lor = &lor};
    lg_diag_t d;
    lg_diag_init(&d);
    lg_test_stderr_begin();
    int status = lg_cli_write_outputs(&o, LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR) | LG_CLI_LINKER_OUTPUTS,
                                      LG_OUTPUT_LOR, &in, NULL, &d);
    const char *said = lg_test_stderr_end();
    assert_int_equal(status, LG_EXIT_BAD_INPUT);
    assert_non_null(strstr(said, "x.ld: error: cannot create output: No such file or directory"));
    /* The .LOR, which could be written, was not renamed into place. */
    assert_int_equal(access(lor_path, F_OK), -1);
    /* The messages were shown: the sink is empty. */
    assert_int_equal(d.count, 0);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wants),
        cmocka_unit_test(test_writes_the_kinds_asked),
        cmocka_unit_test(test_one_failure_writes_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
