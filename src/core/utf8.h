/* utf8.h - the length of a valid UTF-8 sequence, for the writers that must emit valid UTF-8
 * (JSON, HTML) from names that are only bytes. */
#ifndef LG_UTF8_H
#define LG_UTF8_H

#include <stddef.h>

/* Length (2 to 4) of the valid, shortest-form UTF-8 sequence that starts at s (a byte >= 0x80),
 * or 0 when s does not start one (stray continuation byte, overlong form, surrogate, above
 * U+10FFFF, or cut short by the terminating NUL). Reads at most 4 bytes and never past a NUL. */
static inline size_t lg_utf8_seq_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0u) != 0x80u) /* also stops at the NUL */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFFu || (cp >= 0xD800u && cp <= 0xDFFFu))
        return 0;
    return len;
}

#endif
