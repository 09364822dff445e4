/* test_winidea_bin.c - winIDEA's binary timeline: both record layouts, version detection, and
 * every malformed input with the exact offset its error names.
 *
 * Files are built here record by record from a small mapping (functions, a line, a variable, a
 * state and an AUX signal) made through winidea_map.h, so the expected figures come from the
 * events written, worked out in the comments, not from the reader.
 *
 * A large file is read by two threads (winidea_bin.c). Every test runs four times: with the
 * default size from which two threads read, on one thread only, on two threads for any size
 * (lg_i_wi_bin_set_pipeline_min), and on two where the calling thread reads every chunk
 * (lg_i_wi_bin_set_reader_idle: what it does when the chunk it needs is not ready). The tests of
 * large files then check that every way gives the same profile, and the same error at the same
 * record, when the error lies chunks deep in the file; they inject failures with the linker's
 * --wrap (tests/CMakeLists.txt): a thread that cannot be created, memory that runs out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "winidea_bin.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Injected failures (linked with -Wl,--wrap=pthread_create,--wrap=calloc) -------------- */

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg);
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static unsigned threads_asked; /* calls of pthread_create */
static bool refuse_threads;    /* pthread_create fails with EAGAIN */
static bool refuse_small;      /* calloc of less than a page fails */

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg)
{
    threads_asked++;
    if (refuse_threads)
        return EAGAIN;
    return __real_pthread_create(thread, attr, start, arg);
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (refuse_small && size != 0 && n < 4096 / size)
        return NULL;
    return __real_calloc(n, size);
}

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

/* ---- Large files: one thread or two ------------------------------------------------------ */

/* The ways a file is read. */
enum { ONE_THREAD, TWO_THREADS, CALLER_READS, WAYS };

/* Runs read on one thread, or on two threads whatever the size, with the calling thread reading
 * every chunk (CALLER_READS) or not. */
static void use_threads(int way)
{
    lg_i_wi_bin_set_pipeline_min(way != ONE_THREAD ? 0 : UINT64_MAX);
    lg_i_wi_bin_set_reader_idle(way == CALLER_READS);
}

/* Records of the chunks the two threads pass (winidea_bin.c): 192 KiB. */
#define CHUNK 8192u

/* one_core's records, copies times over, copy c 30 ns after copy c - 1, as layout v; *size its
 * bytes. Each copy: main calls a (main gross 30, net 20; a 10 and 10). Caller frees. */
static uint8_t *repeat_one_core(size_t copies, lg_wi_bin_version_t v, size_t *size)
{
    size_t copy = ONE_CORE_N * LG_WI_BIN_RECORD_BYTES;
    uint8_t *one = encode(one_core, ONE_CORE_N, v);
    uint8_t *bytes = malloc(copies * copy + 1);
    assert_non_null(bytes);
    for (size_t c = 0; c < copies; c++) {
        memcpy(bytes + c * copy, one, copy);
        for (size_t i = 0; i < ONE_CORE_N; i++)
            put64(bytes + c * copy + i * LG_WI_BIN_RECORD_BYTES + 16,
                  (uint64_t)one_core[i].time + 30 * c);
    }
    free(one);
    *size = copies * copy;
    return bytes;
}

/* Function events (those that reach the timeline) among records [0, n) of repeat_one_core. */
static uint64_t one_core_events(size_t n)
{
    uint64_t events = 0;
    for (size_t i = 0; i < n; i++) {
        const rec_t *rec = &one_core[i % ONE_CORE_N];
        events += lg_wi_handle_area(rec->handle) == LG_WI_FUNCTION && rec->type < W;
    }
    return events;
}

/* The two runs gave the same result: error, messages, and every figure of the profile. */
static void assert_same_run(const run_t *a, const run_t *b)
{
    assert_int_equal(a->err, b->err);
    assert_int_equal(a->d.count, b->d.count);
    for (size_t i = 0; i < a->d.count; i++) {
        assert_int_equal(a->d.entries[i].severity, b->d.entries[i].severity);
        assert_string_equal(a->d.entries[i].where, b->d.entries[i].where);
        assert_string_equal(a->d.entries[i].message, b->d.entries[i].message);
    }
    assert_memory_equal(lg_timeline_stats(a->t), lg_timeline_stats(b->t), sizeof(lg_tl_stats_t));
    assert_int_equal(a->p.nfuncs, b->p.nfuncs);
    for (size_t i = 0; i < a->p.nfuncs; i++) {
        assert_int_equal(a->p.funcs[i].hits, b->p.funcs[i].hits);
        assert_int_equal(a->p.funcs[i].counter1_total, b->p.funcs[i].counter1_total);
        assert_int_equal(a->p.funcs[i].counter1_self, b->p.funcs[i].counter1_self);
    }
    assert_int_equal(a->p.nedges, b->p.nedges);
    if (a->p.nedges > 0)
        assert_memory_equal(a->p.edges, b->p.edges, a->p.nedges * sizeof *a->p.edges);
    assert_int_equal(a->p.nproximity, b->p.nproximity);
    if (a->p.nproximity > 0)
        assert_memory_equal(a->p.proximity, b->p.proximity,
                            a->p.nproximity * sizeof *a->p.proximity);
}

/* Reads bytes as version v on one thread into *one and on two into *two; also on two with the
 * calling thread reading every chunk, which must give the same as both. */
static void run_both(run_t *one, run_t *two, const uint8_t *bytes, size_t size,
                     lg_wi_bin_version_t v)
{
    use_threads(ONE_THREAD);
    run_bytes(one, "t.BIN", bytes, size, v, NULL);
    run_t caller;
    for (int way = TWO_THREADS; way <= CALLER_READS; way++) {
        use_threads(way);
        threads_asked = 0;
        run_t *r = way == TWO_THREADS ? two : &caller;
        run_bytes(r, "t.BIN", bytes, size, v, NULL);
        /* A file that the version detection read whole needs no thread. */
        assert_int_equal(threads_asked,
                         v != LG_WI_BIN_DETECT || size > (size_t)(4608u * 1024u) ? 1 : 0);
        assert_same_run(one, r);
    }
    use_threads(TWO_THREADS);
    run_destroy(&caller);
}

/* Files of one to many chunks, each layout, detected or given: both ways give the profile the
 * records add up to. */
static void test_large_same_profile(void **state)
{
    (void)state;
    /* Copies of 13 records: less than a chunk, just under and over one, two, and 40 chunks
     * (more than the ring holds, and more than the version detection reads). */
    static const size_t copies[] = {1, CHUNK / ONE_CORE_N, CHUNK / ONE_CORE_N + 1,
                                    2 * CHUNK / ONE_CORE_N, 40 * CHUNK / ONE_CORE_N + 3};
    static const struct {
        lg_wi_bin_version_t written, read_as;
    } ways[] = {{LG_WI_BIN_V1_1, LG_WI_BIN_V1_1},
                {LG_WI_BIN_V1_0, LG_WI_BIN_V1_0},
                {LG_WI_BIN_V1_1, LG_WI_BIN_DETECT},
                {LG_WI_BIN_V1_0, LG_WI_BIN_DETECT}};
    for (size_t w = 0; w < sizeof ways / sizeof *ways; w++) {
        for (size_t i = 0; i < sizeof copies / sizeof *copies; i++) {
            size_t size, n = copies[i];
            uint8_t *bytes = repeat_one_core(n, ways[w].written, &size);
            run_t one, two;
            run_both(&one, &two, bytes, size, ways[w].read_as);
            assert_clean(&two);
            assert_func(&two, "main", n, 30 * n, 20 * n);
            assert_func(&two, "a", n, 10 * n, 10 * n);
            assert_int_equal(edge(&two, "main", "a"), n);
            assert_int_equal(lg_timeline_stats(two.t)->events, one_core_events(n * ONE_CORE_N));
            run_destroy(&one);
            run_destroy(&two);
            free(bytes);
        }
    }
}

/* Random events on four cores, many repaired (lost events, time going back): both ways give the
 * same profile and the same warning. */
static void test_large_random_same(void **state)
{
    (void)state;
    static const uint32_t handles[] = {H_MAIN, H_A, H_B, H_LINE, H_VAR, H_STATE, H_AUX};
    static const unsigned cores[] = {0, 1, 2, 0xFF};
    lg_test_seed(14);
    size_t n = 37 * CHUNK + 11;
    rec_t *recs = malloc(n * sizeof *recs);
    assert_non_null(recs);
    int64_t time = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = lg_test_rng();
        time += (int64_t)(x % 7) - 1; /* now and then back in time */
        recs[i] = (rec_t){handles[(x >> 8) % 7], (unsigned)((x >> 16) % 5), cores[(x >> 24) % 4],
                          time, x >> 32};
    }
    for (int v = 0; v < 2; v++) {
        lg_wi_bin_version_t version = v == 0 ? LG_WI_BIN_V1_1 : LG_WI_BIN_V1_0;
        uint8_t *bytes = encode(recs, n, version);
        run_t one, two;
        run_both(&one, &two, bytes, n * LG_WI_BIN_RECORD_BYTES, LG_WI_BIN_DETECT);
        assert_int_equal(two.err, LG_OK);
        assert_int_equal(two.d.warnings, 1);
        assert_true(two.p.nedges > 0 && two.p.nproximity > 0);
        run_destroy(&one);
        run_destroy(&two);
        free(bytes);
    }
    free(recs);
}

/* A record chunks deep is refused: both ways name it, after the events before it went in. */
static void test_large_bad_record(void **state)
{
    (void)state;
    size_t copies = 40 * CHUNK / ONE_CORE_N, size;
    /* Past the records the version detection reads, and the ring's first round. */
    size_t at[] = {25 * CHUNK + 4, 25 * CHUNK, 25 * CHUNK - 1};
    for (int v = 0; v < 2; v++) {
        lg_wi_bin_version_t version = v == 0 ? LG_WI_BIN_V1_1 : LG_WI_BIN_V1_0;
        for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
            size_t i = at[k];
            const rec_t *rec = &one_core[i % ONE_CORE_N];
            char needle[300];
            run_t one, two;
            /* A handle the mapping does not list. */
            uint8_t *bytes = repeat_one_core(copies, version, &size);
            put32(bytes + i * LG_WI_BIN_RECORD_BYTES, H_UNKNOWN);
            run_both(&one, &two, bytes, size, LG_WI_BIN_DETECT);
            snprintf(
                needle, sizeof needle,
                "t.BIN:0x%zx: record %zu: handle 0x00000007 (%s event) is not in the main "
                "file's mapping",
                i * LG_WI_BIN_RECORD_BYTES, i,
                (const char *[]){"Exit", "Suspend", "Resume", "Entry", "Data write"}[rec->type]);
            assert_fails(&two, LG_EFORMAT, needle);
            assert_int_equal(lg_timeline_stats(two.t)->events, one_core_events(i));
            run_destroy(&one);
            run_destroy(&two);
            /* An unknown event type, on core 2 (1.1). */
            put32(bytes + i * LG_WI_BIN_RECORD_BYTES, rec->handle);
            uint32_t word = version == LG_WI_BIN_V1_1 ? 2u << 4 | 7u : 7u << 24;
            put32(bytes + i * LG_WI_BIN_RECORD_BYTES + 4, word);
            run_both(&one, &two, bytes, size, version);
            snprintf(needle, sizeof needle,
                     "t.BIN:0x%zx: record %zu: unknown event type 7 (%s 0x%08" PRIx32
                     ", layout %s): expected 0 Exit",
                     i * LG_WI_BIN_RECORD_BYTES, i, v == 0 ? "FLAGS" : "EVENT", word,
                     v == 0 ? "1.1" : "1.0");
            assert_fails(&two, LG_EFORMAT, needle);
            assert_int_equal(lg_timeline_stats(two.t)->events, one_core_events(i));
            run_destroy(&one);
            run_destroy(&two);
            free(bytes);
        }
    }
}

/* The timeline runs out of memory chunks deep (the map of main's callees, at its first call):
 * both ways name the record. */
static void test_large_out_of_memory(void **state)
{
    (void)state;
    /* main enters and exits over and over, then calls a, at record 2 * pairs + 1. */
    size_t pairs = 20 * CHUNK, n = 2 * pairs + 4;
    rec_t *recs = calloc(n, sizeof *recs);
    assert_non_null(recs);
    for (size_t i = 0; i < pairs; i++) {
        recs[2 * i] = (rec_t){H_MAIN, E, 0, (int64_t)(2 * i), 0};
        recs[2 * i + 1] = (rec_t){H_MAIN, X, 0, (int64_t)(2 * i + 1), 0};
    }
    recs[n - 4] = (rec_t){H_MAIN, E, 0, (int64_t)n, 0};
    recs[n - 3] = (rec_t){H_A, E, 0, (int64_t)n, 0};
    recs[n - 2] = (rec_t){H_A, X, 0, (int64_t)n, 0};
    recs[n - 1] = (rec_t){H_MAIN, X, 0, (int64_t)n, 0};
    uint8_t *bytes = encode(recs, n, LG_WI_BIN_V1_1);
    char needle[200];
    snprintf(needle, sizeof needle,
             "t.BIN:0x%zx: record %zu: out of memory adding the Entry of handle 0x00000001",
             (n - 3) * LG_WI_BIN_RECORD_BYTES, n - 3);
    run_t r[WAYS];
    for (int way = 0; way < WAYS; way++) {
        use_threads(way);
        run_start(&r[way]);
        const char *path = lg_test_write_file("t.BIN", bytes, n * LG_WI_BIN_RECORD_BYTES);
        refuse_small = true;
        r[way].err = lg_wi_bin_read(path, LG_WI_BIN_DETECT, r[way].map, r[way].t, NULL, &r[way].d);
        refuse_small = false;
        assert_fails(&r[way], LG_ENOMEM, needle);
        assert_int_equal(lg_timeline_stats(r[way].t)->events, n - 3);
    }
    for (int way = 1; way < WAYS; way++)
        assert_same_run(&r[0], &r[way]);
    for (int way = 0; way < WAYS; way++)
        run_destroy(&r[way]);
    free(bytes);
    free(recs);
}

typedef struct progress_check {
    pthread_t caller; /* the thread that called lg_wi_bin_read */
    unsigned calls;
    uint64_t last, total;
    bool spaced;    /* every report but the last LG_SOURCE_PROGRESS_BYTES after the one before */
    bool on_caller; /* every report on the calling thread */
    uint64_t shrink_to; /* 0, or truncate the file to this at the first report */
} progress_check_t;

static void check_progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
    progress_check_t *c = ctx;
    c->on_caller &= pthread_equal(pthread_self(), c->caller) != 0;
    if (c->calls > 0 && done < total)
        c->spaced &= done >= c->last + LG_SOURCE_PROGRESS_BYTES;
    c->spaced &= c->calls == 0 || done > c->last;
    c->calls++;
    c->last = done;
    c->total = total;
    if (c->shrink_to > 0 && c->calls == 1)
        assert_int_equal(truncate(path, (off_t)c->shrink_to), 0);
}

/* Progress of a large file: told on the calling thread, every 4 MiB and at the end. */
static void test_large_progress(void **state)
{
    (void)state;
    size_t size;
    uint8_t *bytes = repeat_one_core(60 * CHUNK / ONE_CORE_N, LG_WI_BIN_V1_1, &size);
    for (int way = 0; way < WAYS; way++) {
        use_threads(way);
        progress_check_t c = {pthread_self(), 0, 0, 0, true, true, 0};
        lg_load_options_t options = {.progress = check_progress, .progress_ctx = &c};
        run_t r;
        run_bytes(&r, "t.BIN", bytes, size, LG_WI_BIN_DETECT, &options);
        assert_clean(&r);
        assert_true(c.on_caller);
        assert_true(c.spaced);
        assert_int_equal(c.calls, size / LG_SOURCE_PROGRESS_BYTES + 1);
        assert_int_equal(c.last, size);
        assert_int_equal(c.total, size);
        run_destroy(&r);
    }
    free(bytes);
}

/* A file that shrinks while it is read, ahead of where the reading is: both ways name the
 * offset where it ended. */
static void test_large_shrinks(void **state)
{
    (void)state;
    size_t size;
    uint8_t *bytes = repeat_one_core(60 * CHUNK / ONE_CORE_N, LG_WI_BIN_V1_1, &size);
    /* Cut at the first report (4 MiB read), to 8 MiB and 5 bytes: past what either way has read
     * by then (the ring holds 1.5 MiB). */
    uint64_t cut = 8u * 1024u * 1024u + 5u;
    assert_true(size > cut);
    char needle[200];
    snprintf(needle, sizeof needle,
             "t.BIN: the file ended at offset 0x%" PRIx64 " while being read: it shrank since it "
             "was opened",
             cut);
    for (int way = 0; way < WAYS; way++) {
        use_threads(way);
        progress_check_t c = {pthread_self(), 0, 0, 0, true, true, cut};
        lg_load_options_t options = {.progress = check_progress, .progress_ctx = &c};
        run_t r;
        run_bytes(&r, "t.BIN", bytes, size, LG_WI_BIN_V1_1, &options);
        assert_fails(&r, LG_EIO, needle);
        assert_true(c.on_caller);
        run_destroy(&r);
    }
    free(bytes);
}

/* No thread to be had: the file is read on the calling thread, to the same profile. */
static void test_large_no_thread(void **state)
{
    (void)state;
    size_t size, n = 20 * CHUNK / ONE_CORE_N;
    uint8_t *bytes = repeat_one_core(n, LG_WI_BIN_V1_0, &size);
    use_threads(TWO_THREADS);
    threads_asked = 0;
    refuse_threads = true;
    run_t r;
    run_bytes(&r, "t.BIN", bytes, size, LG_WI_BIN_V1_0, NULL);
    refuse_threads = false;
    assert_int_equal(threads_asked, 1);
    assert_clean(&r);
    assert_func(&r, "main", n, 30 * n, 20 * n);
    assert_func(&r, "a", n, 10 * n, 10 * n);
    assert_int_equal(edge(&r, "main", "a"), n);
    run_destroy(&r);
    free(bytes);
}

/* Group set-ups: how lg_wi_bin_read runs for the group; the teardown puts the default back. */
static int default_threads(void **state)
{
    (void)state;
    lg_i_wi_bin_set_pipeline_min(LG_WI_BIN_PIPELINE_MIN_BYTES);
    lg_i_wi_bin_set_reader_idle(false);
    return 0;
}

static int one_thread(void **state)
{
    (void)state;
    use_threads(ONE_THREAD);
    return 0;
}

static int two_threads(void **state)
{
    (void)state;
    use_threads(TWO_THREADS);
    return 0;
}

static int caller_reads(void **state)
{
    (void)state;
    use_threads(CALLER_READS);
    return 0;
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
    /* The tests above that give the version, or read a file larger than the version detection
     * reads (up to 4.5 MiB, on the calling thread), for the groups that choose one thread or
     * two: the others' small files are read by the detection whatever the choice. */
    const struct CMUnitTest either_way[] = {
        cmocka_unit_test(test_v10_one_core),
        cmocka_unit_test(test_v11_multi_core),
        cmocka_unit_test(test_unknown_type),
        cmocka_unit_test(test_bad_version_and_missing_file),
        cmocka_unit_test(test_depth_limit_error),
    };
    const struct CMUnitTest large[] = {
        cmocka_unit_test(test_large_same_profile), cmocka_unit_test(test_large_random_same),
        cmocka_unit_test(test_large_bad_record),   cmocka_unit_test(test_large_out_of_memory),
        cmocka_unit_test(test_large_progress),     cmocka_unit_test(test_large_shrinks),
        cmocka_unit_test(test_large_no_thread),
    };
    int failed = 0;
    failed += cmocka_run_group_tests_name("default", tests, default_threads, default_threads);
    failed += cmocka_run_group_tests_name("one thread", either_way, one_thread, default_threads);
    failed += cmocka_run_group_tests_name("two threads", either_way, two_threads, default_threads);
    failed += cmocka_run_group_tests_name("two threads, the calling thread reading", either_way,
                                          caller_reads, default_threads);
    failed += cmocka_run_group_tests_name("large files", large, NULL, default_threads);
    return failed;
}
