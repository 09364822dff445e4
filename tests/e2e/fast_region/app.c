/* app.c - the main loop: sample, filter, frame, checksum; report once at the end. */
#include "fw.h"

#include <stdio.h>
#include <string.h>

#define WINDOW 9u       /* samples in the median filter */
#define ITERATIONS 600u /* loop passes: enough for a profile, short under qemu */
#define FRAME_CAP 48u   /* bytes of one frame */

/* Initialized data: wrong results if the startup code does not copy .data from flash. */
static int32_t gains[4] = {3, 5, 7, 11};
static const char *tags[4] = {"temp", "pressure", "rh", "co2-ppm"};
/* Zero-initialized: wrong results if the startup code does not clear .bss. */
static int32_t window[WINDOW];
static uint32_t frames_sent;

static FW_NOINLINE int32_t sensor_sample(uint32_t t)
{
    uint32_t x = t * 2654435761u;
    return (int32_t)((x >> 20) % 1000u) * gains[t & 3u] - 2000;
}

FW_COLD static void fault_report(uint32_t t)
{
    char line[64];
    snprintf(line, sizeof line, "fault at pass %lu\n", (unsigned long)t);
    board_puts(line);
}

int app_main(void)
{
    uint8_t frame[FRAME_CAP];
    uint32_t crc = 0;
    int32_t last = 0;
    for (uint32_t t = 0; t < ITERATIONS; t++) {
        window[t % WINDOW] = sensor_sample(t);
        last = filter_median(window, WINDOW);
        size_t len = frame_build(frame, sizeof frame, tags[t & 3u], last);
        if (len == 0 || len > sizeof frame) {
            fault_report(t);
            return 1;
        }
        crc = (crc << 1 | crc >> 31) ^ frame_crc(frame, len);
        frames_sent++;
        if (t % 128u == 127u)
            gains[(t >> 7) & 3u]++;
    }
    char line[80];
    snprintf(line, sizeof line, "frames=%lu median=%ld crc=%08lx\n", (unsigned long)frames_sent,
             (long)last, (unsigned long)crc);
    board_puts(line);
    return 0;
}
