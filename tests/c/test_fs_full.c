/* A full device: fill with many small files and a big file written in
 * unaligned pieces until ENOSPC, then the removals (rename over a target,
 * unlink, rmdir) must succeed on the full device, the big file's removal
 * must give the space back and a new file must be writable.  The fills
 * must reach the capacity steadyfs_info reports: live data (info.used)
 * within SFS_RM_ROOM + 4 sectors of it (writes and creates stop
 * SFS_RM_ROOM sectors before the limit, DESIGN.md §6), which is >= 97 %
 * on these small devices.  Two rounds each, the second after the first's
 * files are removed.  ~4 s under ASan.
 *
 * Found as a regression of the collection head: the paced collection fell
 * behind (its pace ignored the map merges copies induce), the host head
 * took the erased units collection needed to finish its victim, and with
 * none left nothing could ever be written again: unlink failed with
 * ENOSPC on a full device, at 94 % of the live limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "fs/fs_internal.h"

#define FULL_PERMILLE 970u   /* live data when writes stop, of the capacity, at least */

static uint8_t chunk[65536], back[65536];

static void fill_pattern(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i, x = seed * 2654435761u + 1u;
    for (i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

/* One fill-and-recover round; returns the bytes the big file reached. */
static uint64_t round_trip(tdev *t, uint32_t nfiles, uint32_t wsize, uint32_t round)
{
    steadyfs *fs = &t->fs;
    steadyfs_info in;
    char p[64];
    uint64_t total = 0;
    uint32_t i, made = 0, shorts;
    int fd, rc = 0;
    snprintf(p, sizeof p, "/lots%u", round);
    CHECK_EQ(steadyfs_mkdir(fs, p), 0);
    CHECK_EQ(steadyfs_mkdir(fs, "/empty"), 0);
    for (i = 0; i < nfiles; i++) {
        snprintf(p, sizeof p, "/lots%u/file-number-%u", round, i);
        fd = steadyfs_open(fs, p, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        if (fd == STEADYFS_ENOSPC)
            break;   /* the directory is full (~480 short names) */
        CHECK(fd >= 0);
        if (fd < 0)
            return 0;
        CHECK_EQ(steadyfs_write(fs, fd, "12\n", 3), 3);
        CHECK_EQ(steadyfs_close(fs, fd), 0);
        made++;
    }
    CHECK(made >= 3);
    fd = steadyfs_open(fs, "/fill.bin", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    /* until a write fails: a short write may be followed by another (a
     * write that begins by committing the file's transaction gets back
     * the sectors its rewritten pages replaced), but only a few */
    for (shorts = 0; shorts < 4;) {
        rc = steadyfs_write(fs, fd, chunk, wsize);
        if (rc < 0)
            break;
        total += (uint64_t)rc;
        shorts += rc < (int)wsize;
    }
    CHECK_EQ(rc, STEADYFS_ENOSPC);
    CHECK_EQ(steadyfs_close(fs, fd), 0);
    CHECK_EQ(steadyfs_info_get(fs, &in), 0);
    printf("  round %u: %u small files, fill %llu bytes in %u-byte writes, used %llu of "
           "%llu (%.1f %%), emergency %u\n",
           round, made, (unsigned long long)total, wsize, (unsigned long long)in.used,
           (unsigned long long)in.capacity, 100.0 * (double)in.used / (double)in.capacity,
           fs->stats.catch_up);
    CHECK(in.used * 1000u >= in.capacity * FULL_PERMILLE);
    CHECK(in.used + (SFS_RM_ROOM + 4u) * in.data_per_sector >= in.capacity);
    /* a new file cannot be created on the full device... */
    CHECK_EQ(steadyfs_open(fs, "/late.bin", STEADYFS_O_WRONLY | STEADYFS_O_CREAT),
             STEADYFS_ENOSPC);
    /* ...but every kind of removal works */
    snprintf(p, sizeof p, "/lots%u/file-number-0", round);
    {
        char q[64];
        snprintf(q, sizeof q, "/lots%u/file-number-1", round);
        CHECK_EQ(steadyfs_rename(fs, p, q), 0);
    }
    snprintf(p, sizeof p, "/lots%u/file-number-2", round);
    CHECK_EQ(steadyfs_unlink(fs, p), 0);
    CHECK_EQ(steadyfs_rmdir(fs, "/empty"), 0);
    CHECK_EQ(steadyfs_unlink(fs, "/fill.bin"), 0);
    /* the space is back: a new file of a quarter of the fill */
    fd = steadyfs_open(fs, "/after.bin", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    for (i = 0; (uint64_t)i * sizeof chunk < total / 4; i++) {
        fill_pattern(chunk, sizeof chunk, i);
        CHECK_EQ(steadyfs_write(fs, fd, chunk, sizeof chunk), (int)sizeof chunk);
    }
    CHECK_EQ(steadyfs_close(fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(fs), 0);
    CHECK_EQ(steadyfs_mount(fs, &t->cfg), 0);
    fd = steadyfs_open(fs, "/after.bin", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    for (i = 0; (uint64_t)i * sizeof chunk < total / 4; i++) {
        fill_pattern(chunk, sizeof chunk, i);
        CHECK_EQ(steadyfs_read(fs, fd, back, sizeof back), (int)sizeof back);
        CHECK(memcmp(chunk, back, sizeof back) == 0);
    }
    CHECK_EQ(steadyfs_close(fs, fd), 0);
    CHECK_EQ(steadyfs_unlink(fs, "/after.bin"), 0);
    for (i = 0; i < made; i++) {
        snprintf(p, sizeof p, "/lots%u/file-number-%u", round, i);
        CHECK_EQ(steadyfs_unlink(fs, p), i == 0 || i == 2 ? STEADYFS_ENOENT : 0);
    }
    snprintf(p, sizeof p, "/lots%u", round);
    CHECK_EQ(steadyfs_rmdir(fs, p), 0);
    memset(chunk, 0x5A, sizeof chunk);
    return total;
}

static void run(const char *profile, uint32_t blocks, uint32_t wsize, uint32_t small_permille)
{
    tdev t;
    steadyfs_info in;
    uint32_t ws, nfiles, r;
    printf("%s, %u blocks, open_max 8:\n", profile, blocks);
    CHECK_EQ(tdev_open(&t, profile, blocks, 3), 0);
    t.cfg.open_max = 8;
    ws = steadyfs_work_size(&t.cfg);
    free(t.work);
    t.work = calloc(1, ws);
    t.cfg.work = t.work;
    t.cfg.work_size = ws;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_info_get(&t.fs, &in), 0);
    /* small files take 3 sectors each: small_permille of the capacity */
    nfiles = (uint32_t)(in.capacity / in.data_per_sector * small_permille / 1000u / 3u) + 3u;
    for (r = 0; r < 2; r++)
        round_trip(&t, nfiles, wsize, r);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    tdev_close(&t);
}

/* Churn on a nearly full device: random small and large writes at random
 * offsets, closes, unlinks and renames over targets.  Writes and creates
 * may get ENOSPC; closes, unlinks and renames must not, and in the end
 * every file is removed and the space is back.  (Found with it: a close
 * whose commit failed left its uncommitted entries in the pending table,
 * which then refused every later change.) */
static void churn(const char *profile, uint32_t blocks, uint32_t nfiles, uint32_t ops)
{
    tdev t;
    steadyfs *fs = &t.fs;
    steadyfs_info in;
    uint32_t x = 12345, i, k, enospc = 0;
    char p[32], q[32];
    int fd, rc;
    printf("%s, %u blocks, churn over %u files:\n", profile, blocks, nfiles);
    CHECK_EQ(tdev_open(&t, profile, blocks, 4), 0);
    CHECK_EQ(steadyfs_format(fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(fs, &t.cfg), 0);
    for (i = 0; i < ops; i++) {
        x = x * 1103515245u + 12345u;
        snprintf(p, sizeof p, "/f%u", (x >> 8) % nfiles);
        k = (x >> 20) & 3u;
        x = x * 1103515245u + 12345u;
        snprintf(q, sizeof q, "/f%u", (x >> 8) % nfiles);
        if (k == 0) {
            rc = steadyfs_unlink(fs, p);
            CHECK(rc == 0 || rc == STEADYFS_ENOENT);
        } else if (k == 1) {
            rc = steadyfs_rename(fs, p, q);
            CHECK(rc == 0 || rc == STEADYFS_ENOENT);
        } else {
            fd = steadyfs_open(fs, p, STEADYFS_O_RDWR | STEADYFS_O_CREAT);
            CHECK(fd >= 0 || fd == STEADYFS_ENOSPC);
            if (fd < 0) {
                enospc++;
                continue;
            }
            x = x * 1103515245u + 12345u;
            CHECK_EQ(steadyfs_seek(fs, fd, (x >> 8) % 200000u, STEADYFS_SEEK_SET),
                     (int64_t)((x >> 8) % 200000u));
            x = x * 1103515245u + 12345u;
            rc = steadyfs_write(fs, fd, chunk, (x >> 4) % 3u ? 1 + (x >> 8) % 5000u
                                                               : 1 + (x >> 8) % 65536u);
            CHECK(rc > 0 || rc == STEADYFS_ENOSPC);
            enospc += rc < 0;
            CHECK_EQ(steadyfs_close(fs, fd), 0);
        }
    }
    CHECK_EQ(steadyfs_info_get(fs, &in), 0);
    printf("  %u operations, %u ENOSPC, used %.1f %% of the capacity, %u catch-up collections\n",
           ops, enospc, 100.0 * (double)in.used / (double)in.capacity, fs->stats.catch_up);
    for (i = 0; i < nfiles; i++) {
        snprintf(p, sizeof p, "/f%u", i);
        rc = steadyfs_unlink(fs, p);
        CHECK(rc == 0 || rc == STEADYFS_ENOENT);
    }
    CHECK(steadyfs_gc_step(fs, 80) >= 0);   /* a deleted file still settling (DESIGN.md §5) */
    CHECK_EQ(steadyfs_info_get(fs, &in), 0);
    /* what stays live: the root (inode and a bucket) and map sectors, at
     * most every L1 and L2 sector (a share of the capacity is no bound:
     * the live limit of a small device is a few hundred sectors) */
    CHECK(fs->live <= 2u + fs->geo.n_l1 + fs->geo.n_l2);
    CHECK_EQ(fs->uncommitted, 0);
    CHECK_EQ(steadyfs_unmount(fs), 0);
    tdev_close(&t);
}

int main(void)
{
    memset(chunk, 0x5A, sizeof chunk);
    run("mt29f1g01", 128, 8000, 320);
    run("mt29f1g01", 128, 16336, 450);
    run("mt29f1g01", 128, 8168, 0);
    run("mt25q128", 512, 8000, 300);
    run("mt25q128", 512, 3001, 0);
    run("em064lx", 32, 8000, 300);
    run("em064lx", 32, 5000, 100);
    churn("mt29f1g01", 48, 200, 3000);
    return check_done("fs_full");
}
