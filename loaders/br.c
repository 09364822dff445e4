/* br.c - read Business Rules! (BR) BASIC profiler files into an lg_profile_t.
 *
 * The file is a flat sequence of records (layout in br.h and docs/loaders/br.md). It is read
 * front to back through the source's window (source.h). Every record is checked to lie wholly inside the
 * window before a byte of it is decoded, and no length read from the file sizes an allocation,
 * so a corrupt file cannot move a read outside the input or make the reader allocate much.
 *
 * The records of one group are gathered into a stack of function indices; at END CURRENT LINE
 * the sample is credited (hits, counters, edges, the line cost) and the stack is emptied. The
 * profile sums repeated edges, and line costs are summed where they stand through a map keyed by
 * (function, line), so memory grows with the distinct pairs, not with the samples.
 *
 * Definitions:
 *   group    a CURRENT LINE record, the records after it and the END CURRENT LINE closing it;
 *            one sample
 *   frame    a CURRENT LINE or BACKTRACE INFORMATION record together with the marks after it
 *            (FUNCTION NAME, GOSUB, MAIN ROUTINE); a mark belongs to the group's latest frame
 *   stack    the frames of one group, innermost (the current line) first, each resolved to a
 *            function when the next frame or the END CURRENT LINE record is read
 *   function a (name, module file name) pair: the FUNCTION NAME text, or LG_BR_NAME_GOSUB,
 *            LG_BR_NAME_MAIN or LG_BR_NAME_UNKNOWN for frames without one
 *   mode     SAMPLED or TIMED. The first group decides it (with or without TIME SPENT IN LINE);
 *            every later group must agree
 *   weight   what one sample counts: 1 when SAMPLED, its nanoseconds when TIMED
 *
 * Every failure is one error diagnostic "PATH:0xOFFSET: record N: ...", OFFSET being where the
 * record at fault starts (or the end of the file when a record is missing there) and N its index
 * from 0 in the file. The profile is then left empty.
 *
 * Reference: BR Wiki, "Profiler File Layout",
 * https://brulescorp.com/brwiki2/index.php?title=Profiler_File_Layout
 */
#include "br.h"

#include "intmap.h"
#include "mem.h"
#include "strmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of each record's fixed part, the type byte included. */
#define MODULE_FIXED_BYTES 5u   /* type, u16 module, u16 name length */
#define FRAME_BYTES 8u          /* type, u16 module, u32 line, u8 clause */
#define TIME_BYTES 9u           /* type, u64 nanoseconds */
#define FUNCTION_FIXED_BYTES 2u /* type, u8 name length */
#define BARE_BYTES 1u           /* END CURRENT LINE, GOSUB, MAIN ROUTINE: the type alone */

/* Module numbers are u16: a table indexed by them has this many entries. */
#define MODULE_NUMBERS (UINT16_MAX + 1u)
#define NO_MODULE UINT32_MAX
#define NO_FUNC UINT32_MAX
/* Room for a function name (u8 length) and its terminating NUL. */
#define FUNCTION_NAME_BUFFER (UINT8_MAX + 1u)

/* Marks of a frame (bits). */
#define MARK_FUNCTION 1u
#define MARK_GOSUB 2u
#define MARK_MAIN 4u

/* Placeholder functions per module, for frames without a FUNCTION NAME. */
enum { PLACE_MAIN, PLACE_GOSUB, PLACE_UNKNOWN, PLACE_COUNT };


typedef struct record_kind {
    const char *name; /* as the BR Wiki names the record */
    uint8_t fixed;    /* bytes before any name */
} record_kind_t;

static const record_kind_t record_kinds[] = {
    [LG_BR_MODULE] = {"CREATE MODULE MAPPING", MODULE_FIXED_BYTES},
    [LG_BR_CURRENT_LINE] = {"CURRENT LINE", FRAME_BYTES},
    [LG_BR_TIME] = {"TIME SPENT IN LINE", TIME_BYTES},
    [LG_BR_BACKTRACE] = {"BACKTRACE INFORMATION", FRAME_BYTES},
    [LG_BR_END] = {"END CURRENT LINE", BARE_BYTES},
    [LG_BR_FUNCTION_NAME] = {"FUNCTION NAME", FUNCTION_FIXED_BYTES},
    [LG_BR_GOSUB] = {"GOSUB", BARE_BYTES},
    [LG_BR_MAIN_ROUTINE] = {"MAIN ROUTINE", BARE_BYTES},
};

/* The kind of a record type, or NULL for a type the layout does not define (0, 2, 10-255). */
static const record_kind_t *kind_of(uint8_t type)
{
    if (type >= sizeof record_kinds / sizeof record_kinds[0] || record_kinds[type].name == NULL)
        return NULL;
    return &record_kinds[type];
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Line costs in the order the profile's lg_pcost_t are written: by function, then line. */
static int compare_costs(const void *a, const void *b)
{
    const lg_pcost_t *x = a, *y = b;
    if (x->func != y->func)
        return x->func < y->func ? -1 : 1;
    if (x->position != y->position)
        return x->position < y->position ? -1 : 1;
    return 0;
}

/* ---- The reader ------------------------------------------------------------------------- */

typedef struct module {
    char *name;                        /* file name as mapped; "" when the mapping gave none */
    uint32_t placeholder[PLACE_COUNT]; /* function index of its (main), (gosub), (unknown) */
} module_t;

/* The latest frame of the group, until the next frame or the end of the group resolves it. */
typedef struct open_frame {
    uint64_t offset, record; /* its CURRENT LINE or BACKTRACE record */
    uint32_t module;         /* index into reader_t.modules */
    uint32_t line;
    unsigned marks;                  /* MARK_* */
    char name[FUNCTION_NAME_BUFFER]; /* with MARK_FUNCTION */
} open_frame_t;

typedef enum mode {
    MODE_UNKNOWN = 0, /* no group has ended yet */
    MODE_SAMPLED,
    MODE_TIMED,
} br_mode_t;

typedef struct reader {
    lg_source_t *src;
    uint64_t at; /* the read position: file offset of the next byte to decode */
    const lg_br_limits_t *limits;
    lg_profile_t *out;

    uint64_t records;       /* records read so far: the index of the current one */
    uint64_t record_offset; /* file offset of the current record */

    uint32_t *module_of_number; /* MODULE_NUMBERS entries: index into modules, or NO_MODULE */
    module_t *modules;          /* one per distinct module file name */
    size_t nmodules, modules_cap;
    lg_strmap_t module_by_name; /* borrows modules[i].name */

    bool in_group;
    uint64_t group_offset, group_record; /* its CURRENT LINE record */
    bool group_has_time;
    uint64_t time_offset; /* its TIME SPENT IN LINE record */
    uint64_t group_ns;
    open_frame_t frame;
    uint32_t *stack; /* the group's resolved frames, innermost first */
    size_t depth, stack_cap;
    uint32_t leaf_line;

    br_mode_t mode;
    uint64_t first_group_offset;

    uint64_t samples;
    uint64_t *seen; /* per function: the last sample (from 1) that counted it in counter1_total */
    size_t seen_cap;
    lg_intmap_t line_cost; /* (function, line) -> index into out->costs */
} reader_t;

static size_t left(const reader_t *r)
{
    return (size_t)(r->src->base + r->src->len - r->at);
}

static const uint8_t *here(const reader_t *r)
{
    return lg_source_at(r->src, r->at);
}

/* Makes at least n bytes available from the read position, unless the input ends first; left()
 * then tells how many there are. */
static lg_err_t fill(reader_t *r, size_t n)
{
    return lg_source_window(r->src, r->at, n);
}

/* Copies a name of n bytes into buf (n + 1 bytes) as a C string. A writer may have counted a
 * C string's terminator, so trailing NULs are dropped; a NUL before the end is corruption. */
static lg_err_t copy_name(const reader_t *r, const char *what, const uint8_t *s, size_t n,
                          char *buf)
{
    size_t len = n;
    while (len > 0 && s[len - 1] == '\0')
        len--;
    const uint8_t *nul = len > 0 ? memchr(s, '\0', len) : NULL;
    if (nul != NULL)
        return LG_FAIL_RECORD(r, LG_EFORMAT, r->record_offset, r->records,
                              "expected a %s without NUL bytes, found one at byte %zu", what,
                              (size_t)(nul - s));
    if (len > 0)
        memcpy(buf, s, len);
    buf[len] = '\0';
    return LG_OK;
}

/* The index of the module called name, adding it. */
static lg_err_t find_module(reader_t *r, const char *name, uint32_t *index)
{
    if (lg_strmap_get(&r->module_by_name, name, index))
        return LG_OK;
    if (!lg_grow((void **)&r->modules, &r->modules_cap, r->nmodules + 1, sizeof *r->modules))
        return LG_FAIL_RECORD(r, LG_ENOMEM, r->record_offset, r->records,
                              "out of memory adding module '%s'", name);
    char *copy = strdup(name);
    if (copy == NULL)
        return LG_FAIL_RECORD(r, LG_ENOMEM, r->record_offset, r->records,
                              "out of memory adding module '%s'", name);
    module_t *m = &r->modules[r->nmodules];
    *m = (module_t){.name = copy};
    for (size_t i = 0; i < PLACE_COUNT; i++)
        m->placeholder[i] = NO_FUNC;
    /* The number of distinct names is bounded by the file's size: every one needs a record. */
    *index = (uint32_t)r->nmodules;
    if (!lg_strmap_put(&r->module_by_name, copy, *index, NULL)) {
        free(copy);
        return LG_FAIL_RECORD(r, LG_ENOMEM, r->record_offset, r->records,
                              "out of memory adding module '%s'", name);
    }
    r->nmodules++;
    return LG_OK;
}

/* CREATE MODULE MAPPING: module number -> file name. A number mapped again takes the new name
 * from here on (the layout does not say numbers are never reused). */
static lg_err_t map_module(reader_t *r, const uint8_t *p, size_t size)
{
    uint16_t number = be16(p + 1);
    /* The name is at most LG_BR_MAX_NAME <= UINT16_MAX bytes (checked by read_record). */
    char *name = malloc(size - MODULE_FIXED_BYTES + 1);
    if (name == NULL)
        return LG_FAIL_RECORD(r, LG_ENOMEM, r->record_offset, r->records,
                              "out of memory reading a module name");
    lg_err_t err =
        copy_name(r, "module name", p + MODULE_FIXED_BYTES, size - MODULE_FIXED_BYTES, name);
    uint32_t index = NO_MODULE;
    if (err == LG_OK)
        err = find_module(r, name, &index);
    free(name);
    if (err == LG_OK)
        r->module_of_number[number] = index;
    return err;
}

/* Starts r->frame from a CURRENT LINE or BACKTRACE INFORMATION record. */
static lg_err_t open_frame(reader_t *r, const uint8_t *p)
{
    uint16_t number = be16(p + 1);
    uint32_t module = r->module_of_number[number];
    if (module == NO_MODULE)
        return LG_FAIL_RECORD(
            r, LG_EFORMAT, r->record_offset, r->records,
            "expected a module number mapped by an earlier CREATE MODULE MAPPING (1), "
            "found module %u",
            number);
    if (r->depth >= r->limits->max_frames)
        return LG_FAIL_RECORD(r, LG_ELIMIT, r->record_offset, r->records,
                              "sample has more than %" PRIu32 " frames (LG_BR_MAX_FRAMES)",
                              r->limits->max_frames);
    /* Byte 8, the clause number, is not kept: costs are per line (LG_POS_LINE). */
    r->frame = (open_frame_t){
        .offset = r->record_offset, .record = r->records, .module = module, .line = be32(p + 3)};
    return LG_OK;
}

/* Resolves r->frame to a function and pushes it on the stack. */
static lg_err_t close_frame(reader_t *r)
{
    const open_frame_t *f = &r->frame;
    module_t *m = &r->modules[f->module];
    const char *name;
    uint8_t description;
    uint32_t *cached = NULL;
    if (f->marks & MARK_FUNCTION) {
        name = f->name;
        description = LG_BR_DESC_FUNCTION;
    } else if (f->marks & MARK_GOSUB) {
        name = LG_BR_NAME_GOSUB;
        description = LG_BR_DESC_GOSUB;
        cached = &m->placeholder[PLACE_GOSUB];
    } else if (f->marks & MARK_MAIN) {
        name = LG_BR_NAME_MAIN;
        description = LG_BR_DESC_MAIN;
        cached = &m->placeholder[PLACE_MAIN];
    } else {
        name = LG_BR_NAME_UNKNOWN;
        description = LG_BR_DESC_UNMARKED;
        cached = &m->placeholder[PLACE_UNKNOWN];
    }

    lg_profile_t *out = r->out;
    uint32_t id;
    if (cached != NULL && *cached != NO_FUNC) {
        id = *cached;
    } else {
        size_t before = out->nfuncs;
        lg_err_t err = lg_profile_intern(out, name, NULL, m->name, &id);
        if (err == LG_ELIMIT)
            return lg_source_fail_record(r->src, err, f->offset, NULL, f->record, "more than %u functions (LG_PROFILE_MAX_FUNCS)", LG_PROFILE_MAX_FUNCS);
        if (err != LG_OK)
            return lg_source_fail_record(r->src, err, f->offset, NULL, f->record, "out of memory adding function '%s'",
                           name);
        if (out->nfuncs > before) {
            out->funcs[id].description = description;
            size_t cap = r->seen_cap;
            if (!lg_grow((void **)&r->seen, &r->seen_cap, out->nfuncs, sizeof *r->seen))
                return lg_source_fail_record(r->src, LG_ENOMEM, f->offset, NULL, f->record, "out of memory");
            memset(r->seen + cap, 0, (r->seen_cap - cap) * sizeof *r->seen);
        }
        if (cached != NULL)
            *cached = id;
    }
    if (!lg_grow((void **)&r->stack, &r->stack_cap, r->depth + 1, sizeof *r->stack))
        return lg_source_fail_record(r->src, LG_ENOMEM, f->offset, NULL, f->record, "out of memory");
    if (r->depth == 0)
        r->leaf_line = f->line;
    r->stack[r->depth++] = id;
    return LG_OK;
}

static const char *mark_record_name(unsigned mark)
{
    if (mark & MARK_FUNCTION)
        return "FUNCTION NAME (7)";
    if (mark & MARK_GOSUB)
        return "GOSUB (8)";
    return "MAIN ROUTINE (9)";
}

/* FUNCTION NAME, GOSUB or MAIN ROUTINE: marks the group's latest frame. Each mark appears at
 * most once per frame, and MAIN ROUTINE ("neither in a GOSUB nor in a function body") alone. */
static lg_err_t mark_frame(reader_t *r, uint8_t type, const uint8_t *p, size_t size)
{
    open_frame_t *f = &r->frame;
    unsigned mark = type == LG_BR_FUNCTION_NAME ? MARK_FUNCTION
                    : type == LG_BR_GOSUB       ? MARK_GOSUB
                                                : MARK_MAIN;
    if (f->marks & mark)
        return LG_FAIL_RECORD(
            r, LG_EFORMAT, r->record_offset, r->records,
            "expected at most one %s per frame, found a second one for the frame at "
            "0x%" PRIx64 " (record %" PRIu64 ")",
            mark_record_name(mark), f->offset, f->record);
    unsigned all = f->marks | mark;
    if ((all & MARK_MAIN) && all != MARK_MAIN)
        return LG_FAIL_RECORD(
            r, LG_EFORMAT, r->record_offset, r->records,
            "expected MAIN ROUTINE (9) as the only mark of a frame, found it with %s on "
            "the frame at 0x%" PRIx64 " (record %" PRIu64 ")",
            mark_record_name(all & ~MARK_MAIN), f->offset, f->record);
    if (type == LG_BR_FUNCTION_NAME) {
        LG_CHECK(copy_name(r, "function name", p + FUNCTION_FIXED_BYTES,
                           size - FUNCTION_FIXED_BYTES, f->name));
        if (f->name[0] == '\0')
            return LG_FAIL_RECORD(r, LG_EFORMAT, r->record_offset, r->records,
                                  "expected a function name, found an empty one");
    }
    f->marks = all;
    return LG_OK;
}

/* END CURRENT LINE: checks the mode and credits the sample. */
static lg_err_t end_group(reader_t *r)
{
    LG_CHECK(close_frame(r));
    if (r->mode == MODE_UNKNOWN) {
        r->mode = r->group_has_time ? MODE_TIMED : MODE_SAMPLED;
        r->first_group_offset = r->group_offset;
    } else if (r->mode == MODE_TIMED && !r->group_has_time) {
        return LG_FAIL_RECORD(
            r, LG_EFORMAT, r->record_offset, r->records,
            "expected a TIME SPENT IN LINE (4) in every group of a TIMED file (the first "
            "group, at 0x%" PRIx64 ", has one), found none in the group opened at "
            "0x%" PRIx64 " (record %" PRIu64 ")",
            r->first_group_offset, r->group_offset, r->group_record);
    }
    /* SAMPLED files counting a TIME record are stopped at that record (read_record). */
    uint64_t weight = r->mode == MODE_TIMED ? r->group_ns : 1;
    uint64_t sample = ++r->samples;
    lg_pfunc_t *funcs = r->out->funcs;
    lg_pfunc_t *leaf = &funcs[r->stack[0]];
    leaf->hits = lg_sat_add(leaf->hits, 1);
    leaf->counter1_self = lg_sat_add(leaf->counter1_self, weight);
    for (size_t i = 0; i < r->depth; i++) {
        uint32_t f = r->stack[i];
        if (r->seen[f] == sample) /* recursion: once per sample */
            continue;
        r->seen[f] = sample;
        funcs[f].counter1_total = lg_sat_add(funcs[f].counter1_total, weight);
    }
    for (size_t i = 0; i + 1 < r->depth; i++)
        if (lg_profile_add_edge(r->out, r->stack[i + 1], r->stack[i], weight) != LG_OK)
            return LG_FAIL_RECORD(r, LG_ENOMEM, r->record_offset, r->records,
                                  "out of memory adding a call edge");
    bool added;
    uint64_t *cost = lg_intmap_find_or_add(&r->line_cost, lg_intmap_pair(r->stack[0], r->leaf_line),
                                           r->out->ncosts, &added);
    if (cost == NULL || (added && lg_profile_add_cost(r->out, r->stack[0], r->leaf_line, 0) != LG_OK))
        return LG_FAIL_RECORD(r, LG_ENOMEM, r->record_offset, r->records,
                              "out of memory adding a line cost");
    r->out->costs[*cost].cost = lg_sat_add(r->out->costs[*cost].cost, weight);
    if (r->depth >= 2)
        r->out->has_call_edges = true;
    r->in_group = false;
    r->depth = 0;
    return LG_OK;
}

/* Interprets one whole record (size bytes at p) by its place in the grammar:
 *   file  := (MODULE | group)*
 *   group := CURRENT-LINE mark* (MODULE | TIME | BACKTRACE mark*)* END
 * with at most one TIME per group (present in every group of a TIMED file, in none of a SAMPLED
 * one). MODULE records may appear inside groups too. */
static lg_err_t interpret(reader_t *r, uint8_t type, const uint8_t *p, size_t size)
{
    if (type == LG_BR_MODULE)
        return map_module(r, p, size);
    if (type == LG_BR_CURRENT_LINE) {
        if (r->in_group)
            return LG_FAIL_RECORD(
                r, LG_EFORMAT, r->record_offset, r->records,
                "expected END CURRENT LINE (6) before the next CURRENT LINE (3), found "
                "the group opened at 0x%" PRIx64 " (record %" PRIu64 ") still open",
                r->group_offset, r->group_record);
        LG_CHECK(open_frame(r, p));
        r->in_group = true;
        r->group_offset = r->record_offset;
        r->group_record = r->records;
        r->group_has_time = false;
        r->group_ns = 0;
        return LG_OK;
    }
    if (!r->in_group)
        return LG_FAIL_RECORD(
            r, LG_EFORMAT, r->record_offset, r->records,
            "expected CREATE MODULE MAPPING (1) or CURRENT LINE (3) outside a group, "
            "found %s (%u)",
            record_kinds[type].name, type);
    switch (type) {
    case LG_BR_TIME:
        if (r->group_has_time)
            return LG_FAIL_RECORD(
                r, LG_EFORMAT, r->record_offset, r->records,
                "expected at most one TIME SPENT IN LINE (4) per group, found a second "
                "one (the first is at 0x%" PRIx64 ")",
                r->time_offset);
        if (r->mode == MODE_SAMPLED)
            return LG_FAIL_RECORD(
                r, LG_EFORMAT, r->record_offset, r->records,
                "expected no TIME SPENT IN LINE (4) in a SAMPLED file (the first group, "
                "at 0x%" PRIx64 ", has none), found one",
                r->first_group_offset);
        r->group_has_time = true;
        r->time_offset = r->record_offset;
        r->group_ns = be64(p + 1);
        return LG_OK;
    case LG_BR_BACKTRACE:
        LG_CHECK(close_frame(r));
        return open_frame(r, p);
    case LG_BR_END:
        return end_group(r);
    default: /* FUNCTION NAME, GOSUB, MAIN ROUTINE */
        return mark_frame(r, type, p, size);
    }
}

/* Reads the record at the read position: its type, then its bytes (checked to be there), then
 * its meaning. */
static lg_err_t read_record(reader_t *r)
{
    uint8_t type = here(r)[0];
    const record_kind_t *kind = kind_of(type);
    if (kind == NULL)
        return LG_FAIL_RECORD(r, LG_EFORMAT, r->record_offset, r->records,
                              "expected a record type 1 or 3-9, found %u (0x%02x)", type, type);
    size_t size = kind->fixed;
    LG_CHECK(fill(r, size));
    if (left(r) < size)
        return LG_FAIL_RECORD(
            r, LG_EFORMAT, r->record_offset, r->records,
            "expected %zu bytes of %s (%u), found only %zu before the end of the file", size,
            kind->name, type, left(r));
    if (type == LG_BR_MODULE || type == LG_BR_FUNCTION_NAME) {
        const char *what = type == LG_BR_MODULE ? "module name" : "function name";
        size_t n = type == LG_BR_MODULE ? be16(here(r) + 3) : here(r)[1];
        if (n > r->limits->max_name)
            return LG_FAIL_RECORD(r, LG_ELIMIT, r->record_offset, r->records,
                                  "%s length %zu exceeds the %" PRIu32 " bytes lorgen reads "
                                  "(LG_BR_MAX_NAME)",
                                  what, n, r->limits->max_name);
        LG_CHECK(fill(r, size + n));
        if (left(r) - size < n)
            return LG_FAIL_RECORD(r, LG_EFORMAT, r->record_offset, r->records,
                                  "%s length %zu runs past the end of the file (%zu bytes left)",
                                  what, n, left(r) - size);
        size += n;
    }
    LG_CHECK(interpret(r, type, here(r), size));
    r->at += size;
    return LG_OK;
}

static lg_err_t read_records(reader_t *r)
{
    for (;;) {
        LG_CHECK(fill(r, 1));
        r->record_offset = r->at;
        if (left(r) == 0)
            break;
        if (r->records >= r->limits->max_records)
            return LG_FAIL_RECORD(r, LG_ELIMIT, r->record_offset, r->records,
                                  "file has more than %" PRIu64 " records (LG_BR_MAX_RECORDS)",
                                  r->limits->max_records);
        LG_CHECK(read_record(r));
        r->records++;
    }
    if (r->in_group)
        return LG_FAIL_RECORD(
            r, LG_EFORMAT, r->record_offset, r->records,
            "expected END CURRENT LINE (6) to close the group opened at 0x%" PRIx64
            " (record %" PRIu64 "), found the end of the file",
            r->group_offset, r->group_record);
    return LG_OK;
}

static lg_err_t read_profile(reader_t *r)
{
    lg_profile_t *out = r->out;
    if (lg_profile_set_path(out, r->src->path) != LG_OK)
        return lg_diag_fail(r->src->d, LG_ENOMEM, r->src->path, "out of memory");
    r->module_of_number = malloc(MODULE_NUMBERS * sizeof *r->module_of_number);
    if (r->module_of_number == NULL)
        return lg_diag_fail(r->src->d, LG_ENOMEM, r->src->path, "out of memory");
    memset(r->module_of_number, 0xFF, MODULE_NUMBERS * sizeof *r->module_of_number);
    LG_CHECK(read_records(r));
    lg_profile_finish_edges(out);
    if (out->ncosts > 0)
        qsort(out->costs, out->ncosts, sizeof *out->costs, compare_costs);
    out->format = "br";
    out->kind = LG_PROFILE_STATISTICAL;
    out->total_hits = r->samples;
    out->cost_positions = LG_POS_LINE;
    out->counter1_unit = r->mode == MODE_TIMED ? LG_BR_UNIT_TIMED : LG_BR_UNIT_SAMPLED;
    if (r->samples == 0)
        lg_diag_add(r->src->d, LG_WARNING, r->src->path,
                    "no samples: the file holds no CURRENT LINE ... END CURRENT LINE group");
    return LG_OK;
}

static void reader_destroy(reader_t *r)
{
    for (size_t i = 0; i < r->nmodules; i++)
        free(r->modules[i].name);
    free(r->modules);
    lg_strmap_destroy(&r->module_by_name);
    free(r->module_of_number);
    free(r->stack);
    free(r->seen);
    lg_intmap_destroy(&r->line_cost);
}

lg_err_t lg_br_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out)
{
    static const lg_br_limits_t defaults = LG_BR_LIMITS_DEFAULT;
    reader_t r = {.src = src,
                  .limits = options->br_limits != NULL ? options->br_limits : &defaults,
                  .out = out};
    lg_strmap_init(&r.module_by_name);
    lg_err_t err = read_profile(&r);
    reader_destroy(&r);
    return err;
}

/* ---- Probe ------------------------------------------------------------------------------ */

/* Printable text, or text followed by NULs: what a file or function name looks like. Bytes from
 * 0x80 up are allowed (the encoding is not documented). */
static bool plausible_name(const uint8_t *s, size_t n)
{
    while (n > 0 && s[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] == 0x7F) /* control characters */
            return false;
    return true;
}

bool lg_br_probe(const uint8_t *head, size_t len)
{
    /* The first record must map a module: every frame names one that is already mapped. */
    if (head == NULL || len <= MODULE_FIXED_BYTES || head[0] != LG_BR_MODULE ||
        be16(head + 3) == 0 || head[MODULE_FIXED_BYTES] == '\0')
        return false;
    uint8_t mapped[MODULE_NUMBERS / 8];
    memset(mapped, 0, sizeof mapped);
    bool in_group = false;
    size_t pos = 0;
    /* Every record that fits in head must be well formed and in its place. */
    while (pos < len) {
        const uint8_t *p = head + pos;
        uint8_t type = p[0];
        const record_kind_t *kind = kind_of(type);
        if (kind == NULL)
            return false;
        size_t avail = len - pos;
        if (avail < kind->fixed)
            break;
        size_t size = kind->fixed;
        if (type == LG_BR_MODULE || type == LG_BR_FUNCTION_NAME) {
            size_t n = type == LG_BR_MODULE ? be16(p + 3) : p[1];
            if (n > LG_BR_MAX_NAME || (type == LG_BR_FUNCTION_NAME && n == 0))
                return false;
            size_t visible = avail - size < n ? avail - size : n;
            if (!plausible_name(p + size, visible))
                return false;
            size += n;
        }
        if (type == LG_BR_CURRENT_LINE && in_group)
            return false;
        if (type != LG_BR_MODULE && type != LG_BR_CURRENT_LINE && !in_group)
            return false;
        if (type == LG_BR_CURRENT_LINE || type == LG_BR_BACKTRACE) {
            uint16_t number = be16(p + 1);
            if (!(mapped[number / 8] & (1u << (number % 8))))
                return false;
        }
        if (type == LG_BR_MODULE && size <= avail) {
            uint16_t number = be16(p + 1);
            mapped[number / 8] |= (uint8_t)(1u << (number % 8));
        }
        if (type == LG_BR_CURRENT_LINE)
            in_group = true;
        if (type == LG_BR_END)
            in_group = false;
        if (size > avail)
            break;
        pos += size;
    }
    return true;
}
