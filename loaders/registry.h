/* registry.h - the profile formats lorgen reads, and detection from content.
 * Formats are recognised by their bytes, never by the file name. */
#ifndef LG_REGISTRY_H
#define LG_REGISTRY_H

#include "diag.h"
#include "profile.h"
#include "source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of a file's start that probes look at. */
#define LG_PROBE_BYTES 4096u

typedef struct lg_loader {
    const char *name;        /* --format NAME */
    const char *description; /* one line for `lorgen formats` */
    bool (*probe)(const uint8_t *head, size_t len);
    lg_read_fn read; /* the format's grammar, over any source (source.h) */
} lg_loader_t;

/* Loads path with loader->read (lg_load_file): options the format does not take are ignored,
 * options may be NULL, and out is left empty on failure. */
lg_err_t lg_loader_load(const lg_loader_t *loader, const char *path,
                        const lg_load_options_t *options, lg_profile_t *out, lg_diag_t *d);

/* All loaders, in probing order; *count receives how many. */
const lg_loader_t *lg_loaders(size_t *count);
/* The loader called name, or NULL. */
const lg_loader_t *lg_loader_find(const char *name);
/* The first loader whose probe accepts head, or NULL. */
const lg_loader_t *lg_loader_detect(const uint8_t *head, size_t len);

#endif
