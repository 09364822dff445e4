/* prefetch.h - asking the cache for memory a loop will read or write a few steps later.
 *
 * The passes over a large program walk tables indexed by function (the call graph's runs, the
 * clique pass's records) in an order the hardware cannot guess: each step is a cache miss, and
 * the misses of consecutive steps overlap only as far as the processor looks ahead. Asking a
 * few steps early lets many overlap (docs/benchmarks.md, "Optimizer scale"). A hint only: it
 * changes no result, and compilers without the builtin get nothing.
 */
#ifndef LG_PREFETCH_H
#define LG_PREFETCH_H

/* How many steps ahead a loop over arcs, neighbours or seeds asks for what it will touch: far
 * enough for a miss to arrive (about a hundred nanoseconds), near enough that what arrived is
 * still cached when the step comes. */
#define LG_PREFETCH_AHEAD 8u

/* Asks for the cache line holding p, to be read. */
static inline void lg_prefetch(const void *p)
{
#if defined(__GNUC__)
    __builtin_prefetch(p, 0);
#else
    (void)p;
#endif
}

/* Asks for the cache line holding p, to be written. */
static inline void lg_prefetch_write(const void *p)
{
#if defined(__GNUC__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
}

#endif
