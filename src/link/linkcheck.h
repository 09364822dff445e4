/* linkcheck.h - did the link order take effect? Reads a relinked ELF back against its .LOR.
 *
 * Every function the .LOR lists gets one row saying where it landed:
 *   in order   it comes after the previous listed function that landed in order, with no other
 *              function between them (functions of its own input section, and same-named
 *              statics that move with it, do not count as others)
 *   pinned     entry code or a section outside .text (linkname.h): lorgen never asks to move it
 *   together   a second line for a function an earlier line already took (same-named statics
 *              that nothing told apart), or a static that sits next to the first in-order static
 *              of its name listed before it, with only statics of that name between: gold, lld
 *              and GNU ld without object files move every static of a name to the first's place
 *   not found  no function of that name in the linked ELF (renamed, inlined, or discarded)
 *   no match   out of place, and the section the .LOR names is not the one the objects hold the
 *              function in: the linker pattern matched nothing
 *   elsewhere  out of place although the pattern names its section: an earlier rule of the
 *              linker script took it, or the linker ignored the order
 *   gap        in sequence, but another function sits between it and the previous one
 *   off phase  in order, but the .LOR gives it a phase (phase=P) and it does not start P bytes
 *              past a multiple of the cache line: the padding before it was lost
 * "In sequence" is decided on the longest run of listed functions whose addresses rise in .LOR
 * order, so one misplaced function is blamed alone instead of every one after it. A phased
 * function that is out of order and off its phase keeps its order status; its reason says both.
 */
#ifndef LG_LINKCHECK_H
#define LG_LINKCHECK_H

#include "diag.h"
#include "elfsym.h"
#include "lor.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum lg_landing {
    LG_LANDED_IN_ORDER = 0,
    LG_LANDED_PINNED = 1,
    LG_LANDED_TOGETHER = 2,
    LG_LANDED_NOT_FOUND = 3,
    LG_LANDED_NO_MATCH = 4,
    LG_LANDED_ELSEWHERE = 5,
    LG_LANDED_GAP = 6,
    LG_LANDED_OFF_PHASE = 7,
} lg_landing_t;

typedef struct lg_landed {
    size_t fn; /* index into the .LOR's fns */
    lg_landing_t status;
    uint64_t address;     /* in the linked ELF; UINT64_MAX when not found */
    char *output_section; /* where it landed; NULL when unknown */
    char *reason;         /* one clause for people; "" when in order */
    bool off_phase;       /* phased in the .LOR, and address % line is not its phase */
} lg_landed_t;

typedef struct lg_linkcheck {
    lg_landed_t *rows; /* one per .LOR function, in .LOR order */
    size_t nrows;
    size_t in_order;  /* rows in order */
    size_t pinned;    /* rows pinned or together: not asked to move on their own */
    size_t failed;    /* rows not found, no match, elsewhere, gap or off phase */
    size_t off_phase; /* rows off their phase, whatever their status: all of them failed */
} lg_linkcheck_t;

void lg_linkcheck_init(lg_linkcheck_t *c);
/* Frees everything; accepts a zeroed struct. */
void lg_linkcheck_destroy(lg_linkcheck_t *c);

/* Checks that elf holds what check reads back: exactly one linked program (the relinked one),
 * with its symbol table (a stripped program says nowhere where a function landed). Fails with
 * LG_EINVAL and an error naming the file(s) otherwise. Call it before binding, so that a stripped
 * program is refused instead of bound from its objects. */
lg_err_t lg_linkcheck_inputs(const lg_elfsyms_t *elf, lg_diag_t *d);

/* Checks lor (with lg_linkname_resolve marks) against linked, the program bound from the
 * relinked ELF and, optionally, its objects (elf: the symbols it was bound from). A function with
 * a phase= is judged against the line size of lor's cache statement. Fills out (initialised by
 * the caller). Fails with LG_EINVAL when lg_linkcheck_inputs does. */
lg_err_t lg_linkcheck_run(const lg_lor_t *lor, const lg_program_t *linked, const lg_elfsyms_t *elf,
                          lg_linkcheck_t *out, lg_diag_t *d);

/* The row status as people read it: "in order", "not found", ... */
const char *lg_landing_name(lg_landing_t status);

#endif
