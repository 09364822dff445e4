/* hot.c - tests/e2e/inlined.sh: leaf is small, so GCC inlines it into hot_loop at -O2; an
 * instrumented build reports those inlined copies as calls of leaf all the same. */
#include "inl.h"

volatile unsigned inl_sink;

unsigned leaf(unsigned x)
{
    return (x * 2654435761u) ^ (x >> 7);
}

unsigned hot_loop(unsigned n)
{
    unsigned acc = 0;
    for (unsigned i = 0; i < n; i++)
        acc += leaf(i + inl_sink);
    return acc;
}
