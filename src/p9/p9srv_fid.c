/* The server's fid table and the paths it keeps.  steadyfs names files by
 * absolute path, so a fid is (path, id, handle); every walk, create and
 * rename rewrites paths here.  The table is a fixed array searched
 * linearly: fid_max is small (16 by default) and a lookup is then cheaper
 * than any hashing would be, with a bound that is obvious. */
#include <stddef.h>

#include "p9/p9srv_internal.h"

struct p9srv_fid *srv_fid_find(p9srv *s, uint32_t fid)
{
    uint32_t i;
    if (fid == P9_NOFID)
        return NULL;
    for (i = 0; i < s->cfg.fid_max; i++)
        if (s->fids[i].kind != FID_FREE && s->fids[i].fid == fid)
            return &s->fids[i];
    return NULL;
}

struct p9srv_fid *srv_fid_alloc(p9srv *s, uint32_t fid, int *err)
{
    uint32_t i;
    *err = -LX_EBADF;
    if (fid == P9_NOFID || srv_fid_find(s, fid))
        return NULL;
    for (i = 0; i < s->cfg.fid_max; i++) {
        struct p9srv_fid *f = &s->fids[i];
        if (f->kind == FID_FREE) {
            memset(f, 0, sizeof *f);
            f->fid = fid;
            f->h = FID_H_NONE;
            *err = 0;
            return f;
        }
    }
    s->n_fid_full++;
    *err = -LX_EMFILE;
    return NULL;
}

int srv_fid_clunk(p9srv *s, struct p9srv_fid *f)
{
    int rc = 0;
    if (f->kind == FID_NODE && f->h >= 0)
        rc = steadyfs_close(s->cfg.fs, f->h);   /* commits the file */
    if (f->kind != FID_FREE && s->nfids > 0)
        s->nfids--;
    f->kind = FID_FREE;
    f->h = FID_H_NONE;
    return rc;
}

char *srv_fid_path(const p9srv *s, const struct p9srv_fid *f)
{
    return s->paths + (uint32_t)(f - s->fids) * s->cfg.path_max;
}

void srv_fid_set_path(p9srv *s, struct p9srv_fid *f, const char *p, uint32_t len)
{
    char *d = srv_fid_path(s, f);
    if (d != p)
        memmove(d, p, len);
    d[len] = '\0';
    f->plen = (uint16_t)len;
    f->stale = 0;
}

uint64_t srv_fid_id(const struct p9srv_fid *f)
{
    return (uint64_t)f->id_hi << 32 | f->id_lo;
}

void srv_fid_set_id(struct p9srv_fid *f, uint64_t id)
{
    f->id_lo = (uint32_t)id;
    f->id_hi = (uint32_t)(id >> 32);
}

int srv_name_walk(struct p9_str name)
{
    uint32_t i;
    if (name.len == 0)
        return STEADYFS_EINVAL;
    if (name.len > STEADYFS_NAME_MAX)
        return STEADYFS_ENAMETOOLONG;
    for (i = 0; i < name.len; i++)
        if (name.ptr[i] == '/' || name.ptr[i] == '\0')
            return STEADYFS_EINVAL;
    return 0;
}

uint32_t srv_dots(struct p9_str name)
{
    uint32_t i;
    if (name.len > 2)
        return 0;
    for (i = 0; i < name.len; i++)
        if (name.ptr[i] != '.')
            return 0;
    return name.len;
}

int srv_name_new(struct p9_str name)
{
    int rc = srv_name_walk(name);
    if (!rc && srv_dots(name))
        rc = STEADYFS_EINVAL;
    return rc;
}

int32_t srv_path_join(const p9srv *s, char *dst, const char *dir, uint32_t dlen,
                      struct p9_str name)
{
    uint32_t sep = dlen > 1 ? 1u : 0u;   /* the root "/" needs no second slash */
    uint32_t len = dlen + sep + name.len;
    if (len + 1 > s->cfg.path_max)
        return STEADYFS_ENAMETOOLONG;
    if (dst != dir)
        memmove(dst, dir, dlen);
    if (sep)
        dst[dlen] = '/';
    memcpy(dst + dlen + sep, name.ptr, name.len);
    dst[len] = '\0';
    return (int32_t)len;
}

int32_t srv_fid_join(const p9srv *s, char *dst, const struct p9srv_fid *dir, struct p9_str name)
{
    return srv_path_join(s, dst, srv_fid_path(s, dir), dir->plen, name);
}

/* Tlcreate, Tmkdir, Tsymlink and Tunlinkat name a directory fid first and
 * a new name second, at the same places in struct p9_msg. */
#define AT_MKDIR(m) (offsetof(struct p9_msg, u.m) == offsetof(struct p9_msg, u.tmkdir.dfid))
#define NAME_AT_MKDIR(m) (offsetof(struct p9_msg, u.m) == offsetof(struct p9_msg, u.tmkdir.name))
_Static_assert(AT_MKDIR(tlcreate.fid) && AT_MKDIR(tsymlink.dfid) && AT_MKDIR(tunlinkat.dirfid),
               "directory fids differ");
_Static_assert(NAME_AT_MKDIR(tlcreate.name) && NAME_AT_MKDIR(tsymlink.name) &&
               NAME_AT_MKDIR(tunlinkat.name), "new names differ");

int32_t srv_dir_child(p9srv *s, struct p9srv_fid *dir)
{
    int rc = srv_dir(dir);
    if (rc)
        return rc;
    if (s->req.type == P9_TLCREATE && dir->h != FID_H_NONE)
        return STEADYFS_EINVAL;   /* an open fid cannot become the new file */
    if (s->cfg.read_only)
        return STEADYFS_EROFS;
    rc = srv_name_new(s->req.u.tmkdir.name);
    return rc ? rc : srv_fid_join(s, s->tmp[0], dir, s->req.u.tmkdir.name);
}

int srv_may_fid(p9srv *s, const struct p9srv_fid *f, uint32_t want)
{
    return srv_may(s, srv_fid_path(s, f), want);
}

int srv_may_parent(p9srv *s, const struct p9srv_fid *f, char *scratch)
{
    if (!s->cfg.access_user || !s->uid)
        return 0;   /* srv_may would allow it: no copy, no stat */
    memcpy(scratch, srv_fid_path(s, f), (uint32_t)f->plen + 1u);
    srv_path_up(scratch, f->plen);
    return srv_may(s, scratch, 3);
}

int srv_unlink(p9srv *s, const char *path, uint32_t dir)
{
    if (srv_ring_here(s, path))
        return STEADYFS_EROFS;
    return dir ? steadyfs_rmdir(s->cfg.fs, path) : steadyfs_unlink(s->cfg.fs, path);
}

uint32_t srv_path_up(char *p, uint32_t len)
{
    /* Paths are canonical ("/" or "/a/b", no trailing slash, no "." or
     * ".." components), so the parent is everything before the last '/'. */
    while (len > 1 && p[len - 1] != '/')
        len--;
    if (len > 1)
        len--;
    p[len] = '\0';
    return len;
}

void srv_paths_renamed(p9srv *s, const char *from, uint32_t flen, const char *to, uint32_t tlen)
{
    uint32_t i;
    for (i = 0; i < s->cfg.fid_max; i++) {
        struct p9srv_fid *f = &s->fids[i];
        char *p;
        uint32_t rest;
        if (f->kind != FID_NODE || f->stale)
            continue;
        p = srv_fid_path(s, f);
        if (f->plen < flen || memcmp(p, from, flen) != 0 ||
            (f->plen > flen && p[flen] != '/'))
            continue;
        rest = f->plen - flen;
        if (tlen + rest + 1 > s->cfg.path_max) {
            f->stale = 1;   /* cannot name it any more: ESTALE from now on */
            continue;
        }
        memmove(p + tlen, p + flen, rest);
        memcpy(p, to, tlen);
        p[tlen + rest] = '\0';
        f->plen = (uint16_t)(tlen + rest);
    }
}

/* ---- fids as the handlers use them ---- */

void srv_fid_use(p9srv *s, struct p9srv_fid *f, uint8_t type, uint64_t id)
{
    f->kind = FID_NODE;
    f->type = type;
    srv_fid_set_id(f, id);
    s->nfids++;
}

/* A fid naming a file or directory, not stale. */
int srv_node(p9srv *s, uint32_t fid, struct p9srv_fid **out)
{
    struct p9srv_fid *f = srv_fid_find(s, fid);
    if (!f || f->kind != FID_NODE)
        return -LX_EBADF;
    if (f->stale)
        return -LX_ESTALE;
    *out = f;
    return 0;
}

int srv_dir(const struct p9srv_fid *f)
{
    return f->type != STEADYFS_TYPE_DIR ? STEADYFS_ENOTDIR : 0;
}

int srv_dir_node(p9srv *s, uint32_t fid, struct p9srv_fid **out)
{
    int rc = srv_node(s, fid, out);
    return rc ? rc : srv_dir(*out);
}

/* Current attributes of the fid's file; ESTALE if its path now names a
 * different file (removed, and the name reused). */
int srv_fid_stat(p9srv *s, struct p9srv_fid *f, steadyfs_stat *st)
{
    int rc;
    if (f->h >= 0 && f->type == STEADYFS_TYPE_FILE)
        return steadyfs_fstat(s->cfg.fs, f->h, st);
    rc = srv_stat_path(s, srv_fid_path(s, f), st);
    if (!rc && st->id != srv_fid_id(f))
        rc = -LX_ESTALE;
    return rc;
}

int srv_open(p9srv *s, const char *path, int fl, const steadyfs_attr *attr, uint64_t *id)
{
    steadyfs_stat st;
    int h = steadyfs_open_attr(s->cfg.fs, path, fl, attr), rc;
    if (h < 0)
        return h;
    rc = steadyfs_fstat(s->cfg.fs, h, &st);
    if (!rc && *id && st.id != *id)
        rc = -LX_ESTALE;
    if (rc) {
        steadyfs_close(s->cfg.fs, h);
        return rc;
    }
    *id = st.id;
    return h;
}
