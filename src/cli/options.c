/* options.c - the option table, the parser and the help that come from it (options.h).
 *
 * Each row of `options` is one option: its names, the word its value shows as in the help (none
 * for a flag), its help and default, the handler that sets its field, and the commands that use
 * it. The parser finds a word in the table, takes the value when the row has one (--name=value
 * or --name value), and calls the handler; once the command is known it refuses any option its
 * row does not give to that command. The help prints the rows in table order under their section
 * headings, then which command takes which option.
 */
#include "options.h"

#include "algorithms.h"
#include "clique.h"
#include "outfile.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Largest --weight: beyond it a profile's counts would saturate the 64-bit counters. */
#define LG_WEIGHT_MAX 1e6

/* Bytes in one unit of a size suffix. */
#define LG_KIB 1024ull
#define LG_MIB (1024ull * 1024ull)

/* Longest option name the parser looks up; a longer --name=value is an unknown option. */
#define LG_OPTION_NAME_MAX 64

/* The column the help of an option starts in; a longer head is followed by two spaces. */
#define LG_HELP_COLUMN 25

/* The parser's state between words: what applies to the next profile. */
typedef struct parser {
    lg_cli_options_t *o;
    const char *pending_format;      /* --format given, no profile yet */
    double pending_weight;           /* --weight given, no profile yet; 0: none */
    const char *pending_weight_text; /* pending_weight as given */
} parser_t;

typedef struct option option_t;

/* Applies one option. name is the spelling given ("-n" or "--rows"), value its value (NULL for
 * a flag). Returns LG_CLI_RUN to go on, or the status that ends parsing. */
typedef lg_cli_status_t (*handler_t)(parser_t *p, const option_t *opt, const char *name,
                                     const char *value);

struct option {
    const char *section;  /* the heading that starts before it in the help, or NULL */
    const char *names[2]; /* as typed: "-o", "--output"; the help shows both */
    const char *alias;    /* also accepted, named only in the help text ("--ld"), or NULL */
    const char *value;    /* its value in the help ("FILE", "N"); NULL: a flag */
    const char *help;     /* lines after the first are indented under it; a trailing newline
                             puts the default on a line of its own */
    const char *fallback; /* shown as "[default: ...]", or NULL */
    /* Its entry in the manual page (lg_cli_write_manual): lines of prose in which `code` is set
     * in bold and <ARG> in italics; NULL for a row without help. */
    const char *manual;
    handler_t apply;
    size_t field; /* offsetof the field in lg_cli_options_t the handler sets */
    int arg;      /* for the handler: the verbosity -q and -v set */
    /* The commands that use it, one COMMAND bit each: any other refuses it as a usage error,
     * since an option a command ignores would be a request silently dropped. */
    unsigned commands;
    bool orders;      /* shapes the order lorgen computes: eval --lor, which computes none,
                         refuses it */
    bool per_profile; /* applies to the next profile: once per profile, not once per run */
    bool repeatable;  /* each time given adds a rule (--include, --exclude) */
};

/* The bit of command c in option_t.commands. */
#define COMMAND(c) (1u << (c))
/* Every command: -q, -v, -h and --version. */
#define ALL_COMMANDS (COMMAND(LG_CLI_COMMANDS) - 1)
/* The commands that write a .LOR's linker outputs. */
#define LINKING_COMMANDS (COMMAND(LG_CLI_OPTIMIZE) | COMMAND(LG_CLI_SCRIPT))
/* The commands that propose an order and judge it in a cache. */
#define ORDERING_COMMANDS (COMMAND(LG_CLI_OPTIMIZE) | COMMAND(LG_CLI_EVAL))
/* The commands that read profiles. */
#define PROFILE_COMMANDS (ORDERING_COMMANDS | COMMAND(LG_CLI_CALLGRAPH))

/* ---- Errors ---------------------------------------------------------------------------------- */

static lg_cli_status_t usage(lg_cli_options_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static lg_cli_status_t record(char **error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records a usage error in *error; returns LG_CLI_USAGE (LG_CLI_NOMEM if it cannot). */
static lg_cli_status_t vrecord(char **error, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    free(*error);
    *error = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (*error != NULL)
        vsnprintf(*error, (size_t)n + 1, fmt, again);
    va_end(again);
    return *error == NULL ? LG_CLI_NOMEM : LG_CLI_USAGE;
}

static lg_cli_status_t record(char **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lg_cli_status_t s = vrecord(error, fmt, ap);
    va_end(ap);
    return s;
}

/* Records a usage error in o->error; returns LG_CLI_USAGE (LG_CLI_NOMEM if it cannot). */
static lg_cli_status_t usage(lg_cli_options_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lg_cli_status_t s = vrecord(&o->error, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- Handlers -------------------------------------------------------------------------------- */

static void *field(parser_t *p, const option_t *opt)
{
    return (char *)p->o + opt->field;
}

/* A file or other name: an empty one would be found only once the inputs are read (an output
 * cannot be made, an event never matches), so it is refused here. */
static lg_cli_status_t set_string(parser_t *p, const option_t *opt, const char *name,
                                  const char *value)
{
    if (*value == '\0')
        return usage(p->o, "%s: expected %s, found an empty string", name,
                     strcmp(opt->value, "FILE") == 0 ? "a file name" : "a name");
    *(const char **)field(p, opt) = value;
    return LG_CLI_RUN;
}

/* One more selection rule (select.h): arg 1 --include, 0 --exclude. */
static lg_cli_status_t add_select(parser_t *p, const option_t *opt, const char *name,
                                  const char *value)
{
    if (*value == '\0')
        return usage(p->o, "%s: expected a pattern, found an empty string", name);
    lg_select_rule_t *grown =
        realloc(p->o->select, (p->o->nselect + 1) * sizeof *p->o->select);
    if (grown == NULL)
        return LG_CLI_NOMEM;
    p->o->select = grown;
    p->o->select[p->o->nselect++] = (lg_select_rule_t){opt->arg == 1, value};
    return LG_CLI_RUN;
}

static lg_cli_status_t clear_flag(parser_t *p, const option_t *opt, const char *name,
                                  const char *value)
{
    (void)name, (void)value;
    *(bool *)field(p, opt) = false;
    return LG_CLI_RUN;
}

static lg_cli_status_t set_verbosity(parser_t *p, const option_t *opt, const char *name,
                                     const char *value)
{
    (void)name, (void)value;
    p->o->verbosity = opt->arg;
    return LG_CLI_RUN;
}

static lg_cli_status_t show_help(parser_t *p, const option_t *opt, const char *name,
                                 const char *value)
{
    (void)p, (void)opt, (void)name, (void)value;
    return LG_CLI_HELP;
}

static lg_cli_status_t show_version(parser_t *p, const option_t *opt, const char *name,
                                    const char *value)
{
    (void)p, (void)opt, (void)name, (void)value;
    return LG_CLI_VERSION;
}

/* What parse_whole found. */
typedef enum whole {
    WHOLE,        /* digits whose value fits 64 bits */
    NOT_WHOLE,    /* no digit first: a sign, a space, a letter or nothing */
    WHOLE_TOO_BIG /* digits whose value does not fit 64 bits */
} whole_t;

/* Parses the digits text starts with; *end is where they end. */
static whole_t parse_whole(const char *text, unsigned long long *v, char **end)
{
    /* strtoull would also take spaces, a sign, and a minus that wraps around. */
    if (*text < '0' || *text > '9') {
        *end = (char *)text;
        return NOT_WHOLE;
    }
    errno = 0;
    *v = strtoull(text, end, 10);
    return errno == ERANGE ? WHOLE_TOO_BIG : WHOLE;
}

/* A byte count: digits with an optional K/M (KiB/MiB) suffix, from 1 to UINT32_MAX bytes. */
static lg_cli_status_t parse_bytes(parser_t *p, const char *name, const char *value, uint32_t *out)
{
    char *end;
    unsigned long long v;
    whole_t found = parse_whole(value, &v, &end);
    if (found == NOT_WHOLE)
        return usage(p->o, "%s: expected a number of bytes, found '%s'", name, value);
    unsigned long long unit = 1;
    if (*end == 'K' || *end == 'k') {
        unit = LG_KIB;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        unit = LG_MIB;
        end++;
    }
    if (strcmp(end, "") != 0 && strcmp(end, "iB") != 0 && strcmp(end, "B") != 0)
        return usage(p->o, "%s: expected a number with an optional K or M suffix, found '%s'", name,
                     value);
    /* Compared before multiplying: the product could wrap around 64 bits. */
    if (found == WHOLE_TOO_BIG || v == 0 || v > UINT32_MAX / unit)
        return usage(p->o, "%s: %s is out of range: expected 1 to %" PRIu32 " bytes", name, value,
                     UINT32_MAX);
    *out = (uint32_t)(v * unit);
    return LG_CLI_RUN;
}

static lg_cli_status_t set_size(parser_t *p, const option_t *opt, const char *name,
                                const char *value)
{
    lg_cli_status_t s = parse_bytes(p, name, value, (uint32_t *)field(p, opt));
    if (s == LG_CLI_RUN)
        p->o->geometry_given = true;
    return s;
}

/* Longest headroom, in percent: a region kept entirely free holds nothing. */
#define LG_FAST_HEADROOM_MAX 99.0

/* --fast-region NAME=SIZE[,headroom=P%]: one more region, filled after those before it. */
static lg_cli_status_t add_fast_region(parser_t *p, const option_t *opt, const char *name,
                                       const char *value)
{
    (void)opt;
    const char *eq = strchr(value, '=');
    if (eq == NULL || eq == value)
        return usage(p->o, "%s: expected NAME=SIZE[,headroom=P%%], found '%s'", name, value);
    for (size_t i = 0; i < p->o->nfast; i++)
        if (strlen(p->o->fast[i].name) == (size_t)(eq - value) &&
            strncmp(p->o->fast[i].name, value, (size_t)(eq - value)) == 0)
            return usage(p->o, "%s: region '%s' is given twice", name, p->o->fast[i].name);
    char size_text[32];
    const char *comma = strchr(eq + 1, ',');
    size_t size_len = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
    if (size_len == 0 || size_len >= sizeof size_text)
        return usage(p->o, "%s: expected a number of bytes after '=', found '%s'", name, eq + 1);
    memcpy(size_text, eq + 1, size_len);
    size_text[size_len] = '\0';
    uint32_t size;
    lg_cli_status_t s = parse_bytes(p, name, size_text, &size);
    if (s != LG_CLI_RUN)
        return s;
    double headroom = 0.0;
    if (comma != NULL) {
        const char *h = comma + 1;
        char *end;
        if (strncmp(h, "headroom=", 9) != 0)
            return usage(p->o, "%s: expected 'headroom=P%%' after the size, found '%s'", name, h);
        errno = 0;
        headroom = strtod(h + 9, &end);
        if (end == h + 9 || errno != 0 || strcmp(end, "%") != 0 || !(headroom >= 0.0) ||
            headroom > LG_FAST_HEADROOM_MAX)
            return usage(p->o, "%s: expected headroom=P%% with P from 0 to %g, found '%s'", name,
                         LG_FAST_HEADROOM_MAX, h);
    }
    lg_cli_fast_region_t *grown = realloc(p->o->fast, (p->o->nfast + 1) * sizeof *p->o->fast);
    if (grown == NULL)
        return LG_CLI_NOMEM;
    p->o->fast = grown;
    char *region = strndup(value, (size_t)(eq - value));
    if (region == NULL)
        return LG_CLI_NOMEM;
    p->o->fast[p->o->nfast++] = (lg_cli_fast_region_t){region, size, headroom, NULL};
    return LG_CLI_RUN;
}

/* --fast-include FILE or NAME=FILE: matched to the regions once every option is read. */
static lg_cli_status_t add_fast_include(parser_t *p, const option_t *opt, const char *name,
                                        const char *value)
{
    (void)opt;
    if (*value == '\0')
        return usage(p->o, "%s: expected a file name, found an empty string", name);
    if (p->o->nfast_includes == LG_CLI_FAST_INCLUDES_MAX)
        return usage(p->o, "%s: more than %u files (LG_CLI_FAST_INCLUDES_MAX)", name,
                     LG_CLI_FAST_INCLUDES_MAX);
    const char **grown = realloc(p->o->fast_includes,
                                 (p->o->nfast_includes + 1) * sizeof *p->o->fast_includes);
    if (grown == NULL)
        return LG_CLI_NOMEM;
    p->o->fast_includes = grown;
    p->o->fast_includes[p->o->nfast_includes++] = value;
    return LG_CLI_RUN;
}

size_t lg_cli_fast_include_region(const char *v, const char *const *names, size_t n,
                                  size_t nincludes, const char **file)
{
    const char *eq = strchr(v, '=');
    for (size_t k = 0; eq != NULL && k < n; k++)
        if (strlen(names[k]) == (size_t)(eq - v) && strncmp(names[k], v, (size_t)(eq - v)) == 0) {
            *file = eq + 1;
            return k;
        }
    if (n == 1 && (eq == NULL || nincludes == 1)) {
        *file = v;
        return 0;
    }
    return SIZE_MAX;
}

/* Gives each --fast-include to its region (lg_cli_fast_include_region). */
static lg_cli_status_t match_fast_includes(lg_cli_options_t *o)
{
    const char **names = malloc((o->nfast ? o->nfast : 1) * sizeof *names);
    if (names == NULL)
        return LG_CLI_NOMEM;
    for (size_t k = 0; k < o->nfast; k++)
        names[k] = o->fast[k].name;
    lg_cli_status_t s = LG_CLI_RUN;
    for (size_t i = 0; i < o->nfast_includes && s == LG_CLI_RUN; i++) {
        const char *v = o->fast_includes[i], *file = NULL;
        size_t k = lg_cli_fast_include_region(v, names, o->nfast, o->nfast_includes, &file);
        if (k == SIZE_MAX)
            s = usage(o,
                      "--fast-include: '%s' names no --fast-region: expected FILE with one "
                      "region, or NAME=FILE for a region NAME",
                      v);
        else if (*file == '\0')
            s = usage(o, "--fast-include: expected a file name after '=', found nothing");
        else if (o->fast[k].include != NULL)
            s = usage(o, "--fast-include: region '%s' is given two files", o->fast[k].name);
        else
            o->fast[k].include = file;
    }
    free(names);
    return s;
}

/* A whole number, no suffix, from min to max; unit follows the range in the error (" ways"). */
static lg_cli_status_t parse_count(parser_t *p, const char *name, const char *value,
                                   unsigned long long min, unsigned long long max, const char *unit,
                                   unsigned long long *v)
{
    char *end;
    whole_t found = parse_whole(value, v, &end);
    if (found == NOT_WHOLE || *end != '\0')
        return usage(p->o, "%s: expected a whole number, found '%s'", name, value);
    if (found == WHOLE_TOO_BIG || *v < min || *v > max)
        return usage(p->o, "%s: %s is out of range: expected %llu to %llu%s", name, value, min, max,
                     unit);
    return LG_CLI_RUN;
}

static lg_cli_status_t set_count(parser_t *p, const option_t *opt, const char *name,
                                 const char *value)
{
    unsigned long long v;
    lg_cli_status_t status = parse_count(p, name, value, 0, SIZE_MAX, "", &v);
    if (status == LG_CLI_RUN)
        *(size_t *)field(p, opt) = (size_t)v;
    return status;
}

/* A count of cache ways: from 1 to UINT32_MAX, no suffix (a way is not a number of bytes). */
static lg_cli_status_t set_ways(parser_t *p, const option_t *opt, const char *name,
                                const char *value)
{
    unsigned long long v;
    lg_cli_status_t status = parse_count(p, name, value, 1, UINT32_MAX, " ways", &v);
    if (status == LG_CLI_RUN) {
        *(uint32_t *)field(p, opt) = (uint32_t)v;
        p->o->geometry_given = true;
    }
    return status;
}

static lg_cli_status_t set_bin_version(parser_t *p, const option_t *opt, const char *name,
                                       const char *value)
{
    (void)opt, (void)name;
    if (strcmp(value, "1.0") == 0)
        p->o->load.bin_version = 10;
    else if (strcmp(value, "1.1") == 0)
        p->o->load.bin_version = 11;
    else
        return usage(p->o, "--bin-version: expected 1.0 or 1.1, found '%s'", value);
    return LG_CLI_RUN;
}

static lg_cli_status_t set_algorithm(parser_t *p, const option_t *opt, const char *name,
                                     const char *value)
{
    (void)opt, (void)name;
    size_t n;
    const char *const *names = lg_algorithm_names(&n);
    for (size_t k = 0; k < n; k++) {
        if (strcmp(names[k], value) == 0) {
            p->o->algorithm = value;
            p->o->algorithm_given = true;
            return LG_CLI_RUN;
        }
    }
    /* The list comes from the algorithms' own table, so that it names every one of them. */
    size_t len = 0;
    for (size_t k = 0; k < n; k++)
        len += strlen(names[k]) + strlen(", ");
    char *list = malloc(len + 1);
    if (list == NULL)
        return LG_CLI_NOMEM;
    list[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        if (k > 0)
            strcat(list, ", ");
        strcat(list, names[k]);
    }
    lg_cli_status_t status =
        usage(p->o, "--algorithm: unknown algorithm '%s' (expected one of: %s; %s is the default)",
              value, list, LG_DEFAULT_ALGORITHM);
    free(list);
    return status;
}

static lg_cli_status_t set_weight(parser_t *p, const option_t *opt, const char *name,
                                  const char *value)
{
    (void)opt, (void)name;
    char *end;
    errno = 0;
    double w = strtod(value, &end);
    if (end == value || *end != '\0' || errno != 0 || !(w > 0.0) || w > LG_WEIGHT_MAX)
        return usage(p->o, "--weight: expected a number above 0 and at most %g, found '%s'",
                     LG_WEIGHT_MAX, value);
    if (p->pending_weight > 0.0)
        return usage(p->o,
                     "--weight given twice before one profile (%s, then %s): give one "
                     "--weight before each profile",
                     p->pending_weight_text, value);
    p->pending_weight = w;
    p->pending_weight_text = value;
    return LG_CLI_RUN;
}

static lg_cli_status_t set_format(parser_t *p, const option_t *opt, const char *name,
                                  const char *value)
{
    (void)opt, (void)name;
    if (lg_loader_find(value) == NULL)
        return usage(p->o, "--format: unknown format '%s' (see 'lorgen formats')", value);
    if (p->pending_format != NULL)
        return usage(p->o,
                     "--format given twice before one profile (%s, then %s): give one "
                     "--format before each profile",
                     p->pending_format, value);
    p->pending_format = value;
    return LG_CLI_RUN;
}

/* ---- The table ------------------------------------------------------------------------------- */

#define FIELD(f) offsetof(lg_cli_options_t, f)
#define OUTPUT(kind) (FIELD(outputs) + (size_t)(kind) * sizeof(const char *))

/* Each option once, in the order the help shows them (a row or two per option, not a line per
 * field). */
/* clang-format off */
static const option_t options[] = {
    {.section = "Outputs:", .names = {"-o", "--output"}, .value = "FILE",
     .help = "the .LOR link-order file (callgraph: the call graph)",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_LOR),
     .commands = LINKING_COMMANDS | COMMAND(LG_CLI_CALLGRAPH),
     .manual = "The `.LOR` file (for `callgraph`: the call graph). `-` writes to standard output."},
    {.names = {"--ld-script"}, .alias = "--ld", .value = "FILE",
     .help = "GNU ld script for the default linker script: -Wl,-T,FILE\n(--ld is the same)",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_LD_SCRIPT),
     .commands = LINKING_COMMANDS,
     .manual = "A linker script to add to the default one: `gcc ... -Wl,-T,`<FILE>. It places the\n"
               "ordered functions in an output section `.text.lorgen` inserted before `.text`."},
    {.names = {"--ld-include"}, .value = "FILE",
     .help = "input-section lines to INCLUDE inside .text of a custom script",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_LD_INCLUDE),
     .commands = LINKING_COMMANDS,
     .manual = "Input-section lines to `INCLUDE` inside the `.text` output section of a custom linker\n"
               "script, after the entry code."},
    {.names = {"--fast-include"}, .value = "[NAME=]FILE",
     .help = "input-section lines of --fast-region NAME's members, to INCLUDE\n"
             "inside output section NAME of your script; may be repeated",
     .apply = add_fast_include, .commands = LINKING_COMMANDS, .repeatable = true,
     .manual = "The input-section lines of the functions `--fast-region` chose, to `INCLUDE` inside\n"
               "the region's output section of your linker script (quoted and named with their\n"
               "object files as `--ld-include` names them). <FILE> alone when there is one region;\n"
               "<NAME>`=`<FILE> for the region <NAME>. May be repeated, once per region."},
    {.names = {"--section-ordering"}, .value = "FILE",
     .help = "GNU ld 2.43+: -Wl,--section-ordering-file,FILE",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_SECTION_ORDERING),
     .commands = LINKING_COMMANDS,
     .manual = "For GNU ld 2.43 and later: `gcc ... -Wl,--section-ordering-file,`<FILE>. A\n"
               "`.text : { ... }` mapping whose lines ld puts before those of the `.text` of the\n"
               "script in use. Not for scripts whose `.text` starts with entry code (use\n"
               "`--ld-include`)."},
    {.names = {"--gold"}, .value = "FILE",
     .help = "gold: -Wl,--section-ordering-file,FILE (input-section names)",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_GOLD),
     .commands = LINKING_COMMANDS,
     .manual = "For gold: `gcc -fuse-ld=gold ... -Wl,--section-ordering-file,`<FILE>. One\n"
               "input-section name per line; same-named statics move together; padding, alignment and\n"
               "the phases chosen in the cache line (`phase=`) are lost."},
    {.names = {"--lld"}, .value = "FILE",
     .help = "lld: -Wl,--symbol-ordering-file,FILE (symbol names)",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_LLD),
     .commands = LINKING_COMMANDS,
     .manual = "For lld: `gcc -fuse-ld=lld ... -Wl,--symbol-ordering-file,`<FILE>. One symbol per\n"
               "line; same-named statics move together; padding, alignment and phases are lost."},
    {.names = {"--report"}, .value = "FILE", .help = "the clique report for people",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_REPORT),
     .commands = COMMAND(LG_CLI_OPTIMIZE),
     .manual = "The clique report, for people reviewing the order: a summary (profiles read, functions\n"
               "bound and unbound, total hits, placement's weight (self time or instructions, else\n"
               "hits), cache geometry, cliques, hot code against the cache, the replay estimate of the\n"
               "ELF's order and of the new one with what it leaves out and what it cannot tell), the\n"
               "cliques by that weight, one block per clique in link order\n"
               "(size and cache fill, hits and weight, its functions with offset, size, hits, weight,\n"
               "share, section and, for a phased one, its phase in the cache line\n"
               "(`phase +16 in the 32-byte line`), the heaviest calls inside it and across its\n"
               "boundary), the fixed groups (functions that share an input section: where each went or\n"
               "why it stays, and which member to build apart), then what was left out and why (unbound, not movable, names a linker cannot\n"
               "say). Tables are sorted by weight, capped by `-n` (the rest summed in a `[N more]`\n"
               "row) and end in a `TOTAL` line. Identical inputs give an identical report. Names are\n"
               "shown whole, on one line: \\ as \\\\; newline, carriage return and tab as \\n, \\r, \\t;\n"
               "other control characters and bytes that are not valid UTF-8 as \\xHH."},
    {.names = {"--report-html"}, .value = "FILE",
     .help = "the same as one HTML page: cache map before and after,\n"
             "sortable cliques, call graph of the hot code",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_REPORT_HTML),
     .commands = COMMAND(LG_CLI_OPTIMIZE),
     .manual = "The same as one self-contained HTML page (no network, nothing loaded from elsewhere):\n"
               "the summary; the cache map before (the ELF's addresses) and after (the new order), one\n"
               "cell per cache set, coloured by the clique of the hottest function mapped there and\n"
               "framed in black where members of one clique collide; the cliques as a table sorted by\n"
               "clicking a header, with their members (a phased one with its phase, as in `--report`)\n"
               "and calls; and the call graph of the hottest clique members, one column per clique."},
    {.names = {"--report-json"}, .value = "FILE",
     .help = "the same facts for tools (docs/report-json.md)",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_REPORT_JSON),
     .commands = COMMAND(LG_CLI_OPTIMIZE),
     .manual = "The same facts for tools, uncapped, as JSON with a `schema_version`; the fields are\n"
               "described in docs/report-json.md."},
    {.names = {"--dot"}, .value = "FILE", .help = "callgraph: the weighted call graph for Graphviz",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_DOT),
     .commands = COMMAND(LG_CLI_CALLGRAPH),
     .manual = "With `callgraph`: the weighted call graph as Graphviz DOT (see `callgraph`)."},
    {.names = {"--graphml"}, .value = "FILE",
     .help = "callgraph: the weighted call graph as GraphML (Gephi)",
     .apply = set_string, .field = OUTPUT(LG_OUTPUT_GRAPHML),
     .commands = COMMAND(LG_CLI_CALLGRAPH),
     .manual = "With `callgraph`: the weighted call graph as GraphML (see `callgraph`)."},

    {.section = "Ordering:", .names = {"--algorithm"}, .value = "NAME",
     .help = "chains (Pettis-Hansen chains of callers and callees, cut\n"
             "into cache-sized cliques), cliques (cliques grown through\n"
             "calls, then placed in the cache sets), hot-first,\n"
             "pettis-hansen (the chains uncut), c3 (lld's C3/hfsort), input\n"
             "(keep the ELF's order)",
     .fallback = "chains", .apply = set_algorithm, .commands = ORDERING_COMMANDS, .orders = true,
     .manual = "`chains` (Pettis-Hansen chains of callers and callees, cut into cliques that fit the\n"
               "cache), `cliques` (call-proximity cliques that fit the cache, then cache-aware\n"
               "placement; with a timeline, placement keeps apart the code that runs close together in\n"
               "time, which lorgen counts only for this algorithm), `c3` (lld's C3/hfsort),\n"
               "`pettis-hansen` (the chains uncut), `hot-first`, `input` (keep the ELF's order)."},
    {.names = {"--include"}, .value = "PATTERN",
     .help = "order only the functions the pattern names (a shell\n"
             "pattern matched against the symbol, the object, and an\n"
             "archive member's archive and member); may be repeated",
     .apply = add_select, .arg = 1, .commands = ORDERING_COMMANDS, .orders = true,
     .repeatable = true,
     .manual = "Order only the functions the shell pattern names: it is matched against the symbol,\n"
               "the object file's path and base name, and for an archive member `lib.a(member.o)` the\n"
               "archive's path and base name and the member. May be repeated: a function any of them\n"
               "names takes part."},
    {.names = {"--exclude"}, .value = "PATTERN",
     .help = "leave the functions the pattern names in their input order\n"
             "(after --include; a fixed group goes with any member); may\n"
             "be repeated",
     .apply = add_select, .arg = 0, .commands = ORDERING_COMMANDS, .orders = true,
     .repeatable = true,
     .manual = "Leave the functions the pattern names (matched as for `--include`, after it) in their\n"
               "input order. A fixed group, the functions of one input section, goes out whole when\n"
               "one member does. May be repeated. The report lists what was taken out, and the `.LOR`\n"
               "records the rules as `select` lines, which `lorgen script` keeps."},
    {.names = {"--fast-region"}, .value = "NAME=SIZE[,headroom=P%]",
     .help = "fill output section NAME (ITCM, on-chip RAM) of SIZE bytes\n"
             "(K, M) with the code that saves most fetch cost; its\n"
             "members leave the cache order; may be repeated",
     .apply = add_fast_region, .commands = COMMAND(LG_CLI_OPTIMIZE), .orders = true,
     .repeatable = true,
     .manual = "Choose the functions and fixed groups for a fast memory region (ITCM, TCM, on-chip\n"
               "RAM) that the user's linker script gives as output section <NAME>: those that save\n"
               "the most fetch cost (self cost, else hits) within <SIZE> bytes (a `K` or `M` suffix\n"
               "counts KiB or MiB) less `headroom=`<P>`%`, alignment padding included. Exact where\n"
               "the problem is small, else greedy by cost per byte then improved (at least half\n"
               "the best). Excluded functions, never-executed code and code that cannot move stay\n"
               "out. The members leave the cache order the other outputs list; `--fast-include`\n"
               "writes them. May be repeated: each region is filled from what the ones before\n"
               "left."},
    {.names = {"--no-place"},
     .help = "cliques: skip the cache-aware placement that moves each clique\n"
             "to the cache sets where it conflicts least with hotter ones",
     .apply = clear_flag, .field = FIELD(place), .commands = ORDERING_COMMANDS, .orders = true,
     .manual = "With `cliques`: skip the cache-aware placement, which moves each clique to the cache\n"
               "sets where it conflicts least with hotter ones (filling the gaps with never-executed\n"
               "code) and aligns the ordered code to the cache's way size."},
    {.names = {"--no-phase"},
     .help = "do not choose where inside a cache line the functions\n"
             "as large as a cache way start (chosen by default from\n"
             "callgrind's instruction costs and jumps, when given)",
     .apply = clear_flag, .field = FIELD(phase), .commands = ORDERING_COMMANDS, .orders = true,
     .manual = "Do not choose where inside a cache line a function as large as a cache way starts\n"
               "(larger, or so nearly as large that at some start it spans one line more than a way\n"
               "holds). By default, when a profile gives per-instruction costs and taken jumps\n"
               "(callgrind with `--dump-instr=yes --collect-jumps=yes`), lorgen replays each such\n"
               "function's instructions into a cache holding it alone at every start its alignment\n"
               "allows inside a line, and pads the function to the start where its own lines evict\n"
               "each other least (the `.LOR`'s `phase=`; GNU ld scripts only)."},
    {.names = {"--no-safeguard"},
     .help = "write the new layout even when the cache model\n"
             "predicts it to miss more than the linked ELF's order (by\n"
             "default the input order is then kept, with a warning)",
     .apply = clear_flag, .field = FIELD(safeguard), .commands = ORDERING_COMMANDS,
     .orders = true,
     .manual = "Write the new layout even when the cache model predicts it to miss more than the\n"
               "linked program's own order. By default, when a linked program is among the inputs and\n"
               "its order is predicted to miss at least 2% less, lorgen keeps that order: it warns,\n"
               "the `.LOR` says `algorithm input-kept` and lists no cliques, and the linker outputs\n"
               "order nothing. When that happens to the default's chains (no `--algorithm` given),\n"
               "lorgen first tries `c3`'s order under the same check, and proposes it, with a note,\n"
               "when it is not predicted to miss more. In a cache of 4 ways or more the input order is\n"
               "also kept when the model predicts no conflict misses for it (a fully-associative cache\n"
               "of the same size would miss as much)."},

    {.section = "Cache geometry (default: SH-4, 8K, 32-byte lines, direct-mapped):",
     .names = {"--cache-size"}, .value = "N", .help = "bytes; K and M suffixes accepted",
     .fallback = "8K", .apply = set_size, .field = FIELD(geometry.cache_size),
     .commands = ORDERING_COMMANDS,
     .manual = "Cache size in bytes; K and M suffixes are accepted."},
    {.names = {"--line-size"}, .value = "N", .help = "bytes", .fallback = "32", .apply = set_size,
     .field = FIELD(geometry.line_size), .commands = ORDERING_COMMANDS,
     .manual = "Cache line size in bytes, a power of two."},
    {.names = {"--ways"}, .value = "N", .help = "associativity", .fallback = "1",
     .apply = set_ways, .field = FIELD(geometry.ways), .commands = ORDERING_COMMANDS,
     .manual = "Associativity (1: direct-mapped)."},

    {.section = "Inputs:", .names = {"--format"}, .value = "NAME",
     .help = "read the next profile as NAME (see `lorgen formats`)", .apply = set_format,
     .commands = PROFILE_COMMANDS, .per_profile = true,
     .manual = "Read the next profile as <NAME> instead of detecting its format."},
    {.names = {"--weight"}, .value = "W", .help = "count the next profile W times when merging",
     .fallback = "1", .apply = set_weight, .commands = PROFILE_COMMANDS, .per_profile = true,
     .manual = "Count the next profile <W> times when profiles are merged."},
    {.names = {"--event"}, .value = "NAME",
     .help = "perf script: read only this event when several are\n"
             "interleaved",
     .fallback = "the first one seen", .apply = set_string, .field = FIELD(load.event),
     .commands = PROFILE_COMMANDS,
     .manual = "For `perf script` text with several interleaved events: read only <NAME>; the events\n"
               "of the others are counted in a warning."},
    {.names = {"--bin-version"}, .value = "V",
     .help = "winIDEA binary timeline (.BIN) layout, 1.0 or 1.1\n",
     .fallback = "detected from the records", .apply = set_bin_version,
     .commands = PROFILE_COMMANDS,
     .manual = "For winIDEA profiler exports whose timeline is in a binary file next to them\n"
               "(<EXPORT>`.BIN`): its record layout, `1.0` or `1.1`; docs/loaders/winidea-bin.md has\n"
               "the rule that detects it. Any other value is a usage error."},
    {.names = {"--perturb"}, .value = "SEED",
     .help = "a robustness check: multiply every hit, self cost and call\n"
             "weight by a factor in [0.95, 1.05] drawn from SEED (1 or\n"
             "more), to see how much the layout hangs on small differences\n"
             "between profiles; not a layout to ship",
     .fallback = "0", .apply = set_count, .field = FIELD(perturb),
     .commands = COMMAND(LG_CLI_OPTIMIZE),
     .manual = "A robustness check: multiply every hit, self cost and call weight by a factor in\n"
               "[0.95, 1.05] drawn from <SEED> (1 or more; 0 is none), and warn. Layouts of several\n"
               "seeds show how much the order hangs on small differences between profiles; do not ship\n"
               "one."},
    {.names = {"--no-normalize"},
     .help = "merge profiles as read; by default each is first scaled to\n"
             "the largest one's volume, so a long run does not drown a\n"
             "short one",
     .apply = clear_flag, .field = FIELD(normalize), .commands = PROFILE_COMMANDS,
     .manual = "Merge profiles as read. By default each profile is first scaled to the volume (sum of\n"
               "hits) of the largest one, so that a long run does not drown a short one; the report\n"
               "says how each profile was scaled."},

    {.section = "Other:", .names = {"-n", "--rows"}, .value = "N",
     .help = "rows per table in the report, 0 for all", .fallback = "10", .apply = set_count,
     .field = FIELD(rows), .commands = COMMAND(LG_CLI_OPTIMIZE),
     .manual = "Rows per table in the text and HTML reports; 0 for all."},
    {.names = {"-q", "--quiet"}, .help = "errors, and warnings that an input adds nothing",
     .apply = set_verbosity, .arg = 0, .commands = ALL_COMMANDS,
     .manual = "Print errors, and the warnings that an input adds nothing to the order (a profile in\n"
               "which every count is 0)."},
    {.names = {"-v", "--verbose"},
     .help = "also progress and statistics\n"
             "(on a terminal, long loads always show how far they got)",
     .apply = set_verbosity, .arg = 2, .commands = ALL_COMMANDS,
     .manual = "Also print progress."},
    {.names = {"-h", "--help"}, .help = "this text", .apply = show_help,
     .commands = ALL_COMMANDS,
     .manual = "Print the help, which ends with the list of the options each command takes, and exit."},
    {.names = {"--version"}, .help = "the version", .apply = show_version,
     .commands = ALL_COMMANDS,
     .manual = "Print the version and exit."},
    /* eval: the order to estimate; not in the help, whose usage lines name it. */
    {.names = {"--lor"}, .value = "FILE", .apply = set_string, .field = FIELD(lor),
     .commands = COMMAND(LG_CLI_EVAL)},
};
/* clang-format on */

enum { NOPTIONS = sizeof options / sizeof *options };

/* The row of the option called name, or NULL; *spelling is the row's own copy of name. */
static const option_t *find_option(const char *name, const char **spelling)
{
    for (size_t i = 0; i < NOPTIONS; i++) {
        const option_t *opt = &options[i];
        for (size_t k = 0; k < 2; k++) {
            if (opt->names[k] != NULL && strcmp(name, opt->names[k]) == 0) {
                *spelling = opt->names[k];
                return opt;
            }
        }
        if (opt->alias != NULL && strcmp(name, opt->alias) == 0) {
            *spelling = opt->alias;
            return opt;
        }
    }
    return NULL;
}

const char *lg_cli_output_option(lg_output_t kind)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].field == OUTPUT(kind))
            return options[i].names[0];
    return NULL;
}

/* ---- Commands -------------------------------------------------------------------------------- */

static const char *const command_names[] = {
    [LG_CLI_SCRIPT] = "script", [LG_CLI_CALLGRAPH] = "callgraph", [LG_CLI_FORMATS] = "formats",
    [LG_CLI_EVAL] = "eval",     [LG_CLI_CHECK] = "check",
};

/* The command word names, or LG_CLI_OPTIMIZE when it names none. */
static lg_cli_command_t find_command(const char *word)
{
    for (size_t i = 0; i < sizeof command_names / sizeof *command_names; i++)
        if (command_names[i] != NULL && strcmp(word, command_names[i]) == 0)
            return (lg_cli_command_t)i;
    return LG_CLI_OPTIMIZE;
}

/* The command's word, or "the main command", for messages. */
static const char *command_title(lg_cli_command_t c)
{
    return c == LG_CLI_OPTIMIZE ? "the main command" : command_names[c];
}

/* ---- Help ------------------------------------------------------------------------------------ */

static const char usage_lines[] =
    "usage: lorgen [options] PROFILE... ELF... -o OUT.lor [LINKER OUTPUTS] [--report F]\n"
    "       lorgen script FILE.lor ELF... [LINKER OUTPUTS]\n"
    "       lorgen check FILE.lor RELINKED-ELF [OBJECTS...]\n"
    "       lorgen callgraph PROFILE... [ELF...] [-o FILE] [--dot F] [--graphml F]\n"
    "       lorgen eval PROFILE... ELF... [--lor FILE]\n"
    "       lorgen formats\n"
    "\n"
    "Reads profiles and the program's ELF (linked executable and/or its object files and\n"
    "archives) and writes the link order that keeps functions calling each other together in\n"
    "the instruction cache.\n"
    "\n";

/* The widest line of the list of each command's options, in columns: with the manual page's indent
 * of 7 it still fits an 80-column terminal. */
#define LG_HELP_WIDTH 72

/* The column a command's options start in, in that list. */
#define LG_HELP_COMMAND_COLUMN 16

/* Writes text as it is, or for the manual page (roff) with its backslashes and minus signs
 * escaped. */
static void put_text(FILE *out, const char *text, bool roff)
{
    for (const char *c = text; *c != '\0'; c++) {
        if (roff && *c == '\\')
            fputs("\\e", out);
        else if (roff && *c == '-')
            fputs("\\-", out);
        else
            fputc(*c, out);
    }
}

/* Under the options: which command takes which, from the table's commands column, so that the
 * help says exactly what the parser refuses. eval --lor is a line of its own: it computes no
 * order, so it takes none of the options that shape one. */
static void write_command_options(FILE *out, bool roff)
{
    static const struct {
        const char *label;
        unsigned commands; /* the options whose commands meet these */
        bool lor;          /* eval --lor: not the options that shape an order */
    } lines[] = {
        {"lorgen", COMMAND(LG_CLI_OPTIMIZE), false},
        {"script", COMMAND(LG_CLI_SCRIPT), false},
        {"check", COMMAND(LG_CLI_CHECK), false},
        {"callgraph", COMMAND(LG_CLI_CALLGRAPH), false},
        {"eval", COMMAND(LG_CLI_EVAL), false},
        {"eval --lor", COMMAND(LG_CLI_EVAL), true},
        {"formats", COMMAND(LG_CLI_FORMATS), false},
        {"all commands", ALL_COMMANDS, false},
    };
    if (!roff)
        fputs("\nWhich command takes which option (any other is a usage error):\n", out);
    for (size_t l = 0; l < sizeof lines / sizeof *lines; l++) {
        fputs("  ", out);
        put_text(out, lines[l].label, roff);
        int label = 2 + (int)strlen(lines[l].label);
        int column = label + fprintf(out, "%*s", LG_HELP_COMMAND_COLUMN - label, "");
        bool any = false;
        for (size_t i = 0; i < NOPTIONS; i++) {
            const option_t *opt = &options[i];
            /* A row without help (--lor) is named in the usage lines instead. */
            bool every = opt->commands == ALL_COMMANDS;
            if (opt->help == NULL || (every != (lines[l].commands == ALL_COMMANDS)) ||
                !(opt->commands & lines[l].commands) || (lines[l].lor && opt->orders))
                continue;
            int width = (int)strlen(opt->names[0]) + 1;
            if (column + width > LG_HELP_WIDTH)
                column = fprintf(out, "\n%*s", LG_HELP_COMMAND_COLUMN, "") - 1;
            else if (any)
                column += fprintf(out, " ");
            put_text(out, opt->names[0], roff);
            column += (int)strlen(opt->names[0]);
            any = true;
        }
        fputs(any ? "\n" : "none\n", out);
    }
}

void lg_cli_write_help(FILE *out)
{
    fputs(usage_lines, out);
    for (size_t i = 0; i < NOPTIONS; i++) {
        const option_t *opt = &options[i];
        if (opt->help == NULL)
            continue;
        if (opt->section != NULL)
            fprintf(out, "%s\n", opt->section);
        int head = fprintf(out, "  %s%s%s%s%s", opt->names[0], opt->names[1] ? ", " : "",
                           opt->names[1] ? opt->names[1] : "", opt->value ? " " : "",
                           opt->value ? opt->value : "");
        fprintf(out, "%*s", head + 2 > LG_HELP_COLUMN ? 2 : LG_HELP_COLUMN - head, "");
        for (const char *line = opt->help; *line != '\0';) {
            size_t n = strcspn(line, "\n");
            fprintf(out, "%.*s", (int)n, line);
            line += n;
            if (*line == '\n')
                line++;
            if (*line != '\0')
                fprintf(out, "\n%*s", LG_HELP_COLUMN, "");
        }
        if (opt->fallback != NULL && opt->help[strlen(opt->help) - 1] == '\n')
            fprintf(out, "\n%*s[default: %s]", LG_HELP_COLUMN, "", opt->fallback);
        else if (opt->fallback != NULL)
            fprintf(out, "  [default: %s]", opt->fallback);
        fputc('\n', out);
    }
    write_command_options(out, false);
}

/* ---- Manual page --------------------------------------------------------------------------- */

/* Writes one line of an option's manual text as roff: `code` in bold, <ARG> in italics (a '<'
 * before a capital letter opens it), backslashes and, in bold and italics, minus signs escaped.
 * A line that would start with a roff control character is guarded. */
static void put_manual_line(FILE *out, const char *line, size_t n)
{
    if (n > 0 && (line[0] == '.' || line[0] == '\''))
        fputs("\\&", out);
    char font = 'R';
    for (size_t i = 0; i < n; i++) {
        char c = line[i];
        if (c == '`') {
            font = font == 'B' ? 'R' : 'B';
            fprintf(out, "\\f%c", font);
        } else if (c == '<' && font == 'R' && i + 1 < n && line[i + 1] >= 'A' &&
                   line[i + 1] <= 'Z') {
            font = 'I';
            fputs("\\fI", out);
        } else if (c == '>' && font == 'I') {
            font = 'R';
            fputs("\\fR", out);
        } else if (c == '-' && font != 'R') {
            fputs("\\-", out);
        } else if (c == '\\') {
            fputs("\\e", out);
        } else {
            fputc(c, out);
        }
    }
    if (font != 'R') /* a span is closed on its line (the table's lines never cut one) */
        fputs("\\fR", out);
    fputc('\n', out);
}

/* The commands that take opt, for its manual entry: "lorgen, eval (not with --lor)". */
static void put_option_commands(FILE *out, const option_t *opt)
{
    static const char *const labels[] = {
        [LG_CLI_OPTIMIZE] = "lorgen", [LG_CLI_SCRIPT] = "script", [LG_CLI_CALLGRAPH] = "callgraph",
        [LG_CLI_FORMATS] = "formats", [LG_CLI_EVAL] = "eval",     [LG_CLI_CHECK] = "check",
    };
    fputs(".br\nCommands: ", out);
    if (opt->commands == ALL_COMMANDS) {
        fputs("all.\n", out);
        return;
    }
    bool first = true;
    for (unsigned c = 0; c < LG_CLI_COMMANDS; c++) {
        if (!(opt->commands & COMMAND(c)))
            continue;
        fprintf(out, "%s\\fB%s\\fR", first ? "" : ", ", labels[c]);
        if (c == LG_CLI_EVAL && opt->orders)
            fputs(" (not with \\fB\\-\\-lor\\fR)", out);
        first = false;
    }
    fputs(".\n", out);
}

void lg_cli_write_manual(FILE *out)
{
    fputs(".\\\" " LG_CLI_MANUAL_BEGIN "\n.nf\n", out);
    write_command_options(out, true);
    fputs(".fi\n", out);
    for (size_t i = 0; i < NOPTIONS; i++) {
        const option_t *opt = &options[i];
        if (opt->help == NULL)
            continue;
        if (opt->section != NULL) {
            size_t n = strlen(opt->section);
            fprintf(out, ".SS \"%.*s\"\n", (int)(n > 0 && opt->section[n - 1] == ':' ? n - 1 : n),
                    opt->section);
        }
        fputs(".TP\n", out);
        for (size_t k = 0; k < 2 && opt->names[k] != NULL; k++) {
            fputs(k > 0 ? ", \\fB" : "\\fB", out);
            put_text(out, opt->names[k], true);
            fputs("\\fR", out);
        }
        if (opt->value != NULL)
            fprintf(out, " \\fI%s\\fR", opt->value);
        if (opt->alias != NULL) {
            fputs(" (or \\fB", out);
            put_text(out, opt->alias, true);
            fputs("\\fR)", out);
        }
        fputc('\n', out);
        for (const char *line = opt->manual; *line != '\0';) {
            size_t n = strcspn(line, "\n");
            put_manual_line(out, line, n);
            line += n + (line[n] == '\n');
        }
        if (opt->fallback != NULL) {
            fputs(".br\nDefault: ", out);
            put_text(out, opt->fallback, true);
            fputs(".\n", out);
        }
        put_option_commands(out, opt);
    }
    fputs(".\\\" " LG_CLI_MANUAL_END "\n", out);
}

/* ---- Parsing --------------------------------------------------------------------------------- */

/* How an option of the table was given, for the errors that need the whole command line. */
typedef struct given {
    const char *spelling; /* as typed ("--ld" or "--ld-script"); NULL: not given */
    const char *value;    /* its value, or NULL for a flag */
} given_t;

/* One option word (and its value, which may be the next word: *i moves past it); given[] holds
 * the options given so far, by row. */
static lg_cli_status_t parse_option(parser_t *p, int argc, char **argv, int *i, given_t *given)
{
    const char *arg = argv[*i];
    /* --name=value or --name value */
    char name[LG_OPTION_NAME_MAX];
    const char *value = NULL;
    const char *eq = strchr(arg, '=');
    if (eq != NULL && strncmp(arg, "--", 2) == 0) {
        size_t n = (size_t)(eq - arg);
        if (n >= sizeof name)
            return usage(p->o, "unknown option '%s'", arg);
        memcpy(name, arg, n);
        name[n] = '\0';
        value = eq + 1;
    } else {
        snprintf(name, sizeof name, "%s", arg);
    }
    const char *spelling;
    const option_t *opt = find_option(name, &spelling);
    if (opt == NULL)
        return usage(p->o, "unknown option '%s'", arg);
    given_t *before = &given[opt - options];
    if (opt->value == NULL) {
        /* A flag: given twice it asks the same thing twice. A value after '=' is ignored. */
        *before = (given_t){spelling, NULL};
        return opt->apply(p, opt, spelling, NULL);
    }
    if (value == NULL) {
        if (*i + 1 >= argc)
            return usage(p->o, "%s needs a value", name);
        value = argv[++*i];
    }
    /* Of two values for one setting or output only the last would count: the first request
     * would be dropped without a word. */
    if (before->spelling != NULL && !opt->per_profile && !opt->repeatable)
        return usage(p->o, "%s given twice (%s %s, then %s %s): it takes one value", opt->names[0],
                     before->spelling, before->value, spelling, value);
    *before = (given_t){spelling, value};
    return opt->apply(p, opt, spelling, value);
}

/* Refuses an option that o's command does not use, naming the commands that do: a command that
 * took it and went on would exit 0 with the request dropped (an output never written, a cache
 * it never modelled). Returns LG_CLI_RUN or LG_CLI_USAGE. */
static lg_cli_status_t refuse_unused(lg_cli_options_t *o, const given_t *given)
{
    for (size_t r = 0; r < NOPTIONS; r++) {
        const option_t *opt = &options[r];
        if (given[r].spelling == NULL)
            continue;
        if (o->command == LG_CLI_EVAL && o->lor != NULL && opt->orders)
            return usage(o,
                         "eval --lor does not use %s: it estimates the .LOR's order as "
                         "written (%s applies to the order eval computes without --lor)",
                         given[r].spelling, given[r].spelling);
        if (opt->commands & COMMAND(o->command))
            continue;
        char users[160] = "";
        size_t nusers = 0, len = 0;
        for (unsigned c = 0; c < LG_CLI_COMMANDS; c++)
            nusers += (opt->commands & COMMAND(c)) != 0;
        for (unsigned c = 0, k = 0; c < LG_CLI_COMMANDS; c++) {
            if (!(opt->commands & COMMAND(c)) || len >= sizeof users)
                continue;
            k++;
            const char *sep = k == 1 ? "" : k == nusers ? " and " : ", ";
            len += (size_t)snprintf(users + len, sizeof users - len, "%s%s", sep,
                                    command_title((lg_cli_command_t)c));
        }
        return usage(o, "%s does not use %s (%s%s %s)", command_title(o->command),
                     given[r].spelling, nusers == 1 ? "only " : "", users,
                     nusers == 1 ? "does" : "do");
    }
    return LG_CLI_RUN;
}

/* A timeline's proximity pairs are read by one consumer, the clique pass's cache placement
 * (affinity.h); counting them is most of a timeline's reading time, so every other run skips it.
 * The default's fallback to the clique pass on very large graphs (default_order.h) then places
 * without them: which algorithm runs is known only once the profiles are read. */
static void skip_unread_proximity(lg_cli_options_t *o)
{
    bool proposes = o->command == LG_CLI_OPTIMIZE || o->command == LG_CLI_EVAL;
    o->load.skip_proximity =
        !(proposes && o->place && strcmp(o->algorithm, LG_CLIQUE_ALGORITHM) == 0);
}

lg_cli_status_t lg_cli_parse(int argc, char **argv, lg_cli_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->geometry = (lg_geometry_t){LG_CACHE_SIZE_DEFAULT, LG_LINE_SIZE_DEFAULT, LG_WAYS_DEFAULT};
    o->rows = LG_REPORT_ROWS_DEFAULT;
    o->verbosity = 1;
    o->normalize = true;
    o->algorithm = LG_DEFAULT_ALGORITHM;
    o->place = true;
    o->phase = true;
    o->safeguard = true;
    o->inputs = calloc(argc > 0 ? (size_t)argc : 1, sizeof *o->inputs);
    if (o->inputs == NULL)
        return LG_CLI_NOMEM;
    parser_t p = {o, NULL, 0.0, NULL};
    given_t given[NOPTIONS] = {{0}};
    int i = 1;
    if (argc > 1 && find_command(argv[1]) != LG_CLI_OPTIMIZE) {
        o->command = find_command(argv[1]);
        i = 2;
    }
    bool options_done = false;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            /* "lorgen -q eval ...": a command after options, unless a file has its name. */
            if (o->command == LG_CLI_OPTIMIZE && o->ninputs == 0 && !options_done &&
                find_command(arg) != LG_CLI_OPTIMIZE && access(arg, F_OK) != 0) {
                o->command = find_command(arg);
                continue;
            }
            o->inputs[o->ninputs++] = (lg_cli_input_t){
                arg, p.pending_format, p.pending_weight > 0.0 ? p.pending_weight : 1.0};
            p.pending_format = NULL;
            p.pending_weight = 0.0;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        lg_cli_status_t status = parse_option(&p, argc, argv, &i, given);
        if (status != LG_CLI_RUN)
            return status;
    }
    if (p.pending_format != NULL)
        return usage(o, "--format %s is not followed by a profile", p.pending_format);
    if (p.pending_weight > 0.0)
        return usage(o, "--weight is not followed by a profile");
    lg_cli_status_t status = refuse_unused(o, given);
    if (status != LG_CLI_RUN)
        return status;
    skip_unread_proximity(o);
    /* script matches them to the .LOR's regions once it is read. */
    return o->command == LG_CLI_OPTIMIZE ? match_fast_includes(o) : LG_CLI_RUN;
}

void lg_cli_options_destroy(lg_cli_options_t *o)
{
    free(o->inputs);
    free(o->error);
    free(o->select);
    for (size_t i = 0; i < o->nfast; i++)
        free(o->fast[i].name);
    free(o->fast);
    free(o->fast_includes);
    o->fast = NULL;
    o->nfast = 0;
    o->fast_includes = NULL;
    o->nfast_includes = 0;
    o->inputs = NULL;
    o->error = NULL;
    o->select = NULL;
    o->nselect = 0;
}

/* ---- Files named twice ----------------------------------------------------------------------- */

/* An output file and the option that names it. */
typedef struct written {
    const char *option;
    const char *path;
    lg_file_id_t id;
} written_t;

/* lg_cli_check_files for the outputs and the nfrags --fast-include files frags. */
static lg_cli_status_t check_written(const lg_cli_options_t *o, const char *const *frags,
                                     size_t nfrags, char **error)
{
    written_t all[LG_CLI_OUTPUTS + LG_CLI_FAST_INCLUDES_MAX];
    size_t n = 0;
    for (size_t k = 0; k < LG_CLI_OUTPUTS; k++)
        if (o->outputs[k] != NULL)
            all[n++] = (written_t){lg_cli_output_option((lg_output_t)k), o->outputs[k], {0}};
    for (size_t k = 0; k < nfrags && k < LG_CLI_FAST_INCLUDES_MAX; k++)
        all[n++] = (written_t){"--fast-include", frags[k], {0}};
    for (size_t i = 0; i < n; i++) {
        const char *path = all[i].path;
        bool on_stdout = strcmp(path, "-") == 0;
        all[i].id = on_stdout ? (lg_file_id_t){0} : lg_file_id(path);
        for (size_t j = 0; j < i; j++) {
            bool both_stdout = on_stdout && strcmp(all[j].path, "-") == 0;
            if (both_stdout || (!all[i].id.device && lg_file_id_same(&all[i].id, &all[j].id)))
                return record(error, "%s %s and %s %s name one file: give each output its own",
                              all[j].option, all[j].path, all[i].option, path);
        }
        if (on_stdout || all[i].id.device || all[i].id.leaf != NULL)
            continue; /* not a file that exists: no input can be it */
        for (size_t k = 0; k <= o->ninputs; k++) {
            const char *input = k < o->ninputs ? o->inputs[k].path : o->lor;
            if (input == NULL)
                continue;
            lg_file_id_t in = lg_file_id(input);
            if (in.leaf == NULL && lg_file_id_same(&all[i].id, &in))
                return record(error,
                              "%s %s is the input %s (one file, two names): lorgen does not "
                              "write over its inputs",
                              all[i].option, path, input);
        }
    }
    return LG_CLI_RUN;
}

lg_cli_status_t lg_cli_check_files(lg_cli_options_t *o)
{
    /* optimize's fragments, matched to their regions by now; script's wait for the .LOR. */
    const char *frags[LG_CLI_FAST_INCLUDES_MAX];
    size_t nfrags = 0;
    for (size_t k = 0; k < o->nfast && nfrags < LG_CLI_FAST_INCLUDES_MAX; k++)
        if (o->fast[k].include != NULL)
            frags[nfrags++] = o->fast[k].include;
    return check_written(o, frags, nfrags, &o->error);
}

lg_cli_status_t lg_cli_check_fast_files(const lg_cli_options_t *o, const char *const *files,
                                        char **error)
{
    return check_written(o, files, o->nfast_includes, error);
}
