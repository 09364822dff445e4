/* write_buffer.h - the growing byte buffer the in-memory file writers (prf_write.c, br_write.c)
 * append to, with the first failure that stopped it. Header-only and C-library-only (diag.h is
 * read for the lg_err_t type alone), because prf_write.c is also compiled on its own into the
 * example tracer, with nothing else of lorgen.
 *
 * A writer never reports a failure when it happens: the first one is kept, every later append
 * does nothing, and the writer's finish returns it; the ones after the first are only its
 * consequences.
 */
#ifndef LG_WRITE_BUFFER_H
#define LG_WRITE_BUFFER_H

#include "diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* First capacity of a buffer, in bytes: a header and a few hundred records. */
#define LG_WRITE_BUFFER_FIRST_BYTES 4096u

typedef struct lg_write_buffer {
    uint8_t *data; /* the file so far */
    size_t size, capacity;
    bool failed;    /* an append or a record could not be made; finish returns `error` */
    lg_err_t error; /* the first failure (the writer's header says which it can be) */
} lg_write_buffer_t;

/* Records err, unless an earlier failure is already the cause. */
static inline void lg_write_buffer_fail(lg_write_buffer_t *b, lg_err_t err)
{
    if (!b->failed) {
        b->failed = true;
        b->error = err;
    }
}

/* Makes room for n more bytes, doubling so that appending is linear. False when the buffer has
 * failed, or now fails because the size would overflow or memory runs out (LG_ENOMEM); the
 * bytes written so far are then kept. */
static inline bool lg_write_buffer_reserve(lg_write_buffer_t *b, size_t n)
{
    if (b->failed)
        return false;
    if (n <= b->capacity - b->size)
        return true;
    size_t cap = b->capacity ? b->capacity : LG_WRITE_BUFFER_FIRST_BYTES;
    if (n > SIZE_MAX - b->size) {
        lg_write_buffer_fail(b, LG_ENOMEM);
        return false;
    }
    size_t need = b->size + n;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *grown = realloc(b->data, cap);
    if (grown == NULL) {
        lg_write_buffer_fail(b, LG_ENOMEM);
        return false;
    }
    b->data = grown;
    b->capacity = cap;
    return true;
}

/* Appends n bytes of p. */
static inline void lg_write_buffer_put(lg_write_buffer_t *b, const void *p, size_t n)
{
    if (n == 0 || !lg_write_buffer_reserve(b, n))
        return;
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

/* Appends n zero bytes. */
static inline void lg_write_buffer_zeros(lg_write_buffer_t *b, size_t n)
{
    if (n == 0 || !lg_write_buffer_reserve(b, n))
        return;
    memset(b->data + b->size, 0, n);
    b->size += n;
}

/* Frees the bytes and empties b. */
static inline void lg_write_buffer_destroy(lg_write_buffer_t *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

#endif
