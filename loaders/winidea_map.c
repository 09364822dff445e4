/* winidea_map.c - winIDEA area handles -> profile functions, lines and other areas.
 *
 * lg_wi_map_resolve runs once per timeline event, billions of times for a large binary timeline,
 * so the lookup is an array index whenever it can be: winIDEA numbers the handles of each area
 * type from 0 (0x00000000, 0x00000001, ... for functions, 0x10000000, ... for lines), so per
 * area type (the top nibble) a dense table indexed by the low 28 bits holds them. A handle far
 * past the others of its type (a sparse numbering, or a corrupt entry) goes to an integer map
 * (intmap.h) instead, so that memory stays proportional to the handles listed.
 *
 * Definitions:
 *   slot       what a handle maps to: a profile function index (function areas), an index into
 *              the line table (line areas), 0 for other areas; EMPTY when unmapped
 *   dense      a table of slots per area type, indexed by the handle's low 28 bits; it may grow
 *              to DENSE_FACTOR slots per handle of its type (at least DENSE_MIN slots)
 */
#include "winidea_map.h"

#include "intmap.h"
#include "mem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define AREA_TYPES 16u
#define LOW_MASK 0x0FFFFFFFu
#define EMPTY UINT32_MAX
/* Slots a dense table may always have, whatever its count: 16 KiB per area type. */
#define DENSE_MIN 4096u
/* Most slots per listed handle a dense table may have: beyond it, handles go to the map. */
#define DENSE_FACTOR 4u

typedef struct line_area {
    uint32_t func; /* profile index of the parent function */
    uint64_t line;
} line_area_t;

typedef struct dense_table {
    uint32_t *slots; /* indexed by the low 28 bits; EMPTY when unmapped */
    size_t n;        /* slots */
    size_t count;    /* distinct handles of this type, dense or sparse */
} dense_table_t;

struct lg_wi_map {
    lg_profile_t *profile;
    dense_table_t areas[AREA_TYPES];
    lg_intmap_t sparse; /* handles past their dense table -> slot */
    line_area_t *lines;
    size_t nlines, lines_cap;
    size_t count; /* distinct handles */
};

/* ---- Sparse handles ---------------------------------------------------------------------- */

static uint32_t sparse_get(const lg_wi_map_t *m, uint32_t handle)
{
    uint64_t slot;
    return lg_intmap_get(&m->sparse, handle, &slot) ? (uint32_t)slot : EMPTY;
}

/* Moves the sparse handles that fit their dense table now into it: growing a dense table takes
 * its handles out of the map. The order of the walk does not matter: each handle goes to one
 * place. */
static bool sparse_rebuild(lg_wi_map_t *m)
{
    lg_intmap_t kept;
    lg_intmap_init(&kept);
    size_t cursor = 0;
    uint64_t handle, slot;
    while (lg_intmap_next(&m->sparse, &cursor, &handle, &slot)) {
        dense_table_t *t = &m->areas[lg_wi_handle_area((uint32_t)handle)];
        uint32_t low = (uint32_t)handle & LOW_MASK;
        if (low < t->n) {
            t->slots[low] = (uint32_t)slot;
        } else if (!lg_intmap_set(&kept, handle, slot)) {
            lg_intmap_destroy(&kept);
            return false;
        }
    }
    lg_intmap_destroy(&m->sparse);
    m->sparse = kept;
    return true;
}

/* ---- Slots -------------------------------------------------------------------------------- */

static uint32_t slot_of(const lg_wi_map_t *m, uint32_t handle)
{
    const dense_table_t *t = &m->areas[lg_wi_handle_area(handle)];
    uint32_t low = handle & LOW_MASK;
    return low < t->n ? t->slots[low] : sparse_get(m, handle);
}

/* Grows area t's dense table to at least need slots (need within the limit), moving the sparse
 * handles that now fit into it. */
static bool dense_grow(lg_wi_map_t *m, dense_table_t *t, size_t need, size_t limit)
{
    size_t n = t->n == 0 ? DENSE_MIN : t->n;
    while (n < need)
        n *= 2;
    if (n > limit)
        n = limit;
    uint32_t *slots = realloc(t->slots, n * sizeof *slots);
    if (slots == NULL)
        return false;
    memset(slots + t->n, 0xff, (n - t->n) * sizeof *slots); /* EMPTY */
    t->slots = slots;
    t->n = n;
    return m->sparse.count == 0 || sparse_rebuild(m);
}

/* Sets a new handle's slot: in its dense table when its low bits are within what the table may
 * grow to, else in the sparse map. */
static bool slot_set(lg_wi_map_t *m, uint32_t handle, uint32_t slot)
{
    dense_table_t *t = &m->areas[lg_wi_handle_area(handle)];
    uint32_t low = handle & LOW_MASK;
    size_t limit = DENSE_FACTOR * (t->count + 1);
    if (limit < DENSE_MIN)
        limit = DENSE_MIN;
    if (low >= t->n && low < limit && !dense_grow(m, t, (size_t)low + 1, limit))
        return false;
    if (low < t->n)
        t->slots[low] = slot;
    else if (!lg_intmap_set(&m->sparse, handle, slot))
        return false;
    t->count++;
    m->count++;
    return true;
}

/* ---- The mapping -------------------------------------------------------------------------- */

lg_err_t lg_wi_map_create(lg_profile_t *profile, lg_wi_map_t **out)
{
    *out = calloc(1, sizeof **out);
    if (*out == NULL)
        return LG_ENOMEM;
    (*out)->profile = profile;
    return LG_OK;
}

void lg_wi_map_destroy(lg_wi_map_t *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < AREA_TYPES; i++)
        free(m->areas[i].slots);
    lg_intmap_destroy(&m->sparse);
    free(m->lines);
    free(m);
}

size_t lg_wi_map_count(const lg_wi_map_t *m)
{
    return m->count;
}

/* Splits winIDEA's name of a static, "file.c"#name, into its file and name (pointers into a
 * copy the caller frees); other names are left whole with no file. */
static lg_err_t split_static(const char *full, char **copy, const char **name, const char **file)
{
    *copy = NULL;
    *name = full;
    *file = NULL;
    if (full[0] != '"')
        return LG_OK;
    const char *close = strchr(full + 1, '"');
    if (close == NULL || close == full + 1 || close[1] != '#' || close[2] == '\0')
        return LG_OK;
    *copy = strdup(full + 1);
    if (*copy == NULL)
        return LG_ENOMEM;
    size_t file_len = (size_t)(close - full - 1);
    (*copy)[file_len] = '\0';
    *file = *copy;
    *name = *copy + file_len + 2;
    return LG_OK;
}

static lg_err_t add_function(lg_wi_map_t *m, uint32_t handle, const char *full, const char *file,
                             lg_diag_t *d)
{
    if (full == NULL || full[0] == '\0')
        return lg_diag_fail(d, LG_EFORMAT, "",
                            "expected a name for function handle 0x%08" PRIX32 ", found none",
                            handle);
    char *copy;
    const char *name, *qual;
    if (split_static(full, &copy, &name, &qual) != LG_OK)
        return lg_diag_fail(d, LG_ENOMEM, "", "out of memory adding function '%s'", full);
    if (qual == NULL && file != NULL && file[0] != '\0')
        qual = file;
    uint32_t func;
    lg_err_t err = lg_profile_intern(m->profile, name, NULL, qual, &func);
    free(copy);
    if (err == LG_ELIMIT)
        return lg_diag_fail(d, err, "", "more than %u functions (LG_PROFILE_MAX_FUNCS)",
                            LG_PROFILE_MAX_FUNCS);
    if (err != LG_OK)
        return lg_diag_fail(d, err, "", "out of memory adding function '%s'", full);
    uint32_t known = slot_of(m, handle);
    if (known != EMPTY && known != func) {
        const lg_pfunc_t *before = &m->profile->funcs[known];
        return lg_diag_fail(d, LG_EFORMAT, "",
                            "function handle 0x%08" PRIX32 " names '%s', it named '%s'%s%s before",
                            handle, full, before->name, before->qual_name ? " of " : "",
                            before->qual_name ? before->qual_name : "");
    }
    if (known == EMPTY && !slot_set(m, handle, func))
        return lg_diag_fail(d, LG_ENOMEM, "", "out of memory adding function '%s'", full);
    return LG_OK;
}

static const char *area_noun(uint32_t handle)
{
    static const char *const nouns[] = {"function", "line", "variable",
                                        "state",    "AUX",  "AUX state"};
    unsigned a = lg_wi_handle_area(handle);
    return a < sizeof nouns / sizeof *nouns ? nouns[a] : "unknown-type";
}

static lg_err_t add_line(lg_wi_map_t *m, uint32_t handle, uint32_t parent, uint64_t line,
                         lg_diag_t *d)
{
    uint32_t func = EMPTY;
    if (parent != LG_WI_NO_PARENT && lg_wi_handle_area(parent) == LG_WI_FUNCTION)
        func = slot_of(m, parent);
    if (parent == LG_WI_NO_PARENT)
        return lg_diag_fail(d, LG_EFORMAT, "",
                            "expected a function before line handle 0x%08" PRIX32
                            " (its parent), found none",
                            handle);
    if (func == EMPTY)
        return lg_diag_fail(d, LG_EFORMAT, "",
                            "expected the parent of line handle 0x%08" PRIX32
                            " to be a function listed before it, found %s handle 0x%08" PRIX32 "%s",
                            handle, area_noun(parent), parent,
                            lg_wi_handle_area(parent) == LG_WI_FUNCTION ? " (not listed)" : "");
    uint32_t known = slot_of(m, handle);
    if (known != EMPTY) {
        const line_area_t *l = &m->lines[known];
        if (l->func != func || l->line != line)
            return lg_diag_fail(d, LG_EFORMAT, "",
                                "line handle 0x%08" PRIX32 " is line %" PRIu64
                                " of '%s', it was line %" PRIu64 " of '%s' before",
                                handle, line, m->profile->funcs[func].name, l->line,
                                m->profile->funcs[l->func].name);
        return LG_OK;
    }
    if (!lg_grow((void **)&m->lines, &m->lines_cap, m->nlines + 1, sizeof *m->lines))
        return lg_diag_fail(d, LG_ENOMEM, "", "out of memory adding a line area");
    if (!slot_set(m, handle, (uint32_t)m->nlines))
        return lg_diag_fail(d, LG_ENOMEM, "", "out of memory adding a line area");
    m->lines[m->nlines++] = (line_area_t){func, line};
    return LG_OK;
}

lg_err_t lg_wi_map_add(lg_wi_map_t *m, uint32_t handle, uint32_t parent, const char *name,
                       uint64_t value, const char *file, lg_diag_t *d)
{
    if (m->count >= LG_WI_MAX_AREAS && slot_of(m, handle) == EMPTY)
        return lg_diag_fail(d, LG_ELIMIT, "", "more than %u areas (LG_WI_MAX_AREAS)",
                            LG_WI_MAX_AREAS);
    switch (lg_wi_handle_area(handle)) {
    case LG_WI_FUNCTION:
        return add_function(m, handle, name, file, d);
    case LG_WI_LINE:
        return add_line(m, handle, parent, value, d);
    default:
        /* Variables, states, AUX signals and unknown types: only remembered as mapped, so that
         * their timeline events are told apart from unknown handles. A state variable lists
         * its handle once per state value. */
        if (slot_of(m, handle) == EMPTY && !slot_set(m, handle, 0))
            return lg_diag_fail(d, LG_ENOMEM, "", "out of memory adding an area");
        return LG_OK;
    }
}

uint32_t lg_wi_map_resolve(const lg_wi_map_t *m, uint32_t handle)
{
    unsigned area = lg_wi_handle_area(handle);
    const dense_table_t *t = &m->areas[area];
    uint32_t low = handle & LOW_MASK;
    uint32_t slot = low < t->n ? t->slots[low] : sparse_get(m, handle);
    if (slot == EMPTY)
        return LG_WI_UNMAPPED;
    return area == LG_WI_FUNCTION ? slot : LG_WI_NOT_FUNCTION;
}

bool lg_wi_map_line(const lg_wi_map_t *m, uint32_t handle, uint32_t *func, uint64_t *line)
{
    if (lg_wi_handle_area(handle) != LG_WI_LINE)
        return false;
    uint32_t slot = slot_of(m, handle);
    if (slot == EMPTY)
        return false;
    *func = m->lines[slot].func;
    *line = m->lines[slot].line;
    return true;
}
