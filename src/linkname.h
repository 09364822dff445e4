/* linkname.h - what each linker can be told about the functions of a .LOR.
 *
 * GNU ld and gold order input sections by name; lld orders by symbol name. Before any linker
 * output is written, lg_linkname_resolve marks each listed function:
 *   pinned       entry and startup code (_start, reset handlers, _init, _fini) and every function
 *                whose input section is known and is neither .text nor .text.* (.init, .vectors,
 *                a RAM-code section): it stays where the linker script puts it, and every writer
 *                leaves it out, so that a board keeps its reset vector and entry at the load
 *                address
 *   unprefixed   the section is inferred and the symbol starts with '_', which may be the target's
 *                user-label prefix (sh-elf, -fleading-underscore): the symbol _foo then lives in
 *                .text.foo. Set only when no other function is called foo, so the extra name
 *                cannot take another function's section.
 * It also warns, once per name, about same-named statics that no object file tells apart: every
 * linker then moves all of them to the place of the first.
 */
#ifndef LG_LINKNAME_H
#define LG_LINKNAME_H

#include "diag.h"
#include "lor.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>

/* Flags on lg_lor_fn_t.flags, set by lg_linkname_resolve; never written to the .LOR. They sit
 * above the LG_FN_* bits of program.h. */
#define LG_LOR_FN_PINNED 0x10000u
#define LG_LOR_FN_UNPREFIXED 0x20000u
/* The program also has NAME.cold, GCC's split cold part of NAME, which lives in
 * .text.unlikely.NAME: that section is the cold part's, not NAME's, and naming it would pull
 * cold code into the hot region. */
#define LG_LOR_FN_SPLIT 0x40000u

/* Most input-section names one function may have: five GCC prefixes, with and without a
 * leading '_'. */
#define LG_LINKNAME_MAX_SECTIONS 10u

/* Marks pinned, unprefixed and split functions (prog may be NULL: no unprefixed or split marks
 * then), with a
 * note for each pinned one and a warning for same-named statics that move together. */
void lg_linkname_resolve(lg_lor_t *lor, const lg_program_t *prog, lg_diag_t *d);

/* True when the symbol names entry or startup code that must not move. */
bool lg_linkname_is_entry(const char *symbol);

/* True when the section name is .text or .text.*: code the writers may move. */
bool lg_linkname_is_text(const char *section);

/* True when the section's name says which function it holds (.text.NAME), so that naming it
 * does not also take other functions; false for a plain .text. */
bool lg_linkname_is_own_section(const char *section);

/* The input-section names that may hold f, in a fixed order: the exact one when it is known,
 * else every variant GCC may have used (.text.NAME, .text.hot.NAME, .text.unlikely.NAME,
 * .text.startup.NAME, .text.exit.NAME; a .cold part lives in .text.unlikely.BASE, so with
 * LG_LOR_FN_SPLIT .text.unlikely.NAME is left out), and with LG_LOR_FN_UNPREFIXED the same
 * without the leading '_'. Fills names[] with strings the
 * caller frees (lg_linkname_free) and returns their count, or 0 when memory ran out. */
size_t lg_linkname_sections(const lg_lor_fn_t *f, char *names[LG_LINKNAME_MAX_SECTIONS]);
void lg_linkname_free(char *names[LG_LINKNAME_MAX_SECTIONS], size_t n);

#endif
