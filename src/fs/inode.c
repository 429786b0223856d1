/* Inode sectors: their layout (SPEC §5), the chunk lists they hold and
 * the pending chunk entries that amend them, and the open-file table's
 * lookup by inode.  Layer 3, beside the map (fs_internal.h): a size merge
 * (map.c) writes an inode sector, and the files above read and edit them. */
#include <stddef.h>

#include "fs/fs_internal.h"

/* The inode sector's integers (SPEC §5): offset, bytes, place in
 * sfs_inode.  One loop packs and unpacks them all: ten fields written out
 * as little-endian stores cost ~250 B more code on Cortex-M3. */
static const uint8_t ifields[][3] = {
    {4, 4, offsetof(sfs_inode, ino)},      {8, 4, offsetof(sfs_inode, gen)},
    {12, 1, offsetof(sfs_inode, type)},    {14, 2, offsetof(sfs_inode, mode)},
    {16, 4, offsetof(sfs_inode, parent)},  {20, 4, offsetof(sfs_inode, uid)},
    {24, 8, offsetof(sfs_inode, size)},    {32, 4, offsetof(sfs_inode, gid)},
    {40, 8, offsetof(sfs_inode, mtime)},   {48, 8, offsetof(sfs_inode, ctime)},
};

#define W(f) sizeof(((sfs_inode *)0)->f)
_Static_assert(W(ino) == 4 && W(gen) == 4 && W(type) == 1 && W(mode) == 2 && W(parent) == 4 && W(uid) == 4 &&
                   W(size) == 8 && W(gid) == 4 && W(mtime) == 8 && W(ctime) == 8,
               "inode fields have their media widths");
#undef W

static void inode_io(uint8_t *buf, sfs_inode *in, int put)
{
    uint32_t i;
#if !SFS_LE
    uint32_t k, w;
#endif
    for (i = 0; i < sizeof ifields / sizeof ifields[0]; i++) {
        uint8_t *f = (uint8_t *)in + ifields[i][2], *b = buf + ifields[i][0];
#if SFS_LE
        /* each field in RAM has its media width and byte order */
        if (put)
            memcpy(b, f, ifields[i][1]);
        else
            memcpy(f, b, ifields[i][1]);
#else
        uint64_t v = 0;
        w = ifields[i][1];
        if (put) {
            v = w == 8 ? *(uint64_t *)(void *)f : w == 4 ? *(uint32_t *)(void *)f
              : w == 2 ? *(uint16_t *)(void *)f : *f;
            for (k = 0; k < w; k++, v >>= 8)
                b[k] = (uint8_t)v;
        } else {
            for (k = w; k--;)
                v = v << 8 | b[k];
            if (w == 8)
                *(uint64_t *)(void *)f = v;
            else if (w == 4)
                *(uint32_t *)(void *)f = (uint32_t)v;
            else if (w == 2)
                *(uint16_t *)(void *)f = (uint16_t)v;
            else
                *f = (uint8_t)v;
        }
#endif
    }
}

void sfs_inode_pack(steadyfs *fs, uint8_t *buf, const sfs_inode *in)
{
    /* a symlink's target, already in place after the header, stays; so
     * does a file's chunk list (its writer put it there) */
    uint32_t end = SFS_INODE_HDR + (in->type == STEADYFS_TYPE_SYMLINK ? (uint32_t)in->size : 0u);
    fs->cache.buf_ppn = SFS_NONE;
    memset(buf, 0, SFS_INODE_HDR);
    if (in->type != STEADYFS_TYPE_FILE)
        memset(buf + end, 0, fs->geo.payload - end);
    sfs_put32(buf, INODE_MAGIC);
    inode_io(buf, (sfs_inode *)(uintptr_t)in, 1);
}

int sfs_inode_unpack(steadyfs *fs, const uint8_t *buf, sfs_inode *in)
{
    if (sfs_get32(buf) != INODE_MAGIC)
        return STEADYFS_ECORRUPT;
    inode_io((uint8_t *)(uintptr_t)buf, in, 0);
    if (in->type < STEADYFS_TYPE_FILE || in->type > STEADYFS_TYPE_SYMLINK)
        return STEADYFS_ENOENT;
    /* larger than a file can grow: its pages would index other inodes';
     * a symlink's target must fit its sector */
    if (in->size > (in->type == STEADYFS_TYPE_SYMLINK ? (uint64_t)steadyfs_symlink_max(fs)
                                                      : (uint64_t)fs->geo.maxpg * fs->geo.payload) ||
        in->mode > 07777u)
        return STEADYFS_ECORRUPT;
    return 0;
}

int sfs_inode_read(steadyfs *fs, uint32_t ino, int working, sfs_inode *in, uint32_t *ppn)
{
    uint32_t p;
    int rc;
    if (ino == 0 || ino >= fs->cfg.max_inodes)
        return STEADYFS_ECORRUPT;
    rc = sfs_lookup(fs, sfs_shared_lpn(fs, ino, 0), working, &p);
    if (rc)
        return rc;
    if (p == SFS_NONE)
        return STEADYFS_ECORRUPT;
    /* after create, the buffer still holds the inode just written */
    rc = sfs_rd_buf(fs, p);
    if (rc < 0)
        return rc;
    if (ppn)
        *ppn = p;
    rc = sfs_inode_unpack(fs, fs->buf, in);
    if (!rc && in->ino != ino)
        rc = STEADYFS_ECORRUPT;
    if (!rc) {
        /* a commit in a data sector's tag (TF_SIZE) is newer */
        struct sfs_pend *s = sfs_pend_find(fs, PT_SIZE, ino, 0);
        if (s && in->type == STEADYFS_TYPE_FILE)
            in->size = s->ppn;
    }
    return rc;
}

/* The chunk a pending chunk entry gives slot `slot` of inode ino (the
 * uncommitted one of its own transaction, with working, first; else a
 * committed run covering it), or CHUNK_NONE. */
uint32_t sfs_chunk_entry(steadyfs *fs, uint32_t ino, uint32_t slot, int working)
{
    uint32_t c = CHUNK_NONE, i, s0;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type != PT_CHUNK || p->key != ino)
            continue;
        s0 = p->ppn >> 16;
        if (!(p->flags & PF_UNC) && slot >= s0 && slot < s0 + p->owner)
            c = (p->ppn & 0xFFFFu) + slot - s0;
        else if ((p->flags & PF_UNC) && working && slot == s0)
            return p->ppn & 0xFFFFu;
    }
    return c;
}

void sfs_inode_chunks(steadyfs *fs, uint32_t ino, uint16_t owner, uint32_t txn)
{
    uint32_t i, s, n, k, c;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        if (p->type != PT_CHUNK || p->key != ino ||
            ((p->flags & PF_UNC) && (p->owner != owner || p->txn != txn)))
            continue;
        s = p->ppn >> 16;
        n = p->flags & PF_UNC ? 1u : p->owner;
        for (k = 0; k < n && s + k < fs->geo.cmax; k++) {
            c = (p->ppn & 0xFFFFu) + k;
            sfs_list_put(fs, fs->buf, ino, s + k, c);
        }
    }
    fs->cache.buf_ppn = SFS_NONE;
}

int sfs_chunk_get(steadyfs *fs, uint32_t ino, uint32_t slot, int working, uint32_t *chunk)
{
    uint32_t e = sfs_chunk_entry(fs, ino, slot, working), ippn, w;
    int rc;
    if (e != CHUNK_NONE) {
        *chunk = e;
        return 0;
    }
    *chunk = CHUNK_NONE;
    if (slot >= fs->geo.cmax)
        return 0;
    rc = sfs_lookup(fs, sfs_shared_lpn(fs, ino, 0), working, &ippn);
    if (rc || ippn == SFS_NONE)
        return rc;
    /* one word of the inode sector's chunk list */
    rc = sfs_rd_words_live(fs, ippn, (SFS_INODE_HDR + 2 * slot) / 4, 1, &w);
    if (rc)
        return rc;
    *chunk = sfs_chunk_dec(fs, ino, slot, slot & 1u ? w >> 16 : w & 0xFFFFu);
    if (*chunk != CHUNK_NONE && *chunk >= fs->geo.n_c)
        return STEADYFS_ECORRUPT;
    return 0;
}

/* The primary handle of inode ino (its working size, transaction and
 * committed inode sector), or NULL if it is not open as a file. */
struct sfs_open *sfs_primary(steadyfs *fs, uint32_t ino)
{
    uint32_t i;
    for (i = 0; i < fs->cfg.open_max; i++)
        if (fs->open[i].ino == ino && fs->open[i].kind == STEADYFS_TYPE_FILE)
            return &fs->open[i];
    return NULL;
}

/* A symlink's target is in its inode sector, after the header. */
uint32_t steadyfs_symlink_max(const steadyfs *fs)
{
    uint32_t n = fs->geo.payload - SFS_INODE_HDR;
    return n > 4095u ? 4095u : n;
}
