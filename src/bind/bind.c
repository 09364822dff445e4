/* bind.c - build the program model from ELF symbols and bind profiled names to it.
 *
 * Steps:
 *   - pick the functions: those of the linked ELF if one was given, else those of the objects
 *   - fold aliases (several symbols at one address) into one function
 *   - give each function its input section: from its object symbol when objects were read,
 *     else inferred as ".text.<symbol>"
 *   - turn the objects' references (relocations) into references between functions
 *   - bind every profiled function (see bind.h for the order of attempts), sum hits and counters,
 *     and map call edges onto arcs between bound functions as this build makes them (calls.h:
 *     calls it inlined are no arcs)
 */
#include "bind.h"

#include "calls.h"
#include "hotspots.h"
#include "mem.h"
#include "objpath.h"
#include "strmap.h"

#include <elf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The section GCC's -ffunction-sections gives a function with no prefix. */
#define LG_TEXT_PREFIX ".text."
/* Functions no object file given defines (LG_FN_SECTION_UNKNOWN) cannot move. From this share
 * of the profile's hits on, in percent, that is a warning: below it, it is startup code
 * (_start, frame_dummy), which the report lists; above it, an archive was most likely left out. */
#define LG_BIND_UNMOVABLE_WARN_PCT 1.0
/* Room for " and N more" after the first LTO object's name, in bytes. */
#define LG_BIND_LTO_MORE_BYTES 32

typedef struct binder {
    const lg_elfsyms_t *elf;
    lg_program_t *prog;
    lg_diag_t *d;
    /* Every symbol name, aliases folded into a function included: name i belongs to
     * fn name_fn[i]. by_symbol maps a name to its first entry, next_symbol chains the rest. */
    const char **names;
    uint32_t *name_fn;
    size_t nnames;
    lg_strmap_t by_symbol;
    uint32_t *next_symbol;
    char **base_names;   /* per fn: symbol without clone suffixes (owned) */
    lg_strmap_t by_base; /* base name -> first fn */
    uint32_t *next_base; /* per fn: next fn with the same base name */
    bool *bound;         /* per fn: some profile function bound to it */
    uint32_t *fn_obj;    /* per fn: the object symbol giving its section, or UINT32_MAX */
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

/* What cmp_by_place reads of a symbol: its place (file, section in an object file, address),
 * then its alias rank and name; its index breaks the last ties (a total order). */
typedef struct place_key {
    uint32_t file;
    uint32_t section; /* section header index in an object file; 0 in a linked one, whose
                         addresses already tell its sections apart */
    uint64_t value;
    int rank; /* alias_rank */
    const char *name;
    uint32_t index; /* into lg_elfsyms_t.syms */
} place_key_t;

static place_key_t place_key(const lg_elfsyms_t *elf, uint32_t i)
{
    const lg_elfsym_t *s = &elf->syms[i];
    bool object = elf->files[s->file].kind == LG_ELF_OBJECT;
    return (place_key_t){s->file, object ? s->section_index : 0, s->value, alias_rank(s), s->name,
                         i};
}

static int cmp_by_place(const void *a, const void *b)
{
    const place_key_t *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->section != y->section)
        return x->section < y->section ? -1 : 1;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    return x->index < y->index ? -1 : 1;
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

/* Machines whose linkers shrink code while linking (relaxation): a function may be smaller in
 * the linked program than in its object, by at most LG_BIND_RELAX_MAX_PERCENT. */
#define LG_BIND_RELAX_MAX_PERCENT 50.0

static bool relaxes_code(uint16_t machine)
{
    return machine == EM_RISCV || machine == EM_XTENSA || machine == EM_MSP430 ||
           machine == EM_AVR;
}

/* False when an object's function of size object_size cannot be the linked one of linked_size:
 * the link took that name's code from another file (a non-PIE static link's
 * _dl_relocate_static_pie is crt1.o's 1-byte stub, not libc.a's 4018 bytes). Unknown sizes
 * (0) prove nothing. */
static bool same_code_size(uint64_t linked_size, uint64_t object_size, uint16_t machine)
{
    if (linked_size == 0 || object_size == 0 || linked_size == object_size)
        return true;
    return relaxes_code(machine) && linked_size < object_size &&
           (double)linked_size * 100.0 >= (double)object_size * (100.0 - LG_BIND_RELAX_MAX_PERCENT);
}

/* The object-file global with hidden or internal visibility that a linked local came from: a
 * linker may make such globals local to the linked file (and file them under no source file),
 * so only the name, unique among globals, ties them; and the size, as same_code_size judges it
 * (lld's copy of crt1.o's _dl_relocate_static_pie is such a local, and libc.a's global of that
 * name is not the code it holds). UINT32_MAX when there is none. */
static uint32_t find_hidden_global(const lg_elfsyms_t *elf, const lg_elfsym_t *linked)
{
    for (uint32_t i = lg_elfsyms_first(elf, linked->name); i != UINT32_MAX;
         i = elf->next_same_name[i]) {
        const lg_elfsym_t *s = &elf->syms[i];
        if (elf->files[s->file].kind == LG_ELF_OBJECT && !s->is_local && s->is_hidden &&
            same_code_size(linked->size, s->size, elf->files[s->file].machine))
            return i;
    }
    return UINT32_MAX;
}

/* The name GNU ld gives the source file of an object without an STT_FILE symbol: the object's,
 * "fileops.o" for "libc.a(fileops.o)"; its length in *len. NULL when path is NULL. */
static const char *object_file_name(const char *path, size_t *len)
{
    if (path == NULL)
        return NULL;
    lg_objpath_t parts = lg_objpath_split(path);
    if (parts.member != NULL) {
        *len = parts.member_len;
        return parts.member;
    }
    const char *name = basename_of(path);
    *len = strlen(name);
    return name;
}

/* True when an object's local symbol s (of the object file or member at path) comes from the
 * file the linked program names for its copy. An object without an STT_FILE symbol (glibc's
 * libc.a members) gets one from GNU ld, named after the object (object_file_name). */
static bool same_source(const char *linked_source, const lg_elfsym_t *s, const char *path)
{
    if (s->source_file != NULL)
        return strcmp(s->source_file, linked_source) == 0;
    size_t name_len = 0;
    const char *name = object_file_name(path, &name_len);
    return name != NULL && strlen(linked_source) == name_len &&
           strncmp(name, linked_source, name_len) == 0;
}

/* How well an object's static s matches the linked static `linked` by source file: 2 when the
 * files agree (or the linked program names none), 1 when it may still be the one (s has no
 * STT_FILE, and lld or gold filed the linked copy under an earlier object's: elfsym.h,
 * sources_partial), 0 when it is another file's. */
static int source_match(const lg_elfsyms_t *elf, const lg_elfsym_t *linked, const lg_elfsym_t *s)
{
    if (linked->source_file == NULL ||
        same_source(linked->source_file, s, elf->files[s->file].path))
        return 2;
    return elf->files[linked->file].sources_partial && s->source_file == NULL ? 1 : 0;
}

/* Finds the object-file symbol that a linked function came from: same name, and for statics
 * the same source file (else, after lld or gold, one of an object without STT_FILE); for a
 * linked local that no static matches, a hidden global of that name. Returns UINT32_MAX when
 * there is none. */
static uint32_t find_object_symbol(const lg_elfsyms_t *elf, const lg_elfsym_t *linked)
{
    uint32_t found = UINT32_MAX;
    int found_match = 0;
    bool tied = false; /* another candidate as good as found, of a member without STT_FILE */
    for (uint32_t i = lg_elfsyms_first(elf, linked->name); i != UINT32_MAX;
         i = elf->next_same_name[i]) {
        const lg_elfsym_t *s = &elf->syms[i];
        if (elf->files[s->file].kind != LG_ELF_OBJECT || s->is_local != linked->is_local)
            continue;
        int match = linked->is_local ? source_match(elf, linked, s) : 2;
        if (match == 0 || !same_code_size(linked->size, s->size, elf->files[s->file].machine))
            continue;
        /* Same-named statics: prefer the one of the named source file, then the one of the
         * same size, else the first in object order. */
        bool sized = s->size == linked->size;
        if (found == UINT32_MAX || match > found_match ||
            (match == found_match && elf->syms[found].size != linked->size && sized)) {
            found = i;
            found_match = match;
            tied = false;
        } else if (match == found_match && (elf->syms[found].size == linked->size) == sized) {
            tied = true;
        }
    }
    /* Two members without STT_FILE, each with a static of that name and size: nothing tells
     * which one lld or gold linked, and a guess would order the other's section. */
    if (found != UINT32_MAX && found_match == 1 && tied)
        return UINT32_MAX;
    if (found == UINT32_MAX && linked->is_local)
        found = find_hidden_global(elf, linked);
    return found;
}

/* The source file a static of a linked file with sources_partial came from, now that its object
 * symbol obj is known: obj's STT_FILE, else the name GNU ld would give it; malloc'd (NULL with
 * *ok false when memory runs out). So the static is named as after a GNU ld link. */
static char *bound_source_file(const lg_elfsyms_t *elf, const lg_elfsym_t *obj, bool *ok)
{
    if (obj->source_file != NULL)
        return lg_strdup_opt(obj->source_file, ok);
    size_t len = 0;
    const char *name = object_file_name(elf->files[obj->file].path, &len);
    char *copy = name != NULL ? lg_strndup(name, len) : NULL;
    *ok = *ok && (name == NULL || copy != NULL);
    return copy;
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
    if (s->is_weak)
        fn.flags |= LG_FN_WEAK;
    const lg_elfsym_t *obj = NULL;
    if (file->kind == LG_ELF_LINKED) {
        /* On ARM, bit 0 of a Thumb function's st_value marks the instruction set, not the
         * address; profiles record the address. */
        fn.address = file->machine == EM_ARM ? s->value & ~(uint64_t)1 : s->value;
        if (have_objects) {
            uint32_t o = find_object_symbol(elf, s);
            if (o != UINT32_MAX)
                obj = &elf->syms[o];
        }
    } else {
        obj = s;
    }
    if (obj != NULL && obj->is_local && file->kind == LG_ELF_LINKED && file->sources_partial) {
        free(fn.source_file);
        fn.source_file = bound_source_file(elf, obj, &ok);
    }
    if (obj != NULL) {
        fn.section = lg_strdup_opt(obj->section, &ok);
        fn.object = lg_strdup_opt(elf->files[obj->file].path, &ok);
        fn.align = obj->section_align > 1 ? obj->section_align : 1;
        fn.section_bytes = obj->section_size;
        if (obj->section_funcs > 1)
            fn.flags |= LG_FN_SHARED_SECTION;
        if (fn.size == 0)
            fn.size = obj->size;
    } else {
        fn.section = infer_section(s->name);
        ok = ok && fn.section != NULL;
        fn.flags |= LG_FN_SECTION_INFERRED;
        /* With objects given, a function none of them defines came from startup files or a
         * library: guessing its section would name one that is not there. */
        if (have_objects)
            fn.flags |= LG_FN_SECTION_UNKNOWN;
    }
    if (!ok || fn.symbol == NULL) {
        free(fn.symbol);
        free(fn.section);
        free(fn.object);
        free(fn.source_file);
        return LG_ENOMEM;
    }
    b->fn_obj[p->nfns] = obj != NULL ? (uint32_t)(obj - elf->syms) : UINT32_MAX;
    p->fns[p->nfns++] = fn;
    return LG_OK;
}

/* True when some linked file (not an object) has a function symbol. */
static bool any_linked_symbol(const lg_elfsyms_t *elf)
{
    for (size_t i = 0; i < elf->nsyms; i++)
        if (elf->files[elf->syms[i].file].kind == LG_ELF_LINKED)
            return true;
    return false;
}

/* Slim LTO objects (elfsym.h: lto_bytecode) name no function and no section: the link makes
 * both. With a linked program the order comes from it, as when no object is given, and a
 * warning names them; without one there is nothing to order, and that is the error. */
static lg_err_t judge_lto_objects(binder_t *b, bool have_linked)
{
    const lg_elfsyms_t *elf = b->elf;
    size_t n = 0, first = 0;
    for (size_t i = 0; i < elf->nfiles; i++)
        if (elf->files[i].lto_bytecode && n++ == 0)
            first = i;
    if (n == 0)
        return LG_OK;
    char more[LG_BIND_LTO_MORE_BYTES] = "";
    if (n > 1)
        snprintf(more, sizeof more, " and %zu more", n - 1);
    const char *what = "GCC LTO bytecode (built with -flto, without -ffat-lto-objects): GIMPLE "
                       "and no machine code yet, so their functions get their code and their "
                       "input sections only when the program is linked";
    if (!have_linked)
        return lg_diag_fail(b->d, LG_EUNSUPPORTED, "",
                            "%s%s: %s. Give the linked program (built with -flto "
                            "-ffunction-sections: its functions are then ordered by their names), "
                            "or objects built with -ffat-lto-objects, linked without -flto",
                            elf->files[first].path, more, what);
    lg_diag_add(b->d, LG_WARNING, "",
                "%s%s: %s. The order comes from the linked program alone, as when no object "
                "file is given, which is right when it was linked with -flto -ffunction-sections",
                elf->files[first].path, more, what);
    return LG_OK;
}

/* p->objects: the object files of elf, by the path their functions' object names. */
static lg_err_t list_objects(lg_program_t *p, const lg_elfsyms_t *elf)
{
    size_t n = 0;
    for (size_t i = 0; i < elf->nfiles; i++)
        n += elf->files[i].kind == LG_ELF_OBJECT;
    p->objects = calloc(n ? n : 1, sizeof *p->objects);
    if (p->objects == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < elf->nfiles; i++) {
        if (elf->files[i].kind != LG_ELF_OBJECT)
            continue;
        p->objects[p->nobjects] = strdup(elf->files[i].path);
        if (p->objects[p->nobjects] == NULL)
            return LG_ENOMEM;
        p->nobjects++;
    }
    return LG_OK;
}

/* True when a linked symbol names an entry of a PLT, not code of its own: lld moves an IFUNC
 * whose address a static program takes (glibc's strcmp) to its canonical PLT entry, with size 0,
 * and its resolver's code keeps only its other names (strcmp_ifunc). The entry is the linker's;
 * the function is the code. */
static bool is_plt_entry(const lg_elfsyms_t *elf, const lg_elfsym_t *s)
{
    static const char plt_prefix[] = ".plt.";
    const char *sec = s->section;
    return elf->files[s->file].kind == LG_ELF_LINKED && s->size == 0 && sec != NULL &&
           (strcmp(sec, ".plt") == 0 || strcmp(sec, ".iplt") == 0 ||
            strncmp(sec, plt_prefix, sizeof plt_prefix - 1) == 0);
}

/* A linked function's object symbol's place: (file << 32) | section index, and its offset. */
typedef struct object_place {
    uint64_t section;
    uint64_t value;
    uint32_t fn;
} object_place_t;

static int cmp_object_place(const void *a, const void *b)
{
    const object_place_t *x = a, *y = b;
    if (x->section != y->section)
        return x->section < y->section ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

/* True when some linked function symbol other than a PLT entry is called name. */
static bool named_in_linked(const lg_elfsyms_t *elf, const char *name)
{
    for (uint32_t i = lg_elfsyms_first(elf, name); i != UINT32_MAX; i = elf->next_same_name[i])
        if (elf->files[elf->syms[i].file].kind == LG_ELF_LINKED &&
            !is_plt_entry(elf, &elf->syms[i]))
            return true;
    return false;
}

/* The names the objects give a linked function's code that no linked function symbol has, so
 * that a .LOR made from another link of the program finds the code by them: after lld moved
 * strcmp to its PLT entry, strcmp.o's strcmp still names the code its strcmp_ifunc names. A
 * name that would stand for several functions is left out. Appended to p->aliases (*cap). */
static lg_err_t add_object_aliases(binder_t *b, size_t *cap)
{
    const lg_elfsyms_t *elf = b->elf;
    lg_program_t *p = b->prog;
    object_place_t *places = malloc((p->nfns ? p->nfns : 1) * sizeof *places);
    uint32_t *fn_of = malloc((elf->nsyms ? elf->nsyms : 1) * sizeof *fn_of); /* per symbol */
    lg_strmap_t taken; /* name -> the first symbol giving it, or UINT32_MAX when several fns */
    lg_strmap_init(&taken);
    lg_err_t err = places != NULL && fn_of != NULL ? LG_OK : LG_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; err == LG_OK && i < p->nfns; i++) {
        uint32_t o = b->fn_obj[i];
        if (o != UINT32_MAX && p->fns[i].address != UINT64_MAX)
            places[n++] =
                (object_place_t){((uint64_t)elf->syms[o].file << 32) | elf->syms[o].section_index,
                                 elf->syms[o].value, (uint32_t)i};
    }
    if (err == LG_OK)
        qsort(places, n, sizeof *places, cmp_object_place);
    for (size_t i = 0; err == LG_OK && i < elf->nsyms; i++) {
        const lg_elfsym_t *s = &elf->syms[i];
        fn_of[i] = UINT32_MAX;
        if (n == 0 || elf->files[s->file].kind != LG_ELF_OBJECT)
            continue;
        object_place_t key = {((uint64_t)s->file << 32) | s->section_index, s->value, 0};
        const object_place_t *hit = bsearch(&key, places, n, sizeof *places, cmp_object_place);
        if (hit == NULL || strcmp(s->name, p->fns[hit->fn].symbol) == 0 ||
            named_in_linked(elf, s->name))
            continue;
        fn_of[i] = hit->fn;
        uint32_t first;
        if (!lg_strmap_put(&taken, s->name, (uint32_t)i, &first))
            err = LG_ENOMEM;
        else if (first != i && fn_of[first] != hit->fn)
            fn_of[first] = UINT32_MAX; /* several functions: none gets the name */
    }
    for (size_t i = 0; err == LG_OK && n > 0 && i < elf->nsyms; i++) {
        uint32_t first;
        if (fn_of[i] == UINT32_MAX || !lg_strmap_get(&taken, elf->syms[i].name, &first) ||
            first != i)
            continue;
        if (!lg_grow((void **)&p->aliases, cap, p->naliases + 1, sizeof *p->aliases) ||
            (p->aliases[p->naliases].name = strdup(elf->syms[i].name)) == NULL) {
            err = LG_ENOMEM;
            break;
        }
        p->aliases[p->naliases++].fn = fn_of[i];
    }
    lg_strmap_destroy(&taken);
    free(places);
    free(fn_of);
    return err;
}

/* p->aliases: every name of b->names that is not its function's own symbol, then the names the
 * objects add (add_object_aliases). */
static lg_err_t list_aliases(binder_t *b, bool have_linked)
{
    lg_program_t *p = b->prog;
    size_t cap = 0;
    for (size_t k = 0; k < b->nnames; k++) {
        if (strcmp(b->names[k], p->fns[b->name_fn[k]].symbol) == 0)
            continue;
        if (!lg_grow((void **)&p->aliases, &cap, p->naliases + 1, sizeof *p->aliases) ||
            (p->aliases[p->naliases].name = strdup(b->names[k])) == NULL)
            return LG_ENOMEM;
        p->aliases[p->naliases++].fn = b->name_fn[k];
    }
    return have_linked ? add_object_aliases(b, &cap) : LG_OK;
}

static lg_err_t collect_functions(binder_t *b)
{
    const lg_elfsyms_t *elf = b->elf;
    bool have_linked = false, have_objects = false;
    for (size_t i = 0; i < elf->nfiles; i++) {
        if (elf->files[i].kind == LG_ELF_LINKED)
            have_linked = true;
        else if (!elf->files[i].lto_bytecode)
            have_objects = true;
    }
    LG_CHECK(judge_lto_objects(b, have_linked && any_linked_symbol(elf)));
    if (have_linked && have_objects && !any_linked_symbol(elf)) {
        /* A stripped program: its objects still name every function and its section. */
        const char *path = "";
        for (size_t i = 0; i < elf->nfiles; i++)
            if (elf->files[i].kind == LG_ELF_LINKED) {
                path = elf->files[i].path;
                break;
            }
        lg_diag_add(b->d, LG_WARNING, path,
                    "the linked program has no function symbols (stripped): the functions come "
                    "from the object files alone, in their order; without its addresses there "
                    "is no estimate and no safeguard (give the unstripped program)");
        have_linked = false;
    }
    lg_elf_kind_t wanted = have_linked ? LG_ELF_LINKED : LG_ELF_OBJECT;
    uint32_t *order = malloc((elf->nsyms ? elf->nsyms : 1) * sizeof *order);
    place_key_t *keys = malloc((elf->nsyms ? elf->nsyms : 1) * sizeof *keys);
    if (order == NULL || keys == NULL) {
        free(order);
        free(keys);
        return LG_ENOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < elf->nsyms; i++)
        if (elf->files[elf->syms[i].file].kind == wanted && !is_plt_entry(elf, &elf->syms[i]))
            keys[n++] = place_key(elf, (uint32_t)i);
    qsort(keys, n, sizeof *keys, cmp_by_place);
    for (size_t i = 0; i < n; i++)
        order[i] = keys[i].index;
    free(keys);

    lg_program_t *p = b->prog;
    p->fns = calloc(n ? n : 1, sizeof *p->fns);
    if (p->fns == NULL) {
        free(order);
        return LG_ENOMEM;
    }
    b->names = malloc((n ? n : 1) * sizeof *b->names);
    b->name_fn = malloc((n ? n : 1) * sizeof *b->name_fn);
    b->fn_obj = malloc((n ? n : 1) * sizeof *b->fn_obj);
    lg_err_t err = b->names && b->name_fn && b->fn_obj ? LG_OK : LG_ENOMEM;
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        /* Aliases sort together, best name first: keep that one, and let the others name it. */
        if (i == 0 || !same_place(elf, order[i - 1], order[i]))
            err = add_function(b, order[i], have_objects);
        b->names[b->nnames] = elf->syms[order[i]].name;
        b->name_fn[b->nnames++] = (uint32_t)(p->nfns - 1);
    }
    free(order);
    p->sections_inferred = !have_objects;
    for (size_t i = 0; i < elf->nfiles; i++)
        p->shared_libraries |= elf->files[i].needs_shared_libraries;
    if (elf->nfiles > 0)
        p->machine = elf->files[0].machine;
    for (size_t i = 0; i < elf->nfiles; i++)
        if (elf->files[i].arm_cpu_arch != 0 &&
            (p->arm_cpu_arch == 0 || elf->files[i].kind == LG_ELF_LINKED)) {
            p->arm_cpu_arch = elf->files[i].arm_cpu_arch;
            if (elf->files[i].kind == LG_ELF_LINKED)
                break;
        }
    if (err == LG_OK)
        err = list_aliases(b, have_linked);
    return err == LG_OK ? list_objects(p, elf) : err;
}

/* ---- Name indexes ---------------------------------------------------------------------------- */

/* LG_FN_SECTION_NAME_SHARED on every function whose input section's name some other object file
 * given also has, linked or not: a linker pattern of that name alone would take those sections
 * too (glibc's libc.a has a .text.sse4.2 in several members). */
static lg_err_t mark_shared_section_names(binder_t *b)
{
    const lg_elfsyms_t *elf = b->elf;
    lg_program_t *p = b->prog;
    /* Per symbol that first has a section name: another object file has that name too. */
    bool *shared = calloc(elf->nsyms ? elf->nsyms : 1, sizeof *shared);
    lg_err_t err = shared != NULL ? LG_OK : LG_ENOMEM;
    lg_strmap_t first_of; /* section name -> its first symbol */
    lg_strmap_init(&first_of);
    for (size_t i = 0; err == LG_OK && i < elf->nsyms; i++) {
        const lg_elfsym_t *s = &elf->syms[i];
        if (elf->files[s->file].kind != LG_ELF_OBJECT || s->section == NULL)
            continue;
        uint32_t k;
        if (!lg_strmap_put(&first_of, s->section, (uint32_t)i, &k))
            err = LG_ENOMEM;
        else if (elf->syms[k].file != s->file)
            shared[k] = true;
    }
    for (size_t i = 0; err == LG_OK && i < p->nfns; i++) {
        uint32_t o = b->fn_obj[i], k;
        if (o != UINT32_MAX && lg_strmap_get(&first_of, elf->syms[o].section, &k) && shared[k])
            p->fns[i].flags |= LG_FN_SECTION_NAME_SHARED;
    }
    lg_strmap_destroy(&first_of);
    free(shared);
    return err;
}

static lg_err_t build_indexes(binder_t *b)
{
    lg_program_t *p = b->prog;
    size_t n = p->nfns ? p->nfns : 1;
    b->next_symbol = malloc((b->nnames ? b->nnames : 1) * sizeof *b->next_symbol);
    b->next_base = malloc(n * sizeof *b->next_base);
    b->base_names = calloc(n, sizeof *b->base_names);
    b->bound = calloc(n, sizeof *b->bound);
    if (!b->next_symbol || !b->next_base || !b->base_names || !b->bound)
        return LG_ENOMEM;
    for (size_t i = 0; i < b->nnames; i++)
        if (!lg_strmap_put_chained(&b->by_symbol, b->next_symbol, b->names[i], (uint32_t)i))
            return LG_ENOMEM;
    for (size_t i = 0; i < p->nfns; i++) {
        b->base_names[i] = lg_strndup(p->fns[i].symbol, lg_clone_base_len(p->fns[i].symbol));
        if (b->base_names[i] == NULL)
            return LG_ENOMEM;
        if (!lg_strmap_put_chained(&b->by_base, b->next_base, b->base_names[i], (uint32_t)i))
            return LG_ENOMEM;
    }
    /* A name several functions answer to makes each of them ambiguous: per chain (from its
     * first entry, the one by_symbol holds), once, so that many statics of one name stay
     * linear. */
    for (size_t i = 0; i < b->nnames; i++) {
        uint32_t first;
        if (!lg_strmap_get(&b->by_symbol, b->names[i], &first) || first != i)
            continue;
        bool several = false;
        for (uint32_t j = b->next_symbol[i]; j != UINT32_MAX && !several; j = b->next_symbol[j])
            several = b->name_fn[j] != b->name_fn[i];
        for (uint32_t j = (uint32_t)i; several && j != UINT32_MAX; j = b->next_symbol[j])
            p->fns[b->name_fn[j]].flags |= LG_FN_AMBIGUOUS_NAME;
    }
    return mark_shared_section_names(b);
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
    free(b->names);
    free(b->name_fn);
    free(b->next_base);
    free(b->bound);
    free(b->fn_obj);
}

/* ---- References between functions (from the objects' relocations) ------------------------- */

/* A function's place in its object: (file << 32) | section index, and the function. */
typedef struct section_fn {
    uint64_t key;
    uint32_t fn;
} section_fn_t;

static int cmp_section_fn(const void *a, const void *b)
{
    const section_fn_t *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* The function alone in section `section` of object file `file`, or UINT32_MAX. */
static uint32_t section_function(const section_fn_t *index, size_t n, uint32_t file,
                                 uint32_t section)
{
    section_fn_t key = {((uint64_t)file << 32) | section, 0};
    const section_fn_t *hit = n ? bsearch(&key, index, n, sizeof *index, cmp_section_fn) : NULL;
    return hit != NULL ? hit->fn : UINT32_MAX;
}

/* Orders by section, then function: the first of a section's entries is its first function. */
static int cmp_section_then_fn(const void *a, const void *b)
{
    const section_fn_t *x = a, *y = b;
    int by_section = cmp_section_fn(a, b);
    return by_section != 0 ? by_section : (x->fn > y->fn) - (x->fn < y->fn);
}

/* The first function (the lowest index) of a section in an index sorted by
 * cmp_section_then_fn; UINT32_MAX when none. */
static uint32_t first_of_section(const section_fn_t *index, size_t n, uint32_t file,
                                 uint32_t section)
{
    uint64_t key = ((uint64_t)file << 32) | section;
    size_t lo = 0, hi = n; /* the first entry whose section is not below key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (index[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && index[lo].key == key ? index[lo].fn : UINT32_MAX;
}

/* Records one reference of the given kind (elfsym.h) between the families of `from` (a
 * function, or UINT32_MAX for data) and `to`. A taken address flags the callee's family; a call
 * or an unclassified reference from code becomes an arc of p->refs, of weight 1 when
 * unclassified (calls.c then asks the profile whether it was a call). */
static lg_err_t add_reference(lg_program_t *p, size_t *cap, uint32_t from, uint32_t to,
                              uint8_t kind)
{
    if (to == UINT32_MAX)
        return LG_OK;
    to = p->fns[to].family;
    if (from == UINT32_MAX || kind == LG_ELFREF_ADDRESS) {
        p->fns[to].flags |= LG_FN_ADDRESS_TAKEN;
        return LG_OK;
    }
    from = p->fns[from].family;
    if (from == to)
        return LG_OK;
    if (!lg_grow((void **)&p->refs, cap, p->nrefs + 1, sizeof *p->refs))
        return LG_ENOMEM;
    p->refs[p->nrefs++] = (lg_arc_t){from, to, kind == LG_ELFREF_CODE ? 1u : 0u};
    return LG_OK;
}

/* lg_fn_t.family of every function: keyed by object and base name in one map, so that many
 * statics of one name in many objects cost no more than distinct names. */
static lg_err_t find_families(binder_t *b)
{
    lg_program_t *p = b->prog;
    lg_strmap_t first;
    lg_strmap_init(&first);
    char **keys = calloc(p->nfns ? p->nfns : 1, sizeof *keys);
    lg_err_t err = keys != NULL ? LG_OK : LG_ENOMEM;
    for (size_t i = 0; err == LG_OK && i < p->nfns; i++) {
        const char *object = p->fns[i].object ? p->fns[i].object : "";
        size_t n = strlen(object) + 1 + strlen(b->base_names[i]) + 1;
        if ((keys[i] = malloc(n)) == NULL) {
            err = LG_ENOMEM;
            break;
        }
        snprintf(keys[i], n, "%s\n%s", object, b->base_names[i]);
        uint32_t rep;
        if (!lg_strmap_put(&first, keys[i], (uint32_t)i, &rep))
            err = LG_ENOMEM;
        else
            p->fns[i].family = lg_strmap_get(&first, keys[i], &rep) ? rep : (uint32_t)i;
    }
    lg_strmap_destroy(&first);
    if (keys != NULL)
        for (size_t i = 0; i < p->nfns; i++)
            free(keys[i]);
    free(keys);
    return err;
}

/* ---- Names the linker resolves to other symbols ------------------------------------------- */

/* Prefixes of GNU ld's and lld's --wrap=SYMBOL: an undefined SYMBOL resolves to __wrap_SYMBOL,
 * an undefined __real_SYMBOL to SYMBOL. */
#define LG_WRAP_PREFIX "__wrap_"
#define LG_REAL_PREFIX "__real_"

/* The default versions of versioned symbols (".symver foo_v2,foo@@V2" defines "foo@@V2"), by
 * the name an undefined reference uses ("foo"). Keys are owned; entries chain as by_symbol's. */
typedef struct version_index {
    lg_strmap_t by_name;
    char **keys;     /* per entry of b->names: its name before "@@", or NULL */
    uint32_t *next;  /* per entry of b->names */
} version_index_t;

static void version_index_destroy(version_index_t *v, size_t nnames)
{
    lg_strmap_destroy(&v->by_name);
    if (v->keys != NULL)
        for (size_t i = 0; i < nnames; i++)
            free(v->keys[i]);
    free(v->keys);
    free(v->next);
}

static lg_err_t build_version_index(const binder_t *b, version_index_t *v)
{
    lg_strmap_init(&v->by_name);
    v->keys = calloc(b->nnames ? b->nnames : 1, sizeof *v->keys);
    v->next = malloc((b->nnames ? b->nnames : 1) * sizeof *v->next);
    if (v->keys == NULL || v->next == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < b->nnames; i++) {
        const char *at = strstr(b->names[i], "@@");
        if (at == NULL || at == b->names[i])
            continue;
        if ((v->keys[i] = lg_strndup(b->names[i], (size_t)(at - b->names[i]))) == NULL ||
            !lg_strmap_put_chained(&v->by_name, v->next, v->keys[i], (uint32_t)i))
            return LG_ENOMEM;
    }
    return LG_OK;
}

/* References from `from` (a function, or UINT32_MAX for data) to every global function that an
 * undefined symbol `name` may resolve to in the link: the function of that name, the default
 * version of a versioned one, and what --wrap would make of it. lorgen does not see the link's
 * options, so it counts every such function as referred to: a profiled call into one of them
 * is then taken as made, never as inlined (an IFUNC's implementations are reached through the
 * loader and are no reference of the caller's; calls.h keeps them by their object instead). */
static lg_err_t add_named_references(const binder_t *b, const version_index_t *v, size_t *cap,
                                     uint32_t from, const char *name, uint8_t kind)
{
    const lg_elfsyms_t *elf = b->elf;
    lg_program_t *p = b->prog;
    size_t len = strlen(name), wrap_len = strlen(LG_WRAP_PREFIX);
    char *wrapped = malloc(wrap_len + len + 1);
    if (wrapped == NULL)
        return LG_ENOMEM;
    memcpy(wrapped, LG_WRAP_PREFIX, wrap_len);
    memcpy(wrapped + wrap_len, name, len + 1);
    const char *real = strncmp(name, LG_REAL_PREFIX, strlen(LG_REAL_PREFIX)) == 0
                           ? name + strlen(LG_REAL_PREFIX)
                           : NULL;
    const char *exact[] = {name, wrapped, real};
    lg_err_t err = LG_OK;
    for (size_t t = 0; err == LG_OK && t < sizeof exact / sizeof exact[0] * 2; t++) {
        /* Each spelling as a symbol name, then as the name of a default version. */
        const char *key = exact[t / 2];
        bool versioned = t % 2 == 1;
        uint32_t k;
        if (key == NULL || *key == '\0' ||
            !lg_strmap_get(versioned ? &v->by_name : &b->by_symbol, key, &k))
            continue;
        for (; err == LG_OK && k != UINT32_MAX; k = versioned ? v->next[k] : b->next_symbol[k]) {
            /* A hidden global is a local of the linked program, and still what the name
             * refers to. */
            uint32_t fn = b->name_fn[k], o = b->fn_obj[fn];
            bool global =
                o != UINT32_MAX ? !elf->syms[o].is_local : !(p->fns[fn].flags & LG_FN_LOCAL);
            if (global)
                err = add_reference(p, cap, from, fn, kind);
        }
    }
    free(wrapped);
    return err;
}

/* p->refs and the LG_FN_REFS_KNOWN / LG_FN_ADDRESS_TAKEN flags from the objects' references
 * (elfsym.h), between clone families: a call may go to foo.part.0 or foo.isra.0 where a profile
 * of another build says foo. Only functions alone in their section know their references: a
 * section's references are those of all the code in it. An undefined symbol names every global
 * function of that name (the linker picks one; any of them may be the callee), also one only
 * the linked program defines (from an archive or object not given). */
static lg_err_t build_references(binder_t *b)
{
    const lg_elfsyms_t *elf = b->elf;
    lg_program_t *p = b->prog;
    LG_CHECK(find_families(b));
    section_fn_t *index = malloc((p->nfns ? p->nfns : 1) * sizeof *index);
    bool *unknown = calloc(p->nfns ? p->nfns : 1, sizeof *unknown); /* per family */
    if (index == NULL || unknown == NULL) {
        free(index);
        free(unknown);
        return LG_ENOMEM;
    }
    /* shared: a shared section's first function, which its calls are recorded from. */
    section_fn_t *shared = malloc((p->nfns ? p->nfns : 1) * sizeof *shared);
    if (shared == NULL) {
        free(index);
        free(unknown);
        return LG_ENOMEM;
    }
    size_t n = 0, nshared = 0;
    for (size_t i = 0; i < p->nfns; i++) {
        uint32_t o = b->fn_obj[i];
        if (o == UINT32_MAX || elf->syms[o].section_funcs != 1 ||
            !elf->files[elf->syms[o].file].refs_read) {
            unknown[p->fns[i].family] = true;
            if (o != UINT32_MAX && elf->syms[o].section_funcs > 1 &&
                elf->files[elf->syms[o].file].refs_read)
                shared[nshared++] = (section_fn_t){
                    ((uint64_t)elf->syms[o].file << 32) | elf->syms[o].section_index,
                    (uint32_t)i};
            if (o == UINT32_MAX || elf->syms[o].section_funcs != 1)
                continue;
        }
        const lg_elfsym_t *s = &elf->syms[o];
        index[n++] = (section_fn_t){((uint64_t)s->file << 32) | s->section_index, (uint32_t)i};
    }
    for (size_t i = 0; i < p->nfns; i++)
        if (!unknown[p->fns[i].family])
            p->fns[i].flags |= LG_FN_REFS_KNOWN;
    free(unknown);
    qsort(index, n, sizeof *index, cmp_section_fn);
    qsort(shared, nshared, sizeof *shared, cmp_section_then_fn);
    size_t cap = 0;
    version_index_t versions;
    lg_err_t err = build_version_index(b, &versions);
    for (size_t i = 0; err == LG_OK && i < elf->nrefs; i++) {
        const lg_elfref_t *r = &elf->refs[i];
        uint32_t from = UINT32_MAX;
        if (r->from_section != LG_ELFREF_DATA) {
            from = section_function(index, n, r->file, r->from_section);
            /* Code of a shared section: its calls are the whole group's, recorded from the
             * section's first function (what a fast region pays veneers for, regionstubs.h).
             * Its other references stay unknown, as its functions' are (no LG_FN_REFS_KNOWN). */
            if (from == UINT32_MAX && r->kind == LG_ELFREF_CALL)
                from = first_of_section(shared, nshared, r->file, r->from_section);
            if (from == UINT32_MAX)
                continue; /* of no kept function, or no call of a shared section */
        }
        if (r->to_section != LG_ELFREF_BY_NAME) {
            err = add_reference(p, &cap, from, section_function(index, n, r->file, r->to_section),
                                r->kind);
            continue;
        }
        /* Every global function of that name, in the objects or only in the program. */
        err = add_named_references(b, &versions, &cap, from, r->to_name, r->kind);
    }
    free(index);
    free(shared);
    version_index_destroy(&versions, b->nnames);
    if (err == LG_OK) {
        lg_arcs_merge(p->refs, &p->nrefs);
        /* A family's address taken is every member's. */
        for (size_t i = 0; i < p->nfns; i++)
            if (p->fns[p->fns[i].family].flags & LG_FN_ADDRESS_TAKEN)
                p->fns[i].flags |= LG_FN_ADDRESS_TAKEN;
    }
    return err;
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

/* Picks one of the functions chained from first (entry i is function entry_fn[i], or i itself
 * when entry_fn is NULL); *count receives how many there were. */
static int64_t pick_candidate(const binder_t *b, const uint32_t *next, const uint32_t *entry_fn,
                              uint32_t first, const lg_pfunc_t *f, size_t *count)
{
    const lg_program_t *p = b->prog;
    size_t n = 0, by_qual = 0, by_addr = 0;
    uint32_t qual_pick = UINT32_MAX, addr_pick = UINT32_MAX, only = UINT32_MAX;
    for (uint32_t e = first; e != UINT32_MAX; e = next[e]) {
        uint32_t i = entry_fn ? entry_fn[e] : e;
        if (i == only)
            continue; /* two alias names of one function */
        only = n == 0 ? i : only;
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
        return only;
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
    int64_t fn = pick_candidate(b, b->next_symbol, b->name_fn, first, f, count);
    return fn >= 0 ? fn : -2;
}

/* ---- Where an absent function came from -------------------------------------------------- */

/* True when object (as a profiler named it) is one of the ELF files given, by base name. */
static bool object_is_input(const lg_elfsyms_t *elf, const char *object)
{
    const char *base = basename_of(object);
    for (size_t i = 0; i < elf->nfiles; i++)
        if (elf->files[i].path != NULL && strcmp(basename_of(elf->files[i].path), base) == 0)
            return true;
    return false;
}

/* True for a shared object's name: "libc.so.6", "ld-linux-x86-64.so.2", "libfoo.so". */
static bool looks_shared(const char *object)
{
    const char *base = basename_of(object);
    for (const char *p = strstr(base, ".so"); p != NULL; p = strstr(p + 1, ".so"))
        if (p[3] == '\0' || p[3] == '.')
            return true;
    return false;
}

/* Outside the program for a reason lorgen can name: a shared object, or what perf and callgrind
 * write in brackets ([vdso], [kernel.kallsyms]), when none of the ELF inputs is that file. */
static bool outside_program(const lg_elfsyms_t *elf, const char *object)
{
    return object != NULL && !object_is_input(elf, object) &&
           (looks_shared(object) || basename_of(object)[0] == '[');
}

/* Why a profiled function has no symbol: the profile's object says, when it names one. */
static void absent_reason(const lg_elfsyms_t *elf, const char *object, char *reason,
                          size_t reason_len)
{
    if (object == NULL)
        snprintf(reason, reason_len,
                 "no function symbol of that name in the ELF inputs (inlined, or another build?)");
    else if (outside_program(elf, object))
        snprintf(reason, reason_len, "in %s, %s, not in the program: lorgen cannot move it",
                 basename_of(object),
                 basename_of(object)[0] == '[' ? "outside any file" : "a shared object");
    else if (object_is_input(elf, object))
        snprintf(reason, reason_len,
                 "no function symbol of that name in %s (inlined, or another build profiled?)",
                 basename_of(object));
    else
        snprintf(reason, reason_len,
                 "profiled in %s, which is none of the ELF inputs, and no function symbol of "
                 "that name in them: lorgen does not know why (another program, another build?)",
                 basename_of(object));
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
            fn = pick_candidate(b, b->next_base, NULL, first, f, &count);
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
        return LG_BIND_UNUSABLE;
    }
    if (fn == -1) {
        absent_reason(b->elf, f->object, reason, reason_len);
        return LG_BIND_ABSENT;
    }
    const lg_fn_t *hit = &b->prog->fns[fn];
    if (hit->size == 0) {
        snprintf(reason, reason_len, "symbol %s has size 0 in the symbol table", hit->symbol);
        return LG_BIND_UNUSABLE;
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

/* Binds every function of one profile; map[i] receives the program function or a BIND_*
 * code. Hits and counters are added to the bound functions. */
/* ---- Code named by its address -------------------------------------------------------------- */

/* Hexadecimal digits of a profiled address name at most (64 bits). */
#define LG_ADDRESS_NAME_MAX_DIGITS 16u

/* True when name is an address, as callgrind and perf name code no typed, sized symbol covers
 * ("0x0000000000431040"), with *address set. */
static bool address_name(const char *name, uint64_t *address)
{
    if (name == NULL || name[0] != '0' || (name[1] != 'x' && name[1] != 'X') || name[2] == '\0')
        return false;
    uint64_t a = 0;
    size_t digits = 0;
    for (const char *c = name + 2; *c != '\0'; c++, digits++) {
        int v = *c >= '0' && *c <= '9'   ? *c - '0'
                : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
                : *c >= 'A' && *c <= 'F' ? *c - 'A' + 10
                                         : -1;
        if (v < 0 || digits >= LG_ADDRESS_NAME_MAX_DIGITS)
            return false;
        a = a << 4 | (uint64_t)v;
    }
    *address = a;
    return true;
}

typedef struct fn_at {
    uint64_t address;
    uint32_t fn;
} fn_at_t;

static int cmp_fn_at(const void *x, const void *y)
{
    const fn_at_t *a = x, *c = y;
    if (a->address != c->address)
        return a->address < c->address ? -1 : 1;
    return (a->fn > c->fn) - (a->fn < c->fn);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;
    return (a > c) - (a < c);
}

/* The load bias of the profiled run as the functions bound by name show it: the most frequent
 * distance, a multiple of LG_HOTSPOT_BIAS_ALIGN, from a function's address in the ELF to the
 * lowest address the profile saw in it (0 for a program run where it was linked). */
static lg_err_t profiled_bias(const binder_t *b, const lg_profile_t *prof, const int64_t *map,
                              uint64_t *bias)
{
    *bias = 0;
    uint64_t *d = malloc((prof->nfuncs ? prof->nfuncs : 1) * sizeof *d);
    if (d == NULL)
        return LG_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < prof->nfuncs; i++) {
        const lg_pfunc_t *f = &prof->funcs[i];
        if (map[i] < 0 || f->pc_min == 0)
            continue;
        uint64_t at = b->prog->fns[map[i]].address;
        if (at != UINT64_MAX && f->pc_min >= at && (f->pc_min - at) % LG_HOTSPOT_BIAS_ALIGN == 0)
            d[n++] = f->pc_min - at;
    }
    qsort(d, n, sizeof *d, cmp_u64);
    size_t best = 0;
    for (size_t i = 0, run; i < n; i += run) {
        for (run = 1; i + run < n && d[i + run] == d[i]; run++)
            ;
        if (run > best) {
            best = run;
            *bias = d[i];
        }
    }
    free(d);
    return LG_OK;
}

/* Binds the functions of prof that are named by an address (deferred[], n of them, map[] -1)
 * to the function of the linked ELF whose code holds that address, under the profile's load
 * bias; those it cannot are left with map[] -1 and the reason in reasons[] (512 bytes each). */
static lg_err_t bind_addresses(const binder_t *b, const lg_profile_t *prof, int64_t *map,
                               const size_t *deferred, size_t n, char (*reasons)[512])
{
    const lg_program_t *p = b->prog;
    uint64_t bias;
    LG_CHECK(profiled_bias(b, prof, map, &bias));
    fn_at_t *at = malloc((p->nfns ? p->nfns : 1) * sizeof *at);
    if (at == NULL)
        return LG_ENOMEM;
    size_t nat = 0;
    for (size_t i = 0; i < p->nfns; i++)
        if (p->fns[i].address != UINT64_MAX && p->fns[i].size > 0)
            at[nat++] = (fn_at_t){p->fns[i].address, (uint32_t)i};
    qsort(at, nat, sizeof *at, cmp_fn_at);
    for (size_t k = 0; k < n; k++) {
        size_t i = deferred[k];
        uint64_t a;
        address_name(prof->funcs[i].name, &a);
        uint64_t linked = a >= bias ? a - bias : a;
        /* The last function that starts at or before the address. */
        size_t lo = 0, hi = nat;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (at[mid].address <= linked)
                lo = mid + 1;
            else
                hi = mid;
        }
        const lg_fn_t *fn = lo > 0 ? &p->fns[at[lo - 1].fn] : NULL;
        if (fn != NULL && linked - fn->address < fn->size) {
            map[i] = at[lo - 1].fn;
            continue;
        }
        snprintf(reasons[k], sizeof reasons[k],
                 "named by its address, and no function symbol of the linked ELF holds address "
                 "0x%llx (code without a symbol, such as PLT stubs): lorgen cannot move it",
                 (unsigned long long)linked);
    }
    free(at);
    return LG_OK;
}

static lg_err_t bind_functions(binder_t *b, const lg_profile_t *prof, double scale, int64_t *map,
                               size_t *unbound_cap)
{
    lg_program_t *p = b->prog;
    size_t *deferred = malloc((prof->nfuncs ? prof->nfuncs : 1) * sizeof *deferred);
    char(*reasons)[512] = malloc((prof->nfuncs ? prof->nfuncs : 1) * sizeof *reasons);
    lg_err_t err = deferred != NULL && reasons != NULL ? LG_OK : LG_ENOMEM;
    size_t ndeferred = 0;
    for (size_t i = 0; err == LG_OK && i < prof->nfuncs; i++) {
        uint64_t unused;
        map[i] = bind_one(b, &prof->funcs[i], reasons[ndeferred], sizeof reasons[ndeferred]);
        /* Code named by its address binds by address once the bias is known. */
        if (map[i] == LG_BIND_ABSENT && address_name(prof->funcs[i].name, &unused) &&
            !outside_program(b->elf, prof->funcs[i].object))
            deferred[ndeferred++] = i;
        else if (map[i] < 0)
            err = add_unbound(p, unbound_cap, prof->funcs[i].name,
                              lg_scale_count(prof->funcs[i].hits, scale), reasons[ndeferred]);
    }
    if (err == LG_OK && ndeferred > 0)
        err = bind_addresses(b, prof, map, deferred, ndeferred, reasons);
    for (size_t k = 0; err == LG_OK && k < ndeferred; k++) {
        const lg_pfunc_t *f = &prof->funcs[deferred[k]];
        if (map[deferred[k]] < 0)
            err = add_unbound(p, unbound_cap, f->name, lg_scale_count(f->hits, scale), reasons[k]);
    }
    free(deferred);
    free(reasons);
    LG_CHECK(err);
    for (size_t i = 0; i < prof->nfuncs; i++) {
        const lg_pfunc_t *f = &prof->funcs[i];
        p->profile_hits = lg_sat_add(p->profile_hits, lg_scale_count(f->hits, scale));
        p->profile_cost = lg_sat_add(p->profile_cost, lg_scale_count(f->counter1_self, scale));
        if (map[i] < 0)
            continue;
        lg_fn_t *fn = &p->fns[map[i]];
        b->bound[map[i]] = true;
        fn->hits = lg_sat_add(fn->hits, lg_scale_count(f->hits, scale));
        fn->counter1_self = lg_sat_add(fn->counter1_self, lg_scale_count(f->counter1_self, scale));
        fn->counter2_self = lg_sat_add(fn->counter2_self, lg_scale_count(f->counter2_self, scale));
    }
    return LG_OK;
}

/* Proximity pairs whose functions both bind, scaled; a pair that binds to one function is no
 * pair. */
static lg_err_t bind_proximity(lg_program_t *p, size_t *cap, const lg_profile_t *prof,
                               const int64_t *map, double scale)
{
    for (size_t i = 0; i < prof->nproximity; i++) {
        int64_t a = map[prof->proximity[i].a], c = map[prof->proximity[i].b];
        if (a < 0 || c < 0 || a == c)
            continue;
        if (!lg_grow((void **)&p->proximity, cap, p->nproximity + 1, sizeof *p->proximity))
            return LG_ENOMEM;
        p->proximity[p->nproximity++] =
            (lg_pair_t){(uint32_t)(a < c ? a : c), (uint32_t)(a < c ? c : a),
                        lg_scale_count(prof->proximity[i].weight, scale)};
    }
    return LG_OK;
}

/* Per-position costs to hotspots and jumps to hotjumps (hotspots.h), with a note when some costs
 * could not be used. Jumps dropped go unsaid: most are the jumps of shared libraries' code, whose
 * costs the notes below count already. */
static lg_err_t bind_positions(binder_t *b, size_t *cap, size_t *jumps_cap,
                               const lg_profile_t *prof, const int64_t *map, double scale)
{
    lg_hotspot_stats_t st;
    LG_CHECK(lg_hotspots_bind(b->prog, cap, prof, map, scale, &st));
    LG_CHECK(lg_hotspots_bind_jumps(b->prog, jumps_cap, prof, map, scale, &st));
    const char *path = prof->path ? prof->path : "";
    if (st.bound > 0 && st.bias != 0)
        lg_diag_add(b->d, LG_NOTE, path,
                    "instruction positions are offset by 0x%llx from the ELF's addresses (a "
                    "position-independent executable's load address); they were shifted back",
                    (unsigned long long)st.bias);
    if (st.dropped == 0)
        return LG_OK;
    if (prof->cost_positions == LG_POS_LINE) {
        lg_diag_add(b->d, LG_NOTE, path,
                    "%zu of %zu per-position costs (cost %llu) were not used: source-line "
                    "positions are not mapped to code offsets yet",
                    st.dropped, st.bound + st.dropped, (unsigned long long)st.dropped_cost);
        return LG_OK;
    }
    /* Each dropped cost for its cause: code outside the program, unbound functions of the
     * program, positions outside a function whose name others share (st), and positions
     * outside their function (what is left). */
    uint64_t shared = 0, unbound = 0, costliest = 0;
    const char *costliest_object = NULL;
    for (size_t i = 0; i < prof->ncosts; i++) {
        const lg_pcost_t *c = &prof->costs[i];
        if (map[c->func] >= 0)
            continue;
        const char *object = prof->funcs[c->func].object;
        if (!outside_program(b->elf, object)) {
            unbound = lg_sat_add(unbound, c->cost);
            continue;
        }
        shared = lg_sat_add(shared, c->cost);
        if (c->cost > costliest) {
            costliest = c->cost;
            costliest_object = object;
        }
    }
    uint64_t known = lg_sat_add(lg_sat_add(shared, unbound), st.dropped_shared_name_cost);
    uint64_t outside = st.dropped_cost > known ? st.dropped_cost - known : 0;
    char in_shared[384] = "", of_unbound[128] = "", same_name[256] = "", beyond[160] = "";
    if (shared > 0)
        snprintf(in_shared, sizeof in_shared,
                 "; cost %llu is code outside the program (shared objects; the costliest "
                 "position in %s), which lorgen cannot move",
                 (unsigned long long)shared, basename_of(costliest_object));
    if (unbound > 0)
        snprintf(of_unbound, sizeof of_unbound,
                 "; cost %llu belongs to profiled functions that did not bind",
                 (unsigned long long)unbound);
    if (st.dropped_shared_name_cost > 0)
        snprintf(same_name, sizeof same_name,
                 "; cost %llu falls outside the function it bound to, whose name other "
                 "functions share (same-named statics the profile does not tell apart)",
                 (unsigned long long)st.dropped_shared_name_cost);
    if (outside > 0)
        snprintf(beyond, sizeof beyond,
                 "; cost %llu falls outside its function's symbol in the ELF (code past the "
                 "symbol's size, or another build profiled)",
                 (unsigned long long)outside);
    lg_diag_add(b->d, LG_NOTE, path,
                "%zu of %zu per-position costs (cost %llu) were not used%s%s%s%s", st.dropped,
                st.bound + st.dropped, (unsigned long long)st.dropped_cost, in_shared, of_unbound,
                same_name, beyond);
    return LG_OK;
}

/* Objects were given, but none defines functions that hold a good share of the hits: an archive
 * or object was left out, and all of that code stays where it is. Said loudly, because the
 * .LOR and the scripts look complete without it. (Sections are not inferred for them: the
 * objects given show the build, and code none of them holds came from an archive lorgen has
 * not read, built with or without -ffunction-sections; a guessed ".text.NAME" would match
 * nothing there, or another function's section.) */
static void warn_unmovable(binder_t *b)
{
    const lg_program_t *p = b->prog;
    uint64_t total = 0, unmovable = 0;
    size_t count = 0;
    const lg_fn_t *hottest = NULL;
    for (size_t i = 0; i < p->nfns; i++) {
        const lg_fn_t *f = &p->fns[i];
        total = lg_sat_add(total, f->hits);
        if (!(f->flags & LG_FN_SECTION_UNKNOWN) || f->hits == 0)
            continue;
        unmovable = lg_sat_add(unmovable, f->hits);
        count++;
        if (hottest == NULL || f->hits > hottest->hits)
            hottest = f;
    }
    for (size_t i = 0; i < p->nunbound; i++)
        total = lg_sat_add(total, p->unbound[i].hits);
    double pct = total > 0 ? 100.0 * (double)unmovable / (double)total : 0.0;
    if (hottest == NULL || pct < LG_BIND_UNMOVABLE_WARN_PCT)
        return;
    lg_diag_add(b->d, LG_WARNING, "",
                "%.1f%% of the profile's hits (%llu of %llu) are in %zu function(s) that none of "
                "the object files given defines, the hottest '%s' (%llu hits): lorgen cannot move "
                "them. Give the archives or objects that define them too, or give no object "
                "files to order every function of the linked ELF by sections inferred from "
                "their names (right only for code built with -ffunction-sections)",
                pct, (unsigned long long)unmovable, (unsigned long long)total, count,
                hottest->symbol, (unsigned long long)hottest->hits);
}

/* Profiled functions that are code outside the program (shared objects, [vdso]): one note with
 * their number and share of the hits, since the unbound list mixes them with the rest. */
static void note_outside_program(binder_t *b, const lg_profile_t *prof, const int64_t *map,
                                 double scale)
{
    size_t count = 0;
    uint64_t hits = 0, total = 0, hottest_hits = 0;
    const lg_pfunc_t *hottest = NULL;
    for (size_t i = 0; i < prof->nfuncs; i++) {
        const lg_pfunc_t *f = &prof->funcs[i];
        uint64_t h = lg_scale_count(f->hits, scale);
        total = lg_sat_add(total, h);
        if (map[i] != LG_BIND_ABSENT || !outside_program(b->elf, f->object))
            continue;
        count++;
        hits = lg_sat_add(hits, h);
        if (hottest == NULL || h > hottest_hits) {
            hottest = f;
            hottest_hits = h;
        }
    }
    if (count == 0)
        return;
    lg_diag_add(b->d, LG_NOTE, prof->path ? prof->path : "",
                "%zu profiled function(s) (%.1f%% of the hits) are code outside the program, "
                "in shared objects or the kernel, the hottest '%s' in %s: lorgen cannot move "
                "them",
                count, total > 0 ? 100.0 * (double)hits / (double)total : 0.0, hottest->name,
                basename_of(hottest->object));
}

static lg_err_t bind_profiles(binder_t *b, const lg_bind_input_t *inputs, size_t ninputs)
{
    lg_program_t *p = b->prog;
    size_t unbound_cap = 0, arcs_cap = 0, hotspots_cap = 0, hotjumps_cap = 0, proximity_cap = 0;
    lg_calls_stats_t calls = {0};
    for (size_t k = 0; k < ninputs; k++) {
        const lg_profile_t *prof = inputs[k].profile;
        double scale = inputs[k].scale;
        if (prof->has_call_edges)
            p->has_call_edges = true;
        int64_t *map = malloc((prof->nfuncs ? prof->nfuncs : 1) * sizeof *map);
        if (map == NULL)
            return LG_ENOMEM;
        lg_err_t err = bind_functions(b, prof, scale, map, &unbound_cap);
        if (err == LG_OK)
            err = lg_bind_calls(p, &arcs_cap, prof, map, scale, &calls, b->d);
        if (err == LG_OK)
            err = bind_proximity(p, &proximity_cap, prof, map, scale);
        if (err == LG_OK)
            err = bind_positions(b, &hotspots_cap, &hotjumps_cap, prof, map, scale);
        if (err == LG_OK)
            note_outside_program(b, prof, map, scale);
        free(map);
        if (err != LG_OK)
            return err;
    }
    lg_arcs_merge(p->arcs, &p->narcs);
    lg_pairs_merge(p->proximity, &p->nproximity);
    lg_program_merge_positions(p);
    if (p->nunbound > 0)
        qsort(p->unbound, p->nunbound, sizeof *p->unbound, cmp_unbound);
    for (size_t i = 0; i < p->nfns; i++)
        if (b->bound[i])
            p->nprofiled++;
    warn_unmovable(b);
    if (calls.unbound_edges > 0)
        lg_diag_add(b->d, LG_NOTE, "",
                    "%llu call edges (weight %llu) touch unbound functions; calls made by "
                    "functions absent from the ELF (inlined) were credited to their callers "
                    "(weight %llu)",
                    (unsigned long long)calls.unbound_edges,
                    (unsigned long long)calls.unbound_weight, (unsigned long long)calls.credited);
    if (calls.inlined_edges > 0)
        lg_diag_add(b->d, LG_NOTE, "",
                    "%llu of the profiles' %llu call arcs between functions of the ELF (%.1f%% of "
                    "the call weight) are calls this build inlined: the caller's code does not "
                    "refer to the callee. Their %zu callees keep only the hits of their real "
                    "calls (%llu hits less), and what their inlined copies called is credited to "
                    "the callers they sit in",
                    (unsigned long long)calls.inlined_edges, (unsigned long long)calls.bound_edges,
                    calls.total_weight > 0
                        ? 100.0 * (double)calls.inlined_weight / (double)calls.total_weight
                        : 0.0,
                    calls.inlined_functions, (unsigned long long)calls.hits_removed);
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
        err = build_references(&b);
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

uint64_t lg_profile_volume(const lg_profile_t *p)
{
    uint64_t v = 0;
    for (size_t i = 0; i < p->nfuncs; i++)
        v = lg_sat_add(v, p->funcs[i].hits);
    if (v == 0)
        for (size_t i = 0; i < p->nedges; i++)
            v = lg_sat_add(v, p->edges[i].weight);
    return v;
}

void lg_bind_normalize(lg_bind_input_t *inputs, size_t ninputs)
{
    uint64_t largest = 0;
    for (size_t k = 0; k < ninputs; k++) {
        uint64_t v = lg_profile_volume(inputs[k].profile);
        if (v > largest)
            largest = v;
    }
    for (size_t k = 0; k < ninputs; k++) {
        uint64_t v = lg_profile_volume(inputs[k].profile);
        if (v > 0)
            inputs[k].scale *= (double)largest / (double)v;
    }
}
