/* linkname.c - what each linker can be told about the functions of a .LOR; see linkname.h. */
#include "linkname.h"

#include "mem.h"
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

/* Prefixes GCC's -freorder-functions puts before a function's name in its section name
 * (gcc/varasm.cc default_function_section); "" is the plain .text.NAME. */
static const char *const gcc_prefixes[] = {"", "hot.", "unlikely.", "startup.", "exit."};

/* Entry and startup code by name: the C runtime's entry (_start, start, __start), the usual
 * reset handlers of bare-metal startup files, and the .init/.fini functions. */
static const char *const entry_names[] = {"_start", "start",         "__start",
                                          "_reset", "Reset_Handler", "reset_handler",
                                          "_init",  "_fini",         "_mainCRTStartup"};

/* The suffix GCC gives the cold part of a function it split (-freorder-blocks-and-partition);
 * that part lives in .text.unlikely.BASE. */
#define LG_COLD_SUFFIX ".cold"

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

bool lg_linkname_is_entry(const char *symbol)
{
    for (size_t i = 0; i < COUNT_OF(entry_names); i++)
        if (strcmp(symbol, entry_names[i]) == 0)
            return true;
    return false;
}

bool lg_linkname_is_text(const char *section)
{
    return strcmp(section, ".text") == 0 || strncmp(section, ".text.", 6) == 0;
}

bool lg_linkname_is_own_section(const char *section)
{
    return strncmp(section, ".text.", 6) == 0 && section[6] != '\0';
}

static bool section_known(const lg_lor_fn_t *f)
{
    return f->section != NULL && !(f->flags & LG_FN_SECTION_INFERRED);
}

/* True when names (the program's symbols) holds SYMBOL.cold. */
static bool has_cold_part(const lg_strmap_t *names, const char *symbol)
{
    char *cold = lg_format("%s%s", symbol, LG_COLD_SUFFIX);
    uint32_t index;
    bool found = cold != NULL && lg_strmap_get(names, cold, &index);
    free(cold);
    return found;
}

void lg_linkname_resolve(lg_lor_t *lor, const lg_program_t *prog, lg_diag_t *d)
{
    lg_strmap_t names;
    lg_strmap_init(&names);
    bool indexed = true;
    for (size_t i = 0; prog != NULL && i < prog->nfns && indexed; i++)
        indexed = lg_strmap_put(&names, prog->fns[i].symbol, (uint32_t)i, NULL);
    lg_strmap_t warned; /* names already warned about as moving together */
    lg_strmap_init(&warned);
    for (size_t i = 0; i < lor->nfns; i++) {
        lg_lor_fn_t *f = &lor->fns[i];
        f->flags &= ~(LG_LOR_FN_PINNED | LG_LOR_FN_UNPREFIXED | LG_LOR_FN_SPLIT);
        if (lg_linkname_is_entry(f->symbol)) {
            f->flags |= LG_LOR_FN_PINNED;
            lg_diag_add(d, LG_NOTE, "",
                        "'%s' is entry code: it stays where the linker script puts it", f->symbol);
            continue;
        }
        if (section_known(f) && !lg_linkname_is_text(f->section)) {
            f->flags |= LG_LOR_FN_PINNED;
            lg_diag_add(d, LG_NOTE, "",
                        "'%s' lives in %s, not in .text: it stays where the linker script puts it",
                        f->symbol, f->section);
            continue;
        }
        uint32_t other;
        if (!section_known(f) && f->symbol[0] == '_' && f->symbol[1] != '\0' && prog != NULL &&
            indexed && !lg_strmap_get(&names, f->symbol + 1, &other))
            f->flags |= LG_LOR_FN_UNPREFIXED;
        if (!section_known(f) && prog != NULL && indexed && has_cold_part(&names, f->symbol))
            f->flags |= LG_LOR_FN_SPLIT;
        if ((f->flags & LG_FN_AMBIGUOUS_NAME) && f->object == NULL &&
            lg_strmap_put(&warned, f->symbol, (uint32_t)i, &other) && other == i)
            lg_diag_add(d, LG_WARNING, "",
                        "several static functions are called '%s' and no object file tells them "
                        "apart: the linker moves all of them to the place of the first (give "
                        "the object files to order each alone)",
                        f->symbol);
    }
    lg_strmap_destroy(&warned);
    lg_strmap_destroy(&names);
}

/* Appends ".text.PREFIXNAME" (NAME of length len) to names; false when memory ran out. */
static bool add_name(char **names, size_t *n, const char *prefix, const char *name, size_t len)
{
    if (*n >= LG_LINKNAME_MAX_SECTIONS)
        return true;
    names[*n] = lg_format(".text.%s%.*s", prefix, (int)len, name);
    return names[(*n)++] != NULL;
}

/* The names GCC may have given symbol's section; with split, not the one of its cold part. */
static bool add_variants(char **names, size_t *n, const char *symbol, bool split)
{
    size_t len = strlen(symbol), cold = strlen(LG_COLD_SUFFIX);
    if (len > cold && strcmp(symbol + len - cold, LG_COLD_SUFFIX) == 0)
        return add_name(names, n, "unlikely.", symbol, len - cold);
    bool ok = true;
    for (size_t i = 0; i < COUNT_OF(gcc_prefixes) && ok; i++)
        if (!split || strcmp(gcc_prefixes[i], "unlikely.") != 0)
            ok = add_name(names, n, gcc_prefixes[i], symbol, len);
    return ok;
}

size_t lg_linkname_sections(const lg_lor_fn_t *f, char *names[LG_LINKNAME_MAX_SECTIONS])
{
    size_t n = 0;
    bool ok;
    if (section_known(f)) {
        names[0] = strdup(f->section);
        ok = names[0] != NULL;
        n = ok ? 1 : 0;
    } else {
        bool split = (f->flags & LG_LOR_FN_SPLIT) != 0;
        ok = add_variants(names, &n, f->symbol, split);
        if (ok && (f->flags & LG_LOR_FN_UNPREFIXED))
            ok = add_variants(names, &n, f->symbol + 1, split);
    }
    if (!ok) {
        lg_linkname_free(names, n);
        return 0;
    }
    return n;
}

void lg_linkname_free(char *names[LG_LINKNAME_MAX_SECTIONS], size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}
