/* vm.c - compiles an arithmetic expression (the grammar of calc.c) to bytecode for a stack
 * machine, folds constant operations, and runs it. Must agree with calc_eval on every input. */
#include "demo.h"

#include <stdint.h>

#define VM_STACK 64 /* values; the generator nests far less deeply */

enum op { OP_END, OP_CONST, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW, OP_NEG };

typedef struct compiler {
    const char *p, *end;
    vm_prog_t *prog;
    int err;
} compiler_t;

static void emit(compiler_t *c, int op)
{
    if (c->prog->ncode >= VM_MAX_CODE) {
        c->err = 1;
        return;
    }
    c->prog->code[c->prog->ncode++] = (uint8_t)op;
}

static void emit_const(compiler_t *c, int64_t v)
{
    if (c->prog->nconst >= VM_MAX_CONSTS) {
        c->err = 1;
        return;
    }
    c->prog->consts[c->prog->nconst] = v;
    emit(c, OP_CONST);
    emit(c, c->prog->nconst++);
}

static int peek(compiler_t *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
    return c->p < c->end ? *c->p : -1;
}

static void c_expr(compiler_t *c);

static void c_primary(compiler_t *c)
{
    int ch = peek(c);
    if (ch == '(') {
        c->p++;
        c_expr(c);
        if (peek(c) == ')')
            c->p++;
        else
            c->err = 1;
        return;
    }
    if (ch < '0' || ch > '9') {
        c->err = 1;
        return;
    }
    int64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        v = v * 10 + (*c->p++ - '0');
    emit_const(c, v);
}

static void c_unary(compiler_t *c)
{
    if (peek(c) == '-') {
        c->p++;
        c_unary(c);
        emit(c, OP_NEG);
        return;
    }
    c_primary(c);
}

static void c_power(compiler_t *c)
{
    c_unary(c);
    if (peek(c) == '^') {
        c->p++;
        c_power(c);
        emit(c, OP_POW);
    }
}

static void c_term(compiler_t *c)
{
    c_power(c);
    for (int ch; (ch = peek(c)) == '*' || ch == '/' || ch == '%';) {
        c->p++;
        c_power(c);
        emit(c, ch == '*' ? OP_MUL : ch == '/' ? OP_DIV : OP_MOD);
    }
}

static void c_expr(compiler_t *c)
{
    c_term(c);
    for (int ch; (ch = peek(c)) == '+' || ch == '-';) {
        c->p++;
        c_term(c);
        emit(c, ch == '+' ? OP_ADD : OP_SUB);
    }
}

/* One step of the machine on two operands. Returns 0, or 1 on a run-time error. */
static int binop(int op, int64_t a, int64_t b, int64_t *out)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r = 1;
    switch (op) {
    case OP_ADD:
        *out = (int64_t)(ua + ub);
        return 0;
    case OP_SUB:
        *out = (int64_t)(ua - ub);
        return 0;
    case OP_MUL:
        *out = (int64_t)(ua * ub);
        return 0;
    case OP_DIV:
    case OP_MOD:
        if (b == 0 || (a == INT64_MIN && b == -1))
            return 1;
        *out = op == OP_DIV ? a / b : a % b;
        return 0;
    case OP_POW:
        if (b < 0)
            return 1;
        for (; b > 0; b >>= 1, ua *= ua)
            if (b & 1)
                r *= ua;
        *out = (int64_t)r;
        return 0;
    default:
        return 1;
    }
}

/* Replaces CONST a CONST b OP by CONST (a OP b) until nothing changes; leaves failing
 * operations for run time, where they report the error. Returns the number of folds. */
static int fold_constants(vm_prog_t *p)
{
    int folds = 0, changed = 1;
    while (changed) {
        changed = 0;
        /* i steps over whole instructions: CONST takes an operand byte, the others none. */
        for (int i = 0; i < p->ncode; i += p->code[i] == OP_CONST ? 2 : 1) {
            if (i + 4 >= p->ncode || p->code[i] != OP_CONST || p->code[i + 2] != OP_CONST)
                continue;
            int op = p->code[i + 4];
            int64_t v;
            if (op < OP_ADD || op > OP_POW ||
                binop(op, p->consts[p->code[i + 1]], p->consts[p->code[i + 3]], &v) != 0)
                continue;
            p->consts[p->code[i + 1]] = v;
            for (int j = i + 2; j + 3 < p->ncode; j++)
                p->code[j] = p->code[j + 3];
            p->ncode -= 3;
            folds++;
            changed = 1;
        }
    }
    return folds;
}

int vm_compile(const char *s, size_t len, vm_prog_t *p)
{
    compiler_t c = {s, s + len, p, 0};
    p->ncode = p->nconst = 0;
    c_expr(&c);
    if (peek(&c) != -1)
        c.err = 1;
    emit(&c, OP_END);
    if (c.err)
        return 1;
    fold_constants(p);
    return 0;
}

int vm_run(const vm_prog_t *p, int64_t *out)
{
    int64_t stack[VM_STACK];
    int sp = 0;
    for (int pc = 0;;) {
        int op = p->code[pc++];
        switch (op) {
        case OP_END:
            if (sp != 1)
                return 1;
            *out = stack[0];
            return 0;
        case OP_CONST:
            if (sp >= VM_STACK)
                return 1;
            stack[sp++] = p->consts[p->code[pc++]];
            break;
        case OP_NEG:
            if (sp < 1)
                return 1;
            stack[sp - 1] = (int64_t)((uint64_t)0 - (uint64_t)stack[sp - 1]);
            break;
        default:
            if (sp < 2 || binop(op, stack[sp - 2], stack[sp - 1], &stack[sp - 2]) != 0)
                return 1;
            sp--;
            break;
        }
    }
}
