/* Repair after media damage (steadyfs.h, steadyfs_repair; DESIGN.md §6,
 * "Repair after damage to the namespace").
 *
 * A tool beside fsck, above the namespace: reads find what damage cut off
 * (a bucket, an inode sector that cannot be read, inodes that no name
 * reaches any more), and each finding is put right by one namespace
 * transaction of the kinds the namespace calls write -- a bucket, an entry
 * removed or added, an inode sector, a kill -- in a call frame of its own,
 * committed on its own.  A cut between two fixes leaves a file system that
 * mounts and that the next repair takes on from there.  Passes repeat
 * until one finds nothing to fix: a fix can uncover the next (a directory
 * whose inode sector is written anew has buckets to go over; the names a
 * lost bucket held are found unnamed only after it is reset). */
#include "fs/fs_internal.h"

typedef struct rp {
    steadyfs *fs;
    steadyfs_repair_report *rep;
    uint8_t *named;     /* a bit per inode: an entry of an allocated directory names it */
    uint8_t *reached;   /* ... one of a directory reachable from the root */
    uint8_t *scanned;   /* ... a reached directory whose entries were gone over */
    uint8_t *counts;    /* a byte per unit: the live sectors the map reaches there */
    uint8_t *listed;    /* a bit per chunk: a readable inode sector (or its pending
                           chunk entries) lists it */
    uint32_t lf;        /* /lost+found's inode, 0 until one is needed */
    uint8_t no_bytes0;  /* fs->no_bytes when the repair began, or after the
                           last fix's start (sfs_begin counts from 0) */
} rp;

/* A sector that cannot be read for what it should hold (uncorrectable, a
 * lost page's copy, its map word lost, not an inode at all), as against a
 * power cut (fs->dead) or a fault of the walk. */
static int damaged(const steadyfs *fs, int rc)
{
    return (rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT || rc == STEADYFS_ENOENT || rc == SFS_DAMAGED) &&
           !fs->dead;
}

/* 0 and *type if inode ino's sector reads, 1 if it is lost, or an error. */
static int inode_state(steadyfs *fs, uint32_t ino, uint8_t *type)
{
    sfs_inode in;
    int rc = sfs_inode_read(fs, ino, 1, &in, NULL);
    *type = rc ? 0 : in.type;
    return !rc ? 0 : damaged(fs, rc) ? 1 : rc;
}

static int readable_dir(steadyfs *fs, uint32_t ino)
{
    uint8_t type;
    int rc;
    if (!sfs_bit(fs->ibm, ino))
        return 0;
    rc = inode_state(fs, ino, &type);
    return rc < 0 ? rc : !rc && type == STEADYFS_TYPE_DIR;
}

/* A fix's call frame: a removal's mode (a full device can still be put
 * right), armed in test builds with the bound of the namespace call that
 * does at least its work (budget.c).  EIO, no fix, once a device read has
 * returned no bytes since the repair began: the walk takes a sector it
 * cannot read for damaged, and that one may be whole (a link or host
 * error, SBD_ERR_IO); the repair can be run again.  (sfs_begin counts
 * such reads from 0 again: the ones before it were judged here.) */
static int fix_begin(rp *r, steadyfs_call like)
{
    steadyfs *fs = r->fs;
    int rc = sfs_no_bytes_since(fs, r->no_bytes0) ? STEADYFS_EIO : sfs_begin(fs, 4);
    if (!rc)
        r->no_bytes0 = fs->no_bytes;
    if (!rc && like != STEADYFS_CALL_COUNT)   /* (COUNT: a search no call's bound covers) */
        sfs_budget_arm(fs, like, 1);
    return rc;
}

static int fix_end(steadyfs *fs, uint32_t txn, int rc, uint32_t *count)
{
    if (rc && txn)
        sfs_abort(fs, 0, OWNER_NS, txn);
    rc = sfs_end(fs, rc);
    if (!rc)
        (*count)++;
    return rc;
}

/* What a fix changed in RAM alone (dying chunks, live counts), committed
 * by a checkpoint in a call frame of its own. */
static int checkpoint_fix(rp *r, uint32_t *count)
{
    int rc = fix_begin(r, STEADYFS_CALL_UNLINK);
    return rc ? rc : fix_end(r->fs, 0, sfs_ckpt_write(r->fs), count);
}

static int reset_bucket(rp *r, uint32_t dir, uint32_t d)
{
    uint32_t txn = 0;
    int rc = fix_begin(r, STEADYFS_CALL_UNLINK);
    if (!rc)
        rc = sfs_dir_reset(r->fs, dir, d, &txn);
    return fix_end(r->fs, txn, rc, &r->rep->buckets_reset);
}

/* Entry e of dir goes; with its inode's kill (its inode sector lost) or
 * alone (it names no inode). */
static int remove_entry(rp *r, uint32_t dir, const steadyfs_dirent *e, int kill)
{
    steadyfs *fs = r->fs;
    uint32_t txn = 0;
    int rc = fix_begin(r, STEADYFS_CALL_UNLINK);
    if (rc)
        return rc;
    rc = sfs_dir_remove2(fs, dir, e->name, e->name_len, &txn, kill ? 0 : TF_COMMIT);
    if (!rc && kill)
        rc = sfs_commit_kill(fs, OWNER_NS, txn, (uint32_t)e->id, 0, SFS_KILL_ALL, e->type);
    return fix_end(fs, txn, rc, kill ? &r->rep->files_removed : &r->rep->names_removed);
}

/* Directory ino's inode sector written anew, parent `parent`. */
static int rebuild_dir(rp *r, uint32_t ino, uint32_t parent)
{
    struct sfs_where w;
    int rc = fix_begin(r, STEADYFS_CALL_MKDIR);
    if (rc)
        return rc;
    memset(&w, 0, sizeof w);
    w.ino = ino;
    w.parent = parent;
    return fix_end(r->fs, 0, sfs_create(r->fs, &w, STEADYFS_TYPE_DIR, NULL, NULL, 0), &r->rep->dirs_rebuilt);
}

/* The chunks readable files list (their inode sectors and pending chunk
 * entries) into r->listed; *lost: the allocated inodes whose inode
 * sector is lost. */
static int listed_chunks(rp *r, uint32_t *lost)
{
    steadyfs *fs = r->fs;
    uint32_t ino, s, c;
    uint8_t type;
    int rc;
    memset(r->listed, 0, (fs->geo.n_c + 7u) / 8u);
    *lost = 0;
    for (ino = 1; ino < fs->cfg.max_inodes; ino++) {
        if (!sfs_bit(fs->ibm, ino))
            continue;
        rc = inode_state(fs, ino, &type);
        if (rc < 0)
            return rc;
        *lost += (uint32_t)rc;
        if (rc || type != STEADYFS_TYPE_FILE)
            continue;
        sfs_inode_chunks(fs, ino, 0, 0);   /* (on the sector inode_state read) */
        for (s = 0; s < fs->geo.cmax; s++)
            if ((c = sfs_list_get(fs, fs->buf, ino, s)) < fs->geo.n_c)
                sfs_bit_set(r->listed, c, 1);
    }
    return 0;
}

static int orphan(const rp *r, uint32_t c)
{
    const steadyfs *fs = r->fs;
    return sfs_bit(fs->chunk.used, c) && !sfs_bit(fs->chunk.dying, c) && !sfs_bit(r->listed, c);
}

/* What the sectors of chunk c (c == n_c: page 0 in inode ino's own
 * block) say of whose they are: CH_MINE (a sector of file ino's
 * transactions), CH_OTHER (another file's), CH_COPIES (collection copies
 * only: they keep no owner), CH_NONE (no sector readable as that page);
 * with the slot their file pages give, the pages up to the last of them
 * (*top) and the newest size a commit in a tag of ino's carried (*size,
 * *seq). */
enum { CH_NONE, CH_COPIES, CH_MINE, CH_OTHER };
static int chunk_owner(rp *r, uint32_t c, uint32_t ino, uint32_t *slot, uint32_t *top, uint32_t *size,
                       uint64_t *seq)
{
    steadyfs *fs = r->fs;
    uint32_t i, lpn, ppn, n = c < fs->geo.n_c ? fs->geo.C : 1u;
    int mine = 0, other = 0, copies = 0, rc;
    uint32_t owner;
    sfs_tag t;
    *slot = *top = 0;
    for (i = 0; i < n; i++) {
        lpn = c < fs->geo.n_c ? sfs_chunk_lpn(fs, c, i) : sfs_shared_lpn(fs, ino, 1);
        rc = sfs_lookup(fs, lpn, 1, &ppn);
        if (rc && !damaged(fs, rc))
            return rc;
        if (rc || ppn >= SFS_LOST)
            continue;
        /* (a tag the device returns no bytes for fails the repair, which
         * the next mount runs again: taken for none, a chunk of the file
         * would count as nobody's) */
        rc = sfs_rd_tag_in(fs, sfs_copy_of(fs, ppn), &t, 1);
        if (rc == STEADYFS_EIO)
            return rc;
        if (rc < 0 || t.kind != TK_DATA || t.key != lpn)
            continue;
        /* (a committed collection copy: owner OWNER_GC, a relocation's
         * with COPY, a wear-levelling move's without; with TF_OWNED its
         * txn keeps whose it is) */
        owner = sfs_tag_whose(&t);
        if ((t.flags & TF_COPY) && !(t.flags & TF_COMMIT))
            owner = t.owner;   /* (an open transaction's: its own owner) */
        if (owner == OWNER_GC)
            copies = 1;
        else if (owner == ino)
            mine = 1;
        else
            other = 1;
        *slot = t.fpage / fs->geo.C;
        if (t.fpage + 1u > *top)
            *top = t.fpage + 1u;
        if ((t.flags & TF_SIZE) && t.owner == ino && t.seq >= *seq) {
            *seq = t.seq;
            *size = t.aux;
        }
    }
    return other ? CH_OTHER : mine ? CH_MINE : copies ? CH_COPIES : CH_NONE;
}

/* What of file ino, whose inode sector is lost, can be found again, into
 * *in and the chunk list after fs->buf's header.  Its chunks are among
 * the orphans (used, listed by no readable file): one is its own where a
 * sector in it carries its inode as owner, or -- copies only, whose owner
 * is not kept -- where it is the only inode lost (`alone`); the file page
 * a sector holds gives the slot.  Page 0 is in its own block.  Its size: a
 * committed size entry if one is pending; else the size the newest of its
 * commits in a tag carried, if that ends in its last page found; else the
 * end of that page.  A slot before the last with no chunk may have been a
 * chunk that could not be told apart (or a hole): the file ends there,
 * rather than read zeros where its bytes may have been. */
static int gather(rp *r, uint32_t ino, int alone, sfs_inode *in)
{
    steadyfs *fs = r->fs;
    uint32_t c, slot, top, pages = 0, tagged = 0, end, csize;
    uint64_t tseq = 0, cseq;
    int page0 = 0, own;
    struct sfs_pend *p;
    uint8_t *list = fs->buf + SFS_INODE_HDR;
    fs->cache.buf_ppn = SFS_NONE;
    memset(list, 0xFF, fs->geo.payload - SFS_INODE_HDR);
    for (c = 0; c <= fs->geo.n_c; c++) {
        if (c < fs->geo.n_c && !orphan(r, c))
            continue;
        cseq = 0;
        csize = 0;
        own = chunk_owner(r, c, ino, &slot, &top, &csize, &cseq);
        if (own < 0)
            return own;
        if (!(own == CH_MINE || (own == CH_COPIES && (alone || c == fs->geo.n_c))) ||
            (c < fs->geo.n_c && (slot >= fs->geo.cmax || sfs_get16(list + 2u * slot) != CHUNK_NONE)))
            continue;
        if (c < fs->geo.n_c)
            sfs_list_put(fs, fs->buf, ino, slot, c);
        else
            page0 = 1;
        if (top > pages)
            pages = top;
        if (cseq >= tseq && csize) {
            tseq = cseq;
            tagged = csize;
        }
    }
    memset(in, 0, sizeof *in);
    in->ino = ino;
    in->gen = (uint32_t)fs->log.seq;
    in->type = STEADYFS_TYPE_FILE;
    in->mode = 0644u;
    in->mtime = in->ctime = sfs_now(fs);
    end = pages * fs->geo.payload;
    if ((p = sfs_pend_find(fs, PT_SIZE, ino, 0)) != NULL)
        in->size = p->ppn;
    else
        in->size = tagged && tagged + fs->geo.payload > end && tagged <= end ? tagged : end;
    /* (slot 0's chunk holds pages 1..C-1: page 0 is in the file's block) */
    for (slot = 0; (uint64_t)(slot ? slot * fs->geo.C : 1u) * fs->geo.payload < in->size; slot++)
        if (sfs_get16(list + 2u * slot) == CHUNK_NONE) {
            in->size = slot ? (uint64_t)slot * fs->geo.C * fs->geo.payload : page0 ? fs->geo.payload : 0;
            memset(list + 2u * slot, 0xFF, fs->geo.payload - SFS_INODE_HDR - 2u * slot);
            break;
        }
    return 0;
}

/* File ino's inode sector written anew (parent `parent`) from what gather
 * finds: its chunks and a size, mode 0644, owner 0, times now.  With more
 * than one inode lost, the orphans no sector of which names an owner
 * (copies only) die first, committed on their own: no file could be told
 * to own them, and no later repair (after a cut, with fewer lost) may
 * give them to the wrong one. */
static int rebuild_file(rp *r, uint32_t ino, uint32_t parent)
{
    steadyfs *fs = r->fs;
    uint32_t txn = 0, lost, c, slot, top, csize, n = 0;
    uint64_t cseq;
    sfs_inode in;
    int rc = listed_chunks(r, &lost);
    for (c = 0; !rc && lost > 1 && c < fs->geo.n_c; c++) {
        if (!orphan(r, c))
            continue;
        rc = chunk_owner(r, c, ino, &slot, &top, &csize, &cseq);
        if (rc == CH_COPIES || rc == CH_NONE) {
            sfs_chunk_die(fs, c);
            n++;
        }
        rc = rc < 0 ? rc : 0;
    }
    if (!rc && n) {
        r->rep->chunks_freed += n;
        rc = checkpoint_fix(r, &n);
    }
    if (!rc)
        rc = fix_begin(r, STEADYFS_CALL_COUNT);
    if (rc)
        return rc;
    do {
        rc = sfs_room(fs, 0, fs->rm);
        if (!rc)
            rc = gather(r, ino, lost == 1, &in);
        if (rc)
            break;
        in.parent = parent;
        sfs_inode_pack(fs, fs->buf, &in);
        rc = sfs_write_lpn(fs, sfs_shared_lpn(fs, ino, 0), OWNER_NS, &txn, TF_COMMIT, SFS_UNKNOWN, NULL);
    } while (rc == SFS_RETRY);
    return fix_end(fs, txn, rc, &r->rep->files_rebuilt);
}

/* Used chunks no file lists (a lost file's that could not be told apart,
 * left out of its rebuilt list) die; committed by a checkpoint. */
static int free_orphans(rp *r, uint32_t *fixed)
{
    steadyfs *fs = r->fs;
    uint32_t c, lost, n = 0;
    int rc = listed_chunks(r, &lost);
    if (rc || lost)
        return rc;   /* (a lost inode left: its chunks are its kill's) */
    for (c = 0; c < fs->geo.n_c; c++)
        if (orphan(r, c)) {
            sfs_chunk_die(fs, c);
            n++;
        }
    if (!n)
        return 0;
    r->rep->chunks_freed += n;
    (*fixed)++;
    return checkpoint_fix(r, &n);
}

static void put_dec(char *out, uint32_t *len, uint32_t v)
{
    char d[10];
    uint32_t n = 0;
    do {
        d[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        out[(*len)++] = d[--n];
}

static int lost_found(rp *r)
{
    steadyfs_stat st;
    int rc;
    if (r->lf)
        return 0;
    rc = steadyfs_mkdir(r->fs, "/lost+found");
    if (rc && rc != STEADYFS_EEXIST)
        return rc;
    rc = steadyfs_stat_path(r->fs, "/lost+found", &st);
    if (rc)
        return rc;
    if (st.type != STEADYFS_TYPE_DIR)
        return STEADYFS_ENOTDIR;
    r->lf = (uint32_t)st.id;
    return 0;
}

/* Inode ino, which nothing names, linked into /lost+found as "#ino" (or
 * "#ino.k", the first such name free); a directory's parent field follows. */
static int reconnect(rp *r, uint32_t ino, uint8_t type)
{
    steadyfs *fs = r->fs;
    char name[24];
    uint32_t len, k, txn = 0, other;
    uint8_t otype;
    sfs_inode in;
    int rc = lost_found(r);
    memset(&in, 0, sizeof in);
    for (k = 0; !rc; k++) {
        len = 0;
        name[len++] = '#';
        put_dec(name, &len, ino);
        if (k) {
            name[len++] = '.';
            put_dec(name, &len, k);
        }
        rc = sfs_dir_lookup(fs, r->lf, name, len, &other, &otype);
        if (rc == STEADYFS_ENOENT) {
            rc = 0;
            break;
        }
        if (!rc && k == 64)
            rc = STEADYFS_EEXIST;
    }
    if (!rc)
        rc = fix_begin(r, STEADYFS_CALL_RENAME);
    if (rc)
        return rc;
    rc = sfs_dir_insert2(fs, r->lf, name, len, ino, type, &txn, type == STEADYFS_TYPE_DIR ? 0 : TF_COMMIT);
    if (!rc && type == STEADYFS_TYPE_DIR) {
        in.parent = r->lf;
        rc = sfs_inode_edit(fs, ino, &in, SFS_SET_PARENT, OWNER_NS, &txn, TF_COMMIT, NULL);
    }
    return fix_end(fs, txn, rc, &r->rep->reconnected);
}

/* Unnamed inode ino whose inode sector is lost: a directory if any of
 * its buckets but the first has a sector (a file's block holds its inode
 * sector and its page 0 only, at the places of a directory's inode and
 * first bucket), or if the sector at the first bucket's place is the
 * namespace's (a bucket, OWNER_NS) rather than the file's own page 0;
 * else a file.  Given a new inode sector (its parent the root until the
 * next pass links it into /lost+found).  A lost word is no sign either
 * way: where a damaged L1 sector held a file's holes past its page 0, the
 * rebuild makes them lost (map.c may_be_mapped cannot tell a file's block
 * from a directory's), and the file came back as a directory with its
 * bytes out of reach (soak-repair draw 998).  One with nothing at its
 * page 0 or buckets and no chunk whose tags name it is removed instead
 * (lost_removed): it came back as an empty file under /lost+found, which
 * an empty directory or a symlink never was (soak-repair draw 1278).  2
 * done, 0 nothing done (a map word on the way cannot be read: its sector
 * is rebuilt first, scrub_map). */
static int owns_a_chunk(rp *r, uint32_t ino)
{
    steadyfs *fs = r->fs;
    uint32_t lost, c, slot, top, csize;
    uint64_t cseq;
    int rc = listed_chunks(r, &lost), own;
    for (c = 0; !rc && c < fs->geo.n_c; c++) {
        if (!orphan(r, c))
            continue;
        own = chunk_owner(r, c, ino, &slot, &top, &csize, &cseq);
        if (own < 0)
            return own;
        if (own == CH_MINE || (own == CH_COPIES && lost == 1))
            return 1;
    }
    return rc;
}

static int unnamed_lost(rp *r, uint32_t ino)
{
    steadyfs *fs = r->fs;
    uint32_t k, ppn = SFS_NONE;
    int rc, dir = 0;
    sfs_tag t;
    for (k = 2; k <= fs->cfg.dir_pages && !dir; k++) {
        rc = sfs_lookup(fs, sfs_shared_lpn(fs, ino, k), 1, &ppn);
        if (rc)
            return damaged(fs, rc) ? 0 : rc;
        dir = ppn < SFS_LOST;
    }
    if (!dir) {
        rc = sfs_lookup(fs, sfs_shared_lpn(fs, ino, 1), 1, &ppn);
        if (rc)
            return damaged(fs, rc) ? 0 : rc;
        rc = ppn < SFS_LOST ? sfs_rd_tag_in(fs, sfs_copy_of(fs, ppn), &t, 1) : STEADYFS_ECORRUPT;
        if (rc == STEADYFS_EIO || fs->dead)
            return STEADYFS_EIO;   /* (no bytes: the next mount's repair tries again) */
        if (rc >= 0 && t.kind == TK_DATA && t.key == sfs_shared_lpn(fs, ino, 1))
            dir = sfs_tag_whose(&t) == OWNER_NS;
    }
    if (!dir && ppn == SFS_NONE) {
        /* no page 0, no bucket, and no chunk whose tags name it: nothing
         * of it is left to link anywhere (an empty file, an empty
         * directory, or a symlink, whose target was in the lost sector) */
        rc = owns_a_chunk(r, ino);
        if (rc < 0)
            return rc;
        if (!rc) {
            rc = fix_begin(r, STEADYFS_CALL_UNLINK);
            if (!rc)
                rc = sfs_kill_lost(fs, ino, STEADYFS_TYPE_FILE);
            rc = fix_end(fs, 0, rc, &r->rep->lost_removed);
            return rc ? rc : 2;
        }
    }
    rc = dir ? rebuild_dir(r, ino, 1) : rebuild_file(r, ino, 1);
    return rc ? rc : 2;
}

/* Every L2 sector, then every L1 sector, that cannot be read (or whose
 * L2 word cannot) merged now, which rebuilds it (map.c rebuild: each word
 * kept where the sector it names confirms it, an L2 sector's lost words
 * found by their L1 sectors' tags): a bucket or inode sector it maps is
 * then read for what it is, not taken as lost with it. */
static int scrub_map(rp *r, uint32_t *fixed)
{
    steadyfs *fs = r->fs;
    uint32_t m, ppn, pass, l2;
    int rc = 0;
    /* (pass 0: the L2 sectors, by their roots; pass 1: the L1 sectors) */
    for (pass = 0, l2 = 1; pass < 2; pass++, l2 = 0)
        for (m = 0; !rc && m < (l2 ? fs->geo.n_l2 : fs->geo.n_l1); m++) {
            if (l2)
                ppn = fs->root[m];
            else
                rc = sfs_l1_locate(fs, m, &ppn);
            if (!rc && ppn != SFS_NONE)
                rc = sfs_rd_buf(fs, ppn);
            if (rc >= 0 || !damaged(fs, rc)) {
                rc = rc > 0 ? 0 : rc;
                continue;
            }
            rc = fix_begin(r, STEADYFS_CALL_UNLINK);
            if (!rc)
                rc = sfs_room(fs, 0, fs->rm);
            if (!rc)
                SFS_SERVED(fs, fs->rm, rc, l2 ? sfs_merge_l2(fs, m, fs->rm) : sfs_merge_l1(fs, m, fs->rm));
            rc = fix_end(fs, 0, rc, &r->rep->map_rebuilt);
            (*fixed)++;
        }
    return rc;
}

/* Could logical page lpn hold anything?  A word a rebuilt map sector
 * could not confirm (SFS_LOST: the damage changed it, map.c rebuild) is a
 * page lost -- or a hole whose word the damage changed, which only the
 * structure tells: a page past what its inode uses (a file's sectors past
 * its page 0 in its block, a symlink's, past the buckets), of a free
 * inode, of a chunk no file holds, or past its file's size.  0 if nothing
 * can be there, 1 if something may be (or the inode cannot be read), or
 * an error. */
static int page_in_use(steadyfs *fs, uint32_t lpn)
{
    uint32_t c = sfs_chunk_of_lpn(fs, lpn), ino, k, s, fp;
    sfs_inode in;
    int rc;
    if (c == CHUNK_NONE) {
        ino = sfs_shared_ino(fs, lpn);
        k = sfs_shared_k(fs, lpn);
        if (ino == 0)
            return 0;   /* (no inode 0: its bitmap bit is set for good) */
        if (k == 0)
            return 1;   /* an inode sector: its inode is judged as lost */
        if (k > fs->cfg.dir_pages || !sfs_bit(fs->ibm, ino))
            return 0;
        rc = sfs_inode_read(fs, ino, 1, &in, NULL);
        if (rc)
            return damaged(fs, rc) ? 1 : rc;
        /* (a bucket that reads lost is reset) */
        return in.type == STEADYFS_TYPE_DIR || (in.type == STEADYFS_TYPE_FILE && k == 1 && in.size);
    }
    if (c >= fs->geo.n_c || !sfs_bit(fs->chunk.used, c))
        return 0;
    if (sfs_bit(fs->chunk.dying, c))
        return 1;   /* (its trim clears it) */
    /* the file whose chunk list holds c */
    for (ino = 1; ino < fs->cfg.max_inodes; ino++) {
        if (!sfs_bit(fs->ibm, ino))
            continue;
        rc = sfs_inode_read(fs, ino, 1, &in, NULL);
        if (rc && !damaged(fs, rc))
            return rc;
        if (rc || in.type != STEADYFS_TYPE_FILE)
            continue;
        sfs_inode_chunks(fs, ino, 0, 0);
        for (s = 0; s < fs->geo.cmax; s++)
            if (sfs_list_get(fs, fs->buf, ino, s) == c) {
                fp = s * fs->geo.C + (lpn - fs->geo.cbase) % fs->geo.C;
                return fp && (uint64_t)fp * fs->geo.payload < in.size;
            }
    }
    return 1;   /* (listed by none: a lost inode's, which its kill finds) */
}

/* The words a rebuilt map sector lost where nothing can be become holes
 * again: a committed "none" change each, committed by a checkpoint.  The
 * others stay lost (those pages read EIO; fsck lists them). */
static int settle_lost(rp *r, uint32_t *fixed)
{
    steadyfs *fs = r->fs;
    uint32_t m, i, ppn, lpn;
    int rc = 0;
    for (m = 0; !rc && m < fs->geo.n_l1; m++)
        for (i = 0; !rc && i < fs->geo.e1; i++) {
            lpn = m * fs->geo.e1 + i;
            rc = sfs_l1_locate(fs, m, &ppn);
            if (!rc && ppn == SFS_NONE)
                break;
            if (!rc)
                rc = sfs_rd_buf(fs, ppn);
            if (rc < 0) {
                rc = damaged(fs, rc) ? 0 : rc;   /* (scrub_map's, next pass) */
                break;
            }
            if (sfs_map_get(fs, fs->buf, m * fs->geo.e1, i) != SFS_LOST || sfs_pend_find(fs, PT_L1, lpn, 0))
                continue;
            rc = page_in_use(fs, lpn);
            if (rc) {
                rc = rc < 0 ? rc : 0;
                continue;
            }
            rc = fix_begin(r, STEADYFS_CALL_UNLINK);
            if (!rc)
                rc = sfs_room(fs, 0, fs->rm);
            if (!rc)
                rc = sfs_pend_none(fs, lpn);
            if (!rc)
                rc = sfs_ckpt_write(fs);
            rc = fix_end(fs, 0, rc, &r->rep->holes_restored);
            (*fixed)++;
        }
    return rc < 0 ? rc : 0;
}

/* An entry of directory dir: 1 if it went, 0 if it stays, or an error. */
static int check_entry(rp *r, uint32_t dir, const steadyfs_dirent *e)
{
    steadyfs *fs = r->fs;
    uint32_t ino = (uint32_t)e->id;
    uint8_t type;
    int rc;
    if (ino < 2 || ino >= fs->cfg.max_inodes || !sfs_bit(fs->ibm, ino))
        rc = remove_entry(r, dir, e, 0);
    else if ((rc = inode_state(fs, ino, &type)) != 1)
        return rc;
    else if (e->type == STEADYFS_TYPE_DIR)
        return rebuild_dir(r, ino, dir);
    else if (e->type == STEADYFS_TYPE_FILE)
        return rebuild_file(r, ino, dir);
    else
        rc = remove_entry(r, dir, e, 1);   /* a symlink: its target was in that sector */
    /* (a name the probe does not reach: fsck's to report) */
    return rc == STEADYFS_ENOENT ? 0 : rc ? rc : 1;
}

/* Every allocated directory: its unreadable buckets reset first (a
 * removal probes the buckets before the one it edits), then its entries
 * checked.  *fixed counts what changed. */
static int fix_dirs(rp *r, uint32_t *fixed)
{
    steadyfs *fs = r->fs;
    steadyfs_repair_report *rep = r->rep;
    uint32_t dir, d, i, before = rep->buckets_reset + rep->names_removed + rep->files_removed + rep->dirs_rebuilt;
    steadyfs_dirent e;
    uint8_t type;
    int rc = inode_state(fs, 1, &type);
    if (rc == 1)
        rc = rebuild_dir(r, 1, 1);
    for (dir = 1; !rc && dir < fs->cfg.max_inodes; dir++) {
        rc = readable_dir(fs, dir);
        if (rc <= 0)
            continue;
        rc = 0;
        for (d = 0; !rc && d < fs->cfg.dir_pages; d++) {
            rc = sfs_dir_entry(fs, dir, d, 0, &e);
            rc = rc == SFS_DAMAGED ? reset_bucket(r, dir, d) : rc < 0 ? rc : 0;
        }
        for (d = 0; !rc && d < fs->cfg.dir_pages; d++)
            for (i = 0; !rc;) {
                rc = sfs_dir_entry(fs, dir, d, i, &e);
                if (rc <= 0) {
                    rc = rc == SFS_DAMAGED ? 0 : rc;   /* (again: the next pass) */
                    break;
                }
                rc = check_entry(r, dir, &e);
                i += !rc;
                rc = rc > 0 ? 0 : rc;
            }
    }
    *fixed += rep->buckets_reset + rep->names_removed + rep->files_removed + rep->dirs_rebuilt - before;
    return rc;
}

/* The inodes entries of directory dir name, into bits. */
static int names_of(rp *r, uint32_t dir, uint8_t *bits)
{
    steadyfs_dirent e;
    uint32_t d, i;
    int rc = 0;
    for (d = 0; d < r->fs->cfg.dir_pages; d++)
        for (i = 0;; i++) {
            rc = sfs_dir_entry(r->fs, dir, d, i, &e);
            if (rc <= 0)
                break;
            if (e.id < r->fs->cfg.max_inodes)
                sfs_bit_set(bits, (uint32_t)e.id, 1);
        }
    return rc == SFS_DAMAGED ? 0 : rc;
}

/* Inodes no directory reachable from the root names: the ones no
 * allocated directory names at all are the tops of what was cut off
 * (the others come back with their top).  A lost top first: a directory
 * given a new sector changes what is named (its entries), so the pass
 * ends there; the readable tops then go to /lost+found. */
static int fix_unreached(rp *r, uint32_t *fixed)
{
    steadyfs *fs = r->fs;
    uint32_t mi = fs->cfg.max_inodes, nb = (mi + 7u) / 8u, i, lost_pass;
    uint8_t type;
    int rc = 0, more = 1;
    memset(r->named, 0, nb);
    memset(r->reached, 0, nb);
    memset(r->scanned, 0, nb);
    for (i = 1; !rc && i < mi; i++) {
        rc = readable_dir(fs, i);
        rc = rc > 0 ? names_of(r, i, r->named) : rc;
    }
    sfs_bit_set(r->reached, 1, 1);
    while (!rc && more)
        for (more = 0, i = 1; !rc && i < mi; i++) {
            if (!sfs_bit(r->reached, i) || sfs_bit(r->scanned, i))
                continue;
            sfs_bit_set(r->scanned, i, 1);
            rc = readable_dir(fs, i);
            rc = rc > 0 ? names_of(r, i, r->reached) : rc;
            more = 1;
        }
    for (lost_pass = 1; !rc && lost_pass < 3; lost_pass++) {
        for (i = 2; !rc && i < mi; i++) {
            if (!sfs_bit(fs->ibm, i) || sfs_bit(r->reached, i) || sfs_bit(r->named, i) || i == r->lf ||
                sfs_is_orphan(fs, i))
                continue;
            rc = inode_state(fs, i, &type);
            if (rc == 1 && lost_pass == 1) {
                rc = unnamed_lost(r, i);
                *fixed += rc > 0;
                if (rc == 2)
                    return 0;   /* an inode again: what it names, and its link, next pass */
            } else if (rc == 0 && lost_pass == 2) {
                rc = reconnect(r, i, type);
                (*fixed)++;
            } else {
                rc = rc == 1 ? 0 : rc;
            }
        }
    }
    return rc;
}

/* Every unit's live count as the map reaches it (what fsck compares):
 * the L2 roots, the L1 sectors, each word through the relocation records
 * with the pending changes on top, and the sector a change flagged PF_OLD
 * replaced (counted until its L1 sector's merge).  Where a unit counts
 * otherwise -- a word a rebuilt map sector lost named a sector that stays
 * counted, which only collection would find dead (gc.c finish) -- the
 * count is set, committed by a checkpoint. */
static void tally(rp *r, uint32_t ppn)
{
    steadyfs *fs = r->fs;
    ppn = sfs_copy_of(fs, ppn);
    if (ppn >= fs->geo.nblocks * fs->geo.P)
        return;
    if (r->counts[ppn / fs->geo.P] < 255u)
        r->counts[ppn / fs->geo.P]++;
    if (sfs_maybe(fs))
        sfs_bit_set(sfs_maybe(fs), ppn, 1);   /* (live for certain) */
}

static int recount(rp *r, uint32_t *fixed)
{
    steadyfs *fs = r->fs;
    uint32_t m, i, l1, w, b, wrong = 0;
    struct sfs_pend *p;
    int rc;
    memset(r->counts, 0, fs->geo.nblocks);
    for (i = 0; i < fs->geo.n_l2; i++)
        if (fs->root[i] != SFS_NONE)
            tally(r, fs->root[i]);
    for (m = 0; m < fs->geo.n_l1; m++) {
        rc = sfs_l1_locate(fs, m, &l1);
        if (!rc && l1 != SFS_NONE) {
            tally(r, l1);
            rc = sfs_rd_buf(fs, l1);
        }
        if (rc < 0)
            return damaged(fs, rc) ? 0 : rc;   /* (not whole yet: next pass) */
        for (i = 0; i < fs->geo.e1; i++) {
            w = l1 == SFS_NONE ? SFS_NONE : sfs_map_get(fs, fs->buf, m * fs->geo.e1, i);
            p = sfs_pend_find(fs, PT_L1, m * fs->geo.e1 + i, 0);
            if (p && (p->flags & PF_OLD))
                tally(r, w);
            tally(r, p ? p->ppn : w);
        }
    }
    for (b = 0; b < fs->geo.nblocks; b++)
        wrong += (uint32_t)sfs_count_fix(fs, b, r->counts[b]);
    if (!wrong)
        return 0;
    r->rep->counts_fixed += wrong;
    (*fixed)++;
    return checkpoint_fix(r, &wrong);
}

uint32_t steadyfs_repair_work_size(const steadyfs *fs)
{
    return fs ? ((3u * ((fs->cfg.max_inodes + 7u) / 8u) + 3u) & ~3u) + ((fs->geo.nblocks + 3u) & ~3u) +
                    (((fs->geo.n_c + 7u) / 8u + 3u) & ~3u)
              : 0;
}

int steadyfs_repair(steadyfs *fs, void *work, uint32_t work_size, steadyfs_repair_report *rep)
{
    uint32_t i, nb, fixed, passes;
    rp r;
    int rc = 0;
    if (!fs || !fs->mounted || !work || !rep || work_size < steadyfs_repair_work_size(fs))
        return STEADYFS_EINVAL;
    if (fs->dead)
        return STEADYFS_EIO;
    for (i = 0; i < fs->cfg.open_max; i++)
        if (fs->open[i].ino)
            return STEADYFS_EBUSY;
    memset(rep, 0, sizeof *rep);
    nb = (fs->cfg.max_inodes + 7u) / 8u;
    r.fs = fs;
    r.rep = rep;
    r.named = (uint8_t *)work;
    r.reached = r.named + nb;
    r.scanned = r.reached + nb;
    r.counts = r.named + ((3u * nb + 3u) & ~3u);
    r.listed = r.counts + ((fs->geo.nblocks + 3u) & ~3u);
    r.lf = 0;
    r.no_bytes0 = fs->no_bytes;
    /* each pass that changes something leaves less to fix (a bucket, an
     * entry, an inode sector, a cut-off inode: at most a few of each per
     * inode); a pass that fixes nothing ends it */
    for (passes = 0; !rc; passes++) {
        if (passes == 4u * fs->cfg.max_inodes + 4u)
            return STEADYFS_EIO;   /* (fixes that do not hold: the medium fails them) */
        fixed = 0;
        rc = scrub_map(&r, &fixed);
        if (!rc)
            rc = settle_lost(&r, &fixed);
        if (!rc)
            rc = fix_dirs(&r, &fixed);
        /* each stage on what the ones before left whole: a kill above may
         * free an inode whose block held words lost with a rebuilt map
         * sector, which the next pass's settle_lost makes holes before
         * lost+found (a new inode) may take it */
        if (!rc && !fixed)
            rc = fix_unreached(&r, &fixed);
        if (!rc && !fixed)
            rc = free_orphans(&r, &fixed);
        if (!rc && !fixed)
            rc = recount(&r, &fixed);   /* last: on a namespace that is whole */
        if (!fixed)
            break;
    }
    /* a checkpoint after the last fix: the next mount replays none of
     * the repair (replay reads a rebuilt map sector's old words from the
     * damaged one, where the repair's merge read them rebuilt) */
    if (!rc && passes)
        rc = checkpoint_fix(&r, &fixed);
    return rc;
}
