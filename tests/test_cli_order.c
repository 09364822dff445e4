/* test_cli_order.c - which algorithm the CLI's default runs (src/cli/order.c): chains, or the
 * clique pass for call graphs too large for chains' time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "order.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_is_chains),
        cmocka_unit_test(test_huge_call_graphs_take_the_clique_pass),
    };
    return cmocka_run_group_tests_name("cli_order", tests, NULL, NULL);
}
