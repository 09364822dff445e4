/* main.c - the lorgen command line. The only place that prints or exits.
 *
 *   lorgen [options] PROFILE... ELF... -o OUT.lor [LINKER OUTPUTS] [--report F]
 *   lorgen script FILE.lor ELF... [LINKER OUTPUTS]
 *   lorgen check FILE.lor RELINKED-ELF [OBJECTS...]
 *   lorgen callgraph PROFILE... [ELF...] [-o FILE] [--dot FILE] [--graphml FILE]
 *   lorgen eval PROFILE... ELF... [--lor FILE]
 *   lorgen formats
 *
 * Inputs are told apart by content: ELF files and ar archives are program inputs, anything else
 * must be a profile in a known format (or the one --format names for the next profile).
 * LINKER OUTPUTS: --ld-script (--ld), --ld-include, --section-ordering, --gold, --lld.
 * Exit status: 0 success, 1 bad input or failed output, 2 bad usage, 3 (check only) the order
 * did not take effect. The options and their parsing: options.h.
 */
#include "algorithms.h"
#include "bind.h"
#include "diag.h"
#include "elfsym.h"
#include "estimate.h"
#include "layout.h"
#include "linkcheck.h"
#include "linkname.h"
#include "lor.h"
#include "messages.h"
#include "options.h"
#include "outfile.h"
#include "placement.h"
#include "profile.h"
#include "progress_line.h"
#include "registry.h"
#include "report.h"
#include "safeguard.h"
#include "signals.h"
#include "writers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Largest .LOR file `lorgen script` reads, in bytes: far above any real link order. */
#define LG_LOR_MAX_FILE (1ull << 30)

/* ---- Inputs --------------------------------------------------------------------------------- */

typedef struct inputs {
    lg_profile_t *profiles;
    double *profile_weights; /* --weight of each profile */
    size_t nprofiles;
    lg_elfsyms_t elf;
    size_t nelf;
    const char **elf_paths;
} inputs_t;

/* Reads the first bytes of a file for probing. Returns the count, or -1 with errno set. */
static long read_head(const char *path, uint8_t *head, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t n = fread(head, 1, size, f);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        errno = EIO;
        return -1;
    }
    return (long)n;
}

static void format_head(const uint8_t *head, size_t n, char *out, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < n && i < 8 && used + 4 < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%02x", i ? " " : "", head[i]);
    if (n == 0)
        snprintf(out, size, "an empty file");
}

static int load_inputs(const lg_cli_options_t *o, inputs_t *in, bool profiles_allowed, lg_diag_t *d)
{
    memset(in, 0, sizeof *in);
    lg_elfsyms_init(&in->elf);
    in->profiles = calloc(o->ninputs ? o->ninputs : 1, sizeof *in->profiles);
    in->profile_weights = calloc(o->ninputs ? o->ninputs : 1, sizeof *in->profile_weights);
    in->elf_paths = calloc(o->ninputs ? o->ninputs : 1, sizeof *in->elf_paths);
    if (in->profiles == NULL || in->profile_weights == NULL || in->elf_paths == NULL) {
        lg_cli_message(LG_ERROR, "", "out of memory");
        return LG_EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < o->ninputs; i++) {
        const lg_cli_input_t *arg = &o->inputs[i];
        uint8_t head[LG_PROBE_BYTES];
        long n = read_head(arg->path, head, sizeof head);
        if (n < 0) {
            lg_cli_message(LG_ERROR, arg->path, "cannot read: %s", strerror(errno));
            return LG_EXIT_BAD_INPUT;
        }
        if (arg->format == NULL && lg_elf_probe(head, (size_t)n)) {
            lg_cli_verbose("reading ELF %s", arg->path);
            if (lg_elfsyms_read(&in->elf, arg->path, d) != LG_OK) {
                lg_cli_flush_diag(d);
                return LG_EXIT_BAD_INPUT;
            }
            in->elf_paths[in->nelf++] = arg->path;
            continue;
        }
        const lg_loader_t *loader =
            arg->format ? lg_loader_find(arg->format) : lg_loader_detect(head, (size_t)n);
        if (loader == NULL) {
            char bytes[64];
            format_head(head, (size_t)n, bytes, sizeof bytes);
            lg_cli_message(LG_ERROR, arg->path,
                    "unknown input format: expected an ELF file, an ar archive or a profile "
                    "('lorgen formats' lists them), found %s",
                    bytes);
            return LG_EXIT_BAD_INPUT;
        }
        if (!profiles_allowed) {
            lg_cli_message(LG_ERROR, arg->path, "expected ELF inputs only here, found a %s profile",
                    loader->name);
            return LG_EXIT_BAD_INPUT;
        }
        lg_profile_t *p = &in->profiles[in->nprofiles];
        lg_profile_init(p);
        lg_cli_verbose("reading %s profile %s", loader->name, arg->path);
        lg_cli_progress_line_start(o->load.progress_ctx);
        lg_err_t loaded = lg_loader_load(loader, arg->path, &o->load, p, d);
        lg_cli_progress_line_clear(o->load.progress_ctx);
        if (loaded != LG_OK) {
            lg_profile_destroy(p);
            lg_cli_flush_diag(d);
            return LG_EXIT_BAD_INPUT;
        }
        in->profile_weights[in->nprofiles++] = arg->weight;
        if (!p->has_call_edges)
            lg_cli_message(LG_NOTE, arg->path,
                    "%s profile without call information: functions are grouped by hotness "
                    "only",
                    p->kind == LG_PROFILE_STATISTICAL ? "statistical" : "a");
    }
    lg_cli_flush_diag(d);
    return 0;
}

static void free_inputs(inputs_t *in)
{
    for (size_t i = 0; i < in->nprofiles; i++)
        lg_profile_destroy(&in->profiles[i]);
    free(in->profiles);
    free(in->profile_weights);
    free(in->elf_paths);
    lg_elfsyms_destroy(&in->elf);
}

/* The profiles with their --weight, normalized unless --no-normalize. */
static lg_bind_input_t *bind_inputs(const lg_cli_options_t *o, const inputs_t *in)
{
    lg_bind_input_t *b = calloc(in->nprofiles ? in->nprofiles : 1, sizeof *b);
    for (size_t i = 0; b != NULL && i < in->nprofiles; i++)
        b[i] = (lg_bind_input_t){&in->profiles[i], in->profile_weights[i]};
    if (b != NULL && o->normalize && in->nprofiles > 1)
        lg_bind_normalize(b, in->nprofiles);
    return b;
}

/* ---- Outputs -------------------------------------------------------------------------------- */

/* A set of output kinds, one bit per lg_output_t. */
#define OUTPUT_BIT(kind) (1u << (kind))
#define LINKER_OUTPUTS                                                                             \
    (OUTPUT_BIT(LG_OUTPUT_LD_SCRIPT) | OUTPUT_BIT(LG_OUTPUT_LD_INCLUDE) |                          \
     OUTPUT_BIT(LG_OUTPUT_SECTION_ORDERING) | OUTPUT_BIT(LG_OUTPUT_GOLD) |                         \
     OUTPUT_BIT(LG_OUTPUT_LLD))
#define REPORT_OUTPUTS                                                                             \
    (OUTPUT_BIT(LG_OUTPUT_REPORT) | OUTPUT_BIT(LG_OUTPUT_REPORT_HTML) |                            \
     OUTPUT_BIT(LG_OUTPUT_REPORT_JSON))
#define GRAPH_OUTPUTS (OUTPUT_BIT(LG_OUTPUT_DOT) | OUTPUT_BIT(LG_OUTPUT_GRAPHML))

/* True when the command line names an output among kinds. */
static bool wants(const lg_cli_options_t *o, unsigned kinds)
{
    for (size_t k = 0; k < LG_CLI_OUTPUTS; k++)
        if ((kinds & OUTPUT_BIT(k)) && o->outputs[k] != NULL)
            return true;
    return false;
}

/* Writes the outputs the command line names among kinds, -o as main (the command's main output),
 * each to a temporary file, then renames them all into place; if any write fails, none is
 * renamed and existing outputs stay as they were (outfile.h). */
static int write_outputs(const lg_cli_options_t *o, unsigned kinds, lg_output_t main,
                         const lg_write_input_t *in, lg_diag_t *d)
{
    lg_outfile_t files[LG_OUTFILE_MAX_OPEN];
    memset(files, 0, sizeof files);
    _Static_assert(LG_CLI_OUTPUTS <= LG_OUTFILE_MAX_OPEN, "one open file per output option");
    lg_err_t err = LG_OK;
    for (size_t k = 0; k < LG_CLI_OUTPUTS && err == LG_OK; k++) {
        if (!(kinds & OUTPUT_BIT(k)) || o->outputs[k] == NULL)
            continue;
        err = lg_outfile_open(&files[k], o->outputs[k], d);
        if (err == LG_OK) {
            err = lg_writers[k == LG_OUTPUT_LOR ? main : k](in, files[k].f, d);
            if (err != LG_OK)
                lg_outfile_write_failed(&files[k], err, d);
        }
    }
    if (err == LG_OK)
        err = lg_outfile_commit_all(files, LG_CLI_OUTPUTS, d);
    for (size_t k = 0; k < LG_CLI_OUTPUTS; k++)
        lg_outfile_abort(&files[k]);
    lg_cli_flush_diag(d);
    return err == LG_OK ? 0 : LG_EXIT_BAD_INPUT;
}

/* ---- Estimates ------------------------------------------------------------------------------ */

/* What estimate_pair found. */
typedef enum estimate_status {
    ESTIMATED,       /* before and after hold the estimates */
    NO_ADDRESSES,    /* the ELF inputs give no addresses (objects only): no baseline */
    ESTIMATE_FAILED, /* an error, recorded in d: the layout does not fit the address space */
} estimate_status_t;

/* Estimated misses of the linked ELF's order (before) and of layout (after). */
static estimate_status_t estimate_pair(const lg_program_t *prog, const lg_layout_t *layout,
                                       const lg_geometry_t *geo, lg_estimate_t *before,
                                       lg_estimate_t *after, lg_diag_t *d)
{
    uint64_t *addr = malloc((prog->nfns ? prog->nfns : 1) * sizeof *addr);
    if (addr == NULL) {
        lg_diag_add(d, LG_ERROR, "", "out of memory for the estimate");
        return ESTIMATE_FAILED;
    }
    if (lg_addresses_from_elf(prog, addr, NULL) != LG_OK) {
        free(addr);
        return NO_ADDRESSES;
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
    return ok ? ESTIMATED : ESTIMATE_FAILED;
}

/* Keeps the input order when the layout is predicted to miss more (safeguard.h), and says so;
 * *sg receives the predictions, which the report reuses. */
static int safeguard(const lg_program_t *prog, const lg_geometry_t *geo, lg_layout_t *layout,
                     lg_safeguard_t *sg, lg_diag_t *d)
{
    if (lg_safeguard_layout(prog, geo, layout, sg, d) != LG_OK)
        return LG_EXIT_BAD_INPUT;
    if (sg->verdict == LG_SAFEGUARD_KEPT_INPUT)
        lg_cli_message(LG_WARNING, "",
                "kept the input order: the new layout was predicted to miss more in this cache "
                "(%" PRIu64 " against %" PRIu64 " estimated misses); the outputs order nothing",
                sg->proposed_misses, sg->input_misses);
    else if (sg->verdict == LG_SAFEGUARD_NO_CONFLICTS)
        lg_cli_message(LG_WARNING, "",
                "kept the input order: in this %u-way cache the model predicts no conflict "
                "misses for it (%" PRIu64 " estimated misses, %" PRIu64
                " in a fully-associative cache of the same size), so a new layout would only "
                "move where the code meets code lorgen does not model; the outputs order nothing",
                geo->ways, sg->input_misses, sg->associative_misses);
    return 0;
}

/* ---- Commands ------------------------------------------------------------------------------- */

static void warn_unbound(const lg_program_t *prog)
{
    if (prog->nunbound == 0)
        return;
    const lg_unbound_t *u = &prog->unbound[0];
    lg_cli_message(LG_WARNING, "",
            "%zu profiled function(s) could not be bound to the ELF and are left out; the "
            "hottest: '%s' (%" PRIu64 " hits): %s",
            prog->nunbound, u->name, u->hits, u->reason);
}

static int cmd_optimize(const lg_cli_options_t *o)
{
    if (o->ninputs == 0) {
        /* Plain `lorgen`: the help, as a usage error. */
        lg_cli_write_help(stderr);
        return LG_EXIT_USAGE;
    }
    if (!wants(o, OUTPUT_BIT(LG_OUTPUT_LOR) | LINKER_OUTPUTS | REPORT_OUTPUTS))
        lg_cli_usage_error("nothing to write: give -o FILE.lor, a linker output (--ld-script, "
                    "--ld-include, --section-ordering, --gold, --lld) or a report (--report, "
                    "--report-html, --report-json)");
    lg_diag_t d;
    lg_diag_init(&d);
    if (lg_geometry_check(&o->geometry, &d) != LG_OK) {
        lg_cli_flush_diag(&d);
        return LG_EXIT_USAGE;
    }
    inputs_t in;
    int status = load_inputs(o, &in, true, &d);
    if (status == 0 && in.nprofiles == 0) {
        lg_cli_message(LG_ERROR, "", "no profile given: expected at least one profile and one ELF");
        status = LG_EXIT_USAGE;
    }
    if (status == 0 && in.nelf == 0) {
        lg_cli_message(LG_ERROR, "",
                "no ELF given: expected the program's ELF file (and optionally its objects)");
        status = LG_EXIT_USAGE;
    }
    lg_program_t prog;
    lg_layout_t layout;
    lg_safeguard_t sg = {.verdict = LG_SAFEGUARD_UNCHECKED};
    lg_lor_t lor;
    lg_program_init(&prog);
    lg_layout_init(&layout);
    lg_lor_init(&lor);
    lg_bind_input_t *binds = status == 0 ? bind_inputs(o, &in) : NULL;
    if (status == 0 && binds == NULL)
        status = LG_EXIT_BAD_INPUT;
    if (status == 0 && lg_bind(binds, in.nprofiles, &in.elf, &prog, &d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    lg_cli_flush_diag(&d);
    if (status == 0) {
        warn_unbound(&prog);
        lg_cli_verbose("bound %zu profiled functions to %zu ELF functions, %zu call arcs",
                 prog.nprofiled, prog.nfns, prog.narcs);
        if (lg_order(o->algorithm, &prog, &o->geometry, &layout, &d) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
        /* The default algorithm places its cliques in the cache; the others are kept as the
         * literature defines them, for comparison. */
        else if (o->place && strcmp(o->algorithm, "cliques") == 0 &&
                 lg_place_for_cache(&prog, &o->geometry, &layout, &d) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
        /* The default never proposes what the model predicts to be worse than the order the
         * program has now (safeguard.h). */
        else if (o->safeguard && strcmp(o->algorithm, "cliques") == 0)
            status = safeguard(&prog, &o->geometry, &layout, &sg, &d);
        lg_cli_flush_diag(&d);
    }
    if (status == 0) {
        lg_err_t err = lg_lor_from_layout(&prog, &layout, &lor);
        for (size_t i = 0; i < in.nprofiles && err == LG_OK; i++)
            err = lg_lor_add_input(&lor, "profile", in.profiles[i].path, in.profiles[i].format);
        for (size_t i = 0; i < in.nelf && err == LG_OK; i++)
            err = lg_lor_add_input(&lor, "elf", in.elf_paths[i], NULL);
        if (err != LG_OK) {
            lg_cli_message(LG_ERROR, "", "%s", lg_strerror(err));
            status = LG_EXIT_BAD_INPUT;
        }
    }
    if (status == 0) {
        lg_report_input_t report = {&prog, &layout, &lor, binds, in.nprofiles, o->normalize,
                                    o->rows, 0, 0, false};
        if (wants(o, REPORT_OUTPUTS) && sg.verdict != LG_SAFEGUARD_UNCHECKED) {
            /* The safeguard replayed both orders with the same model and options already. */
            report.misses_before = sg.input_misses;
            report.misses_after =
                sg.verdict == LG_SAFEGUARD_PROPOSED ? sg.proposed_misses : sg.input_misses;
            report.estimated = true;
        } else if (wants(o, REPORT_OUTPUTS)) {
            lg_estimate_t before, after;
            lg_estimate_init(&before);
            lg_estimate_init(&after);
            estimate_status_t est =
                estimate_pair(&prog, &layout, &o->geometry, &before, &after, &d);
            if (est == ESTIMATED) {
                report.misses_before = before.misses;
                report.misses_after = after.misses;
                report.estimated = true;
            } else if (est == ESTIMATE_FAILED) {
                /* An error was printed: the exit status says so, and no output is written. */
                status = LG_EXIT_BAD_INPUT;
            }
            lg_estimate_destroy(&before);
            lg_estimate_destroy(&after);
            lg_cli_flush_diag(&d);
        }
        if (status == 0 && wants(o, LINKER_OUTPUTS))
            lg_linkname_resolve(&lor, &prog, &d);
        lg_write_input_t written = {.lor = &lor, .report = &report};
        if (status == 0) {
            status = write_outputs(o, OUTPUT_BIT(LG_OUTPUT_LOR) | LINKER_OUTPUTS | REPORT_OUTPUTS,
                                   LG_OUTPUT_LOR, &written, &d);
            lg_cli_verbose("%zu cliques, %zu functions placed", layout.ncliques, lor.nfns);
        }
    }
    free(binds);
    lg_lor_destroy(&lor);
    lg_layout_destroy(&layout);
    lg_program_destroy(&prog);
    free_inputs(&in);
    lg_diag_destroy(&d);
    return status;
}

static char *read_text_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        lg_cli_message(LG_ERROR, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || ferror(f))
            break;
        if (cap >= LG_LOR_MAX_FILE) {
            lg_cli_message(LG_ERROR, path, "larger than %llu bytes: not a .LOR file",
                    (unsigned long long)LG_LOR_MAX_FILE);
            free(buf);
            buf = NULL;
            break;
        }
        char *grown = realloc(buf, cap * 2);
        if (grown == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    if (buf != NULL && ferror(f)) {
        lg_cli_message(LG_ERROR, path, "read failed: %s", strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* What script and check work on: the .LOR (their first input) and the program that the ELF
 * files after it make. */
typedef struct lor_program {
    const char *lor_path;
    lg_lor_t lor;
    inputs_t in;
    lg_program_t prog;
} lor_program_t;

/* Reads the .LOR of script and check, then loads and binds the ELF files after it. Returns 0,
 * or the exit status of the first failure, whose messages are in d (the .LOR's are shown
 * already); lor_program_destroy frees lp either way. */
static int lor_program_load(const lg_cli_options_t *o, lor_program_t *lp, lg_diag_t *d)
{
    lp->lor_path = o->inputs[0].path;
    lg_lor_init(&lp->lor);
    memset(&lp->in, 0, sizeof lp->in);
    lg_program_init(&lp->prog);
    size_t len;
    char *text = read_text_file(lp->lor_path, &len);
    if (text == NULL)
        return LG_EXIT_BAD_INPUT;
    int status = lg_lor_parse(text, len, lp->lor_path, &lp->lor, d) == LG_OK ? 0 : LG_EXIT_BAD_INPUT;
    free(text);
    lg_cli_flush_diag(d);
    lg_cli_options_t elf_only = *o;
    elf_only.inputs = o->inputs + 1;
    elf_only.ninputs = o->ninputs - 1;
    if (status == 0)
        status = load_inputs(&elf_only, &lp->in, false, d);
    if (status == 0 && lg_bind(NULL, 0, &lp->in.elf, &lp->prog, d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    return status;
}

static void lor_program_destroy(lor_program_t *lp)
{
    lg_program_destroy(&lp->prog);
    if (lp->in.profiles != NULL || lp->in.elf.nfiles > 0)
        free_inputs(&lp->in);
    lg_lor_destroy(&lp->lor);
}

static int cmd_script(const lg_cli_options_t *o)
{
    if (o->ninputs < 2)
        lg_cli_usage_error("script: expected FILE.lor and the ELF file(s) to check it against");
    if (!wants(o, OUTPUT_BIT(LG_OUTPUT_LOR) | LINKER_OUTPUTS))
        lg_cli_usage_error("script: nothing to write: give --ld-script, --ld-include, "
                    "--section-ordering, --gold, --lld or -o");
    lg_diag_t d;
    lg_diag_init(&d);
    lor_program_t lp;
    int status = lor_program_load(o, &lp, &d);
    if (status == 0 && lg_lor_check(&lp.lor, &lp.prog, lp.lor_path, &d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    lg_cli_flush_diag(&d);
    if (status == 0) {
        if (wants(o, LINKER_OUTPUTS))
            lg_linkname_resolve(&lp.lor, &lp.prog, &d);
        lg_write_input_t written = {.lor = &lp.lor};
        status = write_outputs(o, OUTPUT_BIT(LG_OUTPUT_LOR) | LINKER_OUTPUTS, LG_OUTPUT_LOR,
                               &written, &d);
    }
    lor_program_destroy(&lp);
    lg_diag_destroy(&d);
    return status;
}

/* lorgen check: reads the relinked ELF back and says, per function of the .LOR, whether it
 * landed in the asked order. Rows go to standard output, then one summary line. */
static int cmd_check(const lg_cli_options_t *o)
{
    if (o->ninputs < 2)
        lg_cli_usage_error("check: expected FILE.lor, the relinked ELF and optionally its objects");
    lg_diag_t d;
    lg_diag_init(&d);
    lor_program_t lp;
    int status = lor_program_load(o, &lp, &d);
    lg_linkcheck_t check;
    lg_linkcheck_init(&check);
    if (status == 0) {
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
    if (status == 0) {
        for (size_t r = 0; r < check.nrows; r++) {
            const lg_landed_t *row = &check.rows[r];
            char addr[24] = "-";
            if (row->address != UINT64_MAX)
                snprintf(addr, sizeof addr, "0x%" PRIx64, row->address);
            printf("%-10s %-18s %-14s %s%s%s\n", lg_landing_name(row->status), addr,
                   row->output_section ? row->output_section : "-", lp.lor.fns[row->fn].symbol,
                   *row->reason ? ": " : "", row->reason);
        }
        printf("lorgen check: %zu of %zu functions landed in the asked order, %zu did not, %zu "
               "left in place or moved with another\n",
               check.in_order, check.nrows, check.failed, check.pinned);
        if (check.failed > 0)
            status = LG_EXIT_NOT_IN_ORDER;
    }
    lg_linkcheck_destroy(&check);
    lor_program_destroy(&lp);
    lg_diag_destroy(&d);
    return status;
}

static int cmd_callgraph(const lg_cli_options_t *o)
{
    if (!wants(o, OUTPUT_BIT(LG_OUTPUT_LOR) | GRAPH_OUTPUTS))
        lg_cli_usage_error("callgraph: give -o FILE (or -o - for standard output), --dot FILE or "
                    "--graphml FILE");
    lg_diag_t d;
    lg_diag_init(&d);
    inputs_t in;
    int status = load_inputs(o, &in, true, &d);
    if (status == 0 && in.nprofiles == 0) {
        lg_cli_message(LG_ERROR, "", "callgraph: expected at least one profile");
        status = LG_EXIT_USAGE;
    }
    lg_bind_input_t *binds = status == 0 ? bind_inputs(o, &in) : NULL;
    lg_program_t prog;
    lg_program_init(&prog);
    bool bound = false;
    if (status == 0 && in.nelf > 0) {
        if (lg_bind(binds, in.nprofiles, &in.elf, &prog, &d) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
        bound = status == 0;
        lg_cli_flush_diag(&d);
        if (bound)
            warn_unbound(&prog);
    }
    if (status == 0) {
        lg_write_input_t written = {.prog = bound ? &prog : NULL,
                                    .profiles = binds,
                                    .nprofiles = in.nprofiles};
        status = write_outputs(o, OUTPUT_BIT(LG_OUTPUT_LOR) | GRAPH_OUTPUTS, LG_OUTPUT_CALLGRAPH,
                               &written, &d);
    }
    free(binds);
    lg_program_destroy(&prog);
    free_inputs(&in);
    lg_diag_destroy(&d);
    return status;
}

/* lorgen eval: estimated misses of the ELF's current order and of a proposed one (a .LOR, or
 * the order lorgen would compute), by replaying the profiles through the cache model. */
static int cmd_eval(const lg_cli_options_t *o)
{
    lg_diag_t d;
    lg_diag_init(&d);
    if (lg_geometry_check(&o->geometry, &d) != LG_OK) {
        lg_cli_flush_diag(&d);
        return LG_EXIT_USAGE;
    }
    inputs_t in;
    int status = load_inputs(o, &in, true, &d);
    if (status == 0 && (in.nprofiles == 0 || in.nelf == 0)) {
        lg_cli_message(LG_ERROR, "", "eval: expected profiles and the program's linked ELF");
        status = LG_EXIT_USAGE;
    }
    lg_bind_input_t *binds = status == 0 ? bind_inputs(o, &in) : NULL;
    lg_program_t prog;
    lg_layout_t layout;
    lg_safeguard_t sg = {.verdict = LG_SAFEGUARD_UNCHECKED};
    lg_lor_t lor;
    lg_program_init(&prog);
    lg_layout_init(&layout);
    lg_lor_init(&lor);
    if (status == 0 && lg_bind(binds, in.nprofiles, &in.elf, &prog, &d) != LG_OK)
        status = LG_EXIT_BAD_INPUT;
    const char *proposed = o->algorithm;
    if (status == 0 && o->lor != NULL) {
        size_t len;
        char *text = read_text_file(o->lor, &len);
        if (text == NULL || lg_lor_parse(text, len, o->lor, &lor, &d) != LG_OK ||
            lg_lor_check(&lor, &prog, o->lor, &d) != LG_OK ||
            lg_lor_to_layout(&lor, &prog, &layout, &d) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
        free(text);
        proposed = o->lor;
    } else if (status == 0) {
        if (lg_order(o->algorithm, &prog, &o->geometry, &layout, &d) != LG_OK ||
            (o->place && strcmp(o->algorithm, "cliques") == 0 &&
             lg_place_for_cache(&prog, &o->geometry, &layout, &d) != LG_OK))
            status = LG_EXIT_BAD_INPUT;
        else if (o->safeguard && strcmp(o->algorithm, "cliques") == 0)
            status = safeguard(&prog, &o->geometry, &layout, &sg, &d);
    }
    lg_cli_flush_diag(&d);
    lg_estimate_t before, after;
    lg_estimate_init(&before);
    lg_estimate_init(&after);
    estimate_status_t est =
        status == 0 ? estimate_pair(&prog, &layout, &o->geometry, &before, &after, &d)
                    : ESTIMATE_FAILED;
    if (status == 0 && est == NO_ADDRESSES)
        lg_cli_message(LG_ERROR, "", "eval: the ELF inputs give no addresses: give the linked program");
    if (status == 0 && est != ESTIMATED)
        status = LG_EXIT_BAD_INPUT;
    lg_cli_flush_diag(&d);
    if (status == 0) {
        printf("cache %" PRIu32 " bytes, %" PRIu32 "-byte lines, %" PRIu32
               "-way; replay estimate%s\n",
               o->geometry.cache_size, o->geometry.line_size, o->geometry.ways,
               after.scale < 1.0 ? " (profile counts scaled down to bound the work)" : "");
        printf("%-32s %14s %14s %7s\n", "order", "accesses", "misses", "ratio");
        printf("%-32s %14" PRIu64 " %14" PRIu64 " %7.3f\n", "ELF (current)", before.accesses,
               before.misses, 1.0);
        printf("%-32s %14" PRIu64 " %14" PRIu64 " %7.3f\n", proposed, after.accesses,
               after.misses, before.misses ? (double)after.misses / (double)before.misses : 0.0);
    }
    lg_estimate_destroy(&before);
    lg_estimate_destroy(&after);
    free(binds);
    lg_lor_destroy(&lor);
    lg_layout_destroy(&layout);
    lg_program_destroy(&prog);
    free_inputs(&in);
    lg_diag_destroy(&d);
    return status;
}

static int cmd_formats(const lg_cli_options_t *o)
{
    (void)o;
    size_t n;
    const lg_loader_t *loaders = lg_loaders(&n);
    puts("Profile formats (detected from content; --format NAME forces one):");
    for (size_t i = 0; i < n; i++)
        printf("  %-14s %s\n", loaders[i].name, loaders[i].description);
    puts("Program inputs:");
    printf("  %-14s %s\n", "elf", "ELF executables and shared objects (addresses, sizes)");
    printf("  %-14s %s\n", "", "ELF relocatable objects and ar archives (exact input sections)");
    return 0;
}

int main(int argc, char **argv)
{
    lg_cli_options_t o;
    lg_cli_status_t parsed = lg_cli_parse(argc, argv, &o);
    if (parsed == LG_CLI_RUN)
        parsed = lg_cli_check_files(&o);
    lg_cli_set_verbosity(o.verbosity);
    switch (parsed) {
    case LG_CLI_RUN:
        break;
    case LG_CLI_HELP:
        lg_cli_write_help(stdout);
        lg_cli_options_destroy(&o);
        return 0;
    case LG_CLI_VERSION:
        puts(LG_CLI_VERSION_TEXT);
        lg_cli_options_destroy(&o);
        return 0;
    case LG_CLI_USAGE:
        lg_cli_usage_error("%s", o.error);
    case LG_CLI_NOMEM:
        fputs("lorgen: out of memory\n", stderr);
        lg_cli_options_destroy(&o);
        return LG_EXIT_BAD_INPUT;
    }
    lg_cli_catch_fatal_signals();
    lg_cli_progress_line_t progress_line = {0};
    if (o.verbosity >= 1 && isatty(STDERR_FILENO)) {
        o.load.progress = lg_cli_progress_line_update;
        o.load.progress_ctx = &progress_line;
    }
    static int (*const commands[])(const lg_cli_options_t *) = {
        [LG_CLI_OPTIMIZE] = cmd_optimize, [LG_CLI_SCRIPT] = cmd_script,
        [LG_CLI_CALLGRAPH] = cmd_callgraph, [LG_CLI_FORMATS] = cmd_formats,
        [LG_CLI_EVAL] = cmd_eval,         [LG_CLI_CHECK] = cmd_check,
    };
    int status = commands[o.command](&o);
    lg_cli_options_destroy(&o);
    return status;
}
