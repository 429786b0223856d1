/* Collection: greedy victims examined sector by sector, their live
 * sectors relocated, static wear levelling, the pace writes pay, the
 * sweep that retires relocation records, and the catch-up and checkpoints
 * a reserve asks for (DESIGN.md §6).  Layer 5 of the core (fs_internal.h):
 * above the log, the map and checkpoints. */
#include "fs/fs_internal.h"
#ifdef STEADYFS_CHECK_BUDGET
#include <stdio.h>
#include <stdlib.h>
#endif

/* The greedy victim: the closed unit with the fewest live sectors, ties
 * to the first after the allocation cursor.  The host head takes units in
 * that round-robin order, so the first after it is the one written
 * longest ago: a logger whose old files die whole frees its units in the
 * order it wrote them, and every unit takes its turn.  (Ties to the lowest
 * unit number, before 2026-12-01, freed the same few low units over and
 * over while the dead units above them waited: a logger of 2 MB on a
 * 256-unit device erased 40 units 25-29 times and 200 once or twice.) */
static uint32_t pick_victim(steadyfs *fs)
{
    uint32_t k, b, best = SFS_NONE, bestc = fs->geo.P;
    int i;
    for (i = 0; i < 4; i++)
        if (fs->health.retire[i] != SFS_NONE) {
            b = fs->health.retire[i] & 0x7FFFFFFFu;
            if (sfs_closed(fs, b) && b != fs->gc.wl_victim)
                return b;
        }
    fs->gc.victims++;
    for (k = 0; k < fs->geo.nblocks; k++) {
        b = (fs->log.alloc_cursor + k) % fs->geo.nblocks;
        if (sfs_closed(fs, b) && fs->blk[b] < bestc && b != fs->gc.wl_victim && b != fs->log.thread_next &&
            (b != fs->gc.waiting || !fs->chunk.ndying)) {
            best = b;
            bestc = fs->blk[b];
            if (!bestc)
                break;
        }
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
        if (sfs_closed(fs, b) && b != fs->gc.victim && b != fs->log.thread_next) {
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

/* A live data sector at ppn into fs->buf to be copied: 0,
 * or 1 if its bytes are gone -- uncorrectable, or its data CRC fails (a
 * lost page's copy, or damage no ECC saw) -- and the copy must say so
 * (TF_LOST): the map goes on naming a sector of the page, and every read
 * of it is EIO, where skipping it would leave the map naming a sector
 * that is erased and written again with other data.  Or an error: EIO
 * where the device returns no bytes for it (a link error that outlasts
 * the media layer's tries is not the page's loss; the call fails and
 * collection reads it again later). */
static int read_live(steadyfs *fs, uint32_t ppn)
{
    sfs_tag seen;
    int rc = sfs_rd_sector_in(fs, ppn, fs->buf, &seen, 1);
    if (rc >= 0)
        return 0;
    if (fs->dead || (rc != STEADYFS_EIO && rc != STEADYFS_ECORRUPT))
        return rc == SFS_NO_BYTES ? STEADYFS_EIO : rc;
    memset(fs->buf, 0, fs->geo.payload);
    fs->cache.buf_ppn = SFS_NONE;
    return 1;
}

/* Unit b, counted live after collection examined every sector, was
 * freed: a pending change whose replaced sector stayed counted (PF_OLD)
 * and lies in b has had that count taken, and its merge must not uncount
 * it again -- in b, erased and written again by then, that would count
 * one live sector too few, and collection finishes a unit whose count
 * reaches 0 without examining the rest.  Where the word cannot be read,
 * the flag goes too: a count one too high only delays that unit. */
static void old_freed(steadyfs *fs, uint32_t b)
{
    uint32_t i, l1, w;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type != PT_L1 || !(p->flags & PF_OLD))
            continue;
        if (sfs_l1_locate(fs, p->key / fs->geo.e1, &l1) || l1 >= SFS_LOST ||
            sfs_xc_word(fs, 0, l1, p->key, &w) || (w < SFS_LOST && sfs_blk(fs, sfs_copy_of(fs, w)) == b))
            p->flags &= (uint8_t)~PF_OLD;
    }
}

/* Collection is done with the unit of a slot: every sector examined. */
static int finish(steadyfs *fs, uint32_t *victim, sfs_mode mode)
{
    int rc;
    /* what is still counted may be a dying chunk's: trim, one L1 sector
     * per step, before judging the count; with no trim step left to this
     * call, the unit waits (a closed unit that counts its dying sectors)
     * and collection goes on with another victim */
    if (fs->blk[*victim] && fs->chunk.ndying) {
        rc = sfs_trim_step(fs, mode);
        if (rc)
            return rc < 0 ? rc : 1;
        fs->gc.waiting = *victim;
        sfs_reloc_end(fs, *victim);   /* its record is complete all the same */
        *victim = SFS_NONE;
        return 1;
    }
    if (fs->blk[*victim]) {
        /* every sector examined, yet counted live: the count drifted
         * (a bug), or it holds a sector a commit replaced that stays
         * counted until its L1 sector's merge (PF_OLD: the word could not
         * be read at the commit); nothing here is reachable, so free it */
        fs->live -= fs->blk[*victim];
        fs->blk[*victim] = 0;
        fs->gc.drift++;
        old_freed(fs, *victim);
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
static int examine(steadyfs *fs, uint32_t *victim, uint32_t *idx, int relocate, sfs_mode mode)
{
    uint32_t ppn, np, whose;
    sfs_tag t;
    struct sfs_pend *unc;
    int rc, live;
    if (!sfs_closed(fs, *victim)) {
        *victim = SFS_NONE;   /* taken by the other slot or emptied meanwhile */
        return 1;
    }
    if (fs->blk[*victim] == 0 || *idx >= fs->geo.P)
        return finish(fs, victim, mode);
    ppn = *victim * fs->geo.P + *idx;
    if (sfs_maybe(fs) && !sfs_bit(sfs_maybe(fs), ppn)) {
        (*idx)++;   /* dead for certain (log.c count): no tag to read */
        return 1;
    }
    /* (a page that fails its ECC is still judged by its tag, whose own
     * CRC holds: a live one is copied as lost, below) */
    rc = sfs_rd_tag_in(fs, ppn, &t, 1);
    if (rc == STEADYFS_ECORRUPT) {
        (*idx)++;
        return 1;
    }
    if (rc < 0)
        return rc;
    /* a merge adds a pending change (and its L2 change); so does a wear
     * levelling copy: room first (making room may itself move the sector) */
    SFS_SERVED(fs, mode, rc, sfs_make_room(fs, 4, mode));
    if (rc)
        return rc;
    live = live_of(fs, ppn, &t, &unc);
    if ((live == STEADYFS_EIO || live == STEADYFS_ECORRUPT) && !fs->dead) {
        /* the map sector that says whether it is live is damaged: it is
         * rebuilt (map.c rebuild: its parent L2 sector too, if that is
         * the damaged one), then this sector is examined again */
        SFS_SERVED(fs, mode, rc,
                   t.kind == TK_DATA ? sfs_merge_l1(fs, t.key / fs->geo.e1, mode)
                                     : sfs_merge_l2(fs, t.key / fs->geo.e1, mode));
        return rc ? rc : 1;
    }
    if (live < 0)
        return live;
    if (!live) {
        (*idx)++;
        return 1;
    }
    fs->gc.busy = 2;   /* this call and the next are not light */
    if (t.kind == TK_MAP1)
        SFS_SERVED(fs, mode, rc, sfs_merge_l1(fs, t.key, mode));
    else if (t.kind == TK_MAP2)
        SFS_SERVED(fs, mode, rc, sfs_merge_l2(fs, t.key, mode));
    else {
        SFS_SERVED(fs, mode, rc, relocate ? sfs_log_reserve_gc(fs, mode) : sfs_log_reserve(fs, mode));
        if (rc)
            return rc;
        if (!sfs_closed(fs, *victim))
            return 1;   /* the reserve's own collection finished with it */
        rc = read_live(fs, ppn);
        if (rc < 0)
            return rc;
        /* an open transaction's sector keeps key, owner, transaction and
         * file page; a committed one commits itself, and keeps whose it
         * is where that is known (TF_OWNED: txn the owner, for a repair);
         * one whose bytes are gone stays lost in its copy (rc 1) */
        whose = sfs_tag_whose(&t);
        t.flags = (unc ? 0u : TF_COMMIT) | (rc ? TF_LOST : 0u);
        if (!unc) {
            t.owner = OWNER_GC;
            t.txn = whose != OWNER_GC ? whose : (uint32_t)fs->log.seq;
            t.flags |= whose != OWNER_GC ? TF_OWNED : 0u;
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
            /* an open transaction's sector: its change names the copy
             * (counted there) before the record says it was copied */
            if (unc)
                rc = sfs_apply_prog(fs, t.key, np, t.owner, t.txn, SFS_UNKNOWN);
            if (!rc)
                rc = sfs_reloc_copy(fs, &t, ppn, np);
            /* a committed inode sector: its open handle's copy of where it is */
            if (!rc && !unc && t.key < fs->geo.cbase && sfs_shared_k(fs, t.key) == 0) {
                struct sfs_open *o = sfs_primary(fs, sfs_shared_ino(fs, t.key));
                if (o && o->ino_ppn == ppn)
                    o->ino_ppn = np;
            }
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

int sfs_gc_one(steadyfs *fs, sfs_mode mode)
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
    rc = sfs_sweep_step(fs, mode);
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
    return examine(fs, &fs->gc.victim, &fs->gc.idx, 1, mode);
}

int sfs_wl_one(steadyfs *fs, sfs_mode mode)
{
    /* wear levelling frees nothing: it leaves the last units to collection;
     * and evens out erases, which media without erase do not count (MRAM
     * writes without wearing out: its copies would only cost time) */
    if ((fs->log.gh_idx >= fs->geo.P && sfs_free_blocks(fs) < 3) || !fs->cfg.bd->geo.needs_erase)
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
    return examine(fs, &fs->gc.wl_victim, &fs->gc.wl_idx, 0, mode);
}



/* A collection step (step: sfs_gc_one or sfs_wl_one) in a call of kind
 * mode, as collection's own work: what it programs adds no debt (the pace
 * pays for the host's sectors, not its own). */
int sfs_collect(steadyfs *fs, int (*step)(steadyfs *, sfs_mode), sfs_mode mode)
{
    uint32_t debt = fs->log.debt;
    int rc = step(fs, mode | SFS_MODE_GC);
    fs->log.debt = debt;
    return rc;
}

/* The pool is full with `spare` units over collection's threshold and
 * no unit waits to be evacuated: the pace has nothing to pay.  The
 * threshold keeps ahead the units relocation records may hold, R + 1,
 * not only those they hold now: a victim's unit comes back only when its
 * record retires, a whole sweep lap after it, so collection that starts
 * with few records (after a fill, or a quiet spell) gives nothing back
 * for R victims while both heads go on taking units.  Started at gc.low +
 * the records held (none), that first lap ran the free units down to
 * where the sweep was hurried or a host-head move collected on the spot
 * (a catch-up): 4 of 33 draws of test_fs_adversary, each in its first
 * lap, and their largest calls; none since (DESIGN.md §10). */
/* The R + 1 units relocation records may hold are more than an eighth of
 * the pool (mt25q128, em064lx, small test devices): the sweep walks past
 * clean indices for them, and collection does not start R + 1 early. */
static int records_weigh(const steadyfs *fs)
{
    uint32_t pool = fs->geo.usable > SFS_GC_RESERVE ? fs->geo.usable - SFS_GC_RESERVE : 0;
    return fs->geo.R + 1u > pool / 8u;
}

static int pool_full(const steadyfs *fs, uint32_t spare)
{
    /* (media without erase: collection never runs where the pigeonhole
     * holds, and the threaded head is asked only with the pool low; where
     * the records weigh, the sweep's own hurry serves) */
    uint32_t held = sfs_maybe(fs) || records_weigh(fs) || fs->reloc.nrec > fs->geo.R + 1u
                        ? fs->reloc.nrec
                        : fs->geo.R + 1u;
    return sfs_free_blocks(fs) > fs->gc.low + held + spare && fs->health.retire[0] == SFS_NONE &&
           fs->health.retire[1] == SFS_NONE;
}

int sfs_pace_quiet(const steadyfs *fs, uint32_t sectors)
{
    uint32_t k;
    /* (the same tests sfs_gc_pace makes, for the next `sectors` calls) */
    if (fs->chunk.ndying && (uint32_t)fs->log.seq + sectors - fs->chunk.age >= SFS_TRIM_AGE)
        return 0;
    for (k = 0; k < sectors; k++)
        if (((fs->gc.wl_tick + k) & (SFS_WL_STEP - 1u)) == 0)
            return 0;
    return pool_full(fs, 1);   /* (one over: the record's head move may take a unit) */
}

int sfs_gc_pace(steadyfs *fs, sfs_mode mode, uint32_t most)
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
        settled = sfs_trim_step(fs, mode);
        if (settled < 0)
            return settled;
        fs->chunk.age = (uint32_t)fs->log.seq;
    }
    /* static wear levelling: one sector per SFS_WL_STEP written, whatever the pool */
    if ((fs->gc.wl_tick++ & (SFS_WL_STEP - 1u)) == 0) {
        rc = sfs_collect(fs, sfs_wl_one, mode);
        if (rc < 0 && rc != STEADYFS_ENOSPC)
            return rc;
    }
    /* a relocated victim's unit comes back only when its record retires,
     * up to R victims later: collection keeps that many ahead */
    fb = sfs_free_blocks(fs);
    if (pool_full(fs, 0)) {
        fs->log.debt = 0;   /* nothing to pay while the pool is full */
        fs->gc.pace_carry = 0;
        return 0;
    }
    /* media without erase: where the host head can go on in a closed
     * unit's dead sectors, nothing needs copying (asked only with the
     * pool low: the answer scans every unit's bits) */
    if (sfs_maybe(fs) && fs->health.retire[0] == SFS_NONE && sfs_log_can_thread(fs)) {
        fs->log.debt = 0;
        return 0;
    }
#ifdef STEADYFS_CHECK_BUDGET
    /* test builds: where the pigeonhole holds (log.c), collection never
     * has to run */
    if (sfs_thread_min(fs, sfs_maybe(fs) != NULL) && !fs->reloc.nrec && fs->health.retire[0] == SFS_NONE) {
        fprintf(stderr, "steadyfs: collection asked for on a medium without erase (live %u of %u)\n", fs->live,
                fs->live_max);
        abort();
    }
#endif
    /* the pace the current victim needs ((P + sw) / (P - its live count
     * - sw)), never more than the fill limit's worst case s_gc.  That need
     * ignores the merges the host's own changes cause (paid through
     * log.debt, at most SFS_DEBT_STEP sectors' worth a sector): with only
     * the units data writes keep left (SFS_Q_TARGET + 1, sfs_log_reserve),
     * the full pace s_gc, or collection falls behind until the reserve is
     * gone (DESIGN.md §6).  (From one unit below that
     * reserve, the free units sat at the writes' reserve and every head
     * move there collected on the spot: test_fs_adversary, 10^5 calls at
     * 75 %: 476 catch-ups, 11-24 writes failed with ENOSPC, none now) */
    n = fs->gc.pace;   /* (in 1/SFS_PACE_ONE steps) */
    if (fs->gc.victim != SFS_NONE && fb > SFS_Q_TARGET + 1u) {
        uint32_t c0 = fs->gc.c0 < fs->geo.P ? fs->gc.c0 : fs->geo.P - 1;
        uint32_t sw = sfs_sweep_per_record(fs);
        uint32_t net = fs->geo.P - c0 - sw;
        /* (in whole steps, rounded up, as before the pace was kept in
         * fractions: a victim that began nearly empty keeps a little
         * slack over its need; run fractionally, random4k seeds 1-10 and
         * the adversary's draws 0-4 measured the same within noise) */
        uint32_t need = c0 + sw < fs->geo.P ? SFS_PACE_ONE * ((fs->geo.P + sw + net - 1) / net) : n;
        if (need < n)
            n = need;
    }
    /* for every sector programmed since (the host's, and the map merges
     * and inode sectors its calls wrote), not one per call */
    {
        /* at most `most` sectors' worth at once (SFS_DEBT_STEP; a commit
         * one, its inode sector): what calls without a pace of their own
         * left is paid over the next ones.  The whole steps of what is
         * owed run now, the fraction waits for the next call (pace_carry),
         * so the calls of any stretch run at most one step more than the
         * pace times their sectors' worth: what steadyfs_bound counts. */
        uint32_t d = fs->log.debt < 1u ? 1u : fs->log.debt > most ? most : fs->log.debt;
        n = n * d + fs->gc.pace_carry;
        fs->gc.pace_carry = (uint8_t)(n % SFS_PACE_ONE);
        n /= SFS_PACE_ONE;
        fs->log.debt = fs->log.debt > d ? fs->log.debt - d : 0u;
    }
    for (i = (uint32_t)settled, rc = 0; i < n; i++) {
        rc = sfs_collect(fs, sfs_gc_one, mode);
        if (rc <= 0) {
            break;
        }
    }
    return rc < 0 && rc != STEADYFS_ENOSPC ? rc : 0;
}

/* The sweep (DESIGN.md §6): one L1 merge per step at a dirty index of the
 * round-robin walk, and the records it lets retire (reloc.c). */
int sfs_sweep_step(steadyfs *fs, sfs_mode mode)
{
    uint32_t m, lap;
    int rc, merged = 0;
    int short_of_units = records_weigh(fs) && fs->reloc.nrec > sfs_free_blocks(fs);
    /* A step is one L1 merge, or nothing at a clean index.  On a device
     * where the R + 1 units records may hold are more than an eighth of
     * the pool (the small devices of tests and of the torture: 13 of 12
     * units on a 24-unit mt29f1g01, 16 of 115 on 128 units; when this came
     * in, the default mt25q128 and em064lx too, 31 of 246 and 28 of 118,
     * before their R fell to 15 and 13 with the inode count), and while
     * the records hold more units than are free, a clean index does not
     * even spend what the records owe: the walk goes on past it (up to one
     * lap), so where copies dirtied few L1 sectors (a log's sequential
     * pages) records retire within a few merges and give their units
     * back.  Without that the held units squeezed collection into copying
     * the fill again and again (em064lx log4k: 54 715 copies where format
     * 6 made 628; 2.7 MB/s, now 13.7).  Not everywhere: on mt29f1g01 the
     * adversary's merges rose by a third with it (its largest write +
     * sync 52 -> 83 ms, 35 catch-ups), and with units to spare the held
     * ones rotate through the pool, which levels wear.  Either way the
     * walk covers at least the indices it did when every index spent a
     * step, so the pace's arithmetic (sfs_pace_steps) holds. */
    for (lap = 0; fs->reloc.owed && !merged && lap < fs->geo.n_l1; lap++) {
        m = fs->reloc.cursor;
        merged = sfs_bit(fs->reloc.dirty, m);
        if (merged) {
            /* its L2 change needs a slot (and one spare, as every merge);
             * making room may merge this very sector */
            SFS_SERVED(fs, mode, rc, sfs_make_room(fs, 1, mode));
            if (!rc && sfs_bit(fs->reloc.dirty, m))
                SFS_SERVED(fs, mode, rc, sfs_merge_l1(fs, m, mode));
            if (rc)
                return rc;
            fs->reloc.owed--;
        } else if (!short_of_units) {
            fs->reloc.owed--;
        }
        fs->reloc.cursor = (m + 1u) % fs->geo.n_l1;
        fs->reloc.ticks++;
        fs->reloc.changed = 1;
        sfs_reloc_retire(fs);
        /* every completed record retired: nothing is owed */
        if (fs->reloc.nrec <= fs->reloc.active)
            fs->reloc.owed = 0;
    }
    return merged;
}

/* The host head's catch-up (DESIGN.md §6), asked for by a host-head move
 * short of erased units (SFS_NEED_ROOM): at most 2 (s + 1) collection
 * steps, twice a sector's pace and one, rounded up (sfs_catch_up_steps:
 * the pace's fraction counts), once a call, counted in every bound
 * (steadyfs_bound); if that is not enough the move fails with ENOSPC,
 * cleanly and within its bound.  (Once per host-head move instead, a
 * catch-up's own merges at the host head could bring the next one in the
 * same call, and the bound could only assume they did not.)  What costs
 * no step -- the checkpoint that makes emptied units erasable, a unit with
 * nothing live in it -- is done at every such move.  Then the move. */
static int catch_up(steadyfs *fs, sfs_mode mode)
{
    uint32_t b, steps = 0, keep = 4u - (mode & SFS_MODE_KIND);
    int rc;
    /* Emptied units (LIMBO) count as ready: one checkpoint after the loop
     * makes them all erasable, instead of one for each unit emptied (up
     * to `keep` a move, each two programs: steadyfs_bound counts one a
     * host-head move, DESIGN.md §7) */
    while (sfs_ready_units(fs) + fs->log.nlimbo < keep && steps < sfs_catch_up_steps(fs->gc.pace)) {
        for (b = 0; b < fs->geo.nblocks; b++)
            if (fs->blk[b] == 0 && b != fs->gc.victim && b != fs->gc.wl_victim && b != fs->gc.waiting)
                break;
        if (b < fs->geo.nblocks) {
            sfs_reloc_empty(fs, b);   /* empty: nothing to copy */
            continue;
        }
        if (fs->gc.caught_up && !steps)
            break;   /* this call has had its catch-up */
        fs->gc.caught_up = 1;
        rc = sfs_collect(fs, sfs_gc_one, mode);
        steps++;
        if (rc <= 0) {
            if (rc)
                return rc;
            break;
        }
    }
    fs->stats.catch_up += steps != 0;
    if (fs->log.nlimbo && (rc = sfs_ckpt_write(fs)) != 0)
        return rc;   /* emptied blocks become erasable */
    do
        rc = sfs_log_host_move(fs, mode);
    while (rc == SFS_NEED_CKPT && (rc = sfs_ckpt_write(fs)) == 0);
    return rc;
}

int sfs_serve(steadyfs *fs, int *rc, sfs_mode mode)
{
    if (*rc == SFS_NEED_CKPT)
        *rc = sfs_ckpt_write(fs);
    else if (*rc == SFS_NEED_ROOM)
        *rc = catch_up(fs, mode);
    else
        return 0;
    return *rc == 0;
}

/* Trim steps (DESIGN.md §5): the map words of dying chunks go, an L1
 * sector at a time, and their chunks are free again. */
/* L1 sector of the first logical page of chunk c. */
static uint32_t l1_of(const steadyfs *fs, uint32_t c)
{
    return (fs->geo.cbase + c * fs->geo.C) / fs->geo.e1;
}

/* The dying chunk in the first L1 sector at or after the trim cursor, or
 * SFS_NONE. */
static uint32_t next_dying(const steadyfs *fs)
{
    uint32_t c, k;
    for (k = 0; k < fs->geo.n_c; k++) {
        c = (fs->chunk.trim + k) % fs->geo.n_c;
        if (sfs_bit(fs->chunk.dying, c))
            return c;
    }
    return SFS_NONE;
}

#if STEADYFS_ERASELESS_MEDIA
int sfs_trim_place(steadyfs *fs)
{
    uint32_t c = next_dying(fs), m, place;
    int rc;
    if (c == SFS_NONE)
        return 0;
    m = l1_of(fs, c);
    if (sfs_pend_find(fs, PT_L2, m, 0) || fs->root[m / fs->geo.e1] == SFS_NONE || sfs_xc_has(fs, 1, m))
        return 0;
    rc = sfs_l1_locate(fs, m, &place);
    return rc ? rc : 1;
}
#endif

int sfs_trim_step(steadyfs *fs, sfs_mode mode)
{
    struct sfs_trim tr = {1, 0, CHUNK_NONE, 0, 0};
    uint32_t c, best, m;
    int rc;
    if (!fs->chunk.ndying || !fs->chunk.steps)
        return 0;
    fs->chunk.steps--;
    /* its L2 change needs a slot (and one spare, as every L1 merge) */
    SFS_SERVED(fs, mode, rc, sfs_make_room(fs, 1, mode));
    if (rc)
        return rc;
    best = next_dying(fs);
    if (best == SFS_NONE) {
        fs->chunk.ndying = 0;   /* the count drifted: nothing is dying */
        return 0;
    }
    m = l1_of(fs, best);
    SFS_SERVED(fs, mode, rc, sfs_trim_l1(fs, m, &tr, mode));   /* (tr.counted: its words uncounted once) */
    if (rc)
        return rc;
    /* every dying chunk of that L1 sector is free now: from its first
     * chunk to the first of the next sector, where the cursor goes */
    for (c = best; c > 0 && l1_of(fs, c - 1u) == m; c--)
        ;
    for (; c < fs->geo.n_c && l1_of(fs, c) == m; c++)
        if (sfs_bit(fs->chunk.dying, c)) {
            sfs_bit_set(fs->chunk.dying, c, 0);
            sfs_bit_set(fs->chunk.used, c, 0);
            fs->chunk.ndying--;
        }
    fs->chunk.trim = c % fs->geo.n_c;
    fs->chunk.age = (uint32_t)fs->log.seq;
    return 1;
}

int sfs_live_room(steadyfs *fs, uint32_t need, sfs_mode mode)
{
    int rc, steps = 0;
    while (sfs_live_over(fs, need)) {
        /* dying chunks still count their sectors: a trim step or two gives
         * a delete's space back to this write (steadyfs_bound counts them);
         * the pace trims the rest (DESIGN.md §5) */
        if (steps++ == 2 || (rc = sfs_trim_step(fs, mode)) == 0)
            return STEADYFS_ENOSPC;
        if (rc < 0)
            return rc;
    }
    return 0;
}

int sfs_room(steadyfs *fs, uint32_t more, sfs_mode mode)
{
    int rc;
    SFS_SERVED(fs, mode, rc, sfs_prep(fs, more, mode));
    return rc;
}
