/* report_calls.c - a clique's calls as the text and HTML reports list them; see report_calls.h. */
#include "report_calls.h"

#include <inttypes.h>
#include <stdio.h>

/* One list: the first rows up to the cap, sorted, then the rest summed. */
static lg_err_t write_list(const lg_report_input_t *in, lg_report_row_t *rows, size_t n,
                           const char *title, bool boundary, const lg_report_call_style_t *style,
                           FILE *out)
{
    if (n == 0)
        return LG_OK;
    const lg_program_t *prog = in->prog;
    size_t shown = in->max_rows && n > in->max_rows ? in->max_rows : n;
    LG_CHECK(lg_report_sort_rows(prog, rows, n, shown));
    style->begin(out, title, boundary);
    for (size_t i = 0; i < shown; i++) {
        char other[LG_REPORT_OTHER_SIDE_BYTES];
        if (rows[i].other_clique == LG_REPORT_NO_CLIQUE)
            snprintf(other, sizeof other, "outside the cliques");
        else
            snprintf(other, sizeof other, "%s clique %" PRIu32, rows[i].outgoing ? "to" : "from",
                     rows[i].other_clique + 1);
        style->row(out, prog, rows[i].arc, boundary ? other : NULL);
    }
    if (shown < n)
        style->rest(out, n - shown, lg_report_rows_weight(rows + shown, n - shown), boundary);
    if (style->end != NULL)
        style->end(out);
    return LG_OK;
}

lg_err_t lg_report_write_calls(const lg_report_input_t *in, const lg_report_model_t *m, size_t c,
                               const lg_report_call_style_t *style, FILE *out)
{
    lg_report_row_t *rows = m->rows + m->first[c];
    size_t nin = m->ninside[c], nrows = m->first[c + 1] - m->first[c];
    LG_CHECK(write_list(in, rows, nin, "calls inside", false, style, out));
    return write_list(in, rows + nin, nrows - nin, "calls across its boundary", true, style, out);
}
