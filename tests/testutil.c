/* testutil.c - helpers shared by the cmocka unit tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char *lg_test_write_file(const char *name, const void *data, size_t size)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", LORGEN_TEST_TMPDIR, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (size > 0)
        assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    return path;
}

uint8_t *lg_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

bool lg_test_diag_has(const lg_diag_t *d, lg_severity_t sev, const char *needle)
{
    char line[8192];
    for (size_t i = 0; i < d->count; i++) {
        if (d->entries[i].severity != sev)
            continue;
        snprintf(line, sizeof line, "%s: %s", d->entries[i].where, d->entries[i].message);
        if (strstr(line, needle) != NULL)
            return true;
    }
    return false;
}

void lg_test_diag_dump(const lg_diag_t *d)
{
    static const char *names[] = {"note", "warning", "error"};
    for (size_t i = 0; i < d->count; i++)
        print_message("  diag %s: %s: %s\n", names[d->entries[i].severity], d->entries[i].where,
                      d->entries[i].message);
}

int lg_test_run(const char *command)
{
    int status = system(command);
    if (status == -1 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

bool lg_test_have(const char *program)
{
    char command[1024];
    snprintf(command, sizeof command, "command -v '%s' >/dev/null 2>&1", program);
    return lg_test_run(command) == 0;
}

static uint64_t rng_state;

void lg_test_seed(uint64_t seed)
{
    rng_state = seed;
}

uint64_t lg_test_rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
