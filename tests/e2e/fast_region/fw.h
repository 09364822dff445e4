/* fw.h - a small Cortex-M7 firmware for the end-to-end test cortex_m.sh: a sensor loop that
 * sorts a window (qsort), copies and clears buffers (memcpy, memset), measures and formats
 * frames (strlen, snprintf), so that the C library's code runs in the hot loop. The same
 * sources build for the host (profiled with the example tracer) and for arm-none-eabi with
 * newlib (startup.c, semihost.c, syscalls.c and cortex_m.ld). */
#ifndef FW_H
#define FW_H

#include <stddef.h>
#include <stdint.h>

#define FW_NOINLINE __attribute__((noinline))
#define FW_COLD __attribute__((noinline, cold))

/* app.c: the firmware's main loop; its return value is the exit status. */
int app_main(void);

/* filter.c */
int32_t filter_median(const int32_t *window, size_t n);
int cmp_sample(const void *a, const void *b);

/* frames.c */
size_t frame_build(uint8_t *out, size_t cap, const char *tag, int32_t value);
uint32_t frame_crc(const uint8_t *p, size_t n);

/* The board: semihost.c on the target, host_board.c on the host. */
void board_puts(const char *s);
#endif
