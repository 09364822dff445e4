/* app.c - a program with three hot functions of its own and one the board keeps in the fast
 * region by a section attribute (pinned.S): fast_region_held.sh's subject. */
#include <stdio.h>

int pinned_step(int x); /* pinned.S: in .ramfunc, which the script puts in .fast_text */

__attribute__((noinline)) int mix(int x)
{
    for (int i = 0; i < 8; i++)
        x = x * 1103515245 + 12345 + i;
    return x;
}

__attribute__((noinline)) int fold(int x)
{
    int s = 0;
    for (int i = 0; i < 16; i++)
        s ^= (x >> i) & 0xff;
    return s;
}

__attribute__((noinline)) int spread(int x)
{
    int s = x;
    for (int i = 0; i < 12; i++)
        s += (s << 3) ^ (s >> 5) ^ i;
    return s;
}

int main(void)
{
    unsigned sum = 0;
    for (int i = 0; i < 20000; i++) {
        sum += (unsigned)mix(i);
        sum += (unsigned)fold(i);
        if (i % 4 == 0)
            sum += (unsigned)spread(i);
        sum += (unsigned)pinned_step(i);
    }
    printf("sum %u\n", sum);
    return 0;
}
