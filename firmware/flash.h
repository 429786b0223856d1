/*
 * The board's flash: a simulated NAND (src/bd device model) whose image
 * lives in PSRAM and is persisted to a host file through semihosting.
 *
 * Persistence is write-through: after every program, erase and bad-block
 * mark the image bytes that operation changed (page data + spare, page
 * metadata, block metadata; docs/SIM-IMAGE.md) are written to the host
 * file before the operation returns.  So the host file is the flash chip:
 * a reset of the board at any moment loses at most the operation in
 * flight, as a power cut on the real part would, and never anything an
 * operation already reported done.  Each semihosting call completes as one
 * instruction for QEMU, so a reset falls between calls; data is written
 * before metadata.
 *
 * RAM: sizeof(fw_flash) (dominated by sim_dev's 512-byte SD state, unused
 * for NAND) + the image, sim_image_size(profile, blocks), in PSRAM.
 */
#ifndef FW_FLASH_H
#define FW_FLASH_H

#include <stdint.h>

#include "steadyfs/bd.h"
#include "steadyfs/sim.h"

typedef struct fw_flash {
    sbd bd;            /* what the file system uses: write-through ops */
    sim_dev sim;       /* the device model underneath */
    int32_t handle;    /* semihosting handle of the image file */
    uint32_t stride;   /* page + spare bytes */
    uint32_t page_meta_size;
    uint32_t block_meta_off, page_meta_off, data_off;
    uint32_t image_len;
    uint32_t persist_errors;
    uint32_t persist_calls;
    uint64_t persist_bytes;
} fw_flash;

enum fw_flash_open_result { FW_FLASH_LOADED = 0, FW_FLASH_FORMATTED = 1 };

/* Attach the device `p` with `blocks` blocks to the image buffer
 * [img, img + cap) and the host file `path`: load it if it holds this
 * device's image, format a new one if the file is missing or empty.
 * Returns FW_FLASH_LOADED, FW_FLASH_FORMATTED or a negative SBD_ERR_*
 * (SBD_ERR_INVAL: the file holds something else -- never overwritten;
 * SBD_ERR_IO: semihosting failed; SBD_ERR_RANGE: cap too small). */
int fw_flash_open(fw_flash *f, const char *path, const sim_profile *p, uint32_t blocks,
                  uint64_t seed, uint8_t *img, uint32_t cap);
int fw_flash_close(fw_flash *f);

#endif
