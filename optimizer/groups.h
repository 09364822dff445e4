/* groups.h - fixed function groups: the functions of one input section move as one unit.
 *
 * The linker places input sections, not functions. Code built without -ffunction-sections, an
 * archive member of hand-written assembly, glibc's .text.avx: each is one input section that
 * holds several functions, and they can only move together. Left out of the order, such code
 * still shares the cache with what lorgen places, and its callers cannot be put next to it.
 *
 * Definitions:
 *   group   the functions of one program that share an input section (LG_FN_SHARED_SECTION)
 *           of one object file, known by both names; its members in section order (their
 *           addresses when the linked program gives them, else their input order)
 *   unit    what the optimizer places: a group, or a function that is no group's member
 *
 * A group moves only when code that ran makes up LG_GROUP_MIN_EXECUTED_PERCENT of its bytes:
 * moving it takes all its bytes next to its callers, and where most of them never run (glibc's
 * fileops.o: 7 KB of .text for a few calls) they push hot code out of the cache. Measured on
 * static links of lua, xz and pcre2 fed callgrind (docs/dev/experiments/
 * 2026-11-27-fixed-groups-static.md). Such a group stays where it is, as before groups.
 *
 * The optimizer runs on a program of units (lg_groups_t.units): a group is one function whose
 * bytes are the group's span, whose hits, self counters, calls, proximity, hot lines and jumps
 * are its members', at their offsets in the group. Its layout is then expanded to the program's
 * functions, a group's members in section order where the unit stood; the writers name the
 * section once for all of them.
 */
#ifndef LG_GROUPS_H
#define LG_GROUPS_H

#include "diag.h"
#include "layout.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Share of a group's bytes, in percent, that its executed members must hold for it to move. */
#define LG_GROUP_MIN_EXECUTED_PERCENT 50.0

typedef struct lg_groups {
    lg_program_t units; /* one function per unit, flagged LG_FN_GROUP for a group */
    uint32_t *unit_of;  /* per program function: its unit */
    uint32_t *first;    /* per unit, and one past the last: its members are members[first[u]
                           .. first[u + 1]) */
    uint32_t *members;  /* program function indexes, by unit, in section order */
    uint64_t *offset;   /* per program function: bytes from its unit's start */
    size_t ngroups;     /* units of more than one function */
} lg_groups_t;

/* Builds g from prog (g is overwritten; free with lg_groups_destroy, also after an error).
 * Time O((V + A + H) log (V + A + H)) in functions, arcs and hot lines and jumps. */
lg_err_t lg_groups_build(const lg_program_t *prog, lg_groups_t *g, lg_diag_t *d);

/* Replaces *layout, made for g->units, by the same layout of prog's functions: every unit by its
 * members in section order, the cold and excluded lists by theirs in input order. A function
 * that is no group's member takes its unit's phase (lead, LG_FN_PHASED, align). */
lg_err_t lg_groups_expand(const lg_groups_t *g, lg_program_t *prog, lg_layout_t *layout);

void lg_groups_destroy(lg_groups_t *g);

#endif
