/* test_winidea_xml.c - the winIDEA XML export reader.
 *
 * winIDEA's schema is not public: the documents here have the shape docs/loaders/winidea.md
 * assumes (the one tests/bench/gen_winidea.c writes), and variations of it the reader must
 * tolerate (case, prefixes, attributes, element order, wrappers, unknown elements). The data is
 * the Text1 help's examples, written as XML. Malformed documents check the exact
 * "PATH:LINE:COLUMN: message (byte N)" of their one error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "winidea_xml.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Name the in-memory inputs carry in diagnostics. */
#define MEM_PATH "t.xml"

/* The help's mapping and statistics examples in the assumed XML shape. */
#define SPEC_DOCUMENT                                                                              \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                                 \
    "<ProfilerExport>\n"                                                                           \
    "  <INFO><TOTAL_TIME>7962907051</TOTAL_TIME></INFO>\n"                                         \
    "  <CONTEXTS><CONTEXT><NAME>ID_TASK_1MS</NAME><HANDLE>0x0</HANDLE></CONTEXT></CONTEXTS>\n"     \
    "  <MAPPING>\n"                                                                                \
    "    <AREA><HANDLE>00000000</HANDLE><NAME>main</NAME></AREA>\n"                                \
    "    <AREA><HANDLE>10000000</HANDLE><NAME>{</NAME><VALUE>51</VALUE></AREA>\n"                  \
    "    <AREA><HANDLE>10000004</HANDLE><NAME>TestStatic1();</NAME><VALUE>59</VALUE></AREA>\n"     \
    "    <AREA><HANDLE>00000001</HANDLE><NAME>\"TestStatic1.c\"#StaticFunc</NAME></AREA>\n"        \
    "    <AREA><HANDLE>10000007</HANDLE><NAME>{</NAME><VALUE>6</VALUE></AREA>\n"                   \
    "    <AREA><HANDLE>20000000</HANDLE><NAME>TestStatic1##s_cStatic</NAME></AREA>\n"              \
    "    <AREA><HANDLE>30000000</HANDLE><VALUE>0</VALUE></AREA>\n"                                 \
    "    <AREA><HANDLE>30000000</HANDLE><VALUE>1</VALUE></AREA>\n"                                 \
    "  </MAPPING>\n"                                                                               \
    "  <STATISTICS>\n"                                                                             \
    "    <AREA><HANDLE>00000000</HANDLE><COUNT>0</COUNT><T.NET>267</T.NET></AREA>\n"               \
    "    <AREA><HANDLE>10000004</HANDLE><VALUE>59</VALUE><COUNT>1</COUNT><T.NET>133</T.NET>"       \
    "</AREA>\n"                                                                                    \
    "    <AREA><HANDLE>00000001</HANDLE><COUNT>3</COUNT><T.NET>30</T.NET>"                         \
    "<T.GROSS>45</T.GROSS></AREA>\n"                                                               \
    "    <AREA><HANDLE>30000000</HANDLE><VALUE>0</VALUE><COUNT>1</COUNT><T.NET>7521</T.NET>"       \
    "</AREA>\n"                                                                                    \
    "  </STATISTICS>\n"                                                                            \
    "</ProfilerExport>\n"

#define CALLS_MAPPING                                                                              \
    "<MAPPING>\n"                                                                                  \
    "<AREA><HANDLE>0x0</HANDLE><NAME>main</NAME></AREA>\n"                                         \
    "<AREA><HANDLE>0x1</HANDLE><NAME>f</NAME></AREA>\n"                                            \
    "<AREA><HANDLE>0x2</HANDLE><NAME>g</NAME></AREA>\n"                                            \
    "<AREA><HANDLE>0x20000000</HANDLE><NAME>counter</NAME></AREA>\n"                               \
    "</MAPPING>\n"

static void load_bytes(lg_test_loaded_t *r, const char *data, size_t size)
{
    if (size == 0)
        lg_test_load_file(r, lg_wi_xml_read, lg_test_write_file("empty.xml", "", 0), NULL);
    else
        lg_test_load_bytes(r, lg_wi_xml_read, data, size, MEM_PATH, NULL);
}

static void load_text(lg_test_loaded_t *r, const char *text)
{
    load_bytes(r, text, strlen(text));
}

static void assert_fails_exactly(const lg_test_loaded_t *r, lg_err_t err, const char *want)
{
    lg_test_assert_one_error(r, err, want);
    assert_int_equal(r->p.nfuncs, 0);
    assert_null(r->p.path);
}

static void expect_error(const char *text, lg_err_t err, const char *want)
{
    lg_test_loaded_t r;
    load_text(&r, text);
    assert_fails_exactly(&r, err, want);
    lg_test_loaded_destroy(&r);
}

/* ---- The assumed shape -------------------------------------------------------------------- */

static void test_mapping_and_statistics(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, SPEC_DOCUMENT);
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_string_equal(p->format, "winidea-xml");
    assert_string_equal(p->counter1_unit, "ns");
    assert_false(p->has_call_edges);
    assert_int_equal(p->nfuncs, 2);
    const lg_pfunc_t *m = lg_test_func(p, "main", NULL);
    assert_int_equal(m->hits, 1); /* ran, count unknown */
    assert_int_equal(m->counter1_self, 267);
    assert_int_equal(m->counter1_total, 267); /* no T.GROSS: the net time */
    const lg_pfunc_t *s = lg_test_func(p, "StaticFunc", "TestStatic1.c");
    assert_int_equal(s->hits, 3);
    assert_int_equal(s->counter1_self, 30);
    assert_int_equal(s->counter1_total, 45);
    assert_int_equal(p->cost_positions, LG_POS_LINE);
    assert_int_equal(p->ncosts, 1);
    assert_int_equal(lg_test_cost_at(p, m, 59), 133);
    lg_test_loaded_destroy(&r);
}

static void test_assumed_shape_fixture(void **state)
{
    (void)state;
    /* tests/fixtures/winidea/assumed_shape.xml: the Text1 help's data, with a timeline in which
     * main, running when the recording starts, calls StaticFunc once. */
    lg_test_loaded_t r;
    lg_test_load_file(&r, lg_wi_xml_read,
                      LORGEN_SOURCE_DIR "/tests/fixtures/winidea/assumed_shape.xml", NULL);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.errors, 0);
    assert_int_equal(r.d.warnings, 1); /* main started inside and was open at the end */
    assert_int_equal(r.p.nfuncs, 2);
    const lg_pfunc_t *m = lg_test_func(&r.p, "main", NULL);
    const lg_pfunc_t *s = lg_test_func(&r.p, "StaticFunc", "TestStatic1.c");
    assert_int_equal(r.p.nedges, 1);
    assert_int_equal(r.p.edges[0].caller, (uint32_t)(m - r.p.funcs));
    assert_int_equal(r.p.edges[0].callee, (uint32_t)(s - r.p.funcs));
    assert_int_equal(r.p.edges[0].weight, 1);
    assert_int_equal(s->hits, 1);
    assert_int_equal(lg_test_cost_at(&r.p, m, 59), 133);
    lg_test_loaded_destroy(&r);
}

static void test_timeline_with_cores_and_contexts(void **state)
{
    (void)state;
    /* Core 0 task A: main calls f twice, f calls g once. Task B on core 0 and task A on core 1
     * enter functions while f is on top of core 0 task A's stack: not calls of f. */
    lg_test_loaded_t r;
    load_text(&r, "<X>" CALLS_MAPPING "<TIMELINE>\n"
                  "<T><HANDLE>0x0</HANDLE><EVENT>E</EVENT><TIME>100</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x0</HANDLE><EVENT>S</EVENT><TIME>110</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x1</HANDLE><EVENT>E</EVENT><TIME>110</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x20000000</HANDLE><EVENT>W</EVENT><VALUE>00000001</VALUE>"
                  "<TIME>115</TIME><CORE>0</CORE></T>\n"
                  "<T><HANDLE>0x2</HANDLE><EVENT>E</EVENT><TIME>116</TIME><CORE>0</CORE>"
                  "<CONTEXT>B</CONTEXT></T>\n"
                  "<T><HANDLE>0x2</HANDLE><EVENT>X</EVENT><TIME>117</TIME><CORE>0</CORE>"
                  "<CONTEXT>B</CONTEXT></T>\n"
                  "<T><HANDLE>0x2</HANDLE><EVENT>E</EVENT><TIME>118</TIME><CORE>1</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x2</HANDLE><EVENT>X</EVENT><TIME>119</TIME><CORE>1</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x1</HANDLE><EVENT>S</EVENT><TIME>120</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x2</HANDLE><EVENT>E</EVENT><TIME>120</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x2</HANDLE><EVENT>X</EVENT><TIME>130</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x1</HANDLE><EVENT>R</EVENT><TIME>130</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x1</HANDLE><EVENT>X</EVENT><TIME>140</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x0</HANDLE><EVENT>R</EVENT><TIME>140</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x0</HANDLE><EVENT>S</EVENT><TIME>150</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x1</HANDLE><EVENT>E</EVENT><TIME>150</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x1</HANDLE><EVENT>X</EVENT><TIME>160</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x0</HANDLE><EVENT>R</EVENT><TIME>160</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "<T><HANDLE>0x0</HANDLE><EVENT>X</EVENT><TIME>170</TIME><CORE>0</CORE>"
                  "<CONTEXT>A</CONTEXT></T>\n"
                  "</TIMELINE></X>\n");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_true(p->has_call_edges);
    assert_true(p->has_timeline);
    assert_int_equal(p->nedges, 2);
    assert_int_equal(lg_test_edge(p, "main", "f"), 2);
    assert_int_equal(lg_test_edge(p, "f", "g"), 1);
    assert_int_equal(lg_test_func(p, "g", NULL)->hits, 3);
    lg_test_loaded_destroy(&r);
}

static void test_tolerated_variations(void **state)
{
    (void)state;
    /* Lower case, a namespace prefix, attributes, other element orders, a wrapper list,
     * unknown elements with children, comments, CDATA, escapes, no indentation, numeric and
     * word events, hexadecimal times, an unknown record with a handle. */
    lg_test_loaded_t r;
    load_text(&r, "<?xml version=\"1.0\"?><!-- a comment --><p:export xmlns:p=\"urn:x\">"
                  "<p:mapping><areas>"
                  "<p:area handle=\"0\" name=\"main\"/>"
                  "<area><name><![CDATA[f&co]]></name><Handle>1</Handle>"
                  "<extra><handle>5</handle></extra></area>"
                  "<AREA><NAME>g</NAME><HANDLE>2</HANDLE><PATH>/g</PATH></AREA>"
                  "<area handle=\"10000000\"><parent>1</parent><value>0x2A</value></area>"
                  "</areas></p:mapping>"
                  "<statistics><entry><t.net>7</t.net><handle>10000000</handle></entry>"
                  "</statistics>"
                  "<other><handle>1</handle></other>"
                  "<timeline>"
                  "<t handle=\"0\" event=\"ENTRY\" time=\"0x10\"/>"
                  "<t><time>20</time><event>1</event><handle>0</handle></t>"
                  "<t><event>3</event><handle>1</handle><time>20</time></t>"
                  "<t><event>e</event><handle>2</handle><time>21</time></t>"
                  "<t><event>x</event><handle>2</handle><time>22</time></t>"
                  "<t><event>Exit</event><handle>1</handle><time>23</time></t>"
                  "<t><event>r</event><handle>0</handle><time>24</time></t>"
                  "<t><event>X</event><handle>0</handle><time>-25</time></t>"
                  "</timeline></p:export>");
    assert_int_equal(r.err, LG_OK);
    const lg_profile_t *p = &r.p;
    lg_test_func(p, "f&co", NULL);
    assert_int_equal(lg_test_edge(p, "main", "f&co"), 1);
    assert_int_equal(lg_test_edge(p, "f&co", "g"), 1);
    assert_int_equal(lg_test_cost_at(p, lg_test_func(p, "f&co", NULL), 42), 7);
    /* <other> is counted; the time going back (-25) is the timeline's own warning. */
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "t.xml:1:438: 1 element(s) with a <HANDLE> outside MAPPING, "
                                 "STATISTICS and TIMELINE were skipped"));
    assert_int_equal(r.d.warnings, 2);
    assert_int_equal(r.d.errors, 0);
    lg_test_loaded_destroy(&r);
}

static void test_windows_1252_is_accepted(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "<?xml version=\"1.0\" encoding=\"windows-1252\"?>"
                  "<MAPPING><AREA><HANDLE>0</HANDLE><NAME>caf\xe9\x80</NAME></AREA></MAPPING>");
    lg_test_assert_loaded_clean(&r);
    lg_test_func(&r.p, "caf\xc3\xa9\xe2\x82\xac", NULL);
    lg_test_loaded_destroy(&r);
}

/* ---- Malformed documents ------------------------------------------------------------------ */

static void test_malformed_xml_names_line_column_and_byte(void **state)
{
    (void)state;
    expect_error("<MAPPING>\n  <AREA><HANDLE>0</HANDLE></NAME></AREA>\n</MAPPING>\n", LG_EFORMAT,
                 "t.xml:2:29: expected well-formed XML, found: mismatched tag (byte 38)");
    expect_error("<MAPPING>\n  <AREA><HANDLE>0</HANDLE>", LG_EFORMAT,
                 "t.xml:2:27: expected the rest of the document, found its end with 2 "
                 "element(s) open: the file is cut short (byte 36)");
    expect_error("<MAPPING><AREA a=1/></MAPPING>", LG_EFORMAT,
                 "t.xml:1:18: expected well-formed XML, found: not well-formed (invalid token) "
                 "(byte 17)");
    expect_error("<?xml version=\"1.0\" encoding=\"EBCDIC\"?><MAPPING/>", LG_EFORMAT,
                 "t.xml:1:31: expected well-formed XML, found: unknown encoding (byte 30)");
    lg_test_loaded_t r;
    load_bytes(&r, "", 0);
    assert_int_equal(r.err, LG_EFORMAT);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR,
                                 "empty.xml:1:1: expected well-formed XML, found: no element "
                                 "found (byte 0)"));
    lg_test_loaded_destroy(&r);
}

static void test_bad_records(void **state)
{
    (void)state;
    expect_error("<MAPPING>\n<AREA><NAME>main</NAME></AREA></MAPPING>", LG_EFORMAT,
                 "t.xml:2:1: expected <HANDLE> in <AREA>, found none (byte 10)");
    expect_error("<MAPPING>\n<AREA><HANDLE>main</HANDLE></AREA></MAPPING>", LG_EFORMAT,
                 "t.xml:2:7: expected a handle (up to 8 hexadecimal digits) in <HANDLE>, found "
                 "'main' (byte 16)");
    expect_error("<MAPPING>\n<AREA><HANDLE> </HANDLE></AREA></MAPPING>", LG_EFORMAT,
                 "t.xml:2:7: expected a handle (up to 8 hexadecimal digits) in <HANDLE>, found "
                 "nothing (byte 16)");
    expect_error("<MAPPING><AREA><HANDLE>0</HANDLE><NAME>a</NAME></AREA>\n"
                 "<AREA><HANDLE>0</HANDLE><NAME>b</NAME></AREA></MAPPING>",
                 LG_EFORMAT,
                 "t.xml:2:7: function handle 0x00000000 names 'b', it named 'a' before (byte 61)");
    expect_error("<MAPPING><AREA><HANDLE>0</HANDLE><NAME>a</NAME></AREA>\n"
                 "<AREA><HANDLE>10000000</HANDLE><VALUE>x</VALUE></AREA></MAPPING>",
                 LG_EFORMAT, "t.xml:2:32: expected a line number in <VALUE>, found 'x' (byte 86)");
    expect_error("<R>" CALLS_MAPPING "<STATISTICS>\n"
                 "<AREA><HANDLE>1</HANDLE><COUNT>many</COUNT></AREA></STATISTICS></R>",
                 LG_EFORMAT, "t.xml:8:25: expected a number in <COUNT>, found 'many' (byte 269)");
    expect_error("<R>" CALLS_MAPPING "<TIMELINE>\n"
                 "<T><HANDLE>9</HANDLE><EVENT>E</EVENT><TIME>1</TIME></T></TIMELINE></R>",
                 LG_EFORMAT,
                 "t.xml:8:4: handle 0x00000009 is not in the mapping (no <AREA> lists it) "
                 "(byte 246)");
    expect_error("<R>" CALLS_MAPPING "<TIMELINE>\n"
                 "<T><HANDLE>1</HANDLE><EVENT>Q</EVENT><TIME>1</TIME></T></TIMELINE></R>",
                 LG_EFORMAT,
                 "t.xml:8:22: expected an event E, S, R, X or W in <EVENT>, found 'Q' "
                 "(byte 264)");
    expect_error("<R>" CALLS_MAPPING "<TIMELINE>\n"
                 "<T><HANDLE>1</HANDLE><EVENT>E</EVENT><TIME>soon</TIME></T></TIMELINE></R>",
                 LG_EFORMAT,
                 "t.xml:8:38: expected a time in ns in <TIME>, found 'soon' (byte 280)");
    expect_error("<R>" CALLS_MAPPING "<TIMELINE>\n"
                 "<T><HANDLE>1</HANDLE><EVENT>E</EVENT></T></TIMELINE></R>",
                 LG_EFORMAT, "t.xml:8:1: expected <TIME> in <T>, found none (byte 243)");
    expect_error("<R>" CALLS_MAPPING "<TIMELINE>\n"
                 "<T><HANDLE>1</HANDLE><EVENT>E</EVENT><TIME>1</TIME><CORE>x</CORE></T>"
                 "</TIMELINE></R>",
                 LG_EFORMAT,
                 "t.xml:8:52: expected a core index (a number, -1 when unknown) in <CORE>, found "
                 "'x' (byte 294)");
    expect_error("<R>" CALLS_MAPPING "<TIMELINE>\n"
                 "<T><HANDLE>1</HANDLE><EVENT>E</EVENT><TIME>1</TIME></T></TIMELINE>\n"
                 "<MAPPING><AREA><HANDLE>3</HANDLE><NAME>h</NAME></AREA></MAPPING></R>",
                 LG_EFORMAT,
                 "t.xml:9:10: expected every <AREA> before the timeline (first event at line 8), "
                 "found one after it (byte 319)");
    expect_error("<R><TIMELINE/></R>", LG_EFORMAT,
                 "t.xml: expected <AREA> elements (the mapping of handles to functions), found "
                 "none");
}

static void test_limits(void **state)
{
    (void)state;
    size_t depth = LG_WI_XML_MAX_DEPTH + 1;
    char *deep = malloc(depth * 7 + 1);
    assert_non_null(deep);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++)
        n += (size_t)sprintf(deep + n, "<a>");
    for (size_t i = 0; i < depth; i++)
        n += (size_t)sprintf(deep + n, "</a>");
    char want[256];
    snprintf(want, sizeof want,
             "t.xml:1:%u: elements nested deeper than %u (LG_WI_XML_MAX_DEPTH) (byte %u)",
             LG_WI_XML_MAX_DEPTH * 3 + 1, LG_WI_XML_MAX_DEPTH, LG_WI_XML_MAX_DEPTH * 3);
    lg_test_loaded_t r;
    load_bytes(&r, deep, n);
    assert_fails_exactly(&r, LG_ELIMIT, want);
    lg_test_loaded_destroy(&r);
    free(deep);

    size_t big = LG_WI_XML_MAX_TEXT + 1;
    char *text = malloc(big + 100);
    assert_non_null(text);
    n = (size_t)sprintf(text, "<MAPPING><AREA><NAME>");
    memset(text + n, 'x', big);
    n += big;
    n += (size_t)sprintf(text + n, "</NAME></AREA></MAPPING>");
    snprintf(want, sizeof want,
             "t.xml:1:16: <NAME> holds more than %u bytes of text (LG_WI_XML_MAX_TEXT) (byte 15)",
             LG_WI_XML_MAX_TEXT);
    load_bytes(&r, text, n);
    assert_fails_exactly(&r, LG_ELIMIT, want);
    lg_test_loaded_destroy(&r);
    free(text);
}

static void test_xml_timeline_next_to_a_bin_is_an_error(void **state)
{
    (void)state;
    lg_test_write_file("both.xml.BIN", "", 0);
    const char *text = "<R>" CALLS_MAPPING "<TIMELINE>\n"
                       "<T><HANDLE>1</HANDLE><EVENT>E</EVENT><TIME>1</TIME></T></TIMELINE></R>";
    const char *path = lg_test_write_file("both.xml", text, strlen(text));
    lg_test_loaded_t r;
    lg_test_load_file(&r, lg_wi_xml_read, path, NULL);
    char want[8192];
    snprintf(want, sizeof want,
             "%s/both.xml:8:1: expected no timeline events in the XML next to the binary "
             "timeline %s/both.xml.BIN, found some (winIDEA writes one or the other: remove or "
             "rename the stale one) (byte 243)",
             LORGEN_TEST_TMPDIR, LORGEN_TEST_TMPDIR);
    assert_fails_exactly(&r, LG_EFORMAT, want);
    lg_test_loaded_destroy(&r);
}

/* ---- Robustness --------------------------------------------------------------------------- */

static void test_every_truncation_loads_or_fails_cleanly(void **state)
{
    (void)state;
    const char *text = SPEC_DOCUMENT;
    size_t n = strlen(text);
    for (size_t k = 0; k <= n; k++) {
        lg_test_loaded_t r;
        load_bytes(&r, text, k);
        if (k == n)
            assert_int_equal(r.err, LG_OK);
        if (r.err == LG_OK) {
            assert_int_equal(r.d.errors, 0);
        } else {
            assert_int_equal(r.d.errors, 1);
            assert_int_equal(r.p.nfuncs, 0);
        }
        lg_test_loaded_destroy(&r);
    }
}

static void test_probe(void **state)
{
    (void)state;
    const char *yes[] = {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ProfilerExport>\n  <MAPPING>\n",
        "\xEF\xBB\xBF  <export><area><handle>0</handle>",
        "<p:x xmlns:p=\"u\"><p:Timeline>",
        "<AREA/>",
    };
    const char *no[] = {
        "",
        "<?xml version=\"1.0\"?><svg><g/></svg>",
        "<?xml version=\"1.0\"?><root><AREAS></AREAS></root>",
        "text <AREA>",
        "* HANDLE(Functions) %HANDLE%\n",
        "<MAPPING", /* cut off: cannot tell */
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_true(lg_wi_xml_probe((const uint8_t *)yes[i], strlen(yes[i])));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(lg_wi_xml_probe((const uint8_t *)no[i], strlen(no[i])));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping_and_statistics),
        cmocka_unit_test(test_assumed_shape_fixture),
        cmocka_unit_test(test_timeline_with_cores_and_contexts),
        cmocka_unit_test(test_tolerated_variations),
        cmocka_unit_test(test_windows_1252_is_accepted),
        cmocka_unit_test(test_malformed_xml_names_line_column_and_byte),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_xml_timeline_next_to_a_bin_is_an_error),
        cmocka_unit_test(test_every_truncation_loads_or_fails_cleanly),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
