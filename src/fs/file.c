/* Files: handles, read, write, truncate and the commit (sync).
 *
 * Page 0 of inode X and its inode sector are in X's block of the shared
 * table; pages i >= 1 are in the chunks its inode sector lists (SPEC §3,
 * §5).  Writing the inode sector with the COMMIT flag is what commits the
 * file's transaction: data sectors written since the last commit become
 * the file's committed content in the same instant as its new size. */
#include <stddef.h>

#include "fs/fs_internal.h"

static uint32_t pending_chunk(steadyfs *fs, uint32_t ino, uint32_t slot)
{
    return sfs_chunk_entry(fs, ino, slot, 1);
}


static uint32_t npages(const steadyfs *fs, uint64_t size);

/* The held sector (cfg.hold_buf): file ino's page pg as the last write
 * left it, not programmed yet.  It stands for the program the write put
 * off -- paced, its live room and its place in the transaction counted by
 * that write -- so whoever programs it later adds only the program: the
 * sync after it (the commit in its tag: no inode sector), or the next
 * write, close or truncate that must leave it.  A held sector that takes
 * a chunk (TF_NEWCHUNK) has it by the hold alone until its program
 * records it: slot_chunk() gives it for its slot and sfs_chunk_find()
 * passes it by. */
static int held(const steadyfs *fs, uint32_t ino, uint32_t pg)
{
    return STEADYFS_WITH_HOLD && fs->hold.ino && fs->hold.ino == ino && fs->hold.pg == pg;
}

static int hold_of(const steadyfs *fs, uint32_t ino)
{
    return STEADYFS_WITH_HOLD && fs->hold.ino && fs->hold.ino == ino;
}

/* A write may hold its last sector (not without the build option). */
static int may_hold(const steadyfs *fs)
{
    return STEADYFS_WITH_HOLD && fs->cfg.hold_buf;
}

/* The chunk the held sector takes, or SFS_NONE. */
static uint32_t held_chunk(const steadyfs *fs)
{
    return STEADYFS_WITH_HOLD && fs->hold.ino && (fs->hold.flags & TF_NEWCHUNK)
               ? (fs->hold.lpn - fs->geo.cbase) / fs->geo.C
               : SFS_NONE;
}

/* Handle p's chunk window: geo.cwin chunk numbers from slot p->cw_base. */
static uint16_t *cw_of(steadyfs *fs, const struct sfs_open *p)
{
    return fs->chunk_win + (uint32_t)(p - fs->open) * fs->geo.cwin;
}

/* Handle dst takes src's file state (the struct and its chunk window,
 * which lives beside it). */
static void take_state(steadyfs *fs, struct sfs_open *dst, const struct sfs_open *src)
{
    *dst = *src;
    memcpy(cw_of(fs, dst), cw_of(fs, src), 2u * fs->geo.cwin);
}

/* Forget the chunks the handle knows (a shrink changes them). */
static void cw_drop(steadyfs *fs, struct sfs_open *p)
{
    uint16_t *cw = cw_of(fs, p);
    uint32_t i;
    for (i = 0; i < fs->geo.cwin; i++)
        cw[i] = CHUNK_UNKNOWN;
}

/* The chunk of slot `slot` of the file (primary handle p): the window the
 * handle knows, a pending chunk entry, nothing for a slot wholly past the
 * end (a shrink clears the slots it cuts, a write past the end moves the
 * end: an append into a new slot reads nothing), else the window of
 * geo.cwin slots around it from the inode sector (one small read). */
static int slot_chunk(steadyfs *fs, struct sfs_open *p, uint32_t slot, uint32_t *c)
{
    uint32_t w[SFS_CWIN_MAX / 2], i, base, ippn, n, win = fs->geo.cwin;
    uint16_t *cw = cw_of(fs, p);
    int rc;
    if (slot - p->cw_base < win && cw[slot - p->cw_base] != CHUNK_UNKNOWN) {
        *c = cw[slot - p->cw_base];
        return 0;
    }
    if (hold_of(fs, p->ino) && fs->hold.pg / fs->geo.C == slot && held_chunk(fs) != SFS_NONE) {
        *c = held_chunk(fs);
        return 0;
    }
    *c = pending_chunk(fs, p->ino, slot);
    if (*c == CHUNK_NONE && (slot ? slot * fs->geo.C : 1u) >= npages(fs, p->size))
        return 0;
    if (*c != CHUNK_NONE) {
        if (slot - p->cw_base < win)
            cw[slot - p->cw_base] = (uint16_t)*c;
        return 0;
    }
    base = slot & ~(win - 1u);
    n = base + win <= fs->geo.cmax ? win : fs->geo.cmax - base;
    rc = sfs_lookup(fs, sfs_shared_lpn(fs, p->ino, 0), 1, &ippn);
    if (rc || ippn == SFS_NONE)
        return rc ? rc : STEADYFS_ECORRUPT;
    rc = sfs_rd_words_live(fs, ippn, (SFS_INODE_HDR + 2 * base) / 4, (n + 1u) / 2u, w);
    if (rc)
        return rc;
    cw_drop(fs, p);
    p->cw_base = (uint16_t)base;
    for (i = 0; i < n; i++) {
        uint32_t e = pending_chunk(fs, p->ino, base + i);
        cw[i] = (uint16_t)(e != CHUNK_NONE ? e
                                           : sfs_chunk_dec(fs, p->ino, base + i,
                                                           i & 1u ? w[i / 2] >> 16 : w[i / 2] & 0xFFFFu));
        if (cw[i] != CHUNK_NONE && cw[i] >= fs->geo.n_c) {
            cw[i] = CHUNK_UNKNOWN;   /* (asked again, it is read again) */
            return STEADYFS_ECORRUPT;
        }
        /* the slot whose chunk only the held sector has taken: neither
         * the inode sector nor a pending entry lists it yet, so it stays
         * unknown here (asked again, the hold answers; cached as none, the
         * next write there would take a second chunk for the slot and
         * leak the first with the held page's data) */
        if (hold_of(fs, p->ino) && fs->hold.pg / fs->geo.C == base + i && held_chunk(fs) != SFS_NONE)
            cw[i] = CHUNK_UNKNOWN;
    }
    *c = cw[slot - base];
    return 0;
}

/* Logical page of page pg of the file (primary handle p), or SFS_NONE (a
 * hole in a chunk not taken).  alloc: take a free chunk for it (*flags
 * gets TF_NEWCHUNK: the sector's tag records it). */
static int page_lpn(steadyfs *fs, struct sfs_open *p, uint32_t pg, int alloc, uint32_t *lpn,
                    uint8_t *flags)
{
    uint32_t c;
    int rc;
    if (pg == 0) {
        *lpn = sfs_shared_lpn(fs, p->ino, 1);
        return 0;
    }
    if (pg >= fs->geo.maxpg)
        return STEADYFS_EFBIG;
    rc = slot_chunk(fs, p, pg / fs->geo.C, &c);
    if (!rc && c == CHUNK_NONE && alloc) {
        rc = sfs_chunk_find(fs, &c, held_chunk(fs));
        *flags |= TF_NEWCHUNK;
        /* known once the sector that takes it is written (a pending
         * chunk entry until the inode sector is) */
        if (pg / fs->geo.C - p->cw_base < fs->geo.cwin)
            cw_of(fs, p)[pg / fs->geo.C - p->cw_base] = CHUNK_UNKNOWN;
    }
    if (rc)
        return rc;
    *lpn = c == CHUNK_NONE ? SFS_NONE : sfs_chunk_lpn(fs, c, pg);
    return 0;
}

/* The sector page pg of the file (primary handle p) is in now, or
 * SFS_NONE (a hole); *lpn its logical page. */
static int page_ppn(steadyfs *fs, struct sfs_open *p, uint32_t pg, uint32_t *lpn, uint32_t *ppn)
{
    uint8_t nf = 0;
    int rc = page_lpn(fs, p, pg, 0, lpn, &nf);
    *ppn = SFS_NONE;
    if (!rc && *lpn != SFS_NONE)
        rc = sfs_lookup(fs, *lpn, 1, ppn);
    return rc;
}

struct sfs_open *sfs_handle(steadyfs *fs, int fd, uint8_t kind)
{
    if (fd < 0 || (uint32_t)fd >= fs->cfg.open_max || !fs->open[fd].ino ||
        fs->open[fd].kind != kind)
        return NULL;
    return &fs->open[fd];
}

static uint32_t txn_entries(steadyfs *fs, uint32_t ino)
{
    uint32_t i, n = 0;
    for (i = 0; i < fs->npend; i++)
        n += (fs->pend[i].flags & PF_UNC) && fs->pend[i].owner == ino;
    return n;
}

/* The file's transaction just committed: its working state is durable. */
static void committed(struct sfs_open *p)
{
    p->csize = p->size;
    p->txn = 0;
    p->dirty = 0;
}

/* Program the held sector: with commit, as its file's commit (the size in
 * its tag, SPEC §2 SIZE), or as an uncommitted sector of its file's
 * transaction.  It stays held if the program fails. */
static int hold_flush(steadyfs *fs, int commit)
{
    struct sfs_open *p;
    int rc;
    if (!STEADYFS_WITH_HOLD || !fs->hold.ino)
        return 0;
    p = sfs_primary(fs, fs->hold.ino);
    if (!p) {   /* cannot be: dropped at its file's last close */
        fs->hold.ino = 0;
        return STEADYFS_ECORRUPT;
    }
    do {
        rc = sfs_room(fs, 0, fs->rm);
        if (rc)
            return rc;
        fs->cache.buf_ppn = SFS_NONE;
        memcpy(fs->buf, fs->cfg.hold_buf, fs->geo.payload);
        rc = sfs_write_page(fs, fs->hold.lpn, fs->hold.pg, (uint16_t)p->ino, &p->txn,
                            (uint8_t)(fs->hold.flags | (commit ? TF_COMMIT | TF_SIZE : 0)),
                            commit ? (uint32_t)p->size : 0, fs->hold.hint, NULL);
    } while (rc == SFS_RETRY);
    if (rc)
        return rc;
    fs->hold.ino = 0;
    if (commit)
        committed(p);
    return 0;
}

/* A write or shrink: mtime and ctime become now (stored at the commit). */
static void touched(steadyfs *fs, struct sfs_open *p)
{
    p->mtime = sfs_now(fs);
    p->tdirty = 1;
}

/* The field of each SFS_SET_ bit (bit 4, STEADYFS_ATTR_MTIME_NOW, none). */
static const uint8_t setf[8][2] = {
    {offsetof(sfs_inode, mode), 2},  {offsetof(sfs_inode, uid), 4},
    {offsetof(sfs_inode, gid), 4},   {offsetof(sfs_inode, mtime), 8},
    {0, 0},                          {offsetof(sfs_inode, size), 8},
    {offsetof(sfs_inode, ctime), 8}, {offsetof(sfs_inode, parent), 4},
};

int sfs_inode_edit(steadyfs *fs, uint32_t ino, const sfs_inode *set, uint32_t mask,
                   uint16_t owner, uint32_t *txn, uint8_t flags, uint32_t *ppn)
{
    sfs_inode in;
    uint32_t i;
    int rc;
    do {
        rc = sfs_room(fs, 0, fs->rm);
        /* after prep, which may use the buffer: a symlink's target, a
         * file's chunk list (with the pending entries this sector takes in:
         * its commit drops them) */
        if (!rc)
            rc = sfs_inode_read(fs, ino, 1, &in, NULL);
        if (rc)
            return rc;
        if (in.type == STEADYFS_TYPE_FILE) {
            sfs_inode_chunks(fs, ino, owner, *txn);
            /* a shrink (SFS_SET_CUT): the chunks of the pages it removes
             * leave the list (the kill that commits it makes them dying) */
            for (i = (mask & SFS_SET_CUT) ? (uint32_t)set->parent : fs->geo.cmax; i < fs->geo.cmax; i++)
                fs->buf[SFS_INODE_HDR + 2 * i] = fs->buf[SFS_INODE_HDR + 2 * i + 1] = 0xFFu;
        }
        for (i = 0; i < 8; i++)
            if (mask >> i & 1u)
                memcpy((uint8_t *)&in + setf[i][0], (const uint8_t *)set + setf[i][0], setf[i][1]);
        sfs_inode_pack(fs, fs->buf, &in);
        rc = sfs_write_lpn(fs, sfs_shared_lpn(fs, ino, 0), owner, txn, flags, SFS_UNKNOWN, ppn);
    } while (rc == SFS_RETRY);
    return rc;
}

/* Write the inode sector with COMMIT; or, with a kill of the pages from
 * `kill_pg` on (a shrink), without, and commit by a checkpoint
 * (sfs_commit_kill).  Mode, owner and ctime stay as committed (read back:
 * keeping them in every handle would cost RAM). */
static int commit_sector(steadyfs *fs, struct sfs_open *p, uint32_t kill_pg)
{
    sfs_inode set;
    uint32_t ppn;
    int rc = sfs_gc_pace(fs, fs->rm, 1);   /* its one sector */
    if (rc)
        return rc;
    set.size = p->size;
    set.mtime = set.ctime = p->mtime;
    set.parent = kill_pg == SFS_NONE ? 0 : sfs_first_dead_slot(fs, kill_pg);
    rc = sfs_inode_edit(fs, p->ino, &set,
                        SFS_SET_SIZE | (p->tdirty ? SFS_SET_MTIME | SFS_SET_CTIME : 0u) |
                            (kill_pg == SFS_NONE ? 0u : SFS_SET_CUT),
                        (uint16_t)p->ino, &p->txn, kill_pg == SFS_NONE ? TF_COMMIT : 0, &ppn);
    if (!rc && kill_pg != SFS_NONE)
        rc = sfs_commit_kill(fs, (uint16_t)p->ino, p->txn, p->ino, kill_pg, SFS_KILL_FROM, 0);
    if (rc)
        return rc;
    p->ino_ppn = ppn;
    p->tdirty = 0;
    committed(p);
    return 0;
}

/* Commit the file now: in the tag of its held sector if it has one, else
 * by its inode sector. */
static int commit_now(steadyfs *fs, struct sfs_open *p)
{
    return hold_of(fs, p->ino) ? hold_flush(fs, 1) : commit_sector(fs, p, SFS_NONE);
}

int sfs_file_commit(steadyfs *fs, struct sfs_open *o, int times)
{
    struct sfs_open *p = sfs_primary(fs, o->ino);
    /* times alone (O_DSYNC writes committed data and size in their tags):
     * stored at close, so a logger's sync after each record stays free */
    int rc;
    if (!p || !(p->dirty | (p->tdirty & times)))
        return 0;
    /* a close that stores the times: the held sector goes uncommitted,
     * the inode sector commits both; else the held sector commits */
    if (hold_of(fs, p->ino) && !(p->tdirty & times))
        return hold_flush(fs, 1);
    rc = hold_of(fs, p->ino) ? hold_flush(fs, 0) : 0;
    if (!rc)
        rc = commit_sector(fs, p, SFS_NONE);
    /* only the times left to store, and no room (a device that even
     * commits cannot write): data and size are committed, the times are
     * dropped rather than failing the close (steadyfs.h) */
    return rc == STEADYFS_ENOSPC && !p->dirty ? 0 : rc;
}

static uint32_t npages(const steadyfs *fs, uint64_t size)
{
    return (uint32_t)((size + fs->geo.payload - 1) / fs->geo.payload);
}

/* Sector ppn of page pg of file ino, logical page lpn, into fs->buf (>=
 * 0, as sfs_rd_sector), or EIO where the page's bytes are gone
 * (uncorrectable, a lost page's copy: gc.c read_live) or the sector is
 * not that page's: a read returns the page's bytes or fails, never other
 * bytes.  Its tag names the page (key), the file page and whose it is (a
 * committed collection copy in its txn, TF_OWNED): a chunk number a
 * damaged inode sector's list hands back unchecked (a small read on NOR
 * and MRAM) names another chunk, whose pages carry their own keys. */
static int read_page(steadyfs *fs, uint32_t ppn, uint32_t lpn, uint32_t ino, uint32_t pg)
{
    sfs_tag t;
    int rc = sfs_rd_live(fs, ppn, fs->buf, &t);
    /* (a copy that keeps no owner passes: a build before TF_OWNED made it) */
    if (rc >= 0 && (t.kind != TK_DATA || t.key != lpn || t.fpage != (uint16_t)pg ||
                    (sfs_tag_whose(&t) != ino && sfs_tag_whose(&t) != OWNER_GC)))
        rc = STEADYFS_EIO;
    return rc == STEADYFS_ECORRUPT ? STEADYFS_EIO : rc;
}

/* Shrink: zero the tail of the new last page, commit, unmap the rest. */
static int shrink(steadyfs *fs, struct sfs_open *p, uint64_t size)
{
    uint32_t off = (uint32_t)(size % fs->geo.payload), pg = (uint32_t)(size / fs->geo.payload), old, lpn;
    int rc, h;
    /* the held sector: below the cut it is programmed first, so that the
     * shrink commits it as it commits every pending write; the cut page's
     * is the source of the page rewritten; past the cut it is dropped */
    if (hold_of(fs, p->ino) && fs->hold.pg < pg && (rc = hold_flush(fs, 0)) != 0)
        return rc;
    h = held(fs, p->ino, pg) && off;
    if (hold_of(fs, p->ino) && !h)
        fs->hold.ino = 0;
    if (off) {
        do {
            rc = sfs_room(fs, 0, fs->rm);
            if (!rc)
                rc = page_ppn(fs, p, pg, &lpn, &old);
            if (rc)
                return rc;
            if (old == SFS_NONE && !h)
                break;
            fs->cache.buf_ppn = SFS_NONE;
            if (h) {
                memcpy(fs->buf, fs->cfg.hold_buf, fs->geo.payload);
            } else {
                rc = read_page(fs, old, lpn, p->ino, pg);
                if (rc < 0)
                    return rc;
                fs->cache.buf_ppn = SFS_NONE;
            }
            memset(fs->buf + off, 0, fs->geo.payload - off);
            rc = sfs_write_page(fs, lpn, pg, (uint16_t)p->ino, &p->txn, h ? fs->hold.flags : 0, 0,
                                SFS_UNKNOWN, NULL);
        } while (rc == SFS_RETRY);
        if (rc)
            return rc;
        if (h)
            fs->hold.ino = 0;
    }
    p->size = size;
    touched(fs, p);
    cw_drop(fs, p);   /* the cut may drop slots the handle knows */
    return commit_sector(fs, p, pg + (off != 0));   /* npages(fs, size) */
}

int steadyfs_close(steadyfs *fs, int fd)
{
    struct sfs_open *o;
    uint32_t i, ino;
    int last;
    int rc = sfs_begin(fs, 2);
    if (!rc)
        sfs_budget_arm(fs, STEADYFS_CALL_CLOSE, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o)
        return sfs_end(fs, STEADYFS_EBADF);
    fs->gc.erase_next = SFS_ERASE_NONE;   /* a rotation may follow: not before it */
    ino = o->ino;
    for (i = 0, last = 1; i < fs->cfg.open_max; i++)
        last &= &fs->open[i] == o || fs->open[i].ino != ino;
    if (last && sfs_is_orphan(fs, ino)) {
        /* the last handle of a file that has no name: it dies now (the
         * kill is committed by a checkpoint), its changes with it */
        sfs_abort(fs, 0, (uint16_t)ino, o->txn);
        if (hold_of(fs, ino))
            fs->hold.ino = 0;
        o->ino = 0;
        o->kind = 0;
        rc = sfs_reap(fs, ino, 0);
        return sfs_end(fs, rc < 0 ? rc : 0);
    }
    rc = sfs_file_commit(fs, o, 1);
    if (sfs_primary(fs, o->ino) == o) {
        /* hand the file state to another handle of the same file */
        for (i = 0; i < fs->cfg.open_max; i++) {
            struct sfs_open *q = &fs->open[i];
            if (q != o && q->ino == o->ino && q->kind == STEADYFS_TYPE_FILE) {
                uint64_t pos = q->pos;
                uint8_t acc = q->acc;
                take_state(fs, q, o);
                q->pos = pos;
                q->acc = acc;
                break;
            }
        }
        /* the last handle of a file whose commit failed: its changes are
         * dropped (the file keeps its committed state), or their
         * uncommitted entries would hold the pending table for good */
        if (i == fs->cfg.open_max && rc) {
            sfs_abort(fs, 0, (uint16_t)o->ino, o->txn);
            if (hold_of(fs, o->ino))
                fs->hold.ino = 0;
        }
    }
    o->ino = 0;
    o->kind = 0;
    return sfs_end(fs, rc);
}

static int32_t read_call(steadyfs *fs, int fd, void *buf, uint32_t len)
{
    struct sfs_open *o, *p;
    uint8_t *dst = buf;
    uint32_t done = 0, n, off, ppn, lpn;
    int rc = sfs_begin(fs, 0);
    if (!rc)
        sfs_budget_arm(fs, STEADYFS_CALL_READ, len);
    if (rc)
        return rc;
    fs->log.erase_budget = 0;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o || (o->acc & STEADYFS_O_ACCMODE) == STEADYFS_O_WRONLY)
        return STEADYFS_EBADF;
    p = sfs_primary(fs, o->ino);
    while (done < len && o->pos < p->size) {
        uint32_t pg = (uint32_t)(o->pos / fs->geo.payload);
        off = (uint32_t)(o->pos % fs->geo.payload);
        n = fs->geo.payload - off;
        if (n > len - done)
            n = len - done;
        if (n > p->size - o->pos)
            n = (uint32_t)(p->size - o->pos);
        if (held(fs, p->ino, pg)) {
            memcpy(dst + done, (const uint8_t *)fs->cfg.hold_buf + off, n);
            done += n;
            o->pos += n;
            continue;
        }
        rc = page_ppn(fs, p, pg, &lpn, &ppn);
        if (rc)
            return rc;
        if (ppn == SFS_NONE) {
            memset(dst + done, 0, n);
        } else {
            rc = read_page(fs, ppn, lpn, p->ino, pg);
            if (rc < 0)
                return rc;
            memcpy(dst + done, fs->buf + off, n);
        }
        done += n;
        o->pos += n;
    }
    return (int32_t)done;
}

int32_t steadyfs_read(steadyfs *fs, int fd, void *buf, uint32_t len)
{
    int32_t rc = read_call(fs, fd, buf, len);
    sfs_budget_end(fs);
    return rc;
}

int32_t steadyfs_write(steadyfs *fs, int fd, const void *buf, uint32_t len)
{
    struct sfs_open *o, *p;
    const uint8_t *src = buf;
    uint32_t done = 0, n, off, pg, old, hint, lpn, paced = 0;
    uint64_t end;
    uint8_t nf;
    int commit;
    sfs_end_kind kind;
    int rc = sfs_begin(fs, 1);
    if (rc)
        return rc;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o || (o->acc & STEADYFS_O_ACCMODE) == STEADYFS_O_RDONLY)
        return sfs_end(fs, STEADYFS_EBADF);
    sfs_budget_arm(fs, o->acc & SFS_ACC_DSYNC ? STEADYFS_CALL_WRITE_DSYNC : STEADYFS_CALL_WRITE,
                   len);
    p = sfs_primary(fs, o->ino);
    if (o->acc & SFS_ACC_APPEND)
        o->pos = p->size;
    if (len && (rc = sfs_write_start_erase(fs, len, o->pos + len)) < 0)
        return sfs_end(fs, rc);
    kind = o->pos == p->size ? SFS_END_APPEND : SFS_END_CALL;
    /* the held sector, unless this write starts in it, is programmed
     * first: one sector is held at a time, and it is the last one's */
    if (len && STEADYFS_WITH_HOLD && fs->hold.ino && !held(fs, p->ino, (uint32_t)(o->pos / fs->geo.payload)) &&
        (rc = hold_flush(fs, 0)) != 0)
        return sfs_end(fs, rc);
    while (done < len) {
        uint32_t run, lpns[SFS_RUN_MAX], hints[SFS_RUN_MAX], n1;
        pg = (uint32_t)(o->pos / fs->geo.payload);
        off = (uint32_t)(o->pos % fs->geo.payload);
        n1 = fs->geo.payload - off;
        if (n1 > len - done)
            n1 = len - done;
        if (pg >= fs->geo.maxpg) {
            rc = STEADYFS_EFBIG;
            break;
        }
        rc = sfs_live_room(fs, 2 + SFS_RM_ROOM, fs->rm);
        if (rc)
            break;
        /* The documented implicit commit.  A write that fits a
         * transaction but could take the file's past txn_max commits the
         * file at its start (steadyfs.h: as if steadyfs_sync() had been
         * called just before it), not between two of its own pages, so a
         * cut leaves the file as it was between two calls.  A write that
         * alone needs more than a transaction holds commits partway
         * anyway: as before, when the changes reach txn_max.  What the
         * pages before its last may add: each its own change, and a chunk
         * change for each chunk they take, b pages lying in at most
         * (b - 1) / C + 2 chunks. */
        {
            /* (a held sector adds its change when programmed, and its
             * chunk's if it takes one) */
            uint32_t e = txn_entries(fs, o->ino) +
                         (hold_of(fs, o->ino) ? (held_chunk(fs) != SFS_NONE ? 2u : 1u) : 0u),
                     more = 0;
            if (!done && e) {
                uint32_t before = (uint32_t)(((uint64_t)off + len - 1u) / fs->geo.payload);
                uint32_t chunks = before ? (before - 1u) / fs->geo.C + 2u : 0u;
                more = before + (chunks < before ? chunks : before);
            }
            if (e >= fs->geo.txn_max || (more < fs->geo.txn_max && e + more >= fs->geo.txn_max)) {
                rc = commit_now(fs, p);
                if (rc)
                    break;
            }
        }
        /* A run: the next SFS_RUN_MAX pages whole, straight from the
         * caller's memory, in one device program (media without erase
         * whose device takes gathered programs: sfs_run_fits).  What each
         * sector needs is what it needs alone -- a pace call each, paid
         * before the head is reserved, live room, its pending entry --
         * and the head must offer the slots in a row (sfs_log_run_ok);
         * where it does not, the first page goes alone and the pace
         * paid ahead (paced) is the second's. */
        /* (with the held sector configured a run leaves a write's last
         * sector out: it is held, and the sync after it commits in it) */
        run = !off && len - done >= SFS_RUN_MAX * fs->geo.payload + (may_hold(fs) && !(o->acc & SFS_ACC_DSYNC)) &&
              pg + SFS_RUN_MAX <= fs->geo.maxpg &&
              !sfs_live_over(fs, SFS_RUN_MAX + 1u + SFS_RM_ROOM) &&
              txn_entries(fs, o->ino) + SFS_RUN_MAX <= fs->geo.txn_max &&
              sfs_runs_offered(fs) ? SFS_RUN_MAX : 1u;
        for (n = paced ? 1u : 0u; n < run; n++) {
            rc = sfs_gc_pace(fs, fs->rm, SFS_DEBT_STEP);
            if (rc)
                break;
        }
        if (rc)
            break;
        paced = run - 1u;
        do {
            n = n1;
            end = o->pos + n > p->size ? o->pos + n : p->size;
            /* O_DSYNC: the call's last sector carries the commit and the size */
            commit = (o->acc & SFS_ACC_DSYNC) && done + n == len;
            rc = sfs_room(fs, run - 1u, fs->rm);
            /* after prep (a trim step or collection may run in it): the
             * chunk, taken now if the page's slot has none */
            nf = 0;
            if (!rc)
                rc = page_lpn(fs, p, pg, 1, &lpn, &nf);
            if (rc)
                break;
            if (held(fs, p->ino, pg))   /* its program takes the chunk it holds */
                nf |= fs->hold.flags;
            hint = pg >= npages(fs, p->csize) || (nf & TF_NEWCHUNK) ? SFS_NONE : SFS_UNKNOWN;
            if (run > 1u) {
                /* the second page: in the chunk the first just took if
                 * they share its slot, else in one the file has (two
                 * pages taking chunks would take the same) */
                uint8_t nf2 = 0, fl[SFS_RUN_MAX];
                if (nf && lpn != SFS_NONE && (pg + 1u) / fs->geo.C == pg / fs->geo.C && pg)
                    lpns[1] = lpn + 1u;
                else if (nf)
                    lpns[1] = SFS_NONE;
                else if ((rc = page_lpn(fs, p, pg + 1u, 0, &lpns[1], &nf2)) != 0)
                    break;
                if (lpns[1] != SFS_NONE && sfs_log_run_ok(fs, SFS_RUN_MAX)) {
                    lpns[0] = lpn;
                    hints[0] = hint;
                    hints[1] = pg + 1u >= npages(fs, p->csize) || nf ? SFS_NONE : SFS_UNKNOWN;
                    n = SFS_RUN_MAX * fs->geo.payload;
                    end = o->pos + n > p->size ? o->pos + n : p->size;
                    commit = (o->acc & SFS_ACC_DSYNC) && done + n == len;
                    fl[0] = nf;
                    fl[1] = (uint8_t)(commit ? TF_COMMIT | TF_SIZE : 0);
                    if (held(fs, p->ino, pg))   /* whole pages: it is replaced */
                        fs->hold.ino = 0;
                    rc = sfs_write_run(fs, lpns, pg, (uint16_t)o->ino, &p->txn, fl, commit ? (uint32_t)end : 0,
                                       hints, src + done, SFS_RUN_MAX);
                    paced = 0;
                    continue;
                }
            }
            fs->cache.buf_ppn = SFS_NONE;
            if (held(fs, p->ino, pg)) {
                memcpy(fs->buf, fs->cfg.hold_buf, fs->geo.payload);
            } else if (off || (n < fs->geo.payload && o->pos + n < p->size)) {
                rc = sfs_lookup(fs, lpn, 1, &old);
                if (rc)
                    break;
                if (old == SFS_NONE || (uint64_t)pg * fs->geo.payload >= p->size) {
                    memset(fs->buf, 0, fs->geo.payload);
                } else {
                    rc = read_page(fs, old, lpn, p->ino, pg);
                    if (rc < 0)
                        break;
                }
            } else {
                memset(fs->buf + n, 0, fs->geo.payload - n);
            }
            memcpy(fs->buf + off, src + done, n);
            if (may_hold(fs) && !commit && done + n == len) {
                /* the write's last sector is held, not programmed */
                memcpy(fs->cfg.hold_buf, fs->buf, fs->geo.payload);
                fs->hold.ino = (uint16_t)p->ino;
                fs->hold.pg = pg;
                fs->hold.lpn = lpn;
                fs->hold.hint = hint;
                fs->hold.flags = nf;
                kind = SFS_END_HELD;   /* the sync that programs it is the light call */
                rc = 0;   /* (the read-back above left a byte count in it) */
                break;
            }
            rc = sfs_write_page(fs, lpn, pg, (uint16_t)o->ino, &p->txn,
                                (uint8_t)(nf | (commit ? TF_COMMIT | TF_SIZE : 0)),
                                commit ? (uint32_t)end : 0, hint, NULL);
            if (!rc && held(fs, p->ino, pg))
                fs->hold.ino = 0;
        } while (rc == SFS_RETRY);
        if (rc)
            break;
        done += n;
        o->pos += n;
        p->size = end;
        if (commit)
            committed(p);
        else
            p->dirty = 1;
    }
    if (done && !(o->acc & SFS_ACC_NOMTIME))
        touched(fs, p);   /* one clock reading per call */
    /* An error after some pages (a transient read error of a page read
     * back, no room): a short write of the bytes done, as steadyfs.h says,
     * with the position past them, so a caller that writes the rest next
     * writes it where it belongs; an O_DSYNC write commits what it wrote.
     * (Until the twenty-eighth session an EIO there was returned as EIO
     * with the position moved on and the pages written, which the next
     * sync or close committed: an appender retrying the record wrote its
     * first pages twice.)  EIO only where the device is gone (a power cut:
     * nothing more is written), or where an O_DSYNC write's commit failed:
     * then nothing of it is durable, and the caller must see the error. */
    if ((o->acc & SFS_ACC_DSYNC) && p->dirty && (rc != STEADYFS_EIO || !fs->dead)) {
        int rc2 = commit_now(fs, p);
        if (rc2) {
            rc = rc2;
            done = 0;
        }
    }
    if (done && (rc != STEADYFS_EIO || !fs->dead))
        rc = 0;
    /* (a short write, an error after some pages, is never light: its
     * bound is an aligned write's or one that is never light, bound.c
     * write_lights) */
    rc = sfs_end_write(fs, rc, done < len ? SFS_END_SHORT : kind);
    /* (the end of the call's housekeeping -- a merge, collection's pace --
     * may fail where the device returns no bytes; the bytes done stand,
     * with the position past them, as above) */
    if (done && !fs->dead)
        rc = 0;
    return rc ? rc : (int32_t)done;
}

int64_t steadyfs_seek(steadyfs *fs, int fd, int64_t off, int whence)
{
    struct sfs_open *o;
    int64_t base;
    int rc = sfs_begin(fs, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o)
        return STEADYFS_EBADF;
    base = whence == STEADYFS_SEEK_SET ? 0
         : whence == STEADYFS_SEEK_CUR ? (int64_t)o->pos
         : whence == STEADYFS_SEEK_END ? (int64_t)sfs_primary(fs, o->ino)->size : -1;
    if (base < 0 || base + off < 0)
        return STEADYFS_EINVAL;
    o->pos = (uint64_t)(base + off);
    return (int64_t)o->pos;
}

int64_t steadyfs_tell(steadyfs *fs, int fd) { return steadyfs_seek(fs, fd, 0, STEADYFS_SEEK_CUR); }

int64_t steadyfs_size(steadyfs *fs, int fd)
{
    struct sfs_open *o;
    int rc = sfs_begin(fs, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o)
        return STEADYFS_EBADF;
    return (int64_t)sfs_primary(fs, o->ino)->size;
}

int steadyfs_truncate(steadyfs *fs, int fd, uint64_t size)
{
    struct sfs_open *o, *p;
    int rc = sfs_begin(fs, 2);
    if (!rc)
        sfs_budget_arm(fs, STEADYFS_CALL_TRUNCATE, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o || (o->acc & STEADYFS_O_ACCMODE) == STEADYFS_O_RDONLY)
        return sfs_end(fs, STEADYFS_EBADF);
    p = sfs_primary(fs, o->ino);
    if (size > (uint64_t)fs->geo.maxpg * fs->geo.payload)
        return sfs_end(fs, STEADYFS_EFBIG);
    if (size > p->size) {
        p->size = size;
        p->dirty = 1;
        touched(fs, p);
    } else if (size < p->size || (size < p->csize)) {
        rc = shrink(fs, p, size);
    }
    return sfs_end(fs, rc);
}

int steadyfs_sync(steadyfs *fs, int fd)
{
    struct sfs_open *o;
    sfs_end_kind kind;
    int rc = sfs_begin(fs, 2);
    if (!rc)
        sfs_budget_arm(fs, STEADYFS_CALL_SYNC, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o)
        return sfs_end(fs, STEADYFS_EBADF);
    /* A sync that programs the held last sector of an append ends the
     * record as an O_DSYNC append does: an optional erase waits for the
     * next write's start, so a logger's rotation coming first drops it */
    kind = hold_of(fs, o->ino) && o->pos == sfs_primary(fs, o->ino)->size ? SFS_END_APPEND : SFS_END_CALL;
    return sfs_end_write(fs, sfs_file_commit(fs, o, 0), kind);
}

int steadyfs_fstat(steadyfs *fs, int fd, steadyfs_stat *st)
{
    struct sfs_open *o;
    int rc = sfs_begin(fs, 0);
    if (rc)
        return rc;
    o = sfs_handle(fs, fd, STEADYFS_TYPE_FILE);
    if (!o)
        return STEADYFS_EBADF;
    /* mode and owner are in the inode sector only (a read, within the
     * bound of STEADYFS_CALL_STAT); size and times of the handle */
    return sfs_inode_stat(fs, o->ino, st);
}

/* A free handle slot, or NULL: open checks before it creates anything, so
 * a full table never leaves a new name behind. */
struct sfs_open *sfs_slot(steadyfs *fs)
{
    uint32_t i;
    for (i = 0; i < fs->cfg.open_max; i++)
        if (!fs->open[i].ino)
            return &fs->open[i];
    return NULL;
}

/* Open an existing inode as a file handle (ns.c resolved the path). */
int sfs_open_ino(steadyfs *fs, uint32_t ino, int flags)
{
    struct sfs_open *o = sfs_slot(fs), *p;
    sfs_inode in;
    uint32_t ppn;
    int rc;
    if (!o)
        return STEADYFS_ENFILE;
    p = sfs_primary(fs, ino);
    memset(o, 0, sizeof *o);
    if (p) {
        take_state(fs, o, p);
        o->pos = 0;
    } else {
        rc = sfs_inode_read(fs, ino, 1, &in, &ppn);
        if (rc)
            return rc;
        if (in.type != STEADYFS_TYPE_FILE)
            return in.type == STEADYFS_TYPE_DIR ? STEADYFS_EISDIR : STEADYFS_ELOOP;
        o->ino = ino;
        o->gen = in.gen;
        o->ino_ppn = ppn;
        cw_drop(fs, o);
        o->size = o->csize = in.size;
        o->mtime = in.mtime;
    }
    o->kind = STEADYFS_TYPE_FILE;
    o->ino = ino;
    o->acc = (uint8_t)((flags & STEADYFS_O_ACCMODE) | ((flags & STEADYFS_O_APPEND) ? SFS_ACC_APPEND : 0) |
                       ((flags & STEADYFS_O_DSYNC) ? SFS_ACC_DSYNC : 0) |
                       ((flags & STEADYFS_O_NOMTIME) ? SFS_ACC_NOMTIME : 0));
    if ((flags & STEADYFS_O_TRUNC) && (flags & STEADYFS_O_ACCMODE) != STEADYFS_O_RDONLY) {
        p = sfs_primary(fs, ino);
        if (p->size || p->csize) {
            rc = shrink(fs, p, 0);
            if (rc) {
                o->ino = 0;
                o->kind = 0;
                return rc;
            }
        }
    }
    return (int)(o - fs->open);
}
