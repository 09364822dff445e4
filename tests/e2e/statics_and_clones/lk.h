/* lk.h - a small program for tests/e2e/linkers.sh: same-named statics in two files, functions
 * GCC clones at -O2 (.constprop, .isra, .part), hot and cold attributes that change the section
 * prefix, and (on the host) C++ functions with mangled names. */
#ifndef LK_H
#define LK_H

#define LK_NOINLINE __attribute__((noinline))

typedef unsigned int u32;

#ifdef __cplusplus
extern "C" {
#endif

struct lk_sample {
    u32 value;
    u32 weight;
    u32 unused[6];
};

u32 lk_run(u32 iterations);
/* ring.c */
u32 ring_push(u32 v);
u32 ring_sum(void);
/* filt.c */
u32 filt_step(u32 v);
u32 filt_hot(u32 v);
void filt_panic(u32 why);
/* shapes.cc on the host, shapes_c.c on bare metal */
u32 shapes_work(u32 v);
#ifdef __cplusplus
}
#endif
#endif
