/* objpath.h - which object file given now a .LOR's object= names.
 *
 * A .LOR keeps each object as it was spelled when the .LOR was written (normal/lex.o), from the
 * directory lorgen ran in then. The link later names the same file as ./normal/lex.o, by its
 * absolute path, or from another directory, and a GNU ld file pattern must match the spelling the
 * linker sees. So object= is matched to the objects given now, and the writers take the given
 * spelling. How closely an object= names a given object (docs/lor-format.md, "object= and the
 * objects given"):
 *   same     both are the same path once "." components, repeated '/' and "dir/.." are taken
 *            out, as text: nothing is looked up on disk, so the result does not depend on the
 *            directory lorgen runs in
 *   N        otherwise the number of trailing path components the two have in common (lex.o: 1,
 *            normal/lex.o: 2); 0, no match, when even the base names differ
 * An archive member, archive(member), matches members only; its components are the member's
 * (a thin archive's member is a path), then the archive's: libx.a(u.o) and lib/libx.a(u.o)
 * have 2 in common. The best match names the object; two that match equally well are
 * ambiguous.
 */
#ifndef LG_OBJPATH_H
#define LG_OBJPATH_H

#include <stddef.h>

/* lg_objpath_match: the same path after normalisation. */
#define LG_OBJPATH_SAME ((unsigned)-1)

/* How closely lor_object (a .LOR's object=) names object (as given now): LG_OBJPATH_SAME, the
 * number of trailing path components in common, or 0 for another file. O(length). */
unsigned lg_objpath_match(const char *lor_object, const char *object);

/* An object string as lorgen names it: "path", or "archive(member)". */
typedef struct lg_objpath {
    const char *path; /* the file, or the archive */
    size_t path_len;
    const char *member; /* NULL for a file outside an archive */
    size_t member_len;
} lg_objpath_t;

/* Splits "archive(member)" when the string ends with ')': the member starts after the '(' that
 * balances that ')', so member names with parentheses and archive paths such as
 * "build (1)/libx.a" both split right; anything else is a path. */
lg_objpath_t lg_objpath_split(const char *object);

#endif
