/* What a 9P2000.L client sees of a steadyfs file: qids, Rgetattr, Rstatfs,
 * xattrs and errno values, the handlers that report or change them, and
 * the permission check (access_user). */
#include "p9/p9srv_internal.h"

/* Rstatfs f_type: "STDY", so `stat -f` names no other file system. */
#define STEADYFS_MAGIC 0x59445453u
#define NS 1000000000

void srv_qid(struct p9_qid *q, uint8_t type, uint64_t id)
{
    q->type = type == STEADYFS_TYPE_DIR ? P9_QTDIR
            : type == STEADYFS_TYPE_SYMLINK ? P9_QTSYMLINK : P9_QTFILE;
    q->version = 0;
    q->path = id;
}

uint32_t srv_ifmt(uint8_t type)
{
    return type == STEADYFS_TYPE_DIR ? 0040000u : type == STEADYFS_TYPE_SYMLINK ? 0120000u : 0100000u;
}

/* ns since the epoch to 9P's seconds and nanoseconds (before 1970: the
 * seconds' two's complement, as Linux reads them). */
static void split_ns(int64_t t, uint64_t *sec, uint64_t *nsec)
{
    int64_t s = t / NS, n = t % NS;
    if (n < 0) {
        n += NS;
        s--;
    }
    *sec = (uint64_t)s;
    *nsec = (uint64_t)n;
}

static int in_group(const p9srv *s, uint32_t gid)
{
    return s->cfg.in_group && s->cfg.in_group(s->cfg.group_ctx, s->uid, gid);
}

int srv_may_st(const p9srv *s, const steadyfs_stat *st, uint32_t want)
{
    /* the owner's bits for the owner, the group's for a member of the
     * file's group (the host's user database says who is: the attach
     * names a user only), "other" for everyone else */
    uint32_t bits;
    if (!s->cfg.access_user || !s->uid)
        return 0;
    bits = st->uid == s->uid ? (uint32_t)st->mode >> 6
         : in_group(s, st->gid) ? (uint32_t)st->mode >> 3 : st->mode;
    return (bits & want) == want ? 0 : -LX_EACCES;
}

const steadyfs_attr *srv_new_attr(const p9srv *s, steadyfs_attr *a, uint32_t mode, uint32_t gid)
{
    memset(a, 0, sizeof *a);
    a->mask = STEADYFS_ATTR_MODE | STEADYFS_ATTR_UID | STEADYFS_ATTR_GID;
    a->mode = (uint16_t)(mode & 07777u);
    a->uid = s->uid;
    a->gid = gid;
    return a;
}

int srv_may(p9srv *s, const char *path, uint32_t want)
{
    steadyfs_stat st;
    int rc;
    if (!s->cfg.access_user || !s->uid)
        return 0;
    rc = srv_stat_path(s, path, &st);
    return rc ? rc : srv_may_st(s, &st, want);
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

/* The replies are built in s->rep, which p9srv_handle zeroed and typed
 * (Rgetattr, Rstatfs): only what is not 0 is set. */
int srv_h_getattr(p9srv *s, struct p9srv_fid *f)
{
    struct p9_stat *out = &s->rep.u.rgetattr;
    steadyfs_stat st;
    steadyfs_info info;
    int rc = srv_fid_stat(s, f, &st);
    if (!rc)
        rc = steadyfs_info_get(s->cfg.fs, &info);
    if (rc)
        return rc;
    /* Everything in BASIC is answered (atime as mtime: not kept) plus the
     * generation; BTIME and DATA_VERSION are not kept. */
    out->valid = P9_GETATTR_BASIC | P9_GETATTR_GEN;
    srv_qid(&out->qid, st.type, st.id);
    out->mode = st.mode | srv_ifmt(st.type);
    out->uid = st.uid;
    out->gid = st.gid;
    out->nlink = st.nlink;
    out->size = st.size;
    out->blksize = info.data_per_sector;
    out->blocks = (st.size + 511u) / 512u;
    split_ns(st.mtime, &out->mtime_sec, &out->mtime_nsec);
    split_ns(st.ctime, &out->ctime_sec, &out->ctime_nsec);
    out->atime_sec = out->mtime_sec;
    out->atime_nsec = out->mtime_nsec;
    out->gen = st.id >> 32;
    return 0;
}

/* Tsetattr's MODE, UID and GID are steadyfs_attr's mask bits as they are. */
_Static_assert(P9_SETATTR_MODE == STEADYFS_ATTR_MODE && P9_SETATTR_UID == STEADYFS_ATTR_UID &&
               P9_SETATTR_GID == STEADYFS_ATTR_GID, "setattr bits differ");

int srv_h_setattr(p9srv *s, struct p9srv_fid *f)
{
    steadyfs_stat st;
    steadyfs_attr a;
    uint32_t valid = s->req.u.tsetattr.valid;
    int rc;
    if ((s->cfg.read_only && valid) || f->h == FID_H_RING || srv_ring_here(s, srv_fid_path(s, f)))
        return STEADYFS_EROFS;
    rc = srv_fid_stat(s, f, &st);
    if (rc)
        return rc;
    /* who may: chmod, chgrp and given times the owner; chown root; the
     * size and "now" times anyone who may write (root, or no access_user:
     * all) */
    if (s->cfg.access_user && s->uid) {
        int owner = s->uid == st.uid;
        if (!owner && (valid & (P9_SETATTR_MODE | P9_SETATTR_GID | P9_SETATTR_MTIME_SET |
                                P9_SETATTR_ATIME_SET)))
            return STEADYFS_EPERM;
        if ((valid & P9_SETATTR_UID) && s->req.u.tsetattr.uid != st.uid)
            return STEADYFS_EPERM;
        /* chgrp: the owner to a group of its own (where groups are known) */
        if ((valid & P9_SETATTR_GID) && s->cfg.in_group && s->req.u.tsetattr.gid != st.gid &&
            !in_group(s, s->req.u.tsetattr.gid))
            return STEADYFS_EPERM;
        if (!owner && (valid & (P9_SETATTR_SIZE | P9_SETATTR_MTIME | P9_SETATTR_ATIME))) {
            rc = srv_may_st(s, &st, 2);
            if (rc)
                return rc;
        }
    }
    /* mode, uid, gid: steadyfs applies only the fields its mask names */
    a.mask = valid & (STEADYFS_ATTR_MODE | STEADYFS_ATTR_UID | STEADYFS_ATTR_GID);
    a.mode = (uint16_t)(s->req.u.tsetattr.mode & 07777u);
    a.uid = s->req.u.tsetattr.uid;
    a.gid = s->req.u.tsetattr.gid;
    a.mtime = 0;
    if ((valid & (P9_SETATTR_MTIME | P9_SETATTR_MTIME_SET)) ==
        (P9_SETATTR_MTIME | P9_SETATTR_MTIME_SET)) {
        uint64_t sec = s->req.u.tsetattr.mtime_sec;
        /* nanoseconds in an int64: years 1678..2262, seconds within
         * +-(INT64_MAX / NS - 1), one unsigned compare */
        if (s->req.u.tsetattr.mtime_nsec >= (uint64_t)NS ||
            sec + (uint64_t)(INT64_MAX / NS - 1) > 2u * (uint64_t)(INT64_MAX / NS - 1))
            return STEADYFS_EINVAL;
        a.mask |= STEADYFS_ATTR_MTIME;
        a.mtime = (int64_t)sec * NS + (int64_t)s->req.u.tsetattr.mtime_nsec;
    } else if ((valid & P9_SETATTR_MTIME) && !(valid & P9_SETATTR_SIZE)) {
        a.mask |= STEADYFS_ATTR_MTIME_NOW;   /* a truncate sets the times itself */
    }
    if (valid & P9_SETATTR_SIZE) {
        if (f->type != STEADYFS_TYPE_FILE)
            return f->type == STEADYFS_TYPE_DIR ? STEADYFS_EISDIR : STEADYFS_EINVAL;
        if (s->req.u.tsetattr.size > (uint64_t)INT64_MAX)
            return STEADYFS_EINVAL;
        if (f->h >= 0 && f->omode != STEADYFS_O_RDONLY) {
            rc = steadyfs_truncate(s->cfg.fs, f->h, s->req.u.tsetattr.size);
        } else {
            /* Not open for writing through this fid: a handle of our own
             * for the duration (needs one spare steadyfs open slot), of
             * the fid's own file (ESTALE otherwise); close commits the new
             * size. */
            uint64_t id = srv_fid_id(f);
            int h = srv_open(s, srv_fid_path(s, f), STEADYFS_O_WRONLY, NULL, &id), rc2;
            if (h < 0)
                return h;
            rc = steadyfs_truncate(s->cfg.fs, h, s->req.u.tsetattr.size);
            rc2 = steadyfs_close(s->cfg.fs, h);
            rc = rc ? rc : rc2;
        }
        if (rc)
            return rc;
    }
    /* mode, owner, mtime; a change of ctime alone (CTIME) is one too */
    if (a.mask || (valid & (P9_SETATTR_CTIME | P9_SETATTR_SIZE)) == P9_SETATTR_CTIME)
        return steadyfs_setattr(s->cfg.fs, srv_fid_path(s, f), &a);
    return 0;
}

/* Treadlink: the target into a scratch path buffer (at most path_max - 1
 * bytes), answered from there. */
int srv_h_readlink(p9srv *s, struct p9srv_fid *f)
{
    int32_t n;
    if (f->type != STEADYFS_TYPE_SYMLINK)
        return STEADYFS_EINVAL;
    n = steadyfs_readlink(s->cfg.fs, srv_fid_path(s, f), s->tmp[1], s->cfg.path_max - 1u);
    if (n < 0)
        return n;
    s->rep.u.rreadlink.target.ptr = (const uint8_t *)s->tmp[1];
    s->rep.u.rreadlink.target.len = (uint16_t)n;
    return 0;
}

int srv_h_statfs(p9srv *s, struct p9srv_fid *f)
{
    struct p9_statfs *out = &s->rep.u.rstatfs;
    steadyfs_info info;
    int rc = steadyfs_info_get(s->cfg.fs, &info);
    uint32_t bs;
    (void)f;
    if (rc)
        return rc;
    bs = info.data_per_sector ? info.data_per_sector : 1u;
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

int srv_h_xattrwalk(p9srv *s, struct p9srv_fid *f)
{
    struct p9srv_fid *nf;
    uint32_t newfid = s->req.u.txattrwalk.newfid;
    int rc;
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
    return 0;   /* Rxattrwalk's size: 0, as the reply starts */
}
