/* The worst mount, built on purpose (issue 12: every call's bound within
 * 2x of what an adversary reaches; mount <= 10 ms on mt29f1g01).
 *
 * A mount reads the anchor ring's newest checkpoint (a binary search over
 * the ring, then over the unit), falls back past a torn one, replays what
 * the heads programmed after it -- up to replay_max sectors, each a tag
 * and the map words of what a commit replaces -- and rolls back a
 * namespace transaction a cut interrupted; on media without erase it then
 * reads every L1 map sector that exists (the maybe-live bits).  So the
 * worst mount follows a cut just before a checkpoint falls due, or inside
 * its program, after replay_max sectors that each commit a change to a
 * page whose map words lie in a map sector no other of them touches, on
 * a device whose whole logical space has map sectors.
 *
 * This test builds that, on the whole device of each medium in worst
 * timing: every L1 map sector written first (a file for every inode
 * number, sparse files that keep a chunk in every L1 sector), then O_DSYNC one-sector writes to random pages of
 * random files (each a commit of its own, in a map sector of its own) and
 * now and then a create or unlink; power is cut in the last few programs
 * before a checkpoint falls due, or inside the checkpoint, and elsewhere
 * at random.  Every mount after a cut is timed on the device's clock and
 * must be within steadyfs_bound's mount (test builds also check its
 * reads against the budget); the slowest is printed against the bound.
 * fsck now and then.  STEADYFS_MOUNT_CUTS sets the cuts a medium (at least 3; default
 * 300), STEADYFS_MOUNT_SEED the draw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "fs/fs_internal.h"
#include "host/fs_bound.h"

static tdev T;
static uint64_t rng;
static uint32_t rn(uint32_t n) { return tdev_rand(&rng, n); }

#define NF 120   /* files the churn writes */
static uint32_t per_file, stride;   /* their pages: per_file of them, stride apart */

static void fname(char *out, uint32_t i) { sprintf(out, "/f/%u", i); }

/* Cut power within the next `window` programs and erases (1..window). */
static void arm(uint32_t window)
{
    sim_faults f;
    memset(&f, 0, sizeof f);
    f.seed = rng;
    f.powercut_after = 1u + rn(window);   /* (counted from here: sim_set_faults) */
    sim_set_faults(&T.dev, &f);
}

static void disarm(void)
{
    sim_faults f;
    memset(&f, 0, sizeof f);
    sim_set_faults(&T.dev, &f);
}

/* n bytes at byte offset off of handle fd */
static int32_t pwrite_at(int fd, const void *b, uint32_t n, uint64_t off)
{
    int64_t at = steadyfs_seek(&T.fs, fd, (int64_t)off, STEADYFS_SEEK_SET);
    if (at < 0)
        return (int32_t)at;
    return steadyfs_write(&T.fs, fd, b, n);
}

static uint32_t file_pages(void)
{
    return T.fs.geo.maxpg < 8u * T.fs.geo.C ? T.fs.geo.maxpg : 8u * T.fs.geo.C;
}

/* Every inode's L1 sector: an empty file for every inode number the
 * churn does not take (kept: a removed inode's block is trimmed, and an L1
 * sector left with nothing mapped is dropped). */
static void fill_inodes(void)
{
    uint32_t i;
    char name[32];
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/s"), 0);
    for (i = 0; i + NF + 48u < T.fs.cfg.max_inodes; i++) {
        int fd;
        sprintf(name, "/s/%u", i);
        fd = steadyfs_open(&T.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        if (fd >= 0)
            CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
}

/* Every chunk's L1 sector: files whose pages take one L1 sector's worth
 * of chunks each, in order, cut back to their first, until no chunk is
 * left (or the device is 60 % full).  Then every L1 sector of the chunk
 * space maps a live page. */
static void fill_chunks(const uint8_t *page)
{
    uint32_t n = 0, k, C = T.fs.geo.C, pay = T.fs.geo.payload, per_l1 = T.fs.geo.e1 / C ? T.fs.geo.e1 / C : 1u;
    char name[32];
    int32_t rc = 16;
    steadyfs_info in;
    while (rc == 16) {
        int fd;
        /* (room left for the churn: a device at its live limit writes nothing) */
        CHECK_EQ(steadyfs_info_get(&T.fs, &in), 0);
        if (in.used > in.capacity * 6u / 10u)
            return;
        sprintf(name, "/c%u", n++);
        fd = steadyfs_open(&T.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0 || fd == STEADYFS_ENOSPC);   /* (inode numbers: 40 kept for these) */
        if (fd < 0)
            return;
        for (k = 1; k <= per_l1 && (uint64_t)k * C < T.fs.geo.maxpg && rc == 16; k++)
            rc = pwrite_at(fd, page, 16, (uint64_t)k * C * pay);
        if (rc != 16)
            CHECK_EQ(rc, STEADYFS_ENOSPC);
        CHECK_EQ(steadyfs_truncate(&T.fs, fd, (uint64_t)C * pay + 16u), 0);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
}

/* The churn's files: NF of them, each with pages in several chunks, to
 * `permille` of the capacity in all. */
static void make_files(uint8_t *buf, uint32_t permille)
{
    steadyfs_info in;
    char name[32];
    uint32_t i, pages = file_pages(), per;
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/f"), 0);
    CHECK_EQ(steadyfs_info_get(&T.fs, &in), 0);
    per = (uint32_t)(in.capacity * permille / 1000u / NF / T.fs.geo.payload);
    if (per > pages)
        per = pages;
    if (!per)
        per = 1;
    per_file = per;
    stride = pages / per;
    for (i = 0; i < NF; i++) {
        uint32_t p;
        int fd;
        fname(name, i);
        fd = steadyfs_open(&T.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        if (fd < 0)
            return;
        for (p = 0; p < per; p++)
            CHECK_EQ(pwrite_at(fd, buf, T.fs.geo.payload,
                                     (uint64_t)(p * (pages / per)) * T.fs.geo.payload),
                     (int32_t)T.fs.geo.payload);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
}

static void run(const char *profile, uint32_t cuts_wanted, uint64_t seed)
{
    static uint8_t buf[8192];
    uint64_t bound, worst = 0, sum = 0, t0, dt, r0, worst_reads = 0, worst_bytes = 0, b0;
    steadyfs_cost stated;
    uint32_t cuts = 0, near = 0, calls = 0, worst_since = 0, fscks = 0, k, l1 = 0;
    int fds[4] = {-1, -1, -1, -1}, rc;
    int failed0 = check_failed;
    char name[32];
    rng = 0x9E3779B97F4A7C15ull * (seed + 1u) ^ 0x5DEECE66Dull;
    CHECK_EQ(tdev_open(&T, profile, 0, seed), 0);
    sim_init(&T.dev, T.dev.prof, 0, T.image, T.image_len, SIM_WORST, seed, 1);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    bound = steady_fs_bound_ns(T.dev.prof, &T.cfg, STEADYFS_CALL_MOUNT, 0, SIM_WORST);
    CHECK_EQ(steadyfs_bound(&T.cfg, &T.dev.bd.geo, STEADYFS_CALL_MOUNT, 0, &stated), 0);
    for (k = 0; k < sizeof buf; k++)
        buf[k] = (uint8_t)(k * 13u + 1u);
    fill_inodes();
    make_files(buf, 100);
    fill_chunks(buf);
    while (cuts < cuts_wanted && check_failed == failed0 && calls < 400u * cuts_wanted) {
        uint32_t what = rn(100), f = rn(NF), slot = rn(4);
        /* a cut in the last programs before a checkpoint falls due (or in
         * its own), else now and then anywhere */
        if (!T.dev.faults.powercut_after) {
            if (T.fs.log.since_ckpt + 2u >= T.fs.cfg.replay_max) {
                arm(3);
                near++;
            } else if (rn(40) == 0) {
                arm(8);
            }
        }
        calls++;
        if (what < 4) {   /* a namespace change: a create or an unlink */
            sprintf(name, "/n%u", rn(16));
            if (steadyfs_unlink(&T.fs, name) == STEADYFS_ENOENT && T.dev.powered) {
                int fd = steadyfs_open(&T.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
                if (fd >= 0)
                    steadyfs_close(&T.fs, fd);
            }
        } else {
            /* an O_DSYNC one-sector write over a random page of a random
             * file (the live data stays as it is), through one of four
             * handles kept open */
            if (fds[slot] < 0) {
                fname(name, f);
                fds[slot] = steadyfs_open(&T.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_DSYNC);
            }
            if (fds[slot] >= 0) {
                uint32_t pg = rn(per_file) * stride;
                rc = pwrite_at(fds[slot], buf + rn(64), T.fs.geo.payload,
                                     (uint64_t)pg * T.fs.geo.payload);
                if (T.dev.powered)
                    CHECK_EQ(rc, (int32_t)T.fs.geo.payload);
                if (rn(8) == 0 && T.dev.powered) {
                    rc = steadyfs_close(&T.fs, fds[slot]);
                    if (T.dev.powered)
                        CHECK_EQ(rc, 0);
                    fds[slot] = -1;
                }
            }
        }
        if (!T.dev.powered) {
            sim_power_restore(&T.dev);
            disarm();
            t0 = T.dev.now_ns;
            r0 = T.dev.stats.reads;
            b0 = T.dev.stats.read_bytes;
            rc = steadyfs_mount(&T.fs, &T.cfg);
            dt = T.dev.now_ns - t0;
            CHECK_EQ(rc, 0);
            if (rc)
                break;
            if (dt > bound) {
                fprintf(stderr, "mount_worst: %s: mount took %llu ns, over its bound %llu ns (cut %u)\n",
                        profile, (unsigned long long)dt, (unsigned long long)bound, cuts);
                CHECK(0);
            }
            if (dt > worst) {
                worst = dt;
                worst_since = cuts;
                worst_reads = T.dev.stats.reads - r0;
                worst_bytes = T.dev.stats.read_bytes - b0;
            }
            sum += dt;
            cuts++;
            for (k = 0; k < 4; k++)
                fds[k] = -1;
            if (cuts % 100u == 0) {
                static steadyfs scratch;
                memset(&scratch, 0, sizeof scratch);
                CHECK_EQ(tdev_fsck(&T, &scratch, "mount_worst"), 0);
                fscks++;
            }
        }
    }
    for (k = 0; k < T.fs.geo.n_l1; k++) {
        uint32_t at = SFS_NONE;
        if (!sfs_l1_locate(&T.fs, k, &at) && at != SFS_NONE)
            l1++;
    }
    CHECK(cuts > 0);   /* a mount measured, or the run built nothing */
    printf("mount_worst: %s (%u units, replay_max %u, %u of %u L1 map sectors written): %u calls, %u cuts "
           "(%u armed near a checkpoint), %u fsck; slowest mount %.3f ms (after cut %u) of its bound %.3f ms "
           "(%.2f; %llu reads, %llu bytes, of %u and %llu), mean %.3f ms\n",
           profile, T.fs.geo.nblocks, T.fs.cfg.replay_max, l1, T.fs.geo.n_l1, calls, cuts, near, fscks,
           (double)worst / 1e6,
           worst_since, (double)bound / 1e6, bound ? (double)worst / (double)bound : 0.0,
           (unsigned long long)worst_reads, (unsigned long long)worst_bytes, stated.reads,
           (unsigned long long)stated.read_bytes,
           cuts ? (double)sum / cuts / 1e6 : 0.0);
    for (k = 0; k < 4; k++)
        if (fds[k] >= 0)
            steadyfs_close(&T.fs, fds[k]);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
}

int main(void)
{
    const char *e_cuts = getenv("STEADYFS_MOUNT_CUTS"), *e_seed = getenv("STEADYFS_MOUNT_SEED");
    uint32_t cuts = e_cuts ? (uint32_t)strtoul(e_cuts, NULL, 0) : 0u;
    uint64_t seed = e_seed ? strtoull(e_seed, NULL, 0) : 1u;
    if (cuts < 3u)
        cuts = 300u;   /* (unset, or not a number of cuts that measures anything) */
    run("mt29f1g01", cuts, seed);
    run("em064lx", cuts, seed);
    run("mt25q128", cuts / 3u, seed);
    return check_done("test_fs_mount_worst");
}
