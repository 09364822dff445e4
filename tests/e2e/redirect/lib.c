/* lib.c - tests/e2e/redirected_calls.sh: vfoo's default version, called from another object. */
#include "redirect.h"

__attribute__((noinline)) unsigned vfoo_v2(unsigned x)
{
    return x * 3u + 1u;
}
__asm__(".symver vfoo_v2,vfoo@@V2");

/* --wrap=work sends the program's calls of work to __wrap_work, and __wrap_work's call of
 * __real_work here. */
__attribute__((noinline)) unsigned work(unsigned x)
{
    return x ^ (x >> 3);
}
