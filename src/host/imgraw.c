/* Raw device images for a device programmer (imgraw.h, docs/TOOLS.md). */
#define _GNU_SOURCE
#include "host/imgraw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bd/sim_internal.h"

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

uint64_t imgraw_block_bytes(const sim_profile *p)
{
    return (uint64_t)(p->geo.page_size + p->geo.spare_size) * p->geo.pages_per_block;
}

static int is_bad(const sim_dev *d, uint32_t b)
{
    return (sim_blk(d, b)->flags & (SIM_BLK_FACTORY_BAD | SIM_BLK_GROWN_BAD)) != 0;
}

int imgraw_write(const sim_dev *d, FILE *out, char *err, size_t errlen)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t stride = g->page_size + g->spare_size, b, p, i;
    uint8_t *buf = malloc(stride);
    if (!buf)
        return fail(err, errlen, "out of memory");
    for (b = 0; b < g->block_count; b++)
        for (p = 0; p < g->pages_per_block; p++) {
            const uint8_t *s = sim_page_raw(d, b, p);
            for (i = 0; i < stride; i++)
                buf[i] = (uint8_t)(s[i] ^ g->erased_byte);
            /* the NAND bad-block mark: 0x00 in the first spare byte of the
             * block's first page (steadyfs's tag there starts with its kind,
             * 1..5, never 0x00) */
            if (d->prof->kind == SIM_NAND && g->spare_size && p == 0 && is_bad(d, b))
                buf[g->page_size] = 0x00;
            if (fwrite(buf, 1, stride, out) != stride) {
                free(buf);
                return fail(err, errlen, "write: %s", strerror(errno));
            }
        }
    free(buf);
    return 0;
}

/* A new file beside `path`, to be renamed over it when complete. */
static int make_tmp(const char *path, char **tmp, char *err, size_t errlen)
{
    const char *base = strrchr(path, '/');
    size_t dl;
    int fd;
    base = base ? base + 1 : path;
    dl = (size_t)(base - path);
    *tmp = malloc(dl + strlen(base) + 16);
    if (!*tmp)
        return fail(err, errlen, "out of memory");
    sprintf(*tmp, "%.*s.%s.tmp-XXXXXX", (int)dl, path, base);
    fd = mkstemp(*tmp);
    if (fd < 0) {
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        return fail(err, errlen, "%s: cannot create a file beside it: %s", path, strerror(e));
    }
    {
        mode_t um = umask(0);
        umask(um);
        if (fchmod(fd, 0666 & ~um)) {
            close(fd);
            return fail(err, errlen, "%s: %s", path, strerror(errno));
        }
    }
    return fd;
}

static int publish(char *tmp, const char *path, int force, int rc, char *err, size_t errlen)
{
    if (!rc && (force ? rename(tmp, path) : link(tmp, path)))
        rc = fail(err, errlen, "%s: %s", path, strerror(errno));
    unlink(tmp);   /* after link(); after rename() it is gone already */
    free(tmp);
    return rc;
}

static int check_dest(const char *path, int force, char *err, size_t errlen)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && (!force || S_ISDIR(sb.st_mode)))
        return fail(err, errlen, "%s: %s", path, S_ISDIR(sb.st_mode) ? "is a directory" :
                    "exists (use --force to replace it)");
    return 0;
}

int imgraw_export(const char *img, const char *out, int force, uint32_t *blocks_out,
                  uint32_t *bad_out, char *err, size_t errlen)
{
    uint8_t h[4096];
    char name[33], *tmp = NULL;
    const sim_profile *p;
    struct stat sb;
    uint32_t blocks, b, bad = 0;
    uint64_t len;
    sim_dev d;
    void *map;
    FILE *f;
    int fd, ofd, rc;
    fd = open(img, O_RDONLY);
    if (fd < 0)
        return fail(err, errlen, "%s: %s", img, strerror(errno));
    if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, SIM_IMG_MAGIC, 8) != 0 ||
        fstat(fd, &sb)) {
        close(fd);
        return fail(err, errlen, "%s: not a steadyfs device image (no STDYSIM1 header)", img);
    }
    memcpy(name, h + 16, 32);
    name[32] = 0;
    memcpy(&blocks, h + 64, 4);
    p = sim_profile_find(name);
    if (!p || p->kind == SIM_SD || !blocks || blocks > p->geo.block_count ||
        (uint64_t)sb.st_size != (len = sim_image_size(p, blocks))) {
        close(fd);
        return fail(err, errlen, "%s: not a flash device image of a known profile with a "
                    "matching size", img);
    }
    if (check_dest(out, force, err, errlen)) {
        close(fd);
        return -1;
    }
    map = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return fail(err, errlen, "%s: mmap: %s", img, strerror(errno));
    if (sim_init(&d, p, blocks, map, len, SIM_TYPICAL, 0, 0)) {
        munmap(map, (size_t)len);
        return fail(err, errlen, "%s: image header does not match profile %s with %u blocks",
                    img, p->name, blocks);
    }
    for (b = 0; b < blocks; b++)
        bad += (uint32_t)is_bad(&d, b);
    ofd = make_tmp(out, &tmp, err, errlen);
    if (ofd < 0) {
        munmap(map, (size_t)len);
        return -1;
    }
    f = fdopen(ofd, "wb");
    if (!f) {
        close(ofd);
        rc = fail(err, errlen, "%s: %s", out, strerror(errno));
    } else {
        rc = imgraw_write(&d, f, err, errlen);
        if (fclose(f) && !rc)
            rc = fail(err, errlen, "%s: %s", out, strerror(errno));
    }
    munmap(map, (size_t)len);
    if (blocks_out)
        *blocks_out = blocks;
    if (bad_out)
        *bad_out = bad;
    return publish(tmp, out, force, rc, err, errlen);
}

int imgraw_import(const char *raw, const char *profile, const char *out, int force,
                  uint32_t *blocks_out, uint32_t *bad_out, char *err, size_t errlen)
{
    const sim_profile *p = sim_profile_find(profile);
    const sbd_geometry *g;
    char *tmp = NULL;
    struct stat sb;
    uint64_t bb, len;
    uint32_t blocks, b, pg, i, stride, bad = 0;
    uint8_t *buf, *map;
    sim_dev d;
    FILE *in;
    int ofd, rc = 0;
    if (!p)
        return fail(err, errlen, "--device %s: no such device profile (see `steady devices`)",
                    profile);
    if (p->kind == SIM_SD)
        return fail(err, errlen, "--device %s: an SD card (it has no raw flash image)", profile);
    g = &p->geo;
    bb = imgraw_block_bytes(p);
    in = fopen(raw, "rb");
    if (!in)
        return fail(err, errlen, "%s: %s", raw, strerror(errno));
    if (fstat(fileno(in), &sb) || !S_ISREG(sb.st_mode)) {
        fclose(in);
        return fail(err, errlen, "%s: not a regular file", raw);
    }
    if (sb.st_size == 0 || (uint64_t)sb.st_size % bb ||
        (uint64_t)sb.st_size / bb > g->block_count) {
        fclose(in);
        return fail(err, errlen, "%s: %lld bytes is not a whole number of %s blocks of %llu "
                    "bytes (%u x (%u + %u)), 1..%u blocks", raw, (long long)sb.st_size,
                    p->name, (unsigned long long)bb, g->pages_per_block, g->page_size,
                    g->spare_size, g->block_count);
    }
    blocks = (uint32_t)((uint64_t)sb.st_size / bb);
    if (check_dest(out, force, err, errlen)) {
        fclose(in);
        return -1;
    }
    len = sim_image_size(p, blocks);
    ofd = make_tmp(out, &tmp, err, errlen);
    if (ofd < 0) {
        fclose(in);
        return -1;
    }
    if (ftruncate(ofd, (off_t)len)) {
        rc = fail(err, errlen, "%s: cannot size image: %s", out, strerror(errno));
        close(ofd);
        fclose(in);
        return publish(tmp, out, force, rc, err, errlen);
    }
    map = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, ofd, 0);
    close(ofd);
    stride = g->page_size + g->spare_size;
    buf = malloc(stride);
    if (map == MAP_FAILED || !buf) {
        fclose(in);
        free(buf);
        if (map != MAP_FAILED)
            munmap(map, (size_t)len);
        return publish(tmp, out, force, fail(err, errlen, "%s: cannot map: %s", out,
                                             strerror(errno)), err, errlen);
    }
    /* a fresh image of the profile: header, erased, no bad blocks yet */
    if (sim_init(&d, p, blocks, map, len, SIM_TYPICAL, 0, 1))
        rc = fail(err, errlen, "%s: cannot make a %s image of %u blocks", out, p->name, blocks);
    for (b = 0; !rc && b < blocks; b++) {
        sim_blk_meta *bm = sim_blk(&d, b);
        bm->flags = 0;
        bm->erase_count = 0;
        for (pg = 0; !rc && pg < g->pages_per_block; pg++) {
            uint8_t *s = sim_page_raw(&d, b, pg);
            int programmed = 0;
            if (fread(buf, 1, stride, in) != stride) {
                rc = fail(err, errlen, "%s: read error", raw);
                break;
            }
            if (p->kind == SIM_NAND && g->spare_size && pg == 0 && buf[g->page_size] == 0x00) {
                bm->flags = SIM_BLK_FACTORY_BAD;
                bad++;
            }
            for (i = 0; i < stride; i++) {
                s[i] = (uint8_t)(buf[i] ^ g->erased_byte);
                programmed |= s[i] != 0;
            }
            if (d.prof->kind != SIM_SD)
                sim_pg(&d, b, pg)->nprog = (uint8_t)(programmed != 0);
        }
    }
    fclose(in);
    free(buf);
    if (msync(map, (size_t)len, MS_SYNC) && !rc)
        rc = fail(err, errlen, "%s: %s", out, strerror(errno));
    munmap(map, (size_t)len);
    if (blocks_out)
        *blocks_out = blocks;
    if (bad_out)
        *bad_out = bad;
    return publish(tmp, out, force, rc, err, errlen);
}
