/* mem.c - overflow-checked allocation helpers. */
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* First capacity of a grown array, in elements. */
#define LG_GROW_MIN_ELEMS 16u

bool lg_grow(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : LG_GROW_MIN_ELEMS;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (elem != 0 && n > SIZE_MAX / elem)
        return false;
    void *grown = realloc(*array, n * elem);
    if (grown == NULL)
        return false;
    *array = grown;
    *cap = n;
    return true;
}

char *lg_strdup_opt(const char *s, bool *ok)
{
    if (s == NULL)
        return NULL;
    char *copy = strdup(s);
    if (copy == NULL)
        *ok = false;
    return copy;
}

char *lg_strndup(const char *s, size_t n)
{
    char *copy = malloc(n + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    return copy;
}

uint64_t lg_scale_count(uint64_t v, double scale)
{
    if (scale == 1.0)
        return v;
    double x = nearbyint((double)v * scale);
    /* 2^64 as a double: anything at or above it saturates. */
    if (!(x < 18446744073709551616.0))
        return x > 0 ? UINT64_MAX : 0;
    return x <= 0 ? 0 : (uint64_t)x;
}

char *lg_vformat(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s != NULL)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *lg_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = lg_vformat(fmt, ap);
    va_end(ap);
    return s;
}
