/* lex.c - splits a document into words, numbers, punctuation and [ bracketed expressions ]. */
#include "demo.h"

/* Same name as the static in calc.c: two local symbols "skip_space", told apart by file. */
static __attribute__((noinline)) const char *skip_space(const char *p, const char *end,
                                                        unsigned *line)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
        if (*p == '\n')
            ++*line;
        p++;
    }
    return p;
}

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'';
}

static void lex_word(lexer_t *lx, token_t *t)
{
    const char *start = lx->p;
    while (lx->p < lx->end && is_word_char(*lx->p))
        lx->p++;
    t->kind = TOK_WORD;
    t->text = start;
    t->len = (size_t)(lx->p - start);
}

static void lex_number(lexer_t *lx, token_t *t)
{
    const char *start = lx->p;
    long v = 0;
    while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9')
        v = v * 10 + (*lx->p++ - '0');
    t->kind = TOK_NUMBER;
    t->text = start;
    t->len = (size_t)(lx->p - start);
    t->value = v;
}

static void lex_expr(lexer_t *lx, token_t *t)
{
    const char *start = ++lx->p; /* after '[' */
    while (lx->p < lx->end && *lx->p != ']')
        lx->p++;
    t->kind = TOK_EXPR;
    t->text = start;
    t->len = (size_t)(lx->p - start);
    if (lx->p < lx->end)
        lx->p++; /* the ']' */
}

void lex_init(lexer_t *lx, const char *text, size_t len)
{
    lx->p = text;
    lx->end = text + len;
    lx->line = 1;
}

int lex_next(lexer_t *lx, token_t *t)
{
    lx->p = skip_space(lx->p, lx->end, &lx->line);
    if (lx->p >= lx->end) {
        t->kind = TOK_END;
        return 0;
    }
    char c = *lx->p;
    if (is_word_char(c))
        lex_word(lx, t);
    else if (c >= '0' && c <= '9')
        lex_number(lx, t);
    else if (c == '[')
        lex_expr(lx, t);
    else {
        t->kind = TOK_PUNCT;
        t->text = lx->p++;
        t->len = 1;
    }
    return 1;
}
