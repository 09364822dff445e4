/* timeline.c - turns time-ordered Entry / Suspend / Resume / Exit events into call counts, net
 * and gross time per function, and temporal proximity pairs (timeline.h has the interface,
 * docs/loaders/winidea-bin.md the rules with examples).
 *
 * Each stream (a core, or a context within a core) has a shadow stack of frames. A frame is one
 * open call: its function, when it started, its net time so far, and whether it is suspended (it
 * called a function, or was preempted). Every event first charges the time since the stream's
 * previous event to the frame on top when that frame is running: that is net time, so callees
 * and suspended spans are never charged to a caller. Then:
 *   Entry    counts a call from the function on top (if any) to the entered one, and pushes
 *   Suspend  marks the top suspended
 *   Resume   marks the top running
 *   Exit     pops the top and adds its net time and its gross time (Exit time - Entry time) to
 *            the function
 *
 * Definitions:
 *   net time    time a function's frame was on top of its stream and running
 *   gross time  Entry to Exit of a call, callees included. The call of f made directly by f
 *               (recursion one level deep at a time) is already inside the outer call's gross
 *               time and is not added again; mutual recursion (f -> g -> f) counts twice, as
 *               callgrind_annotate --inclusive does.
 *   window      per stream, the last LG_TL_PROXIMITY_WINDOW distinct functions entered, most
 *               recent first; a function's position in it is the number of distinct functions
 *               entered since its own previous Entry.
 *
 * Repairs, for timelines that are not well formed (each counted in lg_tl_stats_t, reported in one
 * warning by lg_timeline_finish):
 *   started inside  an Exit, Suspend or Resume of a function with no open frame while its
 *                   stream's stack is empty: the recording began inside that call. A frame is
 *                   opened for it as of the stream's first event (no Entry, no caller edge); an
 *                   Exit or Suspend says it was running, so the time since the stack was last
 *                   empty is its net time. Then the event applies as usual.
 *   unmatched       the same while other frames are open: events were lost; the event is ignored
 *                   rather than tearing down frames that are consistent.
 *   not on top      an Exit, Suspend or Resume of a function that has an open frame below the
 *                   top: the frames above it returned without a recorded Exit and are closed at
 *                   this event's time, then the event applies to the function's frame.
 *   open at end     frames still open when the timeline finishes (the recording was cut): closed
 *                   at their stream's last event.
 *   time backwards  an event earlier than its stream's previous event is taken at the previous
 *                   event's time, so no duration is ever negative.
 *
 * Temporal proximity (after the temporal relationship graph of Gloy and Smith, "Procedure
 * placement using temporal-ordering information", TOPLAS 1999; the rule here is lorgen's own):
 * when function f is entered at window position p (or is not in the window, p = the window's
 * length), and p >= LG_TL_PROXIMITY_RECENT, each pair (f, g) for the p functions g ahead of it in
 * the window gains weight 1; then f moves to the front. Re-entering one of the most recent few
 * functions adds nothing: a loop calling the same helper over and over says nothing new about
 * which functions share the cache, and would cost window-many updates per event.
 *
 * Speed (docs/dev/experiments/2026-11-22-winidea-timelines-against-cat.md): an event is a few
 * loads and stores on its stream's top frame. An Entry adds one update of the caller's map of
 * callees, a compare of the window (four functions at a time), and its proximity counts:
 * increments in a per-stream matrix over the functions the stream entered most recently
 * (near_cache_t), which move to per-function maps only when a function drops out of it.
 * Memory: per function its counters and two small maps (callees, proximity partners), per stream
 * its stack, window and matrix; nothing grows with the number of events.
 */
#include "timeline.h"

#include "mem.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

_Static_assert(LG_TL_PROXIMITY_WINDOW == 16,
               "the window's SSE2 code handles 16 functions: 4 vectors of 4, 1 vector of slots");
/* Functions per stream whose proximity counts are kept in a dense matrix (near_cache_t, 4 bytes
 * per pair: 64 KiB) before they move to the per-function maps. A stream's working set of
 * functions usually fits, so a count is one increment in cache: on the benchmark timeline
 * (docs/dev/experiments/2026-11-22-winidea-timelines-against-cat.md) 0.4% of Entries found
 * their function outside the 128 most recent, and doubling this cut the time by a tenth for four
 * times the memory. */
#define LG_TL_NEAR_TRACKED 128u
_Static_assert(LG_TL_NEAR_TRACKED <= 256 && LG_TL_NEAR_TRACKED >= 4 * LG_TL_PROXIMITY_WINDOW,
               "slots are bytes; the window's functions must never be the least recent");
/* Slots a function's map of partners starts with (8 bytes each); it doubles when half full. */
#define PARTNERS_MIN_SLOTS 8u
/* Marks an unused window slot: no profile function has this index. */
#define NO_FUNC UINT32_MAX

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- Per-function maps: partner function -> count --------------------------------------- */

/* Each function keeps its callees, and the functions it ran close to (once they left a stream's
 * near_cache), in a small hash map of its own: an Entry's update of its caller's callees lands
 * in a cache line or two of that map instead of anywhere in one big table. */
typedef struct partner {
    uint32_t func;  /* NO_FUNC when the slot is free */
    uint32_t count; /* when it would wrap, UINT32_MAX is moved to the profile (count_pair) */
} partner_t;

typedef struct partners {
    partner_t *slots; /* no_slots, or a power of two of them, at most half used */
    uint32_t used;
    uint32_t shift; /* 32 - log2(slots): the hash's shift, kept rather than a mask since every
                       Entry hashes and a mask is needed only to probe */
} partners_t;

/* The slots of a map with none: two free ones, which a hash shifted by NO_SLOTS_SHIFT lands in,
 * so that finding a function in any map needs no test of whether it has slots (the search fails
 * and partner_slot_probe adds them). Never written: no function is ever found in them. */
static const partner_t no_slots[2] = {{NO_FUNC, 0}, {NO_FUNC, 0}};
#define NO_SLOTS_SHIFT 31u

/* An empty map. */
static inline partners_t no_partners(void)
{
    return (partners_t){(partner_t *)no_slots, 0, NO_SLOTS_SHIFT};
}

/* The mask of m's slot indices. */
static inline uint32_t partners_mask(const partners_t *m)
{
    return UINT32_MAX >> m->shift;
}

static inline uint32_t partner_home(uint32_t func, uint32_t shift)
{
    /* Fibonacci hashing: the top bits of the product depend on every bit of func; the shift
     * keeps log2(slots) of them. */
    return (func * 0x9e3779b1u) >> shift;
}

static bool partners_grow(partners_t *m)
{
    bool none = m->slots == no_slots;
    uint32_t slots = none ? PARTNERS_MIN_SLOTS : (partners_mask(m) + 1) * 2;
    if (slots == 0) /* past 2^31 slots: more partners than functions can exist */
        return false;
    partner_t *grown = calloc(slots, sizeof *grown); /* calloc checks slots * size */
    if (grown == NULL)
        return false;
    memset(grown, 0xff, slots * sizeof *grown); /* every func NO_FUNC */
    /* slots >= PARTNERS_MIN_SLOTS: mask > 0, so clz is defined */
    uint32_t mask = slots - 1, shift = (uint32_t)__builtin_clz(mask);
    for (uint32_t i = 0; !none && i <= partners_mask(m); i++) {
        if (m->slots[i].func == NO_FUNC)
            continue;
        uint32_t j = partner_home(m->slots[i].func, shift);
        while (grown[j].func != NO_FUNC)
            j = (j + 1) & mask;
        grown[j] = m->slots[i];
    }
    if (!none)
        free(m->slots);
    m->slots = grown;
    m->shift = shift;
    return true;
}

/* partner_slot past func's home slot and the one after: a probe, or func new. */
static __attribute__((noinline)) partner_t *partner_slot_probe(partners_t *m, uint32_t func)
{
    uint32_t i = 0;
    if (LIKELY(m->slots != no_slots)) {
        for (i = partner_home(func, m->shift);; i = (i + 1) & partners_mask(m)) {
            partner_t *s = &m->slots[i];
            if (LIKELY(s->func == func))
                return s;
            if (s->func == NO_FUNC)
                break;
        }
    }
    if (UNLIKELY(m->slots == no_slots || 2 * (m->used + 1) > partners_mask(m) + 1)) {
        if (!partners_grow(m))
            return NULL;
        i = partner_home(func, m->shift);
        while (m->slots[i].func != NO_FUNC)
            i = (i + 1) & partners_mask(m);
    }
    m->used++;
    m->slots[i] = (partner_t){func, 0};
    return &m->slots[i];
}

/* The slot of func in m, added with a count of 0 if new; NULL when memory runs out. Found in its
 * home slot or the one after inline; the rest is called, so that the probe's registers stay out
 * of the event loop. The slot, not its count's address: the caller's accesses then take the
 * count's offset in their addressing. */
static inline partner_t *partner_slot(partners_t *m, uint32_t func)
{
    uint32_t home = partner_home(func, m->shift);
    partner_t *s = &m->slots[home];
    if (LIKELY(s->func == func))
        return s;
    /* The slot after (every map has two at least): where most of the rest are found. */
    s = &m->slots[(home + 1) & partners_mask(m)];
    if (LIKELY(s->func == func))
        return s;
    return partner_slot_probe(m, func);
}

/* ---- Streams and frames ------------------------------------------------------------------ */

typedef struct frame {
    uint32_t func;
    bool suspended; /* it called a function, or was preempted: no net time */
    bool nested;    /* called directly by the same function: gross time already counted */
    int64_t start;  /* Entry time, or the stream's first event for a frame that started inside */
    uint64_t net;   /* net time so far: added to the function when the frame closes, so that an
                       event touches only the top frame */
} frame_t;

/* The top of every empty stack: no function's (so no event matches it) and suspended. Never
 * written: the fast path writes a top frame only after its function matched the event's. */
static const frame_t no_frame = {NO_FUNC, true, false, 0, 0};

/* Proximity counts of the functions a stream entered most recently: a dense matrix over slots,
 * one slot per function, so that an Entry's updates are increments in cache rather than hash
 * lookups. A function that drops out (the least recently entered, when a new one needs a slot)
 * moves its counts to the per-function maps. */
typedef struct near_cache {
    /* counts[a][b]: Entries of the function in slot a with the one in slot b ahead of it in the
     * window */
    uint32_t counts[LG_TL_NEAR_TRACKED][LG_TL_NEAR_TRACKED];
    uint32_t func[LG_TL_NEAR_TRACKED];       /* the function in each slot, NO_FUNC when free */
    uint64_t last_entry[LG_TL_NEAR_TRACKED]; /* the value of entries when it was last entered */
    uint64_t entries;                        /* Entries on the stream so far */
    uint32_t since_flush;                    /* Entries since the counts were last moved out */
    uint32_t used;                           /* slots given out; they are never freed */
    /* The stream's window (here rather than in stream_t, which every event reads) */
    uint32_t window[LG_TL_PROXIMITY_WINDOW];     /* most recently entered first, then NO_FUNC */
    uint8_t window_slot[LG_TL_PROXIMITY_WINDOW]; /* their slots */
    uint32_t nwindow;
} near_cache_t;

/* A stream's open frames are stack[0] to *top; top is &no_frame while there are none. limit is
 * the last frame the stack has room for while frames are open, and &no_frame too while none are.
 * Pointers rather than a depth and a capacity: every event reads its stream's top frame, and
 * this way that is one load; and an event on an empty stack fails the fast path's tests for free:
 * an Exit, Suspend or Resume its test of the top frame's function, an Entry its test of room. */
typedef struct stream {
    frame_t *stack;
    frame_t *top, *limit;
    int64_t last;        /* time of its latest event */
    int64_t first;       /* time of its first event */
    int64_t empty_since; /* when its stack last became empty */
    near_cache_t *near;  /* NULL until the stream's first Entry with proximity counted */
    bool seen;           /* has had an event */
    uint32_t cap;        /* frames the stack has room for */
} stream_t;

_Static_assert(sizeof(stream_t) == 64, "a stream is found by a shift, in one cache line");

/* Frames open on s. */
static inline size_t depth_of(const stream_t *s)
{
    return s->top == &no_frame ? 0 : (size_t)(s->top - s->stack) + 1;
}

/* Pushes f on s, which has room for it; returns the new top. */
static inline frame_t *push(stream_t *s, frame_t f)
{
    if (s->top == &no_frame) {
        s->top = s->stack;
        s->limit = s->stack + s->cap - 1;
    } else {
        s->top++;
    }
    *s->top = f;
    return s->top;
}

/* What a timeline adds to one profile function: what most events touch (32 bytes, so that more
 * functions share the cache, and found by a shift) ... */
typedef struct func_acc {
    uint64_t gross, net;
    partners_t callees; /* functions it called, with how often */
} func_acc_t;

_Static_assert(sizeof(func_acc_t) == 32, "two functions to a cache line");

/* ... and what it is touched for seldom: its proximity, when it needs a slot in a stream's
 * near_cache or leaves one, and its hits. */
typedef struct func_near {
    partners_t partners; /* functions that ran close before its Entries, with how often, once
                            they left a stream's near_cache */
    uint64_t hits; /* its Entries with no caller, and its calls counted in the profile (when the
                      count would wrap: count_pair); its other calls are counted in the callers'
                      callees only, and added in at the end (lg_timeline_finish) */
    uint8_t slot;  /* its slot in the near_cache of the stream that last gave it one */
} func_near_t;

struct lg_timeline {
    lg_profile_t *profile;
    func_acc_t *acc;   /* per profile function; grown as the profile gains functions */
    func_near_t *near; /* the same */
    size_t nacc;       /* functions of the profile when acc last grew: events may name these */
    size_t acc_cap;
    stream_t *streams; /* indexed by stream id; grown to the highest id seen */
    size_t nstreams;
    uint64_t calls_out; /* calls counted in the profile (count_pair): with those in the callees
                           maps, the Entries with a caller on top */
    lg_tl_stats_t stats;
    bool proximity; /* count proximity pairs (lg_timeline_create) */
    bool finished;
};

lg_err_t lg_timeline_create(lg_profile_t *profile, bool proximity, lg_timeline_t **out)
{
    *out = NULL;
    lg_timeline_t *t = calloc(1, sizeof *t);
    if (t == NULL)
        return LG_ENOMEM;
    t->profile = profile;
    t->proximity = proximity;
    *out = t;
    return LG_OK;
}

void lg_timeline_destroy(lg_timeline_t *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nstreams; i++) {
        free(t->streams[i].stack);
        free(t->streams[i].near);
    }
    free(t->streams);
    for (size_t i = 0; i < t->acc_cap; i++) {
        if (t->acc[i].callees.slots != no_slots)
            free(t->acc[i].callees.slots);
        if (t->near[i].partners.slots != no_slots)
            free(t->near[i].partners.slots);
    }
    free(t->acc);
    free(t->near);
    free(t);
}

const lg_tl_stats_t *lg_timeline_stats(const lg_timeline_t *t)
{
    return &t->stats;
}

/* Makes room for streams [0, stream] and every function of the profile. */
static lg_err_t grow_tables(lg_timeline_t *t, uint32_t stream)
{
    if (t->nacc < t->profile->nfuncs) {
        size_t cap = t->acc_cap, near_cap = t->acc_cap;
        if (!lg_grow((void **)&t->acc, &cap, t->profile->nfuncs, sizeof *t->acc) ||
            !lg_grow((void **)&t->near, &near_cap, cap, sizeof *t->near))
            return LG_ENOMEM; /* acc may have grown: acc_cap still says what both hold */
        memset(t->acc + t->acc_cap, 0, (cap - t->acc_cap) * sizeof *t->acc);
        memset(t->near + t->acc_cap, 0, (cap - t->acc_cap) * sizeof *t->near);
        for (size_t i = t->acc_cap; i < cap; i++)
            t->acc[i].callees = t->near[i].partners = no_partners();
        t->acc_cap = cap;
        t->nacc = t->profile->nfuncs; /* the fast check must not pass functions not yet there */
    }
    if (stream >= t->nstreams) {
        size_t cap = t->nstreams;
        if (!lg_grow((void **)&t->streams, &cap, (size_t)stream + 1, sizeof *t->streams))
            return LG_ENOMEM;
        memset(t->streams + t->nstreams, 0, (cap - t->nstreams) * sizeof *t->streams);
        for (size_t i = t->nstreams; i < cap; i++)
            t->streams[i].top = t->streams[i].limit = (frame_t *)&no_frame;
        t->nstreams = cap;
    }
    return LG_OK;
}

/* The slow half of an event's checks: a new stream or function, or a bad argument. */
static lg_err_t admit(lg_timeline_t *t, uint32_t stream, uint32_t func, lg_tl_kind_t kind)
{
    if (stream >= LG_TL_MAX_STREAMS || func >= t->profile->nfuncs || (unsigned)kind > LG_TL_ENTRY)
        return LG_EINVAL;
    return grow_tables(t, stream);
}

lg_err_t lg_timeline_reserve(lg_timeline_t *t, uint32_t nstreams, uint32_t *nfuncs)
{
    *nfuncs = 0;
    if (t->finished || nstreams == 0 || nstreams > LG_TL_MAX_STREAMS)
        return LG_EINVAL;
    LG_CHECK(grow_tables(t, nstreams - 1));
    *nfuncs = (uint32_t)t->nacc;
    return LG_OK;
}

/* Closes frame f, the top of s, at time (not before its start: times on a stream never
 * decrease). */
static inline void close_top(lg_timeline_t *t, stream_t *s, frame_t *f, int64_t time)
{
    func_acc_t *a = &t->acc[f->func];
    a->net = lg_sat_add(a->net, f->net);
    if (!f->nested)
        a->gross = lg_sat_add(a->gross, (uint64_t)time - (uint64_t)f->start);
    /* One test of whether the stack empties (seldom), for the three stores that depend on it. */
    if (UNLIKELY(f == s->stack)) {
        s->top = s->limit = (frame_t *)&no_frame;
        s->empty_since = time;
    } else {
        s->top = f - 1;
    }
}

/* Closes the top frame at time. */
static inline void pop(lg_timeline_t *t, stream_t *s, int64_t time)
{
    close_top(t, s, s->top, time);
}

/* Makes room for one more frame; LG_ELIMIT past LG_TL_MAX_DEPTH. */
static lg_err_t grow_stack(stream_t *s)
{
    size_t depth = depth_of(s), cap = s->cap;
    if (depth >= LG_TL_MAX_DEPTH)
        return LG_ELIMIT;
    if (!lg_grow((void **)&s->stack, &cap, depth + 1, sizeof *s->stack))
        return LG_ENOMEM;
    /* At most LG_TL_MAX_DEPTH frames are ever asked for, and lg_grow doubles. */
    s->cap = (uint32_t)cap;
    /* The stack may have moved. */
    if (depth > 0) {
        s->top = s->stack + depth - 1;
        s->limit = s->stack + cap - 1;
    }
    return LG_OK;
}

/* Adds weight to (owner, other) in owner's map m: calls when proximity is false. A count that
 * would wrap is moved to the profile first, where lg_profile_finish_edges adds it back up, so the
 * maps stay 8 bytes a slot and no count is ever lost. Always inlined: event()'s Entry would
 * otherwise call it, which costs more than the count. */
static inline __attribute__((always_inline)) lg_err_t count_pair(lg_timeline_t *t, partners_t *m,
                                                                 uint32_t owner, uint32_t other,
                                                                 bool proximity, uint32_t weight)
{
    partner_t *slot = partner_slot(m, other);
    if (UNLIKELY(slot == NULL))
        return LG_ENOMEM;
    uint32_t *count = &slot->count;
    /* Wraps iff *count > UINT32_MAX - weight: the add's carry is the test. */
    uint32_t after = *count + weight;
    if (UNLIKELY(after < weight)) {
        LG_CHECK(proximity ? lg_profile_add_proximity(t->profile, owner, other, *count)
                           : lg_profile_add_edge(t->profile, owner, other, *count));
        if (!proximity) { /* calls leaving the callees map: see func_near_t's hits */
            t->near[other].hits += *count;
            t->calls_out += *count;
        }
        after = weight;
    }
    *count = after;
    return LG_OK;
}

/* Bit i set when window slot i holds func; unused slots hold NO_FUNC. Compares every slot
 * without branching, four at a time where SSE2 is there (every x86-64). */
static inline uint32_t window_match(const uint32_t *w, uint32_t func)
{
    uint32_t match = 0;
#ifdef __SSE2__
    __m128i f = _mm_set1_epi32((int)func);
#pragma GCC unroll 4
    for (uint32_t i = 0; i < LG_TL_PROXIMITY_WINDOW; i += 4) {
        __m128i eq = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(w + i)), f);
        match |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(eq)) << i;
    }
#else
    for (uint32_t i = 0; i < LG_TL_PROXIMITY_WINDOW; i++)
        match |= (uint32_t)(w[i] == func) << i;
#endif
    return match;
}

/* Moves the count of (slot a, slot b) of c to the map of the function in slot a, or in slot b
 * when to_b: pairs are unordered in the profile, so either function may hold the count. */
static lg_err_t move_count(lg_timeline_t *t, near_cache_t *c, uint32_t a, uint32_t b, bool to_b)
{
    uint32_t owner = c->func[to_b ? b : a], other = c->func[to_b ? a : b];
    lg_err_t err = count_pair(t, &t->near[owner].partners, owner, other, true, c->counts[a][b]);
    c->counts[a][b] = 0;
    return err;
}

/* Gives slot v of c to another function: its counts with every other slot move out first, all
 * into the map of v's function (one map in cache rather than one per partner). */
static lg_err_t evict(lg_timeline_t *t, near_cache_t *c, uint32_t v)
{
    for (uint32_t j = 0; j < LG_TL_NEAR_TRACKED; j++) {
        if (c->counts[v][j] != 0)
            LG_CHECK(move_count(t, c, v, j, false));
        if (c->counts[j][v] != 0)
            LG_CHECK(move_count(t, c, j, v, true));
    }
    return LG_OK;
}

/* The slot of func in c, given one if it has none: a free slot, else the one of the least
 * recently entered function. That is never in the window (LG_TL_NEAR_TRACKED is well above
 * LG_TL_PROXIMITY_WINDOW), so the window's slots stay valid. */
static lg_err_t near_slot(lg_timeline_t *t, near_cache_t *c, uint32_t func, uint32_t *slot)
{
    uint32_t hint = t->near[func].slot;
    if (LIKELY(c->func[hint] == func)) {
        *slot = hint;
        return LG_OK;
    }
    uint32_t v = 0;
    for (uint32_t i = 0; i < c->used; i++)
        if (c->func[i] == func) {
            t->near[func].slot = (uint8_t)i;
            *slot = i;
            return LG_OK;
        }
    if (c->used < LG_TL_NEAR_TRACKED) {
        v = c->used++;
    } else {
        for (uint32_t i = 1; i < LG_TL_NEAR_TRACKED; i++)
            if (c->last_entry[i] < c->last_entry[v])
                v = i;
        LG_CHECK(evict(t, c, v));
    }
    c->func[v] = func;
    t->near[func].slot = (uint8_t)v;
    *slot = v;
    return LG_OK;
}

/* Moves every count of c to the per-function maps. */
static lg_err_t flush_cache(lg_timeline_t *t, near_cache_t *c)
{
    for (uint32_t a = 0; a < c->used; a++)
        for (uint32_t b = 0; b < c->used; b++)
            if (c->counts[a][b] != 0)
                LG_CHECK(move_count(t, c, a, b, false));
    return LG_OK;
}

/* Moves the first pos + 1 window entries one place on (the one at pos is dropped or is func's
 * old place) and puts func, in slot, at the front. Without branches on pos: SSE2 shifts and
 * selects whole vectors. */
static inline void window_insert(uint32_t *w, uint8_t *ws, uint32_t pos, uint32_t func,
                                 uint32_t slot)
{
#ifdef __SSE2__
    /* Lane j of vector k is entry 4k + j; it takes its predecessor's value when 4k + j <= pos. */
    __m128i limit = _mm_set1_epi32((int)pos + 1);
    __m128i carry = _mm_cvtsi32_si128((int)func); /* what moves into entry 0 */
#pragma GCC unroll 4
    for (uint32_t k = 0; k < LG_TL_PROXIMITY_WINDOW; k += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(w + k));
        __m128i moved = _mm_or_si128(_mm_slli_si128(v, 4), carry);
        carry = _mm_srli_si128(v, 12);
        __m128i take =
            _mm_cmplt_epi32(_mm_setr_epi32((int)k, (int)k + 1, (int)k + 2, (int)k + 3), limit);
        v = _mm_or_si128(_mm_and_si128(take, moved), _mm_andnot_si128(take, v));
        _mm_storeu_si128((__m128i *)(void *)(w + k), v);
    }
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)ws);
    __m128i moved = _mm_or_si128(_mm_slli_si128(b, 1), _mm_cvtsi32_si128((int)slot));
    __m128i take =
        _mm_cmplt_epi8(_mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                       _mm_set1_epi8((char)(pos + 1)));
    b = _mm_or_si128(_mm_and_si128(take, moved), _mm_andnot_si128(take, b));
    _mm_storeu_si128((__m128i *)(void *)ws, b);
#else
    for (uint32_t i = pos; i > 0; i--) {
        w[i] = w[i - 1];
        ws[i] = ws[i - 1];
    }
    w[0] = func;
    ws[0] = (uint8_t)slot;
#endif
}

/* Gloy and Smith's temporal relationship, per stream: see the file comment. The pairs an Entry
 * adds are counted in the stream's near_cache; slot_of(w[i]) is window_slot[i]. Called, not
 * inlined: hundreds of instructions that would crowd the event loop's registers. */
static __attribute__((noinline)) lg_err_t note_proximity(lg_timeline_t *t, stream_t *s,
                                                         uint32_t func)
{
    near_cache_t *c = s->near;
    if (UNLIKELY(c == NULL)) {
        c = s->near = calloc(1, sizeof *c);
        if (c == NULL)
            return LG_ENOMEM;
        memset(c->func, 0xff, sizeof c->func);     /* NO_FUNC */
        memset(c->window, 0xff, sizeof c->window); /* NO_FUNC */
    }
    uint32_t *w = c->window;
    uint8_t *ws = c->window_slot;
    uint32_t n = c->nwindow;
    uint32_t match = window_match(w, func);
    uint32_t pos = match != 0 ? (uint32_t)__builtin_ctz(match) : n;
    uint32_t slot;
    if (pos < n)
        slot = ws[pos];
    else
        LG_CHECK(near_slot(t, c, func, &slot));
    c->last_entry[slot] = ++c->entries;
    if (pos < LG_TL_PROXIMITY_RECENT && pos < n) {
        if (pos > 0) {
            w[1] = w[0];
            ws[1] = ws[0];
            w[0] = func;
            ws[0] = (uint8_t)slot;
        }
        return LG_OK;
    }
    /* Every window slot, adding 0 past pos: no branch on pos to mispredict. Slots past the
     * window's length hold slot numbers too (0 at first), so every address is in the row. */
    uint32_t *row = c->counts[slot];
#pragma GCC unroll 16
    for (uint32_t i = 0; i < LG_TL_PROXIMITY_WINDOW; i++)
        row[ws[i]] += i < pos;
    /* A count grows by at most 1 per Entry: moving them all out this often means none wraps. */
    if (UNLIKELY(++c->since_flush == UINT32_MAX)) {
        LG_CHECK(flush_cache(t, c));
        c->since_flush = 0;
    }
    if (pos == n && n < LG_TL_PROXIMITY_WINDOW)
        c->nwindow = ++n;
    if (pos == n) /* not in a full window: the oldest function drops out */
        pos = n - 1;
    window_insert(w, ws, pos, func, slot);
    return LG_OK;
}

/* Moves every stream's near_cache into the per-function maps. */
static lg_err_t flush_near(lg_timeline_t *t)
{
    for (size_t i = 0; i < t->nstreams; i++)
        if (t->streams[i].near != NULL)
            LG_CHECK(flush_cache(t, t->streams[i].near));
    return LG_OK;
}

/* An Entry for one_event; the stack has room for one more frame. The common Entry (a caller on
 * top) is event()'s. */
static lg_err_t enter(lg_timeline_t *t, stream_t *s, uint32_t func, int64_t time)
{
    bool nested = false;
    if (s->top != &no_frame) {
        uint32_t caller = s->top->func;
        LG_CHECK(count_pair(t, &t->acc[caller].callees, caller, func, false, 1));
        nested = caller == func;
    } else {
        t->near[func].hits++; /* a call is counted in the caller's callees only */
    }
    push(s, (frame_t){func, false, nested, time, 0});
    return t->proximity ? note_proximity(t, s, func) : LG_OK;
}

/* The frame an Exit, Suspend or Resume of func applies to, after the repairs the file comment
 * describes; NULL when the event is to be ignored. running: whether the event says func was
 * running just before it (Exit, Suspend) rather than suspended (Resume). */
static frame_t *repair(lg_timeline_t *t, stream_t *s, uint32_t func, bool running, int64_t time,
                       lg_err_t *err)
{
    *err = LG_OK;
    size_t depth = depth_of(s);
    for (size_t i = depth; i-- > 0;) {
        if (s->stack[i].func != func)
            continue;
        t->stats.exit_not_top++;
        while (s->top != &s->stack[i])
            pop(t, s, time);
        return &s->stack[i];
    }
    t->stats.started_inside += depth == 0;
    t->stats.unmatched += depth > 0;
    if (depth > 0)
        return NULL;
    if (s->stack == NULL && (*err = grow_stack(s)) != LG_OK)
        return NULL;
    return push(s, (frame_t){func, !running, false, s->first,
                             running ? (uint64_t)time - (uint64_t)s->empty_since : 0});
}

/* One event (lg_timeline_event's contract but for the check of t->finished and the count of
 * events, which the callers make once): every case, the repairs included. Out of line: the event
 * loop takes it only for what event() leaves to it, a few events in a million. */
static __attribute__((noinline)) lg_err_t one_event(lg_timeline_t *t, uint32_t stream,
                                                    uint32_t func, unsigned kind, int64_t time_ns)
{
    if (UNLIKELY(stream >= t->nstreams || func >= t->nacc || kind > LG_TL_ENTRY))
        LG_CHECK(admit(t, stream, func, (lg_tl_kind_t)kind));
    stream_t *s = &t->streams[stream];
    /* Room first, so that an Entry that cannot be added changes nothing. */
    if (kind == LG_TL_ENTRY && UNLIKELY(depth_of(s) == s->cap))
        LG_CHECK(grow_stack(s));
    if (UNLIKELY(!s->seen)) {
        s->seen = true;
        s->first = s->last = s->empty_since = time_ns;
    } else if (UNLIKELY(time_ns < s->last)) {
        t->stats.time_backwards++;
        time_ns = s->last;
    }
    frame_t *top = s->top != &no_frame ? s->top : NULL;
    if (top != NULL && !top->suspended)
        top->net = lg_sat_add(top->net, (uint64_t)time_ns - (uint64_t)s->last);
    s->last = time_ns;

    if (kind == LG_TL_ENTRY)
        return enter(t, s, func, time_ns);
    if (UNLIKELY(top == NULL || top->func != func)) {
        lg_err_t err;
        top = repair(t, s, func, kind != LG_TL_RESUME, time_ns, &err);
        if (top == NULL)
            return err;
    }
    if (kind == LG_TL_EXIT)
        pop(t, s, time_ns);
    else
        top->suspended = kind == LG_TL_SUSPEND;
    return LG_OK;
}

/* one_event for the event at e, out of line: the event loop needs no registers for it. */
static __attribute__((noinline)) lg_err_t one_event_at(lg_timeline_t *t, const lg_tl_event_t *e)
{
    return one_event(t, e->kind_stream >> LG_TL_KIND_BITS, e->func,
                     e->kind_stream & LG_TL_KIND_MASK, e->time_ns);
}

/* event()'s step of s's time to time_ns, its last time being last, with top (its top frame)
 * charged if running: returns the event's time, repaired if it went back (as one_event does:
 * taken at the stream's last time, and counted). */
static inline __attribute__((always_inline)) int64_t
step_time(lg_timeline_t *t, stream_t *s, frame_t *top, int64_t time_ns, int64_t last)
{
    if (time_ns < last) {
        t->stats.time_backwards++;
        time_ns = last;
    }
    /* No saturation: a frame's net time is a sum of disjoint spans (last, time_ns] of its
     * stream's time, so at most the stream's last time minus its first, which fits in 64 bits
     * unsigned. */
    if (!top->suspended)
        top->net += (uint64_t)time_ns - (uint64_t)last;
    s->last = time_ns;
    return time_ns;
}

/* The event at e: the common case here, the rest (a new stream or function, a bad argument, an
 * empty stack or a full one at an Entry, an Exit, Suspend or Resume not of the top: the repairs)
 * left to one_event before anything is changed. The common case is an event of a known function
 * on a stream with frames open: an Entry with room for its frame, or an Exit, Suspend or Resume
 * of the top frame. Time going back is repaired here as one_event does (taken at the stream's
 * last time, and counted): a run repeated by concatenation goes back at its first seam and stays
 * behind for every event after it. Its checks are a branch each, and the stream is read once.
 * With proximity a constant, the callers inline it once per setting: no test of it per Entry.
 * checked false: the event is within what lg_timeline_reserve made room for, and its stream,
 * function and kind are not tested. */
static inline __attribute__((always_inline)) lg_err_t
event(lg_timeline_t *t, const lg_tl_event_t *e, bool proximity, bool checked)
{
    int64_t time_ns = e->time_ns;
    uint32_t func = e->func, stream = e->kind_stream >> LG_TL_KIND_BITS,
             kind = e->kind_stream & LG_TL_KIND_MASK;
    if (checked && UNLIKELY(stream >= t->nstreams || func >= t->nacc))
        return one_event_at(t, e);
    stream_t *s = &t->streams[stream];
    frame_t *top = s->top;
    int64_t last = s->last;
    uint32_t top_func = top->func;
    /* On an empty stack (top and limit no_frame) an Exit, Suspend or Resume fails the first
     * test, and an Entry, which has no caller then, the second. The two cases are written apart,
     * the time's step in each, so that the kind is not tested again after it. */
    if (kind < LG_TL_ENTRY) {
        if (UNLIKELY(top_func != func))
            return one_event_at(t, e);
        time_ns = step_time(t, s, top, time_ns, last);
        if (kind == LG_TL_EXIT)
            close_top(t, s, top, time_ns);
        else
            top->suspended = kind == LG_TL_SUSPEND;
        return LG_OK;
    }
    if (UNLIKELY((checked && kind != LG_TL_ENTRY) || top == s->limit))
        return one_event_at(t, e);
    time_ns = step_time(t, s, top, time_ns, last);
    func_acc_t *acc = t->acc;
    /* The call counts as func's hit too (func_acc_t). */
    LG_CHECK(count_pair(t, &acc[top_func].callees, top_func, func, false, 1));
    top[1] = (frame_t){func, false, top_func == func, time_ns, 0};
    s->top = top + 1;
    return proximity ? note_proximity(t, s, func) : LG_OK;
}

lg_err_t lg_timeline_event(lg_timeline_t *t, uint32_t stream, uint32_t func, lg_tl_kind_t kind,
                           int64_t time_ns)
{
    if (t->finished)
        return LG_EINVAL;
    lg_err_t err;
    /* What does not fit an lg_tl_event_t is refused by one_event (admit). */
    if (UNLIKELY(stream >= LG_TL_MAX_STREAMS || (unsigned)kind > LG_TL_ENTRY)) {
        err = one_event(t, stream, func, (unsigned)kind, time_ns);
    } else {
        lg_tl_event_t e = {time_ns, func, LG_TL_KIND_STREAM(kind, stream)};
        err = event(t, &e, t->proximity, true);
    }
    t->stats.events += err == LG_OK;
    return err;
}

/* lg_timeline_events for one setting of t->proximity, and of whether the events' streams and
 * functions are to be checked (not after lg_timeline_reserve). */
static inline __attribute__((always_inline)) lg_err_t events_loop(lg_timeline_t *t,
                                                                  const lg_tl_event_t *events,
                                                                  size_t n, size_t *done,
                                                                  bool proximity, bool checked)
{
    for (const lg_tl_event_t *e = events, *end = events + n; e != end; e++) {
        lg_err_t err = event(t, e, proximity, checked);
        if (UNLIKELY(err != LG_OK)) {
            size_t i = (size_t)(e - events);
            t->stats.events += i;
            *done = i;
            return err;
        }
    }
    t->stats.events += n;
    *done = n;
    return LG_OK;
}

lg_err_t lg_timeline_events(lg_timeline_t *t, const lg_tl_event_t *events, size_t n, size_t *done)
{
    *done = 0;
    if (t->finished)
        return LG_EINVAL;
    return t->proximity ? events_loop(t, events, n, done, true, true)
                        : events_loop(t, events, n, done, false, true);
}

lg_err_t lg_timeline_events_reserved(lg_timeline_t *t, const lg_tl_event_t *events, size_t n,
                                     size_t *done)
{
    *done = 0;
    if (t->finished)
        return LG_EINVAL;
    return t->proximity ? events_loop(t, events, n, done, true, false)
                        : events_loop(t, events, n, done, false, false);
}

/* ---- Finishing --------------------------------------------------------------------------- */

static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends to buf, "; "-separated; a part that does not fit is cut (the buffer is generous). */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    if (*len > 0)
        *len += (size_t)snprintf(buf + *len, size - *len, "; ");
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    *len += (size_t)vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
}

/* The one warning naming every repair made (timeline.h). */
static void report_repairs(const lg_timeline_t *t, lg_diag_t *d)
{
    const lg_tl_stats_t *st = &t->stats;
    if (st->started_inside == 0 && st->unmatched == 0 && st->exit_not_top == 0 &&
        st->open_at_end == 0 && st->time_backwards == 0)
        return;
    char text[1024];
    size_t len = 0;
    if (st->started_inside > 0)
        append(text, sizeof text, &len,
               "%" PRIu64 " Exit/Suspend/Resume event(s) of a function with no open frame on an "
               "empty stack: the recording began inside the call, assumed open since the "
               "stream's first event",
               st->started_inside);
    if (st->unmatched > 0)
        append(text, sizeof text, &len,
               "%" PRIu64 " Exit/Suspend/Resume event(s) of a function with no open frame while "
               "other frames were open (events lost?): ignored",
               st->unmatched);
    if (st->exit_not_top > 0)
        append(text, sizeof text, &len,
               "%" PRIu64 " Exit/Suspend/Resume event(s) of a function below the top of its "
               "stack: the frames above it closed there",
               st->exit_not_top);
    if (st->open_at_end > 0)
        append(text, sizeof text, &len,
               "%" PRIu64 " frame(s) still open at the end: closed at their stream's last event",
               st->open_at_end);
    if (st->time_backwards > 0)
        append(text, sizeof text, &len,
               "%" PRIu64 " event(s) earlier than the event before on the same stream: taken at "
               "that event's time",
               st->time_backwards);
    const char *where = t->profile->path != NULL ? t->profile->path : "";
    lg_diag_add(d, LG_WARNING, where, "timeline repaired (%" PRIu64 " events): %s", st->events,
                text);
}

/* Moves every count of the maps into the profile. */
static lg_err_t write_pairs(lg_timeline_t *t)
{
    for (uint32_t f = 0; f < t->nacc; f++) {
        for (int proximity = 0; proximity < 2; proximity++) {
            const partners_t *m = proximity ? &t->near[f].partners : &t->acc[f].callees;
            for (uint32_t i = 0; i <= partners_mask(m); i++) {
                const partner_t *s = &m->slots[i];
                if (s->func == NO_FUNC)
                    continue;
                LG_CHECK(proximity ? lg_profile_add_proximity(t->profile, f, s->func, s->count)
                                   : lg_profile_add_edge(t->profile, f, s->func, s->count));
            }
        }
    }
    return LG_OK;
}

lg_err_t lg_timeline_finish(lg_timeline_t *t, lg_diag_t *d)
{
    if (t->finished)
        return LG_EINVAL;
    t->finished = true;
    for (size_t i = 0; i < t->nstreams; i++) {
        stream_t *s = &t->streams[i];
        t->stats.open_at_end += depth_of(s);
        while (s->top != &no_frame)
            pop(t, s, s->last);
    }
    lg_profile_t *p = t->profile;
    /* The calls in the callees maps, each a hit of the callee (func_acc_t); none of these sums
     * can wrap: each counts events. */
    uint64_t calls = t->calls_out;
    for (size_t f = 0; f < t->nacc; f++) {
        const partners_t *m = &t->acc[f].callees;
        for (uint32_t i = 0; i <= partners_mask(m); i++) {
            if (m->slots[i].func == NO_FUNC)
                continue;
            t->near[m->slots[i].func].hits += m->slots[i].count;
            calls += m->slots[i].count;
        }
    }
    for (size_t i = 0; i < t->nacc && i < p->nfuncs; i++) {
        lg_pfunc_t *f = &p->funcs[i];
        const func_acc_t *a = &t->acc[i];
        f->hits = lg_sat_add(f->hits, t->near[i].hits);
        f->counter1_total = lg_sat_add(f->counter1_total, a->gross);
        f->counter1_self = lg_sat_add(f->counter1_self, a->net);
    }
    LG_CHECK(flush_near(t));
    LG_CHECK(write_pairs(t));
    p->kind = LG_PROFILE_TRACE;
    p->has_call_edges = true;
    p->has_timeline = true;
    p->counter1_unit = "ns";
    p->call_records = lg_sat_add(p->call_records, calls);
    lg_profile_finish_edges(p);
    report_repairs(t, d);
    return LG_OK;
}
