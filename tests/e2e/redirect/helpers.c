/* helpers.c - tests/e2e/redirected_calls.sh: ordinary calls, so that the redirected ones are a
 * minority of the profile's arcs, as in a real program; and twice, which GCC inlines into spin
 * at every call though the build keeps it out of line (it is global), and which the
 * instrumented build reports as called 40,000 times. */
#include "redirect.h"

volatile unsigned helpers_sink;

__attribute__((noinline)) unsigned h1(unsigned x)
{
    return x * 7u;
}

__attribute__((noinline)) unsigned h2(unsigned x)
{
    return x * 11u + 1u;
}

__attribute__((noinline)) unsigned h3(unsigned x)
{
    return x ^ 0x55u;
}

__attribute__((noinline)) unsigned h4(unsigned x)
{
    return (x << 2) | 1u;
}

__attribute__((noinline)) unsigned h5(unsigned x)
{
    return x - (x >> 4);
}

unsigned twice(unsigned x)
{
    return x * 2u + helpers_sink;
}

__attribute__((noinline)) unsigned spin(unsigned n)
{
    unsigned acc = 0;
    for (unsigned i = 0; i < n; i++)
        acc += twice(i);
    return acc;
}
