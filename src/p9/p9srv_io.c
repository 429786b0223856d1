/* The server's data path: Tlopen, Tlcreate, Tread, Twrite, Tfsync and
 * Treaddir.  File data moves straight between the message buffer and
 * steadyfs (Rread is filled in place); directories are listed by cookie.
 */
#include "p9/p9srv_internal.h"

static int open_flags(uint32_t lx)
{
    int fl = (int)(lx & LX_O_ACCMODE);
    if (fl == 3)
        fl = STEADYFS_O_RDWR;
    if (lx & LX_O_TRUNC)
        fl |= STEADYFS_O_TRUNC;
    if (lx & LX_O_APPEND)
        fl |= STEADYFS_O_APPEND;
    /* O_SYNC / O_DSYNC (Linux's v9fs passes them on): the client asks
     * that each write be durable when answered, which is exactly
     * steadyfs's O_DSYNC (the commit rides in the write's last sector). */
    if (lx & (LX_O_DSYNC | LX_O_SYNC_ONLY))
        fl |= STEADYFS_O_DSYNC;
    return fl;
}

/* Opens path as a file with steadyfs flags fl, of the fid's file (id 0: a
 * new file, adopt its id), into the fid. */
static int open_file(p9srv *s, struct p9srv_fid *f, const char *path, int fl, uint64_t want,
                     const steadyfs_attr *attr)
{
    int h = srv_open(s, path, fl, attr, &want);
    if (h < 0)
        return h;
    f->h = (int16_t)h;
    f->omode = (uint8_t)(fl & STEADYFS_O_ACCMODE);
    srv_fid_set_id(f, want);
    return 0;
}

/* The permission bits an open with steadyfs flags fl needs: read for
 * O_RDONLY, write for O_WRONLY and O_TRUNC, both for O_RDWR.  Bit 2 (a
 * write) is also what read_only refuses and a directory cannot do. */
static uint32_t open_want(int fl)
{
    int acc = fl & STEADYFS_O_ACCMODE;
    return (acc != STEADYFS_O_WRONLY ? 4u : 0u) |
           (acc != STEADYFS_O_RDONLY || (fl & STEADYFS_O_TRUNC) ? 2u : 0u);
}

/* Rlopen and Rlcreate: the open fid's qid and the largest I/O per message. */
static int opened(p9srv *s, const struct p9srv_fid *f)
{
    srv_qid(&s->rep.u.ropen.qid, f->type, srv_fid_id(f));
    s->rep.u.ropen.iounit = s->msize - P9_IOHDRSZ;
    return 0;
}

int srv_h_lopen(p9srv *s, struct p9srv_fid *f)
{
    int fl = open_flags(s->req.u.tlopen.flags);
    uint32_t want = open_want(fl);
    int rc;
    if (f->h != FID_H_NONE)
        return STEADYFS_EINVAL;   /* already open */
    rc = srv_may_fid(s, f, want);
    if (rc)
        return rc;
    if (f->type == STEADYFS_TYPE_DIR) {
        steadyfs_stat st;
        if (want & 2u)
            return STEADYFS_EISDIR;
        rc = srv_fid_stat(s, f, &st);   /* still this directory (ESTALE) */
        if (rc)
            return rc;
        f->h = FID_H_DIR;   /* no handle held: see h_readdir */
        f->omode = STEADYFS_O_RDONLY;
    } else if (srv_ring_here(s, srv_fid_path(s, f))) {
        if (want & 2u)
            return STEADYFS_EROFS;   /* the ring's view is read-only */
        f->h = FID_H_RING;
        f->omode = STEADYFS_O_RDONLY;
    } else {
        if (s->cfg.read_only && (want & 2u))
            return STEADYFS_EROFS;
        rc = open_file(s, f, srv_fid_path(s, f), fl, srv_fid_id(f), NULL);
        if (rc)
            return rc;
    }
    return opened(s, f);
}

int srv_h_lcreate(p9srv *s, struct p9srv_fid *f)
{
    steadyfs_stat st;
    steadyfs_attr a;
    char *p = s->tmp[0];
    int fl = open_flags(s->req.u.tlcreate.flags) | STEADYFS_O_CREAT;
    int32_t len = srv_dir_child(s, f);
    int existed, rc;
    if (len < 0)
        return len;
    if (srv_ring_here(s, p))   /* the ring's view: never created or written */
        return s->req.u.tlcreate.flags & LX_O_EXCL ? STEADYFS_EEXIST : STEADYFS_EROFS;
    /* As open(2) with O_CREAT: an existing file is opened (and truncated
     * with O_TRUNC) unless the client asked for O_EXCL, as diod and QEMU's
     * server do. */
    existed = steadyfs_stat_path(s->cfg.fs, p, &st) == 0;
    if (s->req.u.tlcreate.flags & LX_O_EXCL)
        fl |= STEADYFS_O_EXCL;
    /* a new name: write and search on the directory; an existing file is
     * opened as Tlopen would */
    rc = existed ? srv_may_st(s, &st, open_want(fl)) : srv_may_fid(s, f, 3);
    if (!rc)
        rc = open_file(s, f, p, fl, 0,
                       srv_new_attr(s, &a, s->req.u.tlcreate.mode, s->req.u.tlcreate.gid));
    if (rc == STEADYFS_ENFILE && !existed) {
        /* steadyfs creates the name before it finds its open table full:
         * take the new, empty file back, so a failed Tlcreate leaves
         * nothing behind. */
        steadyfs_unlink(s->cfg.fs, p);
    }
    if (rc)
        return rc;
    /* The fid now stands for the new, open file. */
    f->type = STEADYFS_TYPE_FILE;
    srv_fid_set_path(s, f, p, (uint32_t)len);
    return opened(s, f);
}

static int seek_to(p9srv *s, struct p9srv_fid *f, uint64_t off)
{
    int64_t r;
    if (off > (uint64_t)INT64_MAX)
        return STEADYFS_EINVAL;
    r = steadyfs_seek(s->cfg.fs, f->h, (int64_t)off, STEADYFS_SEEK_SET);
    return r < 0 ? (int)r : 0;
}

int32_t srv_h_read(p9srv *s, uint8_t *out)
{
    struct p9srv_fid *f = srv_fid_find(s, s->req.u.tread.fid);
    uint32_t count = s->req.u.tread.count;
    int32_t n;
    int rc;
    if (!f)
        return -LX_EBADF;
    s->rep.u.rread.data = out + P9_RREAD_HDR;
    if (f->kind == FID_XATTR)
        return 0;   /* the empty xattr list: count 0, as the reply starts */
    if (f->stale)
        return -LX_ESTALE;
    if (f->h == FID_H_NONE)
        return -LX_EBADF;
    if (f->type == STEADYFS_TYPE_DIR)
        return STEADYFS_EISDIR;
    /* (out_cap >= msize: p9srv_handle checked it) */
    if (count > s->msize - P9_RREAD_HDR)
        count = s->msize - P9_RREAD_HDR;
    if (f->h == FID_H_RING) {
        n = srv_ring_read(s, out + P9_RREAD_HDR, s->req.u.tread.offset, count);
        if (n < 0)
            return n;
        s->rep.u.rread.count = (uint32_t)n;
        return 0;
    }
    if (f->h < 0 || f->omode == STEADYFS_O_WRONLY)
        return -LX_EBADF;
    rc = seek_to(s, f, s->req.u.tread.offset);
    if (rc)
        return rc;
    n = steadyfs_read(s->cfg.fs, f->h, out + P9_RREAD_HDR, count);
    if (n < 0)
        return n;
    s->rep.u.rread.count = (uint32_t)n;
    return 0;
}

int srv_h_write(p9srv *s, struct p9srv_fid *f)
{
    int32_t n;
    int rc;
    if (f->h < 0 || f->type != STEADYFS_TYPE_FILE || f->omode == STEADYFS_O_RDONLY)
        return -LX_EBADF;
    rc = seek_to(s, f, s->req.u.twrite.offset);
    if (rc)
        return rc;
    n = steadyfs_write(s->cfg.fs, f->h, s->req.u.twrite.data, s->req.u.twrite.count);
    if (n < 0)
        return n;
    s->rep.u.rwrite.count = (uint32_t)n;
    return 0;
}

int srv_h_fsync(p9srv *s, struct p9srv_fid *f)
{
    /* Only an open file has anything uncommitted; directory changes are
     * durable when the call that made them returned. */
    if (f->h >= 0 && f->type == STEADYFS_TYPE_FILE)
        return steadyfs_sync(s->cfg.fs, f->h);
    return 0;
}

/* Builds the Rreaddir straight into out.  Each entry carries the cookie of
 * the entry after it, so the client's next offset resumes exactly there;
 * the entry that did not fit is read again next time.  The directory is
 * opened for this message only (cookies are stable across changes, so
 * nothing is lost by not holding it). */
int32_t srv_h_readdir(p9srv *s, uint8_t *out, uint32_t out_cap)
{
    struct p9srv_fid *f;
    struct p9_readdir rd;
    uint32_t count = s->req.u.tread.count;
    int dd, rc = srv_node(s, s->req.u.tread.fid, &f), rc2;
    if (rc)
        return rc;
    if (f->h != FID_H_DIR || f->type != STEADYFS_TYPE_DIR)
        return -LX_EBADF;
    if (count > s->msize - P9_RREAD_HDR)
        count = s->msize - P9_RREAD_HDR;
    if (p9_readdir_begin(&rd, out, out_cap, s->req.tag, count))
        return STEADYFS_EIO;   /* cannot happen: out_cap >= msize was checked */
    dd = steadyfs_opendir(s->cfg.fs, srv_fid_path(s, f));
    if (dd < 0)
        return dd;
    rc = steadyfs_seekdir(s->cfg.fs, dd, s->req.u.tread.offset);
    /* At most count / P9_DIRENT_HDR + 1 iterations: each entry added takes
     * more than P9_DIRENT_HDR bytes and the first that does not fit ends
     * the loop. */
    while (!rc) {
        struct p9_qid q;
        rc = steadyfs_readdir(s->cfg.fs, dd, &s->dent);
        if (rc <= 0)
            break;
        rc = 0;
        srv_qid(&q, s->dent.type, s->dent.id);
        /* DT_DIR 4, DT_LNK 10, DT_REG 8: the file type bits of the mode */
        if (p9_readdir_add(&rd, &q, s->dent.next, (uint8_t)(srv_ifmt(s->dent.type) >> 12),
                           (const uint8_t *)s->dent.name, s->dent.name_len))
            break;
    }
    rc2 = steadyfs_closedir(s->cfg.fs, dd);
    if (rc < 0 && rd.used == 0)
        return rc;   /* an error before anything was listed; later ones show next time */
    if (rc2 < 0 && rd.used == 0)
        return rc2;
    return p9_readdir_finish(&rd);
}
