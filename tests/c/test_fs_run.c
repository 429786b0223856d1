/* Runs (DESIGN.md §9): on a medium without erase whose device takes
 * gathered programs (em064lx), two whole sectors of one write, each with
 * its tag beside it, go to the device in one program, straight from the
 * caller's memory.
 *
 * 1. What it costs: on a fresh em064lx most aligned 4 KiB O_DSYNC appends
 *    and rewrites are one device program of two sectors and two tags; a
 *    record at an unaligned offset is never a run (it needs the buffer);
 *    NAND never runs.  Everything reads back.
 * 2. A cut inside a run: records of 4 KiB, O_DSYNC, rewritten at random
 *    aligned places in a few files on a small em064lx; power is cut at
 *    the record's first device program, torn where the model's seeded draw
 *    puts it.  After each cut fsck is clean before the remount writes, and
 *    every block reads its last synced version, the cut one that or the
 *    new one, never a mix: the commit is in the run's last tag, so the run
 *    commits whole or not at all.  The test counts the cuts that fell in a
 *    run (a program of two sectors' length) and in the second sector of
 *    one; it fails if either count is 0, or it did not test them.
 * 3. Runs of 4096-byte sectors (big_sectors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"

#define REC 4096u
#define NF 3u
#define NB 24u

/* the length of every program the device did, counted by length class */
typedef struct progs {
    uint32_t n, runs, last_len, last_block, last_off;
} progs;

static void on_op(void *arg, enum sim_op op, uint32_t block, uint32_t off, uint32_t len, uint64_t start,
                  uint64_t dur, int rc)
{
    progs *p = arg;
    (void)start;
    (void)dur;
    (void)rc;
    if (op != SIM_OP_PROG)
        return;
    p->n++;
    p->runs += len == 2u * (2048u + 32u);
    p->last_len = len;
    p->last_block = block;
    p->last_off = off;
}

static void pattern(uint8_t *b, uint32_t f, uint32_t k, uint32_t v)
{
    uint32_t i;
    for (i = 0; i < REC; i++)
        b[i] = (uint8_t)(f * 29u + k * 11u + v * 7u + i + (i >> 8));
}

/* 1. Programs per record. */
static void cost(const char *profile, uint32_t blocks, int runs_expected)
{
    static uint8_t rec[REC + 100], back[REC];
    tdev t;
    progs p;
    uint32_t r, one = 0, before;
    int fd;
    memset(&p, 0, sizeof p);
    CHECK_EQ(tdev_open(&t, profile, blocks, 7), 0);
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    t.dev.trace = on_op;
    t.dev.trace_arg = &p;
    fd = steadyfs_open(&t.fs, "/log", STEADYFS_O_RDWR | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    for (r = 0; r < 64; r++) {   /* appends, then rewrites of the same places */
        pattern(rec, 0, r % 32u, r);
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)(r % 32u) * REC, STEADYFS_SEEK_SET), (int64_t)(r % 32u) * REC);
        before = p.n;
        CHECK_EQ(steadyfs_write(&t.fs, fd, rec, REC), (int32_t)REC);
        one += p.n - before == 1u && p.last_len == 2u * (2048u + 32u);
    }
    /* unaligned: never a run (the first sector is built in the buffer) */
    before = p.runs;
    for (r = 0; r < 8; r++) {
        pattern(rec, 1, r, r);
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)r * REC + 100, STEADYFS_SEEK_SET), (int64_t)r * REC + 100);
        CHECK_EQ(steadyfs_write(&t.fs, fd, rec, REC), (int32_t)REC);
    }
    CHECK_EQ(p.runs, before);
    if (runs_expected)
        CHECK(one >= 40u);   /* of 64 (48 measured): a merge or a checkpoint may come between */
    else
        CHECK_EQ(p.runs, 0u);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fd = steadyfs_open(&t.fs, "/log", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    for (r = 0; r < 32; r++) {   /* the rewrites, then the unaligned records over them */
        uint32_t i;
        pattern(rec, 0, r, r + 32u);
        if (r < 8)
            pattern(rec + 100, 1, r, r);
        if (r && r <= 8) {   /* the tail of unaligned record r - 1 */
            static uint8_t prev[REC];
            pattern(prev, 1, r - 1u, r - 1u);
            memcpy(rec, prev + REC - 100, 100);
        }
        CHECK_EQ(steadyfs_read(&t.fs, fd, back, REC), (int32_t)REC);
        for (i = 0; i < REC && rec[i] == back[i]; i++)
            ;
        CHECK_EQ(i, REC);
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    printf("  %s: %u of 64 aligned 4 KiB O_DSYNC records were one device program\n", profile, one);
    tdev_close(&t);
}

typedef struct rig {
    tdev t;
    progs p;
    uint32_t nb;   /* blocks a file: 60 % of the capacity in all */
    uint64_t rng;
    uint16_t ver[NF][NB];
} rig;

static int put(rig *r, uint32_t f, uint32_t k, uint32_t v)
{
    static uint8_t b[REC];
    char path[8];
    int fd, rc;
    snprintf(path, sizeof path, "/%u", f);
    fd = steadyfs_open(&r->t.fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
    if (fd < 0)
        return fd;
    pattern(b, f, k, v);
    rc = (int)steadyfs_seek(&r->t.fs, fd, (int64_t)k * REC, STEADYFS_SEEK_SET);
    if (rc >= 0)
        rc = steadyfs_write(&r->t.fs, fd, b, REC) == (int32_t)REC ? 0 : STEADYFS_EIO;
    if (steadyfs_close(&r->t.fs, fd) && !rc)
        rc = STEADYFS_EIO;
    return rc;
}

/* Every block its synced version; block (cf, ck) that or version cv. */
static void verify(rig *r, uint32_t cf, uint32_t ck, uint32_t cv)
{
    static uint8_t b[REC], want[REC], alt[REC];
    uint32_t f, k;
    for (f = 0; f < NF; f++) {
        char path[8];
        int fd;
        snprintf(path, sizeof path, "/%u", f);
        fd = steadyfs_open(&r->t.fs, path, STEADYFS_O_RDONLY);
        CHECK(fd >= 0);
        for (k = 0; k < r->nb && fd >= 0; k++) {
            int ok;
            CHECK_EQ(steadyfs_read(&r->t.fs, fd, b, REC), (int32_t)REC);
            pattern(want, f, k, r->ver[f][k]);
            ok = !memcmp(b, want, REC);
            if (!ok && f == cf && k == ck) {
                pattern(alt, f, k, cv);
                ok = !memcmp(b, alt, REC);
                if (ok)
                    r->ver[f][k] = (uint16_t)cv;   /* the cut record had committed */
            }
            CHECK(ok);
        }
        if (fd >= 0)
            CHECK_EQ(steadyfs_close(&r->t.fs, fd), 0);
    }
}

/* 2. Cuts inside runs. */
static void cuts(uint64_t seed, uint32_t records)
{
    rig *r = calloc(1, sizeof *r);
    steadyfs_info info;
    uint32_t i, f, k, in_run = 0, in_second = 0, in_last_tag = 0, ncut = 0;
    int rc;
    r->rng = seed * 0x9E3779B97F4A7C15ull + 1;
    CHECK_EQ(tdev_open(&r->t, "em064lx", 24, seed), 0);
    CHECK_EQ(steadyfs_format(&r->t.fs, &r->t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&r->t.fs, &r->t.cfg), 0);
    r->t.dev.trace = on_op;
    r->t.dev.trace_arg = &r->p;
    CHECK_EQ(steadyfs_info_get(&r->t.fs, &info), 0);
    r->nb = (uint32_t)(info.capacity * 6u / 10u / NF / REC);
    if (r->nb > NB)
        r->nb = NB;
    CHECK(r->nb >= 4);
    for (f = 0; f < NF; f++)
        for (k = 0; k < r->nb; k++)
            CHECK_EQ(put(r, f, k, 0), 0);
    for (i = 0; i < records; i++) {
        sim_faults fl;
        uint32_t v;
        f = tdev_rand(&r->rng, NF);
        k = tdev_rand(&r->rng, r->nb);
        v = r->ver[f][k] + 1u;
        memset(&fl, 0, sizeof fl);
        fl.seed = seed * 1000003u + i;
        if (i % 3u == 0)
            fl.powercut_after = 1;   /* the record's first program: mostly its run */
        sim_set_faults(&r->t.dev, &fl);
        rc = put(r, f, k, v);
        memset(&fl, 0, sizeof fl);
        sim_set_faults(&r->t.dev, &fl);
        if (rc == 0) {
            r->ver[f][k] = (uint16_t)v;
            continue;
        }
        CHECK_EQ(rc, STEADYFS_EIO);
        if (rc != STEADYFS_EIO)
            break;
        ncut++;
        if (r->p.last_len == 2u * (2048u + 32u)) {
            /* where the tear fell: which payloads reached the medium whole */
            static uint8_t want[REC], got[2048];
            pattern(want, f, k, v);
            in_run++;
            sim_power_restore(&r->t.dev);
            CHECK_EQ(sbd_read(&r->t.dev.bd, r->p.last_block, r->p.last_off, got, 2048, NULL, 0), 0);
            if (!memcmp(got, want, 2048)) {
                in_second++;   /* past the first payload: its tag or the second sector */
                CHECK_EQ(sbd_read(&r->t.dev.bd, r->p.last_block, r->p.last_off + 2080u, got, 2048, NULL, 0), 0);
                in_last_tag += !memcmp(got, want + 2048, 2048);
            }
        }
        sim_power_restore(&r->t.dev);
        CHECK_EQ(tdev_fsck(&r->t, &r->t.fs, "run: after a cut"), 0);
        CHECK_EQ(steadyfs_mount(&r->t.fs, &r->t.cfg), 0);
        verify(r, f, k, v);
    }
    verify(r, NF, 0, 0);
    CHECK_EQ(steadyfs_unmount(&r->t.fs), 0);
    CHECK_EQ(tdev_fsck(&r->t, &r->t.fs, "run: at the end"), 0);
    CHECK(in_run > 0);
    CHECK(in_second > 0);
    printf("  em064lx, 24 units, seed %llu: %u files of %u blocks, %u records, %u cuts, %u in a run: %u past its first payload, %u in its last tag\n",
           (unsigned long long)seed, NF, r->nb, records, ncut, in_run, in_second, in_last_tag);
    tdev_close(&r->t);
    free(r);
}

/* 3. Runs of larger sectors: em064lx formatted with 4096-byte sectors (a
 * run of two is 8 256 bytes with their tags).  A 300 000-byte write, a
 * remount and a read back; the model's gather buffer once refused such a
 * run and the write failed with EIO (twentieth session). */
static void big_sectors(void)
{
    static uint8_t a[300000], b[300000];
    tdev t;
    uint32_t i;
    int fd;
    for (i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)(i * 13u + (i >> 12));
    CHECK_EQ(tdev_open(&t, "em064lx", 0, 5), 0);
    t.cfg.sector_size = 4096;
    free(t.work);
    free(t.sector);
    t.cfg.work_size = steadyfs_work_size(&t.cfg);
    t.cfg.sector_buf_size = steadyfs_sector_buf_size(&t.cfg);
    t.work = calloc(1, t.cfg.work_size);
    t.sector = calloc(1, t.cfg.sector_buf_size);
    CHECK(t.work && t.sector);
    t.cfg.work = t.work;
    t.cfg.sector_buf = t.sector;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fd = steadyfs_open(&t.fs, "/big", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(&t.fs, fd, a, sizeof a), (int32_t)sizeof a);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fd = steadyfs_open(&t.fs, "/big", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_read(&t.fs, fd, b, sizeof b), (int32_t)sizeof b);
    CHECK(!memcmp(a, b, sizeof a));
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(tdev_fsck(&t, &t.fs, "4096-byte sectors"), 0);
    tdev_close(&t);
}

int main(void)
{
    big_sectors();
    cost("em064lx", 16, 1);
    cost("mt29f1g01", 64, 0);
    cuts(1, 900);
    cuts(2, 900);
    return check_done("test_fs_run");
}
