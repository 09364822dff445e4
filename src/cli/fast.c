/* fast.c - the fast regions of a run: chosen, told, and written as GNU ld fragments (fast.h). */
#include "fast.h"

#include "emit_ld.h"
#include "linkfind.h"
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
        free(regions[i].pinned);
        free(regions[i].pinned_units);
    }
    free(regions);
}

void lg_cli_regions_release(lg_program_t *units, const lg_cli_region_t *regions, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < regions[i].choice.nmembers; k++)
            units->fns[regions[i].choice.members[k]].flags &= ~(uint32_t)LG_FN_EXCLUDED;
        for (size_t k = 0; k < regions[i].npinned_units; k++)
            units->fns[regions[i].pinned_units[k]].flags &= ~(uint32_t)LG_FN_EXCLUDED;
    }
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

/* What the linked program's section holds besides lorgen's code, when it holds some: the bytes
 * it leaves, or how far it alone overflows the region. */
static void tell_held(const lg_cli_region_t *r, const lg_program_t *prog, uint64_t budget)
{
    const lg_region_held_t *h = &r->held;
    if (h->held == 0)
        return;
    char padded[96] = "";
    if (r->reserved != h->held)
        snprintf(padded, sizeof padded, ", %" PRIu64 " with the padding that aligns what follows",
                 r->reserved);
    char largest[LG_LINKNAME_SHOW_BYTES + 64] = "", shown[LG_LINKNAME_SHOW_BYTES];
    if (h->largest != UINT32_MAX)
        snprintf(largest, sizeof largest, "; the largest %s, %" PRIu64 " bytes",
                 lg_linkname_show(prog->fns[h->largest].symbol, shown),
                 prog->fns[h->largest].size);
    char what[sizeof largest + 256];
    snprintf(what, sizeof what,
             "the linked program's %s already holds %" PRIu64 " bytes lorgen does not place "
             "there (%zu function(s) its script or a section attribute put there%s, and "
             "padding or data%s)",
             r->spec->name, h->held, h->npinned, largest, padded);
    if (r->reserved > budget)
        lg_cli_message(LG_WARNING, "",
                       "--fast-region %s overflows before lorgen adds anything: %s, more than "
                       "its %" PRIu64 " bytes: %" PRIu64 " bytes over",
                       r->spec->name, what, budget, r->reserved - budget);
    else
        lg_cli_message(LG_NOTE, "", "--fast-region %s: %s: %" PRIu64 " of its %" PRIu64
                       " bytes are left for lorgen's choice",
                       r->spec->name, what, budget - r->reserved, budget);
}

/* The bytes kept for the linker's stubs, when the region's members need some. */
static void tell_stubs(const lg_cli_region_t *r)
{
    if (r->stub_bytes == 0)
        return;
    lg_cli_message(LG_NOTE, "",
                   "--fast-region %s: %" PRIu64 " bytes kept for the linker's veneers to the %zu "
                   "function(s) its members call outside it, %s",
                   r->spec->name, r->stub_bytes, r->far_callees,
                   r->stubs.where_known
                       ? "beyond a BL's reach"
                       : "which a BL may not reach (the linked program has no such section "
                         "yet to tell how far it lies)");
}

/* What a region took, or why it took nothing. */
static void tell(const lg_cli_region_t *r, const lg_program_t *units, const bool *taken)
{
    const lg_fast_region_t *c = &r->choice;
    uint64_t total = 0; /* the program's whole cost, as the region's value counts it */
    uint64_t smallest = UINT64_MAX;
    for (size_t u = 0; u < units->nfns; u++) {
        const lg_fn_t *f = &units->fns[u];
        total = lg_sat_add(total, lg_fast_region_value(f, c->counters));
        if (lg_fast_region_candidate(f, c->counters, taken[u]) &&
            lg_fast_region_weight(f) < smallest)
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

/* The largest alignment of the units that could be chosen: the first member may need that
 * much padding after what the link holds before the fragment. */
static uint64_t largest_alignment(const lg_program_t *units, bool counters, const bool *taken)
{
    uint64_t largest = 1;
    for (size_t u = 0; u < units->nfns; u++) {
        const lg_fn_t *f = &units->fns[u];
        if (lg_fast_region_candidate(f, counters, taken[u]) && f->align > largest)
            largest = f->align;
    }
    return largest;
}

static uint64_t round_up(uint64_t bytes, uint64_t align)
{
    uint64_t rest = bytes % align;
    return rest == 0 ? bytes : lg_sat_add(bytes, align - rest);
}

/* Measures what the linked program's section of r already holds (regionheld.h) and records its
 * pinned functions, and their units, in r. */
static lg_err_t measure_held(lg_cli_region_t *r, const lg_program_t *prog,
                             const lg_elfsyms_t *elf, const lg_groups_t *g)
{
    bool *pinned = calloc(prog->nfns ? prog->nfns : 1, sizeof *pinned);
    if (pinned == NULL)
        return LG_ENOMEM;
    if (lg_region_held_measure(elf, prog, r->spec->name, &r->held, pinned) != LG_OK) {
        free(pinned);
        return LG_ENOMEM;
    }
    size_t n = r->held.npinned ? r->held.npinned : 1;
    r->pinned = malloc(n * sizeof *r->pinned);
    r->pinned_units = malloc(n * sizeof *r->pinned_units);
    if (r->pinned == NULL || r->pinned_units == NULL) {
        free(pinned);
        return LG_ENOMEM;
    }
    for (size_t i = 0; i < prog->nfns; i++) {
        if (!pinned[i])
            continue;
        r->pinned[r->npinned++] = (uint32_t)i;
        uint32_t u = g ? g->unit_of[i] : (uint32_t)i;
        /* A group's members share one unit: list it once (they are adjacent). */
        if (r->npinned_units == 0 || r->pinned_units[r->npinned_units - 1] != u)
            r->pinned_units[r->npinned_units++] = u;
    }
    free(pinned);
    return LG_OK;
}

/* The stubs r's members need for their calls out of it (regionstubs.h), into r. */
static lg_err_t count_stubs(lg_cli_region_t *r, const lg_program_t *prog)
{
    r->far_callees = 0;
    r->stub_bytes = 0;
    if (r->stubs.bytes_per_callee == 0 || r->nfns == 0)
        return LG_OK;
    bool *in = calloc(prog->nfns ? prog->nfns : 1, sizeof *in);
    if (in == NULL)
        return LG_ENOMEM;
    for (size_t k = 0; k < r->nfns; k++)
        in[r->fns[k]] = true;
    lg_err_t err = lg_region_far_callees(prog, in, &r->far_callees);
    free(in);
    r->stub_bytes = (uint64_t)r->far_callees * r->stubs.bytes_per_callee;
    return err;
}

/* Rounds of choosing on a smaller budget before choose_with_stubs takes the bound that fits
 * whatever is chosen: each round is a knapsack, and the budget falls by at least a byte a round. */
#define LG_FAST_REGION_STUB_ROUNDS 8

/* The most stub bytes any choice among the candidates (units that ran, can move and no region
 * took) can need: a stub for every call out of a candidate, as if none of its callees were in. */
static uint64_t stub_bound(const lg_cli_region_t *r, const lg_program_t *prog,
                           const lg_program_t *units, const lg_groups_t *g, bool counters,
                           const bool *taken)
{
    bool *caller = calloc(prog->nfns ? prog->nfns : 1, sizeof *caller); /* per family */
    if (caller == NULL)
        return UINT64_MAX;
    for (size_t i = 0; i < prog->nfns; i++) {
        uint32_t u = g ? g->unit_of[i] : (uint32_t)i;
        const lg_fn_t *f = &units->fns[u];
        if (lg_fast_region_candidate(f, counters, taken[u]))
            caller[prog->fns[i].family] = true;
    }
    uint64_t calls = 0;
    for (size_t k = 0; k < prog->nrefs; k++)
        calls += caller[prog->refs[k].caller] && prog->refs[k].callee != prog->refs[k].caller;
    free(caller);
    return calls * r->stubs.bytes_per_callee;
}

/* Chooses r's members for room bytes, their stubs included: a choice whose members and stubs
 * do not fit is made again on a budget smaller by the bytes over, until they fit; after
 * LG_FAST_REGION_STUB_ROUNDS rounds, on the room less stub_bound, which fits any choice. */
static lg_err_t choose_with_stubs(lg_cli_region_t *r, const lg_program_t *prog,
                                  const lg_program_t *units, const lg_groups_t *g,
                                  const bool *taken, uint64_t room, lg_diag_t *d)
{
    uint64_t budget = room;
    for (unsigned round = 0;; round++) {
        LG_CHECK(lg_fast_region_choose(units, taken, budget, LG_FAST_REGION_EXACT_CELLS,
                                       &r->choice, d));
        LG_CHECK(expand_members(r, g));
        LG_CHECK(count_stubs(r, prog));
        uint64_t need = lg_sat_add(r->choice.used, r->stub_bytes);
        if (need <= room || budget == 0)
            break;
        if (round + 1 == LG_FAST_REGION_STUB_ROUNDS) {
            uint64_t bound = stub_bound(r, prog, units, g, r->choice.counters, taken);
            budget = bound < room ? room - bound : 0;
        } else {
            uint64_t over = need - room;
            budget = over < budget ? budget - over : 0;
        }
        lg_fast_region_destroy(&r->choice);
        free(r->fns);
        r->fns = NULL;
        r->nfns = 0;
    }
    /* The region's budget as the .LOR states it: what its members could take. */
    r->choice.budget = room - r->stub_bytes;
    return LG_OK;
}

int lg_cli_choose_regions(const lg_cli_options_t *o, lg_program_t *prog,
                          const lg_elfsyms_t *elf, lg_program_t *units, const lg_groups_t *g,
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
    bool counters = lg_fast_region_counters(units); /* what the choice values */
    for (size_t i = 0; i < o->nfast && status == 0; i++) {
        lg_cli_region_t *r = &(*regions)[i];
        r->spec = &o->fast[i];
        uint64_t budget = lg_fast_region_budget(r->spec->size, r->spec->headroom);
        lg_err_t err = elf != NULL ? measure_held(r, prog, elf, g) : LG_OK;
        if (err == LG_OK) {
            r->reserved = round_up(r->held.held, largest_alignment(units, counters, taken));
            tell_held(r, prog, budget);
            budget = r->reserved < budget ? budget - r->reserved : 0;
            /* What the link keeps there is no candidate, here or in a later region. */
            for (size_t k = 0; k < r->npinned_units; k++)
                taken[r->pinned_units[k]] = true;
            r->stubs = lg_region_stubs_for(prog, elf, &r->held);
            err = choose_with_stubs(r, prog, units, g, taken, budget, d);
        }
        if (err != LG_OK) {
            lg_cli_flush_diag(d);
            lg_cli_message(LG_ERROR, "", "out of memory choosing --fast-region %s", r->spec->name);
            status = LG_EXIT_BAD_INPUT;
            break;
        }
        tell(r, units, taken);
        tell_stubs(r);
        for (size_t k = 0; k < r->choice.nmembers; k++)
            taken[r->choice.members[k]] = true;
    }
    for (size_t u = 0; u < units->nfns; u++)
        if (taken[u])
            units->fns[u].flags |= LG_FN_EXCLUDED | LG_FN_UNCACHED;
    /* The program's functions too, for the estimates made on it after the order. */
    for (size_t i = 0; i < o->nfast && status == 0; i++) {
        const lg_cli_region_t *r = &(*regions)[i];
        for (size_t k = 0; k < r->nfns; k++)
            prog->fns[r->fns[k]].flags |= LG_FN_UNCACHED;
        for (size_t k = 0; k < r->npinned; k++)
            prog->fns[r->pinned[k]].flags |= LG_FN_UNCACHED;
    }
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
                                .flags = LG_CLIQUE_OVERSIZED | LG_CLIQUE_REGION,
                                .stated_count = LG_LOR_NOT_STATED};
    one->cliques = clique;
    one->ncliques = 1;
    one->fns = r->fns;
    one->nfns = r->nfns;
}

/* Gives the members back, with their bytes as a check recomputed them from the ELF. */
static void lend_end(lg_lor_region_t *r, lg_lor_t *one)
{
    r->fns = one->fns;
    r->nfns = one->nfns;
    r->bytes = one->cliques[0].bytes;
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

lg_err_t lg_cli_mark_uncached(const lg_lor_t *lor, lg_program_t *prog)
{
    uint32_t *region_of = malloc((prog->nfns ? prog->nfns : 1) * sizeof *region_of);
    lg_err_t err = region_of != NULL ? lg_linkfind_regions(lor, prog, region_of, NULL) : LG_ENOMEM;
    for (size_t i = 0; err == LG_OK && i < prog->nfns; i++)
        if (region_of[i] != LG_LINKFIND_NO_REGION)
            prog->fns[i].flags |= LG_FN_UNCACHED;
    free(region_of);
    return err;
}

lg_err_t lg_cli_recount_stubs(lg_lor_t *lor, const lg_program_t *prog, const lg_elfsyms_t *elf,
                              const char *path, lg_diag_t *d)
{
    size_t n = prog->nfns ? prog->nfns : 1;
    uint32_t *region_of = malloc(n * sizeof *region_of);
    bool *pinned = malloc(n * sizeof *pinned), *in = malloc(n * sizeof *in);
    lg_err_t err = region_of != NULL && pinned != NULL && in != NULL
                       ? lg_linkfind_regions(lor, prog, region_of, pinned)
                       : LG_ENOMEM;
    for (size_t r = 0; r < lor->nregions && err == LG_OK; r++) {
        lg_lor_region_t *rg = &lor->regions[r];
        lg_region_held_t held;
        err = lg_region_held_measure(elf, prog, rg->name, &held, NULL);
        lg_region_stubs_t stubs = lg_region_stubs_for(prog, elf, &held);
        size_t callees = 0;
        for (size_t i = 0; i < prog->nfns; i++) /* its members: their calls need the stubs */
            in[i] = region_of[i] == (uint32_t)r && !pinned[i];
        if (err == LG_OK && stubs.bytes_per_callee > 0)
            err = lg_region_far_callees(prog, in, &callees);
        uint64_t now = (uint64_t)callees * stubs.bytes_per_callee;
        if (err == LG_OK && now != rg->stubs) {
            char where[4096];
            snprintf(where, sizeof where, "%s:%zu", path, rg->line);
            lg_diag_add(d, LG_NOTE, rg->line ? where : path,
                        "region '%s': its members call %zu function(s) outside it, whose "
                        "veneers take %" PRIu64 " bytes, not the %" PRIu64 " of stubs=",
                        rg->name, callees, now, rg->stubs);
            rg->stubs = now;
        }
    }
    free(region_of);
    free(pinned);
    free(in);
    return err;
}

/* The region of lor each --fast-include of o names, and its file; refuses, before anything is
 * written, a value that names none, an empty file name, two files for one region, and a file
 * that is another output or an input (lg_cli_check_fast_files). */
static lg_err_t match_regions(const lg_lor_t *lor, const lg_cli_options_t *o, size_t *region,
                              const char **file, lg_diag_t *d)
{
    size_t n = o->nfast_includes;
    const char **names = malloc((lor->nregions ? lor->nregions : 1) * sizeof *names);
    bool *given = calloc(lor->nregions ? lor->nregions : 1, sizeof *given);
    lg_err_t err = names == NULL || given == NULL ? LG_ENOMEM : LG_OK;
    for (size_t r = 0; err == LG_OK && r < lor->nregions; r++)
        names[r] = lor->regions[r].name;
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        const char *v = o->fast_includes[i];
        region[i] = lg_cli_fast_include_region(v, names, lor->nregions, n, &file[i]);
        if (region[i] == SIZE_MAX)
            err = lg_diag_fail(d, LG_EINVAL, "",
                               "--fast-include %s names no region of the order (it has %zu): "
                               "expected FILE with one region, or NAME=FILE",
                               v, lor->nregions);
        else if (*file[i] == '\0')
            err =
                lg_diag_fail(d, LG_EINVAL, "",
                             "--fast-include %s: expected a file name after '=', found nothing", v);
        else if (given[region[i]])
            err = lg_diag_fail(d, LG_EINVAL, "", "--fast-include: region '%s' is given two files",
                               names[region[i]]);
        else
            given[region[i]] = true;
    }
    if (err == LG_OK) {
        char *error = NULL;
        lg_cli_status_t s = lg_cli_check_fast_files(o, file, &error);
        if (s != LG_CLI_RUN)
            err = error == NULL ? LG_ENOMEM : lg_diag_fail(d, LG_EINVAL, "", "%s", error);
        free(error);
    }
    if (err == LG_ENOMEM)
        lg_diag_fail(d, err, "", "out of memory");
    free(names);
    free(given);
    return err;
}

int lg_cli_write_regions(lg_lor_t *lor, const lg_cli_options_t *o, const lg_program_t *prog,
                         lg_outfile_t *files, lg_diag_t *d)
{
    size_t n = o->nfast_includes;
    size_t *region = malloc((n ? n : 1) * sizeof *region);
    const char **file = calloc(n ? n : 1, sizeof *file);
    lg_err_t err = region == NULL || file == NULL ? lg_diag_fail(d, LG_ENOMEM, "", "out of memory")
                                                  : match_regions(lor, o, region, file, d);
    for (size_t i = 0; i < n && err == LG_OK; i++) {
        lg_lor_region_t *rg = &lor->regions[region[i]];
        lg_lor_clique_t clique;
        lg_lor_t one;
        lend(lor, rg, &clique, &one);
        lg_linkname_resolve(&one, prog, d);
        err = lg_outfile_open(&files[i], file[i], d);
        if (err == LG_OK) {
            err = lg_emit_ld_region(&one, rg->name, files[i].f, d);
            if (err != LG_OK)
                lg_outfile_write_failed(&files[i], err, d);
        }
        lend_end(rg, &one);
    }
    if (err != LG_OK)
        for (size_t i = 0; i < n; i++)
            lg_outfile_abort(&files[i]);
    free(region);
    free(file);
    lg_cli_flush_diag(d);
    return err == LG_OK ? 0 : LG_EXIT_BAD_INPUT;
}
