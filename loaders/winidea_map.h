/* winidea_map.h - the areas of a winIDEA profiler export (its Mapping section): handle -> what
 * the handle names, shared by the Text1 and XML readers and the binary timeline reader.
 *
 * A handle's top nibble gives the area type (winidea-profiler-export-text1.txt): 0 function,
 * 1 function line (its parent is the function), 2 variable, 3 variable state, 4 AUX, 5 AUX
 * state. Functions become profile functions; everything else is kept out of the call graph.
 * Types above 5 (newer winIDEA versions have inspector areas) are kept as "other" areas.
 *
 * Function names of the form "file.c"#name are winIDEA's names for statics: the profile function
 * is name with qual_name "file.c", which is what the binder (src/bind/bind.c) compares with an ELF
 * symbol's source file when several symbols share a name.
 *
 * Lookups are O(1): per area type, handles whose low 28 bits are dense (winIDEA numbers them
 * from 0) index an array directly; the rest go to a hash table.
 */
#ifndef LG_WINIDEA_MAP_H
#define LG_WINIDEA_MAP_H

#include "diag.h"
#include "profile.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum lg_wi_area {
    LG_WI_FUNCTION = 0,
    LG_WI_LINE = 1,
    LG_WI_VARIABLE = 2,
    LG_WI_STATE = 3,
    LG_WI_AUX = 4,
    LG_WI_AUX_STATE = 5,
} lg_wi_area_t;

/* The area type a handle's top nibble gives; values above LG_WI_AUX_STATE are unknown types. */
static inline unsigned lg_wi_handle_area(uint32_t handle)
{
    return handle >> 28;
}

/* lg_wi_map_resolve's answers besides a function index. */
#define LG_WI_NOT_FUNCTION UINT32_MAX    /* a mapped area that is not a function */
#define LG_WI_UNMAPPED (UINT32_MAX - 1u) /* a handle the mapping does not list */

/* lg_wi_map_add's parent for areas that have none. */
#define LG_WI_NO_PARENT UINT32_MAX

/* Most distinct handles one mapping may list: a file claiming more is corrupt, not big. */
#define LG_WI_MAX_AREAS (64u * 1024u * 1024u)

typedef struct lg_wi_map lg_wi_map_t;

/* A mapping whose functions are interned into profile (which must outlive it). Returns LG_OK or
 * LG_ENOMEM. */
lg_err_t lg_wi_map_create(lg_profile_t *profile, lg_wi_map_t **out);
/* Frees the map (not the profile); accepts NULL. */
void lg_wi_map_destroy(lg_wi_map_t *m);

/* Adds one mapping entry. Function areas are interned into the profile (same handle twice must
 * name the same function); line areas remember their parent function (parent must be a function
 * handle added before) and line number (value); other areas are only remembered as mapped, and
 * may repeat (a state variable lists its handle once per state). file, when not NULL or empty,
 * qualifies a function whose name does not. On malformed entries returns LG_EFORMAT (LG_ELIMIT
 * past LG_WI_MAX_AREAS or LG_PROFILE_MAX_FUNCS, LG_ENOMEM) with one error in d whose location is
 * empty: the caller knows the line or offset and re-reports the message there. */
lg_err_t lg_wi_map_add(lg_wi_map_t *m, uint32_t handle, uint32_t parent, const char *name,
                       uint64_t value, const char *file, lg_diag_t *d);

/* The profile function a timeline handle stands for: for a function handle its index; for a
 * line handle LG_WI_NOT_FUNCTION (lines do not enter the call graph); LG_WI_NOT_FUNCTION for
 * data, state and AUX areas; LG_WI_UNMAPPED when the mapping does not list the handle. O(1):
 * it runs once per timeline event. */
uint32_t lg_wi_map_resolve(const lg_wi_map_t *m, uint32_t handle);

/* For a line handle: its parent function (a profile index) and line number; false otherwise. */
bool lg_wi_map_line(const lg_wi_map_t *m, uint32_t handle, uint32_t *func, uint64_t *line);

/* How many distinct handles the mapping lists. */
size_t lg_wi_map_count(const lg_wi_map_t *m);

#endif
