/* test_callgrind.c - the callgrind profile reader.
 *
 * Expected values come from reading the files, not from the reader: the three real samples
 * (tests/fixtures/samples, see the README there) are checked at calls= and cost lines named by
 * their line numbers, and the hand-written fixture tests/fixtures/callgrind/compressed.callgrind
 * is worked through line by line in test_compressed_fixture. Malformed inputs are small strings,
 * each checked for the exact "PATH:LINE" of its error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "callgrind.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES LORGEN_SOURCE_DIR "/tests/fixtures/samples/"
#define FIXTURES LORGEN_SOURCE_DIR "/tests/fixtures/callgrind/"
/* Name the in-memory inputs carry in diagnostics. */
#define MEM_PATH "t.callgrind"

static void load_file(lg_test_loaded_t *r, const char *path)
{
    lg_test_load_file(r, lg_callgrind_read, path, NULL);
}

/* Loads size bytes of text; no bytes as an empty file. */
static void load_bytes(lg_test_loaded_t *r, const char *data, size_t size)
{
    if (size == 0)
        load_file(r, lg_test_write_file("empty.callgrind", "", 0));
    else
        lg_test_load_bytes(r, lg_callgrind_read, data, size, MEM_PATH, NULL);
}

static void load_text(lg_test_loaded_t *r, const char *text)
{
    load_bytes(r, text, strlen(text));
}

/* The load failed with err and exactly one error whose "where: message" contains needle. */
static void assert_fails(const lg_test_loaded_t *r, lg_err_t err, const char *needle)
{
    lg_test_assert_one_error_has(r->err, &r->d, err, needle);
    lg_test_assert_profile_empty(&r->p);
}

/* The weight of caller -> callee, or -1 when there is no such edge. */
static int64_t edge(const lg_profile_t *p, const char *caller, const char *caller_qual,
                    const char *callee, const char *callee_qual)
{
    return lg_test_edge_weight(p, lg_profile_find(p, caller, NULL, caller_qual),
                               lg_profile_find(p, callee, NULL, callee_qual));
}

static size_t costs_of(const lg_profile_t *p, const lg_pfunc_t *f)
{
    uint32_t id = (uint32_t)(f - p->funcs);
    size_t n = 0;
    for (size_t i = 0; i < p->ncosts; i++)
        n += p->costs[i].func == id;
    return n;
}

static uint64_t sum_self(const lg_profile_t *p)
{
    uint64_t s = 0;
    for (size_t i = 0; i < p->nfuncs; i++)
        s += p->funcs[i].counter1_self;
    return s;
}

/* Edges are sorted by (caller, callee) and unique. */
static void assert_edges_finished(const lg_profile_t *p)
{
    for (size_t i = 1; i < p->nedges; i++) {
        const lg_arc_t *a = &p->edges[i - 1], *b = &p->edges[i];
        assert_true(a->caller < b->caller || (a->caller == b->caller && a->callee < b->callee));
    }
}

/* Jump i of p is (function name, from, to, count); prints what it is first when not. */
static void assert_jump(const lg_profile_t *p, size_t i, const char *name, uint64_t from,
                        uint64_t to, uint64_t count)
{
    assert_true(i < p->njumps);
    const lg_pjump_t *j = &p->jumps[i];
    assert_true(j->func < p->nfuncs);
    if (strcmp(p->funcs[j->func].name, name) != 0 || j->from != from || j->to != to ||
        j->count != count)
        print_message("jump %zu is %s 0x%" PRIx64 " -> 0x%" PRIx64 " x%" PRIu64 "\n", i,
                      p->funcs[j->func].name, j->from, j->to, j->count);
    assert_string_equal(p->funcs[j->func].name, name);
    assert_int_equal(j->from, from);
    assert_int_equal(j->to, to);
    assert_int_equal(j->count, count);
}

/* ---- The real samples -------------------------------------------------------------------- */

#define LIBC217 "/usr/lib64/libc-2.17.so"

/* callgrind 3.19, positions: line, every line 0 (no debug information): all files are "???",
 * so functions are qualified by their object. */
static void test_sample_test1(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, SAMPLES "callgrind_test1.callgrind");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_string_equal(p->format, "callgrind");
    assert_int_equal(p->kind, LG_PROFILE_TRACE);
    assert_true(p->has_call_edges);
    assert_string_equal(p->counter1_unit, "Ir");
    /* grep -c '^calls=' */
    assert_int_equal(p->call_records, 420);
    /* Self costs add up to "summary: 610235" (line 18). */
    assert_int_equal(sum_self(p), 610235);
    /* Only line 0: no per-line costs. */
    assert_int_equal(p->cost_positions, LG_POS_NONE);
    assert_int_equal(p->ncosts, 0);
    assert_edges_finished(p);

    /* fn=(442) __tzfile_read (line 675, ob=(3) libc from line 382) calls fread_unlocked at
     * lines 699, 703, 716, 720 and 745, each calls=1. */
    assert_int_equal(edge(p, "__tzfile_read", LIBC217, "fread_unlocked", LIBC217), 5);
    /* ... and __tzstring at lines 733 (calls=1), 737 (calls=10) and 741 (calls=2). */
    assert_int_equal(edge(p, "__tzfile_read", LIBC217, "__tzstring", LIBC217), 13);
    /* fn=(532) __tzfile_compute (line 914) calls __tzstring at lines 917 and 921, calls=1 each;
     * nothing else calls it, so its hits are 13 + 2. */
    assert_int_equal(edge(p, "__tzfile_compute", LIBC217, "__tzstring", LIBC217), 2);
    assert_int_equal(lg_test_func(p, "__tzstring", LIBC217)->hits, 15);
    /* fread_unlocked, fn=(468) at line 1289: self "0 90" (1290) and "0 20" (1294); its one call
     * (1292, calls=5) costs 1144 inclusive (1293). */
    const lg_pfunc_t *fr = lg_test_func(p, "fread_unlocked", LIBC217);
    assert_int_equal(fr->hits, 5);
    assert_int_equal(fr->counter1_self, 110);
    assert_int_equal(fr->counter1_total, 110 + 1144);
    assert_int_equal(edge(p, "fread_unlocked", LIBC217, "_IO_sgetn", LIBC217), 5);
    /* __tzfile_read is called once (line 1105) at an inclusive cost of 9335 (line 1106). */
    const lg_pfunc_t *tz = lg_test_func(p, "__tzfile_read", LIBC217);
    assert_int_equal(tz->hits, 1);
    assert_int_equal(tz->counter1_total, 9335);
    /* Functions without symbols keep callgrind's address names; "malloc'2" (line 599) is the
     * recursive activation of malloc, so no name keeps a suffix. */
    lg_test_func(p, "0x00000000004022f0", "/usr/bin/date");
    assert_true(lg_profile_find(p, "malloc'2", NULL, LIBC217) < 0);
    for (size_t i = 0; i < p->nfuncs; i++)
        assert_null(strchr(p->funcs[i].name, '\''));
    lg_test_loaded_destroy(&r);
}

#define DL_LOAD "/build/glibc-mXZSwJ/glibc-2.24/elf/dl-load.c"
#define DL_OBJECT "/build/glibc-mXZSwJ/glibc-2.24/elf/dl-object.c"
#define VAL3 "/home/jfonseca/projects/gprof2dot/tests/src/val3"
#define MMAP_C "/build/glibc-mXZSwJ/glibc-2.24/misc/../sysdeps/unix/sysv/linux/wordsize-64/mmap.c"

/* callgrind 3.13, positions: line, fi=/fe= inlined files, relative line numbers. */
static void test_sample_issue35(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, SAMPLES "callgrind_issue35.callgrind");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_int_equal(p->call_records, 302);
    assert_int_equal(sum_self(p), UINT64_C(9600070538)); /* summary: (line 18) */
    assert_int_equal(p->cost_positions, LG_POS_LINE);
    assert_edges_finished(p);

    /* fn=(118) _dl_map_object_from_fd, lines 931-1262, in fl=(22) dl-load.c (line 766):
     * mmap (cfn=(74)) at lines 1088 (calls=2), 1241 (calls=2) and 1257 (calls=1). */
    assert_int_equal(edge(p, "_dl_map_object_from_fd", DL_LOAD, "mmap", MMAP_C), 5);
    /* _dl_new_object, cfi=(15) dl-object.c: line 975, calls=2. */
    assert_int_equal(edge(p, "_dl_map_object_from_fd", DL_LOAD, "_dl_new_object", DL_OBJECT), 2);
    /* Per-line self cost in the function's own file, relative lines resolved:
     *   932 "871 22", 933 "+10 2" (881), 934 "-10 2" (871), 935 "+10 2" (881), 936 "-10 6"
     *   (871), 937 "+10 2" (881); 941 "* 16" is a call's inclusive cost, not self cost; 945
     *   "881 2" after fe=; 955 "897 2" and 960 "897 29" after fe=.
     * Lines in fi=(35) dl-fileid.h (943 "37 6", 947, 952, 953, ...) are inlined code: they count
     * in the totals, not as lines of dl-load.c. */
    const lg_pfunc_t *f = lg_test_func(p, "_dl_map_object_from_fd", DL_LOAD);
    assert_int_equal(lg_test_cost_at(p, f, 871), 22 + 2 + 6);
    assert_int_equal(lg_test_cost_at(p, f, 881), 2 + 2 + 2 + 2);
    assert_int_equal(lg_test_cost_at(p, f, 897), 2 + 29);
    assert_int_equal(lg_test_cost_at(p, f, 37), -1);
    assert_int_equal(f->hits, 2);

    /* Recursion (ob=(5) val3, fl=(64) "???": qualified by the object). main (4239) calls cycfn2
     * at 4242; cycfn2 (fn=(284), 4252) calls cycfn1 at 4255; "fn=(285) cycfn2'2" (4259), the
     * second recursion level of cycfn2, calls "cycfn1'2" at 4262; cycfn1 (4266) calls cycfn2'2
     * at 4269. All calls=1. The '2 levels merge into their functions. */
    assert_true(lg_profile_find(p, "cycfn2'2", NULL, VAL3) < 0);
    assert_int_equal(edge(p, "main", VAL3, "cycfn2", VAL3), 1);
    assert_int_equal(edge(p, "cycfn2", VAL3, "cycfn1", VAL3), 1 + 1);
    assert_int_equal(edge(p, "cycfn1", VAL3, "cycfn2", VAL3), 1);
    const lg_pfunc_t *c2 = lg_test_func(p, "cycfn2", VAL3);
    assert_int_equal(c2->hits, 2);
    /* self: 4253, 4257, 4260, 4264 */
    assert_int_equal(c2->counter1_self, UINT64_C(2400000012) + 799934642 + 2400000012 + 799970658);
    lg_test_loaded_destroy(&r);
}

#define LIBQPOL "/home/mowery/lib/libqpol.so.2"

/* callgrind 0.10.1: subposition compression (+N, -N, *) and relative calls= targets. */
static void test_sample_selinux(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, SAMPLES "callgrind_selinux.callgrind");
    assert_int_equal(r.err, LG_OK);
    /* cob=(8) (line 632) refers to an object id the file never defines: a warning, no error. */
    assert_int_equal(r.d.errors, 0);
    assert_int_equal(r.d.warnings, 1);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, "callgrind_selinux.callgrind:632: 1 object id"));
    const lg_profile_t *p = &r.p;
    assert_int_equal(p->call_records, 2564);
    assert_int_equal(sum_self(p), UINT64_C(95507934985)); /* summary: (line 17) */
    assert_int_equal(p->cost_positions, LG_POS_LINE);

    /* fn=(1428) qpol_policy_get_terule_iter, lines 583-620, fl=(30) terule_query.c. Its calls=
     * targets are relative (587 "-37", 599 "-58", 610 "-3"); were they applied, every line after
     * them would move. Walking the cost lines:
     *   584 "37 20"     37: 20        590 "+4 8"   41: 8        601 "* 4"    58: +4
     *   588 "* 8"       call site     591 "+1 8"   42: 8        602 "+1 8"   59: 8
     *   589 "* 4"       37: +4        592 "+2 16"  44: 16       603..607     64 65 66 67 69
     *   593 "+6 16"     50: 16        594 "+6 12"  56: 12       595 "+2 12"  58: 12
     *   600 "* 564"     call site     611 "* 852"  call site    612 "* 8"    69: +8
     *   613 "+5 52"     74: 52        614 "+1 16"  75: 16       618 call site, 619 "+2 8" 77,
     *   620 "+1 16"     78: 16 */
    const lg_pfunc_t *f = lg_test_func(p, "qpol_policy_get_terule_iter", "terule_query.c");
    assert_int_equal(lg_test_cost_at(p, f, 37), 24);
    assert_int_equal(lg_test_cost_at(p, f, 41), 8);
    assert_int_equal(lg_test_cost_at(p, f, 58), 16);
    assert_int_equal(lg_test_cost_at(p, f, 69), 76);
    assert_int_equal(lg_test_cost_at(p, f, 74), 52);
    assert_int_equal(lg_test_cost_at(p, f, 77), 8);
    assert_int_equal(lg_test_cost_at(p, f, 78), 16);
    assert_int_equal(costs_of(p, f), 17);
    assert_int_equal(f->counter1_self, 340);
    /* + inclusive costs 8 (588), 564 (600), 852 (611) and 143700531 (618) */
    assert_int_equal(f->counter1_total, 340 + 8 + 564 + 852 + UINT64_C(143700531));
    /* Calls at 587 (calls=4, cfi=(7) "???" in ob=(7): qualified by the object), 599 (calloc in
     * cob=(2) libc), 610 and 617. */
    assert_int_equal(
        edge(p, "qpol_policy_get_terule_iter", "terule_query.c", "0x00004397", LIBQPOL), 4);
    assert_int_equal(
        edge(p, "qpol_policy_get_terule_iter", "terule_query.c", "calloc", "/lib/libc-2.4.so"), 4);
    assert_int_equal(edge(p, "qpol_policy_get_terule_iter", "terule_query.c",
                          "qpol_iterator_create", "iterator.c"),
                     4);
    assert_int_equal(
        edge(p, "qpol_policy_get_terule_iter", "terule_query.c", "avtab_state_next", "iterator.c"),
        4);
    /* "fn=(1323) qpol_iterator_next'2" (line 5999) merges into qpol_iterator_next. */
    assert_true(lg_profile_find(p, "qpol_iterator_next'2", NULL, "iterator.c") < 0);
    lg_test_func(p, "qpol_iterator_next", "iterator.c");
    lg_test_loaded_destroy(&r);
}

/* ---- The hand-written fixture ------------------------------------------------------------ */

/* tests/fixtures/callgrind/compressed.callgrind, worked through by hand (line: effect):
 * Part 1, positions: instr line, events: Ir Dr.
 *   20 main 0x1000: Ir 3, Dr 1          21 "+4 *"   0x1004: 2
 *   22-24 callee puts: cob libc, cfi "???" -> qualified by its object
 *   25 calls=2, 26 "+4 11 40 4": call site 0x1008, inclusive Ir 40, Dr 4
 *   27 "* * 1"   0x1008: 1              28-31 helper (util.c), calls=1, 0x100a incl 30
 *   32 fi= inline.h: 33 "+6 100 5" 0x1010: 5, 34 "-2 -1 7" 0x100e: 7 (still main's code)
 *   35 fe=, 36 "+0x4 13 2" 0x1012: 2    37-40 jump/jcnd and their position lines: no cost
 *   41 "+2 * 1"  0x1014: 1              -> main self 21, Dr 1
 *   44-45 fl=(3) fn=(3): ids defined by cfi=/cfn= -> helper in util.c
 *   46 0x2000: 10; 47-49 cfn=(5) helper'2, calls=4, incl 25 (recursive: not in the total)
 *   50 0x2010: 5, Dr 1; 52-54 fn=(5) = helper'2 = helper: 0x2000 +20, 0x2010 +5
 *   57-60 ob=(2) fl=(2) fn=(2): puts in libc, 0x5000: 40, Dr 4
 * Part 2, events: Dr Ir (reordered: counters are found by name).
 *   70 "fn=(below main)" is a literal name; 71 0x0f00 Ir 1; 73-74 calls=2 main, Ir 200 Dr 10
 *   77 main 0x1000: +1; 80-81 calls=1 helper (util.c), incl Ir 15
 *   83-85 fl=(6) other.c fn=(3): a second helper, 0x3000: 9 */
static void check_compressed(const lg_test_loaded_t *r)
{
    lg_test_assert_loaded_clean(r);
    const lg_profile_t *p = &r->p;
    assert_int_equal(p->nfuncs, 5);
    assert_int_equal(p->call_records, 5);
    assert_int_equal(p->cost_positions, LG_POS_ADDRESS);
    assert_string_equal(p->counter1_unit, "Ir");
    assert_int_equal(p->total_hits, 0);

    const lg_pfunc_t *main_ = lg_test_func(p, "main", "main.c");
    assert_int_equal(main_->hits, 2);
    assert_int_equal(main_->counter1_self, 22);
    assert_int_equal(main_->counter1_total, 22 + 40 + 30 + 15);
    assert_int_equal(main_->counter2_self, 1);
    assert_int_equal(main_->counter2_total, 1 + 4);
    assert_int_equal(main_->pc_min, 0x1000);
    assert_int_equal(main_->pc_max, 0x1014);
    assert_null(main_->link_label);
    assert_int_equal(lg_test_cost_at(p, main_, 0x1000), 3 + 1);
    assert_int_equal(lg_test_cost_at(p, main_, 0x1004), 2);
    assert_int_equal(lg_test_cost_at(p, main_, 0x1008), 1);
    assert_int_equal(lg_test_cost_at(p, main_, 0x100a), -1); /* a call site only */
    assert_int_equal(lg_test_cost_at(p, main_, 0x100e), 7);
    assert_int_equal(lg_test_cost_at(p, main_, 0x1010), 5);
    assert_int_equal(lg_test_cost_at(p, main_, 0x1012), 2);
    assert_int_equal(lg_test_cost_at(p, main_, 0x1014), 1);
    assert_int_equal(costs_of(p, main_), 7);

    const lg_pfunc_t *puts_ = lg_test_func(p, "puts", "/lib/libc.so.6");
    assert_int_equal(puts_->hits, 2);
    assert_int_equal(puts_->counter1_self, 40);
    assert_int_equal(puts_->counter1_total, 40);
    assert_int_equal(puts_->counter2_self, 4);
    assert_int_equal(lg_test_cost_at(p, puts_, 0x5000), 40);

    const lg_pfunc_t *helper = lg_test_func(p, "helper", "util.c");
    assert_int_equal(helper->hits, 1 + 4 + 1);
    assert_int_equal(helper->counter1_self, 10 + 5 + 20 + 5);
    assert_int_equal(helper->counter1_total, 40);
    assert_int_equal(helper->counter2_self, 1);
    assert_int_equal(lg_test_cost_at(p, helper, 0x2000), 30);
    assert_int_equal(lg_test_cost_at(p, helper, 0x2010), 10);
    assert_int_equal(costs_of(p, helper), 2);

    const lg_pfunc_t *other = lg_test_func(p, "helper", "other.c");
    assert_int_equal(other->hits, 1); /* ran, no recorded caller */
    assert_int_equal(other->counter1_self, 9);
    assert_int_equal(lg_test_cost_at(p, other, 0x3000), 9);

    const lg_pfunc_t *below = lg_test_func(p, "(below main)", "main.c");
    assert_int_equal(below->hits, 1);
    assert_int_equal(below->counter1_self, 1);
    assert_int_equal(below->counter1_total, 201);
    assert_int_equal(below->counter2_total, 10);
    assert_int_equal(lg_test_cost_at(p, below, 0x0f00), 1);

    assert_int_equal(p->nedges, 4);
    assert_edges_finished(p);
    assert_int_equal(edge(p, "main", "main.c", "puts", "/lib/libc.so.6"), 2);
    assert_int_equal(edge(p, "main", "main.c", "helper", "util.c"), 1 + 1);
    assert_int_equal(edge(p, "helper", "util.c", "helper", "util.c"), 4);
    assert_int_equal(edge(p, "(below main)", "main.c", "main", "main.c"), 2);
    assert_int_equal(p->ncosts, 12);

    /* 37 "jump=3 +8 +1": target 0x1012 + 8; 38 "* *": the source, still 0x1012 (the target did
     * not move the columns on); 39 "jcnd=1/3 -4 *": 0x1012 - 4, taken once; 40 its source. */
    assert_int_equal(p->njumps, 2);
    assert_jump(p, 0, "main", 0x1012, 0x101a, 3);
    assert_jump(p, 1, "main", 0x1012, 0x100e, 1);
}

static void test_compressed_fixture(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, FIXTURES "compressed.callgrind");
    check_compressed(&r);
    assert_string_equal(r.p.path, FIXTURES "compressed.callgrind");
    lg_test_loaded_destroy(&r);
}

/* The same file with "\r\n" line ends, trailing blanks and a UTF-8 byte order mark. */
static void test_crlf_and_blanks(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = lg_test_read_file(FIXTURES "compressed.callgrind", &size);
    assert_non_null(data);
    char *text = malloc(3 + size * 4 + 1);
    assert_non_null(text);
    size_t n = 0;
    memcpy(text, "\xEF\xBB\xBF", 3);
    n = 3;
    for (size_t i = 0; i < size; i++) {
        if (data[i] == '\n') {
            memcpy(text + n, " \t\r\n", 4);
            n += 4;
        } else {
            text[n++] = (char)data[i];
        }
    }
    lg_test_loaded_t r;
    load_bytes(&r, text, n);
    check_compressed(&r);
    lg_test_loaded_destroy(&r);
    free(text);
    free(data);
}

/* Every prefix of the fixture, cut at every byte: loads or fails cleanly, never crashes. A cut
 * at a line boundary inside a calls= pair fails at the calls= line. */
static void test_every_truncation(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = lg_test_read_file(FIXTURES "compressed.callgrind", &size);
    assert_non_null(data);
    size_t lines = 0, failed = 0;
    for (size_t cut = 0; cut <= size; cut++) {
        lg_test_loaded_t r;
        load_bytes(&r, (const char *)data, cut);
        if (r.err != LG_OK) {
            failed++;
            assert_int_equal(r.err, LG_EFORMAT);
            assert_int_equal(r.d.errors, 1);
            lg_test_assert_profile_empty(&r.p);
        } else {
            assert_int_equal(r.d.errors, 0);
        }
        if (cut > 0 && data[cut - 1] == '\n') {
            lines++;
            /* After line 25 ("calls=2 0x5000 0") the file ends inside a call. */
            if (lines == 25)
                assert_true(lg_test_diag_has(
                    &r.d, LG_ERROR,
                    MEM_PATH ":25: expected a cost line after calls=, found the end of the file"));
            /* After line 37 ("jump=3 +8 +1") or 39 ("jcnd=1/3 -4 *") the file ends before the
             * jump's source position line. */
            if (lines == 37 || lines == 39) {
                char want[128];
                snprintf(want, sizeof want,
                         MEM_PATH ":%zu: expected the jump's source position line after %s=, "
                                  "found the end of the file",
                         lines, lines == 37 ? "jump" : "jcnd");
                assert_true(lg_test_diag_has(&r.d, LG_ERROR, want));
            }
            /* Before "events:" (line 13) there is nothing to read costs with. */
            if (lines < 13)
                assert_int_equal(r.err, LG_EFORMAT);
        }
        lg_test_loaded_destroy(&r);
    }
    assert_true(failed > 0);
    free(data);
}

/* ---- Semantics on small inputs ----------------------------------------------------------- */

/* The specification's extended example (three functions, default "positions: line"), written
 * with name compression. */
static void test_specification_example(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "events: Instructions\n"
                  "\n"
                  "fl=(1) file1.c\n"
                  "fn=(1) main\n"
                  "16 20\n"
                  "cfn=(2) func1\n"
                  "calls=1 50\n"
                  "16 400\n"
                  "cfl=(2) file2.c\n"
                  "cfn=(3) func2\n"
                  "calls=3 20\n"
                  "16 400\n"
                  "\n"
                  "fn=(2)\n"
                  "51 100\n"
                  "cfl=(2)\n"
                  "cfn=(3)\n"
                  "calls=2 20\n"
                  "51 300\n"
                  "\n"
                  "fl=(2)\n"
                  "fn=(3)\n"
                  "20 700\n");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_int_equal(p->nfuncs, 3);
    assert_int_equal(edge(p, "main", "file1.c", "func1", "file1.c"), 1);
    assert_int_equal(edge(p, "main", "file1.c", "func2", "file2.c"), 3);
    assert_int_equal(edge(p, "func1", "file1.c", "func2", "file2.c"), 2);
    const lg_pfunc_t *m = lg_test_func(p, "main", "file1.c");
    assert_int_equal(m->counter1_self, 20);
    assert_int_equal(m->counter1_total, 820); /* as the specification says */
    assert_int_equal(m->hits, 1);
    assert_int_equal(lg_test_func(p, "func2", "file2.c")->hits, 5);
    assert_int_equal(lg_test_func(p, "func2", "file2.c")->counter1_self, 700);
    assert_string_equal(p->counter1_unit, "Instructions");
    assert_int_equal(p->cost_positions, LG_POS_LINE);
    assert_int_equal(lg_test_cost_at(p, m, 16), 20);
    lg_test_loaded_destroy(&r);
}

/* Name ids may be defined before any cost line; no function is made for them. */
static void test_definitions_up_front(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "events: Ir\n"
                  "fl=(1) a.c\nfl=(2) b.c\nfn=(1) f\nfn=(2) g\n"
                  "fl=(1)\nfn=(1)\n1 5\ncfl=(2)\ncfn=(2)\ncalls=7 1\n1 70\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 2);
    assert_int_equal(edge(&r.p, "f", "a.c", "g", "b.c"), 7);
    assert_int_equal(lg_test_func(&r.p, "g", "b.c")->hits, 7);
    assert_int_equal(lg_test_func(&r.p, "g", "b.c")->counter1_self, 0);
    lg_test_loaded_destroy(&r);
}

/* cob=/cfi= apply to the next cfn= only: callgrind writes cfn= without calls= for calls that
 * cost nothing, and the next callee in the current file gets no cfi=. */
static void test_callee_file_scope(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "events: Ir\nob=prog\nfl=a.c\nfn=f\n1 1\n"
                  "cob=libx.so\ncfi=x.c\ncfn=x\n"
                  "cfn=g\ncalls=1 1\n1 5\n"
                  "cob=liby.so\ncfi=???\ncfn=y\ncalls=2 0\n1 3\n"
                  "cfn=x\ncalls=3 1\n1 9\n");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_int_equal(edge(p, "f", "a.c", "g", "a.c"), 1);
    assert_int_equal(edge(p, "f", "a.c", "y", "liby.so"), 2); /* no file: qualified by object */
    assert_int_equal(edge(p, "f", "a.c", "x", "a.c"), 3);
    assert_true(lg_profile_find(p, "x", NULL, "x.c") < 0); /* cfn=x without calls= */
    assert_int_equal(p->nfuncs, 4);
    lg_test_loaded_destroy(&r);
}

/* positions: with nothing after it: cost lines are costs only. positions: bb: no position
 * costs. hits stay 0 for a function that never ran. */
static void test_positions_variants(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "positions:\nevents: Ir Dr\nfn=f\n5 2\n0x10\ncfn=g\ncalls=0\n0\nfn=h\n0 0\n");
    lg_test_assert_loaded_clean(&r);
    const lg_pfunc_t *f = lg_test_func(&r.p, "f", NULL);
    assert_int_equal(f->counter1_self, 5 + 16);
    assert_int_equal(f->counter2_self, 2);
    assert_int_equal(f->hits, 1);
    assert_int_equal(edge(&r.p, "f", NULL, "g", NULL), 0);
    assert_int_equal(lg_test_func(&r.p, "g", NULL)->hits, 0);
    assert_int_equal(lg_test_func(&r.p, "h", NULL)->hits, 0);
    assert_int_equal(r.p.cost_positions, LG_POS_NONE);
    lg_test_loaded_destroy(&r);

    load_text(&r, "positions: instr bb line\nevents: Cycles\nfn=f\n0x40 0x40 3 7\n+2 * +1 1\n");
    lg_test_assert_loaded_clean(&r);
    f = lg_test_func(&r.p, "f", NULL);
    assert_int_equal(r.p.cost_positions, LG_POS_ADDRESS);
    assert_int_equal(lg_test_cost_at(&r.p, f, 0x40), 7);
    assert_int_equal(lg_test_cost_at(&r.p, f, 0x42), 1);
    assert_string_equal(r.p.counter1_unit, "Cycles");
    lg_test_loaded_destroy(&r);

    load_text(&r, "positions: bb\nevents: Ir\nfn=f\n0x40 7\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.cost_positions, LG_POS_NONE);
    assert_int_equal(lg_test_func(&r.p, "f", NULL)->counter1_self, 7);
    assert_string_equal(r.p.counter1_unit, "Ir");
    lg_test_loaded_destroy(&r);

    /* An event name lorgen does not know: counter1_unit must stay a static string. */
    load_text(&r, "events: Foo_(10ns) Bar\nfn=f\n1 2 3\n");
    lg_test_assert_loaded_clean(&r);
    assert_string_equal(r.p.counter1_unit, "events");
    assert_int_equal(lg_test_func(&r.p, "f", NULL)->counter2_self, 3);
    lg_test_loaded_destroy(&r);
}

/* jump= and jcnd= with instr positions, worked through by hand (line: effect):
 *   4 f 0x1000: 5            5 "+4 * 20" 0x1004: 20
 *   6 jcnd=16/20 -4: to 0x1004 - 4 = 0x1000, taken 16; 7 "* *": from 0x1004
 *   8 jump=3 0x1010 (absolute hex): to 0x1010; 9 from 0x1004
 *   10 "+8 2 7" 0x100c: 7
 *   11 jump=5 +0x4: to 0x1010; 12 from 0x100c
 *   13 jcnd=9 4 4100 (the specification's EXECUTED FOLLOWED form, absolute decimal target):
 *      to 0x1004, taken 4; 15 from 0x100c (a comment line between)
 *   16 jcnd=0/7 -8: never taken, not recorded; 17 its source
 *   18-19 jfn= names g: the jump goes to 0x2000 in g, recorded all the same; 20 from 0x100c
 *   21 "+4 * 1": 0x100c + 4 = 0x1010 (no target moved the columns on): 1
 *   22 g 0x2000: 2           23 jump=6 -0x10: to 0x1ff0; 24 "+2 *": from 0x2002 */
static void test_jumps(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "positions: instr line\n"
                  "events: Ir\n"
                  "fn=f\n"
                  "0x1000 1 5\n"
                  "+4 * 20\n"
                  "jcnd=16/20 -4 *\n"
                  "* *\n"
                  "jump=3 0x1010 2\n"
                  "* *\n"
                  "+8 2 7\n"
                  "jump=5 +0x4 *\n"
                  "* *\n"
                  "jcnd=9 4 4100 *\n"
                  "# the source position follows\n"
                  "* *\n"
                  "jcnd=0/7 -8 *\n"
                  "* *\n"
                  "jfn=(2) g\n"
                  "jump=1 0x2000 9\n"
                  "* *\n"
                  "+4 * 1\n"
                  "fn=(2)\n"
                  "0x2000 9 2\n"
                  "jump=6 -0x10 *\n"
                  "+2 *\n");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    assert_int_equal(p->cost_positions, LG_POS_ADDRESS);
    assert_int_equal(p->njumps, 6);
    assert_jump(p, 0, "f", 0x1004, 0x1000, 16);
    assert_jump(p, 1, "f", 0x1004, 0x1010, 3);
    assert_jump(p, 2, "f", 0x100c, 0x1010, 5);
    assert_jump(p, 3, "f", 0x100c, 0x1004, 4);
    assert_jump(p, 4, "f", 0x100c, 0x2000, 1);
    assert_jump(p, 5, "g", 0x2002, 0x1ff0, 6);
    /* The source position lines add no cost. */
    const lg_pfunc_t *f = lg_test_func(p, "f", NULL);
    assert_int_equal(f->counter1_self, 5 + 20 + 7 + 1);
    assert_int_equal(lg_test_cost_at(p, f, 0x1010), 1);
    assert_int_equal(costs_of(p, f), 4);
    assert_int_equal(lg_test_func(p, "g", NULL)->counter1_self, 2);
    lg_test_loaded_destroy(&r);
}

/* Jumps are kept only with instruction addresses: not with "positions: line", and not when the
 * first part set the costs' positions to lines and a later one has instr. */
static void test_jumps_without_addresses(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "positions: line\nevents: Ir\nfn=f\n10 5\njump=3 +2\n*\n+1 4\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.cost_positions, LG_POS_LINE);
    assert_int_equal(r.p.njumps, 0);
    assert_null(r.p.jumps);
    assert_int_equal(lg_test_cost_at(&r.p, lg_test_func(&r.p, "f", NULL), 11), 4);
    lg_test_loaded_destroy(&r);

    load_text(&r, "positions: line\nevents: Ir\nfn=f\n10 5\npart: 2\npositions: instr\n"
                  "fn=f\n0x10 1\njump=3 +8\n*\n");
    /* The warning says the second part's costs have no line position. */
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.errors, 0);
    assert_int_equal(r.d.warnings, 1);
    assert_int_equal(r.p.cost_positions, LG_POS_LINE);
    assert_int_equal(r.p.njumps, 0);
    lg_test_loaded_destroy(&r);

    /* A jump whose target lacks the instr column (fewer targets than positions) has no target. */
    load_text(&r, "positions: line instr\nevents: Ir\nfn=f\n10 0x10 5\njump=3 +2\n* *\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.cost_positions, LG_POS_ADDRESS);
    assert_int_equal(r.p.njumps, 0);
    lg_test_loaded_destroy(&r);
}

/* Counts are summed saturating; costs may be hexadecimal. */
static void test_large_numbers(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "events: Ir\nfn=f\n1 0xffffffffffffffff\n2 1\ncfn=g\n"
                  "calls=18446744073709551615 1\n1 1\ncalls=5 1\n1 1\n");
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(lg_test_func(&r.p, "f", NULL)->counter1_self, UINT64_MAX);
    assert_int_equal(r.p.nedges, 1);
    assert_int_equal(r.p.edges[0].weight, UINT64_MAX);
    assert_int_equal(lg_test_func(&r.p, "g", NULL)->hits, UINT64_MAX);
    lg_test_loaded_destroy(&r);
}

static void test_warnings(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_text(&r, "events: Ir\nfoo: bar\nfn=f\nbb=0x10 2\n10 1\nfn=a'b\n1 1\n");
    assert_int_equal(r.err, LG_OK);
    assert_int_equal(r.d.errors, 0);
    assert_int_equal(r.d.warnings, 2);
    assert_true(lg_test_diag_has(&r.d, LG_WARNING,
                                 MEM_PATH ":2: 2 line(s) with keys lorgen does not know were "
                                          "skipped, first 'foo'"));
    assert_true(lg_test_diag_has(&r.d, LG_WARNING, "first 'a'b'"));
    lg_test_func(&r.p, "a'b", NULL); /* not a recursion suffix: kept whole */
    lg_test_loaded_destroy(&r);
}

/* ---- Malformed input --------------------------------------------------------------------- */

typedef struct bad_case {
    const char *text;
    lg_err_t err;
    const char *needle; /* in "where: message" */
} bad_case_t;

static const bad_case_t bad_cases[] = {
    /* headers */
    {"version: x\nevents: Ir\n", LG_EFORMAT,
     MEM_PATH ":1: expected a number after 'version:', found 'x'"},
    {"# callgrind format\nversion: 2\n", LG_EUNSUPPORTED,
     MEM_PATH ":2: expected format version 1, found version 2"},
    {"version: 1\nevents: Ir\npositions: instr lines\n", LG_EFORMAT,
     MEM_PATH ":3: expected 'instr', 'bb' or 'line' after 'positions:', found 'lines'"},
    {"positions: line line\n", LG_EFORMAT, MEM_PATH ":1: 'positions:' lists 'line' twice"},
    {"\nevents:\n", LG_EFORMAT, MEM_PATH ":2: expected at least one event name after 'events:'"},
    {"events: Ir\nsummary: 12 x\n", LG_EFORMAT,
     MEM_PATH ":2: expected cost numbers after 'summary:', found 'x'"},
    {"fn=f\n", LG_EFORMAT, MEM_PATH ": expected an 'events:' header line, found none in 1 lines"},
    /* cost lines */
    {"events: Ir Dr\nfn=f\n10 1 2 3\n", LG_EFORMAT,
     MEM_PATH ":3: expected at most 2 cost numbers (events: Ir Dr), found 3"},
    {"events: Ir\nfn=f\n10 abc\n", LG_EFORMAT, MEM_PATH ":3: cost 'abc' is not a number"},
    {"events: Ir\nfn=f\n10 99999999999999999999\n", LG_EFORMAT,
     MEM_PATH ":3: cost '99999999999999999999' does not fit in 64 bits"},
    {"positions: instr line\nevents: Ir\nfn=f\n0x10\n", LG_EFORMAT,
     MEM_PATH ":4: expected 2 subpositions (positions: instr line), found 1"},
    {"fn=f\n10 1\nevents: Ir\n", LG_EFORMAT,
     MEM_PATH ":2: expected an 'events:' header line before the first cost line, found '10 1'"},
    {"events: Ir\n\n# no function yet\n10 1\n", LG_EFORMAT,
     MEM_PATH ":4: expected 'fn=' before the first cost line, found '10 1'"},
    {"events: Ir\nfn=f\n10 1\n+x 5\n", LG_EFORMAT, MEM_PATH ":4: subposition '+x' is not a number"},
    {"events: Ir\nfn=f\n3 1\n-5 1\n", LG_EFORMAT,
     MEM_PATH ":4: subposition '-5' goes below 0 (previous value 3)"},
    {"events: Ir\nfn=f\n0xffffffffffffffff 1\n+1 1\n", LG_EFORMAT,
     MEM_PATH ":4: subposition '+1' goes past 64 bits"},
    {"events: Ir\nfn=f\n12ab 1\n", LG_EFORMAT, MEM_PATH ":3: subposition '12ab' is not a number"},
    {"events: Ir\nfn=f\n* 1\n** 1\n", LG_EFORMAT, MEM_PATH ":4: subposition '**' is not a number"},
    /* calls */
    {"events: Ir\nfn=f\ncfn=g\ncalls=1 5\n", LG_EFORMAT,
     MEM_PATH ":4: expected a cost line after calls=, found the end of the file"},
    {"events: Ir\nfn=(1) f\ncfn=(3) g\ncalls=1 5\n\n# comment\nfn=(3)\n5 1\n", LG_EFORMAT,
     MEM_PATH ":7: expected a cost line after calls= on line 4, found 'fn=(3)'"},
    {"events: Ir\nfn=f\ncalls=1 5\n5 1\n", LG_EFORMAT,
     MEM_PATH ":3: expected 'cfn=' before calls=, found none in this part"},
    {"events: Ir\ncfn=g\ncalls=1 5\n5 1\n", LG_EFORMAT,
     MEM_PATH ":3: expected 'fn=' before calls=, found none in this part"},
    {"events: Ir\nfn=f\ncfn=g\ncalls=\n", LG_EFORMAT,
     MEM_PATH ":4: expected a call count after 'calls=', found nothing"},
    {"events: Ir\nfn=f\ncfn=g\ncalls=x 5\n", LG_EFORMAT,
     MEM_PATH ":4: call count 'x' is not a number"},
    {"events: Ir\nfn=f\ncfn=g\ncalls=1 5 6\n", LG_EFORMAT,
     MEM_PATH ":4: expected at most 1 target subpositions after calls=COUNT (positions: line), "
              "found 2"},
    {"events: Ir\nfn=f\ncfn=g\ncalls=1 +q\n", LG_EFORMAT,
     MEM_PATH ":4: subposition '+q' is not a number"},
    {"events: Ir\nfn=f\ncfn=g\ncalls=1 1\npart: 2\n", LG_EFORMAT,
     MEM_PATH ":5: expected a cost line after calls= on line 4, found 'part: 2'"},
    {"events: Ir\nfn=f\ncfn=g\ncalls=1 1\n1 1\npart: 2\ncalls=1 1\n1 1\n", LG_EFORMAT,
     MEM_PATH ":7: expected 'fn=' before calls=, found none in this part"},
    {"events: Ir\nfn=f\njump=x 1\n", LG_EFORMAT,
     MEM_PATH ":3: jump count 'x' in jump= is not a number"},
    {"events: Ir\nfn=f\njcnd=1/ 1\n", LG_EFORMAT, MEM_PATH ":3: jump count '1/' in jcnd="},
    {"events: Ir\nfn=f\njump=\n", LG_EFORMAT, MEM_PATH ":3: expected a jump count after 'jump='"},
    /* jumps: the source position line must follow, as a call's cost line does */
    {"positions: instr\nevents: Ir\nfn=f\n0x10 1\njump=1 +4\n", LG_EFORMAT,
     MEM_PATH ":5: expected the jump's source position line after jump=, found the end of the "
              "file"},
    {"positions: instr\nevents: Ir\nfn=f\n0x10 1\njcnd=1/2 +4\n\nfn=g\n0x20 1\n", LG_EFORMAT,
     MEM_PATH ":7: expected the jump's source position line after jcnd= on line 5, found 'fn=g'"},
    {"positions: instr\nevents: Ir\nfn=f\n0x10 1\njump=0 +4\npart: 2\n", LG_EFORMAT,
     MEM_PATH ":6: expected the jump's source position line after jump= on line 5, found "
              "'part: 2'"},
    {"events: Ir\nfn=f\n1 1\njump=1 +4\ncfn=g\ncalls=1 1\n1 1\n", LG_EFORMAT,
     MEM_PATH ":5: expected the jump's source position line after jump= on line 4, found 'cfn=g'"},
    {"positions: instr\nevents: Ir\nfn=f\n0x10 1\njcnd=3\n* \n", LG_EFORMAT,
     MEM_PATH ":5: expected the followed count after 'jcnd=EXECUTED', found nothing"},
    {"positions: instr\nevents: Ir\nfn=f\n0x10 1\njcnd=3 +1 +4\n*\n", LG_EFORMAT,
     MEM_PATH ":5: followed count '+1' in jcnd= is not a number"},
    {"positions: instr\nevents: Ir\nfn=f\n0x10 1\njcnd=3 1 +4 +5\n*\n", LG_EFORMAT,
     MEM_PATH ":5: expected at most 1 target subpositions after jcnd=COUNT (positions: instr), "
              "found 2"},
    {"positions: instr\nevents: Ir\nfn=f\n0x10 1\njump=1 -0x20\n*\n", LG_EFORMAT,
     MEM_PATH ":5: subposition '-0x20' goes below 0 (previous value 16)"},
    /* names */
    {"events: Ir\nfn=(1) f\ncfn=(7)\n", LG_EFORMAT,
     MEM_PATH ":3: unknown name id (7) for cfn: no '(7) name' seen before"},
    {"events: Ir\nfl=(1) a.c\nfn=(1) f\nfi=(2)\n", LG_EFORMAT,
     MEM_PATH ":4: unknown name id (2) for fi: no '(2) name' seen before"},
    {"events: Ir\nfn=(1) f\nfn=(1) g\n", LG_EFORMAT,
     MEM_PATH ":3: function name id (1) defined again as 'g', it was 'f'"},
    {"events: Ir\nfn=(1 f\n", LG_EFORMAT, MEM_PATH ":2: expected ')' after the name id in fn="},
    {"events: Ir\nfl=(1x) a.c\n", LG_EFORMAT, MEM_PATH ":2: name id '(1x)' in fl= is not a number"},
    {"events: Ir\nfn=\n", LG_EFORMAT,
     MEM_PATH ":2: expected a function name after 'fn=', found nothing"},
    /* anything else */
    {"events: Ir\nfn=f\nhello world\n", LG_EFORMAT,
     MEM_PATH ":3: expected a header line (KEY: value), a name or call line (KEY=value) or a cost "
              "line, found 'hello world'"},
    {"events: Ir\r\nfn=f\r\n=x\r\n", LG_EFORMAT, MEM_PATH ":3: expected a header line"},
    /* stated totals: a part's regular cost lines must add up to its summary: and totals: */
    {"events: Ir\nsummary: 10\nfn=f\n1 4\n", LG_EFORMAT,
     MEM_PATH ":4: the part's cost lines add up to 4 Ir by the end of the file, but its "
              "'summary:' (line 2) says 10: the file is cut short"},
    {"events: Ir Dr\nsummary: 4 2\nfn=f\n1 4 2\ntotals: 4 3\n", LG_EFORMAT,
     MEM_PATH ":5: the part's cost lines add up to 2 Dr by the end of the file, but its "
              "'totals:' (line 5) says 3"},
    {"events: Ir\nsummary: 4 1\nfn=f\n1 4\n", LG_EFORMAT,
     MEM_PATH ":4: the part's cost lines add up to 0 (event 2) by the end of the file, but its "
              "'summary:' (line 2) says 1"},
    {"events: Ir\npart: 1\nsummary: 5\nfn=f\n1 4\npart: 2\nsummary: 1\nfn=g\n1 1\n", LG_EFORMAT,
     MEM_PATH ":6: the part's cost lines add up to 4 Ir by the next part, but its 'summary:' "
              "(line 3) says 5"},
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        lg_test_loaded_t r;
        load_text(&r, bad_cases[i].text);
        assert_fails(&r, bad_cases[i].err, bad_cases[i].needle);
        lg_test_loaded_destroy(&r);
    }
}

static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "events: Ir\nfn=f\0g\n";
    lg_test_loaded_t r;
    load_bytes(&r, text, sizeof text - 1);
    assert_fails(&r, LG_EFORMAT, MEM_PATH ":2:5: expected text, found a NUL byte");
    lg_test_loaded_destroy(&r);
}

static void test_line_too_long(void **state)
{
    (void)state;
    static const char head[] = "events: Ir\nfn=";
    size_t first = strlen("events: Ir\n");
    /* Line 2 is "fn=fff...": LG_CALLGRIND_MAX_LINE bytes in all, then one more. */
    size_t size = first + LG_CALLGRIND_MAX_LINE + 1;
    char *text = malloc(size);
    assert_non_null(text);
    memcpy(text, head, sizeof head - 1);
    memset(text + sizeof head - 1, 'f', size - (sizeof head - 1));
    lg_test_loaded_t r;
    load_bytes(&r, text, size);
    assert_fails(&r, LG_ELIMIT, MEM_PATH ":2: line is longer than 1048576 bytes");
    lg_test_loaded_destroy(&r);

    load_bytes(&r, text, size - 1);
    lg_test_assert_loaded_clean(&r);
    assert_int_equal(r.p.nfuncs, 0); /* fn= without cost lines adds no function */
    lg_test_loaded_destroy(&r);
    free(text);
}

/* What summary: and totals: state is checked, the way callgrind writes them: per part, over the
 * regular cost lines only (a call line's cost is the callee's, counted in its own lines). */
static void test_stated_totals_that_agree(void **state)
{
    (void)state;
    static const char *const good[] = {
        /* call lines' inclusive costs are not part of the sum */
        "events: Ir\nsummary: 3\nfn=f\n1 3\ncfn=g\ncalls=1 0\n1 100\ntotals: 3\n",
        /* a summary before "part: 1" belongs to the part that follows */
        "events: Ir\nsummary: 5\npart: 1\nfn=f\n1 4\n2 1\n",
        /* each part against its own lines; numbers missing from a cost line are 0 */
        "events: Ir Dr\npart: 1\nsummary: 4 2\nfn=f\n1 4 2\ntotals: 4 2\npart: 2\n"
        "summary: 7 0\nfn=g\n1 7\ntotals: 7\n",
        /* no stated totals: nothing to check */
        "events: Ir\nfn=f\n1 4\n",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        lg_test_loaded_t r;
        load_text(&r, good[i]);
        lg_test_assert_loaded_clean(&r);
        lg_test_loaded_destroy(&r);
    }
}

/* A real file cut to 40%: its summary: line says how much is missing. */
static void test_cut_samples_fail(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        const char *needle;
    } cases[] = {
        {SAMPLES "callgrind_test1.callgrind",
         MEM_PATH ":953: the part's cost lines add up to 22526 Ir by the end of the file, but its "
                  "'summary:' (line 18) says 610235"},
        {SAMPLES "callgrind_selinux.callgrind",
         MEM_PATH ":6741: the part's cost lines add up to 3648071677 Ir by the end of the file, "
                  "but its 'summary:' (line 17) says 95507934985"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size;
        uint8_t *data = lg_test_read_file(cases[i].file, &size);
        assert_non_null(data);
        lg_test_loaded_t r;
        load_bytes(&r, (const char *)data, size * 40 / 100);
        assert_fails(&r, LG_EFORMAT, cases[i].needle);
        lg_test_loaded_destroy(&r);
        free(data);
    }
}

static void test_unreadable(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, LORGEN_TEST_TMPDIR "/does-not-exist.callgrind");
    assert_fails(&r, LG_EIO, "does-not-exist.callgrind: cannot open");
    lg_test_loaded_destroy(&r);
    /* An empty file has no "events:" line. */
    load_bytes(&r, "", 0);
    assert_fails(&r, LG_EFORMAT, "expected an 'events:' header line, found none in 0 lines");
    lg_test_loaded_destroy(&r);
}

/* ---- Detection --------------------------------------------------------------------------- */

static bool probe_text(const char *text)
{
    return lg_callgrind_probe((const uint8_t *)text, strlen(text));
}

static bool probe_file(const char *path)
{
    size_t size;
    uint8_t *data = lg_test_read_file(path, &size);
    assert_non_null(data);
    bool yes = lg_callgrind_probe(data, size < 4096 ? size : 4096);
    free(data);
    return yes;
}

static void test_probe(void **state)
{
    (void)state;
    assert_true(probe_file(SAMPLES "callgrind_test1.callgrind"));
    assert_true(probe_file(SAMPLES "callgrind_issue35.callgrind"));
    assert_true(probe_file(SAMPLES "callgrind_selinux.callgrind")); /* "version: 1" first */
    assert_true(probe_file(FIXTURES "compressed.callgrind"));
    assert_false(probe_file(SAMPLES "aprof_v2_crypto_1.aprof"));
    assert_false(probe_file(SAMPLES "perfscript_perf-funcab-cmd-01.txt"));
    assert_false(probe_file(SAMPLES "perfscript_gprof2dot_issue28.perf"));
    assert_false(probe_file(SAMPLES "perfscript_perf-dd-stacks-01.txt"));

    assert_true(probe_text("# callgrind format\r\n"));
    assert_true(probe_text("\xEF\xBB\xBF# callgrind format\n"));
    assert_true(probe_text("version: 1\ncreator: xdebug 3.2\ncmd: x.php\npart: 1\n"
                           "positions: line\n\nevents: Time_(10ns) Memory_(bytes)\n"));
    assert_true(probe_text("version:1\nevents: Ir")); /* cut off inside the head */
    assert_false(probe_text("# callgrind formats\n"));
    assert_false(probe_text("# callgrind for"));
    assert_false(probe_text("version: 1\n"));
    assert_false(probe_text("version: 12\nevents: Ir\n"));
    assert_false(probe_text("desc: I1 cache: 32768 B\ncmd: ./a.out\nevents: Ir\nfl=a.c\n"));
    assert_false(probe_text("PROFILER FILE:"));
    assert_false(probe_text(""));
    assert_false(lg_callgrind_probe(NULL, 0));
}

/* Each function keeps the object callgrind saw it in (ob=, or cob= for a callee), so that binding
 * can say that fflush is libc's and cannot move, instead of guessing it was inlined. */
static void test_functions_keep_their_object(void **state)
{
    (void)state;
    lg_test_loaded_t r;
    load_file(&r, SAMPLES "callgrind_test1.callgrind");
    lg_test_assert_loaded_clean(&r);
    const lg_profile_t *p = &r.p;
    size_t libc = 0, date = 0, without = 0;
    for (size_t i = 0; i < p->nfuncs; i++) {
        const lg_pfunc_t *f = &p->funcs[i];
        if (f->object == NULL)
            without++;
        else if (strcmp(f->object, "/usr/lib64/libc-2.17.so") == 0)
            libc++;
        else if (strcmp(f->object, "/usr/bin/date") == 0)
            date++;
        if (strcmp(f->name, "fflush") == 0 || strcmp(f->name, "__freading") == 0)
            assert_string_equal(f->object, "/usr/lib64/libc-2.17.so");
        if (strcmp(f->name, "_dl_runtime_resolve") == 0)
            assert_string_equal(f->object, "/usr/lib64/ld-2.17.so");
        if (strcmp(f->name, "0x0000000000409180") == 0)
            assert_string_equal(f->object, "/usr/bin/date");
    }
    assert_int_equal(without, 0);
    assert_true(libc > 100);
    assert_true(date > 10);
    lg_test_loaded_destroy(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_test1),
        cmocka_unit_test(test_functions_keep_their_object),
        cmocka_unit_test(test_sample_issue35),
        cmocka_unit_test(test_sample_selinux),
        cmocka_unit_test(test_compressed_fixture),
        cmocka_unit_test(test_crlf_and_blanks),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_specification_example),
        cmocka_unit_test(test_definitions_up_front),
        cmocka_unit_test(test_callee_file_scope),
        cmocka_unit_test(test_positions_variants),
        cmocka_unit_test(test_jumps),
        cmocka_unit_test(test_jumps_without_addresses),
        cmocka_unit_test(test_large_numbers),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_line_too_long),
        cmocka_unit_test(test_stated_totals_that_agree),
        cmocka_unit_test(test_cut_samples_fail),
        cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
