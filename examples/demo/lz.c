/* lz.c - a small greedy LZ77 codec.
 *
 * Stream: a control byte c, then
 *   c < 0x80   c + 1 literal bytes follow (1..128)
 *   c >= 0x80  a match of (c & 0x7f) + LZ_MIN_MATCH bytes, then its distance (u16, little-endian)
 */
#include "demo.h"

#include <string.h>

#define LZ_MIN_MATCH 3
#define LZ_MAX_MATCH (0x7f + LZ_MIN_MATCH)
#define LZ_MAX_LITERALS 128
#define LZ_WINDOW 65535 /* bytes a match may reach back */
#define LZ_HASH_BITS 12

static uint32_t hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return (v * 2654435761u) >> (32 - LZ_HASH_BITS);
}

static size_t match_len(const uint8_t *a, const uint8_t *b, size_t max)
{
    size_t n = 0;
    while (n < max && a[n] == b[n])
        n++;
    return n;
}

/* Returns the new output position, or cap + 1 when out of room. */
static size_t emit_literals(const uint8_t *lit, size_t n, uint8_t *out, size_t o, size_t cap)
{
    while (n > 0) {
        size_t k = n < LZ_MAX_LITERALS ? n : LZ_MAX_LITERALS;
        if (o + 1 + k > cap)
            return cap + 1;
        out[o++] = (uint8_t)(k - 1);
        memcpy(out + o, lit, k);
        o += k;
        lit += k;
        n -= k;
    }
    return o;
}

static size_t emit_match(size_t len, size_t dist, uint8_t *out, size_t o, size_t cap)
{
    if (o + 3 > cap)
        return cap + 1;
    out[o++] = (uint8_t)(0x80 | (len - LZ_MIN_MATCH));
    out[o++] = (uint8_t)(dist & 0xff);
    out[o++] = (uint8_t)(dist >> 8);
    return o;
}

size_t lz_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t head[1u << LZ_HASH_BITS]; /* last position + 1 with this hash; 0 = none */
    memset(head, 0, sizeof head);
    size_t i = 0, lit = 0, o = 0;
    while (i + LZ_MIN_MATCH <= n) {
        uint32_t h = hash3(in + i);
        size_t cand = head[h];
        head[h] = i + 1;
        size_t len = 0;
        if (cand != 0 && i - (cand - 1) <= LZ_WINDOW) {
            size_t max = n - i < LZ_MAX_MATCH ? n - i : LZ_MAX_MATCH;
            len = match_len(in + cand - 1, in + i, max);
        }
        if (len < LZ_MIN_MATCH) {
            i++;
            continue;
        }
        o = emit_literals(in + lit, i - lit, out, o, cap);
        if (o > cap)
            return 0;
        o = emit_match(len, i - (cand - 1), out, o, cap);
        if (o > cap)
            return 0;
        for (size_t k = 1; k < len && i + k + LZ_MIN_MATCH <= n; k++)
            head[hash3(in + i + k)] = i + k + 1;
        i += len;
        lit = i;
    }
    o = emit_literals(in + lit, n - lit, out, o, cap);
    return o > cap ? 0 : o;
}

size_t lz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t c = in[i++];
        if (c < 0x80) {
            size_t k = (size_t)c + 1;
            if (i + k > n || o + k > cap)
                return 0;
            memcpy(out + o, in + i, k);
            i += k;
            o += k;
        } else {
            size_t len = (size_t)(c & 0x7f) + LZ_MIN_MATCH;
            if (i + 2 > n)
                return 0;
            size_t dist = (size_t)in[i] | (size_t)in[i + 1] << 8;
            i += 2;
            if (dist == 0 || dist > o || o + len > cap)
                return 0;
            for (size_t k = 0; k < len; k++, o++) /* byte by byte: matches may overlap */
                out[o] = out[o - dist];
        }
    }
    return o;
}
