/*
 * A steadyfs file system on a host handle (include/steadyfs/host.h, the
 * sh_fs part): the host mallocs the context, work area and sector buffer
 * that firmware would place statically, so Python (ctypes) and host tools
 * can run the core on any sh_dev -- simulated or a real file / block device.
 */
#include <stdlib.h>
#include <string.h>

#include "host/sh_internal.h"
#include "steadyfs/host.h"

struct sh_fs {
    steadyfs fs;           /* first: sh_fs_ctx is a cast-free address */
    steadyfs_config cfg;
    void *work;
    void *sector;
    uint32_t ram;
};

sh_fs *sh_fs_new(sh_dev *h, const sh_fs_config *c, int *err)
{
    sh_fs *f;
    steadyfs_config cfg;
    sbd_geometry geo;
    uint32_t ws, ss;

    if (err)
        *err = 0;
    if (!h) {
        sh_set_error("sh_fs_new: no device");
        if (err)
            *err = STEADYFS_EINVAL;
        return NULL;
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.bd = sh_bd(h);
    if (c) {
        /* Narrowing is checked: a value that does not fit is a bad config,
         * not a silently different one. */
        if (c->open_max > 0xFFFF || c->pending_max > 0xFFFF || c->replay_max > 0xFFFF ||
            c->max_inodes > 0xFFFF || c->fill_permille > 0xFFFF || c->file_pages_log2 > 0xFF ||
            c->dir_pages > 0xFF) {
            sh_set_error("sh_fs_new: configuration field out of range");
            if (err)
                *err = STEADYFS_EINVAL;
            return NULL;
        }
        cfg.open_max = (uint16_t)c->open_max;
        cfg.pending_max = (uint16_t)c->pending_max;
        cfg.replay_max = (uint16_t)c->replay_max;
        cfg.max_inodes = (uint16_t)c->max_inodes;
        cfg.fill_permille = (uint16_t)c->fill_permille;
        cfg.file_pages_log2 = (uint8_t)c->file_pages_log2;
        cfg.dir_pages = (uint8_t)c->dir_pages;
        cfg.sector_size = c->sector_size;
        cfg.erase_mult = c->erase_mult;
    }
    ws = steadyfs_work_size(&cfg);
    if (!ws) {
        sh_geometry(h, &geo);
        sh_set_error("steadyfs: configuration rejected for this device (page %u B, %u blocks of %u pages)",
                     geo.page_size, geo.block_count, geo.pages_per_block);
        if (err)
            *err = STEADYFS_EINVAL;
        return NULL;
    }
    ss = cfg.sector_size ? cfg.sector_size : 2048;
    f = calloc(1, sizeof *f);
    if (f) {
        f->work = calloc(1, ws);
        f->sector = calloc(1, ss);
    }
    if (!f || !f->work || !f->sector) {
        sh_set_error("sh_fs_new: out of memory");
        if (err)
            *err = STEADYFS_EIO;
        if (f) {
            free(f->work);
            free(f->sector);
            free(f);
        }
        return NULL;
    }
    cfg.work = f->work;
    cfg.work_size = ws;
    cfg.sector_buf = f->sector;
    f->cfg = cfg;
    f->ram = (uint32_t)sizeof(steadyfs) + ws + ss;
    return f;
}

void sh_fs_free(sh_fs *f)
{
    if (!f)
        return;
    if (f->fs.mounted)
        (void)steadyfs_unmount(&f->fs);
    free(f->work);
    free(f->sector);
    free(f);
}

int sh_fs_format(sh_fs *f)
{
    if (f->fs.mounted)
        return STEADYFS_EBUSY;
    return steadyfs_format(&f->fs, &f->cfg);
}

int sh_fs_mount(sh_fs *f)
{
    if (f->fs.mounted)
        return STEADYFS_EBUSY;
    return steadyfs_mount(&f->fs, &f->cfg);
}

int sh_fs_unmount(sh_fs *f) { return steadyfs_unmount(&f->fs); }

int sh_fs_mounted(const sh_fs *f) { return f->fs.mounted != 0; }

steadyfs *sh_fs_ctx(sh_fs *f) { return &f->fs; }

uint32_t sh_fs_ram(const sh_fs *f) { return f->ram; }

void sh_fs_counters_get(const sh_fs *f, sh_fs_counters *out)
{
    out->data = f->fs.n_data;
    out->copy = f->fs.n_copy;
    out->map = f->fs.n_map;
    out->ckpt = f->fs.n_ckpt;
    out->erase = f->fs.n_erase;
    out->victim = f->fs.n_victim;
}
