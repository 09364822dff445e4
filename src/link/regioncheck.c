/* regioncheck.c - the fast regions of a .LOR against the relinked ELF (regioncheck.h). */
#include "regioncheck.h"

#include "intmap.h"
#include "linkerstub.h"
#include "linkfind.h"
#include "regionheld.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

void lg_regioncheck_init(lg_regioncheck_t *c)
{
    memset(c, 0, sizeof *c);
}

void lg_regioncheck_destroy(lg_regioncheck_t *c)
{
    free(c->rows);
    free(c->bytes);
    lg_regioncheck_init(c);
}

static uint64_t address_of(const lg_elfsyms_t *elf, const lg_elfsym_t *s)
{
    return elf->files[s->file].machine == EM_ARM ? s->value & ~(uint64_t)1 : s->value;
}

static bool linked_function(const lg_elfsyms_t *elf, const lg_elfsym_t *s)
{
    return elf->files[s->file].kind == LG_ELF_LINKED && !s->is_label && s->section != NULL;
}

static bool push(lg_regioncheck_t *c, size_t *cap, lg_region_row_t row)
{
    if (c->nrows == *cap) {
        size_t grown = *cap ? *cap * 2 : 16;
        lg_region_row_t *rows = realloc(c->rows, grown * sizeof *rows);
        if (rows == NULL)
            return false;
        c->rows = rows;
        *cap = grown;
    }
    c->rows[c->nrows++] = row;
    return true;
}

static int by_address(const void *pa, const void *pb)
{
    const lg_region_row_t *a = pa, *b = pb;
    if (a->address != b->address)
        return a->address < b->address ? -1 : 1;
    return strcmp(a->symbol, b->symbol);
}

/* The source file to print beside a static of the linked file whose name another linked
 * function has (same-named statics: the name alone does not say which); NULL otherwise. */
static const char *namesake_source(const lg_elfsyms_t *elf, const lg_elfsym_t *sym)
{
    if (!sym->is_local || sym->source_file == NULL)
        return NULL;
    size_t n = 0;
    for (uint32_t s = lg_elfsyms_first(elf, sym->name); s != UINT32_MAX && n < 2;
         s = elf->next_same_name[s])
        n += linked_function(elf, &elf->syms[s]);
    return n > 1 ? sym->source_file : NULL;
}

/* Of same-named statics that a member's line does not tell apart, the one that lies in the
 * region: the fragment's pattern may have taken either. */
typedef struct region_of {
    const lg_elfsyms_t *elf;
    const char *name;
} region_of_t;

static bool lies_in_region(const lg_fn_t *fn, void *arg)
{
    const region_of_t *r = arg;
    const char *section = lg_linkfind_output_section(r->elf, fn);
    return section != NULL && strcmp(section, r->name) == 0;
}

/* The member row of line: the linked function it names (linkfind.h, same-named statics told
 * apart by its object= and source=), where that lies, and whether that is the region. */
static lg_region_row_t member_row(const lg_linkfind_t *find, const lg_elfsyms_t *elf, size_t r,
                                  const char *region, const lg_lor_fn_t *line)
{
    lg_region_row_t row = {r, line->symbol, NULL, UINT64_MAX, true, false, false, NULL};
    region_of_t want = {elf, region};
    int64_t k = lg_linkfind(find, line, lies_in_region, &want);
    if (k < 0 || find->prog->fns[k].address == UINT64_MAX)
        return row;
    const lg_fn_t *fn = &find->prog->fns[k];
    row.section = lg_linkfind_output_section(elf, fn);
    row.address = fn->address;
    row.ok = row.section != NULL && strcmp(row.section, region) == 0;
    row.source = (fn->flags & LG_FN_AMBIGUOUS_NAME) ? fn->source_file : NULL;
    return row;
}

lg_err_t lg_regioncheck_run(const lg_lor_t *lor, const lg_program_t *linked,
                            const lg_elfsyms_t *elf, lg_regioncheck_t *c, lg_diag_t *d)
{
    lg_regioncheck_init(c);
    size_t cap = 0;
    lg_linkfind_t find;
    bool ok = lg_linkfind_init(&find, linked) == LG_OK;
    c->bytes = calloc(lor->nregions ? lor->nregions : 1, sizeof *c->bytes);
    ok = ok && c->bytes != NULL;
    for (size_t r = 0; r < lor->nregions && ok; r++) {
        const lg_lor_region_t *rg = &lor->regions[r];
        lg_strmap_t pinned_names;
        lg_strmap_init(&pinned_names);
        for (size_t i = 0; i < rg->npinned && ok; i++) {
            uint32_t first;
            ok = lg_strmap_put(&pinned_names, rg->pinned[i], (uint32_t)i, &first);
        }
        /* The addresses of the members inside: another name there (snprintf beside
         * _snprintf_r) is that member, and any other function is not one. */
        lg_intmap_t inside;
        lg_intmap_init(&inside);
        for (size_t i = 0; i < rg->nfns && ok; i++) {
            lg_region_row_t row = member_row(&find, elf, r, rg->name, &rg->fns[i]);
            ok = push(c, &cap, row) && (!row.ok || lg_intmap_set(&inside, row.address, i));
            if (row.ok)
                c->inside++;
            else
                c->outside++;
        }
        size_t first_intruder = c->nrows;
        for (size_t s = 0; s < elf->nsyms && ok; s++) {
            const lg_elfsym_t *sym = &elf->syms[s];
            if (!linked_function(elf, sym) || strcmp(sym->section, rg->name) != 0 ||
                lg_linker_stub_name(sym->name) ||
                lg_intmap_get(&inside, address_of(elf, sym), NULL))
                continue;
            uint32_t unused;
            bool pinned = lg_strmap_get(&pinned_names, sym->name, &unused);
            ok = push(c, &cap,
                      (lg_region_row_t){r, sym->name, sym->section, address_of(elf, sym), false,
                                        pinned, pinned, namesake_source(elf, sym)});
            c->intruders += !pinned;
        }
        uint64_t addr;
        if (lg_linked_section(elf, rg->name, &addr, &c->bytes[r]))
            c->overflowing += c->bytes[r] > rg->size;
        lg_intmap_destroy(&inside);
        lg_strmap_destroy(&pinned_names);
        if (ok)
            qsort(c->rows + first_intruder, c->nrows - first_intruder, sizeof *c->rows, by_address);
    }
    lg_linkfind_destroy(&find);
    if (!ok) {
        lg_diag_add(d, LG_ERROR, "", "out of memory checking the fast regions");
        return LG_ENOMEM;
    }
    return LG_OK;
}
