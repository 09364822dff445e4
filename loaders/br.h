/* br.h - Business Rules! (BR) BASIC profiler files (DEBUG PROFILE SAMPLED / TIMED): read them,
 * and write them (tests).
 *
 * Layout: the BR Wiki page "Profiler File Layout" (docs/loaders/br.md restates it with the
 * assumptions lorgen makes where the page is silent). The file is a plain sequence of records;
 * there is no header. The first byte of a record is its type; all integers are big-endian:
 *
 *   1  CREATE MODULE MAPPING   u16 module, u16 length L, L bytes file name       5 + L bytes
 *   3  CURRENT LINE            u16 module, u32 line, u8 clause: opens a group    8 bytes
 *   4  TIME SPENT IN LINE      u64 nanoseconds (TIMED files only)                9 bytes
 *   5  BACKTRACE INFORMATION   u16 module, u32 line, u8 clause: one caller frame 8 bytes
 *   6  END CURRENT LINE        closes the group                                  1 byte
 *   7  FUNCTION NAME           u8 length N, N bytes: names the preceding frame   2 + N bytes
 *   8  GOSUB                   the preceding frame is in a GOSUB routine         1 byte
 *   9  MAIN ROUTINE            the preceding frame is in the main routine        1 byte
 *
 * One group (CURRENT LINE ... END CURRENT LINE) is one sample: the current line is the innermost
 * frame and the BACKTRACE records follow, innermost caller first.
 */
#ifndef LG_BR_H
#define LG_BR_H

#include "diag.h"
#include "profile.h"
#include "source.h"
#include "write_buffer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Record types. */
#define LG_BR_MODULE 1u
#define LG_BR_CURRENT_LINE 3u
#define LG_BR_TIME 4u
#define LG_BR_BACKTRACE 5u
#define LG_BR_END 6u
#define LG_BR_FUNCTION_NAME 7u
#define LG_BR_GOSUB 8u
#define LG_BR_MAIN_ROUTINE 9u

/* Most frames (CURRENT LINE plus BACKTRACE records) one sample may have: deeper means a corrupt
 * or hostile file. */
#define LG_BR_MAX_FRAMES (64u * 1024u)
/* Longest module or function name lorgen reads, in bytes (a module name is a file name: PATH_MAX
 * on Linux). Function names are at most 255 bytes by the layout. */
#define LG_BR_MAX_NAME 4096u
/* Most records one file may hold: over 4 GiB of records is not a profile. */
#define LG_BR_MAX_RECORDS (UINT64_C(1) << 32)

/* Names given to frames that carry no FUNCTION NAME record. Parenthesised so that they never bind
 * to an ELF symbol. */
#define LG_BR_NAME_MAIN "(main)"
#define LG_BR_NAME_GOSUB "(gosub)"
#define LG_BR_NAME_UNKNOWN "(unknown)"

/* lg_pfunc_t.description of BR functions: how the frame that first met the function was marked. */
#define LG_BR_DESC_UNMARKED 0u /* no FUNCTION NAME, GOSUB or MAIN ROUTINE record */
#define LG_BR_DESC_FUNCTION 1u /* named by a FUNCTION NAME record */
#define LG_BR_DESC_GOSUB 2u
#define LG_BR_DESC_MAIN 3u

/* counter1_unit of the two kinds of file. */
#define LG_BR_UNIT_SAMPLED "samples"
#define LG_BR_UNIT_TIMED "ns"

/* Resource limits of one load: options->br_limits, LG_BR_LIMITS_DEFAULT when NULL. */
typedef struct lg_br_limits {
    uint32_t max_frames;  /* frames per sample */
    uint32_t max_name;    /* bytes of a module or function name */
    uint64_t max_records; /* records per file */
} lg_br_limits_t;

#define LG_BR_LIMITS_DEFAULT {LG_BR_MAX_FRAMES, LG_BR_MAX_NAME, LG_BR_MAX_RECORDS}

/* True when head (the first len bytes of a file, len <= LG_PROBE_BYTES typically) reads as a BR
 * profile: it starts with a CREATE MODULE MAPPING record with a non-empty, printable name, and
 * every record that fits in head has a known type, a plausible length and its place in the
 * grammar. Never true for text, ELF or .prf files (they cannot start with byte 1). O(len). */
bool lg_br_probe(const uint8_t *head, size_t len);

/* Reads a BR profile from src into out (lg_read_fn, see source.h; lg_load_file and
 * lg_load_memory leave out empty on failure), under options->br_limits. The file is read
 * through the source's window; memory grows with the functions, call edges and
 * (function, line) pairs met, never with the number of samples.
 *
 * Result: kind LG_PROFILE_STATISTICAL, format "br"; one function per (name, module file name),
 * the module file name as qual_name; per sample, the innermost frame's function gets hits + 1
 * and counter1_self + weight, every function on the stack counter1_total + weight once, each
 * adjacent pair of frames the edge caller -> callee + weight, and the innermost line a cost of
 * weight (cost_positions LG_POS_LINE). The weight is 1 in SAMPLED files (counter1_unit
 * "samples") and the sample's nanoseconds in TIMED files (counter1_unit "ns"). total_hits is the
 * number of samples; has_call_edges is true when some sample has two or more frames.
 *
 * On malformed input returns LG_EFORMAT (LG_ELIMIT past a limit) with one diagnostic of the form
 * "path:0xOFFSET: record N: expected ..., found ..." (N counts records from 0). LG_EIO when
 * the file cannot be read. */
lg_err_t lg_br_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out);

/* ---- Writer ------------------------------------------------------------------------------
 * Builds a byte-exact BR profile in memory (loaders/br_write.c). The tests use it for fixtures.
 * It writes the records it is given in the order given and checks no grammar, so malformed
 * files (a group that never ends, an unmapped module) can be written too. */

typedef struct lg_br_writer {
    /* the file so far, and the first failure: LG_ENOMEM, or LG_EINVAL (a sample without
     * frames) */
    lg_write_buffer_t buf;
    uint64_t records; /* records written: the index the next record will have */
} lg_br_writer_t;

/* How a frame is marked after its CURRENT LINE or BACKTRACE record. */
typedef enum lg_br_mark {
    LG_BR_MARK_NONE = 0,     /* nothing follows the frame record */
    LG_BR_MARK_FUNCTION = 1, /* a FUNCTION NAME record with lg_br_frame_t.function */
    LG_BR_MARK_GOSUB = 2,    /* a GOSUB record */
    LG_BR_MARK_MAIN = 3,     /* a MAIN ROUTINE record */
} lg_br_mark_t;

typedef struct lg_br_frame {
    uint16_t module;
    uint32_t line;
    uint8_t clause;
    lg_br_mark_t mark;
    const char *function; /* LG_BR_MARK_FUNCTION only */
} lg_br_frame_t;

void lg_br_writer_init(lg_br_writer_t *w);
/* Frees the buffer; accepts a zeroed writer. */
void lg_br_writer_destroy(lg_br_writer_t *w);

/* One record each. Names longer than their length field allows (65535 bytes for a module,
 * 255 for a function) are truncated to that length; NULL writes an empty name. */
void lg_br_write_module(lg_br_writer_t *w, uint16_t module, const char *name);
void lg_br_write_current_line(lg_br_writer_t *w, uint16_t module, uint32_t line, uint8_t clause);
void lg_br_write_time(lg_br_writer_t *w, uint64_t nanoseconds);
void lg_br_write_backtrace(lg_br_writer_t *w, uint16_t module, uint32_t line, uint8_t clause);
void lg_br_write_end(lg_br_writer_t *w);
void lg_br_write_function_name(lg_br_writer_t *w, const char *name);
void lg_br_write_gosub(lg_br_writer_t *w);
void lg_br_write_main_routine(lg_br_writer_t *w);

/* A whole group: frames[0] as CURRENT LINE with its mark, then the TIME SPENT IN LINE record when
 * timed, then frames[1..n-1] as BACKTRACE records with their marks, then END CURRENT LINE.
 * n must be at least 1 (else the writer fails with LG_EINVAL). */
void lg_br_write_sample(lg_br_writer_t *w, const lg_br_frame_t *frames, size_t n, bool timed,
                        uint64_t nanoseconds);

/* Returns LG_OK, or the error that stopped the writer. Afterwards w->buf.data/w->buf.size hold
 * the file (still owned by w). */
lg_err_t lg_br_writer_finish(lg_br_writer_t *w);

#endif
