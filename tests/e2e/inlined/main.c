/* main.c - tests/e2e/inlined.sh: many inlined calls of leaf, a few real ones. */
#include "inl.h"

#include <stdio.h>

int main(void)
{
    printf("%u %u\n", hot_loop(200000), rare(20));
    return 0;
}
