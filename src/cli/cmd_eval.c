/* cmd_eval.c - lorgen eval PROFILE... ELF... [--lor FILE]: estimated misses of the ELF's current
 * order and of a proposed one. */
#include "commands.h"

#include "fast.h"
#include "inputs.h"
#include "lor.h"
#include "messages.h"
#include "order.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static bool same_geometry(const lg_geometry_t *a, const lg_geometry_t *b)
{
    return a->cache_size == b->cache_size && a->line_size == b->line_size && a->ways == b->ways;
}

/* The cache a .LOR is judged in: the one its cache statement says it was made for, unless the
 * command line gives one, which wins with a note when it is another: an order judged in a cache
 * it was not made for says little about it. */
static lg_geometry_t judging_geometry(const lg_cli_options_t *o, const lg_lor_t *lor, lg_diag_t *d)
{
    const lg_geometry_t *made = &lor->geometry, *given = &o->geometry;
    if (!o->geometry_given)
        return *made;
    if (!same_geometry(made, given))
        lg_diag_add(d, LG_NOTE, o->lor,
                    "made for a %" PRIu32 "-byte %" PRIu32 "-way cache with %" PRIu32
                    "-byte lines (its cache statement), judged in the %" PRIu32 "-byte %" PRIu32
                    "-way cache with %" PRIu32 "-byte lines the command line gives",
                    made->cache_size, made->ways, made->line_size, given->cache_size, given->ways,
                    given->line_size);
    return *given;
}

/* lorgen eval: estimated misses of the ELF's current order and of a proposed one (a .LOR, judged
 * in the cache it was made for unless the command line gives one, or the order lorgen would
 * compute), by replaying the profiles through the cache model. */
int lg_cli_cmd_eval(const lg_cli_options_t *o)
{
    lg_diag_t d;
    lg_diag_init(&d);
    lg_cli_inputs_t in;
    const char *missing = "eval: expected profiles and the program's linked ELF";
    int status = lg_cli_load_for_order(o, missing, missing, &in, &d);
    lg_bind_input_t *binds = status == 0 ? lg_cli_bind_inputs(&in, o->normalize) : NULL;
    lg_cli_proposal_t p;
    lg_cli_proposal_init(&p);
    p.elf = &in.elf;
    if (status == 0 && lg_bind(binds, in.nprofiles, &in.elf, &p.prog, &d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    const char *proposed = o->algorithm;
    lg_geometry_t geo = o->geometry; /* the cache both orders are judged in */
    if (status == 0 && o->lor != NULL) {
        size_t len;
        char *text = lg_cli_read_lor(o->lor, &len);
        bool read = text != NULL && lg_lor_parse(text, len, o->lor, &p.lor, &d) == LG_OK;
        if (read)
            geo = judging_geometry(o, &p.lor, &d);
        if (!read || lg_lor_check(&p.lor, &p.prog, o->lor, &d) != LG_OK ||
            lg_lor_to_layout(&p.lor, &p.prog, &p.layout, &d) != LG_OK ||
            lg_cli_mark_uncached(&p.lor, &p.prog) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
        free(text);
        proposed = o->lor;
    } else if (status == 0) {
        status = lg_cli_propose_order(o, &p, &d);
        if (status == 0)
            proposed = p.algorithm;
    }
    lg_cli_flush_diag(&d);
    lg_estimate_t before, after;
    lg_estimate_init(&before);
    lg_estimate_init(&after);
    lg_cli_estimate_status_t est =
        status == 0 ? lg_cli_estimate_orders(&p.prog, &p.layout, &geo, &before, &after, &d)
                    : LG_CLI_ESTIMATE_FAILED;
    if (status == 0 && est == LG_CLI_NO_ADDRESSES)
        lg_cli_message(LG_ERROR, "",
                       "eval: the ELF inputs give no addresses: give the linked program");
    if (status == 0 && est != LG_CLI_ESTIMATED)
        status = LG_EXIT_BAD_INPUT;
    lg_cli_flush_diag(&d);
    if (status == 0) {
        printf("cache %" PRIu32 " bytes, %" PRIu32 "-byte lines, %" PRIu32
               "-way; replay estimate%s\n",
               geo.cache_size, geo.line_size, geo.ways,
               after.scale < 1.0 ? " (profile counts scaled down to bound the work)" : "");
        printf("%-32s %14s %14s %7s\n", "order", "accesses", "misses", "ratio");
        printf("%-32s %14" PRIu64 " %14" PRIu64 " %7.3f\n", "ELF (current)", before.accesses,
               before.misses, 1.0);
        printf("%-32s %14" PRIu64 " %14" PRIu64 " %7.3f\n", proposed, after.accesses, after.misses,
               /* No miss before or after: the same, not better. */
               before.misses ? (double)after.misses / (double)before.misses
                             : after.misses ? (double)INFINITY : 1.0);
        if (p.lor.nregions > 0 || p.nregions > 0)
            printf("fast regions: their code, fetched outside the instruction cache (a TCM), is "
                   "counted in neither\n");
    }
    lg_estimate_destroy(&before);
    lg_estimate_destroy(&after);
    free(binds);
    lg_cli_proposal_destroy(&p);
    lg_cli_inputs_destroy(&in);
    lg_diag_destroy(&d);
    return status;
}
