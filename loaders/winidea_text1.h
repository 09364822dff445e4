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
#include "source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line read, in bytes without the line end: longer means a corrupt file. */
#define LG_WI_TEXT1_MAX_LINE (1024u * 1024u)
/* Most macros one section header may list (the format has about 40). */
#define LG_WI_TEXT1_MAX_COLUMNS 64u

/* True when the first non-empty line of head is a section header: "* " and INFO, CONTEXTS,
 * HANDLE, STATISTICS or TIMELINE, with a %MACRO% after it. O(len). */
bool lg_wi_text1_probe(const uint8_t *head, size_t len);

/* Reads a Text1 export from src into out (lg_read_fn, see source.h; run it through lg_load_file
 * or lg_load_memory, which leave out empty on failure). A source opened from a path also reads
 * the .BIN next to it (lg_wi_bin_find). Errors: LG_EFORMAT (LG_ELIMIT past a limit, LG_EIO,
 * LG_ENOMEM, LG_EINVAL for a bad options->bin_version), one error "PATH:LINE[:COLUMN]: ...". */
lg_err_t lg_wi_text1_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out);

#endif
