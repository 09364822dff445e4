/* winidea_text1.c - read winIDEA profiler exports in the Text1 format into an lg_profile_t.
 *
 * A Text1 export is a list of sections. Each starts with a header line
 *   * KEYWORD[(ARG)] [QUALIFIER(...)...] %MACRO%SEP%MACRO%SEP...
 * whose macros (winIDEA expands %FORMAT% there) name the fields of the entries that follow, one
 * entry per line, fields separated by SEP (a comma unless the user chose otherwise). Sections:
 *   INFO           %TOTAL_TIME%: checked, not used
 *   CONTEXTS       context name -> handle: checked, not used (contexts are told apart by name)
 *   HANDLE(class)  the mapping: handle -> function, line (under the last function, or
 *                  %HANDLE.PARENT%), variable, state, AUX (winidea_map.h)
 *   STATISTICS     per area and context: %COUNT%, %T.NET%, %T.GROSS%: functions' hits and times
 *                  (summed over contexts) when there is no timeline; lines' net times as
 *                  per-line costs
 *   TIMELINE       events in time order, fed to the timeline builder (loaders/timeline.h) per
 *                  stream (%CORE% x %CONTEXT% when the header has them)
 * Sections with other keywords are skipped with one warning.
 *
 * Definitions:
 *   field        the text between two separators; a '"' starts a quoted run in which the
 *                separator does not split (winIDEA writes statics as "file.c"#name, quote
 *                and all). A field that is one quoted string, "...", with "" for a quote, is
 *                unquoted; other fields are kept as written.
 *   text column  NAME, NAME.PARENT, FILE, PATH, CONTEXT, CLASS, FORMAT, VALUE.UNIT: free text
 *                that may itself contain the separator (a source line "f(a, b);" as a line's
 *                NAME), since winIDEA does not quote it. When a header has exactly one text
 *                column, an entry with more fields than the header gives the surplus to it.
 *
 * The file is read through a buffer, one line at a time (at most LG_WI_TEXT1_MAX_LINE bytes);
 * memory grows with the areas, functions, edges and streams, never with the timeline's length.
 * Every failure is one error "PATH:LINE[:COLUMN]: expected ..., found ..." and an empty profile.
 *
 * Reference: winIDEA help, "Profiler Export / Text1" (../shared/specs/
 * winidea-profiler-export-text1.txt); docs/loaders/winidea.md.
 */
#include "winidea_text1.h"

#include "mem.h"
#include "winidea_export.h"
#include "winidea_map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NONE UINT32_MAX
/* Bytes of input quoted in a message. */
#define QUOTE_BYTES 60u
/* Longest separator between two macros of a header, in bytes. */
#define MAX_SEPARATOR 8u
/* Room for a header's keyword and for its list of macros, repeated in messages. */
#define KEYWORD_TEXT 32u
#define FORMAT_TEXT 200u
#define UTF8_BOM "\xEF\xBB\xBF"
#define UTF8_BOM_LEN 3u

static const lg_line_rules_t line_rules = {LG_WI_TEXT1_MAX_LINE, "LG_WI_TEXT1_MAX_LINE", true};

#define WARN_AT(r, line, ...) lg_source_report((r)->src, LG_WARNING, (line), 0, __VA_ARGS__)
#define QUOTE(t, q) lg_quote((t).s, (t).n, QUOTE_BYTES, (q))

/* ---- Text helpers ------------------------------------------------------------------------- */

static lg_span_t trim(lg_span_t t)
{
    while (t.n > 0 && lg_is_blank(t.s[0])) {
        t.s++;
        t.n--;
    }
    while (t.n > 0 && lg_is_blank(t.s[t.n - 1]))
        t.n--;
    return t;
}

static bool span_equal_nocase(lg_span_t t, const char *word)
{
    size_t n = strlen(word);
    if (t.n != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = t.s[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (c != word[i])
            return false;
    }
    return true;
}

/* ---- Sections and macros ------------------------------------------------------------------ */

typedef enum section_kind {
    SEC_NONE,
    SEC_INFO,
    SEC_CONTEXTS,
    SEC_HANDLE,
    SEC_STATISTICS,
    SEC_TIMELINE,
    SEC_UNKNOWN,
} section_kind_t;

static const struct {
    const char *keyword;
    section_kind_t kind;
} sections[] = {
    {"INFO", SEC_INFO},         {"CONTEXTS", SEC_CONTEXTS},
    {"HANDLE", SEC_HANDLE},     {"STATISTICS", SEC_STATISTICS},
    {"TIMELINE", SEC_TIMELINE},
};

/* The macros lorgen tells apart; all T.<category>[.<criteria>] but T.NET and T.GROSS are
 * M_T_OTHER, read as text and not used. */
typedef enum macro {
    M_HANDLE,
    M_HANDLE_PARENT,
    M_HANDLE_STATE,
    M_NAME,
    M_NAME_PARENT,
    M_VALUE,
    M_VALUE_TYPE,
    M_VALUE_UNIT,
    M_FILE,
    M_PATH,
    M_COUNT,
    M_T_NET,
    M_T_GROSS,
    M_T_OTHER,
    M_EVENT,
    M_TIME,
    M_CONTEXT,
    M_CORE,
    M_TOTAL_TIME,
    M_FORMAT,
    M_CLASS,
    MACRO_KINDS
} macro_t;

static const struct {
    const char *name;
    macro_t macro;
    bool text; /* free text that may contain the separator (see "text column") */
} macros[] = {
    {"HANDLE", M_HANDLE, false},
    {"HANDLE.PARENT", M_HANDLE_PARENT, false},
    {"HANDLE.STATE", M_HANDLE_STATE, false},
    {"NAME", M_NAME, true},
    {"NAME.PARENT", M_NAME_PARENT, true},
    {"VALUE", M_VALUE, false},
    {"VALUE.TYPE", M_VALUE_TYPE, false},
    {"VALUE.UNIT", M_VALUE_UNIT, true},
    {"FILE", M_FILE, true},
    {"PATH", M_PATH, true},
    {"COUNT", M_COUNT, false},
    {"T.NET", M_T_NET, false},
    {"T.GROSS", M_T_GROSS, false},
    {"EVENT", M_EVENT, false},
    {"TIME", M_TIME, false},
    {"CONTEXT", M_CONTEXT, true},
    /* Not in winIDEA's list of Text1 macros (its XML and .BIN have the core); read so that a
     * multi-core timeline written with it keeps its cores apart. */
    {"CORE", M_CORE, false},
    {"TOTAL_TIME", M_TOTAL_TIME, false},
    {"FORMAT", M_FORMAT, true},
    {"CLASS", M_CLASS, true},
};

/* T.<category>[.<criteria>] as the help lists them: categories NET, GROSS, CALL, PERIOD,
 * OUTSIDE; criteria MIN, MAX, AVG. */
static bool is_time_statistic(lg_span_t name, macro_t *m)
{
    static const char *const categories[] = {"NET", "GROSS", "CALL", "PERIOD", "OUTSIDE"};
    static const char *const criteria[] = {"MIN", "MAX", "AVG"};
    if (name.n < 3 || !span_equal_nocase((lg_span_t){name.s, 2}, "T."))
        return false;
    lg_span_t rest = {name.s + 2, name.n - 2};
    const char *dot = memchr(rest.s, '.', rest.n);
    lg_span_t category = {rest.s, dot != NULL ? (size_t)(dot - rest.s) : rest.n};
    for (size_t c = 0; c < sizeof categories / sizeof *categories; c++) {
        if (!span_equal_nocase(category, categories[c]))
            continue;
        if (dot == NULL) {
            *m = c == 0 ? M_T_NET : c == 1 ? M_T_GROSS : M_T_OTHER;
            return true;
        }
        lg_span_t crit = {dot + 1, rest.n - category.n - 1};
        for (size_t k = 0; k < sizeof criteria / sizeof *criteria; k++)
            if (span_equal_nocase(crit, criteria[k])) {
                *m = M_T_OTHER;
                return true;
            }
        return false;
    }
    return false;
}

/* The macro called name; *text tells whether it is a text column. */
static bool find_macro(lg_span_t name, macro_t *m, bool *text)
{
    *text = false;
    for (size_t i = 0; i < sizeof macros / sizeof *macros; i++)
        if (span_equal_nocase(name, macros[i].name)) {
            *m = macros[i].macro;
            *text = macros[i].text;
            return true;
        }
    return is_time_statistic(name, m);
}

typedef struct section {
    section_kind_t kind;
    char keyword[KEYWORD_TEXT];
    uint64_t line; /* of the header */
    size_t ncols;
    int col[MACRO_KINDS]; /* column of each macro, or -1 */
    char sep[MAX_SEPARATOR + 1];
    size_t sep_len;
    int text_col;                 /* the one text column, or -1 when none or several */
    char text_name[KEYWORD_TEXT]; /* its macro */
    char format[FORMAT_TEXT];
} section_t;

/* ---- The reader --------------------------------------------------------------------------- */

typedef struct reader {
    lg_source_t *src;
    const lg_load_options_t *options;
    lg_wi_export_t x;

    char *line; /* the current line, NUL-terminated, without its line end */
    size_t len;

    section_t sec;
    bool have_mapping;
    uint32_t last_function; /* handle of the last function listed, or LG_WI_NO_PARENT */
    uint64_t first_event_line;

    lg_span_t *fields; /* of the current entry, by column */
    size_t fields_cap;
    char *scratch[2]; /* unquoted, NUL-terminated copies of fields */
    size_t scratch_cap[2];

    /* Recoveries, reported in warnings when the whole file has loaded. */
    uint64_t unknown_sections, first_unknown_line;
    char first_unknown_keyword[KEYWORD_TEXT];
    uint64_t merged_entries, first_merged_line;
    char first_merged_column[KEYWORD_TEXT];
    uint64_t unbalanced_entries, first_unbalanced_line;
} reader_t;

/* The column (from 1) where t starts in the current line. */
static size_t col_of(const reader_t *r, lg_span_t t)
{
    return (size_t)(t.s - r->line) + 1;
}

/* ---- Header lines ------------------------------------------------------------------------- */

/* Skips "(...)" at *t, nested parentheses included; false when it is not closed. */
static bool skip_parenthesized(lg_span_t *t)
{
    int depth = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->s[i] == '(')
            depth++;
        else if (t->s[i] == ')' && --depth == 0) {
            t->s += i + 1;
            t->n -= i + 1;
            return true;
        }
    }
    return false;
}

static bool is_word_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
}

/* Takes a word off *t. */
static lg_span_t take_word(lg_span_t *t)
{
    size_t k = 0;
    while (k < t->n && is_word_char(t->s[k]))
        k++;
    lg_span_t w = {t->s, k};
    t->s += k;
    t->n -= k;
    return w;
}

static lg_err_t header_template(reader_t *r, section_t *sec, lg_span_t t)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    if (t.n == 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected the entry format (%%MACRO%%,...) after '* %s', "
                            "found nothing",
                            sec->keyword);
    if (t.s[0] != '%')
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                              "expected the entry format (%%MACRO%%,...) after '* %s', found '%s'",
                              sec->keyword, QUOTE(t, q));
    snprintf(sec->format, sizeof sec->format, "%s", QUOTE(t, q));
    int text_cols = 0;
    while (t.n > 0) {
        /* t starts with the '%' of a macro */
        const char *close = memchr(t.s + 1, '%', t.n - 1);
        if (close == NULL)
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                                  "expected '%%' closing the macro that starts here, found the end "
                                  "of the line");
        lg_span_t name = {t.s + 1, (size_t)(close - t.s - 1)};
        if (name.n == 0)
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                                  "expected a macro name between '%%' and '%%', found none");
        macro_t m;
        bool text;
        if (!find_macro(name, &m, &text))
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                                  "unknown macro %%%s%% in the %s header (docs/loaders/winidea.md "
                                  "lists the macros)",
                                  QUOTE(name, q), sec->keyword);
        if (sec->ncols == LG_WI_TEXT1_MAX_COLUMNS)
            return lg_source_fail(r->src, LG_ELIMIT, r->src->line, col_of(r, t),
                                  "more than %u macros in one header (LG_WI_TEXT1_MAX_COLUMNS)",
                                  LG_WI_TEXT1_MAX_COLUMNS);
        if (m != M_T_OTHER && sec->col[m] >= 0)
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                                  "macro %%%s%% appears twice in the "
                                  "header",
                                  QUOTE(name, q));
        if (m != M_T_OTHER)
            sec->col[m] = (int)sec->ncols;
        if (text) {
            text_cols++;
            sec->text_col = (int)sec->ncols;
            snprintf(sec->text_name, sizeof sec->text_name, "%s", QUOTE(name, q));
        }
        sec->ncols++;
        t.n -= (size_t)(close + 1 - t.s);
        t.s = close + 1;
        if (t.n == 0)
            break;
        /* The separator: the text up to the next macro, the same between every two. */
        const char *next = memchr(t.s, '%', t.n);
        lg_span_t sep = {t.s, next != NULL ? (size_t)(next - t.s) : t.n};
        if (next == NULL)
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                                  "expected a macro after '%s', found the end of the line",
                                  QUOTE(sep, q));
        if (sep.n == 0)
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                                  "expected a separator between two macros, found none");
        if (sec->sep_len == 0) {
            if (sep.n > MAX_SEPARATOR || memchr(sep.s, '"', sep.n) != NULL)
                return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, sep),
                                      "expected a separator of at most %u characters without '\"' "
                                      "between macros, found '%s'",
                                      MAX_SEPARATOR, QUOTE(sep, q));
            memcpy(sec->sep, sep.s, sep.n);
            sec->sep[sep.n] = '\0';
            sec->sep_len = sep.n;
        } else if (sep.n != sec->sep_len || memcmp(sep.s, sec->sep, sep.n) != 0) {
            return lg_source_fail(
                r->src, LG_EFORMAT, r->src->line, col_of(r, sep),
                "expected '%s' between macros (as after the first one), found '%s'", sec->sep,
                QUOTE(sep, q));
        }
        t.s += sep.n;
        t.n -= sep.n;
    }
    if (text_cols != 1)
        sec->text_col = -1;
    return LG_OK;
}

/* The macros a section cannot do without. */
static lg_err_t check_required(reader_t *r, const section_t *sec)
{
    static const struct {
        section_kind_t kind;
        macro_t macro;
        const char *name;
    } required[] = {
        {SEC_HANDLE, M_HANDLE, "HANDLE"},   {SEC_STATISTICS, M_HANDLE, "HANDLE"},
        {SEC_TIMELINE, M_HANDLE, "HANDLE"}, {SEC_TIMELINE, M_EVENT, "EVENT"},
        {SEC_TIMELINE, M_TIME, "TIME"},
    };
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (required[i].kind == sec->kind && sec->col[required[i].macro] < 0)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected %%%s%% in the %s header, found %s", required[i].name,
                                sec->keyword, sec->format);
    return LG_OK;
}

static lg_err_t header_line(reader_t *r)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    lg_span_t line = {r->line, r->len};
    lg_span_t t = {line.s + 1, line.n - 1};
    lg_span_t keyword = {t.s + 1, 0};
    if (t.n > 0 && t.s[0] == ' ') {
        t.s++;
        t.n--;
        keyword = take_word(&t);
    }
    if (keyword.n == 0 || (t.n > 0 && t.s[0] != '(' && !lg_is_blank(t.s[0])))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected a section header '* KEYWORD %%MACRO%%,...', found '%s'",
                            QUOTE(trim(line), q));
    section_t *sec = &r->sec;
    memset(sec, 0, sizeof *sec);
    for (size_t i = 0; i < MACRO_KINDS; i++)
        sec->col[i] = -1;
    sec->text_col = -1;
    sec->line = r->src->line;
    sec->kind = SEC_UNKNOWN;
    snprintf(sec->keyword, sizeof sec->keyword, "%s", QUOTE(keyword, q));
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
        if (span_equal_nocase(keyword, sections[i].keyword))
            sec->kind = sections[i].kind;
    /* (ARG), then qualifiers such as CONTEXT(TSK: x); none of them is needed: areas are told
     * apart by their handles, contexts only matter in the timeline. */
    if (t.n > 0 && t.s[0] == '(' && !skip_parenthesized(&t))
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                              "expected ')' closing '%s', found the end of the line", QUOTE(t, q));
    for (;;) {
        t = trim(t);
        lg_span_t rest = t;
        lg_span_t word = take_word(&rest);
        if (word.n == 0 || rest.n == 0 || rest.s[0] != '(')
            break;
        t = rest;
        if (!skip_parenthesized(&t))
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, word),
                                  "expected ')' closing '%s', found the end of the line",
                                  QUOTE(word, q));
    }
    if (sec->kind == SEC_UNKNOWN) {
        if (r->unknown_sections++ == 0) {
            r->first_unknown_line = r->src->line;
            snprintf(r->first_unknown_keyword, sizeof r->first_unknown_keyword, "%s", sec->keyword);
        }
        return LG_OK;
    }
    LG_CHECK(header_template(r, sec, t));
    LG_CHECK(check_required(r, sec));
    if (sec->kind == SEC_HANDLE) {
        if (lg_wi_export_has_timeline(&r->x))
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected every HANDLE section before the timeline (first event on "
                                "line %" PRIu64 "), found one after it",
                                r->first_event_line);
        r->have_mapping = true;
    }
    return LG_OK;
}

/* ---- Entries ------------------------------------------------------------------------------ */

/* Splits s into fields at the separator, into r->fields; quoted runs do not split unless
 * quoting is false. Returns the number of fields, or SIZE_MAX when a quote is not closed. */
static size_t split(reader_t *r, lg_span_t s, bool quoting, lg_err_t *err)
{
    const section_t *sec = &r->sec;
    size_t n = 0, start = 0;
    bool quoted = false;
    *err = LG_OK;
    const char first = sec->sep[0];
    for (size_t i = 0;; i++) {
        bool at_end = i == s.n;
        if (!at_end && quoting && s.s[i] == '"') {
            quoted = !quoted;
            continue;
        }
        if (!at_end && (quoted || s.s[i] != first ||
                        (sec->sep_len > 1 &&
                         (s.n - i < sec->sep_len || memcmp(s.s + i, sec->sep, sec->sep_len) != 0))))
            continue;
        if (n >= r->fields_cap &&
            !lg_grow((void **)&r->fields, &r->fields_cap, n + 1, sizeof *r->fields)) {
            *err = LG_ENOMEM;
            return 0;
        }
        r->fields[n++] = (lg_span_t){s.s + start, i - start};
        if (at_end)
            break;
        i += sec->sep_len - 1;
        start = i + 1;
    }
    return quoted ? SIZE_MAX : n;
}

/* Gives the surplus fields to the section's one text column. */
static void merge_surplus(reader_t *r, size_t n)
{
    const section_t *sec = &r->sec;
    size_t surplus = n - sec->ncols, c = (size_t)sec->text_col;
    lg_span_t *f = r->fields;
    const lg_span_t *last = &f[c + surplus];
    f[c].n = (size_t)(last->s + last->n - f[c].s);
    memmove(&f[c + 1], &f[c + 1 + surplus], (sec->ncols - c - 1) * sizeof *f);
}

/* Splits the current line into exactly the header's columns (see "field" and "text column"). */
static lg_err_t split_entry(reader_t *r)
{
    const section_t *sec = &r->sec;
    lg_span_t s = {r->line, r->len};
    lg_err_t err;
    size_t n = split(r, s, true, &err);
    size_t first_count = n;
    if (err == LG_OK && n == SIZE_MAX) {
        /* An unbalanced quote, say a line area's source text putchar('"'): quotes mean nothing
         * in it. */
        n = split(r, s, false, &err);
        if (err == LG_OK && (n == sec->ncols || (n > sec->ncols && sec->text_col >= 0)) &&
            r->unbalanced_entries++ == 0)
            r->first_unbalanced_line = r->src->line;
    }
    if (err != LG_OK)
        return LG_FAIL_LINE(r, err, r->src->line, "out of memory splitting an entry");
    if (n > sec->ncols && sec->text_col >= 0) {
        merge_surplus(r, n);
        if (r->merged_entries++ == 0) {
            r->first_merged_line = r->src->line;
            memcpy(r->first_merged_column, sec->text_name, sizeof r->first_merged_column);
        }
        n = sec->ncols;
    }
    if (n != sec->ncols)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line, "expected %zu field%s (%s), found %zu",
                            sec->ncols, sec->ncols == 1 ? "" : "s", sec->format,
                            first_count == SIZE_MAX ? n : first_count);
    for (size_t i = 0; i < n; i++)
        r->fields[i] = trim(r->fields[i]);
    return LG_OK;
}

/* The field of macro m in the current entry; empty when the header lacks it. */
static lg_span_t field(const reader_t *r, macro_t m)
{
    int c = r->sec.col[m];
    return c >= 0 ? r->fields[c] : (lg_span_t){r->line + r->len, 0};
}

/* A NUL-terminated copy of field t in scratch buffer k, unquoted when it is one quoted string
 * ("..." with "" for a quote). NULL when memory runs out. */
static const char *field_text(reader_t *r, lg_span_t t, int k)
{
    bool quoted = t.n >= 2 && t.s[0] == '"' && t.s[t.n - 1] == '"';
    for (size_t i = 1; quoted && i + 1 < t.n; i++) {
        if (t.s[i] != '"')
            continue;
        if (i + 2 < t.n && t.s[i + 1] == '"')
            i++;
        else
            quoted = false;
    }
    if (!lg_grow((void **)&r->scratch[k], &r->scratch_cap[k], t.n + 1, 1))
        return NULL;
    char *out = r->scratch[k];
    size_t n = 0;
    if (!quoted) {
        memcpy(out, t.s, t.n);
        n = t.n;
    } else {
        for (size_t i = 1; i + 1 < t.n; i++) {
            out[n++] = t.s[i];
            if (t.s[i] == '"')
                i++;
        }
    }
    out[n] = '\0';
    return out;
}

static lg_err_t read_handle(reader_t *r, macro_t m, uint32_t *handle)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    lg_span_t t = field(r, m);
    if (!lg_wi_parse_handle(t.s, t.n, handle))
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                              "expected a %s (up to 8 hexadecimal digits), found %s%s%s",
                              m == M_HANDLE ? "handle" : "parent handle", t.n ? "'" : "nothing",
                              QUOTE(t, q), t.n ? "'" : "");
    return LG_OK;
}

/* A count or time statistic; an empty field is 0. */
static lg_err_t read_number(reader_t *r, macro_t m, const char *name, uint64_t *value)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    lg_span_t t = field(r, m);
    *value = 0;
    if (t.n > 0 && lg_parse_u64(t.s, t.n, LG_NUMBER_HEX_PREFIX, value) != LG_NUMBER_OK)
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                              "expected a number for %%%s%%, found '%s'", name, QUOTE(t, q));
    return LG_OK;
}

/* A handle the mapping lists: *func is a profile index, LG_WI_NOT_FUNCTION for other areas. */
static lg_err_t mapped_handle(reader_t *r, uint32_t *handle, uint32_t *func)
{
    LG_CHECK(read_handle(r, M_HANDLE, handle));
    *func = lg_wi_map_resolve(r->x.map, *handle);
    if (*func == LG_WI_UNMAPPED)
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, field(r, M_HANDLE)),
                              "handle 0x%08" PRIX32
                              " is not in the mapping (no HANDLE section lists "
                              "it)",
                              *handle);
    return LG_OK;
}

static lg_err_t mapping_entry(reader_t *r)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    uint32_t handle, parent = LG_WI_NO_PARENT;
    LG_CHECK(read_handle(r, M_HANDLE, &handle));
    unsigned area = lg_wi_handle_area(handle);
    if (field(r, M_HANDLE_PARENT).n > 0)
        LG_CHECK(read_handle(r, M_HANDLE_PARENT, &parent));
    else if (area == LG_WI_LINE)
        parent = r->last_function; /* lines follow their function */
    uint64_t value = 0;
    lg_span_t v = field(r, M_VALUE);
    if (area == LG_WI_LINE && v.n > 0 &&
        lg_parse_u64(v.s, v.n, LG_NUMBER_HEX_PREFIX, &value) != LG_NUMBER_OK)
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, v),
                              "expected a line number for %%VALUE%%, found '%s'", QUOTE(v, q));
    const char *name = field_text(r, field(r, M_NAME), 0);
    const char *file = field_text(r, field(r, M_FILE), 1);
    if (name == NULL || file == NULL)
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory reading an entry");
    lg_diag_t why;
    lg_diag_init(&why);
    lg_err_t err = lg_wi_map_add(r->x.map, handle, parent, name, value, file, &why);
    if (err != LG_OK)
        lg_source_fail(r->src, err, r->src->line, col_of(r, field(r, M_HANDLE)), "%s",
                       why.count > 0 ? why.entries[0].message : lg_strerror(err));
    lg_diag_destroy(&why);
    if (err == LG_OK && area == LG_WI_FUNCTION)
        r->last_function = handle;
    return err;
}

static lg_err_t statistics_entry(reader_t *r)
{
    uint32_t handle, func;
    LG_CHECK(mapped_handle(r, &handle, &func));
    unsigned area = lg_wi_handle_area(handle);
    uint64_t count, net, gross;
    if (area == LG_WI_FUNCTION) {
        LG_CHECK(read_number(r, M_COUNT, "COUNT", &count));
        LG_CHECK(read_number(r, M_T_NET, "T.NET", &net));
        LG_CHECK(read_number(r, M_T_GROSS, "T.GROSS", &gross));
        if (lg_wi_export_function_stat(&r->x, func, count, net, gross) != LG_OK)
            return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding statistics");
    } else if (area == LG_WI_LINE) {
        /* A line's net time: where in a large function the time goes. */
        uint32_t parent;
        uint64_t line;
        LG_CHECK(read_number(r, M_T_NET, "T.NET", &net));
        if (net > 0 && lg_wi_map_line(r->x.map, handle, &parent, &line) && line > 0 &&
            lg_profile_add_cost(r->x.out, parent, line, net) != LG_OK)
            return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding a line cost");
    }
    return LG_OK;
}

static lg_err_t timeline_entry(reader_t *r)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    if (r->x.bin_path != NULL)
        return LG_FAIL_LINE(
            r, LG_EFORMAT, r->src->line,
            "expected no text TIMELINE entries next to the binary timeline %s, found "
            "some (winIDEA writes one or the other: remove or rename the stale one)",
            r->x.bin_path);
    uint32_t handle, func;
    LG_CHECK(mapped_handle(r, &handle, &func));
    lg_span_t e = field(r, M_EVENT);
    int code = lg_wi_event_code(e.s, e.n);
    if (code < 0)
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, e),
                              "expected an event E, S, R, X or W, found '%s'", QUOTE(e, q));
    lg_span_t t = field(r, M_TIME);
    int64_t time;
    if (!lg_wi_parse_s64(t.s, t.n, &time))
        return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, t),
                              "expected a time in ns, found '%s'", QUOTE(t, q));
    /* Data writes, and events of lines, states and AUX signals, are not calls. */
    if (code == (int)LG_WI_EVENT_WRITE || func == LG_WI_NOT_FUNCTION)
        return LG_OK;
    uint32_t stream = 0;
    if (r->sec.col[M_CORE] >= 0 || r->sec.col[M_CONTEXT] >= 0) {
        lg_span_t c = field(r, M_CORE);
        int64_t core = -1;
        if (c.n > 0 && !lg_wi_parse_s64(c.s, c.n, &core))
            return lg_source_fail(r->src, LG_EFORMAT, r->src->line, col_of(r, c),
                                  "expected a core index (a number, -1 when unknown), found '%s'",
                                  QUOTE(c, q));
        lg_span_t ctx = field(r, M_CONTEXT);
        lg_err_t err = lg_wi_export_stream(&r->x, core, ctx.s, ctx.n, &stream);
        if (err == LG_ELIMIT)
            return LG_FAIL_LINE(r, err, r->src->line,
                                "more than %u (core, context) streams (LG_TL_MAX_STREAMS)",
                                LG_TL_MAX_STREAMS);
        if (err != LG_OK)
            return LG_FAIL_LINE(r, err, r->src->line, "out of memory adding a stream");
    }
    if (r->first_event_line == 0)
        r->first_event_line = r->src->line;
    lg_err_t err = lg_wi_export_event(&r->x, stream, func, (lg_tl_kind_t)code, time);
    if (err == LG_ELIMIT)
        return LG_FAIL_LINE(
            r, err, r->src->line,
            "more than %u open calls on one stream (LG_TL_MAX_DEPTH): Exit events are "
            "missing",
            LG_TL_MAX_DEPTH);
    if (err != LG_OK)
        return LG_FAIL_LINE(r, err, r->src->line, "%s feeding the timeline",
                            err == LG_ENOMEM ? "out of memory" : "internal error");
    return LG_OK;
}

/* INFO and CONTEXTS: checked, not used. */
static lg_err_t other_entry(reader_t *r)
{
    uint64_t v;
    if (r->sec.kind == SEC_INFO)
        return read_number(r, M_TOTAL_TIME, "TOTAL_TIME", &v);
    uint32_t handle;
    if (r->sec.kind == SEC_CONTEXTS && field(r, M_HANDLE).n > 0)
        return read_handle(r, M_HANDLE, &handle);
    return LG_OK;
}

static lg_err_t read_line(reader_t *r)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    lg_span_t t = trim((lg_span_t){r->line, r->len});
    if (t.n == 0)
        return LG_OK;
    if (t.s[0] == '*' && t.s == r->line)
        return header_line(r);
    switch (r->sec.kind) {
    case SEC_NONE:
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected a section header '* KEYWORD %%MACRO%%,...' before the first "
                            "entry, found '%s'",
                            QUOTE(t, q));
    case SEC_UNKNOWN:
        return LG_OK;
    default:
        break;
    }
    LG_CHECK(split_entry(r));
    switch (r->sec.kind) {
    case SEC_HANDLE:
        return mapping_entry(r);
    case SEC_STATISTICS:
        return statistics_entry(r);
    case SEC_TIMELINE:
        return timeline_entry(r);
    default:
        return other_entry(r);
    }
}

/* ---- Loading ------------------------------------------------------------------------------ */

static void report_warnings(const reader_t *r)
{
    if (r->unknown_sections > 0)
        WARN_AT(r, r->first_unknown_line,
                "%" PRIu64 " section(s) with keywords lorgen does not know were skipped, "
                "first '%s'",
                r->unknown_sections, r->first_unknown_keyword);
    if (r->merged_entries > 0)
        WARN_AT(r, r->first_merged_line,
                "%" PRIu64 " entr%s had more fields than the header: the extra separators "
                "were taken as part of %%%s%%",
                r->merged_entries, r->merged_entries == 1 ? "y" : "ies", r->first_merged_column);
    if (r->unbalanced_entries > 0)
        WARN_AT(r, r->first_unbalanced_line,
                "%" PRIu64 " entr%s had an unclosed '\"': split ignoring quotes",
                r->unbalanced_entries, r->unbalanced_entries == 1 ? "y" : "ies");
}

static lg_err_t read_file(reader_t *r)
{
    for (;;) {
        bool got = false;
        LG_CHECK(lg_source_next_line(r->src, &line_rules, &r->line, &r->len, &got));
        if (!got)
            break;
        LG_CHECK(read_line(r));
    }
    if (!r->have_mapping)
        return lg_source_fail(r->src, LG_EFORMAT, 0, 0,
                              "expected a HANDLE section (the mapping of handles to functions), "
                              "found none in %" PRIu64 " lines",
                              r->src->line);
    return lg_wi_export_finish(&r->x, r->options, r->src->d);
}

lg_err_t lg_wi_text1_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out)
{
    reader_t r = {.src = src, .options = options};
    r.last_function = LG_WI_NO_PARENT;
    r.sec.kind = SEC_NONE;
    lg_err_t err =
        lg_wi_export_init(&r.x, out, src->path, "winidea-text1", src->from_path, options, src->d);
    if (err == LG_OK)
        err = read_file(&r);
    if (err == LG_OK)
        report_warnings(&r);
    lg_wi_export_destroy(&r.x);
    free(r.fields);
    free(r.scratch[0]);
    free(r.scratch[1]);
    return err;
}

/* ---- Detection ---------------------------------------------------------------------------- */

bool lg_wi_text1_probe(const uint8_t *head, size_t len)
{
    if (head == NULL)
        return false;
    size_t at = len >= UTF8_BOM_LEN && memcmp(head, UTF8_BOM, UTF8_BOM_LEN) == 0 ? UTF8_BOM_LEN : 0;
    while (at < len) {
        const char *s = (const char *)head + at;
        size_t n = 0;
        while (at + n < len && s[n] != '\n')
            n++;
        at += n + 1;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        lg_span_t line = trim((lg_span_t){s, n});
        if (line.n == 0)
            continue; /* blank lines before the first header */
        if (line.s != s || n < 3 || s[0] != '*' || s[1] != ' ')
            return false;
        lg_span_t rest = {s + 2, n - 2};
        lg_span_t keyword = take_word(&rest);
        bool known = false;
        for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
            known = known || span_equal_nocase(keyword, sections[i].keyword);
        if (!known || (rest.n > 0 && rest.s[0] != '(' && !lg_is_blank(rest.s[0])))
            return false;
        return memchr(rest.s, '%', rest.n) != NULL;
    }
    return false;
}
