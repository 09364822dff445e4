/* a.c - fast_region_statics.sh: a static helper, called a million times (the region's pick). */
int a_run(int n);

__attribute__((noinline)) static int helper(int x)
{
    return (x * 7 + 3) ^ (x >> 2);
}

int a_run(int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += helper(i);
    return sum;
}
