/* prf_write.c - build CodeScape profiler files (.prf) in memory, byte for byte.
 *
 * This file uses nothing but the C library and the types in prf.h, because besides the tests it is
 * compiled into the small tracing runtime that is linked into profiled programs, possibly for
 * another CPU (SH-4, ARM). So no lg_diag_*: a failure is kept in the write buffer
 * (write_buffer.h), later writes do nothing, and lg_prf_writer_finish returns it.
 *
 * Records are appended as they come; the counts and section offsets in the header are only known
 * at the end and are patched in by lg_prf_writer_finish. Layout: docs/loaders/prf.md.
 */
#include "prf.h"
#include "write_buffer.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the leading size field of the header and of every record. */
#define SIZE_FIELD_BYTES 4u
/* Spare bytes at the end of the header (bytes 81-88). */
#define HEADER_SPARE_BYTES 8u
/* Header fields patched by finish, as offsets from the start of the header's size field. */
#define HDR_NOVERLAYS 57u
#define HDR_NFUNCS 61u
#define HDR_NCALLS 65u
#define HDR_OVERLAY_OFFSET 69u
#define HDR_FUNC_OFFSET 73u
#define HDR_TRACE_OFFSET 77u
/* File offset of the first byte after the header: the base of the header's section offsets. */
#define HEADER_END (LG_PRF_MAGIC_LEN + SIZE_FIELD_BYTES + LG_PRF_HEADER_SIZE)

/* Fields shared by Function Data and Trace Function Call records, description through counter 2
 * self: 1 + 2 + 2 + 5 * 4 + 8 spare + 5 * 8 bytes. */
#define FIELDS_BYTES 73u
/* Spare bytes inside those fields, after the group id. */
#define FIELDS_SPARE_BYTES 8u
/* Each of the three strings is preceded by its length as a u16. */
#define STRING_LENGTH_BYTES 2u
#define STRING_MAX_BYTES UINT16_MAX
/* A call record starts with the kind byte and the call number before the shared fields. */
#define TRACE_PREFIX_BYTES 5u
/* Size field of an overlay record: area, start, end, current overlay (4 x u32). */
#define OVERLAY_SIZE 16u

#define TRACE_CALL 0xFFu
#define TRACE_RETURN 0x00u

/* "No section yet" in the writer's offset fields. */
#define NO_SECTION SIZE_MAX

/* Stores the low `bytes` bytes of v at p, least significant first, whatever the host's order. */
static void store_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8u * i));
}

static void put_le(lg_prf_writer_t *w, uint64_t v, unsigned bytes)
{
    uint8_t buf[sizeof(uint64_t)];
    store_le(buf, v, bytes);
    lg_write_buffer_put(&w->buf, buf, bytes);
}

static void put_u8(lg_prf_writer_t *w, uint8_t v)
{
    lg_write_buffer_put(&w->buf, &v, 1);
}

static void put_u16(lg_prf_writer_t *w, uint16_t v)
{
    put_le(w, v, 2);
}

static void put_u32(lg_prf_writer_t *w, uint32_t v)
{
    put_le(w, v, 4);
}

static void put_u64(lg_prf_writer_t *w, uint64_t v)
{
    put_le(w, v, 8);
}

void lg_prf_writer_init(lg_prf_writer_t *w, const lg_prf_header_t *header)
{
    memset(w, 0, sizeof *w);
    w->overlay_offset = w->func_offset = w->trace_offset = NO_SECTION;
    if (header == NULL) {
        lg_write_buffer_fail(&w->buf, LG_EINVAL);
        return;
    }
    w->header = *header;
    const lg_prf_header_t *h = &w->header;
    lg_write_buffer_put(&w->buf, LG_PRF_MAGIC, LG_PRF_MAGIC_LEN);
    put_u32(w, LG_PRF_HEADER_SIZE);
    put_u8(w, h->version);
    lg_write_buffer_zeros(&w->buf, 2); /* spare */
    put_u8(w, h->icache_enabled);
    put_u8(w, h->day);
    put_u8(w, h->month);
    put_u8(w, h->year);
    put_u8(w, h->hour);
    put_u8(w, h->minute);
    put_u8(w, h->second);
    put_u8(w, h->type);
    put_u64(w, h->total_hits);
    put_u64(w, h->counter1_total);
    put_u64(w, h->counter1_self);
    put_u64(w, h->counter2_total);
    put_u64(w, h->counter2_self);
    put_u8(w, h->counter1_kind);
    put_u8(w, h->counter2_kind);
    /* Counts and offsets (bytes 57-80) are patched by finish; then the spare bytes. */
    lg_write_buffer_zeros(&w->buf, 6 * sizeof(uint32_t) + HEADER_SPARE_BYTES);
}

void lg_prf_writer_destroy(lg_prf_writer_t *w)
{
    if (w == NULL)
        return;
    free(w->buf.data);
    memset(w, 0, sizeof *w);
}

/* Marks the start of a section at the current end of the file. A section whose successor has
 * started can take no more records: the header gives each section one contiguous range. */
static bool enter_section(lg_prf_writer_t *w, size_t *section, bool later_started)
{
    if (w->buf.failed)
        return false;
    if (later_started) {
        lg_write_buffer_fail(&w->buf, LG_EINVAL);
        return false;
    }
    if (*section == NO_SECTION)
        *section = w->buf.size;
    return true;
}

/* Adds one to a header count, which must stay within its u32 field. */
static bool count_record(lg_prf_writer_t *w, uint32_t *count)
{
    if (*count == UINT32_MAX) {
        lg_write_buffer_fail(&w->buf, LG_ELIMIT);
        return false;
    }
    (*count)++;
    return true;
}

void lg_prf_write_overlay(lg_prf_writer_t *w, uint32_t area, uint32_t start, uint32_t end,
                          uint32_t current)
{
    bool later = w->func_offset != NO_SECTION || w->trace_offset != NO_SECTION;
    if (!enter_section(w, &w->overlay_offset, later) || !count_record(w, &w->noverlays))
        return;
    put_u32(w, OVERLAY_SIZE);
    put_u32(w, area);
    put_u32(w, start);
    put_u32(w, end);
    put_u32(w, current);
}

static size_t string_length(const char *s)
{
    if (s == NULL)
        return 0;
    size_t n = strlen(s);
    return n > STRING_MAX_BYTES ? STRING_MAX_BYTES : n;
}

static void put_string(lg_prf_writer_t *w, const char *s)
{
    size_t n = string_length(s);
    put_u16(w, (uint16_t)n);
    lg_write_buffer_put(&w->buf, s, n);
}

/* Bytes the shared fields and the three strings take: a record's size field is this plus the
 * record-specific bytes before them. At most 73 + 3 * (2 + 65535), so it always fits a u32. */
static uint32_t fields_size(const lg_prf_record_fields_t *f)
{
    size_t strings = string_length(f->name) + string_length(f->link_label) +
                     string_length(f->qual_name);
    return (uint32_t)(FIELDS_BYTES + 3 * STRING_LENGTH_BYTES + strings);
}

/* Writes the fields function data and call records share, description through qualified name. */
static void put_fields(lg_prf_writer_t *w, const lg_prf_record_fields_t *f)
{
    put_u8(w, f->description);
    put_u16(w, f->attributes);
    put_u16(w, f->cache_line);
    put_u32(w, f->pc_min);
    put_u32(w, f->pc_max);
    put_u32(w, f->overlay_area);
    put_u32(w, f->overlay_id);
    put_u32(w, f->group_id);
    lg_write_buffer_zeros(&w->buf, FIELDS_SPARE_BYTES);
    put_u64(w, f->hits);
    put_u64(w, f->counter1_total);
    put_u64(w, f->counter1_self);
    put_u64(w, f->counter2_total);
    put_u64(w, f->counter2_self);
    put_string(w, f->name);
    put_string(w, f->link_label);
    put_string(w, f->qual_name);
}

void lg_prf_write_function(lg_prf_writer_t *w, const lg_prf_record_fields_t *f)
{
    if (!enter_section(w, &w->func_offset, w->trace_offset != NO_SECTION) ||
        !count_record(w, &w->nfuncs))
        return;
    put_u32(w, fields_size(f));
    put_fields(w, f);
}

/* A statistical file has no trace section; a trace record in one is a caller's mistake. */
static bool enter_trace(lg_prf_writer_t *w)
{
    if (w->header.type == LG_PRF_TYPE_STATISTICAL) {
        lg_write_buffer_fail(&w->buf, LG_EINVAL);
        return false;
    }
    return enter_section(w, &w->trace_offset, false);
}

void lg_prf_write_call(lg_prf_writer_t *w, uint32_t call_number, const lg_prf_record_fields_t *f)
{
    if (!enter_trace(w) || !count_record(w, &w->ncalls))
        return;
    put_u32(w, TRACE_PREFIX_BYTES + fields_size(f));
    put_u8(w, TRACE_CALL);
    put_u32(w, call_number);
    put_fields(w, f);
}

void lg_prf_write_return(lg_prf_writer_t *w, uint32_t call_number)
{
    if (!enter_trace(w))
        return;
    put_u32(w, TRACE_PREFIX_BYTES);
    put_u8(w, TRACE_RETURN);
    put_u32(w, call_number);
}

/* The header's form of a section start: an offset from the end of the header, in 32 bits. */
static bool relative_offset(lg_prf_writer_t *w, size_t absolute, uint32_t *out)
{
    size_t rel = absolute - HEADER_END;
    if (rel > UINT32_MAX) {
        lg_write_buffer_fail(&w->buf, LG_ELIMIT);
        return false;
    }
    *out = (uint32_t)rel;
    return true;
}

static void patch_u32(lg_prf_writer_t *w, size_t header_field, uint32_t v)
{
    store_le(w->buf.data + LG_PRF_MAGIC_LEN + header_field, v, 4);
}

lg_err_t lg_prf_writer_finish(lg_prf_writer_t *w)
{
    if (w->buf.failed)
        return w->buf.error;
    /* An empty section starts where it would have been written: just before the next one, or
     * at the end of the file. The guide documents the overlay offset as meaningless without
     * overlays, and both trace fields as zero in a statistical profile. */
    size_t trace_at = w->trace_offset != NO_SECTION ? w->trace_offset : w->buf.size;
    size_t func_at = w->func_offset != NO_SECTION ? w->func_offset : trace_at;
    uint32_t overlay_rel = 0, func_rel = 0, trace_rel = 0;
    if (w->noverlays > 0 && !relative_offset(w, w->overlay_offset, &overlay_rel))
        return w->buf.error;
    if (!relative_offset(w, func_at, &func_rel))
        return w->buf.error;
    if (w->header.type != LG_PRF_TYPE_STATISTICAL && !relative_offset(w, trace_at, &trace_rel))
        return w->buf.error;
    patch_u32(w, HDR_NOVERLAYS, w->noverlays);
    patch_u32(w, HDR_NFUNCS, w->nfuncs);
    patch_u32(w, HDR_NCALLS, w->ncalls);
    patch_u32(w, HDR_OVERLAY_OFFSET, overlay_rel);
    patch_u32(w, HDR_FUNC_OFFSET, func_rel);
    patch_u32(w, HDR_TRACE_OFFSET, trace_rel);
    return LG_OK;
}
