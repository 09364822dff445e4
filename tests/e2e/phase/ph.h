/* ph.h - the program of tests/e2e/phase.sh: a few functions, one of them large, to be phased. */
#ifndef PH_H
#define PH_H

unsigned ph_small(unsigned x);
unsigned ph_big(unsigned x);
unsigned ph_tail(unsigned x);
unsigned ph_run(unsigned n);

#endif
