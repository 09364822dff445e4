/* regionstubs.c - the linker's stubs for a fast region's far calls (regionstubs.h). */
#include "regionstubs.h"

#include "arm_attributes.h"

#include <elf.h>
#include <stdlib.h>

lg_region_stubs_t lg_region_stubs_for(const lg_program_t *prog, const lg_elfsyms_t *elf,
                                      const lg_region_held_t *held)
{
    lg_region_stubs_t s = {0, false};
    if (prog->machine != EM_ARM)
        return s;
    uint64_t text, text_bytes;
    s.bytes_per_callee = lg_arm_arch_thumb1_only(prog->arm_cpu_arch) ? LG_ARM_THUMB1_VENEER_BYTES
                                                                     : LG_ARM_VENEER_BYTES;
    if (elf == NULL || !held->present || !lg_linked_section(elf, ".text", &text, &text_bytes))
        return s;
    s.where_known = true;
    uint64_t apart =
        held->section_addr > text ? held->section_addr - text : text - held->section_addr;
    if (apart <= LG_ARM_BL_REACH)
        s.bytes_per_callee = 0;
    return s;
}

lg_err_t lg_region_far_callees(const lg_program_t *prog, const bool *in, size_t *count)
{
    /* Per family (indexed by its first function): in the region, and counted as a callee. */
    enum { IN_REGION = 1, COUNTED = 2 };
    uint8_t *mark = calloc(prog->nfns ? prog->nfns : 1, 1);
    if (mark == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns; i++)
        if (in[i])
            mark[prog->fns[i].family] |= IN_REGION;
    size_t n = 0;
    for (size_t k = 0; k < prog->nrefs; k++) {
        uint32_t from = prog->refs[k].caller, to = prog->refs[k].callee;
        if (!(mark[from] & IN_REGION) || (mark[to] & (IN_REGION | COUNTED)))
            continue;
        mark[to] |= COUNTED;
        n++;
    }
    free(mark);
    *count = n;
    return LG_OK;
}
