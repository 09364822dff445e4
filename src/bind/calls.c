/* calls.c - one profile's calls as the build being ordered makes them (rules in calls.h).
 *
 * Steps, per profile:
 *   1. group the profile's in-arcs by callee (counting sort) and sum their weights;
 *   2. on machines whose branches cannot be told from taken addresses, mark the functions the
 *      profile suggests are called through a pointer: some function that ran refers to it in
 *      its code but never called it, so calls into it without a reference may be indirect;
 *   3. the inlined share r of every function, and the bound functions' hits scaled by 1 - r;
 *   4. each arc this build makes: (1 - r(caller)) of it as is, r(caller) of it spread over the
 *      callers the caller was inlined into.
 */
#include "calls.h"

#include "mem.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct calls_ctx {
    lg_program_t *prog;
    const lg_profile_t *prof;
    const int64_t *map;
    size_t *arcs_cap;
    double scale;
    size_t *in_first;   /* per function: its in-arcs are in_arcs[in_first[f]..in_first[f+1]) */
    uint32_t *in_arcs;  /* indexes into prof->edges, grouped by callee, self arcs left out */
    double *in_total;   /* per function: weight of its in-arcs */
    double *in_inlined; /* per function: weight of its inlined in-arcs */
    double *share;      /* per function: r, the inlined share of its calls */
    bool *by_pointer;   /* per family: may be called through a pointer (step 2) */
    bool use_refs;      /* the objects' references decide (false: only absent is inlined) */
    double *credit;     /* per credited (caller, callee) pair: weight */
    lg_arc_t *pairs;    /* the pairs credit[] belongs to */
    size_t npairs, pairs_cap;
    size_t steps;
    bool truncated;
} calls_ctx_t;

/* v rounded to a count, never past UINT64_MAX (a double holds UINT64_MAX as 2^64, which does
 * not convert back). Parts of counts are lg_scale_count's (mem.h). */
static uint64_t count_of(double v)
{
    double r = nearbyint(v);
    return r >= 18446744073709551615.0 ? UINT64_MAX : r <= 0.0 ? 0 : (uint64_t)r;
}

static int cmp_arc(const void *a, const void *b)
{
    const lg_arc_t *x = a, *y = b;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    return (x->callee > y->callee) - (x->callee < y->callee);
}

/* True when the sorted, unique list holds caller -> callee. */
static bool has_arc(const lg_arc_t *arcs, size_t n, uint32_t caller, uint32_t callee)
{
    lg_arc_t key = {caller, callee, 0};
    return n > 0 && bsearch(&key, arcs, n, sizeof *arcs, cmp_arc) != NULL;
}

/* True when the compiler could have inlined b into a: b's code was in a's translation unit.
 * Without link-time optimisation a compiler inlines only what its translation unit defines: a
 * function of the same object file, or a weak copy of a header's inline function that every
 * object using it may hold. A call into another object's function that the caller's code does
 * not name was redirected by the linker or the loader (--wrap, symbol versions, --defsym, an
 * IFUNC's implementation, an alias), and it runs out of line all the same. */
static bool same_translation_unit(const lg_fn_t *a, const lg_fn_t *b)
{
    if (b->flags & LG_FN_WEAK)
        return true;
    return a->object != NULL && b->object != NULL && strcmp(a->object, b->object) == 0;
}

/* The definition of "inlined arc" in calls.h. */
static bool arc_inlined(const calls_ctx_t *x, const lg_arc_t *e)
{
    int64_t a = x->map[e->caller], b = x->map[e->callee];
    if (b == LG_BIND_ABSENT)
        return true;
    if (!x->use_refs || a < 0 || b < 0)
        return false;
    const lg_program_t *p = x->prog;
    uint32_t fa = p->fns[a].family, fb = p->fns[b].family;
    return fa != fb && (p->fns[a].flags & LG_FN_REFS_KNOWN) &&
           same_translation_unit(&p->fns[a], &p->fns[b]) &&
           !(p->fns[b].flags & LG_FN_ADDRESS_TAKEN) && !x->by_pointer[fb] &&
           !has_arc(p->refs, p->nrefs, fa, fb);
}

static lg_err_t push_arc(calls_ctx_t *x, int64_t from, int64_t to, uint64_t weight)
{
    lg_program_t *p = x->prog;
    if (weight == 0)
        return LG_OK;
    if (!lg_grow((void **)&p->arcs, x->arcs_cap, p->narcs + 1, sizeof *p->arcs))
        return LG_ENOMEM;
    p->arcs[p->narcs++] = (lg_arc_t){(uint32_t)from, (uint32_t)to, weight};
    return LG_OK;
}

static lg_err_t credit_pair(calls_ctx_t *x, int64_t from, int64_t to, double weight)
{
    if (weight <= 0.0)
        return LG_OK;
    size_t cap = x->pairs_cap;
    if (!lg_grow((void **)&x->pairs, &x->pairs_cap, x->npairs + 1, sizeof *x->pairs))
        return LG_ENOMEM;
    if (!lg_grow((void **)&x->credit, &cap, x->npairs + 1, sizeof *x->credit))
        return LG_ENOMEM;
    x->pairs[x->npairs] = (lg_arc_t){(uint32_t)from, (uint32_t)to, 0};
    x->credit[x->npairs++] = weight;
    return LG_OK;
}

/* A call to callee of the given weight, made by the inlined copies of profile function f:
 * each caller f was inlined into gets a part in proportion to how often it called f; what
 * falls into a caller's own inlined copies goes further up. */
static lg_err_t spread_call(calls_ctx_t *x, uint32_t f, int64_t callee, double weight,
                            unsigned depth)
{
    if (x->in_inlined[f] <= 0.0)
        return LG_OK; /* nobody called it: nothing to credit */
    for (size_t k = x->in_first[f]; k < x->in_first[f + 1]; k++) {
        if (++x->steps > LG_INLINE_MAX_STEPS) {
            x->truncated = true;
            return LG_OK;
        }
        const lg_arc_t *e = &x->prof->edges[x->in_arcs[k]];
        if (!arc_inlined(x, e))
            continue;
        double part = weight * (double)e->weight / x->in_inlined[f];
        int64_t caller = x->map[e->caller];
        double up = caller >= 0 ? x->share[e->caller] : caller == LG_BIND_ABSENT ? 1.0 : 0.0;
        if (caller >= 0)
            LG_CHECK(credit_pair(x, caller, callee, part * (1.0 - up)));
        if (up > 0.0 && depth + 1 < LG_INLINE_MAX_DEPTH)
            LG_CHECK(spread_call(x, e->caller, callee, part * up, depth + 1));
    }
    return LG_OK;
}

/* Step 1. */
static lg_err_t group_in_arcs(calls_ctx_t *x)
{
    const lg_profile_t *prof = x->prof;
    size_t n = prof->nfuncs;
    size_t *fill = calloc(n ? n : 1, sizeof *fill);
    if (fill == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prof->nedges; i++)
        if (prof->edges[i].caller != prof->edges[i].callee)
            x->in_first[prof->edges[i].callee + 1]++;
    for (size_t f = 0; f < n; f++)
        x->in_first[f + 1] += x->in_first[f];
    for (size_t i = 0; i < prof->nedges; i++) {
        const lg_arc_t *e = &prof->edges[i];
        if (e->caller == e->callee)
            continue;
        x->in_arcs[x->in_first[e->callee] + fill[e->callee]++] = (uint32_t)i;
        x->in_total[e->callee] += (double)e->weight;
    }
    free(fill);
    return LG_OK;
}

/* Step 2: where the objects do not say whether code calls a function or takes its address
 * (lg_program_t.refs of weight > 0), a reference from a family that ran to one it never called
 * is most likely a taken address. */
static lg_err_t mark_called_by_pointer(calls_ctx_t *x)
{
    const lg_profile_t *prof = x->prof;
    const lg_program_t *p = x->prog;
    if (p->nrefs == 0)
        return LG_OK;
    bool *ran = calloc(p->nfns ? p->nfns : 1, sizeof *ran);
    lg_arc_t *called = malloc((prof->nedges ? prof->nedges : 1) * sizeof *called);
    if (ran == NULL || called == NULL) {
        free(ran);
        free(called);
        return LG_ENOMEM;
    }
    /* Both per family, as the references are. */
    for (size_t i = 0; i < prof->nfuncs; i++)
        if (x->map[i] >= 0 && prof->funcs[i].hits > 0)
            ran[p->fns[x->map[i]].family] = true;
    size_t ncalled = 0;
    for (size_t i = 0; i < prof->nedges; i++) {
        int64_t a = x->map[prof->edges[i].caller], b = x->map[prof->edges[i].callee];
        if (a >= 0 && b >= 0) {
            uint32_t fa = p->fns[a].family;
            ran[fa] = true;
            called[ncalled++] = (lg_arc_t){fa, p->fns[b].family, 0};
        }
    }
    qsort(called, ncalled, sizeof *called, cmp_arc);
    for (size_t i = 0; i < p->nrefs; i++) {
        const lg_arc_t *r = &p->refs[i];
        if (r->weight > 0 && ran[r->caller] && !has_arc(called, ncalled, r->caller, r->callee))
            x->by_pointer[r->callee] = true;
    }
    free(ran);
    free(called);
    return LG_OK;
}

/* Step 3a: the weight of the inlined in-arcs of every function; false when the references
 * contradict the profile (more than LG_INLINE_MAX_PERCENT of its arcs between bound functions
 * would be inlined). Arcs, not weight: one hot loop's inlined call may be most of a small
 * program's calls, but a build inlines a minority of the call sites an instrumented build
 * reports. */
static bool count_inlined(calls_ctx_t *x, lg_calls_stats_t *counted)
{
    const lg_profile_t *prof = x->prof;
    memset(counted, 0, sizeof *counted);
    memset(x->in_inlined, 0, (prof->nfuncs ? prof->nfuncs : 1) * sizeof *x->in_inlined);
    for (size_t i = 0; i < prof->nedges; i++) {
        const lg_arc_t *e = &prof->edges[i];
        if (e->caller == e->callee)
            continue;
        counted->total_weight = lg_sat_add(counted->total_weight, e->weight);
        if (x->map[e->caller] >= 0 && x->map[e->callee] >= 0)
            counted->bound_edges++; /* distinct: a profile's arcs are unique */
        if (!arc_inlined(x, e))
            continue;
        x->in_inlined[e->callee] += (double)e->weight;
        if (x->map[e->callee] >= 0) {
            counted->inlined_edges++;
            counted->inlined_weight = lg_sat_add(counted->inlined_weight, e->weight);
        }
    }
    return (double)counted->inlined_edges * 100.0 <=
           (double)counted->bound_edges * LG_INLINE_MAX_PERCENT;
}

/* Step 3b. */
static void inlined_shares(calls_ctx_t *x, lg_calls_stats_t *st, lg_diag_t *d)
{
    const lg_profile_t *prof = x->prof;
    lg_calls_stats_t counted;
    if (!count_inlined(x, &counted)) {
        lg_diag_add(d, LG_WARNING, prof->path ? prof->path : "",
                    "%llu of the profile's call arcs between functions of the ELF would be calls "
                    "this build inlined (the caller's code does not refer to the callee): more "
                    "than %.0f%%, so the profile does not match these objects' code (another "
                    "program or build?), and every call is taken as made",
                    (unsigned long long)counted.inlined_edges, LG_INLINE_MAX_PERCENT);
        x->use_refs = false;
        count_inlined(x, &counted);
    }
    st->total_weight = lg_sat_add(st->total_weight, counted.total_weight);
    st->inlined_edges += counted.inlined_edges;
    st->bound_edges += counted.bound_edges;
    st->inlined_weight = lg_sat_add(st->inlined_weight, counted.inlined_weight);
    uint64_t total_hits = 0, cold_hits = 0, hottest_hits = 0;
    size_t cold = 0, hottest = SIZE_MAX;
    for (size_t f = 0; f < prof->nfuncs; f++)
        total_hits = lg_sat_add(total_hits, prof->funcs[f].hits);
    for (size_t f = 0; f < prof->nfuncs; f++) {
        int64_t fn = x->map[f];
        if (fn == LG_BIND_ABSENT) {
            x->share[f] = 1.0;
            continue;
        }
        x->share[f] = fn >= 0 && x->in_total[f] > 0.0 ? x->in_inlined[f] / x->in_total[f] : 0.0;
        if (fn < 0 || x->share[f] <= 0.0)
            continue;
        /* The profile's figures were added to the function as read; take the inlined part. */
        const lg_pfunc_t *pf = &prof->funcs[f];
        lg_fn_t *g = &x->prog->fns[fn];
        uint64_t hits = lg_scale_count(lg_scale_count(pf->hits, x->scale), x->share[f]);
        uint64_t c1 = lg_scale_count(lg_scale_count(pf->counter1_self, x->scale), x->share[f]);
        uint64_t c2 = lg_scale_count(lg_scale_count(pf->counter2_self, x->scale), x->share[f]);
        g->hits -= hits < g->hits ? hits : g->hits;
        g->counter1_self -= c1 < g->counter1_self ? c1 : g->counter1_self;
        g->counter2_self -= c2 < g->counter2_self ? c2 : g->counter2_self;
        st->hits_removed = lg_sat_add(st->hits_removed, hits);
        st->inlined_functions++;
        if (x->share[f] >= 1.0 && pf->hits > 0) {
            cold++;
            cold_hits = lg_sat_add(cold_hits, pf->hits);
            if (pf->hits > hottest_hits) {
                hottest_hits = pf->hits;
                hottest = f;
            }
        }
    }
    if (hottest != SIZE_MAX &&
        (double)cold_hits * 100.0 >= (double)total_hits * LG_INLINED_NOTE_PERCENT) {
        const lg_pfunc_t *h = &prof->funcs[hottest];
        lg_diag_add(d, LG_NOTE, prof->path ? prof->path : "",
                    "%zu function(s) with %.1f%% of the profile's hits (%llu of %llu) go among "
                    "the never-executed code: this build has them out of line, but every "
                    "profiled call to them comes from code of their own object that does not "
                    "call them, so they are taken as inlined there; the hottest '%s' (%llu "
                    "hits) in %s. If that build calls it (through a pointer or a redirection "
                    "lorgen does not know), give no object files to take every call as made",
                    cold, 100.0 * (double)cold_hits / (double)total_hits,
                    (unsigned long long)cold_hits, (unsigned long long)total_hits,
                    h->name ? h->name : "?", (unsigned long long)hottest_hits,
                    x->prog->fns[x->map[hottest]].object ? x->prog->fns[x->map[hottest]].object
                                                         : "the program");
    }
}

/* Step 4. */
static lg_err_t add_calls(calls_ctx_t *x, lg_calls_stats_t *st)
{
    const lg_profile_t *prof = x->prof;
    for (size_t i = 0; i < prof->nedges; i++) {
        const lg_arc_t *e = &prof->edges[i];
        int64_t a = x->map[e->caller], b = x->map[e->callee];
        if (a < 0 || b < 0) {
            st->unbound_edges++;
            st->unbound_weight = lg_sat_add(st->unbound_weight, e->weight);
        }
        if (b < 0 || (e->caller != e->callee && arc_inlined(x, e)))
            continue;
        double out_of_line = a >= 0 ? 1.0 - x->share[e->caller] : 0.0;
        if (a >= 0)
            LG_CHECK(push_arc(x, a, b,
                              lg_scale_count(lg_scale_count(e->weight, x->scale), out_of_line)));
        if (e->caller != e->callee && x->share[e->caller] > 0.0)
            LG_CHECK(spread_call(x, e->caller, b, (double)e->weight * x->share[e->caller], 0));
    }
    for (size_t i = 0; i < x->npairs; i++) {
        if (x->pairs[i].caller == x->pairs[i].callee)
            continue; /* a function reaching itself through inlined code: no placement value */
        uint64_t w = lg_scale_count(count_of(x->credit[i]), x->scale);
        LG_CHECK(push_arc(x, x->pairs[i].caller, x->pairs[i].callee, w));
        st->credited = lg_sat_add(st->credited, w);
    }
    return LG_OK;
}

lg_err_t lg_bind_calls(lg_program_t *p, size_t *arcs_cap, const lg_profile_t *prof,
                       const int64_t *map, double scale, lg_calls_stats_t *st, lg_diag_t *d)
{
    size_t n = prof->nfuncs ? prof->nfuncs : 1;
    calls_ctx_t x = {.prog = p,
                     .prof = prof,
                     .map = map,
                     .arcs_cap = arcs_cap,
                     .scale = scale,
                     .use_refs = true};
    x.in_first = calloc(n + 1, sizeof *x.in_first);
    x.in_arcs = malloc((prof->nedges ? prof->nedges : 1) * sizeof *x.in_arcs);
    x.in_total = calloc(n, sizeof *x.in_total);
    x.in_inlined = calloc(n, sizeof *x.in_inlined);
    x.share = calloc(n, sizeof *x.share);
    x.by_pointer = calloc(p->nfns ? p->nfns : 1, sizeof *x.by_pointer);
    lg_err_t err = x.in_first && x.in_arcs && x.in_total && x.in_inlined && x.share && x.by_pointer
                       ? LG_OK
                       : LG_ENOMEM;
    if (err == LG_OK)
        err = group_in_arcs(&x);
    if (err == LG_OK)
        err = mark_called_by_pointer(&x);
    if (err == LG_OK) {
        inlined_shares(&x, st, d);
        err = add_calls(&x, st);
    }
    if (err == LG_OK && x.truncated)
        lg_diag_add(d, LG_WARNING, prof->path ? prof->path : "",
                    "crediting the calls of inlined functions stopped after %u steps; the rest "
                    "are left out",
                    LG_INLINE_MAX_STEPS);
    free(x.in_first);
    free(x.in_arcs);
    free(x.in_total);
    free(x.in_inlined);
    free(x.share);
    free(x.by_pointer);
    free(x.credit);
    free(x.pairs);
    return err;
}
