/* p9cli by path: walking a path to a fid, and the calls that name a file
 * (open, unlink, mkdir, rmdir, rename, stat, setattr, statfs).  Every fid
 * walked here is clunked before the call returns, except the one an open
 * hands to its struct p9cli_file. */
#include <string.h>

#include "stub/p9cli_internal.h"

/* Next component of path[*pp..end): 1 with *s set, 0 at the end, or
 * -ENAMETOOLONG.  Empty and "." components are skipped. */
static int next_comp(const char **pp, const char *end, struct p9_str *s)
{
    const char *p = *pp;
    for (;;) {
        while (p < end && *p == '/') p++;
        if (p == end) {
            *pp = p;
            return 0;
        }
        const char *q = p;
        while (q < end && *q != '/') q++;
        if (q - p == 1 && *p == '.') {
            p = q;
            continue;
        }
        if ((size_t)(q - p) > P9CLI_NAME_MAX) return -P9CLI_ENAMETOOLONG;
        s->ptr = (const uint8_t *)p;
        s->len = (uint16_t)(q - p);
        *pp = q;
        return 1;
    }
}

int64_t p9cli_walk(struct p9cli *c, const char *path, size_t len)
{
    if (c->dead) return c->dead;
    int64_t nf = p9cli_fid_alloc(c);
    if (nf < 0) return nf;
    uint32_t fid = (uint32_t)nf;
    const char *p = path, *end = path + len;
    struct p9_str comp = { NULL, 0 };
    int have = next_comp(&p, end, &comp);
    int first = 1, rc = 0;
    /* One Twalk carries at most P9_MAXWELEM names and must fit in msize;
     * later walks continue from the new fid itself (fid == newfid). */
    while (have >= 0 && (first || have)) {
        uint16_t nw = 0;
        uint32_t bytes = P9_HDR_SIZE + 10u;
        while (have == 1 && nw < P9_MAXWELEM && bytes + 2u + comp.len <= c->msize) {
            c->m.u.twalk.wname[nw++] = comp;
            bytes += 2u + comp.len;
            have = next_comp(&p, end, &comp);
        }
        if (have < 0) break;
        if (have == 1 && nw == 0) {
            have = -P9CLI_ENAMETOOLONG;
            break;
        }
        c->m.type = P9_TWALK;
        c->m.u.twalk.fid = first ? P9CLI_ROOT_FID : fid;
        c->m.u.twalk.newfid = fid;
        c->m.u.twalk.nwname = nw;
        rc = p9cli_rpc(c, P9_RWALK);
        if (rc == 0 && c->m.u.rwalk.nwqid > nw) rc = -P9CLI_EPROTO;
        else if (rc == 0 && c->m.u.rwalk.nwqid < nw) rc = -P9CLI_ENOENT;
        if (rc) break;
        first = 0;
    }
    if (have < 0) rc = have;
    if (rc == 0) return fid;
    /* A failed first walk creates no fid; a failed later one leaves the
     * fid where the previous walk put it. */
    if (first)
        p9cli_fid_free(c, fid);
    else
        p9cli_clunk(c, fid);
    return rc;
}

int64_t p9cli_walk_parent(struct p9cli *c, const char *path, const char **name, uint16_t *namelen)
{
    if (path == NULL) return -P9CLI_EINVAL;
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/') start--;
    size_t nl = len - start;
    if (nl == 0 || (nl == 1 && path[start] == '.') ||
        (nl == 2 && path[start] == '.' && path[start + 1] == '.'))
        return -P9CLI_EINVAL;
    if (nl > P9CLI_NAME_MAX) return -P9CLI_ENAMETOOLONG;
    *name = path + start;
    *namelen = (uint16_t)nl;
    return p9cli_walk(c, path, start);
}

static struct p9_str view(const char *s, uint16_t n)
{
    struct p9_str v = { (const uint8_t *)s, n };
    return v;
}

/* Walks one name from dirfid to a new fid: the fid, or an error (-ENOENT
 * if it is not there); *qtype gets its qid.type. */
static int64_t walk1(struct p9cli *c, uint32_t dirfid, const char *name, uint16_t nl, uint8_t *qtype)
{
    int64_t nf = p9cli_fid_alloc(c);
    if (nf < 0) return nf;
    c->m.type = P9_TWALK;
    c->m.u.twalk.fid = dirfid;
    c->m.u.twalk.newfid = (uint32_t)nf;
    c->m.u.twalk.nwname = 1;
    c->m.u.twalk.wname[0] = view(name, nl);
    int rc = p9cli_rpc(c, P9_RWALK);
    if (rc == 0 && c->m.u.rwalk.nwqid != 1) rc = c->m.u.rwalk.nwqid == 0 ? -P9CLI_ENOENT : -P9CLI_EPROTO;
    if (rc) {
        p9cli_fid_free(c, (uint32_t)nf);
        return rc;
    }
    if (qtype) *qtype = c->m.u.rwalk.wqid[0].type;
    return nf;
}

static int lopen(struct p9cli *c, struct p9cli_file *f, uint32_t fid, uint32_t flags)
{
    c->m.type = P9_TLOPEN;
    c->m.u.tlopen.fid = fid;
    c->m.u.tlopen.flags = flags & ~(P9CLI_O_CREAT | P9CLI_O_EXCL);
    int rc = p9cli_rpc(c, P9_RLOPEN);
    if (rc) {
        p9cli_clunk(c, fid);
        return rc;
    }
    f->fid = fid;
    return 0;
}

/* Opens path[..] with O_CREAT: walk to the parent, then the name; create
 * it (Tlcreate turns the parent's fid into the new file's) only if the
 * walk says it is not there. */
static int open_create(struct p9cli *c, struct p9cli_file *f, const char *path,
                       uint32_t flags, uint32_t mode)
{
    const char *name;
    uint16_t nl;
    int64_t pf = p9cli_walk_parent(c, path, &name, &nl);
    if (pf < 0) return (int)pf;
    uint32_t pfid = (uint32_t)pf;
    int64_t nf = walk1(c, pfid, name, nl, NULL);
    int rc = nf < 0 ? (int)nf : 0;
    if (rc == 0) {
        p9cli_clunk(c, pfid);
        if (flags & P9CLI_O_EXCL) {
            p9cli_clunk(c, (uint32_t)nf);
            return -P9CLI_EEXIST;
        }
        return lopen(c, f, (uint32_t)nf, flags);
    }
    if (rc != -P9CLI_ENOENT) {
        p9cli_clunk(c, pfid);
        return rc;
    }
    c->m.type = P9_TLCREATE;
    c->m.u.tlcreate.fid = pfid;
    c->m.u.tlcreate.name = view(name, nl);
    c->m.u.tlcreate.flags = flags;
    c->m.u.tlcreate.mode = mode & 07777u;
    c->m.u.tlcreate.gid = c->cfg.gid;
    rc = p9cli_rpc(c, P9_RLCREATE);
    if (rc) {
        p9cli_clunk(c, pfid);
        return rc;
    }
    f->fid = pfid;
    return 0;
}

int p9cli_open(struct p9cli *c, struct p9cli_file *f, const char *path, uint32_t flags, uint32_t mode)
{
    if (f == NULL || path == NULL) return -P9CLI_EINVAL;
    f->fid = P9_NOFID;
    if ((flags & P9CLI_O_ACCMODE) == P9CLI_O_ACCMODE) return -P9CLI_EINVAL;
    if (c->dead) return c->dead;
    int rc;
    if (flags & P9CLI_O_CREAT) {
        rc = open_create(c, f, path, flags, mode);
    } else {
        int64_t fid = p9cli_walk(c, path, strlen(path));
        if (fid < 0) return (int)fid;
        rc = lopen(c, f, (uint32_t)fid, flags);
    }
    if (rc) return rc;
    uint32_t io = p9cli_iosize(c);
    f->iounit = c->m.u.ropen.iounit != 0 && c->m.u.ropen.iounit < io ? c->m.u.ropen.iounit : io;
    f->qtype = c->m.u.ropen.qid.type;
    f->pos = 0;
    f->flags = flags;
    return 0;
}

int p9cli_close(struct p9cli *c, struct p9cli_file *f)
{
    if (f == NULL || f->fid == P9_NOFID) return -P9CLI_EBADF;
    uint32_t fid = f->fid;
    f->fid = P9_NOFID;
    return p9cli_clunk(c, fid);
}

static int is_unsupported(int rc)
{
    return rc == -P9CLI_EOPNOTSUPP || rc == -P9CLI_ENOSYS;
}

static int unlink_at(struct p9cli *c, const char *path, uint32_t flags)
{
    const char *name;
    uint16_t nl;
    int64_t pf = p9cli_walk_parent(c, path, &name, &nl);
    if (pf < 0) return (int)pf;
    int rc = -P9CLI_EOPNOTSUPP;
    if (!c->no_at) {
        c->m.type = P9_TUNLINKAT;
        c->m.u.tunlinkat.dirfid = (uint32_t)pf;
        c->m.u.tunlinkat.name = view(name, nl);
        c->m.u.tunlinkat.flags = flags;
        rc = p9cli_rpc(c, P9_RUNLINKAT);
    }
    if (is_unsupported(rc)) {
        /* A server without Tunlinkat (Debian's diod 1.0.24): Tremove,
         * after checking the kind ourselves as unlink/rmdir would. */
        c->no_at = 1;
        uint8_t qt = 0;
        int64_t fid = walk1(c, (uint32_t)pf, name, nl, &qt);
        rc = fid < 0 ? (int)fid : 0;
        if (rc == 0 && (flags & P9CLI_AT_REMOVEDIR) && !(qt & P9_QTDIR)) rc = -P9CLI_ENOTDIR;
        if (rc == 0 && !(flags & P9CLI_AT_REMOVEDIR) && (qt & P9_QTDIR)) rc = -P9CLI_EISDIR;
        if (rc == 0) {
            c->m.type = P9_TREMOVE;
            c->m.u.fid.fid = (uint32_t)fid;
            rc = p9cli_rpc(c, P9_RREMOVE);
            p9cli_fid_free(c, (uint32_t)fid);   /* Tremove clunks, even on error */
        } else if (fid >= 0) {
            p9cli_clunk(c, (uint32_t)fid);
        }
    }
    p9cli_clunk(c, (uint32_t)pf);
    return rc;
}

int p9cli_unlink(struct p9cli *c, const char *path)
{
    return unlink_at(c, path, 0);
}

int p9cli_rmdir(struct p9cli *c, const char *path)
{
    return unlink_at(c, path, P9CLI_AT_REMOVEDIR);
}

int p9cli_mkdir(struct p9cli *c, const char *path, uint32_t mode)
{
    const char *name;
    uint16_t nl;
    int64_t pf = p9cli_walk_parent(c, path, &name, &nl);
    if (pf < 0) return (int)pf;
    c->m.type = P9_TMKDIR;
    c->m.u.tmkdir.dfid = (uint32_t)pf;
    c->m.u.tmkdir.name = view(name, nl);
    c->m.u.tmkdir.mode = mode & 07777u;
    c->m.u.tmkdir.gid = c->cfg.gid;
    int rc = p9cli_rpc(c, P9_RMKDIR);
    p9cli_clunk(c, (uint32_t)pf);
    return rc;
}

int p9cli_symlink(struct p9cli *c, const char *target, const char *path)
{
    const char *name;
    uint16_t nl;
    size_t tl;
    if (target == NULL) return -P9CLI_EINVAL;
    tl = strlen(target);
    if (tl > 0xFFFFu) return -P9CLI_ENAMETOOLONG;
    int64_t pf = p9cli_walk_parent(c, path, &name, &nl);
    if (pf < 0) return (int)pf;
    c->m.type = P9_TSYMLINK;
    c->m.u.tsymlink.dfid = (uint32_t)pf;
    c->m.u.tsymlink.name = view(name, nl);
    c->m.u.tsymlink.target = view(target, (uint16_t)tl);
    c->m.u.tsymlink.gid = c->cfg.gid;
    int rc = p9cli_rpc(c, P9_RSYMLINK);
    p9cli_clunk(c, (uint32_t)pf);
    return rc;
}

int32_t p9cli_readlink(struct p9cli *c, const char *path, char *buf, uint32_t cap)
{
    if (path == NULL || buf == NULL || cap == 0) return -P9CLI_EINVAL;
    int64_t fid = p9cli_walk(c, path, strlen(path));
    if (fid < 0) return (int)fid;
    c->m.type = P9_TREADLINK;
    c->m.u.fid.fid = (uint32_t)fid;
    int32_t rc = p9cli_rpc(c, P9_RREADLINK);
    if (rc == 0) {
        /* the reply's view into the receive buffer: copied out now */
        uint16_t n = c->m.u.rreadlink.target.len;
        if (n >= cap) {
            rc = -P9CLI_ENAMETOOLONG;
        } else {
            memcpy(buf, c->m.u.rreadlink.target.ptr, n);
            buf[n] = 0;
            rc = n;
        }
    }
    p9cli_clunk(c, (uint32_t)fid);
    return rc;
}

int p9cli_rename(struct p9cli *c, const char *from, const char *to)
{
    const char *oname, *nname;
    uint16_t onl, nnl;
    int64_t of = p9cli_walk_parent(c, from, &oname, &onl);
    if (of < 0) return (int)of;
    int64_t nf = p9cli_walk_parent(c, to, &nname, &nnl);
    if (nf < 0) {
        p9cli_clunk(c, (uint32_t)of);
        return (int)nf;
    }
    int rc = -P9CLI_EOPNOTSUPP;
    if (!c->no_at) {
        c->m.type = P9_TRENAMEAT;
        c->m.u.trenameat.olddirfid = (uint32_t)of;
        c->m.u.trenameat.oldname = view(oname, onl);
        c->m.u.trenameat.newdirfid = (uint32_t)nf;
        c->m.u.trenameat.newname = view(nname, nnl);
        rc = p9cli_rpc(c, P9_RRENAMEAT);
    }
    if (is_unsupported(rc)) {
        /* Trename moves the file a fid names. */
        c->no_at = 1;
        int64_t fid = walk1(c, (uint32_t)of, oname, onl, NULL);
        rc = fid < 0 ? (int)fid : 0;
        if (rc == 0) {
            c->m.type = P9_TRENAME;
            c->m.u.trename.fid = (uint32_t)fid;
            c->m.u.trename.dfid = (uint32_t)nf;
            c->m.u.trename.name = view(nname, nnl);
            rc = p9cli_rpc(c, P9_RRENAME);
            p9cli_clunk(c, (uint32_t)fid);
        }
    }
    p9cli_clunk(c, (uint32_t)of);
    p9cli_clunk(c, (uint32_t)nf);
    return rc;
}

static int getattr(struct p9cli *c, uint32_t fid, struct p9_stat *st)
{
    c->m.type = P9_TGETATTR;
    c->m.u.tgetattr.fid = fid;
    c->m.u.tgetattr.request_mask = P9_GETATTR_BASIC;
    int rc = p9cli_rpc(c, P9_RGETATTR);
    if (rc == 0) *st = c->m.u.rgetattr;
    return rc;
}

int p9cli_stat(struct p9cli *c, const char *path, struct p9_stat *st)
{
    if (path == NULL || st == NULL) return -P9CLI_EINVAL;
    int64_t fid = p9cli_walk(c, path, strlen(path));
    if (fid < 0) return (int)fid;
    int rc = getattr(c, (uint32_t)fid, st);
    p9cli_clunk(c, (uint32_t)fid);
    return rc;
}

int p9cli_fstat(struct p9cli *c, struct p9cli_file *f, struct p9_stat *st)
{
    if (f == NULL || f->fid == P9_NOFID) return -P9CLI_EBADF;
    if (st == NULL) return -P9CLI_EINVAL;
    return getattr(c, f->fid, st);
}

static int setattr(struct p9cli *c, uint32_t fid, const struct p9cli_attr *a)
{
    c->m.type = P9_TSETATTR;
    c->m.u.tsetattr.fid = fid;
    c->m.u.tsetattr.valid = a->valid;
    c->m.u.tsetattr.mode = a->mode;
    c->m.u.tsetattr.uid = a->uid;
    c->m.u.tsetattr.gid = a->gid;
    c->m.u.tsetattr.size = a->size;
    c->m.u.tsetattr.atime_sec = a->atime_sec;
    c->m.u.tsetattr.atime_nsec = a->atime_nsec;
    c->m.u.tsetattr.mtime_sec = a->mtime_sec;
    c->m.u.tsetattr.mtime_nsec = a->mtime_nsec;
    return p9cli_rpc(c, P9_RSETATTR);
}

int p9cli_setattr(struct p9cli *c, const char *path, const struct p9cli_attr *a)
{
    if (path == NULL || a == NULL) return -P9CLI_EINVAL;
    int64_t fid = p9cli_walk(c, path, strlen(path));
    if (fid < 0) return (int)fid;
    int rc = setattr(c, (uint32_t)fid, a);
    p9cli_clunk(c, (uint32_t)fid);
    return rc;
}

int p9cli_fsetattr(struct p9cli *c, struct p9cli_file *f, const struct p9cli_attr *a)
{
    if (f == NULL || f->fid == P9_NOFID) return -P9CLI_EBADF;
    if (a == NULL) return -P9CLI_EINVAL;
    return setattr(c, f->fid, a);
}

int p9cli_truncate(struct p9cli *c, const char *path, uint64_t size)
{
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    a.valid = P9_SETATTR_SIZE;
    a.size = size;
    return p9cli_setattr(c, path, &a);
}

int p9cli_statfs(struct p9cli *c, struct p9_statfs *st)
{
    if (st == NULL) return -P9CLI_EINVAL;
    c->m.type = P9_TSTATFS;
    c->m.u.fid.fid = P9CLI_ROOT_FID;
    int rc = p9cli_rpc(c, P9_RSTATFS);
    if (rc == 0) *st = c->m.u.rstatfs;
    return rc;
}
