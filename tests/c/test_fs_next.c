/* Named next units (format 6, DESIGN.md §5): a checkpoint names an erased
 * unit as each head's next, the head moves into it without a checkpoint,
 * and replay follows the name.  Checks: a log's head moves cost no
 * checkpoint; power cuts at every program and erase around such a move
 * (the first sector of the named unit torn, the move not yet made, the
 * unit half written) leave fsck clean, counts equal to the media's, every
 * committed record readable, and the log going on; a named unit a cut may
 * have torn is erased before it is used. */
#include <stdio.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_recount.h"
#include "fs_testdev.h"

static tdev T;
static uint8_t rec[4096];

static void fill_rec(uint32_t i)
{
    uint32_t k;
    for (k = 0; k < sizeof rec; k++)
        rec[k] = (uint8_t)(i * 131u + k * 7u);
}

static int counts_ok(const char *when)
{
    int bad = fs_counts_differ(&T.fs, when);
    CHECK_EQ(bad, 0);
    return !bad;
}

static void fsck_clean(const char *when)
{
    CHECK_EQ(tdev_fsck(&T, &T.fs, when), 0);
}

/* Records 0..n-1 of /log read back. */
static void records_ok(uint32_t n, const char *when)
{
    static uint8_t got[4096];
    uint32_t i, bad = 0;
    int fd = steadyfs_open(&T.fs, "/log", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    CHECK(steadyfs_size(&T.fs, fd) >= (int64_t)n * 4096);
    for (i = 0; i < n && fd >= 0; i++) {
        fill_rec(i);
        if (steadyfs_read(&T.fs, fd, got, sizeof got) != (int32_t)sizeof got ||
            memcmp(got, rec, sizeof rec))
            bad++;
    }
    if (bad)
        fprintf(stderr, "%s: %u of %u records differ\n", when, bad, n);
    CHECK_EQ(bad, 0);
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
}

static int append(int fd, uint32_t i)
{
    fill_rec(i);
    return steadyfs_write(&T.fs, fd, rec, sizeof rec);
}

static int log_open(void)
{
    return steadyfs_open(&T.fs, "/log", STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_APPEND |
                                            STEADYFS_O_DSYNC);
}

/* A log's head moves go into named units, without a checkpoint of their own. */
static void moves_without_checkpoint(void)
{
    uint32_t i, moves = 0, named = 0, free_moves = 0;
    int fd;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 128, 1), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    fd = log_open();
    CHECK(fd >= 0);
    for (i = 0; i < 1500; i++) {
        uint32_t head = T.fs.log.head_block, next = sfs_next_unit(&T.fs, 0);
        uint32_t ck = T.fs.stats.ckpt, since = T.fs.log.since_ckpt;
        CHECK_EQ(append(fd, i), 4096);
        if (T.fs.log.head_block == head)
            continue;
        moves++;
        named += next != SFS_NONE && T.fs.log.head_block == next;
        /* no checkpoint in the call unless one fell due anyway */
        free_moves += T.fs.stats.ckpt == ck || since + 4 >= T.fs.cfg.replay_max;
    }
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    printf("  %u head moves, %u into the named unit, %u without a checkpoint of their own\n", moves,
           named, free_moves);
    CHECK(moves >= 40);
    CHECK_EQ(named, moves);
    CHECK_EQ(free_moves, moves);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    fsck_clean("after the moves");
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    records_ok(1500, "after the moves");
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
}

/* A cut at each device operation of the records around a head move. */
static void cuts_around_moves(void)
{
    uint32_t before, window, cuts_seen = 0, entered = 0;
    for (before = 1; before <= 5; before++) {
        for (window = 1; window <= 14; window++) {
            sim_faults f;
            uint32_t i = 0, done, head;
            int fd, rc = 0;
            CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 40 + window), 0);
            CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
            CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
            fd = log_open();
            CHECK(fd >= 0);
            /* some units in, then stop `before` records short of a head
             * move into a named unit */
            while (rc >= 0 && (i < 100 || T.fs.log.head_idx + 2 * before < T.fs.geo.P ||
                               T.fs.log.head_idx + 2 * before > T.fs.geo.P + 1 ||
                               sfs_next_unit(&T.fs, 0) == SFS_NONE))
                rc = append(fd, i++);
            CHECK(rc >= 0);
            done = i;   /* committed: records 0..done-1 */
            head = T.fs.log.head_block;
            memset(&f, 0, sizeof f);
            f.powercut_after = window;
            sim_set_faults(&T.dev, &f);
            for (rc = 0; rc >= 0 && i < done + before + 3; i++) {
                rc = append(fd, i);
                if (rc >= 0)
                    done = i + 1;
            }
            entered += T.fs.log.head_block != head;
            if (T.fs.dead) {
                cuts_seen++;
                sim_power_restore(&T.dev);
            } else {
                CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
                CHECK_EQ(steadyfs_unmount(&T.fs), 0);
            }
            memset(&f, 0, sizeof f);
            sim_set_faults(&T.dev, &f);
            fsck_clean("after a cut near a head move");
            CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
            CHECK(counts_ok("after a cut near a head move"));
            records_ok(done, "after a cut near a head move");
            /* the log goes on, over a unit's worth of records */
            fd = log_open();
            CHECK(fd >= 0);
            for (i = 0; i < 40 && fd >= 0; i++)
                CHECK_EQ(steadyfs_write(&T.fs, fd, rec, sizeof rec), 4096);
            CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
            CHECK(counts_ok("writing on after the cut"));
            CHECK_EQ(steadyfs_unmount(&T.fs), 0);
            fsck_clean("writing on after the cut");
            tdev_close(&T);
        }
    }
    printf("  %u power cuts around head moves (%u runs moved before the cut or the end)\n",
           cuts_seen, entered);
    CHECK(cuts_seen >= 50);
}

int main(void)
{
    moves_without_checkpoint();
    cuts_around_moves();
    return check_done("test_fs_next");
}
