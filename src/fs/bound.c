/* The worst-case cost of every call (docs/DESIGN.md §7 derives each term
 * and says what is assumed rather than proven).
 *
 * A call is counted as what it sets in motion, each part at its worst:
 * its own sectors (host data, inode, directory buckets), the collection
 * steps the pace runs for it (sfs_gc_pace: at most 2 s per call of it),
 * the pending changes all of that adds, the make-room rounds those changes
 * force (sfs_make_room), the catch-up collection (sfs_log_reserve) and the
 * checkpoints and erases the sectors bring.  Rounds, catch-up, checkpoints
 * and erases depend on the totals, so each call kind first adds up its
 * parts (acc) and settle() then prices what they force.  Nothing depends
 * on the fill level (the pace comes from the format-time fill limit) or on
 * history. */
#include "fs/fs_internal.h"

/* Counts are doubles: whole numbers (exact below 2^53) when one call is
 * bounded, real numbers when a window of n records is (real division
 * instead of floor: see window()). */
typedef union acc {
    struct {
        double r, rb;   /* reads, bytes read */
        double sec;     /* sectors programmed in the log (either head) */
        double ck;      /* checkpoints: two anchor sectors each (sfs_ckpt_write
                           writes the relocation sector first when it changed) */
        double e;       /* erases */
        double a1;      /* pending entries added outside make-room: L1-level
                           (PT_L1, PT_SIZE, PT_CHUNK) */
        double a2;      /* the same, PT_L2 (an L1 sector written) */
        double g;       /* calls of sfs_gc_pace */
        double t1;      /* in a window: episodes of L1-level map sectors its
                           work starts (rounds_of()) */
        double rec;     /* in a window: records after the first */
        double pt;      /* media that erase: pointer records in the anchor ring,
                           one a checkpoint-unit switch (ckpt.c ck_switch) */
    };
    double v[11];   /* the same, for add() */
} acc;

typedef struct model {
    uint32_t S, spare, pps, small, K, R, D, P, txn, depth, pay, C, nl2, nl1, nc, open, orphans;
    uint32_t pace;     /* the pace in 1/SFS_PACE_ONE steps (sfs_pace_steps) */
    uint32_t A;        /* units in the anchor ring (sfs_anchors) */
    uint32_t cwb;      /* bytes of a chunk-window fill (file.c slot_chunk) */
    uint32_t rsplit;   /* device reads per read (2 where a sector can straddle two device blocks) */
    uint32_t pmove;    /* sectors a host-head move gives at least: P, or on media without
                          erase P / SFS_THREAD_DIV (a closed unit's dead sectors) */
    uint32_t thread;   /* media without erase where collection never runs: the dead
                          sectors a threaded move finds at least (sfs_thread_min) */
    int old_later;     /* commits leave replaced sectors counted until a merge
                          (sfs_old_later_ok, map.c PF_OLD) */
    int real;      /* a window (window()): x / y is real division, not floor */
    uint32_t without;   /* STEADYFS_PART_* left out of the count (steadyfs_bound_without) */
    int aligned;   /* every chunk lies in one L1 sector */
    int erases;    /* the medium erases (MRAM: sfs_erase issues nothing) */
    int runs;      /* data sectors may go in runs of SFS_RUN_MAX (sfs_runs_offered) */
    double W;      /* rounds run within W entries of a full table: 5, 6 with runs (rounds_of) */
    uint32_t Q;    /* the L2 changes a round lets gather: ceil(K / 4) (map.c room_pick) */
    int hold;      /* the held sector is configured (cfg.hold_buf, file.c) */
    int by_hold;   /* with hold: this count is the variant where a call's one
                      commit that may ride in the held sector does (the other
                      variant: by its inode sector); the bound is the larger */
    int walign;    /* a write kind's count is the variant where the write starts on a
                      sector (it may be a light call); the other: at any other offset,
                      where a write that touches three pages or more never is one
                      (call_cost_any: the bound is the larger) */
    uint32_t ring_units, ring_k, ring_rpu;   /* the record ring (ring.c; 0 units: none) */
} model;

/* x / y rounded down (one call), or exactly (a window: an upper bound of
 * the floor that keeps the window's cost concave in n). */
static double dv(const model *m, double x, double y)
{
    return m->real ? x / y : (double)((uint64_t)x / (uint64_t)y);
}

static double dmin(double x, double y) { return x < y ? x : y; }

/* x rounded up to a whole number (x >= 0; no libm in the core) */
static double up(double x)
{
    double w = (double)(uint64_t)x;
    return w < x ? w + 1 : w;
}

/* The steps of a binary search over x places: ceil(log2 x). */
static double log2_up(uint32_t x)
{
    double n = 0;
    uint64_t v = 1;
    while (v < x) {
        v <<= 1;
        n++;
    }
    return n;
}

static void add(acc *a, const acc *b, double times)
{
    uint32_t i;
    for (i = 0; i < 11; i++)
        a->v[i] += b->v[i] * times;
}

/* A bound of either of two costs, field by field (settle() only grows
 * with every field, so this bounds both after it too). */
static void vmax(acc *a, const acc *b)
{
    uint32_t i;
    for (i = 0; i < 11; i++)
        if (b->v[i] > a->v[i])
            a->v[i] = b->v[i];
}

static void rd(const model *m, acc *a, double n)   /* full sector reads */
{
    a->r += n * m->rsplit;
    a->rb += n * (m->S + m->spare);
}

static void rds(const model *m, acc *a, double n)  /* small reads (tag, run of words) */
{
    a->r += n * m->rsplit;
    a->rb += n * m->small;
}

/* n fills of a handle's chunk window: the inode's two map words, then
 * one read of the window's run of its chunk list */
static void chunk_fills(const model *m, acc *a, double n)
{
    rds(m, a, 2 * n);
    a->r += n * m->rsplit;
    a->rb += n * m->cwb;
}

/* n collection steps (sfs_gc_one), each at its worst: a sweep step
 * (sfs_sweep_step: the L2 word of its L1 sector, the sector, one program,
 * the L2 change it adds) or the examination of one victim sector (its
 * tag, at most two map words for its liveness, then either a copy -- read
 * and programmed at the collection head, no pending change at all: a
 * relocation record says where it went, reloc.c -- or a live map sector's
 * merge: the sector read, one program, at most one L2 change).  A step
 * that finishes a victim does nothing else (its trim step is one of the
 * call's SFS_TRIMS_PER_CALL).  The make-room rounds a step runs first are
 * counted from the changes in settle(). */
static void steps(const model *m, acc *a, double n)
{
    rds(m, a, 3 * n);
    rd(m, a, n);
    a->sec += n;
    a->a2 += n;
}

/* n static wear-levelling steps (wl_one): an examination whose copy is an
 * ordinary committed change at the host head (its L1 change, and the
 * lookup of what it replaces at its commit: two words more). */
static void wl(const model *m, acc *a, double n)
{
    rds(m, a, 5 * n);
    rd(m, a, n);
    a->sec += n;
    a->a1 += n;
    a->t1 += n;
}

/* The steps of sfs_gc_pace calls that pay `worth` sectors' worth of debt
 * between them: the pace (1/SFS_PACE_ONE steps) times that, and the
 * fraction earlier calls left owed (gc.pace_carry, less than a step), in
 * whole steps: at most ceil(pace x worth / SFS_PACE_ONE).  Counted apart,
 * each group's whole steps add up to no less than the calls' together
 * run.  In a window (m->real) the pace times the worth; window() adds the
 * step the carry may give once. */
static void pace_steps(const model *m, acc *a, double worth)
{
    double x = (double)m->pace * worth / SFS_PACE_ONE;
    if (!(m->without & STEADYFS_PART_PACE))
        steps(m, a, m->real ? x : up(x));
}

/* g calls of sfs_gc_pace: each runs at most the pace per sector's worth
 * of debt and pays at most SFS_DEBT_STEP of them (log.debt counts every
 * sector programmed outside collection, merges and inode sectors included:
 * this is the only place the pace is counted); its trim step is one of
 * the call's SFS_TRIMS_PER_CALL and takes the place of a step.  Its
 * wear-levelling step, one per SFS_WL_STEP of its calls (wl_tick), is
 * counted in settle() from all the calls of the stretch. */
static void pace(const model *m, acc *a, double g)
{
    pace_steps(m, a, (double)SFS_DEBT_STEP * g);
    a->g += g;
}

/* n trim steps (sfs_trim_step): the L2 word of the L1 sector, the sector,
 * one program (its L2 change), and the checkpoint that must follow. */
static void trims(const model *m, acc *a, double n)
{
    rds(m, a, n);
    rd(m, a, n);
    a->sec += n;
    a->a2 += n;
    a->ck += n;
}

/* The lookups of the committed locations commits replace
 * (sfs_apply_commit: two words for each uncommitted change it commits, n
 * of them; each change is committed once, so a stretch of calls pays for
 * the transaction it starts with, at most txn_max + 1 changes, and for the
 * changes it adds). */
static void commit_lookups(const model *m, acc *a, double n)
{
    rds(m, a, 2u * n);
}

/* The lookups of a file's commit of n data changes: every one, but where
 * commits may leave the sectors they replaced counted (m->old_later: media
 * without erase whose pigeonhole holds with them) only page 0's, in the
 * shared table; its chunk pages' replaced sectors are uncounted by their
 * L1 sector's merge, which reads the words anyway (map.c old_later,
 * PF_OLD). */
static void data_lookups(const model *m, acc *a, double n)
{
    commit_lookups(m, a, m->old_later ? dmin(n, 1.0) : n);
}

/* An inode sector rewritten (sfs_inode_edit): the committed one read
 * (lookup, sector), programmed, one L1 change (and its lookup at the
 * commit; the rest of the transaction's are the caller's). */
static void inode_write(const model *m, acc *a)
{
    rds(m, a, 2);
    rd(m, a, 1);
    a->sec += 1;
    a->a1 += 1;
    commit_lookups(m, a, 1);
}

/* A file's commit (commit_sector): its pace -- one sector's worth, its
 * inode sector's (what else the call programs is paid by later calls) --
 * then the inode sector. */
static void commit(const model *m, acc *a)
{
    pace_steps(m, a, 1);
    a->g += 1;
    inode_write(m, a);
}

/* A kill (sfs_commit_kill, sfs_reap): the committed inode sector (lookup,
 * read; chunks_die reads it again unless it is still in the buffer), the
 * commit of the transaction (lk changes: none for an orphan's), the chunk
 * a shrink cuts through (lookup and one word) and its trim (or a
 * directory's block: one L1 sector, read and programmed, an L2 change),
 * the "none" changes of the inode and page 0 (a lookup each), and the
 * checkpoint that commits it all. */
static void kill(const model *m, acc *a, double lk)
{
    rds(m, a, 2 + 3 + 1 + 4);
    rd(m, a, 3);
    commit_lookups(m, a, lk);
    a->sec += 1;
    a->a1 += 2;
    a->t1 += 2;
    a->a2 += 1;
    a->ck += 1;
}

/* A host data sector (steadyfs_write's loop): where its page is (the
 * chunk: the inode's lookup and one run of its list), the program, its L1
 * change.  Its pace and the chunk entries of chunks taken are counted by
 * the caller. */
static void host_sector(const model *m, acc *a)
{
    chunk_fills(m, a, 1);
    a->sec += 1;
    a->a1 += 1;
}

/* The held sector programmed (file.c hold_flush) by whatever call leaves
 * it: the program, the change of its page and of the chunk it may take
 * (their lookups at their commit), and with commit the size entry its tag
 * carries.  No pace: the write that held it paced it. */
static void hold_flush(const model *m, acc *a, int with_commit)
{
    if (!m->hold)
        return;
    a->sec += 1;
    a->a1 += with_commit ? 3 : 2;
    commit_lookups(m, a, 2);
}

/* A commit (sfs_file_commit, commit_now): the inode sector's, or in the
 * variant by_hold the held sector's program that carries it (one a call
 * at most: one sector is held, and a call that programs it holds none
 * until its last sector). */
static void sync_commit(const model *m, acc *a)
{
    if (m->hold && m->by_hold)
        hold_flush(m, a, 1);
    else
        commit(m, a);
}

/* A partial page's read-modify-write: the lookup and the old sector. */
static void rmw(const model *m, acc *a)
{
    rds(m, a, 2);
    rd(m, a, 1);
}

static void lookup_name(const model *m, acc *a, double times)
{
    rds(m, a, 2.0 * m->D * times);
    rd(m, a, m->D * times);
}

/* The same in a call that changes nothing (open, opendir, stat, readdir),
 * where no program or merge can drop a cached map word between the
 * lookups: a directory's D bucket words lie in one L1 sector, D
 * consecutive logical pages of the inode's shared block, which touch at
 * most (D + 3) / 4 + 1 aligned runs of 4, and the word cache (cache.c: two
 * runs per level, replaced in turn) reads each run once and the L2 word
 * once.  A scan in bucket order (sfs_dir_next, a link count's dir_count)
 * visits the runs in order; a name's probe (sfs_dir_lookup) starts at the
 * name's bucket and goes round past the last, so it may come back to the
 * run it started in after two others: one read more.  So (D + 3) / 4 + 2
 * or + 3 small reads a directory instead of 2 D; the test builds' budget
 * check aborts on a call that reads more. */
static void bucket_scan(const model *m, acc *a, double times, int round)
{
    rds(m, a, (double)((m->D + 3) / 4 + 2 + (round ? 1u : 0u)) * times);
    rd(m, a, m->D * times);
}

static void inode_read(const model *m, acc *a)
{
    rds(m, a, 2);
    rd(m, a, 1);
}

static void resolve(const model *m, acc *a)
{
    lookup_name(m, a, m->depth);
}

static void resolve_ro(const model *m, acc *a)
{
    bucket_scan(m, a, m->depth, 1);
}

/* A directory edit (sfs_dir_insert2 / sfs_dir_remove2): every probed
 * bucket loaded (lookup, sector), and programmed: an insert marks every
 * full bucket it passes (overflow) before the one that takes the name, so
 * up to dir_pages sectors, each an L1 change of the namespace
 * transaction. */
static void dir_edit(const model *m, acc *a, int insert)
{
    lookup_name(m, a, 1);
    a->sec += insert ? m->D : 1u;
    a->a1 += insert ? m->D : 1u;
}

/* The make-room rounds of a stretch (sfs_make_room, room_pick in map.c):
 * the programs (and sector reads) they add, *small their small reads: 5
 * for each round or light step that merges at the L1 level (the words a
 * size merge and an L1 merge read), all within the episodes, and one for
 * a light step that reads the word of its merge first (map.c
 * words_first).
 *
 * Rounds run only while the table is within W entries of full (need + 1
 * <= W: W = 5, 6 where a data sector may bring the change of a second
 * one in its run, m->runs).  An L1-level round takes the oldest
 * committed L1-level entry away in at most two programs (a size or chunk
 * entry into its inode sector, then, if that left the count as it was,
 * the inode's L1 sector: n1, the L1-level entries, drops by one at
 * least) and adds at most one L2 entry.  room_pick chooses one only while
 * the L2 entries n2 are fewer than qr = ceil(K / 4), so only while n1 >=
 * K - W - qr + 2; n1 grows only by a1 (a size merge adds no more than it
 * takes), so a stretch has at most W - 1 + qr + a1 of them (+ one per
 * catch-up, which may take a round's entry).  Each L1-level program ends
 * an episode (the committed changes of one map sector between two of its
 * merges), so there are at most as many as episodes were open at the
 * start (one entry each: K) or started since: one call's, one per
 * L1-level entry added (a1), one per size merge (its inode's L1 sector:
 * at most one per inode-sector episode, K + a1), one per catch-up; a
 * window's (window), a->t1 by its records (their pages' L1 sectors, their
 * inode sector, their inode's L1 sector), the wear-levelling copies and
 * the kills, one per size merge (K + the records), one per catch-up.
 *
 * Every other round merges an L2 sector (one program) and takes at least
 * one entry off the count (an L1-level round at least none), so there are
 * at most W + a1 + a2 (+ catch-ups) of them.  With one L2 sector (n_l2 ==
 * 1, every device up to e1 * e1 pages) each takes every L2 entry: the
 * first of a stretch what was there, every later one only entries added
 * since the one before, at least qr of them when chosen for their number,
 * at least K - W + 1 - the uncommitted ones when no L1-level entry could
 * be merged (q: the smaller), at least one when chosen for a cold one
 * (older than 4 K sectors: one per 4 K + 1 sectors, as an L2 merge leaves
 * none behind).  L2 entries come from a2 and from the L1 merges.
 *
 * lr: light calls' room steps on media with runs (call.c sfs_room_step:
 * one merge, chosen as above, from W + 8 entries short of full on), each
 * one program: an L1-level one adds to the L1-level programs (within the
 * episodes still) and to the L2 entries; an L2 one counts among the L2
 * merges, each taking at least q unless no L1-level entry could be merged
 * (then at least K - W - 7 - the uncommitted ones): lf of them, where
 * that is below q, count one each. */
static double rounds_of(const model *m, const acc *a, double q, double cu, double lr, double lf,
                        int window, double *small)
{
    double w = m->W, qr = m->Q;
    double ep = window ? 2.0 * m->K + a->t1 + a->rec + cu : 2.0 * m->K + 2 * a->a1 + cu;
    double l1 = dmin(w - 1 + qr + a->a1 + cu, ep);
    double p1 = dmin(2 * l1 + lr, ep);
    double r2 = w + a->a1 + a->a2 + cu + lr;
    /* (the rounds' own sectors, for the cold ones: at most p1 + r2) */
    if (m->nl2 == 1u)
        r2 = dmin(r2, 2 + lf + dv(m, a->a2 + dmin(l1 + lr, ep), q) +
                          dv(m, a->sec + p1 + r2, 4.0 * m->K + 1));
    *small = 5 * dmin(l1 + lr, ep) + lr;
    return p1 + r2;
}

/* What the parts of `calls` consecutive changing calls force (one call,
 * or a write and its sync), and what every changing call may add; of
 * them `lights` may be light calls (sfs_end's housekeeping: a
 * checkpoint, a kill or a cold merge), and `aheads` erases-ahead are
 * counted beyond the head moves' (one call or two only).  xunc:
 * the uncommitted entries the call's own work may hold beyond every open
 * file's transaction (txn_max + 1 each: a write commits before a sector
 * once txn_max are reached, and a sector adds two, its page's and a
 * chunk's): a namespace transaction's sectors, a shrink's sector and
 * inode sector before the kill commits them.  window: the calls are a
 * window of records (window()), and what one call may add at most once
 * is counted by what the window's totals allow instead. */
static void settle(const model *m, acc *a, double calls, double lights, double aheads, double xunc,
                   int window)
{
    double small, rp, cu, mv, q, unc, lr, lf, i;
    int upkeep = !(m->without & STEADYFS_PART_UPKEEP);
    if (!window) {
        /* every changing call: its trim steps (a pace's, a write short of
         * live room, a light call's: at most SFS_TRIMS_PER_CALL,
         * chunk.steps); `aheads` erases-ahead beyond what the head moves
         * cover (below); and each call that may be light (`lights`), a
         * light call's housekeeping in sfs_end (after at most two
         * programs of its own): a checkpoint, and the kill of an orphan
         * (sfs_reap) or a cold merge (sfs_merge_cold: one inode or L1
         * sector, less than the kill) */
        /* Erases-ahead (sfs_erase_ahead, one a call): at the end of a
         * call only if it erased nothing before (a head move's forced
         * erase, an anchor switch: SFS_MARK_ERASED), nor did the call
         * before it if it is a commit (a sync: SFS_MARK_PREV_ERASED); at
         * a write's start (sfs_write_start_erase), before anything else.
         * So a call that is not a write erases at most max(F + A, 1)
         * units (F its forced erases, at most one a head move; A its
         * anchor switches), within the moves' and switches' count below
         * (at least two moves); a write, and a write with its sync, at
         * most 1 + F + A: one more (aheads = 1). */
        if (m->erases && upkeep)   /* (none without erase: sfs_wl_one) */
            wl(m, a, dv(m, a->g + SFS_WL_STEP - 1, SFS_WL_STEP));
        for (i = 0; upkeep && i < calls; i++)
            trims(m, a, SFS_TRIMS_PER_CALL);
        a->e += aheads;
        for (i = 0; upkeep && i < lights; i++) {
            kill(m, a, 0);
            a->ck += 1;
        }
    } else {
        /* A window of records programs and kills nothing of a namespace's,
         * so what every call may do is bounded by what there is to do:
         * - kills: only of orphans (sfs_reap, one per light call at most),
         *   and a window makes none, so at most orphan_max of them (and a
         *   close of a file unlinked while open: one more);
         * - trim steps: one frees every dying chunk of one L1 sector (at
         *   least one chunk), and chunks die only in kills, so at most
         *   n_l1 for what was dying when the window began and n_l1 per
         *   kill, and at most one per chunk in all (what was dying and the
         *   orphans the window kills are distinct chunks, all there when
         *   it began: the window's own files die in none of its calls);
         * - cold merges (sfs_merge_cold, one per light call): one program,
         *   taking a closed file's size and chunk entries into its inode
         *   sector (adding one L1 entry) or an L1 sector's entries (adding
         *   an L2 one); with size and chunk entries weighing 2 and L1
         *   entries 1, each takes at least 1 off a total that starts at
         *   2 K at most and grows by 2 per L1-level entry added.  None adds
         *   to the L1-level entries (at least one taken for the one added),
         *   so the rounds that take one away for good stay within K + a1
         *   (below); each adds an L2 entry;
         * - checkpoints of a light call: the one about to fall due is one
         *   of the replay_max ones below (counted every replay_max - 1
         *   sectors), the one that makes LIMBO units erasable with the
         *   queue down to one unit at most once per unit a head takes;
         * - erase-aheads: an erase fills the queue (three units,
         *   SFS_Q_TARGET, and the two a checkpoint names as the heads'
         *   next), and only head moves empty it, so at most the moves
         *   (below) + 5. */
        double kills = dmin(lights, m->orphans + 1.0), cold;
        if (!upkeep)
            kills = lights = 0;
        if (m->erases && upkeep)
            wl(m, a, a->g / SFS_WL_STEP + 1);
        if (upkeep)
            trims(m, a, dmin(SFS_TRIMS_PER_CALL * calls, dmin(m->nl1 * (kills + 1), m->nc)));
        {
            acc k = {{0}};
            kill(m, &k, 0);
            add(a, &k, kills);
        }
        cold = dmin(lights, 2.0 * m->K + 2 * a->a1);
        rds(m, a, 3 * cold);
        rd(m, a, cold);
        a->sec += cold;
        a->a2 += cold;
        a->e += 5;
    }
    /* Make-room rounds: rounds_of().  (In a window after its first record
     * every record's sync commits what it wrote, so the writing file holds
     * at most its record's changes, xunc, and only the other open files a
     * whole transaction each: window()) */
    unc = (double)(window ? m->open - 1u : m->open) * (m->txn + 1u) + xunc;
    q = m->Q;
    if (m->K + 1.0 < m->W + unc + q)
        q = m->K + 1.0 > m->W + unc ? m->K + 1.0 - m->W - unc : 1.0;
    lr = m->runs ? lights : 0;
    lf = m->K + 1.0 < m->W + 8 + unc + q ? lr : 0;
    rp = rounds_of(m, a, q, 0, lr, lf, window, &small);
    /* Catch-up collection (sfs_log_reserve): a host-head move that finds
     * fewer than `keep` erased units first collects, at most 2 (s + 1)
     * steps rounded up (sfs_catch_up_steps), once a call (gc.caught_up),
     * never nested (SFS_MODE_GC); the
     * host head takes everything but collection copies, so its moves are
     * at most the sectors / P + 1 (a head full at the start).  At every
     * such move, catch-up or not, it checkpoints once for the units it
     * empties, all of them together (counted with the moves' sectors, the
     * catch-up's own included; until the thirty-ninth session once a unit,
     * up to `keep`), plus once per unit a head takes meanwhile (with the
     * moves below). */
    cu = m->thread || (m->without & STEADYFS_PART_CATCH_UP) ? 0 : dmin(calls, dv(m, a->sec + rp, m->P) + 1);
    steps(m, a, cu * sfs_catch_up_steps(m->pace));
    /* (where collection never runs no move asks for a catch-up and no
     * unit is emptied to LIMBO: sfs_log_reserve finds a unit to thread
     * whenever the erased units are low, so none of these) */
    if (!m->thread)
        a->ck += dv(m, a->sec + rp, m->P) + 1;
    rp = rounds_of(m, a, q, cu, lr, lf, window, &small);
    if (m->without & STEADYFS_PART_ROUNDS)
        rp = small = 0;
    rd(m, a, rp);
    rds(m, a, small);
    a->sec += rp;
    /* Head moves, both heads: at most the sectors / P + 2.  Each may erase
     * (head_move erases a FREE unit when none is queued), may checkpoint
     * twice (to make LIMBO units erasable when nothing else is left, and
     * into a unit no checkpoint named: need_ckpt) and may let a catch-up
     * checkpoint once more.  Checkpoints also fall due every replay_max
     * sectors (since_ckpt, reserve_end), the first within the stretch (in
     * a window every replay_max - 1: a light call takes one a sector
     * early, and the LIMBO one of a light call once per move).
     * Erases: the moves', the anchor switches (sfs_ckpt_write: one per P
     * anchor sectors).  On media without erase the host head may go on
     * in a closed unit's dead sectors, at least P / SFS_THREAD_DIV of them
     * (log.c thread_unit), each such move with its checkpoint: at most
     * sectors / that + 2 moves. */
    mv = dv(m, a->sec, m->pmove) + 2;
    /* (where collection never runs, m->thread, no unit is ever LIMBO and
     * no catch-up runs: a move checkpoints at most once, into a unit no
     * checkpoint named) */
    a->ck += window ? a->sec / (m->R - 1.0) + 1 + (m->thread ? 1 : 4) * mv
                    : dv(m, a->sec, m->R) + 1 + (m->thread ? 1 : 3) * mv;
    if (m->without & STEADYFS_PART_CHECKPOINTS) {
        a->ck = 0;   /* (and no checkpoint-unit switch) */
        a->e += mv;
    } else if (m->erases) {
        /* checkpoints in pool units (format 18): a switch every (P - 1)
         * / 2 checkpoints at most (a relocation sector before each; a
         * unit's last sector is not used, ckpt.c sfs_ckpt_write), each a
         * pointer record, a read that the unit taken is erased, and an
         * erase where none was held or queued; the anchor ring's own
         * erase once in P switches, where the erase ahead has not done it
         * (log.c sfs_erase_ahead) */
        double sw = dv(m, 2 * a->ck, m->P - 1) + 1;
        a->pt += sw;
        rds(m, a, sw + mv);   /* (and a head move's: log.c head_move) */
        a->e += mv + sw + dv(m, sw, m->P) + 1;
    } else {
        a->e += mv + dv(m, 2 * a->ck, m->P) + 1;
    }
}

/* Writing n bytes (steadyfs_write): the sectors it touches, each with its
 * pace, and the chunk entries of the chunks they take (C pages each: at
 * most h / C + 2); the implicit commits (the transaction reaching txn_max
 * entries: each sector adds at most two, its L1 change and a chunk's);
 * two partial pages read back at most; an O_DSYNC write's commit in its
 * last sector (its size entry); the lookups of every commit of the write
 * and of a sync after it (its sectors).  first: the write may start with
 * a transaction earlier writes left (up to txn_max changes: one more
 * commit, at its first sector, and their lookups); in a window of records
 * only the first write can, as each record's sync commits what it
 * wrote.  aligned: the write starts at a multiple of the sector payload, so
 * it touches ceil(n / payload) pages and reads back at most its last
 * (partial) one. */
static void write_n(const model *m, acc *a, uint64_t n, int first, int aligned)
{
    uint64_t h = !n ? 0 : aligned ? (n + m->pay - 1) / m->pay : (n + m->pay - 1) / m->pay + 1;
    uint64_t ic = (first ? 1u : 0u) + 2 * h / m->txn, i;
    acc c = {{0}};
    /* first: the sector an earlier write held, programmed before this
     * write's (in a window every record's sync programmed its own) */
    if (first && n)
        hold_flush(m, a, 0);
    /* (the h sectors' pace together: whole steps for them all) */
    pace(m, a, (double)h);
    for (i = 0; i < h; i++)
        host_sector(m, a);
    if (h && (!aligned || n % m->pay))
        rmw(m, a);
    if (h > 1 && !aligned)
        rmw(m, a);
    a->a1 += (double)(h < h / m->C + 2 ? h : h / m->C + 2);
    /* (the first implicit commit may ride in the held sector, the rest are
     * inode sectors) */
    if (ic) {
        sync_commit(m, a);
        commit(m, &c);
        add(a, &c, (double)ic - 1);
    }
    data_lookups(m, a, (first ? m->txn + 1.0 : 0.0) + (double)h);
    a->a1 += 1;
}

/* The light calls a write of n bytes may be in the variant m->walign:
 * none where it starts off a sector boundary and every such offset
 * touches three pages or more (each is programmed, or the last held,
 * which counts as its program: sfs_end's light call has at most two).
 * A short write (an error after some pages) is never light (file.c
 * SFS_END_SHORT), so one that programmed fewer is within the variant of
 * its offset too. */
static double write_lights(const model *m, uint64_t n)
{
    uint64_t fewest = n % m->pay ? (n + m->pay - 1) / m->pay : n / m->pay + 1;
    return !m->walign && fewest >= 3 ? 0.0 : 1.0;
}

/* The bound of one call kind, before pricing. */
static void call_cost(const model *m, const steadyfs *fs, steadyfs_call call, uint64_t n, acc *a)
{
    acc t = {{0}}, u = {{0}};
    uint64_t i;
    switch (call) {
    case STEADYFS_CALL_MOUNT: {
        uint32_t lg = 0, la = 0, la1 = 0;
        while ((1u << lg) < m->P)
            lg++;
        while ((1u << la) < m->A)
            la++;
        while ((1u << la1) < m->A - 1u)
            la1++;
        /* the anchor ring's newest unit (ckpt.c anchor_newest: slot 0's
         * first tag and a binary search, or slot 1's too when slot 0 is
         * the one erased ahead), then a binary search in that unit; the
         * slot before it, where the newest holds no checkpoint yet: its
         * first tag and its last sector's */
        if (m->erases)
            /* media that erase (format 18): the newest pointer in that
             * unit, a binary search in the unit it names, where the
             * checkpoint unit and the ring go on (erased) */
            rds(m, a, (1 + la > 2 + la1 ? 1 + la : 2 + la1) + 2 * lg + 2);
        else
            rds(m, a, (1 + la > 2 + la1 ? 1 + la : 2 + la1) + lg + 1 + 2);
        rd(m, a, 2 * 3 + 1);            /* newest valid checkpoint, two back (a torn one and
                                           its relocation sector); both anchors (with
                                           erase: the kept unit's, which the pointer
                                           names); the relocation sector it names */
        rds(m, a, (double)m->R * 3 + 2 + !m->erases);  /* replay: a tag per sector (+ one
                                           per head at the end, and where the host head may
                                           have gone on in the closed unit named for it),
                                           commit lookups */
        /* no kill: kills are committed by a checkpoint (sfs_commit_kill) */
        rds(m, a, 2 * 4);               /* aborted creates: at most one namespace */
        rd(m, a, 4 + 2 * 2);            /* transaction's inodes; where each head resumes */
        if (!m->erases)
            rd(m, a, m->nl1);           /* exact maybe-live bits: every L1 sector (ckpt.c) */
        if (m->old_later)
            rds(m, a, m->K);            /* the sectors the checkpoint's changes replaced, still
                                           counted (PF_OLD), for the L1 sectors replay meets
                                           (map.c sfs_apply_map); replay's own changes need
                                           one such word instead of their two lookups */
        if (m->ring_units) {
            /* the record ring's end (ring.c sfs_ring_mount): the first tag
             * of the first good unit, of the last or of the units a binary
             * search over the good ones visits, then of the newest again;
             * a binary search over the newest unit's record slots, each
             * the slot's first sector (read whole: erased or not) */
            rds(m, a, 2.0 + log2_up(m->ring_units));
            rd(m, a, log2_up(m->ring_rpu));
        }
        return;
    }
    case STEADYFS_CALL_UNMOUNT:
        /* the closes it makes (each a close call), then its own part: the
         * orphans (no handle left to hold them) die, every dying chunk is
         * trimmed, each trim step freeing one L1 sector's worth, and a
         * checkpoint follows the log's last sector */
        call_cost(m, fs, STEADYFS_CALL_CLOSE, 0, &t);
        add(a, &t, fs->cfg.open_max);
        for (i = 0; i < fs->geo.orphan_max; i++)
            kill(m, &u, 0);
        trims(m, &u, fs->geo.n_l1);
        u.ck += 1;   /* the checkpoint after the log's last sector (fs.c) */
        settle(m, &u, 1, 1, 1, 0, 0);
        add(a, &u, 1);
        return;
    case STEADYFS_CALL_INFO:
    case STEADYFS_CALL_SEEK:
    case STEADYFS_CALL_CLOSEDIR:
        return;
    case STEADYFS_CALL_STAT:
        bucket_scan(m, a, 1, 0);   /* a directory's link count: its buckets */
        /* fall through */
    case STEADYFS_CALL_OPEN:
    case STEADYFS_CALL_OPENDIR:
        resolve_ro(m, a);
        inode_read(m, a);   /* no program, no erase: nothing changes (sfs_end) */
        return;
    case STEADYFS_CALL_SETATTR:
        /* the path, the pace (room_for_ns), the inode sector */
        resolve(m, a);
        pace(m, a, 1);
        inode_write(m, a);
        break;
    case STEADYFS_CALL_CREATE:
    case STEADYFS_CALL_MKDIR:
        /* the path; a new name: the pace, the directory insert, the inode
         * sector (its commit), the open's inode read -- or open with
         * O_TRUNC of an existing file: a shrink to 0 (its commit and kill) */
        resolve(m, a);
        pace(m, &t, 1);
        dir_edit(m, &t, 1);
        t.sec += 1;
        t.a1 += 1;
        commit_lookups(m, &t, m->D + 1u);
        inode_read(m, &t);
        commit(m, &u);
        kill(m, &u, m->txn + 3u);
        vmax(&t, &u);
        add(a, &t, 1);
        break;
    case STEADYFS_CALL_CLOSE:   /* the commit, or the last close of an orphan: its kill */
        hold_flush(m, a, 0);   /* (then the inode sector stores the times) */
        commit(m, a);
        data_lookups(m, a, m->txn + 1u);
        kill(m, a, 0);
        break;
    case STEADYFS_CALL_SYNC:
        sync_commit(m, a);
        data_lookups(m, a, m->txn + 1u);
        break;
    case STEADYFS_CALL_READ: {
        /* n bytes from any offset touch at most (n - 2) / payload + 2
         * pages (read_call reads each once): each page its two map words
         * (L2, L1: sfs_lookup) and its sector; its chunk from the handle's
         * window of geo.cwin slots, which a miss fills whole (slot_chunk:
         * the inode's two map words and one run of its chunk list), and
         * nothing in a read changes it, so at most one fill per slot the
         * pages span, (pages - 1) / C + 2 of them, and per page */
        uint64_t pages = n ? (n + m->pay - 2) / m->pay + 1 : 0;
        uint64_t slots = pages ? (pages - 1) / m->C + 2 : 0;
        rds(m, a, 2.0 * (double)pages);
        chunk_fills(m, a, (double)(slots < pages ? slots : pages));
        rd(m, a, (double)pages);
        return;
    }
    case STEADYFS_CALL_WRITE:
        write_n(m, a, n, 1, m->walign);
        settle(m, a, 1, write_lights(m, n), 1, 0, 0);
        return;
    case STEADYFS_CALL_WRITE_SYNC:
        /* two calls, the write and the sync, settled together (rounds and
         * the table's content are counted over both); an O_DSYNC write
         * is one call that does less: the write and at most one commit
         * after a short write */
        write_n(m, a, n, 1, m->walign);
        sync_commit(m, a);
        settle(m, a, 2, 1 + write_lights(m, n), 1, 0, 0);
        return;
    case STEADYFS_CALL_WRITE_DSYNC:
        /* one call: the write, its commit in its last sector (write_n's
         * lookups), and after a short write the commit of what it wrote
         * (file.c: the inode sector) */
        write_n(m, a, n, 1, m->walign);
        sync_commit(m, a);
        settle(m, a, 1, write_lights(m, n), 1, 0, 0);
        return;
    case STEADYFS_CALL_TRUNCATE:
        /* a shrink: the held sector below the cut programmed, the new
         * last page's tail zeroed (read-modify-write of one sector, no
         * pace of its own), the commit and the kill */
        hold_flush(m, a, 0);
        rmw(m, a);
        host_sector(m, a);
        commit(m, a);
        kill(m, a, m->txn + 3u);
        break;
    case STEADYFS_CALL_UNLINK:
    case STEADYFS_CALL_RMDIR:
        /* the pace, the path, rmdir's emptiness check, an orphan killed
         * to make room in the orphan list, the bucket, the kill */
        pace(m, a, 1);
        resolve(m, a);
        lookup_name(m, a, 1);
        kill(m, a, 0);
        dir_edit(m, a, 0);
        kill(m, a, 1);
        break;
    case STEADYFS_CALL_RENAME:
        /* both paths, the replaced directory's emptiness, the loop check
         * (parents walked), an orphan killed for room, the pace, the
         * remove and the insert, the moved directory's inode, the kill of
         * the replaced inode */
        resolve(m, a);
        resolve(m, a);
        lookup_name(m, a, 1);
        for (i = 0; i <= m->depth; i++)
            inode_read(m, a);
        kill(m, a, 0);
        pace(m, a, 1);
        dir_edit(m, a, 0);
        dir_edit(m, a, 1);
        inode_write(m, a);
        kill(m, a, m->D + 2u);
        break;
    case STEADYFS_CALL_READDIR:
        bucket_scan(m, a, 1, 0);
        inode_read(m, a);
        return;
    case STEADYFS_CALL_RING_APPEND:
        /* ring.c: the record's sectors (n bytes: ceil(n / payload), one at
         * least), and the erase of the unit it starts (the first record
         * of a unit); no read, no map change, no collection, no
         * checkpoint (a unit that fails is a fault) */
        a->sec += n > m->pay ? (double)((n + m->pay - 1u) / m->pay) : 1.0;
        a->e += 1;
        return;
    case STEADYFS_CALL_RING_READ:
        /* its first sector's tag (the length), its last one's (the
         * commit), then its sectors */
        rds(m, a, 2);
        rd(m, a, m->ring_k);
        return;
    case STEADYFS_CALL_GC_STEP:
        /* each step of the budget is one of: an orphan's kill, a trim step
         * and its checkpoint, an erase-ahead, a collection or a
         * wear-levelling step */
        kill(m, &t, 0);
        trims(m, &u, 1);
        vmax(&t, &u);
        memset(&u, 0, sizeof u);
        steps(m, &u, 1);
        vmax(&t, &u);
        memset(&u, 0, sizeof u);
        wl(m, &u, 1);
        vmax(&t, &u);
        t.e += 1;
        add(a, &t, n);
        break;
    default:
        return;
    }
    /* (a namespace change that succeeds is never a light call: ns.c
     * ns_end sets gc.busy first; one that fails does no housekeeping.
     * create is also an existing file's O_TRUNC, which ends as any call) */
    settle(m, a, 1,
           call == STEADYFS_CALL_MKDIR || call == STEADYFS_CALL_UNLINK || call == STEADYFS_CALL_RMDIR ||
                   call == STEADYFS_CALL_RENAME || call == STEADYFS_CALL_SETATTR
               ? 0
               : 1,
           call == STEADYFS_CALL_GC_STEP ? 1 : 0,
           call == STEADYFS_CALL_CREATE || call == STEADYFS_CALL_MKDIR ||
                            call == STEADYFS_CALL_RENAME ? m->D + 2u
                    : call == STEADYFS_CALL_TRUNCATE ? 2u
                    : call == STEADYFS_CALL_UNLINK || call == STEADYFS_CALL_RMDIR ||
                            call == STEADYFS_CALL_SETATTR ? 1u : 0u, 0);
}

/* call_cost() over its variants, the larger field by field (each bounds
 * what the call does in its case): with the held sector configured, a
 * commit that rides in it or in the inode sector (by_hold); a write kind,
 * at a sector boundary or not (walign). */
static void call_cost_any(const model *m, const steadyfs *fs, steadyfs_call call, uint64_t n, acc *a)
{
    model v = *m;
    acc x = {{0}}, y;
    uint32_t h, w;
    int writes = call == STEADYFS_CALL_WRITE || call == STEADYFS_CALL_WRITE_SYNC || call == STEADYFS_CALL_WRITE_DSYNC;
    /* (each variant bounds the calls of its case; settle() grows with every
     * field, so their field-by-field maximum bounds them all) */
    for (h = 0; h <= (m->hold ? 1u : 0u); h++)
        for (w = 0; w <= (writes ? 1u : 0u); w++) {
            memset(&y, 0, sizeof y);
            v.by_hold = (int)h;
            v.walign = (int)w;
            call_cost(&v, fs, call, n, &y);
            vmax(&x, &y);
        }
    add(a, &x, 1);
}

/* The model of the file system cfg formats on geo (fs: its derived
 * geometry); depth: the path components of path calls. */
static int model_init(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs *fs, model *m,
                      uint32_t depth)
{
    steadyfs_config c;
    sbd dummy_bd;
    static const sbd_ops no_ops;
    uint32_t v, closed;
    c = *cfg;
    c.work = NULL;
    dummy_bd.ops = &no_ops;
    dummy_bd.ctx = NULL;
    dummy_bd.geo = *geo;
    c.bd = &dummy_bd;
    if (sfs_setup(fs, &c))
        return STEADYFS_EINVAL;
    fs->cfg.bd = NULL;   /* dummy_bd is gone when this returns */
    /* a sector's bytes in its unit (with the tag beside it on NOR and
     * MRAM), the spare area's tag besides on NAND */
    m->S = sfs_stride(fs);
    m->spare = fs->geo.tag_inline ? 0 : SFS_TAG_SIZE;
    /* device operations per sector (media.c piece()): NOR programs page by
     * page, and where sectors do not divide the device block (2080-byte
     * sectors, 4 KiB NOR subsectors) a sector can straddle two, so any
     * read of it may take two; the most over the unit's sectors */
    m->pps = 1;
    m->rsplit = 1;
    {
        uint32_t dsize = geo->page_size * geo->pages_per_block, k;
        for (k = 0; k < fs->geo.P; k++) {
            uint32_t start = k * m->S, off = start % dsize;
            if (fs->geo.tag_inline && geo->needs_erase) {
                uint32_t pieces = (off % geo->page_size + m->S + geo->page_size - 1) / geo->page_size;
                if (pieces > m->pps)
                    m->pps = pieces;
            }
            if (off + m->S > dsize)
                m->rsplit = 2;
        }
    }
    m->pay = fs->geo.payload;
    m->C = fs->geo.C;
    m->nl2 = fs->geo.n_l2;
    m->nl1 = fs->geo.n_l1;
    m->nc = fs->geo.n_c;
    m->aligned = fs->geo.cbase % fs->geo.C == 0 && fs->geo.e1 % fs->geo.C == 0;
    m->erases = geo->needs_erase != 0;
    /* (sfs_runs_offered also asks the driver for progv: a bound for any
     * driver counts runs wherever the geometry allows them) */
    m->runs = STEADYFS_ERASELESS_MEDIA && fs->geo.tag_inline && !geo->needs_erase;
    m->W = m->runs ? 6.0 : 5.0;
    m->hold = cfg->hold_buf != NULL;
    m->by_hold = 0;
    m->pmove = !m->erases && fs->geo.P <= 32u && fs->geo.P / SFS_THREAD_DIV ? fs->geo.P / SFS_THREAD_DIV : fs->geo.P;
    m->open = fs->cfg.open_max;
    m->orphans = fs->geo.orphan_max;
    m->small = SFS_TAG_SIZE;   /* a tag; map words and a chunk word are fewer bytes */
    m->cwb = 4u * ((fs->geo.cwin + 1u) / 2u);
    if (m->cwb < m->small)
        m->cwb = m->small;
    m->K = fs->cfg.pending_max;
    m->Q = (m->K + 3u) / 4u;
    m->R = fs->cfg.replay_max;
    m->D = fs->cfg.dir_pages;
    m->P = fs->geo.P;
    m->A = fs->geo.anchors;   /* (every unit of the anchor area good: the longest ring) */
    m->txn = fs->geo.txn_max;
    m->depth = depth;
    m->real = 0;
    m->without = 0;
    m->ring_units = fs->cfg.ring_units;
    m->ring_k = fs->cfg.ring_units ? fs->cfg.ring_sectors : 0u;
    m->ring_rpu = m->ring_k ? fs->geo.P / m->ring_k : 0u;
    /* the pace, as derive() computes it at mount (the same function),
     * from the format fill limit with every block good.  Bad blocks lower
     * the limit with the pool but not the R + 1 held units, so v creeps up:
     * the pace stated here first falls short with the 137th unit lost on
     * mt29f1g01, the 192nd on mt25q128, the 67th on em064lx (DESIGN.md §7) */
    closed = fs->geo.nblocks - sfs_reserved(fs) - (m->erases ? SFS_CK_UNITS : 0u);
    fs->geo.usable = closed;
    v = sfs_live_limit(fs);
    m->pace = sfs_pace_steps(fs, closed, v);
    /* media without erase where the pigeonhole holds (log.c
     * sfs_thread_min): no collection step, no catch-up, no wear levelling
     * (sfs_wl_one), and a host-head move gives at least thread_min
     * sectors */
    fs->live_max = v;
    m->thread = sfs_thread_min(fs, !m->erases);
    m->old_later = sfs_old_later_ok(fs, !m->erases);
    if (m->thread) {
        m->pace = 0;
        m->pmove = m->thread;
    }
    return 0;
}

static uint32_t clamp32(double x) { return x > 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)x; }

/* A count as the operations it prices to; round_up: a window's real
 * counts, else they are whole already. */
static void priced(const model *m, const acc *a, int round_up, steadyfs_cost *out)
{
    int ck = !(m->without & STEADYFS_PART_CHECKPOINTS);
    double sectors = a->sec + (ck ? 2 * a->ck + a->pt : 0.0);
    out->reads = clamp32(round_up ? up(a->r) : a->r);
    out->progs = clamp32(round_up ? up(sectors * m->pps) : sectors * m->pps);
    out->erases = m->erases && !(m->without & STEADYFS_PART_ERASES) ? clamp32(round_up ? up(a->e) : a->e) : 0u;
    out->read_bytes = (uint64_t)(round_up ? up(a->rb) : a->rb);
    out->prog_bytes = (uint64_t)(round_up ? up(sectors * (m->S + m->spare)) : sectors * (m->S + m->spare));
    out->per = 1;
}

/* A window's real per-record counts for `per` records, each rounded up:
 * an erase every 32 records is 32 of 1024, not one a record. */
static void priced_per(const model *m, const acc *a, uint32_t per, steadyfs_cost *out)
{
    acc x = {{0}};
    add(&x, a, per);
    priced(m, &x, 1, out);
    out->per = per;
}

int steadyfs_bound(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs_call call,
                   uint64_t n, steadyfs_cost *out)
{
    return steadyfs_bound_without(cfg, geo, call, n, 0, out);
}

int steadyfs_bound_without(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs_call call,
                           uint64_t n, uint32_t parts, steadyfs_cost *out)
{
    steadyfs fs;
    model m;
    acc a = {{0}};
    if (!cfg || !geo || !out || (unsigned)call >= STEADYFS_CALL_COUNT || (parts & ~STEADYFS_PARTS_ALL) ||
        ((call == STEADYFS_CALL_RING_APPEND || call == STEADYFS_CALL_RING_READ) && !cfg->ring_units))
        return STEADYFS_EINVAL;
    if (model_init(cfg, geo, &fs, &m,
                   call == STEADYFS_CALL_READ || call == STEADYFS_CALL_WRITE ||
                           call == STEADYFS_CALL_WRITE_SYNC || call == STEADYFS_CALL_WRITE_DSYNC ||
                           call == STEADYFS_CALL_GC_STEP || !n
                       ? 4u : (uint32_t)(n > 64 ? 64 : n)))
        return STEADYFS_EINVAL;
    m.without = parts;
    call_cost_any(&m, &fs, call, n, &a);
    priced(&m, &a, 0, out);
    return 0;
}

/* What n consecutive records of b bytes may cost together, with real
 * division (m->real).  A record is a write and its sync, or an O_DSYNC
 * write and the close that stores its times, or, with STEADYFS_RECORD_DSYNC
 * in flags, an O_DSYNC write alone, the file staying open (its last data
 * sector carries the commit, no inode sector is written and the times wait
 * for a close that is not in the stream), or with STEADYFS_RECORD_HELD a
 * write and its sync, the file staying open, with the held sector
 * configured (the sync programs the record's last sector with the commit
 * in its tag: no inode sector either, but two calls); with STEADYFS_RECORD_ALIGNED
 * every record after the first starts at a multiple of the sector payload
 * (write_n: no page shared with a neighbour, no read-back but a partial
 * last page's).  The first record is bounded as one write_sync call
 * from any state (call_cost): it may find its file's transaction holding
 * txn_max changes of earlier writes, which its first sector commits.
 * After it every record commits what it wrote, so the n - 1 others are
 * alike: each one's own parts as in a write_sync (its sectors with their
 * pace, its commit -- the inode sector with its pace, where a sync or a
 * close makes it --, the commit lookups for its own changes, at most 2h +
 * 1: a page's and a chunk's per sector, and the size), and everything they
 * force settled over the whole window (settle(): rounds, catch-ups,
 * checkpoints and erases by the window's totals; kills, trims, cold merges
 * and erase-aheads by what there is to do, not one per call), from
 * whatever state the first record left.  The calls of a record that may
 * program (the write and the sync or the close: two; an O_DSYNC write
 * alone: one) may each be light. */
static void window(const model *m, const steadyfs *fs, double n, uint64_t b, uint32_t flags, acc *a)
{
    acc rec = {{0}};
    int dsync = (flags & STEADYFS_RECORD_DSYNC) != 0, aligned = (flags & STEADYFS_RECORD_ALIGNED) != 0;
    int held = (flags & STEADYFS_RECORD_HELD) != 0;
    double h = !b ? 0 : (double)((b + m->pay - 1) / m->pay + (aligned ? 0u : 1u));
    model one = *m;
    one.real = 0;
    call_cost_any(&one, fs, STEADYFS_CALL_WRITE_SYNC, b, a);
    write_n(m, &rec, b, 0, aligned);
    /* (a held record's sync programs the record's last sector, counted in
     * write_n, with the commit in its tag: no inode sector; with a close
     * after it, which stores the times, a record has one as before) */
    if (!dsync && !held)
        commit(m, &rec);
    data_lookups(m, &rec, h + 1);
    /* its L1-level episodes (rounds_of()): the L1 sectors of its pages
     * (h consecutive file pages lie in at most (h - 1) / C + 2 chunks, and
     * a chunk in one L1 sector when chunks are aligned to C: C divides
     * e1, a power of 2, and the chunk base), its inode sector (size and
     * chunk entries), its inode's L1 sector (the commit) */
    {
        double runs = (double)((h > 0 ? (uint64_t)h - 1 : 0) / m->C + 2);
        rec.t1 = dmin(h, m->aligned ? runs : 2 * runs) + 2;
    }
    rec.rec = 1;
    add(a, &rec, n - 1);
    /* (the pace's whole steps over the window: the fraction the first
     * record's calls left owed may make one more, gc.pace_carry) */
    if (m->pace && !(m->without & STEADYFS_PART_PACE))
        steps(m, a, 1);
    /* (a write that holds its last sector is never a light call, call.c
     * SFS_END_HELD: a held record has one that may be, its sync) */
    settle(m, a, (dsync ? 1 : 2) * (n - 1), (dsync || held ? 1 : 2) * (n - 1), 0, 2 * h + 1, 1);
}

int steadyfs_guarantee_of(const steadyfs_config *cfg, const sbd_geometry *geo, uint32_t record_size,
                          uint32_t flags, steadyfs_cost *per_record, steadyfs_cost *burst)
{
    return steadyfs_guarantee_without(cfg, geo, record_size, flags, 0, per_record, burst);
}

int steadyfs_guarantee_without(const steadyfs_config *cfg, const sbd_geometry *geo, uint32_t record_size,
                               uint32_t flags, uint32_t parts, steadyfs_cost *per_record,
                               steadyfs_cost *burst)
{
    steadyfs fs;
    model m;
    acc w[3], c = {{0}}, d = {{0}};
    double n = 1048576.0;
    uint32_t i, k;
    if (!cfg || !geo || !per_record || !burst || !record_size ||
        (flags & ~(STEADYFS_RECORD_DSYNC | STEADYFS_RECORD_ALIGNED | STEADYFS_RECORD_RING |
                   STEADYFS_RECORD_HELD)) ||
        ((flags & STEADYFS_RECORD_RING) && flags != STEADYFS_RECORD_RING) ||
        ((flags & STEADYFS_RECORD_HELD) && (!cfg->hold_buf || (flags & STEADYFS_RECORD_DSYNC))) ||
        (parts & ~STEADYFS_PARTS_ALL))
        return STEADYFS_EINVAL;
    if (model_init(cfg, geo, &fs, &m, 4))
        return STEADYFS_EINVAL;
    m.without = parts;
    if (flags & STEADYFS_RECORD_RING) {
        /* ring appends of record_size bytes (ring.c): each its k sector
         * programs; n of them start at most ceil(n / rpu) <= n / rpu + 1
         * units, one erase each.  Nothing else: no map, no collection, no
         * checkpoint, whatever the files do meanwhile. */
        uint32_t rk = (record_size + m.pay - 1u) / m.pay;
        if (rk > m.P)
            return STEADYFS_EINVAL;
        c.sec = rk;
        c.e = 1.0 / (double)(m.P / rk);
        d.e = 1;
        priced_per(&m, &c, 1024, per_record);
        priced(&m, &d, 1, burst);
        return 0;
    }
    /* Every count of window() is a concave function of n: sums, positive
     * multiples and minima of nondecreasing concave functions of n (real
     * division: no floor).  A concave function lies below its tangent at
     * any point, so the tangent of its last linear piece, c n + d, bounds
     * it for every n >= 1.  window() is piecewise linear with its pieces'
     * ends where a minimum changes sides (a few times the table, the
     * orphans and n_l1 records): at n = 2^20, 2^21 and 2^22 the slopes
     * agree, and c and d are read there (rounded up). */
    m.real = 1;
    for (k = 0; k < 3; k++) {
        memset(&w[k], 0, sizeof w[k]);
        window(&m, &fs, n * (double)(1u << k), record_size, flags, &w[k]);
    }
    for (i = 0; i < 8; i++) {
        double s1 = (w[1].v[i] - w[0].v[i]) / n, s2 = (w[2].v[i] - w[1].v[i]) / (2 * n);
        /* a slope still falling: n is not past the last piece's start */
        if (s1 - s2 > 1e-9 * (s1 > 1 ? s1 : 1))
            return STEADYFS_EINVAL;
        c.v[i] = s2;
        d.v[i] = w[1].v[i] - 2 * n * s2;
        if (d.v[i] < 0)
            d.v[i] = 0;
    }
    /* whole operations for 1024 records, rounded up (c n + d only
     * grows): before, each per-record count was rounded up to a whole
     * one, an erase every fourth record priced as one every record */
    priced_per(&m, &c, 1024, per_record);
    priced(&m, &d, 1, burst);
    return 0;
}

int steadyfs_guarantee(const steadyfs_config *cfg, const sbd_geometry *geo, uint32_t record_size,
                       steadyfs_cost *per_record, steadyfs_cost *burst)
{
    return steadyfs_guarantee_of(cfg, geo, record_size, 0, per_record, burst);
}

/* (a sizing tool, with the bound calculator: not in the run-time core) */
int steadyfs_geometry(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs_info *info)
{
    steadyfs fs;
    model m;
    if (!cfg || !geo || !info || model_init(cfg, geo, &fs, &m, 4))
        return STEADYFS_EINVAL;
    /* (model_init: every unit outside the anchor area good, as format
     * finds them, the live limit and the pace from them) */
    memset(info, 0, sizeof *info);
    info->capacity = (uint64_t)fs.live_max * fs.geo.payload;
    info->free = info->capacity;
    info->sector_size = fs.geo.sector_size;
    info->data_per_sector = fs.geo.payload;
    info->block_sectors = fs.geo.P;
    info->blocks = fs.geo.nblocks;
    info->txn_sectors = fs.geo.txn_max;
    info->gc_ratio = sfs_pace_whole(m.pace);
    return 0;
}

const char *steadyfs_call_name(steadyfs_call call)
{
    /* one string, names separated by NUL: no table of pointers */
    static const char names[] =
        "mount\0unmount\0info\0open\0create\0close\0read\0write\0sync\0"
        "write_sync\0truncate\0seek\0stat\0unlink\0rename\0mkdir\0rmdir\0"
        "opendir\0readdir\0closedir\0gc_step\0setattr\0write_dsync\0ring_append\0ring_read";
    const char *p = names;
    unsigned i;
    if ((unsigned)call >= STEADYFS_CALL_COUNT)
        return NULL;
    for (i = 0; i < (unsigned)call; i++)
        p += strlen(p) + 1;
    return p;
}
