/* fuzz_aprof.c - libFuzzer target: the aprof report reader, through a file as the CLI reads it. */
#include "aprof.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_fz_load_file("input", data, size, lg_aprof_read);
    return 0;
}
