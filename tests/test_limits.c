/* test_limits.c - hostile sizes (issue 7): a header or id claiming about 4 billion functions, a
 * name of 65535 bytes, a 100-level-deep recursion and a million-deep call stack in a timeline,
 * across the readers. Each input is generated here.
 *
 * What is checked: an input inside a limit loads with the right figures, memory sized by what
 * the file holds (never by a count or id it claims); an input past a limit fails with
 * LG_ELIMIT and one error naming the limit and where it was passed; nothing recurses on the C
 * stack as deep as the input nests. The per-format limit tests (test_prf.c, test_br.c,
 * test_timeline.c, ...) cover the remaining limits of each reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "aprof.h"
#include "callgrind.h"
#include "lor.h"
#include "perf_script.h"
#include "prf.h"
#include "timeline.h"
#include "winidea_bin.h"
#include "winidea_map.h"
#include "winidea_text1.h"
#include "winidea_xml.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sizes issue 7 names. */
#define HUGE_ID UINT32_MAX    /* "a header claiming 4 billion functions" */
#define LONG_NAME 65535u      /* "a name length of 65535": the most a u16 length holds */
#define RECURSION 100u        /* "a 100-level-deep recursion" */
#define MILLION_DEEP 1000000u /* "a million-deep call stack in a timeline" */

/* Byte of the .prf header's function count, from the header's size field. */
#define PRF_HEADER_NFUNCS 61u

/* winIDEA event types (the .BIN values). */
enum { EV_EXIT = 0, EV_ENTRY = 3 };

/* A fresh profile and diagnostics, for a case that builds its profile by hand. */
static void loaded_start(lg_test_loaded_t *r)
{
    lg_profile_init(&r->p);
    lg_diag_init(&r->d);
}

/* Fails the test unless r failed with err and an error containing each of the fragments. */
static void assert_failed(const lg_test_loaded_t *r, lg_err_t err, const char *fragment1,
                          const char *fragment2)
{
    if (r->err != err || !lg_test_diag_has(&r->d, LG_ERROR, fragment1) ||
        (fragment2 != NULL && !lg_test_diag_has(&r->d, LG_ERROR, fragment2)))
        lg_test_diag_dump(&r->d);
    assert_int_equal(r->err, err);
    assert_true(lg_test_diag_has(&r->d, LG_ERROR, fragment1));
    if (fragment2 != NULL)
        assert_true(lg_test_diag_has(&r->d, LG_ERROR, fragment2));
    assert_int_equal(r->p.nfuncs, 0);
}

static void assert_loaded(const lg_test_loaded_t *r)
{
    if (r->err != LG_OK)
        lg_test_diag_dump(&r->d);
    assert_int_equal(r->err, LG_OK);
}

/* The weight of caller -> callee, functions named without a qualifier unless qual is given. */
static uint64_t edge_weight_q(const lg_profile_t *p, const char *caller, const char *callee,
                              const char *qual)
{
    int64_t a = lg_profile_find(p, caller, NULL, qual), b = lg_profile_find(p, callee, NULL, qual);
    assert_true(a >= 0 && b >= 0);
    for (size_t i = 0; i < p->nedges; i++)
        if (p->edges[i].caller == (uint32_t)a && p->edges[i].callee == (uint32_t)b)
            return p->edges[i].weight;
    return 0;
}

static uint64_t edge_weight(const lg_profile_t *p, const char *caller, const char *callee)
{
    return edge_weight_q(p, caller, callee, NULL);
}

/* A string of n copies of c (n + 1 bytes); the caller frees it. */
static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* Text loaders read files: writes text to name and loads it with load. */
static void load_text(lg_test_loaded_t *r, const char *name, const char *text, lg_read_fn load)
{
    lg_test_load_file(r, load, lg_test_write_file(name, text, strlen(text)), NULL);
}

/* ---- A header or id claiming 4 billion functions --------------------------------------------- */

static void test_prf_header_claims_4g_functions(void **state)
{
    (void)state;
    lg_prf_header_t h = {.version = 1, .type = LG_PRF_TYPE_STATISTICAL};
    lg_prf_writer_t w;
    lg_prf_writer_init(&w, &h);
    lg_prf_record_fields_t f = {.description = 1, .name = "main", .hits = 1};
    lg_prf_write_function(&w, &f);
    assert_int_equal(lg_prf_writer_finish(&w), LG_OK);
    /* The function count: header bytes 61-64, counted from the header's size field
     * (docs/loaders/prf.md). */
    size_t at = LG_PRF_MAGIC_LEN + PRF_HEADER_NFUNCS;
    assert_int_equal(w.buf.data[at], 1);
    memset(w.buf.data + at, 0xFF, 4);
    lg_test_loaded_t r;
    lg_test_load_bytes(&r, lg_prf_read, w.buf.data, w.buf.size, "huge.prf", NULL);
    assert_failed(&r, LG_ELIMIT, "header says 4294967295 functions", "LG_PROFILE_MAX_FUNCS");
    lg_test_loaded_destroy(&r);
    lg_prf_writer_destroy(&w);
}

/* Ids are looked up, never used to size an array: the largest id costs what the smallest does. */
static void test_text_ids_of_4g(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    char text[512];
    snprintf(text, sizeof text,
             "v 6\nr \"main\" \"app\" %" PRIu32 "\nx %" PRIu32 " %" PRIu32 " -1\n"
             "q %" PRIu32 " 1 1 1 1 1 1 1 1 1 1 1\n",
             HUGE_ID, HUGE_ID, HUGE_ID, HUGE_ID);
    load_text(&r, "limits-huge-id.aprof", text, lg_aprof_read);
    assert_loaded(&r);
    assert_int_equal(r.p.nfuncs, 1);
    lg_test_loaded_destroy(&r);

    snprintf(text, sizeof text,
             "# callgrind format\nversion: 1\nevents: Ir\nfn=(%" PRIu32 ") main\n1 5\n"
             "cfn=(%" PRIu32 ")\ncalls=1 1\n1 5\n",
             HUGE_ID, HUGE_ID);
    load_text(&r, "limits-huge-id.callgrind", text, lg_callgrind_read);
    assert_loaded(&r);
    assert_int_equal(r.p.nfuncs, 1);
    lg_test_loaded_destroy(&r);

    /* A winIDEA handle's low 28 bits all set: a sparse handle, kept in the hash table. */
    load_text(&r, "limits-huge-handle.txt",
              "* HANDLE(Functions) %HANDLE%,%NAME%\n0FFFFFFF,main\n"
              "* STATISTICS(Functions) %HANDLE%,%COUNT%\n0FFFFFFF,3\n",
              lg_wi_text1_read);
    assert_loaded(&r);
    assert_int_equal(r.p.nfuncs, 1);
    assert_int_equal(r.p.funcs[0].hits, 3);
    lg_test_loaded_destroy(&r);
}

/* A .LOR clique claiming 4 billion functions: the count is informational, nothing is sized by
 * it. */
static void test_lor_clique_claims_4g_functions(void **state)
{
    (void)state;
    static const char text[] = "lorgen-lor 1\nclique 1 functions=4294967295\n  fn main\n";
    lg_lor_t lor;
    lg_diag_t d;
    lg_lor_init(&lor);
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "huge.lor", &lor, &d), LG_OK);
    assert_int_equal(lor.nfns, 1);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

/* ---- A name of 65535 bytes ----------------------------------------------------------------- */

static void test_prf_name_of_65535_bytes(void **state)
{
    (void)state;
    char *name = repeat('n', LONG_NAME);
    lg_prf_header_t h = {.version = 1, .type = LG_PRF_TYPE_STATISTICAL};
    lg_prf_writer_t w;
    lg_prf_writer_init(&w, &h);
    lg_prf_record_fields_t f = {
        .description = 1, .name = name, .link_label = name, .qual_name = name, .hits = 7};
    lg_prf_write_function(&w, &f);
    assert_int_equal(lg_prf_writer_finish(&w), LG_OK);
    lg_test_loaded_t r;
    lg_test_load_bytes(&r, lg_prf_read, w.buf.data, w.buf.size, "long.prf", NULL);
    assert_loaded(&r);
    assert_int_equal(r.p.nfuncs, 1);
    assert_int_equal(strlen(r.p.funcs[0].name), LONG_NAME);
    assert_int_equal(strlen(r.p.funcs[0].qual_name), LONG_NAME);
    lg_test_loaded_destroy(&r);
    lg_prf_writer_destroy(&w);
    free(name);
}

static void test_text_names_of_65535_bytes(void **state)
{
    (void)state;
    char *name = repeat('n', LONG_NAME);
    size_t cap = 2 * LONG_NAME + 512;
    char *text = malloc(cap);
    assert_non_null(text);
    lg_test_loaded_t r;

    snprintf(text, cap,
             "# callgrind format\nversion: 1\nevents: Ir\nfn=(1) %s\n1 5\ncfn=(2) g\ncalls=1 1\n"
             "1 5\nfn=(2)\n1 1\n",
             name);
    load_text(&r, "limits-long.callgrind", text, lg_callgrind_read);
    assert_loaded(&r);
    assert_int_equal(strlen(r.p.funcs[0].name), LONG_NAME);
    lg_test_loaded_destroy(&r);

    snprintf(text, cap, "app 1 1.0: 1 cycles:\n\t1 %s+0x1 (/app)\n\t2 main+0x2 (/app)\n\n", name);
    load_text(&r, "limits-long.perf", text, lg_perf_script_read);
    assert_loaded(&r);
    assert_true(lg_profile_find(&r.p, name, NULL, "app") >= 0);
    lg_test_loaded_destroy(&r);

    snprintf(text, cap, "v 6\nr \"%s\" \"app\" 1\np 1 1 1 1 1 1 1 1 1 1 1 1\n", name);
    load_text(&r, "limits-long.aprof", text, lg_aprof_read);
    assert_loaded(&r);
    assert_int_equal(strlen(r.p.funcs[0].name), LONG_NAME);
    lg_test_loaded_destroy(&r);

    snprintf(text, cap, "* HANDLE(Functions) %%HANDLE%%,%%NAME%%\n0,%s\n", name);
    load_text(&r, "limits-long.txt", text, lg_wi_text1_read);
    assert_loaded(&r);
    assert_int_equal(strlen(r.p.funcs[0].name), LONG_NAME);
    lg_test_loaded_destroy(&r);

    free(text);
    free(name);
}

/* A .LOR line holding a 65535-byte name passes LG_LOR_MAX_LINE (65536 bytes with "  fn "): the
 * error names the line and the limit. */
static void test_lor_name_of_65535_bytes(void **state)
{
    (void)state;
    char *name = repeat('n', LONG_NAME);
    size_t cap = LONG_NAME + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    int n = snprintf(text, cap, "lorgen-lor 1\nclique 1\n  fn %s\n", name);
    lg_lor_t lor;
    lg_diag_t d;
    lg_lor_init(&lor);
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, (size_t)n, "long.lor", &lor, &d), LG_ELIMIT);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "long.lor:3: line is 65540 bytes long, expected "
                                 "at most 65536"));
    assert_int_equal(lor.nfns, 0);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    free(text);
    free(name);
}

/* ---- A 100-level-deep recursion ---------------------------------------------------------------
 */

static void test_prf_recursion_100_deep(void **state)
{
    (void)state;
    lg_prf_header_t h = {.version = 1, .type = LG_PRF_TYPE_TRACE};
    lg_prf_writer_t w;
    lg_prf_writer_init(&w, &h);
    lg_prf_record_fields_t f = {.description = 1, .name = "r", .hits = 1};
    lg_prf_write_function(&w, &f);
    for (uint32_t i = 0; i < RECURSION; i++)
        lg_prf_write_call(&w, i, &f);
    for (uint32_t i = RECURSION; i-- > 0;)
        lg_prf_write_return(&w, i);
    assert_int_equal(lg_prf_writer_finish(&w), LG_OK);
    lg_test_loaded_t r;
    lg_test_load_bytes(&r, lg_prf_read, w.buf.data, w.buf.size, "rec.prf", NULL);
    assert_loaded(&r);
    /* Each call record but the outermost sits directly under one of r. */
    assert_int_equal(edge_weight(&r.p, "r", "r"), RECURSION - 1);
    lg_test_loaded_destroy(&r);
    lg_prf_writer_destroy(&w);
}

static void test_text_recursion_100_deep(void **state)
{
    (void)state;
    size_t cap = 64 * 1024;
    char *text = malloc(cap);
    assert_non_null(text);
    lg_test_loaded_t r;

    /* perf script: one sample whose stack is r 100 times over main. */
    size_t n = (size_t)snprintf(text, cap, "app 1 1.0: 1 cycles:\n");
    for (unsigned i = 0; i < RECURSION; i++)
        n += (size_t)snprintf(text + n, cap - n, "\t%x r+0x1 (/app)\n", i);
    n += (size_t)snprintf(text + n, cap - n, "\t1 main+0x2 (/app)\n\n");
    load_text(&r, "limits-rec.perf", text, lg_perf_script_read);
    assert_loaded(&r);
    int64_t rec = lg_profile_find(&r.p, "r", NULL, "app");
    assert_true(rec >= 0);
    uint64_t self_edge = 0;
    for (size_t i = 0; i < r.p.nedges; i++)
        if (r.p.edges[i].caller == (uint32_t)rec && r.p.edges[i].callee == (uint32_t)rec)
            self_edge = r.p.edges[i].weight;
    assert_int_equal(self_edge, RECURSION - 1);
    lg_test_loaded_destroy(&r);

    /* aprof: a calling-context chain of routine 2 under itself, 100 contexts deep. */
    n = (size_t)snprintf(text, cap, "v 6\nr \"main\" \"app\" 1\nr \"r\" \"app\" 2\nx 1 1 -1\n");
    for (unsigned i = 0; i < RECURSION; i++)
        n += (size_t)snprintf(text + n, cap - n, "x 2 %u %u\nq %u 1 1 1 1 1 1 1 1 1 1 1\n", i + 2,
                              i + 1, i + 2);
    load_text(&r, "limits-rec.aprof", text, lg_aprof_read);
    assert_loaded(&r);
    assert_int_equal(edge_weight_q(&r.p, "r", "r", "app"), RECURSION - 1);
    assert_int_equal(edge_weight_q(&r.p, "main", "r", "app"), 1);
    lg_test_loaded_destroy(&r);

    /* XML: elements nested 100 deep (inside LG_WI_XML_MAX_DEPTH) load; LG_WI_XML_MAX_DEPTH + 1
     * deep fail at the element that passes it. */
    for (unsigned depth = RECURSION; depth <= LG_WI_XML_MAX_DEPTH + 1;
         depth += LG_WI_XML_MAX_DEPTH + 1 - RECURSION) {
        n = (size_t)snprintf(text, cap,
                             "<MAPPING><AREA><HANDLE>0</HANDLE><NAME>main</NAME></AREA>");
        for (unsigned i = 1; i < depth; i++)
            n += (size_t)snprintf(text + n, cap - n, "<X>");
        for (unsigned i = 1; i < depth; i++)
            n += (size_t)snprintf(text + n, cap - n, "</X>");
        snprintf(text + n, cap - n, "</MAPPING>\n");
        load_text(&r, "limits-rec.xml", text, lg_wi_xml_read);
        if (depth <= LG_WI_XML_MAX_DEPTH) {
            assert_loaded(&r);
            assert_int_equal(r.p.nfuncs, 1);
        } else {
            assert_failed(&r, LG_ELIMIT, "elements nested deeper than 256 (LG_WI_XML_MAX_DEPTH)",
                          "rec.xml:1:");
        }
        lg_test_loaded_destroy(&r);
    }
    free(text);
}

/* ---- A million-deep call stack in a timeline ---------------------------------------------- */

static void put_record(uint8_t *p, uint32_t handle, uint32_t type, int64_t time)
{
    /* v1.1: HANDLE u32, FLAGS u32 (type in bits 0-3, core 0), DATA u64, TIME s64 */
    memset(p, 0, LG_WI_BIN_RECORD_BYTES);
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(handle >> (8 * i));
        p[4 + i] = (uint8_t)(type >> (8 * i));
    }
    for (int i = 0; i < 8; i++)
        p[16 + i] = (uint8_t)((uint64_t)time >> (8 * i));
}

/* Reads a .BIN of `entries` nested Entries of function 0 followed by `exits` Exits through a
 * one-function mapping; the timeline is finished when the read succeeds. */
static void load_deep_bin(lg_test_loaded_t *r, size_t entries, size_t exits)
{
    size_t n = entries + exits;
    uint8_t *bin = malloc(n * LG_WI_BIN_RECORD_BYTES);
    assert_non_null(bin);
    for (size_t i = 0; i < n; i++)
        put_record(bin + i * LG_WI_BIN_RECORD_BYTES, 0, i < entries ? EV_ENTRY : EV_EXIT,
                   (int64_t)i);
    const char *path = lg_test_write_file("limits-deep.BIN", bin, n * LG_WI_BIN_RECORD_BYTES);
    free(bin);

    loaded_start(r);
    assert_int_equal(lg_profile_set_path(&r->p, "deep.txt"), LG_OK);
    lg_wi_map_t *map;
    lg_timeline_t *t;
    assert_int_equal(lg_wi_map_create(&r->p, &map), LG_OK);
    assert_int_equal(lg_wi_map_add(map, 0, LG_WI_NO_PARENT, "r", 0, NULL, &r->d), LG_OK);
    assert_int_equal(lg_timeline_create(&r->p, true, &t), LG_OK);
    r->err = lg_wi_bin_read(path, LG_WI_BIN_V1_1, map, t, NULL, &r->d);
    if (r->err == LG_OK)
        r->err = lg_timeline_finish(t, &r->d);
    lg_timeline_destroy(t);
    lg_wi_map_destroy(map);
}

static void test_timeline_recursion_100_deep(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_deep_bin(&r, RECURSION, RECURSION);
    assert_loaded(&r);
    assert_int_equal(r.p.funcs[0].hits, RECURSION);
    assert_int_equal(edge_weight(&r.p, "r", "r"), RECURSION - 1);
    /* Gross time is the outermost call's only: Entry at 0, last Exit at 2 * RECURSION - 1. */
    assert_int_equal(r.p.funcs[0].counter1_total, 2 * RECURSION - 1);
    lg_test_loaded_destroy(&r);
}

static void test_timeline_a_million_deep(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    /* A million nested calls that all return: inside LG_TL_MAX_DEPTH, loads exactly. */
    load_deep_bin(&r, MILLION_DEEP, MILLION_DEEP);
    assert_loaded(&r);
    assert_int_equal(r.p.funcs[0].hits, MILLION_DEEP);
    assert_int_equal(edge_weight(&r.p, "r", "r"), MILLION_DEEP - 1);
    assert_int_equal(r.d.warnings, 0);
    lg_test_loaded_destroy(&r);

    /* One Entry more than LG_TL_MAX_DEPTH: the error names the record that passes it. */
    load_deep_bin(&r, LG_TL_MAX_DEPTH + 1, 0);
    char where[128];
    snprintf(where, sizeof where, "deep.BIN:0x%x: record %u", LG_TL_MAX_DEPTH * 24u,
             LG_TL_MAX_DEPTH);
    if (r.err != LG_ELIMIT || !lg_test_diag_has(&r.d, LG_ERROR, where))
        lg_test_diag_dump(&r.d);
    assert_int_equal(r.err, LG_ELIMIT);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, where));
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, "more than 1048576 open calls on core 0"));
    lg_test_loaded_destroy(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prf_header_claims_4g_functions),
        cmocka_unit_test(test_text_ids_of_4g),
        cmocka_unit_test(test_lor_clique_claims_4g_functions),
        cmocka_unit_test(test_prf_name_of_65535_bytes),
        cmocka_unit_test(test_text_names_of_65535_bytes),
        cmocka_unit_test(test_lor_name_of_65535_bytes),
        cmocka_unit_test(test_prf_recursion_100_deep),
        cmocka_unit_test(test_text_recursion_100_deep),
        cmocka_unit_test(test_timeline_recursion_100_deep),
        cmocka_unit_test(test_timeline_a_million_deep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
