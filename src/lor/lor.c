/* lor.c - the .LOR link-order file: model, writer, reader and check against the ELF. */
#include "lor.h"

#include "bind.h"
#include "mem.h"
#include "objpath.h"
#include "select.h"
#include "strmap.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Most tokens one .LOR line may hold: a fn line has a name, four keys and a few flags. */
#define LG_LOR_MAX_TOKENS 32u

/* The UTF-8 byte-order mark, which may start the file. */
#define UTF8_BOM "\xef\xbb\xbf"
#define UTF8_BOM_BYTES 3u

void lg_lor_init(lg_lor_t *lor)
{
    memset(lor, 0, sizeof *lor);
    lor->version = LG_LOR_VERSION;
}

static void free_fn(lg_lor_fn_t *f)
{
    free(f->symbol);
    free(f->section);
    free(f->object);
    free(f->source);
    free(f->ld_object);
}

void lg_lor_destroy(lg_lor_t *lor)
{
    if (lor == NULL)
        return;
    for (size_t i = 0; i < lor->nfns; i++)
        free_fn(&lor->fns[i]);
    for (size_t i = 0; i < lor->ninputs; i++) {
        free(lor->inputs[i].kind);
        free(lor->inputs[i].path);
        free(lor->inputs[i].format);
    }
    free(lor->fns);
    free(lor->cliques);
    free(lor->inputs);
    free(lor->algorithm);
    memset(lor, 0, sizeof *lor);
}

lg_err_t lg_lor_add_input(lg_lor_t *lor, const char *kind, const char *path, const char *format)
{
    size_t cap = lor->ninputs; /* exact-size array: inputs are few */
    if (!lg_grow((void **)&lor->inputs, &cap, lor->ninputs + 1, sizeof *lor->inputs))
        return LG_ENOMEM;
    bool ok = true;
    lg_lor_input_t in = {lg_strdup_opt(kind, &ok), lg_strdup_opt(path, &ok),
                         lg_strdup_opt(format, &ok)};
    if (!ok) {
        free(in.kind);
        free(in.path);
        free(in.format);
        return LG_ENOMEM;
    }
    lor->inputs[lor->ninputs++] = in;
    return LG_OK;
}

/* ---- From a layout ---------------------------------------------------------------------------- */

lg_err_t lg_lor_from_layout(const lg_program_t *prog, const lg_layout_t *layout, lg_lor_t *lor)
{
    size_t total = 0;
    for (size_t c = 0; c < layout->ncliques; c++)
        total += layout->cliques[c].nfns;
    lor->geometry = layout->geometry;
    lor->algorithm = strdup(layout->algorithm ? layout->algorithm : "cliques");
    lor->cliques = calloc(layout->ncliques ? layout->ncliques : 1, sizeof *lor->cliques);
    lor->fns = calloc(total ? total : 1, sizeof *lor->fns);
    if (lor->algorithm == NULL || lor->cliques == NULL || lor->fns == NULL)
        return LG_ENOMEM;
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        lor->cliques[c] = (lg_lor_clique_t){lor->nfns, cl->nfns,        cl->bytes, cl->hits,
                                            cl->flags, cl->pad_before, 0, LG_LOR_NOT_STATED};
        lor->ncliques++;
        for (size_t i = 0; i < cl->nfns; i++) {
            const lg_fn_t *fn = &prog->fns[cl->fns[i]];
            bool ok = true;
            lg_lor_fn_t f = {
                .symbol = lg_strdup_opt(fn->symbol, &ok),
                .section = lg_strdup_opt(fn->section, &ok),
                .object = lg_strdup_opt(fn->object, &ok),
                .source = (fn->flags & LG_FN_LOCAL) ? lg_strdup_opt(fn->source_file, &ok) : NULL,
                .size = fn->size,
                .hits = fn->hits,
                .align = fn->align,
                .lead = (fn->flags & LG_FN_PHASED) ? fn->lead : 0,
                .flags = fn->flags,
                .clique = (uint32_t)c,
            };
            if (!ok) {
                free_fn(&f);
                return LG_ENOMEM;
            }
            lor->fns[lor->nfns++] = f;
        }
    }
    lor->ncold = layout->ncold;
    lor->section_align = layout->section_align > 1 ? layout->section_align : 0;
    return LG_OK;
}

/* ---- Writer ------------------------------------------------------------------------------------ */

static bool is_select_kind(const char *kind)
{
    return strcmp(kind, "include") == 0 || strcmp(kind, "exclude") == 0;
}

/* True for a fixed group's member (optimizer/groups.h): its input section holds other
 * functions, and both it and the object are known. */
static bool in_group(const lg_lor_fn_t *f)
{
    return (f->flags & LG_FN_SHARED_SECTION) && f->object != NULL && f->section != NULL;
}

static bool same_group(const lg_lor_fn_t *a, const lg_lor_fn_t *b)
{
    return in_group(a) && in_group(b) && strcmp(a->object, b->object) == 0 &&
           strcmp(a->section, b->section) == 0;
}

/* A token needs quotes when it is empty or holds a character the reader splits on. */
static bool needs_quotes(const char *s)
{
    if (*s == '\0')
        return true;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (isspace(*p) || *p == '"' || *p == '#' || *p == '\\' || *p < 0x20)
            return true;
    return false;
}

/* Bytes c takes inside quotes. */
static size_t quoted_bytes(unsigned char c)
{
    if (c == '"' || c == '\\')
        return 2;
    return c < 0x20 || c == 0x7f ? 4 : 1;
}

/* Writes s as one word: bare when it can be, else quoted with escapes. A word whose quoted form
 * is longer than LG_LOR_WRAP_BYTES continues on the next line after a backslash every
 * LG_LOR_WRAP_BYTES bytes or so, never inside an escape, so no line outgrows LG_LOR_MAX_LINE. */
static void write_token(FILE *out, const char *s)
{
    size_t quoted = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        quoted += quoted_bytes(*p);
    bool wrap = quoted > LG_LOR_WRAP_BYTES;
    if (!wrap && !needs_quotes(s)) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    size_t column = 0; /* bytes of the word on this line */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (wrap && column >= LG_LOR_WRAP_BYTES) {
            fputs("\\\n", out);
            column = 0;
        }
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
        column += quoted_bytes(*p);
    }
    fputc('"', out);
}

static void write_key(FILE *out, const char *key, const char *value)
{
    fprintf(out, " %s=", key);
    write_token(out, value);
}

static const struct {
    uint32_t bit;
    const char *word;
} fn_flag_words[] = {
    {LG_FN_SECTION_INFERRED, "inferred"},
    {LG_FN_SHARED_SECTION, "shared"},
    {LG_FN_LOCAL, "local"},
    {LG_FN_AMBIGUOUS_NAME, "ambiguous"},
};

static const struct {
    uint32_t bit;
    const char *word;
} clique_flag_words[] = {
    {LG_CLIQUE_OVERSIZED, "oversized"},
    {LG_CLIQUE_NO_CALLS, "uncalled"},
    {LG_CLIQUE_FILLER, "filler"},
};

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

lg_err_t lg_lor_write(const lg_lor_t *lor, FILE *out)
{
    fputs("# lorgen link-order file. Functions are linked in the order listed, clique by clique.\n"
          "# Edit it freely, then: lorgen script FILE.lor ELF... --ld-script OUT.ld\n"
          "# Format reference: docs/lor-format.md\n",
          out);
    fprintf(out, "lorgen-lor %u\n", LG_LOR_VERSION);
    fprintf(out, "cache size=%" PRIu32 " line=%" PRIu32 " ways=%" PRIu32 "\n",
            lor->geometry.cache_size, lor->geometry.line_size, lor->geometry.ways);
    fputs("algorithm ", out);
    write_token(out, lor->algorithm ? lor->algorithm : "cliques");
    fputc('\n', out);
    for (size_t i = 0; i < lor->ninputs; i++) {
        /* --include and --exclude rules are inputs of kind include or exclude (lor.h). */
        bool rule = is_select_kind(lor->inputs[i].kind);
        fputs(rule ? "select" : "input", out);
        write_key(out, lor->inputs[i].kind, lor->inputs[i].path);
        if (lor->inputs[i].format != NULL)
            write_key(out, "format", lor->inputs[i].format);
        fputc('\n', out);
    }
    if (lor->section_align > 1)
        fprintf(out, "section align=%" PRIu64 "\n", lor->section_align);
    size_t group = 0; /* fixed groups numbered so far */
    for (size_t c = 0; c < lor->ncliques; c++) {
        const lg_lor_clique_t *cl = &lor->cliques[c];
        double fill = lor->geometry.cache_size
                          ? 100.0 * (double)cl->bytes / (double)lor->geometry.cache_size
                          : 0.0;
        fprintf(out, "\n# clique %zu: %" PRIu64 " bytes, %.1f%% of the cache, %" PRIu64 " hits\n",
                c + 1, cl->bytes, fill, cl->hits);
        fprintf(out, "clique %zu bytes=%" PRIu64 " hits=%" PRIu64 " functions=%zu", c + 1,
                cl->bytes, cl->hits, cl->count);
        if (cl->pad_before > 0)
            fprintf(out, " pad=%" PRIu64, cl->pad_before);
        for (size_t k = 0; k < COUNT_OF(clique_flag_words); k++)
            if (cl->flags & clique_flag_words[k].bit)
                fprintf(out, " %s", clique_flag_words[k].word);
        fputc('\n', out);
        for (size_t i = cl->first; i < cl->first + cl->count; i++) {
            const lg_lor_fn_t *f = &lor->fns[i];
            fputs("  fn ", out);
            write_token(out, f->symbol);
            fprintf(out, " size=%" PRIu64 " hits=%" PRIu64, f->size, f->hits);
            if (in_group(f)) {
                /* A fixed group's members stand together: its number, for the reader. */
                if (i == 0 || !same_group(&lor->fns[i - 1], f))
                    group++;
                fprintf(out, " group=%zu", group);
            }
            /* Written at 0 too: the key itself says "aligned to the line". */
            if (f->flags & LG_FN_PHASED)
                fprintf(out, " phase=%" PRIu64, f->lead);
            if (f->section != NULL)
                write_key(out, "section", f->section);
            if (f->object != NULL)
                write_key(out, "object", f->object);
            if (f->source != NULL)
                write_key(out, "source", f->source);
            for (size_t k = 0; k < COUNT_OF(fn_flag_words); k++)
                if (f->flags & fn_flag_words[k].bit)
                    fprintf(out, " %s", fn_flag_words[k].word);
            fputc('\n', out);
        }
    }
    if (lor->algorithm != NULL && strcmp(lor->algorithm, LG_ALGORITHM_KEPT) == 0) {
        if (lor->kept == LG_LOR_KEPT_MISSES_MORE)
            fputs("\n# The input order was kept (the new layout was predicted to miss more):\n",
                  out);
        else if (lor->kept == LG_LOR_KEPT_NO_CONFLICTS)
            fprintf(out,
                    "\n# The input order was kept (in this %" PRIu32 "-way cache the model "
                    "predicts no conflict misses for it):\n",
                    lor->geometry.ways);
        else
            fputs("\n# The input order was kept:\n", out);
        fputs("# every function keeps its place.\n", out);
    } else
        fprintf(out, "\n# Functions never executed keep their input order after the cliques.\n");
    fprintf(out, "cold %" PRIu64 "\n", lor->ncold);
    return ferror(out) ? LG_EIO : LG_OK;
}

/* ---- Reader ------------------------------------------------------------------------------------ */

typedef struct line_ctx {
    const char *path;
    size_t line;
    lg_diag_t *d;
    char where[4096];
} line_ctx_t;

static const char *where_of(line_ctx_t *ctx)
{
    snprintf(ctx->where, sizeof ctx->where, "%s:%zu", ctx->path, ctx->line);
    return ctx->where;
}

/* Splits one line into tokens in place, unquoting as it goes. Returns the token count, or -1 with
 * a diagnostic. A '#' outside quotes starts a comment. */
static int tokenize(char *line, char **tokens, line_ctx_t *ctx)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '#')
            return n;
        if (n == (int)LG_LOR_MAX_TOKENS) {
            lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                         "expected at most %u words on a line, found more", LG_LOR_MAX_TOKENS);
            return -1;
        }
        tokens[n++] = p;
        char *w = p; /* write position: unquoting only shrinks the text */
        while (*p != '\0' && *p != ' ' && *p != '\t') {
            if (*p != '"') {
                *w++ = *p++;
                continue;
            }
            p++;
            while (*p != '"') {
                if (*p == '\0') {
                    lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                 "expected a closing '\"', found the end of the line");
                    return -1;
                }
                if (*p == '\\') {
                    p++;
                    if (*p == 'x' && isxdigit((unsigned char)p[1]) &&
                        isxdigit((unsigned char)p[2])) {
                        char hex[3] = {p[1], p[2], 0};
                        *w++ = (char)strtol(hex, NULL, 16);
                        p += 3;
                        continue;
                    }
                    if (*p != '"' && *p != '\\') {
                        lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                     "expected \\\", \\\\ or \\xHH in a quoted word, found \\%c",
                                     *p ? *p : '0');
                        return -1;
                    }
                }
                *w++ = *p++;
            }
            p++;
        }
        bool end = *p == '\0';
        *w = '\0';
        if (end)
            return n;
        if (w == p)
            *p = '\0';
        p++;
    }
}

static bool parse_u64(const char *s, uint64_t *v)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *v = x;
    return true;
}

static bool parse_u32(const char *s, uint32_t *v)
{
    uint64_t x;
    if (!parse_u64(s, &x) || x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}

/* Splits "key=value"; returns NULL when the token has no '=' or what precedes it is not a word
 * (letters, digits, '_', '-', '.'). The writer prints keys bare, so only such keys can round-trip
 * (a quoted key such as "a b"=1 would be written back unquoted; found by fuzzing). */
static char *split_key(char *token)
{
    char *eq = strchr(token, '=');
    if (eq == NULL || eq == token)
        return NULL;
    for (const char *k = token; k < eq; k++)
        if (!isalnum((unsigned char)*k) && *k != '_' && *k != '-' && *k != '.')
            return NULL;
    *eq = '\0';
    return eq + 1;
}

static lg_err_t bad_number(line_ctx_t *ctx, const char *key, const char *value)
{
    return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                        "expected a whole number for %s, found '%s'", key, value);
}

static lg_err_t parse_cache(lg_lor_t *lor, char **tok, int n, line_ctx_t *ctx)
{
    for (int i = 1; i < n; i++) {
        char *value = split_key(tok[i]);
        uint32_t *slot = NULL;
        if (value != NULL && strcmp(tok[i], "size") == 0)
            slot = &lor->geometry.cache_size;
        else if (value != NULL && strcmp(tok[i], "line") == 0)
            slot = &lor->geometry.line_size;
        else if (value != NULL && strcmp(tok[i], "ways") == 0)
            slot = &lor->geometry.ways;
        if (slot == NULL) {
            lg_diag_add(ctx->d, LG_WARNING, where_of(ctx), "ignoring unknown cache setting '%s'",
                        tok[i]);
            continue;
        }
        if (!parse_u32(value, slot))
            return bad_number(ctx, tok[i], value);
    }
    return lg_geometry_check(&lor->geometry, ctx->d) == LG_OK
               ? LG_OK
               : lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx), "unusable cache geometry");
}

static lg_err_t parse_clique(lg_lor_t *lor, size_t *cliques_cap, char **tok, int n,
                             line_ctx_t *ctx)
{
    uint64_t number;
    if (n < 2 || !parse_u64(tok[1], &number))
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'clique NUMBER key=value...', found '%s'",
                            n < 2 ? "clique" : tok[1]);
    if (!lg_grow((void **)&lor->cliques, cliques_cap, lor->ncliques + 1, sizeof *lor->cliques))
        return LG_ENOMEM;
    lg_lor_clique_t cl = {.first = lor->nfns, .line = ctx->line, .stated_count = LG_LOR_NOT_STATED};
    for (int i = 2; i < n; i++) {
        char *value = split_key(tok[i]);
        if (value == NULL) {
            size_t k = 0;
            while (k < COUNT_OF(clique_flag_words) && strcmp(tok[i], clique_flag_words[k].word))
                k++;
            if (k < COUNT_OF(clique_flag_words))
                cl.flags |= clique_flag_words[k].bit;
            else
                lg_diag_add(ctx->d, LG_WARNING, where_of(ctx), "ignoring unknown clique flag '%s'",
                            tok[i]);
            continue;
        }
        uint64_t v;
        if (strcmp(tok[i], "bytes") == 0 || strcmp(tok[i], "hits") == 0 ||
            strcmp(tok[i], "functions") == 0 || strcmp(tok[i], "pad") == 0) {
            if (!parse_u64(value, &v))
                return bad_number(ctx, tok[i], value);
            if (tok[i][0] == 'p' && v > LG_LOR_MAX_PAD)
                return lg_diag_fail(ctx->d, LG_ELIMIT, where_of(ctx),
                                    "expected pad= at most %llu bytes, found %" PRIu64
                                    " (placement pads less than a cache way)",
                                    (unsigned long long)LG_LOR_MAX_PAD, v);
            if (tok[i][0] == 'b')
                cl.bytes = v;
            else if (tok[i][0] == 'h')
                cl.hits = v;
            else if (tok[i][0] == 'p')
                cl.pad_before = v;
            else
                cl.stated_count = v;
        } else {
            lg_diag_add(ctx->d, LG_WARNING, where_of(ctx), "ignoring unknown clique key '%s'",
                        tok[i]);
        }
    }
    lor->cliques[lor->ncliques++] = cl;
    return LG_OK;
}

static lg_err_t parse_fn(lg_lor_t *lor, size_t *fns_cap, lg_strmap_t *seen, char **tok, int n,
                         line_ctx_t *ctx)
{
    if (lor->ncliques == 0)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected a 'clique' line before the first 'fn' line");
    if (n < 2)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'fn SYMBOL key=value...', found no symbol");
    if (!lg_grow((void **)&lor->fns, fns_cap, lor->nfns + 1, sizeof *lor->fns))
        return LG_ENOMEM;
    lg_lor_fn_t f = {.align = 1, .clique = (uint32_t)(lor->ncliques - 1), .line = ctx->line};
    bool ok = true;
    f.symbol = lg_strdup_opt(tok[1], &ok);
    for (int i = 2; i < n && ok; i++) {
        char *value = split_key(tok[i]);
        if (value == NULL) {
            size_t k = 0;
            while (k < COUNT_OF(fn_flag_words) && strcmp(tok[i], fn_flag_words[k].word))
                k++;
            if (k < COUNT_OF(fn_flag_words))
                f.flags |= fn_flag_words[k].bit;
            else
                lg_diag_add(ctx->d, LG_WARNING, where_of(ctx), "ignoring unknown fn flag '%s'",
                            tok[i]);
        } else if (strcmp(tok[i], "size") == 0 || strcmp(tok[i], "hits") == 0) {
            if (!parse_u64(value, tok[i][0] == 's' ? &f.size : &f.hits)) {
                free_fn(&f);
                return bad_number(ctx, tok[i], value);
            }
        } else if (strcmp(tok[i], "group") == 0) {
            /* The writer's number of a fixed group, for people: lorgen script takes the groups
             * from the ELF inputs and checks each is listed whole (check_groups). */
            uint64_t unused;
            if (!parse_u64(value, &unused)) {
                free_fn(&f);
                return bad_number(ctx, tok[i], value);
            }
        } else if (strcmp(tok[i], "phase") == 0) {
            /* Checked against the line size once the whole file is read (check_phases): the
             * cache statement may come later. */
            if (!parse_u64(value, &f.lead)) {
                free_fn(&f);
                return bad_number(ctx, tok[i], value);
            }
            f.flags |= LG_FN_PHASED;
        } else if (strcmp(tok[i], "section") == 0 || strcmp(tok[i], "object") == 0 ||
                   strcmp(tok[i], "source") == 0) {
            /* An empty name would make a pattern that matches nothing; without the key, lorgen
             * takes the name from the ELF inputs. */
            if (*value == '\0') {
                lg_err_t err = lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                            "expected a name after %s=, found it empty (delete "
                                            "the key to take the %s from the ELF inputs)",
                                            tok[i], tok[i]);
                free_fn(&f);
                return err;
            }
            char **slot = strcmp(tok[i], "section") == 0  ? &f.section
                          : strcmp(tok[i], "object") == 0 ? &f.object
                                                          : &f.source;
            free(*slot);
            *slot = lg_strdup_opt(value, &ok);
        } else {
            lg_diag_add(ctx->d, LG_WARNING, where_of(ctx), "ignoring unknown fn key '%s'", tok[i]);
        }
    }
    if (!ok) {
        free_fn(&f);
        return LG_ENOMEM;
    }
    /* The same symbol twice is a mistake unless the two are told apart by their object or
     * source file (same-named statics). */
    uint32_t first;
    lor->fns[lor->nfns] = f;
    if (!lg_strmap_put(seen, lor->fns[lor->nfns].symbol, (uint32_t)lor->nfns, &first)) {
        free_fn(&f);
        return LG_ENOMEM;
    }
    if (first != lor->nfns) {
        const lg_lor_fn_t *prev = &lor->fns[first];
        bool told_apart = (prev->object != NULL && f.object != NULL &&
                           strcmp(prev->object, f.object) != 0) ||
                          (prev->source != NULL && f.source != NULL &&
                           strcmp(prev->source, f.source) != 0);
        if (!told_apart) {
            lg_err_t err = lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                        "function '%s' is listed twice (first on line %zu); give "
                                        "object= or source= to tell same-named statics apart",
                                        f.symbol, prev->line);
            free_fn(&f);
            return err;
        }
    }
    lor->nfns++;
    lor->cliques[lor->ncliques - 1].count++;
    return LG_OK;
}

/* lorgen-lor, algorithm and cold take one word and nothing after it: a word there is most likely
 * the next statement run into this one (a line end lost), which must not vanish. */
static lg_err_t nothing_after(char **tok, int n, line_ctx_t *ctx)
{
    if (n <= 2)
        return LG_OK;
    return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                        "expected nothing after '%s %s', found '%s': one statement a line (was a "
                        "line end lost?)",
                        tok[0], tok[1], tok[2]);
}

/* input profile=PATH [format=F] or input elf=PATH: one input a line, key=value words only. */
static lg_err_t parse_input(lg_lor_t *lor, char **tok, int n, line_ctx_t *ctx)
{
    const char *kind = NULL, *path = NULL, *format = NULL;
    for (int i = 1; i < n; i++) {
        char *value = split_key(tok[i]);
        if (value == NULL)
            return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                "expected key=value words after 'input', found '%s' (was a line "
                                "end lost?)",
                                tok[i]);
        if (strcmp(tok[i], "format") == 0) {
            format = value;
        } else if (strcmp(tok[i], "profile") != 0 && strcmp(tok[i], "elf") != 0) {
            lg_diag_add(ctx->d, LG_WARNING, where_of(ctx), "ignoring unknown input key '%s'",
                        tok[i]);
        } else if (kind != NULL) {
            return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                "expected one input a line, found %s= after %s=", tok[i], kind);
        } else {
            kind = tok[i];
            path = value;
        }
    }
    if (kind == NULL)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'input profile=PATH' or 'input elf=PATH', found no "
                            "profile= or elf=");
    return lg_lor_add_input(lor, kind, path, format);
}

/* 'select include=PATTERN' or 'select exclude=PATTERN': one rule of the selection the order was
 * made with (select.h), which lorgen script keeps. */
static lg_err_t parse_select(lg_lor_t *lor, char **tok, int n, line_ctx_t *ctx)
{
    char *value = n == 2 ? split_key(tok[1]) : NULL;
    if (value == NULL || !is_select_kind(tok[1]) || *value == '\0')
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'select include=PATTERN' or 'select exclude=PATTERN', "
                            "found %d word(s) after 'select'%s%s",
                            n - 1, n > 1 ? ", the first " : "", n > 1 ? tok[1] : "");
    return lg_lor_add_input(lor, tok[1], value, NULL);
}

static lg_err_t parse_line(lg_lor_t *lor, char **tok, int n, line_ctx_t *ctx, size_t *caps,
                           lg_strmap_t *seen, bool *have_version)
{
    const char *kw = tok[0];
    if (!*have_version) {
        uint32_t version;
        if (strcmp(kw, "lorgen-lor") != 0 || n < 2)
            return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                "expected 'lorgen-lor VERSION' as the first line, found '%s'", kw);
        if (!parse_u32(tok[1], &version))
            return bad_number(ctx, "the version", tok[1]);
        if (nothing_after(tok, n, ctx) != LG_OK)
            return LG_EFORMAT;
        if (version == 0 || version > LG_LOR_VERSION)
            return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                "expected .LOR version 1 to %u, found %u (written by a newer "
                                "lorgen?)",
                                LG_LOR_VERSION, version);
        lor->version = version;
        *have_version = true;
        return LG_OK;
    }
    if (strcmp(kw, "fn") == 0)
        return parse_fn(lor, &caps[1], seen, tok, n, ctx);
    if (strcmp(kw, "clique") == 0)
        return parse_clique(lor, &caps[0], tok, n, ctx);
    if (strcmp(kw, "cache") == 0)
        return parse_cache(lor, tok, n, ctx);
    if (strcmp(kw, "algorithm") == 0) {
        if (n < 2)
            return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                "expected 'algorithm NAME', found no name");
        if (nothing_after(tok, n, ctx) != LG_OK)
            return LG_EFORMAT;
        free(lor->algorithm);
        lor->algorithm = strdup(tok[1]);
        return lor->algorithm ? LG_OK : LG_ENOMEM;
    }
    if (strcmp(kw, "input") == 0)
        return parse_input(lor, tok, n, ctx);
    if (strcmp(kw, "select") == 0)
        return parse_select(lor, tok, n, ctx);
    if (strcmp(kw, "section") == 0) {
        for (int i = 1; i < n; i++) {
            char *value = split_key(tok[i]);
            if (value != NULL && strcmp(tok[i], "align") == 0) {
                if (!parse_u64(value, &lor->section_align) ||
                    (lor->section_align & (lor->section_align - 1)) != 0)
                    return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                        "expected a power of two for align, found '%s'", value);
            } else {
                lg_diag_add(ctx->d, LG_WARNING, where_of(ctx),
                            "ignoring unknown section setting '%s'", tok[i]);
            }
        }
        return LG_OK;
    }
    if (strcmp(kw, "cold") == 0) {
        if (n < 2 || !parse_u64(tok[1], &lor->ncold))
            return bad_number(ctx, "cold", n < 2 ? "" : tok[1]);
        return nothing_after(tok, n, ctx);
    }
    /* A statement this reader does not know may hold a function (`fnn`): dropping it with a
     * warning would change the order the file asks for. */
    return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                        "expected a statement (lorgen-lor, cache, algorithm, input, select, "
                        "section, clique, fn, cold), found '%s'",
                        kw);
}

/* Follows one line of a statement (without its line end) as tokenize() will read it, from the
 * quoting state *quoted the previous line left. Returns where the line's continuation backslash
 * is (a backslash inside quotes as the line's last byte), or SIZE_MAX when the statement ends
 * with this line. */
static size_t continuation_at(const char *s, size_t n, bool *quoted)
{
    bool word_start = true;
    for (size_t i = 0; i < n; i++) {
        if (*quoted) {
            if (s[i] == '\\' && i + 1 == n)
                return i;
            if (s[i] == '\\')
                i++;
            else if (s[i] == '"')
                *quoted = false;
        } else if (s[i] == ' ' || s[i] == '\t') {
            word_start = true;
        } else if (s[i] == '#' && word_start) {
            return SIZE_MAX; /* a comment runs to the end of the line */
        } else {
            word_start = false;
            if (s[i] == '"')
                *quoted = true;
        }
    }
    return SIZE_MAX;
}

/* Bytes of the line at s (n bytes to the end of the text) before its line end, and in *end the
 * bytes of that end: LF, CRLF or a lone CR (an editor of classic Mac OS files, or a conversion
 * gone wrong, leaves lone CRs; taken as blanks they would join every line of the file into one,
 * whose first statement swallowed the rest). *end is 0 at the end of the text. */
static size_t line_length(const char *s, size_t n, size_t *end)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n') {
            *end = 1;
            return i;
        }
        if (s[i] == '\r') {
            *end = i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
            return i;
        }
    }
    *end = 0;
    return n;
}

/* Reads the statement that starts at text + *pos into *buf (grown as needed: a statement costs
 * memory in proportion to its bytes, each read once): one line, or several joined where a quoted
 * word continues after a backslash. ctx->line ends at the statement's last line. */
static lg_err_t read_statement(const char *text, size_t len, size_t *pos, char **buf, size_t *cap,
                               line_ctx_t *ctx)
{
    size_t n = 0;
    bool quoted = false;
    for (;;) {
        size_t end;
        size_t k = line_length(text + *pos, len - *pos, &end);
        if (k > LG_LOR_MAX_LINE)
            return lg_diag_fail(ctx->d, LG_ELIMIT, where_of(ctx),
                                "line is %zu bytes long, expected at most %u", k, LG_LOR_MAX_LINE);
        if (memchr(text + *pos, '\0', k) != NULL)
            return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                "expected text, found a NUL byte (is this a .LOR file?)");
        if (!lg_grow((void **)buf, cap, n + k + 1, 1))
            return LG_ENOMEM;
        memcpy(*buf + n, text + *pos, k);
        *pos += k + end;
        size_t cut = continuation_at(*buf + n, k, &quoted);
        if (cut == SIZE_MAX || end == 0 || *pos >= len) {
            n += k;
            break;
        }
        n += cut; /* the backslash and the line end are not part of the word */
        ctx->line++;
    }
    (*buf)[n] = '\0';
    return LG_OK;
}

/* A phase is a place inside the cache line: every phase= must be below the line size of the
 * file's cache statement (or of the default geometry when it has none). */
static lg_err_t check_phases(const lg_lor_t *lor, line_ctx_t *ctx)
{
    for (size_t i = 0; i < lor->nfns; i++) {
        const lg_lor_fn_t *f = &lor->fns[i];
        if (!(f->flags & LG_FN_PHASED) || f->lead < lor->geometry.line_size)
            continue;
        ctx->line = f->line;
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected phase= below the %" PRIu32
                            "-byte line of the cache statement, found %" PRIu64,
                            lor->geometry.line_size, f->lead);
    }
    return LG_OK;
}

lg_err_t lg_lor_parse(const char *text, size_t len, const char *path, lg_lor_t *lor,
                      lg_diag_t *d)
{
    line_ctx_t ctx = {.path = path, .d = d};
    lor->geometry = (lg_geometry_t){LG_CACHE_SIZE_DEFAULT, LG_LINE_SIZE_DEFAULT, LG_WAYS_DEFAULT};
    char *buf = NULL;
    size_t cap = 0;
    lg_strmap_t seen;
    lg_strmap_init(&seen);
    size_t caps[2] = {0, 0}; /* cliques, fns */
    bool have_version = false;
    lg_err_t err = LG_OK;
    /* Editors on Windows save UTF-8 with a byte-order mark; it says nothing the format does not
     * (the file is UTF-8 or ASCII), so it is skipped. */
    size_t pos =
        len >= UTF8_BOM_BYTES && memcmp(text, UTF8_BOM, UTF8_BOM_BYTES) == 0 ? UTF8_BOM_BYTES : 0;
    while (err == LG_OK && pos < len) {
        size_t first = ++ctx.line;
        err = read_statement(text, len, &pos, &buf, &cap, &ctx);
        if (err != LG_OK)
            break;
        /* Messages name the line the statement starts on. */
        size_t last = ctx.line;
        ctx.line = first;
        char *tok[LG_LOR_MAX_TOKENS];
        int ntok = tokenize(buf, tok, &ctx);
        if (ntok < 0)
            err = LG_EFORMAT;
        else if (ntok > 0)
            err = parse_line(lor, tok, ntok, &ctx, caps, &seen, &have_version);
        ctx.line = last;
    }
    if (err == LG_OK && !have_version)
        err = lg_diag_fail(d, LG_EFORMAT, path,
                           "expected 'lorgen-lor VERSION', found no content (empty file?)");
    if (err == LG_OK)
        err = check_phases(lor, &ctx);
    free(buf);
    lg_strmap_destroy(&seen);
    if (err != LG_OK) {
        lg_lor_destroy(lor);
        lg_lor_init(lor);
    }
    return err;
}

/* ---- Check against the program ---------------------------------------------------------------- */

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
        if (is_select_kind(lor->inputs[i].kind))
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
            bytes = lg_sat_add(lg_start_after(bytes, lor->fns[i].align, lor->fns[i].lead),
                               lor->fns[i].size);
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
