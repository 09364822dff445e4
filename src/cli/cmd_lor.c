/* cmd_lor.c - the commands that read a .LOR back: script writes the linker outputs of an edited
 * .LOR, check says where its functions landed in the relinked ELF. */
#include "commands.h"
#include "fast.h"

#include "inputs.h"
#include "linkcheck.h"
#include "linkname.h"
#include "regioncheck.h"
#include "lor.h"
#include "messages.h"
#include "outputs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What script and check work on: the .LOR (their first input) and the program that the ELF
 * files after it make. */
typedef struct lor_program {
    const char *lor_path;
    lg_lor_t lor;
    lg_cli_inputs_t in;
    lg_program_t prog;
} lor_program_t;

/* Reads the .LOR of script and check, then loads and binds the ELF files after it; for check
 * (relinked), only when they hold what check reads back. Returns 0, or the exit status of the
 * first failure, whose messages are in d (the .LOR's are shown already); lor_program_destroy
 * frees lp either way. */
static int lor_program_load(const lg_cli_options_t *o, bool relinked, lor_program_t *lp,
                            lg_diag_t *d)
{
    lp->lor_path = o->inputs[0].path;
    lg_lor_init(&lp->lor);
    memset(&lp->in, 0, sizeof lp->in);
    lg_program_init(&lp->prog);
    size_t len;
    char *text = lg_cli_read_lor(lp->lor_path, &len);
    if (text == NULL)
        return LG_EXIT_BAD_INPUT;
    int status =
        lg_lor_parse(text, len, lp->lor_path, &lp->lor, d) == LG_OK ? 0 : LG_EXIT_BAD_INPUT;
    free(text);
    lg_cli_flush_diag(d);
    if (status == 0)
        status = lg_cli_load_inputs(o->inputs + 1, o->ninputs - 1, &o->load, false, &lp->in, d);
    if (status == 0 && relinked && lg_linkcheck_inputs(&lp->in.elf, d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    if (status == 0 && lg_bind(NULL, 0, &lp->in.elf, &lp->prog, d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    return status;
}

static void lor_program_destroy(lor_program_t *lp)
{
    lg_program_destroy(&lp->prog);
    lg_cli_inputs_destroy(&lp->in);
    lg_lor_destroy(&lp->lor);
}

int lg_cli_cmd_script(const lg_cli_options_t *o)
{
    if (o->ninputs < 2)
        lg_cli_usage_error("script: expected FILE.lor and the ELF file(s) to check it against");
    if (!lg_cli_wants(o, LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR) | LG_CLI_LINKER_OUTPUTS) &&
        o->nfast_includes == 0)
        lg_cli_usage_error("script: nothing to write: give --ld-script, --ld-include, "
                           "--fast-include, --section-ordering, --gold, --lld or -o");
    lg_diag_t d;
    lg_diag_init(&d);
    lor_program_t lp;
    int status = lor_program_load(o, false, &lp, &d);
    if (status == 0 && (lg_lor_check(&lp.lor, &lp.prog, lp.lor_path, &d) != LG_OK ||
                        lg_cli_check_regions(&lp.lor, &lp.prog, lp.lor_path, &d) != LG_OK ||
                        lg_cli_recount_stubs(&lp.lor, &lp.prog, &lp.in.elf, lp.lor_path, &d) !=
                            LG_OK ||
                        lg_lor_check_region_fit(&lp.lor, lp.lor_path, &d) != LG_OK))
        status = LG_EXIT_BAD_INPUT;
    lg_cli_flush_diag(&d);
    if (status == 0) {
        if (lg_cli_wants(o, LG_CLI_LINKER_OUTPUTS))
            lg_linkname_resolve(&lp.lor, &lp.prog, &d);
        lg_write_input_t written = {.lor = &lp.lor, .prog = &lp.prog};
        /* The fragments first, so that they and the outputs are renamed into place together. */
        lg_outfile_t files[LG_OUTFILE_MAX_OPEN] = {0};
        status = lg_cli_write_regions(&lp.lor, o, &lp.prog, files + LG_CLI_OUTPUTS, &d);
        if (status == 0)
            status =
                lg_cli_write_outputs(o, LG_CLI_OUTPUT_BIT(LG_OUTPUT_LOR) | LG_CLI_LINKER_OUTPUTS,
                                     LG_OUTPUT_LOR, &written, files, &d);
    }
    lor_program_destroy(&lp);
    lg_diag_destroy(&d);
    return status;
}

/* A .LOR that lists no function asks for no order, and "0 of 0 landed" would pass a file whose
 * lines were lost. Only the safeguard's input-kept order lists none on purpose: every function
 * keeps its place, which the summary line says (exit 0). Returns the exit status. */
static int check_nothing(const lor_program_t *lp)
{
    if (lp->lor.algorithm != NULL && strcmp(lp->lor.algorithm, LG_ALGORITHM_KEPT) == 0) {
        printf("lorgen check: no functions to check: %s keeps the input order (algorithm %s), "
               "so the link orders nothing\n",
               lp->lor_path, LG_ALGORITHM_KEPT);
        return 0;
    }
    lg_cli_message(LG_ERROR, lp->lor_path,
                   "expected fn lines to check, found none: the .LOR orders nothing (an empty "
                   "or damaged file?)");
    return LG_EXIT_BAD_INPUT;
}

/* The fast regions' rows and summary: every member inside its output section, nothing else
 * there (regioncheck.h). Returns 0, LG_EXIT_NOT_IN_ORDER or LG_EXIT_BAD_INPUT. */
static int check_regions(const lor_program_t *lp, lg_diag_t *d)
{
    lg_regioncheck_t rc;
    if (lg_regioncheck_run(&lp->lor, &lp->prog, &lp->in.elf, &rc, d) != LG_OK) {
        lg_cli_flush_diag(d);
        lg_regioncheck_destroy(&rc);
        return LG_EXIT_BAD_INPUT;
    }
    for (size_t r = 0; r < rc.nrows; r++) {
        const lg_region_row_t *row = &rc.rows[r];
        const char *region = lp->lor.regions[row->region].name;
        char addr[24] = "-";
        if (row->address != UINT64_MAX)
            snprintf(addr, sizeof addr, "0x%" PRIx64, row->address);
        const char *verdict = row->pinned  ? "pinned"
                              : row->ok    ? "in region"
                              : row->member ? "outside"
                                            : "intruder";
        printf("%-10s %-18s %-14s %s", verdict, addr, row->section ? row->section : "-",
               row->symbol);
        if (row->source != NULL) /* which of the statics of that name */
            printf(" (%s)", row->source);
        if (row->pinned)
            printf(": kept in %s by the link's own lines, as the .LOR says", region);
        else if (!row->member)
            printf(": in %s but not its member (a wildcard or attribute took it)", region);
        else if (!row->ok)
            printf(": a member of %s%s", region, row->section ? "" : ", not found in the ELF");
        putchar('\n');
    }
    /* Each region's output section against its size: a link into a larger memory region than
     * the .LOR's size= passes the linker and still overflows what the region was given. */
    for (size_t r = 0; r < lp->lor.nregions; r++) {
        const lg_lor_region_t *rg = &lp->lor.regions[r];
        if (rc.bytes[r] > rg->size)
            printf("%-10s %s: %" PRIu64 " bytes in the link, size=%" PRIu64 ": %" PRIu64
                   " bytes over\n",
                   "overflow", rg->name, rc.bytes[r], rg->size, rc.bytes[r] - rg->size);
        else
            printf("%-10s %s: %" PRIu64 " of its %" PRIu64 " bytes in the link\n", "fits",
                   rg->name, rc.bytes[r], rg->size);
    }
    printf("lorgen check: %zu of %zu region members lie in their region, %zu other functions lie "
           "in one\n",
           rc.inside, rc.inside + rc.outside, rc.intruders);
    int status =
        rc.outside > 0 || rc.intruders > 0 || rc.overflowing > 0 ? LG_EXIT_NOT_IN_ORDER : 0;
    lg_regioncheck_destroy(&rc);
    return status;
}

/* lorgen check: reads the relinked ELF back and says, per function of the .LOR, whether it
 * landed in the asked order (and at its phase= in the cache line). Rows go to standard output,
 * then one summary line. */
int lg_cli_cmd_check(const lg_cli_options_t *o)
{
    if (o->ninputs < 2)
        lg_cli_usage_error("check: expected FILE.lor, the relinked ELF and optionally its objects");
    lg_diag_t d;
    lg_diag_init(&d);
    lor_program_t lp;
    int status = lor_program_load(o, true, &lp, &d);
    lg_linkcheck_t check;
    lg_linkcheck_init(&check);
    if (status == 0 && lp.lor.nfns == 0 && lp.lor.nregions == 0)
        status = check_nothing(&lp);
    else if (status == 0) {
        /* The writers' notes about pinned functions were given when the scripts were written;
         * here the rows say it. */
        lg_diag_t quiet;
        lg_diag_init(&quiet);
        lg_linkname_resolve(&lp.lor, &lp.prog, &quiet);
        lg_diag_destroy(&quiet);
        if (lg_linkcheck_run(&lp.lor, &lp.prog, &lp.in.elf, &check, &d) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
    }
    lg_cli_flush_diag(&d);
    if (status == 0 && lp.lor.nfns > 0) {
        for (size_t r = 0; r < check.nrows; r++) {
            const lg_landed_t *row = &check.rows[r];
            char addr[24] = "-";
            if (row->address != UINT64_MAX)
                snprintf(addr, sizeof addr, "0x%" PRIx64, row->address);
            printf("%-10s %-18s %-14s %s%s%s\n", lg_landing_name(row->status), addr,
                   row->output_section ? row->output_section : "-", lp.lor.fns[row->fn].symbol,
                   *row->reason ? ": " : "", row->reason);
        }
        /* A phase is part of the asked place: a function off it did not land as asked. */
        char phases[64] = "";
        if (check.off_phase > 0)
            snprintf(phases, sizeof phases, " (%zu off %s phase)", check.off_phase,
                     check.off_phase > 1 ? "their" : "its");
        printf("lorgen check: %zu of %zu functions landed in the asked order, %zu did not%s, %zu "
               "left in place or moved with another\n",
               check.in_order, check.nrows, check.failed, phases, check.pinned);
        if (check.failed > 0)
            status = LG_EXIT_NOT_IN_ORDER;
    }
    if (status != LG_EXIT_BAD_INPUT && lp.lor.nregions > 0) {
        int regions = check_regions(&lp, &d);
        if (regions != 0 && status != LG_EXIT_NOT_IN_ORDER)
            status = regions;
    }
    lg_linkcheck_destroy(&check);
    lor_program_destroy(&lp);
    lg_diag_destroy(&d);
    return status;
}
