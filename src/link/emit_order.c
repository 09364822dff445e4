/* emit_order.c - gold section list and lld symbol list; see emit_order.h. */
#include "emit_order.h"

#include "linkname.h"
#include "objpath.h"
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

/* Says once that the cache placement's padding and alignment do not reach this linker, and once
 * how many functions lose the phase chosen for them in the cache line (phase=): a list of names
 * has no room for the padding to the phase a GNU ld script puts before them. */
static void note_lost_placement(const lg_lor_t *lor, const char *linker, lg_diag_t *d)
{
    bool padded = lor->section_align > 1;
    for (size_t c = 0; c < lor->ncliques && !padded; c++)
        padded = lor->cliques[c].pad_before > 0;
    if (padded)
        lg_diag_add(d, LG_NOTE, "",
                    "%s's ordering file cannot hold the padding and alignment the cache "
                    "placement chose: the order is kept, the cache offsets are not (use a GNU "
                    "ld script for them)",
                    linker);
    size_t phased = 0;
    for (size_t i = 0; i < lor->nfns; i++)
        phased += (lor->fns[i].flags & LG_FN_PHASED) && !(lor->fns[i].flags & LG_LOR_FN_PINNED);
    if (phased > 0)
        lg_diag_add(d, LG_NOTE, "",
                    "%s's ordering file cannot hold the phase in the cache line chosen for %zu "
                    "%s in the order, not %s phase (use a GNU ld script for %s; "
                    "`lorgen check` reports a function off its phase, and --no-phase chooses "
                    "none)",
                    linker, phased,
                    phased == 1 ? "function: it keeps its place"
                                : "functions: they keep their place",
                    phased == 1 ? "its" : "their", phased == 1 ? "it" : "them");
}

/* Writes line for name unless name was written before; false when memory ran out. */
static bool write_once(lg_strmap_t *written, const char *name, const char *line, FILE *out)
{
    size_t before = written->count;
    if (!lg_strmap_put(written, name, (uint32_t)before, NULL))
        return false;
    if (written->count > before)
        fprintf(out, "%s\n", line);
    return true;
}

/* The gold lines of the names f may have (lines[k] for names[k]); LG_EUNSUPPORTED, with a
 * warning and no lines, when one of them cannot be said or would take another section. */
static lg_err_t gold_lines(const lg_lor_fn_t *f, char **names, size_t n, char **lines, lg_diag_t *d)
{
    char shown[LG_LINKNAME_SHOW_BYTES], name[LG_LINKNAME_SHOW_BYTES];
    lg_err_t err = LG_OK;
    size_t k = 0;
    for (; k < n && err == LG_OK; k++) {
        err = lg_linkname_gold_line(names[k], &lines[k]);
        if (err == LG_OK && lines[k] == NULL) {
            lg_diag_add(d, LG_WARNING, "",
                        "'%s' is left out of the gold list: its section name '%s' holds a "
                        "newline, and gold reads one name per line",
                        lg_linkname_show(f->symbol, shown), lg_linkname_show(names[k], name));
            err = LG_EUNSUPPORTED;
        }
    }
    if (err == LG_OK && (f->flags & LG_LOR_FN_GOLD_CLASH)) {
        lg_diag_add(d, LG_WARNING, "",
                    "'%s' is left out of the gold list: its section name holds a wildcard, and "
                    "the escaped line is the name of another section of the program, which gold "
                    "would take first",
                    lg_linkname_show(f->symbol, shown));
        err = LG_EUNSUPPORTED;
    }
    if (err != LG_OK) {
        for (size_t i = 0; i < k; i++) {
            free(lines[i]);
            lines[i] = NULL;
        }
    }
    return err;
}

/* Warns that the static functions named like f move together, once per name: at the first
 * function (index i) of that name that warned has not seen. how says what the linker orders by. */
static void warn_statics_move_together(lg_strmap_t *warned, const lg_lor_fn_t *f, size_t i,
                                       const char *how, lg_diag_t *d)
{
    uint32_t first;
    if ((f->flags & LG_FN_AMBIGUOUS_NAME) && f->object != NULL &&
        lg_strmap_put(warned, f->symbol, (uint32_t)i, &first) && first == i) {
        char shown[LG_LINKNAME_SHOW_BYTES];
        lg_diag_add(d, LG_WARNING, "",
                    "%s: the static functions called '%s' move together, to the place of the "
                    "first",
                    how, lg_linkname_show(f->symbol, shown));
    }
}

lg_err_t lg_emit_gold_sections(const lg_lor_t *lor, FILE *out, lg_diag_t *d)
{
    note_lost_placement(lor, "gold", d);
    /* The map keeps pointers to its keys: every name stays alive until the end. */
    char **all = calloc(lor->nfns * LG_LINKNAME_MAX_SECTIONS + 1, sizeof *all);
    if (all == NULL)
        return LG_ENOMEM;
    size_t nall = 0;
    lg_strmap_t written;
    lg_strmap_init(&written);
    lg_strmap_t warned;
    lg_strmap_init(&warned);
    lg_err_t err = LG_OK;
    for (size_t i = 0; i < lor->nfns && err == LG_OK; i++) {
        const lg_lor_fn_t *f = &lor->fns[i];
        if (f->flags & LG_LOR_FN_PINNED)
            continue;
        bool exact = f->section != NULL && !(f->flags & LG_FN_SECTION_INFERRED);
        if (exact && !lg_linkname_is_own_section(f->section)) {
            char shown[LG_LINKNAME_SHOW_BYTES], section[LG_LINKNAME_SHOW_BYTES];
            lg_diag_add(d, LG_WARNING, "",
                        "gold orders by section name only: '%s' is in a section named %s, "
                        "which would take every object's %s, so it is left out",
                        lg_linkname_show(f->symbol, shown), lg_linkname_show(f->section, section),
                        section);
            continue;
        }
        if (exact && (f->flags & LG_FN_SECTION_NAME_SHARED) && !(f->flags & LG_FN_AMBIGUOUS_NAME)) {
            /* glibc's libc.a has a .text.avx in many members: the name would take them all.
             * Same-named statics share their section's name too, and move together, as
             * warn_statics_move_together says. */
            char shown[LG_LINKNAME_SHOW_BYTES], section[LG_LINKNAME_SHOW_BYTES];
            lg_diag_add(d, LG_WARNING, "",
                        "gold orders by section name only: '%s' is in a section named %s, as "
                        "are sections of other object files given, which that name would take "
                        "too, so it is left out",
                        lg_linkname_show(f->symbol, shown), lg_linkname_show(f->section, section));
            continue;
        }
        size_t n = lg_linkname_sections(f, all + nall);
        if (n == 0) {
            err = LG_ENOMEM;
            break;
        }
        char *lines[LG_LINKNAME_MAX_SECTIONS] = {NULL};
        err = gold_lines(f, all + nall, n, lines, d);
        if (err == LG_OK)
            warn_statics_move_together(&warned, f, i, "gold orders by section name only", d);
        for (size_t k = 0; k < n && err == LG_OK; k++)
            if (!write_once(&written, all[nall + k], lines[k], out))
                err = LG_ENOMEM;
        for (size_t k = 0; k < n; k++)
            free(lines[k]);
        nall += n;
        if (err == LG_EUNSUPPORTED)
            err = LG_OK;
    }
    lg_strmap_destroy(&warned);
    lg_strmap_destroy(&written);
    for (size_t i = 0; i < nall; i++)
        free(all[i]);
    free(all);
    if (err != LG_OK)
        return err;
    return ferror(out) ? LG_EIO : LG_OK;
}

/* The other names lld may know a function by (lg_program_t.aliases), grouped by function. */
typedef struct alias_index {
    const lg_program_t *prog;
    uint32_t *by_fn; /* alias indexes, sorted by function, then by index */
    size_t n;
    lg_strmap_t count;        /* function symbol or alias name -> how many entries have it */
    lg_strmap_t fn_of_symbol; /* function symbol -> its first function */
    uint32_t *counts;         /* the counts, indexed by the map's values */
    size_t ncounts;
} alias_index_t;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Counts one more entry called name. */
static bool count_name(alias_index_t *x, const char *name)
{
    uint32_t k;
    if (!lg_strmap_put(&x->count, name, (uint32_t)x->ncounts, &k))
        return false;
    if (x->count.count > x->ncounts)
        x->counts[x->ncounts++] = 0;
    x->counts[lg_strmap_get(&x->count, name, &k) ? k : 0]++;
    return true;
}

static void alias_index_destroy(alias_index_t *x)
{
    free(x->by_fn);
    free(x->counts);
    lg_strmap_destroy(&x->count);
    lg_strmap_destroy(&x->fn_of_symbol);
}

static lg_err_t alias_index_build(const lg_program_t *prog, alias_index_t *x)
{
    memset(x, 0, sizeof *x);
    lg_strmap_init(&x->count);
    lg_strmap_init(&x->fn_of_symbol);
    x->prog = prog;
    if (prog == NULL || prog->naliases == 0)
        return LG_OK;
    /* (fn << 32 | index) sorts the aliases by function, keeping their order within one. */
    uint64_t *keys = malloc(prog->naliases * sizeof *keys);
    x->by_fn = malloc(prog->naliases * sizeof *x->by_fn);
    x->counts = malloc((prog->nfns + prog->naliases) * sizeof *x->counts);
    if (keys == NULL || x->by_fn == NULL || x->counts == NULL) {
        free(keys);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < prog->naliases; i++)
        keys[i] = ((uint64_t)prog->aliases[i].fn << 32) | (uint32_t)i;
    qsort(keys, prog->naliases, sizeof *keys, cmp_u64);
    for (size_t i = 0; i < prog->naliases; i++)
        x->by_fn[i] = (uint32_t)keys[i];
    x->n = prog->naliases;
    free(keys);
    for (size_t i = 0; i < prog->nfns; i++)
        if (!count_name(x, prog->fns[i].symbol) ||
            !lg_strmap_put(&x->fn_of_symbol, prog->fns[i].symbol, (uint32_t)i, NULL))
            return LG_ENOMEM;
    for (size_t i = 0; i < prog->naliases; i++)
        if (!count_name(x, prog->aliases[i].name))
            return LG_ENOMEM;
    return LG_OK;
}

/* True when name is had by one function or alias of the program only. */
static bool unique_name(const alias_index_t *x, const char *name)
{
    uint32_t k;
    return lg_strmap_get(&x->count, name, &k) && x->counts[k] == 1;
}

/* The first entry of x->by_fn that is an alias of function fn, or x->n when none is. */
static size_t first_alias(const alias_index_t *x, uint32_t fn)
{
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->prog->aliases[x->by_fn[mid]].fn < fn)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The program function the .LOR's f is: the one function of its symbol, unless it is of
 * another object than f names; -1 otherwise. */
static int64_t lor_function(const alias_index_t *x, const lg_lor_fn_t *f)
{
    uint32_t k;
    if (!unique_name(x, f->symbol) || !lg_strmap_get(&x->fn_of_symbol, f->symbol, &k) ||
        k == UINT32_MAX)
        return -1;
    const lg_fn_t *fn = &x->prog->fns[k];
    if (f->object != NULL && fn->object != NULL && lg_objpath_match(f->object, fn->object) == 0)
        return -1;
    return (int64_t)k;
}

lg_err_t lg_emit_lld_symbols(const lg_lor_t *lor, const lg_program_t *prog, FILE *out, lg_diag_t *d)
{
    note_lost_placement(lor, "lld", d);
    lg_strmap_t written;
    lg_strmap_init(&written);
    lg_strmap_t warned;
    lg_strmap_init(&warned);
    alias_index_t aliases;
    lg_err_t err = alias_index_build(prog, &aliases);
    for (size_t i = 0; i < lor->nfns && err == LG_OK; i++) {
        const lg_lor_fn_t *f = &lor->fns[i];
        if (f->flags & LG_LOR_FN_PINNED)
            continue;
        if (!lg_linkname_lld_sayable(f->symbol)) {
            char shown[LG_LINKNAME_SHOW_BYTES];
            lg_diag_add(d, LG_WARNING, "",
                        "'%s' is left out of the lld list: lld trims white space from both ends "
                        "of a line, reads a line starting with '#' as a comment and one name per "
                        "line, so it cannot name this symbol",
                        lg_linkname_show(f->symbol, shown));
            continue;
        }
        warn_statics_move_together(&warned, f, i, "lld orders by symbol name", d);
        if (!write_once(&written, f->symbol, f->symbol, out)) {
            err = LG_ENOMEM;
            break;
        }
        /* lld may give a name other code than the function's: an IFUNC whose address a static
         * program takes names its PLT entry, and its resolver is left where it was. Its other
         * names, each the function's alone, still name the code. */
        int64_t k = aliases.n > 0 ? lor_function(&aliases, f) : -1;
        for (size_t a = k >= 0 ? first_alias(&aliases, (uint32_t)k) : aliases.n;
             a < aliases.n && prog->aliases[aliases.by_fn[a]].fn == (uint32_t)k && err == LG_OK;
             a++) {
            const char *name = prog->aliases[aliases.by_fn[a]].name;
            if (unique_name(&aliases, name) && lg_linkname_lld_sayable(name) &&
                !write_once(&written, name, name, out))
                err = LG_ENOMEM;
        }
    }
    alias_index_destroy(&aliases);
    lg_strmap_destroy(&warned);
    lg_strmap_destroy(&written);
    if (err != LG_OK)
        return err;
    return ferror(out) ? LG_EIO : LG_OK;
}
