/* main.c - fast_region_statics.sh: runs a.c's helper a million times and b.c's a thousand. */
#include <stdio.h>

int a_run(int n);
int b_run(int n);

int main(void)
{
    printf("%d %d\n", a_run(1000000), b_run(1000));
    return 0;
}
