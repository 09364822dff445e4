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
 *
 * Names reach a linker through its own grammar, so each is written the way that linker reads it
 * back as exactly that name and nothing else (checked by linking with GNU ld 2.40, gold 1.16 and
 * lld 14; docs/linkers.md, "Names that reach a linker"):
 *   GNU ld   a script word. A bare word holds few characters; one in double quotes may hold
 *            anything but '"' (a newline too): nothing escapes inside quotes, so a name holding
 *            '"' cannot be written. Quoted or not, a name holding * ? or [ is a glob (fnmatch,
 *            backslash escapes), and ld compares the bytes before the first wildcard as they
 *            are, so "\?" does not work: each of * ? [ ] \ becomes a one-character class
 *            ([?], [\\]). A name without a wildcard is compared as it is. A file name without a
 *            wildcard or ':' makes ld load that file, so file patterns always hold one.
 *   gold     one section name per line, matched whole: first exactly, then as a glob
 *            (fnmatch, no escapes) when it holds * ? or [; those become [*] [?] [[] (and ]
 *            []]). A line starting with '#' is a comment ([#] instead); one trailing '\r' is
 *            dropped (a name ending in '\r' gets a second one). A newline cannot be written.
 *   lld      one symbol per line, trimmed of white space; a line starting with '#' is a
 *            comment; no globs. A symbol with a newline, white space at either end or a leading
 *            '#' cannot be written.
 * A function whose name cannot be written for a linker is left out of that linker's file, with a
 * warning.
 */
#ifndef LG_LINKNAME_H
#define LG_LINKNAME_H

#include "diag.h"
#include "lor.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Flags on lg_lor_fn_t.flags, set by lg_linkname_resolve; never written to the .LOR. They sit
 * above the LG_FN_* bits of program.h. */
#define LG_LOR_FN_PINNED 0x10000u
#define LG_LOR_FN_UNPREFIXED 0x20000u
/* The program also has NAME.cold, GCC's split cold part of NAME, which lives in
 * .text.unlikely.NAME: that section is the cold part's, not NAME's, and naming it would pull
 * cold code into the hot region. */
#define LG_LOR_FN_SPLIT 0x40000u
/* The program has another section whose name is the gold line this function's section is
 * written as (a section literally called .text.q[?]x beside .text.q?x): gold matches exact names
 * before globs, so that line would take the other section too. */
#define LG_LOR_FN_GOLD_CLASH 0x80000u
/* No GNU ld file pattern names the object file this function must be told apart by: the part of
 * its path the pattern needs holds '"', or an archive's part holds ':' (ld's archive:member). */
#define LG_LOR_FN_OBJECT_UNSAYABLE 0x100000u

/* Most input-section names one function may have: five GCC prefixes, with and without a
 * leading '_'. */
#define LG_LINKNAME_MAX_SECTIONS 10u

/* Marks pinned, unprefixed, split and gold-clash functions (prog may be NULL: no unprefixed,
 * split or clash marks then), with a note for each pinned one and a warning for same-named
 * statics that move together. Sets each function's ld_object: the GNU ld file pattern that names
 * its object file and no other object of prog or lor (see lg_linkname_ld_object), or marks
 * LG_LOR_FN_OBJECT_UNSAYABLE. O(n log n) in the objects; when memory runs out, ld_object stays
 * NULL and the writers fall back to lg_linkname_ld_object. */
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

/* Writes name as one GNU ld script word for an input-section name that matches that section and
 * no other: bare when it is a '.' followed by letters, digits, '_', '.' and '$', else in double
 * quotes, with * ? [ ] \ as one-character classes when it holds a wildcard. Returns false,
 * writing nothing, when no word can say it (empty, or holding '"'). */
bool lg_linkname_ld_section(const char *name, FILE *out);

/* The GNU ld file pattern (one script word, quoted when it must be) for an object as lorgen names
 * it: "path", or "archive(member)" for an archive member, read as a member when the string ends
 * with ')' (the member starts at the '(' that balances it). Without a program to compare with,
 * it names the base name: ":*util.o" (':' first: files outside archives only),
 * "*libx.a:util.o", and for a thin archive's member (a path) "*libx.a:*util.o". A member of
 * libc.a or libc_nano.a (or of their libg copies) is named in both, "*lib[cg]_nano.a:u.o",
 * because GCC links newlib's libg copy ahead of libc when -g is given.
 * lg_linkname_resolve names as many directories as tell the object apart. Sets *pattern to a
 * string the caller frees, or to NULL when no pattern can name it; returns LG_ENOMEM. */
lg_err_t lg_linkname_ld_object(const char *object, char **pattern);

/* The line of a gold --section-ordering-file that matches the section name and no other name
 * (the program's section names aside: LG_LOR_FN_GOLD_CLASH). Sets *line to a string the caller
 * frees, or to NULL when no line can say it (a newline); returns LG_ENOMEM. */
lg_err_t lg_linkname_gold_line(const char *name, char **line);

/* True when a line of lld's --symbol-ordering-file can name the symbol. */
bool lg_linkname_lld_sayable(const char *symbol);

/* Linker outputs that cannot name a function: bits of lg_linkname_unsayable's result. */
#define LG_LINKER_GNU_LD 0x1u /* --ld-script, --ld-include, --section-ordering */
#define LG_LINKER_GOLD 0x2u   /* --gold */
#define LG_LINKER_LLD 0x4u    /* --lld */

/* The linker outputs that leave f out because its section, object or symbol cannot be said in
 * their grammar (the rules above, and the marks lg_linkname_resolve set); 0 when every one can
 * name it, and for pinned functions, which no output names. 0 also when memory runs out. */
unsigned lg_linkname_unsayable(const lg_lor_fn_t *f);

/* Bytes of a name shown in a message, with its terminating NUL. */
#define LG_LINKNAME_SHOW_BYTES 160u

/* Names in messages and in the text report are shown on one line, so that a reader sees that
 * name and nothing else: '\' as '\\'; newline, carriage return and tab as \n, \r, \t; every
 * other control character (bytes below 0x20, 0x7f, and U+0080 to U+009F, whose two UTF-8 bytes
 * are both shown) and every byte that is not part of valid UTF-8 as \xHH (lower-case hex); the
 * rest as it is. A '\' in a shown name always starts one of these escapes, so each shown name
 * reads back as exactly one name. */

/* Copies name into buf for a message, shown by the rule above, cut with "..." when longer than
 * the buffer. Returns buf. */
const char *lg_linkname_show(const char *name, char buf[LG_LINKNAME_SHOW_BYTES]);

/* Writes name whole to out, shown by the rule above, and returns the bytes it takes; with out
 * NULL, only counts them. O(length of name). */
size_t lg_linkname_put(const char *name, FILE *out);

#endif
