/* fast.c - the fast regions of a run: chosen, told, and written as GNU ld fragments (fast.h). */
#include "fast.h"

#include "emit_ld.h"
#include "linkname.h"
#include "mem.h"
#include "messages.h"
#include "outfile.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void lg_cli_regions_destroy(lg_cli_region_t *regions, size_t n)
{
    for (size_t i = 0; regions != NULL && i < n; i++) {
        lg_fast_region_destroy(&regions[i].choice);
        free(regions[i].fns);
    }
    free(regions);
}

void lg_cli_regions_release(lg_program_t *units, const lg_cli_region_t *regions, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < regions[i].choice.nmembers; k++)
            units->fns[regions[i].choice.members[k]].flags &= ~(uint32_t)LG_FN_EXCLUDED;
}

/* The region's functions: every member unit's, in section order within a group. */
static lg_err_t expand_members(lg_cli_region_t *r, const lg_groups_t *g)
{
    size_t total = 0;
    for (size_t k = 0; k < r->choice.nmembers; k++) {
        uint32_t u = r->choice.members[k];
        total += g ? g->first[u + 1] - g->first[u] : 1;
    }
    r->fns = malloc((total ? total : 1) * sizeof *r->fns);
    if (r->fns == NULL)
        return LG_ENOMEM;
    for (size_t k = 0; k < r->choice.nmembers; k++) {
        uint32_t u = r->choice.members[k];
        if (g == NULL) {
            r->fns[r->nfns++] = u;
            continue;
        }
        for (uint32_t m = g->first[u]; m < g->first[u + 1]; m++)
            r->fns[r->nfns++] = g->members[m];
    }
    return LG_OK;
}

/* What a region took, or why it took nothing. */
static void tell(const lg_cli_region_t *r, const lg_program_t *units, const bool *taken)
{
    const lg_fast_region_t *c = &r->choice;
    uint64_t total = 0; /* the program's whole cost, as the region's value counts it */
    uint64_t smallest = UINT64_MAX;
    for (size_t u = 0; u < units->nfns; u++) {
        const lg_fn_t *f = &units->fns[u];
        uint64_t v = c->counters ? f->counter1_self : f->hits;
        total = lg_sat_add(total, v);
        if (v > 0 && lg_fn_movable(f) && !taken[u] && lg_fast_region_weight(f) < smallest)
            smallest = lg_fast_region_weight(f);
    }
    if (c->nmembers == 0) {
        if (smallest == UINT64_MAX)
            lg_cli_message(LG_WARNING, "",
                           "--fast-region %s holds nothing: no executed code that can move is "
                           "left for it",
                           r->spec->name);
        else
            lg_cli_message(LG_WARNING, "",
                           "--fast-region %s holds nothing: its budget is %" PRIu64
                           " bytes, and the smallest executed unit that can move takes %" PRIu64
                           " bytes (%" PRIu64 " over)",
                           r->spec->name, c->budget, smallest, smallest - c->budget);
        return;
    }
    lg_cli_message(LG_NOTE, "",
                   "--fast-region %s: %zu functions, %" PRIu64 " of %" PRIu64 " bytes (%" PRIu64
                   " left), %.1f%% of the program's %s, chosen %s",
                   r->spec->name, r->nfns, c->used, c->budget, c->budget - c->used,
                   total ? 100.0 * (double)c->value / (double)total : 0.0,
                   c->counters ? "self cost" : "hits",
                   c->exact ? "exactly" : "greedily (at least half the best)");
}

int lg_cli_choose_regions(const lg_cli_options_t *o, lg_program_t *units, const lg_groups_t *g,
                          lg_cli_region_t **regions, lg_diag_t *d)
{
    *regions = calloc(o->nfast ? o->nfast : 1, sizeof **regions);
    bool *taken = calloc(units->nfns ? units->nfns : 1, sizeof *taken);
    if (*regions == NULL || taken == NULL) {
        free(taken);
        lg_cli_message(LG_ERROR, "", "out of memory");
        return LG_EXIT_BAD_INPUT;
    }
    int status = 0;
    for (size_t i = 0; i < o->nfast && status == 0; i++) {
        lg_cli_region_t *r = &(*regions)[i];
        r->spec = &o->fast[i];
        uint64_t budget = lg_fast_region_budget(r->spec->size, r->spec->headroom);
        if (lg_fast_region_choose(units, taken, budget, LG_FAST_REGION_EXACT_CELLS, &r->choice,
                                  d) != LG_OK ||
            expand_members(r, g) != LG_OK) {
            lg_cli_flush_diag(d);
            lg_cli_message(LG_ERROR, "", "out of memory choosing --fast-region %s", r->spec->name);
            status = LG_EXIT_BAD_INPUT;
            break;
        }
        tell(r, units, taken);
        for (size_t k = 0; k < r->choice.nmembers; k++)
            taken[r->choice.members[k]] = true;
    }
    for (size_t u = 0; u < units->nfns; u++)
        if (taken[u])
            units->fns[u].flags |= LG_FN_EXCLUDED;
    free(taken);
    return status;
}

/* A .LOR of the region's members alone, one clique, resolved for the GNU ld writer. */
static lg_err_t region_lor(const lg_cli_region_t *r, const lg_program_t *prog,
                           const lg_geometry_t *geo, lg_lor_t *lor, lg_diag_t *d)
{
    lg_clique_t clique = {.fns = r->fns, .nfns = r->nfns, .bytes = r->choice.used};
    for (size_t i = 0; i < r->nfns; i++)
        clique.hits = lg_sat_add(clique.hits, prog->fns[r->fns[i]].hits);
    lg_layout_t layout = {
        .geometry = *geo, .algorithm = "fast-region", .cliques = &clique, .ncliques = 1};
    LG_CHECK(lg_lor_from_layout(prog, &layout, lor));
    lg_linkname_resolve(lor, prog, d);
    return LG_OK;
}

int lg_cli_write_regions(const lg_cli_region_t *regions, size_t n, const lg_program_t *prog,
                         const lg_geometry_t *geo, lg_diag_t *d)
{
    lg_outfile_t *files = calloc(n ? n : 1, sizeof *files);
    if (files == NULL) {
        lg_cli_message(LG_ERROR, "", "out of memory");
        return LG_EXIT_BAD_INPUT;
    }
    lg_err_t err = LG_OK;
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        if (regions[i].spec->include == NULL)
            continue;
        lg_lor_t lor;
        lg_lor_init(&lor);
        err = region_lor(&regions[i], prog, geo, &lor, d);
        if (err == LG_OK)
            err = lg_outfile_open(&files[i], regions[i].spec->include, d);
        if (err == LG_OK) {
            err = lg_emit_ld_region(&lor, regions[i].spec->name, files[i].f, d);
            if (err != LG_OK)
                lg_outfile_write_failed(&files[i], err, d);
        }
        lg_lor_destroy(&lor);
    }
    if (err == LG_OK)
        err = lg_outfile_commit_all(files, n, d);
    for (size_t i = 0; i < n; i++)
        lg_outfile_abort(&files[i]);
    free(files);
    lg_cli_flush_diag(d);
    return err == LG_OK ? 0 : LG_EXIT_BAD_INPUT;
}
