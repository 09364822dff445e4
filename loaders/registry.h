/* registry.h - the profile formats lorgen reads, and detection from content.
 * Formats are recognised by their bytes, never by the file name. */
#ifndef LG_REGISTRY_H
#define LG_REGISTRY_H

#include "diag.h"
#include "profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of a file's start that probes look at. */
#define LG_PROBE_BYTES 4096u

/* Told how far a long load has come: done and total in bytes of the file being read. */
typedef void (*lg_progress_fn)(void *ctx, const char *path, uint64_t done, uint64_t total);

/* Options some formats take. */
typedef struct lg_load_options {
    const char *event; /* perf script: the one event to read when several are interleaved */
    /* winIDEA binary timeline layout: 0 detect from the data, 10 version 1.0, 11 version 1.1 */
    unsigned bin_version;
    lg_progress_fn progress; /* called now and then by loaders of large files; may be NULL */
    void *progress_ctx;
} lg_load_options_t;

typedef struct lg_loader {
    const char *name;        /* --format NAME */
    const char *description; /* one line for `lorgen formats` */
    bool (*probe)(const uint8_t *head, size_t len);
    lg_err_t (*load)(const char *path, lg_profile_t *out, lg_diag_t *d);
    /* The same with options; NULL when the format takes none. */
    lg_err_t (*load_with)(const char *path, const lg_load_options_t *options, lg_profile_t *out,
                          lg_diag_t *d);
} lg_loader_t;

/* Loads with the options the format takes; options it does not take are ignored. */
lg_err_t lg_loader_load(const lg_loader_t *loader, const char *path,
                        const lg_load_options_t *options, lg_profile_t *out, lg_diag_t *d);

/* All loaders, in probing order; *count receives how many. */
const lg_loader_t *lg_loaders(size_t *count);
/* The loader called name, or NULL. */
const lg_loader_t *lg_loader_find(const char *name);
/* The first loader whose probe accepts head, or NULL. */
const lg_loader_t *lg_loader_detect(const uint8_t *head, size_t len);

#endif
