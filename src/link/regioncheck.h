/* regioncheck.h - did the fast regions take effect? Reads a relinked ELF back against the
 * regions of its .LOR (lor.h, region statements).
 *
 * For every region, each member must lie in the linked output section the region names, and no
 * other function may lie there (another name at a member's address is that member, and the
 * region's pinned functions, which the link keeps there by the board's own lines, are expected
 * there): a wildcard
 * earlier in the script (or a section attribute) that takes a member elsewhere, or another function
 * into the region, is what this finds. Members are found in the linked program as the clique
 * check finds its functions (linkfind.h): of same-named statics, the one of the object= or
 * source= the member's line gives, so another static of that name is no member, and an intruder
 * when it lies in the region. Of statics the line does not tell apart, one inside counts.
 */
#ifndef LG_REGIONCHECK_H
#define LG_REGIONCHECK_H

#include "diag.h"
#include "elfsym.h"
#include "lor.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lg_region_row {
    size_t region;       /* index into lg_lor_t.regions */
    const char *symbol;  /* the function's name (borrowed from the .LOR or the ELF) */
    const char *section; /* output section it lies in (borrowed from the ELF); NULL: not found */
    uint64_t address;    /* UINT64_MAX when not found */
    bool member;         /* a member of the region; else a function that lies in it uninvited */
    bool ok;             /* a member inside the region, or a function the .LOR says the link
                            keeps there (pinned) */
    bool pinned;         /* no member, but one of the region's pinned functions */
    const char *source;  /* a static's source file (borrowed) when other functions of the linked
                            program share its name; else NULL */
} lg_region_row_t;

typedef struct lg_regioncheck {
    lg_region_row_t *rows; /* by region: its members in .LOR order, then the intruders by address */
    size_t nrows;
    size_t inside;    /* members inside their region */
    size_t outside;   /* members elsewhere or not found */
    size_t intruders; /* functions in a region that are none of its members */
    uint64_t *bytes;  /* per region: the size of its output section in the link; 0 when no
                         function lies there */
    size_t overflowing; /* regions whose output section is larger than their size= */
} lg_regioncheck_t;

void lg_regioncheck_init(lg_regioncheck_t *c);
void lg_regioncheck_destroy(lg_regioncheck_t *c);

/* Fills c from lor's regions, elf's linked file and linked, the program bound from elf (its
 * linked file and any objects). Returns LG_OK or LG_ENOMEM. */
lg_err_t lg_regioncheck_run(const lg_lor_t *lor, const lg_program_t *linked,
                            const lg_elfsyms_t *elf, lg_regioncheck_t *c, lg_diag_t *d);

#endif
