/* order.h - the order lorgen proposes for a program, and the estimate that compares it with the
 * order the program has now.
 *
 * The proposal is the --algorithm's layout; for the default, "cliques", then placed in the cache
 * (unless --no-place) and kept only when the cache model predicts it to miss less than the
 * input order (unless --no-safeguard; safeguard.h). The other algorithms are kept as the
 * literature defines them, for comparison.
 */
#ifndef LG_CLI_ORDER_H
#define LG_CLI_ORDER_H

#include "diag.h"
#include "estimate.h"
#include "layout.h"
#include "options.h"
#include "program.h"
#include "safeguard.h"

/* Computes the layout o asks for prog into layout; *sg receives the safeguard's predictions
 * (left as it is when the safeguard does not run), which the report reuses. Warns when the
 * safeguard keeps the input order. Returns 0, or LG_EXIT_BAD_INPUT with the error in d. */
int lg_cli_propose_order(const lg_cli_options_t *o, const lg_program_t *prog, lg_layout_t *layout,
                         lg_safeguard_t *sg, lg_diag_t *d);

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
