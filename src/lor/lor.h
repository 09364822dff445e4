/* lor.h - the .LOR link-order file: build it from a layout (lor.c), write it (lor_write.c), read
 * it back (lor_read.c), check it against the program and make a layout of it (lor_check.c).
 *
 * The .LOR is the order people review and edit; every linker output is written from it, whether
 * it was just computed or read back from a file edited by hand. docs/lor-format.md is the
 * reference for the text format. In short:
 *
 *   # comment
 *   lorgen-lor 1
 *   cache size=8192 line=32 ways=1
 *   algorithm cliques
 *   input profile=trace.prf format=prf
 *   input elf=app.elf
 *   section align=8192
 *   clique 1 bytes=1184 hits=20010 functions=2
 *     fn GetLastNode size=64 hits=10000 section=.text.GetLastNode object=list.o
 *     fn BuildList size=96 hits=10 section=.text.BuildList inferred
 *   clique 2 bytes=2064 hits=500 functions=1 oversized
 *     fn match size=2048 hits=500 phase=16 section=.text.match object=match.o
 *   cold 123
 */
#ifndef LG_LOR_H
#define LG_LOR_H

#include "diag.h"
#include "layout.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LG_LOR_VERSION 1u
/* Longest line the reader accepts, in bytes. It bounds a line, not a name: a word longer than
 * LG_LOR_WRAP_BYTES (symbol names of heavily templated C++ run to megabytes) is written in quotes
 * over several lines, each but the last ending in a backslash, so whatever lorgen writes it
 * reads back. */
#define LG_LOR_MAX_LINE (64u * 1024u)
/* Bytes of one quoted word the writer puts on a line before it continues the word on the next:
 * at most four such pieces share a line (fn SYMBOL section= object= source=), well under
 * LG_LOR_MAX_LINE. */
#define LG_LOR_WRAP_BYTES 4096u
/* Largest pad= the reader takes, in bytes. Placement pads a clique by less than a cache way to
 * move it to a cache offset, and no cache lorgen models is larger than LG_CACHE_SIZE_MAX; far
 * larger pads only make a linker fail (2^32 bytes past the code) or wrap the address. */
#define LG_LOR_MAX_PAD ((uint64_t)LG_CACHE_SIZE_MAX)

typedef struct lg_lor_fn {
    char *symbol;  /* ELF symbol name */
    char *section; /* input section; NULL when the file does not say (resolved by lg_lor_check) */
    char *object;  /* object file; NULL when unknown */
    char *source;  /* source file of a static (the ELF's STT_FILE); NULL when unknown */
    uint64_t size; /* bytes; 0 when the file does not say */
    uint64_t section_bytes; /* its input section's bytes (lg_fn_t.section_bytes); not written to
                               the file, set from the program by lg_lor_check */
    uint64_t hits;
    uint64_t align; /* bytes, 1 when unknown; not written to the file. LG_FN_PHASED: the line
                       size, or the section's alignment when larger (set by lg_lor_check) */
    uint64_t lead;  /* LG_FN_PHASED (phase=): bytes from a line's start to its code, below the
                       line size; 0 otherwise */
    uint32_t flags; /* LG_FN_* from program.h */
    uint32_t clique; /* index into lg_lor_t.cliques */
    size_t line;    /* line in the .LOR file it was read from; 0 when computed */
    char *ld_object; /* GNU ld file pattern naming object among the program's objects, set by
                        lg_linkname_resolve; NULL before (or when none can name it) */
} lg_lor_fn_t;

typedef struct lg_lor_clique {
    size_t first; /* index of its first function in lg_lor_t.fns */
    size_t count;
    uint64_t bytes; /* as stated (computed: laid out with alignment padding) */
    uint64_t hits;
    uint32_t flags; /* LG_CLIQUE_* */
    uint64_t pad_before; /* bytes of padding before the clique (cache-aware placement) */
    size_t line;
    uint64_t stated_count; /* functions= as read; LG_LOR_NOT_STATED when absent or computed */
} lg_lor_clique_t;

/* A clique's functions= that the file does not give. */
#define LG_LOR_NOT_STATED UINT64_MAX

typedef struct lg_lor_input {
    char *kind;   /* "profile" or "elf" */
    char *path;
    char *format; /* profile format, or NULL */
} lg_lor_input_t;

/* Why the safeguard kept the input order (algorithm LG_ALGORITHM_KEPT), for the comment the
 * writer puts above `cold`. Not part of the format: a file read back is LG_LOR_KEPT_UNSAID. */
typedef enum lg_lor_kept {
    LG_LOR_KEPT_UNSAID = 0,   /* not known, or the order was not kept */
    LG_LOR_KEPT_MISSES_MORE,  /* the new layout was predicted to miss more */
    LG_LOR_KEPT_NO_CONFLICTS, /* an associative cache, and no conflict misses predicted */
} lg_lor_kept_t;

/* A fast memory region (--fast-region): the output section the user's script gives it, and its
 * members, which no clique lists. In the file:
 *   region .itcm_text size=16384 budget=15564 bytes=15480 functions=2 [held=120] [stubs=40]
 *     pinned isr_fast
 *     fn filter_median size=212 hits=600 section=.text.filter_median object=filter.o
 * Its pinned and fn lines follow it up to the next region or clique. */
typedef struct lg_lor_region {
    char *name;
    uint64_t size;   /* bytes of the region */
    uint64_t budget; /* bytes the choice could take (size less the headroom) */
    uint64_t bytes;  /* bytes the members take, alignment included */
    uint64_t held;   /* bytes the link puts in it besides the members (regionheld.h): not
                        lorgen's to move, and part of its size all the same */
    uint64_t stubs;  /* bytes of the stubs the linker adds in it for the members' far calls
                        (regionstubs.h, Arm veneers) */
    lg_lor_fn_t *fns; /* its members, in the fragment's order */
    size_t nfns;
    char **pinned; /* the functions the link keeps in it besides (regionheld.h), by name: no
                      intruders to lorgen check */
    size_t npinned;
    size_t line; /* in the file it was read from; 0 when computed */
} lg_lor_region_t;

typedef struct lg_lor {
    unsigned version;
    lg_geometry_t geometry;
    char *algorithm;
    lg_lor_input_t *inputs;
    size_t ninputs;
    lg_lor_clique_t *cliques;
    size_t ncliques;
    lg_lor_fn_t *fns; /* all clique members, in link order */
    size_t nfns;
    uint64_t ncold; /* never-executed functions left in input order (informational) */
    uint64_t section_align; /* the ordered code starts at this alignment (bytes); 0: none */
    lg_lor_kept_t kept;     /* why the input order was kept, when algorithm says it was */
    lg_lor_region_t *regions; /* fast regions, in the order they were filled */
    size_t nregions;
} lg_lor_t;

void lg_lor_init(lg_lor_t *lor);
/* Frees everything; accepts a zeroed struct. */
void lg_lor_destroy(lg_lor_t *lor);

/* Adds an input line (kind "profile" or "elf"; format may be NULL). */
lg_err_t lg_lor_add_input(lg_lor_t *lor, const char *kind, const char *path, const char *format);

/* Fills lor (initialised, no cliques yet) from an optimizer result. */
lg_err_t lg_lor_from_layout(const lg_program_t *prog, const lg_layout_t *layout, lg_lor_t *lor);

/* Adds a region (name copied) whose members are prog's functions fns[0 .. n), in that order. */
lg_err_t lg_lor_add_region(lg_lor_t *lor, const lg_program_t *prog, const char *name,
                           uint64_t size, uint64_t budget, uint64_t bytes, const uint32_t *fns,
                           size_t n);

/* Builds the layout a checked .LOR describes (lg_lor_check first): its cliques with their
 * flags and padding, then every function it does not list in input order as cold. Fills out
 * (initialised by the caller). A function the .LOR phases (phase=) gets its phase in prog:
 * LG_FN_PHASED, its lead, and the alignment lg_lor_check gave it. Fails with LG_EINVAL when a
 * listed function is not in prog. */
lg_err_t lg_lor_to_layout(const lg_lor_t *lor, lg_program_t *prog, lg_layout_t *out, lg_diag_t *d);

/* Writes the text form. Returns LG_EIO if the stream reports an error. */
lg_err_t lg_lor_write(const lg_lor_t *lor, FILE *out);

/* Parses the text form; path names the input in diagnostics ("app.lor:12: ..."). LF, CRLF and
 * lone CR each end a line, and a leading UTF-8 byte-order mark is skipped. Unknown keys and
 * flags are warnings (forward compatibility); an unknown statement (`fnn`: a typo would drop a
 * function), a word after lorgen-lor V, algorithm NAME or cold N, an input line with a bare word,
 * two inputs or none, a missing or newer version line, a fn outside a clique, a function
 * listed twice (cliques and regions alike, lor_internal.h), a malformed number, an empty section=,
 * object= or source=, or a phase= not below the line size of the cache statement is an error
 * (LG_EFORMAT); a pad= above LG_LOR_MAX_PAD is LG_ELIMIT. On error lor is left empty. */
lg_err_t lg_lor_parse(const char *text, size_t len, const char *path, lg_lor_t *lor,
                      lg_diag_t *d);

/* Adds name to r's pinned functions. */
lg_err_t lg_lor_region_add_pinned(lg_lor_region_t *r, const char *name);

/* Checks a .LOR against the program it is applied to and completes it: every function must exist
 * (unknown names are errors) in the object and source file the .LOR names (another file, or an
 * object that is not among the object files given, is an error). object= is matched to the
 * objects given by lg_objpath_match (objpath.h), the closest first; two objects defining the
 * function that it names equally well are an error naming both. Each function then takes the
 * object's spelling as given, the one the linker sees. Sections, objects and
 * alignments are filled in from the program where the file omits them (a phased function is
 * aligned to the line, or to its section's alignment when larger; a phase= that is not a
 * multiple of its section's alignment, which the linker would round up, or one on a function
 * that cannot move alone (lg_fn_movable), which no padding reaches, is an error); sizes that
 * changed and cliques that no longer fit the cache are warnings; stated clique sizes are
 * recomputed, phases' leads included. Functions of the program that share their section with
 * others are warned about: they move with their whole section. A clique whose functions= is not
 * its number of fn lines is a warning; the first one that no longer starts at the cache offset
 * placement chose (section align=, pad=, bytes=) gets a note. */
lg_err_t lg_lor_check(lg_lor_t *lor, const lg_program_t *prog, const char *path, lg_diag_t *d);

/* Whether each region of lor still fits: its members' bytes (as lg_lor_check recomputed them),
 * what the link holds there besides (held=) and its stubs (stubs=) against its size. One that does not is an
 * error, before anything is linked, with the bytes over; one that fits its size but not its
 * budget (the headroom taken) is a warning. */
lg_err_t lg_lor_check_region_fit(const lg_lor_t *lor, const char *path, lg_diag_t *d);

#endif
