/* layout.c - lifecycle of the optimizer's result, and the cache geometry check. */
#include "layout.h"

#include <stdlib.h>
#include <string.h>

/* Bounds on the geometry lorgen accepts. */
#define LG_LINE_SIZE_MIN 4u           /* bytes */
#define LG_LINE_SIZE_MAX 4096u        /* bytes */
/* Ways: enough for a fully-associative cache of 64 KiB with 4-byte lines or 1 MiB with 16-byte
 * ones, which the safeguard replays (safeguard.h). Sets of many ways cost O(1) per access in the
 * simulator (cachesim.h) and about 36 bytes per line. */
#define LG_WAYS_MAX 65536u

void lg_layout_init(lg_layout_t *l)
{
    memset(l, 0, sizeof *l);
}

void lg_layout_destroy(lg_layout_t *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->ncliques; i++)
        free(l->cliques[i].fns);
    free(l->cliques);
    free(l->cold);
    free(l->excluded);
    memset(l, 0, sizeof *l);
}

static bool is_pow2(uint32_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

lg_err_t lg_geometry_check(const lg_geometry_t *g, lg_diag_t *d)
{
    if (!is_pow2(g->line_size) || g->line_size < LG_LINE_SIZE_MIN ||
        g->line_size > LG_LINE_SIZE_MAX)
        return lg_diag_fail(d, LG_EINVAL, "", "line size %u: expected a power of two from %u to %u",
                            g->line_size, LG_LINE_SIZE_MIN, LG_LINE_SIZE_MAX);
    if (g->ways == 0 || g->ways > LG_WAYS_MAX)
        return lg_diag_fail(d, LG_EINVAL, "", "ways %u: expected 1 to %u", g->ways, LG_WAYS_MAX);
    if (g->cache_size == 0 || g->cache_size > LG_CACHE_SIZE_MAX)
        return lg_diag_fail(d, LG_EINVAL, "", "cache size %u: expected 1 to %u bytes",
                            g->cache_size, LG_CACHE_SIZE_MAX);
    uint64_t set_bytes = (uint64_t)g->line_size * g->ways;
    if (g->cache_size % set_bytes != 0)
        return lg_diag_fail(d, LG_EINVAL, "",
                            "cache size %u is not a multiple of line size x ways (%llu bytes)",
                            g->cache_size, (unsigned long long)set_bytes);
    return LG_OK;
}
