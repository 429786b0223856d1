/* A steadyfs file system on a simulated-device image file (imgfs.h). */
#define _GNU_SOURCE
#include "host/imgfs.h"
#include "host/sh_internal.h"

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

/* Buffers for the file system; the format fields are probed when zero.
 * 0, -1, -2 (nothing to probe) or -3 (the configuration is refused). */
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
        m->cfg.ring_units = f->ring_units;
        m->cfg.ring_sectors = f->ring_sectors;
    }
    m->sector = calloc(1, SH_PROBE_SECTOR_MAX);
    if (!m->sector)
        return fail(m, -1, "out of memory");
    m->cfg.sector_buf = m->sector;
    m->cfg.sector_buf_size = SH_PROBE_SECTOR_MAX;
    m->cfg.clock = sh_clock_ns;
    /* the format's sector size and erase unit are not in the image header */
    if (!f) {
        int rc = sh_probe_format(&m->fs, &m->cfg);
        if (rc == STEADYFS_EFORMAT)
            return fail(m, -2, "%s", sh_fs_strerror(rc));
        if (rc)
            return fail(m, -2, "no steadyfs checkpoint found (not formatted, or the anchor "
                               "units are damaged)");
    }
    ws = steadyfs_work_size(&m->cfg);
    if (!ws)
        return fail(m, -3, "invalid file system configuration for %s with %u blocks",
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
        return fail(m, -1, "%s: image of unknown device profile '%s' (a chip from a profile file: give --profile-file FILE)", path, name);
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
    return rc == -3 ? -1 : rc;
}

int imgfs_open(imgfs *m, const char *path, const char *profile, int writable)
{
    int rc = imgfs_attach(m, path, profile, writable);
    if (rc)
        return rc;
    rc = steadyfs_mount(&m->fs, &m->cfg);
    if (rc) {
        unmap(m);
        return fail(m, -2, "%s: cannot mount: %s%s", path, sh_fs_strerror(rc),
                    rc == STEADYFS_EFORMAT ? "" : " (run `steady fsck` for details)");
    }
    m->mounted = 1;
    return 0;
}

/* The format refused (steadyfs_work_size 0): which mkfs option is at
 * fault?  The device alone, then each option given alone, then all. */
static int bad_format(imgfs *m, const imgfs_format *f, uint32_t blocks_given)
{
    const uint32_t v[8] = {f->max_inodes, f->fill_permille, f->file_pages_log2, f->dir_pages,
                           f->sector_size, f->erase_mult, f->ring_units, f->ring_sectors};
    static const char *const name[8] = {"--max-inodes", "--fill-permille", "--file-pages-log2",
                                        "--dir-pages", "--sector-size", "--erase-mult",
                                        "--ring-units", "--ring-sectors"};
    char all[200];
    size_t n = 0;
    unsigned k;
    steadyfs_config c;
    memset(&c, 0, sizeof c);
    c.bd = &m->sim.bd;
    c.open_max = m->cfg.open_max;
    if (!steadyfs_work_size(&c))
        return fail(m, -1, "%s%u: steadyfs does not fit %s with %u blocks", blocks_given ?
                    "--blocks " : "device size ", m->blocks, m->prof->name, m->blocks);
    for (k = 0; k < 8; k++) {
        if (!v[k])
            continue;
        c.max_inodes = k == 0 ? (uint16_t)v[k] : 0;
        c.fill_permille = k == 1 ? (uint16_t)v[k] : 0;
        c.file_pages_log2 = k == 2 ? (uint8_t)v[k] : 0;
        c.dir_pages = k == 3 ? (uint8_t)v[k] : 0;
        c.sector_size = k == 4 ? v[k] : 0;
        c.erase_mult = k == 5 ? v[k] : 0;
        /* (ring sectors alone: with a ring of two units) */
        c.ring_units = k == 6 ? (uint16_t)v[k] : k == 7 ? 2u : 0u;
        c.ring_sectors = k == 7 ? (uint16_t)v[k] : 0u;
        if (!steadyfs_work_size(&c))
            return fail(m, -1, "%s %u: not a valid steadyfs format on %s with %u blocks",
                        name[k], v[k], m->prof->name, m->blocks);
        if (n < sizeof all)
            n += (size_t)snprintf(all + n, sizeof all - n, "%s%s %u", n ? " " : "", name[k], v[k]);
    }
    return fail(m, -1, "%s: not a valid steadyfs format on %s with %u blocks together", all,
                m->prof->name, m->blocks);
}

int imgfs_create(imgfs *m, const char *path, const char *profile, uint32_t blocks,
                 uint64_t seed, const imgfs_format *f, int force)
{
    struct stat sb;
    const char *base;
    size_t dl;
    mode_t um;
    int fd, rc;
    init(m);
    m->prof = sim_profile_find(profile);
    if (!m->prof)
        return fail(m, -1, "unknown device profile '%s' (see `steady devices`)", profile);
    if (m->prof->kind == SIM_SD)
        return fail(m, -1, "%s is an SD card: steadyfs runs on raw NAND, NOR and MRAM", profile);
    if (blocks > m->prof->geo.block_count)
        return fail(m, -1, "--blocks %u: %s has %u blocks", blocks, profile,
                    m->prof->geo.block_count);
    m->blocks = blocks ? blocks : sim_profile_blocks(m->prof);
    m->len = (size_t)sim_image_size(m->prof, m->blocks);
    if (lstat(path, &sb) == 0 && (!force || S_ISDIR(sb.st_mode)))
        return fail(m, -1, "%s: %s", path, S_ISDIR(sb.st_mode) ? "is a directory" :
                    "exists (use --force to replace it)");
    /* made under a temporary name beside it, renamed over it at the end */
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    dl = (size_t)(base - path);
    m->dest = strdup(path);
    m->tmp = malloc(dl + strlen(base) + 16);
    if (!m->dest || !m->tmp) {
        imgfs_discard(m);
        return fail(m, -1, "out of memory");
    }
    sprintf(m->tmp, "%.*s.%s.tmp-XXXXXX", (int)dl, path, base);
    m->replace = force;
    fd = mkstemp(m->tmp);
    if (fd < 0) {
        rc = errno;
        free(m->tmp);
        m->tmp = NULL;
        imgfs_discard(m);
        return fail(m, -1, "%s: cannot create a file beside it: %s", path, strerror(rc));
    }
    um = umask(0);
    umask(um);
    /* sparse: an all-zero image is an erased device (SIM-IMAGE.md) */
    rc = fchmod(fd, 0666 & ~um) || ftruncate(fd, (off_t)m->len);
    close(fd);
    if (rc) {
        fail(m, -1, "%s: cannot size image: %s", path, strerror(errno));
        imgfs_discard(m);
        return -1;
    }
    m->seed = seed;
    rc = map_image(m, m->tmp, 1, 1);
    if (!rc)
        rc = setup_fs(m, f);
    if (rc == -3)
        rc = bad_format(m, f, blocks);
    if (!rc && (rc = steadyfs_format(&m->fs, &m->cfg)) != 0)
        rc = fail(m, -1, "format: %s (configuration does not fit this device?)",
                  steadyfs_strerror(rc));
    if (!rc && (rc = steadyfs_mount(&m->fs, &m->cfg)) != 0)
        rc = fail(m, -1, "mount after format: %s", steadyfs_strerror(rc));
    if (!rc && (rc = sh_fs_own_root(&m->fs)) != 0)
        rc = fail(m, -1, "root directory owner: %s", steadyfs_strerror(rc));
    if (rc) {
        imgfs_discard(m);
        return -1;
    }
    m->mounted = 1;
    return 0;
}

void imgfs_discard(imgfs *m)
{
    m->mounted = 0;
    unmap(m);
    if (m->tmp)
        unlink(m->tmp);
    free(m->tmp);
    free(m->dest);
    m->tmp = m->dest = NULL;
}

/* The created image takes its place: rename over (--force) or link (never
 * over a file that appeared meanwhile). */
static int publish(imgfs *m)
{
    int rc = 0;
    if (m->replace ? rename(m->tmp, m->dest) : link(m->tmp, m->dest))
        rc = fail(m, -1, "%s: %s", m->dest, strerror(errno));
    imgfs_discard(m);
    return rc;
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
    if (m->tmp) {
        if (rc)
            imgfs_discard(m);
        else
            return publish(m);
    }
    return rc ? -1 : 0;
}
