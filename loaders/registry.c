/* registry.c - the table of profile loaders. */
#include "registry.h"

#include "aprof.h"
#include "br.h"
#include "callgrind.h"
#include "perf_script.h"
#include "prf.h"
#include "winidea_text1.h"
#include "winidea_xml.h"

#include <string.h>

static const lg_loader_t loaders[] = {
    {"prf", "CodeScape profiler file (.prf): trace and statistical profiles", lg_prf_probe, lg_prf_read},
    {"aprof", "aprof report (.aprof, versions 0-6): calls and costs; call edges from the "
              "calling-context tree",
     lg_aprof_probe, lg_aprof_read},
    {"callgrind", "Valgrind callgrind profile (callgrind.out.*): call counts and costs",
     lg_callgrind_probe, lg_callgrind_read},
    {"perf-script", "Linux `perf script` text: sampled call stacks (-g), events, periods",
     lg_perf_script_probe, lg_perf_script_read},
    {"br", "Business Rules! BASIC profiler file (DEBUG PROFILE SAMPLED/TIMED): sampled call "
           "stacks, lines",
     lg_br_probe, lg_br_read},
    {"winidea-text1", "winIDEA profiler export, Text1 (and its .BIN timeline): calls and times "
                      "from the timeline, else statistics",
     lg_wi_text1_probe, lg_wi_text1_read},
    {"winidea-xml", "winIDEA profiler export, XML (and its .BIN timeline): calls and times from "
                    "the timeline, else statistics",
     lg_wi_xml_probe, lg_wi_xml_read},
};

const lg_loader_t *lg_loaders(size_t *count)
{
    *count = sizeof loaders / sizeof *loaders;
    return loaders;
}

const lg_loader_t *lg_loader_find(const char *name)
{
    for (size_t i = 0; i < sizeof loaders / sizeof *loaders; i++)
        if (strcmp(loaders[i].name, name) == 0)
            return &loaders[i];
    return NULL;
}

const lg_loader_t *lg_loader_detect(const uint8_t *head, size_t len)
{
    for (size_t i = 0; i < sizeof loaders / sizeof *loaders; i++)
        if (loaders[i].probe(head, len))
            return &loaders[i];
    return NULL;
}

lg_err_t lg_loader_load(const lg_loader_t *loader, const char *path,
                        const lg_load_options_t *options, lg_profile_t *out, lg_diag_t *d)
{
    return lg_load_file(loader->read, path, options, out, d);
}
