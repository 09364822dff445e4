/* report_html.h - the clique report as one self-contained HTML page, for people reviewing an
 * order in a browser: the summary, the cache map before and after the new order, the cliques as
 * a sortable table, and the call graph of the hot code.
 *
 * Self-contained: inline CSS, inline SVG and a small inline script (table sorting), no fonts,
 * images, scripts or styles from anywhere else, so the file opens offline and can be mailed.
 *
 * The cache map draws one cell per cache set (sets = cache_size / line_size / ways), in rows of
 * LG_HTML_MAP_COLUMNS; when there are more than LG_HTML_MAP_MAX_CELLS sets, each cell covers
 * several consecutive sets. A cell takes the colour of the clique of the hottest function whose
 * code maps there, darker for more hits; a black frame marks a set where lines of one clique's
 * members outnumber the ways: members call each other, so there they evict each other. BEFORE
 * uses the linked ELF's addresses, AFTER the addresses the new order gets when linked at the
 * same start (the estimate's placement).
 *
 * The output depends only on the inputs: identical inputs give identical bytes.
 */
#ifndef LG_REPORT_HTML_H
#define LG_REPORT_HTML_H

#include "diag.h"
#include "report.h"

#include <stdio.h>

#define LG_HTML_MAP_COLUMNS 32u     /* cells per row of the cache map */
#define LG_HTML_MAP_MAX_CELLS 4096u /* cells per map, at most */
/* Functions the call graph draws at most (the hottest clique members), and calls among them. */
#define LG_HTML_GRAPH_MAX_NODES 60u
#define LG_HTML_GRAPH_MAX_EDGES 150u

/* Cells a map of geometry g draws: the sets, or LG_HTML_MAP_MAX_CELLS groups of them. */
uint32_t lg_report_html_cells(const lg_geometry_t *g);

/* Writes the page. Returns LG_OK, LG_ENOMEM, LG_EIO (write failed), or an error of the address
 * computation with a diagnostic in d. */
lg_err_t lg_report_write_html(const lg_report_input_t *in, FILE *out, lg_diag_t *d);

#endif
