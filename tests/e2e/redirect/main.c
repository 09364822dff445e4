/* main.c - tests/e2e/redirected_calls.sh: calls that the linker or the loader sends to another
 * name than the one the code names. The calls to work go to __wrap_work (-Wl,--wrap=work), those
 * to vfoo and vbar to their default versions vfoo@@V2 and vbar@@V1, those to sum to what its
 * IFUNC resolver picks, and memcpy in a static program to glibc's IFUNC choice. */
#include "redirect.h"

#include <stdio.h>
#include <string.h>

static char src_buf[4096], dst_buf[4096];

/* In this object, as main: only the --wrap rule tells that main's call of work reaches it. */
__attribute__((noinline)) unsigned __wrap_work(unsigned x)
{
    return __real_work(x) + 1u;
}

/* In this object too: only the version rule tells that main's call of vbar reaches it. */
__attribute__((noinline)) unsigned vbar_v1(unsigned x)
{
    return x * 5u + 2u;
}
__asm__(".symver vbar_v1,vbar@@V1");

int main(int argc, char **argv)
{
    (void)argv;
    unsigned a = 0;
    for (unsigned i = 0; i < 1001; i++)
        a += vfoo(i) + vbar(i);
    for (unsigned i = 0; i < 3001; i++)
        a += work(i);
    for (unsigned i = 0; i < 2001; i++)
        a += sum(i);
    for (unsigned i = 0; i < 500; i++)
        a += h1(i) + h2(i) + h3(i) + h4(i) + h5(i);
    for (unsigned i = 0; i < 700; i++) {
        src_buf[i % sizeof src_buf] = (char)i;
        memcpy(dst_buf, src_buf, 2048u + (unsigned)argc); /* a real call: the size is unknown */
        a += (unsigned char)dst_buf[i % 2048u];
    }
    a += spin(40000);
    printf("%u\n", a);
    return 0;
}
