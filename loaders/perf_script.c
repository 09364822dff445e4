/* perf_script.c - read `perf script` text (Linux perf call-chain samples) into an lg_profile_t.
 *
 * The file is read line by line (getline); each line is one of
 *   comment   '#' in column 0, anywhere (perf's header block, and notes people add)
 *   blank     empty or only spaces and tabs: ends the open sample
 *   header    COMM [PID/]TID [CPU] TIME: [PERIOD] EVENT: [REST]   starts a sample (and ends the
 *             open one: output without call chains has no blank lines). Without call chains
 *             perf right-aligns COMM, so a header may be indented; headers are recognised by
 *             their fields, not by their column. REST is the sample's only frame when it has the
 *             frame's shape, else event data (tracepoint fields), which is ignored
 *   frame     indented, ADDRESS SYMBOL[+0xOFFSET] (DSO): one level of the open sample's call
 *             chain, innermost (the sampled location) first
 * Anything else is an error naming the line.
 *
 * Model (docs/loaders/perf-script.md says the same for users):
 *   function   one per (symbol without +0xOFFSET, basename of the DSO): name = the symbol,
 *              qual_name = the DSO's basename, so same-named symbols of two DSOs stay apart
 *   hits       samples in which the function is the leaf (frame 0)
 *   counter 1  weight = the sample's period when the file has a period column, else 1.
 *              counter1_self sums the weights of the samples where the function is the leaf,
 *              counter1_total those of the samples where it appears anywhere in the chain (once
 *              per sample, however deep it recurses). counter1_unit names the period's unit
 *   edge       frame i+1 -> frame i for every adjacent pair of the chain (gprof2dot's method, not
 *              hfsort's leaf-and-caller only), weight +1 per occurrence; recursion gives self
 *              edges. The profile sums repeated pairs as they come, so memory grows with
 *              distinct pairs, not with samples
 *
 * Definitions:
 *   leaf            the sampled function: the first frame that is not an inlined frame
 *   unknown frame   symbol "[unknown]": perf could not name it. gprof2dot and FlameGraph keep it
 *                   as a node of its own, so no call passes through it; lorgen drops the node
 *                   (it binds to no symbol) and with it the edges on either side: the chain is
 *                   broken there, never bridged
 *   inlined frame   DSO "(inlined)" (perf --inline): a function inlined into the next frame. Its
 *                   code lies in that frame's function, which is what the cache sees, so inlined
 *                   frames are passed over and the chain continues across them
 *   event           the EVENT field without its ':'; "cycles:ppp" has base name "cycles"
 *   selected        a sample of the event being read: the requested one, or by default the first
 *                   event the file names. Other samples are checked for syntax and skipped
 *
 * Every failure is one error diagnostic "PATH:LINE: expected ..., found ..." and leaves the
 * profile empty.
 *
 * Reference: Linux tools/perf/builtin-script.c (header fields) and util/evsel_fprintf.c (frame
 * lines); jrfonseca/gprof2dot PerfParser; brendangregg/FlameGraph stackcollapse-perf.pl.
 */
#include "perf_script.h"

#include "mem.h"
#include "registry.h"
#include "strmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Words a header may have before its TIME field: COMM (Linux keeps at most 15 bytes, so at most
 * 8 words), TID and CPU. A line whose time comes later is not a header. */
#define HEADER_MAX_LEAD_WORDS 16u
/* Hex digits of a 64-bit address. */
#define ADDRESS_MAX_DIGITS 16u
/* Bytes of an offending line quoted in a message; longer lines end in "...". */
#define SHOWN_LINE_BYTES 100u
/* Events named in one message before "and N more", and bytes shown of each name. */
#define SHOWN_EVENTS 8u
#define SHOWN_EVENT_NAME_BYTES 64u
#define EVENT_LIST_BUFFER (SHOWN_EVENTS * (SHOWN_EVENT_NAME_BYTES + 48u) + 64u)

/* No function: the previous frame was unknown, or there was none. */
#define NO_FUNC UINT32_MAX

static const char UNKNOWN_SYMBOL[] = "[unknown]";
static const char INLINED_DSO[] = "inlined";
/* perf appends this to a DSO whose file was deleted while mapped. */
static const char DELETED_SUFFIX[] = " (deleted)";
/* Event modifiers, tools/perf/Documentation/perf-list.txt "EVENT MODIFIERS". */
static const char EVENT_MODIFIERS[] = "ukhIGHpPSDWeb";

static const char HEADER_SHAPE[] = "'COMM [PID/]TID [CPU] TIME: [PERIOD] EVENT:'";
static const char FRAME_SHAPE[] = "'ADDRESS SYMBOL (DSO)'";

/* The unit of a period, by event base name: perf's period counts the sampled event, except for
 * the software clocks, whose period is in nanoseconds. Other events count "events". */
static const struct {
    const char *event;
    const char *unit;
} period_units[] = {
    {"cycles", "cycles"},
    {"cpu-cycles", "cycles"},
    {"ref-cycles", "ref-cycles"},
    {"bus-cycles", "bus-cycles"},
    {"instructions", "instructions"},
    {"cpu-clock", "ns"},
    {"task-clock", "ns"},
    {"cache-misses", "cache-misses"},
    {"cache-references", "cache-references"},
    {"branch-misses", "branch-misses"},
    {"branches", "branches"},
    {"branch-instructions", "branches"},
};
#define PERIOD_UNIT_OTHER "events"
#define SAMPLES_UNIT "samples"

typedef struct header {
    lg_span_t comm;
    bool has_tid;
    bool has_period;
    uint64_t period;
    lg_span_t event; /* without its ':' */
    lg_span_t rest;  /* after the event, up to the end of the line; may be empty */
} header_t;

typedef struct frame {
    uint64_t address;
    lg_span_t symbol; /* +0xOFFSET removed */
    lg_span_t dso;    /* inside the parentheses */
    bool unknown;  /* symbol [unknown] */
    bool inlined;  /* DSO (inlined) */
} frame_t;

typedef struct event {
    char *name;        /* owned; the key of reader.event_ids */
    uint64_t samples;  /* samples of this event */
    size_t first_line; /* header line of its first sample */
    bool selected;
} event_t;

enum { PERIOD_UNSEEN, PERIOD_PRESENT, PERIOD_ABSENT };

typedef struct reader {
    lg_source_t *src;
    const char *want; /* requested event, or NULL */
    lg_profile_t *out;
    size_t line; /* of the line being read, from 1 */

    event_t *events;
    size_t nevents, events_cap;
    lg_strmap_t event_ids;
    bool chose_event; /* default mode: the first event has been selected */
    uint64_t selected_samples;

    /* The open sample. */
    bool in_sample;
    bool selected;
    uint64_t sample_number; /* from 1; stamps[] compare against it */
    uint64_t weight;        /* period, or 1 */
    size_t frames;          /* frame lines read, inlined ones included */
    size_t call_frames;     /* frames that are not inlined */
    bool leaf_seen;
    uint32_t prev; /* function of the previous non-inlined frame, or NO_FUNC */

    int period_state; /* PERIOD_*, for selected samples */
    size_t period_line;

    uint64_t *stamps; /* per function: the last sample counted into its counter1_total */
    size_t stamps_cap;

    /* For the note on unknown frames (selected samples only). */
    uint64_t frames_read, unknown_frames, leafless_samples;
    size_t first_unknown_line;
} reader_t;

/* ---- Diagnostics --------------------------------------------------------------------------- */

/* A message at a line (0: the whole file). */
#define NOTE_AT(r, severity, line, ...) lg_source_report((r)->src, (severity), (line), 0, __VA_ARGS__)
/* Up to SHOWN_LINE_BYTES of a line, for a message. */
#define SHOWN(s, n, q) lg_quote((s), (n), SHOWN_LINE_BYTES, (q))

/* ---- Line syntax (shared by the probe and the loader) --------------------------------------- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_value(char c)
{
    if (is_digit(c))
        return (unsigned)(c - '0');
    return (unsigned)((c | 0x20) - 'a' + 10); /* | 0x20: ASCII lower case */
}

/* Length of s[0, n) without trailing spaces, tabs, carriage returns and line feeds. */
static size_t trimmed_len(const char *s, size_t n)
{
    while (n > 0 && (is_blank(s[n - 1]) || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    return n;
}

/* The next word (run of non-blanks) at or after *pos in s[0, n). */
static bool next_word(const char *s, size_t n, size_t *pos, lg_span_t *word)
{
    size_t i = *pos;
    while (i < n && is_blank(s[i]))
        i++;
    if (i == n)
        return false;
    size_t start = i;
    while (i < n && !is_blank(s[i]))
        i++;
    *word = (lg_span_t){s + start, i - start};
    *pos = i;
    return true;
}

static bool all_digits(lg_span_t w)
{
    for (size_t i = 0; i < w.n; i++)
        if (!is_digit(w.s[i]))
            return false;
    return w.n > 0;
}

static bool span_is(lg_span_t w, const char *text)
{
    return w.n == strlen(text) && memcmp(w.s, text, w.n) == 0;
}

/* SECONDS.FRACTION: */
static bool is_time(lg_span_t w)
{
    size_t i = 0, int_digits, frac_digits;
    while (i < w.n && is_digit(w.s[i]))
        i++;
    int_digits = i;
    if (int_digits == 0 || i == w.n || w.s[i] != '.')
        return false;
    i++;
    size_t frac_start = i;
    while (i < w.n && is_digit(w.s[i]))
        i++;
    frac_digits = i - frac_start;
    return frac_digits > 0 && i + 1 == w.n && w.s[i] == ':';
}

/* [CPU] */
static bool is_cpu(lg_span_t w)
{
    return w.n >= 3 && w.s[0] == '[' && w.s[w.n - 1] == ']' &&
           all_digits((lg_span_t){w.s + 1, w.n - 2});
}

/* TID or PID/TID */
static bool is_tid(lg_span_t w)
{
    const char *slash = memchr(w.s, '/', w.n);
    if (slash == NULL)
        return all_digits(w);
    size_t left = (size_t)(slash - w.s);
    return all_digits((lg_span_t){w.s, left}) && all_digits((lg_span_t){slash + 1, w.n - left - 1});
}

/* Parses a sample header from s[0, n) (trailing blanks already removed). On failure *why says
 * what is missing. */
static bool parse_header(const char *s, size_t n, header_t *h, const char **why)
{
    lg_span_t lead[HEADER_MAX_LEAD_WORDS];
    size_t nlead = 0, pos = 0;
    lg_span_t w;
    bool have_time = false;
    *h = (header_t){0};
    while (next_word(s, n, &pos, &w)) {
        /* The first word is COMM's, whatever it looks like. */
        if (nlead > 0 && is_time(w)) {
            have_time = true;
            break;
        }
        if (nlead == HEADER_MAX_LEAD_WORDS)
            break;
        lead[nlead++] = w;
    }
    if (!have_time) {
        *why = "no time 'SECONDS.FRACTION:' after the command name";
        return false;
    }
    /* COMM may contain blanks: TID and CPU are recognised from the right, and COMM keeps at
     * least its first word. */
    size_t comm_words = nlead;
    if (comm_words >= 2 && is_cpu(lead[comm_words - 1]))
        comm_words--;
    if (comm_words >= 2 && is_tid(lead[comm_words - 1])) {
        comm_words--;
        h->has_tid = true;
    }
    const lg_span_t *last = &lead[comm_words - 1];
    h->comm = (lg_span_t){lead[0].s, (size_t)(last->s + last->n - lead[0].s)};

    if (!next_word(s, n, &pos, &w)) {
        *why = "no event name 'EVENT:' after the time";
        return false;
    }
    if (all_digits(w)) {
        if (lg_parse_u64(w.s, w.n, 0, &h->period) != LG_NUMBER_OK) {
            *why = "period does not fit in 64 bits";
            return false;
        }
        h->has_period = true;
        if (!next_word(s, n, &pos, &w)) {
            *why = "no event name 'EVENT:' after the period";
            return false;
        }
    }
    if (w.n < 2 || w.s[w.n - 1] != ':') {
        *why = "no event name ending in ':' after the time";
        return false;
    }
    h->event = (lg_span_t){w.s, w.n - 1};
    while (pos < n && is_blank(s[pos]))
        pos++;
    h->rest = (lg_span_t){s + pos, n - pos};
    return true;
}

/* Removes a trailing +0xHEX (perf >= 4.8 prints symbol offsets by default). */
static lg_span_t strip_offset(lg_span_t sym)
{
    for (size_t i = sym.n; i-- > 1;) {
        if (sym.s[i] != '+')
            continue;
        /* The last '+' decides: "operator+" keeps its '+', "f+0x1c" loses "+0x1c". */
        if (sym.n - i < 4 || sym.s[i + 1] != '0' || sym.s[i + 2] != 'x')
            return sym;
        for (size_t k = i + 3; k < sym.n; k++)
            if (!is_hex(sym.s[k]))
                return sym;
        return (lg_span_t){sym.s, i};
    }
    return sym;
}

/* Parses a frame line ADDRESS SYMBOL[+0xOFF] (DSO) from s[0, n) (trailing blanks already
 * removed; leading blanks allowed). SYMBOL may contain blanks and parentheses: DSO is the
 * balanced parenthesised group that ends the line. On failure *why says what is missing. */
static bool parse_frame(const char *s, size_t n, frame_t *f, const char **why)
{
    size_t i = 0;
    *f = (frame_t){0};
    while (i < n && is_blank(s[i]))
        i++;
    size_t start = i;
    uint64_t address = 0;
    while (i < n && is_hex(s[i])) {
        if (i - start == ADDRESS_MAX_DIGITS) {
            *why = "address longer than 16 hexadecimal digits";
            return false;
        }
        address = address << 4 | hex_value(s[i]);
        i++;
    }
    if (i == start) {
        *why = "no hexadecimal address";
        return false;
    }
    if (i == n || !is_blank(s[i])) {
        *why = "no blank after the address";
        return false;
    }
    while (i < n && is_blank(s[i]))
        i++;
    size_t sym_start = i;
    if (n == 0 || s[n - 1] != ')') {
        *why = "no ' (DSO)' at the end";
        return false;
    }
    size_t depth = 0, open = n;
    for (size_t k = n; k-- > sym_start;) {
        if (s[k] == ')') {
            depth++;
        } else if (s[k] == '(' && --depth == 0) {
            open = k;
            break;
        }
    }
    if (open == n || open == sym_start || !is_blank(s[open - 1])) {
        *why = open == sym_start ? "no symbol between the address and '(DSO)'"
                                 : "no ' (DSO)' at the end";
        return false;
    }
    size_t sym_end = open;
    while (sym_end > sym_start && is_blank(s[sym_end - 1]))
        sym_end--;
    lg_span_t sym = strip_offset((lg_span_t){s + sym_start, sym_end - sym_start});
    if (sym.n == 0) {
        *why = "no symbol before its offset";
        return false;
    }
    f->address = address;
    f->symbol = sym;
    f->dso = (lg_span_t){s + open + 1, n - open - 2};
    f->unknown = span_is(sym, UNKNOWN_SYMBOL);
    f->inlined = span_is(f->dso, INLINED_DSO);
    return true;
}

/* ---- Probe ---------------------------------------------------------------------------------- */

/* Comment lines only perf's header block writes. */
static bool is_perf_comment(const char *s, size_t n)
{
    static const char *const marks[] = {"# perf version :", "# captured on",
                                        "# cmdline :", "# event : name ="};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        size_t len = strlen(marks[i]);
        if (n >= len && memcmp(s, marks[i], len) == 0)
            return true;
    }
    return false;
}

/* The line at *pos of head: s[start, start + *n); *complete is false when the end of head cut
 * it. Returns false at the end of head. */
static bool probe_line(const char *s, size_t len, bool whole, size_t *pos, size_t *start, size_t *n,
                       bool *complete)
{
    if (*pos >= len)
        return false;
    const char *nl = memchr(s + *pos, '\n', len - *pos);
    *start = *pos;
    size_t end = nl != NULL ? (size_t)(nl - s) : len;
    *complete = nl != NULL || whole;
    *n = trimmed_len(s + *start, end - *start);
    *pos = nl != NULL ? end + 1 : len;
    return true;
}

bool lg_perf_script_probe(const uint8_t *head, size_t len)
{
    if (head == NULL || memchr(head, '\0', len) != NULL)
        return false;
    const char *s = (const char *)head;
    /* A head shorter than what the CLI reads is the whole file: its last line is complete. */
    bool whole = len < LG_PROBE_BYTES;
    bool perf_comments = false;
    size_t pos = 0, start, n;
    bool complete;
    while (probe_line(s, len, whole, &pos, &start, &n, &complete)) {
        const char *line = s + start;
        if (n > 0 && line[0] == '#') {
            perf_comments = perf_comments || is_perf_comment(line, n);
            continue;
        }
        if (n == 0)
            continue;
        if (!complete)
            return perf_comments;
        header_t h;
        frame_t f;
        const char *why;
        if (!parse_header(line, n, &h, &why))
            return false;
        if (h.rest.n > 0 && parse_frame(h.rest.s, h.rest.n, &f, &why))
            return true;
        if (!probe_line(s, len, whole, &pos, &start, &n, &complete) || !complete)
            return h.has_tid || perf_comments;
        line = s + start;
        if (parse_frame(line, n, &f, &why))
            return true;
        header_t next;
        return h.has_tid && (n == 0 || parse_header(line, n, &next, &why));
    }
    return perf_comments;
}

/* ---- Events --------------------------------------------------------------------------------- */

/* Length of name without a ":MODIFIERS" suffix. */
static size_t event_base_len(const char *name)
{
    const char *colon = strrchr(name, ':');
    if (colon == NULL || colon[1] == '\0' ||
        strspn(colon + 1, EVENT_MODIFIERS) != strlen(colon + 1))
        return strlen(name);
    return (size_t)(colon - name);
}

static bool event_matches(const char *want, const char *name)
{
    size_t base = event_base_len(name);
    return strcmp(want, name) == 0 || (strlen(want) == base && memcmp(want, name, base) == 0);
}

static const char *period_unit(const char *event)
{
    size_t base = event_base_len(event);
    for (size_t i = 0; i < sizeof period_units / sizeof *period_units; i++)
        if (strlen(period_units[i].event) == base &&
            memcmp(period_units[i].event, event, base) == 0)
            return period_units[i].unit;
    return PERIOD_UNIT_OTHER;
}

/* "cycles (111 samples), instructions (333 samples)": the events that are (or are not) selected,
 * at most SHOWN_EVENTS of them. Returns out. */
static const char *event_list(const reader_t *r, bool selected, char out[EVENT_LIST_BUFFER])
{
    size_t k = 0, shown_events = 0, more = 0;
    out[0] = '\0';
    for (size_t i = 0; i < r->nevents; i++) {
        const event_t *e = &r->events[i];
        if (e->selected != selected)
            continue;
        if (shown_events == SHOWN_EVENTS) {
            more++;
            continue;
        }
        int len = snprintf(out + k, EVENT_LIST_BUFFER - k, "%s%.*s%s (%" PRIu64 " sample%s)",
                           shown_events > 0 ? ", " : "", (int)SHOWN_EVENT_NAME_BYTES, e->name,
                           strlen(e->name) > SHOWN_EVENT_NAME_BYTES ? "..." : "", e->samples,
                           e->samples == 1 ? "" : "s");
        if (len < 0 || (size_t)len >= EVENT_LIST_BUFFER - k)
            break; /* cannot happen with the sizes above; never write past the buffer */
        k += (size_t)len;
        shown_events++;
    }
    if (more > 0)
        snprintf(out + k, EVENT_LIST_BUFFER - k, " and %zu more", more);
    return out;
}

/* Finds or adds the event called name (NUL-terminated, borrowed); *index receives it. */
static lg_err_t find_event(reader_t *r, const char *name, size_t *index)
{
    uint32_t id;
    if (lg_strmap_get(&r->event_ids, name, &id)) {
        *index = id;
        return LG_OK;
    }
    if (r->nevents == LG_PERF_SCRIPT_MAX_EVENTS)
        return LG_FAIL_LINE(r, LG_ELIMIT, r->line,
                            "more than %u distinct events (LG_PERF_SCRIPT_MAX_EVENTS)",
                            LG_PERF_SCRIPT_MAX_EVENTS);
    if (!lg_grow((void **)&r->events, &r->events_cap, r->nevents + 1, sizeof *r->events))
        return LG_FAIL_LINE(r, LG_ENOMEM, r->line, "out of memory adding event '%s'", name);
    char *copy = strdup(name);
    if (copy == NULL || !lg_strmap_put(&r->event_ids, copy, (uint32_t)r->nevents, NULL)) {
        free(copy);
        return LG_FAIL_LINE(r, LG_ENOMEM, r->line, "out of memory adding event '%s'", name);
    }
    bool selected;
    if (r->want != NULL) {
        selected = event_matches(r->want, copy);
    } else {
        selected = !r->chose_event; /* the first event the file names */
        r->chose_event = true;
    }
    r->events[r->nevents] = (event_t){copy, 0, r->line, selected};
    *index = r->nevents++;
    return LG_OK;
}

/* ---- Samples and frames --------------------------------------------------------------------- */

/* Writes a NUL after s, which points into line. */
static char *terminate(char *line, lg_span_t s)
{
    size_t at = (size_t)(s.s - line);
    line[at + s.n] = '\0';
    return line + at;
}

/* The DSO as qualified name: its basename, without " (deleted)". */
static lg_span_t dso_qualifier(lg_span_t dso)
{
    size_t suffix = sizeof DELETED_SUFFIX - 1;
    if (dso.n > suffix && memcmp(dso.s + dso.n - suffix, DELETED_SUFFIX, suffix) == 0)
        dso.n -= suffix;
    for (size_t i = dso.n; i-- > 0;)
        if (dso.s[i] == '/')
            return (lg_span_t){dso.s + i + 1, dso.n - i - 1};
    return dso;
}

static lg_err_t add_frame(reader_t *r, char *line, const frame_t *f)
{
    if (r->frames == LG_PERF_SCRIPT_MAX_FRAMES)
        return LG_FAIL_LINE(
            r, LG_ELIMIT, r->line,
            "sample has more than %u frames (LG_PERF_SCRIPT_MAX_FRAMES); is the blank "
            "line between two samples missing?",
            LG_PERF_SCRIPT_MAX_FRAMES);
    r->frames++;
    if (!r->selected || f->inlined)
        return LG_OK;
    r->call_frames++;
    r->frames_read++;
    if (f->unknown) {
        if (r->unknown_frames++ == 0)
            r->first_unknown_line = r->line;
        if (!r->leaf_seen) {
            r->leaf_seen = true;
            r->leafless_samples++;
        }
        r->prev = NO_FUNC;
        return LG_OK;
    }

    lg_profile_t *out = r->out;
    lg_span_t qual = dso_qualifier(f->dso);
    const char *name = terminate(line, f->symbol);
    const char *qual_name = terminate(line, qual);
    uint32_t id;
    lg_err_t err = lg_profile_intern(out, name, NULL, qual_name, &id);
    if (err == LG_ELIMIT)
        return LG_FAIL_LINE(r, err, r->line, "more than %u functions (LG_PROFILE_MAX_FUNCS)",
                            LG_PROFILE_MAX_FUNCS);
    if (err == LG_OK)
        err = lg_profile_set_object(out, id, qual_name); /* binding names a shared library */
    if (err != LG_OK)
        return LG_FAIL_LINE(r, err, r->line, "out of memory adding function '%s'", name);
    if (out->nfuncs > r->stamps_cap) {
        size_t old = r->stamps_cap;
        if (!lg_grow((void **)&r->stamps, &r->stamps_cap, out->nfuncs, sizeof *r->stamps))
            return LG_FAIL_LINE(r, LG_ENOMEM, r->line, "out of memory adding function '%s'", name);
        memset(r->stamps + old, 0, (r->stamps_cap - old) * sizeof *r->stamps);
    }

    lg_pfunc_t *fn = &out->funcs[id];
    if (!r->leaf_seen) {
        r->leaf_seen = true;
        fn->hits = lg_sat_add(fn->hits, 1);
        fn->counter1_self = lg_sat_add(fn->counter1_self, r->weight);
    }
    if (r->stamps[id] != r->sample_number) {
        r->stamps[id] = r->sample_number;
        fn->counter1_total = lg_sat_add(fn->counter1_total, r->weight);
    }
    /* One more sample in which this function called the previous frame's. */
    if (r->prev != NO_FUNC && lg_profile_add_edge(out, id, r->prev, 1) != LG_OK)
        return LG_FAIL_LINE(r, LG_ENOMEM, r->line, "out of memory adding a call edge");
    r->prev = id;
    return LG_OK;
}

static void end_sample(reader_t *r)
{
    if (!r->in_sample)
        return;
    if (r->selected) {
        if (r->call_frames >= 2)
            r->out->has_call_edges = true;
        if (!r->leaf_seen)
            r->leafless_samples++;
    }
    r->in_sample = false;
}

/* Checks that selected samples agree on having a period column. */
static lg_err_t check_period(reader_t *r, const header_t *h, const char *event)
{
    int state = h->has_period ? PERIOD_PRESENT : PERIOD_ABSENT;
    if (r->period_state == PERIOD_UNSEEN) {
        r->period_state = state;
        r->period_line = r->line;
        r->out->counter1_unit = h->has_period ? period_unit(event) : SAMPLES_UNIT;
        return LG_OK;
    }
    if (state == r->period_state)
        return LG_OK;
    if (h->has_period)
        return LG_FAIL_LINE(
            r, LG_EFORMAT, r->line,
            "expected no period before the event name, as in the sample at line %zu, "
            "found %" PRIu64,
            r->period_line, h->period);
    return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                        "expected a period before the event name, as in the sample at line %zu, "
                        "found none",
                        r->period_line);
}

static lg_err_t begin_sample(reader_t *r, char *line, const header_t *h)
{
    frame_t f;
    const char *why;
    /* REST holds the only frame of a sample printed without its call chain. */
    bool rest_is_frame = h->rest.n > 0 && parse_frame(h->rest.s, h->rest.n, &f, &why);
    const char *event = terminate(line, h->event);
    size_t index = 0;
    LG_CHECK(find_event(r, event, &index));
    event_t *e = &r->events[index];
    e->samples = lg_sat_add(e->samples, 1);

    r->in_sample = true;
    r->selected = e->selected;
    r->sample_number++;
    r->frames = 0;
    r->call_frames = 0;
    r->leaf_seen = false;
    r->prev = NO_FUNC;
    r->weight = 1;
    if (r->selected) {
        LG_CHECK(check_period(r, h, event));
        r->selected_samples = lg_sat_add(r->selected_samples, 1);
        if (h->has_period)
            r->weight = h->period;
    }
    if (rest_is_frame)
        LG_CHECK(add_frame(r, line, &f));
    return LG_OK;
}

/* Reads one line of n bytes (without its line end). */
static lg_err_t read_line(reader_t *r, char *line, size_t n)
{
    char quoted[LG_QUOTE_BUFFER(SHOWN_LINE_BYTES)];
    n = trimmed_len(line, n);
    line[n] = '\0';
    if (n > 0 && line[0] == '#')
        return LG_OK; /* comment */
    if (n == 0) {
        end_sample(r);
        return LG_OK;
    }

    header_t h;
    const char *why;
    if (parse_header(line, n, &h, &why)) {
        end_sample(r);
        return begin_sample(r, line, &h);
    }
    /* Column 0 holds headers only; an indented line outside a sample is a header too. */
    frame_t f;
    const char *frame_why;
    if (!is_blank(line[0]) || !r->in_sample) {
        if (is_blank(line[0]) && parse_frame(line, n, &f, &frame_why))
            why = "a frame line, but no sample header before it";
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line, "expected a sample header %s, found '%s' (%s)",
                            HEADER_SHAPE, SHOWN(line, n, quoted), why);
    }
    if (!parse_frame(line, n, &f, &frame_why))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line, "expected a frame line %s, found '%s' (%s)",
                            FRAME_SHAPE, SHOWN(line, n, quoted), frame_why);
    return add_frame(r, line, &f);
}

static const lg_line_rules_t line_rules = {LG_PERF_SCRIPT_MAX_LINE, "LG_PERF_SCRIPT_MAX_LINE",
                                           false};

static lg_err_t read_lines(reader_t *r)
{
    for (;;) {
        char *line;
        size_t n;
        bool got;
        lg_err_t err = lg_source_next_line(r->src, &line_rules, &line, &n, &got);
        if (err == LG_OK && got) {
            r->line = r->src->line;
            err = read_line(r, line, n);
        }
        if (err != LG_OK || !got) {
            end_sample(r);
            return err;
        }
    }
}

/* ---- Loading -------------------------------------------------------------------------------- */

static lg_err_t finish(reader_t *r)
{
    char list[EVENT_LIST_BUFFER];
    if (r->nevents == 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, 0,
                            "expected at least one sample header %s, found none in %zu line%s",
                            HEADER_SHAPE, r->line, r->line == 1 ? "" : "s");
    if (r->selected_samples == 0)
        return LG_FAIL_LINE(r, LG_EINVAL, 0, "no samples of event '%s'; the file has %s", r->want,
                            event_list(r, false, list));
    r->out->total_hits = r->selected_samples;
    lg_profile_finish_edges(r->out);
    return LG_OK;
}

/* Warnings wait until the file has loaded: a failed load reports its one error alone. */
static void report_warnings(const reader_t *r)
{
    char list[EVENT_LIST_BUFFER];
    if (r->want == NULL && r->nevents > 1)
        NOTE_AT(r, LG_WARNING, r->events[1].first_line,
                "%zu events are interleaved: read the first, '%s' (%" PRIu64 " sample%s), and "
                "skipped %s; choose one with --event NAME",
                r->nevents, r->events[0].name, r->events[0].samples,
                r->events[0].samples == 1 ? "" : "s", event_list(r, false, list));
    if (r->unknown_frames > 0) {
        char leafless[64] = "";
        if (r->leafless_samples > 0)
            snprintf(leafless, sizeof leafless, "; %" PRIu64 " sample%s no known function",
                     r->leafless_samples, r->leafless_samples == 1 ? " has" : "s have");
        NOTE_AT(r, LG_NOTE, r->first_unknown_line,
                "%" PRIu64 " of %" PRIu64 " frames have no symbol ([unknown]): they count for "
                "no function and break the call chain where they are%s",
                r->unknown_frames, r->frames_read, leafless);
    }
}

static void reader_destroy(reader_t *r)
{
    for (size_t i = 0; i < r->nevents; i++)
        free(r->events[i].name);
    free(r->events);
    lg_strmap_destroy(&r->event_ids);
    free(r->stamps);
}

lg_err_t lg_perf_script_read(lg_source_t *src, const lg_load_options_t *options,
                             lg_profile_t *out)
{
    reader_t r = {.src = src, .want = options->event, .out = out};
    lg_strmap_init(&r.event_ids);
    lg_err_t err = lg_profile_set_path(out, src->path);
    if (err != LG_OK) {
        err = lg_diag_fail(src->d, LG_ENOMEM, src->path, "out of memory");
    } else {
        out->format = "perf-script";
        out->kind = LG_PROFILE_STATISTICAL;
        out->has_call_edges = false;
        err = read_lines(&r);
    }
    if (err == LG_OK)
        err = finish(&r);
    if (err == LG_OK)
        report_warnings(&r);
    reader_destroy(&r);
    return err;
}
