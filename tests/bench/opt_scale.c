/* opt_scale.c - times the optimizer alone on a large synthetic program built in memory, the way
 * the CLI runs it by default (lg_order "cliques", then lg_place_for_cache), against baselines
 * timed in the same process on the same program: lorgen's own c3 and hot-first orders, and a
 * plain sort of the arcs by weight.
 *
 *   lg_opt_scale [--default-only] FUNCTIONS ARCS SEED [CACHE_SIZE LINE_SIZE WAYS]
 *
 * --default-only skips the baselines (to profile the default path alone); their fields print 0.
 * Otherwise the default path runs a second time after the baselines (warm_*), and the ratios to
 * c3 use that run.
 * The geometry defaults to the CLI's (SH-4: 8 KiB, 32-byte lines, direct-mapped).
 *
 * The program (deterministic for a seed on one C library, which computes the logarithms):
 *   sizes     log-normal around LG_SIZE_MEDIAN bytes, clamped to [LG_SIZE_MIN, LG_SIZE_MAX];
 *             every function movable, aligned to LG_ALIGN_COMMON bytes, one in
 *             LG_ALIGN_RARE_EVERY to LG_ALIGN_RARE bytes
 *   arcs      ARCS distinct (caller, callee) pairs among a seeded LG_EXECUTED_PERCENT of the
 *             functions. Caller and callee are drawn independently by a power law over
 *             "popularity ranks" (a few functions call a lot, as dispatchers do, and a few are
 *             called by everyone, as utility routines are); each direction maps its ranks to
 *             functions by a seeded permutation of its own, so hot code is scattered in input
 *             order
 *   weights   Pareto (heavy-tailed: most arcs are taken a few times, a few a million times or
 *             more), summed where a pair is drawn twice
 *   hits      a function's incoming weight, at least 1 when it calls anything; functions in no
 *             arc are never executed (the cold code the placement uses as filler)
 *
 * It prints one line of NAME=VALUE fields (times in seconds, NAME_s wall-clock and NAME_cpu_s
 * the process's CPU time; memory in MiB; tests/bench/opt_scale.sh makes the table) and 64-bit
 * hashes of the layouts (the clique pass's order before and after the placement, c3, hot-first),
 * which must not change when the optimizer is only made faster.
 *
 * Peak RSS (getrusage) is read after the default path and before the baselines, so it is the
 * program plus what the default path needed at most; the program's own share is printed as
 * well.
 */
#include "algorithms.h"
#include "callgraph.h"
#include "arcs.h"
#include "diag.h"
#include "layout.h"
#include "mem.h"
#include "placement.h"
#include "program.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Function sizes: log-normal with this median and spread, clamped to the range. */
#define LG_SIZE_MEDIAN 160.0 /* bytes */
#define LG_SIZE_SIGMA 1.1    /* standard deviation of ln(size) */
#define LG_SIZE_MIN 16u      /* bytes */
#define LG_SIZE_MAX 8192u    /* bytes: the SH-4 cache, so no function is oversized there */

/* Section alignments: most functions at the common one, a few at a cache line. */
#define LG_ALIGN_COMMON 4u      /* bytes */
#define LG_ALIGN_RARE 32u       /* bytes */
#define LG_ALIGN_RARE_EVERY 16u /* functions */

/* Popularity rank = floor(N * u^skew) for u uniform in [0, 1): density ~ rank^(1/skew - 1), so
 * the first rank draws about N^(-1/skew) of all arcs (1M functions: callers 1%, callees 3%). */
#define LG_CALLER_SKEW 3.0
#define LG_CALLEE_SKEW 4.0

/* Share of the functions that the arcs touch; the rest never run (filler for the placement). */
#define LG_EXECUTED_PERCENT 60u /* % */
#define LG_PERCENT 100u

/* Arc weights: Pareto with this shape (the smaller, the heavier the tail), capped. */
#define LG_WEIGHT_ALPHA 1.1
#define LG_WEIGHT_MAX 1000000000.0 /* calls */

/* A uniform double from the top 53 bits of a draw. */
#define LG_UNIFORM_SHIFT 11u
#define LG_TWO_POW_53 9007199254740992.0

/* A full turn in radians (M_PI is not standard C). */
#define LG_TWO_PI 6.283185307179586

/* Most rounds of drawing more arcs to replace repeated pairs before giving up. */
#define LG_DRAW_ROUNDS_MAX 64u

/* Scale of the timers and of ru_maxrss (KiB on Linux). */
#define LG_NS_PER_S 1e9
#define LG_KIB_PER_MIB 1024.0

/* FNV-1a, 64-bit: the layouts' hash. */
#define LG_FNV_OFFSET 14695981039346656037ull
#define LG_FNV_PRIME 1099511628211ull

static uint64_t rng_state;

/* xorshift64*: deterministic for a seed and fast; the shape of the workload is what matters. */
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* Uniform in [0, 1), from the top 53 bits. */
static double uniform(void)
{
    return (double)(rng() >> LG_UNIFORM_SHIFT) / LG_TWO_POW_53;
}

/* A point in time: wall clock, and CPU time of the process (user + system), in seconds. The
 * CPU time is what the code costs when other processes share the cores; the wall time is what a
 * user waits. */
typedef struct stamp {
    double wall, cpu;
} stamp_t;

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / LG_NS_PER_S;
}

static stamp_t now(void)
{
    return (stamp_t){clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
}

static stamp_t since(stamp_t t0)
{
    stamp_t t = now();
    return (stamp_t){t.wall - t0.wall, t.cpu - t0.cpu};
}

static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / LG_KIB_PER_MIB;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "lg_opt_scale: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* ---- the synthetic program -------------------------------------------------------------- */

/* A seeded permutation of 0..n-1 (Fisher-Yates). */
static uint32_t *permutation(uint32_t n)
{
    uint32_t *p = xmalloc(n * sizeof *p);
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(rng() % ((uint64_t)i + 1));
        uint32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    return p;
}

static uint32_t skewed_rank(uint32_t n, double skew)
{
    uint32_t r = (uint32_t)((double)n * pow(uniform(), skew));
    return r < n ? r : n - 1;
}

static uint64_t pareto_weight(void)
{
    double u = 1.0 - uniform(); /* (0, 1] */
    double w = floor(pow(u, -1.0 / LG_WEIGHT_ALPHA));
    return (uint64_t)(w < LG_WEIGHT_MAX ? w : LG_WEIGHT_MAX);
}

static uint64_t lognormal_size(void)
{
    /* Box-Muller: one standard normal from two uniforms. */
    double u1 = 1.0 - uniform(), u2 = uniform();
    double z = sqrt(-2.0 * log(u1)) * cos(LG_TWO_PI * u2);
    double s = LG_SIZE_MEDIAN * exp(LG_SIZE_SIGMA * z);
    if (s < LG_SIZE_MIN)
        return LG_SIZE_MIN;
    if (s > LG_SIZE_MAX)
        return LG_SIZE_MAX;
    return (uint64_t)s;
}

static char *name_of(const char *prefix, uint32_t i)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s%u", prefix, i);
    char *s = xmalloc(strlen(buf) + 1);
    memcpy(s, buf, strlen(buf) + 1);
    return s;
}

/* Fills p with nfns functions and narcs distinct arcs; returns false when repeated pairs keep
 * the arcs from reaching narcs (too many arcs for the functions). */
static bool make_program(lg_program_t *p, uint32_t nfns, size_t narcs)
{
    p->fns = calloc(nfns, sizeof *p->fns);
    p->arcs = xmalloc(narcs * sizeof *p->arcs);
    if (p->fns == NULL) {
        fprintf(stderr, "lg_opt_scale: out of memory for %u functions\n", nfns);
        exit(1);
    }
    p->nfns = nfns;
    for (uint32_t i = 0; i < nfns; i++) {
        lg_fn_t *f = &p->fns[i];
        f->symbol = name_of("f", i);
        f->section = name_of(".text.f", i);
        f->address = UINT64_MAX;
        f->size = lognormal_size();
        f->align = i % LG_ALIGN_RARE_EVERY == 0 ? LG_ALIGN_RARE : LG_ALIGN_COMMON;
        f->input_order = i;
    }
    /* The executed functions: the first nexec of a permutation; each direction maps its
     * popularity ranks onto them through a permutation of its own. */
    uint32_t nexec = (uint32_t)((uint64_t)nfns * LG_EXECUTED_PERCENT / LG_PERCENT);
    nexec = nexec < 2 ? 2 : nexec;
    uint32_t *executed = permutation(nfns);
    uint32_t *callers = permutation(nexec), *callees = permutation(nexec);
    for (uint32_t r = 0; r < nexec; r++) {
        callers[r] = executed[callers[r]];
        callees[r] = executed[callees[r]];
    }
    free(executed);
    /* Draw the missing arcs, merge repeated pairs, until narcs distinct pairs exist. */
    size_t n = 0;
    for (unsigned round = 0; n < narcs && round < LG_DRAW_ROUNDS_MAX; round++) {
        for (size_t i = n; i < narcs; i++) {
            /* One draw per statement: the order of the draws must not be the compiler's. */
            uint32_t caller = callers[skewed_rank(nexec, LG_CALLER_SKEW)];
            uint32_t callee = callees[skewed_rank(nexec, LG_CALLEE_SKEW)];
            p->arcs[i] = (lg_arc_t){caller, callee, pareto_weight()};
        }
        n = narcs;
        lg_arcs_merge(p->arcs, &n);
    }
    free(callers);
    free(callees);
    p->narcs = n;
    p->has_call_edges = true;
    p->nprofiled = nfns;
    for (size_t i = 0; i < n; i++) {
        lg_fn_t *callee = &p->fns[p->arcs[i].callee], *caller = &p->fns[p->arcs[i].caller];
        callee->hits = lg_sat_add(callee->hits, p->arcs[i].weight);
        if (caller->hits == 0)
            caller->hits = 1;
    }
    return n == narcs;
}

/* ---- measurements ----------------------------------------------------------------------- */

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (unsigned b = 0; b < sizeof v; b++) {
        h ^= (v >> (8 * b)) & 0xffu;
        h *= LG_FNV_PRIME;
    }
    return h;
}

/* Everything a layout says, in order: any change to the optimizer's output changes it. */
static uint64_t layout_hash(const lg_layout_t *l)
{
    uint64_t h = LG_FNV_OFFSET;
    h = fnv(h, l->ncliques);
    for (size_t c = 0; c < l->ncliques; c++) {
        const lg_clique_t *cl = &l->cliques[c];
        h = fnv(h, cl->nfns);
        for (size_t k = 0; k < cl->nfns; k++)
            h = fnv(h, cl->fns[k]);
        h = fnv(fnv(fnv(fnv(h, cl->bytes), cl->hits), cl->flags), cl->pad_before);
    }
    h = fnv(h, l->ncold);
    for (size_t k = 0; k < l->ncold; k++)
        h = fnv(h, l->cold[k]);
    h = fnv(h, l->nexcluded);
    for (size_t k = 0; k < l->nexcluded; k++)
        h = fnv(h, l->excluded[k]);
    return fnv(h, l->section_align);
}

static void fail(const char *what, lg_err_t err, const lg_diag_t *d)
{
    fprintf(stderr, "lg_opt_scale: %s failed: %s\n", what, lg_strerror(err));
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "  %s: %s\n", d->entries[i].where, d->entries[i].message);
    exit(1);
}

/* The times of one algorithm run: the order (lg_order) and the placement after it. */
typedef struct run_times {
    stamp_t order, place, total;
} run_times_t;

/* Runs algorithm name, then the placement when place; returns the layout's hash, and in
 * *order_hash (when not NULL) the hash of the order before the placement. When order_hash is
 * given, the placement's notes go to stderr: they say when its bounds cut its work short. */
static uint64_t run_order(const char *name, bool place, const lg_program_t *p,
                          const lg_geometry_t *geo, run_times_t *t, uint64_t *order_hash)
{
    lg_diag_t d;
    lg_layout_t layout;
    lg_diag_init(&d);
    lg_layout_init(&layout);
    stamp_t t0 = now();
    lg_err_t err = lg_order(name, p, geo, &layout, &d);
    if (err != LG_OK)
        fail(name, err, &d);
    t->order = since(t0);
    if (order_hash != NULL)
        *order_hash = layout_hash(&layout);
    size_t first_note = d.count; /* the placement's diagnostics follow */
    stamp_t t1 = now();
    if (place && (err = lg_place_for_cache(p, geo, &layout, &d)) != LG_OK)
        fail("the placement", err, &d);
    t->place = since(t1);
    t->total = since(t0);
    for (size_t i = first_note; order_hash != NULL && place && i < d.count; i++)
        fprintf(stderr, "lg_opt_scale: %s: %s\n", d.entries[i].where, d.entries[i].message);
    uint64_t hash = layout_hash(&layout);
    lg_layout_destroy(&layout);
    lg_diag_destroy(&d);
    return hash;
}

/* Weight descending, then (caller, callee): the order the clique pass sorts its seeds in. */
static int arc_weight_cmp(const void *pa, const void *pb)
{
    const lg_arc_t *a = pa, *b = pb;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    if (a->caller != b->caller)
        return a->caller < b->caller ? -1 : 1;
    return (a->callee > b->callee) - (a->callee < b->callee);
}

int main(int argc, char **argv)
{
    /* --default-only skips the baselines (for profiling the default path). */
    bool baselines = !(argc > 1 && strcmp(argv[1], "--default-only") == 0);
    if (!baselines) {
        argc--;
        argv++;
    }
    if (argc != 4 && argc != 7) {
        fprintf(stderr, "usage: lg_opt_scale [--default-only] FUNCTIONS ARCS SEED [CACHE_SIZE "
                        "LINE_SIZE WAYS]\n");
        return 2;
    }
    unsigned long nfns = strtoul(argv[1], NULL, 10);
    unsigned long long narcs = strtoull(argv[2], NULL, 10);
    /* Odd and distinct per seed: xorshift needs a non-zero state. */
    rng_state = strtoull(argv[3], NULL, 10) * 2u + 1u;
    lg_geometry_t geo = {LG_CACHE_SIZE_DEFAULT, LG_LINE_SIZE_DEFAULT, LG_WAYS_DEFAULT};
    if (argc == 7)
        geo = (lg_geometry_t){(uint32_t)strtoul(argv[4], NULL, 10),
                              (uint32_t)strtoul(argv[5], NULL, 10),
                              (uint32_t)strtoul(argv[6], NULL, 10)};
    if (nfns < 2 || nfns > UINT32_MAX || narcs == 0 || narcs > SIZE_MAX / sizeof(lg_arc_t)) {
        fprintf(stderr, "lg_opt_scale: need 2..%u functions and at least one arc\n",
                (unsigned)UINT32_MAX);
        return 2;
    }

    lg_program_t prog;
    lg_program_init(&prog);
    stamp_t t0 = now();
    if (!make_program(&prog, (uint32_t)nfns, (size_t)narcs)) {
        fprintf(stderr, "lg_opt_scale: only %zu distinct arcs after %u rounds\n", prog.narcs,
                LG_DRAW_ROUNDS_MAX);
        return 1;
    }
    stamp_t gen = since(t0);
    double prog_rss = peak_rss_mib();
    size_t executed = 0;
    for (size_t i = 0; i < prog.nfns; i++)
        executed += prog.fns[i].hits > 0;

    /* The default path first, on a heap as fresh as the CLI's, as the CLI runs it. */
    run_times_t def;
    uint64_t h_order;
    uint64_t h_cliques = run_order("cliques", true, &prog, &geo, &def, &h_order);
    double peak_rss = peak_rss_mib();

    /* The call graph alone (every algorithm builds it first, inside lg_order), then the
     * baselines, in the same process on the same program. */
    stamp_t cg_t = {0, 0}, sort_t = {0, 0};
    run_times_t c3 = {{0, 0}, {0, 0}, {0, 0}}, hot = c3, warm = c3, chains = c3;
    uint64_t h_c3 = 0, h_hot = 0, h_chains = 0;
    if (baselines) {
        lg_diag_t d;
        lg_diag_init(&d);
        lg_callgraph_t *cg;
        t0 = now();
        lg_err_t err = lg_cg_new(&prog, &cg, &d);
        if (err != LG_OK)
            fail("the call graph", err, &d);
        lg_cg_free(cg);
        cg_t = since(t0);
        lg_diag_destroy(&d);

        h_c3 = run_order("c3", false, &prog, &geo, &c3, NULL);
        h_hot = run_order("hot-first", false, &prog, &geo, &hot, NULL);
        /* The CLI's default since 2026-11-26 (docs/benchmarks.md, "One profile, many
         * layouts"); the clique pass with placement stays this benchmark's subject. */
        h_chains = run_order("chains", false, &prog, &geo, &chains, NULL);
        lg_arc_t *copy = xmalloc(prog.narcs * sizeof *copy);
        memcpy(copy, prog.arcs, prog.narcs * sizeof *copy);
        t0 = now();
        qsort(copy, prog.narcs, sizeof *copy, arc_weight_cmp);
        sort_t = since(t0);
        free(copy);

        /* The default path again, for the ratios: the first run was the process's first, and
         * paid for faulting in the heap that the baselines after it reuse (at 10k functions
         * that was most of its time). The layout must come out the same. */
        if (run_order("cliques", true, &prog, &geo, &warm, NULL) != h_cliques) {
            fprintf(stderr, "lg_opt_scale: a second run gave another layout\n");
            return 1;
        }
    }

    /* The clique pass (with its call graph) and the whole default path against c3, in CPU
     * time of the second run: c3 builds the same call graph, and has no placement after it. */
    double order_over_c3 = c3.total.cpu > 0 ? warm.order.cpu / c3.total.cpu : 0;
    double total_over_c3 = c3.total.cpu > 0 ? warm.total.cpu / c3.total.cpu : 0;
    printf("functions=%zu arcs=%zu executed=%zu gen_s=%.3f prog_rss_mib=%.0f cg_s=%.3f "
           "cg_cpu_s=%.3f order_s=%.3f order_cpu_s=%.3f place_s=%.3f place_cpu_s=%.3f "
           "total_s=%.3f total_cpu_s=%.3f peak_rss_mib=%.0f c3_s=%.3f c3_cpu_s=%.3f "
           "hot_first_s=%.3f hot_first_cpu_s=%.3f sort_arcs_s=%.3f sort_arcs_cpu_s=%.3f "
           "warm_order_cpu_s=%.3f warm_total_cpu_s=%.3f order_over_c3=%.2f total_over_c3=%.2f "
           "hash_order=%016llx hash_cliques=%016llx "
           "hash_c3=%016llx hash_hot_first=%016llx chains_s=%.3f chains_cpu_s=%.3f "
           "hash_chains=%016llx\n",
           prog.nfns, prog.narcs, executed, gen.wall, prog_rss, cg_t.wall, cg_t.cpu, def.order.wall,
           def.order.cpu, def.place.wall, def.place.cpu, def.total.wall, def.total.cpu, peak_rss,
           c3.total.wall, c3.total.cpu, hot.total.wall, hot.total.cpu, sort_t.wall, sort_t.cpu,
           warm.order.cpu, warm.total.cpu, order_over_c3, total_over_c3,
           (unsigned long long)h_order, (unsigned long long)h_cliques, (unsigned long long)h_c3,
           (unsigned long long)h_hot, chains.total.wall, chains.total.cpu,
           (unsigned long long)h_chains);
    lg_program_destroy(&prog);
    return 0;
}
