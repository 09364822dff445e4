/* callgrind.c - read Valgrind callgrind profiles (format version 1) into an lg_profile_t.
 *
 * The file is streamed one line at a time (at most LG_CALLGRIND_MAX_LINE bytes) and each line is
 * told apart by its first characters:
 *   empty, or '#'     skipped
 *   KEY: value        header line: events:, positions:, part:, version:, summary:, totals:, ...
 *   KEY=value         a name (ob= fl= fi= fe= fn=, cob= cfi= cfl= cfn=, jfi= jfn=), a call
 *                     (calls=) or a jump (jump= jcnd=)
 *   digit + - *       cost line: the subpositions of "positions:", then one number per event
 * Header lines may appear anywhere (a file holds several parts); "part:" starts a new part and
 * forgets the current names and subpositions, while name ids stay defined to the end of the file.
 *
 * Definitions:
 *   name table   "KEY=(N) name" defines id N and "KEY=(N)" refers back to it. There are three
 *                tables, as callgrind's writer and every reader use them (the specification's
 *                wording suggests one per key): files (fl fi fe cfi cfl jfi), functions (fn cfn
 *                jfn) and objects (ob cob).
 *   subposition  one column of a cost line (instr, bb or line). "+N", "-N" and "*" are relative
 *                to the same column of the previous cost line of any kind (regular, call site,
 *                or the position line after a jump), as the readers do. The targets on calls=,
 *                jump= and jcnd= lines are relative to the same values but never change them;
 *                only a jump's instr target is used.
 *   function     (name, qualifier): the name as written without callgrind's recursion suffix
 *                ("f'2" is f), the qualifier the source file that fl= names when the fn= line
 *                is read, or the object (ob=) when callgrind did not know the file ("???"). A
 *                callee's file is the cfi=/cfl= given since the previous cfn=, else the current
 *                file (fi=/fe= included); its object likewise cob= or the current ob=.
 *   call         "calls=COUNT TARGET" and the cost line after it: COUNT calls from the current
 *                function to the function of the last cfn=, and their inclusive cost, measured
 *                at the call site. This cost is not the caller's self cost.
 *   jump         "jump=COUNT TARGET" or "jcnd=FOLLOWED/EXECUTED TARGET" and the position line
 *                after it (no costs): control went from that position to TARGET COUNT (or
 *                FOLLOWED) times without a call, inside the current function as a rule (a jfn=
 *                before it names the target's function when it is another).
 *
 * Model (docs/loaders/callgrind.md): edge weight = summed call counts; hits = calls into the
 * function, or 1 for a function that ran (self cost or calls made) without a recorded caller;
 * counter 1/2 = the first two events of the first "events:" line, self = its cost lines,
 * total = self + inclusive cost of its calls to other functions; per-position costs of counter 1
 * from the self cost lines, by instruction address when the file has them, else by line; with
 * instruction addresses, the jumps taken at least once, as (function, source address, target
 * address, times taken), the function being the current fn= (binding drops the jumps whose
 * target lies outside it).
 *
 * A part's "summary:" (in its header) and "totals:" (at its end) state the part's total cost per
 * event, which is the sum of its regular cost lines (call lines hold inclusive costs, counted
 * already in the callee's own lines). When a part ends, at the next "part:" line or the end of
 * the file, each stated total is checked against that sum: a file cut short, or a part with
 * lines lost, is an error and not a smaller profile.
 *
 * Every failure is one error diagnostic "PATH:LINE: expected ..., found ..." and an empty profile.
 * A calls= or jump line must be followed by its cost or position line: one that meets another
 * kind of line, or the end of the file, is a file cut short or edited.
 * Memory grows with names, functions, edges and profiled positions: repeated pairs are summed as
 * they are read, never kept per line. Jumps are the exception: each jump line is kept as read
 * (callgrind writes a jump once per function context and part) and binding sums them.
 *
 * Reference: Callgrind Format Specification, https://valgrind.org/docs/manual/cl-format.html
 * (valgrind callgrind/docs/cl-format.xml); the writer valgrind callgrind/dump.c.
 */
#include "callgrind.h"

#include "intmap.h"
#include "mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* Subposition kinds a "positions:" line may list: instr, bb, line. */
#define MAX_POSITIONS 3u
/* Bytes of a line quoted in a message. */
#define QUOTE_BYTES 80u
/* Longest header or spec key remembered for the unknown-line warning. */
#define KEY_TEXT_BYTES 32u
/* Longest "events:"/"positions:" value repeated in messages. */
#define LIST_TEXT_BYTES 200u
/* The file name callgrind writes when a function has no debug information. */
#define UNKNOWN_FILE "???"
/* The two lines that state a part's total cost: "summary:" in its header, "totals:" at its end. */
enum { STATED_SUMMARY, STATED_TOTALS, STATED_KINDS };
static const char *const stated_keys[STATED_KINDS] = {"summary", "totals"};
#define UTF8_BOM "\xEF\xBB\xBF"
#define UTF8_BOM_LEN 3u

static const lg_line_rules_t line_rules = {LG_CALLGRIND_MAX_LINE, "LG_CALLGRIND_MAX_LINE", true};

/* ---- Text helpers ------------------------------------------------------------------------ */

static size_t count_tokens(lg_span_t rest)
{
    size_t n = 0;
    lg_span_t tok;
    while (lg_span_next_word(&rest, &tok))
        n++;
    return n;
}

/* The format's Number: decimal digits, or "0x" and hexadecimal digits. */
static lg_number_status_t parse_number(lg_span_t t, uint64_t *value)
{
    return lg_parse_u64(t.s, t.n, LG_NUMBER_HEX_PREFIX, value);
}

/* ---- The reader -------------------------------------------------------------------------- */

enum { TABLE_OBJECT, TABLE_FILE, TABLE_FUNCTION, TABLES };

static const char *const table_names[] = {"object", "file", "function"};

/* What a KEY=name line changes. */
typedef enum role {
    ROLE_OB,       /* current object */
    ROLE_FL,       /* file of the functions that follow, and the current file */
    ROLE_FILE,     /* fi=/fe=: the current file only (inlined code); the function stays */
    ROLE_FN,       /* current function */
    ROLE_COB,      /* object of the next cfn= */
    ROLE_CFI,      /* file of the next cfn= */
    ROLE_CFN,      /* callee of the calls= that follow */
    ROLE_NAME_ONLY /* jfi=/jfn=: only defines or checks a name id */
} role_t;

static const struct {
    const char *key;
    uint8_t table;
    role_t role;
} name_keys[] = {
    {"ob", TABLE_OBJECT, ROLE_OB},           {"fl", TABLE_FILE, ROLE_FL},
    {"fi", TABLE_FILE, ROLE_FILE},           {"fe", TABLE_FILE, ROLE_FILE},
    {"fn", TABLE_FUNCTION, ROLE_FN},         {"cob", TABLE_OBJECT, ROLE_COB},
    {"cfi", TABLE_FILE, ROLE_CFI},           {"cfl", TABLE_FILE, ROLE_CFI},
    {"cfn", TABLE_FUNCTION, ROLE_CFN},       {"jfi", TABLE_FILE, ROLE_NAME_ONLY},
    {"jfn", TABLE_FUNCTION, ROLE_NAME_ONLY},
};

typedef struct reader {
    lg_source_t *src;
    lg_profile_t *out;

    char *line; /* the current line, NUL-terminated, without its line end */
    size_t len;

    /* Every distinct name, interned: the state below holds indices into names. */
    char **names;
    size_t nnames, names_cap;
    lg_strmap_t name_index;  /* name -> index; keys borrowed from names */
    lg_intmap_t ids[TABLES]; /* per table: id -> name index */
    size_t nids;             /* ids defined, all tables */
    lg_intmap_t func_of;     /* (function name, qualifier) -> index into out->funcs */
    lg_intmap_t position_no; /* position -> its number, in first-seen order */
    lg_intmap_t cost_of;     /* (function, position number) -> index into out->costs */
    uint8_t *ran;            /* per function: 1 once it has run (cost or calls made) */
    size_t ran_cap;

    /* Header */
    bool have_events;
    size_t nevents;
    char events_text[LIST_TEXT_BYTES];
    char *counter_names[2]; /* events 1 and 2 of the first "events:" line, or NULL */
    int counter_col[2];     /* their columns in the current "events:" line, or -1 */
    uint64_t *values;       /* the nevents cost numbers of the current cost line */
    size_t values_cap;
    size_t npos;
    char positions_text[LIST_TEXT_BYTES];
    int addr_col, line_col; /* columns of instr and line, or -1 */
    uint64_t last[MAX_POSITIONS], pos[MAX_POSITIONS];
    lg_pos_kind_t pos_kind; /* of out->costs, chosen by the first position cost */

    /* The part being read: the sum of its regular cost lines per column of "events:", and what
     * its summary: and totals: lines say (checked by check_part when the part ends). */
    bool part_has_costs;
    uint64_t part_cost[LG_CALLGRIND_MAX_EVENTS];
    uint64_t stated[STATED_KINDS][LG_CALLGRIND_MAX_EVENTS];
    size_t nstated[STATED_KINDS];
    uint64_t stated_line[STATED_KINDS]; /* 0: not given in this part */

    /* Where the body is */
    uint32_t ob, fl, file;             /* current object, function file, source file (names) */
    uint32_t fn_name, fn_qual;         /* current function (names), NONE before fn= */
    uint32_t fn_ob, callee_ob;         /* objects of the current function and of the last cfn= */
    uint32_t fn_file;                  /* fl= when fn= was read: the function's own file */
    uint32_t func;                     /* current function in out->funcs, NONE until needed */
    uint32_t cob, cfi;                 /* for the next cfn= */
    uint32_t callee_name, callee_qual; /* last cfn=, NONE before one */
    bool call_pending;                 /* a calls= line waits for its cost line */
    uint64_t call_count, call_line;
    /* A jump= or jcnd= line waits for the position line that gives its source (jump_line). */
    bool jump_pending;
    bool jump_kept;        /* it is recorded then: instr positions, a target, taken > 0 */
    const char *jump_key;  /* "jump" or "jcnd", for messages */
    uint64_t jump_to;      /* the target's instr subposition */
    uint64_t jump_count;   /* times taken */
    uint64_t jump_line_no; /* line of the jump= or jcnd= */

    /* Warnings, reported once the whole file has loaded. */
    uint64_t unknown_lines, first_unknown_line;
    char first_unknown_key[KEY_TEXT_BYTES];
    uint64_t apostrophe_funcs;
    uint32_t first_apostrophe_func;
    uint64_t unplaced_costs, first_unplaced_line;
    uint64_t undefined_objects, first_undefined_object;
} reader_t;

/* A warning at a line, or about the whole file when line is 0. */
#define WARN_AT(r, line, ...) lg_source_report((r)->src, LG_WARNING, (line), 0, __VA_ARGS__)
#define QUOTE(t, q) lg_quote((t).s, (t).n, QUOTE_BYTES, (q))

/* ---- Names and functions ----------------------------------------------------------------- */

/* The index of name s (NUL-terminated), added if new. */
static lg_err_t intern(reader_t *r, const char *s, uint32_t *index)
{
    if (lg_strmap_get(&r->name_index, s, index))
        return LG_OK;
    if (r->nnames >= LG_CALLGRIND_MAX_NAMES)
        return LG_FAIL_LINE(r, LG_ELIMIT, r->src->line,
                            "more than %u distinct names (LG_CALLGRIND_MAX_NAMES)",
                            LG_CALLGRIND_MAX_NAMES);
    char *copy = strdup(s);
    if (copy == NULL ||
        !lg_grow((void **)&r->names, &r->names_cap, r->nnames + 1, sizeof *r->names) ||
        !lg_strmap_put(&r->name_index, copy, (uint32_t)r->nnames, NULL)) {
        free(copy);
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding a name");
    }
    *index = (uint32_t)r->nnames;
    r->names[r->nnames++] = copy;
    return LG_OK;
}

/* The qualifier of a function in file (name index) of object: the file unless callgrind did not
 * know it, then the object; NONE when neither is known. */
static uint32_t qualifier(const reader_t *r, uint32_t file, uint32_t object)
{
    if (file != NONE && strcmp(r->names[file], UNKNOWN_FILE) != 0)
        return file;
    return object;
}

/* Length of name without callgrind's context suffix: with --separate-recs (default 2) a
 * recursive activation is written "name'2", and with --separate-callers the callers follow as
 * "'caller". The suffix starts at the first apostrophe followed by a digit. */
static size_t base_length(const char *name)
{
    for (const char *p = strchr(name, '\''); p != NULL; p = strchr(p + 1, '\''))
        if (p > name && lg_is_digit(p[1]))
            return (size_t)(p - name);
    return strlen(name);
}

/* The profile function of (name, qualifier) (name indices), added if new; object (a name index
 * or NONE) is recorded as the binary it came from. */
static lg_err_t resolve(reader_t *r, uint32_t name, uint32_t qual, uint32_t object, uint32_t *id)
{
    uint64_t v;
    if (lg_intmap_get(&r->func_of, lg_intmap_pair(name, qual), &v)) {
        *id = (uint32_t)v;
        return LG_OK;
    }
    lg_profile_t *out = r->out;
    const char *full = r->names[name];
    char *base = lg_strndup(full, base_length(full));
    if (base == NULL)
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding function '%s'", full);
    size_t before = out->nfuncs;
    lg_err_t err = lg_profile_intern(out, base, /* link_label = */ NULL,
                                     qual == NONE ? NULL : r->names[qual], id);
    bool has_apostrophe = strchr(base, '\'') != NULL;
    free(base);
    if (err == LG_ELIMIT)
        return LG_FAIL_LINE(r, err, r->src->line, "more than %u functions (LG_PROFILE_MAX_FUNCS)",
                            LG_PROFILE_MAX_FUNCS);
    if (err != LG_OK)
        return LG_FAIL_LINE(r, err, r->src->line, "out of memory adding function '%s'", full);
    if (out->nfuncs > before) {
        size_t old_cap = r->ran_cap;
        if (!lg_grow((void **)&r->ran, &r->ran_cap, out->nfuncs, 1))
            return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding function '%s'",
                                full);
        memset(r->ran + old_cap, 0, r->ran_cap - old_cap);
        if (has_apostrophe && r->apostrophe_funcs++ == 0)
            r->first_apostrophe_func = *id;
    }
    if (!lg_intmap_set(&r->func_of, lg_intmap_pair(name, qual), *id))
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding function '%s'", full);
    /* Binding names the shared object of a function the program does not define. */
    if (object != NONE && lg_profile_set_object(out, *id, r->names[object]) != LG_OK)
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding function '%s'", full);
    return LG_OK;
}

/* The current function, resolved when first needed: fn= lines that only define a name id (as the
 * specification allows before any cost line) add no function. */
static lg_err_t current_func(reader_t *r, uint32_t *id)
{
    if (r->func == NONE)
        LG_CHECK(resolve(r, r->fn_name, r->fn_qual, r->fn_ob, &r->func));
    *id = r->func;
    return LG_OK;
}

/* Reads the value of a KEY=name line: "(N) name" defines id N in table, "(N)" refers back to
 * it, anything else is a name as written. value runs to the end of the line. */
static lg_err_t read_name(reader_t *r, lg_span_t key, lg_span_t value, uint8_t table,
                          uint32_t *index)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    if (value.n >= 2 && value.s[0] == '(' && lg_is_digit(value.s[1])) {
        size_t close = 1;
        while (close < value.n && value.s[close] != ')')
            close++;
        if (close == value.n)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected ')' after the name id in %.*s=, found '%s'", (int)key.n,
                                key.s, QUOTE(value, q));
        lg_span_t digits = {value.s + 1, close - 1};
        uint64_t id;
        if (parse_number(digits, &id) != LG_NUMBER_OK)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "name id '(%s)' in %.*s= is not a number", QUOTE(digits, q),
                                (int)key.n, key.s);
        lg_span_t name = lg_span_skip_blanks((lg_span_t){value.s + close + 1, value.n - close - 1});
        uint64_t known;
        bool defined = lg_intmap_get(&r->ids[table], id, &known);
        if (name.n == 0 && defined) {
            *index = (uint32_t)known;
            return LG_OK;
        }
        if (name.n == 0 && table != TABLE_OBJECT)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "unknown name id (%" PRIu64 ") for %.*s: no '(%" PRIu64
                                ") name' seen before",
                                id, (int)key.n, key.s, id);
        if (name.n == 0) {
            /* callgrind 0.10 could refer to an object it never named. An object only qualifies
             * functions whose file is unknown, so it is named by its id rather than refused. */
            if (r->undefined_objects++ == 0)
                r->first_undefined_object = r->src->line;
            char text[sizeof "(18446744073709551615)"];
            snprintf(text, sizeof text, "(%" PRIu64 ")", id);
            LG_CHECK(intern(r, text, index));
        } else {
            LG_CHECK(intern(r, name.s, index));
        }
        if (defined) {
            if (known != *index)
                return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                    "%s name id (%" PRIu64 ") defined again as '%s', it was '%s'",
                                    table_names[table], id, r->names[*index], r->names[known]);
            return LG_OK;
        }
        if (r->nids >= LG_CALLGRIND_MAX_NAMES)
            return LG_FAIL_LINE(r, LG_ELIMIT, r->src->line,
                                "more than %u name ids (LG_CALLGRIND_MAX_NAMES)",
                                LG_CALLGRIND_MAX_NAMES);
        if (!lg_intmap_set(&r->ids[table], id, *index))
            return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding a name id");
        r->nids++;
        return LG_OK;
    }
    if (value.n == 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected a %s name after '%.*s=', found nothing", table_names[table],
                            (int)key.n, key.s);
    return intern(r, value.s, index);
}

static lg_err_t name_line(reader_t *r, lg_span_t key, lg_span_t value, uint8_t table, role_t role)
{
    uint32_t name;
    LG_CHECK(read_name(r, key, value, table, &name));
    switch (role) {
    case ROLE_OB:
        r->ob = name;
        break;
    case ROLE_FL:
        r->fl = r->file = name;
        break;
    case ROLE_FILE:
        r->file = name;
        break;
    case ROLE_FN:
        /* Like callgrind's own dump and KCachegrind, a new function starts in its own file. */
        r->fn_name = name;
        r->fn_qual = qualifier(r, r->fl, r->ob);
        r->fn_ob = r->ob;
        r->fn_file = r->file = r->fl;
        r->func = NONE;
        break;
    case ROLE_COB:
        r->cob = name;
        break;
    case ROLE_CFI:
        r->cfi = name;
        break;
    case ROLE_CFN:
        /* cob=/cfi= belong to this callee only: callgrind writes them before each cfn= whose
         * callee differs from the current object and file, and cfn= may come without calls=. */
        r->callee_name = name;
        r->callee_qual =
            qualifier(r, r->cfi != NONE ? r->cfi : r->file, r->cob != NONE ? r->cob : r->ob);
        r->callee_ob = r->cob != NONE ? r->cob : r->ob;
        r->cob = r->cfi = NONE;
        break;
    case ROLE_NAME_ONLY:
        break;
    }
    return LG_OK;
}

/* ---- Header lines ------------------------------------------------------------------------ */

/* Copies a list value for messages: "Ir Dr", or "none" when empty. */
static void list_text(lg_span_t value, char out[LIST_TEXT_BYTES])
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    snprintf(out, LIST_TEXT_BYTES, "%s", value.n == 0 ? "none" : QUOTE(value, q));
}

/* Forgets the place in the body: a new part names its object, file and function again. */
static void reset_place(reader_t *r)
{
    r->ob = r->fl = r->file = NONE;
    r->fn_name = r->fn_qual = r->fn_file = r->func = r->fn_ob = NONE;
    r->cob = r->cfi = r->callee_name = r->callee_qual = r->callee_ob = NONE;
    r->jump_pending = false;
    memset(r->last, 0, sizeof r->last);
}

static lg_err_t events_line(reader_t *r, lg_span_t value)
{
    size_t n = count_tokens(value);
    if (n == 0)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected at least one event name after 'events:', found none");
    if (n > LG_CALLGRIND_MAX_EVENTS)
        return LG_FAIL_LINE(r, LG_ELIMIT, r->src->line,
                            "'events:' names %zu events, more than %u "
                            "(LG_CALLGRIND_MAX_EVENTS)",
                            n, LG_CALLGRIND_MAX_EVENTS);
    if (!lg_grow((void **)&r->values, &r->values_cap, n, sizeof *r->values))
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory reading 'events:'");
    lg_span_t rest = value, tok;
    r->counter_col[0] = r->counter_col[1] = -1;
    for (size_t i = 0; lg_span_next_word(&rest, &tok); i++) {
        /* Counters 1 and 2 are named by the first "events:" line; later parts may list their
         * events in another order, so they are found again by name. */
        if (!r->have_events && i < 2) {
            r->counter_names[i] = lg_strndup(tok.s, tok.n);
            if (r->counter_names[i] == NULL)
                return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory reading 'events:'");
        }
        for (int k = 0; k < 2; k++)
            if (r->counter_col[k] < 0 && r->counter_names[k] != NULL &&
                lg_span_is(tok, r->counter_names[k]))
                r->counter_col[k] = (int)i;
    }
    r->nevents = n;
    r->have_events = true;
    list_text(value, r->events_text);
    return LG_OK;
}

static lg_err_t positions_line(reader_t *r, lg_span_t value)
{
    static const char *const kinds[MAX_POSITIONS] = {"instr", "bb", "line"};
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    bool seen[MAX_POSITIONS] = {false, false, false};
    lg_span_t rest = value, tok;
    size_t n = 0;
    r->addr_col = r->line_col = -1;
    while (lg_span_next_word(&rest, &tok)) {
        size_t k = 0;
        while (k < MAX_POSITIONS && !lg_span_is(tok, kinds[k]))
            k++;
        if (k == MAX_POSITIONS)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected 'instr', 'bb' or 'line' after 'positions:', found '%s'",
                                QUOTE(tok, q));
        if (seen[k])
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line, "'positions:' lists '%s' twice",
                                kinds[k]);
        seen[k] = true;
        if (k == 0)
            r->addr_col = (int)n;
        else if (k == 2)
            r->line_col = (int)n;
        n++;
    }
    r->npos = n;
    list_text(value, r->positions_text);
    memset(r->last, 0, sizeof r->last);
    return LG_OK;
}

/* "summary:" and "totals:" give the part's total cost, one number per event: kept for
 * check_part. */
static lg_err_t totals_line(reader_t *r, lg_span_t key, lg_span_t value)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    int kind = lg_span_is(key, "summary") ? STATED_SUMMARY : STATED_TOTALS;
    lg_span_t rest = value, tok;
    size_t n = 0;
    uint64_t v;
    while (lg_span_next_word(&rest, &tok)) {
        if (parse_number(tok, &v) != LG_NUMBER_OK)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected cost numbers after '%.*s:', found '%s'", (int)key.n,
                                key.s, QUOTE(tok, q));
        if (n == LG_CALLGRIND_MAX_EVENTS)
            return LG_FAIL_LINE(r, LG_ELIMIT, r->src->line,
                                "'%.*s:' gives more than %u numbers (LG_CALLGRIND_MAX_EVENTS)",
                                (int)key.n, key.s, LG_CALLGRIND_MAX_EVENTS);
        r->stated[kind][n++] = v;
    }
    r->nstated[kind] = n;
    r->stated_line[kind] = r->src->line;
    return LG_OK;
}

/* The name of event column i for a message: its word in the current "events:" line, or
 * "(event N)" when the line was too long to keep whole. */
static const char *event_label(const reader_t *r, size_t i, char *buf, size_t size)
{
    lg_span_t rest = {r->events_text, strlen(r->events_text)}, tok = {NULL, 0};
    size_t k = 0;
    bool found = false;
    while (!found && lg_span_next_word(&rest, &tok))
        found = k++ == i;
    bool cut = tok.n >= 3 && memcmp(tok.s + tok.n - 3, "...", 3) == 0;
    if (found && !cut)
        snprintf(buf, size, "%.*s", (int)tok.n, tok.s);
    else
        snprintf(buf, size, "(event %zu)", i + 1);
    return buf;
}

/* Checks the part that ends at line `end` (the next "part:" line, or the last line of the file
 * when at_eof) against its summary: and totals:, then starts a new part. A part without cost
 * lines (the header before "part: 1") ends nothing: what it stated carries into the next. */
static lg_err_t check_part(reader_t *r, uint64_t end, bool at_eof)
{
    if (!r->part_has_costs && !at_eof)
        return LG_OK;
    for (int k = 0; k < STATED_KINDS; k++) {
        if (r->stated_line[k] == 0)
            continue;
        size_t ncols = r->nevents > r->nstated[k] ? r->nevents : r->nstated[k];
        for (size_t i = 0; i < ncols; i++) {
            uint64_t want = i < r->nstated[k] ? r->stated[k][i] : 0;
            uint64_t have = i < r->nevents ? r->part_cost[i] : 0;
            if (want == have)
                continue;
            char name[KEY_TEXT_BYTES + 16];
            return LG_FAIL_LINE(
                r, LG_EFORMAT, end,
                "the part's cost lines add up to %" PRIu64 " %s by %s, but its '%s:' "
                "(line %" PRIu64 ") says %" PRIu64 ": the file is cut short, or lines "
                "were lost or edited",
                have, event_label(r, i, name, sizeof name),
                at_eof ? "the end of the file" : "the next part", stated_keys[k], r->stated_line[k],
                want);
        }
    }
    r->part_has_costs = false;
    memset(r->part_cost, 0, sizeof r->part_cost);
    memset(r->nstated, 0, sizeof r->nstated);
    memset(r->stated_line, 0, sizeof r->stated_line);
    return LG_OK;
}

static void note_unknown(reader_t *r, lg_span_t key)
{
    if (r->unknown_lines++ == 0) {
        r->first_unknown_line = r->src->line;
        char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
        snprintf(r->first_unknown_key, sizeof r->first_unknown_key, "%s", QUOTE(key, q));
    }
}

static lg_err_t header_line(reader_t *r, lg_span_t key, lg_span_t value)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    if (lg_span_is(key, "version")) {
        uint64_t v;
        lg_span_t tok = value;
        while (tok.n > 0 && lg_is_blank(tok.s[tok.n - 1]))
            tok.n--;
        if (parse_number(tok, &v) != LG_NUMBER_OK)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected a number after 'version:', found '%s'", QUOTE(value, q));
        if (v != 1)
            return LG_FAIL_LINE(r, LG_EUNSUPPORTED, r->src->line,
                                "expected format version 1, found version %" PRIu64, v);
        return LG_OK;
    }
    if (lg_span_is(key, "events"))
        return events_line(r, value);
    if (lg_span_is(key, "positions"))
        return positions_line(r, value);
    if (lg_span_is(key, "summary") || lg_span_is(key, "totals"))
        return totals_line(r, key, value);
    if (lg_span_is(key, "part")) {
        LG_CHECK(check_part(r, r->src->line, false));
        reset_place(r);
        return LG_OK;
    }
    /* Descriptions of the run, and long names of events: nothing lorgen uses. */
    if (lg_span_is(key, "creator") || lg_span_is(key, "cmd") || lg_span_is(key, "pid") ||
        lg_span_is(key, "thread") || lg_span_is(key, "desc") || lg_span_is(key, "event"))
        return LG_OK;
    note_unknown(r, key);
    return LG_OK;
}

/* ---- Body lines -------------------------------------------------------------------------- */

/* The number in subposition t ("*", "+N", "-N" or "N"); *sign receives its first character
 * when relative, else 0. */
static lg_err_t subposition_number(reader_t *r, lg_span_t t, char *sign, uint64_t *value)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    *sign = 0;
    *value = 0;
    if (t.n == 1 && t.s[0] == '*') {
        *sign = '*';
        return LG_OK;
    }
    lg_span_t digits = t;
    if (t.s[0] == '+' || t.s[0] == '-') {
        *sign = t.s[0];
        digits = (lg_span_t){t.s + 1, t.n - 1};
    }
    lg_number_status_t st = parse_number(digits, value);
    if (st == LG_NUMBER_BAD)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line, "subposition '%s' is not a number",
                            QUOTE(t, q));
    if (st == LG_NUMBER_OVERFLOW)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line, "subposition '%s' does not fit in 64 bits",
                            QUOTE(t, q));
    return LG_OK;
}

/* Decodes one subposition against the previous value of its column. */
static lg_err_t subposition(reader_t *r, lg_span_t t, uint64_t last, uint64_t *value)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    char sign;
    uint64_t v;
    LG_CHECK(subposition_number(r, t, &sign, &v));
    if (sign == '*') {
        v = last;
    } else if (sign == '+') {
        if (v > UINT64_MAX - last)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "subposition '%s' goes past 64 bits (previous value %" PRIu64 ")",
                                QUOTE(t, q), last);
        v = last + v;
    } else if (sign == '-') {
        if (v > last)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "subposition '%s' goes below 0 (previous value %" PRIu64 ")",
                                QUOTE(t, q), last);
        v = last - v;
    }
    *value = v;
    return LG_OK;
}

/* Reads the target subpositions of calls=, jump= and jcnd=: checks their syntax and that there
 * are at most as many as "positions:" lists. With instr, when the target has one, *instr gets
 * it decoded like a cost line's (relative to the last values) and *has_instr is true; the last
 * values do not change, as in callgrind's writer and every reader. instr may be NULL (calls=:
 * lorgen needs the caller's side only). */
static lg_err_t read_targets(reader_t *r, lg_span_t key, lg_span_t rest, bool *has_instr,
                             uint64_t *instr)
{
    lg_span_t tok;
    size_t n = 0;
    if (has_instr != NULL)
        *has_instr = false;
    while (lg_span_next_word(&rest, &tok)) {
        if (instr != NULL && r->addr_col >= 0 && n == (size_t)r->addr_col) {
            LG_CHECK(subposition(r, tok, r->last[n], instr));
            *has_instr = true;
        } else {
            char sign;
            uint64_t ignored;
            LG_CHECK(subposition_number(r, tok, &sign, &ignored));
        }
        n++;
    }
    if (n > r->npos)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected at most %zu target subpositions after %.*s=COUNT (positions: "
                            "%s), found %zu",
                            r->npos, (int)key.n, key.s, r->positions_text, n);
    return LG_OK;
}

static lg_err_t calls_line(reader_t *r, lg_span_t key, lg_span_t value)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    lg_span_t rest = value, tok;
    if (!lg_span_next_word(&rest, &tok))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected a call count after 'calls=', found nothing");
    lg_number_status_t st = parse_number(tok, &r->call_count);
    if (st != LG_NUMBER_OK)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line, "call count '%s' %s", QUOTE(tok, q),
                            st == LG_NUMBER_BAD ? "is not a number" : "does not fit in 64 bits");
    LG_CHECK(read_targets(r, key, rest, /* has_instr = */ NULL, /* instr = */ NULL));
    if (r->fn_name == NONE)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected 'fn=' before calls=, found none in this part");
    if (r->callee_name == NONE)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected 'cfn=' before calls=, found none in this part");
    r->call_pending = true;
    r->call_line = r->src->line;
    r->out->call_records++;
    return LG_OK;
}

/* jump=COUNT TARGET and jcnd=FOLLOWED/EXECUTED TARGET (the specification's "jcnd=EXECUTED
 * FOLLOWED TARGET" too): control flow inside the function, taken COUNT or FOLLOWED times.
 * callgrind writes the jump's source position on the next line, with no costs; that line is read
 * as a cost line (it moves the subpositions on and adds no cost) and completes the jump
 * (finish_jump), so the jump waits for it like calls= for its cost line. A jump is recorded with
 * instr positions only, and when it was taken. A jfn= before it names the target's function when
 * callgrind saw another one there (a longjmp, a tail jump): it is recorded all the same, by
 * address, and binding keeps only jumps whose two ends lie in one function (hotspots.h). */
static lg_err_t jump_line(reader_t *r, lg_span_t key, lg_span_t value, bool conditional)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    lg_span_t rest = value, tok;
    if (!lg_span_next_word(&rest, &tok))
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected a jump count after '%.*s=', found nothing", (int)key.n,
                            key.s);
    const char *slash = conditional ? memchr(tok.s, '/', tok.n) : NULL;
    lg_span_t first = slash ? (lg_span_t){tok.s, (size_t)(slash - tok.s)} : tok;
    lg_span_t second = slash ? (lg_span_t){slash + 1, tok.n - first.n - 1} : (lg_span_t){"0", 1};
    uint64_t taken, executed;
    if (parse_number(first, &taken) != LG_NUMBER_OK ||
        parse_number(second, &executed) != LG_NUMBER_OK)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line, "jump count '%s' in %.*s= is not a number",
                            QUOTE(tok, q), (int)key.n, key.s);
    if (conditional && slash == NULL) {
        /* The specification's form: the first number counted executions, the second says how
         * often the jump was followed. */
        if (!lg_span_next_word(&rest, &tok))
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected the followed count after 'jcnd=EXECUTED', found nothing");
        if (parse_number(tok, &taken) != LG_NUMBER_OK)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "followed count '%s' in jcnd= is not a number", QUOTE(tok, q));
    }
    bool has_target;
    LG_CHECK(read_targets(r, key, rest, &has_target, &r->jump_to));
    r->jump_pending = true;
    r->jump_kept = has_target && taken > 0 && r->pos_kind != LG_POS_LINE;
    r->jump_key = conditional ? "jcnd" : "jump";
    r->jump_count = taken;
    r->jump_line_no = r->src->line;
    return LG_OK;
}

/* The position line after a jump: the jump's source, in the current function. */
static lg_err_t finish_jump(reader_t *r)
{
    r->jump_pending = false;
    if (!r->jump_kept)
        return LG_OK;
    uint32_t func;
    LG_CHECK(current_func(r, &func));
    if (lg_profile_add_jump(r->out, func, r->pos[r->addr_col], r->jump_to, r->jump_count) != LG_OK)
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding a jump");
    return LG_OK;
}

static lg_err_t spec_line(reader_t *r, lg_span_t key, lg_span_t value)
{
    for (size_t i = 0; i < sizeof name_keys / sizeof name_keys[0]; i++)
        if (lg_span_is(key, name_keys[i].key))
            return name_line(r, key, value, name_keys[i].table, name_keys[i].role);
    if (lg_span_is(key, "calls"))
        return calls_line(r, key, value);
    if (lg_span_is(key, "jump"))
        return jump_line(r, key, value, false);
    if (lg_span_is(key, "jcnd"))
        return jump_line(r, key, value, true);
    /* e.g. bb= and ln= of callgrind's --dump-bbs debugging output */
    note_unknown(r, key);
    return LG_OK;
}

static void note_pc(lg_pfunc_t *f, uint64_t address)
{
    if (address == 0)
        return;
    if (f->pc_min == 0 || address < f->pc_min)
        f->pc_min = address;
    if (address > f->pc_max)
        f->pc_max = address;
}

/* Adds counter-1 cost at the current position of func: by address when the file has them, else
 * by line; lines count only in the function's own file (not inlined code), and line 0 means
 * callgrind had no line. Repeated positions are summed here. */
static lg_err_t add_position_cost(reader_t *r, uint32_t func, uint64_t cost)
{
    if (r->pos_kind == LG_POS_NONE)
        r->pos_kind = r->addr_col >= 0   ? LG_POS_ADDRESS
                      : r->line_col >= 0 ? LG_POS_LINE
                                         : LG_POS_NONE;
    if (r->pos_kind == LG_POS_NONE)
        return LG_OK;
    int col = r->pos_kind == LG_POS_ADDRESS ? r->addr_col : r->line_col;
    if (col < 0) {
        /* A later part lacks the kind of position the earlier ones had. */
        if (r->unplaced_costs++ == 0)
            r->first_unplaced_line = r->src->line;
        return LG_OK;
    }
    uint64_t position = r->pos[col];
    if (r->pos_kind == LG_POS_LINE && (r->file != r->fn_file || position == 0))
        return LG_OK;
    /* (function, position) is wider than a key: positions are numbered first. Cost lines are
     * fewer than 2^32 by far before memory runs out, and so are their positions. */
    lg_profile_t *out = r->out;
    uint64_t *number = lg_intmap_find_or_add(&r->position_no, position, r->position_no.count, NULL);
    if (number == NULL)
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding a position cost");
    bool added;
    uint64_t *i = lg_intmap_find_or_add(&r->cost_of, lg_intmap_pair(func, (uint32_t)*number),
                                        out->ncosts, &added);
    if (i == NULL || (added && lg_profile_add_cost(out, func, position, 0) != LG_OK))
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding a position cost");
    out->costs[*i].cost = lg_sat_add(out->costs[*i].cost, cost);
    return LG_OK;
}

static uint64_t counter(const reader_t *r, int k)
{
    return r->counter_col[k] >= 0 ? r->values[r->counter_col[k]] : 0;
}

static bool any_cost(const reader_t *r)
{
    for (size_t i = 0; i < r->nevents; i++)
        if (r->values[i] != 0)
            return true;
    return false;
}

static lg_err_t self_cost(reader_t *r)
{
    uint32_t func;
    LG_CHECK(current_func(r, &func));
    /* Wrapping sums, as callgrind's own 64-bit counters wrap. */
    for (size_t i = 0; i < r->nevents; i++)
        r->part_cost[i] += r->values[i];
    r->part_has_costs = true;
    lg_pfunc_t *f = &r->out->funcs[func];
    uint64_t c1 = counter(r, 0), c2 = counter(r, 1);
    f->counter1_self = lg_sat_add(f->counter1_self, c1);
    f->counter1_total = lg_sat_add(f->counter1_total, c1);
    f->counter2_self = lg_sat_add(f->counter2_self, c2);
    f->counter2_total = lg_sat_add(f->counter2_total, c2);
    if (any_cost(r))
        r->ran[func] = 1;
    if (r->addr_col >= 0)
        note_pc(f, r->pos[r->addr_col]);
    return c1 > 0 ? add_position_cost(r, func, c1) : LG_OK;
}

static lg_err_t call_cost(reader_t *r)
{
    uint32_t caller, callee;
    LG_CHECK(current_func(r, &caller));
    LG_CHECK(resolve(r, r->callee_name, r->callee_qual, r->callee_ob, &callee));
    lg_profile_t *out = r->out;
    if (lg_profile_add_edge(out, caller, callee, r->call_count) != LG_OK)
        return LG_FAIL_LINE(r, LG_ENOMEM, r->src->line, "out of memory adding a call edge");
    lg_pfunc_t *to = &out->funcs[callee], *from = &out->funcs[caller];
    to->hits = lg_sat_add(to->hits, r->call_count);
    /* A recursive call's inclusive cost is already in the function's own costs. */
    if (caller != callee) {
        from->counter1_total = lg_sat_add(from->counter1_total, counter(r, 0));
        from->counter2_total = lg_sat_add(from->counter2_total, counter(r, 1));
    }
    if (r->call_count > 0 || any_cost(r))
        r->ran[caller] = r->ran[callee] = 1;
    if (r->addr_col >= 0)
        note_pc(from, r->pos[r->addr_col]);
    r->call_pending = false;
    return LG_OK;
}

/* SubPositionList Costs?: the line after calls= (the call site and the call's inclusive cost),
 * or a regular line (self cost at a position). */
static lg_err_t cost_line(reader_t *r, lg_span_t line)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    if (!r->have_events)
        return LG_FAIL_LINE(
            r, LG_EFORMAT, r->src->line,
            "expected an 'events:' header line before the first cost line, found '%s'",
            QUOTE(line, q));
    if (r->fn_name == NONE)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected 'fn=' before the first cost line, found '%s'",
                            QUOTE(line, q));
    lg_span_t rest = line, tok;
    for (size_t i = 0; i < r->npos; i++) {
        if (!lg_span_next_word(&rest, &tok))
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                                "expected %zu subpositions (positions: %s), found %zu", r->npos,
                                r->positions_text, i);
        LG_CHECK(subposition(r, tok, r->last[i], &r->pos[i]));
    }
    size_t n = 0;
    while (lg_span_next_word(&rest, &tok)) {
        uint64_t v = 0;
        lg_number_status_t st = parse_number(tok, &v);
        if (st != LG_NUMBER_OK)
            return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line, "cost '%s' %s", QUOTE(tok, q),
                                st == LG_NUMBER_BAD ? "is not a number"
                                                    : "does not fit in 64 bits");
        if (n < r->nevents)
            r->values[n] = v;
        n++;
    }
    if (n > r->nevents)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected at most %zu cost numbers (events: %s), found %zu", r->nevents,
                            r->events_text, n);
    /* Fewer numbers than events: the rest are 0. */
    for (size_t i = n; i < r->nevents; i++)
        r->values[i] = 0;
    memcpy(r->last, r->pos, sizeof r->last);
    if (r->jump_pending)
        LG_CHECK(finish_jump(r));
    return r->call_pending ? call_cost(r) : self_cost(r);
}

static bool is_key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || lg_is_digit(c) || c == '_';
}

static lg_err_t read_line(reader_t *r)
{
    char q[LG_QUOTE_BUFFER(QUOTE_BYTES)];
    char *s = r->line;
    size_t n = r->len;
    while (n > 0 && lg_is_blank(*s)) {
        s++;
        n--;
    }
    while (n > 0 && lg_is_blank(s[n - 1]))
        n--;
    s[n] = '\0'; /* names run to the end of the line */
    lg_span_t line = {s, n};
    if (n == 0 || s[0] == '#')
        return LG_OK;
    if (lg_is_digit(s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '*')
        return cost_line(r, line);
    if (r->call_pending)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected a cost line after calls= on line %" PRIu64 ", found '%s'",
                            r->call_line, QUOTE(line, q));
    if (r->jump_pending)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                            "expected the jump's source position line after %s= on line %" PRIu64
                            ", found '%s'",
                            r->jump_key, r->jump_line_no, QUOTE(line, q));
    size_t k = 0;
    while (k < n && is_key_char(s[k]))
        k++;
    if (k > 0 && k < n && !lg_is_digit(s[0]) && (s[k] == '=' || s[k] == ':')) {
        lg_span_t key = {s, k};
        lg_span_t value = lg_span_skip_blanks((lg_span_t){s + k + 1, n - k - 1});
        return s[k] == '=' ? spec_line(r, key, value) : header_line(r, key, value);
    }
    return LG_FAIL_LINE(r, LG_EFORMAT, r->src->line,
                        "expected a header line (KEY: value), a name or call line (KEY=value) or a "
                        "cost line, found '%s'",
                        QUOTE(line, q));
}

/* ---- Loading ----------------------------------------------------------------------------- */

static const char *const known_units[] = {
    "Ir",   "Dr",     "Dw",           "I1mr",    "D1mr",  "D1mw",    "ILmr",       "DLmr",
    "DLmw", "I2mr",   "D2mr",         "D2mw",    "Bc",    "Bcm",     "Bi",         "Bim",
    "Ge",   "Cycles", "Instructions", "samples", "ticks", "sysTime", "sysCpuTime",
};

/* out->counter1_unit must be static: a known event name as a literal, else "events". */
static const char *unit_of(const char *event)
{
    for (size_t i = 0; i < sizeof known_units / sizeof known_units[0]; i++)
        if (strcmp(known_units[i], event) == 0)
            return known_units[i];
    return "events";
}

static lg_err_t read_profile(reader_t *r)
{
    lg_profile_t *out = r->out;
    if (lg_profile_set_path(out, r->src->path) != LG_OK)
        return lg_diag_fail(r->src->d, LG_ENOMEM, r->src->path, "out of memory");
    out->format = "callgrind";
    out->kind = LG_PROFILE_TRACE;
    reset_place(r);
    r->npos = 1; /* "positions:" defaults to line */
    r->line_col = 0;
    r->addr_col = -1;
    snprintf(r->positions_text, sizeof r->positions_text, "line");
    r->counter_col[0] = r->counter_col[1] = -1;
    for (;;) {
        bool got;
        LG_CHECK(lg_source_next_line(r->src, &line_rules, &r->line, &r->len, &got));
        if (!got)
            break;
        LG_CHECK(read_line(r));
    }
    if (r->call_pending)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->call_line,
                            "expected a cost line after calls=, found the end of the file");
    if (r->jump_pending)
        return LG_FAIL_LINE(r, LG_EFORMAT, r->jump_line_no,
                            "expected the jump's source position line after %s=, found the end of "
                            "the file",
                            r->jump_key);
    if (!r->have_events)
        return lg_diag_fail(r->src->d, LG_EFORMAT, r->src->path,
                            "expected an 'events:' header line, found none in %" PRIu64 " lines",
                            r->src->line);
    LG_CHECK(check_part(r, r->src->line, true));

    /* A function that ran but was never called by a recorded call (main, a thread start, code
     * run before collection began): hits 1, "ran, count unknown". */
    for (size_t i = 0; i < out->nfuncs; i++)
        if (out->funcs[i].hits == 0 && r->ran[i])
            out->funcs[i].hits = 1;
    out->has_call_edges = out->call_records > 0;
    out->counter1_unit = r->counter_names[0] != NULL ? unit_of(r->counter_names[0]) : NULL;
    out->cost_positions = out->ncosts > 0 ? r->pos_kind : LG_POS_NONE;
    /* Jumps go with instruction addresses (lg_profile_t.jumps): a file whose costs are by line
     * (its first part had no instr) or that has none keeps no jumps. */
    if (out->cost_positions != LG_POS_ADDRESS) {
        free(out->jumps);
        out->jumps = NULL;
        out->njumps = out->jumps_cap = 0;
    }
    lg_profile_finish_edges(out);
    return LG_OK;
}

/* Warnings wait until the file has loaded: a failed load reports its one error alone. */
static void report_warnings(const reader_t *r)
{
    if (r->unknown_lines > 0)
        WARN_AT(r, r->first_unknown_line,
                "%" PRIu64 " line(s) with keys lorgen does not know were skipped, first '%s'",
                r->unknown_lines, r->first_unknown_key);
    if (r->apostrophe_funcs > 0)
        WARN_AT(r, 0,
                "%" PRIu64 " function name(s) contain an apostrophe that is not a recursion "
                "suffix (callgrind --separate-callers contexts?), kept whole, first '%s'",
                r->apostrophe_funcs, r->out->funcs[r->first_apostrophe_func].name);
    if (r->undefined_objects > 0)
        WARN_AT(r, r->first_undefined_object,
                "%" PRIu64 " object id(s) used without a '(N) name' definition, named by their "
                "ids",
                r->undefined_objects);
    if (r->unplaced_costs > 0)
        WARN_AT(r, r->first_unplaced_line,
                "%" PRIu64 " cost line(s) lack the %s position of earlier parts; their costs "
                "count in the totals only",
                r->unplaced_costs, r->pos_kind == LG_POS_ADDRESS ? "instr" : "line");
}

static void reader_destroy(reader_t *r)
{
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    lg_strmap_destroy(&r->name_index);
    for (size_t i = 0; i < TABLES; i++)
        lg_intmap_destroy(&r->ids[i]);
    lg_intmap_destroy(&r->func_of);
    lg_intmap_destroy(&r->position_no);
    lg_intmap_destroy(&r->cost_of);
    free(r->ran);
    free(r->values);
    free(r->counter_names[0]);
    free(r->counter_names[1]);
}

lg_err_t lg_callgrind_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out)
{
    (void)options;
    reader_t r = {.src = src, .out = out};
    lg_strmap_init(&r.name_index);
    lg_err_t err = read_profile(&r);
    if (err == LG_OK)
        report_warnings(&r);
    reader_destroy(&r);
    return err;
}

/* ---- Detection --------------------------------------------------------------------------- */

/* The line of head starting at *at, trimmed of trailing spaces and "\r"; *at moves past it. A
 * line cut off by the end of head counts as it is. */
static lg_span_t probe_line(const uint8_t *head, size_t len, size_t *at)
{
    const char *s = (const char *)head + *at;
    size_t n = 0;
    while (*at + n < len && s[n] != '\n')
        n++;
    *at += n + (*at + n < len ? 1 : 0);
    while (n > 0 && (lg_is_blank(s[n - 1]) || s[n - 1] == '\r'))
        n--;
    return (lg_span_t){s, n};
}

static bool starts_with(lg_span_t t, const char *prefix)
{
    size_t n = strlen(prefix);
    return t.n >= n && memcmp(t.s, prefix, n) == 0;
}

bool lg_callgrind_probe(const uint8_t *head, size_t len)
{
    if (head == NULL)
        return false;
    size_t at = 0;
    if (len >= UTF8_BOM_LEN && memcmp(head, UTF8_BOM, UTF8_BOM_LEN) == 0)
        at = UTF8_BOM_LEN;
    lg_span_t first = probe_line(head, len, &at);
    if (lg_span_is(first, "# callgrind format"))
        return true;
    /* Older callgrind (and other writers of the format) start with the version line. */
    if (!starts_with(first, "version:") ||
        !lg_span_is(lg_span_skip_blanks((lg_span_t){first.s + 8, first.n - 8}), "1"))
        return false;
    while (at < len) {
        lg_span_t line = probe_line(head, len, &at);
        if (starts_with(line, "creator: callgrind") || starts_with(line, "events:") ||
            starts_with(line, "positions:"))
            return true;
    }
    return false;
}
