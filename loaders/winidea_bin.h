/* winidea_bin.h - winIDEA's binary timeline (.BIN next to a Text1 or XML export): headerless
 * 24-byte little-endian records, layout version 1.0 or 1.1 (../shared/research/formats.md A.1;
 * docs/loaders/winidea.md has the detection rule).
 *   v1.1: HANDLE u32, FLAGS u32 (core = (FLAGS >> 4) & 0xFF, 0xFF unknown; type = FLAGS & 0xF),
 *         DATA u64, TIME s64 ns
 *   v1.0: HANDLE u32, EVENT u32 (type = (EVENT >> 24) & 0xF), DATA u64, TIME s64 ns
 */
#ifndef LG_WINIDEA_BIN_H
#define LG_WINIDEA_BIN_H

#include "diag.h"
#include "registry.h"
#include "timeline.h"
#include "winidea_map.h"

#include <stddef.h>
#include <stdint.h>

#define LG_WI_BIN_RECORD_BYTES 24u

typedef enum lg_wi_bin_version {
    LG_WI_BIN_DETECT = 0,
    LG_WI_BIN_V1_0 = 10,
    LG_WI_BIN_V1_1 = 11,
} lg_wi_bin_version_t;

/* The layout version the records in data (len bytes, whole records) show, by the documented
 * rule; LG_WI_BIN_DETECT when they fit neither layout. */
lg_wi_bin_version_t lg_wi_bin_detect(const uint8_t *data, size_t len);

/* Streams the records of path through map into timeline (one stream per core). version
 * LG_WI_BIN_DETECT detects it. options->progress, when set, is told how far it got.
 * Errors (with path and byte offset / record index): size not a multiple of 24, an unknown
 * handle, an unknown event type, undetectable version. Returns LG_OK, LG_EIO, LG_EFORMAT,
 * LG_ENOMEM. */
lg_err_t lg_wi_bin_read(const char *path, lg_wi_bin_version_t version, const lg_wi_map_t *map,
                        lg_timeline_t *timeline, const lg_load_options_t *options, lg_diag_t *d);

#endif
