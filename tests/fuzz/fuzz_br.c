/* fuzz_br.c - libFuzzer target: the Business Rules! profiler reader, from memory, under the
 * default limits. */
#include "br.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_profile_t p;
    lg_diag_t d;
    lg_profile_init(&p);
    lg_diag_init(&d);
    lg_err_t err = lg_load_memory(lg_br_read, data, size, "fuzz.br", NULL, &p, &d);
    lg_fz_check_profile(err, &p, &d);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
    return 0;
}
