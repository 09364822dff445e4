/* lgtrace.c - a -finstrument-functions runtime that writes a CodeScape .prf trace profile.
 *
 * Link this file (built WITHOUT -finstrument-functions) and loaders/prf_write.c into a C program
 * whose own sources were built WITH -finstrument-functions. GCC then calls
 * __cyg_profile_func_enter/exit around every instrumented function; this runtime turns those
 * events into a calling-context tree (CCT) and, when the program exits, writes the tree as a
 * .prf TRACE profile (default "trace.prf", or $LGTRACE_OUT) that lorgen reads.
 *
 * Outline:
 *   1. First enter (on the first thread that gets here): reserve the node array, the hash table
 *      and the frame stack with one anonymous mmap each (touched lazily, so a small program uses
 *      little memory; no malloc while the program runs), and register the exit handler.
 *   2. Enter: close frames that longjmp left (see drop_unwound), find or add the child node
 *      (parent node, function address) in the hash table, count a hit, push a frame with the
 *      start time. Exit: pop the frame and add the elapsed time to its node.
 *   3. At exit: close the frames still open ("now" ends them), resolve function addresses with
 *      the symbol table of /proc/self/exe, derive the self counters from the tree, and write
 *      function records then the CCT depth-first (call record, children, return record) to a
 *      temporary file that is renamed over the output.
 *
 * Definitions:
 *   node      one call path: a function together with the chain of callers that led to it. The
 *             root node 0 stands for "not inside any instrumented function".
 *   hits      times the call path was entered.
 *   counter 1 elapsed time of the call path in nanoseconds (CLOCK_MONOTONIC), declared as 0x23
 *             "Elapsed time". total = entry to exit; self = total minus the children's totals.
 *   counter 2 calls made (kind 0x12, BSR/BSRF/JSR). self = calls the function made itself
 *             (its children's hits); total = self plus its children's totals. Only calls to
 *             instrumented functions are seen.
 *   ghost     a call that is not recorded because a limit was reached; its time stays in the
 *             caller's self time, and calls nested in it are ghosts too.
 *
 * Limits: single-threaded programs. Only the first thread that enters an instrumented function
 * is recorded; other threads are ignored. A forked child records but does not write the file.
 * Nothing is written if the program ends through _exit() or a fatal signal. Calls that longjmp
 * leaves are closed when the next call or return shows it; code that switches stacks
 * (swapcontext coroutines) is not supported. See README.md.
 *
 * Reference: GCC manual, "Program Instrumentation Options" (-finstrument-functions);
 * CodeScape ASE Mode Trace Profiler Guide, Appendix B (file layout) and its Counter Description
 * Table; System V ABI, "Symbol Table" (ELF symbols, STT_FILE).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */

#include "lgtimeline.h"
#include "prf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Every function here must stay out of the instrumentation, even if a build adds
 * -finstrument-functions to this file by mistake: an instrumented hook would call itself. */
#define LGT_NOINSTR __attribute__((no_instrument_function))

/* The hooks can run before thread-local storage exists (see lgt_early), and a stack protector
 * reads its canary from there: keep it out of them even where the compiler enables it by
 * default. */
#if defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define LGT_NO_SSP __attribute__((no_stack_protector))
#endif
#endif
#ifndef LGT_NO_SSP
#define LGT_NO_SSP
#endif

/* The timeline writer (lgtimeline.c) is optional: linked in, LGTRACE_TIMELINE works; left out,
 * these are NULL and the tracer writes the .prf only. */
#pragma weak lgtl_open
#pragma weak lgtl_event
#pragma weak lgtl_close

/* Most call-path nodes, the root included. Past it, calls on new paths become ghosts. */
#define LGT_MAX_NODES (1u << 20)
/* Hash slots for the (parent, function) -> node map: a power of two, load factor <= 0.5. */
#define LGT_HASH_BITS 21u
#define LGT_HASH_SLOTS (1u << LGT_HASH_BITS)
/* Most nested calls tracked at once (frames). Deeper calls become ghosts. */
#define LGT_MAX_DEPTH (1u << 16)
/* Hook events kept from before the runtime starts (see lgt_early); past it, such calls are
 * counted, not recorded. 32 bytes each on 64-bit. */
#define LGT_MAX_EARLY_EVENTS 4096u
/* Longest output path, bytes including the terminating NUL. */
#define LGT_PATH_MAX 4096u
#define LGT_DEFAULT_OUT "trace.prf"

/* .prf field values (CodeScape guide, Appendix B). */
#define LGT_PRF_VERSION 1u
#define LGT_DESC_FUNCTION 0x01u
#define LGT_COUNTER_ELAPSED 0x23u /* "Elapsed time": we store nanoseconds, not cycles */
#define LGT_COUNTER_CALLS 0x12u   /* "BSR/BSRF/JSR" */
#define LGT_NO_ID 0xFFFFFFFFu     /* overlay area, overlay, group: none */
#define LGT_NO_CACHE_LINE 0xFFFFu
/* Cache line of a function's first byte in the SH-4's 8 KiB instruction cache. */
#define LGT_CACHE_LINE_SHIFT 5u /* 32-byte lines */
#define LGT_CACHE_LINES 256u

typedef struct lgt_node {
    uintptr_t fn;    /* function address as the hook received it (run-time address) */
    uint32_t parent; /* node index; the root's parent is itself */
    uint32_t first_child, last_child, next_sibling; /* 0 = none (the root is nobody's child) */
    uint64_t hits;                                  /* times this call path was entered */
    uint64_t time_ns; /* elapsed time in this call path, children included */
} lgt_node_t;

typedef struct lgt_frame {
    uint32_t node;
    uintptr_t sp;   /* frame address of the enter hook for this call (see drop_unwound) */
    uintptr_t site; /* the call_site the hook was given: the return address of the function
                       whose frame the call runs in */
    uint64_t start_ns;
} lgt_frame_t;

/* IDLE until the start-up constructor (lgt_arm); ARMING while it sets up; RECORDING until exit. */
enum { LGT_IDLE = 0, LGT_ARMING = 1, LGT_RECORDING = 2, LGT_DONE = 3 };
enum { LGT_ROLE_UNKNOWN = 0, LGT_ROLE_OWNER = 1, LGT_ROLE_OTHER = 2 };

static struct {
    int state; /* LGT_IDLE, LGT_ARMING, LGT_RECORDING, LGT_DONE */
    bool busy; /* inside the runtime: events now come from our own callees, ignore them */
    pid_t pid; /* process that started recording; a forked child does not write */
    lgt_node_t *nodes;
    uint32_t nnodes;
    uint32_t *slots; /* node index, 0 = empty */
    lgt_frame_t *stack;
    uint32_t depth;
    uint32_t ghost_depth;           /* open ghost calls nested in the top frame */
    uintptr_t ghost_sp, ghost_site; /* frame address and call_site of the outermost open ghost
                                       call's enter hook */
    uint64_t ghost_calls;           /* calls not recorded */
    uint64_t unwound_frames;        /* frames closed because longjmp skipped their exits */
    uint64_t inlined_calls;         /* calls whose hook ran in the caller's frame (inlined) */
    bool node_cap_reached, depth_cap_reached;
    uint64_t unmatched_exits; /* exits with no matching open frame */
    char out_path[LGT_PATH_MAX];
    bool timeline; /* events also go to the timeline writer (LGTRACE_TIMELINE) */
} lgt;

/* Events of hooks that ran before lgt_arm. An instrumented IFUNC resolver runs while the dynamic
 * loader (or, in a static program, the C library's start-up code) applies relocations: before
 * thread-local storage is set up (or while it is still to be overwritten by its initial image),
 * before the environment is known, and before C library functions, some of them IFUNCs
 * themselves, can be called. Constructors of shared libraries may also run instrumented code
 * before lgt_arm. Such a hook only appends to this array (no libc, no TLS); lgt_arm replays the
 * events into the call tree once the C library is ready. Start-up is single-threaded, so plain
 * variables do. */
typedef struct lgt_early_event {
    uintptr_t fn, site, sp; /* as the hooks record them (see lgt_frame_t) */
    bool is_exit;
} lgt_early_event_t;

static struct {
    lgt_early_event_t events[LGT_MAX_EARLY_EVENTS];
    uint32_t count;      /* events kept */
    uint64_t lost_calls; /* entries past LGT_MAX_EARLY_EVENTS */
    uint64_t calls;      /* entries replayed into the tree */
} lgt_early;

static _Thread_local unsigned char lgt_role; /* LGT_ROLE_*, per thread */
static atomic_int lgt_claimed;               /* 1 once a thread owns the recording */

/* The hooks GCC calls (-finstrument-functions). */
LGT_NOINSTR void __cyg_profile_func_enter(void *this_fn, void *call_site);
LGT_NOINSTR void __cyg_profile_func_exit(void *this_fn, void *call_site);

LGT_NOINSTR static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* True on the recorded thread. The first thread to ask becomes that thread. */
LGT_NOINSTR static bool is_owner(void)
{
    if (lgt_role == LGT_ROLE_UNKNOWN) {
        int expected = 0;
        lgt_role = atomic_compare_exchange_strong(&lgt_claimed, &expected, 1) ? LGT_ROLE_OWNER
                                                                              : LGT_ROLE_OTHER;
    }
    return lgt_role == LGT_ROLE_OWNER;
}

LGT_NOINSTR static void *reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

LGT_NOINSTR static void finish(void);

/* Sets up the recording; false, with a message on stderr, when it cannot. */
LGT_NOINSTR static bool start(void)
{
    const char *out = getenv("LGTRACE_OUT");
    if (out == NULL || *out == '\0')
        out = LGT_DEFAULT_OUT;
    if (strlen(out) >= sizeof lgt.out_path) {
        fprintf(stderr, "lgtrace: LGTRACE_OUT: error: path longer than %u bytes; not tracing\n",
                LGT_PATH_MAX - 1u);
        return false;
    }
    strcpy(lgt.out_path, out);
    lgt.nodes = reserve((size_t)LGT_MAX_NODES * sizeof *lgt.nodes);
    lgt.slots = reserve((size_t)LGT_HASH_SLOTS * sizeof *lgt.slots);
    lgt.stack = reserve((size_t)LGT_MAX_DEPTH * sizeof *lgt.stack);
    if (lgt.nodes == NULL || lgt.slots == NULL || lgt.stack == NULL) {
        fprintf(stderr,
                "lgtrace: error: cannot reserve memory for the call tree (%s); "
                "not tracing\n",
                strerror(errno));
        return false;
    }
    if (atexit(finish) != 0) {
        fprintf(stderr, "lgtrace: error: cannot register the exit handler; not tracing\n");
        return false;
    }
    const char *timeline = getenv("LGTRACE_TIMELINE");
    if (timeline != NULL && *timeline != '\0') {
        if (lgtl_open == NULL)
            fprintf(stderr, "lgtrace: LGTRACE_TIMELINE: warning: lgtimeline.c is not linked in; "
                            "no timeline\n");
        else if (lgtl_open(timeline))
            lgt.timeline = true;
        else
            fprintf(stderr, "lgtrace: warning: no timeline; the .prf is still written\n");
    }
    lgt.nodes[0].parent = 0; /* the root; mmap'd memory is already zero */
    lgt.nnodes = 1;
    lgt.pid = getpid();
    return true;
}

LGT_NOINSTR static uint32_t hash_slot(uint32_t parent, uintptr_t fn)
{
    uint64_t h = ((uint64_t)fn ^ ((uint64_t)parent << 32)) * 0x9E3779B97F4A7C15ull; /* Fibonacci */
    return (uint32_t)(h >> (64u - LGT_HASH_BITS));
}

/* The child of parent for fn, added if new. 0 when the node cap is reached. */
LGT_NOINSTR static uint32_t child_node(uint32_t parent, uintptr_t fn)
{
    uint32_t s = hash_slot(parent, fn);
    for (;; s = (s + 1u) & (LGT_HASH_SLOTS - 1u)) { /* linear probing; never full (load <= 0.5) */
        uint32_t n = lgt.slots[s];
        if (n == 0)
            break;
        if (lgt.nodes[n].parent == parent && lgt.nodes[n].fn == fn)
            return n;
    }
    if (lgt.nnodes == LGT_MAX_NODES) {
        lgt.node_cap_reached = true;
        return 0;
    }
    uint32_t n = lgt.nnodes++;
    lgt_node_t *node = &lgt.nodes[n];
    node->fn = fn;
    node->parent = parent;
    lgt_node_t *p = &lgt.nodes[parent];
    if (p->last_child != 0)
        lgt.nodes[p->last_child].next_sibling = n; /* children keep first-entry order */
    else
        p->first_child = n;
    p->last_child = n;
    lgt.slots[s] = n;
    return n;
}

/* Closes the frames that longjmp (or an exception) unwound without calling their exit hooks.
 *
 * The stack grows down on every target we run on. A call that is not inlined runs its enter
 * hook strictly deeper than the enter hook of each live caller (at least a return address or a
 * saved return register lies between them). A call GCC inlined runs its hook in its caller's
 * frame: the same depth, and the same call_site (GCC passes the return address of the
 * function whose frame it is). So the top frame is stale when its hook ran deeper than the
 * current one, or as deep but from another call_site. (A stale frame called again from the very
 * same call site cannot be told from an inlined call; it stays, as the new call's parent, until
 * an exit shows otherwise.) */
LGT_NOINSTR static void drop_unwound(uintptr_t sp, uintptr_t site, const uint64_t *at)
{
    uint64_t t = at != NULL ? *at : 0u;
    while (lgt.depth > 0) {
        const lgt_frame_t *top = &lgt.stack[lgt.depth - 1u];
        if (top->sp > sp || (top->sp == sp && top->site == site))
            return; /* the usual case: the top frame is live */
        if (t == 0)
            t = now_ns();
        lgt.depth--;
        lgt.nodes[top->node].time_ns += t - top->start_ns;
        lgt.unwound_frames++;
        if (lgt.timeline)
            lgtl_event(lgt.nodes[top->node].fn, LGTL_EXIT, t);
    }
}

/* Starts a run of ghost calls (a limit was reached); its calls are counted, not recorded. */
LGT_NOINSTR static void start_ghost(uintptr_t sp, uintptr_t site)
{
    lgt.ghost_depth = 1;
    lgt.ghost_sp = sp;
    lgt.ghost_site = site;
    lgt.ghost_calls++;
}

/* Records the entry of fn. at: the time of a replayed event (lgt_arm), NULL for now. */
LGT_NOINSTR static void record_enter(uintptr_t fn, uintptr_t site, uintptr_t sp, const uint64_t *at)
{
    if (lgt.ghost_depth > 0 &&
        (sp > lgt.ghost_sp || (sp == lgt.ghost_sp && site != lgt.ghost_site)))
        lgt.ghost_depth = 0; /* longjmp unwound the ghost calls (rule: see drop_unwound) */
    if (lgt.ghost_depth > 0) {
        lgt.ghost_depth++;
        lgt.ghost_calls++;
        return;
    }
    drop_unwound(sp, site, at);
    if (lgt.depth > 0 && lgt.stack[lgt.depth - 1u].sp == sp &&
        lgt.stack[lgt.depth - 1u].site == site)
        lgt.inlined_calls++; /* the caller's frame and call_site: inlined (see drop_unwound) */
    uint32_t parent = lgt.depth > 0 ? lgt.stack[lgt.depth - 1u].node : 0u;
    uint32_t n = 0;
    if (lgt.depth == LGT_MAX_DEPTH)
        lgt.depth_cap_reached = true;
    else
        n = child_node(parent, fn);
    if (n == 0) {
        start_ghost(sp, site);
        return;
    }
    lgt.nodes[n].hits++;
    if (lgt.timeline) {
        uint64_t t = at != NULL ? *at : now_ns();
        if (lgt.depth > 0)
            lgtl_event(lgt.nodes[lgt.stack[lgt.depth - 1u].node].fn, LGTL_SUSPEND, t);
        lgtl_event(fn, LGTL_ENTRY, t);
    }
    lgt_frame_t *f = &lgt.stack[lgt.depth++];
    f->node = n;
    f->sp = sp;
    f->site = site;
    f->start_ns = at != NULL ? *at : now_ns(); /* last, so our own work is not counted */
}

/* Records the exit of fn at time t. */
LGT_NOINSTR static void record_exit(uintptr_t fn, uint64_t t)
{
    if (lgt.ghost_depth > 0) {
        lgt.ghost_depth--;
        return;
    }
    /* Normally the top frame matches. If not, longjmp (or a C++ exception through C code)
     * skipped some exits that drop_unwound has not seen yet: close the frames above the
     * newest frame of this function. */
    uint32_t i = lgt.depth;
    while (i > 0 && lgt.nodes[lgt.stack[i - 1u].node].fn != fn)
        i--;
    if (i == 0) {
        lgt.unmatched_exits++;
        return;
    }
    lgt.unwound_frames += lgt.depth - i; /* the frames above the match */
    while (lgt.depth >= i) {
        lgt_frame_t *f = &lgt.stack[--lgt.depth];
        lgt.nodes[f->node].time_ns += t - f->start_ns;
        if (lgt.timeline)
            lgtl_event(lgt.nodes[f->node].fn, LGTL_EXIT, t);
    }
    if (lgt.timeline && lgt.depth > 0)
        lgtl_event(lgt.nodes[lgt.stack[lgt.depth - 1u].node].fn, LGTL_RESUME, t);
}

/* Ends every open call at time t. */
LGT_NOINSTR static void close_open_calls(uint64_t t)
{
    while (lgt.depth > 0) {
        lgt_frame_t *f = &lgt.stack[--lgt.depth];
        lgt.nodes[f->node].time_ns += t - f->start_ns;
        if (lgt.timeline)
            lgtl_event(lgt.nodes[f->node].fn, LGTL_EXIT, t);
    }
}

/* A hook that ran before lgt_arm: keeps the event for the replay. Touches nothing but this
 * file's static memory (see lgt_early). */
LGT_NOINSTR LGT_NO_SSP static void keep_early(uintptr_t fn, uintptr_t site, uintptr_t sp,
                                              bool is_exit)
{
    if (lgt_early.count == LGT_MAX_EARLY_EVENTS) {
        if (!is_exit)
            lgt_early.lost_calls++;
        return;
    }
    lgt_early_event_t *e = &lgt_early.events[lgt_early.count++];
    e->fn = fn; /* field by field: a struct copy may become a call to memcpy */
    e->site = site;
    e->sp = sp;
    e->is_exit = is_exit;
}

/* Replays the events kept before lgt_arm into the call tree. Their calls have no time: the
 * clock could not be read then. */
LGT_NOINSTR static void replay_early(void)
{
    if (lgt_early.count == 0)
        return;
    (void)is_owner(); /* start-up runs on the main thread, which ran these calls: it is recorded */
    uint64_t t = now_ns();
    for (uint32_t i = 0; i < lgt_early.count; i++) {
        const lgt_early_event_t *e = &lgt_early.events[i];
        if (e->is_exit) {
            record_exit(e->fn, t);
        } else {
            record_enter(e->fn, e->site, e->sp, &t);
            lgt_early.calls++;
        }
    }
    /* Start-up code calls constructors from its top level, so nothing kept is still running;
     * a call whose exit was lost (past LGT_MAX_EARLY_EVENTS) must not become the caller of the
     * whole program. */
    close_open_calls(t);
}

/* Starts the runtime once the C library is ready: a constructor runs after relocation, after
 * thread-local storage and the environment are set up, and priority 101 (the first one left to
 * programs) runs it before the program's own constructors. */
LGT_NOINSTR __attribute__((constructor(101))) static void lgt_arm(void)
{
    if (lgt.state != LGT_IDLE)
        return;
    lgt.state = LGT_ARMING; /* events of our own callees (an instrumented malloc) are ignored */
    if (!start()) {
        if (lgt_early.count > 0)
            fprintf(stderr,
                    "lgtrace: error: %u events of calls made during start-up are dropped with "
                    "the recording\n",
                    lgt_early.count);
        lgt.state = LGT_DONE;
        return;
    }
    lgt.busy = true;
    replay_early();
    lgt.busy = false;
    lgt.state = LGT_RECORDING;
}

LGT_NOINSTR LGT_NO_SSP void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (lgt.state == LGT_IDLE) { /* first, before anything that needs the C library or TLS */
        keep_early((uintptr_t)this_fn, (uintptr_t)call_site, sp, false);
        return;
    }
    if (lgt.state != LGT_RECORDING || !is_owner() || lgt.busy)
        return;
    lgt.busy = true;
    record_enter((uintptr_t)this_fn, (uintptr_t)call_site, sp, NULL);
    lgt.busy = false;
}

LGT_NOINSTR LGT_NO_SSP void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    if (lgt.state == LGT_IDLE) {
        keep_early((uintptr_t)this_fn, (uintptr_t)call_site, 0u, true); /* exits need no sp */
        return;
    }
    if (lgt.state != LGT_RECORDING || !is_owner() || lgt.busy)
        return;
    uint64_t t = now_ns(); /* first, so our own work is not counted */
    lgt.busy = true;
    record_exit((uintptr_t)this_fn, t);
    lgt.busy = false;
}

/* ---- Symbols -------------------------------------------------------------------------------
 * Function symbols of /proc/self/exe, read with <elf.h> only. Native byte order; Elf32 or Elf64. */

typedef struct lgt_sym {
    uint64_t value, size;
    const char *name;
    const char *file; /* STT_FILE in effect, for local symbols; else NULL */
    unsigned char bind;
} lgt_sym_t;

typedef struct lgt_symtab {
    void *map;
    size_t map_size;
    lgt_sym_t *syms; /* sorted by value, then preference (see cmp_sym) */
    size_t nsyms;
    uint64_t bias; /* run-time address minus st_value */
    bool have_bias;
    bool thumb; /* ARM: bit 0 of a function address marks Thumb code, not a byte */
} lgt_symtab_t;

typedef struct lgt_shdr {
    uint32_t type, link;
    uint64_t offset, size, entsize;
} lgt_shdr_t;

LGT_NOINSTR static int bind_rank(unsigned char bind)
{
    return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* By address; at one address prefer global, then weak, then local, then the smaller name. */
LGT_NOINSTR static int cmp_sym(const void *a, const void *b)
{
    const lgt_sym_t *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (bind_rank(x->bind) != bind_rank(y->bind))
        return bind_rank(x->bind) - bind_rank(y->bind);
    return strcmp(x->name, y->name);
}

LGT_NOINSTR static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

LGT_NOINSTR static bool read_shdr(const unsigned char *base, size_t size, bool is64, uint64_t shoff,
                                  uint32_t i, lgt_shdr_t *out)
{
    size_t esz = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
    uint64_t off = shoff + (uint64_t)i * esz;
    if (off > size || size - off < esz)
        return false;
    if (is64) {
        Elf64_Shdr s;
        memcpy(&s, base + off, sizeof s);
        *out = (lgt_shdr_t){s.sh_type, s.sh_link, s.sh_offset, s.sh_size, s.sh_entsize};
    } else {
        Elf32_Shdr s;
        memcpy(&s, base + off, sizeof s);
        *out = (lgt_shdr_t){s.sh_type, s.sh_link, s.sh_offset, s.sh_size, s.sh_entsize};
    }
    return out->offset <= size && out->size <= size - out->offset;
}

/* Reads the function symbols (SHT_SYMTAB, else SHT_DYNSYM). Returns false with *why set when
 * the file cannot be used; names then stay unresolved. */
LGT_NOINSTR static bool symtab_load(lgt_symtab_t *t, const char *path, const char **why)
{
    memset(t, 0, sizeof *t);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)EI_NIDENT) {
        close(fd);
        *why = "cannot stat it, or too short for ELF";
        return false;
    }
    t->map_size = (size_t)st.st_size;
    t->map = mmap(NULL, t->map_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (t->map == MAP_FAILED) {
        t->map = NULL;
        *why = strerror(errno);
        return false;
    }
    const unsigned char *base = t->map;
    size_t size = t->map_size;
    if (memcmp(base, ELFMAG, SELFMAG) != 0) {
        *why = "not an ELF file";
        return false;
    }
    bool is64 = base[EI_CLASS] == ELFCLASS64;
    if (!is64 && base[EI_CLASS] != ELFCLASS32) {
        *why = "unknown ELF class";
        return false;
    }
    if ((base[EI_DATA] == ELFDATA2LSB) != host_is_little_endian()) {
        *why = "ELF byte order differs from the host's";
        return false;
    }
    uint64_t shoff;
    uint32_t shnum, shentsize;
    uint16_t machine;
    if (is64) {
        Elf64_Ehdr e;
        if (size < sizeof e)
            goto short_file;
        memcpy(&e, base, sizeof e);
        shoff = e.e_shoff;
        shnum = e.e_shnum;
        shentsize = e.e_shentsize;
        machine = e.e_machine;
    } else {
        Elf32_Ehdr e;
        if (size < sizeof e)
            goto short_file;
        memcpy(&e, base, sizeof e);
        shoff = e.e_shoff;
        shnum = e.e_shnum;
        shentsize = e.e_shentsize;
        machine = e.e_machine;
    }
    if (shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) || shnum == 0) {
        *why = "no usable section header table";
        return false;
    }
    t->thumb = machine == EM_ARM;

    lgt_shdr_t symsec = {0}, strsec;
    bool found = false;
    for (uint32_t want = SHT_SYMTAB;; want = SHT_DYNSYM) { /* SHT_DYNSYM only when stripped */
        for (uint32_t i = 0; i < shnum && !found; i++) {
            lgt_shdr_t sh;
            if (read_shdr(base, size, is64, shoff, i, &sh) && sh.type == want) {
                symsec = sh;
                found = true;
            }
        }
        if (found || want == SHT_DYNSYM)
            break;
    }
    size_t symsz = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    if (!found || symsec.entsize != symsz || symsec.link >= shnum ||
        !read_shdr(base, size, is64, shoff, symsec.link, &strsec) || strsec.type != SHT_STRTAB ||
        strsec.size == 0 || base[strsec.offset + strsec.size - 1u] != '\0') {
        *why = "no usable symbol table (stripped?)";
        return false;
    }

    size_t count = (size_t)(symsec.size / symsz);
    t->syms = malloc((count ? count : 1u) * sizeof *t->syms);
    if (t->syms == NULL) {
        *why = "out of memory";
        return false;
    }
    const char *strs = (const char *)base + strsec.offset;
    const char *file = NULL;
    for (size_t i = 0; i < count; i++) {
        uint32_t name;
        unsigned char info;
        uint16_t shndx;
        uint64_t value, ssize;
        if (is64) {
            Elf64_Sym s;
            memcpy(&s, base + symsec.offset + i * symsz, sizeof s);
            name = s.st_name;
            info = s.st_info;
            shndx = s.st_shndx;
            value = s.st_value;
            ssize = s.st_size;
        } else {
            Elf32_Sym s;
            memcpy(&s, base + symsec.offset + i * symsz, sizeof s);
            name = s.st_name;
            info = s.st_info;
            shndx = s.st_shndx;
            value = s.st_value;
            ssize = s.st_size;
        }
        if (name >= strsec.size)
            continue; /* corrupt name offset: skip the symbol rather than read past the table */
        const char *nm = strs + name;
        if (ELF64_ST_TYPE(info) == STT_FILE) {
            file = *nm ? nm : NULL;
            continue;
        }
        if (ELF64_ST_TYPE(info) != STT_FUNC || shndx == SHN_UNDEF || shndx == SHN_ABS ||
            *nm == '\0')
            continue;
        unsigned char bind = ELF64_ST_BIND(info);
        t->syms[t->nsyms++] = (lgt_sym_t){value, ssize, nm, bind == STB_LOCAL ? file : NULL, bind};
        if (!t->have_bias && strcmp(nm, "__cyg_profile_func_enter") == 0) {
            /* A function of this runtime: its run-time address minus its link-time address is
             * the load bias (non-zero for PIE). */
            t->bias = (uint64_t)(uintptr_t)&__cyg_profile_func_enter - value;
            t->have_bias = true;
        }
    }
    if (!t->have_bias) {
        *why = "symbol __cyg_profile_func_enter not found, cannot compute the load bias";
        return false;
    }
    qsort(t->syms, t->nsyms, sizeof *t->syms, cmp_sym);
    return true;

short_file:
    *why = "too short for its ELF header";
    return false;
}

LGT_NOINSTR static void symtab_destroy(lgt_symtab_t *t)
{
    free(t->syms);
    if (t->map != NULL)
        munmap(t->map, t->map_size);
    memset(t, 0, sizeof *t);
}

/* The symbol whose range holds the run-time address addr, or NULL. O(log n). */
LGT_NOINSTR static const lgt_sym_t *symtab_find(const lgt_symtab_t *t, uintptr_t addr)
{
    uint64_t link = (uint64_t)addr - t->bias;
    size_t lo = 0, hi = t->nsyms; /* first symbol with value > link */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2u;
        if (t->syms[mid].value <= link)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    size_t i = lo - 1u;
    while (i > 0 && t->syms[i - 1u].value == t->syms[i].value)
        i--; /* the preferred alias sorts first */
    const lgt_sym_t *s = &t->syms[i];
    uint64_t span = s->size ? s->size : 1u;
    return link - s->value < span ? s : NULL;
}

/* ---- Writing ------------------------------------------------------------------------------ */

typedef struct lgt_func {
    const lgt_sym_t *sym; /* NULL when unresolved */
    uintptr_t addr;       /* run-time entry address (for unresolved names) */
    char name[24];        /* "0x" and up to 16 hex digits when unresolved */
    uint32_t pc_min, pc_max;
    uint16_t cache_line;
    uint64_t hits, c1_total, c1_self, c2_total, c2_self;
    uint32_t active; /* nodes of this function on the current depth-first path */
} lgt_func_t;

typedef struct lgt_out {
    lgt_func_t *funcs;
    uint32_t nfuncs, funcs_cap;
    uint32_t *node_func;                    /* per node: index into funcs */
    uint64_t *c1_self, *c2_self, *c2_total; /* per node */
    uint32_t *call_no;                      /* per node: its call record's unique number */
    uint32_t out_of_range; /* functions whose addresses do not fit the 32-bit PC fields */
    uint32_t unresolved;   /* functions no symbol covers (stripped binary), named by address */
} lgt_out_t;

LGT_NOINSTR static uint32_t hash_addr(uintptr_t a, uint32_t mask)
{
    return (uint32_t)(((uint64_t)a * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* Gives every node its function, one lgt_func_t per symbol, in first-entry order. */
LGT_NOINSTR static bool assign_funcs(lgt_out_t *o, const lgt_symtab_t *t)
{
    uint32_t cap = 2u;
    while (cap < 2u * lgt.nnodes)
        cap *= 2u;
    uintptr_t *keys = calloc(cap, sizeof *keys);
    uint32_t *vals = calloc(cap, sizeof *vals);
    uint32_t *by_sym = NULL;
    bool ok = keys != NULL && vals != NULL;
    if (ok && t->nsyms > 0) {
        by_sym = malloc(t->nsyms * sizeof *by_sym);
        ok = by_sym != NULL;
        for (size_t i = 0; ok && i < t->nsyms; i++)
            by_sym[i] = UINT32_MAX;
    }
    for (uint32_t n = 1; ok && n < lgt.nnodes; n++) {
        uintptr_t fn = lgt.nodes[n].fn;
        uint32_t s = hash_addr(fn, cap - 1u);
        while (keys[s] != 0 && keys[s] != fn) /* fn is never 0: it is a function's address */
            s = (s + 1u) & (cap - 1u);
        if (keys[s] == 0) {
            const lgt_sym_t *sym = symtab_find(t, fn);
            uint32_t f = sym != NULL ? by_sym[sym - t->syms] : UINT32_MAX;
            if (f == UINT32_MAX && o->nfuncs == o->funcs_cap) {
                uint32_t fcap = o->funcs_cap ? 2u * o->funcs_cap : 256u;
                lgt_func_t *grown = realloc(o->funcs, fcap * sizeof *grown);
                if (grown == NULL) {
                    ok = false;
                    break;
                }
                o->funcs = grown;
                o->funcs_cap = fcap;
            }
            if (f == UINT32_MAX) {
                f = o->nfuncs++;
                lgt_func_t *fu = &o->funcs[f];
                memset(fu, 0, sizeof *fu);
                fu->sym = sym;
                fu->addr = fn;
                fu->cache_line = LGT_NO_CACHE_LINE;
                if (sym != NULL) {
                    by_sym[sym - t->syms] = f;
                    uint64_t lo = sym->value & (t->thumb ? ~(uint64_t)1 : ~(uint64_t)0);
                    uint64_t hi = lo + (sym->size ? sym->size - 1u : 0u);
                    if (hi <= UINT32_MAX) {
                        fu->pc_min = (uint32_t)lo;
                        fu->pc_max = (uint32_t)hi;
                        fu->cache_line = (uint16_t)((lo >> LGT_CACHE_LINE_SHIFT) % LGT_CACHE_LINES);
                    } else {
                        o->out_of_range++; /* left 0/0: "scope unknown" */
                    }
                } else {
                    o->unresolved++;
                    snprintf(fu->name, sizeof fu->name, "0x%llx",
                             (unsigned long long)((uint64_t)fn - t->bias));
                }
            }
            keys[s] = fn;
            vals[s] = f;
        }
        o->node_func[n] = vals[s];
    }
    free(keys);
    free(vals);
    free(by_sym);
    return ok;
}

/* Self counters per node, from the tree. Children have higher indices than their parents, so
 * one backward pass sees every child before its parent. */
LGT_NOINSTR static void derive_counters(lgt_out_t *o)
{
    uint64_t *child_time = o->c1_self; /* reused: holds the children's time until converted */
    for (uint32_t n = lgt.nnodes; n-- > 1;) {
        const lgt_node_t *node = &lgt.nodes[n];
        o->c2_total[n] += o->c2_self[n]; /* c2_total held the children's totals so far */
        uint64_t ct = child_time[n];
        o->c1_self[n] = node->time_ns > ct ? node->time_ns - ct : 0u;
        if (node->parent != 0) {
            child_time[node->parent] += node->time_ns;
            o->c2_self[node->parent] += node->hits;
            o->c2_total[node->parent] += o->c2_total[n];
        }
    }
}

/* Depth-first over the tree without a stack (children are linked). visit(n) is called on the
 * way down, leave(n) on the way up. */
typedef void (*lgt_visit_fn)(lgt_out_t *o, lg_prf_writer_t *w, uint32_t n, uint32_t *seq);

LGT_NOINSTR static void walk(lgt_out_t *o, lg_prf_writer_t *w, lgt_visit_fn visit,
                             lgt_visit_fn leave)
{
    uint32_t seq = 0, n = lgt.nodes[0].first_child;
    while (n != 0) {
        visit(o, w, n, &seq);
        if (lgt.nodes[n].first_child != 0) {
            n = lgt.nodes[n].first_child;
            continue;
        }
        for (;;) {
            leave(o, w, n, &seq);
            if (lgt.nodes[n].next_sibling != 0) {
                n = lgt.nodes[n].next_sibling;
                break;
            }
            n = lgt.nodes[n].parent;
            if (n == 0)
                break;
        }
    }
}

LGT_NOINSTR static void sum_visit(lgt_out_t *o, lg_prf_writer_t *w, uint32_t n, uint32_t *seq)
{
    (void)w;
    (void)seq;
    lgt_func_t *f = &o->funcs[o->node_func[n]];
    f->hits += lgt.nodes[n].hits;
    f->c1_self += o->c1_self[n];
    f->c2_self += o->c2_self[n];
    if (f->active++ == 0) { /* a recursive call's total is already in its outer call's total */
        f->c1_total += lgt.nodes[n].time_ns;
        f->c2_total += o->c2_total[n];
    }
}

LGT_NOINSTR static void sum_leave(lgt_out_t *o, lg_prf_writer_t *w, uint32_t n, uint32_t *seq)
{
    (void)w;
    (void)seq;
    o->funcs[o->node_func[n]].active--;
}

LGT_NOINSTR static lg_prf_record_fields_t fields_of(const lgt_func_t *f)
{
    return (lg_prf_record_fields_t){
        .description = LGT_DESC_FUNCTION,
        .cache_line = f->cache_line,
        .pc_min = f->pc_min,
        .pc_max = f->pc_max,
        .overlay_area = LGT_NO_ID,
        .overlay_id = LGT_NO_ID,
        .group_id = LGT_NO_ID,
        .name = f->sym != NULL ? f->sym->name : f->name,
        .link_label = NULL,
        .qual_name = f->sym != NULL ? f->sym->file : NULL,
    };
}

LGT_NOINSTR static void call_visit(lgt_out_t *o, lg_prf_writer_t *w, uint32_t n, uint32_t *seq)
{
    lg_prf_record_fields_t r = fields_of(&o->funcs[o->node_func[n]]);
    r.hits = lgt.nodes[n].hits;
    r.counter1_total = lgt.nodes[n].time_ns;
    r.counter1_self = o->c1_self[n];
    r.counter2_total = o->c2_total[n];
    r.counter2_self = o->c2_self[n];
    o->call_no[n] = ++*seq;
    lg_prf_write_call(w, o->call_no[n], &r);
}

LGT_NOINSTR static void call_leave(lgt_out_t *o, lg_prf_writer_t *w, uint32_t n, uint32_t *seq)
{
    (void)seq;
    lg_prf_write_return(w, o->call_no[n]);
}

/* Writes data to path through a temporary file in the same directory and a rename, so readers
 * never see half a profile. */
LGT_NOINSTR static bool write_atomically(const char *path, const uint8_t *data, size_t size)
{
    char tmp[LGT_PATH_MAX + 32u];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "wb");
    if (fp == NULL) {
        fprintf(stderr, "lgtrace: %s: error: cannot create: %s\n", tmp, strerror(errno));
        return false;
    }
    bool ok = fwrite(data, 1, size, fp) == size;
    ok = (fflush(fp) == 0) && ok;
    int err = errno;
    ok = (fclose(fp) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "lgtrace: %s: error: cannot write: %s\n", tmp, strerror(err));
        unlink(tmp);
        return false;
    }
    if (rename(tmp, path) != 0) {
        fprintf(stderr, "lgtrace: %s: error: cannot rename %s to it: %s\n", path, tmp,
                strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

LGT_NOINSTR static void report_limits(void)
{
    if (lgt.node_cap_reached || lgt.depth_cap_reached)
        fprintf(stderr,
                "lgtrace: %s: warning: %llu calls not recorded: %s%s%s; their time counts as "
                "their callers' self time\n",
                lgt.out_path, (unsigned long long)lgt.ghost_calls,
                lgt.node_cap_reached ? "more than LGT_MAX_NODES call paths" : "",
                lgt.node_cap_reached && lgt.depth_cap_reached ? " and " : "",
                lgt.depth_cap_reached ? "calls nested deeper than LGT_MAX_DEPTH" : "");
    if (lgt.unwound_frames > 0 && getenv("LGTRACE_VERBOSE") != NULL)
        fprintf(stderr,
                "lgtrace: %s: note: %llu calls were left by longjmp without returning; "
                "each ends where that was noticed\n",
                lgt.out_path, (unsigned long long)lgt.unwound_frames);
    if (lgt.unmatched_exits > 0)
        fprintf(stderr, "lgtrace: %s: warning: %llu function exits had no matching entry\n",
                lgt.out_path, (unsigned long long)lgt.unmatched_exits);
    if (lgt_early.lost_calls > 0)
        fprintf(stderr,
                "lgtrace: %s: warning: %llu calls made during start-up, before the tracer's "
                "constructor, not recorded: more than LGT_MAX_EARLY_EVENTS events\n",
                lgt.out_path, (unsigned long long)lgt_early.lost_calls);
    if (lgt_early.calls > 0)
        fprintf(stderr,
                "lgtrace: %s: note: %llu calls ran during start-up, before the tracer's "
                "constructor (IFUNC resolvers, constructors of shared libraries); they are "
                "recorded with no time\n",
                lgt.out_path, (unsigned long long)lgt_early.calls);
    if (lgt.nnodes <= 1u)
        fprintf(stderr,
                "lgtrace: %s: warning: no instrumented function ran; the profile is empty "
                "(were the sources built with -finstrument-functions?)\n",
                lgt.out_path);
}

/* Names for the timeline's main file (lgtimeline.h): the symbol covering fn, else its address. */
LGT_NOINSTR static void timeline_name(void *ctx, uintptr_t fn, const char **name, const char **file)
{
    static char by_address[24];
    const lgt_symtab_t *t = ctx;
    const lgt_sym_t *sym = symtab_find(t, fn);
    if (sym != NULL) {
        *name = sym->name;
        *file = sym->bind == STB_LOCAL ? sym->file : NULL;
        return;
    }
    snprintf(by_address, sizeof by_address, "0x%llx", (unsigned long long)((uint64_t)fn - t->bias));
    *name = by_address;
    *file = NULL;
}

LGT_NOINSTR static void write_profile(void)
{
    const char *why = NULL;
    lgt_symtab_t t;
    if (!symtab_load(&t, "/proc/self/exe", &why)) {
        fprintf(stderr, "lgtrace: /proc/self/exe: warning: %s; functions are named by address\n",
                why);
        symtab_destroy(&t); /* no symbols, bias 0: names become run-time addresses */
    }

    uint32_t n = lgt.nnodes;
    lgt_out_t o = {0};
    o.node_func = calloc(n, sizeof *o.node_func);
    o.c1_self = calloc(n, sizeof *o.c1_self);
    o.c2_self = calloc(n, sizeof *o.c2_self);
    o.c2_total = calloc(n, sizeof *o.c2_total);
    o.call_no = calloc(n, sizeof *o.call_no);
    lg_prf_writer_t w;
    bool have_writer = false;
    if (o.node_func == NULL || o.c1_self == NULL || o.c2_self == NULL || o.c2_total == NULL ||
        o.call_no == NULL || !assign_funcs(&o, &t)) {
        fprintf(stderr, "lgtrace: %s: error: out of memory; no profile written\n", lgt.out_path);
        goto out;
    }
    derive_counters(&o);
    walk(&o, NULL, sum_visit, sum_leave);

    lg_prf_header_t h = {
        .version = LGT_PRF_VERSION,
        .icache_enabled = 1,
        .type = LG_PRF_TYPE_TRACE,
        .counter1_kind = LGT_COUNTER_ELAPSED,
        .counter2_kind = LGT_COUNTER_CALLS,
    };
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm) != NULL) {
        h.day = (uint8_t)tm.tm_mday;
        h.month = (uint8_t)(tm.tm_mon + 1);
        h.year = (uint8_t)(tm.tm_year % 100);
        h.hour = (uint8_t)tm.tm_hour;
        h.minute = (uint8_t)tm.tm_min;
        h.second = (uint8_t)tm.tm_sec;
    }
    for (uint32_t i = 1; i < n; i++) {
        h.total_hits += lgt.nodes[i].hits;
        h.counter1_self += o.c1_self[i];
        h.counter2_self += o.c2_self[i];
        if (lgt.nodes[i].parent == 0) {
            h.counter1_total += lgt.nodes[i].time_ns;
            h.counter2_total += o.c2_total[i];
        }
    }

    lg_prf_writer_init(&w, &h);
    have_writer = true;
    for (uint32_t f = 0; f < o.nfuncs; f++) {
        lg_prf_record_fields_t r = fields_of(&o.funcs[f]);
        r.hits = o.funcs[f].hits;
        r.counter1_total = o.funcs[f].c1_total;
        r.counter1_self = o.funcs[f].c1_self;
        r.counter2_total = o.funcs[f].c2_total;
        r.counter2_self = o.funcs[f].c2_self;
        lg_prf_write_function(&w, &r);
    }
    walk(&o, &w, call_visit, call_leave);
    lg_err_t err = lg_prf_writer_finish(&w);
    if (err != LG_OK) {
        fprintf(stderr, "lgtrace: %s: error: cannot build the profile (error %d); not written\n",
                lgt.out_path, (int)err);
        goto out;
    }
    if (lgt.inlined_calls > 0) {
        /* Thousandths, rounded down: integer arithmetic, so the message is the same everywhere. */
        uint64_t permille = lgt.inlined_calls * 1000u / (h.total_hits ? h.total_hits : 1u);
        fprintf(stderr,
                "lgtrace: %s: note: %llu of %llu calls (%llu.%llu%%) went to functions the "
                "compiler inlined into their callers; a build without instrumentation may not have "
                "them out of line, and lorgen then leaves them and their time unbound. clang's "
                "-finstrument-functions-after-inlining records only the calls that remain "
                "(examples/tracer/README.md, \"Inlining\")\n",
                lgt.out_path, (unsigned long long)lgt.inlined_calls,
                (unsigned long long)h.total_hits, (unsigned long long)(permille / 10u),
                (unsigned long long)(permille % 10u));
    }
    if (o.unresolved > 0 && t.nsyms > 0)
        fprintf(stderr,
                "lgtrace: /proc/self/exe: warning: %u of %u functions have no symbol (stripped?); "
                "they are named by address\n",
                o.unresolved, o.nfuncs);
    if (o.out_of_range > 0)
        fprintf(stderr,
                "lgtrace: %s: warning: %u functions lie above 4 GiB; their PC range is left 0\n",
                lgt.out_path, o.out_of_range);
    if (write_atomically(lgt.out_path, w.buf.data, w.buf.size) && getenv("LGTRACE_VERBOSE") != NULL)
        fprintf(stderr, "lgtrace: %s: note: %u functions, %u call paths, %llu calls, %zu bytes\n",
                lgt.out_path, o.nfuncs, n - 1u, (unsigned long long)h.total_hits, w.buf.size);
out:
    if (lgt.timeline)
        lgtl_close(timeline_name, &t);
    if (have_writer)
        lg_prf_writer_destroy(&w);
    free(o.funcs);
    free(o.node_func);
    free(o.c1_self);
    free(o.c2_self);
    free(o.c2_total);
    free(o.call_no);
    symtab_destroy(&t);
}

/* The exit handler: registered with atexit() by the first enter. */
LGT_NOINSTR static void finish(void)
{
    if (lgt.state != LGT_RECORDING || lgt.busy)
        return;
    uint64_t t = now_ns();
    lgt.state = LGT_DONE; /* events after this point (later exit handlers) are ignored */
    if (getpid() != lgt.pid)
        return; /* a forked child: the parent writes the profile */
    lgt.busy = true;
    close_open_calls(t); /* calls still open (exit() called below main) end now */
    report_limits();
    write_profile();
    lgt.busy = false;
}
