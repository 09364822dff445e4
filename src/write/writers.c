/* writers.c - the writer table: each output kind's writer in the one shape of writers.h. */
#include "writers.h"

#include "emit_callgraph.h"
#include "emit_graph.h"
#include "emit_ld.h"
#include "emit_order.h"
#include "report_html.h"
#include "report_json.h"

static lg_err_t write_lor(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    (void)d;
    return lg_lor_write(in->lor, out);
}

static lg_err_t write_ld_script(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_emit_ld_script(in->lor, out, d);
}

static lg_err_t write_ld_include(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_emit_ld_include(in->lor, out, d);
}

static lg_err_t write_section_ordering(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_emit_ld_ordering(in->lor, out, d);
}

static lg_err_t write_gold(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_emit_gold_sections(in->lor, out, d);
}

static lg_err_t write_lld(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_emit_lld_symbols(in->lor, in->prog, out, d);
}

static lg_err_t write_report(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    (void)d;
    return lg_report_write(in->report, out);
}

static lg_err_t write_report_html(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_report_write_html(in->report, out, d);
}

static lg_err_t write_report_json(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return lg_report_write_json(in->report, out, d);
}

/* The graph exports, from the program when it is bound, else from the profiles. */
static lg_err_t write_graph(const lg_write_input_t *in, lg_graph_format_t format, FILE *out,
                            lg_diag_t *d)
{
    if (in->prog != NULL)
        return lg_emit_graph_program(in->prog, format, out, d);
    return lg_emit_graph_profiles(in->profiles, in->nprofiles, format, out, d);
}

static lg_err_t write_dot(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return write_graph(in, LG_GRAPH_DOT, out, d);
}

static lg_err_t write_graphml(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    return write_graph(in, LG_GRAPH_GRAPHML, out, d);
}

static lg_err_t write_callgraph(const lg_write_input_t *in, FILE *out, lg_diag_t *d)
{
    if (in->prog != NULL)
        return lg_emit_callgraph_program(in->prog, out, d);
    return lg_emit_callgraph_profiles(in->profiles, in->nprofiles, out, d);
}

const lg_writer_fn lg_writers[LG_OUTPUT_COUNT] = {
    [LG_OUTPUT_LOR] = write_lor,
    [LG_OUTPUT_LD_SCRIPT] = write_ld_script,
    [LG_OUTPUT_LD_INCLUDE] = write_ld_include,
    [LG_OUTPUT_SECTION_ORDERING] = write_section_ordering,
    [LG_OUTPUT_GOLD] = write_gold,
    [LG_OUTPUT_LLD] = write_lld,
    [LG_OUTPUT_REPORT] = write_report,
    [LG_OUTPUT_REPORT_HTML] = write_report_html,
    [LG_OUTPUT_REPORT_JSON] = write_report_json,
    [LG_OUTPUT_DOT] = write_dot,
    [LG_OUTPUT_GRAPHML] = write_graphml,
    [LG_OUTPUT_CALLGRAPH] = write_callgraph,
};
