/* The 9P2000.L server: one T-message in, one R-message out.  Requests are
 * decoded by the codec (p9.h) into s->req, answered by one handler each,
 * and the reply built in s->rep is encoded into the caller's buffer.  Every
 * handler either fills s->rep and returns 0, or returns a negative errno
 * that becomes Rlerror on the request's tag.  Handlers read the request
 * (whose strings point into the input buffer) completely before anything
 * is written to the output, so the two may be one buffer. */
#include "p9/p9srv_internal.h"

static int set_session_defaults(p9srv *s)
{
    s->msize = s->cfg.msize_max;
    s->uid = 0;
    s->versioned = 0;
    return 0;
}

uint32_t p9srv_mem_size(const p9srv_config *cfg)
{
    uint32_t fm, pm;
    if (!cfg)
        return 0;
    fm = cfg->fid_max ? cfg->fid_max : P9SRV_FID_MAX_DEFAULT;
    pm = cfg->path_max ? cfg->path_max : P9SRV_PATH_MAX_DEFAULT;
    if (pm < 16 || pm > 4096)
        return 0;
    pm = (pm + 3u) & ~3u;   /* keeps every path and the table 4-aligned */
    return fm * ((uint32_t)sizeof(struct p9srv_fid) + pm) + 2u * pm;
}

int p9srv_init(p9srv *s, const p9srv_config *cfg)
{
    uint32_t need, i;
    uint8_t *m;
    if (!s || !cfg || !cfg->fs || !cfg->mem)
        return P9SRV_E_INVAL;
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    if (!s->cfg.fid_max)
        s->cfg.fid_max = P9SRV_FID_MAX_DEFAULT;
    if (!s->cfg.path_max)
        s->cfg.path_max = P9SRV_PATH_MAX_DEFAULT;
    if (!s->cfg.msize_max)
        s->cfg.msize_max = P9SRV_MSIZE_DEFAULT;
    need = p9srv_mem_size(&s->cfg);
    if (!need || cfg->mem_size < need || ((uintptr_t)cfg->mem & 3u) ||
        s->cfg.msize_max < P9_MSIZE_MIN)
        return P9SRV_E_INVAL;
    s->cfg.path_max = (uint16_t)((s->cfg.path_max + 3u) & ~3u);
    m = cfg->mem;
    s->fids = (struct p9srv_fid *)(void *)m;
    m += (uint32_t)s->cfg.fid_max * sizeof(struct p9srv_fid);
    s->paths = (char *)m;
    m += (uint32_t)s->cfg.fid_max * s->cfg.path_max;
    s->tmp[0] = (char *)m;
    s->tmp[1] = (char *)m + s->cfg.path_max;
    for (i = 0; i < s->cfg.fid_max; i++) {
        s->fids[i].kind = FID_FREE;
        s->fids[i].h = -1;
    }
    return set_session_defaults(s);
}

uint32_t p9srv_msize(const p9srv *s) { return s->msize; }

uint32_t p9srv_fid_count(const p9srv *s) { return s->nfids; }

int32_t p9srv_msg_len(const p9srv *s, const uint8_t hdr[4])
{
    uint32_t n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 |
                 (uint32_t)hdr[3] << 24;
    if (n < P9_HDR_SIZE || n > s->msize)
        return P9SRV_E_FRAME;
    return (int32_t)n;
}

int p9srv_disconnect(p9srv *s)
{
    uint32_t i;
    int rc, first = 0;
    for (i = 0; i < s->cfg.fid_max; i++) {
        if (s->fids[i].kind == FID_FREE)
            continue;
        rc = srv_fid_clunk(s, &s->fids[i]);
        if (rc && !first)
            first = rc;
    }
    s->nfids = 0;
    set_session_defaults(s);
    return first;
}

/* ---- helpers ------------------------------------------------------------ */

static void use_fid(p9srv *s, struct p9srv_fid *f, uint8_t type, uint64_t id)
{
    f->kind = FID_NODE;
    f->type = type;
    srv_fid_set_id(f, id);
    s->nfids++;
}

/* A fid naming a file or directory, not stale. */
static int node(p9srv *s, uint32_t fid, struct p9srv_fid **out)
{
    struct p9srv_fid *f = srv_fid_find(s, fid);
    if (!f || f->kind != FID_NODE)
        return -LX_EBADF;
    if (f->stale)
        return -LX_ESTALE;
    *out = f;
    return 0;
}

static int dir_node(p9srv *s, uint32_t fid, struct p9srv_fid **out)
{
    int rc = node(s, fid, out);
    if (!rc && (*out)->type != STEADYFS_TYPE_DIR)
        rc = STEADYFS_ENOTDIR;
    return rc;
}

/* Current attributes of the fid's file; ESTALE if its path now names a
 * different file (removed, and the name reused). */
static int fid_stat(p9srv *s, struct p9srv_fid *f, steadyfs_stat *st)
{
    int rc;
    if (f->h >= 0 && f->type == STEADYFS_TYPE_FILE)
        return steadyfs_fstat(s->cfg.fs, f->h, st);
    rc = steadyfs_stat_path(s->cfg.fs, srv_fid_path(s, f), st);
    if (!rc && st->id != srv_fid_id(f))
        rc = -LX_ESTALE;
    return rc;
}

static int open_flags(uint32_t lx)
{
    int fl = (int)(lx & LX_O_ACCMODE);
    if (fl == 3)
        fl = STEADYFS_O_RDWR;
    if (lx & LX_O_TRUNC)
        fl |= STEADYFS_O_TRUNC;
    if (lx & LX_O_APPEND)
        fl |= STEADYFS_O_APPEND;
    return fl;
}

/* Opens path as a file with steadyfs flags fl and checks it is the file
 * the fid names (id 0: a new file, adopt its id). */
static int open_file(p9srv *s, struct p9srv_fid *f, const char *path, int fl, uint64_t want)
{
    steadyfs_stat st;
    int h = steadyfs_open(s->cfg.fs, path, fl), rc;
    if (h < 0)
        return h;
    rc = steadyfs_fstat(s->cfg.fs, h, &st);
    if (!rc && want && st.id != want)
        rc = -LX_ESTALE;
    if (rc) {
        steadyfs_close(s->cfg.fs, h);
        return rc;
    }
    f->h = (int16_t)h;
    f->omode = (uint8_t)(fl & STEADYFS_O_ACCMODE);
    srv_fid_set_id(f, st.id);
    return 0;
}

/* ---- session ------------------------------------------------------------ */

static int h_version(p9srv *s)
{
    uint32_t want = s->req.u.version.msize;
    bool ok = p9_str_eq(s->req.u.version.version, P9SRV_VERSION);
    /* Tversion ends the previous session, whatever it asks for. */
    p9srv_disconnect(s);
    s->rep.type = P9_RVERSION;
    if (!ok || want < P9_MSIZE_MIN) {
        s->rep.u.version.msize = s->cfg.msize_max;
        s->rep.u.version.version = p9_cstr("unknown");
        return 0;
    }
    s->msize = want < s->cfg.msize_max ? want : s->cfg.msize_max;
    s->versioned = 1;
    s->rep.u.version.msize = s->msize;
    s->rep.u.version.version = p9_cstr(P9SRV_VERSION);
    return 0;
}

static int h_attach(p9srv *s)
{
    struct p9srv_fid *f;
    steadyfs_stat st;
    struct p9_str an = s->req.u.tattach.aname;
    int rc;
    if (s->req.u.tattach.afid != P9_NOFID)
        return -LX_EBADF;   /* no Tauth was ever granted */
    if (!(an.len == 0 || p9_str_eq(an, "/")))
        return STEADYFS_ENOENT;   /* one export: the root */
    f = srv_fid_alloc(s, s->req.u.tattach.fid, &rc);
    if (!f)
        return rc;
    rc = steadyfs_stat_path(s->cfg.fs, "/", &st);
    if (rc)
        return rc;
    srv_fid_set_path(s, f, "/", 1);
    use_fid(s, f, STEADYFS_TYPE_DIR, st.id);
    if (s->req.u.tattach.n_uname != P9_NONUNAME)
        s->uid = s->req.u.tattach.n_uname;
    s->rep.type = P9_RATTACH;
    srv_qid(&s->rep.u.qid, st.type, st.id);
    return 0;
}

/* ---- walking ------------------------------------------------------------ */

static int h_walk(p9srv *s)
{
    struct p9srv_fid *f, *nf;
    steadyfs_stat st;
    char *p = s->tmp[0];
    uint32_t len, i, nw = s->req.u.twalk.nwname;
    uint32_t newfid = s->req.u.twalk.newfid;
    uint8_t type;
    uint64_t id;
    int rc = node(s, s->req.u.twalk.fid, &f), err = 0;
    if (rc)
        return rc;
    if (newfid != f->fid && srv_fid_find(s, newfid))
        return -LX_EBADF;
    if (newfid == f->fid && f->h >= 0 && nw > 0)
        return STEADYFS_EBUSY;   /* an open fid cannot move */
    len = f->plen;
    memcpy(p, srv_fid_path(s, f), len + 1);
    type = f->type;
    id = srv_fid_id(f);
    for (i = 0; i < nw; i++) {
        struct p9_str name = s->req.u.twalk.wname[i];
        if (type != STEADYFS_TYPE_DIR) {
            err = STEADYFS_ENOTDIR;
            break;
        }
        err = srv_name_walk(name);
        if (err)
            break;
        if (p9_str_eq(name, "..")) {
            len = srv_path_up(p, len);   /* at the root: stays at the root */
        } else if (!p9_str_eq(name, ".")) {
            int32_t n = srv_path_join(s, p, p, len, name);
            if (n < 0) {
                err = n;
                break;
            }
            len = (uint32_t)n;
        }
        err = steadyfs_stat_path(s->cfg.fs, p, &st);
        if (err)
            break;
        type = st.type;
        id = st.id;
        srv_qid(&s->rep.u.rwalk.wqid[i], type, id);
    }
    if (i < nw && i == 0)
        return err;   /* the first name failed: Rlerror */
    s->rep.type = P9_RWALK;
    s->rep.u.rwalk.nwqid = (uint16_t)i;
    if (i < nw)
        return 0;   /* partial walk: newfid is not created */
    if (newfid == f->fid) {
        nf = f;
    } else {
        nf = srv_fid_alloc(s, newfid, &rc);
        if (!nf)
            return rc;
        use_fid(s, nf, type, id);
    }
    nf->type = type;
    srv_fid_set_id(nf, id);
    srv_fid_set_path(s, nf, p, len);
    return 0;
}

static int h_clunk(p9srv *s)
{
    struct p9srv_fid *f = srv_fid_find(s, s->req.u.fid.fid);
    if (!f)
        return -LX_EBADF;
    s->rep.type = P9_RCLUNK;
    return srv_fid_clunk(s, f);
}

static int h_remove(p9srv *s)
{
    struct p9srv_fid *f = srv_fid_find(s, s->req.u.fid.fid);
    int rc;
    if (!f)
        return -LX_EBADF;
    /* The fid goes away whatever happens (9P); its handle first, because
     * steadyfs refuses to remove an open file. */
    if (f->kind != FID_NODE)
        rc = -LX_EBADF;
    else if (f->stale)
        rc = -LX_ESTALE;
    else if (s->cfg.read_only)
        rc = STEADYFS_EROFS;
    else
        rc = 0;
    if (rc) {
        srv_fid_clunk(s, f);
        return rc;
    }
    rc = srv_fid_clunk(s, f);
    if (!rc) {
        const char *p = srv_fid_path(s, f);   /* the slot is free but untouched */
        steadyfs_stat st;
        rc = steadyfs_stat_path(s->cfg.fs, p, &st);
        if (!rc && st.id != srv_fid_id(f))
            rc = -LX_ESTALE;
        if (!rc)
            rc = f->type == STEADYFS_TYPE_DIR ? steadyfs_rmdir(s->cfg.fs, p)
                                              : steadyfs_unlink(s->cfg.fs, p);
    }
    s->rep.type = P9_RREMOVE;
    return rc;
}

/* ---- attributes --------------------------------------------------------- */

static int h_getattr(p9srv *s)
{
    struct p9srv_fid *f;
    steadyfs_stat st;
    steadyfs_info info;
    int rc = node(s, s->req.u.tgetattr.fid, &f);
    if (!rc)
        rc = fid_stat(s, f, &st);
    if (!rc)
        rc = steadyfs_info_get(s->cfg.fs, &info);
    if (rc)
        return rc;
    s->rep.type = P9_RGETATTR;
    srv_getattr(s, &st, info.data_per_sector, &s->rep.u.rgetattr);
    return 0;
}

static int h_setattr(p9srv *s)
{
    struct p9srv_fid *f;
    uint32_t valid = s->req.u.tsetattr.valid;
    int rc = node(s, s->req.u.tsetattr.fid, &f);
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

static int h_statfs(p9srv *s)
{
    struct p9srv_fid *f;
    int rc = node(s, s->req.u.fid.fid, &f);
    if (rc)
        return rc;
    s->rep.type = P9_RSTATFS;
    return srv_statfs(s, &s->rep.u.rstatfs);
}

static int h_xattrwalk(p9srv *s)
{
    struct p9srv_fid *f, *nf;
    uint32_t newfid = s->req.u.txattrwalk.newfid;
    int rc = node(s, s->req.u.txattrwalk.fid, &f);
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

/* ---- opening ------------------------------------------------------------ */

static int h_lopen(p9srv *s)
{
    struct p9srv_fid *f;
    uint32_t lx = s->req.u.tlopen.flags;
    int fl = open_flags(lx);
    int rc = node(s, s->req.u.tlopen.fid, &f);
    if (rc)
        return rc;
    if (f->h >= 0)
        return STEADYFS_EINVAL;   /* already open */
    if (f->type == STEADYFS_TYPE_DIR) {
        steadyfs_stat st;
        int h;
        if ((fl & STEADYFS_O_ACCMODE) != STEADYFS_O_RDONLY || (fl & STEADYFS_O_TRUNC))
            return STEADYFS_EISDIR;
        rc = steadyfs_stat_path(s->cfg.fs, srv_fid_path(s, f), &st);
        if (!rc && st.id != srv_fid_id(f))
            rc = -LX_ESTALE;
        if (rc)
            return rc;
        h = steadyfs_opendir(s->cfg.fs, srv_fid_path(s, f));
        if (h < 0)
            return h;
        f->h = (int16_t)h;
        f->omode = STEADYFS_O_RDONLY;
    } else {
        if (s->cfg.read_only &&
            ((fl & STEADYFS_O_ACCMODE) != STEADYFS_O_RDONLY || (fl & STEADYFS_O_TRUNC)))
            return STEADYFS_EROFS;
        rc = open_file(s, f, srv_fid_path(s, f), fl, srv_fid_id(f));
        if (rc)
            return rc;
    }
    s->rep.type = P9_RLOPEN;
    srv_qid(&s->rep.u.ropen.qid, f->type, srv_fid_id(f));
    s->rep.u.ropen.iounit = s->msize - P9_IOHDRSZ;
    return 0;
}

static int h_lcreate(p9srv *s)
{
    struct p9srv_fid *f;
    char *p = s->tmp[0];
    int32_t len;
    int fl = open_flags(s->req.u.tlcreate.flags) | STEADYFS_O_CREAT;
    int rc = dir_node(s, s->req.u.tlcreate.fid, &f);
    if (rc)
        return rc;
    if (f->h >= 0)
        return STEADYFS_EINVAL;
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.tlcreate.name);
    if (rc)
        return rc;
    len = srv_path_join(s, p, srv_fid_path(s, f), f->plen, s->req.u.tlcreate.name);
    if (len < 0)
        return len;
    /* Tlcreate creates: an existing name is EEXIST, as diod and Linux's
     * own server answer (the client asks only after a negative lookup). */
    rc = open_file(s, f, p, fl | STEADYFS_O_EXCL, 0);
    if (rc)
        return rc;
    /* The fid now stands for the new, open file. */
    f->type = STEADYFS_TYPE_FILE;
    srv_fid_set_path(s, f, p, (uint32_t)len);
    s->rep.type = P9_RLCREATE;
    srv_qid(&s->rep.u.ropen.qid, f->type, srv_fid_id(f));
    s->rep.u.ropen.iounit = s->msize - P9_IOHDRSZ;
    return 0;
}

/* ---- data --------------------------------------------------------------- */

static int seek_to(p9srv *s, struct p9srv_fid *f, uint64_t off)
{
    int64_t r;
    if (off > (uint64_t)INT64_MAX)
        return STEADYFS_EINVAL;
    r = steadyfs_seek(s->cfg.fs, f->h, (int64_t)off, STEADYFS_SEEK_SET);
    return r < 0 ? (int)r : 0;
}

static int32_t h_read(p9srv *s, uint8_t *out, uint32_t out_cap)
{
    struct p9srv_fid *f = srv_fid_find(s, s->req.u.tread.fid);
    uint32_t count = s->req.u.tread.count;
    int32_t n;
    int rc;
    if (!f)
        return -LX_EBADF;
    s->rep.type = P9_RREAD;
    s->rep.u.rread.data = out + P9_RREAD_HDR;
    if (f->kind == FID_XATTR) {
        s->rep.u.rread.count = 0;   /* the empty xattr list */
        return 0;
    }
    if (f->stale)
        return -LX_ESTALE;
    if (f->h < 0 || f->omode == STEADYFS_O_WRONLY)
        return -LX_EBADF;
    if (f->type == STEADYFS_TYPE_DIR)
        return STEADYFS_EISDIR;
    if (count > out_cap - P9_RREAD_HDR)
        count = out_cap - P9_RREAD_HDR;
    if (count > s->msize - P9_RREAD_HDR)
        count = s->msize - P9_RREAD_HDR;
    rc = seek_to(s, f, s->req.u.tread.offset);
    if (rc)
        return rc;
    n = steadyfs_read(s->cfg.fs, f->h, out + P9_RREAD_HDR, count);
    if (n < 0)
        return n;
    s->rep.u.rread.count = (uint32_t)n;
    return 0;
}

static int h_write(p9srv *s)
{
    struct p9srv_fid *f;
    int32_t n;
    int rc = node(s, s->req.u.twrite.fid, &f);
    if (rc)
        return rc;
    if (f->h < 0 || f->type != STEADYFS_TYPE_FILE || f->omode == STEADYFS_O_RDONLY)
        return -LX_EBADF;
    rc = seek_to(s, f, s->req.u.twrite.offset);
    if (rc)
        return rc;
    n = steadyfs_write(s->cfg.fs, f->h, s->req.u.twrite.data, s->req.u.twrite.count);
    if (n < 0)
        return n;
    s->rep.type = P9_RWRITE;
    s->rep.u.rwrite.count = (uint32_t)n;
    return 0;
}

static int h_fsync(p9srv *s)
{
    struct p9srv_fid *f;
    int rc = node(s, s->req.u.tfsync.fid, &f);
    if (rc)
        return rc;
    s->rep.type = P9_RFSYNC;
    /* Only an open file has anything uncommitted; directory changes are
     * durable when the call that made them returned. */
    if (f->h >= 0 && f->type == STEADYFS_TYPE_FILE)
        return steadyfs_sync(s->cfg.fs, f->h);
    return 0;
}

/* Builds the Rreaddir straight into out.  Each entry carries the cookie of
 * the entry after it, so the client's next offset resumes exactly there;
 * the entry that did not fit is read again next time. */
static int32_t h_readdir(p9srv *s, uint8_t *out, uint32_t out_cap)
{
    struct p9srv_fid *f;
    struct p9_readdir rd;
    uint32_t count = s->req.u.tread.count;
    uint16_t tag = s->req.tag;
    int rc = node(s, s->req.u.tread.fid, &f);
    if (rc)
        return rc;
    if (f->h < 0 || f->type != STEADYFS_TYPE_DIR)
        return -LX_EBADF;
    if (count > s->msize - P9_RREAD_HDR)
        count = s->msize - P9_RREAD_HDR;
    rc = steadyfs_seekdir(s->cfg.fs, f->h, s->req.u.tread.offset);
    if (rc)
        return rc;
    if (p9_readdir_begin(&rd, out, out_cap, tag, count))
        return STEADYFS_EIO;   /* cannot happen: out_cap >= msize was checked */
    /* At most count / P9_DIRENT_HDR + 1 iterations: each entry added takes
     * more than P9_DIRENT_HDR bytes and the first that does not fit ends
     * the loop. */
    for (;;) {
        struct p9_qid q;
        rc = steadyfs_readdir(s->cfg.fs, f->h, &s->dent);
        if (rc <= 0)
            break;
        srv_qid(&q, s->dent.type, s->dent.id);
        if (p9_readdir_add(&rd, &q, s->dent.next,
                           s->dent.type == STEADYFS_TYPE_DIR ? 4u : 8u,   /* DT_DIR, DT_REG */
                           (const uint8_t *)s->dent.name, s->dent.name_len))
            break;
    }
    if (rc < 0 && rd.used == 0)
        return rc;   /* an error before anything was listed; later ones show next time */
    return p9_readdir_finish(&rd);
}

/* ---- namespace ---------------------------------------------------------- */

static int h_mkdir(p9srv *s)
{
    struct p9srv_fid *f;
    steadyfs_stat st;
    char *p = s->tmp[0];
    int32_t len;
    int rc = dir_node(s, s->req.u.tmkdir.dfid, &f);
    if (rc)
        return rc;
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.tmkdir.name);
    if (rc)
        return rc;
    len = srv_path_join(s, p, srv_fid_path(s, f), f->plen, s->req.u.tmkdir.name);
    if (len < 0)
        return len;
    rc = steadyfs_mkdir(s->cfg.fs, p);
    if (!rc)
        rc = steadyfs_stat_path(s->cfg.fs, p, &st);
    if (rc)
        return rc;
    s->rep.type = P9_RMKDIR;
    srv_qid(&s->rep.u.qid, st.type, st.id);
    return 0;
}

static int h_unlinkat(p9srv *s)
{
    struct p9srv_fid *f;
    char *p = s->tmp[0];
    int32_t len;
    int rc = dir_node(s, s->req.u.tunlinkat.dirfid, &f);
    if (rc)
        return rc;
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.tunlinkat.name);
    if (rc)
        return rc;
    len = srv_path_join(s, p, srv_fid_path(s, f), f->plen, s->req.u.tunlinkat.name);
    if (len < 0)
        return len;
    s->rep.type = P9_RUNLINKAT;
    /* Fids still naming the removed file answer ESTALE from now on (their
     * id no longer matches). */
    return s->req.u.tunlinkat.flags & LX_AT_REMOVEDIR ? steadyfs_rmdir(s->cfg.fs, p)
                                                      : steadyfs_unlink(s->cfg.fs, p);
}

static int do_rename(p9srv *s, uint32_t flen, uint32_t tlen)
{
    int rc = steadyfs_rename(s->cfg.fs, s->tmp[0], s->tmp[1]);
    if (!rc)
        srv_paths_renamed(s, s->tmp[0], flen, s->tmp[1], tlen);
    return rc;
}

static int h_renameat(p9srv *s)
{
    struct p9srv_fid *od, *nd;
    int32_t fl, tl;
    int rc = dir_node(s, s->req.u.trenameat.olddirfid, &od);
    if (!rc)
        rc = dir_node(s, s->req.u.trenameat.newdirfid, &nd);
    if (rc)
        return rc;
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.trenameat.oldname);
    if (!rc)
        rc = srv_name_new(s->req.u.trenameat.newname);
    if (rc)
        return rc;
    fl = srv_path_join(s, s->tmp[0], srv_fid_path(s, od), od->plen, s->req.u.trenameat.oldname);
    tl = srv_path_join(s, s->tmp[1], srv_fid_path(s, nd), nd->plen, s->req.u.trenameat.newname);
    if (fl < 0)
        return fl;
    if (tl < 0)
        return tl;
    s->rep.type = P9_RRENAMEAT;
    return do_rename(s, (uint32_t)fl, (uint32_t)tl);
}

static int h_rename(p9srv *s)
{
    struct p9srv_fid *f, *d;
    int32_t tl;
    int rc = node(s, s->req.u.trename.fid, &f);
    if (!rc)
        rc = dir_node(s, s->req.u.trename.dfid, &d);
    if (rc)
        return rc;
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.trename.name);
    if (rc)
        return rc;
    memcpy(s->tmp[0], srv_fid_path(s, f), (uint32_t)f->plen + 1u);
    tl = srv_path_join(s, s->tmp[1], srv_fid_path(s, d), d->plen, s->req.u.trename.name);
    if (tl < 0)
        return tl;
    s->rep.type = P9_RRENAME;
    return do_rename(s, f->plen, (uint32_t)tl);
}

/* ---- dispatch ----------------------------------------------------------- */

static int32_t lerror(p9srv *s, uint16_t tag, uint32_t ecode, uint8_t *out, uint32_t out_cap)
{
    int n;
    s->n_errors++;
    s->rep.type = P9_RLERROR;
    s->rep.tag = tag;
    s->rep.u.rlerror.ecode = ecode;
    n = p9_encode(&s->rep, out, out_cap);
    return n < 0 ? P9SRV_E_NOSPACE : n;
}

int32_t p9srv_handle(p9srv *s, const uint8_t *in, uint32_t in_len, uint8_t *out,
                     uint32_t out_cap)
{
    uint32_t size;
    uint8_t type;
    uint16_t tag;
    int rc, n;
    if (!s || !in || !out)
        return P9SRV_E_INVAL;
    if (p9_peek(in, in_len, s->msize, &size, &type, &tag) || size != in_len)
        return P9SRV_E_FRAME;
    if (out_cap < s->msize)
        return P9SRV_E_NOSPACE;
    s->n_msgs++;
    rc = p9_decode(in, in_len, s->msize, &s->req);
    if (rc == P9_E_COUNT && (type == P9_TREAD || type == P9_TREADDIR)) {
        /* A count whose reply would not fit msize: answer with what fits,
         * as other servers do (counts are clamped in the handlers). */
        rc = p9_decode(in, in_len, 0xFFFFFFFFu, &s->req);
    }
    if (rc < 0)
        return lerror(s, tag, rc == P9_E_UNKNOWN ? LX_EOPNOTSUPP : LX_EPROTO, out, out_cap);
    memset(&s->rep, 0, sizeof s->rep);
    s->rep.tag = tag;
    if (!s->versioned && type != P9_TVERSION)
        return lerror(s, tag, LX_EPROTO, out, out_cap);
    switch (type) {
    case P9_TVERSION: rc = h_version(s); break;
    case P9_TATTACH: rc = h_attach(s); break;
    case P9_TWALK: rc = h_walk(s); break;
    case P9_TCLUNK: rc = h_clunk(s); break;
    case P9_TREMOVE: rc = h_remove(s); break;
    case P9_TGETATTR: rc = h_getattr(s); break;
    case P9_TSETATTR: rc = h_setattr(s); break;
    case P9_TSTATFS: rc = h_statfs(s); break;
    case P9_TXATTRWALK: rc = h_xattrwalk(s); break;
    case P9_TLOPEN: rc = h_lopen(s); break;
    case P9_TLCREATE: rc = h_lcreate(s); break;
    case P9_TREAD: rc = h_read(s, out, out_cap); break;
    case P9_TWRITE: rc = h_write(s); break;
    case P9_TFSYNC: rc = h_fsync(s); break;
    case P9_TREADDIR:
        n = h_readdir(s, out, out_cap);
        if (n < 0)
            return lerror(s, tag, srv_errno(n), out, out_cap);
        return n;   /* built in place */
    case P9_TMKDIR: rc = h_mkdir(s); break;
    case P9_TUNLINKAT: rc = h_unlinkat(s); break;
    case P9_TRENAMEAT: rc = h_renameat(s); break;
    case P9_TRENAME: rc = h_rename(s); break;
    case P9_TAUTH:
        /* No authentication: Rlerror(ENOENT) is how diod and its client
         * library say "not required" (the client then attaches with
         * afid = NOFID). */
        rc = STEADYFS_ENOENT;
        break;
    case P9_TFLUSH:
        /* Requests are answered one at a time, in order: by the time a
         * Tflush is read, the request it names has been answered. */
        s->rep.type = P9_RFLUSH;
        rc = 0;
        break;
    default:
        /* Txattrcreate, R-messages sent to a server, ... */
        rc = -LX_EOPNOTSUPP;
        break;
    }
    if (rc < 0)
        return lerror(s, tag, srv_errno(rc), out, out_cap);
    n = p9_encode(&s->rep, out, out_cap);
    return n < 0 ? P9SRV_E_NOSPACE : n;
}
