/* arm_attributes.c - Tag_CPU_arch from an Arm build attributes section (arm_attributes.h). */
#include "arm_attributes.h"

#include <string.h>

enum {
    TAG_FILE = 1,           /* a sub-subsection for the whole file */
    TAG_CPU_RAW_NAME = 4,   /* string */
    TAG_CPU_NAME = 5,       /* string */
    TAG_CPU_ARCH = 6,       /* ULEB128: what lorgen wants */
    TAG_COMPATIBILITY = 32, /* ULEB128, then a string */
    TAG_CONFORMANCE = 67,   /* string */
};

/* A cursor over [p, end): every read checks the bytes are there and fails (ok = false) if not. */
typedef struct cursor {
    const unsigned char *p, *end;
    bool ok;
} cursor_t;

static uint64_t uleb(cursor_t *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; c->ok; shift += 7) {
        if (c->p >= c->end || shift > 63) {
            c->ok = false;
            return 0;
        }
        unsigned char b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    return 0;
}

static void skip_string(cursor_t *c)
{
    const unsigned char *nul = c->p < c->end ? memchr(c->p, 0, (size_t)(c->end - c->p)) : NULL;
    if (nul == NULL)
        c->ok = false;
    else
        c->p = nul + 1;
}

static uint32_t u32(const unsigned char *p, bool big_endian)
{
    return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                      : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Tag_CPU_arch among the attributes in c, or 0. */
static unsigned cpu_arch_in(cursor_t *c)
{
    while (c->ok && c->p < c->end) {
        uint64_t tag = uleb(c);
        if (tag == TAG_CPU_ARCH) {
            uint64_t arch = uleb(c);
            return c->ok && arch <= 0xff ? (unsigned)arch : 0;
        }
        if (tag == TAG_COMPATIBILITY) {
            uleb(c);
            skip_string(c);
        } else if (tag == TAG_CPU_RAW_NAME || tag == TAG_CPU_NAME || tag == TAG_CONFORMANCE ||
                   (tag > TAG_COMPATIBILITY && tag % 2 == 1)) {
            skip_string(c);
        } else {
            uleb(c);
        }
    }
    return 0;
}

unsigned lg_arm_cpu_arch(const unsigned char *data, size_t len, bool big_endian)
{
    if (data == NULL || len < 1 || data[0] != 'A')
        return 0;
    size_t at = 1;
    while (len - at >= 4) {
        uint32_t size = u32(data + at, big_endian);
        if (size < 4 || size > len - at)
            return 0;
        const unsigned char *sub = data + at, *sub_end = sub + size;
        cursor_t c = {sub + 4, sub_end, true};
        const unsigned char *vendor = c.p;
        skip_string(&c);
        if (c.ok && strcmp((const char *)vendor, "aeabi") == 0) {
            while (sub_end - c.p >= 5) {
                uint32_t part = u32(c.p + 1, big_endian);
                if (part < 5 || part > (size_t)(sub_end - c.p))
                    return 0;
                if (c.p[0] == TAG_FILE) {
                    cursor_t a = {c.p + 5, c.p + part, true};
                    unsigned arch = cpu_arch_in(&a);
                    if (arch != 0)
                        return arch;
                }
                c.p += part;
            }
        }
        at += size;
    }
    return 0;
}

bool lg_arm_arch_thumb1_only(unsigned arch)
{
    return arch == LG_ARM_ARCH_V6_M || arch == LG_ARM_ARCH_V6S_M || arch == LG_ARM_ARCH_V8_M_BASE;
}
