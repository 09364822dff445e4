/* dump_profile.c - lg_dump_profile FILE...: what the loaders understood of each profile, as text,
 * for the golden files of tests/fixtures/golden/ (tests/golden_loads.sh compares them).
 *
 * Each file is detected and loaded as lorgen would (registry.h, default options) and printed
 * whole: the profile's header fields, every function, call edge and proximity pair, the
 * per-position costs and jumps, and the diagnostics. A change in any reader then shows as a diff
 * of a golden file. Lists longer than DUMP_ROWS_MAX are cut after that many rows and end in a
 * line with their count and a checksum over every row, so a large fixture keeps a small golden
 * file and a change past the cut still shows. Exit status 0 whether a load succeeded or not (the
 * golden file says which); 2 on a usage error.
 */
#include "diag.h"
#include "profile.h"
#include "registry.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Rows of one list printed before it is cut (the rest counted and checksummed). */
#define DUMP_ROWS_MAX 200u

/* FNV-1a, 64 bits: a checksum of the rows a golden file does not list. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv_bytes(h, b, sizeof b);
}

/* A name in double quotes, bytes outside printable ASCII and the quote and backslash as \xHH,
 * so that every golden file is plain ASCII; "-" for NULL. */
static void put_name(const char *s)
{
    if (s == NULL) {
        fputs("-", stdout);
        return;
    }
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
        if (*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\')
            putchar(*c);
        else
            printf("\\x%02x", *c);
    }
    putchar('"');
}

/* The heading of a list of n rows. */
static void put_list(const char *title, size_t n)
{
    printf("%s: %zu\n", title, n);
}

/* The end of a list of n rows: the count and checksum of the rows past the cut. */
static void put_rest(size_t n, uint64_t h)
{
    if (n > DUMP_ROWS_MAX)
        printf("  ... %zu more, fnv1a %016" PRIx64 "\n", n - DUMP_ROWS_MAX, h);
}

static void dump_functions(const lg_profile_t *p)
{
    put_list("functions", p->nfuncs);
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < p->nfuncs; i++) {
        const lg_pfunc_t *f = &p->funcs[i];
        if (i >= DUMP_ROWS_MAX) {
            const char *strings[] = {f->name, f->link_label, f->qual_name, f->object};
            for (size_t k = 0; k < 4; k++)
                h = strings[k] ? fnv_bytes(h, strings[k], strlen(strings[k]) + 1) : fnv_u64(h, 0);
            const uint64_t values[] = {f->hits,           f->counter1_total, f->counter1_self,
                                       f->counter2_total, f->counter2_self,  f->pc_min,
                                       f->pc_max,         f->description,    f->attributes};
            for (size_t k = 0; k < sizeof values / sizeof *values; k++)
                h = fnv_u64(h, values[k]);
            continue;
        }
        printf("  #%zu ", i);
        put_name(f->name);
        fputs(" label=", stdout);
        put_name(f->link_label);
        fputs(" qual=", stdout);
        put_name(f->qual_name);
        fputs(" object=", stdout);
        put_name(f->object);
        printf(" hits=%" PRIu64 " c1=%" PRIu64 "/%" PRIu64 " c2=%" PRIu64 "/%" PRIu64
               " pc=0x%" PRIx64 "-0x%" PRIx64 " desc=%u attr=%u\n",
               f->hits, f->counter1_total, f->counter1_self, f->counter2_total, f->counter2_self,
               f->pc_min, f->pc_max, (unsigned)f->description, (unsigned)f->attributes);
    }
    put_rest(p->nfuncs, h);
}

/* One row of the edges or proximity pairs: two function indexes and a weight; rows past the
 * cut go into *h. */
static void put_pair(size_t i, uint32_t a, const char *sep, uint32_t b, uint64_t w, uint64_t *h)
{
    if (i < DUMP_ROWS_MAX)
        printf("  #%" PRIu32 " %s #%" PRIu32 " %" PRIu64 "\n", a, sep, b, w);
    else
        *h = fnv_u64(fnv_u64(fnv_u64(*h, a), b), w);
}

static void dump_pairs(const lg_profile_t *p)
{
    uint64_t h = FNV_OFFSET;
    put_list("edges", p->nedges);
    for (size_t i = 0; i < p->nedges; i++)
        put_pair(i, p->edges[i].caller, "->", p->edges[i].callee, p->edges[i].weight, &h);
    put_rest(p->nedges, h);
    h = FNV_OFFSET;
    put_list("proximity", p->nproximity);
    for (size_t i = 0; i < p->nproximity; i++)
        put_pair(i, p->proximity[i].a, "~", p->proximity[i].b, p->proximity[i].weight, &h);
    put_rest(p->nproximity, h);
}

static void dump_costs(const lg_profile_t *p)
{
    static const char *const kinds[] = {"none", "address", "line"};
    put_list("costs", p->ncosts);
    printf("  positions: %s\n", p->cost_positions <= LG_POS_LINE ? kinds[p->cost_positions] : "?");
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < p->ncosts; i++) {
        const lg_pcost_t *c = &p->costs[i];
        if (i < DUMP_ROWS_MAX)
            printf("  #%" PRIu32 " @0x%" PRIx64 " %" PRIu64 "\n", c->func, c->position, c->cost);
        else
            h = fnv_u64(fnv_u64(fnv_u64(h, c->func), c->position), c->cost);
    }
    put_rest(p->ncosts, h);
    put_list("jumps", p->njumps);
    h = FNV_OFFSET;
    for (size_t i = 0; i < p->njumps; i++) {
        const lg_pjump_t *j = &p->jumps[i];
        if (i < DUMP_ROWS_MAX)
            printf("  #%" PRIu32 " 0x%" PRIx64 " -> 0x%" PRIx64 " %" PRIu64 "\n", j->func, j->from,
                   j->to, j->count);
        else
            h = fnv_u64(fnv_u64(fnv_u64(fnv_u64(h, j->func), j->from), j->to), j->count);
    }
    put_rest(p->njumps, h);
}

static void dump_diagnostics(const lg_diag_t *d)
{
    static const char *const severities[] = {"note", "warning", "error", "alert"};
    printf("diagnostics: %zu (errors %zu, warnings %zu, dropped %zu)\n", d->count, d->errors,
           d->warnings, d->dropped);
    for (size_t i = 0; i < d->count; i++) {
        const lg_diag_entry_t *e = &d->entries[i];
        printf("  %s: %s: %s\n", e->severity <= LG_ALERT ? severities[e->severity] : "?", e->where,
               e->message);
    }
}

static void dump_profile(const lg_profile_t *p)
{
    printf("format: %s\n", p->format ? p->format : "-");
    printf("path: %s\n", p->path ? p->path : "-");
    printf("kind: %s\n", p->kind == LG_PROFILE_TRACE ? "trace" : "statistical");
    printf("call edges: %s\n", p->has_call_edges ? "yes" : "no");
    printf("timeline: %s\n", p->has_timeline ? "yes" : "no");
    printf("counter1: kind %u unit %s\n", (unsigned)p->counter1_kind,
           p->counter1_unit ? p->counter1_unit : "-");
    printf("counter2: kind %u\n", (unsigned)p->counter2_kind);
    printf("total hits: %" PRIu64 "\n", p->total_hits);
    printf("call records: %" PRIu64 "\n", p->call_records);
    dump_functions(p);
    dump_pairs(p);
    dump_costs(p);
}

/* Detects path's format from its first bytes, as lorgen does, and loads it; prints the result. */
static void dump_file(const char *path)
{
    printf("file: %s\n", path);
    uint8_t head[LG_PROBE_BYTES];
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    const lg_loader_t *loader = lg_loader_detect(head, n);
    if (loader == NULL) {
        puts("detected: none (no loader accepts its first bytes)");
        return;
    }
    printf("detected: %s\n", loader->name);
    lg_profile_t p;
    lg_diag_t d;
    lg_profile_init(&p);
    lg_diag_init(&d);
    lg_err_t err = lg_loader_load(loader, path, NULL, &p, &d);
    printf("result: %s\n", err == LG_OK ? "ok" : lg_strerror(err));
    dump_profile(&p);
    dump_diagnostics(&d);
    lg_profile_destroy(&p);
    lg_diag_destroy(&d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: lg_dump_profile FILE...\n", stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        dump_file(argv[i]);
    return 0;
}
