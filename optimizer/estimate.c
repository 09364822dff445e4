/* estimate.c - estimate instruction-cache misses by replaying the profile through a simulated
 * cache.
 *
 * The profile holds no timeline: only how often each function ran (hits) and how often each
 * caller called each callee (arc weights). The replay builds one deterministic execution that
 * honours those counts, and fetches the code of every function it enters through an LRU cache
 * of the given geometry (cachesim.h). Two placements of the same program replay the same
 * execution, so their miss counts differ only through where the code sits.
 *
 * Definitions:
 *   invocations  n(F) = max(hits(F), in(F), 1 if F calls anything): how often F is entered;
 *                in(F) and out(F) are the summed weights of the arcs into and out of F
 *   root count   r(F) = n(F) - in(F): entries that no profiled caller accounts for (main, code
 *                called from unprofiled or unbound code, every function of a profile without
 *                call edges)
 *   stride order of a set of weighted items: item i's j-th turn (j = 0, 1, ...) comes at time
 *                (2j + 1) / (2 w(i)), earlier times first, ties by lower index. Over any stretch
 *                each item takes turns in proportion to its weight, evenly spread (stride
 *                scheduling: "A B C A A B C A" for weights 4, 2, 2)
 *   body         the bytes of a function the replay fetches: [address, address + size), or the
 *                ranges of lg_estimate_opts_t.footprints (the hook for per-position costs)
 *   visit        a fetch of part of a body: on entry, and again on every resumption after a
 *                callee returns (a caller's code is fetched again when it continues)
 *   window       the bytes one visit fetches: the whole body when it is at most window_bytes
 *                long, else window_bytes of it starting at the function's cursor, which then
 *                advances by window_bytes (wrapping around): successive visits of a large
 *                function sweep its body evenly
 *
 * The replay:
 *   * Each function's calls follow its arcs in stride order by weight, one sequence across all
 *     its invocations: a caller alternates between its callees as a loop calling them would.
 *   * The k-th invocation of F (k = 0 .. n(F) - 1) makes ceil((k+1) out/n) - ceil(k out/n)
 *     calls: F's calls spread evenly over its invocations, the first ones making the rounding
 *     up, so that a call tree (or a recursion) entered once grows as deep as its counts allow.
 *   * Round 0 takes the root entries in stride order by root count; each runs its whole call
 *     tree depth first (an explicit stack). Entering a function visits it; after each call
 *     returns, the caller is visited again.
 *   * Spread evenly, the counts of a cycle (a -> b -> a, recursion through a hub such as an
 *     interpreter's dispatch function) need not all be reached from the roots. Round 1 enters,
 *     as roots in stride order, every invocation still unreached, skipping those a call reaches
 *     meanwhile. Afterwards each arc has been followed exactly w times and each function entered
 *     n(F) times (plus, for a cycle with no entry from outside, the one entry that starts it).
 *   * A call that would nest deeper than LG_ESTIMATE_MAX_DEPTH is queued and run from the top
 *     after the current root's tree (long recursive chains only).
 *   * When replaying everything would take more than max_touches line lookups, hits and arc
 *     weights are all scaled by the same factor first (nonzero counts stay at least 1), and
 *     lg_estimate_t.scale records the factor.
 *
 * Known biases (why estimates rank placements better than they predict absolute misses):
 *   * No phases: calls a function makes in separate loops (or program phases) are interleaved
 *     as if in one loop, which overstates conflicts between code that never runs at the same
 *     time, and the working set at any moment is all the hot code (too many capacity misses).
 *   * Context-insensitive: a function's calls are spread evenly over its invocations whatever
 *     called it; recursion becomes long chains. A calling-context tree (the .prf trace has one;
 *     the program model keeps only its arcs) would fix both this and, through the order of
 *     first calls, much of the phase bias.
 *   * Inside a function nothing is known: a small function is fetched whole at every visit (its
 *     loops stay cached anyway); a large one is fetched a window at a time, swept evenly, which
 *     averages its conflicts over the whole body where really only its hot paths matter. The
 *     footprints hook can narrow a body to its hot lines once per-position costs are bound.
 *     Walking a large function over callgrind's instructions and jumps instead (walk.h) ranked
 *     the profiled run's layouts better and made a worse safeguard: the walk mixes all the
 *     function's paths between any two of its calls
 *     (docs/dev/experiments/2026-11-26-walking-large-functions-in-the-estimate.md).
 *   * Only the program's own functions are fetched: libraries, the PLT, startup code and
 *     unprofiled code are absent, so conflicts with them are not seen. On an 8 KiB
 *     direct-mapped cache these can decide the ranking (docs/benchmarks.md, the demo).
 *   * The cache starts empty, so cold misses (about the lines of executed code) are included.
 *
 * Calibration: LG_ESTIMATE_WINDOW_BYTES_DEFAULT was chosen by ranking 19 links of lua 5.4 and
 * 14 of the demo (default, lld, C3, cliques, placement, shuffled objects, shuffled hot
 * functions) against cachegrind at the five geometries of tests/bench/real_programs.sh.
 * Fetching whole functions at every visit ranks worst (the interpreter's 15 KiB dispatch
 * function then flushes small caches on every call); windows of 128 to 256 bytes rank best.
 * Stride order and a pseudo-random order of calls ranked alike; callees grouped in random
 * phases ranked much worse.
 *
 * References: the cache follows cachegrind's I1 model (valgrind, cachegrind/cg_sim.c); stride
 * scheduling is Waldspurger & Weihl, "Stride Scheduling", MIT/LCS/TM-528, 1995. Gloy & Smith,
 * "Procedure Placement Using Temporal-Ordering Information", ACM TOPLAS 21(5), 1999,
 * doi:10.1145/330249.330254, estimate conflicts from a trace's temporal relationships: what
 * this replay approximates without a trace.
 */
#include "estimate.h"

#include "cachesim.h"
#include "mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Lines a visit may touch beyond its bytes / line_size: one for a window that starts mid-line,
 * one for a window that wraps around the end of the body. */
#define LG_VISIT_EXTRA_LINES 2u

void lg_estimate_opts_init(lg_estimate_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->max_touches = LG_ESTIMATE_MAX_TOUCHES_DEFAULT;
    o->window_bytes = LG_ESTIMATE_WINDOW_BYTES_DEFAULT;
}

void lg_estimate_init(lg_estimate_t *e)
{
    memset(e, 0, sizeof *e);
}

void lg_estimate_destroy(lg_estimate_t *e)
{
    if (e == NULL)
        return;
    free(e->fn_misses);
    memset(e, 0, sizeof *e);
}

/* ---- placements ------------------------------------------------------------------------ */

/* Places function f at the next multiple of its alignment at or after *end (bytes from base)
 * and moves *end past it, as lg_place_after does; false when that passes UINT64_MAX. A phased
 * function starts at the first address at or after that lies lead bytes past a multiple of its
 * alignment (the line size), counted from address 0, not from base, because the linker script
 * pads to the address itself (tests/e2e/phase.sh): where base is not line-aligned, that is where
 * its phase holds. */
static bool place(const lg_fn_t *f, uint64_t base, uint64_t *end, uint64_t *addr)
{
    uint64_t a = f->align > 1 ? f->align : 1;
    if (*end > UINT64_MAX - base || base + *end > UINT64_MAX - a)
        return false;
    uint64_t start = (f->flags & LG_FN_PHASED) ? lg_start_after(base + *end, a, f->lead) - base
                                               : lg_start_after(*end, a, 0);
    if (f->size > UINT64_MAX - start || start + f->size > UINT64_MAX - base)
        return false;
    *addr = base + start;
    *end = start + f->size;
    return true;
}

static lg_err_t past_address_space(lg_diag_t *d, uint64_t base, const char *what)
{
    return lg_diag_fail(d, LG_EINVAL, "", "layout from 0x%llx passes the address space at %s",
                        (unsigned long long)base, what);
}

lg_err_t lg_addresses_from_layout(const lg_program_t *prog, const lg_layout_t *layout,
                                  uint64_t base, uint64_t *addr_out, lg_diag_t *d)
{
    for (size_t i = 0; i < prog->nfns; i++)
        addr_out[i] = LG_ADDRESS_NONE;
    /* The linker script aligns the ordered code's start to section_align (`. = ALIGN(n)`). */
    uint64_t a = layout->section_align > 1 ? layout->section_align : 1;
    uint64_t rem = base % a;
    if (rem != 0 && a - rem > UINT64_MAX - base)
        return past_address_space(d, base, "the section alignment");
    base += rem ? a - rem : 0;
    uint64_t end = 0; /* bytes from base */
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        if (cl->pad_before > UINT64_MAX - end)
            return past_address_space(d, base, "a clique's padding");
        end += cl->pad_before; /* `. = . + pad` before the clique */
        for (size_t k = 0; k < cl->nfns; k++) {
            uint32_t i = cl->fns[k];
            if (i >= prog->nfns)
                return lg_diag_fail(d, LG_EINVAL, "",
                                    "clique %zu names function %u: expected below %zu", c, i,
                                    prog->nfns);
            if (addr_out[i] != LG_ADDRESS_NONE)
                return lg_diag_fail(d, LG_EINVAL, "",
                                    "clique %zu names function %s, already placed", c,
                                    prog->fns[i].symbol);
            if (!place(&prog->fns[i], base, &end, &addr_out[i]))
                return past_address_space(d, base, prog->fns[i].symbol);
        }
    }
    /* The rest in input order, as the linker script leaves them. prog->fns is in input order.
     * A fast region's code lies elsewhere, outside the cache. */
    for (size_t i = 0; i < prog->nfns; i++) {
        if (addr_out[i] != LG_ADDRESS_NONE || (prog->fns[i].flags & LG_FN_UNCACHED))
            continue;
        if (!place(&prog->fns[i], base, &end, &addr_out[i]))
            return past_address_space(d, base, prog->fns[i].symbol);
    }
    return LG_OK;
}

lg_err_t lg_addresses_from_elf(const lg_program_t *prog, uint64_t *addr_out, lg_diag_t *d)
{
    for (size_t i = 0; i < prog->nfns; i++) {
        if (prog->fns[i].address == UINT64_MAX)
            return lg_diag_fail(d, LG_EUNSUPPORTED, "", "function %s has no linked address: %s",
                                prog->fns[i].symbol,
                                "the current order needs a linked ELF, not only object files");
        addr_out[i] = (prog->fns[i].flags & LG_FN_UNCACHED) ? LG_ADDRESS_NONE
                                                             : prog->fns[i].address;
    }
    return LG_OK;
}

uint64_t lg_addresses_text_base(const lg_program_t *prog)
{
    uint64_t lowest = UINT64_MAX;
    for (size_t i = 0; i < prog->nfns; i++)
        if (prog->fns[i].address < lowest)
            lowest = prog->fns[i].address;
    return lowest == UINT64_MAX ? 0 : lowest;
}

/* ---- stride order ---------------------------------------------------------------------- */

/* One weighted item of a stride order: taken `turns` times so far out of `weight`. Weights
 * stay below 2^31 (the work bound is at most 2^30, plus one per arc), so the cross products of
 * earlier() stay below 2^63. */
typedef struct item {
    uint64_t weight;
    uint64_t turns;
    uint32_t id; /* what the item stands for: a callee, or a root function */
} item_t;

/* Whether a's next turn comes before b's: (2 a.turns + 1) / a.weight < (2 b.turns + 1) /
 * b.weight, exactly; ties (and two exhausted zero-weight items) by id. Items whose turns are
 * used up compare later than every item with turns left. */
static bool earlier(const item_t *a, const item_t *b)
{
    uint64_t ka = (2 * a->turns + 1) * b->weight;
    uint64_t kb = (2 * b->turns + 1) * a->weight;
    if (ka != kb)
        return ka < kb;
    return a->id < b->id;
}

static void sift_down(item_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && earlier(&h[l], &h[m]))
            m = l;
        if (r < n && earlier(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        item_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heapify(item_t *h, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(h, n, i);
}

/* Takes the next turn of the heap h[0..n) (n > 0, some turn left): returns its id. O(log n). */
static uint32_t take_turn(item_t *h, size_t n)
{
    uint32_t id = h[0].id;
    h[0].turns++;
    sift_down(h, n, 0);
    return id;
}

/* ---- the replay ------------------------------------------------------------------------ */

typedef struct frame {
    uint32_t fn;
    uint64_t calls_left; /* calls this invocation still makes */
} frame_t;

typedef struct replay {
    const lg_program_t *prog;
    const uint64_t *addr;
    const lg_estimate_footprint_t *footprints; /* or NULL */
    lg_cachesim_t cache;
    uint64_t window;      /* bytes per visit of a large body */
    uint64_t *body_bytes; /* per function: length of its body */
    uint64_t *cursor;     /* per function: where the next window of a large body starts */
    /* Calls, per caller: its arcs' items in a heap, at items[first[f] .. first[f + 1]). */
    size_t *first;
    item_t *items;
    uint64_t *out_left;    /* per function: calls still to make */
    uint64_t *out_total;   /* per function: scaled out(F) */
    uint64_t *invocations; /* per function: scaled n(F) */
    uint64_t *entered;     /* per function: invocations replayed so far */
    uint64_t *in;          /* per function: scaled in(F) */
    item_t *roots;         /* per function at most one: the current round's root entries */
    frame_t *stack;
    size_t depth;
    uint32_t *deferred; /* FIFO of functions whose entry was deferred */
    size_t ndeferred, deferred_head, deferred_cap;
    lg_estimate_t *out;
} replay_t;

/* Fetches bytes [off, off + len) of f's body (off + len <= body length). */
static void fetch_slice(replay_t *r, uint32_t f, uint64_t off, uint64_t len)
{
    uint64_t base = r->addr[f], misses = 0;
    const lg_estimate_footprint_t *fp = r->footprints ? &r->footprints[f] : NULL;
    if (fp == NULL || fp->nranges == 0) {
        misses = lg_cachesim_access(&r->cache, base + off, len);
    } else {
        for (size_t i = 0; i < fp->nranges && len > 0; i++) {
            uint64_t b = fp->ranges[i].bytes;
            if (off >= b) {
                off -= b;
                continue;
            }
            uint64_t n = b - off < len ? b - off : len;
            uint64_t o = fp->ranges[i].offset;
            if (o <= UINT64_MAX - base && off <= UINT64_MAX - base - o)
                misses += lg_cachesim_access(&r->cache, base + o + off, n);
            len -= n;
            off = 0;
        }
    }
    r->out->fn_misses[f] += misses;
}

/* One visit of f: its whole body, or the next window of a large one. */
static void visit(replay_t *r, uint32_t f)
{
    r->out->steps++;
    uint64_t len = r->body_bytes[f];
    if (r->addr[f] == LG_ADDRESS_NONE || len == 0)
        return;
    if (len <= r->window) {
        fetch_slice(r, f, 0, len);
        return;
    }
    uint64_t c = r->cursor[f];
    uint64_t tail = len - c;
    if (tail >= r->window) {
        fetch_slice(r, f, c, r->window);
    } else {
        fetch_slice(r, f, c, tail);
        fetch_slice(r, f, 0, r->window - tail);
    }
    r->cursor[f] = (c + r->window) % len;
}

/* Enters f: visits it and pushes its frame with this invocation's share of its calls. */
static void enter(replay_t *r, uint32_t f)
{
    uint64_t k = r->entered[f]++, n = r->invocations[f], out = r->out_total[f];
    uint64_t calls = 0;
    if (k < n)
        calls = ((k + 1) * out + n - 1) / n - (k * out + n - 1) / n; /* < 2^63: exact */
    if (calls > r->out_left[f])
        calls = r->out_left[f];
    r->out->invocations++;
    visit(r, f);
    r->stack[r->depth++] = (frame_t){f, calls};
}

static lg_err_t defer(replay_t *r, uint32_t f)
{
    if (r->ndeferred == r->deferred_cap && r->deferred_head > 0) {
        /* Reuse the consumed front of the queue before growing it. */
        memmove(r->deferred, r->deferred + r->deferred_head,
                (r->ndeferred - r->deferred_head) * sizeof *r->deferred);
        r->ndeferred -= r->deferred_head;
        r->deferred_head = 0;
    }
    if (!lg_grow((void **)&r->deferred, &r->deferred_cap, r->ndeferred + 1, sizeof *r->deferred))
        return LG_ENOMEM;
    r->deferred[r->ndeferred++] = f;
    r->out->deferred++;
    return LG_OK;
}

/* Runs the call tree of one entry of f to completion. */
static lg_err_t run(replay_t *r, uint32_t f)
{
    enter(r, f);
    while (r->depth > 0) {
        frame_t *top = &r->stack[r->depth - 1];
        if (top->calls_left == 0) {
            r->depth--;
            if (r->depth > 0)
                visit(r, r->stack[r->depth - 1].fn); /* the caller resumes */
            continue;
        }
        uint32_t caller = top->fn;
        top->calls_left--;
        r->out_left[caller]--;
        size_t b = r->first[caller], n = r->first[caller + 1] - b;
        uint32_t callee = take_turn(&r->items[b], n);
        r->out->calls++;
        if (r->depth < LG_ESTIMATE_MAX_DEPTH) {
            enter(r, callee);
        } else {
            LG_CHECK(defer(r, callee));
            visit(r, caller);
        }
    }
    return LG_OK;
}

static void replay_free(replay_t *r)
{
    lg_cachesim_destroy(&r->cache);
    free(r->body_bytes);
    free(r->cursor);
    free(r->first);
    free(r->items);
    free(r->out_left);
    free(r->out_total);
    free(r->invocations);
    free(r->entered);
    free(r->in);
    free(r->roots);
    free(r->stack);
    free(r->deferred);
}

/* Allocates the per-function and per-arc arrays (zeroed); false when memory runs out. */
static bool replay_alloc(replay_t *r, size_t nv, size_t ne)
{
    size_t vn = nv ? nv : 1, en = ne ? ne : 1;
    r->body_bytes = calloc(vn, sizeof *r->body_bytes);
    r->cursor = calloc(vn, sizeof *r->cursor);
    r->first = calloc(nv + 1, sizeof *r->first);
    r->items = calloc(en, sizeof *r->items);
    r->out_left = calloc(vn, sizeof *r->out_left);
    r->out_total = calloc(vn, sizeof *r->out_total);
    r->invocations = calloc(vn, sizeof *r->invocations);
    r->entered = calloc(vn, sizeof *r->entered);
    r->in = calloc(vn, sizeof *r->in);
    r->roots = calloc(vn, sizeof *r->roots);
    r->stack = calloc(LG_ESTIMATE_MAX_DEPTH, sizeof *r->stack);
    return r->body_bytes && r->cursor && r->first && r->items && r->out_left && r->out_total &&
           r->invocations && r->entered && r->in && r->roots && r->stack;
}

static uint64_t body_length(const lg_program_t *prog, const lg_estimate_footprint_t *fps, size_t f)
{
    if (fps == NULL || fps[f].nranges == 0)
        return prog->fns[f].size;
    uint64_t len = 0;
    for (size_t i = 0; i < fps[f].nranges; i++)
        len = lg_sat_add(len, fps[f].ranges[i].bytes);
    return len;
}

/* The factor that brings the replay's work within cap line lookups (1.0 when it is already):
 * per entry and per resumption, the lines of one visit plus one for the step itself. In
 * doubles: the counts are untrusted and may be near UINT64_MAX. Needs body_bytes. */
static double work_scale(const replay_t *r, uint32_t line_size, uint64_t cap)
{
    const lg_program_t *prog = r->prog;
    size_t nv = prog->nfns;
    double *raw_in = calloc(nv ? nv : 1, sizeof *raw_in);
    double *raw_out = calloc(nv ? nv : 1, sizeof *raw_out);
    if (raw_in == NULL || raw_out == NULL) {
        free(raw_in);
        free(raw_out);
        return -1.0;
    }
    for (size_t a = 0; a < prog->narcs; a++) {
        raw_out[prog->arcs[a].caller] += (double)prog->arcs[a].weight;
        raw_in[prog->arcs[a].callee] += (double)prog->arcs[a].weight;
    }
    double work = 0.0;
    for (size_t f = 0; f < nv; f++) {
        uint64_t bytes = r->body_bytes[f] < r->window ? r->body_bytes[f] : r->window;
        double visit_lines = (double)(bytes / line_size) + LG_VISIT_EXTRA_LINES + 1.0;
        double n = (double)prog->fns[f].hits;
        if (raw_in[f] > n)
            n = raw_in[f];
        if (raw_out[f] > 0.0 && n < 1.0)
            n = 1.0;
        work += (n + raw_out[f]) * visit_lines;
    }
    free(raw_in);
    free(raw_out);
    return work > (double)cap ? (double)cap / work : 1.0;
}

/* Nonzero counts scaled by s stay at least 1: a function or arc that ran is replayed. */
static uint64_t scaled(uint64_t v, double s)
{
    uint64_t x = lg_scale_count(v, s);
    return v > 0 && x == 0 ? 1 : x;
}

/* Fills the call heaps (arcs grouped by caller with a stable counting sort), and the scaled
 * counts: out(F), in(F), n(F). Returns false when memory runs out. */
static bool load_counts(replay_t *r, double s)
{
    const lg_program_t *prog = r->prog;
    size_t nv = prog->nfns, ne = prog->narcs;
    size_t *fill = calloc(nv ? nv : 1, sizeof *fill);
    if (fill == NULL)
        return false;
    for (size_t a = 0; a < ne; a++)
        r->first[prog->arcs[a].caller + 1]++;
    for (size_t f = 0; f < nv; f++) {
        r->first[f + 1] += r->first[f];
        fill[f] = r->first[f];
    }
    for (size_t a = 0; a < ne; a++) {
        const lg_arc_t *arc = &prog->arcs[a];
        uint64_t w = scaled(arc->weight, s);
        r->items[fill[arc->caller]++] = (item_t){w, 0, arc->callee};
        r->out_total[arc->caller] += w;
        r->in[arc->callee] += w;
    }
    free(fill);
    for (size_t f = 0; f < nv; f++) {
        heapify(&r->items[r->first[f]], r->first[f + 1] - r->first[f]);
        r->out_left[f] = r->out_total[f];
        uint64_t n = scaled(prog->fns[f].hits, s);
        if (r->in[f] > n)
            n = r->in[f];
        if (r->out_total[f] > 0 && n == 0)
            n = 1;
        r->invocations[f] = n;
        if (n > 0 && r->addr[f] == LG_ADDRESS_NONE && r->body_bytes[f] > 0)
            r->out->unplaced++;
    }
    return true;
}

/* Round 0 enters each function r(F) times, round 1 n(F) - entered(F) times unless a call
 * reaches the count first (see the file header); both in stride order. After round 1 every
 * function has been entered at least n(F) times: each of its turns either enters it or finds
 * the count reached. */
static lg_err_t run_round(replay_t *r, int round)
{
    size_t nroots = 0;
    for (size_t f = 0; f < r->prog->nfns; f++) {
        uint64_t taken = round == 0 ? r->in[f] : r->entered[f];
        if (r->invocations[f] > taken)
            r->roots[nroots++] = (item_t){r->invocations[f] - taken, 0, (uint32_t)f};
    }
    if (nroots == 0)
        return LG_OK;
    r->out->rounds++;
    heapify(r->roots, nroots);
    uint64_t turns = 0;
    for (size_t i = 0; i < nroots; i++)
        turns += r->roots[i].weight; /* <= the sum of n(F): no overflow */
    for (; turns > 0; turns--) {
        uint32_t f = take_turn(r->roots, nroots);
        if (round > 0 && r->entered[f] >= r->invocations[f])
            continue; /* reached by a call since the round began */
        LG_CHECK(run(r, f));
        while (r->deferred_head < r->ndeferred)
            LG_CHECK(run(r, r->deferred[r->deferred_head++]));
        r->deferred_head = r->ndeferred = 0;
    }
    return LG_OK;
}

lg_err_t lg_estimate_misses(const lg_program_t *prog, const uint64_t *addr,
                            const lg_geometry_t *geo, const lg_estimate_opts_t *opts,
                            lg_estimate_t *out, lg_diag_t *d)
{
    lg_estimate_destroy(out);
    lg_estimate_opts_t defaults;
    lg_estimate_opts_init(&defaults);
    if (opts == NULL)
        opts = &defaults;
    uint64_t cap = opts->max_touches ? opts->max_touches : LG_ESTIMATE_MAX_TOUCHES_DEFAULT;
    if (cap > LG_ESTIMATE_MAX_TOUCHES_LIMIT)
        cap = LG_ESTIMATE_MAX_TOUCHES_LIMIT;
    size_t nv = prog->nfns, ne = prog->narcs;
    if (nv >= UINT32_MAX)
        return lg_diag_fail(d, LG_ELIMIT, "", "%zu functions: expected fewer than %u", nv,
                            UINT32_MAX);
    for (size_t a = 0; a < ne; a++)
        if (prog->arcs[a].caller >= nv || prog->arcs[a].callee >= nv)
            return lg_diag_fail(d, LG_EINVAL, "", "arc %zu joins functions %u and %u: %s %zu", a,
                                prog->arcs[a].caller, prog->arcs[a].callee, "expected both below",
                                nv);

    replay_t r;
    memset(&r, 0, sizeof r);
    r.prog = prog;
    r.addr = addr;
    r.footprints = opts->footprints;
    r.out = out;
    r.window = opts->window_bytes ? opts->window_bytes : LG_ESTIMATE_WINDOW_BYTES_DEFAULT;
    lg_err_t err = lg_cachesim_init(&r.cache, geo, d);
    if (err != LG_OK)
        return err;
    out->fn_misses = calloc(nv ? nv : 1, sizeof *out->fn_misses);
    if (out->fn_misses == NULL || !replay_alloc(&r, nv, ne))
        goto nomem;
    out->nfns = nv;
    for (size_t f = 0; f < nv; f++)
        r.body_bytes[f] = body_length(prog, opts->footprints, f);
    out->scale = work_scale(&r, geo->line_size, cap);
    if (out->scale < 0.0 || !load_counts(&r, out->scale))
        goto nomem;
    for (int round = 0; round < 2 && err == LG_OK; round++)
        err = run_round(&r, round);
    if (err != LG_OK)
        goto nomem; /* only the deferred queue can fail */
    out->accesses = r.cache.accesses;
    out->misses = r.cache.misses;
    replay_free(&r);
    return LG_OK;

nomem:
    replay_free(&r);
    lg_estimate_destroy(out);
    return lg_diag_fail(d, LG_ENOMEM, "", "out of memory replaying %zu functions and %zu arcs", nv,
                        ne);
}
