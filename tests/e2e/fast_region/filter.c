/* filter.c - a median filter: copy the window, sort the copy, take the middle. */
#include "fw.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WINDOW 16u

FW_NOINLINE int cmp_sample(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

FW_NOINLINE int32_t filter_median(const int32_t *window, size_t n)
{
    int32_t sorted[MAX_WINDOW];
    if (n > MAX_WINDOW)
        n = MAX_WINDOW;
    memcpy(sorted, window, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_sample);
    return sorted[n / 2];
}
