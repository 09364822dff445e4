/* fuzz_winidea_text1.c - libFuzzer target: the winIDEA Text1 export reader, through a file.
 *
 * The reader also loads a .BIN timeline found next to the export. Inputs of odd size get a
 * fixed, well-formed one (lg_fz_small_bin: handles 0 and 1 call and return), so the fuzzed
 * mapping is exercised against a real timeline; even-sized inputs are read alone. */
#include "fuzz_util.h"
#include "winidea_text1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size % 2 == 1) {
        size_t bin_size;
        const uint8_t *bin = lg_fz_small_bin(&bin_size);
        lg_fz_write("export.BIN", bin, bin_size);
    } else {
        lg_fz_remove("export.BIN");
    }
    const char *path = lg_fz_write("export.txt", data, size);
    lg_profile_t p;
    lg_diag_t d;
    lg_profile_init(&p);
    lg_diag_init(&d);
    lg_err_t err = lg_wi_text1_load(path, &p, &d);
    lg_fz_check_profile(err, &p, &d);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
    return 0;
}
