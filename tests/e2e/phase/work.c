/* work.c - the functions tests/e2e/phase.sh orders and phases; no library calls, so that the
 * freestanding link (board.ld) takes them as they are. */
#include "ph.h"

unsigned ph_small(unsigned x)
{
    return x * 2654435761u + 1u;
}

/* Large enough to span several cache lines: a switch the compiler cannot fold. */
unsigned ph_big(unsigned x)
{
    unsigned acc = x;
    for (unsigned i = 0; i < 8u; i++) {
        switch ((acc >> (i * 3u)) & 7u) {
        case 0:
            acc = acc * 31u + 7u;
            break;
        case 1:
            acc ^= acc << 13;
            break;
        case 2:
            acc ^= acc >> 17;
            break;
        case 3:
            acc += 0x9e3779b9u;
            break;
        case 4:
            acc = (acc << 5) | (acc >> 27);
            break;
        case 5:
            acc -= i * 0x85ebca6bu;
            break;
        case 6:
            acc = ~acc + i;
            break;
        default:
            acc *= 0xc2b2ae35u;
            break;
        }
    }
    return acc;
}

unsigned ph_tail(unsigned x)
{
    return (x ^ (x >> 16)) + 3u;
}

unsigned ph_run(unsigned n)
{
    unsigned acc = 1u;
    for (unsigned t = 0; t < n; t++)
        acc = ph_tail(ph_big(ph_small(acc + t)));
    return acc;
}
