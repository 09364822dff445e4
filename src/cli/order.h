/* order.h - the order lorgen proposes for a program, and the estimate that compares it with the
 * order the program has now.
 *
 * The proposal is the --algorithm's layout ("cliques" then placed in the cache unless
 * --no-place), kept only when the cache model does not predict it to miss more than the input
 * order (unless --no-safeguard; safeguard.h). The default is "chains" ("cliques" above a million
 * call arcs); when the safeguard refuses it, C3's layout is tried under the same safeguard before
 * the input order is kept (the choice is optimizer/default_order.h's; order.c runs it). The
 * algorithms named with --algorithm are kept as the literature defines them, for comparison, and
 * get no second choice.
 */
#ifndef LG_CLI_ORDER_H
#define LG_CLI_ORDER_H

#include "diag.h"
#include "estimate.h"
#include "fast.h"
#include "inputs.h"
#include "layout.h"
#include "lor.h"
#include "options.h"
#include "phase.h"
#include "program.h"
#include "safeguard.h"

/* What optimize and eval compute: the program the profiles bind to, the layout proposed for it,
 * the safeguard's predictions about it and the .LOR made of it. */
typedef struct lg_cli_proposal {
    lg_program_t prog;
    lg_layout_t layout;
    lg_safeguard_t sg;      /* verdict LG_SAFEGUARD_UNCHECKED until the safeguard runs */
    lg_phase_stats_t phase; /* what the phase choice did (zero when it did not run) */
    const char *algorithm;  /* static name of the algorithm whose layout was proposed last (the
                               input order may have been kept since: sg); NULL before */
    lg_lor_t lor;
    lg_cli_region_t *regions; /* --fast-region, chosen before the order (fast.h) */
    size_t nregions;
    const lg_elfsyms_t *elf; /* the ELF inputs prog was bound to (borrowed); NULL: unknown */
} lg_cli_proposal_t;

void lg_cli_proposal_init(lg_cli_proposal_t *p);
void lg_cli_proposal_destroy(lg_cli_proposal_t *p);

/* The start of optimize and eval: a bad cache geometry is a usage error found before anything is
 * read (its error shown, LG_EXIT_USAGE); then lg_cli_load_profiled (inputs.h). in is ready for
 * lg_cli_inputs_destroy either way. */
int lg_cli_load_for_order(const lg_cli_options_t *o, const char *no_profile, const char *no_elf,
                          lg_cli_inputs_t *in, lg_diag_t *d);

/* Computes the layout o asks for p->prog into p->layout and names its algorithm in p->algorithm;
 * p->sg receives the safeguard's predictions about it (left as it is when the safeguard does not
 * run), which the report reuses. Warns when the safeguard keeps the input order, and notes when
 * the default's second choice replaced its first. Returns 0, or LG_EXIT_BAD_INPUT with the error
 * in d. */
int lg_cli_propose_order(const lg_cli_options_t *o, lg_cli_proposal_t *p, lg_diag_t *d);

/* What lg_cli_estimate_orders found. */
typedef enum lg_cli_estimate_status {
    LG_CLI_ESTIMATED,       /* before and after hold the estimates */
    LG_CLI_NO_ADDRESSES,    /* the ELF inputs give no addresses (objects only): no baseline */
    LG_CLI_ESTIMATE_FAILED, /* an error, recorded in d: the layout does not fit the address space */
} lg_cli_estimate_status_t;

/* Estimated misses in the cache geo of the linked ELF's order (before) and of layout (after),
 * both initialized by the caller, who destroys them. Prints nothing. */
lg_cli_estimate_status_t lg_cli_estimate_orders(const lg_program_t *prog, const lg_layout_t *layout,
                                                const lg_geometry_t *geo, lg_estimate_t *before,
                                                lg_estimate_t *after, lg_diag_t *d);

#endif
