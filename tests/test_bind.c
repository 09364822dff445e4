/* test_bind.c - binding profiled names to ELF functions, on objects and a program compiled for
 * real from tests/fixtures/elf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES LORGEN_SOURCE_DIR "/tests/fixtures/elf"
#define WORK LORGEN_TEST_TMPDIR "/bind"

/* Builds the fixture objects (c.c without -ffunction-sections) and links them, once. */
static int build_fixtures(void **state)
{
    (void)state;
    const char *cmd = "set -e; mkdir -p " WORK "; cd " WORK "; "
                      "gcc -O2 -ffunction-sections -c " FIXTURES "/a.c -o a.o; "
                      "gcc -O2 -ffunction-sections -c " FIXTURES "/b.c -o b.o; "
                      "gcc -O2 -c " FIXTURES "/c.c -o c.o; "
                      "gcc a.o b.o c.o -o prog; "
                      "gcc -O2 -ffunction-sections -c " FIXTURES "/hidden.c -o hidden.o; "
                      "gcc hidden.o -o hidden; "
                      "strip -o prog-stripped prog; "
                      "if command -v ld.lld >/dev/null 2>&1 && "
                      "[ -f \"$(gcc -print-file-name=libc.a)\" ]; then "
                      "gcc -O2 -ffunction-sections -c " FIXTURES "/lld_main.c -o lld_main.o; "
                      "gcc -c " FIXTURES "/nofile.S -o nofile.o; "
                      "gcc -static -fuse-ld=lld lld_main.o nofile.o -o lld_prog; "
                      "gcc -c -Dnofile_entry=other_entry " FIXTURES "/nofile.S -o nofile2.o; "
                      "gcc -static -fuse-ld=lld lld_main.o nofile.o nofile2.o -o lld_prog2; fi; "
                      "gcc -O2 -ffunction-sections -c " FIXTURES "/refs.c -o refs.o; "
                      "gcc -O2 -ffunction-sections -c " FIXTURES "/refs_other.c -o refs_other.o; "
                      "gcc -O2 -ffunction-sections -c " FIXTURES "/refs_split.c -o refs_split.o; "
                      "gcc -O2 -c " FIXTURES "/refs_other.c -o refs_other-shared.o; "
                      "sh4-linux-gnu-gcc -O2 -ffunction-sections -c " FIXTURES
                      "/refs.c -o refs-sh.o; "
                      "sh4-linux-gnu-gcc -O2 -ffunction-sections -c " FIXTURES
                      "/refs_other.c -o refs_other-sh.o";
    return lg_test_run(cmd) == 0 ? 0 : -1;
}

static void read_elf(lg_elfsyms_t *elf, const char *const *paths)
{
    lg_elfsyms_init(elf);
    lg_diag_t d;
    lg_diag_init(&d);
    for (; *paths != NULL; paths++) {
        char path[512];
        snprintf(path, sizeof path, WORK "/%s", *paths);
        if (lg_elfsyms_read(elf, path, &d) != LG_OK) {
            lg_test_diag_dump(&d);
            fail();
        }
    }
    lg_diag_destroy(&d);
}

static uint32_t add(lg_profile_t *p, const char *name, const char *label, const char *qual,
                    uint64_t hits)
{
    lg_pfunc_t f = {.name = (char *)name,
                    .link_label = (char *)label,
                    .qual_name = (char *)qual,
                    .hits = hits};
    uint32_t id;
    assert_int_equal(lg_profile_add_func(p, &f, &id), LG_OK);
    return id;
}

static const lg_fn_t *find(const lg_program_t *prog, const char *symbol, const char *source)
{
    for (size_t i = 0; i < prog->nfns; i++) {
        const lg_fn_t *fn = &prog->fns[i];
        if (strcmp(fn->symbol, symbol) == 0 &&
            (source == NULL || (fn->source_file && strcmp(fn->source_file, source) == 0)))
            return fn;
    }
    print_message("no function %s (%s)\n", symbol, source ? source : "any");
    fail();
    return NULL;
}

static const lg_unbound_t *find_unbound(const lg_program_t *prog, const char *name)
{
    for (size_t i = 0; i < prog->nunbound; i++)
        if (strcmp(prog->unbound[i].name, name) == 0)
            return &prog->unbound[i];
    return NULL;
}

/* A profile touching every binding rule. */
static void sample_profile(lg_profile_t *p)
{
    lg_profile_init(p);
    p->has_call_edges = true;
    uint32_t a_entry = add(p, "a_entry", NULL, NULL, 10);
    uint32_t helper_b = add(p, "helper", NULL, "src/b.c", 7); /* told apart by qualified name */
    uint32_t scale = add(p, "scale", NULL, NULL, 20);         /* only scale.constprop.0 exists */
    uint32_t b_entry = add(p, "_b_entry", NULL, NULL, 3);     /* user-label prefix */
    add(p, "Entry", "c_one", NULL, 4);                        /* bound by linker label */
    add(p, "helper", NULL, NULL, 5);                          /* two statics: ambiguous */
    uint32_t gone = add(p, "gone", NULL, NULL, 99);
    add(p, "cold_fn", NULL, NULL, 1);
    /* Calls the code makes: a profile whose calls the objects' code does not make would be
     * taken as calls the build inlined (calls.h). */
    assert_int_equal(lg_profile_add_edge(p, b_entry, helper_b, 6), LG_OK);
    assert_int_equal(lg_profile_add_edge(p, a_entry, scale, 20), LG_OK);
    assert_int_equal(lg_profile_add_edge(p, a_entry, gone, 2), LG_OK);
    assert_int_equal(lg_profile_add_edge(p, a_entry, a_entry, 1), LG_OK);
    lg_profile_finish_edges(p);
}

static void test_binds_names_by_every_rule(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog", "a.o", "b.o", "c.o", NULL});
    lg_profile_t prof;
    sample_profile(&prof);
    lg_bind_input_t in = {&prof, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, &d), LG_OK);

    /* Functions come from the linked program, sections from the objects. */
    assert_false(prog.sections_inferred);
    const lg_fn_t *cold = find(&prog, "cold_fn", NULL);
    assert_string_equal(cold->section, ".text.unlikely.cold_fn");
    assert_int_equal(cold->hits, 1);
    assert_true(cold->address != UINT64_MAX);
    assert_non_null(strstr(cold->object, "a.o"));

    /* _start comes from crt1.o, which was not given: its section is unknown, so it stays put. */
    const lg_fn_t *start = find(&prog, "_start", NULL);
    assert_true(start->flags & LG_FN_SECTION_UNKNOWN);
    assert_false(lg_fn_movable(start));
    assert_true(lg_fn_movable(cold));

    /* The qualified name picks b.c's helper; a.c's stays unprofiled. */
    assert_int_equal(find(&prog, "helper", "b.c")->hits, 7);
    assert_int_equal(find(&prog, "helper", "a.c")->hits, 0);
    assert_true(find(&prog, "helper", "a.c")->flags & LG_FN_AMBIGUOUS_NAME);

    /* Clone suffix, '_' prefix and linker label. */
    assert_int_equal(find(&prog, "scale.constprop.0", NULL)->hits, 20);
    assert_int_equal(find(&prog, "b_entry", NULL)->hits, 3);
    /* c_one and c_alias are one function at one address: it keeps the name that sorts first,
     * and the profile's "c_one" still binds to it. */
    const lg_fn_t *c_one = find(&prog, "c_alias", NULL);
    assert_int_equal(c_one->hits, 4);
    /* c.c was built without -ffunction-sections: its functions share .text. */
    assert_true(c_one->flags & LG_FN_SHARED_SECTION);
    assert_string_equal(c_one->section, ".text");

    /* Unbound, with reasons, hottest first. */
    assert_int_equal(prog.nunbound, 2);
    assert_string_equal(prog.unbound[0].name, "gone");
    assert_non_null(strstr(prog.unbound[0].reason, "no function symbol"));
    const lg_unbound_t *amb = find_unbound(&prog, "helper");
    assert_non_null(amb);
    assert_non_null(strstr(amb->reason, "2 functions have that name"));

    /* Arcs: the self arc is kept; the arc to the unbound function is dropped with a note. */
    assert_int_equal(prog.narcs, 3);
    assert_true(lg_test_diag_has(&d, LG_NOTE, "1 call edges (weight 2) touch unbound"));
    uint64_t to_scale = 0, self = 0;
    for (size_t i = 0; i < prog.narcs; i++) {
        const lg_arc_t *a = &prog.arcs[i];
        if (strcmp(prog.fns[a->callee].symbol, "scale.constprop.0") == 0)
            to_scale = a->weight;
        if (a->caller == a->callee)
            self = a->weight;
    }
    assert_int_equal(to_scale, 20);
    assert_int_equal(self, 1);

    lg_program_destroy(&prog);
    lg_profile_destroy(&prof);
    lg_elfsyms_destroy(&elf);
    lg_diag_destroy(&d);
}

static void test_linked_only_infers_sections(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog", NULL});
    lg_profile_t prof;
    sample_profile(&prof);
    lg_bind_input_t in = {&prof, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, NULL), LG_OK);
    assert_true(prog.sections_inferred);
    const lg_fn_t *cold = find(&prog, "cold_fn", NULL);
    assert_string_equal(cold->section, ".text.cold_fn");
    assert_true(cold->flags & LG_FN_SECTION_INFERRED);
    /* Without objects every section is a guess, and none is known to be wrong. */
    assert_false(find(&prog, "_start", NULL)->flags & LG_FN_SECTION_UNKNOWN);
    /* The linked program alone still tells statics apart by their STT_FILE. */
    assert_int_equal(find(&prog, "helper", "b.c")->hits, 7);
    /* Input order is address order. */
    for (size_t i = 1; i < prog.nfns; i++)
        assert_true(prog.fns[i - 1].address <= prog.fns[i].address);
    lg_program_destroy(&prog);
    lg_profile_destroy(&prof);
    lg_elfsyms_destroy(&elf);
}

static void test_objects_only_and_merged_profiles(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"a.o", "b.o", NULL});
    lg_profile_t p1, p2;
    sample_profile(&p1);
    sample_profile(&p2);
    /* The second profile counts double: hits and arcs are scaled, then summed. */
    lg_bind_input_t in[] = {{&p1, 1.0}, {&p2, 2.0}};
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(in, 2, &elf, &prog, NULL), LG_OK);
    assert_false(prog.sections_inferred);
    const lg_fn_t *scale = find(&prog, "scale.constprop.0", NULL);
    assert_int_equal(scale->hits, 60);
    assert_int_equal(scale->address, UINT64_MAX);
    assert_string_equal(scale->section, ".text.scale.constprop.0");
    /* Unbound names from both profiles are one entry, hits summed. */
    const lg_unbound_t *gone = find_unbound(&prog, "gone");
    assert_non_null(gone);
    assert_int_equal(gone->hits, 99 * 3);
    lg_program_destroy(&prog);
    lg_profile_destroy(&p1);
    lg_profile_destroy(&p2);
    lg_elfsyms_destroy(&elf);
}

static uint64_t arc_weight(const lg_program_t *prog, const char *from, const char *to)
{
    for (size_t i = 0; i < prog->narcs; i++)
        if (strcmp(prog->fns[prog->arcs[i].caller].symbol, from) == 0 &&
            strcmp(prog->fns[prog->arcs[i].callee].symbol, to) == 0)
            return prog->arcs[i].weight;
    return 0;
}

static void test_calls_of_inlined_functions_go_to_their_callers(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog", NULL});
    lg_profile_t p;
    lg_profile_init(&p);
    p.has_call_edges = true;
    /* inl1 and inl2 have no symbol in prog: they were inlined into their callers. */
    uint32_t a = add(&p, "a_entry", NULL, NULL, 1), b = add(&p, "b_entry", NULL, NULL, 1);
    uint32_t inl1 = add(&p, "inl1", NULL, NULL, 40), inl2 = add(&p, "inl2", NULL, NULL, 4);
    uint32_t cold = add(&p, "cold_fn", NULL, NULL, 8), two = add(&p, "c_two", NULL, NULL, 4);
    assert_int_equal(lg_profile_add_edge(&p, a, inl1, 10), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, b, inl1, 30), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, inl1, cold, 8), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, inl1, inl2, 4), LG_OK);
    assert_int_equal(lg_profile_add_edge(&p, inl2, two, 4), LG_OK);
    lg_profile_finish_edges(&p);
    lg_bind_input_t in = {&p, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, NULL), LG_OK);
    /* inl1's 8 calls split 1:3 between its callers. */
    assert_int_equal(arc_weight(&prog, "a_entry", "cold_fn"), 2);
    assert_int_equal(arc_weight(&prog, "b_entry", "cold_fn"), 6);
    /* inl2 was inlined into inl1, itself inlined: its 4 calls climb two levels. */
    assert_int_equal(arc_weight(&prog, "a_entry", "c_two"), 1);
    assert_int_equal(arc_weight(&prog, "b_entry", "c_two"), 3);
    /* Calls into inlined code make no arc. */
    assert_int_equal(prog.narcs, 4);
    lg_program_destroy(&prog);
    lg_profile_destroy(&p);
    lg_elfsyms_destroy(&elf);
}

/* Adds caller -> callee of the given weight. */
static void call(lg_profile_t *p, uint32_t caller, uint32_t callee, uint64_t weight)
{
    assert_int_equal(lg_profile_add_edge(p, caller, callee, weight), LG_OK);
}

static uint64_t hits_of(const lg_program_t *prog, const char *symbol)
{
    return find(prog, symbol, NULL)->hits;
}

/* A profile from a build that did not inline leaf into direct_caller, bound to the objects of
 * one that did (tests/fixtures/elf/refs.c): three quarters of leaf's calls are inlined. */
static void test_calls_this_build_inlined_are_no_arcs(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"refs.o", "refs_other.o", NULL});
    lg_profile_t p;
    lg_profile_init(&p);
    p.has_call_edges = true;
    uint32_t direct = add(&p, "direct_caller", NULL, NULL, 10);
    uint32_t other = add(&p, "other_caller", NULL, NULL, 5);
    uint32_t leaf = add(&p, "leaf", NULL, NULL, 400), deep = add(&p, "deep", NULL, NULL, 80);
    uint32_t callee = add(&p, "callee", NULL, NULL, 5), ext = add(&p, "extern_fn", NULL, NULL, 2);
    uint32_t pointer = add(&p, "pointer_caller", NULL, NULL, 3);
    uint32_t target = add(&p, "by_pointer", NULL, NULL, 7);
    call(&p, direct, leaf, 30); /* inlined: direct_caller's code does not refer to leaf */
    call(&p, other, leaf, 10);  /* a real call, from another object, by name */
    call(&p, leaf, deep, 80);
    call(&p, direct, callee, 5);
    call(&p, direct, ext, 2);
    call(&p, pointer, target, 7); /* through a table: the address is taken in data */
    lg_profile_finish_edges(&p);
    lg_bind_input_t in = {&p, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, &d), LG_OK);
    assert_true(find(&prog, "direct_caller", NULL)->flags & LG_FN_REFS_KNOWN);
    assert_true(find(&prog, "by_pointer", NULL)->flags & LG_FN_ADDRESS_TAKEN);
    assert_true(find(&prog, "extern_fn", NULL)->flags & LG_FN_ADDRESS_TAKEN); /* by name */
    assert_false(find(&prog, "leaf", NULL)->flags & LG_FN_ADDRESS_TAKEN);
    assert_true(find(&prog, "taken_in_code", NULL)->flags & LG_FN_ADDRESS_TAKEN); /* in code */
    /* leaf's out-of-line copy ran for a quarter of its calls. */
    assert_int_equal(hits_of(&prog, "leaf"), 100);
    assert_int_equal(arc_weight(&prog, "direct_caller", "leaf"), 0);
    assert_int_equal(arc_weight(&prog, "other_caller", "leaf"), 10);
    /* leaf's 80 calls of deep: 20 from its own copy, 60 from the copy inside direct_caller. */
    assert_int_equal(arc_weight(&prog, "leaf", "deep"), 20);
    assert_int_equal(arc_weight(&prog, "direct_caller", "deep"), 60);
    assert_int_equal(hits_of(&prog, "deep"), 80);
    assert_int_equal(arc_weight(&prog, "direct_caller", "callee"), 5);
    assert_int_equal(arc_weight(&prog, "direct_caller", "extern_fn"), 2);
    assert_int_equal(arc_weight(&prog, "pointer_caller", "by_pointer"), 7);
    assert_int_equal(prog.narcs, 6);
    assert_true(lg_test_diag_has(&d, LG_NOTE, "calls this build inlined"));
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
    lg_profile_destroy(&p);
    lg_elfsyms_destroy(&elf);
}

/* On SH-4 a call loads the callee's address from a constant pool (R_SH_DIR32), as taking the
 * address would: the objects do not tell them apart. A function that ran and refers to callee
 * without calling it may then hold callee's address, so a call into callee from code that does
 * not name it is taken as made through a pointer, not as inlined. On x86-64 the opcode tells
 * direct_caller's reference is a call, so the same profile says inlined. */
static void test_a_reference_never_called_keeps_calls_real(void **state)
{
    (void)state;
    static const struct {
        const char *objects[3];
        bool branches_known;
    } builds[] = {{{"refs-sh.o", "refs_other-sh.o", NULL}, false},
                  {{"refs.o", "refs_other.o", NULL}, true}};
    for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++) {
        lg_elfsyms_t elf;
        read_elf(&elf, builds[b].objects);
        for (int referrer_calls = 0; referrer_calls <= 1; referrer_calls++) {
            lg_profile_t p;
            lg_profile_init(&p);
            p.has_call_edges = true;
            uint32_t direct = add(&p, "direct_caller", NULL, NULL, 10);
            uint32_t pointer = add(&p, "pointer_caller", NULL, NULL, 3);
            uint32_t callee = add(&p, "callee", NULL, NULL, 8);
            uint32_t other = add(&p, "other_caller", NULL, NULL, 1);
            uint32_t leaf = add(&p, "leaf", NULL, NULL, 2), deep = add(&p, "deep", NULL, NULL, 2);
            call(&p, pointer, callee, 4);
            call(&p, other, leaf, 2); /* real calls, so that one inlined arc is a minority */
            call(&p, leaf, deep, 2);
            call(&p, direct, deep, 1);
            if (referrer_calls)
                call(&p, direct, callee, 4);
            lg_profile_finish_edges(&p);
            lg_bind_input_t in = {&p, 1.0};
            lg_program_t prog;
            lg_program_init(&prog);
            assert_int_equal(lg_bind(&in, 1, &elf, &prog, NULL), LG_OK);
            bool inlined = referrer_calls || builds[b].branches_known;
            assert_int_equal(arc_weight(&prog, "pointer_caller", "callee"), inlined ? 0 : 4);
            assert_int_equal(hits_of(&prog, "callee"), !inlined ? 8 : referrer_calls ? 4 : 0);
            lg_program_destroy(&prog);
            lg_profile_destroy(&p);
        }
        lg_elfsyms_destroy(&elf);
    }
}

/* Code that shares its section (refs_other.c built without -ffunction-sections: extern_fn and
 * other_caller in one .text) calls leaf: the call is the group's, recorded from the section's
 * first function, and neither function claims to know its references. */
static void test_calls_of_a_shared_section_are_the_groups(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"refs.o", "refs_other-shared.o", NULL});
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(NULL, 0, &elf, &prog, NULL), LG_OK);
    const lg_fn_t *ext = find(&prog, "extern_fn", NULL), *other = find(&prog, "other_caller", NULL);
    assert_true(ext->flags & LG_FN_SHARED_SECTION);
    assert_false((ext->flags | other->flags) & LG_FN_REFS_KNOWN);
    uint32_t first = (uint32_t)(ext < other ? ext - prog.fns : other - prog.fns);
    size_t to_leaf = 0;
    for (size_t i = 0; i < prog.nrefs; i++)
        if (strcmp(prog.fns[prog.refs[i].callee].symbol, "leaf") == 0) {
            assert_int_equal(prog.refs[i].caller, prog.fns[first].family);
            assert_int_equal(prog.refs[i].weight, 0);
            to_leaf++;
        }
    assert_int_equal(to_leaf, 1);
    lg_program_destroy(&prog);
    lg_elfsyms_destroy(&elf);
}

/* A call to a function GCC split (ipa-split) goes to its clone split_me.part.0: the profile of
 * another build says split_me, and the clone is of split_me's family, so the call is real. */
static void test_calls_to_a_clone_are_calls_of_its_family(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"refs_split.o", NULL});
    lg_profile_t p;
    lg_profile_init(&p);
    p.has_call_edges = true;
    uint32_t user = add(&p, "split_user", NULL, NULL, 10);
    uint32_t split = add(&p, "split_me", NULL, NULL, 30);
    call(&p, user, split, 30);
    lg_profile_finish_edges(&p);
    lg_bind_input_t in = {&p, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, NULL), LG_OK);
    const lg_fn_t *part = find(&prog, "split_me.part.0", NULL); /* GCC still splits it */
    const lg_fn_t *whole = find(&prog, "split_me", NULL);
    assert_int_equal(part->family, whole->family);
    assert_true(find(&prog, "split_user", NULL)->flags & LG_FN_REFS_KNOWN);
    assert_int_equal(arc_weight(&prog, "split_user", "split_me"), 30);
    assert_int_equal(whole->hits, 30);
    lg_program_destroy(&prog);
    lg_profile_destroy(&p);
    lg_elfsyms_destroy(&elf);
}

static void test_normalize_scales_to_the_largest_volume(void **state)
{
    (void)state;
    lg_profile_t big, small, empty;
    lg_profile_init(&big);
    lg_profile_init(&small);
    lg_profile_init(&empty);
    add(&big, "a", NULL, NULL, 60);
    add(&big, "b", NULL, NULL, 40);
    uint32_t x = add(&small, "a", NULL, NULL, 0), y = add(&small, "b", NULL, NULL, 0);
    /* No hits: the volume is the call weight. */
    assert_int_equal(lg_profile_add_edge(&small, x, y, 25), LG_OK);
    assert_int_equal(lg_profile_volume(&big), 100);
    assert_int_equal(lg_profile_volume(&small), 25);
    lg_bind_input_t in[] = {{&big, 2.0}, {&small, 1.0}, {&empty, 1.0}};
    lg_bind_normalize(in, 3);
    assert_true(in[0].scale == 2.0); /* the largest keeps its weight */
    assert_true(in[1].scale == 4.0); /* 100 / 25 */
    assert_true(in[2].scale == 1.0); /* nothing to scale */
    lg_profile_destroy(&big);
    lg_profile_destroy(&small);
    lg_profile_destroy(&empty);
}

static void test_clone_base_names(void **state)
{
    (void)state;
    assert_int_equal(lg_clone_base_len("foo"), 3);
    assert_int_equal(lg_clone_base_len("foo.constprop.0"), 3);
    assert_int_equal(lg_clone_base_len("foo.isra.12.constprop.3"), 3);
    assert_int_equal(lg_clone_base_len("foo.part.0.cold"), 3);
    assert_int_equal(lg_clone_base_len("foo.lto_priv.0"), 3);
    assert_int_equal(lg_clone_base_len("foo.constprop."), 14); /* no number: not a clone */
    assert_int_equal(lg_clone_base_len("foo.coldx"), 9);
    assert_int_equal(lg_clone_base_len(".cold"), 5);
}

/* The linker turns hidden and internal globals into locals of the program, filed under no
 * source file: they still come from their object, with its section, and can move. */
static void test_hidden_globals_bind_to_their_objects(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"hidden", "hidden.o", NULL});
    lg_profile_t p;
    lg_profile_init(&p);
    p.has_call_edges = true;
    uint32_t step = add(&p, "internal_step", NULL, NULL, 10);
    uint32_t hidden = add(&p, "hidden_step", NULL, NULL, 10);
    assert_int_equal(lg_profile_add_edge(&p, step, hidden, 10), LG_OK);
    lg_profile_finish_edges(&p);
    lg_bind_input_t in[] = {{&p, 1.0}};
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(in, 1, &elf, &prog, NULL), LG_OK);
    const char *names[] = {"hidden_step", "internal_step"};
    for (size_t i = 0; i < 2; i++) {
        const lg_fn_t *fn = find(&prog, names[i], NULL);
        char section[64];
        snprintf(section, sizeof section, ".text.%s", names[i]);
        assert_string_equal(fn->section, section);
        assert_non_null(fn->object);
        assert_non_null(strstr(fn->object, "hidden.o"));
        assert_true(lg_fn_movable(fn));
        assert_int_equal(fn->hits, 10);
        assert_true(fn->address != UINT64_MAX);
    }
    assert_int_equal(arc_weight(&prog, "internal_step", "hidden_step"), 10);
    lg_program_destroy(&prog);
    lg_profile_destroy(&p);
    lg_elfsyms_destroy(&elf);
}

/* A static program linked by lld is read as GNU ld's would be: its hidden global hid, which
 * lld made STB_LOCAL, is the global of its object; the static lonely of an object without an
 * STT_FILE, which lld filed under lld_main.c, is nofile.o's and named by it; the IFUNC picked,
 * which lld moved to its PLT entry, is no function, and its resolver answers to that name. */
static void test_lld_static_program_binds_as_gnu_lds(void **state)
{
    (void)state;
    FILE *probe = fopen(WORK "/lld_prog", "rb");
    if (probe == NULL)
        skip(); /* lld or the static C library is not installed */
    fclose(probe);
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"lld_prog", "lld_main.o", "nofile.o", NULL});
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(NULL, 0, &elf, &prog, NULL), LG_OK);
    const lg_fn_t *hid = find(&prog, "hid", NULL);
    assert_false(hid->flags & LG_FN_LOCAL);
    assert_null(hid->source_file);
    assert_string_equal(hid->section, ".text.hid");
    assert_non_null(strstr(hid->object, "lld_main.o"));
    const lg_fn_t *lonely = find(&prog, "lonely", NULL);
    assert_non_null(lonely->object);
    assert_non_null(strstr(lonely->object, "nofile.o"));
    assert_string_equal(lonely->source_file, "nofile.o");
    assert_int_equal(lg_program_find(&prog, "picked"), -1);
    int64_t resolver = lg_program_find(&prog, "resolve_pick");
    assert_true(resolver >= 0);
    assert_string_equal(prog.fns[resolver].section, ".text.resolve_pick");
    bool aliased = false;
    for (size_t i = 0; i < prog.naliases; i++)
        aliased |= strcmp(prog.aliases[i].name, "picked") == 0 &&
                   prog.aliases[i].fn == (uint32_t)resolver;
    assert_true(aliased);
    lg_program_destroy(&prog);
    lg_elfsyms_destroy(&elf);

    /* Two such objects, each with its lonely of one size: nothing tells which is which. */
    read_elf(&elf, (const char *const[]){"lld_prog2", "lld_main.o", "nofile.o", "nofile2.o", NULL});
    lg_program_init(&prog);
    assert_int_equal(lg_bind(NULL, 0, &elf, &prog, NULL), LG_OK);
    size_t lonelies = 0;
    for (size_t i = 0; i < prog.nfns; i++)
        if (strcmp(prog.fns[i].symbol, "lonely") == 0) {
            lonelies++;
            assert_null(prog.fns[i].object);
            assert_true(prog.fns[i].flags & LG_FN_SECTION_UNKNOWN);
        }
    assert_int_equal(lonelies, 2);
    lg_program_destroy(&prog);
    lg_elfsyms_destroy(&elf);
}

/* A stripped program with its objects: the objects name every function and its section; the
 * binder says the program was stripped and works from the objects. */
static void test_stripped_program_with_objects(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog-stripped", "a.o", "b.o", NULL});
    lg_profile_t p;
    sample_profile(&p);
    lg_bind_input_t in[] = {{&p, 1.0}};
    lg_program_t prog;
    lg_program_init(&prog);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_bind(in, 1, &elf, &prog, &d), LG_OK);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "no function symbols (stripped)"));
    const lg_fn_t *scale = find(&prog, "scale.constprop.0", NULL);
    assert_string_equal(scale->section, ".text.scale.constprop.0");
    assert_int_equal(scale->address, UINT64_MAX);
    assert_true(lg_fn_movable(scale));
    lg_program_destroy(&prog);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
    lg_elfsyms_destroy(&elf);
}

static void test_no_functions_is_an_error(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    lg_elfsyms_init(&elf);
    lg_program_t prog;
    lg_program_init(&prog);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_bind(NULL, 0, &elf, &prog, &d), LG_EUNSUPPORTED);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "define no function symbols"));
    assert_int_equal(prog.nfns, 0);
    lg_program_destroy(&prog);
    lg_elfsyms_destroy(&elf);
    lg_diag_destroy(&d);
}

/* Objects given, but not c.o: c_one and c_two are in the program and no object defines them.
 * With most hits there, lorgen says so in a warning with the share and the hottest. */
static void test_functions_no_object_defines_are_a_warning(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog", "a.o", "b.o", NULL});
    lg_profile_t prof;
    lg_profile_init(&prof);
    add(&prof, "c_one", NULL, NULL, 2000000);
    add(&prof, "c_two", NULL, NULL, 500000);
    add(&prof, "a_entry", NULL, NULL, 500000);
    lg_bind_input_t in = {&prof, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, &d), LG_OK);
    /* c_one and c_alias are one function, named by the first name in order. */
    assert_true(find(&prog, "c_alias", NULL)->flags & LG_FN_SECTION_UNKNOWN);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "83.3% of the profile's hits (2500000 of 3000000)"
                                                 " are in 2 function(s) that none of the object "
                                                 "files given defines, the hottest 'c_alias'"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "Give the archives or objects"));
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);

    /* With every object given there is nothing to say. */
    lg_elfsyms_destroy(&elf);
    read_elf(&elf, (const char *const[]){"prog", "a.o", "b.o", "c.o", NULL});
    lg_program_init(&prog);
    lg_diag_init(&d);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, &d), LG_OK);
    assert_false(lg_test_diag_has(&d, LG_WARNING, "none of the object files"));
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
    lg_profile_destroy(&prof);
    lg_elfsyms_destroy(&elf);
}

/* A profiled function in a shared object is said to be there, not guessed "inlined"; one in the
 * program that has no symbol keeps that guess; one with no object says the profile did not say. */
static void test_shared_library_functions_are_named_by_their_object(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog", NULL});
    lg_profile_t prof;
    lg_profile_init(&prof);
    prof.cost_positions = LG_POS_ADDRESS;
    uint32_t fr = add(&prof, "free", NULL, NULL, 300);
    assert_int_equal(lg_profile_set_object(&prof, fr, "/lib/x86_64-linux-gnu/libc.so.6"), LG_OK);
    uint32_t vd = add(&prof, "__vdso_clock_gettime", NULL, NULL, 5);
    assert_int_equal(lg_profile_set_object(&prof, vd, "[vdso]"), LG_OK);
    uint32_t in_prog = add(&prof, "inlined_here", NULL, NULL, 7);
    assert_int_equal(lg_profile_set_object(&prof, in_prog, "/build/prog"), LG_OK);
    uint32_t other = add(&prof, "elsewhere", NULL, NULL, 3);
    assert_int_equal(lg_profile_set_object(&prof, other, "/usr/bin/date"), LG_OK);
    add(&prof, "a_entry", NULL, NULL, 100);
    assert_int_equal(lg_profile_add_cost(&prof, fr, 0x7f0000001000, 553), LG_OK);
    lg_bind_input_t in = {&prof, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, &d), LG_OK);
    assert_string_equal(find_unbound(&prog, "free")->reason,
                        "in libc.so.6, a shared object, not in the program: lorgen cannot move it");
    assert_string_equal(find_unbound(&prog, "__vdso_clock_gettime")->reason,
                        "in [vdso], outside any file, not in the program: lorgen cannot move it");
    assert_string_equal(find_unbound(&prog, "inlined_here")->reason,
                        "no function symbol of that name in prog (inlined, or another build "
                        "profiled?)");
    assert_non_null(strstr(find_unbound(&prog, "elsewhere")->reason,
                           "profiled in date, which is none of the ELF inputs"));
    assert_true(lg_test_diag_has(&d, LG_NOTE, "2 profiled function(s) (73.5% of the hits) are "
                                              "code outside the program"));
    assert_true(lg_test_diag_has(&d, LG_NOTE, "cost 553 is code outside the program (shared "
                                              "objects; the costliest position in libc.so.6)"));
    assert_false(lg_test_diag_has(&d, LG_NOTE, "falls outside its function's symbol"));
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
    lg_profile_destroy(&prof);
    lg_elfsyms_destroy(&elf);
}

/* A profile without debug information keeps same-named statics as one function: its address
 * binds it to one of them, and the positions in the other are said to be that, not another
 * build (the demo's callgrind profile: two skip_space, "another build profiled?"). */
static void test_positions_in_a_same_named_static_are_said_to_be_so(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog", NULL});
    uint64_t at[2] = {0, 0};
    size_t n = 0;
    for (size_t i = 0; i < elf.nsyms; i++)
        if (strcmp(elf.syms[i].name, "helper") == 0 && n < 2)
            at[n++] = elf.syms[i].value;
    assert_int_equal(n, 2);
    lg_profile_t prof;
    lg_profile_init(&prof);
    prof.cost_positions = LG_POS_ADDRESS;
    uint32_t merged = add(&prof, "helper", NULL, NULL, 10);
    prof.funcs[merged].pc_min = at[0] < at[1] ? at[0] : at[1];
    prof.funcs[merged].pc_max = at[0] < at[1] ? at[1] : at[0];
    assert_int_equal(lg_profile_add_cost(&prof, merged, at[0], 40), LG_OK);
    assert_int_equal(lg_profile_add_cost(&prof, merged, at[1], 60), LG_OK);
    lg_bind_input_t in = {&prof, 1.0};
    lg_program_t prog;
    lg_program_init(&prog);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_bind(&in, 1, &elf, &prog, &d), LG_OK);
    assert_true(lg_test_diag_has(&d, LG_NOTE, "1 of 2 per-position costs (cost "));
    assert_true(lg_test_diag_has(&d, LG_NOTE,
                                 "falls outside the function it bound to, whose "
                                 "name other functions share (same-named statics "
                                 "the profile does not tell apart)"));
    assert_false(lg_test_diag_has(&d, LG_NOTE, "falls outside its function's symbol"));
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
    lg_profile_destroy(&prof);
    lg_elfsyms_destroy(&elf);
}

/* The address of symbol name in the linked program. */
static uint64_t address_of(const lg_elfsyms_t *elf, const char *name)
{
    for (size_t i = 0; i < elf->nsyms; i++)
        if (strcmp(elf->syms[i].name, name) == 0)
            return elf->syms[i].value;
    print_message("no symbol %s\n", name);
    fail();
    return 0;
}

/* Jumps of two profiles bind to offsets in a_entry and are summed after scaling; a jump from
 * a_entry into main is dropped. */
static void test_jumps_of_two_profiles_are_summed(void **state)
{
    (void)state;
    lg_elfsyms_t elf;
    read_elf(&elf, (const char *const[]){"prog", NULL});
    uint64_t a = address_of(&elf, "a_entry"), m = address_of(&elf, "main");
    lg_profile_t prof[2];
    for (int k = 0; k < 2; k++) {
        lg_profile_init(&prof[k]);
        prof[k].cost_positions = LG_POS_ADDRESS;
        uint32_t id = add(&prof[k], "a_entry", NULL, NULL, 1);
        assert_int_equal(lg_profile_add_cost(&prof[k], id, a, 10), LG_OK);
        assert_int_equal(lg_profile_add_jump(&prof[k], id, a + 4, a, 3), LG_OK);
        assert_int_equal(lg_profile_add_jump(&prof[k], id, a + 4, m, 8), LG_OK);
    }
    lg_bind_input_t in[] = {{&prof[0], 1.0}, {&prof[1], 2.0}};
    lg_program_t prog;
    lg_program_init(&prog);
    assert_int_equal(lg_bind(in, 2, &elf, &prog, NULL), LG_OK);
    const lg_fn_t *f = find(&prog, "a_entry", NULL);
    assert_true(f->size > 4);
    assert_int_equal(prog.nhotjumps, 1);
    assert_int_equal(prog.hotjumps[0].fn, (uint32_t)(f - prog.fns));
    assert_int_equal(prog.hotjumps[0].from, 4);
    assert_int_equal(prog.hotjumps[0].to, 0);
    assert_int_equal(prog.hotjumps[0].count, 3 + 2 * 3);
    lg_program_destroy(&prog);
    lg_profile_destroy(&prof[0]);
    lg_profile_destroy(&prof[1]);
    lg_elfsyms_destroy(&elf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binds_names_by_every_rule),
        cmocka_unit_test(test_linked_only_infers_sections),
        cmocka_unit_test(test_objects_only_and_merged_profiles),
        cmocka_unit_test(test_calls_of_inlined_functions_go_to_their_callers),
        cmocka_unit_test(test_calls_this_build_inlined_are_no_arcs),
        cmocka_unit_test(test_a_reference_never_called_keeps_calls_real),
        cmocka_unit_test(test_calls_to_a_clone_are_calls_of_its_family),
        cmocka_unit_test(test_calls_of_a_shared_section_are_the_groups),
        cmocka_unit_test(test_normalize_scales_to_the_largest_volume),
        cmocka_unit_test(test_clone_base_names),
        cmocka_unit_test(test_hidden_globals_bind_to_their_objects),
        cmocka_unit_test(test_lld_static_program_binds_as_gnu_lds),
        cmocka_unit_test(test_stripped_program_with_objects),
        cmocka_unit_test(test_no_functions_is_an_error),
        cmocka_unit_test(test_functions_no_object_defines_are_a_warning),
        cmocka_unit_test(test_shared_library_functions_are_named_by_their_object),
        cmocka_unit_test(test_positions_in_a_same_named_static_are_said_to_be_so),
        cmocka_unit_test(test_jumps_of_two_profiles_are_summed),
    };
    return cmocka_run_group_tests(tests, build_fixtures, NULL);
}
