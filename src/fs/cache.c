/* Read savers: three tiny RAM records that spare repeated device reads
 * inside a call (and, for map words and a directory, across calls).  They
 * only ever hold facts that are still true, never a guess, and each is
 * dropped at the one kind of event that can change its fact:
 *
 *  - buf_ppn: the sector whose payload the sector buffer holds.  A sector
 *    is programmed once between erases, so while the buffer is untouched
 *    and no program or erase has happened, reading that sector again would
 *    return the buffer.  Dropped by every write into the buffer (reads,
 *    sector building) and every program or erase; set after a successful
 *    read (sfs_rd_buf) or program from the buffer (sfs_log_prog), and
 *    dropped at every API call's start (the caller owns the buffer between
 *    calls).  Saves: the bucket re-read of unlink/rename after the path
 *    lookup, the inode read of open after create.
 *  - xc: map words (the L1 entry of a logical page, the L2 entry of an L1
 *    sector) as read from map sectors.  A map sector's words change only
 *    when a new map sector replaces it, which always goes through
 *    sfs_apply_map (run time and replay): it drops the words of that map
 *    sector only (sfs_xc_drop_map).  Dropping them all there cost the
 *    unlink of a log rotation two re-reads after the merge that made room
 *    for its kill.  Pending changes and kills are checked before the
 *    cache, as before the read.
 *  - dc: the last directory found as a path component (parent, name ->
 *    inode).  Directory entries change only through sfs_dir_insert2 and
 *    sfs_dir_remove2, which drop it when they edit its parent, and an
 *    aborted namespace transaction drops it too.
 *
 * None of them is needed for a bound: steadyfs_bound() assumes every
 * read happens.  RAM: 4 + 2*4*4 + 4 + 4 + 2 + 14 = 60 bytes in the
 * context. */
#include "fs/fs_internal.h"

void sfs_cache_drop(steadyfs *fs)
{
    fs->cache.buf_ppn = SFS_NONE;
    fs->cache.dc_dir = 0;
    sfs_xc_drop(fs);
}

void sfs_xc_drop(steadyfs *fs)
{
    memset(fs->cache.xc_key, 0xFF, sizeof fs->cache.xc_key);
}

void sfs_xc_drop_map(steadyfs *fs, uint32_t lvl, uint32_t map)
{
    uint32_t i;
    for (i = 2 * lvl; i < 2 * lvl + 2; i++)
        if (fs->cache.xc_key[i] != SFS_NONE && fs->cache.xc_key[i] / fs->geo.e1 == map)
            fs->cache.xc_key[i] = SFS_NONE;
}

/* Entries 0-1 hold L1 words (key: first logical page of the run), 2-3 L2
 * words (key: first L1 sector index of the run): the key spaces overlap.
 * A run of 4 aligned words costs one small read like a single word (the
 * bound prices a small read at >= 32 bytes) and catches neighbours: the
 * two pages of a 4 KiB write, committed together, are in one run. */

/* The entry of level lvl holding the run that starts at base, or 4. */
static uint32_t xc_find(const steadyfs *fs, uint32_t lvl, uint32_t base)
{
    uint32_t i;
    for (i = 2 * lvl; i < 2 * lvl + 2; i++)
        if (fs->cache.xc_key[i] == base)
            return i;
    return 4;
}

/* The entry of level lvl a new run replaces (the two are replaced in turn). */
static uint32_t xc_victim(const steadyfs *fs, uint32_t lvl)
{
    return 2 * lvl + ((fs->cache.xc_next >> lvl) & 1u);
}

/* A run of four words as media hold them, checked (fs_internal.h
 * sfs_map_get): sectors, NONE, or LOST.  base: the key of the first. */
static void xc_checked(const steadyfs *fs, uint32_t lvl, uint32_t base, uint32_t *w)
{
    uint32_t k;
    for (k = 0; k < 4; k++)
        w[k] = sfs_word_dec(fs, lvl ? sfs_l2_key(base + k) : base + k, w[k]);
}

int sfs_xc_word(steadyfs *fs, uint32_t lvl, uint32_t map, uint32_t key, uint32_t *val)
{
    uint32_t i = xc_find(fs, lvl, key & ~3u), raw[4], k;
    int rc;
    if (i == 4) {
        i = xc_victim(fs, lvl);
        fs->cache.xc_key[i] = SFS_NONE;
        /* (a NAND page past its ECC: its raw words, each checked below) */
        rc = sfs_rd_words_in(fs, map, (key & ~3u) % fs->geo.e1, 4, fs->cache.xc_val[i], 1);
        if (rc)
            return rc;
        memcpy(raw, fs->cache.xc_val[i], sizeof raw);
        xc_checked(fs, lvl, key & ~3u, fs->cache.xc_val[i]);
        /* a word the damage changed a little (a small read on NOR and
         * MRAM has no CRC; a NAND page past its ECC hands its raw words
         * back): put right where one value explains it */
        for (k = 0; k < 4; k++)
            if (fs->cache.xc_val[i][k] == SFS_LOST && raw[k] != SFS_LOST)
                fs->cache.xc_val[i][k] = sfs_word_fix(fs, lvl ? TK_MAP2 : TK_MAP1, (key & ~3u) + k, raw[k]);
        fs->cache.xc_next ^= (uint8_t)(1u << lvl);
        fs->cache.xc_key[i] = key & ~3u;
    }
    *val = fs->cache.xc_val[i][key & 3u];
    return 0;
}

void sfs_xc_fix(steadyfs *fs, uint32_t lvl, uint32_t key, uint32_t val)
{
    uint32_t i = xc_find(fs, lvl, key & ~3u);
    if (i != 4)
        fs->cache.xc_val[i][key & 3u] = val;
}

int sfs_xc_cached(const steadyfs *fs, uint32_t lvl, uint32_t key)
{
    return xc_find(fs, lvl, key & ~3u) != 4;
}

#if STEADYFS_ERASELESS_MEDIA   /* (used on MRAM only: map.c keep_l1_places, room steps) */
int sfs_xc_has(const steadyfs *fs, uint32_t lvl, uint32_t key) { return sfs_xc_cached(fs, lvl, key); }

uint32_t sfs_xc_runs(const steadyfs *fs, uint32_t lvl, uint32_t map, uint32_t *out)
{
    uint32_t i, n = 0;
    /* the newer entry first: the one the next miss does not replace */
    for (i = 0; i < 2; i++) {
        uint32_t s = xc_victim(fs, lvl) ^ 1u ^ i;
        if (fs->cache.xc_key[s] != SFS_NONE && fs->cache.xc_key[s] / fs->geo.e1 == map)
            out[n++] = fs->cache.xc_key[s];
    }
    return n;
}

void sfs_xc_keep(steadyfs *fs, uint32_t lvl, uint32_t key, const uint8_t *sector)
{
    uint32_t i, base = key & ~3u;
    if (xc_find(fs, lvl, base) != 4)
        return;
    i = xc_victim(fs, lvl);
    fs->cache.xc_next ^= (uint8_t)(1u << lvl);
    fs->cache.xc_key[i] = base;
    for (key = 0; key < 4; key++)
        fs->cache.xc_val[i][key] = sfs_get32(sector + 4 * (base % fs->geo.e1 + key));
    xc_checked(fs, lvl, base, fs->cache.xc_val[i]);
}
#endif

/* Where to read again after a read of ppn failed with rc: its copy, if it
 * failed on damage where a map word still names it and collection has
 * copied it (the word names the original until the sweep rewrites its L1
 * sector: reads need no record, DESIGN.md §6), else SFS_NONE. */
static uint32_t copy_to_read(steadyfs *fs, uint32_t ppn, int rc)
{
    if (rc >= 0 || fs->dead || sfs_copy_of(fs, ppn) == ppn)
        return SFS_NONE;
    sfs_budget_void(fs);   /* (fault handling: outside the bound) */
    return sfs_copy_of(fs, ppn);
}

int sfs_rd_live(steadyfs *fs, uint32_t ppn, uint8_t *buf, sfs_tag *t)
{
    int rc = sfs_rd_sector(fs, ppn, buf, t);
    uint32_t c = copy_to_read(fs, ppn, rc);
    return c == SFS_NONE ? rc : sfs_rd_sector(fs, c, buf, t);
}

int sfs_rd_words_live(steadyfs *fs, uint32_t ppn, uint32_t idx, uint32_t n, uint32_t *out)
{
    int rc = sfs_rd_words(fs, ppn, idx, n, out);
    uint32_t c = copy_to_read(fs, ppn, rc);
    return c == SFS_NONE ? rc : sfs_rd_words(fs, c, idx, n, out);
}

int sfs_rd_buf(steadyfs *fs, uint32_t ppn)
{
    sfs_tag t;
    int rc;
    if (ppn == fs->cache.buf_ppn)
        return 0;
    rc = sfs_rd_live(fs, ppn, fs->buf, &t);
    if (rc < 0)
        return rc;
    fs->cache.buf_ppn = ppn;
    return 0;
}

int sfs_dc_get(const steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t *ino)
{
    if (!fs->cache.dc_dir || fs->cache.dc_dir != dir || fs->cache.dc_len != len || memcmp(fs->cache.dc_name, name, len))
        return 0;
    *ino = fs->cache.dc_ino;
    return 1;
}

void sfs_dc_put(steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t ino)
{
    if (len > sizeof fs->cache.dc_name)
        return;
    fs->cache.dc_dir = dir;
    fs->cache.dc_ino = ino;
    fs->cache.dc_len = (uint8_t)len;
    memcpy(fs->cache.dc_name, name, len);
}
