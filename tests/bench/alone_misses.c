/* alone_misses.c - instruction-cache misses of each function on its own, from one process's
 * instruction trace (valgrind --tool=lackey --trace-mem=yes, on stdin). Part of the benchmark
 * tools (tests/bench/alone_misses.sh runs it); not linked into lorgen.
 *
 *   alone_misses SYMBOLS OUT < lackey-log
 *
 * SYMBOLS holds one line "START_HEX SIZE NAME" per function of the program, at run-time
 * addresses. OUT receives:
 *   whole N4 N8 N16     misses of the whole instruction stream in the three caches below, at the
 *                       addresses it ran at: cachegrind's --I1 counts of the same run, to check
 *                       the trace against (an instruction spanning two lines counts one miss,
 *                       as in cachegrind)
 *   fixed N4 N8 N16     misses of the code outside SYMBOLS (libraries, PLT) alone: it does not
 *                       move when the program is relinked
 *   fn NAME SIZE A4 B4 A8 B8 A16 B16
 *                       misses of the function's own fetches alone, its start at phase 0 (A)
 *                       and 16 (B) of the 32-byte line
 * The caches: 4 KiB and 8 KiB direct-mapped, 16 KiB 2-way LRU, 32-byte lines.
 *
 * Why "alone" bounds every layout: in an LRU cache (direct-mapped included) removing other
 * accesses never turns a hit into a miss, so a function's misses alone at its better phase are
 * at most its misses in any link order; functions move by multiples of 16 bytes, so phases 0 and
 * 16 are the only ones a link order can give it. The sum over functions, plus the fixed code
 * alone, is a lower bound on any link order's misses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NGEO = 3, LINE_SHIFT = 5, PHASES = 2, PHASE_STEP = 16, NAME_MAX_BYTES = 512 };
static const unsigned geo_sets[NGEO] = {128, 256, 256}, geo_ways[NGEO] = {1, 1, 2};

typedef struct cache {
    uint64_t *tag[NGEO]; /* per geometry: sets * ways line numbers, most recent first */
    uint64_t miss[NGEO];
} cache_t;

typedef struct unit {
    uint64_t start, size;
    char *name;
    cache_t phase[PHASES];
    int used;
} unit_t;

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL) {
        fputs("alone_misses: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static void cache_init(cache_t *c)
{
    for (int g = 0; g < NGEO; g++) {
        size_t n = (size_t)geo_sets[g] * geo_ways[g];
        c->tag[g] = xmalloc(n * sizeof *c->tag[g]);
        for (size_t i = 0; i < n; i++)
            c->tag[g][i] = UINT64_MAX;
        c->miss[g] = 0;
    }
}

/* Looks up one line in every geometry; returns the geometries that missed, as bits. */
static unsigned cache_access(cache_t *c, uint64_t line)
{
    unsigned missed = 0;
    for (int g = 0; g < NGEO; g++) {
        uint64_t *s = c->tag[g] + (line % geo_sets[g]) * geo_ways[g];
        unsigned w = 0;
        while (w < geo_ways[g] && s[w] != line)
            w++;
        if (w == geo_ways[g]) {
            missed |= 1u << g;
            w = geo_ways[g] - 1;
        }
        memmove(s + 1, s, w * sizeof *s);
        s[0] = line;
    }
    return missed;
}

static void count(cache_t *c, unsigned missed)
{
    for (int g = 0; g < NGEO; g++)
        c->miss[g] += (missed >> g) & 1u;
}

static unit_t *units;
static size_t nunits;

static int by_start(const void *a, const void *b)
{
    const unit_t *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static unit_t *unit_of(uint64_t address)
{
    size_t lo = 0, hi = nunits;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (units[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    unit_t *u = &units[lo - 1];
    return address - u->start < u->size ? u : NULL;
}

static void read_symbols(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    size_t cap = 1024;
    units = xmalloc(cap * sizeof *units);
    char line[NAME_MAX_BYTES + 64], name[NAME_MAX_BYTES];
    while (fgets(line, sizeof line, f)) {
        unsigned long long start, size;
        if (sscanf(line, "%llx %llu %511s", &start, &size, name) != 3 || size == 0)
            continue;
        if (nunits == cap) {
            unit_t *grown = realloc(units, 2 * cap * sizeof *units);
            if (grown == NULL) {
                fputs("alone_misses: out of memory\n", stderr);
                exit(1);
            }
            units = grown;
            cap *= 2;
        }
        memset(&units[nunits], 0, sizeof *units);
        units[nunits].start = start;
        units[nunits].size = size;
        units[nunits].name = xmalloc(strlen(name) + 1);
        strcpy(units[nunits].name, name);
        nunits++;
    }
    fclose(f);
    qsort(units, nunits, sizeof *units, by_start);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: alone_misses SYMBOLS OUT < lackey-log\n", stderr);
        return 2;
    }
    read_symbols(argv[1]);
    cache_t whole, fixed;
    cache_init(&whole);
    cache_init(&fixed);
    char buf[256];
    while (fgets(buf, sizeof buf, stdin)) {
        if (buf[0] != 'I') /* "I  ADDR,SIZE"; data accesses and valgrind's own lines skipped */
            continue;
        char *comma;
        uint64_t a = strtoull(buf + 1, &comma, 16);
        if (*comma != ',')
            continue;
        uint64_t n = strtoull(comma + 1, NULL, 10);
        if (n == 0)
            continue;
        unit_t *u = unit_of(a);
        unsigned mw = 0, mf = 0;
        for (uint64_t l = a >> LINE_SHIFT; l <= (a + n - 1) >> LINE_SHIFT; l++) {
            mw |= cache_access(&whole, l);
            if (u == NULL)
                mf |= cache_access(&fixed, l);
        }
        count(&whole, mw);
        if (u == NULL) {
            count(&fixed, mf);
            continue;
        }
        if (!u->used) {
            for (int p = 0; p < PHASES; p++)
                cache_init(&u->phase[p]);
            u->used = 1;
        }
        uint64_t r = a - u->start;
        for (int p = 0; p < PHASES; p++) {
            unsigned mu = 0;
            uint64_t first = (r + (uint64_t)(PHASE_STEP * p)) >> LINE_SHIFT;
            uint64_t last = (r + (uint64_t)(PHASE_STEP * p) + n - 1) >> LINE_SHIFT;
            for (uint64_t l = first; l <= last; l++)
                mu |= cache_access(&u->phase[p], l);
            count(&u->phase[p], mu);
        }
    }
    FILE *o = fopen(argv[2], "w");
    if (o == NULL) {
        perror(argv[2]);
        return 1;
    }
    fprintf(o, "whole %llu %llu %llu\n", (unsigned long long)whole.miss[0],
            (unsigned long long)whole.miss[1], (unsigned long long)whole.miss[2]);
    fprintf(o, "fixed %llu %llu %llu\n", (unsigned long long)fixed.miss[0],
            (unsigned long long)fixed.miss[1], (unsigned long long)fixed.miss[2]);
    for (size_t i = 0; i < nunits; i++) {
        if (!units[i].used)
            continue;
        fprintf(o, "fn %s %llu", units[i].name, (unsigned long long)units[i].size);
        for (int g = 0; g < NGEO; g++)
            fprintf(o, " %llu %llu", (unsigned long long)units[i].phase[0].miss[g],
                    (unsigned long long)units[i].phase[1].miss[g]);
        fputc('\n', o);
    }
    return fclose(o) == 0 ? 0 : 1;
}
