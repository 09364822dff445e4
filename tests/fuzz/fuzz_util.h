/* fuzz_util.h - what every libFuzzer target in tests/fuzz/ shares: a private scratch directory
 * for loaders that read a path, and the contract checks run after each load.
 *
 * A crash, a sanitizer report or a leak is a finding; so is a broken contract (the checks below
 * abort with a message), because the CLI relies on it: a loader that fails leaves its profile
 * empty and says why in at least one error diagnostic; one that succeeds leaves no error behind
 * and only indices that are in range.
 */
#ifndef LG_FUZZ_UTIL_H
#define LG_FUZZ_UTIL_H

#include "diag.h"
#include "profile.h"
#include "source.h"

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry point each target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes size bytes to name inside this process's scratch directory (made on first use, removed
 * at exit) and returns the file's path, valid until the next call with the same name. Aborts
 * when the file cannot be written: a fuzzer that cannot write its input tests nothing. */
const char *lg_fz_write(const char *name, const uint8_t *data, size_t size);

/* Removes name from the scratch directory if it is there. */
void lg_fz_remove(const char *name);

/* Bytes of one winIDEA binary timeline record. */
#define LG_FZ_BIN_RECORD 24u

/* A fixed winIDEA v1.1 binary timeline: function handle 0 is entered, calls handle 1, which
 * returns, and returns itself (six records). *size receives its length in bytes. */
const uint8_t *lg_fz_small_bin(size_t *size);

/* A reader that loads a profile from the file at path, as the CLI calls it. */
typedef lg_read_fn lg_fz_path_loader_t;

/* One fuzz input for a reader of files: writes size bytes to name in the scratch directory,
 * loads that file into a fresh profile, checks the result (lg_fz_check_profile) and frees it. */
void lg_fz_load_file(const char *name, const uint8_t *data, size_t size, lg_fz_path_loader_t load);

/* As lg_fz_load_file, for a winIDEA export, which also loads the .BIN timeline next to it
 * (export.BIN). Inputs of odd size get a fixed, well-formed one (lg_fz_small_bin), so the fuzzed
 * mapping is exercised against a real timeline; even-sized inputs are read alone. */
void lg_fz_load_winidea_export(const char *name, const uint8_t *data, size_t size,
                               lg_fz_path_loader_t load);

/* Checks a loader's result against its contract (see above); aborts naming what broke. */
void lg_fz_check_profile(lg_err_t err, const lg_profile_t *p, const lg_diag_t *d);

/* Checks only the diagnostic half of the contract, for readers that fill no profile. */
void lg_fz_check_diag(lg_err_t err, const lg_diag_t *d);

#endif
