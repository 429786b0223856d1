/* Many handles on few files: what a server with several clients does to
 * the file system (the tools tests: fio, stress-ng and dbench through two
 * FUSE mounts and the v9fs guest at once).  Random calls -- opens with
 * O_CREAT, O_TRUNC, O_APPEND, O_DSYNC or read-only; writes and reads at any
 * offset of files of several chunks; truncates both ways; syncs; unlinks
 * and renames of open files; setattr; closes -- on up to 24 handles, each checked
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
 * The same calls run through three grouped sessions of the 9P server too
 * (a fid a handle, as steady serve's clients), cuts and all; and near the
 * live limit (static data first), where calls fail with ENOSPC and what
 * they left is learnt from the file system (relearn).  Then
 * directory handles: listings an entry a call while other calls make,
 * remove and rename entries (below, dirs_run).
 *
 * On NAND two runs a seed (and every run with STEADYFS_HANDLES_FAULTS=PPM)
 * add the device's faults to the cuts: program and erase failures at PPM
 * per million operations (8000 on the whole device, 1500 near the limit
 * of 16 units: units go bad while files are open, their sectors written
 * again elsewhere) and bit flips within ECC on reads.  Nothing committed may be lost and fsck must stay clean.
 *
 * STEADYFS_HANDLES_OPS (default 20000), STEADYFS_HANDLES_SEEDS (default
 * 2) and STEADYFS_HANDLES_FIRST (the first seed, 1) make it a soak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "fs/fs_internal.h"
#include "steadyfs/p9cli.h"
#include "steadyfs/p9srv.h"

#define NH 24               /* handles: cfg.open_max */
#define NN 6                /* names */
#define NO (NH + NN)        /* model files: each has a name or a handle */
#define FMAX (96u * 1024u)  /* largest file: several chunks on every medium */

typedef struct mfile {
    uint8_t *d;       /* content; zero past size */
    uint32_t size;
    int named, handles;
    int dirty;        /* changed since a commit the model is sure of */
    int mode;         /* permission bits a setattr gave (-1: none yet) */
} mfile;

typedef struct mhandle {
    int open;   /* 0: closed */
    int f;    /* model file */
    uint32_t pos;
    int append, wr, dsync;
} mhandle;

static const char *const names[NN] = {"/a", "/b", "/c", "/d/x", "/d/y", "/long_name_of_a_file"};

static tdev T;
static uint8_t hold[4096];
/* Faults beside the cuts, on media with ECC (NAND): bit flips within ECC
 * on 3000 reads in a million, and program/erase failures (grown bad
 * units) at fault_ppm per million operations (0: no faults at all). */
static uint32_t fault_ppm;
static void faults_base(sim_faults *f, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    if (!fault_ppm || !T.dev.bd.geo.ecc_bits)
        return;
    f->seed = seed;
    f->flip_ppm = 3000;
    f->flip_bits = (uint16_t)(T.dev.bd.geo.ecc_bits / 2);
    f->fail_ppm = fault_ppm;
}
static mfile mf[NO];
static int name_of[NN];
static mhandle h[NH];
static uint8_t wbuf[FMAX], rbuf[FMAX + 4096];
static uint64_t rng;
static uint32_t cut_checked, cut_changed;
/* what the call a cut interrupted touched: its names (either state, found
 * as they are) and its handle's file (taken as changed) */
static uint32_t touched_names;
static int touched_file;
/* checks of a call's answer: none once power is gone in it (the call is
 * made first: it may be the one that cuts) */
#define CHECKC(cond)                                                                   \
    do {                                                                               \
        int checkc_ok_ = (cond) != 0;                                                  \
        if (T.dev.powered) {                                                           \
            if (checkc_ok_) {                                                          \
                check_passed++;                                                        \
            } else {                                                                   \
                check_failed++;                                                        \
                fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            }                                                                          \
        }                                                                              \
    } while (0)
#define CHECK_EQC(a, b)                                                                  \
    do {                                                                                 \
        long long checkc_a_ = (long long)(a), checkc_b_ = (long long)(b);                \
        if (T.dev.powered) {                                                             \
            if (checkc_a_ == checkc_b_) {                                                \
                check_passed++;                                                          \
            } else {                                                                     \
                check_failed++;                                                          \
                fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n",     \
                        __FILE__, __LINE__, #a, checkc_a_, #b, checkc_b_);               \
            }                                                                            \
        }                                                                                \
    } while (0)   /* files checked whole after cuts; files found in a state */
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
            mf[f].mode = -1;
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
 * which the model takes as it is found.  `ambiguous`: names a cut call
 * touched, found as they are (there or not, any content). */
static void cut(uint32_t ambiguous)
{
    int k, n;
    for (k = 0; k < NH; k++)
        h[k].open = 0;
    for (k = 0; k < NO; k++)
        mf[k].handles = 0;
    CHECK_EQ(tdev_fsck(&T, FS, "handles: after a cut"), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    for (n = 0; n < NN; n++)
        if (ambiguous >> n & 1u) {
            steadyfs_stat st;
            drop_name(n);
            if (steadyfs_stat_path(FS, names[n], &st) == 0) {
                name_of[n] = new_file();
                mf[name_of[n]].dirty = 1;   /* what it holds: as found */
            }
        }
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
        if (m->mode >= 0) {   /* a setattr is durable on return */
            steadyfs_stat st;
            CHECK_EQ(steadyfs_fstat(FS, fd, &st), 0);
            CHECK_EQ(st.mode, m->mode);
        }
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

/* ---- The calls on handles: the steadyfs API, or 9P sessions ------------
 * The random run makes its calls through one of these tables: straight on
 * the file system (handle k is a steadyfs handle), or as a client of three
 * sessions of steadyfs's 9P server grouped on the same file system
 * (handle k is a fid of session k % 3; what steady serve does for several
 * clients).  Answers are the steadyfs codes, which are Linux's errno
 * values negated, as 9P's are. */
typedef struct calls {
    const char *name;
    int (*open)(uint32_t k, const char *path, int flags);   /* 0 or an error */
    int (*close)(uint32_t k);
    int32_t (*pwrite)(uint32_t k, uint32_t pos, const uint8_t *b, uint32_t n);
    int32_t (*pread)(uint32_t k, uint32_t pos, uint8_t *b, uint32_t n);
    int (*ftruncate)(uint32_t k, uint32_t size);
    int (*fsync)(uint32_t k);
    int (*fsize)(uint32_t k, uint64_t *size);
    int (*unlink)(const char *path);
    int (*rename)(const char *from, const char *to);
    int (*stat)(const char *path, uint64_t *size, uint32_t *mode);
    int (*chmod)(const char *path, uint32_t mode, uint32_t uid);
} calls;

static int api_fd[NH];

static int api_open(uint32_t k, const char *path, int flags)
{
    int rc = steadyfs_open(FS, path, flags);
    api_fd[k] = rc;
    return rc < 0 ? rc : 0;
}
static int api_close(uint32_t k) { return steadyfs_close(FS, api_fd[k]); }
static int32_t api_pwrite(uint32_t k, uint32_t pos, const uint8_t *b, uint32_t n)
{
    int64_t at = steadyfs_seek(FS, api_fd[k], pos, STEADYFS_SEEK_SET);
    return at < 0 ? (int32_t)at : steadyfs_write(FS, api_fd[k], b, n);
}
static int32_t api_pread(uint32_t k, uint32_t pos, uint8_t *b, uint32_t n)
{
    int64_t at = steadyfs_seek(FS, api_fd[k], pos, STEADYFS_SEEK_SET);
    return at < 0 ? (int32_t)at : steadyfs_read(FS, api_fd[k], b, n);
}
static int api_ftruncate(uint32_t k, uint32_t size) { return steadyfs_truncate(FS, api_fd[k], size); }
static int api_fsync(uint32_t k) { return steadyfs_sync(FS, api_fd[k]); }
static int api_fsize(uint32_t k, uint64_t *size)
{
    steadyfs_stat st;
    int rc = steadyfs_fstat(FS, api_fd[k], &st);
    *size = st.size;
    return rc;
}
static int api_unlink(const char *path) { return steadyfs_unlink(FS, path); }
static int api_rename(const char *from, const char *to) { return steadyfs_rename(FS, from, to); }
static int api_stat(const char *path, uint64_t *size, uint32_t *mode)
{
    steadyfs_stat st;
    int rc = steadyfs_stat_path(FS, path, &st);
    *size = st.size;
    *mode = st.mode;
    return rc;
}
static int api_chmod(const char *path, uint32_t mode, uint32_t uid)
{
    steadyfs_attr a;
    memset(&a, 0, sizeof a);
    a.mask = STEADYFS_ATTR_MODE | STEADYFS_ATTR_UID;
    a.mode = (uint16_t)mode;
    a.uid = uid;
    return steadyfs_setattr(FS, path, &a);
}
static const calls api_calls = {"the steadyfs API", api_open, api_close, api_pwrite, api_pread,
                                api_ftruncate, api_fsync, api_fsize, api_unlink, api_rename,
                                api_stat, api_chmod};

#define SESSIONS 3
#define MSIZE 8192u
typedef struct session {
    p9srv srv;
    uint32_t mem[16384];
    uint8_t sbuf[MSIZE], cbuf[MSIZE];
    uint8_t q[4 * MSIZE];   /* replies the client has not read yet */
    size_t qlen, qpos;
    uint32_t fidmap[(NH + 2 + 31) / 32];
    struct p9cli cli;
} session;

static session sess[SESSIONS];
static struct p9cli_file p9f[NH];

/* the client's transport: each request handled at once, its reply queued */
static int link_send(void *io, const uint8_t *buf, size_t len)
{
    session *x = io;
    int32_t r;
    memcpy(x->sbuf, buf, len);
    r = p9srv_handle(&x->srv, x->sbuf, (uint32_t)len, x->sbuf, MSIZE);
    if (r < 0)
        return -P9CLI_ECONNRESET;
    if (x->qpos == x->qlen)
        x->qpos = x->qlen = 0;
    if (x->qlen + (size_t)r > sizeof x->q)
        return -P9CLI_EIO;
    memcpy(x->q + x->qlen, x->sbuf, (size_t)r);
    x->qlen += (size_t)r;
    return 0;
}

static int link_recv(void *io, uint8_t *buf, size_t len)
{
    session *x = io;
    size_t n = x->qlen - x->qpos < len ? x->qlen - x->qpos : len;
    memcpy(buf, x->q + x->qpos, n);
    x->qpos += n;
    return (int)n;
}

/* Three sessions on the mounted file system, grouped, each with a client
 * attached (after a mount: a cut or an unmount dropped the old ones). */
static void sessions_start(void)
{
    uint32_t i;
    for (i = 0; i < SESSIONS; i++) {
        session *x = &sess[i];
        p9srv_config sc;
        struct p9cli_config cc;
        memset(&sc, 0, sizeof sc);
        sc.fs = FS;
        sc.mem = x->mem;
        sc.mem_size = sizeof x->mem;
        sc.msize_max = MSIZE;
        sc.fid_max = NH + 2;
        CHECK(p9srv_mem_size(&sc) <= sizeof x->mem);
        CHECK_EQ(p9srv_init(&x->srv, &sc), 0);
        if (i)
            CHECK_EQ(p9srv_group(&x->srv, &sess[0].srv), 0);
        x->qlen = x->qpos = 0;
        memset(&cc, 0, sizeof cc);
        cc.send = link_send;
        cc.recv = link_recv;
        cc.io = x;
        cc.buf = x->cbuf;
        cc.bufsize = MSIZE;
        cc.fidmap = x->fidmap;
        cc.nfids = NH + 2;
        cc.uname = "root";
        CHECK_EQ(p9cli_connect(&x->cli, &cc), 0);
    }
}

/* Before an unmount: every fid clunked (the caller closed the handles),
 * each session ended. */
static void sessions_end(void)
{
    uint32_t i;
    for (i = 0; i < SESSIONS; i++) {
        CHECK_EQ(p9cli_disconnect(&sess[i].cli), 0);
        CHECK_EQ(p9srv_disconnect(&sess[i].srv), 0);
        p9srv_ungroup(&sess[i].srv);
    }
}

static struct p9cli *cli_of(uint32_t k) { return &sess[k % SESSIONS].cli; }
static struct p9cli *any_cli(void) { return &sess[rnd(SESSIONS)].cli; }

static int p9_open(uint32_t k, const char *path, int flags)
{
    uint32_t fl = (uint32_t)(flags & STEADYFS_O_ACCMODE) | (flags & STEADYFS_O_CREAT ? P9CLI_O_CREAT : 0u) |
                  (flags & STEADYFS_O_TRUNC ? P9CLI_O_TRUNC : 0u) | (flags & STEADYFS_O_APPEND ? P9CLI_O_APPEND : 0u);
    return p9cli_open(cli_of(k), &p9f[k], path, fl, 0644);
}
static int p9_close(uint32_t k) { return p9cli_close(cli_of(k), &p9f[k]); }
static int32_t p9_pwrite(uint32_t k, uint32_t pos, const uint8_t *b, uint32_t n)
{
    return p9cli_pwrite(cli_of(k), &p9f[k], pos, b, n);
}
static int32_t p9_pread(uint32_t k, uint32_t pos, uint8_t *b, uint32_t n)
{
    return p9cli_pread(cli_of(k), &p9f[k], pos, b, n);
}
static int p9_ftruncate(uint32_t k, uint32_t size)
{
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    a.valid = P9_SETATTR_SIZE;
    a.size = size;
    return p9cli_fsetattr(cli_of(k), &p9f[k], &a);
}
static int p9_fsync(uint32_t k) { return p9cli_fsync(cli_of(k), &p9f[k], 0); }
static int p9_fsize(uint32_t k, uint64_t *size)
{
    struct p9_stat st;
    int rc = p9cli_fstat(cli_of(k), &p9f[k], &st);
    *size = st.size;
    return rc;
}
static int p9_unlink(const char *path) { return p9cli_unlink(any_cli(), path); }
static int p9_rename(const char *from, const char *to) { return p9cli_rename(any_cli(), from, to); }
static int p9_stat(const char *path, uint64_t *size, uint32_t *mode)
{
    struct p9_stat st;
    int rc = p9cli_stat(any_cli(), path, &st);
    *size = st.size;
    *mode = st.mode & 07777u;
    return rc;
}
static int p9_chmod(const char *path, uint32_t mode, uint32_t uid)
{
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    a.valid = P9_SETATTR_MODE | P9_SETATTR_UID;
    a.mode = mode;
    a.uid = uid;
    return p9cli_setattr(any_cli(), path, &a);
}
static const calls p9_calls = {"9P, three sessions", p9_open, p9_close, p9_pwrite, p9_pread,
                               p9_ftruncate, p9_fsync, p9_fsize, p9_unlink, p9_rename,
                               p9_stat, p9_chmod};

static const calls *via = &api_calls;

/* Near the live limit (near_full) a call may fail with ENOSPC, and what
 * it left is then learnt from the file system: file f's content as a
 * handle of it (or, with none, its name) reads now, its commit unknown.
 * Each such failure is counted. */
static int near_full;
static uint32_t enospc;

/* Near the limit, static data takes most of the capacity first (a file
 * the calls never touch, read back whole after every cut and unmount). */
#define BALLAST_MAX (512u * 1024u)
static uint8_t ballast[BALLAST_MAX];
static uint32_t ballast_size;

static void ballast_write(void)
{
    steadyfs_info info;
    uint32_t i;
    int fd;
    CHECK_EQ(steadyfs_info_get(FS, &info), 0);
    ballast_size = (uint32_t)(info.capacity * 6u / 10u);
    if (ballast_size > BALLAST_MAX)
        ballast_size = BALLAST_MAX;
    for (i = 0; i < ballast_size; i++)
        ballast[i] = (uint8_t)rnd(256);
    fd = steadyfs_open(FS, "/ballast", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(FS, fd, ballast, ballast_size), (int32_t)ballast_size);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
}

static void ballast_check(const char *when)
{
    static uint8_t b[BALLAST_MAX + 1];
    int fd;
    if (!ballast_size)
        return;
    fd = steadyfs_open(FS, "/ballast", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    if (steadyfs_read(FS, fd, b, sizeof b) != (int32_t)ballast_size || memcmp(b, ballast, ballast_size)) {
        printf("handles: %s: the static data does not read back whole\n", when);
        CHECK(0);
    }
    CHECK_EQ(steadyfs_close(FS, fd), 0);
}

static void relearn(int f)
{
    uint32_t k;
    uint64_t size = 0;
    int32_t got = -1;
    for (k = 0; k < NH; k++)
        if (h[k].open && h[k].f == f)
            break;
    if (k < NH) {
        CHECKC(via->fsize(k, &size) == 0 && size <= FMAX);
        if (size <= FMAX)
            got = via->pread(k, 0, rbuf, (uint32_t)size);
    } else {
        int n, fd = -1;
        for (n = 0; n < NN && name_of[n] != f; n++)
            ;
        if (n < NN)
            fd = steadyfs_open(FS, names[n], STEADYFS_O_RDONLY);
        if (fd < 0) {
            mf[f].dirty = 1;   /* (no name, no handle: gone) */
            return;
        }
        got = steadyfs_read(FS, fd, rbuf, sizeof rbuf);
        CHECKC(steadyfs_close(FS, fd) == 0);
    }
    CHECKC(got >= 0 && (uint32_t)got <= FMAX);
    if (got >= 0 && (uint32_t)got <= FMAX) {
        memset(mf[f].d, 0, FMAX);
        memcpy(mf[f].d, rbuf, (uint32_t)got);
        mf[f].size = (uint32_t)got;
    }
    mf[f].dirty = 1;
}

/* Close handle k: the close commits its file; near the limit the commit
 * may fail (ENOSPC), the handle closes anyway and, if it was the file's
 * last, the file's changes since its commit are dropped (steadyfs.h). */
static void close_handle(uint32_t k)
{
    mfile *m = &mf[h[k].f];
    int rc = via->close(k);
    m->handles--;
    h[k].open = 0;
    if (rc == STEADYFS_ENOSPC && near_full) {
        enospc++;
        relearn(h[k].f);
        return;
    }
    CHECK_EQC(rc, 0);
    m->dirty = 0;   /* a close commits the file (all its handles' changes) */
}

/* Unmount, with every handle closed.  Near the limit with units gone
 * bad, its own housekeeping (an orphan's kill, trims) may find no room
 * left: ENOSPC, with nothing committed lost (the remount after it checks). */
static void unmount_checked(void)
{
    int rc = steadyfs_unmount(FS);
    if (rc == STEADYFS_ENOSPC && near_full && fault_ppm) {
        enospc++;
        return;
    }
    CHECK_EQ(rc, 0);
}

static void close_all(void)
{
    uint32_t k;
    for (k = 0; k < NH; k++)
        if (h[k].open)
            close_handle(k);
}

/* One random call on handle k, name n; the FS's answer against the model. */
static void one_call(uint32_t k, int n)
{
    mhandle *o = &h[k];
    mfile *m = o->open ? &mf[o->f] : NULL;
    uint32_t op = rnd(100), pos, len;
    int rc;
    touched_names = 1u << n;
    touched_file = m ? o->f : -1;
    if (op < 12) {   /* close, or open */
        int fl;
        if (o->open) {
            close_handle(k);
            return;
        }
        fl = (rnd(8) == 0 ? STEADYFS_O_RDONLY : STEADYFS_O_RDWR) | (rnd(2) ? STEADYFS_O_CREAT : 0) |
             (rnd(8) == 0 && !near_full ? STEADYFS_O_TRUNC : 0) | (rnd(6) == 0 ? STEADYFS_O_APPEND : 0) |
             (rnd(10) == 0 && via == &api_calls ? STEADYFS_O_DSYNC : 0);
        rc = via->open(k, names[n], fl);
        if (name_of[n] < 0 && !(fl & STEADYFS_O_CREAT)) {
            CHECK_EQC(rc, STEADYFS_ENOENT);
            return;
        }
        if (rc == STEADYFS_ENOSPC && near_full) {   /* a create, or O_TRUNC's commit */
            enospc++;
            if (name_of[n] >= 0)
                relearn(name_of[n]);
            return;
        }
        CHECKC(rc >= 0);
        if (rc < 0)
            return;
        if (name_of[n] < 0)
            name_of[n] = new_file();
        o->open = 1;
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
        len = rnd(4) == 0 || (near_full && rnd(2)) ? rnd(40000) + 1 : rnd(5000) + 1;
        pos = rnd(3) == 0 || (near_full && rnd(2)) ? m->size : rnd(FMAX - len);
        if (o->append)
            pos = m->size;
        if (near_full && pos < FMAX && pos + len > FMAX)
            len = FMAX - pos;   /* (filling the file to its largest) */
        if (pos + len > FMAX)
            return;
        for (uint32_t i = 0; i < len; i++)
            wbuf[i] = (uint8_t)rnd(256);
        rc = via->pwrite(k, pos, wbuf, len);
        if (!o->wr) {
            CHECK_EQC(rc, STEADYFS_EBADF);
            return;
        }
        if (near_full && (rc == STEADYFS_ENOSPC || (rc > 0 && rc < (int32_t)len))) {
            /* short near the limit: the pages before the failure written */
            enospc++;
            if (rc < 0)
                return;
            len = (uint32_t)rc;
        }
        CHECK_EQC(rc, (int32_t)len);
        if (rc != (int32_t)len)
            return;
        memcpy(m->d + pos, wbuf, len);
        if (pos + len > m->size)
            m->size = pos + len;
        o->pos = pos + len;
        m->dirty = !o->dsync;   /* an O_DSYNC write commits the file (a short one what it wrote) */
    } else if (op < 62) {
        if (m) {
            rc = via->fsync(k);
            if (rc == STEADYFS_ENOSPC && near_full) {
                enospc++;
                return;
            }
            CHECK_EQC(rc, 0);
            m->dirty = 0;
        }
    } else if (op < 70) {   /* truncate: shrink or grow */
        if (!m)
            return;
        len = rnd(3) ? rnd(FMAX) : 0;
        if (near_full && len < m->size && rnd(4))   /* (files kept large there) */
            return;
        /* (9P truncates by Tsetattr, which the fid's open mode does not
         * govern: Linux's ftruncate of a read-only descriptor never
         * sends it) */
        if (!o->wr && via == &p9_calls)
            return;
        rc = via->ftruncate(k, len);
        if (rc == STEADYFS_ENOSPC && near_full) {
            enospc++;
            relearn(o->f);
            return;
        }
        CHECK_EQC(rc, o->wr ? 0 : STEADYFS_EBADF);
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
        rc = via->pread(k, pos, rbuf, len);
        CHECK_EQC(rc, (int32_t)want);
        if (rc == (int32_t)want && memcmp(rbuf, m->d + pos, want)) {
            printf("handles: a read at %u of %u bytes differs from what was written\n", pos, want);
            CHECKC(0);
        }
    } else if (op < 87) {
        if (near_full && rnd(4))
            return;
        rc = via->unlink(names[n]);
        /* (EBUSY: as many open files unlinked as the table allows) */
        if (rc == STEADYFS_EBUSY && name_of[n] >= 0 && mf[name_of[n]].handles)
            return;
        if (rc == STEADYFS_ENOSPC && near_full) {   /* (nothing changed) */
            enospc++;
            return;
        }
        CHECK_EQC(rc, name_of[n] < 0 ? STEADYFS_ENOENT : 0);
        drop_name(n);
    } else if (op < 93) {   /* rename, over another file or not */
        int q = (n + 1 + (int)rnd(NN - 1)) % NN;
        if (near_full && name_of[q] >= 0 && rnd(4))   /* (files kept there) */
            return;
        touched_names |= 1u << q;
        rc = via->rename(names[n], names[q]);
        if (rc == STEADYFS_EBUSY && name_of[n] >= 0 && name_of[q] >= 0 && mf[name_of[q]].handles)
            return;
        if (rc == STEADYFS_ENOSPC && near_full) {
            enospc++;
            return;
        }
        CHECK_EQC(rc, name_of[n] < 0 ? STEADYFS_ENOENT : 0);
        if (name_of[n] >= 0) {
            drop_name(q);
            name_of[q] = name_of[n];
            name_of[n] = -1;
        }
    } else if (op < 95) {   /* stat by name and by handle */
        uint64_t size;
        uint32_t mode;
        rc = via->stat(names[n], &size, &mode);
        CHECK_EQC(rc, name_of[n] < 0 ? STEADYFS_ENOENT : 0);
        if (!rc)
            CHECK_EQC(size, mf[name_of[n]].size);
        if (!rc && mf[name_of[n]].mode >= 0)
            CHECK_EQC(mode, mf[name_of[n]].mode);
        if (m) {
            CHECK_EQC(via->fsize(k, &size), 0);
            CHECK_EQC(size, m->size);
        }
    } else if (op < 98) {   /* setattr of a file that may be open, held sector and all */
        uint32_t mode = rnd(01000);
        rc = via->chmod(names[n], mode, rnd(5000));
        if (rc == STEADYFS_ENOSPC && near_full) {
            enospc++;
            return;
        }
        CHECK_EQC(rc, name_of[n] < 0 ? STEADYFS_ENOENT : 0);
        if (!rc && name_of[n] >= 0)
            mf[name_of[n]].mode = (int)mode;
    } else {
        CHECKC(steadyfs_gc_step(FS, rnd(4)) >= 0);
    }
}

/* A fresh file system on a new simulated device, mounted. */
static void fresh_fs(const char *profile, uint32_t blocks, uint32_t sector_size, int with_hold,
                     uint16_t open_max, uint64_t seed)
{
    uint32_t ws;
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
}

/* The faults of the run from here on (none without fault_ppm). */
static void faults_arm(uint64_t seed)
{
    sim_faults f;
    faults_base(&f, seed * 41u);
    sim_set_faults(&T.dev, &f);
}

static void run(const calls *c, const char *profile, uint32_t blocks, uint32_t sector_size, int with_hold,
                uint16_t open_max, uint64_t seed, uint32_t ops)
{
    uint32_t i, live_fscks = 0, remounts = 0, cuts = 0, in_call_cuts = 0, b, bad = 0;
    char faulted[96] = "";
    int k, n, failed0 = check_failed;
    static steadyfs scratch;
    fresh_fs(profile, blocks, sector_size, with_hold, open_max, seed);
    CHECK_EQ(steadyfs_mkdir(FS, "/d"), 0);
    via = c;
    if (via == &p9_calls)
        sessions_start();
    cut_checked = cut_changed = 0;
    enospc = 0;
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    ballast_size = 0;
    if (near_full)
        ballast_write();
    faults_arm(seed);   /* (after the static data, which must fit whole) */
    for (n = 0; n < NN; n++)
        name_of[n] = -1;
    for (k = 0; k < NO; k++) {
        mf[k].d = calloc(1, FMAX);
        mf[k].size = 0;
        mf[k].named = mf[k].handles = 0;
    }
    for (k = 0; k < NH; k++)
        h[k].open = 0;
    for (i = 0; i < ops && check_failed == failed0; i++) {
        uint32_t what = rnd(1000);
        if (what < 5) {   /* fsck of what a cut would leave now */
            memset(&scratch, 0, sizeof scratch);
            CHECK_EQ(tdev_fsck(&T, &scratch, "handles: while mounted"), 0);
            live_fscks++;
        } else if (what < 10) {
            cut(0);   /* (the sessions go with the context) */
            ballast_check("after a cut");
            if (via == &p9_calls)
                sessions_start();
            cuts++;
        } else if (what < 13 || i + 1 == ops) {   /* close everything, unmount, fsck, mount */
            close_all();
            if (via == &p9_calls)
                sessions_end();
            unmount_checked();
            CHECK_EQ(tdev_fsck(&T, FS, "handles: after an unmount"), 0);
            CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
            read_names("after a remount");
            ballast_check("after a remount");
            if (via == &p9_calls)
                sessions_start();
            remounts++;
        } else {
            /* one call in 12 has power cut in it, at one of its first few
             * programs or erases (if it has that many; the device counts
             * them from the arming: sim_set_faults) */
            int armed = rnd(12) == 0;
            sim_faults f;
            faults_base(&f, seed * 31u + i);
            if (armed) {
                f.seed = seed * 31u + i;
                f.powercut_after = 1u + rnd(T.dev.bd.geo.spare_size || !T.dev.bd.geo.needs_erase
                                                ? 8u : 8u * (2048u / T.dev.bd.geo.page_size));
                sim_set_faults(&T.dev, &f);
            }
            one_call(rnd(open_max), (int)rnd(NN));
            if (armed) {
                int was_cut = !T.dev.powered;
                if (was_cut)
                    sim_power_restore(&T.dev);
                faults_base(&f, seed * 37u + i);
                sim_set_faults(&T.dev, &f);
                if (was_cut) {
                    if (touched_file >= 0)
                        mf[touched_file].dirty = 1;
                    cut(touched_names);
                    ballast_check("after a cut in a call");
                    if (via == &p9_calls)
                        sessions_start();
                    in_call_cuts++;
                }
            }
        }
    }
    for (b = 0; b < FS->geo.nblocks; b++)
        bad += FS->blk[b] == BS_BAD;
    if (fault_ppm && T.dev.bd.geo.ecc_bits)
        snprintf(faulted, sizeof faulted, "; faults: %u units of %u gone bad, bit flips within ECC", bad,
                 FS->geo.nblocks);
    if (check_failed != failed0)
        printf("handles: %s seed %llu: first failure at call %u\n", profile, (unsigned long long)seed, i);
    printf("handles: %s, %s%s%s, open_max %u, seed %llu: %u calls, %u fsck while mounted, %u cuts "
           "between calls and %u in them (%u committed files read back whole, %u with changes since), "
           "%u remounts, %u calls failed with ENOSPC%s\n",
           via->name, profile, with_hold ? ", held sector" : "", sector_size ? ", 4096-byte sectors" : "",
           open_max, (unsigned long long)seed, i, live_fscks, cuts, in_call_cuts, cut_checked, cut_changed,
           remounts, enospc, faulted);
    close_all();
    if (via == &p9_calls)
        sessions_end();
    unmount_checked();
    for (k = 0; k < NO; k++)
        free(mf[k].d);
    tdev_close(&T);
}

/* ---- Directory handles over a changing namespace ----------------------
 * Three directories of 40 names each, entries made (files and empty
 * directories), removed and renamed at random while up to four directory
 * handles list them an entry a call.  At the end of each listing: every
 * entry that existed when the handle opened and was not touched since is
 * listed exactly once, with its type; every name listed existed at some
 * time since the open.  Now and then a position is taken with telldir, a
 * few entries read, the position restored with seekdir and the same
 * entries read again.  Cuts between calls (namespace changes are durable
 * on return) and unmounts, each followed by fsck and a listing of every
 * directory that must match the model exactly. */
#define DD 3     /* directories */
#define DN 40    /* names in each */
#define DH 4     /* directory handles */
static const char *const dnames[DD] = {"/p", "/q", "/p/r"};

typedef struct dmodel {
    uint8_t type[DD][DN];        /* 0: none, else STEADYFS_TYPE_FILE or _DIR */
    uint32_t changed[DD][DN];    /* the step of the last change */
} dmodel;

typedef struct dhandle {
    int dd;   /* -1: closed */
    int dir;
    uint32_t opened;
    uint8_t at_open[DN];
    uint8_t seen[DN];
} dhandle;

static dmodel D;
static dhandle dh[DH];

static void dpath(char *out, int dir, int n)
{
    sprintf(out, "%s/f%02d", dnames[dir], n);
}

static int name_index(const char *name)
{
    int n;
    if (name[0] != 'f' || name[1] < '0' || name[1] > '9' || name[2] < '0' || name[2] > '9' || name[3])
        return -1;
    n = (name[1] - '0') * 10 + (name[2] - '0');
    return n < DN ? n : -1;
}

/* A whole listing of directory `dir`, against the model. */
static void list_exact(int dir, const char *when)
{
    steadyfs_dirent ent;
    uint8_t seen[DN];
    int dd = steadyfs_opendir(FS, dnames[dir]), rc, n;
    memset(seen, 0, sizeof seen);
    CHECK(dd >= 0);
    if (dd < 0)
        return;
    while ((rc = steadyfs_readdir(FS, dd, &ent)) == 1) {
        n = name_index(ent.name);
        if (dir == 0 && !strcmp(ent.name, "r"))
            continue;
        CHECK(n >= 0);
        if (n >= 0) {
            CHECK_EQ(ent.type, D.type[dir][n]);
            seen[n]++;
        }
    }
    CHECK_EQ(rc, 0);
    for (n = 0; n < DN; n++)
        if (seen[n] != (D.type[dir][n] != 0)) {
            printf("handles: %s: %s lists f%02d %u times, the model has it %s\n", when, dnames[dir], n,
                   seen[n], D.type[dir][n] ? "once" : "not at all");
            CHECK(0);
        }
    CHECK_EQ(steadyfs_closedir(FS, dd), 0);
}

static void dirs_close_all(void)
{
    int k;
    for (k = 0; k < DH; k++)
        if (dh[k].dd >= 0) {
            CHECK_EQ(steadyfs_closedir(FS, dh[k].dd), 0);
            dh[k].dd = -1;
        }
}

static uint32_t listings_checked;

/* One listing step of handle k; at the end, its listing checked. */
static void dir_step(dhandle *k, uint32_t step)
{
    steadyfs_dirent ent;
    int rc, n;
    if (k->dd < 0) {
        k->dir = (int)rnd(DD);
        k->dd = steadyfs_opendir(FS, dnames[k->dir]);
        CHECK(k->dd >= 0);
        k->opened = step;
        for (n = 0; n < DN; n++)
            k->at_open[n] = D.type[k->dir][n];
        memset(k->seen, 0, sizeof k->seen);
        return;
    }
    if (rnd(20) == 0) {   /* telldir, read, seekdir back, read the same again */
        steadyfs_dirent a[4];
        uint64_t cookie = steadyfs_telldir(FS, k->dd);
        int got = 0, i;
        while (got < 4 && steadyfs_readdir(FS, k->dd, &a[got]) == 1)
            got++;
        CHECK_EQ(steadyfs_seekdir(FS, k->dd, cookie), 0);
        for (i = 0; i < got; i++) {
            CHECK_EQ(steadyfs_readdir(FS, k->dd, &ent), 1);
            CHECK(!strcmp(ent.name, a[i].name));
        }
        for (i = 0; i < got; i++) {
            n = name_index(a[i].name);
            if (n >= 0)
                k->seen[n]++;
        }
        return;
    }
    rc = steadyfs_readdir(FS, k->dd, &ent);
    if (rc == 1) {
        if (k->dir == 0 && !strcmp(ent.name, "r"))
            return;
        n = name_index(ent.name);
        CHECK(n >= 0);
        if (n < 0)
            return;
        /* it existed at some time since the open */
        CHECK(k->at_open[n] || D.changed[k->dir][n] >= k->opened);
        if (k->at_open[n] && D.changed[k->dir][n] < k->opened)
            CHECK_EQ(ent.type, k->at_open[n]);
        k->seen[n]++;
        return;
    }
    CHECK_EQ(rc, 0);
    for (n = 0; n < DN; n++)
        if (k->at_open[n] && D.changed[k->dir][n] < k->opened && k->seen[n] != 1) {
            printf("handles: a listing of %s gave f%02d %u times; it was there all along\n", dnames[k->dir], n,
                   k->seen[n]);
            CHECK(0);
        }
    listings_checked++;
    CHECK_EQ(steadyfs_closedir(FS, k->dd), 0);
    k->dd = -1;
}

/* One namespace change, against the model. */
static void dir_change(uint32_t step)
{
    char a[64], b[64];
    int da = (int)rnd(DD), na = (int)rnd(DN), db = (int)rnd(DD), nb = (int)rnd(DN), rc;
    uint32_t op = rnd(100);
    uint8_t *ta = &D.type[da][na], *tb = &D.type[db][nb];
    dpath(a, da, na);
    dpath(b, db, nb);
    if (op < 45) {   /* make a file or an empty directory */
        int dir = rnd(3) == 0;
        if (dir) {
            rc = steadyfs_mkdir(FS, a);
        } else {
            rc = steadyfs_open(FS, a, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_EXCL);
            if (rc >= 0)
                CHECK_EQ(steadyfs_close(FS, rc), 0);
        }
        if (*ta) {
            CHECK_EQ(rc, STEADYFS_EEXIST);
            return;
        }
        CHECK(rc >= 0);
        *ta = dir ? STEADYFS_TYPE_DIR : STEADYFS_TYPE_FILE;
        D.changed[da][na] = step;
    } else if (op < 75) {   /* remove */
        rc = *ta == STEADYFS_TYPE_DIR ? steadyfs_rmdir(FS, a) : steadyfs_unlink(FS, a);
        CHECK_EQ(rc, *ta ? 0 : STEADYFS_ENOENT);
        *ta = 0;
        D.changed[da][na] = step;
    } else {   /* rename, over an entry of the same type (a directory's is empty) or not */
        if ((da == db && na == nb) || (*tb && *tb != *ta))
            return;
        rc = steadyfs_rename(FS, a, b);
        CHECK_EQ(rc, *ta ? 0 : STEADYFS_ENOENT);
        if (!*ta)
            return;
        *tb = *ta;
        *ta = 0;
        D.changed[da][na] = D.changed[db][nb] = step;
    }
}

static void dirs_run(const char *profile, uint32_t blocks, int with_hold, uint64_t seed, uint32_t ops)
{
    uint32_t i, cuts = 0, remounts = 0;
    int k, d, failed0 = check_failed;
    fresh_fs(profile, blocks, 0, with_hold, 8, seed);
    for (d = 0; d < DD; d++)
        CHECK_EQ(steadyfs_mkdir(FS, dnames[d]), 0);
    faults_arm(seed);
    memset(&D, 0, sizeof D);
    for (k = 0; k < DH; k++)
        dh[k].dd = -1;
    rng = seed * 0xD1B54A32D192ED03ull + 7;
    listings_checked = 0;
    for (i = 1; i <= ops && check_failed == failed0; i++) {
        uint32_t what = rnd(1000);
        if (what < 5 || i == ops) {
            dirs_close_all();
            if (what < 2) {   /* a cut: the context dropped */
                cuts++;
                CHECK_EQ(tdev_fsck(&T, FS, "handles: directories after a cut"), 0);
            } else {
                remounts++;
                CHECK_EQ(steadyfs_unmount(FS), 0);
                CHECK_EQ(tdev_fsck(&T, FS, "handles: directories after an unmount"), 0);
            }
            CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
            for (d = 0; d < DD; d++)
                list_exact(d, what < 2 ? "after a cut" : "after a remount");
        } else if (what < 450) {
            dir_step(&dh[rnd(DH)], i);
        } else {
            dir_change(i);
        }
    }
    if (check_failed != failed0)
        printf("handles: directories on %s seed %llu: first failure at step %u\n", profile,
               (unsigned long long)seed, i - 1);
    printf("handles: directories on %s%s, seed %llu: %u steps, %u listings checked, %u cuts, %u remounts\n",
           profile, with_hold ? ", held sector" : "", (unsigned long long)seed, i - 1, listings_checked, cuts,
           remounts);
    dirs_close_all();
    CHECK_EQ(steadyfs_unmount(FS), 0);
    tdev_close(&T);
}

int main(void)
{
    const char *e_ops = getenv("STEADYFS_HANDLES_OPS"), *e_seeds = getenv("STEADYFS_HANDLES_SEEDS");
    uint32_t ops = e_ops ? (uint32_t)strtoul(e_ops, NULL, 0) : 20000u;
    uint32_t seeds = e_seeds ? (uint32_t)strtoul(e_seeds, NULL, 0) : 2u, s;
    const char *e_faults = getenv("STEADYFS_HANDLES_FAULTS"), *e_first = getenv("STEADYFS_HANDLES_FIRST");
    uint32_t first = e_first ? (uint32_t)strtoul(e_first, NULL, 0) : 1u;
    fault_ppm = e_faults ? (uint32_t)strtoul(e_faults, NULL, 0) : 0u;
    for (s = first; s < first + seeds; s++) {
        run(&api_calls, "mt29f1g01", 128, 0, 1, NH, s, ops);
        run(&api_calls, "mt29f1g01", 128, 0, 0, NH, s, ops);
        run(&api_calls, "mt29f1g01", 128, 0, 1, 8, s, ops);
        run(&api_calls, "mt25q128", 0, 0, 1, NH, s, ops / 4u);
        run(&api_calls, "em064lx", 0, 0, 1, NH, s, ops);
        run(&api_calls, "em064lx", 0, 4096, 1, NH, s, ops);
        run(&p9_calls, "mt29f1g01", 128, 0, 1, NH, s, ops / 2u);
        run(&p9_calls, "em064lx", 0, 0, 1, NH, s, ops / 2u);
        /* near the live limit: calls failing with ENOSPC */
        near_full = 1;
        run(&api_calls, "mt29f1g01", 16, 0, 1, NH, s, ops / 4u);
        run(&p9_calls, "mt29f1g01", 16, 0, 1, NH, s, ops / 4u);
        run(&api_calls, "em064lx", 24, 0, 1, NH, s, ops / 4u);
        run(&api_calls, "mt25q128", 384, 0, 1, NH, s, ops / 8u);
        near_full = 0;
        /* units going bad under the open files, on the whole and near the
         * live limit */
        if (!e_faults) {
            fault_ppm = 8000;
            run(&api_calls, "mt29f1g01", 128, 0, 1, NH, s, ops / 2u);
            fault_ppm = 1500;
            near_full = 1;
            run(&api_calls, "mt29f1g01", 16, 0, 1, NH, s, ops / 4u);
            near_full = 0;
            fault_ppm = 0;
        }
        dirs_run("mt29f1g01", 128, 1, s, ops / 2u);
        dirs_run("mt25q128", 0, 0, s, ops / 8u);
        dirs_run("em064lx", 0, 1, s, ops / 2u);
    }
    return check_done("test_fs_handles");
}
