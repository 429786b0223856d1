/* A deleted file's chunks trimmed later (DESIGN.md §5, sfs_trim_step): the
 * unlink of a big file reads none of its L1 sectors, its chunks become
 * dying; the light calls after it (or idle time, or a collection victim
 * waiting on them) trim one L1 sector each; the space returns; counts,
 * fsck and power cuts agree at every step; and near the live limit a
 * write short of room takes the trim steps it needs. */
#include <stdio.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_recount.h"
#include "fs_testdev.h"

static tdev T;
static uint8_t data[4096];

/* Every unit's live count equals its recount from the media. */
static int counts_ok(const char *when)
{
    int bad = fs_counts_differ(&T.fs, when);
    CHECK_EQ(bad, 0);
    return !bad;
}

/* Chunks a kill gave up that no trim step has freed yet. */
static uint32_t dying(void) { return T.fs.chunk.ndying; }

static void write_file(const char *path, uint32_t bytes)
{
    uint32_t i;
    int fd = steadyfs_open(&T.fs, path, STEADYFS_O_RDWR | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
    CHECK(fd >= 0);
    for (i = 0; i < bytes; i += sizeof data) {
        data[0] = (uint8_t)i;
        CHECK_EQ(steadyfs_write(&T.fs, fd, data, sizeof data), (int32_t)sizeof data);
    }
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
}

/* fsck from the media, as after a power cut (no unmount), then mount. */
static void fsck_then_mount(const char *when)
{
    CHECK_EQ(tdev_fsck(&T, &T.fs, when), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
}

static void lazy_unlink(void)
{
    steadyfs_info a, b;
    uint64_t r0;
    uint32_t calls = 0;
    int fd;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 128, 3), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    write_file("/big", 3u << 20);   /* 1536 pages: three L1 sectors of its own */
    write_file("/log", 4096);
    write_file("/other", 256u << 10);   /* /big's last changes get merged meanwhile */
    CHECK_EQ(steadyfs_info_get(&T.fs, &a), 0);

    r0 = T.dev.stats.reads;
    CHECK_EQ(steadyfs_unlink(&T.fs, "/big"), 0);
    /* the bucket, its inode sector (the chunk list), the lookups of its
     * shared sectors, maybe a merge: never an L1 sector of its pages */
    CHECK(T.dev.stats.reads - r0 <= 10);
    CHECK(dying() != 0);
    CHECK(counts_ok("after the unlink"));
    CHECK_EQ(steadyfs_info_get(&T.fs, &b), 0);
    CHECK(b.used + a.data_per_sector * 4u >= a.used);   /* not returned yet */

    /* a cut now: the checkpoint that committed the unlink holds the dying
     * chunks; fsck agrees, and the trims go on after mount */
    fsck_then_mount("cut while settling");
    CHECK(dying() != 0);
    CHECK(counts_ok("mounted while settling"));

    fd = steadyfs_open(&T.fs, "/log", STEADYFS_O_WRONLY | STEADYFS_O_APPEND | STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    while (dying() && calls < 60) {
        CHECK_EQ(steadyfs_write(&T.fs, fd, data, sizeof data), (int32_t)sizeof data);
        calls++;
        CHECK(counts_ok("while settling"));
    }
    CHECK(dying() == 0);
    /* 3 MiB in 24 chunks of 64 pages, 8 per L1 sector: three or four trim
     * steps, each riding on a checkpoint a light call writes anyway (one
     * per ~11 records of 4 KiB), after the namespace window's 4 calls */
    CHECK(calls <= 4 + 4 * 12);
    CHECK_EQ(steadyfs_info_get(&T.fs, &b), 0);
    /* 3 MiB returned (less what the appends meanwhile added) */
    CHECK(b.used + (3u << 20) <= a.used + (calls + 8u) * 4096u);
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    printf("  lazy: unlink of 3 MiB, trimmed within %u appends; used %llu -> %llu bytes\n", calls,
           (unsigned long long)a.used, (unsigned long long)b.used);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    fsck_then_mount("settled");
    CHECK_EQ(T.fs.gc.drift, 0);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
}

/* Near the live limit a write short of room takes the trim steps that
 * give a deleted file's space back (sfs_live_room). */
static void near_limit(void)
{
    steadyfs_info in;
    char p[32];
    uint32_t i, n = 0;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 5), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    write_file("/big", 1u << 20);
    for (i = 0;; i++) {
        int fd;
        int32_t w = 0;
        snprintf(p, sizeof p, "/f%u", i);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR | STEADYFS_O_CREAT);
        if (fd < 0)
            break;
        while (w >= 0) {
            w = steadyfs_write(&T.fs, fd, data, sizeof data);
            if (w < (int32_t)sizeof data)
                break;
        }
        steadyfs_close(&T.fs, fd);
        n++;
        if (w < (int32_t)sizeof data)
            break;
    }
    CHECK(T.fs.live + 64u > T.fs.live_max);
    CHECK_EQ(steadyfs_unlink(&T.fs, "/big"), 0);
    CHECK(counts_ok("near the limit"));
    /* the space is back at once: a 512 KiB file fits again */
    write_file("/again", 512u << 10);
    CHECK_EQ(steadyfs_info_get(&T.fs, &in), 0);
    CHECK(dying() == 0);
    printf("  near the limit (%u files): trimmed for the next write; used %.1f %% of the capacity\n", n,
           100.0 * (double)in.used / (double)in.capacity);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
}

/* Power cut at every point of the trims: after each, the counts agree
 * with the media, fsck is clean and the trims complete. */
static void cuts(void)
{
    uint32_t window, cuts_seen = 0;
    for (window = 1; window <= 24; window++) {
        sim_faults f;
        int fd, rc = 0;
        uint32_t k;
        CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 100 + window), 0);
        CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
        CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
        write_file("/big", 2u << 20);
        write_file("/log", 4096);
        write_file("/other", 256u << 10);
        CHECK_EQ(steadyfs_unlink(&T.fs, "/big"), 0);
        CHECK(dying() != 0);
        memset(&f, 0, sizeof f);
        f.powercut_after = window;
        sim_set_faults(&T.dev, &f);
        fd = steadyfs_open(&T.fs, "/log", STEADYFS_O_WRONLY | STEADYFS_O_APPEND | STEADYFS_O_DSYNC);
        for (k = 0; k < 30 && fd >= 0 && rc >= 0; k++)
            rc = steadyfs_write(&T.fs, fd, data, sizeof data);
        if (T.fs.dead) {
            cuts_seen++;
            sim_power_restore(&T.dev);
        }
        memset(&f, 0, sizeof f);
        sim_set_faults(&T.dev, &f);
        fsck_then_mount("after a cut while trimming");
        CHECK(counts_ok("after a cut while trimming"));
        rc = steadyfs_gc_step(&T.fs, 80);
        if (rc < 0)
            fprintf(stderr, "window %u: gc_step %d\n", window, rc);
        CHECK(rc >= 0);
        CHECK(dying() == 0);
        CHECK(counts_ok("trimmed after the cut"));
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        fsck_then_mount("trimmed after the cut");
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        tdev_close(&T);
    }
    CHECK(cuts_seen >= 20);
    printf("  %u power cuts while trimming: counts, fsck and trims agree\n", cuts_seen);
}

/* A collection victim whose every sector is examined while half its
 * sectors are in dying chunks: the victim waits (each step trims an L1
 * sector) until its count is what it holds, never "drift". */
static void victim_waits(void)
{
    uint32_t i, steps = 0, victims0, waited = 0;
    int a, b;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 9), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    a = steadyfs_open(&T.fs, "/a", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    b = steadyfs_open(&T.fs, "/b", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(a >= 0 && b >= 0);
    for (i = 0; i < 384; i++) {   /* units half /a, half /b (1.5 MiB each) */
        CHECK_EQ(steadyfs_write(&T.fs, a, data, sizeof data), (int32_t)sizeof data);
        CHECK_EQ(steadyfs_write(&T.fs, b, data, sizeof data), (int32_t)sizeof data);
    }
    CHECK_EQ(steadyfs_close(&T.fs, a), 0);
    CHECK_EQ(steadyfs_close(&T.fs, b), 0);
    write_file("/other", 256u << 10);   /* /b's last changes get merged */
    CHECK_EQ(steadyfs_unlink(&T.fs, "/b"), 0);
    CHECK(dying() != 0);
    /* collection steps by hand (no API call around them, so no light
     * call's trim step): the first victims hold /b's dead sectors */
    victims0 = T.fs.stats.victim;
    while (dying() && steps < 2000) {
        uint32_t before = dying();
        T.fs.chunk.steps = 1;
        CHECK(sfs_collect(&T.fs, sfs_gc_one, SFS_MODE_WRITE) >= 0);
        if (T.fs.log.need_ckpt)
            CHECK_EQ(sfs_ckpt_write(&T.fs), 0);   /* what the next program would do */
        steps++;
        waited += dying() != before;   /* trimmed in a victim's step */
        if (steps % 16 == 0 && !counts_ok("collecting while trimming"))
            break;
    }
    CHECK(dying() == 0);
    CHECK(waited >= 1);
    CHECK(counts_ok("collected while trimming"));
    CHECK_EQ(T.fs.gc.drift, 0);
    printf("  victims waited for trims in %u of %u collection steps (%u victims)\n",
           waited, steps, T.fs.stats.victim - victims0);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    fsck_then_mount("collected while trimming");
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
}

/* A trim step whose program fails (a grown bad block): the head's move
 * forces a checkpoint before the retry, and a cut just after it must find
 * every unit's count what the media hold, fsck clean, and the trims
 * complete after mount.  Before map.c's trim_recount that checkpoint held
 * the trimmed sectors uncounted while their L1 sector was not written
 * (torture --fsck, seed 104: "unit 10: block table counts 6 live sectors,
 * the map reaches 7"), and the trim redone after mount uncounted them
 * again. */
static int fail_armed;

static void fail_then_cut(void *arg, enum sim_op op, uint32_t block, uint32_t off, uint32_t len,
                          uint64_t start_ns, uint64_t dur_ns, int rc)
{
    sim_faults f;
    (void)arg, (void)block, (void)off, (void)len, (void)start_ns, (void)dur_ns;
    if (!fail_armed || op != SIM_OP_PROG || rc == 0)
        return;
    /* the first program failed: no more failures; the power goes at the
     * third program or erase from here (the forced checkpoint's relocation
     * sector and checkpoint, then the retried trim, or the checkpoint that
     * follows it) */
    fail_armed = 0;
    memset(&f, 0, sizeof f);
    f.powercut_after = 3;
    sim_set_faults(&T.dev, &f);
}

static void failed_trim(void)
{
    uint32_t seed, tried = 0;
    for (seed = 0; seed < 4; seed++) {
        sim_faults f;
        uint32_t d0;
        CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 200 + seed), 0);
        CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
        CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
        write_file("/big", (2u << 20) + (seed << 18));
        write_file("/other", 256u << 10);
        CHECK_EQ(steadyfs_unlink(&T.fs, "/big"), 0);
        d0 = dying();
        CHECK(d0 != 0);
        memset(&f, 0, sizeof f);
        f.fail_ppm = 1000000u;   /* the next program fails */
        sim_set_faults(&T.dev, &f);
        fail_armed = 1;
        T.dev.trace = fail_then_cut;
        steadyfs_gc_step(&T.fs, 80);
        T.dev.trace = NULL;
        /* the step trimmed (its L1 sector's program is the one that
         * failed: nothing else in it programs before a trim) and the
         * power went after the checkpoint the failure forced */
        CHECK(!fail_armed && T.fs.dead);
        tried += T.fs.dead;
        sim_power_restore(&T.dev);
        sim_set_faults(&T.dev, NULL);
        fsck_then_mount("after a failed trim program and a cut");
        CHECK(counts_ok("after a failed trim program and a cut"));
        CHECK(steadyfs_gc_step(&T.fs, 80) >= 0);
        CHECK(dying() == 0);
        CHECK(counts_ok("trimmed after the failed program"));
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        fsck_then_mount("trimmed after the failed program");
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        tdev_close(&T);
    }
    printf("  %u trims whose program failed, cut after the checkpoint it forced: counts, fsck "
           "and trims agree\n", tried);
}

int main(void)
{
    lazy_unlink();
    victim_waits();
    near_limit();
    cuts();
    failed_trim();
    return check_done("test_fs_trim");
}
