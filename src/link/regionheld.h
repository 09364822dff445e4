/* regionheld.h - what a fast region's output section already holds in the linked program that
 * lorgen does not place there: code the user's own script or a section attribute puts in it
 * (`*(.ramfunc)`, `__attribute__((section(".itcm_text")))`), the vector table, data. It shares
 * the region with what lorgen chooses, so it is read before the choice: its bytes come off the
 * budget, and a region that it alone fills is said to overflow before anything is linked.
 *
 * Definitions:
 *   section   the linked program's output section named as the region (found through the
 *             function symbols that lie in it: a section holding no function is not seen)
 *   lorgen's  a function in it whose input section is .text or .text.* (or unknown, without the
 *             object files) and that is not --exclude'd: it is there because a fragment line
 *             named it, and it moves with the next fragment; also the linker's stubs for calls
 *             out of range (linkerstub.h). A .text.* function the user's own lines keep there
 *             is theirs once they --exclude it
 *   pinned    a function in it that is not lorgen's: it stays there whatever lorgen writes
 *   held      the section's bytes less those of lorgen's functions (each up to the next
 *             function, its alignment padding included): pinned code, the padding before the
 *             fragment, and whatever else the script put there
 */
#ifndef LG_REGIONHELD_H
#define LG_REGIONHELD_H

#include "diag.h"
#include "elfsym.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lg_region_held {
    bool present;           /* the linked program has the section */
    uint64_t section_addr;  /* its address */
    uint64_t section_bytes; /* its size */
    uint64_t held;          /* bytes of it lorgen does not place */
    size_t npinned;         /* pinned functions */
    uint32_t largest;       /* the largest pinned function (index into prog->fns); UINT32_MAX */
} lg_region_held_t;

/* Where elf's linked file puts its output section name, through the first function symbol that
 * lies in it: its address and size into *addr and *size; false when no function lies there. */
bool lg_linked_section(const lg_elfsyms_t *elf, const char *name, uint64_t *addr, uint64_t *size);

/* Measures the section name in elf's linked file against prog (bound to the same ELF files)
 * into *out, and sets pinned[i] (one flag per function of prog; NULL: not wanted) for each
 * pinned function. O(symbols + functions log functions). Returns LG_OK or LG_ENOMEM. */
lg_err_t lg_region_held_measure(const lg_elfsyms_t *elf, const lg_program_t *prog, const char *name,
                                lg_region_held_t *out, bool *pinned);

#endif
