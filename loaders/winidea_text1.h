/* winidea_text1.h - winIDEA (iSYSTEM/TASKING) profiler exports in the Text1 format: detect and
 * read them, with the binary timeline (.BIN) next to them when there is one.
 *
 * Text1 is a template format: the user configures every entry, and each section starts with a
 * header line naming the entry's fields as macros,
 *   * HANDLE(Functions) %HANDLE%,%NAME%,%VALUE%
 *   * STATISTICS(Functions) CONTEXT(TSK: x) %HANDLE%,%VALUE%,%COUNT%,%T.NET%
 *   * TIMELINE %HANDLE%,%EVENT%,%VALUE%,%TIME%
 * so the columns of each section are learnt from its header. docs/loaders/winidea.md says what
 * is read and how it maps onto lg_profile_t.
 */
#ifndef LG_WINIDEA_TEXT1_H
#define LG_WINIDEA_TEXT1_H

#include "diag.h"
#include "profile.h"
#include "registry.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest line read, in bytes without the line end: longer means a corrupt file. */
#define LG_WI_TEXT1_MAX_LINE (1024u * 1024u)
/* Most macros one section header may list (the format has about 40). */
#define LG_WI_TEXT1_MAX_COLUMNS 64u

/* True when the first non-empty line of head is a section header: "* " and INFO, CONTEXTS,
 * HANDLE, STATISTICS or TIMELINE, with a %MACRO% after it. O(len). */
bool lg_wi_text1_probe(const uint8_t *head, size_t len);

/* Loads a Text1 export and the .BIN next to it (lg_wi_bin_find) into out (initialised by the
 * caller with lg_profile_init). options may be NULL (detect the .BIN version, no progress).
 * On malformed input returns LG_EFORMAT (LG_ELIMIT past a limit, LG_EIO, LG_ENOMEM, LG_EINVAL
 * for a bad options->bin_version) with one error "PATH:LINE[:COLUMN]: ..." and out left empty. */
lg_err_t lg_wi_text1_load_with(const char *path, const lg_load_options_t *options,
                               lg_profile_t *out, lg_diag_t *d);
lg_err_t lg_wi_text1_load(const char *path, lg_profile_t *out, lg_diag_t *d);

/* The same from an open stream, read to its end and not closed; path names it in diagnostics.
 * No .BIN is looked for. */
lg_err_t lg_wi_text1_load_stream(FILE *f, const char *path, const lg_load_options_t *options,
                                 lg_profile_t *out, lg_diag_t *d);

#endif
