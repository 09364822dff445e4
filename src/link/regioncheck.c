/* regioncheck.c - the fast regions of a .LOR against the relinked ELF (regioncheck.h). */
#include "regioncheck.h"

#include "strmap.h"

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

/* A stub the linker made for a call out of range (GNU ld: __callee_veneer; lld:
 * __ARMv7ABSLongThunk_callee and its kin). It lies beside the calls it serves, in the region
 * when they leave it: the region's own code, taken by no wildcard. */
static bool linker_stub(const char *name)
{
    static const char veneer[] = "_veneer";
    size_t n = strlen(name), tail = sizeof veneer - 1;
    if (strncmp(name, "__", 2) != 0)
        return false;
    return (n > 2 + tail && strcmp(name + n - tail, veneer) == 0) || strstr(name, "Thunk_") != NULL;
}

/* Another name of a member (snprintf beside _snprintf_r): it lies at a member's address. */
static bool alias_of_member(const lg_region_row_t *members, size_t n, uint64_t address)
{
    for (size_t i = 0; i < n; i++)
        if (members[i].ok && members[i].address == address)
            return true;
    return false;
}

lg_err_t lg_regioncheck_run(const lg_lor_t *lor, const lg_elfsyms_t *elf, lg_regioncheck_t *c,
                            lg_diag_t *d)
{
    lg_regioncheck_init(c);
    size_t cap = 0;
    for (size_t r = 0; r < lor->nregions; r++) {
        const lg_lor_region_t *rg = &lor->regions[r];
        lg_strmap_t members, pinned_names;
        lg_strmap_init(&members);
        lg_strmap_init(&pinned_names);
        bool ok = true;
        for (size_t i = 0; i < rg->npinned && ok; i++) {
            uint32_t first;
            ok = lg_strmap_put(&pinned_names, rg->pinned[i], (uint32_t)i, &first);
        }
        size_t first_member = c->nrows;
        for (size_t i = 0; i < rg->nfns && ok; i++) {
            uint32_t first;
            ok = lg_strmap_put(&members, rg->fns[i].symbol, (uint32_t)i, &first);
            lg_region_row_t row = {r, rg->fns[i].symbol, NULL, UINT64_MAX, true, false, false};
            for (uint32_t s = lg_elfsyms_first(elf, row.symbol); s != UINT32_MAX && !row.ok;
                 s = elf->next_same_name[s]) {
                const lg_elfsym_t *sym = &elf->syms[s];
                if (!linked_function(elf, sym))
                    continue;
                row.section = sym->section;
                row.address = address_of(elf, sym);
                row.ok = strcmp(sym->section, rg->name) == 0;
            }
            if (ok)
                ok = push(c, &cap, row);
            if (row.ok)
                c->inside++;
            else
                c->outside++;
        }
        size_t first_intruder = c->nrows;
        for (size_t s = 0; s < elf->nsyms && ok; s++) {
            const lg_elfsym_t *sym = &elf->syms[s];
            uint32_t unused;
            if (!linked_function(elf, sym) || strcmp(sym->section, rg->name) != 0 ||
                lg_strmap_get(&members, sym->name, &unused) || linker_stub(sym->name) ||
                alias_of_member(c->rows + first_member, first_intruder - first_member,
                                address_of(elf, sym)))
                continue;
            bool pinned = lg_strmap_get(&pinned_names, sym->name, &unused);
            ok = push(c, &cap,
                      (lg_region_row_t){r, sym->name, sym->section, address_of(elf, sym), false,
                                        pinned, pinned});
            c->intruders += !pinned;
        }
        lg_strmap_destroy(&members);
        lg_strmap_destroy(&pinned_names);
        if (!ok) {
            lg_diag_add(d, LG_ERROR, "", "out of memory checking the fast regions");
            return LG_ENOMEM;
        }
        qsort(c->rows + first_intruder, c->nrows - first_intruder, sizeof *c->rows, by_address);
    }
    return LG_OK;
}
