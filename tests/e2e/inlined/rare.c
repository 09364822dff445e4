/* rare.c - tests/e2e/inlined.sh: calls leaf from another translation unit, so this build
 * really calls it, a few times. */
#include "inl.h"

unsigned rare(unsigned n)
{
    unsigned acc = 0;
    for (unsigned i = 0; i < n; i++)
        acc ^= leaf(i);
    return acc;
}
