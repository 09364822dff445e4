/* test_winidea_bin.c - winIDEA's binary timeline: both record layouts, version detection, and
 * every malformed input with the exact offset its error names.
 *
 * Files are built here record by record from a small mapping (functions, a line, a variable, a
 * state and an AUX signal) made through winidea_map.h, so the expected figures come from the
 * events written, worked out in the comments, not from the reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "winidea_bin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H_MAIN 0x00000000u
#define H_A 0x00000001u
#define H_B 0x00000002u
#define H_LINE 0x10000000u  /* a line of main */
#define H_VAR 0x20000000u   /* a variable */
#define H_STATE 0x30000000u /* a state of that variable */
#define H_AUX 0x40000000u   /* an AUX signal */
#define H_UNKNOWN 0x00000007u

enum { X = 0, S = 1, R = 2, E = 3, W = 4 };

/* One event as written: core is ignored by layout 1.0. */
typedef struct rec {
    uint32_t handle;
    unsigned type, core;
    int64_t time;
    uint64_t data;
} rec_t;

typedef struct run {
    lg_profile_t p;
    lg_diag_t d;
    lg_wi_map_t *map;
    lg_timeline_t *t;
    lg_err_t err;
} run_t;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The second word of a record: 1.1 FLAGS or 1.0 EVENT. */
static uint32_t word_of(const rec_t *r, lg_wi_bin_version_t v)
{
    return v == LG_WI_BIN_V1_0 ? (uint32_t)r->type << 24 : (uint32_t)r->core << 4 | r->type;
}

/* Encodes n records; the caller frees the result. */
static uint8_t *encode(const rec_t *recs, size_t n, lg_wi_bin_version_t v)
{
    uint8_t *out = calloc(n + 1, LG_WI_BIN_RECORD_BYTES);
    assert_non_null(out);
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = out + i * LG_WI_BIN_RECORD_BYTES;
        put32(p, recs[i].handle);
        put32(p + 4, word_of(&recs[i], v));
        put64(p + 8, recs[i].data);
        put64(p + 16, (uint64_t)recs[i].time);
    }
    return out;
}

static void run_start(run_t *r)
{
    lg_profile_init(&r->p);
    lg_diag_init(&r->d);
    assert_int_equal(lg_profile_set_path(&r->p, "main.txt"), LG_OK);
    assert_int_equal(lg_wi_map_create(&r->p, &r->map), LG_OK);
    static const struct {
        uint32_t handle, parent;
        const char *name;
        uint64_t value;
    } areas[] = {
        {H_MAIN, 0, "main", 0},    {H_A, 0, "a", 0},          {H_B, 0, "b", 0},
        {H_LINE, H_MAIN, "{", 51}, {H_VAR, 0, "iCounter", 0}, {H_STATE, H_VAR, "", 1},
        {H_AUX, 0, "AUX0", 0},
    };
    for (size_t i = 0; i < sizeof areas / sizeof *areas; i++)
        assert_int_equal(lg_wi_map_add(r->map, areas[i].handle, areas[i].parent, areas[i].name,
                                       areas[i].value, NULL, &r->d),
                         LG_OK);
    assert_int_equal(lg_timeline_create(&r->p, true, &r->t), LG_OK);
}

static void run_destroy(run_t *r)
{
    lg_timeline_destroy(r->t);
    lg_wi_map_destroy(r->map);
    lg_profile_destroy(&r->p);
    lg_diag_destroy(&r->d);
}

/* Reads size bytes written to name with the given (or detected) version; finishes the timeline
 * when the read succeeded. */
static void run_bytes(run_t *r, const char *name, const uint8_t *bytes, size_t size,
                      lg_wi_bin_version_t v, const lg_load_options_t *options)
{
    run_start(r);
    const char *path = lg_test_write_file(name, bytes, size);
    r->err = lg_wi_bin_read(path, v, r->map, r->t, options, &r->d);
    if (r->err == LG_OK)
        assert_int_equal(lg_timeline_finish(r->t, &r->d), LG_OK);
}

static void run_recs(run_t *r, const rec_t *recs, size_t n, lg_wi_bin_version_t written,
                     lg_wi_bin_version_t read_as)
{
    uint8_t *bytes = encode(recs, n, written);
    run_bytes(r, "t.BIN", bytes, n * LG_WI_BIN_RECORD_BYTES, read_as, NULL);
    free(bytes);
}

static const lg_pfunc_t *fn(const run_t *r, const char *name)
{
    int64_t i = lg_profile_find(&r->p, name, NULL, NULL);
    assert_true(i >= 0);
    return &r->p.funcs[i];
}

static void assert_func(const run_t *r, const char *name, uint64_t hits, uint64_t gross,
                        uint64_t net)
{
    lg_test_assert_func_times(&r->p, name, hits, gross, net);
}

static int64_t edge(const run_t *r, const char *caller, const char *callee)
{
    int64_t a = fn(r, caller) - r->p.funcs, b = fn(r, callee) - r->p.funcs;
    return lg_test_edge_weight(&r->p, a, b);
}

static void assert_clean(const run_t *r)
{
    if (r->err != LG_OK || r->d.count != 0)
        lg_test_diag_dump(&r->d);
    assert_int_equal(r->err, LG_OK);
    assert_int_equal(r->d.count, 0);
}

/* Failed with err and exactly one error containing needle ("where: message"). */
static void assert_fails(const run_t *r, lg_err_t err, const char *needle)
{
    lg_test_assert_one_error_has(r->err, &r->d, err, needle);
}

/* One core's calls: main calls a (10-20), writes a variable, steps over a line. main runs 0-10
 * and 20-30 (net 20, gross 30); a runs 10-20. Lines, variables, states and AUX are skipped. */
static const rec_t one_core[] = {
    {H_MAIN, E, 0, 0, 0},  {H_LINE, E, 0, 0, 0},  {H_MAIN, S, 0, 10, 0},  {H_LINE, S, 0, 10, 0},
    {H_A, E, 0, 10, 0},    {H_VAR, W, 0, 12, 5},  {H_STATE, W, 0, 12, 0}, {H_AUX, W, 0, 13, 77},
    {H_A, X, 0, 20, 0},    {H_LINE, R, 0, 20, 0}, {H_MAIN, R, 0, 20, 0},  {H_LINE, X, 0, 30, 0},
    {H_MAIN, X, 0, 30, 0},
};
#define ONE_CORE_N (sizeof one_core / sizeof *one_core)

static void assert_one_core_profile(const run_t *r)
{
    assert_clean(r);
    assert_int_equal(r->p.nfuncs, 3);
    assert_func(r, "main", 1, 30, 20);
    assert_func(r, "a", 1, 10, 10);
    assert_func(r, "b", 0, 0, 0);
    assert_int_equal(r->p.nedges, 1);
    assert_int_equal(edge(r, "main", "a"), 1);
    assert_true(r->p.has_timeline);
}

static void test_v11_one_core(void **state)
{
    (void)state;
    run_t r;
    run_recs(&r, one_core, ONE_CORE_N, LG_WI_BIN_V1_1, LG_WI_BIN_DETECT);
    assert_one_core_profile(&r);
    run_destroy(&r);
}

static void test_v10_one_core(void **state)
{
    (void)state;
    run_t r;
    run_recs(&r, one_core, ONE_CORE_N, LG_WI_BIN_V1_0, LG_WI_BIN_DETECT);
    assert_one_core_profile(&r);
    run_destroy(&r);
    run_recs(&r, one_core, ONE_CORE_N, LG_WI_BIN_V1_0, LG_WI_BIN_V1_0);
    assert_one_core_profile(&r);
    run_destroy(&r);
}

static void test_v11_multi_core(void **state)
{
    (void)state;
    /* Core 0: main calls a 2-4. Core 1: b calls a 3-6. Core 0xFF (unknown): a alone 7-8. Each
     * core has its own stack, so the interleaved Exits of a close the right calls. main: net
     * 0-2 and 4-7 = 5; b: 1-3 and 6-9 = 5; a: 2 + 3 + 1. */
    static const rec_t recs[] = {
        {H_MAIN, E, 0, 0, 0}, {H_B, E, 1, 1, 0}, {H_MAIN, S, 0, 2, 0}, {H_A, E, 0, 2, 0},
        {H_B, S, 1, 3, 0},    {H_A, E, 1, 3, 0}, {H_A, X, 0, 4, 0},    {H_MAIN, R, 0, 4, 0},
        {H_A, X, 1, 6, 0},    {H_B, R, 1, 6, 0}, {H_MAIN, X, 0, 7, 0}, {H_A, E, 0xFF, 7, 0},
        {H_A, X, 0xFF, 8, 0}, {H_B, X, 1, 9, 0},
    };
    run_t r;
    run_recs(&r, recs, sizeof recs / sizeof *recs, LG_WI_BIN_V1_1, LG_WI_BIN_DETECT);
    assert_clean(&r);
    assert_func(&r, "main", 1, 7, 5);
    assert_func(&r, "b", 1, 8, 5);
    assert_func(&r, "a", 3, 6, 6);
    assert_int_equal(r.p.nedges, 2);
    assert_int_equal(edge(&r, "main", "a"), 1);
    assert_int_equal(edge(&r, "b", "a"), 1);
    run_destroy(&r);

    /* The same events as 1.0 have no core: one stack, and a's Exit at 4 (core 0's call) closes
     * the a that core 1 entered at 3, leaving core 0's a to be closed by main's Resume. */
    run_recs(&r, recs, sizeof recs / sizeof *recs, LG_WI_BIN_V1_0, LG_WI_BIN_V1_0);
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.warnings, 1);
    run_destroy(&r);
}

static void test_empty_file(void **state)
{
    (void)state;
    run_t r;
    run_bytes(&r, "empty.BIN", NULL, 0, LG_WI_BIN_DETECT, NULL);
    assert_clean(&r);
    assert_int_equal(r.p.nedges, 0);
    assert_int_equal(lg_timeline_stats(r.t)->events, 0);
    run_destroy(&r);
}

/* ---- Detection --------------------------------------------------------------------------- */

static void test_detect(void **state)
{
    (void)state;
    uint8_t *v11 = encode(one_core, ONE_CORE_N, LG_WI_BIN_V1_1);
    uint8_t *v10 = encode(one_core, ONE_CORE_N, LG_WI_BIN_V1_0);
    size_t len = ONE_CORE_N * LG_WI_BIN_RECORD_BYTES;
    assert_int_equal(lg_wi_bin_detect(v11, len), LG_WI_BIN_V1_1);
    assert_int_equal(lg_wi_bin_detect(v10, len), LG_WI_BIN_V1_0);
    /* No records: nothing contradicts 1.1. */
    assert_int_equal(lg_wi_bin_detect(v11, 0), LG_WI_BIN_V1_1);
    /* Only Exits, on core 2: both layouts fit (bits 4-11 only); 1.1 is taken. */
    static const rec_t exits[] = {{H_A, X, 2, 5, 0}, {H_B, X, 2, 4, 0}};
    uint8_t *ex = encode(exits, 2, LG_WI_BIN_V1_1);
    assert_int_equal(lg_wi_bin_detect(ex, 2 * LG_WI_BIN_RECORD_BYTES), LG_WI_BIN_V1_1);
    /* A 1.1 Entry (type in bits 0-3) followed by a 1.0 Entry (type in bits 24-27). */
    put32(ex + 4, 0x3u);
    put32(ex + LG_WI_BIN_RECORD_BYTES + 4, 0x03000000u);
    assert_int_equal(lg_wi_bin_detect(ex, 2 * LG_WI_BIN_RECORD_BYTES), LG_WI_BIN_DETECT);
    /* A 1.1 word with bits above the core, or a type above 4, is not 1.1. */
    put32(ex + 4, 0x1003u);
    assert_int_equal(lg_wi_bin_detect(ex, LG_WI_BIN_RECORD_BYTES), LG_WI_BIN_DETECT);
    put32(ex + 4, 0x05000000u);
    assert_int_equal(lg_wi_bin_detect(ex, LG_WI_BIN_RECORD_BYTES), LG_WI_BIN_DETECT);
    put32(ex + 4, 0x04000000u);
    assert_int_equal(lg_wi_bin_detect(ex, LG_WI_BIN_RECORD_BYTES), LG_WI_BIN_V1_0);
    free(ex);
    free(v11);
    free(v10);
}

static void test_undetectable(void **state)
{
    (void)state;
    static const rec_t recs[] = {{H_MAIN, E, 0, 0, 0}, {H_MAIN, X, 0, 1, 0}};
    uint8_t *bytes = encode(recs, 2, LG_WI_BIN_V1_1);
    put32(bytes + LG_WI_BIN_RECORD_BYTES + 4, 0x03000000u); /* record 1 as 1.0 */
    run_t r;
    run_bytes(&r, "mixed.BIN", bytes, 2 * LG_WI_BIN_RECORD_BYTES, LG_WI_BIN_DETECT, NULL);
    assert_fails(&r, LG_EFORMAT,
                 "mixed.BIN: cannot tell the binary timeline's layout: record 1 (offset 0x18) "
                 "does not fit version 1.1 (FLAGS 0x03000000: bits 12-31 must be 0 and the type "
                 "in bits 0-3 at most 4), record 0 (offset 0x0) does not fit version 1.0 (EVENT "
                 "0x00000003: bits 0-3 must be 0 and the type in bits 24-27 at most 4); give the "
                 "version with --bin-version 1.0 or 1.1");
    assert_int_equal(lg_timeline_stats(r.t)->events, 0);
    run_destroy(&r);
    free(bytes);
}

/* ---- Malformed files --------------------------------------------------------------------- */

static void test_size_not_multiple(void **state)
{
    (void)state;
    uint8_t *bytes = encode(one_core, ONE_CORE_N, LG_WI_BIN_V1_1);
    run_t r;
    run_bytes(&r, "cut.BIN", bytes, 2 * LG_WI_BIN_RECORD_BYTES + 5, LG_WI_BIN_DETECT, NULL);
    assert_fails(&r, LG_EFORMAT,
                 "cut.BIN: size 53 bytes is not a multiple of the 24-byte record: 5 trailing "
                 "byte(s) after record 2 (offset 0x30); the file is cut short or not a timeline");
    assert_int_equal(lg_timeline_stats(r.t)->events, 0);
    run_destroy(&r);
    /* A file shorter than one record. */
    run_bytes(&r, "short.BIN", bytes, 23, LG_WI_BIN_DETECT, NULL);
    assert_fails(&r, LG_EFORMAT,
                 "short.BIN: size 23 bytes is not a multiple of the 24-byte record: 23 trailing "
                 "byte(s) after record 0 (offset 0x0)");
    run_destroy(&r);
    free(bytes);
}

static void test_unknown_handle(void **state)
{
    (void)state;
    rec_t recs[ONE_CORE_N];
    memcpy(recs, one_core, sizeof recs);
    recs[4].handle = H_UNKNOWN;
    run_t r;
    run_recs(&r, recs, ONE_CORE_N, LG_WI_BIN_V1_1, LG_WI_BIN_DETECT);
    assert_fails(&r, LG_EFORMAT,
                 "t.BIN:0x60: record 4: handle 0x00000007 (Entry event) is not in the main "
                 "file's mapping");
    run_destroy(&r);
    /* A data write names its handle too, and an unknown handle of a data area is as wrong. */
    memcpy(recs, one_core, sizeof recs);
    recs[5].handle = 0x20000009u;
    run_recs(&r, recs, ONE_CORE_N, LG_WI_BIN_V1_0, LG_WI_BIN_DETECT);
    assert_fails(&r, LG_EFORMAT,
                 "t.BIN:0x78: record 5: handle 0x20000009 (Data write event) is not in the main "
                 "file's mapping");
    run_destroy(&r);
}

static void test_unknown_type(void **state)
{
    (void)state;
    rec_t recs[ONE_CORE_N];
    memcpy(recs, one_core, sizeof recs);
    recs[3].type = 7;
    recs[3].core = 2;
    run_t r;
    run_recs(&r, recs, ONE_CORE_N, LG_WI_BIN_V1_1, LG_WI_BIN_V1_1);
    assert_fails(&r, LG_EFORMAT,
                 "t.BIN:0x48: record 3: unknown event type 7 (FLAGS 0x00000027, layout 1.1): "
                 "expected 0 Exit, 1 Suspend, 2 Resume, 3 Entry or 4 Data write");
    run_destroy(&r);
    run_recs(&r, recs, ONE_CORE_N, LG_WI_BIN_V1_0, LG_WI_BIN_V1_0);
    assert_fails(&r, LG_EFORMAT,
                 "t.BIN:0x48: record 3: unknown event type 7 (EVENT 0x07000000, layout 1.0)");
    run_destroy(&r);
    /* Detecting, a record with an unknown type in the first records fits neither layout. */
    recs[3].type = 15;
    run_recs(&r, recs, ONE_CORE_N, LG_WI_BIN_V1_0, LG_WI_BIN_DETECT);
    assert_fails(&r, LG_EFORMAT,
                 "record 3 (offset 0x48) does not fit version 1.0 (EVENT 0x0f000000: bits 0-3 "
                 "must be 0 and the type in bits 24-27 at most 4)");
    run_destroy(&r);
}

static void test_bad_version_and_missing_file(void **state)
{
    (void)state;
    run_t r;
    run_start(&r);
    r.err =
        lg_wi_bin_read(LORGEN_TEST_TMPDIR "/no-such.BIN", LG_WI_BIN_DETECT, r.map, r.t, NULL, &r.d);
    assert_fails(&r, LG_EIO, "no-such.BIN: cannot open the binary timeline: No such file");
    run_destroy(&r);
    run_start(&r);
    r.err = lg_wi_bin_read(LORGEN_TEST_TMPDIR, (lg_wi_bin_version_t)12, r.map, r.t, NULL, &r.d);
    assert_fails(&r, LG_EINVAL, "unknown binary timeline version 12: expected 1.0 or 1.1");
    run_destroy(&r);
    run_start(&r);
    r.err = lg_wi_bin_read(LORGEN_TEST_TMPDIR, LG_WI_BIN_V1_1, r.map, r.t, NULL, &r.d);
    assert_fails(&r, LG_EIO, "the binary timeline is not a regular file");
    run_destroy(&r);
}

static void test_depth_limit_error(void **state)
{
    (void)state;
    /* Entries and no Exits on core 3: the record past LG_TL_MAX_DEPTH is refused by offset. */
    size_t n = LG_TL_MAX_DEPTH + 1;
    uint8_t *bytes = calloc(n, LG_WI_BIN_RECORD_BYTES);
    assert_non_null(bytes);
    for (size_t i = 0; i < n; i++) {
        put32(bytes + i * LG_WI_BIN_RECORD_BYTES, H_A);
        put32(bytes + i * LG_WI_BIN_RECORD_BYTES + 4, 3u << 4 | E);
        put64(bytes + i * LG_WI_BIN_RECORD_BYTES + 16, i);
    }
    run_t r;
    run_bytes(&r, "deep.BIN", bytes, n * LG_WI_BIN_RECORD_BYTES, LG_WI_BIN_DETECT, NULL);
    char needle[200];
    snprintf(needle, sizeof needle,
             "deep.BIN:0x%zx: record %zu: more than %u open calls on core 3: Exit events are "
             "missing",
             (n - 1) * LG_WI_BIN_RECORD_BYTES, n - 1, LG_TL_MAX_DEPTH);
    assert_fails(&r, LG_ELIMIT, needle);
    run_destroy(&r);
    free(bytes);
}

/* Every prefix of a small file: whole records read (with repairs), others fail; none crash. */
static void test_every_truncation(void **state)
{
    (void)state;
    for (int v = 0; v < 2; v++) {
        lg_wi_bin_version_t version = v == 0 ? LG_WI_BIN_V1_1 : LG_WI_BIN_V1_0;
        uint8_t *bytes = encode(one_core, ONE_CORE_N, version);
        for (size_t len = 0; len <= ONE_CORE_N * LG_WI_BIN_RECORD_BYTES; len++) {
            run_t r;
            run_bytes(&r, "prefix.BIN", bytes, len, LG_WI_BIN_DETECT, NULL);
            if (len % LG_WI_BIN_RECORD_BYTES != 0) {
                assert_int_equal(r.err, LG_EFORMAT);
                assert_int_equal(r.d.errors, 1);
            } else {
                assert_int_equal(r.err, LG_OK);
                assert_int_equal(r.d.errors, 0);
                /* Only function events reach the timeline. */
                uint64_t events = 0;
                for (size_t i = 0; i < len / LG_WI_BIN_RECORD_BYTES; i++)
                    events += lg_wi_handle_area(one_core[i].handle) == LG_WI_FUNCTION &&
                              one_core[i].type < W;
                assert_int_equal(lg_timeline_stats(r.t)->events, events);
            }
            run_destroy(&r);
        }
        free(bytes);
    }
}

/* Every single-bit change of a small 1.1 file: each either loads or fails with one error. */
static void test_every_bit_flip(void **state)
{
    (void)state;
    size_t len = ONE_CORE_N * LG_WI_BIN_RECORD_BYTES;
    uint8_t *bytes = encode(one_core, ONE_CORE_N, LG_WI_BIN_V1_1);
    for (size_t bit = 0; bit < len * 8; bit++) {
        bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        run_t r;
        run_bytes(&r, "flip.BIN", bytes, len, LG_WI_BIN_DETECT, NULL);
        assert_true(r.err == LG_OK || (r.err == LG_EFORMAT && r.d.errors == 1));
        run_destroy(&r);
        bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    free(bytes);
}

typedef struct progress_log {
    unsigned calls;
    uint64_t done, total;
} progress_log_t;

static void log_progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
    progress_log_t *log = ctx;
    assert_non_null(strstr(path, "p.BIN"));
    log->calls++;
    log->done = done;
    log->total = total;
}

static void test_progress(void **state)
{
    (void)state;
    uint8_t *bytes = encode(one_core, ONE_CORE_N, LG_WI_BIN_V1_1);
    progress_log_t log = {0, 0, 0};
    lg_load_options_t options = {.progress = log_progress, .progress_ctx = &log};
    run_t r;
    run_bytes(&r, "p.BIN", bytes, ONE_CORE_N * LG_WI_BIN_RECORD_BYTES, LG_WI_BIN_DETECT, &options);
    assert_clean(&r);
    assert_int_equal(log.calls, 1);
    assert_int_equal(log.done, ONE_CORE_N * LG_WI_BIN_RECORD_BYTES);
    assert_int_equal(log.total, ONE_CORE_N * LG_WI_BIN_RECORD_BYTES);
    run_destroy(&r);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v11_one_core),
        cmocka_unit_test(test_v10_one_core),
        cmocka_unit_test(test_v11_multi_core),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_undetectable),
        cmocka_unit_test(test_size_not_multiple),
        cmocka_unit_test(test_unknown_handle),
        cmocka_unit_test(test_unknown_type),
        cmocka_unit_test(test_bad_version_and_missing_file),
        cmocka_unit_test(test_depth_limit_error),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_every_bit_flip),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
