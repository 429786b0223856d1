/* Test fixture: the SPI NAND driver on the chip model on a simulated
 * mt29f1g01 in a malloc'd image.  Header-only (static), for tests. */
#ifndef STEADYFS_TEST_SPINAND_FIXTURE_H
#define STEADYFS_TEST_SPINAND_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "steadyfs/sim.h"
#include "steadyfs/sim_spinand.h"
#include "steadyfs/spinand.h"

typedef struct snfx {
    sim_dev dev;
    uint8_t *img;
    sim_spinand chip;
    uint8_t *cache;
    spinand drv;
    spinand_config cfg;
    uint32_t map[64];
} snfx;

/* Device and chip only (tests that drive the chip by hand). */
static inline int snfx_chip(snfx *f, uint32_t blocks, sim_timing t, uint64_t seed)
{
    const sim_profile *p = sim_profile_find("mt29f1g01");
    uint64_t len;
    memset(f, 0, sizeof *f);
    if (!p || blocks > 64u * 32u)
        return -1;
    len = sim_image_size(p, blocks);
    f->img = calloc(1, (size_t)len);
    if (!f->img || sim_init(&f->dev, p, blocks, f->img, len, t, seed, 1))
        return -1;
    f->cache = calloc(1, sim_spinand_cache_size(&f->dev));
    if (!f->cache)
        return -1;
    return sim_spinand_init(&f->chip, &f->dev, NULL, f->cache, sim_spinand_cache_size(&f->dev),
                            0x2C, 0x14, seed);
}

/* Everything: device, chip, driver (quad: x4 data phases). */
static inline int snfx_open(snfx *f, uint32_t blocks, sim_timing t, uint64_t seed, int quad)
{
    if (snfx_chip(f, blocks, t, seed))
        return -1;
    f->cfg.xfer = sim_spinand_xfer;
    f->cfg.delay_us = sim_spinand_delay_us;
    f->cfg.ctx = &f->chip;
    f->cfg.blocks = blocks;
    f->cfg.quad = (uint8_t)quad;
    f->cfg.bad_map = f->map;
    f->cfg.bad_map_words = SPINAND_MAP_WORDS(blocks);
    return spinand_init(&f->drv, &f->cfg);
}

static inline void snfx_close(snfx *f)
{
    free(f->img);
    free(f->cache);
}

/* A raw transaction to the chip, as a driver would send it. */
static inline int snfx_op(snfx *f, uint8_t cmd, uint8_t alen, uint32_t addr, uint8_t dummy,
                          const uint8_t *tx, uint8_t *rx, uint32_t len)
{
    spinand_op op;
    op.cmd = cmd;
    op.addr_len = alen;
    op.dummy_len = dummy;
    op.data_lines = 1;
    op.addr = addr;
    op.tx = tx;
    op.rx = rx;
    op.len = len;
    return sim_spinand_xfer(&f->chip, &op);
}

static inline uint8_t snfx_status(snfx *f)
{
    uint8_t v = 0xEE;
    if (snfx_op(f, SPINAND_CMD_GET_FEATURE, 1, SPINAND_FEAT_STATUS, 0, NULL, &v, 1))
        return 0xEE;
    return v;
}

#endif
