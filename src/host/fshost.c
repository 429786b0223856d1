/*
 * A steadyfs file system on a host handle (include/steadyfs/host.h, the
 * sh_fs part): the host mallocs the context, work area and sector buffer
 * that firmware would place statically, so Python (ctypes) and host tools
 * can run the core on any sh_dev -- simulated or a real file / block device.
 *
 * Read alignment.  The core reads tags (32 B) and map words (4 B) with
 * sub-unit reads; bd.h requires reads aligned to geo.read_size.  The
 * simulated flash parts have read_size 1, so nothing changes there; on a
 * device with a larger read unit (a Linux file or block device: 512 B, the
 * SD models) the core's reads would fail (SBD_ERR_RANGE -> EIO at mount).
 * Until the core aligns its own reads, the file system runs on an sbd that
 * forwards every operation and widens a misaligned read to the aligned
 * span around it, through a bounce buffer -- what the kernel's page cache
 * would do for an unaligned read.  Timing: the widened read is what the
 * device really does, so the clock stays honest.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/sh_internal.h"
#include "steadyfs/host.h"

struct sh_fs {
    steadyfs fs;           /* first: sh_fs_ctx is a cast-free address */
    steadyfs_config cfg;
    void *work;
    void *sector;
    void *hold;            /* the held sector's buffer (NULL: none) */
    uint32_t ram, work_size, sector_size, hold_size;
    const sbd *lower;      /* the handle's device */
    sbd shim;              /* what the core runs on (read alignment, above) */
    uint8_t *bounce;       /* bounce_len bytes, a multiple of read_size */
    uint32_t bounce_len;
};

static int shim_read(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len, void *spare,
                     uint32_t spare_len)
{
    sh_fs *f = ctx;
    const sbd *lo = f->lower;
    uint32_t rs = lo->geo.read_size, bsize = sbd_block_size(lo);
    uint32_t a0, a1, pos;
    int rc, worst = 0;
    if (rs <= 1 || (off % rs == 0 && len % rs == 0) || spare_len || !len || off > bsize ||
        len > bsize - off)
        return sbd_read(lo, block, off, buf, len, spare, spare_len);  /* as is: the device judges */
    a0 = off - off % rs;
    a1 = off + len;
    a1 += (rs - a1 % rs) % rs;
    for (pos = a0; pos < a1; pos += f->bounce_len) {
        uint32_t n = a1 - pos < f->bounce_len ? a1 - pos : f->bounce_len;
        uint32_t lo_b = pos > off ? pos : off;
        uint32_t hi_b = pos + n < off + len ? pos + n : off + len;
        rc = sbd_read(lo, block, pos, f->bounce, n, NULL, 0);
        if (rc < 0 && rc != SBD_ERR_ECC)
            return rc;
        if (hi_b > lo_b)
            memcpy((uint8_t *)buf + (lo_b - off), f->bounce + (lo_b - pos), hi_b - lo_b);
        if (rc == SBD_ERR_ECC)
            return rc;
        if (rc > worst)
            worst = rc;
    }
    return worst;
}

static int shim_prog(void *ctx, uint32_t block, uint32_t off, const void *buf, uint32_t len,
                     const void *spare, uint32_t spare_len)
{
    sh_fs *f = ctx;
    return sbd_prog(f->lower, block, off, buf, len, spare, spare_len);
}

static int shim_erase(void *ctx, uint32_t block, uint32_t count)
{
    sh_fs *f = ctx;
    return sbd_erase(f->lower, block, count);
}

static int shim_sync(void *ctx)
{
    sh_fs *f = ctx;
    return sbd_sync(f->lower);
}

static int shim_is_bad(void *ctx, uint32_t block)
{
    sh_fs *f = ctx;
    return sbd_is_bad(f->lower, block);
}

static int shim_mark_bad(void *ctx, uint32_t block)
{
    sh_fs *f = ctx;
    return sbd_mark_bad(f->lower, block);
}

static int shim_progv(void *ctx, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n)
{
    sh_fs *f = ctx;
    return sbd_progv(f->lower, block, off, iov, n);
}

static const sbd_ops shim_ops = {shim_read, shim_prog, shim_erase, shim_sync, shim_is_bad,
                                 shim_mark_bad, NULL};
/* (gathered programs offered where the device below offers them) */
static const sbd_ops shim_ops_gather = {shim_read, shim_prog, shim_erase, shim_sync, shim_is_bad,
                                        shim_mark_bad, shim_progv};

/* The shim on lower with a bounce buffer for one widened read of a
 * sector of ss bytes, and the sector buffer itself.  0 or -1 (no memory). */
static int shim_setup(sh_fs *f, const sbd *lower, uint32_t ss)
{
    uint32_t rs = lower->geo.read_size > 1 ? lower->geo.read_size : 1;
    f->sector = calloc(1, ss);
    /* a sector plus one read unit each side: one widened read */
    f->bounce_len = (ss + 2 * rs + rs - 1) / rs * rs;
    f->bounce = calloc(1, f->bounce_len);
    f->lower = lower;
    f->shim.ops = lower->ops->progv ? &shim_ops_gather : &shim_ops;
    f->shim.ctx = f;
    f->shim.geo = lower->geo;
    f->sector_size = ss;
    return f->sector && f->bounce ? 0 : -1;
}

int64_t sh_clock_ns(void)
{
    struct timespec ts;
    /* reproducible images (reproducible-builds.org): every time the file
     * system sets is SOURCE_DATE_EPOCH when the environment gives it */
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde) {
        char *end;
        long long v = strtoll(sde, &end, 10);
        if (!*end && v >= 0 && v < 9000000000LL)
            return (int64_t)v * 1000000000;
    }
    if (clock_gettime(CLOCK_REALTIME, &ts))
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define SH_STR2(x) #x
#define SH_STR(x) SH_STR2(x)

const char *sh_fs_strerror(int rc)
{
    if (rc == STEADYFS_EFORMAT)
        return "the image was made by another steadyfs format version (this one reads "
               "format " SH_STR(STEADYFS_FORMAT_VERSION) "; no migration: copy its files out "
               "with the steadyfs that made it)";
    return steadyfs_strerror(rc);
}

int sh_fs_own_root(steadyfs *fs)
{
    steadyfs_attr a = {STEADYFS_ATTR_UID | STEADYFS_ATTR_GID, 0, 0, 0, 0};
    if (getuid() == 0)
        return 0;
    a.uid = (uint32_t)getuid();
    a.gid = (uint32_t)getgid();
    return steadyfs_setattr(fs, "/", &a);
}

static int probe_sizes(steadyfs *scratch, steadyfs_config *cfg)
{
    /* the format's sector size is not in the image header (SIM-IMAGE.md):
     * the default first, then the other sizes the core accepts */
    static const uint32_t sizes[] = {0, 512, 1024, 4096, 8192, 16384};
    unsigned i;
    int rc = STEADYFS_ECORRUPT;
    if (cfg->sector_size)
        return steadyfs_probe(scratch, cfg);
    for (i = 0; i < sizeof sizes / sizeof sizes[0] && rc && rc != STEADYFS_EFORMAT; i++) {
        if (sizes[i] && sizes[i] % cfg->bd->geo.page_size)
            continue;
        cfg->sector_size = sizes[i];
        rc = steadyfs_probe(scratch, cfg);
    }
    if (rc)
        cfg->sector_size = 0;
    return rc;
}

int sh_probe_format(steadyfs *scratch, steadyfs_config *cfg)
{
    /* nor is the erase unit: the medium's default first, then its middle
     * erase (NOR 32 KiB: `--erase-mult 8` on mt25q128), then the other
     * powers of two up to 64 device blocks */
    const sbd_geometry *g = &cfg->bd->geo;
    uint32_t m;
    int rc;
    if (cfg->erase_mult)
        return probe_sizes(scratch, cfg);
    rc = probe_sizes(scratch, cfg);
    if (rc && rc != STEADYFS_EFORMAT && g->mid_erase_blocks > 1) {
        cfg->erase_mult = g->mid_erase_blocks;
        rc = probe_sizes(scratch, cfg);
    }
    for (m = 1; m <= 64 && rc && rc != STEADYFS_EFORMAT; m *= 2) {
        if (m == g->mid_erase_blocks || m == g->big_erase_blocks || g->block_count % m)
            continue;
        cfg->erase_mult = m;
        rc = probe_sizes(scratch, cfg);
    }
    if (rc)
        cfg->erase_mult = 0;
    return rc;
}

int sh_fs_probe(sh_dev *h, sh_fs_config *c)
{
    steadyfs_config cfg;
    sh_fs *f;
    int rc;
    if (!h || !c) {
        sh_set_error("sh_fs_probe: no device");
        return STEADYFS_EINVAL;
    }
    f = calloc(1, sizeof *f);
    if (!f || shim_setup(f, sh_bd(h), SH_PROBE_SECTOR_MAX)) {
        if (f) {
            free(f->sector);
            free(f->bounce);
        }
        free(f);
        sh_set_error("sh_fs_probe: out of memory");
        return STEADYFS_EIO;
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.bd = &f->shim;
    cfg.sector_buf = f->sector;
    cfg.sector_buf_size = SH_PROBE_SECTOR_MAX;
    cfg.clock = sh_clock_ns;
    cfg.sector_size = c->sector_size;
    cfg.erase_mult = c->erase_mult;
    rc = sh_probe_format(&f->fs, &cfg);
    if (rc) {
        sh_set_error("no steadyfs checkpoint found (not formatted, or the anchor units are "
                     "damaged)");
    } else {
        c->max_inodes = cfg.max_inodes;
        c->fill_permille = cfg.fill_permille;
        c->file_pages_log2 = cfg.file_pages_log2;
        c->dir_pages = cfg.dir_pages;
        c->sector_size = cfg.sector_size;
        c->erase_mult = cfg.erase_mult;
        c->ring_units = cfg.ring_units;
        c->ring_sectors = cfg.ring_sectors;
    }
    free(f->sector);
    free(f->bounce);
    free(f);
    return rc;
}

int sh_probe_config(steadyfs_config *cfg)
{
    /* the probe writes the format fields into its configuration: a copy
     * with a buffer for any sector size, taken back whole if it succeeds */
    steadyfs_config probe = *cfg;
    uint8_t *sector = calloc(1, SH_PROBE_SECTOR_MAX);
    steadyfs *scratch = calloc(1, sizeof *scratch);
    int rc = STEADYFS_EIO;
    probe.sector_buf = sector;
    probe.sector_buf_size = SH_PROBE_SECTOR_MAX;
    if (sector && scratch)
        rc = sh_probe_format(scratch, &probe);
    if (!rc) {
        probe.sector_buf = cfg->sector_buf;
        probe.sector_buf_size = cfg->sector_buf_size;
        *cfg = probe;
    }
    free(sector);
    free(scratch);
    return rc;
}

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
            c->dir_pages > 0xFF || c->ring_units > 0xFFFF || c->ring_sectors > 0xFFFF || c->hold > 1) {
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
        cfg.ring_units = (uint16_t)c->ring_units;
        cfg.ring_sectors = (uint16_t)c->ring_sectors;
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
    ss = steadyfs_sector_buf_size(&cfg);   /* the sector with its tag on NOR and MRAM */
    f = calloc(1, sizeof *f);
    if (f)
        f->work = calloc(1, ws);
    if (!f || !f->work || shim_setup(f, cfg.bd, ss)) {
        sh_set_error("sh_fs_new: out of memory");
        if (err)
            *err = STEADYFS_EIO;
        if (f) {
            free(f->work);
            free(f->sector);
            free(f->bounce);
            free(f);
        }
        return NULL;
    }
    if (c && c->hold) {
        /* a sector's bytes, the configuration's or fs.c's default */
        const sbd_geometry *g = &sh_bd(h)->geo;
        f->hold_size = cfg.sector_size ? cfg.sector_size : g->page_size > 2048u ? g->page_size : 2048u;
        f->hold = calloc(1, f->hold_size);
        if (!f->hold) {
            sh_set_error("sh_fs_new: out of memory");
            if (err)
                *err = STEADYFS_EIO;
            sh_fs_free(f);
            return NULL;
        }
    }
    cfg.bd = &f->shim;
    cfg.work = f->work;
    cfg.work_size = ws;
    cfg.sector_buf = f->sector;
    cfg.sector_buf_size = ss;
    cfg.hold_buf = f->hold;
    cfg.clock = sh_clock_ns;
    f->cfg = cfg;
    f->ram = (uint32_t)sizeof(steadyfs) + ws + ss + f->hold_size;
    f->work_size = ws;
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
    free(f->hold);
    free(f->bounce);
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

void sh_fs_ram_parts(const sh_fs *f, uint32_t out[4])
{
    out[0] = (uint32_t)sizeof(steadyfs);
    out[1] = f->work_size;
    out[2] = f->sector_size;
    out[3] = f->hold_size;
}

void sh_fs_counters_get(const sh_fs *f, sh_fs_counters *out)
{
    out->data = f->fs.stats.data;
    out->copy = f->fs.stats.copy;
    out->map = f->fs.stats.map;
    out->ckpt = f->fs.stats.ckpt;
    out->erase = f->fs.stats.erase;
    out->victim = f->fs.stats.victim;
}
