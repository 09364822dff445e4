/* winidea_map.h - the areas of a winIDEA profiler export (its Mapping section): handle -> what
 * the handle names, shared by the Text1 and XML readers and the binary timeline reader.
 *
 * A handle's top nibble gives the area type (winidea-profiler-export-text1.txt): 0 function,
 * 1 function line (its parent is the function), 2 variable, 3 variable state, 4 AUX, 5 AUX
 * state. Functions become profile functions; everything else is kept out of the call graph.
 * Function names of the form "file.c"#name are same-named statics: name with qual_name "file.c".
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
#define LG_WI_NOT_FUNCTION UINT32_MAX        /* a mapped area that is not a function */
#define LG_WI_UNMAPPED (UINT32_MAX - 1u)     /* a handle the mapping does not list */

typedef struct lg_wi_map lg_wi_map_t;

lg_err_t lg_wi_map_create(lg_profile_t *profile, lg_wi_map_t **out);
void lg_wi_map_destroy(lg_wi_map_t *m);

/* Adds one mapping entry. Function areas are interned into the profile (same handle twice must
 * name the same function, else LG_EFORMAT with a diagnostic the caller completes with the line
 * or offset); line areas remember their parent function and line number (value). */
lg_err_t lg_wi_map_add(lg_wi_map_t *m, uint32_t handle, uint32_t parent, const char *name,
                       uint64_t value, const char *file, lg_diag_t *d);

/* The profile function a timeline handle stands for: for a function handle its index; for a
 * line handle LG_WI_NOT_FUNCTION (lines do not enter the call graph); LG_WI_NOT_FUNCTION for
 * data, state and AUX areas; LG_WI_UNMAPPED when the mapping does not list the handle. O(1):
 * it runs once per timeline event. */
uint32_t lg_wi_map_resolve(const lg_wi_map_t *m, uint32_t handle);

/* For a line handle: its parent function (a profile index) and line number; false otherwise. */
bool lg_wi_map_line(const lg_wi_map_t *m, uint32_t handle, uint32_t *func, uint64_t *line);

#endif
