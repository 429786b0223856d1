/* The namespace: paths, create, unlink, rename, mkdir, rmdir, stat and
 * directory listing.  Each changing operation is one namespace transaction
 * (owner OWNER_NS): its sectors are written, the last one with COMMIT, all
 * inside the call, so after a power cut it happened entirely or not at all. */
#include "fs/fs_internal.h"

/* "." and ".." are never names of entries: every call refuses them as a
 * path component (steadyfs.h), so none can be created. */
static int dot_name(const char *name, uint32_t len)
{
    return name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.'));
}

static int resolve(steadyfs *fs, const char *path, struct sfs_where *r)
{
    uint32_t cur = 1, len, child;
    uint8_t ctype = STEADYFS_TYPE_DIR;
    int rc;
    r->parent = 1;
    r->name = path;
    r->nlen = 0;
    r->ino = 1;
    r->type = STEADYFS_TYPE_DIR;
    if (!path || path[0] != '/')
        return STEADYFS_EINVAL;
    for (;;) {
        while (*path == '/')
            path++;
        if (!*path)
            return 0;
        for (len = 0; path[len] && path[len] != '/'; len++)
            ;
        if (len > STEADYFS_NAME_MAX)
            return STEADYFS_ENAMETOOLONG;
        if (ctype != STEADYFS_TYPE_DIR)
            return STEADYFS_ENOTDIR;
        r->parent = cur;
        r->name = path;
        r->nlen = len;
        if (dot_name(path, len))
            return STEADYFS_EINVAL;
        rc = sfs_dir_lookup(fs, cur, path, len, &child, &ctype);
        path += len;
        if (rc == STEADYFS_ENOENT) {
            while (*path == '/')
                path++;
            r->ino = 0;
            r->type = 0;
            return *path ? STEADYFS_ENOENT : 0;
        }
        if (rc)
            return rc;
        if (child == 0 || child >= fs->cfg.max_inodes)
            return STEADYFS_ECORRUPT;
        cur = child;
        r->ino = child;
        r->type = ctype;
    }
}

int sfs_ino_alloc(steadyfs *fs, uint32_t *ino)
{
    uint32_t k, i, n = fs->cfg.max_inodes;
    for (k = 0; k < n; k++) {
        i = (fs->ino_cursor + k) % n;
        if (i < 2)
            continue;
        if (!sfs_bit(fs->ibm, i)) {
            fs->ino_cursor = i + 1;
            *ino = i;
            return 0;
        }
    }
    return STEADYFS_ENOSPC;
}

static int busy(steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->cfg.open_max; i++)
        if (fs->open[i].ino == ino)
            return 1;
    return 0;
}

/* Resolve an existing path to its inode. */
static int find_ino(steadyfs *fs, const char *path, uint32_t *ino)
{
    struct sfs_where r;
    int rc = resolve(fs, path, &r);
    *ino = r.ino;
    return rc ? rc : *ino ? 0 : STEADYFS_ENOENT;
}

static int ns_fail(steadyfs *fs, uint32_t txn, int rc)
{
    if (txn)
        sfs_abort(fs, 0, OWNER_NS, txn);
    return rc;
}

/* Creates stop SFS_RM_ROOM sectors before the limit, renames (removals,
 * fs->rm) may use them: a full device can always be cleaned up. */
static int room_for_ns(steadyfs *fs)
{
    int rc = sfs_live_room(fs, 4 + (fs->rm ? 0 : SFS_RM_ROOM), fs->rm);
    return rc ? rc : sfs_gc_pace(fs, fs->rm, SFS_DEBT_STEP);
}

/* A namespace change is rarely alone: a log rotation is close + unlink +
 * create + write + sync in one step of the application.  No erase-ahead
 * (2 ms) at the end of this call or of the next four calls that program
 * (the rest of such a step and the next three records; a sync after an
 * O_DSYNC write programs nothing and does not count), though each may look
 * light: the erase goes to a later plain write.  An erase queue down to one
 * unit still erases in the first small call, an empty one at once
 * (sfs_end), so only the timing moves (DESIGN.md §6).  The calls since
 * the last namespace change, where 8 or more, are the period sfs_end
 * expects the next one after (a logger rotating files of one size), and
 * keeps optional erases out of the calls just before it. */
static int ns_end(steadyfs *fs, int rc)
{
    fs->gc.erase_next = SFS_ERASE_NONE;
    if (rc >= 0) {
        fs->gc.busy = 5;
        if (fs->gc.calls - fs->gc.ns_last >= SFS_NS_PERIOD_MIN)
            fs->gc.ns_period = fs->gc.calls - fs->gc.ns_last;
        fs->gc.ns_last = fs->gc.calls;
    }
    return sfs_end(fs, rc);
}

int sfs_create(steadyfs *fs, struct sfs_where *r, uint8_t type, const steadyfs_attr *attr,
               const char *target, uint32_t tlen)
{
    static const uint16_t def_mode[3] = {0644u, 0755u, 0777u};
    sfs_inode in;
    uint32_t txn = 0, ino = r->ino ? r->ino : 1, mask = attr ? attr->mask : 0;
    int rc = 0;
    if (r->name) {
        rc = room_for_ns(fs);
        if (!rc)
            rc = sfs_ino_alloc(fs, &ino);
        if (rc)
            return rc;
        rc = sfs_dir_insert2(fs, r->parent, r->name, r->nlen, ino, type, &txn, 0);
        if (rc)
            return ns_fail(fs, txn, rc);
    }
    memset(&in, 0, sizeof in);
    in.ino = ino;
    in.gen = (uint32_t)fs->log.seq;
    in.type = type;
    in.parent = r->parent;
    in.size = tlen;
    in.mode = mask & STEADYFS_ATTR_MODE ? attr->mode & 07777u : def_mode[type - 1u];
    in.uid = mask & STEADYFS_ATTR_UID ? attr->uid : 0;
    in.gid = mask & STEADYFS_ATTR_GID ? attr->gid : 0;
    in.mtime = in.ctime = sfs_now(fs);
    do {
        rc = sfs_room(fs, 0, fs->rm);
        if (rc)
            break;
        /* a file's chunk list starts empty */
        memset(fs->buf + SFS_INODE_HDR, type == STEADYFS_TYPE_FILE ? 0xFF : 0, fs->geo.payload - SFS_INODE_HDR);
        if (tlen)
            memcpy(fs->buf + SFS_INODE_HDR, target, tlen);
        sfs_inode_pack(fs, fs->buf, &in);
        /* the root at format replaces nothing (an append) */
        rc = sfs_write_lpn(fs, sfs_shared_lpn(fs, in.ino, 0), OWNER_NS, &txn, TF_COMMIT,
                           r->name || r->ino ? SFS_UNKNOWN : SFS_NONE, NULL);
    } while (rc == SFS_RETRY);
    if (rc)
        return ns_fail(fs, txn, rc);
    r->ino = ino;
    return 0;
}

int steadyfs_open_attr(steadyfs *fs, const char *path, int flags, const steadyfs_attr *attr)
{
    struct sfs_where r;
    int rc = sfs_begin(fs, 1);
    if (!rc)
        /* O_TRUNC of an existing file is a truncate: within create's bound */
        sfs_budget_arm_path(fs, flags & (STEADYFS_O_CREAT | STEADYFS_O_TRUNC)
                                    ? STEADYFS_CALL_CREATE : STEADYFS_CALL_OPEN, path, NULL);
    if (rc)
        return rc;
    rc = resolve(fs, path, &r);
    if (rc)
        return sfs_end(fs, rc);
    if (!r.ino) {
        if (!(flags & STEADYFS_O_CREAT))
            return sfs_end(fs, STEADYFS_ENOENT);
        if (!r.nlen)
            return sfs_end(fs, STEADYFS_EINVAL);
        if (!sfs_slot(fs))
            return sfs_end(fs, STEADYFS_ENFILE);
        rc = sfs_create(fs, &r, STEADYFS_TYPE_FILE, attr, NULL, 0);
        if (rc)
            return sfs_end(fs, rc);
        return ns_end(fs, sfs_open_ino(fs, r.ino, flags));
    } else {
        if ((flags & STEADYFS_O_CREAT) && (flags & STEADYFS_O_EXCL))
            return sfs_end(fs, STEADYFS_EEXIST);
        if (r.type == STEADYFS_TYPE_DIR)
            return sfs_end(fs, STEADYFS_EISDIR);
    }
    return sfs_end(fs, sfs_open_ino(fs, r.ino, flags));
}

int steadyfs_open(steadyfs *fs, const char *path, int flags)
{
    return steadyfs_open_attr(fs, path, flags, NULL);
}

/* mkdir (target NULL) or symlink: the new name must not exist. */
static int make(steadyfs *fs, const char *path, uint8_t type, const steadyfs_attr *attr,
                const char *target)
{
    uint32_t tlen = 0;
    struct sfs_where r;
    int rc = sfs_begin(fs, 1);
    if (!rc)
        sfs_budget_arm_path(fs, target ? STEADYFS_CALL_CREATE : STEADYFS_CALL_MKDIR, path, NULL);
    if (rc)
        return rc;
    if (target) {
        tlen = (uint32_t)strlen(target);
        if (!tlen)
            return sfs_end(fs, STEADYFS_ENOENT);   /* symlink(2) of "" */
        if (tlen > steadyfs_symlink_max(fs))
            return sfs_end(fs, STEADYFS_ENAMETOOLONG);
    }
    rc = resolve(fs, path, &r);
    /* POSIX: mkdir of an existing directory's "." or ".." is EEXIST */
    if (rc == STEADYFS_EINVAL && r.nlen && dot_name(r.name, r.nlen)) {
        for (r.name += r.nlen; *r.name == '/'; r.name++)
            ;
        if (!*r.name)
            rc = STEADYFS_EEXIST;
    }
    if (!rc && r.ino)
        rc = STEADYFS_EEXIST;
    if (!rc && !r.nlen)
        rc = STEADYFS_EINVAL;
    if (!rc)
        rc = sfs_create(fs, &r, type, attr, target, tlen);
    return ns_end(fs, rc);
}

int steadyfs_mkdir_attr(steadyfs *fs, const char *path, const steadyfs_attr *attr)
{
    return make(fs, path, STEADYFS_TYPE_DIR, attr, NULL);
}

int steadyfs_mkdir(steadyfs *fs, const char *path)
{
    return make(fs, path, STEADYFS_TYPE_DIR, NULL, NULL);
}

int steadyfs_symlink(steadyfs *fs, const char *target, const char *path, const steadyfs_attr *attr)
{
    if (!target)
        return STEADYFS_EINVAL;
    return make(fs, path, STEADYFS_TYPE_SYMLINK, attr, target);
}

int steadyfs_setattr(steadyfs *fs, const char *path, const steadyfs_attr *attr)
{
    uint32_t ino, txn = 0, m;
    sfs_inode set;
    struct sfs_open *p;
    int rc = sfs_begin(fs, 1);
    if (!rc)
        sfs_budget_arm_path(fs, STEADYFS_CALL_SETATTR, path, NULL);
    if (rc)
        return rc;
    m = attr ? attr->mask : 0x80u;
    if (m & ~0x1Fu || attr->mode > 07777u)
        return sfs_end(fs, STEADYFS_EINVAL);
    rc = find_ino(fs, path, &ino);
    if (!rc)
        rc = room_for_ns(fs);
    if (rc)
        return sfs_end(fs, rc);
    set.mode = attr->mode;
    set.uid = attr->uid;
    set.gid = attr->gid;
    set.ctime = sfs_now(fs);
    set.mtime = m & STEADYFS_ATTR_MTIME ? attr->mtime : set.ctime;
    if (m & STEADYFS_ATTR_MTIME_NOW)
        m |= STEADYFS_ATTR_MTIME;
    /* the size read back is the committed one, a pending size entry's
     * included: this namespace commit of the inode sector drops the entry */
    rc = sfs_inode_edit(fs, ino, &set, (m & 0x0Fu) | SFS_SET_CTIME, OWNER_NS, &txn, TF_COMMIT,
                        NULL);
    if (rc)
        return ns_end(fs, ns_fail(fs, txn, rc));
    /* an open file: the handle's mtime follows (a later write sets it to
     * now again) */
    p = sfs_primary(fs, ino);
    if (p && (m & STEADYFS_ATTR_MTIME)) {
        p->mtime = set.mtime;
        p->tdirty = 0;
    }
    return ns_end(fs, 0);
}

/* Before an open inode becomes an orphan: the checkpoint lists at most
 * orphan_max (what room its sector has, up to 16).  If the list is full,
 * an orphan no handle holds (a cut left it) dies first, with the kill
 * this call's bound has for the inode it does not kill now; if every one
 * is held open, EBUSY. */
static int orphan_room(steadyfs *fs)
{
    int rc = 0;
    if (sfs_orphans(fs) >= fs->geo.orphan_max)
        rc = sfs_reap(fs, 0, 0);
    if (!rc && sfs_orphans(fs) >= fs->geo.orphan_max)
        rc = STEADYFS_EBUSY;
    return rc < 0 ? rc : 0;
}

static int remove_name(steadyfs *fs, const char *path, int want_dir)
{
    uint32_t txn = 0;
    struct sfs_where r;
    int open_now = 0;
    int rc = sfs_begin(fs, 4);
    if (!rc)
        sfs_budget_arm_path(fs, want_dir ? STEADYFS_CALL_RMDIR : STEADYFS_CALL_UNLINK, path, NULL);
    if (rc)
        return rc;
    /* collection, map merges and checkpoints first: then the bucket the
     * path lookup leaves in the buffer is still there for the edit */
    rc = sfs_gc_pace(fs, fs->rm, SFS_DEBT_STEP);
    if (!rc)
        rc = sfs_room(fs, 0, fs->rm);
    if (!rc)
        rc = resolve(fs, path, &r);
    if (!rc && !r.ino)
        rc = STEADYFS_ENOENT;
    if (!rc && r.ino == 1)
        rc = STEADYFS_EBUSY;
    if (!rc && want_dir && r.type != STEADYFS_TYPE_DIR)
        rc = STEADYFS_ENOTDIR;
    if (!rc && !want_dir && r.type == STEADYFS_TYPE_DIR)
        rc = STEADYFS_EISDIR;
    if (!rc && want_dir) {
        rc = sfs_dir_empty(fs, r.ino);
        rc = rc < 0 ? rc : rc ? 0 : STEADYFS_ENOTEMPTY;
    }
    open_now = !rc && busy(fs, r.ino);
    if (open_now)
        rc = orphan_room(fs);
    if (!rc)
        rc = sfs_dir_remove2(fs, r.parent, r.name, r.nlen, &txn, 0);
    /* the bucket sector is the whole transaction: a checkpoint commits it
     * with the inode's kill (no tombstone sector), or, while a handle has
     * the inode open, with its orphan entry (it dies at the last close) */
    if (!rc)
        rc = sfs_commit_kill(fs, OWNER_NS, txn, r.ino, 0, open_now ? SFS_KILL_ORPHAN : SFS_KILL_ALL, r.type);
    if (rc && txn)
        rc = ns_fail(fs, txn, rc);
    return ns_end(fs, rc);
}

int steadyfs_unlink(steadyfs *fs, const char *path) { return remove_name(fs, path, 0); }
int steadyfs_rmdir(steadyfs *fs, const char *path) { return remove_name(fs, path, 1); }

/* Is `dir` equal to or below `anc`?  Walks parents: bounded by depth. */
static int below(steadyfs *fs, uint32_t dir, uint32_t anc)
{
    sfs_inode in;
    uint32_t hops;
    int rc;
    for (hops = 0; hops < 256; hops++) {
        if (dir == anc)
            return 1;
        if (dir == 1)
            return 0;
        rc = sfs_inode_read(fs, dir, 1, &in, NULL);
        if (rc)
            return rc;
        dir = in.parent;
    }
    return STEADYFS_ECORRUPT;
}

int steadyfs_rename(steadyfs *fs, const char *from, const char *to)
{
    uint32_t txn = 0;
    struct sfs_where s, d;
    sfs_inode in;
    int open_now;
    int rc = sfs_begin(fs, 4);
    if (!rc)
        sfs_budget_arm_path(fs, STEADYFS_CALL_RENAME, from, to);
    if (rc)
        return rc;
    rc = resolve(fs, from, &s);
    if (!rc && !s.ino)
        rc = STEADYFS_ENOENT;
    if (!rc && s.ino == 1)
        rc = STEADYFS_EBUSY;
    if (!rc)
        rc = resolve(fs, to, &d);
    if (rc)
        return sfs_end(fs, rc);
    if (!d.nlen)
        return sfs_end(fs, STEADYFS_EBUSY);
    if (d.ino == s.ino)
        return sfs_end(fs, 0);
    if (d.ino) {
        if (s.type == STEADYFS_TYPE_DIR && d.type != STEADYFS_TYPE_DIR)
            return sfs_end(fs, STEADYFS_ENOTDIR);
        if (s.type != STEADYFS_TYPE_DIR && d.type == STEADYFS_TYPE_DIR)
            return sfs_end(fs, STEADYFS_EISDIR);
        if (d.type == STEADYFS_TYPE_DIR) {
            rc = sfs_dir_empty(fs, d.ino);
            if (rc <= 0)
                return sfs_end(fs, rc < 0 ? rc : STEADYFS_ENOTEMPTY);
        }
    }
    if (s.type == STEADYFS_TYPE_DIR) {
        if (busy(fs, s.ino))
            return sfs_end(fs, STEADYFS_EBUSY);
        rc = below(fs, d.parent, s.ino);
        if (rc)
            return sfs_end(fs, rc < 0 ? rc : STEADYFS_EINVAL);
    }
    open_now = d.ino && busy(fs, d.ino);
    rc = open_now ? orphan_room(fs) : 0;
    if (!rc)
        rc = room_for_ns(fs);
    if (!rc)
        rc = sfs_dir_remove2(fs, s.parent, s.name, s.nlen, &txn, 0);
    /* the last sector of the transaction carries COMMIT */
    if (!rc)
        rc = sfs_dir_insert2(fs, d.parent, d.name, d.nlen, s.ino, s.type, &txn,
                             (!d.ino && (s.type != STEADYFS_TYPE_DIR || d.parent == s.parent)) ? TF_COMMIT : 0);
    if (!rc && s.type == STEADYFS_TYPE_DIR && d.parent != s.parent) {
        in.parent = d.parent;
        rc = sfs_inode_edit(fs, s.ino, &in, SFS_SET_PARENT, OWNER_NS, &txn, d.ino ? 0 : TF_COMMIT, NULL);
    }
    if (!rc && d.ino)   /* the replaced inode dies, or is an orphan while it is open */
        rc = sfs_commit_kill(fs, OWNER_NS, txn, d.ino, 0, open_now ? SFS_KILL_ORPHAN : SFS_KILL_ALL, d.type);
    if (rc && txn)
        rc = ns_fail(fs, txn, rc);
    return ns_end(fs, rc);
}

int sfs_inode_stat(steadyfs *fs, uint32_t ino, steadyfs_stat *st)
{
    sfs_inode in;
    struct sfs_open *p;
    int rc = sfs_inode_read(fs, ino, 1, &in, NULL);
    if (rc)
        return rc;
    st->id = (uint64_t)ino | (uint64_t)in.gen << 32;
    st->type = in.type;
    st->size = in.size;
    st->mode = in.mode;
    st->uid = in.uid;
    st->gid = in.gid;
    st->mtime = in.mtime;
    st->ctime = in.ctime;
    st->nlink = 1;
    p = sfs_primary(fs, ino);
    if (p) {
        st->size = p->size;
        if (p->tdirty)
            st->mtime = st->ctime = p->mtime;
    }
    if (in.type == STEADYFS_TYPE_DIR) {
        int64_t changed;
        rc = sfs_dir_subdirs(fs, ino, &changed);
        if (rc < 0)
            return rc;
        st->nlink = 2u + (uint32_t)rc;
        /* entries that came or went since the inode's last change
         * (dir.c): the directory's mtime and ctime are theirs */
        if (changed > in.ctime)
            st->mtime = st->ctime = changed;
    }
    return 0;
}

static int stat_call(steadyfs *fs, const char *path, steadyfs_stat *st)
{
    uint32_t ino;
    int rc = sfs_begin(fs, 0);
    if (!rc)
        sfs_budget_arm_path(fs, STEADYFS_CALL_STAT, path, NULL);
    if (!rc)
        rc = find_ino(fs, path, &ino);
    return rc ? rc : sfs_inode_stat(fs, ino, st);
}

int steadyfs_stat_path(steadyfs *fs, const char *path, steadyfs_stat *st)
{
    int rc = stat_call(fs, path, st);
    sfs_budget_end(fs);
    return rc;
}

static int32_t readlink_call(steadyfs *fs, const char *path, char *buf, uint32_t cap)
{
    uint32_t ino;
    sfs_inode in;
    int rc = sfs_begin(fs, 0);
    if (!rc)
        sfs_budget_arm_path(fs, STEADYFS_CALL_STAT, path, NULL);
    if (!rc)
        rc = find_ino(fs, path, &ino);
    if (!rc)
        rc = sfs_inode_read(fs, ino, 1, &in, NULL);
    if (rc)
        return rc;
    if (in.type != STEADYFS_TYPE_SYMLINK)
        return STEADYFS_EINVAL;
    if (in.size > cap)
        return STEADYFS_ENAMETOOLONG;
    memcpy(buf, fs->buf + SFS_INODE_HDR, (size_t)in.size);
    return (int32_t)in.size;
}

int32_t steadyfs_readlink(steadyfs *fs, const char *path, char *buf, uint32_t cap)
{
    int32_t rc = readlink_call(fs, path, buf, cap);
    sfs_budget_end(fs);
    return rc;
}

static int opendir_call(steadyfs *fs, const char *path)
{
    struct sfs_open *o;
    struct sfs_where r;
    int rc = sfs_begin(fs, 0);
    if (!rc)
        sfs_budget_arm_path(fs, STEADYFS_CALL_OPENDIR, path, NULL);
    if (rc)
        return rc;
    rc = resolve(fs, path, &r);
    if (!rc && !r.ino)
        rc = STEADYFS_ENOENT;
    if (!rc && r.type != STEADYFS_TYPE_DIR)
        rc = STEADYFS_ENOTDIR;
    if (rc)
        return rc;
    o = sfs_slot(fs);
    if (!o)
        return STEADYFS_ENFILE;
    memset(o, 0, sizeof *o);
    o->ino = r.ino;
    o->kind = STEADYFS_TYPE_DIR;
    return (int)(o - fs->open);
}

int steadyfs_opendir(steadyfs *fs, const char *path)
{
    int rc = opendir_call(fs, path);
    sfs_budget_end(fs);
    return rc;
}

static int readdir_call(steadyfs *fs, int dd, steadyfs_dirent *ent)
{
    struct sfs_open *o;
    sfs_inode in;
    int rc = sfs_begin(fs, 0);
    if (!rc)
        sfs_budget_arm(fs, STEADYFS_CALL_READDIR, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, dd, STEADYFS_TYPE_DIR);
    if (!o)
        return STEADYFS_EBADF;
    rc = sfs_dir_next(fs, o->ino, o->pos, ent);
    if (rc <= 0)
        return rc;
    o->pos = ent->next;
    if (sfs_inode_read(fs, (uint32_t)ent->id, 1, &in, NULL) == 0)
        ent->id |= (uint64_t)in.gen << 32;
    return 1;
}

int steadyfs_readdir(steadyfs *fs, int dd, steadyfs_dirent *ent)
{
    int rc = readdir_call(fs, dd, ent);
    sfs_budget_end(fs);
    return rc;
}

uint64_t steadyfs_telldir(steadyfs *fs, int dd)
{
    struct sfs_open *o = fs->mounted ? sfs_handle(fs, dd, STEADYFS_TYPE_DIR) : NULL;
    return o ? o->pos : 0;
}

int steadyfs_seekdir(steadyfs *fs, int dd, uint64_t cookie)
{
    struct sfs_open *o;
    int rc = sfs_begin(fs, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, dd, STEADYFS_TYPE_DIR);
    if (!o)
        return STEADYFS_EBADF;
    o->pos = cookie;
    return 0;
}

int steadyfs_closedir(steadyfs *fs, int dd)
{
    struct sfs_open *o;
    uint32_t ino;
    int rc = sfs_begin(fs, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, dd, STEADYFS_TYPE_DIR);
    if (!o)
        return STEADYFS_EBADF;
    ino = o->ino;
    o->ino = 0;
    o->kind = 0;
    /* the last handle of a removed directory: it dies in a later light
     * call (sfs_end), closedir itself never programs */
    if (!busy(fs, ino))
        sfs_orphan_release(fs, ino);
    return 0;
}
