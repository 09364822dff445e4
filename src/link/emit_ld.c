/* emit_ld.c - GNU ld linker-script outputs; see emit_ld.h. */
#include "emit_ld.h"

#include "linkname.h"
#include "strmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

lg_err_t lg_emit_ld_pattern(const lg_lor_fn_t *f, bool qualify, FILE *out)
{
    char *names[LG_LINKNAME_MAX_SECTIONS];
    size_t n = lg_linkname_sections(f, names);
    if (n == 0)
        return LG_ENOMEM;
    lg_err_t err = LG_OK;
    char *object = NULL;
    if (qualify && f->object != NULL) {
        /* lg_linkname_resolve names as many directories as tell the object apart; without it,
         * the base name. */
        if (f->flags & LG_LOR_FN_OBJECT_UNSAYABLE)
            err = LG_EUNSUPPORTED;
        else if (f->ld_object != NULL)
            err = (object = strdup(f->ld_object)) != NULL ? LG_OK : LG_ENOMEM;
        else if ((err = lg_linkname_ld_object(f->object, &object)) == LG_OK && object == NULL)
            err = LG_EUNSUPPORTED;
    }
    if (err == LG_OK) {
        fputs(object != NULL ? object : "*", out);
        fputc('(', out);
        for (size_t i = 0; i < n && err == LG_OK; i++) {
            if (i > 0)
                fputc(' ', out);
            if (!lg_linkname_ld_section(names[i], out))
                err = LG_EUNSUPPORTED;
        }
        fputc(')', out);
    }
    free(object);
    lg_linkname_free(names, n);
    return err;
}

/* Marks the functions whose pattern must name the object: the section name is shared with
 * another listed function or with a section of another object file given, the symbol with
 * another function of the program, or the section is a plain .text that names no function. */
static lg_err_t mark_qualified(const lg_lor_t *lor, bool *qualify)
{
    lg_strmap_t first_with;
    lg_strmap_init(&first_with);
    for (size_t i = 0; i < lor->nfns; i++) {
        const lg_lor_fn_t *f = &lor->fns[i];
        qualify[i] = (f->flags & (LG_FN_AMBIGUOUS_NAME | LG_FN_SECTION_NAME_SHARED)) != 0 ||
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

/* True when GNU ld can read every section name f may have; *err is set when memory ran out. */
static bool sections_sayable(const lg_lor_fn_t *f, lg_err_t *err)
{
    char *names[LG_LINKNAME_MAX_SECTIONS];
    size_t n = lg_linkname_sections(f, names);
    if (n == 0)
        *err = LG_ENOMEM;
    bool sayable = true;
    for (size_t i = 0; i < n; i++)
        sayable = sayable && names[i][0] != '\0' && strchr(names[i], '"') == NULL;
    lg_linkname_free(names, n);
    return sayable;
}

/* One function's pattern as a string (malloc'd), or NULL when it must not be written: pinned,
 * a plain .text section whose object is unknown (the pattern would take every object's), or a
 * name no GNU ld pattern can say (with a warning). */
static char *pattern_text(const lg_lor_fn_t *f, bool qualify, lg_diag_t *d, lg_err_t *err)
{
    if (f->flags & LG_LOR_FN_PINNED)
        return NULL;
    if (qualify && f->object == NULL && f->section != NULL &&
        !(f->flags & LG_FN_SECTION_INFERRED) && !lg_linkname_is_own_section(f->section)) {
        char shown[LG_LINKNAME_SHOW_BYTES], section[LG_LINKNAME_SHOW_BYTES];
        lg_diag_add(d, LG_WARNING, "",
                    "'%s' is in a section named %s and its object file is unknown: naming the "
                    "section would move every object's %s, so it is left out",
                    lg_linkname_show(f->symbol, shown), lg_linkname_show(f->section, section),
                    section);
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
    if (fclose(s) != 0 && e == LG_OK)
        e = LG_ENOMEM;
    if (e == LG_OK)
        return text;
    free(text);
    char shown[LG_LINKNAME_SHOW_BYTES], shown_too[LG_LINKNAME_SHOW_BYTES];
    if (e != LG_EUNSUPPORTED)
        *err = e;
    else if (!sections_sayable(f, err))
        lg_diag_add(d, LG_WARNING, "",
                    "'%s' is left out of the GNU ld script: its section name '%s' holds a '\"', "
                    "which no linker script word can hold",
                    lg_linkname_show(f->symbol, shown),
                    lg_linkname_show(f->section ? f->section : f->symbol, shown_too));
    else if (*err == LG_OK)
        lg_diag_add(d, LG_WARNING, "",
                    "'%s' is left out of the GNU ld script: it must be named with its object "
                    "file '%s', and no file pattern can hold that path ('\"' in it, or ':' in "
                    "an archive's path)",
                    lg_linkname_show(f->symbol, shown), lg_linkname_show(f->object, shown_too));
    return NULL;
}

/* The lines before a phased function's pattern: its code starts lead bytes into a cache line,
 * at the first such address (no padding when it is there already, as the optimizer counted).
 * Inside an output section `.` is an offset in the section, and so is ABSOLUTE(.), but ALIGN
 * aligns the address (GNU ld 2.40, tests/e2e/phase.sh): ALIGN(line) - . is the address's distance
 * to the next line, so adding the lead and keeping the rest of a line gives the padding wherever
 * the section starts. The input section's own alignment applies after the padding;
 * lg_lor_check made sure it divides the lead. */
static void write_phase(const lg_lor_t *lor, const lg_lor_fn_t *f, const char *indent, FILE *out)
{
    uint32_t line = lor->geometry.line_size;
    fprintf(out, "%s/* phase +%" PRIu64 " in the %" PRIu32 "-byte cache line */\n", indent, f->lead,
            line);
    if (f->lead == 0)
        fprintf(out, "%s. = ALIGN(%" PRIu32 ");\n", indent, line);
    else
        fprintf(out, "%s. = . + ((ALIGN(%" PRIu32 ") - . + %" PRIu64 ") & %" PRIu32 ");\n", indent,
                line, f->lead, line - 1);
}

/* The input-section lines of lor's cliques, each clique under a comment with its size when
 * clique_comments (a region's members, lent as one clique, are no clique to people). */
static lg_err_t write_body(const lg_lor_t *lor, const char *indent, bool clique_comments,
                           FILE *out, lg_diag_t *d)
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
        if (clique_comments)
            fprintf(out, "%s/* clique %zu: %" PRIu64 " bytes, %" PRIu64 " hits%s */\n", indent,
                    c + 1, cl->bytes, cl->hits,
                    (cl->flags & LG_CLIQUE_FILLER) ? ", never-executed code placed as filler" : "");
        if (cl->pad_before > 0)
            fprintf(out, "%s. = . + %" PRIu64 ";\n", indent, cl->pad_before);
        for (size_t i = cl->first; i < cl->first + cl->count && err == LG_OK; i++) {
            texts[i] = pattern_text(&lor->fns[i], qualify[i], d, &err);
            uint32_t first;
            if (texts[i] == NULL)
                continue;
            if (!lg_strmap_put(&written, texts[i], (uint32_t)i, &first)) {
                err = LG_ENOMEM;
            } else if (first == i) {
                if (lor->fns[i].flags & LG_FN_PHASED)
                    write_phase(lor, &lor->fns[i], indent, out);
                fprintf(out, "%s%s\n", indent, texts[i]);
            }
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
    LG_CHECK(write_body(lor, "    ", true, out, d));
    fputs("  }\n}\nINSERT BEFORE .text;\n", out);
    return ferror(out) ? LG_EIO : LG_OK;
}

lg_err_t lg_emit_ld_include(const lg_lor_t *lor, FILE *out, lg_diag_t *d)
{
    fputs("/* Link order written by lorgen. INCLUDE this file inside the .text output section of\n"
          " * your linker script, after the code that must come first (vectors, entry) and\n"
          " * before the catch-all *(.text .text.*). */\n",
          out);
    LG_CHECK(write_body(lor, "", true, out, d));
    return ferror(out) ? LG_EIO : LG_OK;
}

lg_err_t lg_emit_ld_region(const lg_lor_t *lor, const char *region, FILE *out, lg_diag_t *d)
{
    fputs("/* Fast region members chosen by lorgen. INCLUDE this file inside the output section ",
          out);
    for (const char *c = region; *c; c++) /* no comment end inside the comment */
        fputc(*c == '*' && c[1] == '/' ? '?' : *c, out);
    fprintf(out,
            "\n * of your linker script, before any wildcard that could take these sections.\n"
            " * %zu functions, %" PRIu64 " bytes with alignment padding. */\n",
            lor->nfns, lor->ncliques ? lor->cliques[0].bytes : 0);
    LG_CHECK(write_body(lor, "", false, out, d));
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
    LG_CHECK(write_body(lor, "  ", true, out, d));
    fputs("}\n", out);
    return ferror(out) ? LG_EIO : LG_OK;
}
