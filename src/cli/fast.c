/* fast.c - the fast regions of a run: chosen, told, and written as GNU ld fragments (fast.h). */
#include "fast.h"

#include "emit_ld.h"
#include "linkname.h"
#include "mem.h"
#include "messages.h"
#include "outfile.h"
#include "strmap.h"

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

/* A .LOR that lends the region's members as one clique to the checks and writers made for the
 * cliques; lend_end gives them back. */
static void lend(const lg_lor_t *lor, lg_lor_region_t *r, lg_lor_clique_t *clique, lg_lor_t *one)
{
    lg_lor_init(one);
    one->geometry = lor->geometry;
    /* Flagged oversized: a region is no clique, and may be larger than the cache. */
    *clique = (lg_lor_clique_t){.count = r->nfns,
                                .bytes = r->bytes,
                                .flags = LG_CLIQUE_OVERSIZED,
                                .stated_count = LG_LOR_NOT_STATED};
    one->cliques = clique;
    one->ncliques = 1;
    one->fns = r->fns;
    one->nfns = r->nfns;
}

static void lend_end(lg_lor_region_t *r, lg_lor_t *one)
{
    r->fns = one->fns;
    r->nfns = one->nfns;
}

lg_err_t lg_cli_check_regions(lg_lor_t *lor, const lg_program_t *prog, const char *path,
                              lg_diag_t *d)
{
    /* A function listed in a region and anywhere else is the reader's error (lg_lor_parse). */
    lg_err_t err = LG_OK;
    for (size_t r = 0; r < lor->nregions && err == LG_OK; r++) {
        lg_lor_region_t *rg = &lor->regions[r];
        lg_lor_clique_t clique;
        lg_lor_t one;
        lend(lor, rg, &clique, &one);
        err = lg_lor_check(&one, prog, path, d);
        lend_end(rg, &one);
    }
    return err;
}

int lg_cli_write_regions(lg_lor_t *lor, const lg_cli_options_t *o, const lg_program_t *prog,
                         lg_diag_t *d)
{
    size_t n = o->nfast_includes;
    lg_outfile_t *files = calloc(n ? n : 1, sizeof *files);
    if (files == NULL) {
        lg_cli_message(LG_ERROR, "", "out of memory");
        return LG_EXIT_BAD_INPUT;
    }
    lg_err_t err = LG_OK;
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        const char *v = o->fast_includes[i], *file = v, *eq = strchr(v, '=');
        lg_lor_region_t *rg = NULL;
        for (size_t r = 0; eq != NULL && r < lor->nregions; r++)
            if (strlen(lor->regions[r].name) == (size_t)(eq - v) &&
                strncmp(lor->regions[r].name, v, (size_t)(eq - v)) == 0) {
                rg = &lor->regions[r];
                file = eq + 1;
            }
        if (rg == NULL && lor->nregions == 1 && (eq == NULL || n == 1))
            rg = &lor->regions[0];
        if (rg == NULL) {
            err = lg_diag_fail(d, LG_EINVAL, "",
                               "--fast-include %s names no region of the order (it has %zu): "
                               "expected FILE with one region, or NAME=FILE",
                               v, lor->nregions);
            break;
        }
        lg_lor_clique_t clique;
        lg_lor_t one;
        lend(lor, rg, &clique, &one);
        lg_linkname_resolve(&one, prog, d);
        err = lg_outfile_open(&files[i], file, d);
        if (err == LG_OK) {
            err = lg_emit_ld_region(&one, rg->name, files[i].f, d);
            if (err != LG_OK)
                lg_outfile_write_failed(&files[i], err, d);
        }
        lend_end(rg, &one);
    }
    if (err == LG_OK)
        err = lg_outfile_commit_all(files, n, d);
    for (size_t i = 0; i < n; i++)
        lg_outfile_abort(&files[i]);
    free(files);
    lg_cli_flush_diag(d);
    return err == LG_OK ? 0 : LG_EXIT_BAD_INPUT;
}
