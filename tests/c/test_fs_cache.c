/* The read savers (src/fs/cache.c): a namespace call reads no sector twice
 * and does not re-read what the last path lookup found, and nothing they
 * hold survives a change that makes it wrong (renamed, removed, recreated
 * directories; rotating logs under garbage collection, across remounts). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_testdev.h"

static tdev T;
#define FS (&T.fs)

/* full-sector reads and programs of the current call, in order */
static uint32_t rd_blk[256], rd_off[256], nrd;
static uint8_t rd_prog[256];

static void trace(void *arg, enum sim_op op, uint32_t block, uint32_t off, uint32_t len,
                  uint64_t start_ns, uint64_t dur_ns, int rc)
{
    (void)arg; (void)start_ns; (void)dur_ns; (void)rc;
    if (((op == SIM_OP_READ && len >= 2048) || op == SIM_OP_PROG) && nrd < 256) {
        rd_blk[nrd] = block;
        rd_off[nrd] = off;
        rd_prog[nrd] = op == SIM_OP_PROG;
        nrd++;
    }
}

/* A sector read right after it was read or programmed from the buffer
 * (nothing else used the buffer in between). */
static int repeats(void)
{
    uint32_t i;
    for (i = 0; i + 1 < nrd; i++)
        if (!rd_prog[i + 1] && rd_blk[i] == rd_blk[i + 1] && rd_off[i] == rd_off[i + 1])
            return 1;
    return 0;
}

static int was_read(uint32_t b, uint32_t o)
{
    uint32_t i;
    for (i = 0; i < nrd; i++)
        if (!rd_prog[i] && rd_blk[i] == b && rd_off[i] == o)
            return 1;
    return 0;
}

static void put(const char *path, uint32_t len, uint32_t seed)
{
    static uint8_t b[4096];
    uint32_t i, n;
    int fd = steadyfs_open(FS, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
    CHECK(fd >= 0);
    for (i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)(seed * 29u + i);
    for (; len && fd >= 0; len -= n) {
        n = len < sizeof b ? len : (uint32_t)sizeof b;
        if (steadyfs_write(FS, fd, b, n) != (int32_t)n) {
            CHECK(!"write");
            break;
        }
    }
    CHECK_EQ(steadyfs_close(FS, fd), 0);
}

static int same(const char *path, uint32_t len, uint32_t seed)
{
    static uint8_t b[4096];
    uint32_t i, got = 0;
    int32_t n;
    int fd = steadyfs_open(FS, path, STEADYFS_O_RDONLY), ok = fd >= 0;
    while (ok && (n = steadyfs_read(FS, fd, b, sizeof b)) > 0) {
        for (i = 0; i < (uint32_t)n; i++)
            ok &= b[i] == (uint8_t)(seed * 29u + (got + i) % 4096u);
        got += (uint32_t)n;
    }
    if (fd >= 0)
        steadyfs_close(FS, fd);
    return ok && got == len;
}

/* The log rotation: unlink does not read the /log bucket again to edit it
 * and open does not read back the inode create just wrote (no sector read
 * right after it was read or written, unless the buffer served something
 * else in between), and neither reads the root bucket or /log's inode (the
 * sectors stat("/log") read). */
/* Where sector ppn is on the device: (block, byte offset) as traced. */
static void dev_pos(uint32_t ppn, uint32_t *b, uint32_t *o)
{
    *b = ppn / T.fs.geo.P;
    *o = ppn % T.fs.geo.P * T.fs.geo.sector_size;
}

/* The sectors of the root bucket holding "log" and of /log's inode, as
 * the map says now (collection moves them). */
static uint32_t where_root(uint32_t log_ino, uint32_t *sb, uint32_t *so)
{
    uint32_t d = sfs_name_hash("log", 3) % T.fs.cfg.dir_pages, ppn, n = 0;
    if (sfs_lookup(FS, sfs_shared_lpn(FS, 1, 1 + d), 0, &ppn) == 0 && ppn != SFS_NONE)
        dev_pos(ppn, &sb[n], &so[n]), n++;
    if (sfs_lookup(FS, sfs_shared_lpn(FS, log_ino, 0), 0, &ppn) == 0 && ppn != SFS_NONE)
        dev_pos(ppn, &sb[n], &so[n]), n++;
    return n;
}

static void test_rotation_reads(void)
{
    uint32_t sb[2], so[2], ns, i, k, log_ino;
    char name[32];
    steadyfs_stat st;
    int fd, bad_rep = 0, bad_root = 0;
    CHECK_EQ(steadyfs_mkdir(FS, "/log"), 0);
    for (k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "/log/%06u.log", k);
        put(name, 64 * 1024, k);
    }
    CHECK_EQ(steadyfs_unmount(FS), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_stat_path(FS, "/log", &st), 0);
    log_ino = (uint32_t)st.id;
    T.dev.trace = trace;
    for (k = 3; k < 40; k++) {
        ns = where_root(log_ino, sb, so);
        CHECK_EQ(ns, 2);
        snprintf(name, sizeof name, "/log/%06u.log", k - 3);
        nrd = 0;
        CHECK_EQ(steadyfs_unlink(FS, name), 0);
        bad_rep += repeats();
        for (i = 0; i < ns; i++)
            bad_root += was_read(sb[i], so[i]);
        snprintf(name, sizeof name, "/log/%06u.log", k);
        ns = where_root(log_ino, sb, so);
        nrd = 0;
        fd = steadyfs_open(FS, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        bad_rep += repeats();
        for (i = 0; i < ns; i++)
            bad_root += was_read(sb[i], so[i]);
        CHECK_EQ(steadyfs_close(FS, fd), 0);
        put(name, 64 * 1024, k);
    }
    T.dev.trace = NULL;
    CHECK_EQ(bad_rep, 0);
    CHECK_EQ(bad_root, 0);
    for (k = 37; k < 40; k++) {
        snprintf(name, sizeof name, "/log/%06u.log", k);
        CHECK(same(name, 64 * 1024, k));
    }
    snprintf(name, sizeof name, "/log/%06u.log", 36u);
    CHECK_EQ(steadyfs_stat_path(FS, name, &st), STEADYFS_ENOENT);
}

/* The remembered directory component never outlives its entry. */
static void test_dir_changes(void)
{
    steadyfs_stat st, st2;
    CHECK_EQ(steadyfs_mkdir(FS, "/a"), 0);
    CHECK_EQ(steadyfs_mkdir(FS, "/a/x"), 0);
    CHECK_EQ(steadyfs_stat_path(FS, "/a/x", &st), 0);
    CHECK_EQ(steadyfs_rename(FS, "/a", "/b"), 0);
    CHECK_EQ(steadyfs_stat_path(FS, "/a/x", &st2), STEADYFS_ENOENT);
    CHECK_EQ(steadyfs_stat_path(FS, "/b/x", &st2), 0);
    CHECK_EQ(st.id, st2.id);
    /* removed and made again: a new inode under the same name */
    CHECK_EQ(steadyfs_rmdir(FS, "/b/x"), 0);
    CHECK_EQ(steadyfs_stat_path(FS, "/b/x", &st2), STEADYFS_ENOENT);
    CHECK_EQ(steadyfs_rmdir(FS, "/b"), 0);
    CHECK_EQ(steadyfs_open(FS, "/b/f", STEADYFS_O_WRONLY | STEADYFS_O_CREAT), STEADYFS_ENOENT);
    CHECK_EQ(steadyfs_mkdir(FS, "/b"), 0);
    put("/b/f", 100, 7);
    CHECK(same("/b/f", 100, 7));
    /* a file renamed over a directory's old name, then a directory again */
    CHECK_EQ(steadyfs_rename(FS, "/b", "/c"), 0);
    put("/b", 10, 8);
    CHECK_EQ(steadyfs_open(FS, "/b/f", STEADYFS_O_RDONLY), STEADYFS_ENOTDIR);
    CHECK(same("/c/f", 100, 7));
    /* names longer than the remembered 14 bytes work the same */
    CHECK_EQ(steadyfs_mkdir(FS, "/a-long-directory-name"), 0);
    put("/a-long-directory-name/f", 50, 9);
    CHECK_EQ(steadyfs_rename(FS, "/a-long-directory-name", "/a-long-directory-nam2"), 0);
    CHECK_EQ(steadyfs_stat_path(FS, "/a-long-directory-name/f", &st), STEADYFS_ENOENT);
    CHECK(same("/a-long-directory-nam2/f", 50, 9));
    CHECK_EQ(steadyfs_unmount(FS), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    CHECK(same("/c/f", 100, 7));
    CHECK(same("/b", 10, 8));
    CHECK(same("/a-long-directory-nam2/f", 50, 9));
}

/* Rotating logs on a small device: collection moves buckets, inodes and
 * map sectors between the lookups and edits of every call. */
static void test_rotation_under_gc(void)
{
    char name[32];
    steadyfs_dirent e;
    uint32_t k, n, i, victims = 0;
    int dd;
    CHECK_EQ(steadyfs_mkdir(FS, "/r"), 0);
    put("/static.bin", 300 * 1024, 99);
    for (k = 0; k < 150; k++) {
        if (k >= 3) {
            snprintf(name, sizeof name, "/r/%06u.log", k - 3);
            CHECK_EQ(steadyfs_unlink(FS, name), 0);
        }
        snprintf(name, sizeof name, "/r/%06u.log", k);
        put(name, 96 * 1024 + k * 64, k);
        if (k % 37 == 36) {
            victims += T.fs.stats.victim;   /* statistics restart at mount */
            CHECK_EQ(steadyfs_unmount(FS), 0);
            CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
        }
    }
    dd = steadyfs_opendir(FS, "/r");
    CHECK(dd >= 0);
    for (n = 0; steadyfs_readdir(FS, dd, &e) == 1; n++)
        CHECK(sscanf(e.name, "%06u.log", &i) == 1 && i >= 147 && i < 150);
    CHECK_EQ(n, 3);
    steadyfs_closedir(FS, dd);
    for (k = 147; k < 150; k++) {
        snprintf(name, sizeof name, "/r/%06u.log", k);
        CHECK(same(name, 96 * 1024 + k * 64, k));
    }
    CHECK(same("/static.bin", 300 * 1024, 99));
    CHECK(victims + T.fs.stats.victim > 0);   /* collection did run */
}

int main(void)
{
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 1), 0);
    CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    test_rotation_reads();
    test_dir_changes();
    CHECK_EQ(steadyfs_unmount(FS), 0);
    tdev_close(&T);
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 32, 2), 0);
    CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    test_rotation_under_gc();
    CHECK_EQ(steadyfs_unmount(FS), 0);
    tdev_close(&T);
    return check_done("test_fs_cache");
}
