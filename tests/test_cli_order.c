/* test_cli_order.c - which algorithm the CLI's default runs (chosen by optimizer/default_order.h,
 * run by src/cli/order.c): chains, or the clique pass for call graphs too large for chains' time,
 * and C3 when the safeguard refuses the chains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "order.h"
#include "safeguard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions of the large program: FNS * (FNS - 1) ordered pairs hold more than a million
 * distinct arcs. */
#define FNS 1100u
#define BIG_ARCS 1000001u

/* A program of FNS functions of 64 bytes and narcs distinct arcs (weights 1 to 7). */
static void program_with_arcs(lg_program_t *p, size_t narcs)
{
    make_numbered_program(p, FNS, 64);
    p->arcs = malloc((narcs ? narcs : 1) * sizeof *p->arcs);
    assert_non_null(p->arcs);
    for (uint32_t i = 0; i < FNS; i++)
        p->fns[i].hits = 1 + i % 13;
    /* Sorted by (caller, callee), no self arcs. */
    size_t k = 0;
    for (uint32_t a = 0; a < FNS && k < narcs; a++)
        for (uint32_t b = 0; b < FNS && k < narcs; b++)
            if (a != b)
                p->arcs[k++] = (lg_arc_t){a, b, 1 + (a * 31u + b) % 7u};
    assert_int_equal(k, narcs);
    p->narcs = narcs;
    p->has_call_edges = true;
}

static const char *proposed(lg_program_t *prog, const char *algorithm, bool given)
{
    lg_cli_options_t o;
    memset(&o, 0, sizeof o);
    o.geometry = (lg_geometry_t){8192, 32, 1};
    o.algorithm = algorithm;
    o.algorithm_given = given;
    o.place = true;
    o.safeguard = false; /* no linked program: nothing to compare with */
    lg_cli_proposal_t p;
    lg_cli_proposal_init(&p);
    p.prog = *prog;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_cli_propose_order(&o, &p, &d), 0);
    const char *name = p.layout.algorithm;
    *prog = p.prog; /* the proposal owned it for the call */
    lg_program_init(&p.prog);
    lg_cli_proposal_destroy(&p);
    lg_diag_destroy(&d);
    return name;
}

static void test_default_is_chains(void **state)
{
    (void)state;
    lg_program_t prog;
    program_with_arcs(&prog, 5000);
    assert_string_equal(proposed(&prog, "chains", false), "chains");
    assert_string_equal(proposed(&prog, "cliques", true), "cliques");
    lg_program_destroy(&prog);
}

/* Over a million arcs the default is the clique pass; a chosen algorithm is kept. */
static void test_huge_call_graphs_take_the_clique_pass(void **state)
{
    (void)state;
    lg_program_t prog;
    program_with_arcs(&prog, BIG_ARCS);
    assert_string_equal(proposed(&prog, "chains", false), "cliques");
    assert_string_equal(proposed(&prog, "hot-first", true), "hot-first");
    lg_program_destroy(&prog);
}

/* A direct-mapped cache of 1 KiB with 32-byte lines, and a program linked at 0x10000 in the
 * order of its functions: f1 calls f2 and f3 in turn, f0 and f4 call f2 (f4 also f1). The
 * chains fill their first cache-sized piece with f0, f1, f2 and f4 (1,024 bytes) and put f3 in
 * the next, a whole cache after f0: on f0's and f1's sets, where f1 calls it 1,017 times. C3's
 * order (f4, f1, f2, f3, then f0) wraps only f3's last line and f0 onto f4, which runs once, as
 * the input order wraps only f4 onto f0 and f1. */
static const lg_geometry_t small_cache = {1024, 32, 1};
static const fn_spec_t second_fns[] = {
    {"f0", 192, 1, 0, 0},    {"f1", 160, 1, 873, 0}, {"f2", 352, 1, 4481, 0},
    {"f3", 224, 1, 1017, 0}, {"f4", 320, 1, 0, 0},
};
static const arc_spec_t second_arcs[] = {
    {"f0", "f2", 1569}, {"f1", "f2", 1662}, {"f1", "f3", 1017},
    {"f4", "f1", 873},  {"f4", "f2", 1250},
};

/* f0 and f1 call each other, f0 calls f2: in the input order the three lie back to back (832
 * bytes) and f3 and f4, which run once, wrap around onto f0 and f1. The chains end their first
 * piece with f3 and push f2 a cache away from f0, C3 a cache away from f1 (its cluster f1, f0
 * first, then f3 and f2): both lose, so the input order stays. */
static const fn_spec_t neither_fns[] = {
    {"f0", 192, 1, 1715, 0}, {"f1", 288, 1, 1256, 0}, {"f2", 352, 1, 3733, 0},
    {"f3", 384, 1, 0, 0},    {"f4", 64, 1, 0, 0},
};
static const arc_spec_t neither_arcs[] = {
    {"f0", "f1", 1256}, {"f0", "f2", 1120}, {"f1", "f0", 1715},
    {"f3", "f2", 1327}, {"f4", "f2", 1286},
};

/* Runs lg_cli_propose_order with the safeguard on the program of fns and arcs, linked in their
 * order, for `algorithm` (given or the default's) into *p, which the caller destroys. */
static void propose_guarded(lg_cli_proposal_t *p, const fn_spec_t *fns, size_t nfns,
                            const arc_spec_t *arcs, size_t narcs, const char *algorithm, bool given)
{
    lg_cli_options_t o;
    memset(&o, 0, sizeof o);
    o.geometry = small_cache;
    o.algorithm = algorithm;
    o.algorithm_given = given;
    o.place = true;
    o.safeguard = true;
    lg_cli_proposal_init(p);
    make_program(&p->prog, fns, nfns, arcs, narcs);
    uint64_t at = 0x10000;
    for (size_t i = 0; i < p->prog.nfns; i++) {
        p->prog.fns[i].address = at;
        at += p->prog.fns[i].size;
    }
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_cli_propose_order(&o, p, &d), 0);
    lg_diag_destroy(&d);
}

/* The default's chains are predicted to miss more than the input order: C3's layout, which the
 * safeguard accepts, is proposed instead. Asked for by name, the chains get no second choice. */
static void test_c3_when_the_chains_are_refused(void **state)
{
    (void)state;
    lg_cli_proposal_t p;
    propose_guarded(&p, second_fns, NELEMS(second_fns), second_arcs, NELEMS(second_arcs), "chains",
                    false);
    assert_string_equal(p.algorithm, "c3");
    assert_string_equal(p.layout.algorithm, "c3");
    assert_int_equal(p.sg.verdict, LG_SAFEGUARD_PROPOSED);
    assert_true(p.sg.proposed_misses <= p.sg.input_misses);
    assert_true(p.layout.ncliques > 0);
    uint64_t input_misses = p.sg.input_misses;
    lg_cli_proposal_destroy(&p);

    propose_guarded(&p, second_fns, NELEMS(second_fns), second_arcs, NELEMS(second_arcs), "chains",
                    true);
    assert_string_equal(p.algorithm, "chains");
    assert_string_equal(p.layout.algorithm, LG_ALGORITHM_KEPT);
    assert_int_equal(p.sg.verdict, LG_SAFEGUARD_KEPT_INPUT);
    assert_int_equal(p.sg.input_misses, input_misses);
    assert_true(p.sg.proposed_misses * 1000u >
                p.sg.input_misses * (1000u + LG_SAFEGUARD_MARGIN_PERMILLE));
    assert_int_equal(p.layout.ncliques, 0);
    lg_cli_proposal_destroy(&p);
}

/* Both the chains and C3 are predicted to miss more: the default keeps the input order, and the
 * safeguard's figures are the chains'. */
static void test_input_kept_when_c3_is_refused_too(void **state)
{
    (void)state;
    lg_cli_proposal_t p;
    propose_guarded(&p, neither_fns, NELEMS(neither_fns), neither_arcs, NELEMS(neither_arcs),
                    "chains", false);
    assert_string_equal(p.algorithm, "chains");
    assert_string_equal(p.layout.algorithm, LG_ALGORITHM_KEPT);
    assert_int_equal(p.sg.verdict, LG_SAFEGUARD_KEPT_INPUT);
    assert_int_equal(p.layout.ncliques, 0);
    assert_int_equal(p.layout.ncold, NELEMS(neither_fns));
    lg_cli_proposal_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_is_chains),
        cmocka_unit_test(test_huge_call_graphs_take_the_clique_pass),
        cmocka_unit_test(test_c3_when_the_chains_are_refused),
        cmocka_unit_test(test_input_kept_when_c3_is_refused_too),
    };
    return cmocka_run_group_tests_name("cli_order", tests, NULL, NULL);
}
