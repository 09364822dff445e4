/* shapes_c.c - the bare-metal stand-in for shapes.cc (no C++ cross compiler needed). */
#include "lk.h"

static LK_NOINLINE u32 area(u32 w, u32 h)
{
    return w * h;
}

u32 shapes_work(u32 v)
{
    return area(v & 7u, (v >> 3) & 7u) + ((v * 3u) ^ (v >> 3));
}
