/* fw.h - a small freestanding control loop used by the end-to-end tests: it builds for the host
 * (profiled with the example tracer) and for bare-metal SH-4, ARM and RISC-V (relinked with a
 * custom linker script). Every function is noinline so that each build keeps the same symbols. */
#ifndef FW_H
#define FW_H

#define FW_NOINLINE __attribute__((noinline))
#define FW_COLD __attribute__((noinline, cold))

typedef unsigned int u32;

u32 fw_run(u32 iterations);

/* sensor.c */
u32 sensor_read(u32 t);
u32 sensor_filter(u32 sample);
u32 sensor_clamp(u32 v, u32 lo, u32 hi);
/* control.c */
u32 control_step(u32 setpoint, u32 measured);
u32 control_integrate(u32 error);
u32 control_limit(u32 out);
/* comms.c */
void comms_put(u32 byte);
u32 comms_crc(u32 crc, u32 byte);
u32 comms_frame(u32 value);
u32 comms_pending(void);
/* faults.c */
void fault_log(u32 code);
u32 fault_recover(u32 state);
void fault_selftest(void);
u32 fault_count(void);
#endif
