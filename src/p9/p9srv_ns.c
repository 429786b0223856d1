/* The server's namespace: Twalk, Tclunk, Tremove, Tmkdir, Tsymlink,
 * Tunlinkat, Trenameat and Trename.  Paths are built in the scratch buffers and
 * checked (names, path_max) before steadyfs sees them.
 */
#include "p9/p9srv_internal.h"

int srv_h_walk(p9srv *s, struct p9srv_fid *f)
{
    struct p9srv_fid *nf;
    steadyfs_stat st;
    char *p = s->tmp[0];
    uint32_t len, i, dots, nw = s->req.u.twalk.nwname;
    uint32_t newfid = s->req.u.twalk.newfid;
    uint8_t type;
    uint64_t id;
    int rc, err = 0;
    if (newfid != f->fid && srv_fid_find(s, newfid))
        return -LX_EBADF;
    if (newfid == f->fid && f->h != FID_H_NONE && nw > 0)
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
        /* search permission on the directory walked from */
        err = i ? srv_may_st(s, &st, 1) : srv_may(s, p, 1);
        if (!err)
            err = srv_name_walk(name);
        if (err)
            break;
        dots = srv_dots(name);
        if (dots == 2) {
            len = srv_path_up(p, len);   /* at the root: stays at the root */
        } else if (!dots) {
            int32_t n = srv_path_join(s, p, p, len, name);
            if (n < 0) {
                err = n;
                break;
            }
            len = (uint32_t)n;
        }
        err = srv_stat_path(s, p, &st);
        if (err)
            break;
        type = st.type;
        id = st.id;
        srv_qid(&s->rep.u.rwalk.wqid[i], type, id);
    }
    if (i < nw && i == 0)
        return err;   /* the first name failed: Rlerror */
    s->rep.u.rwalk.nwqid = (uint16_t)i;
    if (i < nw)
        return 0;   /* partial walk: newfid is not created */
    if (newfid == f->fid) {
        nf = f;
    } else {
        nf = srv_fid_alloc(s, newfid, &rc);
        if (!nf)
            return rc;
        srv_fid_use(s, nf, type, id);
    }
    nf->type = type;
    srv_fid_set_id(nf, id);
    srv_fid_set_path(s, nf, p, len);
    return 0;
}

int srv_h_clunk(p9srv *s, struct p9srv_fid *unused)
{
    struct p9srv_fid *f = srv_fid_find(s, s->req.u.fid.fid);
    (void)unused;
    if (!f)
        return -LX_EBADF;
    return srv_fid_clunk(s, f);
}

int srv_h_remove(p9srv *s, struct p9srv_fid *unused)
{
    struct p9srv_fid *f = srv_fid_find(s, s->req.u.fid.fid);
    int err, rc;
    (void)unused;
    if (!f)
        return -LX_EBADF;
    if (f->kind != FID_NODE)
        err = -LX_EBADF;
    else if (f->stale)
        err = -LX_ESTALE;
    else if (s->cfg.read_only)
        err = STEADYFS_EROFS;
    else
        err = 0;
    /* The fid goes away whatever happens (9P); its handle first, because
     * steadyfs refuses to remove an open file.  The first error wins. */
    rc = srv_fid_clunk(s, f);
    if (err)
        return err;
    if (!rc) {
        const char *p = srv_fid_path(s, f);   /* the slot is free but untouched */
        steadyfs_stat st;
        rc = srv_stat_path(s, p, &st);
        if (!rc && st.id != srv_fid_id(f))
            rc = -LX_ESTALE;
        if (!rc)
            rc = srv_may_parent(s, f, s->tmp[1]);
        if (!rc)
            rc = srv_unlink(s, p, f->type == STEADYFS_TYPE_DIR);
    }
    return rc;
}

/* Tmkdir and Tsymlink: a new directory or symlink with the request's gid
 * (and, for a directory, mode), answered with its qid. */
int srv_h_mknode(p9srv *s, struct p9srv_fid *f)
{
    steadyfs_stat st;
    steadyfs_attr a;
    char *p = s->tmp[0];
    int link = s->req.type == P9_TSYMLINK;
    int32_t rc = srv_dir_child(s, f);
    if (rc < 0)
        return rc;
    if (link) {
        /* the target, NUL-terminated, in the other scratch buffer */
        struct p9_str t = s->req.u.tsymlink.target;
        if (t.len >= s->cfg.path_max)
            return STEADYFS_ENAMETOOLONG;
        memcpy(s->tmp[1], t.ptr, t.len);
        s->tmp[1][t.len] = 0;
        if (strlen(s->tmp[1]) != t.len)
            return STEADYFS_EINVAL;   /* a NUL inside */
    }
    rc = srv_ring_here(s, p) ? STEADYFS_EEXIST : srv_may_fid(s, f, 3);
    if (!rc)
        rc = link ? steadyfs_symlink(s->cfg.fs, s->tmp[1], p,
                                     srv_new_attr(s, &a, 0777u, s->req.u.tsymlink.gid))
                  : steadyfs_mkdir_attr(s->cfg.fs, p, srv_new_attr(s, &a, s->req.u.tmkdir.mode,
                                                                   s->req.u.tmkdir.gid));
    if (!rc)
        rc = steadyfs_stat_path(s->cfg.fs, p, &st);
    if (rc)
        return rc;
    srv_qid(&s->rep.u.qid, st.type, st.id);
    return 0;
}

int srv_h_unlinkat(p9srv *s, struct p9srv_fid *f)
{
    int32_t rc = srv_dir_child(s, f);
    if (rc < 0)
        return rc;
    rc = srv_may_fid(s, f, 3);
    if (rc)
        return rc;
    /* Fids still naming the removed file answer ESTALE from now on (their
     * id no longer matches). */
    return srv_unlink(s, s->tmp[0], s->req.u.tunlinkat.flags & LX_AT_REMOVEDIR);
}

static int do_rename(p9srv *s, uint32_t flen, uint32_t tlen)
{
    int rc = srv_ring_here(s, s->tmp[0]) || srv_ring_here(s, s->tmp[1])
                 ? STEADYFS_EROFS : steadyfs_rename(s->cfg.fs, s->tmp[0], s->tmp[1]);
    p9srv *t;
    if (rc)
        return rc;
    /* Fids of other sessions on the same steadyfs follow too: a client
     * must not find its fid naming whatever later takes the old name. */
    srv_paths_renamed(s, s->tmp[0], flen, s->tmp[1], tlen);
    for (t = s->peer; t && t != s; t = t->peer)
        srv_paths_renamed(t, s->tmp[0], flen, s->tmp[1], tlen);
    return 0;
}

int srv_h_renameat(p9srv *s, struct p9srv_fid *od)
{
    struct p9srv_fid *nd;
    int32_t fl, tl;
    int rc = srv_dir(od);
    if (!rc)
        rc = srv_dir_node(s, s->req.u.trenameat.newdirfid, &nd);
    if (rc)
        return rc;
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.trenameat.oldname);
    if (!rc)
        rc = srv_name_new(s->req.u.trenameat.newname);
    if (rc)
        return rc;
    fl = srv_fid_join(s, s->tmp[0], od, s->req.u.trenameat.oldname);
    tl = srv_fid_join(s, s->tmp[1], nd, s->req.u.trenameat.newname);
    if (fl < 0)
        return fl;
    if (tl < 0)
        return tl;
    rc = srv_may_fid(s, od, 3);
    if (!rc)
        rc = srv_may_fid(s, nd, 3);
    if (rc)
        return rc;
    return do_rename(s, (uint32_t)fl, (uint32_t)tl);
}

int srv_h_rename(p9srv *s, struct p9srv_fid *f)
{
    struct p9srv_fid *d;
    int32_t tl;
    int rc = srv_dir_node(s, s->req.u.trename.dfid, &d);
    if (rc)
        return rc;
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.trename.name);
    if (rc)
        return rc;
    tl = srv_fid_join(s, s->tmp[1], d, s->req.u.trename.name);
    if (tl < 0)
        return tl;
    rc = srv_may_fid(s, d, 3);
    if (!rc)
        rc = srv_may_parent(s, f, s->tmp[0]);   /* the source's directory */
    if (rc)
        return rc;
    memcpy(s->tmp[0], srv_fid_path(s, f), (uint32_t)f->plen + 1u);
    return do_rename(s, f->plen, (uint32_t)tl);
}
