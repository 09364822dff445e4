/* calc.c - evaluates an arithmetic expression directly by recursive descent.
 *
 *   expr  := term (('+' | '-') term)*
 *   term  := power (('*' | '/' | '%') power)*
 *   power := unary ('^' power)?            (right-associative)
 *   unary := '-' unary | primary
 *   primary := number | '(' expr ')'
 *
 * + - * and ^ wrap around like unsigned arithmetic; division by zero is an error.
 */
#include "demo.h"

#include <stdint.h>

typedef struct calc {
    const char *p, *end;
    int err;
} calc_t;

/* Same name as the static in lex.c: two local symbols "skip_space", told apart by file. */
static __attribute__((noinline)) void skip_space(calc_t *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
}

static int64_t ipow(int64_t base, int64_t exp, int *err)
{
    if (exp < 0) {
        *err = 1;
        return 0;
    }
    uint64_t r = 1, b = (uint64_t)base;
    while (exp > 0) {
        if (exp & 1)
            r *= b;
        b *= b;
        exp >>= 1;
    }
    return (int64_t)r;
}

static int64_t apply_op(char op, int64_t a, int64_t b, int *err)
{
    switch (op) {
    case '+':
        return (int64_t)((uint64_t)a + (uint64_t)b);
    case '-':
        return (int64_t)((uint64_t)a - (uint64_t)b);
    case '*':
        return (int64_t)((uint64_t)a * (uint64_t)b);
    case '/':
    case '%':
        if (b == 0 || (a == INT64_MIN && b == -1)) {
            *err = 1;
            return 0;
        }
        return op == '/' ? a / b : a % b;
    case '^':
        return ipow(a, b, err);
    default:
        *err = 1;
        return 0;
    }
}

static int64_t parse_expr(calc_t *c);

static int64_t parse_primary(calc_t *c)
{
    skip_space(c);
    if (c->p < c->end && *c->p == '(') {
        c->p++;
        int64_t v = parse_expr(c);
        skip_space(c);
        if (c->p < c->end && *c->p == ')')
            c->p++;
        else
            c->err = 1;
        return v;
    }
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') {
        c->err = 1;
        return 0;
    }
    int64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        v = v * 10 + (*c->p++ - '0');
    return v;
}

static int64_t parse_unary(calc_t *c)
{
    skip_space(c);
    if (c->p < c->end && *c->p == '-') {
        c->p++;
        return (int64_t)((uint64_t)0 - (uint64_t)parse_unary(c));
    }
    return parse_primary(c);
}

static int64_t parse_power(calc_t *c)
{
    int64_t base = parse_unary(c);
    skip_space(c);
    if (c->p < c->end && *c->p == '^') {
        c->p++;
        int64_t exp = parse_power(c);
        return apply_op('^', base, exp, &c->err);
    }
    return base;
}

static int64_t parse_term(calc_t *c)
{
    int64_t v = parse_power(c);
    for (;;) {
        skip_space(c);
        if (c->p >= c->end || (*c->p != '*' && *c->p != '/' && *c->p != '%'))
            return v;
        char op = *c->p++;
        int64_t rhs = parse_power(c);
        v = apply_op(op, v, rhs, &c->err);
    }
}

static int64_t parse_expr(calc_t *c)
{
    int64_t v = parse_term(c);
    for (;;) {
        skip_space(c);
        if (c->p >= c->end || (*c->p != '+' && *c->p != '-'))
            return v;
        char op = *c->p++;
        int64_t rhs = parse_term(c);
        v = apply_op(op, v, rhs, &c->err);
    }
}

int calc_eval(const char *s, size_t len, int64_t *out)
{
    calc_t c = {s, s + len, 0};
    int64_t v = parse_expr(&c);
    skip_space(&c);
    if (c.p != c.end)
        c.err = 1;
    *out = v;
    return c.err;
}
