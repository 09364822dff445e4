/* control.c - a PI controller. */
#include "fw.h"

static u32 integral;

static FW_NOINLINE u32 mix(u32 a, u32 b)
{
    return (a + b * 3u) >> 1;
}

FW_NOINLINE u32 control_integrate(u32 error)
{
    integral = mix(integral, error) & 0xffffu;
    return integral;
}

FW_NOINLINE u32 control_limit(u32 out)
{
    return out > 4000u ? 4000u : out;
}

FW_NOINLINE u32 control_step(u32 setpoint, u32 measured)
{
    u32 error = setpoint > measured ? setpoint - measured : measured - setpoint;
    return control_limit(error * 3u + control_integrate(error));
}
