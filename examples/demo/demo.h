/* demo.h - shared declarations of the lgtrace demo: a small text-processing pipeline.
 *
 * Each round generates a pseudo-random document (textgen.c), splits it into tokens (lex.c),
 * counts the words (wordtab.c), evaluates the bracketed arithmetic expressions twice - by a
 * recursive-descent evaluator (calc.c) and by a bytecode compiler plus stack machine (vm.c) -
 * compresses and decompresses the document (lz.c) and checksums it (checksum.c). At the end the
 * words are sorted (sort.c) and a report is printed (report.c). All output is deterministic.
 */
#ifndef DEMO_H
#define DEMO_H

#include <stddef.h>
#include <stdint.h>

/* buf.c - a growable byte buffer */
typedef struct buf {
    char *data;
    size_t len, cap;
} buf_t;
void buf_init(buf_t *b);
void buf_free(buf_t *b);
void buf_reserve(buf_t *b, size_t extra);
void buf_putc(buf_t *b, char c);
void buf_puts(buf_t *b, const char *s);
void buf_put_uint(buf_t *b, unsigned long v);

/* textgen.c - deterministic document generator */
typedef struct rng {
    uint64_t state;
} rng_t;
void rng_seed(rng_t *r, uint64_t seed);
uint32_t rng_next(rng_t *r);
uint32_t rng_below(rng_t *r, uint32_t n);
void gen_document(rng_t *r, buf_t *out, int sentences);

/* lex.c - tokenizer */
typedef enum tok_kind { TOK_END, TOK_WORD, TOK_NUMBER, TOK_PUNCT, TOK_EXPR } tok_kind_t;
typedef struct token {
    tok_kind_t kind;
    const char *text; /* points into the lexed text; for TOK_EXPR the part inside [ ] */
    size_t len;
    long value; /* TOK_NUMBER */
} token_t;
typedef struct lexer {
    const char *p, *end;
    unsigned line;
} lexer_t;
void lex_init(lexer_t *lx, const char *text, size_t len);
int lex_next(lexer_t *lx, token_t *t); /* 0 at the end */

/* wordtab.c - word counts in an open-addressing hash table */
typedef struct word_entry {
    char *word;
    unsigned len;
    unsigned long count;
    uint32_t hash;
} word_entry_t;
typedef struct wordtab {
    word_entry_t *slots;
    size_t cap, used;
} wordtab_t;
void wt_init(wordtab_t *t, size_t cap);
void wt_free(wordtab_t *t);
void wt_add(wordtab_t *t, const char *word, size_t len);
uint32_t wt_hash(const char *s, size_t len);
size_t wt_collect(const wordtab_t *t, word_entry_t ***out); /* caller frees *out */

/* sort.c */
void sort_entries(word_entry_t **v, size_t n); /* count descending, then word */
void sort_longs(long *v, size_t n);

/* calc.c - direct evaluation; returns 0 on success */
int calc_eval(const char *s, size_t len, int64_t *out);

/* vm.c - compile to bytecode, then run */
#define VM_MAX_CODE 1024
#define VM_MAX_CONSTS 256
typedef struct vm_prog {
    uint8_t code[VM_MAX_CODE];
    int64_t consts[VM_MAX_CONSTS];
    int ncode, nconst;
} vm_prog_t;
int vm_compile(const char *s, size_t len, vm_prog_t *p);
int vm_run(const vm_prog_t *p, int64_t *out);

/* lz.c - a small LZ77 codec */
size_t lz_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
size_t lz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

/* checksum.c */
uint32_t crc32_buf(const void *data, size_t n);
uint32_t adler32(const void *data, size_t n);
uint16_t fletcher16(const void *data, size_t n);
uint32_t checksum_combine(uint32_t a, uint32_t b);

/* report.c */
typedef struct round_stats {
    int round;
    size_t bytes, words, numbers, exprs, packed;
    int64_t expr_sum;
    uint32_t crc, adler;
    uint16_t fletcher;
} round_stats_t;
void report_round(const round_stats_t *s);
void report_top_words(word_entry_t **v, size_t n, size_t k);
void report_numbers(const long *v, size_t n);
void report_lengths(word_entry_t **v, size_t n);
void die(const char *what) __attribute__((noreturn));

#endif
