/* emit_callgraph.h - the call graph as lld's --call-graph-ordering-file: "caller callee weight",
 * one edge per line, sorted by weight (descending), then caller, then callee (byte order).
 * Self-recursive edges are included. Names holding white space cannot be written in this format
 * (lld splits lines on spaces): such edges are left out with a warning. */
#ifndef LG_EMIT_CALLGRAPH_H
#define LG_EMIT_CALLGRAPH_H

#include "bind.h"
#include "diag.h"
#include "profile.h"
#include "program.h"

#include <stdio.h>

/* From profiles alone, by profiled name: repeated name pairs across profiles are summed. */
lg_err_t lg_emit_callgraph_profiles(const lg_bind_input_t *inputs, size_t ninputs, FILE *out,
                                    lg_diag_t *d);

/* From a bound program, by ELF symbol name. */
lg_err_t lg_emit_callgraph_program(const lg_program_t *prog, FILE *out, lg_diag_t *d);

#endif
