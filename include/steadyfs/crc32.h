/*
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib): the one
 * checksum of steadyfs.  The file system puts it on every tag and sector
 * payload; the UART framing on every frame.  Freestanding.
 *
 * Running form: start with crc = 0 and feed the result back in;
 * steady_crc32(0, "123456789", 9) == 0xCBF43926.
 */
#ifndef STEADYFS_CRC32_H
#define STEADYFS_CRC32_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint32_t steady_crc32(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_CRC32_H */
