/* timeline.h - from a time-ordered stream of Entry / Suspend / Resume / Exit events to what the
 * optimizer uses: caller -> callee call counts, net and gross time per function, and temporal
 * proximity (which functions run close together in time).
 *
 * Timeline formats (winIDEA .BIN, the Text1 and XML timelines) resolve each event's area to a
 * profile function and feed the events here in file order. Events of different streams (cores,
 * or contexts within a core) may interleave; each stream has its own shadow stack. Memory grows
 * with functions, streams and distinct function pairs, never with the number of events.
 *
 * What lands in the profile at lg_timeline_finish:
 *   hits             += Entry events of the function
 *   counter1_total   += gross time in ns (Entry to Exit, callees included; a call of f made
 *                       directly by f adds nothing, it is inside the outer call's time)
 *   counter1_self    += net time in ns (callees and suspended spans excluded)
 *   edges            caller -> callee, one per Entry of callee while caller is on top of the
 *                    stream's stack
 *   proximity        pairs that ran close together (the rule is in timeline.c and
 *                    docs/loaders/winidea-bin.md), when asked for at lg_timeline_create
 *   call_records     += Entries that had a caller on top
 *   kind = LG_PROFILE_TRACE, has_call_edges = true, has_timeline = true, counter1_unit = "ns"
 * Streams that start inside calls, are cut at the end, have an Exit that is not on top, or go
 * back in time are repaired by documented rules; every repair is counted (lg_tl_stats_t) and
 * reported in one warning by lg_timeline_finish, never silently.
 */
#ifndef LG_TIMELINE_H
#define LG_TIMELINE_H

#include "diag.h"
#include "profile.h"

#include <stdbool.h>
#include <stdint.h>

/* Event kinds; the values are winIDEA's event type codes. */
typedef enum lg_tl_kind {
    LG_TL_EXIT = 0,    /* the function returns */
    LG_TL_SUSPEND = 1, /* the function calls another (or is preempted) */
    LG_TL_RESUME = 2,  /* the function continues after a call (or preemption) */
    LG_TL_ENTRY = 3,   /* the function is called */
} lg_tl_kind_t;

/* Most streams (cores x contexts) one timeline may have. */
#define LG_TL_MAX_STREAMS 4096u
/* The proximity rule (timeline.c, docs/loaders/winidea-bin.md). How far back "close together in
 * time" reaches, in distinct entered functions: Gloy and Smith size their window by the cache,
 * and 16 functions of typical embedded size (a few hundred bytes) fill a small instruction
 * cache. */
#define LG_TL_PROXIMITY_WINDOW 16u
/* Re-entering one of this many most recently entered functions adds no proximity weight. */
#define LG_TL_PROXIMITY_RECENT 2u
/* Most open frames one stream may have (24 bytes each): deeper means Exits are missing. */
#define LG_TL_MAX_DEPTH (1u << 20)

/* How often each repair rule was applied; all zero for a well-formed timeline. */
typedef struct lg_tl_stats {
    uint64_t events;         /* events fed */
    uint64_t started_inside; /* Exit / Suspend / Resume of a function with no open frame on an
                                empty stack: a frame is assumed open since the stream began */
    uint64_t exit_not_top;   /* Exit / Suspend / Resume of a function below the top: the frames
                                above it closed */
    uint64_t open_at_end;    /* frames still open at the end: closed at the stream's last time */
    uint64_t time_backwards; /* an event earlier than its stream's previous event */
    uint64_t unmatched;      /* Exit / Suspend / Resume of a function with no open frame while
                                others are open (events lost): ignored */
} lg_tl_stats_t;

typedef struct lg_timeline lg_timeline_t;

/* Starts a timeline that will add to profile (whose functions the events index). profile must
 * outlive the timeline. Without proximity no proximity pairs are counted (most of the work per
 * Entry): for callers that will not read them. Returns LG_OK or LG_ENOMEM. */
lg_err_t lg_timeline_create(lg_profile_t *profile, bool proximity, lg_timeline_t **out);

/* Feeds one event of stream (a caller-chosen dense id < LG_TL_MAX_STREAMS, e.g. per core and
 * context) for profile function func. Returns LG_OK; LG_EINVAL for a func or stream out of
 * range, an unknown kind, or after lg_timeline_finish; LG_ELIMIT when an Entry would open more
 * than LG_TL_MAX_DEPTH frames on the stream; LG_ENOMEM. The caller words the diagnostic (it
 * knows the file offset). Meant for a hot loop: amortized O(1) plus the proximity update. */
lg_err_t lg_timeline_event(lg_timeline_t *t, uint32_t stream, uint32_t func, lg_tl_kind_t kind,
                           int64_t time_ns);

/* One event for lg_timeline_events. Its kind and stream share a word laid out as winIDEA 1.1's
 * FLAGS word (the type in bits 0-3, the core above), so that the binary timeline's reader makes
 * it with one mask: LG_TL_KIND_STREAM(kind, stream). */
typedef struct lg_tl_event {
    int64_t time_ns;
    uint32_t func;
    uint32_t kind_stream; /* the lg_tl_kind_t in bits 0-3, the stream (< LG_TL_MAX_STREAMS) above */
} lg_tl_event_t;

/* Bits of kind_stream below the stream, and those that hold the kind. */
#define LG_TL_KIND_BITS 4u
#define LG_TL_KIND_MASK 0xFu
#define LG_TL_KIND_STREAM(kind, stream) ((uint32_t)(kind) | (uint32_t)(stream) << LG_TL_KIND_BITS)

/* Feeds n events in order exactly as n calls of lg_timeline_event would, without a call per
 * event (for readers of large timelines). On failure *done receives the index of the event that
 * failed (the ones before it were fed) and its error is returned; on success *done is n. */
lg_err_t lg_timeline_events(lg_timeline_t *t, const lg_tl_event_t *events, size_t n, size_t *done);

/* Makes room for events of every stream below nstreams and of every function the profile has
 * now (*nfuncs receives how many), so that lg_timeline_events_reserved may skip checking them.
 * Changes no result. Returns LG_OK; LG_EINVAL for nstreams 0 or above LG_TL_MAX_STREAMS, or after
 * lg_timeline_finish; LG_ENOMEM. */
lg_err_t lg_timeline_reserve(lg_timeline_t *t, uint32_t nstreams, uint32_t *nfuncs);

/* lg_timeline_events for events within what lg_timeline_reserve made room for: every stream
 * below its nstreams, every func below its *nfuncs, and every kind an lg_tl_kind_t (anything
 * else is undefined behaviour). The same effects, without the tests of these per event (for the
 * binary timeline's reader, whose events are within them by construction). */
lg_err_t lg_timeline_events_reserved(lg_timeline_t *t, const lg_tl_event_t *events, size_t n,
                                     size_t *done);

/* Closes open frames, writes hits, times, edges and proximity into the profile (then calls
 * lg_profile_finish_edges) and reports the repairs in one warning to d naming the profile's
 * path. Returns LG_OK or LG_ENOMEM. Call once. */
lg_err_t lg_timeline_finish(lg_timeline_t *t, lg_diag_t *d);

/* The repair counters so far. */
const lg_tl_stats_t *lg_timeline_stats(const lg_timeline_t *t);

/* Frees the timeline (not the profile); accepts NULL. */
void lg_timeline_destroy(lg_timeline_t *t);

#endif
