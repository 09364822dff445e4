/* report_model.c - the facts the report forms share; see report_model.h. */
#include "report_model.h"

#include "bind.h"
#include "estimate.h"
#include "groups.h"
#include "mem.h"
#include "prf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row with what its order compares: the symbols of its arc's caller and callee. */
typedef struct row_key {
    const char *caller, *callee;
    lg_report_row_t row;
} row_key_t;

/* Heaviest first, then by caller and callee symbol, then by caller and callee index. */
static int cmp_rows(const void *a, const void *b)
{
    const row_key_t *kx = a, *ky = b;
    const lg_arc_t *x = kx->row.arc, *y = ky->row.arc;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    int c = strcmp(kx->caller, ky->caller);
    if (c != 0)
        return c;
    c = strcmp(kx->callee, ky->callee);
    if (c != 0)
        return c;
    return x->caller != y->caller ? (x->caller < y->caller ? -1 : 1)
                                  : (x->callee < y->callee ? -1 : x->callee > y->callee);
}

lg_err_t lg_report_sort_rows(const lg_program_t *prog, lg_report_row_t *rows, size_t n, size_t k)
{
    if (k == 0 || n == 0)
        return LG_OK;
    row_key_t *keys = malloc(n * sizeof *keys);
    if (keys == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < n; i++)
        keys[i] = (row_key_t){prog->fns[rows[i].arc->caller].symbol,
                              prog->fns[rows[i].arc->callee].symbol, rows[i]};
    if (k >= n) {
        qsort(keys, n, sizeof *keys, cmp_rows);
    } else {
        /* A sorted window of the best k seen: a row worse than the window's last is rejected
         * with one comparison, so this is about O(n) for the few rows a report shows. */
        qsort(keys, k, sizeof *keys, cmp_rows);
        for (size_t i = k; i < n; i++) {
            if (cmp_rows(&keys[i], &keys[k - 1]) >= 0)
                continue;
            row_key_t key = keys[i];
            keys[i] = keys[k - 1];
            size_t j = k - 1;
            while (j > 0 && cmp_rows(&key, &keys[j - 1]) < 0) {
                keys[j] = keys[j - 1];
                j--;
            }
            keys[j] = key;
        }
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = keys[i].row;
    free(keys);
    return LG_OK;
}

uint64_t lg_report_rows_weight(const lg_report_row_t *rows, size_t n)
{
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w = lg_sat_add(w, rows[i].arc->weight);
    return w;
}

double lg_report_pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void lg_report_clique_offsets(const lg_program_t *prog, const lg_clique_t *cl, uint64_t *offsets)
{
    uint64_t end = 0;
    for (size_t i = 0; i < cl->nfns; i++) {
        const lg_fn_t *fn = &prog->fns[cl->fns[i]];
        offsets[i] =
            lg_start_after(end, fn->align, fn->lead); /* a phased one's code at its phase */
        end = offsets[i] + fn->size;
    }
}

void lg_report_write_phase(const lg_fn_t *fn, uint32_t line_size, FILE *out)
{
    if (fn->flags & LG_FN_PHASED)
        fprintf(out, " (phase +%" PRIu64 " in the %" PRIu32 "-byte line)", fn->lead, line_size);
}

/* True when a and b are members of one fixed group. */
static bool same_section(const lg_fn_t *a, const lg_fn_t *b)
{
    return lg_fn_in_group(a) && lg_fn_in_group(b) && strcmp(a->object, b->object) == 0 &&
           strcmp(a->section, b->section) == 0;
}

/* Sums the group's members and picks the one worth building apart. */
static lg_report_group_t group_of(const lg_program_t *prog, uint32_t clique,
                                  const uint32_t *members, size_t count)
{
    lg_report_group_t g = {.clique = clique, .members = members, .count = count,
                           .head = members[0], .separate = UINT32_MAX};
    uint32_t top = members[0];
    for (size_t k = 0; k < count; k++) {
        const lg_fn_t *f = &prog->fns[members[k]];
        g.bytes = lg_sat_add(g.bytes, f->size);
        g.hits = lg_sat_add(g.hits, f->hits);
        if (f->hits > 0 || f->counter1_self > 0)
            g.executed_bytes = lg_sat_add(g.executed_bytes, f->size);
        if (f->hits > prog->fns[top].hits)
            top = members[k];
    }
    const lg_fn_t *t = &prog->fns[top];
    if (count > 1 && g.hits > 0 &&
        (double)t->hits * 100.0 >= (double)g.hits * LG_REPORT_SEPARATE_PERCENT &&
        g.bytes - t->size >= t->size)
        g.separate = top;
    return g;
}

/* A staying member with what its order compares: object, section, then program index (section
 * order). */
typedef struct staying_key {
    const char *object, *section;
    uint32_t fn;
} staying_key_t;

static int cmp_staying(const void *pa, const void *pb)
{
    const staying_key_t *x = pa, *y = pb;
    int c = strcmp(x->object, y->object);
    if (c == 0)
        c = strcmp(x->section, y->section);
    return c != 0 ? c : (x->fn > y->fn) - (x->fn < y->fn);
}

/* Staying groups: most hits first, then first member. */
static int cmp_staying_groups(const void *pa, const void *pb)
{
    const lg_report_group_t *x = pa, *y = pb;
    if (x->hits != y->hits)
        return x->hits > y->hits ? -1 : 1;
    return (x->head > y->head) - (x->head < y->head);
}

lg_err_t lg_report_groups_build(const lg_program_t *prog, const lg_layout_t *layout,
                                lg_report_groups_t *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0; /* groups: at most one per clique member, then one per staying member */
    for (size_t c = 0; c < layout->ncliques; c++)
        cap += layout->cliques[c].nfns;
    bool *placed = calloc(prog->nfns ? prog->nfns : 1, sizeof *placed);
    out->staying = malloc((prog->nfns ? prog->nfns : 1) * sizeof *out->staying);
    out->v = malloc((cap + prog->nfns + 1) * sizeof *out->v);
    if (placed == NULL || out->staying == NULL || out->v == NULL) {
        free(placed);
        lg_report_groups_destroy(out);
        return LG_ENOMEM;
    }
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        for (size_t i = 0; i < cl->nfns; i++)
            placed[cl->fns[i]] = true;
        for (size_t i = 0; i < cl->nfns;) {
            size_t k = 1;
            const lg_fn_t *head = &prog->fns[cl->fns[i]];
            while (i + k < cl->nfns && same_section(&prog->fns[cl->fns[i + k]], head))
                k++;
            if (lg_fn_in_group(head))
                out->v[out->n++] = group_of(prog, (uint32_t)c, cl->fns + i, k);
            i += k;
        }
    }
    staying_key_t *keys = malloc((prog->nfns ? prog->nfns : 1) * sizeof *keys);
    if (keys == NULL) {
        free(placed);
        lg_report_groups_destroy(out);
        return LG_ENOMEM;
    }
    size_t nstaying = 0;
    for (size_t i = 0; i < prog->nfns; i++)
        if (!placed[i] && lg_fn_in_group(&prog->fns[i]))
            keys[nstaying++] =
                (staying_key_t){prog->fns[i].object, prog->fns[i].section, (uint32_t)i};
    free(placed);
    qsort(keys, nstaying, sizeof *keys, cmp_staying);
    for (size_t i = 0; i < nstaying; i++)
        out->staying[i] = keys[i].fn;
    free(keys);
    size_t moved = out->n;
    for (size_t i = 0; i < nstaying;) {
        size_t k = 1;
        while (i + k < nstaying &&
               same_section(&prog->fns[out->staying[i + k]], &prog->fns[out->staying[i]]))
            k++;
        lg_report_group_t g = group_of(prog, LG_REPORT_NO_CLIQUE, out->staying + i, k);
        if (k > 1 && g.hits > 0) /* a profiled member: what the list is for */
            out->v[out->n++] = g;
        i += k;
    }
    qsort(out->v + moved, out->n - moved, sizeof *out->v, cmp_staying_groups);
    return LG_OK;
}

const char *lg_report_group_stays_reason(const lg_program_t *prog, const lg_report_group_t *g)
{
    for (size_t k = 0; k < g->count; k++)
        if (prog->fns[g->members[k]].flags & LG_FN_EXCLUDED)
            return "excluded by --exclude or --include";
    if ((double)g->executed_bytes * 100.0 < (double)g->bytes * LG_GROUP_MIN_EXECUTED_PERCENT)
        return "mostly code that never ran: moving it would carry its cold bytes next to its "
               "callers";
    return "kept in its input order";
}

void lg_report_groups_destroy(lg_report_groups_t *g)
{
    free(g->v);
    free(g->staying);
    memset(g, 0, sizeof *g);
}

int lg_report_key_cmp(const void *a, const void *b)
{
    const lg_report_key_t *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->hits != y->hits)
        return x->hits > y->hits ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

void lg_report_members_by_weight(const lg_report_model_t *m, const lg_program_t *prog,
                                 const lg_clique_t *cl, lg_report_key_t *order)
{
    for (size_t i = 0; i < cl->nfns; i++) {
        const lg_fn_t *fn = &prog->fns[cl->fns[i]];
        order[i] = (lg_report_key_t){lg_report_fn_weight(m, fn), fn->hits, i};
    }
    qsort(order, cl->nfns, sizeof *order, lg_report_key_cmp);
}

/* Buckets every arc by the clique(s) it touches, in two passes: count, then fill. O(arcs). */
static lg_err_t bucket_rows(const lg_program_t *prog, size_t ncliques, lg_report_model_t *m)
{
    size_t slots = ncliques ? ncliques : 1;
    size_t *inside_fill = calloc(slots, sizeof *inside_fill);
    size_t *boundary_fill = calloc(slots, sizeof *boundary_fill);
    m->first = calloc(ncliques + 1, sizeof *m->first);
    m->ninside = calloc(slots, sizeof *m->ninside);
    m->rows = malloc((2 * prog->narcs + 1) * sizeof *m->rows);
    if (!inside_fill || !boundary_fill || !m->first || !m->ninside || !m->rows) {
        free(inside_fill);
        free(boundary_fill);
        return LG_ENOMEM;
    }
    const uint32_t *clique_of = m->clique_of;
    for (size_t i = 0; i < prog->narcs; i++) {
        uint32_t from = clique_of[prog->arcs[i].caller], to = clique_of[prog->arcs[i].callee];
        if (from != LG_REPORT_NO_CLIQUE)
            m->first[from + 1]++;
        if (to != LG_REPORT_NO_CLIQUE && to != from)
            m->first[to + 1]++;
        if (from != LG_REPORT_NO_CLIQUE && from == to)
            m->ninside[from]++;
    }
    for (size_t c = 0; c < ncliques; c++)
        m->first[c + 1] += m->first[c];
    /* Inside rows fill each slice from its start, boundary rows from after the inside ones. */
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        uint32_t from = clique_of[a->caller], to = clique_of[a->callee];
        if (from != LG_REPORT_NO_CLIQUE && from == to) {
            m->rows[m->first[from] + inside_fill[from]++] =
                (lg_report_row_t){a, LG_REPORT_NO_CLIQUE, true};
            continue;
        }
        if (from != LG_REPORT_NO_CLIQUE)
            m->rows[m->first[from] + m->ninside[from] + boundary_fill[from]++] =
                (lg_report_row_t){a, to, true};
        if (to != LG_REPORT_NO_CLIQUE)
            m->rows[m->first[to] + m->ninside[to] + boundary_fill[to]++] =
                (lg_report_row_t){a, from, false};
    }
    free(inside_fill);
    free(boundary_fill);
    return LG_OK;
}

uint64_t lg_report_fn_weight(const lg_report_model_t *m, const lg_fn_t *fn)
{
    return m->weight_is_cost ? fn->counter1_self : fn->hits;
}

double lg_report_unreplayed_pct(const lg_report_model_t *m)
{
    uint64_t all = m->profile_weight > m->bound_weight ? m->profile_weight : m->bound_weight;
    return lg_report_pct(all - m->bound_weight, all);
}

/* Names counter 1 of the profiles: the first unit a loader gave, else the .prf counter's name. */
static const char *cost_unit(const lg_report_input_t *in)
{
    for (size_t i = 0; i < in->nprofiles; i++) {
        const lg_profile_t *p = in->profiles[i].profile;
        if (p->counter1_unit != NULL)
            return p->counter1_unit;
        if (p->format != NULL && strcmp(p->format, "prf") == 0)
            return lg_prf_counter_name(p->counter1_kind);
    }
    return "counter 1";
}

/* Placement's weight (as optimizer/placement.c chooses it), its totals, and the share of the
 * profiles' weight that is bound, hence replayed by the estimate. O(functions + profile
 * functions). */
static void weigh(const lg_report_input_t *in, lg_report_model_t *m)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    for (size_t c = 0; c < layout->ncliques && !m->weight_is_cost; c++)
        for (size_t i = 0; i < layout->cliques[c].nfns; i++)
            if (prog->fns[layout->cliques[c].fns[i]].counter1_self > 0)
                m->weight_is_cost = true;
    m->weight_unit = m->weight_is_cost ? cost_unit(in) : "hits";
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        for (size_t i = 0; i < cl->nfns; i++)
            m->clique_weight[c] =
                lg_sat_add(m->clique_weight[c], lg_report_fn_weight(m, &prog->fns[cl->fns[i]]));
        m->total_weight = lg_sat_add(m->total_weight, m->clique_weight[c]);
    }
    for (size_t i = 0; i < prog->nfns; i++)
        m->bound_weight = lg_sat_add(m->bound_weight, lg_report_fn_weight(m, &prog->fns[i]));
    if (!m->weight_is_cost) {
        /* Hits of unbound functions are kept, scaled, in the program. */
        m->profile_weight = m->bound_weight;
        for (size_t i = 0; i < prog->nunbound; i++)
            m->profile_weight = lg_sat_add(m->profile_weight, prog->unbound[i].hits);
        return;
    }
    /* Binding summed the profiles' scaled self cost, bound or not (program.h). */
    m->profile_weight = prog->profile_cost;
}

const char *lg_report_weight_clause(const lg_report_input_t *in, const lg_report_model_t *m)
{
    if (m->weight_is_cost)
        return ", the profiles' self cost (counter 1), as placement uses it";
    if (in->prog->profile_cost > 0)
        return " (no function of the cliques has a self cost: the fast regions took them)";
    return " (the profiles give no self cost)";
}

lg_err_t lg_report_model_build(const lg_report_input_t *in, lg_report_model_t *m)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    const lg_geometry_t *g = &layout->geometry;
    memset(m, 0, sizeof *m);
    m->sets = g->line_size && g->ways ? g->cache_size / g->line_size / g->ways : 0;
    m->clique_of = malloc((prog->nfns ? prog->nfns : 1) * sizeof *m->clique_of);
    m->clique_weight = calloc(layout->ncliques ? layout->ncliques : 1, sizeof *m->clique_weight);
    if (m->clique_of == NULL || m->clique_weight == NULL) {
        lg_report_model_destroy(m);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < prog->nfns; i++)
        m->clique_of[i] = LG_REPORT_NO_CLIQUE;
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        for (size_t i = 0; i < cl->nfns; i++)
            m->clique_of[cl->fns[i]] = (uint32_t)c;
        m->total_hits = lg_sat_add(m->total_hits, cl->hits);
        m->all_bytes = lg_sat_add(m->all_bytes, cl->bytes);
        if (cl->flags & LG_CLIQUE_FILLER) {
            m->filler_fns += cl->nfns;
        } else {
            m->hot_bytes = lg_sat_add(m->hot_bytes, cl->bytes);
            m->hot_fns += cl->nfns;
        }
    }
    weigh(in, m);
    lg_err_t err = bucket_rows(prog, layout->ncliques, m);
    if (err != LG_OK)
        lg_report_model_destroy(m);
    return err;
}

void lg_report_model_destroy(lg_report_model_t *m)
{
    free(m->clique_of);
    free(m->clique_weight);
    free(m->rows);
    free(m->first);
    free(m->ninside);
    memset(m, 0, sizeof *m);
}

lg_err_t lg_report_addresses(const lg_report_input_t *in, uint64_t **before, uint64_t **after,
                             lg_diag_t *d)
{
    const lg_program_t *prog = in->prog;
    size_t n = prog->nfns ? prog->nfns : 1;
    *before = malloc(n * sizeof **before);
    *after = malloc(n * sizeof **after);
    lg_err_t err = *before && *after ? LG_OK : LG_ENOMEM;
    /* Objects only: no current addresses, and no reason to complain about it here. */
    if (err == LG_OK && lg_addresses_from_elf(prog, *before, NULL) != LG_OK) {
        free(*before);
        *before = NULL;
    }
    if (err == LG_OK)
        err = lg_addresses_from_layout(prog, in->layout, lg_addresses_text_base(prog), *after, d);
    if (err != LG_OK) {
        free(*before);
        free(*after);
        *before = *after = NULL;
    }
    return err;
}

lg_err_t lg_report_write_with(const lg_report_input_t *in, lg_report_writer_t write, FILE *out,
                              lg_diag_t *d)
{
    lg_report_model_t m;
    LG_CHECK(lg_report_model_build(in, &m));
    uint64_t *before = NULL, *after = NULL;
    lg_err_t err = lg_report_addresses(in, &before, &after, d);
    if (err == LG_OK)
        err = write(in, &m, before, after, out, d);
    free(before);
    free(after);
    lg_report_model_destroy(&m);
    if (err == LG_OK && ferror(out))
        err = LG_EIO;
    return err;
}
