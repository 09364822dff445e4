/* start.c - the freestanding entry of tests/e2e/phase.sh: board.ld keeps it first. */
#include "ph.h"

volatile unsigned ph_result;

void _start(void)
{
    ph_result = ph_run(100u);
    for (;;) {
    }
}
