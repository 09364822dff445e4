/* lor_write.c - writes the .LOR text: every word quoted when the reader would split it, and long
 * words continued over lines so that whatever is written reads back. */
#include "lor.h"

#include "lor_internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* One fn line; group: its fixed group's number, 0 for none. */
static void write_fn(const lg_lor_fn_t *f, size_t group, FILE *out)
{
    fputs("  fn ", out);
    write_token(out, f->symbol);
    fprintf(out, " size=%" PRIu64 " hits=%" PRIu64, f->size, f->hits);
    if (group > 0)
        fprintf(out, " group=%zu", group);
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
        bool rule = lg_lor_is_select_kind(lor->inputs[i].kind);
        fputs(rule ? "select" : "input", out);
        write_key(out, lor->inputs[i].kind, lor->inputs[i].path);
        if (lor->inputs[i].format != NULL)
            write_key(out, "format", lor->inputs[i].format);
        fputc('\n', out);
    }
    if (lor->section_align > 1)
        fprintf(out, "section align=%" PRIu64 "\n", lor->section_align);
    for (size_t r = 0; r < lor->nregions; r++) {
        const lg_lor_region_t *rg = &lor->regions[r];
        fprintf(out,
                "\n# fast region: %" PRIu64 " of %" PRIu64 " bytes (size %" PRIu64
                "), --fast-include writes its lines\n",
                rg->bytes, rg->budget, rg->size);
        fputs("region", out);
        fputc(' ', out);
        write_token(out, rg->name);
        fprintf(out, " size=%" PRIu64 " budget=%" PRIu64 " bytes=%" PRIu64 " functions=%zu",
                rg->size, rg->budget, rg->bytes, rg->nfns);
        /* Only when there is some: the line of a region the link shares with nobody stays as
         * it was. */
        if (rg->held > 0)
            fprintf(out, " held=%" PRIu64, rg->held);
        if (rg->stubs > 0)
            fprintf(out, " stubs=%" PRIu64, rg->stubs);
        fputc('\n', out);
        for (size_t i = 0; i < rg->npinned; i++) {
            fputs("  pinned ", out);
            write_token(out, rg->pinned[i]);
            fputc('\n', out);
        }
        for (size_t i = 0; i < rg->nfns; i++)
            write_fn(&rg->fns[i], 0, out);
    }
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
            if (in_group(f)) {
                /* A fixed group's members stand together: its number, for the reader. */
                if (i == 0 || !same_group(&lor->fns[i - 1], f))
                    group++;
            }
            write_fn(f, in_group(f) ? group : 0, out);
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
