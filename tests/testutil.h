/* testutil.h - helpers shared by the cmocka unit tests. Include after <cmocka.h>. */
#ifndef LG_TESTUTIL_H
#define LG_TESTUTIL_H

#include "diag.h"
#include "profile.h"
#include "source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes size bytes to a new file under the test scratch directory and returns its path (static
 * storage, overwritten by the next call). Fails the test on I/O errors. */
const char *lg_test_write_file(const char *name, const void *data, size_t size);

/* Reads a whole file; *size receives its length. The caller frees the result. */
uint8_t *lg_test_read_file(const char *path, size_t *size);

/* A read stream over a private copy of some bytes (lg_test_stream_open). */
typedef struct lg_test_stream {
    FILE *f;
    char *copy;
} lg_test_stream_t;

/* Opens s->f over an exact-size heap copy of size bytes of data, so that AddressSanitizer catches
 * a reader that reads past the end; size 0 opens /dev/null. Returns s->f; fails the test when
 * it cannot. lg_test_stream_close closes it and frees the copy. */
FILE *lg_test_stream_open(lg_test_stream_t *s, const void *data, size_t size);
void lg_test_stream_close(lg_test_stream_t *s);

/* True when some entry of d at severity sev has where+": "+message containing needle. */
bool lg_test_diag_has(const lg_diag_t *d, lg_severity_t sev, const char *needle);

/* Prints every entry of d (for failing tests). */
void lg_test_diag_dump(const lg_diag_t *d);

/* What a loader test keeps of one load: the result, the profile and the diagnostics. */
typedef struct lg_test_loaded {
    lg_err_t err;
    lg_profile_t p;
    lg_diag_t d;
} lg_test_loaded_t;

/* The one way the tests load a profile: r gets a fresh profile and diagnostics, then the
 * result of reading the file at path with read (lg_load_file). options may be NULL. */
void lg_test_load_file(lg_test_loaded_t *r, lg_read_fn read, const char *path,
                       const lg_load_options_t *options);

/* The same for size bytes in memory, read as the file called name (diagnostics say
 * "name:LINE: ..."). The reader gets an exact-size heap copy, so that AddressSanitizer catches a
 * read past the end. */
void lg_test_load_bytes(lg_test_loaded_t *r, lg_read_fn read, const void *data, size_t size,
                        const char *name, const lg_load_options_t *options);

/* p holds nothing: what a failed load must leave (source.h), every list empty and unallocated
 * and every field the loader sets still unset. */
void lg_test_assert_profile_empty(const lg_profile_t *p);

/* Frees the profile and the diagnostics of a load. */
void lg_test_loaded_destroy(lg_test_loaded_t *r);

/* The load succeeded without any diagnostic; dumps them first when not. */
void lg_test_assert_loaded_clean(const lg_test_loaded_t *r);

/* The load failed with err and exactly one error, whose "where: message" equals want; prints
 * the expectation and the diagnostics first when not. What the failed load left in the profile
 * is for the caller to check. */
void lg_test_assert_one_error(const lg_test_loaded_t *r, lg_err_t err, const char *want);

/* A load returned got: it must be err, with exactly one error, whose "where: message" contains
 * needle; prints the expectation and the diagnostics first when not. */
void lg_test_assert_one_error_has(lg_err_t got, const lg_diag_t *d, lg_err_t err,
                                  const char *needle);

/* The function called name, found by lg_profile_find with qualifier qual; fails the test when
 * there is none. */
const lg_pfunc_t *lg_test_func(const lg_profile_t *p, const char *name, const char *qual);

/* The function called name (no qualifier) has these hits, gross time (counter1_total) and net
 * time (counter1_self); prints what it has first when not. */
void lg_test_assert_func_times(const lg_profile_t *p, const char *name, uint64_t hits,
                               uint64_t gross, uint64_t net);

/* The index of the function called name whose qualifier is exactly qual (NULL: none), or -1. */
int64_t lg_test_func_index(const lg_profile_t *p, const char *name, const char *qual);

/* The weight of the edge between the functions of indices from and to, or -1 when there is no
 * such edge; fails the test when either index is negative (a function that was not found). */
int64_t lg_test_edge_weight(const lg_profile_t *p, int64_t from, int64_t to);

/* The weight of the edge caller -> callee (functions without a qualifier, found by
 * lg_profile_find), or -1 when there is no such edge; fails the test when either is missing. */
int64_t lg_test_edge(const lg_profile_t *p, const char *caller, const char *callee);

/* The summed cost at position of function f, or -1 when none was recorded. */
int64_t lg_test_cost_at(const lg_profile_t *p, const lg_pfunc_t *f, uint64_t position);

/* Sends standard error to a scratch file until lg_test_stderr_end, which returns what was written
 * there (static storage, overwritten by the next capture). Captures do not nest. */
void lg_test_stderr_begin(void);
const char *lg_test_stderr_end(void);

/* Runs a shell command; returns its exit status (-1 if it could not run). */
int lg_test_run(const char *command);

/* A fixed pseudo-random sequence for generated test programs (xorshift64*): the same seed
 * gives the same numbers on every run. */
void lg_test_seed(uint64_t seed);
uint64_t lg_test_rng(void);

/* True when LORGEN_TEST_SMALL=1 is set (tests/memcheck.sh sets it: valgrind runs code 20 to 50
 * times slower). A test whose full size takes minutes there then runs a smaller input of the
 * same kinds, and prints `what` so that the log shows it; the full size runs in the normal and
 * the sanitizer builds. */
bool lg_test_small(const char *what);

/* True when a program is on PATH. */
bool lg_test_have(const char *program);

/* Loads n keys into a fresh map and returns the seconds it took, or a negative number once it
 * has taken longer than give_up seconds. */
typedef double (*lg_test_timed_load_fn)(const void *keys, size_t n, double give_up);

/* Asserts that loading the colliding keys `flood` takes at most max_ratio times as long as
 * loading the ordinary keys `plain` (each timed `repeats` times, the fastest kept: the machine
 * runs other work), and prints both times; `what` names the keys ("names", "keys"). */
void lg_test_assert_no_flooding(lg_test_timed_load_fn load, const void *plain, const void *flood,
                                size_t n, int repeats, double max_ratio, const char *what);

#endif
