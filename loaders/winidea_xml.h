/* winidea_xml.h - winIDEA (iSYSTEM/TASKING) profiler exports in the XML format: detect and read
 * them, streamed with expat, with the binary timeline (.BIN) next to them when there is one.
 *
 * winIDEA's schema (ProfilerExport.xsd) is not public. The shape lorgen assumes, and how
 * tolerant it is of other shapes, is in docs/loaders/winidea.md; in short: <AREA> elements
 * (inside <MAPPING>) give the mapping through child elements <HANDLE>, <NAME>, <VALUE>, ...;
 * entries inside <STATISTICS> give <COUNT>, <T.NET>, <T.GROSS>; <T> elements (inside
 * <TIMELINE>) give <HANDLE>, <EVENT>, <TIME>, <CORE>, <CONTEXT>. Element names are matched by
 * local name, in any case; unknown elements are skipped.
 */
#ifndef LG_WINIDEA_XML_H
#define LG_WINIDEA_XML_H

#include "diag.h"
#include "profile.h"
#include "source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest element nesting read: deeper means a corrupt or hostile file. */
#define LG_WI_XML_MAX_DEPTH 256u
/* Longest text of one element lorgen keeps (a name, a number), in bytes. */
#define LG_WI_XML_MAX_TEXT (64u * 1024u)

/* True when head starts (after a byte order mark and blanks) with '<' and has a MAPPING, AREA
 * or TIMELINE element within it. O(len). */
bool lg_wi_xml_probe(const uint8_t *head, size_t len);

/* Reads an XML export from src into out (lg_read_fn, see source.h). A source opened from a path
 * also reads the .BIN next to it (lg_wi_bin_find). Errors as lg_wi_text1_read, at
 * "PATH:LINE:COLUMN: ... (byte N)". */
lg_err_t lg_wi_xml_read(lg_source_t *src, const lg_load_options_t *options, lg_profile_t *out);

#endif
