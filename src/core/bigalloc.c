/* bigalloc.c - large tables on huge pages: aligned to the huge page size and marked with
 * madvise(MADV_HUGEPAGE) before their first touch, so that Linux backs them with huge pages as
 * they fault in (transparent huge pages in "madvise" mode, the default, do that only for marked
 * memory). bigalloc.h says why. */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE, beside the POSIX names */

#include "bigalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* bytes rounded up to whole huge pages; 0 when that does not fit a size_t. */
static size_t huge_bytes(size_t bytes)
{
    if (bytes > SIZE_MAX - LG_HUGE_PAGE_BYTES)
        return 0;
    return (bytes + LG_HUGE_PAGE_BYTES - 1) / LG_HUGE_PAGE_BYTES * LG_HUGE_PAGE_BYTES;
}

void *lg_big_alloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    size_t plain = n * size;
    if (plain < LG_HUGE_PAGE_BYTES)
        return malloc(plain > 0 ? plain : 1);
    size_t bytes = huge_bytes(plain);
    if (bytes == 0)
        return NULL;
    void *p = aligned_alloc(LG_HUGE_PAGE_BYTES, bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p != NULL)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failing it changes nothing */
#endif
    return p;
}

void *lg_big_calloc(size_t n, size_t size)
{
    void *p = lg_big_alloc(n, size);
    if (p != NULL) /* lg_big_alloc checked that n * size does not wrap */
        memset(p, 0, n * size);
    return p;
}
