/* host_libc.c - the C library calls the firmware makes, for its host build. They are built with
 * -finstrument-functions like the firmware, so the tracer records every call the firmware makes
 * into memcpy, memset, strlen, qsort and snprintf, under the names newlib gives them, and the
 * calls qsort makes back into the firmware's comparator. The code inside is the host's, not
 * newlib's: what the profile says of the C library is who calls it and how often. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

size_t strlen(const char *s)
{
    const char *p = s;
    while (*p)
        p++;
    return (size_t)(p - s);
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    unsigned char *a = base;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size) > 0; j--)
            for (size_t k = 0; k < size; k++) {
                unsigned char t = a[(j - 1) * size + k];
                a[(j - 1) * size + k] = a[j * size + k];
                a[j * size + k] = t;
            }
}

int snprintf(char *restrict buf, size_t n, const char *restrict fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}
