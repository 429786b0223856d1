/* Wear-levelling endurance (issue 4): half of the device holds static
 * files, one hot 64 KiB file is rewritten 4 KiB + sync at a time.  The
 * erase counts the simulator keeps per block must stay within the spread
 * DESIGN.md §6 states: every unit outside the anchors erased (static data
 * moves), max/mean <= 2.5 and the hottest unit within 3x the mean.
 * STEADYFS_WEAR_SYNCS sets the number of rewrites (default 60000).
 *
 * Then a logger on a nearly empty device (2 MB live of 128 units): 4 KiB
 * O_DSYNC records in 256 KiB files, the oldest of 8 unlinked as each new
 * one starts.  Its units die whole, so every greedy victim has 0 live
 * sectors; with ties taken from unit 0 up (before 2026-12-01) the same 40
 * low units were freed and erased again and again (up to 16 erases) while
 * 48 others were erased once.  Every unit must take its turn: each erased
 * at least 3 times, max/mean <= 1.5.  STEADYFS_WEAR_RECORDS sets the
 * records (default 30000: since the checkpoints go to units of the pool,
 * format 18, a unit of them is erased once more per 64 checkpoints, which
 * at 20 000 records leaves 38 units one erase ahead -- max/mean 1.50, min 2
 * -- and evens out as the rotation goes on: 1.34 at 30 000, 1.17 at
 * 40 000). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_testdev.h"

/* A rotating logger of `recs` 4 KiB O_DSYNC records on a 128-unit device
 * with little live data; the erase counts of the units outside the anchor
 * area must be even. */
static void rotating_logger(uint32_t recs)
{
    static uint8_t rec[4096];
    uint32_t i, b, n = 0, mn = ~0u, mx = 0;
    uint64_t sum = 0;
    int fd = -1;
    tdev t;
    CHECK_EQ(tdev_open(&t, "mt29f1g01", 128, 1), 0);
    t.cfg.open_max = 1;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    for (i = 0; i < recs; i++) {
        char name[32];
        if (i % 64u == 0) {
            if (fd >= 0)
                CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
            if (i / 64u >= 8u) {
                snprintf(name, sizeof name, "/log%u", i / 64u - 8u);
                CHECK_EQ(steadyfs_unlink(&t.fs, name), 0);
            }
            snprintf(name, sizeof name, "/log%u", i / 64u);
            fd = steadyfs_open(&t.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
            CHECK(fd >= 0);
        }
        memset(rec, (int)(i & 0xFFu), sizeof rec);
        if (fd < 0 || steadyfs_write(&t.fs, fd, rec, sizeof rec) != (int)sizeof rec) {
            CHECK(0);
            break;
        }
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    for (b = sfs_reserved(&t.fs); b < t.fs.geo.nblocks; b++) {
        uint32_t c;
        if (sbd_is_bad(&t.dev.bd, b) > 0)
            continue;
        c = sim_erase_count(&t.dev, b);
        sum += c;
        n++;
        mn = c < mn ? c : mn;
        mx = c > mx ? c : mx;
    }
    printf("wear: a rotating logger, %u records of 4 KiB, 8 files of 256 KiB kept: erase counts of %u units "
           "min %u max %u mean %.1f (max/mean %.2f)\n",
           recs, n, mn, mx, (double)sum / n, (double)mx * n / (double)sum);
    CHECK(n >= 100);
    CHECK(mn >= 3);                          /* every unit took its turn */
    CHECK(2 * mx * (uint64_t)n <= 3 * sum);  /* max/mean <= 1.5 */
    steadyfs_unmount(&t.fs);
    tdev_close(&t);
}

int main(void)
{
    static uint8_t buf[65536];
    const char *env = getenv("STEADYFS_WEAR_SYNCS");
    uint32_t syncs = env ? (uint32_t)strtoul(env, NULL, 0) : 60000, i, b, n = 0, mn = ~0u, mx = 0;
    uint64_t sum = 0;
    steadyfs_info in;
    tdev t;
    int fd;
    /* STEADYFS_WEAR_SEED: the device seed (factory bad units); 3 in make test */
    CHECK_EQ(tdev_open(&t, "mt29f1g01", 64,
                       getenv("STEADYFS_WEAR_SEED") ? strtoull(getenv("STEADYFS_WEAR_SEED"), NULL, 10) : 3),
             0);
    t.cfg.open_max = 1;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    /* static half: 64 KiB files up to half the capacity */
    CHECK_EQ(steadyfs_mkdir(&t.fs, "/static"), 0);
    for (i = 0;; i++) {
        char name[32];
        CHECK_EQ(steadyfs_info_get(&t.fs, &in), 0);
        if (in.used >= in.capacity / 2)
            break;
        snprintf(name, sizeof name, "/static/%u", i);
        fd = steadyfs_open(&t.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_write(&t.fs, fd, buf, sizeof buf), (int)sizeof buf);
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    }
    fd = steadyfs_open(&t.fs, "/hot", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(&t.fs, fd, buf, sizeof buf), (int)sizeof buf);
    for (i = 0; i < syncs; i++) {
        uint32_t off = (i % 16) * 4096;
        if (steadyfs_seek(&t.fs, fd, off, STEADYFS_SEEK_SET) != off ||
            steadyfs_write(&t.fs, fd, buf + off, 4096) != 4096 || steadyfs_sync(&t.fs, fd)) {
            CHECK(0);
            break;
        }
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    /* erase counts of every good unit outside the anchor area */
    for (b = 4; b < 64; b++) {
        uint32_t c;
        if (sbd_is_bad(&t.dev.bd, b) > 0)
            continue;
        c = sim_erase_count(&t.dev, b);
        if (getenv("WEAR_UNITS"))
            printf("%u:%u ", b, c);
        sum += c;
        n++;
        if (c < mn)
            mn = c;
        if (c > mx)
            mx = c;
    }
    printf("wear: %u syncs of 4 KiB, half static: erase counts of %u units min %u max %u mean %.1f "
           "(max/mean %.2f, max-min %u); anchors %u/%u\n",
           syncs, n, mn, mx, (double)sum / n, (double)mx * n / (double)sum, mx - mn,
           sim_erase_count(&t.dev, 0), sim_erase_count(&t.dev, 1));
    CHECK(n >= 50);
    CHECK(mn >= 1);                      /* static data moved: no unit left unerased */
    CHECK(mx * (uint64_t)n <= 5 * sum / 2); /* max/mean <= 2.5 */
    steadyfs_unmount(&t.fs);
    tdev_close(&t);
    rotating_logger(getenv("STEADYFS_WEAR_RECORDS") ? (uint32_t)strtoul(getenv("STEADYFS_WEAR_RECORDS"), NULL, 0)
                                                     : 30000u);
    return check_done("test_fs_wear");
}
