/* report.h - the clique report: what a person reads to review a link order.
 *
 * A summary first (inputs, functions bound and unbound, cache geometry, hot code against the
 * cache, estimated misses before and after with what the estimate leaves out and what it can
 * and cannot tell), the cliques by placement's weight (self cost when the
 * profiles give one, else hits), then one block per clique in link order (size and cache fill,
 * hits and weight, its functions with size, hits, weight and shares, the heaviest calls inside
 * it and across its boundary), then what was left out and why. Fixed-width
 * columns; rows sorted by weight with ties broken by name; max_rows caps every table, whose
 * TOTAL line still counts every row; so the report is byte-for-byte stable.
 *
 * The same facts for tools and as a picture: report_json.h, report_html.h.
 */
#ifndef LG_REPORT_H
#define LG_REPORT_H

#include "diag.h"
#include "report_input.h"

#include <stdio.h>

lg_err_t lg_report_write(const lg_report_input_t *in, FILE *out);

#endif
