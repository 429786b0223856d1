/* Test helper: a simulated device in a malloc'd image plus a steadyfs
 * configuration with its buffers.  Header-only (static), for tests. */
#ifndef STEADYFS_TEST_FS_TESTDEV_H
#define STEADYFS_TEST_FS_TESTDEV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steadyfs/sim.h"
#include "steadyfs/steadyfs.h"

typedef struct tdev {
    sim_dev dev;
    void *image;
    uint64_t image_len;
    steadyfs fs;
    steadyfs_config cfg;
    uint32_t *work;
    uint8_t *sector;
} tdev;

/* blocks: device blocks (0: the profile's).  Returns 0 or -1. */
static inline int tdev_open(tdev *t, const char *profile, uint32_t blocks, uint64_t seed)
{
    const sim_profile *p = sim_profile_find(profile);
    uint32_t ws;
    memset(t, 0, sizeof *t);
    if (!p)
        return -1;
    t->image_len = sim_image_size(p, blocks);
    t->image = calloc(1, (size_t)t->image_len);
    if (!t->image || sim_init(&t->dev, p, blocks, t->image, t->image_len, SIM_TYPICAL, seed, 1))
        return -1;
    t->cfg.bd = &t->dev.bd;
    t->cfg.open_max = 4;
    ws = steadyfs_work_size(&t->cfg);
    if (!ws)
        return -1;
    t->work = calloc(1, ws);
    t->sector = calloc(1, 4096);
    t->cfg.work = t->work;
    t->cfg.work_size = ws;
    t->cfg.sector_buf = t->sector;
    t->cfg.sector_buf_size = 4096;
    return 0;
}

/* xorshift64: a test's own reproducible sequence; a number below n (0 if
 * n is 0). */
static inline uint32_t tdev_rand(uint64_t *state, uint32_t n)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return n ? (uint32_t)(*state % n) : 0;
}

static inline void tdev_close(tdev *t)
{
    free(t->image);
    free(t->work);
    free(t->sector);
}

/* fsck's errors, each with `when` (its notes are not printed). */
static inline void tdev_fsck_say(void *when, const char *msg)
{
    if (strncmp(msg, "note:", 5) != 0)
        fprintf(stderr, "%s: fsck: %s\n", (const char *)when, msg);
}

/* fsck of t's media as they are now (what a power cut would leave):
 * the errors it found (each run printed with `when`), -1 if it could not
 * run.  ctx is the context fsck mounts into: &t->fs (left unmounted, as
 * after a cut), or a scratch one that gets work and buffers of its own,
 * so a mounted t->fs stays as it is. */
static inline int tdev_fsck(tdev *t, steadyfs *ctx, const char *when)
{
    steadyfs_fsck_report rep;
    steadyfs_config c = t->cfg;
    uint32_t fws = steadyfs_fsck_work_size(&t->cfg);
    void *fw = malloc(fws);
    int rc;
    if (ctx != &t->fs) {
        c.work = calloc(1, c.work_size);
        c.sector_buf = calloc(1, c.sector_buf_size > 4096 ? c.sector_buf_size : 4096);
    }
    rc = fw && c.work && c.sector_buf ? steadyfs_fsck(ctx, &c, fw, fws, tdev_fsck_say, (void *)when, &rep) : -1;
    if (rc < 0)
        fprintf(stderr, "%s: fsck could not run (%d)\n", when, rc);
    free(fw);
    if (ctx != &t->fs) {
        free(c.work);
        free(c.sector_buf);
    }
    return rc < 0 ? -1 : (int)rep.errors;
}

/* A log file's records read back: the records first .. first + n - 1,
 * each `size` bytes, as fill(buf, record) makes them, from the start of
 * the file `name`; the records wrong or missing (n + 1 if it cannot be
 * opened).  size <= 4096. */
static inline uint32_t tdev_records_bad(steadyfs *fs, const char *name, uint32_t first, uint32_t n,
                                        uint32_t size, void (*fill)(uint8_t *, uint32_t))
{
    static uint8_t want[4096], got[4096];
    uint32_t r, bad = 0;
    int fd = steadyfs_open(fs, name, STEADYFS_O_RDONLY);
    if (fd < 0 || size > sizeof want)
        return n + 1u;
    for (r = 0; r < n; r++) {
        fill(want, first + r);
        if (steadyfs_read(fs, fd, got, size) != (int)size || memcmp(got, want, size))
            bad++;
    }
    steadyfs_close(fs, fd);
    return bad;
}

#endif
