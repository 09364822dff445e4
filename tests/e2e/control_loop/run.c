/* run.c - the main loop. */
#include "fw.h"

u32 fw_run(u32 iterations)
{
    u32 acc = 0;
    for (u32 t = 0; t < iterations; t++) {
        u32 measured = sensor_filter(sensor_read(t));
        u32 out = control_step(500u, measured);
        acc ^= comms_frame(out);
        if (t % 997u == 0)
            acc += fault_recover(t);
    }
    return acc + comms_pending() + fault_count();
}
