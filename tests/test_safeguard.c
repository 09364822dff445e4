/* test_safeguard.c - the default keeps the input order when its layout is predicted to miss
 * more, or, in an associative cache, when the input order is predicted to have no conflict
 * misses: hand-built programs whose better order is known (functions that a caller calls in
 * turn, adjacent or a whole way apart). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "layout.h"
#include "safeguard.h"

#include <stdlib.h>
#include <string.h>

#define CACHE 8192u /* bytes, direct-mapped, 32-byte lines */
#define TEXT_BASE 0x10000u
#define LG_PERMILLE_TEST 1000u

static const lg_geometry_t geo = {CACHE, 32, 1};

/* main calls a and b in turn; pad is never executed, and after a it puts the next function one
 * cache from a's start: on a's sets. */
static const fn_spec_t fns[] = {
    {"main", 64, 1, 1, 0},
    {"a", 256, 1, 5000, 0},
    {"b", 256, 1, 5000, 0},
    {"pad", CACHE - 256, 1, 0, 0},
};
static const arc_spec_t arcs[] = {{"main", "a", 5000}, {"main", "b", 5000}};

/* Gives the functions addresses in the order `order` (indexes into fns), back to back. */
static void link_in_order(lg_program_t *p, const uint32_t *order, size_t n)
{
    uint64_t at = TEXT_BASE;
    for (size_t k = 0; k < n; k++) {
        p->fns[order[k]].address = at;
        p->fns[order[k]].input_order = (uint32_t)k;
        at += p->fns[order[k]].size;
    }
}

static void add_clique(lg_layout_t *l, const uint32_t *members, size_t n, uint32_t flags)
{
    l->cliques = realloc(l->cliques, (l->ncliques + 1) * sizeof *l->cliques);
    assert_non_null(l->cliques);
    lg_clique_t *c = &l->cliques[l->ncliques++];
    memset(c, 0, sizeof *c);
    c->fns = malloc(n * sizeof *c->fns);
    assert_non_null(c->fns);
    memcpy(c->fns, members, n * sizeof *c->fns);
    c->nfns = n;
    c->flags = flags;
}

/* Runs the safeguard on l for p's linked order in cache g; the call must succeed. */
static lg_safeguard_t guard_in(const lg_program_t *p, const lg_geometry_t *g, lg_layout_t *l)
{
    lg_diag_t d;
    lg_diag_init(&d);
    lg_safeguard_t sg;
    assert_int_equal(lg_safeguard_layout(p, g, l, &sg, &d), LG_OK);
    lg_diag_destroy(&d);
    return sg;
}

static lg_safeguard_t guard(const lg_program_t *p, lg_layout_t *l)
{
    return guard_in(p, &geo, l);
}

/* l now keeps the input order: no cliques, no alignment, and its n functions, indexes 0 to
 * n - 1 in input order, all in cold. */
static void assert_kept_input(const lg_layout_t *l, uint32_t n)
{
    assert_int_equal(l->ncliques, 0);
    assert_null(l->cliques);
    assert_int_equal(l->section_align, 0);
    assert_string_equal(l->algorithm, LG_ALGORITHM_KEPT);
    assert_int_equal(l->ncold, n);
    for (uint32_t k = 0; k < n; k++)
        assert_int_equal(l->cold[k], k);
}

/* An empty proposal of the cliques algorithm. */
static void empty_layout(lg_layout_t *l)
{
    lg_layout_init(l);
    l->geometry = geo;
    l->algorithm = "cliques";
}

/* Proposal: main and a, then pad as filler, then b: b lands on a's sets. */
static void conflicting_layout(lg_layout_t *l)
{
    empty_layout(l);
    l->section_align = CACHE;
    add_clique(l, (const uint32_t[]){0, 1}, 2, 0);
    add_clique(l, (const uint32_t[]){3}, 1, LG_CLIQUE_FILLER);
    add_clique(l, (const uint32_t[]){2}, 1, 0);
}

static void test_worse_proposal_keeps_input(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, fns, arcs);
    link_in_order(&p, (const uint32_t[]){0, 1, 2, 3}, 4); /* a and b adjacent */
    lg_layout_t l;
    conflicting_layout(&l);
    lg_safeguard_t sg = guard(&p, &l);
    assert_int_equal(sg.verdict, LG_SAFEGUARD_KEPT_INPUT);
    assert_true(sg.proposed_misses * LG_PERMILLE_TEST >
                sg.input_misses * (LG_PERMILLE_TEST + LG_SAFEGUARD_MARGIN_PERMILLE));
    /* Every function keeps its place: all of them, in input order. */
    assert_kept_input(&l, 4);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

/* The executed functions proposed back to back, in one clique, against two linked orders: a
 * and b one cache apart (they evict each other at every call: the proposal is better), and the
 * proposal's own order (a tie). Either way the proposal stays. */
static void test_better_or_equal_proposal_stays(void **state)
{
    (void)state;
    const uint32_t apart[] = {0, 1, 3, 2}, same[] = {0, 1, 2, 3};
    const uint32_t *orders[] = {apart, same};
    for (size_t k = 0; k < 2; k++) {
        lg_program_t p;
        MAKE(&p, fns, arcs);
        link_in_order(&p, orders[k], 4);
        lg_layout_t l;
        empty_layout(&l);
        add_clique(&l, (const uint32_t[]){0, 1, 2}, 3, 0);
        lg_safeguard_t sg = guard(&p, &l);
        assert_int_equal(sg.verdict, LG_SAFEGUARD_PROPOSED);
        /* Direct-mapped: the input order is never compared with a fully-associative cache. */
        assert_int_equal(sg.associative_misses, 0);
        if (orders[k] == apart)
            assert_true(sg.proposed_misses < sg.input_misses);
        else
            assert_int_equal(sg.proposed_misses, sg.input_misses);
        assert_int_equal(l.ncliques, 1);
        assert_int_equal(l.cliques[0].nfns, 3);
        assert_string_equal(l.algorithm, "cliques");
        lg_layout_destroy(&l);
        lg_program_destroy(&p);
    }
}

static void test_objects_only_unchecked(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, fns, arcs); /* no addresses: only objects were read */
    lg_layout_t l;
    conflicting_layout(&l);
    lg_safeguard_t sg = guard(&p, &l);
    assert_int_equal(sg.verdict, LG_SAFEGUARD_UNCHECKED);
    assert_int_equal(l.ncliques, 3);
    assert_string_equal(l.algorithm, "cliques");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_empty_layout_equals_input(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, fns, arcs);
    link_in_order(&p, (const uint32_t[]){0, 1, 3, 2}, 4);
    lg_layout_t l;
    empty_layout(&l);
    lg_safeguard_t sg = guard(&p, &l);
    assert_int_equal(sg.verdict, LG_SAFEGUARD_PROPOSED);
    assert_int_equal(sg.proposed_misses, sg.input_misses);
    assert_true(sg.input_misses > 0);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

/* A 4-way cache of CACHE bytes (2 KiB ways, 64 sets) and a program whose main calls five
 * functions in turn, each followed by a never-executed pad that ends a way later: in the input
 * order `stacked` all five land on the same sets, one more than the ways, and evict each other;
 * in `apart` only four do. */
static const lg_geometry_t geo4 = {CACHE, 32, 4};
#define WAY4 (CACHE / 4u)
static const fn_spec_t fns5[] = {
    {"main", 64, 1, 1, 0},         {"f1", 256, 1, 5000, 0},       {"f2", 256, 1, 5000, 0},
    {"f3", 256, 1, 5000, 0},       {"f4", 256, 1, 5000, 0},       {"f5", 256, 1, 5000, 0},
    {"pad1", WAY4 - 256, 1, 0, 0}, {"pad2", WAY4 - 256, 1, 0, 0}, {"pad3", WAY4 - 256, 1, 0, 0},
    {"pad4", WAY4 - 256, 1, 0, 0}, {"pad5", WAY4 - 320, 1, 0, 0},
};
static const arc_spec_t arcs5[] = {
    {"main", "f1", 5000}, {"main", "f2", 5000}, {"main", "f3", 5000},
    {"main", "f4", 5000}, {"main", "f5", 5000},
};

/* The executed functions in one clique: contiguous, 1344 bytes, no set holds two of them. */
static void packed_layout(lg_layout_t *l)
{
    empty_layout(l);
    l->geometry = geo4;
    add_clique(l, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6, 0);
}

/* The program of fns5 linked in `order` (11 indexes into fns5), its packed proposal in l, and
 * the safeguard's verdict on it in the 4-way cache. */
/* Code the model does not place ran: one unbound function with as many hits as the bound ones
 * (the no-conflicts rule applies only then). */
static void add_unbound_half(lg_program_t *p)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < p->nfns; i++)
        hits += p->fns[i].hits;
    p->unbound = calloc(1, sizeof *p->unbound);
    assert_non_null(p->unbound);
    p->unbound[0] = (lg_unbound_t){strdup("libc_memcpy"), hits, strdup("in a shared library")};
    assert_non_null(p->unbound[0].name);
    assert_non_null(p->unbound[0].reason);
    p->nunbound = 1;
    p->profile_hits = 2 * hits; /* what binding counts: the bound hits and the unbound ones */
}

static lg_safeguard_t guard_packed(lg_program_t *p, const uint32_t *order, bool unmodelled,
                                   lg_layout_t *l)
{
    MAKE(p, fns5, arcs5);
    link_in_order(p, order, 11);
    if (unmodelled)
        add_unbound_half(p);
    packed_layout(l);
    return guard_in(p, &geo4, l);
}

static void test_associative_cache_without_conflicts_keeps_input(void **state)
{
    (void)state;
    lg_program_t p;
    lg_layout_t l;
    /* main, f1 pad1 f2 pad2 f3 pad3 f4 pad4, f5 pad5: f1 to f4 share sets, four ways hold them;
     * f5 starts a way after f4's start plus main's 64 bytes, on sets of its own. */
    lg_safeguard_t sg =
        guard_packed(&p, (const uint32_t[]){0, 1, 6, 2, 7, 3, 8, 4, 9, 10, 5}, true, &l);
    assert_int_equal(sg.verdict, LG_SAFEGUARD_NO_CONFLICTS);
    assert_true(sg.associative_misses >= sg.input_misses);
    assert_int_equal(sg.proposed_misses, sg.input_misses);
    /* The proposal's members keep their places, in input order (the pads were never in it). */
    assert_kept_input(&l, 6);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

/* The same input order, but every function that ran is in the model (a whole static image):
 * nothing the model does not place can decide, so the comparison of the two replays does. */
static void test_whole_image_skips_the_no_conflicts_rule(void **state)
{
    (void)state;
    lg_program_t p;
    lg_layout_t l;
    lg_safeguard_t sg =
        guard_packed(&p, (const uint32_t[]){0, 1, 6, 2, 7, 3, 8, 4, 9, 10, 5}, false, &l);
    assert_int_not_equal(sg.verdict, LG_SAFEGUARD_NO_CONFLICTS);
    assert_int_equal(sg.associative_misses, 0); /* not asked */
    assert_true(sg.proposed_misses <= sg.input_misses);
    assert_int_equal(sg.verdict, LG_SAFEGUARD_PROPOSED);
    assert_int_equal(l.ncliques, 1);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_associative_cache_with_conflicts_takes_proposal(void **state)
{
    (void)state;
    lg_program_t p;
    lg_layout_t l;
    /* main, f1 pad1 f2 pad2 f3 pad3 f4 pad4 f5: five functions on the same sets of 4 ways. */
    lg_safeguard_t sg =
        guard_packed(&p, (const uint32_t[]){0, 1, 6, 2, 7, 3, 8, 4, 9, 5, 10}, true, &l);
    assert_int_equal(sg.verdict, LG_SAFEGUARD_PROPOSED);
    assert_true(sg.associative_misses < sg.input_misses);
    assert_true(sg.proposed_misses < sg.input_misses);
    assert_int_equal(l.ncliques, 1);
    assert_string_equal(l.algorithm, "cliques");
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

/* A cache too large to replay fully associative (4 MiB of 16-byte lines: 262,144 ways): the
 * check for conflict misses is skipped with a note, and the margin rule still decides. */
static void test_associative_check_skipped_for_huge_caches(void **state)
{
    (void)state;
    static const lg_geometry_t huge = {4u << 20, 16, 8};
    lg_program_t p;
    MAKE(&p, fns, arcs);
    link_in_order(&p, (const uint32_t[]){0, 1, 2, 3}, 4);
    add_unbound_half(&p);
    lg_layout_t l;
    empty_layout(&l);
    l.geometry = huge;
    add_clique(&l, (const uint32_t[]){0, 1, 2}, 3, 0);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_safeguard_t sg;
    assert_int_equal(lg_safeguard_layout(&p, &huge, &l, &sg, &d), LG_OK);
    assert_true(lg_test_diag_has(&d, LG_NOTE, "not checked for conflict misses"));
    assert_int_equal(sg.associative_misses, 0);
    assert_int_equal(sg.verdict, LG_SAFEGUARD_PROPOSED);
    assert_int_equal(l.ncliques, 1);
    lg_diag_destroy(&d);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worse_proposal_keeps_input),
        cmocka_unit_test(test_better_or_equal_proposal_stays),
        cmocka_unit_test(test_objects_only_unchecked),
        cmocka_unit_test(test_empty_layout_equals_input),
        cmocka_unit_test(test_associative_cache_without_conflicts_keeps_input),
        cmocka_unit_test(test_associative_cache_with_conflicts_takes_proposal),
        cmocka_unit_test(test_whole_image_skips_the_no_conflicts_rule),
        cmocka_unit_test(test_associative_check_skipped_for_huge_caches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
