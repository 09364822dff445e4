/* test_algorithms.c - the ordering algorithms of algorithms.h and their dispatcher: exact orders
 * on small programs worked out by hand, the shared classification, the invariants and the
 * determinism of every algorithm on a large random program, and pettis-hansen and c3 checked
 * against slow reference versions on many small random programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "algorithms.h"
#include "clique.h"
#include "layout.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The constants the algorithms document (pettis_hansen.c, c3.c). */
#define MAX_CHAIN_BYTES (1024u * 1024u)
#define C3_MIN_EDGE_SHARE_PCT 10u
#define C3_MAX_DENSITY_DEGRADATION 8u

/* ---- building programs by hand ---------------------------------------------------------- */


static lg_geometry_t geometry(uint32_t cache_size)
{
    return (lg_geometry_t){cache_size, 4, 1}; /* 4-byte lines: any multiple of 4 is a cache */
}

/* ---- reading results -------------------------------------------------------------------- */

/* The symbols of idx[0..n), separated by spaces (static storage). */
static const char *names(const lg_program_t *p, const uint32_t *idx, size_t n)
{
    static char buf[4096];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "",
                                p->fns[idx[i]].symbol);
    return buf;
}

/* The cliques of l as text, "a b | c" (static storage). */
static const char *layout_text(const lg_program_t *p, const lg_layout_t *l)
{
    static char buf[65536];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < l->ncliques && len < sizeof buf; c++)
        for (size_t k = 0; k < l->cliques[c].nfns && len < sizeof buf; k++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                                    c == 0 && k == 0 ? ""
                                    : k == 0         ? " | "
                                                     : " ",
                                    p->fns[l->cliques[c].fns[k]].symbol);
    return buf;
}

static uint64_t padded(const lg_fn_t *f)
{
    uint64_t a = f->align > 1 ? f->align : 1;
    return (lg_fn_span(f) + a - 1) / a * a;
}

static bool movable(const lg_fn_t *f)
{
    return f->size > 0 && !(f->flags & LG_FN_SHARED_SECTION);
}

/* exec[i]: function i has hits or a weighted arc in or out (caller frees). */
static bool *executed_set(const lg_program_t *p)
{
    bool *exec = calloc(p->nfns ? p->nfns : 1, sizeof *exec);
    assert_non_null(exec);
    for (uint32_t i = 0; i < p->nfns; i++)
        exec[i] = p->fns[i].hits > 0;
    for (size_t k = 0; k < p->narcs; k++)
        if (p->arcs[k].weight > 0)
            exec[p->arcs[k].caller] = exec[p->arcs[k].callee] = true;
    return exec;
}

static uint64_t rank_of(const lg_program_t *p, uint32_t i)
{
    return ((uint64_t)p->fns[i].input_order << 32) | i;
}

/* a/b > c/d (b, d > 0), exactly. */
static int density_cmp(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    unsigned __int128 x = (unsigned __int128)a * d, y = (unsigned __int128)c * b;
    return x > y ? -1 : x < y ? 1 : 0;
}

static bool is_packer(const char *alg)
{
    return strcmp(alg, LG_ALGORITHM_INPUT) == 0 || strcmp(alg, LG_ALGORITHM_HOT_FIRST) == 0;
}

/* Everything algorithms.h promises for the layout l that algorithm alg made of p. */
static void check_invariants(const lg_program_t *p, const lg_layout_t *l, const char *alg,
                             uint32_t cache, const bool *exec)
{
    assert_string_equal(l->algorithm, alg);
    assert_int_equal(l->geometry.cache_size, cache);
    bool cliques = strcmp(alg, LG_CLIQUE_ALGORITHM) == 0;
    unsigned *seen = calloc(p->nfns ? p->nfns : 1, sizeof *seen);
    assert_non_null(seen);
    uint32_t prev_last = UINT32_MAX; /* last function of the previous clique */
    for (size_t c = 0; c < l->ncliques; c++) {
        const lg_clique_t *cl = &l->cliques[c];
        assert_true(cl->nfns >= 1);
        uint64_t hits = 0, end = 0, psum = 0;
        bool oversized = false;
        for (size_t k = 0; k < cl->nfns; k++) {
            uint32_t i = cl->fns[k];
            assert_true(i < p->nfns);
            const lg_fn_t *f = &p->fns[i];
            seen[i]++;
            assert_true(exec[i]);
            assert_true(movable(f));
            hits += f->hits;
            psum += padded(f);
            end = lg_fn_end_after(end, f);
            oversized |= padded(f) > cache;
            /* The order of the whole sequence, across clique boundaries. */
            uint32_t before = k > 0 ? cl->fns[k - 1] : prev_last;
            if (before != UINT32_MAX && strcmp(alg, LG_ALGORITHM_INPUT) == 0)
                assert_true(rank_of(p, before) < rank_of(p, i));
            if (before != UINT32_MAX && strcmp(alg, LG_ALGORITHM_HOT_FIRST) == 0) {
                assert_true(p->fns[before].hits >= f->hits);
                if (p->fns[before].hits == f->hits)
                    assert_true(rank_of(p, before) < rank_of(p, i));
            }
        }
        prev_last = cl->fns[cl->nfns - 1];
        assert_true(cl->hits == hits);
        assert_true(cl->bytes == end);
        if (cliques)
            continue; /* test_clique.c checks the rest of the clique pass */
        assert_int_equal(cl->flags, oversized ? LG_CLIQUE_OVERSIZED : 0);
        if (is_packer(alg)) {
            if (oversized)
                assert_int_equal(cl->nfns, 1);
            else
                assert_true(cl->bytes <= cache);
            /* Maximal packing: the next clique's first function did not fit this one. */
            if (c + 1 < l->ncliques && !oversized &&
                !(l->cliques[c + 1].flags & LG_CLIQUE_OVERSIZED)) {
                const lg_fn_t *g = &p->fns[l->cliques[c + 1].fns[0]];
                assert_true(lg_fn_end_after(cl->bytes, g) > cache);
            }
        } else {
            assert_true(cl->nfns == 1 || psum <= MAX_CHAIN_BYTES);
        }
        if (strcmp(alg, LG_ALGORITHM_PETTIS_HANSEN) == 0 && c > 0) {
            const lg_clique_t *pr = &l->cliques[c - 1];
            int d = density_cmp(pr->hits, pr->bytes, cl->hits, cl->bytes);
            assert_true(d <= 0);
            if (d == 0)
                assert_true(rank_of(p, pr->fns[0]) < rank_of(p, cl->fns[0]));
        }
    }
    for (size_t k = 0; k < l->ncold; k++) {
        uint32_t i = l->cold[k];
        seen[i]++;
        assert_false(exec[i]);
        if (k > 0)
            assert_true(rank_of(p, l->cold[k - 1]) < rank_of(p, i));
    }
    for (size_t k = 0; k < l->nexcluded; k++) {
        uint32_t i = l->excluded[k];
        seen[i]++;
        assert_true(exec[i]);
        assert_false(movable(&p->fns[i]));
        if (k > 0)
            assert_true(rank_of(p, l->excluded[k - 1]) < rank_of(p, i));
    }
    for (size_t i = 0; i < p->nfns; i++)
        assert_int_equal(seen[i], 1); /* every function exactly once */
    free(seen);
}

static void assert_same_layout(const lg_layout_t *a, const lg_layout_t *b)
{
    assert_string_equal(a->algorithm, b->algorithm);
    assert_int_equal(a->ncliques, b->ncliques);
    for (size_t c = 0; c < a->ncliques; c++) {
        assert_int_equal(a->cliques[c].nfns, b->cliques[c].nfns);
        assert_memory_equal(a->cliques[c].fns, b->cliques[c].fns,
                            a->cliques[c].nfns * sizeof *a->cliques[c].fns);
        assert_true(a->cliques[c].bytes == b->cliques[c].bytes);
        assert_true(a->cliques[c].hits == b->cliques[c].hits);
        assert_int_equal(a->cliques[c].flags, b->cliques[c].flags);
    }
    assert_int_equal(a->ncold, b->ncold);
    if (a->ncold)
        assert_memory_equal(a->cold, b->cold, a->ncold * sizeof *a->cold);
    assert_int_equal(a->nexcluded, b->nexcluded);
    if (a->nexcluded)
        assert_memory_equal(a->excluded, b->excluded, a->nexcluded * sizeof *a->excluded);
}

/* Runs alg through the dispatcher, expecting success, and checks the invariants. */
static void order_ok(const char *alg, const lg_program_t *p, uint32_t cache, lg_layout_t *l,
                     lg_diag_t *d)
{
    lg_geometry_t g = geometry(cache);
    lg_layout_init(l);
    lg_err_t err = lg_order(alg, p, &g, l, d);
    if (err != LG_OK && d != NULL)
        lg_test_diag_dump(d);
    assert_int_equal(err, LG_OK);
    bool *exec = executed_set(p);
    check_invariants(p, l, alg, cache, exec);
    free(exec);
}

/* The layout text alg gives for p (static storage, see layout_text). */
static const char *order_text(const char *alg, const lg_program_t *p, uint32_t cache)
{
    lg_layout_t l;
    order_ok(alg, p, cache, &l, NULL);
    const char *text = layout_text(p, &l);
    lg_layout_destroy(&l);
    return text;
}

/* ---- registry and dispatcher ------------------------------------------------------------ */

static void test_names_and_dispatch(void **state)
{
    (void)state;
    size_t n = 0;
    const char *const *all = lg_algorithm_names(&n);
    assert_int_equal(n, 6);
    assert_string_equal(all[0], "chains"); /* the default first */
    assert_string_equal(all[1], "cliques");
    assert_string_equal(all[2], "input");
    assert_string_equal(all[3], "hot-first");
    assert_string_equal(all[4], "pettis-hansen");
    assert_string_equal(all[5], "c3");

    const fn_spec_t fns[] = {{"a", 10, 1, 5, 0}, {"b", 10, 1, 3, 0}, {"z", 10, 1, 0, 0}};
    const arc_spec_t arcs[] = {{"a", "b", 4}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    for (size_t i = 0; i < n; i++) {
        lg_layout_t l;
        lg_diag_t d;
        lg_diag_init(&d);
        order_ok(all[i], &p, 8192, &l, &d);
        assert_string_equal(l.algorithm, all[i]);
        assert_string_equal(names(&p, l.cold, l.ncold), "z");
        assert_int_equal(d.count, 0);
        lg_layout_destroy(&l);
        lg_diag_destroy(&d);
    }
    lg_program_destroy(&p);
}

static void test_unknown_algorithm_lists_the_names(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"a", 10, 1, 5, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    lg_geometry_t g = geometry(8192);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    lg_layout_init(&l);
    assert_int_equal(lg_order("fastest", &p, &g, &l, &d), LG_EINVAL);
    assert_int_equal(l.ncliques, 0);
    assert_null(l.algorithm);
    assert_int_equal(d.errors, 1);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "unknown algorithm 'fastest'"));
    assert_true(
        lg_test_diag_has(&d, LG_ERROR, "expected chains, cliques, input, hot-first, pettis-hansen or c3"));
    assert_int_equal(lg_order(NULL, &p, &g, &l, &d), LG_EINVAL);
    assert_int_equal(d.errors, 2);
    assert_int_equal(lg_order("C3", &p, &g, &l, &d), LG_EINVAL); /* names are case-sensitive */
    assert_null(l.cliques);
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_errors_leave_the_layout_empty(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"a", 10, 1, 1, 0}, {"b", 10, 1, 1, 0}};
    const arc_spec_t arcs[] = {{"a", "b", 5}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    size_t n;
    const char *const *all = lg_algorithm_names(&n);
    for (size_t i = 0; i < n; i++) {
        lg_diag_t d;
        lg_diag_init(&d);
        lg_layout_t l;
        lg_layout_init(&l);
        lg_geometry_t bad = {100, 32, 1}; /* not a multiple of the line size */
        assert_int_equal(lg_order(all[i], &p, &bad, &l, &d), LG_EINVAL);
        assert_int_equal(l.ncliques, 0);
        assert_null(l.cliques);
        assert_null(l.algorithm);
        assert_int_equal(d.errors, 1);

        lg_geometry_t good = geometry(64);
        p.arcs[0].callee = 7; /* out of range */
        assert_int_equal(lg_order(all[i], &p, &good, &l, &d), LG_EINVAL);
        p.arcs[0].callee = 1;
        assert_int_equal(l.ncliques, 0);
        assert_null(l.algorithm);
        assert_null(l.cold);
        assert_true(lg_test_diag_has(&d, LG_ERROR, "out of range"));
        lg_layout_destroy(&l);
        lg_diag_destroy(&d);
    }
    lg_program_destroy(&p);
}

static void test_empty_program(void **state)
{
    (void)state;
    lg_program_t p;
    make_program(&p, NULL, 0, NULL, 0);
    size_t n;
    const char *const *all = lg_algorithm_names(&n);
    for (size_t i = 0; i < n; i++) {
        lg_diag_t d;
        lg_diag_init(&d);
        lg_layout_t l;
        order_ok(all[i], &p, 8192, &l, &d);
        assert_int_equal(l.ncliques, 0);
        assert_int_equal(l.ncold, 0);
        assert_int_equal(l.nexcluded, 0);
        assert_int_equal(d.count, 0);
        lg_layout_destroy(&l);
        lg_diag_destroy(&d);
    }
    lg_program_destroy(&p);
}

static void test_classification_is_shared(void **state)
{
    (void)state;
    /* The rules of the clique pass: hits or a weighted arc make a function executed; a shared
     * section or no bytes make it unmovable. */
    const fn_spec_t fns[] = {
        {"z0", 10, 1, 0, 0},
        {"h", 10, 1, 5, 0},
        {"s", 10, 1, 10, LG_FN_SHARED_SECTION},
        {"k", 10, 1, 0, 0}, /* no hits, but called: executed */
        {"empty", 0, 1, 3, 0},
        {"z1", 10, 1, 0, LG_FN_SHARED_SECTION}, /* unmovable but never executed: cold */
        {"z2", 10, 1, 0, 0},
        {"r", 10, 1, 0, 0}, /* executed through its self arc only */
    };
    const arc_spec_t arcs[] = {{"h", "k", 7}, {"z0", "z2", 0}, {"h", "s", 9}, {"r", "r", 4}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    size_t n;
    const char *const *all = lg_algorithm_names(&n);
    for (size_t i = 0; i < n; i++) {
        lg_layout_t l;
        order_ok(all[i], &p, 8192, &l, NULL);
        assert_string_equal(names(&p, l.cold, l.ncold), "z0 z1 z2");
        assert_string_equal(names(&p, l.excluded, l.nexcluded), "s empty");
        lg_layout_destroy(&l);
    }
    lg_program_destroy(&p);
}

/* ---- input and hot-first ---------------------------------------------------------------- */

static void test_input_keeps_input_order(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"a", 30, 1, 1, 0}, {"b", 30, 1, 9, 0}, {"c", 30, 1, 0, 0},
        {"d", 30, 1, 2, 0}, {"e", 30, 1, 4, 0}, {"x", 30, 1, 0, 0},
    };
    const arc_spec_t arcs[] = {{"c", "a", 100}}; /* calls change nothing */
    lg_program_t p;
    MAKE(&p, fns, arcs);
    /* Input order b d e x a c (the index order is a..x). */
    const uint32_t order[] = {4, 0, 5, 1, 2, 3};
    for (size_t i = 0; i < NELEMS(order); i++)
        p.fns[i].input_order = order[i];
    lg_layout_t l;
    order_ok(LG_ALGORITHM_INPUT, &p, 64, &l, NULL);
    assert_string_equal(layout_text(&p, &l), "b d | e a | c");
    assert_int_equal(l.cliques[0].bytes, 60);
    assert_int_equal(l.cliques[0].hits, 11);
    assert_string_equal(names(&p, l.cold, l.ncold), "x");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_input_packs_with_alignment_and_isolates_oversized(void **state)
{
    (void)state;
    /* 10-byte functions aligned to 16: a at 0, b at 16 (ends at 26), c would end at 42. */
    const fn_spec_t fns[] = {
        {"a", 10, 16, 1, 0},  {"b", 10, 16, 1, 0}, {"c", 10, 16, 1, 0},
        {"big", 40, 1, 1, 0}, {"d", 4, 4, 1, 0},   {"e", 30, 2, 1, 0},
    };
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    order_ok(LG_ALGORITHM_INPUT, &p, 32, &l, &d);
    assert_string_equal(layout_text(&p, &l), "a b | c | big | d | e");
    assert_int_equal(l.cliques[0].bytes, 26);
    assert_int_equal(l.cliques[1].bytes, 10);
    assert_int_equal(l.cliques[2].flags, LG_CLIQUE_OVERSIZED);
    assert_int_equal(l.cliques[2].bytes, 40);
    assert_int_equal(l.cliques[3].bytes, 4); /* d then e would end at 34 */
    assert_int_equal(d.warnings, 1);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "input pass: function big"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "32-byte instruction cache"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "it gets a clique of its own"));
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* A function larger than the cache is a warning only where it holds a share of the profile the
 * user would care about (LG_I_OVERSIZED_WARN_PERCENT); the rest are counted in one note. */
static void test_oversized_warns_only_where_it_matters(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"hot", 10, 1, 5000, 0}, {"big", 40, 1, 3000, 0}, {"start", 50, 1, 1, 0},
        {"init", 60, 1, 3, 0},   {"tiny", 4, 1, 2000, 0},
    };
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    const char *const algorithms[] = {LG_ALGORITHM_CHAINS, LG_ALGORITHM_INPUT, "cliques"};
    for (size_t k = 0; k < NELEMS(algorithms); k++) {
        lg_diag_t d;
        lg_diag_init(&d);
        lg_layout_t l;
        order_ok(algorithms[k], &p, 32, &l, &d);
        assert_int_equal(d.warnings, 1);
        assert_true(lg_test_diag_has(&d, LG_WARNING, "function big"));
        assert_false(lg_test_diag_has(&d, LG_WARNING, "function start"));
        assert_true(lg_test_diag_has(&d, LG_NOTE, "2 function(s) larger than the 32-byte"));
        lg_layout_destroy(&l);
        lg_diag_destroy(&d);
    }
    lg_program_destroy(&p);
}

static void test_phased_functions_take_their_lead(void **state)
{
    (void)state;
    /* b is phased at +16 in a 32-byte line: after a (0..10) it starts at the first offset 16
     * past a line, 16, not a line later, and ends at 36, inside the first clique. big, at +24,
     * would start at 56 after b and end past the 64-byte cache: it opens a clique, where from 0
     * it starts at 24 and ends at 64, so it fits; at +28 it ends at 68, more than the cache:
     * oversized, though its code alone is not. */
    const fn_spec_t fns[] = {
        {"a", 10, 16, 1, 0},
        {"b", 20, 32, 1, LG_FN_PHASED},
        {"big", 40, 32, 1, LG_FN_PHASED},
        {"c", 20, 16, 1, 0},
    };
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    p.fns[1].lead = 16;
    p.fns[2].lead = 24; /* ends 64 bytes after a line's start: still fits */
    bool *exec = executed_set(&p);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    order_ok(LG_ALGORITHM_INPUT, &p, 64, &l, &d);
    assert_string_equal(layout_text(&p, &l), "a b | big | c");
    assert_int_equal(l.cliques[0].bytes, 36);
    assert_int_equal(l.cliques[1].bytes, 64);
    assert_int_equal(l.cliques[1].flags, 0);
    check_invariants(&p, &l, LG_ALGORITHM_INPUT, 64, exec);
    lg_layout_destroy(&l);
    p.fns[2].lead = 28; /* ends 68 bytes after a line's start: oversized */
    order_ok(LG_ALGORITHM_INPUT, &p, 64, &l, &d);
    assert_int_equal(l.cliques[1].flags, LG_CLIQUE_OVERSIZED);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "input pass: function big"));
    check_invariants(&p, &l, LG_ALGORITHM_INPUT, 64, exec);
    lg_layout_destroy(&l);
    /* Every algorithm lays the leads out the same way. */
    size_t n;
    const char *const *all = lg_algorithm_names(&n);
    for (size_t i = 0; i < n; i++) {
        lg_layout_init(&l);
        assert_int_equal(lg_order(all[i], &p, &(lg_geometry_t){64, 32, 1}, &l, &d), LG_OK);
        check_invariants(&p, &l, all[i], 64, exec);
        lg_layout_destroy(&l);
    }
    free(exec);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_hot_first_orders_by_hits(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"f0", 10, 1, 1, 0}, {"f1", 10, 1, 9, 0},  {"f2", 10, 1, 5, 0}, {"f3", 10, 1, 9, 0},
        {"f4", 10, 1, 0, 0}, {"big", 30, 1, 7, 0}, {"f5", 10, 1, 0, 0},
    };
    /* f5 has no hits but is called: executed, with 0 hits it comes last; calls are ignored. */
    const arc_spec_t arcs[] = {{"f0", "f5", 100}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    order_ok(LG_ALGORITHM_HOT_FIRST, &p, 20, &l, &d);
    assert_string_equal(layout_text(&p, &l), "f1 f3 | big | f2 f0 | f5");
    assert_int_equal(l.cliques[0].hits, 18);
    assert_int_equal(l.cliques[0].flags, 0);
    assert_int_equal(l.cliques[1].flags, LG_CLIQUE_OVERSIZED);
    assert_string_equal(names(&p, l.cold, l.ncold), "f4");
    assert_true(lg_test_diag_has(&d, LG_WARNING, "hot-first pass: function big"));
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* ---- pettis-hansen ---------------------------------------------------------------------- */

static void test_pettis_hansen_reverses_the_first_chain(void **state)
{
    (void)state;
    /* Merges a-b (10), c-d (8), then the chains (coalesced weight 5 + 1): of the four end pairs
     * a-c is the heaviest, so [a b] is reversed to put a against c. */
    const fn_spec_t fns[] = {
        {"a", 10, 1, 1, 0},
        {"b", 10, 1, 1, 0},
        {"c", 10, 1, 1, 0},
        {"d", 10, 1, 1, 0},
    };
    const arc_spec_t arcs[] = {{"a", "b", 10}, {"c", "d", 8}, {"a", "c", 5}, {"d", "b", 1}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    order_ok(LG_ALGORITHM_PETTIS_HANSEN, &p, 8192, &l, NULL);
    assert_string_equal(layout_text(&p, &l), "b a c d");
    assert_int_equal(l.cliques[0].flags, 0);
    assert_int_equal(l.cliques[0].bytes, 40);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_pettis_hansen_reverses_the_second_chain(void **state)
{
    (void)state;
    /* As above with b-d the heaviest end pair: [c d] is reversed to put d against b. */
    const fn_spec_t fns[] = {
        {"a", 10, 1, 1, 0},
        {"b", 10, 1, 1, 0},
        {"c", 10, 1, 1, 0},
        {"d", 10, 1, 1, 0},
    };
    const arc_spec_t arcs[] = {{"b", "a", 10}, {"c", "d", 8}, {"b", "d", 5}, {"a", "c", 1}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_PETTIS_HANSEN, &p, 8192), "a b d c");
    lg_program_destroy(&p);
}

static void test_pettis_hansen_coalesces_chain_weights(void **state)
{
    (void)state;
    /* b-d (10) merges first. Then [b d] is joined to a by 4 + 2 = 6, more than c-d (5): a comes
     * before c although no single edge of a is heavier than c-d. a-d (4) beats a-b (2), so
     * [b d] is reversed: a d b. c joins last; none of its ends touches c, so no reversal: c
     * lands after b. Merging edge by edge without coalescing would give a b d c. */
    const fn_spec_t fns[] = {
        {"a", 10, 1, 1, 0},
        {"b", 10, 1, 1, 0},
        {"c", 10, 1, 1, 0},
        {"d", 10, 1, 1, 0},
    };
    const arc_spec_t arcs[] = {{"b", "d", 10}, {"c", "d", 5}, {"a", "d", 4}, {"a", "b", 2}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_PETTIS_HANSEN, &p, 8192), "a d b c");
    lg_program_destroy(&p);
}

static void test_pettis_hansen_orders_chains_by_density(void **state)
{
    (void)state;
    /* Chains p-q and x-y both have 0.1 hits per byte: p's chain, first in input order, leads.
     * s has no edge (its self arc and the zero arc do not count) and the most hits per byte. */
    const fn_spec_t fns[] = {
        {"p", 10, 1, 1, 0}, {"x", 100, 1, 10, 0}, {"s", 100, 1, 50, 0},
        {"q", 10, 1, 1, 0}, {"y", 100, 1, 10, 0},
    };
    const arc_spec_t arcs[] = {{"q", "p", 3}, {"x", "y", 7}, {"s", "s", 1000}, {"s", "x", 0}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_PETTIS_HANSEN, &p, 8192), "s | p q | x y");
    lg_program_destroy(&p);
}

static void test_pettis_hansen_caps_chains_at_1_mib(void **state)
{
    (void)state;
    /* x and y would make 1.2 MB: their edge, the heaviest, is dropped. y then takes z. */
    const fn_spec_t fns[] = {
        {"x", 600000, 1, 1, 0},
        {"y", 600000, 1, 1, 0},
        {"z", 100, 1, 1, 0},
    };
    const arc_spec_t arcs[] = {{"x", "y", 10}, {"y", "z", 5}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    order_ok(LG_ALGORITHM_PETTIS_HANSEN, &p, 1u << 21, &l, &d);
    assert_string_equal(layout_text(&p, &l), "y z | x");
    assert_int_equal(d.count, 0);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
    lg_diag_destroy(&d);
}

static void test_pettis_hansen_marks_oversized_chains(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"big", 100, 1, 50, 0}, {"a", 10, 1, 1, 0}};
    const arc_spec_t arcs[] = {{"big", "a", 3}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    order_ok(LG_ALGORITHM_PETTIS_HANSEN, &p, 64, &l, &d);
    assert_string_equal(layout_text(&p, &l), "big a");
    assert_int_equal(l.cliques[0].flags, LG_CLIQUE_OVERSIZED);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "pettis-hansen pass: function big"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "the chain holding it is marked oversized"));
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
    lg_diag_destroy(&d);
}

/* ---- c3 --------------------------------------------------------------------------------- */

static void test_c3_appends_callee_after_hottest_caller(void **state)
{
    (void)state;
    /* c gets 90 of its 100 calls from a: its cluster goes after a's, not after b's (first in
     * input order). a and b have no callers: weight 0, so b comes last. */
    const fn_spec_t fns[] = {{"b", 10, 1, 7, 0}, {"a", 10, 1, 1, 0}, {"c", 10, 1, 1, 0}};
    const arc_spec_t arcs[] = {{"a", "c", 90}, {"b", "c", 10}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 8192), "a c | b");
    lg_program_destroy(&p);
}

static void test_c3_follows_call_chains(void **state)
{
    (void)state;
    /* Weights: g 140 (self arc included), f 50, h 5, main 0. g joins f (40 of 140 > 10%), then
     * [f g] joins main, then h joins [main f g] (density 190/30 -> 195/40, well above 1/8). */
    const fn_spec_t fns[] = {
        {"h", 10, 1, 1, 0},
        {"g", 10, 1, 1, 0},
        {"f", 10, 1, 1, 0},
        {"main", 10, 1, 1, 0},
    };
    const arc_spec_t arcs[] = {
        {"main", "f", 50}, {"f", "g", 40}, {"main", "h", 5}, {"g", "g", 100}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 8192), "main f g h");
    lg_program_destroy(&p);
}

static void test_c3_refuses_unlikely_edges(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"x", 10, 1, 1, 0}, {"c", 10, 1, 1, 0}};
    /* 10 of c's 100 calls: exactly LG_C3_MIN_EDGE_SHARE_PCT, too unlikely (lld: w*10 <= total). */
    const arc_spec_t at_limit[] = {{"x", "c", C3_MIN_EDGE_SHARE_PCT}, {"c", "c", 90}};
    const arc_spec_t above[] = {{"x", "c", 11}, {"c", "c", 89}};
    lg_program_t p;
    MAKE(&p, fns, at_limit);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 8192), "c | x");
    lg_program_destroy(&p);
    MAKE(&p, fns, above);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 8192), "x c");
    lg_program_destroy(&p);
}

static void test_c3_refuses_density_degradation(void **state)
{
    (void)state;
    /* p (weight 1000) joins x first: [x p] has density 1000/20 = 50. Appending c (weight 80,
     * 10000 bytes) would give 1080/10020 < 50/8: refused. A 100-byte c gives 1080/120 = 9 >=
     * 6.25: accepted. */
    const fn_spec_t big_c[] = {{"x", 10, 1, 1, 0}, {"p", 10, 1, 1, 0}, {"c", 10000, 1, 1, 0}};
    const fn_spec_t small_c[] = {{"x", 10, 1, 1, 0}, {"p", 10, 1, 1, 0}, {"c", 100, 1, 1, 0}};
    const arc_spec_t arcs[] = {{"x", "p", 1000}, {"p", "c", 80}};
    lg_program_t p;
    MAKE(&p, big_c, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 16384), "x p | c");
    lg_program_destroy(&p);
    MAKE(&p, small_c, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 16384), "x p c");
    lg_program_destroy(&p);

    /* At the limit: (1000 + 250) / (20 + 180) = 6.25 = 50 / LG_C3_MAX_DENSITY_DEGRADATION is
     * not below it (accepted); one byte more is. */
    const fn_spec_t at_limit[] = {{"x", 10, 1, 1, 0}, {"p", 10, 1, 1, 0}, {"c", 180, 1, 1, 0}};
    const fn_spec_t past_limit[] = {{"x", 10, 1, 1, 0}, {"p", 10, 1, 1, 0}, {"c", 181, 1, 1, 0}};
    const arc_spec_t heavier[] = {{"x", "p", 1000}, {"p", "c", 250}};
    assert_int_equal(C3_MAX_DENSITY_DEGRADATION, 8);
    MAKE(&p, at_limit, heavier);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 16384), "x p c");
    lg_program_destroy(&p);
    MAKE(&p, past_limit, heavier);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 16384), "x p | c");
    lg_program_destroy(&p);
}

static void test_c3_caps_clusters_at_1_mib(void **state)
{
    (void)state;
    const fn_spec_t too_big[] = {{"p", 600000, 1, 1, 0}, {"c", 600000, 1, 1, 0}};
    const fn_spec_t fits[] = {{"p", 600000, 1, 1, 0}, {"c", MAX_CHAIN_BYTES - 600000, 1, 1, 0}};
    const arc_spec_t arcs[] = {{"p", "c", 5}};
    lg_program_t p;
    MAKE(&p, too_big, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 1u << 21), "c | p");
    lg_program_destroy(&p);
    MAKE(&p, fits, arcs);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 1u << 21), "p c");
    lg_program_destroy(&p);
}

static void test_c3_without_calls_keeps_input_order(void **state)
{
    (void)state;
    /* As in lld, weights come from calls only: a profile without calls leaves every function
     * alone, in input order (hits play no part). */
    const fn_spec_t fns[] = {{"f0", 10, 1, 1, 0}, {"f1", 10, 1, 9, 0}, {"f2", 10, 1, 5, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 8192), "f0 | f1 | f2");
    lg_program_destroy(&p);
}

/* ---- random programs -------------------------------------------------------------------- */

static void shuffle_arcs(lg_program_t *p)
{
    for (size_t k = p->narcs; k > 1; k--) {
        size_t j = (size_t)(lg_test_rng() % k);
        lg_arc_t t = p->arcs[k - 1];
        p->arcs[k - 1] = p->arcs[j];
        p->arcs[j] = t;
    }
}

static void alloc_fns(lg_program_t *p, uint32_t n, size_t narcs)
{
    lg_program_init(p);
    p->fns = calloc(n ? n : 1, sizeof *p->fns);
    p->arcs = calloc(narcs ? narcs : 1, sizeof *p->arcs);
    assert_non_null(p->fns);
    assert_non_null(p->arcs);
    p->nfns = n;
    for (uint32_t i = 0; i < n; i++) {
        lg_fn_t *f = &p->fns[i];
        char name[32];
        snprintf(name, sizeof name, "fn%u", i);
        f->symbol = strdup(name);
        snprintf(name, sizeof name, ".text.fn%u", i);
        f->section = strdup(name);
        assert_non_null(f->symbol);
        assert_non_null(f->section);
        f->address = UINT64_MAX;
        f->input_order = i;
    }
    p->has_call_edges = narcs > 0;
}

/* n functions and about narcs arcs, mostly between nearby functions, some heavy hubs, some
 * self arcs, zero weights, shared sections, empty and oversized functions (test_clique.c). */
static void make_random_program(lg_program_t *p, uint32_t n, size_t narcs, uint64_t seed)
{
    static const uint64_t aligns[] = {0, 1, 2, 4, 16, 32};
    lg_test_seed(seed);
    alloc_fns(p, n, narcs);
    for (uint32_t i = 0; i < n; i++) {
        lg_fn_t *f = &p->fns[i];
        uint64_t r = lg_test_rng() % 1000;
        f->size = r < 10 ? 0 : r < 15 ? 9000 + lg_test_rng() % 4000 : 1 + lg_test_rng() % 700;
        f->align = aligns[lg_test_rng() % NELEMS(aligns)];
        f->hits = lg_test_rng() % 10 < 3 ? 0 : lg_test_rng() % 1000000;
        if (lg_test_rng() % 100 < 2)
            f->flags |= LG_FN_SHARED_SECTION;
    }
    for (size_t k = 0; k < narcs; k++) {
        uint32_t a = (uint32_t)(lg_test_rng() % n), b;
        uint64_t r = lg_test_rng() % 100;
        if (r < 60)
            b = (uint32_t)((a + lg_test_rng() % 64) % n); /* near: includes a itself */
        else if (r < 70)
            b = (uint32_t)(lg_test_rng() % 16); /* hubs */
        else
            b = (uint32_t)(lg_test_rng() % n);
        uint64_t w = lg_test_rng() % 20 == 0 ? 0 : lg_test_rng() % 100000;
        p->arcs[k] = lg_test_rng() % 2 ? (lg_arc_t){a, b, w} : (lg_arc_t){b, a, w};
    }
    p->narcs = narcs;
    lg_arcs_merge(p->arcs, &p->narcs);
}

static void test_large_random_program(void **state)
{
    (void)state;
    enum { N = 20000, ARCS = 100000, CACHE = 8192 };
    lg_program_t p;
    make_random_program(&p, N, ARCS, 0x10c0ffeeull);
    bool *exec = executed_set(&p);
    lg_geometry_t g = geometry(CACHE);

    lg_layout_t ref; /* the clique pass: the classification every algorithm shares */
    lg_layout_init(&ref);
    assert_int_equal(lg_clique_partition(&p, &g, &ref, NULL), LG_OK);

    size_t n;
    const char *const *all = lg_algorithm_names(&n);
    lg_layout_t first[8];
    assert_true(n <= NELEMS(first));
    for (size_t i = 0; i < n; i++) {
        lg_diag_t d;
        lg_diag_init(&d);
        lg_layout_init(&first[i]);
        assert_int_equal(lg_order(all[i], &p, &g, &first[i], &d), LG_OK);
        check_invariants(&p, &first[i], all[i], CACHE, exec);
        /* The oversized functions, none of which holds 1% of the hits. */
        assert_true(lg_test_diag_has(&d, LG_NOTE, "larger than the 8192-byte"));
        assert_int_equal(d.errors, 0);
        assert_int_equal(first[i].ncold, ref.ncold);
        assert_memory_equal(first[i].cold, ref.cold, ref.ncold * sizeof *ref.cold);
        assert_int_equal(first[i].nexcluded, ref.nexcluded);
        assert_memory_equal(first[i].excluded, ref.excluded, ref.nexcluded * sizeof *ref.excluded);
        lg_diag_destroy(&d);
    }
    assert_same_layout(&first[1], &ref); /* "cliques" is the clique pass */
    /* "chains" is pettis-hansen's order, cut to the cache. */
    assert_string_equal(all[0], "chains");
    assert_string_equal(all[4], "pettis-hansen");
    size_t at = 0;
    for (size_t c = 0; c < first[4].ncliques; c++)
        for (size_t k = 0; k < first[4].cliques[c].nfns; k++) {
            const lg_clique_t *cut = &first[0].cliques[0];
            size_t seen = 0, cc = 0;
            while (cc < first[0].ncliques && seen + first[0].cliques[cc].nfns <= at)
                seen += first[0].cliques[cc++].nfns;
            assert_true(cc < first[0].ncliques);
            cut = &first[0].cliques[cc];
            assert_int_equal(cut->fns[at - seen], first[4].cliques[c].fns[k]);
            at++;
        }
    for (size_t c = 0; c < first[0].ncliques; c++)
        assert_true(first[0].cliques[c].nfns == 1 || first[0].cliques[c].bytes <= CACHE);
    /* The call-graph algorithms (pettis-hansen, c3) do group: some chain holds several. */
    for (size_t i = 4; i < n; i++) {
        size_t grouped = 0;
        for (size_t c = 0; c < first[i].ncliques; c++)
            grouped += first[i].cliques[c].nfns > 1;
        assert_true(grouped > 10);
    }

    /* Run to run, and with the arcs in another order, the results are identical. */
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            shuffle_arcs(&p);
        for (size_t i = 0; i < n; i++) {
            lg_layout_t again;
            lg_layout_init(&again);
            assert_int_equal(lg_order(all[i], &p, &g, &again, NULL), LG_OK);
            assert_same_layout(&first[i], &again);
            lg_layout_destroy(&again);
        }
    }
    for (size_t i = 0; i < n; i++)
        lg_layout_destroy(&first[i]);
    lg_layout_destroy(&ref);
    free(exec);
    lg_program_destroy(&p);
}

/* ---- slow reference versions ------------------------------------------------------------ */

/* A small random program whose arc weights are distinct with near certainty (40-bit random
 * values), so that no heaviest choice ties; sizes reach 400 KB so that the 1 MiB caps bite. */
static void make_small_random_program(lg_program_t *p, uint64_t seed)
{
    static const uint64_t aligns[] = {0, 1, 2, 4, 16};
    lg_test_seed(seed);
    uint32_t n = 4 + (uint32_t)(lg_test_rng() % 40);
    size_t narcs = n * (1 + lg_test_rng() % 3);
    alloc_fns(p, n, narcs);
    for (uint32_t i = 0; i < n; i++) {
        lg_fn_t *f = &p->fns[i];
        uint64_t r = lg_test_rng() % 100;
        f->size = r < 3 ? 0 : r < 20 ? 200000 + lg_test_rng() % 200000 : 1 + lg_test_rng() % 3000;
        f->align = aligns[lg_test_rng() % NELEMS(aligns)];
        f->hits = lg_test_rng() % 4 == 0 ? 0 : lg_test_rng() % 1000;
        if (lg_test_rng() % 50 == 0)
            f->flags |= LG_FN_SHARED_SECTION;
    }
    for (size_t k = 0; k < narcs; k++) {
        uint32_t a = (uint32_t)(lg_test_rng() % n), b = (uint32_t)(lg_test_rng() % n);
        uint64_t w = lg_test_rng() % 25 == 0 ? 0 : 1 + (lg_test_rng() >> 24);
        p->arcs[k] = (lg_arc_t){a, b, w};
    }
    p->narcs = narcs;
    lg_arcs_merge(p->arcs, &p->narcs);
    /* Input order differs from the index order: reverse halves. */
    for (uint32_t i = 0; i < n; i++)
        p->fns[i].input_order = i < n / 2 ? n / 2 - 1 - i : i;
}

static bool candidate(const lg_program_t *p, const bool *exec, uint32_t i)
{
    return exec[i] && movable(&p->fns[i]);
}

typedef struct ref_chain {
    uint32_t fns[64];
    size_t n;
    uint64_t num, den; /* density num/den for the final order */
} ref_chain_t;

/* Orders chains[0..n) by density descending, then rank of the first function (insertion
 * sort: n is small). */
static void ref_sort(const lg_program_t *p, ref_chain_t *chains, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        ref_chain_t x = chains[i];
        size_t j = i;
        while (j > 0) {
            const ref_chain_t *y = &chains[j - 1];
            int d = density_cmp(y->num, y->den, x.num, x.den);
            if (d < 0 || (d == 0 && rank_of(p, y->fns[0]) < rank_of(p, x.fns[0])))
                break;
            chains[j] = chains[j - 1];
            j--;
        }
        chains[j] = x;
    }
}

static const char *ref_text(const lg_program_t *p, const ref_chain_t *chains, size_t n)
{
    static char buf[65536];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < n; c++)
        for (size_t k = 0; k < chains[c].n; k++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                                    c == 0 && k == 0 ? ""
                                    : k == 0         ? " | "
                                                     : " ",
                                    p->fns[chains[c].fns[k]].symbol);
    return buf;
}

static uint64_t laid_out(const lg_program_t *p, const uint32_t *fns, size_t n)
{
    uint64_t end = 0;
    for (size_t i = 0; i < n; i++)
        end = lg_fn_end_after(end, &p->fns[fns[i]]);
    return end;
}

/* Pettis-Hansen the slow way (a coalesced weight matrix scanned for its maximum, as BOLT
 * does). Returns false when two pairs tied for the maximum (the result then depends on tie
 * rules this version does not model). */
static bool reference_pettis_hansen(const lg_program_t *p, char *out, size_t outsz)
{
    size_t n = p->nfns;
    bool *exec = executed_set(p);
    uint64_t *orig = calloc(n * n, sizeof *orig), *w = calloc(n * n, sizeof *w);
    ref_chain_t *chains = calloc(n, sizeof *chains);
    uint64_t *size = calloc(n, sizeof *size);
    bool *alive = calloc(n, sizeof *alive);
    assert_true(orig && w && chains && size && alive);
    for (size_t k = 0; k < p->narcs; k++) {
        const lg_arc_t *a = &p->arcs[k];
        if (a->caller == a->callee || !candidate(p, exec, a->caller) ||
            !candidate(p, exec, a->callee))
            continue;
        orig[a->caller * n + a->callee] += a->weight;
        orig[a->callee * n + a->caller] += a->weight;
    }
    memcpy(w, orig, n * n * sizeof *w);
    for (uint32_t i = 0; i < n; i++) {
        alive[i] = candidate(p, exec, i);
        chains[i].fns[0] = i;
        chains[i].n = 1;
        size[i] = padded(&p->fns[i]);
    }
    bool tie = false;
    for (;;) {
        uint64_t best = 0;
        uint32_t bi = 0, bj = 0;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++) {
                if (!alive[i] || !alive[j] || w[i * n + j] == 0)
                    continue;
                if (w[i * n + j] == best)
                    tie = true;
                if (w[i * n + j] > best) {
                    best = w[i * n + j];
                    bi = i;
                    bj = j;
                }
            }
        if (best == 0)
            break;
        w[bi * n + bj] = w[bj * n + bi] = 0;
        if (size[bi] + size[bj] > MAX_CHAIN_BYTES)
            continue;
        /* C1: the chain holding the lowest-ranked function. */
        uint64_t lead_i = UINT64_MAX, lead_j = UINT64_MAX;
        for (size_t k = 0; k < chains[bi].n; k++)
            if (rank_of(p, chains[bi].fns[k]) < lead_i)
                lead_i = rank_of(p, chains[bi].fns[k]);
        for (size_t k = 0; k < chains[bj].n; k++)
            if (rank_of(p, chains[bj].fns[k]) < lead_j)
                lead_j = rank_of(p, chains[bj].fns[k]);
        uint32_t c1 = lead_i < lead_j ? bi : bj, c2 = lead_i < lead_j ? bj : bi;
        ref_chain_t *x = &chains[c1], *y = &chains[c2];
        uint32_t h1 = x->fns[0], t1 = x->fns[x->n - 1], h2 = y->fns[0], t2 = y->fns[y->n - 1];
        uint64_t cand[4] = {orig[t1 * n + h2], orig[t1 * n + t2], orig[h1 * n + h2],
                            orig[h1 * n + t2]};
        int pick = 0;
        for (int k = 1; k < 4; k++)
            if (cand[k] > cand[pick])
                pick = k;
        ref_chain_t merged = {.n = 0};
        for (size_t k = 0; k < x->n; k++)
            merged.fns[merged.n++] = pick >= 2 ? x->fns[x->n - 1 - k] : x->fns[k];
        for (size_t k = 0; k < y->n; k++)
            merged.fns[merged.n++] = pick % 2 == 1 ? y->fns[y->n - 1 - k] : y->fns[k];
        assert_true(merged.n <= NELEMS(merged.fns));
        chains[c1] = merged;
        alive[c2] = false;
        size[c1] += size[c2];
        for (uint32_t k = 0; k < n; k++) {
            if (k == c1 || k == c2)
                continue;
            w[c1 * n + k] += w[c2 * n + k];
            w[k * n + c1] = w[c1 * n + k];
            w[c2 * n + k] = w[k * n + c2] = 0;
        }
    }
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!alive[i])
            continue;
        ref_chain_t c = chains[i];
        c.num = 0;
        for (size_t k = 0; k < c.n; k++)
            c.num += p->fns[c.fns[k]].hits;
        c.den = laid_out(p, c.fns, c.n);
        chains[m++] = c;
    }
    ref_sort(p, chains, m);
    snprintf(out, outsz, "%s", ref_text(p, chains, m));
    free(exec);
    free(orig);
    free(w);
    free(chains);
    free(size);
    free(alive);
    return !tie;
}

/* C3 the slow way: member lists copied on every merge, clusters found by scanning. */
static void reference_c3(const lg_program_t *p, char *out, size_t outsz)
{
    size_t n = p->nfns;
    bool *exec = executed_set(p);
    uint64_t *fw = calloc(n, sizeof *fw), *pw = calloc(n, sizeof *pw);
    uint32_t *pred = calloc(n, sizeof *pred), *of = calloc(n, sizeof *of);
    uint32_t *order = calloc(n, sizeof *order);
    ref_chain_t *cl = calloc(n, sizeof *cl);
    uint64_t *cs = calloc(n, sizeof *cs);
    assert_true(fw && pw && pred && of && order && cl && cs);
    for (uint32_t i = 0; i < n; i++) {
        pred[i] = UINT32_MAX;
        of[i] = i;
        cl[i].fns[0] = i;
        cl[i].n = 1;
        cs[i] = padded(&p->fns[i]);
    }
    for (size_t k = 0; k < p->narcs; k++) {
        const lg_arc_t *a = &p->arcs[k];
        if (a->weight == 0 || !candidate(p, exec, a->caller) || !candidate(p, exec, a->callee))
            continue;
        fw[a->callee] += a->weight;
        if (a->caller != a->callee &&
            (pred[a->callee] == UINT32_MAX || a->weight > pw[a->callee] ||
             (a->weight == pw[a->callee] && rank_of(p, a->caller) < rank_of(p, pred[a->callee])))) {
            pred[a->callee] = a->caller;
            pw[a->callee] = a->weight;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        cl[i].num = fw[i];
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (candidate(p, exec, i))
            order[m++] = i;
    for (size_t i = 1; i < m; i++) { /* by density, then rank */
        uint32_t x = order[i];
        size_t j = i;
        while (j > 0) {
            uint32_t y = order[j - 1];
            int d = density_cmp(fw[y], padded(&p->fns[y]), fw[x], padded(&p->fns[x]));
            if (d < 0 || (d == 0 && rank_of(p, y) < rank_of(p, x)))
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    for (size_t k = 0; k < m; k++) {
        uint32_t f = order[k];
        assert_int_equal(of[f], f);
        if (pred[f] == UINT32_MAX || pw[f] * 100 <= fw[f] * C3_MIN_EDGE_SHARE_PCT)
            continue;
        uint32_t pc = of[pred[f]];
        if (pc == f || cs[pc] + cs[f] > MAX_CHAIN_BYTES)
            continue;
        /* (Wp + Wf) / (Sp + Sf) < Wp / Sp / 8 */
        unsigned __int128 lhs =
            (unsigned __int128)(cl[pc].num + cl[f].num) * cs[pc] * C3_MAX_DENSITY_DEGRADATION;
        unsigned __int128 rhs = (unsigned __int128)cl[pc].num * (cs[pc] + cs[f]);
        if (lhs < rhs)
            continue;
        for (size_t i = 0; i < cl[f].n; i++) {
            of[cl[f].fns[i]] = pc;
            cl[pc].fns[cl[pc].n++] = cl[f].fns[i];
            assert_true(cl[pc].n <= NELEMS(cl[pc].fns));
        }
        cl[pc].num += cl[f].num;
        cs[pc] += cs[f];
        cl[f].n = 0;
    }
    ref_chain_t *res = calloc(m ? m : 1, sizeof *res);
    assert_non_null(res);
    size_t nc = 0;
    for (size_t k = 0; k < m; k++) {
        uint32_t i = order[k];
        if (cl[i].n == 0 || of[i] != i)
            continue;
        res[nc] = cl[i];
        res[nc++].den = cs[i];
    }
    ref_sort(p, res, nc);
    snprintf(out, outsz, "%s", ref_text(p, res, nc));
    free(res);
    free(exec);
    free(fw);
    free(pw);
    free(pred);
    free(of);
    free(order);
    free(cl);
    free(cs);
}

static void test_matches_reference_versions(void **state)
{
    (void)state;
    enum { SEEDS = 400 };
    static char want[65536];
    size_t compared_ph = 0;
    for (uint64_t s = 1; s <= SEEDS; s++) {
        lg_program_t p;
        make_small_random_program(&p, 0x5eed0000ull + s);
        if (reference_pettis_hansen(&p, want, sizeof want)) {
            assert_string_equal(order_text(LG_ALGORITHM_PETTIS_HANSEN, &p, 8192), want);
            compared_ph++;
        }
        reference_c3(&p, want, sizeof want);
        assert_string_equal(order_text(LG_ALGORITHM_C3, &p, 8192), want);
        lg_program_destroy(&p);
    }
    assert_true(compared_ph > SEEDS * 9 / 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_dispatch),
        cmocka_unit_test(test_unknown_algorithm_lists_the_names),
        cmocka_unit_test(test_errors_leave_the_layout_empty),
        cmocka_unit_test(test_empty_program),
        cmocka_unit_test(test_classification_is_shared),
        cmocka_unit_test(test_input_keeps_input_order),
        cmocka_unit_test(test_input_packs_with_alignment_and_isolates_oversized),
        cmocka_unit_test(test_oversized_warns_only_where_it_matters),
        cmocka_unit_test(test_phased_functions_take_their_lead),
        cmocka_unit_test(test_hot_first_orders_by_hits),
        cmocka_unit_test(test_pettis_hansen_reverses_the_first_chain),
        cmocka_unit_test(test_pettis_hansen_reverses_the_second_chain),
        cmocka_unit_test(test_pettis_hansen_coalesces_chain_weights),
        cmocka_unit_test(test_pettis_hansen_orders_chains_by_density),
        cmocka_unit_test(test_pettis_hansen_caps_chains_at_1_mib),
        cmocka_unit_test(test_pettis_hansen_marks_oversized_chains),
        cmocka_unit_test(test_c3_appends_callee_after_hottest_caller),
        cmocka_unit_test(test_c3_follows_call_chains),
        cmocka_unit_test(test_c3_refuses_unlikely_edges),
        cmocka_unit_test(test_c3_refuses_density_degradation),
        cmocka_unit_test(test_c3_caps_clusters_at_1_mib),
        cmocka_unit_test(test_c3_without_calls_keeps_input_order),
        cmocka_unit_test(test_large_random_program),
        cmocka_unit_test(test_matches_reference_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
