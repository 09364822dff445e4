/* walk.h - a random walk over a function's executed instructions, from per-instruction costs and
 * taken jumps: the order in which a function's lines run, which a function-level profile lacks.
 *
 * With per-instruction costs and the taken jumps between instructions (callgrind --dump-instr=yes
 * --collect-jumps=yes, bound as lg_program_t.hotspots and hotjumps), a function's control flow is
 * a weighted graph over its executed instructions (nodes):
 *   jump      a taken jump, weighted by how often it was taken
 *   fall      to the next executed instruction: what is left of the instruction's count after
 *             its jumps, at most what the next instruction's count leaves after the jumps into
 *             it (flow conservation; a call's return lands here too)
 *   exit      what is left after both (a return, or a jump out of the function)
 *   entry     an instruction's count not explained by jumps and falls into it
 * A walk starts at an entry drawn by weight, moves along jumps and falls drawn by weight, and
 * starts again at an entry after every exit. It is a first-order Markov chain: loops repeat a
 * geometric number of times and paths that run together in the profile run together in the walk,
 * which is what decides which of the function's lines evict each other.
 *
 * phase.c walks a large function to choose where in the cache line it starts. (Walking large
 * functions inside the miss estimate instead of sweeping them was measured and not kept:
 * docs/dev/experiments/2026-11-26-walking-large-functions-in-the-estimate.md.) The random numbers
 * come from a
 * caller-owned state, so the same seed gives the same walk on every run and machine.
 */
#ifndef LG_WALK_H
#define LG_WALK_H

#include "program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Marks "no node": the walk left the function. */
#define LG_WALK_OUT SIZE_MAX

/* One executed instruction. */
typedef struct lg_walk_node {
    uint64_t offset;    /* from the function's start */
    double fall, exit;  /* weights of falling through to the next node and of leaving */
    double jumps;       /* summed weight of its taken jumps */
    double total;       /* fall + exit + jumps */
    size_t first, njmp; /* its jumps: target[first .. first + njmp) */
} lg_walk_node_t;

/* The graph of one function: nodes by offset, jump targets and weights, entries cumulated. */
typedef struct lg_walk {
    lg_walk_node_t *nodes;
    size_t n;
    uint32_t *target;  /* node index of each jump, grouped by source node */
    double *weight;    /* its weight */
    double *entry_cum; /* cumulative entry weights, entry_cum[n - 1] the total */
} lg_walk_t;

/* Builds w from one function's hotspots [hs, hs + nh) and hotjumps [js, js + nj), both sorted by
 * offset (nh > 0). Jumps whose ends are not executed instructions are ignored. false when out of
 * memory (w then zeroed). O(nh + nj log nh). */
bool lg_walk_build(lg_walk_t *w, const lg_hotspot_t *hs, size_t nh, const lg_hotjump_t *js,
                   size_t nj);
/* Frees w; accepts a zeroed struct. */
void lg_walk_free(lg_walk_t *w);

/* A state for the random numbers of a walk, from any seed. */
uint64_t lg_walk_seed(uint64_t seed);
/* An entry node, drawn by entry weight. */
size_t lg_walk_entry(const lg_walk_t *w, uint64_t *rng);
/* The node after cur, or LG_WALK_OUT when the walk leaves the function there. */
size_t lg_walk_next(const lg_walk_t *w, size_t cur, uint64_t *rng);

#endif
