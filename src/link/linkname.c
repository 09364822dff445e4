/* linkname.c - what each linker can be told about the functions of a .LOR; see linkname.h. */
#include "linkname.h"

#include "mem.h"
#include "objpath.h"
#include "strmap.h"
#include "utf8.h"

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

static void resolve_objects(lg_lor_t *lor, const lg_program_t *prog);
static void mark_gold_clashes(lg_lor_t *lor, const lg_program_t *prog);

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
        f->flags &= ~(LG_LOR_FN_PINNED | LG_LOR_FN_UNPREFIXED | LG_LOR_FN_SPLIT |
                      LG_LOR_FN_GOLD_CLASH | LG_LOR_FN_OBJECT_UNSAYABLE);
        free(f->ld_object);
        f->ld_object = NULL;
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
    resolve_objects(lor, prog);
    if (prog != NULL)
        mark_gold_clashes(lor, prog);
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

/* ---- Names as each linker reads them --------------------------------------------------------- */

/* True for the bytes that make a name a glob pattern, for GNU ld and gold alike. */
static bool is_glob_char(char c)
{
    return c == '*' || c == '?' || c == '[';
}

static bool has_glob(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (is_glob_char(s[i]))
            return true;
    return false;
}

/* Writes s[0..n) for GNU ld, which compares a pattern without wildcards byte for byte and matches
 * one with wildcards by fnmatch (backslash escapes on): with glob, every byte fnmatch would read
 * as syntax becomes a class of that byte alone. "\\?" is no use: ld compares the bytes before
 * the first wildcard literally, backslash included. */
static void ld_literal(FILE *out, const char *s, size_t n, bool glob)
{
    for (size_t i = 0; i < n; i++) {
        if (glob && (is_glob_char(s[i]) || s[i] == ']'))
            fprintf(out, "[%c]", s[i]);
        else if (glob && s[i] == '\\')
            fputs("[\\\\]", out);
        else
            fputc(s[i], out);
    }
}

/* Bytes a bare section-name word may hold, none of them a wildcard. Anything else is quoted. */
static bool ld_bare_section_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '$';
}

/* True when a GNU ld script word can say the section name: it is not empty and holds no '"'
 * (nothing escapes inside ld's quotes). */
static bool ld_section_sayable(const char *name)
{
    return name[0] != '\0' && strchr(name, '"') == NULL;
}

/* True when a gold ordering line can say the section name: not empty, no newline. */
static bool gold_line_sayable(const char *name)
{
    return name[0] != '\0' && strchr(name, '\n') == NULL;
}

bool lg_linkname_ld_section(const char *name, FILE *out)
{
    if (!ld_section_sayable(name))
        return false;
    /* A leading '.' keeps a bare word from being read as a keyword (KEEP, SORT, ...). */
    bool bare = name[0] == '.';
    for (const char *p = name; *p && bare; p++)
        bare = ld_bare_section_char(*p);
    if (bare) {
        fputs(name, out);
        return true;
    }
    size_t n = strlen(name);
    fputc('"', out);
    ld_literal(out, name, n, has_glob(name, n));
    fputc('"', out);
    return true;
}

/* The start of the shortest tail of s[0..n) that begins a path component (at 0 or after a '/')
 * and is longer than shared, the longest tail s has in common with another name of its kind:
 * "*TAIL" then matches s and none of them. SIZE_MAX when no tail is longer (s is itself the tail
 * of another name): only s exactly can name it. */
static size_t unique_tail(const char *s, size_t n, size_t shared)
{
    size_t end = n;
    for (;;) {
        size_t start = end;
        while (start > 0 && s[start - 1] != '/')
            start--;
        if (n - start > shared)
            return start;
        if (start == 0)
            return SIZE_MAX;
        end = start - 1;
    }
}

/* Writes one part of a file pattern: "*TAIL" when tail is a start in s, else s exactly. */
static void ld_file_part(FILE *out, const char *s, size_t n, size_t tail)
{
    if (tail == SIZE_MAX) {
        ld_literal(out, s, n, has_glob(s, n));
        return;
    }
    fputc('*', out);
    ld_literal(out, s + tail, n - tail, true);
}

/* GCC's generic library spec, which bare-metal targets such as arm-none-eabi keep, links libg
 * ahead of libc when -g is given ("%{g*:-lg} -lc"; newlib's nano.specs: libg_nano ahead of
 * libc_nano), and newlib installs each libg as a copy of its libc: the same members, named the
 * same. Which of the two a link takes its members from then depends on -g, not on the code, so
 * the archive part of such a member's pattern matches both. */
static const char *const c_library_archives[] = {"libc.a", "libg.a", "libc_nano.a", "libg_nano.a"};

/* Bytes of "lib" before the one that tells libc from libg. */
#define C_LIBRARY_LETTER_AT 3u

static bool is_c_library_archive(const char *base, size_t n)
{
    for (size_t i = 0; i < sizeof c_library_archives / sizeof c_library_archives[0]; i++)
        if (strlen(c_library_archives[i]) == n && memcmp(c_library_archives[i], base, n) == 0)
            return true;
    return false;
}

/* Writes the archive part of a member's pattern: as ld_file_part, but a C library that has a
 * libg copy (above) is named with a class that matches both: "*lib[cg]_nano.a". */
static void ld_archive_part(FILE *out, const char *s, size_t n, size_t tail)
{
    size_t base = n;
    while (base > 0 && s[base - 1] != '/')
        base--;
    if (tail == SIZE_MAX || !is_c_library_archive(s + base, n - base)) {
        ld_file_part(out, s, n, tail);
        return;
    }
    size_t letter = base + C_LIBRARY_LETTER_AT;
    fputc('*', out);
    ld_literal(out, s + tail, letter - tail, true);
    fputs("[cg]", out);
    ld_literal(out, s + letter + 1, n - letter - 1, true);
}

/* Bytes a bare file-pattern word may hold (ld's wildcard word characters, less the class and
 * escape bytes, which are quoted to be safe). */
static bool ld_bare_file_char(char c)
{
    return ld_bare_section_char(c) || c == '/' || c == '*' || c == ':' || c == '-' || c == '+';
}

/* The file pattern with the given tails (SIZE_MAX: exact) of the path and of the member; NULL
 * in *pattern when it cannot be said. */
static lg_err_t ld_object_pattern(const lg_objpath_t *o, size_t path_tail, size_t member_tail,
                                  char **pattern)
{
    *pattern = NULL;
    size_t from = path_tail == SIZE_MAX ? 0 : path_tail;
    if (memchr(o->path + from, '"', o->path_len - from) != NULL)
        return LG_OK;
    if (o->member != NULL) {
        size_t mfrom = member_tail == SIZE_MAX ? 0 : member_tail;
        /* ld splits archive:member at the first ':'. */
        if (memchr(o->path + from, ':', o->path_len - from) != NULL ||
            memchr(o->member + mfrom, '"', o->member_len - mfrom) != NULL)
            return LG_OK;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&text, &len);
    if (s == NULL)
        return LG_ENOMEM;
    if (o->member == NULL) {
        /* ":FILE" matches files outside archives only: an archive member of that name (libc's,
         * or one lorgen was not given) is never taken. */
        fputc(':', s);
        ld_file_part(s, o->path, o->path_len, path_tail);
    } else {
        ld_archive_part(s, o->path, o->path_len, path_tail);
        fputc(':', s);
        ld_file_part(s, o->member, o->member_len, member_tail);
    }
    if (fclose(s) != 0) {
        free(text);
        return LG_ENOMEM;
    }
    /* A word that is not only bare characters, or that could open or close a comment, is
     * quoted; the pattern holds no '"' (checked above). */
    bool bare = strstr(text, "/*") == NULL && strstr(text, "*/") == NULL;
    for (const char *p = text; *p && bare; p++)
        bare = ld_bare_file_char(*p);
    if (bare) {
        *pattern = text;
        return LG_OK;
    }
    *pattern = lg_format("\"%s\"", text);
    free(text);
    return *pattern != NULL ? LG_OK : LG_ENOMEM;
}

/* Where the member part of a pattern starts without other names to compare with: a thin
 * archive's member is a path (ld sees the archive's directory in front of it), named by its
 * base name after a '*'; a member of an ordinary archive is its own name, named exactly. */
static size_t default_member_tail(const lg_objpath_t *o)
{
    if (memchr(o->member, '/', o->member_len) == NULL)
        return SIZE_MAX;
    return unique_tail(o->member, o->member_len, 0);
}

lg_err_t lg_linkname_ld_object(const char *object, char **pattern)
{
    lg_objpath_t o = lg_objpath_split(object);
    return ld_object_pattern(&o, unique_tail(o.path, o.path_len, 0),
                             o.member ? default_member_tail(&o) : SIZE_MAX, pattern);
}

lg_err_t lg_linkname_gold_line(const char *name, char **line)
{
    *line = NULL;
    if (!gold_line_sayable(name))
        return LG_OK;
    size_t n = strlen(name);
    char *text = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&text, &len);
    if (s == NULL)
        return LG_ENOMEM;
    /* gold's fnmatch takes no escapes: a backslash is itself, a class holds one byte. */
    bool glob = has_glob(name, n) || name[0] == '#';
    for (size_t i = 0; i < n; i++) {
        if (glob && (is_glob_char(name[i]) || name[i] == ']' || (i == 0 && name[i] == '#')))
            fprintf(s, "[%c]", name[i]);
        else
            fputc(name[i], s);
    }
    /* gold drops one '\r' at the end of a line (Windows line ends). */
    if (name[n - 1] == '\r')
        fputc('\r', s);
    if (fclose(s) != 0) {
        free(text);
        return LG_ENOMEM;
    }
    *line = text;
    return LG_OK;
}

static bool is_lld_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool lg_linkname_lld_sayable(const char *symbol)
{
    size_t n = strlen(symbol);
    return n > 0 && symbol[0] != '#' && !is_lld_space(symbol[0]) && !is_lld_space(symbol[n - 1]) &&
           strchr(symbol, '\n') == NULL;
}

/* Longest shown form of one character: a C1 control, \xc2\xHH. */
#define SHOW_CHAR_MAX 8u

/* The shown form of the character that starts at p (not the NUL), by lg_linkname_show's rule:
 * writes it to esc without a NUL, returns its length and sets *used to the bytes of name it
 * stands for. */
static size_t show_char(const unsigned char *p, char esc[SHOW_CHAR_MAX], size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    /* Characters shown as '\' and a letter, and their letters, position for position. */
    static const char lettered[] = "\\\n\r\t", letters[] = "\\nrt";
    unsigned c = *p;
    *used = 1;
    const char *k = strchr(lettered, (int)c); /* c is not NUL: strchr finds no terminator */
    if (k != NULL) {
        esc[0] = '\\';
        esc[1] = letters[k - lettered];
        return 2;
    }
    size_t len = c < 0x80 ? 1 : lg_utf8_seq_len(p);
    bool control = c < 0x20 || c == 0x7f || (len == 2 && c == 0xc2 && p[1] < 0xa0);
    if (len == 0 || control) {
        /* A byte outside valid UTF-8 alone; a C1 control (U+0080 to U+009F) as both bytes. */
        size_t n = len == 0 ? 1 : len;
        for (size_t i = 0; i < n; i++) {
            esc[4 * i] = '\\';
            esc[4 * i + 1] = 'x';
            esc[4 * i + 2] = hex[p[i] >> 4];
            esc[4 * i + 3] = hex[p[i] & 0xfu];
        }
        *used = n;
        return 4 * n;
    }
    memcpy(esc, p, len);
    *used = len;
    return len;
}

const char *lg_linkname_show(const char *name, char buf[LG_LINKNAME_SHOW_BYTES])
{
    static const char ellipsis[] = "...";
    /* Room for the longest shown character, the ellipsis and the NUL. */
    const size_t room = LG_LINKNAME_SHOW_BYTES - SHOW_CHAR_MAX - sizeof ellipsis;
    size_t w = 0, used;
    for (const unsigned char *p = (const unsigned char *)name; *p; p += used) {
        if (w > room) {
            memcpy(buf + w, ellipsis, sizeof ellipsis);
            return buf;
        }
        w += show_char(p, buf + w, &used);
    }
    buf[w] = '\0';
    return buf;
}

size_t lg_linkname_put(const char *name, FILE *out)
{
    char esc[SHOW_CHAR_MAX];
    size_t w = 0, used;
    for (const unsigned char *p = (const unsigned char *)name; *p; p += used) {
        size_t n = show_char(p, esc, &used);
        if (out != NULL)
            fwrite(esc, 1, n, out);
        w += n;
    }
    return w;
}

/* ---- Object patterns that tell an object apart --------------------------------------------- */

/* One name of a kind: a file's path, an archive's path, or a member of one archive (group). The
 * names are sorted by their bytes read from the end, so the name sharing the longest tail with a
 * given one sits next to it. */
typedef struct tailkey {
    const char *group; /* the archive's path, for members; NULL otherwise */
    size_t group_len;
    const char *s;
    size_t n;
} tailkey_t;

typedef struct tailset {
    tailkey_t *keys;
    size_t n, cap;
} tailset_t;

static int cmp_group(const tailkey_t *a, const tailkey_t *b)
{
    size_t n = a->group_len < b->group_len ? a->group_len : b->group_len;
    int c = n ? memcmp(a->group, b->group, n) : 0;
    if (c != 0)
        return c;
    return (a->group_len > b->group_len) - (a->group_len < b->group_len);
}

static int cmp_tailkey(const void *pa, const void *pb)
{
    const tailkey_t *a = pa, *b = pb;
    int c = cmp_group(a, b);
    for (size_t i = 0; c == 0 && i < a->n && i < b->n; i++) {
        unsigned char ca = (unsigned char)a->s[a->n - 1 - i],
                      cb = (unsigned char)b->s[b->n - 1 - i];
        c = (ca > cb) - (ca < cb);
    }
    return c != 0 ? c : (a->n > b->n) - (a->n < b->n);
}

static size_t common_tail(const tailkey_t *a, const tailkey_t *b)
{
    if (cmp_group(a, b) != 0)
        return 0;
    size_t i = 0;
    while (i < a->n && i < b->n && a->s[a->n - 1 - i] == b->s[b->n - 1 - i])
        i++;
    return i;
}

static bool tailset_add(tailset_t *t, tailkey_t key)
{
    if (!lg_grow((void **)&t->keys, &t->cap, t->n + 1, sizeof *t->keys))
        return false;
    t->keys[t->n++] = key;
    return true;
}

/* Sorts the set and drops repeated names. */
static void tailset_finish(tailset_t *t)
{
    if (t->n == 0)
        return;
    qsort(t->keys, t->n, sizeof *t->keys, cmp_tailkey);
    size_t w = 1;
    for (size_t i = 1; i < t->n; i++)
        if (cmp_tailkey(&t->keys[w - 1], &t->keys[i]) != 0)
            t->keys[w++] = t->keys[i];
    t->n = w;
}

/* The longest tail key has in common with another name of the set (key is one of them). */
static size_t shared_tail(const tailset_t *t, const tailkey_t *key)
{
    const tailkey_t *at = t->n ? bsearch(key, t->keys, t->n, sizeof *key, cmp_tailkey) : NULL;
    if (at == NULL)
        return 0;
    size_t k = (size_t)(at - t->keys), best = 0;
    if (k > 0)
        best = common_tail(key, &t->keys[k - 1]);
    if (k + 1 < t->n) {
        size_t next = common_tail(key, &t->keys[k + 1]);
        best = next > best ? next : best;
    }
    return best;
}

/* The names of the three kinds, from every distinct object string. */
typedef struct objsets {
    tailset_t files, archives, members;
} objsets_t;

static bool objsets_add(objsets_t *sets, const char *object)
{
    lg_objpath_t o = lg_objpath_split(object);
    if (o.member == NULL)
        return tailset_add(&sets->files, (tailkey_t){NULL, 0, o.path, o.path_len});
    return tailset_add(&sets->archives, (tailkey_t){NULL, 0, o.path, o.path_len}) &&
           tailset_add(&sets->members, (tailkey_t){o.path, o.path_len, o.member, o.member_len});
}

static void objsets_destroy(objsets_t *sets)
{
    free(sets->files.keys);
    free(sets->archives.keys);
    free(sets->members.keys);
}

/* Collects the objects of the program and of the .LOR, each distinct string once. */
static bool objsets_build(objsets_t *sets, const lg_lor_t *lor, const lg_program_t *prog)
{
    lg_strmap_t seen;
    lg_strmap_init(&seen);
    bool ok = true;
    size_t nprog = prog != NULL ? prog->nfns : 0;
    for (size_t i = 0; i < nprog + lor->nfns && ok; i++) {
        const char *object = i < nprog ? prog->fns[i].object : lor->fns[i - nprog].object;
        size_t before = seen.count;
        if (object == NULL)
            continue;
        ok = lg_strmap_put(&seen, object, 0, NULL);
        if (ok && seen.count > before)
            ok = objsets_add(sets, object);
    }
    lg_strmap_destroy(&seen);
    tailset_finish(&sets->files);
    tailset_finish(&sets->archives);
    tailset_finish(&sets->members);
    return ok;
}

/* The pattern naming object apart from the other names of sets: the fewest trailing path
 * components no other name of its kind ends with. */
static lg_err_t distinct_object_pattern(const objsets_t *sets, const char *object, char **pattern)
{
    lg_objpath_t o = lg_objpath_split(object);
    tailkey_t path = {NULL, 0, o.path, o.path_len};
    if (o.member == NULL)
        return ld_object_pattern(&o,
                                 unique_tail(o.path, o.path_len, shared_tail(&sets->files, &path)),
                                 SIZE_MAX, pattern);
    size_t path_tail = unique_tail(o.path, o.path_len, shared_tail(&sets->archives, &path));
    size_t member_tail = SIZE_MAX;
    if (memchr(o.member, '/', o.member_len) != NULL) {
        tailkey_t member = {o.path, o.path_len, o.member, o.member_len};
        member_tail = unique_tail(o.member, o.member_len, shared_tail(&sets->members, &member));
    }
    return ld_object_pattern(&o, path_tail, member_tail, pattern);
}

/* Sets ld_object, or LG_LOR_FN_OBJECT_UNSAYABLE, for every function of lor with an object. */
static void resolve_objects(lg_lor_t *lor, const lg_program_t *prog)
{
    objsets_t sets = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}};
    bool ok = objsets_build(&sets, lor, prog);
    for (size_t i = 0; i < lor->nfns && ok; i++) {
        lg_lor_fn_t *f = &lor->fns[i];
        if (f->object == NULL)
            continue;
        ok = distinct_object_pattern(&sets, f->object, &f->ld_object) == LG_OK;
        if (ok && f->ld_object == NULL)
            f->flags |= LG_LOR_FN_OBJECT_UNSAYABLE;
    }
    objsets_destroy(&sets);
}

/* Marks the functions one of whose gold lines is, exactly, another section of the program. */
static void mark_gold_clashes(lg_lor_t *lor, const lg_program_t *prog)
{
    lg_strmap_t sections;
    lg_strmap_init(&sections);
    bool indexed = false, ok = true;
    for (size_t i = 0; i < lor->nfns && ok; i++) {
        lg_lor_fn_t *f = &lor->fns[i];
        char *names[LG_LINKNAME_MAX_SECTIONS];
        size_t n = lg_linkname_sections(f, names);
        ok = n > 0;
        for (size_t k = 0; k < n && ok; k++) {
            char *line;
            if (!has_glob(names[k], strlen(names[k])) && names[k][0] != '#')
                continue; /* written as it is: the line is the name */
            ok = lg_linkname_gold_line(names[k], &line) == LG_OK;
            /* The program's sections are indexed when the first escaped line needs them. */
            for (size_t j = 0; ok && !indexed && j < prog->nfns; j++)
                ok = lg_strmap_put(&sections, prog->fns[j].section, (uint32_t)j, NULL);
            indexed = ok;
            if (ok && line != NULL) {
                size_t len = strlen(line);
                if (line[len - 1] == '\r')
                    line[len - 1] = '\0'; /* gold drops the '\r' added for it */
                uint32_t other;
                if (lg_strmap_get(&sections, line, &other))
                    f->flags |= LG_LOR_FN_GOLD_CLASH;
            }
            free(line);
        }
        lg_linkname_free(names, n);
    }
    lg_strmap_destroy(&sections);
}

unsigned lg_linkname_unsayable(const lg_lor_fn_t *f)
{
    if (f->flags & LG_LOR_FN_PINNED)
        return 0;
    unsigned out = 0;
    if (!lg_linkname_lld_sayable(f->symbol))
        out |= LG_LINKER_LLD;
    if (f->flags & LG_LOR_FN_OBJECT_UNSAYABLE)
        out |= LG_LINKER_GNU_LD;
    if (f->flags & LG_LOR_FN_GOLD_CLASH)
        out |= LG_LINKER_GOLD;
    char *names[LG_LINKNAME_MAX_SECTIONS];
    size_t n = lg_linkname_sections(f, names);
    for (size_t i = 0; i < n; i++) {
        if (!ld_section_sayable(names[i]))
            out |= LG_LINKER_GNU_LD;
        if (!gold_line_sayable(names[i]))
            out |= LG_LINKER_GOLD;
    }
    lg_linkname_free(names, n);
    return out;
}
