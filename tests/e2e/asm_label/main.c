/* main.c - tests/e2e/asm_labels.sh: calls the assembly loop 2,999 times. */
#include <stdio.h>

unsigned asm_sum_loop(unsigned n);
unsigned asm_other(unsigned n);

__attribute__((noinline)) unsigned c_part(unsigned x)
{
    return x * 3u;
}

int main(void)
{
    unsigned a = 0;
    for (unsigned i = 1; i < 3000; i++)
        a += asm_sum_loop(i) + c_part(i) + asm_other(i);
    printf("%u\n", a);
    return 0;
}
