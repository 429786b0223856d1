/* The record ring (format 15, DESIGN.md §13): fixed-size records appended
 * to the device's last ring_units erase units, apart from the log, its map
 * and its collection.  Layer 6 (files): it programs and erases through the
 * media layer and asks for a checkpoint only when one of its units goes
 * bad.
 *
 * Record n lives in ring unit (n / rpu) % R at sectors (n % rpu) * k ..
 * + k - 1 (k sectors a record, rpu = P / k records a unit): its number is
 * its place, so a read needs no index.  Each sector's tag carries the
 * record number, its index in the record and the record's length; the
 * last one carries COMMIT, so a record whose append a power cut stopped
 * is never read as data (its number stays unused).  The append that
 * starts a unit erases it first: the oldest rpu records go.
 *
 * Mount finds the end with binary searches.  Over the ring's good units:
 * the units from the first one on whose first record belongs to the same
 * lap as the first good unit's are the ones written since the ring last
 * passed that unit; the last of them is the newest.  Then over that
 * unit's record slots: a slot is free if its first sector is erased (on
 * media without erase: if its tag is not the slot's record of this lap).
 * On media that erase a torn sector is never free, so no page is
 * programmed twice.  The searches pass bad units by, so the end is at
 * least the next record number the last checkpoint recorded: a unit that
 * fails writes one, after moving the next record past itself, before
 * anything is programmed past it (its records stay the ring's). */
#include "fs/fs_internal.h"

#if STEADYFS_WITH_RING
#define RING_NONE UINT64_MAX

void sfs_ring_place(steadyfs *fs, uint8_t *w, uint32_t *off)
{
    uint32_t n = fs->cfg.ring_units;
    fs->ring = NULL;
    if (!n)
        return;
    *off = (*off + 7u) & ~7u;   /* (the record number is 64 bits: 8-aligned) */
    fs->ring = sfs_carve(w, off, (uint32_t)sizeof(struct sfs_ring) + sfs_ring_map_bytes(&fs->cfg));
}

void sfs_ring_reset(steadyfs *fs)
{
    struct sfs_ring *r = fs->ring;
    if (!r)
        return;
    memset(r, 0, sizeof *r + sfs_ring_map_bytes(&fs->cfg));
    r->units = fs->cfg.ring_units;
    r->k = fs->cfg.ring_sectors;
    r->rpu = fs->geo.P / fs->cfg.ring_sectors;
}

static int unit_bad(const struct sfs_ring *r, uint32_t u) { return sfs_bit(r->bad, u); }

/* The first sector of record n's slot. */
static uint32_t slot_ppn(const steadyfs *fs, uint64_t n)
{
    const struct sfs_ring *r = fs->ring;
    uint32_t u = (uint32_t)((n / r->rpu) % r->units);
    return (fs->geo.nblocks + u) * fs->geo.P + (uint32_t)(n % r->rpu) * r->k;
}

/* Is t sector i of record n? */
static int tag_is(const steadyfs *fs, const sfs_tag *t, uint64_t n, uint32_t i)
{
    return t->kind == TK_RING && t->seq == n * fs->ring->k + i && t->txn == i && t->aux &&
           t->aux <= fs->ring->k * fs->geo.payload;
}

/* The record number whose first sector is at the start of ring unit u
 * (this lap or an earlier one) into *n, or RING_NONE (erased, torn, not
 * ours): 0, or EIO where the device returns no bytes for it (taken for
 * an unwritten unit, it would move the end back and let the next append
 * erase newer records). */
static int unit_first(steadyfs *fs, uint32_t u, uint64_t *n)
{
    const struct sfs_ring *r = fs->ring;
    sfs_tag t;
    uint64_t first;
    int rc = sfs_rd_tag(fs, (fs->geo.nblocks + u) * fs->geo.P, &t);
    *n = RING_NONE;
    if (rc < 0)
        return rc == STEADYFS_ECORRUPT ? 0 : rc;
    first = t.seq / r->k;
    if (t.kind == TK_RING && !(t.seq % r->k) && !(first % r->rpu) && (first / r->rpu) % r->units == u &&
        tag_is(fs, &t, first, 0))
        *n = first;
    return 0;
}

/* Good units in the ring. */
static uint32_t good_units(const struct sfs_ring *r)
{
    uint32_t u, n = 0;
    for (u = 0; u < r->units; u++)
        n += !unit_bad(r, u);
    return n;
}

/* The j-th good unit of the ring (j < the good units' count). */
static uint32_t good_unit(const struct sfs_ring *r, uint32_t j)
{
    uint32_t u;
    for (u = 0; u < r->units; u++)
        if (!unit_bad(r, u) && j-- == 0)
            return u;
    return 0;
}

/* Is record slot n still free (the next append may program it)? */
static int slot_free(steadyfs *fs, uint64_t n)
{
    sfs_tag t;
    int rc;
    if (fs->cfg.bd->geo.needs_erase)
        return sfs_rd_erased(fs, slot_ppn(fs, n));
    rc = sfs_rd_tag(fs, slot_ppn(fs, n), &t);
    if (rc < 0 && rc != STEADYFS_ECORRUPT)
        return rc;
    return rc < 0 || !tag_is(fs, &t, n, 0);
}

int sfs_ring_format(steadyfs *fs)
{
    struct sfs_ring *r = fs->ring;
    uint32_t u, i, good = 0;
    int rc;
    if (!r)
        return 0;
    memset(r->bad, 0, sfs_ring_map_bytes(&fs->cfg));
    for (u = 0; u < r->units; u++) {
        uint32_t b = fs->geo.nblocks + u, bad = 0;
        for (i = 0; i < fs->geo.dev_per_block; i++)
            bad |= sbd_is_bad(fs->cfg.bd, b * fs->geo.dev_per_block + i) > 0;
        /* an earlier format's ring starts over: erased (NAND, NOR), or its
         * tags fail the new volume id's CRC (MRAM) */
        if (!bad) {
            rc = sfs_erase(fs, b);
            if (rc == SFS_EFAIL)
                bad = 1;
            else if (rc)
                return rc;
        }
        if (bad)
            sfs_bit_set(r->bad, u, 1);
        else
            good++;
    }
    r->next = 0;
    r->good = good;
    return good >= 2u ? 0 : STEADYFS_EIO;
}

int sfs_ring_mount(steadyfs *fs)
{
    struct sfs_ring *r = fs->ring;
    uint32_t ngood, lo, hi, h;
    uint64_t n0, nh, floor;
    int rc;
    if (!r)
        return 0;
    /* what the checkpoint knew: at least that (a unit that went bad sent
     * the next record past its slots, and its records stay the ring's,
     * though the searches below pass bad units by) */
    floor = r->next;
    ngood = r->good = good_units(r);   /* (the bitmap as the checkpoint had it) */
    if (ngood < 2u)
        return 0;   /* worn out: the files mount, appends refuse (ENOSPC) */
    /* the newest unit: with the first good unit's first record n0, the
     * good units after it whose first record is n0's lap or later form a
     * prefix (written in order since the ring passed the first unit); if
     * the first good unit holds none, the ring is new, or the newest is
     * the last good unit and the first was being started */
    if ((rc = unit_first(fs, good_unit(r, 0), &n0)) != 0)
        return rc;
    if (n0 == RING_NONE) {
        h = good_unit(r, ngood - 1u);
        if ((rc = unit_first(fs, h, &nh)) != 0)
            return rc;
        if (nh == RING_NONE) {
            r->next = floor;
            return 0;
        }
    } else {
        lo = 0;
        hi = ngood;   /* predicate true at lo, false at hi and past it */
        while (hi - lo > 1u) {
            uint32_t mid = lo + (hi - lo) / 2u;
            uint64_t n;
            if ((rc = unit_first(fs, good_unit(r, mid), &n)) != 0)
                return rc;
            if (n != RING_NONE && n >= n0)
                lo = mid;
            else
                hi = mid;
        }
        h = good_unit(r, lo);
        if ((rc = unit_first(fs, h, &nh)) != 0)
            return rc;
        if (nh == RING_NONE)
            return STEADYFS_ECORRUPT;
    }
    /* the first free slot of the newest unit (its slot 0 is used) */
    lo = 0;
    hi = r->rpu;
    while (hi - lo > 1u) {
        uint32_t mid = lo + (hi - lo) / 2u;
        rc = slot_free(fs, nh + mid);
        if (rc < 0)
            return rc;
        if (rc)
            hi = mid;
        else
            lo = mid;
    }
    r->next = nh + hi > floor ? nh + hi : floor;
    return 0;
}

static int ring_begin(steadyfs *fs)
{
    if (!fs || !fs->mounted)
        return STEADYFS_EINVAL;
    if (fs->dead)
        return STEADYFS_EIO;
    if (!fs->ring)
        return STEADYFS_EINVAL;
    fs->cache.buf_ppn = SFS_NONE;   /* the caller owns the buffer between calls */
    return 0;
}

/* Unit u failed an erase or a program: bad from now on, recorded by a
 * checkpoint before anything is written past it (so mount's search never
 * meets an unrecorded bad unit between written ones).  Outside the bound,
 * as every device fault's handling. */
static int unit_failed(steadyfs *fs, uint32_t u)
{
    struct sfs_ring *r = fs->ring;
    sfs_budget_void(fs);
    sfs_bit_set(r->bad, u, 1);
    r->good--;
    r->next = (r->next / r->rpu + 1u) * r->rpu;
    return sfs_ckpt_write(fs);
}

int steadyfs_ring_append(steadyfs *fs, const void *rec, uint32_t len, uint64_t *number)
{
    struct sfs_ring *r;
    const uint8_t *src = rec;
    uint32_t tries, i, pay, nsec;
    int rc = ring_begin(fs);
    if (rc)
        return rc;
    r = fs->ring;
    pay = fs->geo.payload;
    if (!rec || !len || len > r->k * pay)
        return STEADYFS_EINVAL;
    /* the record's sectors (its slot keeps k: a shorter record leaves the
     * rest unwritten), the last one carrying the commit */
    nsec = (len + pay - 1u) / pay;
    sfs_budget_arm(fs, STEADYFS_CALL_RING_APPEND, len);
    for (tries = 0; tries <= r->units; tries++) {
        uint64_t n = r->next;
        uint32_t u, ppn;
        /* two good units at least: one to write, one the span keeps */
        if (r->good < 2u)
            return STEADYFS_ENOSPC;
        u = (uint32_t)((n / r->rpu) % r->units);
        ppn = slot_ppn(fs, n);
        if (unit_bad(r, u)) {
            r->next = (n / r->rpu + 1u) * r->rpu;
            continue;
        }
        rc = n % r->rpu ? 0 : sfs_erase(fs, fs->geo.nblocks + u);   /* the oldest records go */
        for (i = 0; !rc && i < nsec; i++) {
            sfs_tag t;
            uint32_t at = i * pay, m = len - at < pay ? len - at : pay;
            memset(&t, 0, sizeof t);
            t.kind = TK_RING;
            t.flags = i + 1u == nsec ? TF_COMMIT : 0u;
            t.seq = n * r->k + i;
            t.key = (uint32_t)n;
            t.fpage = (uint16_t)(n >> 32);
            t.txn = i;
            t.aux = len;
            memcpy(fs->buf, src + at, m);
            memset(fs->buf + m, 0, sfs_stride(fs) - m);
            rc = sfs_prog_sector(fs, ppn + i, fs->buf, &t);
        }
        if (rc == SFS_EFAIL) {
            rc = unit_failed(fs, u);
            if (rc)
                return rc;
            continue;
        }
        if (rc)
            return rc;
        r->next = n + 1u;
        if (number)
            *number = n;
        sfs_budget_check(fs);
        return 0;
    }
    return STEADYFS_EIO;
}

int steadyfs_ring_span(steadyfs *fs, uint64_t *first, uint64_t *next)
{
    const struct sfs_ring *r;
    uint64_t last_unit;
    int rc = ring_begin(fs);
    if (rc)
        return rc;
    r = fs->ring;
    /* the units before the newest, but for the next good one after it:
     * the append that reaches it erases it, and a cut meanwhile may leave
     * its records half erased, so they are no longer the ring's (R - 1
     * units' worth at most, R - 2 full ones and the newest at least) */
    last_unit = r->next ? (r->next - 1u) / r->rpu : 0;
    {
        uint64_t g = last_unit + 1u;
        uint32_t j;
        for (j = 0; j < r->units && unit_bad(r, (uint32_t)(g % r->units)); j++)
            g++;
        if (first)
            *first = g + 1u >= r->units ? (g + 1u - r->units) * r->rpu : 0;
    }
    if (next)
        *next = r->next;
    return 0;
}

/* Record `number`'s bytes from `off` on, at most cap of them, into buf
 * (whole: every sector checked, whatever is copied; else only the
 * sectors the bytes lie in): the record's length (whole) or the bytes
 * copied, or an error. */
static int32_t ring_read(steadyfs *fs, uint64_t number, uint32_t off, uint8_t *dst, uint32_t cap,
                         int whole)
{
    uint64_t first, next;
    uint32_t ppn, i, len = 0, pay, copied = 0;
    int committed = 0;
    sfs_tag t;
    int rc = steadyfs_ring_span(fs, &first, &next);
    if (rc)
        return rc;
    if (!dst && cap)
        return STEADYFS_EINVAL;
    if (number < first || number >= next)
        return STEADYFS_ENOENT;
    pay = fs->geo.payload;
    ppn = slot_ppn(fs, number);
    sfs_budget_arm(fs, STEADYFS_CALL_RING_READ, 0);
    /* the first sector's tag says the length, so which sector is the
     * last; that one's commit first: a record a cut stopped, or one the
     * next erase has begun to take, has none (or an older lap's) */
    rc = sfs_rd_tag(fs, ppn, &t);
    if (rc >= 0 && tag_is(fs, &t, number, 0)) {
        uint32_t last = (t.aux + pay - 1u) / pay - 1u;
        len = t.aux;
        if (last)
            rc = sfs_rd_tag(fs, ppn + last, &t);
        committed = rc >= 0 && tag_is(fs, &t, number, last) && t.aux == len && (t.flags & TF_COMMIT);
    }
    if (rc < 0 && rc != STEADYFS_ECORRUPT)
        goto out;
    if (!committed) {
        rc = STEADYFS_ENOENT;
        goto out;
    }
    rc = 0;
    for (i = 0; i * pay < len && rc >= 0; i++) {
        uint32_t at = i * pay, m = len - at < pay ? len - at : pay, from, n;
        /* the bytes [off, off + cap) of this sector's [at, at + m) */
        int wanted = off < at + m && at < off + cap;
        if (!whole && !wanted)
            continue;
        rc = sfs_rd_sector(fs, ppn + i, fs->buf, &t);
        if (rc >= 0 && (!tag_is(fs, &t, number, i) || t.aux != len))
            rc = STEADYFS_ECORRUPT;
        if (rc < 0 || !wanted)
            continue;
        from = off > at ? off - at : 0u;
        n = m - from;
        if (at + from - off + n > cap)
            n = cap - (at + from - off);
        memcpy(dst + (at + from - off), fs->buf + from, n);
        copied += n;
    }
out:
    sfs_budget_check(fs);
    return rc < 0 ? rc : (int32_t)(whole ? len : copied);
}

int32_t steadyfs_ring_read(steadyfs *fs, uint64_t number, void *buf, uint32_t cap)
{
    return ring_read(fs, number, 0, buf, cap, 1);
}

int32_t steadyfs_ring_read_at(steadyfs *fs, uint64_t number, uint32_t off, void *buf, uint32_t cap)
{
    return ring_read(fs, number, off, buf, cap, 0);
}
#else   /* a build without the ring (steadyfs.h STEADYFS_WITH_RING) */
int steadyfs_ring_append(steadyfs *fs, const void *rec, uint32_t len, uint64_t *number)
{
    (void)fs, (void)rec, (void)len, (void)number;
    return STEADYFS_EINVAL;
}

int32_t steadyfs_ring_read(steadyfs *fs, uint64_t number, void *buf, uint32_t cap)
{
    (void)fs, (void)number, (void)buf, (void)cap;
    return STEADYFS_EINVAL;
}

int32_t steadyfs_ring_read_at(steadyfs *fs, uint64_t number, uint32_t off, void *buf, uint32_t cap)
{
    (void)fs, (void)number, (void)off, (void)buf, (void)cap;
    return STEADYFS_EINVAL;
}

int steadyfs_ring_span(steadyfs *fs, uint64_t *first, uint64_t *next)
{
    (void)fs, (void)first, (void)next;
    return STEADYFS_EINVAL;
}
#endif
