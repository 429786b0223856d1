/* Anchor wear (DESIGN.md §5).  A logger of 4 KiB O_DSYNC records in 1 MiB
 * files, the oldest of 40 unlinked as each new one starts, on the
 * 1024-unit mt29f1g01.  Up to format 17 the checkpoints, one every
 * replay_max sectors, went to the anchor units: with two of them (format
 * 13) they were erased 24.9x as often as the mean unit collection rotates
 * (164 against 6.6 erases after 200 000 records); with a ring of 16
 * (format 14) 3.3x, and a device ended its life when its anchor area had
 * worn out.  Since format 18 the checkpoints go to units of the pool and
 * the ring of two units takes one pointer record per unit of them: both
 * ring units must take turns, and the most erased one stay below the mean
 * of the other units (0.57x).  Then, with two units of the anchor area bad
 * (its two spares used), the ring is the other two, and both take turns
 * across remounts.  STEADYFS_ANCHOR_RECORDS sets the records (default
 * 150 000).
 *
 * Last, the anchors under churn: random 4 KiB O_DSYNC overwrites of four
 * files holding 75 % of the live limit on a 256-unit mt29f1g01, where
 * collection copies in every checkpoint's interval and nearly every
 * checkpoint is preceded by a relocation sector: on format 17 the ring
 * wore 5.5-5.6x as fast as the mean unit; now 0.22x, and it must stay
 * below 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_testdev.h"


#define FILE_RECORDS 256u   /* 1 MiB files */
#define FILES_KEPT 40u

/* The logger: recs 4 KiB O_DSYNC records, a new file every FILE_RECORDS
 * records, the oldest of FILES_KEPT unlinked as each starts; with
 * remount_files, an unmount and mount every that many files. */
static void logger(tdev *t, uint32_t recs, uint32_t remount_files)
{
    static uint8_t buf[4096];
    uint32_t i;
    int fd = -1;
    memset(buf, 0x5A, sizeof buf);
    for (i = 0; i < recs; i++) {
        char name[32];
        if (i % FILE_RECORDS == 0) {
            if (fd >= 0)
                CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
            if (i / FILE_RECORDS >= FILES_KEPT) {
                snprintf(name, sizeof name, "/f%u", i / FILE_RECORDS - FILES_KEPT);
                CHECK_EQ(steadyfs_unlink(&t->fs, name), 0);
            }
            if (remount_files && i && i % (remount_files * FILE_RECORDS) == 0) {
                CHECK_EQ(steadyfs_unmount(&t->fs), 0);
                CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
            }
            snprintf(name, sizeof name, "/f%u", i / FILE_RECORDS);
            fd = steadyfs_open(&t->fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
            CHECK(fd >= 0);
            if (fd < 0)
                return;
        }
        if (steadyfs_write(&t->fs, fd, buf, sizeof buf) != (int)sizeof buf) {
            CHECK(0);
            break;
        }
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
}

/* Erases since `base` of the anchor area's units (their most erased) and of
 * every other good unit (their mean), as max / mean. */
static double anchor_ratio(tdev *t, const uint32_t *base, uint32_t *ring_used)
{
    uint32_t b, nd = 0, ma = 0, used = 0;
    uint64_t sd = 0;
    for (b = 0; b < t->fs.geo.nblocks; b++) {
        uint32_t c = sim_erase_count(&t->dev, b) - base[b];
        if (sbd_is_bad(&t->dev.bd, b) > 0)
            continue;
        if (b < sfs_reserved(&t->fs)) {
            used += c != 0;
            if (c > ma)
                ma = c;
        } else {
            sd += c;
            nd++;
        }
    }
    *ring_used = used;
    return sd ? (double)ma * nd / (double)sd : 0.0;
}

/* Random 4 KiB O_DSYNC overwrites of FILES_CHURN files holding fill of the
 * live limit: the anchors' wear against the other units'. */
#define FILES_CHURN 4u
static void churn(uint32_t units, double fill, uint32_t recs, uint64_t seed)
{
    static uint8_t buf[4096];
    static uint32_t base[1024];
    uint64_t rnd = seed;
    uint32_t per, i, b, used;
    int fds[FILES_CHURN];
    double ratio;
    tdev t;
    CHECK_EQ(tdev_open(&t, "mt29f1g01", units, seed), 0);
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    per = (uint32_t)(fill * t.fs.live_max * t.fs.geo.payload / FILES_CHURN / sizeof buf);
    for (i = 0; i < FILES_CHURN; i++) {
        char name[16];
        uint32_t k;
        snprintf(name, sizeof name, "/c%u", i);
        fds[i] = steadyfs_open(&t.fs, name, STEADYFS_O_RDWR | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
        CHECK(fds[i] >= 0);
        for (k = 0; k < per; k++)
            CHECK_EQ(steadyfs_write(&t.fs, fds[i], buf, sizeof buf), (int)sizeof buf);
    }
    for (b = 0; b < t.fs.geo.nblocks; b++)
        base[b] = sim_erase_count(&t.dev, b);
    for (i = 0; i < recs; i++) {
        uint32_t f = tdev_rand(&rnd, FILES_CHURN), k = tdev_rand(&rnd, per);
        buf[0] = (uint8_t)i;
        CHECK_EQ(steadyfs_seek(&t.fs, fds[f], (int64_t)k * sizeof buf, STEADYFS_SEEK_SET), (int64_t)k * sizeof buf);
        CHECK_EQ(steadyfs_write(&t.fs, fds[f], buf, sizeof buf), (int)sizeof buf);
    }
    ratio = anchor_ratio(&t, base, &used);
    printf("anchor wear under churn: %u units, %.0f %% of the live limit, %u random 4 KiB O_DSYNC overwrites: "
           "%u anchor units erased, the most erased %.2fx the mean other unit\n",
           units, fill * 100.0, recs, used, ratio);
    CHECK(used >= 1u);
    CHECK(ratio < 1.0);
    for (i = 0; i < FILES_CHURN; i++)
        CHECK_EQ(steadyfs_close(&t.fs, fds[i]), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    tdev_close(&t);
}

int main(void)
{
    const char *env = getenv("STEADYFS_ANCHOR_RECORDS");
    uint32_t recs = env ? (uint32_t)strtoul(env, NULL, 0) : 150000u, b, nd = 0, na = 0, ma = 0, md = 0;
    uint64_t sd = 0, sa = 0;
    tdev t;
    CHECK_EQ(tdev_open(&t, "mt29f1g01", 1024, 3), 0);
    t.cfg.open_max = 1;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(sfs_anchors(&t.fs), 2u);   /* (this device's anchor area has no bad unit) */
    logger(&t, recs, 0);
    /* the anchor area (BS_RESERVED) against every other good unit */
    for (b = 0; b < t.fs.geo.nblocks; b++) {
        uint32_t c = sim_erase_count(&t.dev, b);
        if (sbd_is_bad(&t.dev.bd, b) > 0)
            continue;
        if (b < sfs_reserved(&t.fs)) {
            sa += c;
            na += c != 0;
            if (c > ma)
                ma = c;
        } else {
            sd += c;
            nd++;
            if (c > md)
                md = c;
        }
    }
    printf("anchor wear: %u records of 4 KiB: %u anchor units erased, mean %.2f, max %u; %u other units, "
           "mean %.3f, max %u; anchor max / mean %.2f\n",
           recs, na, na ? (double)sa / na : 0.0, ma, nd, nd ? (double)sd / nd : 0.0, md,
           sd ? (double)ma * nd / (double)sd : 0.0);
    CHECK_EQ(na, sfs_anchors(&t.fs));     /* the whole ring took turns */
    CHECK(sd > 0 && (uint64_t)ma * nd <= sd);   /* below the mean unit */
    /* and the file system mounts from the ring where it stands */
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    tdev_close(&t);

    /* both spares of the anchor area taken by bad units: the ring is the
     * other two, and goes round as before, a remount every 16 files
     * finding its newest pointer; then checkpoints written directly (as a
     * call writes them: 64 to a pointer), a remount every 512, take the
     * ring round twice more */
    CHECK_EQ(tdev_open(&t, "mt29f1g01", 1024, 3), 0);
    t.cfg.open_max = 1;
    CHECK_EQ(sbd_mark_bad(&t.dev.bd, 1), 0);
    CHECK_EQ(sbd_mark_bad(&t.dev.bd, 2), 0);
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(sfs_anchors(&t.fs), 2u);
    logger(&t, recs / 4u, 16u);
    for (b = 0; b < 4u * t.fs.geo.P * t.fs.geo.P; b++) {
        CHECK_EQ(sfs_ckpt_write(&t.fs), 0);
        if (b % 512u == 511u) {
            CHECK_EQ(steadyfs_unmount(&t.fs), 0);
            CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        }
    }
    for (b = 0, na = 0; b < sfs_reserved(&t.fs); b++)
        na += sbd_is_bad(&t.dev.bd, b) <= 0 && sim_erase_count(&t.dev, b) > 1u;
    printf("anchor wear: 2 bad units in the anchor area: a ring of %u, %u of them erased since the format\n",
           sfs_anchors(&t.fs), na);
    CHECK_EQ(na, 2u);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    tdev_close(&t);

    churn(256, 0.75, 30000, 3);
    return check_done("test_fs_anchor_wear");
}
