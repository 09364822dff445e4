/* faults.c - rarely or never run: error handling and self test. */
#include "fw.h"

static u32 faults;

FW_COLD void fault_log(u32 code)
{
    faults += code;
}

FW_COLD u32 fault_recover(u32 state)
{
    fault_log(state);
    return state & 1u;
}

FW_COLD void fault_selftest(void)
{
    for (u32 i = 0; i < 3; i++)
        fault_log(i);
}

FW_NOINLINE u32 fault_count(void)
{
    return faults;
}
