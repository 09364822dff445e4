/* report_json.c - the clique report as JSON; see report_json.h and docs/report-json.md.
 *
 * A small streaming emitter: containers open and close, values follow keys, commas and
 * indentation come from the nesting. A record (one function, one call) is written on one line,
 * the rest indented by two spaces a level, so a diff of two reports reads line by line.
 */
#include "report_json.h"

#include "fast_region.h"
#include "report_model.h"
#include "report_regions.h"
#include "utf8.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Deepest nesting of the document (report > cliques > clique > functions > function). */
#define JSON_MAX_DEPTH 8
#define JSON_INDENT 2 /* spaces per level */

void lg_json_write_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p != '\0') {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
            p++;
        } else if (c < 0x20) {
            static const char short_forms[] = "\b\f\n\r\t";
            static const char letters[] = "bfnrt";
            const char *k = strchr(short_forms, (int)c);
            if (k != NULL)
                fprintf(out, "\\%c", letters[k - short_forms]);
            else
                fprintf(out, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc((int)c, out);
            p++;
        } else {
            size_t len = lg_utf8_seq_len(p);
            if (len == 0) {
                fprintf(out, "\\u%04x", c);
                p++;
            } else {
                fwrite(p, 1, len, out);
                p += len;
            }
        }
    }
    fputc('"', out);
}

typedef struct json {
    FILE *out;
    int depth;
    bool empty[JSON_MAX_DEPTH];   /* no member written yet at this level */
    bool inline_[JSON_MAX_DEPTH]; /* this container is written on one line */
} json_t;

/* Separator and indentation before the next member of the current container. */
static void next_member(json_t *j)
{
    if (j->depth == 0)
        return;
    if (!j->empty[j->depth])
        fputc(',', j->out);
    if (j->inline_[j->depth])
        fputs(j->empty[j->depth] ? "" : " ", j->out);
    else
        fprintf(j->out, "\n%*s", j->depth * JSON_INDENT, "");
    j->empty[j->depth] = false;
}

static void key(json_t *j, const char *name)
{
    next_member(j);
    if (name != NULL) {
        lg_json_write_string(j->out, name);
        fputs(": ", j->out);
    }
}

/* Opens an object ('{') or array ('['), as member `name` of an object or (NULL) of an array. */
static void json_open(json_t *j, const char *name, char bracket, bool one_line)
{
    key(j, name);
    fputc(bracket, j->out);
    j->depth++;
    j->empty[j->depth] = true;
    j->inline_[j->depth] = one_line || j->inline_[j->depth - 1];
}

static void json_close(json_t *j, char bracket)
{
    bool was_empty = j->empty[j->depth], was_inline = j->inline_[j->depth];
    j->depth--;
    if (!was_empty && !was_inline)
        fprintf(j->out, "\n%*s", j->depth * JSON_INDENT, "");
    fputc(bracket, j->out);
}

static void put_uint(json_t *j, const char *name, uint64_t v)
{
    key(j, name);
    fprintf(j->out, "%" PRIu64, v);
}

static void put_str(json_t *j, const char *name, const char *s)
{
    key(j, name);
    if (s == NULL)
        fputs("null", j->out);
    else
        lg_json_write_string(j->out, s);
}

static void put_bool(json_t *j, const char *name, bool v)
{
    key(j, name);
    fputs(v ? "true" : "false", j->out);
}

static void put_null(json_t *j, const char *name)
{
    key(j, name);
    fputs("null", j->out);
}

/* Addresses as hex strings: 64-bit values do not survive JSON readers that use doubles. */
static void put_address(json_t *j, const char *name, const uint64_t *addr, uint32_t fn)
{
    if (addr == NULL || addr[fn] == UINT64_MAX) {
        put_null(j, name);
        return;
    }
    key(j, name);
    fprintf(j->out, "\"0x%" PRIx64 "\"", addr[fn]);
}

/* A phased function's phase (lg_fn_t.lead: bytes from its line's start to its code); null for
 * one whose start lorgen left to the linker's alignment. */
static void put_phase(json_t *j, const lg_fn_t *fn)
{
    if (fn->flags & LG_FN_PHASED)
        put_uint(j, "phase", fn->lead);
    else
        put_null(j, "phase");
}

static void write_inputs(json_t *j, const lg_report_input_t *in)
{
    json_open(j, "inputs", '{', false);
    json_open(j, "profiles", '[', false);
    for (size_t i = 0; i < in->nprofiles; i++) {
        const lg_profile_t *p = in->profiles[i].profile;
        json_open(j, NULL, '{', true);
        put_str(j, "path", p->path);
        put_str(j, "format", p->format);
        put_str(j, "kind", p->kind == LG_PROFILE_TRACE ? "trace" : "statistical");
        put_uint(j, "functions", p->nfuncs);
        if (p->kind == LG_PROFILE_TRACE)
            put_uint(j, "call_records", p->call_records);
        else
            put_null(j, "call_records");
        if (p->has_call_edges)
            put_uint(j, "call_edges", p->nedges);
        else
            put_null(j, "call_edges");
        key(j, "scale");
        fprintf(j->out, "%.17g", in->profiles[i].scale);
        put_uint(j, "hits_as_read", lg_profile_volume(p));
        json_close(j, '}');
    }
    json_close(j, ']');
    json_open(j, "elf", '[', false);
    if (in->lor != NULL)
        for (size_t i = 0; i < in->lor->ninputs; i++)
            if (strcmp(in->lor->inputs[i].kind, "elf") == 0)
                put_str(j, NULL, in->lor->inputs[i].path);
    json_close(j, ']');
    put_bool(j, "normalized", in->normalized && in->nprofiles > 1);
    json_close(j, '}');
}

static void write_summary(json_t *j, const lg_report_input_t *in, const lg_report_model_t *m)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    json_open(j, "summary", '{', false);
    put_uint(j, "functions", prog->nfns);
    put_uint(j, "profiled_bound", prog->nprofiled);
    put_uint(j, "profiled_unbound", prog->nunbound);
    put_uint(j, "not_movable", layout->nexcluded);
    put_uint(j, "cold", layout->ncold);
    json_open(j, "cache", '{', true);
    put_uint(j, "size", layout->geometry.cache_size);
    put_uint(j, "line_size", layout->geometry.line_size);
    put_uint(j, "ways", layout->geometry.ways);
    put_uint(j, "sets", m->sets);
    json_close(j, '}');
    put_str(j, "algorithm", layout->algorithm ? layout->algorithm : "cliques");
    put_uint(j, "cliques", layout->ncliques);
    put_uint(j, "hot_bytes", m->hot_bytes);
    put_uint(j, "hot_functions", m->hot_fns);
    put_uint(j, "filler_bytes", m->all_bytes - m->hot_bytes);
    put_uint(j, "filler_functions", m->filler_fns);
    put_uint(j, "total_hits", m->total_hits);
    json_open(j, "weight", '{', true);
    put_str(j, "unit", m->weight_unit);
    put_bool(j, "self_cost", m->weight_is_cost);
    put_uint(j, "total", m->total_weight);
    json_close(j, '}');
    put_bool(j, "has_call_edges", prog->has_call_edges);
    put_bool(j, "sections_inferred", prog->sections_inferred);
    if (in->estimated) {
        json_open(j, "estimated_misses", '{', false);
        put_uint(j, "elf", in->misses_before);
        put_uint(j, "new", in->misses_after);
        put_uint(j, "replayed_weight", m->bound_weight);
        put_uint(j, "profile_weight",
                 m->profile_weight > m->bound_weight ? m->profile_weight : m->bound_weight);
        put_bool(j, "fast_regions_uncached", in->lor != NULL && in->lor->nregions > 0);
        put_str(j, "limits", LG_REPORT_ESTIMATE_LIMITS);
        json_close(j, '}');
    } else {
        put_null(j, "estimated_misses");
    }
    json_close(j, '}');
}

static lg_err_t write_rows(json_t *j, const char *name, const lg_program_t *prog,
                           lg_report_row_t *rows, size_t n, bool boundary)
{
    LG_CHECK(lg_report_sort_rows(prog, rows, n, n));
    json_open(j, name, '[', false);
    for (size_t i = 0; i < n; i++) {
        const lg_arc_t *a = rows[i].arc;
        json_open(j, NULL, '{', true);
        put_str(j, "caller", prog->fns[a->caller].symbol);
        put_str(j, "callee", prog->fns[a->callee].symbol);
        put_uint(j, "weight", a->weight);
        if (boundary) {
            put_str(j, "direction", rows[i].outgoing ? "out" : "in");
            if (rows[i].other_clique == LG_REPORT_NO_CLIQUE)
                put_null(j, "other_clique");
            else
                put_uint(j, "other_clique", (uint64_t)rows[i].other_clique + 1);
        }
        json_close(j, '}');
    }
    json_close(j, ']');
    return LG_OK;
}

static lg_err_t write_cliques(json_t *j, const lg_report_input_t *in, lg_report_model_t *m,
                              const uint64_t *before, const uint64_t *after)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    json_open(j, "cliques", '[', false);
    for (size_t c = 0; c < layout->ncliques; c++) {
        const lg_clique_t *cl = &layout->cliques[c];
        uint64_t *offsets = malloc((cl->nfns ? cl->nfns : 1) * sizeof *offsets);
        if (offsets == NULL)
            return LG_ENOMEM;
        lg_report_clique_offsets(prog, cl, offsets);
        json_open(j, NULL, '{', false);
        put_uint(j, "index", c + 1);
        put_uint(j, "bytes", cl->bytes);
        put_uint(j, "hits", cl->hits);
        put_uint(j, "weight", m->clique_weight[c]);
        put_uint(j, "pad_before", cl->pad_before);
        json_open(j, "flags", '[', true);
        if (cl->flags & LG_CLIQUE_OVERSIZED)
            put_str(j, NULL, "oversized");
        if (cl->flags & LG_CLIQUE_NO_CALLS)
            put_str(j, NULL, "no_calls");
        if (cl->flags & LG_CLIQUE_FILLER)
            put_str(j, NULL, "filler");
        json_close(j, ']');
        json_open(j, "functions", '[', false);
        for (size_t i = 0; i < cl->nfns; i++) {
            uint32_t f = cl->fns[i];
            const lg_fn_t *fn = &prog->fns[f];
            json_open(j, NULL, '{', true);
            put_str(j, "name", fn->symbol);
            put_uint(j, "offset", offsets[i]);
            put_uint(j, "size", fn->size);
            put_uint(j, "hits", fn->hits);
            put_uint(j, "weight", lg_report_fn_weight(m, fn));
            put_str(j, "section", fn->section);
            put_bool(j, "section_inferred", (fn->flags & LG_FN_SECTION_INFERRED) != 0);
            put_address(j, "address", before, f);
            put_address(j, "new_address", after, f);
            put_phase(j, fn);
            json_close(j, '}');
        }
        json_close(j, ']');
        free(offsets);
        size_t nin = m->ninside[c], nrows = m->first[c + 1] - m->first[c];
        lg_err_t err = write_rows(j, "calls_inside", prog, m->rows + m->first[c], nin, false);
        if (err == LG_OK)
            err = write_rows(j, "calls_across", prog, m->rows + m->first[c] + nin, nrows - nin,
                             true);
        if (err != LG_OK)
            return err;
        json_close(j, '}');
    }
    json_close(j, ']');
    return LG_OK;
}

static void write_left_out(json_t *j, const lg_report_input_t *in)
{
    const lg_program_t *prog = in->prog;
    const lg_layout_t *layout = in->layout;
    json_open(j, "left_out", '{', false);
    json_open(j, "unbound", '[', false);
    for (size_t i = 0; i < prog->nunbound; i++) {
        json_open(j, NULL, '{', true);
        put_str(j, "name", prog->unbound[i].name);
        put_uint(j, "hits", prog->unbound[i].hits);
        put_str(j, "reason", prog->unbound[i].reason);
        json_close(j, '}');
    }
    json_close(j, ']');
    json_open(j, "not_movable", '[', false);
    for (size_t i = 0; i < layout->nexcluded; i++) {
        const lg_fn_t *fn = &prog->fns[layout->excluded[i]];
        json_open(j, NULL, '{', true);
        put_str(j, "name", fn->symbol);
        put_uint(j, "hits", fn->hits);
        put_str(j, "section", fn->section);
        put_str(j, "reason", lg_fn_unmovable_reason(fn));
        json_close(j, '}');
    }
    json_close(j, ']');
    put_uint(j, "cold", layout->ncold);
    json_close(j, '}');
}

/* The fixed groups list (report_model.h): each group with its clique (null: it stays, with
 * the reason), members and the member worth building apart. */
static lg_err_t write_groups(json_t *j, const lg_report_input_t *in)
{
    const lg_program_t *prog = in->prog;
    lg_report_groups_t groups;
    if (lg_report_groups_build(prog, in->layout, &groups) != LG_OK)
        return LG_ENOMEM;
    json_open(j, "groups", '[', false);
    for (size_t n = 0; n < groups.n; n++) {
        const lg_report_group_t *g = &groups.v[n];
        json_open(j, NULL, '{', false);
        if (g->clique != LG_REPORT_NO_CLIQUE) {
            put_uint(j, "clique", g->clique + 1ull);
            put_null(j, "stays");
        } else {
            put_null(j, "clique");
            put_str(j, "stays", lg_report_group_stays_reason(prog, g));
        }
        put_str(j, "object", prog->fns[g->head].object);
        put_str(j, "section", prog->fns[g->head].section);
        put_uint(j, "bytes", g->bytes);
        put_uint(j, "executed_bytes", g->executed_bytes);
        put_uint(j, "hits", g->hits);
        json_open(j, "members", '[', false);
        for (size_t k = 0; k < g->count; k++) {
            const lg_fn_t *f = &prog->fns[g->members[k]];
            json_open(j, NULL, '{', true);
            put_str(j, "name", f->symbol);
            put_uint(j, "size", f->size);
            put_uint(j, "hits", f->hits);
            json_close(j, '}');
        }
        json_close(j, ']');
        if (g->separate != UINT32_MAX)
            put_str(j, "separate", prog->fns[g->separate].symbol);
        else
            put_null(j, "separate");
        json_close(j, '}');
    }
    json_close(j, ']');
    lg_report_groups_destroy(&groups);
    return LG_OK;
}

/* The fast regions (report_regions.h): each region's bytes, members and share of the cost, the
 * executed code left out with why, and the calls between a region and the rest; null without
 * one. */
static lg_err_t write_regions(json_t *j, const lg_report_input_t *in)
{
    const lg_program_t *prog = in->prog;
    lg_report_regions_t rs;
    if (lg_report_regions_build(in, &rs) != LG_OK) {
        lg_report_regions_destroy(&rs);
        return LG_ENOMEM;
    }
    if (rs.nregions == 0) {
        put_null(j, "fast_regions");
        return LG_OK;
    }
    json_open(j, "fast_regions", '{', false);
    put_str(j, "unit", rs.counters ? "self_cost" : "hits");
    put_uint(j, "total", rs.total_value);
    json_open(j, "regions", '[', false);
    for (size_t r = 0; r < rs.nregions; r++) {
        const lg_lor_region_t *rg = &in->lor->regions[r];
        json_open(j, NULL, '{', false);
        put_str(j, "name", rg->name);
        put_uint(j, "size", rg->size);
        put_uint(j, "budget", rg->budget);
        put_uint(j, "bytes_used", rg->bytes);
        put_uint(j, "bytes_left", rg->budget - rg->bytes);
        put_uint(j, "held", rg->held);
        put_uint(j, "stubs", rg->stubs);
        json_open(j, "pinned", '[', true);
        for (size_t k = 0; k < rg->npinned; k++)
            put_str(j, NULL, rg->pinned[k]);
        json_close(j, ']');
        put_uint(j, "moved", rs.value[r]);
        key(j, "moved_percent");
        fprintf(j->out, "%.2f", lg_report_pct(rs.value[r], rs.total_value));
        json_open(j, "members", '[', false);
        for (size_t k = 0; k < rg->nfns; k++) {
            json_open(j, NULL, '{', true);
            put_str(j, "name", rg->fns[k].symbol);
            put_uint(j, "size", rg->fns[k].size);
            put_uint(j, "hits", rg->fns[k].hits);
            json_close(j, '}');
        }
        json_close(j, ']');
        json_close(j, '}');
    }
    json_close(j, ']');
    json_open(j, "left_out", '[', false);
    for (size_t i = 0; i < rs.nleft; i++) {
        const lg_fn_t *fn = &prog->fns[rs.left[i].index];
        json_open(j, NULL, '{', true);
        put_str(j, "name", fn->symbol);
        put_uint(j, "value", rs.left[i].weight);
        put_uint(j, "bytes", lg_fast_region_weight(fn));
        put_str(j, "reason", lg_report_region_left_reason(&rs, fn));
        json_close(j, '}');
    }
    json_close(j, ']');
    json_open(j, "crossing_calls", '[', false);
    for (size_t i = 0; i < rs.ncrossing; i++) {
        const lg_arc_t *a = rs.crossing[i].arc;
        json_open(j, NULL, '{', true);
        put_str(j, "caller", prog->fns[a->caller].symbol);
        put_str(j, "caller_side", lg_report_region_side(in, &rs, a->caller));
        put_str(j, "callee", prog->fns[a->callee].symbol);
        put_str(j, "callee_side", lg_report_region_side(in, &rs, a->callee));
        put_uint(j, "weight", a->weight);
        json_close(j, '}');
    }
    json_close(j, ']');
    put_str(j, "crossing_note", lg_report_region_crossing_note(&rs));
    json_close(j, '}');
    lg_report_regions_destroy(&rs);
    return LG_OK;
}

/* The document, once the model and the addresses are there (lg_report_writer_t). */
static lg_err_t write_document(const lg_report_input_t *in, lg_report_model_t *m,
                               const uint64_t *before, const uint64_t *after, FILE *out,
                               lg_diag_t *d)
{
    (void)d; /* every error here is LG_ENOMEM, which has no diagnostic */
    json_t j = {.out = out};
    json_open(&j, NULL, '{', false);
    put_str(&j, "schema", "lorgen-report");
    put_uint(&j, "schema_version", LG_REPORT_JSON_SCHEMA_VERSION);
    write_inputs(&j, in);
    write_summary(&j, in, m);
    lg_err_t err = write_cliques(&j, in, m, before, after);
    if (err == LG_OK)
        err = write_groups(&j, in);
    if (err == LG_OK)
        err = write_regions(&j, in);
    if (err == LG_OK) {
        write_left_out(&j, in);
        json_close(&j, '}');
        fputc('\n', out);
    }
    return err;
}

lg_err_t lg_report_write_json(const lg_report_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_report_write_with(in, write_document, out, d);
}
