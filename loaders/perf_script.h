/* perf_script.h - read the text `perf script` prints for a perf.data recording (Linux perf).
 *
 * Shape (docs/loaders/perf-script.md has the full description and the model mapping):
 *
 *   # ========                                            '#' comment lines, anywhere
 *   func_ab 15285 [001] 28075374.517811: 10101 cpu-clock:  sample header
 *       400577 func_b+0x17 (/root/lang/func_ab)            frame 0: the sampled function
 *       4005b1 main+0x21 (/root/lang/func_ab)              frame 1: its caller, ...
 *                                                          a blank line ends the sample
 *
 * Header fields: COMM [PID/]TID [CPU] TIME: [PERIOD] EVENT: [frame or event data]. Without call
 * chains (`perf record` without -g) each sample is one header line carrying its frame.
 */
#ifndef LG_PERF_SCRIPT_H
#define LG_PERF_SCRIPT_H

#include "diag.h"
#include "profile.h"
#include "source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line lorgen reads, in bytes without the line end. Demangled C++ names reach kilobytes;
 * a line of a megabyte is not perf output. */
#define LG_PERF_SCRIPT_MAX_LINE (1024u * 1024u)
/* Most frames one sample may have. perf stops at kernel.perf_event_max_stack (127 unless
 * raised); more than this means the blank lines between samples are missing. */
#define LG_PERF_SCRIPT_MAX_FRAMES (64u * 1024u)
/* Most distinct event names one file may hold (tracepoint-heavy recordings have hundreds). */
#define LG_PERF_SCRIPT_MAX_EVENTS 4096u

/* True when head (the first len bytes of a file) starts like `perf script` output: after any '#'
 * comment lines, a sample header followed by a frame (on the header line or the next line). A
 * head holding only perf's '#' header block is also accepted. Reads head only; O(len). */
bool lg_perf_script_probe(const uint8_t *head, size_t len);

/* Reads `perf script` output from src into out (lg_read_fn, see source.h; lg_load_file and
 * lg_load_memory leave out empty on failure), only the samples of options->event (borrowed;
 * NULL: the first event in the file; samples of other events are then skipped with one warning
 * naming them). The event matches a sample's event name exactly ("cycles:ppp") or without its
 * modifier suffix ("cycles" matches "cycles:ppp" and "cycles:u"; all matching events are read).
 *
 * Returns LG_OK; LG_EIO when the file cannot be read; LG_EFORMAT on malformed input, with one
 * error "path:LINE: expected ..., found '...'"; LG_ELIMIT past the LG_PERF_SCRIPT_MAX_* limits
 * or LG_PROFILE_MAX_FUNCS; LG_EINVAL when no sample has the requested event (the error lists the
 * events present); LG_ENOMEM.
 *
 * Streams the file line by line: memory grows with the number of functions, call edges and
 * event names, not with the number of samples. O(total line length). */
lg_err_t lg_perf_script_read(lg_source_t *src, const lg_load_options_t *options,
                             lg_profile_t *out);

#endif
