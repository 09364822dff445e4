/* winidea_export.h - what the Text1 and XML readers of a winIDEA profiler export share: the
 * export being built (mapping, statistics, timeline), the field syntax both formats use, and
 * the binary timeline (.BIN) next to the main file.
 *
 * Definitions:
 *   main file   the Text1 or XML export the user names; it holds the mapping (handle -> area),
 *               maybe statistics, maybe a timeline
 *   .BIN        the binary timeline winIDEA writes next to the main file when "timeline in a
 *               binary file" is checked; lg_wi_bin_find says where it is looked for
 *   stream      one shadow stack of the timeline builder: one per (core, context) pair seen in
 *               a text or XML timeline, numbered densely in order of appearance
 *
 * The timeline decides the profile when there is one (exact calls, net and gross times); the
 * statistics give hits and times only when there is none. Line statistics give per-line costs
 * either way. docs/loaders/winidea.md describes the whole mapping onto lg_profile_t.
 */
#ifndef LG_WINIDEA_EXPORT_H
#define LG_WINIDEA_EXPORT_H

#include "diag.h"
#include "intmap.h"
#include "profile.h"
#include "source.h"
#include "strmap.h"
#include "timeline.h"
#include "winidea_map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Event codes: winIDEA's event types (the .BIN values); the letters are E S R X W. */
#define LG_WI_EVENT_WRITE 4u /* a data write: never part of the call graph */

/* The code of an event written as a letter (E, S, R, X, W), as the numeric type 0-4, or as a
 * word (ENTRY or ENTER, SUSPEND, RESUME, EXIT, WRITE), in either case; -1 when t is none. */
int lg_wi_event_code(const char *t, size_t n);

/* Field syntax; t is not NUL-terminated, surrounding blanks are not allowed. */
/* A handle: 1-8 hexadecimal digits, with or without 0x. */
bool lg_wi_parse_handle(const char *t, size_t n, uint32_t *value);
/* An unsigned count or time: lg_parse_u64(t, n, LG_NUMBER_HEX_PREFIX, value) (source.h). */
/* A signed time in ns or a core index: an optional '-', then decimal or 0x hexadecimal. */
bool lg_wi_parse_s64(const char *t, size_t n, int64_t *value);

/* Finds the binary timeline of main_path: the first regular file of MAIN.BIN, MAIN.bin, then
 * MAIN with its extension (the part after the last '.' of the file name) replaced by .BIN and
 * .bin. *bin receives a new string, or NULL when there is none. Returns LG_OK or LG_ENOMEM. */
lg_err_t lg_wi_bin_find(const char *main_path, char **bin);

/* Per-function statistics kept until it is known whether a timeline supersedes them. */
typedef struct lg_wi_stat {
    uint64_t count, net, gross;
} lg_wi_stat_t;

typedef struct lg_wi_export {
    lg_profile_t *out;
    lg_wi_map_t *map;
    lg_timeline_t *timeline; /* created by the first event fed, or for the .BIN */
    bool proximity;          /* the timeline counts proximity pairs (not skip_proximity) */
    char *bin_path;          /* the .BIN next to the main file, or NULL */

    lg_wi_stat_t *stats; /* per profile function */
    size_t stats_cap;

    /* Contexts by name, and streams by (core, context) */
    lg_strmap_t contexts;
    char **context_names;
    size_t ncontexts, context_names_cap;
    lg_intmap_t core_no; /* core -> its number, in first-seen order */
    lg_intmap_t streams; /* (core number, context or NONE) -> stream */
    /* The last stream looked up: consecutive events mostly share one. */
    int64_t last_core;
    uint32_t last_context, last_stream;
    char *last_context_text;
    size_t last_context_len, last_context_cap;
} lg_wi_export_t;

/* Starts an export read into out (initialised by the caller): sets out's path and format and
 * looks for the .BIN next to path when find_bin; keeps options' skip_proximity for the timeline
 * (options may be NULL). Returns LG_OK or LG_ENOMEM (with an error in d). */
lg_err_t lg_wi_export_init(lg_wi_export_t *x, lg_profile_t *out, const char *path,
                           const char *format, bool find_bin, const lg_load_options_t *options,
                           lg_diag_t *d);
void lg_wi_export_destroy(lg_wi_export_t *x);

/* Adds one statistics entry of a function (count, net and gross time in ns). Returns LG_OK or
 * LG_ENOMEM. */
lg_err_t lg_wi_export_function_stat(lg_wi_export_t *x, uint32_t func, uint64_t count, uint64_t net,
                                    uint64_t gross);

/* The stream of events of core (-1 or 0xFF when unknown; any value is only a key) and context
 * (its name or handle as text; n == 0 for none). Returns LG_OK, LG_ELIMIT past
 * LG_TL_MAX_STREAMS, LG_ENOMEM. */
lg_err_t lg_wi_export_stream(lg_wi_export_t *x, int64_t core, const char *context, size_t n,
                             uint32_t *stream);

/* Feeds one timeline event of a function (a profile index) to the timeline builder, creating it
 * at the first event. Returns LG_OK or LG_ENOMEM; LG_EINVAL only for arguments out of range. */
lg_err_t lg_wi_export_event(lg_wi_export_t *x, uint32_t stream, uint32_t func, lg_tl_kind_t kind,
                            int64_t time_ns);

/* True once the first timeline event has been fed: the mapping may not grow any more. */
bool lg_wi_export_has_timeline(const lg_wi_export_t *x);

/* Reads the .BIN (if any) through the mapping, then finishes the profile: from the timeline
 * when one had events, else from the statistics. Errors of the .BIN reader name the .BIN.
 * Returns LG_OK, LG_EINVAL (options->bin_version not 0, 10 or 11), or the .BIN reader's and the
 * timeline builder's errors. */
lg_err_t lg_wi_export_finish(lg_wi_export_t *x, const lg_load_options_t *options, lg_diag_t *d);

#endif
