/* fuzz_winidea_xml.c - libFuzzer target: the winIDEA XML export reader, through a file.
 *
 * The reader also loads a .BIN timeline found next to the export; lg_fz_load_winidea_export
 * gives inputs of odd size a fixed, well-formed one (lg_fz_small_bin: handles 0 and 1 call and
 * return), so the fuzzed mapping is exercised against a real timeline. */
#include "fuzz_util.h"
#include "winidea_xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_fz_load_winidea_export("export.xml", data, size, lg_wi_xml_read);
    return 0;
}
