/* test_prf.c - the CodeScape .prf reader and writer.
 *
 * Fixtures are built with the writer; malformed ones are valid fixtures with bytes changed
 * afterwards. The byte offsets below restate the guide's Appendix B (with its typos corrected,
 * see docs/loaders/prf.md) so the code is checked against the layout, not against itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "prf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* ---- The layout ------------------------------------------------------------------------- */

enum {
    HDR = 14,                  /* file offset of the header's size field */
    HDR_END = 14 + 4 + 0x55,   /* file offset of the first byte after the header */
    H_VERSION = 4,             /* header fields, from the start of its size field */
    H_ICACHE = 7,
    H_DAY = 8,
    H_SECOND = 13,
    H_TYPE = 14,
    H_TOTAL_HITS = 15,
    H_C1_TOTAL = 23,
    H_C1_SELF = 31,
    H_C2_TOTAL = 39,
    H_C2_SELF = 47,
    H_C1_KIND = 55,
    H_C2_KIND = 56,
    H_NOVERLAYS = 57,
    H_NFUNCS = 61,
    H_NCALLS = 65,
    H_OVERLAY_OFFSET = 69,
    H_FUNC_OFFSET = 73,
    H_TRACE_OFFSET = 77,
    H_SPARE = 81,
    H_SPARE_BYTES = 8,
    OVERLAY_BYTES = 20,        /* an overlay record, size field included */
    F_DESCRIPTION = 4,         /* function data fields */
    F_CACHE_LINE = 7,
    F_PC_MIN = 9,
    F_PC_MAX = 13,
    F_HITS = 37,
    F_C2_SELF = 69,
    F_NAME_LEN = 77,
    F_NAME = 79,
    C_KIND = 4,                /* trace call fields */
    C_NUMBER = 5,
    C_PC_MIN = 14,
    C_HITS = 42,
    C_NAME_LEN = 82,
    R_NUMBER = 5,              /* trace return fields */
    RETURN_BYTES = 9,
};

/* Counters derived from hits, so the checks can recompute them. */
#define C1_TOTAL_PER_HIT 100u
#define C1_SELF_PER_HIT 60u
#define C2_TOTAL_PER_HIT 7u
#define C2_SELF_PER_HIT 3u
#define PC_MIN 0x8c010000u
#define PC_MAX 0x8c0100fcu

/* Room for the largest fixture's open calls. */
#define FIXTURE_MAX_DEPTH 16

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void add32(uint8_t *p, uint32_t delta)
{
    put32(p, get32(p) + delta);
}

/* ---- Fixtures --------------------------------------------------------------------------- */

typedef struct fixture {
    lg_prf_writer_t w;
    uint32_t open[FIXTURE_MAX_DEPTH];
    size_t depth;
    uint32_t next_call;
} fixture_t;

static lg_prf_header_t header_of(uint8_t type)
{
    return (lg_prf_header_t){.version = 3, .icache_enabled = 1, .day = 24, .month = 12,
                             .year = 99, .hour = 23, .minute = 59, .second = 58, .type = type,
                             .total_hits = 1234, .counter1_total = 5000, .counter1_self = 4000,
                             .counter2_total = 300, .counter2_self = 200,
                             .counter1_kind = 0x23, .counter2_kind = 0x08};
}

static lg_prf_record_fields_t fields(const char *name, const char *qual, uint64_t hits)
{
    return (lg_prf_record_fields_t){
        .description = 1, .cache_line = 0xFFFF, .pc_min = PC_MIN, .pc_max = PC_MAX,
        .overlay_area = UINT32_MAX, .overlay_id = UINT32_MAX, .group_id = UINT32_MAX,
        .hits = hits, .counter1_total = hits * C1_TOTAL_PER_HIT,
        .counter1_self = hits * C1_SELF_PER_HIT, .counter2_total = hits * C2_TOTAL_PER_HIT,
        .counter2_self = hits * C2_SELF_PER_HIT, .name = name, .qual_name = qual};
}

static void fx_init(fixture_t *fx, uint8_t type)
{
    memset(fx, 0, sizeof *fx);
    lg_prf_header_t h = header_of(type);
    lg_prf_writer_init(&fx->w, &h);
}

static size_t fx_function(fixture_t *fx, lg_prf_record_fields_t f)
{
    size_t at = fx->w.buf.size;
    lg_prf_write_function(&fx->w, &f);
    return at;
}

static size_t fx_call(fixture_t *fx, lg_prf_record_fields_t f)
{
    assert_true(fx->depth < FIXTURE_MAX_DEPTH);
    size_t at = fx->w.buf.size;
    uint32_t number = ++fx->next_call;
    fx->open[fx->depth++] = number;
    lg_prf_write_call(&fx->w, number, &f);
    return at;
}

static size_t fx_return(fixture_t *fx)
{
    assert_true(fx->depth > 0);
    size_t at = fx->w.buf.size;
    lg_prf_write_return(&fx->w, fx->open[--fx->depth]);
    return at;
}

/* Finishes the file and hands its bytes to the caller (free them). */
static uint8_t *fx_finish(fixture_t *fx, size_t *size)
{
    assert_int_equal(lg_prf_writer_finish(&fx->w), LG_OK);
    uint8_t *data = fx->w.buf.data;
    *size = fx->w.buf.size;
    fx->w.buf.data = NULL;
    lg_prf_writer_destroy(&fx->w);
    return data;
}

static void load(lg_test_loaded_t *r, const uint8_t *data, size_t size)
{
    lg_test_load_bytes(r, lg_prf_read, data, size, "t.prf", NULL);
}

static void load_file(lg_test_loaded_t *r, const char *path)
{
    lg_test_load_file(r, lg_prf_read, path, NULL);
}

/* The weight of caller -> callee, or -1 when there is no such edge. */
static int64_t edge_weight(const lg_profile_t *p, const char *caller, const char *caller_qual,
                           const char *callee, const char *callee_qual)
{
    return lg_test_edge_weight(p, lg_test_func_index(p, caller, caller_qual),
                               lg_test_func_index(p, callee, callee_qual));
}

/* ---- A realistic trace ------------------------------------------------------------------- */

/* The guide's tutorial program, plus a second path to GetLastNode, two statics named Helper
 * told apart by their qualified names, recursion, and an interrupt handler with no caller. */
static uint8_t *build_list_program(size_t *size)
{
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_TRACE);
    lg_prf_write_overlay(&fx.w, 0, 0x8c100000u, 0x8c108000u, 2);
    fx_function(&fx, fields("main", NULL, 1));
    fx_function(&fx, fields("BuildList", NULL, 1));
    fx_function(&fx, fields("GetNewNode", NULL, 10));
    fx_function(&fx, fields("MallocNode", NULL, 10));
    fx_function(&fx, fields("GetLastNode", NULL, 12));
    fx_function(&fx, fields("PrintList", NULL, 1));
    fx_function(&fx, fields("Helper", "list.c", 2));
    fx_function(&fx, fields("Helper", "print.c", 7));
    fx_function(&fx, fields("Fact", NULL, 3));
    lg_prf_record_fields_t irq = fields("VBlankIRQ", NULL, 2);
    irq.description = 5; /* interrupt VBR + 0x600 */
    irq.link_label = "_VBlankIRQ";
    fx_function(&fx, irq);

    /* Indentation follows the nesting of the calls. */
    fx_call(&fx, fields("main", NULL, 1));
        fx_call(&fx, fields("BuildList", NULL, 1));
            fx_call(&fx, fields("GetNewNode", NULL, 10));
                fx_call(&fx, fields("MallocNode", NULL, 10));
                fx_return(&fx);
            fx_return(&fx);
            fx_call(&fx, fields("GetLastNode", NULL, 4));
            fx_return(&fx);
            fx_call(&fx, fields("GetLastNode", NULL, 5));
            fx_return(&fx);
            fx_call(&fx, fields("Helper", "list.c", 2));
            fx_return(&fx);
        fx_return(&fx);
        fx_call(&fx, fields("PrintList", NULL, 1));
            fx_call(&fx, fields("GetLastNode", NULL, 3));
            fx_return(&fx);
            fx_call(&fx, fields("Helper", "print.c", 7));
            fx_return(&fx);
        fx_return(&fx);
        fx_call(&fx, fields("Fact", NULL, 1));
            fx_call(&fx, fields("Fact", NULL, 1));
                fx_call(&fx, fields("Fact", NULL, 1));
                fx_return(&fx);
            fx_return(&fx);
        fx_return(&fx);
    fx_return(&fx);
    fx_call(&fx, irq);
    fx_return(&fx);
    assert_int_equal(fx.depth, 0);
    return fx_finish(&fx, size);
}

static void check_list_program(const lg_profile_t *p, const char *path)
{
    assert_string_equal(p->path, path);
    assert_string_equal(p->format, "prf");
    assert_int_equal(p->kind, LG_PROFILE_TRACE);
    assert_true(p->has_call_edges);
    assert_int_equal(p->counter1_kind, 0x23);
    assert_int_equal(p->counter2_kind, 0x08);
    assert_int_equal(p->total_hits, 1234);
    assert_int_equal(p->call_records, 14);
    assert_int_equal(p->nfuncs, 10);

    /* Functions keep file order and their own totals, not totals recomputed from the calls. */
    const lg_pfunc_t *gln = &p->funcs[4];
    assert_string_equal(gln->name, "GetLastNode");
    assert_null(gln->link_label);
    assert_null(gln->qual_name);
    assert_int_equal(gln->hits, 12);
    assert_int_equal(gln->counter1_total, 12 * C1_TOTAL_PER_HIT);
    assert_int_equal(gln->counter1_self, 12 * C1_SELF_PER_HIT);
    assert_int_equal(gln->counter2_total, 12 * C2_TOTAL_PER_HIT);
    assert_int_equal(gln->counter2_self, 12 * C2_SELF_PER_HIT);
    assert_int_equal(gln->pc_min, PC_MIN);
    assert_int_equal(gln->pc_max, PC_MAX);
    assert_int_equal(gln->description, 1);
    assert_string_equal(p->funcs[6].qual_name, "list.c");
    assert_string_equal(p->funcs[7].qual_name, "print.c");
    assert_string_equal(p->funcs[9].link_label, "_VBlankIRQ");
    assert_int_equal(p->funcs[9].description, 5);

    /* Each edge sums the hits of the callee's records directly under the caller's. */
    assert_int_equal(p->nedges, 10);
    assert_int_equal(edge_weight(p, "main", NULL, "BuildList", NULL), 1);
    assert_int_equal(edge_weight(p, "main", NULL, "PrintList", NULL), 1);
    assert_int_equal(edge_weight(p, "main", NULL, "Fact", NULL), 1);
    assert_int_equal(edge_weight(p, "BuildList", NULL, "GetNewNode", NULL), 10);
    assert_int_equal(edge_weight(p, "BuildList", NULL, "GetLastNode", NULL), 9);
    assert_int_equal(edge_weight(p, "BuildList", NULL, "Helper", "list.c"), 2);
    assert_int_equal(edge_weight(p, "GetNewNode", NULL, "MallocNode", NULL), 10);
    assert_int_equal(edge_weight(p, "PrintList", NULL, "GetLastNode", NULL), 3);
    assert_int_equal(edge_weight(p, "PrintList", NULL, "Helper", "print.c"), 7);
    assert_int_equal(edge_weight(p, "Fact", NULL, "Fact", NULL), 2);
    /* Grandparents get nothing, and the interrupt handler has no caller. */
    assert_int_equal(edge_weight(p, "main", NULL, "GetNewNode", NULL), -1);
    for (size_t i = 0; i < p->nedges; i++)
        assert_int_not_equal(p->edges[i].callee, 9);
}

static void test_trace_edges_and_counters(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = build_list_program(&size);

    lg_test_loaded_t mem;
    load(&mem, data, size);
    lg_test_assert_loaded_clean(&mem);
    check_list_program(&mem.p, "t.prf");
    lg_test_loaded_destroy(&mem);

    lg_test_loaded_t file;
    const char *path = lg_test_write_file("list.prf", data, size);
    load_file(&file, path);
    lg_test_assert_loaded_clean(&file);
    check_list_program(&file.p, path);
    lg_test_loaded_destroy(&file);
    free(data);
}

static void test_statistical_profile_has_no_edges(void **state)
{
    (void)state;
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_STATISTICAL);
    fx_function(&fx, fields("main", NULL, 40));
    fx_function(&fx, fields("Idle", NULL, 900));
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);
    assert_int_equal(get32(data + HDR + H_NCALLS), 0);
    assert_int_equal(get32(data + HDR + H_TRACE_OFFSET), 0);

    lg_test_loaded_t r;
    load_file(&r, lg_test_write_file("stat.prf", data, size));
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.kind, LG_PROFILE_STATISTICAL);
    assert_false(r.p.has_call_edges);
    assert_int_equal(r.p.nedges, 0);
    assert_int_equal(r.p.call_records, 0);
    assert_int_equal(r.p.nfuncs, 2);
    assert_string_equal(r.p.funcs[1].name, "Idle");
    assert_int_equal(r.p.funcs[1].hits, 900);
    lg_test_loaded_destroy(&r);
    free(data);
}

static void test_header_bytes(void **state)
{
    (void)state;
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_TRACE);
    lg_prf_write_overlay(&fx.w, 1, 0x8c100000u, 0x8c108000u, 3);
    lg_prf_record_fields_t main_fn = fields("main", NULL, 1);
    main_fn.link_label = "_main";
    size_t func_at = fx_function(&fx, main_fn);
    size_t call_at = fx_call(&fx, main_fn);
    fx_return(&fx);
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);

    assert_memory_equal(data, "PROFILER FILE:", 14);
    assert_int_equal(get32(data + HDR), 0x55);
    const uint8_t *h = data + HDR;
    assert_int_equal(h[H_VERSION], 3);
    assert_int_equal(h[5], 0);
    assert_int_equal(h[6], 0);
    assert_int_equal(h[H_ICACHE], 1);
    assert_int_equal(h[H_DAY], 24);
    assert_int_equal(h[H_SECOND], 58);
    assert_int_equal(h[H_TYPE], LG_PRF_TYPE_TRACE);
    assert_int_equal(get64(h + H_TOTAL_HITS), 1234);
    assert_int_equal(get64(h + H_C1_TOTAL), 5000);
    assert_int_equal(get64(h + H_C1_SELF), 4000);
    assert_int_equal(get64(h + H_C2_TOTAL), 300);
    assert_int_equal(get64(h + H_C2_SELF), 200);
    assert_int_equal(h[H_C1_KIND], 0x23);
    assert_int_equal(h[H_C2_KIND], 0x08);
    assert_int_equal(get32(h + H_NOVERLAYS), 1);
    assert_int_equal(get32(h + H_NFUNCS), 1);
    assert_int_equal(get32(h + H_NCALLS), 1);
    for (int i = 0; i < H_SPARE_BYTES; i++)
        assert_int_equal(h[H_SPARE + i], 0);

    /* Offsets count from the end of the header; the sections follow each other. */
    assert_int_equal(get32(h + H_OVERLAY_OFFSET), 0);
    assert_int_equal(func_at, HDR_END + OVERLAY_BYTES);
    assert_int_equal(get32(h + H_FUNC_OFFSET), OVERLAY_BYTES);
    assert_int_equal(get32(h + H_TRACE_OFFSET), call_at - HDR_END);

    /* The overlay record, then the function record: 79 bytes + "main" + "_main" follow its
     * size field. */
    assert_int_equal(get32(data + HDR_END), 16);
    assert_int_equal(get32(data + HDR_END + 4), 1);
    assert_int_equal(get32(data + HDR_END + 16), 3);
    const uint8_t *f = data + func_at;
    assert_int_equal(get32(f), 79 + 4 + 5);
    assert_int_equal(f[F_DESCRIPTION], 1);
    assert_int_equal(f[F_CACHE_LINE] | f[F_CACHE_LINE + 1] << 8, 0xFFFF);
    assert_int_equal(get32(f + F_PC_MIN), PC_MIN);
    assert_int_equal(get32(f + F_PC_MAX), PC_MAX);
    assert_int_equal(get64(f + F_HITS), 1);
    assert_int_equal(get64(f + F_C2_SELF), C2_SELF_PER_HIT);
    assert_int_equal(f[F_NAME_LEN], 4);
    assert_memory_equal(f + F_NAME, "main", 4);
    assert_int_equal(f[F_NAME + 4], 5);
    assert_memory_equal(f + F_NAME + 6, "_main", 5);
    assert_int_equal(f[F_NAME + 11] | f[F_NAME + 12] << 8, 0);

    /* The call record (84 bytes + strings), then its return (5). */
    const uint8_t *c = data + call_at;
    assert_int_equal(get32(c), 84 + 4 + 5);
    assert_int_equal(c[C_KIND], 0xFF);
    assert_int_equal(get32(c + C_NUMBER), 1);
    assert_int_equal(get32(c + C_PC_MIN), PC_MIN);
    assert_int_equal(get64(c + C_HITS), 1);
    assert_int_equal(c[C_NAME_LEN], 4);
    const uint8_t *ret = c + 4 + get32(c);
    assert_int_equal(get32(ret), 5);
    assert_int_equal(ret[4], 0x00);
    assert_int_equal(get32(ret + R_NUMBER), 1);
    assert_int_equal((size_t)(ret + RETURN_BYTES - data), size);
    free(data);
}

/* ---- Forward compatibility ---------------------------------------------------------------- */

/* Inserts n bytes of fill at `at`. */
static void insert_bytes(uint8_t **data, size_t *size, size_t at, size_t n, uint8_t fill)
{
    uint8_t *grown = realloc(*data, *size + n);
    assert_non_null(grown);
    memmove(grown + at + n, grown + at, *size - at);
    memset(grown + at, fill, n);
    *data = grown;
    *size += n;
}

/* Records of the small trace fixture, in file order. */
enum { AT_FILE, AT_OVERLAY, AT_FN0, AT_FN1, AT_C1, AT_C2, AT_R2, AT_C3, AT_R3, AT_R1, AT_END,
       AT_COUNT };

/* The small trace: one overlay, main and foo, and main calling foo twice:
 *   call 1 main (hits 1) { call 2 foo (hits 2) return 2, call 3 foo (hits 3) return 3 } return 1 */
static uint8_t *build_small_trace(size_t *size, size_t at[AT_COUNT])
{
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_TRACE);
    lg_prf_record_fields_t main_fn = fields("main", NULL, 1), foo = fields("foo", NULL, 5);
    main_fn.link_label = "_main";
    foo.link_label = "_foo";
    at[AT_FILE] = 0;
    at[AT_OVERLAY] = fx.w.buf.size;
    lg_prf_write_overlay(&fx.w, 0, 0x8c100000u, 0x8c108000u, 1);
    at[AT_FN0] = fx_function(&fx, main_fn);
    at[AT_FN1] = fx_function(&fx, foo);
    at[AT_C1] = fx_call(&fx, main_fn);
    foo.hits = 2;
    at[AT_C2] = fx_call(&fx, foo);
    at[AT_R2] = fx_return(&fx);
    foo.hits = 3;
    at[AT_C3] = fx_call(&fx, foo);
    at[AT_R3] = fx_return(&fx);
    at[AT_R1] = fx_return(&fx);
    uint8_t *data = fx_finish(&fx, size);
    at[AT_END] = *size;
    return data;
}

static void check_small_trace(const lg_test_loaded_t *r)
{
    lg_test_assert_loaded_clean(r);
    assert_int_equal(r->p.nfuncs, 2);
    assert_string_equal(r->p.funcs[0].name, "main");
    assert_string_equal(r->p.funcs[0].link_label, "_main");
    assert_int_equal(r->p.funcs[1].hits, 5);
    assert_int_equal(r->p.nedges, 1);
    assert_int_equal(edge_weight(&r->p, "main", NULL, "foo", NULL), 5);
    assert_int_equal(r->p.call_records, 3);
}

/* Grows the record at `record` by n trailing bytes, as a later version of the format might. */
static void grow_record(uint8_t **data, size_t *size, size_t record, size_t n)
{
    insert_bytes(data, size, record + 4 + get32(*data + record), n, 0xA5);
    add32(*data + record, (uint32_t)n);
}

static void test_larger_records_still_load(void **state)
{
    (void)state;
    size_t size, at[AT_COUNT];
    uint8_t *data = build_small_trace(&size, at);

    /* Later records first, so the recorded offsets stay valid. */
    grow_record(&data, &size, at[AT_R1], 3);
    grow_record(&data, &size, at[AT_C2], 11);
    grow_record(&data, &size, at[AT_FN1], 7);
    add32(data + HDR + H_TRACE_OFFSET, 7);
    grow_record(&data, &size, at[AT_OVERLAY], 4);
    add32(data + HDR + H_FUNC_OFFSET, 4);
    add32(data + HDR + H_TRACE_OFFSET, 4);
    /* A longer header moves nothing: its offsets count from its end. */
    insert_bytes(&data, &size, HDR_END, 16, 0x5A);
    add32(data + HDR, 16);

    lg_test_loaded_t r;
    load(&r, data, size);
    check_small_trace(&r);
    lg_test_loaded_destroy(&r);
    free(data);
}

static void test_name_length_counting_a_terminator(void **state)
{
    (void)state;
    size_t size, at[AT_COUNT];
    uint8_t *data = build_small_trace(&size, at);
    /* "main" written as the C string "main\0", its length 5. */
    insert_bytes(&data, &size, at[AT_FN0] + F_NAME + 4, 1, 0);
    data[at[AT_FN0] + F_NAME_LEN] = 5;
    add32(data + at[AT_FN0], 1);
    add32(data + HDR + H_TRACE_OFFSET, 1);

    lg_test_loaded_t r;
    load(&r, data, size);
    check_small_trace(&r);
    lg_test_loaded_destroy(&r);
    free(data);
}

/* ---- Malformed files ---------------------------------------------------------------------- */

typedef enum edit {
    SET_U8,    /* byte at the position = value */
    SET_U32,   /* u32 at the position = value */
    ADD_U32,   /* u32 at the position += value */
    CUT,       /* the file ends at the position */
    APPEND,    /* bytes appended to the file */
} edit_t;

typedef struct bad_case {
    const char *label;
    int anchor; /* AT_* or ST_*: the record the edit is relative to */
    size_t delta;
    edit_t edit;
    uint32_t value;
    const char *bytes; /* APPEND */
    size_t nbytes;
    lg_err_t err;
    int where_anchor; /* the expected location: this record's offset + where_delta ... */
    size_t where_delta;
    const char *record;  /* ... and "header" or "SECTION record N" */
    const char *message; /* expected part of the message */
} bad_case_t;

static const bad_case_t trace_cases[] = {
    {"bad magic", AT_FILE, 0, SET_U8, 'X', NULL, 0, LG_EFORMAT, AT_FILE, 0, "header",
     "expected the magic \"PROFILER FILE:\", found \"XROFILER FILE:\""},
    {"magic cut", AT_FILE, 5, CUT, 0, NULL, 0, LG_EFORMAT, AT_FILE, 0, "header",
     "found \"PROFI\""},
    {"header size field cut", AT_FILE, HDR + 2, CUT, 0, NULL, 0, LG_EFORMAT,
     AT_FILE, HDR, "header", "header size field runs past the end of the file (file is 16"},
    {"header cut", AT_FILE, 50, CUT, 0, NULL, 0, LG_EFORMAT, AT_FILE, HDR, "header",
     "header size 85 runs past the end of the file (file is 50 bytes)"},
    {"header too small", AT_FILE, HDR, SET_U32, 0x54, NULL, 0, LG_EFORMAT, AT_FILE, HDR, "header",
     "expected a header size of at least 85 (0x55), found 84"},
    {"header size huge", AT_FILE, HDR, SET_U32, 0xFFFFFFFFu, NULL, 0, LG_EFORMAT,
     AT_FILE, HDR, "header", "header size 4294967295 runs past the end of the file"},
    {"unknown type", AT_FILE, HDR + H_TYPE, SET_U8, 3, NULL, 0, LG_EFORMAT, AT_FILE,
     HDR + H_TYPE, "header", "expected profile type 1 (statistical) or 2 (trace), found 3"},
    {"too many functions", AT_FILE, HDR + H_NFUNCS, SET_U32, (16u << 20) + 1, NULL, 0,
     LG_ELIMIT, AT_FILE, HDR + H_NFUNCS, "header", "header says 16777217 functions, more than"},
    {"overlay offset past end", AT_FILE, HDR + H_OVERLAY_OFFSET, SET_U32, 0x9999, NULL, 0,
     LG_EFORMAT, AT_FILE, HDR + H_OVERLAY_OFFSET, "header",
     "overlay data offset 0x9999 points past the end of the file"},
    {"function offset past end", AT_FILE, HDR + H_FUNC_OFFSET, SET_U32, 0x9999, NULL, 0,
     LG_EFORMAT, AT_FILE, HDR + H_FUNC_OFFSET, "header",
     "function data offset 0x9999 points past the end of the file (file offset 0x9a00"},
    {"trace offset past end", AT_FILE, HDR + H_TRACE_OFFSET, SET_U32, 0x9999, NULL, 0,
     LG_EFORMAT, AT_FILE, HDR + H_TRACE_OFFSET, "header",
     "trace data offset 0x9999 points past the end of the file"},
    {"trace before functions", AT_FILE, HDR + H_TRACE_OFFSET, SET_U32, 0, NULL, 0, LG_EFORMAT,
     AT_FILE, HDR + H_TRACE_OFFSET, "header",
     "expected the trace data after the function data at 0x7b, found it at 0x67"},
    {"more overlays than there are", AT_FILE, HDR + H_NOVERLAYS, SET_U32, 2, NULL, 0,
     LG_EFORMAT, AT_FN0, 0, "overlay record 1",
     "header says 2 overlays but the overlay data holds only 1 before the function data "
     "begins"},
    {"more functions than there are", AT_FILE, HDR + H_NFUNCS, SET_U32, 3, NULL, 0, LG_EFORMAT,
     AT_C1, 0, "function record 2",
     "header says 3 functions but the function data holds only 2 before the trace records "
     "begin"},
    {"overlay record too small", AT_OVERLAY, 0, SET_U32, 8, NULL, 0, LG_EFORMAT,
     AT_OVERLAY, 0, "overlay record 0",
     "record size 8 is too small for an overlay record (at least 16)"},
    {"function record too small", AT_FN0, 0, SET_U32, 10, NULL, 0, LG_EFORMAT,
     AT_FN0, 0, "function record 0",
     "record size 10 is too small for a function record (at least 79)"},
    {"function record into the trace", AT_FN1, 0, ADD_U32, 1, NULL, 0, LG_EFORMAT,
     AT_FN1, 0, "function record 1", "where the trace records begin"},
    {"function record past the end", AT_FN1, 0, SET_U32, 0x10000, NULL, 0, LG_EFORMAT,
     AT_FN1, 0, "function record 1",
     "record size 65536 runs past the end of the file (file is 619 bytes)"},
    {"name runs past the record", AT_FN0, F_NAME_LEN, SET_U8, 200, NULL, 0, LG_EFORMAT,
     AT_FN0, 0, "function record 0",
     "name length 200 runs past the end of the record"},
    {"label runs past the record", AT_FN0, F_NAME + 4, SET_U8, 60, NULL, 0, LG_EFORMAT,
     AT_FN0, 0, "function record 0",
     "link label length 60 runs past the end of the record (7 bytes left)"},
    {"NUL inside a name", AT_FN0, F_NAME + 1, SET_U8, 0, NULL, 0, LG_EFORMAT,
     AT_FN0, 0, "function record 0",
     "expected a name without NUL bytes, found one at byte 1"},
    {"reversed pc range", AT_FN1, F_PC_MIN, SET_U32, PC_MAX + 4, NULL, 0, LG_EFORMAT,
     AT_FN1, 0, "function record 1",
     "expected pc min <= pc max, found 0x8c010100 > 0x8c0100fc"},
    {"unknown trace kind", AT_C2, C_KIND, SET_U8, 0x7a, NULL, 0, LG_EFORMAT,
     AT_C2, 0, "trace record 1",
     "expected 0xFF (call) or 0x00 (return), found 0x7a"},
    {"call record too small", AT_C2, 0, SET_U32, 5, NULL, 0, LG_EFORMAT,
     AT_C2, 0, "trace record 1",
     "record size 5 is too small for a call record (at least 84)"},
    {"call name runs past the record", AT_C3, C_NAME_LEN, SET_U8, 100, NULL, 0, LG_EFORMAT,
     AT_C3, 0, "trace record 3", "name length 100 runs past the end of the record"},
    {"return record too small", AT_R2, 0, SET_U32, 4, NULL, 0, LG_EFORMAT,
     AT_R2, 0, "trace record 2",
     "record size 4 is too small for a trace record (at least 5)"},
    {"return record past the end", AT_R1, 0, SET_U32, 6, NULL, 0, LG_EFORMAT,
     AT_R1, 0, "trace record 5",
     "record size 6 runs past the end of the file (file is 619 bytes)"},
    {"return for the wrong call", AT_R2, R_NUMBER, SET_U32, 12, NULL, 0, LG_EFORMAT,
     AT_R2, 0, "trace record 2", "return for call 12 but the innermost open call is 2"},
    {"return with nothing open", AT_END, 0, APPEND, 0, "\x05\0\0\0\0\x07\0\0\0", 9, LG_EFORMAT,
     AT_END, 0, "trace record 6", "return for call 7 but no call is open"},
    {"trailing bytes", AT_END, 0, APPEND, 0, "\x05\0", 2, LG_EFORMAT,
     AT_END, 0, "trace record 6",
     "only 2 bytes left before the end of the file, too few for a record size"},
    {"one call never returned", AT_R1, 0, CUT, 0, NULL, 0, LG_EFORMAT,
     AT_R1, 0, "trace record 5",
     "trace ends with 1 call never returned (innermost: call 1 to 'main')"},
    {"two calls never returned", AT_R3, 0, CUT, 0, NULL, 0, LG_EFORMAT,
     AT_R3, 0, "trace record 4",
     "trace ends with 2 calls never returned (innermost: call 3 to 'foo')"},
    {"more calls than the header says", AT_FILE, HDR + H_NCALLS, SET_U32, 2, NULL, 0,
     LG_EFORMAT, AT_C3, 0, "trace record 3", "header says 2 calls, found 3 call records"},
    {"fewer calls than the header says", AT_FILE, HDR + H_NCALLS, SET_U32, 4, NULL, 0,
     LG_EFORMAT, AT_END, 0, "trace record 6",
     "header says 4 calls, found 3 call records"},
};

static void apply_edit(const bad_case_t *c, uint8_t **data, size_t *size, const size_t *at)
{
    size_t pos = at[c->anchor] + c->delta;
    switch (c->edit) {
    case SET_U8:
        (*data)[pos] = (uint8_t)c->value;
        break;
    case SET_U32:
        put32(*data + pos, c->value);
        break;
    case ADD_U32:
        add32(*data + pos, c->value);
        break;
    case CUT:
        *size = pos;
        break;
    case APPEND:
        insert_bytes(data, size, *size, c->nbytes, 0);
        memcpy(*data + *size - c->nbytes, c->bytes, c->nbytes);
        break;
    }
}

/* Loads the edited fixture and checks: the error, exactly one diagnostic naming the place and
 * the problem, and an empty profile. */
static void expect_failure(const bad_case_t *c, const uint8_t *data, size_t size, const size_t *at)
{
    char where[256];
    snprintf(where, sizeof where, "t.prf:0x%zx: %s", at[c->where_anchor] + c->where_delta,
             c->record);
    lg_test_loaded_t r;
    load(&r, data, size);
    bool ok = r.err == c->err && r.d.count == 1 && r.d.errors == 1 &&
              lg_test_diag_has(&r.d, LG_ERROR, where) &&
              lg_test_diag_has(&r.d, LG_ERROR, c->message);
    if (!ok) {
        print_message("case '%s': got %s, expected %s at '%s': '%s'\n", c->label,
                      lg_strerror(r.err), lg_strerror(c->err), where, c->message);
        lg_test_diag_dump(&r.d);
    }
    assert_true(ok);
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);
}

static void test_malformed_trace_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof trace_cases / sizeof trace_cases[0]; i++) {
        size_t size, at[AT_COUNT];
        uint8_t *data = build_small_trace(&size, at);
        apply_edit(&trace_cases[i], &data, &size, at);
        expect_failure(&trace_cases[i], data, size, at);
        free(data);
    }
}

enum { ST_FILE, ST_FN0, ST_FN1, ST_END, ST_COUNT };

static uint8_t *build_small_statistical(size_t *size, size_t at[ST_COUNT])
{
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_STATISTICAL);
    at[ST_FILE] = 0;
    at[ST_FN0] = fx_function(&fx, fields("main", NULL, 4));
    at[ST_FN1] = fx_function(&fx, fields("foo", NULL, 9));
    uint8_t *data = fx_finish(&fx, size);
    at[ST_END] = *size;
    return data;
}

static const bad_case_t statistical_cases[] = {
    {"calls in a statistical profile", ST_FILE, HDR + H_NCALLS, SET_U32, 1, NULL, 0, LG_EFORMAT,
     ST_FILE, HDR + H_NCALLS, "header",
     "expected 0 calls in a statistical profile (type 1), found 1"},
    {"more functions than there are", ST_FILE, HDR + H_NFUNCS, SET_U32, 10, NULL, 0, LG_EFORMAT,
     ST_END, 0, "function record 2",
     "header says 10 functions but the function data holds only 2 before the file ends"},
    {"function record past the end", ST_FN1, 0, ADD_U32, 1, NULL, 0, LG_EFORMAT,
     ST_FN1, 0, "function record 1", "runs past the end of the file"},
    {"function data cut", ST_FN1, F_NAME, CUT, 0, NULL, 0, LG_EFORMAT, ST_FN1, 0,
     "function record 1", "record size 82 runs past the end of the file"},
};

static void test_malformed_statistical_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof statistical_cases / sizeof statistical_cases[0]; i++) {
        size_t size, at[ST_COUNT];
        uint8_t *data = build_small_statistical(&size, at);
        apply_edit(&statistical_cases[i], &data, &size, at);
        expect_failure(&statistical_cases[i], data, size, at);
        free(data);
    }
}

static void test_empty_function_name(void **state)
{
    (void)state;
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_STATISTICAL);
    fx_function(&fx, fields("main", NULL, 1));
    size_t at = fx_function(&fx, fields("", NULL, 1));
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);
    bad_case_t c = {"empty name", 0, 0, SET_U8, 0, NULL, 0, LG_EFORMAT, 0, 0,
                    "function record 1", "expected a function name, found an empty one"};
    expect_failure(&c, data, size, &at);
    free(data);
}

/* Every proper prefix of a valid file is an error, never a crash or a partial profile. */
static void check_every_prefix(const uint8_t *data, size_t size)
{
    for (size_t len = 0; len < size; len++) {
        lg_test_loaded_t r;
        load(&r, data, len);
        if (r.err == LG_OK || r.d.count != 1 || r.d.errors != 1) {
            print_message("prefix of %zu bytes: %s\n", len, lg_strerror(r.err));
            lg_test_diag_dump(&r.d);
        }
        assert_int_not_equal(r.err, LG_OK);
        assert_int_equal(r.d.count, 1);
        lg_test_assert_profile_empty(&r.p);
        lg_test_loaded_destroy(&r);
    }
}

static void test_every_truncation_fails(void **state)
{
    (void)state;
    size_t size, at[AT_COUNT];
    uint8_t *data = build_small_trace(&size, at);
    check_every_prefix(data, size);
    free(data);

    size_t st_at[ST_COUNT];
    data = build_small_statistical(&size, st_at);
    check_every_prefix(data, size);
    free(data);
}

/* Most time a header with absurd counts may take to be rejected. */
#define ABSURD_COUNT_SECONDS 1.0

static void test_absurd_counts_fail_fast(void **state)
{
    (void)state;
    static const struct {
        size_t field;
        lg_err_t err;
        const char *message;
    } counts[] = {
        {H_NFUNCS, LG_ELIMIT, "header says 4294967295 functions, more than the 16777216"},
        {H_NOVERLAYS, LG_EFORMAT, "header says 4294967295 overlays but the overlay data holds "
                                  "only 1 before the function data begins"},
        {H_NCALLS, LG_EFORMAT, "header says 4294967295 calls, found 3 call records"},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        size_t size, at[AT_COUNT];
        uint8_t *data = build_small_trace(&size, at);
        put32(data + HDR + counts[i].field, UINT32_MAX);
        clock_t start = clock();
        lg_test_loaded_t r;
        load(&r, data, size);
        double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
        if (!lg_test_diag_has(&r.d, LG_ERROR, counts[i].message))
            lg_test_diag_dump(&r.d);
        assert_int_equal(r.err, counts[i].err);
        assert_true(lg_test_diag_has(&r.d, LG_ERROR, counts[i].message));
        assert_true(seconds < ABSURD_COUNT_SECONDS);
        lg_test_assert_profile_empty(&r.p);
        lg_test_loaded_destroy(&r);
        free(data);
    }
}

static void test_nesting_deeper_than_the_limit(void **state)
{
    (void)state;
    /* LG_PRF_MAX_DEPTH + 1 nested calls of "r": about 90 MiB of trace. */
    lg_prf_header_t h = header_of(LG_PRF_TYPE_TRACE);
    lg_prf_writer_t w;
    lg_prf_writer_init(&w, &h);
    lg_prf_record_fields_t r_fn = fields("r", NULL, 1);
    lg_prf_write_function(&w, &r_fn);
    size_t deepest = 0;
    for (uint32_t i = 0; i <= LG_PRF_MAX_DEPTH; i++) {
        deepest = w.buf.size;
        lg_prf_write_call(&w, i, &r_fn);
    }
    assert_int_equal(lg_prf_writer_finish(&w), LG_OK);

    lg_test_loaded_t r;
    lg_test_load_bytes(&r, lg_prf_read, w.buf.data, w.buf.size, "deep.prf", NULL);
    assert_int_equal(r.err, LG_ELIMIT);
    char where[128];
    snprintf(where, sizeof where, "deep.prf:0x%zx: trace record %u", deepest, LG_PRF_MAX_DEPTH);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, where));
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, "calls nest deeper than 1048576"));
    assert_int_equal(r.d.count, 1);
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);
    lg_prf_writer_destroy(&w);
}

/* ---- Tolerated irregularities --------------------------------------------------------------- */

static void test_calls_to_unlisted_functions(void **state)
{
    (void)state;
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_TRACE);
    fx_function(&fx, fields("main", NULL, 1));
    fx_call(&fx, fields("main", NULL, 1));
    lg_prf_record_fields_t ghost = fields("ghost", "ghost.c", 4);
    ghost.pc_min = 0x8c020000u;
    ghost.pc_max = 0x8c020010u;
    size_t first = fx_call(&fx, ghost);
    fx_return(&fx);
    fx_call(&fx, ghost);
    fx_return(&fx);
    fx_return(&fx);
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);

    lg_test_loaded_t r;
    load(&r, data, size);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.p.nfuncs, 2);
    const lg_pfunc_t *g = &r.p.funcs[1];
    assert_string_equal(g->name, "ghost");
    assert_string_equal(g->qual_name, "ghost.c");
    assert_int_equal(g->hits, 0);
    assert_int_equal(g->counter1_total, 0);
    assert_int_equal(g->pc_min, 0x8c020000u);
    assert_int_equal(edge_weight(&r.p, "main", NULL, "ghost", "ghost.c"), 8);
    /* One warning for the lot, at the first such record. */
    char where[64];
    snprintf(where, sizeof where, "t.prf:0x%zx: trace record 1", first);
    assert_int_equal(r.d.count, 1);
    assert_int_equal(r.d.warnings, 1);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, where));
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "2 call record(s) name functions missing from the function "
                                 "data, first 'ghost'; added 1 function(s) with zero totals"));
    lg_test_loaded_destroy(&r);
    free(data);
}

static void test_repeated_function_records(void **state)
{
    (void)state;
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_STATISTICAL);
    fx_function(&fx, fields("twin", NULL, 1));
    fx_function(&fx, fields("twin", "b.c", 2)); /* told apart: not a repeat */
    fx_function(&fx, fields("twin", NULL, 3));
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);

    lg_test_loaded_t r;
    load(&r, data, size);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.p.nfuncs, 3);
    assert_int_equal(r.d.count, 1);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, "1 function record(s) repeat the name"));
    lg_test_loaded_destroy(&r);
    free(data);
}

static void test_statistical_trace_offset_is_ignored(void **state)
{
    (void)state;
    size_t size, at[ST_COUNT];
    uint8_t *data = build_small_statistical(&size, at);
    put32(data + HDR + H_TRACE_OFFSET, 0x40);

    lg_test_loaded_t r;
    load(&r, data, size);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.p.nfuncs, 2);
    assert_int_equal(r.d.count, 1);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 "t.prf:0x5b: header: statistical profile has trace offset 0x40"));
    lg_test_loaded_destroy(&r);
    free(data);
}

static void test_trace_without_calls(void **state)
{
    (void)state;
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_TRACE);
    fx_function(&fx, fields("main", NULL, 1));
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);
    /* The writer points an empty trace at the end of the file. */
    assert_int_equal(get32(data + HDR + H_TRACE_OFFSET), size - HDR_END);

    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_true(r.p.has_call_edges);
    assert_int_equal(r.p.nedges, 0);
    lg_test_loaded_destroy(&r);

    /* Offset 0 with no calls is the guide's way of saying "no trace". */
    put32(data + HDR + H_TRACE_OFFSET, 0);
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 1);
    lg_test_loaded_destroy(&r);
    free(data);
}

/* ---- Files, probing, counters ---------------------------------------------------------------- */

/* ---- A file is read through a window ---------------------------------------------------- */

/* Zeros after a valid trace: a sparse tail, so that the test costs no disk. */
#define ZERO_TAIL_BYTES (256ull * 1024u * 1024u)
/* Most the peak memory may grow while that file is rejected, in KiB: the reader's window
 * (1 MiB) and the small profile, far below the tail. */
#define ZERO_TAIL_MAX_GROWTH_KIB (64l * 1024l)

static long peak_kib(void)
{
    struct rusage u;
    assert_int_equal(getrusage(RUSAGE_SELF, &u), 0);
    return u.ru_maxrss; /* KiB on Linux */
}

/* The first bad record stops the load: nothing after it is read, or held. */
static void test_zero_tail_is_not_read(void **state)
{
    (void)state;
    size_t size, at[AT_COUNT];
    uint8_t *data = build_small_trace(&size, at);
    const char *path = lg_test_write_file("zero-tail.prf", data, size);
    assert_int_equal(truncate(path, (off_t)(size + ZERO_TAIL_BYTES)), 0);
    long before = peak_kib();
    lg_test_loaded_t r;
    load_file(&r, path);
    long growth = peak_kib() - before;
    /* The six trace records, then a size field of 0 where a seventh would start. */
    char want[128];
    snprintf(want, sizeof want,
             "zero-tail.prf:0x%zx: trace record 6: record size 0 is too small for a trace "
             "record (at least 5)",
             size);
    lg_test_assert_one_error_has(r.err, &r.d, LG_EFORMAT, want);
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);
    if (growth >= ZERO_TAIL_MAX_GROWTH_KIB)
        fail_msg("peak memory grew by %ld KiB reading a 256 MiB tail of zeros", growth);
    assert_int_equal(unlink(path), 0);
    free(data);
}

/* Long names: records of about 50 KB, so that the file spans several windows and records
 * straddle their boundaries. */
#define WIDE_NAME_BYTES 50000u
#define WIDE_NAME_FUNCS 8u
#define WIDE_NAME_CALLS 60u
/* A function record grown past the window's size: its extra bytes are stepped over. */
#define GROWN_RECORD_BYTES (3u * 1024u * 1024u)

/* A file larger than the window loads exactly as the same bytes from memory. */
static void test_file_larger_than_the_window(void **state)
{
    (void)state;
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_TRACE);
    char *names[WIDE_NAME_FUNCS];
    for (size_t i = 0; i < WIDE_NAME_FUNCS; i++) {
        names[i] = malloc(WIDE_NAME_BYTES + 1);
        assert_non_null(names[i]);
        memset(names[i], 'a' + (int)i, WIDE_NAME_BYTES);
        names[i][WIDE_NAME_BYTES] = '\0';
    }
    size_t first = fx_function(&fx, fields("main", NULL, 1));
    for (size_t i = 0; i < WIDE_NAME_FUNCS; i++)
        fx_function(&fx, fields(names[i], NULL, WIDE_NAME_CALLS));
    fx_call(&fx, fields("main", NULL, 1));
    for (size_t k = 0; k < WIDE_NAME_CALLS; k++) {
        fx_call(&fx, fields(names[k % WIDE_NAME_FUNCS], NULL, k + 1));
        fx_return(&fx);
    }
    fx_return(&fx);
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);
    grow_record(&data, &size, first, GROWN_RECORD_BYTES);
    add32(data + HDR + H_TRACE_OFFSET, GROWN_RECORD_BYTES);
    const char *path = lg_test_write_file("windows.prf", data, size);

    lg_test_loaded_t from_file, from_memory;
    load_file(&from_file, path);
    load(&from_memory, data, size);
    lg_test_assert_loaded_clean(&from_file);
    lg_test_assert_loaded_clean(&from_memory);
    const lg_profile_t *a = &from_file.p, *b = &from_memory.p;
    assert_int_equal(a->nfuncs, WIDE_NAME_FUNCS + 1);
    assert_int_equal(a->nfuncs, b->nfuncs);
    for (size_t i = 0; i < a->nfuncs; i++) {
        assert_string_equal(a->funcs[i].name, b->funcs[i].name);
        assert_int_equal(a->funcs[i].hits, b->funcs[i].hits);
    }
    assert_int_equal(a->nedges, WIDE_NAME_FUNCS);
    assert_int_equal(a->nedges, b->nedges);
    for (size_t i = 0; i < a->nedges; i++) {
        assert_int_equal(a->edges[i].caller, b->edges[i].caller);
        assert_int_equal(a->edges[i].callee, b->edges[i].callee);
        assert_int_equal(a->edges[i].weight, b->edges[i].weight);
    }
    assert_int_equal(a->call_records, WIDE_NAME_CALLS + 1);
    lg_test_loaded_destroy(&from_file);
    lg_test_loaded_destroy(&from_memory);
    assert_int_equal(unlink(path), 0);
    for (size_t i = 0; i < WIDE_NAME_FUNCS; i++)
        free(names[i]);
    free(data);
}

static void test_unreadable_files(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, LORGEN_TEST_TMPDIR "/no-such.prf");
    assert_int_equal(r.err, LG_EIO);
    assert_true(lg_test_diag_has(&r.d, LG_ERROR, "no-such.prf: cannot open: No such file"));
    lg_test_assert_profile_empty(&r.p);
    lg_test_loaded_destroy(&r);

    /* A directory opens but cannot be read (on Linux; elsewhere it may not open). */
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
    const uint8_t good[] = "PROFILER FILE:\x55";
    assert_true(lg_prf_probe(good, sizeof good - 1));
    assert_false(lg_prf_probe(good, 13));
    assert_false(lg_prf_probe((const uint8_t *)"PROFILER FILE;", 14));
    assert_false(lg_prf_probe(NULL, 0));
}

static void test_counter_names(void **state)
{
    (void)state;
    assert_string_equal(lg_prf_counter_name(0x00), "none");
    assert_string_equal(lg_prf_counter_name(0x01), "Operand access (read/with cache)");
    assert_string_equal(lg_prf_counter_name(0x08), "Instruction cache miss");
    assert_string_equal(lg_prf_counter_name(0x1a), "UBC-B match");
    assert_string_equal(lg_prf_counter_name(0x21), "Instruction cache fill");
    assert_string_equal(lg_prf_counter_name(0x23), "Elapsed time");
    assert_string_equal(lg_prf_counter_name(0x29), "Pipeline freeze (by FPU)");
    /* Gaps in the guide's table. */
    assert_string_equal(lg_prf_counter_name(0x1b), "unknown");
    assert_string_equal(lg_prf_counter_name(0x20), "unknown");
    assert_string_equal(lg_prf_counter_name(0x26), "unknown");
    assert_string_equal(lg_prf_counter_name(0x2a), "unknown");
    assert_string_equal(lg_prf_counter_name(0xff), "unknown");
}

/* ---- Writer ---------------------------------------------------------------------------------- */

static void test_writer_rejects_out_of_order_records(void **state)
{
    (void)state;
    lg_prf_record_fields_t f = fields("main", NULL, 1);
    fixture_t fx;

    fx_init(&fx, LG_PRF_TYPE_TRACE);
    fx_function(&fx, f);
    lg_prf_write_overlay(&fx.w, 0, 0, 0, 0);
    assert_true(fx.w.buf.failed);
    assert_int_equal(lg_prf_writer_finish(&fx.w), LG_EINVAL);
    lg_prf_writer_destroy(&fx.w);

    fx_init(&fx, LG_PRF_TYPE_TRACE);
    fx_call(&fx, f);
    fx_function(&fx, f);
    assert_int_equal(lg_prf_writer_finish(&fx.w), LG_EINVAL);
    lg_prf_writer_destroy(&fx.w);

    fx_init(&fx, LG_PRF_TYPE_STATISTICAL);
    fx_function(&fx, f);
    lg_prf_write_return(&fx.w, 1);
    assert_int_equal(lg_prf_writer_finish(&fx.w), LG_EINVAL);
    lg_prf_writer_destroy(&fx.w);

    lg_prf_writer_t w;
    lg_prf_writer_init(&w, NULL);
    assert_int_equal(lg_prf_writer_finish(&w), LG_EINVAL);
    lg_prf_writer_destroy(&w);
}

/* A name longer than a u16 length can describe. */
#define LONG_NAME_BYTES 70000u

static void test_writer_truncates_long_names(void **state)
{
    (void)state;
    char *name = malloc(LONG_NAME_BYTES + 1);
    assert_non_null(name);
    memset(name, 'n', LONG_NAME_BYTES);
    name[LONG_NAME_BYTES] = '\0';
    fixture_t fx;
    fx_init(&fx, LG_PRF_TYPE_STATISTICAL);
    size_t at = fx_function(&fx, fields(name, NULL, 1));
    size_t size;
    uint8_t *data = fx_finish(&fx, &size);
    assert_int_equal(data[at + F_NAME_LEN] | data[at + F_NAME_LEN + 1] << 8, 0xFFFF);
    assert_int_equal(get32(data + at), 79 + 0xFFFF);

    lg_test_loaded_t r;
    load(&r, data, size);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(strlen(r.p.funcs[0].name), 0xFFFF);
    lg_test_loaded_destroy(&r);
    free(data);
    free(name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_edges_and_counters),
        cmocka_unit_test(test_statistical_profile_has_no_edges),
        cmocka_unit_test(test_header_bytes),
        cmocka_unit_test(test_larger_records_still_load),
        cmocka_unit_test(test_name_length_counting_a_terminator),
        cmocka_unit_test(test_malformed_trace_files),
        cmocka_unit_test(test_malformed_statistical_files),
        cmocka_unit_test(test_empty_function_name),
        cmocka_unit_test(test_every_truncation_fails),
        cmocka_unit_test(test_absurd_counts_fail_fast),
        cmocka_unit_test(test_nesting_deeper_than_the_limit),
        cmocka_unit_test(test_calls_to_unlisted_functions),
        cmocka_unit_test(test_repeated_function_records),
        cmocka_unit_test(test_statistical_trace_offset_is_ignored),
        cmocka_unit_test(test_trace_without_calls),
        cmocka_unit_test(test_zero_tail_is_not_read),
        cmocka_unit_test(test_file_larger_than_the_window),
        cmocka_unit_test(test_unreadable_files),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_counter_names),
        cmocka_unit_test(test_writer_rejects_out_of_order_records),
        cmocka_unit_test(test_writer_truncates_long_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
