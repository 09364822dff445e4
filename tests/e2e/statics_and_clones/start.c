/* start.c - bare-metal entry: the board linker script keeps it first. */
#include "lk.h"

volatile u32 lk_result;

void _start(void)
{
    lk_result = lk_run(100u);
    for (;;) {
    }
}
