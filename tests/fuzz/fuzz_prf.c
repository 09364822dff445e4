/* fuzz_prf.c - libFuzzer target: the CodeScape .prf reader, from memory. */
#include "fuzz_util.h"
#include "prf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_profile_t p;
    lg_diag_t d;
    lg_profile_init(&p);
    lg_diag_init(&d);
    lg_err_t err = lg_load_memory(lg_prf_read, data, size, "fuzz.prf", NULL, &p, &d);
    lg_fz_check_profile(err, &p, &d);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
    return 0;
}
