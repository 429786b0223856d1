/* The threaded host head on a medium without erase (formats 11, 12, DESIGN.md
 * §9), under power cuts.  On a small em064lx the files fill about 70 % of
 * the capacity and random 4 KiB blocks are rewritten and synced, so the
 * erased units run low and the host head goes on in closed units' dead
 * sectors; power is cut at a random program now and then (a torn write
 * included).  After every cut: fsck is clean (before the remount writes
 * anything), the remount works, and every block of every file reads the
 * last version synced before the cut -- or, for the block being written
 * when the power went, that version or the one before.  At the end the
 * head must have gone on in a closed unit, and replay must have followed
 * it into a unit a checkpoint named for it (format 12: that move writes
 * no checkpoint of its own), or the test did not test them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "fs/fs_internal.h"

#define NFILES 6u
#define BLK 4096u
#define MAXBLK 64u

typedef struct rig {
    tdev t;
    uint32_t nblk, threaded, followed;
    uint64_t rng;
    uint16_t ver[NFILES][MAXBLK];   /* version of each block, as last synced */
} rig;

/* Block k of file f at version v: every byte says which. */
static void pattern(uint8_t *b, uint32_t f, uint32_t k, uint32_t v)
{
    uint32_t i;
    for (i = 0; i < BLK; i++)
        b[i] = (uint8_t)(f * 31u + k * 7u + v * 13u + i);
}

static void path_of(char *p, size_t n, uint32_t f) { snprintf(p, n, "/f%u", f); }

/* Write block k of file f at version v and sync it: 0, or the first error. */
static int put(rig *r, uint32_t f, uint32_t k, uint32_t v)
{
    static uint8_t b[BLK];
    char p[16];
    int fd, rc;
    path_of(p, sizeof p, f);
    fd = steadyfs_open(&r->t.fs, p, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    if (fd < 0)
        return fd;
    pattern(b, f, k, v);
    rc = (int)steadyfs_seek(&r->t.fs, fd, (int64_t)k * BLK, STEADYFS_SEEK_SET);
    if (rc >= 0) {
        rc = steadyfs_write(&r->t.fs, fd, b, BLK);
        rc = rc == (int)BLK ? steadyfs_sync(&r->t.fs, fd) : rc < 0 ? rc : STEADYFS_EIO;
    }
    if (steadyfs_close(&r->t.fs, fd) && !rc)
        rc = STEADYFS_EIO;
    return rc;
}

/* Every block of every file: its synced version, or for block (wf, wk)
 * (written when the power went) that one or the next; the model takes
 * what is there.  Returns the blocks that matched neither. */
static uint32_t verify(rig *r, uint32_t wf, uint32_t wk)
{
    static uint8_t want[BLK], got[BLK];
    uint32_t f, k, bad = 0;
    char p[16];
    for (f = 0; f < NFILES; f++) {
        int fd;
        path_of(p, sizeof p, f);
        fd = steadyfs_open(&r->t.fs, p, STEADYFS_O_RDONLY);
        if (fd < 0)
            return r->nblk;
        for (k = 0; k < r->nblk; k++) {
            if (steadyfs_read(&r->t.fs, fd, got, BLK) != (int32_t)BLK) {
                bad++;
                continue;
            }
            pattern(want, f, k, r->ver[f][k]);
            if (!memcmp(want, got, BLK))
                continue;
            if (f == wf && k == wk) {
                pattern(want, f, k, r->ver[f][k] + 1u);
                if (!memcmp(want, got, BLK)) {
                    r->ver[f][k]++;
                    continue;
                }
            }
            fprintf(stderr, "thread: /f%u block %u is neither version %u nor the write in flight\n", f, k,
                    r->ver[f][k]);
            bad++;
        }
        steadyfs_close(&r->t.fs, fd);
    }
    return bad;
}

static void run(uint32_t blocks, uint64_t seed, uint32_t writes)
{
    rig *r = calloc(1, sizeof *r);
    steadyfs_info info;
    uint32_t f, k, i, cuts = 0;
    int rc;
    r->rng = seed * 2654435761u + 7;
    CHECK_EQ(tdev_open(&r->t, "em064lx", blocks, seed), 0);
    CHECK_EQ(steadyfs_format(&r->t.fs, &r->t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&r->t.fs, &r->t.cfg), 0);
    CHECK_EQ(steadyfs_info_get(&r->t.fs, &info), 0);
    /* about 70 % of the capacity in NFILES files of whole blocks */
    r->nblk = (uint32_t)(info.capacity * 7u / 10u / NFILES / BLK);
    if (r->nblk > MAXBLK)
        r->nblk = MAXBLK;
    CHECK(r->nblk >= 4);
    for (f = 0; f < NFILES; f++)
        for (k = 0; k < r->nblk; k++)
            CHECK_EQ(put(r, f, k, 0), 0);
    for (i = 0; i < writes; i++) {
        sim_faults fl;
        f = tdev_rand(&r->rng, NFILES);
        k = tdev_rand(&r->rng, r->nblk);
        memset(&fl, 0, sizeof fl);
        fl.seed = seed + i;
        if (tdev_rand(&r->rng, 12) == 0)   /* within the write's programs (data, merges, a checkpoint) */
            fl.powercut_after = 1 + tdev_rand(&r->rng, 4);
        sim_set_faults(&r->t.dev, &fl);
        rc = put(r, f, k, r->ver[f][k] + 1u);
        memset(&fl, 0, sizeof fl);
        sim_set_faults(&r->t.dev, &fl);
        if (rc == 0) {
            r->ver[f][k]++;
            continue;
        }
        CHECK_EQ(rc, STEADYFS_EIO);
        if (rc != STEADYFS_EIO)
            break;
        cuts++;
        r->threaded += r->t.fs.stats.threaded;
        sim_power_restore(&r->t.dev);
        CHECK_EQ(tdev_fsck(&r->t, &r->t.fs, "thread: after a cut"), 0);
        CHECK_EQ(steadyfs_mount(&r->t.fs, &r->t.cfg), 0);
        r->followed += r->t.fs.stats.threaded != 0;   /* replay went on in a named unit */
        CHECK_EQ(verify(r, f, k), 0);
    }
    r->threaded += r->t.fs.stats.threaded;
    CHECK_EQ(verify(r, NFILES, 0), 0);
    CHECK_EQ(steadyfs_unmount(&r->t.fs), 0);
    CHECK_EQ(tdev_fsck(&r->t, &r->t.fs, "thread: at the end"), 0);
    CHECK(cuts > 0);
    CHECK(r->threaded > 0);   /* the head went on in closed units: the path was tested */
    CHECK(r->followed > 0);
    printf("  em064lx, %u blocks, seed %llu: %u files of %u blocks, %u writes, %u cuts, %u threaded head moves, "
           "replay followed one after %u cuts\n",
           blocks, (unsigned long long)seed, NFILES, r->nblk, writes, cuts, r->threaded, r->followed);
    tdev_close(&r->t);
    free(r);
}

/* Random records on the whole em064lx (format 13, DESIGN.md §9): where
 * collection never runs a committed change leaves the sector it replaced
 * counted until its L1 sector's merge (PF_OLD), checkpoints keep such
 * changes, and mount uncounts them -- in replay when it meets their L1
 * sector, else after it.  Static files fill the device to about 70 %,
 * then a 1 MiB file takes random O_DSYNC 4 KiB records, with a cut at a
 * random program now and then.  After each cut fsck is clean, the remount
 * works (test builds abort there if a unit's count differs from its
 * maybe-live bits) and every block reads its synced version (the one in
 * flight: that or the next).  Cuts must find changes so flagged, or the
 * test did not test them. */
#define RBLK 256u
static void run_random(uint64_t seed, uint32_t writes)
{
    static uint16_t ver[RBLK];
    static uint8_t b[BLK], got[BLK];
    tdev t;
    steadyfs_info info;
    uint64_t rng = seed * 2654435761u + 11;
    uint32_t i, k, n, cuts = 0, flagged = 0, bad = 0;
    char name[32];
    int fd, rc;
    memset(ver, 0, sizeof ver);
    CHECK_EQ(tdev_open(&t, "em064lx", 0, seed), 0);
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK(sfs_old_later_ok(&t.fs, 1));   /* where PF_OLD is used */
    for (n = 0;; n++) {
        CHECK_EQ(steadyfs_info_get(&t.fs, &info), 0);
        if (info.used + (1u << 20) > info.capacity * 7u / 10u)
            break;
        snprintf(name, sizeof name, "/s%u", n);
        fd = steadyfs_open(&t.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        for (k = 0; k < RBLK; k++)
            CHECK_EQ(steadyfs_write(&t.fs, fd, b, BLK), (int)BLK);
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    }
    fd = steadyfs_open(&t.fs, "/r", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    for (k = 0; k < RBLK; k++) {
        pattern(b, 0, k, 0);
        CHECK_EQ(steadyfs_write(&t.fs, fd, b, BLK), (int)BLK);
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    fd = steadyfs_open(&t.fs, "/r", STEADYFS_O_RDWR | STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    for (i = 0; i < writes && fd >= 0; i++) {
        sim_faults fl;
        uint32_t j;
        k = tdev_rand(&rng, RBLK);
        memset(&fl, 0, sizeof fl);
        fl.seed = seed + i;
        if (tdev_rand(&rng, 40) == 0)   /* within the record's programs (data, a merge, a checkpoint) */
            fl.powercut_after = 1 + tdev_rand(&rng, 3);
        sim_set_faults(&t.dev, &fl);
        for (j = 0; j < t.fs.npend; j++)   /* what a checkpoint may have kept */
            flagged += fl.powercut_after && t.fs.pend[j].type == PT_L1 && (t.fs.pend[j].flags & PF_OLD);
        pattern(b, 0, k, ver[k] + 1u);
        rc = (int)steadyfs_seek(&t.fs, fd, (int64_t)k * BLK, STEADYFS_SEEK_SET);
        if (rc >= 0)
            rc = steadyfs_write(&t.fs, fd, b, BLK);
        memset(&fl, 0, sizeof fl);
        sim_set_faults(&t.dev, &fl);
        if (rc == (int)BLK) {
            ver[k]++;
            continue;
        }
        CHECK_EQ(rc, STEADYFS_EIO);
        cuts++;
        sim_power_restore(&t.dev);
        CHECK_EQ(tdev_fsck(&t, &t.fs, "thread random: after a cut"), 0);
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        fd = steadyfs_open(&t.fs, "/r", STEADYFS_O_RDWR | STEADYFS_O_DSYNC);
        CHECK(fd >= 0);
        for (j = 0; j < RBLK && fd >= 0; j++) {
            CHECK_EQ(steadyfs_read(&t.fs, fd, got, BLK), (int)BLK);
            pattern(b, 0, j, ver[j]);
            if (!memcmp(b, got, BLK))
                continue;
            pattern(b, 0, j, ver[j] + 1u);
            if (j == k && !memcmp(b, got, BLK)) {
                ver[j]++;
                continue;
            }
            fprintf(stderr, "thread random: /r block %u is neither version %u nor the write in flight\n", j, ver[j]);
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(tdev_fsck(&t, &t.fs, "thread random: at the end"), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);   /* unmount's checkpoint kept flagged changes */
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK(cuts > 0);
    CHECK(flagged > 0);
    printf("  em064lx, random records, seed %llu: %u static files, %u writes, %u cuts, %u flagged changes "
           "pending at them\n", (unsigned long long)seed, n, writes, cuts, flagged);
    tdev_close(&t);
}

int main(void)
{
    run_random(1, 3000);
    run_random(2, 3000);
    run(16, 1, 4000);
    run(16, 2, 4000);
    run(24, 3, 4000);
    run(24, 4, 4000);
    run(32, 5, 4000);
    return check_done("test_fs_thread");
}
