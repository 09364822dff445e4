/* progbuild.h - programs built by hand for the optimizer tests. Include after <cmocka.h>. */
#ifndef LG_PROGBUILD_H
#define LG_PROGBUILD_H

#include "program.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fn_spec {
    const char *name;
    uint64_t size;  /* bytes */
    uint64_t align; /* bytes; 0 or 1 = none */
    uint64_t hits;
    uint32_t flags; /* LG_FN_* */
} fn_spec_t;

typedef struct arc_spec {
    const char *caller;
    const char *callee;
    uint64_t weight;
} arc_spec_t;

/* The index of the function called name; fails the test when there is none. */
uint32_t fn_index(const fn_spec_t *fns, size_t n, const char *name);

/* Fills p with the functions (input order = index, section ".text.NAME", no address) and the
 * arcs in the order given; strings are malloc'd so that lg_program_destroy frees them. */
void make_program(lg_program_t *p, const fn_spec_t *fns, size_t n, const arc_spec_t *arcs,
                  size_t narcs);

/* Fills p with n functions f0, f1, ... of `size` bytes each (section ".text.fN", input order =
 * index, no hits, no address) and no arcs; strings are malloc'd like make_program's. */
void make_numbered_program(lg_program_t *p, size_t n, uint64_t size);

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define MAKE(p, fns, arcs) make_program((p), (fns), NELEMS(fns), (arcs), NELEMS(arcs))
#define MAKE_NO_ARCS(p, fns) make_program((p), (fns), NELEMS(fns), NULL, 0)

#endif
