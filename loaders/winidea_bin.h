/* winidea_bin.h - winIDEA's binary timeline (.BIN next to a Text1 or XML export): headerless
 * 24-byte little-endian records, layout version 1.0 or 1.1 (../shared/research/formats.md A.1;
 * docs/loaders/winidea-bin.md has the detection rule and what is assumed).
 *   v1.1: HANDLE u32, FLAGS u32 (core = (FLAGS >> 4) & 0xFF, 0xFF unknown; type = FLAGS & 0xF),
 *         DATA u64, TIME s64 ns
 *   v1.0: HANDLE u32, EVENT u32 (type = (EVENT >> 24) & 0xF), DATA u64, TIME s64 ns
 * Types: 0 Exit, 1 Suspend, 2 Resume, 3 Entry, 4 Data write. The file does not say its version.
 */
#ifndef LG_WINIDEA_BIN_H
#define LG_WINIDEA_BIN_H

#include "diag.h"
#include "source.h"
#include "timeline.h"
#include "winidea_map.h"

#include <stddef.h>
#include <stdint.h>

#define LG_WI_BIN_RECORD_BYTES 24u
/* Files of at least this many bytes (8 MiB, about 10 ms of reading) are read by two threads:
 * one reads and decodes the records, the calling thread hands their events to the timeline
 * (winidea_bin.c). The outputs and messages are the same either way; below it a thread would
 * cost more than it saves. */
#define LG_WI_BIN_PIPELINE_MIN_BYTES (8u * 1024u * 1024u)

typedef enum lg_wi_bin_version {
    LG_WI_BIN_DETECT = 0,
    LG_WI_BIN_V1_0 = 10,
    LG_WI_BIN_V1_1 = 11,
} lg_wi_bin_version_t;

/* The layout version the first records in data (len bytes, whole records) show: 1.1 when every
 * FLAGS word has bits 12-31 clear and a type of at most 4, 1.0 when every EVENT word has bits 0-3
 * clear and a type (bits 24-27) of at most 4, 1.1 when both fit (only Exits: then the readings
 * differ only in the core); LG_WI_BIN_DETECT when neither does. Looks at no more than the first
 * 65536 records. */
lg_wi_bin_version_t lg_wi_bin_detect(const uint8_t *data, size_t len);

/* Streams the records of path through map into timeline: stream = core index for 1.1 (0xFF,
 * unknown, is a stream of its own), stream 0 for 1.0. version LG_WI_BIN_DETECT detects it.
 * Data writes and areas that are not functions are skipped. A file of at least
 * LG_WI_BIN_PIPELINE_MIN_BYTES is read on a thread of its own while the calling thread feeds the
 * timeline: the same results and messages (one thread when no thread can be had). options (may
 * be NULL): progress, when set, is told on the calling thread how far the reading got, at most
 * every LG_SOURCE_PROGRESS_BYTES and at the end. Errors, one diagnostic each, naming the file
 * and, for a record, its byte offset and index ("PATH:0xOFFSET: record N"): size not a multiple
 * of 24, an unknown handle, an unknown event type, undetectable version, and the timeline's
 * LG_ELIMIT. Returns LG_OK, LG_EIO, LG_EFORMAT, LG_EINVAL (version), LG_ELIMIT, LG_ENOMEM. Does
 * not finish the timeline. */
lg_err_t lg_wi_bin_read(const char *path, lg_wi_bin_version_t version, const lg_wi_map_t *map,
                        lg_timeline_t *timeline, const lg_load_options_t *options, lg_diag_t *d);

/* Tests only: sets the size from which lg_wi_bin_read uses two threads (default
 * LG_WI_BIN_PIPELINE_MIN_BYTES; UINT64_MAX never) and returns the previous one, so that both ways
 * are tested on small files. */
uint64_t lg_i_wi_bin_set_pipeline_min(uint64_t bytes);

/* Tests only: while idle is true, the reader thread of two reads no chunk, so that the calling
 * thread reads them all (as it does when the chunk it needs is not ready); returns the previous
 * setting. */
bool lg_i_wi_bin_set_reader_idle(bool idle);

#endif
