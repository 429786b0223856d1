/* Tlock and Tgetlock: POSIX byte-range locks kept by the server (Linux
 * v9fs forwards every fcntl/lockf lock; docs/P9.md "Locks").  The table is
 * the caller's (p9srv_config.locks), shared by the sessions of a group.
 * An owner's locks never overlap each other: setting a range first cuts
 * the owner's old locks out of it (splitting one that spans it), then adds
 * the new one, so unlocking is the same operation without the add.  The
 * entries a change needs are counted before anything changes: a request
 * the table cannot hold changes nothing and gets ENOLCK (Rlock ERROR). */
#include "p9/p9srv_internal.h"

#define LOCK_TO_END UINT64_MAX

static uint32_t client_hash(struct p9_str id)
{
    uint32_t h = 2166136261u, i;   /* FNV-1a */
    for (i = 0; i < id.len; i++)
        h = (h ^ id.ptr[i]) * 16777619u;
    return h;
}

static uint64_t lock_end(uint64_t start, uint64_t length)
{
    if (!length || length - 1 > LOCK_TO_END - start)
        return LOCK_TO_END;
    return start + length - 1;
}

struct owner {
    const void *session;
    uint32_t proc_id, client;
};

static int same_owner(const struct p9srv_lock *e, const struct owner *o)
{
    return e->session == o->session && e->proc_id == o->proc_id && e->client == o->client;
}

/* The first lock of another owner that conflicts with `type` on the range,
 * or NULL. */
static struct p9srv_lock *conflict(const p9srv_locks *t, uint64_t file, const struct owner *o,
                                   uint8_t type, uint64_t start, uint64_t end)
{
    uint32_t i;
    for (i = 0; i < t->n; i++) {
        struct p9srv_lock *e = &t->e[i];
        if (e->session && e->file == file && !same_owner(e, o) && e->start <= end &&
            start <= e->end && (e->type == P9_LOCK_TYPE_WRLCK || type == P9_LOCK_TYPE_WRLCK))
            return e;
    }
    return NULL;
}

static struct p9srv_lock *free_entry(const p9srv_locks *t)
{
    uint32_t i;
    for (i = 0; i < t->n; i++)
        if (!t->e[i].session)
            return &t->e[i];
    return NULL;
}

/* The owner's locks on the file lose start..end; then, unless type is
 * UNLCK, it holds start..end with `type`.  0, or -1 when the table lacks
 * the entries (nothing changed: Rlock ERROR, ENOLCK to the program). */
static int set_range(p9srv_locks *t, uint64_t file, const struct owner *o, uint8_t type,
                     uint64_t start, uint64_t end)
{
    uint32_t i, need = type != P9_LOCK_TYPE_UNLCK, have = 0;
    for (i = 0; i < t->n; i++) {
        const struct p9srv_lock *e = &t->e[i];
        have += !e->session;
        if (e->session && e->file == file && same_owner(e, o) && e->start < start && e->end > end)
            need++;   /* cut in two */
    }
    if (have < need)
        return -1;
    for (i = 0; i < t->n; i++) {
        struct p9srv_lock *e = &t->e[i];
        if (!e->session || e->file != file || !same_owner(e, o) || e->start > end || start > e->end)
            continue;
        if (e->start < start && e->end > end) {
            struct p9srv_lock *tail = free_entry(t);
            *tail = *e;
            tail->start = end + 1;
            e->end = start - 1;
        } else if (e->start < start) {
            e->end = start - 1;
        } else if (e->end > end) {
            e->start = end + 1;
        } else {
            e->session = NULL;   /* wholly inside: gone */
        }
    }
    if (type != P9_LOCK_TYPE_UNLCK) {
        struct p9srv_lock *n = free_entry(t);
        n->file = file;
        n->start = start;
        n->end = end;
        n->session = o->session;
        n->proc_id = o->proc_id;
        n->client = o->client;
        n->type = type;
    }
    return 0;
}

/* The open file a lock request names: locks need an open fid (as POSIX
 * needs an open descriptor). */
static int lock_fid(p9srv *s, uint32_t fid, uint8_t type, uint64_t *file)
{
    struct p9srv_fid *f;
    int rc;
    if (!s->cfg.locks)
        return -LX_EOPNOTSUPP;
    rc = srv_node(s, fid, &f);
    if (rc)
        return rc;
    if (f->h < 0 || f->type != STEADYFS_TYPE_FILE)
        return -LX_EBADF;
    if (type > P9_LOCK_TYPE_UNLCK)
        return STEADYFS_EINVAL;
    *file = srv_fid_id(f);
    return 0;
}

int srv_h_lock(p9srv *s)
{
    struct owner o;
    uint64_t file, end;
    uint8_t type = s->req.u.tlock.type;
    int rc = lock_fid(s, s->req.u.tlock.fid, type, &file);
    if (rc)
        return rc;
    o.session = s;
    o.proc_id = s->req.u.tlock.proc_id;
    o.client = client_hash(s->req.u.tlock.client_id);
    end = lock_end(s->req.u.tlock.start, s->req.u.tlock.length);
    s->rep.type = P9_RLOCK;
    /* a conflict: BLOCKED, never queued -- a waiting client (flags BLOCK)
     * asks again after a pause, as Linux v9fs does */
    if (type != P9_LOCK_TYPE_UNLCK &&
        conflict(s->cfg.locks, file, &o, type, s->req.u.tlock.start, end))
        s->rep.u.rlock.status = P9_LOCK_BLOCKED;
    else if (set_range(s->cfg.locks, file, &o, type, s->req.u.tlock.start, end))
        s->rep.u.rlock.status = P9_LOCK_ERROR;
    else
        s->rep.u.rlock.status = P9_LOCK_SUCCESS;
    return 0;
}

int srv_h_getlock(p9srv *s)
{
    struct owner o;
    struct p9srv_lock *c;
    uint64_t file, end;
    int rc = lock_fid(s, s->req.u.getlock.fid, s->req.u.getlock.type, &file);
    if (rc)
        return rc;
    o.session = s;
    o.proc_id = s->req.u.getlock.proc_id;
    o.client = client_hash(s->req.u.getlock.client_id);
    end = lock_end(s->req.u.getlock.start, s->req.u.getlock.length);
    s->rep.type = P9_RGETLOCK;
    s->rep.u.getlock = s->req.u.getlock;
    c = s->req.u.getlock.type == P9_LOCK_TYPE_UNLCK
            ? NULL
            : conflict(s->cfg.locks, file, &o, s->req.u.getlock.type, s->req.u.getlock.start, end);
    if (!c) {
        s->rep.u.getlock.type = P9_LOCK_TYPE_UNLCK;
        return 0;
    }
    /* the lock in the way; its owner's client_id is not kept (Linux
     * reads type, range and proc_id) */
    s->rep.u.getlock.type = c->type;
    s->rep.u.getlock.start = c->start;
    s->rep.u.getlock.length = c->end == LOCK_TO_END ? 0 : c->end - c->start + 1;
    s->rep.u.getlock.proc_id = c->proc_id;
    s->rep.u.getlock.client_id = p9_cstr("");
    return 0;
}

void srv_locks_drop(p9srv *s)
{
    uint32_t i;
    if (!s->cfg.locks)
        return;
    for (i = 0; i < s->cfg.locks->n; i++)
        if (s->cfg.locks->e[i].session == s)
            s->cfg.locks->e[i].session = NULL;
}
