/* The record-lock table of p9srv_locks (docs/P9.md "Locks"): linked only
 * into servers whose host calls p9srv_locks_init (steady serve), not into
 * the firmware's.  An owner's locks never overlap each other: setting a
 * range first cuts the owner's old locks out of it (splitting one that
 * spans it), then adds the new one, so unlocking is the same operation
 * without the add.  The entries a change needs are counted before anything
 * changes: a request the table cannot hold changes nothing (Rlock ERROR,
 * which the client reports as ENOLCK). */
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

/* One request (Tlock or Tgetlock, the fid already checked and its file
 * id in `file`) into rep; or, with req NULL, the session's locks dropped. */
static void lock_request(p9srv_locks *t, const void *session, uint64_t file,
                         const struct p9_msg *req, struct p9_msg *rep)
{
    struct owner o;
    uint64_t start, end;
    uint32_t i;
    uint8_t type;
    if (!req) {
        for (i = 0; i < t->n; i++)
            if (t->e[i].session == session)
                t->e[i].session = NULL;
        return;
    }
    o.session = session;
    if (req->type == P9_TLOCK) {
        type = req->u.tlock.type;
        start = req->u.tlock.start;
        end = lock_end(start, req->u.tlock.length);
        o.proc_id = req->u.tlock.proc_id;
        o.client = client_hash(req->u.tlock.client_id);
        rep->type = P9_RLOCK;
        /* a conflict: BLOCKED, never queued -- a waiting client (flags
         * BLOCK) asks again after a pause, as Linux v9fs does */
        if (type != P9_LOCK_TYPE_UNLCK && conflict(t, file, &o, type, start, end))
            rep->u.rlock.status = P9_LOCK_BLOCKED;
        else if (set_range(t, file, &o, type, start, end))
            rep->u.rlock.status = P9_LOCK_ERROR;
        else
            rep->u.rlock.status = P9_LOCK_SUCCESS;
        return;
    }
    {
        struct p9srv_lock *c;
        start = req->u.getlock.start;
        end = lock_end(start, req->u.getlock.length);
        o.proc_id = req->u.getlock.proc_id;
        o.client = client_hash(req->u.getlock.client_id);
        rep->type = P9_RGETLOCK;
        rep->u.getlock = req->u.getlock;
        c = req->u.getlock.type == P9_LOCK_TYPE_UNLCK
                ? NULL
                : conflict(t, file, &o, req->u.getlock.type, start, end);
        if (!c) {
            rep->u.getlock.type = P9_LOCK_TYPE_UNLCK;
            return;
        }
        /* the lock in the way; its owner's client_id is not kept (Linux
         * reads type, range and proc_id) */
        rep->u.getlock.type = c->type;
        rep->u.getlock.start = c->start;
        rep->u.getlock.length = c->end == LOCK_TO_END ? 0 : c->end - c->start + 1;
        rep->u.getlock.proc_id = c->proc_id;
        rep->u.getlock.client_id = p9_cstr("");
    }
}

void p9srv_locks_init(p9srv_locks *t, struct p9srv_lock *entries, uint32_t n)
{
    uint32_t i;
    t->e = entries;
    t->n = n;
    t->request = lock_request;
    for (i = 0; i < n; i++)
        entries[i].session = NULL;
}
