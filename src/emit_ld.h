/* emit_ld.h - GNU ld linker-script outputs written from a checked .LOR.
 *
 * Two forms:
 *   script    a complete -T script for use with the default linker script on hosted targets:
 *             `gcc ... -Wl,-T,app.ld`. It declares an output section .text.lorgen holding the
 *             ordered functions and INSERTs it before .text, so the default script still places
 *             everything else. (-T scripts are read before the default one, so their patterns
 *             claim the sections first.)
 *   include   only the input-section lines, for `INCLUDE app-order.ld` inside the .text output
 *             section of a custom (embedded) script, after whatever must come first (vectors,
 *             entry code) and before the catch-all `*(.text .text.*)`.
 *
 * Each function becomes one input-section description. An exact section (read from the objects)
 * is named as it is; an inferred one names every prefix GCC may have chosen:
 *   *(.text.foo .text.hot.foo .text.unlikely.foo .text.startup.foo .text.exit.foo)
 * A section name that several same-named statics share is qualified by its object file
 * (*util.o(.text.helper)) when the object is known.
 */
#ifndef LG_EMIT_LD_H
#define LG_EMIT_LD_H

#include "diag.h"
#include "lor.h"

#include <stdbool.h>
#include <stdio.h>

/* Name of the output section the script form creates. */
#define LG_LD_OUTPUT_SECTION ".text.lorgen"

lg_err_t lg_emit_ld_script(const lg_lor_t *lor, FILE *out);
lg_err_t lg_emit_ld_include(const lg_lor_t *lor, FILE *out);

/* Writes the input-section description of one function (no indentation, no newline);
 * qualify: name its object file, to take it apart from same-named sections of other objects. */
void lg_emit_ld_pattern(const lg_lor_fn_t *f, bool qualify, FILE *out);

#endif
