/* test_cli_options.c - the command line: every option into its field, values and their errors,
 * positional arguments, commands, help, and outputs named twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "algorithms.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Most words one test command line holds. */
#define MAX_WORDS 80

/* Parses the words of line (split at spaces; "lorgen" comes first) into o. */
static lg_cli_status_t parse(lg_cli_options_t *o, const char *line)
{
    static char buf[1024];
    static char *argv[MAX_WORDS + 1];
    snprintf(buf, sizeof buf, "lorgen %s", line);
    int argc = 0;
    for (char *w = strtok(buf, " "); w != NULL && argc < MAX_WORDS; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    return lg_cli_parse(argc, argv, o);
}

/* Parses line, which must run; the caller destroys o. */
static void parse_ok(lg_cli_options_t *o, const char *line)
{
    lg_cli_status_t status = parse(o, line);
    if (status != LG_CLI_RUN)
        print_message("%s: status %d: %s\n", line, (int)status, o->error ? o->error : "");
    assert_int_equal(status, LG_CLI_RUN);
    assert_null(o->error);
}

/* Parses line, which must be a usage error saying exactly message. */
static void expect_usage(const char *line, const char *message)
{
    lg_cli_options_t o;
    assert_int_equal(parse(&o, line), LG_CLI_USAGE);
    assert_non_null(o.error);
    assert_string_equal(o.error, message);
    lg_cli_options_destroy(&o);
}

static void test_defaults(void **state)
{
    (void)state;
    lg_cli_options_t o;
    parse_ok(&o, "");
    assert_int_equal(o.command, LG_CLI_OPTIMIZE);
    assert_int_equal(o.ninputs, 0);
    for (size_t k = 0; k < LG_CLI_OUTPUTS; k++)
        assert_null(o.outputs[k]);
    assert_int_equal(o.geometry.cache_size, 8192);
    assert_int_equal(o.geometry.line_size, 32);
    assert_int_equal(o.geometry.ways, 1);
    assert_int_equal(o.rows, 10);
    assert_int_equal(o.verbosity, 1);
    assert_true(o.normalize);
    assert_true(o.place);
    assert_true(o.safeguard);
    assert_string_equal(o.algorithm, "chains");
    assert_null(o.load.event);
    assert_int_equal(o.load.bin_version, 0);
    assert_null(o.lor);
    lg_cli_options_destroy(&o);
}

/* The defaults the help shows are the ones the parser starts from. */
static void test_help_defaults_are_the_defaults(void **state)
{
    (void)state;
    lg_cli_options_t dflt, given;
    parse_ok(&dflt, "");
    parse_ok(&given, "--cache-size 8K --line-size 32 --ways 1 --algorithm chains -n 10");
    assert_memory_equal(&dflt.geometry, &given.geometry, sizeof dflt.geometry);
    assert_string_equal(dflt.algorithm, given.algorithm);
    assert_int_equal(dflt.rows, given.rows);
    lg_cli_options_destroy(&dflt);
    lg_cli_options_destroy(&given);
}

static void test_outputs_into_their_slots(void **state)
{
    (void)state;
    static const struct {
        const char *option;
        lg_output_t kind;
    } cases[] = {
        {"-o", LG_OUTPUT_LOR},
        {"--output", LG_OUTPUT_LOR},
        {"--ld-script", LG_OUTPUT_LD_SCRIPT},
        {"--ld", LG_OUTPUT_LD_SCRIPT},
        {"--ld-include", LG_OUTPUT_LD_INCLUDE},
        {"--section-ordering", LG_OUTPUT_SECTION_ORDERING},
        {"--gold", LG_OUTPUT_GOLD},
        {"--lld", LG_OUTPUT_LLD},
        {"--report", LG_OUTPUT_REPORT},
        {"--report-html", LG_OUTPUT_REPORT_HTML},
        {"--report-json", LG_OUTPUT_REPORT_JSON},
        {"--dot", LG_OUTPUT_DOT},
        {"--graphml", LG_OUTPUT_GRAPHML},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int joined = 0; joined < 2; joined++) {
            char line[128];
            /* -o=FILE is not a form lorgen takes: only long names join their value. */
            if (joined && cases[i].option[1] != '-')
                continue;
            /* Each in a command that takes it: the call graph's outputs are callgraph's. */
            bool graph = cases[i].kind == LG_OUTPUT_DOT || cases[i].kind == LG_OUTPUT_GRAPHML;
            snprintf(line, sizeof line, "%s%s%sout.file", graph ? "callgraph " : "",
                     cases[i].option, joined ? "=" : " ");
            lg_cli_options_t o;
            parse_ok(&o, line);
            for (size_t k = 0; k < LG_CLI_OUTPUTS; k++) {
                if (k == (size_t)cases[i].kind)
                    assert_string_equal(o.outputs[k], "out.file");
                else
                    assert_null(o.outputs[k]);
            }
            lg_cli_options_destroy(&o);
        }
    }
}

static void test_options_into_their_fields(void **state)
{
    (void)state;
    lg_cli_options_t o;
    parse_ok(&o, "--no-place --no-safeguard --no-normalize --event cycles "
                 "--algorithm c3 --bin-version 1.1 --rows 0 -q");
    assert_false(o.place);
    assert_false(o.safeguard);
    assert_false(o.normalize);
    assert_string_equal(o.load.event, "cycles");
    assert_string_equal(o.algorithm, "c3");
    assert_int_equal(o.load.bin_version, 11);
    assert_int_equal(o.rows, 0);
    assert_int_equal(o.verbosity, 0);
    assert_int_equal(o.ninputs, 0);
    lg_cli_options_destroy(&o);
    parse_ok(&o, "eval --lor a.lor --no-normalize");
    assert_string_equal(o.lor, "a.lor");
    assert_false(o.normalize);
    lg_cli_options_destroy(&o);

    parse_ok(&o, "--bin-version=1.0 -n 25 --verbose --algorithm=pettis-hansen");
    assert_int_equal(o.load.bin_version, 10);
    assert_int_equal(o.rows, 25);
    assert_int_equal(o.verbosity, 2);
    assert_string_equal(o.algorithm, "pettis-hansen");
    lg_cli_options_destroy(&o);

    parse_ok(&o, "-v");
    assert_int_equal(o.verbosity, 2);
    lg_cli_options_destroy(&o);
    parse_ok(&o, "--quiet");
    assert_int_equal(o.verbosity, 0);
    lg_cli_options_destroy(&o);
    /* A flag ignores a value joined to it, as it always has. */
    parse_ok(&o, "--no-place=yes");
    assert_false(o.place);
    lg_cli_options_destroy(&o);
}

static void test_sizes_with_suffixes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint32_t bytes;
    } cases[] = {
        {"4096", 4096},
        {"32B", 32},
        {"8K", 8192},
        {"8k", 8192},
        {"8KiB", 8192},
        {"8KB", 8192},
        {"1M", 1u << 20},
        {"2m", 2u << 20},
        {"3MiB", 3u << 20},
        {"4095M", 4095u << 20},
        {"4294967295", UINT32_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char line[64];
        snprintf(line, sizeof line, "--cache-size %s --line-size=%s", cases[i].text, cases[i].text);
        lg_cli_options_t o;
        parse_ok(&o, line);
        assert_int_equal(o.geometry.cache_size, cases[i].bytes);
        assert_int_equal(o.geometry.line_size, cases[i].bytes);
        lg_cli_options_destroy(&o);
    }
    lg_cli_options_t o;
    parse_ok(&o, "--ways 8");
    assert_int_equal(o.geometry.ways, 8);
    lg_cli_options_destroy(&o);
}

static void test_bad_values(void **state)
{
    (void)state;
    expect_usage("--cache-size 0",
                 "--cache-size: 0 is out of range: expected 1 to 4294967295 bytes");
    expect_usage("--cache-size 4096M",
                 "--cache-size: 4096M is out of range: expected 1 to 4294967295 bytes");
    expect_usage("--line-size 5G",
                 "--line-size: expected a number with an optional K or M suffix, found '5G'");
    expect_usage("--cache-size -1", "--cache-size: expected a number of bytes, found '-1'");
    expect_usage("--cache-size K", "--cache-size: expected a number of bytes, found 'K'");
    expect_usage("--ways 0", "--ways: 0 is out of range: expected 1 to 4294967295 ways");
    expect_usage("--ways 4294967296",
                 "--ways: 4294967296 is out of range: expected 1 to 4294967295 ways");
    expect_usage("--ways 2k", "--ways: expected a whole number, found '2k'");
    expect_usage("-n x", "-n: expected a whole number, found 'x'");
    expect_usage("--rows -1", "--rows: expected a whole number, found '-1'");
    expect_usage("--rows +1", "--rows: expected a whole number, found '+1'");
    expect_usage("--perturb= 1", "--perturb: expected a whole number, found ''");
    /* Digits too many for 64 bits are a number out of range, not "not a number". */
    expect_usage("-n 18446744073709551616",
                 "-n: 18446744073709551616 is out of range: expected 0 to 18446744073709551615");
    expect_usage("--perturb 99999999999999999999999",
                 "--perturb: 99999999999999999999999 is out of range: expected 0 to "
                 "18446744073709551615");
    expect_usage("--cache-size 18446744073709551616K",
                 "--cache-size: 18446744073709551616K is out of range: expected 1 to 4294967295 "
                 "bytes");
    expect_usage("--ways 18446744073709551616",
                 "--ways: 18446744073709551616 is out of range: expected 1 to 4294967295 ways");
    expect_usage("--bin-version 2", "--bin-version: expected 1.0 or 1.1, found '2'");
    expect_usage("--algorithm foo",
                 "--algorithm: unknown algorithm 'foo' (expected one of: chains, cliques, input, "
                 "hot-first, pettis-hansen, c3; chains is the default)");
    expect_usage("--weight 0 p",
                 "--weight: expected a number above 0 and at most 1e+06, found '0'");
    expect_usage("--weight 2e7 p",
                 "--weight: expected a number above 0 and at most 1e+06, found '2e7'");
    expect_usage("--format nope p", "--format: unknown format 'nope' (see 'lorgen formats')");
}

static void test_missing_value(void **state)
{
    (void)state;
    expect_usage("--cache-size", "--cache-size needs a value");
    expect_usage("p -o", "-o needs a value");
    expect_usage("--output", "--output needs a value");
    expect_usage("--ld", "--ld needs a value");
    /* The next word is the value, whatever it looks like. */
    lg_cli_options_t o;
    parse_ok(&o, "-o -q");
    assert_string_equal(o.outputs[LG_OUTPUT_LOR], "-q");
    assert_int_equal(o.verbosity, 1);
    lg_cli_options_destroy(&o);
    /* An empty file or event name is found now, not once the inputs are read. */
    expect_usage("--ld-script= p", "--ld-script: expected a file name, found an empty string");
    expect_usage("-o a.lor --report= p", "--report: expected a file name, found an empty string");
    expect_usage("eval --lor= p", "--lor: expected a file name, found an empty string");
    expect_usage("--event= p", "--event: expected a name, found an empty string");
}

static void test_unknown_option(void **state)
{
    (void)state;
    expect_usage("--bogus", "unknown option '--bogus'");
    expect_usage("--bogus=1", "unknown option '--bogus=1'");
    expect_usage("-o=x", "unknown option '-o=x'");
    expect_usage("-x p", "unknown option '-x'");
    expect_usage("--ld-scrip x", "unknown option '--ld-scrip'");
    char line[200], message[220];
    snprintf(line, sizeof line, "--%080d=1", 0);
    snprintf(message, sizeof message, "unknown option '%s'", line);
    expect_usage(line, message);
    /* The first error ends parsing: help after it is not reached. */
    expect_usage("--bogus --help", "unknown option '--bogus'");
}

/* An option that takes one value, given twice, would drop the first without a word (-o a.lor
 * -o b.lor wrote b.lor only): a usage error, whichever of its names each time. */
static void test_repeated_options(void **state)
{
    (void)state;
    expect_usage("-o a.lor -o b.lor p", "-o given twice (-o a.lor, then -o b.lor): it takes one "
                                        "value");
    expect_usage("-o a.lor --output b.lor p",
                 "-o given twice (-o a.lor, then --output b.lor): it takes one value");
    expect_usage("--ld x --ld-script=y p",
                 "--ld-script given twice (--ld x, then --ld-script y): it takes one value");
    expect_usage("callgraph p --dot a --dot a",
                 "--dot given twice (--dot a, then --dot a): it takes one value");
    expect_usage("--cache-size 4K --cache-size 16K p",
                 "--cache-size given twice (--cache-size 4K, then --cache-size 16K): it takes one "
                 "value");
    expect_usage("--algorithm c3 --algorithm c3 p",
                 "--algorithm given twice (--algorithm c3, then --algorithm c3): it takes one "
                 "value");
    expect_usage("-n 5 --rows 6 p", "-n given twice (-n 5, then --rows 6): it takes one value");
    expect_usage("eval --lor a --lor b p", "--lor given twice (--lor a, then --lor b): it takes "
                                           "one value");
    /* --weight and --format go once before each profile, not once per run. */
    expect_usage("--weight 2 --weight 3 p", "--weight given twice before one profile (2, then 3): "
                                            "give one --weight before each profile");
    expect_usage("--format prf --format callgrind p",
                 "--format given twice before one profile (prf, then callgrind): give one "
                 "--format before each profile");
    lg_cli_options_t o;
    parse_ok(&o, "--weight 2 --format prf p --weight 3 --format callgrind q");
    assert_int_equal(o.ninputs, 2);
    assert_true(o.inputs[0].weight == 2.0);
    assert_string_equal(o.inputs[0].format, "prf");
    assert_true(o.inputs[1].weight == 3.0);
    assert_string_equal(o.inputs[1].format, "callgrind");
    lg_cli_options_destroy(&o);
    /* A flag given twice asks the same thing twice; of -q and -v the last counts. */
    parse_ok(&o, "--no-place --no-place -q -v");
    assert_false(o.place);
    assert_int_equal(o.verbosity, 2);
    lg_cli_options_destroy(&o);
    parse_ok(&o, "-v -q");
    assert_int_equal(o.verbosity, 0);
    lg_cli_options_destroy(&o);
}

/* Each command takes the options it uses and refuses the others, before reading anything: an
 * option it ignored would be a request dropped while the exit status says all was done. */
static void test_options_each_command_takes(void **state)
{
    (void)state;
    static const char *const taken[] = {
        "p e -o a --ld-script b --ld-include c --section-ordering d --gold e --lld f --report g "
        "--report-html h --report-json i --algorithm c3 --no-place --no-phase --no-safeguard "
        "--cache-size 4K --line-size 16 --ways 2 --format prf --weight 2 p2 --event x "
        "--bin-version 1.0 --perturb 1 --no-normalize -n 3 -q",
        "script a.lor e -o b.lor --ld-script b --ld-include c --section-ordering d --gold e --lld "
        "f "
        "-v",
        "check a.lor e o.o -q",
        "callgraph p -o a --dot b --graphml c --format prf --weight 2 p2 --event x --bin-version "
        "1.1 --no-normalize -v",
        "eval p e --algorithm c3 --no-place --no-phase --no-safeguard --cache-size 4K --line-size "
        "16 --ways 2 --format prf --weight 2 p2 --event x --bin-version 1.0 --no-normalize -q",
        "eval p e --lor a.lor --cache-size 4K --line-size 16 --ways 2 --no-normalize",
        "formats -q",
    };
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        lg_cli_options_t o;
        parse_ok(&o, taken[i]);
        lg_cli_options_destroy(&o);
    }
    static const struct {
        const char *line, *message;
    } refused[] = {
        {"script a.lor e --report r.txt",
         "script does not use --report (only the main command does)"},
        {"script a.lor e --ld s.ld --report-json r.json",
         "script does not use --report-json (only the main command does)"},
        {"script a.lor e --ld s.ld --dot d.dot", "script does not use --dot (only callgraph does)"},
        {"script a.lor e --ld s.ld --cache-size 4K",
         "script does not use --cache-size (the main command and eval do)"},
        {"script a.lor e --ld s.ld --algorithm c3",
         "script does not use --algorithm (the main command and eval do)"},
        {"check a.lor e -o x.lor",
         "check does not use -o (the main command, script and callgraph do)"},
        {"check a.lor e --ways 2", "check does not use --ways (the main command and eval do)"},
        {"eval p e --ld-script s.ld", "eval does not use --ld-script (the main command and script "
                                      "do)"},
        {"eval p e -n 3", "eval does not use -n (only the main command does)"},
        {"eval p e --perturb 2", "eval does not use --perturb (only the main command does)"},
        {"callgraph p -o - --report r.txt",
         "callgraph does not use --report (only the main command does)"},
        {"callgraph p -o - --algorithm cliques",
         "callgraph does not use --algorithm (the main command and eval do)"},
        {"p e -o a.lor --dot d.dot", "the main command does not use --dot (only callgraph does)"},
        {"p e -o a.lor --graphml g.xml",
         "the main command does not use --graphml (only callgraph does)"},
        {"p e -o a.lor --lor b.lor", "the main command does not use --lor (only eval does)"},
        {"formats --format prf p",
         "formats does not use --format (the main command, callgraph and eval do)"},
        /* Options before the command word are judged by it as well. */
        {"--report r.txt script a.lor e",
         "script does not use --report (only the main command does)"},
        {"eval p e --lor a.lor --algorithm c3",
         "eval --lor does not use --algorithm: it estimates the .LOR's order as written "
         "(--algorithm applies to the order eval computes without --lor)"},
        {"eval p e --no-safeguard --lor a.lor",
         "eval --lor does not use --no-safeguard: it estimates the .LOR's order as written "
         "(--no-safeguard applies to the order eval computes without --lor)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        expect_usage(refused[i].line, refused[i].message);
}

/* The --algorithm error names every algorithm, from their own table. */
static void test_algorithm_list(void **state)
{
    (void)state;
    lg_cli_options_t o;
    assert_int_equal(parse(&o, "--algorithm chain"), LG_CLI_USAGE);
    size_t n;
    const char *const *names = lg_algorithm_names(&n);
    assert_true(n > 0);
    for (size_t k = 0; k < n; k++) {
        char name[64];
        snprintf(name, sizeof name, " %s%s", names[k], k + 1 < n ? "," : ";");
        if (strstr(o.error, name) == NULL)
            print_message("'%s' not in: %s\n", name, o.error);
        assert_non_null(strstr(o.error, name));
    }
    lg_cli_options_destroy(&o);
}

static void test_positional_and_double_dash(void **state)
{
    (void)state;
    lg_cli_options_t o;
    parse_ok(&o, "a.prf -q --format prf --weight 2.5 b.prf - -- -v c.elf eval");
    assert_int_equal(o.command, LG_CLI_OPTIMIZE);
    assert_int_equal(o.verbosity, 0); /* -q before --, -v after it is a file */
    assert_int_equal(o.ninputs, 6);
    const char *paths[] = {"a.prf", "b.prf", "-", "-v", "c.elf", "eval"};
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(o.inputs[i].path, paths[i]);
    /* --format and --weight apply to the next profile only. */
    assert_null(o.inputs[0].format);
    assert_true(o.inputs[0].weight == 1.0);
    assert_string_equal(o.inputs[1].format, "prf");
    assert_true(o.inputs[1].weight == 2.5);
    assert_null(o.inputs[2].format);
    assert_true(o.inputs[2].weight == 1.0);
    lg_cli_options_destroy(&o);

    parse_ok(&o, "-- -- --help");
    assert_int_equal(o.ninputs, 2);
    assert_string_equal(o.inputs[0].path, "--");
    assert_string_equal(o.inputs[1].path, "--help");
    lg_cli_options_destroy(&o);

    expect_usage("p --format prf", "--format prf is not followed by a profile");
    expect_usage("p --weight 2", "--weight is not followed by a profile");
}

static void test_commands(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        lg_cli_command_t command;
        size_t ninputs;
    } cases[] = {
        {"script a.lor app.elf --ld x", LG_CLI_SCRIPT, 2},
        {"check a.lor app.elf x.o", LG_CLI_CHECK, 3},
        {"callgraph p.prf -o -", LG_CLI_CALLGRAPH, 1},
        {"eval p.prf app.elf --lor a.lor", LG_CLI_EVAL, 2},
        {"formats", LG_CLI_FORMATS, 0},
        /* A command after options, before any input. */
        {"-q eval p.prf app.elf", LG_CLI_EVAL, 2},
        {"-v script a.lor", LG_CLI_SCRIPT, 1},
        /* After an input, or after --, a command's name is an input. */
        {"p.prf eval", LG_CLI_OPTIMIZE, 2},
        {"-- eval", LG_CLI_OPTIMIZE, 1},
        /* The first word is the command, the second an input. */
        {"eval check", LG_CLI_EVAL, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_cli_options_t o;
        parse_ok(&o, cases[i].line);
        if (o.command != cases[i].command || o.ninputs != cases[i].ninputs)
            print_message("%s\n", cases[i].line);
        assert_int_equal(o.command, cases[i].command);
        assert_int_equal(o.ninputs, cases[i].ninputs);
        lg_cli_options_destroy(&o);
    }
    lg_cli_options_t o;
    parse_ok(&o, "eval p.prf app.elf --lor a.lor");
    assert_string_equal(o.lor, "a.lor");
    assert_string_equal(o.inputs[0].path, "p.prf");
    lg_cli_options_destroy(&o);
}

/* A timeline's proximity pairs are counted only for the one reader of them: the clique pass's
 * placement, when a command proposes an order. */
static void test_proximity_only_for_placed_cliques(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        bool skip;
    } cases[] = {
        {"t.txt app.elf", true},
        {"t.txt app.elf --algorithm chains", true},
        {"t.txt app.elf --algorithm cliques", false},
        {"t.txt app.elf --algorithm cliques --no-place", true},
        {"eval t.txt app.elf --algorithm cliques", false},
        {"eval t.txt app.elf", true},
        {"callgraph t.txt -o -", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_cli_options_t o;
        parse_ok(&o, cases[i].line);
        if (o.load.skip_proximity != cases[i].skip)
            print_message("%s\n", cases[i].line);
        assert_int_equal(o.load.skip_proximity, cases[i].skip);
        lg_cli_options_destroy(&o);
    }
}

/* After options, a command word that names an existing file is that file. */
static void test_command_word_that_is_a_file(void **state)
{
    (void)state;
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(LORGEN_TEST_TMPDIR), 0);
    FILE *f = fopen("check", "w");
    assert_non_null(f);
    fclose(f);
    lg_cli_options_t o;
    parse_ok(&o, "-q check");
    assert_int_equal(o.command, LG_CLI_OPTIMIZE);
    assert_int_equal(o.ninputs, 1);
    lg_cli_options_destroy(&o);
    /* As the first word it is the command all the same. */
    parse_ok(&o, "check");
    assert_int_equal(o.command, LG_CLI_CHECK);
    lg_cli_options_destroy(&o);
    remove("check");
    assert_int_equal(chdir(cwd), 0);
}

static void test_help_and_version(void **state)
{
    (void)state;
    lg_cli_options_t o;
    assert_int_equal(parse(&o, "-h"), LG_CLI_HELP);
    lg_cli_options_destroy(&o);
    assert_int_equal(parse(&o, "p --help=x --bogus"), LG_CLI_HELP);
    lg_cli_options_destroy(&o);
    assert_int_equal(parse(&o, "script --version"), LG_CLI_VERSION);
    lg_cli_options_destroy(&o);
}

static void test_help_text(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    lg_cli_write_help(f);
    assert_int_equal(fclose(f), 0);
    assert_true(strncmp(text, "usage: lorgen [options] PROFILE...", 34) == 0);
    static const char *const lines[] = {
        "\nOutputs:\n  -o, --output FILE      the .LOR link-order file (callgraph: the call "
        "graph)\n",
        "\n  --ld-script FILE       GNU ld script for the default linker script: -Wl,-T,FILE\n"
        "                         (--ld is the same)\n",
        "\n  --section-ordering FILE  GNU ld 2.43+: -Wl,--section-ordering-file,FILE\n",
        "\n  --cache-size N         bytes; K and M suffixes accepted  [default: 8K]\n",
        "\n  --bin-version V        winIDEA binary timeline (.BIN) layout, 1.0 or 1.1\n"
        "                         [default: detected from the records]\n",
        "\n  -n, --rows N           rows per table in the report, 0 for all  [default: 10]\n",
        "\n  --version              the version\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        if (strstr(text, lines[i]) == NULL)
            print_message("not in the help:\n%s", lines[i]);
        assert_non_null(strstr(text, lines[i]));
    }
    /* --lor is named in the usage line only. */
    assert_null(strstr(text, "  --lor"));
    /* Which command takes which option, from the table the parser refuses by. */
    static const char commands[] =
        "\nWhich command takes which option (any other is a usage error):\n"
        "  lorgen        -o --ld-script --ld-include --fast-include\n"
        "                --section-ordering --gold --lld --report --report-html\n"
        "                --report-json --algorithm --include --exclude\n"
        "                --fast-region --no-place --no-phase --no-safeguard\n"
        "                --cache-size --line-size --ways --format --weight\n"
        "                --event --bin-version --perturb --no-normalize -n\n"
        "  script        -o --ld-script --ld-include --fast-include\n"
        "                --section-ordering --gold --lld\n"
        "  check         none\n"
        "  callgraph     -o --dot --graphml --format --weight --event\n"
        "                --bin-version --no-normalize\n"
        "  eval          --algorithm --include --exclude --no-place --no-phase\n"
        "                --no-safeguard --cache-size --line-size --ways --format\n"
        "                --weight --event --bin-version --no-normalize\n"
        "  eval --lor    --cache-size --line-size --ways --format --weight\n"
        "                --event --bin-version --no-normalize\n"
        "  formats       none\n"
        "  all commands  -q -v -h --version\n";
    if (strstr(text, commands) == NULL)
        print_message("not in the help:\n%s\nhelp:\n%s", commands, text);
    assert_non_null(strstr(text, commands));
    assert_true(len > 0 && text[len - 1] == '\n');
    free(text);
}

static void test_output_names(void **state)
{
    (void)state;
    assert_string_equal(lg_cli_output_option(LG_OUTPUT_LOR), "-o");
    assert_string_equal(lg_cli_output_option(LG_OUTPUT_LD_SCRIPT), "--ld-script");
    assert_string_equal(lg_cli_output_option(LG_OUTPUT_GRAPHML), "--graphml");
}

/* Parses line and checks the files it names; returns the status, o->error in message. */
static lg_cli_status_t check_files(const char *line, char *message, size_t size)
{
    lg_cli_options_t o;
    lg_cli_status_t status = parse(&o, line);
    assert_int_equal(status, LG_CLI_RUN);
    status = lg_cli_check_files(&o);
    snprintf(message, size, "%s", o.error ? o.error : "");
    lg_cli_options_destroy(&o);
    return status;
}

static void test_outputs_named_twice(void **state)
{
    (void)state;
    char message[1024], line[1024], want[1024];
    assert_int_equal(check_files("-o a.lor --ld a.lor x", message, sizeof message), LG_CLI_USAGE);
    assert_string_equal(message,
                        "-o a.lor and --ld-script a.lor name one file: give each output its own");
    assert_int_equal(check_files("--lld - --report-json - x", message, sizeof message),
                     LG_CLI_USAGE);
    assert_string_equal(message,
                        "--lld - and --report-json - name one file: give each output its own");
    assert_int_equal(check_files("--report a --report-json b --ld c x", message, sizeof message),
                     LG_CLI_RUN);
    assert_int_equal(check_files("-o /dev/null --lld /dev/null x", message, sizeof message),
                     LG_CLI_RUN);

    /* An output over an existing input. */
    const char *input = lg_test_write_file("input.prf", "x", 1);
    snprintf(line, sizeof line, "%s --report %s", input, input);
    assert_int_equal(check_files(line, message, sizeof message), LG_CLI_USAGE);
    snprintf(want, sizeof want,
             "--report %s is the input %s (one file, two names): lorgen does not write over its "
             "inputs",
             input, input);
    assert_string_equal(message, want);
    /* A file that does not exist yet is no input. */
    snprintf(line, sizeof line, "%s.new --report %s.new", input, input);
    assert_int_equal(check_files(line, message, sizeof message), LG_CLI_RUN);
}

/* --fast-region NAME=SIZE[,headroom=P%], repeatable, and --fast-include FILE or NAME=FILE
 * matched to the regions once parsing ends. */
static void test_fast_regions(void **state)
{
    (void)state;
    lg_cli_options_t o;
    parse_ok(&o, "--fast-region .itcm_text=16K,headroom=5% --fast-region .ram=2M "
                 "--fast-include .ram=ram.ld --fast-include .itcm_text=itcm.ld p e");
    assert_int_equal(o.nfast, 2);
    assert_string_equal(o.fast[0].name, ".itcm_text");
    assert_int_equal(o.fast[0].size, 16384);
    assert_true(o.fast[0].headroom == 5.0);
    assert_string_equal(o.fast[0].include, "itcm.ld");
    assert_string_equal(o.fast[1].name, ".ram");
    assert_int_equal(o.fast[1].size, 2u * 1024 * 1024);
    assert_string_equal(o.fast[1].include, "ram.ld");
    lg_cli_options_destroy(&o);
    parse_ok(&o, "--fast-region .itcm_text=1024 --fast-include itcm.ld p e");
    assert_string_equal(o.fast[0].include, "itcm.ld");
    assert_true(o.fast[0].headroom == 0.0);
    lg_cli_options_destroy(&o);
    expect_usage("--fast-region itcm p e",
                 "--fast-region: expected NAME=SIZE[,headroom=P%], found 'itcm'");
    expect_usage("--fast-region =1K p e",
                 "--fast-region: expected NAME=SIZE[,headroom=P%], found '=1K'");
    expect_usage("--fast-region a=0 p e",
                 "--fast-region: 0 is out of range: expected 1 to 4294967295 bytes");
    expect_usage("--fast-region a=1K,room=5% p e",
                 "--fast-region: expected 'headroom=P%' after the size, found 'room=5%'");
    expect_usage("--fast-region a=1K,headroom=5 p e",
                 "--fast-region: expected headroom=P% with P from 0 to 99, found 'headroom=5'");
    expect_usage("--fast-region a=1K --fast-region a=2K p e",
                 "--fast-region: region 'a' is given twice");
    expect_usage("--fast-region a=1K --fast-region b=1K --fast-include x.ld p e",
                 "--fast-include: 'x.ld' names no --fast-region: expected FILE with one region, "
                 "or NAME=FILE for a region NAME");
    expect_usage("--fast-region a=1K --fast-include a=x.ld --fast-include a=y.ld p e",
                 "--fast-include: region 'a' is given two files");
    /* Every fragment stays open until all outputs are renamed into place: a bounded number. */
    char line[2048] = "";
    for (unsigned i = 0; i <= LG_CLI_FAST_INCLUDES_MAX; i++) {
        char one[64];
        snprintf(one, sizeof one, "--fast-region r%u=1K --fast-include r%u=r%u.ld ", i, i, i);
        strcat(line, one);
    }
    strcat(line, "p e");
    expect_usage(line, "--fast-include: more than 16 files (LG_CLI_FAST_INCLUDES_MAX)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_help_defaults_are_the_defaults),
        cmocka_unit_test(test_outputs_into_their_slots),
        cmocka_unit_test(test_options_into_their_fields),
        cmocka_unit_test(test_sizes_with_suffixes),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_fast_regions),
        cmocka_unit_test(test_missing_value),
        cmocka_unit_test(test_unknown_option),
        cmocka_unit_test(test_repeated_options),
        cmocka_unit_test(test_options_each_command_takes),
        cmocka_unit_test(test_algorithm_list),
        cmocka_unit_test(test_positional_and_double_dash),
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_proximity_only_for_placed_cliques),
        cmocka_unit_test(test_command_word_that_is_a_file),
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_help_text),
        cmocka_unit_test(test_output_names),
        cmocka_unit_test(test_outputs_named_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
