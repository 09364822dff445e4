/* lor_file.h - a .LOR file's text in memory, for lg_lor_parse (lor.h). */
#ifndef LG_LOR_FILE_H
#define LG_LOR_FILE_H

#include "diag.h"

#include <stddef.h>
#include <stdint.h>

/* Largest .LOR file lorgen reads, in bytes: far above any real link order. */
#define LG_LOR_MAX_FILE (1ull << 30)

/* Reads the whole file at path into *text (not NUL-terminated; the caller frees it) and its
 * length into *len. The buffer starts at 64 KiB and doubles, so max_bytes, a power of two of
 * 64 KiB or more (LG_LOR_MAX_FILE), refuses files of max_bytes or more before they fill memory.
 * Returns LG_OK; LG_EIO (cannot open, read failed) or LG_ELIMIT (too large) with the error in d;
 * or LG_ENOMEM, without an entry. On failure *text is NULL. */
lg_err_t lg_lor_read_file(const char *path, uint64_t max_bytes, char **text, size_t *len,
                          lg_diag_t *d);

#endif
