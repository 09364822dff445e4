/* prf.h - CodeScape profiler files (.prf): read them, and write them (tests, example tracer).
 *
 * Layout: CodeScape ASE Mode Trace Profiler Guide, Appendix B (docs/loaders/prf.md lists the byte
 * offsets lorgen uses and where they correct the guide's typos). All integers little-endian.
 *
 *   "PROFILER FILE:"             14 bytes
 *   File Header                  u32 size-to-follow (0x55), then the header fields
 *   Overlay Area Data  x N       each: u32 size-to-follow, fields
 *   Function Data      x N       each: u32 size-to-follow, fields, three u16-length strings
 *   Trace records                each: u32 size-to-follow, then 0xFF (call) or 0x00 (return)
 *
 * Offsets in the header count from the end of the header. Records are stepped over by their size
 * fields, so records larger than this layout (later versions) still load.
 */
#ifndef LG_PRF_H
#define LG_PRF_H

#include "diag.h"
#include "profile.h"
#include "source.h"
#include "write_buffer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LG_PRF_MAGIC "PROFILER FILE:"
#define LG_PRF_MAGIC_LEN 14u
/* Bytes the header's size field announces in the layout the guide documents. */
#define LG_PRF_HEADER_SIZE 0x55u
/* Deepest nesting of call records lorgen follows: deeper means a corrupt or hostile file. */
#define LG_PRF_MAX_DEPTH (1u * 1024u * 1024u)

/* Profile types (header byte 14). */
#define LG_PRF_TYPE_STATISTICAL 0x01u
#define LG_PRF_TYPE_TRACE 0x02u

/* True when head starts with the .prf magic. */
bool lg_prf_probe(const uint8_t *head, size_t len);

/* Reads a .prf file from src into out (lg_read_fn, see source.h; lg_load_file and
 * lg_load_memory leave out empty on failure).
 *
 * Trace profiles: the call/return records nest into a calling-context tree; the weight of
 * caller -> callee is the sum of the hits of the callee's call records directly under the
 * caller's call records. Statistical profiles give hits only (out->has_call_edges = false).
 *
 * A regular file is read front to back through the source's window, and reading stops at the
 * first bad record: memory does not grow with the size of the file, only with its functions and
 * edges. A pipe or a device, which cannot be read by offset, is read whole first.
 *
 * On malformed input returns LG_EFORMAT (or LG_ELIMIT) with a diagnostic of the form
 * "path:0xOFFSET: record N: expected ..., found ...". */
lg_err_t lg_prf_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out);

/* Counter description (header bytes 55/56) as text, e.g. 0x23 -> "Elapsed time"; "unknown"
 * for values the guide does not list, "none" for 0. */
const char *lg_prf_counter_name(uint8_t kind);

/* ---- Writer ------------------------------------------------------------------------------
 * Builds a byte-exact .prf in memory. Used by the tests (fixtures, including malformed ones made
 * by editing the bytes afterwards) and by the example tracer (examples/tracer). */

typedef struct lg_prf_header {
    uint8_t version;        /* file version byte */
    uint8_t icache_enabled; /* 1 = instruction cache enabled (8 KiB) */
    uint8_t day, month, year, hour, minute, second;
    uint8_t type; /* LG_PRF_TYPE_STATISTICAL or LG_PRF_TYPE_TRACE */
    uint64_t total_hits;
    uint64_t counter1_total, counter1_self, counter2_total, counter2_self;
    uint8_t counter1_kind, counter2_kind;
} lg_prf_header_t;

typedef struct lg_prf_record_fields { /* shared by function data and call records */
    uint8_t description;
    uint16_t attributes;
    uint16_t cache_line; /* 0xFFFF = non-cacheable */
    uint32_t pc_min, pc_max;
    uint32_t overlay_area, overlay_id, group_id; /* 0xFFFFFFFF = none */
    uint64_t hits;
    uint64_t counter1_total, counter1_self, counter2_total, counter2_self;
    const char *name, *link_label, *qual_name; /* NULL writes an empty string */
} lg_prf_record_fields_t;

typedef struct lg_prf_writer {
    /* the file so far (the header is patched by lg_prf_writer_finish), and the first failure:
     * LG_ENOMEM, LG_EINVAL (a record out of section order, or a trace record in a statistical
     * file) or LG_ELIMIT (a count or an offset that does not fit its 32-bit field) */
    lg_write_buffer_t buf;
    lg_prf_header_t header;
    uint32_t noverlays, nfuncs, ncalls;
    size_t overlay_offset, func_offset, trace_offset; /* absolute, SIZE_MAX = none yet */
} lg_prf_writer_t;

/* Starts a file: magic and a header to be completed by finish. Sections must then be written in
 * file order: overlays, functions, trace records. Strings longer than 65535 bytes (the most a
 * u16 length can describe) are truncated to 65535 bytes. */
void lg_prf_writer_init(lg_prf_writer_t *w, const lg_prf_header_t *header);
void lg_prf_writer_destroy(lg_prf_writer_t *w);
void lg_prf_write_overlay(lg_prf_writer_t *w, uint32_t area, uint32_t start, uint32_t end,
                          uint32_t current);
void lg_prf_write_function(lg_prf_writer_t *w, const lg_prf_record_fields_t *f);
void lg_prf_write_call(lg_prf_writer_t *w, uint32_t call_number, const lg_prf_record_fields_t *f);
void lg_prf_write_return(lg_prf_writer_t *w, uint32_t call_number);
/* Patches counts and offsets into the header. Afterwards w->buf.data/w->buf.size hold the file. */
lg_err_t lg_prf_writer_finish(lg_prf_writer_t *w);

#endif
