/* placement.c - cache-aware placement of the cliques ("cache line coloring" on a linear layout).
 *
 * The clique pass (clique.c) decides which functions sit together; this pass decides where, in
 * cache terms, each group lands. On a direct-mapped or low-associativity cache two hot pieces of
 * code that map to the same sets evict each other however well each is packed
 * (docs/benchmarks.md: shifting one clique order by a multiple of 1 KiB changes the misses
 * four-fold). The ordered code starts at an address aligned to the way size (the pass sets
 * layout->section_align and the linker-script writer emits it), so a section offset fixes the
 * cache set of every line. The pass walks the cliques hottest first, keeps a map of how much
 * heat every set already holds, and puts each clique at the offset where its hot lines meet the
 * least heat, opening a gap before it when that pays. Never-executed functions fill the gaps, so
 * the code grows by the padding only when no cold function fits.
 *
 * Definitions:
 *   way size        Wsz = cache_size / ways: the bytes after which the sets repeat
 *   set of a byte   (offset mod Wsz) / line_size, for a section offset (offset 0 is aligned to
 *                   Wsz); N = Wsz / line_size sets
 *   heat            of a function: its counter1_self when the program has counter data (some
 *                   clique member has counter1_self > 0), else its hits; of a clique: the sum of
 *                   its members' heats. A line's heat is the heat of the function bytes in it,
 *                   spread evenly over each function's bytes (heat x bytes in the line / size),
 *                   summed when two functions share the line. A function larger than a way
 *                   that has hotspots (program.h: per-position costs) spreads its heat over
 *                   the lines of its hotspots instead, in proportion to their cost: the lines it
 *                   never runs take no heat, so other code can use their sets. Smaller
 *                   functions keep the even spread: their hot lines fill few sets anyway, and a
 *                   workload other than the profiled one may run their other lines
 *   occupancy       per set, how many lines of heat > 0 are placed there and their summed heat
 *   conflict        between a line of heat a and a line of heat b in one set: min(a, b). Each
 *                   time the cooler line runs it may evict the hotter one and be evicted by it
 *                   again, so the cooler one bounds the misses they cause each other; a line
 *                   that runs a million times next to one that runs ten times costs about ten
 *                   misses, not a million. A cost that grows with both heats (their product)
 *                   would make every clique flee the hottest lines and open gaps that buy
 *                   nothing. A set holding fewer than `ways` lines costs nothing: a new line
 *                   still finds a way of its own. LRU's step: once a set is full, lines that
 *                   take turns in it evict each other whatever their heats
 *   conflict cost   of a clique at an offset: over the sets its lines fold onto (k lines of
 *                   summed heat h), against the n placed lines of summed heat H there when
 *                   n >= ways: min(h x n, H x k), which is the sum of min(a, b) over the pairs
 *                   when the lines of each side have equal heats, and an upper bound otherwise
 *   temporal cost   used instead of the conflict cost when the program has proximity pairs
 *                   (a profile made from a timeline; affinity.h): for each member m, the
 *                   affinity of m to the sets its lines take (each set once) that already hold
 *                   `ways` lines, divided by the number of those sets; summed over the members.
 *                   For a member that shares all its sets with a placed function g this is
 *                   w(m, g), the proximity weight that estimates their conflict misses
 *                   (Gloy & Smith); code that never runs near the placed code costs nothing
 *                   wherever it lands, however hot both are
 *   natural offset  where the linker puts the clique with nothing inserted: its members laid
 *                   out with lg_place_after from the end of what precedes it; a phased function
 *                   at the first offset lead bytes past a multiple of its alignment
 *                   (lg_start_after), where its lines are counted from
 *   gap             bytes inserted before a clique to move it: g = start - end of what precedes
 *   candidates      the natural offset (gap 0) and every start S >= end that is a multiple of
 *                   G with S - end < Wsz, where G = max(line size, the clique's largest
 *                   alignment, Wsz / LG_PLACE_MAX_CANDIDATES): one per set the clique's first
 *                   line can take (every set, unless the cache has more than
 *                   LG_PLACE_MAX_CANDIDATES); from such an S the members sit at S + their
 *                   offsets in the clique laid out from a fresh start
 *   filler          never-executed movable functions (from layout->cold) put in a gap, as one
 *                   clique flagged LG_CLIQUE_FILLER just before the clique that needed the gap
 *   padding         what remains of a gap after the filler: the next clique's pad_before
 *
 * Steps:
 *   * Check the layout (every function at most once, indexes in range, not placed already) and
 *     the geometry. Skip the pass (layout unchanged, a note) when there is one set or Wsz is not
 *     a power of two (no section alignment can fix the sets); when the cliques laid out back to
 *     back fit in Wsz bytes, only set section_align: contiguous code shorter than a way cannot
 *     conflict with itself.
 *   * Order the cliques by heat, descending, then by their position in the layout (with hit
 *     counts only, the layout's order is kept: the clique pass already orders by hits).
 *   * For each clique in that order, with `end` the end of the code placed so far:
 *     * its conflict cost at the natural offset, c0; if c0 == 0 (or its heat is 0) it goes
 *       there;
 *     * else every other candidate S costs its conflict cost plus the gap penalty
 *       c0 x LG_PLACE_GAP_PENALTY_PER_WAY x (S - end) / Wsz: a gap must pay for itself. The
 *       cheapest wins; ties go to the smaller gap, so with nothing to gain the natural offset
 *       wins. Each cost is computed on the clique's heat folded onto the sets (lines N apart
 *       add up), so one candidate costs at most N terms;
 *     * a chosen gap is filled greedily from `end`: repeatedly the largest unused cold movable
 *       function (ties: input order) that still ends at or before S when placed with
 *       lg_place_after; whatever remains is padding (none when the first member's own alignment
 *       reaches S). A gap whose padding would take the total past LG_PLACE_MAX_PAD_PERCENT of the
 *       hot cliques' bytes is not opened (the clique goes to its natural offset);
 *     * its lines are added to the occupancy at the offsets chosen.
 *   * Rebuild cold without the filler functions (input order kept), report the padding and the
 *     filler in one note.
 *
 * Bounds: a clique evaluates at most Wsz / G + 1 candidates of at most N terms each; the whole
 * pass at most LG_PLACE_MAX_COST_TERMS terms, past which cliques go to their natural offsets
 * (a note says how many). Filling scans at most LG_PLACE_FILL_SCAN_MAX cold functions per pick.
 *
 * What the model leaves out: without a timeline, which cliques actually run at the same time
 * (all placed heat is assumed to compete); code lorgen does not move (libraries, startup code,
 * excluded functions: their sets are unknown); and, without per-position costs, where inside a
 * function the heat is (spread evenly over its bytes).
 *
 * Every choice is made by a total order (strict improvement, smallest gap first; cliques by heat
 * then position; filler by size then rank), so the output depends only on the inputs.
 *
 * Reference: A. H. Hashemi, D. R. Kaeli, B. Calder, "Efficient Procedure Mapping using Cache Line
 * Coloring", PLDI 1997, doi:10.1145/258916.258931 (avoid the cache lines of already-placed hot
 * code; fill the gaps with unpopular procedures); N. Gloy, M. D. Smith, "Procedure Placement
 * Using Temporal-Ordering Information", ACM TOPLAS 21(5), 1999, doi:10.1145/330249.330254
 * (choose each procedure's cache-relative offset by the weighted overlap of cache lines).
 */
#include "placement.h"

#include "affinity.h"
#include "bigalloc.h"
#include "mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Location the diagnostics of this pass carry. */
#define LG_PLACE_WHERE "cache placement"

/* Fraction of a clique's conflict cost at its natural offset that a gap of a whole way must save
 * (proportionally less for a smaller gap): a gap costs code size, so it must buy a real
 * improvement, and with equal costs no gap is opened. */
#define LG_PLACE_GAP_PENALTY_PER_WAY (1.0 / 32.0)

/* Most offsets a clique is tried at besides its natural one: a cache with more sets is tried
 * every Wsz / LG_PLACE_MAX_CANDIDATES bytes, which bounds the work per clique by this times the
 * sets. */
#define LG_PLACE_MAX_CANDIDATES 512u /* offsets */

/* Most cold functions examined for one filler pick (past the ones too large by size): bounds
 * the search when alignment keeps many candidates from fitting. */
#define LG_PLACE_FILL_SCAN_MAX 4096u /* functions */

/* Largest span of the laid-out code the pass accepts, so no offset sum can wrap. */
#define LG_PLACE_MAX_SPAN (UINT64_C(1) << 62) /* bytes */

/* Percent as a divisor. */
#define LG_PERCENT 100u

/* Candidate offsets whose conflict costs one pass over a fold computes side by side: each
 * cost is still summed in the fold's order (so it comes out bit for bit as alone), but the
 * independent sums overlap instead of each waiting on its previous addition, and when the
 * offsets sit on consecutive sets (the usual case: candidates one line apart) each fold entry
 * reads the occupancy of all of them in one contiguous run, which the compiler turns into
 * vector loads and arithmetic. */
#define LG_PLACE_COST_LANES 16u

/* The cost loop over consecutive sets is also compiled for AVX2, four doubles per vector where
 * SSE2 has two, and the loader picks the version the processor runs (GCC's target_clones, on
 * x86-64). The same operations in the same order on each lane, and no fused multiply-add (ISO C
 * mode does not contract, and AVX2 alone does not have it): the same doubles either way. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
/* (Not under ThreadSanitizer: the clones' resolver runs while the program is being loaded,
 * before TSan's runtime is set up, and a TSan build of lorgen crashed there at startup.) */
#define LG_PLACE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LG_PLACE_VECTOR_CLONES
#endif

/* Per set: the lines placed there (see "occupancy"). */
typedef struct occupancy {
    uint64_t ways;
    uint32_t nsets;
    double *heat;    /* per set: summed heat of the lines placed */
    uint64_t *lines; /* per set: lines of heat > 0 placed */
    /* Per set, twice over and LG_PLACE_COST_LANES sets more (entry s mirrors s mod nsets, so
     * a shifted set, and a run of lanes after it, needs no wrap): lines and heat once the set
     * holds `ways` lines, 0 before, when it costs nothing (min(h x 0, 0 x k) adds 0 to a cost).
     * full_len entries each. */
    double *full_lines, *full_heat;
    size_t full_len;
} occupancy_t;

/* A clique's heat folded onto the sets, relative to the set of its first line. */
typedef struct fold {
    double *heat;   /* per relative set; zero outside the sets listed */
    double *lines;  /* per relative set: lines folded there */
    uint32_t *sets; /* relative sets with heat, in first-touch order */
    uint32_t n;
    /* heat and lines of sets[i] at [i], for the cost loop (fold_pack) */
    double *packed_heat, *packed_lines;
} fold_t;

/* Receives `copies` lines of heat `heat_each` each, in set `set`. */
typedef void (*set_sink_fn)(void *ctx, uint32_t set, uint64_t copies, double heat_each);

/* Turns byte ranges into lines and lines into sets, merging the line two functions share. */
typedef struct line_walk {
    uint64_t line_size; /* bytes */
    uint32_t nsets;
    set_sink_fn sink;
    void *ctx;
    bool pending; /* a partial line waits for the next function, which may share it */
    uint64_t line;
    double heat;
} line_walk_t;

/* A cold movable function available as filler, with what a pick checks, so that scanning the
 * pool reads the pool alone (the 1M-function benchmark scans about 15M entries). */
typedef struct pool_entry {
    uint64_t size;  /* bytes it takes laid out: its span (lg_fn_span) */
    uint64_t align; /* bytes, as in lg_fn_t */
    uint64_t rank;  /* input_order in the high half, function index in the low half */
    uint32_t fn;
} pool_entry_t;

typedef struct pool {
    pool_entry_t *e; /* size descending, then rank */
    size_t n;
    bool *taken; /* per entry: picked by the gap being planned */
    /* Per entry and one past the end: the first entry at or after it still in the pool (itself
     * while it is), path-compressed. Committed filler leaves the pool by pointing past itself:
     * removing it from the array instead moved the whole pool once per filled gap, about 2.5 s
     * of CPU on the 1M-function benchmark (docs/benchmarks.md, "Optimizer scale"). */
    size_t *live;
} pool_t;

/* What the pass reads of a clique member, copied once from the function table, whose records
 * (96 bytes, spread over the whole program) it would otherwise read a dozen times each, a cache
 * miss every time on a large program; the members of a clique sit side by side, in clique
 * order. */
typedef struct member {
    uint64_t size;  /* bytes of code */
    uint64_t align; /* bytes, as in lg_fn_t */
    uint64_t lead;  /* its phase in the line, as in lg_fn_t (lg_start_after) */
    uint64_t hits;
    uint64_t heat; /* see "heat" */
} member_t;

typedef struct place_key {
    uint64_t heat;
    size_t index; /* position in the layout */
} place_key_t;

typedef struct work {
    const lg_program_t *prog;
    lg_diag_t *d;
    uint64_t line;  /* bytes */
    uint64_t way;   /* Wsz, bytes */
    uint32_t nsets; /* Wsz / line */
    bool counters;  /* heat is counter1_self, not hits */
    /* The members of the layout's clique c (at cliques + c) at member + first_member[c]. */
    const lg_clique_t *cliques;
    member_t *member;
    size_t *first_member;
    /* Per function: its hotspots are prog->hotspots[hs_first[f]..hs_first[f + 1]), and their
     * summed cost hs_total[f]; both NULL when the program has no hotspots. */
    size_t *hs_first;
    double *hs_total;
    /* With proximity pairs (a timeline): the affinity map, and per member of the clique being
     * placed its affinity to every set (member k at aff_sets[k * nsets]); else NULL. */
    lg_affinity_t *aff;
    double *aff_sets;
    occupancy_t occ;
    fold_t fold_nat, fold_fresh;
    uint64_t *pos;       /* member offsets at the offset chosen / natural offset */
    uint64_t *pos_fresh; /* member offsets laid out from a fresh start */
    pool_t pool;
    uint32_t *picks; /* pool entries picked for the gap being planned */
    size_t npicks, picks_cap;
    bool *used; /* per function: taken as filler */
    lg_clique_t *out;
    size_t nout;
    uint64_t terms;      /* conflict-cost terms evaluated */
    uint64_t pad_total;  /* bytes */
    uint64_t pad_budget; /* bytes */
    uint64_t filler_bytes;
    size_t over_terms;  /* cliques placed at their natural offset because of the term bound */
    size_t over_budget; /* gaps not opened because of the padding bound */
} work_t;

/* ---- small helpers ---------------------------------------------------------------------- */

static lg_err_t out_of_memory(lg_diag_t *d, const char *what)
{
    return lg_diag_fail(d, LG_ENOMEM, LG_PLACE_WHERE, "out of memory for %s", what);
}

static uint64_t align_up(uint64_t offset, uint64_t align)
{
    uint64_t a = align > 1 ? align : 1;
    return (offset + a - 1) / a * a;
}

/* An alignment as it acts: 0 and 1 both mean none. */
static uint64_t unit_align(uint64_t align)
{
    return align > 1 ? align : 1;
}

/* The members of c, a clique of the layout being placed. */
static const member_t *members_of(const work_t *w, const lg_clique_t *c)
{
    return &w->member[w->first_member[c - w->cliques]];
}

/* The heat of c: its members' heats, summed. */
static uint64_t clique_heat(const work_t *w, const lg_clique_t *c)
{
    const member_t *m = members_of(w, c);
    uint64_t heat = 0;
    for (size_t k = 0; k < c->nfns; k++)
        heat = lg_sat_add(heat, m[k].heat);
    return heat;
}

static bool is_pow2_u64(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* Offsets of the members' code laid out from `start` (a phased member's code at the first offset
 * lead bytes past a multiple of its alignment); returns where the last one ends. */
static uint64_t lay_out(const work_t *w, const lg_clique_t *c, uint64_t start, uint64_t *pos)
{
    const member_t *m = members_of(w, c);
    uint64_t end = start;
    for (size_t k = 0; k < c->nfns; k++) {
        pos[k] = lg_start_after(end, m[k].align, m[k].lead);
        end = pos[k] + m[k].size;
    }
    return end;
}

static uint64_t clique_align(const work_t *w, const lg_clique_t *c)
{
    const member_t *m = members_of(w, c);
    uint64_t a = 1;
    for (size_t k = 0; k < c->nfns; k++)
        if (m[k].align > a)
            a = m[k].align;
    return a;
}

/* ---- lines to sets ---------------------------------------------------------------------- */

/* `count` consecutive lines from `line`, each of heat h: set s gets every line congruent to it. */
static void walk_lines(line_walk_t *lw, uint64_t line, uint64_t count, double h)
{
    uint64_t q = count / lw->nsets, r = count % lw->nsets;
    uint64_t m = count < lw->nsets ? count : lw->nsets;
    uint32_t s = (uint32_t)(line % lw->nsets);
    for (uint64_t i = 0; i < m; i++) {
        lw->sink(lw->ctx, s, q + (i < r), h);
        s = s + 1 == lw->nsets ? 0 : s + 1;
    }
}

static void walk_flush(line_walk_t *lw)
{
    if (lw->pending)
        walk_lines(lw, lw->line, 1, lw->heat);
    lw->pending = false;
}

/* A line only partly covered by one function: it may share it with the next one. */
static void walk_partial(line_walk_t *lw, uint64_t line, double h)
{
    if (lw->pending && lw->line == line) {
        lw->heat += h;
        return;
    }
    walk_flush(lw);
    lw->pending = true;
    lw->line = line;
    lw->heat = h;
}

/* size bytes of heat `heat` at offset pos (functions must come in increasing offsets). */
static void walk_bytes(line_walk_t *lw, uint64_t pos, uint64_t size, double heat)
{
    if (size == 0 || heat <= 0)
        return;
    uint64_t L = lw->line_size;
    uint64_t first = pos / L, last = (pos + size - 1) / L;
    if (first == last) {
        walk_partial(lw, first, heat);
        return;
    }
    double per_byte = heat / (double)size;
    walk_partial(lw, first, per_byte * (double)((first + 1) * L - pos));
    if (last - first > 1) {
        walk_flush(lw);
        walk_lines(lw, first + 1, last - first - 1, per_byte * (double)L);
    }
    walk_partial(lw, last, per_byte * (double)(pos + size - last * L));
}

/* A function with hotspots at offset pos: its heat goes to the lines its hotspots fall in, in
 * proportion to their cost (the lines it never executes get none). */
static void walk_hotspots(const work_t *w, line_walk_t *lw, uint32_t f, uint64_t pos, double heat)
{
    const lg_hotspot_t *hs = w->prog->hotspots;
    double per_cost = heat / w->hs_total[f];
    for (size_t i = w->hs_first[f]; i < w->hs_first[f + 1]; i++)
        walk_partial(lw, (pos + hs[i].offset) / lw->line_size, per_cost * (double)hs[i].cost);
}

/* The members of c at offsets pos (relative to a line-aligned base), into a sink. */
static void walk_clique(const work_t *w, const lg_clique_t *c, const uint64_t *pos, uint64_t base,
                        set_sink_fn sink, void *ctx)
{
    line_walk_t lw = {w->line, w->nsets, sink, ctx, false, 0, 0.0};
    const member_t *m = members_of(w, c);
    for (size_t k = 0; k < c->nfns; k++) {
        uint32_t f = c->fns[k];
        double heat = (double)m[k].heat;
        if (w->hs_total != NULL && w->hs_total[f] > 0 && heat > 0 && m[k].size > w->way)
            walk_hotspots(w, &lw, f, pos[k] - base, heat);
        else
            walk_bytes(&lw, pos[k] - base, m[k].size, heat);
    }
    walk_flush(&lw);
}

/* ---- the fold and the occupancy --------------------------------------------------------- */

static void fold_sink(void *ctx, uint32_t set, uint64_t copies, double h)
{
    fold_t *f = ctx;
    if (h * (double)copies <= 0)
        return; /* keeps "heat 0" meaning "not listed" */
    if (f->heat[set] == 0)
        f->sets[f->n++] = set;
    f->heat[set] += h * (double)copies;
    f->lines[set] += (double)copies;
}

static void fold_clear(fold_t *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        f->heat[f->sets[i]] = 0;
        f->lines[f->sets[i]] = 0;
    }
    f->n = 0;
}

/* Lays the fold's heat and lines out in the order of its sets, for the cost loops. */
static void fold_pack(fold_t *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        f->packed_heat[i] = f->heat[f->sets[i]];
        f->packed_lines[i] = f->lines[f->sets[i]];
    }
}

/* The conflict cost of one line pair class: `lines` placed lines of summed heat `heat` in a
 * set, against k folded lines of summed heat h (see "conflict cost"). */
static inline double conflict_term(double h, double k, double lines, double heat)
{
    double ours = h * lines, theirs = heat * k;
    return ours < theirs ? ours : theirs;
}

/* Conflict cost of the packed fold with its relative set 0 at set base (< nsets). */
static double fold_cost(const work_t *w, const fold_t *f, uint32_t base)
{
    double sum = 0;
    const double *lines = w->occ.full_lines + base, *heat = w->occ.full_heat + base;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t set = f->sets[i];
        sum += conflict_term(f->packed_heat[i], f->packed_lines[i], lines[set], heat[set]);
    }
    return sum;
}

/* The same with relative set 0 at the LG_PLACE_COST_LANES consecutive sets base + j (base <
 * nsets), into cost[j]: each fold entry reads one contiguous run of the occupancy, and two
 * entries are added per pass, so each sum is loaded and stored once per two terms. Each sum
 * still adds its terms one by one in the fold's order, so it is the same double. */
LG_PLACE_VECTOR_CLONES
static void fold_costs_consecutive(const work_t *w, const fold_t *f, uint32_t base, double *cost)
{
    double sum[LG_PLACE_COST_LANES] = {0};
    const double *lines = w->occ.full_lines + base, *heat = w->occ.full_heat + base;
    uint32_t i = 0;
    /* The runs as pointers: indexes in 32 bits could wrap, which keeps the compiler from reading
     * a run as vectors. */
    for (; i + 2 <= f->n; i += 2) {
        const double *lines0 = lines + f->sets[i], *heat0 = heat + f->sets[i];
        const double *lines1 = lines + f->sets[i + 1], *heat1 = heat + f->sets[i + 1];
        double h0 = f->packed_heat[i], k0 = f->packed_lines[i];
        double h1 = f->packed_heat[i + 1], k1 = f->packed_lines[i + 1];
        for (unsigned j = 0; j < LG_PLACE_COST_LANES; j++)
            sum[j] = (sum[j] + conflict_term(h0, k0, lines0[j], heat0[j])) +
                     conflict_term(h1, k1, lines1[j], heat1[j]);
    }
    for (; i < f->n; i++) {
        const double *lines0 = lines + f->sets[i], *heat0 = heat + f->sets[i];
        double h0 = f->packed_heat[i], k0 = f->packed_lines[i];
        for (unsigned j = 0; j < LG_PLACE_COST_LANES; j++)
            sum[j] += conflict_term(h0, k0, lines0[j], heat0[j]);
    }
    memcpy(cost, sum, sizeof sum);
}

/* The same with relative set 0 at any sets base[j] (< nsets), into cost[j]. */
static void fold_costs_spread(const work_t *w, const fold_t *f, const uint32_t *base, double *cost)
{
    double sum[LG_PLACE_COST_LANES] = {0};
    const double *lines = w->occ.full_lines, *heat = w->occ.full_heat;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t set = f->sets[i];
        double h = f->packed_heat[i], k = f->packed_lines[i];
        for (unsigned j = 0; j < LG_PLACE_COST_LANES; j++)
            sum[j] += conflict_term(h, k, lines[set + base[j]], heat[set + base[j]]);
    }
    memcpy(cost, sum, sizeof sum);
}

/* `copies` lines of heat h each join set `set` (< nsets). */
static void occupancy_sink(void *ctx, uint32_t set, uint64_t copies, double h)
{
    occupancy_t *o = ctx;
    o->heat[set] += h * (double)copies;
    o->lines[set] += copies;
    if (o->lines[set] >= o->ways)
        for (size_t m = set; m < o->full_len; m += o->nsets) {
            o->full_lines[m] = (double)o->lines[set];
            o->full_heat[m] = o->heat[set];
        }
}

/* ---- filler ----------------------------------------------------------------------------- */

/* Size descending, then rank (ranks are distinct: a total order). */
static int pool_cmp(const void *pa, const void *pb)
{
    const pool_entry_t *a = pa, *b = pb;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static lg_err_t pool_build(work_t *w, const lg_layout_t *l)
{
    size_t n = 0;
    for (size_t k = 0; k < l->ncold; k++)
        n += lg_fn_movable(&w->prog->fns[l->cold[k]]);
    w->pool.e = malloc((n ? n : 1) * sizeof *w->pool.e);
    w->pool.taken = calloc(n ? n : 1, sizeof *w->pool.taken);
    w->pool.live = malloc((n + 1) * sizeof *w->pool.live);
    if (w->pool.e == NULL || w->pool.taken == NULL || w->pool.live == NULL)
        return out_of_memory(w->d, "the filler functions");
    for (size_t i = 0; i <= n; i++)
        w->pool.live[i] = i;
    for (size_t k = 0; k < l->ncold; k++) {
        uint32_t x = l->cold[k];
        const lg_fn_t *f = &w->prog->fns[x];
        if (lg_fn_movable(f))
            w->pool.e[w->pool.n++] =
                (pool_entry_t){lg_fn_span(f), f->align, ((uint64_t)f->input_order << 32) | x, x};
    }
    qsort(w->pool.e, w->pool.n, sizeof *w->pool.e, pool_cmp);
    return LG_OK;
}

/* First pool entry whose size is at most rem (sizes descend). */
static size_t pool_first_within(const work_t *w, uint64_t rem)
{
    size_t lo = 0, hi = w->pool.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->pool.e[mid].size > rem)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first entry at or after i still in the pool; pool.n when none. */
static size_t pool_live(work_t *w, size_t i)
{
    size_t r = i;
    while (r < w->pool.n && w->pool.live[r] != r)
        r = w->pool.live[r];
    while (i < r) { /* compress the path, so the next search skips it in one step */
        size_t next = w->pool.live[i];
        w->pool.live[i] = r;
        i = next;
    }
    return r;
}

/* Picks filler for [from, to) greedily (largest that fits first); returns where it ends. The
 * picks stay marked taken until plan_commit or plan_drop. */
static lg_err_t plan_fill(work_t *w, uint64_t from, uint64_t to, uint64_t *end)
{
    uint64_t cur = from;
    w->npicks = 0;
    while (cur < to) {
        size_t found = SIZE_MAX, scanned = 0;
        for (size_t i = pool_live(w, pool_first_within(w, to - cur));
             i < w->pool.n && scanned < LG_PLACE_FILL_SCAN_MAX; i = pool_live(w, i + 1)) {
            if (w->pool.taken[i])
                continue;
            scanned++;
            const pool_entry_t *e = &w->pool.e[i];
            if (lg_place_after(cur, e->size, e->align) <= to) {
                found = i;
                break;
            }
        }
        if (found == SIZE_MAX)
            break;
        if (!lg_grow((void **)&w->picks, &w->picks_cap, w->npicks + 1, sizeof *w->picks))
            return out_of_memory(w->d, "the filler functions");
        w->picks[w->npicks++] = (uint32_t)found;
        w->pool.taken[found] = true;
        cur = lg_place_after(cur, w->pool.e[found].size, w->pool.e[found].align);
    }
    *end = cur;
    return LG_OK;
}

static void plan_drop(work_t *w)
{
    for (size_t i = 0; i < w->npicks; i++)
        w->pool.taken[w->picks[i]] = false;
    w->npicks = 0;
}

/* Turns the picks into a filler clique appended to out, and removes them from the pool. */
static lg_err_t plan_commit(work_t *w)
{
    if (w->npicks == 0)
        return LG_OK;
    lg_clique_t *c = &w->out[w->nout];
    memset(c, 0, sizeof *c);
    c->fns = malloc(w->npicks * sizeof *c->fns);
    if (c->fns == NULL) {
        plan_drop(w);
        return out_of_memory(w->d, "a filler clique");
    }
    w->nout++;
    c->flags = LG_CLIQUE_FILLER;
    for (size_t i = 0; i < w->npicks; i++) {
        uint32_t x = w->pool.e[w->picks[i]].fn;
        const lg_fn_t *f = &w->prog->fns[x];
        c->fns[c->nfns++] = x;
        c->bytes = lg_fn_end_after(c->bytes, f);
        c->hits = lg_sat_add(c->hits, f->hits);
        w->filler_bytes += f->size;
        w->used[x] = true;
    }
    for (size_t i = 0; i < w->npicks; i++) {
        w->pool.taken[w->picks[i]] = false;
        w->pool.live[w->picks[i]] = w->picks[i] + 1; /* out of the pool */
    }
    w->npicks = 0;
    return LG_OK;
}

/* ---- temporal conflict cost ------------------------------------------------------------- */

/* Temporal conflict cost of c's members at offsets pos - base (base line-aligned, on set
 * base_set): see "temporal cost" above. Counts the terms it evaluates into *terms. */
static double temporal_cost(const work_t *w, const lg_clique_t *c, const uint64_t *pos,
                            uint64_t base, uint32_t base_set, uint64_t *terms)
{
    double cost = 0;
    for (size_t k = 0; k < c->nfns; k++) {
        uint32_t m = c->fns[k];
        const lg_fn_t *f = &w->prog->fns[m];
        if (f->size == 0 || !lg_affinity_has_pairs(w->aff, m))
            continue;
        const double *affinity = w->aff_sets + k * w->nsets;
        uint64_t first = (pos[k] - base) / w->line;
        uint64_t lines = (pos[k] - base + f->size - 1) / w->line - first + 1;
        uint64_t sets = lines < w->nsets ? lines : w->nsets;
        uint32_t s = (uint32_t)((first + base_set) % w->nsets);
        double shared = 0;
        for (uint64_t i = 0; i < sets; i++) {
            if (w->occ.lines[s] >= w->occ.ways)
                shared += affinity[s];
            s = s + 1 == w->nsets ? 0 : s + 1;
        }
        cost += shared / (double)sets;
        *terms += sets;
    }
    return cost;
}

/* Fills aff_sets for the members of c. */
static void member_affinities(work_t *w, const lg_clique_t *c)
{
    for (size_t k = 0; k < c->nfns; k++)
        if (lg_affinity_has_pairs(w->aff, c->fns[k]))
            lg_affinity_sets(w->aff, c->fns[k], w->aff_sets + k * w->nsets);
}

/* ---- choosing offsets ------------------------------------------------------------------- */

/* Best start for clique c after `end`: *start = the start chosen, *shifted = false for the
 * natural offset. pos receives the natural offsets. */
static void choose_offset(work_t *w, const lg_clique_t *c, uint64_t end, uint64_t *start,
                          bool *shifted)
{
    *shifted = false;
    *start = end;
    if (clique_heat(w, c) == 0)
        return;

    uint64_t base_nat = end - end % w->line;
    uint32_t set_nat = (uint32_t)((base_nat / w->line) % w->nsets);
    double c0;
    if (w->aff != NULL) {
        member_affinities(w, c);
        c0 = temporal_cost(w, c, w->pos, base_nat, set_nat, &w->terms);
    } else {
        walk_clique(w, c, w->pos, base_nat, fold_sink, &w->fold_nat);
        fold_pack(&w->fold_nat);
        c0 = fold_cost(w, &w->fold_nat, set_nat);
        w->terms += w->fold_nat.n;
        fold_clear(&w->fold_nat);
    }
    if (c0 <= 0)
        return;

    uint64_t g = clique_align(w, c);
    if (g < w->line)
        g = w->line;
    while (w->way / g > LG_PLACE_MAX_CANDIDATES)
        g *= 2; /* both powers of two: g stays a divisor of the way */
    uint64_t first = align_up(end, g);
    if (first - end >= w->way)
        return; /* an alignment beyond the way size: no other offset reachable within a way */
    uint64_t ncand = (w->way - (first - end) + g - 1) / g;

    lay_out(w, c, 0, w->pos_fresh);
    uint64_t per_candidate = 0;
    if (w->aff != NULL)
        temporal_cost(w, c, w->pos_fresh, 0, 0, &per_candidate);
    else {
        walk_clique(w, c, w->pos_fresh, 0, fold_sink, &w->fold_fresh);
        per_candidate = w->fold_fresh.n;
    }
    if (w->terms + ncand * per_candidate > LG_PLACE_MAX_COST_TERMS) {
        w->over_terms++;
        fold_clear(&w->fold_fresh);
        return;
    }
    w->terms += ncand * per_candidate;

    if (w->aff == NULL)
        fold_pack(&w->fold_fresh);
    double best = c0;
    uint32_t step = (uint32_t)((g / w->line) % w->nsets);
    uint32_t set = (uint32_t)((first / w->line) % w->nsets);
    uint32_t bases[LG_PLACE_COST_LANES];
    double conflicts[LG_PLACE_COST_LANES];
    for (uint64_t k = 0; k < ncand; k++) {
        unsigned lane = (unsigned)(k % LG_PLACE_COST_LANES);
        if (lane == 0) { /* the sets of this candidate and the next lanes - 1 */
            uint32_t next = set;
            for (unsigned j = 0; j < LG_PLACE_COST_LANES; j++) {
                bases[j] = next;
                next += step;
                if (next >= w->nsets)
                    next -= w->nsets;
            }
            if (w->aff == NULL && step == 1)
                fold_costs_consecutive(w, &w->fold_fresh, set, conflicts);
            else if (w->aff == NULL)
                fold_costs_spread(w, &w->fold_fresh, bases, conflicts);
        }
        uint64_t s = first + k * g;
        if (s != end) { /* s == end lays the clique out exactly as the natural offset does */
            uint64_t unused = 0;
            double conflict = w->aff != NULL ? temporal_cost(w, c, w->pos_fresh, 0, set, &unused)
                                             : conflicts[lane];
            double cost =
                conflict + c0 * LG_PLACE_GAP_PENALTY_PER_WAY * (double)(s - end) / (double)w->way;
            if (cost < best) {
                best = cost;
                *start = s;
                *shifted = true;
            }
        }
        set += step;
        if (set >= w->nsets)
            set -= w->nsets;
    }
    fold_clear(&w->fold_fresh);
}

/* Places clique c (a hot clique of the layout) after `*end`, appending any filler and c itself
 * to out; c's member array moves to out. */
static lg_err_t place_clique(work_t *w, const lg_clique_t *c, uint64_t *end)
{
    uint64_t nat_end = lay_out(w, c, *end, w->pos);
    uint64_t start;
    bool shifted;
    choose_offset(w, c, *end, &start, &shifted);

    uint64_t pad = 0;
    if (shifted) {
        uint64_t fill_end = *end;
        LG_CHECK(plan_fill(w, *end, start, &fill_end));
        uint64_t a1 = unit_align(members_of(w, c)[0].align);
        pad = align_up(fill_end, a1) == start ? 0 : start - fill_end;
        if (w->pad_total + pad > w->pad_budget) {
            plan_drop(w);
            w->over_budget++;
            shifted = false;
            pad = 0;
        } else {
            LG_CHECK(plan_commit(w));
        }
    }

    uint64_t new_end = nat_end;
    if (shifted) {
        new_end = lay_out(w, c, start, w->pos);
        w->pad_total += pad;
    }
    walk_clique(w, c, w->pos, 0, occupancy_sink, &w->occ);
    if (w->aff != NULL)
        for (size_t k = 0; k < c->nfns; k++)
            lg_affinity_place(w->aff, c->fns[k], w->pos[k]);

    lg_clique_t *o = &w->out[w->nout++];
    *o = *c;
    o->pad_before = pad;
    o->bytes = lay_out(w, c, 0, w->pos_fresh);
    o->hits = 0;
    const member_t *m = members_of(w, c);
    for (size_t k = 0; k < c->nfns; k++)
        o->hits = lg_sat_add(o->hits, m[k].hits);
    *end = new_end;
    return LG_OK;
}

/* ---- checks ----------------------------------------------------------------------------- */

static lg_err_t check_index(const lg_program_t *p, uint8_t *seen, uint32_t i, const char *list,
                            size_t at, lg_diag_t *d)
{
    if (i >= p->nfns)
        return lg_diag_fail(d, LG_EINVAL, LG_PLACE_WHERE,
                            "%s %zu names function %u: expected below %zu", list, at, i, p->nfns);
    if (seen[i])
        return lg_diag_fail(d, LG_EINVAL, LG_PLACE_WHERE,
                            "%s %zu names function %s, already in the layout", list, at,
                            p->fns[i].symbol ? p->fns[i].symbol : "?");
    seen[i] = 1;
    return LG_OK;
}

/* Every function at most once and in range, nothing placed already, and a bound on the span so
 * that no offset computation can wrap. */
static lg_err_t check_layout(const lg_program_t *p, const lg_layout_t *l, uint64_t way,
                             lg_diag_t *d)
{
    uint8_t *seen = calloc(p->nfns ? p->nfns : 1, 1);
    if (seen == NULL)
        return out_of_memory(d, "checking the layout");
    lg_err_t err = LG_OK;
    uint64_t span = 0, max_align = 1;
    for (size_t c = 0; c < l->ncliques && err == LG_OK; c++) {
        const lg_clique_t *cl = &l->cliques[c];
        if ((cl->flags & LG_CLIQUE_FILLER) || cl->pad_before > 0) {
            err = lg_diag_fail(d, LG_EINVAL, LG_PLACE_WHERE,
                               "clique %zu has filler or padding: the layout is placed already", c);
            break;
        }
        for (size_t k = 0; k < cl->nfns && err == LG_OK; k++) {
            uint32_t i = cl->fns[k];
            err = check_index(p, seen, i, "clique", c, d);
            if (err == LG_OK) {
                span = lg_sat_add(span,
                                  lg_sat_add(lg_fn_span(&p->fns[i]), unit_align(p->fns[i].align)));
                if (unit_align(p->fns[i].align) > max_align)
                    max_align = unit_align(p->fns[i].align);
            }
        }
    }
    for (size_t k = 0; k < l->ncold && err == LG_OK; k++) {
        err = check_index(p, seen, l->cold[k], "cold entry", k, d);
        if (err == LG_OK)
            span = lg_sat_add(span, lg_sat_add(lg_fn_span(&p->fns[l->cold[k]]),
                                               unit_align(p->fns[l->cold[k]].align)));
    }
    for (size_t k = 0; k < l->nexcluded && err == LG_OK; k++)
        err = check_index(p, seen, l->excluded[k], "excluded entry", k, d);
    free(seen);
    if (err != LG_OK)
        return err;
    /* Per clique at most a gap below a way, plus alignment to G (<= way or max_align). */
    uint64_t per_clique = lg_sat_add(lg_sat_add(way, way), max_align);
    if (l->ncliques > 0 && per_clique > LG_PLACE_MAX_SPAN / l->ncliques)
        span = UINT64_MAX;
    else
        span = lg_sat_add(span, per_clique * l->ncliques);
    if (span > LG_PLACE_MAX_SPAN)
        return lg_diag_fail(d, LG_ELIMIT, LG_PLACE_WHERE,
                            "the layout may span more than %llu bytes: too large to place",
                            (unsigned long long)LG_PLACE_MAX_SPAN);
    return LG_OK;
}

/* ---- the pass --------------------------------------------------------------------------- */

/* Heat descending, then position in the layout. */
static int key_cmp(const void *pa, const void *pb)
{
    const place_key_t *a = pa, *b = pb;
    if (a->heat != b->heat)
        return a->heat > b->heat ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static void work_free(work_t *w)
{
    free(w->occ.heat);
    free(w->occ.lines);
    free(w->occ.full_lines);
    free(w->occ.full_heat);
    free(w->fold_nat.packed_heat);
    free(w->fold_nat.packed_lines);
    free(w->fold_fresh.packed_heat);
    free(w->fold_fresh.packed_lines);
    free(w->fold_nat.heat);
    free(w->fold_nat.lines);
    free(w->fold_fresh.lines);
    free(w->fold_nat.sets);
    free(w->fold_fresh.heat);
    free(w->fold_fresh.sets);
    free(w->pos);
    free(w->pos_fresh);
    free(w->pool.e);
    free(w->pool.taken);
    free(w->pool.live);
    free(w->picks);
    free(w->used);
    free(w->hs_first);
    free(w->hs_total);
    free(w->member);
    free(w->first_member);
    lg_affinity_destroy(w->aff);
    free(w->aff_sets);
    if (w->out != NULL) {
        /* Filler member arrays are ours; the hot cliques' still belong to the layout. */
        for (size_t i = 0; i < w->nout; i++)
            if (w->out[i].flags & LG_CLIQUE_FILLER)
                free(w->out[i].fns);
        free(w->out);
    }
}

/* hs_first and hs_total from prog->hotspots (sorted by function, then offset). */
static lg_err_t index_hotspots(work_t *w)
{
    const lg_program_t *p = w->prog;
    if (p->nhotspots == 0)
        return LG_OK;
    w->hs_first = calloc(p->nfns + 1, sizeof *w->hs_first);
    w->hs_total = calloc(p->nfns ? p->nfns : 1, sizeof *w->hs_total);
    if (w->hs_first == NULL || w->hs_total == NULL)
        return out_of_memory(w->d, "the hotspot index");
    for (size_t i = 0; i < p->nhotspots; i++) {
        w->hs_first[p->hotspots[i].fn + 1]++;
        w->hs_total[p->hotspots[i].fn] += (double)p->hotspots[i].cost;
    }
    for (size_t f = 0; f < p->nfns; f++)
        w->hs_first[f + 1] += w->hs_first[f];
    return LG_OK;
}

/* w->member and w->first_member from the layout's cliques, in one pass over the function
 * table, and w->counters: the heat is counter1_self when some member has counter data. */
static lg_err_t gather_members(work_t *w, const lg_layout_t *l)
{
    const lg_program_t *p = w->prog;
    size_t n = 0;
    w->cliques = l->cliques;
    w->first_member = malloc((l->ncliques ? l->ncliques : 1) * sizeof *w->first_member);
    for (size_t c = 0; c < l->ncliques; c++)
        n += l->cliques[c].nfns;
    w->member = lg_big_alloc(n ? n : 1, sizeof *w->member);
    if (w->first_member == NULL || w->member == NULL)
        return out_of_memory(w->d, "the cache placement");
    w->counters = false;
    n = 0;
    for (size_t c = 0; c < l->ncliques; c++) {
        w->first_member[c] = n;
        for (size_t k = 0; k < l->cliques[c].nfns; k++) {
            const lg_fn_t *f = &p->fns[l->cliques[c].fns[k]];
            w->member[n++] = (member_t){f->size, f->align, f->lead, f->hits, f->counter1_self};
            w->counters |= f->counter1_self > 0;
        }
    }
    if (!w->counters)
        for (size_t k = 0; k < n; k++)
            w->member[k].heat = w->member[k].hits;
    return LG_OK;
}

static lg_err_t work_alloc(work_t *w, const lg_layout_t *l, uint32_t ways)
{
    LG_CHECK(gather_members(w, l));
    size_t maxn = 1;
    for (size_t c = 0; c < l->ncliques; c++)
        if (l->cliques[c].nfns > maxn)
            maxn = l->cliques[c].nfns;
    size_t nsets = w->nsets;
    w->occ.ways = ways;
    w->occ.nsets = w->nsets;
    w->occ.heat = calloc(nsets, sizeof *w->occ.heat);
    w->occ.lines = calloc(nsets, sizeof *w->occ.lines);
    w->occ.full_len = 2 * nsets + LG_PLACE_COST_LANES;
    w->occ.full_lines = calloc(w->occ.full_len, sizeof *w->occ.full_lines);
    w->occ.full_heat = calloc(w->occ.full_len, sizeof *w->occ.full_heat);
    w->fold_nat.packed_heat = calloc(nsets, sizeof *w->fold_nat.packed_heat);
    w->fold_nat.packed_lines = calloc(nsets, sizeof *w->fold_nat.packed_lines);
    w->fold_fresh.packed_heat = calloc(nsets, sizeof *w->fold_fresh.packed_heat);
    w->fold_fresh.packed_lines = calloc(nsets, sizeof *w->fold_fresh.packed_lines);
    w->fold_nat.heat = calloc(nsets, sizeof *w->fold_nat.heat);
    w->fold_nat.sets = calloc(nsets, sizeof *w->fold_nat.sets);
    w->fold_nat.lines = calloc(nsets, sizeof *w->fold_nat.lines);
    w->fold_fresh.lines = calloc(nsets, sizeof *w->fold_fresh.lines);
    w->fold_fresh.heat = calloc(nsets, sizeof *w->fold_fresh.heat);
    w->fold_fresh.sets = calloc(nsets, sizeof *w->fold_fresh.sets);
    w->pos = calloc(maxn, sizeof *w->pos);
    w->pos_fresh = calloc(maxn, sizeof *w->pos_fresh);
    w->used = calloc(w->prog->nfns ? w->prog->nfns : 1, sizeof *w->used);
    /* At most one filler clique before each hot clique. */
    w->out = calloc(2 * l->ncliques, sizeof *w->out);
    if (!w->occ.heat || !w->occ.lines || !w->occ.full_lines || !w->occ.full_heat ||
        !w->fold_nat.packed_heat || !w->fold_nat.packed_lines || !w->fold_fresh.packed_heat ||
        !w->fold_fresh.packed_lines || !w->fold_nat.heat || !w->fold_nat.sets ||
        !w->fold_nat.lines || !w->fold_fresh.lines || !w->fold_fresh.heat || !w->fold_fresh.sets ||
        !w->pos || !w->pos_fresh || !w->used || !w->out)
        return out_of_memory(w->d, "the cache placement");
    LG_CHECK(index_hotspots(w));
    if (w->prog->nproximity > 0) {
        if (lg_affinity_create(w->prog, w->nsets, w->line, &w->aff) != LG_OK)
            return out_of_memory(w->d, "the temporal affinity map");
        if (maxn > SIZE_MAX / sizeof *w->aff_sets / nsets)
            return out_of_memory(w->d, "the temporal affinity map");
        w->aff_sets = malloc(maxn * nsets * sizeof *w->aff_sets);
        if (w->aff_sets == NULL)
            return out_of_memory(w->d, "the temporal affinity map");
    }
    return pool_build(w, l);
}

/* Runs the placement into w->out; the layout is only read. */
static lg_err_t place_all(work_t *w, const lg_layout_t *l, uint32_t ways)
{
    LG_CHECK(work_alloc(w, l, ways));
    place_key_t *keys = malloc(l->ncliques * sizeof *keys);
    if (keys == NULL)
        return out_of_memory(w->d, "ordering the cliques");
    uint64_t hot_bytes = 0;
    for (size_t c = 0; c < l->ncliques; c++) {
        keys[c] = (place_key_t){clique_heat(w, &l->cliques[c]), c};
        hot_bytes += lay_out(w, &l->cliques[c], 0, w->pos);
    }
    qsort(keys, l->ncliques, sizeof *keys, key_cmp);
    w->pad_budget = hot_bytes / LG_PERCENT * LG_PLACE_MAX_PAD_PERCENT +
                    hot_bytes % LG_PERCENT * LG_PLACE_MAX_PAD_PERCENT / LG_PERCENT;

    lg_err_t err = LG_OK;
    uint64_t end = 0;
    for (size_t i = 0; i < l->ncliques && err == LG_OK; i++)
        err = place_clique(w, &l->cliques[keys[i].index], &end);
    free(keys);
    return err;
}

lg_err_t lg_place_for_cache(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *layout,
                            lg_diag_t *d)
{
    LG_CHECK(lg_geometry_check(geo, d));
    uint64_t way = geo->cache_size / geo->ways;
    LG_CHECK(check_layout(prog, layout, way, d));
    if (layout->ncliques == 0)
        return LG_OK;
    uint64_t nsets = way / geo->line_size;
    if (nsets < 2) {
        lg_diag_add(d, LG_NOTE, LG_PLACE_WHERE,
                    "placement skipped: a %u-byte %u-way cache has one set, where code lands "
                    "cannot matter",
                    geo->cache_size, geo->ways);
        return LG_OK;
    }
    if (!is_pow2_u64(way)) {
        lg_diag_add(d, LG_NOTE, LG_PLACE_WHERE,
                    "placement skipped: the way size (%llu bytes) is not a power of two, so no "
                    "section alignment fixes the cache sets",
                    (unsigned long long)way);
        return LG_OK;
    }

    /* Contiguous code no longer than a way maps every line to a set of its own. */
    uint64_t span = 0;
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        for (size_t k = 0; k < cl->nfns; k++)
            span = lg_fn_end_after(span, &prog->fns[cl->fns[k]]);
    }
    if (span <= way) {
        layout->section_align = way;
        return LG_OK;
    }

    work_t w;
    memset(&w, 0, sizeof w);
    w.prog = prog;
    w.d = d;
    w.line = geo->line_size;
    w.way = way;
    w.nsets = (uint32_t)nsets;
    lg_err_t err = place_all(&w, layout, geo->ways);

    uint32_t *cold = NULL;
    size_t ncold = 0;
    if (err == LG_OK && layout->ncold > 0) {
        cold = malloc(layout->ncold * sizeof *cold);
        if (cold == NULL)
            err = out_of_memory(d, "the cold functions");
        else
            for (size_t k = 0; k < layout->ncold; k++)
                if (!w.used[layout->cold[k]])
                    cold[ncold++] = layout->cold[k];
    }
    if (err != LG_OK) {
        free(cold);
        work_free(&w);
        return err;
    }

    /* Commit: the hot cliques' member arrays moved to w.out; the old arrays go. */
    free(layout->cliques);
    free(layout->cold);
    layout->cliques = w.out;
    layout->ncliques = w.nout;
    layout->cold = cold;
    layout->ncold = ncold;
    layout->section_align = way;
    w.out = NULL;
    if (w.pad_total > 0 || w.filler_bytes > 0)
        lg_diag_add(d, LG_NOTE, LG_PLACE_WHERE,
                    "placement added %llu bytes of padding (%llu bytes of cold code used as "
                    "filler)",
                    (unsigned long long)w.pad_total, (unsigned long long)w.filler_bytes);
    if (w.over_terms > 0)
        lg_diag_add(d, LG_NOTE, LG_PLACE_WHERE,
                    "cliques kept at their natural offset because choosing one would pass the "
                    "bound of %u cost terms: %zu",
                    (unsigned)LG_PLACE_MAX_COST_TERMS, w.over_terms);
    if (w.over_budget > 0)
        lg_diag_add(d, LG_NOTE, LG_PLACE_WHERE,
                    "cliques kept at their natural offset because the padding would pass %u%% "
                    "of the hot code's bytes: %zu",
                    (unsigned)LG_PLACE_MAX_PAD_PERCENT, w.over_budget);
    work_free(&w);
    return LG_OK;
}
