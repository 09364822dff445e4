/* aprof.h - read aprof report files (.aprof): the input-sensitive profiler for Valgrind by Coppa,
 * Demetrescu and Finocchi.
 *
 * A report is text, one item per line, each line starting with a one-letter tag (docs/loaders/
 * aprof.md gives the grammar of every report version, 0 to 6, and how lorgen maps it):
 *
 *   v 6                                     report version (no v line: version 0)
 *   m bb-count                              cost metric
 *   r "routine name" "image path" ID        a routine
 *   u ID "mangled name"                     its mangled name
 *   p ID RMS ... OCC ...                    a performance tuple of routine ID (calls, costs)
 *   q CTX RMS ... OCC ...                   the same for calling context CTX
 *   x ID CTX PARENT                         calling-context tree node CTX of routine ID
 *
 * aprof instruments every call, so the profile is a trace: hits are exact call counts. Reports
 * with a calling-context tree (x and q lines) give call edges; reports with p lines give hotness
 * only.
 */
#ifndef LG_APROF_H
#define LG_APROF_H

#include "diag.h"
#include "profile.h"
#include "source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The newest report version lorgen reads (aprof's REPORT_VERSION 6, "1.6"). */
#define LG_APROF_MAX_VERSION 6u
/* Longest line lorgen accepts, in bytes: routine names are at most a few KiB, so a longer line
 * means a file that is not a report (or a corrupt one). */
#define LG_APROF_MAX_LINE_BYTES (1u * 1024u * 1024u)
/* Most calling contexts one report may declare: each costs about 64 bytes of memory. */
#define LG_APROF_MAX_CONTEXTS (32u * 1024u * 1024u)

/* True when head (the first len bytes of a file) reads as an aprof report: every complete
 * line is a well-formed line of a known tag, and at least one is a v, r, u, d, p, q or x line.
 * Text formats whose lines start with other words (perf script, callgrind) are not claimed. */
bool lg_aprof_probe(const uint8_t *head, size_t len);

/* Reads an aprof report from src into out (lg_read_fn, see source.h; lg_load_file and
 * lg_load_memory leave out empty on failure). One function per r line (functions with the same
 * name, mangled name and image are one function); hits are the calls the p or q tuples count,
 * counter 1 the cost in the report's metric.
 *
 * On malformed input returns LG_EFORMAT (LG_EUNSUPPORTED for a version above
 * LG_APROF_MAX_VERSION, LG_ELIMIT past a limit above) with one error diagnostic whose location
 * is "path:LINE". The file is read line by line: memory grows with the routines and contexts,
 * not with the number of lines. */
lg_err_t lg_aprof_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out);

#endif
