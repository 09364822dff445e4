/* buf.c - a growable byte buffer. */
#include "demo.h"

#include <stdlib.h>
#include <string.h>

void buf_init(buf_t *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_free(buf_t *b)
{
    free(b->data);
    buf_init(b);
}

void buf_reserve(buf_t *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (p == NULL)
        die("out of memory");
    b->data = p;
    b->cap = cap;
}

void buf_putc(buf_t *b, char c)
{
    buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void buf_puts(buf_t *b, const char *s)
{
    size_t n = strlen(s);
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

void buf_put_uint(buf_t *b, unsigned long v)
{
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    buf_reserve(b, (size_t)i);
    while (i > 0)
        b->data[b->len++] = tmp[--i];
    b->data[b->len] = '\0';
}
