/* lgtimeline.c - the tracer's timeline output (see lgtimeline.h).
 *
 * Handles are dense: the n-th function seen gets handle n (top nibble 0: a function area). The
 * .BIN records are 24 bytes, little-endian, version 1.1: HANDLE u32, FLAGS u32 (core index 0 in
 * bits 4-11, event type in bits 0-3), DATA u64 (0), TIME s64 in ns since the first event. They
 * go through a buffer to a temporary file; lgtl_close renames it and writes the main file:
 *
 *   * INFO %TOTAL_TIME%
 *   <ns from the first to the last event>
 *   * HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%
 *   00000000,main,
 *   00000001,"util.c"#helper,        <- a static function: "source file"#name
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */

#include "lgtimeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LGTL_NOINSTR __attribute__((no_instrument_function))

#define LGTL_RECORD_BYTES 24u
#define LGTL_BUFFER_BYTES (1u << 20) /* bytes of records written at once */
#define LGTL_MAX_FUNCS (1u << 20)    /* distinct functions (handles) */
#define LGTL_HASH_BITS 21u           /* slots: twice LGTL_MAX_FUNCS, load <= 0.5 */
#define LGTL_PATH_MAX 4096u

static struct {
    bool open, failed;
    FILE *bin;
    char main_path[LGTL_PATH_MAX], bin_path[LGTL_PATH_MAX + 8u], bin_tmp[LGTL_PATH_MAX + 32u];
    uint8_t buf[LGTL_BUFFER_BYTES];
    size_t used;
    uintptr_t *slot_fn; /* hash: function address, 0 = empty */
    uint32_t *slot_handle;
    uintptr_t *fn_of; /* per handle: the function address */
    uint32_t nfuncs;
    bool funcs_full;
    uint64_t t0, t_last;
    bool have_t0;
    uint64_t events;
} tl;

LGTL_NOINSTR static void *reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

LGTL_NOINSTR bool lgtl_open(const char *main_path)
{
    if (strlen(main_path) >= LGTL_PATH_MAX) {
        fprintf(stderr, "lgtrace: LGTRACE_TIMELINE: error: path longer than %u bytes\n",
                LGTL_PATH_MAX - 1u);
        return false;
    }
    strcpy(tl.main_path, main_path);
    snprintf(tl.bin_path, sizeof tl.bin_path, "%s.BIN", main_path);
    snprintf(tl.bin_tmp, sizeof tl.bin_tmp, "%s.tmp.%ld", tl.bin_path, (long)getpid());
    tl.slot_fn = reserve(((size_t)1 << LGTL_HASH_BITS) * sizeof *tl.slot_fn);
    tl.slot_handle = reserve(((size_t)1 << LGTL_HASH_BITS) * sizeof *tl.slot_handle);
    tl.fn_of = reserve((size_t)LGTL_MAX_FUNCS * sizeof *tl.fn_of);
    if (tl.slot_fn == NULL || tl.slot_handle == NULL || tl.fn_of == NULL) {
        fprintf(stderr, "lgtrace: %s: error: cannot reserve memory for the timeline\n",
                tl.bin_path);
        return false;
    }
    tl.bin = fopen(tl.bin_tmp, "wb");
    if (tl.bin == NULL) {
        fprintf(stderr, "lgtrace: %s: error: cannot create: %s\n", tl.bin_tmp, strerror(errno));
        return false;
    }
    tl.open = true;
    return true;
}

/* The handle of fn, given on first sight; UINT32_MAX past LGTL_MAX_FUNCS. */
LGTL_NOINSTR static uint32_t handle_of(uintptr_t fn)
{
    uint32_t mask = (1u << LGTL_HASH_BITS) - 1u;
    uint32_t s = (uint32_t)(((uint64_t)fn * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    while (tl.slot_fn[s] != 0 && tl.slot_fn[s] != fn)
        s = (s + 1u) & mask;
    if (tl.slot_fn[s] == fn)
        return tl.slot_handle[s];
    if (tl.nfuncs == LGTL_MAX_FUNCS) {
        tl.funcs_full = true;
        return UINT32_MAX;
    }
    tl.slot_fn[s] = fn;
    tl.slot_handle[s] = tl.nfuncs;
    tl.fn_of[tl.nfuncs] = fn;
    return tl.nfuncs++;
}

LGTL_NOINSTR static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8u * i));
}

LGTL_NOINSTR static void flush(void)
{
    if (tl.used > 0 && !tl.failed && fwrite(tl.buf, 1, tl.used, tl.bin) != tl.used) {
        fprintf(stderr, "lgtrace: %s: error: cannot write: %s\n", tl.bin_tmp, strerror(errno));
        tl.failed = true;
    }
    tl.used = 0;
}

LGTL_NOINSTR void lgtl_event(uintptr_t fn, unsigned type, uint64_t t_ns)
{
    if (!tl.open || tl.failed)
        return;
    uint32_t h = handle_of(fn);
    if (h == UINT32_MAX)
        return; /* reported at close */
    if (!tl.have_t0) {
        tl.t0 = t_ns;
        tl.have_t0 = true;
    }
    tl.t_last = t_ns;
    if (tl.used + LGTL_RECORD_BYTES > sizeof tl.buf)
        flush();
    uint8_t *r = tl.buf + tl.used;
    put_le(r, h, 4);
    put_le(r + 4, type & 0xFu, 4); /* core index 0 */
    put_le(r + 8, 0, 8);
    put_le(r + 16, t_ns - tl.t0, 8);
    tl.used += LGTL_RECORD_BYTES;
    tl.events++;
}

/* Writes the Text1 main file through a temporary name. */
LGTL_NOINSTR static bool write_main(lgtl_name_fn name_of, void *ctx)
{
    char tmp[LGTL_PATH_MAX + 32u];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", tl.main_path, (long)getpid());
    FILE *fp = fopen(tmp, "w");
    if (fp == NULL) {
        fprintf(stderr, "lgtrace: %s: error: cannot create: %s\n", tmp, strerror(errno));
        return false;
    }
    fprintf(fp, "* INFO %%TOTAL_TIME%%\n%llu\n", (unsigned long long)(tl.t_last - tl.t0));
    fprintf(fp, "* HANDLE(Functions) %%HANDLE%%,%%NAME%%,%%VALUE%%\n");
    for (uint32_t h = 0; h < tl.nfuncs; h++) {
        const char *name = NULL, *file = NULL;
        name_of(ctx, tl.fn_of[h], &name, &file);
        if (file != NULL)
            fprintf(fp, "%08X,\"%s\"#%s,\n", h, file, name);
        else
            fprintf(fp, "%08X,%s,\n", h, name);
    }
    bool ok = fflush(fp) == 0 && !ferror(fp);
    ok = fclose(fp) == 0 && ok;
    if (!ok || rename(tmp, tl.main_path) != 0) {
        fprintf(stderr, "lgtrace: %s: error: cannot write: %s\n", tl.main_path, strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

LGTL_NOINSTR bool lgtl_close(lgtl_name_fn name_of, void *ctx)
{
    if (!tl.open)
        return false;
    tl.open = false;
    flush();
    bool ok = fclose(tl.bin) == 0 && !tl.failed;
    if (ok && rename(tl.bin_tmp, tl.bin_path) != 0) {
        fprintf(stderr, "lgtrace: %s: error: cannot rename %s to it: %s\n", tl.bin_path, tl.bin_tmp,
                strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlink(tl.bin_tmp);
        return false;
    }
    if (!write_main(name_of, ctx)) {
        unlink(tl.bin_path);
        return false;
    }
    if (tl.funcs_full)
        fprintf(stderr,
                "lgtrace: %s: warning: more than %u functions; the events of the others were "
                "left out\n",
                tl.main_path, LGTL_MAX_FUNCS);
    if (getenv("LGTRACE_VERBOSE") != NULL)
        fprintf(stderr, "lgtrace: %s: note: %u functions, %llu events\n", tl.main_path, tl.nfuncs,
                (unsigned long long)tl.events);
    return true;
}
