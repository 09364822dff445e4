/* fuzz_util.c - scratch files and contract checks for the fuzz targets (fuzz_util.h). */
#include "fuzz_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest scratch path: the directory plus a short file name. */
#define FZ_PATH_MAX 512u

static char scratch[FZ_PATH_MAX];
static char last_path[FZ_PATH_MAX];

/* The events of lg_fz_small_bin as (handle, type, time in ns); types are winIDEA's codes. */
static const struct {
    uint32_t handle, type;
    int64_t time;
} small_events[] = {
    {0, 3, 0},  /* Entry of 0 */
    {0, 1, 10}, /* 0 suspends to call 1 */
    {1, 3, 10}, /* Entry of 1 */
    {1, 0, 20}, /* Exit of 1 */
    {0, 2, 20}, /* 0 resumes */
    {0, 0, 30}, /* Exit of 0 */
};

const uint8_t *lg_fz_small_bin(size_t *size)
{
    static uint8_t bin[sizeof small_events / sizeof *small_events * LG_FZ_BIN_RECORD];
    for (size_t i = 0; i < sizeof small_events / sizeof *small_events; i++) {
        uint8_t *r = bin + i * LG_FZ_BIN_RECORD;
        /* v1.1 layout: HANDLE u32, FLAGS u32 (type in bits 0-3, core 0), DATA u64, TIME s64 */
        uint64_t fields[] = {small_events[i].handle, small_events[i].type, 0,
                             (uint64_t)small_events[i].time};
        static const unsigned widths[] = {4, 4, 8, 8};
        for (size_t f = 0, at = 0; f < 4; at += widths[f], f++)
            for (unsigned b = 0; b < widths[f]; b++)
                r[at + b] = (uint8_t)(fields[f] >> (8 * b));
    }
    *size = sizeof bin;
    return bin;
}

static void fz_die(const char *what)
{
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
}

static void remove_scratch(void)
{
    /* Only files this process wrote live here, all named by the targets; remove what is left. */
    static const char *const names[] = {"input",      "export.txt",   "export.BIN",
                                        "export.xml", "timeline.BIN", "input.elf"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        lg_fz_remove(names[i]);
    rmdir(scratch);
}

static const char *scratch_dir(void)
{
    if (scratch[0] != '\0')
        return scratch;
    /* /dev/shm keeps the per-input file writes off the disk; /tmp otherwise. */
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/lorgen-fuzz.XXXXXX", base);
    if (mkdtemp(scratch) == NULL)
        fz_die("cannot create a scratch directory");
    atexit(remove_scratch);
    return scratch;
}

const char *lg_fz_write(const char *name, const uint8_t *data, size_t size)
{
    snprintf(last_path, sizeof last_path, "%s/%s", scratch_dir(), name);
    FILE *f = fopen(last_path, "wb");
    if (f == NULL)
        fz_die("cannot open a scratch file");
    bool short_write = size > 0 && fwrite(data, 1, size, f) != size;
    if (fclose(f) != 0 || short_write)
        fz_die("cannot write a scratch file");
    return last_path;
}

void lg_fz_remove(const char *name)
{
    char path[FZ_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", scratch_dir(), name);
    unlink(path);
}

void lg_fz_check_diag(lg_err_t err, const lg_diag_t *d)
{
    if (err != LG_OK && d->errors == 0)
        fz_die("a load failed without an error diagnostic");
    if (err == LG_OK && d->errors != 0)
        fz_die("a load succeeded but recorded an error");
    for (size_t i = 0; i < d->count; i++)
        if (d->entries[i].where == NULL || d->entries[i].message == NULL)
            fz_die("a diagnostic without a location or message");
}

void lg_fz_check_profile(lg_err_t err, const lg_profile_t *p, const lg_diag_t *d)
{
    lg_fz_check_diag(err, d);
    if (err != LG_OK) {
        if (p->nfuncs != 0 || p->nedges != 0 || p->ncosts != 0 || p->nproximity != 0)
            fz_die("a failed load left a profile that is not empty");
        return;
    }
    for (size_t i = 0; i < p->nfuncs; i++)
        if (p->funcs[i].name == NULL || p->funcs[i].name[0] == '\0')
            fz_die("a function without a name");
    for (size_t i = 0; i < p->nedges; i++)
        if (p->edges[i].caller >= p->nfuncs || p->edges[i].callee >= p->nfuncs)
            fz_die("a call edge out of range");
    for (size_t i = 0; i < p->nproximity; i++)
        if (p->proximity[i].a >= p->nfuncs || p->proximity[i].b >= p->nfuncs || p->proximity[i].a >= p->proximity[i].b)
            fz_die("a proximity pair out of range");
    for (size_t i = 0; i < p->ncosts; i++)
        if (p->costs[i].func >= p->nfuncs)
            fz_die("a position cost out of range");
}

void lg_fz_load_file(const char *name, const uint8_t *data, size_t size, lg_fz_path_loader_t load)
{
    const char *path = lg_fz_write(name, data, size);
    lg_profile_t p;
    lg_diag_t d;
    lg_profile_init(&p);
    lg_diag_init(&d);
    lg_err_t err = lg_load_file(load, path, NULL, &p, &d);
    lg_fz_check_profile(err, &p, &d);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
}

void lg_fz_load_winidea_export(const char *name, const uint8_t *data, size_t size,
                               lg_fz_path_loader_t load)
{
    if (size % 2 == 1) {
        size_t bin_size;
        const uint8_t *bin = lg_fz_small_bin(&bin_size);
        lg_fz_write("export.BIN", bin, bin_size);
    } else {
        lg_fz_remove("export.BIN");
    }
    lg_fz_load_file(name, data, size, load);
}
