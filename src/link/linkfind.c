/* linkfind.c - the function of a relinked program that a .LOR line names (linkfind.h). */
#include "linkfind.h"

#include "bind.h"
#include "objpath.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

lg_err_t lg_linkfind_init(lg_linkfind_t *f, const lg_program_t *prog)
{
    f->prog = prog;
    lg_strmap_init(&f->by_symbol);
    lg_strmap_init(&f->by_alias);
    f->next = malloc((prog->nfns ? prog->nfns : 1) * sizeof *f->next);
    f->next_alias = malloc((prog->naliases ? prog->naliases : 1) * sizeof *f->next_alias);
    if (f->next == NULL || f->next_alias == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns; i++)
        if (!lg_strmap_put_chained(&f->by_symbol, f->next, prog->fns[i].symbol, (uint32_t)i))
            return LG_ENOMEM;
    for (size_t i = 0; i < prog->naliases; i++)
        if (!lg_strmap_put_chained(&f->by_alias, f->next_alias, prog->aliases[i].name,
                                   (uint32_t)i))
            return LG_ENOMEM;
    return LG_OK;
}

void lg_linkfind_destroy(lg_linkfind_t *f)
{
    lg_strmap_destroy(&f->by_symbol);
    lg_strmap_destroy(&f->by_alias);
    free(f->next);
    free(f->next_alias);
    memset(f, 0, sizeof *f);
}

/* How well the program function matches the line's object and source file: lg_objpath_match
 * (LG_OBJPATH_SAME the same path ... 1 the same base name only), 0 when the line names neither;
 * -1 when either names another file. Same-named statics of a/util.o, b/util.o and c/util.o share
 * a base name, so only the best match tells them apart. */
static int64_t file_score(const lg_lor_fn_t *line, const lg_fn_t *fn)
{
    int64_t score = 0;
    if (line->object != NULL && fn->object != NULL &&
        (score = lg_objpath_match(line->object, fn->object)) == 0)
        return -1;
    if (line->source != NULL && fn->source_file != NULL &&
        strcmp(line->source, fn->source_file) != 0)
        return -1;
    return score;
}

/* The best of candidates (fn index) so far: a higher score, or an equal one that prefer accepts
 * where the earlier pick it did not. */
static void consider(const lg_linkfind_t *f, const lg_lor_fn_t *line, uint32_t fn,
                     lg_linkfind_prefer_fn *prefer, void *arg, int64_t *best, int64_t *pick)
{
    int64_t score = file_score(line, &f->prog->fns[fn]);
    if (score < 0 || score < *best)
        return;
    if (score == *best && (prefer == NULL || prefer(&f->prog->fns[*pick], arg) ||
                           !prefer(&f->prog->fns[fn], arg)))
        return;
    *best = score;
    *pick = fn;
}

int64_t lg_linkfind(const lg_linkfind_t *f, const lg_lor_fn_t *line, lg_linkfind_prefer_fn *prefer,
                    void *arg)
{
    const lg_program_t *p = f->prog;
    uint32_t first;
    int64_t pick = -1, best = -1;
    if (lg_strmap_get(&f->by_symbol, line->symbol, &first))
        for (uint32_t i = first; i != UINT32_MAX; i = f->next[i])
            consider(f, line, i, prefer, arg, &best, &pick);
    if (pick < 0 && lg_strmap_get(&f->by_alias, line->symbol, &first))
        for (uint32_t i = first; i != UINT32_MAX; i = f->next_alias[i])
            consider(f, line, p->aliases[i].fn, prefer, arg, &best, &pick);
    if (pick >= 0)
        return pick;
    size_t base = lg_clone_base_len(line->symbol), found = 0;
    for (size_t i = 0; i < p->nfns; i++) {
        const lg_fn_t *fn = &p->fns[i];
        if (lg_clone_base_len(fn->symbol) == base && strncmp(fn->symbol, line->symbol, base) == 0 &&
            file_score(line, fn) >= 0) {
            pick = (int64_t)i;
            found++;
        }
    }
    return found == 1 ? pick : -1;
}

const char *lg_linkfind_output_section(const lg_elfsyms_t *elf, const lg_fn_t *fn)
{
    for (uint32_t i = lg_elfsyms_first(elf, fn->symbol); i != UINT32_MAX;
         i = elf->next_same_name[i]) {
        const lg_elfsym_t *s = &elf->syms[i];
        const lg_elf_file_t *file = &elf->files[s->file];
        uint64_t value = file->machine == EM_ARM ? s->value & ~(uint64_t)1 : s->value;
        if (file->kind == LG_ELF_LINKED && value == fn->address)
            return s->section;
    }
    return NULL;
}

lg_err_t lg_linkfind_regions(const lg_lor_t *lor, const lg_program_t *prog, uint32_t *region_of,
                             bool *pinned)
{
    for (size_t i = 0; i < prog->nfns; i++) {
        region_of[i] = LG_LINKFIND_NO_REGION;
        if (pinned != NULL)
            pinned[i] = false;
    }
    lg_linkfind_t find;
    lg_err_t err = lg_linkfind_init(&find, prog);
    for (size_t r = 0; r < lor->nregions && err == LG_OK; r++) {
        const lg_lor_region_t *rg = &lor->regions[r];
        for (size_t i = 0; i < rg->nfns + rg->npinned; i++) {
            bool is_pinned = i >= rg->nfns;
            lg_lor_fn_t named = {.symbol = is_pinned ? rg->pinned[i - rg->nfns] : NULL};
            int64_t k = lg_linkfind(&find, is_pinned ? &named : &rg->fns[i], NULL, NULL);
            if (k < 0)
                continue;
            region_of[k] = (uint32_t)r;
            if (pinned != NULL)
                pinned[k] = is_pinned;
        }
    }
    lg_linkfind_destroy(&find);
    return err;
}
