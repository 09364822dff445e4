/* frames.c - a frame: a cleared header, the tag with its length, the value as text. */
#include "fw.h"

#include <stdio.h>
#include <string.h>

#define HEADER 8u /* bytes: sync, tag length, reserved */

FW_NOINLINE size_t frame_build(uint8_t *out, size_t cap, const char *tag, int32_t value)
{
    size_t taglen = strlen(tag);
    if (HEADER + taglen + 1 > cap)
        return 0;
    memset(out, 0, HEADER);
    out[0] = 0x7e;
    out[1] = (uint8_t)taglen;
    memcpy(out + HEADER, tag, taglen);
    char *text = (char *)out + HEADER + taglen;
    int n = snprintf(text, cap - HEADER - taglen, "=%ld", (long)value);
    if (n < 0 || (size_t)n >= cap - HEADER - taglen)
        return 0;
    return HEADER + taglen + strlen(text);
}

FW_NOINLINE uint32_t frame_crc(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc & 1u) ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return ~crc;
}
