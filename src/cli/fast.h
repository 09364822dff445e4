/* fast.h - --fast-region and --fast-include: the code chosen for fast memory regions
 * (optimizer/fast_region.h), taken out of the cache order, and the GNU ld fragments that place it.
 */
#ifndef LG_CLI_FAST_H
#define LG_CLI_FAST_H

#include "diag.h"
#include "fast_region.h"
#include "groups.h"
#include "lor.h"
#include "options.h"
#include "outfile.h"
#include "program.h"
#include "regionheld.h"
#include "regionstubs.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lg_cli_region {
    const lg_cli_fast_region_t *spec; /* its option */
    lg_fast_region_t choice;          /* members are units of the program it was chosen on */
    uint32_t *fns;                    /* the program's functions, in the region's order */
    size_t nfns;
    lg_region_held_t held; /* what the linked program's section holds besides lorgen's code */
    uint64_t reserved;     /* held.held rounded up to the candidates' largest alignment: the
                              bytes before the fragment's first member, off the budget */
    uint32_t *pinned;      /* the program's functions the link keeps in it (regionheld.h) */
    size_t npinned;
    uint32_t *pinned_units; /* their units: no candidates, and out of the cache order */
    size_t npinned_units;
    lg_region_stubs_t stubs; /* what a call out of it costs in the linker's stubs */
    size_t far_callees;      /* functions outside it that its members call */
    uint64_t stub_bytes;     /* the stubs those take in it: off the budget */
} lg_cli_region_t;

/* Chooses every region of o in turn on units (g's program of units, whose functions are
 * prog's when g is NULL), from what the regions before left, and flags the chosen units
 * LG_FN_EXCLUDED so that the cache order leaves them out. With elf (the ELF inputs prog was
 * bound to; NULL: none), what the linked program's section of that name already holds besides
 * lorgen's code comes off the region's budget first (regionheld.h), and its pinned functions
 * are no candidates and leave the cache order too. The chosen and pinned code is flagged
 * LG_FN_UNCACHED in units and prog: the estimates leave its fetches out. On Arm, the veneers
 * the linker adds in a far region for its members' calls out of it take its bytes too
 * (regionstubs.h): the choice is made again on a smaller budget until members and veneers fit.
 * Tells what each region took, and warns of a region that overflows before anything is chosen, with the bytes over.
 * *regions (o->nfast of them) is freed with lg_cli_regions_destroy, also after an error.
 * Returns 0 or LG_EXIT_BAD_INPUT. */
int lg_cli_choose_regions(const lg_cli_options_t *o, lg_program_t *prog,
                          const lg_elfsyms_t *elf, lg_program_t *units, const lg_groups_t *g,
                          lg_cli_region_t **regions, lg_diag_t *d);

/* Clears the LG_FN_EXCLUDED flags lg_cli_choose_regions set on the chosen and pinned units. */
void lg_cli_regions_release(lg_program_t *units, const lg_cli_region_t *regions, size_t n);

void lg_cli_regions_destroy(lg_cli_region_t *regions, size_t n);

/* Checks the regions of a .LOR read back against prog as lg_lor_check checks cliques. (That no
 * function is listed in two places, a region and a clique or two regions, the reader checks.) */
lg_err_t lg_cli_check_regions(lg_lor_t *lor, const lg_program_t *prog, const char *path,
                              lg_diag_t *d);

/* Flags LG_FN_UNCACHED the functions of prog that lor's regions list, members and pinned, so
 * that the estimates leave their fetches out, as for regions just chosen. LG_OK or LG_ENOMEM. */
lg_err_t lg_cli_mark_uncached(const lg_lor_t *lor, lg_program_t *prog);

/* Counts again, for a .LOR read back, the veneers each region's members need (regionstubs.h),
 * from prog and elf (the ELF inputs it was bound from), and notes and takes the count where it
 * is not the region's stubs= (members edited by hand). LG_OK or LG_ENOMEM. */
lg_err_t lg_cli_recount_stubs(lg_lor_t *lor, const lg_program_t *prog, const lg_elfsyms_t *elf,
                              const char *path, lg_diag_t *d);

/* Writes each --fast-include of o, the fragment of the region of lor it names (FILE alone with one
 * region, NAME=FILE: lg_cli_fast_include_region), named as the other GNU ld outputs name
 * functions (lg_linkname_resolve), to a temporary file: files[i] for o->fast_includes[i], zeroed
 * by the caller, which lg_cli_write_outputs renames into place with the other outputs. A value
 * that names no region, two files for one region, or a file that is another output or an input
 * is refused before anything is written. After an error no file is left open. Returns 0 or
 * LG_EXIT_BAD_INPUT. */
int lg_cli_write_regions(lg_lor_t *lor, const lg_cli_options_t *o, const lg_program_t *prog,
                         lg_outfile_t *files, lg_diag_t *d);

#endif
