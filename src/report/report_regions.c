/* report_regions.c - the fast regions as the reports show them; see report_regions.h. */
#include "report_regions.h"

#include "fast_region.h"
#include "linkfind.h"
#include "mem.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

uint64_t lg_report_region_value(const lg_report_regions_t *r, const lg_fn_t *fn)
{
    return lg_fast_region_value(fn, r->counters);
}

lg_err_t lg_report_regions_build(const lg_report_input_t *in, lg_report_regions_t *out)
{
    memset(out, 0, sizeof *out);
    const lg_program_t *prog = in->prog;
    if (in->lor == NULL || in->lor->nregions == 0)
        return LG_OK;
    out->nregions = in->lor->nregions;
    out->counters = lg_fast_region_counters(prog);
    out->arm = prog->machine == EM_ARM;
    out->value = calloc(out->nregions, sizeof *out->value);
    out->region_of = malloc((prog->nfns ? prog->nfns : 1) * sizeof *out->region_of);
    out->left = malloc((prog->nfns ? prog->nfns : 1) * sizeof *out->left);
    out->crossing = malloc((prog->narcs ? prog->narcs : 1) * sizeof *out->crossing);
    bool *pinned = calloc(prog->nfns ? prog->nfns : 1, sizeof *pinned);
    if (out->value == NULL || out->region_of == NULL || out->left == NULL ||
        out->crossing == NULL || pinned == NULL ||
        lg_linkfind_regions(in->lor, prog, out->region_of, pinned) != LG_OK) {
        free(pinned);
        return LG_ENOMEM;
    }
    for (size_t r = 0; r < out->nregions; r++)
        if (in->lor->regions[r].budget > out->largest_budget)
            out->largest_budget = in->lor->regions[r].budget;
    for (size_t i = 0; i < prog->nfns; i++) {
        const lg_fn_t *fn = &prog->fns[i];
        uint64_t v = lg_report_region_value(out, fn);
        out->total_value = lg_sat_add(out->total_value, v);
        uint32_t r = out->region_of[i];
        if (r == LG_REPORT_NO_REGION && v > 0)
            out->left[out->nleft++] = (lg_report_key_t){v, fn->hits, i};
        else if (r != LG_REPORT_NO_REGION && !pinned[i]) /* lorgen moved it there */
            out->value[r] = lg_sat_add(out->value[r], v);
    }
    free(pinned);
    qsort(out->left, out->nleft, sizeof *out->left, lg_report_key_cmp);
    for (size_t a = 0; a < prog->narcs; a++) {
        const lg_arc_t *arc = &prog->arcs[a];
        uint32_t from = out->region_of[arc->caller], to = out->region_of[arc->callee];
        if (from != to && arc->weight > 0)
            out->crossing[out->ncrossing++] =
                (lg_report_row_t){arc, LG_REPORT_NO_CLIQUE, from != LG_REPORT_NO_REGION};
    }
    return lg_report_sort_rows(prog, out->crossing, out->ncrossing, out->ncrossing);
}

const char *lg_report_region_left_reason(const lg_report_regions_t *r, const lg_fn_t *fn)
{
    if (fn->flags & LG_FN_EXCLUDED)
        return "excluded (--include, --exclude)";
    if (!lg_fn_movable(fn))
        return lg_fn_unmovable_reason(fn);
    if (lg_fast_region_weight(fn) > r->largest_budget)
        return "too big for the region";
    return "no room: the members save more per byte";
}

const char *lg_report_region_side(const lg_report_input_t *in, const lg_report_regions_t *r,
                                  uint32_t fn)
{
    uint32_t at = r->region_of[fn];
    return at == LG_REPORT_NO_REGION ? "the rest" : in->lor->regions[at].name;
}

const char *lg_report_region_crossing_note(const lg_report_regions_t *r)
{
    if (!r->arm)
        return NULL;
    return "Arm: a BL reaches 16 MiB either way; each direct call of these whose ends lie "
           "further apart needs a veneer from the linker (GNU ld names it __CALLEE_veneer) or a "
           "long call (-mlong-calls)";
}

void lg_report_regions_destroy(lg_report_regions_t *r)
{
    free(r->value);
    free(r->region_of);
    free(r->left);
    free(r->crossing);
    memset(r, 0, sizeof *r);
}
