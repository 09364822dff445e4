/* test_clique.c - the clique pass: grouping, chain order, cache fit, classification and
 * determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "clique.h"
#include "layout.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building programs by hand (progbuild.h) -------------------------------------------- */

static lg_geometry_t geometry(uint32_t cache_size)
{
    return (lg_geometry_t){cache_size, 4, 1}; /* 4-byte lines: any multiple of 4 is a cache */
}

/* ---- checking results ------------------------------------------------------------------- */

/* The symbols of idx[0..n), separated by spaces (static storage). */
static const char *names(const lg_program_t *p, const uint32_t *idx, size_t n)
{
    static char buf[4096];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "",
                                p->fns[idx[i]].symbol);
    return buf;
}

static const char *clique_names(const lg_program_t *p, const lg_layout_t *l, size_t c)
{
    assert_true(c < l->ncliques);
    return names(p, l->cliques[c].fns, l->cliques[c].nfns);
}

static uint64_t padded(const lg_fn_t *f)
{
    uint64_t a = f->align > 1 ? f->align : 1;
    return (f->size + a - 1) / a * a;
}

static bool executed(const lg_program_t *p, uint32_t i)
{
    if (p->fns[i].hits > 0)
        return true;
    for (size_t k = 0; k < p->narcs; k++)
        if ((p->arcs[k].caller == i || p->arcs[k].callee == i) && p->arcs[k].weight > 0)
            return true;
    return false;
}

static bool movable(const lg_fn_t *f)
{
    return f->size > 0 && !(f->flags & LG_FN_SHARED_SECTION);
}

/* Everything lg_clique_partition promises, checked from scratch (quadratic: small programs, or
 * `exec` precomputed for big ones). */
static void check_invariants_with(const lg_program_t *p, const lg_layout_t *l, uint32_t cache,
                                  const bool *exec)
{
    assert_string_equal(l->algorithm, "cliques");
    assert_int_equal(l->geometry.cache_size, cache);
    unsigned *seen = calloc(p->nfns ? p->nfns : 1, sizeof *seen);
    assert_non_null(seen);

    for (size_t c = 0; c < l->ncliques; c++) {
        const lg_clique_t *cl = &l->cliques[c];
        assert_true(cl->nfns >= 1);
        uint64_t hits = 0, end = 0;
        for (size_t k = 0; k < cl->nfns; k++) {
            uint32_t i = cl->fns[k];
            assert_true(i < p->nfns);
            const lg_fn_t *f = &p->fns[i];
            seen[i]++;
            assert_true(exec[i]);
            assert_true(movable(f));
            hits += f->hits;
            uint64_t a = f->align > 1 ? f->align : 1;
            end = (end + a - 1) / a * a + f->size;
            if (k > 0 && (cl->flags & LG_CLIQUE_NO_CALLS))
                assert_true(p->fns[cl->fns[k - 1]].hits >= f->hits);
        }
        assert_true(cl->hits == hits);
        assert_true(cl->bytes == end); /* laid out from a fresh start */
        if (cl->flags & LG_CLIQUE_OVERSIZED) {
            assert_int_equal(cl->nfns, 1);
            assert_true(padded(&p->fns[cl->fns[0]]) > cache);
        } else {
            assert_true(cl->bytes <= cache);
            for (size_t k = 0; k < cl->nfns; k++)
                assert_true(padded(&p->fns[cl->fns[k]]) <= cache);
        }
        if (c > 0) { /* hottest first, then the lower-ranked first function */
            const lg_clique_t *prev = &l->cliques[c - 1];
            assert_true(prev->hits >= cl->hits);
            if (prev->hits == cl->hits)
                assert_true(p->fns[prev->fns[0]].input_order < p->fns[cl->fns[0]].input_order);
        }
    }
    for (size_t k = 0; k < l->ncold; k++) {
        uint32_t i = l->cold[k];
        seen[i]++;
        assert_false(exec[i]);
        if (k > 0)
            assert_true(p->fns[l->cold[k - 1]].input_order < p->fns[i].input_order);
    }
    for (size_t k = 0; k < l->nexcluded; k++) {
        uint32_t i = l->excluded[k];
        seen[i]++;
        assert_true(exec[i]);
        assert_false(movable(&p->fns[i]));
        if (k > 0)
            assert_true(p->fns[l->excluded[k - 1]].input_order < p->fns[i].input_order);
    }
    for (size_t i = 0; i < p->nfns; i++)
        assert_int_equal(seen[i], 1); /* every function exactly once */
    free(seen);
}

static void check_invariants(const lg_program_t *p, const lg_layout_t *l, uint32_t cache)
{
    bool *exec = calloc(p->nfns ? p->nfns : 1, sizeof *exec);
    assert_non_null(exec);
    for (uint32_t i = 0; i < p->nfns; i++)
        exec[i] = executed(p, i);
    check_invariants_with(p, l, cache, exec);
    free(exec);
}

static void assert_same_layout(const lg_layout_t *a, const lg_layout_t *b)
{
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

/* Runs the pass, expecting success, and checks the invariants. */
static void partition_ok(const lg_program_t *p, uint32_t cache, lg_layout_t *l, lg_diag_t *d)
{
    lg_geometry_t g = geometry(cache);
    lg_layout_init(l);
    lg_err_t err = lg_clique_partition(p, &g, l, d);
    if (err != LG_OK)
        lg_test_diag_dump(d);
    assert_int_equal(err, LG_OK);
    check_invariants(p, l, cache);
}

/* ---- scenarios -------------------------------------------------------------------------- */

static void test_empty_program(void **state)
{
    (void)state;
    lg_program_t p;
    make_program(&p, NULL, 0, NULL, 0);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, &d);
    assert_int_equal(l.ncliques, 0);
    assert_int_equal(l.ncold, 0);
    assert_int_equal(l.nexcluded, 0);
    assert_int_equal(l.geometry.line_size, 4);
    assert_int_equal(d.count, 0);
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_hot_chain_is_one_clique_in_call_order(void **state)
{
    (void)state;
    /* Input order c, a, b; the calls go a -> b -> c. */
    const fn_spec_t fns[] = {
        {"c", 100, 4, 30, 0},
        {"a", 100, 4, 10, 0},
        {"b", 100, 4, 20, 0},
    };
    const arc_spec_t arcs[] = {{"a", "b", 100}, {"b", "c", 50}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, &d);
    assert_int_equal(l.ncliques, 1);
    assert_string_equal(clique_names(&p, &l, 0), "a b c");
    assert_int_equal(l.cliques[0].flags, 0);
    assert_int_equal(l.cliques[0].bytes, 300);
    assert_int_equal(l.cliques[0].hits, 60);
    assert_int_equal(l.ncold, 0);
    assert_int_equal(l.nexcluded, 0);
    assert_int_equal(d.count, 0);
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_caller_joining_later_goes_before_its_callee(void **state)
{
    (void)state;
    /* The heavy pair b -> c seeds the clique; a (calls b) then joins in front of b, and d (called
     * by c) after c. */
    const fn_spec_t fns[] = {
        {"a", 64, 1, 1, 0}, {"b", 64, 1, 1, 0}, {"c", 64, 1, 1, 0}, {"d", 64, 1, 1, 0},
    };
    const arc_spec_t arcs[] = {{"a", "b", 50}, {"b", "c", 100}, {"c", "d", 20}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, NULL);
    assert_int_equal(l.ncliques, 1);
    assert_string_equal(clique_names(&p, &l, 0), "a b c d");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_two_groups_ordered_by_hits(void **state)
{
    (void)state;
    /* x-y has the heavier edge (so it is grouped first), p-q is hotter (so it is linked first). */
    const fn_spec_t fns[] = {
        {"x", 200, 2, 1, 0}, {"y", 200, 2, 1, 0}, {"p", 200, 2, 50, 0}, {"q", 200, 2, 50, 0},
    };
    const arc_spec_t arcs[] = {{"x", "y", 1000}, {"p", "q", 10}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, NULL);
    assert_int_equal(l.ncliques, 2);
    assert_string_equal(clique_names(&p, &l, 0), "p q");
    assert_int_equal(l.cliques[0].hits, 100);
    assert_string_equal(clique_names(&p, &l, 1), "x y");
    assert_int_equal(l.cliques[1].hits, 2);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_small_cache_gives_several_cliques(void **state)
{
    (void)state;
    /* 12 functions of 24 bytes in a 64-byte cache: at most 2 per clique. */
    enum { N = 12 };
    fn_spec_t fns[N];
    char name[N][8];
    arc_spec_t arcs[2 * N];
    size_t na = 0;
    for (int i = 0; i < N; i++) {
        snprintf(name[i], sizeof name[i], "f%d", i);
        fns[i] = (fn_spec_t){name[i], 24, 4, (uint64_t)(i + 1), 0};
    }
    for (int i = 0; i + 1 < N; i++)
        arcs[na++] = (arc_spec_t){name[i], name[i + 1], (uint64_t)(i + 1)};
    for (int i = 0; i + 3 < N; i += 3)
        arcs[na++] = (arc_spec_t){name[i + 3], name[i], 7};
    lg_program_t p;
    make_program(&p, fns, N, arcs, na);
    lg_layout_t l;
    partition_ok(&p, 64, &l, NULL);
    assert_true(l.ncliques >= N / 2);
    size_t total = 0;
    for (size_t c = 0; c < l.ncliques; c++) {
        assert_true(l.cliques[c].bytes <= 64);
        assert_true(l.cliques[c].nfns <= 2);
        total += l.cliques[c].nfns;
    }
    assert_int_equal(total, N);
    /* The heaviest edge f10 -> f11 (11) seeded the first clique grown; it is also the hottest. */
    assert_string_equal(clique_names(&p, &l, 0), "f10 f11");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_oversized_function_gets_own_clique(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"big", 2000, 1, 5, 0}, {"a", 100, 1, 10, 0}, {"b", 100, 1, 10, 0},
        {"edge", 1000, 512, 1, 0}, /* padded to exactly 1024 = the cache: not oversized */
    };
    const arc_spec_t arcs[] = {{"big", "a", 100}, {"a", "b", 50}, {"b", "big", 70}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    partition_ok(&p, 1024, &l, &d);
    assert_int_equal(l.ncliques, 3);
    assert_string_equal(clique_names(&p, &l, 0), "a b");
    assert_int_equal(l.cliques[0].flags, 0);
    assert_string_equal(clique_names(&p, &l, 1), "big");
    assert_int_equal(l.cliques[1].flags, LG_CLIQUE_OVERSIZED);
    assert_int_equal(l.cliques[1].bytes, 2000);
    assert_string_equal(clique_names(&p, &l, 2), "edge");
    assert_int_equal(l.cliques[2].flags, LG_CLIQUE_NO_CALLS);
    assert_int_equal(d.warnings, 1);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "big"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "2000 bytes"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "1024-byte"));
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_alignment_padding_is_counted(void **state)
{
    (void)state;
    /* 10-byte functions aligned to 16 take 16 bytes each: only two fit a 32-byte cache, where
     * three unaligned ones (30 bytes) would. */
    const fn_spec_t aligned[] = {{"a", 10, 16, 3, 0}, {"b", 10, 16, 2, 0}, {"c", 10, 16, 1, 0}};
    const fn_spec_t unaligned[] = {{"a", 10, 0, 3, 0}, {"b", 10, 1, 2, 0}, {"c", 10, 0, 1, 0}};
    const arc_spec_t arcs[] = {{"a", "b", 30}, {"b", "c", 20}};
    lg_program_t p;
    lg_layout_t l;

    MAKE(&p, aligned, arcs);
    partition_ok(&p, 32, &l, NULL);
    assert_int_equal(l.ncliques, 2);
    assert_string_equal(clique_names(&p, &l, 0), "a b");
    assert_int_equal(l.cliques[0].bytes, 26); /* a at 0, b at 16 */
    assert_string_equal(clique_names(&p, &l, 1), "c");
    assert_int_equal(l.cliques[1].flags, LG_CLIQUE_NO_CALLS);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);

    MAKE(&p, unaligned, arcs);
    partition_ok(&p, 32, &l, NULL);
    assert_int_equal(l.ncliques, 1);
    assert_string_equal(clique_names(&p, &l, 0), "a b c");
    assert_int_equal(l.cliques[0].bytes, 30);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_mixed_alignment_never_overflows_the_cache(void **state)
{
    (void)state;
    /* Padded sizes sum to 20 <= 24, but laid out in call order (a b c d) the chain would end at
     * 32: the fill bound keeps the laid-out size within the cache. */
    const fn_spec_t fns[] = {
        {"a", 2, 1, 1, 0}, {"b", 8, 8, 1, 0}, {"c", 2, 1, 1, 0}, {"d", 8, 8, 1, 0},
    };
    const arc_spec_t arcs[] = {{"a", "b", 40}, {"b", "c", 30}, {"c", "d", 20}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    partition_ok(&p, 24, &l, NULL); /* checks bytes == laid-out size <= 24 */
    assert_true(l.ncliques >= 2);
    assert_string_equal(clique_names(&p, &l, 0), "a b c");
    assert_int_equal(l.cliques[0].bytes, 18);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_never_executed_functions_are_cold_in_input_order(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"z0", 10, 1, 0, 0},
        {"h", 10, 1, 5, 0},
        {"z1", 10, 1, 0, 0},
        {"k", 10, 1, 0, 0}, /* no hits, but called: executed */
        {"z2", 10, 1, 0, LG_FN_SHARED_SECTION}, /* unmovable but never executed: cold */
        {"z3", 10, 1, 0, 0},
    };
    const arc_spec_t arcs[] = {{"h", "k", 7}, {"z1", "z3", 0}}; /* a zero arc does not execute */
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, NULL);
    assert_string_equal(names(&p, l.cold, l.ncold), "z0 z1 z2 z3");
    assert_int_equal(l.ncliques, 1);
    assert_string_equal(clique_names(&p, &l, 0), "h k");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_unmovable_executed_functions_are_excluded(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"n", 10, 1, 1, 0},
        {"s", 10, 1, 10, LG_FN_SHARED_SECTION},
        {"empty", 0, 1, 3, 0},
        {"m", 10, 1, 2, 0},
        {"s2", 10, 1, 0, LG_FN_SHARED_SECTION}, /* executed only through its arc */
    };
    const arc_spec_t arcs[] = {{"n", "s", 500}, {"s", "m", 400}, {"m", "s2", 9}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, NULL);
    assert_string_equal(names(&p, l.excluded, l.nexcluded), "s empty s2");
    assert_int_equal(l.ncold, 0);
    /* n and m only met through excluded functions: no call edges left, packed by hotness. */
    assert_int_equal(l.ncliques, 1);
    assert_string_equal(clique_names(&p, &l, 0), "m n");
    assert_int_equal(l.cliques[0].flags, LG_CLIQUE_NO_CALLS);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_self_recursion(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"r", 10, 1, 3, 0}, {"a", 10, 1, 0, 0}, {"f", 10, 1, 0, 0}, {"g", 10, 1, 0, 0},
    };
    /* r recurses a lot and calls a; f only recurses (no hits): executed all the same. */
    const arc_spec_t arcs[] = {{"r", "r", 100000}, {"r", "a", 10}, {"f", "f", 5},
                               {"g", "g", 0}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, NULL);
    assert_int_equal(l.ncliques, 2);
    assert_string_equal(clique_names(&p, &l, 0), "r a");
    assert_int_equal(l.cliques[0].flags, 0);
    assert_string_equal(clique_names(&p, &l, 1), "f");
    assert_int_equal(l.cliques[1].flags, LG_CLIQUE_NO_CALLS);
    assert_string_equal(names(&p, l.cold, l.ncold), "g");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_equal_weights_break_ties_by_rank(void **state)
{
    (void)state;
    /* A square a->b->c->d->a of equal weights and hits; the cache holds three. The seed is the
     * lowest-ranked pair (a, b); c (rank 2) beats d (rank 3) for the third place. */
    const fn_spec_t fns[] = {
        {"a", 10, 1, 5, 0}, {"b", 10, 1, 5, 0}, {"c", 10, 1, 5, 0}, {"d", 10, 1, 5, 0},
    };
    const arc_spec_t arcs[] = {{"a", "b", 10}, {"b", "c", 10}, {"c", "d", 10}, {"d", "a", 10}};
    const arc_spec_t reversed[] = {{"d", "a", 10}, {"c", "d", 10}, {"b", "c", 10}, {"a", "b", 10}};
    lg_program_t p1, p2;
    MAKE(&p1, fns, arcs);
    MAKE(&p2, fns, reversed);
    lg_layout_t l1, l2, l3;
    partition_ok(&p1, 32, &l1, NULL);
    partition_ok(&p2, 32, &l2, NULL);
    partition_ok(&p1, 32, &l3, NULL);
    assert_int_equal(l1.ncliques, 2);
    assert_string_equal(clique_names(&p1, &l1, 0), "a b c");
    assert_string_equal(clique_names(&p1, &l1, 1), "d");
    assert_same_layout(&l1, &l2);
    assert_same_layout(&l1, &l3);
    lg_layout_destroy(&l1);
    lg_layout_destroy(&l2);
    lg_layout_destroy(&l3);
    lg_program_destroy(&p1);
    lg_program_destroy(&p2);
}

static void test_seed_pair_puts_heavier_caller_first(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"a", 10, 1, 1, 0}, {"b", 10, 1, 1, 0}};
    const arc_spec_t balanced[] = {{"a", "b", 5}, {"b", "a", 5}};
    const arc_spec_t b_calls_more[] = {{"a", "b", 5}, {"b", "a", 6}};
    lg_program_t p;
    lg_layout_t l;

    MAKE(&p, fns, balanced);
    partition_ok(&p, 8192, &l, NULL);
    assert_string_equal(clique_names(&p, &l, 0), "a b"); /* tie: input order */
    lg_layout_destroy(&l);
    lg_program_destroy(&p);

    MAKE(&p, fns, b_calls_more);
    partition_ok(&p, 8192, &l, NULL);
    assert_string_equal(clique_names(&p, &l, 0), "b a");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_equal_hot_cliques_follow_input_order(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {
        {"p", 10, 1, 2, 0}, {"x", 10, 1, 2, 0}, {"q", 10, 1, 2, 0}, {"y", 10, 1, 2, 0},
    };
    /* x-y is heavier and grouped first, but both cliques have 4 hits: p's clique leads. */
    const arc_spec_t arcs[] = {{"x", "y", 90}, {"p", "q", 10}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_layout_t l;
    partition_ok(&p, 8192, &l, NULL);
    assert_int_equal(l.ncliques, 2);
    assert_string_equal(clique_names(&p, &l, 0), "p q");
    assert_string_equal(clique_names(&p, &l, 1), "x y");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_statistical_profile_packs_by_hotness(void **state)
{
    (void)state;
    /* Hits only, no arcs: NO_CALLS cliques by hits, ties by input order. */
    const fn_spec_t fns[] = {
        {"f0", 10, 1, 1, 0}, {"f1", 10, 1, 9, 0}, {"f2", 10, 1, 5, 0}, {"f3", 10, 1, 9, 0},
        {"f4", 10, 1, 0, 0},
    };
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    lg_layout_t l;
    partition_ok(&p, 20, &l, NULL);
    assert_int_equal(l.ncliques, 2);
    assert_string_equal(clique_names(&p, &l, 0), "f1 f3");
    assert_int_equal(l.cliques[0].hits, 18);
    assert_int_equal(l.cliques[0].flags, LG_CLIQUE_NO_CALLS);
    assert_string_equal(clique_names(&p, &l, 1), "f2 f0");
    assert_int_equal(l.cliques[1].hits, 6);
    assert_int_equal(l.cliques[1].flags, LG_CLIQUE_NO_CALLS);
    assert_string_equal(names(&p, l.cold, l.ncold), "f4");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_entries_that_stop_fitting_leave_the_heap_but_fitting_ones_stay(void **state)
{
    (void)state;
    /* h calls s (the seed), 400 functions of 100 bytes (heavier calls) and four of 4 bytes
     * (lighter ones). The cache holds h, s, two of the large ones and the four small ones: once
     * two large ones have joined, the other 398 entries no longer fit, and enough of them come
     * up that the heap sheds the rest in one sweep. The small ones must still join, in order of
     * their weights, each right after h, which calls them. */
    enum { NBIG = 400, NSMALL = 4 };
    fn_spec_t fns[2 + NBIG + NSMALL];
    arc_spec_t arcs[1 + NBIG + NSMALL];
    char names[2 + NBIG + NSMALL][16];
    size_t nf = 0, na = 0;
    fns[nf++] = (fn_spec_t){"h", 16, 1, 1, 0};
    fns[nf++] = (fn_spec_t){"s", 16, 1, 1, 0};
    arcs[na++] = (arc_spec_t){"h", "s", 1000000};
    for (int i = 0; i < NBIG; i++) {
        snprintf(names[nf], sizeof names[nf], "b%d", i);
        fns[nf] = (fn_spec_t){names[nf], 100, 1, 1, 0};
        arcs[na++] = (arc_spec_t){"h", names[nf++], 1000 + (uint64_t)i};
    }
    for (int j = 0; j < NSMALL; j++) {
        snprintf(names[nf], sizeof names[nf], "t%d", j);
        fns[nf] = (fn_spec_t){names[nf], 4, 1, 1, 0};
        arcs[na++] = (arc_spec_t){"h", names[nf++], 10 - (uint64_t)j};
    }
    lg_program_t p;
    make_program(&p, fns, nf, arcs, na);
    lg_layout_t l;
    partition_ok(&p, 16 + 16 + 2 * 100 + NSMALL * 4, &l, NULL);
    /* The grouped clique is the hottest (8 hits); the other large ones follow, packed. */
    assert_string_equal(clique_names(&p, &l, 0), "h t3 t2 t1 t0 b398 b399 s");
    assert_int_equal(l.cliques[0].bytes, 16 + 16 + 2 * 100 + NSMALL * 4);
    for (size_t c = 1; c < l.ncliques; c++)
        assert_int_equal(l.cliques[c].flags, LG_CLIQUE_NO_CALLS);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_errors_leave_the_layout_empty(void **state)
{
    (void)state;
    const fn_spec_t fns[] = {{"a", 10, 1, 1, 0}, {"b", 10, 1, 1, 0}};
    const arc_spec_t arcs[] = {{"a", "b", 5}};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;
    lg_layout_init(&l);

    lg_geometry_t bad = {100, 32, 1}; /* not a multiple of the line size */
    assert_int_equal(lg_clique_partition(&p, &bad, &l, &d), LG_EINVAL);
    assert_int_equal(l.ncliques, 0);
    assert_null(l.cliques);
    assert_null(l.algorithm);
    assert_int_equal(d.errors, 1);

    lg_geometry_t good = geometry(64);
    p.arcs[0].callee = 7; /* out of range */
    assert_int_equal(lg_clique_partition(&p, &good, &l, &d), LG_EINVAL);
    assert_int_equal(l.ncliques, 0);
    assert_null(l.algorithm);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "out of range"));

    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* ---- a large random program ------------------------------------------------------------- */

/* n functions and about narcs arcs, mostly between nearby functions, some heavy hubs, some
 * self arcs, zero weights, shared sections, empty and oversized functions. */
static void make_random_program(lg_program_t *p, uint32_t n, size_t narcs, uint64_t seed)
{
    static const uint64_t aligns[] = {0, 1, 2, 4, 16, 32};
    lg_test_seed(seed);
    lg_program_init(p);
    p->fns = calloc(n, sizeof *p->fns);
    assert_non_null(p->fns);
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
        uint64_t r = lg_test_rng() % 1000;
        f->size = r < 10 ? 0 : r < 15 ? 9000 + lg_test_rng() % 4000 : 1 + lg_test_rng() % 700;
        f->align = aligns[lg_test_rng() % (sizeof aligns / sizeof aligns[0])];
        f->hits = lg_test_rng() % 10 < 3 ? 0 : lg_test_rng() % 1000000;
        if (lg_test_rng() % 100 < 2)
            f->flags |= LG_FN_SHARED_SECTION;
    }
    p->arcs = calloc(narcs, sizeof *p->arcs);
    assert_non_null(p->arcs);
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
    /* program.h: arcs sorted by (caller, callee) and unique. */
    p->narcs = narcs;
    lg_arcs_merge(p->arcs, &p->narcs);
    p->has_call_edges = true;
}

static void test_large_random_program(void **state)
{
    (void)state;
    enum { N = 20000, ARCS = 100000, CACHE = 8192 };
    lg_program_t p;
    make_random_program(&p, N, ARCS, 0x10c0ffeeull);
    bool *exec = calloc(N, sizeof *exec);
    assert_non_null(exec);
    for (uint32_t i = 0; i < N; i++)
        exec[i] = p.fns[i].hits > 0;
    for (size_t k = 0; k < p.narcs; k++)
        if (p.arcs[k].weight > 0)
            exec[p.arcs[k].caller] = exec[p.arcs[k].callee] = true;

    lg_geometry_t g = geometry(CACHE);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l1, l2, l3;
    lg_layout_init(&l1);
    lg_layout_init(&l2);
    lg_layout_init(&l3);
    assert_int_equal(lg_clique_partition(&p, &g, &l1, &d), LG_OK);
    check_invariants_with(&p, &l1, CACHE, exec);
    assert_true(l1.ncliques > 100);
    /* The oversized functions, none of which holds 1% of the hits. */
    assert_true(lg_test_diag_has(&d, LG_NOTE, "larger than the 8192-byte"));
    size_t grouped = 0;
    for (size_t c = 0; c < l1.ncliques; c++)
        grouped += l1.cliques[c].flags == 0;
    assert_true(grouped > 10);

    /* Run to run, and with the arcs in another order, the result is identical. */
    assert_int_equal(lg_clique_partition(&p, &g, &l2, NULL), LG_OK);
    assert_same_layout(&l1, &l2);
    for (size_t k = p.narcs; k > 1; k--) {
        size_t j = (size_t)(lg_test_rng() % k);
        lg_arc_t t = p.arcs[k - 1];
        p.arcs[k - 1] = p.arcs[j];
        p.arcs[j] = t;
    }
    assert_int_equal(lg_clique_partition(&p, &g, &l3, NULL), LG_OK);
    assert_same_layout(&l1, &l3);

    lg_layout_destroy(&l1);
    lg_layout_destroy(&l2);
    lg_layout_destroy(&l3);
    lg_diag_destroy(&d);
    free(exec);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_program),
        cmocka_unit_test(test_hot_chain_is_one_clique_in_call_order),
        cmocka_unit_test(test_caller_joining_later_goes_before_its_callee),
        cmocka_unit_test(test_two_groups_ordered_by_hits),
        cmocka_unit_test(test_small_cache_gives_several_cliques),
        cmocka_unit_test(test_oversized_function_gets_own_clique),
        cmocka_unit_test(test_alignment_padding_is_counted),
        cmocka_unit_test(test_mixed_alignment_never_overflows_the_cache),
        cmocka_unit_test(test_never_executed_functions_are_cold_in_input_order),
        cmocka_unit_test(test_unmovable_executed_functions_are_excluded),
        cmocka_unit_test(test_self_recursion),
        cmocka_unit_test(test_equal_weights_break_ties_by_rank),
        cmocka_unit_test(test_seed_pair_puts_heavier_caller_first),
        cmocka_unit_test(test_equal_hot_cliques_follow_input_order),
        cmocka_unit_test(test_statistical_profile_packs_by_hotness),
        cmocka_unit_test(test_entries_that_stop_fitting_leave_the_heap_but_fitting_ones_stay),
        cmocka_unit_test(test_errors_leave_the_layout_empty),
        cmocka_unit_test(test_large_random_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
