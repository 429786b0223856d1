/* Unlink and rename-over of open files (POSIX): the name goes at once,
 * open handles keep reading and writing the inode (an orphan, in the
 * checkpoint's orphan list), and it dies at its last close; a removed
 * directory that is still open dies in a light call after its closedir;
 * after a power cut the orphans the checkpoint holds die in the first
 * light calls after mount (or at unmount), and fsck accepts them meanwhile.
 * Every call here is also checked against its stated bound (test builds). */
#include <stdio.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_recount.h"
#include "fs_testdev.h"

static tdev T;
static uint8_t data[4096], back[4096];

static int counts_ok(const char *when)
{
    int bad = fs_counts_differ(&T.fs, when);
    CHECK_EQ(bad, 0);
    return !bad;
}

static void fill(uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

/* A file of `pages` 4 KiB records, record k filled with fill(seed + k). */
static int make_file(const char *path, uint32_t seed, uint32_t records, int keep_open)
{
    uint32_t k;
    int fd = steadyfs_open(&T.fs, path, STEADYFS_O_RDWR | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
    CHECK(fd >= 0);
    for (k = 0; k < records; k++) {
        fill(seed + k);
        CHECK_EQ(steadyfs_write(&T.fs, fd, data, sizeof data), (int32_t)sizeof data);
    }
    if (keep_open) {
        CHECK_EQ(steadyfs_sync(&T.fs, fd), 0);
        return fd;
    }
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    return -1;
}

/* Record k of an open file reads back as fill(seed + k). */
static int record_ok(int fd, uint32_t seed, uint32_t k)
{
    CHECK_EQ(steadyfs_seek(&T.fs, fd, (int64_t)k * (int64_t)sizeof data, STEADYFS_SEEK_SET),
             (int64_t)k * (int64_t)sizeof data);
    CHECK_EQ(steadyfs_read(&T.fs, fd, back, sizeof back), (int32_t)sizeof back);
    fill(seed + k);
    return memcmp(back, data, sizeof data) == 0;
}

static int file_ok(const char *path, uint32_t seed, uint32_t records)
{
    uint32_t k;
    int ok = 1, fd = steadyfs_open(&T.fs, path, STEADYFS_O_RDONLY);
    if (fd < 0)
        return 0;
    for (k = 0; k < records && ok; k++)
        ok = record_ok(fd, seed, k);
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    return ok;
}

/* fsck of the media as they are (what a cut now would leave), in a
 * context of its own: the mounted one stays as it is. */
static steadyfs fsck_ctx;

static void fsck_clean(const char *when)
{
    CHECK_EQ(tdev_fsck(&T, &fsck_ctx, when), 0);
}

/* As after a power cut: no unmount, fsck from the media, mount. */
static void cut_and_mount(const char *when)
{
    fsck_clean(when);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
}

/* Light calls (O_DSYNC appends of one record to /light) until no orphan
 * is left, at most `max`; the number it took. */
static uint32_t light_calls_until_reaped(uint32_t max)
{
    uint32_t n = 0;
    int fd = steadyfs_open(&T.fs, "/light", STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_APPEND |
                                                STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    while (sfs_orphans(&T.fs) && n < max) {
        CHECK_EQ(steadyfs_write(&T.fs, fd, data, 2048), 2048);
        n++;
    }
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    return n;
}

static void open_unlinked(void)
{
    steadyfs_stat st;
    steadyfs_info a, b;
    int fd, fd2, other;
    uint32_t k;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 1), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_info_get(&T.fs, &a), 0);
    fd = make_file("/a", 10, 256, 1);   /* 1 MiB, open */
    fd2 = steadyfs_open(&T.fs, "/a", STEADYFS_O_RDONLY);
    CHECK(fd2 >= 0);
    CHECK_EQ(steadyfs_unlink(&T.fs, "/a"), 0);
    CHECK_EQ(steadyfs_stat_path(&T.fs, "/a", &st), STEADYFS_ENOENT);
    CHECK_EQ(sfs_orphans(&T.fs), 1u);
    CHECK(counts_ok("unlinked while open"));
    /* the name is free: a new /a is another inode */
    other = make_file("/a", 50, 4, 1);
    CHECK(file_ok("/a", 50, 4));
    CHECK_EQ(steadyfs_close(&T.fs, other), 0);
    /* both handles still read the old file; one writes it on */
    CHECK(record_ok(fd, 10, 0) && record_ok(fd, 10, 255) && record_ok(fd2, 10, 128));
    CHECK_EQ(steadyfs_seek(&T.fs, fd, 0, STEADYFS_SEEK_END), (int64_t)256 * 4096);
    for (k = 256; k < 300; k++) {
        fill(10 + k);
        CHECK_EQ(steadyfs_write(&T.fs, fd, data, sizeof data), (int32_t)sizeof data);
    }
    CHECK_EQ(steadyfs_sync(&T.fs, fd), 0);
    CHECK_EQ(steadyfs_fstat(&T.fs, fd2, &st), 0);
    CHECK_EQ(st.size, (uint64_t)300 * 4096);
    CHECK(record_ok(fd2, 10, 299));
    fsck_clean("orphan open");
    /* the first close leaves it to the other handle */
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    CHECK_EQ(sfs_orphans(&T.fs), 1u);
    CHECK(record_ok(fd2, 10, 7));
    /* the last close: it dies, its space returns (once settled) */
    CHECK_EQ(steadyfs_close(&T.fs, fd2), 0);
    CHECK_EQ(sfs_orphans(&T.fs), 0u);
    CHECK(counts_ok("orphan closed"));
    CHECK(steadyfs_gc_step(&T.fs, 100) >= 0);
    CHECK_EQ(steadyfs_info_get(&T.fs, &b), 0);
    CHECK(b.used <= a.used + 16u * b.data_per_sector);
    CHECK(file_ok("/a", 50, 4));
    fsck_clean("orphan gone");
    printf("  unlink while open: two handles read and write on, the last close frees %llu bytes\n",
           (unsigned long long)((uint64_t)300 * 4096));
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK(file_ok("/a", 50, 4));
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
}

static void rename_over_open_and_rmdir_open(void)
{
    steadyfs_dirent ent;
    int fd, dd;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 2), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    fd = make_file("/x", 20, 8, 1);
    make_file("/y", 30, 8, 0);
    CHECK_EQ(steadyfs_rename(&T.fs, "/y", "/x"), 0);
    CHECK(file_ok("/x", 30, 8));
    CHECK(record_ok(fd, 20, 0) && record_ok(fd, 20, 7));
    CHECK_EQ(sfs_orphans(&T.fs), 1u);
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    CHECK_EQ(sfs_orphans(&T.fs), 0u);
    CHECK(file_ok("/x", 30, 8));
    /* a directory open while it is removed */
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/d"), 0);
    dd = steadyfs_opendir(&T.fs, "/d");
    CHECK(dd >= 0);
    CHECK_EQ(steadyfs_rmdir(&T.fs, "/d"), 0);
    CHECK_EQ(steadyfs_readdir(&T.fs, dd, &ent), 0);   /* empty */
    CHECK_EQ(sfs_orphans(&T.fs), 1u);
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/d"), 0);         /* the name is free */
    CHECK_EQ(steadyfs_closedir(&T.fs, dd), 0);
    CHECK_EQ(sfs_orphans(&T.fs), 1u);                 /* closedir never programs */
    /* the first light call after the namespace window (ns_end: 4 calls
     * after the create of /light are not light) and a settling step */
    CHECK(light_calls_until_reaped(12) <= 4 + 1 + 2);
    CHECK_EQ(sfs_orphans(&T.fs), 0u);
    CHECK(counts_ok("directory orphan gone"));
    fsck_clean("renames and rmdir");
    printf("  rename over an open file, rmdir of an open directory: orphans until closed\n");
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
}

/* The orphan list full (orphan_max, every one held): one more unlink of
 * an open file is EBUSY and changes nothing.  Orphans a cut left: fsck
 * accepts them; with the list full of them, the next unlink of an open
 * file reaps one first; light calls reap the rest. */
static void orphans_after_a_cut(void)
{
    int fd, last;
    char p[16];
    uint32_t i, calls, n;
    steadyfs_stat st;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 3), 0);
    /* more handles than the list has room for */
    T.cfg.open_max = SFS_ORPHAN_CAP + 4u;
    free(T.work);
    T.cfg.work_size = steadyfs_work_size(&T.cfg);
    T.work = calloc(1, T.cfg.work_size);
    T.cfg.work = T.work;
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    n = T.fs.geo.orphan_max;
    CHECK(n >= 4u && n <= SFS_ORPHAN_CAP);
    make_file("/keep", 70, 32, 0);
    for (i = 0; i < n; i++) {
        snprintf(p, sizeof p, "/o%u", i);
        CHECK(make_file(p, 100 + 10 * i, 4, 1) >= 0);   /* held open at the cut */
        CHECK_EQ(steadyfs_unlink(&T.fs, p), 0);
    }
    CHECK_EQ(sfs_orphans(&T.fs), n);
    last = make_file("/busy", 7, 1, 1);
    CHECK_EQ(steadyfs_unlink(&T.fs, "/busy"), STEADYFS_EBUSY);
    CHECK_EQ(steadyfs_stat_path(&T.fs, "/busy", &st), 0);
    CHECK(record_ok(last, 7, 0));
    cut_and_mount("a full orphan list held at the cut");
    CHECK_EQ(sfs_orphans(&T.fs), n);
    CHECK(counts_ok("mounted with orphans"));
    CHECK(file_ok("/busy", 7, 1));
    /* the list full of orphans no handle holds: the next one reaps one */
    fd = make_file("/n", 90, 2, 1);
    CHECK_EQ(steadyfs_unlink(&T.fs, "/n"), 0);
    CHECK(sfs_orphans(&T.fs) <= n);
    CHECK(record_ok(fd, 90, 1));
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    calls = light_calls_until_reaped(256);
    CHECK_EQ(sfs_orphans(&T.fs), 0u);
    CHECK(counts_ok("orphans reaped after the cut"));
    CHECK(file_ok("/keep", 70, 32));
    fsck_clean("reaped after the cut");
    printf("  %u orphans (a full list) left by a cut: reaped in %u light calls after mount\n", n,
           calls);
    /* and at unmount, when no light call came */
    CHECK(make_file("/u", 5, 4, 1) >= 0);
    CHECK_EQ(steadyfs_unlink(&T.fs, "/u"), 0);
    cut_and_mount("one orphan at the cut");
    CHECK_EQ(sfs_orphans(&T.fs), 1u);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK_EQ(sfs_orphans(&T.fs), 0u);
    CHECK(counts_ok("reaped at unmount"));
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    fsck_clean("reaped at unmount");
    tdev_close(&T);
}

/* A cut at every point of: unlink an open file, write on through its
 * handle, close it, write elsewhere.  After each: fsck clean, counts
 * agree, /keep intact, /c either gone or intact, orphans reaped. */
static void cuts(void)
{
    uint32_t window, seen = 0;
    for (window = 1; window <= 40; window++) {
        sim_faults f;
        int fd, rc = 0;
        uint32_t k;
        steadyfs_stat st;
        CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 200 + window), 0);
        CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
        CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
        make_file("/keep", 70, 16, 0);
        fd = make_file("/c", 40, 16, 1);
        memset(&f, 0, sizeof f);
        f.powercut_after = window;
        sim_set_faults(&T.dev, &f);
        rc = steadyfs_unlink(&T.fs, "/c");
        for (k = 0; k < 8 && rc >= 0; k++) {
            fill(40 + 16 + k);
            rc = steadyfs_write(&T.fs, fd, data, sizeof data);
        }
        if (rc >= 0)
            rc = steadyfs_close(&T.fs, fd);
        for (k = 0; k < 12 && rc >= 0; k++) {
            int l = steadyfs_open(&T.fs, "/keep2", STEADYFS_O_WRONLY | STEADYFS_O_CREAT |
                                                  STEADYFS_O_APPEND | STEADYFS_O_DSYNC);
            rc = l;
            if (l >= 0) {
                rc = steadyfs_write(&T.fs, l, data, 2048);
                if (rc >= 0)
                    rc = steadyfs_close(&T.fs, l);
            }
        }
        if (T.fs.dead) {
            seen++;
            sim_power_restore(&T.dev);
        }
        memset(&f, 0, sizeof f);
        sim_set_faults(&T.dev, &f);
        cut_and_mount("after a cut around an orphan");
        CHECK(counts_ok("after a cut around an orphan"));
        CHECK(file_ok("/keep", 70, 16));
        if (steadyfs_stat_path(&T.fs, "/c", &st) == 0)
            CHECK(file_ok("/c", 40, 16));   /* the unlink did not commit */
        CHECK(steadyfs_gc_step(&T.fs, 64) >= 0);   /* idle time reaps them */
        CHECK_EQ(sfs_orphans(&T.fs), 0u);
        CHECK(counts_ok("orphans reaped after the cut"));
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        fsck_clean("after the cut, unmounted");
        tdev_close(&T);
    }
    CHECK(seen >= 30);
    printf("  %u power cuts around an orphan's life: fsck, counts and data agree\n", seen);
}

int main(void)
{
    open_unlinked();
    rename_over_open_and_rmdir_open();
    orphans_after_a_cut();
    cuts();
    return check_done("test_fs_orphan");
}
