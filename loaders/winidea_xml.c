/* winidea_xml.c - read winIDEA profiler exports in the XML format into an lg_profile_t.
 *
 * The document is streamed through expat: memory grows with the areas, functions, edges and
 * streams, never with the document (its timeline may run to gigabytes), and no tree is built.
 * winIDEA's schema is not public (docs/loaders/winidea.md has the assumed shape), so the reader
 * knows a few element names and tolerates everything else.
 *
 * Definitions:
 *   section  an element named MAPPING, STATISTICS, TIMELINE, CONTEXTS or INFO (local name, any
 *            case): it says what the records inside it are
 *   field    an element with a known name (HANDLE, HANDLE.PARENT or PARENT, NAME, VALUE, FILE,
 *            COUNT or HITS, T.NET, T.GROSS, EVENT, TIME, CORE, CONTEXT) whose text is a value,
 *            or an attribute of a record with such a name
 *   record   the element whose child elements are fields: an <AREA>, a <T>, an entry of
 *            <STATISTICS>. Any element that is not a section or a field starts a candidate
 *            record; a candidate that gets a child field is the record, and its other child
 *            elements are skipped whole; a candidate without fields was only a wrapper (the
 *            root, or an <AREAS> list) and means nothing.
 *   kind     what a record is: inside CONTEXTS a context (checked, not used), inside INFO
 *            nothing; a <T> or a record inside TIMELINE an event; inside STATISTICS a statistics
 *            entry; an <AREA> or a record inside MAPPING a mapping entry. Other records with a
 *            <HANDLE> are counted in one warning.
 *
 * Values are read as in Text1 (winidea_export.h): handles hexadecimal with or without 0x, lines
 * and counts decimal or 0x, times signed decimal or 0x, the event a letter, digit or word.
 * Every failure is one error "PATH:LINE:COLUMN: ... (byte N)" and an empty profile; expat's
 * own errors (not well-formed, mismatched tag, a document cut short) come out the same way.
 *
 * Reference: winIDEA help, "Profiler Export / XML" (../shared/specs/
 * winidea-profiler-export-xml.txt); ../shared/research/formats.md A.2.
 */
#include "winidea_xml.h"

#include "mem.h"
#include "winidea_export.h"
#include "winidea_map.h"

#include <errno.h>
#include <expat.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Bytes handed to expat at a time. */
#define READ_CHUNK (256u * 1024u)
/* Bytes of a value quoted in a message, and the room they need escaped (\xNN) plus "...". */
#define QUOTE_BYTES 60u
#define QUOTE(s, n, q) lg_quote((s), (n), QUOTE_BYTES, (q))
/* Longest element name the probe compares. */
#define PROBE_NAME 16u
#define UTF8_BOM "\xEF\xBB\xBF"
#define UTF8_BOM_LEN 3u

/* ---- Names -------------------------------------------------------------------------------- */

typedef enum field {
    F_HANDLE,
    F_PARENT,
    F_NAME,
    F_VALUE,
    F_FILE,
    F_COUNT,
    F_NET,
    F_GROSS,
    F_EVENT,
    F_TIME,
    F_CORE,
    F_CONTEXT,
    FIELD_KINDS,
    NO_FIELD = -1
} field_t;

/* Element names of the fields, as written in messages: the Text1 macro names. */
static const char *const field_titles[FIELD_KINDS] = {
    "HANDLE", "HANDLE.PARENT", "NAME",  "VALUE", "FILE", "COUNT",
    "T.NET",  "T.GROSS",       "EVENT", "TIME",  "CORE", "CONTEXT",
};

/* More names a field may have: winIDEA's SDK calls the count "hits". */
static const struct {
    const char *name;
    field_t field;
} field_aliases[] = {
    {"PARENT", F_PARENT},
    {"HITS", F_COUNT},
};

typedef enum section {
    S_MAPPING,
    S_STATISTICS,
    S_TIMELINE,
    S_CONTEXTS,
    S_INFO,
    SECTION_KINDS
} section_t;

static const char *const section_names[SECTION_KINDS] = {"MAPPING", "STATISTICS", "TIMELINE",
                                                         "CONTEXTS", "INFO"};

/* True when name equals word (upper case) in any case. */
static bool name_is(const char *name, const char *word)
{
    for (; *word != '\0'; name++, word++) {
        char c = *name;
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (c != *word)
            return false;
    }
    return *name == '\0';
}

/* The name after a namespace prefix ("p:AREA" is AREA). */
static const char *local_name(const char *name)
{
    const char *colon = strrchr(name, ':');
    return colon != NULL ? colon + 1 : name;
}

static field_t field_of(const char *local)
{
    for (int f = 0; f < FIELD_KINDS; f++)
        if (name_is(local, field_titles[f]))
            return (field_t)f;
    for (size_t i = 0; i < sizeof field_aliases / sizeof *field_aliases; i++)
        if (name_is(local, field_aliases[i].name))
            return field_aliases[i].field;
    return NO_FIELD;
}

static int section_of(const char *local)
{
    for (int s = 0; s < SECTION_KINDS; s++)
        if (name_is(local, section_names[s]))
            return s;
    return -1;
}

/* ---- The reader --------------------------------------------------------------------------- */

typedef struct position {
    unsigned long line, col; /* from 1 */
    long long byte;          /* from 0 */
} position_t;

typedef struct text {
    char *s;
    size_t n, cap;
} text_t;

typedef struct candidate {
    unsigned depth;
    bool is_area, is_t; /* named AREA or T */
    position_t at;
} candidate_t;

/* What an open element is, to undo at its end tag. */
enum role { ROLE_PLAIN, ROLE_SKIP, ROLE_SECTION, ROLE_FIELD, ROLE_RECORD };

typedef struct reader {
    lg_source_t *src;
    const lg_load_options_t *options;
    XML_Parser parser;
    lg_wi_export_t x;
    lg_err_t err; /* set by a handler that failed; parsing stops */

    unsigned depth;
    uint8_t role[LG_WI_XML_MAX_DEPTH + 1];
    uint8_t section[LG_WI_XML_MAX_DEPTH + 1];
    unsigned open_sections[SECTION_KINDS];
    unsigned skip_depth; /* root of a skipped subtree, 0 for none */

    candidate_t cand[LG_WI_XML_MAX_DEPTH + 1];
    unsigned ncand;
    bool rec_has_fields; /* the top candidate has a child field element: it is the record */
    bool has[FIELD_KINDS];
    text_t value[FIELD_KINDS];
    position_t at[FIELD_KINDS];
    field_t field; /* whose text is being read, or NO_FIELD */
    unsigned field_depth;

    uint32_t last_function; /* handle of the last function listed, or LG_WI_NO_PARENT */
    uint64_t areas;
    position_t first_event;
    bool have_event;

    uint64_t unknown_records;
    position_t first_unknown;
} reader_t;

static position_t here(const reader_t *r)
{
    return (position_t){XML_GetCurrentLineNumber(r->parser),
                        XML_GetCurrentColumnNumber(r->parser) + 1,
                        (long long)XML_GetCurrentByteIndex(r->parser)};
}

static lg_err_t fail_at(reader_t *r, lg_err_t err, position_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records the error at a position of the document and stops the parser. */
static lg_err_t fail_at(reader_t *r, lg_err_t err, position_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *message = lg_vformat(fmt, ap);
    va_end(ap);
    lg_source_report(r->src, LG_ERROR, at.line, at.col, "%s (byte %lld)",
                     message != NULL ? message : lg_strerror(err), at.byte);
    free(message);
    r->err = err;
    XML_StopParser(r->parser, XML_FALSE);
    return err;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The value of field f without surrounding white space, NUL-terminated in place. */
static const char *value_of(reader_t *r, field_t f, size_t *n)
{
    text_t *t = &r->value[f];
    if (!r->has[f] || t->n == 0) {
        *n = 0;
        return "";
    }
    size_t a = 0, b = t->n;
    while (a < b && is_space(t->s[a]))
        a++;
    while (b > a && is_space(t->s[b - 1]))
        b--;
    t->s[b] = '\0';
    *n = b - a;
    return t->s + a;
}

/* Sets field f's text (an attribute's value). */
static bool set_value(reader_t *r, field_t f, const char *s, size_t n)
{
    text_t *t = &r->value[f];
    if (!lg_grow((void **)&t->s, &t->cap, n + 1, 1))
        return false;
    memcpy(t->s, s, n);
    t->s[n] = '\0';
    t->n = n;
    r->has[f] = true;
    return true;
}

static void clear_fields(reader_t *r)
{
    for (int f = 0; f < FIELD_KINDS; f++) {
        r->has[f] = false;
        r->value[f].n = 0;
    }
    r->rec_has_fields = false;
}

/* ---- Records ------------------------------------------------------------------------------ */

/* The record's handle (field f), which must be there. */
static lg_err_t read_handle(reader_t *r, field_t f, const char *record, uint32_t *handle)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    size_t n;
    const char *s = value_of(r, f, &n);
    if (!r->has[f])
        return fail_at(r, LG_EFORMAT, r->cand[r->ncand - 1].at, "expected <%s> in <%s>, found none",
                       field_titles[f], record);
    if (!lg_wi_parse_handle(s, n, handle))
        return fail_at(r, LG_EFORMAT, r->at[f],
                       "expected a handle (up to 8 hexadecimal digits) in <%s>, found %s%s%s",
                       field_titles[f], n ? "'" : "nothing", QUOTE(s, n, q), n ? "'" : "");
    return LG_OK;
}

/* A count or time statistic; missing or empty is 0. */
static lg_err_t read_number(reader_t *r, field_t f, uint64_t *value)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    size_t n;
    const char *s = value_of(r, f, &n);
    *value = 0;
    if (n > 0 && lg_parse_u64(s, n, LG_NUMBER_HEX_PREFIX, value) != LG_NUMBER_OK)
        return fail_at(r, LG_EFORMAT, r->at[f], "expected a number in <%s>, found '%s'",
                       field_titles[f], QUOTE(s, n, q));
    return LG_OK;
}

static lg_err_t mapped_handle(reader_t *r, const char *record, uint32_t *handle, uint32_t *func)
{
    LG_CHECK(read_handle(r, F_HANDLE, record, handle));
    *func = lg_wi_map_resolve(r->x.map, *handle);
    if (*func == LG_WI_UNMAPPED)
        return fail_at(r, LG_EFORMAT, r->at[F_HANDLE],
                       "handle 0x%08" PRIX32 " is not in the mapping (no <AREA> lists it)",
                       *handle);
    return LG_OK;
}

static lg_err_t mapping_record(reader_t *r, const char *record)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    if (r->have_event)
        return fail_at(r, LG_EFORMAT, r->cand[r->ncand - 1].at,
                       "expected every <%s> before the timeline (first event at line %lu), "
                       "found one after it",
                       record, r->first_event.line);
    uint32_t handle, parent = LG_WI_NO_PARENT;
    LG_CHECK(read_handle(r, F_HANDLE, record, &handle));
    unsigned area = lg_wi_handle_area(handle);
    size_t n;
    value_of(r, F_PARENT, &n);
    if (n > 0)
        LG_CHECK(read_handle(r, F_PARENT, record, &parent));
    else if (area == LG_WI_LINE)
        parent = r->last_function; /* lines follow their function */
    uint64_t line = 0;
    const char *v = value_of(r, F_VALUE, &n);
    if (area == LG_WI_LINE && n > 0 &&
        lg_parse_u64(v, n, LG_NUMBER_HEX_PREFIX, &line) != LG_NUMBER_OK)
        return fail_at(r, LG_EFORMAT, r->at[F_VALUE],
                       "expected a line number in <VALUE>, found '%s'", QUOTE(v, n, q));
    size_t name_len, file_len;
    const char *name = value_of(r, F_NAME, &name_len);
    const char *file = value_of(r, F_FILE, &file_len);
    lg_diag_t why;
    lg_diag_init(&why);
    lg_err_t err = lg_wi_map_add(r->x.map, handle, parent, name, line, file, &why);
    if (err != LG_OK)
        fail_at(r, err, r->at[F_HANDLE], "%s",
                why.count > 0 ? why.entries[0].message : lg_strerror(err));
    lg_diag_destroy(&why);
    if (err != LG_OK)
        return err;
    if (area == LG_WI_FUNCTION)
        r->last_function = handle;
    r->areas++;
    return LG_OK;
}

static lg_err_t statistics_record(reader_t *r, const char *record)
{
    uint32_t handle, func;
    LG_CHECK(mapped_handle(r, record, &handle, &func));
    unsigned area = lg_wi_handle_area(handle);
    uint64_t count, net, gross;
    LG_CHECK(read_number(r, F_NET, &net));
    if (area == LG_WI_FUNCTION) {
        LG_CHECK(read_number(r, F_COUNT, &count));
        LG_CHECK(read_number(r, F_GROSS, &gross));
        if (lg_wi_export_function_stat(&r->x, func, count, net, gross) != LG_OK)
            return fail_at(r, LG_ENOMEM, r->at[F_HANDLE], "out of memory adding statistics");
    } else if (area == LG_WI_LINE) {
        /* A line's net time: where in a large function the time goes. */
        uint32_t parent;
        uint64_t line;
        if (net > 0 && lg_wi_map_line(r->x.map, handle, &parent, &line) && line > 0 &&
            lg_profile_add_cost(r->x.out, parent, line, net) != LG_OK)
            return fail_at(r, LG_ENOMEM, r->at[F_HANDLE], "out of memory adding a line cost");
    }
    return LG_OK;
}

static lg_err_t event_record(reader_t *r, const char *record)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    const position_t at = r->cand[r->ncand - 1].at;
    if (r->x.bin_path != NULL)
        return fail_at(r, LG_EFORMAT, at,
                       "expected no timeline events in the XML next to the binary timeline %s, "
                       "found some (winIDEA writes one or the other: remove or rename the stale "
                       "one)",
                       r->x.bin_path);
    uint32_t handle, func;
    LG_CHECK(mapped_handle(r, record, &handle, &func));
    size_t n;
    const char *e = value_of(r, F_EVENT, &n);
    if (!r->has[F_EVENT] || !r->has[F_TIME])
        return fail_at(r, LG_EFORMAT, at, "expected <%s> in <%s>, found none",
                       r->has[F_EVENT] ? "TIME" : "EVENT", record);
    int code = lg_wi_event_code(e, n);
    if (code < 0)
        return fail_at(r, LG_EFORMAT, r->at[F_EVENT],
                       "expected an event E, S, R, X or W in <EVENT>, found '%s'", QUOTE(e, n, q));
    const char *t = value_of(r, F_TIME, &n);
    int64_t time;
    if (!lg_wi_parse_s64(t, n, &time))
        return fail_at(r, LG_EFORMAT, r->at[F_TIME], "expected a time in ns in <TIME>, found '%s'",
                       QUOTE(t, n, q));
    /* Data writes, and events of lines, states and AUX signals, are not calls. */
    if (code == (int)LG_WI_EVENT_WRITE || func == LG_WI_NOT_FUNCTION)
        return LG_OK;
    uint32_t stream = 0;
    if (r->has[F_CORE] || r->has[F_CONTEXT]) {
        const char *c = value_of(r, F_CORE, &n);
        int64_t core = -1;
        if (n > 0 && !lg_wi_parse_s64(c, n, &core))
            return fail_at(r, LG_EFORMAT, r->at[F_CORE],
                           "expected a core index (a number, -1 when unknown) in <CORE>, found "
                           "'%s'",
                           QUOTE(c, n, q));
        const char *ctx = value_of(r, F_CONTEXT, &n);
        lg_err_t err = lg_wi_export_stream(&r->x, core, ctx, n, &stream);
        if (err == LG_ELIMIT)
            return fail_at(r, err, at, "more than %u (core, context) streams (LG_TL_MAX_STREAMS)",
                           LG_TL_MAX_STREAMS);
        if (err != LG_OK)
            return fail_at(r, err, at, "out of memory adding a stream");
    }
    if (!r->have_event) {
        r->have_event = true;
        r->first_event = at;
    }
    lg_err_t err = lg_wi_export_event(&r->x, stream, func, (lg_tl_kind_t)code, time);
    if (err == LG_ELIMIT)
        return fail_at(r, err, at,
                       "more than %u open calls on one stream (LG_TL_MAX_DEPTH): Exit events "
                       "are missing",
                       LG_TL_MAX_DEPTH);
    if (err != LG_OK)
        return fail_at(r, err, at, "%s feeding the timeline",
                       err == LG_ENOMEM ? "out of memory" : "internal error");
    return LG_OK;
}

/* A record has ended: read it as what its name and sections make it. */
static lg_err_t end_record(reader_t *r, const candidate_t *c, const char *name)
{
    uint32_t handle;
    if (r->open_sections[S_CONTEXTS] > 0)
        return r->has[F_HANDLE] ? read_handle(r, F_HANDLE, name, &handle) : LG_OK;
    if (r->open_sections[S_INFO] > 0)
        return LG_OK;
    if (c->is_t || r->open_sections[S_TIMELINE] > 0)
        return event_record(r, name);
    if (r->open_sections[S_STATISTICS] > 0)
        return statistics_record(r, name);
    if (c->is_area || r->open_sections[S_MAPPING] > 0)
        return mapping_record(r, name);
    if (r->has[F_HANDLE] && r->unknown_records++ == 0)
        r->first_unknown = c->at;
    return LG_OK;
}

/* ---- expat's handlers --------------------------------------------------------------------- */

static void XMLCALL on_start(void *data, const XML_Char *name, const XML_Char **atts)
{
    reader_t *r = data;
    if (r->err != LG_OK)
        return;
    if (r->depth == LG_WI_XML_MAX_DEPTH) {
        fail_at(r, LG_ELIMIT, here(r), "elements nested deeper than %u (LG_WI_XML_MAX_DEPTH)",
                LG_WI_XML_MAX_DEPTH);
        return;
    }
    unsigned depth = ++r->depth;
    r->role[depth] = ROLE_PLAIN;
    if (r->skip_depth != 0)
        return;
    if (r->field != NO_FIELD) {
        /* Markup inside a value: not a value lorgen can read; skipped. */
        r->role[depth] = ROLE_SKIP;
        r->skip_depth = depth;
        return;
    }
    const char *local = local_name(name);
    const candidate_t *top = r->ncand > 0 ? &r->cand[r->ncand - 1] : NULL;
    bool in_record = top != NULL && r->rec_has_fields;
    int section = section_of(local);
    if (section >= 0 && !in_record) {
        r->role[depth] = ROLE_SECTION;
        r->section[depth] = (uint8_t)section;
        r->open_sections[section]++;
        return;
    }
    field_t f = field_of(local);
    if (top != NULL && top->depth == depth - 1 && f != NO_FIELD) {
        r->role[depth] = ROLE_FIELD;
        r->field = f;
        r->field_depth = depth;
        r->has[f] = true;
        r->value[f].n = 0;
        r->at[f] = here(r);
        r->rec_has_fields = true;
        return;
    }
    if (in_record) {
        /* An element of a record that is not a field: skipped with everything inside. */
        r->role[depth] = ROLE_SKIP;
        r->skip_depth = depth;
        return;
    }
    /* A candidate record; the one below it (if any) had no fields: it was a wrapper. */
    r->role[depth] = ROLE_RECORD;
    clear_fields(r);
    candidate_t *c = &r->cand[r->ncand++];
    *c = (candidate_t){depth, name_is(local, "AREA"), name_is(local, "T"), here(r)};
    for (size_t i = 0; atts[i] != NULL; i += 2) {
        field_t af = field_of(local_name(atts[i]));
        if (af == NO_FIELD)
            continue;
        if (!set_value(r, af, atts[i + 1], strlen(atts[i + 1]))) {
            fail_at(r, LG_ENOMEM, c->at, "out of memory reading an attribute");
            return;
        }
        r->at[af] = c->at;
    }
}

static void XMLCALL on_end(void *data, const XML_Char *name)
{
    reader_t *r = data;
    if (r->err != LG_OK)
        return;
    unsigned depth = r->depth--;
    switch (r->role[depth]) {
    case ROLE_SKIP:
        if (r->skip_depth == depth)
            r->skip_depth = 0;
        break;
    case ROLE_SECTION:
        r->open_sections[r->section[depth]]--;
        break;
    case ROLE_FIELD:
        r->field = NO_FIELD;
        break;
    case ROLE_RECORD: {
        bool any = false;
        for (int f = 0; f < FIELD_KINDS; f++)
            any = any || r->has[f];
        if (any && end_record(r, &r->cand[r->ncand - 1], local_name(name)) != LG_OK)
            return;
        r->ncand--;
        clear_fields(r);
        break;
    }
    default:
        break;
    }
}

static void XMLCALL on_text(void *data, const XML_Char *s, int len)
{
    reader_t *r = data;
    if (r->err != LG_OK || r->field == NO_FIELD || r->depth != r->field_depth)
        return;
    text_t *t = &r->value[r->field];
    if (t->n + (size_t)len > LG_WI_XML_MAX_TEXT) {
        fail_at(r, LG_ELIMIT, r->at[r->field],
                "<%s> holds more than %u bytes of text (LG_WI_XML_MAX_TEXT)",
                field_titles[r->field], LG_WI_XML_MAX_TEXT);
        return;
    }
    if (!lg_grow((void **)&t->s, &t->cap, t->n + (size_t)len + 1, 1)) {
        fail_at(r, LG_ENOMEM, r->at[r->field], "out of memory reading <%s>",
                field_titles[r->field]);
        return;
    }
    memcpy(t->s + t->n, s, (size_t)len);
    t->n += (size_t)len;
}

/* Windows-1252, which a Windows tool may declare: Latin-1 but for 0x80-0x9F. expat knows
 * UTF-8, UTF-16, ISO-8859-1 and US-ASCII only; other encodings are an error. */
static int XMLCALL on_unknown_encoding(void *data, const XML_Char *name, XML_Encoding *info)
{
    (void)data;
    static const unsigned short cp1252_high[32] = {
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
        0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    };
    if (!name_is(name, "WINDOWS-1252") && !name_is(name, "CP1252"))
        return XML_STATUS_ERROR;
    for (int i = 0; i < 256; i++)
        info->map[i] = i >= 0x80 && i < 0xA0 ? cp1252_high[i - 0x80] : i;
    info->data = NULL;
    info->convert = NULL;
    info->release = NULL;
    return XML_STATUS_OK;
}

/* ---- Loading ------------------------------------------------------------------------------ */

static lg_err_t parse(reader_t *r)
{
    lg_source_t *src = r->src;
    for (uint64_t next = 0;;) {
        LG_CHECK(lg_source_window(src, next, READ_CHUNK));
        uint64_t end = src->base + src->len;
        size_t n = end - next < READ_CHUNK ? (size_t)(end - next) : READ_CHUNK;
        /* The end is told in a call of its own, as expat's own loop does (it then places an
         * error in an empty document at byte 0). */
        bool final = n == 0;
        if (final && XML_GetBuffer(r->parser, 1) == NULL)
            return lg_diag_fail(src->d, LG_ENOMEM, src->path, "out of memory");
        enum XML_Status status =
            final ? XML_ParseBuffer(r->parser, 0, XML_TRUE)
                  : XML_Parse(r->parser, (const char *)lg_source_at(src, next), (int)n, XML_FALSE);
        if (status != XML_STATUS_OK) {
            if (r->err != LG_OK)
                return r->err;
            enum XML_Error code = XML_GetErrorCode(r->parser);
            position_t at = here(r);
            /* expat says "no element found" or "unclosed token" for a document that stops
             * inside its elements; a file cut short is the likely cause, and worth saying. */
            bool cut = final && r->depth > 0 &&
                       (code == XML_ERROR_NO_ELEMENTS || code == XML_ERROR_UNCLOSED_TOKEN ||
                        code == XML_ERROR_PARTIAL_CHAR || code == XML_ERROR_UNCLOSED_CDATA_SECTION);
            if (cut)
                fail_at(r, LG_EFORMAT, at,
                        "expected the rest of the document, found its end with %u element(s) "
                        "open: the file is cut short",
                        r->depth);
            else
                fail_at(r, LG_EFORMAT, at, "expected well-formed XML, found: %s",
                        XML_ErrorString(code));
            return LG_EFORMAT;
        }
        next += n;
        if (final)
            return LG_OK;
    }
}

static void report_warnings(const reader_t *r)
{
    if (r->unknown_records == 0)
        return;
    lg_source_report(r->src, LG_WARNING, r->first_unknown.line, r->first_unknown.col,
                     "%" PRIu64 " element(s) with a <HANDLE> outside MAPPING, STATISTICS and "
                     "TIMELINE were skipped",
                     r->unknown_records);
}

lg_err_t lg_wi_xml_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out)
{
    lg_diag_t *d = src->d;
    reader_t *r = calloc(1, sizeof *r);
    if (r == NULL)
        return lg_diag_fail(d, LG_ENOMEM, src->path, "out of memory");
    *r = (reader_t){
        .src = src, .options = options, .field = NO_FIELD, .last_function = LG_WI_NO_PARENT};
    lg_err_t err =
        lg_wi_export_init(&r->x, out, src->path, "winidea-xml", src->from_path, options, d);
    if (err == LG_OK) {
        r->parser = XML_ParserCreate(NULL);
        if (r->parser == NULL)
            err = lg_diag_fail(d, LG_ENOMEM, src->path, "out of memory");
    }
    if (err == LG_OK) {
        XML_SetUserData(r->parser, r);
        XML_SetElementHandler(r->parser, on_start, on_end);
        XML_SetCharacterDataHandler(r->parser, on_text);
        XML_SetUnknownEncodingHandler(r->parser, on_unknown_encoding, NULL);
        err = parse(r);
    }
    if (err == LG_OK && r->areas == 0)
        err = lg_diag_fail(d, LG_EFORMAT, src->path,
                           "expected <AREA> elements (the mapping of handles to functions), "
                           "found none");
    if (err == LG_OK)
        err = lg_wi_export_finish(&r->x, options, d);
    if (err == LG_OK)
        report_warnings(r);
    if (r->parser != NULL)
        XML_ParserFree(r->parser);
    lg_wi_export_destroy(&r->x);
    for (int i = 0; i < FIELD_KINDS; i++)
        free(r->value[i].s);
    free(r);
    return err;
}

/* ---- Detection ---------------------------------------------------------------------------- */

bool lg_wi_xml_probe(const uint8_t *head, size_t len)
{
    if (head == NULL)
        return false;
    size_t at = len >= UTF8_BOM_LEN && memcmp(head, UTF8_BOM, UTF8_BOM_LEN) == 0 ? UTF8_BOM_LEN : 0;
    while (at < len && is_space((char)head[at]))
        at++;
    if (at == len || head[at] != '<')
        return false;
    /* An element named MAPPING, AREA or TIMELINE (a prefix allowed) within the head. */
    for (; at < len; at++) {
        if (head[at] != '<')
            continue;
        size_t start = at + 1, i = start;
        while (i < len && i - start <= PROBE_NAME && head[i] != '>' && head[i] != '/' &&
               !is_space((char)head[i])) {
            if (head[i] == ':')
                start = i + 1;
            i++;
        }
        size_t k = i - start;
        if (i == len || k == 0 || k > PROBE_NAME)
            continue;
        char name[PROBE_NAME + 1];
        memcpy(name, head + start, k);
        name[k] = '\0';
        if (name_is(name, "MAPPING") || name_is(name, "AREA") || name_is(name, "TIMELINE"))
            return true;
    }
    return false;
}
