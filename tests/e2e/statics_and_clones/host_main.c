/* host_main.c - runs the loop on the host, for profiling and output checks. */
#include "lk.h"

#include <stdio.h>

int main(void)
{
    printf("lk_run: %u\n", lk_run(3000u));
    return 0;
}
