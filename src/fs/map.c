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

/* The inode whose inode sector logical page lpn is, or 0. */
static uint32_t inode_of(const steadyfs *fs, uint32_t lpn)
{
    return lpn < fs->geo.cbase && sfs_shared_k(fs, lpn) == 0 ? sfs_shared_ino(fs, lpn) : 0;
}

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

void sfs_drop_size(steadyfs *fs, uint32_t ino)
{
    struct sfs_pend *p = sfs_pend_find(fs, PT_SIZE, ino, 0);
    if (p)
        sfs_pend_del(fs, p);
}

int sfs_pend_none(steadyfs *fs, uint32_t lpn)
{
    return pend_add(fs, PT_L1, lpn, SFS_NONE) ? 0 : STEADYFS_ENOSPC;
}

/* Is p an entry of `type` whose key / div is k, and without the flags
 * `not` (PF_UNC: a committed one)? */
static int entry_of(const struct sfs_pend *p, uint8_t type, uint32_t k, uint32_t div, uint8_t not)
{
    return p->type == type && !(p->flags & not) && p->key / div == k;
}

/* Those entries go (a map sector or inode sector took them in). */
static void drop_entries(steadyfs *fs, uint8_t type, uint32_t k, uint32_t div, uint8_t not)
{
    uint32_t i;
    for (i = 0; i < fs->npend;) {
        if (entry_of(&fs->pend[i], type, k, div, not)) {
            sfs_pend_del(fs, &fs->pend[i]);
            continue;
        }
        i++;
    }
}

static void l1_by_tags(steadyfs *fs, const uint32_t *idx, uint32_t n, uint32_t *ppn);

int sfs_l1_locate(steadyfs *fs, uint32_t m, uint32_t *ppn)
{
    struct sfs_pend *p = sfs_pend_find(fs, PT_L2, m, 0);
    uint32_t r;
    int rc, cached;
    if (p) {
        *ppn = p->ppn;
        return 0;
    }
    r = fs->root[m / fs->geo.e1];
    if (r == SFS_NONE) {
        *ppn = SFS_NONE;
        return 0;
    }
    cached = sfs_xc_cached(fs, 1, m);
    rc = sfs_xc_word(fs, 1, r, m, ppn);
    if (!rc && !cached) {
        /* words of the run just read that fail their check (a small read
         * of a damaged L2 sector on NOR and MRAM): their L1 sectors are
         * still on the device, found by their tags, and the cached words
         * say so until the run is dropped (lost where none was found: no
         * second scan while it stays); the L2 sector's next merge writes
         * them (rebuild).  Before, every page of such an L1 sector was
         * lost, and an L1 merge meanwhile wrote it anew from nothing but
         * the table's changes. */
        uint32_t idx[4], got[4], n = 0, k, w;
        for (k = m & ~3u; k < (m | 3u) + 1u && k < fs->geo.n_l1; k++)
            if (!sfs_xc_word(fs, 1, r, k, &w) && w == SFS_LOST)
                idx[n++] = k;
        if (n) {
            l1_by_tags(fs, idx, n, got);
            for (k = 0; k < n; k++)
                sfs_xc_fix(fs, 1, idx[k], got[k]);
            rc = fs->dead ? STEADYFS_EIO : sfs_xc_word(fs, 1, r, m, ppn);
        }
    }
    return rc;
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

/* May the commit of a change of lpn leave the sector it replaces counted
 * until its L1 sector is merged (PF_OLD)?  On media without erase where
 * collection never runs even with those sectors counted (sfs_old_later_ok)
 * nothing needs that sector dead sooner, and the merge reads the word
 * anyway: a random writer's record saves its lookup, a small read that
 * costs a fifth of the record on em064lx (where the pigeonhole holds
 * with those sectors counted: sfs_old_later_ok).  Only chunk pages: the shared
 * table's (page 0, inode and directory sectors) are unmapped by kills
 * that uncount what they replaced (kill.c unmap), and an inode's commit
 * compares the sector it replaces. */
static int old_later(const steadyfs *fs, uint32_t lpn)
{
    return sfs_maybe(fs) && lpn >= fs->geo.cbase && sfs_old_later_ok(fs, 1);
}

int sfs_apply_commit(steadyfs *fs, uint16_t owner, uint32_t txn)
{
    uint32_t i, j, old;
    uint8_t later;
    int rc;
restart:
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i], *c;
        if (p->type == PT_CHUNK && (p->flags & PF_UNC) && p->owner == owner && p->txn == txn) {
            /* the chunk the transaction took is the file's now: it extends
             * the run of the slot before it if it is the next chunk (a log
             * takes chunks in order: one entry for all of them) */
            uint32_t k;
            p->flags &= (uint8_t)~PF_UNC;
            p->owner = 1;
            p->txn = (uint32_t)fs->log.seq;
            fs->uncommitted--;
            for (k = 0; k < fs->npend; k++) {
                struct sfs_pend *r = &fs->pend[k];
                if (r != p && r->type == PT_CHUNK && !(r->flags & PF_UNC) && r->key == p->key &&
                    (r->ppn >> 16) + r->owner == (p->ppn >> 16) &&
                    (r->ppn & 0xFFFFu) + r->owner == (p->ppn & 0xFFFFu) && r->owner < 0xFFFFu) {
                    r->owner++;
                    sfs_pend_del(fs, p);
                    goto restart;
                }
            }
            continue;
        }
        if (p->type != PT_L1 || !(p->flags & PF_UNC) || p->owner != owner || p->txn != txn)
            continue;
        old = SFS_NONE;
        later = 0;
        c = sfs_pend_find(fs, PT_L1, p->key, 0);   /* its committed change */
        if (!(p->flags & PF_NEW)) {
            if (c) {
                old = c->ppn;   /* and what c replaced still counts if c says so */
                later = c->flags & PF_OLD;
            } else if (old_later(fs, p->key)) {
                later = PF_OLD;
            } else if ((rc = sfs_lookup(fs, p->key, 0, &old)) != 0) {
                /* the word is unreadable (a damaged map sector): what it
                 * named stays counted until the merge that rebuilds that
                 * sector reads the word (PF_OLD, on every medium here),
                 * and the commit goes on -- it is on the medium */
                if (fs->dead)
                    return rc;
                old = SFS_NONE;
                later = PF_OLD;
            }
        }
        sfs_count_dec(fs, old);
        /* another transaction's change of the same page no longer
         * replaces nothing: it looks its old location up at its commit */
        for (j = 0; j < fs->npend; j++) {
            struct sfs_pend *q = &fs->pend[j];
            if (q != p && q->type == PT_L1 && (q->flags & PF_UNC) && q->key == p->key)
                q->flags &= (uint8_t)~PF_NEW;
        }
        if (inode_of(fs, p->key)) {
            uint32_t ino = inode_of(fs, p->key);
            struct sfs_open *o = sfs_primary(fs, ino);
            if (o && sfs_copy_of(fs, o->ino_ppn) == sfs_copy_of(fs, old))
                o->ino_ppn = p->ppn;
            sfs_bit_set(fs->ibm, ino, 1);
        }
        p->flags &= (uint8_t)~(PF_UNC | PF_NEW);
        p->flags |= later;
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
        if (t->flags & TF_TRIM)
            fs->log.need_ckpt = 1;   /* replay skips it: the next program commits it */
        sfs_xc_drop_map(fs, 0, t->key);   /* map words on media change only here */
        sfs_reloc_written(fs, t->key);      /* written resolved: no word names a copied sector */
        rc = sfs_l1_locate(fs, t->key, &old);
        if (rc)
            return rc;
        /* all or nothing: no change at all if its L2 change has no room */
        for (i = 0; i < fs->npend; i++)
            freed += entry_of(&fs->pend[i], PT_L1, t->key, fs->geo.e1, PF_UNC);
        if (!sfs_pend_find(fs, PT_L2, t->key, 0) && fs->npend - freed >= fs->cfg.pending_max)
            return STEADYFS_ENOSPC;
        /* replay: a change the checkpoint kept with its replaced sector
         * still counted (PF_OLD) is taken in by this sector, whose merge
         * uncounted that sector then: again now, by the word the sector
         * before it holds (at most K small reads a mount; at run time the
         * merge has cleared every such flag) */
        for (i = 0; i < fs->npend; i++) {
            struct sfs_pend *q = &fs->pend[i];
            uint32_t w;
            if (!entry_of(q, PT_L1, t->key, fs->geo.e1, PF_UNC) || !(q->flags & PF_OLD))
                continue;
            q->flags &= (uint8_t)~PF_OLD;
            if (old == SFS_NONE)
                continue;
            /* (the sector before damaged: its word stays counted, which
             * collection finds dead, gc.c finish; a read the device
             * returns no bytes for fails the mount, which can be tried
             * again -- taken as damage, it left a unit counting one sector
             * too many: test_fs_io_errors) */
            rc = sfs_xc_word(fs, 0, old, q->key, &w);
            if (rc && (fs->dead || rc == STEADYFS_EIO))
                return rc;
            if (!rc)
                sfs_count_dec(fs, w);
            rc = 0;
        }
        if (sfs_maybe(fs))
            sfs_xc_drop_map(fs, 0, t->key);   /* (those words were the sector before) */
        drop_entries(fs, PT_L1, t->key, fs->geo.e1, PF_UNC);
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
        drop_entries(fs, PT_L2, t->key, fs->geo.e1, 0);
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
    uint32_t i;
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
     * record replaces anyway.  The file's chunk runs wait with it: they go
     * into the same inode sector */
    p->txn = (uint32_t)fs->log.seq;
    for (i = 0; i < fs->npend; i++)
        if (entry_of(&fs->pend[i], PT_CHUNK, ino, 1, PF_UNC))
            fs->pend[i].txn = p->txn;
    return 0;
}

int sfs_apply_data(steadyfs *fs, const sfs_tag *t, uint32_t ppn, uint32_t old_hint)
{
    int rc = sfs_apply_prog(fs, t->key, ppn, t->owner, t->txn, old_hint);
    if (!rc && (t->flags & TF_NEWCHUNK) && t->owner != OWNER_GC) {
        /* the transaction took a chunk for its file: the file's chunk list
         * entry (fpage - 1) / C, until its inode sector is written */
        uint32_t c = sfs_chunk_of_lpn(fs, t->key);
        struct sfs_pend *p;
        if (c == CHUNK_NONE || !t->fpage || t->owner == 0 || t->owner >= fs->cfg.max_inodes)
            return STEADYFS_ECORRUPT;
        p = pend_add(fs, PT_CHUNK, t->owner, ((uint32_t)t->fpage / fs->geo.C) << 16 | c);
        if (!p)
            return STEADYFS_ENOSPC;
        p->flags = PF_UNC;
        p->owner = t->owner;
        p->txn = t->txn;
        fs->uncommitted++;
        sfs_bit_set(fs->chunk.used, c, 1);
    }
    if (rc || !(t->flags & TF_COMMIT))
        return rc;
    rc = sfs_apply_commit(fs, t->owner, t->txn);
    /* an inode sector its file (or a size merge) commits carries the
     * newest size and chunk list; a collection copy carries what it was
     * written with */
    if (!rc && inode_of(fs, t->key) && t->owner != OWNER_GC) {
        sfs_drop_size(fs, inode_of(fs, t->key));
        drop_entries(fs, PT_CHUNK, inode_of(fs, t->key), 1, PF_UNC);
    }
    if (!rc && (t->flags & TF_SIZE))
        rc = sfs_apply_size(fs, t->owner, t->aux);
    return rc;
}

/* Write a map sector from fs->buf and apply it. */
static int map_prog(steadyfs *fs, uint8_t kind, uint32_t key, uint8_t flags)
{
    sfs_tag t;
    uint32_t ppn;
    int rc;
    uint32_t i;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.key = key;
    t.flags = flags;
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

/* Does a trim remove logical page lpn? */
static int trimmed(const steadyfs *fs, const struct sfs_trim *tr, uint32_t lpn)
{
    uint32_t c = sfs_chunk_of_lpn(fs, lpn);
    if (c == CHUNK_NONE)   /* the shared table */
        return tr->blk && sfs_shared_ino(fs, lpn) == tr->blk;
    if (tr->tail_c != CHUNK_NONE && c == tr->tail_c)
        return (lpn - fs->geo.cbase) % fs->geo.C >= tr->tail_o;
    return tr->dying && c < fs->geo.n_c && sfs_bit(fs->chunk.dying, c);
}

/* After L2 sector l2 was merged from fs->buf: the places of L1 sectors the
 * cache held before (was[0..nwas-1], most recent first) and of those with
 * committed changes (the next merges' sectors, oldest first, two runs of
 * four at most) stay known, so those merges and lookups read no L2 word.
 * On MRAM a small read is a fifth of a record's program: a merge (105 us)
 * with its L2 word (18 us) beside a 4 KiB record (87 us) passed 0.2 ms
 * (issue 16); elsewhere a read is a page read whatever its length, and
 * the code (about 300 B) is not worth the few it saves. */
static void keep_l1_places(steadyfs *fs, uint32_t l2, const uint32_t *was, uint32_t nwas)
{
    uint32_t i, j, kept = 0, key[2] = {SFS_NONE, SFS_NONE};
    if (fs->cache.buf_ppn == SFS_NONE || fs->cache.buf_ppn != fs->root[l2])
        return;   /* the buffer is not that sector as programmed */
    while (nwas--)   /* the least recent first: the most recent ends first in line */
        sfs_xc_keep(fs, 1, was[nwas], fs->buf);
    for (j = 0; j < 2; j++) {
        struct sfs_pend *best = NULL;
        for (i = 0; i < fs->npend; i++) {
            struct sfs_pend *p = &fs->pend[i];
            uint32_t run = (p->key / fs->geo.e1) & ~3u;
            if (p->type != PT_L1 || (p->flags & PF_UNC) || p->key / fs->geo.e1 / fs->geo.e1 != l2 ||
                run == key[0])
                continue;
            if (!best || (int32_t)(p->txn - best->txn) < 0)
                best = p;
        }
        if (!best)
            break;
        key[j] = (best->key / fs->geo.e1) & ~3u;
        kept++;
    }
    /* the oldest last: a later miss replaces the other first */
    while (kept--)
        sfs_xc_keep(fs, 1, key[kept], fs->buf);
}

/* Merge map sector m of kind TK_MAP1 (an L1 sector: its committed
 * changes, every word resolved) or TK_MAP2 (an L2 sector: its L1 changes).
 * With a trim (tr non-NULL, TF_TRIM: replay skips the sector, so the next
 * program is the checkpoint that commits it) the words it names become
 * none and their sectors are uncounted, once (a retried program does not
 * uncount them again). */
/* A trim's program failed after its words were uncounted: the head moves
 * on with a checkpoint first (need_ckpt: replay cannot follow a head out
 * of a unit that ends in a failed program), and that checkpoint must not
 * hold those sectors uncounted while the map, its L1 sector not written,
 * still reaches them -- after a cut the unit would count fewer live
 * sectors than it holds (torture --fsck, seed 104: "unit 10: block table
 * counts 6 live sectors, the map reaches 7"), and a redone trim would
 * uncount them again.  So they count again, read from the sector as the
 * merge builds it, and the retry uncounts them anew.  A fault's handling:
 * outside the stated bound (budget.c). */
static int trim_recount(steadyfs *fs, uint32_t m, uint32_t old, struct sfs_trim *tr)
{
    uint32_t i, w;
    sfs_tag t;
    int rc;
    fs->cache.buf_ppn = SFS_NONE;
    if (old == SFS_NONE)
        memset(fs->buf, 0xFF, fs->geo.payload);
    else if ((rc = sfs_rd_sector(fs, old, fs->buf, &t)) < 0)
        return rc;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (entry_of(p, PT_L1, m, fs->geo.e1, PF_UNC))
            sfs_map_put(fs, fs->buf, m * fs->geo.e1, p->key % fs->geo.e1, p->ppn);
    }
    sfs_reloc_l1(fs, fs->buf, m);
    for (i = 0; i < fs->geo.e1; i++)
        if (trimmed(fs, tr, m * fs->geo.e1 + i) && (w = sfs_map_get(fs, fs->buf, m * fs->geo.e1, i)) != SFS_NONE)
            sfs_count_inc(fs, sfs_copy_of(fs, w));
    tr->counted = 0;
    return 0;
}

/* Could logical page lpn be mapped, by what RAM says of the structure?
 * Not in the block of a free inode (or of inode 0), past a block's
 * buckets, nor in a chunk no file holds (a chunk a transaction takes is
 * marked used when its first sector is written). */
static int may_be_mapped(const steadyfs *fs, uint32_t lpn)
{
    uint32_t c = sfs_chunk_of_lpn(fs, lpn), ino = sfs_shared_ino(fs, lpn);
    if (c == CHUNK_NONE)
        return ino && sfs_bit(fs->ibm, ino) && sfs_shared_k(fs, lpn) <= fs->cfg.dir_pages;
    return c < fs->geo.n_c && sfs_bit(fs->chunk.used, c);
}

/* Map sector m of kind `kind` whose read failed (uncorrectable, or its
 * data CRC fails; old: where it is, or SFS_LOST where its parent word is
 * lost): its image in fs->buf rebuilt from the raw words the device
 * handed back, each kept only where the sector it names (through the
 * relocation records) carries the key that word stands for -- a data
 * sector of that logical page for an L1 word, the L1 sector of that
 * index for an L2 word -- and SFS_LOST otherwise.  A word the damage
 * changed names some other sector (or none) and fails that check; one it
 * left alone passes.  E tag reads, once per damaged map sector: fault
 * handling, outside the bound.  A hole whose word the damage changed
 * becomes lost, not a hole (a read fails rather than return zeros) --
 * unless no page can be there by what RAM says of the structure
 * (may_be_mapped): then it is a hole again, and an inode or chunk taken
 * later does not meet a lost page it never had.  (Where the structure
 * needs the media to tell -- past a file's end -- steadyfs_repair makes
 * the rest holes, repair.c.) */
#define L2_FIND 8u
/* Does the sector a word of a `kind` map sector names hold key?  (Under
 * an L1 sector a data sector, through the relocation records; under an L2
 * sector an L1 sector that maps something.) */
static int names_key(steadyfs *fs, uint8_t kind, uint32_t key, uint32_t ppn)
{
    sfs_tag t;
    if (sfs_rd_tag_in(fs, kind == TK_MAP1 ? sfs_copy_of(fs, ppn) : ppn, &t, 1) < 0)
        return 0;
    return t.kind == kind - 1u && t.key == key && !(kind == TK_MAP2 && (t.flags & TF_EMPTY));
}

/* A word of a `kind` map sector that fails its check (key: the logical
 * page, or the L1 index), put right where exactly one value explains it.
 * Damage changes a few bits of a word: a byte of it where a small read on
 * NOR or MRAM has no CRC, a bit or two of each word an uncorrectable NAND
 * page returns raw.  So the candidates are the raw word with one byte
 * replaced or two bits of different bytes flipped (1 404 values): one
 * whose check holds and whose sector's tag holds the key (names_key), or
 * "none" itself.  Exactly one: that is the word; none or several: lost.
 * A wrong value passes the check about once in 2^(32 - b) (b the bits of
 * a sector number; 2^15 on mt29f1g01, 2^16 on NOR and MRAM) and its tag
 * must hold the key as well.  Before the twenty-seventh session such a
 * page read EIO for good although its sector was whole.  Fault handling,
 * outside the bound: no device access but a tag read a candidate (about
 * one). */
uint32_t sfs_word_fix(steadyfs *fs, uint8_t kind, uint32_t key, uint32_t raw)
{
    uint32_t ek = kind == TK_MAP1 ? key : sfs_l2_key(key), found = SFS_LOST, n = 0, i, j, w, p;
    sfs_budget_void(fs);
    if (raw >= SFS_LOST)
        return SFS_LOST;   /* (a word a rebuild wrote lost: not a damaged "none") */
    for (i = 0; i < 4u * 256u + 32u * 32u && n < 2u && !fs->dead; i++) {
        if (i < 4u * 256u) {
            /* byte i / 256 replaced by i % 256 */
            w = (raw & ~(0xFFu << 8u * (i / 256u))) | (i % 256u) << 8u * (i / 256u);
        } else {
            j = i - 4u * 256u;   /* bits j / 32 < j % 32 of different bytes */
            if (j / 32u >= j % 32u || j / 32u / 8u == j % 32u / 8u)
                continue;
            w = raw ^ 1u << (j / 32u) ^ 1u << (j % 32u);
        }
        if (w == raw)
            continue;
        p = w == SFS_NONE ? SFS_NONE : sfs_word_dec(fs, ek, w);
        if (p == SFS_NONE || (p < SFS_LOST && names_key(fs, kind, key, p))) {
            found = p;
            n++;
        }
    }
    return n == 1u ? found : SFS_LOST;
}

/* The newest L1 sector of each of L1 indices idx[0..n-1] on the device,
 * by sequence number, into ppn[] (SFS_NONE where it maps nothing,
 * TF_EMPTY; SFS_LOST where none is found): for an L2 word that is lost.
 * The L1 sector the word named is still there when only the word was
 * damaged, and merges write an L1 sector only at the log's head, so the
 * newest one is the one the word named, or a newer one a pending L2
 * change names (which wins over the word anyway).  A scan of every tag
 * outside the anchor area and the erased units: fault handling, outside
 * the bound (65 536 tag reads on mt29f1g01, 3 968 on em064lx).  One
 * case it gets wrong: a trim step's L1 sector whose
 * checkpoint a cut prevented (replay skipped it; the trim is done again)
 * is the newest until then, and taking it takes the trim (harmless for a
 * dead file's chunk; a shrink's tail trim of a shrink the cut undid
 * unmaps that file's pages past the cut). */
static void l1_by_tags(steadyfs *fs, const uint32_t *idx, uint32_t n, uint32_t *ppn)
{
    uint64_t seq[L2_FIND];
    uint32_t b, k, i, at;
    sfs_tag t;
    sfs_budget_void(fs);
    for (i = 0; i < n; i++) {
        ppn[i] = SFS_LOST;
        seq[i] = 0;
    }
    for (b = 0; n && b < fs->geo.nblocks && !fs->dead; b++) {
        if (fs->blk[b] == BS_BAD || fs->blk[b] == BS_RESERVED || fs->blk[b] == BS_QUEUED ||
            fs->blk[b] == BS_NEXT || fs->blk[b] == BS_GNEXT)
            continue;
        for (k = 0; k < fs->geo.P; k++) {
            at = b * fs->geo.P + k;
            if (sfs_rd_tag_in(fs, at, &t, 1) < 0 || t.kind != TK_MAP1)
                continue;
            for (i = 0; i < n; i++)
                if (t.key == idx[i] && t.seq >= seq[i]) {
                    seq[i] = t.seq;
                    ppn[i] = t.flags & TF_EMPTY ? SFS_NONE : at;
                }
        }
    }
    /* none found: the word was none before the damage changed it, if no
     * page of that L1 sector can be mapped by what RAM says of the
     * structure (the damage hits unused words as often as used ones) */
    for (i = 0; i < n; i++)
        if (ppn[i] == SFS_LOST && !fs->dead) {
            for (k = 0; k < fs->geo.e1 && !may_be_mapped(fs, idx[i] * fs->geo.e1 + k); k++)
                ;
            if (k == fs->geo.e1)
                ppn[i] = SFS_NONE;
        }
}

/* L2 sector m's image in fs->buf, rebuilt: its lost words (L2_FIND at a
 * time) get their L1 sectors' newest copies (l1_by_tags), so that the
 * merge writes them as they were. */
static void find_lost_l1(steadyfs *fs, uint32_t m)
{
    uint32_t key0 = sfs_l2_key(m * fs->geo.e1), idx[L2_FIND], ppn[L2_FIND], n, i, from = 0;
    do {
        for (n = 0; from < fs->geo.e1 && n < L2_FIND; from++)
            if (m * fs->geo.e1 + from < fs->geo.n_l1 && sfs_map_get(fs, fs->buf, key0, from) == SFS_LOST)
                idx[n++] = m * fs->geo.e1 + from;
        l1_by_tags(fs, idx, n, ppn);
        for (i = 0; i < n && !fs->dead; i++)
            sfs_map_put(fs, fs->buf, key0, idx[i] % fs->geo.e1, ppn[i]);
    } while (n == L2_FIND && !fs->dead);
}

static void rebuild(steadyfs *fs, uint8_t kind, uint32_t m, uint32_t old)
{
    uint32_t i, w, key, key0 = kind == TK_MAP1 ? m * fs->geo.e1 : sfs_l2_key(m * fs->geo.e1);
    sfs_tag t;
    sfs_budget_void(fs);
    for (i = 0; i < fs->geo.e1; i++) {
        key = m * fs->geo.e1 + i;
        /* (a word whose check fails is lost already) */
        w = old == SFS_LOST ? SFS_LOST : sfs_map_get(fs, fs->buf, key0, i);
        /* (a hole the damage changed where nothing can be is a hole
         * again, not a page lost: a new inode or chunk may get it) */
        if (kind == TK_MAP1 ? !may_be_mapped(fs, key) : key >= fs->geo.n_l1)
            w = SFS_NONE;
        /* (a word the damage changed a little: its tag checked there) */
        else if (w == SFS_LOST && old != SFS_LOST)
            w = sfs_word_fix(fs, kind, key, sfs_get32(fs->buf + 4u * i));
        /* (kind - 1: TK_DATA under an L1 sector, TK_MAP1 under an L2) */
        else if (w != SFS_NONE && w != SFS_LOST &&
                 (sfs_rd_tag_in(fs, kind == TK_MAP1 ? sfs_copy_of(fs, w) : w, &t, 1) < 0 ||
                  t.kind != kind - 1u || t.key != key))
            w = SFS_LOST;
        sfs_map_put(fs, fs->buf, key0, i, w);
    }
    if (kind == TK_MAP2)
        find_lost_l1(fs, m);
}

static int merge(steadyfs *fs, uint8_t kind, uint32_t m, struct sfs_trim *tr, sfs_mode mode)
{
    uint32_t i, w, old, was[4], nwas = 0;
    uint32_t key0 = kind == TK_MAP1 ? m * fs->geo.e1 : sfs_l2_key(m * fs->geo.e1);
    sfs_tag t;
    int rc;
    do {
        rc = sfs_log_reserve(fs, mode);
        if (rc)
            break;
        if (kind == TK_MAP2) {
            old = fs->root[m];
        } else if ((rc = sfs_l1_locate(fs, m, &old)) != 0) {
            /* its L2 sector is damaged: rebuilt first, then this again */
            if (fs->dead || (rc != STEADYFS_EIO && rc != STEADYFS_ECORRUPT) ||
                (rc = merge(fs, TK_MAP2, m / fs->geo.e1, NULL, mode)) != 0)
                break;
            rc = SFS_RETRY;
            continue;
        }
        fs->cache.buf_ppn = SFS_NONE;
        if (old == SFS_NONE) {
            memset(fs->buf, 0xFF, fs->geo.payload);
        } else if ((rc = sfs_rd_sector_in(fs, old, fs->buf, &t, 1)) < 0) {
            /* damaged (a lost word names it, or its bytes fail): what
             * can be confirmed of it is kept, the rest is lost, so that
             * the map goes on being written and collection goes on.  Not
             * a sector the device returns no bytes for: the call fails
             * (a rebuild from the undefined buffer lost every word it
             * could not confirm: on mt25q128 one such error in a cold
             * merge of L1 sector 0 made every inode sector unreachable) */
            uint8_t no_bytes = fs->no_bytes;
            if (rc == SFS_NO_BYTES)
                rc = STEADYFS_EIO;
            else if (!fs->dead && (rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT))
                rc = 0;
            if (rc)
                break;
            rebuild(fs, kind, m, old >= fs->geo.nblocks * fs->geo.P ? SFS_LOST : old);
            /* (a tag its words are checked against returned no bytes: the
             * word would be taken for lost; the call fails instead) */
            if (sfs_no_bytes_since(fs, no_bytes)) {
                rc = STEADYFS_EIO;
                break;
            }
            rc = 0;
        }
        /* the sectors committed changes replaced that still count (PF_OLD):
         * the words read here, before the changes replace them */
        for (i = 0; kind == TK_MAP1 && i < fs->npend; i++) {
            struct sfs_pend *p = &fs->pend[i];
            if (entry_of(p, PT_L1, m, fs->geo.e1, PF_UNC) && (p->flags & PF_OLD)) {
                sfs_count_dec(fs, sfs_map_get(fs, fs->buf, key0, p->key % fs->geo.e1));
                p->flags &= (uint8_t)~PF_OLD;
            }
        }
        /* PT_L1 changes (committed ones) into an L1 sector, PT_L2 into an L2 */
        for (i = 0; i < fs->npend; i++) {
            struct sfs_pend *p = &fs->pend[i];
            if (entry_of(p, (uint8_t)(kind - 1u), m, fs->geo.e1, kind == TK_MAP1 ? PF_UNC : 0))
                sfs_map_put(fs, fs->buf, key0, p->key % fs->geo.e1, p->ppn);
        }
        if (kind == TK_MAP1)
            sfs_reloc_l1(fs, fs->buf, m);   /* words that name a sector collection copied name its copy */
        for (i = 0; tr && i < fs->geo.e1; i++) {
            if (!trimmed(fs, tr, m * fs->geo.e1 + i))
                continue;
            w = sfs_map_get(fs, fs->buf, key0, i);
            if (!tr->counted)
                sfs_count_dec(fs, w);
            sfs_put32(fs->buf + 4 * i, SFS_NONE);
        }
        if (tr)
            tr->counted = 1;
        nwas = kind == TK_MAP2 && sfs_runs_offered(fs) ? sfs_xc_runs(fs, 1, m, was) : 0;
        rc = map_prog(fs, kind, m, tr ? TF_TRIM : 0);
        if (rc == SFS_RETRY && tr) {
            int r2 = trim_recount(fs, m, old, tr);
            if (r2 < 0)
                rc = r2;
        }
    } while (rc == SFS_RETRY);
    if (!rc && kind == TK_MAP2 && sfs_runs_offered(fs))
        keep_l1_places(fs, m, was, nwas);
    return rc;
}

int sfs_merge_l1(steadyfs *fs, uint32_t m, sfs_mode mode) { return merge(fs, TK_MAP1, m, NULL, mode); }

int sfs_trim_l1(steadyfs *fs, uint32_t m, struct sfs_trim *tr, sfs_mode mode) { return merge(fs, TK_MAP1, m, tr, mode); }

int sfs_merge_l2(steadyfs *fs, uint32_t l2, sfs_mode mode) { return merge(fs, TK_MAP2, l2, NULL, mode); }

/* A committed size or chunk entry of inode ino, or NULL. */
static struct sfs_pend *inode_entry(steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->npend; i++)
        if ((fs->pend[i].type == PT_SIZE || fs->pend[i].type == PT_CHUNK) &&
            !(fs->pend[i].flags & PF_UNC) && fs->pend[i].key == ino)
            return &fs->pend[i];
    return NULL;
}

/* Rewrite inode ino's sector with its committed size and chunks from the
 * pending table (a namespace-owned transaction of one sector that commits
 * itself; committing an inode sector drops those entries). */
static int size_merge(steadyfs *fs, uint32_t ino, sfs_mode mode)
{
    sfs_inode in;
    uint32_t txn = 0;
    int rc;
    do {
        rc = sfs_log_reserve(fs, mode);
        if (rc)
            return rc;
        /* after the reserve: a collection inside it may have merged it */
        if (!inode_entry(fs, ino))
            return 0;
        /* the committed sector, the size entry applied: this sector
         * commits itself, so never on a transaction's uncommitted one
         * (a shrink's, between its inode sector and the checkpoint that
         * commits its kill: torture --pending-max 22 --seed 8, op 9629,
         * found the file at its old size with its cut chunk list, page 1
         * read as zeros) */
        rc = sfs_inode_read(fs, ino, 0, &in, NULL);
        if (rc)
            return rc;
        sfs_inode_chunks(fs, ino, OWNER_NS, 0);
        sfs_inode_pack(fs, fs->buf, &in);
        rc = sfs_write_lpn(fs, sfs_shared_lpn(fs, ino, 0), OWNER_NS, &txn, TF_COMMIT, SFS_UNKNOWN,
                           NULL);
    } while (rc == SFS_RETRY);
    return rc;
}

int sfs_merge_cold(steadyfs *fs, sfs_mode mode)
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
        /* a size or chunk entry of the file whose size is hot waits too */
        if (p->type == PT_SIZE || p->type == PT_CHUNK
                ? (p->flags & PF_UNC) || (hs != SFS_NONE && p->key == fs->pend[hs].key)
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
    if (fs->pend[j].type == PT_SIZE || fs->pend[j].type == PT_CHUNK)
        rc = size_merge(fs, fs->pend[j].key, mode);
    else
        rc = sfs_merge_l1(fs, fs->pend[j].key / fs->geo.e1, mode);
    return rc ? rc : 1;
}

/* The steps of a make-room round (fs->room.step; 0: none under way). */
enum { ROOM_L2 = 1, ROOM_SIZE, ROOM_L1 };

/* The round under way, one step after another; a step that returns
 * SFS_NEED_CKPT or SFS_NEED_ROOM is done again when the caller has served
 * it and calls again (any other error ends the round). */
static int room_steps(steadyfs *fs, sfs_mode mode)
{
    int rc = 0;
    while (fs->room.step && !rc) {
        uint32_t key = fs->room.key;
        if (fs->room.step == ROOM_L2) {
            rc = sfs_merge_l2(fs, key, mode);
            if (!rc)
                fs->room.step = 0;
        } else if (fs->room.step == ROOM_SIZE) {
            rc = size_merge(fs, key, mode);
            if (!rc) {
                fs->room.step = fs->npend < fs->room.n0 ? 0 : ROOM_L1;
                fs->room.key = sfs_shared_lpn(fs, key, 0) / fs->geo.e1;
            }
        } else {
            /* (its L2 change waits with the others: the next round merges
             * the L2 sector only once they are a quarter of the table,
             * room_pick, so a round of L1-level entries in distinct
             * sectors costs two programs, not three, and the L2 changes
             * collection's steps add cost an L2 merge per quarter table
             * instead of an L1-level round each: DESIGN.md §4) */
            rc = sfs_merge_l1(fs, key, mode);
            if (!rc)
                fs->room.step = 0;
        }
    }
    if (rc && rc != SFS_NEED_CKPT && rc != SFS_NEED_ROOM)
        fs->room.step = 0;
    return rc;
}

/* The entry a make-room round starts from (its index in the table), or
 * SFS_NONE if no committed change is left to merge. */
static uint32_t room_pick(const steadyfs *fs)
{
    uint32_t i, j, n2, cold;
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
        const struct sfs_pend *p = &fs->pend[i];
        int l2 = p->type == PT_L2, better;
        /* committed L1 changes and sizes go oldest first; a size goes
         * into its inode sector (which adds one L1 change) */
        if (p->type == PT_SIZE || p->type == PT_CHUNK ? (p->flags & PF_UNC) != 0
                                                      : !l2 && (p->type != PT_L1 || (p->flags & PF_UNC)))
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
    return j;
}

int sfs_make_room(steadyfs *fs, uint32_t need, sfs_mode mode)
{
    uint32_t j;
    int rc = room_steps(fs, mode);
    if (rc)
        return rc;
    /* one slot always stays spare for the L2 change an L1 merge adds */
    while (fs->npend + need + 1 > fs->cfg.pending_max) {
        j = room_pick(fs);
        if (j == SFS_NONE)
            return STEADYFS_ENOSPC;
        /* A round takes at least one L1-level entry away in at most two
         * programs (a size goes into its inode sector, which adds an L1
         * change; when that left the count as it was, the inode's L1
         * sector is merged at once), adding at most one L2 change; or it
         * merges an L2 sector, chosen only with a quarter of the table
         * L2 changes (or a cold one, or nothing else to merge), which
         * takes them all.  steadyfs_bound counts the rounds so
         * (bound.c rounds_of). */
        fs->room.n0 = (uint16_t)fs->npend;
        if (fs->pend[j].type == PT_SIZE || fs->pend[j].type == PT_CHUNK) {
            fs->room.step = ROOM_SIZE;
            fs->room.key = fs->pend[j].key;
        } else {
            fs->room.step = fs->pend[j].type == PT_L2 ? ROOM_L2 : ROOM_L1;
            fs->room.key = fs->pend[j].key / fs->geo.e1;
        }
        rc = room_steps(fs, mode);
        if (rc)
            return rc;
    }
    return 0;
}

#if STEADYFS_ERASELESS_MEDIA
/* The map word a merge of p's sector would read before the sector (the L2
 * word of the L1 sector; for a size or chunk entry, then the L1 word of its
 * inode sector), if no pending change or cached word holds it: read it
 * alone (1), or 0 if none is needed. */
static int words_first(steadyfs *fs, const struct sfs_pend *p)
{
    uint32_t lpn = p->type == PT_L1 ? SFS_NONE : sfs_shared_lpn(fs, p->key, 0), m, place;
    int rc;
    m = (lpn == SFS_NONE ? p->key : lpn) / fs->geo.e1;
    if (!sfs_pend_find(fs, PT_L2, m, 0) && fs->root[m / fs->geo.e1] != SFS_NONE && !sfs_xc_has(fs, 1, m))
        rc = sfs_l1_locate(fs, m, &place);
    else if (lpn != SFS_NONE && !sfs_pend_find(fs, PT_L1, lpn, 0) && !sfs_xc_has(fs, 0, lpn))
        rc = sfs_lookup(fs, lpn, 0, &place);
    else
        return 0;
    return rc ? rc : 1;
}

int sfs_room_step(steadyfs *fs, uint32_t need, sfs_mode mode)
{
    uint32_t j;
    int rc;
    if (fs->npend + need + 1 <= fs->cfg.pending_max || (j = room_pick(fs)) == SFS_NONE)
        return 0;   /* (none to merge: the next sector's own round says ENOSPC) */
    /* On MRAM a merge with a word read before it beside a record passed
     * 0.2 ms: the word alone now (a small read), the merge in the next
     * light call */
    if (fs->pend[j].type != PT_L2 && sfs_runs_offered(fs) && (rc = words_first(fs, &fs->pend[j])) != 0)
        return rc;
    if (fs->pend[j].type == PT_SIZE || fs->pend[j].type == PT_CHUNK)
        rc = size_merge(fs, fs->pend[j].key, mode);
    else if (fs->pend[j].type == PT_L2)
        rc = sfs_merge_l2(fs, fs->pend[j].key / fs->geo.e1, mode);
    else
        rc = sfs_merge_l1(fs, fs->pend[j].key / fs->geo.e1, mode);
    return rc ? rc : 1;
}
#endif

void sfs_abort(steadyfs *fs, int any, uint16_t owner, uint32_t txn)
{
    uint32_t i;
    fs->cache.dc_dir = 0;   /* a directory edit may be undone */
    for (i = 0; i < fs->npend;) {
        struct sfs_pend *p = &fs->pend[i];
        if ((p->flags & PF_UNC) && (any || (p->owner == owner && p->txn == txn))) {
            uint32_t lpn = p->key, cur = SFS_NONE, ino = inode_of(fs, lpn);
            if (p->type == PT_CHUNK) {
                /* the chunk it took is free again */
                sfs_bit_set(fs->chunk.used, p->ppn & 0xFFFFu, 0);
                sfs_pend_del(fs, p);
                continue;
            }
            sfs_count_dec(fs, p->ppn);
            sfs_pend_del(fs, p);
            if (ino && sfs_lookup(fs, lpn, 0, &cur) == 0) {
                /* an aborted create leaves its inode number free again */
                sfs_tag t;
                sfs_inode in;
                if (cur == SFS_NONE || sfs_rd_sector(fs, cur, fs->buf, &t) < 0 ||
                    sfs_inode_unpack(fs, fs->buf, &in) != 0)
                    sfs_bit_set(fs->ibm, ino, 0);
            }
            continue;
        }
        i++;
    }
}

int sfs_write_lpn(steadyfs *fs, uint32_t lpn, uint16_t owner, uint32_t *txn, uint8_t flags,
                  uint32_t old_hint, uint32_t *ppn_out)
{
    return sfs_write_page(fs, lpn, 0, owner, txn, flags, 0, old_hint, ppn_out);
}

/* The tag of a data sector of (owner, *txn), which starts the
 * transaction if it has none yet. */
static void data_tag(const steadyfs *fs, sfs_tag *t, uint32_t lpn, uint32_t fpage, uint16_t owner, uint32_t *txn,
                     uint8_t flags, uint32_t aux)
{
    memset(t, 0, sizeof *t);
    t->kind = TK_DATA;
    t->key = lpn;
    t->fpage = (uint16_t)fpage;
    t->owner = owner;
    t->flags = flags;
    t->aux = aux;
    if (!*txn)
        *txn = (uint32_t)fs->log.seq ? (uint32_t)fs->log.seq : 1u;
    t->txn = *txn;
}

int sfs_write_page(steadyfs *fs, uint32_t lpn, uint32_t fpage, uint16_t owner, uint32_t *txn,
                   uint8_t flags, uint32_t aux, uint32_t old_hint, uint32_t *ppn_out)
{
    sfs_tag t;
    uint32_t ppn;
    int rc;
    data_tag(fs, &t, lpn, fpage, owner, txn, flags, aux);
    rc = sfs_log_prog(fs, fs->buf, &t, &ppn);
    if (rc)
        return rc;
    rc = sfs_apply_data(fs, &t, ppn, old_hint);
    if (ppn_out)
        *ppn_out = ppn;
    return rc;
}

int sfs_write_run(steadyfs *fs, const uint32_t *lpn, uint32_t fpage, uint16_t owner, uint32_t *txn,
                  const uint8_t *flags, uint32_t aux, const uint32_t *hint, const uint8_t *src, uint32_t n)
{
    sfs_tag t[SFS_RUN_MAX];
    uint32_t ppn[SFS_RUN_MAX], i;
    int rc;
    for (i = 0; i < n; i++)
        data_tag(fs, &t[i], lpn[i], fpage + i, owner, txn, flags[i], i + 1 == n ? aux : 0u);
    rc = sfs_log_prog_run(fs, src, t, n, ppn);
    /* applied in program order, as replay applies them: a commit in the
     * last one takes the others with it */
    for (i = 0; !rc && i < n; i++)
        rc = sfs_apply_data(fs, &t[i], ppn[i], hint[i]);
    return rc;
}

/* Before a data sector is built in fs->buf: make room in the pending
 * table and make sure the head has a free sector.  more: the changes of
 * the sectors that follow it in one run (sfs_write_run). */
int sfs_prep(steadyfs *fs, uint32_t more, sfs_mode mode)
{
    int rc;
    for (;;) {
        /* room for the sector's change and a commit's kill (three) */
        rc = sfs_make_room(fs, 4 + more, mode);
        if (!rc)
            rc = sfs_log_reserve(fs, mode);
        /* a collection inside the reserve may have used pending room */
        if (rc || fs->npend + 5 + more <= fs->cfg.pending_max)
            return rc;
    }
}
