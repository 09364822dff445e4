/* winidea_bin.c - reads winIDEA's binary profiler timeline (the .BIN file next to a Text1 or XML
 * export) into a timeline (timeline.h), resolving handles through the main file's mapping.
 *
 * The file is a headerless sequence of 24-byte little-endian records (winidea_bin.h has both
 * layouts). It is read front to back once through the source's window (source.h), about
 * LG_WI_BIN_READ_BYTES at a time: a timeline of many GB costs that window, and memory grows with
 * functions, streams and edges (in the timeline), never with records. Progress and the
 * "PATH:0xOFFSET: record N" messages come from the source too. Records are decoded in batches
 * and handed to the timeline a batch per call; handles are resolved through a small cache in
 * front of the mapping. A file of LG_WI_BIN_PIPELINE_MIN_BYTES or more is read by two threads
 * instead ("Reading on two threads" below): a reader thread reads and decodes chunks of records
 * into a ring of RING_CHUNKS chunks' events, while the calling thread hands their events to the
 * timeline (and reads chunks too when it would wait), so that the time taken is about the longer
 * of the two halves, or half the work, rather than their sum. The outputs, the messages and the
 * records they name are the same either way.
 *
 * Definitions:
 *   record   one event: HANDLE (the area), a word with the event type (and in 1.1 the core),
 *            DATA (a variable's value, unused here) and TIME (signed ns)
 *   stream   the timeline stream an event belongs to: its core index in 1.1 (0xFF, "unknown
 *            core", is a stream of its own), stream 0 for every record of 1.0, which has no core
 *   version  the layout, 1.0 or 1.1. The file does not say which; lg_wi_bin_detect decides from
 *            the first LG_WI_BIN_DETECT_RECORDS records (the rule is at detect_layout), and
 *            --bin-version overrides it.
 *
 * Per record: a type above 4 is an error; a data write (4) is skipped after its handle is
 * checked; a handle the mapping does not list is an error; a handle of a line, variable, state or
 * AUX area is skipped; a function's Exit (0), Suspend (1), Resume (2) or Entry (3) goes to the
 * timeline. Bits of the 1.1 FLAGS word above the core, and of the 1.0 EVENT word outside the
 * type, are not used once the version is known (detection checks them). Every error names the
 * record by index and byte offset ("PATH:0xOFFSET: record N").
 *
 * Reference: winIDEA help, "Profiler Export" Text1 and XML pages (../shared/specs/), research
 * notes ../shared/research/formats.md A.1.
 */
#include "winidea_bin.h"

#include "mem.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Records the version detection looks at (1.5 MiB): enough for any real timeline to contain
 * events other than Exit, which is all that tells the layouts apart. */
#define LG_WI_BIN_DETECT_RECORDS 65536u
/* Bytes asked of the source's window at a time: 8192 records (192 KiB); the window reads a
 * little more (source.h), so it stays in the second-level cache while its events are processed.
 * Measured on a 256 MB timeline: reading into such a buffer cost a third of what touching the
 * same bytes through mmap did (page faults, TLB misses). The window is aligned as the file
 * offsets are (LG_SOURCE_ALIGN), which the kernel's copy needs to be fast. */
#define LG_WI_BIN_READ_BYTES (8192u * LG_WI_BIN_RECORD_BYTES)
/* Bytes the version detection reads: LG_WI_BIN_DETECT_RECORDS records. */
#define LG_WI_BIN_DETECT_BYTES (LG_WI_BIN_DETECT_RECORDS * LG_WI_BIN_RECORD_BYTES)
/* Records the decode loop takes at a time while each is an event (decode): its own pointer
 * steps and end test once for 8 (instructions a record on lua's timeline: 18.0 at 2, 17.0 at 4,
 * 16.5 at 8). */
#define DECODE_GROUP 8u
/* Records read again at a time (on the stack) to find the record of an event the timeline
 * refused, once the reader thread's buffer holds other records (timeline_error): 4080 bytes. */
#define RESCAN_RECORDS 170u
/* Events decoded before they are handed to the timeline in one call (16 bytes each: the batch
 * stays in the first-level cache). */
#define DECODE_BATCH 1024u
/* log2 of the handles whose resolution is remembered (8 bytes each: 32 KiB). */
#define RESOLVE_CACHE_BITS 12u
#define RESOLVE_CACHE_SLOTS (1u << RESOLVE_CACHE_BITS)
/* Highest event type either layout defines: 4, data write. */
#define TYPE_DATA_WRITE 4u
/* 1.1 FLAGS: bits 0-3 the event type, bits 4-11 the core; nothing above is documented. */
#define V11_TYPE_MASK 0xFu
#define V11_CORE_SHIFT 4u
#define V11_CORE_MASK 0xFFu
#define V11_UNUSED_BITS 0xFFFFF000u
/* The bits of 1.1 FLAGS that make an event's kind_stream (timeline.h). */
#define V11_KIND_STREAM_MASK ((V11_CORE_MASK << V11_CORE_SHIFT) | V11_TYPE_MASK)
_Static_assert(V11_CORE_SHIFT == LG_TL_KIND_BITS && V11_TYPE_MASK == LG_TL_KIND_MASK &&
                   LG_TL_KIND_STREAM(V11_TYPE_MASK, V11_CORE_MASK) == V11_KIND_STREAM_MASK,
               "1.1 FLAGS is laid out as an event's kind_stream");
/* Streams a 1.1 record can name: one per core number (1.0 has stream 0 only). */
#define STREAMS_V11 (V11_CORE_MASK + 1u)
/* 1.0 EVENT: the event type in bits 24-27. The help says nothing of the other bits; bits 0-3
 * are assumed clear (that is where 1.1 keeps the type, and how the layouts are told apart). */
#define V10_TYPE_SHIFT 24u
#define V10_TYPE_MASK 0xFu
#define V10_LOW_BITS 0xFu

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Inlined by force: the decode loop is large enough that GCC would otherwise call them. */
#define HOT static inline __attribute__((always_inline))

HOT uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

HOT uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The event type in a record's second word (1.1 FLAGS, 1.0 EVENT). */
HOT unsigned type_of(uint32_t word, bool v11)
{
    return v11 ? word & V11_TYPE_MASK : (word >> V10_TYPE_SHIFT) & V10_TYPE_MASK;
}

/* Whether a record of this type, resolved to func, becomes an event: a call event (not a data
 * write, not an unknown type) of a function (not an area that is not one, not unmapped). The one
 * rule the decoding and the search for an event's record share. */
HOT bool makes_event(unsigned type, uint32_t func)
{
    return type < TYPE_DATA_WRITE && func < LG_WI_UNMAPPED;
}

static const char *const type_names[] = {"Exit", "Suspend", "Resume", "Entry", "Data write"};

/* ---- Version detection ------------------------------------------------------------------- */

/* How the first records fit each layout: the first record that does not, or UINT64_MAX. */
typedef struct layout_fit {
    uint64_t bad11, bad10;
    uint32_t word11, word10; /* the second word of those records */
} layout_fit_t;

static bool fits_v11(uint32_t w)
{
    return (w & V11_UNUSED_BITS) == 0 && (w & V11_TYPE_MASK) <= TYPE_DATA_WRITE;
}

static bool fits_v10(uint32_t w)
{
    return (w & V10_LOW_BITS) == 0 && ((w >> V10_TYPE_SHIFT) & V10_TYPE_MASK) <= TYPE_DATA_WRITE;
}

/* The rule (docs/loaders/winidea-bin.md): over the first LG_WI_BIN_DETECT_RECORDS records,
 *   1.1 fits when every FLAGS word has bits 12-31 zero and a type (bits 0-3) of 0 to 4;
 *   1.0 fits when every EVENT word has bits 0-3 zero and a type (bits 24-27) of 0 to 4.
 * One fits: that one. Neither: undetectable. Both: every word uses bits 4-11 only, so both
 * readings make every record an Exit and differ only in whether bits 4-11 are a core; 1.1 is
 * taken (when those bits are zero the readings are the same). The TIME field cannot break the
 * tie: it is the same field in both layouts, and if it never decreases over the whole file (1.0,
 * one stream) it never decreases on any one core either. */
static lg_wi_bin_version_t detect_layout(const uint8_t *data, size_t len, layout_fit_t *fit)
{
    size_t n = len / LG_WI_BIN_RECORD_BYTES;
    if (n > LG_WI_BIN_DETECT_RECORDS)
        n = LG_WI_BIN_DETECT_RECORDS;
    *fit = (layout_fit_t){UINT64_MAX, UINT64_MAX, 0, 0};
    for (size_t i = 0; i < n; i++) {
        uint32_t w = le32(data + i * LG_WI_BIN_RECORD_BYTES + 4);
        if (fit->bad11 == UINT64_MAX && !fits_v11(w)) {
            fit->bad11 = i;
            fit->word11 = w;
        }
        if (fit->bad10 == UINT64_MAX && !fits_v10(w)) {
            fit->bad10 = i;
            fit->word10 = w;
        }
        if (fit->bad11 != UINT64_MAX && fit->bad10 != UINT64_MAX)
            return LG_WI_BIN_DETECT;
    }
    return fit->bad11 == UINT64_MAX ? LG_WI_BIN_V1_1 : LG_WI_BIN_V1_0;
}

lg_wi_bin_version_t lg_wi_bin_detect(const uint8_t *data, size_t len)
{
    layout_fit_t fit;
    return detect_layout(data, len, &fit);
}

/* ---- Reading ----------------------------------------------------------------------------- */

typedef struct reader {
    lg_source_t *src;
    const lg_wi_map_t *map;
    lg_timeline_t *timeline;
    uint32_t nfuncs; /* the timeline has room for events of functions below (STREAMS_RESERVED) */
} reader_t;

static lg_err_t shrank(const lg_source_t *src, uint64_t end);

/* The error for a record the main loop refused; kept out of the loop so that stays small. */
static lg_err_t record_error(const reader_t *r, lg_err_t err, uint64_t index, uint32_t handle,
                             uint32_t word, bool v11, uint32_t func)
{
    unsigned type = type_of(word, v11);
    const char *field = v11 ? "FLAGS" : "EVENT";
    if (type > TYPE_DATA_WRITE)
        return LG_FAIL_RECORD(r, LG_EFORMAT, index * LG_WI_BIN_RECORD_BYTES, index,
                              "unknown event type %u (%s 0x%08" PRIx32 ", layout %s): expected 0 "
                              "Exit, 1 Suspend, 2 Resume, 3 Entry or 4 Data write",
                              type, field, word, v11 ? "1.1" : "1.0");
    if (func == LG_WI_UNMAPPED)
        return LG_FAIL_RECORD(r, LG_EFORMAT, index * LG_WI_BIN_RECORD_BYTES, index,
                              "handle 0x%08" PRIX32 " (%s event) is not in the main file's mapping",
                              handle, type_names[type]);
    unsigned core = v11 ? (word >> V11_CORE_SHIFT) & V11_CORE_MASK : 0;
    if (err == LG_ELIMIT)
        return LG_FAIL_RECORD(r, err, index * LG_WI_BIN_RECORD_BYTES, index,
                              "more than %u open calls on core %u: Exit events are missing",
                              LG_TL_MAX_DEPTH, core);
    if (err == LG_ENOMEM)
        return LG_FAIL_RECORD(r, err, index * LG_WI_BIN_RECORD_BYTES, index,
                              "out of memory adding the %s of handle 0x%08" PRIX32,
                              type_names[type], handle);
    return LG_FAIL_RECORD(r, err, index * LG_WI_BIN_RECORD_BYTES, index,
                          "cannot add the %s of handle 0x%08" PRIX32 ": %s", type_names[type],
                          handle, lg_strerror(err));
}

/* A direct-mapped cache of handle -> lg_wi_map_resolve's answer: a timeline names few handles
 * over and over, and a hit costs one load instead of a call. */
typedef struct resolve_slot {
    uint32_t handle;
    uint32_t func;
} resolve_slot_t;

HOT size_t resolve_index(uint32_t handle)
{
    /* Fibonacci hashing, a multiply and a shift: the top bits of the product depend on every
     * bit of the handle, so the area (the top nibble) is folded in; and handles counting up
     * from 0, as winIDEA numbers each area's, land in distinct slots while there are fewer than
     * about a third as many as slots (the gaps between k * 0x9E3779B1 stay wide). */
    return (uint32_t)(handle * 0x9E3779B1u) >> (32u - RESOLVE_CACHE_BITS);
}

/* A handle whose answer is not a function (LG_WI_NOT_FUNCTION, LG_WI_UNMAPPED) is kept in its
 * slot under its handle with this bit flipped, and a function's under its handle: so a hit on
 * the handle itself is a function, and the decode loop tests the record's type only. The flipped
 * key never answers a lookup of the handle it equals: flipping bit 31 of a handle flips bit 31 of
 * its product with the odd multiplier, which is the top bit of its slot index, so that handle's
 * slot is another one. */
#define NOT_FUNCTION_KEY 0x80000000u

static void resolve_cache_init(resolve_slot_t *cache)
{
    /* Slot i holds a key that answers no lookup there: one whose slot is neither i nor i with
     * its top bit flipped (the handles 0 and 1 are in slots 0 and 2531). */
    for (uint32_t i = 0; i < RESOLVE_CACHE_SLOTS; i++) {
        uint32_t key = (resolve_index(0) & (RESOLVE_CACHE_SLOTS / 2 - 1)) ==
                               (i & (RESOLVE_CACHE_SLOTS / 2 - 1))
                           ? 1u
                           : 0u;
        cache[i] = (resolve_slot_t){key, LG_WI_UNMAPPED};
    }
}

/* The answer for a handle that slot c does not have as a function: its answer that is not one,
 * kept there, or lg_wi_map_resolve's, then kept there (see NOT_FUNCTION_KEY). But a function at
 * or past nfuncs (the timeline has no room for it: lg_timeline_reserve) sets *reserved false and
 * is not kept, so that every record of it comes here. There is none: the map's functions are the
 * profile's, and the timeline has room for all of them; this keeps the per-record test to the
 * cache's. */
static __attribute__((noinline)) uint32_t resolve_miss(const lg_wi_map_t *map, resolve_slot_t *c,
                                                       uint32_t handle, uint32_t nfuncs,
                                                       bool *reserved)
{
    if (c->handle == (handle ^ NOT_FUNCTION_KEY))
        return c->func;
    uint32_t func = lg_wi_map_resolve(map, handle);
    if (func >= LG_WI_UNMAPPED)
        *c = (resolve_slot_t){handle ^ NOT_FUNCTION_KEY, func};
    else if (func < nfuncs)
        *c = (resolve_slot_t){handle, func};
    else
        *reserved = false;
    return func;
}

/* The function of handle (lg_wi_map_resolve's answer), through the cache; see resolve_miss for
 * nfuncs and reserved. */
HOT uint32_t resolve(const lg_wi_map_t *map, resolve_slot_t *cache, uint32_t handle,
                     uint32_t nfuncs, bool *reserved)
{
    resolve_slot_t *c = &cache[resolve_index(handle)];
    if (UNLIKELY(c->handle != handle))
        return resolve_miss(map, c, handle, nfuncs, reserved);
    return c->func;
}

/* The index of the record that became event k of the batch decoded from records first.. */
static uint64_t record_of_event(const reader_t *r, const uint8_t *data, uint64_t first, size_t k,
                                bool v11)
{
    for (uint64_t i = 0;; i++) {
        const uint8_t *rec = data + i * LG_WI_BIN_RECORD_BYTES;
        uint32_t word = le32(rec + 4);
        if (makes_event(type_of(word, v11), lg_wi_map_resolve(r->map, le32(rec))) && k-- == 0)
            return first + i;
    }
}

/* Writes the event record rec makes, as func's, at e. */
HOT void write_event(const uint8_t *rec, uint32_t word, unsigned type, uint32_t func, bool v11,
                     lg_tl_event_t *e)
{
    /* 1.1's FLAGS word is laid out as kind_stream is: its type and core, the bits above (unused)
     * masked off. */
    *e = (lg_tl_event_t){(int64_t)le64(rec + 16), func,
                         v11 ? word & V11_KIND_STREAM_MASK : LG_TL_KIND_STREAM(type, 0)};
}

/* The event of record i after rec at e + i, when the record is a call event of a function whose
 * handle is in the cache: then true. False otherwise, having maybe written e[i]: the caller then
 * decodes the record the general way. A hit in the cache is a function's handle
 * (NOT_FUNCTION_KEY): the record's type is the only other test. (The index rather than moved
 * pointers, so that the loop computes nothing for the case it leaves.) */
HOT bool decode_one(const resolve_slot_t *cache, const uint8_t *rec, size_t i, bool v11,
                    lg_tl_event_t *e)
{
    rec += i * LG_WI_BIN_RECORD_BYTES;
    uint32_t handle = le32(rec);
    const resolve_slot_t *c = &cache[resolve_index(handle)];
    if (UNLIKELY(c->handle != handle))
        return false;
    uint32_t word = le32(rec + 4), func = c->func;
    /* An empty asm that takes func in a register: otherwise GCC joins func and kind_stream in a
     * vector register to store them as one (three instructions more than two stores). */
    __asm__("" : "+r"(func));
    unsigned type = type_of(word, v11);
    write_event(rec, word, type, func, v11, e + i);
    return type < TYPE_DATA_WRITE;
}

/* Decodes records data[0, n) into events (room for n), up to the first record refused: returns
 * how many records were decoded (n when none was refused), *k the events made of them. Data
 * writes and areas that are not functions make no event. *reserved is set false when an event's
 * function is not below nfuncs (the timeline made room for those: lg_timeline_reserve). Inlined
 * once per layout so that the layout test leaves the loop. */
HOT size_t decode(const lg_wi_map_t *map, resolve_slot_t *cache, const uint8_t *data, size_t n,
                  bool v11, uint32_t nfuncs, lg_tl_event_t *events, size_t *k, bool *reserved)
{
    /* Each record is written at e, which moves on past an event only; rec walks the records to
     * end: no index to scale. */
    lg_tl_event_t *e = events;
    const uint8_t *rec = data, *end = data + n * LG_WI_BIN_RECORD_BYTES;
    /* A group of DECODE_GROUP records starts before this (none when there are fewer). */
    const uint8_t *groups_end =
        data + (n >= DECODE_GROUP ? (n - DECODE_GROUP + 1) * LG_WI_BIN_RECORD_BYTES : 0);
    while (rec < end) {
        /* Almost every record is a call event of a function: DECODE_GROUP at a time, one test
         * each, while all are (the loop's own instructions paid once a group). */
        while (rec < groups_end) {
            size_t i = 0;
#pragma GCC unroll 8
            for (; i < DECODE_GROUP; i++)
                if (UNLIKELY(!decode_one(cache, rec, i, v11, e)))
                    break;
            e += i;
            rec += i * LG_WI_BIN_RECORD_BYTES;
            if (UNLIKELY(i < DECODE_GROUP))
                break;
        }
        if (rec == end)
            break;
        /* One record the general way: an event (the last, odd one, or one whose handle was not
         * in the cache), or a data write or an area that is not a function, which make no event,
         * or a record refused (an unknown type or handle). */
        uint32_t word = le32(rec + 4);
        unsigned type = type_of(word, v11);
        uint32_t func = resolve(map, cache, le32(rec), nfuncs, reserved);
        write_event(rec, word, type, func, v11, e);
        if (makes_event(type, func))
            e++;
        else if (type > TYPE_DATA_WRITE || func == LG_WI_UNMAPPED)
            break;
        rec += LG_WI_BIN_RECORD_BYTES;
    }
    *k = (size_t)(e - events);
    return (size_t)(rec - data) / LG_WI_BIN_RECORD_BYTES;
}

static size_t decode_v11(const lg_wi_map_t *map, resolve_slot_t *cache, const uint8_t *data,
                         size_t n, uint32_t nfuncs, lg_tl_event_t *events, size_t *k,
                         bool *reserved)
{
    return decode(map, cache, data, n, true, nfuncs, events, k, reserved);
}

static size_t decode_v10(const lg_wi_map_t *map, resolve_slot_t *cache, const uint8_t *data,
                         size_t n, uint32_t nfuncs, lg_tl_event_t *events, size_t *k,
                         bool *reserved)
{
    return decode(map, cache, data, n, false, nfuncs, events, k, reserved);
}

/* The error for the timeline's refusal of event done of those decoded from the records at data
 * (the first of them record first), at that event's record. data NULL: the records are no longer
 * in memory (the reader thread's, which reads every chunk into the same buffer) and are read
 * again from the file, RESCAN_RECORDS at a time; if that read fails, its error is the one
 * reported (the file changed while being read). */
static lg_err_t __attribute__((noinline))
timeline_error(const reader_t *r, lg_err_t err, uint32_t func, const uint8_t *data, uint64_t first,
               size_t done, bool v11)
{
    if (data != NULL) {
        uint64_t index = record_of_event(r, data, first, done, v11);
        const uint8_t *rec = data + (index - first) * LG_WI_BIN_RECORD_BYTES;
        return record_error(r, err, index, le32(rec), le32(rec + 4), v11, func);
    }
    uint8_t piece[RESCAN_RECORDS * LG_WI_BIN_RECORD_BYTES];
    for (uint64_t at = first;; at += RESCAN_RECORDS) {
        size_t got;
        LG_CHECK(lg_source_read_at(r->src, at * LG_WI_BIN_RECORD_BYTES, piece, sizeof piece, &got));
        for (size_t i = 0; i < got / LG_WI_BIN_RECORD_BYTES; i++) {
            const uint8_t *rec = piece + i * LG_WI_BIN_RECORD_BYTES;
            uint32_t word = le32(rec + 4);
            if (makes_event(type_of(word, v11), lg_wi_map_resolve(r->map, le32(rec))) &&
                done-- == 0)
                return record_error(r, err, at + i, le32(rec), word, v11, func);
        }
        if (got < sizeof piece)
            return shrank(r->src, (at * LG_WI_BIN_RECORD_BYTES) + got);
    }
}

/* The error for record index, at rec, which decode refused. */
static lg_err_t __attribute__((noinline))
refused(const reader_t *r, const uint8_t *rec, uint64_t index, bool v11)
{
    return record_error(r, LG_EFORMAT, index, le32(rec), le32(rec + 4), v11,
                        lg_wi_map_resolve(r->map, le32(rec)));
}

/* Hands the k events decoded from the records at data (NULL: no longer in memory; see
 * timeline_error) (the first of them record first) to the timeline in one call; reserved: every
 * event is within what the timeline made room for (decode). */
HOT lg_err_t hand_over(const reader_t *r, const lg_tl_event_t *events, size_t k,
                       const uint8_t *data, uint64_t first, bool v11, bool reserved)
{
    size_t done;
    lg_err_t err = reserved ? lg_timeline_events_reserved(r->timeline, events, k, &done)
                            : lg_timeline_events(r->timeline, events, k, &done);
    if (UNLIKELY(err != LG_OK))
        return timeline_error(r, err, events[done].func, data, first, done, v11);
    return LG_OK;
}

/* Feeds n records at data (whose first is record first) to the timeline: decodes up to
 * DECODE_BATCH of them into events, then hands the batch over in one call. A refused record ends
 * its batch, and is reported once the events before it are in. Inlined once per layout. */
HOT lg_err_t feed(const reader_t *r, resolve_slot_t *cache, const uint8_t *data, size_t n,
                  uint64_t first, bool v11)
{
    lg_tl_event_t events[DECODE_BATCH];
    for (size_t i = 0; i < n;) {
        size_t end = n - i < DECODE_BATCH ? n : i + DECODE_BATCH, k;
        const uint8_t *batch = data + i * LG_WI_BIN_RECORD_BYTES;
        bool reserved = true;
        size_t j = i + decode(r->map, cache, batch, end - i, v11, r->nfuncs, events, &k, &reserved);
        LG_CHECK(hand_over(r, events, k, batch, first + i, v11, reserved));
        if (UNLIKELY(j < end))
            return refused(r, data + j * LG_WI_BIN_RECORD_BYTES, first + j, v11);
        i = end;
    }
    return LG_OK;
}

static lg_err_t feed_v11(const reader_t *r, resolve_slot_t *cache, const uint8_t *data, size_t n,
                         uint64_t first)
{
    return feed(r, cache, data, n, first, true);
}

static lg_err_t feed_v10(const reader_t *r, resolve_slot_t *cache, const uint8_t *data, size_t n,
                         uint64_t first)
{
    return feed(r, cache, data, n, first, false);
}

/* Detects the layout of the first records, or fails saying why neither layout fits. */
static lg_err_t choose_version(const lg_source_t *src, const uint8_t *data, size_t len,
                               lg_wi_bin_version_t *version)
{
    layout_fit_t fit;
    *version = detect_layout(data, len, &fit);
    if (*version != LG_WI_BIN_DETECT)
        return LG_OK;
    return lg_diag_fail(
        src->d, LG_EFORMAT, src->path,
        "cannot tell the binary timeline's layout: record %" PRIu64 " (offset 0x%" PRIx64
        ") does not fit version 1.1 (FLAGS 0x%08" PRIx32 ": bits 12-31 must be 0 and the type "
        "in bits 0-3 at most 4), record %" PRIu64 " (offset 0x%" PRIx64
        ") does not fit version 1.0 (EVENT 0x%08" PRIx32 ": bits 0-3 must be 0 and the type in "
        "bits 24-27 at most 4); give the version with --bin-version 1.0 or 1.1",
        fit.bad11, fit.bad11 * LG_WI_BIN_RECORD_BYTES, fit.word11, fit.bad10,
        fit.bad10 * LG_WI_BIN_RECORD_BYTES, fit.word10);
}

/* Checks the source is a regular file of whole records. */
static lg_err_t check_timeline(const lg_source_t *src)
{
    uint64_t size = src->size;
    if (!src->size_known)
        return lg_diag_fail(src->d, LG_EIO, src->path, "the binary timeline is not a regular file");
    if (size % LG_WI_BIN_RECORD_BYTES != 0)
        return lg_diag_fail(src->d, LG_EFORMAT, src->path,
                            "size %" PRIu64 " bytes is not a multiple of the %u-byte record: "
                            "%" PRIu64 " trailing byte(s) after record %" PRIu64
                            " (offset 0x%" PRIx64 "); the file is cut short or not a timeline",
                            size, LG_WI_BIN_RECORD_BYTES, size % LG_WI_BIN_RECORD_BYTES,
                            size / LG_WI_BIN_RECORD_BYTES, size - size % LG_WI_BIN_RECORD_BYTES);
    return LG_OK;
}

/* The error for a file found to end at offset end, before the size it was opened with. */
static lg_err_t shrank(const lg_source_t *src, uint64_t end)
{
    return lg_diag_fail(src->d, LG_EIO, src->path,
                        "the file ended at offset 0x%" PRIx64 " while being read: it shrank "
                        "since it was opened",
                        end);
}

/* Makes [at, at + want) readable in the window; the file ending first means it shrank. */
static lg_err_t window(lg_source_t *src, uint64_t at, size_t want)
{
    LG_CHECK(lg_source_window(src, at, want));
    if (src->base + src->len - at < want)
        return shrank(src, src->base + src->len);
    return LG_OK;
}

/* ---- Reading on two threads ------------------------------------------------------------- */

/* A large file is read by two threads: a reader thread reads chunks of records and decodes them
 * into events in a ring, while the calling thread hands each chunk's events to the timeline, in
 * file order. Every message about a record is made from the same bytes, at the same record, as
 * on one thread: a refused record is kept with its chunk, and the record of an event the
 * timeline refuses is read again from the file (see CHUNK_RECORDS). The
 * reader's own errors (a failed read, a file that shrank) are kept in the ring's diagnostics
 * and its chunk says so; the calling thread reports them when it reaches that chunk, after the
 * events before it, so the first error in file order is the one reported, as on one thread.
 * Only the calling thread tells progress, touches the caller's diagnostics and the timeline. */

/* Records in a chunk, the ring's unit: read, decoded and handed over whole (192 KiB of records,
 * at most 128 KiB of events), the size the one-thread reader asks its window for. The reader
 * reads every chunk into the same buffer, so that the kernel's copy writes to memory still in
 * the reader's second-level cache (the records, 192 KiB, and the events it is writing, 128 KiB,
 * fit in 512 KiB), and only the events go into the ring. The records are not needed after
 * decoding but for an error's message: a refused record is kept with its chunk, and the record
 * of an event the timeline refuses is read again from the file (timeline_error). */
#define CHUNK_RECORDS (LG_WI_BIN_READ_BYTES / LG_WI_BIN_RECORD_BYTES)
#define CHUNK_BYTES LG_WI_BIN_READ_BYTES
_Static_assert(CHUNK_BYTES % LG_SOURCE_ALIGN == 0, "every chunk starts at the same page offset");
/* Chunks in the ring (the events of each, 128 KiB: 1 MiB in all, with the reader's buffer of
 * records 1.2 MiB, whatever the file's size): how far the reader may run ahead of the timeline. */
#define RING_CHUNKS 8u
/* A thread that found the ring full (the reader) or empty (the timeline) sleeps until this many
 * chunks are free, or filled: each sleep then covers several chunks, and the threads wake each
 * other a few thousand times over a GB file instead of once or twice per chunk (about 11,000
 * chunks for 2 GB). */
#define RING_WAKE_CHUNKS 4u
_Static_assert(RING_WAKE_CHUNKS <= RING_CHUNKS, "a sleeper must be woken");
/* Bytes of a ring slot: a chunk's events. */
#define SLOT_BYTES (CHUNK_RECORDS * sizeof(lg_tl_event_t))
_Static_assert(SLOT_BYTES % LG_SOURCE_ALIGN == 0, "the slots stay aligned");
/* Bytes of the reader's buffer: a page of slack (the records sit at their file offsets' place
 * in a page, as the source's window does: LG_SOURCE_ALIGN), a chunk of records. */
#define RECORDS_BYTES (LG_SOURCE_ALIGN + CHUNK_BYTES)

/* Files below LG_WI_BIN_PIPELINE_MIN_BYTES are read on the calling thread (tests lower it). */
static _Atomic uint64_t pipeline_min_bytes = LG_WI_BIN_PIPELINE_MIN_BYTES;

uint64_t lg_i_wi_bin_set_pipeline_min(uint64_t bytes)
{
    return atomic_exchange(&pipeline_min_bytes, bytes);
}

/* The reader thread reads no chunk while set (tests: lg_i_wi_bin_set_reader_idle). */
static _Atomic bool reader_idle = false;

bool lg_i_wi_bin_set_reader_idle(bool idle)
{
    return atomic_exchange(&reader_idle, idle);
}

typedef struct chunk {
    lg_tl_event_t *events; /* nevents events, decoded from records [0, decoded) */
    uint64_t first;        /* the index of its first record */
    size_t nrecords;
    size_t decoded; /* nrecords, or the index of the record decode refused */
    size_t nevents;
    bool reserved; /* every event within the room the timeline made (decode) */
    uint8_t refused[LG_WI_BIN_RECORD_BYTES]; /* record decoded, when below nrecords */
    lg_err_t err;      /* the read failed (nothing read; the message is in by's diag) */
    struct worker *by; /* the thread that read it */
    bool ready;        /* under the ring's lock: read and decoded, not yet consumed */
} chunk_t;

/* What one thread needs to read and decode chunks: both the reader thread and the calling thread
 * do, the calling thread when it would otherwise wait (consume). */
typedef struct worker {
    lg_source_t io;   /* the caller's fd and path, messages to diag */
    lg_diag_t diag;   /* at most one message: a worker's first failed chunk stops every claim */
    uint8_t *records; /* each chunk's records while they are decoded */
    resolve_slot_t *cache;
} worker_t;

typedef struct ring {
    /* Set before the reader starts, then read only */
    const lg_wi_map_t *map;
    bool v11;
    uint32_t nfuncs;      /* reader_t's */
    uint64_t start, size; /* bytes [start, size) are read, in chunks from start */
    uint64_t nchunks;
    chunk_t chunk[RING_CHUNKS]; /* chunk c in slot c % RING_CHUNKS; its fields are its reader's
                                   until ready, then the calling thread's until consumed */
    worker_t reader, helper;    /* the reader thread's, the calling thread's */
    resolve_slot_t reader_cache[RESOLVE_CACHE_SLOTS];
    void *memory;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled, freed;
    /* Under lock: chunks claimed by either thread (each reads the next one), chunks done with by
     * the timeline */
    uint64_t claimed, consumed;
    bool stop;            /* a chunk read failed or was refused: none after it is claimed */
    bool quit;            /* the calling thread is done: the reader stops before its next chunk */
    bool reader_sleeps;   /* on freed, until RING_WAKE_CHUNKS are free or quit */
    bool consumer_sleeps; /* on filled, until the chunk it needs is ready */
} ring_t;

/* Reads and decodes chunk n with w's means; false when nothing is to follow it (a read error or
 * a refused record). */
static bool read_chunk(ring_t *g, worker_t *w, uint64_t n)
{
    chunk_t *c = &g->chunk[n % RING_CHUNKS];
    uint64_t at = g->start + n * CHUNK_BYTES;
    size_t want = (size_t)(g->size - at < CHUNK_BYTES ? g->size - at : CHUNK_BYTES), got = 0;
    c->by = w;
    c->first = at / LG_WI_BIN_RECORD_BYTES;
    c->nrecords = c->decoded = c->nevents = 0;
    c->err = lg_source_read_at(&w->io, at, w->records, want, &got);
    if (c->err == LG_OK && got < want)
        c->err = shrank(&w->io, at + got);
    if (c->err != LG_OK)
        return false;
    c->nrecords = want / LG_WI_BIN_RECORD_BYTES;
    c->reserved = true;
    c->decoded = g->v11 ? decode_v11(g->map, w->cache, w->records, c->nrecords, g->nfuncs,
                                     c->events, &c->nevents, &c->reserved)
                        : decode_v10(g->map, w->cache, w->records, c->nrecords, g->nfuncs,
                                     c->events, &c->nevents, &c->reserved);
    if (c->decoded == c->nrecords)
        return true;
    memcpy(c->refused, w->records + c->decoded * LG_WI_BIN_RECORD_BYTES, LG_WI_BIN_RECORD_BYTES);
    return false;
}

/* Under g's lock: claims the next chunk for a thread to read (*n), when there is one and a free
 * slot for it. */
static bool claim(ring_t *g, uint64_t *n)
{
    if (g->stop || g->claimed == g->nchunks || g->claimed - g->consumed >= RING_CHUNKS)
        return false;
    *n = g->claimed++;
    return true;
}

/* Reads claimed chunk n with w's means (g's lock not held), then, under the lock, makes it ready
 * and wakes the calling thread if it waits. */
static void read_claimed(ring_t *g, worker_t *w, uint64_t n)
{
    bool more = read_chunk(g, w, n);
    pthread_mutex_lock(&g->lock);
    g->chunk[n % RING_CHUNKS].ready = true;
    if (!more)
        g->stop = true;
    if (g->consumer_sleeps)
        pthread_cond_signal(&g->filled);
}

/* The reader thread: claims chunks in file order into free slots, until none is left, an error
 * or quit. */
static void *reader_thread(void *arg)
{
    ring_t *g = arg;
    if (atomic_load(&reader_idle))
        return NULL;
    pthread_mutex_lock(&g->lock);
    for (;;) {
        if (g->claimed - g->consumed >= RING_CHUNKS) {
            g->reader_sleeps = true;
            while (!g->quit && g->claimed - g->consumed > RING_CHUNKS - RING_WAKE_CHUNKS)
                pthread_cond_wait(&g->freed, &g->lock);
            g->reader_sleeps = false;
        }
        uint64_t n;
        if (g->quit || !claim(g, &n))
            break;
        pthread_mutex_unlock(&g->lock);
        read_claimed(g, &g->reader, n); /* returns with the lock held */
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* Sets w up to read from src, into records, with cache. */
static void worker_init(worker_t *w, const lg_source_t *src, uint8_t *records,
                        resolve_slot_t *cache)
{
    w->io = *src;
    lg_diag_init(&w->diag);
    w->io.d = &w->diag;
    w->records = records;
    w->cache = cache;
}

/* Sets up the ring for bytes [start, size) of src and starts its reader; false (nothing to undo)
 * when memory or the thread cannot be had. cache: the calling thread's handle cache, for the
 * chunks it reads. The reader starts with every signal blocked: they stay with the calling
 * thread, whose handlers the CLI set up. */
static bool ring_start(ring_t *g, lg_source_t *src, const lg_wi_map_t *map, bool v11,
                       uint32_t nfuncs, uint64_t start, uint64_t size, resolve_slot_t *cache)
{
    g->memory = aligned_alloc(LG_SOURCE_ALIGN, RING_CHUNKS * SLOT_BYTES + 2 * RECORDS_BYTES);
    if (g->memory == NULL)
        return false;
    g->map = map;
    g->v11 = v11;
    g->nfuncs = nfuncs;
    g->start = start;
    g->size = size;
    g->nchunks = (size - start + CHUNK_BYTES - 1) / CHUNK_BYTES;
    g->claimed = g->consumed = 0;
    g->stop = g->quit = g->reader_sleeps = g->consumer_sleeps = false;
    resolve_cache_init(g->reader_cache);
    uint8_t *records = (uint8_t *)g->memory + RING_CHUNKS * SLOT_BYTES + start % LG_SOURCE_ALIGN;
    worker_init(&g->reader, src, records, g->reader_cache);
    worker_init(&g->helper, src, records + RECORDS_BYTES, cache);
    for (size_t i = 0; i < RING_CHUNKS; i++) {
        g->chunk[i].events = (lg_tl_event_t *)(void *)((uint8_t *)g->memory + i * SLOT_BYTES);
        g->chunk[i].ready = false;
    }
    bool lock = pthread_mutex_init(&g->lock, NULL) == 0;
    bool filled = lock && pthread_cond_init(&g->filled, NULL) == 0;
    bool freed = filled && pthread_cond_init(&g->freed, NULL) == 0;
    bool started = false;
    if (freed) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        started = pthread_create(&g->thread, NULL, reader_thread, g) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (!started) {
        if (freed)
            pthread_cond_destroy(&g->freed);
        if (filled)
            pthread_cond_destroy(&g->filled);
        if (lock)
            pthread_mutex_destroy(&g->lock);
        lg_diag_destroy(&g->reader.diag);
        lg_diag_destroy(&g->helper.diag);
        free(g->memory);
    }
    return started;
}

/* Stops the reader, waits for it, and frees the ring. Messages left in the workers' diags are
 * dropped: they are about chunks after the one the calling thread stopped at. */
static void ring_stop(ring_t *g)
{
    pthread_mutex_lock(&g->lock);
    g->quit = true;
    pthread_cond_signal(&g->freed);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->thread, NULL);
    lg_diag_destroy(&g->reader.diag);
    lg_diag_destroy(&g->helper.diag);
    pthread_cond_destroy(&g->freed);
    pthread_cond_destroy(&g->filled);
    pthread_mutex_destroy(&g->lock);
    free(g->memory);
}

/* The calling thread's half: hands the chunks to the timeline in file order and tells progress,
 * until the end of the file or the first error. While the chunk it needs is not ready (the
 * reader is on it), it reads and decodes the next unclaimed chunk itself, if a slot is free: the
 * work of reading then goes to whichever thread has time for it, so that the wall time
 * approaches half the work rather than the reader's share when that is the larger. */
static lg_err_t consume(const reader_t *r, ring_t *g)
{
    for (uint64_t n = 0;; n++) {
        chunk_t *c = &g->chunk[n % RING_CHUNKS];
        pthread_mutex_lock(&g->lock);
        while (!c->ready) {
            uint64_t m;
            if (claim(g, &m)) {
                pthread_mutex_unlock(&g->lock);
                read_claimed(g, &g->helper, m); /* returns with the lock held */
                continue;
            }
            /* Chunk n is claimed (claims go in file order, and none is refused while n can
             * still be needed), by the reader, which will make it ready. */
            g->consumer_sleeps = true;
            pthread_cond_wait(&g->filled, &g->lock);
            g->consumer_sleeps = false;
        }
        pthread_mutex_unlock(&g->lock);
        if (c->err != LG_OK) {
            /* The thread that read it wrote its message before it made the chunk ready. */
            lg_diag_move(r->src->d, &c->by->diag);
            return c->err;
        }
        LG_CHECK(hand_over(r, c->events, c->nevents, NULL, c->first, g->v11, c->reserved));
        if (c->decoded < c->nrecords)
            return refused(r, c->refused, c->first + c->decoded, g->v11);
        uint64_t end = (c->first + c->nrecords) * LG_WI_BIN_RECORD_BYTES;
        lg_source_progress(r->src, end, end == g->size);
        if (end == g->size)
            return LG_OK;
        pthread_mutex_lock(&g->lock);
        c->ready = false;
        g->consumed = n + 1;
        if (g->reader_sleeps && RING_CHUNKS - (g->claimed - g->consumed) >= RING_WAKE_CHUNKS)
            pthread_cond_signal(&g->freed);
        pthread_mutex_unlock(&g->lock);
    }
}

/* Reads the timeline from the opened source: on the calling thread alone, or with a reader
 * thread (above) for a file of at least LG_WI_BIN_PIPELINE_MIN_BYTES. */
static lg_err_t read_timeline(lg_source_t *src, lg_wi_bin_version_t version, const lg_wi_map_t *map,
                              lg_timeline_t *timeline)
{
    reader_t r = {src, map, timeline, 0};
    LG_CHECK(check_timeline(src));
    uint64_t size = src->size;
    /* Whole records the window holds from offset 0 (those the version detection read). */
    uint64_t held = 0;
    if (version == LG_WI_BIN_DETECT) {
        size_t len = (size_t)(size < LG_WI_BIN_DETECT_BYTES ? size : LG_WI_BIN_DETECT_BYTES);
        LG_CHECK(window(src, 0, len));
        LG_CHECK(choose_version(src, lg_source_at(src, 0), len, &version));
        held = src->base + src->len < size ? src->base + src->len : size;
        held -= held % LG_WI_BIN_RECORD_BYTES;
    }
    bool v11 = version == LG_WI_BIN_V1_1;
    /* Room for every stream a record can name and every function of the profile, which the map
     * resolves to: the timeline then takes the events without checking them one by one. Without
     * the room (out of memory), nfuncs stays 0 and every event is checked as before. */
    if (lg_timeline_reserve(timeline, v11 ? STREAMS_V11 : 1u, &r.nfuncs) != LG_OK)
        r.nfuncs = 0;
    resolve_slot_t cache[RESOLVE_CACHE_SLOTS];
    resolve_cache_init(cache);
    ring_t ring;
    if (size >= atomic_load(&pipeline_min_bytes) && held < size &&
        ring_start(&ring, src, map, v11, r.nfuncs, held, size, cache)) {
        /* The records the detection read go first, while the reader starts on the rest. */
        size_t n = (size_t)(held / LG_WI_BIN_RECORD_BYTES);
        const uint8_t *data = lg_source_at(src, 0);
        lg_err_t err = v11 ? feed_v11(&r, cache, data, n, 0) : feed_v10(&r, cache, data, n, 0);
        if (err == LG_OK)
            err = consume(&r, &ring);
        ring_stop(&ring);
        return err;
    }
    for (uint64_t at = 0; at < size;) {
        size_t want = (size_t)(size - at < LG_WI_BIN_READ_BYTES ? size - at : LG_WI_BIN_READ_BYTES);
        LG_CHECK(window(src, at, want));
        /* Every whole record the window holds, none past the size the file was opened with. */
        uint64_t in = src->base + src->len - at;
        if (in > size - at)
            in = size - at;
        size_t n = (size_t)(in / LG_WI_BIN_RECORD_BYTES);
        const uint8_t *data = lg_source_at(src, at);
        uint64_t first = at / LG_WI_BIN_RECORD_BYTES;
        LG_CHECK(v11 ? feed_v11(&r, cache, data, n, first) : feed_v10(&r, cache, data, n, first));
        at += (uint64_t)n * LG_WI_BIN_RECORD_BYTES;
    }
    if (size > 0)
        lg_source_progress(src, size, !src->eof);
    return LG_OK;
}

lg_err_t lg_wi_bin_read(const char *path, lg_wi_bin_version_t version, const lg_wi_map_t *map,
                        lg_timeline_t *timeline, const lg_load_options_t *options, lg_diag_t *d)
{
    if (version != LG_WI_BIN_DETECT && version != LG_WI_BIN_V1_0 && version != LG_WI_BIN_V1_1)
        return lg_diag_fail(d, LG_EINVAL, path,
                            "unknown binary timeline version %u: expected 1.0 or 1.1",
                            (unsigned)version);
    lg_source_t src;
    LG_CHECK(lg_source_open_as(&src, path, "binary timeline", options, d));
    lg_err_t err = read_timeline(&src, version, map, timeline);
    lg_source_close(&src);
    return err;
}
