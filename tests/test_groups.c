/* test_groups.c - fixed function groups (optimizer/groups.h): the units a program's groups make,
 * the calls, hot lines and jumps moved onto them, and a layout of units expanded to functions,
 * with every algorithm. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "algorithms.h"
#include "groups.h"
#include "layout.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The symbols of a layout in link order, cliques separated by " | " (static storage). */
static const char *layout_text(const lg_program_t *p, const lg_layout_t *l)
{
    static char buf[4096];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < l->ncliques; c++)
        for (size_t i = 0; i < l->cliques[c].nfns; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                                    c > 0 && i == 0 ? " | " : (len ? " " : ""),
                                    p->fns[l->cliques[c].fns[i]].symbol);
    return buf;
}

/* A program with one group: io_read and io_write share io.o's .text (io_write first in it),
 * io_close too but never ran; parse and main move alone. main calls parse, parse calls
 * io_write; io_read is hot alone. Addresses as the linked program gives them. */
static void make_io_program(lg_program_t *p)
{
    static const fn_spec_t fns[] = {
        {"main", 64, 16, 1, 0},
        {"io_read", 100, 16, 500, LG_FN_SHARED_SECTION},
        {"parse", 200, 16, 300, 0},
        {"io_write", 40, 16, 300, LG_FN_SHARED_SECTION},
        {"io_close", 20, 16, 0, LG_FN_SHARED_SECTION},
    };
    static const arc_spec_t arcs[] = {
        {"main", "parse", 1}, {"parse", "io_write", 300}, {"io_write", "io_read", 200}};
    MAKE(p, fns, arcs);
    const uint64_t at[] = {0x1000, 0x2040, 0x1100, 0x2000, 0x20b0};
    for (size_t i = 0; i < p->nfns; i++) {
        p->fns[i].address = at[i];
        if (p->fns[i].flags & LG_FN_SHARED_SECTION) {
            free(p->fns[i].section);
            p->fns[i].section = strdup(".text");
            p->fns[i].object = strdup("io.o");
            assert_non_null(p->fns[i].section);
            assert_non_null(p->fns[i].object);
        }
    }
}

static void test_units_and_their_weights(void **state)
{
    (void)state;
    lg_program_t p;
    make_io_program(&p);
    /* A hot line in io_read and a jump in io_write, at offsets inside each. */
    p.hotspots = calloc(1, sizeof *p.hotspots);
    p.hotjumps = calloc(1, sizeof *p.hotjumps);
    assert_non_null(p.hotspots);
    assert_non_null(p.hotjumps);
    p.hotspots[0] = (lg_hotspot_t){1, 8, 1000};
    p.hotjumps[0] = (lg_hotjump_t){3, 30, 4, 77};
    p.nhotspots = p.nhotjumps = 1;
    lg_groups_t g;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_groups_build(&p, &g, &d), LG_OK);
    assert_int_equal(g.ngroups, 1);
    assert_int_equal(g.units.nfns, 3); /* main, the io group, parse */
    uint32_t io = g.unit_of[1];
    assert_int_equal(g.unit_of[3], io);
    assert_int_equal(g.unit_of[4], io);
    const lg_fn_t *u = &g.units.fns[io];
    assert_true(u->flags & LG_FN_GROUP);
    assert_false(u->flags & LG_FN_SHARED_SECTION);
    assert_true(lg_fn_movable(u));
    /* Section order by address: io_write at 0x2000, io_read at 0x2040, io_close at 0x20b0. */
    assert_int_equal(g.members[g.first[io]], 3);
    assert_int_equal(g.members[g.first[io] + 1], 1);
    assert_int_equal(g.members[g.first[io] + 2], 4);
    assert_int_equal(u->size, 0xb0 + 20);
    assert_int_equal(u->hits, 800);
    assert_int_equal(u->address, 0x2000);
    /* Arcs onto units: parse -> io (300), io -> io (200, inside the group), main -> parse. */
    uint32_t parse = g.unit_of[2], main_unit = g.unit_of[0];
    assert_int_equal(g.units.narcs, 3);
    bool saw_inside = false, saw_call = false;
    for (size_t i = 0; i < g.units.narcs; i++) {
        const lg_arc_t *a = &g.units.arcs[i];
        saw_inside |= a->caller == io && a->callee == io && a->weight == 200;
        saw_call |= a->caller == parse && a->callee == io && a->weight == 300;
        assert_false(a->caller == main_unit && a->callee == io);
    }
    assert_true(saw_inside);
    assert_true(saw_call);
    /* The hot line and the jump move to their offsets in the group. */
    assert_int_equal(g.units.hotspots[0].fn, io);
    assert_int_equal(g.units.hotspots[0].offset, 0x40 + 8);
    assert_int_equal(g.units.hotjumps[0].from, 30);
    assert_int_equal(g.units.hotjumps[0].to, 4);
    lg_groups_destroy(&g);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* Every algorithm orders the group as one: its members stand together, in section order, the
 * never-executed io_close included, and parse (which calls it) right before it. */
static void test_every_algorithm_keeps_a_group_whole(void **state)
{
    (void)state;
    lg_program_t p;
    make_io_program(&p);
    size_t n;
    const char *const *all = lg_algorithm_names(&n);
    for (size_t k = 0; k < n; k++) {
        lg_groups_t g;
        lg_diag_t d;
        lg_diag_init(&d);
        assert_int_equal(lg_groups_build(&p, &g, &d), LG_OK);
        lg_layout_t l;
        lg_layout_init(&l);
        lg_geometry_t geo = {1024, 16, 1};
        assert_int_equal(lg_order(all[k], &g.units, &geo, &l, &d), LG_OK);
        assert_int_equal(lg_groups_expand(&g, &p, &l), LG_OK);
        const char *text = layout_text(&p, &l);
        if (strcmp(all[k], LG_ALGORITHM_INPUT) != 0)
            assert_non_null(strstr(text, "io_write io_read io_close"));
        if (strcmp(all[k], "chains") == 0 || strcmp(all[k], LG_ALGORITHM_PETTIS_HANSEN) == 0)
            assert_non_null(strstr(text, "parse io_write io_read io_close"));
        /* Nothing is lost or doubled: the cliques and the cold list hold every function once. */
        size_t seen = l.ncold;
        for (size_t c = 0; c < l.ncliques; c++)
            seen += l.cliques[c].nfns;
        assert_int_equal(seen + l.nexcluded, p.nfns);
        lg_layout_destroy(&l);
        lg_groups_destroy(&g);
        lg_diag_destroy(&d);
    }
    lg_program_destroy(&p);
}

/* Without addresses (objects only) a group's members keep their input order and are packed
 * at their alignment. */
static void test_group_without_addresses(void **state)
{
    (void)state;
    lg_program_t p;
    make_io_program(&p);
    for (size_t i = 0; i < p.nfns; i++)
        p.fns[i].address = UINT64_MAX;
    lg_groups_t g;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_groups_build(&p, &g, &d), LG_OK);
    uint32_t io = g.unit_of[1];
    assert_int_equal(g.members[g.first[io]], 1); /* io_read, io_write, io_close */
    assert_int_equal(g.offset[3], 112);          /* 100 bytes, then 16-byte aligned */
    assert_int_equal(g.units.fns[io].size, 112 + 48 + 20);
    lg_groups_destroy(&g);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* A group whose executed members hold less than LG_GROUP_MIN_EXECUTED_PERCENT of its bytes
 * stays where it is: moving it would bring its never-executed bytes next to the hot code. */
static void test_mostly_cold_group_stays(void **state)
{
    (void)state;
    lg_program_t p;
    make_io_program(&p);
    p.fns[4].size = 400; /* io_close, never run: 140 of 576 bytes ran */
    lg_groups_t g;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_groups_build(&p, &g, &d), LG_OK);
    const lg_fn_t *u = &g.units.fns[g.unit_of[1]];
    assert_false(lg_fn_movable(u));
    lg_layout_t l;
    lg_layout_init(&l);
    lg_geometry_t geo = {1024, 16, 1};
    assert_int_equal(lg_order("chains", &g.units, &geo, &l, &d), LG_OK);
    assert_int_equal(lg_groups_expand(&g, &p, &l), LG_OK);
    assert_null(strstr(layout_text(&p, &l), "io_"));
    assert_int_equal(l.nexcluded, 2); /* io_write and io_read ran; io_close is cold */
    lg_layout_destroy(&l);
    lg_groups_destroy(&g);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* A group larger than the cache is warned about as the group, with its object and size. */
static void test_oversized_group_named_as_group(void **state)
{
    (void)state;
    lg_program_t p;
    make_io_program(&p); /* io.o's .text: 0x2000 .. 0x20c4, 196 bytes */
    lg_groups_t g;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_groups_build(&p, &g, &d), LG_OK);
    lg_layout_t l;
    lg_layout_init(&l);
    lg_geometry_t geo = {128, 16, 1};
    assert_int_equal(lg_order("cliques", &g.units, &geo, &l, &d), LG_OK);
    assert_true(lg_test_diag_has(&d, LG_WARNING,
                                 "fixed group io_write (and 2 more of its section) (section .text "
                                 "of io.o) is 196 bytes"));
    lg_layout_destroy(&l);
    lg_groups_destroy(&g);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_and_their_weights),
        cmocka_unit_test(test_every_algorithm_keeps_a_group_whole),
        cmocka_unit_test(test_group_without_addresses),
        cmocka_unit_test(test_mostly_cold_group_stays),
        cmocka_unit_test(test_oversized_group_named_as_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
