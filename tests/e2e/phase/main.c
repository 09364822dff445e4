/* main.c - the hosted entry of tests/e2e/phase.sh: prints a result that a relink must keep. */
#include "ph.h"

#include <stdio.h>

int main(void)
{
    printf("%u\n", ph_run(1000u));
    return 0;
}
