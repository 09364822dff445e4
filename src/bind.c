/* bind.c - build the program model from ELF symbols and bind profiled names to it.
 *
 * Steps:
 *   - pick the functions: those of the linked ELF if one was given, else those of the objects
 *   - fold aliases (several symbols at one address) into one function
 *   - give each function its input section: from its object symbol when objects were read,
 *     else inferred as ".text.<symbol>"
 *   - bind every profiled function (see bind.h for the order of attempts), sum hits and counters,
 *     and map call edges onto arcs between bound functions
 */
#include "bind.h"

#include "mem.h"
#include "strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The section GCC's -ffunction-sections gives a function with no prefix. */
#define LG_TEXT_PREFIX ".text."

typedef struct binder {
    const lg_elfsyms_t *elf;
    lg_program_t *prog;
    lg_diag_t *d;
    lg_strmap_t by_symbol;   /* fns symbol -> first fn */
    uint32_t *next_symbol;   /* per fn: next fn with the same symbol, or UINT32_MAX */
    char **base_names;       /* per fn: symbol without clone suffixes (owned) */
    lg_strmap_t by_base;     /* base name -> first fn */
    uint32_t *next_base;     /* per fn: next fn with the same base name */
    bool *bound;             /* per fn: some profile function bound to it */
} binder_t;

size_t lg_clone_base_len(const char *name)
{
    static const char *const suffixes[] = {".constprop.", ".isra.", ".part.", ".lto_priv.",
                                           ".cold"};
    size_t len = strlen(name);
    bool stripped = true;
    while (stripped) {
        stripped = false;
        /* Numbered suffixes end in digits: find the digits, then the word before them. */
        size_t end = len;
        while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9')
            end--;
        for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
            size_t slen = strlen(suffixes[i]);
            bool numbered = suffixes[i][slen - 1] == '.';
            size_t at = numbered ? end : len;
            if (numbered && end == len)
                continue; /* ".constprop." needs its number */
            if (at > slen && memcmp(name + at - slen, suffixes[i], slen) == 0) {
                len = at - slen;
                stripped = true;
                break;
            }
        }
    }
    return len;
}

int64_t lg_program_find(const lg_program_t *p, const char *symbol)
{
    for (size_t i = 0; i < p->nfns; i++)
        if (strcmp(p->fns[i].symbol, symbol) == 0)
            return (int64_t)i;
    return -1;
}

/* ---- Choosing the functions ---------------------------------------------------------------- */

/* Rank of a symbol among aliases at one address: the lowest wins. A global definition is the
 * name people know; weak and local aliases come after it. */
static int alias_rank(const lg_elfsym_t *s)
{
    return s->is_local ? 2 : s->is_weak ? 1 : 0;
}

static const lg_elfsyms_t *g_sort_elf; /* qsort has no context argument in C11 */

static int cmp_by_place(const void *a, const void *b)
{
    const lg_elfsym_t *x = &g_sort_elf->syms[*(const uint32_t *)a];
    const lg_elfsym_t *y = &g_sort_elf->syms[*(const uint32_t *)b];
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->section_index != y->section_index &&
        g_sort_elf->files[x->file].kind == LG_ELF_OBJECT)
        return x->section_index < y->section_index ? -1 : 1;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (alias_rank(x) != alias_rank(y))
        return alias_rank(x) - alias_rank(y);
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static bool same_place(const lg_elfsyms_t *elf, uint32_t a, uint32_t b)
{
    const lg_elfsym_t *x = &elf->syms[a], *y = &elf->syms[b];
    return x->file == y->file && x->section_index == y->section_index && x->value == y->value;
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Finds the object-file symbol that a linked function came from: same name, and for statics
 * the same source file. Returns UINT32_MAX when there is none. */
static uint32_t find_object_symbol(const lg_elfsyms_t *elf, const lg_elfsym_t *linked)
{
    uint32_t found = UINT32_MAX;
    for (uint32_t i = lg_elfsyms_first(elf, linked->name); i != UINT32_MAX;
         i = elf->next_same_name[i]) {
        const lg_elfsym_t *s = &elf->syms[i];
        if (elf->files[s->file].kind != LG_ELF_OBJECT || s->is_local != linked->is_local)
            continue;
        if (linked->is_local && linked->source_file != NULL &&
            (s->source_file == NULL || strcmp(s->source_file, linked->source_file) != 0))
            continue;
        /* Same-named statics from same-named source files: prefer the one of the same size,
         * else the first in object order. */
        if (found == UINT32_MAX ||
            (elf->syms[found].size != linked->size && s->size == linked->size))
            found = i;
    }
    return found;
}

static char *infer_section(const char *symbol)
{
    size_t n = strlen(LG_TEXT_PREFIX) + strlen(symbol) + 1;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s%s", LG_TEXT_PREFIX, symbol);
    return s;
}

static lg_err_t add_function(binder_t *b, uint32_t sym_index, bool have_objects)
{
    const lg_elfsyms_t *elf = b->elf;
    const lg_elfsym_t *s = &elf->syms[sym_index];
    const lg_elf_file_t *file = &elf->files[s->file];
    lg_program_t *p = b->prog;
    lg_fn_t fn = {0};
    bool ok = true;
    fn.symbol = lg_strdup_opt(s->name, &ok);
    fn.source_file = lg_strdup_opt(s->source_file, &ok);
    fn.size = s->size;
    fn.align = 1;
    fn.address = UINT64_MAX;
    fn.input_order = (uint32_t)p->nfns;
    if (s->is_local)
        fn.flags |= LG_FN_LOCAL;
    const lg_elfsym_t *obj = NULL;
    if (file->kind == LG_ELF_LINKED) {
        fn.address = s->value;
        if (have_objects) {
            uint32_t o = find_object_symbol(elf, s);
            if (o != UINT32_MAX)
                obj = &elf->syms[o];
        }
    } else {
        obj = s;
    }
    if (obj != NULL) {
        fn.section = lg_strdup_opt(obj->section, &ok);
        fn.object = lg_strdup_opt(elf->files[obj->file].path, &ok);
        fn.align = obj->section_align > 1 ? obj->section_align : 1;
        if (obj->section_funcs > 1)
            fn.flags |= LG_FN_SHARED_SECTION;
        if (fn.size == 0)
            fn.size = obj->size;
    } else {
        fn.section = infer_section(s->name);
        ok = ok && fn.section != NULL;
        fn.flags |= LG_FN_SECTION_INFERRED;
    }
    if (!ok || fn.symbol == NULL) {
        free(fn.symbol);
        free(fn.section);
        free(fn.object);
        free(fn.source_file);
        return LG_ENOMEM;
    }
    p->fns[p->nfns++] = fn;
    return LG_OK;
}

static lg_err_t collect_functions(binder_t *b)
{
    const lg_elfsyms_t *elf = b->elf;
    bool have_linked = false, have_objects = false;
    for (size_t i = 0; i < elf->nfiles; i++) {
        if (elf->files[i].kind == LG_ELF_LINKED)
            have_linked = true;
        else
            have_objects = true;
    }
    lg_elf_kind_t wanted = have_linked ? LG_ELF_LINKED : LG_ELF_OBJECT;
    uint32_t *order = malloc((elf->nsyms ? elf->nsyms : 1) * sizeof *order);
    if (order == NULL)
        return LG_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < elf->nsyms; i++)
        if (elf->files[elf->syms[i].file].kind == wanted)
            order[n++] = (uint32_t)i;
    g_sort_elf = elf;
    qsort(order, n, sizeof *order, cmp_by_place);

    lg_program_t *p = b->prog;
    p->fns = calloc(n ? n : 1, sizeof *p->fns);
    if (p->fns == NULL) {
        free(order);
        return LG_ENOMEM;
    }
    lg_err_t err = LG_OK;
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        /* Aliases sort together, best name first: keep that one. */
        if (i > 0 && same_place(elf, order[i - 1], order[i]))
            continue;
        err = add_function(b, order[i], have_objects);
    }
    free(order);
    p->sections_inferred = !have_objects;
    return err;
}

/* ---- Name indexes ---------------------------------------------------------------------------- */

static lg_err_t index_chain(lg_strmap_t *map, uint32_t *next, const char *key, uint32_t index)
{
    uint32_t first;
    if (!lg_strmap_put(map, key, index, &first))
        return LG_ENOMEM;
    next[index] = UINT32_MAX;
    if (first != index) {
        uint32_t tail = first;
        while (next[tail] != UINT32_MAX)
            tail = next[tail];
        next[tail] = index;
    }
    return LG_OK;
}

static lg_err_t build_indexes(binder_t *b)
{
    lg_program_t *p = b->prog;
    size_t n = p->nfns ? p->nfns : 1;
    b->next_symbol = malloc(n * sizeof *b->next_symbol);
    b->next_base = malloc(n * sizeof *b->next_base);
    b->base_names = calloc(n, sizeof *b->base_names);
    b->bound = calloc(n, sizeof *b->bound);
    if (!b->next_symbol || !b->next_base || !b->base_names || !b->bound)
        return LG_ENOMEM;
    for (size_t i = 0; i < p->nfns; i++) {
        LG_CHECK(index_chain(&b->by_symbol, b->next_symbol, p->fns[i].symbol, (uint32_t)i));
        b->base_names[i] = lg_strndup(p->fns[i].symbol, lg_clone_base_len(p->fns[i].symbol));
        if (b->base_names[i] == NULL)
            return LG_ENOMEM;
        LG_CHECK(index_chain(&b->by_base, b->next_base, b->base_names[i], (uint32_t)i));
    }
    for (size_t i = 0; i < p->nfns; i++)
        if (b->next_symbol[i] != UINT32_MAX) {
            for (uint32_t j = (uint32_t)i; j != UINT32_MAX; j = b->next_symbol[j])
                p->fns[j].flags |= LG_FN_AMBIGUOUS_NAME;
        }
    return LG_OK;
}

static void binder_destroy(binder_t *b)
{
    lg_strmap_destroy(&b->by_symbol);
    lg_strmap_destroy(&b->by_base);
    if (b->base_names != NULL)
        for (size_t i = 0; i < b->prog->nfns; i++)
            free(b->base_names[i]);
    free(b->base_names);
    free(b->next_symbol);
    free(b->next_base);
    free(b->bound);
}

/* ---- Binding one profiled name --------------------------------------------------------------- */

/* True when the profile's qualified name mentions this function's source or object file. */
static bool qual_mentions(const char *qual, const lg_fn_t *fn)
{
    if (qual == NULL || *qual == '\0')
        return false;
    if (fn->source_file != NULL && strstr(qual, basename_of(fn->source_file)) != NULL)
        return true;
    if (fn->object == NULL)
        return false;
    const char *obj = basename_of(fn->object);
    if (strstr(qual, obj) != NULL)
        return true;
    /* "util.o" is also mentioned by a qualified name that says "util.c": compare "util.". */
    size_t stem = strcspn(obj, ".");
    char prefix[256];
    if (stem == 0 || stem + 2 > sizeof prefix)
        return false;
    memcpy(prefix, obj, stem);
    prefix[stem] = '.';
    prefix[stem + 1] = '\0';
    return strstr(qual, prefix) != NULL;
}

/* Picks one of the functions chained from first; *count receives how many there were. */
static int64_t pick_candidate(const binder_t *b, const uint32_t *next, uint32_t first,
                              const lg_pfunc_t *f, size_t *count)
{
    const lg_program_t *p = b->prog;
    size_t n = 0, by_qual = 0, by_addr = 0;
    uint32_t qual_pick = UINT32_MAX, addr_pick = UINT32_MAX;
    for (uint32_t i = first; i != UINT32_MAX; i = next[i]) {
        n++;
        if (qual_mentions(f->qual_name, &p->fns[i])) {
            by_qual++;
            qual_pick = i;
        }
        if (f->pc_min != 0 && p->fns[i].address == f->pc_min) {
            by_addr++;
            addr_pick = i;
        }
    }
    *count = n;
    if (n == 1)
        return first;
    if (by_qual == 1)
        return qual_pick;
    if (by_addr == 1)
        return addr_pick;
    return -1;
}

/* Looks name up by symbol. Returns the fn, -1 when absent, -2 when ambiguous. */
static int64_t lookup_symbol(const binder_t *b, const char *name, const lg_pfunc_t *f,
                             size_t *count)
{
    uint32_t first;
    *count = 0;
    if (name == NULL || *name == '\0' || !lg_strmap_get(&b->by_symbol, name, &first))
        return -1;
    int64_t fn = pick_candidate(b, b->next_symbol, first, f, count);
    return fn >= 0 ? fn : -2;
}

static int64_t bind_one(const binder_t *b, const lg_pfunc_t *f, char *reason, size_t reason_len)
{
    size_t count = 0;
    int64_t fn = lookup_symbol(b, f->name, f, &count);
    if (fn == -1)
        fn = lookup_symbol(b, f->link_label, f, &count);
    if (fn == -1) {
        char alt[1024];
        if (f->name[0] == '_')
            snprintf(alt, sizeof alt, "%s", f->name + 1);
        else
            snprintf(alt, sizeof alt, "_%s", f->name);
        fn = lookup_symbol(b, alt, f, &count);
    }
    if (fn == -1) {
        /* Clone suffixes change between builds: compare names without them, if unambiguous. */
        size_t len = lg_clone_base_len(f->name);
        char *base = lg_strndup(f->name, len);
        uint32_t first;
        if (base != NULL && lg_strmap_get(&b->by_base, base, &first)) {
            fn = pick_candidate(b, b->next_base, first, f, &count);
            if (fn < 0)
                fn = -2;
        }
        free(base);
    }
    if (fn == -2) {
        snprintf(reason, reason_len,
                 "%zu functions have that name and the profile's qualified name and address do "
                 "not tell which",
                 count);
        return -1;
    }
    if (fn == -1) {
        snprintf(reason, reason_len,
                 "no function symbol of that name in the ELF inputs (inlined, or another build?)");
        return -1;
    }
    const lg_fn_t *hit = &b->prog->fns[fn];
    if (hit->size == 0) {
        snprintf(reason, reason_len, "symbol %s has size 0 in the symbol table", hit->symbol);
        return -1;
    }
    return fn;
}

static lg_err_t add_unbound(lg_program_t *p, size_t *cap, const char *name, uint64_t hits,
                            const char *reason)
{
    /* The same name from several profiles is one entry with the hits summed. */
    for (size_t i = 0; i < p->nunbound; i++)
        if (strcmp(p->unbound[i].name, name) == 0) {
            p->unbound[i].hits = lg_sat_add(p->unbound[i].hits, hits);
            return LG_OK;
        }
    if (!lg_grow((void **)&p->unbound, cap, p->nunbound + 1, sizeof *p->unbound))
        return LG_ENOMEM;
    lg_unbound_t u = {strdup(name), hits, strdup(reason)};
    if (u.name == NULL || u.reason == NULL) {
        free(u.name);
        free(u.reason);
        return LG_ENOMEM;
    }
    p->unbound[p->nunbound++] = u;
    return LG_OK;
}

static int cmp_unbound(const void *a, const void *b)
{
    const lg_unbound_t *x = a, *y = b;
    if (x->hits != y->hits)
        return x->hits > y->hits ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_arc(const void *a, const void *b)
{
    const lg_arc_t *x = a, *y = b;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    if (x->callee != y->callee)
        return x->callee < y->callee ? -1 : 1;
    return 0;
}

static lg_err_t bind_profiles(binder_t *b, const lg_bind_input_t *inputs, size_t ninputs)
{
    lg_program_t *p = b->prog;
    size_t unbound_cap = 0, arcs_cap = 0;
    uint64_t dropped_edges = 0, dropped_weight = 0;
    for (size_t k = 0; k < ninputs; k++) {
        const lg_profile_t *prof = inputs[k].profile;
        double scale = inputs[k].scale;
        if (prof->has_call_edges)
            p->has_call_edges = true;
        int64_t *map = malloc((prof->nfuncs ? prof->nfuncs : 1) * sizeof *map);
        if (map == NULL)
            return LG_ENOMEM;
        for (size_t i = 0; i < prof->nfuncs; i++) {
            const lg_pfunc_t *f = &prof->funcs[i];
            char reason[512];
            map[i] = bind_one(b, f, reason, sizeof reason);
            if (map[i] < 0) {
                lg_err_t err = add_unbound(p, &unbound_cap, f->name, lg_scale_count(f->hits, scale),
                                           reason);
                if (err != LG_OK) {
                    free(map);
                    return err;
                }
                continue;
            }
            lg_fn_t *fn = &p->fns[map[i]];
            b->bound[map[i]] = true;
            fn->hits = lg_sat_add(fn->hits, lg_scale_count(f->hits, scale));
            fn->counter1_self = lg_sat_add(fn->counter1_self, lg_scale_count(f->counter1_self, scale));
            fn->counter2_self = lg_sat_add(fn->counter2_self, lg_scale_count(f->counter2_self, scale));
        }
        for (size_t i = 0; i < prof->nedges; i++) {
            const lg_pedge_t *e = &prof->edges[i];
            int64_t from = map[e->caller], to = map[e->callee];
            if (from < 0 || to < 0) {
                dropped_edges++;
                dropped_weight = lg_sat_add(dropped_weight, e->weight);
                continue;
            }
            if (!lg_grow((void **)&p->arcs, &arcs_cap, p->narcs + 1, sizeof *p->arcs)) {
                free(map);
                return LG_ENOMEM;
            }
            p->arcs[p->narcs++] = (lg_arc_t){(uint32_t)from, (uint32_t)to, lg_scale_count(e->weight, scale)};
        }
        free(map);
    }
    if (p->narcs > 0) {
        qsort(p->arcs, p->narcs, sizeof *p->arcs, cmp_arc);
        size_t out = 0;
        for (size_t i = 0; i < p->narcs; i++) {
            if (out > 0 && cmp_arc(&p->arcs[out - 1], &p->arcs[i]) == 0)
                p->arcs[out - 1].weight = lg_sat_add(p->arcs[out - 1].weight, p->arcs[i].weight);
            else
                p->arcs[out++] = p->arcs[i];
        }
        p->narcs = out;
    }
    if (p->nunbound > 0)
        qsort(p->unbound, p->nunbound, sizeof *p->unbound, cmp_unbound);
    for (size_t i = 0; i < p->nfns; i++)
        if (b->bound[i])
            p->nprofiled++;
    if (dropped_edges > 0)
        lg_diag_add(b->d, LG_NOTE, "",
                    "%llu call edges (weight %llu) touch unbound functions and were left out",
                    (unsigned long long)dropped_edges, (unsigned long long)dropped_weight);
    return LG_OK;
}

lg_err_t lg_bind(const lg_bind_input_t *inputs, size_t ninputs, const lg_elfsyms_t *elf,
                 lg_program_t *out, lg_diag_t *d)
{
    binder_t b = {.elf = elf, .prog = out, .d = d};
    lg_strmap_init(&b.by_symbol);
    lg_strmap_init(&b.by_base);
    lg_err_t err = collect_functions(&b);
    if (err == LG_OK && out->nfns == 0)
        err = lg_diag_fail(d, LG_EUNSUPPORTED, "",
                           "the ELF inputs define no function symbols in executable sections "
                           "(stripped?)");
    if (err == LG_OK)
        err = build_indexes(&b);
    if (err == LG_OK)
        err = bind_profiles(&b, inputs, ninputs);
    binder_destroy(&b);
    if (err != LG_OK) {
        if (err == LG_ENOMEM)
            lg_diag_add(d, LG_ERROR, "", "out of memory while binding profiles to symbols");
        lg_program_destroy(out);
        lg_program_init(out);
    }
    return err;
}
