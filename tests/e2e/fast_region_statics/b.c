/* b.c - fast_region_statics.sh: a static helper named like a.c's, called a thousand times. */
int b_run(int n);

__attribute__((noinline)) static int helper(int x)
{
    return (x * 5 - 1) ^ (x >> 3);
}

int b_run(int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += helper(i);
    return sum;
}
