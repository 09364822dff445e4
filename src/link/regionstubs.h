/* regionstubs.h - the stubs a linker adds inside a fast region for the calls that leave it out of
 * a branch's reach, which take the region's bytes like its members.
 *
 * On Arm a direct call (BL) reaches 16 MiB either way; a region in a TCM is often further from
 * the flash its members call (ITCM at 0, flash at 128 MiB), and GNU ld then puts a veneer per
 * called function beside the calls, in the region's output section (tests/e2e/fast_region.sh
 * shows them, 8 bytes each for a Cortex-M7, 16 for a Cortex-M0+). A function is counted once
 * however many members call it; a fixed group's calls count from the group (bind.c records
 * them from its section's first function). Other machines lorgen knows need none: RISC-V calls
 * reach 2 GiB with the auipc/jalr pair the compiler emits (what changes there is that the linker
 * cannot shorten it, which lg_fast_region_weight counts), x86-64's 2 GiB.
 */
#ifndef LG_REGIONSTUBS_H
#define LG_REGIONSTUBS_H

#include "diag.h"
#include "elfsym.h"
#include "program.h"
#include "regionheld.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reach of an Arm Thumb-2 BL, the call a Cortex-M compiler emits, either way (bytes): 16 MiB. */
#define LG_ARM_BL_REACH ((uint64_t)16 << 20)

/* Bytes of one Thumb-2 long-branch veneer of GNU ld's (ldr.w pc, [pc] and the 4-byte address),
 * and of one for a core without it (Armv6-M, Armv8-M Baseline: Cortex-M0, M0+, M23), which
 * goes through a register (GNU ld 2.40, measured: 16 bytes). */
#define LG_ARM_VENEER_BYTES 8u
#define LG_ARM_THUMB1_VENEER_BYTES 16u

/* What a region's calls out of it cost in stubs: bytes per called function. */
typedef struct lg_region_stubs {
    uint64_t bytes_per_callee; /* LG_ARM_VENEER_BYTES, LG_ARM_THUMB1_VENEER_BYTES or 0 */
    bool where_known;          /* the linked program has the region's section, so its distance
                                  from .text is known; else an Arm region counts as far */
} lg_region_stubs_t;

/* The stubs of a region whose section the linked program holds as held says (regionheld.h):
 * none but on Arm (prog->machine), and there when the section lies beyond LG_ARM_BL_REACH of
 * the output section .text, or where either lies is unknown; the longer veneer when the build
 * attributes say the core is Thumb-1 only (prog->arm_cpu_arch). */
lg_region_stubs_t lg_region_stubs_for(const lg_program_t *prog, const lg_elfsyms_t *elf,
                                      const lg_region_held_t *held);

/* How many functions outside the region its functions call directly (in: one flag per function
 * of prog, the region's), into *count: clone families, by the object files' call relocations
 * (lg_program_t.refs), each one stub. 0 without object files. Returns LG_OK or LG_ENOMEM.
 * O(functions + refs). */
lg_err_t lg_region_far_callees(const lg_program_t *prog, const bool *in, size_t *count);

#endif
