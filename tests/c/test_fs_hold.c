/* The held sector (cfg.hold_buf, steadyfs.h "Durability"): a write keeps
 * its last sector in RAM and the sync after it programs that sector with
 * the commit in its tag.  Checked: a 4 KiB write + sync at a sector
 * boundary is two programs and no inode sector; small writes into the held
 * sector program nothing; reads see it; a cut loses it and nothing older;
 * a write elsewhere, a truncate and a close program it as the file's; a
 * logger's stream of held records meets an erase beside its housekeeping
 * no more often than the same stream as O_DSYNC writes; and
 * a random differential run on NAND, NOR and MRAM against a model of the
 * files, with cuts (remount without close) between calls. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"

static tdev T;
static uint8_t hold[4096];
#define FS (&T.fs)

static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

static void setup(const char *profile, uint32_t blocks)
{
    CHECK_EQ(tdev_open(&T, profile, blocks, 1), 0);
    T.cfg.hold_buf = hold;
    CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
}

/* a cut between calls: the context is dropped, the device mounted again */
static void cut(void)
{
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
}

static void read_back(const char *path, const uint8_t *want, uint32_t n)
{
    static uint8_t b[200000];
    int fd = steadyfs_open(FS, path, STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_size(FS, fd), (int64_t)n);
    CHECK_EQ(steadyfs_read(FS, fd, b, sizeof b), (int32_t)n);
    CHECK(!memcmp(b, want, n));
    CHECK_EQ(steadyfs_close(FS, fd), 0);
}

/* 4 KiB records at sector boundaries, write + sync: two data sectors, no
 * inode sector, in the records where nothing else falls due; a cut with
 * no close keeps every synced record. */
static void test_records(void)
{
    static uint8_t a[4096], all[40 * 4096];
    uint32_t i, two = 0, inode_free = 0, held = 0;
    int fd = steadyfs_open(FS, "/rec", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    for (i = 0; i < 40; i++) {
        uint64_t p0 = T.dev.stats.progs;
        uint32_t d0 = FS->stats.data;
        fill(a, sizeof a, i);
        memcpy(all + i * 4096u, a, sizeof a);
        CHECK_EQ(steadyfs_write(FS, fd, a, sizeof a), (int32_t)sizeof a);
        held += FS->hold.ino != 0;   /* the second sector waits */
        CHECK_EQ(steadyfs_sync(FS, fd), 0);
        CHECK_EQ(FS->hold.ino, 0);
        two += T.dev.stats.progs - p0 == 2;
        inode_free += FS->stats.data - d0 == 2;
    }
    printf("hold: %u of 40 records held a sector, %u took two programs, %u two file-data sectors\n",
           held, two, inode_free);
    CHECK_EQ(held, 40);
    /* checkpoints and merges fall in some records */
    CHECK(two >= 30);
    CHECK(inode_free >= 38);
    cut();
    read_back("/rec", all, sizeof all);
}

/* Small appends into one sector program nothing until it is left or
 * synced; reads see them; a cut before the sync loses them and keeps the
 * last commit. */
static void test_small_writes(void)
{
    static uint8_t a[6000];
    uint32_t i, d0;
    int fd = steadyfs_open(FS, "/small", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    fill(a, sizeof a, 77);
    CHECK_EQ(steadyfs_write(FS, fd, a, 100), 100);
    CHECK_EQ(steadyfs_sync(FS, fd), 0);
    d0 = FS->stats.data;
    {
        uint64_t p0 = T.dev.stats.progs, e0 = T.dev.stats.erases;
        for (i = 1; i < 16; i++)
            CHECK_EQ(steadyfs_write(FS, fd, a + i * 100u, 100), 100);
        printf("hold: 15 appends of 100 bytes: %llu device programs, %llu erases\n",
               (unsigned long long)(T.dev.stats.progs - p0), (unsigned long long)(T.dev.stats.erases - e0));
    }
    CHECK_EQ(FS->stats.data, d0);   /* all in the held sector */
    {
        uint8_t b[1600];
        CHECK_EQ(steadyfs_seek(FS, fd, 0, STEADYFS_SEEK_SET), 0);
        CHECK_EQ(steadyfs_read(FS, fd, b, sizeof b), 1600);
        CHECK(!memcmp(a, b, sizeof b));
    }
    cut();   /* unsynced: back to the 100 bytes synced */
    read_back("/small", a, 100);
    fd = steadyfs_open(FS, "/small", STEADYFS_O_RDWR | STEADYFS_O_APPEND);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(FS, fd, a + 100, 5900), 5900);
    CHECK_EQ(steadyfs_sync(FS, fd), 0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    cut();
    read_back("/small", a, 6000);
}

/* Two files: a write to one programs the other's held sector into that
 * file's transaction, which its own sync then commits (and a cut before
 * that sync drops). */
static void test_two_files(void)
{
    static uint8_t a[5000], b[5000];
    int fa = steadyfs_open(FS, "/fa", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    int fb = steadyfs_open(FS, "/fb", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fa >= 0 && fb >= 0);
    fill(a, sizeof a, 3);
    fill(b, sizeof b, 4);
    CHECK_EQ(steadyfs_write(FS, fa, a, 3000), 3000);
    CHECK_EQ(steadyfs_write(FS, fb, b, 3000), 3000);   /* fa's held sector programmed */
    CHECK_EQ(steadyfs_sync(FS, fa), 0);
    CHECK_EQ(steadyfs_write(FS, fa, a + 3000, 2000), 2000);   /* fb's programmed, not committed */
    cut();
    read_back("/fa", a, 3000);
    read_back("/fb", b, 0);
    fa = steadyfs_open(FS, "/fa", STEADYFS_O_RDWR);
    fb = steadyfs_open(FS, "/fb", STEADYFS_O_RDWR);
    CHECK(fa >= 0 && fb >= 0);
    CHECK_EQ(steadyfs_write(FS, fb, b, 5000), 5000);
    CHECK_EQ(steadyfs_seek(FS, fa, 0, STEADYFS_SEEK_END), 3000);
    CHECK_EQ(steadyfs_write(FS, fa, a + 3000, 2000), 2000);
    CHECK_EQ(steadyfs_close(FS, fb), 0);   /* its sectors, programmed, commit */
    CHECK_EQ(steadyfs_close(FS, fa), 0);   /* held: programmed by the close */
    cut();
    read_back("/fa", a, 5000);
    read_back("/fb", b, 5000);
}

/* A truncate below, into and past the held sector. */
static void test_truncate(void)
{
    static uint8_t a[8192], want[8192];
    int fd = steadyfs_open(FS, "/tr", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    fill(a, sizeof a, 9);
    CHECK_EQ(steadyfs_write(FS, fd, a, 8192), 8192);   /* page 3 held */
    CHECK_EQ(steadyfs_truncate(FS, fd, 7000), 0);      /* cut in the held page: committed */
    memcpy(want, a, 7000);
    cut();
    read_back("/tr", want, 7000);
    fd = steadyfs_open(FS, "/tr", STEADYFS_O_RDWR);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_seek(FS, fd, 6500, STEADYFS_SEEK_SET), 6500);
    CHECK_EQ(steadyfs_write(FS, fd, a, 100), 100);   /* page 3 held again */
    CHECK_EQ(steadyfs_truncate(FS, fd, 6000), 0);    /* drops it: the page goes */
    CHECK_EQ(steadyfs_seek(FS, fd, 100, STEADYFS_SEEK_SET), 100);
    CHECK_EQ(steadyfs_write(FS, fd, a, 50), 50);     /* page 0 held */
    CHECK_EQ(steadyfs_truncate(FS, fd, 5000), 0);    /* below the cut: programmed, committed */
    memcpy(want + 100, a, 50);
    cut();
    read_back("/tr", want, 5000);
}

/* Random calls on three media against a model: writes at random places
 * and lengths (some through O_DSYNC handles), reads, syncs, truncates,
 * closes and reopens, two files at once; every so often a cut, after which
 * each file must be its last commit or one of the states a write's
 * implicit commit may have committed (the file just before a write since
 * then: steadyfs.h "Durability"; writes here fit a transaction). */
enum { NF = 2, NS = 40, MAXF = 16000 };
static uint8_t cur[NF][MAXF], com[NF][MAXF], snap[NF][NS][MAXF], rbuf[MAXF + 1];
static uint32_t size[NF], csize[NF], ssize[NF][NS], nsnap[NF];

static void committed(uint32_t f)
{
    memcpy(com[f], cur[f], size[f]);
    csize[f] = size[f];
    nsnap[f] = 0;
}

static void test_random(const char *profile, uint32_t blocks, uint64_t seed, uint32_t ops)
{
    uint32_t i, f, cuts = 0, implicit = 0;
    int fd[NF], dsync[NF] = {0};
    char path[NF][8];
    uint64_t r = seed;
    CHECK_EQ(tdev_open(&T, profile, blocks, seed), 0);
    T.cfg.hold_buf = hold;
    T.cfg.open_max = 2;
    {
        uint32_t ws = steadyfs_work_size(&T.cfg);
        CHECK(ws > 0);
        T.cfg.work_size = ws;
    }
    CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    for (f = 0; f < NF; f++) {
        snprintf(path[f], sizeof path[f], "/r%u", f);
        fd[f] = steadyfs_open(FS, path[f], STEADYFS_O_RDWR | STEADYFS_O_CREAT);
        CHECK(fd[f] >= 0);
        size[f] = 0;
        committed(f);
    }
    for (i = 0; i < ops; i++) {
        uint32_t k = tdev_rand(&r, 100), off, n;
        f = tdev_rand(&r, NF);
        if (k < 45) {   /* write */
            uint32_t back = size[f] < 3000 ? size[f] : 3000;
            off = tdev_rand(&r, 3) ? size[f] - tdev_rand(&r, back + 1) : tdev_rand(&r, size[f] + 1);
            n = 1 + tdev_rand(&r, tdev_rand(&r, 4) ? 300 : 3000);
            if (off + n > MAXF)
                continue;
            if (!dsync[f]) {
                if (nsnap[f] == NS) {
                    CHECK_EQ(steadyfs_sync(FS, fd[f]), 0);
                    committed(f);
                }
                memcpy(snap[f][nsnap[f]], cur[f], size[f]);
                ssize[f][nsnap[f]++] = size[f];
            }
            fill(rbuf, n, i);
            CHECK_EQ(steadyfs_seek(FS, fd[f], off, STEADYFS_SEEK_SET), (int64_t)off);
            CHECK_EQ(steadyfs_write(FS, fd[f], rbuf, n), (int32_t)n);
            if (off > size[f])
                memset(cur[f] + size[f], 0, off - size[f]);
            memcpy(cur[f] + off, rbuf, n);
            if (off + n > size[f])
                size[f] = off + n;
            if (dsync[f])
                committed(f);
        } else if (k < 65) {   /* read it all */
            CHECK_EQ(steadyfs_seek(FS, fd[f], 0, STEADYFS_SEEK_SET), 0);
            CHECK_EQ(steadyfs_read(FS, fd[f], rbuf, sizeof rbuf), (int32_t)size[f]);
            CHECK(!memcmp(rbuf, cur[f], size[f]));
        } else if (k < 80) {   /* sync */
            CHECK_EQ(steadyfs_sync(FS, fd[f]), 0);
            committed(f);
        } else if (k < 86) {   /* truncate: a shrink commits, growing does not */
            n = tdev_rand(&r, size[f] + 2000);
            if (n > MAXF)
                continue;
            CHECK_EQ(steadyfs_truncate(FS, fd[f], n), 0);
            if (n > size[f])
                memset(cur[f] + size[f], 0, n - size[f]);
            if (n < size[f] || n < csize[f]) {
                size[f] = n;
                committed(f);
            } else {
                size[f] = n;
            }
        } else if (k < 92) {   /* close and reopen, O_DSYNC or not */
            CHECK_EQ(steadyfs_close(FS, fd[f]), 0);
            committed(f);
            dsync[f] = tdev_rand(&r, 4) == 0;
            fd[f] = steadyfs_open(FS, path[f], STEADYFS_O_RDWR | (dsync[f] ? STEADYFS_O_DSYNC : 0));
            CHECK(fd[f] >= 0);
        } else if (k < 95) {   /* a cut */
            cut();
            cuts++;
            for (f = 0; f < NF; f++) {
                uint32_t got, s;
                fd[f] = steadyfs_open(FS, path[f], STEADYFS_O_RDWR);
                CHECK(fd[f] >= 0);
                got = (uint32_t)steadyfs_read(FS, fd[f], rbuf, sizeof rbuf);
                if (got != csize[f] || memcmp(rbuf, com[f], got)) {
                    for (s = 0; s < nsnap[f]; s++)
                        if (got == ssize[f][s] && !memcmp(rbuf, snap[f][s], got))
                            break;
                    if (s == nsnap[f]) {
                        printf("hold: %s seed %llu call %u: file %u after a cut is no committed state "
                               "(%u bytes, last commit %u)\n",
                               profile, (unsigned long long)seed, i, f, got, csize[f]);
                        CHECK(0);
                    }
                    implicit++;
                }
                memcpy(cur[f], rbuf, got);
                size[f] = got;
                committed(f);
                dsync[f] = 0;
            }
        }
    }
    for (f = 0; f < NF; f++)
        CHECK_EQ(steadyfs_close(FS, fd[f]), 0);
    CHECK_EQ(steadyfs_unmount(FS), 0);
    CHECK_EQ(tdev_fsck(&T, FS, "the end"), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    for (f = 0; f < NF; f++)
        read_back(path[f], cur[f], size[f]);
    printf("hold: %s, %u calls, %u cuts (%u files at a write's implicit commit), model matched\n",
           profile, ops, cuts, implicit);
    CHECK_EQ(steadyfs_unmount(FS), 0);
    tdev_close(&T);
}

/* A logger's stream, 75 % full, as write + sync calls with the held
 * sector and as O_DSYNC writes: the two calls of a held record are one
 * record to the light-call rules (call.c), so a record meets an erase
 * beside its housekeeping (a merge, a checkpoint) no more often than an
 * O_DSYNC record does.  (Before they were counted so, a held write's merge
 * and its sync's erase made log4k's slowest records: 3.06 ms against
 * O_DSYNC's 2.7.)  Returns the records with an erase and more than their
 * two programs. */
static uint32_t record_stream(int dsync)
{
    static uint8_t a[4096];
    uint32_t i, both = 0, erased = 0;
    int fd;
    steadyfs_info info;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 128, 1), 0);
    T.cfg.hold_buf = dsync ? NULL : hold;
    CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_info_get(FS, &info), 0);
    /* static data to 75 % of the capacity, in 64 KiB writes */
    fd = steadyfs_open(FS, "/static", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    for (i = 0; (uint64_t)(i + 1) * 65536u <= info.capacity * 3u / 4u; i++) {
        static uint8_t big[65536];
        fill(big, sizeof big, i);
        CHECK_EQ(steadyfs_write(FS, fd, big, sizeof big), (int32_t)sizeof big);
    }
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    /* records rewriting a 1 MiB log file, rotated as a logger does */
    fd = -1;
    for (i = 0; i < 6000; i++) {
        uint64_t p0, e0;
        if (i % 256u == 0) {
            if (fd >= 0)
                CHECK_EQ(steadyfs_close(FS, fd), 0);
            fd = steadyfs_open(FS, (i / 256u) % 2u ? "/log1" : "/log0",
                               STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC |
                                   (dsync ? STEADYFS_O_DSYNC : 0));
            CHECK(fd >= 0);
        }
        fill(a, sizeof a, i);
        p0 = T.dev.stats.progs;
        e0 = T.dev.stats.erases;
        CHECK_EQ(steadyfs_write(FS, fd, a, sizeof a), (int32_t)sizeof a);
        if (!dsync)
            CHECK_EQ(steadyfs_sync(FS, fd), 0);
        erased += T.dev.stats.erases != e0;
        both += T.dev.stats.erases != e0 && T.dev.stats.progs - p0 > 2u;
    }
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    CHECK_EQ(steadyfs_unmount(FS), 0);
    CHECK_EQ(tdev_fsck(&T, FS, "after the record stream"), 0);
    tdev_close(&T);
    printf("hold: 6000 records as %s: %u with an erase, %u of them with more than two programs\n",
           dsync ? "O_DSYNC writes" : "write + sync, held sector", erased, both);
    CHECK(erased > 0);   /* the stream reached the erases it is about */
    return both;
}

int main(void)
{
    setup("mt29f1g01", 64);
    test_records();
    test_small_writes();
    test_two_files();
    test_truncate();
    CHECK_EQ(steadyfs_unmount(FS), 0);
    CHECK_EQ(tdev_fsck(&T, FS, "after the cases"), 0);
    tdev_close(&T);
    {
        uint32_t held = record_stream(0), dsync = record_stream(1);
        CHECK(held <= dsync);
    }
    test_random("mt29f1g01", 64, 1, 20000);
    test_random("mt25q128", 1024, 2, 8000);
    test_random("em064lx", 0, 3, 20000);
    return check_done("test_fs_hold");
}
