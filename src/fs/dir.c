/* Directories: a fixed number (dir_pages) of hash-bucket sectors.
 *
 * A name lives in bucket hash % dir_pages, or, when that sector is full,
 * in the next one with room (the full sector gets an overflow mark, so a
 * lookup knows to probe on).  Lookup of a name reads one sector in the
 * common case and dir_pages in the worst: never a scan of every entry of
 * the file system, and a known bound.  Inside a sector, entries are kept
 * sorted by (hash, inode), which makes the readdir cookie
 * (sector, hash, inode) a stable position whatever else changes.
 *
 * Sector layout: u16 count, u16 bytes used, u8 overflow, 3 pad, s64 the
 * time its entries last changed, then entries {u32 hash, u32 ino, u8
 * type, u8 name_len, name}.
 *
 * Why the time is in the bucket: a create, unlink or rename programs the
 * buckets it edits anyway, and stat reads every bucket of a directory for
 * its link count, so a directory's mtime and ctime follow its entries
 * (POSIX) for no program and no read more.  Its inode sector would cost a
 * program each change.  stat takes the bucket's time where it is later
 * than the inode's ctime: a setattr after the last entry change (cp -a
 * setting the times it copied) wins until the next one. */
#include "fs/fs_internal.h"

#define DH SFS_DIR_HDR
#define DE 10u

uint32_t sfs_name_hash(const char *name, uint32_t len)
{
    uint32_t h = 2166136261u, i;
    for (i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h;
}

/* Load bucket sector d of directory dir into fs->buf (empty if never
 * written).  *ppn: where it was. */
static int load(steadyfs *fs, uint32_t dir, uint32_t d, uint32_t *ppn)
{
    int rc = sfs_lookup(fs, sfs_shared_lpn(fs, dir, 1 + d), 1, ppn);
    if (rc)
        return rc;
    if (*ppn == SFS_NONE) {
        fs->cache.buf_ppn = SFS_NONE;
        memset(fs->buf, 0, fs->geo.payload);
        return 0;
    }
    /* an edit right after the path lookup finds the bucket still there */
    rc = sfs_rd_buf(fs, *ppn);
    if (rc < 0)
        return rc;
    if (sfs_get16(fs->buf + 2) > fs->geo.payload - DH)
        return STEADYFS_ECORRUPT;
    return 0;
}

static uint32_t used(const uint8_t *b) { return sfs_get16(b + 2); }
static uint32_t count(const uint8_t *b) { return sfs_get16(b); }
static void set_hdr(uint8_t *b, uint32_t n, uint32_t u)
{
    sfs_put16(b, n);
    sfs_put16(b + 2, u);
}
static int64_t changed_at(const uint8_t *b) { return (int64_t)sfs_get64(b + 8); }
static void set_changed(const steadyfs *fs, uint8_t *b) { sfs_put64(b + 8, (uint64_t)sfs_now(fs)); }

/* Offset of name in the loaded sector, or 0. */
static uint32_t find(const uint8_t *b, uint32_t h, const char *name, uint32_t len)
{
    uint32_t o = DH, end = DH + used(b);
    while (o + DE <= end) {
        uint32_t nl = b[o + 9];
        if (sfs_get32(b + o) == h && nl == len && !memcmp(b + o + DE, name, len))
            return o;
        o += DE + nl;
    }
    return 0;
}

int sfs_dir_lookup(steadyfs *fs, uint32_t dir, const char *name, uint32_t len,
                   uint32_t *ino, uint8_t *type)
{
    uint32_t h = sfs_name_hash(name, len), k, d, ppn, o;
    int rc;
    if (sfs_dc_get(fs, dir, name, len, ino)) {
        *type = STEADYFS_TYPE_DIR;
        return 0;
    }
    for (k = 0; k < fs->cfg.dir_pages; k++) {
        d = (h + k) % fs->cfg.dir_pages;
        rc = load(fs, dir, d, &ppn);
        if (rc)
            return rc;
        o = find(fs->buf, h, name, len);
        if (o) {
            *ino = sfs_get32(fs->buf + o + 4);
            *type = fs->buf[o + 8];
            if (*type == STEADYFS_TYPE_DIR)
                sfs_dc_put(fs, dir, name, len, *ino);
            return 0;
        }
        if (!fs->buf[4])
            break;
    }
    return STEADYFS_ENOENT;
}

static int write_page(steadyfs *fs, uint32_t dir, uint32_t d, uint32_t *txn, uint8_t flags,
                      uint32_t old)
{
    return sfs_write_lpn(fs, sfs_shared_lpn(fs, dir, 1 + d), OWNER_NS, txn, flags, old, NULL);
}

/* Insert (or replace the inode of) name, ino != 0, or remove it, ino 0,
 * as part of NS transaction *txn: both probe the buckets alike. */
static int edit(steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t ino,
                uint8_t type, uint32_t *txn, uint8_t flags)
{
    uint32_t h = sfs_name_hash(name, len), k, d, ppn, o, need = DE + len, u, n, fits = 0;
    uint8_t wf;
    int rc;
    if (fs->cache.dc_dir == dir)
        fs->cache.dc_dir = 0;   /* the directory changes */
    for (k = 0; k < fs->cfg.dir_pages; k++) {
        d = (h + k) % fs->cfg.dir_pages;
        do {
            wf = flags;
            rc = sfs_room(fs, 0, fs->rm);
            if (!rc)
                rc = load(fs, dir, d, &ppn);
            if (rc)
                return rc;
            o = find(fs->buf, h, name, len);
            u = used(fs->buf);
            n = count(fs->buf);
            fits = DH + u + need <= fs->geo.payload;
            if (!ino && !o)
                break;   /* not in this bucket */
            fs->cache.buf_ppn = SFS_NONE;   /* edited below */
            if (!ino) {
                need = DE + fs->buf[o + 9];
                memmove(fs->buf + o, fs->buf + o + need, DH + u - o - need);
                set_hdr(fs->buf, n - 1, u - need);
                memset(fs->buf + DH + u - need, 0, need);
            } else if (o) {
                sfs_put32(fs->buf + o + 4, ino);
                fs->buf[o + 8] = type;
            } else if (fits) {
                /* sorted by (hash, ino) */
                uint32_t at = DH, end = DH + u;
                while (at + DE <= end) {
                    uint32_t eh = sfs_get32(fs->buf + at), ei = sfs_get32(fs->buf + at + 4);
                    if (eh > h || (eh == h && ei > ino))
                        break;
                    at += DE + fs->buf[at + 9];
                }
                memmove(fs->buf + at + need, fs->buf + at, end - at);
                sfs_put32(fs->buf + at, h);
                sfs_put32(fs->buf + at + 4, ino);
                fs->buf[at + 8] = type;
                fs->buf[at + 9] = (uint8_t)len;
                memcpy(fs->buf + at + DE, name, len);
                set_hdr(fs->buf, n + 1, u + need);
            } else {
                if (fs->buf[4])
                    break;   /* already marked: probe on */
                fs->buf[4] = 1;   /* full: the overflow mark, then probe on */
                wf = 0;
            }
            if (!ino || o || fits)
                set_changed(fs, fs->buf);   /* an entry came, went or changed */
            rc = write_page(fs, dir, d, txn, wf, ppn);
        } while (rc == SFS_RETRY);
        if (o || (ino && fits) || rc)
            return rc;
        if (!ino && !fs->buf[4])
            break;
    }
    return ino ? STEADYFS_ENOSPC : STEADYFS_ENOENT;
}

int sfs_dir_insert2(steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t ino,
                    uint8_t type, uint32_t *txn, uint8_t flags)
{
    return edit(fs, dir, name, len, ino, type, txn, flags);
}

int sfs_dir_remove2(steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t *txn,
                    uint8_t flags)
{
    return edit(fs, dir, name, len, 0, 0, txn, flags);
}

/* Entries of dir (of `type` only, unless 0); with stop, 1 at the first.
 * changed (unless NULL): the latest of the buckets' times. */
static int dir_count(steadyfs *fs, uint32_t dir, uint8_t type, int stop, int64_t *changed)
{
    uint32_t d, ppn, o, end;
    int rc, n = 0;
    for (d = 0; d < fs->cfg.dir_pages; d++) {
        rc = load(fs, dir, d, &ppn);
        if (rc)
            return rc;
        if (changed && changed_at(fs->buf) > *changed)
            *changed = changed_at(fs->buf);
        for (o = DH, end = DH + used(fs->buf); o + DE <= end; o += DE + fs->buf[o + 9])
            if (!type || fs->buf[o + 8] == type) {
                if (stop)
                    return 1;
                n++;
            }
    }
    return n;
}

int sfs_dir_empty(steadyfs *fs, uint32_t dir)
{
    int rc = dir_count(fs, dir, 0, 1, NULL);
    return rc < 0 ? rc : !rc;
}

int sfs_dir_subdirs(steadyfs *fs, uint32_t dir, int64_t *changed)
{
    *changed = 0;
    return dir_count(fs, dir, STEADYFS_TYPE_DIR, 0, changed);
}

/* The entry at offset o of bucket d, loaded in fs->buf, into *ent. */
static void entry_at(const steadyfs *fs, uint32_t d, uint32_t o, steadyfs_dirent *ent)
{
    uint32_t h = sfs_get32(fs->buf + o), ino = sfs_get32(fs->buf + o + 4);
    ent->next = (uint64_t)(d + 1) << 48 | (uint64_t)h << 16 | (ino & 0xFFFFu);
    ent->id = ino;
    ent->type = fs->buf[o + 8];
    ent->name_len = fs->buf[o + 9];
    memcpy(ent->name, fs->buf + o + DE, ent->name_len);
    ent->name[ent->name_len] = 0;
}

/* The first entry whose position is after cookie. */
int sfs_dir_next(steadyfs *fs, uint32_t dir, uint64_t cookie, steadyfs_dirent *ent)
{
    uint32_t d = cookie ? (uint32_t)(cookie >> 48) - 1u : 0, ppn, o, end;
    int rc;
    for (; d < fs->cfg.dir_pages; d++) {
        rc = load(fs, dir, d, &ppn);
        if (rc)
            return rc;
        for (o = DH, end = DH + used(fs->buf); o + DE <= end; o += DE + fs->buf[o + 9]) {
            entry_at(fs, d, o, ent);
            if (ent->next > cookie)
                return 1;
        }
    }
    return 0;
}

/* Repair (repair.c) goes over a directory bucket by bucket, and entry by
 * entry, and reloads the bucket before each: what it fixes uses the
 * buffer.  A bucket that cannot be read (uncorrectable, a lost copy, its
 * map word lost) is one answer, not an error of the walk. */
int sfs_dir_entry(steadyfs *fs, uint32_t dir, uint32_t d, uint32_t i, steadyfs_dirent *ent)
{
    uint32_t ppn, o, end;
    int rc = load(fs, dir, d, &ppn);
    if (rc)
        return (rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT) && !fs->dead ? SFS_DAMAGED : rc;
    for (o = DH, end = DH + used(fs->buf); o + DE <= end; o += DE + fs->buf[o + 9])
        if (!i--) {
            entry_at(fs, d, o, ent);
            return 1;
        }
    return 0;
}

/* Bucket d of dir rewritten empty, as NS transaction *txn's commit.  It
 * keeps an overflow mark: names that went on past it when it was full
 * are still found. */
int sfs_dir_reset(steadyfs *fs, uint32_t dir, uint32_t d, uint32_t *txn)
{
    int rc;
    if (fs->cache.dc_dir == dir)
        fs->cache.dc_dir = 0;
    do {
        rc = sfs_room(fs, 0, fs->rm);
        if (rc)
            return rc;
        fs->cache.buf_ppn = SFS_NONE;
        memset(fs->buf, 0, fs->geo.payload);
        fs->buf[4] = 1;
        set_changed(fs, fs->buf);
        rc = write_page(fs, dir, d, txn, TF_COMMIT, SFS_UNKNOWN);
    } while (rc == SFS_RETRY);
    return rc;
}
