/* checksum.c - CRC-32 (IEEE, table-driven), Adler-32 and Fletcher-16. */
#include "demo.h"

static uint32_t crc_table[256];
static int crc_ready;

/* Cold: runs once. */
static void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
    crc_ready = 1;
}

uint32_t crc32_buf(const void *data, size_t n)
{
    const uint8_t *p = data;
    if (!crc_ready)
        crc32_init();
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

uint32_t adler32(const void *data, size_t n)
{
    const uint8_t *p = data;
    uint32_t a = 1, b = 0;
    while (n > 0) {
        size_t k = n < 5552 ? n : 5552; /* largest block before b can overflow */
        n -= k;
        while (k-- > 0) {
            a += *p++;
            b += a;
        }
        a %= 65521u;
        b %= 65521u;
    }
    return b << 16 | a;
}

uint16_t fletcher16(const void *data, size_t n)
{
    const uint8_t *p = data;
    uint32_t s1 = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s1 = (s1 + p[i]) % 255u;
        s2 = (s2 + s1) % 255u;
    }
    return (uint16_t)(s2 << 8 | s1);
}

/* Same name as the static in wordtab.c, different function: a 32-bit finalizer (murmur3). */
static __attribute__((noinline)) uint32_t mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t checksum_combine(uint32_t a, uint32_t b)
{
    return mix(a ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2)));
}
