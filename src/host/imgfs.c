/* A steadyfs file system on a simulated-device image file (imgfs.h). */
#define _GNU_SOURCE
#include "host/imgfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIM_HDR 4096u

static int fail(imgfs *m, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, sizeof m->err, fmt, ap);
    va_end(ap);
    return rc;
}

static void unmap(imgfs *m)
{
    if (m->map) {
        msync(m->map, m->len, MS_SYNC);
        munmap(m->map, m->len);
    }
    if (m->fd >= 0)
        close(m->fd);
    free(m->work);
    free(m->sector);
    m->map = NULL;
    m->fd = -1;
    m->work = m->sector = NULL;
}

/* Map the image and attach the device model to it. */
static int map_image(imgfs *m, const char *path, int writable, int fresh)
{
    int rc;
    m->fd = open(path, writable ? O_RDWR : O_RDONLY);
    if (m->fd < 0)
        return fail(m, -1, "%s: %s", path, strerror(errno));
    /* read-only: a private mapping, so even a model that touches its image
     * on reads cannot change the file */
    m->map = mmap(NULL, m->len, PROT_READ | PROT_WRITE, writable ? MAP_SHARED : MAP_PRIVATE,
                  m->fd, 0);
    if (m->map == MAP_FAILED) {
        m->map = NULL;
        return fail(m, -1, "%s: mmap: %s", path, strerror(errno));
    }
    rc = sim_init(&m->sim, m->prof, m->blocks, m->map, m->len, SIM_TYPICAL, m->seed, fresh);
    if (rc)
        return fail(m, -1, "%s: image header does not match profile %s with %u blocks", path,
                    m->prof->name, m->blocks);
    return 0;
}

/* Buffers for the file system; the format fields are probed when zero. */
static int setup_fs(imgfs *m, const imgfs_format *f)
{
    uint32_t ws;
    memset(&m->cfg, 0, sizeof m->cfg);
    m->cfg.bd = &m->sim.bd;
    m->cfg.open_max = 8;
    if (f) {
        m->cfg.max_inodes = f->max_inodes;
        m->cfg.fill_permille = f->fill_permille;
        m->cfg.file_pages_log2 = f->file_pages_log2;
        m->cfg.dir_pages = f->dir_pages;
        m->cfg.sector_size = f->sector_size;
        m->cfg.erase_mult = f->erase_mult;
    }
    m->sector = calloc(1, 65536);
    if (!m->sector)
        return fail(m, -1, "out of memory");
    m->cfg.sector_buf = m->sector;
    if (!f) {
        /* the format's sector size and erase unit are not in the image
         * header: try the default, then the other sizes the core accepts */
        static const uint32_t sizes[] = {0, 512, 1024, 4096, 8192, 16384};
        unsigned i;
        int rc = STEADYFS_ECORRUPT;
        for (i = 0; i < sizeof sizes / sizeof sizes[0] && rc; i++) {
            if (sizes[i] && sizes[i] % m->sim.bd.geo.page_size)
                continue;
            m->cfg.sector_size = sizes[i];
            rc = steadyfs_probe(&m->fs, &m->cfg);
        }
        if (rc)
            return fail(m, -2, "no steadyfs checkpoint found (not formatted, or the anchor "
                               "units are damaged)");
    }
    ws = steadyfs_work_size(&m->cfg);
    if (!ws)
        return fail(m, -1, "invalid file system configuration for %s with %u blocks",
                    m->prof->name, m->blocks);
    if (posix_memalign(&m->work, 8, ws))
        return fail(m, -1, "out of memory");
    m->cfg.work = m->work;
    m->cfg.work_size = ws;
    return 0;
}

/* Header fields: profile name at 16, block count at 64. */
static int read_header(imgfs *m, const char *path, const char *profile)
{
    uint8_t h[SIM_HDR];
    struct stat sb;
    char name[33];
    int fd = open(path, O_RDONLY);
    ssize_t n;
    if (fd < 0)
        return fail(m, -1, "%s: %s", path, strerror(errno));
    n = pread(fd, h, sizeof h, 0);
    if (fstat(fd, &sb) != 0)
        n = -1;
    close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h, "STDYSIM1", 8) != 0)
        return fail(m, -1, "%s: not a steadyfs device image (no STDYSIM1 header)", path);
    memcpy(name, h + 16, 32);
    name[32] = 0;
    m->prof = sim_profile_find(name);
    if (!m->prof)
        return fail(m, -1, "%s: image of unknown device profile '%s'", path, name);
    if (profile && strcmp(profile, m->prof->name) != 0)
        return fail(m, -1, "%s: image is of device %s, not %s", path, m->prof->name, profile);
    m->blocks = (uint32_t)h[64] | (uint32_t)h[65] << 8 | (uint32_t)h[66] << 16 |
                (uint32_t)h[67] << 24;
    if (!m->blocks || m->blocks > m->prof->geo.block_count)
        return fail(m, -1, "%s: image header has a bad block count %u", path, m->blocks);
    m->len = (size_t)sim_image_size(m->prof, m->blocks);
    if ((uint64_t)sb.st_size != m->len)
        return fail(m, -1, "%s: image is %lld bytes, a %s image with %u blocks is %llu", path,
                    (long long)sb.st_size, m->prof->name, m->blocks, (unsigned long long)m->len);
    return 0;
}

static void init(imgfs *m)
{
    memset(m, 0, sizeof *m);
    m->fd = -1;
}

int imgfs_attach(imgfs *m, const char *path, const char *profile, int writable)
{
    int rc;
    init(m);
    rc = read_header(m, path, profile);
    if (!rc)
        rc = map_image(m, path, writable, 0);
    if (!rc)
        rc = setup_fs(m, NULL);
    if (rc)
        unmap(m);
    return rc;
}

int imgfs_open(imgfs *m, const char *path, const char *profile, int writable)
{
    int rc = imgfs_attach(m, path, profile, writable);
    if (rc)
        return rc;
    rc = steadyfs_mount(&m->fs, &m->cfg);
    if (rc) {
        unmap(m);
        return fail(m, -2, "%s: cannot mount: %s (run `steady fsck` for details)", path,
                    steadyfs_strerror(rc));
    }
    m->mounted = 1;
    return 0;
}

int imgfs_create(imgfs *m, const char *path, const char *profile, uint32_t blocks,
                 uint64_t seed, const imgfs_format *f, int force)
{
    int fd, rc;
    init(m);
    m->prof = sim_profile_find(profile);
    if (!m->prof)
        return fail(m, -1, "unknown device profile '%s' (see `steady devices`)", profile);
    if (m->prof->kind == SIM_SD)
        return fail(m, -1, "%s is an SD card: steadyfs runs on raw NAND, NOR and MRAM", profile);
    if (blocks > m->prof->geo.block_count)
        return fail(m, -1, "%s has %u blocks, not %u", profile, m->prof->geo.block_count, blocks);
    m->blocks = blocks ? blocks : sim_profile_blocks(m->prof);
    m->len = (size_t)sim_image_size(m->prof, m->blocks);
    fd = open(path, O_RDWR | O_CREAT | (force ? O_TRUNC : O_EXCL), 0644);
    if (fd < 0)
        return fail(m, -1, "%s: %s%s", path, strerror(errno),
                    errno == EEXIST ? " (use --force to replace it)" : "");
    /* sparse: an all-zero image is an erased device (SIM-IMAGE.md) */
    rc = ftruncate(fd, (off_t)m->len);
    close(fd);
    if (rc)
        return fail(m, -1, "%s: cannot size image: %s", path, strerror(errno));
    m->seed = seed;
    rc = map_image(m, path, 1, 1);
    if (!rc)
        rc = setup_fs(m, f);
    if (!rc && (rc = steadyfs_format(&m->fs, &m->cfg)) != 0)
        rc = fail(m, -1, "format: %s (configuration does not fit this device?)",
                  steadyfs_strerror(rc));
    if (!rc && (rc = steadyfs_mount(&m->fs, &m->cfg)) != 0)
        rc = fail(m, -1, "mount after format: %s", steadyfs_strerror(rc));
    if (rc) {
        unmap(m);
        return -1;
    }
    m->mounted = 1;
    return 0;
}

int imgfs_close(imgfs *m)
{
    int rc = 0;
    if (m->mounted) {
        rc = steadyfs_unmount(&m->fs);
        m->mounted = 0;
        if (rc)
            fail(m, -1, "unmount: %s", steadyfs_strerror(rc));
    }
    unmap(m);
    return rc ? -1 : 0;
}
