/* fuzz_winidea_bin.c - libFuzzer target: winIDEA's binary timeline reader and the timeline
 * builder behind it.
 *
 * A .BIN has no mapping of its own (the export next to it has), so the fuzzed bytes are read
 * against a fixed small mapping: three functions, a line of the first, a variable with a state
 * and an AUX signal, the areas a real export lists. The first input byte chooses how the layout
 * is taken (detected, 1.0 or 1.1); the rest is the file. */
#include "fuzz_util.h"
#include "timeline.h"
#include "winidea_bin.h"
#include "winidea_map.h"

#include <stdlib.h>

static const struct {
    uint32_t handle, parent;
    const char *name;
    uint64_t value;
} areas[] = {
    {0x00000000u, 0, "main", 0},    {0x00000001u, 0, "a", 0},
    {0x00000002u, 0, "b", 0},       {0x10000000u, 0x00000000u, "{", 51},
    {0x20000000u, 0, "counter", 0}, {0x30000000u, 0x20000000u, "", 1},
    {0x40000000u, 0, "AUX0", 0},
};

static const lg_wi_bin_version_t versions[] = {LG_WI_BIN_DETECT, LG_WI_BIN_V1_0, LG_WI_BIN_V1_1};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    lg_wi_bin_version_t version = versions[data[0] % (sizeof versions / sizeof *versions)];
    const char *path = lg_fz_write("timeline.BIN", data + 1, size - 1);

    lg_profile_t p;
    lg_diag_t d;
    lg_profile_init(&p);
    lg_diag_init(&d);
    lg_wi_map_t *map = NULL;
    lg_timeline_t *t = NULL;
    if (lg_profile_set_path(&p, "export.txt") != LG_OK || lg_wi_map_create(&p, &map) != LG_OK)
        abort();
    for (size_t i = 0; i < sizeof areas / sizeof *areas; i++)
        if (lg_wi_map_add(map, areas[i].handle, areas[i].parent, areas[i].name, areas[i].value,
                          NULL, &d) != LG_OK)
            abort();
    if (lg_timeline_create(&p, true, &t) != LG_OK)
        abort();

    lg_err_t err = lg_wi_bin_read(path, version, map, t, NULL, &d);
    lg_fz_check_diag(err, &d);
    if (err == LG_OK) {
        err = lg_timeline_finish(t, &d);
        lg_fz_check_profile(err, &p, &d);
    }
    lg_timeline_destroy(t);
    lg_wi_map_destroy(map);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
    return 0;
}
