/* test_linkcheck.c - lorgen check: which functions of a .LOR landed in order, and why not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "linkcheck.h"
#include "linkname.h"

#include <stdlib.h>
#include <string.h>

/* The linked program: functions at the given addresses (16 bytes each), sections .text.NAME. */
static void linked(lg_program_t *p, const fn_spec_t *fns, size_t n, const uint64_t *addr)
{
    make_program(p, fns, n, NULL, 0);
    for (size_t i = 0; i < n; i++)
        p->fns[i].address = addr[i];
}

static void one_linked_file(lg_elfsyms_t *elf)
{
    lg_elfsyms_init(elf);
    elf->files = calloc(1, sizeof *elf->files);
    assert_non_null(elf->files);
    elf->files[0] = (lg_elf_file_t){.path = strdup("app"), .kind = LG_ELF_LINKED};
    elf->nfiles = elf->files_cap = 1;
}

/* A .LOR listing names in one clique. */
static void order(lg_lor_t *lor, const char *const *names, size_t n)
{
    lg_lor_init(lor);
    lor->cliques = calloc(1, sizeof *lor->cliques);
    lor->fns = calloc(n, sizeof *lor->fns);
    assert_non_null(lor->cliques);
    assert_non_null(lor->fns);
    lor->ncliques = 1;
    lor->cliques[0].count = n;
    for (size_t i = 0; i < n; i++)
        lor->fns[i] = (lg_lor_fn_t){.symbol = strdup(names[i]), .align = 1};
    lor->nfns = n;
}

static const fn_spec_t fns[] = {
    {"a", 16, 1, 0, 0}, {"b", 16, 1, 0, 0}, {"c", 16, 1, 0, 0},
    {"d", 16, 1, 0, 0}, {"x", 16, 1, 0, 0}, {"mix.constprop.3", 16, 1, 0, 0},
};

static void run(const char *const *names, size_t n, const uint64_t *addr, lg_linkcheck_t *out,
                void (*edit)(lg_lor_t *, lg_program_t *))
{
    lg_program_t prog;
    linked(&prog, fns, NELEMS(fns), addr);
    lg_elfsyms_t elf;
    one_linked_file(&elf);
    lg_lor_t lor;
    order(&lor, names, n);
    if (edit != NULL)
        edit(&lor, &prog);
    lg_linkname_resolve(&lor, &prog, NULL);
    lg_linkcheck_init(out);
    assert_int_equal(lg_linkcheck_run(&lor, &prog, &elf, out, NULL), LG_OK);
    assert_int_equal(out->nrows, n);
    lg_lor_destroy(&lor);
    lg_elfsyms_destroy(&elf);
    lg_program_destroy(&prog);
}

static void test_in_order_and_contiguous(void **state)
{
    (void)state;
    /* a b c d x mix, placed as c a b at the start: the order asks for c, a, b. */
    const uint64_t addr[] = {0x1010, 0x1020, 0x1000, 0x2000, 0x3000, 0x4000};
    const char *const names[] = {"c", "a", "b"};
    lg_linkcheck_t c;
    run(names, 3, addr, &c, NULL);
    assert_int_equal(c.in_order, 3);
    assert_int_equal(c.failed, 0);
    lg_linkcheck_destroy(&c);
}

static void test_one_misplaced_is_blamed_alone(void **state)
{
    (void)state;
    const uint64_t addr[] = {0x1000, 0x1010, 0x1020, 0x5000, 0x3000, 0x4000};
    const char *const names[] = {"a", "d", "b", "c"};
    lg_linkcheck_t c;
    run(names, 4, addr, &c, NULL);
    assert_int_equal(c.in_order, 3);
    assert_int_equal(c.failed, 1);
    assert_int_equal(c.rows[1].status, LG_LANDED_ELSEWHERE);
    assert_non_null(strstr(c.rows[1].reason, "out of sequence"));
    lg_linkcheck_destroy(&c);
}

static void test_gap_names_the_intruder(void **state)
{
    (void)state;
    const uint64_t addr[] = {0x1000, 0x1020, 0x2000, 0x2010, 0x1010, 0x4000};
    const char *const names[] = {"a", "b"};
    lg_linkcheck_t c;
    run(names, 2, addr, &c, NULL);
    assert_int_equal(c.failed, 1);
    assert_int_equal(c.rows[1].status, LG_LANDED_GAP);
    assert_non_null(strstr(c.rows[1].reason, "'x' at 0x1010 sits between it and 'a'"));
    lg_linkcheck_destroy(&c);
}

static void test_missing_pinned_and_renamed_clone(void **state)
{
    (void)state;
    const uint64_t addr[] = {0x1000, 0x1010, 0x2000, 0x2010, 0x3000, 0x1020};
    const char *const names[] = {"_start", "a", "b", "mix.constprop.0", "ghost"};
    lg_linkcheck_t c;
    run(names, 5, addr, &c, NULL);
    assert_int_equal(c.rows[0].status, LG_LANDED_PINNED);
    assert_int_equal(c.rows[1].status, LG_LANDED_IN_ORDER);
    assert_int_equal(c.rows[3].status, LG_LANDED_IN_ORDER); /* found as mix.constprop.3 */
    assert_int_equal(c.rows[4].status, LG_LANDED_NOT_FOUND);
    assert_non_null(strstr(c.rows[4].reason, "name not found"));
    assert_int_equal(c.in_order, 3);
    assert_int_equal(c.pinned, 1);
    assert_int_equal(c.failed, 1);
    assert_string_equal(lg_landing_name(c.rows[4].status), "not found");
    lg_linkcheck_destroy(&c);
}

/* The .LOR names .text.b; the objects hold b in .text.unlikely.b. */
static void stale_section(lg_lor_t *lor, lg_program_t *prog)
{
    lor->fns[1].section = strdup(".text.b");
    free(prog->fns[1].section);
    prog->fns[1].section = strdup(".text.unlikely.b");
}

static void test_pattern_matched_nothing(void **state)
{
    (void)state;
    const uint64_t addr[] = {0x1000, 0x5000, 0x1010, 0x1020, 0x3000, 0x4000};
    const char *const names[] = {"a", "b", "c", "d"};
    lg_linkcheck_t c;
    run(names, 4, addr, &c, stale_section);
    assert_int_equal(c.rows[1].status, LG_LANDED_NO_MATCH);
    assert_non_null(strstr(c.rows[1].reason, "pattern matched nothing: the order names section "
                                             ".text.b, the objects hold 'b' in .text.unlikely.b"));
    lg_linkcheck_destroy(&c);
}

/* Three same-named statics in a/util.o, b/util.o and c/util.o, linked in the order the .LOR
 * asks (b, c, a): each row binds to the object its path names, not the first one with the same
 * base name. */
static void test_same_named_statics_bind_by_object_path(void **state)
{
    (void)state;
    const fn_spec_t statics[] = {
        {"helper", 16, 1, 0, LG_FN_LOCAL | LG_FN_AMBIGUOUS_NAME},
        {"helper", 16, 1, 0, LG_FN_LOCAL | LG_FN_AMBIGUOUS_NAME},
        {"helper", 16, 1, 0, LG_FN_LOCAL | LG_FN_AMBIGUOUS_NAME},
        {"other", 16, 1, 0, 0},
    };
    const char *const objects[] = {"a/util.o", "b/util.o", "c/util.o", "main.o"};
    const uint64_t addr[] = {0x1020, 0x1000, 0x1010, 0x2000};
    lg_program_t prog;
    linked(&prog, statics, NELEMS(statics), addr);
    for (size_t i = 0; i < NELEMS(statics); i++)
        prog.fns[i].object = strdup(objects[i]);
    lg_elfsyms_t elf;
    one_linked_file(&elf);
    lg_lor_t lor;
    const char *const names[] = {"helper", "helper", "helper"};
    order(&lor, names, 3);
    lor.fns[0].object = strdup("b/util.o");
    lor.fns[1].object = strdup("c/util.o");
    lor.fns[2].object = strdup("a/util.o");
    lg_linkname_resolve(&lor, &prog, NULL);
    lg_linkcheck_t c;
    lg_linkcheck_init(&c);
    assert_int_equal(lg_linkcheck_run(&lor, &prog, &elf, &c, NULL), LG_OK);
    for (size_t r = 0; r < 3; r++) {
        assert_int_equal(c.rows[r].status, LG_LANDED_IN_ORDER);
        assert_int_equal(c.rows[r].address, addr[(r + 1) % 3]);
    }
    assert_int_equal(c.in_order, 3);
    assert_int_equal(c.failed, 0);
    assert_int_equal(c.pinned, 0);
    lg_linkcheck_destroy(&c);
    lg_lor_destroy(&lor);
    lg_elfsyms_destroy(&elf);
    lg_program_destroy(&prog);
}

/* Two statics called skip (lex.o, calc.o) listed apart, linked as gold and lld link them: both
 * where the first one is listed. The second row moved with the first: accepted, with the
 * reason. calc_skip_at: where calc.o's skip landed; lex.o's is at 0x1020. */
static void statics_linked(uint64_t calc_skip_at, lg_linkcheck_t *c)
{
    const fn_spec_t specs[] = {
        {"a", 16, 1, 0, 0},
        {"skip", 16, 1, 0, LG_FN_LOCAL | LG_FN_AMBIGUOUS_NAME},
        {"skip", 16, 1, 0, LG_FN_LOCAL | LG_FN_AMBIGUOUS_NAME},
        {"b", 16, 1, 0, 0},
        {"c", 16, 1, 0, 0},
        {"x", 16, 1, 0, 0},
    };
    const char *const objects[] = {"a.o", "lex.o", "calc.o", "b.o", "c.o", "x.o"};
    const uint64_t addr[] = {0x1000, 0x1020, calc_skip_at, 0x1030, 0x1040, 0x4ff0};
    lg_program_t prog;
    linked(&prog, specs, NELEMS(specs), addr);
    for (size_t i = 0; i < NELEMS(specs); i++)
        prog.fns[i].object = strdup(objects[i]);
    lg_elfsyms_t elf;
    one_linked_file(&elf);
    lg_lor_t lor;
    const char *const names[] = {"a", "skip", "b", "skip", "c"};
    order(&lor, names, NELEMS(names));
    lor.fns[1].object = strdup("lex.o");
    lor.fns[3].object = strdup("calc.o");
    lg_linkname_resolve(&lor, &prog, NULL);
    lg_linkcheck_init(c);
    assert_int_equal(lg_linkcheck_run(&lor, &prog, &elf, c, NULL), LG_OK);
    lg_lor_destroy(&lor);
    lg_elfsyms_destroy(&elf);
    lg_program_destroy(&prog);
}

static void test_statics_moved_together_are_accepted(void **state)
{
    (void)state;
    lg_linkcheck_t c;
    statics_linked(0x1010, &c); /* a, skip (calc.o), skip (lex.o), b, c */
    assert_int_equal(c.rows[1].status, LG_LANDED_IN_ORDER);
    assert_int_equal(c.rows[3].status, LG_LANDED_TOGETHER);
    assert_non_null(strstr(c.rows[3].reason, "moved with the static 'skip' of lex.o listed before "
                                             "it: gold and lld name sections or symbols only"));
    assert_int_equal(c.in_order, 4);
    assert_int_equal(c.pinned, 1);
    assert_int_equal(c.failed, 0);
    lg_linkcheck_destroy(&c);

    /* calc.o's skip after x, far from lex.o's: truly out of place. */
    statics_linked(0x5000, &c);
    assert_int_equal(c.rows[3].status, LG_LANDED_ELSEWHERE);
    assert_non_null(strstr(c.rows[3].reason, "out of sequence"));
    assert_int_equal(c.failed, 1);
    lg_linkcheck_destroy(&c);
}

/* check reads one relinked program back: two would judge a mix, a stripped one says nothing. */
static void test_one_unstripped_program(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    one_linked_file(&elf);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_linkcheck_inputs(&elf, &d), LG_OK);
    elf.files[0].stripped = true;
    assert_int_equal(lg_linkcheck_inputs(&elf, &d), LG_EINVAL);
    assert_true(
        lg_test_diag_has(&d, LG_ERROR, "the relinked program has no symbol table (stripped)"));
    elf.files[0].stripped = false;
    elf.files = realloc(elf.files, 2 * sizeof *elf.files);
    assert_non_null(elf.files);
    elf.files[1] = (lg_elf_file_t){.path = strdup("app-lld"), .kind = LG_ELF_LINKED};
    elf.nfiles = elf.files_cap = 2;
    assert_int_equal(lg_linkcheck_inputs(&elf, &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "check: expected one relinked program, found 2: app and app-lld"));
    lg_diag_destroy(&d);
    lg_elfsyms_destroy(&elf);
}

/* The .LOR of the phase cases: the default 32-byte line, and b (the second row) phased at
 * lead bytes into it. */
static void phase_b(lg_lor_t *lor, uint64_t lead)
{
    lor->geometry = (lg_geometry_t){LG_CACHE_SIZE_DEFAULT, LG_LINE_SIZE_DEFAULT, LG_WAYS_DEFAULT};
    lor->fns[1].flags |= LG_FN_PHASED;
    lor->fns[1].lead = lead;
}

static void b_at_16(lg_lor_t *lor, lg_program_t *prog)
{
    (void)prog;
    phase_b(lor, 16);
}

static void b_at_0(lg_lor_t *lor, lg_program_t *prog)
{
    (void)prog;
    phase_b(lor, 0);
}

/* No phase asked: only the 32-byte line, so that an address off every line start would show. */
static void line_only(lg_lor_t *lor, lg_program_t *prog)
{
    (void)prog;
    lor->geometry = (lg_geometry_t){LG_CACHE_SIZE_DEFAULT, LG_LINE_SIZE_DEFAULT, LG_WAYS_DEFAULT};
}

static void test_phased_at_its_phase_passes(void **state)
{
    (void)state;
    /* b at 0x1010: 16 bytes into its 32-byte line, as phase=16 asks. */
    const uint64_t addr[] = {0x1000, 0x1010, 0x2000, 0x2010, 0x3000, 0x4000};
    const char *const names[] = {"a", "b"};
    lg_linkcheck_t c;
    run(names, 2, addr, &c, b_at_16);
    assert_int_equal(c.rows[1].status, LG_LANDED_IN_ORDER);
    assert_false(c.rows[1].off_phase);
    assert_string_equal(c.rows[1].reason, "");
    assert_int_equal(c.in_order, 2);
    assert_int_equal(c.failed, 0);
    assert_int_equal(c.off_phase, 0);
    lg_linkcheck_destroy(&c);
}

static void test_off_its_phase_names_both_phases(void **state)
{
    (void)state;
    /* b in order right after a, but at 0x1010 (phase 16) where phase=0 asks for a line start. */
    const uint64_t addr[] = {0x1000, 0x1010, 0x2000, 0x2010, 0x3000, 0x4000};
    const char *const names[] = {"a", "b"};
    lg_linkcheck_t c;
    run(names, 2, addr, &c, b_at_0);
    assert_int_equal(c.rows[0].status, LG_LANDED_IN_ORDER);
    assert_int_equal(c.rows[1].status, LG_LANDED_OFF_PHASE);
    assert_string_equal(lg_landing_name(c.rows[1].status), "off phase");
    assert_true(c.rows[1].off_phase);
    assert_int_equal(c.rows[1].address, 0x1010);
    assert_non_null(strstr(c.rows[1].reason, "off its phase: it starts at phase 16 in the 32-byte "
                                             "line, the order asks phase=0"));
    assert_int_equal(c.in_order, 1);
    assert_int_equal(c.failed, 1);
    assert_int_equal(c.off_phase, 1);
    lg_linkcheck_destroy(&c);
}

static void test_out_of_order_and_off_phase_says_both(void **state)
{
    (void)state;
    /* a, b, c asked; b landed after c, at 0x5008 (phase 8) where phase=16 asks. */
    const uint64_t addr[] = {0x1000, 0x5008, 0x1010, 0x2000, 0x3000, 0x4000};
    const char *const names[] = {"a", "b", "c"};
    lg_linkcheck_t c;
    run(names, 3, addr, &c, b_at_16);
    assert_int_equal(c.rows[1].status, LG_LANDED_ELSEWHERE);
    assert_true(c.rows[1].off_phase);
    assert_non_null(strstr(c.rows[1].reason, "out of sequence"));
    assert_non_null(strstr(c.rows[1].reason, "off its phase: it starts at phase 8 in the 32-byte "
                                             "line, the order asks phase=16"));
    assert_int_equal(c.failed, 1);
    assert_int_equal(c.off_phase, 1);
    lg_linkcheck_destroy(&c);
}

static void test_unphased_at_any_address_is_not_reported(void **state)
{
    (void)state;
    /* b at 0x1013, 19 bytes into a line: without phase= nothing asks where in the line. */
    const uint64_t addr[] = {0x1000, 0x1013, 0x2000, 0x2010, 0x3000, 0x4000};
    const char *const names[] = {"a", "b"};
    lg_linkcheck_t c;
    run(names, 2, addr, &c, line_only);
    for (size_t r = 0; r < 2; r++) {
        assert_int_equal(c.rows[r].status, LG_LANDED_IN_ORDER);
        assert_false(c.rows[r].off_phase);
        assert_null(strstr(c.rows[r].reason, "phase"));
    }
    assert_int_equal(c.failed, 0);
    assert_int_equal(c.off_phase, 0);
    lg_linkcheck_destroy(&c);
}

static void test_objects_only_is_an_error(void **state)
{
    (void)state;
    const uint64_t addr[] = {0x1000, 0x1010, 0x1020, 0x2000, 0x3000, 0x4000};
    lg_program_t prog;
    linked(&prog, fns, NELEMS(fns), addr);
    lg_elfsyms_t elf;
    one_linked_file(&elf);
    elf.files[0].kind = LG_ELF_OBJECT;
    lg_lor_t lor;
    const char *const names[] = {"a"};
    order(&lor, names, 1);
    lg_linkcheck_t c;
    lg_linkcheck_init(&c);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_linkcheck_run(&lor, &prog, &elf, &c, &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "expected the relinked program"));
    lg_diag_destroy(&d);
    lg_linkcheck_destroy(&c);
    lg_lor_destroy(&lor);
    lg_elfsyms_destroy(&elf);
    lg_program_destroy(&prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order_and_contiguous),
        cmocka_unit_test(test_one_misplaced_is_blamed_alone),
        cmocka_unit_test(test_gap_names_the_intruder),
        cmocka_unit_test(test_missing_pinned_and_renamed_clone),
        cmocka_unit_test(test_pattern_matched_nothing),
        cmocka_unit_test(test_objects_only_is_an_error),
        cmocka_unit_test(test_same_named_statics_bind_by_object_path),
        cmocka_unit_test(test_statics_moved_together_are_accepted),
        cmocka_unit_test(test_one_unstripped_program),
        cmocka_unit_test(test_phased_at_its_phase_passes),
        cmocka_unit_test(test_off_its_phase_names_both_phases),
        cmocka_unit_test(test_out_of_order_and_off_phase_says_both),
        cmocka_unit_test(test_unphased_at_any_address_is_not_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
