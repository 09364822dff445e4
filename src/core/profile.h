/* profile.h - what a loader reads out of one profile file: functions with their counters, and
 * caller -> callee call weights.
 *
 * Every loader (loaders/<format>.c) fills an lg_profile_t; binding (bind.h) later matches its
 * function names to ELF symbols. Names are as the profiler wrote them. A profile without call
 * information (a statistical profile) has has_call_edges == false and no edges.
 *
 * Definitions:
 *   hits     how many times the function ran (trace profiles: calls; statistical: samples)
 *   counter  a hardware or software counter the profiler accumulated per function; `total`
 *            includes the functions it called, `self` excludes them
 *   edge     caller -> callee with a weight (calls, or samples for sampled call stacks);
 *            self-recursive edges (caller == callee) are kept
 */
#ifndef LG_PROFILE_H
#define LG_PROFILE_H

#include "arcs.h"
#include "diag.h"
#include "intmap.h"
#include "strmap.h"

#include <stdbool.h>
#include <stdint.h>

/* Most functions one profile may describe: a header claiming more is corrupt, not big. */
#define LG_PROFILE_MAX_FUNCS (16u * 1024u * 1024u)

typedef enum lg_profile_kind {
    LG_PROFILE_TRACE = 0,       /* every call recorded: hits are exact, edges are call counts */
    LG_PROFILE_STATISTICAL = 1, /* sampled: hits are samples, edges (if any) are sample counts */
} lg_profile_kind_t;

typedef struct lg_pfunc {
    char *name;       /* function name; never NULL, never empty */
    char *link_label; /* label the linker used (e.g. "_foo" on sh-elf); NULL when not given */
    char *qual_name;  /* qualified name (file, class) telling same-named statics apart; or NULL */
    char *object;     /* the binary the profiler saw it in, as it wrote it (callgrind ob=, perf's
                         DSO): the program, a shared library, [vdso]; NULL when not said */
    uint64_t hits;
    uint64_t counter1_total, counter1_self;
    uint64_t counter2_total, counter2_self;
    uint64_t pc_min, pc_max; /* function scope as profiled; both 0 when unknown */
    uint8_t description;     /* format-specific kind (.prf: 1 function, 2..6 interrupts, 7 block) */
    uint16_t attributes;     /* format-specific flags (.prf: bit 0 counters possibly wrong) */
} lg_pfunc_t;

/* caller and callee index lg_profile_t.funcs. */

/* Cost at one position inside a function: which instructions (or source lines) of a large
 * function are hot. Positions are absolute instruction addresses as profiled when
 * lg_profile_t.cost_positions is LG_POS_ADDRESS, source line numbers when LG_POS_LINE. */
typedef struct lg_pcost {
    uint32_t func;     /* index into lg_profile_t.funcs */
    uint64_t position;
    uint64_t cost;     /* in the unit of the profile's counter 1 (instructions, samples, ...) */
} lg_pcost_t;

/* A jump inside a function, from profiles that record them (callgrind --collect-jumps=yes with
 * instruction positions): how often control went from one instruction to another other than by
 * falling through. With the per-position costs it gives the order in which a large function's
 * lines run, which decides how its lines conflict in the cache (optimizer/phase.h). Addresses
 * as profiled, like lg_pcost_t positions. */
typedef struct lg_pjump {
    uint32_t func;  /* index into lg_profile_t.funcs: the function of the jumping instruction */
    uint64_t from;  /* address of the jumping instruction */
    uint64_t to;    /* address it jumped to */
    uint64_t count; /* times the jump was taken */
} lg_pjump_t;

typedef enum lg_pos_kind {
    LG_POS_NONE = 0,    /* the profile has no per-position costs */
    LG_POS_ADDRESS = 1, /* instruction addresses */
    LG_POS_LINE = 2,    /* source line numbers */
} lg_pos_kind_t;

typedef struct lg_profile {
    char *path;         /* file it was read from (copied) */
    const char *format; /* loader name, static string: "prf", ... */
    lg_profile_kind_t kind;
    bool has_call_edges;   /* false: hotness only, no call graph */
    uint8_t counter1_kind; /* format-specific meaning of counter 1 (.prf counter description) */
    uint8_t counter2_kind;
    uint64_t total_hits; /* as the file states it (may differ from the sum over funcs) */
    uint64_t call_records; /* trace records read (calls), for reports */

    lg_pfunc_t *funcs;
    size_t nfuncs, funcs_cap;
    lg_arc_t *edges; /* unique (caller, callee) pairs, in the order first added; after
                          lg_profile_finish_edges sorted by (caller, callee) */
    size_t nedges, edges_cap;

    /* Temporal proximity, from profiles with a timeline: unordered pairs of functions that ran
     * close together in time (the loader's rule is in its docs), a < b, weight = how
     * often. Unique; sorted after lg_profile_finish_edges. Empty without a timeline, and when
     * the loader was told to skip them. */
    lg_pair_t *proximity;
    size_t nproximity, proximity_cap;
    /* (caller, callee) -> index into edges, and the same for proximity, while pairs are added:
     * repeated pairs are summed where they stand, so memory grows with distinct pairs, not with
     * call records. lg_profile_finish_edges frees them. */
    lg_intmap_t edge_index, proximity_index;
    bool has_timeline; /* the profile was made from a timeline (events in time order) */

    lg_pcost_t *costs; /* per-position costs, in the order added; may repeat a (func, position) */
    size_t ncosts, costs_cap;
    lg_pos_kind_t cost_positions;
    lg_pjump_t *jumps; /* taken jumps, in the order read; only with LG_POS_ADDRESS positions */
    size_t njumps, jumps_cap;
    const char *counter1_unit; /* static text naming counter 1 ("Ir", "samples", "ns"); or NULL */

    lg_strmap_t by_name; /* name -> index of the first function with that name */
    uint32_t *next_same_name; /* per function: next function with its name, or UINT32_MAX */
} lg_profile_t;

void lg_profile_init(lg_profile_t *p);
/* Frees everything; accepts a zeroed struct. */
void lg_profile_destroy(lg_profile_t *p);

/* True when the profile measured anything: some function's hits or counters, some call's or
 * proximity pair's weight, or some position's cost is not zero. A profile without is what a
 * crashed or empty profiling run leaves; it orders nothing. */
bool lg_profile_has_cost(const lg_profile_t *p);

/* Sets p->path to a copy of path. */
lg_err_t lg_profile_set_path(lg_profile_t *p, const char *path);

/* Appends a function, copying its strings; *id receives its index. Several functions may share a
 * name (same-named statics); by_name keeps the first. Fails with LG_ELIMIT past
 * LG_PROFILE_MAX_FUNCS. */
lg_err_t lg_profile_add_func(lg_profile_t *p, const lg_pfunc_t *f, uint32_t *id);

/* Finds the function with this name, link label and qualified name, or adds it with zero
 * counters; *id receives its index. For loaders that meet functions as they read (callgrind,
 * perf script, ...). */
lg_err_t lg_profile_intern(lg_profile_t *p, const char *name, const char *link_label,
                           const char *qual_name, uint32_t *id);

/* Sets function id's object (lg_pfunc_t.object) to a copy of object, unless it has one already
 * (the first one seen is kept) or object is NULL or empty. */
lg_err_t lg_profile_set_object(lg_profile_t *p, uint32_t id, const char *object);

/* Records cost at a position inside function func (see lg_pcost_t). */
lg_err_t lg_profile_add_cost(lg_profile_t *p, uint32_t func, uint64_t position, uint64_t cost);
/* Appends a taken jump of function func (see lg_pjump_t). LG_EINVAL for an unknown func. */
lg_err_t lg_profile_add_jump(lg_profile_t *p, uint32_t func, uint64_t from, uint64_t to,
                             uint64_t count);

/* Finds the function whose name, link label and qualified name all equal the given ones (NULL and
 * "" are the same). Returns its index, or -1. O(1) expected for a unique name, O(k) for k
 * functions sharing one name. */
int64_t lg_profile_find(const lg_profile_t *p, const char *name, const char *link_label,
                        const char *qual_name);

/* Records weight more calls from caller to callee: a repeated pair is summed (saturating) into
 * the edge it already has. O(1) expected. */
lg_err_t lg_profile_add_edge(lg_profile_t *p, uint32_t caller, uint32_t callee, uint64_t weight);

/* Records that functions a and b (a != b, either order) ran close together weight more times;
 * summed like lg_profile_add_edge. */
lg_err_t lg_profile_add_proximity(lg_profile_t *p, uint32_t a, uint32_t b, uint64_t weight);

/* Sorts edges by (caller, callee), and proximity pairs likewise, and frees the pair indices. Call
 * once after loading; pairs added later are still merged (the index is rebuilt). */
void lg_profile_finish_edges(lg_profile_t *p);

#endif
