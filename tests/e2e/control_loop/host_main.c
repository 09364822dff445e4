/* host_main.c - runs the firmware loop on the host, for profiling and output checks. */
#include "fw.h"

#include <stdio.h>

int main(void)
{
    printf("fw_run: %u\n", fw_run(20000u));
    return 0;
}
