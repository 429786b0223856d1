/* Issue 5's rotating log (log4k) on a device first filled with static
 * files: 4 KiB appends, each followed by sync; files sized so that four fit
 * in the free space (three kept, the oldest deleted when a fourth starts).
 * Must never run out of space (the data never exceeds the format's
 * capacity), on every medium.  Prints the average and maximum duration of
 * one access (append + sync, plus the rotation on the access that starts a
 * file) on the device's virtual clock, typical timing.
 *
 * STEADYFS_LOG4K_SCALE multiplies the number of accesses (default 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "fs/fs_internal.h"

static uint8_t chunk[65536];

/* Fill to `permille` of the capacity with 1 MiB static files. */
static int fill(tdev *t, uint32_t permille)
{
    steadyfs_info in;
    char name[48];
    uint32_t n = 0;
    CHECK_EQ(steadyfs_mkdir(&t->fs, "/static"), 0);
    for (;;) {
        uint64_t goal, left;
        int fd, rc;
        CHECK_EQ(steadyfs_info_get(&t->fs, &in), 0);
        goal = in.capacity * permille / 1000u;
        if (in.used >= goal)
            return 0;
        left = goal - in.used < (1u << 20) ? goal - in.used : (1u << 20);
        snprintf(name, sizeof name, "/static/s%05u.bin", n++);
        fd = steadyfs_open(&t->fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        if (fd < 0)
            return fd;
        while (left) {
            uint32_t k = left < sizeof chunk ? (uint32_t)left : (uint32_t)sizeof chunk;
            rc = steadyfs_write(&t->fs, fd, chunk, k);
            if (rc != (int)k)
                return rc < 0 ? rc : -1;
            left -= k;
        }
        rc = steadyfs_close(&t->fs, fd);
        if (rc)
            return rc;
    }
}

static void run(const char *profile, uint32_t blocks, uint32_t permille, uint32_t accesses)
{
    if (getenv("LOG4K_DEV") && strcmp(getenv("LOG4K_DEV"), profile))
        return;
    tdev t;
    steadyfs_info in;
    uint64_t fsize, per_file, i, in_file, sum = 0, mx = 0, t0, dt, enospc = 0, fails = 0;
    uint32_t first = 0, live = 0, files = 0, near = 0, near_erased = 0, erases0;
    uint64_t used0;
    int fd = -1, rc;
    char name[48];
    CHECK_EQ(tdev_open(&t, profile, blocks, 5), 0);
    t.cfg.open_max = getenv("OPENMAX") ? (uint16_t)atoi(getenv("OPENMAX")) : 1;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(fill(&t, permille), 0);
    CHECK_EQ(steadyfs_mkdir(&t.fs, "/log"), 0);
    CHECK_EQ(steadyfs_info_get(&t.fs, &in), 0);
    used0 = in.used;
    fsize = in.free / 4 / 4096 * 4096;
    per_file = fsize / 4096;
    CHECK(per_file >= 4);
    in_file = per_file;
    for (i = 0; i < accesses && !fails; i++) {
        /* the last two records before a rotation, from the third file
         * on (the first two measure the period): no optional erase-ahead
         * (NAND, sfs_end's ns_soon), which would leave three units queued
         * (one down to one unit may still erase, leaving two) */
        int watched = !t.fs.geo.tag_inline && files >= 3 && per_file - in_file <= 2;
        t0 = t.dev.now_ns;
        if (in_file == per_file) {
            files++;
            if (fd >= 0 && (rc = steadyfs_close(&t.fs, fd)) != 0) {
                fprintf(stderr, "close: %d\n", rc);
                fails++;
            }
            if (live == 3) {
                snprintf(name, sizeof name, "/log/%06u.log", first++);
                if ((rc = steadyfs_unlink(&t.fs, name)) != 0) {
                    fprintf(stderr, "unlink: %d\n", rc);
                    fails++;
                }
                live--;
            }
            snprintf(name, sizeof name, "/log/%06u.log", first + live);
            fd = steadyfs_open(&t.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
            if (fd < 0) {
                fprintf(stderr, "open: %d\n", fd);
                fails++;
                break;
            }
            live++;
            in_file = 0;
        }
        erases0 = t.fs.stats.erase;
        rc = steadyfs_write(&t.fs, fd, chunk, 4096);
        if (rc == STEADYFS_ENOSPC)
            enospc++;
        near_erased += watched && t.fs.stats.erase != erases0 && t.fs.log.nqueued >= 3;
        erases0 = t.fs.stats.erase;
        if (rc != 4096 || (rc = steadyfs_sync(&t.fs, fd)) != 0) {
            fprintf(stderr, "write/sync: %d\n", rc);
            fails++;
        }
        near_erased += watched && t.fs.stats.erase != erases0 && t.fs.log.nqueued >= 3;
        near += watched;
        in_file++;
        dt = t.dev.now_ns - t0;
        sum += dt;
        if (dt > mx)
            mx = dt;
        if (getenv("LOG4K_VERBOSE") && i % 1000 == 999)
            printf("  %llu: data %u copies %u map %u ckpt %u erases %u victims %u live %u/%u free %u pace %u/256\n",
                   (unsigned long long)i, t.fs.stats.data, t.fs.stats.copy, t.fs.stats.map, t.fs.stats.ckpt,
                   t.fs.stats.erase, t.fs.stats.victim, t.fs.live, t.fs.live_max, sfs_free_blocks(&t.fs), t.fs.gc.pace);
    }
    if (fails) {
        CHECK_EQ(steadyfs_info_get(&t.fs, &in), 0);
        fprintf(stderr, "%s %u%%: access %llu failed (ENOSPC %llu): used %llu of %llu bytes\n",
                profile, permille / 10, (unsigned long long)i, (unsigned long long)enospc,
                (unsigned long long)in.used, (unsigned long long)in.capacity);
    }
    CHECK_EQ(fails, 0);
    CHECK_EQ(enospc, 0);
    CHECK_EQ(near_erased, 0);
    if (near)
        printf("%s: %u records just before a rotation, %u optional erases in them\n", profile, near, near_erased);
    printf("%s, %u blocks, %u%% full, files %llu KiB: %llu accesses, avg %.3f ms, max %.3f ms, "
           "%.2f MB/s; %u erases, %u GC copies\n",
           profile, blocks ? blocks : t.dev.prof->geo.block_count, permille / 10,
           (unsigned long long)(fsize >> 10), (unsigned long long)i,
           i ? (double)sum / (double)i / 1e6 : 0.0, (double)mx / 1e6,
           sum ? 4096.0 * (double)i / ((double)sum / 1e9) / 1e6 : 0.0, t.fs.stats.erase, t.fs.stats.copy);
    if (fd >= 0)
        steadyfs_close(&t.fs, fd);
    /* space comes back: with the logs deleted, the usage is as before
     * them (give or take the log directory's buckets) */
    while (live) {
        snprintf(name, sizeof name, "/log/%06u.log", first++);
        CHECK_EQ(steadyfs_unlink(&t.fs, name), 0);
        live--;
    }
    /* the last deleted log's counts may still be settling (DESIGN.md §5):
     * idle time settles them, one L1 sector per step */
    CHECK(steadyfs_gc_step(&t.fs, 80) >= 0);
    CHECK_EQ(steadyfs_info_get(&t.fs, &in), 0);
    /* what may stay: the log directory's buckets and the L1 map sector of
     * its pages, and the dense map sectors of inode numbers touched */
    CHECK(in.used <= used0 + (uint64_t)in.data_per_sector *
                                 (8u + 1u + 2u * ((t.fs.cfg.max_inodes + t.fs.geo.e1 - 1) / t.fs.geo.e1) + 1u));
    if (getenv("LOG4K_VERBOSE"))
        printf("  used before %llu after %llu\n", (unsigned long long)used0,
               (unsigned long long)in.used);
    CHECK_EQ(t.fs.gc.drift, 0);
    steadyfs_unmount(&t.fs);
    tdev_close(&t);
}

int main(void)
{
    const char *env = getenv("STEADYFS_LOG4K_SCALE");
    double sc = env ? atof(env) : 1.0;
    uint32_t k;
    for (k = 0; k < sizeof chunk; k++)
        chunk[k] = (uint8_t)(k * 13 + 1);
    run("em064lx", 0, 250, (uint32_t)(3000 * sc));
    run("em064lx", 0, 750, (uint32_t)(6000 * sc));
    run("em064lx", 0, 900, (uint32_t)(3000 * sc));
    run("mt25q128", 0, 750, (uint32_t)(1500 * sc));
    run("mt29f1g01", 128, 750, (uint32_t)(6000 * sc));
    return check_done("test_fs_log4k");
}
