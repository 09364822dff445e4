/* emit_order.h - the plain ordering lists other linkers read, written from a checked .LOR.
 *
 *   gold   `--section-ordering-file`: one input-section name per line, in link order. gold
 *          matches names only (no object file), so same-named statics move together and a
 *          function in a plain .text cannot be named at all (it is left out with a warning).
 *          Inferred sections list every GCC variant, each on its own line.
 *   lld    `--symbol-ordering-file`: one symbol per line; lld places the input section that
 *          defines each symbol. lld matches local symbols too, so same-named statics move
 *          together; functions sharing a section move with it.
 * Each name is written the way that linker reads it back as exactly that name (linkname.h):
 * gold's lines escape wildcard bytes as one-character classes; a name neither can hold (a
 * newline; for lld also white space at either end or a leading '#') is left out with a warning.
 * Both leave out pinned functions (linkname.h) and names already written. Neither list can say
 * where a clique starts in the cache, nor where a phased function (phase=) starts in its cache
 * line: the padding and alignment the placement chose, and the phases, are lost, and a note
 * says so (for the phases, with how many functions lost theirs).
 */
#ifndef LG_EMIT_ORDER_H
#define LG_EMIT_ORDER_H

#include "diag.h"
#include "lor.h"
#include "program.h"

#include <stdio.h>

lg_err_t lg_emit_gold_sections(const lg_lor_t *lor, FILE *out, lg_diag_t *d);
/* prog, when given (the program the .LOR was checked against), adds after each function its
 * other names (lg_program_t.aliases) that no other function has: lld may take a name for other
 * code than the function's (an IFUNC whose address a static program takes names its PLT entry),
 * and another name then still orders the function's section. */
lg_err_t lg_emit_lld_symbols(const lg_lor_t *lor, const lg_program_t *prog, FILE *out,
                             lg_diag_t *d);

#endif
