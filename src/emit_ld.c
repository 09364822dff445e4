/* emit_ld.c - GNU ld linker-script outputs; see emit_ld.h. */
#include "emit_ld.h"

#include "linkname.h"
#include "strmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The object part of a pattern: "util.o" for a plain file, "libx.a:util.o" for an archive
 * member written as "path/libx.a(util.o)". Leading directories are dropped and replaced by '*'
 * in the pattern, since ld matches the path the object was given to it with. */
static void write_object_pattern(const char *object, FILE *out)
{
    const char *paren = strchr(object, '(');
    const char *end = paren ? paren : object + strlen(object);
    const char *base = object;
    for (const char *p = object; p < end; p++)
        if (*p == '/')
            base = p + 1;
    fputc('*', out);
    fwrite(base, 1, (size_t)(end - base), out);
    if (paren != NULL) {
        const char *close = strchr(paren, ')');
        size_t n = close ? (size_t)(close - paren - 1) : strlen(paren + 1);
        fputc(':', out);
        fwrite(paren + 1, 1, n, out);
    }
}

lg_err_t lg_emit_ld_pattern(const lg_lor_fn_t *f, bool qualify, FILE *out)
{
    char *names[LG_LINKNAME_MAX_SECTIONS];
    size_t n = lg_linkname_sections(f, names);
    if (n == 0)
        return LG_ENOMEM;
    if (qualify && f->object != NULL)
        write_object_pattern(f->object, out);
    else
        fputc('*', out);
    fputc('(', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? " " : "", names[i]);
    fputc(')', out);
    lg_linkname_free(names, n);
    return LG_OK;
}

/* Marks the functions whose pattern must name the object: the section name is shared with
 * another listed function, the symbol with another function of the program, or the section is a
 * plain .text that names no function. */
static lg_err_t mark_qualified(const lg_lor_t *lor, bool *qualify)
{
    lg_strmap_t first_with;
    lg_strmap_init(&first_with);
    for (size_t i = 0; i < lor->nfns; i++) {
        const lg_lor_fn_t *f = &lor->fns[i];
        qualify[i] = (f->flags & LG_FN_AMBIGUOUS_NAME) != 0 ||
                     (f->section != NULL && !(f->flags & LG_FN_SECTION_INFERRED) &&
                      !lg_linkname_is_own_section(f->section));
        const char *key = f->section ? f->section : f->symbol;
        uint32_t first;
        if (!lg_strmap_put(&first_with, key, (uint32_t)i, &first)) {
            lg_strmap_destroy(&first_with);
            return LG_ENOMEM;
        }
        if (first != i)
            qualify[i] = qualify[first] = true;
    }
    lg_strmap_destroy(&first_with);
    return LG_OK;
}

/* One function's pattern as a string (malloc'd), or NULL when it must not be written: pinned,
 * or a plain .text section whose object is unknown (the pattern would take every object's). */
static char *pattern_text(const lg_lor_fn_t *f, bool qualify, lg_diag_t *d, lg_err_t *err)
{
    if (f->flags & LG_LOR_FN_PINNED)
        return NULL;
    if (qualify && f->object == NULL && f->section != NULL &&
        !(f->flags & LG_FN_SECTION_INFERRED) && !lg_linkname_is_own_section(f->section)) {
        lg_diag_add(d, LG_WARNING, "",
                    "'%s' is in a section named %s and its object file is unknown: naming the "
                    "section would move every object's %s, so it is left out",
                    f->symbol, f->section, f->section);
        return NULL;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&text, &len);
    if (s == NULL) {
        *err = LG_ENOMEM;
        return NULL;
    }
    lg_err_t e = lg_emit_ld_pattern(f, qualify, s);
    if (fclose(s) != 0 || e != LG_OK) {
        free(text);
        *err = LG_ENOMEM;
        return NULL;
    }
    return text;
}

static lg_err_t write_body(const lg_lor_t *lor, const char *indent, FILE *out, lg_diag_t *d)
{
    bool *qualify = calloc(lor->nfns ? lor->nfns : 1, sizeof *qualify);
    if (qualify == NULL)
        return LG_ENOMEM;
    lg_strmap_t written; /* patterns already written: the linker takes a section once */
    lg_strmap_init(&written);
    char **texts = calloc(lor->nfns ? lor->nfns : 1, sizeof *texts);
    lg_err_t err = texts ? mark_qualified(lor, qualify) : LG_ENOMEM;
    /* The cache offsets the placement chose hold only from an address aligned to the way size. */
    if (err == LG_OK && lor->section_align > 1)
        fprintf(out, "%s. = ALIGN(%" PRIu64 ");\n", indent, lor->section_align);
    for (size_t c = 0; c < lor->ncliques && err == LG_OK; c++) {
        const lg_lor_clique_t *cl = &lor->cliques[c];
        fprintf(out, "%s/* clique %zu: %" PRIu64 " bytes, %" PRIu64 " hits%s */\n", indent, c + 1,
                cl->bytes, cl->hits,
                (cl->flags & LG_CLIQUE_FILLER) ? ", never-executed code placed as filler" : "");
        if (cl->pad_before > 0)
            fprintf(out, "%s. = . + %" PRIu64 ";\n", indent, cl->pad_before);
        for (size_t i = cl->first; i < cl->first + cl->count && err == LG_OK; i++) {
            texts[i] = pattern_text(&lor->fns[i], qualify[i], d, &err);
            uint32_t first;
            if (texts[i] == NULL)
                continue;
            if (!lg_strmap_put(&written, texts[i], (uint32_t)i, &first))
                err = LG_ENOMEM;
            else if (first == i)
                fprintf(out, "%s%s\n", indent, texts[i]);
        }
    }
    lg_strmap_destroy(&written);
    for (size_t i = 0; texts != NULL && i < lor->nfns; i++)
        free(texts[i]);
    free(texts);
    free(qualify);
    return err;
}

lg_err_t lg_emit_ld_script(const lg_lor_t *lor, FILE *out, lg_diag_t *d)
{
    fputs("/* Link order written by lorgen. Use with the default linker script:\n"
          " *   gcc ... -Wl,-T,THIS_FILE\n"
          " * The ordered functions go to their own output section, inserted before .text. */\n"
          "SECTIONS\n{\n  " LG_LD_OUTPUT_SECTION " :\n  {\n",
          out);
    LG_CHECK(write_body(lor, "    ", out, d));
    fputs("  }\n}\nINSERT BEFORE .text;\n", out);
    return ferror(out) ? LG_EIO : LG_OK;
}

lg_err_t lg_emit_ld_include(const lg_lor_t *lor, FILE *out, lg_diag_t *d)
{
    fputs("/* Link order written by lorgen. INCLUDE this file inside the .text output section of\n"
          " * your linker script, after the code that must come first (vectors, entry) and\n"
          " * before the catch-all *(.text .text.*). */\n",
          out);
    LG_CHECK(write_body(lor, "", out, d));
    return ferror(out) ? LG_EIO : LG_OK;
}

lg_err_t lg_emit_ld_ordering(const lg_lor_t *lor, FILE *out, lg_diag_t *d)
{
    fputs("/* Link order written by lorgen, for GNU ld 2.43 or later:\n"
          " *   gcc ... -Wl,--section-ordering-file,THIS_FILE\n"
          " * ld puts these lines first in the " LG_LD_ORDERING_SECTION
          " output section of the script in use, so\n"
          " * with a board script whose .text starts with the reset vector or entry code, use\n"
          " * lorgen's --ld-include form instead. */\n" LG_LD_ORDERING_SECTION " :\n{\n",
          out);
    LG_CHECK(write_body(lor, "  ", out, d));
    fputs("}\n", out);
    return ferror(out) ? LG_EIO : LG_OK;
}
