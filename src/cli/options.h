/* options.h - lorgen's command line: one table holds every option once (its names, whether it
 * takes a value, its help and default, the handler that sets its field, the commands that use
 * it); `--help`, parsing and the usage errors all come from it. An option the command does not
 * use, or one that takes a value given twice, is a usage error: either would drop a request
 * while the run exits 0.
 *
 * Nothing here prints or exits: parsing returns a status, and for a usage error the message,
 * which main.c shows with lg_cli_usage_error (messages.h): "Try 'lorgen --help'.", exit status 2.
 */
#ifndef LG_CLI_OPTIONS_H
#define LG_CLI_OPTIONS_H

#include "layout.h"
#include "registry.h"
#include "select.h"
#include "writers.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What lorgen is asked to do: the first word that names a command, else optimize. */
typedef enum lg_cli_command {
    LG_CLI_OPTIMIZE,  /* lorgen [options] PROFILE... ELF... -o OUT.lor */
    LG_CLI_SCRIPT,    /* lorgen script FILE.lor ELF... */
    LG_CLI_CALLGRAPH, /* lorgen callgraph PROFILE... [ELF...] */
    LG_CLI_FORMATS,   /* lorgen formats */
    LG_CLI_EVAL,      /* lorgen eval PROFILE... ELF... */
    LG_CLI_CHECK,     /* lorgen check FILE.lor RELINKED-ELF */
    LG_CLI_COMMANDS   /* how many there are */
} lg_cli_command_t;

/* Output options: one path per kind a command line can name, -o at LG_OUTPUT_LOR (the command's
 * main output: the .LOR, or callgraph's call graph). */
#define LG_CLI_OUTPUTS (LG_OUTPUT_GRAPHML + 1)

typedef struct lg_cli_input {
    const char *path;
    const char *format; /* --format given before it, or NULL */
    double weight;      /* --weight given before it, or 1.0 */
} lg_cli_input_t;

/* Most --fast-include files in one run: each stays open, a temporary file beside the other
 * outputs, until all of them are renamed into place (LG_OUTFILE_MAX_OPEN, outfile.h). */
#define LG_CLI_FAST_INCLUDES_MAX 16u

/* --fast-region NAME=SIZE[,headroom=P%] and its --fast-include file. */
typedef struct lg_cli_fast_region {
    char *name;         /* the output section the user's script gives the region */
    uint64_t size;      /* bytes */
    double headroom;    /* percent of size kept free */
    const char *include; /* --fast-include file for it, or NULL */
} lg_cli_fast_region_t;

typedef struct lg_cli_options {
    lg_cli_command_t command;
    lg_cli_input_t *inputs; /* the positional arguments, in order */
    size_t ninputs;
    const char *outputs[LG_CLI_OUTPUTS]; /* NULL: not requested */
    lg_geometry_t geometry;
    bool geometry_given;    /* --cache-size, --line-size or --ways was on the command line */
    size_t rows;            /* -n: rows per report table, 0 for all */
    int verbosity;          /* 0 errors only (-q), 1 also warnings and notes, 2 also progress */
    bool normalize;         /* scale merged profiles to one volume (lg_bind_normalize) */
    size_t perturb;         /* --perturb: seed of the robustness check's noise; 0 = none */
    lg_load_options_t load; /* options for the loaders that take them (--event, ...) */
    const char *algorithm;  /* --algorithm, one of lg_algorithm_names */
    bool algorithm_given;   /* --algorithm was on the command line (else default_order.h picks) */
    bool place;             /* cache-aware placement after the cliques (--no-place) */
    bool phase;             /* choose large functions' phase in the cache line (--no-phase) */
    bool safeguard;         /* keep the input order when predicted better (--no-safeguard) */
    const char *lor;        /* eval: the order to estimate (default: the one lorgen computes) */
    lg_select_rule_t *select; /* --include and --exclude, in command-line order (select.h) */
    size_t nselect;
    lg_cli_fast_region_t *fast; /* --fast-region, in command-line order: each is filled in turn */
    size_t nfast;
    const char **fast_includes; /* --fast-include values as given, matched to regions once
                                   parsing ends */
    size_t nfast_includes;
    char *error;            /* LG_CLI_USAGE: what is wrong, without "lorgen: " */
} lg_cli_options_t;

typedef enum lg_cli_status {
    LG_CLI_RUN,     /* run the command */
    LG_CLI_HELP,    /* -h, --help: show lg_cli_write_help, exit 0 */
    LG_CLI_VERSION, /* --version: show LG_CLI_VERSION_TEXT, exit 0 */
    LG_CLI_USAGE,   /* a usage error: the message in error */
    LG_CLI_NOMEM,   /* out of memory */
} lg_cli_status_t;

#define LG_CLI_VERSION_TEXT "lorgen " LORGEN_VERSION

/* Parses argv into o, which lg_cli_options_destroy frees whatever the status. Stops at the first
 * option that asks for help or the version, or at the first usage error. o's strings point into
 * argv. */
lg_cli_status_t lg_cli_parse(int argc, char **argv, lg_cli_options_t *o);

void lg_cli_options_destroy(lg_cli_options_t *o);

/* Refuses, as a usage error found before anything is read, two names for one file among the
 * outputs, and an output that is also an input: an output over an input destroys the input, and
 * of two outputs over one file only the last would remain. Names are compared as files (device
 * and inode, through hard and symbolic links), or for a file not made yet as a directory entry.
 * Character devices (/dev/null) are written in place and may be named more than once. Returns
 * LG_CLI_RUN, or LG_CLI_USAGE with the message in o->error. */
lg_cli_status_t lg_cli_check_files(lg_cli_options_t *o);

/* The region a --fast-include value v names among the n regions names[], v being one of
 * nincludes values: NAME=FILE names the region NAME; FILE alone the only region, when v has no
 * '=' or is the only value (a region's name holds no '=', so with several values a file whose
 * name holds '=' needs NAME=). Returns the region's index with *file pointing into v, or
 * SIZE_MAX when v names none. optimize matches against the --fast-region options, script
 * against the .LOR's regions. */
size_t lg_cli_fast_include_region(const char *v, const char *const *names, size_t n,
                                  size_t nincludes, const char **file);

/* lg_cli_check_files for the --fast-include files too, files[i] being the file of
 * o->fast_includes[i] (for script, whose values are matched once the .LOR is read): none may
 * name one file with an output, another of them, or an input. Returns LG_CLI_RUN, or
 * LG_CLI_USAGE (LG_CLI_NOMEM) with the message in *error, which the caller frees. */
lg_cli_status_t lg_cli_check_fast_files(const lg_cli_options_t *o, const char *const *files,
                                        char **error);

/* The option that names output kind (its first name: "-o", "--ld-script"). */
const char *lg_cli_output_option(lg_output_t kind);

/* Writes the --help text to out. */
void lg_cli_write_help(FILE *out);

/* The comment lines that open and close the part of docs/lorgen.1 lg_cli_write_manual writes. */
#define LG_CLI_MANUAL_BEGIN                                                                        \
    "Generated from the option table (src/cli/options.c) by lg_gen_man up to its end mark: edit "  \
    "the table, then cmake --build build --target man."
#define LG_CLI_MANUAL_END "End of the part generated from the option table."

/* Writes the manual page's part that comes from the option table, as roff: the list of the
 * options each command takes (as --help ends), then an entry per option under the help's
 * section headings, with its manual text, its default and the commands that take it. Opens and
 * closes with the LG_CLI_MANUAL_BEGIN and LG_CLI_MANUAL_END comments. */
void lg_cli_write_manual(FILE *out);

#endif
