/* clique.c - partition the call graph into cache-sized cliques ("Call Proximity Hit Order").
 *
 * The CodeScape Instruction Cache Optimizer pairs the functions that call each other most, then
 * grows each pair through its callers and callees, closing the group (a clique) before it would
 * exceed the instruction cache, so that all of a clique's members can be cached at once. Cliques
 * are then linked hottest first. This file does the same on lorgen's program model, with every
 * choice made by a total order so that the output is byte-stable.
 *
 * Definitions:
 *   candidate          an executed function (hits > 0, or an arc of weight > 0 in or out, self arcs
 *                      included) that the linker can move (size > 0, section of its own)
 *   padded size        a function's span (lg_fn_span: a phased function's lead, then its code)
 *                      rounded up to its alignment (align 0 or 1: no padding)
 *   fill               a clique's bytes (lg_clique_t.bytes): where its last member ends when the
 *                      members are laid out in clique order from an address aligned for all of
 *                      them, each starting at its own alignment (lg_place_after in layout.h)
 *   fill bound         the sum of the members' padded sizes plus, per member, its alignment minus
 *                      the smallest alignment in the clique; never less than the fill whatever the
 *                      order (alignments are powers of two), and equal to the plain sum of padded
 *                      sizes when all members share one alignment. A function joins a clique only
 *                      if the fill bound stays within the cache, so fill <= cache size always
 *                      holds, except for an oversized single-function clique
 *   clique             candidates laid out together, in a chain that keeps callers next to callees,
 *                      whose fill bound fits the cache
 *   undirected weight  w(u,v) = w(u->v) + w(v->u) between distinct functions (callgraph.h)
 *   connection weight  of a free candidate x to the clique being grown: the sum of w(x,m) over its
 *                      members m
 *   hotness            a function's hits; a clique's hotness is the sum of its members' hits
 *   rank               (input_order, index in fns): the total order that breaks every remaining tie
 *
 * Steps:
 *   * Classify every function: never executed -> cold; executed but unmovable -> excluded;
 *     a candidate whose padded size exceeds the cache -> a clique of its own (LG_CLIQUE_OVERSIZED,
 *     with a warning); every other candidate is free.
 *   * Collect the undirected edges between free candidates with weight >= LG_MIN_GROUP_WEIGHT and
 *     sort them once: weight descending, then lower rank of the lower-ranked end, then lower rank
 *     of the other end.
 *   * For each edge in that order whose ends are both still free and fit together (fill bound of
 *     the pair <= cache size):
 *     * start a clique with the pair, the caller of the heavier direction first;
 *     * repeatedly add the free neighbour with the largest connection weight (ties: more hits,
 *       then lower rank) among those whose joining keeps the fill bound within the cache, using
 *       a max-heap with lazy updates;
 *     * place each added function x next to the member m it is most connected to (ties: lower
 *       rank): after m if w(m->x) >= w(x->m) (m calls x), else before m;
 *     * close the clique when no connected free candidate fits.
 *   * Pack the free candidates left over by hotness (hits descending, then rank), in that order,
 *     into consecutive cliques, each closed before its fill bound would exceed the cache
 *     (LG_CLIQUE_NO_CALLS).
 *   * Record each clique's fill (its bytes) for its final order.
 *   * Order all cliques by hotness descending, then by the rank of their first function.
 *
 * Leftovers are never appended to an existing clique: a leftover with an edge to a member of a
 * grown clique was offered to that clique while it grew (it entered the heap when the member
 * joined) and did not fit, and a clique's fill bound never shrinks as members join, so it still
 * would not fit; an oversized clique has no room at all. Two leftovers joined by an edge are two
 * candidates too large to share the cache, so packing them by hotness loses nothing.
 *
 * Cost: two neighbour queries per candidate, one sort of at most E edges and at most one heap
 * entry per (member, neighbour) pair: O((V + E) log (V + E)) time, O(V + E) memory. A
 * neighbour that no longer fits the clique never enters the heap, and an entry that stopped
 * fitting is dropped on what the entry carries, without reading the function's state: the
 * fill bound only grows as members join, so neither could join this clique again.
 *
 * Reference: Cross Products Ltd, "CodeScape ASE Mode Trace Profiler Guide", release 2.3 (2000),
 * section "Using the Instruction Cache Optimizer"; the heaviest-edge-first
 * greedy follows Pettis & Hansen, "Profile Guided Code Positioning", PLDI 1990,
 * doi:10.1145/93542.93550.
 */
#include "clique.h"

#include "algorithms.h"
#include "bigalloc.h"
#include "callgraph.h"
#include "classify.h"
#include "mem.h"
#include "prefetch.h"
#include "seeds.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Lightest undirected weight, in calls, that may seed or grow a clique: an arc that was never
 * taken is no reason to place two functions together. */
#define LG_MIN_GROUP_WEIGHT 1u

/* Alignment, in bytes, that "no padding" stands for in the fill bound. */
#define LG_ALIGN_UNIT 1u

/* Location the diagnostics of this pass carry. */
#define LG_CLIQUE_WHERE "clique pass"

enum fn_state {
    ST_OTHER = 0,   /* not a free candidate: cold, excluded, oversized */
    ST_FREE = 1,    /* candidate not yet in a clique */
    ST_GROWING = 2, /* member of the clique being grown */
    ST_TAKEN = 3,   /* candidate in a closed clique */
};

/* The states are packed, four to a byte: the growth reads the state of every neighbour of
 * every member, and 1M functions then take 256 KiB, which stays in a core's cache, where a byte
 * each (1 MiB) did not. */
#define LG_STATE_BITS 2u
#define LG_STATE_MASK 3u
#define LG_STATES_PER_BYTE 4u

/* What the growth reads of a free candidate, in one record: a visit costs one cache miss on a
 * large program instead of one per array. The state is apart, in two bits per function that
 * mostly stay in the cache: most visits end at the state (a member, or taken). pad and align
 * are those of a candidate that fits the cache (<= 64 MiB, layout.c); oversized candidates
 * never grow a clique. */
typedef struct node {
    uint64_t conn;     /* connection weight to the clique being grown (fitting candidates) */
    uint32_t pad;      /* padded size, bytes */
    uint32_t align;    /* unit_align, bytes */
    uint32_t rank_pos; /* index in the candidates' rank order */
    uint32_t hot_pos;  /* index in hot_order */
} node_t;

typedef struct heap_entry {
    uint64_t conn; /* connection weight when pushed; stale once it differs from node.conn */
    uint32_t hot;  /* node.hot_pos, carried so that comparing entries reads nothing else */
    uint32_t fn;
    uint32_t pad, align; /* node.pad and node.align, so that a fit is checked on the entry */
} heap_entry_t;

/* Running fill bound of a clique under construction (see "fill bound" above). */
typedef struct fill {
    uint64_t pad_sum;   /* bytes: sum of padded sizes */
    uint64_t align_sum; /* bytes: sum of alignments */
    uint64_t align_min; /* bytes: smallest alignment, 0 while empty */
    uint64_t n;         /* members */
} fill_t;

typedef struct work {
    lg_i_order_t *o;
    const lg_callgraph_t *cg;
    uint64_t cache;        /* bytes */
    node_t *node;          /* per function */
    uint8_t *state;        /* per function: enum fn_state, LG_STATE_BITS each (get_state) */
    const uint32_t *cand;  /* the candidates in rank order (o->cls.candidates) */
    size_t ncand;          /* candidates */
    uint32_t *hot_order;   /* the candidates by hits descending, then rank */
    uint32_t *next, *prev; /* per function: chain links inside the clique being grown */
    uint32_t *members;     /* the chain being closed, in order; ncand entries */
    lg_cg_neighbour_t *nb; /* neighbour buffer, lg_cg_max_degree_bound entries */
    heap_entry_t *heap;
    size_t nheap, heap_cap;
    uint32_t *touched; /* functions whose conn is non-zero, to reset when a clique closes */
    size_t ntouched, touched_cap;
    uint32_t head; /* first function of the chain being grown */
    fill_t fill;   /* fill bound of the clique being grown */
} work_t;

/* The growth heap is swept of entries that no longer fit once the pops of such entries since
 * the last sweep pass 1/LG_HEAP_SWEEP_SHARE of its size (so a sweep, O(size), costs a few
 * steps per entry it could save a pop of O(log size)), and only when it holds at least
 * LG_HEAP_SWEEP_MIN entries. */
#define LG_HEAP_SWEEP_SHARE 8u
#define LG_HEAP_SWEEP_MIN 256u /* entries */

/* ---- small helpers ---------------------------------------------------------------------- */

/* Asks the cache for the record of fn, which a loop will read a few steps later: the records
 * are scattered over the function table, and the misses then overlap. */
static void prefetch_node(const work_t *w, uint32_t fn)
{
    lg_prefetch(&w->node[fn]);
}

/* The state of fn: its LG_STATE_BITS in the packed array. */
static enum fn_state get_state(const work_t *w, uint32_t fn)
{
    unsigned shift = (fn % LG_STATES_PER_BYTE) * LG_STATE_BITS;
    return (enum fn_state)((w->state[fn / LG_STATES_PER_BYTE] >> shift) & LG_STATE_MASK);
}

static void set_state(work_t *w, uint32_t fn, enum fn_state st)
{
    unsigned shift = (fn % LG_STATES_PER_BYTE) * LG_STATE_BITS;
    uint8_t *b = &w->state[fn / LG_STATES_PER_BYTE];
    *b = (uint8_t)((*b & ~(LG_STATE_MASK << shift)) | ((unsigned)st << shift));
}

/* Asks the cache for the state of fn. */
static void prefetch_state(const work_t *w, uint32_t fn)
{
    lg_prefetch(&w->state[fn / LG_STATES_PER_BYTE]);
}

/* The alignment the fill bound uses: 0 and 1 both mean LG_ALIGN_UNIT. */
static uint64_t unit_align(const lg_fn_t *f)
{
    return f->align > LG_ALIGN_NO_PADDING ? f->align : LG_ALIGN_UNIT;
}

/* The fill bound of f's clique once a function of padded size pad and alignment a (not
 * oversized) has joined it. Every term is at most a few times the cache size (<= 64 MiB,
 * layout.c), so nothing overflows. */
static uint64_t fill_with(const fill_t *f, uint64_t pad, uint64_t a)
{
    uint64_t m = (f->n == 0 || a < f->align_min) ? a : f->align_min;
    return f->pad_sum + pad + (f->align_sum + a) - (f->n + 1) * m;
}

static bool fits(const work_t *w, const fill_t *f, const node_t *x)
{
    return fill_with(f, x->pad, x->align) <= w->cache;
}

static void fill_add(fill_t *f, const node_t *x)
{
    f->pad_sum += x->pad;
    f->align_sum += x->align;
    if (f->n == 0 || x->align < f->align_min)
        f->align_min = x->align;
    f->n++;
}

/* ---- the growth heap: max connection weight, then more hits, then lower rank ------------ */

/* The order of hot_pos is (hits descending, rank), so one comparison of positions settles both
 * ties without reading the functions: on a large program the heap's entries are scattered over
 * the function table, and reading it cost a cache miss per comparison. */
static bool heap_before(const heap_entry_t *a, const heap_entry_t *b)
{
    if (a->conn != b->conn)
        return a->conn > b->conn;
    return a->hot < b->hot;
}

static lg_err_t heap_push(work_t *w, uint32_t fn)
{
    if (!lg_grow((void **)&w->heap, &w->heap_cap, w->nheap + 1, sizeof *w->heap))
        return lg_i_nomem(w->o, "the clique growth heap");
    const node_t *x = &w->node[fn];
    size_t i = w->nheap++;
    heap_entry_t e = {x->conn, x->hot_pos, fn, x->pad, x->align};
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!heap_before(&e, &w->heap[parent]))
            break;
        w->heap[i] = w->heap[parent];
        i = parent;
    }
    w->heap[i] = e;
    return LG_OK;
}

/* Puts e at position i of the heap h[0..n) and moves it down to its place. */
static void sift_down(heap_entry_t *h, size_t n, size_t i, heap_entry_t e)
{
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && heap_before(&h[child + 1], &h[child]))
            child++;
        if (!heap_before(&h[child], &e))
            break;
        h[i] = h[child];
        i = child;
    }
    h[i] = e;
}

static bool heap_pop(work_t *w, heap_entry_t *top)
{
    if (w->nheap == 0)
        return false;
    *top = w->heap[0];
    heap_entry_t last = w->heap[--w->nheap];
    if (w->nheap > 0)
        sift_down(w->heap, w->nheap, 0, last);
    return true;
}

/* Removes the entries that no longer fit the clique and rebuilds the heap from the rest, in
 * O(heap size). The entries left come out in the same order: the heap orders by a total order
 * on the entries, whatever else it holds. */
static void heap_drop_unfitting(work_t *w)
{
    size_t n = 0;
    for (size_t i = 0; i < w->nheap; i++)
        if (fill_with(&w->fill, w->heap[i].pad, w->heap[i].align) <= w->cache)
            w->heap[n++] = w->heap[i];
    w->nheap = n;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(w->heap, n, i, w->heap[i]);
}

/* ---- growing a clique ------------------------------------------------------------------- */

static void chain_insert_after(work_t *w, uint32_t m, uint32_t x)
{
    w->prev[x] = m;
    w->next[x] = w->next[m];
    if (w->next[m] != LG_I_NONE)
        w->prev[w->next[m]] = x;
    w->next[m] = x;
}

static void chain_insert_before(work_t *w, uint32_t m, uint32_t x)
{
    w->next[x] = m;
    w->prev[x] = w->prev[m];
    if (w->prev[m] != LG_I_NONE)
        w->next[w->prev[m]] = x;
    else
        w->head = x;
    w->prev[m] = x;
}

/* Places x in the chain of the clique being grown: next to best, its most connected member
 * (the chain's first member when first), after it if best calls x at least as much as x calls
 * it, else before it. */
static void chain_place(work_t *w, uint32_t x, bool first, const lg_cg_neighbour_t *best)
{
    if (first) {
        w->head = x;
        w->next[x] = w->prev[x] = LG_I_NONE;
    } else if (best == NULL) {
        /* x joined through a positive connection weight, so best exists; if it did not, the
         * chain would still stay whole with x in front. */
        chain_insert_before(w, w->head, x);
    } else if (best->in >= best->out) { /* w(m->x) >= w(x->m): m calls x, x goes after m */
        chain_insert_after(w, best->node, x);
    } else {
        chain_insert_before(w, best->node, x);
    }
}

/* Raises the connection weight of v, a free neighbour of the clique that fits it, by weight,
 * and offers v to the growth heap. */
static lg_err_t connect(work_t *w, uint32_t v, uint64_t weight)
{
    node_t *x = &w->node[v];
    if (x->conn == 0) {
        if (!lg_grow((void **)&w->touched, &w->touched_cap, w->ntouched + 1, sizeof *w->touched))
            return lg_i_nomem(w->o, "the clique growth state");
        w->touched[w->ntouched++] = v;
    }
    x->conn = lg_sat_add(x->conn, weight);
    return heap_push(w, v);
}

/* Adds x to the clique being grown: in one pass over its neighbours, finds the member it is most
 * connected to (ties: lower rank) and raises the connection weight of the free neighbours that
 * still fit once x has joined; then places x in the chain next to that member (or starts the
 * chain when first). x is no neighbour of its own, so marking it a member first changes
 * neither. */
static lg_err_t join(work_t *w, uint32_t x, bool first)
{
    size_t n = lg_cg_neighbours(w->cg, x, w->nb);
    set_state(w, x, ST_GROWING);
    fill_add(&w->fill, &w->node[x]);
    const lg_cg_neighbour_t *best = NULL;
    for (size_t i = 0; i < n; i++) {
        /* The state of the entry two steps ahead, and the record of the one a step ahead if it
         * is free, so that the misses overlap. */
        if (i + 2 * LG_PREFETCH_AHEAD < n)
            prefetch_state(w, w->nb[i + 2 * LG_PREFETCH_AHEAD].node);
        if (i + LG_PREFETCH_AHEAD < n && get_state(w, w->nb[i + LG_PREFETCH_AHEAD].node) == ST_FREE)
            prefetch_node(w, w->nb[i + LG_PREFETCH_AHEAD].node);
        const lg_cg_neighbour_t *e = &w->nb[i];
        if (e->weight < LG_MIN_GROUP_WEIGHT)
            continue;
        enum fn_state state = get_state(w, e->node);
        if (state == ST_GROWING) {
            if (best == NULL || e->weight > best->weight ||
                (e->weight == best->weight &&
                 w->node[e->node].rank_pos < w->node[best->node].rank_pos))
                best = e;
        } else if (state == ST_FREE && fits(w, &w->fill, &w->node[e->node])) {
            /* A neighbour that does not fit now never will: the fill bound only grows. */
            LG_CHECK(connect(w, e->node, e->weight));
        }
    }
    chain_place(w, x, first, best);
    return LG_OK;
}

/* Appends the chain as a clique, marks its members taken and clears the growth state. */
static lg_err_t close_chain(work_t *w)
{
    size_t k = 0;
    for (uint32_t x = w->head; x != LG_I_NONE && k < w->ncand; x = w->next[x]) {
        w->members[k++] = x;
        set_state(w, x, ST_TAKEN);
    }
    memset(&w->fill, 0, sizeof w->fill);
    for (size_t i = 0; i < w->ntouched; i++)
        w->node[w->touched[i]].conn = 0;
    w->ntouched = 0;
    w->nheap = 0;
    return lg_i_add_clique(w->o, w->members, k);
}

/* Grows one clique from the seed pair lo, hi (lo the lower-ranked; both free, fitting
 * together). */
static lg_err_t grow_clique(work_t *w, uint32_t lo, uint32_t hi)
{
    /* The lower-ranked end starts the chain; join() then puts the other end after it unless
     * the other end is the heavier caller, so the caller comes first and ties keep rank order. */
    LG_CHECK(join(w, lo, true));
    LG_CHECK(join(w, hi, false));
    heap_entry_t e;
    size_t dropped = 0; /* entries popped because they no longer fit, since the last filter */
    while (heap_pop(w, &e)) {
        /* The fill bound only grows: an entry that does not fit now is done with. Once many
         * have come up, the rest of them leave in one sweep instead of one pop each. */
        if (fill_with(&w->fill, e.pad, e.align) > w->cache) {
            if (++dropped > w->nheap / LG_HEAP_SWEEP_SHARE && w->nheap >= LG_HEAP_SWEEP_MIN) {
                heap_drop_unfitting(w);
                dropped = 0;
            }
            continue;
        }
        if (get_state(w, e.fn) != ST_FREE || e.conn != w->node[e.fn].conn)
            continue; /* taken meanwhile, or a newer entry carries its current weight */
        LG_CHECK(join(w, e.fn, false));
    }
    return close_chain(w);
}

/* ---- ordering by hits ------------------------------------------------------------------ */

/* hot_order and node.hot_pos: the candidates by hits descending, then rank (a stable sort of
 * the rank order by hits; a record carries each candidate as weight = hits, a = rank
 * position). */
static lg_err_t order_by_hits(work_t *w)
{
    size_t n = w->ncand;
    lg_weighted_t *keys = malloc((n ? n : 1) * sizeof *keys);
    lg_weighted_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    w->hot_order = malloc((n ? n : 1) * sizeof *w->hot_order);
    lg_err_t err = LG_OK;
    if (keys != NULL && tmp != NULL && w->hot_order != NULL) {
        for (size_t k = 0; k < n; k++)
            keys[k] = (lg_weighted_t){w->o->prog->fns[w->cand[k]].hits, (uint32_t)k, 0};
        if (!lg_sort_by_weight_desc(&keys, &tmp, n))
            err = lg_i_nomem(w->o, "ordering the functions by hits");
        for (size_t k = 0; k < n && err == LG_OK; k++) {
            w->hot_order[k] = w->cand[keys[k].a];
            w->node[w->hot_order[k]].hot_pos = (uint32_t)k;
        }
    } else {
        err = lg_i_nomem(w->o, "ordering the functions by hits");
    }
    free(keys);
    free(tmp);
    return err;
}

/* ---- the steps -------------------------------------------------------------------------- */

/* Step 1: the frame classified (classify.h) and warned about the oversized candidates; they
 * get their cliques here, every other candidate is free. */
static lg_err_t classify(work_t *w)
{
    const lg_i_order_t *o = w->o;
    for (size_t k = 0; k < w->ncand; k++) {
        uint32_t i = w->cand[k];
        node_t *x = &w->node[i];
        x->rank_pos = (uint32_t)k;
        if (o->cls.padded[i] > w->cache) {
            LG_CHECK(lg_i_add_clique(w->o, &w->cand[k], 1));
            continue;
        }
        set_state(w, i, ST_FREE);
        x->pad = (uint32_t)o->cls.padded[i];
        x->align = (uint32_t)unit_align(&o->prog->fns[i]);
    }
    return order_by_hits(w);
}

/* Ascending b: the seeds one candidate offers, by rank position of their other end. */
static int seed_rank_cmp(const void *pa, const void *pb)
{
    const lg_weighted_t *a = pa, *b = pb;
    return (a->b > b->b) - (a->b < b->b);
}

/* True when the candidates' rank order is their index order (input_order ascends with the
 * index, as program.h's input order normally has it): the rank of an end is then its index. */
static bool ranks_follow_indexes(const work_t *w)
{
    for (size_t k = 1; k < w->ncand; k++)
        if (w->cand[k] < w->cand[k - 1])
            return false;
    return true;
}

/* Step 2: the seed edges of every free candidate, each pair once from its lower-ranked end, in
 * (lower-ranked end, other end) rank order: the candidates in rank order, one candidate's seeds
 * in rank order of the other end. A neighbour's rank is its index when ranks follow indexes, so
 * nothing is read of it, and a pair whose other end is not free is kept: step 3 skips it as it
 * skips the pairs taken meanwhile, and the pairs around it keep their order. Otherwise free_rank
 * (per function: rank position + 1 if free, else 0) gives the rank, and a candidate's seeds are
 * sorted by it when its neighbours' ranks do not ascend. one has room for a candidate's
 * neighbours. */
static lg_err_t collect_seeds(work_t *w, const uint32_t *free_rank, lg_weighted_t *one,
                              lg_seeds_t *seeds)
{
    for (size_t k = 0; k < w->ncand; k++) {
        uint32_t u = w->cand[k];
        if (get_state(w, u) != ST_FREE)
            continue;
        size_t n = lg_cg_neighbours(w->cg, u, w->nb), m = 0;
        bool ascending = true;
        for (size_t i = 0; i < n; i++) {
            uint32_t v = w->nb[i].node, rank;
            if (w->nb[i].weight < LG_MIN_GROUP_WEIGHT)
                continue;
            if (free_rank == NULL) {
                if (v < u)
                    continue; /* the pair comes from v's side */
                rank = v;
            } else {
                if (free_rank[v] <= k + 1)
                    continue; /* the pair comes from v's side, or v is not free */
                rank = free_rank[v] - 1;
            }
            if (m > 0 && rank < one[m - 1].b)
                ascending = false;
            one[m++] = (lg_weighted_t){w->nb[i].weight, u, rank};
        }
        if (!ascending)
            qsort(one, m, sizeof *one, seed_rank_cmp);
        for (size_t i = 0; i < m; i++) {
            uint32_t v = free_rank == NULL ? one[i].b : w->cand[one[i].b];
            /* Every distinct pair has at least one non-self arc, so seeds->n < seeds->cap. */
            if (!lg_seeds_add(seeds, one[i].weight, u, v))
                return lg_i_nomem(w->o, "the seed edges");
        }
    }
    return LG_OK;
}

/* Steps 2 and 3: the seed edges, sorted once (heaviest first, ties in collection order), each
 * grown into a clique when both ends are still free and fit together. */
static lg_err_t grow_from_edges(work_t *w)
{
    size_t cap = lg_cg_arc_count(w->cg);
    if (cap == 0)
        return LG_OK;
    size_t nfns = w->o->prog->nfns;
    uint32_t *free_rank = NULL;
    if (!ranks_follow_indexes(w)) {
        free_rank = calloc(nfns ? nfns : 1, sizeof *free_rank);
        if (free_rank == NULL)
            return lg_i_nomem(w->o, "the seed edges");
        for (size_t k = 0; k < w->ncand; k++)
            if (get_state(w, w->cand[k]) == ST_FREE)
                free_rank[w->cand[k]] = (uint32_t)k + 1;
    }
    size_t deg = lg_cg_max_degree_bound(w->cg);
    lg_weighted_t *one = malloc((deg ? deg : 1) * sizeof *one);
    lg_seeds_t seeds;
    lg_err_t err = LG_OK;
    if (one == NULL || !lg_seeds_init(&seeds, cap))
        err = lg_i_nomem(w->o, "the seed edges");
    else
        err = collect_seeds(w, free_rank, one, &seeds);
    free(free_rank);
    free(one);
    lg_seed_pair_t *sorted = NULL;
    size_t nseeds = seeds.n;
    if (err == LG_OK && !lg_seeds_sort(&seeds, &sorted))
        err = lg_i_nomem(w->o, "sorting the seed edges");
    lg_seeds_destroy(&seeds);

    for (size_t i = 0; i < nseeds && err == LG_OK; i++) {
        if (i + LG_PREFETCH_AHEAD < nseeds) {
            prefetch_state(w, sorted[i + LG_PREFETCH_AHEAD].lo);
            prefetch_state(w, sorted[i + LG_PREFETCH_AHEAD].hi);
        }
        uint32_t a = sorted[i].lo, b = sorted[i].hi;
        if (get_state(w, a) != ST_FREE || get_state(w, b) != ST_FREE)
            continue;
        fill_t pair = {0, 0, 0, 0};
        fill_add(&pair, &w->node[a]);
        if (!fits(w, &pair, &w->node[b]))
            continue;
        err = grow_clique(w, a, b);
    }
    free(sorted);
    return err;
}

/* Step 4: free candidates left over, by hotness (hot_order), packed into LG_CLIQUE_NO_CALLS
 * cliques. */
static lg_err_t pack_leftovers(work_t *w)
{
    size_t n = 0;
    for (size_t k = 0; k < w->ncand; k++)
        if (get_state(w, w->hot_order[k]) == ST_FREE)
            w->members[n++] = w->hot_order[k];
    const uint32_t *left = w->members;
    size_t start = 0;
    fill_t fill = {0, 0, 0, 0};
    for (size_t i = 0; i <= n; i++) {
        /* Close the run [start, i) at the end or when left[i] would overflow it. */
        if (i > start && (i == n || !fits(w, &fill, &w->node[left[i]]))) {
            LG_CHECK(lg_i_add_clique(w->o, &left[start], i - start));
            w->o->cliques[w->o->ncliques - 1].flags |= LG_CLIQUE_NO_CALLS;
            start = i;
            memset(&fill, 0, sizeof fill);
        }
        if (i < n)
            fill_add(&fill, &w->node[left[i]]);
    }
    return LG_OK;
}

/* Step 5: all cliques by hotness, then by the rank of their first function: the density order
 * with every size 1. */
static lg_err_t order_cliques(work_t *w)
{
    lg_i_order_t *o = w->o;
    size_t n = o->ncliques;
    uint64_t *hits = malloc((n ? n : 1) * sizeof *hits);
    uint64_t *ones = malloc((n ? n : 1) * sizeof *ones);
    lg_err_t err = LG_OK;
    if (hits == NULL || ones == NULL) {
        err = lg_i_nomem(o, "ordering the cliques");
    } else {
        for (size_t i = 0; i < n; i++) {
            hits[i] = o->cliques[i].hits;
            ones[i] = 1;
        }
        err = lg_i_sort_by_density(o, hits, ones);
    }
    free(hits);
    free(ones);
    return err;
}

static void work_free(work_t *w)
{
    free(w->node);
    free(w->state);
    free(w->hot_order);
    free(w->next);
    free(w->prev);
    free(w->members);
    free(w->nb);
    free(w->heap);
    free(w->touched);
}

static lg_err_t work_alloc(work_t *w)
{
    size_t n = w->o->prog->nfns ? w->o->prog->nfns : 1; /* calloc(0) may return NULL */
    size_t deg = lg_cg_max_degree_bound(w->cg);
    w->node = lg_big_calloc(n, sizeof *w->node);                     /* conn 0 */
    w->state = calloc(n / LG_STATES_PER_BYTE + 1, sizeof *w->state); /* ST_OTHER */
    w->next = lg_big_calloc(n, sizeof *w->next);
    w->prev = lg_big_calloc(n, sizeof *w->prev);
    w->members = calloc(w->ncand ? w->ncand : 1, sizeof *w->members);
    w->nb = calloc(deg ? deg : 1, sizeof *w->nb);
    if (!w->node || !w->state || !w->next || !w->prev || !w->members || !w->nb)
        return lg_i_nomem(w->o, "the clique pass");
    return LG_OK;
}

static lg_err_t clique_body(lg_i_order_t *o)
{
    work_t w;
    memset(&w, 0, sizeof w);
    w.o = o;
    w.cg = o->cg;
    w.cache = o->cache;
    w.cand = o->cls.candidates;
    w.ncand = o->cls.ncandidates;
    lg_err_t err = work_alloc(&w);
    if (err == LG_OK)
        err = classify(&w);
    if (err == LG_OK)
        err = grow_from_edges(&w);
    if (err == LG_OK)
        err = pack_leftovers(&w);
    if (err == LG_OK)
        err = order_cliques(&w);
    work_free(&w);
    return err;
}

static const lg_i_algorithm_t clique_algorithm = {LG_CLIQUE_ALGORITHM, LG_CLIQUE_WHERE,
                                                  LG_I_OWN_CLIQUE, clique_body};

lg_err_t lg_clique_partition(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                             lg_diag_t *d)
{
    return lg_i_order_run(&clique_algorithm, prog, geo, out, d);
}
