/* Relocation: collection that writes no map (DESIGN.md §6).
 *
 * Collection copies a victim's live sectors to the collection head without
 * a single pending map change.  A *record* says which sectors of the
 * victim were copied (a bitmap); the copies of all records follow each
 * other in *copy addresses* (the order they were programmed), and the
 * *runs* say which sectors hold which addresses.  So the copy of sector j
 * of a record's unit is at address base + (copies of the records before)
 * + (bits below j).  The victim becomes MOVED: its old sectors stay as they
 * are, so a map word that still points there reads the right data without
 * any record; records are only needed to count (a commit uncounts the copy
 * of what it replaces), to judge liveness, and when an L1 sector is
 * written (every word resolved).
 *
 * The sweep writes the L1 sectors that may still point into copied units
 * (dirty bits), walking the L1 indices round robin; each completed record
 * calls for ceil(n_l1 / R) steps (geo.R <= SFS_RELOC_RECS), so once the walk has gone
 * round all n_l1 indices after a record was completed, no map word points
 * into its unit: the record retires and the unit may be erased.  A sweep
 * step is one L1 merge (or nothing, at a clean index), whatever was
 * copied: the map costs collection a fixed amount per victim.
 *
 * Records, runs and the sweep position are RAM state, saved in the
 * relocation sector a checkpoint names (written just before it when they
 * changed), with the dirty bits.  Replay rebuilds what came after from the
 * copies' tags (a copy names its source in aux).  An L1 sector written
 * after the relocation sector is clean in RAM only: after a cut the sweep
 * may write it once more (never less). */
#include <stddef.h>

#include "fs/fs_internal.h"
#ifdef STEADYFS_CHECK_BUDGET
#include <stdio.h>
#include <stdlib.h>
#endif

#define RELOC_MAGIC 0x31524653u   /* "SFR1" */
#define RELOC_HDR 40u

static uint32_t mbytes(const steadyfs *fs) { return (fs->geo.P + 7u) / 8u; }
static uint8_t *map_of(const steadyfs *fs, uint32_t k) { return fs->reloc.map + k * mbytes(fs); }

void sfs_reloc_place(steadyfs *fs, uint8_t *w, uint32_t *off)
{
    fs->reloc.done = sfs_carve(w, off, SFS_RELOC_CAP(fs) * 4u);
    fs->reloc.unit = sfs_carve(w, off, SFS_RELOC_CAP(fs) * 2u);
    fs->reloc.map = sfs_carve(w, off, SFS_RELOC_CAP(fs) * mbytes(fs));
    fs->reloc.cu_unit = sfs_carve(w, off, SFS_RELOC_RUNS(fs) * 2u);
    fs->reloc.cu_off = sfs_carve(w, off, SFS_RELOC_RUNS(fs));
    fs->reloc.cu_n = sfs_carve(w, off, SFS_RELOC_RUNS(fs));
    fs->reloc.dirty = sfs_carve(w, off, (fs->geo.n_l1 + 7u) / 8u);
}

static uint32_t popcount8(uint8_t v)
{
    uint32_t n = 0;
    for (; v; v &= (uint8_t)(v - 1u))
        n++;
    return n;
}

/* Set bits of record k's map below bit j (all: j = P). */
static uint32_t rank(const steadyfs *fs, uint32_t k, uint32_t j)
{
    const uint8_t *m = map_of(fs, k);
    uint32_t n = 0, i;
    for (i = 0; i < j / 8u; i++)
        n += popcount8(m[i]);
    if (j % 8u)
        n += popcount8((uint8_t)(m[j / 8u] & ((1u << (j % 8u)) - 1u)));
    return n;
}

/* The sector of copy address a. */
static uint32_t addr_ppn(const steadyfs *fs, uint32_t a)
{
    uint32_t off = a - fs->reloc.cu_base, i;
    for (i = 0; i < fs->reloc.ncu; i++) {
        if (off < fs->reloc.cu_n[i])
            return fs->reloc.cu_unit[i] * fs->geo.P + fs->reloc.cu_off[i] + off;
        off -= fs->reloc.cu_n[i];
    }
    return SFS_NONE;   /* not reached: every record's copies have runs */
}

/* Is unit b the source of some record? */
int sfs_reloc_holds(const steadyfs *fs, uint32_t b)
{
    uint32_t k;
    for (k = 0; k < fs->reloc.nrec; k++)
        if (fs->reloc.unit[k] == b)
            return 1;
    return 0;
}

uint32_t sfs_copy_of(const steadyfs *fs, uint32_t ppn)
{
    uint32_t hops, k, b, j, a;
    for (hops = 0; hops <= SFS_RELOC_CAP(fs); hops++) {
        if (ppn >= SFS_UNKNOWN || ppn / fs->geo.P >= fs->geo.nblocks || !fs->reloc.nrec)
            return ppn;
        b = ppn / fs->geo.P;
        /* a MOVED unit, or a unit collection has not finished with (the
         * victim in progress, one waiting for trims) */
        if (fs->blk[b] != BS_MOVED && !fs->reloc.nsrc)
            return ppn;
        j = ppn % fs->geo.P;
        a = fs->reloc.base;
        for (k = 0; k < fs->reloc.nrec; k++) {
            if (fs->reloc.unit[k] == b && sfs_bit(map_of(fs, k), j))
                break;
            a += rank(fs, k, fs->geo.P);
        }
        if (k == fs->reloc.nrec)
            return ppn;
        ppn = addr_ppn(fs, a + rank(fs, k, j));   /* a copy may itself have been copied */
    }
    return ppn;
}

int sfs_reloc_room(const steadyfs *fs)
{
    /* (a victim begun now may add one record to what a replay from the
     * last checkpoint rebuilds: SFS_RELOC_CAP) */
    return fs->reloc.nrec < fs->geo.R + 1u && fs->reloc.saved + fs->reloc.added < SFS_RELOC_CAP(fs) &&
           fs->reloc.ncu + SFS_RELOC_RUN_ROOM + fs->cfg.replay_max + 2u < SFS_RELOC_RUNS(fs);
}

/* Non-MOVED units that are some record's source (resolve's fast path). */
static void count_sources(steadyfs *fs)
{
    uint32_t k;
    fs->reloc.nsrc = 0;
    for (k = 0; k < fs->reloc.nrec; k++)
        fs->reloc.nsrc += fs->blk[fs->reloc.unit[k]] != BS_MOVED;
}

/* Record k (the last, in progress) is complete. */
static void complete(steadyfs *fs)
{
    uint32_t k = fs->reloc.nrec - 1u, b = fs->reloc.unit[k];
    fs->reloc.active = 0;
    fs->reloc.done[k] = fs->reloc.ticks;
    fs->reloc.owed += sfs_sweep_per_record(fs);
    fs->reloc.changed = 1;
    /* nothing counted in it any more: it waits, readable, until its
     * record retires (one that still counts dying sectors stays closed:
     * collection comes back to it after the trims) */
    if (fs->blk[b] == 0)
        sfs_set_state(fs, b, BS_MOVED);
    count_sources(fs);
}

void sfs_reloc_empty(steadyfs *fs, uint32_t b)
{
    sfs_set_state(fs, b, sfs_reloc_holds(fs, b) ? BS_MOVED : BS_LIMBO);
    count_sources(fs);
}

int sfs_reloc_end(steadyfs *fs, uint32_t b)
{
    if (!fs->reloc.active || fs->reloc.unit[fs->reloc.nrec - 1u] != b)
        return 0;
    complete(fs);
    return 1;
}

int sfs_reloc_copy(steadyfs *fs, const sfs_tag *t, uint32_t src, uint32_t dst)
{
    uint32_t b = src / fs->geo.P, j = src % fs->geo.P, k, last, i;
    if (b >= fs->geo.nblocks || dst / fs->geo.P >= fs->geo.nblocks || b == dst / fs->geo.P)
        return STEADYFS_ECORRUPT;
    /* Replay: a copy out of a full head's unit means the head had moved
     * on into its named next unit, with nothing written there yet (a call
     * that moved it failed before its own sector): the move, as made */
    if (!fs->mounted && fs->blk[b] == BS_HEAD) {
        if (b == fs->log.head_block && fs->log.head_idx >= fs->geo.P)
            sfs_enter_next(fs, 0);
        else if (b == fs->log.gh_block && fs->log.gh_idx >= fs->geo.P)
            sfs_enter_next(fs, 1);
    }
#ifdef STEADYFS_CHECK_BUDGET
    if (fs->blk[b] > fs->geo.P) {
        fprintf(stderr, "steadyfs: copy from unit %u in state %u (mounted %u)\n", b, fs->blk[b], fs->mounted);
        abort();
    }
#endif
    if (!fs->reloc.active || fs->reloc.unit[fs->reloc.nrec - 1u] != b) {
        if (fs->reloc.active)
            complete(fs);   /* replay: collection went on to another victim */
        if (fs->reloc.nrec >= SFS_RELOC_CAP(fs))
            return STEADYFS_ECORRUPT;
        k = fs->reloc.nrec++;
        fs->reloc.added++;   /* (replay rebuilds it from the copies) */
        fs->reloc.unit[k] = (uint16_t)b;
        fs->reloc.done[k] = 0;
        memset(map_of(fs, k), 0, mbytes(fs));
        fs->reloc.active = 1;
        count_sources(fs);
    }
    k = fs->reloc.nrec - 1u;
    if (sfs_bit(map_of(fs, k), j))
        return STEADYFS_ECORRUPT;   /* copied twice */
    /* the copy's address is the next one: extend the last run, or start
     * one (a new unit, or the head went on after a cut or another program) */
    last = fs->reloc.ncu - 1u;
    if (fs->reloc.ncu && fs->reloc.cu_off[last] + fs->reloc.cu_n[last] < fs->geo.P &&
        fs->reloc.cu_unit[last] * fs->geo.P + fs->reloc.cu_off[last] + fs->reloc.cu_n[last] == dst) {
        fs->reloc.cu_n[last]++;
    } else {
        if (fs->reloc.ncu >= SFS_RELOC_RUNS(fs))
            return STEADYFS_ECORRUPT;
        if (!fs->reloc.ncu) {
            /* the first run starts at this copy's address */
            fs->reloc.cu_base = fs->reloc.base;
            for (i = 0; i < fs->reloc.nrec; i++)
                fs->reloc.cu_base += rank(fs, i, fs->geo.P);
        }
        i = fs->reloc.ncu++;
        fs->reloc.cu_unit[i] = (uint16_t)(dst / fs->geo.P);
        fs->reloc.cu_off[i] = (uint8_t)(dst % fs->geo.P);
        fs->reloc.cu_n[i] = 1;
    }
    if (t->flags & TF_COMMIT) {
        /* a committed sector: the copy is counted where the original was,
         * and a pending change that names the original names the copy */
        sfs_count_inc(fs, dst);
        sfs_count_dec_raw(fs, src);
        for (i = 0; i < fs->npend; i++) {
            struct sfs_pend *p = &fs->pend[i];
            if (p->type == PT_L1 && !(p->flags & PF_UNC) && p->ppn == src)
                p->ppn = dst;
        }
        if (t->key < fs->geo.n_l1 * fs->geo.e1)
            sfs_bit_set(fs->reloc.dirty, t->key / fs->geo.e1, 1);
    }
    /* (a sector of an open transaction: the caller has made its change
     * name the copy, counted there -- before this, while copy_of(src) is
     * still src) */
    sfs_bit_set(map_of(fs, k), j, 1);   /* last: the counts above are the original's */
    fs->reloc.changed = 1;
    return 0;
}

/* Records whose unit no map word can point into any more go, oldest
 * first; their units become erasable (after the next checkpoint). */
void sfs_reloc_retire(steadyfs *fs)
{
    uint32_t n, b, k;
    while (fs->reloc.nrec && !(fs->reloc.active && fs->reloc.nrec == 1u) &&
           fs->reloc.ticks - fs->reloc.done[0] >= fs->geo.n_l1) {
        b = fs->reloc.unit[0];
        n = rank(fs, 0, fs->geo.P);
        fs->reloc.base += n;
        k = --fs->reloc.nrec;
        memmove(fs->reloc.unit, fs->reloc.unit + 1, 2u * k);
        memmove(fs->reloc.done, fs->reloc.done + 1, 4u * k);
        memmove(fs->reloc.map, map_of(fs, 1), mbytes(fs) * k);
        if (fs->blk[b] == BS_MOVED && !sfs_reloc_holds(fs, b))
            sfs_set_state(fs, b, BS_LIMBO);
        /* runs wholly below the first address still needed */
        while (fs->reloc.ncu && fs->reloc.base - fs->reloc.cu_base >= fs->reloc.cu_n[0] &&
               !(fs->reloc.ncu == 1u && fs->reloc.active)) {
            fs->reloc.cu_base += fs->reloc.cu_n[0];
            k = --fs->reloc.ncu;
            memmove(fs->reloc.cu_unit, fs->reloc.cu_unit + 1, 2u * k);
            memmove(fs->reloc.cu_off, fs->reloc.cu_off + 1, k);
            memmove(fs->reloc.cu_n, fs->reloc.cu_n + 1, k);
        }
        if (!fs->reloc.nrec) {
            fs->reloc.ncu = 0;
            fs->reloc.cu_base = fs->reloc.base;
        }
        fs->reloc.changed = 1;
        count_sources(fs);
    }
}

void sfs_reloc_l1(steadyfs *fs, uint8_t *buf, uint32_t m)
{
    uint32_t i, w;
    if (!fs->reloc.nrec)
        return;
    for (i = 0; i < fs->geo.e1; i++) {
        w = sfs_map_get(fs, buf, m * fs->geo.e1, i);
        if (w < SFS_LOST)
            sfs_map_put(fs, buf, m * fs->geo.e1, i, sfs_copy_of(fs, w));
    }
}

void sfs_reloc_written(steadyfs *fs, uint32_t m)
{
    if (m < fs->geo.n_l1)
        sfs_bit_set(fs->reloc.dirty, m, 0);
}

void sfs_reloc_reset(steadyfs *fs)
{
    fs->reloc.nrec = fs->reloc.ncu = fs->reloc.base = fs->reloc.cu_base = 0;
    fs->reloc.cursor = fs->reloc.ticks = fs->reloc.owed = fs->reloc.nsrc = 0;
    fs->reloc.active = fs->reloc.changed = 0;
    fs->reloc.table = SFS_NONE;
    /* with no relocation sector there is no record: no word names a copy */
    memset(fs->reloc.dirty, 0, (fs->geo.n_l1 + 7u) / 8u);
}

/* n bytes between the relocation sector's image and RAM (put: into the
 * image); save and load walk the same layout with it. */
static void io(uint8_t *img, void *ram, uint32_t n, int put)
{
    if (put)
        memcpy(img, ram, n);
    else
        memcpy(ram, img, n);
}

static void io16(uint8_t *img, uint16_t *v, int put)
{
    if (put)
        sfs_put16(img, *v);
    else
        *v = (uint16_t)sfs_get16(img);
}

/* The header's words (bytes 4..31) are reloc.nrec .. reloc.owed, in order. */
_Static_assert(offsetof(steadyfs, reloc.owed) - offsetof(steadyfs, reloc.nrec) == 24,
               "relocation header words are consecutive in RAM");
static void hdr_io(steadyfs *fs, uint8_t *b, int put)
{
    uint32_t i, *w = (uint32_t *)(void *)((uint8_t *)fs + offsetof(steadyfs, reloc.nrec));
    for (i = 0; i < 7u; i++) {
        if (put)
            sfs_put32(b + 4 + 4 * i, w[i]);
        else
            w[i] = sfs_get32(b + 4 + 4 * i);
    }
    io(b + 32, &fs->reloc.active, 1, put);
}

/* Records (unit, tick, bitmap), runs (unit, first, count), dirty bits. */
static void body_io(steadyfs *fs, uint8_t *b, int put)
{
    uint32_t k, o = RELOC_HDR, mb = mbytes(fs);
    for (k = 0; k < fs->reloc.nrec; k++, o += 6u + mb) {
        io16(b + o, &fs->reloc.unit[k], put);
        if (put)
            sfs_put32(b + o + 2, fs->reloc.done[k]);
        else
            fs->reloc.done[k] = sfs_get32(b + o + 2);
        io(b + o + 6, map_of(fs, k), mb, put);
    }
    for (k = 0; k < fs->reloc.ncu; k++, o += 4u) {
        io16(b + o, &fs->reloc.cu_unit[k], put);
        io(b + o + 2, &fs->reloc.cu_off[k], 1, put);
        io(b + o + 3, &fs->reloc.cu_n[k], 1, put);
    }
    /* the dirty bits as they are now: an L1 sector written later is clean
     * in RAM only, so after a cut the sweep may write it once more */
    io(b + o, fs->reloc.dirty, (fs->geo.n_l1 + 7u) / 8u, put);
}

void sfs_reloc_save(steadyfs *fs, uint8_t *b)
{
    memset(b, 0, fs->geo.payload);
    sfs_put32(b, RELOC_MAGIC);
    hdr_io(fs, b, 1);
    body_io(fs, b, 1);
}

int sfs_reloc_load(steadyfs *fs, const uint8_t *b)
{
    uint32_t k, mb = mbytes(fs);
    uint8_t *img = (uint8_t *)(uintptr_t)b;   /* only read: put is 0 */
    if (sfs_get32(b) != RELOC_MAGIC)
        return STEADYFS_ECORRUPT;
    hdr_io(fs, img, 0);
    if (fs->reloc.nrec > SFS_RELOC_CAP(fs) || fs->reloc.ncu > SFS_RELOC_RUNS(fs) ||
        fs->reloc.cursor >= fs->geo.n_l1 || fs->reloc.active > 1u || (fs->reloc.active && !fs->reloc.nrec) ||
        RELOC_HDR + fs->reloc.nrec * (6u + mb) + 4u * fs->reloc.ncu + (fs->geo.n_l1 + 7u) / 8u > fs->geo.payload)
        return STEADYFS_ECORRUPT;
    body_io(fs, img, 0);
    for (k = 0; k < fs->reloc.nrec; k++)
        if (fs->reloc.unit[k] >= fs->geo.nblocks)
            return STEADYFS_ECORRUPT;
    for (k = 0; k < fs->reloc.ncu; k++)
        if (fs->reloc.cu_unit[k] >= fs->geo.nblocks || fs->reloc.cu_off[k] + fs->reloc.cu_n[k] > fs->geo.P)
            return STEADYFS_ECORRUPT;
    count_sources(fs);
    fs->reloc.changed = 0;
    fs->reloc.saved = (uint16_t)fs->reloc.nrec;
    fs->reloc.added = 0;
    return 0;
}

void sfs_reloc_mounted(steadyfs *fs)
{
    /* The victim of a record still in progress is examined on from where
     * the checkpoint left it (gc.victim, gc.idx), or from its first sector
     * if the checkpoint names another.  Every sector before that place was
     * examined before the checkpoint: copied (the copy is durable and
     * replayed; the sector is dead now, sfs_copy_of), merged, or dead --
     * named by no uncommitted change and not by the committed map, which
     * a cut never takes back.  From the first sector every time, power
     * cut every few programs never let a victim finish: the pool ran
     * down and writes failed with ENOSPC far below the live limit
     * (DESIGN.md §6; test_fs_torture). */
    if (fs->reloc.active) {
        uint32_t b = fs->reloc.unit[fs->reloc.nrec - 1u];
        if (fs->blk[b] <= fs->geo.P) {
            if (fs->gc.victim != b || fs->gc.idx > fs->geo.P)
                fs->gc.idx = 0;
            fs->gc.victim = b;
            fs->gc.c0 = fs->blk[b];
        } else {
            complete(fs);
        }
    }
    count_sources(fs);
}
