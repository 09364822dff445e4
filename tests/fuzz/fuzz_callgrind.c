/* fuzz_callgrind.c - libFuzzer target: the callgrind reader, through a file as the CLI reads it. */
#include "callgrind.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_fz_load_file("input", data, size, lg_callgrind_read);
    return 0;
}
