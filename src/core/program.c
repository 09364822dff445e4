/* program.c - lifecycle of the bound program model. */
#include "program.h"

#include <stdlib.h>
#include <string.h>

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
    free(p->fns);
    free(p->arcs);
    free(p->refs);
    free(p->hotspots);
    free(p->proximity);
    free(p->unbound);
    memset(p, 0, sizeof *p);
}

const char *lg_fn_unmovable_reason(const lg_fn_t *f)
{
    if (f->size == 0)
        return "size 0 in the symbol table";
    if (f->flags & LG_FN_SHARED_SECTION)
        return "shares its input section with other functions (build with -ffunction-sections)";
    if (f->flags & LG_FN_SECTION_UNKNOWN)
        return "defined in none of the object files given (startup code or a library): its "
               "input section is unknown";
    return "";
}
