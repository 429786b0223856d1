/* Kills and orphans (DESIGN.md §5).
 *
 * A kill is committed by a checkpoint, never by a tag: unlink, rmdir,
 * rename over an entry and a shrinking truncate write their sectors without
 * COMMIT, then the kill is applied in RAM and the checkpoint that follows is
 * the commit record.  What a kill does costs no map sector in the call: the
 * dead file's chunks become dying (trimmed later, chunk.c), its inode
 * sector and page 0 get "none" changes in the pending table; a directory's
 * shared block (inode and buckets) is trimmed in the call, one L1 sector,
 * whose program the kill's checkpoint commits. */
#include "fs/fs_internal.h"

void sfs_orphan_release(steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->orphans.n; i++)
        if (!ino || (fs->orphans.ino[i] & ~SFS_ORPHAN_HELD) == ino)
            fs->orphans.ino[i] &= (uint16_t)~SFS_ORPHAN_HELD;
}

/* The list index of orphan ino (0: of the first no handle holds), or
 * orphans.n if there is none. */
static uint32_t orphan_at(const steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->orphans.n; i++)
        if (ino ? (fs->orphans.ino[i] & ~SFS_ORPHAN_HELD) == ino : !(fs->orphans.ino[i] & SFS_ORPHAN_HELD))
            break;
    return i;
}

int sfs_is_orphan(const steadyfs *fs, uint32_t ino) { return orphan_at(fs, ino) < fs->orphans.n; }

/* Whether chunk c may be inode ino's by its sectors: the tag of the first
 * of its pages that maps a sector with a readable tag names ino as whose it
 * is (sfs_tag_whose), or none does (nothing there can be read). */
static int chunk_whose_is(steadyfs *fs, uint32_t c, uint32_t ino)
{
    uint32_t k, ppn, lpn0 = fs->geo.cbase + c * fs->geo.C;
    sfs_tag t;
    for (k = 0; k < fs->geo.C; k++)
        if (!sfs_lookup(fs, lpn0 + k, 0, &ppn) && ppn < SFS_LOST && sfs_rd_tag_in(fs, ppn, &t, 1) >= 0)
            return sfs_tag_whose(&t) == ino;
    return 1;
}

/* Inode ino dies and its inode sector -- its chunk list -- is lost
 * (uncorrectable): its chunks are the used ones no other file lists (no
 * other inode sector, no pending chunk entry) and whose sectors' tags name
 * ino, and they die.  (A chunk the held sector took is not used until its
 * program: chunk allocation passes it over, and so does this.)  Another
 * file whose inode sector cannot be located (a damaged map sector, rebuilt
 * later) stops it: then nothing dies here (those chunks stay used; fsck
 * names them, and a repair frees what no file's tags claim).  One whose
 * inode sector stays unreadable after three tries, is a lost page's copy
 * (it reads as zeros), or whose header or a list entry fails its check (a
 * small read carries no CRC on NOR and MRAM) lists nothing, but its
 * chunks' tags name it, so they stay: steadyfs_repair rebuilds that file
 * from them (before the twenty-sixth session they died here with ino's).
 * The sector buffer is a bit per chunk meanwhile; the lists, words and
 * tags are small reads.  Once per such kill, a read or two an inode and a
 * chunk: fault handling, outside the bound. */
static int scavenge(steadyfs *fs, uint32_t ino)
{
    uint8_t *seen = fs->buf;
    uint32_t i, j, k, n, c, ppn, w[64];
    sfs_budget_void(fs);
    if (fs->geo.n_c > 8u * fs->geo.payload)
        return 0;
    fs->cache.buf_ppn = SFS_NONE;
    memset(seen, 0, (fs->geo.n_c + 7u) / 8u);
    for (i = 1; i < fs->cfg.max_inodes; i++) {
        int rc = 1;
        if (i == ino || !sfs_bit(fs->ibm, i))
            continue;
        /* where its inode sector is cannot be told (a damaged map
         * sector, rebuilt later): it may list any chunk, so none dies */
        if (sfs_lookup(fs, sfs_shared_lpn(fs, i, 0), 0, &ppn))
            return fs->dead ? STEADYFS_EIO : 0;
        if (ppn != SFS_NONE)
            rc = sfs_rd_words_live(fs, ppn, 0, 4, w);
        if (fs->dead)
            return STEADYFS_EIO;
        /* (a sector that stays unreadable, a lost page's copy -- zeros --
         * or a header the small read cannot vouch for: its chunks' tags
         * keep them, below) */
        if (ppn == SFS_NONE || rc || w[0] != INODE_MAGIC || w[1] != i || (w[3] & 0xFFFFu) != STEADYFS_TYPE_FILE)
            continue;
        /* its chunk list: u16 entries after the header, 128 a read */
        for (j = 0; j < fs->geo.cmax; j += 2u * n) {
            n = (fs->geo.cmax - j + 1u) / 2u < 64u ? (fs->geo.cmax - j + 1u) / 2u : 64u;
            if (sfs_rd_words_live(fs, ppn, SFS_INODE_HDR / 4u + j / 2u, n, w))
                return fs->dead ? STEADYFS_EIO : 0;   /* (read a moment ago: none dies) */
            for (k = 0; k < 2u * n && j + k < fs->geo.cmax; k++) {
                /* (an entry whose check fails lists nothing: tags, below) */
                c = sfs_chunk_dec(fs, i, j + k, (w[k / 2u] >> (16u * (k % 2u))) & 0xFFFFu);
                if (c < fs->geo.n_c)
                    sfs_bit_set(seen, c, 1);
            }
        }
    }
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type != PT_CHUNK || p->key == ino)
            continue;
        for (k = 0; k < ((p->flags & PF_UNC) ? 1u : p->owner); k++)
            if ((c = (p->ppn & 0xFFFFu) + k) < fs->geo.n_c)
                sfs_bit_set(seen, c, 1);
    }
    for (c = 0; c < fs->geo.n_c; c++)
        if (sfs_bit(fs->chunk.used, c) && !sfs_bit(seen, c) && chunk_whose_is(fs, c, ino))
            sfs_chunk_die(fs, c);
    return fs->dead ? STEADYFS_EIO : 0;
}

/* The chunks of inode ino's slots >= slot0 die: those its committed inode
 * sector (at ippn, read here; SFS_LOST: lost, scavenge) lists, and its
 * committed chunk entries (which go). */
static int chunks_die(steadyfs *fs, uint32_t ino, uint32_t ippn, uint32_t slot0)
{
    uint32_t i, s, c;
    int rc;
    if (ippn == SFS_LOST) {
        rc = scavenge(fs, ino);
        if (rc)
            return rc;
    } else if (ippn != SFS_NONE) {
        rc = sfs_rd_buf(fs, ippn);
        if (rc < 0)
            return rc;
        for (s = slot0; s < fs->geo.cmax; s++) {
            c = sfs_list_get(fs, fs->buf, ino, s);
            if (c < fs->geo.n_c)
                sfs_chunk_die(fs, c);
        }
    }
    for (i = 0; i < fs->npend;) {
        struct sfs_pend *p = &fs->pend[i];
        uint32_t k, s0 = p->ppn >> 16;
        if (p->type != PT_CHUNK || p->key != ino || (p->flags & PF_UNC) || s0 + p->owner <= slot0) {
            i++;
            continue;
        }
        /* the run's slots from slot0 on die; the part below stays */
        for (k = s0 < slot0 ? slot0 - s0 : 0; k < p->owner; k++)
            sfs_chunk_die(fs, (p->ppn & 0xFFFFu) + k);
        if (s0 < slot0) {
            p->owner = (uint16_t)(slot0 - s0);
            i++;
        } else {
            sfs_pend_del(fs, p);
        }
    }
    return 0;
}

/* Logical page lpn of the shared table is unmapped by a committed "none"
 * change (its sector uncounted; an uncommitted change of it dropped). */
static int unmap(steadyfs *fs, uint32_t lpn)
{
    uint32_t i, cur;
    int rc = sfs_lookup(fs, lpn, 0, &cur);
    if (rc)
        return rc;
    sfs_count_dec(fs, cur);
    for (i = 0; i < fs->npend;) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type == PT_L1 && p->key == lpn) {
            if (p->flags & PF_UNC)
                sfs_count_dec(fs, p->ppn);
            sfs_pend_del(fs, p);
            continue;
        }
        i++;
    }
    /* always: a "none" change deleted above may have been what hid an
     * older map entry */
    return sfs_pend_none(fs, lpn);
}

/* A shrink to `from` pages that cuts through a chunk: the chunk keeps its
 * pages below the cut, and those above are trimmed now -- before the
 * kill's changes enter RAM (sfs_commit_kill).  The trim's L1 sector is
 * programmed with TF_TRIM, which replay skips, and counts only once a
 * checkpoint names it; the one checkpoint that can come between it and
 * the kill's is the one a failed program forces, and that one must hold
 * the shrink either whole or not at all: before the trim is in RAM it
 * holds none of it (after the commit, as this trim used to run, it held
 * the shrink committed with its tail pages still mapped: torture --fsck,
 * seed 104).  The transaction's own changes of the pages cut go first
 * (committed after the trim, they would map them again), and the chunk is
 * the transaction's own if it took it. */
static int tail_trim(steadyfs *fs, uint32_t ino, uint16_t owner, uint32_t txn, uint32_t from)
{
    struct sfs_trim tr = {0, 0, CHUNK_NONE, 0, 0};
    uint32_t i, first, end;
    int rc;
    if (from <= 1 || !(from % fs->geo.C))
        return 0;
    rc = sfs_chunk_get(fs, ino, from / fs->geo.C, 1, &tr.tail_c);
    if (rc || tr.tail_c == CHUNK_NONE)
        return rc;
    first = sfs_chunk_lpn(fs, tr.tail_c, from);
    end = fs->geo.cbase + (tr.tail_c + 1u) * fs->geo.C;
    tr.tail_o = (first - fs->geo.cbase) % fs->geo.C;
    for (i = 0; i < fs->npend;) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type == PT_L1 && (p->flags & PF_UNC) && p->owner == owner && p->txn == txn && p->key >= first &&
            p->key < end) {
            sfs_count_dec(fs, p->ppn);
            sfs_pend_del(fs, p);
            continue;
        }
        i++;
    }
    SFS_SERVED(fs, fs->rm, rc, sfs_trim_l1(fs, first / fs->geo.e1, &tr, fs->rm));
    return rc;
}

/* The kill of inode ino, in RAM: pages >= from (all: the inode), given
 * its inode sector before the transaction (ippn, the committed one). */
static int apply_kill(steadyfs *fs, uint32_t ino, uint32_t ippn, uint32_t from, int all, uint8_t type,
                      int trim_dir)
{
    struct sfs_trim tr = {0, 0, CHUNK_NONE, 0, 0};
    uint32_t k;
    int rc;
    if (ino == 0 || ino >= fs->cfg.max_inodes)
        return STEADYFS_ECORRUPT;
    /* a dead inode's committed size goes with it: merged later, it would
     * rewrite an inode sector that no longer exists (torture, mt25q128:
     * an unlinked O_DSYNC file's size entry, then ECORRUPT in make-room) */
    if (all)
        sfs_drop_size(fs, ino);
    if (all && type == STEADYFS_TYPE_DIR) {
        /* the inode and its buckets: one L1 sector, trimmed before the
         * kill's changes entered RAM (dir_trim), or here for an orphan */
        if (trim_dir) {
            tr.blk = ino;
            SFS_SERVED(fs, fs->rm, rc, sfs_trim_l1(fs, sfs_shared_lpn(fs, ino, 0) / fs->geo.e1, &tr, fs->rm));
        } else {
            rc = 0;
        }
        if (!rc)
            sfs_bit_set(fs->ibm, ino, 0);
        return rc;
    }
    /* only a file has chunks (a symlink's sector holds its target there);
     * a shrink's tail chunk was trimmed before (tail_trim) */
    rc = type == STEADYFS_TYPE_FILE ? chunks_die(fs, ino, ippn, all ? 0 : sfs_first_dead_slot(fs, from)) : 0;
    for (k = all ? 0 : 1; !rc && k < 2; k++)
        if (k == 0 || from == 0)
            rc = unmap(fs, sfs_shared_lpn(fs, ino, k));
    if (!rc && all)
        sfs_bit_set(fs->ibm, ino, 0);
    return rc;
}

/* The committed inode sector of ino (before its transaction commits) and
 * its type. */
static int committed_inode(steadyfs *fs, uint32_t ino, uint32_t *ppn, uint8_t *type)
{
    int rc = sfs_lookup(fs, sfs_shared_lpn(fs, ino, 0), 0, ppn);
    *type = 0;
    if (rc || *ppn == SFS_NONE)
        return rc;
    rc = sfs_rd_buf(fs, *ppn);
    if (rc < 0)
        return rc;
    *type = fs->buf[12];
    return 0;
}

int sfs_reap(steadyfs *fs, uint32_t ino, int lazy)
{
    uint32_t i, ippn;
    uint8_t type;
    int rc;
    i = orphan_at(fs, ino);
    if (i == fs->orphans.n)
        return 0;
    ino = fs->orphans.ino[i] & ~SFS_ORPHAN_HELD;
    /* a light call's housekeeping: only with room at hand (no merge) */
    if (lazy && fs->npend + 4u + 1u > fs->cfg.pending_max)
        return 0;
    /* the kill adds up to three entries: room first, and the sector a
     * directory's trim needs (sfs_commit_kill) */
    rc = sfs_room(fs, 0, fs->rm);
    if (!rc)
        rc = committed_inode(fs, ino, &ippn, &type);
    /* (its inode sector lost: an orphan is a file, its chunks scavenged) */
    if ((rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT) && !fs->dead) {
        ippn = SFS_LOST;
        type = STEADYFS_TYPE_FILE;
        rc = 0;
    }
    if (rc)
        return rc;
    fs->orphans.ino[i] = fs->orphans.ino[--fs->orphans.n];
    rc = apply_kill(fs, ino, ippn, 0, 1, type, 1);
    if (!rc)
        rc = sfs_ckpt_write(fs);   /* the commit record of the kill, as in sfs_commit_kill */
    return rc ? rc : 1;
}

int sfs_kill_lost(steadyfs *fs, uint32_t ino, uint8_t type)
{
    int rc = sfs_room(fs, 0, fs->rm);
    if (!rc)
        rc = apply_kill(fs, ino, SFS_LOST, 0, 1, type, 1);
    return rc ? rc : sfs_ckpt_write(fs);   /* its commit record, as a reap's */
}

int sfs_commit_kill(steadyfs *fs, uint16_t owner, uint32_t txn, uint32_t ino, uint32_t from,
                    uint32_t how, uint8_t dtype)
{
    uint32_t ippn = SFS_NONE;
    uint8_t type = 0;
    /* a kill adds up to three entries: the call that made it pays for the
     * room first, so every call starts with the same slack; and a sector
     * for its trim is reserved now, so that no checkpoint (a periodic one
     * falling due) comes between the kill's parts */
    int rc = sfs_room(fs, 0, fs->rm);
    /* the inode as it was: a shrink's transaction holds its new sector */
    if (!rc && how != SFS_KILL_ORPHAN) {
        rc = committed_inode(fs, ino, &ippn, &type);
        /* its inode sector lost (uncorrectable): the name goes all the
         * same, as its entry says it is (chunks_die: scavenge) */
        if ((rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT) && !fs->dead && how == SFS_KILL_ALL && dtype) {
            ippn = SFS_LOST;
            type = dtype;
            rc = 0;
        }
    }
    if (!rc && how == SFS_KILL_FROM && type == STEADYFS_TYPE_FILE)
        rc = tail_trim(fs, ino, owner, txn, from);
    /* a directory's block likewise, before the kill is in RAM: a
     * checkpoint a failed trim program forces then holds none of it (after
     * the commit it held the name gone and the inode still allocated:
     * torture --fsck, seed 509) */
    if (!rc && how == SFS_KILL_ALL && type == STEADYFS_TYPE_DIR) {
        struct sfs_trim tr = {0, 0, CHUNK_NONE, 0, 0};
        tr.blk = ino;
        SFS_SERVED(fs, fs->rm, rc, sfs_trim_l1(fs, sfs_shared_lpn(fs, ino, 0) / fs->geo.e1, &tr, fs->rm));
    }
    if (!rc)
        rc = sfs_apply_commit(fs, owner, txn);
    if (!rc && owner != OWNER_NS)
        sfs_drop_size(fs, ino);   /* its inode sector, in the transaction, has the size */
    if (!rc && how == SFS_KILL_ORPHAN) {
        /* the inode keeps its sectors and its number while a handle has it
         * open; the checkpoint below lists it, so after a cut the next
         * mount's first light calls (or unmount) reap it */
        if (fs->orphans.n < fs->geo.orphan_max)
            fs->orphans.ino[fs->orphans.n++] = (uint16_t)(ino | SFS_ORPHAN_HELD);
        else
            rc = STEADYFS_EBUSY;
    } else if (!rc) {
        rc = apply_kill(fs, ino, ippn, from, how == SFS_KILL_ALL, type, 0);
    }
    if (!rc)
        rc = sfs_ckpt_write(fs);
    return rc;
}
