/* The map (logical page -> sector) and transactions.
 *
 * Two levels on media: L1 map sectors hold E sector addresses each, L2 map
 * sectors hold E addresses of L1 sectors, and the L2 addresses (roots) live
 * in RAM and in every checkpoint.  Changes are not written through: they
 * wait in the pending table (K entries, in RAM and in every checkpoint) and
 * are merged into map sectors only when the table needs room, the map
 * sector that absorbs the most changes first.  Uncommitted changes belong
 * to a transaction (owner, txn) and are never merged.  Every rule here is
 * used twice: at run time and, identically, when mount replays the log. */
#include "fs/fs_internal.h"

#define MAX_L1_PER_INODE 64u

static uint32_t ino_of(const steadyfs *fs, uint32_t lpn) { return lpn >> fs->geo.fbits; }
static uint32_t pg_of(const steadyfs *fs, uint32_t lpn) { return lpn & ((1u << fs->geo.fbits) - 1u); }

struct sfs_pend *sfs_pend_find(steadyfs *fs, uint8_t type, uint32_t key, int unc)
{
    uint32_t i;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type == type && p->key == key && !(p->flags & PF_UNC) == !unc)
            return p;
    }
    return NULL;
}

static struct sfs_pend *find_txn(steadyfs *fs, uint32_t lpn, uint16_t owner, uint32_t txn)
{
    uint32_t i;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type == PT_L1 && (p->flags & PF_UNC) && p->key == lpn && p->owner == owner &&
            p->txn == txn)
            return p;
    }
    return NULL;
}

void sfs_pend_del(steadyfs *fs, struct sfs_pend *p)
{
    if (p->flags & PF_UNC)
        fs->uncommitted--;
    *p = fs->pend[--fs->npend];
}

static struct sfs_pend *pend_add(steadyfs *fs, uint8_t type, uint32_t key, uint32_t ppn)
{
    struct sfs_pend *p;
    if (fs->npend >= fs->cfg.pending_max)
        return NULL;
    p = &fs->pend[fs->npend++];
    memset(p, 0, sizeof *p);
    p->type = type;
    p->key = key;
    p->ppn = ppn;
    p->txn = (uint32_t)fs->log.seq;   /* its age, until a transaction owns it */
    return p;
}

static void drop_size(steadyfs *fs, uint32_t ino)
{
    struct sfs_pend *p = sfs_pend_find(fs, PT_SIZE, ino, 0);
    if (p)
        sfs_pend_del(fs, p);
}

int sfs_kill_pending(steadyfs *fs, uint32_t ino) { return sfs_pend_find(fs, PT_KILL, ino, 0) != NULL; }

/* First page a kill of ino covers (pages >= it are unmapped), or ~0. */
static uint32_t kill_from(steadyfs *fs, uint32_t ino)
{
    struct sfs_pend *k = sfs_pend_find(fs, PT_KILL, ino, 0);
    if (!k)
        return SFS_NONE;
    return (k->flags & PF_KILLALL) ? 0 : k->ppn;
}

int sfs_kill_covers_l1(steadyfs *fs, uint32_t m)
{
    uint32_t lpn0 = m * fs->geo.e1;
    return pg_of(fs, lpn0) >= kill_from(fs, ino_of(fs, lpn0));
}

int sfs_l1_locate(steadyfs *fs, uint32_t m, uint32_t *ppn)
{
    struct sfs_pend *p = sfs_pend_find(fs, PT_L2, m, 0);
    uint32_t r;
    if (p) {
        *ppn = p->ppn;
        return 0;
    }
    r = fs->root[m / fs->geo.e1];
    if (r == SFS_NONE) {
        *ppn = SFS_NONE;
        return 0;
    }
    return sfs_xc_word(fs, 1, r, m, ppn);
}

int sfs_lookup(steadyfs *fs, uint32_t lpn, int working, uint32_t *ppn)
{
    struct sfs_pend *p;
    uint32_t l1;
    int rc;
    if (working && (p = sfs_pend_find(fs, PT_L1, lpn, 1)) != NULL) {
        *ppn = p->ppn;
        return 0;
    }
    if ((p = sfs_pend_find(fs, PT_L1, lpn, 0)) != NULL) {
        *ppn = p->ppn;
        return 0;
    }
    if (pg_of(fs, lpn) >= kill_from(fs, ino_of(fs, lpn))) {
        *ppn = SFS_NONE;
        return 0;
    }
    rc = sfs_l1_locate(fs, lpn / fs->geo.e1, &l1);
    if (rc)
        return rc;
    if (l1 == SFS_NONE) {
        *ppn = SFS_NONE;
        return 0;
    }
    return sfs_xc_word(fs, 0, l1, lpn, ppn);
}

int sfs_apply_prog(steadyfs *fs, uint32_t lpn, uint32_t ppn, uint16_t owner, uint32_t txn,
                   uint32_t old_hint)
{
    struct sfs_pend *p = find_txn(fs, lpn, owner, txn);
    if (p) {
        sfs_count_dec(fs, p->ppn);   /* superseded inside its own transaction */
        p->ppn = ppn;
    } else {
        p = pend_add(fs, PT_L1, lpn, ppn);
        if (!p)
            return STEADYFS_ENOSPC;
        p->flags = old_hint == SFS_NONE ? PF_UNC | PF_NEW : PF_UNC;
        p->owner = owner;
        p->txn = txn;
        fs->uncommitted++;
    }
    sfs_count_inc(fs, ppn);
    return 0;
}

int sfs_apply_commit(steadyfs *fs, uint16_t owner, uint32_t txn)
{
    uint32_t i, j, old;
    int rc;
restart:
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i], *c;
        if (p->type != PT_L1 || !(p->flags & PF_UNC) || p->owner != owner || p->txn != txn)
            continue;
        old = SFS_NONE;
        if (!(p->flags & PF_NEW)) {
            rc = sfs_lookup(fs, p->key, 0, &old);
            if (rc)
                return rc;
        }
        sfs_count_dec(fs, old);
        /* another transaction's change of the same page no longer
         * replaces nothing: it looks its old location up at its commit */
        for (j = 0; j < fs->npend; j++) {
            struct sfs_pend *q = &fs->pend[j];
            if (q != p && q->type == PT_L1 && (q->flags & PF_UNC) && q->key == p->key)
                q->flags &= (uint8_t)~PF_NEW;
        }
        if (p->key < fs->cfg.max_inodes) {
            uint32_t ino = p->key;
            struct sfs_open *o = sfs_primary(fs, ino);
            if (o && o->ino_ppn == old)
                o->ino_ppn = p->ppn;
            fs->ibm[ino >> 3] |= (uint8_t)(1u << (ino & 7u));
        }
        c = sfs_pend_find(fs, PT_L1, p->key, 0);   /* p is still uncommitted */
        p->flags &= (uint8_t)~(PF_UNC | PF_NEW);
        p->owner = 0;
        p->txn = (uint32_t)fs->log.seq;   /* committed entries: their age (make_room) */
        fs->uncommitted--;
        if (c) {
            sfs_pend_del(fs, c);
            goto restart;
        }
    }
    return 0;
}

/* Read the L1 addresses of inode ino's pages into l1[] (L2 changes
 * pending included).  Returns the count. */
static int l1_of_inode(steadyfs *fs, uint32_t ino, uint32_t *l1, uint32_t *m0)
{
    uint32_t n = (1u << fs->geo.fbits) / fs->geo.e1, i, r;
    int rc;
    *m0 = (ino << fs->geo.fbits) / fs->geo.e1;
    r = fs->root[*m0 / fs->geo.e1];
    if (r == SFS_NONE) {
        for (i = 0; i < n; i++)
            l1[i] = SFS_NONE;
    } else {
        /* one read of the inode's run of L2 entries */
        rc = sfs_rd_words(fs, r, *m0 % fs->geo.e1, n, l1);
        if (rc)
            return rc;
    }
    for (i = 0; i < n; i++) {
        struct sfs_pend *p = sfs_pend_find(fs, PT_L2, *m0 + i, 0);
        if (p)
            l1[i] = p->ppn;
    }
    return (int)n;
}

/* The whole-inode kill whose counts are still being settled, or NULL. */
static struct sfs_pend *unsettled_kill(steadyfs *fs)
{
    uint32_t i;
    for (i = 0; i < fs->npend; i++)
        if (fs->pend[i].type == PT_KILL && (fs->pend[i].flags & PF_UNSETTLED))
            return &fs->pend[i];
    return NULL;
}

/* Uncount the sectors L1 sector l1 maps for pages [lo, hi) of inode ino,
 * and, when the kill covers its whole range, the L1 sector itself. */
static int settle_l1(steadyfs *fs, uint32_t ino, uint32_t i, uint32_t l1, uint32_t lo, uint32_t hi)
{
    uint32_t j, pg0 = i * fs->geo.e1;
    sfs_tag t;
    int rc = sfs_rd_sector(fs, l1, fs->buf, &t);
    if (rc < 0)
        return rc;
    for (j = 0; j < fs->geo.e1; j++) {
        uint32_t pg = pg0 + j, v = sfs_get32(fs->buf + 4 * j);
        if (pg < lo || pg >= hi || v == SFS_NONE)
            continue;
        if (sfs_pend_find(fs, PT_L1, sfs_lpn(fs, ino, pg), 0))
            continue;   /* superseded; counted through the entry */
        sfs_count_dec(fs, v);
    }
    if (pg0 >= lo)
        sfs_count_dec(fs, l1);   /* the whole map sector dies */
    return 0;
}

int sfs_settle(steadyfs *fs, uint32_t max_l1, uint32_t min_age)
{
    uint32_t l1[MAX_L1_PER_INODE], m0, i;
    struct sfs_pend *k = unsettled_kill(fs);
    int n, rc, done = 0;
    if (!k || (uint32_t)fs->log.seq - k->txn < min_age)
        return 0;
    n = l1_of_inode(fs, k->key, l1, &m0);   /* one small read */
    if (n < 0)
        return n;
    for (i = k->owner; i < (uint32_t)n; i++) {
        if (l1[i] == SFS_NONE)
            continue;
        if ((uint32_t)done == max_l1)
            break;
        rc = settle_l1(fs, k->key, i, l1[i], 0, SFS_NONE);
        if (rc)
            return rc;
        done++;
    }
    /* nothing above adds or deletes a pending entry: k is still valid */
    k->owner = (uint16_t)i;
    if (i >= (uint32_t)n) {
        k->flags &= (uint8_t)~PF_UNSETTLED;
        /* the settled state must be durable before the kill can be
         * merged: replaying that merge over a checkpoint that still holds
         * the kill unsettled would lose the counts settlement took off */
        fs->log.need_ckpt = 1;
    }
    return 1;
}

int sfs_live_room(steadyfs *fs, uint32_t need)
{
    int rc;
    while (fs->live + need > fs->live_max) {
        /* a settling kill still counts its sectors: settle it all before
         * saying there is no room (a delete must give writes back).  Not
         * reached while SFS_SETTLE_ROOM holds; kept as the safety net, and
         * the budget check of test builds would catch it being used */
        rc = sfs_settle(fs, MAX_L1_PER_INODE, 0);
        if (rc <= 0)
            return rc < 0 ? rc : STEADYFS_ENOSPC;
    }
    return 0;
}

/* A committed L1 change of a data page i >= 1 of inode ino, or NULL. */
static struct sfs_pend *committed_change_of(steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->npend; i++)
        if (fs->pend[i].type == PT_L1 && !(fs->pend[i].flags & PF_UNC) &&
            fs->pend[i].key >= (1u << fs->geo.fbits) && ino_of(fs, fs->pend[i].key) == ino)
            return &fs->pend[i];
    return NULL;
}

int sfs_kill_lazy(steadyfs *fs, uint32_t ino)
{
    return kill_from(fs, ino) == SFS_NONE && !unsettled_kill(fs) &&
           fs->live + SFS_SETTLE_ROOM(fs) <= fs->live_max && !committed_change_of(fs, ino);
}

int sfs_apply_kill(steadyfs *fs, uint32_t ino, uint32_t from, int all)
{
    uint32_t l1[MAX_L1_PER_INODE], m0, i, j, pg0, s = all ? 0 : from;
    uint32_t oldk = kill_from(fs, ino);
    struct sfs_pend *k;
    int n, rc, settling = 0;
    if (ino == 0 || ino >= fs->cfg.max_inodes)
        return STEADYFS_ECORRUPT;   /* a damaged log's kill of no inode */
    if (s < oldk) {
        /* A whole inode dies: its counts are settled later, one L1 sector
         * per call (sfs_settle), instead of reading up to 64 L1 sectors
         * here (DESIGN.md §5).  Only one kill settles at a time, and only
         * one that no committed change of the inode waits beside (its L1
         * word would be uncounted twice); otherwise, as for a shrink, now. */
        settling = all && sfs_kill_lazy(fs, ino);
        n = settling ? 0 : l1_of_inode(fs, ino, l1, &m0);
        if (n < 0)
            return n;
        for (i = 0; i < (uint32_t)n; i++) {
            pg0 = i * fs->geo.e1;
            if (l1[i] == SFS_NONE || pg0 + fs->geo.e1 <= s || pg0 >= oldk)
                continue;
            rc = settle_l1(fs, ino, i, l1[i], s, oldk);
            if (rc)
                return rc;
        }
        for (i = 0; i < fs->npend;) {
            struct sfs_pend *p = &fs->pend[i];
            if (p->type == PT_L1 && ino_of(fs, p->key) == ino && pg_of(fs, p->key) >= s) {
                sfs_count_dec(fs, p->ppn);
                sfs_pend_del(fs, p);
                continue;
            }
            i++;
        }
    }
    for (j = 0; j < (all ? 2u : s == 0 ? 1u : 0u); j++) {
        /* the first data page (and, when the inode dies, its sector) live in
         * the dense table: unmap them by a committed change to "none" */
        uint32_t d = j ? ino : fs->cfg.max_inodes + ino, cur;
        struct sfs_pend *p;
        rc = sfs_lookup(fs, d, 0, &cur);
        if (rc)
            return rc;
        sfs_count_dec(fs, cur);
        for (i = 0; i < fs->npend;) {
            p = &fs->pend[i];
            if (p->type == PT_L1 && p->key == d) {
                if (p->flags & PF_UNC)
                    sfs_count_dec(fs, p->ppn);
                sfs_pend_del(fs, p);
                continue;
            }
            i++;
        }
        /* always: a "none" change deleted above may have been what hid an
         * older map entry */
        if (!pend_add(fs, PT_L1, d, SFS_NONE))
            return STEADYFS_ENOSPC;
    }
    k = sfs_pend_find(fs, PT_KILL, ino, 0);
    if (!k) {
        k = pend_add(fs, PT_KILL, ino, s);
        if (!k)
            return STEADYFS_ENOSPC;
    }
    if (s < k->ppn)
        k->ppn = s;
    if (settling) {
        k->flags |= PF_UNSETTLED;
        k->owner = 0;   /* the next L1 index of the inode to settle */
    }
    if (all) {
        drop_size(fs, ino);
        k->flags |= PF_KILLALL;
        k->ppn = 0;
        fs->ibm[ino >> 3] &= (uint8_t)~(1u << (ino & 7u));
    }
    return 0;
}

/* Effect of a map sector written at ppn (run time and replay alike). */
int sfs_apply_map(steadyfs *fs, const sfs_tag *t, uint32_t ppn)
{
    uint32_t i, old;
    int rc;
    if (t->flags & TF_EMPTY)
        ppn = SFS_NONE;   /* maps nothing: the parent entry becomes none */
    if (t->kind == TK_MAP1) {
        struct sfs_pend *p;
        uint32_t freed = 0;
        if (t->key >= fs->geo.n_l1)
            return STEADYFS_ECORRUPT;
        sfs_xc_drop_map(fs, 0, t->key);   /* map words on media change only here */
        rc = sfs_l1_locate(fs, t->key, &old);
        if (rc)
            return rc;
        /* all or nothing: no change at all if its L2 change has no room */
        for (i = 0; i < fs->npend; i++) {
            p = &fs->pend[i];
            freed += p->type == PT_L1 && !(p->flags & PF_UNC) && p->key / fs->geo.e1 == t->key;
        }
        if (!sfs_pend_find(fs, PT_L2, t->key, 0) && fs->npend - freed >= fs->cfg.pending_max)
            return STEADYFS_ENOSPC;
        for (i = 0; i < fs->npend;) {
            p = &fs->pend[i];
            if (p->type == PT_L1 && !(p->flags & PF_UNC) && p->key / fs->geo.e1 == t->key) {
                sfs_pend_del(fs, p);
                continue;
            }
            i++;
        }
        if (!sfs_kill_covers_l1(fs, t->key))
            sfs_count_dec(fs, old);
        sfs_count_inc(fs, ppn);
        p = sfs_pend_find(fs, PT_L2, t->key, 0);
        if (!p)
            p = pend_add(fs, PT_L2, t->key, ppn);
        if (!p)
            return STEADYFS_ENOSPC;
        p->ppn = ppn;
        p->txn = (uint32_t)fs->log.seq;   /* its age: since its L1 sector last moved */
        return 0;
    }
    if (t->kind == TK_MAP2) {
        if (t->key >= fs->geo.n_l2)
            return STEADYFS_ECORRUPT;
        sfs_xc_drop_map(fs, 1, t->key);
        for (i = 0; i < fs->npend;) {
            struct sfs_pend *p = &fs->pend[i];
            if (p->type == PT_L2 && p->key / fs->geo.e1 == t->key) {
                sfs_pend_del(fs, p);
                continue;
            }
            i++;
        }
        if (t->flags & TF_KILLMERGE) {
            struct sfs_pend *k = sfs_pend_find(fs, PT_KILL, t->aux, 0);
            if (k)
                sfs_pend_del(fs, k);
        }
        sfs_count_dec(fs, fs->root[t->key]);
        sfs_count_inc(fs, ppn);
        fs->root[t->key] = ppn;
        return 0;
    }
    return 0;
}

int sfs_apply_size(steadyfs *fs, uint32_t ino, uint32_t size)
{
    struct sfs_pend *p;
    if (ino == 0 || ino >= fs->cfg.max_inodes)
        return STEADYFS_ECORRUPT;   /* a damaged log's size of no inode */
    p = sfs_pend_find(fs, PT_SIZE, ino, 0);
    if (!p)
        p = pend_add(fs, PT_SIZE, ino, size);
    if (!p)
        return STEADYFS_ENOSPC;
    p->ppn = size;
    /* a size rewritten by every record is the newest change, not the
     * oldest: aged from its first record, it was merged into its inode
     * sector every ~14 records of a log (an inode program and an L1 change
     * each time, 0.07 programs per 4 KiB record) for a value the next
     * record replaces anyway */
    p->txn = (uint32_t)fs->log.seq;
    return 0;
}

int sfs_apply_data(steadyfs *fs, const sfs_tag *t, uint32_t ppn, uint32_t old_hint)
{
    int rc = sfs_apply_prog(fs, t->key, ppn, t->owner, t->txn, old_hint);
    if (rc || !(t->flags & TF_COMMIT))
        return rc;
    rc = sfs_apply_commit(fs, t->owner, t->txn);
    /* an inode sector its file (or a size merge) commits carries the
     * newest size; a collection copy carries the size it was written with */
    if (!rc && t->key < fs->cfg.max_inodes && t->owner != OWNER_GC)
        drop_size(fs, t->key);
    if (!rc && (t->flags & TF_SIZE))
        rc = sfs_apply_size(fs, t->owner, t->aux);
    return rc;
}

/* Write a map sector from fs->buf and apply it. */
static int map_prog(steadyfs *fs, uint8_t kind, uint32_t key, uint8_t flags, uint32_t aux)
{
    sfs_tag t;
    uint32_t ppn;
    int rc;
    uint32_t i;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.key = key;
    t.flags = flags;
    t.aux = aux;
    /* a map sector that maps nothing is not kept: its parent entry becomes
     * "none" (otherwise every inode range ever used would keep its map
     * sectors live for good) */
    for (i = 0; i < fs->geo.e1 && sfs_get32(fs->buf + 4 * i) == SFS_NONE; i++)
        ;
    if (i == fs->geo.e1)
        t.flags |= TF_EMPTY;
    rc = sfs_log_prog(fs, fs->buf, &t, &ppn);
    if (rc)
        return rc;
    return sfs_apply_map(fs, &t, ppn);
}

static int l1_build(steadyfs *fs, uint32_t m, uint32_t kill_pg)
{
    uint32_t old, i;
    sfs_tag t;
    int rc = sfs_l1_locate(fs, m, &old);
    if (rc)
        return rc;
    fs->cache.buf_ppn = SFS_NONE;
    if (old == SFS_NONE)
        memset(fs->buf, 0xFF, fs->geo.payload);
    else if ((rc = sfs_rd_sector(fs, old, fs->buf, &t)) < 0)
        return rc;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type == PT_L1 && !(p->flags & PF_UNC) && p->key / fs->geo.e1 == m)
            sfs_put32(fs->buf + 4 * (p->key % fs->geo.e1), p->ppn);
    }
    if (kill_pg != SFS_NONE)
        for (i = 0; i < fs->geo.e1; i++)
            if (pg_of(fs, m * fs->geo.e1 + i) >= kill_pg)
                sfs_put32(fs->buf + 4 * i, SFS_NONE);
    return 0;
}

static int merge_l1_k(steadyfs *fs, uint32_t m, uint32_t kill_pg)
{
    int rc;
    do {
        rc = sfs_log_reserve(fs);
        if (!rc)
            rc = l1_build(fs, m, kill_pg);
        if (!rc)
            rc = map_prog(fs, TK_MAP1, m, 0, 0);
    } while (rc == SFS_RETRY);
    return rc;
}

int sfs_merge_l1(steadyfs *fs, uint32_t m) { return merge_l1_k(fs, m, SFS_NONE); }

static int merge_l2_k(steadyfs *fs, uint32_t l2, uint32_t kill_ino)
{
    uint32_t i, m0 = 0, n = 0, first = 0, from;
    sfs_tag t;
    int rc;
    do {
        rc = sfs_log_reserve(fs);
        if (rc)
            break;
        /* after the reserve: a collection inside it may have merged the
         * kill already (then this is a plain merge) */
        from = kill_ino == SFS_NONE ? SFS_NONE : kill_from(fs, kill_ino);
        if (from == SFS_NONE)
            kill_ino = SFS_NONE;
        else {
            m0 = (kill_ino << fs->geo.fbits) / fs->geo.e1;
            n = (1u << fs->geo.fbits) / fs->geo.e1;
            first = (from + fs->geo.e1 - 1) / fs->geo.e1;   /* first L1 fully covered */
        }
        fs->cache.buf_ppn = SFS_NONE;
        if (fs->root[l2] == SFS_NONE)
            memset(fs->buf, 0xFF, fs->geo.payload);
        else if ((rc = sfs_rd_sector(fs, fs->root[l2], fs->buf, &t)) < 0)
            return rc;
        for (i = 0; i < fs->npend; i++) {
            struct sfs_pend *p = &fs->pend[i];
            if (p->type == PT_L2 && p->key / fs->geo.e1 == l2)
                sfs_put32(fs->buf + 4 * (p->key % fs->geo.e1), p->ppn);
        }
        for (i = first; i < n; i++)
            sfs_put32(fs->buf + 4 * ((m0 + i) % fs->geo.e1), SFS_NONE);
        rc = map_prog(fs, TK_MAP2, l2, kill_ino != SFS_NONE ? TF_KILLMERGE : 0,
                      kill_ino != SFS_NONE ? kill_ino : 0);
    } while (rc == SFS_RETRY);
    return rc;
}

int sfs_merge_l2(steadyfs *fs, uint32_t l2) { return merge_l2_k(fs, l2, SFS_NONE); }

int sfs_merge_kill(steadyfs *fs, uint32_t ino)
{
    uint32_t from = kill_from(fs, ino), m0 = (ino << fs->geo.fbits) / fs->geo.e1;
    struct sfs_pend *k = sfs_pend_find(fs, PT_KILL, ino, 0);
    int rc;
    if (from == SFS_NONE)
        return 0;
    if (k->flags & PF_UNSETTLED) {
        /* not reached: a settling inode is neither reused nor picked by
         * make_room; its L1 sectors must be read before they go */
        rc = sfs_settle(fs, MAX_L1_PER_INODE, 0);
        if (rc < 0)
            return rc;
    }
    if (from % fs->geo.e1) {
        uint32_t mb = m0 + from / fs->geo.e1, cur;
        rc = sfs_l1_locate(fs, mb, &cur);
        if (rc)
            return rc;
        if (cur != SFS_NONE) {
            rc = merge_l1_k(fs, mb, from);
            if (rc)
                return rc;
        }
    }
    return merge_l2_k(fs, m0 / fs->geo.e1, ino);
}

/* Rewrite inode ino's sector with its committed size from the pending
 * table (a namespace-owned transaction of one sector that commits itself;
 * committing an inode sector drops the size entry). */
static int size_merge(steadyfs *fs, uint32_t ino)
{
    struct sfs_pend *s;
    sfs_inode in;
    uint32_t txn = 0;
    int rc;
    do {
        rc = sfs_log_reserve(fs);
        if (rc)
            return rc;
        /* after the reserve: a collection inside it may have merged it */
        s = sfs_pend_find(fs, PT_SIZE, ino, 0);
        if (!s)
            return 0;
        rc = sfs_inode_read(fs, ino, &in, NULL);   /* the size entry applied */
        if (rc)
            return rc;
        sfs_inode_pack(fs, fs->buf, &in);
        rc = sfs_write_lpn(fs, ino, OWNER_NS, &txn, TF_COMMIT, 0, SFS_UNKNOWN, NULL);
    } while (rc == SFS_RETRY);
    return rc;
}

int sfs_merge_cold(steadyfs *fs)
{
    uint32_t i, j = SFS_NONE, hot = SFS_NONE, newest = 0, hs = SFS_NONE;
    int rc;
    if (fs->npend + 8 <= fs->cfg.pending_max)
        return 0;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type == PT_L1 && !(p->flags & PF_UNC) &&
            (hot == SFS_NONE || (int32_t)(p->txn - newest) > 0)) {
            newest = p->txn;
            hot = p->key / fs->geo.e1;
        }
        /* the size entry a log renews at every record is hot too */
        if (p->type == PT_SIZE && (hs == SFS_NONE || (int32_t)(p->txn - fs->pend[hs].txn) > 0))
            hs = i;
    }
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type == PT_SIZE ? i == hs
                               : p->type != PT_L1 || (p->flags & PF_UNC) || p->key / fs->geo.e1 == hot)
            continue;
        if (j == SFS_NONE || (int32_t)(p->txn - fs->pend[j].txn) < 0)
            j = i;
    }
    if (j == SFS_NONE)
        return 0;
    /* One program: a closed file's size goes into its inode sector (an L1
     * change of the dense table instead), an L1 sector takes its changes
     * (an L2 change instead).  The L2 change waits for make_room (a few L2
     * sectors cover the device, so the cold merges after a log rotation
     * share one L2 merge; merged at once, each was a second program and
     * read in its record: four records of 1.3 ms in a row at 4 MB/s) */
    if (fs->pend[j].type == PT_SIZE)
        rc = size_merge(fs, fs->pend[j].key);
    else
        rc = sfs_merge_l1(fs, fs->pend[j].key / fs->geo.e1);
    return rc ? rc : 1;
}

int sfs_make_room(steadyfs *fs, uint32_t need)
{
    uint32_t i, j, n2, n0, m, cold;
    int rc;
    /* one slot always stays spare for the L2 change an L1 merge adds */
    while (fs->npend + need + 1 > fs->cfg.pending_max) {
        struct sfs_pend *k = NULL;
        /* a kill still settling keeps its entry (its L1 sectors must stay
         * reachable): with at most K - 8 uncommitted entries there is
         * always something else to merge */
        for (i = 0; i < fs->npend && !k; i++)
            if (fs->pend[i].type == PT_KILL && !(fs->pend[i].flags & PF_UNSETTLED))
                k = &fs->pend[i];
        if (k) {
            rc = sfs_merge_kill(fs, k->key);
            if (rc)
                return rc;
            continue;
        }
        /* merge the map sector of the oldest committed change: each change
         * waits in the table at most once, and a sector written on and on
         * (a log's) gathers changes until its turn comes, so one merge
         * absorbs most of the table.  (Merging the sector with the most
         * changes instead merged a log's sector at every call while cold
         * single changes of other sectors filled the rest of the table.) */
        /* L2 changes (one per L1 sector merged, a few L2 sectors for the
         * whole device) wait until they are a quarter of the table, or one
         * of them has not changed for 4 K sectors (cold: a log's own L2
         * change is renewed at each merge of its L1 sector and stays; the
         * ones a fill or a rotation left behind held 7 of 32 slots for good,
         * so a log's L1 sector was merged with 20 changes instead of 27),
         * or no L1 change is left to merge: then the oldest of them goes */
        for (i = 0, n2 = 0, cold = 0; i < fs->npend; i++)
            if (fs->pend[i].type == PT_L2) {
                n2++;
                cold |= (uint32_t)fs->log.seq - fs->pend[i].txn > 4u * fs->cfg.pending_max;
            }
        for (i = 0, j = SFS_NONE; i < fs->npend; i++) {
            struct sfs_pend *p = &fs->pend[i];
            int l2 = p->type == PT_L2, better;
            /* committed L1 changes and sizes go oldest first; a size goes
             * into its inode sector (which adds one L1 change) */
            if (!l2 && p->type != PT_SIZE && (p->type != PT_L1 || (p->flags & PF_UNC)))
                continue;
            if (j == SFS_NONE)
                better = 1;
            else if ((fs->pend[j].type == PT_L2) != l2)
                better = l2 == (4 * n2 >= fs->cfg.pending_max || cold);
            else
                better = (int32_t)(p->txn - fs->pend[j].txn) < 0;
            if (better)
                j = i;
        }
        if (j == SFS_NONE)
            return STEADYFS_ENOSPC;
        /* Each round frees at least one entry in at most three programs
         * (steadyfs_bound's free_one): a size goes into its inode sector,
         * which adds an L1 change; an L1 merge adds an L2 change.  When
         * that left the count as it was, the next level is merged at once
         * (the L1 sector of the inode, the L2 sector of the L1 sector). */
        n0 = fs->npend;
        m = fs->pend[j].key / fs->geo.e1;
        if (fs->pend[j].type == PT_L2) {
            rc = sfs_merge_l2(fs, m);
            if (rc)
                return rc;
            continue;
        }
        if (fs->pend[j].type == PT_SIZE) {
            rc = size_merge(fs, fs->pend[j].key);
            if (rc)
                return rc;
            if (fs->npend < n0)
                continue;
        }
        rc = sfs_merge_l1(fs, m);
        if (!rc && fs->npend >= n0)
            rc = sfs_merge_l2(fs, m / fs->geo.e1);
        if (rc)
            return rc;
    }
    return 0;
}

void sfs_abort(steadyfs *fs, int any, uint16_t owner, uint32_t txn)
{
    uint32_t i;
    fs->cache.dc_dir = 0;   /* a directory edit may be undone */
    for (i = 0; i < fs->npend;) {
        struct sfs_pend *p = &fs->pend[i];
        if ((p->flags & PF_UNC) && (any || (p->owner == owner && p->txn == txn))) {
            uint32_t lpn = p->key, cur = SFS_NONE;
            sfs_count_dec(fs, p->ppn);
            sfs_pend_del(fs, p);
            if (lpn < fs->cfg.max_inodes && sfs_lookup(fs, lpn, 0, &cur) == 0) {
                /* an aborted create leaves its inode number free again */
                sfs_tag t;
                sfs_inode in;
                if (cur == SFS_NONE || sfs_rd_sector(fs, cur, fs->buf, &t) < 0 ||
                    sfs_inode_unpack(fs, fs->buf, &in) != 0)
                    fs->ibm[lpn >> 3] &= (uint8_t)~(1u << (lpn & 7u));
            }
            continue;
        }
        i++;
    }
}

int sfs_write_lpn(steadyfs *fs, uint32_t lpn, uint16_t owner, uint32_t *txn, uint8_t flags,
                  uint32_t aux, uint32_t old_hint, uint32_t *ppn_out)
{
    sfs_tag t;
    uint32_t ppn;
    int rc;
    memset(&t, 0, sizeof t);
    t.kind = TK_DATA;
    t.key = lpn;
    t.owner = owner;
    t.flags = flags;
    t.aux = aux;
    if (!*txn)
        *txn = (uint32_t)fs->log.seq ? (uint32_t)fs->log.seq : 1u;
    t.txn = *txn;
    rc = sfs_log_prog(fs, fs->buf, &t, &ppn);
    if (rc)
        return rc;
    rc = sfs_apply_data(fs, &t, ppn, old_hint);
    if (ppn_out)
        *ppn_out = ppn;
    return rc;
}

void sfs_orphan_release(steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->orphans.n; i++)
        if (!ino || (fs->orphans.ino[i] & ~SFS_ORPHAN_HELD) == ino)
            fs->orphans.ino[i] &= (uint16_t)~SFS_ORPHAN_HELD;
}

int sfs_is_orphan(const steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->orphans.n; i++)
        if ((fs->orphans.ino[i] & ~SFS_ORPHAN_HELD) == ino)
            return 1;
    return 0;
}

int sfs_reap(steadyfs *fs, uint32_t ino, int lazy)
{
    uint32_t i;
    int rc;
    for (i = 0; i < fs->orphans.n; i++)
        if (ino ? (fs->orphans.ino[i] & ~SFS_ORPHAN_HELD) == ino
                : !(fs->orphans.ino[i] & SFS_ORPHAN_HELD))
            break;
    if (i == fs->orphans.n)
        return 0;
    ino = fs->orphans.ino[i] & ~SFS_ORPHAN_HELD;
    if (lazy) {
        /* a light call's housekeeping: one step towards the kill.  A
         * committed change of the orphan's pages would be uncounted twice
         * by a settling kill: its map sector is merged first (the cold
         * merge's cost).  A kill still settling goes first (the light
         * call's settling step).  And no merge for room: the kill costs
         * two lookups and the checkpoint (steadyfs_bound's finish). */
        struct sfs_pend *c = committed_change_of(fs, ino);
        if (c && fs->npend + 2u <= fs->cfg.pending_max) {
            rc = sfs_merge_l1(fs, c->key / fs->geo.e1);
            return rc ? rc : 1;
        }
        if (!sfs_kill_lazy(fs, ino) || fs->npend + 4u + 1u > fs->cfg.pending_max)
            return 0;
    }
    /* the kill adds up to three entries: room first */
    rc = sfs_make_room(fs, 4);
    if (rc)
        return rc;
    fs->orphans.ino[i] = fs->orphans.ino[--fs->orphans.n];
    rc = sfs_apply_kill(fs, ino, 0, 1);
    if (!rc)
        rc = sfs_ckpt_write(fs);   /* the commit record of the kill, as in sfs_commit_kill */
    return rc ? rc : 1;
}

int sfs_commit_kill(steadyfs *fs, uint16_t owner, uint32_t txn, uint32_t ino, uint32_t from,
                    uint32_t how)
{
    /* a kill adds up to three entries: the call that made it pays for the
     * room first, so every call starts with the same slack */
    int rc = sfs_make_room(fs, 4);
    if (!rc)
        rc = sfs_apply_commit(fs, owner, txn);
    if (!rc && owner != OWNER_NS)
        drop_size(fs, ino);   /* its inode sector, in the transaction, has the size */
    if (!rc && how == SFS_KILL_ORPHAN) {
        /* the inode keeps its sectors and its number while a handle has it
         * open; the checkpoint below lists it, so after a cut the next
         * mount's first light calls (or unmount) reap it */
        if (fs->orphans.n < fs->geo.orphan_max)
            fs->orphans.ino[fs->orphans.n++] = (uint16_t)(ino | SFS_ORPHAN_HELD);
        else
            rc = STEADYFS_EBUSY;
    } else if (!rc) {
        rc = sfs_apply_kill(fs, ino, from, how == SFS_KILL_ALL);
    }
    if (!rc)
        rc = sfs_ckpt_write(fs);
    return rc;
}

/* Before a data sector of inode ino is built in fs->buf: merge a pending
 * kill of ino (so no change survives next to an older kill), make room in
 * the pending table and make sure the head has a free sector. */
int sfs_prep(steadyfs *fs, uint32_t ino)
{
    int rc;
    if (ino && sfs_kill_pending(fs, ino)) {
        rc = sfs_merge_kill(fs, ino);
        if (rc)
            return rc;
    }
    for (;;) {
        /* room for the sector's change and a commit's kill (three) */
        rc = sfs_make_room(fs, 4);
        if (!rc)
            rc = sfs_log_reserve(fs);
        /* a collection inside the reserve may have used pending room */
        if (rc || fs->npend + 5 <= fs->cfg.pending_max)
            return rc;
    }
}
