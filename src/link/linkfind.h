/* linkfind.h - the function of a relinked program that a .LOR line names, for the checks that
 * read the relinked ELF back (linkcheck.h for the cliques, regioncheck.h for the fast regions).
 *
 * A line names its function by symbol; of same-named statics, the one whose object path matches
 * the line's object= best (lg_objpath_match), or whose source file (the ELF's STT_FILE) is the
 * line's source=. A name the link does not hold is looked up among the functions' other names
 * (lg_program_t.aliases: lld names an IFUNC it moved by its PLT entry), then without clone
 * suffixes when exactly one function answers.
 */
#ifndef LG_LINKFIND_H
#define LG_LINKFIND_H

#include "diag.h"
#include "elfsym.h"
#include "lor.h"
#include "program.h"
#include "strmap.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct lg_linkfind {
    const lg_program_t *prog; /* borrowed */
    lg_strmap_t by_symbol;    /* symbol -> first function of that name */
    uint32_t *next;           /* per function: the next of its name, or UINT32_MAX */
    lg_strmap_t by_alias;     /* other name -> first alias of that name */
    uint32_t *next_alias;     /* per alias: the next of its name, or UINT32_MAX */
} lg_linkfind_t;

/* Indexes prog's names. LG_OK or LG_ENOMEM; destroy f either way. */
lg_err_t lg_linkfind_init(lg_linkfind_t *f, const lg_program_t *prog);
void lg_linkfind_destroy(lg_linkfind_t *f);

/* Says whether fn is the one to take of several that match a line equally well (arg: the
 * caller's). */
typedef bool lg_linkfind_prefer_fn(const lg_fn_t *fn, void *arg);

/* The index of the function the line names, or -1. Of several that match it equally well (statics
 * nothing on the line tells apart), the first that prefer accepts, else the first; prefer may be
 * NULL. */
int64_t lg_linkfind(const lg_linkfind_t *f, const lg_lor_fn_t *line, lg_linkfind_prefer_fn *prefer,
                    void *arg);

/* Marks no region in lg_linkfind_regions' region_of. */
#define LG_LINKFIND_NO_REGION UINT32_MAX

/* For each function of prog, the region of lor that lists it, as a member or pinned, into
 * region_of (LG_LINKFIND_NO_REGION: none), and whether it is pinned there into pinned (NULL:
 * not wanted); each found as lg_linkfind finds a line's, a pinned function by its name alone.
 * LG_OK or LG_ENOMEM. O(listed functions + prog's functions). */
lg_err_t lg_linkfind_regions(const lg_lor_t *lor, const lg_program_t *prog, uint32_t *region_of,
                             bool *pinned);

/* The output section elf's linked file puts fn (a function of the program bound from it) in, or
 * NULL. */
const char *lg_linkfind_output_section(const lg_elfsyms_t *elf, const lg_fn_t *fn);

#endif
