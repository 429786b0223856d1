/* Tlock and Tgetlock: POSIX record locks (Linux v9fs forwards every
 * fcntl/lockf lock; docs/P9.md "Locks").  With a table (p9srv_config.locks,
 * p9srv_locktab.c) the server keeps them for every session of its group.
 * Without one, a session alone needs none: Linux v9fs checks and records
 * each lock in its own kernel before it asks the server, so the one
 * client's kernel already keeps them apart (the firmware: one link); a
 * session with peers gets EOPNOTSUPP. */
#include "p9/p9srv_internal.h"

/* The open file a lock request names: locks need an open fid (as POSIX
 * needs an open descriptor). */
static int lock_fid(p9srv *s, uint32_t fid, uint8_t type, uint64_t *file)
{
    struct p9srv_fid *f;
    int rc = srv_node(s, fid, &f);
    if (rc)
        return rc;
    if (f->h < 0 || f->type != STEADYFS_TYPE_FILE)
        return -LX_EBADF;
    if (type > P9_LOCK_TYPE_UNLCK)
        return STEADYFS_EINVAL;
    *file = srv_fid_id(f);
    return 0;
}

static int lock_common(p9srv *s, uint32_t fid, uint8_t type)
{
    uint64_t file;
    int rc;
    if (!s->cfg.locks && s->peer)
        return -LX_EOPNOTSUPP;
    rc = lock_fid(s, fid, type, &file);
    if (rc)
        return rc;
    if (s->cfg.locks) {
        s->cfg.locks->request(s->cfg.locks, s, file, &s->req, &s->rep);
        return 0;
    }
    /* alone, no table: the client's kernel keeps them.  Rlock's status is
     * already P9_LOCK_SUCCESS (0: the reply starts zeroed); Rgetlock
     * answers the range asked about, unlocked. */
    if (s->req.type == P9_TGETLOCK) {
        s->rep.u.getlock = s->req.u.getlock;
        s->rep.u.getlock.type = P9_LOCK_TYPE_UNLCK;
    }
    return 0;
}

/* (not NODE in the dispatch: EOPNOTSUPP above comes before a bad fid) */
int srv_h_lock(p9srv *s, struct p9srv_fid *unused)
{
    (void)unused;
    return lock_common(s, s->req.u.tlock.fid, s->req.u.tlock.type);
}

int srv_h_getlock(p9srv *s, struct p9srv_fid *unused)
{
    (void)unused;
    return lock_common(s, s->req.u.getlock.fid, s->req.u.getlock.type);
}

void srv_locks_drop(p9srv *s)
{
    if (s->cfg.locks)
        s->cfg.locks->request(s->cfg.locks, s, 0, NULL, NULL);
}
