/* run.c - the main loop. */
#include "lk.h"

u32 lk_run(u32 iterations)
{
    u32 acc = 0;
    for (u32 t = 0; t < iterations; t++) {
        acc += filt_step(ring_push(t));
        acc ^= shapes_work(acc);
        if ((t & 255u) == 0)
            acc += ring_sum();
    }
    return acc;
}
