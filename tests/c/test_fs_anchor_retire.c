/* Anchor units that go bad (DESIGN.md §5, "Anchor units that go bad").
 * The anchor ring's units take a checkpoint every replay_max sectors, so
 * they wear 2.8-3.3 times as fast as the units collection rotates, and a
 * unit of it may also fail early.  Up to 2026-12-01 the first anchor unit
 * whose erase failed made every later checkpoint EIO: the device took no
 * more changes.  Now the unit is marked bad and the ring goes on with the
 * good units left (a spare of the anchor area joining it), down to two.
 *
 * On mt29f1g01 (256 units: a ring of 4 and 2 spares) and mt25q128 (the
 * whole part: 4 and 2), a logger of 4 KiB O_DSYNC records in 128 KiB files
 * (the oldest of 6 unlinked as each starts) runs while one anchor unit
 * after another is worn out (sim_wear_block): the ring's next unit before
 * its erase (the switch's erase fails), or just after its erase ahead (the
 * switch's first program fails, the unit holds no checkpoint yet and its
 * erase fails), the first time with the spare that would join worn out
 * too (it is marked bad and the next one joins).  No write may fail while three good units are left; each
 * retirement is followed by a remount, every acknowledged record must read
 * back and fsck must be clean.  With two left, the next failure is EIO,
 * and the records stay readable.  Then, on mt29f1g01, power cuts at every
 * program and erase of the calls around one retirement: mount, fsck clean,
 * every acknowledged record intact, and the log goes on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_testdev.h"

#define REC 4096u
#define FILE_RECS 32u
#define KEPT 6u
#define WORN 1000000u   /* faults.wear_limit: only the blocks worn on purpose reach it */

/* STEADYFS_RETIRE_SEED: another draw -- the device's seed, and records
 * logged before each unit is worn (seed x 37), so that it goes bad at
 * other places of the ring and of the log */
static uint64_t device_seed = 1;


static steadyfs scratch;   /* fsck's context: the mounted one stays as it is */

typedef struct logger {
    uint32_t acked;   /* records written and acknowledged */
    int fd;
} logger;

static void fill_rec(uint8_t *b, uint32_t r)
{
    uint32_t i;
    for (i = 0; i < REC; i++)
        b[i] = (uint8_t)(r * 131u + i * 7u + (i >> 8));
}

/* The next record (a new file first every FILE_RECS): 0 or the error. */
static int log_one(tdev *t, logger *l)
{
    static uint8_t b[REC];
    uint32_t r = l->acked;
    char name[32];
    int rc;
    if (r % FILE_RECS == 0 || l->fd < 0) {
        if (l->fd >= 0) {
            rc = steadyfs_close(&t->fs, l->fd);
            l->fd = -1;
            if (rc)
                return rc;
        }
        if (r % FILE_RECS == 0 && r / FILE_RECS >= KEPT) {
            snprintf(name, sizeof name, "/r%u", r / FILE_RECS - KEPT);
            rc = steadyfs_unlink(&t->fs, name);
            if (rc && rc != STEADYFS_ENOENT)   /* (done before a cut, maybe) */
                return rc;
        }
        snprintf(name, sizeof name, "/r%u", r / FILE_RECS);
        l->fd = steadyfs_open(&t->fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
        if (l->fd < 0)
            return l->fd;
        if (steadyfs_seek(&t->fs, l->fd, (r % FILE_RECS) * REC, STEADYFS_SEEK_SET) != (int64_t)(r % FILE_RECS) * REC)
            return STEADYFS_EIO;
    }
    fill_rec(b, r);
    rc = steadyfs_write(&t->fs, l->fd, b, REC);
    if (rc != (int)REC)
        return rc < 0 ? rc : STEADYFS_EIO;
    l->acked++;
    return 0;
}

/* A record, then CKPT_BURST checkpoints: on media that erase the anchor
 * ring holds one pointer per unit of checkpoints (64 on mt29f1g01), so
 * its units fill only after some 4 000 checkpoints, 90 000 sectors of
 * records; checkpoints written directly (sfs_ckpt_write, as a call writes
 * them) bring the ring round in seconds.  0 or the first error. */
#define CKPT_BURST 16u
static int log_step(tdev *t, logger *l)
{
    uint32_t j;
    int rc = log_one(t, l);
    for (j = 0; j < CKPT_BURST && !rc; j++)
        rc = sfs_ckpt_write(&t->fs);
    return rc;
}

/* (STEADYFS_RETIRE_SEED's records before a unit is worn) */
static void log_skew(tdev *t, logger *l)
{
    uint32_t i;
    for (i = 0; i < (uint32_t)(device_seed - 1u) * 37u; i++)
        CHECK_EQ(log_one(t, l), 0);
}

/* Every acknowledged record of the files kept reads back (one more may be
 * there: a write cut after its commit). */
static void check_records(tdev *t, const logger *l, const char *when)
{
    uint32_t last = l->acked / FILE_RECS, f, bad = 0;
    for (f = last >= KEPT - 1u ? last - (KEPT - 1u) : 0u; f <= last; f++) {
        uint32_t n = l->acked - f * FILE_RECS < FILE_RECS ? l->acked - f * FILE_RECS : FILE_RECS;
        steadyfs_stat st;
        char name[32];
        snprintf(name, sizeof name, "/r%u", f);
        if (!n)
            continue;   /* (not created yet, maybe) */
        if (steadyfs_stat_path(&t->fs, name, &st) || st.size < (uint64_t)n * REC ||
            st.size > (uint64_t)(n + 1u) * REC) {
            bad++;
            continue;
        }
        bad += tdev_records_bad(&t->fs, name, f * FILE_RECS, n, REC, fill_rec);
    }
    if (bad)
        fprintf(stderr, "%s: %u records or files wrong (%u acknowledged)\n", when, bad, l->acked);
    CHECK_EQ(bad, 0u);
}

/* A fresh device whose blocks wear out only where worn on purpose,
 * formatted and mounted. */
static void open_formatted(tdev *t, const char *dev, uint32_t blocks, uint64_t seed)
{
    sim_faults fl;
    CHECK_EQ(tdev_open(t, dev, blocks, seed), 0);
    t->cfg.open_max = 2;
    memset(&fl, 0, sizeof fl);
    fl.wear_limit = WORN;
    sim_set_faults(&t->dev, &fl);
    CHECK_EQ(steadyfs_format(&t->fs, &t->cfg), 0);
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
}

/* Wear out anchor area unit u: every device block of it. */
static void wear_unit(tdev *t, uint32_t u)
{
    uint32_t k;
    for (k = 0; k < t->fs.geo.dev_per_block; k++)
        CHECK_EQ(sim_wear_block(&t->dev, u * t->fs.geo.dev_per_block + k, WORN), 0);
}

static void remount_and_check(tdev *t, logger *l, const char *when)
{
    if (l->fd >= 0)
        steadyfs_close(&t->fs, l->fd);
    l->fd = -1;
    steadyfs_unmount(&t->fs);
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
    check_records(t, l, when);
    CHECK_EQ(tdev_fsck(t, &scratch, when), 0);
}

/* Records until the ring has moved past `slots` more units, or an error. */
static int log_until_switches(tdev *t, logger *l, uint32_t slots, uint32_t cap)
{
    uint32_t seen = t->fs.anchor.cur, moved = 0, i;
    int rc = 0;
    for (i = 0; i < cap && moved < slots; i++) {
        rc = log_step(t, l);
        if (rc)
            return rc;
        if (t->fs.anchor.cur != seen) {
            seen = t->fs.anchor.cur;
            moved++;
        }
    }
    return moved >= slots ? 0 : -1;
}

static void wear_out_ring(const char *dev, uint32_t blocks)
{
    tdev t;
    logger l = {0, -1};
    uint32_t k, good, ring0;
    char when[96];
    open_formatted(&t, dev, blocks, device_seed);
    ring0 = sfs_anchors(&t.fs);
    good = sfs_anchor_good(&t.fs);   /* (a factory bad unit there: one fewer) */
    CHECK_EQ(log_until_switches(&t, &l, ring0 + 1u, 200000u), 0);
    for (k = 0;; k++) {
        uint32_t n, next, u, spare, bad0 = t.fs.anchor.bad, i;
        int rc = 0;
        log_skew(&t, &l);
        n = sfs_anchors(&t.fs);
        next = (t.fs.anchor.cur + 1u) % n;
        if (k % 2u) {
            /* just after its erase ahead: the switch programs it first */
            for (i = 0; i < 200000u && t.fs.anchor.dirty_next && !rc; i++)
                rc = log_step(&t, &l);
            CHECK_EQ(rc, 0);
            next = (t.fs.anchor.cur + 1u) % sfs_anchors(&t.fs);
        }
        u = sfs_anchor_unit(&t.fs, next);
        wear_unit(&t, u);
        /* the first time, the spare that would join is worn out too: it
         * fails its erase, is marked bad, and the next spare joins */
        spare = SFS_NONE;
        if (k == 0u) {
            spare = sfs_anchor_unit(&t.fs, sfs_anchors(&t.fs));
            wear_unit(&t, spare);
        }
        for (i = 0; i < 200000u && t.fs.anchor.bad == bad0 && !rc; i++)
            rc = log_step(&t, &l);
        snprintf(when, sizeof when, "%s: anchor unit %u worn (%s)", dev, u, k % 2u ? "erased ahead" : "before its erase");
        if (good == 2u) {
            /* two left: the ring cannot lose one more */
            CHECK_EQ(rc, STEADYFS_EIO);
            CHECK_EQ(t.fs.anchor.bad, bad0);
            printf("%s: with 2 good anchor units left, EIO after %u records\n", when, l.acked);
            l.fd = -1;   /* (the handle is the failed context's) */
            memset(&t.fs, 0, sizeof t.fs);
            CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
            check_records(&t, &l, when);
            CHECK_EQ(tdev_fsck(&t, &scratch, when), 0);
            break;
        }
        CHECK_EQ(rc, 0);
        CHECK(t.fs.anchor.bad == (bad0 | 1u << u | (spare != SFS_NONE ? 1u << spare : 0u)));
        good -= spare != SFS_NONE ? 2u : 1u;
        CHECK_EQ(sfs_anchors(&t.fs), good < ring0 ? good : ring0);
        remount_and_check(&t, &l, when);
        CHECK_EQ(sfs_anchors(&t.fs), good < ring0 ? good : ring0);
        /* the ring goes round twice on what is left */
        CHECK_EQ(log_until_switches(&t, &l, 2u * sfs_anchors(&t.fs) + 1u, 400000u), 0);
        remount_and_check(&t, &l, when);
        printf("%s: retired, ring of %u, %u records so far\n", when, sfs_anchors(&t.fs), l.acked);
    }
    CHECK_EQ(good, 2u);
    tdev_close(&t);
}

/* Format over anchor-area units whose erase fails (worn out, not marked):
 * format marks each one bad and the next good unit takes its slot, as
 * mount will find them (before the thirty-first session format returned
 * the internal SFS_EFAIL).  Unit 1, then unit 0 as well (both spares of
 * the area's four units used: a ring of two), each time two laps of the
 * ring logged, remounted, every record read back and fsck clean; then all
 * but one unit bad: format fails with EIO, a public code. */
static void format_over_worn(const char *dev, uint32_t blocks)
{
    static const uint32_t worn_sets[][4] = {{1u, SFS_NONE}, {0u, SFS_NONE}};
    tdev t;
    uint32_t w, k, ring0, area, good0, bad, dpb;
    char when[96];
    open_formatted(&t, dev, blocks, device_seed);
    ring0 = sfs_anchors(&t.fs);
    area = sfs_reserved(&t.fs);
    good0 = sfs_anchor_good(&t.fs);
    dpb = t.fs.geo.dev_per_block;
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    for (w = 0; w < 2u; w++) {
        logger l = {0, -1};
        uint32_t want = 0, good, nworn = 0;
        for (k = 0; worn_sets[w][k] != SFS_NONE; k++) {
            uint32_t u = worn_sets[w][k], i;
            if (sbd_is_bad(t.cfg.bd, u * dpb))
                continue;   /* (a factory bad unit) */
            for (i = 0; i < dpb; i++)
                CHECK_EQ(sim_wear_block(&t.dev, u * dpb + i, WORN), 0);
            want |= 1u << u;
            nworn++;
        }
        memset(&t.fs, 0, sizeof t.fs);
        CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
        bad = t.fs.anchor.bad;
        CHECK((bad & want) == want);
        for (k = 0; k < area; k++)
            CHECK_EQ(sbd_is_bad(t.cfg.bd, k * dpb) != 0, (bad >> k & 1u) != 0);
        good = sfs_anchor_good(&t.fs);
        CHECK(good <= good0);
        CHECK_EQ(sfs_anchors(&t.fs), good < ring0 ? good : ring0);
        for (k = 0; k < sfs_anchors(&t.fs); k++)
            CHECK_EQ(bad >> sfs_anchor_unit(&t.fs, k) & 1u, 0u);
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        CHECK_EQ(t.fs.anchor.bad, bad);
        snprintf(when, sizeof when, "%s: format over %u more worn anchor units", dev, nworn);
        CHECK_EQ(log_until_switches(&t, &l, 2u * sfs_anchors(&t.fs) + 1u, 400000u), 0);
        remount_and_check(&t, &l, when);
        printf("%s: ring of %u (bad mask 0x%x), %u records, two laps\n", when, sfs_anchors(&t.fs), bad, l.acked);
        if (l.fd >= 0)
            CHECK_EQ(steadyfs_close(&t.fs, l.fd), 0);
        CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    }
    /* all but one good: no ring of two can be formatted */
    for (k = 0; k < area; k++) {
        uint32_t i;
        if (k == area - 1u || sbd_is_bad(t.cfg.bd, k * dpb))
            continue;
        for (i = 0; i < dpb; i++)
            CHECK_EQ(sim_wear_block(&t.dev, k * dpb + i, WORN), 0);
    }
    memset(&t.fs, 0, sizeof t.fs);
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), STEADYFS_EIO);
    tdev_close(&t);
}

/* The state a cut test starts from, again and again: the device image,
 * the work area and sector buffer, the device and file-system contexts
 * and the logger. */
typedef struct snapshot {
    void *img, *work;
    uint8_t sec[4096];
    sim_dev dev;
    steadyfs fs;
    logger l;
} snapshot;

static int snap_take(snapshot *s, const tdev *t, const logger *l)
{
    s->img = malloc((size_t)t->image_len);
    s->work = malloc(t->cfg.work_size);
    CHECK(s->img != NULL && s->work != NULL);
    if (!s->img || !s->work)
        return -1;
    memcpy(s->img, t->image, (size_t)t->image_len);
    memcpy(s->work, t->work, t->cfg.work_size);
    memcpy(s->sec, t->sector, sizeof s->sec);
    s->dev = t->dev;
    s->fs = t->fs;
    s->l = *l;
    return 0;
}

static void snap_restore(const snapshot *s, tdev *t, logger *l)
{
    memcpy(t->image, s->img, (size_t)t->image_len);
    memcpy(t->work, s->work, t->cfg.work_size);
    memcpy(t->sector, s->sec, sizeof s->sec);
    t->dev = s->dev;
    t->fs = s->fs;
    *l = s->l;
}

static void snap_free(snapshot *s)
{
    free(s->img);
    free(s->work);
}

/* Power cuts at each program and erase from just before a retirement. */
static void cuts_around_retirement(void)
{
    tdev t;
    sim_faults fl;
    logger l = {0, -1};
    static snapshot s0;
    uint32_t u, span = 0, k, cuts = 0, i, bad0;
    uint64_t ops0;
    int rc = 0;
    open_formatted(&t, "mt29f1g01", 256, device_seed + 1u);
    memset(&fl, 0, sizeof fl);
    fl.wear_limit = WORN;
    CHECK_EQ(log_until_switches(&t, &l, sfs_anchors(&t.fs) + 1u, 200000u), 0);
    log_skew(&t, &l);
    /* the current anchor unit nearly full: the switch is a record or two away */
    for (i = 0; i < 200000u && t.fs.anchor.next_idx + 1u < t.fs.geo.P && !rc; i++)
        rc = log_step(&t, &l);
    CHECK_EQ(rc, 0);
    u = sfs_anchor_unit(&t.fs, (t.fs.anchor.cur + 1u) % sfs_anchors(&t.fs));
    wear_unit(&t, u);
    /* the state to cut from */
    if (snap_take(&s0, &t, &l))
        return;
    ops0 = t.dev.pe_ops;
    bad0 = t.fs.anchor.bad;
    /* how many programs and erases the retirement is away, and 8 records more */
    for (i = 0; i < 1000u && t.fs.anchor.bad == bad0 && !rc; i++)
        rc = log_step(&t, &l);
    CHECK_EQ(rc, 0);
    CHECK(t.fs.anchor.bad != bad0);
    for (i = 0; i < 8u && !rc; i++)
        rc = log_one(&t, &l);
    CHECK_EQ(rc, 0);
    span = (uint32_t)(t.dev.pe_ops - ops0);
    for (k = 1; k <= span; k++) {
        char when[64];
        snap_restore(&s0, &t, &l);
        fl.powercut_after = k;   /* (sim_set_faults counts from 0 again) */
        sim_set_faults(&t.dev, &fl);
        for (i = 0; i < 1000u && !log_step(&t, &l); i++)
            ;
        CHECK(t.dev.stats.power_cuts > s0.dev.stats.power_cuts);
        cuts++;
        fl.powercut_after = 0;
        sim_set_faults(&t.dev, &fl);
        sim_power_restore(&t.dev);
        snprintf(when, sizeof when, "cut at program/erase %u of %u around a retirement", k, span);
        memset(&t.fs, 0, sizeof t.fs);
        l.fd = -1;
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        CHECK_EQ(tdev_fsck(&t, &scratch, when), 0);
        check_records(&t, &l, when);
        /* the log goes on, and the ring with it into its next unit (the
         * worn one retired now if the cut came first) */
        CHECK_EQ(log_until_switches(&t, &l, 1u, 200000u), 0);
        CHECK(t.fs.anchor.bad & 1u << u);
        remount_and_check(&t, &l, when);
    }
    printf("anchor retire: %u power cuts at each program and erase around a retirement (unit %u)\n", cuts, u);
    CHECK(cuts >= 4u);
    snap_free(&s0);
    tdev_close(&t);
}

/* Media that erase (format 18): power cuts at each program and erase
 * around a move of the checkpoints to another pool unit -- the pointer
 * record in the anchor ring, then the first checkpoint there (a cut
 * between them: mount goes back to the unit the pointer keeps) -- and,
 * with `worn`, the current checkpoint unit and the one held for the next
 * both worn out, so that the checkpoint fails in each (two pointers, the
 * second keeping the first unit) before it lands in a third, and both go
 * back to the pool to fail their erases and be marked bad.  After every
 * cut: mount, fsck clean, every acknowledged record intact, the
 * checkpoints move on again. */
/* After a mount that found a switch cut short (its unit back to the pool,
 * anchor.cut_short): a cut at each program and erase of the next switch,
 * which keeps the same checkpoint.  The unit the first switch had begun
 * must be erased before that switch's pointer: the table of the kept
 * checkpoint calls it erased (the soak's nor-units8 seed 2, where it was
 * not: fsck "should be erased (queued unit)"). */
static void cut_again(tdev *t, logger *l, sim_faults *fl, const char *first, uint32_t *again)
{
    static snapshot sn;
    uint32_t u0 = t->fs.anchor.unit, span, k, i;
    uint64_t ops0;
    int rc = 0;
    if (snap_take(&sn, t, l))
        return;
    ops0 = t->dev.pe_ops;
    for (i = 0; i < 1000u && !rc && (t->fs.anchor.unit == u0 || t->fs.anchor.last == SFS_NO_SECTOR); i++)
        rc = i % 2u ? sfs_ckpt_write(&t->fs) : log_one(t, l);
    CHECK_EQ(rc, 0);
    CHECK_EQ(t->fs.anchor.cut_short, SFS_NO_UNIT);
    span = (uint32_t)(t->dev.pe_ops - ops0);
    for (k = 1; k <= span; k++) {
        char when[256];
        snap_restore(&sn, t, l);
        fl->powercut_after = k;
        sim_set_faults(&t->dev, fl);
        for (i = 0; i < 1000u && !(i % 2u ? sfs_ckpt_write(&t->fs) : log_one(t, l)); i++)
            ;
        CHECK(t->dev.stats.power_cuts > sn.dev.stats.power_cuts);
        (*again)++;
        fl->powercut_after = 0;
        sim_set_faults(&t->dev, fl);
        sim_power_restore(&t->dev);
        snprintf(when, sizeof when, "%s, then at %u of %u of the next switch", first, k, span);
        memset(&t->fs, 0, sizeof t->fs);
        l->fd = -1;
        CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
        CHECK_EQ(tdev_fsck(t, &scratch, when), 0);
        check_records(t, l, when);
    }
    snap_restore(&sn, t, l);
    snap_free(&sn);
}

static void cuts_around_switch(int worn)
{
    tdev t;
    sim_faults fl;
    logger l = {0, -1};
    static snapshot sn;
    uint32_t u0, s0, span, k, cuts = 0, i, moved, again = 0;
    uint64_t ops0;
    int rc = 0;
    open_formatted(&t, "mt29f1g01", 256, device_seed + 2u);
    memset(&fl, 0, sizeof fl);
    fl.wear_limit = WORN;
    for (i = 0; i < 300u && !rc; i++)
        rc = log_one(&t, &l);
    /* the checkpoint unit nearly full, a unit held for the next */
    for (i = 0; i < 10000u && !rc && (t.fs.anchor.idx + 3u < t.fs.geo.P || t.fs.anchor.spare == SFS_NO_UNIT); i++)
        rc = i % 8u ? sfs_ckpt_write(&t.fs) : log_one(&t, &l);
    CHECK_EQ(rc, 0);
    u0 = t.fs.anchor.unit;
    s0 = t.fs.anchor.spare;
    CHECK(s0 != SFS_NO_UNIT);
    if (worn) {
        wear_unit(&t, u0);
        wear_unit(&t, s0);
    }
    if (snap_take(&sn, &t, &l))
        return;
    ops0 = t.dev.pe_ops;
    /* the programs and erases until a checkpoint is durable in another
     * unit, and 4 records more */
    for (i = 0; i < 1000u && !rc && (t.fs.anchor.unit == u0 || t.fs.anchor.last == SFS_NO_SECTOR); i++)
        rc = i % 2u ? sfs_ckpt_write(&t.fs) : log_one(&t, &l);
    CHECK_EQ(rc, 0);
    CHECK(t.fs.anchor.unit != u0);
    if (worn)
        CHECK(t.fs.anchor.unit != s0);   /* (it failed too) */
    for (i = 0; i < 4u && !rc; i++)
        rc = log_one(&t, &l);
    CHECK_EQ(rc, 0);
    span = (uint32_t)(t.dev.pe_ops - ops0);
    for (k = 1; k <= span; k++) {
        char when[128];
        snap_restore(&sn, &t, &l);
        fl.powercut_after = k;
        sim_set_faults(&t.dev, &fl);
        for (i = 0; i < 1000u && !(i % 2u ? sfs_ckpt_write(&t.fs) : log_one(&t, &l)); i++)
            ;
        CHECK(t.dev.stats.power_cuts > sn.dev.stats.power_cuts);
        cuts++;
        fl.powercut_after = 0;
        sim_set_faults(&t.dev, &fl);
        sim_power_restore(&t.dev);
        snprintf(when, sizeof when, "cut at program/erase %u of %u around a checkpoint-unit switch%s", k, span,
                 worn ? " (two units worn)" : "");
        memset(&t.fs, 0, sizeof t.fs);
        l.fd = -1;
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        CHECK_EQ(tdev_fsck(&t, &scratch, when), 0);
        check_records(&t, &l, when);
        if (t.fs.anchor.cut_short != SFS_NO_UNIT)
            cut_again(&t, &l, &fl, when, &again);
        /* the checkpoints move on twice more */
        for (moved = 0, i = 0, rc = 0; i < 2000u && moved < 2u && !rc; i++) {
            uint32_t was = t.fs.anchor.unit;
            rc = i % 2u ? sfs_ckpt_write(&t.fs) : log_one(&t, &l);
            moved += t.fs.anchor.unit != was;
        }
        CHECK_EQ(rc, 0);
        CHECK_EQ(moved, 2u);
        remount_and_check(&t, &l, when);
        if (worn)
            CHECK(t.fs.blk[u0] != BS_CKPT && t.fs.blk[s0] != BS_CKPT);
    }
    printf("checkpoint units: %u power cuts at each program and erase around a switch%s; "
           "%u more in the switch after each that one cut short\n", cuts,
           worn ? ", the unit and the one held for the next worn out" : "", again);
    CHECK(cuts >= 4u);
    CHECK(again >= 2u);
    snap_free(&sn);
    tdev_close(&t);
}

int main(void)
{
    if (getenv("STEADYFS_RETIRE_SEED"))
        device_seed = strtoull(getenv("STEADYFS_RETIRE_SEED"), NULL, 0);
    wear_out_ring("mt29f1g01", 256);
    wear_out_ring("mt25q128", 0);
    cuts_around_retirement();
    format_over_worn("mt29f1g01", 256);
    format_over_worn("mt25q128", 0);
    cuts_around_switch(0);
    cuts_around_switch(1);
    return check_done("test_fs_anchor_retire");
}
