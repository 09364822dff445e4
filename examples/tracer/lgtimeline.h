/* lgtimeline.h - the tracer's optional timeline output: every call and return as winIDEA
 * profiler-export events (a Text1 main file naming the functions, and a binary timeline .BIN
 * next to it, layout version 1.1), which lorgen reads like a hardware trace export.
 *
 * This is lorgen's own writer of that documented layout (docs/loaders/winidea.md), made so that
 * timelines of real programs exist for tests and benchmarks; it is not a winIDEA file. */
#ifndef LGTIMELINE_H
#define LGTIMELINE_H

#include <stdbool.h>
#include <stdint.h>

/* Event types of the binary timeline (winIDEA's codes). */
enum { LGTL_EXIT = 0, LGTL_SUSPEND = 1, LGTL_RESUME = 2, LGTL_ENTRY = 3 };

/* Starts writing main_path + ".BIN" (through a temporary name until lgtl_close). False, with a
 * message on stderr, when it cannot. */
bool lgtl_open(const char *main_path);

/* One event of function fn (its run-time entry address) at time t_ns. */
void lgtl_event(uintptr_t fn, unsigned type, uint64_t t_ns);

/* The name and source file (for static functions, else NULL) of run-time address fn; the name
 * must not be NULL. */
typedef void (*lgtl_name_fn)(void *ctx, uintptr_t fn, const char **name, const char **file);

/* Flushes the timeline and writes the Text1 main file naming every function seen. False, with a
 * message on stderr, when something could not be written (nothing is left under the final
 * names then). */
bool lgtl_close(lgtl_name_fn name_of, void *ctx);

#endif
