/* order.c - proposes an order (algorithm, placement, safeguard) and estimates it. */
#include "order.h"

#include "algorithms.h"
#include "clique.h"
#include "default_order.h"
#include "groups.h"
#include "messages.h"
#include "placement.h"
#include "select.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void lg_cli_proposal_init(lg_cli_proposal_t *p)
{
    lg_program_init(&p->prog);
    lg_layout_init(&p->layout);
    p->sg = (lg_safeguard_t){.verdict = LG_SAFEGUARD_UNCHECKED};
    p->algorithm = NULL;
    lg_lor_init(&p->lor);
    p->regions = NULL;
    p->nregions = 0;
}

void lg_cli_proposal_destroy(lg_cli_proposal_t *p)
{
    lg_lor_destroy(&p->lor);
    lg_cli_regions_destroy(p->regions, p->nregions);
    p->regions = NULL;
    p->nregions = 0;
    lg_layout_destroy(&p->layout);
    lg_program_destroy(&p->prog);
}

/* Says why the safeguard kept the input order, when it did. */
static void tell_kept(const lg_geometry_t *geo, const lg_safeguard_t *sg)
{
    if (sg->verdict == LG_SAFEGUARD_KEPT_INPUT)
        lg_cli_message(
            LG_WARNING, "",
            "kept the input order: the new layout was predicted to miss more in this cache "
            "(%" PRIu64 " against %" PRIu64 " estimated misses); the outputs order nothing",
            sg->proposed_misses, sg->input_misses);
    else if (sg->verdict == LG_SAFEGUARD_NO_CONFLICTS)
        lg_cli_message(
            LG_WARNING, "",
            "kept the input order: in this %u-way cache the model predicts no conflict "
            "misses for it (%" PRIu64 " estimated misses, %" PRIu64
            " in a fully-associative cache of the same size), so a new layout would only "
            "move where the code meets code lorgen does not model; the outputs order nothing",
            geo->ways, sg->input_misses, sg->associative_misses);
}

int lg_cli_load_for_order(const lg_cli_options_t *o, const char *no_profile, const char *no_elf,
                          lg_cli_inputs_t *in, lg_diag_t *d)
{
    if (lg_geometry_check(&o->geometry, d) != LG_OK) {
        memset(in, 0, sizeof *in);
        lg_cli_flush_diag(d);
        return LG_EXIT_USAGE;
    }
    return lg_cli_load_profiled(o, no_profile, no_elf, in, d);
}

/* The safeguard refused the default's layout (p->layout now keeps the input order, p->sg says
 * why): proposes the second choice's layout instead when the safeguard accepts it. The
 * second pass's own diagnostics (an oversized function, say) reach d only when its layout is
 * proposed or it failed: a layout nobody gets has nothing to warn about. */
static int try_second(const lg_cli_options_t *o, lg_cli_proposal_t *p, const char *first,
                      const char *second_algorithm, lg_diag_t *d)
{
    lg_layout_t second;
    lg_layout_init(&second);
    lg_safeguard_t sg = {.verdict = LG_SAFEGUARD_UNCHECKED};
    lg_diag_t second_d;
    lg_diag_init(&second_d);
    bool failed = lg_order(second_algorithm, &p->prog, &o->geometry, &second, &second_d) != LG_OK ||
                  lg_safeguard_layout(&p->prog, &o->geometry, &second, &sg, &second_d) != LG_OK;
    if (!failed && sg.verdict != LG_SAFEGUARD_PROPOSED) {
        lg_diag_destroy(&second_d);
        lg_layout_destroy(&second);
        tell_kept(&o->geometry, &p->sg);
        return 0;
    }
    lg_diag_move(d, &second_d);
    lg_diag_destroy(&second_d);
    if (failed) {
        lg_layout_destroy(&second);
        return LG_EXIT_BAD_INPUT;
    }
    lg_cli_message(LG_NOTE, "",
                   "the %s layout was predicted to miss more than the input order in this cache "
                   "(%" PRIu64 " against %" PRIu64 " estimated misses); proposing the %s layout, "
                   "predicted to miss %" PRIu64,
                   first, p->sg.proposed_misses, p->sg.input_misses, second_algorithm,
                   sg.proposed_misses);
    lg_layout_destroy(&p->layout);
    p->layout = second;
    p->sg = sg;
    p->algorithm = second_algorithm;
    return 0;
}

static int propose_units(const lg_cli_options_t *o, lg_cli_proposal_t *p, lg_diag_t *d);

/* The fast regions' members were taken out of the order as excluded: they are no code that
 * cannot move, and the cache does not see them (they run from the region). */
static void drop_region_members(lg_cli_proposal_t *p)
{
    if (p->nregions == 0)
        return;
    bool *member = calloc(p->prog.nfns ? p->prog.nfns : 1, sizeof *member);
    if (member == NULL)
        return; /* they stay listed as not movable: a report row, not an order */
    for (size_t r = 0; r < p->nregions; r++) {
        for (size_t i = 0; i < p->regions[r].nfns; i++)
            member[p->regions[r].fns[i]] = true;
        /* The link keeps its pinned code in the region as well (regionheld.h). */
        for (size_t i = 0; i < p->regions[r].npinned; i++)
            member[p->regions[r].pinned[i]] = true;
    }
    size_t kept = 0;
    for (size_t i = 0; i < p->layout.nexcluded; i++)
        if (!member[p->layout.excluded[i]])
            p->layout.excluded[kept++] = p->layout.excluded[i];
    p->layout.nexcluded = kept;
    kept = 0; /* a region's group may hold never-executed members */
    for (size_t i = 0; i < p->layout.ncold; i++)
        if (!member[p->layout.cold[i]])
            p->layout.cold[kept++] = p->layout.cold[i];
    p->layout.ncold = kept;
    free(member);
}

/* The optimizer places units (optimizer/groups.h): a fixed group, the functions of one input
 * section, is one. It runs on the program of units in p->prog's place, and its layout is then
 * expanded to the program's functions. */
int lg_cli_propose_order(const lg_cli_options_t *o, lg_cli_proposal_t *p, lg_diag_t *d)
{
    size_t out = lg_select_apply(&p->prog, o->select, o->nselect);
    if (o->nselect > 0)
        lg_cli_message(LG_NOTE, "",
                       "%zu of %zu functions taken out by --include and --exclude: they keep "
                       "their input order, and the report lists the executed ones",
                       out, p->prog.nfns);
    lg_groups_t g;
    if (lg_groups_build(&p->prog, &g, d) != LG_OK) {
        lg_groups_destroy(&g);
        return LG_EXIT_BAD_INPUT;
    }
    /* The fast regions take their units first: the cache order is made of what they leave. */
    lg_program_t *units = g.ngroups ? &g.units : &p->prog;
    if (o->nfast > 0) {
        p->nregions = o->nfast;
        if (lg_cli_choose_regions(o, &p->prog, p->elf, units, g.ngroups ? &g : NULL,
                                  &p->regions, d) != 0) {
            lg_groups_destroy(&g);
            return LG_EXIT_BAD_INPUT;
        }
    }
    if (g.ngroups == 0) {
        lg_groups_destroy(&g);
        int status = propose_units(o, p, d);
        lg_cli_regions_release(&p->prog, p->regions, p->nregions);
        if (status == 0)
            drop_region_members(p);
        return status;
    }
    lg_program_t program = p->prog;
    p->prog = g.units;
    int status = propose_units(o, p, d);
    g.units = p->prog;
    p->prog = program;
    lg_cli_regions_release(&g.units, p->regions, p->nregions);
    if (status == 0 && lg_groups_expand(&g, &p->prog, &p->layout) != LG_OK) {
        lg_cli_message(LG_ERROR, "", "out of memory");
        status = LG_EXIT_BAD_INPUT;
    }
    lg_groups_destroy(&g);
    if (status == 0)
        drop_region_members(p);
    return status;
}

static int propose_units(const lg_cli_options_t *o, lg_cli_proposal_t *p, lg_diag_t *d)
{
    lg_order_choice_t choice = lg_default_order(&p->prog, o->algorithm_given ? o->algorithm : NULL);
    const char *algorithm = choice.first;
    if (choice.too_many_arcs)
        lg_cli_message(LG_NOTE, "",
                       "%zu call arcs, more than %u: ordered with the cliques pass, whose time "
                       "grows linearly with them (give --algorithm chains to wait for chains)",
                       p->prog.narcs, LG_DEFAULT_CHAINS_MAX_ARCS);
    bool cliques = strcmp(algorithm, LG_CLIQUE_ALGORITHM) == 0;
    /* Before ordering: a phased function's padding is part of the bytes every algorithm and the
     * placement lay out. The input order moves nothing, so it needs no phase. */
    if (o->phase && strcmp(algorithm, LG_ALGORITHM_INPUT) != 0) {
        if (lg_phase_choose(&p->prog, &o->geometry, &p->phase, d) != LG_OK)
            return LG_EXIT_BAD_INPUT;
        if (p->phase.phased > 0)
            lg_cli_message(LG_NOTE, "",
                           "%zu function(s) as large as a cache way start where in the cache "
                           "line their own lines conflict least (a replay of %llu profiled "
                           "instructions: %llu misses of their own instead of up to %llu)",
                           p->phase.phased, (unsigned long long)p->phase.steps,
                           (unsigned long long)p->phase.misses_chosen,
                           (unsigned long long)p->phase.misses_worst);
    }
    if (lg_order(algorithm, &p->prog, &o->geometry, &p->layout, d) != LG_OK)
        return LG_EXIT_BAD_INPUT;
    if (o->place && cliques && lg_place_for_cache(&p->prog, &o->geometry, &p->layout, d) != LG_OK)
        return LG_EXIT_BAD_INPUT;
    p->algorithm = algorithm;
    /* lorgen never proposes what the model predicts to be worse than the order the program
     * has now, unless told to (--no-safeguard); the input order needs no check. */
    if (!o->safeguard || strcmp(algorithm, LG_ALGORITHM_INPUT) == 0)
        return 0;
    if (lg_safeguard_layout(&p->prog, &o->geometry, &p->layout, &p->sg, d) != LG_OK)
        return LG_EXIT_BAD_INPUT;
    if (p->sg.verdict == LG_SAFEGUARD_KEPT_INPUT && choice.second != NULL)
        return try_second(o, p, algorithm, choice.second, d);
    tell_kept(&o->geometry, &p->sg);
    return 0;
}

lg_cli_estimate_status_t lg_cli_estimate_orders(const lg_program_t *prog, const lg_layout_t *layout,
                                                const lg_geometry_t *geo, lg_estimate_t *before,
                                                lg_estimate_t *after, lg_diag_t *d)
{
    uint64_t *addr = malloc((prog->nfns ? prog->nfns : 1) * sizeof *addr);
    if (addr == NULL) {
        lg_diag_add(d, LG_ERROR, "", "out of memory for the estimate");
        return LG_CLI_ESTIMATE_FAILED;
    }
    if (lg_addresses_from_elf(prog, addr, NULL) != LG_OK) {
        free(addr);
        return LG_CLI_NO_ADDRESSES;
    }
    bool ok;
    if (layout->ncliques == 0) {
        /* Nothing moves: the linker keeps the ELF's order, so the estimate is the same one
         * (its figures; the per-function misses stay with before). */
        ok = lg_estimate_misses(prog, addr, geo, NULL, before, d) == LG_OK;
        if (ok) {
            *after = *before;
            after->fn_misses = NULL;
            after->nfns = 0;
        }
    } else {
        ok = lg_estimate_misses(prog, addr, geo, NULL, before, d) == LG_OK &&
             lg_addresses_from_layout(prog, layout, lg_addresses_text_base(prog), addr, d) ==
                 LG_OK &&
             lg_estimate_misses(prog, addr, geo, NULL, after, d) == LG_OK;
    }
    free(addr);
    return ok ? LG_CLI_ESTIMATED : LG_CLI_ESTIMATE_FAILED;
}
