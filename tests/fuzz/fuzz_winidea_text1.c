/* fuzz_winidea_text1.c - libFuzzer target: the winIDEA Text1 export reader, through a file.
 *
 * The reader also loads a .BIN timeline found next to the export; lg_fz_load_winidea_export
 * gives inputs of odd size a fixed, well-formed one (lg_fz_small_bin: handles 0 and 1 call and
 * return), so the fuzzed mapping is exercised against a real timeline. */
#include "fuzz_util.h"
#include "winidea_text1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_fz_load_winidea_export("export.txt", data, size, lg_wi_text1_read);
    return 0;
}
