/* testutil.h - helpers shared by the cmocka unit tests. Include after <cmocka.h>. */
#ifndef LG_TESTUTIL_H
#define LG_TESTUTIL_H

#include "diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes size bytes to a new file under the test scratch directory and returns its path (static
 * storage, overwritten by the next call). Fails the test on I/O errors. */
const char *lg_test_write_file(const char *name, const void *data, size_t size);

/* Reads a whole file; *size receives its length. The caller frees the result. */
uint8_t *lg_test_read_file(const char *path, size_t *size);

/* True when some entry of d at severity sev has where+": "+message containing needle. */
bool lg_test_diag_has(const lg_diag_t *d, lg_severity_t sev, const char *needle);

/* Prints every entry of d (for failing tests). */
void lg_test_diag_dump(const lg_diag_t *d);

/* Runs a shell command; returns its exit status (-1 if it could not run). */
int lg_test_run(const char *command);

/* A fixed pseudo-random sequence for generated test programs (xorshift64*): the same seed
 * gives the same numbers on every run. */
void lg_test_seed(uint64_t seed);
uint64_t lg_test_rng(void);

/* True when a program is on PATH. */
bool lg_test_have(const char *program);

#endif
