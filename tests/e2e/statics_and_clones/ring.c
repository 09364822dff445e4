/* ring.c - a ring buffer; scale() has the same name as a static in filt.c. */
#include "lk.h"

static u32 ring[16];
static u32 head;

static LK_NOINLINE u32 scale(u32 v)
{
    return v * 3u + 1u;
}

/* Always called with shift 2: GCC makes mix.constprop.0. */
static LK_NOINLINE u32 mix(u32 v, u32 shift)
{
    u32 r = v;
    for (u32 i = 0; i < 4; i++)
        r = (r << shift) ^ (r >> (32u - shift)) ^ i;
    return r;
}

/* A quick test before a long body: GCC inlines the test and calls lookup.part.0. */
static u32 lookup(u32 v)
{
    if (v < 8u)
        return v;
    u32 acc = 0;
    for (u32 i = 0; i < v % 29u; i++) {
        acc += ring[(v + i) & 15u] * (i + 1u);
        acc ^= acc >> 3;
        acc += (v >> (i & 7u)) ^ (acc << 1);
        acc *= 2654435761u;
        if (acc % 7u == 3u)
            acc += mix(acc, 2u);
        else if (acc % 11u == 5u)
            acc ^= scale(acc) << 2;
        ring[(acc ^ i) & 15u] += acc >> 7;
    }
    return acc;
}

LK_NOINLINE u32 ring_push(u32 v)
{
    ring[head++ & 15u] = scale(v) + lookup(v);
    return mix(v, 2u);
}

LK_NOINLINE u32 ring_sum(void)
{
    u32 s = 0;
    for (u32 i = 0; i < 16; i++)
        s += ring[i] + lookup(ring[i] & 31u);
    return s;
}
