/* The log: units and their states, live-sector counts, the two heads
 * (host and collection), programs, erases and the erase-ahead, bad blocks
 * (DESIGN.md §4, §6).  Layer 2 of the core (fs_internal.h): it uses the
 * media layer and the relocation records below it, and never runs a
 * checkpoint or collection itself -- a reserve that needs one says so
 * (SFS_NEED_CKPT, SFS_NEED_ROOM) and the caller's layer does it. */
#include "fs/fs_internal.h"
#ifdef STEADYFS_CHECK_BUDGET
#include <stdio.h>
#include <stdlib.h>
#endif

/* Erased and ready: queued, or named as a head's next unit. */
static int erased_state(uint8_t s) { return s == BS_QUEUED || s == BS_NEXT || s == BS_GNEXT; }

static void set_state(steadyfs *fs, uint32_t b, uint8_t s)
{
    uint8_t o = fs->blk[b];
    fs->log.nqueued -= erased_state(o);
    fs->log.nfree -= (o == BS_FREE);
    fs->log.nlimbo -= (o == BS_LIMBO);
    fs->log.nheld -= (o == BS_CKNEXT);
    fs->log.nqueued += erased_state(s);
    fs->log.nfree += (s == BS_FREE);
    fs->log.nlimbo += (s == BS_LIMBO);
    fs->log.nheld += (s == BS_CKNEXT);
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
        fs->log.call_marks |= SFS_MARK_ERASED;
}

uint32_t sfs_ready_units(const steadyfs *fs)
{
    uint32_t n = fs->log.nqueued + fs->log.nfree + fs->log.nheld;
    return n > sfs_ck_kept(fs) ? n - sfs_ck_kept(fs) : 0u;
}

uint32_t sfs_free_blocks(const steadyfs *fs)
{
    uint32_t n = fs->log.nqueued + fs->log.nfree + fs->log.nlimbo + fs->log.nheld;
    return n > sfs_ck_kept(fs) ? n - sfs_ck_kept(fs) : 0u;
}

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

/* The pigeonhole (DESIGN.md §9).  With the maybe-live bits exact (mount
 * rebuilds them, count() keeps them), the live sectors in closed units are
 * at most the live limit plus what may pass it between checks: the
 * removals' room, and map sectors, which no check precedes (every L1 and
 * L2 sector live at once), and `extra` sectors still counted though dead
 * (below).  When the erased units are low (units_low: at
 * most SFS_Q_TARGET + 3 of them free, erased or LIMBO, and no unit held by
 * a relocation record, as none is where collection never ran), every
 * usable unit but those and the two heads is closed: C of them hold at
 * least C P - L dead sectors, so one holds at least ceil((C P - L) / C).
 * Where that is at least the threshold thread_unit asks for, it always
 * finds a unit: collection, catch-up and the sweep never run.  (No unit is
 * excluded there: collection's victims are none, wear levelling does not
 * run without erase, no program fails on MRAM -- a failure voids a
 * call's bound anyway.) */
static uint32_t dead_min(const steadyfs *fs, uint32_t extra)
{
    uint32_t c, l, d;
    if (!STEADYFS_ERASELESS_MEDIA || fs->geo.P > 32u || fs->geo.usable <= SFS_Q_TARGET + 3u + 2u)
        return 0;
    c = fs->geo.usable - (SFS_Q_TARGET + 3u) - 2u;
    l = fs->live_max + SFS_RM_ROOM + fs->geo.n_l1 + fs->geo.n_l2 + extra;
    if ((uint64_t)c * fs->geo.P <= l)
        return 0;
    d = (c * fs->geo.P - l + c - 1u) / c;
    return d >= fs->geo.P / SFS_THREAD_DIV ? d : 0;
}

/* Commits may leave the sectors they replaced counted until a merge
 * (map.c PF_OLD) only where the pigeonhole holds with those counted too:
 * at most K more, one per pending entry.  Small pools (the tests' 16- to
 * 24-unit em064lx) look their sectors up as before and keep the
 * pigeonhole without them. */
int sfs_old_later_ok(const steadyfs *fs, int bits)
{
    return bits && dead_min(fs, fs->cfg.pending_max) != 0;
}

uint32_t sfs_thread_min(const steadyfs *fs, int bits)
{
    if (!bits)
        return 0;
    return sfs_old_later_ok(fs, bits) ? dead_min(fs, fs->cfg.pending_max) : dead_min(fs, 0);
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
 * a head's count, or a closed unit's (within 0..P); else nothing.  On
 * media without erase its maybe-live bit follows: set when it becomes
 * live, cleared when it dies, so a clear bit is a dead sector (all set
 * at mount, none in a unit erased since), which collection passes
 * without reading its tag (gc.c examine: a small read costs as much as
 * a kilobyte there, em064lx). */
static void count(steadyfs *fs, uint32_t ppn, int d)
{
    uint32_t b, *hc;
    /* none, unknown, or (a damaged map) no sector of this device */
    if (ppn >= SFS_UNKNOWN || ppn / fs->geo.P >= fs->geo.nblocks)
        return;
    if (sfs_maybe(fs))
        sfs_bit_set(sfs_maybe(fs), ppn, d > 0);
    b = sfs_blk(fs, ppn);
    hc = head_count(fs, b);
    if (hc) {
        if (d < 0 && !*hc)
            return;
        *hc += (uint32_t)d;
    } else {
        if (!sfs_closed(fs, b) || fs->blk[b] == (d > 0 ? fs->geo.P : 0u))
            return;
        fs->blk[b] = (uint8_t)(fs->blk[b] + d);
    }
    fs->live += (uint32_t)d;
}

void sfs_count_inc(steadyfs *fs, uint32_t ppn) { count(fs, ppn, 1); }

int sfs_count_fix(steadyfs *fs, uint32_t b, uint32_t n)
{
    uint32_t *hc = head_count(fs, b), was;
    if (!hc && (!sfs_closed(fs, b) || n > fs->geo.P))
        return 0;
    was = hc ? *hc : fs->blk[b];
    if (hc)
        *hc = n;
    else
        fs->blk[b] = (uint8_t)n;
    fs->live = fs->live - was + n;
    return was != n;
}

/* A sector no longer counts: where its live copy is, if collection
 * copied it (its record still says so). */
void sfs_count_dec(steadyfs *fs, uint32_t ppn) { sfs_count_dec_raw(fs, sfs_copy_of(fs, ppn)); }

void sfs_count_dec_raw(steadyfs *fs, uint32_t ppn) { count(fs, ppn, -1); }

static int retire_idx(const steadyfs *fs, uint32_t b)
{
    int i;
    for (i = 0; i < 4; i++)
        if (fs->health.retire[i] != SFS_NONE && (fs->health.retire[i] & 0x7FFFFFFFu) == b)
            return i;
    return -1;
}

/* Erase a FREE block into the queue; a failing block is retired. */
static int erase_free(steadyfs *fs, uint32_t b)
{
    int ri = retire_idx(fs, b), rc;
    if (ri >= 0 && !(fs->health.retire[ri] & 0x80000000u)) {
        fs->health.retire[ri] = SFS_NONE;
        lose_unit(fs, b);
        return 0;
    }
    if (ri >= 0)
        fs->health.retire[ri] = SFS_NONE;
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
    if (sfs_maybe(fs))   /* nothing in it is live: what is written sets its bit */
        for (ri = 0; ri < (int)fs->geo.P; ri++)
            sfs_bit_set(sfs_maybe(fs), b * fs->geo.P + (uint32_t)ri, 0);
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

int sfs_take_erased(steadyfs *fs, uint32_t *u)
{
    int rc;
    for (;;) {
        uint32_t b = find_state(fs, BS_QUEUED);
        if (b != SFS_NONE) {
            /* (the allocation cursor moves past it, as a head's move
             * does: the checkpoints take their turn in the rotation) */
            fs->log.alloc_cursor = (b + 1) % fs->geo.nblocks;
            *u = b;
            return 0;
        }
        b = find_state(fs, BS_FREE);
        if (b == SFS_NONE)
            return STEADYFS_ENOSPC;
        rc = erase_free(fs, b);
        if (rc < 0)
            return rc;
    }
}

int sfs_erase_free_unit(steadyfs *fs, uint32_t b)
{
    int rc;
    rc = erase_free(fs, b);
    return rc < 0 ? rc : 0;
}

uint32_t sfs_hold_erased(steadyfs *fs)
{
    uint32_t b;
    if (fs->log.nqueued < 3u || (b = find_state(fs, BS_QUEUED)) == SFS_NONE)
        return SFS_NO_UNIT;
    fs->log.alloc_cursor = (b + 1) % fs->geo.nblocks;
    set_state(fs, b, BS_CKNEXT);
    return b;
}

uint32_t sfs_anchor_good(const steadyfs *fs)
{
    uint32_t b, good = 0;
    for (b = 0; b < sfs_reserved(fs); b++)
        good += !(fs->anchor.bad >> b & 1u);
    return good;
}

uint32_t sfs_anchors(const steadyfs *fs)
{
    uint32_t good = sfs_anchor_good(fs);
    return good < fs->geo.anchors ? good : fs->geo.anchors;
}

uint32_t sfs_anchor_unit(const steadyfs *fs, uint32_t i)
{
    uint32_t b;
    for (b = 0; b < sfs_reserved(fs); b++)
        if (!(fs->anchor.bad >> b & 1u) && i-- == 0u)
            return b;
    return 0;   /* not reached: find_anchors checked there are enough */
}

int sfs_erase_ahead(steadyfs *fs)
{
    uint32_t b;
    int rc;
    if (!fs->log.erase_budget || fs->dead)
        return 0;
    /* The anchor ring's next unit goes first only while the log keeps an erased
     * unit beside the one it may take next (or the switch is close): with
     * one left, erasing the anchor's made the log's the next call's forced
     * erase, two erases in consecutive records (a create after a fill:
     * 3.5 ms). */
    if (fs->anchor.dirty_next && fs->anchor.next_idx >= fs->geo.P / 4 &&
        (fs->log.nqueued >= 2 || fs->anchor.next_idx >= fs->geo.P * 3 / 4 || !fs->log.nfree)) {
        fs->log.erase_budget--;
        fs->log.erase_credit = fs->log.erase_credit > fs->geo.P / 2 ? fs->log.erase_credit - fs->geo.P / 2 : 0;
        rc = sfs_erase(fs, sfs_anchor_unit(fs, (fs->anchor.cur + 1u) % sfs_anchors(fs)));
        sfs_note_erase(fs);
        if (rc == SFS_EFAIL)
            return 0;   /* still dirty: retried before the switch */
        if (rc)
            return rc;
        fs->anchor.dirty_next = 0;
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

static uint32_t thread_unit(steadyfs *fs, uint32_t *skip);

/* The slots a head going on in a unit would write there (skip clear). */
static uint32_t slots_open(const steadyfs *fs, uint32_t skip)
{
    uint32_t i, n = 0;
    for (i = 0; i < fs->geo.P; i++)
        n += !(skip >> i & 1u);
    return n;
}

/* Units a checkpoint-unit switch may take (ckpt.c ck_switch): queued but
 * not named for a head, held for it, or free (erased then). */
uint32_t sfs_switch_units(const steadyfs *fs)
{
    uint32_t b, n = 0;
    for (b = 0; b < fs->geo.nblocks; b++)
        n += fs->blk[b] == BS_QUEUED || fs->blk[b] == BS_CKNEXT || fs->blk[b] == BS_FREE;
    return n;
}

/* At most `n` such units?  (At most two of the erased units are named for a
 * head: the scan only where the counts leave it in doubt.) */
static int switch_short(const steadyfs *fs, uint32_t n)
{
    return fs->log.nqueued + fs->log.nheld + fs->log.nfree <= n + 2u && sfs_switch_units(fs) <= n;
}

/* The erased units are down to where steady collection runs (gc.low +
 * the units records hold; sfs_gc_pace begins earlier, at gc.low + R + 1
 * on media that erase, gc.c pool_full); within `margin` of it. */
static int units_low(const steadyfs *fs, uint32_t margin)
{
    return sfs_free_blocks(fs) <= SFS_Q_TARGET + 3u + fs->reloc.nrec + margin;
}

void sfs_name_next(steadyfs *fs)
{
    int gc;
    uint32_t skip = 0, b;
    for (gc = 0; gc < 2; gc++) {
        if ((gc ? fs->log.gh_block : fs->log.head_block) == SFS_NONE ||
            sfs_next_unit(fs, gc) != SFS_NONE)
            continue;
        /* the unit the move would take, unless it is the last a
         * checkpoint-unit switch could take (SFS_CK_SWITCH): the move
         * then goes unnamed, and head_move keeps that unit */
        b = find_state(fs, BS_QUEUED);
                if (b != SFS_NONE && !(sfs_ck_kept(fs) && switch_short(fs, SFS_CK_SWITCH)))
            set_state(fs, b, gc ? BS_GNEXT : BS_NEXT);
    }
    /* Media without erase, erased units running low: the closed unit the
     * host head will go on in, and the slots it will pass -- those maybe
     * live now, at this checkpoint -- so that the move needs no checkpoint
     * of its own: replay finds the head there by sequence number, as in a
     * named erased unit.  A unit named before stays named if none is
     * better (after a mount every maybe-live bit is set): what was dead
     * then is dead still, and nothing else writes it (thread_unit,
     * collection's victims pass it by). */
    if (sfs_maybe(fs) && fs->log.head_block != SFS_NONE && units_low(fs, 1) &&
        (b = thread_unit(fs, &skip)) != SFS_NONE &&
        (fs->log.thread_next == SFS_NONE || !sfs_closed(fs, fs->log.thread_next) ||
         slots_open(fs, skip) > slots_open(fs, fs->log.thread_skip))) {
        fs->log.thread_next = b;
        fs->log.thread_skip = skip;
    }
    if (fs->log.thread_next != SFS_NONE && !sfs_closed(fs, fs->log.thread_next))
        fs->log.thread_next = SFS_NONE;
}

/* (the host head passes the slots of its unit it must not write) */
void sfs_log_skip_live(steadyfs *fs)
{
    while (fs->log.head_idx < fs->geo.P && fs->log.head_idx < 32u && (fs->log.head_skip >> fs->log.head_idx & 1u))
        fs->log.head_idx++;
}

/* Head gc (0 host, 1 collection) goes on in unit b: an erased one (skip
 * 0), or for the host head on media without erase a closed one whose
 * sectors in skip it passes (they were live when it entered), counting
 * them; the unit it leaves, if any, closes with its count. */
static void enter(steadyfs *fs, int gc, uint32_t b, uint32_t skip)
{
    uint32_t *blk = gc ? &fs->log.gh_block : &fs->log.head_block;
    uint32_t *cnt = gc ? &fs->log.gh_count : &fs->log.head_count;
    uint32_t live = skip ? fs->blk[b] : 0u;
    if (*blk != SFS_NONE)
        set_state(fs, *blk, (uint8_t)*cnt);
    set_state(fs, b, BS_HEAD);
    *blk = b;
    *cnt = live;
    *(gc ? &fs->log.gh_idx : &fs->log.head_idx) = 0;
    if (!gc) {
        fs->log.head_skip = skip;
        sfs_log_skip_live(fs);
    }
}

/* Media without erase: the closed unit with the most sectors known dead
 * (maybe-live bits clear), at least P / SFS_THREAD_DIV of them, that no
 * relocation record holds (a copied sector stays readable until its
 * record retires), or SFS_NONE; *skip its maybe-live bits. */
static uint32_t thread_unit(steadyfs *fs, uint32_t *skip)
{
    uint32_t b, i, best = SFS_NONE, most = fs->geo.P / SFS_THREAD_DIV, dead, bits;
    if (!sfs_maybe(fs) || fs->geo.P > 32u)
        return SFS_NONE;
    for (b = 0; b < fs->geo.nblocks; b++) {
        /* nor the unit collection is examining (it would go on at its
         * index there, past what the head wrote, and free the unit with
         * that still counted: test build's drift) */
        if (!sfs_closed(fs, b) || fs->geo.P - fs->blk[b] < most || sfs_reloc_holds(fs, b) ||
            b == fs->gc.victim || b == fs->gc.wl_victim || retire_idx(fs, b) >= 0)
            continue;
        for (i = 0, bits = 0, dead = 0; i < fs->geo.P; i++)
            if (sfs_bit(sfs_maybe(fs), b * fs->geo.P + i))
                bits |= 1u << i;
            else
                dead++;
        if (dead >= most && (best == SFS_NONE || dead > most)) {
            best = b;
            most = dead;
            *skip = bits;
        }
    }
    return best;
}

void sfs_enter_thread(steadyfs *fs)
{
    enter(fs, 0, fs->log.thread_next, fs->log.thread_skip);
    fs->log.thread_next = SFS_NONE;
    fs->stats.threaded++;
}

void sfs_enter_next(steadyfs *fs, int gc)
{
    uint32_t b = sfs_next_unit(fs, gc);
    if (b != SFS_NONE)
        enter(fs, gc, b, 0);
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
    uint32_t b, skip = 0;
    int rc, named;
    while (*idx >= fs->geo.P) {
        /* Media without erase: with the erased units down to where
         * collection would run (sfs_gc_pace: gc.low + the units records
         * hold), the host head goes on in the closed unit with the most
         * dead sectors instead, writing only those -- what collection
         * would have copied stays where it is.  The checkpoint that
         * follows the move records the slots it passes (replay follows
         * them) and makes every sector dead now dead for good. */
        if (STEADYFS_ERASELESS_MEDIA && !gc && *blk != SFS_NONE && units_low(fs, 0) && fs->log.thread_next != SFS_NONE &&
            sfs_closed(fs, fs->log.thread_next)) {
            /* the unit the last checkpoint named: replay follows the
             * head there without another */
            enter(fs, 0, fs->log.thread_next, fs->log.thread_skip);
            fs->log.thread_next = SFS_NONE;
            fs->stats.threaded++;
            continue;
        }
        if (!gc && *blk != SFS_NONE && units_low(fs, 0) && (b = thread_unit(fs, &skip)) != SFS_NONE) {
            enter(fs, 0, b, skip);
            fs->log.need_ckpt = 1;
            fs->stats.threaded++;
            continue;
        }
#ifdef STEADYFS_CHECK_BUDGET
        /* test builds: where the pigeonhole holds, a unit was there */
        if (!gc && *blk != SFS_NONE && units_low(fs, 0) && sfs_thread_min(fs, sfs_maybe(fs) != NULL) && !fs->reloc.nrec) {
            fprintf(stderr, "steadyfs: no closed unit with %u dead sectors, erased units low (live %u of %u)\n",
                    fs->geo.P / SFS_THREAD_DIV, fs->live, fs->live_max);
            abort();
        }
#endif
        b = *blk != SFS_NONE ? sfs_next_unit(fs, gc) : SFS_NONE;
        named = b != SFS_NONE;
        if (b == SFS_NONE)
            b = find_state(fs, BS_QUEUED);
        /* the unit held for the next checkpoint unit before an erase in
         * this call (the next switch takes another, or erases one then) */
        if (b == SFS_NONE)
            b = find_state(fs, BS_CKNEXT);
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
        if (b == SFS_NONE)
            /* the units a checkpoint makes erasable: the caller's layer
             * writes it and calls again (the loop resumes as it was) */
            return fs->log.nlimbo ? SFS_NEED_CKPT : STEADYFS_ENOSPC;
        /* Media that erase keep their checkpoints in a unit of the pool
         * (ckpt.c): a checkpoint that finds it full switches to a queued,
         * held or free unit, and the log keeps one such unit whatever the
         * state (SFS_CK_SWITCH).  A head takes the last only after a
         * checkpoint that brings another: one that makes units waiting
         * for it erasable (LIMBO), or one that finds its unit full (fewer
         * than two sectors left), switches to that unit and frees the one
         * it leaves (ckpt.c sfs_ckpt_write).  Else the move has no unit:
         * the floors count the kept unit out (sfs_free_blocks), so this is
         * where a device one unit smaller would have found none.  Format
         * 18 gave that unit to the head: collection's emptied victims, or
         * moved units waiting for the sweep, then met a checkpoint that
         * found its unit full (a cut had torn its next sector) and no unit
         * to switch to -- ENOSPC below the live limit (make soak-torture
         * nand-hold-h6 seed 9, nand-big seed 10, nor-hold-fill seed 7).
         * (The other head's named unit is no switch's: this head may take
         * it, as where no unit is queued.) */
        if (!named && sfs_ck_kept(fs) && (fs->blk[b] == BS_QUEUED || fs->blk[b] == BS_CKNEXT) &&
            switch_short(fs, SFS_CK_SWITCH)) {
            if (fs->log.nlimbo || fs->anchor.unit == SFS_NO_UNIT || fs->anchor.idx + 2u > fs->geo.P)
                return SFS_NEED_CKPT;
            b = sfs_next_unit(fs, !gc);
            if (b == SFS_NONE)
                return STEADYFS_ENOSPC;
        }
        /* A unit the newest checkpoint calls erased may hold what a
         * checkpoint-unit switch cut short wrote there (ckpt.c ck_switch:
         * its pointer is durable before the unit's first sector, but a
         * mount that falls back to the unit kept knows only the newest
         * attempt's unit): its sector 0 must read erased, else it goes
         * back to be erased (one small read a move, in the bound) */
        if (fs->cfg.bd->geo.needs_erase && !named) {
            /* (a read that fails is taken for dirty: an erase settles it) */
            rc = sfs_rd_erased(fs, b * fs->geo.P);
            if (rc < 0 && fs->dead)
                return rc;
            if (rc <= 0) {
                set_state(fs, b, BS_FREE);
                continue;
            }
        }
        fs->log.alloc_cursor = (b + 1) % fs->geo.nblocks;
        enter(fs, gc, b, 0);
        fs->log.erase_budget++;   /* a call pays for the blocks it fills */
        if (!named)
            fs->log.need_ckpt = 1;   /* replay starts in the heads a checkpoint names */
    }
    return 0;
}

/* A checkpoint due before the next program: a head moved into a unit
 * no checkpoint named, or replay_max sectors since the last. */
static int reserve_end(steadyfs *fs)
{
    return fs->log.need_ckpt || fs->log.since_ckpt >= fs->cfg.replay_max ? SFS_NEED_CKPT : 0;
}

/* Collection copies go to a head of their own: data that survived a
 * collection is likely cold, and kept apart from the host's (mostly
 * short-lived) writes it fills whole units that later collections leave
 * alone, instead of spreading over every unit (DESIGN.md §6). */
int sfs_log_reserve_gc(steadyfs *fs, sfs_mode mode)
{
    int rc;
    if (fs->dead)
        return STEADYFS_EIO;
    /* Collection may not take the last SFS_RM_UNITS units unless the call
     * is a removal (unlink, rmdir, rename: SFS_MODE_REMOVE).  Up to format 6 its
     * copies could induce map merges faster than a victim freed space;
     * before this floor such a state ran the device down to no unit at
     * all, and then neither a write nor a delete could ever run again
     * (test_fs_adversary at 90 % of the live limit).  Now collection
     * stops there, writes get ENOSPC, and a delete still works. */
    if (fs->log.gh_idx >= fs->geo.P && (mode & SFS_MODE_KIND) < SFS_MODE_REMOVE &&
        sfs_free_blocks(fs) <= SFS_RM_UNITS)
        return STEADYFS_ENOSPC;
    /* In a removal that finds both heads full and the floor reached, its
     * own sectors (a bucket) take their unit first: collection may then
     * take the last one, and the removal still runs (with one unit left
     * collection took it, and the removal's host-head move, which keeps
     * two, failed with ENOSPC: test_fs_adversary_full) */
    if (fs->log.gh_idx >= fs->geo.P && (mode & SFS_MODE_KIND) >= SFS_MODE_REMOVE && fs->log.head_idx >= fs->geo.P &&
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

/* Erased units a host-head move leaves (DESIGN.md §6): data writes and
 * creates 4, commits (close, sync, truncate: SFS_MODE_COMMIT) and
 * collection's map merges 3, removals (unlink, rmdir, rename:
 * SFS_MODE_REMOVE) 2.  Below
 * that, collection's merges go to the collection head as its copies do,
 * which may take the last unit: collection always goes on with its
 * victim, writes stop first, and a commit or a removal still works. */
static uint32_t host_keep(sfs_mode mode)
{
    return mode & SFS_MODE_GC ? 3u : 4u - (mode & SFS_MODE_KIND);
}

/* Can the host head go on in a closed unit (media without erase)? */
int sfs_log_can_thread(steadyfs *fs)
{
    uint32_t skip;
    return sfs_maybe(fs) && thread_unit(fs, &skip) != SFS_NONE;
}

int sfs_log_host_move(steadyfs *fs, sfs_mode mode)
{
    uint32_t keep = host_keep(mode);
    if (fs->log.head_idx < fs->geo.P)
        return 0;
    if (sfs_free_blocks(fs) < keep && !sfs_log_can_thread(fs)) {
        if (!(mode & SFS_MODE_GC))
            return STEADYFS_ENOSPC;
        /* collection's map merges follow its copies: with the host head
         * full it must still finish its victim */
        return sfs_log_reserve_gc(fs, mode);
    }
    return head_move(fs, 0);
}

int sfs_log_reserve(steadyfs *fs, sfs_mode mode)
{
    int rc;
    if (fs->dead)
        return STEADYFS_EIO;
    if (fs->log.head_idx >= fs->geo.P) {
        /* a host-head move short of erased units is the collection
         * layer's to make: its catch-up first (sfs_serve), then
         * sfs_log_host_move; not for collection (SFS_MODE_GC), whose
         * merges may take the collection head instead */
        if (!(mode & SFS_MODE_GC) && sfs_ready_units(fs) < host_keep(mode) &&
            !sfs_log_can_thread(fs))
            return SFS_NEED_ROOM;
        rc = sfs_log_host_move(fs, mode);
        /* (the collection head took it: sfs_log_reserve_gc said where) */
        if (rc || fs->log.head_idx >= fs->geo.P)
            return rc;
    }
    fs->log.to_gh = 0;
    return reserve_end(fs);
}

/* The head (host or collection: log.to_gh) took n sectors, tags t, whose
 * program returned rc: move it on, count them, and call for collection. */
static int programmed(steadyfs *fs, int rc, const sfs_tag *t, uint32_t n)
{
    uint32_t *blk = fs->log.to_gh ? &fs->log.gh_block : &fs->log.head_block;
    uint32_t *idx = fs->log.to_gh ? &fs->log.gh_idx : &fs->log.head_idx;
    uint32_t i;
    fs->log.call_ops += n;
    if (STEADYFS_WITH_HOLD && (t[0].kind != TK_DATA || (t[0].flags & TF_COPY)))
        fs->log.call_marks |= SFS_MARK_KEPT;
    if (fs->log.erase_credit < fs->geo.P / 2)   /* capped: no burst of erases after a lull */
        fs->log.erase_credit = fs->log.erase_credit + n < fs->geo.P / 2 ? fs->log.erase_credit + n : fs->geo.P / 2;
    *idx += n;
    if (!fs->log.to_gh)
        sfs_log_skip_live(fs);
    fs->log.since_ckpt += n;
    if (rc == SFS_EFAIL) {
        /* grown bad block: what it holds moves out by GC, then it is
         * retired; the caller writes its sectors again elsewhere */
        for (i = 0; i < 4; i++)
            if (fs->health.retire[i] == SFS_NONE) {
                fs->health.retire[i] = *blk;
                break;
            }
        *idx = fs->geo.P;
        fs->log.need_ckpt = 1;
        return SFS_RETRY;
    }
    if (rc)
        return rc;
    for (i = 0; i < n; i++) {
        /* everything but collection's own work calls for collection (the
         * pace: sfs_gc_pace), map merges and inode sectors as data do
         * (collection takes back what its own steps add: gc.c collect()) */
        if (!(t[i].kind == TK_DATA && (t[i].flags & TF_COPY)))
            fs->log.debt++;
        if (t[i].kind == TK_DATA && t[i].owner == OWNER_GC)
            fs->stats.copy++;
        else if (t[i].kind == TK_DATA)
            fs->stats.data++;
        else
            fs->stats.map++;
    }
    return 0;
}

int sfs_log_prog(steadyfs *fs, uint8_t *buf, sfs_tag *t, uint32_t *ppn_out)
{
    uint32_t *blk = fs->log.to_gh ? &fs->log.gh_block : &fs->log.head_block;
    uint32_t *idx = fs->log.to_gh ? &fs->log.gh_idx : &fs->log.head_idx;
    uint32_t ppn;
    if (*idx >= fs->geo.P || fs->log.need_ckpt)
        return STEADYFS_EINVAL;   /* caller forgot sfs_log_reserve */
    ppn = *blk * fs->geo.P + *idx;
    t->seq = fs->log.seq++;
    *ppn_out = ppn;
    return programmed(fs, sfs_prog_sector(fs, ppn, buf, t), t, 1);
}

int sfs_log_run_ok(const steadyfs *fs, uint32_t n)
{
    uint32_t i, idx = fs->log.head_idx;
    /* the host head, reserved; a checkpoint falls due before a program
     * once replay_max sectors follow the last (reserve_end) */
    if (fs->log.to_gh || fs->log.need_ckpt || fs->log.head_block == SFS_NONE || idx + n > fs->geo.P ||
        fs->log.since_ckpt + n > fs->cfg.replay_max)
        return 0;
    for (i = idx; i < idx + n; i++)
        if (i < 32u && (fs->log.head_skip >> i & 1u))
            return 0;   /* a live slot of a threaded unit between them */
    return sfs_run_fits(fs, fs->log.head_block * fs->geo.P + idx, n);
}

int sfs_log_prog_run(steadyfs *fs, const uint8_t *src, sfs_tag *t, uint32_t n, uint32_t *ppn_out)
{
    uint32_t i, first;
    if (!sfs_log_run_ok(fs, n))
        return STEADYFS_EINVAL;
    first = fs->log.head_block * fs->geo.P + fs->log.head_idx;
    for (i = 0; i < n; i++) {
        t[i].seq = fs->log.seq++;
        ppn_out[i] = first + i;
    }
    return programmed(fs, sfs_prog_run(fs, first, src, t, n), t, n);
}
