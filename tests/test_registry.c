/* test_registry.c - format detection: every sample and fixture is claimed by exactly its own
 * loader's probe, never by another's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "prf.h"
#include "registry.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES LORGEN_SOURCE_DIR "/tests/fixtures"

/* Checks that the head of path is claimed by the loader named want, and by no other. */
static void expect_claimed_by(const char *path, const uint8_t *head, size_t len, const char *want)
{
    size_t n;
    const lg_loader_t *loaders = lg_loaders(&n);
    size_t claims = 0;
    for (size_t i = 0; i < n; i++) {
        if (!loaders[i].probe(head, len))
            continue;
        claims++;
        if (strcmp(loaders[i].name, want) != 0) {
            print_message("%s: claimed by %s, expected %s\n", path, loaders[i].name, want);
            fail();
        }
    }
    if (claims != 1) {
        print_message("%s: claimed by %zu loaders, expected exactly %s\n", path, claims, want);
        fail();
    }
    const lg_loader_t *detected = lg_loader_detect(head, len);
    assert_non_null(detected);
    assert_string_equal(detected->name, want);
}

static void check_file(const char *path, const char *want)
{
    size_t size;
    uint8_t *data = lg_test_read_file(path, &size);
    assert_non_null(data);
    expect_claimed_by(path, data, size < LG_PROBE_BYTES ? size : LG_PROBE_BYTES, want);
    free(data);
}

/* The format a fixture directory or sample name holds, or NULL for files that are not
 * profiles (READMEs, malformed fixtures named bad_*). */
static const char *format_of(const char *dir, const char *name)
{
    if (strstr(name, "README") || strncmp(name, "bad", 3) == 0 || name[0] == '.')
        return NULL;
    if (strcmp(dir, "samples") == 0) {
        if (strncmp(name, "callgrind_", 10) == 0)
            return "callgrind";
        if (strncmp(name, "aprof_", 6) == 0)
            return "aprof";
        if (strncmp(name, "perfscript_", 11) == 0)
            return "perf-script";
        return NULL;
    }
    if (strcmp(dir, "callgrind") == 0 || strcmp(dir, "aprof") == 0)
        return dir;
    if (strcmp(dir, "perf") == 0)
        return "perf-script";
    if (strcmp(dir, "winidea") == 0) {
        const char *dot = strrchr(name, '.');
        if (dot != NULL && strcmp(dot, ".txt") == 0)
            return "winidea-text1";
        if (dot != NULL && strcmp(dot, ".xml") == 0)
            return "winidea-xml";
    }
    return NULL;
}

static void test_every_fixture_is_claimed_by_its_own_loader(void **state)
{
    (void)state;
    const char *dirs[] = {"samples", "callgrind", "aprof", "perf", "winidea"};
    size_t checked = 0;
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        char dirpath[512];
        snprintf(dirpath, sizeof dirpath, FIXTURES "/%s", dirs[k]);
        DIR *dir = opendir(dirpath);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            const char *want = format_of(dirs[k], e->d_name);
            if (want == NULL)
                continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
            check_file(path, want);
            checked++;
        }
        closedir(dir);
    }
    /* 8 public samples and at least one fixture per text format. */
    assert_true(checked >= 8 + 5);
}

static void test_prf_from_the_writer_is_claimed_by_prf(void **state)
{
    (void)state;
    lg_prf_header_t h = {.type = LG_PRF_TYPE_STATISTICAL};
    lg_prf_writer_t w;
    lg_prf_writer_init(&w, &h);
    lg_prf_record_fields_t f = {.description = 1, .hits = 3, .name = "main"};
    lg_prf_write_function(&w, &f);
    assert_int_equal(lg_prf_writer_finish(&w), LG_OK);
    expect_claimed_by("writer.prf", w.buf.data, w.buf.size, "prf");
    lg_prf_writer_destroy(&w);
}

static void test_text_and_binary_junk_is_claimed_by_none(void **state)
{
    (void)state;
    const char *junk[] = {"hello world\n", "#!/bin/sh\necho hi\n", "\x7f" "ELF\x02\x01\x01",
                          "", "PROFILER FILE"};
    for (size_t i = 0; i < sizeof junk / sizeof *junk; i++)
        assert_null(lg_loader_detect((const uint8_t *)junk[i], strlen(junk[i])));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fixture_is_claimed_by_its_own_loader),
        cmocka_unit_test(test_prf_from_the_writer_is_claimed_by_prf),
        cmocka_unit_test(test_text_and_binary_junk_is_claimed_by_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
