/* lor_read.c - parses the .LOR text into the model, naming the file and line of every error. */
#include "lor.h"

#include "lor_internal.h"
#include "mem.h"

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

typedef struct line_ctx {
    const char *path;
    size_t line;
    lg_diag_t *d;
    bool in_region; /* fn lines go to the last region until the next clique */
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

/* Reads a fn line's symbol, keys and flags into *out (freed by the caller on success). */
static lg_err_t read_fn(char **tok, int n, line_ctx_t *ctx, lg_lor_fn_t *out)
{
    if (n < 2)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'fn SYMBOL key=value...', found no symbol");
    lg_lor_fn_t f = {.align = 1, .line = ctx->line};
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
                lg_lor_fn_free(&f);
                return bad_number(ctx, tok[i], value);
            }
        } else if (strcmp(tok[i], "group") == 0) {
            /* The writer's number of a fixed group, for people: lorgen script takes the groups
             * from the ELF inputs and checks each is listed whole (check_groups). */
            uint64_t unused;
            if (!parse_u64(value, &unused)) {
                lg_lor_fn_free(&f);
                return bad_number(ctx, tok[i], value);
            }
        } else if (strcmp(tok[i], "phase") == 0) {
            /* Checked against the line size once the whole file is read (check_phases): the
             * cache statement may come later. */
            if (!parse_u64(value, &f.lead)) {
                lg_lor_fn_free(&f);
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
                lg_lor_fn_free(&f);
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
        lg_lor_fn_free(&f);
        return LG_ENOMEM;
    }
    *out = f;
    return LG_OK;
}

/* The same function twice, in cliques or regions, is a mistake (a linker takes a section once:
 * the second place would be silently lost) unless object= or source= tells the two apart
 * (same-named statics). region: where f is listed, LG_LOR_IN_CLIQUE for a clique. */
static lg_err_t list_once(lg_lor_listed_t *listed, const lg_lor_t *lor, const lg_lor_fn_t *f,
                          size_t region, line_ctx_t *ctx)
{
    const lg_lor_listing_t *first;
    LG_CHECK(lg_lor_listed_add(listed, f, region, &first));
    if (first == NULL)
        return LG_OK;
    bool in_region = first->region != LG_LOR_IN_CLIQUE;
    return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                        "function '%s' is listed twice (first on line %zu%s%s%s); give object= "
                        "or source= to tell same-named statics apart",
                        f->symbol, first->line, in_region ? ", in region '" : "",
                        in_region ? lor->regions[first->region].name : "", in_region ? "'" : "");
}

static lg_err_t parse_fn(lg_lor_t *lor, size_t *fns_cap, lg_lor_listed_t *listed, char **tok, int n,
                         line_ctx_t *ctx)
{
    if (lor->ncliques == 0)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected a 'clique' line before the first 'fn' line");
    if (!lg_grow((void **)&lor->fns, fns_cap, lor->nfns + 1, sizeof *lor->fns))
        return LG_ENOMEM;
    lg_lor_fn_t f;
    LG_CHECK(read_fn(tok, n, ctx, &f));
    f.clique = (uint32_t)(lor->ncliques - 1);
    lg_err_t err = list_once(listed, lor, &f, LG_LOR_IN_CLIQUE, ctx);
    if (err != LG_OK) {
        lg_lor_fn_free(&f);
        return err;
    }
    lor->fns[lor->nfns++] = f;
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
    if (value == NULL || !lg_lor_is_select_kind(tok[1]) || *value == '\0')
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'select include=PATTERN' or 'select exclude=PATTERN', "
                            "found %d word(s) after 'select'%s%s",
                            n - 1, n > 1 ? ", the first " : "", n > 1 ? tok[1] : "");
    return lg_lor_add_input(lor, tok[1], value, NULL);
}

/* 'region NAME size=S budget=B [bytes=N functions=N held=H stubs=S]': a fast region; its fn lines
 * follow. */
static lg_err_t parse_region(lg_lor_t *lor, char **tok, int n, line_ctx_t *ctx)
{
    if (n < 2 || split_key(tok[1]) != NULL || *tok[1] == '\0')
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'region NAME size=BYTES budget=BYTES', found %s",
                            n < 2 ? "no name" : "a key=value word for the name");
    for (size_t r = 0; r < lor->nregions; r++)
        if (strcmp(lor->regions[r].name, tok[1]) == 0)
            return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                                "region '%s' is given twice (first on line %zu)", tok[1],
                                lor->regions[r].line);
    uint64_t size = 0, budget = 0, bytes = 0, held = 0, stubs = 0, unused;
    bool have_size = false, have_budget = false;
    for (int i = 2; i < n; i++) {
        char *value = split_key(tok[i]);
        uint64_t *slot = value == NULL                  ? NULL
                         : strcmp(tok[i], "size") == 0   ? &size
                         : strcmp(tok[i], "budget") == 0 ? &budget
                         : strcmp(tok[i], "bytes") == 0  ? &bytes
                         : strcmp(tok[i], "held") == 0   ? &held
                         : strcmp(tok[i], "stubs") == 0  ? &stubs
                         : strcmp(tok[i], "functions") == 0 ? &unused
                                                             : NULL;
        if (slot == NULL) {
            lg_diag_add(ctx->d, LG_WARNING, where_of(ctx), "ignoring unknown region key '%s'",
                        tok[i]);
            continue;
        }
        if (!parse_u64(value, slot))
            return bad_number(ctx, tok[i], value);
        have_size |= slot == &size;
        have_budget |= slot == &budget;
    }
    if (!have_size || !have_budget)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected size= and budget= on region '%s', found no %s", tok[1],
                            have_size ? "budget=" : "size=");
    if (budget > size)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected budget= at most size= (%" PRIu64 ") on region '%s', found %" PRIu64,
                            size, tok[1], budget);
    LG_CHECK(lg_lor_add_region(lor, NULL, tok[1], size, budget, bytes, NULL, 0));
    lor->regions[lor->nregions - 1].line = ctx->line;
    lor->regions[lor->nregions - 1].held = held;
    lor->regions[lor->nregions - 1].stubs = stubs;
    ctx->in_region = true;
    return LG_OK;
}

/* 'pinned NAME' inside a region: a function the link keeps there besides its members. */
static lg_err_t parse_pinned(lg_lor_t *lor, char **tok, int n, line_ctx_t *ctx)
{
    if (!ctx->in_region)
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'pinned NAME' after a region statement, found it %s",
                            lor->ncliques ? "in a clique" : "before any region");
    if (n != 2 || *tok[1] == '\0')
        return lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                            "expected 'pinned NAME', found %d word(s) after 'pinned'", n - 1);
    return lg_lor_region_add_pinned(&lor->regions[lor->nregions - 1], tok[1]);
}

/* A fn line of the last region. */
static lg_err_t parse_region_fn(lg_lor_t *lor, lg_lor_listed_t *listed, char **tok, int n,
                                line_ctx_t *ctx)
{
    lg_lor_region_t *r = &lor->regions[lor->nregions - 1];
    lg_lor_fn_t f;
    LG_CHECK(read_fn(tok, n, ctx, &f));
    lg_err_t err = LG_OK;
    if (f.flags & LG_FN_PHASED)
        err = lg_diag_fail(ctx->d, LG_EFORMAT, where_of(ctx),
                           "expected no phase= on a member of region '%s': its members are "
                           "packed",
                           r->name);
    if (err == LG_OK)
        err = list_once(listed, lor, &f, lor->nregions - 1, ctx);
    size_t rcap = r->nfns;
    if (err == LG_OK && !lg_grow((void **)&r->fns, &rcap, r->nfns + 1, sizeof *r->fns))
        err = LG_ENOMEM;
    if (err != LG_OK) {
        lg_lor_fn_free(&f);
        return err;
    }
    r->fns[r->nfns++] = f;
    return LG_OK;
}

static lg_err_t parse_line(lg_lor_t *lor, char **tok, int n, line_ctx_t *ctx, size_t *caps,
                           lg_lor_listed_t *listed, bool *have_version)
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
        return ctx->in_region ? parse_region_fn(lor, listed, tok, n, ctx)
                              : parse_fn(lor, &caps[1], listed, tok, n, ctx);
    if (strcmp(kw, "region") == 0)
        return parse_region(lor, tok, n, ctx);
    if (strcmp(kw, "pinned") == 0)
        return parse_pinned(lor, tok, n, ctx);
    if (strcmp(kw, "clique") == 0) {
        ctx->in_region = false;
        return parse_clique(lor, &caps[0], tok, n, ctx);
    }
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
                        "section, region, pinned, clique, fn, cold), found '%s'",
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
    lg_lor_listed_t listed;
    lg_lor_listed_init(&listed);
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
            err = parse_line(lor, tok, ntok, &ctx, caps, &listed, &have_version);
        ctx.line = last;
    }
    if (err == LG_OK && !have_version)
        err = lg_diag_fail(d, LG_EFORMAT, path,
                           "expected 'lorgen-lor VERSION', found no content (empty file?)");
    if (err == LG_OK)
        err = check_phases(lor, &ctx);
    free(buf);
    lg_lor_listed_destroy(&listed);
    if (err != LG_OK) {
        lg_lor_destroy(lor);
        lg_lor_init(lor);
    }
    return err;
}
