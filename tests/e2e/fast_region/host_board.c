/* host_board.c - runs the firmware on the host, for the profile and the expected output. */
#include "fw.h"

#include <stdio.h>

void board_puts(const char *s)
{
    fputs(s, stdout);
}

int main(void)
{
    return app_main();
}
