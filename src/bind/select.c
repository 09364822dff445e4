/* select.c - which functions take part in the order (rules in select.h). */
#include "select.h"

#include "objpath.h"

#include <fnmatch.h>
#include <string.h>

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static bool matches(const char *pattern, const char *name)
{
    return name != NULL && fnmatch(pattern, name, 0) == 0;
}

/* Bytes of the longest archive or member name a pattern is matched against; longer ones are
 * matched as a whole path only. */
#define LG_SELECT_NAME_BYTES 4096u

/* Copies n bytes of s into buf (size LG_SELECT_NAME_BYTES) as a string; false when too long. */
static bool copy_name(char *buf, const char *s, size_t n)
{
    if (n >= LG_SELECT_NAME_BYTES)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* True when pattern names the function: its symbol, its object, or the object's parts
 * (objpath.h splits "archive(member)"). */
static bool names_function(const char *pattern, const char *symbol, const char *object)
{
    if (matches(pattern, symbol))
        return true;
    if (object == NULL)
        return false;
    if (matches(pattern, object) || matches(pattern, base_of(object)))
        return true;
    lg_objpath_t parts = lg_objpath_split(object);
    char archive[LG_SELECT_NAME_BYTES], member[LG_SELECT_NAME_BYTES];
    if (parts.member == NULL || !copy_name(archive, parts.path, parts.path_len) ||
        !copy_name(member, parts.member, parts.member_len))
        return false;
    return matches(pattern, archive) || matches(pattern, base_of(archive)) ||
           matches(pattern, member);
}

bool lg_select_excludes(const lg_select_rule_t *rules, size_t n, const char *symbol,
                        const char *object)
{
    bool any_include = false, included = false;
    for (size_t i = 0; i < n; i++)
        if (rules[i].include) {
            any_include = true;
            included = included || names_function(rules[i].pattern, symbol, object);
        }
    if (any_include && !included)
        return true;
    for (size_t i = 0; i < n; i++)
        if (!rules[i].include && names_function(rules[i].pattern, symbol, object))
            return true;
    return false;
}

size_t lg_select_apply(lg_program_t *p, const lg_select_rule_t *rules, size_t n)
{
    size_t out = 0;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < p->nfns; i++)
        if (lg_select_excludes(rules, n, p->fns[i].symbol, p->fns[i].object)) {
            p->fns[i].flags |= LG_FN_EXCLUDED;
            out++;
        }
    return out;
}
