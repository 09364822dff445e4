/* report.c - the clique report; see report.h. */
#include "report.h"

#include "fast_region.h"
#include "linkname.h"
#include "mem.h"

#include "prf.h"
#include "report_calls.h"
#include "report_model.h"
#include "report_regions.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Widest a function-name column grows before longer names overflow it, in characters. */
#define LG_REPORT_NAME_WIDTH_MAX 48
#define LG_REPORT_NAME_WIDTH_MIN 8
/* Width of the "caller -> callee" column of the call tables, in characters. */
#define LG_REPORT_PAIR_WIDTH 60

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

static size_t rows_shown(const lg_report_input_t *in, size_t n)
{
    return in->max_rows && n > in->max_rows ? in->max_rows : n;
}

/* Writes a name as lg_linkname_put shows it (whole, on one line, control characters and bytes
 * outside UTF-8 escaped), padded on the right with blanks to width bytes (printf's %-*s). */
/* Blanks after `written` bytes up to width bytes (none when it is reached already). */
static void pad_to(FILE *out, size_t written, size_t width)
{
    if (written < width)
        fprintf(out, "%*s", (int)(width - written), "");
}

static void put_name(FILE *out, const char *name, int width)
{
    size_t len = lg_linkname_put(name, out);
    if (width > 0)
        pad_to(out, len, (size_t)width);
}

static int name_width(const lg_program_t *prog, const uint32_t *fns, size_t n)
{
    size_t w = LG_REPORT_NAME_WIDTH_MIN;
    for (size_t i = 0; i < n && w < LG_REPORT_NAME_WIDTH_MAX; i++) {
        size_t len = lg_linkname_put(prog->fns[fns[i]].symbol, NULL);
        if (len > w)
            w = len;
    }
    return w > LG_REPORT_NAME_WIDTH_MAX ? LG_REPORT_NAME_WIDTH_MAX : (int)w;
}

static void write_inputs(const lg_report_input_t *in, FILE *out)
{
    fputs("Inputs\n", out);
    for (size_t i = 0; i < in->nprofiles; i++) {
        const lg_profile_t *p = in->profiles[i].profile;
        fputs("  profile  ", out);
        put_name(out, p->path ? p->path : "?", 0);
        fprintf(out, ": %s, %s profile, %zu functions", p->format ? p->format : "?",
                p->kind == LG_PROFILE_TRACE ? "trace" : "statistical", p->nfuncs);
        if (p->kind == LG_PROFILE_TRACE)
            fprintf(out, ", %" PRIu64 " call records", p->call_records);
        if (p->has_call_edges)
            fprintf(out, ", %zu call edges", p->nedges);
        else
            fputs(", no call edges: ordered by hotness only", out);
        if (p->format && strcmp(p->format, "prf") == 0 && p->kind == LG_PROFILE_TRACE)
            fprintf(out, "; counter 1: %s, counter 2: %s", lg_prf_counter_name(p->counter1_kind),
                    lg_prf_counter_name(p->counter2_kind));
        fputc('\n', out);
        if (in->nprofiles > 1 || in->profiles[i].scale != 1.0)
            fprintf(out, "           merged at x%.6g (%" PRIu64 " hits as read)\n",
                    in->profiles[i].scale, lg_profile_volume(p));
    }
    if (in->nprofiles > 1)
        fprintf(out, "  %s\n",
                in->normalized
                    ? "profiles are normalized to the largest one's volume (sum of hits), then "
                      "multiplied by their --weight"
                    : "profiles are merged as read (--no-normalize), multiplied by their --weight");
    if (in->lor != NULL)
        for (size_t i = 0; i < in->lor->ninputs; i++)
            if (strcmp(in->lor->inputs[i].kind, "elf") == 0) {
                fputs("  elf      ", out);
                put_name(out, in->lor->inputs[i].path, 0);
                fputc('\n', out);
            }
    fputc('\n', out);
}

static void write_summary(const lg_report_input_t *in, const lg_report_model_t *m, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    const lg_geometry_t *g = &layout->geometry;
    fputs("Summary\n", out);
    fprintf(out, "  %-32s %zu\n", "functions in the ELF inputs", prog->nfns);
    fprintf(out, "  %-32s %zu\n", "profiled functions bound", prog->nprofiled);
    fprintf(out, "  %-32s %zu\n", "profiled functions unbound", prog->nunbound);
    fprintf(out, "  %-32s %zu\n", "executed but not movable", layout->nexcluded);
    fprintf(out, "  %-32s %zu\n", "never executed (input order)", layout->ncold);
    fprintf(out,
            "  %-32s %" PRIu32 " bytes, %" PRIu32 "-byte lines, %" PRIu32 "-way, %" PRIu32
            " sets\n",
            "cache", g->cache_size, g->line_size, g->ways, m->sets);
    fprintf(out, "  %-32s %s\n", "algorithm", layout->algorithm ? layout->algorithm : "cliques");
    fprintf(out, "  %-32s %zu\n", "cliques", layout->ncliques);
    fprintf(out, "  %-32s %" PRIu64 " bytes in %zu functions (%.1f%% of the cache)\n",
            "hot code", m->hot_bytes, m->hot_fns, lg_report_pct(m->hot_bytes, g->cache_size));
    if (m->filler_fns > 0)
        fprintf(out,
                "  %-32s %" PRIu64 " bytes in %zu never-executed function%s, placed to move\n"
                "  %-32s the next clique to its cache sets (not hot code)\n",
                "filler", m->all_bytes - m->hot_bytes, m->filler_fns, plural(m->filler_fns), "");
    fprintf(out, "  %-32s %" PRIu64 "\n", "total hits of bound functions", m->total_hits);
    fprintf(out, "  %-32s %s%s\n", "placement weight", m->weight_unit,
            lg_report_weight_clause(in, m));
    fprintf(out, "  %-32s %" PRIu64 " %s\n", "total weight of the cliques", m->total_weight,
            m->weight_unit);
    if (in->estimated) {
        fprintf(out, "  %-32s %" PRIu64 " -> %" PRIu64 " (lorgen eval's replay of the profile)\n",
                "estimated misses, ELF -> new", in->misses_before, in->misses_after);
        fprintf(out,
                "    %-30s %.1f%% of the profiles' %s, in unbound functions; and code\n"
                "    %-30s outside the profiles (PLT, libc, start-up code), which lorgen\n"
                "    %-30s does not move\n",
                "not replayed", lg_report_unreplayed_pct(m), m->weight_unit, "", "");
        fprintf(out,
                "    %-30s a model's hint at which layout misses less, not a measure\n"
                "    %-30s of by how much; misses measured with cachegrind are in\n"
                "    %-30s docs/benchmarks.md\n",
                "limits", "", "");
        if (in->lor != NULL && in->lor->nregions > 0)
            fprintf(out,
                    "    %-30s the fast regions' code, fetched outside the instruction\n"
                    "    %-30s cache (a TCM), is counted in neither\n",
                    "fast regions", "");
    } else
        fprintf(out,
                "  %-32s not estimated: the ELF inputs give no addresses (give the linked "
                "program)\n",
                "estimated misses, ELF -> new");
    if (!prog->has_call_edges)
        fputs("  note: the profiles have no call information; cliques group functions by\n"
              "        hotness only\n",
              out);
    if (prog->sections_inferred)
        fputs("  note: no object files were given; input sections are inferred from symbol\n"
              "        names and the linker scripts match every GCC prefix variant\n",
              out);
    fputc('\n', out);
}

/* The cliques by placement's weight: the overview before the blocks, which follow in link
 * order. Its TOTAL counts every clique, filler included; the summary's hot code does not. */
static lg_err_t write_clique_table(const lg_report_input_t *in, const lg_report_model_t *m,
                                   FILE *out)
{
    const lg_layout_t *layout = in->layout;
    size_t n = layout->ncliques;
    lg_report_key_t *order = malloc((n ? n : 1) * sizeof *order);
    if (order == NULL)
        return LG_ENOMEM;
    for (size_t c = 0; c < n; c++)
        order[c] = (lg_report_key_t){m->clique_weight[c], layout->cliques[c].hits, c};
    qsort(order, n, sizeof *order, lg_report_key_cmp);
    uint64_t cache = layout->geometry.cache_size;
    fprintf(out, "Cliques by %s (blocks below in link order)\n", m->weight_unit);
    fprintf(out, "  %-8s %9s %12s %7s %16s %7s %16s %7s\n", "clique", "functions", "bytes", "cache",
            "hits", "share", m->weight_unit, "share");
    size_t shown = rows_shown(in, n);
    uint64_t rest_bytes = 0, rest_hits = 0, rest_weight = 0;
    for (size_t i = 0; i < n; i++) {
        const lg_clique_t *cl = &layout->cliques[order[i].index];
        uint64_t w = order[i].weight;
        if (i >= shown) {
            rest_bytes += cl->bytes;
            rest_hits += cl->hits;
            rest_weight += w;
            continue;
        }
        fprintf(out,
                "  %-8zu %9zu %12" PRIu64 " %6.1f%% %16" PRIu64 " %6.1f%% %16" PRIu64 " %6.1f%%\n",
                order[i].index + 1, cl->nfns, cl->bytes, lg_report_pct(cl->bytes, cache), cl->hits,
                lg_report_pct(cl->hits, m->total_hits), w, lg_report_pct(w, m->total_weight));
    }
    if (shown < n)
        fprintf(out,
                "  [%zu more cliques: %" PRIu64 " bytes, %" PRIu64 " hits, %" PRIu64 " %s]\n",
                n - shown, rest_bytes, rest_hits, rest_weight, m->weight_unit);
    fprintf(out, "  %-8s %9zu %12" PRIu64 " %6.1f%% %16" PRIu64 " %6.1f%% %16" PRIu64 " %6.1f%%\n",
            "TOTAL", m->hot_fns + m->filler_fns, m->all_bytes, lg_report_pct(m->all_bytes, cache),
            m->total_hits, m->total_hits ? 100.0 : 0.0, m->total_weight,
            m->total_weight ? 100.0 : 0.0);
    if (m->filler_fns > 0)
        fprintf(out,
                "  TOTAL counts the filler (%zu never-executed function%s, %" PRIu64
                " bytes); without it:\n  %zu functions, %" PRIu64 " bytes, the summary's hot code\n",
                m->filler_fns, plural(m->filler_fns), m->all_bytes - m->hot_bytes, m->hot_fns,
                m->hot_bytes);
    fputc('\n', out);
    free(order);
    return LG_OK;
}

/* A clique's calls as text lines (report_calls.h). */
static void calls_begin(FILE *out, const char *title, bool boundary)
{
    (void)boundary;
    fprintf(out, "  %-*s %12s\n", LG_REPORT_PAIR_WIDTH + 2, title, "weight");
}

static void calls_row(FILE *out, const lg_program_t *prog, const lg_arc_t *a,
                      const char *other_side)
{
    static const char arrow[] = " -> ";
    fputs("    ", out);
    size_t len = lg_linkname_put(prog->fns[a->caller].symbol, out);
    fputs(arrow, out);
    len += strlen(arrow) + lg_linkname_put(prog->fns[a->callee].symbol, out);
    pad_to(out, len, LG_REPORT_PAIR_WIDTH);
    fprintf(out, " %12" PRIu64, a->weight);
    if (other_side != NULL)
        fprintf(out, "  (%s)", other_side);
    fputc('\n', out);
}

static void calls_rest(FILE *out, size_t more, uint64_t weight, bool boundary)
{
    (void)boundary;
    fprintf(out, "    [%zu more, weight %" PRIu64 "]\n", more, weight);
}

static const lg_report_call_style_t text_calls = {calls_begin, calls_row, calls_rest, NULL};

/* One clique's functions, hottest first, with their offset in the clique (link order). */
static lg_err_t write_members(const lg_report_input_t *in, const lg_report_model_t *m,
                              const lg_clique_t *cl, uint64_t cl_weight, FILE *out)
{
    const lg_program_t *prog = in->prog;
    size_t n = cl->nfns;
    lg_report_key_t *order = malloc((n ? n : 1) * sizeof *order);
    uint64_t *offsets = malloc((n ? n : 1) * sizeof *offsets);
    if (order == NULL || offsets == NULL) {
        free(order);
        free(offsets);
        return LG_ENOMEM;
    }
    lg_report_members_by_weight(m, prog, cl, order);
    lg_report_clique_offsets(prog, cl, offsets);
    int w = name_width(prog, cl->fns, n);
    fprintf(out, "  %-*s %10s %10s %14s %7s %14s %7s  %s\n", w, "function", "offset", "bytes",
            "hits", "share", m->weight_unit, "share", "section");
    size_t shown = rows_shown(in, n);
    uint64_t bytes = 0, rest_bytes = 0, rest_hits = 0, rest_weight = 0;
    for (size_t i = 0; i < n; i++) {
        const lg_fn_t *fn = &prog->fns[cl->fns[order[i].index]];
        uint64_t fw = lg_report_fn_weight(m, fn);
        bytes += fn->size;
        if (i >= shown) {
            rest_bytes += fn->size;
            rest_hits += fn->hits;
            rest_weight += fw;
            continue;
        }
        fputs("  ", out);
        put_name(out, fn->symbol, w);
        fprintf(out, " %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %6.1f%% %14" PRIu64 " %6.1f%%  ",
                offsets[order[i].index], fn->size, fn->hits, lg_report_pct(fn->hits, cl->hits), fw,
                lg_report_pct(fw, cl_weight));
        put_name(out, fn->section, 0);
        if (fn->flags & LG_FN_SECTION_INFERRED)
            fputs(" (inferred)", out);
        lg_report_write_phase(fn, in->layout->geometry.line_size, out);
        fputc('\n', out);
    }
    if (shown < n)
        fprintf(out, "  [%zu more: %" PRIu64 " bytes, %" PRIu64 " hits, %" PRIu64 " %s]\n",
                n - shown, rest_bytes, rest_hits, rest_weight, m->weight_unit);
    fprintf(out,
            "  %-*s %10s %10" PRIu64 " %14" PRIu64 " %6.1f%% %14" PRIu64
            " %6.1f%%  (%" PRIu64 " bytes with alignment)\n",
            w, "TOTAL", "", bytes, cl->hits, cl->hits ? 100.0 : 0.0, cl_weight,
            cl_weight ? 100.0 : 0.0, cl->bytes);
    free(order);
    free(offsets);
    return LG_OK;
}

static lg_err_t write_cliques(const lg_report_input_t *in, const lg_report_model_t *m, FILE *out)
{
    const lg_layout_t *layout = in->layout;
    lg_err_t err = LG_OK;
    for (size_t c = 0; c < layout->ncliques && err == LG_OK; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        fprintf(out,
                "Clique %zu   %" PRIu64 " bytes   %.1f%% of the cache   %" PRIu64
                " hits   %.1f%% of all hits",
                c + 1, cl->bytes, lg_report_pct(cl->bytes, layout->geometry.cache_size), cl->hits,
                lg_report_pct(cl->hits, m->total_hits));
        /* Placement's weight, unless it is the hits themselves (no counter data). */
        if (m->weight_is_cost)
            fprintf(out, "   %" PRIu64 " %s   %.1f%% of all %s", m->clique_weight[c],
                    m->weight_unit, lg_report_pct(m->clique_weight[c], m->total_weight),
                    m->weight_unit);
        if (cl->flags & LG_CLIQUE_OVERSIZED)
            fputs("   LARGER THAN THE CACHE", out);
        if (cl->flags & LG_CLIQUE_NO_CALLS)
            fputs("   (grouped by hotness: no calls between them)", out);
        if (cl->flags & LG_CLIQUE_FILLER)
            fputs("   (never-executed code placed as filler)", out);
        if (cl->pad_before > 0)
            fprintf(out, "   (%" PRIu64 " bytes of padding before it)", cl->pad_before);
        fputc('\n', out);
        err = write_members(in, m, cl, m->clique_weight[c], out);
        if (err == LG_OK)
            err = lg_report_write_calls(in, m, c, &text_calls, out);
        fputc('\n', out);
    }
    return err;
}

/* Functions that some linker outputs leave out because their names cannot be said in that
 * linker's grammar (docs/linkers.md): the .LOR keeps them, the other outputs order them. */
static void write_unsayable(const lg_report_input_t *in, FILE *out)
{
    static const struct {
        unsigned bit;
        const char *name;
    } linkers[] = {{LG_LINKER_GNU_LD, "GNU ld"}, {LG_LINKER_GOLD, "gold"}, {LG_LINKER_LLD, "lld"}};
    if (in->lor == NULL)
        return;
    size_t listed = 0, total = 0;
    for (size_t i = 0; i < in->lor->nfns; i++) {
        const lg_lor_fn_t *f = &in->lor->fns[i];
        unsigned bits = lg_linkname_unsayable(f);
        if (bits == 0)
            continue;
        total++;
        if (in->max_rows > 0 && listed >= in->max_rows)
            continue;
        listed++;
        fputs("  unnamable    ", out);
        put_name(out, f->symbol, 32);
        fputs(" not in the", out);
        const char *sep = " ";
        for (size_t k = 0; k < sizeof linkers / sizeof linkers[0]; k++)
            if (bits & linkers[k].bit) {
                fprintf(out, "%s%s", sep, linkers[k].name);
                sep = ", ";
            }
        fputs(" output: that linker's grammar cannot say its name\n", out);
    }
    if (listed < total)
        fprintf(out, "  [%zu more unnamable]\n", total - listed);
}

/* The fixed groups list (report_model.h): each group with its bytes and hits, where it went or
 * why it stays, its profiled members, and the advice to separate a member that holds most of
 * its hits. */
static lg_err_t write_groups(const lg_report_input_t *in, FILE *out)
{
    const lg_program_t *prog = in->prog;
    lg_report_groups_t groups;
    if (lg_report_groups_build(prog, in->layout, &groups) != LG_OK)
        return LG_ENOMEM;
    for (size_t n = 0; n < groups.n; n++) {
        const lg_report_group_t *g = &groups.v[n];
        const lg_fn_t *head = &prog->fns[g->head];
        if (n == 0)
            fputs("Fixed groups (functions that share an input section move together)\n", out);
        fprintf(out, "  group %zu  ", n + 1);
        if (g->clique != LG_REPORT_NO_CLIQUE)
            fprintf(out, "clique %" PRIu32 "  ", g->clique + 1);
        else
            fputs("stays  ", out);
        fprintf(out, "%zu functions  %" PRIu64 " bytes  %" PRIu64 " hits  ", g->count, g->bytes,
                g->hits);
        put_name(out, head->object, 0);
        fputc('(', out);
        put_name(out, head->section, 0);
        fputs(")\n", out);
        if (g->clique == LG_REPORT_NO_CLIQUE)
            fprintf(out, "    stays: %s (%" PRIu64 " of its %" PRIu64 " bytes ran)\n",
                    lg_report_group_stays_reason(prog, g), g->executed_bytes, g->bytes);
        for (size_t k = 0; k < g->count; k++) {
            const lg_fn_t *f = &prog->fns[g->members[k]];
            if (f->hits == 0)
                continue;
            fputs("    ", out);
            put_name(out, f->symbol, 32);
            fprintf(out, " %12" PRIu64 " hits  %" PRIu64 " bytes\n", f->hits, f->size);
        }
        if (g->separate != UINT32_MAX) {
            const lg_fn_t *t = &prog->fns[g->separate];
            fputs("    advice: ", out);
            put_name(out, t->symbol, 0);
            fprintf(out, " holds %.0f%% of the group's hits in %" PRIu64 " of its %" PRIu64
                         " bytes: build ",
                    100.0 * (double)t->hits / (double)g->hits, t->size, g->bytes);
            put_name(out, head->object, 0);
            fputs(" with -ffunction-sections so that it moves alone\n", out);
        }
    }
    if (groups.n > 0)
        fputc('\n', out);
    lg_report_groups_destroy(&groups);
    return LG_OK;
}

static lg_err_t write_left_out(const lg_report_input_t *in, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    fputs("Left out\n", out);
    if (prog->nunbound == 0 && layout->nexcluded == 0)
        fputs("  every profiled function was bound and placed\n", out);
    size_t shown = rows_shown(in, prog->nunbound);
    for (size_t i = 0; i < shown; i++) {
        /* The reason may quote names (an object, a symbol): shown by the same rule. */
        fputs("  unbound      ", out);
        put_name(out, prog->unbound[i].name, 32);
        fprintf(out, " %12" PRIu64 " hits  ", prog->unbound[i].hits);
        put_name(out, prog->unbound[i].reason, 0);
        fputc('\n', out);
    }
    if (shown < prog->nunbound)
        fprintf(out, "  [%zu more unbound]\n", prog->nunbound - shown);
    /* Hottest first, like every other table. */
    size_t n = layout->nexcluded;
    lg_report_key_t *excluded = malloc((n ? n : 1) * sizeof *excluded);
    if (excluded == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint64_t hits = prog->fns[layout->excluded[i]].hits;
        excluded[i] = (lg_report_key_t){hits, hits, layout->excluded[i]};
    }
    qsort(excluded, n, sizeof *excluded, lg_report_key_cmp);
    shown = rows_shown(in, n);
    for (size_t i = 0; i < shown; i++) {
        const lg_fn_t *fn = &prog->fns[excluded[i].index];
        fputs("  not movable  ", out);
        put_name(out, fn->symbol, 32);
        fprintf(out, " %12" PRIu64 " hits  ", fn->hits);
        put_name(out, fn->section, 0);
        fprintf(out, ": %s\n", lg_fn_unmovable_reason(fn));
    }
    if (shown < n)
        fprintf(out, "  [%zu more not movable]\n", n - shown);
    free(excluded);
    write_unsayable(in, out);
    fprintf(out,
            "  cold         %zu functions never executed keep their input order after the "
            "cliques\n",
            layout->ncold);
    return LG_OK;
}

/* The fast regions (--fast-region): their bytes, the share of the profile's cost they took, the
 * hottest executed code left out of them with why, and the calls that cross between a region and
 * the rest (report_regions.h). */
static lg_err_t write_regions(const lg_report_input_t *in, FILE *out)
{
    const lg_lor_t *lor = in->lor;
    const lg_program_t *prog = in->prog;
    if (lor == NULL || lor->nregions == 0)
        return LG_OK;
    lg_report_regions_t rs;
    if (lg_report_regions_build(in, &rs) != LG_OK) {
        lg_report_regions_destroy(&rs);
        return LG_ENOMEM;
    }
    fputs("Fast regions\n", out);
    for (size_t r = 0; r < lor->nregions; r++) {
        const lg_lor_region_t *rg = &lor->regions[r];
        fputs("  ", out);
        put_name(out, rg->name, 0);
        fprintf(out,
                ": %zu functions, %" PRIu64 " of %" PRIu64 " bytes used, %" PRIu64
                " left (size %" PRIu64 "), %.1f%% of the profile's %s\n",
                rg->nfns, rg->bytes, rg->budget, rg->budget - rg->bytes, rg->size,
                lg_report_pct(rs.value[r], rs.total_value), rs.counters ? "self cost" : "hits");
        if (rg->held > 0)
            fprintf(out,
                    "  held         %" PRIu64 " bytes the link keeps there besides (its own "
                    "lines, padding, data), off the budget\n",
                    rg->held);
        if (rg->stubs > 0)
            fprintf(out,
                    "  stubs        %" PRIu64 " bytes kept for the linker's veneers to the "
                    "functions it calls out of a BL's reach, off the budget\n",
                    rg->stubs);
        for (size_t k = 0; k < rg->npinned; k++) {
            fputs("  pinned       ", out);
            put_name(out, rg->pinned[k], 0);
            fputs(": kept there by the link's own lines, not lorgen's to move\n", out);
        }
    }
    size_t shown = rows_shown(in, rs.nleft);
    for (size_t i = 0; i < shown; i++) {
        const lg_fn_t *fn = &prog->fns[rs.left[i].index];
        fputs("  left out     ", out);
        put_name(out, fn->symbol, 32);
        fprintf(out, " %12" PRIu64 " %s  %" PRIu64 " bytes: %s\n", rs.left[i].weight,
                rs.counters ? "cost" : "hits", lg_fast_region_weight(fn),
                lg_report_region_left_reason(&rs, fn));
    }
    if (shown < rs.nleft)
        fprintf(out, "  [%zu more executed functions left out]\n", rs.nleft - shown);
    if (rs.ncrossing > 0) {
        fputs("  calls between a region and the rest (caller [side] -> callee [side], calls)\n",
              out);
        shown = rows_shown(in, rs.ncrossing);
        for (size_t i = 0; i < shown; i++) {
            const lg_arc_t *a = rs.crossing[i].arc;
            fputs("  crossing     ", out);
            put_name(out, prog->fns[a->caller].symbol, 0);
            fputs(" [", out);
            put_name(out, lg_report_region_side(in, &rs, a->caller), 0);
            fputs("] -> ", out);
            put_name(out, prog->fns[a->callee].symbol, 0);
            fputs(" [", out);
            put_name(out, lg_report_region_side(in, &rs, a->callee), 0);
            fprintf(out, "] %" PRIu64 "\n", a->weight);
        }
        if (shown < rs.ncrossing)
            fprintf(out, "  [%zu more crossing calls, %" PRIu64 " calls]\n", rs.ncrossing - shown,
                    lg_report_rows_weight(rs.crossing + shown, rs.ncrossing - shown));
        const char *note = lg_report_region_crossing_note(&rs);
        if (note != NULL)
            fprintf(out, "  %s\n", note);
    }
    fputc('\n', out);
    lg_report_regions_destroy(&rs);
    return LG_OK;
}

lg_err_t lg_report_write(const lg_report_input_t *in, FILE *out)
{
    lg_report_model_t m;
    lg_err_t err = lg_report_model_build(in, &m);
    if (err != LG_OK)
        return err;
    /* The unit may be a profile's own name for its counter (callgrind's events, perf's): shown
     * once by the rule every name follows, then printed where the fixed units are. */
    char *unit = NULL;
    size_t unit_len = 0;
    FILE *s = open_memstream(&unit, &unit_len);
    if (s != NULL)
        lg_linkname_put(m.weight_unit, s);
    if (s == NULL || fclose(s) != 0) {
        free(unit);
        lg_report_model_destroy(&m);
        return LG_ENOMEM;
    }
    m.weight_unit = unit;
    fputs("lorgen clique report\n\n", out);
    write_inputs(in, out);
    write_summary(in, &m, out);
    err = write_clique_table(in, &m, out);
    if (err == LG_OK)
        err = write_cliques(in, &m, out);
    if (err == LG_OK) {
        err = write_groups(in, out);
    if (err == LG_OK)
        err = write_regions(in, out);
    if (err == LG_OK)
        err = write_left_out(in, out);
    }
    lg_report_model_destroy(&m);
    free(unit);
    if (err == LG_OK && ferror(out))
        err = LG_EIO;
    return err;
}
