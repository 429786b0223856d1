/* Sector I/O: the file system's sector (2 KiB by default) on top of the
 * device's pages, with its 32-byte tag in the NAND spare area, beside the
 * sector (NOR, MRAM: 2048 + 32 bytes in the unit) or inside its last 32
 * bytes (a medium with read or program units above 32 bytes).  Every tag and payload is checked
 * against its CRC on read, so a torn program is never taken for data. */
#include "fs/fs_internal.h"

/* The seed of a tag's CRC: the volume id, so that sectors an earlier
 * format left on an erase-less device never pass as current; not the
 * checkpoints' (checkpoints, the relocation sector, the anchor ring's
 * pointers: read before the checkpoint that holds the id). */
static uint32_t tag_seed(const steadyfs *fs, uint32_t kind)
{
    return kind == TK_CKPT || kind == TK_RELOC || kind == TK_PTR ? 0u : fs->geo.vol;
}

/* The tag of the payload at data into p (the payload's CRC is the one
 * field the caller's tag lacks). */
static void tag_pack(const steadyfs *fs, uint8_t *p, const sfs_tag *t, const uint8_t *data)
{
    uint32_t dcrc = steady_crc32(0, data, fs->geo.payload) ^ (t->flags & TF_LOST ? 0xFFFFFFFFu : 0u);
    p[0] = t->kind;
    p[1] = (uint8_t)(t->flags & ~TF_LOST);
    sfs_put16(p + 2, t->owner);
    /* seq: 48 bits (2.8e14 programs, more than any device's life); the
     * other 16 the file page (format 8) */
    sfs_put32(p + 4, (uint32_t)t->seq);
    sfs_put16(p + 8, (uint32_t)(t->seq >> 32));
    sfs_put16(p + 10, t->fpage);
    sfs_put32(p + 12, t->key);
    sfs_put32(p + 16, t->txn);
    sfs_put32(p + 20, t->aux);
    sfs_put32(p + 24, dcrc);
    sfs_put32(p + 28, steady_crc32(tag_seed(fs, t->kind), p, 28));
}

static int tag_unpack(const steadyfs *fs, const uint8_t *p, sfs_tag *t)
{
    uint32_t key = sfs_get32(p + 12);
    if (p[0] == 0 || p[0] > TK_PTR || sfs_get32(p + 28) != steady_crc32(tag_seed(fs, p[0]), p, 28))
        return STEADYFS_ECORRUPT;
    /* a key outside the map is no sector of ours, whatever its CRC says:
     * replay and collection index the map with it */
    if ((p[0] == TK_DATA && key >= fs->geo.n_l1 * fs->geo.e1) || (p[0] == TK_MAP1 && key >= fs->geo.n_l1) ||
        (p[0] == TK_MAP2 && key >= fs->geo.n_l2))
        return STEADYFS_ECORRUPT;
    t->kind = p[0];
    t->flags = p[1];
    t->owner = (uint16_t)sfs_get16(p + 2);
    t->seq = (uint64_t)sfs_get32(p + 4) | (uint64_t)sfs_get16(p + 8) << 32;
    t->fpage = (uint16_t)sfs_get16(p + 10);
    t->key = key;
    t->txn = sfs_get32(p + 16);
    t->aux = sfs_get32(p + 20);
    t->dcrc = sfs_get32(p + 24);
    return 0;
}

/* Device block and offset of byte `off` (< the stride) of sector ppn, and
 * the bytes from there to the device block's end: no device operation
 * crosses a block (bd.h).  Where the tag goes beside the sector, a
 * sector may straddle two NOR device blocks (2080-byte sectors, 4 KiB
 * subsectors) and is then read in two operations (bound.c counts them).
 * 32 bits are enough: the byte is inside the unit, whose size sfs_setup
 * computed in 32 bits. */
static uint32_t where(const steadyfs *fs, uint32_t ppn, uint32_t off, uint32_t *dblk, uint32_t *doff)
{
    uint32_t dsize = fs->cfg.bd->geo.page_size * fs->cfg.bd->geo.pages_per_block;
    uint32_t byte = ppn % fs->geo.P * sfs_stride(fs) + off;
    *dblk = (ppn / fs->geo.P) * fs->geo.dev_per_block + byte / dsize;
    *doff = byte % dsize;
    return dsize - *doff;
}

/* One read at byte off of sector ppn: n bytes into buf, sn of the spare
 * area into spare (every read of this file; each device operation is
 * spent against the budget).  A device operation that returns no bytes
 * (SBD_ERR_IO: a bus, link or host error, not the page's) is tried again,
 * SFS_READ_TRIES times in all: a transient error then passes in every
 * caller, where each had taken it for damage in its own way (a merge
 * rebuilt a map sector from an undefined buffer, mount fell back to an
 * older checkpoint: test_fs_io_errors).  One that stays is returned;
 * sfs_rd_sector_in tells it from damage. */
static int rd(steadyfs *fs, uint32_t ppn, uint32_t off, uint8_t *buf, uint32_t n, uint8_t *spare,
              uint32_t sn)
{
    uint32_t db, doff, k, tries;
    int rc;
    /* (a word of a damaged map may name no sector of this device:
     * SFS_LOST, or raw bits; nothing to read there) */
    if (ppn / fs->geo.P >= fs->geo.nblocks + fs->cfg.ring_units)
        return SBD_ERR_RANGE;
    /* (only a sector that straddles two NOR subsectors takes two turns:
     * no ECC there, so the last read's result is the call's) */
    do {
        k = where(fs, ppn, off, &db, &doff);
        if (k > n)
            k = n;
        for (tries = 1;; tries++) {
            rc = sbd_read(fs->cfg.bd, db, doff, buf, k, spare, sn);
            fs->log.call_io += STEADYFS_ERASELESS_MEDIA;   /* (read by sfs_end on MRAM only) */
            sfs_budget_spend(fs, SFS_SPEND_READ, 1);
            if (rc == SBD_ERR_IO && tries == SFS_READ_TRIES && fs->no_bytes < 255u)
                fs->no_bytes++;
            if (rc != SBD_ERR_IO || tries == SFS_READ_TRIES)
                break;
            sfs_budget_void(fs);   /* (fault handling is outside the bound) */
        }
        off += k;
        if (buf)
            buf += k;
        n -= k;
    } while (n && rc >= 0);
    return rc;
}

int sfs_dev_err(steadyfs *fs, int rc)
{
    if (rc >= 0)
        return rc;
    sfs_budget_void(fs);   /* fault handling is outside the bound */
    if (rc == SBD_ERR_POWER)
        fs->dead = 1;
    return STEADYFS_EIO;
}

void sfs_note_flips(steadyfs *fs, uint32_t ppn, int corrected)
{
    uint16_t lim = fs->cfg.bd->geo.ecc_bits;
    uint32_t b = sfs_blk(fs, ppn), i;
    /* close to the ECC limit: move the block's data before it becomes
     * uncorrectable (refresh; the block itself is fine after an erase).
     * Not the ring's units (past the log's): the ring erases each in turn. */
    if (!lim || corrected < (int)(lim > 2 ? lim - 2 : lim) || b >= fs->geo.nblocks)
        return;
    for (i = 0; i < 4; i++)
        if ((fs->health.retire[i] & 0x7FFFFFFFu) == b)
            return;
    for (i = 0; i < 4; i++)
        if (fs->health.retire[i] == SFS_NONE) {
            fs->health.retire[i] = b | 0x80000000u;
            return;
        }
}

/* A read of sector ppn failed with device code rc: an uncorrectable page
 * is EIO, and its unit is queued to be moved and erased (collection then
 * rebuilds what of it is metadata: map.c rebuild); anything else as
 * sfs_dev_err. */
static int rd_failed(steadyfs *fs, uint32_t ppn, int rc)
{
    if (rc != SBD_ERR_ECC)
        return sfs_dev_err(fs, rc);
    sfs_budget_void(fs);   /* (fault handling is outside the bound) */
    sfs_note_flips(fs, ppn, (int)fs->cfg.bd->geo.ecc_bits);
    return STEADYFS_EIO;
}

int sfs_rd_tag_in(steadyfs *fs, uint32_t ppn, sfs_tag *t, int damaged_ok)
{
    uint8_t raw[SFS_TAG_SIZE];
    int rc, lost;
    if (fs->geo.tag_inline)
        rc = rd(fs, ppn, fs->geo.payload, raw, SFS_TAG_SIZE, NULL, 0);
    else
        rc = rd(fs, ppn, 0, NULL, 0, raw, SFS_TAG_SIZE);
    lost = rc == SBD_ERR_ECC;
    if (rc < 0 && !(lost && damaged_ok))
        return lost ? STEADYFS_ECORRUPT : sfs_dev_err(fs, rc);
    if (tag_unpack(fs, raw, t))
        return STEADYFS_ECORRUPT;   /* (torn, erased, or damaged where its tag is) */
    /* an uncorrectable page that was programmed whole: its unit is moved
     * and erased, as one close to the ECC limit is */
    if (lost)
        sfs_budget_void(fs);   /* (fault handling is outside the bound) */
    sfs_note_flips(fs, ppn, lost ? (int)fs->cfg.bd->geo.ecc_bits : rc);
    return lost;
}

int sfs_rd_sector_in(steadyfs *fs, uint32_t ppn, uint8_t *buf, sfs_tag *t, int no_bytes_apart)
{
    uint8_t raw[SFS_TAG_SIZE];
    int rc, rc2;
    if (buf == fs->buf)
        fs->cache.buf_ppn = SFS_NONE;
    rc = rd(fs, ppn, 0, buf, sfs_stride(fs), fs->geo.tag_inline ? NULL : raw,
            fs->geo.tag_inline ? 0 : SFS_TAG_SIZE);
    if (rc < 0) {
        int err = rd_failed(fs, ppn, rc);
        return rc == SBD_ERR_IO && no_bytes_apart ? SFS_NO_BYTES : err;
    }
    sfs_note_flips(fs, ppn, rc);
    rc2 = tag_unpack(fs, fs->geo.tag_inline ? buf + fs->geo.payload : raw, t);
    if (rc2)
        return rc2;
    if (t->dcrc != steady_crc32(0, buf, fs->geo.payload))
        return STEADYFS_ECORRUPT;
    return rc;
}

int sfs_rd_words_in(steadyfs *fs, uint32_t ppn, uint32_t idx, uint32_t n, uint32_t *out, int damaged_ok)
{
#if SFS_LE
    /* the words as on media are the words in RAM: read in place */
    int rc;
    if (n > 64)
        return STEADYFS_EINVAL;
    rc = rd(fs, ppn, idx * 4u, (uint8_t *)out, 4 * n, NULL, 0);
    if (rc < 0 && !(damaged_ok && rc == SBD_ERR_ECC))
        return rd_failed(fs, ppn, rc);
    if (rc < 0)
        (void)rd_failed(fs, ppn, rc);   /* (the raw words; the unit queued for refresh) */
    return 0;
#else
    uint8_t w[256];
    uint32_t i;
    int rc;
    if (n > 64)
        return STEADYFS_EINVAL;
    rc = rd(fs, ppn, idx * 4u, w, 4 * n, NULL, 0);
    if (rc < 0 && !(damaged_ok && rc == SBD_ERR_ECC))
        return rd_failed(fs, ppn, rc);
    if (rc < 0)
        (void)rd_failed(fs, ppn, rc);   /* (the raw words; the unit queued for refresh) */
    for (i = 0; i < n; i++)
        out[i] = sfs_get32(w + 4 * i);
    return 0;
#endif
}

int sfs_rd_raw(steadyfs *fs, uint32_t ppn, uint8_t *buf, uint8_t *spare)
{
    return rd(fs, ppn, 0, buf, sfs_stride(fs), spare, fs->geo.tag_inline ? 0 : SFS_TAG_SIZE);
}

int sfs_rd_erased(steadyfs *fs, uint32_t ppn)
{
    uint8_t raw[SFS_TAG_SIZE];
    uint8_t e = fs->cfg.bd->geo.erased_byte;
    uint32_t i;
    int rc;
    fs->cache.buf_ppn = SFS_NONE;
    rc = sfs_rd_raw(fs, ppn, fs->buf, raw);
    if (rc < 0 && rc != SBD_ERR_ECC)
        return sfs_dev_err(fs, rc);
    for (i = 0; i < sfs_stride(fs); i++)
        if (fs->buf[i] != e)
            return 0;
    if (!fs->geo.tag_inline)
        for (i = 0; i < SFS_TAG_SIZE; i++)
            if (raw[i] != e)
                return 0;
    return 1;
}

int sfs_prog_sector(steadyfs *fs, uint32_t ppn, uint8_t *buf, const sfs_tag *t)
{
    uint8_t raw[SFS_TAG_SIZE], in = (uint8_t)fs->geo.tag_inline;
    uint32_t db, off, o, k, n = sfs_stride(fs);
    int rc = 0;
    fs->cache.buf_ppn = SFS_NONE;
    tag_pack(fs, in ? buf + fs->geo.payload : raw, t, buf);
    /* NOR programs one device page per command, in order, so the tag at
     * the end is programmed last; a tag in the spare area goes with the
     * sector's one program */
    for (o = 0; o < n && rc >= 0; o += k) {
        k = where(fs, ppn, o, &db, &off);
        if (in && fs->cfg.bd->geo.needs_erase)
            k = fs->cfg.bd->geo.page_size - off % fs->cfg.bd->geo.page_size;
        if (k > n - o)
            k = n - o;
        rc = sbd_prog(fs->cfg.bd, db, off, buf + o, k, in ? NULL : raw, in ? 0 : SFS_TAG_SIZE);
        fs->log.call_io += STEADYFS_ERASELESS_MEDIA;   /* (read by sfs_end on MRAM only) */
        sfs_budget_spend(fs, SFS_SPEND_PROG, 1);
    }
    if (rc == SBD_ERR_PROG) {
        sfs_budget_void(fs);
        return SFS_EFAIL;
    }
    if (rc < 0)
        return sfs_dev_err(fs, rc);
    if (buf == fs->buf && !(t->flags & TF_LOST))
        fs->cache.buf_ppn = ppn;   /* the buffer is what the sector now holds */
    return 0;
}

int sfs_run_fits(const steadyfs *fs, uint32_t ppn, uint32_t n)
{
    uint32_t db, off;
    return sfs_runs_offered(fs) && n <= SFS_RUN_MAX && where(fs, ppn, 0, &db, &off) >= n * sfs_stride(fs);
}

int sfs_prog_run(steadyfs *fs, uint32_t ppn, const uint8_t *src, const sfs_tag *t, uint32_t n)
{
    uint8_t raw[SFS_RUN_MAX][SFS_TAG_SIZE];
    sbd_iov iov[2 * SFS_RUN_MAX];
    uint32_t i, db, off;
    int rc;
    fs->cache.buf_ppn = SFS_NONE;
    /* each payload, then its tag: the bytes n lone programs would write,
     * in their order, so a cut tears the run as it would tear them */
    for (i = 0; i < n; i++) {
        const uint8_t *p = src + i * fs->geo.payload;
        tag_pack(fs, raw[i], &t[i], p);
        iov[2 * i].buf = p;
        iov[2 * i].len = fs->geo.payload;
        iov[2 * i + 1].buf = raw[i];
        iov[2 * i + 1].len = SFS_TAG_SIZE;
    }
    (void)where(fs, ppn, 0, &db, &off);
    rc = sbd_progv(fs->cfg.bd, db, off, iov, 2u * n);
    fs->log.call_io++;
    sfs_budget_spend(fs, SFS_SPEND_PROG, n);   /* (the bound counts the n programs it replaces) */
    if (rc == SBD_ERR_PROG) {
        sfs_budget_void(fs);
        return SFS_EFAIL;
    }
    return rc < 0 ? sfs_dev_err(fs, rc) : 0;
}

int sfs_erase(steadyfs *fs, uint32_t block)
{
    const sbd_geometry *g = &fs->cfg.bd->geo;
    uint32_t i;
    int rc = 0;
    fs->cache.buf_ppn = SFS_NONE;
    if (!g->needs_erase)
        return 0;   /* MRAM: nothing to pay for */
    sfs_budget_spend(fs, SFS_SPEND_ERASE, 1);
    /* one command when the unit is the device's big or middle erase (NOR
     * 64 KiB sector, 32 KiB subsector), else one erase per device block */
    if (fs->geo.dev_per_block > 1 && (fs->geo.dev_per_block == g->big_erase_blocks ||
                                      fs->geo.dev_per_block == g->mid_erase_blocks))
        rc = sbd_erase(fs->cfg.bd, block * fs->geo.dev_per_block, fs->geo.dev_per_block);
    else
        for (i = 0; i < fs->geo.dev_per_block && rc == 0; i++)
            rc = sbd_erase(fs->cfg.bd, block * fs->geo.dev_per_block + i, 1);
    if (rc == SBD_ERR_ERASE || rc == SBD_ERR_BAD_BLOCK) {
        sfs_budget_void(fs);
        return SFS_EFAIL;
    }
    return rc < 0 ? sfs_dev_err(fs, rc) : 0;
}
