/* syscalls.c - the one system call newlib's string formatting may reach: _sbrk, for a buffer
 * that grows. The heap runs from the end of .bss to the stack's reserve (cortex_m.ld). */
#include "fw.h"

#include <errno.h>

extern char _heap_start[], _heap_end[];

void *_sbrk(ptrdiff_t incr)
{
    static char *brk = _heap_start;
    if (incr > _heap_end - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *old = brk;
    brk += incr;
    return old;
}
