/* test_timeline.c - from Entry / Suspend / Resume / Exit events to calls, times and proximity.
 *
 * Every expected figure is worked out by hand in the comment above its events: net time is the
 * span a function was on top of its stream and running, gross time Entry to Exit. The repair
 * rules (timeline.c's file comment) are each driven on their own and checked for their exact
 * counts and the one warning lg_timeline_finish gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Name the profile carries in the warning. */
#define PROFILE_PATH "t.BIN"

enum { E = LG_TL_ENTRY, S = LG_TL_SUSPEND, R = LG_TL_RESUME, X = LG_TL_EXIT };

typedef struct event {
    uint32_t stream;
    const char *func;
    int kind;
    int64_t time;
} event_t;

typedef struct run {
    lg_profile_t p;
    lg_diag_t d;
    lg_timeline_t *t;
    lg_tl_stats_t stats;
} run_t;

static uint32_t func_id(lg_profile_t *p, const char *name)
{
    uint32_t id;
    assert_int_equal(lg_profile_intern(p, name, NULL, NULL, &id), LG_OK);
    return id;
}

static void run_start_counting(run_t *r, bool proximity)
{
    lg_profile_init(&r->p);
    lg_diag_init(&r->d);
    assert_int_equal(lg_profile_set_path(&r->p, PROFILE_PATH), LG_OK);
    r->p.format = "test";
    assert_int_equal(lg_timeline_create(&r->p, proximity, &r->t), LG_OK);
}

static void run_start(run_t *r)
{
    run_start_counting(r, true);
}

static void feed(run_t *r, const event_t *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t f = func_id(&r->p, ev[i].func);
        assert_int_equal(
            lg_timeline_event(r->t, ev[i].stream, f, (lg_tl_kind_t)ev[i].kind, ev[i].time), LG_OK);
    }
}

static void run_finish(run_t *r)
{
    assert_int_equal(lg_timeline_finish(r->t, &r->d), LG_OK);
    r->stats = *lg_timeline_stats(r->t);
    lg_timeline_destroy(r->t);
    r->t = NULL;
}

/* Feeds the events and finishes. */
static void run_events(run_t *r, const event_t *ev, size_t n)
{
    run_start(r);
    feed(r, ev, n);
    run_finish(r);
}

static void run_destroy(run_t *r)
{
    lg_timeline_destroy(r->t);
    lg_profile_destroy(&r->p);
    lg_diag_destroy(&r->d);
}

static const lg_pfunc_t *fn(const run_t *r, const char *name)
{
    int64_t i = lg_profile_find(&r->p, name, NULL, NULL);
    assert_true(i >= 0);
    return &r->p.funcs[i];
}

/* The function's hits, gross and net time. */
static void assert_func(const run_t *r, const char *name, uint64_t hits, uint64_t gross,
                        uint64_t net)
{
    lg_test_assert_func_times(&r->p, name, hits, gross, net);
}

/* The weight of a call edge, -1 when absent. */
static int64_t arc_weight(const lg_arc_t *arcs, size_t n, uint32_t caller, uint32_t callee)
{
    for (size_t i = 0; i < n; i++)
        if (arcs[i].caller == caller && arcs[i].callee == callee)
            return (int64_t)arcs[i].weight;
    return -1;
}

/* The weight of a proximity pair (a < b), -1 when absent. */
static int64_t pair_weight(const lg_pair_t *pairs, size_t n, uint32_t a, uint32_t b)
{
    for (size_t i = 0; i < n; i++)
        if (pairs[i].a == a && pairs[i].b == b)
            return (int64_t)pairs[i].weight;
    return -1;
}

static int64_t edge(const run_t *r, const char *caller, const char *callee)
{
    return arc_weight(r->p.edges, r->p.nedges, (uint32_t)(fn(r, caller) - r->p.funcs),
                      (uint32_t)(fn(r, callee) - r->p.funcs));
}

static int64_t near(const run_t *r, const char *a, const char *b)
{
    uint32_t x = (uint32_t)(fn(r, a) - r->p.funcs), y = (uint32_t)(fn(r, b) - r->p.funcs);
    return pair_weight(r->p.proximity, r->p.nproximity, x < y ? x : y, x < y ? y : x);
}

static void assert_clean(const run_t *r)
{
    if (r->d.count != 0)
        lg_test_diag_dump(&r->d);
    assert_int_equal(r->d.count, 0);
    assert_int_equal(r->stats.started_inside, 0);
    assert_int_equal(r->stats.unmatched, 0);
    assert_int_equal(r->stats.exit_not_top, 0);
    assert_int_equal(r->stats.open_at_end, 0);
    assert_int_equal(r->stats.time_backwards, 0);
}

/* Exactly one diagnostic, a warning at the profile's path whose message is exactly text. */
static void assert_one_warning(const run_t *r, const char *text)
{
    if (r->d.count != 1 || strcmp(r->d.entries[0].message, text) != 0) {
        print_message("  expected: %s\n", text);
        lg_test_diag_dump(&r->d);
    }
    assert_int_equal(r->d.count, 1);
    assert_int_equal(r->d.warnings, 1);
    assert_string_equal(r->d.entries[0].where, PROFILE_PATH);
    assert_string_equal(r->d.entries[0].message, text);
}

/* ---- Well-formed timelines --------------------------------------------------------------- */

static void test_nested_calls(void **state)
{
    (void)state;
    /* main runs 0-10, 30-40, 43-50 (net 27); a runs 10-15, 25-30 (net 10, gross 10-30 = 20);
     * b runs 15-25 and 40-43 (net 13, gross 13). The nets add up to the 50 ns recorded. */
    static const event_t ev[] = {
        {0, "main", E, 0},  {0, "main", S, 10}, {0, "a", E, 10}, {0, "a", S, 15},
        {0, "b", E, 15},    {0, "b", X, 25},    {0, "a", R, 25}, {0, "a", X, 30},
        {0, "main", R, 30}, {0, "main", S, 40}, {0, "b", E, 40}, {0, "b", X, 43},
        {0, "main", R, 43}, {0, "main", X, 50},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_clean(&r);
    assert_int_equal(r.stats.events, 14);
    assert_func(&r, "main", 1, 50, 27);
    assert_func(&r, "a", 1, 20, 10);
    assert_func(&r, "b", 2, 13, 13);
    assert_int_equal(r.p.nedges, 3);
    assert_int_equal(edge(&r, "main", "a"), 1);
    assert_int_equal(edge(&r, "a", "b"), 1);
    assert_int_equal(edge(&r, "main", "b"), 1);
    assert_int_equal(r.p.call_records, 3);
    assert_int_equal(r.p.kind, LG_PROFILE_TRACE);
    assert_true(r.p.has_call_edges);
    assert_true(r.p.has_timeline);
    assert_string_equal(r.p.counter1_unit, "ns");
    run_destroy(&r);
}

static void test_entry_without_suspend(void **state)
{
    (void)state;
    /* Exports without Suspend/Resume still give net time: main is on top 0-5 and 8-20. */
    static const event_t ev[] = {
        {0, "main", E, 0},
        {0, "a", E, 5},
        {0, "a", X, 8},
        {0, "main", X, 20},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_clean(&r);
    assert_func(&r, "main", 1, 20, 17);
    assert_func(&r, "a", 1, 3, 3);
    assert_int_equal(edge(&r, "main", "a"), 1);
    run_destroy(&r);
}

static void test_suspend_resume_net_time(void **state)
{
    (void)state;
    /* Preempted 10-30 by something not profiled: net 10 + 5, gross 35. */
    static const event_t ev[] = {
        {0, "f", E, 0},
        {0, "f", S, 10},
        {0, "f", R, 30},
        {0, "f", X, 35},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_clean(&r);
    assert_func(&r, "f", 1, 35, 15);
    assert_int_equal(r.p.nedges, 0);
    run_destroy(&r);
}

static void test_recursion(void **state)
{
    (void)state;
    /* f -> f -> f. Running: outer 0-2 and 9-12, middle 2-3 and 7-9, inner 3-7: net 12. Gross:
     * only the outer call (0-12); the inner calls are inside it. */
    static const event_t ev[] = {
        {0, "f", E, 0}, {0, "f", S, 2}, {0, "f", E, 2}, {0, "f", S, 3}, {0, "f", E, 3},
        {0, "f", X, 7}, {0, "f", R, 7}, {0, "f", X, 9}, {0, "f", R, 9}, {0, "f", X, 12},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_clean(&r);
    assert_func(&r, "f", 3, 12, 12);
    assert_int_equal(edge(&r, "f", "f"), 2);
    run_destroy(&r);
}

static void test_mutual_recursion(void **state)
{
    (void)state;
    /* f -> g -> f: f's gross is 5 (outer) + 1 (inner), counted twice as callgrind does; net: f
     * 0-1, 2-3, 4-5; g 1-2, 3-4. */
    static const event_t ev[] = {
        {0, "f", E, 0}, {0, "g", E, 1}, {0, "f", E, 2},
        {0, "f", X, 3}, {0, "g", X, 4}, {0, "f", X, 5},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_clean(&r);
    assert_func(&r, "f", 2, 6, 3);
    assert_func(&r, "g", 1, 3, 2);
    assert_int_equal(edge(&r, "f", "g"), 1);
    assert_int_equal(edge(&r, "g", "f"), 1);
    run_destroy(&r);
}

static void test_multi_core_interleaving(void **state)
{
    (void)state;
    /* Two cores call a at overlapping times; each has its own stack, so a's Exit on core 0 at 4
     * closes core 0's call only. a: gross 2 + 3, net the same. main: 0-2, 4-7; task: 1-3, 6-9. */
    static const event_t ev[] = {
        {0, "main", E, 0}, {1, "task", E, 1}, {0, "main", S, 2}, {0, "a", E, 2},
        {1, "task", S, 3}, {1, "a", E, 3},    {0, "a", X, 4},    {0, "main", R, 4},
        {1, "a", X, 6},    {1, "task", R, 6}, {0, "main", X, 7}, {1, "task", X, 9},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_clean(&r);
    assert_func(&r, "a", 2, 5, 5);
    assert_func(&r, "main", 1, 7, 5);
    assert_func(&r, "task", 1, 8, 5);
    assert_int_equal(r.p.nedges, 2);
    assert_int_equal(edge(&r, "main", "a"), 1);
    assert_int_equal(edge(&r, "task", "a"), 1);
    run_destroy(&r);
}

static void test_adds_to_profile(void **state)
{
    (void)state;
    /* Counters already in the profile are added to; functions added after the timeline was
     * created can be fed. */
    run_t r;
    run_start(&r);
    uint32_t f = func_id(&r.p, "f");
    r.p.funcs[f].hits = 5;
    r.p.funcs[f].counter1_self = 100;
    assert_int_equal(lg_timeline_event(r.t, 0, f, LG_TL_ENTRY, 0), LG_OK);
    uint32_t g = func_id(&r.p, "g");
    assert_int_equal(lg_timeline_event(r.t, 0, g, LG_TL_ENTRY, 1), LG_OK);
    assert_int_equal(lg_timeline_event(r.t, 0, g, LG_TL_EXIT, 3), LG_OK);
    assert_int_equal(lg_timeline_event(r.t, 0, f, LG_TL_EXIT, 4), LG_OK);
    run_finish(&r);
    assert_clean(&r);
    assert_func(&r, "f", 6, 4, 102);
    assert_func(&r, "g", 1, 2, 2);
    run_destroy(&r);
}

/* ---- Repairs ----------------------------------------------------------------------------- */

static void test_started_inside(void **state)
{
    (void)state;
    /* The recording starts inside main -> a -> b. b X and a R and main R have no frame on an
     * empty stack: 3 repairs. a's frame is assumed open since 100 (gross 20), runs 100-110 and
     * 115-120 (net 15); main's since 100 too (gross 30, net 120-130). No hits or edges for the
     * assumed frames; a -> c is a real call. */
    static const event_t ev[] = {
        {0, "b", X, 100}, {0, "a", R, 100},    {0, "a", S, 110},
        {0, "c", E, 110}, {0, "c", X, 115},    {0, "a", R, 115},
        {0, "a", X, 120}, {0, "main", R, 120}, {0, "main", X, 130},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.started_inside, 3);
    assert_int_equal(
        r.stats.unmatched + r.stats.exit_not_top + r.stats.open_at_end + r.stats.time_backwards, 0);
    assert_func(&r, "b", 0, 0, 0);
    assert_func(&r, "a", 0, 20, 15);
    assert_func(&r, "c", 1, 5, 5);
    assert_func(&r, "main", 0, 30, 10);
    assert_int_equal(r.p.nedges, 1);
    assert_int_equal(edge(&r, "a", "c"), 1);
    assert_one_warning(&r, "timeline repaired (9 events): 3 Exit/Suspend/Resume event(s) of a "
                           "function with no open frame on an empty stack: the recording began "
                           "inside the call, assumed open since the stream's first event");
    run_destroy(&r);
}

static void test_started_inside_running_time(void **state)
{
    (void)state;
    /* y exits at 12 with no frame; the stack has been empty since x's Exit at 5, so y ran 5-12
     * (net 7); its frame counts from the stream's first event (gross 12). */
    static const event_t ev[] = {{0, "x", E, 0}, {0, "x", X, 5}, {0, "y", X, 12}};
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.started_inside, 1);
    assert_func(&r, "x", 1, 5, 5);
    assert_func(&r, "y", 0, 12, 7);
    run_destroy(&r);
}

static void test_cut_at_end(void **state)
{
    (void)state;
    /* main and a are still open after b's Exit at 26, the stream's last event: closed there. */
    static const event_t ev[] = {
        {0, "main", E, 0},
        {0, "a", E, 5},
        {0, "b", E, 20},
        {0, "b", X, 26},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.open_at_end, 2);
    assert_int_equal(r.stats.started_inside + r.stats.unmatched + r.stats.exit_not_top +
                         r.stats.time_backwards,
                     0);
    assert_func(&r, "main", 1, 26, 5);
    assert_func(&r, "a", 1, 21, 15);
    assert_func(&r, "b", 1, 6, 6);
    assert_one_warning(&r, "timeline repaired (4 events): 2 frame(s) still open at the end: "
                           "closed at their stream's last event");
    run_destroy(&r);
}

static void test_exit_not_on_top(void **state)
{
    (void)state;
    /* a exits while b is on top: b is closed at 4 too. b: 2-4; a: 1-2; main: 0-1, 4-6. */
    static const event_t ev[] = {
        {0, "main", E, 0}, {0, "a", E, 1}, {0, "b", E, 2}, {0, "a", X, 4}, {0, "main", X, 6},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.exit_not_top, 1);
    assert_int_equal(r.stats.started_inside + r.stats.unmatched + r.stats.open_at_end +
                         r.stats.time_backwards,
                     0);
    assert_func(&r, "main", 1, 6, 3);
    assert_func(&r, "a", 1, 3, 1);
    assert_func(&r, "b", 1, 2, 2);
    assert_one_warning(&r, "timeline repaired (5 events): 1 Exit/Suspend/Resume event(s) of a "
                           "function below the top of its stack: the frames above it closed "
                           "there");
    run_destroy(&r);
}

static void test_resume_not_on_top(void **state)
{
    (void)state;
    /* b's Exit is lost: main's Resume at 7 closes b there. */
    static const event_t ev[] = {
        {0, "main", E, 0}, {0, "main", S, 2}, {0, "b", E, 2}, {0, "main", R, 7}, {0, "main", X, 9},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.exit_not_top, 1);
    assert_func(&r, "b", 1, 5, 5);
    assert_func(&r, "main", 1, 9, 4);
    run_destroy(&r);
}

static void test_unmatched_ignored(void **state)
{
    (void)state;
    /* z exits with no frame while main is open: ignored; main keeps running 0-5. */
    static const event_t ev[] = {{0, "main", E, 0}, {0, "z", X, 3}, {0, "main", X, 5}};
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.unmatched, 1);
    assert_int_equal(r.stats.started_inside, 0);
    assert_func(&r, "main", 1, 5, 5);
    assert_func(&r, "z", 0, 0, 0);
    assert_one_warning(&r, "timeline repaired (3 events): 1 Exit/Suspend/Resume event(s) of a "
                           "function with no open frame while other frames were open (events "
                           "lost?): ignored");
    run_destroy(&r);
}

static void test_time_backwards(void **state)
{
    (void)state;
    /* a's Entry at 8 is before main's at 10: taken at 10. Core 1's event at 1 is not backwards:
     * streams keep their own clocks. */
    static const event_t ev[] = {
        {0, "main", E, 10}, {0, "a", E, 8},  {1, "t", E, 1},
        {1, "t", X, 2},     {0, "a", X, 15}, {0, "main", X, 20},
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.time_backwards, 1);
    assert_func(&r, "a", 1, 5, 5);
    assert_func(&r, "main", 1, 10, 5);
    assert_func(&r, "t", 1, 1, 1);
    assert_one_warning(&r, "timeline repaired (6 events): 1 event(s) earlier than the event "
                           "before on the same stream: taken at that event's time");
    run_destroy(&r);
}

/* The same with every function known before the first event, so that no event is new to the
 * builder: an Entry and an Exit that go back in time on a stream with frames open. b's Entry at
 * 15 is taken at 20, main's Exit at 25 at 30. main runs 0-10 and its gross time is 0-30; a and
 * b run 10 each. */
static void test_time_backwards_known_functions(void **state)
{
    (void)state;
    static const event_t ev[] = {
        {0, "main", E, 0}, {0, "a", E, 10}, {0, "a", X, 20},
        {0, "b", E, 15},   {0, "b", X, 30}, {0, "main", X, 25},
    };
    run_t r;
    run_start(&r);
    for (size_t i = 0; i < sizeof ev / sizeof *ev; i++)
        func_id(&r.p, ev[i].func);
    feed(&r, ev, sizeof ev / sizeof *ev);
    run_finish(&r);
    assert_int_equal(r.stats.time_backwards, 2);
    assert_func(&r, "main", 1, 30, 10);
    assert_func(&r, "a", 1, 10, 10);
    assert_func(&r, "b", 1, 10, 10);
    assert_int_equal(edge(&r, "main", "b"), 1);
    run_destroy(&r);
}

static void test_all_repairs_one_warning(void **state)
{
    (void)state;
    static const event_t ev[] = {
        {0, "a", X, 10},                  /* started inside */
        {0, "m", E, 10}, {0, "q", X, 11}, /* unmatched */
        {0, "b", E, 12}, {0, "m", X, 13}, /* not on top */
        {0, "c", E, 9},                   /* backwards, and open at the end */
    };
    run_t r;
    run_events(&r, ev, sizeof ev / sizeof *ev);
    assert_int_equal(r.stats.started_inside, 1);
    assert_int_equal(r.stats.unmatched, 1);
    assert_int_equal(r.stats.exit_not_top, 1);
    assert_int_equal(r.stats.time_backwards, 1);
    assert_int_equal(r.stats.open_at_end, 1);
    assert_one_warning(
        &r, "timeline repaired (6 events): 1 Exit/Suspend/Resume event(s) of a function with no "
            "open frame on an empty stack: the recording began inside the call, assumed open "
            "since the stream's first event; 1 Exit/Suspend/Resume event(s) of a function with "
            "no open frame while other frames were open (events lost?): ignored; 1 "
            "Exit/Suspend/Resume event(s) of a function below the top of its stack: the frames "
            "above it closed there; 1 frame(s) still open at the end: closed at their stream's "
            "last event; 1 event(s) earlier than the event before on the same stream: taken at "
            "that event's time");
    run_destroy(&r);
}

/* ---- Proximity --------------------------------------------------------------------------- */

/* Entries (each exited at once) of the named functions on stream, one ns apart. */
static void enter_all(run_t *r, uint32_t stream, const char *const *names, size_t n, int64_t *time)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t f = func_id(&r->p, names[i]);
        assert_int_equal(lg_timeline_event(r->t, stream, f, LG_TL_ENTRY, (*time)++), LG_OK);
        assert_int_equal(lg_timeline_event(r->t, stream, f, LG_TL_EXIT, (*time)++), LG_OK);
    }
}

static void test_proximity_worked_example(void **state)
{
    (void)state;
    /* Window after each Entry (most recent first) and the pairs it adds:
     *   a  [a]          -
     *   b  [b a]        b-a
     *   c  [c b a]      c-b c-a
     *   a  [a c b]      a at position 2: a-c a-b
     *   b  [b a c]      b at 2: b-a b-c
     *   d  [d b a c]    d-b d-a d-c
     *   a  [a d b c]    a at 2: a-d a-b
     *   a  [a d b c]    position 0: nothing
     *   d  [d a b c]    position 1: nothing
     * a-b 4, a-c 2, b-c 2, a-d 2, b-d 1, c-d 1. */
    static const char *const seq[] = {"a", "b", "c", "a", "b", "d", "a", "a", "d"};
    run_t r;
    run_start(&r);
    int64_t time = 0;
    enter_all(&r, 0, seq, sizeof seq / sizeof *seq, &time);
    run_finish(&r);
    assert_clean(&r);
    assert_int_equal(r.p.nproximity, 6);
    assert_int_equal(near(&r, "a", "b"), 4);
    assert_int_equal(near(&r, "a", "c"), 2);
    assert_int_equal(near(&r, "b", "c"), 2);
    assert_int_equal(near(&r, "a", "d"), 2);
    assert_int_equal(near(&r, "b", "d"), 1);
    assert_int_equal(near(&r, "c", "d"), 1);
    /* Pairs are stored lower index first, sorted. */
    for (size_t i = 0; i < r.p.nproximity; i++)
        assert_true(r.p.proximity[i].a < r.p.proximity[i].b);
    run_destroy(&r);
}

static void test_proximity_skipped(void **state)
{
    (void)state;
    /* The same nested calls counted with and without proximity: everything but the pairs is the
     * same. */
    static const char *const seq[] = {"a", "b", "c", "a", "b", "d", "a", "a", "d"};
    run_t with, without;
    run_t *runs[] = {&with, &without};
    for (size_t k = 0; k < 2; k++) {
        run_start_counting(runs[k], k == 0);
        int64_t time = 0;
        uint32_t main_fn = func_id(&runs[k]->p, "main");
        assert_int_equal(lg_timeline_event(runs[k]->t, 0, main_fn, LG_TL_ENTRY, time), LG_OK);
        for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
            uint32_t f = func_id(&runs[k]->p, seq[i]);
            assert_int_equal(lg_timeline_event(runs[k]->t, 0, f, LG_TL_ENTRY, ++time), LG_OK);
            assert_int_equal(lg_timeline_event(runs[k]->t, 0, f, LG_TL_EXIT, ++time), LG_OK);
        }
        assert_int_equal(lg_timeline_event(runs[k]->t, 0, main_fn, LG_TL_EXIT, ++time), LG_OK);
        run_finish(runs[k]);
        assert_clean(runs[k]);
    }
    assert_int_equal(with.p.nproximity, 10); /* the worked example's 6, and main with a-d */
    assert_int_equal(without.p.nproximity, 0);
    assert_true(without.p.has_timeline);
    assert_int_equal(without.p.nfuncs, with.p.nfuncs);
    for (size_t i = 0; i < with.p.nfuncs; i++) {
        assert_string_equal(without.p.funcs[i].name, with.p.funcs[i].name);
        assert_func(&without, with.p.funcs[i].name, with.p.funcs[i].hits,
                    with.p.funcs[i].counter1_total, with.p.funcs[i].counter1_self);
    }
    assert_int_equal(without.p.nedges, with.p.nedges);
    for (size_t i = 0; i < with.p.nedges; i++)
        assert_memory_equal(&without.p.edges[i], &with.p.edges[i], sizeof *with.p.edges);
    run_destroy(&with);
    run_destroy(&without);
}

static void test_proximity_window_size(void **state)
{
    (void)state;
    /* f0 .. f17 entered once each: f_j pairs with the min(j, 16) before it, 152 pairs; f0 drops
     * out of the 16-function window when f16 enters, so f0-f17 never pair. */
    static const char *const seq[] = {"f0", "f1",  "f2",  "f3",  "f4",  "f5",  "f6",  "f7",  "f8",
                                      "f9", "f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17"};
    run_t r;
    run_start(&r);
    int64_t time = 0;
    enter_all(&r, 0, seq, sizeof seq / sizeof *seq, &time);
    run_finish(&r);
    assert_int_equal(r.p.nproximity, 152);
    assert_int_equal(near(&r, "f0", "f16"), 1);
    assert_int_equal(near(&r, "f0", "f17"), -1);
    assert_int_equal(near(&r, "f1", "f17"), 1);
    run_destroy(&r);
}

static void test_proximity_per_stream(void **state)
{
    (void)state;
    /* Core 1's Entry of b falls between a and c in time, but windows are per stream. */
    static const char *const a[] = {"a"}, *const b[] = {"b"}, *const c[] = {"c"};
    run_t r;
    run_start(&r);
    int64_t time = 0;
    enter_all(&r, 0, a, 1, &time);
    enter_all(&r, 1, b, 1, &time);
    enter_all(&r, 0, c, 1, &time);
    run_finish(&r);
    assert_int_equal(r.p.nproximity, 1);
    assert_int_equal(near(&r, "a", "c"), 1);
    run_destroy(&r);
}

/* The proximity rule written the plain way, for a long random sequence: per stream a list of up
 * to LG_TL_PROXIMITY_WINDOW functions, most recent first, and a full matrix of pair weights. */
#define MODEL_FUNCS 400u
#define MODEL_STREAMS 3u
#define MODEL_ENTRIES 200000u

typedef struct model {
    uint32_t window[MODEL_STREAMS][LG_TL_PROXIMITY_WINDOW];
    uint32_t n[MODEL_STREAMS];
    uint32_t *weight; /* [lower * MODEL_FUNCS + higher] */
} model_t;

static void model_enter(model_t *m, uint32_t stream, uint32_t f)
{
    uint32_t *w = m->window[stream], n = m->n[stream], pos = 0;
    while (pos < n && w[pos] != f)
        pos++;
    if (pos == n || pos >= LG_TL_PROXIMITY_RECENT)
        for (uint32_t i = 0; i < pos; i++)
            m->weight[(f < w[i] ? f : w[i]) * MODEL_FUNCS + (f < w[i] ? w[i] : f)]++;
    if (pos == n && n < LG_TL_PROXIMITY_WINDOW)
        m->n[stream] = ++n;
    if (pos == n)
        pos = n - 1;
    memmove(w + 1, w, pos * sizeof *w);
    w[0] = f;
}

static void test_proximity_matches_model(void **state)
{
    (void)state;
    /* Several hundred functions per stream, so the builder's per-stream cache of the most recent
     * 128 keeps giving slots to new functions and moving counts out; two of three calls go to
     * the 40 hottest functions, so windows also repeat. Calls nest up to 3 deep. */
    static model_t m;
    m.weight = calloc(MODEL_FUNCS * MODEL_FUNCS, sizeof *m.weight);
    assert_non_null(m.weight);
    memset(m.n, 0, sizeof m.n);
    uint64_t *calls = calloc(MODEL_FUNCS * MODEL_FUNCS, sizeof *calls);
    assert_non_null(calls);
    run_t r;
    run_start(&r);
    char name[16];
    for (uint32_t f = 0; f < MODEL_FUNCS; f++) {
        snprintf(name, sizeof name, "f%u", f);
        assert_int_equal(func_id(&r.p, name), f);
    }
    lg_test_seed(5);
    uint32_t stack[MODEL_STREAMS][4], depth[MODEL_STREAMS] = {0};
    int64_t time = 0;
    for (uint32_t i = 0; i < MODEL_ENTRIES; i++) {
        uint32_t st = (uint32_t)(lg_test_rng() % MODEL_STREAMS);
        while (depth[st] > 0 && (depth[st] == 4 || lg_test_rng() % 2 == 0))
            assert_int_equal(lg_timeline_event(r.t, st, stack[st][--depth[st]], LG_TL_EXIT, time++),
                             LG_OK);
        uint32_t f =
            (uint32_t)(lg_test_rng() % 3 != 0 ? lg_test_rng() % 40 : lg_test_rng() % MODEL_FUNCS);
        if (depth[st] > 0)
            calls[stack[st][depth[st] - 1] * MODEL_FUNCS + f]++;
        assert_int_equal(lg_timeline_event(r.t, st, f, LG_TL_ENTRY, time++), LG_OK);
        stack[st][depth[st]++] = f;
        model_enter(&m, st, f);
    }
    for (uint32_t st = 0; st < MODEL_STREAMS; st++)
        while (depth[st] > 0)
            assert_int_equal(lg_timeline_event(r.t, st, stack[st][--depth[st]], LG_TL_EXIT, time++),
                             LG_OK);
    run_finish(&r);
    assert_clean(&r);
    /* Both lists are sorted and unique: walk them against the model's matrices. */
    size_t pairs = 0, edges = 0;
    for (uint32_t a = 0; a < MODEL_FUNCS; a++)
        for (uint32_t b = 0; b < MODEL_FUNCS; b++) {
            uint64_t want = m.weight[a * MODEL_FUNCS + b];
            if (want > 0) {
                assert_true(pairs < r.p.nproximity);
                const lg_pair_t *got = &r.p.proximity[pairs++];
                if (got->a != a || got->b != b || got->weight != want)
                    print_message("  pair f%u f%u: model %llu, builder f%u f%u %llu\n", a, b,
                                  (unsigned long long)want, got->a, got->b,
                                  (unsigned long long)got->weight);
                assert_int_equal(got->a, a);
                assert_int_equal(got->b, b);
                assert_int_equal(got->weight, want);
            }
            uint64_t c = calls[a * MODEL_FUNCS + b];
            if (c > 0) {
                assert_true(edges < r.p.nedges);
                const lg_arc_t *got = &r.p.edges[edges++];
                assert_int_equal(got->caller, a);
                assert_int_equal(got->callee, b);
                assert_int_equal(got->weight, c);
            }
        }
    assert_int_equal(r.p.nproximity, pairs);
    assert_int_equal(r.p.nedges, edges);
    assert_true(pairs > 10000); /* far more than one cache's worth */
    run_destroy(&r);
    free(m.weight);
    free(calls);
}

/* ---- One event at a time and in batches -------------------------------------------------- */

/* A sequence of mostly well-formed calls on 3 streams, with noise that drives every repair (events
 * of functions not on top, started inside, unmatched, time going back) and both the common case
 * and the rest in the builder (timeline.c's event() and one_event). */
#define MIXED_FUNCS 30u
#define MIXED_STREAMS 3u
#define MIXED_EVENTS 60000u

static size_t mixed_events(lg_tl_event_t *ev)
{
    uint32_t stack[MIXED_STREAMS][8], depth[MIXED_STREAMS] = {0};
    int64_t time[MIXED_STREAMS] = {0};
    lg_test_seed(11);
    for (size_t i = 0; i < MIXED_EVENTS; i++) {
        uint32_t st = (uint32_t)(lg_test_rng() % MIXED_STREAMS), d = depth[st];
        uint32_t f = (uint32_t)(lg_test_rng() % MIXED_FUNCS),
                 roll = (uint32_t)(lg_test_rng() % 100);
        unsigned kind;
        if (roll < 3) { /* noise: any kind of any function */
            kind = (unsigned)(lg_test_rng() % 4);
        } else if (d == 0 || (d < 8 && roll < 40)) {
            kind = LG_TL_ENTRY;
            stack[st][depth[st]++] = f;
        } else {
            f = stack[st][d - 1];
            kind = roll < 60 ? LG_TL_EXIT : roll < 80 ? LG_TL_SUSPEND : LG_TL_RESUME;
            depth[st] -= kind == LG_TL_EXIT;
        }
        /* Equal times are common in real timelines (a Suspend and the callee's Entry). */
        uint32_t step = (uint32_t)(lg_test_rng() % 4);
        time[st] += roll == 99 ? -(int64_t)step * 5 : (int64_t)step;
        ev[i] = (lg_tl_event_t){time[st], f, LG_TL_KIND_STREAM(kind, st)};
    }
    return MIXED_EVENTS;
}

/* How run_mixed feeds the events. */
enum { SINGLE, BATCHES, RESERVED };

static void run_mixed(run_t *r, const lg_tl_event_t *ev, size_t n, int way, bool proximity)
{
    run_start_counting(r, proximity);
    char name[16];
    for (uint32_t f = 0; f < MIXED_FUNCS; f++) {
        snprintf(name, sizeof name, "f%u", f);
        assert_int_equal(func_id(&r->p, name), f);
    }
    bool batches = way != SINGLE;
    if (way == RESERVED) {
        uint32_t nfuncs;
        assert_int_equal(lg_timeline_reserve(r->t, MIXED_STREAMS, &nfuncs), LG_OK);
        assert_int_equal(nfuncs, MIXED_FUNCS);
    }
    for (size_t i = 0; i < n;) {
        if (!batches) {
            assert_int_equal(lg_timeline_event(r->t, ev[i].kind_stream >> LG_TL_KIND_BITS,
                                               ev[i].func,
                                               (lg_tl_kind_t)(ev[i].kind_stream & LG_TL_KIND_MASK),
                                               ev[i].time_ns),
                             LG_OK);
            i++;
            continue;
        }
        size_t k = 1 + (size_t)(lg_test_rng() % 700), done;
        if (k > n - i)
            k = n - i;
        assert_int_equal(way == RESERVED ? lg_timeline_events_reserved(r->t, ev + i, k, &done)
                                         : lg_timeline_events(r->t, ev + i, k, &done),
                         LG_OK);
        assert_int_equal(done, k);
        i += k;
    }
    run_finish(r);
}

static void test_batches_match_single_events(void **state)
{
    (void)state;
    lg_tl_event_t *ev = calloc(MIXED_EVENTS, sizeof *ev);
    assert_non_null(ev);
    size_t n = mixed_events(ev);
    /* Batches, and batches the timeline has reserved room for, each without and with
     * proximity, against single events. */
    for (int k = 0; k < 4; k++) {
        bool proximity = k / 2 == 1;
        int way = k % 2 == 0 ? BATCHES : RESERVED;
        run_t one, many;
        run_mixed(&one, ev, n, SINGLE, proximity);
        run_mixed(&many, ev, n, way, proximity);
        /* Every repair happened, so both halves of the builder ran. */
        assert_true(one.stats.started_inside > 0 && one.stats.exit_not_top > 0 &&
                    one.stats.unmatched > 0 && one.stats.time_backwards > 0 &&
                    one.stats.open_at_end > 0);
        assert_int_equal(one.stats.events, n);
        assert_memory_equal(&one.stats, &many.stats, sizeof one.stats);
        assert_int_equal(one.p.nfuncs, many.p.nfuncs);
        for (size_t f = 0; f < one.p.nfuncs; f++) {
            assert_int_equal(one.p.funcs[f].hits, many.p.funcs[f].hits);
            assert_int_equal(one.p.funcs[f].counter1_total, many.p.funcs[f].counter1_total);
            assert_int_equal(one.p.funcs[f].counter1_self, many.p.funcs[f].counter1_self);
        }
        assert_int_equal(one.p.call_records, many.p.call_records);
        assert_int_equal(one.p.nedges, many.p.nedges);
        assert_memory_equal(one.p.edges, many.p.edges, one.p.nedges * sizeof *one.p.edges);
        assert_int_equal(one.p.nproximity, many.p.nproximity);
        assert_true(proximity ? one.p.nproximity > 0 : one.p.nproximity == 0);
        if (one.p.nproximity > 0)
            assert_memory_equal(one.p.proximity, many.p.proximity,
                                one.p.nproximity * sizeof *one.p.proximity);
        run_destroy(&one);
        run_destroy(&many);
    }
    free(ev);
}

/* ---- Bad arguments and limits ------------------------------------------------------------ */

static void test_bad_arguments(void **state)
{
    (void)state;
    run_t r;
    run_start(&r);
    uint32_t f = func_id(&r.p, "f");
    assert_int_equal(lg_timeline_event(r.t, 0, f + 1, LG_TL_ENTRY, 0), LG_EINVAL);
    assert_int_equal(lg_timeline_event(r.t, LG_TL_MAX_STREAMS, f, LG_TL_ENTRY, 0), LG_EINVAL);
    assert_int_equal(lg_timeline_event(r.t, 0, f, (lg_tl_kind_t)4, 0), LG_EINVAL);
    assert_int_equal(lg_timeline_event(r.t, LG_TL_MAX_STREAMS - 1, f, LG_TL_ENTRY, 0), LG_OK);
    /* Also once the per-function arrays have room to spare. */
    assert_int_equal(lg_timeline_event(r.t, 0, f + 1, LG_TL_ENTRY, 0), LG_EINVAL);
    assert_int_equal(lg_timeline_stats(r.t)->events, 1);
    /* In a batch, a bad kind is refused where it stands, also on a stream with a frame open. */
    const lg_tl_event_t batch[] = {{1, f, LG_TL_KIND_STREAM(LG_TL_SUSPEND, LG_TL_MAX_STREAMS - 1)},
                                   {2, f, LG_TL_KIND_STREAM(4, LG_TL_MAX_STREAMS - 1)}};
    size_t done;
    assert_int_equal(lg_timeline_events(r.t, batch, 2, &done), LG_EINVAL);
    assert_int_equal(done, 1);
    assert_int_equal(lg_timeline_stats(r.t)->events, 2);
    assert_int_equal(lg_timeline_finish(r.t, &r.d), LG_OK);
    assert_int_equal(lg_timeline_event(r.t, 0, f, LG_TL_ENTRY, 0), LG_EINVAL);
    assert_int_equal(lg_timeline_finish(r.t, &r.d), LG_EINVAL);
    assert_int_equal(r.d.count, 1); /* the open frame */
    run_destroy(&r);
    lg_timeline_destroy(NULL);
}

static void test_depth_limit(void **state)
{
    (void)state;
    run_t r;
    run_start(&r);
    uint32_t f = func_id(&r.p, "f");
    for (uint32_t i = 0; i < LG_TL_MAX_DEPTH; i++)
        assert_int_equal(lg_timeline_event(r.t, 3, f, LG_TL_ENTRY, i), LG_OK);
    assert_int_equal(lg_timeline_event(r.t, 3, f, LG_TL_ENTRY, LG_TL_MAX_DEPTH), LG_ELIMIT);
    /* Other streams go on. */
    assert_int_equal(lg_timeline_event(r.t, 0, f, LG_TL_ENTRY, 0), LG_OK);
    run_finish(&r);
    assert_int_equal(r.stats.open_at_end, LG_TL_MAX_DEPTH + 1);
    assert_func(&r, "f", LG_TL_MAX_DEPTH + 1, LG_TL_MAX_DEPTH - 1, LG_TL_MAX_DEPTH - 1);
    assert_int_equal(edge(&r, "f", "f"), LG_TL_MAX_DEPTH - 1);
    run_destroy(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_calls),
        cmocka_unit_test(test_entry_without_suspend),
        cmocka_unit_test(test_suspend_resume_net_time),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_mutual_recursion),
        cmocka_unit_test(test_multi_core_interleaving),
        cmocka_unit_test(test_adds_to_profile),
        cmocka_unit_test(test_started_inside),
        cmocka_unit_test(test_started_inside_running_time),
        cmocka_unit_test(test_cut_at_end),
        cmocka_unit_test(test_exit_not_on_top),
        cmocka_unit_test(test_resume_not_on_top),
        cmocka_unit_test(test_unmatched_ignored),
        cmocka_unit_test(test_time_backwards),
        cmocka_unit_test(test_time_backwards_known_functions),
        cmocka_unit_test(test_all_repairs_one_warning),
        cmocka_unit_test(test_proximity_worked_example),
        cmocka_unit_test(test_proximity_window_size),
        cmocka_unit_test(test_proximity_per_stream),
        cmocka_unit_test(test_proximity_matches_model),
        cmocka_unit_test(test_proximity_skipped),
        cmocka_unit_test(test_batches_match_single_events),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_depth_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
