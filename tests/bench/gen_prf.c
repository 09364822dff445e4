/* gen_prf.c - writes a synthetic CodeScape .prf trace profile for benchmarks: a random
 * calling-context tree over functions f0..fN-1 whose callee choice is skewed so that a few
 * functions are hot, as in real programs.
 *
 *   lg_gen_prf FUNCTIONS CALL_RECORDS SEED OUT.prf [statistical]
 *
 * With "statistical", the same hits are written as a statistical profile: function records
 * only, no trace.
 */
#include "prf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest call path the generator builds. */
#define GEN_MAX_DEPTH 48u
/* Chance, in percent, that the walk returns instead of calling deeper. */
#define GEN_RETURN_PCT 45u

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* xorshift64*: deterministic for a seed, fast, good enough for a workload shape. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* A callee skewed toward low numbers: the minimum of three uniform draws. */
static uint32_t pick_callee(uint32_t n)
{
    uint32_t a = (uint32_t)(rng() % n), b = (uint32_t)(rng() % n), c = (uint32_t)(rng() % n);
    uint32_t m = a < b ? a : b;
    return m < c ? m : c;
}

int main(int argc, char **argv)
{
    if (argc != 5 && !(argc == 6 && strcmp(argv[5], "statistical") == 0)) {
        fprintf(stderr, "usage: lg_gen_prf FUNCTIONS CALL_RECORDS SEED OUT.prf [statistical]\n");
        return 2;
    }
    bool statistical = argc == 6;
    uint32_t nfuncs = (uint32_t)strtoul(argv[1], NULL, 10);
    uint32_t ncalls = (uint32_t)strtoul(argv[2], NULL, 10);
    rng_state = strtoull(argv[3], NULL, 10) | 1u;
    if (nfuncs == 0 || ncalls == 0)
        return 2;
    uint64_t *hits = calloc(nfuncs, sizeof *hits);
    uint32_t *path_fn = malloc(ncalls * sizeof *path_fn);
    uint64_t *path_hits = malloc(ncalls * sizeof *path_hits);
    uint32_t *depth = malloc(ncalls * sizeof *depth);
    if (!hits || !path_fn || !path_hits || !depth)
        return 1;
    /* Walk first, so the function records can carry the totals before the trace. */
    uint32_t d = 0;
    for (uint32_t i = 0; i < ncalls; i++) {
        if (d > 0 && (d >= GEN_MAX_DEPTH || rng() % 100u < GEN_RETURN_PCT))
            d -= (uint32_t)(1 + rng() % d);
        path_fn[i] = i == 0 ? 0 : pick_callee(nfuncs);
        path_hits[i] = 1 + rng() % 1000u;
        depth[i] = d++;
        hits[path_fn[i]] += path_hits[i];
    }
    lg_prf_header_t h = {.version = 1,
                         .type = statistical ? LG_PRF_TYPE_STATISTICAL : LG_PRF_TYPE_TRACE,
                         .counter1_kind = statistical ? 0 : 0x23};
    lg_prf_writer_t w;
    lg_prf_writer_init(&w, &h);
    char name[32];
    for (uint32_t f = 0; f < nfuncs; f++) {
        snprintf(name, sizeof name, "f%u", f);
        lg_prf_record_fields_t r = {.description = 1, .hits = hits[f], .name = name};
        lg_prf_write_function(&w, &r);
    }
    uint32_t *open_calls = malloc((GEN_MAX_DEPTH + 1) * sizeof *open_calls);
    uint32_t nopen = 0;
    for (uint32_t i = 0; i < ncalls && !statistical; i++) {
        while (nopen > depth[i])
            lg_prf_write_return(&w, open_calls[--nopen]);
        snprintf(name, sizeof name, "f%u", path_fn[i]);
        lg_prf_record_fields_t r = {.description = 1, .hits = path_hits[i], .name = name};
        lg_prf_write_call(&w, i, &r);
        open_calls[nopen++] = i;
    }
    while (nopen > 0)
        lg_prf_write_return(&w, open_calls[--nopen]);
    if (lg_prf_writer_finish(&w) != LG_OK)
        return 1;
    FILE *out = fopen(argv[4], "wb");
    if (out == NULL || fwrite(w.buf.data, 1, w.buf.size, out) != w.buf.size || fclose(out) != 0)
        return 1;
    lg_prf_writer_destroy(&w);
    free(open_calls);
    free(hits);
    free(path_fn);
    free(path_hits);
    free(depth);
    return 0;
}
