/* bind.h - match profiled function names to ELF function symbols and build the program model.
 *
 * The program's functions come from the ELF inputs (elfsym.h):
 *   - a linked ELF gives addresses (the current order) and sizes; without object files each
 *     function's input section is inferred as ".text.<symbol>" and the linker-script writers
 *     match every GCC prefix variant of it (.text.hot., .text.unlikely., .text.startup., ...)
 *   - object files give the exact input section, its alignment, the object file, and whether
 *     functions share a section (built without -ffunction-sections: cannot move alone)
 *   - both: functions are taken from the linked ELF and matched to their object symbol by name
 *     (and source file for same-named statics)
 *
 * A profiled name binds, in this order, to a function whose symbol is:
 *   1. the name itself; 2. the profile's linker label; 3. the name with a leading '_' removed or
 *   added (targets with a user-label prefix); 4. the only function with the same name once clone
 *   suffixes (.constprop.N, .isra.N, .part.N, .lto_priv.N, .cold) are ignored on both sides.
 * When several functions share the symbol name (statics), the profile's qualified name or its
 * address range picks one; if neither does, the name stays unbound as ambiguous.
 */
#ifndef LG_BIND_H
#define LG_BIND_H

#include "diag.h"
#include "elfsym.h"
#include "profile.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* One profile and the factor its counts are multiplied by when profiles are merged. */
typedef struct lg_bind_input {
    const lg_profile_t *profile;
    double scale; /* 1.0 = counts as read */
} lg_bind_input_t;

/* A profile's size for normalization: the sum of its functions' hits, or, when it has none, the
 * sum of its call weights. 0 for an empty profile. */
uint64_t lg_profile_volume(const lg_profile_t *p);

/* Normalizes merged profiles so that a long run does not drown a short one: each input's scale
 * (its user weight, 1.0 by default) is multiplied by V_max / V_k, V being lg_profile_volume and
 * V_max the largest volume among the inputs. After this, profile k contributes weight_k times
 * as much as the largest profile would at weight 1. Empty profiles keep their scale. */
void lg_bind_normalize(lg_bind_input_t *inputs, size_t ninputs);

/* Builds out (initialised by the caller with lg_program_init) from the ELF symbols and zero or
 * more profiles. Warnings and notes about unbound names go to d; errors only for memory or
 * when the ELF inputs hold no function at all. On error out is left empty. */
lg_err_t lg_bind(const lg_bind_input_t *inputs, size_t ninputs, const lg_elfsyms_t *elf,
                 lg_program_t *out, lg_diag_t *d);

/* The length of name without clone suffixes (".constprop.3", ".isra.0", ".part.1",
 * ".lto_priv.0", ".cold", in any combination at the end). */
size_t lg_clone_base_len(const char *name);

/* Finds a program function by symbol name: the first index, or -1. O(n): for tools and tests. */
int64_t lg_program_find(const lg_program_t *p, const char *symbol);

#endif
