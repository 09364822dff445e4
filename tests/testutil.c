/* testutil.c - helpers shared by the cmocka unit tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *lg_test_write_file(const char *name, const void *data, size_t size)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", LORGEN_TEST_TMPDIR, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (size > 0)
        assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    return path;
}

bool lg_test_small(const char *what)
{
    const char *small = getenv("LORGEN_TEST_SMALL");
    if (small == NULL || strcmp(small, "1") != 0)
        return false;
    print_message("small size (LORGEN_TEST_SMALL=1): %s\n", what);
    return true;
}

FILE *lg_test_stream_open(lg_test_stream_t *s, const void *data, size_t size)
{
    s->copy = malloc(size > 0 ? size : 1);
    assert_non_null(s->copy);
    memcpy(s->copy, data, size);
    /* fmemopen cannot open an empty buffer. */
    s->f = size > 0 ? fmemopen(s->copy, size, "r") : fopen("/dev/null", "r");
    assert_non_null(s->f);
    return s->f;
}

void lg_test_stream_close(lg_test_stream_t *s)
{
    fclose(s->f);
    free(s->copy);
}

uint8_t *lg_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

bool lg_test_diag_has(const lg_diag_t *d, lg_severity_t sev, const char *needle)
{
    char line[8192];
    for (size_t i = 0; i < d->count; i++) {
        if (d->entries[i].severity != sev)
            continue;
        snprintf(line, sizeof line, "%s: %s", d->entries[i].where, d->entries[i].message);
        if (strstr(line, needle) != NULL)
            return true;
    }
    return false;
}

void lg_test_diag_dump(const lg_diag_t *d)
{
    static const char *names[] = {"note", "warning", "error", "alert"};
    for (size_t i = 0; i < d->count; i++)
        print_message("  diag %s: %s: %s\n", names[d->entries[i].severity], d->entries[i].where,
                      d->entries[i].message);
}

/* The descriptor standard error had before lg_test_stderr_begin, or -1 outside a capture. */
static int saved_stderr = -1;

void lg_test_stderr_begin(void)
{
    assert_int_equal(saved_stderr, -1);
    char path[4096];
    snprintf(path, sizeof path, "%s/stderr.txt", LORGEN_TEST_TMPDIR);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    assert_true(saved_stderr >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    close(fd);
}

const char *lg_test_stderr_end(void)
{
    static char text[16384];
    assert_true(saved_stderr >= 0);
    fflush(stderr);
    assert_true(dup2(saved_stderr, STDERR_FILENO) >= 0);
    close(saved_stderr);
    saved_stderr = -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/stderr.txt", LORGEN_TEST_TMPDIR);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

int lg_test_run(const char *command)
{
    int status = system(command);
    if (status == -1 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

bool lg_test_have(const char *program)
{
    char command[1024];
    snprintf(command, sizeof command, "command -v '%s' >/dev/null 2>&1", program);
    return lg_test_run(command) == 0;
}

static uint64_t rng_state;

void lg_test_seed(uint64_t seed)
{
    rng_state = seed;
}

uint64_t lg_test_rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

void lg_test_load_file(lg_test_loaded_t *r, lg_read_fn read, const char *path,
                       const lg_load_options_t *options)
{
    lg_profile_init(&r->p);
    lg_diag_init(&r->d);
    r->err = lg_load_file(read, path, options, &r->p, &r->d);
}

void lg_test_load_bytes(lg_test_loaded_t *r, lg_read_fn read, const void *data, size_t size,
                        const char *name, const lg_load_options_t *options)
{
    uint8_t *copy = malloc(size > 0 ? size : 1);
    assert_non_null(copy);
    if (size > 0)
        memcpy(copy, data, size);
    lg_profile_init(&r->p);
    lg_diag_init(&r->d);
    r->err = lg_load_memory(read, copy, size, name, options, &r->p, &r->d);
    free(copy);
}

void lg_test_assert_profile_empty(const lg_profile_t *p)
{
    assert_int_equal(p->nfuncs, 0);
    assert_null(p->funcs);
    assert_int_equal(p->nedges, 0);
    assert_null(p->edges);
    assert_int_equal(p->nproximity, 0);
    assert_int_equal(p->ncosts, 0);
    assert_null(p->costs);
    assert_int_equal(p->njumps, 0);
    assert_null(p->path);
    assert_null(p->format);
    assert_null(p->counter1_unit);
    assert_int_equal(p->total_hits, 0);
    assert_int_equal(p->call_records, 0);
}

void lg_test_loaded_destroy(lg_test_loaded_t *r)
{
    lg_profile_destroy(&r->p);
    lg_diag_destroy(&r->d);
}

void lg_test_assert_loaded_clean(const lg_test_loaded_t *r)
{
    if (r->err != LG_OK || r->d.count != 0)
        lg_test_diag_dump(&r->d);
    assert_int_equal(r->err, LG_OK);
    assert_int_equal(r->d.count, 0);
}

void lg_test_assert_one_error(const lg_test_loaded_t *r, lg_err_t err, const char *want)
{
    char got[4096] = "";
    if (r->d.count > 0)
        snprintf(got, sizeof got, "%s: %s", r->d.entries[0].where, r->d.entries[0].message);
    if (r->err != err || r->d.errors != 1 || strcmp(got, want) != 0) {
        print_message("  expected: %s\n", want);
        lg_test_diag_dump(&r->d);
    }
    assert_int_equal(r->err, err);
    assert_int_equal(r->d.errors, 1);
    assert_string_equal(got, want);
}

void lg_test_assert_one_error_has(lg_err_t got, const lg_diag_t *d, lg_err_t err,
                                  const char *needle)
{
    if (got != err || d->errors != 1 || !lg_test_diag_has(d, LG_ERROR, needle)) {
        print_message("  expected: %s\n", needle);
        lg_test_diag_dump(d);
    }
    assert_int_equal(got, err);
    assert_int_equal(d->errors, 1);
    assert_true(lg_test_diag_has(d, LG_ERROR, needle));
}

const lg_pfunc_t *lg_test_func(const lg_profile_t *p, const char *name, const char *qual)
{
    int64_t i = lg_profile_find(p, name, NULL, qual);
    if (i < 0)
        print_message("  no function %s [%s]\n", name, qual ? qual : "-");
    assert_true(i >= 0);
    return &p->funcs[i];
}

void lg_test_assert_func_times(const lg_profile_t *p, const char *name, uint64_t hits,
                               uint64_t gross, uint64_t net)
{
    int64_t i = lg_profile_find(p, name, NULL, NULL);
    assert_true(i >= 0);
    const lg_pfunc_t *f = &p->funcs[i];
    if (f->hits != hits || f->counter1_total != gross || f->counter1_self != net)
        print_message("  %s: hits %llu gross %llu net %llu\n", name, (unsigned long long)f->hits,
                      (unsigned long long)f->counter1_total, (unsigned long long)f->counter1_self);
    assert_int_equal(f->hits, hits);
    assert_int_equal(f->counter1_total, gross);
    assert_int_equal(f->counter1_self, net);
}

int64_t lg_test_func_index(const lg_profile_t *p, const char *name, const char *qual)
{
    for (size_t i = 0; i < p->nfuncs; i++) {
        const lg_pfunc_t *f = &p->funcs[i];
        bool same_qual = qual == NULL ? f->qual_name == NULL
                                      : f->qual_name != NULL && strcmp(f->qual_name, qual) == 0;
        if (strcmp(f->name, name) == 0 && same_qual)
            return (int64_t)i;
    }
    return -1;
}

int64_t lg_test_edge_weight(const lg_profile_t *p, int64_t from, int64_t to)
{
    assert_true(from >= 0);
    assert_true(to >= 0);
    for (size_t i = 0; i < p->nedges; i++)
        if (p->edges[i].caller == (uint32_t)from && p->edges[i].callee == (uint32_t)to)
            return (int64_t)p->edges[i].weight;
    return -1;
}

int64_t lg_test_edge(const lg_profile_t *p, const char *caller, const char *callee)
{
    return lg_test_edge_weight(p, lg_profile_find(p, caller, NULL, NULL),
                               lg_profile_find(p, callee, NULL, NULL));
}

int64_t lg_test_cost_at(const lg_profile_t *p, const lg_pfunc_t *f, uint64_t position)
{
    uint32_t id = (uint32_t)(f - p->funcs);
    int64_t sum = -1;
    for (size_t i = 0; i < p->ncosts; i++)
        if (p->costs[i].func == id && p->costs[i].position == position)
            sum = (sum < 0 ? 0 : sum) + (int64_t)p->costs[i].cost;
    return sum;
}

void lg_test_assert_no_flooding(lg_test_timed_load_fn load, const void *plain, const void *flood,
                                size_t n, int repeats, double max_ratio, const char *what)
{
    double plain_best = 1e9, flood_best = 1e9;
    for (int r = 0; r < repeats; r++) {
        double t = load(plain, n, 1e9);
        plain_best = t < plain_best ? t : plain_best;
    }
    /* The allowance gets a millisecond on top, so that a very fast plain load is no trap. */
    double allowed = max_ratio * plain_best + 1e-3;
    for (int r = 0; r < repeats; r++) {
        double t = load(flood, n, allowed);
        if (t < 0) {
            flood_best = t;
            break;
        }
        flood_best = t < flood_best ? t : flood_best;
    }
    printf("%zu ordinary %s: %.4f s; %zu colliding %s: %s%.4f s\n", n, what, plain_best, n, what,
           flood_best < 0 ? "gave up after " : "", flood_best < 0 ? allowed : flood_best);
    assert_true(flood_best >= 0);
    assert_true(flood_best <= allowed);
}
