/* cmd_optimize.c - lorgen [options] PROFILE... ELF... -o OUT.lor [LINKER OUTPUTS] [--report F]:
 * binds the profiles to the program, proposes an order (order.h) and writes it as a .LOR, linker
 * scripts and reports. */
#include "commands.h"

#include "inputs.h"
#include "linkname.h"
#include "lor.h"
#include "messages.h"
#include "order.h"
#include "outputs.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* What lorgen [options] writes: -o FILE.lor, the linker outputs and the reports. */
#define OPTIMIZE_OUTPUTS                                                                           \
    (LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR) | LG_CLI_LINKER_OUTPUTS | LG_CLI_REPORT_OUTPUTS)

/* Puts the estimated misses before and after into report, for the reports: the safeguard's
 * (sg), which replayed both orders with the same model and options already, or a new estimate.
 * Without addresses the report goes without them. Returns 0, or LG_EXIT_BAD_INPUT when the
 * estimate failed (its error shown): then no output is written. */
static int estimate_for_report(const lg_geometry_t *geo, const lg_safeguard_t *sg,
                               lg_report_input_t *report, lg_diag_t *d)
{
    if (sg->verdict != LG_SAFEGUARD_UNCHECKED) {
        report->misses_before = sg->input_misses;
        report->misses_after =
            sg->verdict == LG_SAFEGUARD_PROPOSED ? sg->proposed_misses : sg->input_misses;
        report->estimated = true;
        return 0;
    }
    int status = 0;
    lg_estimate_t before, after;
    lg_estimate_init(&before);
    lg_estimate_init(&after);
    lg_cli_estimate_status_t est =
        lg_cli_estimate_orders(report->prog, report->layout, geo, &before, &after, d);
    if (est == LG_CLI_ESTIMATED) {
        report->misses_before = before.misses;
        report->misses_after = after.misses;
        report->estimated = true;
    } else if (est == LG_CLI_ESTIMATE_FAILED) {
        status = LG_EXIT_BAD_INPUT;
    }
    lg_estimate_destroy(&before);
    lg_estimate_destroy(&after);
    lg_cli_flush_diag(d);
    return status;
}

int lg_cli_cmd_optimize(const lg_cli_options_t *o)
{
    if (o->ninputs == 0) {
        /* Plain `lorgen`: the help, as a usage error. */
        lg_cli_write_help(stderr);
        return LG_EXIT_USAGE;
    }
    if (!lg_cli_wants(o, OPTIMIZE_OUTPUTS))
        lg_cli_usage_error(
            "nothing to write: give -o FILE.lor, a linker output (--ld-script, "
            "--ld-include, --section-ordering, --gold, --lld) or a report (--report, "
            "--report-html, --report-json)");
    lg_diag_t d;
    lg_diag_init(&d);
    lg_cli_inputs_t in;
    int status = lg_cli_load_for_order(
        o, "no profile given: expected at least one profile and one ELF",
        "no ELF given: expected the program's ELF file (and optionally its objects)", &in, &d);
    lg_cli_proposal_t p;
    lg_cli_proposal_init(&p);
    p.elf = &in.elf;
    lg_bind_input_t *binds = status == 0 ? lg_cli_bind_inputs(&in, o->normalize) : NULL;
    if (status == 0 && binds == NULL)
        status = LG_EXIT_BAD_INPUT;
    if (status == 0 && lg_bind(binds, in.nprofiles, &in.elf, &p.prog, &d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    lg_cli_flush_diag(&d);
    if (status == 0 && o->perturb > 0) {
        lg_program_perturb(&p.prog, o->perturb, LG_PERTURB_PART);
        lg_cli_message(LG_WARNING, "",
                       "--perturb %zu: every profile weight was multiplied by a factor in "
                       "[%.2f, %.2f], a robustness check: compare the layouts of several seeds, "
                       "do not ship one",
                       o->perturb, 1.0 - LG_PERTURB_PART, 1.0 + LG_PERTURB_PART);
    }
    if (status == 0) {
        lg_cli_warn_unbound(&p.prog);
        lg_cli_verbose("bound %zu profiled functions to %zu ELF functions, %zu call arcs",
                       p.prog.nprofiled, p.prog.nfns, p.prog.narcs);
        status = lg_cli_propose_order(o, &p, &d);
        lg_cli_flush_diag(&d);
    }
    if (status == 0) {
        lg_err_t err = lg_lor_from_layout(&p.prog, &p.layout, &p.lor);
        if (p.sg.verdict == LG_SAFEGUARD_KEPT_INPUT)
            p.lor.kept = LG_LOR_KEPT_MISSES_MORE;
        else if (p.sg.verdict == LG_SAFEGUARD_NO_CONFLICTS)
            p.lor.kept = LG_LOR_KEPT_NO_CONFLICTS;
        for (size_t i = 0; i < in.nprofiles && err == LG_OK; i++)
            err = lg_lor_add_input(&p.lor, "profile", in.profiles[i].path, in.profiles[i].format);
        for (size_t i = 0; i < in.nelf && err == LG_OK; i++)
            err = lg_lor_add_input(&p.lor, "elf", in.elf_paths[i], NULL);
        for (size_t i = 0; i < p.nregions && err == LG_OK; i++)
            err = lg_lor_add_region(&p.lor, &p.prog, p.regions[i].spec->name,
                                    p.regions[i].spec->size, p.regions[i].choice.budget,
                                    p.regions[i].choice.used, p.regions[i].fns,
                                    p.regions[i].nfns);
        for (size_t i = 0; i < p.nregions && err == LG_OK; i++) {
            p.lor.regions[i].held = p.regions[i].reserved;
            p.lor.regions[i].stubs = p.regions[i].stub_bytes;
            for (size_t k = 0; k < p.regions[i].npinned && err == LG_OK; k++)
                err = lg_lor_region_add_pinned(&p.lor.regions[i],
                                               p.prog.fns[p.regions[i].pinned[k]].symbol);
        }
        /* The selection, so that lorgen script keeps it (lor-format.md, select). */
        for (size_t i = 0; i < o->nselect && err == LG_OK; i++)
            err = lg_lor_add_input(&p.lor, o->select[i].include ? "include" : "exclude",
                                   o->select[i].pattern, NULL);
        if (err != LG_OK) {
            lg_cli_message(LG_ERROR, "", "%s", lg_strerror(err));
            status = LG_EXIT_BAD_INPUT;
        }
    }
    if (status == 0) {
        lg_report_input_t report = {&p.prog,      &p.layout, &p.lor, binds, in.nprofiles,
                                    o->normalize, o->rows,   0,      0,     false};
        if (lg_cli_wants(o, LG_CLI_REPORT_OUTPUTS))
            status = estimate_for_report(&o->geometry, &p.sg, &report, &d);
        if (status == 0 && lg_cli_wants(o, LG_CLI_LINKER_OUTPUTS))
            lg_linkname_resolve(&p.lor, &p.prog, &d);
        lg_write_input_t written = {.lor = &p.lor, .report = &report, .prog = &p.prog};
        if (status == 0) {
            /* The fragments first, so that they and the outputs are renamed into place together. */
            lg_outfile_t files[LG_OUTFILE_MAX_OPEN] = {0};
            status = lg_cli_write_regions(&p.lor, o, &p.prog, files + LG_CLI_OUTPUTS, &d);
            if (status == 0)
                status =
                    lg_cli_write_outputs(o, OPTIMIZE_OUTPUTS, LG_OUTPUT_LOR, &written, files, &d);
            lg_cli_verbose("%zu cliques, %zu functions placed", p.layout.ncliques, p.lor.nfns);
        }
    }
    free(binds);
    lg_cli_proposal_destroy(&p);
    lg_cli_inputs_destroy(&in);
    lg_diag_destroy(&d);
    return status;
}
