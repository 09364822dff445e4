/* test_source.c - the loaders' shared source layer: lines (length limit, NUL, CRLF, byte order
 * mark), numbers, quoting, message locations and the byte window. */
#include "source.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const lg_line_rules_t rules = {8, "LIMIT", true};

/* Reads every line of text as memory and as a file; lines joined with '|' into out. Returns the
 * error of the first line that fails, its message in *message ("" when none). */
static lg_err_t read_lines(const char *text, size_t size, bool from_file, char *out, size_t cap,
                           char *message, size_t mcap)
{
    lg_diag_t d;
    lg_diag_init(&d);
    lg_source_t s;
    if (from_file)
        assert_int_equal(lg_source_open(&s, lg_test_write_file("t.txt", text, size), NULL, &d),
                         LG_OK);
    else
        lg_source_memory(&s, text, size, "t.txt", NULL, &d);
    out[0] = '\0';
    lg_err_t err;
    for (;;) {
        char *line;
        size_t len;
        bool got;
        err = lg_source_next_line(&s, &rules, &line, &len, &got);
        if (err != LG_OK || !got)
            break;
        assert_int_equal(strlen(line), len);
        strncat(out, line, cap - strlen(out) - 1);
        strncat(out, "|", cap - strlen(out) - 1);
    }
    message[0] = '\0';
    if (d.count > 0) {
        const char *where = d.entries[0].where;
        const char *base = strstr(where, "t.txt");
        snprintf(message, mcap, "%s: %s", base != NULL ? base : where, d.entries[0].message);
    }
    lg_source_close(&s);
    lg_diag_destroy(&d);
    return err;
}

static void check_lines(const char *text, size_t size, lg_err_t want, const char *lines,
                        const char *message)
{
    for (int file = 0; file < 2; file++) {
        char out[256], got[256];
        assert_int_equal(read_lines(text, size, file, out, sizeof out, got, sizeof got), want);
        assert_string_equal(out, lines);
        assert_string_equal(got, message);
    }
}

static void test_line_ends(void **state)
{
    (void)state;
    check_lines("a\nbb\r\n\ncc", 9, LG_OK, "a|bb||cc|", "");
    check_lines("", 0, LG_OK, "", "");
    /* Only one carriage return goes: the format sees the rest. */
    check_lines("x\r\r\n", 4, LG_OK, "x\r|", "");
    /* A byte order mark goes before line 1 only. */
    check_lines("\xEF\xBB\xBFz\n\xEF\xBB\xBFz\n", 10, LG_OK, "z|\xEF\xBB\xBFz|", "");
}

static void test_line_limit(void **state)
{
    (void)state;
    /* 8 bytes without the line feed pass; with a carriage return they count 9. */
    check_lines("12345678\n", 9, LG_OK, "12345678|", "");
    check_lines("12345678", 8, LG_OK, "12345678|", "");
    check_lines("ok\n123456789\n", 13, LG_ELIMIT, "ok|",
                "t.txt:2: line is longer than 8 bytes (LIMIT)");
    check_lines("1234567\r\n", 9, LG_OK, "1234567|", "");
    check_lines("12345678\r\n", 10, LG_ELIMIT, "", "t.txt:1: line is longer than 8 bytes (LIMIT)");
}

static void test_nul_byte(void **state)
{
    (void)state;
    check_lines("a\nxy\0z\n", 7, LG_EFORMAT, "a|", "t.txt:2:3: expected text, found a NUL byte");
}

static void test_long_lines_across_blocks(void **state)
{
    (void)state;
    /* Lines that straddle the file's read blocks come back whole. */
    size_t n = 3 * LG_SOURCE_BLOCK_BYTES + 17;
    char *text = malloc(n);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = (i % 7 == 6) ? '\n' : (char)('a' + i % 7);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_source_t s;
    assert_int_equal(lg_source_open(&s, lg_test_write_file("blocks.txt", text, n), NULL, &d), LG_OK);
    size_t lines = 0, bytes = 0;
    for (;;) {
        char *line;
        size_t len;
        bool got;
        assert_int_equal(lg_source_next_line(&s, &rules, &line, &len, &got), LG_OK);
        if (!got)
            break;
        assert_memory_equal(line, "abcdef", len);
        lines++;
        bytes += len + 1;
    }
    assert_int_equal(lines, (n + 6) / 7);
    assert_int_equal(s.line, lines);
    lg_source_close(&s);
    lg_diag_destroy(&d);
    free(text);
}

static void test_numbers(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(lg_parse_u64("18446744073709551615", 20, 0, &v), LG_NUMBER_OK);
    assert_true(v == UINT64_MAX);
    v = 7;
    assert_int_equal(lg_parse_u64("18446744073709551616", 20, 0, &v), LG_NUMBER_OVERFLOW);
    assert_int_equal(v, 7);
    assert_int_equal(lg_parse_u64("99999999999999999999", 20, 0, &v), LG_NUMBER_OVERFLOW);
    assert_int_equal(lg_parse_u64("0xFFFFFFFFFFFFFFFF", 18, LG_NUMBER_HEX_PREFIX, &v),
                     LG_NUMBER_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(lg_parse_u64("0x10000000000000000", 19, LG_NUMBER_HEX_PREFIX, &v),
                     LG_NUMBER_OVERFLOW);
    assert_int_equal(lg_parse_u64("0x1f", 4, 0, &v), LG_NUMBER_BAD);
    assert_int_equal(lg_parse_u64("0x", 2, LG_NUMBER_HEX_PREFIX, &v), LG_NUMBER_BAD);
    assert_int_equal(lg_parse_u64("", 0, 0, &v), LG_NUMBER_BAD);
    assert_int_equal(lg_parse_u64("12a", 3, 0, &v), LG_NUMBER_BAD);
    assert_int_equal(lg_parse_u64("-1", 2, 0, &v), LG_NUMBER_BAD);
    assert_int_equal(lg_parse_u64("123456", 3, 0, &v), LG_NUMBER_OK); /* only n bytes are read */
    assert_int_equal(v, 123);
}

static void test_quote(void **state)
{
    (void)state;
    char q[LG_QUOTE_BUFFER(8)];
    assert_string_equal(lg_quote("plain", 5, 8, q), "plain");
    assert_string_equal(lg_quote("a\0b\n\x7f\xff", 6, 8, q), "a\\x00b\\x0a\\x7f\\xff");
    assert_string_equal(lg_quote("123456789", 9, 8, q), "12345678...");
    /* The worst case fills the buffer exactly. */
    assert_string_equal(lg_quote("\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9, 8, q),
                        "\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08...");
    assert_int_equal(strlen(q) + 1, sizeof q);
}

static void test_message_locations(void **state)
{
    (void)state;
    lg_diag_t d;
    lg_diag_init(&d);
    lg_source_t s;
    lg_source_memory(&s, "", 0, "in.x", NULL, &d);
    assert_int_equal(lg_source_fail(&s, LG_EFORMAT, 3, 7, "bad %d", 1), LG_EFORMAT);
    lg_source_report(&s, LG_WARNING, 3, 0, "w");
    lg_source_report(&s, LG_NOTE, 0, 0, "n");
    assert_int_equal(lg_source_fail_record(&s, LG_ELIMIT, 0x1a40, NULL, 812, "r"), LG_ELIMIT);
    lg_source_fail_record(&s, LG_EFORMAT, 0x10, "trace", 2, "t");
    lg_source_fail_record(&s, LG_EFORMAT, 0x0e, "header", LG_SOURCE_NO_RECORD, "h");
    assert_int_equal(d.count, 6);
    static const char *const where[] = {"in.x:3:7", "in.x:3", "in.x", "in.x:0x1a40: record 812",
                                        "in.x:0x10: trace record 2", "in.x:0xe: header"};
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(d.entries[i].where, where[i]);
    assert_string_equal(d.entries[0].message, "bad 1");
    assert_int_equal(d.entries[1].severity, LG_WARNING);
    lg_source_close(&s);
    lg_diag_destroy(&d);
}

typedef struct seen {
    uint64_t calls, last, total;
} seen_t;

static void count_progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
    (void)path;
    seen_t *s = ctx;
    assert_true(done >= s->last);
    s->calls++;
    s->last = done;
    s->total = total;
}

static void test_window_and_progress(void **state)
{
    (void)state;
    size_t n = 2 * LG_SOURCE_PROGRESS_BYTES + 100;
    uint8_t *data = malloc(n);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 31u);
    seen_t seen = {0};
    lg_load_options_t o = {.progress = count_progress, .progress_ctx = &seen};
    lg_diag_t d;
    lg_diag_init(&d);
    lg_source_t s;
    assert_int_equal(lg_source_open(&s, lg_test_write_file("bytes.bin", data, n), &o, &d), LG_OK);
    /* Forward steps, some skipping ahead past the window. */
    for (uint64_t at = 0; at < n; at += at % 3 == 0 ? 70001 : 1234567) {
        assert_int_equal(lg_source_window(&s, at, 1000), LG_OK);
        size_t have = (size_t)(s.base + s.len - at);
        assert_true(have >= (n - at < 1000 ? n - at : 1000));
        assert_memory_equal(lg_source_at(&s, at), data + at, n - at < 1000 ? n - at : 1000);
        /* The window sits in memory as the file offsets sit in pages: reads land aligned. */
        assert_int_equal((uintptr_t)lg_source_at(&s, at) % LG_SOURCE_ALIGN, at % LG_SOURCE_ALIGN);
    }
    assert_int_equal(lg_source_window(&s, n, 10), LG_OK);
    assert_true(s.eof);
    assert_true(seen.calls >= 2);
    assert_int_equal(seen.total, n);
    assert_int_equal(seen.last, n);
    lg_source_close(&s);
    lg_diag_destroy(&d);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_ends),         cmocka_unit_test(test_line_limit),
        cmocka_unit_test(test_nul_byte),          cmocka_unit_test(test_long_lines_across_blocks),
        cmocka_unit_test(test_numbers),           cmocka_unit_test(test_quote),
        cmocka_unit_test(test_message_locations), cmocka_unit_test(test_window_and_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
