/* sensor.c - simulated sensor input with a small filter. */
#include "fw.h"

static u32 history[8];
static u32 head;

/* Same name as a static in control.c: the linker scripts must tell the two apart. */
static FW_NOINLINE u32 mix(u32 a, u32 b)
{
    return (a * 31u) ^ (b >> 3);
}

FW_NOINLINE u32 sensor_read(u32 t)
{
    return mix(t, t * 7u) & 0x3ffu;
}

FW_NOINLINE u32 sensor_clamp(u32 v, u32 lo, u32 hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

FW_NOINLINE u32 sensor_filter(u32 sample)
{
    history[head++ & 7u] = sample;
    u32 sum = 0;
    for (u32 i = 0; i < 8; i++)
        sum += history[i];
    return sensor_clamp(sum >> 3, 16u, 1000u);
}
