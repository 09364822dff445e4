/* start.c - bare-metal entry: the board linker script keeps it first. */
#include "fw.h"

volatile u32 fw_result;

void _start(void)
{
    fw_result = fw_run(1000u);
    for (;;) {
    }
}
