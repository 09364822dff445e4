/* gen_winidea.c - writes a synthetic winIDEA profiler export for benchmarks and tests: a main
 * file (Text1 or XML) with the mapping of functions, lines, variables and an AUX signal, and one
 * timeline, either in the main file (text) or next to it in binary (MAIN.BIN, layout 1.0 or
 * 1.1).
 *
 *   lg_gen_winidea [options] MAIN
 *     --functions N     functions in the mapping (default 2000)
 *     --events N        timeline events to write, about (default 100000)
 *     --bin-bytes SIZE  instead of --events: a .BIN of about SIZE bytes (suffix K, M or G)
 *     --cores N         cores running at once, 1-255 (default 2)
 *     --contexts N      tasks per core (default 1); a task preempts the lower ones now and then
 *     --seed N          the random sequence (default 1); the same seed gives the same stream
 *     --main FORMAT     text1 or xml (default text1)
 *     --timeline WHERE  text (in MAIN), bin1.0 or bin1.1 (MAIN.BIN), none (default bin1.1)
 *     --cut             leave the calls that are running at the end open (default: return)
 *
 * The event stream is one program running on every core. Its static call graph is random: each
 * function calls a few functions of higher index (so calls end), a few call themselves, and many
 * call a handful of shared leaf helpers, which makes hotness skewed as in real programs. Each
 * core runs task functions that loop forever calling into that graph; every call is the
 * caller's Suspend and the callee's Entry at one time, every return the callee's Exit and the
 * caller's Resume. Each core has its own clock; events of all cores are written in time order,
 * as winIDEA exports them. Tasks of higher priority (contexts) preempt a lower one like an
 * interrupt: its running function is suspended, the task runs one job to its end, and it
 * resumes. Variables are written now and then (data write events, which carry a value).
 *
 * The text formats follow the winIDEA help's Text1 examples, with the %CORE% (and %CONTEXT%)
 * column lorgen's Text1 reader accepts for multi-core timelines; the XML shape is lorgen's
 * assumption (docs/loaders/winidea.md). Handles are 8 upper-case hexadecimal digits in Text1, as
 * in the help's examples, and the same with 0x in XML.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest call path the walk builds (task functions included). */
#define GEN_MAX_DEPTH 24u
/* Most distinct callees one function has. */
#define GEN_MAX_CALLEES 6u
/* Share of functions (percent) that call nothing. */
#define GEN_LEAF_PCT 35u
/* Share of calls (percent) that go to the shared helpers, and how many helpers there are. */
#define GEN_HELPER_PCT 30u
#define GEN_HELPERS 8u
/* Share of functions (percent) that may call themselves. */
#define GEN_RECURSIVE_PCT 3u
/* A function makes 0 to this many calls per activation. */
#define GEN_MAX_CALLS 3u
/* Time a function runs between two of its events: 5 ns plus up to this many. */
#define GEN_MAX_SLICE_NS 200u
/* One step in this many writes a variable; one in this many lets a higher task preempt. */
#define GEN_WRITE_EVERY 64u
#define GEN_PREEMPT_EVERY 256u
/* Variables in the mapping. */
#define GEN_VARIABLES 8u
/* Bytes buffered before each write to the output. */
#define GEN_BUFFER_BYTES (4u << 20)
#define BIN_RECORD_BYTES 24u

enum { EV_EXIT = 0, EV_SUSPEND = 1, EV_RESUME = 2, EV_ENTRY = 3, EV_WRITE = 4 };
static const char event_letters[] = "XSREW";

typedef enum where { TL_NONE, TL_TEXT, TL_BIN10, TL_BIN11 } where_t;

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* xorshift64*: deterministic for a seed, fast, good enough for a workload shape. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* A value below n skewed toward 0: the smaller of two uniform draws. */
static uint32_t skewed(uint32_t n)
{
    uint32_t a = (uint32_t)(rng() % n), b = (uint32_t)(rng() % n);
    return a < b ? a : b;
}

/* ---- Output ------------------------------------------------------------------------------ */

typedef struct out {
    FILE *f;
    const char *path;
    char *buf;
    size_t len;
} out_t;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "lg_gen_winidea: %s %s\n", what, path);
    exit(1);
}

static void out_open(out_t *o, const char *path)
{
    o->path = path;
    o->f = fopen(path, "wb");
    o->buf = malloc(GEN_BUFFER_BYTES);
    o->len = 0;
    if (o->f == NULL || o->buf == NULL)
        die("cannot write", path);
}

static void out_flush(out_t *o)
{
    if (o->len > 0 && fwrite(o->buf, 1, o->len, o->f) != o->len)
        die("cannot write", o->path);
    o->len = 0;
}

static void out_close(out_t *o)
{
    out_flush(o);
    if (fclose(o->f) != 0)
        die("cannot write", o->path);
    free(o->buf);
}

/* Room for n more bytes (n well below GEN_BUFFER_BYTES). */
static char *out_room(out_t *o, size_t n)
{
    if (o->len + n > GEN_BUFFER_BYTES)
        out_flush(o);
    return o->buf + o->len;
}

static void out_printf(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(out_t *o, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line)
        die("line too long for", o->path);
    memcpy(out_room(o, (size_t)n), line, (size_t)n);
    o->len += (size_t)n;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- The program: functions and their callees ------------------------------------------- */

typedef struct func {
    uint32_t callees[GEN_MAX_CALLEES + 1];
    uint32_t ncallees;
    uint32_t first_line, nlines; /* its line areas: handles 0x10000000 + first_line ... */
} func_t;

typedef struct program {
    func_t *funcs;
    uint32_t nfuncs;
    uint32_t ntasks; /* functions 0 .. ntasks-1 are the tasks: core * contexts + context */
    uint32_t nlines;
} program_t;

static void make_program(program_t *p, uint32_t nfuncs, uint32_t ntasks)
{
    p->funcs = calloc(nfuncs, sizeof *p->funcs);
    if (p->funcs == NULL)
        die("out of memory for", "functions");
    p->nfuncs = nfuncs;
    p->ntasks = ntasks;
    uint32_t helpers_from = nfuncs - GEN_HELPERS;
    for (uint32_t i = 0; i < nfuncs; i++) {
        func_t *f = &p->funcs[i];
        f->first_line = p->nlines;
        f->nlines = 1 + (uint32_t)(rng() % 3);
        p->nlines += f->nlines;
        bool task = i < ntasks;
        if (i >= helpers_from || i + 1 >= helpers_from || (!task && rng() % 100 < GEN_LEAF_PCT))
            continue;
        uint32_t n = 1 + (uint32_t)(rng() % GEN_MAX_CALLEES);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t callee;
            if (rng() % 100 < GEN_HELPER_PCT)
                callee = helpers_from + (uint32_t)(rng() % GEN_HELPERS);
            else /* near callees are likelier: a few functions get called from many places */
                callee = (task ? ntasks : i + 1) + skewed(helpers_from - (task ? ntasks : i + 1));
            f->callees[f->ncallees++] = callee;
        }
        if (!task && rng() % 100 < GEN_RECURSIVE_PCT)
            f->callees[f->ncallees++] = i;
    }
}

/* The name of function i: tasks, two same-named statics in different files (written as the
 * winIDEA help shows them), and plain functions. */
static void func_name(const program_t *p, uint32_t i, char *out, size_t size)
{
    if (i < p->ntasks)
        snprintf(out, size, "task%u", i);
    else if (i == p->ntasks || i == p->ntasks + 1)
        snprintf(out, size, "\"mod_%c.c\"#helper", i == p->ntasks ? 'a' : 'b');
    else
        snprintf(out, size, "fn%u", i);
}

#define LINE_HANDLE(k) (0x10000000u + (k))
#define VAR_HANDLE(k) (0x20000000u + (k))
#define AUX_HANDLE 0x40000000u

static void write_text1_mapping(out_t *o, const program_t *p, uint32_t contexts)
{
    char name[64];
    if (contexts > 1) {
        out_printf(o, "* CONTEXTS %%NAME%%,%%HANDLE%%\n");
        for (uint32_t c = 0; c < contexts; c++)
            out_printf(o, "TASK_%u,0x%X\n", c, c);
    }
    out_printf(o, "* HANDLE(Functions) %%HANDLE%%,%%HANDLE.PARENT%%,%%NAME%%,%%VALUE%%,%%FILE%%\n");
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const func_t *f = &p->funcs[i];
        func_name(p, i, name, sizeof name);
        out_printf(o, "%08X,,%s,,\n", i, name);
        for (uint32_t k = 0; k < f->nlines; k++)
            out_printf(o, "%08X,%08X,%s,%u,src%u.c\n", LINE_HANDLE(f->first_line + k), i,
                       k == 0 ? "{" : "x++;", 10 + k, i / 16);
    }
    out_printf(o, "* HANDLE(Data) %%HANDLE%%,%%NAME%%,%%VALUE%%\n");
    for (uint32_t k = 0; k < GEN_VARIABLES; k++)
        out_printf(o, "%08X,var%u,\n", VAR_HANDLE(k), k);
    out_printf(o, "* HANDLE(AUX) %%HANDLE%%,%%NAME%%,%%VALUE%%\n");
    out_printf(o, "%08X,AUX0,\n", AUX_HANDLE);
}

/* Element text needs &, < and > escaped; names here only risk none of them but '"'. */
static void write_xml_mapping(out_t *o, const program_t *p)
{
    char name[64];
    out_printf(o, "  <MAPPING>\n");
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const func_t *f = &p->funcs[i];
        func_name(p, i, name, sizeof name);
        out_printf(o, "    <AREA><HANDLE>0x%08X</HANDLE><NAME>%s</NAME></AREA>\n", i, name);
        for (uint32_t k = 0; k < f->nlines; k++)
            out_printf(o,
                       "    <AREA><HANDLE>0x%08X</HANDLE><HANDLE.PARENT>0x%08X</HANDLE.PARENT>"
                       "<NAME>%s</NAME><VALUE>%u</VALUE><FILE>src%u.c</FILE></AREA>\n",
                       LINE_HANDLE(f->first_line + k), i, k == 0 ? "{" : "x++;", 10 + k, i / 16);
    }
    for (uint32_t k = 0; k < GEN_VARIABLES; k++)
        out_printf(o, "    <AREA><HANDLE>0x%08X</HANDLE><NAME>var%u</NAME></AREA>\n", VAR_HANDLE(k),
                   k);
    out_printf(o, "    <AREA><HANDLE>0x%08X</HANDLE><NAME>AUX0</NAME></AREA>\n", AUX_HANDLE);
    out_printf(o, "  </MAPPING>\n");
}

/* ---- The timeline ------------------------------------------------------------------------ */

typedef struct frame {
    uint32_t func;
    uint32_t calls_left;
} frame_t;

typedef struct task {
    frame_t stack[GEN_MAX_DEPTH];
    uint32_t depth;
} task_t;

typedef struct core {
    task_t *tasks;       /* one per context */
    uint32_t running[8]; /* contexts running, preempted ones first; [nrunning - 1] runs */
    uint32_t nrunning;
    int64_t clock;
} core_t;

typedef struct gen {
    const program_t *p;
    where_t where;
    bool xml;
    out_t *o;
    uint32_t contexts;
    uint64_t events;
} gen_t;

static void emit(gen_t *g, uint32_t handle, unsigned type, uint32_t core, uint32_t context,
                 int64_t time, uint64_t data)
{
    g->events++;
    if (g->where == TL_BIN10 || g->where == TL_BIN11) {
        uint8_t *r = (uint8_t *)out_room(g->o, BIN_RECORD_BYTES);
        uint32_t word = g->where == TL_BIN11 ? core << 4 | type : (uint32_t)type << 24;
        put_le(r, handle, 4);
        put_le(r + 4, word, 4);
        put_le(r + 8, data, 8);
        put_le(r + 16, (uint64_t)time, 8);
        g->o->len += BIN_RECORD_BYTES;
        return;
    }
    char value[16] = "";
    if (type == EV_WRITE)
        snprintf(value, sizeof value, "%08" PRIX64, data);
    if (g->xml) {
        out_printf(g->o,
                   "    <T><HANDLE>0x%08X</HANDLE><EVENT>%c</EVENT><VALUE>%s</VALUE>"
                   "<TIME>%" PRId64 "</TIME><CORE>%u</CORE>",
                   handle, event_letters[type], value, time, core);
        if (g->contexts > 1)
            out_printf(g->o, "<CONTEXT>TASK_%u</CONTEXT>", context);
        out_printf(g->o, "</T>\n");
    } else if (g->contexts > 1) {
        out_printf(g->o, "%08X,%c,%s,%" PRId64 ",%u,TASK_%u\n", handle, event_letters[type], value,
                   time, core, context);
    } else {
        out_printf(g->o, "%08X,%c,%s,%" PRId64 ",%u\n", handle, event_letters[type], value, time,
                   core);
    }
}

static uint32_t calls_of(const program_t *p, uint32_t func)
{
    return p->funcs[func].ncallees == 0 ? 0 : (uint32_t)(rng() % (GEN_MAX_CALLS + 1));
}

static void push(gen_t *g, task_t *t, uint32_t func)
{
    t->stack[t->depth++] = (frame_t){func, calls_of(g->p, func)};
}

/* One step of core c: a call, a return, or a preemption starting or ending. closing: only
 * return, until nothing runs. Returns false when the core has nothing left to do. */
static bool step(gen_t *g, core_t *core, uint32_t c, bool closing)
{
    const program_t *p = g->p;
    if (core->nrunning == 0)
        return false;
    uint32_t ctx = core->running[core->nrunning - 1];
    task_t *t = &core->tasks[ctx];
    int64_t now = core->clock;
    core->clock += 5 + (int64_t)(rng() % GEN_MAX_SLICE_NS);
    if (t->depth == 0) { /* the core's first task starts */
        if (closing) {
            core->nrunning = 0;
            return false;
        }
        push(g, t, c * g->contexts);
        emit(g, c * g->contexts, EV_ENTRY, c, 0, now, 0);
        return true;
    }
    if (!closing && rng() % GEN_WRITE_EVERY == 0) {
        uint32_t v = (uint32_t)(rng() % GEN_VARIABLES);
        emit(g, VAR_HANDLE(v), EV_WRITE, c, ctx, now, rng() & 0xFFFFFFFFu);
    }
    frame_t *top = &t->stack[t->depth - 1];
    if (!closing && ctx + 1 < g->contexts && rng() % GEN_PREEMPT_EVERY == 0) {
        /* A higher task preempts: this one is suspended while it runs one job. */
        uint32_t hi = ctx + 1 + (uint32_t)(rng() % (g->contexts - ctx - 1));
        task_t *h = &core->tasks[hi];
        emit(g, top->func, EV_SUSPEND, c, ctx, now, 0);
        uint32_t root = c * g->contexts + hi;
        h->depth = 0;
        push(g, h, root);
        h->stack[0].calls_left = 1 + (uint32_t)(rng() % GEN_MAX_CALLS);
        emit(g, root, EV_ENTRY, c, hi, now, 0);
        core->running[core->nrunning++] = hi;
        return true;
    }
    bool base_task = ctx == 0 && t->depth == 1 && !closing;
    if (base_task && top->calls_left == 0)
        top->calls_left = 1 + (uint32_t)(rng() % GEN_MAX_CALLS); /* tasks loop forever */
    if (!closing && top->calls_left > 0 && t->depth < GEN_MAX_DEPTH) {
        top->calls_left--;
        const func_t *f = &p->funcs[top->func];
        uint32_t callee = f->callees[skewed(f->ncallees)];
        emit(g, top->func, EV_SUSPEND, c, ctx, now, 0);
        emit(g, callee, EV_ENTRY, c, ctx, now, 0);
        push(g, t, callee);
        return true;
    }
    emit(g, top->func, EV_EXIT, c, ctx, now, 0);
    t->depth--;
    if (t->depth > 0) {
        emit(g, t->stack[t->depth - 1].func, EV_RESUME, c, ctx, now, 0);
        return true;
    }
    /* The task's job ended: the task it preempted resumes. */
    core->nrunning--;
    if (core->nrunning > 0) {
        uint32_t low = core->running[core->nrunning - 1];
        task_t *l = &core->tasks[low];
        emit(g, l->stack[l->depth - 1].func, EV_RESUME, c, low, now, 0);
    }
    return true;
}

/* The core whose next event is earliest, or -1 when none has one. */
static int next_core(const core_t *cores, uint32_t n)
{
    int best = -1;
    for (uint32_t c = 0; c < n; c++)
        if (cores[c].nrunning > 0 && (best < 0 || cores[c].clock < cores[best].clock))
            best = (int)c;
    return best;
}

static void write_timeline(gen_t *g, uint32_t ncores, uint64_t target, bool cut)
{
    core_t *cores = calloc(ncores, sizeof *cores);
    if (cores == NULL)
        die("out of memory for", "cores");
    for (uint32_t c = 0; c < ncores; c++) {
        cores[c].tasks = calloc(g->contexts, sizeof *cores[c].tasks);
        if (cores[c].tasks == NULL)
            die("out of memory for", "tasks");
        cores[c].clock = 1000 + (int64_t)(rng() % 100);
        cores[c].running[cores[c].nrunning++] = 0;
    }
    for (int c; g->events < target && (c = next_core(cores, ncores)) >= 0;)
        step(g, &cores[c], (uint32_t)c, false);
    if (!cut)
        for (int c; (c = next_core(cores, ncores)) >= 0;)
            step(g, &cores[c], (uint32_t)c, true);
    for (uint32_t c = 0; c < ncores; c++)
        free(cores[c].tasks);
    free(cores);
}

/* ---- Command line ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: lg_gen_winidea [--functions N] [--events N | --bin-bytes SIZE] "
                    "[--cores N] [--contexts N] [--seed N] [--main text1|xml] "
                    "[--timeline text|bin1.0|bin1.1|none] [--cut] MAIN\n");
    exit(2);
}

static uint64_t number(const char *s)
{
    char *end;
    uint64_t v = strtoull(s, &end, 10);
    uint64_t scale = *end == 'K' ? 1u << 10 : *end == 'M' ? 1u << 20 : *end == 'G' ? 1u << 30 : 1;
    if (end == s || (scale > 1 ? end[1] != '\0' : *end != '\0'))
        usage();
    return v * scale;
}

int main(int argc, char **argv)
{
    uint64_t nfuncs = 2000, events = 100000, bin_bytes = 0, ncores = 2, contexts = 1, seed = 1;
    bool xml = false, cut = false;
    where_t where = TL_BIN11;
    const char *main_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(a, "--cut") == 0)
            cut = true;
        else if (strcmp(a, "--functions") == 0 && more)
            nfuncs = number(argv[++i]);
        else if (strcmp(a, "--events") == 0 && more)
            events = number(argv[++i]);
        else if (strcmp(a, "--bin-bytes") == 0 && more)
            bin_bytes = number(argv[++i]);
        else if (strcmp(a, "--cores") == 0 && more)
            ncores = number(argv[++i]);
        else if (strcmp(a, "--contexts") == 0 && more)
            contexts = number(argv[++i]);
        else if (strcmp(a, "--seed") == 0 && more)
            seed = number(argv[++i]);
        else if (strcmp(a, "--main") == 0 && more) {
            const char *m = argv[++i];
            if (strcmp(m, "xml") != 0 && strcmp(m, "text1") != 0)
                usage();
            xml = strcmp(m, "xml") == 0;
        } else if (strcmp(a, "--timeline") == 0 && more) {
            const char *w = argv[++i];
            where = strcmp(w, "text") == 0     ? TL_TEXT
                    : strcmp(w, "bin1.0") == 0 ? TL_BIN10
                    : strcmp(w, "bin1.1") == 0 ? TL_BIN11
                    : strcmp(w, "none") == 0   ? TL_NONE
                                               : (usage(), TL_NONE);
        } else if (a[0] != '-' && main_path == NULL)
            main_path = a;
        else
            usage();
    }
    if (main_path == NULL || ncores < 1 || ncores > 255 || contexts < 1 || contexts > 8)
        usage();
    if (bin_bytes > 0)
        events = bin_bytes / BIN_RECORD_BYTES;
    uint64_t ntasks = ncores * contexts;
    if (nfuncs < ntasks + GEN_HELPERS + 4 || nfuncs > 0x0FFFFFFFu)
        usage();
    rng_state = seed * 0x9e3779b97f4a7c15u | 1u;

    program_t p = {0};
    make_program(&p, (uint32_t)nfuncs, (uint32_t)ntasks);
    out_t main_out, bin_out;
    out_open(&main_out, main_path);
    if (xml) {
        out_printf(&main_out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ProfilerExport>\n");
        write_xml_mapping(&main_out, &p);
    } else {
        write_text1_mapping(&main_out, &p, (uint32_t)contexts);
    }
    gen_t g = {&p, where, xml, &main_out, (uint32_t)contexts, 0};
    if (where == TL_TEXT) {
        if (xml)
            out_printf(&main_out, "  <TIMELINE>\n");
        else if (contexts > 1)
            out_printf(&main_out,
                       "* TIMELINE %%HANDLE%%,%%EVENT%%,%%VALUE%%,%%TIME%%,%%CORE%%,%%CONTEXT%%\n");
        else
            out_printf(&main_out, "* TIMELINE %%HANDLE%%,%%EVENT%%,%%VALUE%%,%%TIME%%,%%CORE%%\n");
        write_timeline(&g, (uint32_t)ncores, events, cut);
        if (xml)
            out_printf(&main_out, "  </TIMELINE>\n");
    } else if (where != TL_NONE) {
        char *bin_path = malloc(strlen(main_path) + sizeof ".BIN");
        if (bin_path == NULL)
            die("out of memory for", main_path);
        sprintf(bin_path, "%s.BIN", main_path);
        out_open(&bin_out, bin_path);
        g.o = &bin_out;
        write_timeline(&g, (uint32_t)ncores, events, cut);
        out_close(&bin_out);
        free(bin_path);
    }
    if (xml)
        out_printf(&main_out, "</ProfilerExport>\n");
    out_close(&main_out);
    fprintf(stderr, "lg_gen_winidea: %" PRIu64 " functions, %" PRIu64 " events\n", nfuncs,
            g.events);
    free(p.funcs);
    return 0;
}
