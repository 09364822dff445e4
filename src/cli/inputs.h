/* inputs.h - the input files of a command line, loaded: profiles in their formats (registry.h),
 * ELF files and archives (elfsym.h), and the .LOR files script, check and eval read.
 *
 * Inputs are told apart by content: ELF files and ar archives are program inputs, anything else
 * must be a profile in a known format (or the one --format names for it). Errors are shown as
 * they are found; the functions return 0 or the exit status (messages.h).
 */
#ifndef LG_CLI_INPUTS_H
#define LG_CLI_INPUTS_H

#include "bind.h"
#include "diag.h"
#include "elfsym.h"
#include "options.h"
#include "profile.h"
#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lg_cli_inputs {
    lg_profile_t *profiles;
    double *profile_weights; /* --weight of each profile */
    size_t nprofiles;
    lg_elfsyms_t elf; /* the symbols of every ELF input */
    size_t nelf;
    const char **elf_paths; /* nelf paths, in the order read: sorted by path (strcmp) */
} lg_cli_inputs_t;

/* Loads the files of args (nargs of them) into in, which lg_cli_inputs_destroy frees whatever
 * the result; load holds the loaders' options and the progress line (progress_line.h). Every
 * input is probed first; then the ELF inputs are read in the order of their paths (so their
 * command-line order changes no output), then the profiles in command-line order.
 * profiles_allowed false: only ELF inputs, a profile is an error. Shows the messages of d.
 * Returns 0 or LG_EXIT_BAD_INPUT. */
int lg_cli_load_inputs(const lg_cli_input_t *args, size_t nargs, const lg_load_options_t *load,
                       bool profiles_allowed, lg_cli_inputs_t *in, lg_diag_t *d);

/* lg_cli_load_inputs for the commands that read profiles: o's inputs, which must hold a profile
 * and, unless no_elf is NULL, an ELF file; when one is missing, the error no_profile or no_elf
 * is shown and the result is LG_EXIT_USAGE. */
int lg_cli_load_profiled(const lg_cli_options_t *o, const char *no_profile, const char *no_elf,
                         lg_cli_inputs_t *in, lg_diag_t *d);

/* Frees what lg_cli_load_inputs loaded; accepts a zeroed struct. */
void lg_cli_inputs_destroy(lg_cli_inputs_t *in);

/* The profiles of in with their --weight, scaled to one volume when normalize and there are
 * several (lg_bind_normalize), for lg_bind. NULL when out of memory; the caller frees it. */
lg_bind_input_t *lg_cli_bind_inputs(const lg_cli_inputs_t *in, bool normalize);

/* Warns, when lg_bind left profiled functions out of prog, how many and the hottest of them. */
void lg_cli_warn_unbound(const lg_program_t *prog);

/* The .LOR file at path in memory (lor_file.h; its errors shown at once), or NULL; *len its
 * length. The caller frees it. */
char *lg_cli_read_lor(const char *path, size_t *len);

/* What the first bytes of an unknown input are, for the error: "7f 45 4c 46 ..." (up to eight
 * bytes of head's n), or "an empty file". out holds size bytes. */
void lg_cli_describe_head(const uint8_t *head, size_t n, char *out, size_t size);

#endif
