/* report_model.h - the facts every report form shows (text, JSON, HTML), computed once.
 *
 * The report writers differ only in how they print: which clique holds each function, the
 * cliques' totals, and each clique's calls bucketed as inside it or across its boundary come from
 * here, sorted the same way, so the three forms agree row for row.
 *
 * Definitions:
 *   inside row    an arc whose caller and callee are in the same clique
 *   boundary row  an arc with one end in the clique and the other outside it (in another clique,
 *                 or in none); an arc between two cliques is a boundary row of both
 *   row order     weight descending, then caller name, then callee name (byte order), then
 *                 function index: a total order, so every report is byte-for-byte stable
 */
#ifndef LG_REPORT_MODEL_H
#define LG_REPORT_MODEL_H

#include "report_input.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Marks a function in no clique (clique_of) and a boundary row leading outside the cliques. */
#define LG_REPORT_NO_CLIQUE UINT32_MAX

/* What the reports say beside `lorgen eval`'s estimate, so that nobody reads it as a
 * measurement. It states the model's limit only: figures of how well it ranked layouts come from
 * one benchmark run, go stale with the next, and belong on docs/benchmarks.md, not in every
 * report. The JSON and HTML reports print it as it is; the text report prints the same words
 * wrapped to its columns (report.c). */
#define LG_REPORT_ESTIMATE_LIMITS                                                                  \
    "a model's hint at which layout misses less, not a measure of by how much; misses "            \
    "measured with cachegrind are in docs/benchmarks.md"

typedef struct lg_report_row {
    const lg_arc_t *arc;   /* borrowed from the program */
    uint32_t other_clique; /* boundary rows: the clique on the other side, or LG_REPORT_NO_CLIQUE */
    bool outgoing;         /* boundary rows: the caller is inside the clique */
} lg_report_row_t;

/* A sort key for the report's hottest-first orders (cliques, members, functions): weight, then
 * hits, both descending, then index ascending, so that every order is total. */
typedef struct lg_report_key {
    uint64_t weight; /* placement's weight (lg_report_fn_weight, a clique's), or hits again */
    uint64_t hits;
    size_t index; /* what is sorted: a clique, a function, a member's position */
} lg_report_key_t;

/* A group's member that holds at least this share of the group's hits, in percent, while the
 * rest of the group is at least as large as the member itself, is worth separating: built with
 * -ffunction-sections it could sit next to the functions it calls or that call it, without
 * carrying the rest of its section along (the CodeScape guide gives the same advice for a
 * group's only profiled member). */
#define LG_REPORT_SEPARATE_PERCENT 80.0

/* A fixed group (optimizer/groups.h) that holds a profiled member: one the layout moved, whose
 * members are consecutive in a clique, or one that stays where the linker puts it. */
typedef struct lg_report_group {
    uint32_t clique;         /* where it moved, or LG_REPORT_NO_CLIQUE: it stays */
    const uint32_t *members; /* program indexes in section order (borrowed) */
    size_t count;
    uint64_t bytes, hits;
    uint64_t executed_bytes; /* of the members that ran */
    uint32_t head;           /* its first member (program index) */
    uint32_t separate;       /* the member worth building apart (LG_REPORT_SEPARATE_PERCENT), or
                                UINT32_MAX */
} lg_report_group_t;

/* The fixed groups list of every report: the groups that moved in link order, then those that
 * stay, most hits first (then first member's index). */
typedef struct lg_report_groups {
    lg_report_group_t *v;
    size_t n;
    uint32_t *staying; /* the staying groups' members, which v[k].members point into */
} lg_report_groups_t;

/* Fills *out (no prior initialisation needed; free with lg_report_groups_destroy, also after an
 * error). Returns LG_OK or LG_ENOMEM. O(F log F) in functions. */
lg_err_t lg_report_groups_build(const lg_program_t *prog, const lg_layout_t *layout,
                                lg_report_groups_t *out);

/* Why a group that stays did not move, one phrase. */
const char *lg_report_group_stays_reason(const lg_program_t *prog, const lg_report_group_t *g);

void lg_report_groups_destroy(lg_report_groups_t *g);

/* The qsort comparison of lg_report_key_t: hottest first. */
int lg_report_key_cmp(const void *a, const void *b);

typedef struct lg_report_model {
    uint32_t *clique_of; /* per function: its clique, or LG_REPORT_NO_CLIQUE */
    uint64_t total_hits; /* summed over the cliques */
    uint64_t hot_bytes;  /* summed over the cliques of executed code, with alignment */
    uint64_t all_bytes;  /* summed over every clique, filler (LG_CLIQUE_FILLER) included */
    uint32_t sets;       /* cache sets: cache_size / line_size / ways */
    size_t hot_fns;      /* functions in the cliques of executed code (hot_bytes) */
    size_t filler_fns;   /* functions in filler cliques (all_bytes - hot_bytes) */
    /* The weight placement ranks and places by (optimizer/placement.c, fn_heat): each
     * function's self cost (counter 1: instructions, time, samples) when some clique member has
     * one, else its hits. Calls alone hide a loop that runs long in a function called once. */
    bool weight_is_cost;
    const char *weight_unit; /* "Ir", "ns", ... when weight_is_cost; "hits" otherwise */
    uint64_t total_weight;   /* summed over the cliques */
    uint64_t *clique_weight; /* per clique: its members' weight */
    /* What the estimate replays: the weight of the profiled functions bound to the ELF inputs,
     * against the profiles' whole weight as merged (bound, unbound: shared libraries, the PLT,
     * the loader). The rest is code the estimate never fetches. */
    uint64_t bound_weight, profile_weight;
    /* Clique c's rows are rows[first[c] .. first[c + 1]): ninside[c] inside rows, then its
     * boundary rows; both runs unsorted until lg_report_sort_rows. */
    lg_report_row_t *rows;
    size_t *first;   /* ncliques + 1 offsets */
    size_t *ninside; /* per clique */
} lg_report_model_t;

/* Fills m (no prior initialisation needed) from in->prog and in->layout. Returns LG_OK or
 * LG_ENOMEM (m is then left empty). O(functions + arcs). */
/* What the placement weight is, as a clause after its unit: the profiles' self cost, or why it
 * is hits (the profiles give none, or the cliques hold none of it: fast regions took every
 * function that has some). */
const char *lg_report_weight_clause(const lg_report_input_t *in, const lg_report_model_t *m);

lg_err_t lg_report_model_build(const lg_report_input_t *in, lg_report_model_t *m);

/* Where each function starts (nfns entries each, caller frees): *before from the linked ELF,
 * NULL when the ELF inputs give no addresses (objects only); *after as the new order would be
 * linked from the start of the program's text (lg_addresses_from_layout), the placement the
 * estimate replays. Returns LG_OK, LG_ENOMEM, or what lg_addresses_from_layout returns, with a
 * diagnostic in d. O(functions). */
lg_err_t lg_report_addresses(const lg_report_input_t *in, uint64_t **before, uint64_t **after,
                             lg_diag_t *d);

/* Writes one report of in to out: the part that differs between the HTML and JSON reports. It
 * gets the model and the addresses of lg_report_addresses (before may be NULL). */
typedef lg_err_t (*lg_report_writer_t)(const lg_report_input_t *in, lg_report_model_t *m,
                                       const uint64_t *before, const uint64_t *after, FILE *out,
                                       lg_diag_t *d);

/* Builds the model and the addresses of in, has write write the report with them, then frees
 * them. Returns the first error, else LG_EIO when out has an error, else LG_OK. */
lg_err_t lg_report_write_with(const lg_report_input_t *in, lg_report_writer_t write, FILE *out,
                              lg_diag_t *d);

/* The weight of fn as placement uses it (see lg_report_model_t.weight_is_cost). */
uint64_t lg_report_fn_weight(const lg_report_model_t *m, const lg_fn_t *fn);

/* Percentage of the profiles' weight in functions the estimate does not fetch (unbound). */
double lg_report_unreplayed_pct(const lg_report_model_t *m);

/* Frees m; accepts a zeroed struct. */
void lg_report_model_destroy(lg_report_model_t *m);

/* Moves the first k of the n rows in row order to rows[0 .. k), sorted (k <= n; k == n sorts
 * them all). About O(n) for small k, O(n log n) for k == n. Returns LG_OK, or LG_ENOMEM (the
 * rows left as they were) when there is no room for the sort keys, which carry each row's
 * caller and callee symbols. */
lg_err_t lg_report_sort_rows(const lg_program_t *prog, lg_report_row_t *rows, size_t n, size_t k);

/* Summed weight of rows (saturating). */
uint64_t lg_report_rows_weight(const lg_report_row_t *rows, size_t n);

/* part as a percentage of whole; 0 when whole is 0. */
double lg_report_pct(uint64_t part, uint64_t whole);

/* Byte offset of each member's code from clique c's start, as the linker lays it out
 * (lg_start_after of each function from offset 0: the next multiple of its alignment, a phased
 * function's the first offset at its phase): offsets[i] for cl->fns[i]. */
void lg_report_clique_offsets(const lg_program_t *prog, const lg_clique_t *cl, uint64_t *offsets);

/* After a member's section name in the text and HTML reports: " (phase +P in the L-byte line)"
 * for a phased function, which says why its offset is not where alignment alone would put it;
 * nothing otherwise. Only numbers: nothing to escape. */
void lg_report_write_phase(const lg_fn_t *fn, uint32_t line_size, FILE *out);

/* Fills order (cl->nfns entries) with the clique's members sorted by weight (lg_report_fn_weight)
 * descending, then hits descending, then link order: order[i].index is a position in cl->fns.
 * O(n log n). */
void lg_report_members_by_weight(const lg_report_model_t *m, const lg_program_t *prog,
                                 const lg_clique_t *cl, lg_report_key_t *order);

#endif
