/* callgrind.h - Valgrind callgrind profiles (format version 1): detect and read them.
 *
 * Format: valgrind callgrind/docs/cl-format.xml ("Callgrind Format Specification"), and the
 * writer callgrind/dump.c where the two differ; docs/loaders/callgrind.md says what lorgen reads
 * and how it maps the file onto lg_profile_t.
 *
 * In short: every function (fn=, cfn=) becomes one lg_pfunc_t, named as callgrind names it
 * without its recursion suffix ("f'2" is f) and qualified by its source file (fl=), or by its
 * object (ob=) when callgrind does not know the file ("???"). calls= lines give the edges and the
 * hits; regular cost lines the self cost; counter 1 and 2 are the first two events.
 */
#ifndef LG_CALLGRIND_H
#define LG_CALLGRIND_H

#include "diag.h"
#include "profile.h"
#include "source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line lorgen reads, bytes without the line end: longer means a corrupt file. */
#define LG_CALLGRIND_MAX_LINE (1024u * 1024u)
/* Most distinct names (objects, files and functions together) one file may define. */
#define LG_CALLGRIND_MAX_NAMES (16u * 1024u * 1024u)
/* Most event types one "events:" line may name. */
#define LG_CALLGRIND_MAX_EVENTS 256u

/* True when head (the first len bytes of a file) is a callgrind profile: its first line is
 * "# callgrind format", or it is "version: 1" and a later line of head starts with
 * "creator: callgrind", "events:" or "positions:". O(len). */
bool lg_callgrind_probe(const uint8_t *head, size_t len);

/* Reads a callgrind file from src into out (lg_read_fn, see source.h; lg_load_file and
 * lg_load_memory leave out empty on failure). The file is read line by line; memory grows with
 * the functions, names, edges and profiled positions, not with the length of the file.
 *
 * A part whose regular cost lines do not add up to its "summary:" or "totals:" line (a file cut
 * short, or with lines lost) fails like malformed input.
 *
 * On malformed input returns LG_EFORMAT (LG_ELIMIT past a limit above, LG_EUNSUPPORTED for a
 * format version other than 1) with one error diagnostic "PATH:LINE: expected ..., found ...",
 * LINE counting from 1. Lines lorgen does not know are skipped with one warning. */
lg_err_t lg_callgrind_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out);

#endif
