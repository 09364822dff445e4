/* program.h - the program as the optimizer sees it: movable functions with sizes, sections and
 * hotness, and the weighted calls between them. Built by binding profiles to ELF symbols
 * (bind.h); read by the optimizer and the writers.
 *
 * Definitions:
 *   function   one ELF function symbol that the linker can place: it has a size and an input
 *              section of its own (built with -ffunction-sections)
 *   arc        caller -> callee with the summed call weight of every profile (self arcs kept)
 *   unbound    a profiled function lorgen could not place, with the reason
 *   input order  the order the functions have now (address order in the linked ELF, else the
 *              order of the objects and their symbol tables); never-executed functions keep it
 */
#ifndef LG_PROGRAM_H
#define LG_PROGRAM_H

#include "arcs.h"
#include "diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Function flags. */
#define LG_FN_SECTION_INFERRED 0x1u /* section name guessed as ".text.<symbol>" (no objects given) */
#define LG_FN_SHARED_SECTION 0x2u   /* other functions share its input section: cannot move alone */
#define LG_FN_LOCAL 0x4u            /* a static (STB_LOCAL) function */
#define LG_FN_AMBIGUOUS_NAME 0x8u   /* several functions have its symbol name */
#define LG_FN_SECTION_UNKNOWN 0x10u /* object files were given, but none defines it (crt, libc):
                                       its input section is unknown, so it cannot be moved */
#define LG_FN_REFS_KNOWN 0x20u     /* every function of its family is alone in its object's
                                       section, whose relocations were all read: lg_program_t.refs
                                       lists every family its family refers to */
#define LG_FN_ADDRESS_TAKEN 0x40u  /* an object's data or code takes the address of a function of
                                       its family (a function pointer table, a callback): it may be
                                       called from code that does not name it */
#define LG_FN_WEAK 0x100u         /* a weak (STB_WEAK) definition, such as a COMDAT copy of a
                                       header's inline function: any translation unit may have
                                       inlined it (calls.h) */
#define LG_FN_SECTION_NAME_SHARED 0x200u /* another object file given has an input section of
                                       the same name (glibc's .text.avx, .text.sse4.2): a
                                       pattern must name its object, or it takes theirs too */
#define LG_FN_GROUP 0x400u        /* optimizer/groups.h: a unit that stands for a fixed group,
                                       the functions of one input section */
#define LG_FN_EXCLUDED 0x800u     /* taken out by --exclude or --include (select.h): it keeps
                                       its input order */
#define LG_FN_UNCACHED 0x1000u    /* runs from a fast region (--fast-region: TCM, scratchpad),
                                       which the instruction cache does not serve: the estimates
                                       leave its fetches out, before and after alike */
#define LG_FN_PHASED 0x80u        /* its start was chosen inside the cache line (lg_fn_t.lead,
                                       optimizer/phase.h): the linker script pads to the first
                                       address lead bytes past a line (lg_start_after) */

typedef struct lg_fn {
    char *symbol;       /* ELF symbol name */
    char *section;      /* input section name (".text.hot.foo"); never NULL */
    char *object;       /* object file (or "lib.a(member.o)") it came from; NULL if unknown */
    char *source_file;  /* STT_FILE name for statics; NULL if unknown */
    uint64_t address;   /* address in the linked ELF; UINT64_MAX if only objects were read */
    uint64_t size;      /* bytes */
    uint64_t section_bytes; /* bytes of its input section in its object file (sh_size): what the
                               linker copies before any relaxation shortens it (RISC-V calls
                               within reach); 0 when no object file tells */
    uint64_t align;     /* section alignment in bytes; 1 if unknown. LG_FN_PHASED: the line size */
    uint64_t lead;      /* LG_FN_PHASED: its phase, the bytes from a line's start to its code
                           (lg_start_after places it); 0 otherwise */
    uint64_t hits;      /* summed over profiles (after any per-profile scaling) */
    uint64_t counter1_self, counter2_self; /* summed self counters */
    uint32_t input_order; /* rank in the input order (0 = first) */
    uint32_t flags;       /* LG_FN_* */
    uint32_t family;      /* its clone family: the first function of its object with its name
                             less clone suffixes (foo, foo.part.0, foo.isra.0, foo.cold ...);
                             references (lg_program_t.refs) are kept between families */
} lg_fn_t;

/* caller and callee index lg_program_t.fns. */

/* Cost at one offset inside a function: where inside it the time goes, from profiles with
 * per-position costs (callgrind with instruction positions). Lets placement see the hot lines
 * of a function larger than the cache instead of spreading its heat evenly. */
typedef struct lg_hotspot {
    uint32_t fn;     /* index into lg_program_t.fns */
    uint64_t offset; /* bytes from the function's start; < its size */
    uint64_t cost;   /* summed over profiles (after per-profile scaling) */
} lg_hotspot_t;

/* A taken jump inside a function (lg_pjump_t bound like the hotspots): offsets from its start. */
typedef struct lg_hotjump {
    uint32_t fn;    /* index into lg_program_t.fns */
    uint64_t from;  /* offset of the jumping instruction; < the function's size */
    uint64_t to;    /* offset it jumped to; < the function's size */
    uint64_t count; /* summed over profiles (after per-profile scaling) */
} lg_hotjump_t;

typedef struct lg_unbound {
    char *name;   /* profiled name */
    uint64_t hits;
    char *reason; /* one clause: "no function symbol of that name in the ELF inputs" */
} lg_unbound_t;

typedef struct lg_alias {
    char *name;
    uint32_t fn; /* index into lg_program_t.fns */
} lg_alias_t;

typedef struct lg_program {
    lg_fn_t *fns; /* every function of the ELF inputs, in input order */
    size_t nfns;
    lg_arc_t *arcs; /* sorted by (caller, callee), unique */
    size_t narcs;
    /* Calls in the objects' code, between clone families (lg_fn_t.family): caller -> callee
     * when a section of the caller's family has a relocation calling or jumping to a function
     * of the callee's; weight 0, or > 0 when some of them could be taken addresses (a machine
     * whose branches lorgen cannot tell apart). The calls of a section several functions
     * share are the whole section's, from its first function's family (weight 0; that
     * family is no LG_FN_REFS_KNOWN one). Sorted by (caller, callee), unique; empty without
     * objects. Taken addresses are LG_FN_ADDRESS_TAKEN instead. */
    lg_arc_t *refs;
    size_t nrefs;
    lg_hotspot_t *hotspots; /* sorted by (fn, offset), unique; empty without positions */
    size_t nhotspots;
    lg_hotjump_t *hotjumps; /* sorted by (fn, from, to), unique; empty without jumps */
    size_t nhotjumps;
    /* Temporal proximity from timelines: pairs (a < b) that ran close together in
     * time, summed over profiles; sorted, unique; empty without a timeline (or when the
     * loaders were told to skip them). */
    lg_pair_t *proximity;
    size_t nproximity;
    lg_unbound_t *unbound; /* profiled functions that could not be placed, by hits descending */
    size_t nunbound;
    /* Every object file given (archive members as "lib.a(member.o)"), as fns[].object names
     * them, in input order: also the ones no function was traced to (statics whose linked
     * copies no source file name tells apart). Empty without objects. */
    char **objects;
    size_t nobjects;
    /* The other names of functions: symbols at the same place as fns[fn].symbol (an alias,
     * the defining name of a versioned symbol), in input order. */
    lg_alias_t *aliases;
    size_t naliases;
    bool has_call_edges;      /* at least one profile had call information */
    bool sections_inferred;   /* no object files were read: section names are guesses */
    size_t nprofiled;         /* profiled functions bound to fns */
    /* The profiles' hits and self cost (counter 1), scaled, over every profiled function, bound
     * or not: what fns[].hits and .counter1_self would sum to if all the code that ran were
     * placed (binding leaves out what did not bind, and what this build inlined). */
    uint64_t profile_hits, profile_cost;
    /* A linked input needs shared libraries (DT_NEEDED): their code runs at addresses the
     * loader picks, outside anything lorgen models or places. */
    bool shared_libraries;
    /* e_machine of the ELF inputs (EM_ARM, EM_RISCV, ...); 0 without ELF inputs. The reports
     * say what a call between far apart regions needs on it (a veneer on Arm). */
    uint16_t machine;
    /* EM_ARM: Tag_CPU_arch of the ELF inputs' build attributes (the linked file's, else the
     * first object's that has one); 0 unknown. Thumb-1-only cores get longer veneers. */
    uint8_t arm_cpu_arch;
} lg_program_t;

/* True when the linker can place the function on its own: it has bytes and a known input
 * section that holds nothing else. */
static inline bool lg_fn_movable(const lg_fn_t *f)
{
    return f->size > 0 &&
           !(f->flags & (LG_FN_SHARED_SECTION | LG_FN_SECTION_UNKNOWN | LG_FN_EXCLUDED));
}

/* True when f belongs to a fixed group (optimizer/groups.h): its input section holds other
 * functions, and that section and its object file are both known (else the section cannot be
 * named, and f stays out of the order). */
static inline bool lg_fn_in_group(const lg_fn_t *f)
{
    return (f->flags & LG_FN_SHARED_SECTION) && f->object != NULL && f->section != NULL &&
           !(f->flags & (LG_FN_SECTION_UNKNOWN | LG_FN_SECTION_INFERRED));
}

/* The most bytes a function takes from a start aligned to its alignment: its code, and before
 * it at most lead bytes to reach a phased function's phase. Sizes for packing; where exact
 * offsets count, lg_start_after places the code. */
static inline uint64_t lg_fn_span(const lg_fn_t *f)
{
    return f->lead + f->size;
}

/* Why a function is not movable, as a clause for reports; "" when it is movable. */
const char *lg_fn_unmovable_reason(const lg_fn_t *f);

/* The robustness check's noise (lorgen --perturb): each weight is multiplied by a factor drawn
 * from [1 - LG_PERTURB_PART, 1 + LG_PERTURB_PART]. 5% is about how much the self times of two
 * traced runs of one workload differ (docs/dev/experiments/2026-11-25-one-profile-many-layouts.md).
 * */
#define LG_PERTURB_PART 0.05

/* Multiplies every function's hits and self counters, and every arc's weight, by its own
 * factor in [1 - part, 1 + part], drawn from seed and the function (or the arc's ends), so that
 * one seed gives one program whatever the order of the work. Saturates at UINT64_MAX. O(V + A). */
void lg_program_perturb(lg_program_t *p, uint64_t seed, double part);

/* Sorts p->hotspots by (fn, offset) and p->hotjumps by (fn, from, to), and sums repeated ones
 * (saturating), as lg_program_t keeps them. O(n log n). */
void lg_program_merge_positions(lg_program_t *p);

void lg_program_init(lg_program_t *p);
/* Frees everything; accepts a zeroed struct. */
void lg_program_destroy(lg_program_t *p);

#endif
