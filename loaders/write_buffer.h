/* write_buffer.h - the growing byte buffer the in-memory file writers (prf_write.c, br_write.c)
 * append to. Header-only and C-library-only, because prf_write.c is also compiled on its own into
 * the example tracer, with nothing else of lorgen. */
#ifndef LG_WRITE_BUFFER_H
#define LG_WRITE_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes room for n more bytes after *size in *data (capacity *capacity, first_capacity when
 * empty), doubling so that appending is linear. False when the size would overflow or memory
 * runs out; *data and *capacity are then unchanged. */
static inline bool lg_write_buffer_reserve(uint8_t **data, size_t size, size_t *capacity,
                                           size_t n, size_t first_capacity)
{
    if (n <= *capacity - size)
        return true;
    if (n > SIZE_MAX - size)
        return false;
    size_t need = size + n;
    size_t cap = *capacity ? *capacity : first_capacity;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *grown = realloc(*data, cap);
    if (grown == NULL)
        return false;
    *data = grown;
    *capacity = cap;
    return true;
}

#endif
