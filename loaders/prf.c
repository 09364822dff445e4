/* prf.c - read CodeScape profiler files (.prf) into an lg_profile_t.
 *
 * The file is read front to back through the source's window (source.h), moved to the record
 * being opened (from memory, the caller's memory is the window).
 * Memory therefore stays the same however large the file is, and reading stops at the first bad
 * record: a valid profile followed by gigabytes of zeros costs one window, not the file. Records
 * are decoded through a cursor that checks every read against the end of the record and of the
 * window, so no value in a corrupt file can move a read outside the buffer. The sections are
 * read in file order, which place_sections checks, so the window only ever moves forward:
 *   header     profile type, counter kinds, and the count and offset of each section
 *   overlays   each record's size is checked and its contents skipped (see docs/loaders/prf.md)
 *   functions  one lg_pfunc_t per Function Data record
 *   trace      trace profiles only: call and return records from the trace offset to the end of
 *              the file, a calling-context tree written depth first
 *
 * Definitions:
 *   section    the records of one kind; it starts at its header offset and must end before the
 *              next section present in the file (or the end of the file)
 *   open call  a call record whose return record has not been read yet. Open calls form a stack;
 *              the innermost one is the caller of the next call record
 *   edge       caller -> callee, weighted by the hits of the callee's call record: those hits
 *              count the calls along exactly that path, so summing them over the records directly
 *              under a caller's records gives the calls from caller to callee
 *
 * Every failure is one error diagnostic, "PATH:0xOFFSET: SECTION record N: ..." or
 * "PATH:0xOFFSET: header: ...", where OFFSET is the start of the record (or header field) at
 * fault and N counts from 0 within the section. The profile is then left empty.
 */
#include "prf.h"

#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of the leading size field of the header and of every record. */
#define SIZE_FIELD_BYTES 4u
/* Header bytes lorgen does not use before the type byte: version, 2 spare, icache, date, time. */
#define HEADER_UNUSED_BEFORE_TYPE 10u
/* Header counters (counter 1/2, total and self, 4 x u64): lorgen keeps the per-function ones. */
#define HEADER_COUNTER_BYTES 32u

/* Fields shared by Function Data and Trace Function Call records, description through counter 2
 * self: 1 + 2 + 2 + 5 * 4 + 8 spare + 5 * 8 bytes. */
#define FIELDS_BYTES 73u
/* The three u16 string lengths that follow those fields. */
#define STRING_LENGTHS_BYTES 6u
/* Overlay area, overlay id, group id (3 x u32) and 8 spare bytes: not used by lorgen. */
#define FIELDS_UNUSED_BYTES 20u
/* Kind byte and call number: all of a return record, and the start of a call record. */
#define TRACE_PREFIX_BYTES 5u

/* Smallest size field of each kind of record: everything up to the strings, strings empty. */
#define OVERLAY_MIN_SIZE 16u
#define FUNCTION_MIN_SIZE (FIELDS_BYTES + STRING_LENGTHS_BYTES)
#define CALL_MIN_SIZE (TRACE_PREFIX_BYTES + FIELDS_BYTES + STRING_LENGTHS_BYTES)

#define TRACE_CALL 0xFFu
#define TRACE_RETURN 0x00u

/* Room for one string a u16 length can describe, and its terminating NUL. */
#define STRING_BUFFER_BYTES ((size_t)UINT16_MAX + 1u)
/* Most bytes of one record that are decoded: the size field, a call record's kind and number,
 * the fields, and three strings of the longest length a u16 can give. Bytes a later version
 * appends to a record are stepped over unread. */
#define RECORD_READ_MAX                                                                            \
    (SIZE_FIELD_BYTES + TRACE_PREFIX_BYTES + FIELDS_BYTES + STRING_LENGTHS_BYTES +                 \
     3u * (size_t)UINT16_MAX)
/* Header bytes that are decoded: the magic, the header's size field and the fields the guide
 * documents. A larger header's later fields are stepped over unread. */
#define HEADER_READ_MAX (LG_PRF_MAGIC_LEN + SIZE_FIELD_BYTES + LG_PRF_HEADER_SIZE)
/* The magic as text when it is wrong: each byte printed as itself or as \xNN. */
#define MAGIC_TEXT_BYTES (LG_PRF_MAGIC_LEN * 4u + 1u)

/* A read position and the end it may not pass, as file offsets, over the window that holds
 * file bytes [base, base + avail). A read past the end or the window yields zeros and sets
 * `overrun` instead of touching memory; callers check sizes first, so it is a last line. */
typedef struct cursor {
    const uint8_t *data; /* the window: file offset base */
    size_t base, avail;
    size_t pos, end; /* base <= pos <= base + avail */
    bool overrun;
} cursor_t;

static const uint8_t *take(cursor_t *c, size_t n)
{
    if (c->overrun || n > c->end - c->pos || n > c->base + c->avail - c->pos) {
        c->overrun = true;
        return NULL;
    }
    const uint8_t *p = c->data + (c->pos - c->base);
    c->pos += n;
    return p;
}

static uint64_t get_le(cursor_t *c, unsigned bytes)
{
    const uint8_t *p = take(c, bytes);
    uint64_t v = 0;
    for (unsigned i = 0; p != NULL && i < bytes; i++)
        v |= (uint64_t)p[i] << (8u * i);
    return v;
}

static uint8_t get_u8(cursor_t *c)
{
    return (uint8_t)get_le(c, 1);
}

static uint16_t get_u16(cursor_t *c)
{
    return (uint16_t)get_le(c, 2);
}

static uint32_t get_u32(cursor_t *c)
{
    return (uint32_t)get_le(c, 4);
}

static uint64_t get_u64(cursor_t *c)
{
    return get_le(c, 8);
}

/* Where a diagnostic points. */
typedef struct where {
    size_t offset;       /* file offset of the record or header field at fault */
    const char *section; /* "overlay", "function", "trace"; NULL for the header */
    uint64_t index;      /* record index within the section, from 0 */
} where_t;

typedef struct open_call {
    uint32_t call_number;
    uint32_t func; /* index into the profile's funcs */
} open_call_t;

/* A run of records: one section of the file. */
typedef struct section {
    const char *name;       /* names its records in diagnostics: "function record 3" */
    const char *plural;     /* its records in count messages: "functions" */
    bool present;           /* the header says it has records (trace: it has a trace offset) */
    uint32_t count;         /* records the header announces */
    size_t offset_field;    /* file offset of the header field holding its offset */
    uint32_t offset;        /* from the end of the header */
    size_t start, limit;    /* file offsets; its records must lie in [start, limit) */
    const char *limit_name; /* what lies at limit, for messages */
} section_t;

enum { SECTION_OVERLAYS, SECTION_FUNCTIONS, SECTION_TRACE, SECTION_COUNT };

typedef struct reader {
    lg_source_t *src;
    const uint8_t *data; /* the source's window: file bytes [base, base + avail) */
    size_t base, avail;
    size_t size;  /* of the file */
    lg_profile_t *out;

    uint8_t type; /* LG_PRF_TYPE_* */
    size_t header_end;
    section_t sections[SECTION_COUNT];

    char *strings;    /* three STRING_BUFFER_BYTES buffers: name, link label, qualified name */
    open_call_t *stack; /* the open calls, innermost last */
    size_t depth, stack_cap;

    /* Warnings, reported only when the whole file has loaded. */
    size_t listed_funcs;        /* functions from the function data; later ones come from calls */
    uint64_t unlisted_records;  /* call records naming a function the function data lacks */
    where_t first_unlisted;
    uint32_t first_unlisted_func;
    uint64_t duplicate_funcs;   /* function records identical in name, label and qualified name */
    uint32_t first_duplicate;
} reader_t;


static void report(const reader_t *r, lg_severity_t severity, const where_t *at, const char *fmt,
                   va_list ap) __attribute__((format(printf, 4, 0)));

/* At "PATH:0xOFFSET: SECTION record N" or "PATH:0xOFFSET: header". */
static void report(const reader_t *r, lg_severity_t severity, const where_t *at, const char *fmt,
                   va_list ap)
{
    lg_source_vreport_record(r->src, severity, at->offset,
                             at->section != NULL ? at->section : "header",
                             at->section != NULL ? at->index : LG_SOURCE_NO_RECORD, fmt, ap);
}

static lg_err_t fail(const reader_t *r, lg_err_t err, const where_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static lg_err_t fail(const reader_t *r, lg_err_t err, const where_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(r, LG_ERROR, at, fmt, ap);
    va_end(ap);
    return err;
}

static void warn(const reader_t *r, const where_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn(const reader_t *r, const where_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(r, LG_WARNING, at, fmt, ap);
    va_end(ap);
}

/* A cursor at pos, which the window must hold (window_fill). */
static cursor_t cursor_at(const reader_t *r, size_t pos, size_t end)
{
    return (cursor_t){r->data, r->base, r->avail, pos, end, false};
}

/* Makes file bytes [pos, pos + n) readable through r->data, n cut at the end of the file. From a
 * file, the source's window is moved to pos when it does not hold them already. at names the
 * record when the file turns out shorter than when it was opened. */
static lg_err_t window_fill(reader_t *r, const where_t *at, size_t pos, size_t n)
{
    if (n > r->size - pos)
        n = r->size - pos;
    if (pos >= r->base && pos - r->base <= r->avail && n <= r->avail - (pos - r->base))
        return LG_OK;
    LG_CHECK(lg_source_window(r->src, pos, n));
    r->data = r->src->data;
    r->base = (size_t)r->src->base;
    r->avail = r->src->len;
    if (r->avail - (pos - r->base) < n)
        return fail(r, LG_EIO, at,
                    "the file ends at 0x%zx, but it was %zu bytes when opened: did another "
                    "program change it?",
                    r->base + r->avail, r->size);
    return LG_OK;
}

/* Renders up to LG_PRF_MAGIC_LEN bytes for a message, printable ASCII as is. */
static void magic_text(const uint8_t *p, size_t n, char out[MAGIC_TEXT_BYTES])
{
    size_t k = 0;
    for (size_t i = 0; i < n && i < LG_PRF_MAGIC_LEN; i++) {
        bool printable = p[i] >= ' ' && p[i] <= '~'; /* printable ASCII */
        if (printable && p[i] != '"' && p[i] != '\\')
            out[k++] = (char)p[i];
        else
            k += (size_t)snprintf(out + k, MAGIC_TEXT_BYTES - k, "\\x%02x", p[i]);
    }
    out[k] = '\0';
}

bool lg_prf_probe(const uint8_t *head, size_t len)
{
    return head != NULL && len >= LG_PRF_MAGIC_LEN &&
           memcmp(head, LG_PRF_MAGIC, LG_PRF_MAGIC_LEN) == 0;
}

static void init_section(section_t *s, const char *name, const char *plural, uint32_t count,
                         size_t offset_field, uint32_t offset)
{
    *s = (section_t){.name = name, .plural = plural, .present = count > 0, .count = count,
                     .offset_field = offset_field, .offset = offset};
}

/* Places each present section and bounds it by the next one: the guide lists the sections in
 * file order, so a section that starts before its predecessor means a corrupt offset. */
static lg_err_t place_sections(reader_t *r)
{
    section_t *prev = NULL;
    for (size_t i = 0; i < SECTION_COUNT; i++) {
        section_t *s = &r->sections[i];
        if (!s->present)
            continue;
        where_t at = {s->offset_field, NULL, 0};
        uint64_t start = (uint64_t)r->header_end + s->offset;
        if (start > r->size)
            return fail(r, LG_EFORMAT, &at,
                        "%s data offset 0x%" PRIx32 " points past the end of the file (file "
                        "offset 0x%" PRIx64 ", file is %zu bytes)",
                        s->name, s->offset, start, r->size);
        s->start = (size_t)start;
        s->limit = r->size;
        s->limit_name = "the file ends";
        if (prev != NULL) {
            if (s->start < prev->start)
                return fail(r, LG_EFORMAT, &at,
                            "expected the %s data after the %s data at 0x%zx, found it at "
                            "0x%zx",
                            s->name, prev->name, prev->start, s->start);
            prev->limit = s->start;
            prev->limit_name = i == SECTION_TRACE ? "the trace records begin"
                                                  : "the function data begins";
        }
        prev = s;
    }
    return LG_OK;
}

static lg_err_t read_header(reader_t *r)
{
    where_t at = {0, NULL, 0};
    LG_CHECK(window_fill(r, &at, 0, HEADER_READ_MAX));
    if (r->size < LG_PRF_MAGIC_LEN || memcmp(r->data, LG_PRF_MAGIC, LG_PRF_MAGIC_LEN) != 0) {
        char found[MAGIC_TEXT_BYTES];
        magic_text(r->data, r->size, found);
        return fail(r, LG_EFORMAT, &at, "expected the magic \"%s\", found \"%s\"", LG_PRF_MAGIC,
                    found);
    }
    at.offset = LG_PRF_MAGIC_LEN;
    if (r->size - LG_PRF_MAGIC_LEN < SIZE_FIELD_BYTES)
        return fail(r, LG_EFORMAT, &at,
                    "header size field runs past the end of the file (file is %zu bytes)",
                    r->size);
    cursor_t c = cursor_at(r, LG_PRF_MAGIC_LEN, r->size);
    uint32_t header_size = get_u32(&c);
    /* A larger header is a later version with fields appended; a smaller one lacks fields. */
    if (header_size < LG_PRF_HEADER_SIZE)
        return fail(r, LG_EFORMAT, &at,
                    "expected a header size of at least %u (0x%x), found %" PRIu32,
                    LG_PRF_HEADER_SIZE, LG_PRF_HEADER_SIZE, header_size);
    if (header_size > r->size - c.pos)
        return fail(r, LG_EFORMAT, &at,
                    "header size %" PRIu32 " runs past the end of the file (file is %zu bytes)",
                    header_size, r->size);
    r->header_end = c.pos + header_size;
    c.end = r->header_end;

    lg_profile_t *out = r->out;
    take(&c, HEADER_UNUSED_BEFORE_TYPE);
    size_t type_field = c.pos;
    r->type = get_u8(&c);
    out->total_hits = get_u64(&c);
    take(&c, HEADER_COUNTER_BYTES);
    out->counter1_kind = get_u8(&c);
    out->counter2_kind = get_u8(&c);
    size_t counts_field = c.pos;
    uint32_t noverlays = get_u32(&c);
    uint32_t nfuncs = get_u32(&c);
    uint32_t ncalls = get_u32(&c);
    size_t offsets_field = c.pos;
    uint32_t overlay_offset = get_u32(&c);
    uint32_t func_offset = get_u32(&c);
    uint32_t trace_offset = get_u32(&c);

    at.offset = type_field;
    if (r->type != LG_PRF_TYPE_STATISTICAL && r->type != LG_PRF_TYPE_TRACE)
        return fail(r, LG_EFORMAT, &at,
                    "expected profile type %u (statistical) or %u (trace), found %u",
                    LG_PRF_TYPE_STATISTICAL, LG_PRF_TYPE_TRACE, r->type);
    at.offset = counts_field + sizeof(uint32_t);
    /* Checked before anything is sized by it: such a count is corruption, not a big program. */
    if (nfuncs > LG_PROFILE_MAX_FUNCS)
        return fail(r, LG_ELIMIT, &at,
                    "header says %" PRIu32 " functions, more than the %u lorgen reads "
                    "(LG_PROFILE_MAX_FUNCS)",
                    nfuncs, LG_PROFILE_MAX_FUNCS);
    at.offset = counts_field + 2 * sizeof(uint32_t);
    if (r->type == LG_PRF_TYPE_STATISTICAL && ncalls != 0)
        return fail(r, LG_EFORMAT, &at,
                    "expected 0 calls in a statistical profile (type %u), found %" PRIu32,
                    LG_PRF_TYPE_STATISTICAL, ncalls);
    if (c.overrun) /* unreachable: header_size >= LG_PRF_HEADER_SIZE covers every field */
        return fail(r, LG_EFORMAT, &at, "header ends before its fields");

    init_section(&r->sections[SECTION_OVERLAYS], "overlay", "overlays", noverlays,
                 offsets_field, overlay_offset);
    init_section(&r->sections[SECTION_FUNCTIONS], "function", "functions", nfuncs,
                 offsets_field + sizeof(uint32_t), func_offset);
    init_section(&r->sections[SECTION_TRACE], "trace", "calls", ncalls,
                 offsets_field + 2 * sizeof(uint32_t), trace_offset);
    /* The guide stores "no trace" as offset 0 with 0 calls. Any other offset in a trace profile
     * is read, so that records the count does not mention are noticed. */
    r->sections[SECTION_TRACE].present =
        r->type == LG_PRF_TYPE_TRACE && (ncalls != 0 || trace_offset != 0);
    return place_sections(r);
}

/* Checks that a record fits in its section and positions *c on its contents. min_size is the
 * smallest size field for kind (e.g. "a function"); larger records are later versions of the
 * format, their extra bytes ignored. */
static lg_err_t open_record(reader_t *r, const section_t *s, const where_t *at,
                            uint32_t min_size, const char *kind, cursor_t *c)
{
    size_t left = r->size - at->offset;
    if (left < SIZE_FIELD_BYTES)
        return fail(r, LG_EFORMAT, at,
                    "only %zu bytes left before the end of the file, too few for a record size",
                    left);
    LG_CHECK(window_fill(r, at, at->offset, RECORD_READ_MAX));
    *c = cursor_at(r, at->offset, r->size);
    uint32_t size = get_u32(c);
    if (size < min_size)
        return fail(r, LG_EFORMAT, at,
                    "record size %" PRIu32 " is too small for %s record (at least %" PRIu32 ")",
                    size, kind, min_size);
    if (size > left - SIZE_FIELD_BYTES)
        return fail(r, LG_EFORMAT, at,
                    "record size %" PRIu32 " runs past the end of the file (file is %zu bytes)",
                    size, r->size);
    c->end = c->pos + size;
    if (c->end > s->limit)
        return fail(r, LG_EFORMAT, at,
                    "record size %" PRIu32 " runs past 0x%zx, where %s", size, s->limit,
                    s->limit_name);
    return LG_OK;
}

/* Opens record `index` of a section with a header count, at pos: the section must not end
 * (reach its limit) before the count does. */
static lg_err_t open_counted_record(reader_t *r, const section_t *s, size_t pos,
                                    uint32_t index, uint32_t min_size, const char *kind,
                                    where_t *at, cursor_t *c)
{
    *at = (where_t){pos, s->name, index};
    if (pos == s->limit)
        return fail(r, LG_EFORMAT, at,
                    "header says %" PRIu32 " %s but the %s data holds only %" PRIu32 " before %s",
                    s->count, s->plural, s->name, index, s->limit_name);
    return open_record(r, s, at, min_size, kind, c);
}

/* Reads one u16-length string into buf (STRING_BUFFER_BYTES) as a C string. */
static lg_err_t read_string(const reader_t *r, const where_t *at, cursor_t *c, const char *what,
                            char *buf)
{
    if (c->end - c->pos < sizeof(uint16_t))
        return fail(r, LG_EFORMAT, at, "record ends before the %s length", what);
    uint16_t n = get_u16(c);
    if (n > c->end - c->pos)
        return fail(r, LG_EFORMAT, at,
                    "%s length %u runs past the end of the record (%zu bytes left)", what, n,
                    c->end - c->pos);
    const uint8_t *s = take(c, n);
    /* A writer may have counted a C string's terminator in the length. */
    size_t len = n;
    while (len > 0 && s[len - 1] == '\0')
        len--;
    const void *nul = len > 0 ? memchr(s, '\0', len) : NULL;
    if (nul != NULL)
        return fail(r, LG_EFORMAT, at, "expected a %s without NUL bytes, found one at byte %zu",
                    what, (size_t)((const uint8_t *)nul - s));
    if (len > 0)
        memcpy(buf, s, len);
    buf[len] = '\0';
    return LG_OK;
}

/* Decodes the fields Function Data and Trace Function Call records share, description through
 * qualified name. f's strings then point into r->strings, valid until the next record. */
static lg_err_t read_fields(const reader_t *r, const where_t *at, cursor_t *c, lg_pfunc_t *f)
{
    *f = (lg_pfunc_t){0};
    f->description = get_u8(c);
    f->attributes = get_u16(c);
    (void)get_u16(c); /* cache line: where the function sat in the profiled layout */
    f->pc_min = get_u32(c);
    f->pc_max = get_u32(c);
    take(c, FIELDS_UNUSED_BYTES);
    f->hits = get_u64(c);
    f->counter1_total = get_u64(c);
    f->counter1_self = get_u64(c);
    f->counter2_total = get_u64(c);
    f->counter2_self = get_u64(c);
    if (f->pc_min > f->pc_max)
        return fail(r, LG_EFORMAT, at,
                    "expected pc min <= pc max, found 0x%" PRIx64 " > 0x%" PRIx64, f->pc_min,
                    f->pc_max);
    char *name = r->strings, *label = name + STRING_BUFFER_BYTES,
         *qual = label + STRING_BUFFER_BYTES;
    LG_CHECK(read_string(r, at, c, "name", name));
    LG_CHECK(read_string(r, at, c, "link label", label));
    LG_CHECK(read_string(r, at, c, "qualified name", qual));
    if (c->overrun) /* unreachable: the caller checked the record's size */
        return fail(r, LG_EFORMAT, at, "record ends before its fields");
    if (*name == '\0')
        return fail(r, LG_EFORMAT, at, "expected a function name, found an empty one");
    f->name = name;
    f->link_label = label;
    f->qual_name = qual;
    return LG_OK;
}

static lg_err_t add_func(const reader_t *r, const where_t *at, const lg_pfunc_t *f, uint32_t *id)
{
    lg_err_t err = lg_profile_add_func(r->out, f, id);
    if (err == LG_ELIMIT)
        return fail(r, err, at, "more than %u functions (LG_PROFILE_MAX_FUNCS)",
                    LG_PROFILE_MAX_FUNCS);
    if (err != LG_OK)
        return fail(r, err, at, "out of memory adding function '%s'", f->name);
    return LG_OK;
}

/* Overlay records are stepped over: lorgen orders functions, overlay areas are not its concern.
 * Their sizes are still checked, so a wrong count or offset is noticed. */
static lg_err_t read_overlays(reader_t *r)
{
    const section_t *s = &r->sections[SECTION_OVERLAYS];
    size_t pos = s->start;
    for (uint32_t i = 0; i < s->count; i++) {
        where_t at;
        cursor_t c;
        LG_CHECK(open_counted_record(r, s, pos, i, OVERLAY_MIN_SIZE, "an overlay", &at, &c));
        pos = c.end;
    }
    return LG_OK;
}

static lg_err_t read_functions(reader_t *r)
{
    const section_t *s = &r->sections[SECTION_FUNCTIONS];
    size_t pos = s->start;
    for (uint32_t i = 0; i < s->count; i++) {
        where_t at;
        cursor_t c;
        lg_pfunc_t f;
        LG_CHECK(open_counted_record(r, s, pos, i, FUNCTION_MIN_SIZE, "a function", &at, &c));
        LG_CHECK(read_fields(r, &at, &c, &f));
        int64_t earlier = lg_profile_find(r->out, f.name, f.link_label, f.qual_name);
        if (earlier >= 0 && r->duplicate_funcs++ == 0)
            r->first_duplicate = (uint32_t)earlier;
        LG_CHECK(add_func(r, &at, &f, NULL));
        pos = c.end;
    }
    r->listed_funcs = r->out->nfuncs;
    return LG_OK;
}

/* A call record: finds (or adds) its function, weighs the edge from the innermost open call,
 * and opens the call. c is positioned after the call number. */
static lg_err_t enter_call(reader_t *r, const section_t *s, const where_t *at, cursor_t *c,
                           uint32_t number)
{
    lg_profile_t *out = r->out;
    uint32_t size = (uint32_t)(c->end - at->offset - SIZE_FIELD_BYTES);
    if (size < CALL_MIN_SIZE)
        return fail(r, LG_EFORMAT, at,
                    "record size %" PRIu32 " is too small for a call record (at least %u)", size,
                    CALL_MIN_SIZE);
    if (out->call_records == s->count)
        return fail(r, LG_EFORMAT, at,
                    "header says %" PRIu32 " calls, found %" PRIu64 " call records", s->count,
                    out->call_records + 1);
    lg_pfunc_t f;
    LG_CHECK(read_fields(r, at, c, &f));
    if (r->depth == LG_PRF_MAX_DEPTH)
        return fail(r, LG_ELIMIT, at, "calls nest deeper than %u (LG_PRF_MAX_DEPTH)",
                    LG_PRF_MAX_DEPTH);

    uint32_t id;
    int64_t found = lg_profile_find(out, f.name, f.link_label, f.qual_name);
    if (found >= 0) {
        id = (uint32_t)found;
    } else {
        /* The function data should list every function a call names. Keep the call rather
         * than drop the path under it; the function gets no totals of its own. */
        lg_pfunc_t unlisted = {.name = f.name, .link_label = f.link_label,
                               .qual_name = f.qual_name, .pc_min = f.pc_min, .pc_max = f.pc_max,
                               .description = f.description, .attributes = f.attributes};
        LG_CHECK(add_func(r, at, &unlisted, &id));
    }
    if (id >= r->listed_funcs && r->unlisted_records++ == 0) {
        r->first_unlisted = *at;
        r->first_unlisted_func = id;
    }
    if (r->depth > 0) {
        lg_err_t err = lg_profile_add_edge(out, r->stack[r->depth - 1].func, id, f.hits);
        if (err != LG_OK)
            return fail(r, err, at, "out of memory adding a call edge");
    }
    if (!lg_grow((void **)&r->stack, &r->stack_cap, r->depth + 1, sizeof *r->stack))
        return fail(r, LG_ENOMEM, at, "out of memory opening call %" PRIu32, number);
    r->stack[r->depth++] = (open_call_t){number, id};
    out->call_records++;
    return LG_OK;
}

static lg_err_t leave_call(reader_t *r, const where_t *at, uint32_t number)
{
    if (r->depth == 0)
        return fail(r, LG_EFORMAT, at, "return for call %" PRIu32 " but no call is open",
                    number);
    uint32_t innermost = r->stack[r->depth - 1].call_number;
    if (number != innermost)
        return fail(r, LG_EFORMAT, at,
                    "return for call %" PRIu32 " but the innermost open call is %" PRIu32,
                    number, innermost);
    r->depth--;
    return LG_OK;
}

static lg_err_t read_trace(reader_t *r)
{
    const section_t *s = &r->sections[SECTION_TRACE];
    size_t pos = s->start;
    uint64_t index = 0;
    /* The trace is the last section: its records run to the end of the file. */
    for (; pos < r->size; index++) {
        where_t at = {pos, s->name, index};
        cursor_t c;
        LG_CHECK(open_record(r, s, &at, TRACE_PREFIX_BYTES, "a trace", &c));
        uint8_t kind = get_u8(&c);
        uint32_t number = get_u32(&c);
        if (kind == TRACE_CALL)
            LG_CHECK(enter_call(r, s, &at, &c, number));
        else if (kind == TRACE_RETURN)
            LG_CHECK(leave_call(r, &at, number));
        else
            return fail(r, LG_EFORMAT, &at,
                        "expected 0x%02X (call) or 0x%02X (return), found 0x%02x", TRACE_CALL,
                        TRACE_RETURN, kind);
        pos = c.end;
    }
    where_t end = {pos, s->name, index};
    if (r->depth > 0) {
        const open_call_t *inner = &r->stack[r->depth - 1];
        return fail(r, LG_EFORMAT, &end,
                    "trace ends with %zu call%s never returned (innermost: call %" PRIu32
                    " to '%s')",
                    r->depth, r->depth == 1 ? "" : "s", inner->call_number,
                    r->out->funcs[inner->func].name);
    }
    if (r->out->call_records != s->count)
        return fail(r, LG_EFORMAT, &end,
                    "header says %" PRIu32 " calls, found %" PRIu64 " call records", s->count,
                    r->out->call_records);
    return LG_OK;
}

static lg_err_t read_profile(reader_t *r)
{
    lg_profile_t *out = r->out;
    if (lg_profile_set_path(out, r->src->path) != LG_OK)
        return lg_diag_fail(r->src->d, LG_ENOMEM, r->src->path, "out of memory");
    LG_CHECK(read_header(r));
    out->format = "prf";
    out->kind = r->type == LG_PRF_TYPE_TRACE ? LG_PROFILE_TRACE : LG_PROFILE_STATISTICAL;
    out->has_call_edges = r->type == LG_PRF_TYPE_TRACE;

    r->strings = malloc(3 * STRING_BUFFER_BYTES);
    if (r->strings == NULL)
        return lg_diag_fail(r->src->d, LG_ENOMEM, r->src->path, "out of memory");
    LG_CHECK(read_overlays(r));
    LG_CHECK(read_functions(r));
    if (r->sections[SECTION_TRACE].present)
        LG_CHECK(read_trace(r));
    lg_profile_finish_edges(out);
    return LG_OK;
}

/* Warnings wait until the file has loaded: a failed load reports its one error alone. */
static void report_warnings(const reader_t *r)
{
    const lg_profile_t *out = r->out;
    if (r->unlisted_records > 0)
        warn(r, &r->first_unlisted,
             "%" PRIu64 " call record(s) name functions missing from the function data, first "
             "'%s'; added %zu function(s) with zero totals",
             r->unlisted_records, out->funcs[r->first_unlisted_func].name,
             out->nfuncs - r->listed_funcs);
    if (r->duplicate_funcs > 0) {
        where_t at = {r->sections[SECTION_FUNCTIONS].start, "function", 0};
        warn(r, &at,
             "%" PRIu64 " function record(s) repeat the name, link label and qualified name of "
             "an earlier one, first '%s'; calls are matched to the earliest",
             r->duplicate_funcs, out->funcs[r->first_duplicate].name);
    }
    const section_t *trace = &r->sections[SECTION_TRACE];
    if (r->type == LG_PRF_TYPE_STATISTICAL && trace->offset != 0) {
        where_t at = {trace->offset_field, NULL, 0};
        warn(r, &at,
             "statistical profile has trace offset 0x%" PRIx32 " (expected 0); ignored",
             trace->offset);
    }
}

lg_err_t lg_prf_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out)
{
    (void)options;
    /* A pipe is read whole first: the checks need the file's size. */
    LG_CHECK(lg_source_read_all(src));
    if (src->size > SIZE_MAX)
        return lg_diag_fail(src->d, LG_ELIMIT, src->path,
                            "file of %" PRIu64 " bytes is too large to address", src->size);
    reader_t r = {.src = src, .data = src->data, .base = (size_t)src->base, .avail = src->len,
                  .size = (size_t)src->size, .out = out};
    lg_err_t err = read_profile(&r);
    if (err == LG_OK)
        report_warnings(&r);
    free(r.strings);
    free(r.stack);
    return err;
}

/* The guide's Counter Description Table. */
static const struct {
    uint8_t kind;
    const char *name;
} counter_names[] = {
    {0x01, "Operand access (read/with cache)"},
    {0x02, "Operand access (write/with cache)"},
    {0x03, "UTLB miss"},
    {0x04, "Operand cache read miss"},
    {0x05, "Operand cache write miss"},
    {0x06, "Instruction fetch (with cache)"},
    {0x07, "Instruction TLB miss"},
    {0x08, "Instruction cache miss"},
    {0x09, "All operand access"},
    {0x0a, "All instruction access"},
    {0x0b, "On-chip RAM operand access"},
    {0x0c, "On-chip RAM instruction access"},
    {0x0d, "On-chip I/O space access"},
    {0x0e, "Operand access (read + write/with cache)"},
    {0x0f, "Operand cache read + write miss"},
    {0x10, "Branch instruction"},
    {0x11, "Branch taken"},
    {0x12, "BSR/BSRF/JSR"},
    {0x13, "Instruction execution"},
    {0x14, "2-instruction simultaneous execution"},
    {0x15, "FPU instruction execution"},
    {0x16, "Interrupt (normal)"},
    {0x17, "Interrupt (NMI)"},
    {0x18, "TRAPA instruction execution"},
    {0x19, "UBC-A match"},
    {0x1a, "UBC-B match"},
    {0x21, "Instruction cache fill"},
    {0x22, "Operand cache fill"},
    {0x23, "Elapsed time"},
    {0x24, "Pipeline freeze (by cache miss/instruction)"},
    {0x25, "Pipeline freeze (by cache miss/data)"},
    {0x27, "Pipeline freeze (by branch instruction)"},
    {0x28, "Pipeline freeze (by CPU register)"},
    {0x29, "Pipeline freeze (by FPU)"},
};

const char *lg_prf_counter_name(uint8_t kind)
{
    if (kind == 0)
        return "none";
    for (size_t i = 0; i < sizeof counter_names / sizeof counter_names[0]; i++)
        if (counter_names[i].kind == kind)
            return counter_names[i].name;
    return "unknown";
}
