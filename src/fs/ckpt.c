/* Checkpoints and mount.
 *
 * A checkpoint is one sector holding everything RAM knows: the block table,
 * the map roots, the pending map changes (uncommitted ones included), the
 * inode bitmap and the log head.  On media that erase (format 18) they are
 * appended to a unit taken from the pool like any other, which goes back
 * to the pool when the next one takes over, so they wear as the data do;
 * the two units of the anchor ring hold only a pointer record for each
 * such unit, written before its first checkpoint (DESIGN.md §5).  Without
 * erase the ring's units take the checkpoints themselves, in turn.  Mount
 * finds the ring's newest unit, the newest pointer in it (or checkpoint,
 * without erase) and the newest checkpoint in the unit it names, each by
 * a binary search (sequence numbers rise by one per sector in a unit),
 * then replays the at most replay_max sectors written to the heads after
 * it.  Nothing on mount depends on the device size or the number of
 * files. */
#include <stddef.h>

#include "fs/fs_internal.h"
#ifdef STEADYFS_CHECK_BUDGET
#include <stdio.h>
#include <stdlib.h>
#endif

#define CKPT_MAGIC 0x31434653u   /* "SFC1" */
/* SFS_CKPT_VERSION 2: size entries, TF_SIZE commits; 3: kills committed by
 * a checkpoint, none in the log; 4: mode, owner, times and symlinks in
 * inode sectors (SPEC §5, §7); 5: the orphan list (open inodes without a
 * name) after the inode bitmap (SPEC §7); 6: each head's next unit named
 * in the block table (0xF6, 0xF7): a head moves into it without a
 * checkpoint and replay follows it (SPEC §7, §8); 7: (reserved: committed
 * changes covering runs of pages); 8: the dense logical space -- chunks,
 * their used and dying bitmaps after the inode bitmap, the trim cursor at
 * byte 30, tags with a 48-bit seq and the file page, no kill entries
 * (DESIGN.md §4, §5; SPEC §2, §3, §7); 9: relocation (the relocation
 * sector, copies that leave the map alone); 10: on media that read and
 * program in units of 32 bytes or less without a spare area (NOR, MRAM)
 * the tag goes beside the sector, not inside it: payload = sector_size,
 * a sector takes sector_size + 32 bytes of its unit (SPEC §2); 11: on
 * media without erase the host head may go on in a closed unit, writing
 * only the sectors dead when it entered: the slots it passes at byte 132
 * (DESIGN.md §9, SPEC §7); 12: the closed unit the host head goes on in
 * next and the slots it passes there, named ahead at bytes 136 and 140,
 * so that move needs no checkpoint of its own (DESIGN.md §9, SPEC §7);
 * 13: pending flag 0x08 (PF_OLD), a committed change whose replaced
 * sector still counts until its L1 sector's merge or mount (SPEC §7);
 * 14: the anchor ring, A = blocks / 64 units (2 to 16) on media that
 * erase, found at mount by a binary search (SPEC §9); 15: the record
 * ring, its units and sectors a record at bytes 144 and 146, its next
 * record at 148, its bad units' bitmap after the chunk bitmaps, TK_RING
 * sectors (DESIGN.md §13, SPEC §12); 16: a map word that names a sector
 * carries a check of it and of its key above the sector number's bits
 * (SPEC §4, fs_internal.h sfs_map_get); 17: a chunk-list entry carries
 * a check of its chunk, inode and slot above the chunk number's bits
 * (SPEC §5, fs_internal.h sfs_chunk_dec); 18: on media that erase the
 * checkpoints (and their relocation sectors) go to a pool unit in the
 * block table as 0xF9, with the next one held erased as 0xFA, and the
 * anchor ring of two units holds TK_PTR records naming it (SPEC §7, §9);
 * 19: offset 112 (usable units) leaves out a second unit, the one the log
 * keeps for a checkpoint-unit switch (fs_internal.h SFS_CK_SWITCH), and
 * the live limit at 104 is that smaller pool's (SPEC §7); 20: a
 * directory bucket's header is 16 bytes, the time its entries last
 * changed at byte 8, which stat gives as the directory's mtime and ctime
 * where it is later than its inode's ctime (SPEC §6, dir.c); 21: a
 * relocation sector holds at most R + 4 records (34 before, whatever R),
 * what a replay may rebuild: run time begins a victim only while the
 * records of the relocation sector the last checkpoint names plus those
 * begun since stay below that (SPEC §7, reloc.c sfs_reloc_room) */
#define CKPT_VERSION SFS_CKPT_VERSION
#define CKPT_HDR SFS_CKPT_HDR

#if SFS_LE
/* A pending entry in RAM is its checkpoint image (SPEC §7): the table is
 * copied whole. */
_Static_assert(sizeof(struct sfs_pend) == SFS_PEND_SIZE && offsetof(struct sfs_pend, ppn) == 4 &&
                   offsetof(struct sfs_pend, txn) == 8 && offsetof(struct sfs_pend, owner) == 12 &&
                   offsetof(struct sfs_pend, type) == 14 && offsetof(struct sfs_pend, flags) == 15,
               "pending entry layout is the checkpoint's");
#else
static void pend_pack(uint8_t *p, const struct sfs_pend *e)
{
    sfs_put32(p, e->key);
    sfs_put32(p + 4, e->ppn);
    sfs_put32(p + 8, e->txn);
    sfs_put16(p + 12, e->owner);
    p[14] = e->type;
    p[15] = e->flags;
}

static void pend_unpack(const uint8_t *p, struct sfs_pend *e)
{
    e->key = sfs_get32(p);
    e->ppn = sfs_get32(p + 4);
    e->txn = sfs_get32(p + 8);
    e->owner = (uint16_t)sfs_get16(p + 12);
    e->type = p[14];
    e->flags = p[15];
}
#endif

/* The 32-bit header fields (SPEC §7): byte offset, offset in steadyfs,
 * both in words (every field is a 4-aligned uint32_t).  The first N_CONST
 * are the geometry, checked at mount, not loaded. */
#define FLD(off, f)                                                                                  \
    {(off) / 4u, (uint8_t)(offsetof(steadyfs, f) / 4u +                                              \
                           0u * sizeof(char[offsetof(steadyfs, f) % 4u == 0 ? 1 : -1]))}   /* (aligned) */
#define N_CONST 5u
_Static_assert(sizeof(steadyfs) < 1024, "header field table holds word offsets in a byte");
static const uint8_t hdr_fields[][2] = {
    FLD(12, geo.nblocks), FLD(16, geo.P), FLD(20, geo.sector_size), FLD(96, geo.n_l2), FLD(100, geo.dev_per_block),
    FLD(8, anchor.epoch), FLD(40, log.head_block), FLD(44, log.head_idx), FLD(48, log.head_count), FLD(52, live),
    FLD(56, gc.victim), FLD(60, gc.idx), FLD(64, gc.wl_cursor), FLD(68, log.alloc_cursor),
    FLD(72, gc.victims), FLD(76, health.retire[0]), FLD(80, health.retire[1]), FLD(84, health.retire[2]),
    FLD(88, health.retire[3]), FLD(92, npend), FLD(104, live_max), FLD(108, geo.vol), FLD(112, geo.usable),
    FLD(116, log.gh_block), FLD(120, log.gh_idx), FLD(124, log.gh_count), FLD(132, log.head_skip),
    FLD(136, log.thread_next), FLD(140, log.thread_skip),
};
#define N_FIELDS (sizeof hdr_fields / sizeof hdr_fields[0])

static uint32_t *field(steadyfs *fs, uint32_t i)
{
    return (uint32_t *)(void *)fs + hdr_fields[i][1];
}

/* The inode bitmap, the chunks' used and dying bitmaps and the record
 * ring's bad units at byte o of the image b, into it (put) or out of it:
 * the offset after them. */
static uint32_t bitmaps(steadyfs *fs, uint8_t *b, uint32_t o, int put)
{
    uint8_t *m[4];
    uint32_t i, n;
    m[0] = fs->ibm;
    m[1] = fs->chunk.used;
    m[2] = fs->chunk.dying;
    m[3] = fs->ring ? fs->ring->bad : NULL;
    for (i = 0; i < 4; i++, o += n) {
        n = i == 3 ? sfs_ring_map_bytes(&fs->cfg) : i ? (fs->geo.n_c + 7u) / 8u : (fs->cfg.max_inodes + 7u) / 8u;
        if (!n)
            continue;
        if (put)
            memcpy(b + o, m[i], n);
        else
            memcpy(m[i], b + o, n);
    }
    return o;
}

static void serialize(steadyfs *fs, uint8_t *b)
{
    uint32_t i, o = CKPT_HDR;
    memset(b, 0, fs->geo.payload);
    sfs_put32(b + 0, CKPT_MAGIC);
    sfs_put32(b + 4, CKPT_VERSION);
    for (i = 0; i < N_FIELDS; i++)
        sfs_put32(b + 4 * hdr_fields[i][0], *field(fs, i));
    sfs_put32(b + 116, fs->log.gh_block + 1u);   /* 0: no collection head */
    sfs_put16(b + 24, fs->cfg.max_inodes);
    b[26] = fs->cfg.file_pages_log2;
    b[27] = fs->cfg.dir_pages;
    sfs_put16(b + 28, fs->cfg.fill_permille);
    sfs_put16(b + 30, fs->chunk.trim);
    sfs_put64(b + 32, fs->log.seq);
    sfs_put32(b + 128, fs->reloc.table);
    sfs_put16(b + 144, fs->cfg.ring_units);
    sfs_put16(b + 146, fs->cfg.ring_sectors);
    sfs_put64(b + 148, fs->ring ? fs->ring->next : 0u);
    for (i = 0; i < fs->geo.nblocks; i++)
        b[o + i] = fs->blk[i] == BS_LIMBO ? (uint8_t)BS_FREE : fs->blk[i];
    o += fs->geo.nblocks;
#if SFS_LE
    memcpy(b + o, fs->root, 4 * fs->geo.n_l2);
    o += 4 * fs->geo.n_l2;
    memcpy(b + o, fs->pend, SFS_PEND_SIZE * fs->npend);
    o += SFS_PEND_SIZE * fs->npend;
#else
    for (i = 0; i < fs->geo.n_l2; i++, o += 4)
        sfs_put32(b + o, fs->root[i]);
    for (i = 0; i < fs->npend; i++, o += SFS_PEND_SIZE)
        pend_pack(b + o, &fs->pend[i]);
#endif
    o = bitmaps(fs, b, o, 1);
    /* the orphan list, where the sector has room for one: the count, then
     * the inode numbers (the held bit is RAM's) */
    if (!fs->geo.orphan_max)
        return;
    b[o] = (uint8_t)fs->orphans.n;
    for (i = 0; i < fs->orphans.n; i++) {
        sfs_put16(b + o + 2 + 2 * i, fs->orphans.ino[i] & ~SFS_ORPHAN_HELD);
    }
}

static int deserialize(steadyfs *fs, const uint8_t *b)
{
    uint32_t i, nn, ng, o = CKPT_HDR;
    if (sfs_get32(b) == CKPT_MAGIC && sfs_get32(b + 4) != CKPT_VERSION)
        return STEADYFS_EFORMAT;
    if (sfs_get32(b) != CKPT_MAGIC ||
        sfs_get16(b + 24) != fs->cfg.max_inodes ||
        b[26] != fs->cfg.file_pages_log2 || b[27] != fs->cfg.dir_pages ||
        sfs_get16(b + 144) != fs->cfg.ring_units || sfs_get16(b + 146) != fs->cfg.ring_sectors)
        return STEADYFS_EINVAL;
    sfs_xc_drop(fs);   /* new roots */
    for (i = 0; i < N_CONST; i++)
        if (sfs_get32(b + 4 * hdr_fields[i][0]) != *field(fs, i))
            return STEADYFS_EINVAL;
    for (; i < N_FIELDS; i++)
        *field(fs, i) = sfs_get32(b + 4 * hdr_fields[i][0]);
    fs->cfg.fill_permille = (uint16_t)sfs_get16(b + 28);
    fs->chunk.trim = sfs_get16(b + 30);
    if (fs->chunk.trim >= fs->geo.n_c)
        return STEADYFS_ECORRUPT;
    fs->log.seq = sfs_get64(b + 32);
    if (fs->ring)
        fs->ring->next = sfs_get64(b + 148);   /* (mount's search goes on from it) */
    fs->reloc.table = sfs_get32(b + 128);
    if (fs->reloc.table != SFS_NONE && fs->reloc.table / fs->geo.P >= fs->geo.nblocks)
        return STEADYFS_ECORRUPT;   /* (in the checkpoint's unit: sfs_ckpt_mount) */
    if (--fs->log.gh_block == SFS_NONE) {
        fs->log.gh_idx = fs->geo.P;   /* (the fields as loaded are ignored) */
        fs->log.gh_count = 0;
    }
    if ((fs->log.gh_block != SFS_NONE && (fs->log.gh_block >= fs->geo.nblocks || fs->log.gh_block == fs->log.head_block)) ||
        fs->log.gh_idx > fs->geo.P ||
        fs->npend > fs->cfg.pending_max || fs->log.head_block >= fs->geo.nblocks ||
        fs->log.head_idx > fs->geo.P || fs->log.alloc_cursor >= fs->geo.nblocks || fs->gc.wl_cursor >= fs->geo.nblocks)
        return STEADYFS_ECORRUPT;
    fs->log.nqueued = fs->log.nfree = fs->log.nlimbo = fs->log.nheld = 0;
    for (i = 0, nn = 0, ng = 0; i < fs->geo.nblocks; i++) {
        uint8_t s = b[o + i];
        if (s > fs->geo.P && (s < BS_HEAD || s > (sfs_ck_pool(fs) ? BS_CKNEXT : BS_MOVED) || s == BS_LIMBO))
            return STEADYFS_ECORRUPT;
        fs->blk[i] = 0;   /* counts nothing: set_state counts s */
        sfs_set_state(fs, i, s);
        nn += s == BS_NEXT;
        ng += s == BS_GNEXT;
    }
    /* one next unit per head, and none for a collection head not yet there */
    if (nn > 1 || ng > (fs->log.gh_block != SFS_NONE))
        return STEADYFS_ECORRUPT;
    o += fs->geo.nblocks;
    for (i = 0; i < fs->geo.n_l2; i++, o += 4) {
        fs->root[i] = sfs_get32(b + o);
        if (fs->root[i] != SFS_NONE && fs->root[i] / fs->geo.P >= fs->geo.nblocks)
            return STEADYFS_ECORRUPT;
    }
    fs->uncommitted = 0;
#if SFS_LE
    memcpy(fs->pend, b + o, SFS_PEND_SIZE * fs->npend);
#endif
    for (i = 0; i < fs->npend; i++, o += SFS_PEND_SIZE) {
        struct sfs_pend *p = &fs->pend[i];
#if !SFS_LE
        pend_unpack(b + o, p);
#endif
        /* every key and address indexes RAM tables or the device (n: the
         * slots a chunk entry covers) */
        uint32_t n = (p->flags & PF_UNC) ? 1u : p->owner;
        if (p->type < PT_L1 || p->type > PT_CHUNK || p->type == 3 ||
            p->key >= (p->type == PT_L1 ? fs->geo.n_l1 * fs->geo.e1
                       : p->type == PT_L2 ? fs->geo.n_l1 : fs->cfg.max_inodes) ||
            (p->type <= PT_L2 && p->ppn != SFS_NONE && p->ppn / fs->geo.P >= fs->geo.nblocks) ||
            (p->type == PT_CHUNK && ((p->ppn >> 16) + n > fs->geo.cmax || (p->ppn & 0xFFFFu) + n > fs->geo.n_c || !n)))
            return STEADYFS_ECORRUPT;
        fs->uncommitted += (fs->pend[i].flags & PF_UNC) != 0;
    }
    o = bitmaps(fs, (uint8_t *)(uintptr_t)b, o, 0);   /* (only read) */
    for (i = 0, fs->chunk.ndying = 0; i < fs->geo.n_c; i++)
        fs->chunk.ndying += (uint32_t)sfs_bit(fs->chunk.dying, i);
    fs->orphans.n = 0;
    if (!fs->geo.orphan_max)
        return 0;
    fs->orphans.n = sfs_get16(b + o);
    if (fs->orphans.n > fs->geo.orphan_max)
        return fs->orphans.n > SFS_ORPHAN_CAP ? STEADYFS_ECORRUPT : STEADYFS_EINVAL;
    for (i = 0; i < fs->orphans.n; i++) {
        fs->orphans.ino[i] = (uint16_t)sfs_get16(b + o + 2 + 2 * i);
        if (!fs->orphans.ino[i] || fs->orphans.ino[i] >= fs->cfg.max_inodes)
            return STEADYFS_ECORRUPT;
    }
    return 0;
}

/* Erase anchor area unit u: three tries.  0, SFS_EFAIL (a grown bad
 * unit) or an error. */
static int anchor_erase_unit(steadyfs *fs, uint32_t u)
{
    int rc = SFS_EFAIL, k;
    for (k = 0; k < 3 && rc == SFS_EFAIL; k++)
        rc = sfs_erase(fs, u);
    sfs_note_erase(fs);
    return rc;
}

/* Mark anchor area unit u bad, on the device (mount's ring, fs.c
 * find_anchors, leaves it out from then on) and in anchor.bad: 0, or EIO
 * where the device keeps no bad-block marks (a Linux file or disk: mount
 * would find the unit in its ring again). */
static int anchor_mark_bad(steadyfs *fs, uint32_t u)
{
    if (sbd_mark_bad(fs->cfg.bd, u * fs->geo.dev_per_block) < 0)
        return STEADYFS_EIO;
    fs->anchor.bad |= 1u << u;
    return 0;
}

/* The unit of anchor ring slot a went bad (its erase failed three times):
 * retire it, and go on with the good units left, as long as two are; the
 * ring's current slot becomes the slot of unit `keep`.  The ring is the
 * first sfs_anchors() good units of the anchor area, so a spare (the
 * first good unit past the ring) joins it at its end: it is erased first,
 * and a spare that fails is marked bad too.  The units keep their order
 * and the spare is an erased slot, which is all mount's search asks
 * (anchor_newest: after the newest slot only older, erased or torn ones;
 * a cut before the mark finds the failing unit as the slot after the
 * newest, which mount already allows).  Before 2026-12-01 an anchor unit
 * that went bad was EIO for every later checkpoint: a device that lost
 * one of its 16 anchor units took no more changes, though the anchors,
 * written 2.8-3.3 times as often as the other units (DESIGN.md §5), are
 * the likeliest to wear out.  0 or EIO. */
static int anchor_retire(steadyfs *fs, uint32_t a, uint32_t keep)
{
    uint32_t u = sfs_anchor_unit(fs, a), i;
    int rc;
    while (sfs_anchor_good(fs) > sfs_anchors(fs)) {
        uint32_t spare = sfs_anchor_unit(fs, sfs_anchors(fs));
        rc = anchor_erase_unit(fs, spare);
        if (!rc)
            break;
        if (rc != SFS_EFAIL)
            return rc;
        rc = anchor_mark_bad(fs, spare);
        if (rc)
            return rc;
    }
    if (sfs_anchor_good(fs) < 3u)
        return STEADYFS_EIO;   /* a ring needs two units */
    rc = anchor_mark_bad(fs, u);
    if (rc)
        return rc;
    for (i = 0; i < sfs_anchors(fs); i++)
        if (sfs_anchor_unit(fs, i) == keep)
            fs->anchor.cur = i;
    return 0;
}

/* Erase the unit of anchor ring slot a (the next one, before the ring
 * moves there): 0, SFS_EFAIL if it went bad (retire it), or an error. */
static int anchor_erase(steadyfs *fs, uint32_t a)
{
    return anchor_erase_unit(fs, sfs_anchor_unit(fs, a));
}

/* A failing anchor program.  Never erase the unit that holds the newest
 * durable checkpoint: while this unit holds none yet (a fresh unit: its
 * first sectors, a relocation sector at most before the checkpoint) that
 * is the other one, so this unit is erased again and retried from sector
 * 0 -- or, if it went bad, retired, the ring going back to the slot before
 * it (the newest checkpoint's), full, so the next program moves on;
 * further on, it is this one, so switch. */
static int anchor_failed(steadyfs *fs)
{
    int rc;
    if (!fs->anchor.has_ckpt) {
        uint32_t n = sfs_anchors(fs), prev = sfs_anchor_unit(fs, (fs->anchor.cur + n - 1u) % n);
        rc = anchor_erase(fs, fs->anchor.cur);
        if (rc == SFS_EFAIL) {
            rc = anchor_retire(fs, fs->anchor.cur, prev);
            if (rc)
                return rc;
            fs->anchor.has_ckpt = 1;
            fs->anchor.next_idx = fs->geo.P;
            fs->anchor.dirty_next = 1;
            return 0;
        }
        if (rc)
            return rc;
        fs->anchor.next_idx = 0;
        if (fs->reloc.table / fs->geo.P == sfs_anchor_unit(fs, fs->anchor.cur))
            fs->reloc.changed = 1;   /* its relocation sector was just erased */
    } else {
        fs->anchor.next_idx = fs->geo.P;
        fs->anchor.dirty_next = 1;
    }
    return 0;
}

/* A program of the anchor ring or the checkpoint unit done. */
static void ck_programmed(steadyfs *fs)
{
    fs->anchor.seq++;
    fs->log.call_ops++;   /* a call with a checkpoint is not light (sfs_end) */
    if (STEADYFS_WITH_HOLD)
        fs->log.call_marks |= SFS_MARK_KEPT;
}

/* Program fs->buf as the anchor's next sector, of kind `kind` (its tag's
 * key, aux and txn: a pointer's, TK_PTR), at *ppn: 0, SFS_RETRY after a failed
 * program (anchor_failed made room to try again), or an error. */
static int anchor_prog(steadyfs *fs, uint8_t kind, uint32_t key, uint32_t aux, uint32_t txn, uint32_t *ppn)
{
    sfs_tag t;
    int rc;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.key = key;
    t.aux = aux;
    t.txn = txn;
    t.seq = fs->anchor.seq;
    *ppn = sfs_anchor_unit(fs, fs->anchor.cur) * fs->geo.P + fs->anchor.next_idx++;
    rc = sfs_prog_sector(fs, *ppn, fs->buf, &t);
    if (rc == SFS_EFAIL)
        return (rc = anchor_failed(fs)) != 0 ? rc : SFS_RETRY;
    if (!rc)
        ck_programmed(fs);
    return rc;
}

/* The unit the next checkpoint sector goes to. */
static uint32_t ck_unit(const steadyfs *fs)
{
    return sfs_ck_pool(fs) ? fs->anchor.unit : sfs_anchor_unit(fs, fs->anchor.cur);
}

/* Program fs->buf, of kind `kind`, as the checkpoint unit's next sector at
 * *ppn: 0, SFS_RETRY after a failed program, or an error.  On media that
 * erase a failed program sends the next try to another unit (this one
 * goes back to the pool at the switch, and its erase tells whether it
 * went bad: log.c erase_free). */
static int ck_prog(steadyfs *fs, uint8_t kind, uint32_t *ppn)
{
    sfs_tag t;
    int rc;
    if (!sfs_ck_pool(fs))
        return anchor_prog(fs, kind, fs->anchor.epoch, 0, 0, ppn);
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.key = fs->anchor.epoch;
    t.seq = fs->anchor.seq;
    *ppn = (uint32_t)fs->anchor.unit * fs->geo.P + fs->anchor.idx++;
    rc = sfs_prog_sector(fs, *ppn, fs->buf, &t);
    if (rc == SFS_EFAIL) {
        fs->anchor.idx = (uint8_t)fs->geo.P;
        return SFS_RETRY;
    }
    if (!rc)
        ck_programmed(fs);
    return rc;
}

/* The anchor ring's next sector: on to its next unit, erased now if the
 * erase ahead has not, when the current one is full.  0, SFS_RETRY (a
 * unit retired: try again), or an error. */
static int ring_room(steadyfs *fs)
{
    uint32_t next;
    int rc;
    if (fs->anchor.next_idx < fs->geo.P)
        return 0;
    /* the ring's next unit: the oldest, erased ahead or now */
    next = (fs->anchor.cur + 1u) % sfs_anchors(fs);
    if (fs->anchor.dirty_next) {
        if (fs->log.erase_budget)
            fs->log.erase_budget--;
        rc = anchor_erase(fs, next);
        if (rc == SFS_EFAIL) {
            /* gone bad: retired, the ring's next is another unit */
            rc = anchor_retire(fs, next, sfs_anchor_unit(fs, fs->anchor.cur));
            return rc ? rc : SFS_RETRY;
        }
        if (rc)
            return rc;
        fs->anchor.dirty_next = 0;
    }
    fs->anchor.cur = next;
    fs->anchor.next_idx = 0;
    fs->anchor.dirty_next = 1;
    fs->anchor.has_ckpt = 0;
    return 0;
}

/* The pointer record's payload (DESIGN.md §5): its fields are in its tag
 * too (key, aux, seq), which is what mount reads. */
#define PTR_MAGIC 0x31504653u   /* "SFP1" */

/* Media that erase: checkpoints move to another unit -- the one held
 * erased for it, else one of the queue or a free one erased now -- named
 * in the anchor ring by a pointer record before its first checkpoint.  A
 * cut between the two leaves a pointer whose unit holds no checkpoint of
 * its sequence: mount takes the newest checkpoint of the unit the pointer
 * names as kept (the one before, full when it was left), and the unit it
 * left becomes LIMBO, free once a checkpoint in the new one is durable.
 * 0, SFS_RETRY, or an error. */
static int ck_switch(steadyfs *fs)
{
    uint32_t u, keep, keep_last, ppn, k;
    int rc;
    if (fs->anchor.spare != SFS_NO_UNIT && fs->blk[fs->anchor.spare] != BS_CKNEXT)
        fs->anchor.spare = SFS_NO_UNIT;   /* a head took it (log.c head_move) */
    /* A unit a switch began whose checkpoint never became durable -- a
     * cut (mount sent it back to the pool: anchor.cut_short) or a failed
     * program there (it is still the current unit, with no checkpoint
     * yet) -- may still be erased in the table of the newest durable
     * checkpoint, which the pointer below keeps too: it is erased before
     * that pointer (or retired, where a program failed in it).  Else a cut
     * after the pointer leaves the next mount calling a programmed unit
     * erased: fsck "should be erased (queued unit)", make soak-torture
     * nor-units8 seed 2 and nand-h6-k16-fill-hold seed 6.  The switch then
     * takes an erased unit: a cut-short unit costs no second erase. */
    if (fs->anchor.unit != SFS_NO_UNIT && fs->anchor.last == SFS_NO_SECTOR) {
        fs->anchor.cut_short = fs->anchor.unit;
        fs->anchor.unit = SFS_NO_UNIT;
        sfs_set_state(fs, fs->anchor.cut_short, BS_FREE);
    }
    if (fs->anchor.cut_short != SFS_NO_UNIT) {
        /* (a relocation sector the attempt wrote there goes with it: the
         * next checkpoint writes its own, soak nand-big seed 2) */
        if (fs->reloc.table != SFS_NONE && fs->reloc.table / fs->geo.P == fs->anchor.cut_short)
            fs->reloc.changed = 1;
        if (fs->blk[fs->anchor.cut_short] == BS_FREE) {
            rc = sfs_erase_free_unit(fs, fs->anchor.cut_short);
            if (rc)
                return rc;
        }
        fs->anchor.cut_short = SFS_NO_UNIT;
    }
    u = fs->anchor.spare;
    for (k = 0;; k++) {
        if (u == SFS_NO_UNIT) {
            rc = sfs_take_erased(fs, &u);
            if (rc)
                return rc;
        }
        /* (what a cut left in a unit the newest checkpoint calls erased:
         * back to the pool, to be erased there) */
        /* (a read that fails is taken for dirty: back to be erased) */
        rc = sfs_rd_erased(fs, u * fs->geo.P);
        if (rc < 0 && fs->dead)
            return rc;
        if (rc > 0)
            break;
        if (u == fs->anchor.spare)
            fs->anchor.spare = SFS_NO_UNIT;
        sfs_set_state(fs, u, BS_FREE);
        u = SFS_NO_UNIT;
        if (k >= 2u)
            return STEADYFS_EIO;
    }
    rc = ring_room(fs);
    if (rc)
        return rc;
    if (fs->anchor.last != SFS_NO_SECTOR) {
        keep = fs->anchor.unit;
        keep_last = fs->anchor.last;
    } else {
        keep = fs->anchor.keep;
        keep_last = fs->anchor.keep_last;
    }
    if (keep == SFS_NO_UNIT)
        keep = SFS_NONE;
    memset(fs->buf, 0, fs->geo.payload);
    fs->cache.buf_ppn = SFS_NONE;
    sfs_put32(fs->buf, PTR_MAGIC);
    sfs_put32(fs->buf + 4, CKPT_VERSION);
    sfs_put32(fs->buf + 8, u);
    sfs_put32(fs->buf + 12, keep);
    sfs_put32(fs->buf + 16, keep_last);
    sfs_put32(fs->buf + 24, fs->geo.vol);
    rc = anchor_prog(fs, TK_PTR, u, keep, keep_last, &ppn);
    if (rc)
        return rc;
    fs->anchor.has_ckpt = 1;   /* (the ring's unit holds a durable pointer) */
    if (fs->anchor.unit != SFS_NO_UNIT)
        sfs_set_state(fs, fs->anchor.unit, BS_LIMBO);
    if (u == fs->anchor.spare)
        fs->anchor.spare = SFS_NO_UNIT;
    sfs_set_state(fs, u, BS_CKPT);
    fs->anchor.keep = (uint16_t)keep;
    fs->anchor.keep_last = (uint8_t)keep_last;
    fs->anchor.unit = (uint16_t)u;
    fs->anchor.idx = 0;
    fs->anchor.last = SFS_NO_SECTOR;
    return 0;
}

int sfs_ckpt_switch_early(steadyfs *fs)
{
    int rc;
    if (!sfs_ck_pool(fs) || fs->anchor.unit == SFS_NO_UNIT || fs->anchor.last == SFS_NO_SECTOR ||
        fs->anchor.idx + SFS_CK_EARLY < fs->geo.P || fs->anchor.idx >= fs->geo.P ||
        fs->anchor.spare == SFS_NO_UNIT || fs->blk[fs->anchor.spare] != BS_CKNEXT)
        return 0;
    rc = ck_switch(fs);
    return rc == SFS_RETRY ? 0 : rc < 0 ? rc : 1;
}

int sfs_ckpt_write(steadyfs *fs)
{
    uint32_t i, ppn, bad = fs->anchor.bad, pool = (uint32_t)sfs_ck_pool(fs), moved = 0;
    int rc, tries;
    /* (three failed programs, not counting those that retired a unit nor,
     * up to SFS_CK_MOVES, those that moved the checkpoints to another pool
     * unit: near a device's end units wearing out together fail one after
     * another, and another unit is not the same unit tried again) */
    for (tries = 0; tries < 3; tries++) {
        uint32_t want_reloc;
        if (fs->anchor.bad != bad) {
            bad = fs->anchor.bad;
            tries = 0;
        }
        if (!fs->reloc.nrec && !fs->reloc.owed) {
            fs->reloc.table = SFS_NONE;
            fs->reloc.changed = 0;
        }
        /* The relocation records, when they changed, or when their sector
         * is in another unit (erased in its turn): their sector first, in
         * the same unit as the checkpoint that names it */
        want_reloc = (fs->reloc.nrec || fs->reloc.owed) &&
                     (fs->reloc.changed || pool || fs->reloc.table / fs->geo.P != ck_unit(fs));
        if (pool) {
            /* (fewer than two sectors left, whether or not a relocation
             * sector comes first: log.c head_move keeps a unit for the
             * switch on that same test) */
            if (fs->anchor.unit == SFS_NO_UNIT || fs->anchor.idx + 2u > fs->geo.P) {
                rc = ck_switch(fs);
                if (rc == SFS_RETRY)
                    continue;
                if (rc)
                    return rc;
            }
            want_reloc = (fs->reloc.nrec || fs->reloc.owed) &&
                         (fs->reloc.changed || fs->reloc.table / fs->geo.P != ck_unit(fs));
        } else {
            rc = ring_room(fs);
            if (rc == SFS_RETRY)
                continue;
            if (rc)
                return rc;
            if (want_reloc && fs->anchor.next_idx + 2u > fs->geo.P) {
                fs->anchor.next_idx = fs->geo.P;   /* no room for both: the next unit */
                tries--;
                continue;
            }
        }
        if (want_reloc) {
            sfs_reloc_save(fs, fs->buf);   /* (buf_ppn: the program drops it) */
            rc = ck_prog(fs, TK_RELOC, &ppn);
            if (rc == SFS_RETRY) {
                tries -= pool && ++moved < SFS_CK_MOVES;
                continue;
            }
            if (rc)
                return rc;
            fs->reloc.table = ppn;
            fs->reloc.changed = 0;
        }
        /* the unit the next switch takes, held erased ahead where the
         * queue has one to spare (else the switch takes one then) */
        if (pool && (fs->anchor.spare == SFS_NO_UNIT || fs->blk[fs->anchor.spare] != BS_CKNEXT))
            fs->anchor.spare = (uint16_t)sfs_hold_erased(fs);
        sfs_name_next(fs);
        serialize(fs, fs->buf);
        rc = ck_prog(fs, TK_CKPT, &ppn);
        if (rc == SFS_RETRY) {
            tries -= pool && ++moved < SFS_CK_MOVES;
            continue;
        }
        if (rc)
            return rc;
        fs->anchor.epoch++;
        fs->anchor.has_ckpt |= !pool;
        fs->anchor.last = (uint8_t)(ppn % fs->geo.P);
        fs->anchor.keep = SFS_NO_UNIT;
        fs->stats.ckpt++;
        fs->log.need_ckpt = 0;
        fs->log.since_ckpt = 0;
        /* a replay now starts from the relocation sector just named */
        fs->reloc.saved = (uint16_t)fs->reloc.nrec;
        fs->reloc.added = 0;
        /* blocks emptied before this checkpoint may now be erased: no
         * replay from it can need their old contents */
        for (i = 0; i < fs->geo.nblocks; i++)
            if (fs->blk[i] == BS_LIMBO)
                sfs_set_state(fs, i, BS_FREE);
        return 0;
    }
    return STEADYFS_EIO;
}

/* Sector i of unit u a checkpoint or its relocation sector of sequence
 * base + i?  1, 0, or an error. */
static int unit_ok(steadyfs *fs, uint32_t u, uint32_t i, uint64_t base)
{
    sfs_tag t;
    int rc = sfs_rd_tag(fs, u * fs->geo.P + i, &t);
    if (rc < 0)
        return rc == STEADYFS_ECORRUPT ? 0 : rc;
    return (t.kind == TK_CKPT || t.kind == TK_RELOC) && t.seq == base + i;
}

/* Where the log resumes in one head after a replay: never program over a
 * possibly torn sector; continue at the first sector that reads erased (a
 * cut tears at most one), else in a fresh unit. */
static int resume(steadyfs *fs, uint32_t b, uint32_t *idx)
{
    int k, e = 0;
    if (b == SFS_NONE || !fs->cfg.bd->geo.needs_erase)
        return 0;
    for (k = 0; k < 2 && *idx < fs->geo.P; k++) {
        e = sfs_rd_erased(fs, b * fs->geo.P + *idx);
        if (e < 0)
            return e;
        if (e)
            break;
        (*idx)++;
    }
    if (!e)
        *idx = fs->geo.P;
    return 0;
}

/* A sector of head h at ppn whose page fails its ECC but whose tag holds
 * (t) is replayed only where the log goes on after it: a sector later in
 * sequence in the slot after it (or the first of the unit named next) or
 * at the other head's slot.  Then it was programmed whole and damaged
 * since, and skipping it would end replay there and drop every commit
 * after it; a torn program is the log's last, so its page is left out as
 * before (DESIGN.md §6, "A page lost to an uncorrectable error").  1, 0,
 * or EIO where a tag that would tell returns no bytes (the mount fails and
 * can be tried again: taken for none, it ended replay there). */
static int followed(steadyfs *fs, uint32_t h, uint32_t ppn, const sfs_tag *t)
{
    uint32_t cand[2], i, nb, ob = h ? fs->log.head_block : fs->log.gh_block;
    uint32_t oi = h ? fs->log.head_idx : fs->log.gh_idx;
    sfs_tag n;
    nb = sfs_next_unit(fs, (int)h);
    cand[0] = ppn % fs->geo.P + 1u < fs->geo.P ? ppn + 1u : nb != SFS_NONE ? nb * fs->geo.P : SFS_NONE;
    cand[1] = ob != SFS_NONE && oi < fs->geo.P ? ob * fs->geo.P + oi : SFS_NONE;
    for (i = 0; i < 2; i++) {
        int rc = cand[i] != SFS_NONE && cand[i] != ppn ? sfs_rd_tag(fs, cand[i], &n) : STEADYFS_ECORRUPT;
        if (rc == STEADYFS_EIO)
            return rc;
        if (rc == 0 && n.seq > t->seq)
            return 1;
    }
    return 0;
}

/* The tag at ppn for replay: 0, 1 (a page past its ECC whose tag holds),
 * ECORRUPT (torn, erased, damaged: not a sector of the log), or EIO: the
 * device returns no bytes for it (media.c rd has tried again).  That is
 * not the log's end: the mount fails and can be tried again.  (Taken as
 * the end, a transient read error dropped every commit after that sector
 * -- test_fs_io_errors.) */
static int tag_at(steadyfs *fs, uint32_t ppn, sfs_tag *t)
{
    return sfs_rd_tag_in(fs, ppn, t, 1);
}

/* Replay the log after the checkpoint, in sequence order: each next
 * sector is at the host head or at the collection head.  The tag last read
 * at each head is kept until that head moves on, so every replayed sector
 * costs one tag read, and the end of the log two (steadyfs_bound's mount:
 * before, both heads were read for every sector). */
static int replay(steadyfs *fs)
{
    uint32_t ppn = SFS_NONE, h, *idx, at[2] = {SFS_NONE, SFS_NONE}, tat = SFS_NONE;
    uint64_t exp = fs->log.seq;
    sfs_tag seen[2], tseen;
    const sfs_tag *t;
    int rc, ok[2] = {0, 0}, tread = 0, tok = 0;
    for (;;) {
        for (h = 0; h < 2; h++) {
            uint32_t b = h ? fs->log.gh_block : fs->log.head_block, nb = SFS_NONE;
            idx = h ? &fs->log.gh_idx : &fs->log.head_idx;
            if (b == SFS_NONE)
                continue;
            if (*idx >= fs->geo.P) {
                /* a full head went on in the unit the checkpoint named as
                 * its next, if that unit's first sector is the next one;
                 * the host head may have gone on in the closed unit named
                 * for it instead, at its first slot not passed */
                nb = sfs_next_unit(fs, (int)h);
                if (STEADYFS_ERASELESS_MEDIA && !h && fs->log.thread_next != SFS_NONE) {
                    if (!tread) {   /* its first slot not passed, read once */
                        uint32_t i = 0;
                        while (i < fs->geo.P && (fs->log.thread_skip >> i & 1u))
                            i++;
                        tread = 1;
                        tat = fs->log.thread_next * fs->geo.P + i;
                        rc = i < fs->geo.P ? tag_at(fs, tat, &tseen) : STEADYFS_ECORRUPT;
                        if (rc == STEADYFS_EIO || fs->dead)
                            return STEADYFS_EIO;
                        tok = rc == 0;
                    }
                    if (tok && tseen.seq == exp) {
                        sfs_enter_thread(fs);
                        ppn = at[0] = tat;
                        seen[0] = tseen;
                        ok[0] = 1;
                        break;
                    }
                }
                if (nb == SFS_NONE)
                    continue;
                ppn = nb * fs->geo.P;
            } else {
                ppn = b * fs->geo.P + *idx;
            }
            if (at[h] != ppn) {
                rc = tag_at(fs, ppn, &seen[h]);
                if (rc == STEADYFS_EIO || (rc < 0 && fs->dead))
                    return rc;
                at[h] = ppn;
                ok[h] = rc == 0;
                if (rc == 1 && (rc = followed(fs, h, ppn, &seen[h])) < 0)
                    return rc;
                ok[h] |= rc == 1;
                if (fs->dead)
                    return STEADYFS_EIO;
            }
            if (ok[h] && seen[h].seq == exp) {
                if (nb != SFS_NONE)
                    sfs_enter_next(fs, (int)h);   /* the move, as the head made it */
                break;
            }
            /* torn or never written: not here */
        }
        if (h == 2)
            break;   /* the log ends */
        t = &seen[h];
        if (t->kind == TK_DATA && (t->flags & TF_COPY)) {
            /* an open transaction's sector: its change names the copy
             * before the record says it was copied (as at run time) */
            rc = t->flags & TF_COMMIT ? 0 : sfs_apply_prog(fs, t->key, ppn, t->owner, t->txn, SFS_UNKNOWN);
            if (!rc)
                rc = sfs_reloc_copy(fs, t, t->aux, ppn);
        } else if (t->kind == TK_DATA) {
            rc = sfs_apply_data(fs, t, ppn, SFS_UNKNOWN);
        } else if (t->kind == TK_MAP1 && (t->flags & TF_TRIM)) {
            /* a trim step not followed by its checkpoint (the next program
             * after it): it never happened; the old L1 sector is still
             * there (LIMBO) and the dying chunks are trimmed again */
            rc = 0;
        } else if (t->kind == TK_MAP1 || t->kind == TK_MAP2) {
            rc = sfs_apply_map(fs, t, ppn);
        } else {
            break;
        }
        if (rc)
            return rc;
        exp++;
        (*idx)++;
        if (!h)
            sfs_log_skip_live(fs);   /* the slots the host head passed (format 11) */
    }
    /* sequence numbers continue past anything torn; the first program
     * after mount is a checkpoint */
    fs->log.seq = exp + 1;
    sfs_abort(fs, 1, 0, 0);
    rc = resume(fs, fs->log.head_block, &fs->log.head_idx);
    if (!rc)
        rc = resume(fs, fs->log.gh_block, &fs->log.gh_idx);
    /* a full head's named next unit that replay did not enter may hold a
     * torn first sector (the move had begun): it is erased before use --
     * also where the head is full only since resume passed sectors that do
     * not read erased (replay ended early at a damaged one: the head went
     * on into that unit afterwards) */
    for (h = 0; h < 2; h++) {
        uint32_t nb = sfs_next_unit(fs, (int)h);
        if (nb != SFS_NONE && (h ? fs->log.gh_idx : fs->log.head_idx) >= fs->geo.P)
            sfs_set_state(fs, nb, BS_FREE);
    }
    sfs_reloc_mounted(fs);
    fs->reloc.changed = 1;   /* the first checkpoint saves what replay rebuilt */
    fs->log.need_ckpt = 1;
    return rc;
}

/* Media without erase: make the maybe-live bits exact after replay (at
 * mount every bit was set: log.c count() keeps them only from then on).
 * A sector is live if the map names it: each L2 root, each L1 sector the
 * L2 level names, and each word of those L1 sectors, a committed pending
 * L1 change replacing the word of its page; each through the relocation
 * records to where it lives now.  A change that left the sector it
 * replaced counted (PF_OLD, map.c) has that word uncounted here, so the
 * counts the checkpoint kept agree again.  n_l1 sector reads
 * (steadyfs_bound's mount).  Test builds then check the bits against
 * every unit's live count: they are the same set, or a count is wrong. */
static void mark(steadyfs *fs, uint32_t ppn, int on)
{
    ppn = sfs_copy_of(fs, ppn);
    if (ppn < fs->geo.nblocks * fs->geo.P)
        sfs_bit_set(sfs_maybe(fs), ppn, on);
}

static int exact_bits(steadyfs *fs)
{
    uint32_t m, j, i, ppn;
    sfs_tag t;
    int rc, damaged = 0;
    memset(sfs_maybe(fs), 0, (fs->geo.nblocks * fs->geo.P + 7u) / 8u);
    for (i = 0; i < fs->geo.n_l2; i++)
        if (fs->root[i] != SFS_NONE)
            mark(fs, fs->root[i], 1);
    for (m = 0; m < fs->geo.n_l1; m++) {
        rc = sfs_l1_locate(fs, m, &ppn);
        if (rc)
            return rc;
        if (ppn == SFS_NONE)
            continue;
        /* (its L2 word lost and no copy of it found by its tag, map.c
         * l1_by_tags: its pages are lost, and mount goes on) */
        damaged |= ppn == SFS_LOST;
        if (ppn == SFS_LOST)
            continue;
        mark(fs, ppn, 1);
        rc = sfs_rd_sector(fs, ppn, fs->buf, &t);
        /* a damaged L1 sector (its data CRC fails): its words as read
         * count where their checks hold -- a bit set on a dead sector is
         * only caution, and the page of a word the damage changed is lost
         * anyway (map.c rebuild, when the sector is next merged).  Mount
         * goes on: one sector does not make the volume unreadable. */
        if (rc < 0 && (fs->dead || rc != STEADYFS_ECORRUPT))
            return rc;
        damaged |= rc < 0;
        for (j = 0; j < fs->geo.e1; j++) {
            uint32_t w = sfs_map_get(fs, fs->buf, m * fs->geo.e1, j);
            struct sfs_pend *p = sfs_pend_find(fs, PT_L1, m * fs->geo.e1 + j, 0);
            damaged |= w == SFS_LOST;
            /* (a word the damage changed a little counts its sector, as
             * lookups and the rebuild will find it: map.c sfs_word_fix) */
            if (w == SFS_LOST && rc < 0)
                w = sfs_word_fix(fs, TK_MAP1, m * fs->geo.e1 + j, sfs_get32(fs->buf + 4u * j));
            if (!p && w != SFS_NONE)
                mark(fs, w, 1);
            else if (p && (p->flags & PF_OLD))
                sfs_count_dec(fs, w);   /* what it replaced, counted until now */
        }
    }
    /* every replaced sector is uncounted now (those of L1 sectors that
     * map nothing were none) */
    for (i = 0; i < fs->npend; i++)
        fs->pend[i].flags &= (uint8_t)~PF_OLD;
    fs->cache.buf_ppn = SFS_NONE;
    for (i = 0; i < fs->npend; i++)
        if (fs->pend[i].type == PT_L1 && !(fs->pend[i].flags & PF_UNC) && fs->pend[i].ppn != SFS_NONE)
            mark(fs, fs->pend[i].ppn, 1);
    /* The bits and every unit's live count are the same set, or a count
     * is wrong: test builds stop there -- unless the map is damaged (a
     * sector read here failed, or a word is lost since a rebuild, map.c),
     * where a word the damage changed left its sector counted (one too
     * many).  Every build takes the bits' count then: collection never
     * runs here to find such a sector dead (gc.c finish). */
    for (i = 0; i < fs->geo.nblocks; i++) {
        uint32_t n = 0, *want = i == fs->log.head_block ? &fs->log.head_count
                                : i == fs->log.gh_block ? &fs->log.gh_count : NULL;
        if (!sfs_closed(fs, i) && !want)
            continue;
        for (j = 0; j < fs->geo.P; j++)
            n += sfs_bit(sfs_maybe(fs), i * fs->geo.P + j) != 0;
        if (n == (want ? *want : fs->blk[i]))
            continue;
#ifdef STEADYFS_CHECK_BUDGET
        if (!damaged) {
            fprintf(stderr, "steadyfs: unit %u counts %u live sectors, the map names %u\n", i,
                    want ? *want : fs->blk[i], n);
            abort();
        }
#endif
        (void)damaged;   /* (read by test builds only) */
        fs->live = fs->live - (want ? *want : fs->blk[i]) + n;
        if (want)
            *want = n;
        else
            fs->blk[i] = (uint8_t)n;
    }
    return 0;
}

/* The first sector's tag of anchor ring slot a: 1 if it is an anchor
 * sector (*t), 0 if not (erased, torn or something else), or an error. */
static int anchor_first(steadyfs *fs, uint32_t a, sfs_tag *t)
{
    int rc = sfs_rd_tag(fs, sfs_anchor_unit(fs, a) * fs->geo.P, t);
    if (rc < 0 && rc != STEADYFS_ECORRUPT)
        return rc;
    return rc >= 0 && t->kind >= TK_CKPT;   /* TK_CKPT or TK_RELOC */
}

/* The newest slot of the anchor ring (*a, its first tag *t).  Slots are
 * started in ring order, each at a sequence number above every anchor
 * sector before it, and only the slot after the newest may be erased (the
 * erase ahead) or torn (a switch cut short), or, in the ring's first lap,
 * every slot after it.  So with slot 0 valid, the slots from 0 to the
 * newest start at or above slot 0 and the others do not (older, erased or
 * torn); with slot 0 not valid, it is the one after the newest, and every
 * other slot is valid.  A binary search: 1 + ceil(log2 A) tag reads
 * (steadyfs_bound's mount). */
static int anchor_newest(steadyfs *fs, uint32_t *a, sfs_tag *t)
{
    sfs_tag t0, tm;
    uint32_t lo = 0, hi = sfs_anchors(fs), mid;
    int ok0 = anchor_first(fs, 0, &t0), rc;
    if (ok0 < 0)
        return ok0;
    *t = t0;
    if (!ok0) {
        lo = 1;
        rc = anchor_first(fs, 1, t);
        if (rc <= 0)
            return rc < 0 ? rc : STEADYFS_ECORRUPT;
    }
    while (hi - lo > 1) {
        mid = (lo + hi) / 2;
        rc = anchor_first(fs, mid, &tm);
        if (rc < 0)
            return rc;
        if (rc && (!ok0 || tm.seq >= t0.seq)) {
            lo = mid;
            *t = tm;
        } else {
            hi = mid;
        }
    }
    *a = lo;
    return 0;
}

/* The newest checkpoint of unit u, whose first sector has sequence base:
 * a binary search (from its last sector first where the unit was `full`
 * when left: a failed program may have ended it early), then that sector
 * read into fs->buf, up to two back -- only the newest sector can be torn,
 * and a relocation sector may come before it.  0 (*at, its tag *t),
 * ECORRUPT: none there (the caller may fall back), or an error that fails
 * the mount: EIO where the device returns no bytes (not torn: the one
 * before it is an older checkpoint whose log collection may since have
 * erased; the mount can be tried again -- test_fs_io_errors mounts with
 * errors on). */
static int newest_ckpt(steadyfs *fs, uint32_t u, uint64_t base, int full, uint32_t *at, sfs_tag *t)
{
    uint32_t lo = 0, hi = fs->geo.P, mid, back = 0;
    int rc;
    if (full && unit_ok(fs, u, fs->geo.P - 1u, base) > 0)
        lo = fs->geo.P - 1u;
    while (hi - lo > 1) {
        mid = (lo + hi) / 2;
        rc = unit_ok(fs, u, mid, base);
        if (rc < 0)
            return rc;
        if (rc)
            lo = mid;
        else
            hi = mid;
    }
    for (;;) {
        rc = sfs_rd_sector_in(fs, u * fs->geo.P + lo, fs->buf, t, 1);
        if (rc >= 0 && t->kind == TK_CKPT && t->seq == base + lo) {
            *at = lo;
            return 0;
        }
        if (rc == SFS_NO_BYTES || (rc < 0 && fs->dead))
            return STEADYFS_EIO;
        if (lo == 0 || ++back > 2)
            return STEADYFS_ECORRUPT;
        lo--;
    }
}

/* A unit of the log (not the anchor area, not past the log) or none? */
static int pool_unit(const steadyfs *fs, uint32_t u)
{
    return u >= sfs_reserved(fs) && u < fs->geo.nblocks;
}

/* Media that erase: the newest pointer of anchor ring slot a, whose first
 * tag is *t (anchor_newest): a binary search over the slot's sectors, each
 * a pointer with a sequence number at or above the first's (the slot was
 * erased before its first; only the sector after the newest may be torn).
 * *at its index, *t its tag. */
static int newest_ptr(steadyfs *fs, uint32_t a, sfs_tag *t, uint32_t *at)
{
    uint32_t lo = 0, hi = fs->geo.P, mid, u = sfs_anchor_unit(fs, a);
    uint64_t base = t->seq;
    sfs_tag tm;
    int rc;
    if (t->kind != TK_PTR) {
        /* an earlier format's checkpoint: its version says so */
        rc = sfs_rd_sector(fs, u * fs->geo.P, fs->buf, &tm);
        if (rc >= 0 && tm.kind == TK_CKPT && sfs_get32(fs->buf) == CKPT_MAGIC && sfs_get32(fs->buf + 4) != CKPT_VERSION)
            return STEADYFS_EFORMAT;
        return rc < 0 && rc != STEADYFS_ECORRUPT ? rc : STEADYFS_ECORRUPT;
    }
    while (hi - lo > 1) {
        mid = (lo + hi) / 2;
        rc = sfs_rd_tag(fs, u * fs->geo.P + mid, &tm);
        if (rc < 0 && rc != STEADYFS_ECORRUPT)
            return rc;
        if (rc >= 0 && tm.kind == TK_PTR && tm.seq >= base) {
            lo = mid;
            *t = tm;
        } else {
            hi = mid;
        }
    }
    *at = lo;
    return 0;
}

int sfs_ckpt_mount(steadyfs *fs)
{
    sfs_tag tk, t, tp = {0};
    int rc, fell = 0;
    uint32_t lo = 0, a, u = SFS_NONE, plo = 0, left = SFS_NONE, i, nck = 0;
    uint64_t cseq;
    rc = anchor_newest(fs, &a, &tk);
    if (rc)
        return rc;
    if (sfs_ck_pool(fs)) {
        uint32_t keep;
        rc = newest_ptr(fs, a, &tk, &plo);
        if (rc)
            return rc;
        tp = tk;
        u = tk.key;
        keep = tk.aux;
        if (!pool_unit(fs, u) || (keep != SFS_NONE && (!pool_unit(fs, keep) || keep == u)))
            return STEADYFS_ECORRUPT;
        rc = newest_ckpt(fs, u, tk.seq + 1u, 0, &lo, &t);
        if (rc && rc != STEADYFS_ECORRUPT)
            return rc;
        if (rc) {
            /* the pointer's unit holds no checkpoint of its sequence yet (a
             * switch cut short): the kept unit's newest durable one, which
             * the pointer names (tag txn), older than the pointer */
            if (keep == SFS_NONE || tk.txn >= fs->geo.P)
                return STEADYFS_ECORRUPT;
            left = u;
            u = keep;
            lo = tk.txn;
            rc = sfs_rd_sector_in(fs, u * fs->geo.P + lo, fs->buf, &t, 1);
            if (rc == SFS_NO_BYTES || (rc < 0 && fs->dead))
                return STEADYFS_EIO;
            if (rc < 0 || t.kind != TK_CKPT || t.seq >= tk.seq)
                return rc < 0 && rc != STEADYFS_ECORRUPT ? rc : STEADYFS_ECORRUPT;
        }
    } else {
        for (;;) {
            rc = newest_ckpt(fs, sfs_anchor_unit(fs, a), tk.seq, fell, &lo, &t);
            if (rc != STEADYFS_ECORRUPT)
                break;
            /* no checkpoint in the newest slot's first sectors (a switch cut
             * short): the slot before it, once */
            if (fell++)
                return STEADYFS_ECORRUPT;
            a = (a + sfs_anchors(fs) - 1u) % sfs_anchors(fs);
            rc = anchor_first(fs, a, &tk);
            if (rc <= 0)
                return rc < 0 ? rc : STEADYFS_ECORRUPT;
        }
        if (rc)
            return rc;
    }
    cseq = t.seq;
    sfs_reloc_reset(fs);
    rc = deserialize(fs, fs->buf);
    if (rc)
        return rc;
    if (fs->reloc.table != SFS_NONE) {
        /* in the checkpoint's unit, before it */
        if (fs->reloc.table / fs->geo.P != (sfs_ck_pool(fs) ? u : sfs_anchor_unit(fs, a)) &&
            (sfs_ck_pool(fs) || fs->reloc.table / fs->geo.P >= sfs_reserved(fs)))
            return STEADYFS_ECORRUPT;
        rc = sfs_rd_sector(fs, fs->reloc.table, fs->buf, &t);
        if (rc < 0)
            return rc;
        if (t.kind != TK_RELOC || t.seq >= cseq)
            return STEADYFS_ECORRUPT;
        rc = sfs_reloc_load(fs, fs->buf);
        if (rc)
            return rc;
    }
    fs->anchor.cur = a;
    fs->anchor.has_ckpt = 1;
    fs->anchor.seq = cseq + 1;
    fs->anchor.dirty_next = fs->cfg.bd->geo.needs_erase;
    if (sfs_ck_pool(fs)) {
        /* the ring goes on after the newest pointer; checkpoints after the
         * newest in their unit.  The block table: that unit as the
         * checkpoints', at most one held for the next; a unit the pointer
         * named but a cut kept from its first checkpoint goes back to the
         * pool to be erased (a sector of it may have been programmed). */
        if (tp.seq + 1u > fs->anchor.seq)
            fs->anchor.seq = tp.seq + 1u;
        fs->anchor.next_idx = plo + 1u;
        fs->anchor.unit = (uint16_t)u;
        /* (a kept unit was left: the next checkpoint moves on) */
        fs->anchor.idx = (uint8_t)(left != SFS_NONE ? fs->geo.P : lo + 1u);
        fs->anchor.last = (uint8_t)lo;
        fs->anchor.keep = fs->anchor.spare = fs->anchor.cut_short = SFS_NO_UNIT;
        if (fs->blk[u] != BS_CKPT)
            return STEADYFS_ECORRUPT;
        if (left != SFS_NONE && (fs->blk[left] == BS_QUEUED || fs->blk[left] == BS_CKNEXT)) {
            sfs_set_state(fs, left, BS_FREE);
            fs->anchor.cut_short = (uint16_t)left;   /* (ck_switch erases it) */
        }
        for (i = 0; i < fs->geo.nblocks; i++) {
            nck += fs->blk[i] == BS_CKPT;
            if (fs->blk[i] == BS_CKNEXT) {
                if (fs->anchor.spare != SFS_NO_UNIT)
                    return STEADYFS_ECORRUPT;
                fs->anchor.spare = (uint16_t)i;
            }
        }
        if (nck != 1u)
            return STEADYFS_ECORRUPT;
        if (fs->anchor.idx < fs->geo.P) {
            rc = sfs_rd_erased(fs, u * fs->geo.P + fs->anchor.idx);
            if (rc < 0)
                return rc;
            if (!rc)
                fs->anchor.idx = (uint8_t)fs->geo.P;   /* torn leftovers: the next unit */
        }
    } else {
        fs->anchor.next_idx = lo + 1;
    }
    if (fs->anchor.next_idx < fs->geo.P && fs->cfg.bd->geo.needs_erase) {
        rc = sfs_rd_erased(fs, sfs_anchor_unit(fs, a) * fs->geo.P + fs->anchor.next_idx);
        if (rc < 0)
            return rc;
        if (!rc)
            fs->anchor.next_idx = fs->geo.P;   /* torn leftovers: switch blocks */
    }
    rc = replay(fs);
    return rc || !sfs_maybe(fs) ? rc : exact_bits(fs);
}
