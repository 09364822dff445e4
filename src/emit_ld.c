/* emit_ld.c - GNU ld linker-script outputs; see emit_ld.h. */
#include "emit_ld.h"

#include "strmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Prefixes GCC's -freorder-functions puts before a function's name in its section name
 * (gcc/varasm.cc default_function_section); "" is the plain .text.NAME. */
static const char *const gcc_prefixes[] = {"", "hot.", "unlikely.", "startup.", "exit."};

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

void lg_emit_ld_pattern(const lg_lor_fn_t *f, bool qualify, FILE *out)
{
    if (qualify && f->object != NULL)
        write_object_pattern(f->object, out);
    else
        fputc('*', out);
    fputc('(', out);
    if (f->section != NULL && !(f->flags & LG_FN_SECTION_INFERRED)) {
        fputs(f->section, out);
    } else {
        for (size_t i = 0; i < sizeof gcc_prefixes / sizeof *gcc_prefixes; i++)
            fprintf(out, "%s.text.%s%s", i ? " " : "", gcc_prefixes[i], f->symbol);
    }
    fputc(')', out);
}

/* Marks the functions whose section name another listed function also has (or whose symbol
 * is known to be shared by same-named statics): their patterns must name the object. */
static lg_err_t mark_shared_names(const lg_lor_t *lor, bool *qualify)
{
    lg_strmap_t first_with;
    lg_strmap_init(&first_with);
    for (size_t i = 0; i < lor->nfns; i++) {
        const lg_lor_fn_t *f = &lor->fns[i];
        qualify[i] = (f->flags & LG_FN_AMBIGUOUS_NAME) != 0;
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

static lg_err_t write_body(const lg_lor_t *lor, const char *indent, FILE *out)
{
    bool *qualify = calloc(lor->nfns ? lor->nfns : 1, sizeof *qualify);
    if (qualify == NULL)
        return LG_ENOMEM;
    lg_err_t err = mark_shared_names(lor, qualify);
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
        for (size_t i = cl->first; i < cl->first + cl->count; i++) {
            fputs(indent, out);
            lg_emit_ld_pattern(&lor->fns[i], qualify[i], out);
            fputc('\n', out);
        }
    }
    free(qualify);
    return err;
}

lg_err_t lg_emit_ld_script(const lg_lor_t *lor, FILE *out)
{
    fputs("/* Link order written by lorgen. Use with the default linker script:\n"
          " *   gcc ... -Wl,-T,THIS_FILE\n"
          " * The ordered functions go to their own output section, inserted before .text. */\n"
          "SECTIONS\n{\n  " LG_LD_OUTPUT_SECTION " :\n  {\n",
          out);
    LG_CHECK(write_body(lor, "    ", out));
    fputs("  }\n}\nINSERT BEFORE .text;\n", out);
    return ferror(out) ? LG_EIO : LG_OK;
}

lg_err_t lg_emit_ld_include(const lg_lor_t *lor, FILE *out)
{
    fputs("/* Link order written by lorgen. INCLUDE this file inside the .text output section of\n"
          " * your linker script, after the code that must come first (vectors, entry) and\n"
          " * before the catch-all *(.text .text.*). */\n",
          out);
    LG_CHECK(write_body(lor, "", out));
    return ferror(out) ? LG_EIO : LG_OK;
}
