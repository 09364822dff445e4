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
    free(p->jumps);
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

/* The place of the pair (x, y) in an array of n distinct pairs that index maps: *added when
 * the pair is new, and then its place is n. */
static lg_err_t pair_place(lg_intmap_t *index, uint32_t x, uint32_t y, size_t n, size_t *place,
                           bool *added)
{
    uint64_t *at = lg_intmap_find_or_add(index, lg_intmap_pair(x, y), n, added);
    if (at == NULL)
        return LG_ENOMEM;
    *place = (size_t)*at;
    return LG_OK;
}

/* The index is empty after lg_profile_finish_edges (or after memory ran out): merging makes the
 * array's pairs distinct again, then each gets its place. */
static lg_err_t reindex_edges(lg_profile_t *p)
{
    lg_intmap_destroy(&p->edge_index);
    lg_arcs_merge(p->edges, &p->nedges);
    for (size_t i = 0; i < p->nedges; i++) {
        size_t place;
        bool added;
        LG_CHECK(pair_place(&p->edge_index, p->edges[i].caller, p->edges[i].callee, i, &place,
                            &added));
    }
    return LG_OK;
}

static lg_err_t reindex_proximity(lg_profile_t *p)
{
    lg_intmap_destroy(&p->proximity_index);
    lg_pairs_merge(p->proximity, &p->nproximity);
    for (size_t i = 0; i < p->nproximity; i++) {
        size_t place;
        bool added;
        LG_CHECK(pair_place(&p->proximity_index, p->proximity[i].a, p->proximity[i].b, i, &place,
                            &added));
    }
    return LG_OK;
}

lg_err_t lg_profile_add_edge(lg_profile_t *p, uint32_t caller, uint32_t callee, uint64_t weight)
{
    if (caller >= p->nfuncs || callee >= p->nfuncs)
        return LG_EINVAL;
    if (p->edge_index.count != p->nedges)
        LG_CHECK(reindex_edges(p));
    /* Room first, so that a failure leaves the index and the array in step. */
    if (!lg_grow((void **)&p->edges, &p->edges_cap, p->nedges + 1, sizeof *p->edges))
        return LG_ENOMEM;
    size_t place;
    bool added;
    LG_CHECK(pair_place(&p->edge_index, caller, callee, p->nedges, &place, &added));
    if (added)
        p->edges[p->nedges++] = (lg_arc_t){caller, callee, weight};
    else
        p->edges[place].weight = lg_sat_add(p->edges[place].weight, weight);
    return LG_OK;
}

lg_err_t lg_profile_add_proximity(lg_profile_t *p, uint32_t a, uint32_t b, uint64_t weight)
{
    if (a >= p->nfuncs || b >= p->nfuncs || a == b)
        return LG_EINVAL;
    if (a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    if (p->proximity_index.count != p->nproximity)
        LG_CHECK(reindex_proximity(p));
    if (!lg_grow((void **)&p->proximity, &p->proximity_cap, p->nproximity + 1,
                 sizeof *p->proximity))
        return LG_ENOMEM;
    size_t place;
    bool added;
    LG_CHECK(pair_place(&p->proximity_index, a, b, p->nproximity, &place, &added));
    if (added)
        p->proximity[p->nproximity++] = (lg_pair_t){a, b, weight};
    else
        p->proximity[place].weight = lg_sat_add(p->proximity[place].weight, weight);
    return LG_OK;
}

void lg_profile_finish_edges(lg_profile_t *p)
{
    /* The indices go first, so that the sort's memory can reuse theirs. The pairs are distinct
     * already (unless memory ran out while indexing): the merge only sorts them. */
    lg_intmap_destroy(&p->edge_index);
    lg_intmap_destroy(&p->proximity_index);
    lg_arcs_merge(p->edges, &p->nedges);
    lg_pairs_merge(p->proximity, &p->nproximity);
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

lg_err_t lg_profile_add_jump(lg_profile_t *p, uint32_t func, uint64_t from, uint64_t to,
                             uint64_t count)
{
    if (func >= p->nfuncs)
        return LG_EINVAL;
    if (!lg_grow((void **)&p->jumps, &p->jumps_cap, p->njumps + 1, sizeof *p->jumps))
        return LG_ENOMEM;
    p->jumps[p->njumps++] = (lg_pjump_t){func, from, to, count};
    return LG_OK;
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

bool lg_profile_has_cost(const lg_profile_t *p)
{
    for (size_t i = 0; i < p->nfuncs; i++) {
        const lg_pfunc_t *f = &p->funcs[i];
        if (f->hits || f->counter1_total || f->counter1_self || f->counter2_total ||
            f->counter2_self)
            return true;
    }
    for (size_t i = 0; i < p->nedges; i++)
        if (p->edges[i].weight > 0)
            return true;
    for (size_t i = 0; i < p->nproximity; i++)
        if (p->proximity[i].weight > 0)
            return true;
    for (size_t i = 0; i < p->ncosts; i++)
        if (p->costs[i].cost > 0)
            return true;
    return false;
}
