/* Blocks: live-sector counts, the log head, erase-ahead, bad blocks, wear
 * levelling and garbage collection paced by writes (DESIGN.md §4). */
#include "fs/fs_internal.h"
#ifdef STEADYFS_CHECK_BUDGET
#include <stdio.h>
#include <stdlib.h>
#endif

static int closed(const steadyfs *fs, uint32_t b) { return fs->blk[b] <= fs->geo.P; }

/* Erased and ready: queued, or named as a head's next unit. */
static int erased_state(uint8_t s) { return s == BS_QUEUED || s == BS_NEXT || s == BS_GNEXT; }

static void set_state(steadyfs *fs, uint32_t b, uint8_t s)
{
    uint8_t o = fs->blk[b];
    fs->log.nqueued -= erased_state(o);
    fs->log.nfree -= (o == BS_FREE);
    fs->log.nlimbo -= (o == BS_LIMBO);
    fs->log.nqueued += erased_state(s);
    fs->log.nfree += (s == BS_FREE);
    fs->log.nlimbo += (s == BS_LIMBO);
    fs->blk[b] = s;
}

void sfs_set_state(steadyfs *fs, uint32_t b, uint8_t s) { set_state(fs, b, s); }

/* This call erased a unit: it erases none more at its end (sfs_end).  On
 * a medium without erase, sfs_erase issues nothing and nothing is noted:
 * the rule would only move MRAM's housekeeping (em064lx random4k: 3.13-4.04
 * ms with it, 3.08-3.86 without). */
void sfs_note_erase(steadyfs *fs)
{
    if (fs->cfg.bd->geo.needs_erase)
        fs->log.call_erased |= 1u;
}

uint32_t sfs_free_blocks(const steadyfs *fs) { return fs->log.nqueued + fs->log.nfree + fs->log.nlimbo; }

uint32_t sfs_live_limit(const steadyfs *fs)
{
    uint32_t pool = fs->geo.usable > SFS_GC_RESERVE ? fs->geo.usable - SFS_GC_RESERVE : 0;
    uint32_t live = (uint32_t)((uint64_t)fs->cfg.fill_permille * pool * fs->geo.P / 1000u);
    uint32_t held = fs->geo.R + 1u, sw = sfs_sweep_per_record(fs), keep = fs->geo.P / 8u ? fs->geo.P / 8u : 1u;
    /* Collection must net at least P/8 sectors per victim after the
     * sweep's steps, with the units relocated victims hold (R + 1) out of
     * the pool it picks from (sfs_pace_steps, DESIGN.md §6).  Where the
     * fill limit leaves less -- units of 32 sectors (NOR, MRAM): a victim
     * at 75 % frees 8, the sweep takes 4 -- the limit comes down to what
     * does, by at most a quarter. */
    if (pool > held && fs->geo.P > sw + keep) {
        uint32_t cap = (fs->geo.P - sw - keep) * (pool - held);
        if (cap < live)
            live = cap > live - live / 4u ? cap : live - live / 4u;
    }
    return live;
}

/* A unit went bad: the capacity shrinks with it, so writes stop with
 * ENOSPC at what the good units can hold under the fill limit (and
 * collection keeps its pace) instead of running out of erased units with
 * live data far below a limit the device no longer has. */
static void lose_unit(steadyfs *fs, uint32_t b)
{
    sbd_mark_bad(fs->cfg.bd, b * fs->geo.dev_per_block);
    set_state(fs, b, BS_BAD);
    if (fs->geo.usable)
        fs->geo.usable--;
    fs->live_max = sfs_live_limit(fs);
}

/* Live count of a head unit (host or collection head), or NULL. */
static uint32_t *head_count(steadyfs *fs, uint32_t b)
{
    return b == fs->log.head_block ? &fs->log.head_count : b == fs->log.gh_block ? &fs->log.gh_count : NULL;
}

/* Sector ppn counts one live sector more (d 1) or less (d -1) in its unit:
 * a head's count, or a closed unit's (within 0..P); else nothing. */
static void count(steadyfs *fs, uint32_t ppn, int d)
{
    uint32_t b, *hc;
    /* none, unknown, or (a damaged map) no sector of this device */
    if (ppn >= SFS_UNKNOWN || ppn / fs->geo.P >= fs->geo.nblocks)
        return;
    b = sfs_blk(fs, ppn);
    hc = head_count(fs, b);
    if (hc) {
        if (d < 0 && !*hc)
            return;
        *hc += (uint32_t)d;
    } else {
        if (!closed(fs, b) || fs->blk[b] == (d > 0 ? fs->geo.P : 0u))
            return;
        fs->blk[b] = (uint8_t)(fs->blk[b] + d);
    }
    fs->live += (uint32_t)d;
}

void sfs_count_inc(steadyfs *fs, uint32_t ppn) { count(fs, ppn, 1); }

/* A sector no longer counts: where its live copy is, if collection
 * copied it (its record still says so). */
void sfs_count_dec(steadyfs *fs, uint32_t ppn) { sfs_count_dec_raw(fs, sfs_copy_of(fs, ppn)); }

void sfs_count_dec_raw(steadyfs *fs, uint32_t ppn) { count(fs, ppn, -1); }

static int retire_idx(const steadyfs *fs, uint32_t b)
{
    int i;
    for (i = 0; i < 4; i++)
        if (fs->gc.retire[i] != SFS_NONE && (fs->gc.retire[i] & 0x7FFFFFFFu) == b)
            return i;
    return -1;
}

/* Erase a FREE block into the queue; a failing block is retired. */
static int erase_free(steadyfs *fs, uint32_t b)
{
    int ri = retire_idx(fs, b), rc;
    if (ri >= 0 && !(fs->gc.retire[ri] & 0x80000000u)) {
        fs->gc.retire[ri] = SFS_NONE;
        lose_unit(fs, b);
        return 0;
    }
    if (ri >= 0)
        fs->gc.retire[ri] = SFS_NONE;
#ifdef STEADYFS_CHECK_BUDGET
    /* test builds: a unit a relocation record names is never erased */
    if (sfs_reloc_holds(fs, b)) {
        fprintf(stderr, "steadyfs: erasing unit %u, which a relocation record names\n", b);
        abort();
    }
#endif
    rc = sfs_erase(fs, b);
    fs->stats.erase++;
    sfs_note_erase(fs);
    if (rc == SFS_EFAIL) {
        lose_unit(fs, b);
        return 0;
    }
    if (rc)
        return rc;
    set_state(fs, b, BS_QUEUED);
    return 1;
}

/* Next block in state s after the cursor: allocation in round-robin order
 * is the dynamic wear levelling. */
static uint32_t find_state(steadyfs *fs, uint8_t s)
{
    uint32_t k, b;
    for (k = 0; k < fs->geo.nblocks; k++) {
        b = (fs->log.alloc_cursor + k) % fs->geo.nblocks;
        if (fs->blk[b] == s)
            return b;
    }
    return SFS_NONE;
}

int sfs_erase_ahead(steadyfs *fs)
{
    uint32_t b;
    int rc;
    if (!fs->log.erase_budget || fs->dead)
        return 0;
    /* The anchor's other unit goes first only while the log keeps an erased
     * unit beside the one it may take next (or the switch is close): with
     * one left, erasing the anchor's made the log's the next call's forced
     * erase, two erases in consecutive records (a create after a fill:
     * 3.5 ms). */
    if (fs->anchor.dirty_other && fs->anchor.next_idx >= fs->geo.P / 4 &&
        (fs->log.nqueued >= 2 || fs->anchor.next_idx >= fs->geo.P * 3 / 4 || !fs->log.nfree)) {
        fs->log.erase_budget--;
        fs->log.erase_credit = fs->log.erase_credit > fs->geo.P / 2 ? fs->log.erase_credit - fs->geo.P / 2 : 0;
        rc = sfs_erase(fs, fs->anchor.unit[!fs->anchor.cur]);
        sfs_note_erase(fs);
        if (rc == SFS_EFAIL)
            return 0;   /* still dirty: retried before the switch */
        if (rc)
            return rc;
        fs->anchor.dirty_other = 0;
        return 0;
    }
    if (fs->log.nqueued >= SFS_Q_TARGET || !fs->log.nfree)
        return 0;
    b = find_state(fs, BS_FREE);
    if (b == SFS_NONE)
        return 0;
    fs->log.erase_budget--;
    fs->log.erase_credit = fs->log.erase_credit > fs->geo.P / 2 ? fs->log.erase_credit - fs->geo.P / 2 : 0;
    rc = erase_free(fs, b);
    return rc < 0 ? rc : 0;
}

uint32_t sfs_next_unit(steadyfs *fs, int gc)
{
    return find_state(fs, gc ? BS_GNEXT : BS_NEXT);
}

void sfs_name_next(steadyfs *fs)
{
    int gc;
    for (gc = 0; gc < 2; gc++) {
        uint32_t b;
        if ((gc ? fs->log.gh_block : fs->log.head_block) == SFS_NONE ||
            sfs_next_unit(fs, gc) != SFS_NONE)
            continue;
        b = find_state(fs, BS_QUEUED);   /* the unit the move would take */
        if (b != SFS_NONE)
            set_state(fs, b, gc ? BS_GNEXT : BS_NEXT);
    }
}

/* Head gc (0 host, 1 collection) goes on in the erased unit b; the unit it
 * leaves, if any, closes with its count. */
static void enter(steadyfs *fs, int gc, uint32_t b)
{
    uint32_t *blk = gc ? &fs->log.gh_block : &fs->log.head_block;
    uint32_t *cnt = gc ? &fs->log.gh_count : &fs->log.head_count;
    if (*blk != SFS_NONE)
        set_state(fs, *blk, (uint8_t)*cnt);
    set_state(fs, b, BS_HEAD);
    *blk = b;
    *cnt = 0;
    *(gc ? &fs->log.gh_idx : &fs->log.head_idx) = 0;
}

void sfs_enter_next(steadyfs *fs, int gc)
{
    uint32_t b = sfs_next_unit(fs, gc);
    if (b != SFS_NONE)
        enter(fs, gc, b);
}

/* Move a full head (host or collection: gc) to the next erased unit.  Into
 * the unit the last checkpoint named as its next, no checkpoint is needed:
 * replay follows the name (DESIGN.md §5).  Into any other unit (none was
 * named, a program failed, the head is new) the checkpoint that follows
 * the move is what tells replay where the head went. */
static int head_move(steadyfs *fs, int gc)
{
    uint32_t *blk = gc ? &fs->log.gh_block : &fs->log.head_block;
    uint32_t *idx = gc ? &fs->log.gh_idx : &fs->log.head_idx;
    uint32_t b;
    int rc, named;
    while (*idx >= fs->geo.P) {
        b = *blk != SFS_NONE ? sfs_next_unit(fs, gc) : SFS_NONE;
        named = b != SFS_NONE;
        if (b == SFS_NONE)
            b = find_state(fs, BS_QUEUED);
        if (b == SFS_NONE) {
            b = find_state(fs, BS_FREE);
            if (b != SFS_NONE) {
                rc = erase_free(fs, b);
                if (rc < 0)
                    return rc;
                continue;
            }
            /* the other head's next unit (that head then moves with a
             * checkpoint), else the units a checkpoint makes erasable */
            b = sfs_next_unit(fs, !gc);
        }
        if (b == SFS_NONE) {
            if (!fs->log.nlimbo)
                return STEADYFS_ENOSPC;
            rc = sfs_ckpt_write(fs);
            if (rc)
                return rc;
            continue;
        }
        fs->log.alloc_cursor = (b + 1) % fs->geo.nblocks;
        enter(fs, gc, b);
        fs->log.erase_budget++;   /* a call pays for the blocks it fills */
        if (!named)
            fs->log.need_ckpt = 1;   /* replay starts in the heads a checkpoint names */
    }
    return 0;
}

static int reserve_end(steadyfs *fs)
{
    if (fs->log.need_ckpt || fs->log.since_ckpt >= fs->cfg.replay_max)
        return sfs_ckpt_write(fs);
    return 0;
}

/* Collection copies go to a head of their own: data that survived a
 * collection is likely cold, and kept apart from the host's (mostly
 * short-lived) writes it fills whole units that later collections leave
 * alone, instead of spreading over every unit (DESIGN.md §6). */
int sfs_log_reserve_gc(steadyfs *fs)
{
    int rc;
    if (fs->dead)
        return STEADYFS_EIO;
    /* Collection may not take the last SFS_RM_UNITS units unless the call
     * is a removal (unlink, rmdir, rename: fs->rm 2).  Up to format 6 its
     * copies could induce map merges faster than a victim freed space;
     * before this floor such a state ran the device down to no unit at
     * all, and then neither a write nor a delete could ever run again
     * (test_fs_adversary at 90 % of the live limit).  Now collection
     * stops there, writes get ENOSPC, and a delete still works. */
    if (fs->log.gh_idx >= fs->geo.P && fs->rm < 2 && sfs_free_blocks(fs) <= SFS_RM_UNITS)
        return STEADYFS_ENOSPC;
    /* In a removal that finds both heads full and the floor reached, its
     * own sectors (a bucket) take their unit first: collection may then
     * take the last one, and the removal still runs (with one unit left
     * collection took it, and the removal's host-head move, which keeps
     * two, failed with ENOSPC: test_fs_adversary_full) */
    if (fs->log.gh_idx >= fs->geo.P && fs->rm >= 2 && fs->log.head_idx >= fs->geo.P &&
        sfs_free_blocks(fs) <= SFS_RM_UNITS) {
        rc = head_move(fs, 0);
        if (rc)
            return rc;
        /* no host sector follows at once, so replay would not see the
         * move (and the unit it left may become a victim): a checkpoint
         * records it */
        fs->log.need_ckpt = 1;
    }
    rc = head_move(fs, 1);
    fs->log.to_gh = 1;   /* every reserve says where the next sector goes */
    return rc ? rc : reserve_end(fs);
}

int sfs_log_reserve(steadyfs *fs)
{
    uint32_t b;
    int rc;
    if (fs->dead)
        return STEADYFS_EIO;
    if (fs->log.head_idx >= fs->geo.P) {
        uint32_t steps = 0;
        /* a host-head move takes an erased unit only while `keep` are left
         * (DESIGN.md §6): data writes and creates 4, commits (close, sync,
         * truncate: fs->rm 1) and collection's map merges 3, removals
         * (unlink, rmdir, rename: fs->rm 2) 2.  Below that, collection's
         * merges go to the collection head as its copies do, which may
         * take the last unit: collection always goes on with its victim,
         * writes stop first, and a commit or a removal still works */
        uint32_t keep = fs->gc.active ? 3u : 4u - fs->rm;
        /* a host write reaching the reserve first collects (catch-up,
         * DESIGN.md §6): at most 2 (s + 1) steps, twice a sector's pace,
         * once a call, counted in every bound (steadyfs_bound); if that is
         * not enough it fails with ENOSPC, cleanly and within its bound.
         * (Once per host-head move instead, a catch-up's own merges at the
         * host head could bring the next one in the same call, and the
         * bound could only assume they did not.)  What costs no step --
         * the checkpoint that makes emptied units erasable, a unit with
         * nothing live in it -- is done at every such move. */
        while (!fs->gc.active && fs->log.nqueued + fs->log.nfree < keep && steps < 2 * (fs->gc.s + 1)) {
            if (fs->log.nlimbo) {
                rc = sfs_ckpt_write(fs);   /* emptied blocks become erasable */
                if (rc)
                    return rc;
                continue;
            }
            for (b = 0; b < fs->geo.nblocks; b++)
                if (fs->blk[b] == 0 && b != fs->gc.victim && b != fs->gc.wl_victim &&
                    b != fs->gc.waiting)
                    break;
            if (b < fs->geo.nblocks) {
                sfs_reloc_empty(fs, b);   /* empty: nothing to copy */
                continue;
            }
            if (fs->gc.caught_up && !steps)
                break;   /* this call has had its catch-up */
            fs->gc.caught_up = 1;
            fs->gc.active = 2;
            rc = sfs_gc_one(fs);
            fs->gc.active = 0;
            steps++;
            if (rc <= 0) {
                if (rc)
                    return rc;
                break;
            }
        }
        fs->stats.catch_up += steps != 0;
        if (fs->log.head_idx >= fs->geo.P && sfs_free_blocks(fs) < keep) {
            if (!fs->gc.active)
                return STEADYFS_ENOSPC;
            /* collection's map merges follow its copies: with the host
             * head full it must still finish its victim */
            return sfs_log_reserve_gc(fs);
        }
        rc = head_move(fs, 0);
        if (rc)
            return rc;
    }
    fs->log.to_gh = 0;
    return reserve_end(fs);
}

int sfs_log_prog(steadyfs *fs, uint8_t *buf, sfs_tag *t, uint32_t *ppn_out)
{
    uint32_t ppn;
    int rc;
    uint32_t *blk = fs->log.to_gh ? &fs->log.gh_block : &fs->log.head_block;
    uint32_t *idx = fs->log.to_gh ? &fs->log.gh_idx : &fs->log.head_idx;
    if (*idx >= fs->geo.P || fs->log.need_ckpt)
        return STEADYFS_EINVAL;   /* caller forgot sfs_log_reserve */
    ppn = *blk * fs->geo.P + *idx;
    t->seq = fs->log.seq++;
    fs->log.call_ops++;
    if (fs->log.erase_credit < fs->geo.P / 2)
        fs->log.erase_credit++;   /* capped: no burst of erases after a lull */
    rc = sfs_prog_sector(fs, ppn, buf, t);
    (*idx)++;
    fs->log.since_ckpt++;
    if (rc == SFS_EFAIL) {
        /* grown bad block: what it holds moves out by GC, then it is
         * retired; the caller writes its sector again elsewhere */
        int i;
        for (i = 0; i < 4; i++)
            if (fs->gc.retire[i] == SFS_NONE) {
                fs->gc.retire[i] = *blk;
                break;
            }
        *idx = fs->geo.P;
        fs->log.need_ckpt = 1;
        return SFS_RETRY;
    }
    if (rc)
        return rc;
    /* everything but collection's own work calls for collection (the
     * pace: sfs_gc_pace), map merges and inode sectors as data do */
    if (!fs->gc.active && !(t->kind == TK_DATA && (t->flags & TF_COPY)))
        fs->gc.debt++;
    if (t->kind == TK_DATA && t->owner == OWNER_GC)
        fs->stats.copy++;
    else if (t->kind == TK_DATA)
        fs->stats.data++;
    else
        fs->stats.map++;
    *ppn_out = ppn;
    return 0;
}

static uint32_t pick_victim(steadyfs *fs)
{
    uint32_t b, best = SFS_NONE, bestc = fs->geo.P;
    int i;
    for (i = 0; i < 4; i++)
        if (fs->gc.retire[i] != SFS_NONE) {
            b = fs->gc.retire[i] & 0x7FFFFFFFu;
            if (closed(fs, b) && b != fs->gc.wl_victim)
                return b;
        }
    fs->gc.victims++;
    for (b = 0; b < fs->geo.nblocks; b++)
        if (closed(fs, b) && fs->blk[b] < bestc && b != fs->gc.wl_victim &&
            (b != fs->gc.waiting || !fs->chunk.ndying)) {
            best = b;
            bestc = fs->blk[b];
            if (!bestc)
                break;
        }
    return best;
}

/* Static wear levelling: once per SFS_WL_PERIOD greedy victims, the next
 * closed unit in round-robin order, however full, so cold data moves and
 * its unit rejoins the rotation.  It has a slot of its own, moved slowly
 * (it frees nothing) while greedy collection goes on. */
static uint32_t pick_static(steadyfs *fs)
{
    uint32_t k, b;
    for (k = 0; k < fs->geo.nblocks; k++) {
        b = (fs->gc.wl_cursor + k) % fs->geo.nblocks;
        if (closed(fs, b) && b != fs->gc.victim) {
            fs->gc.wl_cursor = (b + 1) % fs->geo.nblocks;
            return b;
        }
    }
    return SFS_NONE;
}

/* Is sector ppn with tag t live?  *unc: the uncommitted change that
 * names it, if it is an open transaction's. */
static int live_of(steadyfs *fs, uint32_t ppn, const sfs_tag *t, struct sfs_pend **unc)
{
    uint32_t cur, c;
    int rc;
    *unc = NULL;
    if (t->kind == TK_DATA) {
        struct sfs_pend *p;
        uint32_t i;
        for (i = 0; i < fs->npend; i++) {
            p = &fs->pend[i];
            if (p->type == PT_L1 && (p->flags & PF_UNC) && p->key == t->key && p->ppn == ppn) {
                *unc = p;
                return 1;
            }
        }
        /* a dying chunk's sectors are dead (still counted until the trim
         * step that frees the chunk) */
        c = sfs_chunk_of_lpn(fs, t->key);
        if (c != CHUNK_NONE && (c >= fs->geo.n_c || sfs_bit(fs->chunk.dying, c)))
            return 0;
        rc = sfs_lookup(fs, t->key, 0, &cur);
        /* the map may still name a sector copied before: its copy is live */
        return rc ? rc : sfs_copy_of(fs, cur) == ppn;
    }
    if (t->kind == TK_MAP1) {
        rc = sfs_l1_locate(fs, t->key, &cur);
        if (rc)
            return rc;
        return cur == ppn;
    }
    if (t->kind == TK_MAP2)
        return t->key < fs->geo.n_l2 && fs->root[t->key] == ppn;
    return 0;
}

/* Collection is done with the unit of a slot: every sector examined. */
static int finish(steadyfs *fs, uint32_t *victim)
{
    int rc;
    /* what is still counted may be a dying chunk's: trim, one L1 sector
     * per step, before judging the count; with no trim step left to this
     * call, the unit waits (a closed unit that counts its dying sectors)
     * and collection goes on with another victim */
    if (fs->blk[*victim] && fs->chunk.ndying) {
        rc = sfs_trim_step(fs);
        if (rc)
            return rc < 0 ? rc : 1;
        fs->gc.waiting = *victim;
        sfs_reloc_end(fs, *victim);   /* its record is complete all the same */
        *victim = SFS_NONE;
        return 1;
    }
    if (fs->blk[*victim]) {
        /* every sector examined, yet counted live: the count drifted
         * (a bug); nothing here is reachable, so free it */
        fs->live -= fs->blk[*victim];
        fs->blk[*victim] = 0;
        fs->gc.drift++;
    }
    if (!sfs_reloc_end(fs, *victim))
        sfs_reloc_empty(fs, *victim);
    *victim = SFS_NONE;
    fs->stats.victim++;
    return 1;
}

/* One step on the victim of a slot (*victim, *idx): examine a sector and
 * move it if live, or finish with the emptied unit.  relocate: the greedy
 * slot, whose copies go to the collection head under a relocation record
 * (no map change: reloc.c); else (static wear levelling, rare) a copy is
 * an ordinary committed change written at the host head, so that the
 * collection head holds nothing but the records' copies. */
static int examine(steadyfs *fs, uint32_t *victim, uint32_t *idx, int relocate)
{
    uint32_t ppn, np;
    sfs_tag t;
    struct sfs_pend *unc;
    int rc, live;
    if (!closed(fs, *victim)) {
        *victim = SFS_NONE;   /* taken by the other slot or emptied meanwhile */
        return 1;
    }
    if (fs->blk[*victim] == 0 || *idx >= fs->geo.P)
        return finish(fs, victim);
    ppn = *victim * fs->geo.P + *idx;
    rc = sfs_rd_tag(fs, ppn, &t);
    if (rc == STEADYFS_ECORRUPT) {
        (*idx)++;
        return 1;
    }
    if (rc < 0)
        return rc;
    /* a merge adds a pending change (and its L2 change); so does a wear
     * levelling copy: room first (making room may itself move the sector) */
    rc = sfs_make_room(fs, 4);
    if (rc)
        return rc;
    live = live_of(fs, ppn, &t, &unc);
    if (live < 0)
        return live;
    if (!live) {
        (*idx)++;
        return 1;
    }
    fs->gc.busy = 2;   /* this call and the next are not light */
    if (t.kind == TK_MAP1)
        rc = sfs_merge_l1(fs, t.key);
    else if (t.kind == TK_MAP2)
        rc = sfs_merge_l2(fs, t.key);
    else {
        rc = relocate ? sfs_log_reserve_gc(fs) : sfs_log_reserve(fs);
        if (rc)
            return rc;
        if (!closed(fs, *victim))
            return 1;   /* the reserve's own collection finished with it */
        rc = sfs_rd_sector(fs, ppn, fs->buf, &t);
        if (rc < 0) {
            /* unreadable live data: nothing left to move */
            (*idx)++;
            return rc == STEADYFS_EIO && !fs->dead ? 1 : rc;
        }
        /* an open transaction's sector keeps key, owner, transaction and
         * file page; a committed one commits itself */
        t.flags = unc ? 0u : TF_COMMIT;
        if (!unc) {
            t.owner = OWNER_GC;
            t.txn = (uint32_t)fs->log.seq;
        }
        if (relocate) {
            t.flags |= TF_COPY;
            t.aux = ppn;
        }
        rc = sfs_log_prog(fs, fs->buf, &t, &np);
        if (rc == SFS_RETRY)
            return 1;
        if (rc)
            return rc;
        if (relocate) {
            rc = sfs_reloc_copy(fs, &t, ppn, np);
        } else {
            rc = sfs_apply_prog(fs, t.key, np, t.owner, t.txn, SFS_UNKNOWN);
            if (!rc && !unc)
                rc = sfs_apply_commit(fs, t.owner, t.txn);
        }
    }
    if (rc == SFS_RETRY)
        return 1;
    if (rc)
        return rc;
    (*idx)++;
    return 1;
}

int sfs_gc_one(steadyfs *fs)
{
    int rc;
    /* the sweep the completed records call for comes first: it keeps
     * records (and the units they hold) within SFS_RELOC_RECS */
    /* short of erased units, the sweep goes ahead of what records call
     * for: the oldest record retires sooner and gives its unit back */
    if (!fs->reloc.owed && fs->reloc.nrec > fs->reloc.active && sfs_free_blocks(fs) <= SFS_Q_TARGET) {
        uint32_t age = fs->reloc.ticks - fs->reloc.done[0];
        fs->reloc.owed = age < fs->geo.n_l1 ? fs->geo.n_l1 - age : 1u;
    }
    rc = sfs_sweep_step(fs);
    if (rc)
        return rc;
    if (fs->gc.victim == SFS_NONE) {
        if (!sfs_reloc_room(fs))
            return 0;
        fs->gc.victim = pick_victim(fs);
        fs->gc.idx = 0;
        if (fs->gc.victim == SFS_NONE)
            return 0;
        fs->gc.c0 = fs->blk[fs->gc.victim];
    }
    return examine(fs, &fs->gc.victim, &fs->gc.idx, 1);
}

static int wl_one(steadyfs *fs)
{
    /* wear levelling frees nothing: it leaves the last units to collection */
    if (fs->log.gh_idx >= fs->geo.P && sfs_free_blocks(fs) < 3)
        return 0;
    if (fs->gc.wl_victim == SFS_NONE) {
        if (fs->gc.victims < fs->gc.wl_next)
            return 0;
        fs->gc.wl_next = fs->gc.victims + SFS_WL_PERIOD;
        fs->gc.wl_victim = pick_static(fs);
        fs->gc.wl_idx = 0;
        if (fs->gc.wl_victim == SFS_NONE)
            return 0;
    }
    return examine(fs, &fs->gc.wl_victim, &fs->gc.wl_idx, 0);
}



int sfs_gc_pace(steadyfs *fs)
{
    uint32_t i, n;
    int rc = 0, settled = 0;
    uint32_t fb;
    /* Dying chunks for SFS_TRIM_AGE sectors (the light calls that trim
     * first did not come: a log rotation's create and first records are
     * not light): one trim step takes one of this sector's collection
     * steps, so every dying chunk is trimmed within that age + n_l1 host
     * sectors (DESIGN.md §5). */
    if (fs->chunk.ndying && (uint32_t)fs->log.seq - fs->chunk.age >= SFS_TRIM_AGE) {
        settled = sfs_trim_step(fs);
        if (settled < 0)
            return settled;
        fs->chunk.age = (uint32_t)fs->log.seq;
    }
    /* static wear levelling: one sector per SFS_WL_STEP written, whatever the pool */
    if ((fs->gc.wl_tick++ & (SFS_WL_STEP - 1u)) == 0) {
        fs->gc.active = 1;
        rc = wl_one(fs);
        fs->gc.active = 0;
        if (rc < 0 && rc != STEADYFS_ENOSPC)
            return rc;
    }
    /* a relocated victim's unit comes back only when its record retires,
     * up to R victims later: collection keeps that many ahead */
    fb = sfs_free_blocks(fs);
    if (fb > fs->gc.low + fs->reloc.nrec && fs->gc.retire[0] == SFS_NONE && fs->gc.retire[1] == SFS_NONE) {
        fs->gc.debt = 0;   /* nothing to pay while the pool is full */
        return 0;
    }
    /* the pace the current victim needs ((P + sw) / (P - its live count
     * - sw)), never more than the fill limit's worst case s_gc.  That need
     * ignores the merges the host's own changes cause (paid through
     * gc.debt, at most SFS_DEBT_STEP sectors' worth a sector): with only
     * the units data writes keep left (SFS_Q_TARGET + 1, sfs_log_reserve),
     * the full pace s_gc, or collection falls behind until the reserve is
     * gone (DESIGN.md §6).  (From one unit below that
     * reserve, the free units sat at the writes' reserve and every head
     * move there collected on the spot: test_fs_adversary, 10^5 calls at
     * 75 %: 476 catch-ups, 11-24 writes failed with ENOSPC, none now) */
    n = fs->gc.s;
    if (fs->gc.victim != SFS_NONE && fb > SFS_Q_TARGET + 1u) {
        uint32_t c0 = fs->gc.c0 < fs->geo.P ? fs->gc.c0 : fs->geo.P - 1;
        uint32_t sw = sfs_sweep_per_record(fs);
        uint32_t need = c0 + sw < fs->geo.P ? (fs->geo.P + sw + (fs->geo.P - c0 - sw) - 1) / (fs->geo.P - c0 - sw) : n;
        if (need < n)
            n = need;
    }
    /* for every sector programmed since (the host's, and the map merges
     * and inode sectors its calls wrote), not one per call */
    {
        /* at most SFS_DEBT_STEP sectors' worth at once: what calls
         * without a pace of their own left is paid over the next ones */
        uint32_t d = fs->gc.debt < 1u ? 1u : fs->gc.debt > SFS_DEBT_STEP ? SFS_DEBT_STEP : fs->gc.debt;
        n *= d;
        fs->gc.debt = fs->gc.debt > d ? fs->gc.debt - d : 0u;
    }
    fs->gc.active = 1;
    for (i = (uint32_t)settled, rc = 0; i < n; i++) {
        rc = sfs_gc_one(fs);
        if (rc <= 0) {
            break;
        }
    }
    fs->gc.active = 0;
    return rc < 0 && rc != STEADYFS_ENOSPC ? rc : 0;
}

int sfs_begin(steadyfs *fs, int modify)
{
    if (!fs || !fs->mounted)
        return STEADYFS_EINVAL;
    if (fs->dead)
        return STEADYFS_EIO;
    fs->log.erase_budget = 1;
    fs->log.call_erased = (uint8_t)((fs->log.call_erased & 1u) << 1);
    fs->log.call_ops = 0;
    fs->gc.caught_up = 0;
    fs->chunk.steps = SFS_TRIMS_PER_CALL;
    sfs_budget_void(fs);   /* the call arms its own kind and size */
    fs->cache.buf_ppn = SFS_NONE;   /* the caller owns the buffer between calls */
    fs->rm = (uint8_t)(modify >> 1);   /* 2 a commit, 4 a removal: DESIGN.md §6 */
    return 0;
}

int sfs_end(steadyfs *fs, int rc)
{
    int r2;
    /* Erase ahead only in a call that programmed something (a call that
     * changes nothing never programs or erases), and then in a light one:
     * one or two sectors (a 4 KiB record), no checkpoint, no map merge, no
     * collection in it or the call before.  At most one erase per half
     * unit of sectors programmed (twice the rate the log uses units),
     * unless no erased unit is left: erases spread out instead of
     * clustering, and a record's worst call is its programs plus one
     * erase, as on the raw device. */
    /* (With one erased unit left the credit needed halves: after a burst
     * of heavy calls -- a fill -- the queue refills in light calls instead
     * of the last unit's erase landing in whatever call empties it.) */
    /* gc.busy counts calls that program (a sync after an O_DSYNC write
     * programs nothing): records, so a cool-down means the same whether a
     * logger calls write + sync or write alone. */
    int small = fs->log.call_ops <= 2, light = small && !fs->gc.busy, kept = 0, erased = 0;
    if (fs->gc.busy && fs->log.call_ops)
        fs->gc.busy--;
    /* A light call does the housekeeping the next call would otherwise be
     * forced into, so that none falls into a heavier call (a log
     * rotation's unlink, create and first record): a checkpoint about to
     * fall due (the next record's two sectors would reach replay_max), or
     * the one that makes emptied units erasable when the erase queue is
     * down to one unit (else the erase is forced into whatever call
     * empties it: a 3.7 ms log4k record after a fill, merges + checkpoint
     * + erase); and the merge the next sector's pending room would force
     * (the table within 5 of full: sfs_prep's sfs_make_room, the same
     * merge one call earlier, so no more merges in all).  If neither is
     * due, one optional piece: a step of a settling kill (one L1 sector:
     * DESIGN.md §5) or a cold merge; else, below, an erase ahead.  No call
     * has an erase beside any of them unless no erased unit is left
     * (DESIGN.md §6). */
    /* ... except in a call whose erase cannot wait (no erased unit left,
     * a free one to erase: the end of this function erases it whatever
     * the call was).  Its housekeeping goes to the next call instead, so
     * no record has an erase beside a merge: a log4k record after a fill
     * had 2 data programs, an early merge and that erase (3.03 ms).  A
     * call that has erased a unit already (a head move that found none
     * queued, an anchor) erases no other: one erase a call. */
    /* (no_erase: below) */
    int no_erase = (fs->log.call_erased & 1u) || (fs->rm == 1u && (fs->log.call_erased & 2u));
    int must_erase = !fs->log.nqueued && fs->log.nfree && fs->log.erase_budget && !no_erase;
    if (!fs->dead && rc >= 0 && light && fs->log.call_ops && !must_erase) {
        r2 = 0;
        if (fs->log.since_ckpt + 2 > fs->cfg.replay_max ||
            (fs->log.nqueued <= 1 && !fs->log.nfree && fs->log.nlimbo)) {
            /* a trim step rides on it: the checkpoint due anyway is the one
             * that must follow the step (one program more, not two) */
            r2 = sfs_trim_step(fs);
            if (r2 >= 0)
                r2 = sfs_ckpt_write(fs);
            kept = 1;
        }
        /* not beside the checkpoint (with its trim step): the merge goes
         * to the next light call, or into the next record if its sectors
         * find no room (together they were a 2 ms record, ten records
         * after a rotation, which the next erase met: DESIGN.md §6) */
        if (!r2 && !kept && fs->npend + 5 > fs->cfg.pending_max) {
            r2 = sfs_make_room(fs, 4);
            kept = 1;
        }
        if (!r2 && !kept) {
            /* an orphan no handle holds (a cut left it, or a removed
             * directory was closed) dies, if its kill can settle later */
            r2 = sfs_reap(fs, 0, 1);
            /* with live room short, a trim step now (and the checkpoint it
             * needs) rather than at the next checkpoint due: a delete's
             * space comes back before writes meet the limit */
            if (!r2 && fs->chunk.ndying && fs->live + SFS_TRIM_ROOM(fs) > fs->live_max) {
                r2 = sfs_trim_step(fs);
                if (r2 > 0 && (r2 = sfs_ckpt_write(fs)) == 0)
                    r2 = 1;
            }
            if (!r2)
                r2 = sfs_merge_cold(fs);
            kept = r2;
        }
        if (r2 < 0)
            rc = r2;
    }
    /* An erase waits for the extra programs of recent calls to drain.  A
     * logger's buffer holds what its records' calls take beyond their
     * input interval; a record of two programs leaves slack that covers
     * about one and a half programs at the rates where erases matter (4
     * MB/s on mt29f1g01: 0.45 ms), so gc.backlog counts each program
     * beyond a call's two as SFS_BACKLOG_PROG and each call of one or two
     * programs drains SFS_BACKLOG_DRAIN, both in half programs.  An
     * optional erase-ahead (not the one a queue down to one unit or to
     * none needs) waits until it is 0: after a rotation the checkpoint,
     * trim step and merges of the next records had met the erase that
     * followed (1.0 + 1.6 + 0.95 + 2.6 ms: 8.2-8.7 KiB at 4 MB/s, DESIGN.md
     * §6).  Above SFS_BACKLOG_LIGHT the calls are not a light stream
     * with a piece of housekeeping now and then, and an erase held back
     * from a light call only lands in a heavier one later: it does not
     * wait (test_fs_adversary: its largest write + sync went from 42-45
     * to 47-58 ms with the wait unbounded). */
    if (fs->log.call_ops > 2) {
        uint32_t l = fs->gc.backlog + SFS_BACKLOG_PROG * (fs->log.call_ops - 2);
        fs->gc.backlog = (uint8_t)(l > 255u ? 255u : l);
    } else if (fs->log.call_ops) {
        fs->gc.backlog = (uint8_t)(fs->gc.backlog > SFS_BACKLOG_DRAIN ? fs->gc.backlog - SFS_BACKLOG_DRAIN : 0u);
    }
    /* A commit right after a call that erased (the sync of a record whose
     * write did) erases nothing at its end either: one erase a record,
     * not only a call (on mt25q128 under test_fs_adversary's churn the
     * sync's erase, the queue empty again after the write's head move,
     * made records of two 1 s erases).  The next call erases if it must. */
    if (!fs->dead && fs->log.erase_budget && fs->log.call_ops && !no_erase &&
        (((light || (small && fs->log.nqueued <= 1)) && !kept &&
          (!fs->gc.backlog || fs->gc.backlog > SFS_BACKLOG_LIGHT || fs->log.nqueued <= 1) &&
          fs->log.erase_credit >= (fs->log.nqueued <= 1 ? fs->geo.P / 4 : fs->geo.P / 2)) ||
         !fs->log.nqueued)) {
        uint32_t budget_before = fs->log.erase_budget;
        r2 = sfs_erase_ahead(fs);
        if (r2 < 0 && rc >= 0)
            rc = r2;
        erased = fs->log.erase_budget != budget_before;
    }
    /* After an erase the next SFS_ERASE_COOL records are not light: no
     * housekeeping and no erase-ahead (unless the queue is down to one
     * unit, above), so a logger's backlog from the erase drains before
     * more optional work adds to it.  Erases had met checkpoints and other
     * erases one or two records apart (2.6 + 0.55 + 2.5 ms: 10.6 KiB of
     * buffer at 4 MB/s); DESIGN.md §6 has the measurements. */
    if (erased && fs->gc.busy < SFS_ERASE_COOL)
        fs->gc.busy = SFS_ERASE_COOL;
    if (fs->dead && rc >= 0)
        rc = STEADYFS_EIO;
    sfs_budget_check(fs);
    return rc;
}

int steadyfs_gc_step(steadyfs *fs, uint32_t budget)
{
    uint32_t done = 0;
    int rc = sfs_begin(fs, 1);
    if (!rc)
        sfs_budget_arm(fs, STEADYFS_CALL_GC_STEP, budget);
    if (rc)
        return rc;
    while (done < budget) {
        fs->chunk.steps = 1;   /* one per step of the budget */
        /* idle time settles a deleted file's counts first: its space
         * shows as free again (DESIGN.md §5) */
        rc = sfs_reap(fs, 0, 1);
        if (!rc) {
            rc = sfs_trim_step(fs);
            if (rc > 0 && (rc = sfs_ckpt_write(fs)) == 0)
                rc = 1;
        }
        if (rc) {
            if (rc < 0)
                break;
            done++;
            continue;
        }
        if (fs->log.nqueued < SFS_Q_TARGET && fs->log.nfree) {
            fs->log.erase_budget = 1;
            rc = sfs_erase_ahead(fs);
            done++;
            if (rc)
                break;
            continue;
        }
        fs->gc.active = 1;
        if (sfs_free_blocks(fs) > fs->gc.low + 2 && fs->gc.victim == SFS_NONE)
            rc = wl_one(fs);   /* idle time with space to spare: wear */
        else
            rc = sfs_gc_one(fs);
        fs->gc.active = 0;
        if (rc == STEADYFS_ENOSPC)
            rc = 0;
        if (rc <= 0)
            break;
        done++;
    }
    fs->log.erase_budget = 0;
    rc = sfs_end(fs, rc < 0 ? rc : 0);
    return rc < 0 ? rc : (int)done;
}

