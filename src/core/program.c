/* program.c - lifecycle of the bound program model, and the robustness check's noise. */
#include "program.h"

#include "mem.h"
#include "strmap.h"
#include <stdlib.h>
#include <string.h>

/* Golden-ratio multipliers keep the keys of functions and arcs apart before hashing. */
#define LG_PERTURB_FN_MIX 0x9e3779b97f4a7c15ull
#define LG_PERTURB_ARC_MIX 0xc2b2ae3d27d4eb4full
/* A double's mantissa: a hash's top 53 bits give a uniform fraction of [0, 1). */
#define LG_DOUBLE_MANTISSA_BITS 53u

/* A factor in [1 - part, 1 + part] from a key. */
static double perturb_factor(uint64_t key, double part)
{
    uint64_t h = lg_mix64(key); /* not lg_hash64: one seed, one program in every run */
    double u = (double)(h >> (64u - LG_DOUBLE_MANTISSA_BITS)) /
               (double)(UINT64_C(1) << LG_DOUBLE_MANTISSA_BITS);
    return 1.0 + part * (2.0 * u - 1.0);
}

void lg_program_perturb(lg_program_t *p, uint64_t seed, double part)
{
    for (size_t i = 0; i < p->nfns; i++) {
        lg_fn_t *f = &p->fns[i];
        double k = perturb_factor((seed * LG_PERTURB_FN_MIX) ^ (uint64_t)(i + 1), part);
        f->hits = lg_scale_count(f->hits, k);
        f->counter1_self = lg_scale_count(f->counter1_self, k);
        f->counter2_self = lg_scale_count(f->counter2_self, k);
    }
    for (size_t i = 0; i < p->narcs; i++) {
        lg_arc_t *a = &p->arcs[i];
        uint64_t ends = ((uint64_t)a->caller << 32) | a->callee;
        a->weight =
            lg_scale_count(a->weight, perturb_factor((seed * LG_PERTURB_ARC_MIX) ^ ends, part));
    }
}

void lg_program_init(lg_program_t *p)
{
    memset(p, 0, sizeof *p);
}

void lg_program_destroy(lg_program_t *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->nfns; i++) {
        free(p->fns[i].symbol);
        free(p->fns[i].section);
        free(p->fns[i].object);
        free(p->fns[i].source_file);
    }
    for (size_t i = 0; i < p->nunbound; i++) {
        free(p->unbound[i].name);
        free(p->unbound[i].reason);
    }
    for (size_t i = 0; i < p->nobjects; i++)
        free(p->objects[i]);
    free(p->objects);
    for (size_t i = 0; i < p->naliases; i++)
        free(p->aliases[i].name);
    free(p->aliases);
    free(p->fns);
    free(p->arcs);
    free(p->refs);
    free(p->hotspots);
    free(p->hotjumps);
    free(p->proximity);
    free(p->unbound);
    memset(p, 0, sizeof *p);
}

const char *lg_fn_unmovable_reason(const lg_fn_t *f)
{
    if (f->flags & LG_FN_EXCLUDED)
        return "excluded by --exclude or --include: it keeps its input order";
    if (f->size == 0)
        return "size 0 in the symbol table";
    if (f->flags & LG_FN_SHARED_SECTION)
        return "shares its input section with other functions (build with -ffunction-sections)";
    if (f->flags & LG_FN_SECTION_UNKNOWN)
        return "defined in none of the object files given (startup code or a library): its "
               "input section is unknown";
    return "";
}

static int cmp_hotspot(const void *pa, const void *pb)
{
    const lg_hotspot_t *a = pa, *b = pb;
    if (a->fn != b->fn)
        return a->fn < b->fn ? -1 : 1;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

static int cmp_hotjump(const void *pa, const void *pb)
{
    const lg_hotjump_t *a = pa, *b = pb;
    if (a->fn != b->fn)
        return a->fn < b->fn ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->to > b->to) - (a->to < b->to);
}

static void finish_jumps(lg_program_t *p)
{
    if (p->nhotjumps == 0)
        return;
    qsort(p->hotjumps, p->nhotjumps, sizeof *p->hotjumps, cmp_hotjump);
    size_t out = 0;
    for (size_t i = 0; i < p->nhotjumps; i++) {
        lg_hotjump_t *last = out > 0 ? &p->hotjumps[out - 1] : NULL;
        if (last != NULL && cmp_hotjump(last, &p->hotjumps[i]) == 0) {
            last->count = lg_sat_add(last->count, p->hotjumps[i].count);
            continue;
        }
        p->hotjumps[out++] = p->hotjumps[i];
    }
    p->nhotjumps = out;
}

void lg_program_merge_positions(lg_program_t *p)
{
    finish_jumps(p);
    if (p->nhotspots == 0)
        return;
    qsort(p->hotspots, p->nhotspots, sizeof *p->hotspots, cmp_hotspot);
    size_t out = 0;
    for (size_t i = 0; i < p->nhotspots; i++) {
        if (out > 0 && p->hotspots[out - 1].fn == p->hotspots[i].fn &&
            p->hotspots[out - 1].offset == p->hotspots[i].offset) {
            p->hotspots[out - 1].cost = lg_sat_add(p->hotspots[out - 1].cost, p->hotspots[i].cost);
            continue;
        }
        p->hotspots[out++] = p->hotspots[i];
    }
    p->nhotspots = out;
}
