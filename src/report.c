/* report.c - the clique report; see report.h. */
#include "report.h"

#include "prf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Widest a function-name column grows before longer names overflow it, in characters. */
#define LG_REPORT_NAME_WIDTH_MAX 48
#define LG_REPORT_NAME_WIDTH_MIN 8
/* Marks functions that are in no clique in the per-function clique index. */
#define NO_CLIQUE UINT32_MAX

typedef struct edge_row {
    const lg_arc_t *arc;
    uint32_t other_clique; /* for boundary rows: the clique on the other side, or NO_CLIQUE */
    bool outgoing;         /* for boundary rows: the caller is inside */
} edge_row_t;

static const lg_program_t *g_prog; /* qsort context */

static int cmp_rows(const void *a, const void *b)
{
    const lg_arc_t *x = ((const edge_row_t *)a)->arc, *y = ((const edge_row_t *)b)->arc;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    int c = strcmp(g_prog->fns[x->caller].symbol, g_prog->fns[y->caller].symbol);
    if (c != 0)
        return c;
    c = strcmp(g_prog->fns[x->callee].symbol, g_prog->fns[y->callee].symbol);
    if (c != 0)
        return c;
    return x->caller != y->caller ? (x->caller < y->caller ? -1 : 1)
                                  : (x->callee < y->callee ? -1 : x->callee > y->callee);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int name_width(const lg_program_t *prog, const uint32_t *fns, size_t n)
{
    int w = LG_REPORT_NAME_WIDTH_MIN;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(prog->fns[fns[i]].symbol);
        if (len > w)
            w = len;
    }
    return w > LG_REPORT_NAME_WIDTH_MAX ? LG_REPORT_NAME_WIDTH_MAX : w;
}

static void write_inputs(const lg_report_input_t *in, FILE *out)
{
    fputs("Inputs\n", out);
    for (size_t i = 0; i < in->nprofiles; i++) {
        const lg_profile_t *p = in->profiles[i].profile;
        fprintf(out, "  profile  %s: %s, %s profile, %zu functions", p->path ? p->path : "?",
                p->format ? p->format : "?",
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
            if (strcmp(in->lor->inputs[i].kind, "elf") == 0)
                fprintf(out, "  elf      %s\n", in->lor->inputs[i].path);
    fputc('\n', out);
}

static void write_summary(const lg_report_input_t *in, uint64_t total_hits, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    const lg_geometry_t *g = &layout->geometry;
    uint64_t hot_bytes = 0;
    for (size_t c = 0; c < layout->ncliques; c++)
        hot_bytes += layout->cliques[c].bytes;
    uint32_t sets = g->line_size && g->ways ? g->cache_size / g->line_size / g->ways : 0;
    fputs("Summary\n", out);
    fprintf(out, "  %-32s %zu\n", "functions in the ELF inputs", prog->nfns);
    fprintf(out, "  %-32s %zu\n", "profiled functions bound", prog->nprofiled);
    fprintf(out, "  %-32s %zu\n", "profiled functions unbound", prog->nunbound);
    fprintf(out, "  %-32s %zu\n", "executed but not movable", layout->nexcluded);
    fprintf(out, "  %-32s %zu\n", "never executed (input order)", layout->ncold);
    fprintf(out, "  %-32s %" PRIu32 " bytes, %" PRIu32 "-byte lines, %" PRIu32 "-way, %" PRIu32
                 " sets\n",
            "cache", g->cache_size, g->line_size, g->ways, sets);
    fprintf(out, "  %-32s %s\n", "algorithm", layout->algorithm ? layout->algorithm : "cliques");
    fprintf(out, "  %-32s %zu\n", "cliques", layout->ncliques);
    fprintf(out, "  %-32s %" PRIu64 " bytes (%.1f%% of the cache)\n", "hot code", hot_bytes,
            pct(hot_bytes, g->cache_size));
    fprintf(out, "  %-32s %" PRIu64 "\n", "total hits of bound functions", total_hits);
    if (in->misses_before > 0 || in->misses_after > 0)
        fprintf(out, "  %-32s %" PRIu64 " -> %" PRIu64 " (x%.2f; replay estimate, see lorgen eval)\n",
                "estimated misses, ELF -> new", in->misses_before, in->misses_after,
                in->misses_before ? (double)in->misses_after / (double)in->misses_before : 0.0);
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

/* Moves the k first rows in cmp_rows order to rows[0..k), sorted. Keeps a sorted window of the
 * best k seen: a row worse than the window's last is rejected with one comparison, so this is
 * about O(n) for the few rows a report shows. */
static void select_top(edge_row_t *rows, size_t n, size_t k)
{
    qsort(rows, k, sizeof *rows, cmp_rows);
    for (size_t i = k; i < n; i++) {
        if (cmp_rows(&rows[i], &rows[k - 1]) >= 0)
            continue;
        edge_row_t row = rows[i];
        size_t j = k - 1;
        while (j > 0 && cmp_rows(&row, &rows[j - 1]) < 0) {
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = row;
    }
}

static void write_edge_table(const lg_program_t *prog, edge_row_t *rows, size_t n,
                             size_t max_rows, bool boundary, FILE *out)
{
    g_prog = prog;
    size_t shown = max_rows && n > max_rows ? max_rows : n;
    if (shown < n)
        select_top(rows, n, shown);
    else
        qsort(rows, n, sizeof *rows, cmp_rows);
    for (size_t i = 0; i < shown; i++) {
        const lg_arc_t *a = rows[i].arc;
        char pair[1024];
        snprintf(pair, sizeof pair, "%s -> %s", prog->fns[a->caller].symbol,
                 prog->fns[a->callee].symbol);
        fprintf(out, "    %-60s %12" PRIu64, pair, a->weight);
        if (boundary) {
            if (rows[i].other_clique == NO_CLIQUE)
                fputs("  (outside the cliques)", out);
            else
                fprintf(out, "  (%s clique %" PRIu32 ")", rows[i].outgoing ? "to" : "from",
                        rows[i].other_clique + 1);
        }
        fputc('\n', out);
    }
    if (shown < n)
        fprintf(out, "    [%zu more]\n", n - shown);
}

/* Buckets every arc by the clique(s) it touches, in one pass: rows[first[c]..first[c+1]) are
 * clique c's, inside rows first (ninside[c] of them), then the boundary rows. An arc between two
 * cliques is a boundary row of both. O(arcs). */
typedef struct clique_rows {
    edge_row_t *rows;
    size_t *first;   /* ncliques + 1 offsets */
    size_t *ninside; /* per clique */
} clique_rows_t;

static lg_err_t bucket_rows(const lg_program_t *prog, size_t ncliques, const uint32_t *clique_of,
                            clique_rows_t *out)
{
    size_t *fill = calloc(ncliques ? ncliques : 1, sizeof *fill);
    out->first = calloc(ncliques + 1, sizeof *out->first);
    out->ninside = calloc(ncliques ? ncliques : 1, sizeof *out->ninside);
    out->rows = malloc((2 * prog->narcs + 1) * sizeof *out->rows);
    if (!fill || !out->first || !out->ninside || !out->rows) {
        free(fill);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < prog->narcs; i++) {
        uint32_t from = clique_of[prog->arcs[i].caller], to = clique_of[prog->arcs[i].callee];
        if (from != NO_CLIQUE)
            out->first[from + 1]++;
        if (to != NO_CLIQUE && to != from)
            out->first[to + 1]++;
        if (from != NO_CLIQUE && from == to)
            out->ninside[from]++;
    }
    for (size_t c = 0; c < ncliques; c++)
        out->first[c + 1] += out->first[c];
    /* Inside rows fill each slice from its start, boundary rows from after the inside ones. */
    size_t *boundary = calloc(ncliques ? ncliques : 1, sizeof *boundary);
    if (boundary == NULL) {
        free(fill);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        uint32_t from = clique_of[a->caller], to = clique_of[a->callee];
        if (from != NO_CLIQUE && from == to) {
            out->rows[out->first[from] + fill[from]++] = (edge_row_t){a, NO_CLIQUE, true};
            continue;
        }
        if (from != NO_CLIQUE)
            out->rows[out->first[from] + out->ninside[from] + boundary[from]++] =
                (edge_row_t){a, to, true};
        if (to != NO_CLIQUE)
            out->rows[out->first[to] + out->ninside[to] + boundary[to]++] =
                (edge_row_t){a, from, false};
    }
    free(fill);
    free(boundary);
    return LG_OK;
}

static lg_err_t write_cliques(const lg_report_input_t *in, const uint32_t *clique_of,
                              uint64_t total_hits, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    clique_rows_t cr = {0};
    lg_err_t err = bucket_rows(prog, layout->ncliques, clique_of, &cr);
    for (size_t c = 0; c < layout->ncliques && err == LG_OK; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        fprintf(out, "Clique %zu   %" PRIu64 " bytes   %.1f%% of the cache   %" PRIu64
                     " hits   %.1f%% of all hits",
                c + 1, cl->bytes, pct(cl->bytes, layout->geometry.cache_size), cl->hits,
                pct(cl->hits, total_hits));
        if (cl->flags & LG_CLIQUE_OVERSIZED)
            fputs("   LARGER THAN THE CACHE", out);
        if (cl->flags & LG_CLIQUE_NO_CALLS)
            fputs("   (grouped by hotness: no calls between them)", out);
        if (cl->flags & LG_CLIQUE_FILLER)
            fputs("   (never-executed code placed as filler)", out);
        if (cl->pad_before > 0)
            fprintf(out, "   (%" PRIu64 " bytes of padding before it)", cl->pad_before);
        fputc('\n', out);
        int w = name_width(prog, cl->fns, cl->nfns);
        fprintf(out, "  %-*s %10s %14s %7s  %s\n", w, "function", "bytes", "hits", "share",
                "section");
        uint64_t bytes = 0;
        for (size_t i = 0; i < cl->nfns; i++) {
            const lg_fn_t *fn = &prog->fns[cl->fns[i]];
            bytes += fn->size;
            fprintf(out, "  %-*s %10" PRIu64 " %14" PRIu64 " %6.1f%%  %s%s\n", w, fn->symbol,
                    fn->size, fn->hits, pct(fn->hits, cl->hits), fn->section,
                    (fn->flags & LG_FN_SECTION_INFERRED) ? " (inferred)" : "");
        }
        fprintf(out, "  %-*s %10" PRIu64 " %14" PRIu64 " %6.1f%%  (%" PRIu64
                     " bytes with alignment)\n",
                w, "TOTAL", bytes, cl->hits, 100.0, cl->bytes);
        edge_row_t *rows = cr.rows + cr.first[c];
        size_t nin = cr.ninside[c], nacross = cr.first[c + 1] - cr.first[c] - nin;
        if (nin > 0) {
            fprintf(out, "  calls inside%*s %12s\n", 52, "", "weight");
            write_edge_table(prog, rows, nin, in->max_rows, false, out);
        }
        if (nacross > 0) {
            fprintf(out, "  calls across its boundary%*s %12s\n", 39, "", "weight");
            write_edge_table(prog, rows + nin, nacross, in->max_rows, true, out);
        }
        fputc('\n', out);
    }
    free(cr.rows);
    free(cr.first);
    free(cr.ninside);
    return err;
}

static void write_left_out(const lg_report_input_t *in, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    fputs("Left out\n", out);
    size_t rows = in->max_rows ? in->max_rows : SIZE_MAX;
    if (prog->nunbound == 0 && layout->nexcluded == 0)
        fputs("  every profiled function was bound and placed\n", out);
    for (size_t i = 0; i < prog->nunbound && i < rows; i++)
        fprintf(out, "  unbound      %-32s %12" PRIu64 " hits  %s\n", prog->unbound[i].name,
                prog->unbound[i].hits, prog->unbound[i].reason);
    if (prog->nunbound > rows)
        fprintf(out, "  [%zu more unbound]\n", prog->nunbound - rows);
    for (size_t i = 0; i < layout->nexcluded && i < rows; i++) {
        const lg_fn_t *fn = &prog->fns[layout->excluded[i]];
        fprintf(out, "  not movable  %-32s %12" PRIu64 " hits  %s: %s\n", fn->symbol, fn->hits,
                fn->section, lg_fn_unmovable_reason(fn));
    }
    if (layout->nexcluded > rows)
        fprintf(out, "  [%zu more not movable]\n", layout->nexcluded - rows);
    fprintf(out, "  cold         %zu functions never executed keep their input order after the "
                 "cliques\n",
            layout->ncold);
}

lg_err_t lg_report_write(const lg_report_input_t *in, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    uint32_t *clique_of = malloc((prog->nfns ? prog->nfns : 1) * sizeof *clique_of);
    if (clique_of == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < prog->nfns; i++)
        clique_of[i] = NO_CLIQUE;
    uint64_t total_hits = 0;
    for (size_t c = 0; c < layout->ncliques; c++) {
        for (size_t i = 0; i < layout->cliques[c].nfns; i++)
            clique_of[layout->cliques[c].fns[i]] = (uint32_t)c;
        total_hits += layout->cliques[c].hits;
    }
    fputs("lorgen clique report\n\n", out);
    write_inputs(in, out);
    write_summary(in, total_hits, out);
    lg_err_t err = write_cliques(in, clique_of, total_hits, out);
    if (err == LG_OK)
        write_left_out(in, out);
    free(clique_of);
    if (err == LG_OK && ferror(out))
        err = LG_EIO;
    return err;
}
