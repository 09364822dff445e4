/* textgen.c - a deterministic document generator: sentences of syllable words, numbers and
 * bracketed arithmetic expressions such as "[ (12 + 3) * 4 - 5 % 3 ]". */
#include "demo.h"

static const char *const syllables[] = {
    "ka",  "lo",  "mi",  "ne",  "ru",  "sa",  "to",  "vi",  "ze",  "qu",
    "bra", "dor", "fen", "gil", "hus", "jor", "pel", "tan", "wix", "yel",
};
#define NSYLLABLES (sizeof syllables / sizeof syllables[0])

/* A few words are much more frequent than others, as in real text. */
static const char *const common[] = {"the", "of", "and", "to", "in", "is", "it", "that"};
#define NCOMMON (sizeof common / sizeof common[0])

static const char ops[] = "+-*/%";

void rng_seed(rng_t *r, uint64_t seed)
{
    r->state = seed * 6364136223846793005ull + 1442695040888963407ull;
}

uint32_t rng_next(rng_t *r) /* PCG32 (XSH RR) */
{
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

uint32_t rng_below(rng_t *r, uint32_t n)
{
    return (uint32_t)(((uint64_t)rng_next(r) * n) >> 32);
}

static void gen_word(rng_t *r, buf_t *out, int capital)
{
    if (rng_below(r, 3) == 0) {
        buf_puts(out, common[rng_below(r, NCOMMON)]);
        return;
    }
    size_t start = out->len;
    int n = 1 + (int)rng_below(r, 3);
    for (int i = 0; i < n; i++)
        buf_puts(out, syllables[rng_below(r, NSYLLABLES)]);
    if (capital)
        out->data[start] = (char)(out->data[start] - 'a' + 'A');
}

static void gen_number(rng_t *r, buf_t *out)
{
    buf_put_uint(out, rng_below(r, 1000));
}

/* A random expression of at most `depth` levels of nesting. */
static void gen_expr(rng_t *r, buf_t *out, int depth)
{
    if (depth == 0 || rng_below(r, 3) == 0) {
        buf_put_uint(out, 1 + rng_below(r, 99));
        return;
    }
    int paren = rng_below(r, 2) == 0;
    if (paren)
        buf_putc(out, '(');
    gen_expr(r, out, depth - 1);
    buf_putc(out, ' ');
    buf_putc(out, ops[rng_below(r, sizeof ops - 1)]);
    buf_putc(out, ' ');
    gen_expr(r, out, depth - 1);
    if (paren)
        buf_putc(out, ')');
}

static void gen_sentence(rng_t *r, buf_t *out)
{
    int n = 4 + (int)rng_below(r, 10);
    for (int i = 0; i < n; i++) {
        if (i > 0)
            buf_putc(out, rng_below(r, 12) == 0 ? ',' : ' ');
        if (i > 0 && out->data[out->len - 1] == ',')
            buf_putc(out, ' ');
        uint32_t kind = rng_below(r, 20);
        if (kind == 0)
            gen_number(r, out);
        else if (kind == 1) {
            buf_puts(out, "[ ");
            gen_expr(r, out, 4);
            buf_puts(out, " ]");
        } else
            gen_word(r, out, i == 0);
    }
    buf_puts(out, rng_below(r, 8) == 0 ? "?\n" : ".\n");
}

void gen_document(rng_t *r, buf_t *out, int sentences)
{
    for (int i = 0; i < sentences; i++)
        gen_sentence(r, out);
}
