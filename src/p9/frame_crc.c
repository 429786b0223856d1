/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib) for the
 * UART framing layer.  Chosen over CRC-16-CCITT because a noisy line makes
 * many damaged frames: CRC-16 lets about 1 in 65536 random corruptions
 * through, CRC-32 about 1 in 4e9, and an undetected error here would be
 * written to flash.  A 16-entry nibble table keeps it to ~100 bytes of
 * Cortex-M code; it is kept separate from the file system's copy so the
 * transport does not depend on the (still changing) fs internals. */
#include "steadyfs/frame.h"

static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t frame_crc32(uint32_t crc, const uint8_t *data, size_t len)
{
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        crc = (crc >> 4) ^ crc_nibble[crc & 15u];
        crc = (crc >> 4) ^ crc_nibble[crc & 15u];
    }
    return ~crc;
}
