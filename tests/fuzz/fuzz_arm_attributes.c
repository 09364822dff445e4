/* fuzz_arm_attributes.c - libFuzzer target: the Arm build attributes reader (Tag_CPU_arch),
 * on the bytes of a .ARM.attributes section, in both byte orders. */
#include "arm_attributes.h"
#include "fuzz_util.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned little = lg_arm_cpu_arch(data, size, false);
    unsigned big = lg_arm_cpu_arch(data, size, true);
    /* An architecture is one byte; anything else is a reader that read what it should not. */
    if (little > 0xff || big > 0xff)
        __builtin_trap();
    return 0;
}
