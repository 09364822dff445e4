/* test_br.c - the Business Rules! profiler file reader and writer.
 *
 * There are no public sample files, so fixtures are built with the writer from the BR Wiki's
 * layout; malformed ones are valid fixtures with bytes changed, cut or inserted afterwards. The
 * record sizes below restate the layout, so the reader is checked against the page, not against
 * the writer alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "br.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- The layout ------------------------------------------------------------------------- */

enum {
    MODULE_FIXED = 5, /* type, u16 module, u16 name length */
    FRAME = 8,        /* CURRENT LINE, BACKTRACE: type, u16 module, u32 line, u8 clause */
    TIME = 9,         /* type, u64 nanoseconds */
    FUNC_FIXED = 2,   /* type, u8 name length */
    BARE = 1,         /* END CURRENT LINE, GOSUB, MAIN ROUTINE */
};

/* Most time a file with an absurd length may take to be rejected. */
#define FAIL_FAST_SECONDS 1.0

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* ---- Fixtures and loading --------------------------------------------------------------- */

/* Takes the writer's bytes (free them). */
static uint8_t *finish(lg_br_writer_t *w, size_t *size)
{
    assert_int_equal(lg_br_writer_finish(w), LG_OK);
    uint8_t *data = w->buf.data;
    *size = w->buf.size;
    w->buf.data = NULL;
    lg_br_writer_destroy(w);
    return data;
}

static void load_limited(lg_test_loaded_t *r, const uint8_t *data, size_t size,
                         const lg_br_limits_t *limits)
{
    lg_test_load_bytes(r, lg_br_read, data, size, "t.br",
                       &(lg_load_options_t){.br_limits = limits});
}

static void load(lg_test_loaded_t *r, const uint8_t *data, size_t size)
{
    load_limited(r, data, size, NULL);
}

static void load_file(lg_test_loaded_t *r, const char *path)
{
    lg_test_load_file(r, lg_br_read, path, NULL);
}

static const lg_pfunc_t *func(const lg_profile_t *p, const char *name, const char *module)
{
    int64_t i = lg_test_func_index(p, name, module);
    if (i < 0)
        print_message("no function '%s' in '%s'\n", name, module ? module : "(none)");
    assert_true(i >= 0);
    return &p->funcs[i];
}

/* The weight of caller -> callee, or -1 when there is no such edge. */
static int64_t edge_weight(const lg_profile_t *p, const char *caller, const char *caller_module,
                           const char *callee, const char *callee_module)
{
    return lg_test_edge_weight(p, lg_test_func_index(p, caller, caller_module),
                               lg_test_func_index(p, callee, callee_module));
}

/* The cost recorded at a line of a function, or -1 when there is none. Each (function, line)
 * must appear at most once. */
static int64_t line_cost(const lg_profile_t *p, const char *name, const char *module, uint64_t line)
{
    int64_t f = lg_test_func_index(p, name, module);
    assert_true(f >= 0);
    int64_t found = -1;
    for (size_t i = 0; i < p->ncosts; i++) {
        if (p->costs[i].func != (uint32_t)f || p->costs[i].position != line)
            continue;
        assert_int_equal(found, -1);
        found = (int64_t)p->costs[i].cost;
    }
    return found;
}

/* ---- A realistic program: two modules, functions, a GOSUB, the main routine ------------- */

#define PROG "C:\\BR\\prog.br"
#define LIB "lib.br"

static const lg_br_frame_t M30 = {1, 30, 0, LG_BR_MARK_MAIN, NULL};
static const lg_br_frame_t M40 = {1, 40, 1, LG_BR_MARK_MAIN, NULL};
static const lg_br_frame_t M50 = {1, 50, 0, LG_BR_MARK_MAIN, NULL};
static const lg_br_frame_t F120 = {1, 120, 0, LG_BR_MARK_FUNCTION, "FNSUM"};
static const lg_br_frame_t F125 = {1, 125, 3, LG_BR_MARK_FUNCTION, "FNSUM"};
static const lg_br_frame_t G210 = {1, 210, 2, LG_BR_MARK_GOSUB, NULL};
static const lg_br_frame_t L500 = {2, 500, 0, LG_BR_MARK_FUNCTION, "FNSUM"};
static const lg_br_frame_t U600 = {2, 600, 0, LG_BR_MARK_NONE, NULL};

/* Nanoseconds of the seven samples in the TIMED version: powers of ten, so every sum shows
 * which samples it took. */
static const uint64_t sample_ns[7] = {1, 10, 100, 1000, 10000, 100000, 1000000};

/* Seven samples, innermost frame first:
 *   S1 FNSUM@prog:120 <- (main):30        S5 = S1
 *   S2 FNSUM@lib:500  <- (main):40        S6 FNSUM@prog:125 <- (gosub):210 <- (main):50
 *   S3 (gosub):210    <- (main):50        S7 (unknown)@lib:600 <- FNSUM@lib:500 <- (main):40
 *   S4 (main):30 */
static uint8_t *build_program(bool timed, size_t *size)
{
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, PROG);
    const lg_br_frame_t s1[] = {F120, M30}, s2[] = {L500, M40}, s3[] = {G210, M50}, s4[] = {M30},
                        s6[] = {F125, G210, M50}, s7[] = {U600, L500, M40};
    lg_br_write_sample(&w, s1, 2, timed, sample_ns[0]);
    lg_br_write_module(&w, 2, LIB); /* mapped just before its first use */
    lg_br_write_sample(&w, s2, 2, timed, sample_ns[1]);
    lg_br_write_sample(&w, s3, 2, timed, sample_ns[2]);
    lg_br_write_sample(&w, s4, 1, timed, sample_ns[3]);
    lg_br_write_sample(&w, s1, 2, timed, sample_ns[4]);
    lg_br_write_sample(&w, s6, 3, timed, sample_ns[5]);
    lg_br_write_sample(&w, s7, 3, timed, sample_ns[6]);
    return finish(&w, size);
}

static void check_program_shape(const lg_profile_t *p)
{
    assert_string_equal(p->format, "br");
    assert_int_equal(p->kind, LG_PROFILE_STATISTICAL);
    assert_true(p->has_call_edges);
    assert_int_equal(p->cost_positions, LG_POS_LINE);
    assert_int_equal(p->total_hits, 7);
    assert_int_equal(p->call_records, 0);

    /* In the order first met: each frame resolves when the next record after it is read. */
    assert_int_equal(p->nfuncs, 5);
    assert_int_equal(lg_test_func_index(p, "FNSUM", PROG), 0);
    assert_int_equal(lg_test_func_index(p, "(main)", PROG), 1);
    assert_int_equal(lg_test_func_index(p, "FNSUM", LIB), 2);
    assert_int_equal(lg_test_func_index(p, "(gosub)", PROG), 3);
    assert_int_equal(lg_test_func_index(p, "(unknown)", LIB), 4);
    assert_int_equal(p->funcs[0].description, LG_BR_DESC_FUNCTION);
    assert_int_equal(p->funcs[1].description, LG_BR_DESC_MAIN);
    assert_int_equal(p->funcs[3].description, LG_BR_DESC_GOSUB);
    assert_int_equal(p->funcs[4].description, LG_BR_DESC_UNMARKED);
    for (size_t i = 0; i < p->nfuncs; i++) {
        assert_null(p->funcs[i].link_label);
        assert_int_equal(p->funcs[i].pc_min, 0);
        assert_int_equal(p->funcs[i].pc_max, 0);
        assert_int_equal(p->funcs[i].counter2_total, 0);
    }

    /* Samples with the function innermost. */
    assert_int_equal(func(p, "FNSUM", PROG)->hits, 3);
    assert_int_equal(func(p, "FNSUM", LIB)->hits, 1);
    assert_int_equal(func(p, "(gosub)", PROG)->hits, 1);
    assert_int_equal(func(p, "(main)", PROG)->hits, 1);
    assert_int_equal(func(p, "(unknown)", LIB)->hits, 1);

    assert_int_equal(p->nedges, 5);
    assert_int_equal(p->ncosts, 6);
    /* Edges sorted by (caller, callee), costs by (function, line). */
    for (size_t i = 1; i < p->nedges; i++)
        assert_true(p->edges[i - 1].caller < p->edges[i].caller ||
                    (p->edges[i - 1].caller == p->edges[i].caller &&
                     p->edges[i - 1].callee < p->edges[i].callee));
    for (size_t i = 1; i < p->ncosts; i++)
        assert_true(p->costs[i - 1].func < p->costs[i].func ||
                    (p->costs[i - 1].func == p->costs[i].func &&
                     p->costs[i - 1].position < p->costs[i].position));
}

static void check_sampled_program(const lg_profile_t *p)
{
    check_program_shape(p);
    assert_string_equal(p->counter1_unit, "samples");

    const uint64_t self[] = {3, 1, 1, 1, 1}; /* FNSUM@prog, (main), FNSUM@lib, (gosub), (unk) */
    const uint64_t total[] = {3, 7, 2, 2, 1};
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(p->funcs[i].counter1_self, self[i]);
        assert_int_equal(p->funcs[i].counter1_total, total[i]);
    }
    assert_int_equal(edge_weight(p, "(main)", PROG, "FNSUM", PROG), 2);
    assert_int_equal(edge_weight(p, "(main)", PROG, "FNSUM", LIB), 2);
    assert_int_equal(edge_weight(p, "(main)", PROG, "(gosub)", PROG), 2);
    assert_int_equal(edge_weight(p, "(gosub)", PROG, "FNSUM", PROG), 1);
    assert_int_equal(edge_weight(p, "FNSUM", LIB, "(unknown)", LIB), 1);
    /* Only adjacent frames: no edge skips a frame. */
    assert_int_equal(edge_weight(p, "(main)", PROG, "(unknown)", LIB), -1);

    assert_int_equal(line_cost(p, "FNSUM", PROG, 120), 2);
    assert_int_equal(line_cost(p, "FNSUM", PROG, 125), 1);
    assert_int_equal(line_cost(p, "(main)", PROG, 30), 1);
    assert_int_equal(line_cost(p, "FNSUM", LIB, 500), 1);
    assert_int_equal(line_cost(p, "(gosub)", PROG, 210), 1);
    assert_int_equal(line_cost(p, "(unknown)", LIB, 600), 1);
    /* Lines of outer frames are call sites, not cost. */
    assert_int_equal(line_cost(p, "(main)", PROG, 50), -1);
}

static void test_sampled_profile(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = build_program(false, &size);

    lg_test_loaded_t mem;
    load(&mem, data, size);
    lg_test_assert_loaded_clean(&mem);
    assert_string_equal(mem.p.path, "t.br");
    check_sampled_program(&mem.p);
    lg_test_loaded_destroy(&mem);

    lg_test_loaded_t file;
    const char *path = lg_test_write_file("sampled.br", data, size);
    load_file(&file, path);
    lg_test_assert_loaded_clean(&file);
    assert_string_equal(file.p.path, path);
    check_sampled_program(&file.p);
    lg_test_loaded_destroy(&file);
    free(data);
}

static void test_timed_profile(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = build_program(true, &size);
    lg_test_loaded_t r;
    load_file(&r, lg_test_write_file("timed.br", data, size));
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    check_program_shape(p);
    assert_string_equal(p->counter1_unit, "ns");

    /* Self: the samples a function is innermost in; total: every sample it is on the stack of. */
    assert_int_equal(func(p, "FNSUM", PROG)->counter1_self, 110001); /* S1 S5 S6 */
    assert_int_equal(func(p, "FNSUM", PROG)->counter1_total, 110001);
    assert_int_equal(func(p, "(main)", PROG)->counter1_self, 1000);     /* S4 */
    assert_int_equal(func(p, "(main)", PROG)->counter1_total, 1111111); /* all */
    assert_int_equal(func(p, "FNSUM", LIB)->counter1_self, 10);         /* S2 */
    assert_int_equal(func(p, "FNSUM", LIB)->counter1_total, 1000010);   /* S2 S7 */
    assert_int_equal(func(p, "(gosub)", PROG)->counter1_self, 100);     /* S3 */
    assert_int_equal(func(p, "(gosub)", PROG)->counter1_total, 100100); /* S3 S6 */
    assert_int_equal(func(p, "(unknown)", LIB)->counter1_self, 1000000);
    assert_int_equal(func(p, "(unknown)", LIB)->counter1_total, 1000000);

    assert_int_equal(edge_weight(p, "(main)", PROG, "FNSUM", PROG), 10001);    /* S1 S5 */
    assert_int_equal(edge_weight(p, "(main)", PROG, "FNSUM", LIB), 1000010);   /* S2 S7 */
    assert_int_equal(edge_weight(p, "(main)", PROG, "(gosub)", PROG), 100100); /* S3 S6 */
    assert_int_equal(edge_weight(p, "(gosub)", PROG, "FNSUM", PROG), 100000);  /* S6 */
    assert_int_equal(edge_weight(p, "FNSUM", LIB, "(unknown)", LIB), 1000000); /* S7 */

    assert_int_equal(line_cost(p, "FNSUM", PROG, 120), 10001);
    assert_int_equal(line_cost(p, "FNSUM", PROG, 125), 100000);
    assert_int_equal(line_cost(p, "(main)", PROG, 30), 1000);
    assert_int_equal(line_cost(p, "FNSUM", LIB, 500), 10);
    assert_int_equal(line_cost(p, "(gosub)", PROG, 210), 100);
    assert_int_equal(line_cost(p, "(unknown)", LIB, 600), 1000000);
    lg_test_loaded_destroy(&r);
    free(data);
}

static void test_recursion(void **state)
{
    (void)state;
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 7, "fact.br");
    /* A one-line DEF: the current line and the call site in the caller are the same line. */
    const lg_br_frame_t fact = {7, 100, 0, LG_BR_MARK_FUNCTION, "FNFACT"};
    const lg_br_frame_t top = {7, 10, 0, LG_BR_MARK_MAIN, NULL};
    const lg_br_frame_t deep[] = {fact, fact, fact, top}, shallow[] = {fact, top};
    lg_br_write_sample(&w, deep, 4, false, 0);
    lg_br_write_sample(&w, shallow, 2, false, 0);
    size_t size;
    uint8_t *data = finish(&w, &size);

    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 2);
    const lg_pfunc_t *f = func(&r.p, "FNFACT", "fact.br");
    assert_int_equal(f->hits, 2);
    assert_int_equal(f->counter1_self, 2);
    assert_int_equal(f->counter1_total, 2); /* once per sample however deep */
    /* Every adjacent pair is a call in progress: two FNFACT -> FNFACT in the deep sample. */
    assert_int_equal(edge_weight(&r.p, "FNFACT", "fact.br", "FNFACT", "fact.br"), 2);
    assert_int_equal(edge_weight(&r.p, "(main)", "fact.br", "FNFACT", "fact.br"), 2);
    assert_int_equal(r.p.nedges, 2);
    assert_int_equal(line_cost(&r.p, "FNFACT", "fact.br", 100), 2);
    assert_int_equal(r.p.ncosts, 1);
    lg_test_loaded_destroy(&r);
    free(data);
}

static void test_single_frame_samples_have_no_edges(void **state)
{
    (void)state;
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 0, "a.br");
    const lg_br_frame_t one[] = {{0, 5, 0, LG_BR_MARK_FUNCTION, "FNA"}};
    lg_br_write_sample(&w, one, 1, false, 0);
    lg_br_write_sample(&w, one, 1, false, 0);
    size_t size;
    uint8_t *data = finish(&w, &size);
    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_false(r.p.has_call_edges);
    assert_int_equal(r.p.nedges, 0);
    assert_null(r.p.edges);
    assert_int_equal(r.p.nfuncs, 1);
    assert_int_equal(r.p.funcs[0].hits, 2);
    assert_int_equal(line_cost(&r.p, "FNA", "a.br", 5), 2);
    lg_test_loaded_destroy(&r);
    free(data);
}

/* Functions are (name, module file name): numbers are only handles for the names. */
static void test_modules_are_names(void **state)
{
    (void)state;
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    const lg_br_frame_t at1 = {1, 10, 0, LG_BR_MARK_FUNCTION, "FNX"};
    const lg_br_frame_t at2 = {2, 10, 0, LG_BR_MARK_FUNCTION, "FNX"};
    lg_br_write_module(&w, 1, "a.br");
    lg_br_write_module(&w, 2, "a.br"); /* a second number for the same file */
    lg_br_write_sample(&w, &at1, 1, false, 0);
    lg_br_write_sample(&w, &at2, 1, false, 0);
    lg_br_write_module(&w, 1, "b.br"); /* number 1 reused for another file */
    lg_br_write_sample(&w, &at1, 1, false, 0);
    /* A mapping inside a group, between the frame and its mark, serves later frames. */
    lg_br_write_current_line(&w, 1, 20, 0);
    lg_br_write_module(&w, 3, "c.br");
    lg_br_write_function_name(&w, "FNY");
    lg_br_write_backtrace(&w, 3, 30, 0);
    lg_br_write_end(&w);
    size_t size;
    uint8_t *data = finish(&w, &size);

    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 4);
    assert_int_equal(func(&r.p, "FNX", "a.br")->hits, 2);
    assert_int_equal(func(&r.p, "FNX", "b.br")->hits, 1);
    assert_int_equal(func(&r.p, "FNY", "b.br")->hits, 1);
    assert_int_equal(edge_weight(&r.p, "(unknown)", "c.br", "FNY", "b.br"), 1);
    lg_test_loaded_destroy(&r);
    free(data);
}

/* Marks belong to the group's latest frame, even with a TIME record in between; names lose
 * terminating NULs a writer may have counted. */
static void test_marks_and_names(void **state)
{
    (void)state;
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, "M.br");
    lg_br_write_current_line(&w, 1, 10, 0);
    lg_br_write_time(&w, 42);
    lg_br_write_function_name(&w, "FNLATE");
    lg_br_write_backtrace(&w, 1, 5, 0);
    lg_br_write_gosub(&w);
    lg_br_write_function_name(&w, "FNOUTER"); /* GOSUB and a name: the name wins */
    lg_br_write_end(&w);
    size_t size;
    uint8_t *data = finish(&w, &size);
    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 2);
    assert_int_equal(func(&r.p, "FNLATE", "M.br")->counter1_self, 42);
    assert_int_equal(func(&r.p, "FNOUTER", "M.br")->description, LG_BR_DESC_FUNCTION);
    assert_int_equal(edge_weight(&r.p, "FNOUTER", "M.br", "FNLATE", "M.br"), 42);
    lg_test_loaded_destroy(&r);
    free(data);

    /* Names with NULs counted in their lengths. */
    static const uint8_t nuls[] = {
        1, 0, 1,   0,   6,   'x', '.', 'b', 'r', 0, 0, /* module 1 "x.br\0\0" */
        3, 0, 1,   0,   0,   0,   9,   0,              /* CURRENT LINE module 1, line 9 */
        7, 4, 'F', 'N', 'Q', 0,                        /* FUNCTION NAME "FNQ\0" */
        6,
    };
    load(&r, nuls, sizeof nuls);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 1);
    assert_string_equal(r.p.funcs[0].name, "FNQ");
    assert_string_equal(r.p.funcs[0].qual_name, "x.br");
    lg_test_loaded_destroy(&r);

    /* A module without a file name (a program never saved): no qualified name. */
    static const uint8_t unnamed[] = {1, 0, 4, 0, 0, 3, 0, 4, 0, 0, 0, 1, 0, 9, 6};
    load(&r, unnamed, sizeof unnamed);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 1);
    assert_string_equal(r.p.funcs[0].name, "(main)");
    assert_null(r.p.funcs[0].qual_name);
    lg_test_loaded_destroy(&r);
}

/* Counters add up saturating: times near 2^64 do not wrap. */
static void test_huge_times_saturate(void **state)
{
    (void)state;
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, "t.br");
    const lg_br_frame_t s[] = {{1, UINT32_MAX, 255, LG_BR_MARK_FUNCTION, "FNA"},
                               {1, 1, 0, LG_BR_MARK_MAIN, NULL}};
    lg_br_write_sample(&w, s, 2, true, UINT64_MAX);
    lg_br_write_sample(&w, s, 2, true, UINT64_MAX - 1);
    size_t size;
    uint8_t *data = finish(&w, &size);
    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    const lg_pfunc_t *a = func(&r.p, "FNA", "t.br");
    assert_int_equal(a->hits, 2);
    assert_true(a->counter1_self == UINT64_MAX);
    assert_true(a->counter1_total == UINT64_MAX);
    assert_int_equal(r.p.nedges, 1);
    assert_true(r.p.edges[0].weight == UINT64_MAX);
    assert_int_equal(r.p.ncosts, 1);
    assert_true(r.p.costs[0].position == UINT32_MAX);
    assert_true(r.p.costs[0].cost == UINT64_MAX);
    lg_test_loaded_destroy(&r);
    free(data);
}

/* ---- Bytes ------------------------------------------------------------------------------ */

static void test_record_bytes(void **state)
{
    (void)state;
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 0x1234, "ab");
    lg_br_write_current_line(&w, 0x1234, 0x01020304u, 0x56);
    lg_br_write_time(&w, UINT64_C(0x0102030405060708));
    lg_br_write_function_name(&w, "FNZ");
    lg_br_write_backtrace(&w, 0xBEEF, 99999, 2);
    lg_br_write_gosub(&w);
    lg_br_write_main_routine(&w);
    lg_br_write_end(&w);
    assert_int_equal(w.records, 8);
    size_t size;
    uint8_t *d = finish(&w, &size);

    static const uint8_t expected[] = {
        0x01, 0x12, 0x34, 0x00, 0x02, 'a',  'b',              /* CREATE MODULE MAPPING */
        0x03, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04, 0x56,       /* CURRENT LINE */
        0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* TIME SPENT IN LINE */
        0x07, 0x03, 'F',  'N',  'Z',                          /* FUNCTION NAME */
        0x05, 0xBE, 0xEF, 0x00, 0x01, 0x86, 0x9F, 0x02,       /* BACKTRACE INFORMATION */
        0x08,                                                 /* GOSUB */
        0x09,                                                 /* MAIN ROUTINE */
        0x06,                                                 /* END CURRENT LINE */
    };
    assert_int_equal(size, sizeof expected);
    assert_int_equal(size, MODULE_FIXED + 2 + FRAME + TIME + FUNC_FIXED + 3 + FRAME + 3 * BARE);
    assert_memory_equal(d, expected, size);
    assert_int_equal(get16(d + 1), 0x1234);
    assert_int_equal(get32(d + 10), 0x01020304u);
    assert_true(get64(d + 16) == UINT64_C(0x0102030405060708));
    free(d);
}

static void test_writer_limits(void **state)
{
    (void)state;
    char long_name[300];
    memset(long_name, 'F', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_function_name(&w, long_name);
    assert_int_equal(w.buf.size, FUNC_FIXED + 255);
    assert_int_equal(w.buf.data[1], 255);
    lg_br_write_module(&w, 1, NULL);
    assert_int_equal(w.buf.size, FUNC_FIXED + 255 + MODULE_FIXED);
    assert_int_equal(lg_br_writer_finish(&w), LG_OK);
    lg_br_write_sample(&w, NULL, 0, false, 0);
    assert_int_equal(lg_br_writer_finish(&w), LG_EINVAL);
    size_t before = w.buf.size;
    lg_br_write_end(&w); /* nothing after a failure */
    assert_int_equal(w.buf.size, before);
    lg_br_writer_destroy(&w);
    lg_br_writer_destroy(NULL);
}

/* ---- Malformed files -------------------------------------------------------------------- */

/* The small SAMPLED fixture, record by record (offset, record number):
 *   0x00 r0 CREATE MODULE MAPPING 1 "a.br"     9 bytes
 *   0x09 r1 CURRENT LINE 1, 10                 8
 *   0x11 r2 FUNCTION NAME "FNA"                5
 *   0x16 r3 BACKTRACE 1, 20                    8
 *   0x1e r4 MAIN ROUTINE                       1
 *   0x1f r5 END CURRENT LINE                   1
 *   0x20    end of file */
enum { R0 = 0x00, R1 = 0x09, R2 = 0x11, R3 = 0x16, R4 = 0x1e, R5 = 0x1f, REND = 0x20 };

static uint8_t *build_small(size_t *size)
{
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, "a.br");
    assert_int_equal(w.buf.size, R1);
    lg_br_write_current_line(&w, 1, 10, 0);
    assert_int_equal(w.buf.size, R2);
    lg_br_write_function_name(&w, "FNA");
    assert_int_equal(w.buf.size, R3);
    lg_br_write_backtrace(&w, 1, 20, 0);
    assert_int_equal(w.buf.size, R4);
    lg_br_write_main_routine(&w);
    lg_br_write_end(&w);
    assert_int_equal(w.buf.size, REND);
    assert_int_equal(w.records, 6);
    return finish(&w, size);
}

/* The small TIMED fixture: the same with a TIME record (5 ns) after the function name.
 *   0x00 r0 MODULE  0x09 r1 CURRENT LINE  0x11 r2 FUNCTION NAME  0x16 r3 TIME
 *   0x1f r4 BACKTRACE  0x27 r5 MAIN ROUTINE  0x28 r6 END  0x29 end */
enum { T_TIME = 0x16, T_BT = 0x1f, T_END = 0x28, T_EOF = 0x29 };

static uint8_t *build_small_timed(size_t *size)
{
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, "a.br");
    const lg_br_frame_t s[] = {{1, 10, 0, LG_BR_MARK_FUNCTION, "FNA"},
                               {1, 20, 0, LG_BR_MARK_MAIN, NULL}};
    lg_br_write_sample(&w, s, 2, true, 5);
    assert_int_equal(w.buf.size, T_EOF);
    return finish(&w, size);
}

typedef enum edit { SET_U8, CUT, INSERT } edit_t;

typedef struct bad_case {
    const char *label;
    bool timed; /* edit the TIMED fixture instead of the SAMPLED one */
    size_t pos; /* where the edit applies */
    edit_t edit;
    uint8_t value;     /* SET_U8 */
    const char *bytes; /* INSERT */
    size_t nbytes;
    lg_err_t err;
    size_t where; /* expected offset and record in the diagnostic */
    unsigned record;
    const char *message;
} bad_case_t;

static const bad_case_t bad_cases[] = {
    /* Record types. */
    {"type 2", false, REND, INSERT, 0, "\x02", 1, LG_EFORMAT, REND, 6,
     "expected a record type 1 or 3-9, found 2 (0x02)"},
    {"type 0 first", false, R0, SET_U8, 0, NULL, 0, LG_EFORMAT, R0, 0,
     "expected a record type 1 or 3-9, found 0 (0x00)"},
    {"type 0xFF", false, R3, SET_U8, 0xFF, NULL, 0, LG_EFORMAT, R3, 3,
     "expected a record type 1 or 3-9, found 255 (0xff)"},
    {"type 10", false, R4, SET_U8, 10, NULL, 0, LG_EFORMAT, R4, 4,
     "expected a record type 1 or 3-9, found 10 (0x0a)"},

    /* Groups. */
    {"group never ends", false, R5, CUT, 0, NULL, 0, LG_EFORMAT, R5, 5,
     "expected END CURRENT LINE (6) to close the group opened at 0x9 (record 1), found the end "
     "of the file"},
    {"END without a group", false, REND, INSERT, 0, "\x06", 1, LG_EFORMAT, REND, 6,
     "expected CREATE MODULE MAPPING (1) or CURRENT LINE (3) outside a group, found END CURRENT "
     "LINE (6)"},
    {"END first", false, R0, INSERT, 0, "\x06", 1, LG_EFORMAT, R0, 0,
     "outside a group, found END CURRENT LINE (6)"},
    {"nested group", false, R5, INSERT, 0, "\x03\x00\x01\x00\x00\x00\x1e\x00", 8, LG_EFORMAT, R5, 5,
     "expected END CURRENT LINE (6) before the next CURRENT LINE (3), found the group opened at "
     "0x9 (record 1) still open"},
    {"BACKTRACE outside a group", false, REND, INSERT, 0, "\x05\x00\x01\x00\x00\x00\x01\x00", 8,
     LG_EFORMAT, REND, 6, "outside a group, found BACKTRACE INFORMATION (5)"},
    {"TIME outside a group", false, REND, INSERT, 0, "\x04\0\0\0\0\0\0\0\x01", 9, LG_EFORMAT, REND,
     6, "outside a group, found TIME SPENT IN LINE (4)"},
    {"FUNCTION NAME outside a group", false, REND, INSERT, 0, "\x07\x01X", 3, LG_EFORMAT, REND, 6,
     "outside a group, found FUNCTION NAME (7)"},
    {"GOSUB outside a group", false, R1, INSERT, 0, "\x08", 1, LG_EFORMAT, R1, 1,
     "outside a group, found GOSUB (8)"},
    {"MAIN ROUTINE outside a group", false, REND, INSERT, 0, "\x09", 1, LG_EFORMAT, REND, 6,
     "outside a group, found MAIN ROUTINE (9)"},

    /* Truncated records and lengths past the end. */
    {"CURRENT LINE cut", false, REND, INSERT, 0, "\x03\x00\x01", 3, LG_EFORMAT, REND, 6,
     "expected 8 bytes of CURRENT LINE (3), found only 3 before the end of the file"},
    {"BACKTRACE cut", false, R3 + 7, CUT, 0, NULL, 0, LG_EFORMAT, R3, 3,
     "expected 8 bytes of BACKTRACE INFORMATION (5), found only 7 before the end of the file"},
    {"TIME cut", true, T_TIME + 8, CUT, 0, NULL, 0, LG_EFORMAT, T_TIME, 3,
     "expected 9 bytes of TIME SPENT IN LINE (4), found only 8 before the end of the file"},
    {"module mapping cut", false, 4, CUT, 0, NULL, 0, LG_EFORMAT, R0, 0,
     "expected 5 bytes of CREATE MODULE MAPPING (1), found only 4 before the end of the file"},
    {"module name past the end", false, REND, INSERT, 0,
     "\x01\x00\x02\x00\x10"
     "ab",
     7, LG_EFORMAT, REND, 6, "module name length 16 runs past the end of the file (2 bytes left)"},
    {"module name cut", false, R1 - 1, CUT, 0, NULL, 0, LG_EFORMAT, R0, 0,
     "module name length 4 runs past the end of the file (3 bytes left)"},
    {"function name cut", false, R2 + 4, CUT, 0, NULL, 0, LG_EFORMAT, R2, 2,
     "function name length 3 runs past the end of the file (2 bytes left)"},
    {"function name length past the end", false, R2 + 1, SET_U8, 200, NULL, 0, LG_EFORMAT, R2, 2,
     "function name length 200 runs past the end of the file (13 bytes left)"},
    {"FUNCTION NAME cut after its type", false, R2 + 1, CUT, 0, NULL, 0, LG_EFORMAT, R2, 2,
     "expected 2 bytes of FUNCTION NAME (7), found only 1 before the end of the file"},
    {"module name longer than the limit", false, R0 + 3, SET_U8, 0xFF, NULL, 0, LG_ELIMIT, R0, 0,
     "module name length 65284 exceeds the 4096 bytes lorgen reads (LG_BR_MAX_NAME)"},

    /* Modules. */
    {"frame in an unmapped module", false, R3 + 2, SET_U8, 9, NULL, 0, LG_EFORMAT, R3, 3,
     "expected a module number mapped by an earlier CREATE MODULE MAPPING (1), found module 9"},
    {"current line in an unmapped module", false, R1 + 1, SET_U8, 1, NULL, 0, LG_EFORMAT, R1, 1,
     "found module 257"},
    {"module name with a NUL", false, R0 + 6, SET_U8, 0, NULL, 0, LG_EFORMAT, R0, 0,
     "expected a module name without NUL bytes, found one at byte 1"},

    /* Marks. */
    {"second FUNCTION NAME", false, R3, INSERT, 0,
     "\x07\x02"
     "FB",
     4, LG_EFORMAT, R3, 3,
     "expected at most one FUNCTION NAME (7) per frame, found a second one for the frame at 0x9 "
     "(record 1)"},
    {"MAIN ROUTINE with a name", false, R3, INSERT, 0, "\x09", 1, LG_EFORMAT, R3, 3,
     "expected MAIN ROUTINE (9) as the only mark of a frame, found it with FUNCTION NAME (7) on "
     "the frame at 0x9 (record 1)"},
    {"GOSUB after MAIN ROUTINE", false, R5, INSERT, 0, "\x08", 1, LG_EFORMAT, R5, 5,
     "expected MAIN ROUTINE (9) as the only mark of a frame, found it with GOSUB (8) on the "
     "frame at 0x16 (record 3)"},
    {"second MAIN ROUTINE", false, R5, INSERT, 0, "\x09", 1, LG_EFORMAT, R5, 5,
     "expected at most one MAIN ROUTINE (9) per frame, found a second one for the frame at 0x16 "
     "(record 3)"},
    {"second GOSUB", false, R4, INSERT, 0, "\x08\x08", 2, LG_EFORMAT, R4 + 1, 5,
     "expected at most one GOSUB (8) per frame"},
    {"empty function name", false, R2 + 1, SET_U8, 0, NULL, 0, LG_EFORMAT, R2, 2,
     "expected a function name, found an empty one"},
    {"function name with a NUL", false, R2 + 3, SET_U8, 0, NULL, 0, LG_EFORMAT, R2, 2,
     "expected a function name without NUL bytes, found one at byte 1"},

    /* Time. */
    {"second TIME", true, T_BT, INSERT, 0, "\x04\0\0\0\0\0\0\0\x07", 9, LG_EFORMAT, T_BT, 4,
     "expected at most one TIME SPENT IN LINE (4) per group, found a second one (the first is at "
     "0x16)"},
    {"TIME in a SAMPLED file", false, REND, INSERT, 0,
     "\x03\x00\x01\x00\x00\x00\x0a\x00"
     "\x04\0\0\0\0\0\0\0\x01"
     "\x06",
     18, LG_EFORMAT, REND + 8, 7,
     "expected no TIME SPENT IN LINE (4) in a SAMPLED file (the first group, at 0x9, has none), "
     "found one"},
    {"no TIME in a TIMED file", true, T_EOF, INSERT, 0, "\x03\x00\x01\x00\x00\x00\x0a\x00\x06", 9,
     LG_EFORMAT, T_EOF + 8, 8,
     "expected a TIME SPENT IN LINE (4) in every group of a TIMED file (the first group, at 0x9, "
     "has one), found none in the group opened at 0x29 (record 7)"},
};

static uint8_t *apply_edit(const bad_case_t *c, size_t *size)
{
    uint8_t *data = c->timed ? build_small_timed(size) : build_small(size);
    switch (c->edit) {
    case SET_U8:
        assert_true(c->pos < *size);
        data[c->pos] = c->value;
        break;
    case CUT:
        assert_true(c->pos <= *size);
        *size = c->pos;
        break;
    case INSERT: {
        uint8_t *grown = realloc(data, *size + c->nbytes);
        assert_non_null(grown);
        data = grown;
        memmove(data + c->pos + c->nbytes, data + c->pos, *size - c->pos);
        memcpy(data + c->pos, c->bytes, c->nbytes);
        *size += c->nbytes;
        break;
    }
    }
    return data;
}

/* Loads data and checks: the error, exactly one diagnostic "t.br:0xWHERE: record N: ..." holding
 * the message, and an empty profile. */
static void expect_failure_limited(const char *label, const uint8_t *data, size_t size,
                                   const lg_br_limits_t *limits, lg_err_t err, size_t where,
                                   unsigned record, const char *message)
{
    char at[128];
    snprintf(at, sizeof at, "t.br:0x%zx: record %u: ", where, record);
    lg_test_loaded_t r;
    load_limited(&r, data, size, limits);
    bool ok = r.err == err && r.d.count == 1 && r.d.errors == 1 &&
              lg_test_diag_has(&r.d, LG_ERROR, at) &&
              (message == NULL || lg_test_diag_has(&r.d, LG_ERROR, message));
    if (!ok) {
        print_message("case '%s': got %s, expected %s at '%s': '%s'\n", label, lg_strerror(r.err),
                      lg_strerror(err), at, message ? message : "");
        lg_test_diag_dump(&r.d);
    }
    assert_true(ok);
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);
}

static void expect_failure(const char *label, const uint8_t *data, size_t size, lg_err_t err,
                           size_t where, unsigned record, const char *message)
{
    expect_failure_limited(label, data, size, NULL, err, where, record, message);
}

static void test_malformed_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case_t *c = &bad_cases[i];
        size_t size;
        uint8_t *data = apply_edit(c, &size);
        expect_failure(c->label, data, size, c->err, c->where, c->record, c->message);
        free(data);
    }
}

/* The small fixtures load, so every failure above is the edit's. */
static void test_small_fixtures_load(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = build_small(&size);
    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(edge_weight(&r.p, "(main)", "a.br", "FNA", "a.br"), 1);
    lg_test_loaded_destroy(&r);
    free(data);
    data = build_small_timed(&size);
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(edge_weight(&r.p, "(main)", "a.br", "FNA", "a.br"), 5);
    lg_test_loaded_destroy(&r);
    free(data);
}

/* Each limit stops the load with LG_ELIMIT at the record that passes it. */
static void test_limits(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = build_small(&size);

    lg_br_limits_t frames = LG_BR_LIMITS_DEFAULT;
    frames.max_frames = 1;
    expect_failure_limited("frames", data, size, &frames, LG_ELIMIT, R3, 3,
                           "sample has more than 1 frames (LG_BR_MAX_FRAMES)");
    frames.max_frames = 2;
    lg_test_loaded_t r;
    load_limited(&r, data, size, &frames);
    lg_test_assert_loaded_clean(&r);
    lg_test_loaded_destroy(&r);

    lg_br_limits_t records = LG_BR_LIMITS_DEFAULT;
    records.max_records = 3;
    expect_failure_limited("records", data, size, &records, LG_ELIMIT, R3, 3,
                           "file has more than 3 records (LG_BR_MAX_RECORDS)");
    records.max_records = 6;
    load_limited(&r, data, size, &records);
    lg_test_assert_loaded_clean(&r);
    lg_test_loaded_destroy(&r);

    lg_br_limits_t names = LG_BR_LIMITS_DEFAULT;
    names.max_name = 3;
    expect_failure_limited("module name", data, size, &names, LG_ELIMIT, R0, 0,
                           "module name length 4 exceeds the 3 bytes lorgen reads");
    names.max_name = 4;
    load_limited(&r, data, size, &names);
    lg_test_assert_loaded_clean(&r);
    lg_test_loaded_destroy(&r);
    data[R2 + 1] = 5; /* FUNCTION NAME "FNA" claiming 5 bytes */
    expect_failure_limited("function name", data, size, &names, LG_ELIMIT, R2, 2,
                           "function name length 5 exceeds the 4 bytes lorgen reads");
    free(data);
}

/* LG_BR_MAX_FRAMES itself: a sample of exactly that many frames loads, one more fails. */
static void test_default_frame_limit(void **state)
{
    (void)state;
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, "deep.br");
    lg_br_write_current_line(&w, 1, 1, 0);
    lg_br_write_function_name(&w, "FNR");
    for (uint32_t i = 1; i < LG_BR_MAX_FRAMES; i++) {
        lg_br_write_backtrace(&w, 1, 1, 0);
        lg_br_write_function_name(&w, "FNR");
    }
    size_t end_at = w.buf.size;
    uint64_t end_record = w.records;
    lg_br_write_end(&w);
    size_t size;
    uint8_t *data = finish(&w, &size);
    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 1);
    assert_int_equal(edge_weight(&r.p, "FNR", "deep.br", "FNR", "deep.br"), LG_BR_MAX_FRAMES - 1);
    assert_int_equal(r.p.funcs[0].counter1_total, 1);
    lg_test_loaded_destroy(&r);

    /* One frame more, in place of the END record. */
    uint8_t *grown = realloc(data, end_at + FRAME + 1);
    assert_non_null(grown);
    data = grown;
    memcpy(data + end_at, "\x05\x00\x01\x00\x00\x00\x01\x00\x06", FRAME + 1);
    expect_failure("deep", data, end_at + FRAME + 1, LG_ELIMIT, end_at, (unsigned)end_record,
                   "sample has more than 65536 frames (LG_BR_MAX_FRAMES)");
    free(data);
}

/* Every prefix of a valid file either is itself a valid file (it ends between groups) or fails
 * with one diagnostic and an empty profile; none crashes. */
static void check_every_prefix(const uint8_t *data, size_t size, const size_t *boundaries,
                               size_t nboundaries)
{
    for (size_t len = 0; len <= size; len++) {
        bool boundary = false;
        for (size_t i = 0; i < nboundaries; i++)
            boundary = boundary || boundaries[i] == len;
        lg_test_loaded_t r;
        load(&r, data, len);
        if (boundary) {
            if (r.err != LG_OK)
                lg_test_diag_dump(&r.d);
            assert_int_equal(r.err, LG_OK);
            assert_int_equal(r.d.errors, 0);
        } else {
            if (r.err == LG_OK || r.d.count != 1 || r.d.errors != 1) {
                print_message("prefix of %zu bytes: %s\n", len, lg_strerror(r.err));
                lg_test_diag_dump(&r.d);
            }
            assert_int_equal(r.err, LG_EFORMAT);
            assert_int_equal(r.d.count, 1);
            lg_test_assert_profile_empty(&r.p);
        }
        lg_test_loaded_destroy(&r);
    }
}

static void test_every_truncation(void **state)
{
    (void)state;
    for (int timed = 0; timed <= 1; timed++) {
        lg_br_writer_t w;
        lg_br_writer_init(&w);
        size_t at[8], n = 0;
        at[n++] = 0;
        lg_br_write_module(&w, 1, "p.br");
        at[n++] = w.buf.size;
        const lg_br_frame_t s1[] = {{1, 10, 0, LG_BR_MARK_FUNCTION, "FNA"},
                                    {1, 20, 1, LG_BR_MARK_GOSUB, NULL},
                                    {1, 30, 0, LG_BR_MARK_MAIN, NULL}};
        lg_br_write_sample(&w, s1, 3, timed, 7);
        at[n++] = w.buf.size;
        lg_br_write_module(&w, 2, "q.br");
        at[n++] = w.buf.size;
        const lg_br_frame_t s2[] = {{2, 40, 0, LG_BR_MARK_NONE, NULL},
                                    {1, 10, 0, LG_BR_MARK_FUNCTION, "FNA"}};
        lg_br_write_sample(&w, s2, 2, timed, 9);
        at[n++] = w.buf.size;
        size_t size;
        uint8_t *data = finish(&w, &size);
        check_every_prefix(data, size, at, n);
        free(data);
    }
}

/* No length in the layout is wider than 16 bits; the widest, 0xFFFF, must not make the reader
 * wait for or allocate what is not there. */
static void test_absurd_lengths_fail_fast(void **state)
{
    (void)state;
    static const uint8_t file[] = {0x01, 0x00, 0x01, 0xFF, 0xFF, 'a', 'b', 'c'};
    lg_br_limits_t wide = LG_BR_LIMITS_DEFAULT;
    wide.max_name = UINT16_MAX;
    clock_t start = clock();
    expect_failure("0xFFFF, default limits", file, sizeof file, LG_ELIMIT, 0, 0,
                   "module name length 65535 exceeds the 4096 bytes lorgen reads");
    expect_failure_limited("0xFFFF, no name limit", file, sizeof file, &wide, LG_EFORMAT, 0, 0,
                           "module name length 65535 runs past the end of the file (3 bytes "
                           "left)");
    /* The same through a file, where the reader refills its window. */
    lg_test_loaded_t r;
    load_file(&r, lg_test_write_file("ffff.br", file, sizeof file));
    assert_int_equal(r.err, LG_ELIMIT);
    assert_int_equal(r.d.count, 1);
    lg_test_loaded_destroy(&r);
    static const uint8_t fname[] = {0x01, 0, 1, 0, 1, 'a',  0x03, 0,  1,
                                    0,    0, 0, 1, 0, 0x07, 0xFF, 'F'};
    expect_failure("0xFF function name", fname, sizeof fname, LG_EFORMAT, 14, 2,
                   "function name length 255 runs past the end of the file (1 bytes left)");
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    assert_true(seconds < FAIL_FAST_SECONDS);
}

/* ---- Streaming -------------------------------------------------------------------------- */

/* Samples of the big file: enough to need many refills of the reader's window. */
#define BIG_SAMPLES 200000u
/* Under LORGEN_TEST_SMALL: still over 1 MiB, four refills of the 256 KiB window and some fifty
 * long names to straddle them. */
#define SMALL_BIG_SAMPLES 50000u
/* Lines each function is sampled at, and the functions. */
#define BIG_LINES 50u
#define BIG_FUNCS 20u
/* A long module name every so often, so that records straddle the window's refills. */
#define BIG_LONG_NAME_EVERY 997u

static void test_big_file_streams(void **state)
{
    (void)state;
    char long_name[LG_BR_MAX_NAME + 1];
    memset(long_name, 'n', LG_BR_MAX_NAME);
    long_name[LG_BR_MAX_NAME] = '\0';
    uint32_t samples = BIG_SAMPLES;
    size_t min_size = 4u * 1024u * 1024u;
    if (lg_test_small("a big file of 50,000 samples, not 200,000")) {
        samples = SMALL_BIG_SAMPLES;
        min_size = 1024u * 1024u;
    }
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, "big.br");
    lg_br_write_module(&w, 2, long_name);
    char names[BIG_FUNCS][16];
    for (unsigned i = 0; i < BIG_FUNCS; i++)
        snprintf(names[i], sizeof names[i], "FNF%u", i);
    for (uint32_t s = 0; s < samples; s++) {
        if (s % BIG_LONG_NAME_EVERY == 0)
            lg_br_write_module(&w, 2, long_name);
        const lg_br_frame_t frames[] = {
            {1, 1000 + s % BIG_LINES, 0, LG_BR_MARK_FUNCTION, names[s % BIG_FUNCS]},
            {2, 10, 0, LG_BR_MARK_FUNCTION, names[(s / 7) % BIG_FUNCS]},
            {1, 5, 0, LG_BR_MARK_MAIN, NULL}};
        lg_br_write_sample(&w, frames, 3, true, s % 3);
    }
    size_t size;
    uint8_t *data = finish(&w, &size);
    assert_true(size > min_size);

    lg_test_loaded_t mem, file;
    load(&mem, data, size);
    lg_test_assert_loaded_clean(&mem);
    load_file(&file, lg_test_write_file("big.br", data, size));
    lg_test_assert_loaded_clean(&file);
    free(data);

    /* Sums, not lists: one cost per (function, line), one edge per pair. */
    assert_int_equal(mem.p.total_hits, samples);
    assert_int_equal(mem.p.nfuncs, 2 * BIG_FUNCS + 1);
    assert_true(mem.p.ncosts <= BIG_FUNCS * BIG_LINES);
    assert_true(mem.p.nedges <= BIG_FUNCS * BIG_FUNCS + BIG_FUNCS);

    /* Window or whole buffer: the same profile. */
    const lg_profile_t *a = &mem.p, *b = &file.p;
    assert_int_equal(a->nfuncs, b->nfuncs);
    for (size_t i = 0; i < a->nfuncs; i++) {
        assert_string_equal(a->funcs[i].name, b->funcs[i].name);
        assert_string_equal(a->funcs[i].qual_name, b->funcs[i].qual_name);
        assert_int_equal(a->funcs[i].hits, b->funcs[i].hits);
        assert_int_equal(a->funcs[i].counter1_self, b->funcs[i].counter1_self);
        assert_int_equal(a->funcs[i].counter1_total, b->funcs[i].counter1_total);
    }
    assert_int_equal(a->nedges, b->nedges);
    assert_memory_equal(a->edges, b->edges, a->nedges * sizeof *a->edges);
    assert_int_equal(a->ncosts, b->ncosts);
    for (size_t i = 0; i < a->ncosts; i++) { /* field by field: lg_pcost_t has padding */
        assert_int_equal(a->costs[i].func, b->costs[i].func);
        assert_int_equal(a->costs[i].position, b->costs[i].position);
        assert_int_equal(a->costs[i].cost, b->costs[i].cost);
    }

    /* The weights add up to the sum of the samples' times, whichever way they are cut. */
    uint64_t time_sum = 0, self_sum = 0, cost_sum = 0;
    for (uint32_t s = 0; s < samples; s++)
        time_sum += s % 3;
    for (size_t i = 0; i < a->nfuncs; i++)
        self_sum += a->funcs[i].counter1_self;
    for (size_t i = 0; i < a->ncosts; i++)
        cost_sum += a->costs[i].cost;
    assert_true(self_sum == time_sum);
    assert_true(cost_sum == time_sum);
    assert_true(func(a, "(main)", "big.br")->counter1_total == time_sum);
    lg_test_loaded_destroy(&mem);
    lg_test_loaded_destroy(&file);
}

/* ---- Empty files, unreadable files, probing --------------------------------------------- */

static void test_files_without_samples(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load(&r, NULL, 0);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.errors, 0);
    assert_int_equal(r.d.warnings, 1);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, "t.br: no samples"));
    assert_int_equal(r.p.nfuncs, 0);
    assert_string_equal(r.p.format, "br");
    assert_string_equal(r.p.counter1_unit, "samples");
    assert_false(r.p.has_call_edges);
    lg_test_loaded_destroy(&r);

    static const uint8_t modules_only[] = {1, 0, 1, 0, 2, 'a', 'b', 1, 0, 2, 0, 1, 'c'};
    load(&r, modules_only, sizeof modules_only);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.warnings, 1);
    assert_int_equal(r.p.nfuncs, 0);
    lg_test_loaded_destroy(&r);
}

static void test_unreadable_files(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, LORGEN_TEST_TMPDIR "/no-such.br");
    assert_int_equal(r.err, LG_EIO);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, "no-such.br: cannot open: No such file"));
    assert_int_equal(r.d.count, 1);
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);

    /* A directory opens but cannot be read (on Linux). */
    load_file(&r, LORGEN_TEST_TMPDIR);
    assert_int_equal(r.err, LG_EIO);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, "cannot "));
    assert_int_equal(r.d.count, 1);
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);
}

static void test_probe(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = build_program(true, &size);
    for (size_t len = MODULE_FIXED + 1; len <= size; len++)
        assert_true(lg_br_probe(data, len));
    assert_false(lg_br_probe(data, MODULE_FIXED));
    free(data);

    data = build_small(&size);
    assert_true(lg_br_probe(data, size));
    data[R4] = 2; /* an undefined record type */
    assert_false(lg_br_probe(data, size));
    assert_true(lg_br_probe(data, R4)); /* what comes before it is fine */
    data[R4] = LG_BR_MAIN_ROUTINE;
    data[R3 + 2] = 9; /* a frame in an unmapped module */
    assert_false(lg_br_probe(data, size));
    data[R3 + 2] = 1;
    data[R0 + 6] = '\n'; /* a control character in the module name */
    assert_false(lg_br_probe(data, size));
    free(data);

    /* A big file: the probe sees only its head, cut inside a record. */
    static const uint8_t unmapped_first[] = {3, 0, 1, 0, 0, 0, 1, 0, 6};
    static const uint8_t nested[] = {1, 0, 1, 0, 1, 'a', 3, 0, 1, 0, 0,
                                     0, 1, 0, 3, 0, 1,   0, 0, 0, 1, 0};
    static const uint8_t end_first[] = {1, 0, 1, 0, 1, 'a', 6};
    static const uint8_t unnamed_first[] = {1, 0, 1, 0, 0, 3, 0, 1, 0, 0, 0, 1, 0, 6};
    static const uint8_t long_name[] = {1, 0, 1, 0x10, 0x01, 'a', 'b'}; /* 4097 bytes */
    assert_false(lg_br_probe(unmapped_first, sizeof unmapped_first));
    assert_false(lg_br_probe(nested, sizeof nested));
    assert_false(lg_br_probe(end_first, sizeof end_first));
    assert_false(lg_br_probe(unnamed_first, sizeof unnamed_first));
    assert_false(lg_br_probe(long_name, sizeof long_name));

    /* Other formats. */
    static const char *texts[] = {"PROFILER FILE:\x55\0\0\0",
                                  "\x7f"
                                  "ELF\x02\x01\x01",
                                  "events: Ir\n",
                                  "# ========\n# captured on: x\n",
                                  "main 1234 5.0: cycles:\n",
                                  ""};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        assert_false(lg_br_probe((const uint8_t *)texts[i], strlen(texts[i])));
    assert_false(lg_br_probe(NULL, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sampled_profile),
        cmocka_unit_test(test_timed_profile),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_single_frame_samples_have_no_edges),
        cmocka_unit_test(test_modules_are_names),
        cmocka_unit_test(test_marks_and_names),
        cmocka_unit_test(test_huge_times_saturate),
        cmocka_unit_test(test_record_bytes),
        cmocka_unit_test(test_writer_limits),
        cmocka_unit_test(test_small_fixtures_load),
        cmocka_unit_test(test_malformed_files),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_default_frame_limit),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_absurd_lengths_fail_fast),
        cmocka_unit_test(test_big_file_streams),
        cmocka_unit_test(test_files_without_samples),
        cmocka_unit_test(test_unreadable_files),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
