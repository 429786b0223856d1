/*
 * A device's content in the layout a device programmer takes (docs/TOOLS.md,
 * "Raw images"): for each block, for each page, the page's main area and
 * then, on NAND, its spare bytes as the device exposes them; every byte as
 * the chip holds it (0xFF erased).  Factory and grown bad NAND blocks carry
 * the device's bad-block mark: 0x00 in the first spare byte of the block's
 * first page.  NOR and MRAM: the plain array.  The simulator's own state
 * (erase counts, program counts, bit errors the on-die ECC hides) is not in
 * a raw image.
 */
#ifndef STEADYFS_HOST_IMGRAW_H
#define STEADYFS_HOST_IMGRAW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "steadyfs/sim.h"

/* Bytes of one block in a raw image of profile p. */
uint64_t imgraw_block_bytes(const sim_profile *p);
/* Write the raw content of an attached device to out.  0 or -1 (err). */
int imgraw_write(const sim_dev *d, FILE *out, char *err, size_t errlen);
/* Make a simulated-device image file `out` of `profile` from raw file
 * `raw` (its size sets the block count).  Never replaces an existing out
 * unless force; made under a temporary name and renamed at the end, so a
 * failure leaves nothing behind.  0 or -1 (err). */
int imgraw_import(const char *raw, const char *profile, const char *out, int force,
                  uint32_t *blocks_out, uint32_t *bad_out, char *err, size_t errlen);
/* Export image file `img` (any profile) to raw file `out` (same rules for
 * replacing and failing).  0 or -1 (err). */
int imgraw_export(const char *img, const char *out, int force, uint32_t *blocks_out,
                  uint32_t *bad_out, char *err, size_t errlen);

#endif
