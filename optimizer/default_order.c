/* default_order.c - chooses the default's algorithm and its second choice (default_order.h). */
#include "default_order.h"

#include "clique.h"

lg_order_choice_t lg_default_order(const lg_program_t *prog, const char *named)
{
    if (named != NULL)
        return (lg_order_choice_t){.first = named, .second = NULL, .too_many_arcs = false};
    bool too_many = prog->narcs > LG_DEFAULT_CHAINS_MAX_ARCS;
    return (lg_order_choice_t){
        .first = too_many ? LG_CLIQUE_ALGORITHM : LG_DEFAULT_ALGORITHM,
        .second = LG_DEFAULT_SECOND_ALGORITHM,
        .too_many_arcs = too_many,
    };
}
