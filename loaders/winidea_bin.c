/* winidea_bin.c - reads winIDEA's binary profiler timeline (the .BIN file next to a Text1 or XML
 * export) into a timeline (timeline.h), resolving handles through the main file's mapping.
 *
 * The file is a headerless sequence of 24-byte little-endian records (winidea_bin.h has both
 * layouts). It is read front to back once, LG_WI_BIN_READ_BYTES at a time, into one buffer: a
 * timeline of many GB costs that buffer, and memory grows with functions, streams and edges (in
 * the timeline), never with records. Records are decoded in batches and handed to the timeline
 * a batch per call; handles are resolved through a small cache in front of the mapping.
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

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Records the version detection looks at (1.5 MiB): enough for any real timeline to contain
 * events other than Exit, which is all that tells the layouts apart. */
#define LG_WI_BIN_DETECT_RECORDS 65536u
/* Bytes read at a time: 8192 records (192 KiB), so the buffer stays in the second-level cache
 * while its events are processed. Measured on a 256 MB timeline: reading into such a buffer
 * cost a third of what touching the same bytes through mmap did (page faults, TLB misses). */
#define LG_WI_BIN_READ_BYTES (8192u * LG_WI_BIN_RECORD_BYTES)
/* Alignment of the read buffer: a page, as the offsets read at are. The kernel copies three to
 * four times slower into a buffer whose place in a cache line differs from the file offset's
 * (measured: 2.1 GB read in 1.4 s of system time into malloc's 16-byte aligned buffer, 0.4 s
 * into a page-aligned one), and malloc's alignment beyond 16 bytes depends on what was
 * allocated before. */
#define LG_WI_BIN_READ_ALIGN 4096u
/* Bytes the version detection reads: LG_WI_BIN_DETECT_RECORDS records. */
#define LG_WI_BIN_DETECT_BYTES (LG_WI_BIN_DETECT_RECORDS * LG_WI_BIN_RECORD_BYTES)
/* How often options->progress is told how far the reading got. */
#define LG_WI_BIN_PROGRESS_BYTES (64u << 20)
/* Events decoded before they are handed to the timeline in one call (16 bytes each: the batch
 * stays in the first-level cache). */
#define DECODE_BATCH 1024u
/* Handles whose resolution is remembered (8 bytes each); a power of two. */
#define RESOLVE_CACHE_SLOTS 4096u
/* Highest event type either layout defines: 4, data write. */
#define TYPE_DATA_WRITE 4u
/* 1.1 FLAGS: bits 0-3 the event type, bits 4-11 the core; nothing above is documented. */
#define V11_TYPE_MASK 0xFu
#define V11_CORE_SHIFT 4u
#define V11_CORE_MASK 0xFFu
#define V11_UNUSED_BITS 0xFFFFF000u
/* 1.0 EVENT: the event type in bits 24-27. The help says nothing of the other bits; bits 0-3
 * are assumed clear (that is where 1.1 keeps the type, and how the layouts are told apart). */
#define V10_TYPE_SHIFT 24u
#define V10_TYPE_MASK 0xFu
#define V10_LOW_BITS 0xFu

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
    const char *path;
    const lg_wi_map_t *map;
    lg_timeline_t *timeline;
    lg_diag_t *d;
} reader_t;

static lg_err_t fail_record(const reader_t *r, lg_err_t err, uint64_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* An error at record index: "PATH:0xOFFSET: record N" (diag.h's convention for binary files). */
static lg_err_t fail_record(const reader_t *r, lg_err_t err, uint64_t index, const char *fmt, ...)
{
    char *where = lg_format("%s:0x%" PRIx64 ": record %" PRIu64, r->path,
                            index * LG_WI_BIN_RECORD_BYTES, index);
    va_list ap;
    va_start(ap, fmt);
    lg_diag_vadd(r->d, LG_ERROR, where != NULL ? where : r->path, fmt, ap);
    va_end(ap);
    free(where);
    return err;
}

/* The error for a record the main loop refused; kept out of the loop so that stays small. */
static lg_err_t record_error(const reader_t *r, lg_err_t err, uint64_t index, uint32_t handle,
                             uint32_t word, bool v11, uint32_t func)
{
    unsigned type = v11 ? word & V11_TYPE_MASK : (word >> V10_TYPE_SHIFT) & V10_TYPE_MASK;
    const char *field = v11 ? "FLAGS" : "EVENT";
    if (type > TYPE_DATA_WRITE)
        return fail_record(r, LG_EFORMAT, index,
                           "unknown event type %u (%s 0x%08" PRIx32 ", layout %s): expected 0 "
                           "Exit, 1 Suspend, 2 Resume, 3 Entry or 4 Data write",
                           type, field, word, v11 ? "1.1" : "1.0");
    if (func == LG_WI_UNMAPPED)
        return fail_record(r, LG_EFORMAT, index,
                           "handle 0x%08" PRIX32 " (%s event) is not in the main file's mapping",
                           handle, type_names[type]);
    unsigned core = v11 ? (word >> V11_CORE_SHIFT) & V11_CORE_MASK : 0;
    if (err == LG_ELIMIT)
        return fail_record(r, err, index,
                           "more than %u open calls on core %u: Exit events are missing",
                           LG_TL_MAX_DEPTH, core);
    if (err == LG_ENOMEM)
        return fail_record(r, err, index, "out of memory adding the %s of handle 0x%08" PRIX32,
                           type_names[type], handle);
    return fail_record(r, err, index, "cannot add the %s of handle 0x%08" PRIX32 ": %s",
                       type_names[type], handle, lg_strerror(err));
}

/* A direct-mapped cache of handle -> lg_wi_map_resolve's answer: a timeline names few handles
 * over and over, and a hit costs one load instead of a call. */
typedef struct resolve_slot {
    uint32_t handle;
    uint32_t func;
} resolve_slot_t;

HOT size_t resolve_index(uint32_t handle)
{
    /* Function handles count up from 0, lines from 0x10000000: fold the area in. */
    return (handle ^ handle >> 16 ^ handle >> 28) & (RESOLVE_CACHE_SLOTS - 1);
}

static void resolve_cache_init(resolve_slot_t *cache)
{
    /* Slot i holds a handle that maps to another slot, so it never answers a lookup. */
    for (uint32_t i = 0; i < RESOLVE_CACHE_SLOTS; i++)
        cache[i] = (resolve_slot_t){i ^ 1u, LG_WI_UNMAPPED};
}

HOT uint32_t resolve(const lg_wi_map_t *map, resolve_slot_t *cache, uint32_t handle)
{
    resolve_slot_t *c = &cache[resolve_index(handle)];
    if (UNLIKELY(c->handle != handle))
        *c = (resolve_slot_t){handle, lg_wi_map_resolve(map, handle)};
    return c->func;
}

/* The index of the record that became event k of the batch decoded from records first.. */
static uint64_t record_of_event(const reader_t *r, const uint8_t *data, uint64_t first, size_t k,
                                bool v11)
{
    for (uint64_t i = 0;; i++) {
        const uint8_t *rec = data + i * LG_WI_BIN_RECORD_BYTES;
        uint32_t word = le32(rec + 4);
        unsigned type = v11 ? word & V11_TYPE_MASK : (word >> V10_TYPE_SHIFT) & V10_TYPE_MASK;
        if (type < TYPE_DATA_WRITE && lg_wi_map_resolve(r->map, le32(rec)) < LG_WI_UNMAPPED &&
            k-- == 0)
            return first + i;
    }
}

/* Feeds n records at data (whose first is record first) to the timeline: decodes up to
 * DECODE_BATCH of them into events, then hands the batch over in one call. Inlined once per
 * layout so that the layout test leaves the loop. */
HOT lg_err_t feed(const reader_t *r, resolve_slot_t *cache, const uint8_t *data, size_t n,
                  uint64_t first, bool v11)
{
    lg_tl_event_t events[DECODE_BATCH];
    for (size_t i = 0; i < n;) {
        size_t end = n - i < DECODE_BATCH ? n : i + DECODE_BATCH, j = i, k = 0;
        for (; j < end; j++) {
            const uint8_t *rec = data + j * LG_WI_BIN_RECORD_BYTES;
            uint32_t handle = le32(rec), word = le32(rec + 4);
            unsigned type = v11 ? word & V11_TYPE_MASK : (word >> V10_TYPE_SHIFT) & V10_TYPE_MASK;
            uint32_t func = resolve(r->map, cache, handle);
            events[k] = (lg_tl_event_t){
                (int64_t)le64(rec + 16), func,
                (uint16_t)(v11 ? (word >> V11_CORE_SHIFT) & V11_CORE_MASK : 0), (uint8_t)type};
            /* Data writes and areas that are not functions are skipped; bad records end the
             * batch, to be reported once the events before them are in. */
            bool bad = type > TYPE_DATA_WRITE || func == LG_WI_UNMAPPED;
            if (UNLIKELY(bad))
                break;
            k += type < TYPE_DATA_WRITE && func < LG_WI_UNMAPPED;
        }
        size_t done;
        lg_err_t err = lg_timeline_events(r->timeline, events, k, &done);
        if (UNLIKELY(err != LG_OK)) {
            uint64_t index =
                record_of_event(r, data + i * LG_WI_BIN_RECORD_BYTES, first + i, done, v11);
            const uint8_t *rec = data + (index - first) * LG_WI_BIN_RECORD_BYTES;
            return record_error(r, err, index, le32(rec), le32(rec + 4), v11, events[done].func);
        }
        if (UNLIKELY(j < end)) {
            const uint8_t *rec = data + j * LG_WI_BIN_RECORD_BYTES;
            return record_error(r, LG_EFORMAT, first + j, le32(rec), le32(rec + 4), v11,
                                resolve(r->map, cache, le32(rec)));
        }
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
static lg_err_t choose_version(const reader_t *r, const uint8_t *data, size_t len,
                               lg_wi_bin_version_t *version)
{
    layout_fit_t fit;
    *version = detect_layout(data, len, &fit);
    if (*version != LG_WI_BIN_DETECT)
        return LG_OK;
    return lg_diag_fail(
        r->d, LG_EFORMAT, r->path,
        "cannot tell the binary timeline's layout: record %" PRIu64 " (offset 0x%" PRIx64
        ") does not fit version 1.1 (FLAGS 0x%08" PRIx32 ": bits 12-31 must be 0 and the type "
        "in bits 0-3 at most 4), record %" PRIu64 " (offset 0x%" PRIx64
        ") does not fit version 1.0 (EVENT 0x%08" PRIx32 ": bits 0-3 must be 0 and the type in "
        "bits 24-27 at most 4); give the version with --bin-version 1.0 or 1.1",
        fit.bad11, fit.bad11 * LG_WI_BIN_RECORD_BYTES, fit.word11, fit.bad10,
        fit.bad10 * LG_WI_BIN_RECORD_BYTES, fit.word10);
}

/* Opens path and checks it is a regular file of whole records; *size receives its size. */
static lg_err_t open_timeline(const char *path, lg_diag_t *d, int *fd, uint64_t *size)
{
    *fd = open(path, O_RDONLY);
    if (*fd < 0)
        return lg_diag_fail(d, LG_EIO, path, "cannot open the binary timeline: %s",
                            strerror(errno));
    struct stat st;
    lg_err_t err = LG_OK;
    if (fstat(*fd, &st) != 0)
        err = lg_diag_fail(d, LG_EIO, path, "cannot read: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        err = lg_diag_fail(d, LG_EIO, path, "the binary timeline is not a regular file");
    else if ((*size = (uint64_t)st.st_size) % LG_WI_BIN_RECORD_BYTES != 0)
        err = lg_diag_fail(d, LG_EFORMAT, path,
                           "size %" PRIu64 " bytes is not a multiple of the %u-byte record: "
                           "%" PRIu64 " trailing byte(s) after record %" PRIu64
                           " (offset 0x%" PRIx64 "); the file is cut short or not a timeline",
                           *size, LG_WI_BIN_RECORD_BYTES, *size % LG_WI_BIN_RECORD_BYTES,
                           *size / LG_WI_BIN_RECORD_BYTES, *size - *size % LG_WI_BIN_RECORD_BYTES);
    if (err != LG_OK)
        close(*fd);
    return err;
}

/* Reads exactly len bytes at offset at (read may return less at a time). */
static lg_err_t read_at(const reader_t *r, int fd, uint8_t *buf, size_t len, uint64_t at)
{
    for (size_t got = 0; got < len;) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)(at + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return lg_diag_fail(r->d, LG_EIO, r->path, "cannot read at offset 0x%" PRIx64 ": %s",
                                at + got, strerror(errno));
        if (n == 0)
            return lg_diag_fail(r->d, LG_EIO, r->path,
                                "the file ended at offset 0x%" PRIx64 " while being read: it "
                                "shrank since it was opened",
                                at + got);
        got += (size_t)n;
    }
    return LG_OK;
}

/* The version the first records show (or fails saying why neither fits). */
static lg_err_t detect_file(const reader_t *r, int fd, uint64_t size, lg_wi_bin_version_t *version)
{
    size_t len = (size_t)(size < LG_WI_BIN_DETECT_BYTES ? size : LG_WI_BIN_DETECT_BYTES);
    uint8_t *head = malloc(len > 0 ? len : 1);
    if (head == NULL)
        return lg_diag_fail(r->d, LG_ENOMEM, r->path, "out of memory");
    lg_err_t err = read_at(r, fd, head, len, 0);
    if (err == LG_OK)
        err = choose_version(r, head, len, version);
    free(head);
    return err;
}

lg_err_t lg_wi_bin_read(const char *path, lg_wi_bin_version_t version, const lg_wi_map_t *map,
                        lg_timeline_t *timeline, const lg_load_options_t *options, lg_diag_t *d)
{
    reader_t r = {path, map, timeline, d};
    if (version != LG_WI_BIN_DETECT && version != LG_WI_BIN_V1_0 && version != LG_WI_BIN_V1_1)
        return lg_diag_fail(d, LG_EINVAL, path,
                            "unknown binary timeline version %u: expected 1.0 or 1.1",
                            (unsigned)version);
    int fd;
    uint64_t size = 0;
    LG_CHECK(open_timeline(path, d, &fd, &size));
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a hint: failure changes nothing */
    lg_err_t err = version == LG_WI_BIN_DETECT ? detect_file(&r, fd, size, &version) : LG_OK;
    _Static_assert(LG_WI_BIN_READ_BYTES % LG_WI_BIN_READ_ALIGN == 0, "aligned_alloc's rule");
    uint8_t *buf = err == LG_OK ? aligned_alloc(LG_WI_BIN_READ_ALIGN, LG_WI_BIN_READ_BYTES) : NULL;
    if (err == LG_OK && buf == NULL)
        err = lg_diag_fail(d, LG_ENOMEM, path, "out of memory");
    resolve_slot_t cache[RESOLVE_CACHE_SLOTS];
    resolve_cache_init(cache);
    uint64_t next_progress = LG_WI_BIN_PROGRESS_BYTES;
    for (uint64_t at = 0; at < size && err == LG_OK;) {
        size_t len = (size_t)(size - at < LG_WI_BIN_READ_BYTES ? size - at : LG_WI_BIN_READ_BYTES);
        err = read_at(&r, fd, buf, len, at);
        if (err != LG_OK)
            break;
        uint64_t first = at / LG_WI_BIN_RECORD_BYTES;
        size_t n = len / LG_WI_BIN_RECORD_BYTES;
        err = version == LG_WI_BIN_V1_1 ? feed_v11(&r, cache, buf, n, first)
                                        : feed_v10(&r, cache, buf, n, first);
        at += len;
        if (err == LG_OK && options != NULL && options->progress != NULL &&
            (at >= next_progress || at == size)) {
            options->progress(options->progress_ctx, path, at, size);
            next_progress = at + LG_WI_BIN_PROGRESS_BYTES;
        }
    }
    free(buf);
    close(fd);
    return err;
}
