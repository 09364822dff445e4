/* test_regionheld.c - what a fast region's output section holds in the linked program besides
 * lorgen's code (src/link/regionheld.h), and the .LOR's check that a region still fits
 * (lg_lor_check_region_fit), on programs and symbol tables built by hand. */
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

static lg_err_t fit(uint64_t size, uint64_t budget, uint64_t bytes, uint64_t held, lg_diag_t *d)
{
    lg_lor_region_t r = {.name = ".itcm_text", .size = size, .budget = budget, .bytes = bytes,
                         .held = held, .line = 7};
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
    assert_non_null(strstr(d.entries[0].message, "6 bytes over its size=1024"));
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
        cmocka_unit_test(test_pinned_and_lorgens),
        cmocka_unit_test(test_veneer_is_lorgens),
        cmocka_unit_test(test_region_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
