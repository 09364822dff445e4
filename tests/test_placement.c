/* test_placement.c - cache-aware placement: hot cliques kept off each other's cache sets, gaps
 * filled with cold code or padded, associativity, the cases where nothing moves, errors, the
 * invariants and determinism on random programs, and the estimated misses before and after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "clique.h"
#include "layout.h"
#include "mem.h"
#include "placement.h"
#include "program.h"

#if defined(__has_include)
#if __has_include("estimate.h")
#include "estimate.h"
#define HAVE_ESTIMATE 1
#endif
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 32u /* bytes: every geometry here uses 32-byte lines */

/* ---- building programs and layouts by hand ---------------------------------------------- */

typedef struct fn_spec {
    const char *name;
    uint64_t size;  /* bytes */
    uint64_t align; /* bytes; 0 or 1 = none */
    uint64_t hits;
    uint64_t counter; /* counter1_self */
    uint32_t flags;   /* LG_FN_* */
} fn_spec_t;

/* Fills p with the functions (input order), no arcs; strings are malloc'd so that
 * lg_program_destroy frees them. */
static void make_program(lg_program_t *p, const fn_spec_t *fns, size_t n)
{
    lg_program_init(p);
    p->fns = calloc(n ? n : 1, sizeof *p->fns);
    assert_non_null(p->fns);
    p->nfns = n;
    for (size_t i = 0; i < n; i++) {
        lg_fn_t *f = &p->fns[i];
        char section[256];
        snprintf(section, sizeof section, ".text.%s", fns[i].name);
        f->symbol = strdup(fns[i].name);
        f->section = strdup(section);
        assert_non_null(f->symbol);
        assert_non_null(f->section);
        f->address = UINT64_MAX;
        f->size = fns[i].size;
        f->align = fns[i].align;
        f->hits = fns[i].hits;
        f->counter1_self = fns[i].counter;
        f->flags = fns[i].flags;
        f->input_order = (uint32_t)i;
    }
    p->arcs = calloc(1, sizeof *p->arcs);
    assert_non_null(p->arcs);
}

#define MAKE(p, fns) make_program((p), (fns), sizeof(fns) / sizeof((fns)[0]))

static uint32_t find_fn(const lg_program_t *p, const char *name, size_t len)
{
    for (uint32_t i = 0; i < p->nfns; i++)
        if (strlen(p->fns[i].symbol) == len && strncmp(p->fns[i].symbol, name, len) == 0)
            return i;
    fail_msg("no function named %.*s in the test program", (int)len, name);
    return 0;
}

/* Parses space-separated names into idx (malloc'd); returns the count. */
static size_t parse_names(const lg_program_t *p, const char *s, uint32_t **idx)
{
    size_t n = 0, cap = 8;
    *idx = malloc(cap * sizeof **idx);
    assert_non_null(*idx);
    while (*s) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        if (e > s) {
            if (n == cap) {
                cap *= 2;
                *idx = realloc(*idx, cap * sizeof **idx);
                assert_non_null(*idx);
            }
            (*idx)[n++] = find_fn(p, s, (size_t)(e - s));
        }
        s = e;
    }
    return n;
}

static uint64_t fresh_bytes(const lg_program_t *p, const uint32_t *fns, size_t n)
{
    uint64_t end = 0;
    for (size_t k = 0; k < n; k++)
        end = lg_fn_end_after(end, &p->fns[fns[k]]);
    return end;
}

/* A layout as a pass would leave it: cliques "a b|c|d" in that link order, cold and excluded
 * lists "x y" (given in input order). */
static void make_layout(const lg_program_t *p, lg_geometry_t g, const char *cliques,
                        const char *cold, const char *excluded, lg_layout_t *l)
{
    lg_layout_init(l);
    l->geometry = g;
    l->algorithm = "cliques";
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", cliques);
    size_t n = 1;
    for (const char *c = buf; *c; c++)
        n += *c == '|';
    l->cliques = calloc(n, sizeof *l->cliques);
    assert_non_null(l->cliques);
    char *save = NULL;
    for (char *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
        lg_clique_t *c = &l->cliques[l->ncliques++];
        c->nfns = parse_names(p, tok, &c->fns);
        c->bytes = fresh_bytes(p, c->fns, c->nfns);
        for (size_t k = 0; k < c->nfns; k++)
            c->hits += p->fns[c->fns[k]].hits;
    }
    l->ncold = parse_names(p, cold, &l->cold);
    l->nexcluded = parse_names(p, excluded, &l->excluded);
}

static void copy_layout(const lg_layout_t *src, lg_layout_t *dst)
{
    *dst = *src;
    dst->cliques = calloc(src->ncliques ? src->ncliques : 1, sizeof *dst->cliques);
    dst->cold = malloc((src->ncold ? src->ncold : 1) * sizeof *dst->cold);
    dst->excluded = malloc((src->nexcluded ? src->nexcluded : 1) * sizeof *dst->excluded);
    assert_true(dst->cliques && dst->cold && dst->excluded);
    for (size_t c = 0; c < src->ncliques; c++) {
        dst->cliques[c] = src->cliques[c];
        dst->cliques[c].fns = malloc(src->cliques[c].nfns * sizeof(uint32_t) + 1);
        assert_non_null(dst->cliques[c].fns);
        if (src->cliques[c].nfns)
            memcpy(dst->cliques[c].fns, src->cliques[c].fns,
                   src->cliques[c].nfns * sizeof(uint32_t));
    }
    if (src->ncold)
        memcpy(dst->cold, src->cold, src->ncold * sizeof *dst->cold);
    if (src->nexcluded)
        memcpy(dst->excluded, src->excluded, src->nexcluded * sizeof *dst->excluded);
}

static void assert_same_layout(const lg_layout_t *a, const lg_layout_t *b)
{
    assert_int_equal(a->ncliques, b->ncliques);
    for (size_t c = 0; c < a->ncliques; c++) {
        assert_int_equal(a->cliques[c].nfns, b->cliques[c].nfns);
        if (a->cliques[c].nfns)
            assert_memory_equal(a->cliques[c].fns, b->cliques[c].fns,
                                a->cliques[c].nfns * sizeof *a->cliques[c].fns);
        assert_true(a->cliques[c].bytes == b->cliques[c].bytes);
        assert_true(a->cliques[c].hits == b->cliques[c].hits);
        assert_int_equal(a->cliques[c].flags, b->cliques[c].flags);
        assert_true(a->cliques[c].pad_before == b->cliques[c].pad_before);
    }
    assert_int_equal(a->ncold, b->ncold);
    if (a->ncold)
        assert_memory_equal(a->cold, b->cold, a->ncold * sizeof *a->cold);
    assert_int_equal(a->nexcluded, b->nexcluded);
    if (a->nexcluded)
        assert_memory_equal(a->excluded, b->excluded, a->nexcluded * sizeof *a->excluded);
    assert_true(a->section_align == b->section_align);
}

/* The symbols of idx[0..n), separated by spaces (static storage). */
static const char *names(const lg_program_t *p, const uint32_t *idx, size_t n)
{
    static char buf[4096];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "",
                                p->fns[idx[i]].symbol);
    return buf;
}

static const char *clique_names(const lg_program_t *p, const lg_layout_t *l, size_t c)
{
    assert_true(c < l->ncliques);
    return names(p, l->cliques[c].fns, l->cliques[c].nfns);
}

/* Section offsets of the functions' code as the linker script places them: from 0 (aligned to
 * section_align), per clique pad_before bytes and then its members, each at lg_start_after of
 * its alignment and phase; every function no clique
 * holds gets UINT64_MAX. */
static void offsets(const lg_program_t *p, const lg_layout_t *l, uint64_t *off)
{
    for (size_t i = 0; i < p->nfns; i++)
        off[i] = UINT64_MAX;
    uint64_t end = 0;
    for (size_t c = 0; c < l->ncliques; c++) {
        end += l->cliques[c].pad_before;
        for (size_t k = 0; k < l->cliques[c].nfns; k++) {
            const lg_fn_t *f = &p->fns[l->cliques[c].fns[k]];
            off[l->cliques[c].fns[k]] = lg_start_after(end, f->align, f->lead);
            end = lg_fn_end_after(end, f);
        }
    }
}

/* Sets (of a cache with nsets sets of LINE bytes) that the functions of clique c occupy. */
static void clique_sets(const lg_program_t *p, const lg_layout_t *l, size_t c, const uint64_t *off,
                        uint32_t nsets, bool *sets)
{
    memset(sets, 0, nsets * sizeof *sets);
    for (size_t k = 0; k < l->cliques[c].nfns; k++) {
        uint32_t i = l->cliques[c].fns[k];
        if (p->fns[i].size == 0)
            continue;
        for (uint64_t ln = off[i] / LINE; ln <= (off[i] + p->fns[i].size - 1) / LINE; ln++)
            sets[ln % nsets] = true;
    }
}

/* True when the cliques holding functions fa and fb share a cache set. */
static bool share_sets(const lg_program_t *p, const lg_layout_t *l, const char *fa, const char *fb,
                       uint32_t nsets)
{
    uint64_t *off = calloc(p->nfns, sizeof *off);
    bool *sa = calloc(nsets, sizeof *sa), *sb = calloc(nsets, sizeof *sb);
    assert_true(off && sa && sb);
    offsets(p, l, off);
    uint32_t ia = find_fn(p, fa, strlen(fa)), ib = find_fn(p, fb, strlen(fb));
    size_t ca = SIZE_MAX, cb = SIZE_MAX;
    for (size_t c = 0; c < l->ncliques; c++)
        for (size_t k = 0; k < l->cliques[c].nfns; k++) {
            if (l->cliques[c].fns[k] == ia)
                ca = c;
            if (l->cliques[c].fns[k] == ib)
                cb = c;
        }
    assert_true(ca != SIZE_MAX && cb != SIZE_MAX);
    clique_sets(p, l, ca, off, nsets, sa);
    clique_sets(p, l, cb, off, nsets, sb);
    bool shared = false;
    for (uint32_t s = 0; s < nsets; s++)
        shared |= sa[s] && sb[s];
    free(off);
    free(sa);
    free(sb);
    return shared;
}

static uint64_t total_pad(const lg_layout_t *l)
{
    uint64_t t = 0;
    for (size_t c = 0; c < l->ncliques; c++)
        t += l->cliques[c].pad_before;
    return t;
}

/* Everything lg_place_for_cache promises about `after`, placed from `before` (a copy taken
 * before the call) for geometry g. */
static void check_placed(const lg_program_t *p, const lg_layout_t *before, const lg_layout_t *after,
                         lg_geometry_t g)
{
    uint32_t way = g.cache_size / g.ways;
    unsigned *seen = calloc(p->nfns ? p->nfns : 1, sizeof *seen);
    bool *was_cold = calloc(p->nfns ? p->nfns : 1, sizeof *was_cold);
    bool *filler = calloc(p->nfns ? p->nfns : 1, sizeof *filler);
    bool *matched = calloc(before->ncliques ? before->ncliques : 1, sizeof *matched);
    assert_true(seen && was_cold && filler && matched);
    for (size_t k = 0; k < before->ncold; k++)
        was_cold[before->cold[k]] = true;

    assert_int_equal(after->section_align, way);
    uint64_t hot_bytes = 0;
    size_t nhot = 0;
    for (size_t c = 0; c < after->ncliques; c++) {
        const lg_clique_t *cl = &after->cliques[c];
        assert_true(cl->nfns >= 1);
        uint64_t hits = 0;
        for (size_t k = 0; k < cl->nfns; k++) {
            uint32_t i = cl->fns[k];
            assert_true(i < p->nfns);
            seen[i]++;
            hits += p->fns[i].hits;
        }
        assert_true(cl->hits == hits);
        assert_true(cl->bytes == fresh_bytes(p, cl->fns, cl->nfns));
        if (cl->flags & LG_CLIQUE_FILLER) {
            assert_int_equal(cl->flags, LG_CLIQUE_FILLER);
            assert_true(cl->hits == 0);
            assert_true(cl->pad_before == 0);
            for (size_t k = 0; k < cl->nfns; k++) {
                assert_true(was_cold[cl->fns[k]]);
                assert_true(lg_fn_movable(&p->fns[cl->fns[k]]));
                filler[cl->fns[k]] = true;
            }
            /* A filler clique is followed by the hot clique it moves. */
            assert_true(c + 1 < after->ncliques);
            assert_false(after->cliques[c + 1].flags & LG_CLIQUE_FILLER);
            continue;
        }
        /* A hot clique: one of the layout's, members in the same order. */
        nhot++;
        hot_bytes += cl->bytes;
        bool found = false;
        for (size_t o = 0; o < before->ncliques && !found; o++) {
            const lg_clique_t *ob = &before->cliques[o];
            if (matched[o] || ob->nfns != cl->nfns ||
                memcmp(ob->fns, cl->fns, cl->nfns * sizeof *cl->fns) != 0)
                continue;
            assert_int_equal(ob->flags, cl->flags);
            matched[o] = found = true;
        }
        assert_true(found);
    }
    assert_int_equal(nhot, before->ncliques);
    /* Cold: the old cold list without the filler, same order. */
    size_t k2 = 0;
    for (size_t k = 0; k < before->ncold; k++) {
        if (filler[before->cold[k]])
            continue;
        assert_true(k2 < after->ncold);
        assert_int_equal(after->cold[k2], before->cold[k]);
        k2++;
    }
    assert_int_equal(k2, after->ncold);
    for (size_t k = 0; k < after->ncold; k++)
        seen[after->cold[k]]++;
    assert_int_equal(after->nexcluded, before->nexcluded);
    for (size_t k = 0; k < after->nexcluded; k++) {
        assert_int_equal(after->excluded[k], before->excluded[k]);
        seen[after->excluded[k]]++;
    }
    for (size_t i = 0; i < p->nfns; i++)
        assert_int_equal(seen[i], 1); /* every function exactly once */
    assert_true(total_pad(after) * 100 <= hot_bytes * LG_PLACE_MAX_PAD_PERCENT);
    free(seen);
    free(was_cold);
    free(filler);
    free(matched);
}

/* Runs the placement on l, expecting LG_OK, and checks the invariants. */
static void place_ok(const lg_program_t *p, lg_geometry_t g, lg_layout_t *l, lg_diag_t *d)
{
    lg_layout_t before;
    copy_layout(l, &before);
    lg_err_t err = lg_place_for_cache(p, &g, l, d);
    if (err != LG_OK && d != NULL)
        lg_test_diag_dump(d);
    assert_int_equal(err, LG_OK);
    check_placed(p, &before, l, g);
    lg_layout_destroy(&before);
}

static lg_geometry_t geometry(uint32_t cache_size, uint32_t ways)
{
    return (lg_geometry_t){cache_size, LINE, ways};
}

/* ---- scenarios -------------------------------------------------------------------------- */

/* A direct-mapped 1 KiB cache (32 sets). a and b run together and are the hottest by counter
 * data (a > b > c), but by hits the layout has c between them, which puts b on a's sets. c is
 * small and hot per line: 1200 over 4 lines, against a's 3000 and b's 2000 over 16 lines each,
 * so on a's sets it would cost min(300, 187.5) per line and on b's min(300, 125). */
static const fn_spec_t trio_fns[] = {
    {"a", 512, 4, 300, 3000, 0}, {"c", 128, 4, 200, 1200, 0},
    {"b", 512, 4, 100, 2000, 0}, {"z300", 300, 1, 0, 0, 0},
    {"z0", 0, 1, 0, 0, 0},       {"zs", 400, 1, 0, 0, LG_FN_SHARED_SECTION},
    {"z212", 212, 1, 0, 0, 0},   {"z100", 100, 1, 0, 0, 0},
    {"z50", 50, 1, 0, 0, 0},
};

static void test_hot_cliques_avoid_each_others_sets(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, trio_fns);
    lg_geometry_t g = geometry(1024, 1);
    lg_layout_t l;
    make_layout(&p, g, "a|c|b", "z300 z0 zs z212 z100 z50", "", &l);
    assert_true(share_sets(&p, &l, "a", "b", 32)); /* the problem: b on a's sets */
    lg_diag_t d;
    lg_diag_init(&d);
    place_ok(&p, g, &l, &d);

    /* By heat: a, b, then c, moved past b's sets onto b's (cooler than a's) with the gap
     * filled exactly by the two largest cold functions that fit. */
    assert_int_equal(l.ncliques, 4);
    assert_string_equal(clique_names(&p, &l, 0), "a");
    assert_string_equal(clique_names(&p, &l, 1), "b");
    assert_string_equal(clique_names(&p, &l, 2), "z300 z212");
    assert_int_equal(l.cliques[2].flags, LG_CLIQUE_FILLER);
    assert_int_equal(l.cliques[2].bytes, 512);
    assert_int_equal(l.cliques[2].hits, 0);
    assert_string_equal(clique_names(&p, &l, 3), "c");
    assert_int_equal(l.cliques[3].pad_before, 0);
    assert_int_equal(l.section_align, 1024);
    assert_string_equal(names(&p, l.cold, l.ncold), "z0 zs z100 z50");

    assert_false(share_sets(&p, &l, "a", "b", 32));
    assert_false(share_sets(&p, &l, "a", "c", 32));
    assert_true(share_sets(&p, &l, "b", "c", 32));
    assert_int_equal(d.count, 1);
    assert_true(lg_test_diag_has(&d, LG_NOTE,
                                 "placement added 0 bytes of padding (512 bytes of cold code "
                                 "used as filler)"));
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_gap_without_filler_becomes_padding(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, trio_fns);
    lg_geometry_t g = geometry(1024, 1);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l;

    /* No cold function at all: the whole gap is padding. */
    make_layout(&p, g, "a|c|b", "", "z300 z0 zs z212 z100 z50", &l);
    place_ok(&p, g, &l, &d);
    assert_int_equal(l.ncliques, 3);
    assert_string_equal(clique_names(&p, &l, 2), "c");
    assert_int_equal(l.cliques[2].pad_before, 512);
    assert_false(share_sets(&p, &l, "a", "c", 32));
    assert_int_equal(d.count, 1);
    assert_true(lg_test_diag_has(&d, LG_NOTE,
                                 "placement added 512 bytes of padding (0 bytes "
                                 "of cold code used as filler)"));
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);

    /* Only functions too large, unmovable or empty: the same. */
    lg_diag_init(&d);
    make_layout(&p, g, "a|c|b", "z0 zs", "z300 z212 z100 z50", &l);
    place_ok(&p, g, &l, &d);
    assert_int_equal(l.ncliques, 3);
    assert_int_equal(l.cliques[2].pad_before, 512);
    assert_string_equal(names(&p, l.cold, l.ncold), "z0 zs");
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);

    /* Partly filled, largest first: z300, then z100 in the 212 bytes left, then z50, leaving
     * 62 bytes of padding. */
    lg_diag_init(&d);
    make_layout(&p, g, "a|c|b", "z300 z100 z50", "z0 zs z212", &l);
    place_ok(&p, g, &l, &d);
    assert_int_equal(l.ncliques, 4);
    assert_string_equal(clique_names(&p, &l, 2), "z300 z100 z50");
    assert_int_equal(l.cliques[3].pad_before, 62);
    assert_false(share_sets(&p, &l, "a", "c", 32));
    assert_int_equal(l.ncold, 0);
    assert_true(lg_test_diag_has(&d, LG_NOTE,
                                 "placement added 62 bytes of padding (450 bytes "
                                 "of cold code used as filler)"));
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_alignment_is_respected(void **state)
{
    (void)state;
    /* c's members are 64-aligned and the filler 16-aligned: the offsets the pass chose must be
     * where the linker puts them. b (natural offset 500) would share a's last line: a 12-byte
     * pad moves it to set 16. c would land on a's sets at 1024; hotter per line than b but
     * cooler than a, it goes to 1536 (b's sets),
     * after y and y2, which end at 1530: c's own alignment reaches 1536, so no padding. */
    const fn_spec_t fns[] = {
        {"a", 500, 4, 3, 3000, 0}, {"b", 510, 4, 2, 2000, 0}, {"c", 200, 64, 1, 1000, 0},
        {"c2", 200, 64, 1, 0, 0},  {"y", 250, 16, 0, 0, 0},   {"y2", 250, 16, 0, 0, 0},
    };
    lg_program_t p;
    MAKE(&p, fns);
    lg_geometry_t g = geometry(1024, 1);
    lg_layout_t l;
    make_layout(&p, g, "a|b|c c2", "y y2", "", &l);
    place_ok(&p, g, &l, NULL);
    assert_int_equal(l.ncliques, 4);
    assert_string_equal(clique_names(&p, &l, 1), "b");
    assert_int_equal(l.cliques[1].pad_before, 12);
    assert_string_equal(clique_names(&p, &l, 2), "y y2");
    assert_int_equal(l.cliques[2].flags, LG_CLIQUE_FILLER);
    assert_string_equal(clique_names(&p, &l, 3), "c c2");
    assert_int_equal(l.cliques[3].pad_before, 0);
    uint64_t off[6];
    offsets(&p, &l, off);
    assert_int_equal(off[1], 512);
    assert_int_equal(off[2], 1536);
    assert_int_equal(off[3], 1536 + 256);
    assert_int_equal(off[4], 1024);
    assert_int_equal(off[5], 1280);
    assert_false(share_sets(&p, &l, "a", "b", 32));
    assert_false(share_sets(&p, &l, "a", "c", 32));
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_second_way_absorbs_a_second_line(void **state)
{
    (void)state;
    /* 2 KiB 2-way (way size 1 KiB): c may share a's sets, since each set has two ways, and e
     * b's. f, the fifth, is the third line of a set wherever it goes; cooler than every line
     * there, it costs its own heat against two lines anywhere, so it stays where it falls. */
    const fn_spec_t fns[] = {
        {"a", 512, 4, 3000, 0, 0}, {"b", 512, 4, 2000, 0, 0}, {"c", 512, 4, 100, 0, 0},
        {"e", 512, 4, 50, 0, 0},   {"f", 512, 4, 10, 0, 0},
    };
    lg_program_t p;
    MAKE(&p, fns);
    lg_geometry_t g = geometry(2048, 2);
    lg_layout_t l;
    make_layout(&p, g, "a|b|c|e|f", "", "", &l);
    lg_diag_t d;
    lg_diag_init(&d);
    place_ok(&p, g, &l, &d);
    assert_int_equal(l.ncliques, 5);
    for (size_t c = 0; c < 5; c++)
        assert_int_equal(l.cliques[c].pad_before, 0);
    assert_true(share_sets(&p, &l, "a", "c", 32));
    assert_true(share_sets(&p, &l, "b", "e", 32));
    assert_true(share_sets(&p, &l, "a", "f", 32));
    assert_int_equal(d.count, 0);
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_padding_is_bounded(void **state)
{
    (void)state;
    /* 1 KiB direct-mapped. a covers sets 0-23 (125 per line), b sets 24-31 (12.5 per line); c
     * (45 per line) lands on a's sets and would be better on b's, but the 768-byte gap would
     * pass half of the 1088 hot bytes, so it stays where it falls. */
    const fn_spec_t fns[] = {
        {"a", 768, 4, 3, 3000, 0},
        {"b", 256, 4, 2, 100, 0},
        {"c", 64, 4, 1, 90, 0},
    };
    lg_program_t p;
    MAKE(&p, fns);
    lg_geometry_t g = geometry(1024, 1);
    lg_layout_t l;
    make_layout(&p, g, "a|b|c", "", "", &l);
    lg_diag_t d;
    lg_diag_init(&d);
    place_ok(&p, g, &l, &d);
    assert_int_equal(l.ncliques, 3);
    assert_int_equal(l.cliques[2].pad_before, 0);
    assert_true(share_sets(&p, &l, "a", "c", 32));
    assert_true(
        lg_test_diag_has(&d, LG_NOTE, "the padding would pass 50% of the hot code's bytes: 1"));
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);

    /* With b hotter than c per line no gap pays: the same layout, and no note. */
    const fn_spec_t hot_b[] = {
        {"a", 768, 4, 3, 3000, 0},
        {"b", 256, 4, 2, 1000, 0},
        {"c", 64, 4, 1, 90, 0},
    };
    lg_program_t q;
    MAKE(&q, hot_b);
    lg_diag_init(&d);
    make_layout(&q, g, "a|b|c", "", "", &l);
    place_ok(&q, g, &l, &d);
    assert_int_equal(l.cliques[2].pad_before, 0);
    assert_int_equal(d.count, 0);
    lg_layout_destroy(&l);
    lg_diag_destroy(&d);
    lg_program_destroy(&q);
    lg_program_destroy(&p);
}

/* Gives function fn hotspots of equal cost at every line of [from, to) bytes. */
static void add_hot_lines(lg_program_t *p, size_t *cap, uint32_t fn, uint64_t from, uint64_t to)
{
    for (uint64_t o = from; o < to; o += LINE) {
        assert_true(lg_grow((void **)&p->hotspots, cap, p->nhotspots + 1, sizeof *p->hotspots));
        p->hotspots[p->nhotspots++] = (lg_hotspot_t){fn, o, 100};
    }
}

static void test_hot_lines_of_a_large_function(void **state)
{
    (void)state;
    /* 1 KiB direct-mapped. x (2 KiB, larger than the cache) runs only its lines at offsets
     * 0-255 and 1024-1279: sets 0-7. y, hot, falls at 2048, on sets 0-7 too. With the hot
     * lines known, y moves off them (a gap filled with cold z); spread evenly, x weighs on
     * every set alike and y stays where it falls. */
    const fn_spec_t fns[] = {
        {"x", 2048, 4, 2, 10000, 0},
        {"y", 256, 4, 1, 5000, 0},
        {"z", 256, 4, 0, 0, 0},
        {"small", 512, 4, 0, 0, 0},
    };
    lg_geometry_t g = geometry(1024, 1);
    lg_program_t p;
    MAKE(&p, fns);
    size_t cap = 0;
    add_hot_lines(&p, &cap, 0, 0, 256);
    add_hot_lines(&p, &cap, 0, 1024, 1280);
    lg_layout_t l;
    make_layout(&p, g, "x|y", "z", "small", &l);
    place_ok(&p, g, &l, NULL);
    uint64_t off[4];
    offsets(&p, &l, off);
    assert_int_equal(off[1] % 1024, 256);
    assert_string_equal(clique_names(&p, &l, 1), "z");
    lg_layout_destroy(&l);

    free(p.hotspots);
    p.hotspots = NULL;
    p.nhotspots = 0;
    make_layout(&p, g, "x|y", "z", "small", &l);
    place_ok(&p, g, &l, NULL);
    offsets(&p, &l, off);
    assert_int_equal(off[1], 2048);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);

    /* Hotspots of a function no larger than a way are not used: y (256 bytes) with all its heat
     * in its first line still weighs on all eight of its sets. */
    const fn_spec_t fns2[] = {
        {"y", 256, 4, 2, 5000, 0},
        {"a", 896, 4, 1, 4000, 0},
    };
    MAKE(&p, fns2);
    cap = 0;
    add_hot_lines(&p, &cap, 0, 0, 32);
    make_layout(&p, g, "y|a", "", "", &l);
    place_ok(&p, g, &l, NULL);
    offsets(&p, &l, off);
    /* a (28 lines) falls at 256 and wraps onto sets 0-3 of y. With y's heat spread, every start
     * puts 4 of a's lines on y's sets at the same cost, so a stays; had y's first line alone
     * been hot, a would have moved to start on set 1, off it. */
    assert_int_equal(off[1], 256);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

/* Gives the program one proximity pair. */
static void set_pair(lg_program_t *p, uint32_t a, uint32_t b, uint64_t weight)
{
    free(p->proximity);
    p->proximity = malloc(sizeof *p->proximity);
    assert_non_null(p->proximity);
    p->proximity[0] = (lg_pair_t){a < b ? a : b, a < b ? b : a, weight};
    p->nproximity = 1;
}

static void test_timeline_decides_who_shares_sets(void **state)
{
    (void)state;
    /* 1 KiB direct-mapped: a on sets 0-15, c on 16-31; b falls on a's sets. By heat alone b
     * costs the same on either (it is cooler per line than both), so it stays. With a timeline
     * saying b runs close to a, it moves onto c's sets; saying it runs close to c, it stays
     * on a's, which never run near it. */
    const fn_spec_t fns[] = {
        {"a", 512, 4, 3, 3000, 0}, {"c", 512, 4, 2, 2000, 0}, {"b", 512, 4, 1, 1000, 0},
        {"z300", 300, 1, 0, 0, 0}, {"z212", 212, 1, 0, 0, 0},
    };
    lg_geometry_t g = geometry(1024, 1);
    lg_program_t p;
    lg_layout_t l;
    uint64_t off[5];
    MAKE(&p, fns);

    make_layout(&p, g, "a|c|b", "z300 z212", "", &l);
    place_ok(&p, g, &l, NULL);
    offsets(&p, &l, off);
    assert_int_equal(off[2], 1024);
    lg_layout_destroy(&l);

    set_pair(&p, 0, 2, 1000); /* a - b */
    make_layout(&p, g, "a|c|b", "z300 z212", "", &l);
    place_ok(&p, g, &l, NULL);
    offsets(&p, &l, off);
    assert_int_equal(off[2], 1536);
    assert_string_equal(clique_names(&p, &l, 2), "z300 z212");
    assert_false(share_sets(&p, &l, "a", "b", 32));
    lg_layout_destroy(&l);

    set_pair(&p, 1, 2, 1000); /* c - b */
    make_layout(&p, g, "a|c|b", "z300 z212", "", &l);
    place_ok(&p, g, &l, NULL);
    offsets(&p, &l, off);
    assert_int_equal(off[2], 1024);
    assert_false(share_sets(&p, &l, "c", "b", 32));
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_hits_only_keep_the_clique_order(void **state)
{
    (void)state;
    /* Without counter data the heat is the hits: the order stays, only offsets change. */
    const fn_spec_t fns[] = {
        {"a", 512, 4, 300, 0, 0},
        {"b", 512, 4, 200, 0, 0},
        {"c", 128, 4, 100, 0, 0}, /* 25 hits per line: hotter per line than a and b */
        {"z", 512, 4, 0, 0, 0},
    };
    lg_program_t p;
    MAKE(&p, fns);
    lg_geometry_t g = geometry(1024, 1);
    lg_layout_t l;
    make_layout(&p, g, "a|b|c", "z", "", &l);
    place_ok(&p, g, &l, NULL);
    assert_int_equal(l.ncliques, 4);
    assert_string_equal(clique_names(&p, &l, 0), "a");
    assert_string_equal(clique_names(&p, &l, 1), "b");
    assert_string_equal(clique_names(&p, &l, 2), "z");
    assert_string_equal(clique_names(&p, &l, 3), "c");
    assert_int_equal(l.ncold, 0);
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_everything_fits_keeps_the_order(void **state)
{
    (void)state;
    /* 3 KiB of hot code in an 8 KiB direct-mapped cache: nothing can conflict. */
    const fn_spec_t fns[] = {
        {"a", 1000, 4, 1, 10, 0},
        {"b", 1000, 4, 3, 30, 0},
        {"c", 1000, 4, 2, 20, 0},
        {"z", 100, 4, 0, 0, 0},
    };
    lg_program_t p;
    MAKE(&p, fns);
    lg_geometry_t g = geometry(8192, 1);
    lg_layout_t l, before;
    make_layout(&p, g, "a|c b", "z", "", &l);
    copy_layout(&l, &before);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_place_for_cache(&p, &g, &l, &d), LG_OK);
    assert_int_equal(l.section_align, 8192);
    before.section_align = 8192;
    assert_same_layout(&before, &l);
    assert_int_equal(d.count, 0);
    lg_layout_destroy(&l);
    lg_layout_destroy(&before);

    /* No cliques: nothing at all changes. */
    make_layout(&p, g, "", "a b c z", "", &l);
    copy_layout(&l, &before);
    assert_int_equal(lg_place_for_cache(&p, &g, &l, &d), LG_OK);
    assert_int_equal(l.ncliques, 0);
    assert_int_equal(l.section_align, 0);
    assert_same_layout(&before, &l);
    assert_int_equal(d.count, 0);
    lg_layout_destroy(&l);
    lg_layout_destroy(&before);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_geometry_without_placement(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, trio_fns);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l, before;

    /* Fully associative: one set. */
    lg_geometry_t full = {1024, LINE, 1024 / LINE};
    make_layout(&p, full, "a|c|b", "z300", "", &l);
    copy_layout(&l, &before);
    assert_int_equal(lg_place_for_cache(&p, &full, &l, &d), LG_OK);
    assert_same_layout(&before, &l);
    assert_true(lg_test_diag_has(&d, LG_NOTE, "one set"));
    lg_layout_destroy(&l);
    lg_layout_destroy(&before);

    /* 768-byte ways (a 1536-byte 2-way cache): no power-of-two alignment fixes the sets. */
    lg_geometry_t odd = {1536, LINE, 2};
    make_layout(&p, odd, "a|c|b", "z300", "", &l);
    copy_layout(&l, &before);
    assert_int_equal(lg_place_for_cache(&p, &odd, &l, &d), LG_OK);
    assert_same_layout(&before, &l);
    assert_true(lg_test_diag_has(&d, LG_NOTE, "768 bytes"));
    assert_int_equal(d.errors, 0);
    lg_layout_destroy(&l);
    lg_layout_destroy(&before);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

static void test_errors_leave_the_layout_unchanged(void **state)
{
    (void)state;
    lg_program_t p;
    MAKE(&p, trio_fns);
    lg_geometry_t g = geometry(1024, 1);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_layout_t l, before;
    make_layout(&p, g, "a|c|b", "z300 z212", "", &l);
    copy_layout(&l, &before);

    lg_geometry_t bad = {1000, LINE, 1}; /* not a multiple of the line size */
    assert_int_equal(lg_place_for_cache(&p, &bad, &l, &d), LG_EINVAL);
    assert_same_layout(&before, &l);

    l.cliques[1].fns[0] = 99; /* out of range */
    assert_int_equal(lg_place_for_cache(&p, &g, &l, &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "expected below 9"));
    l.cliques[1].fns[0] = 0; /* a, twice */
    assert_int_equal(lg_place_for_cache(&p, &g, &l, &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "function a, already in the layout"));
    l.cliques[1].fns[0] = before.cliques[1].fns[0];
    assert_same_layout(&before, &l);

    /* Placing twice is refused: the filler would be taken for hot code. */
    assert_int_equal(lg_place_for_cache(&p, &g, &l, &d), LG_OK);
    lg_layout_t placed;
    copy_layout(&l, &placed);
    assert_int_equal(lg_place_for_cache(&p, &g, &l, &d), LG_EINVAL);
    assert_true(lg_test_diag_has(&d, LG_ERROR, "placed already"));
    assert_same_layout(&placed, &l);

    lg_layout_destroy(&placed);
    lg_layout_destroy(&l);
    lg_layout_destroy(&before);
    lg_diag_destroy(&d);
    lg_program_destroy(&p);
}

/* ---- random programs -------------------------------------------------------------------- */

/* n functions of `min_size`..`max_size` bytes (a few oversized, empty or in shared sections)
 * with skewed hits, counter data when `counters`, and a call structure: each executed function
 * calls a few others nearby and a few hubs. */
static void make_random_program(lg_program_t *p, uint32_t n, uint64_t min_size, uint64_t max_size,
                                bool counters, bool odd_ones, uint64_t seed)
{
    static const uint64_t aligns[] = {0, 1, 2, 4, 16, 32, 64};
    lg_test_seed(seed);
    lg_program_init(p);
    p->fns = calloc(n, sizeof *p->fns);
    assert_non_null(p->fns);
    p->nfns = n;
    for (uint32_t i = 0; i < n; i++) {
        lg_fn_t *f = &p->fns[i];
        char name[32];
        snprintf(name, sizeof name, "fn%u", i);
        f->symbol = strdup(name);
        snprintf(name, sizeof name, ".text.fn%u", i);
        f->section = strdup(name);
        assert_non_null(f->symbol);
        assert_non_null(f->section);
        f->address = UINT64_MAX;
        f->input_order = i;
        uint64_t r = lg_test_rng() % 1000;
        f->size = min_size + lg_test_rng() % (max_size - min_size + 1);
        if (odd_ones && r < 10)
            f->size = 0;
        else if (odd_ones && r < 15)
            f->size = 9000 + lg_test_rng() % 4000;
        f->align = aligns[lg_test_rng() % (sizeof aligns / sizeof aligns[0])];
        /* Skewed: a few very hot functions, many lukewarm, 40% never run. */
        uint64_t h = lg_test_rng() % 100;
        f->hits = h < 40 ? 0 : h < 45 ? 100000 + lg_test_rng() % 900000 : 1 + lg_test_rng() % 5000;
        if (counters && f->hits > 0)
            f->counter1_self = f->hits * (1 + lg_test_rng() % 50);
        if (odd_ones && lg_test_rng() % 100 < 2)
            f->flags |= LG_FN_SHARED_SECTION;
    }
    size_t cap = (size_t)n * 4;
    p->arcs = calloc(cap, sizeof *p->arcs);
    assert_non_null(p->arcs);
    for (uint32_t a = 0; a < n; a++) {
        if (p->fns[a].hits == 0)
            continue;
        for (int k = 0; k < 3; k++) {
            uint32_t b = k == 2 ? (uint32_t)(lg_test_rng() % 16)
                                : (uint32_t)((a + 1 + lg_test_rng() % 32) % n);
            if (p->fns[b].hits == 0)
                continue;
            uint64_t w = p->fns[a].hits < p->fns[b].hits ? p->fns[a].hits : p->fns[b].hits;
            p->arcs[p->narcs++] = (lg_arc_t){a, b, 1 + w / 2};
        }
    }
    lg_arcs_merge(p->arcs, &p->narcs);
    p->has_call_edges = true;
}

static void shuffle_arcs(lg_program_t *p)
{
    for (size_t k = p->narcs; k > 1; k--) {
        size_t j = (size_t)(lg_test_rng() % k);
        lg_arc_t t = p->arcs[k - 1];
        p->arcs[k - 1] = p->arcs[j];
        p->arcs[j] = t;
    }
}

/* The clique pass, then the placement, both expected to succeed; invariants checked. */
static void cliques_then_place(const lg_program_t *p, lg_geometry_t g, lg_layout_t *l, lg_diag_t *d)
{
    lg_layout_init(l);
    assert_int_equal(lg_clique_partition(p, &g, l, NULL), LG_OK);
    place_ok(p, g, l, d);
}

/* Joins every three consecutive cliques into one: chains longer than the cache, as the
 * pettis-hansen and c3 passes make. */
static void join_cliques(const lg_program_t *p, lg_layout_t *l)
{
    size_t m = 0;
    for (size_t c = 0; c < l->ncliques; c += 3) {
        lg_clique_t j = l->cliques[c];
        for (size_t k = c + 1; k < c + 3 && k < l->ncliques; k++) {
            lg_clique_t *o = &l->cliques[k];
            j.fns = realloc(j.fns, (j.nfns + o->nfns) * sizeof *j.fns);
            assert_non_null(j.fns);
            memcpy(j.fns + j.nfns, o->fns, o->nfns * sizeof *o->fns);
            j.nfns += o->nfns;
            j.hits += o->hits;
            free(o->fns);
        }
        j.bytes = fresh_bytes(p, j.fns, j.nfns);
        j.flags = 0;
        l->cliques[m++] = j;
    }
    l->ncliques = m;
}

static void test_random_programs_keep_the_invariants(void **state)
{
    (void)state;
    const lg_geometry_t geos[] = {
        {2048, LINE, 1}, {8192, LINE, 1}, {4096, LINE, 2}, {16384, 64, 4}, {8192, LINE, 8},
    };
    for (int counters = 0; counters < 2; counters++) {
        lg_program_t p;
        make_random_program(&p, 3000, 8, 600, counters, true, 0x9e3779b97f4a7c15ull + counters);
        for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
            lg_geometry_t g = geos[gi];
            lg_diag_t d;
            lg_diag_init(&d);
            lg_layout_t l1, l2, l3;
            cliques_then_place(&p, g, &l1, &d);
            size_t nfill = 0;
            for (size_t c = 0; c < l1.ncliques; c++)
                nfill += (l1.cliques[c].flags & LG_CLIQUE_FILLER) != 0;
            assert_true(nfill > 0);
            assert_int_equal(d.errors, 0);
            assert_int_equal(d.warnings, 0);
            assert_true(lg_test_diag_has(&d, LG_NOTE, "placement added"));

            /* Run to run, and with the arcs in another order, the result is identical. */
            cliques_then_place(&p, g, &l2, NULL);
            assert_same_layout(&l1, &l2);
            shuffle_arcs(&p);
            cliques_then_place(&p, g, &l3, NULL);
            assert_same_layout(&l1, &l3);
            lg_arcs_merge(p.arcs, &p.narcs);
            lg_layout_destroy(&l1);
            lg_layout_destroy(&l2);
            lg_layout_destroy(&l3);

            /* Cliques several times the cache (chains) fold onto the sets all the same. */
            lg_layout_init(&l1);
            assert_int_equal(lg_clique_partition(&p, &g, &l1, NULL), LG_OK);
            join_cliques(&p, &l1);
            place_ok(&p, g, &l1, NULL);
            lg_layout_destroy(&l1);
            lg_diag_destroy(&d);
        }
        lg_program_destroy(&p);
    }
}

/* Marks function i phased: aligned to the line, its code lead bytes after that (as the phase
 * choice, optimizer/phase.h, records it). */
static void make_phased(lg_program_t *p, uint32_t i, uint64_t line, uint64_t lead)
{
    lg_fn_t *f = &p->fns[i];
    f->flags |= LG_FN_PHASED;
    f->align = f->align > line ? f->align : line;
    f->lead = lead;
}

static void test_phased_function_lead_is_counted(void **state)
{
    (void)state;
    /* b is phased at +16 in the 32-byte line: its code at 528 after a (0..499), its clique 512
     * bytes (16 of lead, 496 of code), so c's natural offset is 1024, on a's sets. Counted
     * without the lead, b would end at 1008 and c would start there. */
    const fn_spec_t fns[] = {
        {"a", 500, 4, 3, 3000, 0}, {"b", 496, 4, 2, 2000, 0}, {"c", 128, 4, 1, 1200, 0},
        {"z300", 300, 1, 0, 0, 0}, {"z212", 212, 1, 0, 0, 0},
    };
    lg_program_t p;
    MAKE(&p, fns);
    make_phased(&p, 1, LINE, 16);
    lg_geometry_t g = geometry(1024, 1);
    lg_layout_t l;
    make_layout(&p, g, "a|b|c", "z300 z212", "", &l);
    assert_int_equal(l.cliques[1].bytes, 512);
    uint64_t off[5];
    offsets(&p, &l, off);
    assert_int_equal(off[1], 528);
    assert_int_equal(off[2], 1024);
    place_ok(&p, g, &l, NULL);
    offsets(&p, &l, off);
    assert_int_equal(off[1], 528);
    assert_int_equal(off[1] % LINE, 16);
    assert_true(off[2] >= 1024); /* after b's code, wherever placement moved it */
    for (size_t c = 0; c < l.ncliques; c++)
        if (l.cliques[c].nfns == 1 && l.cliques[c].fns[0] == 1)
            assert_int_equal(l.cliques[c].bytes, 512);
#ifdef HAVE_ESTIMATE
    /* The estimate places it where the linker does, from a base that is not line-aligned too:
     * the script's `. = ALIGN(32)` aligns the address, not the offset. */
    uint64_t addr[5];
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x10000, addr, NULL), LG_OK);
    assert_int_equal(addr[1], 0x10000 + off[1]);
    l.section_align = 0;
    assert_int_equal(lg_addresses_from_layout(&p, &l, 0x10010, addr, NULL), LG_OK);
    assert_int_equal(addr[1] % LINE, 16);
#endif
    lg_layout_destroy(&l);
    lg_program_destroy(&p);
}

static void test_phased_programs_keep_the_invariants(void **state)
{
    (void)state;
    /* The random program of the invariants test with every fifth function phased, at 0 or
     * +16 in the 32-byte line: clique bytes, offsets and padding count the leads. */
    const lg_geometry_t geos[] = {{2048, LINE, 1}, {8192, LINE, 1}, {4096, LINE, 2}};
    lg_program_t p;
    make_random_program(&p, 3000, 8, 600, true, true, 0x9e3779b97f4a7c15ull);
    size_t phased = 0;
    for (uint32_t i = 0; i < p.nfns; i += 5)
        if (p.fns[i].size > 0) {
            make_phased(&p, i, LINE, (i / 5) % 2 ? 16 : 0);
            phased++;
        }
    assert_true(phased > 0);
    for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
        lg_layout_t l;
        cliques_then_place(&p, geos[gi], &l, NULL);
        uint64_t *off = malloc(p.nfns * sizeof *off);
        assert_non_null(off);
        offsets(&p, &l, off);
        for (uint32_t i = 0; i < p.nfns; i += 5)
            if (off[i] != UINT64_MAX && (p.fns[i].flags & LG_FN_PHASED))
                assert_int_equal(off[i] % LINE, p.fns[i].lead);
        free(off);
        lg_layout_destroy(&l);
    }
    lg_program_destroy(&p);
}

/* ---- the estimated misses --------------------------------------------------------------- */

#ifdef HAVE_ESTIMATE
/* Base address of the ordered code: aligned to every way size used here. */
#define TEXT_BASE 0x10000u

static uint64_t estimated_misses(const lg_program_t *p, const lg_layout_t *l, lg_geometry_t g)
{
    uint64_t *addr = malloc(p->nfns * sizeof *addr);
    assert_non_null(addr);
    /* The cliques as the linker script places them (with pad_before), then everything else in
     * input order: lg_addresses_from_layout's rule. */
    offsets(p, l, addr);
    uint64_t end = 0;
    for (size_t c = 0; c < l->ncliques; c++) {
        end += l->cliques[c].pad_before;
        for (size_t k = 0; k < l->cliques[c].nfns; k++) {
            const lg_fn_t *f = &p->fns[l->cliques[c].fns[k]];
            end = lg_fn_end_after(end, f);
        }
    }
    for (size_t i = 0; i < p->nfns; i++) {
        if (addr[i] == UINT64_MAX) {
            addr[i] = lg_start_after(end, p->fns[i].align, p->fns[i].lead);
            end = lg_fn_end_after(end, &p->fns[i]);
        }
        addr[i] += TEXT_BASE;
    }
    if (total_pad(l) == 0) { /* without padding, the estimate's own placement agrees */
        uint64_t *check = malloc(p->nfns * sizeof *check);
        assert_non_null(check);
        assert_int_equal(lg_addresses_from_layout(p, l, TEXT_BASE, check, NULL), LG_OK);
        assert_memory_equal(check, addr, p->nfns * sizeof *addr);
        free(check);
    }
    lg_estimate_t e;
    lg_estimate_init(&e);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_err_t err = lg_estimate_misses(p, addr, &g, NULL, &e, &d);
    if (err != LG_OK)
        lg_test_diag_dump(&d);
    assert_int_equal(err, LG_OK);
    uint64_t misses = e.misses;
    lg_estimate_destroy(&e);
    lg_diag_destroy(&d);
    free(addr);
    return misses;
}

static void test_placement_lowers_the_estimated_misses(void **state)
{
    (void)state;
    /* Hot code 2 to 4 times the cache; executed functions of 32 to 480 bytes. */
    const struct {
        lg_geometry_t g;
        uint32_t nfns;
    } cases[] = {
        {{4096, LINE, 1}, 60},  {{4096, LINE, 1}, 90}, {{8192, LINE, 1}, 150},
        {{8192, LINE, 2}, 180}, {{4096, LINE, 2}, 80},
    };
    uint64_t total_before = 0, total_after = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            lg_program_t p;
            make_random_program(&p, cases[ci].nfns, 32, 480, false, false,
                                0x5eed0000ull + 97 * seed + ci);
            lg_geometry_t g = cases[ci].g;
            lg_layout_t l;
            lg_layout_init(&l);
            assert_int_equal(lg_clique_partition(&p, &g, &l, NULL), LG_OK);
            uint64_t hot = 0;
            for (size_t c = 0; c < l.ncliques; c++)
                hot += l.cliques[c].bytes;
            assert_true(hot >= 2 * (uint64_t)g.cache_size);
            assert_true(hot <= 4 * (uint64_t)g.cache_size);

            uint64_t before = estimated_misses(&p, &l, g);
            place_ok(&p, g, &l, NULL);
            uint64_t after = estimated_misses(&p, &l, g);
            print_message("placement: %u B %u-way, %u functions, %llu hot bytes, seed %llu: "
                          "%llu -> %llu estimated misses (%+.1f%%), %llu bytes of padding\n",
                          g.cache_size, g.ways, cases[ci].nfns, (unsigned long long)hot,
                          (unsigned long long)seed, (unsigned long long)before,
                          (unsigned long long)after,
                          100.0 * ((double)after - (double)before) / (double)before,
                          (unsigned long long)total_pad(&l));
            total_before += before;
            total_after += after;
            lg_layout_destroy(&l);
            lg_program_destroy(&p);
        }
    }
    print_message("placement: all cases: %llu -> %llu estimated misses (%+.1f%%)\n",
                  (unsigned long long)total_before, (unsigned long long)total_after,
                  100.0 * ((double)total_after - (double)total_before) / (double)total_before);
    assert_true(total_after < total_before);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hot_cliques_avoid_each_others_sets),
        cmocka_unit_test(test_gap_without_filler_becomes_padding),
        cmocka_unit_test(test_alignment_is_respected),
        cmocka_unit_test(test_second_way_absorbs_a_second_line),
        cmocka_unit_test(test_padding_is_bounded),
        cmocka_unit_test(test_hot_lines_of_a_large_function),
        cmocka_unit_test(test_timeline_decides_who_shares_sets),
        cmocka_unit_test(test_hits_only_keep_the_clique_order),
        cmocka_unit_test(test_everything_fits_keeps_the_order),
        cmocka_unit_test(test_geometry_without_placement),
        cmocka_unit_test(test_errors_leave_the_layout_unchanged),
        cmocka_unit_test(test_random_programs_keep_the_invariants),
        cmocka_unit_test(test_phased_function_lead_is_counted),
        cmocka_unit_test(test_phased_programs_keep_the_invariants),
#ifdef HAVE_ESTIMATE
        cmocka_unit_test(test_placement_lowers_the_estimated_misses),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
