/* regionheld.c - the code a fast region's output section holds besides lorgen's (regionheld.h). */
#include "regionheld.h"

#include "linkerstub.h"

#include <stdlib.h>
#include <string.h>

bool lg_linked_section(const lg_elfsyms_t *elf, const char *name, uint64_t *addr, uint64_t *size)
{
    for (size_t s = 0; s < elf->nsyms; s++) {
        const lg_elfsym_t *sym = &elf->syms[s];
        if (elf->files[sym->file].kind == LG_ELF_LINKED && sym->section != NULL &&
            strcmp(sym->section, name) == 0) {
            *addr = sym->section_addr;
            *size = sym->section_size;
            return true;
        }
    }
    return false;
}

/* A function that lies in the region because a fragment line named it: its input section is
 * one a .text line of lorgen's takes, or one lorgen could only guess, and lorgen may move it. */
static bool placed_by_lorgen(const lg_fn_t *f)
{
    /* The user's own lines may take a .text.* section too: one they --exclude is theirs. */
    if (f->flags & LG_FN_EXCLUDED)
        return false;
    if (f->flags & (LG_FN_SECTION_INFERRED | LG_FN_SECTION_UNKNOWN))
        return true;
    return strcmp(f->section, ".text") == 0 || strncmp(f->section, ".text.", 6) == 0 ||
           lg_linker_stub_name(f->symbol);
}

typedef struct placed {
    uint64_t address;
    uint32_t fn;
} placed_t;

static int by_address(const void *pa, const void *pb)
{
    const placed_t *a = pa, *b = pb;
    if (a->address != b->address)
        return a->address < b->address ? -1 : 1;
    return a->fn < b->fn ? -1 : a->fn > b->fn;
}

lg_err_t lg_region_held_measure(const lg_elfsyms_t *elf, const lg_program_t *prog, const char *name,
                                lg_region_held_t *out, bool *pinned)
{
    *out = (lg_region_held_t){.largest = UINT32_MAX};
    uint64_t addr = 0, size = 0;
    if (!lg_linked_section(elf, name, &addr, &size))
        return LG_OK;
    out->present = true;
    out->section_addr = addr;
    out->section_bytes = size;
    size_t n = 0;
    placed_t *inside = malloc((prog->nfns ? prog->nfns : 1) * sizeof *inside);
    if (inside == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns; i++) {
        const lg_fn_t *f = &prog->fns[i];
        if (f->address != UINT64_MAX && f->address >= addr && f->address - addr < size)
            inside[n++] = (placed_t){f->address, (uint32_t)i};
    }
    qsort(inside, n, sizeof *inside, by_address);
    /* A function of lorgen's takes the bytes up to the next function (its alignment padding);
     * the rest, padding before the fragment's first function included, is held. */
    uint64_t lorgens = 0;
    for (size_t k = 0; k < n; k++) {
        const lg_fn_t *f = &prog->fns[inside[k].fn];
        uint64_t end = k + 1 < n ? inside[k + 1].address : addr + size;
        if (placed_by_lorgen(f)) {
            lorgens += end - f->address;
            continue;
        }
        out->npinned++;
        if (out->largest == UINT32_MAX || f->size > prog->fns[out->largest].size)
            out->largest = inside[k].fn;
        if (pinned != NULL)
            pinned[inside[k].fn] = true;
    }
    free(inside);
    out->held = size - lorgens;
    return LG_OK;
}
