/* bigalloc.h - tables of many megabytes that a pass reads in no order the hardware can guess,
 * backed by huge pages where the system offers them.
 *
 * On a large program the optimizer's tables (the call graph's lists, the clique pass's records
 * and seeds) take hundreds of megabytes, and a pass jumps between them at random. With 4 KiB
 * pages nearly every such jump also misses the translation cache, and on a virtual machine each
 * of those misses walks two page tables; 2 MiB pages cover the tables with a few hundred
 * entries. They also cut the page faults of first touching a table 512-fold. On the 1M-function
 * benchmark the graph took 0.43 to 0.61 s of CPU against 0.56 to 0.71 s, and the whole default
 * path about a tenth less
 * (docs/dev/experiments/2026-11-26-optimizer-scale-the-default-path-on-1m-functions.md).
 *
 * A hint only: where the system has no huge pages (or Linux's transparent huge pages are off),
 * the memory is ordinary and the results are the same. Free it with free().
 */
#ifndef LG_BIGALLOC_H
#define LG_BIGALLOC_H

#include <stddef.h>

/* Tables of at least this many bytes are placed on huge pages: the size of one on x86-64 (and
 * of the smallest on arm64), below which a table gains nothing. */
#define LG_HUGE_PAGE_BYTES (2u * 1024u * 1024u) /* bytes */

/* Like malloc(n * size), asking for huge pages when the table is large; NULL when n * size
 * overflows or memory runs out. */
void *lg_big_alloc(size_t n, size_t size);

/* Like calloc(n, size), the same way. */
void *lg_big_calloc(size_t n, size_t size);

#endif
