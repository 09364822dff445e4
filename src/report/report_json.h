/* report_json.h - the clique report for tools: the facts of the text report (report.h) as one
 * JSON document. docs/report-json.md describes every field; its schema_version changes whenever
 * a field changes meaning or goes away (adding a field does not change it).
 *
 * Unlike the text report, no table is capped: every clique member, every call touching a clique,
 * every unbound and not-movable function is listed. Members are in link order, calls in row
 * order (report_model.h). The output depends only on the inputs: identical inputs give identical
 * bytes.
 */
#ifndef LG_REPORT_JSON_H
#define LG_REPORT_JSON_H

#include "diag.h"
#include "report.h"

#include <stdio.h>

/* The document's "schema_version". */
#define LG_REPORT_JSON_SCHEMA_VERSION 2

/* Writes the report of in as JSON. Returns LG_OK, LG_ENOMEM or LG_EIO (write failed), or an
 * error of the address computation with a diagnostic in d. */
lg_err_t lg_report_write_json(const lg_report_input_t *in, FILE *out, lg_diag_t *d);

/* Writes s as a JSON string, quotes included: '"', '\\' and control characters are escaped
 * (\\n, \\t, ... or \\u00XX); valid UTF-8 is copied as it is; a byte that is not part of valid
 * UTF-8 is written as \\u00XX of its value (Latin-1), so the output is always valid UTF-8 and
 * names that are not UTF-8 stay distinguishable. */
void lg_json_write_string(FILE *out, const char *s);

#endif
