/* lor.c - the .LOR link-order file's model: made empty, freed, given inputs, built from a layout.
 * The writer, reader and check against the program are lor_write.c, lor_read.c and lor_check.c. */
#include "lor.h"

#include "lor_internal.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

void lg_lor_init(lg_lor_t *lor)
{
    memset(lor, 0, sizeof *lor);
    lor->version = LG_LOR_VERSION;
}

void lg_lor_fn_free(lg_lor_fn_t *f)
{
    free(f->symbol);
    free(f->section);
    free(f->object);
    free(f->source);
    free(f->ld_object);
}

void lg_lor_destroy(lg_lor_t *lor)
{
    if (lor == NULL)
        return;
    for (size_t i = 0; i < lor->nfns; i++)
        lg_lor_fn_free(&lor->fns[i]);
    for (size_t i = 0; i < lor->ninputs; i++) {
        free(lor->inputs[i].kind);
        free(lor->inputs[i].path);
        free(lor->inputs[i].format);
    }
    for (size_t r = 0; r < lor->nregions; r++) {
        for (size_t i = 0; i < lor->regions[r].nfns; i++)
            lg_lor_fn_free(&lor->regions[r].fns[i]);
        free(lor->regions[r].fns);
        free(lor->regions[r].name);
        for (size_t i = 0; i < lor->regions[r].npinned; i++)
            free(lor->regions[r].pinned[i]);
        free(lor->regions[r].pinned);
    }
    free(lor->regions);
    free(lor->fns);
    free(lor->cliques);
    free(lor->inputs);
    free(lor->algorithm);
    memset(lor, 0, sizeof *lor);
}

lg_err_t lg_lor_add_input(lg_lor_t *lor, const char *kind, const char *path, const char *format)
{
    size_t cap = lor->ninputs; /* exact-size array: inputs are few */
    if (!lg_grow((void **)&lor->inputs, &cap, lor->ninputs + 1, sizeof *lor->inputs))
        return LG_ENOMEM;
    bool ok = true;
    lg_lor_input_t in = {lg_strdup_opt(kind, &ok), lg_strdup_opt(path, &ok),
                         lg_strdup_opt(format, &ok)};
    if (!ok) {
        free(in.kind);
        free(in.path);
        free(in.format);
        return LG_ENOMEM;
    }
    lor->inputs[lor->ninputs++] = in;
    return LG_OK;
}

/* The .LOR's record of a program function. */
static lg_err_t lor_fn_of(const lg_fn_t *fn, uint32_t clique, lg_lor_fn_t *out)
{
    bool ok = true;
    lg_lor_fn_t f = {
        .symbol = lg_strdup_opt(fn->symbol, &ok),
        .section = lg_strdup_opt(fn->section, &ok),
        .object = lg_strdup_opt(fn->object, &ok),
        .source = (fn->flags & LG_FN_LOCAL) ? lg_strdup_opt(fn->source_file, &ok) : NULL,
        .size = fn->size,
        .section_bytes = (fn->flags & LG_FN_SHARED_SECTION) ? 0 : fn->section_bytes,
        .hits = fn->hits,
        .align = fn->align,
        .lead = (fn->flags & LG_FN_PHASED) ? fn->lead : 0,
        .flags = fn->flags,
        .clique = clique,
    };
    if (!ok) {
        lg_lor_fn_free(&f);
        return LG_ENOMEM;
    }
    *out = f;
    return LG_OK;
}

lg_err_t lg_lor_add_region(lg_lor_t *lor, const lg_program_t *prog, const char *name,
                           uint64_t size, uint64_t budget, uint64_t bytes, const uint32_t *fns,
                           size_t n)
{
    size_t cap = lor->nregions; /* exact-size array: regions are few */
    if (!lg_grow((void **)&lor->regions, &cap, lor->nregions + 1, sizeof *lor->regions))
        return LG_ENOMEM;
    lg_lor_region_t *r = &lor->regions[lor->nregions];
    *r = (lg_lor_region_t){.name = strdup(name), .size = size, .budget = budget, .bytes = bytes};
    r->fns = calloc(n ? n : 1, sizeof *r->fns);
    lor->nregions++; /* freed with lor from here on */
    if (r->name == NULL || r->fns == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        LG_CHECK(lor_fn_of(&prog->fns[fns[i]], 0, &r->fns[i]));
        /* A region's members are not phased: the fragment lists them packed. */
        r->fns[i].flags &= ~(uint32_t)LG_FN_PHASED;
        r->fns[i].lead = 0;
        r->nfns++;
    }
    return LG_OK;
}

lg_err_t lg_lor_region_add_pinned(lg_lor_region_t *r, const char *name)
{
    size_t cap = r->npinned; /* exact-size array: pinned functions are few */
    char *copy = strdup(name);
    if (copy == NULL || !lg_grow((void **)&r->pinned, &cap, r->npinned + 1, sizeof *r->pinned)) {
        free(copy);
        return LG_ENOMEM;
    }
    r->pinned[r->npinned++] = copy;
    return LG_OK;
}

lg_err_t lg_lor_from_layout(const lg_program_t *prog, const lg_layout_t *layout, lg_lor_t *lor)
{
    size_t total = 0;
    for (size_t c = 0; c < layout->ncliques; c++)
        total += layout->cliques[c].nfns;
    lor->geometry = layout->geometry;
    lor->algorithm = strdup(layout->algorithm ? layout->algorithm : "cliques");
    lor->cliques = calloc(layout->ncliques ? layout->ncliques : 1, sizeof *lor->cliques);
    lor->fns = calloc(total ? total : 1, sizeof *lor->fns);
    if (lor->algorithm == NULL || lor->cliques == NULL || lor->fns == NULL)
        return LG_ENOMEM;
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        lor->cliques[c] = (lg_lor_clique_t){lor->nfns, cl->nfns,        cl->bytes, cl->hits,
                                            cl->flags, cl->pad_before, 0, LG_LOR_NOT_STATED};
        lor->ncliques++;
        for (size_t i = 0; i < cl->nfns; i++) {
            LG_CHECK(lor_fn_of(&prog->fns[cl->fns[i]], (uint32_t)c, &lor->fns[lor->nfns]));
            lor->nfns++;
        }
    }
    lor->ncold = layout->ncold;
    lor->section_align = layout->section_align > 1 ? layout->section_align : 0;
    return LG_OK;
}
