/* fuzz_probe.c - libFuzzer target: format detection. Every probe looks at the first bytes of
 * any file the user names, before anything else has checked them. */
#include "elfsym.h"
#include "fuzz_util.h"
#include "registry.h"
#include "winidea_bin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LG_PROBE_BYTES)
        size = LG_PROBE_BYTES; /* the CLI never shows a probe more */
    size_t n;
    const lg_loader_t *loaders = lg_loaders(&n);
    for (size_t i = 0; i < n; i++)
        (void)loaders[i].probe(data, size);
    (void)lg_loader_detect(data, size);
    (void)lg_elf_probe(data, size);
    (void)lg_wi_bin_detect(data, size - size % LG_FZ_BIN_RECORD);
    return 0;
}
