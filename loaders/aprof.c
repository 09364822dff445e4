/* aprof.c - read aprof report files into an lg_profile_t.
 *
 * The file is read one line at a time (getline). Each line is a tag and its fields:
 *   v          the report version, which fixes the fields of p and q lines (layouts[])
 *   m          the cost metric, which names counter 1
 *   r, u, d    a routine: name, image and id; its mangled name
 *   p          a tuple of a routine: summed into the routine as it is read
 *   q, x       a tuple of a calling context; a node of the calling-context tree
 *   c e t f a k i g fav   comments and run information lorgen does not need
 * A routine's tuples are summed as they are read, and so are a context's, so memory grows with
 * routines and contexts, never with lines. When the whole file has been read, each routine
 * becomes a function, each context adds its sums to its routine's function, and each context
 * below another adds an edge from the parent's routine to its own.
 *
 * Definitions:
 *   tag        the first word of a line: 1 to TAG_MAX_BYTES lowercase letters
 *   tuple      the numbers after the key (routine id or context id) of a p or q line: statistics
 *              over the calls of one routine (p) or context (q) that read the same amount of
 *              memory (rms). Which numbers, in which order, depends on the version (layouts[])
 *   occ        the tuple field counting those calls: summed, it gives a function's hits
 *   context    a node of the calling-context tree: a routine as reached along one call path.
 *              Its x line names its routine and its parent context (-1 for a root)
 *   call edge  parent context's routine -> context's routine, weighted by the occ of the
 *              context's q lines: the calls made along exactly that path
 *
 * Every failure is one error diagnostic at "PATH:LINE" saying what was expected and what was
 * found, and the profile is left empty. docs/loaders/aprof.md describes the versions and the
 * mapping, and where lorgen had to choose because the specification is silent.
 *
 * Reference: aprof wiki, "Report file format (vs. 1.4)", github.com/ercoppa/aprof/wiki/
 * ReportFileFormat; the writers valgrind/aprof/report.c and cct.c and the readers merge.c and
 * aprofplot/src/aprofplot/AprofReport.java in github.com/ercoppa/aprof.
 */
#include "aprof.h"

#include "intmap.h"
#include "mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Longest tag, in bytes. aprof's tags are one letter; aprof-plot adds "fav". Longer words, or
 * words with other characters, do not start a report line. */
#define TAG_MAX_BYTES 8u
/* Most fields a tuple can have after its key (version 6 with input statistics). */
#define TUPLE_MAX_FIELDS 17u
/* Bytes of input text quoted in a message before it is cut off with "...". */
#define QUOTE_MAX_BYTES 48u
/* An unset index into the routines or contexts. */
#define NO_INDEX UINT32_MAX
/* A layout field a version does not write. */
#define FIELD_NONE (-1)

/* ---- Versions ----------------------------------------------------------------------------- */

/* The tuple fields of one report version. Indexes count from the first field after the key. */
typedef struct layout {
    const char *fields; /* the fields after the key, for messages */
    uint8_t counts[4];  /* how many fields writers of this version put there; 0 ends the list */
    int8_t occ;         /* calls */
    int8_t sum;         /* summed cumulative cost; FIELD_NONE in version 0 */
    int8_t real;        /* cumulative cost not counting nested recursive calls; or FIELD_NONE */
    int8_t self;        /* summed self cost; or FIELD_NONE */
    int8_t avg;         /* version 0: average cumulative cost (a decimal); or FIELD_NONE */
} layout_t;

#define V4_FIELDS "rms min max sum sqr-sum occ real-sum self-sum self-min self-max self-sqr"

/* Versions 5 and 6 append input statistics lorgen does not use: 2 (v5, RVMS builds), 4
 * (aprof-helper's RVMS reports) or 6 (v6, DRMS builds with input statistics). */
static const layout_t layouts[LG_APROF_MAX_VERSION + 1] = {
    {"rms avg occ", {3}, 2, FIELD_NONE, FIELD_NONE, FIELD_NONE, 1},
    {"rms min max sum sqr-sum occ", {6}, 5, 3, FIELD_NONE, FIELD_NONE, FIELD_NONE},
    {"rms min max sum occ real-sum self-sum", {7}, 4, 3, 5, 6, FIELD_NONE},
    {"rms min max sum occ real-sum self-sum self-min self-max", {9}, 4, 3, 5, 6, FIELD_NONE},
    {V4_FIELDS, {11}, 5, 3, 6, 7, FIELD_NONE},
    {V4_FIELDS " [input statistics]", {11, 13, 15, 17}, 5, 3, 6, 7, FIELD_NONE},
    {V4_FIELDS " [input statistics]", {11, 13, 15, 17}, 5, 3, 6, 7, FIELD_NONE},
};

/* Cost metrics (m lines) and the unit lorgen gives counter 1. aprof-plot spells bb_count. */
static const struct {
    const char *metric;
    const char *unit;
} metrics[] = {
    {"bb-count", "BB"},
    {"bb_count", "BB"},
    {"time-usec", "usec"},
    {"vex-instr", "VEX instr"},
};
/* The metric of a report without an m line. */
#define DEFAULT_UNIT "BB"

typedef enum tag_kind {
    TAG_IGNORED,
    TAG_VERSION,
    TAG_METRIC,
    TAG_ROUTINE,
    TAG_MANGLED,
    TAG_DEMANGLED,
    TAG_POINT,
    TAG_CONTEXT_POINT,
    TAG_CONTEXT,
} tag_kind_t;

static const struct {
    const char *tag;
    tag_kind_t kind;
} tags[] = {
    /* clang-format off */
    {"v", TAG_VERSION},
    {"m", TAG_METRIC},
    {"r", TAG_ROUTINE},
    {"u", TAG_MANGLED},
    {"d", TAG_DEMANGLED},
    {"p", TAG_POINT},
    {"q", TAG_CONTEXT_POINT},
    {"x", TAG_CONTEXT},
    {"c", TAG_IGNORED},   /* comment */
    {"e", TAG_IGNORED},   /* modification time of the executable */
    {"t", TAG_IGNORED},   /* creation date (wiki) or memory resolution (v6 writer) */
    {"f", TAG_IGNORED},   /* command line */
    {"a", TAG_IGNORED},   /* application */
    {"k", TAG_IGNORED},   /* total cost of the run */
    {"i", TAG_IGNORED},   /* input metric: rms, rvms, drms */
    {"g", TAG_IGNORED},   /* memory resolution (v5 writer), distinct inputs (aprof-helper) */
    {"fav", TAG_IGNORED}, /* aprof-plot's favourite routines */
    /* clang-format on */
};

/* ---- Reader state ------------------------------------------------------------------------- */

typedef struct routine {
    uint64_t id;
    char *name;       /* as the r line gives it; never empty */
    char *image;      /* image path; NULL when the writer had none ("NONE") */
    char *mangled;    /* from the u line (or a mangled-looking d line); NULL when not given */
    char mangled_tag; /* 'u' or 'd': which line gave mangled */
    size_t line;      /* of the r line */
    uint32_t func;    /* index into the profile's funcs, once built */
    uint64_t calls, cost_total, cost_self;
} routine_t;

typedef struct context {
    uint64_t id;
    uint32_t routine;    /* index into routines; NO_INDEX until the x line */
    uint32_t parent;     /* index into contexts; NO_INDEX for a root */
    size_t x_line;       /* 0 until the x line */
    size_t first_q_line; /* 0 when no q line names the context */
    uint64_t calls, cost_total, cost_self;
} context_t;

typedef struct reader {
    lg_source_t *src;  /* while probing, one without a diagnostic sink */
    lg_profile_t *out; /* NULL while probing */
    size_t line;       /* the line being read, from 1 */

    unsigned version;
    size_t version_line;    /* 0 when there is no v line */
    size_t first_data_line; /* first r, u, d, p, q or x line; 0 when none yet */
    size_t tag_lines;       /* lines with a tag, known or not */
    size_t first_p_line, first_q_line;
    const char *unit;

    routine_t *routines;
    size_t nroutines, routines_cap;
    lg_intmap_t routine_ids; /* routine id -> index into routines */
    context_t *contexts;
    size_t ncontexts, contexts_cap;
    lg_intmap_t context_ids; /* context id -> index into contexts */
    size_t declared_contexts; /* contexts with an x line */

    /* Warnings, reported only when the whole file has loaded. */
    uint64_t unknown_tags;
    size_t first_unknown_line;
    char first_unknown_tag[TAG_MAX_BYTES + 1];
    char *unknown_metric; /* the first metric lorgen does not know, or NULL */
    size_t unknown_metric_line;
    uint64_t duplicate_routines;
    uint32_t first_duplicate; /* index into routines */
} reader_t;

/* ---- Messages ----------------------------------------------------------------------------- */

#define WARN_AT(r, line, ...) lg_source_report((r)->src, LG_WARNING, (line), 0, __VA_ARGS__)
/* Input text (a C string) for a message. */
#define QUOTE(s, q) lg_quote((s), strlen(s), QUOTE_MAX_BYTES, (q))

static lg_err_t out_of_memory(const reader_t *r)
{
    return LG_FAIL_LINE(r, LG_ENOMEM, r->line, "out of memory");
}

/* ---- Id maps ------------------------------------------------------------------------------ */

/* The index stored for id, or NO_INDEX. O(1) expected. */
static uint32_t index_of(const lg_intmap_t *m, uint64_t id)
{
    uint64_t index;
    return lg_intmap_get(m, id, &index) ? (uint32_t)index : NO_INDEX;
}

/* ---- Words and numbers -------------------------------------------------------------------- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static char *skip_blanks(char *s)
{
    while (is_blank(*s))
        s++;
    return s;
}

/* Splits the next blank-separated word off *s and NUL-terminates it; NULL at the end. */
static char *next_word(char **s)
{
    char *w = skip_blanks(*s);
    if (*w == '\0')
        return NULL;
    char *end = w;
    while (*end != '\0' && !is_blank(*end))
        end++;
    *s = end;
    if (*end != '\0') {
        *end = '\0';
        *s = end + 1;
    }
    return w;
}

/* Splits the last blank-separated word off s[0, *len) and NUL-terminates it; *len shrinks to
 * the text before it, trailing blanks removed. NULL when nothing is left. */
static char *pop_word(char *s, size_t *len)
{
    if (*len == 0)
        return NULL;
    size_t start = *len;
    while (start > 0 && !is_blank(s[start - 1]))
        start--;
    s[*len] = '\0';
    size_t rest = start;
    while (rest > 0 && is_blank(s[rest - 1]))
        rest--;
    *len = rest;
    return s + start;
}

/* Splits a double-quoted string off the end of s[0, *len): the text must end with '"', and
 * the opening quote is the nearest '"' before it that starts the text or follows a blank, so
 * the string itself may hold blanks and quotes. Returns its contents, NUL-terminated, and
 * shrinks *len to the text before it; NULL when there is no such string. */
static char *pop_quoted(char *s, size_t *len)
{
    size_t end = *len;
    if (end < 2 || s[end - 1] != '"')
        return NULL;
    for (size_t i = end - 1; i-- > 0;) {
        if (s[i] == '"' && (i == 0 || is_blank(s[i - 1]))) {
            s[end - 1] = '\0';
            size_t rest = i;
            while (rest > 0 && is_blank(s[rest - 1]))
                rest--;
            *len = rest;
            return s + i + 1;
        }
    }
    return NULL;
}

/* True when the last blank-separated word of s[0, len) is all digits. */
static bool ends_with_number(const char *s, size_t len)
{
    size_t start = len;
    while (start > 0 && s[start - 1] >= '0' && s[start - 1] <= '9')
        start--;
    return start < len && (start == 0 || is_blank(s[start - 1]));
}

/* s without one pair of enclosing double quotes, if it has them (s is modified). */
static char *unquote(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s[n - 1] = '\0';
        return s + 1;
    }
    return s;
}

static bool is_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* True when s is a decimal integer that fits 64 bits; its value in *v. */
static bool parse_u64(const char *s, uint64_t *v)
{
    return lg_parse_u64(s, strlen(s), 0, v) == LG_NUMBER_OK;
}

/* True when s is a non-negative decimal number: digits, an optional fraction, an optional
 * exponent ("12", "3.5", "1e+20"). Writers print sums of squares with %.0f, which can exceed
 * 64 bits, and version 0 averages as decimals. */
static bool is_decimal(const char *s)
{
    size_t digits = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!is_digits(s))
            return false;
        return true;
    }
    return *s == '\0';
}

/* Reads an id or count word into *v, or fails naming `what`. */
static lg_err_t get_u64(const reader_t *r, const char *word, const char *what, uint64_t *v)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)];
    if (word == NULL)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line, "expected %s, found the end of the line", what);
    if (parse_u64(word, v))
        return LG_OK;
    if (is_digits(word))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected %s, found %s, which does not fit 64 bits", what,
                            QUOTE(word, q));
    return LG_FAIL_LINE(r, LG_EFORMAT, r->line, "expected %s (an unsigned integer), found '%s'",
                        what, QUOTE(word, q));
}

/* ---- Routines and contexts ---------------------------------------------------------------- */

static lg_err_t add_routine(reader_t *r, uint64_t id, const char *name, const char *image)
{
    if (r->nroutines >= LG_PROFILE_MAX_FUNCS)
        return LG_FAIL_LINE(r, LG_ELIMIT, r->line, "more than %u routines (LG_PROFILE_MAX_FUNCS)",
                            LG_PROFILE_MAX_FUNCS);
    if (!lg_grow((void **)&r->routines, &r->routines_cap, r->nroutines + 1, sizeof *r->routines))
        return out_of_memory(r);
    routine_t *rt = &r->routines[r->nroutines];
    *rt = (routine_t){.id = id, .line = r->line, .func = NO_INDEX};
    rt->name = strdup(name);
    /* aprof writes "NONE" when Valgrind knows no object for the routine. */
    bool has_image = *image != '\0' && strcmp(image, "NONE") != 0;
    rt->image = has_image ? strdup(image) : NULL;
    if (rt->name == NULL || (has_image && rt->image == NULL) ||
        !lg_intmap_set(&r->routine_ids, id, r->nroutines)) {
        free(rt->name);
        free(rt->image);
        return out_of_memory(r);
    }
    r->nroutines++;
    return LG_OK;
}

/* The context with this id, added (without an x line yet) when new; *index receives it. */
static lg_err_t find_or_add_context(reader_t *r, uint64_t id, uint32_t *index)
{
    *index = index_of(&r->context_ids, id);
    if (*index != NO_INDEX)
        return LG_OK;
    if (r->ncontexts >= LG_APROF_MAX_CONTEXTS)
        return LG_FAIL_LINE(r, LG_ELIMIT, r->line,
                            "more than %u calling contexts "
                            "(LG_APROF_MAX_CONTEXTS)",
                            LG_APROF_MAX_CONTEXTS);
    if (!lg_grow((void **)&r->contexts, &r->contexts_cap, r->ncontexts + 1, sizeof *r->contexts))
        return out_of_memory(r);
    r->contexts[r->ncontexts] = (context_t){.id = id, .routine = NO_INDEX, .parent = NO_INDEX};
    if (!lg_intmap_set(&r->context_ids, id, r->ncontexts))
        return out_of_memory(r);
    *index = (uint32_t)r->ncontexts++;
    return LG_OK;
}

/* ---- Lines -------------------------------------------------------------------------------- */

static lg_err_t read_version(reader_t *r, char *s)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)];
    if (r->version_line != 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected one v line, found a second (the first is line %zu)",
                            r->version_line);
    if (r->first_data_line != 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected the v line before the routine data, found it after line %zu "
                            "(the version fixes how those lines read)",
                            r->first_data_line);
    char *word = next_word(&s);
    uint64_t version;
    if (word == NULL || !parse_u64(word, &version))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected a version number after 'v', found '%s'",
                            word ? QUOTE(word, q) : "");
    char *extra = next_word(&s);
    if (extra != NULL)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected only a version number after 'v', found more: '%s'",
                            QUOTE(extra, q));
    if (version > LG_APROF_MAX_VERSION)
        return LG_FAIL_LINE(r, LG_EUNSUPPORTED, r->line,
                            "unsupported aprof version %" PRIu64 " (lorgen reads 0 to %u)", version,
                            LG_APROF_MAX_VERSION);
    r->version = (unsigned)version;
    r->version_line = r->line;
    return LG_OK;
}

static lg_err_t read_metric(reader_t *r, char *s)
{
    char *metric = next_word(&s);
    if (metric == NULL)
        metric = "";
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
        if (strcmp(metric, metrics[i].metric) == 0) {
            r->unit = metrics[i].unit;
            return LG_OK;
        }
    r->unit = NULL;
    if (r->unknown_metric == NULL) {
        r->unknown_metric = strdup(metric);
        if (r->unknown_metric == NULL)
            return out_of_memory(r);
        r->unknown_metric_line = r->line;
    }
    return LG_OK;
}

/* r "NAME" "IMAGE" ID [DISTINCT_INPUTS]   (versions 1 to 6; v5 writers append a count)
 * r NAME ADDRESS IMAGE ID                 (version 0; NAME and IMAGE may be quoted)
 * Read from the right, so names may hold blanks and quotes. */
static lg_err_t read_routine(reader_t *r, char *s)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)];
    size_t len = strlen(s);
    char *last = pop_word(s, &len);
    uint64_t id;
    if (last == NULL)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected a routine name, image and id after 'r', found nothing");
    LG_CHECK(get_u64(r, last, "the routine id at the end of the r line", &id));
    if (r->version > 0 && ends_with_number(s, len)) {
        /* A fourth field, a count of distinct inputs: the routine id comes before it. */
        LG_CHECK(get_u64(r, pop_word(s, &len), "the routine id before the input count", &id));
    }
    char *image = pop_quoted(s, &len);
    if (image == NULL && r->version > 0) {
        s[len] = '\0';
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected the image name in double quotes before the routine id, found "
                            "'%s'",
                            QUOTE(s, q));
    }
    if (image == NULL)
        image = pop_word(s, &len);
    if (r->version == 0 && (image == NULL || pop_word(s, &len) == NULL || len == 0))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected a routine name, address, image and id after 'r' (version 0), "
                            "found fewer fields");
    s[len] = '\0';
    char *name = s;
    if (r->version > 0 && (len < 2 || name[0] != '"' || name[len - 1] != '"'))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected the routine name in double quotes, found '%s'",
                            QUOTE(name, q));
    name = unquote(name);
    if (*name == '\0')
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line, "expected a routine name, found an empty one");
    uint32_t earlier = index_of(&r->routine_ids, id);
    if (earlier != NO_INDEX)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "routine id %" PRIu64 " is already declared at line %zu", id,
                            r->routines[earlier].line);
    return add_routine(r, id, name, image);
}

/* The routine a u, d or p line names by its id; fails when no r line declared it. */
static lg_err_t declared_routine(const reader_t *r, char tag, uint64_t id, uint32_t *index)
{
    *index = index_of(&r->routine_ids, id);
    if (*index == NO_INDEX)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "%c line for routine id %" PRIu64 ", which no earlier r line declares",
                            tag, id);
    return LG_OK;
}

/* u ID "MANGLED", and d ID "NAME": the wiki's d is the full demangled name, some writers put
 * the mangled name there. A d value that looks mangled stands in for a missing u. */
static lg_err_t read_name_line(reader_t *r, char tag, char *s)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)], q2[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)];
    uint64_t id;
    uint32_t index;
    LG_CHECK(get_u64(r, next_word(&s), "a routine id", &id));
    LG_CHECK(declared_routine(r, tag, id, &index));
    char *value = unquote(skip_blanks(s));
    routine_t *rt = &r->routines[index];
    if (*value == '\0')
        return LG_OK;
    if (tag == 'd') {
        /* The Itanium C++ ABI prefix: a demangled name never starts with it. */
        if (rt->mangled != NULL || strncmp(value, "_Z", 2) != 0)
            return LG_OK;
    } else if (rt->mangled != NULL && rt->mangled_tag == 'u') {
        if (strcmp(rt->mangled, value) == 0)
            return LG_OK;
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "routine id %" PRIu64
                            " already has the mangled name '%s' from an earlier "
                            "u line, found another: '%s'",
                            id, QUOTE(rt->mangled, q), QUOTE(value, q2));
    }
    char *copy = strdup(value);
    if (copy == NULL)
        return out_of_memory(r);
    free(rt->mangled);
    rt->mangled = copy;
    rt->mangled_tag = tag;
    return LG_OK;
}

/* Sums of one tuple. */
typedef struct tuple {
    uint64_t key;
    uint64_t calls, cost_total, cost_self;
} tuple_t;

/* "7" or "11, 13, 15 or 17". */
static void counts_text(const layout_t *l, char *out, size_t size)
{
    size_t n = 0;
    while (n < sizeof l->counts && l->counts[n] != 0)
        n++;
    size_t k = 0;
    for (size_t i = 0; i < n && k < size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(out + k, size - k, "%s%u", sep, l->counts[i]);
        k += w > 0 ? (size_t)w : 0;
    }
}

/* Bytes of the longest field name in layouts[] ("self-sqr") and its terminator, with room. */
#define FIELD_NAME_BYTES 16u

/* The name of field i (from 0) of a layout, for messages: a word of l->fields, or "an input
 * statistic" for the fields versions 5 and 6 append. */
static const char *field_name(const layout_t *l, size_t i, char out[FIELD_NAME_BYTES])
{
    const char *s = l->fields;
    for (;;) {
        size_t n = strcspn(s, " ");
        if (n == 0 || *s == '[')
            return "an input statistic";
        if (i-- == 0) {
            snprintf(out, FIELD_NAME_BYTES, "%.*s", (int)n, s);
            return out;
        }
        s += n;
        s += strspn(s, " ");
    }
}

/* The field of a tuple as an integer. */
static lg_err_t tuple_u64(const reader_t *r, char tag, char *const *fields, int field, uint64_t *v)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)], name[FIELD_NAME_BYTES];
    const char *word = fields[field];
    if (parse_u64(word, v))
        return LG_OK;
    return LG_FAIL_LINE(
        r, LG_EFORMAT, r->line,
        "field %d (%s) of the %c line: expected an unsigned 64-bit integer, found '%s'", field + 1,
        field_name(&layouts[r->version], (size_t)field, name), tag, QUOTE(word, q));
}

/* p KEY FIELDS... or q KEY FIELDS...: the fields the layout of the report's version lists. */
static lg_err_t read_tuple(reader_t *r, char tag, char *s, tuple_t *t)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)], name[FIELD_NAME_BYTES];
    const layout_t *l = &layouts[r->version];
    const char *key_name = tag == 'p' ? "a routine id" : "a context id";
    LG_CHECK(get_u64(r, next_word(&s), key_name, &t->key));
    char *fields[TUPLE_MAX_FIELDS];
    size_t n = 0;
    for (char *w; (w = next_word(&s)) != NULL; n++)
        if (n < TUPLE_MAX_FIELDS)
            fields[n] = w;
    bool allowed = false;
    for (size_t i = 0; i < sizeof l->counts && l->counts[i] != 0; i++)
        allowed = allowed || n == l->counts[i];
    if (!allowed) {
        char counts[32];
        counts_text(l, counts, sizeof counts);
        return LG_FAIL_LINE(
            r, LG_EFORMAT, r->line,
            "expected %s numbers after the %s id of a %c line in a version %u report "
            "(%s), found %zu",
            counts, tag == 'p' ? "routine" : "context", tag, r->version, l->fields, n);
    }
    for (size_t i = 0; i < n; i++)
        if (!is_decimal(fields[i]))
            return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                                "field %zu (%s) of the %c line: expected a number, found '%s'",
                                i + 1, field_name(l, i, name), tag, QUOTE(fields[i], q));
    uint64_t sum = 0, real = 0;
    LG_CHECK(tuple_u64(r, tag, fields, l->occ, &t->calls));
    if (l->sum != FIELD_NONE)
        LG_CHECK(tuple_u64(r, tag, fields, l->sum, &sum));
    if (l->real != FIELD_NONE)
        LG_CHECK(tuple_u64(r, tag, fields, l->real, &real));
    t->cost_self = 0;
    if (l->self != FIELD_NONE)
        LG_CHECK(tuple_u64(r, tag, fields, l->self, &t->cost_self));
    if (l->avg != FIELD_NONE)
        sum = lg_scale_count(t->calls, strtod(fields[l->avg], NULL));
    /* Summed cumulative costs count a recursive routine's nested calls again inside the outer
     * ones; the real sum, where a version has it, counts each cost once. */
    t->cost_total = l->real != FIELD_NONE ? real : sum;
    return LG_OK;
}

static lg_err_t check_tuple_kind(reader_t *r, char tag)
{
    size_t other = tag == 'p' ? r->first_q_line : r->first_p_line;
    if (other != 0)
        return LG_FAIL_LINE(
            r, LG_EFORMAT, r->line,
            "expected %c lines only (the report's first %c line is line %zu), found "
            "a %c line: a report has per-routine (p) or per-context (q) tuples, not both",
            tag == 'p' ? 'q' : 'p', tag == 'p' ? 'q' : 'p', other, tag);
    size_t *first = tag == 'p' ? &r->first_p_line : &r->first_q_line;
    if (*first == 0)
        *first = r->line;
    return LG_OK;
}

static void add_sums(uint64_t *calls, uint64_t *total, uint64_t *self, const tuple_t *t)
{
    *calls = lg_sat_add(*calls, t->calls);
    *total = lg_sat_add(*total, t->cost_total);
    *self = lg_sat_add(*self, t->cost_self);
}

static lg_err_t read_point(reader_t *r, char *s)
{
    tuple_t t;
    uint32_t index;
    LG_CHECK(check_tuple_kind(r, 'p'));
    LG_CHECK(read_tuple(r, 'p', s, &t));
    LG_CHECK(declared_routine(r, 'p', t.key, &index));
    routine_t *rt = &r->routines[index];
    add_sums(&rt->calls, &rt->cost_total, &rt->cost_self, &t);
    return LG_OK;
}

/* q lines come before the x lines of their contexts (the writer prints the tree last), so a
 * context is checked against its x line only when the file has been read. */
static lg_err_t read_context_point(reader_t *r, char *s)
{
    tuple_t t;
    uint32_t index;
    LG_CHECK(check_tuple_kind(r, 'q'));
    LG_CHECK(read_tuple(r, 'q', s, &t));
    LG_CHECK(find_or_add_context(r, t.key, &index));
    context_t *c = &r->contexts[index];
    if (c->first_q_line == 0)
        c->first_q_line = r->line;
    add_sums(&c->calls, &c->cost_total, &c->cost_self, &t);
    return LG_OK;
}

/* x ROUTINE CONTEXT PARENT, PARENT -1 for a root. Parents come first (the writer prints the
 * tree depth first), which also rules out cycles. */
static lg_err_t read_context(reader_t *r, char *s)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)];
    uint64_t routine_id, id, parent_id = 0;
    LG_CHECK(get_u64(r, next_word(&s), "a routine id", &routine_id));
    LG_CHECK(get_u64(r, next_word(&s), "a context id", &id));
    char *parent_word = next_word(&s);
    bool root = parent_word != NULL && strcmp(parent_word, "-1") == 0;
    if (!root)
        LG_CHECK(get_u64(r, parent_word, "a parent context id or -1", &parent_id));
    char *extra = next_word(&s);
    if (extra != NULL)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected 3 numbers after 'x' (routine context parent), found more: "
                            "'%s'",
                            QUOTE(extra, q));
    uint32_t routine = index_of(&r->routine_ids, routine_id);
    if (routine == NO_INDEX)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "x line for routine id %" PRIu64 ", which no earlier r line declares",
                            routine_id);
    uint32_t parent = NO_INDEX;
    if (!root) {
        parent = index_of(&r->context_ids, parent_id);
        if (parent == NO_INDEX || r->contexts[parent].x_line == 0)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                                "x line for context %" PRIu64 " names parent context %" PRIu64
                                ", which no earlier x line declares",
                                id, parent_id);
    }
    uint32_t index;
    LG_CHECK(find_or_add_context(r, id, &index));
    context_t *c = &r->contexts[index];
    if (c->x_line != 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "context %" PRIu64 " is already declared at line %zu", id, c->x_line);
    c->routine = routine;
    c->parent = parent;
    c->x_line = r->line;
    r->declared_contexts++;
    return LG_OK;
}

static bool is_tag(const char *s, size_t n)
{
    if (n == 0 || n > TAG_MAX_BYTES)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < 'a' || s[i] > 'z')
            return false;
    return true;
}

/* One line, without its line end and trailing blanks. */
static lg_err_t read_line(reader_t *r, char *s)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)];
    s = skip_blanks(s);
    if (*s == '\0')
        return LG_OK;
    char *tag = next_word(&s);
    if (!is_tag(tag, strlen(tag)))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->line,
                            "expected a line starting with a tag (a lowercase word such as 'r' or "
                            "'p'), found '%s'",
                            QUOTE(tag, q));
    r->tag_lines++;
    size_t k = 0;
    while (k < sizeof tags / sizeof tags[0] && strcmp(tags[k].tag, tag) != 0)
        k++;
    if (k == sizeof tags / sizeof tags[0]) {
        /* A tag of a later writer, perhaps: its line cannot change what lorgen reads. */
        if (r->unknown_tags++ == 0) {
            r->first_unknown_line = r->line;
            snprintf(r->first_unknown_tag, sizeof r->first_unknown_tag, "%s", tag);
        }
        return LG_OK;
    }
    tag_kind_t kind = tags[k].kind;
    if (kind != TAG_IGNORED && kind != TAG_VERSION && kind != TAG_METRIC && r->first_data_line == 0)
        r->first_data_line = r->line;
    switch (kind) {
    case TAG_IGNORED:
        return LG_OK;
    case TAG_VERSION:
        return read_version(r, s);
    case TAG_METRIC:
        return read_metric(r, s);
    case TAG_ROUTINE:
        return read_routine(r, s);
    case TAG_MANGLED:
        return read_name_line(r, 'u', s);
    case TAG_DEMANGLED:
        return read_name_line(r, 'd', s);
    case TAG_POINT:
        return read_point(r, s);
    case TAG_CONTEXT_POINT:
        return read_context_point(r, s);
    case TAG_CONTEXT:
        return read_context(r, s);
    }
    return LG_OK;
}

static const lg_line_rules_t line_rules = {LG_APROF_MAX_LINE_BYTES, "LG_APROF_MAX_LINE_BYTES",
                                           false};

/* Reads every line of the source. */
static lg_err_t read_lines(reader_t *r)
{
    for (;;) {
        char *buf;
        size_t len;
        bool got;
        LG_CHECK(lg_source_next_line(r->src, &line_rules, &buf, &len, &got));
        if (!got)
            return LG_OK;
        r->line = r->src->line;
        /* Windows line ends and trailing blanks (the writer's own header has one) go. */
        while (len > 0 && (buf[len - 1] == '\r' || is_blank(buf[len - 1])))
            len--;
        buf[len] = '\0';
        LG_CHECK(read_line(r, buf));
    }
}

/* ---- The profile -------------------------------------------------------------------------- */

static lg_err_t build_profile(reader_t *r)
{
    lg_profile_t *out = r->out;
    if (r->tag_lines == 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, 0,
                            "expected aprof report lines (tags such as v, r, p), found none");
    for (size_t i = 0; i < r->ncontexts; i++) {
        const context_t *c = &r->contexts[i];
        if (c->x_line == 0)
            return LG_FAIL_LINE(r, LG_EFORMAT, c->first_q_line,
                                "q line for context %" PRIu64 ", which no x line declares", c->id);
    }
    if (lg_profile_set_path(out, r->src->path) != LG_OK)
        return out_of_memory(r);
    out->format = "aprof";
    out->kind = LG_PROFILE_TRACE;
    out->has_call_edges = r->declared_contexts > 0;
    out->counter1_unit = r->unit;

    for (size_t i = 0; i < r->nroutines; i++) {
        routine_t *rt = &r->routines[i];
        size_t before = out->nfuncs;
        r->line = rt->line;
        lg_err_t err = lg_profile_intern(out, rt->name, rt->mangled, rt->image, &rt->func);
        if (err == LG_ELIMIT)
            return LG_FAIL_LINE(r, err, rt->line, "more than %u functions (LG_PROFILE_MAX_FUNCS)",
                                LG_PROFILE_MAX_FUNCS);
        if (err != LG_OK)
            return out_of_memory(r);
        if (out->nfuncs == before && r->duplicate_routines++ == 0)
            r->first_duplicate = (uint32_t)i;
        lg_pfunc_t *f = &out->funcs[rt->func];
        add_sums(&f->hits, &f->counter1_total, &f->counter1_self,
                 &(tuple_t){0, rt->calls, rt->cost_total, rt->cost_self});
    }
    for (size_t i = 0; i < r->ncontexts; i++) {
        const context_t *c = &r->contexts[i];
        uint32_t callee = r->routines[c->routine].func;
        lg_pfunc_t *f = &out->funcs[callee];
        add_sums(&f->hits, &f->counter1_total, &f->counter1_self,
                 &(tuple_t){0, c->calls, c->cost_total, c->cost_self});
        if (c->parent == NO_INDEX || c->calls == 0)
            continue;
        uint32_t caller = r->routines[r->contexts[c->parent].routine].func;
        if (lg_profile_add_edge(out, caller, callee, c->calls) != LG_OK)
            return LG_FAIL_LINE(r, LG_ENOMEM, c->x_line, "out of memory adding a call edge");
    }
    lg_profile_finish_edges(out);
    for (size_t i = 0; i < out->nfuncs; i++)
        out->total_hits = lg_sat_add(out->total_hits, out->funcs[i].hits);
    out->call_records = out->total_hits;
    return LG_OK;
}

/* Warnings wait until the file has loaded: a failed load reports its one error alone. */
static void report_warnings(const reader_t *r)
{
    char q[LG_QUOTE_BUFFER(QUOTE_MAX_BYTES)];
    if (r->unknown_tags > 0)
        WARN_AT(r, r->first_unknown_line,
                "%" PRIu64 " line(s) with a tag lorgen does not know, first '%s'; ignored",
                r->unknown_tags, r->first_unknown_tag);
    if (r->unknown_metric != NULL)
        WARN_AT(r, r->unknown_metric_line,
                "unknown cost metric '%s' (lorgen knows bb-count, time-usec and vex-instr); "
                "costs are kept without a unit",
                QUOTE(r->unknown_metric, q));
    if (r->duplicate_routines > 0) {
        const routine_t *rt = &r->routines[r->first_duplicate];
        WARN_AT(r, rt->line,
                "%" PRIu64 " routine(s) repeat the name, mangled name and image of an earlier "
                "one, first '%s' (id %" PRIu64 "); their counts are summed into one function",
                r->duplicate_routines, QUOTE(rt->name, q), rt->id);
    }
}

static void reader_destroy(reader_t *r)
{
    for (size_t i = 0; i < r->nroutines; i++) {
        free(r->routines[i].name);
        free(r->routines[i].image);
        free(r->routines[i].mangled);
    }
    free(r->routines);
    free(r->contexts);
    lg_intmap_destroy(&r->routine_ids);
    lg_intmap_destroy(&r->context_ids);
    free(r->unknown_metric);
}

lg_err_t lg_aprof_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out)
{
    (void)options;
    reader_t r = {.src = src, .out = out, .unit = DEFAULT_UNIT};
    lg_err_t err = read_lines(&r);
    if (err == LG_OK)
        err = build_profile(&r);
    if (err == LG_OK)
        report_warnings(&r);
    reader_destroy(&r);
    return err;
}

/* ---- Probe -------------------------------------------------------------------------------- */

bool lg_aprof_probe(const uint8_t *head, size_t len)
{
    if (head == NULL || len == 0 || memchr(head, '\0', len) != NULL)
        return false;
    /* The lines are read as the loader reads them, without diagnostics. Only the cross-checks
     * made after the last line are skipped: the head is not the whole file. */
    lg_source_t quiet; /* failures are not described */
    lg_source_memory(&quiet, NULL, 0, "", NULL, NULL);
    reader_t r = {.src = &quiet, .unit = DEFAULT_UNIT};
    char *line = malloc(len + 1);
    bool claimed = line != NULL, evidence = false;
    for (size_t pos = 0; claimed && pos < len;) {
        const uint8_t *nl = memchr(head + pos, '\n', len - pos);
        size_t end = nl != NULL ? (size_t)(nl - head) : len;
        size_t n = end - pos;
        memcpy(line, head + pos, n);
        while (n > 0 && (line[n - 1] == '\r' || is_blank(line[n - 1])))
            n--;
        line[n] = '\0';
        r.line++;
        size_t tag_lines = r.tag_lines;
        lg_err_t err = read_line(&r, line);
        if (err == LG_EUNSUPPORTED) {
            evidence = true; /* a well-formed v line of a later version: the loader says so */
            break;
        }
        if (err != LG_OK) {
            /* A line the head cuts short may not read; the lines before it decide. So do they
             * when they already showed an aprof report and this line has one of its tags:
             * then the loader, not the probe, says what is wrong with it (a bad number). */
            bool aprof_tag = r.tag_lines > tag_lines && r.unknown_tags == 0;
            claimed = nl == NULL || (evidence && aprof_tag);
            break;
        }
        if (r.unknown_tags > 0) {
            claimed = nl == NULL; /* a tag aprof does not have: another format */
            break;
        }
        evidence = evidence || r.version_line != 0 || r.first_data_line != 0;
        pos = end + 1;
    }
    claimed = claimed && evidence;
    free(line);
    reader_destroy(&r);
    return claimed;
}
