/* test_perf_script.c - the `perf script` text reader.
 *
 * Expected values come from counting the files by hand (or with a one-line awk over the file,
 * named where used), never from the reader itself. Real files: tests/fixtures/samples/perfscript_*
 * (README.md there); hand-written ones: tests/fixtures/perf/ (README.md there lists what each
 * sample covers and the totals checked below).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "perf_script.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES_DIR LORGEN_SOURCE_DIR "/tests/fixtures/samples/"
#define PERF_DIR LORGEN_SOURCE_DIR "/tests/fixtures/perf/"

#define FUNCAB SAMPLES_DIR "perfscript_perf-funcab-cmd-01.txt"
#define DD SAMPLES_DIR "perfscript_perf-dd-stacks-01.txt"
#define CYCLES_INSNS SAMPLES_DIR "perfscript_perf-cycles-instructions-01.txt"
#define ISSUE28 SAMPLES_DIR "perfscript_gprof2dot_issue28.perf"
#define MIXED PERF_DIR "mixed.txt"
#define NOCHAIN PERF_DIR "nochain.txt"

/* ---- Helpers ---------------------------------------------------------------------------- */

static void load(lg_test_loaded_t *l, const char *path, const char *event)
{
    lg_test_load_file(l, lg_perf_script_read, path, &(lg_load_options_t){.event = event});
}

static void load_ok(lg_test_loaded_t *l, const char *path, const char *event)
{
    load(l, path, event);
    if (l->err != LG_OK)
        lg_test_diag_dump(&l->d);
    assert_int_equal(l->err, LG_OK);
    assert_string_equal(l->p.format, "perf-script");
    assert_int_equal(l->p.kind, LG_PROFILE_STATISTICAL);
    assert_int_equal(l->d.errors, 0);
}

/* The function called name in DSO qual; fails the test when absent. */
static const lg_pfunc_t *func(const lg_profile_t *p, const char *name, const char *qual)
{
    int64_t i = lg_profile_find(p, name, NULL, qual);
    if (i < 0)
        print_message("no function '%s' (%s)\n", name, qual);
    assert_true(i >= 0);
    return &p->funcs[i];
}

/* Weight of caller -> callee, 0 when there is no such edge. */
static uint64_t edge(const lg_profile_t *p, const char *caller, const char *caller_qual,
                     const char *callee, const char *callee_qual)
{
    int64_t from = lg_profile_find(p, caller, NULL, caller_qual);
    int64_t to = lg_profile_find(p, callee, NULL, callee_qual);
    if (from < 0 || to < 0)
        return 0;
    for (size_t i = 0; i < p->nedges; i++)
        if (p->edges[i].caller == (uint32_t)from && p->edges[i].callee == (uint32_t)to)
            return p->edges[i].weight;
    return 0;
}

static void check_hits(const lg_profile_t *p, const char *name, const char *qual, uint64_t hits,
                       uint64_t self, uint64_t total)
{
    const lg_pfunc_t *f = func(p, name, qual);
    assert_int_equal(f->hits, hits);
    assert_int_equal(f->counter1_self, self);
    assert_int_equal(f->counter1_total, total);
}

/* Edges are sorted by (caller, callee) and unique after loading. */
static void check_edges_sorted(const lg_profile_t *p)
{
    for (size_t i = 1; i < p->nedges; i++) {
        const lg_arc_t *a = &p->edges[i - 1], *b = &p->edges[i];
        assert_true(a->caller < b->caller || (a->caller == b->caller && a->callee < b->callee));
    }
}

/* A failed load reports exactly one error and leaves the profile empty. */
static void check_failed(const lg_test_loaded_t *l)
{
    assert_int_not_equal(l->err, LG_OK);
    assert_int_equal(l->d.errors, 1);
    assert_int_equal(l->p.nfuncs, 0);
    assert_int_equal(l->p.nedges, 0);
    assert_null(l->p.path);
}

static bool probe_text(const char *text)
{
    return lg_perf_script_probe((const uint8_t *)text, strlen(text));
}

static bool probe_file(const char *path)
{
    size_t size;
    uint8_t *data = lg_test_read_file(path, &size);
    assert_non_null(data);
    bool accepted = lg_perf_script_probe(data, size < LG_PROBE_BYTES ? size : LG_PROBE_BYTES);
    free(data);
    return accepted;
}

/* ---- Probe ------------------------------------------------------------------------------ */

static void test_probe_accepts_perf_script(void **state)
{
    (void)state;
    assert_true(probe_file(FUNCAB)); /* starts with perf's '#' header block */
    assert_true(probe_file(DD));
    assert_true(probe_file(CYCLES_INSNS)); /* header block with 383-byte lines */
    assert_true(probe_file(ISSUE28));
    assert_true(probe_file(MIXED));
    assert_true(probe_file(NOCHAIN)); /* indented headers, frame on the header line */
    /* perf's header block alone (the samples start past the probed bytes). */
    assert_true(probe_text("# ========\n# captured on: Thu Jul  7 20:47:43 2016\n"
                           "# perf version : 3.13.11\n# ========\n#\n"));
    /* A header whose next line was cut by the end of the head: its TID makes it perf's. */
    assert_true(probe_text("func_ab 15285 28075374.517811: cpu-clock:\n"));
}

static void test_probe_rejects_others(void **state)
{
    (void)state;
    assert_false(probe_file(SAMPLES_DIR "callgrind_issue35.callgrind"));
    assert_false(probe_file(SAMPLES_DIR "callgrind_selinux.callgrind"));
    assert_false(probe_file(SAMPLES_DIR "callgrind_test1.callgrind"));
    assert_false(probe_file(SAMPLES_DIR "aprof_v2_crypto_1.aprof"));
    assert_false(lg_perf_script_probe(NULL, 0));
    assert_false(probe_text(""));
    assert_false(probe_text("PROFILER FILE:\x55"));
    assert_false(probe_text("hello world\n"));
    assert_false(probe_text("# just a comment\n# and another\n"));
    /* Header-shaped text whose next line is no frame, and without a TID. */
    assert_false(probe_text("Meeting at 12.30: notes: bring slides\nsecond line\n"));
    /* A header followed by something that is not a frame. */
    assert_false(probe_text("app 1 1.000001: cycles:\nversion: 1\n"));
    /* NUL bytes: not text. */
    assert_false(lg_perf_script_probe((const uint8_t *)"app 1 1.0: cycles:\n\0", 20));
}

/* ---- Real samples ----------------------------------------------------------------------- */

/* perf 3.13, no period column: hits and counter 1 are sample counts. */
static void test_funcab(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, FUNCAB, NULL);
    /* 169 samples; first frames counted with
     *   awk '/^#/{next} /^[^ \t]/{getline; print $2}' FILE | sort | uniq -c
     * -> 81 func_a, 88 func_b. Every sample's chain is func_X, main, __libc_start_main (the
     * first ones, lines 19-22 and 34-37, checked by eye). */
    assert_int_equal(l.p.total_hits, 169);
    assert_true(l.p.has_call_edges);
    assert_string_equal(l.p.counter1_unit, "samples");
    assert_int_equal(l.p.nfuncs, 4);
    check_hits(&l.p, "func_a", "func_ab", 81, 81, 81);
    check_hits(&l.p, "func_b", "func_ab", 88, 88, 88);
    check_hits(&l.p, "main", "func_ab", 0, 0, 169);
    check_hits(&l.p, "__libc_start_main", "libc-2.19.so", 0, 0, 169);
    assert_int_equal(l.p.nedges, 3);
    assert_int_equal(edge(&l.p, "main", "func_ab", "func_a", "func_ab"), 81);
    assert_int_equal(edge(&l.p, "main", "func_ab", "func_b", "func_ab"), 88);
    assert_int_equal(edge(&l.p, "__libc_start_main", "libc-2.19.so", "main", "func_ab"), 169);
    check_edges_sorted(&l.p);
    assert_int_equal(l.d.count, 0); /* one event, no [unknown] frames: nothing to say */
    lg_test_loaded_destroy(&l);
}

/* Period column (cpu-clock: nanoseconds), kernel frames, [unknown] frames. All 11 samples
 * counted by hand (S1..S11 in file order, leaf first, U = [unknown]):
 *   S1 fsnotify vfs_read sys_read system_call read U        S7  __srcu_read_unlock fsnotify
 *   S2 rw_verify_area vfs_write sys_write system_call write U     vfs_write sys_write
 *   S3 __srcu_read_unlock fsnotify vfs_write sys_write           system_call write
 *      system_call write U                                  S8  __fget_light __fdget __fdget_pos
 *   S4 read U                                                     sys_write system_call write
 *   S5 sys_write system_call write U                        S9  U(/bin/dd) U
 *   S6 = S3                                                 S10 __fdget_pos system_call read U
 *                                                           S11 system_call U
 */
static void test_dd(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, DD, NULL);
    const uint64_t period = 10101010;
    const char *vm = "vmlinux", *libc = "libc-2.15.so";
    assert_int_equal(l.p.total_hits, 11);
    assert_string_equal(l.p.counter1_unit, "ns");
    assert_true(l.p.has_call_edges);
    check_hits(&l.p, "__srcu_read_unlock", vm, 3, 3 * period, 3 * period); /* S3 S6 S7 */
    check_hits(&l.p, "fsnotify", vm, 1, period, 4 * period);               /* S1; S3 S6 S7 */
    check_hits(&l.p, "read", libc, 1, period, 3 * period);                 /* S4; S1 S10 */
    check_hits(&l.p, "sys_write", vm, 1, period, 6 * period);              /* S5; S2 S3 S6 S7 S8 */
    check_hits(&l.p, "system_call", vm, 1, period, 9 * period);            /* S11; all but S4 S9 */
    check_hits(&l.p, "__fdget_pos", vm, 1, period, 2 * period);            /* S10; S8 */
    /* Self samples: 10 functions' leaves plus S9, whose leaf is [unknown]. */
    uint64_t hits = 0;
    for (size_t i = 0; i < l.p.nfuncs; i++)
        hits += l.p.funcs[i].hits;
    assert_int_equal(hits, 10);
    assert_int_equal(edge(&l.p, "system_call", vm, "sys_write", vm), 6); /* S2 S3 S5-S8 */
    assert_int_equal(edge(&l.p, "write", libc, "system_call", vm), 6);
    assert_int_equal(edge(&l.p, "read", libc, "system_call", vm), 2); /* S1 S10 */
    assert_int_equal(edge(&l.p, "fsnotify", vm, "__srcu_read_unlock", vm), 3);
    assert_int_equal(edge(&l.p, "sys_write", vm, "__fdget_pos", vm), 1);   /* S8 */
    assert_int_equal(edge(&l.p, "system_call", vm, "__fdget_pos", vm), 1); /* S10 */
    assert_int_equal(l.p.nedges, 14);
    /* [unknown]: 10 of the 52 frames, first at line 7; no function of that name. */
    assert_true(lg_test_diag_has(&l.d, LG_NOTE, "perf-dd-stacks-01.txt:7: 10 of 52 frames"));
    assert_true(lg_test_diag_has(&l.d, LG_NOTE, "1 sample has no known function"));
    assert_true(lg_profile_find(&l.p, "[unknown]", NULL, "[unknown]") < 0);
    assert_true(lg_profile_find(&l.p, "[unknown]", NULL, "dd") < 0);
    assert_int_equal(l.d.warnings, 0);
    lg_test_loaded_destroy(&l);
}

/* perf >= 4.8: +0xOFF offsets stripped, `cycles:ppp` with a period (frequency mode, so the
 * periods grow: 1, 1, 6, 85, 1150, 19020, ...). Counted by hand from the file (header lines):
 *   native_sched_clock is the leaf of the samples at lines 28, 32, 36 (periods 6, 85, 1150);
 *   _Zpl6BlivetS_ of lines 78 and 94 (1750159 + 1256773), called from main both times;
 *   main is the leaf of lines 84, 89, 100, 105 (1637107 + 1357371 + 1186047 + 1125810) and is
 *   in all six user samples (lines 78-105), each time under __libc_start_main. */
static void test_issue28(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, ISSUE28, NULL);
    const char *k = "[kernel.kallsyms]", *exe = "issue28";
    assert_int_equal(l.p.total_hits, 14);
    assert_string_equal(l.p.counter1_unit, "cycles");
    check_hits(&l.p, "native_sched_clock", k, 3, 6 + 85 + 1150, 6 + 85 + 1150);
    check_hits(&l.p, "_Zpl6BlivetS_", exe, 2, 1750159 + 1256773, 1750159 + 1256773);
    check_hits(&l.p, "main", exe, 4, 1637107 + 1357371 + 1186047 + 1125810,
               1750159 + 1637107 + 1357371 + 1256773 + 1186047 + 1125810);
    assert_int_equal(edge(&l.p, "main", exe, "_Zpl6BlivetS_", exe), 2);
    assert_int_equal(edge(&l.p, "__libc_start_main", "libc-2.24.so", "main", exe), 6);
    /* do_execveat_common.isra.35: clone suffixes are kept (binding deals with them). */
    assert_int_equal(edge(&l.p, "search_binary_handler", k, "load_elf_binary", k), 4);
    assert_int_equal(edge(&l.p, "do_execveat_common.isra.35", k, "search_binary_handler", k), 4);
    /* line 73: mprotect (ld-2.24.so) made the syscall; [unknown] frames follow it. */
    assert_int_equal(edge(&l.p, "mprotect", "ld-2.24.so", "entry_SYSCALL_64_fastpath", k), 1);
    /* No name keeps an offset. */
    for (size_t i = 0; i < l.p.nfuncs; i++)
        assert_null(strstr(l.p.funcs[i].name, "+0x"));
    lg_test_loaded_destroy(&l);
}

/* Two interleaved events, [cpu] column, no period. Counted with
 *   awk '/^#/{next} /^[^ \t]/{ev=$NF; getline; print ev, $2, $NF}' FILE | sort | uniq -c
 * instructions: 274 main (noploop), 56 cksum, 1 ext4_file_read_iter, 2 [unknown] = 333;
 * cycles: 68 main (noploop), 31 cksum, 9 poll_idle, 1 ext4_file_read_iter,
 * 1 copy_user_enhanced_fast_string, 1 [unknown] = 111. Samples whose chain holds
 * "main (/usr/bin/cksum)" (awk with RS=""): 50 instructions, 29 cycles. */
static void test_events_default_first(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, CYCLES_INSNS, NULL);
    assert_int_equal(l.p.total_hits, 333); /* line 22: the first sample is 'instructions' */
    check_hits(&l.p, "main", "noploop", 274, 274, 274);
    check_hits(&l.p, "cksum", "cksum", 56, 56, 57); /* line 112: cksum also calls fread */
    check_hits(&l.p, "main", "cksum", 0, 0, 50);
    assert_int_equal(edge(&l.p, "main", "cksum", "cksum", "cksum"), 50);
    assert_true(lg_profile_find(&l.p, "poll_idle", NULL, "vmlinux") < 0); /* cycles only */
    /* Same name, two DSOs: two functions. */
    assert_true(lg_profile_find(&l.p, "main", NULL, "noploop") !=
                lg_profile_find(&l.p, "main", NULL, "cksum"));
    /* One warning, at the first skipped sample (line 43), naming the skipped event. */
    assert_int_equal(l.d.warnings, 1);
    assert_true(lg_test_diag_has(&l.d, LG_WARNING,
                                 "instructions-01.txt:43: 2 events are interleaved: read the "
                                 "first, 'instructions' (333 samples), and skipped cycles (111 "
                                 "samples)"));
    assert_true(lg_test_diag_has(&l.d, LG_WARNING, "--event"));
    lg_test_loaded_destroy(&l);
}

static void test_events_explicit(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, CYCLES_INSNS, "cycles");
    assert_int_equal(l.p.total_hits, 111);
    check_hits(&l.p, "main", "noploop", 68, 68, 68);
    check_hits(&l.p, "cksum", "cksum", 31, 31, 32);
    check_hits(&l.p, "poll_idle", "vmlinux", 9, 9, 9);
    assert_int_equal(edge(&l.p, "main", "cksum", "cksum", "cksum"), 29);
    assert_int_equal(l.d.warnings, 0); /* asked for: nothing to warn about */
    lg_test_loaded_destroy(&l);

    load_ok(&l, CYCLES_INSNS, "instructions");
    assert_int_equal(l.p.total_hits, 333);
    assert_int_equal(l.d.warnings, 0);
    lg_test_loaded_destroy(&l);

    /* Through the registry's options. */
    lg_load_options_t options = {.event = "cycles"};
    lg_test_load_file(&l, lg_perf_script_read, CYCLES_INSNS, &options);
    assert_int_equal(l.err, LG_OK);
    assert_int_equal(l.p.total_hits, 111);
    lg_test_loaded_destroy(&l);
    lg_test_load_file(&l, lg_perf_script_read, CYCLES_INSNS, NULL);
    assert_int_equal(l.err, LG_OK);
    assert_int_equal(l.p.total_hits, 333);
    lg_test_loaded_destroy(&l);
}

static void test_events_unknown(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load(&l, CYCLES_INSNS, "branch-misses");
    assert_int_equal(l.err, LG_EINVAL);
    check_failed(&l);
    assert_true(lg_test_diag_has(&l.d, LG_ERROR,
                                 "no samples of event 'branch-misses'; the file has "
                                 "instructions (333 samples), cycles (111 samples)"));
    lg_test_loaded_destroy(&l);
    /* The trailing ':' is not part of the name. */
    load(&l, CYCLES_INSNS, "cycles:");
    assert_int_equal(l.err, LG_EINVAL);
    lg_test_loaded_destroy(&l);
}

/* Modifiers: "cycles" matches "cycles:u" and "cycles:k"; "cycles:u" only itself. Tracepoint
 * names keep their ':' ("sched:sched_switch" has no modifiers). */
static void test_event_modifiers(void **state)
{
    (void)state;
    static const char text[] = "a 1 1.000001: 10 cycles:u:\n\t 1 f (x)\n\n"
                               "a 1 1.000002: 20 cycles:k:\n\t 2 g (x)\n\n"
                               "a 1 1.000003: 30 instructions:u:\n\t 3 h (x)\n\n"
                               "a 1 1.000004: 1 sched:sched_switch: prev_comm=a prev_pid=1\n"
                               "\t 4 schedule (x)\n";
    const char *path = lg_test_write_file("modifiers.txt", text, sizeof text - 1);
    lg_test_loaded_t l;
    load_ok(&l, path, "cycles");
    assert_int_equal(l.p.total_hits, 2);
    check_hits(&l.p, "f", "x", 1, 10, 10);
    check_hits(&l.p, "g", "x", 1, 20, 20);
    assert_string_equal(l.p.counter1_unit, "cycles");
    lg_test_loaded_destroy(&l);
    load_ok(&l, path, "cycles:u");
    assert_int_equal(l.p.total_hits, 1);
    lg_test_loaded_destroy(&l);
    load_ok(&l, path, "instructions");
    check_hits(&l.p, "h", "x", 1, 30, 30);
    assert_string_equal(l.p.counter1_unit, "instructions");
    lg_test_loaded_destroy(&l);
    /* Tracepoint data after the event is not a frame; the chain follows on the next line. */
    load_ok(&l, path, "sched:sched_switch");
    check_hits(&l.p, "schedule", "x", 1, 1, 1);
    assert_string_equal(l.p.counter1_unit, "events");
    lg_test_loaded_destroy(&l);
    load(&l, path, "sched");
    assert_int_equal(l.err, LG_EINVAL);
    assert_true(lg_test_diag_has(&l.d, LG_ERROR,
                                 "cycles:u (1 sample), cycles:k (1 sample), instructions:u (1 "
                                 "sample), sched:sched_switch (1 sample)"));
    lg_test_loaded_destroy(&l);
    /* Default: the first event, three others skipped. */
    load_ok(&l, path, NULL);
    assert_int_equal(l.p.total_hits, 1);
    assert_true(lg_test_diag_has(&l.d, LG_WARNING, "4 events are interleaved"));
    lg_test_loaded_destroy(&l);
}

/* An error lists at most 8 events, then how many more. */
static void test_many_events(void **state)
{
    (void)state;
    char text[1024];
    size_t n = 0;
    for (int i = 0; i < 10; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "a 1 1.%06d: e%d:\n\t 1 f (x)\n\n", i, i);
    const char *path = lg_test_write_file("events.txt", text, n);
    lg_test_loaded_t l;
    load(&l, path, "zz");
    assert_int_equal(l.err, LG_EINVAL);
    assert_true(lg_test_diag_has(&l.d, LG_ERROR, "e6 (1 sample), e7 (1 sample) and 2 more"));
    check_failed(&l);
    lg_test_loaded_destroy(&l);
    load_ok(&l, path, NULL);
    assert_true(lg_test_diag_has(&l.d, LG_WARNING,
                                 "10 events are interleaved: read the first, 'e0' (1 sample), "
                                 "and skipped e1 (1 sample), "));
    assert_true(lg_test_diag_has(&l.d, LG_WARNING, "e8 (1 sample) and 1 more; choose one"));
    lg_test_loaded_destroy(&l);
}

/* ---- Hand-written fixtures (tests/fixtures/perf/README.md) ------------------------------ */

static void test_mixed(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, MIXED, NULL);
    const char *app = "app";
    const char *push_back = "std::vector<int, std::allocator<int> >::push_back(int const&)";
    const char *run = "run(Config const&, int)", *fact = "fact(unsigned long)";
    const char *plus = "operator+(Big const&, Big const&)";
    assert_int_equal(l.p.total_hits, 7);
    assert_string_equal(l.p.counter1_unit, "cycles");
    assert_true(l.p.has_call_edges);
    assert_string_equal(l.p.path, MIXED);
    assert_int_equal(l.p.nfuncs, 9);
    check_hits(&l.p, fact, app, 1, 1000, 1000); /* recursion counted once per sample */
    check_hits(&l.p, push_back, app, 1, 2000, 2000);
    check_hits(&l.p, run, app, 0, 0, 2500);
    check_hits(&l.p, "memcpy", "libc.so.6", 1, 500, 500);
    check_hits(&l.p, "memcpy", app, 1, 700, 700); /* "(deleted)" dropped from the DSO */
    check_hits(&l.p, "ping", app, 1, 50, 50);
    check_hits(&l.p, "pong", app, 0, 0, 50);
    check_hits(&l.p, plus, app, 1, 10, 10);
    check_hits(&l.p, "main", app, 0, 0, 4285);
    assert_true(lg_profile_find(&l.p, "helper", NULL, "inlined") < 0);

    assert_int_equal(l.p.nedges, 9);
    assert_int_equal(edge(&l.p, fact, app, fact, app), 2); /* self edges kept */
    assert_int_equal(edge(&l.p, "main", app, fact, app), 1);
    assert_int_equal(edge(&l.p, run, app, push_back, app), 1); /* across the inlined frame */
    assert_int_equal(edge(&l.p, "main", app, run, app), 2);
    assert_int_equal(edge(&l.p, run, app, "memcpy", "libc.so.6"), 0); /* [unknown] between */
    assert_int_equal(edge(&l.p, "main", app, "memcpy", app), 1);
    assert_int_equal(edge(&l.p, "pong", app, "ping", app), 2);
    assert_int_equal(edge(&l.p, "ping", app, "pong", app), 1);
    assert_int_equal(edge(&l.p, "main", app, "pong", app), 1);
    assert_int_equal(edge(&l.p, "main", app, plus, app), 1);
    check_edges_sorted(&l.p);
    assert_true(lg_test_diag_has(&l.d, LG_NOTE, "mixed.txt:20: 2 of 22 frames have no symbol"));
    assert_int_equal(l.d.warnings, 0);
    lg_test_loaded_destroy(&l);
}

static void test_nochain(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, NOCHAIN, NULL);
    assert_int_equal(l.p.total_hits, 4);
    assert_false(l.p.has_call_edges);
    assert_int_equal(l.p.nedges, 0);
    assert_string_equal(l.p.counter1_unit, "ns");
    check_hits(&l.p, "fact(unsigned long)", "app", 2, 600, 600);
    check_hits(&l.p, "main", "app", 1, 300, 300);
    check_hits(&l.p, "schedule", "[kernel.kallsyms]", 1, 300, 300); /* comm kworker/0:1H */
    assert_int_equal(l.d.count, 0);
    lg_test_loaded_destroy(&l);
}

/* [unknown] is dropped and breaks the chain: no f <- g edge across it, and the sample still
 * has a call chain. */
static void test_unknown_breaks_chain(void **state)
{
    (void)state;
    static const char text[] = "a 1 1.000001: cycles:\n"
                               "\t 1 f (x)\n\t 2 [unknown] ([unknown])\n\t 3 g (x)\n\t 4 h (x)\n";
    const char *path = lg_test_write_file("unknown.txt", text, sizeof text - 1);
    lg_test_loaded_t l;
    load_ok(&l, path, NULL);
    assert_true(l.p.has_call_edges);
    check_hits(&l.p, "f", "x", 1, 1, 1);
    check_hits(&l.p, "g", "x", 0, 0, 1);
    assert_int_equal(l.p.nedges, 1);
    assert_int_equal(edge(&l.p, "h", "x", "g", "x"), 1);
    assert_int_equal(edge(&l.p, "g", "x", "f", "x"), 0);
    assert_true(lg_test_diag_has(&l.d, LG_NOTE, "unknown.txt:3: 1 of 4 frames"));
    lg_test_loaded_destroy(&l);
}

/* The same text with CR LF line ends reads the same. */
static void test_crlf(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = lg_test_read_file(MIXED, &size);
    assert_non_null(data);
    char *crlf = malloc(2 * size);
    assert_non_null(crlf);
    size_t n = 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i] == '\n')
            crlf[n++] = '\r';
        crlf[n++] = (char)data[i];
    }
    const char *path = lg_test_write_file("mixed-crlf.txt", crlf, n);
    lg_test_loaded_t l;
    load_ok(&l, path, NULL);
    assert_int_equal(l.p.total_hits, 7);
    assert_int_equal(l.p.nfuncs, 9);
    assert_int_equal(l.p.nedges, 9);
    check_hits(&l.p, "main", "app", 0, 0, 4285);
    lg_test_loaded_destroy(&l);
    free(crlf);
    free(data);
}

/* 20000 samples of one chain: the edge array holds 2 edges, not 40000 to merge later. */
static void test_memory_does_not_grow_with_samples(void **state)
{
    (void)state;
    enum { SAMPLES = 20000 };
    static const char sample[] = "a 1 1.000001: cycles:\n\t 1 f (x)\n\t 2 g (x)\n\t 3 h (x)\n\n";
    size_t len = sizeof sample - 1;
    char *text = malloc(SAMPLES * len);
    assert_non_null(text);
    for (size_t i = 0; i < SAMPLES; i++)
        memcpy(text + i * len, sample, len);
    const char *path = lg_test_write_file("many.txt", text, SAMPLES * len);
    free(text);
    lg_test_loaded_t l;
    load_ok(&l, path, NULL);
    assert_int_equal(l.p.total_hits, SAMPLES);
    assert_int_equal(l.p.nedges, 2);
    assert_true(l.p.edges_cap <= 64);
    assert_int_equal(edge(&l.p, "g", "x", "f", "x"), SAMPLES);
    assert_int_equal(edge(&l.p, "h", "x", "g", "x"), SAMPLES);
    lg_test_loaded_destroy(&l);
}

/* ---- Errors ----------------------------------------------------------------------------- */

typedef struct bad_case {
    const char *text;
    lg_err_t err;
    size_t line;        /* 0: the message has no line */
    const char *needle; /* in the message of the one error, at "PATH:LINE: " */
} bad_case_t;

static void test_malformed(void **state)
{
    (void)state;
    static const bad_case_t cases[] = {
        {"a 1 1.000001: cycles:\n\t 400 f (x)\n\t 401 g\n", LG_EFORMAT, 3,
         "expected a frame line 'ADDRESS SYMBOL (DSO)', found '\\x09 401 g' (no ' (DSO)' at the "
         "end)"},
        {"\t 400 f (x)\n", LG_EFORMAT, 1,
         "expected a sample header 'COMM [PID/]TID [CPU] TIME: [PERIOD] EVENT:', found '\\x09 400 "
         "f (x)' (a frame line, but no sample header before it)"},
        {"a 1 1.000001: cycles:\n\t 400 f (x)\n\ngarbage here\n", LG_EFORMAT, 4,
         "expected a sample header 'COMM [PID/]TID [CPU] TIME: [PERIOD] EVENT:', found 'garbage "
         "here' (no time 'SECONDS.FRACTION:' after the command name)"},
        {"# c\na 1 1.000001: 100\n", LG_EFORMAT, 2, "(no event name 'EVENT:' after the period)"},
        {"a 1 1.000001: cycles\n", LG_EFORMAT, 1, "(no event name ending in ':' after the time)"},
        {"a 1 1.000001: cycles:\n\t 4z0 f (x)\n", LG_EFORMAT, 2,
         "found '\\x09 4z0 f (x)' (no blank after the address)"},
        {"a 1 1.000001: cycles:\n\t 12345678901234567 f (x)\n", LG_EFORMAT, 2,
         "(address longer than 16 hexadecimal digits)"},
        {"a 1 1.000001: cycles:\n\t 400 (x)\n", LG_EFORMAT, 2,
         "(no symbol between the address and '(DSO)')"},
        {"a 1 1.000001: cycles:\n\t 400 f(int)\n", LG_EFORMAT, 2, "(no ' (DSO)' at the end)"},
        {"a 1 1.000001: cycles:\n\t 400 f (x\n", LG_EFORMAT, 2, "(no ' (DSO)' at the end)"},
        {"a 1 1.000001: cycles:\n\t 400 f) (x)\n\t 400 f (x))\n", LG_EFORMAT, 3,
         "(no ' (DSO)' at the end)"},
        {"a 1 1.000001: 99999999999999999999 cycles:\n", LG_EFORMAT, 1,
         "(period does not fit in 64 bits)"},
        {"a 1 1.000001: 5 cycles:\n\t 400 f (x)\n\na 1 1.000002: cycles:\n\t 400 f (x)\n",
         LG_EFORMAT, 4,
         "expected a period before the event name, as in the sample at line 1, found none"},
        {"a 1 1.000001: cycles:\n\na 1 1.000002: 7 cycles:\n", LG_EFORMAT, 3,
         "expected no period before the event name, as in the sample at line 1, found 7"},
        {"a 1 1.000001: cycles:\n\t 400 f (x)\n \t# indented: not a comment\n", LG_EFORMAT, 3,
         "expected a frame line"},
        {"", LG_EFORMAT, 0, "expected at least one sample header"},
        {"# ========\n# perf version : 6.1\n#\n\n", LG_EFORMAT, 0, "found none in 4 lines"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bad_case_t *c = &cases[i];
        char name[32], where[1024];
        snprintf(name, sizeof name, "bad%zu.txt", i);
        const char *path = lg_test_write_file(name, c->text, strlen(c->text));
        if (c->line > 0)
            snprintf(where, sizeof where, "%s:%zu: ", path, c->line);
        else
            snprintf(where, sizeof where, "%s: ", path);
        lg_test_loaded_t l;
        load(&l, path, NULL);
        bool as_expected = l.err == c->err && lg_test_diag_has(&l.d, LG_ERROR, where) &&
                           lg_test_diag_has(&l.d, LG_ERROR, c->needle);
        if (!as_expected) {
            print_message("case %zu: expected error %d at '%s' with '%s', got %d:\n", i, c->err,
                          where, c->needle, l.err);
            lg_test_diag_dump(&l.d);
        }
        assert_true(as_expected);
        check_failed(&l);
        lg_test_loaded_destroy(&l);
    }
}

static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "a 1 1.000001: cycles:\n\t 400 f\0g (x)\n";
    const char *path = lg_test_write_file("nul.txt", text, sizeof text - 1);
    char needle[1024];
    snprintf(needle, sizeof needle, "%s:2:8: expected text, found a NUL byte", path);
    lg_test_loaded_t l;
    load(&l, path, NULL);
    assert_int_equal(l.err, LG_EFORMAT);
    assert_true(lg_test_diag_has(&l.d, LG_ERROR, needle));
    check_failed(&l);
    lg_test_loaded_destroy(&l);
}

static void test_missing_file(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load(&l, LORGEN_TEST_TMPDIR "/no-such-file.txt", NULL);
    assert_int_equal(l.err, LG_EIO);
    assert_true(lg_test_diag_has(&l.d, LG_ERROR, "no-such-file.txt: cannot open"));
    check_failed(&l);
    lg_test_loaded_destroy(&l);
    load(&l, LORGEN_TEST_TMPDIR, NULL); /* a directory opens but does not read */
    assert_int_equal(l.err, LG_EIO);
    check_failed(&l);
    lg_test_loaded_destroy(&l);
}

static void test_limits(void **state)
{
    (void)state;
    static const char header[] = "a 1 1.000001: cycles:\n";
    static const char frame[] = "\t 1 f (x)\n";
    size_t hlen = sizeof header - 1, flen = sizeof frame - 1;
    char needle[1024];
    lg_test_loaded_t l;

    /* A line one byte past LG_PERF_SCRIPT_MAX_LINE (its line feed not counted). */
    size_t long_len = hlen + LG_PERF_SCRIPT_MAX_LINE + 2;
    char *text = malloc(long_len);
    assert_non_null(text);
    memcpy(text, header, hlen);
    memset(text + hlen, 'f', LG_PERF_SCRIPT_MAX_LINE + 1);
    memcpy(text + hlen, "\t 1 ", 4);
    memcpy(text + long_len - 5, " (x)\n", 5);
    const char *path = lg_test_write_file("long.txt", text, long_len);
    snprintf(needle, sizeof needle, "%s:2: line is longer than %u bytes (LG_PERF_SCRIPT_MAX_LINE)",
             path, LG_PERF_SCRIPT_MAX_LINE);
    load(&l, path, NULL);
    assert_int_equal(l.err, LG_ELIMIT);
    assert_true(lg_test_diag_has(&l.d, LG_ERROR, needle));
    check_failed(&l);
    lg_test_loaded_destroy(&l);
    /* Exactly at the limit it loads: one 'f' fewer. */
    memmove(text + hlen + 4, text + hlen + 5, long_len - hlen - 5);
    path = lg_test_write_file("long-ok.txt", text, long_len - 1);
    load_ok(&l, path, NULL);
    lg_test_loaded_destroy(&l);
    free(text);

    /* LG_PERF_SCRIPT_MAX_FRAMES frames of one recursing function load; one more does not. */
    size_t frames = LG_PERF_SCRIPT_MAX_FRAMES + 1;
    text = malloc(hlen + frames * flen);
    assert_non_null(text);
    memcpy(text, header, hlen);
    for (size_t i = 0; i < frames; i++)
        memcpy(text + hlen + i * flen, frame, flen);
    path = lg_test_write_file("deep-ok.txt", text, hlen + (frames - 1) * flen);
    load_ok(&l, path, NULL);
    check_hits(&l.p, "f", "x", 1, 1, 1);
    assert_int_equal(edge(&l.p, "f", "x", "f", "x"), LG_PERF_SCRIPT_MAX_FRAMES - 1);
    lg_test_loaded_destroy(&l);
    path = lg_test_write_file("deep.txt", text, hlen + frames * flen);
    snprintf(needle, sizeof needle, "%s:%zu: sample has more than %u frames", path, frames + 1,
             LG_PERF_SCRIPT_MAX_FRAMES);
    load(&l, path, NULL);
    assert_int_equal(l.err, LG_ELIMIT);
    assert_true(lg_test_diag_has(&l.d, LG_ERROR, needle));
    check_failed(&l);
    lg_test_loaded_destroy(&l);
    free(text);
}

/* ---- Truncation ------------------------------------------------------------------------- */

/* Under LORGEN_TEST_SMALL, the longest prefix cut below the whole file, in bytes: every prefix
 * is read from its start, so the full 57 KB file costs 46 MB of reading, minutes under valgrind.
 * 8 KiB still holds headers, frames, comments and blank lines of every file here. */
#define SMALL_TRUNCATION_BYTES 8192u

/* Loads every prefix of a file ending at a line boundary (every byte too when bytes is true);
 * when small, only those up to SMALL_TRUNCATION_BYTES, and the whole file.
 * A prefix never crashes; it loads, or fails with one error and an empty profile. Line-boundary
 * prefixes that hold a sample header are valid perf output and must load, with no more samples
 * than the whole file. */
static void truncate_file(const char *source, bool bytes, bool small)
{
    size_t size;
    uint8_t *data = lg_test_read_file(source, &size);
    assert_non_null(data);
    lg_test_loaded_t whole;
    load_ok(&whole, source, NULL);
    bool seen_header = false;
    size_t line_start = 0;
    for (size_t cut = 0; cut <= size; cut++) {
        bool at_line = cut == 0 || data[cut - 1] == '\n';
        if (!at_line && !bytes)
            continue;
        if (at_line && cut > 0) {
            /* The line just completed: a sample header starts in column 0 (all these files). */
            char c = (char)data[line_start];
            seen_header = seen_header || (c != '#' && c != '\t' && c != ' ' && c != '\n');
            line_start = cut;
        }
        if (small && cut > SMALL_TRUNCATION_BYTES && cut < size)
            continue;
        /* Removed first: rewriting a file in place makes ext4 flush it on close
         * (auto_da_alloc), which turns thousands of prefixes into minutes. */
        remove(LORGEN_TEST_TMPDIR "/truncated.txt");
        const char *path = lg_test_write_file("truncated.txt", data, cut);
        lg_test_loaded_t l;
        load(&l, path, NULL);
        if (l.err == LG_OK) {
            assert_true(l.p.total_hits <= whole.p.total_hits);
            assert_true(l.p.nfuncs <= whole.p.nfuncs);
        } else {
            check_failed(&l);
            if (at_line && seen_header) {
                print_message("%s: prefix of %zu bytes failed\n", source, cut);
                lg_test_diag_dump(&l.d);
                fail();
            }
        }
        lg_test_loaded_destroy(&l);
    }
    lg_test_loaded_destroy(&whole);
    free(data);
}

static void test_truncation(void **state)
{
    (void)state;
    bool small = lg_test_small("truncation: prefixes of at most 8 KiB, and the whole files");
    truncate_file(MIXED, true, small);
    truncate_file(DD, true, small);
    truncate_file(FUNCAB, false, small);
    truncate_file(ISSUE28, false, small);
    truncate_file(CYCLES_INSNS, false, small);
}

/* Each function keeps its DSO as the object it was profiled in, for binding to name. */
static void test_functions_keep_their_dso(void **state)
{
    (void)state;
    lg_test_loaded_t l;
    load_ok(&l, FUNCAB, NULL);
    const lg_pfunc_t *f = func(&l.p, "__libc_start_main", "libc-2.19.so");
    assert_non_null(f->object);
    assert_string_equal(f->object, "libc-2.19.so");
    lg_test_loaded_destroy(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_functions_keep_their_dso),
        cmocka_unit_test(test_probe_accepts_perf_script),
        cmocka_unit_test(test_probe_rejects_others),
        cmocka_unit_test(test_funcab),
        cmocka_unit_test(test_dd),
        cmocka_unit_test(test_issue28),
        cmocka_unit_test(test_events_default_first),
        cmocka_unit_test(test_events_explicit),
        cmocka_unit_test(test_events_unknown),
        cmocka_unit_test(test_event_modifiers),
        cmocka_unit_test(test_many_events),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_nochain),
        cmocka_unit_test(test_unknown_breaks_chain),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_memory_does_not_grow_with_samples),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
