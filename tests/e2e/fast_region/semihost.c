/* semihost.c - the board's output and exit through Arm semihosting (BKPT 0xAB): SYS_WRITE0
 * prints a string on the host, SYS_EXIT_EXTENDED ends the run with an exit status. */
#include "fw.h"

#define SYS_WRITE0 0x04u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t semihost_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void board_puts(const char *s)
{
    semihost_call(SYS_WRITE0, s);
}

void semihost_exit(int status)
{
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    semihost_call(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}
