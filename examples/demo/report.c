/* report.c - prints the results. Mostly cold: runs once per round or once per program. */
#include "demo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

void report_round(const round_stats_t *s)
{
    printf("round %2d: %6zu bytes %5zu words %3zu numbers %3zu exprs (sum %" PRId64 ") "
           "lz %zu crc %08x adler %08x fletcher %04x\n",
           s->round, s->bytes, s->words, s->numbers, s->exprs, s->expr_sum, s->packed,
           (unsigned)s->crc, (unsigned)s->adler, (unsigned)s->fletcher);
}

void report_top_words(word_entry_t **v, size_t n, size_t k)
{
    printf("top %zu of %zu distinct words:\n", k < n ? k : n, n);
    for (size_t i = 0; i < k && i < n; i++)
        printf("  %2zu. %-12s %6lu\n", i + 1, v[i]->word, v[i]->count);
}

static size_t percentile_index(size_t n, unsigned pct)
{
    return n == 0 ? 0 : (n - 1) * pct / 100;
}

void report_numbers(const long *v, size_t n)
{
    if (n == 0) {
        printf("no numbers\n");
        return;
    }
    printf("numbers: %zu, min %ld, median %ld, p90 %ld, max %ld\n", n, v[0],
           v[percentile_index(n, 50)], v[percentile_index(n, 90)], v[n - 1]);
}

/* A histogram of word lengths over distinct words. */
void report_lengths(word_entry_t **v, size_t n)
{
    size_t hist[16] = {0};
    for (size_t i = 0; i < n; i++)
        hist[v[i]->len < 15 ? v[i]->len : 15]++;
    printf("word lengths:");
    for (int len = 1; len < 16; len++)
        if (hist[len] != 0)
            printf(" %d:%zu", len, hist[len]);
    printf("\n");
}

void die(const char *what)
{
    fflush(stdout);
    fprintf(stderr, "demo: error: %s\n", what);
    exit(1);
}
