/* test_lor.c - the .LOR text format: write, read back, hand edits, errors, check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "lor.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes lor to a string (caller frees). */
static char *write_to_string(const lg_lor_t *lor, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    assert_int_equal(lg_lor_write(lor, f), LG_OK);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void add_fn(lg_lor_t *lor, size_t *cap, const char *symbol, const char *section,
                   const char *object, uint64_t size, uint64_t hits, uint32_t flags)
{
    lor->fns = realloc(lor->fns, (lor->nfns + 1) * sizeof *lor->fns);
    assert_non_null(lor->fns);
    (void)cap;
    lor->fns[lor->nfns] = (lg_lor_fn_t){
        .symbol = strdup(symbol),
        .section = section ? strdup(section) : NULL,
        .object = object ? strdup(object) : NULL,
        .size = size,
        .hits = hits,
        .align = 1,
        .flags = flags,
        .clique = (uint32_t)(lor->ncliques - 1),
    };
    lor->nfns++;
    lor->cliques[lor->ncliques - 1].count++;
}

static void add_clique(lg_lor_t *lor, uint64_t bytes, uint64_t hits, uint32_t flags)
{
    lor->cliques = realloc(lor->cliques, (lor->ncliques + 1) * sizeof *lor->cliques);
    assert_non_null(lor->cliques);
    lor->cliques[lor->ncliques++] =
        (lg_lor_clique_t){.first = lor->nfns, .bytes = bytes, .hits = hits, .flags = flags};
}

static void sample_lor(lg_lor_t *lor)
{
    lg_lor_init(lor);
    lor->geometry = (lg_geometry_t){8192, 32, 1};
    lor->algorithm = strdup("cliques");
    assert_int_equal(lg_lor_add_input(lor, "profile", "trace.prf", "prf"), LG_OK);
    assert_int_equal(lg_lor_add_input(lor, "elf", "dir with space/app.elf", NULL), LG_OK);
    add_clique(lor, 160, 30, 0);
    add_fn(lor, NULL, "GetLastNode", ".text.GetLastNode", "list.o", 64, 20, 0);
    add_fn(lor, NULL, "BuildList", ".text.hot.BuildList", NULL, 96, 10, LG_FN_LOCAL);
    add_clique(lor, 10000, 5, LG_CLIQUE_OVERSIZED);
    add_fn(lor, NULL, "odd \"name\"", ".text.x", NULL, 10000, 5, LG_FN_SECTION_INFERRED);
    add_clique(lor, 40, 0, LG_CLIQUE_FILLER);
    lor->cliques[lor->ncliques - 1].pad_before = 24;
    add_fn(lor, NULL, "never_run", ".text.never_run", NULL, 40, 0, 0);
    lor->section_align = 8192;
    lor->ncold = 7;
}

static void test_round_trip_is_byte_identical(void **state)
{
    (void)state;
    lg_lor_t lor, back;
    sample_lor(&lor);
    size_t len;
    char *text = write_to_string(&lor, &len);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_lor_init(&back);
    lg_err_t err = lg_lor_parse(text, len, "t.lor", &back, &d);
    lg_test_diag_dump(&d);
    assert_int_equal(err, LG_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(back.ncliques, 3);
    assert_int_equal(back.nfns, 4);
    assert_int_equal(back.section_align, 8192);
    assert_true(back.cliques[2].flags & LG_CLIQUE_FILLER);
    assert_int_equal(back.cliques[2].pad_before, 24);
    assert_string_equal(back.fns[2].symbol, "odd \"name\"");
    assert_string_equal(back.fns[0].object, "list.o");
    assert_string_equal(back.fns[1].section, ".text.hot.BuildList");
    assert_true(back.fns[1].flags & LG_FN_LOCAL);
    assert_true(back.fns[2].flags & LG_FN_SECTION_INFERRED);
    assert_true(back.cliques[1].flags & LG_CLIQUE_OVERSIZED);
    assert_int_equal(back.ncold, 7);
    assert_string_equal(back.inputs[1].path, "dir with space/app.elf");
    size_t len2;
    char *again = write_to_string(&back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
    free(text);
    free(again);
    lg_lor_destroy(&lor);
    lg_lor_destroy(&back);
    lg_diag_destroy(&d);
}

static void test_hand_edited_minimal_file(void **state)
{
    (void)state;
    const char *text = "# my order\n"
                       "lorgen-lor 1\n"
                       "cache size=4096 line=16 ways=2   # a comment after settings\n"
                       "clique 1\n"
                       "  fn main\n"
                       "  fn helper object=b.o\n"
                       "  fn helper object=a.o\n"
                       "clique 9 bytes=1\n"
                       "\tfn other size=12 future_key=1\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "m.lor", &lor, &d), LG_OK);
    assert_int_equal(lor.geometry.cache_size, 4096);
    assert_int_equal(lor.geometry.line_size, 16);
    assert_int_equal(lor.geometry.ways, 2);
    assert_int_equal(lor.ncliques, 2);
    assert_int_equal(lor.cliques[0].count, 3);
    assert_int_equal(lor.nfns, 4);
    assert_null(lor.fns[0].section);
    assert_int_equal(lor.fns[3].size, 12);
    assert_int_equal(lor.fns[3].line, 9);
    /* The unknown key is kept as a warning that names its line. */
    assert_true(lg_test_diag_has(&d, LG_WARNING, "m.lor:9: ignoring unknown fn key 'future_key'"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

/* Each malformed text must fail with this message, naming this line, and leave lor empty. */
static const struct {
    const char *text;
    const char *message;
} bad_inputs[] = {
    {"", "bad.lor: expected 'lorgen-lor VERSION', found no content"},
    {"clique 1\n", "bad.lor:1: expected 'lorgen-lor VERSION' as the first line, found 'clique'"},
    {"lorgen-lor 2\n", "bad.lor:1: expected .LOR version 1 to 1, found 2"},
    {"lorgen-lor x\n", "bad.lor:1: expected a whole number for the version, found 'x'"},
    {"lorgen-lor 1\n  fn a\n", "bad.lor:2: expected a 'clique' line before the first 'fn' line"},
    {"lorgen-lor 1\nclique 1\n fn a\n fn b\n fn a\n",
     "bad.lor:5: function 'a' is listed twice (first on line 3)"},
    {"lorgen-lor 1\nclique 1\n fn a size=12k\n", "bad.lor:3: expected a whole number for size"},
    {"lorgen-lor 1\nclique 1\n fn \"a\n", "bad.lor:3: expected a closing '\"'"},
    {"lorgen-lor 1\ncache size=1000 line=32\n", "bad.lor:2: unusable cache geometry"},
    {"lorgen-lor 1\nclique one\n", "bad.lor:2: expected 'clique NUMBER key=value...'"},
    {"lorgen-lor 1\n\0\n", "bad.lor:2: expected text, found a NUL byte"},
    {"lorgen-lor 1\ncache size=8192 line=32 ways=1\nclique 1\n fn a phase=32\n",
     "bad.lor:4: expected phase= below the 32-byte line of the cache statement, found 32"},
    {"lorgen-lor 1\nclique 1\n fn a phase=+16\n",
     "bad.lor:3: expected a whole number for phase, found '+16'"},
    {"lorgen-lor 1\nclique 1\n fn a phase=\n", "bad.lor:3: expected a whole number for phase"},
    /* The cache statement may follow the functions: the phase is checked against it. */
    {"lorgen-lor 1\nclique 1\n fn a phase=16\ncache size=4096 line=16 ways=1\n",
     "bad.lor:3: expected phase= below the 16-byte line of the cache statement, found 16"},
    /* A word after a statement that takes one is the next statement run into it (a lost line
     * end): never dropped. */
    {"lorgen-lor 1 clique 1\n", "bad.lor:1: expected nothing after 'lorgen-lor 1', found 'clique'"},
    {"lorgen-lor 1\nalgorithm chains clique\n",
     "bad.lor:2: expected nothing after 'algorithm chains', found 'clique'"},
    {"lorgen-lor 1\nclique 1\n fn a\ncold 5  fn wt_add\n",
     "bad.lor:4: expected nothing after 'cold 5', found 'fn'"},
    {"lorgen-lor 1\ninput profile=t.prf clique 1\n",
     "bad.lor:2: expected key=value words after 'input', found 'clique'"},
    {"lorgen-lor 1\ninput profile=t.prf elf=app\n",
     "bad.lor:2: expected one input a line, found elf= after profile="},
    {"lorgen-lor 1\ninput format=prf\n",
     "bad.lor:2: expected 'input profile=PATH' or 'input elf=PATH', found no profile= or elf="},
    /* Lone CRs end lines as LF and CRLF do: the statements are read one by one. */
    {"lorgen-lor 1\rclique 1\r fn a\r\n fn a\n",
     "bad.lor:4: function 'a' is listed twice (first on line 3)"},
    {"lorgen-lor 1\rcold 5\r\rcold 5 fn b\r",
     "bad.lor:4: expected nothing after 'cold 5', found 'fn'"},
    /* An empty name is not a missing one. */
    {"lorgen-lor 1\nclique 1\n fn a section=\n",
     "bad.lor:3: expected a name after section=, found it empty (delete the key to take the "
     "section from the ELF inputs)"},
    {"lorgen-lor 1\nclique 1\n fn a object=\"\"\n",
     "bad.lor:3: expected a name after object=, found it empty"},
    {"lorgen-lor 1\nclique 1\n fn a source=\n", "bad.lor:3: expected a name after source="},
    /* A pad no cache needs, which a linker refuses or which wraps the address. */
    {"lorgen-lor 1\nclique 1 pad=4294967296\n",
     "bad.lor:2: expected pad= at most 67108864 bytes, found 4294967296"},
    {"lorgen-lor 1\nclique 1\n fn a\nclique 2 pad=18446744073709551615\n",
     "bad.lor:4: expected pad= at most 67108864 bytes, found 18446744073709551615"},
};

/* LF, CRLF and lone CR line ends read alike, in any mix, and so does a file that starts with a
 * UTF-8 byte-order mark: the same statements, on the same line numbers. */
static void test_line_ends_and_byte_order_mark(void **state)
{
    (void)state;
    const char *lines[] = {"# order",
                           "lorgen-lor 1",
                           "algorithm chains",
                           "input profile=t.prf",
                           "clique 1 pad=67108864",
                           "  fn a",
                           "cold 5",
                           "  fn wt_add",
                           ""};
    const char *ends[] = {"\n", "\r\n", "\r", "mixed", "bom"};
    for (size_t e = 0; e < sizeof ends / sizeof *ends; e++) {
        char text[512] = "";
        if (strcmp(ends[e], "bom") == 0)
            strcat(text, "\xef\xbb\xbf");
        for (size_t i = 0; *lines[i] != '\0'; i++) {
            const char *mixed[] = {"\r", "\n", "\r\n"};
            strcat(text, lines[i]);
            strcat(text, strcmp(ends[e], "mixed") == 0 ? mixed[i % 3]
                         : strcmp(ends[e], "bom") == 0 ? "\n"
                                                       : ends[e]);
        }
        lg_lor_t lor;
        lg_lor_init(&lor);
        lg_diag_t d;
        lg_diag_init(&d);
        if (lg_lor_parse(text, strlen(text), "e.lor", &lor, &d) != LG_OK || d.count != 0) {
            print_message("line ends '%s'\n", ends[e]);
            lg_test_diag_dump(&d);
            fail();
        }
        assert_string_equal(lor.algorithm, "chains");
        assert_int_equal(lor.ninputs, 1);
        assert_int_equal(lor.ncliques, 1);
        assert_int_equal(lor.cliques[0].pad_before, 67108864);
        assert_int_equal(lor.ncold, 5);
        assert_int_equal(lor.nfns, 2);
        assert_string_equal(lor.fns[1].symbol, "wt_add");
        assert_int_equal(lor.fns[1].line, 8);
        lg_lor_destroy(&lor);
        lg_diag_destroy(&d);
    }
}

/* Found by fuzzing (tests/fuzz/regressions/lor/quoted-key-roundtrip): a key that is not a word
 * (here one with quotes and a space, made by a quoted token) was kept and written back bare, and
 * the rewritten file did not parse. Such a token is not key=value: on a fn line it is an unknown
 * flag (a warning), after input, which takes key=value words only, an error; what is written
 * parses to the same. */
static void test_odd_keys_do_not_break_the_round_trip(void **state)
{
    (void)state;
    const char *odd_input = "lorgen-lor 1\ninput \"odd \\\"key\"=x profile=p.prf\n";
    lg_lor_t lor, again;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(odd_input, strlen(odd_input), "odd.lor", &lor, &d), LG_EFORMAT);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "odd.lor:2: expected key=value words after 'input', found "
                                 "'odd \"key=x'"));
    lg_diag_destroy(&d);
    const char *text = "lorgen-lor 1\n"
                       "input profile=p.prf\n"
                       "clique 1\n"
                       "  fn main \"a b\"=1\n";
    lg_lor_init(&again);
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "odd.lor", &lor, &d), LG_OK);
    assert_int_equal(lor.ninputs, 1);
    assert_string_equal(lor.inputs[0].kind, "profile");
    assert_string_equal(lor.inputs[0].path, "p.prf");
    assert_true(lg_test_diag_has(&d, LG_WARNING, "ignoring unknown fn flag 'a b=1'"));
    size_t len;
    char *written = write_to_string(&lor, &len);
    assert_int_equal(lg_lor_parse(written, len, "rewritten.lor", &again, &d), LG_OK);
    assert_int_equal(again.ninputs, 1);
    assert_int_equal(again.nfns, 1);
    free(written);
    lg_lor_destroy(&again);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

static void test_malformed_files_fail_with_line(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_inputs / sizeof *bad_inputs; i++) {
        const char *text = bad_inputs[i].text;
        size_t len = strlen(text);
        if (strstr(bad_inputs[i].message, "NUL") != NULL)
            len = 16; /* the literal holds a NUL: take the bytes after it too */
        lg_lor_t lor;
        lg_lor_init(&lor);
        lg_diag_t d;
        lg_diag_init(&d);
        lg_err_t err = lg_lor_parse(text, len, "bad.lor", &lor, &d);
        if (err == LG_OK || !lg_test_diag_has(&d, LG_ERROR, bad_inputs[i].message)) {
            print_message("case %zu: expected error '%s'\n", i, bad_inputs[i].message);
            lg_test_diag_dump(&d);
            fail();
        }
        assert_int_equal(lor.nfns, 0);
        assert_int_equal(lor.ncliques, 0);
        lg_lor_destroy(&lor);
        lg_diag_destroy(&d);
    }
}

static void test_overlong_line_is_a_limit_error(void **state)
{
    (void)state;
    size_t n = LG_LOR_MAX_LINE + 100;
    char *text = malloc(n + 32);
    assert_non_null(text);
    strcpy(text, "lorgen-lor 1\n# ");
    memset(text + strlen(text), 'x', n);
    text[15 + n] = '\0';
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "big.lor", &lor, &d), LG_ELIMIT);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "big.lor:2: line is"));
    free(text);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

/* A name longer than a line may be (a 100 KB C++ symbol) is written over several lines, each
 * ended by a backslash inside the quotes: no line passes LG_LOR_MAX_LINE, and the file reads back
 * to the same names and writes back byte for byte. */
static void test_long_names_round_trip(void **state)
{
    (void)state;
    size_t nsym = 100000, nsec = 70000;
    char *symbol = malloc(nsym + 1), *section = malloc(nsec + 1);
    assert_non_null(symbol);
    assert_non_null(section);
    memset(symbol, 'L', nsym);
    symbol[nsym] = '\0';
    /* Control bytes take four bytes each when written (\x01): 280,000 bytes of one word. */
    memcpy(section, ".text.", 6);
    memset(section + 6, '\x01', nsec - 6);
    section[nsec] = '\0';
    lg_lor_t lor, back;
    lg_lor_init(&lor);
    lor.geometry = (lg_geometry_t){8192, 32, 1};
    add_clique(&lor, 64, 10, 0);
    add_fn(&lor, NULL, symbol, section, "dir with space/o.o", 64, 10, 0);
    add_fn(&lor, NULL, "after", NULL, NULL, 8, 1, 0);
    size_t len;
    char *text = write_to_string(&lor, &len);
    size_t longest = 0, lines = 0, column = 0;
    for (size_t at = 0; at < len; at++) {
        if (text[at] != '\n') {
            column++;
            continue;
        }
        longest = column > longest ? column : longest;
        column = 0;
        lines++;
    }
    assert_true(longest <= LG_LOR_MAX_LINE);
    assert_true(lines > 90); /* 100,000 / 4096 + 280,000 / 4096 continuation lines */
    lg_diag_t d;
    lg_diag_init(&d);
    lg_lor_init(&back);
    assert_int_equal(lg_lor_parse(text, len, "long.lor", &back, &d), LG_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(back.nfns, 2);
    assert_string_equal(back.fns[0].symbol, symbol);
    assert_string_equal(back.fns[0].section, section);
    assert_string_equal(back.fns[0].object, "dir with space/o.o");
    assert_string_equal(back.fns[1].symbol, "after");
    /* The statement after the long one is numbered by its own line (then come a blank line, a
     * comment and "cold"). */
    assert_int_equal(back.fns[1].line, lines - 3);
    size_t len2;
    char *again = write_to_string(&back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
    free(again);
    free(text);
    free(symbol);
    free(section);
    lg_lor_destroy(&back);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

/* The continuation rule as people may write it: only a backslash that ends a line inside quotes
 * continues the word (CRLF too); a comment ending in a backslash does not; messages name the
 * line the statement starts on, and the lines after keep their numbers. */
static void test_continued_words(void **state)
{
    (void)state;
    const char *text = "lorgen-lor 1\n"
                       "clique 1\n"
                       "  fn \"ab\\\n"
                       "cd\" size=1 section=\".text.\\\n"
                       "x\\\r\n"
                       "y\"\n"
                       "  fn e # a comment \\\n"
                       "  fn f\n"
                       "  fn \"g\\\\\" object=\"h\\\"\\\n"
                       "i\"\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "c.lor", &lor, &d), LG_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(lor.nfns, 4);
    assert_string_equal(lor.fns[0].symbol, "abcd");
    assert_string_equal(lor.fns[0].section, ".text.xy");
    assert_int_equal(lor.fns[0].line, 3);
    assert_string_equal(lor.fns[1].symbol, "e");
    assert_int_equal(lor.fns[1].line, 7);
    assert_string_equal(lor.fns[2].symbol, "f");
    assert_int_equal(lor.fns[2].line, 8);
    /* An escaped backslash before the closing quote is no continuation. */
    assert_string_equal(lor.fns[3].symbol, "g\\");
    assert_string_equal(lor.fns[3].object, "h\"i");
    lg_lor_destroy(&lor);

    /* An error inside a continued statement names its first line. */
    const char *bad = "lorgen-lor 1\nclique 1\n  fn \"a\\\nb\" size=\\\n12k\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(bad, strlen(bad), "c.lor", &lor, &d), LG_EFORMAT);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "c.lor:3: "));
    lg_lor_destroy(&lor);
    /* A backslash on the last line continues nothing. */
    const char *end = "lorgen-lor 1\nclique 1\n  fn \"a\\\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(end, strlen(end), "c.lor", &lor, &d), LG_EFORMAT);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

static void push_fn(lg_program_t *p, const char *symbol, const char *section, const char *object,
                    uint64_t size, uint64_t align, uint32_t flags)
{
    p->fns = realloc(p->fns, (p->nfns + 1) * sizeof *p->fns);
    assert_non_null(p->fns);
    p->fns[p->nfns] = (lg_fn_t){.symbol = strdup(symbol),
                                .section = strdup(section),
                                .object = object ? strdup(object) : NULL,
                                .size = size,
                                .align = align,
                                .flags = flags,
                                .input_order = (uint32_t)p->nfns};
    p->nfns++;
}

static void test_check_fills_and_reports(void **state)
{
    (void)state;
    lg_program_t prog;
    lg_program_init(&prog);
    push_fn(&prog, "main", ".text.startup.main", "m.o", 100, 16, 0);
    push_fn(&prog, "helper", ".text.helper", "a.o", 30, 16, LG_FN_AMBIGUOUS_NAME | LG_FN_LOCAL);
    push_fn(&prog, "helper", ".text.helper", "b.o", 40, 16, LG_FN_AMBIGUOUS_NAME | LG_FN_LOCAL);
    push_fn(&prog, "big", ".text", "c.o", 5000, 4, LG_FN_SHARED_SECTION);
    const char *text = "lorgen-lor 1\ncache size=4096 line=32 ways=1\n"
                       "clique 1\n fn main size=90\n fn helper object=obj/b.o\n fn big\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "c.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "c.lor", &d), LG_OK);
    /* Section filled in from the ELF; the size change and the shared section are warnings. */
    assert_string_equal(lor.fns[0].section, ".text.startup.main");
    assert_int_equal(lor.fns[0].size, 100);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "c.lor:4: function 'main' was 90 bytes, the "
                                                 "ELF now says 100"));
    /* object= picks the right one of two same-named statics. */
    assert_int_equal(lor.fns[1].size, 40);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "c.lor:6: function 'big' shares section .text"));
    /* 100, padded to 112, + 40 = 152, padded to 152, + 5000: larger than the 4096-byte cache. */
    assert_int_equal(lor.cliques[0].bytes, 5152);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "c.lor:3: clique 1 is 5152 bytes, larger than "
                                                 "the 4096-byte cache"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);

    const char *unknown = "lorgen-lor 1\nclique 1\n fn main\n fn gone\n fn also_gone\n";
    lg_lor_init(&lor);
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(unknown, strlen(unknown), "u.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "u.lor", &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "u.lor:4: function 'gone' is not in the ELF"));
    assert_true(lg_test_diag_has(&d, LG_ERROR, "u.lor:5: function 'also_gone' is not in the ELF"));
    assert_true(lg_test_diag_has(&d, LG_ERROR, "2 function(s) named in the .LOR are not in"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
}

/* a/util.o and b/util.o are two objects: object= binds the one with that path, not the first
 * with the same base name; a path written from another directory still binds by its tail. */
static void test_same_named_objects_bind_by_path(void **state)
{
    (void)state;
    lg_program_t prog;
    lg_program_init(&prog);
    push_fn(&prog, "helper", ".text.helper", "a/util.o", 30, 1, LG_FN_AMBIGUOUS_NAME | LG_FN_LOCAL);
    push_fn(&prog, "helper", ".text.helper", "b/util.o", 40, 1, LG_FN_AMBIGUOUS_NAME | LG_FN_LOCAL);
    push_fn(&prog, "helper", ".text.helper", "lib/libx.a(util.o)", 50, 1,
            LG_FN_AMBIGUOUS_NAME | LG_FN_LOCAL);
    const char *text = "lorgen-lor 1\nclique 1\n fn helper object=b/util.o\n"
                       " fn helper object=/home/me/build/a/util.o\n"
                       " fn helper object=lib/libx.a(util.o)\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "o.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "o.lor", &d), LG_OK);
    assert_int_equal(lor.fns[0].size, 40);
    assert_int_equal(lor.fns[1].size, 30);
    assert_int_equal(lor.fns[2].size, 50);
    lg_layout_t layout;
    lg_layout_init(&layout);
    assert_int_equal(lg_lor_to_layout(&lor, &prog, &layout, &d), LG_OK);
    assert_int_equal(layout.cliques[0].nfns, 3);
    assert_int_equal(layout.cliques[0].fns[0], 1);
    assert_int_equal(layout.cliques[0].fns[1], 0);
    assert_int_equal(layout.cliques[0].fns[2], 2);
    lg_layout_destroy(&layout);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
}

/* object= is written from the directory lorgen ran in; the objects are given now as the link
 * spells them. Each resolves to the object given that it names best, and takes its spelling; one
 * that names two objects equally well is an error naming both. */
static void test_object_takes_the_given_spelling(void **state)
{
    (void)state;
    lg_program_t prog;
    lg_program_init(&prog);
    push_fn(&prog, "skip", ".text.skip", "./normal/lex.o", 30, 1,
            LG_FN_AMBIGUOUS_NAME | LG_FN_LOCAL);
    push_fn(&prog, "skip", ".text.skip", "/b/normal/calc.o", 40, 1,
            LG_FN_AMBIGUOUS_NAME | LG_FN_LOCAL);
    push_fn(&prog, "run", ".text.run", "/b/x/a/util.o", 16, 1, 0);
    push_fn(&prog, "walk", ".text.walk", "y/b/util.o", 16, 1, 0);
    push_fn(&prog, "u", ".text.u", "./lib/libx.a(u.o)", 16, 1, 0);
    const char *text = "lorgen-lor 1\nclique 1\n fn skip object=normal/lex.o\n"
                       " fn skip object=normal/./sub/../calc.o\n fn run object=a/util.o\n"
                       " fn walk object=/home/me/b/util.o\n fn u object=lib/libx.a(u.o)\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "s.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "s.lor", &d), LG_OK);
    assert_string_equal(lor.fns[0].object, "./normal/lex.o");
    assert_int_equal(lor.fns[0].size, 30);
    assert_string_equal(lor.fns[1].object, "/b/normal/calc.o");
    assert_int_equal(lor.fns[1].size, 40);
    assert_string_equal(lor.fns[2].object, "/b/x/a/util.o");
    assert_string_equal(lor.fns[3].object, "y/b/util.o");
    assert_string_equal(lor.fns[4].object, "./lib/libx.a(u.o)");
    lg_lor_destroy(&lor);

    /* util.o alone names a/util.o and b/util.o as well: which one is not for lorgen to guess. */
    const char *vague = "lorgen-lor 1\nclique 1\n fn run object=util.o\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(vague, strlen(vague), "v.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "v.lor", &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "v.lor:3: expected object=util.o to name one of the object files "
                                 "given, found two it names equally well: /b/x/a/util.o and "
                                 "y/b/util.o"));
    lg_lor_destroy(&lor);

    /* An object given that no function was traced to (its statics' linked copies look alike)
     * is among the objects all the same: object= names it, not the closest one that is traced. */
    prog.objects = calloc(2, sizeof *prog.objects);
    assert_non_null(prog.objects);
    prog.objects[0] = strdup("./normal/lex.o");
    prog.objects[1] = strdup("./c/util.o");
    prog.nobjects = 2;
    const char *untraced = "lorgen-lor 1\nclique 1\n fn run object=../x/c/util.o\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(untraced, strlen(untraced), "t.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "t.lor", &d), LG_OK);
    assert_string_equal(lor.fns[0].object, "./c/util.o");
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
}

/* Edits that would pass silently and break the link: a statement typo, a static put in the
 * wrong object, an object= that is not among the inputs. Each is an error with its line. */
static void test_wrong_edits_are_errors(void **state)
{
    (void)state;
    lg_program_t prog;
    lg_program_init(&prog);
    push_fn(&prog, "main", ".text.main", "obj/main.o", 64, 1, 0);
    push_fn(&prog, "step", ".text.step", "obj/eval.o", 32, 1, LG_FN_LOCAL);
    push_fn(&prog, "flush", ".text.flush", "obj/io.o", 32, 1, 0);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_lor_t lor;

    /* A typo in a keyword would drop the function. */
    const char *typo = "lorgen-lor 1\nclique 1\n  fn main\n  fnn step\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(typo, strlen(typo), "t.lor", &lor, &d), LG_EFORMAT);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "t.lor:4: expected a statement (lorgen-lor, cache, algorithm, "
                                 "input, select, section, region, pinned, clique, fn, cold), found 'fnn'"));
    lg_lor_destroy(&lor);

    /* The static lives in eval.o: a pattern for io.o would match nothing. */
    const char *moved = "lorgen-lor 1\nclique 1\n  fn main\n  fn step object=obj/io.o\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(moved, strlen(moved), "m.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "m.lor", &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "m.lor:4: expected function 'step' in object obj/io.o, found it "
                                 "in obj/eval.o: correct object="));
    lg_lor_destroy(&lor);

    /* An object that is not among the inputs. */
    const char *gone = "lorgen-lor 1\nclique 1\n  fn main object=obj/mian.o\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(gone, strlen(gone), "g.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "g.lor", &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "g.lor:3: expected object=obj/mian.o among the ELF inputs, found "
                                 "no such object file"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
}

/* A deleted line: functions= disagrees (a warning), and the next clique no longer starts at the
 * cache offset placement chose (a note with both offsets and the shift). */
static void test_deleted_line_moves_later_cliques(void **state)
{
    (void)state;
    lg_program_t prog;
    lg_program_init(&prog);
    push_fn(&prog, "a", ".text.a", "x.o", 50, 1, 0);
    push_fn(&prog, "b", ".text.b", "x.o", 50, 1, 0);
    push_fn(&prog, "c", ".text.c", "x.o", 50, 1, 0);
    const char *text = "lorgen-lor 1\ncache size=8192 line=32 ways=1\nsection align=8192\n"
                       "clique 1 bytes=100 functions=2\n  fn a\n"
                       "clique 2 bytes=50 functions=1 pad=12\n  fn c\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "p.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &prog, "p.lor", &d), LG_OK);
    assert_true(lg_test_diag_has(&d, LG_WARNING,
                                 "p.lor:4: expected 2 fn lines in clique 1 (functions=2), found 1"));
    assert_true(lg_test_diag_has(&d, LG_NOTE,
                                 "p.lor:6: clique 2 now starts at cache offset 62, placement chose "
                                 "112: the code before it is 50 bytes shorter than when it was "
                                 "placed (an edit, or sizes that changed), which moves every later "
                                 "clique too; rerun lorgen to place them again"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    lg_program_destroy(&prog);
}

/* A phased function: the program and layout the phase choice leaves (b at +16 in the 32-byte
 * line, c at 0), written with phase= and read back; checked against the program as the ELF gives
 * it (unphased, 16-aligned), it is clean, its clique bytes count the lead, and the layout gives
 * the program its phases back. */
static void phased_program(lg_program_t *prog)
{
    lg_program_init(prog);
    push_fn(prog, "a", ".text.a", "x.o", 50, 16, 0);
    push_fn(prog, "b", ".text.b", "x.o", 100, 16, 0);
    push_fn(prog, "c", ".text.c", "y.o", 40, 16, 0);
}

static void test_phase_round_trip_and_check(void **state)
{
    (void)state;
    lg_program_t chosen, elf;
    phased_program(&chosen);
    phased_program(&elf);
    chosen.fns[1].flags |= LG_FN_PHASED;
    chosen.fns[1].align = 32;
    chosen.fns[1].lead = 16;
    chosen.fns[2].flags |= LG_FN_PHASED;
    chosen.fns[2].align = 32;
    /* a at 0..50; b's line at 64, its code at 80..180; c's line at 192 after the 12-byte pad. */
    uint32_t c1[] = {0, 1}, c2[] = {2};
    lg_clique_t cliques[] = {{.fns = c1, .nfns = 2, .bytes = 180, .hits = 0},
                             {.fns = c2, .nfns = 1, .bytes = 40, .pad_before = 12}};
    lg_layout_t layout;
    lg_layout_init(&layout);
    layout.geometry = (lg_geometry_t){8192, 32, 1};
    layout.algorithm = "cliques";
    layout.cliques = cliques;
    layout.ncliques = 2;
    layout.section_align = 8192;
    lg_lor_t lor, back;
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_from_layout(&chosen, &layout, &lor), LG_OK);
    size_t len;
    char *text = write_to_string(&lor, &len);
    assert_non_null(strstr(text, "  fn b size=100 hits=0 phase=16 section=.text.b"));
    assert_non_null(strstr(text, "  fn c size=40 hits=0 phase=0 section=.text.c"));
    assert_null(strstr(text, "  fn a size=50 hits=0 phase="));

    lg_diag_t d;
    lg_diag_init(&d);
    lg_lor_init(&back);
    assert_int_equal(lg_lor_parse(text, len, "ph.lor", &back, &d), LG_OK);
    assert_int_equal(back.fns[1].lead, 16);
    assert_true(back.fns[1].flags & LG_FN_PHASED);
    assert_int_equal(back.fns[2].lead, 0);
    assert_true(back.fns[2].flags & LG_FN_PHASED);
    assert_false(back.fns[0].flags & LG_FN_PHASED);
    size_t len2;
    char *again = write_to_string(&back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);

    assert_int_equal(lg_lor_check(&back, &elf, "ph.lor", &d), LG_OK);
    lg_test_diag_dump(&d);
    assert_int_equal(d.count, 0); /* bytes= and pad= agree with the leads: no placement note */
    assert_int_equal(back.cliques[0].bytes, 180);
    assert_int_equal(back.fns[1].align, 32);
    assert_int_equal(back.fns[0].align, 16);
    lg_layout_t out;
    lg_layout_init(&out);
    assert_int_equal(lg_lor_to_layout(&back, &elf, &out, &d), LG_OK);
    assert_true(elf.fns[1].flags & LG_FN_PHASED);
    assert_int_equal(elf.fns[1].lead, 16);
    assert_int_equal(elf.fns[1].align, 32);
    assert_true(elf.fns[2].flags & LG_FN_PHASED);
    assert_int_equal(elf.fns[2].lead, 0);
    assert_false(elf.fns[0].flags & LG_FN_PHASED);
    lg_layout_destroy(&out);
    free(text);
    free(again);
    lg_lor_destroy(&back);
    lg_lor_destroy(&lor);

    /* A section aligned to 64, more than the line: aligned to 64, phase 0 is all it can have. */
    elf.fns[1].align = 64;
    elf.fns[1].flags = 0;
    const char *wide = "lorgen-lor 1\ncache size=8192 line=32 ways=1\n"
                       "clique 1\n fn b phase=0\n";
    lg_lor_init(&back);
    assert_int_equal(lg_lor_parse(wide, strlen(wide), "w.lor", &back, &d), LG_OK);
    assert_int_equal(lg_lor_check(&back, &elf, "w.lor", &d), LG_OK);
    assert_int_equal(back.fns[0].align, 64);
    lg_lor_destroy(&back);
    lg_diag_destroy(&d);
    lg_program_destroy(&chosen);
    lg_program_destroy(&elf);
}

/* A phase the section's alignment cannot give: the linker would round it up. */
static void test_phase_against_section_alignment(void **state)
{
    (void)state;
    lg_program_t elf;
    phased_program(&elf);
    const char *text = "lorgen-lor 1\ncache size=8192 line=64 ways=1\n"
                       "clique 1\n fn a phase=48\n fn b phase=8\n fn c phase=40\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "s.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &elf, "s.lor", &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "s.lor:5: expected phase= a multiple of the 16-byte alignment of "
                                 "section .text.b, found 8: the linker would start 'b' at phase "
                                 "16 instead"));
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "s.lor:6: expected phase= a multiple of the 16-byte"
                                 " alignment of section .text.c, found 40: the "
                                 "linker would start 'c' at phase 48 instead"));
    assert_false(lg_test_diag_has(&d, LG_ERROR, "s.lor:4:"));
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "s.lor: 2 function(s) have a phase= that the linker "
                                 "cannot give them"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    lg_program_destroy(&elf);
}

/* A function that shares its input section (built without -ffunction-sections), or whose
 * section no object gives, moves only with its section: no padding reaches its phase. */
static void test_phase_on_a_function_that_cannot_move(void **state)
{
    (void)state;
    lg_program_t elf;
    phased_program(&elf);
    elf.fns[1].flags |= LG_FN_SHARED_SECTION;
    elf.fns[2].flags |= LG_FN_SECTION_UNKNOWN;
    const char *text = "lorgen-lor 1\ncache size=8192 line=32 ways=1\n"
                       "clique 1\n fn a phase=0\n fn b phase=16\n fn c phase=0\n";
    lg_lor_t lor;
    lg_lor_init(&lor);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_lor_parse(text, strlen(text), "m.lor", &lor, &d), LG_OK);
    assert_int_equal(lg_lor_check(&lor, &elf, "m.lor", &d), LG_EINVAL);
    assert_false(lg_test_diag_has(&d, LG_ERROR, "m.lor:4:"));
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "m.lor:5: expected phase= only on a function that moves alone, "
                                 "found it on 'b': shares its input section with other functions "
                                 "(build with -ffunction-sections); no padding can reach its "
                                 "phase: delete phase="));
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "m.lor:6: expected phase= only on a function that "
                                 "moves alone, found it on 'c': defined in none"));
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "m.lor: 2 function(s) have a phase= that the "
                                 "linker cannot give them"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    lg_program_destroy(&elf);
}

/* The comment above `cold` in a .LOR whose input order was kept gives the safeguard's reason,
 * or none when it is not known (a file read back). */
static void test_kept_input_order_says_why(void **state)
{
    (void)state;
    const struct {
        lg_lor_kept_t kept;
        const char *comment;
    } cases[] = {
        {LG_LOR_KEPT_MISSES_MORE, "\n# The input order was kept (the new layout was predicted to "
                                  "miss more):\n# every function keeps its place.\ncold 3\n"},
        {LG_LOR_KEPT_NO_CONFLICTS, "\n# The input order was kept (in this 8-way cache the model "
                                   "predicts no conflict misses for it):\n# every function keeps "
                                   "its place.\ncold 3\n"},
        {LG_LOR_KEPT_UNSAID, "\n# The input order was kept:\n# every function keeps its "
                             "place.\ncold 3\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_lor_t lor;
        lg_lor_init(&lor);
        lor.geometry = (lg_geometry_t){32768, 64, 8};
        lor.algorithm = strdup(LG_ALGORITHM_KEPT);
        lor.ncold = 3;
        lor.kept = cases[i].kept;
        size_t len;
        char *text = write_to_string(&lor, &len);
        size_t n = strlen(cases[i].comment);
        assert_true(len >= n);
        assert_string_equal(text + len - n, cases[i].comment);
        free(text);
        lg_lor_destroy(&lor);
    }
}

/* A fast region (--fast-region) is read back with its budget and members, which no clique
 * holds; a region without size= or budget=, a budget above the size, a name given twice or a
 * phased member is refused. */
static void test_regions_round_trip(void **state)
{
    (void)state;
    static const char text[] =
        "lorgen-lor 1\n"
        "region .itcm_text size=1024 budget=972 bytes=80 functions=2\n"
        "  fn hot size=64 hits=9 section=.text.hot object=a.o\n"
        "  fn warm size=16 hits=3\n"
        "clique 1\n"
        "  fn main size=32 hits=1\n"
        "cold 0\n";
    lg_lor_t lor;
    lg_diag_t d;
    lg_diag_init(&d);
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(text, strlen(text), "r.lor", &lor, &d), LG_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(lor.nregions, 1);
    assert_string_equal(lor.regions[0].name, ".itcm_text");
    assert_int_equal(lor.regions[0].size, 1024);
    assert_int_equal(lor.regions[0].budget, 972);
    assert_int_equal(lor.regions[0].bytes, 80);
    assert_int_equal(lor.regions[0].nfns, 2);
    assert_string_equal(lor.regions[0].fns[0].symbol, "hot");
    assert_string_equal(lor.regions[0].fns[0].object, "a.o");
    assert_int_equal(lor.nfns, 1);
    assert_string_equal(lor.fns[0].symbol, "main");
    size_t len;
    char *written = write_to_string(&lor, &len);
    assert_non_null(strstr(written, "\nregion .itcm_text size=1024 budget=972 bytes=80 "
                                    "functions=2\n  fn hot size=64 hits=9 section=.text.hot "
                                    "object=a.o\n  fn warm size=16 hits=3\n"));
    lg_lor_t back;
    lg_lor_init(&back);
    assert_int_equal(lg_lor_parse(written, len, "w.lor", &back, &d), LG_OK);
    assert_int_equal(back.nregions, 1);
    assert_int_equal(back.regions[0].nfns, 2);
    lg_lor_destroy(&back);
    free(written);
    lg_lor_destroy(&lor);
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"lorgen-lor 1\nregion r size=10\n", "r.lor:2: expected size= and budget= on region 'r', "
                                              "found no budget="},
        {"lorgen-lor 1\nregion r size=10 budget=11\n",
         "r.lor:2: expected budget= at most size= (10) on region 'r', found 11"},
        {"lorgen-lor 1\nregion r size=10 budget=1\nregion r size=10 budget=1\n",
         "r.lor:3: region 'r' is given twice (first on line 2)"},
        {"lorgen-lor 1\nregion r size=64 budget=64\n  fn f size=4 phase=0\n",
         "r.lor:3: expected no phase= on a member of region 'r': its members are packed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lg_diag_destroy(&d);
        lg_diag_init(&d);
        lg_lor_init(&lor);
        assert_int_equal(lg_lor_parse(bad[i].text, strlen(bad[i].text), "r.lor", &lor, &d),
                         LG_EFORMAT);
        if (!lg_test_diag_has(&d, LG_ERROR, bad[i].message))
            print_message("expected: %s\n", bad[i].message);
        assert_true(lg_test_diag_has(&d, LG_ERROR, bad[i].message));
        lg_lor_destroy(&lor);
    }
    lg_diag_destroy(&d);
}

/* A function is listed once in the whole file: two cliques, a clique and a region, two regions
 * or one region twice are refused at the second line, which names the first (and its region);
 * same-named statics that object= or source= tell apart are not the same function. */
static void test_function_listed_once_anywhere(void **state)
{
    (void)state;
#define REGION "region .itcm size=1024 budget=1024\n"
    static const struct {
        const char *text, *message;
    } twice[] = {
        {"lorgen-lor 1\n" REGION "  fn f\n  fn f\n",
         "t.lor:4: function 'f' is listed twice (first on line 3, in region '.itcm'); give "
         "object= or source= to tell same-named statics apart"},
        {"lorgen-lor 1\n" REGION "  fn f object=a.o\nclique 1\n  fn f\n",
         "t.lor:5: function 'f' is listed twice (first on line 3, in region '.itcm')"},
        {"lorgen-lor 1\nclique 1\n  fn f\n" REGION "  fn f object=a.o\n",
         "t.lor:5: function 'f' is listed twice (first on line 3);"},
        {"lorgen-lor 1\n" REGION "  fn g\n  fn f\nregion .sram size=64 budget=64\n  fn f\n",
         "t.lor:6: function 'f' is listed twice (first on line 4, in region '.itcm')"},
        /* Told apart from the first line, not from the second. */
        {"lorgen-lor 1\n" REGION "  fn f object=a.o\n  fn f object=b.o\n  fn f object=b.o\n",
         "t.lor:5: function 'f' is listed twice (first on line 4, in region '.itcm')"},
        {"lorgen-lor 1\nclique 1\n  fn f source=a.c\n  fn f source=b.c\n  fn f object=x.o\n",
         "t.lor:5: function 'f' is listed twice (first on line 3);"},
    };
    for (size_t i = 0; i < sizeof twice / sizeof *twice; i++) {
        lg_lor_t lor;
        lg_diag_t d;
        lg_diag_init(&d);
        lg_lor_init(&lor);
        lg_err_t err = lg_lor_parse(twice[i].text, strlen(twice[i].text), "t.lor", &lor, &d);
        lg_test_assert_one_error_has(err, &d, LG_EFORMAT, twice[i].message);
        assert_int_equal(lor.nregions, 0);
        assert_int_equal(lor.nfns, 0);
        lg_lor_destroy(&lor);
        lg_diag_destroy(&d);
    }
    static const char statics[] = "lorgen-lor 1\n" REGION "  fn f object=a.o\n  fn f object=b.o\n"
                                  "  fn f source=x.c object=c.o\n"
                                  "clique 1\n  fn f source=y.c object=c.o\n  fn f object=d.o\n"
                                  "  fn g source=a.c\n  fn g source=b.c\n";
#undef REGION
    lg_lor_t lor;
    lg_diag_t d;
    lg_diag_init(&d);
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(statics, strlen(statics), "t.lor", &lor, &d), LG_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(lor.regions[0].nfns, 3);
    assert_string_equal(lor.regions[0].fns[1].object, "b.o");
    assert_int_equal(lor.nfns, 4);
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

/* What the link keeps in a region besides its members (held=, pinned) is read and written back;
 * pinned outside a region is an error. */
static void test_region_held_and_pinned(void **state)
{
    (void)state;
    static const char text[] = "lorgen-lor 1\n"
                               "region .fast size=512 budget=100 bytes=64 functions=1 held=400\n"
                               "  pinned isr_entry\n"
                               "  pinned \"odd name\"\n"
                               "  fn hot size=64 hits=9\n";
    lg_lor_t lor;
    lg_diag_t d;
    lg_diag_init(&d);
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(text, strlen(text), "h.lor", &lor, &d), LG_OK);
    assert_int_equal(lor.regions[0].held, 400);
    assert_int_equal(lor.regions[0].npinned, 2);
    assert_string_equal(lor.regions[0].pinned[1], "odd name");
    size_t len;
    char *written = write_to_string(&lor, &len);
    assert_non_null(strstr(written, "region .fast size=512 budget=100 bytes=64 functions=1 "
                                    "held=400\n  pinned isr_entry\n  pinned \"odd name\"\n  fn hot"));
    free(written);
    lg_lor_destroy(&lor);
    static const char outside[] = "lorgen-lor 1\nclique 1\n  pinned isr_entry\n";
    lg_lor_init(&lor);
    assert_int_equal(lg_lor_parse(outside, strlen(outside), "p.lor", &lor, &d), LG_EFORMAT);
    assert_true(lg_test_diag_has(&d, LG_ERROR,
                                 "p.lor:3: expected 'pinned NAME' after a region statement, "
                                 "found it in a clique"));
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_is_byte_identical),
        cmocka_unit_test(test_hand_edited_minimal_file),
        cmocka_unit_test(test_odd_keys_do_not_break_the_round_trip),
        cmocka_unit_test(test_malformed_files_fail_with_line),
        cmocka_unit_test(test_line_ends_and_byte_order_mark),
        cmocka_unit_test(test_overlong_line_is_a_limit_error),
        cmocka_unit_test(test_check_fills_and_reports),
        cmocka_unit_test(test_long_names_round_trip),
        cmocka_unit_test(test_continued_words),
        cmocka_unit_test(test_same_named_objects_bind_by_path),
        cmocka_unit_test(test_object_takes_the_given_spelling),
        cmocka_unit_test(test_wrong_edits_are_errors),
        cmocka_unit_test(test_deleted_line_moves_later_cliques),
        cmocka_unit_test(test_phase_round_trip_and_check),
        cmocka_unit_test(test_phase_against_section_alignment),
        cmocka_unit_test(test_phase_on_a_function_that_cannot_move),
        cmocka_unit_test(test_kept_input_order_says_why),
        cmocka_unit_test(test_region_held_and_pinned),
        cmocka_unit_test(test_regions_round_trip),
        cmocka_unit_test(test_function_listed_once_anywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
