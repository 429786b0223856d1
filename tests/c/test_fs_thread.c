/* The threaded host head on a medium without erase (format 11, DESIGN.md
 * §9), under power cuts.  On a small em064lx the files fill about 70 % of
 * the capacity and random 4 KiB blocks are rewritten and synced, so the
 * erased units run low and the host head goes on in closed units' dead
 * sectors; power is cut at a random program now and then (a torn write
 * included).  After every cut: fsck is clean (before the remount writes
 * anything), the remount works, and every block of every file reads the
 * last version synced before the cut -- or, for the block being written
 * when the power went, that version or the one before.  At the end the
 * head must have gone on in a closed unit, or the test did not test it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_fixture.h"
#include "steadyfs/steadyfs.h"

#define NFILES 6u
#define BLK 4096u
#define MAXBLK 64u

typedef struct rig {
    fixture fx;
    steadyfs fs;
    steadyfs_config cfg;
    uint8_t *work, *sector, *fwork;
    uint32_t fws, nblk, threaded;
    uint64_t rng;
    uint16_t ver[NFILES][MAXBLK];   /* version of each block, as last synced */
    char last[256];
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
    snprintf(r->last, sizeof r->last, "%s", msg);
}

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
    fd = steadyfs_open(&r->fs, p, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    if (fd < 0)
        return fd;
    pattern(b, f, k, v);
    rc = (int)steadyfs_seek(&r->fs, fd, (int64_t)k * BLK, STEADYFS_SEEK_SET);
    if (rc >= 0) {
        rc = steadyfs_write(&r->fs, fd, b, BLK);
        rc = rc == (int)BLK ? steadyfs_sync(&r->fs, fd) : rc < 0 ? rc : STEADYFS_EIO;
    }
    if (steadyfs_close(&r->fs, fd) && !rc)
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
        fd = steadyfs_open(&r->fs, p, STEADYFS_O_RDONLY);
        if (fd < 0)
            return r->nblk;
        for (k = 0; k < r->nblk; k++) {
            if (steadyfs_read(&r->fs, fd, got, BLK) != (int32_t)BLK) {
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
        steadyfs_close(&r->fs, fd);
    }
    return bad;
}

static void run(uint32_t blocks, uint64_t seed, uint32_t writes)
{
    rig *r = calloc(1, sizeof *r);
    steadyfs_info info;
    steadyfs_fsck_report rep;
    uint32_t f, k, i, cuts = 0;
    int rc;
    r->rng = seed * 2654435761u + 7;
    CHECK_EQ(fx_open(&r->fx, "em064lx", blocks, SIM_TYPICAL, seed), 0);
    r->cfg.bd = &r->fx.d.bd;
    r->cfg.open_max = 1;
    r->cfg.work_size = steadyfs_work_size(&r->cfg);
    r->work = aligned_alloc(8, (r->cfg.work_size + 7u) & ~7u);
    r->sector = malloc(4096);
    r->cfg.work = r->work;
    r->cfg.sector_buf = r->sector;
    r->cfg.sector_buf_size = 4096;
    r->fws = steadyfs_fsck_work_size(&r->cfg);
    r->fwork = malloc(r->fws);
    CHECK_EQ(steadyfs_format(&r->fs, &r->cfg), 0);
    CHECK_EQ(steadyfs_mount(&r->fs, &r->cfg), 0);
    CHECK_EQ(steadyfs_info_get(&r->fs, &info), 0);
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
        f = rnd(r, NFILES);
        k = rnd(r, r->nblk);
        memset(&fl, 0, sizeof fl);
        fl.seed = seed + i;
        if (rnd(r, 12) == 0)   /* within the write's programs (data, merges, a checkpoint) */
            fl.powercut_after = 1 + rnd(r, 4);
        sim_set_faults(&r->fx.d, &fl);
        rc = put(r, f, k, r->ver[f][k] + 1u);
        memset(&fl, 0, sizeof fl);
        sim_set_faults(&r->fx.d, &fl);
        if (rc == 0) {
            r->ver[f][k]++;
            continue;
        }
        CHECK_EQ(rc, STEADYFS_EIO);
        if (rc != STEADYFS_EIO)
            break;
        cuts++;
        r->threaded += r->fs.stats.threaded;
        sim_power_restore(&r->fx.d);
        rc = steadyfs_fsck(&r->fs, &r->cfg, r->fwork, r->fws, note, r, &rep);
        if (rc)
            fprintf(stderr, "thread: seed %llu write %u after a cut: %d errors, last: %s\n",
                    (unsigned long long)seed, i, rc, r->last);
        CHECK_EQ(rc, 0);
        CHECK_EQ(steadyfs_mount(&r->fs, &r->cfg), 0);
        CHECK_EQ(verify(r, f, k), 0);
    }
    r->threaded += r->fs.stats.threaded;
    CHECK_EQ(verify(r, NFILES, 0), 0);
    CHECK_EQ(steadyfs_unmount(&r->fs), 0);
    rc = steadyfs_fsck(&r->fs, &r->cfg, r->fwork, r->fws, note, r, &rep);
    if (rc)
        fprintf(stderr, "thread: seed %llu at the end: %d errors, last: %s\n", (unsigned long long)seed, rc,
                r->last);
    CHECK_EQ(rc, 0);
    CHECK(cuts > 0);
    CHECK(r->threaded > 0);   /* the head went on in closed units: the path was tested */
    printf("  em064lx, %u blocks, seed %llu: %u files of %u blocks, %u writes, %u cuts, %u threaded head moves\n",
           blocks, (unsigned long long)seed, NFILES, r->nblk, writes, cuts, r->threaded);
    free(r->work);
    free(r->sector);
    free(r->fwork);
    fx_close(&r->fx);
    free(r);
}

int main(void)
{
    run(16, 1, 4000);
    run(16, 2, 4000);
    run(24, 3, 4000);
    run(24, 4, 4000);
    run(32, 5, 4000);
    return check_done("test_fs_thread");
}
