/* The frame of every API call that may change something: its start
 * (the budget, per-call state) and its end (a light call's housekeeping,
 * the erase-ahead), and idle-time steps (steadyfs_gc_step).  Layer 6 of
 * the core, with the files, directories and namespace calls that use it
 * (fs_internal.h). */
#include "fs/fs_internal.h"
#ifdef STEADYFS_CHECK_BUDGET
#include <stdio.h>
#include <stdlib.h>
#endif

/* The clock (file times), or 0 without one. */
int64_t sfs_now(const steadyfs *fs)
{
    return fs->cfg.clock ? fs->cfg.clock() : 0;
}

int sfs_begin(steadyfs *fs, int modify)
{
    if (!fs || !fs->mounted)
        return STEADYFS_EINVAL;
    if (fs->dead)
        return STEADYFS_EIO;
    fs->log.erase_budget = 1;
    /* (this call's marks become the call before's: each PREV_ bit is its
     * mark's, one place up) */
    fs->log.call_marks = (uint8_t)((fs->log.call_marks & (SFS_MARK_ERASED | SFS_MARK_HELD_KEPT)) << 1);
    fs->log.call_ops = 0;
    fs->log.call_io = 0;
    fs->gc.caught_up = 0;
    fs->chunk.steps = SFS_TRIMS_PER_CALL;
    sfs_budget_void(fs);   /* the call arms its own kind and size */
    fs->cache.buf_ppn = SFS_NONE;   /* the caller owns the buffer between calls */
    fs->rm = (uint8_t)(modify >> 1);   /* 2 a commit, 4 a removal: DESIGN.md §6 */
    fs->room.step = 0;   /* a round a failed call left is not resumed */
    /* (counted a call at a time: the reads before it cannot make this
     * call's rebuilds fail, however many a long-mounted device met) */
    fs->no_bytes = 0;
    return 0;
}

/* A logger's next namespace change (gc.ns_period) within SFS_NS_AHEAD
 * calls after the `ahead` calls that program before it (sfs_end). */
static int rotation_soon(const steadyfs *fs, uint32_t ahead)
{
    /* (calls past the expected one wrap to far ahead: no longer soon) */
    return fs->gc.ns_period && !fs->geo.tag_inline && fs->log.nqueued >= 2 &&
           fs->gc.ns_last + fs->gc.ns_period - (fs->gc.calls + ahead) <= SFS_NS_AHEAD;
}

static int end_call(steadyfs *fs, int rc, sfs_end_kind kind)
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
    /* (a call that began with the erase an earlier one chose is not light:
     * it cools down as that call would have) */
    /* A sync whose write held its sector and programmed housekeeping (a
     * merge its held sector's room forced) is that record's second call:
     * no more housekeeping and no optional erase in it (log4k as write +
     * sync calls had records of two programs, a merge and an erase, 3.06
     * ms, where the O_DSYNC record is 2.7 ms at most) */
    int held_kept = STEADYFS_WITH_HOLD && fs->rm == 1u && (fs->log.call_marks & SFS_MARK_PREV_HELD_KEPT);
    /* (a held sector counts: it is the program its sync will make) */
    int small = fs->log.call_ops + (kind == SFS_END_HELD) <= 2,
        light = small && !fs->gc.busy && fs->gc.erase_next != SFS_ERASE_DONE && kind != SFS_END_HELD &&
                kind != SFS_END_SHORT && !held_kept;
    int kept = 0, erased = 0;
    /* On media without erase that gather a record's sectors (MRAM) a 4 KiB
     * record is one program (87 us on em064lx) and a merge a read and a
     * program (105 us): a call is light there only after one device access,
     * and not after a whole run with the host head at its unit's end (the
     * merge would move it, with the checkpoint a move into a unit no
     * checkpoint named writes; after one sector, 52 us, it fits).  A record
     * split over two programs, or with a lookup, leaves its housekeeping to
     * the next: no record is two programs beside a merge (issue 16's 0.2 ms;
     * DESIGN.md §9). */
    if (sfs_runs_offered(fs) &&
        (fs->log.call_io > 1 || (fs->log.head_idx >= fs->geo.P && fs->log.call_ops >= SFS_RUN_MAX)))
        light = 0;
    uint32_t io_light = fs->log.call_io;
    /* ... and its merge comes early enough that the next records' sectors
     * (a run each, SFS_RUN_MAX changes) do not force one beside them */
    uint32_t room_ahead = sfs_runs_offered(fs) ? 4u * SFS_RUN_MAX : 0u;
    /* (a write that holds its last sector is the first of its record's
     * two calls: the sync after it counts the record, in the cool-down
     * and the backlog below, as an O_DSYNC write's one call does) */
    int record_end = !STEADYFS_WITH_HOLD || kind != SFS_END_HELD;
    if (fs->gc.busy && fs->log.call_ops && record_end)
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
    int no_erase = (fs->log.call_marks & SFS_MARK_ERASED) ||
                   (fs->rm == 1u && (fs->log.call_marks & SFS_MARK_PREV_ERASED));
    int must_erase = !fs->log.nqueued && fs->log.nfree && fs->log.erase_budget && !no_erase;
    if (!fs->dead && rc >= 0 && light && fs->log.call_ops && !must_erase) {
        r2 = 0;
        if (fs->log.since_ckpt + 2 > fs->cfg.replay_max ||
            (fs->log.nqueued <= 1 && !fs->log.nfree && fs->log.nlimbo)) {
            /* a trim step rides on it: the checkpoint due anyway is the one
             * that must follow the step (one program more, not two) */
            r2 = sfs_trim_step(fs, fs->rm);
            if (r2 >= 0)
                r2 = sfs_ckpt_write(fs);
            kept = 1;
        }
        /* not beside the checkpoint (with its trim step): the merge goes
         * to the next light call, or into the next record if its sectors
         * find no room (together they were a 2 ms record, ten records
         * after a rotation, which the next erase met: DESIGN.md §6) */
        if (!r2 && !kept && fs->npend + 5 + room_ahead > fs->cfg.pending_max) {
            /* (on MRAM the round's first merge only: its L2 merge, when
             * the L1 one left the count as it was, is the next call's) */
            if (sfs_runs_offered(fs))
                SFS_SERVED(fs, fs->rm, r2, sfs_room_step(fs, 4 + room_ahead, fs->rm));
            else
                SFS_SERVED(fs, fs->rm, r2, sfs_make_room(fs, 4, fs->rm));
            if (r2 > 0)
                r2 = 0;
            kept = 1;
        }
        if (!r2 && !kept) {
            /* an orphan no handle holds (a cut left it, or a removed
             * directory was closed) dies, if its kill can settle later */
            r2 = sfs_reap(fs, 0, 1);
            /* with live room short, a trim step now (and the checkpoint it
             * needs) rather than at the next checkpoint due: a delete's
             * space comes back before writes meet the limit */
            /* (on MRAM also before the pace's trim by age would take one
             * beside a record: half that age) */
            if (!r2 && fs->chunk.ndying &&
                (sfs_live_over(fs, SFS_TRIM_ROOM(fs)) ||
                 (sfs_runs_offered(fs) && (uint32_t)fs->log.seq - fs->chunk.age >= SFS_TRIM_AGE / 2))) {
                /* On MRAM a trim step with its L2 word and checkpoint beside
                 * a record passed 0.2 ms: the word first (a light call of its
                 * own), then the step, and its checkpoint is the next call's
                 * first program (the trim sets log.need_ckpt: no program
                 * comes between them) */
                if (!sfs_runs_offered(fs) || (r2 = sfs_trim_place(fs)) == 0) {
                    r2 = sfs_trim_step(fs, fs->rm);
                    if (r2 > 0 && !sfs_runs_offered(fs) && (r2 = sfs_ckpt_write(fs)) == 0)
                        r2 = 1;
                }
            }
            /* (on MRAM not after a kill's or trim's own accesses) */
            if (!r2 && (!sfs_runs_offered(fs) || fs->log.call_io == io_light))
                SFS_SERVED(fs, fs->rm, r2, sfs_merge_cold(fs, fs->rm));
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
    /* A logger rotating files of one size changes the namespace every
     * ns_period calls, and a rotation (close, unlink, create and the new
     * file's first record: 2.7 ms on mt29f1g01) right after an erase
     * record (2.5 ms) left 9-13 KiB at 4 MB/s, whichever state the fill
     * left: no optional erase in the SFS_NS_AHEAD calls before the next
     * one expected, unless the queue is down to one unit (else the erase
     * was forced into the rotation itself).  Only where tags are in the
     * spare area (NAND): on NOR an erase is 40-60 records long, and kept
     * off the rotation's few ms it landed in the rotation instead
     * (mt25q128 log4k 160 -> 171 ms, DESIGN.md §6); MRAM has no erase. */
    int ns_soon;
    if (fs->log.call_ops && record_end)
        fs->gc.calls++;
    ns_soon = rotation_soon(fs, 0);
    if (fs->log.call_ops > 2) {
        uint32_t l = fs->gc.backlog + SFS_BACKLOG_PROG * (fs->log.call_ops - 2);
        fs->gc.backlog = (uint8_t)(l > 255u ? 255u : l);
    } else if (fs->log.call_ops && record_end) {
        fs->gc.backlog = (uint8_t)(fs->gc.backlog > SFS_BACKLOG_DRAIN ? fs->gc.backlog - SFS_BACKLOG_DRAIN : 0u);
    }
    /* A commit right after a call that erased (the sync of a record whose
     * write did) erases nothing at its end either: one erase a record,
     * not only a call (on mt25q128 under test_fs_adversary's churn the
     * sync's erase, the queue empty again after the write's head move,
     * made records of two 1 s erases).  The next call erases if it must. */
    /* An optional erase (two or more erased units still queued) on NAND at
     * the end of an append, while collection does not run (a record's
     * pace copies nothing), is not done here but at the start of the next
     * write (gc.erase_next):
     * a close or namespace change coming first drops it.  A logger's
     * rotation follows the last record of a file, and the first rotation
     * comes before any period is known: seed 1 of log4k at 4 MB/s had the
     * erase record (2.6 ms) right before it (1.8 ms), 9.4 KiB of buffer.
     * The erase moves by one call and keeps its rules; a sync or a read
     * between them leaves it chosen. */
    if (fs->gc.erase_next == SFS_ERASE_DONE) {   /* at this call's start */
        erased = 1;
        fs->gc.erase_next = SFS_ERASE_NONE;
    }
    /* (the unit held erased for the next checkpoint unit counts as one
     * left: a head move takes it before it would erase one, log.c) */
    uint32_t ready = fs->log.nqueued + fs->log.nheld;
    if (!fs->dead && fs->log.erase_budget && fs->log.call_ops && !no_erase &&
        (((light || (small && ready <= 1 && !held_kept)) && !kept && !ns_soon &&
          (!fs->gc.backlog || fs->gc.backlog > SFS_BACKLOG_LIGHT || ready <= 1) &&
          fs->log.erase_credit >= (ready <= 1 ? fs->geo.P / 4 : fs->geo.P / 2)) ||
         !fs->log.nqueued)) {
        uint32_t budget_before = fs->log.erase_budget;
        if (kind == SFS_END_APPEND && fs->log.nqueued >= 2 && !fs->geo.tag_inline && sfs_pace_quiet(fs, 0)) {
            fs->gc.erase_next = SFS_ERASE_CHOSEN;
        } else {
            r2 = sfs_erase_ahead(fs);
            if (r2 < 0 && rc >= 0)
                rc = r2;
            erased = fs->log.erase_budget != budget_before;
        }
    }
    /* A checkpoint unit near its end moves on in a light call with no
     * backlog, where erase-ahead would (its pointer record: one program),
     * not in whichever call's checkpoint finds it full: beside a record
     * and a rotation that had left 8.2-8.7 KiB at 4 MB/s (DESIGN.md §5) */
    if (!fs->dead && !erased && light && !kept && !ns_soon && !fs->gc.backlog && fs->log.call_ops && rc >= 0) {
        r2 = sfs_ckpt_switch_early(fs);
        if (r2 < 0)
            rc = r2;
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
#ifdef STEADYFS_CHECK_BUDGET
    /* test builds: what a lower layer asks for is always served on the way
     * up (SFS_SERVED), never returned */
    if (rc == SFS_NEED_CKPT || rc == SFS_NEED_ROOM) {
        fprintf(stderr, "steadyfs: internal code %d reached the end of a call\n", rc);
        abort();
    }
#endif
    if (STEADYFS_WITH_HOLD && kind == SFS_END_HELD && (fs->log.call_marks & SFS_MARK_KEPT))
        fs->log.call_marks |= SFS_MARK_HELD_KEPT;
    sfs_budget_check(fs);
    return rc;
}

int sfs_end(steadyfs *fs, int rc)
{
    return end_call(fs, rc, SFS_END_CALL);
}

int sfs_end_write(steadyfs *fs, int rc, sfs_end_kind kind)
{
    return end_call(fs, rc, kind);
}

/* Does a write that ends at `end` fill its file to a round size -- a
 * power of two of at least a unit's bytes -- where a logger rotating by
 * size closes it? */
static int round_size(const steadyfs *fs, uint64_t end)
{
    return end >= (uint64_t)fs->geo.P * fs->geo.payload && !(end & (end - 1u));
}

int sfs_write_start_erase(steadyfs *fs, uint32_t len, uint64_t end)
{
    uint32_t budget_before = fs->log.erase_budget;
    int rc, chosen = fs->gc.erase_next == SFS_ERASE_CHOSEN;
    fs->gc.erase_next = SFS_ERASE_NONE;
    if (chosen) {
        /* Only beside a record that stays two programs, as the call that
         * chose it would have been: no more than a record's two sectors,
         * no checkpoint its sectors would force, no merge the table would
         * (sfs_prep's room within a record's entries; an erase beside
         * either was a 2.8-3.2 ms record), nothing its pace would do (a
         * wear-levelling copy, a trim by age, collection), and not where
         * the rule above holds an optional erase back (the next rotation
         * expected, counting this call), and not in a write that fills its
         * file to a round size: before a logger's first rotation no period
         * is known, and an erase in the last record of a file of 4 MiB,
         * right before the rotation (2.5 + 1.7 ms), left 8.5-8.9 KiB at 4
         * MB/s on log4k seeds 5, 20 and 24 (DESIGN.md §6).  Else it is
         * dropped, and the end of this call decides again (a close or a
         * create coming next drops it too).  (Queued units still two or
         * more: the record's head move finds one.) */
        if (len > 2u * fs->geo.payload || fs->log.nqueued < 2 || rotation_soon(fs, 1) || round_size(fs, end) ||
            fs->log.since_ckpt + 2u > fs->cfg.replay_max ||
            fs->npend + 5u + SFS_RECORD_ENTRIES > fs->cfg.pending_max || !sfs_pace_quiet(fs, 2))
            return 0;
    } else {
        /* A write of half a unit or more (a fill, a bulk copy) refills the
         * erase queue at its start, where an erase adds a quarter to its
         * programs: light calls erase only with the queue down to one unit
         * left, so a burst of large writes left it at 0-1, and the records
         * that followed had two forced erases in their first few (a create
         * + record + merge + erase of 3.4 ms, or 2.6 ms after a 1.6 ms
         * create: 8.6-10.3 KiB at 4 MB/s, log4k seeds 11-50).  NAND only,
         * as the deferral above (on NOR an erase outlasts such a write). */
        if (len < fs->geo.P / 2u * fs->geo.payload || fs->geo.tag_inline ||
            fs->log.nqueued >= SFS_Q_TARGET || !fs->log.nfree ||
            fs->log.erase_credit < fs->geo.P / 2u)
            return 0;
    }
    rc = sfs_erase_ahead(fs);
    if (chosen && fs->log.erase_budget != budget_before)
        fs->gc.erase_next = SFS_ERASE_DONE;   /* sfs_end cools the next records down */
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
            rc = sfs_trim_step(fs, fs->rm);
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
        if (sfs_thread_min(fs, sfs_maybe(fs) != NULL))
            break;   /* a medium without erase that never needs collection (log.c) */
        if (sfs_free_blocks(fs) > fs->gc.low + 2 && fs->gc.victim == SFS_NONE)
            rc = sfs_collect(fs, sfs_wl_one, fs->rm);   /* idle time with space to spare: wear */
        else
            rc = sfs_collect(fs, sfs_gc_one, fs->rm);
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
