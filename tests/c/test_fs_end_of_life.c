/* End of life (DESIGN.md §6, "End of life, measured").  Every unit of a
 * 128-unit mt29f1g01 wears out at its 20th erase (faults.wear_limit).  A
 * logger of 4 KiB O_DSYNC records in 256 KiB files, the oldest of 8
 * unlinked as each new one starts (2 MB live), runs until a call fails.
 *
 * 1. As the device is.  Since format 18 the checkpoints go to units of
 *    the pool, which wear as the data units do, and the anchor ring takes
 *    a pointer per unit of them: the data units decide, units go bad one
 *    after another and the capacity shrinks with them, and a call may fail
 *    only once they have used 90 % of their endurance (ENOSPC when the
 *    live data no longer fits the good units' live limit, or EIO when an
 *    O_DSYNC write's commit finds only units that fail their programs).
 *    Before, the anchor ring, written a sector per replay_max (2.8-3.6
 *    times as often as the other units), wore out first: EIO after 38 720
 *    records with the data units at 55 % (format 17; 28 % before
 *    2026-12-01, when ties in the greedy victim went to the lowest units
 *    and the first worn anchor unit was EIO).
 * 2. With the anchor area kept fresh (its erase counts set back to 0, as if
 *    its units lasted longer): the same floor; the two runs now differ
 *    only if the ring wears.
 * In both, the failing call is EIO or ENOSPC, never anything else; after a
 * remount every acknowledged record of the kept files reads back and fsck
 * is clean. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_testdev.h"

#define REC 4096u

/* the defaults; STEADYFS_EOL_DEVICE, _UNITS, _LIMIT, _FILE_RECS and _KEPT
 * run other shapes (the floor is asserted as the device is for the
 * defaults only; with the anchor area kept fresh for every shape) */
static const char *device = "mt29f1g01";
static uint32_t UNITS = 128u, LIMIT = 20u, FILE_RECS = 64u, KEPT = 8u;
static int defaults = 1;

static steadyfs scratch;   /* fsck's context */

static void fill_rec(uint8_t *b, uint32_t r)
{
    uint32_t i;
    for (i = 0; i < REC; i++)
        b[i] = (uint8_t)(r * 29u + i * 13u + (i >> 9));
}

static const char *failed_call;   /* the call that failed */

/* The logger until a call fails: the records acknowledged, *err the error. */
static uint32_t run_logger(tdev *t, int fresh_anchors, int *err)
{
    static uint8_t b[REC];
    uint32_t r, a;
    int fd = -1, rc = 0;
    for (r = 0;; r++) {
        char name[32];
        if (fresh_anchors && r % 256u == 0)
            for (a = 0; a < sfs_reserved(&t->fs) * t->fs.geo.dev_per_block; a++)
                sim_wear_block(&t->dev, a, 0);
        if (r % FILE_RECS == 0) {
            failed_call = "close";
            if (fd >= 0 && (rc = steadyfs_close(&t->fs, fd)) != 0)
                break;
            fd = -1;
            if (r / FILE_RECS >= KEPT) {
                snprintf(name, sizeof name, "/log%u", r / FILE_RECS - KEPT);
                failed_call = "unlink";
                if ((rc = steadyfs_unlink(&t->fs, name)) != 0)
                    break;
            }
            snprintf(name, sizeof name, "/log%u", r / FILE_RECS);
            failed_call = "create";
            fd = steadyfs_open(&t->fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
            if (fd < 0) {
                rc = fd;
                break;
            }
        }
        fill_rec(b, r);
        failed_call = "write";
        rc = steadyfs_write(&t->fs, fd, b, REC);
        if (rc != (int)REC) {
            rc = rc < 0 ? rc : STEADYFS_EIO;
            break;
        }
        rc = 0;
    }
    *err = rc;
    return r;
}

/* After a remount: the kept files hold every acknowledged record (an
 * unlink or a create cut short by the failure aside). */
static void check_kept(tdev *t, uint32_t acked)
{
    uint32_t last = acked / FILE_RECS, f, bad = 0;
    for (f = last >= KEPT - 1u ? last - (KEPT - 1u) : 0u; f <= last; f++) {
        uint32_t n = acked - f * FILE_RECS < FILE_RECS ? acked - f * FILE_RECS : FILE_RECS;
        char name[32];
        if (!n)
            continue;
        snprintf(name, sizeof name, "/log%u", f);
        bad += tdev_records_bad(&t->fs, name, f * FILE_RECS, n, REC, fill_rec);
    }
    CHECK_EQ(bad, 0u);
}

static void end_of_life(int fresh_anchors)
{
    tdev t;
    sim_faults fl;
    uint32_t recs, b, nbad = 0, live, live_max;
    uint64_t erases = 0, usable = 0;
    int err;
    CHECK_EQ(tdev_open(&t, device, UNITS, 1), 0);
    t.cfg.open_max = 1;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    memset(&fl, 0, sizeof fl);
    fl.wear_limit = LIMIT;
    sim_set_faults(&t.dev, &fl);
    recs = run_logger(&t, fresh_anchors, &err);
    live = t.fs.live;
    live_max = t.fs.live_max;
    /* the data units' endurance used: their erases (a failing erase of a
     * worn unit is not one) against LIMIT each */
    for (b = sfs_reserved(&t.fs); b < t.fs.geo.nblocks; b++) {
        uint32_t d = b * t.fs.geo.dev_per_block, c = sim_erase_count(&t.dev, d);
        if (c == 0)
            continue;   /* factory bad */
        usable++;
        erases += c < LIMIT ? c : LIMIT;
        nbad += sbd_is_bad(&t.dev.bd, d) > 0;
    }
    printf("end of life (%s): %u records (%.1f MB) until %s (%s); data units %.0f %% of their endurance used, %u of %u "
           "gone bad; live %u of %u sectors; anchor area %u good of %u\n",
           fresh_anchors ? "anchor area kept fresh" : "as the device is", recs, recs * (double)REC / 1e6,
           steadyfs_strerror(err), failed_call, 100.0 * (double)erases / (double)(usable * LIMIT), nbad, (unsigned)usable, live,
           live_max, sfs_anchor_good(&t.fs), sfs_reserved(&t.fs));
    CHECK(err == STEADYFS_EIO || err == STEADYFS_ENOSPC);
    if (fresh_anchors || defaults)
        CHECK(10u * erases >= 9u * usable * LIMIT);
    (void)live;
    (void)live_max;
    /* what a user finds after the failure (and a power cut) */
    memset(&t.fs, 0, sizeof t.fs);
    fl.wear_limit = 0xFFFFFFFFu;   /* (reads only from here on) */
    sim_set_faults(&t.dev, &fl);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    check_kept(&t, recs);
    CHECK_EQ(tdev_fsck(&t, &scratch, "end of life"), 0);
    steadyfs_unmount(&t.fs);
    tdev_close(&t);
}

static uint32_t env_u32(const char *name, uint32_t dflt)
{
    const char *v = getenv(name);
    if (!v)
        return dflt;
    defaults = 0;
    return (uint32_t)strtoul(v, NULL, 0);
}

int main(void)
{
    if (getenv("STEADYFS_EOL_DEVICE")) {
        device = getenv("STEADYFS_EOL_DEVICE");
        defaults = 0;
    }
    UNITS = env_u32("STEADYFS_EOL_UNITS", UNITS);
    LIMIT = env_u32("STEADYFS_EOL_LIMIT", LIMIT);
    FILE_RECS = env_u32("STEADYFS_EOL_FILE_RECS", FILE_RECS);
    KEPT = env_u32("STEADYFS_EOL_KEPT", KEPT);
    if (!FILE_RECS || KEPT < 2u) {
        fprintf(stderr, "test_fs_end_of_life: STEADYFS_EOL_FILE_RECS >= 1 and STEADYFS_EOL_KEPT >= 2\n");
        return 2;
    }
    end_of_life(0);
    end_of_life(1);
    return check_done("test_fs_end_of_life");
}
