/* Per-inode metadata (format 4): mode, owner, mtime and ctime from the
 * configuration's clock, setattr, directory link counts, symbolic links,
 * and the refusal of an image of the previous format.  A matrix over media
 * (NAND with tags in the spare area, NOR and MRAM with inline tags) and
 * open-table sizes, each on a fresh format, every call under its budget
 * (test build). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "steadyfs/crc32.h"

static tdev T;
#define FS (&T.fs)

/* A deterministic clock: each call is one microsecond later. */
static int64_t now_ns;
static int64_t test_clock(void)
{
    now_ns += 1000;
    return now_ns;
}

static void remount(void)
{
    CHECK_EQ(steadyfs_unmount(FS), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
}

static void st_of(const char *path, steadyfs_stat *st)
{
    memset(st, 0xA5, sizeof *st);
    CHECK_EQ(steadyfs_stat_path(FS, path, st), 0);
}

static void test_create_attrs(void)
{
    steadyfs_stat st;
    steadyfs_attr a = {STEADYFS_ATTR_MODE | STEADYFS_ATTR_UID | STEADYFS_ATTR_GID, 0640, 1000,
                       100, 0};
    int64_t t0;
    int fd;
    st_of("/", &st);
    CHECK_EQ(st.type, STEADYFS_TYPE_DIR);
    CHECK_EQ(st.mode, 0755);
    CHECK_EQ(st.nlink, 2);
    CHECK(st.mtime > 0 && st.mtime == st.ctime);
    /* defaults */
    fd = steadyfs_open(FS, "/plain", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    t0 = now_ns;
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    st_of("/plain", &st);
    CHECK_EQ(st.mode, 0644);
    CHECK_EQ(st.uid, 0);
    CHECK_EQ(st.gid, 0);
    CHECK_EQ(st.nlink, 1);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(st.ctime, t0);
    /* given at creation, in the same program */
    fd = steadyfs_open_attr(FS, "/owned", STEADYFS_O_RDWR | STEADYFS_O_CREAT, &a);
    CHECK(fd >= 0);
    t0 = now_ns;
    CHECK_EQ(steadyfs_fstat(FS, fd, &st), 0);
    CHECK_EQ(st.mode, 0640);
    CHECK_EQ(st.uid, 1000);
    CHECK_EQ(st.gid, 100);
    CHECK_EQ(st.mtime, t0);
    /* a write: mtime and ctime are now, seen at once, stored at the commit */
    CHECK_EQ(steadyfs_write(FS, fd, "hello", 5), 5);
    CHECK(now_ns > t0);
    t0 = now_ns;
    CHECK_EQ(steadyfs_fstat(FS, fd, &st), 0);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(st.ctime, t0);
    CHECK_EQ(st.size, 5);
    st_of("/owned", &st);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    a.mode = 0700;
    CHECK_EQ(steadyfs_mkdir_attr(FS, "/d", &a), 0);
    remount();
    st_of("/owned", &st);
    CHECK_EQ(st.mode, 0640);
    CHECK_EQ(st.uid, 1000);
    CHECK_EQ(st.gid, 100);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(st.ctime, t0);
    CHECK_EQ(st.size, 5);
    st_of("/d", &st);
    CHECK_EQ(st.mode, 0700);
    CHECK_EQ(st.uid, 1000);
    CHECK_EQ(st.nlink, 2);
    /* bad masks and modes */
    a.mask = 0x100;
    CHECK_EQ(steadyfs_setattr(FS, "/owned", &a), STEADYFS_EINVAL);
    a.mask = STEADYFS_ATTR_MODE;
    a.mode = 010000;
    CHECK_EQ(steadyfs_setattr(FS, "/owned", &a), STEADYFS_EINVAL);
    CHECK_EQ(steadyfs_setattr(FS, "/owned", NULL), STEADYFS_EINVAL);
    a.mode = 0600;
    CHECK_EQ(steadyfs_setattr(FS, "/nope", &a), STEADYFS_ENOENT);
    CHECK_EQ(steadyfs_setattr(FS, "/owned/x", &a), STEADYFS_ENOTDIR);
}

static void test_setattr(void)
{
    steadyfs_stat st;
    steadyfs_attr a;
    int64_t t0;
    int fd;
    static uint8_t buf[5000];
    fd = steadyfs_open(FS, "/s", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(FS, fd, buf, sizeof buf), (int32_t)sizeof buf);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    memset(&a, 0, sizeof a);
    a.mask = STEADYFS_ATTR_MODE;
    a.mode = 04751;
    CHECK_EQ(steadyfs_setattr(FS, "/s", &a), 0);
    t0 = now_ns;
    st_of("/s", &st);
    CHECK_EQ(st.mode, 04751);
    CHECK_EQ(st.ctime, t0);
    CHECK(st.mtime < t0);
    CHECK_EQ(st.size, sizeof buf);
    a.mask = STEADYFS_ATTR_UID | STEADYFS_ATTR_GID | STEADYFS_ATTR_MTIME;
    a.uid = 4242;
    a.gid = 77;
    a.mtime = -1234567890123LL;   /* before the epoch: kept as given */
    CHECK_EQ(steadyfs_setattr(FS, "/s", &a), 0);
    a.mask = STEADYFS_ATTR_MODE;
    a.mode = 0600;
    CHECK_EQ(steadyfs_setattr(FS, "/d", &a), 0);
    remount();
    st_of("/s", &st);
    CHECK_EQ(st.mode, 04751);
    CHECK_EQ(st.uid, 4242);
    CHECK_EQ(st.gid, 77);
    CHECK_EQ(st.mtime, -1234567890123LL);
    CHECK_EQ(st.size, sizeof buf);
    st_of("/d", &st);
    CHECK_EQ(st.mode, 0600);
    a.mask = STEADYFS_ATTR_MTIME_NOW;
    CHECK_EQ(steadyfs_setattr(FS, "/s", &a), 0);
    st_of("/s", &st);
    CHECK_EQ(st.mtime, now_ns);
    CHECK_EQ(st.ctime, now_ns);

    /* what cp -a does: write, set the times, close: the close keeps them,
     * and the data and size are the file's */
    fd = steadyfs_open(FS, "/cp", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(FS, fd, buf, 3000), 3000);
    a.mask = STEADYFS_ATTR_MTIME | STEADYFS_ATTR_MODE;
    a.mtime = 1500000000123456789LL;
    a.mode = 0444;
    CHECK_EQ(steadyfs_setattr(FS, "/cp", &a), 0);
    CHECK_EQ(steadyfs_fstat(FS, fd, &st), 0);
    CHECK_EQ(st.mtime, 1500000000123456789LL);
    CHECK_EQ(st.size, 3000);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    remount();
    st_of("/cp", &st);
    CHECK_EQ(st.mtime, 1500000000123456789LL);
    CHECK_EQ(st.mode, 0444);
    CHECK_EQ(st.size, 3000);
    /* a write after the setattr: now again */
    fd = steadyfs_open(FS, "/cp", STEADYFS_O_WRONLY);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(FS, fd, buf, 10), 10);
    t0 = now_ns;
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    st_of("/cp", &st);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(st.ctime, t0);
    CHECK_EQ(st.mode, 0444);   /* the commit kept mode and owner */
    /* truncate sets the times, shrinking and growing */
    fd = steadyfs_open(FS, "/cp", STEADYFS_O_WRONLY);
    CHECK_EQ(steadyfs_truncate(FS, fd, 100), 0);
    t0 = now_ns;
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    remount();
    st_of("/cp", &st);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(st.size, 100);
}

/* O_DSYNC: the size rides in the data sector's tag, a sync stays free,
 * the close stores the times in one inode program. */
static void test_dsync_times(void)
{
    static uint8_t buf[4096];
    steadyfs_stat st;
    uint64_t p0;
    int64_t t0;
    int fd = steadyfs_open(FS, "/log", STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(FS, fd, buf, sizeof buf), (int32_t)sizeof buf);
    t0 = now_ns;
    p0 = T.dev.stats.progs;
    CHECK_EQ(steadyfs_sync(FS, fd), 0);
    CHECK_EQ(T.dev.stats.progs, p0);
    st_of("/log", &st);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    CHECK(T.dev.stats.progs > p0);
    remount();
    st_of("/log", &st);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(st.size, sizeof buf);
}

/* O_NOMTIME (a logger's choice): writes leave the times, so an O_DSYNC
 * file's close has nothing to store. */
static void test_nomtime(void)
{
    static uint8_t buf[4096];
    steadyfs_stat st;
    uint64_t p0;
    int64_t t0;
    int fd = steadyfs_open(FS, "/nm", STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC |
                                          STEADYFS_O_NOMTIME);
    CHECK(fd >= 0);
    t0 = now_ns;   /* the create's time */
    CHECK_EQ(steadyfs_write(FS, fd, buf, sizeof buf), (int32_t)sizeof buf);
    CHECK_EQ(steadyfs_write(FS, fd, buf, sizeof buf), (int32_t)sizeof buf);
    CHECK_EQ(now_ns, t0);   /* no clock reading */
    p0 = T.dev.stats.progs;
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    CHECK_EQ(T.dev.stats.progs, p0);
    remount();
    st_of("/nm", &st);
    CHECK_EQ(st.mtime, t0);
    CHECK_EQ(st.size, 2 * sizeof buf);
    /* a truncate still sets them */
    fd = steadyfs_open(FS, "/nm", STEADYFS_O_WRONLY | STEADYFS_O_NOMTIME);
    CHECK_EQ(steadyfs_truncate(FS, fd, 10), 0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    st_of("/nm", &st);
    CHECK(st.mtime > t0);
}

static void test_nlink(void)
{
    steadyfs_stat st;
    int fd;
    uint32_t root;
    st_of("/", &st);
    root = st.nlink;
    CHECK_EQ(steadyfs_mkdir(FS, "/n"), 0);
    CHECK_EQ(steadyfs_mkdir(FS, "/n/a"), 0);
    CHECK_EQ(steadyfs_mkdir(FS, "/n/b"), 0);
    CHECK_EQ(steadyfs_mkdir(FS, "/n/a/deep"), 0);
    fd = steadyfs_open(FS, "/n/f", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    CHECK_EQ(steadyfs_symlink(FS, "a", "/n/l", NULL), 0);
    st_of("/", &st);
    CHECK_EQ(st.nlink, root + 1);
    st_of("/n", &st);
    CHECK_EQ(st.nlink, 4);
    st_of("/n/a", &st);
    CHECK_EQ(st.nlink, 3);
    CHECK_EQ(steadyfs_rmdir(FS, "/n/b"), 0);
    st_of("/n", &st);
    CHECK_EQ(st.nlink, 3);
    CHECK_EQ(steadyfs_rename(FS, "/n/a", "/a2"), 0);
    st_of("/n", &st);
    CHECK_EQ(st.nlink, 2);
    st_of("/", &st);
    CHECK_EQ(st.nlink, root + 2);
    st_of("/n/f", &st);
    CHECK_EQ(st.nlink, 1);
}

/* A directory's mtime and ctime follow its entries (format 20: the time
 * is in the bucket each create, unlink, rename and rmdir programs anyway,
 * dir.c), across a remount; a setattr after them wins until the next
 * change (cp -a sets the times it copied after a directory's entries). */
static void dir_changed_in(const char *dir, int64_t before, int64_t after)
{
    steadyfs_stat st;
    st_of(dir, &st);
    CHECK(st.mtime > before && st.mtime <= after);
    CHECK_EQ(st.ctime, st.mtime);
}

static void test_dir_times(void)
{
    steadyfs_stat st, root0, st2;
    steadyfs_attr a = {STEADYFS_ATTR_MTIME, 0, 0, 0, 1500000000123456789LL};
    int64_t t0;
    int fd;
    st_of("/", &root0);
    CHECK_EQ(steadyfs_mkdir(FS, "/t"), 0);
    CHECK_EQ(steadyfs_mkdir(FS, "/u"), 0);
    st_of("/t", &st);
    CHECK_EQ(st.mtime, st.ctime);
    /* create */
    t0 = now_ns;
    fd = steadyfs_open(FS, "/t/x", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    dir_changed_in("/t", t0, now_ns);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    /* a write to a file in it is not an entry change */
    st_of("/t", &st);
    fd = steadyfs_open(FS, "/t/x", STEADYFS_O_WRONLY);
    CHECK_EQ(steadyfs_write(FS, fd, "abc", 3), 3);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    st_of("/t", &st2);
    CHECK_EQ(st2.mtime, st.mtime);
    /* rename within, then across: both directories change */
    t0 = now_ns;
    CHECK_EQ(steadyfs_rename(FS, "/t/x", "/t/y"), 0);
    dir_changed_in("/t", t0, now_ns);
    t0 = now_ns;
    CHECK_EQ(steadyfs_rename(FS, "/t/y", "/u/y"), 0);
    dir_changed_in("/t", t0, now_ns);
    dir_changed_in("/u", t0, now_ns);
    /* unlink, mkdir, rmdir */
    t0 = now_ns;
    CHECK_EQ(steadyfs_unlink(FS, "/u/y"), 0);
    dir_changed_in("/u", t0, now_ns);
    t0 = now_ns;
    CHECK_EQ(steadyfs_mkdir(FS, "/t/sub"), 0);
    dir_changed_in("/t", t0, now_ns);
    t0 = now_ns;
    CHECK_EQ(steadyfs_rmdir(FS, "/t/sub"), 0);
    dir_changed_in("/t", t0, now_ns);
    /* the root changed only by /t and /u coming */
    st_of("/", &st);
    CHECK(st.mtime > root0.mtime);
    /* kept across a remount */
    st_of("/t", &st);
    remount();
    st_of("/t", &st2);
    CHECK_EQ(st2.mtime, st.mtime);
    CHECK_EQ(st2.ctime, st.ctime);
    /* a setattr after the last change wins, remounted too ... */
    t0 = now_ns;
    CHECK_EQ(steadyfs_setattr(FS, "/t", &a), 0);
    st_of("/t", &st);
    CHECK_EQ(st.mtime, a.mtime);
    CHECK(st.ctime > t0);
    remount();
    st_of("/t", &st2);
    CHECK_EQ(st2.mtime, a.mtime);
    CHECK_EQ(st2.ctime, st.ctime);
    /* ... until the next entry change */
    t0 = now_ns;
    fd = steadyfs_open(FS, "/t/z", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    dir_changed_in("/t", t0, now_ns);
    CHECK_EQ(steadyfs_unlink(FS, "/t/z"), 0);
    CHECK_EQ(steadyfs_rmdir(FS, "/t"), 0);
    CHECK_EQ(steadyfs_rmdir(FS, "/u"), 0);
}

static void test_symlink(void)
{
    static char target[5000], back[5000];
    steadyfs_stat st;
    steadyfs_dirent e;
    steadyfs_attr a = {STEADYFS_ATTR_UID | STEADYFS_ATTR_GID, 0, 7, 8, 0};
    uint32_t max = steadyfs_symlink_max(FS), found = 0;
    int dd, fd;
    CHECK(max >= 416);
    CHECK_EQ(steadyfs_mkdir(FS, "/ln"), 0);
    CHECK_EQ(steadyfs_symlink(FS, "../some/where", "/ln/rel", &a), 0);
    CHECK_EQ(steadyfs_readlink(FS, "/ln/rel", back, sizeof back), 13);
    CHECK(!memcmp(back, "../some/where", 13));
    st_of("/ln/rel", &st);
    CHECK_EQ(st.type, STEADYFS_TYPE_SYMLINK);
    CHECK_EQ(st.size, 13);
    CHECK_EQ(st.mode, 0777);
    CHECK_EQ(st.uid, 7);
    CHECK_EQ(st.gid, 8);
    CHECK_EQ(st.nlink, 1);
    /* never followed */
    CHECK_EQ(steadyfs_open(FS, "/ln/rel", STEADYFS_O_RDONLY), STEADYFS_ELOOP);
    CHECK_EQ(steadyfs_open(FS, "/ln/rel", STEADYFS_O_RDONLY | STEADYFS_O_CREAT), STEADYFS_ELOOP);
    CHECK_EQ(steadyfs_open(FS, "/ln/rel", STEADYFS_O_CREAT | STEADYFS_O_EXCL | STEADYFS_O_WRONLY),
             STEADYFS_EEXIST);
    CHECK_EQ(steadyfs_stat_path(FS, "/ln/rel/x", &st), STEADYFS_ENOTDIR);
    CHECK_EQ(steadyfs_opendir(FS, "/ln/rel"), STEADYFS_ENOTDIR);
    CHECK_EQ(steadyfs_rmdir(FS, "/ln/rel"), STEADYFS_ENOTDIR);
    CHECK_EQ(steadyfs_symlink(FS, "x", "/ln/rel", NULL), STEADYFS_EEXIST);
    CHECK_EQ(steadyfs_mkdir(FS, "/ln/rel"), STEADYFS_EEXIST);
    /* limits */
    memset(target, 'x', sizeof target);
    target[max] = 0;
    CHECK_EQ(steadyfs_symlink(FS, target, "/ln/max", NULL), 0);
    target[max] = 'x';
    target[max + 1] = 0;
    CHECK_EQ(steadyfs_symlink(FS, target, "/ln/over", NULL), STEADYFS_ENAMETOOLONG);
    CHECK_EQ(steadyfs_symlink(FS, "", "/ln/empty", NULL), STEADYFS_ENOENT);
    CHECK_EQ(steadyfs_symlink(FS, NULL, "/ln/null", NULL), STEADYFS_EINVAL);
    CHECK_EQ(steadyfs_symlink(FS, "t", "/", NULL), STEADYFS_EEXIST);
    CHECK_EQ(steadyfs_symlink(FS, "t", "/ln/..", NULL), STEADYFS_EEXIST);
    CHECK_EQ(steadyfs_symlink(FS, "t", "/nodir/l", NULL), STEADYFS_ENOENT);
    CHECK_EQ(steadyfs_readlink(FS, "/ln/max", back, max), (int32_t)max);
    CHECK_EQ(steadyfs_readlink(FS, "/ln/max", back, max - 1), STEADYFS_ENAMETOOLONG);
    CHECK_EQ(steadyfs_readlink(FS, "/ln", back, sizeof back), STEADYFS_EINVAL);
    CHECK_EQ(steadyfs_readlink(FS, "/ln/none", back, sizeof back), STEADYFS_ENOENT);
    fd = steadyfs_open(FS, "/ln/file", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    CHECK_EQ(steadyfs_readlink(FS, "/ln/file", back, sizeof back), STEADYFS_EINVAL);
    /* setattr keeps the target; rename moves it, over a file too */
    a.mask = STEADYFS_ATTR_MTIME;
    a.mtime = 42;
    CHECK_EQ(steadyfs_setattr(FS, "/ln/max", &a), 0);
    CHECK_EQ(steadyfs_rename(FS, "/ln/max", "/ln/file"), 0);
    remount();
    CHECK_EQ(steadyfs_readlink(FS, "/ln/file", back, sizeof back), (int32_t)max);
    CHECK(!memcmp(back, target, max));
    st_of("/ln/file", &st);
    CHECK_EQ(st.mtime, 42);
    CHECK_EQ(st.type, STEADYFS_TYPE_SYMLINK);
    dd = steadyfs_opendir(FS, "/ln");
    CHECK(dd >= 0);
    while (steadyfs_readdir(FS, dd, &e) == 1)
        if (e.type == STEADYFS_TYPE_SYMLINK)
            found++;
    CHECK_EQ(steadyfs_closedir(FS, dd), 0);
    CHECK_EQ(found, 2);
    CHECK_EQ(steadyfs_unlink(FS, "/ln/rel"), 0);
    CHECK_EQ(steadyfs_unlink(FS, "/ln/file"), 0);
    CHECK_EQ(steadyfs_rmdir(FS, "/ln"), 0);
}

/* Without a clock every time the file system sets is 0; given ones stay. */
static void test_no_clock(void)
{
    steadyfs_stat st;
    steadyfs_attr a = {STEADYFS_ATTR_MTIME, 0, 0, 0, 99};
    int fd;
    remount();
    CHECK_EQ(steadyfs_unmount(FS), 0);
    T.cfg.clock = NULL;
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    fd = steadyfs_open(FS, "/nc", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_write(FS, fd, "x", 1), 1);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    st_of("/nc", &st);
    CHECK_EQ(st.mtime, 0);
    CHECK_EQ(st.ctime, 0);
    CHECK_EQ(steadyfs_setattr(FS, "/nc", &a), 0);
    st_of("/nc", &st);
    CHECK_EQ(st.mtime, 99);
    CHECK_EQ(st.ctime, 0);
    CHECK_EQ(steadyfs_unlink(FS, "/nc"), 0);
    T.cfg.clock = test_clock;
}

static void say(void *ctx, const char *msg)
{
    (void)ctx;
    printf("  fsck: %s\n", msg);
}

static uint64_t fsck_clean(void)
{
    static uint8_t fw[1 << 20];
    steadyfs_fsck_report rep;
    int rc;
    CHECK(steadyfs_fsck_work_size(&T.cfg) <= sizeof fw);
    CHECK_EQ(steadyfs_unmount(FS), 0);
    rc = steadyfs_fsck(FS, &T.cfg, fw, sizeof fw, say, NULL, &rep);
    CHECK_EQ(rc, 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    return rep.files;
}

/* Bytes of one sector in the image (stored XOR k: the flash models store
 * data inverted, so that zero is erased): main bytes, then the tag. */
/* Sector bytes at main-area byte mo of the image's data (pages of psz main
 * bytes, each followed by its spare in a page stride): the sector and its
 * tag where that is in the main area (inline, beside: n = its stride), or
 * the sector and the first page's spare tag (spare mode). */
static void sector_io(uint8_t *data, uint64_t mo, uint32_t stride, uint32_t psz, uint32_t ss,
                      uint32_t n, int inl, uint8_t *buf, uint8_t k, int put)
{
    uint32_t i;
    for (i = 0; i < (inl ? n : ss + 32u); i++) {
        uint64_t b = mo + (i < n ? i : 0);
        uint8_t *at = inl || i < ss ? data + b / psz * stride + b % psz : data + mo / psz * stride + psz + (i - ss);
        if (put)
            *at = (uint8_t)(buf[i] ^ k);
        else
            buf[i] = (uint8_t)(*at ^ k);
    }
}

static void put32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

/* An image of format 3 (its checkpoints say version 3): refused. */
static void test_old_format(void)
{
    static uint8_t sec[8192 + 32];
    const sbd_geometry *g = &T.dev.bd.geo;
    uint64_t pages = (uint64_t)g->block_count * g->pages_per_block, i, n = 0;
    uint32_t stride = g->page_size + g->spare_size, ss = T.fs.geo.sector_size;
    uint32_t payload = T.fs.geo.payload, P = T.fs.geo.P;
    uint32_t sstride = payload + (T.fs.geo.tag_inline ? 32u : 0u);   /* SPEC §1 */
    uint64_t unit = (uint64_t)T.fs.geo.dev_per_block * g->page_size * g->pages_per_block;
    int inl = (int)T.fs.geo.tag_inline, k;
    const uint8_t *h = T.image;   /* data_off: u64 at 88 (SIM-IMAGE.md) */
    uint64_t off = (uint64_t)h[88] | (uint64_t)h[89] << 8 | (uint64_t)h[90] << 16 |
                   (uint64_t)h[91] << 24 | (uint64_t)h[92] << 32;
    uint8_t *data = (uint8_t *)T.image + off;
    steadyfs_config c = T.cfg;
    CHECK_EQ(steadyfs_unmount(FS), 0);
    /* every checkpoint sector (this format): version 3, its payload and
     * tag CRCs redone */
    for (i = 0; i < pages / ((uint64_t)T.fs.geo.dev_per_block * g->pages_per_block) * P; i++) {
        uint64_t mo = i / P * unit + i % P * sstride;
        uint8_t *tag = sec + payload;
        for (k = 0; k < 2; k++) {
            uint8_t key = k ? 0x00 : 0xFF;
            sector_io(data, mo, stride, g->page_size, ss, sstride, inl, sec, key, 0);
            if (memcmp(sec, "SFC1", 4) || sec[4] != STEADYFS_FORMAT_VERSION || sec[5] || sec[6] ||
                sec[7] || tag[0] != 4)
                continue;
            sec[4] = 3;
            put32le(tag + 24, steady_crc32(0, sec, payload));
            put32le(tag + 28, steady_crc32(0, tag, 28));
            sector_io(data, mo, stride, g->page_size, ss, sstride, inl, sec, key, 1);
            n++;
        }
    }
    CHECK(n > 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), STEADYFS_EFORMAT);
    c.max_inodes = 0;
    CHECK_EQ(steadyfs_probe(FS, &c), STEADYFS_EFORMAT);
    CHECK(strcmp(steadyfs_strerror(STEADYFS_EFORMAT), "unknown") != 0);
}

struct conf {
    const char *profile;
    uint32_t blocks;
    uint16_t open_max;
};

int main(void)
{
    static const struct conf confs[] = {
        {"mt29f1g01", 64, 4}, {"mt29f1g01", 64, 1}, {"mt25q128", 512, 4}, {"em064lx", 32, 2},
    };
    uint32_t k;
    for (k = 0; k < sizeof confs / sizeof confs[0]; k++) {
        uint32_t ws;
        printf("test_fs_meta: %s, %u blocks, open_max %u\n", confs[k].profile, confs[k].blocks,
               confs[k].open_max);
        CHECK_EQ(tdev_open(&T, confs[k].profile, confs[k].blocks, 1), 0);
        T.cfg.open_max = confs[k].open_max;
        ws = steadyfs_work_size(&T.cfg);
        CHECK(ws > 0 && ws <= T.cfg.work_size);
        T.cfg.clock = test_clock;
        now_ns = 1700000000000000000LL;
        CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
        CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
        test_create_attrs();
        test_setattr();
        test_dsync_times();
        test_nomtime();
        test_nlink();
        test_dir_times();
        test_symlink();
        test_no_clock();
        CHECK(fsck_clean() > 0);
        test_old_format();
        tdev_close(&T);
    }
    return check_done("test_fs_meta");
}
