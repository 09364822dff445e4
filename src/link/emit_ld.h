/* emit_ld.h - GNU ld linker-script outputs written from a checked .LOR.
 *
 * Three forms:
 *   script    a complete -T script for use with the default linker script on hosted targets:
 *             `gcc ... -Wl,-T,app.ld`. It declares an output section .text.lorgen holding the
 *             ordered functions and INSERTs it before .text, so the default script still places
 *             everything else. (-T scripts are read before the default one, so their patterns
 *             claim the sections first.)
 *   include   only the input-section lines, for `INCLUDE app-order.ld` inside the .text output
 *             section of a custom (embedded) script, after whatever must come first (vectors,
 *             entry code) and before the catch-all `*(.text .text.*)`.
 *   ordering  for binutils 2.43 and later: `gcc ... -Wl,--section-ordering-file,app.ord`. The
 *             file maps input sections to an output section that the script in use already has
 *             (`.text : { ... }`, no SECTIONS); ld puts these lines before that section's own.
 *
 * Each function becomes one input-section description. An exact section (read from the objects)
 * is named as it is; an inferred one names every variant GCC may have chosen (linkname.h):
 *   *(.text.foo .text.hot.foo .text.unlikely.foo .text.startup.foo .text.exit.foo)
 * The pattern names the object file (:*util.o(.text.helper), *libx.a:util.o(.text.helper)) when
 * the section name alone would take other functions too: same-named statics, and a plain .text;
 * it names as many of the object's directories as tell it apart from the program's other objects
 * (:*a/util.o beside b/util.o). Names that need it are quoted and their wildcard bytes escaped
 * (linkname.h), so no name can add a script command or match another section; a function no
 * pattern can name is left out with a warning. Pinned functions (entry code, sections outside
 * .text) are left out, and a pattern already written is not repeated.
 *
 * A phased function (phase= in the .LOR) is preceded by `. = ALIGN(LINE);` and, for a phase
 * above 0, `. = . + PHASE;`, so that its code starts PHASE bytes into a cache line.
 */
#ifndef LG_EMIT_LD_H
#define LG_EMIT_LD_H

#include "diag.h"
#include "lor.h"

#include <stdbool.h>
#include <stdio.h>

/* Name of the output section the script form creates. */
#define LG_LD_OUTPUT_SECTION ".text.lorgen"

/* Name of the output section the ordering form adds to: the one every script has. */
#define LG_LD_ORDERING_SECTION ".text"

lg_err_t lg_emit_ld_script(const lg_lor_t *lor, FILE *out, lg_diag_t *d);
lg_err_t lg_emit_ld_include(const lg_lor_t *lor, FILE *out, lg_diag_t *d);
lg_err_t lg_emit_ld_ordering(const lg_lor_t *lor, FILE *out, lg_diag_t *d);
/* The include form for a fast region's members (--fast-include): the same lines, under a comment
 * naming the output section region they are for and the members' count and bytes (lor lends
 * them as its one clique, whose bytes are the members'). */
lg_err_t lg_emit_ld_region(const lg_lor_t *lor, const char *region, FILE *out, lg_diag_t *d);

/* Writes the input-section description of one function (no indentation, no newline);
 * qualify: name its object file, to take it apart from same-named sections of other objects.
 * Every name is written so that ld reads exactly it (linkname.h). Returns LG_ENOMEM when memory
 * ran out, LG_EUNSUPPORTED when no pattern can name the function (what was written is then of no
 * use). */
lg_err_t lg_emit_ld_pattern(const lg_lor_fn_t *f, bool qualify, FILE *out);

#endif
