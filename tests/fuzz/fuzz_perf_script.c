/* fuzz_perf_script.c - libFuzzer target: the `perf script` text reader (first event), through a
 * file as the CLI reads it. */
#include "perf_script.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_fz_load_file("input", data, size, lg_perf_script_read);
    return 0;
}
