/* comms.c - framing with a bitwise CRC. */
#include "fw.h"

static u32 queued;

FW_NOINLINE u32 comms_crc(u32 crc, u32 byte)
{
    crc ^= byte & 0xffu;
    for (int i = 0; i < 8; i++)
        crc = (crc & 1u) ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    return crc;
}

FW_NOINLINE void comms_put(u32 byte)
{
    queued += byte & 0xffu;
}

FW_NOINLINE u32 comms_pending(void)
{
    return queued;
}

FW_NOINLINE u32 comms_frame(u32 value)
{
    u32 crc = 0xffffffffu;
    for (u32 i = 0; i < 4; i++) {
        u32 byte = (value >> (8u * i)) & 0xffu;
        crc = comms_crc(crc, byte);
        comms_put(byte);
    }
    return ~crc;
}
