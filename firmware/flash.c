/* The board's flash: device model + write-through persistence (flash.h). */
#include "flash.h"

#include <string.h>

#include "semihost.h"

static uint64_t img_u64(const uint8_t *img, uint32_t off)
{
    uint64_t v;
    memcpy(&v, img + off, sizeof v);
    return v;
}

static uint32_t img_u32(const uint8_t *img, uint32_t off)
{
    uint32_t v;
    memcpy(&v, img + off, sizeof v);
    return v;
}

static void persist_range(fw_flash *f, uint32_t off, uint32_t len)
{
    f->persist_calls++;
    f->persist_bytes += len;
    if (sh_seek(f->handle, off) != 0 ||
        sh_write(f->handle, f->sim.image + off, len) != 0)
        f->persist_errors++;
}

/* Write pages [p0, p1) of `block` and their metadata, data first. */
static void persist_pages(fw_flash *f, uint32_t block, uint32_t p0, uint32_t p1)
{
    uint32_t ppb = f->sim.bd.geo.pages_per_block;
    uint32_t first = block * ppb + p0, n = p1 - p0;
    persist_range(f, f->data_off + first * f->stride, n * f->stride);
    if (f->page_meta_size)
        persist_range(f, f->page_meta_off + first * f->page_meta_size,
                      n * f->page_meta_size);
}

static void persist_block_meta(fw_flash *f, uint32_t block)
{
    persist_range(f, f->block_meta_off + block * 8u, 8u);
}

static int fw_read(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len,
                   void *spare, uint32_t spare_len)
{
    fw_flash *f = ctx;
    return sbd_read(&f->sim.bd, block, off, buf, len, spare, spare_len);
}

static int fw_prog(void *ctx, uint32_t block, uint32_t off, const void *buf, uint32_t len,
                   const void *spare, uint32_t spare_len)
{
    fw_flash *f = ctx;
    int rc = sbd_prog(&f->sim.bd, block, off, buf, len, spare, spare_len);
    uint32_t ps = f->sim.bd.geo.page_size;
    /* A failed program may still have changed the medium (torn, failed
     * status): persist whatever the model did, unless it refused outright. */
    if (rc != SBD_ERR_RANGE && rc != SBD_ERR_INVAL && len)
        persist_pages(f, block, off / ps, (off + len - 1u) / ps + 1u);
    return rc;
}

static int fw_erase(void *ctx, uint32_t block, uint32_t count)
{
    fw_flash *f = ctx;
    int rc = sbd_erase(&f->sim.bd, block, count);
    if (rc != SBD_ERR_RANGE && rc != SBD_ERR_INVAL && f->sim.bd.geo.needs_erase) {
        for (uint32_t b = block; b < block + count; b++) {
            persist_pages(f, b, 0, f->sim.bd.geo.pages_per_block);
            persist_block_meta(f, b);
        }
    }
    return rc;
}

static int fw_sync(void *ctx)
{
    fw_flash *f = ctx;
    /* Everything is already on the host file: write-through. */
    int rc = sbd_sync(&f->sim.bd);
    return rc ? rc : (f->persist_errors ? SBD_ERR_IO : 0);
}

static int fw_is_bad(void *ctx, uint32_t block)
{
    fw_flash *f = ctx;
    return sbd_is_bad(&f->sim.bd, block);
}

static int fw_mark_bad(void *ctx, uint32_t block)
{
    fw_flash *f = ctx;
    int rc = sbd_mark_bad(&f->sim.bd, block);
    if (rc == 0)
        persist_block_meta(f, block);
    return rc;
}

static const sbd_ops fw_flash_ops = {
    .read = fw_read,
    .prog = fw_prog,
    .erase = fw_erase,
    .sync = fw_sync,
    .is_bad = fw_is_bad,
    .mark_bad = fw_mark_bad,
};

int fw_flash_open(fw_flash *f, const char *path, const sim_profile *p, uint32_t blocks,
                  uint64_t seed, uint8_t *img, uint32_t cap)
{
    uint64_t need = sim_image_size(p, blocks);
    int result = FW_FLASH_LOADED, rc;
    int32_t h, len;

    memset(f, 0, sizeof *f);
    f->handle = -1;
    if (need > cap)
        return SBD_ERR_RANGE;
    f->image_len = (uint32_t)need;

    h = sh_open(path, SH_MODE_RPB);
    len = h >= 0 ? sh_flen(h) : 0;
    if (h >= 0 && len > 0) {
        /* Something is there: it must be this device, never overwritten. */
        if ((uint32_t)len != f->image_len || sh_read(h, img, f->image_len) != 0) {
            sh_close(h);
            return SBD_ERR_INVAL;
        }
        rc = sim_init(&f->sim, p, blocks, img, need, SIM_TYPICAL, seed, 0);
        if (rc) {
            sh_close(h);
            return rc;
        }
    } else {
        /* Missing, or empty (a reset before the first write completed). */
        if (h >= 0)
            sh_close(h);
        rc = sim_init(&f->sim, p, blocks, img, need, SIM_TYPICAL, seed, 1);
        if (rc)
            return rc;
        h = sh_open(path, SH_MODE_WPB);
        if (h < 0)
            return SBD_ERR_IO;
        if (sh_write(h, img, f->image_len) != 0) {
            sh_close(h);
            return SBD_ERR_IO;
        }
        result = FW_FLASH_FORMATTED;
    }
    f->handle = h;
    f->stride = f->sim.bd.geo.page_size + f->sim.bd.geo.spare_size;
    /* offsets from the image header (docs/SIM-IMAGE.md); the image is
     * < 4 GiB on this board */
    f->page_meta_size = img_u32(img, 68);
    f->block_meta_off = (uint32_t)img_u64(img, 72);
    f->page_meta_off = (uint32_t)img_u64(img, 80);
    f->data_off = (uint32_t)img_u64(img, 88);
    f->bd.ops = &fw_flash_ops;
    f->bd.ctx = f;
    f->bd.geo = f->sim.bd.geo;
    return result;
}

int fw_flash_close(fw_flash *f)
{
    int rc = f->persist_errors ? SBD_ERR_IO : 0;
    if (f->handle >= 0 && sh_close(f->handle) != 0)
        rc = SBD_ERR_IO;
    f->handle = -1;
    return rc;
}
