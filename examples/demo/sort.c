/* sort.c - a recursive merge sort for word entries and a recursive quicksort for numbers. */
#include "demo.h"

#include <stdlib.h>
#include <string.h>

#define INSERTION_SORT_MAX 12 /* elements: below this, insertion sort beats recursion */

static int entry_before(const word_entry_t *a, const word_entry_t *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    return strcmp(a->word, b->word) < 0;
}

static void insertion_sort(word_entry_t **v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        word_entry_t *x = v[i];
        size_t j = i;
        while (j > 0 && entry_before(x, v[j - 1])) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static void merge_runs(word_entry_t **v, size_t mid, size_t n, word_entry_t **tmp)
{
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n)
        tmp[k++] = entry_before(v[j], v[i]) ? v[j++] : v[i++];
    while (i < mid)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static void msort_rec(word_entry_t **v, size_t n, word_entry_t **tmp)
{
    if (n <= INSERTION_SORT_MAX) {
        insertion_sort(v, n);
        return;
    }
    size_t mid = n / 2;
    msort_rec(v, mid, tmp);
    msort_rec(v + mid, n - mid, tmp);
    merge_runs(v, mid, n, tmp);
}

void sort_entries(word_entry_t **v, size_t n)
{
    word_entry_t **tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (tmp == NULL)
        die("out of memory");
    msort_rec(v, n, tmp);
    free(tmp);
}

static void swap_longs(long *a, long *b)
{
    long t = *a;
    *a = *b;
    *b = t;
}

/* Orders v[0] <= v[mid] <= v[n - 1], leaving the median of the three in the middle. */
static void median3(long *v, size_t mid, size_t n)
{
    if (v[mid] < v[0])
        swap_longs(&v[mid], &v[0]);
    if (v[n - 1] < v[mid]) {
        swap_longs(&v[n - 1], &v[mid]);
        if (v[mid] < v[0])
            swap_longs(&v[mid], &v[0]);
    }
}

/* Hoare partition around the median of three. Returns j < n - 1 with v[0..j] <= pivot <=
 * v[j+1..n-1], so both halves are non-empty. */
static size_t partition(long *v, size_t n)
{
    size_t mid = (n - 1) / 2;
    median3(v, mid, n);
    long pivot = v[mid];
    size_t i = 0, j = n - 1;
    for (;;) {
        while (v[i] < pivot)
            i++;
        while (v[j] > pivot)
            j--;
        if (i >= j)
            return j;
        swap_longs(&v[i++], &v[j--]);
    }
}

static void qsort_rec(long *v, size_t n)
{
    while (n > 1) {
        size_t p = partition(v, n) + 1;
        if (p < n - p) { /* recurse into the smaller half, loop on the larger */
            qsort_rec(v, p);
            v += p;
            n -= p;
        } else {
            qsort_rec(v + p, n - p);
            n = p;
        }
    }
}

void sort_longs(long *v, size_t n)
{
    qsort_rec(v, n);
}
