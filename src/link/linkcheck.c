/* linkcheck.c - reading a relinked ELF back against its .LOR; see linkcheck.h.
 *
 * Steps:
 *   - find each listed function in the linked program (linkfind.h: same-named statics by object
 *     path, the closest match, or source file; a renamed clone by its name without clone
 *     suffixes)
 *   - take the longest run of found functions whose addresses rise in .LOR order: those are in
 *     sequence, the rest are out of place and get a reason
 *   - between two neighbours of that run, any other function is a gap
 *   - a function the .LOR phases must start its phase's bytes past a multiple of the line
 */
#include "linkcheck.h"

#include "linkfind.h"
#include "linkname.h"
#include "mem.h"
#include "strmap.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_FOUND_ADDRESS UINT64_MAX

static const char *const landing_names[] = {"in order", "pinned",    "together", "not found",
                                            "no match", "elsewhere", "gap",      "off phase"};

const char *lg_landing_name(lg_landing_t status)
{
    return (size_t)status < sizeof landing_names / sizeof *landing_names ? landing_names[status]
                                                                         : "?";
}

void lg_linkcheck_init(lg_linkcheck_t *c)
{
    memset(c, 0, sizeof *c);
}

void lg_linkcheck_destroy(lg_linkcheck_t *c)
{
    for (size_t i = 0; c->rows != NULL && i < c->nrows; i++) {
        free(c->rows[i].output_section);
        free(c->rows[i].reason);
    }
    free(c->rows);
    memset(c, 0, sizeof *c);
}

static lg_err_t set_row(lg_landed_t *row, lg_landing_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static lg_err_t set_row(lg_landed_t *row, lg_landing_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *reason = lg_vformat(fmt, ap);
    va_end(ap);
    if (reason == NULL)
        return LG_ENOMEM;
    free(row->reason);
    row->reason = reason;
    row->status = status;
    return LG_OK;
}

/* Longest strictly rising run of addr[idx[0..n)] in the given order: marks in_run[] for its
 * members. Patience sorting with back links; O(n log n). */
static lg_err_t longest_rising(const uint64_t *addr, const size_t *idx, size_t n, bool *in_run)
{
    size_t *tail = malloc((n ? n : 1) * sizeof *tail); /* tail[k]: position ending a run of k+1 */
    size_t *back = malloc((n ? n : 1) * sizeof *back);
    if (tail == NULL || back == NULL) {
        free(tail);
        free(back);
        return LG_ENOMEM;
    }
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = addr[idx[i]];
        size_t lo = 0, hi = len;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (addr[idx[tail[mid]]] < a)
                lo = mid + 1;
            else
                hi = mid;
        }
        back[i] = lo > 0 ? tail[lo - 1] : SIZE_MAX;
        tail[lo] = i;
        if (lo == len)
            len++;
    }
    for (size_t i = len ? tail[len - 1] : SIZE_MAX; i != SIZE_MAX; i = back[i])
        in_run[idx[i]] = true;
    free(tail);
    free(back);
    return LG_OK;
}

typedef struct checker {
    const lg_lor_t *lor;
    const lg_program_t *prog;
    const lg_elfsyms_t *elf;
    lg_linkcheck_t *out;
    int64_t *fn_of; /* per row: program function, or -1 */
    uint64_t *addr; /* per row: address, NOT_FOUND_ADDRESS when none */
    bool *in_run;   /* per row: in the longest rising run */
    bool *listed;   /* per program function: some row names it */
    /* Symbols of listed same-named statics: gold and lld (and GNU ld without objects) move all
     * of them to the place of the first, so the others are no intruders. */
    lg_strmap_t moving_names;
    uint32_t *by_address; /* program functions with an address, by address */
    size_t naddressed;
} checker_t;

/* What by_address is sorted by: a function's address, then its index. */
typedef struct address_key {
    uint64_t address;
    uint32_t fn;
} address_key_t;

static int cmp_fn_address(const void *a, const void *b)
{
    const address_key_t *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return x->fn < y->fn ? -1 : 1;
}

/* Fills c->by_address with the functions of the linked program that have an address, by
 * address. Returns LG_OK or LG_ENOMEM. */
static lg_err_t sort_by_address(checker_t *c)
{
    const lg_program_t *linked = c->prog;
    address_key_t *keys = malloc((linked->nfns ? linked->nfns : 1) * sizeof *keys);
    if (keys == NULL)
        return LG_ENOMEM;
    for (size_t i = 0; i < linked->nfns; i++)
        if (linked->fns[i].address != UINT64_MAX)
            keys[c->naddressed++] = (address_key_t){linked->fns[i].address, (uint32_t)i};
    qsort(keys, c->naddressed, sizeof *keys, cmp_fn_address);
    for (size_t i = 0; i < c->naddressed; i++)
        c->by_address[i] = keys[i].fn;
    free(keys);
    return LG_OK;
}

/* True when fn between two in-sequence functions does not break contiguity: it is listed
 * itself (and judged on its own row), moves with a listed same-named static, shares the input
 * section of one of the two, or has no bytes. */
static bool may_sit_between(const checker_t *c, uint32_t k, int64_t a, int64_t b)
{
    const lg_fn_t *fn = &c->prog->fns[k];
    uint32_t ignored;
    if (c->listed[k] || fn->size == 0 || lg_strmap_get(&c->moving_names, fn->symbol, &ignored))
        return true;
    for (int side = 0; side < 2; side++) {
        const lg_fn_t *n = &c->prog->fns[side ? b : a];
        if ((fn->flags & LG_FN_SHARED_SECTION) && fn->object != NULL && n->object != NULL &&
            strcmp(fn->object, n->object) == 0 && strcmp(fn->section, n->section) == 0)
            return true;
    }
    return false;
}

/* The first index of c->by_address whose function starts past address lo. */
static size_t first_after(const checker_t *c, uint64_t lo)
{
    size_t l = 0, h = c->naddressed;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (c->prog->fns[c->by_address[mid]].address <= lo)
            l = mid + 1;
        else
            h = mid;
    }
    return l;
}

/* First function, by address, inside (lo, hi) that may not sit there; -1 when none. Counts
 * all of them in *count. */
static int64_t first_intruder(const checker_t *c, uint64_t lo, uint64_t hi, int64_t a, int64_t b,
                              size_t *count)
{
    size_t l = first_after(c, lo);
    int64_t first = -1;
    *count = 0;
    for (size_t i = l; i < c->naddressed && c->prog->fns[c->by_address[i]].address < hi; i++) {
        uint32_t k = c->by_address[i];
        if (may_sit_between(c, k, a, b))
            continue;
        if (first < 0)
            first = k;
        (*count)++;
    }
    return first;
}

/* Reason for a found function out of the rising run. */
static lg_err_t explain_misplaced(checker_t *c, size_t r, const char *run_section)
{
    lg_landed_t *row = &c->out->rows[r];
    const lg_lor_fn_t *f = &c->lor->fns[r];
    const lg_fn_t *fn = &c->prog->fns[c->fn_of[r]];
    bool exact_now = !(fn->flags & LG_FN_SECTION_INFERRED);
    bool exact_asked = f->section != NULL && !(f->flags & LG_FN_SECTION_INFERRED);
    if (exact_now && exact_asked && strcmp(f->section, fn->section) != 0)
        return set_row(row, LG_LANDED_NO_MATCH,
                       "pattern matched nothing: the order names section %s, the objects hold "
                       "'%s' in %s",
                       f->section, fn->symbol, fn->section);
    if (row->output_section != NULL && run_section != NULL &&
        strcmp(row->output_section, run_section) != 0)
        return set_row(row, LG_LANDED_ELSEWHERE,
                       "section kept elsewhere: it landed in output section %s, the ordered "
                       "functions in %s (an earlier rule of the linker script took it)",
                       row->output_section, run_section);
    return set_row(row, LG_LANDED_ELSEWHERE,
                   "out of sequence: the linker did not place its section where the order asks "
                   "(the pattern matched nothing, or an earlier rule took the section)");
}

/* The output section most in-run functions landed in: where the order took effect. */
static const char *run_output_section(const checker_t *c)
{
    const char *best = NULL;
    size_t best_count = 0;
    for (size_t r = 0; r < c->out->nrows; r++) {
        const char *s = c->out->rows[r].output_section;
        if (!c->in_run[r] || s == NULL)
            continue;
        size_t count = 0;
        for (size_t q = 0; q < c->out->nrows; q++)
            count += c->in_run[q] && c->out->rows[q].output_section != NULL &&
                     strcmp(c->out->rows[q].output_section, s) == 0;
        if (count > best_count) {
            best = s;
            best_count = count;
        }
    }
    return best;
}

static lg_err_t find_rows(checker_t *c, size_t *nfound, size_t *found)
{
    const lg_program_t *p = c->prog;
    lg_linkfind_t find;
    lg_err_t err = lg_linkfind_init(&find, p);
    for (size_t r = 0; r < c->lor->nfns && err == LG_OK; r++) {
        const lg_lor_fn_t *f = &c->lor->fns[r];
        lg_landed_t *row = &c->out->rows[r];
        *row = (lg_landed_t){.fn = r, .address = NOT_FOUND_ADDRESS};
        c->fn_of[r] = -1;
        c->addr[r] = NOT_FOUND_ADDRESS;
        if (f->flags & LG_LOR_FN_PINNED) {
            err = set_row(row, LG_LANDED_PINNED,
                          lg_linkname_is_entry(f->symbol)
                              ? "entry code: stays where the linker script puts it"
                              : "not in .text: stays where the linker script puts it");
            continue;
        }
        int64_t k = lg_linkfind(&find, f, NULL, NULL);
        if (k < 0 || p->fns[k].address == UINT64_MAX) {
            err = set_row(row, LG_LANDED_NOT_FOUND,
                          "name not found: no function '%s' in the linked ELF (renamed, inlined, "
                          "or discarded by the linker)",
                          f->symbol);
            continue;
        }
        const lg_fn_t *fn = &p->fns[k];
        row->address = fn->address;
        bool ok = true;
        row->output_section = lg_strdup_opt(lg_linkfind_output_section(c->elf, fn), &ok);
        if (!ok) {
            err = LG_ENOMEM;
            break;
        }
        if (c->listed[k]) {
            err = set_row(row, LG_LANDED_TOGETHER,
                          "an earlier line took the same function (same-named statics that "
                          "nothing tells apart move together)");
            continue;
        }
        if ((fn->flags & LG_FN_AMBIGUOUS_NAME) &&
            !lg_strmap_put(&c->moving_names, fn->symbol, (uint32_t)r, NULL))
            err = LG_ENOMEM;
        c->listed[k] = true;
        c->fn_of[r] = k;
        c->addr[r] = fn->address;
        found[(*nfound)++] = r;
        err = err == LG_OK ? set_row(row, LG_LANDED_IN_ORDER, "%s", "") : err;
    }
    lg_linkfind_destroy(&find);
    return err;
}

/* True when every function at an address strictly between lo and hi is called symbol (or has no
 * bytes): the block the linker made of the statics of that name. */
static bool only_namesakes_between(const checker_t *c, uint64_t lo, uint64_t hi, const char *symbol)
{
    size_t l = first_after(c, lo);
    for (size_t i = l; i < c->naddressed && c->prog->fns[c->by_address[i]].address < hi; i++) {
        const lg_fn_t *fn = &c->prog->fns[c->by_address[i]];
        if (fn->size > 0 && strcmp(fn->symbol, symbol) != 0)
            return false;
    }
    return true;
}

/* Row r is out of the rising run, and first_in_run maps each name to the first row of that name
 * in the run. gold and lld name sections or symbols only (and GNU ld without object files names
 * no object), so each puts every static of a name at the place of the first one listed: row r
 * moved with that row when it is a later row of its name and only statics of that name sit
 * between the two. Marks the row and returns true then. */
static bool moved_with_namesake(checker_t *c, size_t r, const lg_strmap_t *first_in_run,
                                lg_err_t *err)
{
    const lg_fn_t *fn = &c->prog->fns[c->fn_of[r]];
    uint32_t q;
    if (!lg_strmap_get(first_in_run, fn->symbol, &q) || q >= r)
        return false;
    uint64_t a = c->addr[q], b = c->addr[r];
    if (!only_namesakes_between(c, a < b ? a : b, a < b ? b : a, fn->symbol))
        return false;
    /* The first one's file, as the .LOR names it: its object, else its source file. */
    const lg_lor_fn_t *first = &c->lor->fns[q];
    const lg_fn_t *first_fn = &c->prog->fns[c->fn_of[q]];
    const char *file = first->object      ? first->object
                       : first_fn->object ? first_fn->object
                       : first->source    ? first->source
                                          : first_fn->source_file;
    *err = set_row(&c->out->rows[r], LG_LANDED_TOGETHER,
                   "moved with the static '%s'%s%s listed before it: gold and lld name sections "
                   "or symbols only (GNU ld too, without object files), so each puts every "
                   "static of a name where the first one is listed",
                   fn->symbol, file ? " of " : "", file ? file : "");
    return true;
}

static lg_err_t judge(checker_t *c, const size_t *found, size_t nfound)
{
    LG_CHECK(longest_rising(c->addr, found, nfound, c->in_run));
    const char *run_section = run_output_section(c);
    lg_strmap_t first_in_run; /* name -> its first row in the run */
    lg_strmap_init(&first_in_run);
    for (size_t i = 0; i < nfound; i++)
        if (c->in_run[found[i]] &&
            !lg_strmap_put(&first_in_run, c->prog->fns[c->fn_of[found[i]]].symbol,
                           (uint32_t)found[i], NULL)) {
            lg_strmap_destroy(&first_in_run);
            return LG_ENOMEM;
        }
    lg_err_t err = LG_OK;
    int64_t prev = -1;
    for (size_t i = 0; i < nfound && err == LG_OK; i++) {
        size_t r = found[i];
        if (!c->in_run[r]) {
            if (!moved_with_namesake(c, r, &first_in_run, &err))
                err = explain_misplaced(c, r, run_section);
            continue;
        }
        if (prev >= 0) {
            size_t count;
            int64_t k =
                first_intruder(c, c->addr[prev], c->addr[r], c->fn_of[prev], c->fn_of[r], &count);
            char more[64] = "";
            if (count > 1)
                snprintf(more, sizeof more, " (and %zu more)", count - 1);
            if (k >= 0)
                err = set_row(&c->out->rows[r], LG_LANDED_GAP,
                              "not contiguous: '%s' at 0x%" PRIx64 " sits between it and '%s'%s",
                              c->prog->fns[k].symbol, c->prog->fns[k].address,
                              c->lor->fns[prev].symbol, more);
        }
        prev = (int64_t)r;
    }
    lg_strmap_destroy(&first_in_run);
    return err;
}

/* A phased function's code must start lead bytes past a multiple of the cache line: the GNU ld
 * scripts pad to there, and a link without that padding (another script, gold's or lld's list)
 * puts it wherever the code before it ends. Its row's address is where its code starts (bind
 * clears ARM's Thumb bit), so address % line is the phase it got. A function otherwise in order
 * becomes off phase; one already failed keeps its status, so its reason gets the phase as well. */
static lg_err_t judge_phases(checker_t *c, const size_t *found, size_t nfound)
{
    uint64_t line = c->lor->geometry.line_size;
    if (line == 0) /* a .LOR made in code without a cache statement: no line to be in */
        return LG_OK;
    for (size_t i = 0; i < nfound; i++) {
        size_t r = found[i];
        const lg_lor_fn_t *f = &c->lor->fns[r];
        lg_landed_t *row = &c->out->rows[r];
        uint64_t at = row->address % line;
        /* A static that moved with another of its name is not where the order put it at all. */
        if (!(f->flags & LG_FN_PHASED) || at == f->lead || row->status == LG_LANDED_TOGETHER)
            continue;
        row->off_phase = true;
        if (row->status == LG_LANDED_IN_ORDER)
            LG_CHECK(set_row(row, LG_LANDED_OFF_PHASE,
                             "off its phase: it starts at phase %" PRIu64 " in the %" PRIu64
                             "-byte line, the order asks phase=%" PRIu64
                             " (the padding before it was lost: linked without lorgen's GNU ld "
                             "script, or from gold's or lld's list, which cannot hold a phase)",
                             at, line, f->lead));
        else
            LG_CHECK(set_row(row, row->status,
                             "%s; and off its phase: it starts at phase %" PRIu64 " in the %" PRIu64
                             "-byte line, the order asks phase=%" PRIu64,
                             row->reason, at, line, f->lead));
    }
    return LG_OK;
}

lg_err_t lg_linkcheck_inputs(const lg_elfsyms_t *elf, lg_diag_t *d)
{
    size_t nlinked = 0;
    const lg_elf_file_t *first = NULL, *second = NULL;
    for (size_t i = 0; i < elf->nfiles; i++) {
        if (elf->files[i].kind != LG_ELF_LINKED)
            continue;
        if (nlinked++ == 0)
            first = &elf->files[i];
        else if (second == NULL)
            second = &elf->files[i];
    }
    if (nlinked == 0)
        return lg_diag_fail(d, LG_EINVAL, "",
                            "check: expected the relinked program (an executable ELF), found "
                            "object files only");
    /* Rows from two programs would judge a mix of both links. */
    if (nlinked > 1) {
        char more[64] = "";
        if (nlinked > 2)
            snprintf(more, sizeof more, " (and %zu more)", nlinked - 2);
        return lg_diag_fail(d, LG_EINVAL, "",
                            "check: expected one relinked program, found %zu: %s and %s%s (check "
                            "each on its own, with its objects)",
                            nlinked, first->path, second->path, more);
    }
    if (first->stripped)
        return lg_diag_fail(d, LG_EINVAL, first->path,
                            "the relinked program has no symbol table (stripped): check reads "
                            "where each function landed from it; check the program before it is "
                            "stripped (or link it without -s)");
    return LG_OK;
}

lg_err_t lg_linkcheck_run(const lg_lor_t *lor, const lg_program_t *linked, const lg_elfsyms_t *elf,
                          lg_linkcheck_t *out, lg_diag_t *d)
{
    LG_CHECK(lg_linkcheck_inputs(elf, d));
    size_t n = lor->nfns ? lor->nfns : 1, m = linked->nfns ? linked->nfns : 1;
    checker_t c = {.lor = lor, .prog = linked, .elf = elf, .out = out};
    lg_strmap_init(&c.moving_names);
    out->rows = calloc(n, sizeof *out->rows);
    c.fn_of = malloc(n * sizeof *c.fn_of);
    c.addr = malloc(n * sizeof *c.addr);
    c.in_run = calloc(n, sizeof *c.in_run);
    c.listed = calloc(m, sizeof *c.listed);
    c.by_address = malloc(m * sizeof *c.by_address);
    size_t *found = malloc(n * sizeof *found), nfound = 0;
    lg_err_t err = out->rows && c.fn_of && c.addr && c.in_run && c.listed && c.by_address && found
                       ? LG_OK
                       : LG_ENOMEM;
    if (err == LG_OK) {
        out->nrows = lor->nfns;
        err = find_rows(&c, &nfound, found);
    }
    if (err == LG_OK) {
        err = sort_by_address(&c);
        if (err == LG_OK)
            err = judge(&c, found, nfound);
        if (err == LG_OK)
            err = judge_phases(&c, found, nfound);
    }
    for (size_t r = 0; err == LG_OK && r < out->nrows; r++) {
        lg_landing_t s = out->rows[r].status;
        if (s == LG_LANDED_IN_ORDER)
            out->in_order++;
        else if (s == LG_LANDED_PINNED || s == LG_LANDED_TOGETHER)
            out->pinned++;
        else
            out->failed++;
        out->off_phase += out->rows[r].off_phase;
    }
    lg_strmap_destroy(&c.moving_names);
    free(c.fn_of);
    free(c.addr);
    free(c.in_run);
    free(c.listed);
    free(c.by_address);
    free(found);
    if (err == LG_ENOMEM)
        lg_diag_add(d, LG_ERROR, "", "out of memory while checking the link order");
    return err;
}
