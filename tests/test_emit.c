/* test_emit.c - the writers: GNU ld script forms, gold and lld lists, lld call graph, clique
 * report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"
#include "testutil.h"

#include "emit_callgraph.h"
#include "emit_ld.h"
#include "emit_order.h"
#include "linkname.h"
#include "mem.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct memout {
    char *text;
    size_t len;
    FILE *f;
} memout_t;

static FILE *mem_open(memout_t *m)
{
    m->text = NULL;
    m->f = open_memstream(&m->text, &m->len);
    assert_non_null(m->f);
    return m->f;
}

static const char *mem_close(memout_t *m)
{
    assert_int_equal(fclose(m->f), 0);
    return m->text;
}

static void add_fn(lg_lor_t *lor, const char *symbol, const char *section, const char *object,
                   uint32_t flags)
{
    lor->fns = realloc(lor->fns, (lor->nfns + 1) * sizeof *lor->fns);
    assert_non_null(lor->fns);
    lor->fns[lor->nfns++] = (lg_lor_fn_t){.symbol = strdup(symbol),
                                          .section = section ? strdup(section) : NULL,
                                          .object = object ? strdup(object) : NULL,
                                          .size = 16,
                                          .align = 1,
                                          .flags = flags};
    lor->cliques[lor->ncliques - 1].count++;
}

static void sample(lg_lor_t *lor)
{
    lg_lor_init(lor);
    lor->geometry = (lg_geometry_t){8192, 32, 1};
    lor->cliques = calloc(2, sizeof *lor->cliques);
    lor->ncliques = 1;
    lor->cliques[0] = (lg_lor_clique_t){.first = 0, .bytes = 64, .hits = 100};
    add_fn(lor, "hot", ".text.hot.hot", "obj/x.o", 0);
    add_fn(lor, "guess", ".text.guess", NULL, LG_FN_SECTION_INFERRED);
    lor->cliques[1] = (lg_lor_clique_t){.first = lor->nfns, .bytes = 32, .hits = 5};
    lor->ncliques = 2;
    add_fn(lor, "helper", ".text.helper", "obj/a.o", LG_FN_LOCAL);
    add_fn(lor, "helper", ".text.helper", "lib/libz.a(b.o)", LG_FN_LOCAL);
}

static void test_include_form_patterns(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    memout_t m;
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(&m), NULL), LG_OK);
    const char *text = mem_close(&m);
    /* An exact section is named as it is; its object is not needed. */
    assert_non_null(strstr(text, "\n/* clique 1: 64 bytes, 100 hits */\n*(.text.hot.hot)\n"));
    /* An inferred section names every prefix GCC may have used. */
    assert_non_null(strstr(text, "\n*(.text.guess .text.hot.guess .text.unlikely.guess "
                                 ".text.startup.guess .text.exit.guess)\n"));
    /* Two sections of one name: each qualified by its object (':' first: files outside archives
     * only), archive members as a:m. */
    assert_non_null(strstr(text, "\n:*a.o(.text.helper)\n*libz.a:b.o(.text.helper)\n"));
    assert_null(strstr(text, "SECTIONS"));
    free(m.text);
    lg_lor_destroy(&lor);
}

static void test_script_form_inserts_before_text(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    memout_t m;
    assert_int_equal(lg_emit_ld_script(&lor, mem_open(&m), NULL), LG_OK);
    const char *text = mem_close(&m);
    assert_non_null(strstr(text, "SECTIONS\n{\n  .text.lorgen :\n  {\n"));
    assert_non_null(strstr(text, "    *(.text.hot.hot)\n"));
    const char *end = "  }\n}\nINSERT BEFORE .text;\n";
    assert_string_equal(text + strlen(text) - strlen(end), end);
    free(m.text);
    lg_lor_destroy(&lor);
}

/* Entry code and sections outside .text are left out of every form; a function in a plain .text
 * is named with its object; a pattern is written once. */
static void pinned_sample(lg_lor_t *lor)
{
    lg_lor_init(lor);
    lor->geometry = (lg_geometry_t){8192, 32, 1};
    lor->cliques = calloc(1, sizeof *lor->cliques);
    lor->ncliques = 1;
    lor->cliques[0] = (lg_lor_clique_t){.first = 0, .bytes = 64, .hits = 100};
    add_fn(lor, "_start", ".text._start", "obj/start.o", 0);
    add_fn(lor, "init_hw", ".init", "obj/start.o", 0);
    add_fn(lor, "alone", ".text", "obj/alone.o", 0);
    add_fn(lor, "hot", ".text.hot.hot", "obj/x.o", 0);
    add_fn(lor, "part", ".text.part.cold", "obj/x.o", LG_FN_LOCAL);
    add_fn(lor, "_under", ".text._under", NULL, LG_FN_SECTION_INFERRED);
    add_fn(lor, "split.cold", ".text.split.cold", NULL, LG_FN_SECTION_INFERRED);
}

static void test_pinned_and_qualified(void **state)
{
    (void)state;
    lg_lor_t lor;
    pinned_sample(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_linkname_resolve(&lor, NULL, &d);
    assert_true(lg_test_diag_has(&d, LG_NOTE, "'_start' is entry code"));
    assert_true(lg_test_diag_has(&d, LG_NOTE, "'init_hw' lives in .init"));
    memout_t m;
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    assert_null(strstr(text, "_start"));
    assert_null(strstr(text, ".init"));
    assert_non_null(strstr(text, "\n:*alone.o(.text)\n*(.text.hot.hot)\n"));
    /* Without a program, a leading '_' is kept as it is. */
    assert_non_null(strstr(text, "\n*(.text._under .text.hot._under "));
    assert_null(strstr(text, " .text.under"));
    /* A .cold part lives in .text.unlikely.BASE. */
    assert_non_null(strstr(text, "\n*(.text.unlikely.split)\n"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

static void test_unprefixed_when_no_other_function(void **state)
{
    (void)state;
    lg_lor_t lor;
    pinned_sample(&lor);
    fn_spec_t fns[] = {{"_under", 16, 1, 0, 0}, {"hot", 16, 1, 0, 0}};
    lg_program_t prog;
    MAKE_NO_ARCS(&prog, fns);
    lg_linkname_resolve(&lor, &prog, NULL);
    memout_t m;
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(&m), NULL), LG_OK);
    const char *text = mem_close(&m);
    assert_non_null(strstr(text, " .text.exit._under .text.under .text.hot.under "));
    free(m.text);
    lg_program_destroy(&prog);
    lg_lor_destroy(&lor);
}

/* With only the linked ELF, a function whose cold part GCC split off (NAME.cold, in
 * .text.unlikely.NAME) is named without .text.unlikely.NAME: that section is the cold part's. */
static void test_split_function_leaves_its_cold_part(void **state)
{
    (void)state;
    lg_lor_t lor;
    lg_lor_init(&lor);
    lor.geometry = (lg_geometry_t){8192, 32, 1};
    lor.cliques = calloc(1, sizeof *lor.cliques);
    lor.ncliques = 1;
    lor.cliques[0] = (lg_lor_clique_t){.first = 0, .bytes = 32, .hits = 10};
    add_fn(&lor, "split", ".text.split", NULL, LG_FN_SECTION_INFERRED);
    add_fn(&lor, "whole", ".text.whole", NULL, LG_FN_SECTION_INFERRED);
    fn_spec_t fns[] = {
        {"split", 16, 1, 10, 0}, {"split.cold", 16, 1, 0, 0}, {"whole", 16, 1, 0, 0}};
    lg_program_t prog;
    MAKE_NO_ARCS(&prog, fns);
    lg_linkname_resolve(&lor, &prog, NULL);
    memout_t m;
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(&m), NULL), LG_OK);
    const char *text = mem_close(&m);
    assert_non_null(
        strstr(text, "\n*(.text.split .text.hot.split .text.startup.split .text.exit.split)\n"));
    assert_null(strstr(text, ".text.unlikely.split"));
    /* A function without a cold part may itself be unlikely. */
    assert_non_null(strstr(text, " .text.unlikely.whole "));
    free(m.text);
    lg_program_destroy(&prog);
    lg_lor_destroy(&lor);
}

static void test_section_ordering_form(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    lor.section_align = 8192;
    memout_t m;
    assert_int_equal(lg_emit_ld_ordering(&lor, mem_open(&m), NULL), LG_OK);
    const char *text = mem_close(&m);
    /* binutils 2.43: an output-section mapping without SECTIONS, into the existing .text. */
    assert_non_null(strstr(text, "*/\n.text :\n{\n  . = ALIGN(8192);\n"));
    assert_non_null(strstr(text, "\n  *(.text.hot.hot)\n"));
    assert_null(strstr(text, "SECTIONS"));
    assert_null(strstr(text, "INSERT"));
    const char *end = "  *libz.a:b.o(.text.helper)\n}\n";
    assert_string_equal(text + strlen(text) - strlen(end), end);
    free(m.text);
    lg_lor_destroy(&lor);
}

static void test_gold_list(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    lor.fns[2].flags |= LG_FN_AMBIGUOUS_NAME;
    lor.fns[3].flags |= LG_FN_AMBIGUOUS_NAME;
    lor.cliques[1].pad_before = 64;
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_gold_sections(&lor, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    /* One name per line; inferred names every variant; same-named statics once. */
    assert_string_equal(text, ".text.hot.hot\n.text.guess\n.text.hot.guess\n.text.unlikely.guess\n"
                              ".text.startup.guess\n.text.exit.guess\n.text.helper\n");
    assert_true(lg_test_diag_has(&d, LG_WARNING, "called 'helper' move together"));
    assert_true(lg_test_diag_has(&d, LG_NOTE, "padding and alignment"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);

    pinned_sample(&lor);
    lg_diag_init(&d);
    lg_linkname_resolve(&lor, NULL, NULL);
    assert_int_equal(lg_emit_gold_sections(&lor, mem_open(&m), &d), LG_OK);
    text = mem_close(&m);
    assert_null(strstr(text, "_start"));
    assert_null(strstr(text, ".text\n"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "'alone' is in a section named .text"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

static void test_lld_list(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    lor.fns[2].flags |= LG_FN_AMBIGUOUS_NAME;
    lor.fns[3].flags |= LG_FN_AMBIGUOUS_NAME;
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_lld_symbols(&lor, NULL, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    assert_string_equal(text, "hot\nguess\nhelper\n");
    assert_true(lg_test_diag_has(&d, LG_WARNING, "lld orders by symbol name"));
    assert_false(lg_test_diag_has(&d, LG_NOTE, "padding"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

/* glibc's memcpy is in a .text.avx that other members of libc.a have too: gold, which orders by
 * section name only, would take all of them with that name, so the function is left out. */
static void test_gold_leaves_out_shared_names(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    add_fn(&lor, "__memmove_avx_unaligned_erms", ".text.avx",
           "libc.a(memmove-avx-unaligned-erms.o)", LG_FN_SECTION_NAME_SHARED);
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_gold_sections(&lor, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    assert_null(strstr(text, ".text.avx"));
    assert_non_null(strstr(text, ".text.helper\n"));
    assert_true(lg_test_diag_has(&d, LG_WARNING,
                                 "'__memmove_avx_unaligned_erms' is in a section named .text.avx, "
                                 "as are sections of other object files given"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

/* Given the program, the lld list names each function by its other names too, right after it:
 * lld takes an IFUNC's name for its PLT entry when a static program takes its address, and the
 * resolver's other name still orders its section. A name two functions share is left out. */
static void test_lld_list_aliases(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    lg_program_t prog;
    lg_program_init(&prog);
    prog.fns = calloc(4, sizeof *prog.fns);
    prog.nfns = 4;
    const char *symbols[] = {"hot", "guess", "helper", "helper"};
    const char *objects[] = {"obj/x.o", NULL, "obj/a.o", "lib/libz.a(b.o)"};
    for (size_t i = 0; i < 4; i++) {
        prog.fns[i].symbol = strdup(symbols[i]);
        prog.fns[i].section = strdup(".text");
        prog.fns[i].object = objects[i] ? strdup(objects[i]) : NULL;
    }
    prog.aliases = calloc(4, sizeof *prog.aliases);
    prog.naliases = 4;
    const char *names[] = {"hot_ifunc", "shared", "shared", "helper_too"};
    const uint32_t fns[] = {0, 0, 1, 2};
    for (size_t i = 0; i < 4; i++)
        prog.aliases[i] = (lg_alias_t){strdup(names[i]), fns[i]};
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_lld_symbols(&lor, &prog, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    /* helper names two functions: its aliases could be either's. */
    assert_string_equal(text, "hot\nhot_ifunc\nguess\nhelper\n");
    free(m.text);
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
    lg_lor_destroy(&lor);
}

/* A phased function gets the padding to its phase before its pattern in every GNU ld form
 * (`. = ALIGN(line)` for phase 0); the name lists cannot hold it and say how many lost theirs. */
static void test_phased_functions(void **state)
{
    (void)state;
    lg_lor_t lor;
    sample(&lor);
    lor.fns[0].flags |= LG_FN_PHASED;
    lor.fns[0].lead = 16;
    lor.fns[2].flags |= LG_FN_PHASED; /* phase 0 */
    memout_t m;
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(&m), NULL), LG_OK);
    const char *text = mem_close(&m);
    assert_non_null(strstr(text, "\n/* phase +16 in the 32-byte cache line */\n"
                                 ". = . + ((ALIGN(32) - . + 16) & 31);\n*(.text.hot.hot)\n"));
    assert_non_null(strstr(text, "\n/* phase +0 in the 32-byte cache line */\n. = ALIGN(32);\n"
                                 ":*a.o(.text.helper)\n"));
    /* The unphased ones as before. */
    assert_non_null(strstr(text, "\n*(.text.hot.hot)\n*(.text.guess "));
    assert_non_null(strstr(text, "\n:*a.o(.text.helper)\n*libz.a:b.o(.text.helper)\n"));
    free(m.text);
    assert_int_equal(lg_emit_ld_script(&lor, mem_open(&m), NULL), LG_OK);
    text = mem_close(&m);
    assert_non_null(
        strstr(text, "\n    . = . + ((ALIGN(32) - . + 16) & 31);\n    *(.text.hot.hot)\n"));
    free(m.text);
    assert_int_equal(lg_emit_ld_ordering(&lor, mem_open(&m), NULL), LG_OK);
    text = mem_close(&m);
    assert_non_null(strstr(text, "\n  . = . + ((ALIGN(32) - . + 16) & 31);\n  *(.text.hot.hot)\n"));
    free(m.text);

    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_emit_gold_sections(&lor, mem_open(&m), &d), LG_OK);
    free((char *)mem_close(&m));
    assert_true(lg_test_diag_has(&d, LG_NOTE,
                                 "gold's ordering file cannot hold the phase in the cache line "
                                 "chosen for 2 functions: they keep their place in the order, not "
                                 "their phase (use a GNU ld script for them; `lorgen check` "
                                 "reports a function off its phase, and --no-phase chooses "
                                 "none)"));
    assert_false(lg_test_diag_has(&d, LG_NOTE, "padding and alignment"));
    lg_diag_destroy(&d);
    lg_diag_init(&d);
    lor.fns[2].flags &= ~LG_FN_PHASED;
    assert_int_equal(lg_emit_lld_symbols(&lor, NULL, mem_open(&m), &d), LG_OK);
    free((char *)mem_close(&m));
    assert_true(lg_test_diag_has(&d, LG_NOTE,
                                 "lld's ordering file cannot hold the phase in the cache line "
                                 "chosen for 1 function: it keeps its place"));
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

/* ---- Names that reach a linker ------------------------------------------------------------- */

/* One clique of functions in the given sections (exact, from objects), objects optional. */
static void names_sample(lg_lor_t *lor, const char *const (*fns)[3], size_t n)
{
    lg_lor_init(lor);
    lor->geometry = (lg_geometry_t){8192, 32, 1};
    lor->cliques = calloc(1, sizeof *lor->cliques);
    lor->ncliques = 1;
    lor->cliques[0] = (lg_lor_clique_t){.first = 0, .bytes = 64, .hits = 100};
    for (size_t i = 0; i < n; i++)
        add_fn(lor, fns[i][0], fns[i][1], fns[i][2], 0);
}

/* A program holding a function per (symbol, section, object), for lg_linkname_resolve. */
static void names_program(lg_program_t *prog, const char *const (*fns)[3], size_t n)
{
    lg_program_init(prog);
    prog->fns = calloc(n, sizeof *prog->fns);
    assert_non_null(prog->fns);
    prog->nfns = n;
    for (size_t i = 0; i < n; i++)
        prog->fns[i] = (lg_fn_t){.symbol = strdup(fns[i][0]),
                                 .section = strdup(fns[i][1]),
                                 .object = fns[i][2] ? strdup(fns[i][2]) : NULL,
                                 .size = 16,
                                 .align = 1,
                                 .input_order = (uint32_t)i};
}

/* The --ld-include form of one clique of listed, its objects named among those of a program of
 * the functions others (lg_linkname_resolve's diagnostics into d), written into m; free
 * m.text. */
static const char *include_text(const char *const (*listed)[3], size_t nlisted,
                                const char *const (*others)[3], size_t nothers, lg_diag_t *d,
                                memout_t *m)
{
    lg_lor_t lor;
    names_sample(&lor, listed, nlisted);
    lg_program_t prog;
    names_program(&prog, others, nothers);
    lg_linkname_resolve(&lor, &prog, d);
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(m), d), LG_OK);
    const char *text = mem_close(m);
    lg_program_destroy(&prog);
    lg_lor_destroy(&lor);
    return text;
}

/* Fails, showing text, unless each of the n strings of expect is in it. */
static void assert_all_in(const char *text, const char *const *expect, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(text, expect[i]) == NULL) {
            print_message("expected %s in:\n%s\n", expect[i], text);
            fail();
        }
}

/* Section names that would close the pattern, add script commands or comments, or match other
 * sections, are quoted and their wildcard bytes escaped as one-byte classes; a name holding '"'
 * cannot be quoted and is left out with a warning. */
static void test_ld_section_names_quoted_and_escaped(void **state)
{
    (void)state;
    static const char *const fns[][3] = {
        {"inject", ".text.x) injected_by_lorgen = 0x1337; *(.y", NULL},
        {"include", ".text.x) } INCLUDE evil.ld .junk : { *(.y", NULL},
        {"comment", ".text.c */ x /* c", NULL},
        {"qx", ".text.q?x", NULL},
        {"brk", ".text.brk[ab]?", NULL},
        {"bs_glob", ".text.b\\s?", NULL},
        {"bs", ".text.b\\s", NULL},
        {"nl", ".text.nl\nx", NULL},
        {"quote", ".text.q\"t", NULL},
        {"plain", ".text.plain_1.constprop.0", NULL},
    };
    lg_lor_t lor;
    names_sample(&lor, fns, NELEMS(fns));
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    assert_non_null(strstr(text, "\n*(\".text.x) injected_by_lorgen = 0x1337; [*](.y\")\n"));
    assert_non_null(strstr(text, "\n*(\".text.x) } INCLUDE evil.ld .junk : { [*](.y\")\n"));
    assert_non_null(strstr(text, "\n*(\".text.c [*]/ x /[*] c\")\n"));
    assert_non_null(strstr(text, "\n*(\".text.q[?]x\")\n"));
    assert_non_null(strstr(text, "\n*(\".text.brk[[]ab[]][?]\")\n"));
    /* With a wildcard, ld's fnmatch reads escapes: the backslash becomes a class of its own;
     * without one, ld compares the name as it is. */
    assert_non_null(strstr(text, "\n*(\".text.b[\\\\]s[?]\")\n"));
    assert_non_null(strstr(text, "\n*(\".text.b\\s\")\n"));
    assert_non_null(strstr(text, "\n*(\".text.nl\nx\")\n"));
    assert_non_null(strstr(text, "\n*(.text.plain_1.constprop.0)\n"));
    assert_null(strstr(text, "q\"t"));
    assert_true(lg_test_diag_has(&d, LG_WARNING,
                                 "'quote' is left out of the GNU ld script: its section name "
                                 "'.text.q\"t' holds a '\"'"));
    assert_int_equal(d.warnings, 1);
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

/* An inferred section names every prefix: a symbol with a wildcard or a quote is escaped or left
 * out in all of them. */
static void test_ld_inferred_names_escaped(void **state)
{
    (void)state;
    lg_lor_t lor;
    names_sample(&lor, NULL, 0);
    add_fn(&lor, "operator*", NULL, NULL, LG_FN_SECTION_INFERRED);
    add_fn(&lor, "say\"what", NULL, NULL, LG_FN_SECTION_INFERRED);
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_ld_include(&lor, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    assert_non_null(strstr(text, "\n*(\".text.operator[*]\" \".text.hot.operator[*]\" "
                                 "\".text.unlikely.operator[*]\" \".text.startup.operator[*]\" "
                                 "\".text.exit.operator[*]\")\n"));
    assert_null(strstr(text, "say"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "'say\"what' is left out of the GNU ld script"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

/* A member of the C library, libc.a or libc_nano.a, is named so that its libg copy matches too:
 * GCC links libg ahead of libc when -g is given. Directories that tell two multilibs apart stay;
 * other archives keep their own name. */
static void test_ld_c_library_patterns(void **state)
{
    (void)state;
    static const char *const listed[][3] = {
        {"memcpy", ".text",
         "/usr/lib/arm-none-eabi/lib/thumb/v7e-m/nofp/libc_nano.a(lib_a-memcpy.o)"},
        {"strlen", ".text", "v6-m/nofp/libc.a(lib_a-strlen.o)"},
        {"memset", ".text", "lib/libg.a(lib_a-memset.o)"},
        {"helper", ".text", "lib/mylibc.a(u.o)"},
        {"scan", ".text", "lib/libc.a.old(scan.o)"},
    };
    static const char *const others[][3] = {
        {"strlen", ".text", "v7e-m/nofp/libc.a(lib_a-strlen.o)"},
    };
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    const char *text = include_text(listed, NELEMS(listed), others, NELEMS(others), &d, &m);
    static const char *const expect[] = {
        "\n\"*lib[cg]_nano.a:lib_a-memcpy.o\"(.text)\n",
        "\n\"*v6-m/nofp/lib[cg].a:lib_a-strlen.o\"(.text)\n",
        "\n\"*lib[cg].a:lib_a-memset.o\"(.text)\n",
        "\n*mylibc.a:u.o(.text)\n",
        "\n*libc.a.old:scan.o(.text)\n",
    };
    assert_all_in(text, expect, NELEMS(expect));
    free(m.text);
    char *pattern = NULL;
    assert_int_equal(lg_linkname_ld_object("libc_nano.a(lib_a-qsort.o)", &pattern), LG_OK);
    assert_string_equal(pattern, "\"*lib[cg]_nano.a:lib_a-qsort.o\"");
    free(pattern);
    lg_diag_destroy(&d);
}

/* The file pattern names as many directories as tell an object apart from the program's other
 * objects, quoted when it must be; ':' first keeps archive members out. */
static void test_ld_object_patterns(void **state)
{
    (void)state;
    static const char *const listed[][3] = {
        {"helper", ".text", "a/util.o"},
        {"helper", ".text", "c(1)/util.o"},
        {"helper", ".text", "util.o"},
        {"helper", ".text", "lib/libx.a(u.o)"},
        {"helper", ".text", "t/libt.a(t/a/util.o)"},
        {"helper", ".text", "x) INCLUDE evil.ld (/y.o"},
        {"helper", ".text", "q\"d/z.o"},
        {"helper", ".text", "q\"d/v.o"},
        {"helper", ".text", "odd:dir/libw.a(w.o)"},
    };
    static const char *const others[][3] = {
        {"helper", ".text", "b/util.o"},
        {"helper", ".text", "myutil.o"},
        {"helper", ".text", "d(1)/util.o"},
        {"helper", ".text", "lib2/libx.a(u.o)"},
        {"helper", ".text", "t/libt.a(t/b/util.o)"},
        {"helper", ".text", "other/v.o"},
        {"helper", ".text", "elsewhere/libw.a(w.o)"},
        {"helper", ".text", "w/y.o"},
    };
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    const char *text = include_text(listed, NELEMS(listed), others, NELEMS(others), &d, &m);
    static const char *const expect[] = {
        /* b/util.o shares util.o: one directory more. */
        "\n:*a/util.o(.text)\n",
        /* A path with '(' is a file, not an archive member; quoted. */
        "\n\":*c(1)/util.o\"(.text)\n",
        /* util.o is the tail of myutil.o: only the exact name tells it apart. */
        "\n:util.o(.text)\n",
        /* Two archives called libx.a. */
        "\n*lib/libx.a:u.o(.text)\n",
        /* A thin archive's member is a path, named by its tail. */
        "\n*libt.a:*a/util.o(.text)\n",
        /* Script text in a directory name stays inside the quotes. */
        "\n\":*x) INCLUDE evil.ld (/y.o\"(.text)\n",
        /* z.o is enough: the '"' in the directory need not be written. */
        "\n:*z.o(.text)\n",
    };
    assert_all_in(text, expect, NELEMS(expect));
    /* v.o needs its directory, which holds '"'; libw.a needs its own, which holds ':'. */
    assert_null(strstr(text, "v.o"));
    assert_null(strstr(text, "libw.a"));
    assert_true(lg_test_diag_has(&d, LG_WARNING,
                                 "'helper' is left out of the GNU ld script: it must be named with "
                                 "its object file 'q\"d/v.o'"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "its object file 'odd:dir/libw.a(w.o)'"));
    free(m.text);
    lg_diag_destroy(&d);
}

/* gold reads a line as the name, exactly or as a glob: wildcard bytes become one-byte classes
 * (no backslash escapes there), a leading '#' too, a trailing '\r' is doubled; a newline cannot
 * be written. A program section named like an escaped line would be taken first: left out. */
static void test_gold_names(void **state)
{
    (void)state;
    static const char *const fns[][3] = {
        {"inject", ".text.x) injected_by_lorgen = 0x1337; *(.y", NULL},
        {"qx", ".text.q?x", NULL},
        {"bs", ".text.b\\s?", NULL},
        {"sp", ".text. lead and trail ", NULL},
        {"cr", ".text.cr\r", NULL},
        {"quote", ".text.q\"t", NULL},
        {"nl", ".text.nl\nx", NULL},
        {"clash", ".text.c?", NULL},
    };
    lg_lor_t lor;
    names_sample(&lor, fns, NELEMS(fns));
    static const char *const others[][3] = {{"other", ".text.c[?]", NULL}};
    lg_program_t prog;
    names_program(&prog, others, NELEMS(others));
    lg_linkname_resolve(&lor, &prog, NULL);
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_gold_sections(&lor, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    assert_string_equal(text, ".text.x) injected_by_lorgen = 0x1337; [*](.y\n"
                              ".text.q[?]x\n"
                              ".text.b\\s[?]\n"
                              ".text. lead and trail \n"
                              ".text.cr\r\r\n"
                              ".text.q\"t\n");
    assert_true(lg_test_diag_has(&d, LG_WARNING,
                                 "'nl' is left out of the gold list: its section name "
                                 "'.text.nl\\nx' holds a newline"));
    assert_true(lg_test_diag_has(&d, LG_WARNING,
                                 "'clash' is left out of the gold list: its section name holds a "
                                 "wildcard, and the escaped line is the name of another section"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
    lg_lor_destroy(&lor);

    char *line;
    assert_int_equal(lg_linkname_gold_line("#.text.hash", &line), LG_OK);
    assert_string_equal(line, "[#].text.hash");
    free(line);
}

/* lld trims each line and skips '#' lines, and has no globs: a name with a space inside or a '*'
 * is written as it is; one it would trim, skip or split is left out with a warning. */
static void test_lld_names(void **state)
{
    (void)state;
    lg_lor_t lor;
    names_sample(&lor, NULL, 0);
    const char *syms[] = {"sp ace", "mid#x", "st*r", "#hash", " lead", "trail\t", "n\nl", "cr\r"};
    for (size_t i = 0; i < NELEMS(syms); i++)
        add_fn(&lor, syms[i], NULL, NULL, LG_FN_SECTION_INFERRED);
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_lld_symbols(&lor, NULL, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    assert_string_equal(text, "sp ace\nmid#x\nst*r\n");
    assert_int_equal(d.warnings, 5);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "'#hash' is left out of the lld list"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "'n\\nl' is left out of the lld list"));
    free(m.text);
    lg_diag_destroy(&d);
    lg_lor_destroy(&lor);
}

/* Messages show a name on one line, cut when long. */
static void test_names_shown_in_messages(void **state)
{
    (void)state;
    char buf[LG_LINKNAME_SHOW_BYTES];
    assert_string_equal(lg_linkname_show("a\nb\r\tc\\d\x01", buf), "a\\nb\\r\\tc\\\\d\\x01");
    char long_name[1000];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    const char *shown = lg_linkname_show(long_name, buf);
    assert_true(strlen(shown) < LG_LINKNAME_SHOW_BYTES);
    assert_string_equal(shown + strlen(shown) - 3, "...");
}

static void test_callgraph_sorted_and_merged(void **state)
{
    (void)state;
    lg_profile_t p1, p2;
    lg_profile_init(&p1);
    lg_profile_init(&p2);
    const char *names[] = {"main", "b", "a", "with space"};
    for (size_t i = 0; i < 4; i++) {
        lg_pfunc_t f = {.name = (char *)names[i]};
        assert_int_equal(lg_profile_add_func(&p1, &f, NULL), LG_OK);
        assert_int_equal(lg_profile_add_func(&p2, &f, NULL), LG_OK);
    }
    assert_int_equal(lg_profile_add_edge(&p1, 0, 1, 5), LG_OK); /* main b 5 */
    assert_int_equal(lg_profile_add_edge(&p1, 0, 2, 5), LG_OK); /* main a 5 */
    assert_int_equal(lg_profile_add_edge(&p1, 2, 2, 9), LG_OK); /* a a 9: self call kept */
    assert_int_equal(lg_profile_add_edge(&p1, 0, 3, 1), LG_OK); /* not writable */
    assert_int_equal(lg_profile_add_edge(&p2, 0, 1, 2), LG_OK); /* main b +2x2 */
    lg_profile_finish_edges(&p1);
    lg_profile_finish_edges(&p2);
    lg_bind_input_t in[] = {{&p1, 1.0}, {&p2, 2.0}};
    lg_diag_t d;
    lg_diag_init(&d);
    memout_t m;
    assert_int_equal(lg_emit_callgraph_profiles(in, 2, mem_open(&m), &d), LG_OK);
    const char *text = mem_close(&m);
    /* Weight descending, then caller, then callee; the second profile counted twice. */
    assert_string_equal(text, "a a 9\nmain b 9\nmain a 5\n");
    assert_true(lg_test_diag_has(&d, LG_WARNING, "1 call edges left out"));
    free(m.text);
    lg_profile_destroy(&p1);
    lg_profile_destroy(&p2);
    lg_diag_destroy(&d);
}

static void test_report_is_complete_and_stable(void **state)
{
    (void)state;
    lg_program_t prog;
    lg_program_init(&prog);
    prog.fns = calloc(3, sizeof *prog.fns);
    prog.nfns = 3;
    const char *syms[] = {"caller", "callee", "unused"};
    for (size_t i = 0; i < 3; i++)
        prog.fns[i] = (lg_fn_t){.symbol = strdup(syms[i]),
                                .section = lg_format(".text.%s", syms[i]),
                                .size = 100,
                                .align = 1,
                                .hits = i < 2 ? 10 * (i + 1) : 0,
                                .input_order = (uint32_t)i};
    prog.arcs = calloc(1, sizeof *prog.arcs);
    prog.arcs[0] = (lg_arc_t){0, 1, 20};
    prog.narcs = 1;
    prog.has_call_edges = true;
    prog.unbound = calloc(1, sizeof *prog.unbound);
    prog.unbound[0] = (lg_unbound_t){strdup("ghost"), 7, strdup("no function symbol")};
    prog.nunbound = 1;
    lg_layout_t layout;
    lg_layout_init(&layout);
    layout.geometry = (lg_geometry_t){8192, 32, 1};
    layout.algorithm = "cliques";
    layout.cliques = calloc(1, sizeof *layout.cliques);
    layout.cliques[0] =
        (lg_clique_t){.fns = malloc(2 * sizeof(uint32_t)), .nfns = 2, .bytes = 200, .hits = 30};
    layout.cliques[0].fns[0] = 0;
    layout.cliques[0].fns[1] = 1;
    layout.ncliques = 1;
    layout.cold = malloc(sizeof(uint32_t));
    layout.cold[0] = 2;
    layout.ncold = 1;
    lg_report_input_t in = {.prog = &prog, .layout = &layout, .max_rows = 10};
    memout_t m1, m2;
    assert_int_equal(lg_report_write(&in, mem_open(&m1)), LG_OK);
    assert_int_equal(lg_report_write(&in, mem_open(&m2)), LG_OK);
    const char *text = mem_close(&m1);
    mem_close(&m2);
    assert_string_equal(text, m2.text);
    assert_non_null(strstr(text, "Clique 1   200 bytes   2.4% of the cache   30 hits   100.0% of "
                                 "all hits\n"));
    assert_non_null(strstr(text, "  TOTAL "));
    assert_non_null(strstr(text, "    caller -> callee"));
    assert_non_null(strstr(text, "  unbound      ghost"));
    assert_non_null(strstr(text, "  cold         1 functions never executed"));
    assert_null(strstr(text, "unnamable"));
    free(m1.text);
    free(m2.text);

    /* A .LOR with names some linkers cannot say: the report lists them under "Left out". */
    lg_lor_t lor;
    lg_lor_init(&lor);
    lor.geometry = layout.geometry;
    lor.cliques = calloc(1, sizeof *lor.cliques);
    lor.ncliques = 1;
    lor.cliques[0] = (lg_lor_clique_t){.first = 0, .bytes = 48, .hits = 3};
    add_fn(&lor, "plain", ".text.plain", "obj/a.o", 0);
    add_fn(&lor, "quoted", ".text.q\"x", "obj/a.o", 0);
    add_fn(&lor, "#hash", ".text.nl\nx", "obj/a.o", 0);
    in.lor = &lor;
    memout_t m3;
    assert_int_equal(lg_report_write(&in, mem_open(&m3)), LG_OK);
    text = mem_close(&m3);
    assert_null(strstr(text, "unnamable    plain"));
    assert_non_null(strstr(text,
                           "  unnamable    quoted                           not in the GNU ld "
                           "output: that linker's grammar cannot say its name\n"));
    assert_non_null(strstr(text, "  unnamable    #hash                            not in the gold, "
                                 "lld output"));
    free(m3.text);
    lg_lor_destroy(&lor);
    lg_layout_destroy(&layout);
    lg_program_destroy(&prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_include_form_patterns),
        cmocka_unit_test(test_script_form_inserts_before_text),
        cmocka_unit_test(test_pinned_and_qualified),
        cmocka_unit_test(test_unprefixed_when_no_other_function),
        cmocka_unit_test(test_split_function_leaves_its_cold_part),
        cmocka_unit_test(test_section_ordering_form),
        cmocka_unit_test(test_gold_list),
        cmocka_unit_test(test_lld_list),
        cmocka_unit_test(test_gold_leaves_out_shared_names),
        cmocka_unit_test(test_lld_list_aliases),
        cmocka_unit_test(test_phased_functions),
        cmocka_unit_test(test_ld_section_names_quoted_and_escaped),
        cmocka_unit_test(test_ld_inferred_names_escaped),
        cmocka_unit_test(test_ld_object_patterns),
        cmocka_unit_test(test_ld_c_library_patterns),
        cmocka_unit_test(test_gold_names),
        cmocka_unit_test(test_lld_names),
        cmocka_unit_test(test_names_shown_in_messages),
        cmocka_unit_test(test_callgraph_sorted_and_merged),
        cmocka_unit_test(test_report_is_complete_and_stable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
