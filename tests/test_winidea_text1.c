/* test_winidea_text1.c - the winIDEA Text1 export reader.
 *
 * The inputs are the examples of winIDEA's help page (../shared/specs/
 * winidea-profiler-export-text1.txt), put together into whole files, and small hand-written
 * variations. Expected values are worked out from the text of each input, never from the
 * reader. Malformed inputs check the exact "PATH:LINE[:COLUMN]: message" of their one error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "winidea_export.h"
#include "winidea_text1.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Name the in-memory inputs carry in diagnostics. */
#define MEM_PATH "t.txt"

/* The help's mapping example (functions with their lines, then data with states). */
#define SPEC_MAPPING                                                                               \
    "* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n"                                                \
    "00000000,main,\n"                                                                             \
    "10000000,{,51\n"                                                                              \
    "10000001,{,51\n"                                                                              \
    "10000002,otm(fn_main);,52\n"                                                                  \
    "10000003,CPU_Init();,54\n"                                                                    \
    "10000004,TestStatic1();,59\n"                                                                 \
    "10000005,TestStatic2();,60\n"                                                                 \
    "10000006,},97\n"                                                                              \
    "00000001,\"TestStatic1.c\"#StaticFunc,\n"                                                     \
    "10000007,{,6\n"                                                                               \
    "10000008,g_cStaticSignal = STATIC;,7\n"                                                       \
    "10000009,},8\n"                                                                               \
    "* HANDLE(Data) %HANDLE%,%NAME%,%VALUE%\n"                                                     \
    "20000000,TestStatic1##s_cStatic,\n"                                                           \
    "30000000,,0\n"                                                                                \
    "30000000,,1\n"                                                                                \
    "20000001,iCounter,\n"                                                                         \
    "20000002,TestStatic2##s_cStatic,\n"                                                           \
    "30000002,,0\n"                                                                                \
    "30000002,,2\n"

/* The help's statistics example, after its mapping. */
#define SPEC_STATISTICS                                                                            \
    "* STATISTICS(Functions) %HANDLE%,%VALUE%,%COUNT%,%T.NET%\n"                                   \
    "00000000,,0,267\n"                                                                            \
    "10000000,51,0,0\n"                                                                            \
    "10000001,51,0,0\n"                                                                            \
    "10000002,52,0,0\n"                                                                            \
    "10000003,54,0,0\n"                                                                            \
    "10000004,59,1,133\n"                                                                          \
    "* STATISTICS(Data) %HANDLE%,%VALUE%,%COUNT%,%T.NET%\n"                                        \
    "20000000,,2,0\n"                                                                              \
    "30000000,0,1,7521\n"                                                                          \
    "30000000,1,1,3491\n"

static void load_bytes_with(lg_test_loaded_t *r, const char *data, size_t size,
                            const lg_load_options_t *options)
{
    if (size == 0)
        lg_test_load_file(r, lg_wi_text1_read, lg_test_write_file("empty.txt", "", 0), options);
    else
        lg_test_load_bytes(r, lg_wi_text1_read, data, size, MEM_PATH, options);
}

static void load_text(lg_test_loaded_t *r, const char *text)
{
    load_bytes_with(r, text, strlen(text), NULL);
}

/* Writes text as a file named name in the test directory and loads it (with its .BIN). */
static void load_file(lg_test_loaded_t *r, const char *name, const char *text,
                      const lg_load_options_t *options)
{
    lg_test_load_file(r, lg_wi_text1_read, lg_test_write_file(name, text, strlen(text)), options);
}

/* The load failed with err and exactly one error "where: message" equal to want. */
static void assert_fails_exactly(const lg_test_loaded_t *r, lg_err_t err, const char *want)
{
    lg_test_assert_one_error(r, err, want);
    lg_test_assert_profile_empty(&r->p);
}

static void expect_error(const char *text, lg_err_t err, const char *want)
{
    lg_test_loaded_t r;
    load_text(&r, text);
    assert_fails_exactly(&r, err, want);
    lg_test_loaded_destroy(&r);
}

/* ---- The help's examples ------------------------------------------------------------------ */

static void test_spec_mapping_and_statistics(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "* INFO %TOTAL_TIME%\n"
                  "7962907051\n" SPEC_MAPPING SPEC_STATISTICS);
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_string_equal(p->format, "winidea-text1");
    assert_string_equal(p->path, MEM_PATH);
    assert_int_equal(p->kind, LG_PROFILE_TRACE);
    assert_false(p->has_call_edges);
    assert_false(p->has_timeline);
    assert_string_equal(p->counter1_unit, "ns");
    /* Two functions; lines, variables and states are not functions. */
    assert_int_equal(p->nfuncs, 2);
    const lg_pfunc_t *m = lg_test_func(p, "main", NULL);
    /* COUNT 0 with 267 ns of net time: main ran, entered before the recording started. */
    assert_int_equal(m->hits, 1);
    assert_int_equal(m->counter1_self, 267);
    assert_int_equal(m->counter1_total, 267); /* no T.GROSS: the net time */
    const lg_pfunc_t *s = lg_test_func(p, "StaticFunc", "TestStatic1.c");
    assert_null(s->link_label);
    assert_int_equal(s->hits, 0);
    assert_int_equal(s->counter1_self, 0);
    /* Line 59 of main (handle 10000004) has 133 ns; the other lines 0. */
    assert_int_equal(p->cost_positions, LG_POS_LINE);
    assert_int_equal(p->ncosts, 1);
    assert_int_equal(lg_test_cost_at(p, m, 59), 133);
    lg_test_loaded_destroy(&r);
}

static void test_spec_statistics_of_several_contexts_are_summed(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "* CONTEXTS %NAME%,%HANDLE%\n"
                  "ID_TASK_1MS,0x0\n"
                  "ID_TASK_3MS_PHigh,0x1\n"
                  "* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n"
                  "00000000,main,\n"
                  "0000000D,taskA,\n"
                  "00000010,taskB,\n"
                  "00000011,work,\n"
                  "00000014,idle,\n"
                  "* STATISTICS(Functions) CONTEXT(TSK: extendedTaskFirst) "
                  "%HANDLE%,%VALUE%,%COUNT%,%T.NET%\n"
                  "00000000,,1,37266\n"
                  "00000010,,195,737457\n"
                  "00000014,,196,1686446\n"
                  "* STATISTICS(Functions) CONTEXT(TSK: extendedTaskSecond) "
                  "%HANDLE%,%VALUE%,%COUNT%,%T.NET%\n"
                  "00000000,,1,36175\n"
                  "0000000D,,1,757304\n"
                  "00000011,,194,446908\n");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_int_equal(p->nfuncs, 5);
    assert_int_equal(lg_test_func(p, "main", NULL)->hits, 2);
    assert_int_equal(lg_test_func(p, "main", NULL)->counter1_self, 37266 + 36175);
    assert_int_equal(lg_test_func(p, "taskA", NULL)->hits, 1);
    assert_int_equal(lg_test_func(p, "taskA", NULL)->counter1_self, 757304);
    assert_int_equal(lg_test_func(p, "taskB", NULL)->hits, 195);
    assert_int_equal(lg_test_func(p, "work", NULL)->counter1_self, 446908);
    assert_int_equal(lg_test_func(p, "idle", NULL)->hits, 196);
    assert_int_equal(p->ncosts, 0);
    assert_int_equal(p->cost_positions, LG_POS_NONE);
    lg_test_loaded_destroy(&r);
}

static void test_gross_time_and_macros_in_any_order(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "* HANDLE(Functions) %VALUE%;%NAME%;%HANDLE%;%PATH%;%FILE%\n"
                  ";f;0;/f;\n"
                  "12;{;10000000;/f/12;f.c\n"
                  ";g;1;/g;g.c\n"
                  "* STATISTICS(Functions) %T.GROSS.MAX%;%T.GROSS%;%HANDLE%;%T.NET%;%COUNT%\n"
                  "9;500;0;100;4\n"
                  "0;90;10000000;40;4\n"
                  "9;70;1;70;7\n");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    const lg_pfunc_t *f = lg_test_func(p, "f", NULL);
    assert_int_equal(f->hits, 4);
    assert_int_equal(f->counter1_self, 100);
    assert_int_equal(f->counter1_total, 500);
    /* FILE qualifies a function whose name does not. */
    const lg_pfunc_t *g = lg_test_func(p, "g", "g.c");
    assert_int_equal(g->hits, 7);
    assert_int_equal(g->counter1_total, 70);
    assert_int_equal(lg_test_cost_at(p, f, 12), 40);
    lg_test_loaded_destroy(&r);
}

static void test_help_example_fixture(void **state)
{
    (void)state;
    /* tests/fixtures/winidea/help_example.txt: the examples above and a timeline in which main,
     * running when the recording starts, calls StaticFunc once. */
    lg_test_loaded_t r;
    lg_test_load_file(&r, lg_wi_text1_read,
                      LORGEN_SOURCE_DIR "/tests/fixtures/winidea/help_example.txt", NULL);
    assert_int_equal(r.err, LG_OK);
    /* main is running when the recording starts and when it ends: the timeline's repairs. */
    assert_int_equal(r.d.errors, 0);
    assert_int_equal(r.d.warnings, 1);
    assert_int_equal(r.p.nfuncs, 2);
    assert_true(r.p.has_timeline);
    assert_int_equal(r.p.nedges, 1);
    const lg_pfunc_t *m = lg_test_func(&r.p, "main", NULL);
    const lg_pfunc_t *s = lg_test_func(&r.p, "StaticFunc", "TestStatic1.c");
    assert_int_equal(r.p.edges[0].caller, (uint32_t)(m - r.p.funcs));
    assert_int_equal(r.p.edges[0].callee, (uint32_t)(s - r.p.funcs));
    assert_int_equal(r.p.edges[0].weight, 1);
    assert_int_equal(s->hits, 1);
    assert_int_equal(s->counter1_self, 4700 - 4602);
    /* Line statistics stand next to a timeline. */
    assert_int_equal(lg_test_cost_at(&r.p, m, 59), 133);
    lg_test_loaded_destroy(&r);
}

/* ---- Timelines ---------------------------------------------------------------------------- */

#define CALLS_MAPPING                                                                              \
    "* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n"                                                \
    "00000000,main,\n"                                                                             \
    "00000001,f,\n"                                                                                \
    "00000002,g,\n"                                                                                \
    "10000000,f();,10\n"                                                                           \
    "* HANDLE(Data) %HANDLE%,%NAME%,%VALUE%\n"                                                     \
    "20000000,counter,\n"

static void test_text_timeline_gives_calls(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, CALLS_MAPPING "* STATISTICS(Functions) %HANDLE%,%COUNT%,%T.NET%\n"
                                "00000001,99,99\n"
                                "* TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%\n"
                                "00000000,E,,100\n"
                                "00000000,S,,110\n"
                                "10000000,E,,110\n"
                                "00000001,E,,110\n"
                                "20000000,W,00000001,115\n"
                                "00000001,S,,120\n"
                                "00000002,E,,120\n"
                                "00000002,X,,130\n"
                                "00000001,R,,130\n"
                                "00000001,X,,140\n"
                                "10000000,X,,140\n"
                                "00000000,R,,140\n"
                                "00000000,S,,150\n"
                                "00000001,E,,150\n"
                                "00000001,X,,160\n"
                                "00000000,R,,160\n"
                                "00000000,X,,170\n");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_true(p->has_call_edges);
    assert_true(p->has_timeline);
    assert_int_equal(p->nedges, 2);
    assert_int_equal(lg_test_edge(p, "main", "f"), 2);
    assert_int_equal(lg_test_edge(p, "f", "g"), 1);
    /* The timeline's counts, not the statistics' 99. */
    assert_int_equal(lg_test_func(p, "f", NULL)->hits, 2);
    assert_int_equal(lg_test_func(p, "g", NULL)->hits, 1);
    assert_int_equal(lg_test_func(p, "main", NULL)->hits, 1);
    lg_test_loaded_destroy(&r);
}

/* Nested calls main -> f -> g: g's Entry finds two functions ahead of it in the proximity
 * window, so it pairs with both. */
#define NESTED_TIMELINE                                                                            \
    "* TIMELINE %HANDLE%,%EVENT%,%TIME%\n"                                                         \
    "00000000,E,100\n"                                                                             \
    "00000000,S,110\n"                                                                             \
    "00000001,E,110\n"                                                                             \
    "00000001,S,120\n"                                                                             \
    "00000002,E,120\n"                                                                             \
    "00000002,X,130\n"                                                                             \
    "00000001,R,130\n"                                                                             \
    "00000001,X,140\n"                                                                             \
    "00000000,R,140\n"                                                                             \
    "00000000,X,150\n"

/* One v1.1 record of the binary timeline: handle, event type (core 0), time. */
static void put_bin_record(uint8_t *rec, uint32_t handle, uint32_t type, uint64_t time)
{
    memset(rec, 0, 24);
    for (int i = 0; i < 4; i++) {
        rec[i] = (uint8_t)(handle >> (8 * i));
        rec[4 + i] = (uint8_t)(type >> (8 * i));
    }
    for (int i = 0; i < 8; i++)
        rec[16 + i] = (uint8_t)(time >> (8 * i));
}

/* The profile's proximity pairs (main-f, main-g, f-g) are counted unless the options skip
 * them; calls and times are the same either way, from a text timeline and from a .BIN. */
static void test_proximity_skipped_on_request(void **state)
{
    (void)state;
    /* The .BIN: the same nested calls as NESTED_TIMELINE (types: 3 Entry, 1 Suspend, 2 Resume,
     * 0 Exit). */
    static const uint32_t events[][3] = {{0, 3, 100}, {0, 1, 110}, {1, 3, 110}, {1, 1, 120},
                                         {2, 3, 120}, {2, 0, 130}, {1, 2, 130}, {1, 0, 140},
                                         {0, 2, 140}, {0, 0, 150}};
    uint8_t bin[sizeof events / sizeof *events * 24];
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        put_bin_record(bin + 24 * i, events[i][0], events[i][1], events[i][2]);
    lg_test_write_file("near.txt.BIN", bin, sizeof bin);
    for (int from_bin = 0; from_bin < 2; from_bin++) {
        lg_test_loaded_t counted, skipped;
        lg_load_options_t skip = {.skip_proximity = true};
        if (from_bin) {
            load_file(&counted, "near.txt", CALLS_MAPPING, NULL);
            load_file(&skipped, "near.txt", CALLS_MAPPING, &skip);
        } else {
            const char *text = CALLS_MAPPING NESTED_TIMELINE;
            load_bytes_with(&counted, text, strlen(text), NULL);
            load_bytes_with(&skipped, text, strlen(text), &skip);
        }
        lg_test_assert_loaded_clean(&counted);
        lg_test_assert_loaded_clean(&skipped);
        assert_int_equal(counted.p.nproximity, 3);
        assert_int_equal(skipped.p.nproximity, 0);
        assert_true(skipped.p.has_timeline);
        assert_int_equal(skipped.p.nedges, 2);
        assert_int_equal(lg_test_edge(&skipped.p, "main", "f"), 1);
        assert_int_equal(lg_test_edge(&skipped.p, "f", "g"), 1);
        assert_int_equal(counted.p.nedges, 2);
        assert_int_equal(lg_test_edge(&counted.p, "f", "g"), 1);
        for (const char *const *name = (const char *const[]){"main", "f", "g", NULL}; *name;
             name++) {
            const lg_pfunc_t *a = lg_test_func(&counted.p, *name, NULL);
            const lg_pfunc_t *b = lg_test_func(&skipped.p, *name, NULL);
            assert_int_equal(a->hits, 1);
            assert_int_equal(b->hits, 1);
            assert_int_equal(a->counter1_total, b->counter1_total);
            assert_int_equal(a->counter1_self, b->counter1_self);
        }
        lg_test_loaded_destroy(&counted);
        lg_test_loaded_destroy(&skipped);
    }
}

static void test_contexts_and_cores_are_separate_streams(void **state)
{
    (void)state;
    /* Task B's g enters while task A's f is on top of task A's stack: no call f -> g. The same
     * on another core. */
    lg_test_loaded_t r;
    load_text(&r, CALLS_MAPPING "* TIMELINE %CONTEXT%,%HANDLE%,%EVENT%,%TIME%,%CORE%\n"
                                "TSK: A,00000001,E,100,0\n"
                                "TSK: B,00000002,E,110,0\n"
                                "TSK: B,00000002,X,120,0\n"
                                "TSK: A,00000001,X,130,0\n"
                                "TSK: A,00000000,E,140,1\n"
                                "TSK: A,00000001,E,150,0\n"
                                "TSK: A,00000001,X,160,0\n"
                                "TSK: A,00000000,X,170,1\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nedges, 0);
    assert_int_equal(lg_test_func(&r.p, "f", NULL)->hits, 2);
    lg_test_loaded_destroy(&r);
}

static void test_unbalanced_events_are_one_warning(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, CALLS_MAPPING "* TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%\n"
                                "00000001,X,,100\n"
                                "00000000,E,,110\n"
                                "00000001,E,,120\n");
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.errors, 0);
    /* One warning, from the timeline builder, that counts each repair (timeline.c). */
    assert_int_equal(r.d.warnings, 1);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, "t.txt: timeline repaired (3 events): 1 "));
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, "; 2 frame(s) still open at the end"));
    assert_int_equal(lg_test_edge(&r.p, "main", "f"), 1);
    lg_test_loaded_destroy(&r);
}

/* ---- Fields ------------------------------------------------------------------------------- */

static void test_quoted_fields_and_surplus_separators(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n"
                  "00000000,\"odd,name.c\"#helper,\n"
                  "10000000,printf(\"%d, %d\", a, b);,7\n"
                  "10000001,x = y, z;,8\n"
                  "10000002,putchar('\"');,9\n"
                  "00000001,\"say \"\"hi\"\"\",\n"
                  "* STATISTICS(Functions) %HANDLE%,%T.NET%\n"
                  "10000000,5\n"
                  "10000001,6\n"
                  "10000002,7\n");
    assert_int_equal(r.err, LG_OK);
    const lg_profile_t *p = &r.p;
    const lg_pfunc_t *h = lg_test_func(p, "helper", "odd,name.c");
    assert_int_equal(lg_test_cost_at(p, h, 7), 5);
    assert_int_equal(lg_test_cost_at(p, h, 8), 6);
    assert_int_equal(lg_test_cost_at(p, h, 9), 7);
    lg_test_func(p, "say \"hi\"", NULL);
    /* Line 3 has a quoted comma and two more, line 4 one more: the surplus goes to NAME.
     * Line 5's quote is not closed. */
    assert_int_equal(r.d.warnings, 2);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "t.txt:3: 2 entries had more fields than the header: the "
                                 "extra separators were taken as part of %NAME%"));
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "t.txt:5: 1 entry had an unclosed '\"': split ignoring quotes"));
    lg_test_loaded_destroy(&r);
}

static void test_blank_lines_crlf_bom_and_unknown_sections(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "\xEF\xBB\xBF\r\n* HANDLE(Functions) %HANDLE%,%NAME%\r\n"
                  "\r\n"
                  "00000000,main\r\n"
                  "* SOMETHING(new) %HANDLE%,%WHATEVER%\r\n"
                  "anything at all\r\n"
                  "* TIMELINE %HANDLE%,%EVENT%,%TIME%\r\n"
                  "00000000,E,5\r\n"
                  "00000000,X,9");
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.count, 1);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "t.txt:5: 1 section(s) with keywords lorgen does not know "
                                 "were skipped, first 'SOMETHING'"));
    assert_int_equal(lg_test_func(&r.p, "main", NULL)->hits, 1);
    lg_test_loaded_destroy(&r);
}

/* ---- Malformed input ---------------------------------------------------------------------- */

static void test_bad_header_lines(void **state)
{
    (void)state;
    expect_error("*HANDLE %HANDLE%\n", LG_EFORMAT,
                 "t.txt:1: expected a section header '* KEYWORD %MACRO%,...', found "
                 "'*HANDLE %HANDLE%'");
    expect_error("* \n", LG_EFORMAT,
                 "t.txt:1: expected a section header '* KEYWORD %MACRO%,...', found '*'");
    expect_error("00000000,main\n", LG_EFORMAT,
                 "t.txt:1: expected a section header '* KEYWORD %MACRO%,...' before the first "
                 "entry, found '00000000,main'");
    expect_error("* HANDLE(Functions\n", LG_EFORMAT,
                 "t.txt:1:9: expected ')' closing '(Functions', found the end of the line");
    expect_error("* HANDLE(Functions)\n", LG_EFORMAT,
                 "t.txt:1: expected the entry format (%MACRO%,...) after '* HANDLE', found "
                 "nothing");
    expect_error("* HANDLE(Functions) HANDLE,NAME\n", LG_EFORMAT,
                 "t.txt:1:21: expected the entry format (%MACRO%,...) after '* HANDLE', found "
                 "'HANDLE,NAME'");
    expect_error("* HANDLE %HANDLE%,%NAME\n", LG_EFORMAT,
                 "t.txt:1:19: expected '%' closing the macro that starts here, found the end of "
                 "the line");
    expect_error("* HANDLE %HANDLE%,%%\n", LG_EFORMAT,
                 "t.txt:1:19: expected a macro name between '%' and '%', found none");
    expect_error("* HANDLE %HANDLE%%NAME%\n", LG_EFORMAT,
                 "t.txt:1:18: expected a separator between two macros, found none");
    expect_error("* HANDLE %HANDLE%,%NAME%,\n", LG_EFORMAT,
                 "t.txt:1:25: expected a macro after ',', found the end of the line");
    expect_error("* HANDLE %HANDLE%,%NAME%;%VALUE%\n", LG_EFORMAT,
                 "t.txt:1:25: expected ',' between macros (as after the first one), found ';'");
    expect_error("* HANDLE %HANDLE%,%NAME%,%HANDLE%\n", LG_EFORMAT,
                 "t.txt:1:26: macro %HANDLE% appears twice in the header");
    expect_error("* TIMELINE %HANDLE%,%TIME%\n", LG_EFORMAT,
                 "t.txt:1: expected %EVENT% in the TIMELINE header, found %HANDLE%,%TIME%");
    expect_error("* HANDLE %NAME%\n", LG_EFORMAT,
                 "t.txt:1: expected %HANDLE% in the HANDLE header, found %NAME%");
}

static void test_unknown_macro_names_line_and_column(void **state)
{
    (void)state;
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%\n"
                 "00000000,main\n"
                 "* TIMELINE %HANDLE%,%EVENT%,%TIMESTAMP%\n",
                 LG_EFORMAT,
                 "t.txt:3:29: unknown macro %TIMESTAMP% in the TIMELINE header "
                 "(docs/loaders/winidea.md lists the macros)");
    expect_error("* STATISTICS %HANDLE%,%T.NET.MEDIAN%\n", LG_EFORMAT,
                 "t.txt:1:23: unknown macro %T.NET.MEDIAN% in the STATISTICS header "
                 "(docs/loaders/winidea.md lists the macros)");
}

static void test_bad_entries(void **state)
{
    (void)state;
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n"
                 "00000000,main\n",
                 LG_EFORMAT, "t.txt:2: expected 3 fields (%HANDLE%,%NAME%,%VALUE%), found 2");
    expect_error("* HANDLE(Functions) %HANDLE%,%VALUE%\n"
                 "00000000,1,2\n",
                 LG_EFORMAT, "t.txt:2: expected 2 fields (%HANDLE%,%VALUE%), found 3");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%\n"
                 "0000000G,main\n",
                 LG_EFORMAT,
                 "t.txt:2:1: expected a handle (up to 8 hexadecimal digits), found '0000000G'");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%\n"
                 "100000000,main\n",
                 LG_EFORMAT,
                 "t.txt:2:1: expected a handle (up to 8 hexadecimal digits), found '100000000'");
    expect_error("* HANDLE(Functions) %NAME%,%HANDLE%\n"
                 "main,\n",
                 LG_EFORMAT,
                 "t.txt:2:6: expected a handle (up to 8 hexadecimal digits), found nothing");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%\n"
                 "00000000,\n",
                 LG_EFORMAT,
                 "t.txt:2:1: expected a name for function handle 0x00000000, found "
                 "none");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%\n"
                 "00000000,main\n"
                 "00000000,other\n",
                 LG_EFORMAT,
                 "t.txt:3:1: function handle 0x00000000 names 'other', it named 'main' before");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n"
                 "10000000,{,5\n",
                 LG_EFORMAT,
                 "t.txt:2:1: expected a function before line handle 0x10000000 (its parent), "
                 "found none");
    expect_error("* HANDLE(Functions) %HANDLE%,%HANDLE.PARENT%,%VALUE%\n"
                 "10000000,20000000,5\n",
                 LG_EFORMAT,
                 "t.txt:2:1: expected the parent of line handle 0x10000000 to be a function "
                 "listed before it, found variable handle 0x20000000");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n"
                 "00000000,main,\n"
                 "10000000,{,5x\n",
                 LG_EFORMAT, "t.txt:3:12: expected a line number for %VALUE%, found '5x'");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%\n"
                 "00000000,main\n"
                 "* STATISTICS(Functions) %HANDLE%,%COUNT%\n"
                 "00000000,-1\n",
                 LG_EFORMAT, "t.txt:4:10: expected a number for %COUNT%, found '-1'");
    expect_error("* HANDLE(Functions) %HANDLE%,%NAME%\n"
                 "00000000,main\n"
                 "* STATISTICS(Functions) %HANDLE%,%COUNT%\n"
                 "00000001,1\n",
                 LG_EFORMAT,
                 "t.txt:4:1: handle 0x00000001 is not in the mapping (no HANDLE section lists "
                 "it)");
    expect_error("* INFO %TOTAL_TIME%\n"
                 "soon\n",
                 LG_EFORMAT, "t.txt:2:1: expected a number for %TOTAL_TIME%, found 'soon'");
    expect_error("* INFO %TOTAL_TIME%\n"
                 "5\n",
                 LG_EFORMAT,
                 "t.txt: expected a HANDLE section (the mapping of handles to functions), found "
                 "none in 2 lines");
    static const char nul[] = "* HANDLE %HANDLE%,%NAME%\n"
                              "00000000,ma\0in\n";
    lg_test_loaded_t r;
    load_bytes_with(&r, nul, sizeof nul - 1, NULL);
    assert_fails_exactly(&r, LG_EFORMAT, "t.txt:2:12: expected text, found a NUL byte");
    lg_test_loaded_destroy(&r);
}

static void test_bad_timeline_entries(void **state)
{
    (void)state;
    expect_error(CALLS_MAPPING "* TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%\n"
                               "00000000,E,,100\n"
                               "00000009,E,,110\n",
                 LG_EFORMAT,
                 "t.txt:10:1: handle 0x00000009 is not in the mapping (no HANDLE section lists "
                 "it)");
    expect_error(CALLS_MAPPING "* TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%\n"
                               "00000000,Q,,100\n",
                 LG_EFORMAT, "t.txt:9:10: expected an event E, S, R, X or W, found 'Q'");
    expect_error(CALLS_MAPPING "* TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%\n"
                               "00000000,E,,1.5\n",
                 LG_EFORMAT, "t.txt:9:13: expected a time in ns, found '1.5'");
    expect_error(CALLS_MAPPING "* TIMELINE %HANDLE%,%EVENT%,%CORE%,%TIME%\n"
                               "00000000,E,first,100\n",
                 LG_EFORMAT,
                 "t.txt:9:12: expected a core index (a number, -1 when unknown), found 'first'");
    expect_error(CALLS_MAPPING "* TIMELINE %HANDLE%,%EVENT%,%TIME%\n"
                               "00000000,E,100\n"
                               "* HANDLE(Functions) %HANDLE%,%NAME%\n",
                 LG_EFORMAT,
                 "t.txt:10: expected every HANDLE section before the timeline (first event on "
                 "line 9), found one after it");
}

/* ---- Files next to each other ------------------------------------------------------------- */

static void test_bin_lookup_rule(void **state)
{
    (void)state;
    char *bin;
    char main_path[4096];
    remove(LORGEN_TEST_TMPDIR "/rule.bin");
    remove(LORGEN_TEST_TMPDIR "/rule.txt.BIN");
    snprintf(main_path, sizeof main_path, "%s", lg_test_write_file("rule.txt", "x", 1));
    assert_int_equal(lg_wi_bin_find(main_path, &bin), LG_OK);
    assert_null(bin);
    /* Extension replaced: found when it is the only one. */
    char *want = strdup(lg_test_write_file("rule.bin", "", 0));
    assert_int_equal(lg_wi_bin_find(main_path, &bin), LG_OK);
    assert_string_equal(bin, want);
    free(bin);
    free(want);
    /* MAIN.BIN, as the help names it, comes first. */
    want = strdup(lg_test_write_file("rule.txt.BIN", "", 0));
    assert_int_equal(lg_wi_bin_find(main_path, &bin), LG_OK);
    assert_string_equal(bin, want);
    free(bin);
    free(want);
    /* A directory of that name is not a timeline; a dot in a directory is no extension. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/x.d", LORGEN_TEST_TMPDIR);
    snprintf(main_path, sizeof main_path, "%s/x.d/export", LORGEN_TEST_TMPDIR);
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && : > '%s' && : > '%s/x.BIN'", dir, main_path,
             LORGEN_TEST_TMPDIR);
    assert_int_equal(lg_test_run(cmd), 0);
    assert_int_equal(lg_wi_bin_find(main_path, &bin), LG_OK);
    assert_null(bin);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/dir.txt.BIN'", LORGEN_TEST_TMPDIR);
    assert_int_equal(lg_test_run(cmd), 0);
    snprintf(main_path, sizeof main_path, "%s", lg_test_write_file("dir.txt", "x", 1));
    assert_int_equal(lg_wi_bin_find(main_path, &bin), LG_OK);
    assert_null(bin);
}

static void test_text_timeline_next_to_a_bin_is_an_error(void **state)
{
    (void)state;
    lg_test_write_file("both.txt.BIN", "", 0);
    lg_test_loaded_t r;
    load_file(&r, "both.txt",
              CALLS_MAPPING "* TIMELINE %HANDLE%,%EVENT%,%TIME%\n"
                            "00000000,E,100\n",
              NULL);
    char want[8192];
    snprintf(want, sizeof want,
             "%s/both.txt:9: expected no text TIMELINE entries next to the binary timeline "
             "%s/both.txt.BIN, found some (winIDEA writes one or the other: remove or rename "
             "the stale one)",
             LORGEN_TEST_TMPDIR, LORGEN_TEST_TMPDIR);
    assert_fails_exactly(&r, LG_EFORMAT, want);
    lg_test_loaded_destroy(&r);
}

static void test_bad_bin_version_option(void **state)
{
    (void)state;
    lg_test_write_file("version.txt.BIN", "", 0);
    lg_load_options_t options = {.bin_version = 12};
    lg_test_loaded_t r;
    load_file(&r, "version.txt", CALLS_MAPPING, &options);
    char want[8192];
    snprintf(want, sizeof want,
             "%s/version.txt.BIN: expected binary timeline version 1.0 or 1.1, found code 12",
             LORGEN_TEST_TMPDIR);
    assert_fails_exactly(&r, LG_EINVAL, want);
    lg_test_loaded_destroy(&r);
}

typedef struct progress_log {
    unsigned calls;
    uint64_t last_done, total;
} progress_log_t;

static void log_progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
    progress_log_t *log = ctx;
    assert_non_null(strstr(path, "progress.txt"));
    assert_true(done <= total);
    assert_true(done >= log->last_done);
    log->calls++;
    log->last_done = done;
    log->total = total;
}

static void test_progress_reaches_the_file_size(void **state)
{
    (void)state;
    progress_log_t log = {0};
    lg_load_options_t options = {.progress = log_progress, .progress_ctx = &log};
    const char *text = CALLS_MAPPING;
    lg_test_loaded_t r;
    load_file(&r, "progress.txt", text, &options);
    lg_test_assert_loaded_clean(&r);
    assert_true(log.calls >= 1);
    assert_int_equal(log.total, strlen(text));
    assert_int_equal(log.last_done, strlen(text));
    lg_test_loaded_destroy(&r);
}

/* ---- Robustness --------------------------------------------------------------------------- */

static void test_every_truncation_loads_or_fails_cleanly(void **state)
{
    (void)state;
    const char *text = "* INFO %TOTAL_TIME%\n"
                       "7962907051\n"
                       "* CONTEXTS %NAME%,%HANDLE%\n"
                       "ID_TASK_1MS,0x0\n" SPEC_MAPPING SPEC_STATISTICS
                       "* TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%\n"
                       "20000000,W,00000001,4336\n"
                       "00000000,R,,4469\n"
                       "10000004,E,,4469\n"
                       "00000001,E,,4500\n"
                       "00000001,X,,4550\n"
                       "10000004,S,,4602\n"
                       "00000000,S,,4602\n";
    size_t n = strlen(text);
    size_t loaded = 0;
    for (size_t k = 0; k <= n; k++) {
        lg_test_loaded_t r;
        load_bytes_with(&r, text, k, NULL);
        if (k == n)
            assert_int_equal(r.err, LG_OK);
        if (r.err == LG_OK) {
            loaded++;
            assert_int_equal(r.d.errors, 0);
        } else {
            assert_int_equal(r.d.errors, 1);
            lg_test_assert_profile_empty(&r.p);
        }
        lg_test_loaded_destroy(&r);
    }
    /* The whole file loads, and so does every cut after the mapping at a line end. */
    assert_true(loaded > 30);
}

static void test_probe(void **state)
{
    (void)state;
    const char *yes[] = {
        "* HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%\n",
        "\n\n* INFO %TOTAL_TIME%\n7962907051\n",
        "\xEF\xBB\xBF* TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%",
        "* STATISTICS(Functions) CONTEXT(TSK: x) %HANDLE%,%COUNT%\r\n",
        "* CONTEXTS %NAME%,%HANDLE%\n",
    };
    const char *no[] = {
        "",
        "* a bullet point\n",
        "* HANDLE without macros\n",
        "*HANDLE %HANDLE%\n",
        "  * HANDLE %HANDLE%\n",
        "* HANDLES %HANDLE%\n",
        "# callgrind format\n",
        "<?xml version=\"1.0\"?><MAPPING/>",
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_true(lg_wi_text1_probe((const uint8_t *)yes[i], strlen(yes[i])));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(lg_wi_text1_probe((const uint8_t *)no[i], strlen(no[i])));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_mapping_and_statistics),
        cmocka_unit_test(test_spec_statistics_of_several_contexts_are_summed),
        cmocka_unit_test(test_gross_time_and_macros_in_any_order),
        cmocka_unit_test(test_help_example_fixture),
        cmocka_unit_test(test_text_timeline_gives_calls),
        cmocka_unit_test(test_proximity_skipped_on_request),
        cmocka_unit_test(test_contexts_and_cores_are_separate_streams),
        cmocka_unit_test(test_unbalanced_events_are_one_warning),
        cmocka_unit_test(test_quoted_fields_and_surplus_separators),
        cmocka_unit_test(test_blank_lines_crlf_bom_and_unknown_sections),
        cmocka_unit_test(test_bad_header_lines),
        cmocka_unit_test(test_unknown_macro_names_line_and_column),
        cmocka_unit_test(test_bad_entries),
        cmocka_unit_test(test_bad_timeline_entries),
        cmocka_unit_test(test_bin_lookup_rule),
        cmocka_unit_test(test_text_timeline_next_to_a_bin_is_an_error),
        cmocka_unit_test(test_bad_bin_version_option),
        cmocka_unit_test(test_progress_reaches_the_file_size),
        cmocka_unit_test(test_every_truncation_loads_or_fails_cleanly),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
