/* test_aprof.c - the aprof report (.aprof) reader.
 *
 * The fixtures in tests/fixtures/aprof/ were written by hand from the report format, one pair per
 * version 0 to 6: *_flat.aprof with per-routine p lines, *_tree.aprof with a calling-context tree
 * (q and x lines). The expected numbers below are worked out by hand from those files; each
 * check says which lines it sums. Malformed reports are small texts in this file, so the line
 * numbers the errors must name can be counted on the page.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "aprof.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES LORGEN_SOURCE_DIR "/tests/fixtures/aprof/"
#define SAMPLES LORGEN_SOURCE_DIR "/tests/fixtures/samples/"
#define SAMPLE_V2 SAMPLES "aprof_v2_crypto_1.aprof"

/* ---- Loading ------------------------------------------------------------------------------ */

static void load_file(lg_test_loaded_t *r, const char *path)
{
    lg_test_load_file(r, lg_aprof_read, path, NULL);
}

/* Loads size bytes of text as the file "t.aprof", so diagnostics read "t.aprof:LINE: ...". */
static void load_bytes(lg_test_loaded_t *r, const char *text, size_t size)
{
    lg_test_load_bytes(r, lg_aprof_read, text, size, "t.aprof", NULL);
}

static void load_text(lg_test_loaded_t *r, const char *text)
{
    load_bytes(r, text, strlen(text));
}

/* ---- Expectations ------------------------------------------------------------------------- */

typedef struct want_func {
    const char *name, *label, *qual; /* NULL: the profile must have none */
    uint64_t hits, total, self;
} want_func_t;

typedef struct want_edge {
    const char *caller, *callee;
    uint64_t weight;
} want_edge_t;

static void assert_same_opt(const char *got, const char *want)
{
    if (want == NULL)
        assert_null(got);
    else
        assert_string_equal(got, want);
}

/* The profile holds exactly these functions, in this order. */
static void check_funcs(const lg_profile_t *p, const want_func_t *want, size_t n)
{
    assert_int_equal(p->nfuncs, n);
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const lg_pfunc_t *f = &p->funcs[i];
        assert_string_equal(f->name, want[i].name);
        assert_same_opt(f->link_label, want[i].label);
        assert_same_opt(f->qual_name, want[i].qual);
        assert_int_equal(f->hits, want[i].hits);
        assert_int_equal(f->counter1_total, want[i].total);
        assert_int_equal(f->counter1_self, want[i].self);
        assert_int_equal(f->counter2_total, 0);
        assert_int_equal(f->counter2_self, 0);
        hits += want[i].hits;
    }
    assert_int_equal(p->total_hits, hits);
    assert_int_equal(p->call_records, hits);
}

static int64_t index_of(const lg_profile_t *p, const char *name)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (strcmp(p->funcs[i].name, name) == 0)
            return (int64_t)i;
    fail_msg("no function '%s'", name);
    return -1;
}

/* The profile holds exactly these edges (names are unique in the fixtures). */
static void check_edges(const lg_profile_t *p, const want_edge_t *want, size_t n)
{
    assert_int_equal(p->has_call_edges, true);
    assert_int_equal(p->nedges, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t from = (uint32_t)index_of(p, want[i].caller);
        uint32_t to = (uint32_t)index_of(p, want[i].callee);
        bool found = false;
        for (size_t e = 0; e < p->nedges; e++)
            if (p->edges[e].caller == from && p->edges[e].callee == to) {
                assert_int_equal(p->edges[e].weight, want[i].weight);
                found = true;
            }
        if (!found)
            fail_msg("no edge %s -> %s", want[i].caller, want[i].callee);
    }
}

static void check_common(const lg_profile_t *p, const char *path, const char *unit)
{
    assert_string_equal(p->path, path);
    assert_string_equal(p->format, "aprof");
    assert_int_equal(p->kind, LG_PROFILE_TRACE);
    assert_string_equal(p->counter1_unit, unit);
    assert_int_equal(p->cost_positions, LG_POS_NONE);
}

/* Loads a fixture that must load without diagnostics and checks it. */
static void check_fixture(const char *file, const char *unit, const want_func_t *funcs,
                          size_t nfuncs, const want_edge_t *edges, size_t nedges)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", FIXTURES, file);
    lg_test_loaded_t r;
    load_file(&r, path);
    lg_test_assert_loaded_clean(&r);
    check_common(&r.p, path, unit);
    check_funcs(&r.p, funcs, nfuncs);
    if (edges == NULL) {
        assert_false(r.p.has_call_edges);
        assert_int_equal(r.p.nedges, 0);
    } else {
        check_edges(&r.p, edges, nedges);
    }
    lg_test_loaded_destroy(&r);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define DEMO "/home/u/demo"

/* ---- The real sample ---------------------------------------------------------------------- */

static const lg_pfunc_t *find(const lg_profile_t *p, const char *name, const char *label,
                              const char *qual)
{
    int64_t i = lg_profile_find(p, name, label, qual);
    assert_true(i >= 0);
    return &p->funcs[i];
}

static void test_real_v2_sample(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, SAMPLE_V2);
    lg_test_assert_loaded_clean(&r);
    check_common(&r.p, SAMPLE_V2, "BB"); /* line 7: m bb-count */
    assert_false(r.p.has_call_edges);    /* p lines only, no x or q */
    assert_int_equal(r.p.nedges, 0);
    /* 2343 r lines, no two alike in name, mangled name and image. */
    assert_int_equal(r.p.nfuncs, 2343);

    const char *sha = "/home/ercoppa/Desktop/v8/crypto/sha";
    /* Lines 10-13:
     *   r "v8::preparser::PreParser::ParseIdentifierNameOrGetOrSet(bool*, bool*, bool*)" ... 981
     *   u 981 "_ZN2v89preparser9PreParser29ParseIdentifierNameOrGetOrSetEPbS2_S2_"
     *   p 981 23 24 24 552 23 552 253      (v2: id rms min max sum occ real-sum self-sum)
     *   p 981 25 26 27 186 7 186 77
     * hits 23 + 7, total (real sums) 552 + 186, self 253 + 77. */
    const lg_pfunc_t *f =
        find(&r.p, "v8::preparser::PreParser::ParseIdentifierNameOrGetOrSet(bool*, bool*, bool*)",
             "_ZN2v89preparser9PreParser29ParseIdentifierNameOrGetOrSetEPbS2_S2_", sha);
    assert_int_equal(f->hits, 30);
    assert_int_equal(f->counter1_total, 738);
    assert_int_equal(f->counter1_self, 330);
    assert_ptr_equal(f, &r.p.funcs[0]); /* the first r line is the first function */

    /* Lines 15595-15596: r "main" ... 169, no u line (a C name), p 169 122408 1987523 1987523
     * 1987523 1 1987523 30. */
    f = find(&r.p, "main", NULL, sha);
    assert_null(f->link_label);
    assert_int_equal(f->hits, 1);
    assert_int_equal(f->counter1_total, 1987523);
    assert_int_equal(f->counter1_self, 30);

    /* Lines 15597-15599: r "read" "/lib/x86_64-linux-gnu/ld-2.15.so" 41, then
     *   p 41 1 3 3 18 6 18 18
     *   p 41 2 4 4 12 3 12 3
     * hits 6 + 3, total 18 + 12, self 18 + 3. */
    f = find(&r.p, "read", NULL, "/lib/x86_64-linux-gnu/ld-2.15.so");
    assert_int_equal(f->hits, 9);
    assert_int_equal(f->counter1_total, 30);
    assert_int_equal(f->counter1_self, 21);

    /* Lines 5843-6216: Deserializer::ReadChunk, recursive, 372 p lines. Their occ column sums
     * to 6625, sum to 1606611 (nested recursive calls counted again), real-sum to 217804 and
     * self-sum to 209446 (summed with awk over lines 5845-6216). Counter 1 is the real sum. */
    f = find(&r.p,
             "v8::internal::Deserializer::ReadChunk(v8::internal::Object**, "
             "v8::internal::Object**, int, unsigned char*)",
             "_ZN2v88internal12Deserializer9ReadChunkEPPNS0_6ObjectES4_iPh", sha);
    assert_int_equal(f->hits, 6625);
    assert_int_equal(f->counter1_total, 217804);
    assert_int_equal(f->counter1_self, 209446);

    /* The occ column of all 14408 p lines sums to 253712 calls. */
    assert_int_equal(r.p.total_hits, 253712);
    assert_int_equal(r.p.call_records, 253712);
    lg_test_loaded_destroy(&r);
}

/* ---- One pair of fixtures per version ----------------------------------------------------- */

static void test_version_0(void **state)
{
    (void)state;
    /* No v line. p ID RMS AVG OCC: cost = avg * occ. main 900 * 1; work 12.5 * 2 + 20 * 3;
     * helper 1.75 * 4. Version 0 has no self cost. Line 10 quotes name and image. */
    const want_func_t flat[] = {
        {"main", NULL, DEMO, 1, 900, 0},
        {"work", NULL, DEMO, 5, 85, 0},
        {"helper", NULL, "/home/u/lib h.so", 4, 7, 0},
    };
    check_fixture("v0_flat.aprof", "BB", flat, N(flat), NULL, 0);
    /* q CTX RMS AVG OCC. Contexts: 1 main (root), 2 work under 1, 3 helper under 2, 4 helper
     * under 1. helper: 3 calls at 2 from work, 1 call at 2 from main. */
    const want_func_t tree[] = {
        {"main", NULL, DEMO, 1, 900, 0},
        {"work", NULL, DEMO, 5, 85, 0},
        {"helper", NULL, DEMO, 4, 8, 0},
    };
    const want_edge_t edges[] = {{"main", "work", 5}, {"work", "helper", 3}, {"main", "helper", 1}};
    check_fixture("v0_tree.aprof", "BB", tree, N(tree), edges, N(edges));
}

static void test_version_1(void **state)
{
    (void)state;
    /* p ID RMS MIN MAX SUM SQR-SUM OCC: total = sum, no self cost. Version 1 writes the r name
     * mangled and the demangled one in a d line, which lorgen does not need. "NONE": no image. */
    const want_func_t funcs[] = {
        {"main", NULL, DEMO, 1, 900, 0},
        {"_Z4worki", NULL, DEMO, 5, 25 + 60, 0},
        {"helper", NULL, NULL, 3, 6, 0},
    };
    check_fixture("v1_flat.aprof", "BB", funcs, N(funcs), NULL, 0);
    /* Contexts as in v0_tree; helper's context 4 (under main) adds 1 call costing 2. */
    const want_func_t tree[] = {
        {"main", NULL, DEMO, 1, 900, 0},
        {"_Z4worki", NULL, DEMO, 5, 85, 0},
        {"helper", NULL, NULL, 4, 8, 0},
    };
    const want_edge_t edges[] = {
        {"main", "_Z4worki", 5}, {"_Z4worki", "helper", 3}, {"main", "helper", 1}};
    check_fixture("v1_tree.aprof", "BB", tree, N(tree), edges, N(edges));
}

static void test_version_2(void **state)
{
    (void)state;
    /* p ID RMS MIN MAX SUM OCC REAL-SUM SELF-SUM. fact is recursive: its sum 80 counts the
     * nested calls again, its real sum 30 does not; counter 1 is the real sum. */
    const want_func_t flat[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"work(int)", "_Z4worki", DEMO, 5, 25 + 60, 20 + 45},
        {"fact(unsigned int)", "_Z4factj", DEMO, 4, 30, 20},
    };
    check_fixture("v2_flat.aprof", "BB", flat, N(flat), NULL, 0);
    /* main (context 1) calls fact (2), which calls itself three levels deep (3, 4, 5): the
     * nested contexts have real sum 0 and self 5 each. */
    const want_func_t tree[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"fact(unsigned int)", "_Z4factj", DEMO, 4, 30, 20},
    };
    const want_edge_t edges[] = {{"main", "fact(unsigned int)", 1},
                                 {"fact(unsigned int)", "fact(unsigned int)", 3}};
    check_fixture("v2_tree.aprof", "BB", tree, N(tree), edges, N(edges));
}

static void test_version_3(void **state)
{
    (void)state;
    /* p ID RMS MIN MAX SUM OCC REAL-SUM SELF-SUM SELF-MIN SELF-MAX; "m bb_count" is
     * aprof-plot's spelling; "fav main" is aprof-plot's favourites line. */
    const want_func_t funcs[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"work(int)", "_Z4worki", DEMO, 5, 85, 65},
    };
    check_fixture("v3_flat.aprof", "BB", funcs, N(funcs), NULL, 0);
    /* Context 2 (work under main) 2 calls, context 3 (work under work) 3 calls. */
    const want_edge_t edges[] = {{"main", "work(int)", 2}, {"work(int)", "work(int)", 3}};
    check_fixture("v3_tree.aprof", "BB", funcs, N(funcs), edges, N(edges));
}

static void test_version_4(void **state)
{
    (void)state;
    /* p ID RMS MIN MAX SUM SQR-SUM OCC REAL-SUM SELF-SUM SELF-MIN SELF-MAX SELF-SQR. Line 10:
     * a name holding quotes and a blank, an image path holding a blank. */
    const want_func_t flat[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"operator\"\" _km(unsigned long long)", "_Zli3_kmy", "/home/u/my demo", 3, 9, 9},
        {"work(int)", "_Z4worki", DEMO, 5, 85, 65},
    };
    check_fixture("v4_flat.aprof", "BB", flat, N(flat), NULL, 0);
    /* Contexts: 1 main, 2 work under 1 (2 calls), 3 work under 2 (3 calls), 4 helper under 2
     * (3 calls costing 6, self 6). */
    const want_func_t tree[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"work(int)", "_Z4worki", DEMO, 5, 85, 65},
        {"helper", NULL, DEMO, 3, 6, 6},
    };
    const want_edge_t edges[] = {
        {"main", "work(int)", 2}, {"work(int)", "work(int)", 3}, {"work(int)", "helper", 3}};
    check_fixture("v4_tree.aprof", "BB", tree, N(tree), edges, N(edges));
}

static void test_version_5(void **state)
{
    (void)state;
    /* An RVMS build: r lines end with a count of distinct inputs, p lines with 2 input
     * statistics (13 fields after the id); "i rvms", "g 4"; line 2 ends with a blank. */
    const want_func_t funcs[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"work(int)", "_Z4worki", DEMO, 5, 85, 65},
    };
    check_fixture("v5_flat.aprof", "BB", funcs, N(funcs), NULL, 0);
    /* An RMS build: 11 fields. Context 2 (work under main) has two q lines: 2 + 3 calls. */
    const want_edge_t edges[] = {{"main", "work(int)", 5}};
    check_fixture("v5_tree.aprof", "BB", funcs, N(funcs), edges, N(edges));
}

static void test_version_6(void **state)
{
    (void)state;
    /* A DRMS build with input statistics: 17 fields after the id; m time-usec; t is the memory
     * resolution in version 6. */
    const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
    const want_func_t flat[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"work(int)", "_Z4worki", DEMO, 5, 85, 65},
        {"memcpy", NULL, libc, 3, 15, 15},
    };
    check_fixture("v6_flat.aprof", "usec", flat, N(flat), NULL, 0);
    /* The writer's order: each routine's q lines after its r line, the tree last. Contexts:
     * 1 main, 2 work under 1 (2 calls), 4 memcpy under 2 (2 calls), 3 work under 2 (3 calls),
     * 5 memcpy under 1 (1 call). */
    const want_func_t tree[] = {
        {"main", NULL, DEMO, 1, 1000, 100},
        {"work(int)", "_Z4worki", DEMO, 5, 85, 65},
        {"memcpy", NULL, libc, 3, 15, 15},
    };
    const want_edge_t edges[] = {{"main", "work(int)", 2},
                                 {"work(int)", "memcpy", 2},
                                 {"work(int)", "work(int)", 3},
                                 {"main", "memcpy", 1}};
    check_fixture("v6_tree.aprof", "BB", tree, N(tree), edges, N(edges));
}

/* tree_recursion.aprof: mutual recursion (expr -> term -> expr), direct recursion (fact), one
 * routine (alloc) reached along three paths, a context with two q lines (term, context 4):
 *
 *   1 main                 1 call
 *     2 parse              1
 *       3 expr             4
 *         4 term           4 + 2
 *           5 expr         2       real sum 0: an outer expr is active
 *             6 term       3       real sum 0
 *           7 alloc        5
 *         8 alloc          7
 *     9 alloc              2
 *     10 expr              1
 *     11 fact              1
 *       12 fact            1       real sum 0
 *         13 fact          1       real sum 0
 *
 * Every q line has sum = 10 * occ, self = 3 * occ, real sum = sum unless marked above. */
static void test_tree_with_recursion(void **state)
{
    (void)state;
    const char *calc = "/home/u/calc";
    const want_func_t funcs[] = {
        /* r lines in file order; hits, real sums and self sums over each routine's contexts */
        {"alloc(unsigned long)", "_Z5allocm", calc, 5 + 7 + 2, 50 + 70 + 20, 42},
        {"main", NULL, calc, 1, 10, 3},
        {"parse()", "_Z5parsev", calc, 1, 10, 3},
        {"expr()", "_Z4exprv", calc, 4 + 2 + 1, 40 + 0 + 10, 21},
        {"term()", "_Z4termv", calc, 6 + 3, 40 + 20 + 0, 27},
        {"fact(int)", "_Z4facti", calc, 3, 10, 9},
    };
    const want_edge_t edges[] = {
        {"main", "parse()", 1},
        {"parse()", "expr()", 4},
        {"expr()", "term()", 6 + 3}, /* contexts 4 and 6 */
        {"term()", "expr()", 2},
        {"term()", "alloc(unsigned long)", 5},
        {"expr()", "alloc(unsigned long)", 7},
        {"main", "alloc(unsigned long)", 2},
        {"main", "expr()", 1},
        {"main", "fact(int)", 1},
        {"fact(int)", "fact(int)", 1 + 1}, /* contexts 12 and 13 */
    };
    check_fixture("tree_recursion.aprof", "BB", funcs, N(funcs), edges, N(edges));

    /* Edges are sorted by (caller, callee) and unique. */
    lg_test_loaded_t r;
    load_file(&r, FIXTURES "tree_recursion.aprof");
    for (size_t i = 1; i < r.p.nedges; i++) {
        const lg_arc_t *a = &r.p.edges[i - 1], *b = &r.p.edges[i];
        assert_true(a->caller < b->caller || (a->caller == b->caller && a->callee < b->callee));
    }
    lg_test_loaded_destroy(&r);
}

/* A tree without q lines has call edges, all of weight 0: none are kept. */
static void test_tree_without_calls(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "v 6\n"
                  "r \"main\" \"/x\" 1\n"
                  "r \"f\" \"/x\" 2\n"
                  "x 1 1 -1\n"
                  "x 2 2 1\n");
    lg_test_assert_loaded_clean(&r);
    assert_true(r.p.has_call_edges);
    assert_int_equal(r.p.nedges, 0);
    assert_int_equal(r.p.nfuncs, 2);
    assert_int_equal(r.p.funcs[1].hits, 0);
    lg_test_loaded_destroy(&r);
}

/* ---- What real writers do ----------------------------------------------------------------- */

static void test_writer_quirks(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    /* CRLF line ends, trailing blanks and tabs, blank lines, leading blanks, tabs between fields,
     * header tags lorgen skips (t as a date, i, g, fav), an r line whose 4th field is a count. */
    load_text(&r, "c header with a trailing blank \r\n"
                  "\r\n"
                  "v 5\r\n"
                  "t 2013-01-13 12:00\r\n"
                  "i rvms\n"
                  "g 4\n"
                  "m bb-count   \n"
                  "   \n"
                  "  r \"a b(int, char const*)\"\t\"/opt/my app/bin\" 10 3  \n"
                  "u\t10\t\"_Z3a_biPKc\"\r\n"
                  "p\t10 1 2 2 4 8 2 4 4 2 2 8\t\r\n"
                  "p 10 2 3 3 6 18 2 6 6 3 3 18 1.5 2.25\n"
                  "fav a\n");
    lg_test_assert_loaded_clean(&r);
    const want_func_t want[] = {
        {"a b(int, char const*)", "_Z3a_biPKc", "/opt/my app/bin", 4, 10, 10}};
    check_funcs(&r.p, want, 1);
    lg_test_loaded_destroy(&r);

    /* Sums of squares printed with %.0f may exceed 64 bits; they are not used. */
    load_text(&r, "v 4\n"
                  "r \"f\" \"/x\" 1\n"
                  "p 1 1 2 2 4 340282366920938463463374607431768211456 2 4 4 2 2 1e+40\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.funcs[0].hits, 2);
    lg_test_loaded_destroy(&r);

    /* Counters saturate instead of wrapping. */
    load_text(&r, "v 2\n"
                  "r \"f\" \"/x\" 1\n"
                  "p 1 1 2 2 4 18446744073709551615 4 4\n"
                  "p 1 2 2 2 4 1 4 4\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.funcs[0].hits, UINT64_MAX);
    lg_test_loaded_destroy(&r);

    /* No m line: the default metric, bb-count. */
    load_text(&r, "v 2\nr \"f\" \"/x\" 1\n");
    lg_test_assert_loaded_clean(&r);
    assert_string_equal(r.p.counter1_unit, "BB");
    assert_int_equal(r.p.funcs[0].hits, 0);
    lg_test_loaded_destroy(&r);
}

static void test_d_lines(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    /* A d line with a mangled name stands in for a missing u line; a u line wins over it; a
     * demangled d value is not a link label. */
    load_text(&r, "v 1\n"
                  "r \"f(int)\" \"/x\" 1\n"
                  "d 1 \"_Z1fi\"\n"
                  "r \"g(int)\" \"/x\" 2\n"
                  "d 2 \"_Z1gi_old\"\n"
                  "u 2 \"_Z1gi\"\n"
                  "r \"_Z1hv\" \"/x\" 3\n"
                  "d 3 \"h()\"\n"
                  "u 3 \"_Z1hv\"\n"
                  "u 3 \"_Z1hv\"\n");
    lg_test_assert_loaded_clean(&r);
    assert_string_equal(r.p.funcs[0].link_label, "_Z1fi");
    assert_string_equal(r.p.funcs[1].link_label, "_Z1gi");
    assert_string_equal(r.p.funcs[2].link_label, "_Z1hv");
    lg_test_loaded_destroy(&r);
}

static void test_warnings(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "v 6\n"                       /* 1 */
                  "m cpu-cycles\n"              /* 2 */
                  "zz something new\n"          /* 3 */
                  "r \"f\" \"/x\" 1\n"          /* 4 */
                  "p 1 1 2 2 4 8 2 4 4 2 2 8\n" /* 5 */
                  "r \"f\" \"/x\" 2\n"          /* 6 */
                  "p 2 1 2 2 4 8 3 4 4 2 2 8\n" /* 7 */
                  "zz again\n"                  /* 8 */
                  "later too\n");               /* 9 */
    if (r.err != LG_OK)
        lg_test_diag_dump(&r.d);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.errors, 0);
    assert_int_equal(r.d.warnings, 3);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "t.aprof:3: 3 line(s) with a tag lorgen does not know, first "
                                 "'zz'; ignored"));
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, "t.aprof:2: unknown cost metric 'cpu-cycles'"));
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "t.aprof:6: 1 routine(s) repeat the name, mangled name and image "
                                 "of an earlier one, first 'f' (id 2)"));
    assert_null(r.p.counter1_unit);
    /* Routines 1 and 2 are one function with both routines' calls. */
    assert_int_equal(r.p.nfuncs, 1);
    assert_int_equal(r.p.funcs[0].hits, 5);
    lg_test_loaded_destroy(&r);
}

/* ---- Malformed reports -------------------------------------------------------------------- */

typedef struct bad {
    const char *text;
    lg_err_t err;
    const char *message; /* "t.aprof:LINE: ..." */
} bad_t;

static const bad_t bad_reports[] = {
    /* versions */
    {"c x\nv 7\n", LG_EUNSUPPORTED, "t.aprof:2: unsupported aprof version 7 (lorgen reads 0 to 6)"},
    {"v 18446744073709551616\n", LG_EFORMAT,
     "t.aprof:1: expected a version number after 'v', found '18446744073709551616'"},
    {"v two\n", LG_EFORMAT, "t.aprof:1: expected a version number after 'v', found 'two'"},
    {"v\n", LG_EFORMAT, "t.aprof:1: expected a version number after 'v', found ''"},
    {"v 2 3\n", LG_EFORMAT, "t.aprof:1: expected only a version number after 'v', found more: '3'"},
    {"v 2\nv 2\n", LG_EFORMAT,
     "t.aprof:2: expected one v line, found a second (the first is line 1)"},
    {"r f 0x1 /x 1\nv 2\n", LG_EFORMAT,
     "t.aprof:2: expected the v line before the routine data, found it after line 1"},
    /* p and q lines with the wrong number of fields for their version */
    {"v 2\nr \"f\" \"/x\" 1\np 1 1 2 2 4 2 4 4 9\n", LG_EFORMAT,
     "t.aprof:3: expected 7 numbers after the routine id of a p line in a version 2 report (rms "
     "min max sum occ real-sum self-sum), found 8"},
    {"r f 0x1 /x 1\np 1 1 2.5\n", LG_EFORMAT,
     "t.aprof:2: expected 3 numbers after the routine id of a p line in a version 0 report (rms "
     "avg occ), found 2"},
    {"v 1\nr \"f\" \"/x\" 1\np 1 1 2 2 4 8 2 4\n", LG_EFORMAT,
     "t.aprof:3: expected 6 numbers after the routine id of a p line in a version 1 report"},
    {"v 3\nr \"f\" \"/x\" 1\np 1 1 2 2 4 2 4 4 2 2 8\n", LG_EFORMAT,
     "t.aprof:3: expected 9 numbers after the routine id of a p line in a version 3 report"},
    {"v 4\nr \"f\" \"/x\" 1\np 1 1 2 2 4 8 2 4 4 2 2 8 1 1\n", LG_EFORMAT,
     "t.aprof:3: expected 11 numbers after the routine id of a p line in a version 4 report"},
    {"v 6\nr \"f\" \"/x\" 1\np 1 1 2 2 4 8 2 4 4 2 2 8 0\n", LG_EFORMAT,
     "t.aprof:3: expected 11, 13, 15 or 17 numbers after the routine id of a p line in a version "
     "6 report"},
    {"v 5\nr \"f\" \"/x\" 1\nq 1 1 2 2 4 8 2 4 4 2\nx 1 1 -1\n", LG_EFORMAT,
     "t.aprof:3: expected 11, 13, 15 or 17 numbers after the context id of a q line in a "
     "version 5 report"},
    {"v 2\nr \"f\" \"/x\" 1\np 1\n", LG_EFORMAT,
     "t.aprof:3: expected 7 numbers after the routine id of a p line in a version 2 report"},
    {"v 2\nr \"f\" \"/x\" 1\np\n", LG_EFORMAT,
     "t.aprof:3: expected a routine id, found the end of the line"},
    /* p fields that are not numbers */
    {"v 2\nr \"f\" \"/x\" 1\np 1 1 2 2 4 x 4 4\n", LG_EFORMAT,
     "t.aprof:3: field 5 (occ) of the p line: expected a number, found 'x'"},
    {"v 2\nr \"f\" \"/x\" 1\np 1 1 2 2 4 -2 4 4\n", LG_EFORMAT,
     "t.aprof:3: field 5 (occ) of the p line: expected a number, found '-2'"},
    {"v 2\nr \"f\" \"/x\" 1\np 1 1 2 2 4 2.5 4 4\n", LG_EFORMAT,
     "t.aprof:3: field 5 (occ) of the p line: expected an unsigned 64-bit integer, found '2.5'"},
    {"v 2\nr \"f\" \"/x\" 1\np 1 1 2 2 4 18446744073709551616 4 4\n", LG_EFORMAT,
     "t.aprof:3: field 5 (occ) of the p line: expected an unsigned 64-bit integer"},
    {"v 6\nr \"f\" \"/x\" 1\np 1 1 2 2 4 8 2 4 4 2 2 8 0 0 1 x 0 0\n", LG_EFORMAT,
     "t.aprof:3: field 15 (an input statistic) of the p line: expected a number, found 'x'"},
    {"v 4\nr \"f\" \"/x\" 1\np 1 1 2 2 4 8 2 4 4 2 2 x\n", LG_EFORMAT,
     "t.aprof:3: field 11 (self-sqr) of the p line: expected a number, found 'x'"},
    {"v 2\nr \"f\" \"/x\" 1\np x1 1 2 2 4 2 4 4\n", LG_EFORMAT,
     "t.aprof:3: expected a routine id (an unsigned integer), found 'x1'"},
    {"r f 0x1 /x 1\np 1 1 nan 2\n", LG_EFORMAT,
     "t.aprof:2: field 2 (avg) of the p line: expected a number, found 'nan'"},
    /* references */
    {"v 2\nr \"f\" \"/x\" 1\np 9 1 2 2 4 2 4 4\n", LG_EFORMAT,
     "t.aprof:3: p line for routine id 9, which no earlier r line declares"},
    {"v 2\np 1 1 2 2 4 2 4 4\nr \"f\" \"/x\" 1\n", LG_EFORMAT,
     "t.aprof:2: p line for routine id 1, which no earlier r line declares"},
    {"v 2\nu 1 \"_Z1fv\"\nr \"f()\" \"/x\" 1\n", LG_EFORMAT,
     "t.aprof:2: u line for routine id 1, which no earlier r line declares"},
    {"v 2\nr \"f\" \"/x\" 1\nd 2 \"f\"\n", LG_EFORMAT,
     "t.aprof:3: d line for routine id 2, which no earlier r line declares"},
    {"v 2\nr \"f\" \"/x\" 1\nr \"g\" \"/x\" 1\n", LG_EFORMAT,
     "t.aprof:3: routine id 1 is already declared at line 2"},
    {"v 2\nr \"f()\" \"/x\" 1\nu 1 \"_Z1fv\"\nu 1 \"_Z1gv\"\n", LG_EFORMAT,
     "t.aprof:4: routine id 1 already has the mangled name '_Z1fv' from an earlier u line, "
     "found another: '_Z1gv'"},
    {"v 6\nr \"f\" \"/x\" 1\nx 1 1 -1\nx 1 2 7\n", LG_EFORMAT,
     "t.aprof:4: x line for context 2 names parent context 7, which no earlier x line declares"},
    {"v 6\nr \"f\" \"/x\" 1\nq 7 1 2 2 4 8 2 4 4 2 2 8\nx 1 1 7\n", LG_EFORMAT,
     "t.aprof:4: x line for context 1 names parent context 7, which no earlier x line declares"},
    {"v 6\nr \"f\" \"/x\" 1\nx 1 1 1\n", LG_EFORMAT,
     "t.aprof:3: x line for context 1 names parent context 1, which no earlier x line declares"},
    {"v 6\nr \"f\" \"/x\" 1\nx 2 1 -1\n", LG_EFORMAT,
     "t.aprof:3: x line for routine id 2, which no earlier r line declares"},
    {"v 6\nr \"f\" \"/x\" 1\nx 1 1 -1\nx 1 1 -1\n", LG_EFORMAT,
     "t.aprof:4: context 1 is already declared at line 3"},
    {"v 6\nr \"f\" \"/x\" 1\nx 1 1 -1 4\n", LG_EFORMAT,
     "t.aprof:3: expected 3 numbers after 'x' (routine context parent), found more: '4'"},
    {"v 6\nr \"f\" \"/x\" 1\nx 1 1\n", LG_EFORMAT,
     "t.aprof:3: expected a parent context id or -1, found the end of the line"},
    {"v 6\nr \"f\" \"/x\" 1\nx 1 1 -2\n", LG_EFORMAT,
     "t.aprof:3: expected a parent context id or -1 (an unsigned integer), found '-2'"},
    {"v 6\n"
     "r \"f\" \"/x\" 1\n"
     "q 1 1 2 2 4 8 2 4 4 2 2 8\n"
     "q 5 1 2 2 4 8 2 4 4 2 2 8\n"
     "q 5 1 2 2 4 8 2 4 4 2 2 8\n"
     "x 1 1 -1\n",
     LG_EFORMAT, "t.aprof:4: q line for context 5, which no x line declares"},
    {"v 6\nr \"f\" \"/x\" 1\np 1 1 2 2 4 8 2 4 4 2 2 8\nq 1 1 2 2 4 8 2 4 4 2 2 8\n", LG_EFORMAT,
     "t.aprof:4: expected p lines only (the report's first p line is line 3), found a q line"},
    {"v 6\nr \"f\" \"/x\" 1\nq 1 1 2 2 4 8 2 4 4 2 2 8\np 1 1 2 2 4 8 2 4 4 2 2 8\n", LG_EFORMAT,
     "t.aprof:4: expected q lines only (the report's first q line is line 3), found a p line"},
    /* r lines */
    {"v 2\nr main /x 1\n", LG_EFORMAT,
     "t.aprof:2: expected the image name in double quotes before the routine id, found 'main "
     "/x'"},
    {"v 2\nr \"main\" \"/x\"\n", LG_EFORMAT,
     "t.aprof:2: expected the routine id at the end of the r line (an unsigned integer), found "
     "'\"/x\"'"},
    {"v 2\nr \"main\" \"/x\" 1 2 3\n", LG_EFORMAT,
     "t.aprof:2: expected the image name in double quotes before the routine id, found "
     "'\"main\" \"/x\" 1'"},
    {"v 2\nr main\" \"/x\" 1\n", LG_EFORMAT,
     "t.aprof:2: expected the routine name in double quotes, found 'main\"'"},
    {"v 2\nr \"\" \"/x\" 1\n", LG_EFORMAT,
     "t.aprof:2: expected a routine name, found an empty one"},
    {"v 2\nr\n", LG_EFORMAT,
     "t.aprof:2: expected a routine name, image and id after 'r', found nothing"},
    {"r main /x 1\n", LG_EFORMAT,
     "t.aprof:1: expected a routine name, address, image and id after 'r' (version 0), found "
     "fewer fields"},
    {"r main 0x1 /x 99999999999999999999\n", LG_EFORMAT,
     "t.aprof:1: expected the routine id at the end of the r line, found 99999999999999999999, "
     "which does not fit 64 bits"},
    /* lines that are not report lines */
    {"v 2\nr \"f\" \"/x\" 1\n#!@ garbage\n", LG_EFORMAT,
     "t.aprof:3: expected a line starting with a tag (a lowercase word such as 'r' or 'p'), "
     "found '#!@'"},
    {"v 2\n12 34 56\n", LG_EFORMAT,
     "t.aprof:2: expected a line starting with a tag (a lowercase word such as 'r' or 'p'), "
     "found '12'"},
    {"v 2\nR \"f\" \"/x\" 1\n", LG_EFORMAT, "t.aprof:2: expected a line starting with a tag"},
    {"v 2\nverylongtag 1\n", LG_EFORMAT,
     "t.aprof:2: expected a line starting with a tag (a lowercase word such as 'r' or 'p'), "
     "found 'verylongtag'"},
    {"v 2\n\x01\x02\xff\n", LG_EFORMAT,
     "t.aprof:2: expected a line starting with a tag (a "
     "lowercase word such as 'r' or 'p'), found "
     "'\\x01\\x02\\xff'"},
    {"", LG_EFORMAT, "t.aprof: expected aprof report lines (tags such as v, r, p), found none"},
    {"\n  \n\r\n", LG_EFORMAT,
     "t.aprof: expected aprof report lines (tags such as v, r, p), found none"},
};

static void check_bad(const char *text, size_t size, lg_err_t err, const char *message)
{
    lg_test_loaded_t r;
    load_bytes(&r, text, size);
    if (r.err != err || r.d.count != 1 || !lg_test_diag_has(&r.d, LG_ERROR, message)) {
        print_message("report:\n%s\nexpected: %s\n", text, message);
        lg_test_diag_dump(&r.d);
    }
    assert_int_equal(r.err, err);
    assert_int_equal(r.d.count, 1);
    assert_int_equal(r.d.errors, 1);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, message));
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);
}

static void test_malformed_reports(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(bad_reports); i++)
        check_bad(bad_reports[i].text, strlen(bad_reports[i].text), bad_reports[i].err,
                  bad_reports[i].message);
    /* A NUL byte: the report is text. */
    const char nul[] = "v 2\nr \"f\" \"/x\" 1\nc a\0b\n";
    check_bad(nul, sizeof nul - 1, LG_EFORMAT,
              "t.aprof:3:4: expected text, found a NUL byte");
}

/* "v 2" and a comment line of len bytes. */
static char *report_with_line_of(size_t len)
{
    char *text = malloc(4 + len + 2);
    assert_non_null(text);
    memcpy(text, "v 2\nc ", 6);
    memset(text + 6, 'x', len - 2);
    memcpy(text + 4 + len, "\n", 2);
    return text;
}

static void test_line_limit(void **state)
{
    (void)state;
    char *text = report_with_line_of(LG_APROF_MAX_LINE_BYTES + 1);
    check_bad(text, strlen(text), LG_ELIMIT,
              "t.aprof:2: line is longer than 1048576 bytes (LG_APROF_MAX_LINE_BYTES)");
    free(text);
    text = report_with_line_of(LG_APROF_MAX_LINE_BYTES);
    lg_test_loaded_t r;
    load_text(&r, text);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 0);
    lg_test_loaded_destroy(&r);
    free(text);
}

/* Every prefix of a report that ends at a line boundary, and every prefix of the tree fixture,
 * loads or fails cleanly: never a crash, never a partial profile. */
static void check_truncations(const char *path, bool every_byte)
{
    size_t size;
    uint8_t *data = lg_test_read_file(path, &size);
    assert_non_null(data);
    for (size_t cut = 0; cut <= size; cut++) {
        if (!every_byte && cut < size && data[cut] != '\n' && cut != 0)
            continue;
        lg_test_loaded_t r;
        load_bytes(&r, (const char *)data, cut);
        if (r.err == LG_OK) {
            assert_int_equal(r.d.errors, 0);
            assert_string_equal(r.p.format, "aprof");
        } else {
            assert_int_equal(r.d.errors, 1);
            lg_test_assert_profile_empty(&r.p);
        }
        lg_test_loaded_destroy(&r);
    }
    free(data);
}

static void test_truncations(void **state)
{
    (void)state;
    static const char *const files[] = {
        "v0_flat.aprof", "v0_tree.aprof", "v1_flat.aprof", "v1_tree.aprof", "v2_flat.aprof",
        "v2_tree.aprof", "v3_flat.aprof", "v3_tree.aprof", "v4_flat.aprof", "v4_tree.aprof",
        "v5_flat.aprof", "v5_tree.aprof", "v6_flat.aprof", "v6_tree.aprof",
    };
    char path[4096];
    for (size_t i = 0; i < N(files); i++) {
        snprintf(path, sizeof path, "%s%s", FIXTURES, files[i]);
        check_truncations(path, false);
    }
    check_truncations(FIXTURES "tree_recursion.aprof", true);
}

/* A tree report cut before its x lines names the first q line whose context is undeclared. */
static void test_tree_cut_before_its_contexts(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = lg_test_read_file(FIXTURES "tree_recursion.aprof", &size);
    assert_non_null(data);
    const char *x = strstr((const char *)data, "\nx 1 1 -1");
    assert_non_null(x);
    check_bad((const char *)data, (size_t)(x - (const char *)data) + 1, LG_EFORMAT,
              "t.aprof:14: q line for context 7, which no x line declares");
    free(data);
}

static void test_unreadable_file(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, LORGEN_TEST_TMPDIR "/no-such-report.aprof");
    assert_int_equal(r.err, LG_EIO);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, "no-such-report.aprof: cannot open: "));
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);
}

/* ---- Probe -------------------------------------------------------------------------------- */

/* Probes the first LG_PROBE_BYTES of a file, as lorgen does. */
static bool probe_file(const char *path)
{
    size_t size;
    uint8_t *data = lg_test_read_file(path, &size);
    assert_non_null(data);
    bool yes = lg_aprof_probe(data, size < LG_PROBE_BYTES ? size : LG_PROBE_BYTES);
    free(data);
    return yes;
}

static bool probe_text(const char *text)
{
    return lg_aprof_probe((const uint8_t *)text, strlen(text));
}

static void test_probe(void **state)
{
    (void)state;
    assert_true(probe_file(SAMPLE_V2)); /* the head cuts a line short */
    static const char *const files[] = {
        "v0_flat.aprof", "v0_tree.aprof", "v1_flat.aprof", "v1_tree.aprof", "v2_flat.aprof",
        "v2_tree.aprof", "v3_flat.aprof", "v3_tree.aprof", "v4_flat.aprof", "v4_tree.aprof",
        "v5_flat.aprof", "v5_tree.aprof", "v6_flat.aprof", "v6_tree.aprof", "tree_recursion.aprof",
    };
    char path[4096];
    for (size_t i = 0; i < N(files); i++) {
        snprintf(path, sizeof path, "%s%s", FIXTURES, files[i]);
        assert_true(probe_file(path));
    }
    /* Other profile formats. */
    static const char *const others[] = {
        "callgrind_issue35.callgrind",
        "callgrind_selinux.callgrind",
        "callgrind_test1.callgrind",
        "perfscript_gprof2dot_issue28.perf",
        "perfscript_perf-cycles-instructions-01.txt",
        "perfscript_perf-dd-stacks-01.txt",
        "perfscript_perf-funcab-cmd-01.txt",
    };
    for (size_t i = 0; i < N(others); i++) {
        snprintf(path, sizeof path, "%s%s", SAMPLES, others[i]);
        if (probe_file(path))
            fail_msg("aprof claims %s", others[i]);
    }
    assert_false(lg_aprof_probe((const uint8_t *)"PROFILER FILE:\x55\0\0\0", 18));
    /* perf script without a header: "comm pid [cpu] time: event:" and indented frames. */
    assert_false(probe_text("sha 1234 [000] 12.345678: cycles:\n"
                            "\t400500 main (/home/u/sha)\n"));
    assert_false(probe_text("v 1234 [000] 12.345678: cycles:\n"));
    /* Text that uses aprof's letters loosely. */
    assert_false(probe_text("c just a comment\nc and another\n"));
    assert_false(probe_text("a b c\n"));
    assert_false(probe_text("hello world\n"));
    /* After a version line, a line with an aprof tag that does not read is a broken report:
     * claimed, so that loading names the line (a bad number) instead of "unknown format". */
    assert_true(probe_text("v 2\nr hello world\n"));
    assert_true(probe_text("v 2\nr \"f\" \"/x\" 1\np 1 1 x2 2 4 2 4 4\n"));
    assert_false(probe_text("v 2\nzz unknown\nr \"f\" \"/x\" 1\n"));
    assert_false(probe_text("v 2\nr \"f\" \"/x\" 1\n\nfoo: bar\n"));
    assert_false(probe_text(""));
    assert_false(lg_aprof_probe(NULL, 0));
    assert_false(lg_aprof_probe((const uint8_t *)"v 2\n\0r", 7));
    /* Reports. */
    assert_true(probe_text("v 2\n"));
    assert_true(probe_text("c report\nv 6\nk 1\n"));
    assert_true(probe_text("r main 0x400500 /x 1\np 1 1 2 1\n")); /* version 0 */
    assert_true(probe_text("v 7\n")); /* a later version: lorgen says so when loading */
    assert_true(probe_text("v 2\r\nr \"f\" \"/x\" 1\r\np 1 1 2 2 4 2 4 4\r\n"));
    assert_true(probe_text("v 2\nr \"f\" \"/x\" 1\np 1 1 2 2 4 2")); /* cut short */

    /* The registry, when the lead has added the loader, detects the sample as aprof. */
    size_t size;
    uint8_t *data = lg_test_read_file(SAMPLE_V2, &size);
    assert_non_null(data);
    const lg_loader_t *l = lg_loader_detect(data, LG_PROBE_BYTES);
    if (lg_loader_find("aprof") != NULL) {
        assert_non_null(l);
        assert_string_equal(l->name, "aprof");
    }
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_v2_sample),
        cmocka_unit_test(test_version_0),
        cmocka_unit_test(test_version_1),
        cmocka_unit_test(test_version_2),
        cmocka_unit_test(test_version_3),
        cmocka_unit_test(test_version_4),
        cmocka_unit_test(test_version_5),
        cmocka_unit_test(test_version_6),
        cmocka_unit_test(test_tree_with_recursion),
        cmocka_unit_test(test_tree_without_calls),
        cmocka_unit_test(test_writer_quirks),
        cmocka_unit_test(test_d_lines),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_malformed_reports),
        cmocka_unit_test(test_line_limit),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_tree_cut_before_its_contexts),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
