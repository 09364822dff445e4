/* safeguard.c - keep the input order when the proposal is predicted to miss more (safeguard.h). */
#include "safeguard.h"

#include "classify.h"
#include "estimate.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#define LG_SAFEGUARD_WHERE "safeguard"

/* Thousandths in a whole. */
#define LG_PERMILLE 1000u

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Predicted misses of the functions at addr. */
static lg_err_t predict(const lg_program_t *prog, const uint64_t *addr, const lg_geometry_t *geo,
                        uint64_t *misses, lg_diag_t *d)
{
    lg_estimate_t e;
    lg_estimate_init(&e);
    lg_err_t err = lg_estimate_misses(prog, addr, geo, NULL, &e, d);
    *misses = e.misses;
    lg_estimate_destroy(&e);
    return err;
}

/* Empties layout's cliques into its cold list, in input order (rank keys). */
static lg_err_t keep_input(const lg_program_t *prog, lg_layout_t *layout, lg_diag_t *d)
{
    size_t n = layout->ncold;
    for (size_t c = 0; c < layout->ncliques; c++)
        n += layout->cliques[c].nfns;
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint32_t *cold = malloc((n ? n : 1) * sizeof *cold);
    if (keys == NULL || cold == NULL) {
        free(keys);
        free(cold);
        return lg_diag_fail(d, LG_ENOMEM, LG_SAFEGUARD_WHERE,
                            "out of memory keeping the input order");
    }
    size_t k = 0;
    for (size_t i = 0; i < layout->ncold; i++)
        keys[k++] = lg_rank_key(prog, layout->cold[i]);
    for (size_t c = 0; c < layout->ncliques; c++)
        for (size_t i = 0; i < layout->cliques[c].nfns; i++)
            keys[k++] = lg_rank_key(prog, layout->cliques[c].fns[i]);
    qsort(keys, n, sizeof *keys, cmp_u64);
    for (size_t i = 0; i < n; i++)
        cold[i] = lg_rank_index(keys[i]);
    free(keys);
    for (size_t c = 0; c < layout->ncliques; c++)
        free(layout->cliques[c].fns);
    free(layout->cliques);
    free(layout->cold);
    layout->cliques = NULL;
    layout->ncliques = 0;
    layout->cold = cold;
    layout->ncold = n;
    layout->section_align = 0;
    layout->algorithm = LG_ALGORITHM_KEPT;
    return LG_OK;
}

/* Replays the input order (at addr) in a fully-associative cache of geo's size and line size
 * into out->associative_misses; *none is set when it misses no less than out->input_misses in
 * geo: the model sees no conflict misses. A cache with more lines than the model takes is not
 * checked (a note says so). */
static lg_err_t check_conflicts(const lg_program_t *prog, const uint64_t *addr,
                                const lg_geometry_t *geo, lg_safeguard_t *out, bool *none,
                                lg_diag_t *d)
{
    lg_geometry_t associative = *geo;
    associative.ways = geo->cache_size / geo->line_size;
    if (lg_geometry_check(&associative, NULL) != LG_OK) {
        lg_diag_add(d, LG_NOTE, LG_SAFEGUARD_WHERE,
                    "the input order was not checked for conflict misses: a fully-associative "
                    "cache of %u lines is more than the cache model takes",
                    associative.ways);
        return LG_OK;
    }
    LG_CHECK(predict(prog, addr, &associative, &out->associative_misses, d));
    *none = out->associative_misses >= out->input_misses;
    return LG_OK;
}

/* True when code the model does not place ran: the program needs shared libraries, or at least
 * LG_SAFEGUARD_UNMODELLED_PERCENT of what the profile ran is outside the model (of its self cost
 * when it has one, else of its hits: functions that did not bind, or that this build inlined). */
static bool unmodelled_code_ran(const lg_program_t *prog)
{
    if (prog->shared_libraries)
        return true;
    uint64_t bound = 0, all = 0;
    if (prog->profile_cost > 0) {
        for (size_t i = 0; i < prog->nfns; i++)
            bound = lg_sat_add(bound, prog->fns[i].counter1_self);
        all = prog->profile_cost;
    } else {
        for (size_t i = 0; i < prog->nfns; i++)
            bound = lg_sat_add(bound, prog->fns[i].hits);
        all = prog->profile_hits;
    }
    uint64_t outside = all > bound ? all - bound : 0;
    return all > 0 && (double)outside * 100.0 >= (double)all * LG_SAFEGUARD_UNMODELLED_PERCENT;
}

lg_err_t lg_safeguard_layout(const lg_program_t *prog, const lg_geometry_t *geo,
                             lg_layout_t *layout, lg_safeguard_t *out, lg_diag_t *d)
{
    memset(out, 0, sizeof *out);
    uint64_t *addr = malloc((prog->nfns ? prog->nfns : 1) * sizeof *addr);
    if (addr == NULL)
        return lg_diag_fail(d, LG_ENOMEM, LG_SAFEGUARD_WHERE, "out of memory for addresses");
    if (lg_addresses_from_elf(prog, addr, NULL) != LG_OK) {
        free(addr);
        return LG_OK; /* objects only: no order to compare with */
    }
    lg_err_t err = predict(prog, addr, geo, &out->input_misses, d);
    bool no_conflicts = false;
    if (err == LG_OK && layout->ncliques > 0 && geo->ways >= LG_SAFEGUARD_ASSOCIATIVE_WAYS &&
        unmodelled_code_ran(prog))
        err = check_conflicts(prog, addr, geo, out, &no_conflicts, d);
    if (err == LG_OK && no_conflicts) {
        free(addr);
        out->proposed_misses = out->input_misses;
        LG_CHECK(keep_input(prog, layout, d));
        out->verdict = LG_SAFEGUARD_NO_CONFLICTS;
        return LG_OK;
    }
    if (err == LG_OK && layout->ncliques == 0) {
        /* Nothing moves: the linker keeps the input order, whatever the model would say of
         * the same functions laid out again. */
        out->proposed_misses = out->input_misses;
        out->verdict = LG_SAFEGUARD_PROPOSED;
        free(addr);
        return LG_OK;
    }
    if (err == LG_OK)
        err = lg_addresses_from_layout(prog, layout, lg_addresses_text_base(prog), addr, d);
    if (err == LG_OK)
        err = predict(prog, addr, geo, &out->proposed_misses, d);
    free(addr);
    if (err != LG_OK)
        return err;
    /* input * (1 + margin) in integers; misses are bounded by the replay's work (estimate.h), so
     * the product cannot wrap. */
    uint64_t allowed =
        out->input_misses + out->input_misses * LG_SAFEGUARD_MARGIN_PERMILLE / LG_PERMILLE;
    if (out->proposed_misses <= allowed) {
        out->verdict = LG_SAFEGUARD_PROPOSED;
        return LG_OK;
    }
    LG_CHECK(keep_input(prog, layout, d));
    out->verdict = LG_SAFEGUARD_KEPT_INPUT;
    return LG_OK;
}
