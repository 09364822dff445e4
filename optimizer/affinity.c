/* affinity.c - temporal affinity per cache set (definitions in affinity.h). */
#include "affinity.h"

#include <stdlib.h>
#include <string.h>

/* Proximity pairs as a symmetric adjacency: the neighbours of f are nbr[first[f]..first[f+1]). */
struct lg_affinity {
    const lg_program_t *prog;
    uint32_t nsets;
    uint64_t line; /* bytes */
    size_t *first;
    uint32_t *nbr;
    double *weight;
    uint64_t *offset; /* per function: layout offset once placed, else UINT64_MAX */
};

lg_err_t lg_affinity_create(const lg_program_t *prog, uint32_t nsets, uint64_t line,
                            lg_affinity_t **out)
{
    *out = NULL;
    lg_affinity_t *a = calloc(1, sizeof *a);
    size_t n = prog->nfns, m = 2 * prog->nproximity;
    if (a == NULL)
        return LG_ENOMEM;
    a->prog = prog;
    a->nsets = nsets;
    a->line = line;
    a->first = calloc(n + 1, sizeof *a->first);
    a->nbr = malloc((m ? m : 1) * sizeof *a->nbr);
    a->weight = malloc((m ? m : 1) * sizeof *a->weight);
    a->offset = malloc((n ? n : 1) * sizeof *a->offset);
    size_t *fill = calloc(n ? n : 1, sizeof *fill);
    if (!a->first || !a->nbr || !a->weight || !a->offset || !fill) {
        free(fill);
        lg_affinity_destroy(a);
        return LG_ENOMEM;
    }
    for (size_t f = 0; f < n; f++)
        a->offset[f] = UINT64_MAX;
    for (size_t i = 0; i < prog->nproximity; i++) {
        a->first[prog->proximity[i].a + 1]++;
        a->first[prog->proximity[i].b + 1]++;
    }
    for (size_t f = 0; f < n; f++)
        a->first[f + 1] += a->first[f];
    for (size_t i = 0; i < prog->nproximity; i++) {
        const lg_pair_t *p = &prog->proximity[i];
        size_t at = a->first[p->a] + fill[p->a]++;
        a->nbr[at] = p->b;
        a->weight[at] = (double)p->weight;
        at = a->first[p->b] + fill[p->b]++;
        a->nbr[at] = p->a;
        a->weight[at] = (double)p->weight;
    }
    free(fill);
    *out = a;
    return LG_OK;
}

void lg_affinity_destroy(lg_affinity_t *a)
{
    if (a == NULL)
        return;
    free(a->first);
    free(a->nbr);
    free(a->weight);
    free(a->offset);
    free(a);
}

bool lg_affinity_has_pairs(const lg_affinity_t *a, uint32_t f)
{
    return a->first[f + 1] > a->first[f];
}

void lg_affinity_place(lg_affinity_t *a, uint32_t f, uint64_t offset)
{
    a->offset[f] = offset;
}

void lg_affinity_sets(const lg_affinity_t *a, uint32_t f, double *per_set)
{
    memset(per_set, 0, a->nsets * sizeof *per_set);
    for (size_t k = a->first[f]; k < a->first[f + 1]; k++) {
        uint32_t g = a->nbr[k];
        const lg_fn_t *fn = &a->prog->fns[g];
        if (a->offset[g] == UINT64_MAX || fn->size == 0)
            continue;
        uint64_t first = a->offset[g] / a->line;
        uint64_t lines = (a->offset[g] + fn->size - 1) / a->line - first + 1;
        if (lines > a->nsets)
            lines = a->nsets; /* every set once: a line more in a set is no more affinity */
        uint32_t s = (uint32_t)(first % a->nsets);
        for (uint64_t i = 0; i < lines; i++) {
            per_set[s] += a->weight[k];
            s = s + 1 == a->nsets ? 0 : s + 1;
        }
    }
}
