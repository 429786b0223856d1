/* steady-fsocexp: the measurements behind `steady model` (seed 002, the
 * FSOC paper, Fig. 15 and Table 2).  The same file operations run twice on
 * identical simulated devices:
 *
 *   conventional  the host runs steadyfs itself; every block request crosses
 *                 the host link.  A counting sbd between the file system and
 *                 the device adds up the bytes each way (page data + spare)
 *                 and the requests.
 *   FSOC          steadyfs runs in the device behind the 9P2000.L server
 *                 (p9srv_handle); the host sends the messages a Linux-like
 *                 v9fs client would (walk, lcreate/lopen, read/write in
 *                 msize chunks, getattr, clunk), each encoded with the
 *                 codec (p9.h).  Traffic = the T- and R-message bytes.
 *                 --client lean sends one round trip per step instead, like
 *                 the paper's open_cli/read_cli stub.  --emulate (or a build
 *                 without src/p9/p9srv*.c) replaces the server by a small
 *                 dispatcher in this file that makes the same steadyfs
 *                 calls; its byte counts equal the server's, which
 *                 tests/py/test_fsocmodel.py checks ("backend" in the JSON
 *                 says which answered).
 *
 * Per application call it records bytes to and from the device, requests
 * (block operations or 9P round trips), the device's virtual-clock media
 * time, and the native CPU time of the file-system side (thread CPU time of
 * the calls minus the time spent inside the device model), the minimum over
 * --reps identical runs.  Output: one JSON document on stdout, which
 * python/steadyfs/fsocmodel.py turns into the model's parameters.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "steadyfs/p9.h"
#include "steadyfs/p9srv.h"
#include "steadyfs/sim.h"
#include "steadyfs/steadyfs.h"

/* The server may not be linked into this build yet: weak references, and
 * the stand-in dispatcher below when they resolve to NULL. */
#pragma weak p9srv_init
#pragma weak p9srv_handle
#pragma weak p9srv_mem_size

#define MSIZE_MAX 65536u
#define MAX_UNITS 8192u
#define PATH_LEN 256

/* ---- time ----------------------------------------------------------------- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of this thread: what other processes on a shared machine do
 * does not count.  It costs a system call (about a microsecond), so it
 * brackets whole calls only; the short device-model intervals inside use
 * the cheap monotonic clock, and g_clk_ns, the smallest interval two
 * consecutive readings show, is taken off each bracket. */
static uint64_t thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t g_clk_ns;

static void clock_calibrate(void)
{
    uint64_t best = UINT64_MAX, a, b;
    int i;
    for (i = 0; i < 2000; i++) {
        a = thread_ns();
        b = thread_ns();
        if (b - a < best)
            best = b - a;
    }
    g_clk_ns = best;
}

/* CPU time of a bracket minus the device model's share and the clock's. */
static uint64_t fs_cpu(uint64_t bracket, uint64_t dev)
{
    uint64_t cost = dev + g_clk_ns;
    return bracket > cost ? bracket - cost : 0;
}

/* ---- the counting block link ---------------------------------------------- */

typedef struct link {
    sbd bd;             /* what the file system sees */
    const sbd *inner;   /* the simulated device */
    sim_dev *dev;
    uint64_t to_dev, from_dev, reqs;
    uint64_t dev_wall_ns; /* host CPU time spent inside the device model */
} link;

static int lk_read(void *ctx, uint32_t b, uint32_t off, void *buf, uint32_t len, void *sp,
                   uint32_t splen)
{
    link *l = ctx;
    uint64_t t0 = mono_ns();
    int rc = l->inner->ops->read(l->inner->ctx, b, off, buf, len, sp, splen);
    l->dev_wall_ns += mono_ns() - t0;
    l->from_dev += (uint64_t)len + splen;
    l->reqs++;
    return rc;
}

static int lk_prog(void *ctx, uint32_t b, uint32_t off, const void *buf, uint32_t len,
                   const void *sp, uint32_t splen)
{
    link *l = ctx;
    uint64_t t0 = mono_ns();
    int rc = l->inner->ops->prog(l->inner->ctx, b, off, buf, len, sp, splen);
    l->dev_wall_ns += mono_ns() - t0;
    l->to_dev += (uint64_t)len + splen;
    l->reqs++;
    return rc;
}

static int lk_erase(void *ctx, uint32_t b, uint32_t n)
{
    link *l = ctx;
    uint64_t t0 = mono_ns();
    int rc = l->inner->ops->erase(l->inner->ctx, b, n);
    l->dev_wall_ns += mono_ns() - t0;
    l->reqs++;
    return rc;
}

static int lk_sync(void *ctx)
{
    link *l = ctx;
    return l->inner->ops->sync(l->inner->ctx);
}

static int lk_is_bad(void *ctx, uint32_t b)
{
    link *l = ctx;
    return l->inner->ops->is_bad(l->inner->ctx, b);
}

static int lk_mark_bad(void *ctx, uint32_t b)
{
    link *l = ctx;
    return l->inner->ops->mark_bad(l->inner->ctx, b);
}

static const sbd_ops lk_ops = {lk_read, lk_prog, lk_erase, lk_sync, lk_is_bad, lk_mark_bad, NULL};

/* ---- one side: device + file system (+ server) ---------------------------- */

typedef struct unit {
    uint64_t to_dev, from_dev, reqs, media_ns, cpu_ns;
} unit;

typedef struct side {
    sim_dev dev;
    void *image;
    link lk;
    steadyfs fs;
    steadyfs_config cfg;
    void *work;
    uint8_t sector[4096];
    /* FSOC only */
    int fsoc;
    p9srv srv;
    void *srv_mem;
    uint32_t msize;
    uint16_t tag;
    uint8_t tbuf[MSIZE_MAX], rbuf[MSIZE_MAX];
    /* accounting of the current application call */
    uint64_t u_to, u_from, u_reqs, u_media, u_cpu;
    uint64_t mark_to, mark_from, mark_reqs, mark_media, mark_devwall, mark_wall;
    unit units[MAX_UNITS];
    uint32_t nunits;
} side;

static const char *g_profile = "mt29f1g01";
static uint32_t g_blocks = 128, g_msize = 8192, g_unit = 4096;
static uint64_t g_seed = 1;
/* steadyfs configuration, the same on both sides.  Transactions hold
 * (pending_max - 8) / open_max = 14 sectors: larger transactions mean fewer
 * forced commits, hence fewer metadata pages on the conventional link
 * (open_max 8 with the default pending_max 32 would commit every 3
 * sectors).  file_pages_log2 12 (8 MiB files) keeps the checkpoint, which
 * holds the pending changes, within one sector. */
static uint32_t g_open_max = 4, g_pending_max = 64, g_file_pages_log2 = 12;
static int g_emulated;
/* Client behaviour: 0 = like Linux v9fs (lookups before creates, getattr
 * to instantiate inodes), 1 = lean (one round trip per step, like the
 * paper's open_cli/..., no lookups the server repeats anyway). */
static int g_lean;

static void die(const char *what, long rc)
{
    fprintf(stderr, "steady-fsocexp: %s failed (%ld)\n", what, rc);
    exit(1);
}

static void side_open(side *s, int fsoc)
{
    const sim_profile *p = sim_profile_find(g_profile);
    uint64_t len;
    uint32_t ws;
    int rc;
    if (!p) {
        fprintf(stderr, "steady-fsocexp: unknown device profile '%s'\n", g_profile);
        exit(2);
    }
    memset(s, 0, sizeof *s);
    s->fsoc = fsoc;
    len = sim_image_size(p, g_blocks);
    s->image = calloc(1, (size_t)len);
    if (!s->image || sim_init(&s->dev, p, g_blocks, s->image, len, SIM_TYPICAL, g_seed, 1))
        die("sim_init", 0);
    s->lk.inner = &s->dev.bd;
    s->lk.dev = &s->dev;
    s->lk.bd.ops = &lk_ops;
    s->lk.bd.ctx = &s->lk;
    s->lk.bd.geo = s->dev.bd.geo;
    s->cfg.bd = &s->lk.bd;
    s->cfg.open_max = (uint16_t)g_open_max;
    s->cfg.pending_max = (uint16_t)g_pending_max;
    s->cfg.file_pages_log2 = (uint8_t)g_file_pages_log2;
    s->cfg.max_inodes = 1024;
    s->cfg.dir_pages = 15;   /* the most format 9 takes (a directory and its inode in 16 pages) */
    ws = steadyfs_work_size(&s->cfg);
    if (!ws)
        die("steadyfs_work_size", 0);
    s->work = calloc(1, ws);
    s->cfg.work = s->work;
    s->cfg.work_size = ws;
    s->cfg.sector_buf = s->sector;
    s->cfg.sector_buf_size = sizeof s->sector;
    if ((rc = steadyfs_format(&s->fs, &s->cfg)) < 0)
        die("steadyfs_format", rc);
    if ((rc = steadyfs_mount(&s->fs, &s->cfg)) < 0)
        die("steadyfs_mount", rc);
}

static void side_close(side *s)
{
    steadyfs_unmount(&s->fs);
    free(s->image);
    free(s->work);
    free(s->srv_mem);
}

/* An application call starts / ends: what happened in between is one unit. */
static void unit_begin(side *s)
{
    s->mark_to = s->lk.to_dev;
    s->mark_from = s->lk.from_dev;
    s->mark_reqs = s->lk.reqs;
    s->mark_media = s->dev.now_ns;
    s->u_to = s->u_from = s->u_reqs = s->u_cpu = 0;
}

static void unit_end(side *s)
{
    unit *u;
    if (s->nunits >= MAX_UNITS)
        die("too many units", 0);
    u = &s->units[s->nunits++];
    u->media_ns = s->dev.now_ns - s->mark_media;
    if (s->fsoc) {
        u->to_dev = s->u_to;
        u->from_dev = s->u_from;
        u->reqs = s->u_reqs;
        u->cpu_ns = s->u_cpu;
    } else {
        u->to_dev = s->lk.to_dev - s->mark_to;
        u->from_dev = s->lk.from_dev - s->mark_from;
        u->reqs = s->lk.reqs - s->mark_reqs;
        u->cpu_ns = s->u_cpu;
    }
}

/* Conventional: time host file-system code around a block of calls. */
static void cpu_begin(side *s)
{
    s->mark_devwall = s->lk.dev_wall_ns;
    s->mark_wall = thread_ns();
}

static void cpu_end(side *s)
{
    uint64_t t = thread_ns() - s->mark_wall, dev = s->lk.dev_wall_ns - s->mark_devwall;
    s->u_cpu += fs_cpu(t, dev);
}

/* ---- stand-in server (used only when p9srv is not linked) ----------------- */

#define EFIDS 32
typedef struct efid {
    int used, fd;
    uint32_t fid;
    char path[PATH_LEN];
} efid;
static efid g_efid[EFIDS];

static efid *efind(uint32_t fid)
{
    int i;
    for (i = 0; i < EFIDS; i++)
        if (g_efid[i].used && g_efid[i].fid == fid)
            return &g_efid[i];
    return NULL;
}

static efid *enew(uint32_t fid, const char *path)
{
    int i;
    for (i = 0; i < EFIDS; i++)
        if (!g_efid[i].used) {
            g_efid[i].used = 1;
            g_efid[i].fd = -1;
            g_efid[i].fid = fid;
            snprintf(g_efid[i].path, PATH_LEN, "%s", path);
            return &g_efid[i];
        }
    return NULL;
}

static void ejoin(char *out, const char *dir, struct p9_str name)
{
    size_t dl = strlen(dir), sep = strcmp(dir, "/") ? 1 : 0;
    if (dl + sep + name.len >= PATH_LEN)
        die("emulated server: path too long", (long)name.len);
    memcpy(out, dir, dl);
    if (sep)
        out[dl] = '/';
    memcpy(out + dl + sep, name.ptr, name.len);
    out[dl + sep + name.len] = 0;
}

static struct p9_qid eqid(const steadyfs_stat *st)
{
    struct p9_qid q;
    q.type = st->type == STEADYFS_TYPE_DIR ? P9_QTDIR : P9_QTFILE;
    q.version = 0;
    q.path = st->id;
    return q;
}

static int eflags(uint32_t lf)
{
    int f = (lf & 3) == 1 ? STEADYFS_O_WRONLY : (lf & 3) == 2 ? STEADYFS_O_RDWR : STEADYFS_O_RDONLY;
    if (lf & 0100)
        f |= STEADYFS_O_CREAT;
    if (lf & 0200)
        f |= STEADYFS_O_EXCL;
    if (lf & 01000)
        f |= STEADYFS_O_TRUNC;
    return f;
}

static int32_t emulate(side *s, const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t cap)
{
    struct p9_msg m, r;
    steadyfs_stat st;
    char path[PATH_LEN];
    efid *f;
    int rc = 0, i;
    if (p9_decode(in, in_len, s->msize, &m) < 0)
        die("decode", 0);
    memset(&r, 0, sizeof r);
    r.type = (uint8_t)(m.type + 1);
    r.tag = m.tag;
    switch (m.type) {
    case P9_TVERSION:
        r.u.version.msize = m.u.version.msize < s->msize ? m.u.version.msize : s->msize;
        r.u.version.version = p9_cstr(P9SRV_VERSION);
        break;
    case P9_TATTACH:
        enew(m.u.tattach.fid, "/");
        rc = steadyfs_stat_path(&s->fs, "/", &st);
        r.u.qid = eqid(&st);
        break;
    case P9_TWALK:
        f = efind(m.u.twalk.fid);
        snprintf(path, PATH_LEN, "%s", f->path);
        for (i = 0; i < m.u.twalk.nwname; i++) {
            char nxt[PATH_LEN];
            ejoin(nxt, path, m.u.twalk.wname[i]);
            rc = steadyfs_stat_path(&s->fs, nxt, &st);
            if (rc < 0)
                break;
            r.u.rwalk.wqid[i] = eqid(&st);
            snprintf(path, PATH_LEN, "%s", nxt);
        }
        r.u.rwalk.nwqid = (uint16_t)i;
        if (i == m.u.twalk.nwname) {
            enew(m.u.twalk.newfid, path);
            rc = 0;
        } else if (i > 0)
            rc = 0;
        break;
    case P9_TGETATTR:
        f = efind(m.u.tgetattr.fid);
        rc = steadyfs_stat_path(&s->fs, f->path, &st);
        r.u.rgetattr.valid = P9_GETATTR_BASIC;
        r.u.rgetattr.qid = eqid(&st);
        r.u.rgetattr.mode = st.type == STEADYFS_TYPE_DIR ? 040755 : 0100644;
        r.u.rgetattr.nlink = 1;
        r.u.rgetattr.size = st.size;
        r.u.rgetattr.blksize = 4096;
        r.u.rgetattr.blocks = (st.size + 511) / 512;
        break;
    case P9_TLCREATE:
        f = efind(m.u.tlcreate.fid);
        ejoin(path, f->path, m.u.tlcreate.name);
        rc = steadyfs_open(&s->fs, path, eflags(m.u.tlcreate.flags) | STEADYFS_O_CREAT);
        if (rc >= 0) {
            f->fd = rc;
            snprintf(f->path, PATH_LEN, "%s", path);
            rc = steadyfs_fstat(&s->fs, f->fd, &st);
            r.u.ropen.qid = eqid(&st);
            r.u.ropen.iounit = s->msize - P9_IOHDRSZ;
        }
        break;
    case P9_TLOPEN:
        f = efind(m.u.tlopen.fid);
        rc = steadyfs_open(&s->fs, f->path, eflags(m.u.tlopen.flags));
        if (rc >= 0) {
            f->fd = rc;
            rc = steadyfs_fstat(&s->fs, f->fd, &st);
            r.u.ropen.qid = eqid(&st);
            r.u.ropen.iounit = s->msize - P9_IOHDRSZ;
        }
        break;
    case P9_TREAD:
        f = efind(m.u.tread.fid);
        rc = (int)steadyfs_seek(&s->fs, f->fd, (int64_t)m.u.tread.offset, STEADYFS_SEEK_SET);
        if (rc >= 0)
            rc = steadyfs_read(&s->fs, f->fd, out + P9_RREAD_HDR, m.u.tread.count);
        if (rc >= 0) {
            r.u.rread.count = (uint32_t)rc;
            r.u.rread.data = out + P9_RREAD_HDR;
            rc = 0;
        }
        break;
    case P9_TWRITE:
        f = efind(m.u.twrite.fid);
        rc = (int)steadyfs_seek(&s->fs, f->fd, (int64_t)m.u.twrite.offset, STEADYFS_SEEK_SET);
        if (rc >= 0)
            rc = steadyfs_write(&s->fs, f->fd, m.u.twrite.data, m.u.twrite.count);
        if (rc >= 0) {
            r.u.rwrite.count = (uint32_t)rc;
            rc = 0;
        }
        break;
    case P9_TCLUNK:
        f = efind(m.u.fid.fid);
        if (f->fd >= 0)
            rc = steadyfs_close(&s->fs, f->fd);
        f->used = 0;
        break;
    case P9_TMKDIR:
        f = efind(m.u.tmkdir.dfid);
        ejoin(path, f->path, m.u.tmkdir.name);
        rc = steadyfs_mkdir(&s->fs, path);
        if (rc >= 0)
            rc = steadyfs_stat_path(&s->fs, path, &st);
        r.u.qid = eqid(&st);
        break;
    case P9_TUNLINKAT:
        f = efind(m.u.tunlinkat.dirfid);
        ejoin(path, f->path, m.u.tunlinkat.name);
        rc = (m.u.tunlinkat.flags & 0x200) ? steadyfs_rmdir(&s->fs, path)
                                           : steadyfs_unlink(&s->fs, path);
        break;
    default:
        die("emulated server: unexpected message", m.type);
    }
    if (rc < 0) {
        r.type = P9_RLERROR;
        r.u.rlerror.ecode = (uint32_t)-rc;
    }
    rc = p9_encode(&r, out, cap);
    if (rc < 0)
        die("encode reply", rc);
    return rc;
}

/* ---- the 9P client (a Linux-like v9fs, cache=none) ------------------------ */

/* Sends one T-message, lets the device handle it, decodes the reply into
 * *r.  Counts bytes both ways and the device-side CPU time.  Returns the
 * Rlerror errno as a negative number, or 0. */
static int rpc(side *s, struct p9_msg *t, struct p9_msg *r)
{
    int32_t n, rn;
    uint64_t w0, d0, wall, dev;
    t->tag = t->type == P9_TVERSION ? P9_NOTAG : (uint16_t)(++s->tag & 0x7fff);
    n = p9_encode(t, s->tbuf, sizeof s->tbuf);
    if (n < 0)
        die("encode request", n);
    d0 = s->lk.dev_wall_ns;
    w0 = thread_ns();
    rn = g_emulated ? emulate(s, s->tbuf, (uint32_t)n, s->rbuf, s->msize)
                    : p9srv_handle(&s->srv, s->tbuf, (uint32_t)n, s->rbuf, s->msize);
    wall = thread_ns() - w0;
    dev = s->lk.dev_wall_ns - d0;
    if (rn < 0)
        die("p9srv_handle", rn);
    s->u_cpu += fs_cpu(wall, dev);
    s->u_to += (uint64_t)n;
    s->u_from += (uint64_t)rn;
    s->u_reqs++;
    if (p9_decode(s->rbuf, (size_t)rn, s->msize, r) != rn)
        die("decode reply", 0);
    if (r->tag != t->tag)
        die("reply tag", r->tag);
    if (r->type == P9_RLERROR)
        return -(int)r->u.rlerror.ecode;
    if (r->type != t->type + 1)
        die("reply type", r->type);
    return 0;
}

static uint32_t g_nextfid = 1;

static int c_walk(side *s, uint32_t fid, uint32_t newfid, const char *name)
{
    struct p9_msg t, r;
    memset(&t, 0, sizeof t);
    t.type = P9_TWALK;
    t.u.twalk.fid = fid;
    t.u.twalk.newfid = newfid;
    if (name) {
        t.u.twalk.nwname = 1;
        t.u.twalk.wname[0] = p9_cstr(name);
    }
    return rpc(s, &t, &r);
}

static void c_getattr(side *s, uint32_t fid)
{
    struct p9_msg t, r;
    memset(&t, 0, sizeof t);
    t.type = P9_TGETATTR;
    t.u.tgetattr.fid = fid;
    t.u.tgetattr.request_mask = P9_GETATTR_BASIC;
    if (rpc(s, &t, &r) < 0)
        die("getattr", 0);
}

static void c_clunk(side *s, uint32_t fid)
{
    struct p9_msg t, r;
    memset(&t, 0, sizeof t);
    t.type = P9_TCLUNK;
    t.u.fid.fid = fid;
    if (rpc(s, &t, &r) < 0)
        die("clunk", 0);
}

/* A directory the client has looked up (its dentry is cached from now on). */
static uint32_t c_lookup_dir(side *s, uint32_t parent, const char *name)
{
    uint32_t fid = g_nextfid++;
    if (c_walk(s, parent, fid, name) < 0)
        die("walk dir", 0);
    if (!g_lean)
        c_getattr(s, fid);
    return fid;
}

/* open(name, O_CREAT|O_WRONLY|O_TRUNC) as v9fs_vfs_atomic_open_dotl does
 * it: negative lookup, clone the directory fid, Tlcreate on the clone (it
 * becomes the open file), instantiate the new inode (walk + getattr).
 * Returns the open fid; *ino gets the inode's fid, clunked by c_close
 * (when the dentry goes).  Lean: clone + Tlcreate. */
static uint32_t c_create(side *s, uint32_t dfid, const char *name, uint32_t *ino)
{
    struct p9_msg t, r;
    uint32_t ofid = g_nextfid++;
    if (!g_lean && c_walk(s, dfid, g_nextfid, name) != -2)
        die("create: name exists", 0);
    if (c_walk(s, dfid, ofid, NULL) < 0)
        die("clone", 0);
    memset(&t, 0, sizeof t);
    t.type = P9_TLCREATE;
    t.u.tlcreate.fid = ofid;
    t.u.tlcreate.name = p9_cstr(name);
    t.u.tlcreate.flags = 01 | 0100 | 01000;  /* O_WRONLY|O_CREAT|O_TRUNC */
    t.u.tlcreate.mode = 0644;
    if (rpc(s, &t, &r) < 0)
        die("lcreate", 0);
    *ino = P9_NOFID;
    if (g_lean)
        return ofid;
    *ino = g_nextfid++;
    if (c_walk(s, dfid, *ino, name) < 0)
        die("walk new", 0);
    c_getattr(s, *ino);
    return ofid;
}

/* open(name, O_RDONLY): lookup (walk + getattr), clone, Tlopen (v9fs);
 * lean: walk + Tlopen. */
static uint32_t c_open(side *s, uint32_t dfid, const char *name, uint32_t *ino)
{
    struct p9_msg t, r;
    uint32_t ofid;
    *ino = P9_NOFID;
    if (g_lean) {
        ofid = g_nextfid++;
        if (c_walk(s, dfid, ofid, name) < 0)
            die("open: walk", 0);
    } else {
        *ino = g_nextfid++;
        if (c_walk(s, dfid, *ino, name) < 0)
            die("open: walk", 0);
        c_getattr(s, *ino);
        ofid = g_nextfid++;
        if (c_walk(s, *ino, ofid, NULL) < 0)
            die("open: clone", 0);
    }
    memset(&t, 0, sizeof t);
    t.type = P9_TLOPEN;
    t.u.tlopen.fid = ofid;
    t.u.tlopen.flags = 0;
    if (rpc(s, &t, &r) < 0)
        die("lopen", 0);
    return ofid;
}

static void c_close(side *s, uint32_t ofid, uint32_t ino)
{
    c_clunk(s, ofid);
    if (ino != P9_NOFID)
        c_clunk(s, ino);
}

/* One application write/read of len bytes at off: chunks of msize - 24. */
static void c_write(side *s, uint32_t fid, uint64_t off, const uint8_t *buf, uint32_t len)
{
    struct p9_msg t, r;
    uint32_t iounit = s->msize - P9_IOHDRSZ, done = 0, n;
    while (done < len) {
        n = len - done < iounit ? len - done : iounit;
        memset(&t, 0, sizeof t);
        t.type = P9_TWRITE;
        t.u.twrite.fid = fid;
        t.u.twrite.offset = off + done;
        t.u.twrite.count = n;
        t.u.twrite.data = buf + done;
        if (rpc(s, &t, &r) < 0 || r.u.rwrite.count != n)
            die("write", 0);
        done += n;
    }
}

static uint32_t c_read(side *s, uint32_t fid, uint64_t off, uint32_t len)
{
    struct p9_msg t, r;
    uint32_t iounit = s->msize - P9_IOHDRSZ, done = 0, n;
    while (done < len) {
        n = len - done < iounit ? len - done : iounit;
        memset(&t, 0, sizeof t);
        t.type = P9_TREAD;
        t.u.tread.fid = fid;
        t.u.tread.offset = off + done;
        t.u.tread.count = n;
        if (rpc(s, &t, &r) < 0)
            die("read", 0);
        done += r.u.rread.count;
        if (r.u.rread.count < n)
            break;
    }
    return done;
}

/* mkdir(name): v9fs (cache=none) looks the name up (ENOENT), sends Tmkdir
 * and instantiates no inode (fs/9p/vfs_inode_dotl.c, v9fs_vfs_mkdir_dotl);
 * the lean client sends Tmkdir only.  want_fid: the caller goes on to use
 * the directory (cp -r), which costs a lookup (walk, and getattr for v9fs);
 * returns its fid, else P9_NOFID. */
static uint32_t c_mkdir(side *s, uint32_t dfid, const char *name, int want_fid)
{
    struct p9_msg t, r;
    uint32_t fid = g_nextfid++;
    if (!g_lean && c_walk(s, dfid, fid, name) != -2)
        die("mkdir: exists", 0);
    memset(&t, 0, sizeof t);
    t.type = P9_TMKDIR;
    t.u.tmkdir.dfid = dfid;
    t.u.tmkdir.name = p9_cstr(name);
    t.u.tmkdir.mode = 0755;
    if (rpc(s, &t, &r) < 0)
        die("mkdir", 0);
    if (!want_fid)
        return P9_NOFID;
    if (c_walk(s, dfid, fid, name) < 0)
        die("mkdir: walk", 0);
    if (!g_lean)
        c_getattr(s, fid);
    return fid;
}

/* unlink / rmdir: lookup (walk + getattr), Tunlinkat, clunk the inode fid
 * (v9fs); lean: Tunlinkat. */
static void c_remove(side *s, uint32_t dfid, const char *name, int dir)
{
    struct p9_msg t, r;
    uint32_t fid = g_lean ? P9_NOFID : g_nextfid++;
    if (!g_lean) {
        if (c_walk(s, dfid, fid, name) < 0)
            die("remove: walk", 0);
        c_getattr(s, fid);
    }
    memset(&t, 0, sizeof t);
    t.type = P9_TUNLINKAT;
    t.u.tunlinkat.dirfid = dfid;
    t.u.tunlinkat.name = p9_cstr(name);
    t.u.tunlinkat.flags = dir ? 0x200 : 0;  /* AT_REMOVEDIR */
    if (rpc(s, &t, &r) < 0)
        die("unlinkat", 0);
    if (fid != P9_NOFID)
        c_clunk(s, fid);
}

static void fsoc_connect(side *s)
{
    struct p9_msg t, r;
    int rc;
    s->msize = g_msize;
    if (!g_emulated) {
        p9srv_config c;
        memset(&c, 0, sizeof c);
        c.fs = &s->fs;
        c.msize_max = g_msize;
        c.fid_max = 32;
        c.path_max = PATH_LEN;
        c.mem_size = p9srv_mem_size(&c);
        s->srv_mem = calloc(1, c.mem_size);
        c.mem = s->srv_mem;
        if ((rc = p9srv_init(&s->srv, &c)) < 0)
            die("p9srv_init", rc);
    } else {
        memset(g_efid, 0, sizeof g_efid);
    }
    memset(&t, 0, sizeof t);
    t.type = P9_TVERSION;
    t.u.version.msize = g_msize;
    t.u.version.version = p9_cstr(P9SRV_VERSION);
    if (rpc(s, &t, &r) < 0)
        die("version", 0);
    s->msize = r.u.version.msize;
    memset(&t, 0, sizeof t);
    t.type = P9_TATTACH;
    t.u.tattach.fid = 0;
    t.u.tattach.afid = P9_NOFID;
    t.u.tattach.uname = p9_cstr("root");
    t.u.tattach.aname = p9_cstr("");
    t.u.tattach.n_uname = 0;
    if (rpc(s, &t, &r) < 0)
        die("attach", 0);
    g_nextfid = 1;
}

/* ---- conventional: the host's own steadyfs calls --------------------------- */

static void h_check(long rc, const char *what)
{
    if (rc < 0)
        die(what, rc);
}

/* ---- the experiments ------------------------------------------------------- */

static uint8_t g_data[1u << 20];

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 2685821657736338717ull;
}

/* Andrew-like tree: ANDREW_DIRS directories of ANDREW_FILES files, sizes
 * log-uniform in [128 B, 32 KiB] from a fixed seed. */
#define ANDREW_DIRS 5
#define ANDREW_FILES 14
static uint32_t andrew_size(int d, int f)
{
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)(d * 131 + f + 1);
    double u;
    int i;
    for (i = 0; i < 4; i++)
        rng_next(&x);
    u = (double)(rng_next(&x) >> 11) / 9007199254740992.0;
    return (uint32_t)(128.0 * exp2(8.0 * u));
}

/* Untimed set-up on either side: directly on the file system (in FSOC the
 * device would have it already). */
static void setup_file(side *s, const char *path, uint32_t size)
{
    int fd = steadyfs_open(&s->fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
    uint32_t done = 0, n;
    h_check(fd, "setup open");
    while (done < size) {
        n = size - done < 4096 ? size - done : 4096;
        h_check(steadyfs_write(&s->fs, fd, g_data + (done % (1u << 19)), n), "setup write");
        done += n;
    }
    h_check(steadyfs_close(&s->fs, fd), "setup close");
}

enum wl { WL_CREATE, WL_MKDIR, WL_RMDIR, WL_UNLINK, WL_READ1M, WL_WRITE1M, WL_COPY512,
          WL_COPY4K, WL_COPY16K, WL_COPY32K, WL_CREATE500, WL_ANDREW, WL_COUNT };
static const char *const wl_name[WL_COUNT] = {"create", "mkdir", "rmdir", "unlink", "read_1m",
                                              "write_1m", "copy_512", "copy_4k", "copy_16k",
                                              "copy_32k", "create500",
                                              "andrew"};

/* Operations measured in isolation are repeated REPEAT times (distinct
 * names) in a working directory that already holds POPULATION files: a
 * used file system rather than an empty one. */
#define REPEAT 8
#define POPULATION 16

/* cp SRC DST of one file, as one application call: on FSOC through 9P with
 * the two directories' fids cached, on the host through steadyfs. */
static void copy_file(side *s, uint32_t sdfid, uint32_t ddfid, const char *sdir, const char *ddir,
                      const char *name)
{
    static uint8_t buf[65536];
    uint32_t k;
    if (s->fsoc) {
        uint32_t rf, ri, wf, wi;
        rf = c_open(s, sdfid, name, &ri);
        wf = c_create(s, ddfid, name, &wi);
        for (k = 0;; k += g_unit) {
            uint32_t got = c_read(s, rf, k, g_unit);
            if (!got)
                break;
            c_write(s, wf, k, buf, got);
            if (got < g_unit)
                break;
        }
        c_close(s, rf, ri);
        c_close(s, wf, wi);
    } else {
        char path[PATH_LEN], dpath[PATH_LEN];
        int rfd, wfd;
        int32_t got;
        snprintf(path, sizeof path, "%s/%s", sdir, name);
        snprintf(dpath, sizeof dpath, "%s/%s", ddir, name);
        cpu_begin(s);
        rfd = steadyfs_open(&s->fs, path, STEADYFS_O_RDONLY);
        h_check(rfd, "open src");
        wfd = steadyfs_open(&s->fs, dpath, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
        h_check(wfd, "open dst");
        for (;;) {
            got = steadyfs_read(&s->fs, rfd, buf, g_unit);
            h_check(got, "read");
            if (!got)
                break;
            h_check(steadyfs_write(&s->fs, wfd, buf, (uint32_t)got), "write");
            if ((uint32_t)got < g_unit)
                break;
        }
        h_check(steadyfs_close(&s->fs, rfd), "close");
        h_check(steadyfs_close(&s->fs, wfd), "close");
        cpu_end(s);
    }
}

/* File size of the copy_* workloads: the range of the Andrew tree's. */
static uint32_t copy_size(enum wl w)
{
    return w == WL_COPY512 ? 512u : w == WL_COPY4K ? 4096u : w == WL_COPY16K ? 16384u : 32768u;
}

/* Runs workload w on a fresh side. */
static void run(side *s, enum wl w)
{
    char name[64], path[PATH_LEN];
    uint32_t dfid = 0, ofid = 0, ino = 0, i, j, k, n;
    int fd = -1;
    h_check(steadyfs_mkdir(&s->fs, "/w"), "setup");
    for (i = 0; i < POPULATION; i++) {
        snprintf(path, sizeof path, "/w/pop%02u", i);
        setup_file(s, path, 1000);
    }
    for (i = 0; i < REPEAT; i++) {
        snprintf(path, sizeof path, "/w/x%u", i);
        if (w == WL_RMDIR)
            h_check(steadyfs_mkdir(&s->fs, path), "setup");
        if (w == WL_UNLINK)
            setup_file(s, path, 1000);
    }
    if (w == WL_READ1M)
        setup_file(s, "/w/x", 1u << 20);
    if (w >= WL_COPY512 && w <= WL_COPY32K) {
        /* the same depth as the Andrew tree's files: steadyfs resolves
         * every path from the root */
        h_check(steadyfs_mkdir(&s->fs, "/w/src"), "setup");
        h_check(steadyfs_mkdir(&s->fs, "/w/src/d"), "setup");
        h_check(steadyfs_mkdir(&s->fs, "/w/dst"), "setup");
        h_check(steadyfs_mkdir(&s->fs, "/w/dst/d"), "setup");
        for (i = 0; i < REPEAT; i++) {
            snprintf(path, sizeof path, "/w/src/d/c%u", i);
            setup_file(s, path, copy_size(w));
        }
    }
    if (w == WL_ANDREW || (w >= WL_COPY512 && w <= WL_COPY32K)) {
        /* the Andrew source tree; the copy runs measure on the same state */
        if (w == WL_ANDREW)
            h_check(steadyfs_mkdir(&s->fs, "/w/src"), "setup");
        for (i = 0; i < ANDREW_DIRS; i++) {
            snprintf(path, sizeof path, "/w/src/d%u", i);
            h_check(steadyfs_mkdir(&s->fs, path), "setup");
            for (j = 0; j < ANDREW_FILES; j++) {
                snprintf(path, sizeof path, "/w/src/d%u/f%u.c", i, j);
                setup_file(s, path, andrew_size((int)i, (int)j));
            }
        }
    }
    if (s->fsoc) {
        fsoc_connect(s);
        dfid = c_lookup_dir(s, 0, "w");  /* the working directory: cached */
    }
    s->nunits = 0;

    switch (w) {
    case WL_CREATE:
    case WL_CREATE500:
        n = w == WL_CREATE ? REPEAT : 500;
        for (i = 0; i < n; i++) {
            snprintf(name, sizeof name, "file%04u", i);
            unit_begin(s);
            if (s->fsoc) {
                ofid = c_create(s, dfid, name, &ino);
                c_close(s, ofid, ino);
            } else {
                snprintf(path, sizeof path, "/w/%s", name);
                cpu_begin(s);
                fd = steadyfs_open(&s->fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
                h_check(fd, "create");
                h_check(steadyfs_close(&s->fs, fd), "close");
                cpu_end(s);
            }
            unit_end(s);
        }
        break;
    case WL_MKDIR:
    case WL_RMDIR:
    case WL_UNLINK:
        for (i = 0; i < REPEAT; i++) {
            snprintf(name, sizeof name, "x%u", i);
            snprintf(path, sizeof path, "/w/x%u", i);
            unit_begin(s);
            if (s->fsoc && w == WL_MKDIR) {
                uint32_t f = c_mkdir(s, dfid, name, 0);
                if (f != P9_NOFID)
                    c_clunk(s, f);
            }
            else if (s->fsoc)
                c_remove(s, dfid, name, w == WL_RMDIR);
            else {
                cpu_begin(s);
                h_check(w == WL_MKDIR ? steadyfs_mkdir(&s->fs, path)
                        : w == WL_RMDIR ? steadyfs_rmdir(&s->fs, path) : steadyfs_unlink(&s->fs, path),
                        "metadata op");
                cpu_end(s);
            }
            unit_end(s);
        }
        break;
    case WL_READ1M:
    case WL_WRITE1M:
        /* one unit for the open, one per application read/write of
         * g_unit bytes, one for the close */
        unit_begin(s);
        if (s->fsoc)
            ofid = w == WL_READ1M ? c_open(s, dfid, "x", &ino) : c_create(s, dfid, "x", &ino);
        else {
            cpu_begin(s);
            fd = steadyfs_open(&s->fs, "/w/x", w == WL_READ1M ? STEADYFS_O_RDONLY
                               : STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
            h_check(fd, "open");
            cpu_end(s);
        }
        unit_end(s);
        for (k = 0; k < (1u << 20); k += g_unit) {
            unit_begin(s);
            if (s->fsoc) {
                if (w == WL_READ1M) {
                    if (c_read(s, ofid, k, g_unit) != g_unit)
                        die("short read", 0);
                } else
                    c_write(s, ofid, k, g_data + k, g_unit);
            } else {
                cpu_begin(s);
                if (w == WL_READ1M)
                    h_check(steadyfs_read(&s->fs, fd, g_data, g_unit) == (int32_t)g_unit ? 0 : -1, "read");
                else
                    h_check(steadyfs_write(&s->fs, fd, g_data + k, g_unit), "write");
                cpu_end(s);
            }
            unit_end(s);
        }
        unit_begin(s);
        if (s->fsoc) {
            if (w == WL_READ1M && c_read(s, ofid, 1u << 20, g_unit) != 0)  /* EOF probe */
                die("eof", 0);
            c_close(s, ofid, ino);
        } else {
            cpu_begin(s);
            if (w == WL_READ1M)
                h_check(steadyfs_read(&s->fs, fd, g_data, g_unit) == 0 ? 0 : -1, "eof");
            h_check(steadyfs_close(&s->fs, fd), "close");
            cpu_end(s);
        }
        unit_end(s);
        break;
    case WL_COPY512:
    case WL_COPY4K:
    case WL_COPY16K:
    case WL_COPY32K: {
        uint32_t sd = 0, dd = 0;
        if (s->fsoc) {
            sd = c_lookup_dir(s, c_lookup_dir(s, dfid, "src"), "d");
            dd = c_lookup_dir(s, c_lookup_dir(s, dfid, "dst"), "d");
        }
        for (i = 0; i < REPEAT; i++) {
            snprintf(name, sizeof name, "c%u", i);
            unit_begin(s);
            copy_file(s, sd, dd, "/w/src/d", "/w/dst/d", name);
            unit_end(s);
        }
        break;
    }
    case WL_ANDREW: {
        /* cp -r /w/src /w/dst: one unit per mkdir (with the source
         * directory's lookup) and per file copied */
        uint32_t src_fid = 0, dst_fid = 0, sd = 0, dd = 0;
        char sdir[PATH_LEN], ddir[PATH_LEN];
        unit_begin(s);
        if (s->fsoc) {
            src_fid = c_lookup_dir(s, dfid, "src");
            dst_fid = c_mkdir(s, dfid, "dst", 1);
        } else {
            cpu_begin(s);
            h_check(steadyfs_mkdir(&s->fs, "/w/dst"), "mkdir");
            cpu_end(s);
        }
        unit_end(s);
        for (i = 0; i < ANDREW_DIRS; i++) {
            snprintf(name, sizeof name, "d%u", i);
            snprintf(sdir, sizeof sdir, "/w/src/%s", name);
            snprintf(ddir, sizeof ddir, "/w/dst/%s", name);
            unit_begin(s);
            if (s->fsoc) {
                sd = c_lookup_dir(s, src_fid, name);
                dd = c_mkdir(s, dst_fid, name, 1);
            } else {
                cpu_begin(s);
                h_check(steadyfs_mkdir(&s->fs, ddir), "mkdir");
                cpu_end(s);
            }
            unit_end(s);
            for (j = 0; j < ANDREW_FILES; j++) {
                snprintf(name, sizeof name, "f%u.c", j);
                unit_begin(s);
                copy_file(s, sd, dd, sdir, ddir, name);
                unit_end(s);
            }
            if (s->fsoc) {   /* the directories' fids go when cp leaves them */
                unit_begin(s);
                c_clunk(s, sd);
                c_clunk(s, dd);
                unit_end(s);
            }
        }
        break;
    }
    default:
        break;
    }
}

static void print_side(const side *best, const char *key, int last)
{
    uint64_t to = 0, from = 0, reqs = 0, media = 0, cpu = 0;
    uint32_t i;
    for (i = 0; i < best->nunits; i++) {
        to += best->units[i].to_dev;
        from += best->units[i].from_dev;
        reqs += best->units[i].reqs;
        media += best->units[i].media_ns;
        cpu += best->units[i].cpu_ns;
    }
    printf("    \"%s\": {\"to_dev\": %llu, \"from_dev\": %llu, \"requests\": %llu, "
           "\"media_ns\": %llu, \"cpu_ns\": %llu,\n      \"units\": [",
           key, (unsigned long long)to, (unsigned long long)from, (unsigned long long)reqs,
           (unsigned long long)media, (unsigned long long)cpu);
    for (i = 0; i < best->nunits; i++) {
        const unit *u = &best->units[i];
        printf("%s[%llu,%llu,%llu,%llu,%llu]", i ? "," : "", (unsigned long long)u->to_dev,
               (unsigned long long)u->from_dev, (unsigned long long)u->reqs,
               (unsigned long long)u->media_ns, (unsigned long long)u->cpu_ns);
    }
    printf("]}%s\n", last ? "" : ",");
}

static side g_side, g_best;

/* Runs workload w --reps times on fresh devices; keeps each unit's smallest
 * CPU time (the counts and media times are identical run to run). */
static void measure(enum wl w, int fsoc, uint32_t reps)
{
    uint32_t r, i;
    for (r = 0; r < reps; r++) {
        side_open(&g_side, fsoc);
        run(&g_side, w);
        if (r == 0)
            memcpy(&g_best, &g_side, sizeof g_side);
        else {
            if (g_side.nunits != g_best.nunits)
                die("runs differ", 0);
            for (i = 0; i < g_best.nunits; i++) {
                unit *b = &g_best.units[i], *u = &g_side.units[i];
                if (u->to_dev != b->to_dev || u->from_dev != b->from_dev || u->media_ns != b->media_ns)
                    die("runs differ", i);
                if (u->cpu_ns < b->cpu_ns)
                    b->cpu_ns = u->cpu_ns;
            }
        }
        side_close(&g_side);
    }
}

static int usage(void)
{
    fprintf(stderr,
            "usage: steady-fsocexp [--device PROFILE] [--blocks N] [--msize N] [--unit N]\n"
            "                      [--reps N] [--seed N] [--client v9fs|lean] [--emulate]\n"
            "                      [--open-max N] [--pending-max N] [--file-pages-log2 N]\n"
            "                      [WORKLOAD...]\n"
            "workloads: create mkdir rmdir unlink read_1m write_1m copy_512 copy_4k copy_16k copy_32k\n"
            "           create500 andrew (default: all)\n"
            "msize 256..65536; unit divides 1 MiB, at most 65536\n");
    return 2;
}

int main(int argc, char **argv)
{
    uint32_t reps = 5, i;
    int want[WL_COUNT], any = 0, first = 1, a, w;
    memset(want, 0, sizeof want);
    for (a = 1; a < argc; a++) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(o, "--device") && v)
            g_profile = v, a++;
        else if (!strcmp(o, "--blocks") && v)
            g_blocks = (uint32_t)strtoul(v, NULL, 0), a++;
        else if (!strcmp(o, "--msize") && v)
            g_msize = (uint32_t)strtoul(v, NULL, 0), a++;
        else if (!strcmp(o, "--unit") && v)
            g_unit = (uint32_t)strtoul(v, NULL, 0), a++;
        else if (!strcmp(o, "--reps") && v)
            reps = (uint32_t)strtoul(v, NULL, 0), a++;
        else if (!strcmp(o, "--open-max") && v)
            g_open_max = (uint32_t)strtoul(v, NULL, 0), a++;
        else if (!strcmp(o, "--pending-max") && v)
            g_pending_max = (uint32_t)strtoul(v, NULL, 0), a++;
        else if (!strcmp(o, "--file-pages-log2") && v)
            g_file_pages_log2 = (uint32_t)strtoul(v, NULL, 0), a++;
        else if (!strcmp(o, "--seed") && v)
            g_seed = strtoull(v, NULL, 0), a++;
        else if (!strcmp(o, "--emulate"))
            g_emulated = 1;
        else if (!strcmp(o, "--client") && v) {
            if (strcmp(v, "v9fs") && strcmp(v, "lean"))
                return usage();
            g_lean = !strcmp(v, "lean");
            a++;
        }
        else {
            for (w = 0; w < WL_COUNT; w++)
                if (!strcmp(o, wl_name[w]))
                    break;
            if (w == WL_COUNT)
                return usage();
            want[w] = any = 1;
        }
    }
    if (g_open_max < 2 || g_open_max > 64 || g_pending_max < 8 || g_pending_max > 1024 ||
        g_file_pages_log2 > 20)
        return usage();
    if (g_msize < 256 || g_msize > MSIZE_MAX || g_unit == 0 || g_unit > 65536 ||
        (1u << 20) % g_unit || reps == 0 || g_blocks < 16)
        return usage();   /* (fewer than 16 blocks hold no format) */
    if (!p9srv_handle || !p9srv_init || !p9srv_mem_size)
        g_emulated = 1;
    for (i = 0; i < sizeof g_data; i++)
        g_data[i] = (uint8_t)(i * 7u + (i >> 9));
    clock_calibrate();
    printf("{\"tool\": \"steady-fsocexp\", \"device\": \"%s\", \"blocks\": %u, \"msize\": %u, "
           "\"unit\": %u, \"reps\": %u, \"seed\": %llu,\n \"backend\": \"%s\", \"client\": \"%s\",\n"
           " \"page_size\": %u,\n"
           " \"fs\": {\"open_max\": %u, \"pending_max\": %u, \"file_pages_log2\": %u, "
           "\"max_inodes\": 1024, \"dir_pages\": 15},\n"
           " \"andrew\": {\"dirs\": %d, \"files_per_dir\": %d},\n \"workloads\": {\n",
           g_profile, g_blocks, g_msize, g_unit, reps, (unsigned long long)g_seed,
           g_emulated ? "emulated" : "p9srv", g_lean ? "lean" : "v9fs", sim_profile_find(g_profile) ? sim_profile_find(g_profile)->geo.page_size : 0, g_open_max, g_pending_max, g_file_pages_log2, ANDREW_DIRS, ANDREW_FILES);
    for (w = 0; w < WL_COUNT; w++) {
        if (any && !want[w])
            continue;
        printf("%s  \"%s\": {\n", first ? "" : ",\n", wl_name[w]);
        first = 0;
        measure((enum wl)w, 0, reps);
        print_side(&g_best, "conv", 0);
        measure((enum wl)w, 1, reps);
        print_side(&g_best, "fsoc", 1);
        printf("  }");
        fflush(stdout);
    }
    printf("\n }\n}\n");
    return 0;
}
