/* profile.c - the profile model: functions, counters and call edges read from one file. */
#include "profile.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

void lg_profile_init(lg_profile_t *p)
{
    memset(p, 0, sizeof *p);
    lg_strmap_init(&p->by_name);
}

void lg_profile_destroy(lg_profile_t *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->nfuncs; i++) {
        free(p->funcs[i].name);
        free(p->funcs[i].link_label);
        free(p->funcs[i].qual_name);
        free(p->funcs[i].object);
    }
    free(p->funcs);
    free(p->edges);
    free(p->proximity);
    lg_intmap_destroy(&p->edge_index);
    lg_intmap_destroy(&p->proximity_index);
    free(p->costs);
    free(p->next_same_name);
    free(p->path);
    lg_strmap_destroy(&p->by_name);
    memset(p, 0, sizeof *p);
}

lg_err_t lg_profile_set_path(lg_profile_t *p, const char *path)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return LG_ENOMEM;
    free(p->path);
    p->path = copy;
    return LG_OK;
}

lg_err_t lg_profile_add_func(lg_profile_t *p, const lg_pfunc_t *f, uint32_t *id)
{
    if (p->nfuncs >= LG_PROFILE_MAX_FUNCS)
        return LG_ELIMIT;
    size_t old_cap = p->funcs_cap;
    if (!lg_grow((void **)&p->funcs, &p->funcs_cap, p->nfuncs + 1, sizeof *p->funcs))
        return LG_ENOMEM;
    if (p->funcs_cap != old_cap) {
        /* next_same_name always has the capacity of funcs. */
        size_t cap = old_cap;
        if (!lg_grow((void **)&p->next_same_name, &cap, p->funcs_cap, sizeof(uint32_t)))
            return LG_ENOMEM;
    }
    bool ok = true;
    lg_pfunc_t copy = *f;
    copy.name = lg_strdup_opt(f->name, &ok);
    copy.link_label = (f->link_label && *f->link_label) ? lg_strdup_opt(f->link_label, &ok) : NULL;
    copy.qual_name = (f->qual_name && *f->qual_name) ? lg_strdup_opt(f->qual_name, &ok) : NULL;
    copy.object = (f->object && *f->object) ? lg_strdup_opt(f->object, &ok) : NULL;
    if (!ok || copy.name == NULL) {
        free(copy.name);
        free(copy.link_label);
        free(copy.qual_name);
        free(copy.object);
        return LG_ENOMEM;
    }
    uint32_t index = (uint32_t)p->nfuncs;
    /* by_name borrows the key from funcs[], which is stable only per element: the array may move,
     * but the string it points to does not. */
    uint32_t first;
    if (!lg_strmap_put(&p->by_name, copy.name, index, &first)) {
        free(copy.name);
        free(copy.link_label);
        free(copy.qual_name);
        free(copy.object);
        return LG_ENOMEM;
    }
    lg_chain_append(p->next_same_name, first, index);
    p->funcs[p->nfuncs++] = copy;
    if (id != NULL)
        *id = index;
    return LG_OK;
}

static bool same_opt(const char *a, const char *b)
{
    if (a == NULL || *a == '\0')
        return b == NULL || *b == '\0';
    return b != NULL && strcmp(a, b) == 0;
}

int64_t lg_profile_find(const lg_profile_t *p, const char *name, const char *link_label,
                        const char *qual_name)
{
    uint32_t first;
    if (name == NULL || !lg_strmap_get(&p->by_name, name, &first))
        return -1;
    for (uint32_t i = first; i != UINT32_MAX; i = p->next_same_name[i]) {
        const lg_pfunc_t *f = &p->funcs[i];
        if (same_opt(f->link_label, link_label) && same_opt(f->qual_name, qual_name))
            return (int64_t)i;
    }
    return -1;
}

/* Rebuilds index over calls[0..*n), summing repeated pairs into the first (saturating) and
 * closing the gaps: the index is empty after lg_profile_finish_edges, or after memory ran out. On
 * failure the calls hold the same sums, partly unmerged, and the index stays empty. */
static lg_err_t reindex(lg_call_t *calls, size_t *n, lg_intmap_t *index)
{
    lg_intmap_destroy(index);
    size_t out = 0;
    for (size_t i = 0; i < *n; i++) {
        bool added;
        uint64_t *at = lg_intmap_find_or_add(index, lg_intmap_pair(calls[i].caller, calls[i].callee),
                                             out, &added);
        if (at == NULL) {
            memmove(calls + out, calls + i, (*n - i) * sizeof *calls);
            *n = out + (*n - i);
            lg_intmap_destroy(index);
            return LG_ENOMEM;
        }
        if (added)
            calls[out++] = calls[i];
        else
            calls[*at].weight = lg_sat_add(calls[*at].weight, calls[i].weight);
    }
    *n = out;
    return LG_OK;
}

/* Sums weight into the pair (a, b) of calls, adding it when new; index maps pairs to places. */
static lg_err_t add_pair(lg_call_t **calls, size_t *n, size_t *cap, lg_intmap_t *index, uint32_t a,
                         uint32_t b, uint64_t weight)
{
    if (index->count != *n)
        LG_CHECK(reindex(*calls, n, index));
    /* Room first, so that a failure leaves the index and the calls in step. */
    if (!lg_grow((void **)calls, cap, *n + 1, sizeof **calls))
        return LG_ENOMEM;
    bool added;
    uint64_t *at = lg_intmap_find_or_add(index, lg_intmap_pair(a, b), *n, &added);
    if (at == NULL)
        return LG_ENOMEM;
    if (added)
        (*calls)[(*n)++] = (lg_call_t){a, b, weight};
    else
        (*calls)[*at].weight = lg_sat_add((*calls)[*at].weight, weight);
    return LG_OK;
}

lg_err_t lg_profile_add_edge(lg_profile_t *p, uint32_t caller, uint32_t callee, uint64_t weight)
{
    if (caller >= p->nfuncs || callee >= p->nfuncs)
        return LG_EINVAL;
    return add_pair(&p->edges, &p->nedges, &p->edges_cap, &p->edge_index, caller, callee, weight);
}

lg_err_t lg_profile_add_proximity(lg_profile_t *p, uint32_t a, uint32_t b, uint64_t weight)
{
    if (a >= p->nfuncs || b >= p->nfuncs || a == b)
        return LG_EINVAL;
    return add_pair(&p->proximity, &p->nproximity, &p->proximity_cap, &p->proximity_index,
                    a < b ? a : b, a < b ? b : a, weight);
}

void lg_profile_finish_edges(lg_profile_t *p)
{
    /* The indices go first, so that the sort's memory can reuse theirs. The pairs are unique
     * already (unless memory ran out while indexing): the merge only sorts them. */
    lg_intmap_destroy(&p->edge_index);
    lg_intmap_destroy(&p->proximity_index);
    lg_calls_merge(p->edges, &p->nedges);
    lg_calls_merge(p->proximity, &p->nproximity);
}

lg_err_t lg_profile_intern(lg_profile_t *p, const char *name, const char *link_label,
                           const char *qual_name, uint32_t *id)
{
    int64_t found = lg_profile_find(p, name, link_label, qual_name);
    if (found >= 0) {
        *id = (uint32_t)found;
        return LG_OK;
    }
    lg_pfunc_t f = {.name = (char *)name, .link_label = (char *)link_label,
                    .qual_name = (char *)qual_name};
    return lg_profile_add_func(p, &f, id);
}

lg_err_t lg_profile_set_object(lg_profile_t *p, uint32_t id, const char *object)
{
    if (id >= p->nfuncs)
        return LG_EINVAL;
    if (object == NULL || *object == '\0' || p->funcs[id].object != NULL)
        return LG_OK;
    p->funcs[id].object = strdup(object);
    return p->funcs[id].object != NULL ? LG_OK : LG_ENOMEM;
}

lg_err_t lg_profile_add_cost(lg_profile_t *p, uint32_t func, uint64_t position, uint64_t cost)
{
    if (func >= p->nfuncs)
        return LG_EINVAL;
    if (!lg_grow((void **)&p->costs, &p->costs_cap, p->ncosts + 1, sizeof *p->costs))
        return LG_ENOMEM;
    p->costs[p->ncosts++] = (lg_pcost_t){func, position, cost};
    return LG_OK;
}
