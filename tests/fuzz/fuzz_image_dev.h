/* The small steadyfs image the image fuzzer mutates, and how an input
 * patches it (shared by fuzz_image.c and image_corpus_gen.c).
 *
 * Base image: a 16-unit mt29f1g01 formatted with a few directories and
 * files (some removed and renamed, so map merges, kills and several
 * checkpoints are on it), built deterministically once per process.
 *
 * Input: up to FI_MAXREC records, each
 *   u8 flags, u8 sector, u16 offset (LE), u8 n, n bytes (n <= 16)
 * `sector` picks one of the programmed sectors of the base image (modulo
 * their count), so corruptions land on real structure rather than on the
 * mostly erased device; `offset` (modulo main + spare bytes) is where in
 * it.  flags bit 0: re-seal the sector afterwards (recompute its payload
 * and tag CRCs, so the damaged fields reach the parsers instead of failing
 * the checksums); bit 1: XOR the bytes in instead of writing them. */
#ifndef STEADYFS_FUZZ_IMAGE_DEV_H
#define STEADYFS_FUZZ_IMAGE_DEV_H

#include <stdlib.h>
#include <string.h>

#include "steadyfs/crc32.h"
#include "steadyfs/sim.h"
#include "steadyfs/steadyfs.h"

#define FI_PROFILE "mt29f1g01"
#define FI_BLOCKS 16u
#define FI_MAXSEC 1024u
#define FI_MAXREC 32u
#define FI_SECTOR 2048u
#define FI_SPARE 64u

typedef struct fi_base {
    const sim_profile *p;
    uint64_t len;
    uint8_t *img;
    uint64_t data_off;
    uint32_t nsec;
    uint32_t sec[FI_MAXSEC];   /* programmed pages: block * ppb + page */
    uint32_t vol;              /* tag CRC seed of this format */
} fi_base;

static inline uint32_t fi_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void fi_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static inline uint8_t *fi_page(const fi_base *b, uint8_t *img, uint32_t page)
{
    return img + b->data_off + (uint64_t)page * (FI_SECTOR + FI_SPARE);
}

static inline int fi_file(steadyfs *fs, const char *path, uint32_t len, uint8_t fill)
{
    static uint8_t buf[20000];
    int fd = steadyfs_open(fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
    if (fd < 0)
        return fd;
    memset(buf, fill, len);
    if (steadyfs_write(fs, fd, buf, len) != (int32_t)len)
        return -1;
    return steadyfs_close(fs, fd);
}

/* Build the base image.  0 or -1. */
static inline int fi_build(fi_base *b)
{
    static uint8_t work[8192] __attribute__((aligned(8))), sector[FI_SECTOR];
    steadyfs fs;
    steadyfs_config cfg;
    sim_dev d;
    uint32_t i, ppb;
    char name[32];
    int rc = 0;
    memset(b, 0, sizeof *b);
    b->p = sim_profile_find(FI_PROFILE);
    if (!b->p)
        return -1;
    ppb = b->p->geo.pages_per_block;
    b->len = sim_image_size(b->p, FI_BLOCKS);
    b->img = calloc(1, (size_t)b->len);
    if (!b->img || sim_init(&d, b->p, FI_BLOCKS, b->img, b->len, SIM_TYPICAL, 1, 1))
        return -1;
    memset(&cfg, 0, sizeof cfg);
    cfg.bd = &d.bd;
    cfg.work = work;
    cfg.work_size = sizeof work;
    cfg.sector_buf = sector;
    cfg.sector_buf_size = sizeof sector;
    if (steadyfs_work_size(&cfg) > sizeof work || steadyfs_format(&fs, &cfg) ||
        steadyfs_mount(&fs, &cfg))
        return -1;
    rc |= steadyfs_mkdir(&fs, "/logs");
    rc |= steadyfs_mkdir(&fs, "/logs/old");
    rc |= steadyfs_mkdir(&fs, "/etc");
    rc |= fi_file(&fs, "/etc/config", 300, 'c');
    rc |= fi_file(&fs, "/empty", 0, 0);
    for (i = 0; i < 10 && !rc; i++) {
        name[0] = 0;
        memcpy(name, "/logs/l", 7);
        name[7] = (char)('a' + i);
        name[8] = 0;
        rc |= fi_file(&fs, name, 900u * i, (uint8_t)i);
    }
    rc |= fi_file(&fs, "/logs/old/big", 20000, 'B');
    rc |= steadyfs_unlink(&fs, "/logs/lc");
    rc |= steadyfs_unlink(&fs, "/logs/ld");
    rc |= steadyfs_rename(&fs, "/logs/le", "/logs/old/le");
    rc |= steadyfs_rename(&fs, "/logs/lf", "/etc/config");
    rc |= steadyfs_unmount(&fs);
    if (rc)
        return -1;
    b->data_off = (uint64_t)b->img[88] | (uint64_t)b->img[89] << 8 | (uint64_t)b->img[90] << 16 |
                  (uint64_t)b->img[91] << 24;
    /* programmed pages: anything not erased (stored XOR 0xFF, so nonzero) */
    for (i = 0; i < FI_BLOCKS * ppb && b->nsec < FI_MAXSEC; i++) {
        const uint8_t *pg = fi_page(b, b->img, i);
        uint32_t k;
        for (k = 0; k < FI_SECTOR + FI_SPARE && !pg[k]; k++)
            ;
        if (k < FI_SECTOR + FI_SPARE)
            b->sec[b->nsec++] = i;
    }
    /* the volume id: in any checkpoint (anchor units 0 and 1) */
    for (i = 0; i < 2 * ppb; i++) {
        uint8_t *pg = fi_page(b, b->img, i);
        if (pg[FI_SECTOR] == (uint8_t)(4u ^ 0xFFu) && pg[0] == (uint8_t)(0x53u ^ 0xFFu)) {
            b->vol = fi_get32(pg + 108) ^ 0xFFFFFFFFu;
            break;
        }
    }
    return b->nsec ? 0 : -1;
}

/* Apply an input's records to img (a copy of the base image). */
static inline void fi_apply(const fi_base *b, uint8_t *img, const uint8_t *data, size_t size)
{
    uint8_t s[FI_SECTOR + FI_SPARE];
    size_t at = 0;
    uint32_t rec;
    for (rec = 0; rec < FI_MAXREC && at + 5 <= size; rec++) {
        uint8_t flags = data[at], n = data[at + 4] & 15u;
        uint32_t page = b->sec[data[at + 1] % b->nsec];
        uint32_t off = (uint32_t)(data[at + 2] | data[at + 3] << 8) % (FI_SECTOR + FI_SPARE);
        uint8_t *pg = fi_page(b, img, page);
        uint32_t k;
        at += 5;
        if (at + n > size)
            n = (uint8_t)(size - at);
        for (k = 0; k < sizeof s; k++)
            s[k] = pg[k] ^ 0xFF;   /* the image stores data XOR erased */
        for (k = 0; k < n && off + k < sizeof s; k++)
            s[off + k] = (flags & 2) ? s[off + k] ^ data[at + k] : data[at + k];
        at += n;
        if (flags & 1) {
            uint8_t *tag = s + FI_SECTOR;
            fi_put32(tag + 24, steady_crc32(0, s, FI_SECTOR));
            fi_put32(tag + 28, steady_crc32(tag[0] == 4 ? 0 : b->vol, tag, 28));
        }
        for (k = 0; k < sizeof s; k++)
            pg[k] = s[k] ^ 0xFF;
    }
}

#endif
