/* fuzz_aprof.c - libFuzzer target: the aprof report reader, through a file as the CLI reads it. */
#include "aprof.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = lg_fz_write("input", data, size);
    lg_profile_t p;
    lg_diag_t d;
    lg_profile_init(&p);
    lg_diag_init(&d);
    lg_err_t err = lg_aprof_load(path, &p, &d);
    lg_fz_check_profile(err, &p, &d);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
    return 0;
}
