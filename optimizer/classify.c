/* classify.c - cold, excluded and candidate functions, in rank order (definitions in
 * classify.h). The rules are those of optimizer/clique.c: a function is executed when it has
 * hits or a weighted arc in or out, and movable when it has bytes and a section of its own. */
#include "classify.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

uint64_t lg_padded_size(const lg_fn_t *f)
{
    /* A phased function's lead is padding it brings with it wherever it goes: count it. */
    uint64_t span = f->lead > UINT64_MAX - f->size ? UINT64_MAX : lg_fn_span(f);
    if (f->align <= LG_ALIGN_NO_PADDING)
        return span;
    uint64_t rem = span % f->align;
    if (rem == 0)
        return span;
    uint64_t add = f->align - rem;
    return span > UINT64_MAX - add ? UINT64_MAX : span + add;
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* The functions of class cls into a new array of count entries, in rank order. */
static bool list_class(const lg_program_t *p, const uint8_t *cls, uint8_t want, size_t count,
                       uint32_t **out)
{
    *out = NULL;
    if (count == 0)
        return true;
    uint64_t *keys = malloc(count * sizeof *keys);
    uint32_t *list = malloc(count * sizeof *list);
    if (keys == NULL || list == NULL) {
        free(keys);
        free(list);
        return false;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < p->nfns && n < count; i++)
        if (cls[i] == want)
            keys[n++] = lg_rank_key(p, i);
    qsort(keys, n, sizeof *keys, u64_cmp);
    for (size_t i = 0; i < n; i++)
        list[i] = lg_rank_index(keys[i]);
    free(keys);
    *out = list;
    return true;
}

lg_err_t lg_classify(const lg_program_t *prog, const lg_callgraph_t *cg, lg_classes_t *out,
                     const char *where, lg_diag_t *d)
{
    memset(out, 0, sizeof *out);
    size_t n = prog->nfns ? prog->nfns : 1; /* calloc(0) may return NULL */
    out->cls = calloc(n, sizeof *out->cls);
    out->padded = calloc(n, sizeof *out->padded);
    if (out->cls == NULL || out->padded == NULL)
        goto nomem;
    /* lg_cg_new accepted prog, so nfns <= UINT32_MAX. */
    for (uint32_t i = 0; i < prog->nfns; i++) {
        const lg_fn_t *f = &prog->fns[i];
        bool executed = f->hits > 0 || lg_cg_out_weight(cg, i) > 0 || lg_cg_in_weight(cg, i) > 0;
        if (!executed) {
            out->cls[i] = LG_CLASS_COLD;
            out->ncold++;
        } else if (!lg_fn_movable(f)) {
            /* Nothing to place, a section shared with others, or a section we do not know. */
            out->cls[i] = LG_CLASS_EXCLUDED;
            out->nexcluded++;
        } else {
            out->cls[i] = LG_CLASS_CANDIDATE;
            out->padded[i] = lg_padded_size(f);
            out->ncandidates++;
        }
    }
    if (!list_class(prog, out->cls, LG_CLASS_CANDIDATE, out->ncandidates, &out->candidates) ||
        !list_class(prog, out->cls, LG_CLASS_COLD, out->ncold, &out->cold) ||
        !list_class(prog, out->cls, LG_CLASS_EXCLUDED, out->nexcluded, &out->excluded))
        goto nomem;
    return LG_OK;
nomem:
    return lg_diag_fail(d, LG_ENOMEM, where, "out of memory classifying %zu functions", prog->nfns);
}

void lg_classes_destroy(lg_classes_t *c)
{
    if (c == NULL)
        return;
    free(c->cls);
    free(c->padded);
    free(c->candidates);
    free(c->cold);
    free(c->excluded);
    memset(c, 0, sizeof *c);
}

void lg_warn_oversized(lg_diag_t *d, const char *where, const lg_fn_t *fn, uint64_t padded,
                       uint64_t cache, const char *consequence)
{
    /* A fixed group (groups.h) is named by its first member and its object's section. */
    bool group = (fn->flags & LG_FN_GROUP) != 0;
    const char *object = !group ? "" : fn->object ? fn->object : "?";
    lg_diag_add(d, LG_WARNING, where,
                "%s %s (section %s%s%s) is %llu bytes (%llu with alignment padding), more than "
                "the %llu-byte instruction cache: %s",
                group ? "fixed group" : "function", fn->symbol ? fn->symbol : "?",
                fn->section ? fn->section : "?", group ? " of " : "", object,
                (unsigned long long)fn->size, (unsigned long long)padded, (unsigned long long)cache,
                consequence);
}
