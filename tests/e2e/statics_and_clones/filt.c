/* filt.c - a filter; scale() has the same name as a static in ring.c. */
#include "lk.h"

static u32 state;
static u32 panics;

static LK_NOINLINE u32 scale(u32 v)
{
    return (v >> 1) + 7u;
}

/* Reads one field of a large struct passed by reference: GCC makes weigh.isra.0. */
static LK_NOINLINE u32 weigh(const struct lk_sample *s)
{
    return s->value * 5u + 3u;
}

__attribute__((noinline, cold)) void filt_panic(u32 why)
{
    panics += why;
}

__attribute__((noinline, hot)) u32 filt_hot(u32 v)
{
    return (v ^ state) + (v << 3);
}

LK_NOINLINE u32 filt_step(u32 v)
{
    struct lk_sample s = {v, 1u, {0}};
    state = (state + scale(v) + weigh(&s)) & 0xffffu;
    if (state == 12345u)
        filt_panic(state);
    return filt_hot(state);
}
