/* lor_check.c - checks a .LOR against the program it orders, and turns a checked .LOR into the
 * program's layout: both find the program function each fn line names. */
#include "lor.h"

#include "bind.h"
#include "lor_internal.h"
#include "mem.h"
#include "objpath.h"
#include "select.h"
#include "strmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* find_fn: the name exists, but not in the object or source file the .LOR says. */
#define FILE_MISMATCH (-2)

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* How well f's object and source name fn: lg_objpath_match of the two objects (LG_OBJPATH_SAME
 * best), or 1 for the same source file alone; 0 when neither says; -1 when either names another
 * file. */
static int64_t file_match(const lg_lor_fn_t *f, const lg_fn_t *fn)
{
    int64_t score = 0;
    if (f->object != NULL && fn->object != NULL) {
        unsigned match = lg_objpath_match(f->object, fn->object);
        if (match == 0)
            return -1;
        score = match;
    }
    if (f->source != NULL && fn->source_file != NULL) {
        if (strcmp(f->source, fn->source_file) != 0)
            return -1;
        score = score > 1 ? score : 1;
    }
    return score;
}

/* The program function a .LOR entry names; same-named statics are told apart by object or
 * source file, the closest match first. -1 when no function has that name; FILE_MISMATCH when
 * some do, but every one of them is in another object or source file than the entry says. */
static int64_t find_fn(const lg_program_t *prog, const lg_strmap_t *by_symbol,
                       const uint32_t *next, const lg_lor_fn_t *f)
{
    uint32_t first;
    if (!lg_strmap_get(by_symbol, f->symbol, &first))
        return -1;
    int64_t pick = -1, best = -1;
    for (uint32_t i = first; i != UINT32_MAX; i = next[i]) {
        int64_t score = file_match(f, &prog->fns[i]);
        if (score > best) {
            best = score;
            pick = i;
        }
    }
    /* A function the .LOR puts in another file would make a linker pattern that matches
     * nothing: the caller says so instead of taking another function of that name. */
    return best >= 0 ? pick : FILE_MISMATCH;
}

/* The only program function with f's name once clone suffixes (.constprop.N, .isra.N, ...)
 * are ignored on both sides; for statics, the one of f's object or source file (the closest
 * match). -1 when there is none or the choice is not clear. */
static int64_t find_clone(const lg_program_t *prog, const lg_lor_fn_t *f)
{
    size_t base = lg_clone_base_len(f->symbol);
    int64_t pick = -1, best = 0;
    size_t found = 0;
    for (size_t i = 0; i < prog->nfns; i++) {
        const lg_fn_t *fn = &prog->fns[i];
        if (lg_clone_base_len(fn->symbol) != base || strncmp(fn->symbol, f->symbol, base) != 0)
            continue;
        /* Same-named statics: skip the ones another object or source file holds. */
        int64_t score = file_match(f, fn);
        if (score < best)
            continue;
        if (score > best)
            found = 0;
        best = score;
        pick = (int64_t)i;
        found++;
    }
    return found == 1 ? pick : -1;
}

/* functions= is what the clique held when the file was written: a fn line deleted, added or
 * moved since shows as a difference. Those are edits people make on purpose, so this is a
 * warning with the line; what such an edit did to the cache offsets is follow_placement's note. */
static void check_counts(const lg_lor_t *lor, const char *path, lg_diag_t *d)
{
    char where[4096];
    for (size_t c = 0; c < lor->ncliques; c++) {
        const lg_lor_clique_t *cl = &lor->cliques[c];
        if (cl->stated_count == LG_LOR_NOT_STATED || cl->stated_count == cl->count)
            continue;
        snprintf(where, sizeof where, "%s:%zu", path, cl->line);
        lg_diag_add(d, LG_WARNING, where,
                    "expected %" PRIu64 " fn lines in clique %zu (functions=%" PRIu64
                    "), found %zu: a line was added, deleted or moved (correct functions= if "
                    "that was meant)",
                    cl->stated_count, c + 1, cl->stated_count, cl->count);
    }
}

/* Cliques at the cache offsets placement chose, followed through a checked .LOR. */
typedef struct placement {
    bool on;         /* placement chose offsets, and no clique so far has moved off its own */
    uint64_t chosen; /* bytes from the ordered code's start: where the last clique ended, */
    uint64_t now;    /* as placed, and as laid out now */
} placement_t;

/* Follows clique c (bytes: its size now) and notes the first one that no longer starts at the
 * cache offset placement chose; the ones after it moved with it, so one note says it all. */
static void follow_placement(placement_t *pl, const lg_lor_t *lor, size_t c, uint64_t bytes,
                             const char *where, lg_diag_t *d)
{
    const lg_lor_clique_t *cl = &lor->cliques[c];
    if (!pl->on)
        return;
    if (cl->count > 0 && cl->bytes == 0) {
        pl->on = false;
        return;
    }
    uint64_t way = lor->geometry.cache_size / lor->geometry.ways; /* bytes one way maps */
    uint64_t align = cl->count > 0 ? lor->fns[cl->first].align : 1;
    uint64_t chosen = lg_place_after(lg_sat_add(pl->chosen, cl->pad_before), 0, align);
    uint64_t now = lg_place_after(lg_sat_add(pl->now, cl->pad_before), 0, align);
    if (chosen % way != now % way) {
        lg_diag_add(d, LG_NOTE, where,
                    "clique %zu now starts at cache offset %" PRIu64 ", placement chose %" PRIu64
                    ": the code before it is %" PRIu64 " bytes %s than when it was placed (an "
                    "edit, or sizes that changed), which moves every later clique too; rerun "
                    "lorgen to place them again",
                    c + 1, now % way, chosen % way, now > chosen ? now - chosen : chosen - now,
                    now > chosen ? "longer" : "shorter");
        pl->on = false;
        return;
    }
    pl->chosen = lg_sat_add(chosen, cl->bytes);
    pl->now = lg_sat_add(now, bytes);
}

/* The object files given, each distinct path once, found by base name: a .LOR's object= is
 * resolved to one of them (objpath.h), so that the writers name the object as the linker sees
 * it. The paths are the program's: its list of objects, and its functions' objects (a program
 * made in code may have no list). */
typedef struct given_objects {
    const char **paths;
    uint32_t *next; /* per path: the next one with its base name, or UINT32_MAX */
    size_t n;
    lg_strmap_t by_path, by_base;
} given_objects_t;

static void given_objects_destroy(given_objects_t *g)
{
    free(g->paths);
    free(g->next);
    lg_strmap_destroy(&g->by_path);
    lg_strmap_destroy(&g->by_base);
}

static lg_err_t given_objects_build(given_objects_t *g, const lg_program_t *prog)
{
    memset(g, 0, sizeof *g);
    lg_strmap_init(&g->by_path);
    lg_strmap_init(&g->by_base);
    size_t cap = prog->nobjects + prog->nfns ? prog->nobjects + prog->nfns : 1;
    g->paths = malloc(cap * sizeof *g->paths);
    g->next = malloc(cap * sizeof *g->next);
    if (g->paths == NULL || g->next == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->nobjects + prog->nfns; i++) {
        const char *object = i < prog->nobjects ? prog->objects[i]
                                                : prog->fns[i - prog->nobjects].object;
        uint32_t at = (uint32_t)g->n, existing;
        if (object == NULL)
            continue;
        if (!lg_strmap_put(&g->by_path, object, at, &existing))
            return LG_ENOMEM;
        if (g->by_path.count == g->n)
            continue; /* seen already */
        g->paths[g->n] = object;
        if (!lg_strmap_put_chained(&g->by_base, g->next, base_of(object), at))
            return LG_ENOMEM;
        g->n++;
    }
    return LG_OK;
}

/* The given object that lor_object names best, or -1 when none has its base name; *tie is
 * another one it names as well, or -1. */
static int64_t given_object_for(const given_objects_t *g, const char *lor_object, int64_t *tie)
{
    uint32_t first;
    *tie = -1;
    if (!lg_strmap_get(&g->by_base, base_of(lor_object), &first))
        return -1;
    int64_t pick = -1;
    unsigned best = 0;
    for (uint32_t i = first; i != UINT32_MAX; i = g->next[i]) {
        unsigned match = lg_objpath_match(lor_object, g->paths[i]);
        if (match > best) {
            best = match;
            pick = i;
            *tie = -1;
        } else if (match == best && match > 0 && *tie < 0) {
            *tie = i;
        }
    }
    return pick;
}

/* Resolves f's object= to the object given that it names (see objpath.h) and takes that
 * object's spelling: ld matches file patterns against the path it was given (./normal/lex.o,
 * /abs/normal/lex.o), never against the .LOR's text (normal/lex.o). False, with an error, when
 * no object given has its name, or two are named equally well. */
static bool resolve_object(const given_objects_t *g, lg_lor_fn_t *f, const char *where,
                           lg_diag_t *d, bool *ok)
{
    int64_t tie;
    int64_t o = given_object_for(g, f->object, &tie);
    if (o < 0) {
        lg_diag_add(d, LG_ERROR, where,
                    "expected object=%s among the ELF inputs, found no such object file: give "
                    "it, or correct object=",
                    f->object);
        return false;
    }
    if (tie >= 0) {
        lg_diag_add(d, LG_ERROR, where,
                    "expected object=%s to name one of the object files given, found two it "
                    "names equally well: %s and %s (write as much of the path as tells them "
                    "apart)",
                    f->object, g->paths[o], g->paths[tie]);
        return false;
    }
    if (strcmp(f->object, g->paths[o]) != 0) {
        free(f->object);
        f->object = lg_strdup_opt(g->paths[o], ok);
    }
    return true;
}

/* Says where the functions named like f are, when none is in the object or source file f names:
 * a pattern for the file the .LOR names would match nothing. */
static void file_mismatch(const lg_program_t *prog, const lg_strmap_t *by_symbol,
                          const uint32_t *next, const lg_lor_fn_t *f, const char *where,
                          lg_diag_t *d)
{
    uint32_t first = UINT32_MAX;
    size_t others = 0;
    lg_strmap_get(by_symbol, f->symbol, &first);
    for (uint32_t i = first; i != UINT32_MAX && next[i] != UINT32_MAX; i = next[i])
        others++;
    const lg_fn_t *fn = &prog->fns[first];
    bool by_object =
        f->object != NULL && fn->object != NULL && lg_objpath_match(f->object, fn->object) == 0;
    char more[64] = "";
    if (others > 0)
        snprintf(more, sizeof more, " (and %zu other file%s)", others, others > 1 ? "s" : "");
    lg_diag_add(d, LG_ERROR, where,
                "expected function '%s' in %s %s, found it in %s%s: correct %s= (a linker "
                "pattern for %s would match nothing)",
                f->symbol, by_object ? "object" : "source file", by_object ? f->object : f->source,
                by_object ? fn->object : fn->source_file, more, by_object ? "object" : "source",
                by_object ? f->object : f->source);
}

/* Aligns f, phased, to the line, or to its section's alignment fn->align when that is larger.
 * False, with an error, when its phase is not a multiple of the section's alignment: the linker
 * aligns the input section after the script's padding, so the code would start further on. */
static bool phase_fits(const lg_lor_t *lor, lg_lor_fn_t *f, const lg_fn_t *fn, const char *where,
                       lg_diag_t *d)
{
    uint64_t section_align = fn->align > 1 ? fn->align : 1;
    uint64_t line = lor->geometry.line_size;
    f->align = section_align > line ? section_align : line;
    if (f->lead % section_align == 0)
        return true;
    lg_diag_add(d, LG_ERROR, where,
                "expected phase= a multiple of the %" PRIu64 "-byte alignment of section %s, "
                "found %" PRIu64 ": the linker would start '%s' at phase %" PRIu64 " instead",
                section_align, fn->section, f->lead, f->symbol,
                (f->lead + section_align - 1) / section_align * section_align % line);
    return false;
}

/* False, with an error, when f has a phase= but fn cannot move alone (it shares its input
 * section, or its section is unknown): the linker script pads before an input section, so no
 * padding reaches a function inside one, and lorgen check would then blame the pattern. */
static bool phase_reachable(const lg_lor_fn_t *f, const lg_fn_t *fn, const char *where,
                            lg_diag_t *d)
{
    if (lg_fn_movable(fn))
        return true;
    lg_diag_add(d, LG_ERROR, where,
                "expected phase= only on a function that moves alone, found it on '%s': %s; "
                "no padding can reach its phase: delete phase=",
                f->symbol, lg_fn_unmovable_reason(fn));
    return false;
}

/* Makes f name symbol, and forgets its section= when forget_section (it named another
 * function). False when memory runs out (f is left as it was). */
static bool rename_fn(lg_lor_fn_t *f, const char *symbol, bool forget_section)
{
    char *renamed = strdup(symbol);
    if (renamed == NULL)
        return false;
    free(f->symbol);
    f->symbol = renamed;
    if (forget_section) {
        free(f->section);
        f->section = NULL;
    }
    return true;
}

/* The function that name is another name of (by_alias maps lg_program_t.aliases' names to
 * their index; the first of a name wins), or -1. */
static int64_t find_alias(const lg_program_t *prog, const lg_strmap_t *by_alias, const char *name)
{
    uint32_t i;
    return lg_strmap_get(by_alias, name, &i) ? (int64_t)prog->aliases[i].fn : -1;
}

/* The key of a fixed group's member (optimizer/groups.h: its object and section), malloc'd, or
 * NULL when fn is in no group. *ok turns false when memory runs out. */
static char *group_key(const lg_fn_t *fn, bool *ok)
{
    if (!lg_fn_in_group(fn))
        return NULL;
    char *key = lg_format("%s\n%s", fn->object, fn->section);
    *ok = *ok && key != NULL;
    return key;
}

/* A fixed group moves whole, since the linker moves input sections: the .LOR must list all of
 * its members together, in one place. Each group listed otherwise is an error naming the group
 * and its members; *bad counts them. */
static lg_err_t check_groups(const lg_lor_t *lor, const lg_program_t *prog, const uint32_t *fn_of,
                             const char *path, lg_diag_t *d, size_t *bad)
{
    lg_strmap_t index; /* group key -> its first program member */
    lg_strmap_init(&index);
    char **keys = calloc(prog->nfns ? prog->nfns : 1, sizeof *keys);
    uint32_t *members = calloc(prog->nfns ? prog->nfns : 1, sizeof *members); /* per first */
    bool *seen = calloc(prog->nfns ? prog->nfns : 1, sizeof *seen);           /* per first */
    bool ok = keys != NULL && members != NULL && seen != NULL;
    for (size_t i = 0; ok && i < prog->nfns; i++) {
        uint32_t first;
        if ((keys[i] = group_key(&prog->fns[i], &ok)) == NULL)
            continue;
        if (!lg_strmap_put(&index, keys[i], (uint32_t)i, &first))
            ok = false;
        else
            members[first]++;
    }
    for (size_t i = 0; ok && i < lor->nfns;) {
        uint32_t first;
        if (fn_of[i] == UINT32_MAX || keys[fn_of[i]] == NULL ||
            !lg_strmap_get(&index, keys[fn_of[i]], &first)) {
            i++;
            continue;
        }
        /* The run of this group's members from i on, in one clique. */
        size_t run = 1;
        while (i + run < lor->nfns && lor->fns[i + run].clique == lor->fns[i].clique &&
               fn_of[i + run] != UINT32_MAX && keys[fn_of[i + run]] != NULL &&
               strcmp(keys[fn_of[i + run]], keys[first]) == 0)
            run++;
        const lg_fn_t *head = &prog->fns[first];
        char where[4096];
        snprintf(where, sizeof where, "%s:%zu", path, lor->fns[i].line);
        if (members[first] == 1)
            lg_diag_add(d, LG_WARNING, where,
                        "function '%s' shares section %s with other functions: it moves with all "
                        "of them (build with -ffunction-sections)",
                        head->symbol, head->section);
        else if (seen[first] || run < members[first]) {
            if (!seen[first] || run >= members[first])
                (*bad)++; /* once per group: its first incomplete run was counted */
            lg_diag_add(d, LG_ERROR, where,
                        "expected the %" PRIu32 " functions of the fixed group %s(%s), the first "
                        "'%s', listed together in one place, found %s: the linker moves an "
                        "input section whole, so move the group's lines together (or build %s "
                        "with -ffunction-sections)",
                        members[first], head->object, head->section, head->symbol,
                        seen[first] ? "them in two places" : "only some of them here",
                        head->object);
        }
        seen[first] = true;
        i += run;
    }
    lg_strmap_destroy(&index);
    if (keys != NULL)
        for (size_t i = 0; i < prog->nfns; i++)
            free(keys[i]);
    free(keys);
    free(members);
    free(seen);
    return ok ? LG_OK : LG_ENOMEM;
}

lg_err_t lg_lor_check(lg_lor_t *lor, const lg_program_t *prog, const char *path, lg_diag_t *d)
{
    lg_strmap_t by_symbol;
    lg_strmap_init(&by_symbol);
    given_objects_t objects;
    uint32_t *next = malloc((prog->nfns ? prog->nfns : 1) * sizeof *next);
    lg_err_t err = given_objects_build(&objects, prog);
    if (next == NULL)
        err = LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns && err == LG_OK; i++)
        if (!lg_strmap_put_chained(&by_symbol, next, prog->fns[i].symbol, (uint32_t)i))
            err = LG_ENOMEM;
    lg_strmap_t by_alias;
    lg_strmap_init(&by_alias);
    /* The selection the file records (select lines, kept as inputs of kind include/exclude). */
    lg_select_rule_t *rules = malloc((lor->ninputs ? lor->ninputs : 1) * sizeof *rules);
    size_t nrules = 0;
    if (rules == NULL)
        err = LG_ENOMEM;
    for (size_t i = 0; rules != NULL && i < lor->ninputs; i++)
        if (lg_lor_is_select_kind(lor->inputs[i].kind))
            rules[nrules++] = (lg_select_rule_t){strcmp(lor->inputs[i].kind, "include") == 0,
                                                 lor->inputs[i].path};
    /* Per .LOR function: the program function it names, or UINT32_MAX. */
    uint32_t *fn_of = malloc((lor->nfns ? lor->nfns : 1) * sizeof *fn_of);
    if (fn_of == NULL)
        err = LG_ENOMEM;
    for (size_t i = 0; fn_of != NULL && i < lor->nfns; i++)
        fn_of[i] = UINT32_MAX;
    for (size_t i = 0; i < prog->naliases && err == LG_OK; i++)
        if (!lg_strmap_put(&by_alias, prog->aliases[i].name, (uint32_t)i, NULL))
            err = LG_ENOMEM;
    check_counts(lor, path, d);
    size_t unknown = 0, bad_phases = 0, selected_out = 0;
    char where[4096];
    for (size_t i = 0; i < lor->nfns && err == LG_OK; i++) {
        lg_lor_fn_t *f = &lor->fns[i];
        snprintf(where, sizeof where, "%s:%zu", path, f->line);
        /* Without object files nothing says which objects exist: object= is kept as written.
         * With them, it names one of them, or the function cannot be where it says. */
        bool ok = true;
        if (f->object != NULL && objects.n > 0 && !resolve_object(&objects, f, where, d, &ok)) {
            unknown++;
            continue;
        }
        if (!ok) {
            err = LG_ENOMEM;
            break;
        }
        int64_t k = find_fn(prog, &by_symbol, next, f);
        int64_t named = k;
        if (k < 0 && named != FILE_MISMATCH && (k = find_alias(prog, &by_alias, f->symbol)) >= 0) {
            /* One function, two names: the .LOR speaks of it by the one lorgen writes. */
            lg_diag_add(d, LG_NOTE, where,
                        "function '%s' is an alias of '%s' (one function, two names): using it",
                        f->symbol, prog->fns[k].symbol);
            if (!rename_fn(f, prog->fns[k].symbol, false)) {
                err = LG_ENOMEM;
                break;
            }
        } else if (k < 0 && (k = find_clone(prog, f)) >= 0) {
            /* GCC numbers its clones per build: foo.constprop.0 may be foo.constprop.1 now. */
            lg_diag_add(d, LG_WARNING, where,
                        "function '%s' is now '%s' in the ELF inputs (clone suffixes change "
                        "between builds): using it",
                        f->symbol, prog->fns[k].symbol);
            if (!rename_fn(f, prog->fns[k].symbol, true)) { /* section= named the old clone */
                err = LG_ENOMEM;
                break;
            }
        }
        if (k >= 0 && fn_of != NULL)
            fn_of[i] = (uint32_t)k;
        if (k >= 0 && nrules > 0 &&
            lg_select_excludes(rules, nrules, prog->fns[k].symbol, prog->fns[k].object)) {
            lg_diag_add(d, LG_ERROR, where,
                        "function '%s' is taken out by the file's select lines (include and "
                        "exclude), so it cannot be listed: delete its line, or the select line "
                        "that takes it out",
                        prog->fns[k].symbol);
            selected_out++;
            continue;
        }
        if (k < 0) {
            if (named == FILE_MISMATCH)
                file_mismatch(prog, &by_symbol, next, f, where, d);
            else
                lg_diag_add(d, LG_ERROR, where, "function '%s' is not in the ELF inputs",
                            f->symbol);
            unknown++;
            continue;
        }
        const lg_fn_t *fn = &prog->fns[k];
        /* The objects say where the function is now; a section the .LOR names (guessed, or
         * from another build: .text.foo that became .text.unlikely.foo) would match nothing. */
        bool exact_now = !(fn->flags & LG_FN_SECTION_INFERRED);
        if (f->section != NULL && exact_now && strcmp(f->section, fn->section) != 0) {
            if (!(f->flags & LG_FN_SECTION_INFERRED))
                lg_diag_add(d, LG_NOTE, where,
                            "function '%s' is in section %s now, not %s: using %s", f->symbol,
                            fn->section, f->section, fn->section);
            free(f->section);
            f->section = NULL;
        }
        if (exact_now)
            f->flags &= ~(uint32_t)LG_FN_SECTION_INFERRED;
        if (f->size != 0 && f->size != fn->size)
            lg_diag_add(d, LG_WARNING, where,
                        "function '%s' was %" PRIu64 " bytes, the ELF now says %" PRIu64,
                        f->symbol, f->size, fn->size);
        f->size = fn->size;
        /* A group's members share their section: its bytes are the group's, not each one's. */
        f->section_bytes = (fn->flags & LG_FN_SHARED_SECTION) ? 0 : fn->section_bytes;
        f->align = fn->align;
        if ((f->flags & LG_FN_PHASED) && !phase_reachable(f, fn, where, d))
            bad_phases++;
        else if ((f->flags & LG_FN_PHASED) && !phase_fits(lor, f, fn, where, d))
            bad_phases++;
        f->flags |= fn->flags & (LG_FN_SHARED_SECTION | LG_FN_LOCAL | LG_FN_AMBIGUOUS_NAME |
                                 LG_FN_SECTION_NAME_SHARED);
        if (f->section == NULL) {
            f->section = lg_strdup_opt(fn->section, &ok);
            f->flags |= fn->flags & LG_FN_SECTION_INFERRED;
        }
        if (f->object == NULL)
            f->object = lg_strdup_opt(fn->object, &ok);
        if (!ok)
            err = LG_ENOMEM;
    }
    size_t split = 0;
    if (err == LG_OK && selected_out > 0)
        err = lg_diag_fail(d, LG_EINVAL, path,
                           "%zu function(s) listed are taken out by the file's select lines",
                           selected_out);
    if (err == LG_OK && unknown == 0)
        err = check_groups(lor, prog, fn_of, path, d, &split);
    /* Cache-aware placement (section align=) put each clique at a cache offset: the offsets
     * count from the aligned start, through each clique's stated bytes= and pad=. Laid out
     * again with the bytes the ELF gives now, an edit (a deleted, added or moved line) or a
     * size that changed moves the first clique after it, and every later one, off its offset.
     * A clique without bytes= was written by hand: nothing says where placement put it. */
    placement_t pl = {.on = lor->section_align > 1 && lor->geometry.ways > 0};
    for (size_t c = 0; c < lor->ncliques && err == LG_OK && unknown == 0; c++) {
        lg_lor_clique_t *cl = &lor->cliques[c];
        uint64_t bytes = 0, hits = 0;
        for (size_t i = cl->first; i < cl->first + cl->count; i++) {
            /* A phased function starts at its phase, as the optimizer laid it out. */
            const lg_lor_fn_t *f = &lor->fns[i];
            uint64_t size = (cl->flags & LG_CLIQUE_REGION) && f->section_bytes > f->size
                                ? f->section_bytes
                                : f->size;
            bytes = lg_sat_add(lg_start_after(bytes, f->align, f->lead), size);
            hits = lg_sat_add(hits, lor->fns[i].hits);
        }
        snprintf(where, sizeof where, "%s:%zu", path, cl->line);
        follow_placement(&pl, lor, c, bytes, where, d);
        /* The cliques and chains algorithms promise groups that fit the cache; PH's chains and
         * C3's clusters do not try to. */
        bool cache_sized = lor->algorithm == NULL || strcmp(lor->algorithm, "cliques") == 0 ||
                           strcmp(lor->algorithm, "chains") == 0;
        if (cache_sized && bytes > lor->geometry.cache_size && !(cl->flags & LG_CLIQUE_OVERSIZED)) {
            lg_diag_add(d, LG_WARNING, where,
                        "clique %zu is %" PRIu64 " bytes, larger than the %" PRIu32
                        "-byte cache: its functions can no longer all be cached together",
                        c + 1, bytes, lor->geometry.cache_size);
        }
        cl->bytes = bytes;
        cl->hits = hits;
    }
    if (err == LG_OK && unknown > 0)
        err = lg_diag_fail(d, LG_EINVAL, path,
                           "%zu function(s) named in the .LOR are not in the ELF inputs, or not "
                           "in the file it says",
                           unknown);
    if (err == LG_OK && bad_phases > 0)
        err = lg_diag_fail(d, LG_EINVAL, path,
                           "%zu function(s) have a phase= that the linker cannot give them",
                           bad_phases);
    if (err == LG_OK && split > 0)
        err = lg_diag_fail(d, LG_EINVAL, path,
                           "%zu fixed group(s) are not listed whole, in one place", split);
    lg_strmap_destroy(&by_symbol);
    lg_strmap_destroy(&by_alias);
    free(fn_of);
    free(rules);
    given_objects_destroy(&objects);
    free(next);
    return err;
}

lg_err_t lg_lor_to_layout(const lg_lor_t *lor, lg_program_t *prog, lg_layout_t *out, lg_diag_t *d)
{
    lg_strmap_t by_symbol;
    lg_strmap_init(&by_symbol);
    uint32_t *next = malloc((prog->nfns ? prog->nfns : 1) * sizeof *next);
    bool *listed = calloc(prog->nfns ? prog->nfns : 1, sizeof *listed);
    out->cliques = calloc(lor->ncliques ? lor->ncliques : 1, sizeof *out->cliques);
    out->cold = malloc((prog->nfns ? prog->nfns : 1) * sizeof *out->cold);
    lg_err_t err = next && listed && out->cliques && out->cold ? LG_OK : LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns && err == LG_OK; i++)
        if (!lg_strmap_put_chained(&by_symbol, next, prog->fns[i].symbol, (uint32_t)i))
            err = LG_ENOMEM;
    out->geometry = lor->geometry;
    out->algorithm = "lor";
    out->section_align = lor->section_align;
    for (size_t c = 0; c < lor->ncliques && err == LG_OK; c++) {
        const lg_lor_clique_t *cl = &lor->cliques[c];
        lg_clique_t *oc = &out->cliques[out->ncliques++];
        *oc = (lg_clique_t){.bytes = cl->bytes, .hits = cl->hits, .flags = cl->flags,
                            .pad_before = cl->pad_before};
        oc->fns = malloc((cl->count ? cl->count : 1) * sizeof *oc->fns);
        if (oc->fns == NULL) {
            err = LG_ENOMEM;
            break;
        }
        for (size_t i = cl->first; i < cl->first + cl->count; i++) {
            int64_t k = find_fn(prog, &by_symbol, next, &lor->fns[i]);
            if (k < 0) { /* lg_lor_check reported it already */
                err = lg_diag_fail(d, LG_EINVAL, "", "function '%s' is not in the ELF inputs",
                                   lor->fns[i].symbol);
                break;
            }
            if (!listed[k])
                oc->fns[oc->nfns++] = (uint32_t)k;
            listed[k] = true;
            const lg_lor_fn_t *f = &lor->fns[i];
            if (f->flags & LG_FN_PHASED) {
                prog->fns[k].flags |= LG_FN_PHASED;
                prog->fns[k].align = f->align;
                prog->fns[k].lead = f->lead;
            }
        }
    }
    for (size_t i = 0; i < prog->nfns && err == LG_OK; i++)
        if (!listed[i])
            out->cold[out->ncold++] = (uint32_t)i;
    lg_strmap_destroy(&by_symbol);
    free(next);
    free(listed);
    if (err != LG_OK) {
        lg_layout_destroy(out);
        lg_layout_init(out);
    }
    return err;
}

lg_err_t lg_lor_check_region_fit(const lg_lor_t *lor, const char *path, lg_diag_t *d)
{
    lg_err_t err = LG_OK;
    for (size_t r = 0; r < lor->nregions; r++) {
        const lg_lor_region_t *rg = &lor->regions[r];
        uint64_t total = lg_sat_add(lg_sat_add(rg->bytes, rg->held), rg->stubs);
        char where[4096], held[160] = "";
        snprintf(where, sizeof where, "%s:%zu", path, rg->line);
        if (rg->held > 0 || rg->stubs > 0)
            snprintf(held, sizeof held,
                     ", and the link keeps %" PRIu64 " bytes more there (held=%" PRIu64
                     " stubs=%" PRIu64 ")",
                     lg_sat_add(rg->held, rg->stubs), rg->held, rg->stubs);
        if (total > rg->size)
            err = lg_diag_fail(d, LG_EFORMAT, rg->line ? where : path,
                               "region '%s' overflows: its %zu members take %" PRIu64
                               " bytes%s, %" PRIu64 " bytes over its size=%" PRIu64,
                               rg->name, rg->nfns, rg->bytes, held, total - rg->size, rg->size);
        else if (rg->bytes > rg->budget)
            lg_diag_add(d, LG_WARNING, rg->line ? where : path,
                        "region '%s': its %zu members take %" PRIu64 " bytes, more than its "
                        "budget=%" PRIu64 "%s: it fits its size=%" PRIu64
                        " only by taking the headroom",
                        rg->name, rg->nfns, rg->bytes, rg->budget, held, rg->size);
    }
    return err;
}
