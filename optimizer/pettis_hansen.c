/* pettis_hansen.c - Pettis & Hansen procedure ordering: merge the chains joined by the heaviest
 * call edge first, putting the most strongly connected ends next to each other ("closest is
 * best"), then link the chains densest first.
 *
 * Definitions:
 *   candidate          an executed movable function (classify.h); only candidates are ordered,
 *                      and only edges between two candidates count
 *   undirected weight  w(u,v) = w(u->v) + w(v->u) for u != v (callgraph.h); self arcs are
 *                      ignored. An edge is a pair with w(u,v) >= LG_PH_MIN_EDGE_WEIGHT
 *   chain              candidates in link order, with a head and a tail; every candidate starts
 *                      as a chain of its own
 *   chain weight       between two chains: the sum of w(u,v) over u in one, v in the other
 *                      (the coalesced edge of the paper and of BOLT)
 *   chain size         the sum of its members' padded sizes, in bytes
 *   leader             a chain's lowest-ranked member (rank: input_order, then index)
 *   representative     the member that names a chain in the union-find forest and in the pair
 *                      table: of two merging chains, the one whose adjacency list is longer
 *                      (ties: lower rank) keeps naming the result
 *   density            a chain's hits divided by its bytes laid out (lg_clique_t.bytes)
 *
 * Steps:
 *   * Classify (classify.h); cold and excluded functions follow in input order.
 *   * Collect the edges between candidates; each becomes the chain weight of its two
 *     singleton chains in a pair table, and an entry in a max-heap ordered by chain weight
 *     descending, then by the rank of the lower-ranked representative, then of the other.
 *   * Pop the heaviest pair of chains C1, C2 whose entry is still current (both still name
 *     their chains and the weight is the pair's weight now: lazy deletion); C1 is the chain
 *     whose leader ranks lower.
 *     * If their sizes sum to more than LG_PH_MAX_CHAIN_BYTES, drop the pair (BOLT's cap).
 *     * Orient: among the four end pairs (tail1, head2), (tail1, tail2), (head1, head2),
 *       (head1, tail2) take the one with the largest ORIGINAL weight w(end1, end2), ties in
 *       that order (fewest reversals first), reverse C2 and/or C1 so that those two ends meet,
 *       and link C1 then C2.
 *     * Coalesce: every chain weight of the absorbed chain is added to the surviving one's
 *       (pair table), and each changed pair is pushed again.
 *   * Repeat until the heap is empty. Candidates without edges stay singleton chains.
 *   * Order the chains by density descending, ties by the rank of their first function.
 *
 * Implementation: union-find (path halving) maps a function to its chain's representative;
 * each representative owns a list of adjacency entries (neighbour functions, stale or
 * duplicated ones included), and a merge moves the shorter list onto the longer, so an entry
 * moves O(log E) times and the lists hold 2E entries in all. The chain weights live in a hash
 * table keyed by the two representatives. The heap is 4-ary and is rebuilt without its stale
 * entries whenever they outnumber the live pairs LG_PH_HEAP_SLACK to one, so it stays O(E).
 * Chains are linked lists whose nodes keep their two neighbours unordered, so reversing a
 * chain is swapping its head and tail: O(1).
 *
 * Cost: O(E log E) entry moves, each with at most one heap push: O(E log^2 E) time in the
 * worst case (about 2 s for 200,000 functions and 1,000,000 random arcs), plus O(V log V)
 * for the sorts; memory O(V + E).
 *
 * Reference: K. Pettis, R. C. Hansen, "Profile Guided Code Positioning", PLDI 1990,
 * doi:10.1145/93542.93550, section 3 (procedure positioning); llvm/llvm-project
 * bolt/lib/Passes/PettisAndHansen.cpp (orderFuncs, MaxClusterSize in
 * bolt/include/bolt/Passes/HFSort.h), without its quadratic search for the heaviest arc.
 */
#include "algorithms.h"

#include "mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Largest chain, in bytes of padded sizes, that a merge may produce: BOLT's MaxClusterSize,
 * half a 2 MiB huge page. */
#define LG_PH_MAX_CHAIN_BYTES (1024u * 1024u)

/* Lightest undirected weight, in calls, that makes an edge: an arc that was never taken is no
 * reason to place two functions together. */
#define LG_PH_MIN_EDGE_WEIGHT 1u

/* Children per heap node: a 4-ary heap halves the depth of a binary one and reads the
 * children of a node from one or two cache lines. */
#define LG_PH_HEAP_ARITY 4u

/* Stale heap entries tolerated per live pair before the heap is rebuilt without them. */
#define LG_PH_HEAP_SLACK 2u

/* Fibonacci hashing multiplier (2^64 / golden ratio) for the pair table. */
#define LG_PH_HASH_MULTIPLIER 0x9e3779b97f4a7c15ull

/* Bits of a pair-table key per function index, and the smallest table, in slots. */
#define LG_PH_KEY_HALF_BITS 32u
#define LG_PH_TABLE_MIN_SLOTS 2u

/* Where the diagnostics of this pass point, and how its oversized warning ends. */
#define LG_PH_WHERE "pettis-hansen pass"
#define LG_PH_OVERSIZED "the chain holding it is marked oversized"
#define LG_CHAINS_WHERE "chains pass"

typedef struct heap_entry {
    uint64_t weight; /* chain weight when pushed */
    uint64_t rank_a; /* rank key of one representative (its index: lg_rank_index) */
    uint64_t rank_b; /* rank key of the other, rank_a < rank_b */
} heap_entry_t;

/* Open addressing, linear probing, deletion by backward shift. A key is the two
 * representatives (lower index high), never 0 because the two differ. */
typedef struct pair_table {
    uint64_t *keys; /* 0: empty slot */
    uint64_t *vals; /* chain weight */
    size_t mask;    /* slots - 1 */
    unsigned shift; /* 64 - log2(slots) */
    size_t count;   /* pairs held */
} pair_table_t;

typedef struct adj_list {
    uint32_t *v; /* neighbour functions; NULL while the list is the CSR slice below */
    size_t n, cap;
} adj_list_t;

typedef struct work {
    lg_i_order_t *o;
    const lg_program_t *prog;
    /* The original undirected graph between candidates (CSR, neighbours ascending). */
    size_t *first;  /* per function: its first entry; nfns + 1 entries */
    uint32_t *nb;   /* neighbour */
    uint64_t *nb_w; /* w(function, neighbour) */
    size_t nedges;  /* undirected edges (each pair once) */
    /* Chains, indexed by representative (per function arrays). */
    uint32_t *parent; /* union-find */
    uint32_t *head, *tail, *leader;
    uint64_t *size; /* bytes of padded sizes, saturating */
    adj_list_t *adj;
    /* Chain links, per function: its two neighbours in the chain, unordered. */
    uint32_t (*link)[2];
    /* Coalescing. */
    pair_table_t pairs;
    heap_entry_t *heap;
    size_t nheap, heap_cap;
    uint32_t *mark;    /* per function: last merge that touched it as a neighbour */
    uint32_t *touched; /* representatives touched by the current merge */
    uint32_t merge_id;
} work_t;

/* ---- pair table ------------------------------------------------------------------------- */

static uint64_t pair_key(uint32_t x, uint32_t y)
{
    return x < y ? ((uint64_t)x << LG_PH_KEY_HALF_BITS) | y
                 : ((uint64_t)y << LG_PH_KEY_HALF_BITS) | x;
}

static size_t pair_home(const pair_table_t *t, uint64_t key)
{
    return (size_t)((key * LG_PH_HASH_MULTIPLIER) >> t->shift) & t->mask;
}

/* A table for up to `live` pairs at once, at most half full. */
static bool pair_table_init(pair_table_t *t, size_t live)
{
    size_t slots = LG_PH_TABLE_MIN_SLOTS;
    unsigned bits = 1;
    while (slots < live * 2) {
        if (slots > SIZE_MAX / 2)
            return false;
        slots *= 2;
        bits++;
    }
    t->keys = calloc(slots, sizeof *t->keys);
    t->vals = calloc(slots, sizeof *t->vals);
    t->mask = slots - 1;
    t->shift = 64u - bits;
    return t->keys != NULL && t->vals != NULL;
}

static void pair_table_free(pair_table_t *t)
{
    free(t->keys);
    free(t->vals);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t pair_slot(const pair_table_t *t, uint64_t key)
{
    size_t i = pair_home(t, key);
    while (t->keys[i] != 0 && t->keys[i] != key)
        i = (i + 1) & t->mask;
    return i;
}

/* The chain weight of (x, y); 0 when the pair is not in the table. */
static uint64_t pair_get(const pair_table_t *t, uint32_t x, uint32_t y)
{
    uint64_t key = pair_key(x, y);
    size_t i = pair_slot(t, key);
    return t->keys[i] == key ? t->vals[i] : 0;
}

/* Adds w to the pair (x, y), inserting it if needed. The table never holds more pairs than
 * there are edges, so an empty slot always exists. */
static void pair_add(pair_table_t *t, uint32_t x, uint32_t y, uint64_t w)
{
    uint64_t key = pair_key(x, y);
    size_t i = pair_slot(t, key);
    if (t->keys[i] != key) {
        t->keys[i] = key;
        t->vals[i] = 0;
        t->count++;
    }
    t->vals[i] = lg_sat_add(t->vals[i], w);
}

/* Removes (x, y) and returns its weight; 0 when absent. */
static uint64_t pair_remove(pair_table_t *t, uint32_t x, uint32_t y)
{
    uint64_t key = pair_key(x, y);
    size_t i = pair_slot(t, key);
    if (t->keys[i] != key)
        return 0;
    uint64_t w = t->vals[i];
    /* Backward shift: move up every later entry of the run whose probe path crosses slot i. */
    for (size_t j = (i + 1) & t->mask; t->keys[j] != 0; j = (j + 1) & t->mask) {
        size_t home = pair_home(t, t->keys[j]);
        if (((j - i) & t->mask) <= ((j - home) & t->mask)) {
            t->keys[i] = t->keys[j];
            t->vals[i] = t->vals[j];
            i = j;
        }
    }
    t->keys[i] = 0;
    t->count--;
    return w;
}

/* ---- heap: heavier first, then lower-ranked representatives ----------------------------- */

/* The entries carry the rank keys, so comparing them reads no function records. */
static bool heap_before(const heap_entry_t *x, const heap_entry_t *y)
{
    if (x->weight != y->weight)
        return x->weight > y->weight;
    if (x->rank_a != y->rank_a)
        return x->rank_a < y->rank_a;
    return x->rank_b < y->rank_b;
}

static lg_err_t heap_push(work_t *w, uint64_t weight, uint32_t x, uint32_t y)
{
    if (!lg_grow((void **)&w->heap, &w->heap_cap, w->nheap + 1, sizeof *w->heap))
        return lg_i_nomem(w->o, "the edge heap");
    uint64_t kx = lg_rank_key(w->prog, x), ky = lg_rank_key(w->prog, y);
    heap_entry_t e = {weight, kx < ky ? kx : ky, kx < ky ? ky : kx};
    size_t i = w->nheap++;
    while (i > 0) {
        size_t parent = (i - 1) / LG_PH_HEAP_ARITY;
        if (!heap_before(&e, &w->heap[parent]))
            break;
        w->heap[i] = w->heap[parent];
        i = parent;
    }
    w->heap[i] = e;
    return LG_OK;
}

/* Moves e down from slot i to its place among the n entries. */
static void heap_sift_down(work_t *w, size_t i, heap_entry_t e, size_t n)
{
    for (;;) {
        size_t first = LG_PH_HEAP_ARITY * i + 1;
        if (first >= n)
            break;
        size_t best = first, end = first + LG_PH_HEAP_ARITY < n ? first + LG_PH_HEAP_ARITY : n;
        for (size_t c = first + 1; c < end; c++)
            if (heap_before(&w->heap[c], &w->heap[best]))
                best = c;
        if (!heap_before(&w->heap[best], &e))
            break;
        w->heap[i] = w->heap[best];
        i = best;
    }
    w->heap[i] = e;
}

/* Orders the nheap entries of the heap array into a heap, bottom-up: O(n). */
static void heapify(work_t *w)
{
    size_t n = w->nheap;
    for (size_t i = n / LG_PH_HEAP_ARITY + 1; i-- > 0;)
        if (i < n)
            heap_sift_down(w, i, w->heap[i], n);
}

/* True when e still describes two chains and the weight between them now. */
static bool heap_entry_current(work_t *w, const heap_entry_t *e)
{
    uint32_t a = lg_rank_index(e->rank_a), b = lg_rank_index(e->rank_b);
    return w->parent[a] == a && w->parent[b] == b && pair_get(&w->pairs, a, b) == e->weight;
}

/* Drops the stale entries once they outnumber the live pairs LG_PH_HEAP_SLACK to one, and
 * rebuilds the heap from the rest: the heap stays O(E) and the pops touch less memory. Each
 * rebuild is linear and at least halves the heap, so it costs O(1) per push. */
static void heap_compact(work_t *w)
{
    if (w->nheap <= LG_PH_HEAP_SLACK * (w->pairs.count + 1))
        return;
    size_t n = 0;
    for (size_t i = 0; i < w->nheap; i++)
        if (heap_entry_current(w, &w->heap[i]))
            w->heap[n++] = w->heap[i];
    w->nheap = n;
    heapify(w);
}

static bool heap_pop(work_t *w, heap_entry_t *top)
{
    if (w->nheap == 0)
        return false;
    *top = w->heap[0];
    heap_entry_t last = w->heap[--w->nheap];
    if (w->nheap > 0)
        heap_sift_down(w, 0, last, w->nheap);
    return true;
}

/* ---- the graph -------------------------------------------------------------------------- */

/* Builds the CSR of edges between candidates from the call graph. */
static lg_err_t build_graph(work_t *w)
{
    const lg_i_order_t *o = w->o;
    size_t nfns = w->prog->nfns;
    size_t deg = lg_cg_max_degree_bound(o->cg);
    lg_cg_neighbour_t *buf = malloc((deg ? deg : 1) * sizeof *buf);
    size_t cap = lg_cg_arc_count(o->cg) * 2; /* each arc gives at most two entries */
    w->first = calloc(nfns + 1, sizeof *w->first);
    w->nb = malloc((cap ? cap : 1) * sizeof *w->nb);
    w->nb_w = malloc((cap ? cap : 1) * sizeof *w->nb_w);
    if (buf == NULL || w->first == NULL || w->nb == NULL || w->nb_w == NULL) {
        free(buf);
        return lg_i_nomem(w->o, "the call edges");
    }
    size_t k = 0;
    for (uint32_t u = 0; u < nfns; u++) {
        w->first[u] = k;
        if (o->cls.cls[u] != LG_CLASS_CANDIDATE)
            continue;
        size_t n = lg_cg_neighbours(o->cg, u, buf);
        for (size_t i = 0; i < n; i++) {
            uint32_t v = buf[i].node;
            if (o->cls.cls[v] != LG_CLASS_CANDIDATE || buf[i].weight < LG_PH_MIN_EDGE_WEIGHT)
                continue;
            w->nb[k] = v;
            w->nb_w[k] = buf[i].weight;
            k++;
            w->nedges += u < v;
        }
    }
    w->first[nfns] = k;
    free(buf);
    return LG_OK;
}

/* w(x, y) in the original graph (binary search in x's ascending neighbours). */
static uint64_t original_weight(const work_t *w, uint32_t x, uint32_t y)
{
    size_t lo = w->first[x], hi = w->first[x + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->nb[mid] == y)
            return w->nb_w[mid];
        if (w->nb[mid] < y)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* ---- chains ----------------------------------------------------------------------------- */

static uint32_t find(work_t *w, uint32_t x)
{
    while (w->parent[x] != x) {
        w->parent[x] = w->parent[w->parent[x]];
        x = w->parent[x];
    }
    return x;
}

/* Number of adjacency entries of representative r. */
static size_t adj_len(const work_t *w, uint32_t r)
{
    return w->adj[r].v != NULL ? w->adj[r].n : w->first[r + 1] - w->first[r];
}

static const uint32_t *adj_items(const work_t *w, uint32_t r)
{
    return w->adj[r].v != NULL ? w->adj[r].v : w->nb + w->first[r];
}

/* Appends the entries of `from` to those of `to`, then frees those of `from`. */
static lg_err_t adj_append(work_t *w, uint32_t to, uint32_t from)
{
    adj_list_t *t = &w->adj[to];
    size_t nt = adj_len(w, to), nf = adj_len(w, from);
    if (t->v == NULL) { /* still the CSR slice: copy it out first */
        size_t cap = 0;
        uint32_t *v = NULL;
        if (!lg_grow((void **)&v, &cap, nt + nf, sizeof *v))
            return lg_i_nomem(w->o, "the chain adjacency");
        if (nt > 0)
            memcpy(v, w->nb + w->first[to], nt * sizeof *v);
        t->v = v;
        t->n = nt;
        t->cap = cap;
    } else if (!lg_grow((void **)&t->v, &t->cap, nt + nf, sizeof *t->v)) {
        return lg_i_nomem(w->o, "the chain adjacency");
    }
    if (nf > 0)
        memcpy(t->v + t->n, adj_items(w, from), nf * sizeof *t->v);
    t->n += nf;
    free(w->adj[from].v);
    /* from no longer names a chain: its list is never read again. */
    w->adj[from] = (adj_list_t){NULL, 0, 0};
    return LG_OK;
}

/* Puts y in a free link slot of x (an end of its chain, so one slot is free). */
static void link_one(work_t *w, uint32_t x, uint32_t y)
{
    if (w->link[x][0] == LG_I_NONE)
        w->link[x][0] = y;
    else
        w->link[x][1] = y;
}

/* Orients chains r1 (lower-ranked leader) and r2 "closest is best" and links r1 then r2;
 * *first and *last receive the ends of the result. */
static void join_chains(work_t *w, uint32_t r1, uint32_t r2, uint32_t *first, uint32_t *last)
{
    uint32_t h1 = w->head[r1], t1 = w->tail[r1], h2 = w->head[r2], t2 = w->tail[r2];
    /* The junction candidates in preference order for equal weights: no reversal, reverse C2,
     * reverse C1, reverse both. */
    const uint32_t end1[4] = {t1, t1, h1, h1}, end2[4] = {h2, t2, h2, t2};
    size_t best = 0;
    uint64_t best_w = original_weight(w, t1, h2);
    for (size_t k = 1; k < 4; k++) {
        uint64_t wk = original_weight(w, end1[k], end2[k]);
        if (wk > best_w) {
            best_w = wk;
            best = k;
        }
    }
    uint32_t j1 = end1[best], j2 = end2[best];
    link_one(w, j1, j2);
    link_one(w, j2, j1);
    *first = j1 == t1 ? h1 : t1; /* C1 is read from its other end to j1 */
    *last = j2 == h2 ? t2 : h2;
}

/* Merges the chains named by r1 and r2 (weight between them already removed from the table). */
static lg_err_t merge(work_t *w, uint32_t r1, uint32_t r2)
{
    uint32_t first, last;
    join_chains(w, r1, r2, &first, &last);

    /* The representative with the longer adjacency list survives (ties: lower rank). */
    size_t n1 = adj_len(w, r1), n2 = adj_len(w, r2);
    bool keep1 = n1 > n2 || (n1 == n2 && lg_rank_key(w->prog, r1) < lg_rank_key(w->prog, r2));
    uint32_t a = keep1 ? r1 : r2, b = keep1 ? r2 : r1;

    w->parent[b] = a;
    w->head[a] = first;
    w->tail[a] = last;
    w->size[a] = lg_sat_add(w->size[a], w->size[b]);
    if (lg_rank_key(w->prog, w->leader[b]) < lg_rank_key(w->prog, w->leader[a]))
        w->leader[a] = w->leader[b];

    /* Move every pair (b, c) to (a, c); remember each c once to push its new weight. */
    w->merge_id++;
    size_t ntouched = 0;
    size_t nb = adj_len(w, b);
    const uint32_t *items = adj_items(w, b);
    for (size_t i = 0; i < nb; i++) {
        uint32_t c = find(w, items[i]);
        if (c == a)
            continue; /* inside the merged chain */
        uint64_t wc = pair_remove(&w->pairs, b, c);
        if (wc == 0)
            continue; /* a duplicate entry: the pair has moved already */
        pair_add(&w->pairs, a, c, wc);
        if (w->mark[c] != w->merge_id) {
            w->mark[c] = w->merge_id;
            w->touched[ntouched++] = c;
        }
    }
    LG_CHECK(adj_append(w, a, b));
    for (size_t i = 0; i < ntouched; i++)
        LG_CHECK(heap_push(w, pair_get(&w->pairs, a, w->touched[i]), a, w->touched[i]));
    return LG_OK;
}

static lg_err_t merge_all(work_t *w)
{
    const lg_program_t *p = w->prog;
    w->heap = malloc((w->nedges ? w->nedges : 1) * sizeof *w->heap);
    if (w->heap == NULL)
        return lg_i_nomem(w->o, "the edge heap");
    w->heap_cap = w->nedges ? w->nedges : 1;
    for (uint32_t u = 0; u < p->nfns; u++) {
        for (size_t k = w->first[u]; k < w->first[u + 1]; k++) {
            uint32_t v = w->nb[k];
            if (u < v) {
                pair_add(&w->pairs, u, v, w->nb_w[k]);
                uint64_t ku = lg_rank_key(p, u), kv = lg_rank_key(p, v);
                w->heap[w->nheap++] =
                    (heap_entry_t){w->nb_w[k], ku < kv ? ku : kv, ku < kv ? kv : ku};
            }
        }
    }
    heapify(w);
    heap_entry_t e;
    while (heap_pop(w, &e)) {
        if (!heap_entry_current(w, &e))
            continue; /* stale: a chain was absorbed or the weight grew since the push */
        uint32_t a = lg_rank_index(e.rank_a), b = lg_rank_index(e.rank_b);
        pair_remove(&w->pairs, a, b);
        if (lg_sat_add(w->size[a], w->size[b]) > LG_PH_MAX_CHAIN_BYTES)
            continue; /* sizes only grow: these two chains will never be merged */
        bool a_first = lg_rank_key(p, w->leader[a]) < lg_rank_key(p, w->leader[b]);
        LG_CHECK(merge(w, a_first ? a : b, a_first ? b : a));
        heap_compact(w);
    }
    return LG_OK;
}

/* Emits every chain as a clique, then orders them by density. */
static lg_err_t emit_chains(work_t *w)
{
    lg_i_order_t *o = w->o;
    uint32_t *buf = malloc((o->cls.ncandidates ? o->cls.ncandidates : 1) * sizeof *buf);
    if (buf == NULL)
        return lg_i_nomem(o, "a chain");
    lg_err_t err = LG_OK;
    for (size_t k = 0; k < o->cls.ncandidates && err == LG_OK; k++) {
        uint32_t r = o->cls.candidates[k];
        if (w->parent[r] != r)
            continue;
        size_t n = 0;
        uint32_t prev = LG_I_NONE;
        for (uint32_t x = w->head[r]; x != LG_I_NONE && n < o->cls.ncandidates;) {
            buf[n++] = x;
            uint32_t next = w->link[x][0] != prev ? w->link[x][0] : w->link[x][1];
            prev = x;
            x = next;
        }
        err = lg_i_add_clique(o, buf, n);
    }
    free(buf);
    if (err != LG_OK)
        return err;

    uint64_t *num = malloc((o->ncliques ? o->ncliques : 1) * sizeof *num);
    uint64_t *den = malloc((o->ncliques ? o->ncliques : 1) * sizeof *den);
    if (num == NULL || den == NULL)
        err = lg_i_nomem(o, "ordering the chains");
    for (size_t c = 0; err == LG_OK && c < o->ncliques; c++) {
        num[c] = o->cliques[c].hits;
        den[c] = o->cliques[c].bytes; /* > 0: candidates have bytes */
    }
    if (err == LG_OK)
        err = lg_i_sort_by_density(o, num, den);
    free(num);
    free(den);
    return err;
}

static lg_err_t work_alloc(work_t *w)
{
    size_t n = w->prog->nfns ? w->prog->nfns : 1; /* calloc(0) may return NULL */
    w->parent = malloc(n * sizeof *w->parent);
    w->head = malloc(n * sizeof *w->head);
    w->tail = malloc(n * sizeof *w->tail);
    w->leader = malloc(n * sizeof *w->leader);
    w->size = calloc(n, sizeof *w->size);
    w->adj = calloc(n, sizeof *w->adj);
    w->link = malloc(n * sizeof *w->link);
    w->mark = calloc(n, sizeof *w->mark);
    w->touched = malloc(n * sizeof *w->touched);
    if (!w->parent || !w->head || !w->tail || !w->leader || !w->size || !w->adj || !w->link ||
        !w->mark || !w->touched || !pair_table_init(&w->pairs, w->nedges))
        return lg_i_nomem(w->o, "the chains");
    for (uint32_t i = 0; i < w->prog->nfns; i++) {
        w->parent[i] = w->head[i] = w->tail[i] = w->leader[i] = i;
        w->size[i] = w->o->cls.padded[i];
        w->link[i][0] = w->link[i][1] = LG_I_NONE;
    }
    return LG_OK;
}

static void work_free(work_t *w)
{
    free(w->first);
    free(w->nb);
    free(w->nb_w);
    free(w->parent);
    free(w->head);
    free(w->tail);
    free(w->leader);
    free(w->size);
    if (w->adj != NULL)
        for (size_t i = 0; i < w->prog->nfns; i++)
            free(w->adj[i].v);
    free(w->adj);
    free(w->link);
    pair_table_free(&w->pairs);
    free(w->heap);
    free(w->mark);
    free(w->touched);
}

static lg_err_t pettis_hansen_body(lg_i_order_t *o)
{
    work_t w;
    memset(&w, 0, sizeof w);
    w.o = o;
    w.prog = o->prog;
    lg_err_t err = build_graph(&w);
    if (err == LG_OK)
        err = work_alloc(&w);
    if (err == LG_OK)
        err = merge_all(&w);
    if (err == LG_OK)
        err = emit_chains(&w);
    work_free(&w);
    return err;
}

static const lg_i_algorithm_t pettis_hansen_algorithm = {LG_ALGORITHM_PETTIS_HANSEN, LG_PH_WHERE,
                                                         LG_PH_OVERSIZED, pettis_hansen_body};

lg_err_t lg_order_pettis_hansen(const lg_program_t *prog, const lg_geometry_t *geo,
                                lg_layout_t *out, lg_diag_t *d)
{
    return lg_i_order_run(&pettis_hansen_algorithm, prog, geo, out, d);
}

/* ---- chains: the same order, reviewed in cache-sized cliques ----------------------------- */

/* Cuts the order of the chains (densest first) into consecutive cliques the size of the cache
 * (lg_i_pack): the link order stays that of pettis-hansen. */
static lg_err_t cut_to_cache(lg_i_order_t *o)
{
    size_t n = 0;
    for (size_t c = 0; c < o->ncliques; c++)
        n += o->cliques[c].nfns;
    uint32_t *seq = malloc((n ? n : 1) * sizeof *seq);
    if (seq == NULL)
        return lg_i_nomem(o, "the order of the chains");
    size_t k = 0;
    for (size_t c = 0; c < o->ncliques; c++) {
        memcpy(seq + k, o->cliques[c].fns, o->cliques[c].nfns * sizeof *seq);
        k += o->cliques[c].nfns;
        free(o->cliques[c].fns);
    }
    o->ncliques = 0;
    lg_err_t err = lg_i_pack(o, seq, n);
    free(seq);
    return err;
}

static lg_err_t chains_body(lg_i_order_t *o)
{
    LG_CHECK(pettis_hansen_body(o));
    return cut_to_cache(o);
}

static const lg_i_algorithm_t chains_algorithm = {LG_ALGORITHM_CHAINS, LG_CHAINS_WHERE,
                                                  LG_I_OWN_CLIQUE, chains_body};

lg_err_t lg_order_chains(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *out,
                         lg_diag_t *d)
{
    return lg_i_order_run(&chains_algorithm, prog, geo, out, d);
}
