/* What a 9P2000.L client sees of a steadyfs file: qids, Rgetattr, Rstatfs,
 * xattrs and errno values, and the handlers that report or change them.  steadyfs keeps no mode, owner or times; the values
 * reported instead are fixed and documented in p9srv.h, so a client never
 * sees an attribute change that did not happen. */
#include "p9/p9srv_internal.h"

#define MODE_DIR 0040755u
#define MODE_FILE 0100644u
/* Rstatfs f_type: "STDY", so `stat -f` names no other file system. */
#define STEADYFS_MAGIC 0x59445453u

void srv_qid(struct p9_qid *q, uint8_t type, uint64_t id)
{
    q->type = type == STEADYFS_TYPE_DIR ? P9_QTDIR : P9_QTFILE;
    q->version = 0;
    q->path = id;
}

void srv_getattr(const p9srv *s, const steadyfs_stat *st, uint32_t blksize, struct p9_stat *out)
{
    memset(out, 0, sizeof *out);
    /* Everything in BASIC is answered (times as 0: the epoch) plus the
     * generation; BTIME and DATA_VERSION are not kept. */
    out->valid = P9_GETATTR_BASIC | P9_GETATTR_GEN;
    srv_qid(&out->qid, st->type, st->id);
    out->mode = st->type == STEADYFS_TYPE_DIR ? MODE_DIR : MODE_FILE;
    out->uid = s->uid;
    out->gid = s->uid;
    out->nlink = 1;
    out->size = st->size;
    out->blksize = blksize;
    out->blocks = (st->size + 511u) / 512u;
    out->gen = st->id >> 32;
}

int srv_statfs(p9srv *s, struct p9_statfs *out)
{
    steadyfs_info info;
    int rc = steadyfs_info_get(s->cfg.fs, &info);
    uint32_t bs;
    if (rc)
        return rc;
    bs = info.data_per_sector ? info.data_per_sector : 1u;
    memset(out, 0, sizeof *out);
    out->type = STEADYFS_MAGIC;
    out->bsize = bs;
    out->blocks = info.capacity / bs;
    out->bfree = info.free / bs;
    out->bavail = out->bfree;
    /* files/ffree: steadyfs_info does not report inode counts; 0 means
     * "unknown" to df -i. */
    out->namelen = STEADYFS_NAME_MAX;
    return 0;
}

uint32_t srv_errno(int rc)
{
    /* steadyfs errors are already -errno (steadyfs.h); anything outside the
     * errno range is a bug somewhere and is reported as EIO. */
    if (rc < 0 && rc >= -133)
        return (uint32_t)-rc;
    return 5u;
}

/* ---- Tgetattr, Tsetattr, Tstatfs, Txattrwalk ---- */

int srv_h_getattr(p9srv *s)
{
    struct p9srv_fid *f;
    steadyfs_stat st;
    steadyfs_info info;
    int rc = srv_node(s, s->req.u.tgetattr.fid, &f);
    if (!rc)
        rc = srv_fid_stat(s, f, &st);
    if (!rc)
        rc = steadyfs_info_get(s->cfg.fs, &info);
    if (rc)
        return rc;
    s->rep.type = P9_RGETATTR;
    srv_getattr(s, &st, info.data_per_sector, &s->rep.u.rgetattr);
    return 0;
}

int srv_h_setattr(p9srv *s)
{
    struct p9srv_fid *f;
    uint32_t valid = s->req.u.tsetattr.valid;
    int rc = srv_node(s, s->req.u.tsetattr.fid, &f);
    if (rc)
        return rc;
    if (s->cfg.read_only && valid)
        return STEADYFS_EROFS;
    s->rep.type = P9_RSETATTR;
    /* mode, uid, gid and times: steadyfs keeps none of them, so there is
     * nothing to change; accepted (Rgetattr keeps showing the fixed
     * values).  Only the size is real. */
    if (!(valid & P9_SETATTR_SIZE))
        return 0;
    if (f->type == STEADYFS_TYPE_DIR)
        return STEADYFS_EISDIR;
    if (s->req.u.tsetattr.size > (uint64_t)INT64_MAX)
        return STEADYFS_EINVAL;
    if (f->h >= 0 && f->omode != STEADYFS_O_RDONLY)
        return steadyfs_truncate(s->cfg.fs, f->h, s->req.u.tsetattr.size);
    {
        /* Not open for writing through this fid: a handle of our own for
         * the duration (needs one spare steadyfs open slot); close
         * commits the new size. */
        steadyfs_stat st;
        int h = steadyfs_open(s->cfg.fs, srv_fid_path(s, f), STEADYFS_O_WRONLY), rc2;
        if (h < 0)
            return h;
        rc = steadyfs_fstat(s->cfg.fs, h, &st);
        if (!rc && st.id != srv_fid_id(f))
            rc = -LX_ESTALE;
        if (!rc)
            rc = steadyfs_truncate(s->cfg.fs, h, s->req.u.tsetattr.size);
        rc2 = steadyfs_close(s->cfg.fs, h);
        return rc ? rc : rc2;
    }
}

int srv_h_statfs(p9srv *s)
{
    struct p9srv_fid *f;
    int rc = srv_node(s, s->req.u.fid.fid, &f);
    if (rc)
        return rc;
    s->rep.type = P9_RSTATFS;
    return srv_statfs(s, &s->rep.u.rstatfs);
}

int srv_h_xattrwalk(p9srv *s)
{
    struct p9srv_fid *f, *nf;
    uint32_t newfid = s->req.u.txattrwalk.newfid;
    int rc = srv_node(s, s->req.u.txattrwalk.fid, &f);
    if (rc)
        return rc;
    /* No extended attributes are stored: a named one does not exist
     * (ENODATA, what lgetxattr says), the list is empty. */
    if (s->req.u.txattrwalk.name.len)
        return -LX_ENODATA;
    if (newfid == f->fid)
        return -LX_EBADF;   /* would turn a file fid into a list fid */
    nf = srv_fid_alloc(s, newfid, &rc);
    if (!nf)
        return rc;
    nf->kind = FID_XATTR;
    s->nfids++;
    s->rep.type = P9_RXATTRWALK;
    s->rep.u.rxattrwalk.size = 0;
    return 0;
}
