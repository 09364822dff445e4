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
    free(p->unbound);
    memset(p, 0, sizeof *p);
}
