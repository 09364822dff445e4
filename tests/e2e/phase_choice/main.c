/* main.c - the entry of tests/e2e/phase_choice.sh: runs the loop and prints its count. */
#include <stdio.h>

unsigned long ph_loop(unsigned long n);

int main(void)
{
    printf("%lu\n", ph_loop(200000ul));
    return 0;
}
