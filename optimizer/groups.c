/* groups.c - fixed function groups as units of the optimizer (rules in groups.h).
 *
 * Steps of lg_groups_build:
 *   1. key every grouped function by object and section, and number the units in the order of
 *      their first function;
 *   2. each unit's members in section order, and their offsets in it;
 *   3. the unit program: its functions, then the calls, proximity, hot lines and jumps of the
 *      members moved to their units (merged where two members' fall together).
 */
#include "groups.h"

#include "mem.h"
#include "strmap.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function with what section order compares: its address when both have one, else its
 * input order, then its index. */
typedef struct section_key {
    uint64_t address;
    uint32_t input_order, fn;
} section_key_t;

static int cmp_section_order(const void *a, const void *b)
{
    const section_key_t *x = a, *y = b;
    if (x->address != UINT64_MAX && y->address != UINT64_MAX && x->address != y->address)
        return x->address < y->address ? -1 : 1;
    if (x->input_order != y->input_order)
        return x->input_order < y->input_order ? -1 : 1;
    return (x->fn > y->fn) - (x->fn < y->fn);
}

/* Sorts the k functions of m into section order; keys is room for k of them. */
static void sort_section_order(const lg_program_t *prog, uint32_t *m, size_t k,
                               section_key_t *keys)
{
    for (size_t j = 0; j < k; j++)
        keys[j] = (section_key_t){prog->fns[m[j]].address, prog->fns[m[j]].input_order, m[j]};
    qsort(keys, k, sizeof *keys, cmp_section_order);
    for (size_t j = 0; j < k; j++)
        m[j] = keys[j].fn;
}

/* Sorts the n functions of list into section order. Returns LG_OK or LG_ENOMEM. */
static lg_err_t sort_list(const lg_program_t *prog, uint32_t *list, size_t n)
{
    if (n < 2)
        return LG_OK;
    section_key_t *keys = malloc(n * sizeof *keys);
    if (keys == NULL)
        return LG_ENOMEM;
    sort_section_order(prog, list, n, keys);
    free(keys);
    return LG_OK;
}

/* Step 1: unit_of for every function; returns the number of units in *nunits. */
static lg_err_t number_units(const lg_program_t *prog, lg_groups_t *g, size_t *nunits)
{
    lg_strmap_t by_key;
    lg_strmap_init(&by_key);
    char **keys = calloc(prog->nfns ? prog->nfns : 1, sizeof *keys);
    lg_err_t err = keys != NULL ? LG_OK : LG_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; err == LG_OK && i < prog->nfns; i++) {
        const lg_fn_t *f = &prog->fns[i];
        if (!lg_fn_in_group(f)) {
            g->unit_of[i] = (uint32_t)n++;
            continue;
        }
        if ((keys[i] = lg_format("%s\n%s", f->object, f->section)) == NULL) {
            err = LG_ENOMEM;
            break;
        }
        uint32_t unit;
        if (!lg_strmap_put(&by_key, keys[i], (uint32_t)n, &unit))
            err = LG_ENOMEM;
        else if (unit == (uint32_t)n)
            g->unit_of[i] = (uint32_t)n++;
        else
            g->unit_of[i] = unit;
    }
    lg_strmap_destroy(&by_key);
    if (keys != NULL)
        for (size_t i = 0; i < prog->nfns; i++)
            free(keys[i]);
    free(keys);
    *nunits = n;
    return err;
}

/* Step 2: members by unit in section order, and their offsets. */
static lg_err_t order_members(const lg_program_t *prog, lg_groups_t *g, size_t nunits)
{
    for (size_t i = 0; i < prog->nfns; i++)
        g->first[g->unit_of[i] + 1]++;
    for (size_t u = 0; u < nunits; u++)
        g->first[u + 1] += g->first[u];
    size_t *next = calloc(nunits ? nunits : 1, sizeof *next);
    if (next == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns; i++) {
        uint32_t u = g->unit_of[i];
        g->members[g->first[u] + next[u]++] = (uint32_t)i;
    }
    free(next);
    section_key_t *keys = malloc((prog->nfns ? prog->nfns : 1) * sizeof *keys);
    if (keys == NULL)
        return LG_ENOMEM;
    for (size_t u = 0; u < nunits; u++) {
        uint32_t *m = g->members + g->first[u];
        size_t k = g->first[u + 1] - g->first[u];
        if (k > 1)
            sort_section_order(prog, m, k, keys);
        /* Offsets: from the first member's address when every member has one (the padding
         * between them is the section's), else packed at each member's alignment. */
        bool addressed = true;
        for (size_t j = 0; j < k; j++)
            addressed = addressed && prog->fns[m[j]].address != UINT64_MAX;
        uint64_t at = 0;
        for (size_t j = 0; j < k; j++) {
            const lg_fn_t *f = &prog->fns[m[j]];
            if (addressed) {
                g->offset[m[j]] = f->address - prog->fns[m[0]].address;
                continue;
            }
            at = lg_start_after(at, f->align, 0);
            g->offset[m[j]] = at;
            at = lg_sat_add(at, f->size);
        }
    }
    free(keys);
    return LG_OK;
}

/* One unit's function: a copy of a lone function, or the group's sum. */
static lg_err_t make_unit(const lg_program_t *prog, const lg_groups_t *g, size_t u, lg_fn_t *out)
{
    const uint32_t *m = g->members + g->first[u];
    size_t k = g->first[u + 1] - g->first[u];
    const lg_fn_t *head = &prog->fns[m[0]];
    bool ok = true;
    *out = *head;
    out->symbol = out->section = out->object = out->source_file = NULL;
    out->section = lg_strdup_opt(head->section, &ok);
    out->object = lg_strdup_opt(head->object, &ok);
    out->family = (uint32_t)u;
    if (k == 1) {
        out->symbol = lg_strdup_opt(head->symbol, &ok);
        out->source_file = lg_strdup_opt(head->source_file, &ok);
        return ok ? LG_OK : LG_ENOMEM;
    }
    /* A group: its name says which, for the optimizer's messages. */
    out->symbol = lg_format("%s (and %zu more of its section)", head->symbol, k - 1);
    out->flags = (head->flags & ~(uint32_t)(LG_FN_SHARED_SECTION | LG_FN_PHASED | LG_FN_LOCAL |
                                             LG_FN_EXCLUDED |
                                            LG_FN_AMBIGUOUS_NAME)) |
                 LG_FN_GROUP;
    out->lead = 0;
    out->hits = out->counter1_self = out->counter2_self = 0;
    out->size = 0;
    uint64_t executed = 0; /* bytes of the members that ran */
    for (size_t j = 0; j < k; j++) {
        const lg_fn_t *f = &prog->fns[m[j]];
        if (f->hits > 0 || f->counter1_self > 0)
            executed = lg_sat_add(executed, f->size);
        out->flags |= f->flags & LG_FN_EXCLUDED; /* one member out takes the group out */
        out->hits = lg_sat_add(out->hits, f->hits);
        out->counter1_self = lg_sat_add(out->counter1_self, f->counter1_self);
        out->counter2_self = lg_sat_add(out->counter2_self, f->counter2_self);
        if (f->input_order < out->input_order)
            out->input_order = f->input_order;
        if (f->align > out->align)
            out->align = f->align;
        uint64_t end = lg_sat_add(g->offset[m[j]], f->size);
        if (end > out->size)
            out->size = end;
    }
    /* Mostly never-executed: it stays where it is (groups.h). */
    if ((double)executed * 100.0 < (double)out->size * LG_GROUP_MIN_EXECUTED_PERCENT)
        out->flags |= LG_FN_SHARED_SECTION;
    return ok && out->symbol != NULL ? LG_OK : LG_ENOMEM;
}

/* Step 3, the weighted lists: moved to units, sorted and merged as lg_program_t keeps them. */
static lg_err_t move_lists(const lg_program_t *prog, lg_groups_t *g)
{
    lg_program_t *u = &g->units;
    u->arcs = malloc((prog->narcs ? prog->narcs : 1) * sizeof *u->arcs);
    u->proximity = malloc((prog->nproximity ? prog->nproximity : 1) * sizeof *u->proximity);
    u->hotspots = malloc((prog->nhotspots ? prog->nhotspots : 1) * sizeof *u->hotspots);
    u->hotjumps = malloc((prog->nhotjumps ? prog->nhotjumps : 1) * sizeof *u->hotjumps);
    if (!u->arcs || !u->proximity || !u->hotspots || !u->hotjumps)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        u->arcs[u->narcs++] = (lg_arc_t){g->unit_of[a->caller], g->unit_of[a->callee], a->weight};
    }
    lg_arcs_merge(u->arcs, &u->narcs);
    for (size_t i = 0; i < prog->nproximity; i++) {
        uint32_t a = g->unit_of[prog->proximity[i].a], b = g->unit_of[prog->proximity[i].b];
        if (a != b)
            u->proximity[u->nproximity++] =
                (lg_pair_t){a < b ? a : b, a < b ? b : a, prog->proximity[i].weight};
    }
    lg_pairs_merge(u->proximity, &u->nproximity);
    for (size_t i = 0; i < prog->nhotspots; i++) {
        const lg_hotspot_t *h = &prog->hotspots[i];
        u->hotspots[u->nhotspots++] =
            (lg_hotspot_t){g->unit_of[h->fn], g->offset[h->fn] + h->offset, h->cost};
    }
    for (size_t i = 0; i < prog->nhotjumps; i++) {
        const lg_hotjump_t *j = &prog->hotjumps[i];
        uint64_t at = g->offset[j->fn];
        u->hotjumps[u->nhotjumps++] =
            (lg_hotjump_t){g->unit_of[j->fn], at + j->from, at + j->to, j->count};
    }
    lg_program_merge_positions(u);
    return LG_OK;
}

lg_err_t lg_groups_build(const lg_program_t *prog, lg_groups_t *g, lg_diag_t *d)
{
    memset(g, 0, sizeof *g);
    lg_program_init(&g->units);
    size_t n = prog->nfns ? prog->nfns : 1, nunits = 0;
    g->unit_of = malloc(n * sizeof *g->unit_of);
    g->members = malloc(n * sizeof *g->members);
    g->offset = calloc(n, sizeof *g->offset);
    g->first = calloc(n + 1, sizeof *g->first);
    lg_err_t err = g->unit_of && g->members && g->offset && g->first ? LG_OK : LG_ENOMEM;
    if (err == LG_OK)
        err = number_units(prog, g, &nunits);
    if (err == LG_OK)
        err = order_members(prog, g, nunits);
    if (err == LG_OK && (g->units.fns = calloc(nunits ? nunits : 1, sizeof *g->units.fns)) == NULL)
        err = LG_ENOMEM;
    for (size_t u = 0; err == LG_OK && u < nunits; u++) {
        err = make_unit(prog, g, u, &g->units.fns[u]);
        g->units.nfns++;
        g->ngroups += g->first[u + 1] - g->first[u] > 1;
    }
    if (err == LG_OK)
        err = move_lists(prog, g);
    g->units.has_call_edges = prog->has_call_edges;
    g->units.sections_inferred = prog->sections_inferred;
    g->units.nprofiled = prog->nprofiled;
    g->units.profile_hits = prog->profile_hits;
    g->units.profile_cost = prog->profile_cost;
    g->units.shared_libraries = prog->shared_libraries;
    if (err == LG_ENOMEM)
        lg_diag_add(d, LG_ERROR, "groups", "out of memory");
    return err;
}

/* Expands list (units, n of them) into *out (malloc'd, *nout entries), members in section order;
 * sorted by input order when by_input_order. */
static lg_err_t expand_list(const lg_groups_t *g, const lg_program_t *prog, const uint32_t *list,
                            size_t n, bool by_input_order, uint32_t **out, size_t *nout)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += g->first[list[i] + 1] - g->first[list[i]];
    uint32_t *e = malloc((total ? total : 1) * sizeof *e);
    if (e == NULL)
        return LG_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t j = g->first[list[i]]; j < g->first[list[i] + 1]; j++)
            e[k++] = g->members[j];
    if (by_input_order && sort_list(prog, e, k) != LG_OK) {
        free(e);
        return LG_ENOMEM;
    }
    *out = e;
    *nout = k;
    return LG_OK;
}

lg_err_t lg_groups_expand(const lg_groups_t *g, lg_program_t *prog, lg_layout_t *layout)
{
    for (size_t c = 0; c < layout->ncliques; c++) {
        lg_clique_t *cl = &layout->cliques[c];
        uint32_t *fns;
        size_t n;
        LG_CHECK(expand_list(g, prog, cl->fns, cl->nfns, false, &fns, &n));
        free(cl->fns);
        cl->fns = fns;
        cl->nfns = n;
    }
    uint32_t *cold, *excluded;
    size_t ncold, nexcluded;
    LG_CHECK(expand_list(g, prog, layout->cold, layout->ncold, true, &cold, &ncold));
    if (expand_list(g, prog, layout->excluded, layout->nexcluded, true, &excluded, &nexcluded) !=
        LG_OK) {
        free(cold);
        return LG_ENOMEM;
    }
    /* A group that stays put lists its never-executed members with the cold code. */
    uint32_t *grown = realloc(cold, (ncold + nexcluded + 1) * sizeof *cold);
    if (grown == NULL) {
        free(cold);
        free(excluded);
        return LG_ENOMEM;
    }
    cold = grown;
    size_t kept = 0;
    for (size_t i = 0; i < nexcluded; i++) {
        const lg_fn_t *f = &prog->fns[excluded[i]];
        if (f->hits == 0 && f->counter1_self == 0)
            cold[ncold++] = excluded[i];
        else
            excluded[kept++] = excluded[i];
    }
    nexcluded = kept;
    if (sort_list(prog, cold, ncold) != LG_OK) {
        free(cold);
        free(excluded);
        return LG_ENOMEM;
    }
    free(layout->cold);
    free(layout->excluded);
    layout->cold = cold;
    layout->ncold = ncold;
    layout->excluded = excluded;
    layout->nexcluded = nexcluded;
    /* The phase the optimizer chose for a lone function is the function's. */
    for (size_t u = 0; u < g->units.nfns; u++) {
        if (g->first[u + 1] - g->first[u] != 1)
            continue;
        lg_fn_t *f = &prog->fns[g->members[g->first[u]]];
        const lg_fn_t *unit = &g->units.fns[u];
        f->lead = unit->lead;
        f->align = unit->align;
        f->flags = (f->flags & ~(uint32_t)LG_FN_PHASED) | (unit->flags & LG_FN_PHASED);
    }
    return LG_OK;
}

void lg_groups_destroy(lg_groups_t *g)
{
    lg_program_destroy(&g->units);
    free(g->unit_of);
    free(g->first);
    free(g->members);
    free(g->offset);
    memset(g, 0, sizeof *g);
}
