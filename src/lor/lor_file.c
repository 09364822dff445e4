/* lor_file.c - reads a .LOR file into memory, bounded. */
#include "lor_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* First size of the buffer, in bytes: most .LOR files fit it. */
#define FIRST_CAPACITY (1u << 16)

lg_err_t lg_lor_read_file(const char *path, uint64_t max_bytes, char **text, size_t *len,
                          lg_diag_t *d)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return lg_diag_fail(d, LG_EIO, path, "cannot open: %s", strerror(errno));
    lg_err_t err = LG_OK;
    size_t cap = FIRST_CAPACITY, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || ferror(f))
            break;
        if (cap >= max_bytes) {
            err = lg_diag_fail(d, LG_ELIMIT, path, "larger than %llu bytes: not a .LOR file",
                               (unsigned long long)max_bytes);
            break;
        }
        char *grown = realloc(buf, cap * 2);
        if (grown == NULL)
            break;
        buf = grown;
        cap *= 2;
    }
    if (buf != NULL && err == LG_OK && ferror(f))
        err = lg_diag_fail(d, LG_EIO, path, "read failed: %s", strerror(errno));
    else if (err == LG_OK && (buf == NULL || n == cap))
        err = LG_ENOMEM; /* the first malloc or a realloc failed */
    fclose(f);
    if (err != LG_OK) {
        free(buf);
        return err;
    }
    *text = buf;
    *len = n;
    return LG_OK;
}
