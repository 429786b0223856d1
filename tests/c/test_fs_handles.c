/* Many handles on few files: what a server with several clients does to
 * the file system (the tools tests: fio, stress-ng and dbench through two
 * FUSE mounts and the v9fs guest at once).  Random calls -- opens with
 * O_CREAT, O_TRUNC, O_APPEND, O_DSYNC or read-only; writes and reads at any
 * offset of files of several chunks; truncates both ways; syncs; unlinks
 * and renames of open files; closes -- on up to 24 handles, each checked
 * against a model of every file's content (no cuts: every read must see
 * every write).  fsck runs now and then on the media as a cut would leave
 * them, and on the whole file system after every unmount, where a chunk
 * no file lists is an error.
 *
 * What it found first: with the held sector, a read of one slot of a file
 * filled its handle's window of chunk numbers while the held page had
 * taken a chunk for another slot that only the hold knew; the window
 * cached that slot as having none, the next write there took a second
 * chunk, and the first leaked with the held page's data (file.c
 * slot_chunk).  Two handles (the torture, test_fs_hold) never made that
 * state; the tools test met it once in five runs.
 *
 * STEADYFS_HANDLES_OPS (default 20000) and STEADYFS_HANDLES_SEEDS
 * (default 2) make it a soak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"

#define NH 24               /* handles: cfg.open_max */
#define NN 6                /* names */
#define NO (NH + NN)        /* model files: each has a name or a handle */
#define FMAX (96u * 1024u)  /* largest file: several chunks on every medium */

typedef struct mfile {
    uint8_t *d;       /* content; zero past size */
    uint32_t size;
    int named, handles;
    int dirty;        /* changed since a commit the model is sure of */
} mfile;

typedef struct mhandle {
    int fd;   /* -1: closed */
    int f;    /* model file */
    uint32_t pos;
    int append, wr, dsync;
} mhandle;

static const char *const names[NN] = {"/a", "/b", "/c", "/d/x", "/d/y", "/long_name_of_a_file"};

static tdev T;
static uint8_t hold[4096];
static mfile mf[NO];
static int name_of[NN];
static mhandle h[NH];
static uint8_t wbuf[FMAX], rbuf[FMAX + 4096];
static uint64_t rng;
static uint32_t cut_checked, cut_changed;   /* files checked whole after cuts; files found in a state */
#define FS (&T.fs)

static uint32_t rnd(uint32_t n) { return tdev_rand(&rng, n); }

static int new_file(void)
{
    int f;
    for (f = 0; f < NO; f++)
        if (!mf[f].named && !mf[f].handles) {
            memset(mf[f].d, 0, FMAX);
            mf[f].size = 0;
            mf[f].named = 1;
            mf[f].dirty = 0;   /* a create is durable on return */
            return f;
        }
    return -1;   /* cannot be: NN names and NH handles */
}

static void drop_name(int n)
{
    if (name_of[n] >= 0)
        mf[name_of[n]].named = 0;
    name_of[n] = -1;
}

static void resize(mfile *m, uint32_t n)
{
    if (n < m->size)
        memset(m->d + n, 0, m->size - n);
    m->size = n;
}

/* every name's content read back through a fresh handle */
static void read_names(const char *when)
{
    int n;
    for (n = 0; n < NN; n++) {
        steadyfs_stat st;
        int fd;
        if (name_of[n] < 0) {
            CHECK_EQ(steadyfs_stat_path(FS, names[n], &st), STEADYFS_ENOENT);
            continue;
        }
        fd = steadyfs_open(FS, names[n], STEADYFS_O_RDONLY);
        CHECK(fd >= 0);
        if (fd < 0)
            continue;
        if (steadyfs_read(FS, fd, rbuf, sizeof rbuf) != (int32_t)mf[name_of[n]].size ||
            memcmp(rbuf, mf[name_of[n]].d, mf[name_of[n]].size)) {
            printf("handles: %s: %s does not read back as written\n", when, names[n]);
            CHECK(0);
        }
        CHECK_EQ(steadyfs_close(FS, fd), 0);
    }
}

/* A power cut between calls: the context is dropped and the device
 * mounted again.  Names are as the model has them (namespace changes are
 * durable on return), orphans are gone, a file the model knows committed
 * reads back exactly; a file with changes since then is one of its states,
 * which the model takes as it is found. */
static void cut(void)
{
    int k, n;
    for (k = 0; k < NH; k++)
        h[k].fd = -1;
    for (k = 0; k < NO; k++)
        mf[k].handles = 0;
    CHECK_EQ(tdev_fsck(&T, FS, "handles: after a cut"), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    for (n = 0; n < NN; n++) {
        mfile *m = name_of[n] >= 0 ? &mf[name_of[n]] : NULL;
        int32_t got;
        int fd = steadyfs_open(FS, names[n], STEADYFS_O_RDONLY);
        if (!m) {
            CHECK_EQ(fd, STEADYFS_ENOENT);
            continue;
        }
        CHECK(fd >= 0);
        if (fd < 0)
            continue;
        got = steadyfs_read(FS, fd, rbuf, sizeof rbuf);
        CHECK(got >= 0 && (uint32_t)got <= FMAX);
        if (got >= 0 && !m->dirty && (got != (int32_t)m->size || memcmp(rbuf, m->d, m->size))) {
            printf("handles: after a cut %s is not as committed (%d bytes, %u committed)\n", names[n], got,
                   m->size);
            CHECK(0);
        }
        cut_checked += !m->dirty;
        cut_changed += m->dirty;
        if (got >= 0 && (uint32_t)got <= FMAX) {
            memset(m->d, 0, FMAX);
            memcpy(m->d, rbuf, (uint32_t)got);
            m->size = (uint32_t)got;
        }
        m->dirty = 0;
        CHECK_EQ(steadyfs_close(FS, fd), 0);
    }
}

static void close_all(void)
{
    int k;
    for (k = 0; k < NH; k++)
        if (h[k].fd >= 0) {
            CHECK_EQ(steadyfs_close(FS, h[k].fd), 0);
            mf[h[k].f].handles--;
            mf[h[k].f].dirty = 0;
            h[k].fd = -1;
        }
}

/* One random call on handle k, name n; the FS's answer against the model. */
static void one_call(uint32_t k, int n)
{
    mhandle *o = &h[k];
    mfile *m = o->fd >= 0 ? &mf[o->f] : NULL;
    uint32_t op = rnd(100), pos, len;
    int rc;
    if (op < 12) {   /* close, or open */
        int fl;
        if (o->fd >= 0) {
            CHECK_EQ(steadyfs_close(FS, o->fd), 0);
            m->handles--;
            m->dirty = 0;   /* a close commits the file (all its handles' changes) */
            o->fd = -1;
            return;
        }
        fl = (rnd(8) == 0 ? STEADYFS_O_RDONLY : STEADYFS_O_RDWR) | (rnd(2) ? STEADYFS_O_CREAT : 0) |
             (rnd(8) == 0 ? STEADYFS_O_TRUNC : 0) | (rnd(6) == 0 ? STEADYFS_O_APPEND : 0) |
             (rnd(10) == 0 ? STEADYFS_O_DSYNC : 0);
        rc = steadyfs_open(FS, names[n], fl);
        if (name_of[n] < 0 && !(fl & STEADYFS_O_CREAT)) {
            CHECK_EQ(rc, STEADYFS_ENOENT);
            return;
        }
        CHECK(rc >= 0);
        if (rc < 0)
            return;
        if (name_of[n] < 0)
            name_of[n] = new_file();
        o->fd = rc;
        o->f = name_of[n];
        o->pos = 0;
        o->append = (fl & STEADYFS_O_APPEND) != 0;
        o->wr = (fl & STEADYFS_O_ACCMODE) != STEADYFS_O_RDONLY;
        o->dsync = (fl & STEADYFS_O_DSYNC) != 0;
        mf[o->f].handles++;
        if ((fl & STEADYFS_O_TRUNC) && o->wr && mf[o->f].size) {
            resize(&mf[o->f], 0);
            mf[o->f].dirty = 0;   /* a shrink is a commit */
        }
    } else if (op < 50) {   /* write: small, or many pages; anywhere, or at the end */
        if (!m)
            return;
        len = rnd(4) == 0 ? rnd(40000) + 1 : rnd(5000) + 1;
        pos = rnd(3) == 0 ? m->size : rnd(FMAX - len);
        if (o->append)
            pos = m->size;
        if (pos + len > FMAX)
            return;
        CHECK_EQ(steadyfs_seek(FS, o->fd, pos, STEADYFS_SEEK_SET), (int64_t)pos);
        for (uint32_t i = 0; i < len; i++)
            wbuf[i] = (uint8_t)rnd(256);
        rc = steadyfs_write(FS, o->fd, wbuf, len);
        if (!o->wr) {
            CHECK_EQ(rc, STEADYFS_EBADF);
            return;
        }
        CHECK_EQ(rc, (int32_t)len);
        if (rc != (int32_t)len)
            return;
        memcpy(m->d + pos, wbuf, len);
        if (pos + len > m->size)
            m->size = pos + len;
        o->pos = pos + len;
        m->dirty = !o->dsync;   /* an O_DSYNC write commits the file */
    } else if (op < 62) {
        if (m) {
            CHECK_EQ(steadyfs_sync(FS, o->fd), 0);
            m->dirty = 0;
        }
    } else if (op < 70) {   /* truncate: shrink or grow */
        if (!m)
            return;
        len = rnd(3) ? rnd(FMAX) : 0;
        rc = steadyfs_truncate(FS, o->fd, len);
        CHECK_EQ(rc, o->wr ? 0 : STEADYFS_EBADF);
        if (!rc) {
            /* a shrink commits; growing, or the same size, may not */
            m->dirty = len >= m->size;
            resize(m, len);
        }
    } else if (op < 80) {   /* read from anywhere, past the end too */
        uint32_t want;
        if (!m)
            return;
        pos = rnd(m->size + 3000);
        len = rnd(3) == 0 ? rnd(30000) + 1 : rnd(4000) + 1;
        want = pos >= m->size ? 0 : m->size - pos < len ? m->size - pos : len;
        CHECK_EQ(steadyfs_seek(FS, o->fd, pos, STEADYFS_SEEK_SET), (int64_t)pos);
        rc = steadyfs_read(FS, o->fd, rbuf, len);
        CHECK_EQ(rc, (int32_t)want);
        if (rc == (int32_t)want && memcmp(rbuf, m->d + pos, want)) {
            printf("handles: a read at %u of %u bytes differs from what was written\n", pos, want);
            CHECK(0);
        }
    } else if (op < 87) {
        rc = steadyfs_unlink(FS, names[n]);
        /* (EBUSY: as many open files unlinked as the table allows) */
        if (rc == STEADYFS_EBUSY && name_of[n] >= 0 && mf[name_of[n]].handles)
            return;
        CHECK_EQ(rc, name_of[n] < 0 ? STEADYFS_ENOENT : 0);
        drop_name(n);
    } else if (op < 93) {   /* rename, over another file or not */
        int q = (n + 1 + (int)rnd(NN - 1)) % NN;
        rc = steadyfs_rename(FS, names[n], names[q]);
        if (rc == STEADYFS_EBUSY && name_of[n] >= 0 && name_of[q] >= 0 && mf[name_of[q]].handles)
            return;
        CHECK_EQ(rc, name_of[n] < 0 ? STEADYFS_ENOENT : 0);
        if (name_of[n] >= 0) {
            drop_name(q);
            name_of[q] = name_of[n];
            name_of[n] = -1;
        }
    } else if (op < 97) {   /* stat by name and by handle */
        steadyfs_stat st;
        rc = steadyfs_stat_path(FS, names[n], &st);
        CHECK_EQ(rc, name_of[n] < 0 ? STEADYFS_ENOENT : 0);
        if (!rc)
            CHECK_EQ(st.size, mf[name_of[n]].size);
        if (m) {
            CHECK_EQ(steadyfs_fstat(FS, o->fd, &st), 0);
            CHECK_EQ(st.size, m->size);
        }
    } else {
        CHECK(steadyfs_gc_step(FS, rnd(4)) >= 0);
    }
}

static void run(const char *profile, uint32_t blocks, uint32_t sector_size, int with_hold,
                uint16_t open_max, uint64_t seed, uint32_t ops)
{
    uint32_t i, ws, live_fscks = 0, remounts = 0, cuts = 0;
    int k, n, failed0 = check_failed;
    static steadyfs scratch;
    CHECK_EQ(tdev_open(&T, profile, blocks, seed), 0);
    T.cfg.open_max = open_max;
    T.cfg.sector_size = sector_size;
    T.cfg.hold_buf = with_hold ? hold : NULL;
    ws = steadyfs_work_size(&T.cfg);
    free(T.work);
    T.work = calloc(1, ws);
    T.cfg.work = T.work;
    T.cfg.work_size = ws;
    T.cfg.sector_buf_size = steadyfs_sector_buf_size(&T.cfg);   /* + 32 beside MRAM's 4096 */
    free(T.sector);
    T.sector = calloc(1, T.cfg.sector_buf_size);
    T.cfg.sector_buf = T.sector;
    CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mkdir(FS, "/d"), 0);
    cut_checked = cut_changed = 0;
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    for (n = 0; n < NN; n++)
        name_of[n] = -1;
    for (k = 0; k < NO; k++) {
        mf[k].d = calloc(1, FMAX);
        mf[k].size = 0;
        mf[k].named = mf[k].handles = 0;
    }
    for (k = 0; k < NH; k++)
        h[k].fd = -1;
    for (i = 0; i < ops && check_failed == failed0; i++) {
        uint32_t what = rnd(1000);
        if (what < 5) {   /* fsck of what a cut would leave now */
            memset(&scratch, 0, sizeof scratch);
            CHECK_EQ(tdev_fsck(&T, &scratch, "handles: while mounted"), 0);
            live_fscks++;
        } else if (what < 10) {
            cut();
            cuts++;
        } else if (what < 13 || i + 1 == ops) {   /* close everything, unmount, fsck, mount */
            close_all();
            CHECK_EQ(steadyfs_unmount(FS), 0);
            CHECK_EQ(tdev_fsck(&T, FS, "handles: after an unmount"), 0);
            CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
            read_names("after a remount");
            remounts++;
        } else {
            one_call(rnd(open_max), (int)rnd(NN));
        }
    }
    if (check_failed != failed0)
        printf("handles: %s seed %llu: first failure at call %u\n", profile, (unsigned long long)seed, i);
    printf("handles: %s%s%s, open_max %u, seed %llu: %u calls, %u fsck while mounted, %u cuts "
           "(%u committed files read back whole, %u with changes since), %u remounts\n",
           profile, with_hold ? ", held sector" : "", sector_size ? ", 4096-byte sectors" : "", open_max,
           (unsigned long long)seed, i, live_fscks, cuts, cut_checked, cut_changed, remounts);
    CHECK_EQ(steadyfs_unmount(FS), 0);
    for (k = 0; k < NO; k++)
        free(mf[k].d);
    tdev_close(&T);
}

int main(void)
{
    const char *e_ops = getenv("STEADYFS_HANDLES_OPS"), *e_seeds = getenv("STEADYFS_HANDLES_SEEDS");
    uint32_t ops = e_ops ? (uint32_t)strtoul(e_ops, NULL, 0) : 20000u;
    uint32_t seeds = e_seeds ? (uint32_t)strtoul(e_seeds, NULL, 0) : 2u, s;
    for (s = 1; s <= seeds; s++) {
        run("mt29f1g01", 128, 0, 1, NH, s, ops);
        run("mt29f1g01", 128, 0, 0, NH, s, ops);
        run("mt29f1g01", 128, 0, 1, 8, s, ops);
        run("mt25q128", 0, 0, 1, NH, s, ops / 4u);
        run("em064lx", 0, 0, 1, NH, s, ops);
        run("em064lx", 0, 4096, 1, NH, s, ops);
    }
    return check_done("test_fs_handles");
}
