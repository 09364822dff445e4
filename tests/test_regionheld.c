/* test_regionheld.c - what a fast region's output section holds in the linked program besides
 * lorgen's code (src/link/regionheld.h), the stubs its far calls need (regionstubs.h), and the
 * .LOR's check that a region still fits (lg_lor_check_region_fit), on programs and symbol
 * tables built by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "elfsym.h"
#include "lor.h"
#include "program.h"
#include "regionheld.h"
#include "regionstubs.h"

#include <elf.h>

#include <stdlib.h>
#include <string.h>

/* The linked program's symbols: a function of each name at its address in output section
 * ".fast" (0x1000, 0x200 bytes) or ".text". Strings stay borrowed: only the arrays are freed. */
typedef struct linked {
    lg_elf_file_t file;
    lg_elfsym_t syms[8];
    lg_elfsyms_t elf;
} linked_t;

static void link_at(linked_t *l, const lg_program_t *p)
{
    memset(l, 0, sizeof *l);
    l->file.kind = LG_ELF_LINKED;
    l->elf.files = &l->file;
    l->elf.nfiles = 1;
    l->elf.syms = l->syms;
    for (size_t i = 0; i < p->nfns; i++) {
        bool fast = p->fns[i].address < 0x1200;
        l->syms[l->elf.nsyms++] = (lg_elfsym_t){
            .name = p->fns[i].symbol,
            .value = p->fns[i].address,
            .size = p->fns[i].size,
            .section = fast ? ".fast" : ".text",
            .section_addr = fast ? 0x1000 : 0x2000,
            .section_size = fast ? 0x200 : 0x1000,
        };
    }
}

static void place(lg_program_t *p, const char *name, uint64_t address, const char *section)
{
    for (size_t i = 0; i < p->nfns; i++)
        if (strcmp(p->fns[i].symbol, name) == 0) {
            p->fns[i].address = address;
            free(p->fns[i].section);
            p->fns[i].section = strdup(section);
            return;
        }
    fail_msg("no function %s", name);
}

/* An attribute's function and lorgen's earlier members share the section: only the first is
 * held, with the padding before the members; lorgen's take their bytes up to the next one. */
static void test_pinned_and_lorgens(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {{"isr", 0x90, 4, 0, 0},
                                    {"hot", 0x60, 16, 10, 0},
                                    {"warm", 0x44, 16, 5, 0},
                                    {"cold", 0x100, 16, 0, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    place(&p, "isr", 0x1000, ".ramfunc");
    place(&p, "hot", 0x10a0, ".text.hot");
    place(&p, "warm", 0x1100, ".text.warm");
    place(&p, "cold", 0x2000, ".text.cold");
    linked_t l;
    link_at(&l, &p);
    lg_region_held_t h;
    bool pinned[4] = {false};
    assert_int_equal(lg_region_held_measure(&l.elf, &p, ".fast", &h, pinned), LG_OK);
    assert_true(h.present);
    assert_int_equal(h.section_bytes, 0x200);
    /* hot: 0x10a0 .. 0x1100; warm: 0x1100 .. the end, 0x1200. */
    assert_int_equal(h.held, 0x200 - 0x60 - 0x100);
    assert_int_equal(h.npinned, 1);
    assert_string_equal(p.fns[h.largest].symbol, "isr");
    assert_true(pinned[0]);
    assert_false(pinned[1] || pinned[2] || pinned[3]);

    /* A region the linked program has no section for holds nothing. */
    assert_int_equal(lg_region_held_measure(&l.elf, &p, ".itcm", &h, NULL), LG_OK);
    assert_false(h.present);
    assert_int_equal(h.held, 0);
    assert_int_equal(h.largest, UINT32_MAX);
    lg_program_destroy(&p);
}

/* A linker's veneer in the region follows lorgen's calls: not held. */
static void test_veneer_is_lorgens(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {{"hot", 0x1f8, 8, 10, 0}, {"__strlen_veneer", 8, 4, 0, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    place(&p, "hot", 0x1000, ".text.hot");
    place(&p, "__strlen_veneer", 0x11f8, ".glue");
    linked_t l;
    link_at(&l, &p);
    lg_region_held_t h;
    assert_int_equal(lg_region_held_measure(&l.elf, &p, ".fast", &h, NULL), LG_OK);
    assert_int_equal(h.held, 0);
    assert_int_equal(h.npinned, 0);
    lg_program_destroy(&p);
}

/* On Arm, a region 512 MiB from .text needs a veneer per function called out of it; one 1 MiB
 * away, none; where the region lies is unknown, counted as far. Other machines need none. */
static void test_stubs_by_distance(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {{"hot", 0x40, 4, 10, 0}, {"rest", 0x40, 4, 1, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    p.machine = EM_ARM;
    place(&p, "hot", 0x1000, ".text.hot");
    place(&p, "rest", 0x2000, ".text.rest");
    linked_t l;
    link_at(&l, &p);
    lg_region_held_t h;
    assert_int_equal(lg_region_held_measure(&l.elf, &p, ".fast", &h, NULL), LG_OK);
    lg_region_stubs_t s = lg_region_stubs_for(&p, &l.elf, &h);
    assert_true(s.where_known);
    assert_int_equal(s.bytes_per_callee, 0); /* .fast at 0x1000, .text at 0x2000 */
    for (size_t i = 0; i < l.elf.nsyms; i++)
        if (strcmp(l.syms[i].section, ".text") == 0)
            l.syms[i].section_addr = 0x20000000;
    s = lg_region_stubs_for(&p, &l.elf, &h);
    assert_int_equal(s.bytes_per_callee, LG_ARM_VENEER_BYTES);
    assert_int_equal(lg_region_held_measure(&l.elf, &p, ".itcm", &h, NULL), LG_OK);
    s = lg_region_stubs_for(&p, &l.elf, &h);
    assert_false(s.where_known);
    assert_int_equal(s.bytes_per_callee, LG_ARM_VENEER_BYTES);
    p.machine = EM_RISCV;
    assert_int_equal(lg_region_stubs_for(&p, &l.elf, &h).bytes_per_callee, 0);
    lg_program_destroy(&p);
}

/* Each function outside the region that its members call counts once, however many members
 * call it; calls inside the region, and calls from outside, count nothing. */
static void test_far_callees_counted_once(void **state)
{
    (void)state;
    static const fn_spec_t fns[] = {{"a", 8, 2, 1, 0},
                                    {"b", 8, 2, 1, 0},
                                    {"c", 8, 2, 1, 0},
                                    {"x", 8, 2, 1, 0},
                                    {"y", 8, 2, 1, 0}};
    lg_program_t p;
    MAKE_NO_ARCS(&p, fns);
    for (size_t i = 0; i < p.nfns; i++)
        p.fns[i].family = (uint32_t)i;
    /* a -> b (inside), a -> x, b -> x, c -> y, x -> a (into the region). */
    lg_arc_t refs[] = {{0, 1, 0}, {0, 3, 0}, {1, 3, 0}, {2, 4, 0}, {3, 0, 0}};
    p.refs = refs;
    p.nrefs = 5;
    bool in[5] = {true, true, false, false, false};
    size_t n = 99;
    assert_int_equal(lg_region_far_callees(&p, in, &n), LG_OK);
    assert_int_equal(n, 1); /* x */
    in[2] = true;
    assert_int_equal(lg_region_far_callees(&p, in, &n), LG_OK);
    assert_int_equal(n, 2); /* x and y */
    p.refs = NULL;
    p.nrefs = 0;
    lg_program_destroy(&p);
}

static lg_err_t fit(uint64_t size, uint64_t budget, uint64_t bytes, uint64_t held, lg_diag_t *d)
{
    lg_lor_region_t r = {.name = ".itcm_text",
                         .size = size,
                         .budget = budget,
                         .bytes = bytes,
                         .held = held,
                         .line = 7};
    lg_lor_t lor;
    lg_lor_init(&lor);
    lor.regions = &r;
    lor.nregions = 1;
    return lg_lor_check_region_fit(&lor, "app.lor", d);
}

/* Members and held bytes over the size: an error at the region's line with the bytes over;
 * over the budget only: a warning; within it: nothing. */
static void test_region_fit(void **state)
{
    (void)state;
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(fit(1024, 960, 700, 330, &d), LG_EFORMAT);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.entries[0].where, "app.lor:7");
    assert_non_null(strstr(d.entries[0].message, "region '.itcm_text' overflows"));
    assert_non_null(strstr(d.entries[0].message, "(held=330 stubs=0), 6 bytes over its size=1024"));
    lg_diag_destroy(&d);
    lg_diag_init(&d);
    assert_int_equal(fit(1024, 700, 710, 300, &d), LG_OK);
    assert_int_equal(d.count, 1);
    assert_int_equal(d.entries[0].severity, LG_WARNING);
    assert_non_null(strstr(d.entries[0].message, "only by taking the headroom"));
    lg_diag_destroy(&d);
    lg_diag_init(&d);
    assert_int_equal(fit(1024, 700, 700, 300, &d), LG_OK);
    assert_int_equal(d.count, 0);
    lg_diag_destroy(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pinned_and_lorgens), cmocka_unit_test(test_veneer_is_lorgens),
        cmocka_unit_test(test_stubs_by_distance),  cmocka_unit_test(test_far_callees_counted_once),
        cmocka_unit_test(test_region_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
