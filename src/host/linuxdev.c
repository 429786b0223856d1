/*
 * The sbd interface over a Linux regular file or block device (an SD card
 * in a USB reader, say).  Accesses go through O_DIRECT | O_DSYNC with an
 * aligned bounce buffer, so each one reaches the device and its wall-clock
 * duration (CLOCK_MONOTONIC) is the device's latency.  Regular files on
 * file systems without O_DIRECT (tmpfs) fall back to O_DSYNC alone; that
 * is reported by sh_is_direct().
 *
 * Writing is destructive: it needs allow_write, and a block device that is
 * mounted, or has a mounted partition, is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "host/sh_internal.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int lx_finish(lx_dev *lx, enum sim_op op, uint32_t block, uint32_t off,
                     uint32_t len, uint64_t t0, int rc)
{
    uint64_t dur = rc == SBD_ERR_RANGE || rc == SBD_ERR_INVAL ? 0 : mono_ns() - t0;
    uint64_t start = lx->now_ns;
    lx->now_ns += dur;
    lx->last_ns = dur;
    if (lx->trace)
        lx->trace(lx->trace_arg, op, block, off, len, start, dur, rc);
    return rc;
}

static int lx_span(const lx_dev *lx, uint32_t block, uint32_t off, uint32_t len,
                   uint32_t spare_len, uint64_t *pos)
{
    const sbd_geometry *g = &lx->bd.geo;
    uint32_t bsize = g->page_size * g->pages_per_block;
    if (spare_len || block >= g->block_count || off > bsize || len > bsize - off ||
        off % g->page_size || len % g->page_size)
        return SBD_ERR_RANGE;
    *pos = (uint64_t)block * bsize + off;
    return 0;
}

static int lx_read(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len,
                   void *spare, uint32_t spare_len)
{
    lx_dev *lx = ctx;
    uint64_t pos, t0 = mono_ns();
    uint32_t done = 0;
    int rc = lx_span(lx, block, off, len, spare_len, &pos);
    (void)spare;
    if (rc)
        return lx_finish(lx, SIM_OP_READ, block, off, len, t0, rc);
    while (done < len) {
        uint32_t n = len - done < lx->bounce_len ? len - done : lx->bounce_len;
        ssize_t r = pread(lx->fd, lx->bounce, n, (off_t)(pos + done));
        if (r != (ssize_t)n)
            return lx_finish(lx, SIM_OP_READ, block, off, len, t0, SBD_ERR_IO);
        memcpy((uint8_t *)buf + done, lx->bounce, n);
        done += n;
    }
    lx->stats.reads++;
    lx->stats.read_bytes += len;
    return lx_finish(lx, SIM_OP_READ, block, off, len, t0, 0);
}

static int lx_prog(void *ctx, uint32_t block, uint32_t off, const void *buf, uint32_t len,
                   const void *spare, uint32_t spare_len)
{
    lx_dev *lx = ctx;
    uint64_t pos, t0 = mono_ns();
    uint32_t done = 0;
    int rc = lx_span(lx, block, off, len, spare_len, &pos);
    (void)spare;
    if (!rc && !lx->writable)
        rc = SBD_ERR_INVAL;
    if (rc)
        return lx_finish(lx, SIM_OP_PROG, block, off, len, t0, rc);
    while (done < len) {
        uint32_t n = len - done < lx->bounce_len ? len - done : lx->bounce_len;
        memcpy(lx->bounce, (const uint8_t *)buf + done, n);
        if (pwrite(lx->fd, lx->bounce, n, (off_t)(pos + done)) != (ssize_t)n)
            return lx_finish(lx, SIM_OP_PROG, block, off, len, t0, SBD_ERR_IO);
        done += n;
    }
    lx->stats.progs++;
    lx->stats.prog_bytes += len;
    return lx_finish(lx, SIM_OP_PROG, block, off, len, t0, 0);
}

/* needs_erase == 0: the contract's free no-op. */
static int lx_erase(void *ctx, uint32_t block, uint32_t count)
{
    lx_dev *lx = ctx;
    if (!count || block >= lx->bd.geo.block_count || count > lx->bd.geo.block_count - block)
        return lx_finish(lx, SIM_OP_ERASE, block, 0, count, mono_ns(), SBD_ERR_RANGE);
    lx->stats.erases++;
    lx->last_ns = 0;
    if (lx->trace)
        lx->trace(lx->trace_arg, SIM_OP_ERASE, block, 0, count, lx->now_ns, 0, 0);
    return 0;
}

static int lx_sync(void *ctx)
{
    lx_dev *lx = ctx;
    uint64_t t0 = mono_ns();
    int rc = lx->writable && fdatasync(lx->fd) != 0 ? SBD_ERR_IO : 0;
    lx->stats.syncs++;
    return lx_finish(lx, SIM_OP_SYNC, 0, 0, 0, t0, rc);
}

static int lx_is_bad(void *ctx, uint32_t block)
{
    lx_dev *lx = ctx;
    return block < lx->bd.geo.block_count ? 0 : SBD_ERR_RANGE;
}

/* A real disk keeps no bad-block table for us: not supported. */
static int lx_mark_bad(void *ctx, uint32_t block)
{
    (void)ctx;
    (void)block;
    return SBD_ERR_INVAL;
}

static const sbd_ops lx_ops = {lx_read, lx_prog, lx_erase, lx_sync, lx_is_bad, lx_mark_bad, NULL};

/* The sysfs path of a block device, e.g. ".../block/sdb/sdb1". */
static int sysfs_path(dev_t rdev, char *out, size_t len)
{
    char link[64];
    ssize_t n;
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
    n = readlink(link, out, len - 1);
    if (n < 0)
        return -1;
    out[n] = 0;
    return 0;
}

/* 1 if the device or one of its partitions is mounted (reason in *why). */
static int is_mounted(const char *path, dev_t rdev, char *why, size_t why_len)
{
    char mine[PATH_MAX], theirs[PATH_MAX], src[PATH_MAX], dir[PATH_MAX], line[3 * PATH_MAX];
    const char *base;
    FILE *f;
    int hit = 0;

    if (sysfs_path(rdev, mine, sizeof mine) != 0)
        mine[0] = 0;
    base = strrchr(mine, '/');
    base = base ? base + 1 : mine;
    f = fopen("/proc/self/mounts", "r");
    if (!f) {
        snprintf(why, why_len, "cannot read /proc/self/mounts to check %s", path);
        return 1; /* cannot prove it is unmounted: refuse */
    }
    while (!hit && fgets(line, sizeof line, f)) {
        struct stat sb;
        if (sscanf(line, "%4095s %4095s", src, dir) != 2 || src[0] != '/')
            continue;
        if (stat(src, &sb) != 0 || !S_ISBLK(sb.st_mode))
            continue;
        if (sb.st_rdev == rdev) {
            hit = 1;
        } else if (*base && sysfs_path(sb.st_rdev, theirs, sizeof theirs) == 0) {
            /* a partition's sysfs path runs through its disk's name */
            char needle[PATH_MAX + 2];
            snprintf(needle, sizeof needle, "/%s/", base);
            hit = strstr(theirs, needle) != NULL;
        }
        if (hit) {
            /* pieces, so the compiler sees no silent truncation */
            size_t n = 0;
            why[0] = 0;
            n += (size_t)snprintf(why, why_len, "%.1000s is mounted (", path);
            if (n < why_len)
                n += (size_t)snprintf(why + n, why_len - n, "%.1000s on ", src);
            if (n < why_len)
                snprintf(why + n, why_len - n, "%.1000s); refusing to write to it", dir);
        }
    }
    fclose(f);
    return hit;
}

int lx_open(sh_dev *h, const char *path, int allow_write, uint32_t page_size,
            uint32_t block_size, uint64_t size_bytes)
{
    lx_dev *lx = &h->lx;
    struct stat sb;
    int flags = (allow_write ? O_RDWR : O_RDONLY) | O_CLOEXEC, blk;
    char why[PATH_MAX + 256];

    memset(lx, 0, sizeof *lx);
    lx->fd = -1;
    if (!page_size)
        page_size = 512;
    if (!block_size)
        block_size = 65536;
    if (page_size % 512 || block_size % page_size) {
        sh_set_error("%s: page size must be a multiple of 512 and divide the block size", path);
        return SBD_ERR_INVAL;
    }
    if (stat(path, &sb) != 0) {
        if (errno != ENOENT || !allow_write || !size_bytes) {
            sh_set_error("%s: %s", path, strerror(errno));
            return SBD_ERR_IO;
        }
        sb.st_mode = S_IFREG;
    }
    blk = S_ISBLK(sb.st_mode);
    if (!blk && !S_ISREG(sb.st_mode)) {
        sh_set_error("%s: neither a regular file nor a block device", path);
        return SBD_ERR_INVAL;
    }
    if (allow_write && blk && is_mounted(path, sb.st_rdev, why, sizeof why)) {
        sh_set_error("%s", why);
        return SBD_ERR_INVAL;
    }
    if (!blk && allow_write)
        flags |= O_CREAT;
    lx->fd = open(path, flags | O_DIRECT | O_DSYNC, 0644);
    lx->direct = lx->fd >= 0;
    if (lx->fd < 0 && errno == EINVAL && !blk) {
        /* e.g. tmpfs: no O_DIRECT; O_DSYNC still makes each write durable */
        lx->fd = open(path, flags | O_DSYNC, 0644);
    }
    if (lx->fd < 0) {
        sh_set_error("%s: %s", path, strerror(errno));
        return SBD_ERR_IO;
    }
    lx->align = 4096;
    if (blk) {
        int ssz = 0;
        if (ioctl(lx->fd, BLKGETSIZE64, &lx->size) != 0) {
            sh_set_error("%s: BLKGETSIZE64: %s", path, strerror(errno));
            return SBD_ERR_IO;
        }
        if (ioctl(lx->fd, BLKSSZGET, &ssz) == 0 && ssz > 0 && (uint32_t)ssz > page_size) {
            sh_set_error("%s: logical sector size %d is larger than page size %u", path, ssz,
                         page_size);
            return SBD_ERR_INVAL;
        }
    } else {
        if (fstat(lx->fd, &sb) != 0) {
            sh_set_error("%s: %s", path, strerror(errno));
            return SBD_ERR_IO;
        }
        lx->size = (uint64_t)sb.st_size;
        if (allow_write && size_bytes > lx->size) {
            if (ftruncate(lx->fd, (off_t)size_bytes) != 0) {
                sh_set_error("%s: cannot size file: %s", path, strerror(errno));
                return SBD_ERR_IO;
            }
            lx->size = size_bytes;
        }
    }
    lx->bounce_len = 1u << 20;
    if (posix_memalign((void **)&lx->bounce, lx->align, lx->bounce_len) != 0) {
        lx->bounce = NULL;
        return SBD_ERR_IO;
    }
    lx->writable = allow_write != 0;
    lx->bd.ops = &lx_ops;
    lx->bd.ctx = lx;
    lx->bd.geo = (sbd_geometry){
        .page_size = page_size, .spare_size = 0, .pages_per_block = block_size / page_size,
        .block_count = (uint32_t)(lx->size / block_size), .read_size = page_size,
        .prog_size = page_size, .big_erase_blocks = 1, .ecc_bits = 0, .ecc_codeword = 0,
        .nop = 0, .needs_erase = 0, .erased_byte = 0};
    if (!lx->bd.geo.block_count) {
        sh_set_error("%s: smaller than one %u-byte block", path, block_size);
        return SBD_ERR_INVAL;
    }
    return 0;
}

void lx_close(lx_dev *lx)
{
    if (lx->fd >= 0) {
        if (lx->writable)
            fdatasync(lx->fd);
        close(lx->fd);
    }
    free(lx->bounce);
    lx->fd = -1;
    lx->bounce = NULL;
}

sh_dev *sh_open_path(const char *path, int allow_write, uint32_t page_size,
                     uint32_t block_size, uint64_t size_bytes, int *err)
{
    sh_dev *h = calloc(1, sizeof *h);
    int rc;
    if (err)
        *err = 0;
    if (!h)
        return NULL;
    h->fd = -1;
    snprintf(h->name, sizeof h->name, "%s", path);
    rc = lx_open(h, path, allow_write, page_size, block_size, size_bytes);
    if (rc) {
        if (err)
            *err = rc;
        sh_close(h);
        return NULL;
    }
    h->lx.trace = sh_trace_hook;
    h->lx.trace_arg = h;
    return h;
}

int sh_is_direct(const sh_dev *h) { return !h->is_sim && h->lx.direct; }
