/* ifunc.c - tests/e2e/redirected_calls.sh: sum is an IFUNC; its callers name sum, the loader
 * sends them to sum_fast. The resolver runs during relocation, before the tracer is set up, so
 * it is not instrumented. */
#include "redirect.h"

__attribute__((noinline)) unsigned sum_fast(unsigned x)
{
    return x + (x >> 1);
}

__attribute__((noinline)) unsigned sum_slow(unsigned x)
{
    unsigned r = 0;
    for (unsigned i = 0; i < 3; i++)
        r += x >> i;
    return r;
}

__attribute__((no_instrument_function)) static unsigned (*resolve_sum(void))(unsigned)
{
    return sum_fast;
}

unsigned sum(unsigned x) __attribute__((ifunc("resolve_sum")));
