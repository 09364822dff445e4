/* algorithms.c - the registry of ordering algorithms, the dispatcher, and the frame every
 * algorithm of algorithms.h runs in: geometry check, call graph, classification (classify.h),
 * the body, and the hand-over of the result to the caller's layout.
 *
 * Definitions (see also algorithms.h and classify.h):
 *   body     the part of an algorithm that turns the classified candidates into cliques in
 *            link order (hot_first.c, pettis_hansen.c, c3.c)
 *   density  a weight per byte; compared exactly by cross-multiplying into 128-bit products, so
 *            equal densities are equal and the rank breaks the tie
 */
#include "algorithms.h"

#include "clique.h"
#include "mem.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the list of algorithm names in the unknown-name diagnostic, in bytes. */
#define LG_NAMES_TEXT_MAX 256u

/* Bits in half a uint64_t, and the mask of its low half (for 64 x 64 -> 128-bit products). */
#define LG_HALF_BITS 32u
#define LG_HALF_MASK 0xffffffffu

typedef lg_err_t (*order_fn_t)(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                               lg_diag_t *d);

/* The registry: names in the order lg_algorithm_names lists them, the default first. */
static const char *const algorithm_names[] = {
    LG_ALGORITHM_CHAINS,    LG_CLIQUE_ALGORITHM,        LG_ALGORITHM_INPUT,
    LG_ALGORITHM_HOT_FIRST, LG_ALGORITHM_PETTIS_HANSEN, LG_ALGORITHM_C3,
};
static const order_fn_t algorithm_fns[] = {
    lg_order_chains,    lg_clique_partition,    lg_order_input,
    lg_order_hot_first, lg_order_pettis_hansen, lg_order_c3,
};
#define LG_NALGORITHMS (sizeof algorithm_names / sizeof algorithm_names[0])
_Static_assert(sizeof algorithm_names / sizeof algorithm_names[0] ==
                   sizeof algorithm_fns / sizeof algorithm_fns[0],
               "one function per algorithm name");

const char *const *lg_algorithm_names(size_t *n)
{
    *n = LG_NALGORITHMS;
    return algorithm_names;
}

/* What goes before the i-th name in "a, b or c". */
static const char *separator(size_t i)
{
    if (i == 0)
        return "";
    return i + 1 == LG_NALGORITHMS ? " or " : ", ";
}

lg_err_t lg_order(const char *name, const lg_program_t *prog, const lg_geometry_t *geo,
                  lg_layout_t *out, lg_diag_t *d)
{
    for (size_t i = 0; name != NULL && i < LG_NALGORITHMS; i++)
        if (strcmp(name, algorithm_names[i]) == 0)
            return algorithm_fns[i](prog, geo, out, d);
    char list[LG_NAMES_TEXT_MAX];
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < LG_NALGORITHMS && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", separator(i),
                                algorithm_names[i]);
    if (name == NULL)
        return lg_diag_fail(d, LG_EINVAL, "", "no algorithm given: expected %s", list);
    return lg_diag_fail(d, LG_EINVAL, "", "unknown algorithm '%s': expected %s", name, list);
}

/* ---- exact density comparison ----------------------------------------------------------- */

/* a * b as a 128-bit value hi:lo. */
static void mul_128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a_lo = a & LG_HALF_MASK, a_hi = a >> LG_HALF_BITS;
    uint64_t b_lo = b & LG_HALF_MASK, b_hi = b >> LG_HALF_BITS;
    uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
    uint64_t mid = (p0 >> LG_HALF_BITS) + (p1 & LG_HALF_MASK) + (p2 & LG_HALF_MASK);
    *lo = (mid << LG_HALF_BITS) | (p0 & LG_HALF_MASK);
    *hi = p3 + (p1 >> LG_HALF_BITS) + (p2 >> LG_HALF_BITS) + (mid >> LG_HALF_BITS);
}

int lg_i_mul_cmp(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t h1, l1, h2, l2;
    mul_128(a, b, &h1, &l1);
    mul_128(c, d, &h2, &l2);
    if (h1 != h2)
        return h1 > h2 ? 1 : -1;
    return (l1 > l2) - (l1 < l2);
}

int lg_i_density_cmp(uint64_t num_a, uint64_t den_a, uint64_t num_b, uint64_t den_b)
{
    /* num_a/den_a > num_b/den_b  <=>  num_a*den_b > num_b*den_a (dens > 0). */
    return -lg_i_mul_cmp(num_a, den_b, num_b, den_a);
}

typedef struct density_key {
    uint64_t num, den; /* density num/den */
    uint64_t rank;     /* rank key of the clique's first function */
    size_t index;      /* clique index before the sort */
} density_key_t;

/* Density descending, then rank ascending (ranks are distinct: a total order). */
static int density_key_cmp(const void *pa, const void *pb)
{
    const density_key_t *a = pa, *b = pb;
    int c = lg_i_density_cmp(a->num, a->den, b->num, b->den);
    if (c != 0)
        return c;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

lg_err_t lg_i_sort_by_density(lg_i_order_t *o, const uint64_t *num, const uint64_t *den)
{
    size_t n = o->ncliques;
    if (n < 2)
        return LG_OK;
    density_key_t *keys = malloc(n * sizeof *keys);
    lg_clique_t *sorted = malloc(n * sizeof *sorted);
    if (keys == NULL || sorted == NULL) {
        free(keys);
        free(sorted);
        return lg_i_nomem(o, "ordering the chains");
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = (density_key_t){num[i], den[i], lg_rank_key(o->prog, o->cliques[i].fns[0]), i};
    qsort(keys, n, sizeof *keys, density_key_cmp);
    for (size_t i = 0; i < n; i++)
        sorted[i] = o->cliques[keys[i].index];
    free(keys);
    free(o->cliques);
    o->cliques = sorted;
    o->cliques_cap = n;
    return LG_OK;
}

/* ---- the frame -------------------------------------------------------------------------- */

lg_err_t lg_i_nomem(lg_i_order_t *o, const char *what)
{
    return lg_diag_fail(o->d, LG_ENOMEM, o->where, "out of memory for %s", what);
}

lg_err_t lg_i_add_clique(lg_i_order_t *o, const uint32_t *fns, size_t n)
{
    if (!lg_grow((void **)&o->cliques, &o->cliques_cap, o->ncliques + 1, sizeof *o->cliques))
        return lg_i_nomem(o, "the cliques");
    lg_clique_t c;
    memset(&c, 0, sizeof c);
    c.fns = malloc(n * sizeof *c.fns);
    if (c.fns == NULL)
        return lg_i_nomem(o, "a clique's functions");
    memcpy(c.fns, fns, n * sizeof *c.fns);
    c.nfns = n;
    for (size_t i = 0; i < n; i++) {
        const lg_fn_t *f = &o->prog->fns[fns[i]];
        /* Alignments of non-oversized members are at most the cache (<= 64 MiB) and chains hold
         * at most one oversized member, so the end never wraps. */
        c.bytes = lg_fn_end_after(c.bytes, f);
        c.hits = lg_sat_add(c.hits, f->hits);
        if (o->cls.padded[fns[i]] > o->cache)
            c.flags |= LG_CLIQUE_OVERSIZED;
    }
    o->cliques[o->ncliques++] = c;
    return LG_OK;
}

static void free_cliques(lg_i_order_t *o)
{
    for (size_t i = 0; i < o->ncliques; i++)
        free(o->cliques[i].fns);
    free(o->cliques);
    o->cliques = NULL;
    o->ncliques = o->cliques_cap = 0;
}

/* True when fn holds at least LG_I_OVERSIZED_WARN_PERCENT of the program's hits or self cost. */
static bool matters(const lg_fn_t *fn, uint64_t total_hits, uint64_t total_self)
{
    double pct = LG_I_OVERSIZED_WARN_PERCENT / 100.0;
    return (double)fn->hits >= pct * (double)total_hits ||
           (total_self > 0 && (double)fn->counter1_self >= pct * (double)total_self);
}

/* The candidates larger than the cache: a warning each where they matter to the profile, one
 * note for the rest. */
static void warn_oversized(const lg_i_order_t *o, const char *consequence)
{
    const lg_program_t *prog = o->prog;
    uint64_t total_hits = 0, total_self = 0;
    for (size_t i = 0; i < prog->nfns; i++) {
        total_hits = lg_sat_add(total_hits, prog->fns[i].hits);
        total_self = lg_sat_add(total_self, prog->fns[i].counter1_self);
    }
    size_t minor = 0;
    for (size_t k = 0; k < o->cls.ncandidates; k++) {
        uint32_t i = o->cls.candidates[k];
        if (o->cls.padded[i] <= o->cache)
            continue;
        if (matters(&prog->fns[i], total_hits, total_self))
            lg_warn_oversized(o->d, o->where, &prog->fns[i], o->cls.padded[i], o->cache,
                              consequence);
        else
            minor++;
    }
    if (minor > 0)
        lg_diag_add(o->d, LG_NOTE, o->where,
                    "%zu function(s) larger than the %llu-byte instruction cache, each with less "
                    "than %.0f%% of the profile's hits and cost: %s",
                    minor, (unsigned long long)o->cache, LG_I_OVERSIZED_WARN_PERCENT,
                    minor == 1 ? consequence : "each gets a clique of its own");
}

lg_err_t lg_i_order_run(const lg_i_algorithm_t *alg, const lg_program_t *prog,
                        const lg_geometry_t *geo, lg_layout_t *out, lg_diag_t *d)
{
    LG_CHECK(lg_geometry_check(geo, d));
    lg_i_order_t o;
    memset(&o, 0, sizeof o);
    o.prog = prog;
    o.cache = geo->cache_size;
    o.where = alg->where;
    o.d = d;
    LG_CHECK(lg_cg_new(prog, &o.cg, d));

    lg_err_t err = lg_classify(prog, o.cg, &o.cls, o.where, d);
    if (err == LG_OK)
        warn_oversized(&o, alg->oversized_consequence);
    if (err == LG_OK)
        err = alg->body(&o);
    lg_cg_free(o.cg);
    if (err != LG_OK) {
        free_cliques(&o);
        lg_classes_destroy(&o.cls);
        return err;
    }

    lg_layout_t res;
    lg_layout_init(&res);
    res.geometry = *geo;
    res.algorithm = alg->name;
    res.cliques = o.cliques;
    res.ncliques = o.ncliques;
    res.cold = o.cls.cold;
    res.ncold = o.cls.ncold;
    res.excluded = o.cls.excluded;
    res.nexcluded = o.cls.nexcluded;
    o.cls.cold = o.cls.excluded = NULL;
    lg_classes_destroy(&o.cls);
    *out = res;
    return LG_OK;
}

lg_err_t lg_i_pack(lg_i_order_t *o, const uint32_t *seq, size_t n)
{
    size_t start = 0; /* first function of the open clique */
    uint64_t end = 0; /* bytes: where the open clique ends, laid out from a fresh start */
    for (size_t i = 0; i < n; i++) {
        uint32_t x = seq[i];
        const lg_fn_t *f = &o->prog->fns[x];
        if (o->cls.padded[x] > o->cache) {
            if (i > start)
                LG_CHECK(lg_i_add_clique(o, seq + start, i - start));
            LG_CHECK(lg_i_add_clique(o, seq + i, 1));
            start = i + 1;
            end = 0;
            continue;
        }
        /* end <= cache and align <= padded size <= cache (<= 64 MiB): no overflow. */
        uint64_t next = lg_fn_end_after(end, f);
        if (i > start && next > o->cache) {
            LG_CHECK(lg_i_add_clique(o, seq + start, i - start));
            start = i;
            next = lg_fn_end_after(0, f);
        }
        end = next;
    }
    if (n > start)
        LG_CHECK(lg_i_add_clique(o, seq + start, n - start));
    return LG_OK;
}
