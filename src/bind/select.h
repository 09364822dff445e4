/* select.h - which functions take part in the order (--include, --exclude).
 *
 * A rule is a shell-style pattern (fnmatch) matched against a function's symbol, its object
 * file's path and base name, and for an archive member "lib.a(member.o)" the archive's path and
 * base name and the member's name. With include rules, only the functions one of them matches
 * take part; an exclude rule takes out what it matches, after the includes. What does not take
 * part keeps its input order, as code that cannot move does; a fixed group (optimizer/groups.h)
 * with one member out is out whole.
 */
#ifndef LG_SELECT_H
#define LG_SELECT_H

#include "program.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct lg_select_rule {
    bool include;        /* --include; false: --exclude */
    const char *pattern; /* not owned */
} lg_select_rule_t;

/* True when the rules take out a function of that symbol and object (object may be NULL). */
bool lg_select_excludes(const lg_select_rule_t *rules, size_t n, const char *symbol,
                        const char *object);

/* Flags LG_FN_EXCLUDED on every function of p the rules take out; returns how many. O(V n). */
size_t lg_select_apply(lg_program_t *p, const lg_select_rule_t *rules, size_t n);

#endif
