/* main.c - the lgtrace demo: a deterministic text-processing pipeline (see demo.h).
 *
 * usage: demo [-r ROUNDS] [-n SENTENCES] [-s SEED] [-k TOP]
 */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ROUNDS 20
#define DEFAULT_SENTENCES 400 /* per round */
#define DEFAULT_SEED 2024u
#define DEFAULT_TOP 10
#define WORDTAB_INITIAL_SLOTS 64 /* small on purpose, so the table grows a few times */

typedef struct options {
    int rounds, sentences, top;
    unsigned long seed;
} options_t;

typedef struct numbers {
    long *v;
    size_t n, cap;
} numbers_t;

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-r ROUNDS] [-n SENTENCES] [-s SEED] [-k TOP]\n", argv0);
    exit(2);
}

static long parse_number(const char *argv0, const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0)
        usage(argv0);
    return v;
}

static void parse_args(int argc, char **argv, options_t *o)
{
    o->rounds = DEFAULT_ROUNDS;
    o->sentences = DEFAULT_SENTENCES;
    o->seed = DEFAULT_SEED;
    o->top = DEFAULT_TOP;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc || argv[i][0] != '-' || argv[i][2] != '\0')
            usage(argv[0]);
        long v = parse_number(argv[0], argv[i + 1]);
        switch (argv[i][1]) {
        case 'r':
            o->rounds = (int)v;
            break;
        case 'n':
            o->sentences = (int)v;
            break;
        case 's':
            o->seed = (unsigned long)v;
            break;
        case 'k':
            o->top = (int)v;
            break;
        default:
            usage(argv[0]);
        }
        i++;
    }
}

static void numbers_push(numbers_t *ns, long v)
{
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 64;
        long *p = realloc(ns->v, cap * sizeof *p);
        if (p == NULL)
            die("out of memory");
        ns->v = p;
        ns->cap = cap;
    }
    ns->v[ns->n++] = v;
}

/* Evaluates one expression both ways; they must agree. Returns 1 if it has a value. */
static int eval_expr(const token_t *t, int64_t *value)
{
    static vm_prog_t prog; /* large: keep it off the stack */
    int64_t a = 0, b = 0;
    int ea = calc_eval(t->text, t->len, &a);
    int eb = vm_compile(t->text, t->len, &prog) || vm_run(&prog, &b);
    if (ea != eb || (!ea && a != b)) {
        fprintf(stderr, "demo: calc and vm disagree on [%.*s]\n", (int)t->len, t->text);
        die("evaluator mismatch");
    }
    *value = a;
    return !ea;
}

static void process_tokens(const buf_t *doc, wordtab_t *words, numbers_t *nums, round_stats_t *s)
{
    lexer_t lx;
    token_t t;
    lex_init(&lx, doc->data, doc->len);
    while (lex_next(&lx, &t)) {
        int64_t v;
        switch (t.kind) {
        case TOK_WORD:
            wt_add(words, t.text, t.len);
            s->words++;
            break;
        case TOK_NUMBER:
            numbers_push(nums, t.value);
            s->numbers++;
            break;
        case TOK_EXPR:
            s->exprs++;
            if (eval_expr(&t, &v))
                s->expr_sum = (int64_t)((uint64_t)s->expr_sum + (uint64_t)v);
            break;
        default:
            break;
        }
    }
}

static size_t pack_and_check(const buf_t *doc)
{
    size_t cap = doc->len + doc->len / 64 + 16;
    uint8_t *packed = malloc(cap), *unpacked = malloc(doc->len + 1);
    if (packed == NULL || unpacked == NULL)
        die("out of memory");
    size_t n = lz_compress((const uint8_t *)doc->data, doc->len, packed, cap);
    size_t m = lz_decompress(packed, n, unpacked, doc->len);
    if (n == 0 || m != doc->len || memcmp(unpacked, doc->data, m) != 0)
        die("lz round trip failed");
    free(packed);
    free(unpacked);
    return n;
}

static uint32_t run_round(int round, rng_t *rng, int sentences, wordtab_t *words, numbers_t *nums)
{
    buf_t doc;
    buf_init(&doc);
    gen_document(rng, &doc, sentences);
    round_stats_t s = {.round = round, .bytes = doc.len};
    process_tokens(&doc, words, nums, &s);
    s.packed = pack_and_check(&doc);
    s.crc = crc32_buf(doc.data, doc.len);
    s.adler = adler32(doc.data, doc.len);
    s.fletcher = fletcher16(doc.data, doc.len);
    report_round(&s);
    buf_free(&doc);
    return checksum_combine(s.crc, s.adler);
}

int main(int argc, char **argv)
{
    options_t o;
    parse_args(argc, argv, &o);
    rng_t rng;
    rng_seed(&rng, o.seed);
    wordtab_t words;
    wt_init(&words, WORDTAB_INITIAL_SLOTS);
    numbers_t nums = {0};
    uint32_t digest = 0;
    for (int r = 1; r <= o.rounds; r++)
        digest = checksum_combine(digest, run_round(r, &rng, o.sentences, &words, &nums));

    word_entry_t **v;
    size_t n = wt_collect(&words, &v);
    sort_entries(v, n);
    report_top_words(v, n, (size_t)o.top);
    report_lengths(v, n);
    sort_longs(nums.v, nums.n);
    report_numbers(nums.v, nums.n);
    printf("digest %08x\n", (unsigned)digest);
    free(v);
    free(nums.v);
    wt_free(&words);
    return 0;
}
