/* progbuild.c - programs built by hand for the optimizer tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "progbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t fn_index(const fn_spec_t *fns, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fns[i].name, name) == 0)
            return (uint32_t)i;
    fail_msg("no function named %s in the test program", name);
    return 0;
}

/* Fills p with the functions (in input order) and the arcs (in the order given); strings are
 * malloc'd so that lg_program_destroy frees them. */
void make_program(lg_program_t *p, const fn_spec_t *fns, size_t n, const arc_spec_t *arcs,
                  size_t narcs)
{
    lg_program_init(p);
    p->fns = calloc(n ? n : 1, sizeof *p->fns);
    assert_non_null(p->fns);
    p->nfns = n;
    for (size_t i = 0; i < n; i++) {
        lg_fn_t *f = &p->fns[i];
        char section[256];
        snprintf(section, sizeof section, ".text.%s", fns[i].name);
        f->symbol = strdup(fns[i].name);
        f->section = strdup(section);
        assert_non_null(f->symbol);
        assert_non_null(f->section);
        f->address = UINT64_MAX;
        f->size = fns[i].size;
        f->align = fns[i].align;
        f->hits = fns[i].hits;
        f->flags = fns[i].flags;
        f->input_order = (uint32_t)i;
    }
    p->arcs = calloc(narcs ? narcs : 1, sizeof *p->arcs);
    assert_non_null(p->arcs);
    p->narcs = narcs;
    for (size_t i = 0; i < narcs; i++)
        p->arcs[i] = (lg_arc_t){fn_index(fns, n, arcs[i].caller), fn_index(fns, n, arcs[i].callee),
                                arcs[i].weight};
    p->has_call_edges = narcs > 0;
}

void make_numbered_program(lg_program_t *p, size_t n, uint64_t size)
{
    lg_program_init(p);
    p->fns = calloc(n ? n : 1, sizeof *p->fns);
    assert_non_null(p->fns);
    p->nfns = n;
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%zu", i);
        p->fns[i].symbol = strdup(name);
        snprintf(name, sizeof name, ".text.f%zu", i);
        p->fns[i].section = strdup(name);
        assert_non_null(p->fns[i].symbol);
        assert_non_null(p->fns[i].section);
        p->fns[i].size = size;
        p->fns[i].align = 1;
        p->fns[i].address = UINT64_MAX;
        p->fns[i].input_order = (uint32_t)i;
        p->fns[i].family = (uint32_t)i;
    }
}
