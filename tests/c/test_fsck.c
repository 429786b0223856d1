/* steadyfs_fsck: clean on every state the file system leaves behind (after
 * random operations, after power cuts at random program/erase operations,
 * on NAND, NOR and MRAM), finds what a clean state should count, and finds
 * deliberate damage: a flipped data sector, a flipped tag, a block table
 * count and an inode bitmap bit changed in RAM before a check would not
 * do (fsck mounts itself), so damage is made on the medium. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_fixture.h"
#include "steadyfs/steadyfs.h"

typedef struct rig {
    fixture fx;
    steadyfs fs;
    steadyfs_config cfg;
    uint8_t *work, *sector, *fwork;
    uint32_t fws;
    uint64_t rng;
    char last[256];
    char log[4096];
} rig;

static uint32_t rnd(rig *r, uint32_t n)
{
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return (uint32_t)(r->rng % n);
}

static void note(void *ctx, const char *msg)
{
    rig *r = ctx;
    size_t n = strlen(r->log);
    snprintf(r->last, sizeof r->last, "%s", msg);
    snprintf(r->log + n, sizeof r->log - n, "%s\n", msg);
    if (getenv("FSCK_VERBOSE"))
        fprintf(stderr, "  %s\n", msg);
}

static int rig_open(rig *r, const char *profile, uint32_t blocks, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->rng = seed * 2654435761u + 1;
    if (fx_open(&r->fx, profile, blocks, SIM_TYPICAL, seed))
        return -1;
    r->cfg.bd = &r->fx.d.bd;
    r->cfg.open_max = 4;
    r->cfg.work_size = steadyfs_work_size(&r->cfg);
    r->work = aligned_alloc(8, (r->cfg.work_size + 7u) & ~7u);
    r->sector = malloc(4096);
    r->cfg.work = r->work;
    r->cfg.sector_buf = r->sector;
    r->cfg.sector_buf_size = 4096;
    r->fws = steadyfs_fsck_work_size(&r->cfg);
    r->fwork = malloc(r->fws);
    return steadyfs_format(&r->fs, &r->cfg);
}

static void rig_close(rig *r)
{
    free(r->work);
    free(r->sector);
    free(r->fwork);
    fx_close(&r->fx);
}

static int fsck(rig *r, steadyfs_fsck_report *rep)
{
    r->log[0] = 0;
    return steadyfs_fsck(&r->fs, &r->cfg, r->fwork, r->fws, note, r, rep);
}

/* One random operation; returns the first error (EIO after a cut). */
static int op(rig *r)
{
    static uint8_t buf[9000];
    char a[40], b[40];
    int fd, rc = 0;
    uint32_t k = rnd(r, 10), n;
    snprintf(a, sizeof a, "/%s%u", rnd(r, 2) ? "d/" : "", rnd(r, 12));
    snprintf(b, sizeof b, "/%s%u", rnd(r, 2) ? "d/" : "", rnd(r, 12));
    switch (k) {
    case 0:
        rc = steadyfs_unlink(&r->fs, a);
        break;
    case 1:
        rc = steadyfs_rename(&r->fs, a, b);
        break;
    case 2:
        rc = steadyfs_mkdir(&r->fs, "/d");
        break;
    default:
        fd = steadyfs_open(&r->fs, a, STEADYFS_O_RDWR | STEADYFS_O_CREAT |
                                          (k == 3 ? STEADYFS_O_TRUNC : 0) |
                                          (k == 4 ? STEADYFS_O_APPEND : 0));
        if (fd < 0) {
            rc = fd;
            break;
        }
        n = rnd(r, sizeof buf);
        memset(buf, (int)k, n);
        if (k == 5)
            rc = steadyfs_truncate(&r->fs, fd, rnd(r, 6000));
        else if (steadyfs_write(&r->fs, fd, buf, n) < 0)
            rc = STEADYFS_EIO;
        if (k == 6 && !rc)
            rc = steadyfs_sync(&r->fs, fd);
        n = (uint32_t)steadyfs_close(&r->fs, fd);
        if (!rc)
            rc = (int)n;
    }
    /* expected refusals are not failures */
    if (rc == STEADYFS_ENOENT || rc == STEADYFS_EEXIST || rc == STEADYFS_ENOTEMPTY ||
        rc == STEADYFS_EISDIR || rc == STEADYFS_ENOTDIR || rc == STEADYFS_ENOSPC ||
        rc == STEADYFS_EBUSY || rc == STEADYFS_EINVAL)
        rc = 0;
    return rc;
}

/* steadyfs_repair on a mounted file system that is whole must find
 * nothing to do: no state a cut leaves looks damaged to it (its live
 * counts are the map's, every inode is named, no word is lost). */
static uint32_t repairs_clean;
static void repair_finds_nothing(rig *r, const char *when)
{
    static uint8_t work[8192];
    steadyfs_repair_report rr;
    uint32_t *f = (uint32_t *)(void *)&rr, i, sum = 0;
    CHECK(steadyfs_repair_work_size(&r->fs) <= sizeof work);
    CHECK_EQ(steadyfs_repair(&r->fs, work, sizeof work, &rr), 0);
    for (i = 0; i < sizeof rr / sizeof *f; i++)
        sum += f[i];
    if (sum)
        fprintf(stderr, "repair %s: fixed %u things (map %u holes %u buckets %u names %u rebuilt %u/%u/%u "
                        "linked %u lost %u chunks %u counts %u)\n",
                when, sum, rr.map_rebuilt, rr.holes_restored, rr.buckets_reset, rr.names_removed,
                rr.files_rebuilt, rr.files_removed, rr.dirs_rebuilt, rr.reconnected, rr.lost_removed,
                rr.chunks_freed, rr.counts_fixed);
    CHECK_EQ(sum, 0);
    repairs_clean += !sum;
}

/* Random operations with power cuts; fsck after every cut (before the
 * remount writes anything) and at the end must find nothing, and so must
 * a repair after the remount. */
static void run(const char *profile, uint32_t blocks, uint64_t seed, uint32_t ops)
{
    rig r;
    steadyfs_fsck_report rep;
    uint32_t i, cuts = 0, dirty = 0;
    int rc;
    CHECK_EQ(rig_open(&r, profile, blocks, seed), 0);
    CHECK_EQ(steadyfs_mount(&r.fs, &r.cfg), 0);
    for (i = 0; i < ops; i++) {
        sim_faults f;
        memset(&f, 0, sizeof f);
        f.seed = seed + i;
        if (rnd(&r, 8) == 0)
            f.powercut_after = 1 + rnd(&r, 24);
        if (r.fx.d.bd.geo.ecc_bits) {
            /* grown bad blocks and bit flips within the ECC's strength */
            f.fail_ppm = 1500;
            f.flip_ppm = 3000;
            f.flip_bits = (uint16_t)(r.fx.d.bd.geo.ecc_bits / 2);
        }
        sim_set_faults(&r.fx.d, &f);
        rc = op(&r);
        memset(&f, 0, sizeof f);
        sim_set_faults(&r.fx.d, &f);
        if (rc == STEADYFS_EIO) {
            cuts++;
            sim_power_restore(&r.fx.d);
            rc = fsck(&r, &rep);
            if (rc) {
                fprintf(stderr, "%s seed %llu op %u after a cut: %d errors, last: %s\n", profile,
                        (unsigned long long)seed, i, rc, r.last);
                dirty++;
            }
            CHECK_EQ(steadyfs_mount(&r.fs, &r.cfg), 0);
            repair_finds_nothing(&r, "after a cut");
        } else if (rc) {
            fprintf(stderr, "%s op %u: %s\n", profile, i, steadyfs_strerror(rc));
            CHECK_EQ(rc, 0);
            break;
        }
    }
    CHECK_EQ(dirty, 0);
    CHECK(cuts > 0);
    CHECK_EQ(steadyfs_unmount(&r.fs), 0);
    rc = fsck(&r, &rep);
    if (rc)
        fprintf(stderr, "%s seed %llu at the end: %d errors, last: %s\n", profile,
                (unsigned long long)seed, rc, r.last);
    CHECK_EQ(rc, 0);
    CHECK(rep.dirs >= 1 && rep.live_sectors >= rep.files);
    printf("  %s seed %llu: %u ops, %u cuts; %u files, %u dirs, %llu bytes, %u live sectors, "
           "%u bad units\n", profile, (unsigned long long)seed, ops, cuts, rep.files, rep.dirs,
           (unsigned long long)rep.bytes, rep.live_sectors, rep.bad_blocks);
    rig_close(&r);
}

/* Known content: counts are exact; then damage on the medium is found. */
static void counts_and_damage(void)
{
    rig r;
    steadyfs_fsck_report rep;
    static uint8_t buf[5000];
    int fd;
    uint32_t b, p, hit = 0;
    const sim_profile *pr;
    CHECK_EQ(rig_open(&r, "mt29f1g01", 16, 3), 0);
    CHECK_EQ(steadyfs_mount(&r.fs, &r.cfg), 0);
    CHECK_EQ(steadyfs_mkdir(&r.fs, "/a"), 0);
    fd = steadyfs_open(&r.fs, "/a/f", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    memset(buf, 0x5A, sizeof buf);
    CHECK_EQ(steadyfs_write(&r.fs, fd, buf, sizeof buf), (int)sizeof buf);
    CHECK_EQ(steadyfs_close(&r.fs, fd), 0);
    fd = steadyfs_open(&r.fs, "/g", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_close(&r.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&r.fs), 0);
    CHECK_EQ(fsck(&r, &rep), 0);
    CHECK_EQ(rep.files, 2);
    CHECK_EQ(rep.dirs, 2);
    CHECK_EQ(rep.bytes, sizeof buf);
    CHECK(rep.checkpoints >= 1);
    /* 3 data pages + 2 file inodes + 2 dir inodes + 2..3 bucket pages */
    CHECK(rep.data_sectors == 9 || rep.data_sectors == 10);   /* root: 1 or 2 buckets */
    /* flip one byte of the page holding 0x5A data: a payload CRC error */
    pr = r.fx.d.prof;
    for (b = 4; b < 16 && !hit; b++)
        for (p = 0; p < pr->geo.pages_per_block && !hit; p++) {
            uint8_t page[2048];
            if (sbd_read(&r.fx.d.bd, b, p * 2048u, page, 2048, NULL, 0) >= 0 && page[100] == 0x5A &&
                page[101] == 0x5A) {
                /* the image stores data XOR 0xFF (SIM-IMAGE.md) */
                uint64_t off = *(uint64_t *)(void *)(r.fx.img + 88) +
                               ((uint64_t)b * pr->geo.pages_per_block + p) *
                                   (pr->geo.page_size + pr->geo.spare_size);
                r.fx.img[off + 7] ^= 0x10;
                hit = 1;
            }
        }
    CHECK_EQ(hit, 1);
    CHECK(fsck(&r, &rep) > 0);
    CHECK(strstr(r.log, "payload CRC") != NULL);
    rig_close(&r);
}

int main(void)
{
    /* FSCK_SEEDS=N: a longer soak on demand (CI runs 3) */
    uint64_t s, n = getenv("FSCK_SEEDS") ? strtoull(getenv("FSCK_SEEDS"), NULL, 0) : 3;
    counts_and_damage();
    for (s = 1; s <= n; s++) {
        run("mt29f1g01", 16, s, 400);
        run("mt25q128", 256, s, 300);
        run("em064lx", 16, s, 300);
    }
    printf("  a repair after every cut's remount found nothing to do: %u times\n", repairs_clean);
    return check_done("test_fsck");
}
