/* main.c - placeholder until the CLI lands. */
#include <stdio.h>
int main(void)
{
    puts("lorgen " LORGEN_VERSION);
    return 0;
}
