/* report_html.c - the clique report as one HTML page; see report_html.h.
 *
 * Everything is computed here and written as static markup (SVG included); the inline script
 * only sorts the cliques table when a header is clicked, and marks the page as loaded
 * (data-lg-ready on <html>; data-lg-error when a script error happened) so a headless browser
 * can tell that the page ran cleanly.
 */
#include "report_html.h"

#include "estimate.h"
#include "fast_region.h"
#include "mem.h"
#include "report_calls.h"
#include "report_model.h"
#include "report_regions.h"
#include "utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Cache map cells: pixels per cell and between cells, and the width of the row labels. */
#define MAP_CELL_PX 14
#define MAP_GAP_PX 1
#define MAP_LABEL_PX 44
/* Functions a cell's tooltip names, hottest first. */
#define MAP_TIP_FNS 4
/* Cliques the colour legend names; the others share the same hues in turn. */
#define LEGEND_MAX 24
/* Call graph geometry, in pixels: node boxes, column pitch, row pitch, margins. */
#define GRAPH_NODE_W 180
#define GRAPH_NODE_H 22
#define GRAPH_COL_PX 300
#define GRAPH_ROW_PX 32
#define GRAPH_MARGIN_PX 40
#define GRAPH_HEAD_PX 30
/* Characters of a function name shown in a graph node; the full name is in its tooltip. */
#define GRAPH_NAME_CHARS 24
/* Hue step between consecutive cliques, in degrees: the golden angle keeps neighbours apart. */
#define HUE_STEP 137.508
/* Hue of the first clique, in degrees: blue, so the hottest clique does not look like an
 * alarm. */
#define HUE_FIRST 210.0
/* Lightness of a cell, in percent: hottest and coldest hot cells. */
#define LIGHT_HOT 32.0
#define LIGHT_COOL 84.0
/* The same for graph nodes, lighter: their names are written on them. */
#define NODE_LIGHT_HOT 62.0
#define NODE_LIGHT_COOL 92.0
/* Size of the arrowheads of the call graph, in pixels, whatever the line's width. */
#define ARROW_PX 7

/* ---- escaping ---------------------------------------------------------------------------- */

/* Text and attribute values: markup characters as entities, control characters and bytes that
 * are not valid UTF-8 as U+FFFD, so the page is always well-formed UTF-8. */
static void put_text(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        unsigned c = *p;
        size_t len = 1;
        switch (c) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n') {
                fputs("&#xFFFD;", out);
            } else if (c < 0x80) {
                fputc((int)c, out);
            } else {
                len = lg_utf8_seq_len(p);
                if (len == 0) {
                    fputs("&#xFFFD;", out);
                    len = 1;
                } else {
                    fwrite(p, 1, len, out);
                }
            }
        }
        p += len;
    }
}

/* At most max characters of s (UTF-8 aware), with an ellipsis when cut. */
static void put_text_cut(FILE *out, const char *s, size_t max)
{
    size_t chars = 0, bytes = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (p[bytes] != '\0' && chars < max) {
        size_t len = p[bytes] < 0x80 ? 1 : lg_utf8_seq_len(p + bytes);
        bytes += len ? len : 1;
        chars++;
    }
    if (p[bytes] == '\0') {
        put_text(out, s);
        return;
    }
    char *cut = lg_strndup(s, bytes);
    if (cut != NULL)
        put_text(out, cut);
    free(cut);
    fputs("\xe2\x80\xa6", out); /* U+2026 horizontal ellipsis */
}

/* ---- colours ----------------------------------------------------------------------------- */

static int clique_hue(uint32_t clique)
{
    return (int)fmod(HUE_FIRST + (double)clique * HUE_STEP, 360.0);
}

/* heat in [0, 1] on a log scale against the hottest, so a few very hot functions do not wash
 * out the rest. */
static double heat(uint64_t hits, uint64_t max_hits)
{
    if (hits == 0 || max_hits == 0)
        return 0.0;
    return log1p((double)hits) / log1p((double)max_hits);
}

static void put_fill(FILE *out, uint32_t clique, uint64_t hits, uint64_t max_hits, double cool,
                     double hot)
{
    int light = (int)lround(cool - (cool - hot) * heat(hits, max_hits));
    if (clique == LG_REPORT_NO_CLIQUE)
        fprintf(out, "hsl(0,0%%,%d%%)", light);
    else
        fprintf(out, "hsl(%d,70%%,%d%%)", clique_hue(clique), light);
}

/* ---- the cache map ------------------------------------------------------------------------- */

typedef struct map_cell {
    uint32_t top[MAP_TIP_FNS]; /* hottest functions mapped here, UINT32_MAX when fewer */
    uint32_t nfns;             /* distinct hot functions mapped here */
    bool conflict;             /* in some set, one clique's lines outnumber the ways */
} map_cell_t;

typedef struct cache_map {
    map_cell_t *cells;
    uint32_t ncells;
    uint32_t sets_per_cell;
} cache_map_t;

uint32_t lg_report_html_cells(const lg_geometry_t *g)
{
    uint32_t sets = g->line_size && g->ways ? g->cache_size / g->line_size / g->ways : 0;
    uint32_t per = (sets + LG_HTML_MAP_MAX_CELLS - 1) / LG_HTML_MAP_MAX_CELLS;
    return per ? (sets + per - 1) / per : 0;
}

/* What the cache map sorts its functions by: clique, then address, then function index. */
typedef struct map_key {
    uint32_t clique; /* lg_report_model_t.clique_of */
    uint32_t fn;
    uint64_t addr;
} map_key_t;

static int cmp_by_clique_address(const void *a, const void *b)
{
    const map_key_t *x = a, *y = b;
    if (x->clique != y->clique)
        return x->clique < y->clique ? -1 : 1;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* Hotter by placement's weight (lg_report_fn_weight), then hits, then input order: the map and
 * the tables show what placement weighed, not calls alone. */
static bool hotter(const lg_program_t *prog, const lg_report_model_t *m, uint32_t a, uint32_t b)
{
    uint64_t wa = lg_report_fn_weight(m, &prog->fns[a]), wb = lg_report_fn_weight(m, &prog->fns[b]);
    if (wa != wb)
        return wa > wb;
    if (prog->fns[a].hits != prog->fns[b].hits)
        return prog->fns[a].hits > prog->fns[b].hits;
    return a < b;
}

/* Puts fn among the cell's hottest, once. */
static void cell_add(const lg_program_t *prog, const lg_report_model_t *m, map_cell_t *cell,
                     uint32_t fn)
{
    for (size_t k = 0; k < MAP_TIP_FNS && cell->top[k] != UINT32_MAX; k++)
        if (cell->top[k] == fn)
            return;
    cell->nfns++;
    for (size_t k = 0; k < MAP_TIP_FNS; k++) {
        if (cell->top[k] == UINT32_MAX || hotter(prog, m, fn, cell->top[k])) {
            memmove(&cell->top[k + 1], &cell->top[k], (MAP_TIP_FNS - 1 - k) * sizeof fn);
            cell->top[k] = fn;
            return;
        }
    }
}

/* Maps every hot function (hits > 0, an address, bytes) at addr onto the sets, and marks the
 * sets where lines of one clique's members collide: more of them than the set has ways. A
 * clique's members call each other, so there they evict each other every round; lines of
 * different cliques sharing a set are the expected price of a program larger than the cache.
 * Functions are visited by clique, then by address, so a line two members share counts once. */
static lg_err_t build_map(const lg_program_t *prog, const lg_report_model_t *m,
                          const lg_geometry_t *g, const uint64_t *addr, cache_map_t *map)
{
    uint32_t sets = g->cache_size / g->line_size / g->ways;
    map->sets_per_cell = (sets + LG_HTML_MAP_MAX_CELLS - 1) / LG_HTML_MAP_MAX_CELLS;
    map->ncells = lg_report_html_cells(g);
    map->cells = malloc(map->ncells * sizeof *map->cells);
    map_key_t *hot = malloc((prog->nfns ? prog->nfns : 1) * sizeof *hot);
    uint32_t *stamp = malloc(sets * sizeof *stamp); /* per set: the clique counted last */
    uint32_t *lines = malloc(sets * sizeof *lines); /* its lines in the set so far */
    uint64_t *last_line = malloc(sets * sizeof *last_line);
    if (!map->cells || !hot || !stamp || !lines || !last_line) {
        free(map->cells);
        map->cells = NULL;
        free(hot);
        free(stamp);
        free(lines);
        free(last_line);
        return LG_ENOMEM;
    }
    for (uint32_t c = 0; c < map->ncells; c++) {
        map->cells[c].nfns = 0;
        map->cells[c].conflict = false;
        for (size_t k = 0; k < MAP_TIP_FNS; k++)
            map->cells[c].top[k] = UINT32_MAX;
    }
    for (uint32_t s = 0; s < sets; s++)
        stamp[s] = LG_REPORT_NO_CLIQUE;
    size_t nhot = 0;
    for (size_t i = 0; i < prog->nfns; i++)
        if ((prog->fns[i].hits > 0 || lg_report_fn_weight(m, &prog->fns[i]) > 0) &&
            prog->fns[i].size > 0 && addr[i] != LG_ADDRESS_NONE)
            hot[nhot++] = (map_key_t){m->clique_of[i], (uint32_t)i, addr[i]};
    qsort(hot, nhot, sizeof *hot, cmp_by_clique_address);
    for (size_t h = 0; h < nhot; h++) {
        const lg_fn_t *fn = &prog->fns[hot[h].fn];
        uint32_t clique = hot[h].clique;
        uint64_t first = hot[h].addr / g->line_size;
        uint64_t end = hot[h].addr > UINT64_MAX - fn->size ? UINT64_MAX : hot[h].addr + fn->size;
        uint64_t nlines = (end - 1) / g->line_size - first + 1;
        /* A function longer than the cache covers every set; visiting more lines adds nothing. */
        if (nlines > sets)
            nlines = sets;
        for (uint64_t l = first; l < first + nlines; l++) {
            uint32_t s = (uint32_t)(l % sets);
            map_cell_t *cell = &map->cells[s / map->sets_per_cell];
            cell_add(prog, m, cell, hot[h].fn);
            if (clique == LG_REPORT_NO_CLIQUE)
                continue;
            if (stamp[s] != clique) {
                stamp[s] = clique;
                lines[s] = 0;
                last_line[s] = UINT64_MAX;
            }
            if (last_line[s] != l) {
                last_line[s] = l;
                lines[s]++;
            }
            if (lines[s] > g->ways)
                cell->conflict = true;
        }
    }
    free(hot);
    free(stamp);
    free(lines);
    free(last_line);
    return LG_OK;
}

static void put_cell_tip(FILE *out, const lg_program_t *prog, const lg_report_model_t *m,
                         const cache_map_t *map, uint32_t c)
{
    const map_cell_t *cell = &map->cells[c];
    uint32_t first = c * map->sets_per_cell;
    if (map->sets_per_cell == 1)
        fprintf(out, "set %" PRIu32, first);
    else
        fprintf(out, "sets %" PRIu32 "-%" PRIu32, first, first + map->sets_per_cell - 1);
    if (cell->nfns == 0) {
        fputs(": no hot code", out);
        return;
    }
    if (cell->conflict)
        fputs(" (members of one clique collide here)", out);
    for (size_t k = 0; k < MAP_TIP_FNS && cell->top[k] != UINT32_MAX; k++) {
        const lg_fn_t *fn = &prog->fns[cell->top[k]];
        fputs("\n", out);
        put_text(out, fn->symbol);
        fprintf(out, ": %" PRIu64 " hits", fn->hits);
        if (m->weight_is_cost)
            fprintf(out, ", %" PRIu64 " %s", fn->counter1_self, m->weight_unit);
        if (m->clique_of[cell->top[k]] != LG_REPORT_NO_CLIQUE)
            fprintf(out, ", clique %" PRIu32, m->clique_of[cell->top[k]] + 1);
    }
    if (cell->nfns > MAP_TIP_FNS)
        fprintf(out, "\n%" PRIu32 " more", cell->nfns - MAP_TIP_FNS);
}

static void put_map_svg(FILE *out, const char *id, const lg_program_t *prog,
                        const lg_report_model_t *m, const cache_map_t *map, uint64_t max_weight)
{
    uint32_t cols = LG_HTML_MAP_COLUMNS;
    uint32_t rows = (map->ncells + cols - 1) / cols;
    int pitch = MAP_CELL_PX + MAP_GAP_PX;
    fprintf(out,
            "<svg id=\"%s\" class=\"map\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" role=\"img\">\n",
            id, MAP_LABEL_PX + (int)cols * pitch, (int)rows * pitch + MAP_GAP_PX);
    for (uint32_t r = 0; r < rows; r++)
        fprintf(out, "<text class=\"rowlabel\" x=\"%d\" y=\"%d\">%" PRIu32 "</text>\n",
                MAP_LABEL_PX - 6, (int)r * pitch + MAP_CELL_PX - 3, r * cols * map->sets_per_cell);
    for (uint32_t c = 0; c < map->ncells; c++) {
        const map_cell_t *cell = &map->cells[c];
        fprintf(out, "<rect class=\"cell%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"",
                cell->conflict ? " conflict" : "", MAP_LABEL_PX + (int)(c % cols) * pitch,
                (int)(c / cols) * pitch, MAP_CELL_PX, MAP_CELL_PX);
        if (cell->nfns == 0)
            fputs("#f3f3f3", out);
        else
            put_fill(out, m->clique_of[cell->top[0]],
                     lg_report_fn_weight(m, &prog->fns[cell->top[0]]), max_weight, LIGHT_COOL,
                     LIGHT_HOT);
        fputs("\"><title>", out);
        put_cell_tip(out, prog, m, map, c);
        fputs("</title></rect>\n", out);
    }
    fputs("</svg>\n", out);
}

static uint32_t count_conflicts(const cache_map_t *map)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < map->ncells; c++)
        n += map->cells[c].conflict;
    return n;
}

static uint32_t count_used(const cache_map_t *map)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < map->ncells; c++)
        n += map->cells[c].nfns > 0;
    return n;
}

static lg_err_t write_maps(const lg_report_input_t *in, const lg_report_model_t *m,
                           const uint64_t *before, const uint64_t *after, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_geometry_t *g = &in->layout->geometry;
    uint64_t max_weight = 0;
    for (size_t i = 0; i < prog->nfns; i++)
        if (lg_report_fn_weight(m, &prog->fns[i]) > max_weight)
            max_weight = lg_report_fn_weight(m, &prog->fns[i]);
    cache_map_t maps[2] = {{0}, {0}};
    const uint64_t *addrs[2] = {before, after};
    static const char *const ids[2] = {"map-before", "map-after"};
    static const char *const titles[2] = {"Before: the ELF's current addresses",
                                          "After: the new order"};
    lg_err_t err = LG_OK;
    for (int k = 0; k < 2 && err == LG_OK; k++)
        if (addrs[k] != NULL)
            err = build_map(prog, m, g, addrs[k], &maps[k]);
    if (err == LG_OK) {
        fputs("<section id=\"cache-map\">\n<h2>Cache map</h2>\n", out);
        fprintf(out,
                "<p>One cell per cache set%s, %" PRIu32 " cells in rows of %u (the number left of "
                "a row is its first set). A cell takes the colour of the clique of the hottest "
                "function whose code maps to it, darker for more %s (the weight placement "
                "uses); grey: hot code in no clique. A black frame marks a set where members "
                "of one clique collide: more of their lines map there than the set has ways "
                "(%" PRIu32 "), and since they call each other they evict each other. Hover a "
                "cell for its functions.</p>\n",
                maps[1].sets_per_cell > 1 ? "s (each cell a group of sets)" : "", maps[1].ncells,
                LG_HTML_MAP_COLUMNS, m->weight_unit, g->ways);
        fputs("<div class=\"maps\">\n", out);
        for (int k = 0; k < 2; k++) {
            /* As wide as its map, so the two sit side by side and the caption wraps. */
            fprintf(out, "<figure style=\"width:%dpx\">\n<figcaption>%s",
                    MAP_LABEL_PX + (int)LG_HTML_MAP_COLUMNS * (MAP_CELL_PX + MAP_GAP_PX),
                    titles[k]);
            if (addrs[k] != NULL)
                fprintf(out, ": %" PRIu32 " cells used, %" PRIu32 " with collisions",
                        count_used(&maps[k]), count_conflicts(&maps[k]));
            if (addrs[k] != NULL && in->estimated)
                fprintf(out, ", %" PRIu64 " estimated misses",
                        k == 0 ? in->misses_before : in->misses_after);
            fputs("</figcaption>\n", out);
            if (addrs[k] != NULL)
                put_map_svg(out, ids[k], prog, m, &maps[k], max_weight);
            else
                fprintf(out,
                        "<p id=\"%s\" class=\"none\">No addresses: the ELF inputs are "
                        "object files only; give the linked program to see this map.</p>\n",
                        ids[k]);
            fputs("</figure>\n", out);
        }
        fputs("</div>\n<p class=\"legend\">", out);
        size_t shown = in->layout->ncliques < LEGEND_MAX ? in->layout->ncliques : LEGEND_MAX;
        for (size_t c = 0; c < shown; c++)
            fprintf(out, "<span><i style=\"background:hsl(%d,70%%,50%%)\"></i>clique %zu</span> ",
                    clique_hue((uint32_t)c), c + 1);
        if (shown < in->layout->ncliques)
            fprintf(out, "<span>%zu more cliques reuse these hues</span>",
                    in->layout->ncliques - shown);
        fputs("</p>\n</section>\n", out);
    }
    free(maps[0].cells);
    free(maps[1].cells);
    return err;
}

/* ---- summary, tables ---------------------------------------------------------------------- */

static void kv_row(FILE *out, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void kv_row(FILE *out, const char *key, const char *fmt, ...)
{
    fprintf(out, "<tr><th>%s</th><td>", key);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputs("</td></tr>\n", out);
}

static void write_summary(const lg_report_input_t *in, const lg_report_model_t *m, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    const lg_geometry_t *g = &layout->geometry;
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"kv\">\n", out);
    for (size_t i = 0; i < in->nprofiles; i++) {
        const lg_profile_t *p = in->profiles[i].profile;
        fputs("<tr><th>profile</th><td>", out);
        put_text(out, p->path ? p->path : "?");
        fprintf(out, ": %s, %s profile, %zu functions", p->format ? p->format : "?",
                p->kind == LG_PROFILE_TRACE ? "trace" : "statistical", p->nfuncs);
        if (p->has_call_edges)
            fprintf(out, ", %zu call edges", p->nedges);
        else
            fputs(", no call edges: ordered by hotness only", out);
        if (in->nprofiles > 1 || in->profiles[i].scale != 1.0)
            fprintf(out, "; merged at x%.6g", in->profiles[i].scale);
        fputs("</td></tr>\n", out);
    }
    /* One row for every ELF input: a program with many objects would push the rest away. */
    const char *sep = "<tr><th>elf</th><td>";
    for (size_t i = 0; in->lor != NULL && i < in->lor->ninputs; i++)
        if (strcmp(in->lor->inputs[i].kind, "elf") == 0) {
            fputs(sep, out);
            put_text(out, in->lor->inputs[i].path);
            sep = ", ";
        }
    if (strcmp(sep, ", ") == 0)
        fputs("</td></tr>\n", out);
    kv_row(out, "functions in the ELF inputs", "%zu", prog->nfns);
    kv_row(out, "profiled functions bound", "%zu", prog->nprofiled);
    kv_row(out, "profiled functions unbound", "%zu", prog->nunbound);
    kv_row(out, "executed but not movable", "%zu", layout->nexcluded);
    kv_row(out, "never executed (input order)", "%zu", layout->ncold);
    kv_row(out, "cache",
           "%" PRIu32 " bytes, %" PRIu32 "-byte lines, %" PRIu32 "-way, %" PRIu32 " sets",
           g->cache_size, g->line_size, g->ways, m->sets);
    kv_row(out, "algorithm", "%s", layout->algorithm ? layout->algorithm : "cliques");
    kv_row(out, "cliques", "%zu", layout->ncliques);
    kv_row(out, "hot code", "%" PRIu64 " bytes in %zu functions (%.1f%% of the cache)",
           m->hot_bytes, m->hot_fns, lg_report_pct(m->hot_bytes, g->cache_size));
    if (m->filler_fns > 0)
        kv_row(out, "filler",
               "%" PRIu64 " bytes in %zu never-executed function%s, placed to move the next "
               "clique to its cache sets (not hot code)",
               m->all_bytes - m->hot_bytes, m->filler_fns, m->filler_fns == 1 ? "" : "s");
    kv_row(out, "total hits of bound functions", "%" PRIu64, m->total_hits);
    kv_row(out, "placement weight", "%s%s", m->weight_unit, lg_report_weight_clause(in, m));
    kv_row(out, "total weight of the cliques", "%" PRIu64 " %s", m->total_weight, m->weight_unit);
    if (in->estimated) {
        kv_row(out, "estimated misses, ELF &rarr; new",
               "%" PRIu64 " &rarr; %" PRIu64 " (lorgen eval's replay of the profile)",
               in->misses_before, in->misses_after);
        if (in->lor != NULL && in->lor->nregions > 0)
            kv_row(out, "fast regions", "%s",
                   "their code, fetched outside the instruction cache (a TCM), is counted in "
                   "neither");
        kv_row(out, "not replayed by the estimate",
               "%.1f%% of the profiles' %s, in unbound functions; and code outside the "
               "profiles (PLT, libc, start-up code), which lorgen does not move",
               lg_report_unreplayed_pct(m), m->weight_unit);
        kv_row(out, "limits of the estimate", "%s", LG_REPORT_ESTIMATE_LIMITS);
    } else
        kv_row(out, "estimated misses, ELF &rarr; new",
               "not estimated: the ELF inputs give no addresses");
    fputs("</table>\n</section>\n", out);
}

static void num_cell(FILE *out, uint64_t v)
{
    fprintf(out, "<td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", v, v);
}

static void pct_cell(FILE *out, double v)
{
    fprintf(out, "<td data-v=\"%.3f\">%.1f%%</td>", v, v);
}

static void write_clique_table(const lg_report_input_t *in, const lg_report_model_t *m, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    uint64_t cache = layout->geometry.cache_size;
    fputs("<section id=\"cliques\">\n<h2>Cliques</h2>\n<p>In link order; click a header to "
          "sort.</p>\n<table id=\"clique-table\" class=\"sortable\">\n<thead><tr>"
          "<th data-type=\"num\">clique</th><th data-type=\"num\">functions</th>"
          "<th data-type=\"num\">bytes</th><th data-type=\"num\">cache</th>"
          "<th data-type=\"num\">hits</th><th data-type=\"num\">share</th>"
          "<th data-type=\"num\" id=\"weight-head\">weight</th>"
          "<th data-type=\"num\">share</th><th data-type=\"num\">calls inside</th><th "
          "data-type=\"num\">calls across</th>"
          "<th data-type=\"text\">hottest function</th><th data-type=\"text\">notes</th>"
          "</tr></thead>\n<tbody>\n",
          out);
    size_t nfns = 0;
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        nfns += cl->nfns;
        size_t nin = m->ninside[c];
        const lg_report_row_t *rows = m->rows + m->first[c];
        size_t nrows = m->first[c + 1] - m->first[c];
        uint32_t hottest = UINT32_MAX;
        for (size_t i = 0; i < cl->nfns; i++)
            if (hottest == UINT32_MAX || hotter(prog, m, cl->fns[i], hottest))
                hottest = cl->fns[i];
        fprintf(out,
                "<tr><td data-v=\"%zu\"><i class=\"sw\" style=\"background:hsl(%d,70%%,50%%)"
                "\"></i>%zu</td>",
                c + 1, clique_hue((uint32_t)c), c + 1);
        num_cell(out, cl->nfns);
        num_cell(out, cl->bytes);
        pct_cell(out, lg_report_pct(cl->bytes, cache));
        num_cell(out, cl->hits);
        pct_cell(out, lg_report_pct(cl->hits, m->total_hits));
        num_cell(out, m->clique_weight[c]);
        pct_cell(out, lg_report_pct(m->clique_weight[c], m->total_weight));
        num_cell(out, lg_report_rows_weight(rows, nin));
        num_cell(out, lg_report_rows_weight(rows + nin, nrows - nin));
        fputs("<td>", out);
        if (hottest != UINT32_MAX)
            put_text(out, prog->fns[hottest].symbol);
        fputs("</td><td>", out);
        const char *sep = "";
        if (cl->flags & LG_CLIQUE_OVERSIZED) {
            fputs("larger than the cache", out);
            sep = "; ";
        }
        if (cl->flags & LG_CLIQUE_NO_CALLS) {
            fprintf(out, "%sgrouped by hotness", sep);
            sep = "; ";
        }
        if (cl->flags & LG_CLIQUE_FILLER) {
            fprintf(out, "%snever-executed filler", sep);
            sep = "; ";
        }
        if (cl->pad_before > 0)
            fprintf(out, "%s%" PRIu64 " bytes of padding before", sep, cl->pad_before);
        fputs("</td></tr>\n", out);
    }
    fprintf(out,
            "</tbody>\n<tfoot><tr><td>TOTAL</td><td>%zu</td><td>%" PRIu64
            "</td><td>%.1f%%</td><td>%" PRIu64 "</td><td>%.1f%%</td><td>%" PRIu64
            "</td><td>%.1f%%</td><td></td><td></td><td></td><td></td></tr></tfoot>\n</table>\n",
            nfns, m->all_bytes, lg_report_pct(m->all_bytes, cache), m->total_hits,
            m->total_hits ? 100.0 : 0.0, m->total_weight, m->total_weight ? 100.0 : 0.0);
    if (m->filler_fns > 0)
        fprintf(out,
                "<p id=\"total-note\">TOTAL counts the filler (%zu never-executed function%s, "
                "%" PRIu64 " bytes); without it: %zu functions, %" PRIu64
                " bytes, the summary's hot code. Weight: %s.</p>\n",
                m->filler_fns, m->filler_fns == 1 ? "" : "s", m->all_bytes - m->hot_bytes,
                m->hot_fns, m->hot_bytes, m->weight_unit);
}

/* A clique's calls as HTML tables (report_calls.h). */
static void calls_begin(FILE *out, const char *title, bool boundary)
{
    fprintf(out,
            "<table class=\"calls\"><thead><tr><th>%s</th><th>weight</th>%s</tr></thead>"
            "<tbody>\n",
            title, boundary ? "<th>other side</th>" : "");
}

static void calls_row(FILE *out, const lg_program_t *prog, const lg_arc_t *a,
                      const char *other_side)
{
    fputs("<tr><td>", out);
    put_text(out, prog->fns[a->caller].symbol);
    fputs(" &rarr; ", out);
    put_text(out, prog->fns[a->callee].symbol);
    fprintf(out, "</td><td class=\"n\">%" PRIu64 "</td>", a->weight);
    if (other_side != NULL)
        fprintf(out, "<td>%s</td>", other_side);
    fputs("</tr>\n", out);
}

static void calls_rest(FILE *out, size_t more, uint64_t weight, bool boundary)
{
    fprintf(out, "<tr><td>[%zu more]</td><td class=\"n\">%" PRIu64 "</td>%s</tr>\n", more, weight,
            boundary ? "<td></td>" : "");
}

static void calls_end(FILE *out)
{
    fputs("</tbody></table>\n", out);
}

static const lg_report_call_style_t html_calls = {calls_begin, calls_row, calls_rest, calls_end};

/* Per clique: its members in link order with offsets, and its heaviest calls. */
static lg_err_t write_clique_details(const lg_report_input_t *in, lg_report_model_t *m, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    fputs("<h3>Members and calls</h3>\n", out);
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        uint64_t *offsets = malloc((cl->nfns ? cl->nfns : 1) * sizeof *offsets);
        if (offsets == NULL)
            return LG_ENOMEM;
        lg_report_clique_offsets(prog, cl, offsets);
        fprintf(out,
                "<details id=\"clique-%zu\"><summary>Clique %zu: %zu functions, %" PRIu64
                " bytes, %" PRIu64 " hits, %" PRIu64 " %s</summary>\n",
                c + 1, c + 1, cl->nfns, cl->bytes, cl->hits, m->clique_weight[c], m->weight_unit);
        fprintf(out,
                "<table class=\"members\"><thead><tr><th>function</th><th>offset</th>"
                "<th>bytes</th><th>hits</th><th>share</th><th>%s</th><th>share</th>"
                "<th>section</th></tr></thead><tbody>\n",
                m->weight_unit);
        for (size_t i = 0; i < cl->nfns; i++) {
            const lg_fn_t *fn = &prog->fns[cl->fns[i]];
            fputs("<tr><td>", out);
            put_text(out, fn->symbol);
            fprintf(out,
                    "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                    "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.1f%%</td>"
                    "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.1f%%</td><td>",
                    offsets[i], fn->size, fn->hits, lg_report_pct(fn->hits, cl->hits),
                    lg_report_fn_weight(m, fn),
                    lg_report_pct(lg_report_fn_weight(m, fn), m->clique_weight[c]));
            put_text(out, fn->section);
            if (fn->flags & LG_FN_SECTION_INFERRED)
                fputs(" (inferred)", out);
            lg_report_write_phase(fn, layout->geometry.line_size, out);
            fputs("</td></tr>\n", out);
        }
        fputs("</tbody></table>\n", out);
        free(offsets);
        LG_CHECK(lg_report_write_calls(in, m, c, &html_calls, out));
        fputs("</details>\n", out);
    }
    fputs("</section>\n", out);
    return LG_OK;
}

/* ---- the call graph ------------------------------------------------------------------------ */

typedef struct graph_node {
    uint32_t fn;
    int x, y; /* top left of its box */
} graph_node_t;

/* Draws the hottest clique members, one column per clique in link order, members top down in
 * link order, and the heaviest calls among them. */
static lg_err_t write_graph(const lg_report_input_t *in, const lg_report_model_t *m, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    size_t nmembers = 0;
    for (size_t c = 0; c < layout->ncliques; c++)
        nmembers += layout->cliques[c].nfns;
    lg_report_key_t *members = malloc((nmembers ? nmembers : 1) * sizeof *members);
    int32_t *slot = malloc((prog->nfns ? prog->nfns : 1) * sizeof *slot);
    graph_node_t *nodes = malloc((LG_HTML_GRAPH_MAX_NODES + 1) * sizeof *nodes);
    lg_report_row_t *edges = malloc((prog->narcs ? prog->narcs : 1) * sizeof *edges);
    if (!members || !slot || !nodes || !edges) {
        free(members);
        free(slot);
        free(nodes);
        free(edges);
        return LG_ENOMEM;
    }
    size_t n = 0;
    for (size_t c = 0; c < layout->ncliques; c++)
        for (size_t i = 0; i < layout->cliques[c].nfns; i++)
            if (prog->fns[layout->cliques[c].fns[i]].hits > 0) {
                const lg_fn_t *fn = &prog->fns[layout->cliques[c].fns[i]];
                /* hotter()'s order: by weight, hits, then input order. */
                members[n++] = (lg_report_key_t){lg_report_fn_weight(m, fn), fn->hits,
                                                 layout->cliques[c].fns[i]};
            }
    qsort(members, n, sizeof *members, lg_report_key_cmp);
    size_t executed = n;
    if (n > LG_HTML_GRAPH_MAX_NODES)
        n = LG_HTML_GRAPH_MAX_NODES;
    for (size_t i = 0; i < prog->nfns; i++)
        slot[i] = -1;
    for (size_t i = 0; i < n; i++)
        slot[members[i].index] = 0;
    /* Lay out: walk the cliques in link order, a column for each that has chosen members. */
    size_t nnodes = 0;
    int col = 0, max_rows = 0;
    fputs("<section id=\"callgraph\">\n<h2>Call graph of the hot code</h2>\n", out);
    fprintf(out,
            "<p>The %zu hottest clique members (of %zu executed), one column per clique in link "
            "order, members in link order; the %u heaviest calls among them, thicker for more "
            "calls. Calls inside a clique take its colour. Hover for names and weights.</p>\n",
            n, executed, LG_HTML_GRAPH_MAX_EDGES);
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        int row = 0;
        for (size_t i = 0; i < cl->nfns; i++) {
            if (slot[cl->fns[i]] < 0)
                continue;
            slot[cl->fns[i]] = (int32_t)nnodes;
            nodes[nnodes++] =
                (graph_node_t){cl->fns[i], GRAPH_MARGIN_PX + col * GRAPH_COL_PX,
                               GRAPH_HEAD_PX + GRAPH_MARGIN_PX / 2 + row * GRAPH_ROW_PX};
            row++;
        }
        if (row > 0)
            col++;
        if (row > max_rows)
            max_rows = row;
    }
    size_t nedges = 0;
    for (size_t i = 0; i < prog->narcs; i++) {
        const lg_arc_t *a = &prog->arcs[i];
        if (a->caller != a->callee && slot[a->caller] >= 0 && slot[a->callee] >= 0)
            edges[nedges++] = (lg_report_row_t){a, LG_REPORT_NO_CLIQUE, true};
    }
    size_t shown = nedges > LG_HTML_GRAPH_MAX_EDGES ? LG_HTML_GRAPH_MAX_EDGES : nedges;
    if (lg_report_sort_rows(prog, edges, nedges, shown) != LG_OK) {
        free(members);
        free(slot);
        free(nodes);
        free(edges);
        return LG_ENOMEM;
    }
    uint64_t max_w = shown ? edges[0].arc->weight : 0, max_hits = 0;
    for (size_t i = 0; i < nnodes; i++)
        if (prog->fns[nodes[i].fn].hits > max_hits)
            max_hits = prog->fns[nodes[i].fn].hits;
    int width = 2 * GRAPH_MARGIN_PX + (col > 0 ? (col - 1) * GRAPH_COL_PX + GRAPH_NODE_W : 0);
    int height = GRAPH_HEAD_PX + GRAPH_MARGIN_PX + max_rows * GRAPH_ROW_PX;
    fprintf(out,
            "<div class=\"scroll\"><svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%d\" height=\"%d\" role=\"img\">\n<defs><marker id=\"arrow\" "
            "viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" "
            "markerWidth=\"%d\" markerHeight=\"%d\" orient=\"auto\"><path "
            "d=\"M0,0L10,5L0,10z\" fill=\"#555\"/></marker></defs>\n",
            width, height, ARROW_PX, ARROW_PX);
    /* Column headings. */
    uint32_t last = LG_REPORT_NO_CLIQUE;
    for (size_t i = 0; i < nnodes; i++) {
        uint32_t c = m->clique_of[nodes[i].fn];
        if (c == last)
            continue;
        last = c;
        fprintf(out, "<text class=\"colhead\" x=\"%d\" y=\"%d\">clique %" PRIu32 "</text>\n",
                nodes[i].x, GRAPH_HEAD_PX - 8, c + 1);
    }
    /* Edges under the nodes, lightest first so the heavy ones stay on top. */
    for (size_t e = shown; e-- > 0;) {
        const lg_arc_t *a = edges[e].arc;
        const graph_node_t *from = &nodes[slot[a->caller]], *to = &nodes[slot[a->callee]];
        uint32_t cf = m->clique_of[a->caller], ct = m->clique_of[a->callee];
        double w = 1.0 + 5.0 * heat(a->weight, max_w);
        int y1 = from->y + GRAPH_NODE_H / 2, y2 = to->y + GRAPH_NODE_H / 2;
        int x1, x2, cx1, cx2;
        if (from->x == to->x) {
            /* Same column: a loop out of the right side, wider for rows further apart. */
            int bulge = 24 + abs(y2 - y1) / 6;
            if (bulge > 60)
                bulge = 60;
            x1 = x2 = from->x + GRAPH_NODE_W;
            cx1 = cx2 = x1 + bulge;
        } else if (from->x < to->x) {
            x1 = from->x + GRAPH_NODE_W;
            x2 = to->x;
            cx1 = x1 + (x2 - x1) / 2;
            cx2 = cx1;
        } else {
            x1 = from->x;
            x2 = to->x + GRAPH_NODE_W;
            cx1 = x1 - (x1 - x2) / 2;
            cx2 = cx1;
        }
        fprintf(out, "<path class=\"edge\" d=\"M%d,%dC%d,%d %d,%d %d,%d\" stroke-width=\"%.1f\" ",
                x1, y1, cx1, y1, cx2, y2, x2, y2, w);
        if (cf == ct && cf != LG_REPORT_NO_CLIQUE)
            fprintf(out, "stroke=\"hsl(%d,60%%,40%%)\"", clique_hue(cf));
        else
            fputs("stroke=\"#888\"", out);
        fputs(" marker-end=\"url(#arrow)\"><title>", out);
        put_text(out, prog->fns[a->caller].symbol);
        fputs(" \xe2\x86\x92 ", out); /* U+2192 rightwards arrow */
        put_text(out, prog->fns[a->callee].symbol);
        fprintf(out, ": %" PRIu64 "</title></path>\n", a->weight);
    }
    for (size_t i = 0; i < nnodes; i++) {
        const lg_fn_t *fn = &prog->fns[nodes[i].fn];
        fprintf(out,
                "<g class=\"node\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                "rx=\"4\" fill=\"",
                nodes[i].x, nodes[i].y, GRAPH_NODE_W, GRAPH_NODE_H);
        put_fill(out, m->clique_of[nodes[i].fn], fn->hits, max_hits, NODE_LIGHT_COOL,
                 NODE_LIGHT_HOT);
        fprintf(out, "\"/><text x=\"%d\" y=\"%d\">", nodes[i].x + 6, nodes[i].y + 15);
        put_text_cut(out, fn->symbol, GRAPH_NAME_CHARS);
        fputs("</text><title>", out);
        put_text(out, fn->symbol);
        fprintf(out, ": %" PRIu64 " hits, %" PRIu64 " bytes</title></g>\n", fn->hits, fn->size);
    }
    fputs("</svg></div>\n</section>\n", out);
    free(members);
    free(slot);
    free(nodes);
    free(edges);
    return LG_OK;
}

/* The fixed groups list (report_model.h): one row a group, with where it went or why it stays,
 * its profiled members and the advice to build a member apart. */
static lg_err_t write_groups(const lg_report_input_t *in, FILE *out)
{
    const lg_program_t *prog = in->prog;
    lg_report_groups_t groups;
    if (lg_report_groups_build(prog, in->layout, &groups) != LG_OK)
        return LG_ENOMEM;
    fputs("<section id=\"groups\">\n<h2>Fixed groups</h2>\n", out);
    if (groups.n == 0)
        fputs("<p>No function shares its input section with another profiled one.</p>\n", out);
    else
        fputs("<p>Functions that share an input section move together, or not at all.</p>\n"
              "<table class=\"calls\"><thead><tr><th>group</th><th>input section</th>"
              "<th>where</th><th>functions</th><th>bytes</th><th>bytes that ran</th>"
              "<th>hits</th><th>profiled members</th></tr></thead><tbody>\n",
              out);
    for (size_t n = 0; n < groups.n; n++) {
        const lg_report_group_t *g = &groups.v[n];
        const lg_fn_t *head = &prog->fns[g->head];
        fprintf(out, "<tr><td class=\"n\">%zu</td><td>", n + 1);
        put_text(out, head->object);
        fputc('(', out);
        put_text(out, head->section);
        fputs(")</td><td>", out);
        if (g->clique != LG_REPORT_NO_CLIQUE)
            fprintf(out, "clique %" PRIu32, g->clique + 1);
        else {
            fputs("stays: ", out);
            put_text(out, lg_report_group_stays_reason(prog, g));
        }
        fputs("</td>", out);
        num_cell(out, g->count);
        num_cell(out, g->bytes);
        num_cell(out, g->executed_bytes);
        num_cell(out, g->hits);
        fputs("<td>", out);
        const char *sep = "";
        for (size_t k = 0; k < g->count; k++) {
            const lg_fn_t *f = &prog->fns[g->members[k]];
            if (f->hits == 0)
                continue;
            fputs(sep, out);
            put_text(out, f->symbol);
            fprintf(out, " (%" PRIu64 ")", f->hits);
            sep = ", ";
        }
        if (g->separate != UINT32_MAX) {
            const lg_fn_t *t = &prog->fns[g->separate];
            fputs("<br>advice: build ", out);
            put_text(out, head->object);
            fputs(" with -ffunction-sections, so that ", out);
            put_text(out, t->symbol);
            fprintf(out, " (%.0f%% of the hits in %" PRIu64 " of %" PRIu64
                         " bytes) moves alone",
                    100.0 * (double)t->hits / (double)g->hits, t->size, g->bytes);
        }
        fputs("</td></tr>\n", out);
    }
    if (groups.n > 0)
        fputs("</tbody></table>\n", out);
    fputs("</section>\n", out);
    lg_report_groups_destroy(&groups);
    return LG_OK;
}

/* The fast regions (report_regions.h): one row a region with its bytes, share of the cost and
 * members, then the hottest executed code left out with why, and the calls between a region and
 * the rest; the same rows as the text report, cut at its row cap. */
static lg_err_t write_regions(const lg_report_input_t *in, FILE *out)
{
    const lg_program_t *prog = in->prog;
    lg_report_regions_t rs;
    if (lg_report_regions_build(in, &rs) != LG_OK) {
        lg_report_regions_destroy(&rs);
        return LG_ENOMEM;
    }
    if (rs.nregions == 0)
        return LG_OK;
    size_t rows = in->max_rows ? in->max_rows : SIZE_MAX;
    fputs("<section id=\"fast-regions\">\n<h2>Fast regions</h2>\n"
          "<table class=\"calls\"><thead><tr><th>region</th><th>functions</th>"
          "<th>bytes used</th><th>bytes left</th><th>budget</th><th>held</th><th>stubs</th>"
          "<th>size</th>",
          out);
    fprintf(out, "<th>%% of the profile's %s</th><th>members</th></tr></thead><tbody>\n",
            rs.counters ? "self cost" : "hits");
    for (size_t r = 0; r < rs.nregions; r++) {
        const lg_lor_region_t *rg = &in->lor->regions[r];
        fputs("<tr><td>", out);
        put_text(out, rg->name);
        fputs("</td>", out);
        num_cell(out, rg->nfns);
        num_cell(out, rg->bytes);
        num_cell(out, rg->budget - rg->bytes);
        num_cell(out, rg->budget);
        num_cell(out, rg->held);
        num_cell(out, rg->stubs);
        num_cell(out, rg->size);
        pct_cell(out, lg_report_pct(rs.value[r], rs.total_value));
        fputs("<td>", out);
        for (size_t k = 0; k < rg->nfns; k++) {
            fputs(k ? ", " : "", out);
            put_text(out, rg->fns[k].symbol);
        }
        /* What the link keeps there by its own lines, counted in held. */
        for (size_t k = 0; k < rg->npinned; k++) {
            fputs(k || rg->nfns ? ", " : "", out);
            put_text(out, rg->pinned[k]);
            fputs(" (pinned)", out);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    if (rs.nleft > 0) {
        fprintf(out,
                "<table class=\"calls\"><thead><tr><th>left out</th><th>%s</th><th>bytes</th>"
                "<th>why</th></tr></thead><tbody>\n",
                rs.counters ? "self cost" : "hits");
        for (size_t i = 0; i < rs.nleft && i < rows; i++) {
            const lg_fn_t *fn = &prog->fns[rs.left[i].index];
            fputs("<tr><td>", out);
            put_text(out, fn->symbol);
            fputs("</td>", out);
            num_cell(out, rs.left[i].weight);
            num_cell(out, lg_fast_region_weight(fn));
            fputs("<td>", out);
            put_text(out, lg_report_region_left_reason(&rs, fn));
            fputs("</td></tr>\n", out);
        }
        if (rs.nleft > rows)
            fprintf(out, "<tr><td>[%zu more]</td><td></td><td></td><td></td></tr>\n",
                    rs.nleft - rows);
        fputs("</tbody></table>\n", out);
    }
    if (rs.ncrossing > 0) {
        fputs("<table class=\"calls\"><thead><tr><th>caller</th><th>in</th><th>callee</th>"
              "<th>in</th><th>calls</th></tr></thead><tbody>\n",
              out);
        for (size_t i = 0; i < rs.ncrossing && i < rows; i++) {
            const lg_arc_t *a = rs.crossing[i].arc;
            fputs("<tr><td>", out);
            put_text(out, prog->fns[a->caller].symbol);
            fputs("</td><td>", out);
            put_text(out, lg_report_region_side(in, &rs, a->caller));
            fputs("</td><td>", out);
            put_text(out, prog->fns[a->callee].symbol);
            fputs("</td><td>", out);
            put_text(out, lg_report_region_side(in, &rs, a->callee));
            fputs("</td>", out);
            num_cell(out, a->weight);
            fputs("</tr>\n", out);
        }
        if (rs.ncrossing > rows)
            fprintf(out,
                    "<tr><td>[%zu more]</td><td></td><td></td><td></td><td>%" PRIu64
                    "</td></tr>\n",
                    rs.ncrossing - rows,
                    lg_report_rows_weight(rs.crossing + rows, rs.ncrossing - rows));
        fputs("</tbody></table>\n", out);
        const char *note = lg_report_region_crossing_note(&rs);
        if (note != NULL) {
            fputs("<p>", out);
            put_text(out, note);
            fputs("</p>\n", out);
        }
    }
    fputs("</section>\n", out);
    lg_report_regions_destroy(&rs);
    return LG_OK;
}

/* One table of what was left out, unbound and not movable alike, hottest first: the function
 * that matters most is the first row, never behind a "[N more]". */
static lg_err_t write_left_out(const lg_report_input_t *in, FILE *out)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    fputs("<section id=\"left-out\">\n<h2>Left out</h2>\n", out);
    size_t n = prog->nunbound + layout->nexcluded;
    if (n == 0)
        fputs("<p>Every profiled function was bound and placed.</p>\n", out);
    size_t rows = in->max_rows ? in->max_rows : SIZE_MAX;
    if (n > 0) {
        /* Index i < nunbound is unbound entry i; past it, excluded entry i - nunbound. */
        lg_report_key_t *keys = malloc(n * sizeof *keys);
        if (keys == NULL)
            return LG_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            uint64_t hits = i < prog->nunbound
                                ? prog->unbound[i].hits
                                : prog->fns[layout->excluded[i - prog->nunbound]].hits;
            keys[i] = (lg_report_key_t){hits, hits, i};
        }
        qsort(keys, n, sizeof *keys, lg_report_key_cmp);
        fputs("<table class=\"calls\"><thead><tr><th></th><th>function</th><th>hits</th>"
              "<th>why</th></tr></thead><tbody>\n",
              out);
        size_t unbound_more = 0, excluded_more = 0;
        for (size_t k = 0; k < n; k++) {
            size_t i = keys[k].index;
            if (k >= rows) {
                *(i < prog->nunbound ? &unbound_more : &excluded_more) += 1;
                continue;
            }
            if (i < prog->nunbound) {
                fputs("<tr><td>unbound</td><td>", out);
                put_text(out, prog->unbound[i].name);
                fprintf(out, "</td><td class=\"n\">%" PRIu64 "</td><td>", prog->unbound[i].hits);
                put_text(out, prog->unbound[i].reason);
                fputs("</td></tr>\n", out);
                continue;
            }
            const lg_fn_t *fn = &prog->fns[layout->excluded[i - prog->nunbound]];
            fputs("<tr><td>not movable</td><td>", out);
            put_text(out, fn->symbol);
            fprintf(out, "</td><td class=\"n\">%" PRIu64 "</td><td>", fn->hits);
            put_text(out, fn->section);
            fputs(": ", out);
            put_text(out, lg_fn_unmovable_reason(fn));
            fputs("</td></tr>\n", out);
        }
        free(keys);
        if (unbound_more > 0)
            fprintf(out, "<tr><td>unbound</td><td>[%zu more]</td><td></td><td></td></tr>\n",
                    unbound_more);
        if (excluded_more > 0)
            fprintf(out, "<tr><td>not movable</td><td>[%zu more]</td><td></td><td></td></tr>\n",
                    excluded_more);
        fputs("</tbody></table>\n", out);
    }
    fprintf(out,
            "<p>%zu functions never executed keep their input order after the cliques.</p>\n"
            "</section>\n",
            layout->ncold);
    return LG_OK;
}

/* ---- the page ------------------------------------------------------------------------------ */

static const char page_head[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>lorgen clique report</title>\n"
    "<script>window.addEventListener('error', function () {\n"
    "  document.documentElement.setAttribute('data-lg-error', '1');\n"
    "});</script>\n"
    "<style>\n"
    "body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }\n"
    "h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }\n"
    "h3 { font-size: 15px; }\n"
    "table { border-collapse: collapse; }\n"
    "th, td { padding: 2px 10px; text-align: left; }\n"
    "td[data-v], td.n { text-align: right; font-variant-numeric: tabular-nums; }\n"
    "table.kv th { font-weight: normal; color: #555; }\n"
    "table.sortable thead th { cursor: pointer; user-select: none; border-bottom: 1px solid "
    "#999; }\n"
    "table.sortable thead th[aria-sort=ascending]::after { content: ' \\25B2'; }\n"
    "table.sortable thead th[aria-sort=descending]::after { content: ' \\25BC'; }\n"
    "table.sortable tbody tr:nth-child(even), table.members tbody tr:nth-child(even) { "
    "background: #f6f6f6; }\n"
    "tfoot td { border-top: 1px solid #999; font-weight: bold; text-align: right; }\n"
    "tfoot td:first-child { text-align: left; }\n"
    "table.calls, table.members { margin: 6px 0 12px 16px; font-size: 13px; }\n"
    "table.calls th, table.members th { border-bottom: 1px solid #ccc; }\n"
    "i.sw, p.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 5px; "
    "border-radius: 2px; }\n"
    "p.legend span { margin-right: 12px; white-space: nowrap; }\n"
    ".maps { display: flex; flex-wrap: wrap; gap: 32px; }\n"
    "figure { margin: 0; } figcaption { font-weight: bold; margin-bottom: 6px; }\n"
    "svg.map rect.conflict { stroke: #000; stroke-width: 2; }\n"
    "svg text { font: 11px system-ui, sans-serif; fill: #222; }\n"
    "svg text.rowlabel { text-anchor: end; fill: #777; }\n"
    "svg text.colhead { font-weight: bold; }\n"
    "path.edge { fill: none; stroke-opacity: 0.65; }\n"
    "path.edge:hover { stroke-opacity: 1; }\n"
    "g.node rect { stroke: #444; stroke-width: 0.6; }\n"
    ".scroll { overflow-x: auto; }\n"
    "details { margin: 4px 0; } summary { cursor: pointer; }\n"
    "p.none { color: #777; font-style: italic; width: 420px; }\n"
    "</style>\n</head>\n<body>\n<h1>lorgen clique report</h1>\n";

/* Sorts a table by a column when its header is clicked; numbers by data-v, text by content. */
static const char page_script[] =
    "<script>\n"
    "(function () {\n"
    "  'use strict';\n"
    "  function key(row, col, numeric) {\n"
    "    var cell = row.cells[col];\n"
    "    if (numeric) return parseFloat(cell.getAttribute('data-v'));\n"
    "    return cell.textContent;\n"
    "  }\n"
    "  function sortBy(table, th) {\n"
    "    var col = th.cellIndex, numeric = th.getAttribute('data-type') === 'num';\n"
    "    var dir = th.getAttribute('aria-sort') === 'descending' ? 1 : -1;\n"
    "    if (!numeric && !th.hasAttribute('aria-sort')) dir = 1;\n"
    "    var body = table.tBodies[0];\n"
    "    var rows = Array.prototype.slice.call(body.rows);\n"
    "    rows.forEach(function (r, i) { r.lgIndex = i; });\n"
    "    rows.sort(function (a, b) {\n"
    "      var x = key(a, col, numeric), y = key(b, col, numeric);\n"
    "      if (x < y) return -dir;\n"
    "      if (x > y) return dir;\n"
    "      return a.lgIndex - b.lgIndex;\n"
    "    });\n"
    "    rows.forEach(function (r) { body.appendChild(r); });\n"
    "    Array.prototype.forEach.call(th.parentNode.cells, function (h) {\n"
    "      h.removeAttribute('aria-sort');\n"
    "    });\n"
    "    th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');\n"
    "  }\n"
    "  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (t) {\n"
    "    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th) {\n"
    "      th.tabIndex = 0;\n"
    "      th.addEventListener('click', function () { sortBy(t, th); });\n"
    "      th.addEventListener('keydown', function (e) {\n"
    "        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(t, th); }\n"
    "      });\n"
    "    });\n"
    "  });\n"
    "  document.documentElement.setAttribute('data-lg-ready', '1');\n"
    "})();\n"
    "</script>\n";

/* The page, once the model and the addresses are there (lg_report_writer_t). */
static lg_err_t write_page(const lg_report_input_t *in, lg_report_model_t *m,
                           const uint64_t *before, const uint64_t *after, FILE *out, lg_diag_t *d)
{
    lg_err_t err = LG_OK;
    if (m->sets == 0)
        err = lg_diag_fail(d, LG_EINVAL, "report", "cache geometry without sets");
    if (err == LG_OK) {
        fputs(page_head, out);
        write_summary(in, m, out);
        err = write_maps(in, m, before, after, out);
    }
    if (err == LG_OK) {
        write_clique_table(in, m, out);
        err = write_clique_details(in, m, out);
    }
    if (err == LG_OK)
        err = write_graph(in, m, out);
    if (err == LG_OK)
        err = write_groups(in, out);
    if (err == LG_OK)
        err = write_regions(in, out);
    if (err == LG_OK)
        err = write_left_out(in, out);
    if (err == LG_OK) {
        fputs(page_script, out);
        fputs("</body>\n</html>\n", out);
    }
    return err;
}

lg_err_t lg_report_write_html(const lg_report_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_report_write_with(in, write_page, out, d);
}
