/* Checking a file system (steadyfs_fsck) and reading its format parameters
 * from the medium (steadyfs_probe).
 *
 * fsck mounts (which writes nothing), then verifies what docs/SPEC.md
 * promises, from the checkpoint outwards: the anchor's checkpoint sequence,
 * the block table and its counts, every sector the map reaches (tag CRC,
 * payload CRC, kind and logical identity, never two logical pages on one
 * sector), the inode bitmap against the inode sectors, and the directory
 * tree (bucket layout, hashes, order, probing, each inode named exactly
 * once, parents, file sizes against mapped pages).  Memory is the caller's
 * work area (steadyfs_fsck_work_size); time is bounded by the geometry:
 * every L1 index is visited once, every mapped sector read twice at most,
 * every directory once. */
#include <stdarg.h>

#include "fs/fs_internal.h"

typedef struct fck {
    steadyfs *fs;
    steadyfs_fsck_report *rep;
    steadyfs_fsck_cb cb;
    void *ctx;
    uint8_t *b2;      /* L2 sector, then bucket headers */
    uint8_t *b1;      /* L1 sector, then a bucket */
    uint8_t *used;    /* bit per sector: reached by the map */
    uint8_t *cnt;     /* live sectors per unit, as counted here */
    uint32_t *maxp;   /* per inode: highest mapped data page + 1 */
    uint8_t *imap;    /* bit per inode: inode sector mapped and valid */
    uint8_t *iref;    /* bit per inode: named by a directory entry */
    uint8_t *iscan;   /* bit per inode: directory scanned */
    uint8_t *cpg;     /* per chunk: highest mapped offset + 1 (0: none mapped) */
    uint8_t *cown;    /* bit per chunk: listed by an inode */
} fck;

static uint32_t a4(uint32_t v) { return (v + 3u) & ~3u; }
static int bit(const uint8_t *m, uint32_t i) { return (m[i >> 3] >> (i & 7u)) & 1; }
static void setbit(uint8_t *m, uint32_t i) { m[i >> 3] |= (uint8_t)(1u << (i & 7u)); }

/* Report one finding: a tiny formatter (%u 32-bit, %U 64-bit, %s), since
 * the core has no stdio.  err != 0 counts an error. */
static void say(fck *c, int err, const char *fmt, ...)
{
    char m[200];
    uint32_t n = 0;
    va_list ap;
    const char *pre = err ? "error: " : "note: ";
    while (*pre)
        m[n++] = *pre++;
    va_start(ap, fmt);
    for (; *fmt && n < sizeof m - 24; fmt++) {
        char t[21];
        int i = 20;
        uint64_t v;
        const char *s;
        if (*fmt != '%') {
            m[n++] = *fmt;
            continue;
        }
        fmt++;
        if (*fmt == 's') {
            for (s = va_arg(ap, const char *); *s && n < sizeof m - 24; s++)
                m[n++] = *s;
            continue;
        }
        v = *fmt == 'U' ? va_arg(ap, uint64_t) : va_arg(ap, uint32_t);
        t[i] = 0;
        do {
            t[--i] = (char)('0' + v % 10u);
            v /= 10u;
        } while (v);
        while (t[i])
            m[n++] = t[i++];
    }
    va_end(ap);
    m[n] = 0;
    if (err)
        c->rep->errors++;
    if (c->cb)
        c->cb(c->ctx, m);
}

/* Is unit b a log head (a unit being filled)?  Its sectors from *idx on
 * are unwritten and its live count is *count, not the block table's.
 * Every head the file system keeps is listed here and in nheads(). */
static int head_of(const steadyfs *fs, uint32_t b, uint32_t *idx, uint32_t *count)
{
    if (b == fs->log.head_block) {
        *idx = fs->log.head_idx;
        *count = fs->log.head_count;
    } else if (b == fs->log.gh_block) {   /* the collection head */
        *idx = fs->log.gh_idx;
        *count = fs->log.gh_count;
    } else
        return 0;
    return 1;
}

static uint32_t nheads(const steadyfs *fs)
{
    return (fs->log.head_block != SFS_NONE) + (fs->log.gh_block != SFS_NONE);
}

static const char *kind_name(uint32_t k)
{
    return k == TK_DATA ? "data" : k == TK_MAP1 ? "L1 map" : k == TK_MAP2 ? "L2 map" : "checkpoint";
}

/* Read and verify a sector the map reaches: in range, in a unit that may
 * hold live sectors, reached once, tag and payload CRC, kind and key.
 * Counts it live.  Returns 1 if buf holds its verified payload. */
static int reach(fck *c, uint32_t ppn, uint8_t kind, uint32_t key, uint8_t *buf)
{
    steadyfs *fs = c->fs;
    uint32_t b = ppn / fs->geo.P, i = ppn % fs->geo.P, hidx, hcnt;
    const char *what = kind_name(kind);
    sfs_tag t;
    int rc;
    if (ppn == SFS_LOST) {
        say(c, 1, "%s key %u: lost (its map sector was rebuilt after damage, or its word fails its check)", what, key);
        return 0;
    }
    if (ppn >= fs->geo.nblocks * fs->geo.P) {
        say(c, 1, "%s sector of key %u: address %u is past the device", what, key, ppn);
        return 0;
    }
    if (bit(c->used, ppn)) {
        say(c, 1, "sector %u (unit %u index %u) is reached twice (again as %s key %u)", ppn, b,
            i, what, key);
        return 0;
    }
    setbit(c->used, ppn);
    if (head_of(fs, b, &hidx, &hcnt)) {
        /* (a sector the host head passed, live when it entered a closed
         * unit on a medium without erase, is where it was: format 11) */
        if (i >= hidx && !(b == fs->log.head_block && i < 32u && (fs->log.head_skip >> i & 1u)))
            say(c, 1, "%s key %u maps to sector %u, beyond the log head (unit %u index %u)", what,
                key, ppn, b, hidx);
    } else if (fs->blk[b] > fs->geo.P) {
        say(c, 1, "%s key %u maps to sector %u in unit %u whose state is %u (not in use)", what,
            key, ppn, b, fs->blk[b]);
    }
    if (c->cnt[b] < 255)
        c->cnt[b]++;
    c->rep->live_sectors++;
    /* (a page that fails its ECC but whose tag holds: then its payload
     * read below says so) */
    rc = sfs_rd_tag_in(fs, ppn, &t, 1);
    if (rc == STEADYFS_ECORRUPT) {
        say(c, 1, "%s key %u: sector %u (unit %u index %u): tag invalid (kind or tag CRC)", what,
            key, ppn, b, i);
        return 0;
    }
    if (rc >= 0)
        rc = sfs_rd_sector(fs, ppn, buf, &t);
    if (rc == STEADYFS_ECORRUPT) {
        say(c, 1, "%s key %u: sector %u (unit %u index %u): payload CRC mismatch", what, key, ppn,
            b, i);
        return 0;
    }
    if (rc < 0) {
        say(c, 1, "%s key %u: sector %u (unit %u index %u): unreadable (uncorrectable or I/O)",
            what, key, ppn, b, i);
        return 0;
    }
    if (t.kind != kind || t.key != key) {
        say(c, 1, "sector %u (unit %u index %u) holds %s key %u, the map expects %s key %u", ppn,
            b, i, kind_name(t.kind), t.key, what, key);
        return 0;
    }
    if (t.seq >= fs->log.seq)
        say(c, 1, "sector %u: sequence %U is not older than the log's next (%U)", ppn, t.seq,
            fs->log.seq);
    return 1;
}

/* Format 4's fields of a valid inode sector in fs->buf: reserved bytes
 * zero, a symlink's target without NUL, nothing after the header or the
 * target but a file's chunk list (mode, type and symlink length are
 * checked by the unpack). */
static void inode_fields(fck *c, uint32_t ino, const sfs_inode *in)
{
    const uint8_t *b = c->fs->buf;
    uint32_t i, end = SFS_INODE_HDR, bad = b[13];
    for (i = 36; i < 40; i++)
        bad |= b[i];
    for (i = 56; i < SFS_INODE_HDR; i++)
        bad |= b[i];
    if (bad)
        say(c, 1, "inode %u: reserved bytes (13, 36-39, 56-63) are not zero", ino);
    if (in->type == STEADYFS_TYPE_SYMLINK) {
        for (; end < SFS_INODE_HDR + in->size && b[end]; end++)
            ;
        if (!in->size || end < SFS_INODE_HDR + in->size)
            say(c, 1, "symlink inode %u: target empty or with a NUL byte", ino);
        end = SFS_INODE_HDR + (uint32_t)in->size;
    }
    if (in->type == STEADYFS_TYPE_FILE)
        return;   /* its chunk list follows (check_chunks) */
    for (i = end; i < c->fs->geo.payload && !b[i]; i++)
        ;
    if (i < c->fs->geo.payload)
        say(c, 1, "inode %u: bytes after the inode%s are not zero", ino,
            in->type == STEADYFS_TYPE_SYMLINK ? "'s target" : "");
}

/* A data sector at logical page lpn, verified: account it to its inode
 * (the shared table) or its chunk. */
static void data_page(fck *c, uint32_t lpn, uint32_t ppn)
{
    steadyfs *fs = c->fs;
    uint32_t ino, k, ch;
    sfs_inode in;
    c->rep->data_sectors++;
    if (!reach(c, ppn, TK_DATA, lpn, fs->buf))
        return;
    if (lpn >= fs->geo.cbase) {
        ch = sfs_chunk_of_lpn(fs, lpn);
        k = (lpn - fs->geo.cbase) % fs->geo.C;
        if (ch >= fs->geo.n_c)
            say(c, 1, "logical page %u mapped past the last chunk", lpn);
        else if (!sfs_bit(fs->chunk.used, ch))
            say(c, 1, "chunk %u: logical page %u mapped, but the chunk is free", ch, lpn);
        else if (c->cpg[ch] < k + 1u)
            c->cpg[ch] = (uint8_t)(k + 1u);
        return;
    }
    ino = sfs_shared_ino(fs, lpn);
    k = sfs_shared_k(fs, lpn);
    if (k == 0) {
        int rc = sfs_inode_unpack(fs, fs->buf, &in);
        if (ino == 0 || !bit(fs->ibm, ino))
            say(c, 1, "inode %u: inode sector mapped but the inode bitmap has it free", ino);
        else if (rc || in.ino != ino)
            say(c, 1, "inode %u: inode sector invalid (magic, number, type or size)", ino);
        else {
            setbit(c->imap, ino);
            inode_fields(c, ino, &in);
        }
        return;
    }
    if (ino == 0 || k > fs->cfg.dir_pages)
        say(c, 1, "logical page %u mapped in an unused place of the shared table", lpn);
    else if (c->maxp[ino] < k)
        c->maxp[ino] = k;   /* page 0 of a file, bucket k - 1 of a directory */
}

/* L1 index m, whose L1 sector per L2 is l1w: the L1 sector and every
 * logical page in its range (dying chunks' pages too: they stay counted
 * until a trim step frees them). */
static void visit_l1(fck *c, uint32_t m, uint32_t l1w)
{
    steadyfs *fs = c->fs;
    uint32_t j, e = fs->geo.e1;
    struct sfs_pend *p2 = sfs_pend_find(fs, PT_L2, m, 0);
    uint32_t l1 = p2 ? p2->ppn : l1w;
    int have1 = 0, pend = 0;
    if (l1 != SFS_NONE) {
        c->rep->map_sectors++;
        have1 = reach(c, l1, TK_MAP1, m, c->b1);
    }
    for (j = 0; j < fs->npend && !pend; j++)
        pend = fs->pend[j].type == PT_L1 && fs->pend[j].key / e == m;
    if (!have1 && !pend)
        return;
    /* a committed change that left the sector it replaced counted (PF_OLD:
     * its word could not be read at the commit, map.c sfs_apply_commit)
     * counts that sector until the merge reads the word: the word here */
    for (j = 0; have1 && j < fs->npend; j++) {
        const struct sfs_pend *p = &fs->pend[j];
        uint32_t old;
        if (p->type != PT_L1 || p->key / e != m || !(p->flags & PF_OLD))
            continue;
        old = sfs_map_get(fs, c->b1, m * e, p->key % e);
        old = old < SFS_LOST ? sfs_copy_of(fs, old) : SFS_NONE;
        if (old < fs->geo.nblocks * fs->geo.P && c->cnt[old / fs->geo.P] < 255)
            c->cnt[old / fs->geo.P]++;
    }
    /* the range as sfs_lookup sees it: the L1 words, then the committed
     * pending changes on top */
    if (!have1)
        memset(c->b1, 0xFF, 4u * e);
    for (j = 0; j < fs->npend; j++)
        if (fs->pend[j].type == PT_L1 && fs->pend[j].key / e == m)
            sfs_map_put(fs, c->b1, m * e, fs->pend[j].key % e, fs->pend[j].ppn);
    for (j = 0; j < e; j++) {
        /* (a word whose check fails is a lost page: data_page) */
        uint32_t ppn = sfs_map_get(fs, c->b1, m * e, j);
        if (ppn != SFS_NONE)   /* a sector collection copied: its copy */
            data_page(c, m * e + j, sfs_copy_of(fs, ppn));
    }
}

/* Every logical page through the two map levels and the pending table,
 * as sfs_lookup resolves it, one L1 sector at a time: first the L1
 * indices an L2 sector maps, then those only pending changes name. */
static void sweep_map(fck *c)
{
    steadyfs *fs = c->fs;
    uint32_t r, m, i, j, e = fs->geo.e1;
    for (r = 0; r < fs->geo.n_l2; r++) {
        if (fs->root[r] == SFS_NONE)
            continue;
        c->rep->map_sectors++;
        if (!reach(c, fs->root[r], TK_MAP2, r, c->b2))
            continue;
        for (m = r * e; m < (r + 1) * e && m < fs->geo.n_l1; m++) {
            uint32_t w = sfs_map_get(fs, c->b2, sfs_l2_key(r * e), m % e);
            if (w != SFS_NONE || sfs_pend_find(fs, PT_L2, m, 0))
                visit_l1(c, m, w);
        }
    }
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        uint32_t w = SFS_NONE;
        if (p->type != PT_L1 && p->type != PT_L2)
            continue;   /* a size or a chunk: no map sector */
        m = p->type == PT_L2 ? p->key : p->key / e;
        for (j = 0; j < i; j++)   /* once per L1 index */
            if ((fs->pend[j].type == PT_L1 || fs->pend[j].type == PT_L2) &&
                (fs->pend[j].type == PT_L2 ? fs->pend[j].key : fs->pend[j].key / e) == m)
                break;
        if (j < i)
            continue;
        /* visited above if its L2 sector is valid and maps it (or an L2
         * change names it) */
        if (fs->root[m / e] != SFS_NONE) {
            sfs_tag t;
            if (sfs_rd_sector(fs, fs->root[m / e], c->b2, &t) >= 0 && t.kind == TK_MAP2 &&
                t.key == m / e) {
                w = sfs_map_get(fs, c->b2, sfs_l2_key(m / e * e), m % e);
                if (w != SFS_NONE || sfs_pend_find(fs, PT_L2, m, 0))
                    continue;
            }
        }
        visit_l1(c, m, w);
    }
}

/* Unit b (any of its device blocks) marked bad on the device. */
static int dev_bad(steadyfs *fs, uint32_t b)
{
    uint32_t k;
    int bad = 0;
    for (k = 0; k < fs->geo.dev_per_block; k++)
        bad |= sbd_is_bad(fs->cfg.bd, b * fs->geo.dev_per_block + k) > 0;
    return bad;
}

/* The checkpoint state mount loaded: ranges and the block table. */
static int check_state(fck *c)
{
    steadyfs *fs = c->fs;
    uint32_t i, total = fs->geo.nblocks * fs->geo.P, heads = 0, bad = 0;
    for (i = 0; i < fs->npend; i++) {
        struct sfs_pend *p = &fs->pend[i];
        uint32_t lim = p->type == PT_L1 ? fs->geo.n_l1 * fs->geo.e1
                     : p->type == PT_L2 ? fs->geo.n_l1 : fs->cfg.max_inodes;
        if (p->key >= lim || (p->type <= PT_L2 && p->ppn != SFS_NONE && p->ppn >= total) ||
            (p->flags & PF_UNC)) {
            say(c, 1, "pending map change %u (type %u key %u sector %u) is out of range", i,
                p->type, p->key, p->ppn);
            bad++;
        }
    }
    for (i = 0; i < fs->geo.n_l2; i++)
        if (fs->root[i] != SFS_NONE && fs->root[i] >= total) {
            say(c, 1, "map root %u: sector %u is past the device", i, fs->root[i]);
            bad++;
        }
    for (i = 0; i < fs->geo.nblocks; i++) {
        uint8_t s = fs->blk[i];
        int devbad = dev_bad(fs, i);
        if ((i < sfs_reserved(fs)) != (s == BS_RESERVED))
            say(c, 1, "unit %u: state %u, but units 0..%u and only they are the anchor area", i, s,
                sfs_reserved(fs) - 1u);
        if (s == BS_HEAD) {
            uint32_t hidx, hcnt;
            heads++;
            if (!head_of(fs, i, &hidx, &hcnt))
                say(c, 1, "unit %u is marked head, but is not a log head", i);
        }
        if (s == BS_BAD) {
            c->rep->bad_blocks++;
            if (!devbad)
                say(c, 1, "unit %u: retired as bad, but the device does not report it bad", i);
        } else if (devbad && (s == BS_FREE || s == BS_QUEUED || s == BS_CKNEXT)) {
            /* marked bad after the checkpoint (a failed erase, then a cut):
             * its next erase fails and retires it.  Queued or held: a unit
             * a switch cut short had begun, whose erase before the next
             * switch failed (ckpt.c ck_switch); the log reads an erased
             * unit's first sector before it takes it, and erases it again */
            say(c, 0, "unit %u: bad on the device, not yet retired in the table (%s)", i,
                s == BS_FREE ? "free" : "erased");
            c->rep->notes++;
        } else if (devbad && s != BS_RESERVED) {
            say(c, 1, "unit %u: bad on the device but in use (state %u)", i, s);
        }
    }
    if (heads != nheads(fs) || fs->blk[fs->log.head_block] != BS_HEAD)
        say(c, 1, "block table: %u units marked head, %u log heads (unit %u has state %u)", heads,
            nheads(fs), fs->log.head_block, fs->blk[fs->log.head_block]);
    for (i = 0; i < 4; i++)
        if (fs->health.retire[i] != SFS_NONE && (fs->health.retire[i] & 0x7FFFFFFFu) >= fs->geo.nblocks)
            say(c, 1, "retire list entry %u names unit %u, past the device", i,
                fs->health.retire[i] & 0x7FFFFFFFu);
    if (fs->gc.victim != SFS_NONE && fs->gc.victim >= fs->geo.nblocks)
        say(c, 1, "collection victim %u is past the device", fs->gc.victim);
    /* relocation: a MOVED unit is some record's; a record's unit is MOVED
     * or still closed (its victim in progress, or waiting for trims).  A
     * copy run's unit may be in any state: its copies may all have died
     * since (their pages rewritten), and the unit been emptied, erased and
     * taken again (the running file system does it, torture --fsck: a run
     * naming a LIMBO, FREE, QUEUED or NEXT unit, or a head again).  No
     * dead copy is ever resolved -- only live map words are, and a live
     * word's copy is counted in its unit -- and every copy the map reaches
     * is checked where it lies (sweep_map: a unit that may hold live
     * sectors; check_counts: its unit's count). */
    for (i = 0; i < fs->geo.nblocks; i++)
        if (fs->blk[i] == BS_MOVED) {
            uint32_t k;
            for (k = 0; k < fs->reloc.nrec && fs->reloc.unit[k] != i; k++)
                ;
            if (k == fs->reloc.nrec)
                say(c, 1, "unit %u: relocated (state MOVED) but no relocation record names it", i);
        }
    for (i = 0; i < fs->reloc.nrec; i++) {
        uint8_t s = fs->blk[fs->reloc.unit[i]];
        if (s != BS_MOVED && s > fs->geo.P)
            say(c, 1, "relocation record %u: unit %u has state %u", i, fs->reloc.unit[i], s);
    }
    for (i = 0, heads = 0; i < fs->geo.n_c; i++) {
        if (sfs_bit(fs->chunk.dying, i) && !sfs_bit(fs->chunk.used, i))
            say(c, 1, "chunk %u: dying but not used", i);
        heads += (uint32_t)sfs_bit(fs->chunk.dying, i);
    }
    if (heads != fs->chunk.ndying)
        say(c, 1, "chunks: %u dying in the bitmap, %u counted", heads, fs->chunk.ndying);
    if (!bit(fs->ibm, 1))
        say(c, 1, "inode bitmap: the root (inode 1) is free");
    for (i = fs->cfg.max_inodes; i < ((fs->cfg.max_inodes + 7u) & ~7u); i++)
        if (bit(fs->ibm, i))
            say(c, 1, "inode bitmap: bit %u set beyond max_inodes %u", i, fs->cfg.max_inodes);
    return bad ? -1 : 0;
}

/* 1 if sector ppn (and its tag) reads erased, into c->b1.  Like
 * sfs_rd_erased, but compared with memcmp against itself shifted by one
 * byte: fsck reads every erased sector the log may program next. */
static int erased(fck *c, uint32_t ppn)
{
    steadyfs *fs = c->fs;
    const sbd_geometry *g = &fs->cfg.bd->geo;
    uint32_t n = sfs_stride(fs);
    uint8_t sp[SFS_TAG_SIZE];
    int rc = sfs_rd_raw(fs, ppn, c->b1, sp);
    if (rc < 0 && rc != SBD_ERR_ECC)
        return rc;
    if (c->b1[0] != g->erased_byte || memcmp(c->b1, c->b1 + 1, n - 1u))
        return 0;
    return fs->geo.tag_inline || (sp[0] == g->erased_byte && !memcmp(sp, sp + 1, SFS_TAG_SIZE - 1u));
}

/* Counts found by the sweep against the block table; erased units. */
static void check_counts(fck *c)
{
    steadyfs *fs = c->fs;
    uint32_t b, i, sum = 0;
    for (b = 0; b < fs->geo.nblocks; b++) {
        uint8_t s = fs->blk[b];
        uint32_t hidx = fs->geo.P, hcnt = 0;
        int head = head_of(fs, b, &hidx, &hcnt);
        uint32_t want = head ? hcnt : s <= fs->geo.P ? s : 0;
        int q;
        sum += c->cnt[b];
        if (c->cnt[b] != want) {
            uint32_t shown = 0;
            say(c, 1, "unit %u: block table counts %u live sectors, the map reaches %u", b, want,
                c->cnt[b]);
            /* what the table may be counting: valid sectors nothing reaches */
            for (i = 0; i < fs->geo.P && shown < 8 && c->cnt[b] < want; i++) {
                sfs_tag t;
                if (bit(c->used, b * fs->geo.P + i) || sfs_rd_tag(fs, b * fs->geo.P + i, &t) < 0)
                    continue;
                say(c, 0, "  unit %u index %u: %s key %u seq %U owner %u flags %u, not reached",
                    b, i, kind_name(t.kind), t.key, t.seq, t.owner, t.flags);
                shown++;
            }
        }
        if (!fs->cfg.bd->geo.needs_erase)
            continue;
        /* where the next programs go must read erased (a queued or held
         * unit bad on the device: noted above) */
        q = s == BS_QUEUED || s == BS_NEXT || s == BS_GNEXT || s == BS_CKNEXT;
        if ((s == BS_QUEUED || s == BS_CKNEXT) && dev_bad(fs, b))
            continue;
        for (i = q ? 0 : hidx; i < fs->geo.P; i++) {
            int e = erased(c, b * fs->geo.P + i);
            if (e != 1) {
                say(c, 1, "unit %u index %u: should be erased (%s), is not", b, i,
                    s == BS_QUEUED ? "queued unit" : s == BS_CKNEXT ? "held for the checkpoints" :
                    q ? "a head's next unit" : "after the log head");
                break;
            }
        }
    }
    if (sum != fs->live)
        say(c, 1, "live sectors: checkpoint and log count %u, the map reaches %u", fs->live, sum);
}

/* The current checkpoint unit (on media that erase a pool unit the anchor
 * ring names; without erase, the ring's current unit): checkpoints 0..n-1
 * in sequence, each with a valid payload; after them erased sectors.  A
 * cut while a checkpoint is programmed leaves one bad sector at the end
 * (a valid tag with a bad payload, or a sector neither erased nor valid):
 * mount steps over it, so that one is a note, anything else an error. */
static void check_anchor(fck *c)
{
    steadyfs *fs = c->fs;
    uint32_t a = sfs_ck_pool(fs) ? fs->anchor.unit : sfs_anchor_unit(fs, fs->anchor.cur), i, badp = SFS_NONE;
    uint64_t base = 0;
    sfs_tag t;
    int rc;
    for (i = 0; i < fs->geo.P; i++) {
        rc = sfs_rd_tag(fs, a * fs->geo.P + i, &t);
        if (rc < 0 || (t.kind != TK_CKPT && t.kind != TK_RELOC) || (i && t.seq != base + i))
            break;
        if (!i)
            base = t.seq;
        if (t.kind == TK_RELOC)
            continue;   /* relocation records: checked where a checkpoint names them */
        if (badp != SFS_NONE)
            say(c, 1, "checkpoint in unit %u sector %u: payload damaged", a, badp);
        badp = SFS_NONE;
        rc = sfs_rd_sector(fs, a * fs->geo.P + i, c->b1, &t);
        if (rc < 0) {
            badp = i;   /* an error unless it is the last (torn) one */
            continue;
        }
        if (sfs_get32(c->b1) != 0x31434653u || sfs_get32(c->b1 + 12) != fs->geo.nblocks ||
            sfs_get32(c->b1 + 108) != fs->geo.vol)
            say(c, 1, "checkpoint in unit %u sector %u: header does not match the volume", a, i);
        c->rep->checkpoints++;
    }
    if (badp != SFS_NONE) {
        say(c, 0, "checkpoint unit %u sector %u: newest checkpoint torn or damaged (payload CRC); "
                  "mount uses the one before", a, badp);
        c->rep->notes++;
    }
    if (!i)
        say(c, 1, "checkpoint unit %u: sector 0 is not a valid checkpoint", a);
    if (sfs_ck_pool(fs) && fs->anchor.next_idx) {
        /* the anchor ring's newest pointer: mount reads its tag, whose
         * fields its payload repeats */
        uint32_t r = sfs_anchor_unit(fs, fs->anchor.cur) * fs->geo.P + fs->anchor.next_idx - 1u;
        sfs_tag tp;
        /* (a sector after it torn by a cut is mount's to step over: only
         * a valid pointer tag is checked) */
        if (sfs_rd_tag(fs, r, &tp) >= 0 && tp.kind == TK_PTR &&
            (sfs_rd_sector(fs, r, c->b1, &t) < 0 || sfs_get32(c->b1) != 0x31504653u ||
             sfs_get32(c->b1 + 8) != tp.key || sfs_get32(c->b1 + 12) != tp.aux))
            say(c, 1, "anchor ring sector %u: the newest pointer record's payload is damaged", r);
    }
    if (!fs->cfg.bd->geo.needs_erase)
        return;
    for (; i < fs->geo.P; i++)
        if (erased(c, a * fs->geo.P + i) != 1) {
            uint32_t j = i + 1;
            while (j < fs->geo.P && erased(c, a * fs->geo.P + j) == 1)
                j++;
            if (j == fs->geo.P && badp == SFS_NONE) {
                say(c, 0, "checkpoint unit %u sector %u: torn checkpoint (a write cut by power "
                          "loss, or damage); mount uses the one before", a, i);
                c->rep->notes++;
            } else {
                say(c, 1, "checkpoint unit %u sector %u: neither a checkpoint in sequence nor "
                          "erased", a, i);
            }
            break;
        }
}

/* Verified bucket d of directory dir into c->b1; 0 if empty, 1 loaded,
 * -1 unreadable (already reported by the sweep). */
static int bucket(fck *c, uint32_t dir, uint32_t d)
{
    steadyfs *fs = c->fs;
    uint32_t ppn;
    sfs_tag t;
    if (sfs_lookup(fs, sfs_shared_lpn(fs, dir, 1 + d), 0, &ppn))
        return -1;
    if (ppn == SFS_NONE) {
        memset(c->b1, 0, fs->geo.payload);
        return 0;
    }
    if (ppn >= fs->geo.nblocks * fs->geo.P)
        return -1;
    return sfs_rd_sector(fs, ppn, c->b1, &t) < 0 ? -1 : 1;
}

/* A name of directory `dir` in bucket d at offset o names inode ino. */
static void child(fck *c, uint32_t dir, uint32_t ino, uint8_t type)
{
    steadyfs *fs = c->fs;
    sfs_inode in;
    if (ino < 2 || ino >= fs->cfg.max_inodes) {
        say(c, 1, "directory %u: entry names inode %u, not a valid child", dir, ino);
        return;
    }
    if (!bit(fs->ibm, ino) || !bit(c->imap, ino)) {
        say(c, 1, "directory %u: entry names inode %u, which is free or has no inode sector",
            dir, ino);
        return;
    }
    if (bit(c->iref, ino)) {
        say(c, 1, "inode %u is named by more than one directory entry (again in %u)", ino, dir);
        return;
    }
    setbit(c->iref, ino);
    if (sfs_inode_read(fs, ino, 1, &in, NULL)) {
        say(c, 1, "inode %u: inode sector unreadable", ino);
        return;
    }
    if (in.type != type) {
        say(c, 1, "directory %u: entry type %u for inode %u of type %u", dir, type, ino, in.type);
        return;
    }
    if (type == STEADYFS_TYPE_DIR) {
        if (in.parent != dir)
            say(c, 1, "directory %u: parent field %u, but directory %u names it", ino, in.parent,
                dir);
        return;   /* counted and checked when scanned */
    }
    c->rep->files++;   /* symlinks included */
    if (type == STEADYFS_TYPE_SYMLINK) {
        if (c->maxp[ino])
            say(c, 1, "symlink inode %u: data page %u mapped (its target is in the inode)", ino,
                c->maxp[ino] - 1u);
        return;
    }
    c->rep->bytes += in.size;
    if (c->maxp[ino] > in.size / fs->geo.payload + (in.size % fs->geo.payload != 0))
        say(c, 1, "file inode %u: size %U bytes but data page %u is mapped", ino, in.size,
            c->maxp[ino] - 1u);
}

static void scan_dir(fck *c, uint32_t dir)
{
    steadyfs *fs = c->fs;
    uint32_t dp = fs->cfg.dir_pages, d, k;
    uint8_t ovf[32];
    memset(ovf, 0, sizeof ovf);
    c->rep->dirs++;
    if (c->maxp[dir] > dp)
        say(c, 1, "directory %u: data page %u mapped, it has %u buckets", dir, c->maxp[dir] - 1u,
            dp);
    for (d = 0; d < dp; d++)
        if (bucket(c, dir, d) > 0 && c->b1[4])
            setbit(ovf, d);
    for (d = 0; d < dp; d++) {
        uint32_t n, u, o = SFS_DIR_HDR, i, ph = 0, pi = 0;
        if (bucket(c, dir, d) <= 0)
            continue;
        n = (uint32_t)(c->b1[0] | c->b1[1] << 8);
        u = (uint32_t)(c->b1[2] | c->b1[3] << 8);
        /* (bytes 8-15, the time the entries last changed, may be any) */
        if (u > fs->geo.payload - SFS_DIR_HDR || c->b1[4] > 1 || c->b1[5] || c->b1[6] || c->b1[7]) {
            say(c, 1, "directory %u bucket %u: header invalid (count %u, bytes %u)", dir, d, n, u);
            continue;
        }
        for (i = 0; i < n; i++) {
            uint32_t h, ino, nl;
            if (o + 10u > SFS_DIR_HDR + u || (nl = c->b1[o + 9]) == 0 || o + 10u + nl > SFS_DIR_HDR + u) {
                say(c, 1, "directory %u bucket %u: entry %u runs past the %u bytes used", dir, d,
                    i, u);
                break;
            }
            h = sfs_get32(c->b1 + o);
            ino = sfs_get32(c->b1 + o + 4);
            if (h != sfs_name_hash((const char *)c->b1 + o + 10, nl))
                say(c, 1, "directory %u bucket %u: entry %u hash does not match its name", dir, d, i);
            for (k = 0; k < nl && c->b1[o + 10 + k] && c->b1[o + 10 + k] != '/'; k++)
                ;
            if (k < nl)
                say(c, 1, "directory %u bucket %u: entry %u name contains '/' or NUL", dir, d, i);
            else if (c->b1[o + 10] == '.' && (nl == 1 || (nl == 2 && c->b1[o + 11] == '.')))
                say(c, 1, "directory %u bucket %u: entry %u is named \"%s\" (inode %u): no path "
                          "reaches it", dir, d, i, nl == 1 ? "." : "..", ino);
            if (i && (h < ph || (h == ph && ino <= pi)))
                say(c, 1, "directory %u bucket %u: entry %u out of (hash, inode) order", dir, d, i);
            for (k = h % dp; k != d; k = (k + 1) % dp)
                if (!bit(ovf, k)) {
                    say(c, 1, "directory %u bucket %u: entry %u belongs in bucket %u, which is not "
                              "marked overflowed", dir, d, i, h % dp);
                    break;
                }
            if (c->b1[o + 8] < STEADYFS_TYPE_FILE || c->b1[o + 8] > STEADYFS_TYPE_SYMLINK)
                say(c, 1, "directory %u bucket %u: entry %u has type %u", dir, d, i, c->b1[o + 8]);
            else
                child(c, dir, ino, c->b1[o + 8]);
            ph = h;
            pi = ino;
            o += 10u + nl;
        }
        if (i == n && o != SFS_DIR_HDR + u)
            say(c, 1, "directory %u bucket %u: %u entries use %u bytes, header says %u", dir, d, n,
                o - SFS_DIR_HDR, u);
        for (o = SFS_DIR_HDR + u; i == n && o < fs->geo.payload; o++)
            if (c->b1[o]) {
                say(c, 1, "directory %u bucket %u: bytes after the entries are not zero", dir, d);
                break;
            }
    }
}

/* Page pg of file ino, logical page lpn, as a read takes it (file.c
 * read_page): if mapped, its sector's tag names that file page and that
 * file (or a collection copy that keeps no owner).  A tag whose CRC holds
 * but which names another page or file makes the read fail with EIO, so
 * fsck says so too (the image fuzzer found clean checks where a read
 * failed: an owner byte changed and the tag's CRC made to match, in a
 * chunk's page and in page 0, which the shared table holds). */
static void file_page(fck *c, uint32_t ino, uint32_t pg, uint32_t lpn)
{
    steadyfs *fs = c->fs;
    uint32_t ppn, whose;
    sfs_tag t;
    if (sfs_lookup(fs, lpn, 1, &ppn) || ppn >= SFS_LOST || sfs_rd_tag_in(fs, ppn, &t, 1) < 0 ||
        t.kind != TK_DATA)
        return;   /* (none, or what reach() reported already) */
    whose = sfs_tag_whose(&t);
    if (t.fpage != (uint16_t)pg || (whose != ino && whose != OWNER_GC))
        say(c, 1, "file inode %u: page %u's sector %u names page %u of %u (a read fails there)", ino, pg, ppn,
            t.fpage, whose);
}

/* Every file's chunk list (its inode sector and its pending chunk
 * entries): each chunk listed once, used, not dying; the pages mapped in
 * them extend the file's highest page.  Every used chunk that is not
 * dying belongs to a file. */
static void check_chunks(fck *c)
{
    steadyfs *fs = c->fs;
    uint32_t ino, s, ch, k;
    sfs_inode in;
    for (ino = 1; ino < fs->cfg.max_inodes; ino++) {
        if (!bit(c->imap, ino) || sfs_inode_read(fs, ino, 1, &in, NULL) || in.type != STEADYFS_TYPE_FILE)
            continue;
        if (c->maxp[ino] > 1)
            say(c, 1, "file inode %u: shared-table sector %u mapped (a file has only page 0 there)",
                ino, c->maxp[ino]);
        file_page(c, ino, 0, sfs_shared_lpn(fs, ino, 1));
        sfs_inode_chunks(fs, ino, 0, 0);
        for (s = 0; s < fs->geo.cmax; s++) {
            ch = sfs_list_get(fs, fs->buf, ino, s);
            if (ch == CHUNK_NONE)
                continue;
            if (ch == CHUNK_BAD) {
                say(c, 1, "file inode %u: slot %u's chunk entry fails its check", ino, s);
                continue;
            }
            if (ch >= fs->geo.n_c || !sfs_bit(fs->chunk.used, ch) || sfs_bit(fs->chunk.dying, ch) ||
                bit(c->cown, ch)) {
                say(c, 1, "file inode %u: slot %u lists chunk %u, which is %s", ino, s, ch,
                    ch >= fs->geo.n_c ? "past the last chunk"
                    : !sfs_bit(fs->chunk.used, ch) ? "free"
                    : sfs_bit(fs->chunk.dying, ch) ? "dying" : "listed twice");
                continue;
            }
            setbit(c->cown, ch);
            if (c->cpg[ch] && c->maxp[ino] < s * fs->geo.C + c->cpg[ch])
                c->maxp[ino] = s * fs->geo.C + c->cpg[ch];
            for (k = s ? 0u : 1u; k < fs->geo.C; k++)
                file_page(c, ino, s * fs->geo.C + k, sfs_chunk_lpn(fs, ch, s * fs->geo.C + k));
        }
    }
    for (ch = 0; ch < fs->geo.n_c; ch++)
        if (sfs_bit(fs->chunk.used, ch) && !sfs_bit(fs->chunk.dying, ch) && !bit(c->cown, ch))
            say(c, 1, "chunk %u: used, but no file lists it (%u pages mapped)", ch, c->cpg[ch]);
}

/* The tree from the root: breadth by passes over the inode numbers, so no
 * recursion and no queue; each directory is scanned once. */
static void check_tree(fck *c)
{
    steadyfs *fs = c->fs;
    uint32_t mi = fs->cfg.max_inodes, i;
    int more = 1;
    sfs_inode in;
    for (i = 1; i < mi; i++) {
        if (bit(fs->ibm, i) && !bit(c->imap, i))
            say(c, 1, "inode %u: allocated in the bitmap but has no valid inode sector", i);
        if (c->maxp[i] && !bit(fs->ibm, i))
            say(c, 1, "inode %u: free but %u data pages are mapped", i, c->maxp[i]);
    }
    if (!bit(c->imap, 1) || sfs_inode_read(fs, 1, 1, &in, NULL) || in.type != STEADYFS_TYPE_DIR) {
        say(c, 1, "root directory (inode 1) missing or not a directory");
        return;
    }
    setbit(c->iref, 1);
    while (more) {
        more = 0;
        for (i = 1; i < mi; i++) {
            if (!bit(c->iref, i) || bit(c->iscan, i))
                continue;
            setbit(c->iscan, i);
            if (i != 1 && (sfs_inode_read(fs, i, 1, &in, NULL) || in.type != STEADYFS_TYPE_DIR))
                continue;
            scan_dir(c, i);
            more = 1;
        }
    }
    for (i = 2; i < mi; i++) {
        /* an orphan (an open inode whose name was removed) has no name
         * until it dies; nothing may name it */
        int orphan = sfs_is_orphan(fs, i);
        if (bit(c->imap, i) && !bit(c->iref, i) && !orphan)
            say(c, 1, "inode %u: allocated but no directory reachable from the root names it", i);
        if (orphan && (bit(c->iref, i) || !bit(c->imap, i)))
            say(c, 1, "inode %u: listed as an orphan, but it is %s", i,
                bit(c->iref, i) ? "named by a directory" : "not allocated");
    }
}

static int fck_setup(steadyfs *fs, const steadyfs_config *cfg, uint32_t *parts)
{
    steadyfs_config cc = *cfg;
    uint32_t ib;
    cc.work = NULL;
    if (sfs_setup(fs, &cc))
        return STEADYFS_EINVAL;
    ib = a4((fs->cfg.max_inodes + 7u) / 8u);
    parts[0] = sfs_stride(fs);   /* a sector with its tag where that is not in a spare area */
    parts[1] = a4((fs->geo.nblocks * fs->geo.P + 7u) / 8u);
    parts[2] = a4(fs->geo.nblocks);
    parts[3] = 4u * fs->cfg.max_inodes;
    parts[4] = ib;
    parts[5] = a4(fs->geo.n_c);
    parts[6] = a4((fs->geo.n_c + 7u) / 8u);
    return 0;
}

uint32_t steadyfs_fsck_work_size(const steadyfs_config *cfg)
{
    steadyfs tmp;
    uint32_t p[7];
    if (!cfg || fck_setup(&tmp, cfg, p))
        return 0;
    return 2u * a4(p[0]) + p[1] + p[2] + p[3] + 3u * p[4] + p[5] + p[6];
}

/* The record ring (format 15): every record its span holds is either
 * committed with every sector's checksum good, or absent (a cut stopped
 * its append, or its unit went bad: ENOENT); a committed record whose data
 * fails its checksums is an error. */
static void check_ring(fck *c)
{
    steadyfs *fs = c->fs;
    uint64_t first, next, n;
    uint32_t lost = 0;
    if (!fs->ring || steadyfs_ring_span(fs, &first, &next))
        return;
    for (n = first; n < next; n++) {
        int32_t rc = steadyfs_ring_read(fs, n, NULL, 0);
        if (rc == STEADYFS_ENOENT)
            lost++;
        else if (rc < 0)
            say(c, 1, "ring record %U: %s", n, steadyfs_strerror(rc));
    }
    if (lost)
        say(c, 0, "ring: %u of records %U .. %U absent (appends a power cut stopped, units "
                  "gone bad)", lost, first, next);
}

int steadyfs_fsck(steadyfs *fs, const steadyfs_config *cfg, void *work, uint32_t work_size,
                  steadyfs_fsck_cb cb, void *ctx, steadyfs_fsck_report *rep)
{
    fck c;
    uint32_t p[7], need;
    uint8_t *w = work;
    int rc;
    if (!fs || !cfg || !rep)
        return STEADYFS_EINVAL;
    memset(rep, 0, sizeof *rep);
    need = steadyfs_fsck_work_size(cfg);
    if (!need || !work || work_size < need || fck_setup(fs, cfg, p))
        return STEADYFS_EINVAL;
    memset(work, 0, need);
    c.fs = fs;
    c.rep = rep;
    c.cb = cb;
    c.ctx = ctx;
    c.b2 = w;
    w += a4(p[0]);
    c.b1 = w;
    w += a4(p[0]);
    c.used = w;
    w += p[1];
    c.cnt = w;
    w += p[2];
    c.maxp = (uint32_t *)(void *)w;
    w += p[3];
    c.imap = w;
    c.iref = w + p[4];
    c.iscan = w + 2u * p[4];
    w += 3u * p[4];
    c.cpg = w;
    c.cown = w + p[5];
    rc = steadyfs_mount(fs, cfg);
    if (rc) {
        say(&c, 1, "cannot mount: %s (no valid checkpoint, or one that does not match the "
                   "configuration)", steadyfs_strerror(rc));
        return rc;
    }
    check_anchor(&c);
    if (check_state(&c) == 0) {
        sweep_map(&c);
        check_counts(&c);
        check_chunks(&c);
        check_tree(&c);
    } else {
        say(&c, 1, "checkpoint state out of range: map and tree not checked");
    }
    check_ring(&c);
    fs->mounted = 0;   /* nothing was opened or written */
    return (int)(rep->errors > 0x7FFFFFFFu ? 0x7FFFFFFFu : rep->errors);
}

int steadyfs_probe(steadyfs *fs, steadyfs_config *cfg)
{
    steadyfs_config cc;
    uint32_t a, i, n;
    sfs_tag t;
    int rc = STEADYFS_ECORRUPT;
    if (!fs || !cfg || !cfg->sector_buf)
        return STEADYFS_EINVAL;
    cc = *cfg;
    cc.work = NULL;
    cc.max_inodes = 0;
    cc.file_pages_log2 = 0;
    cc.dir_pages = 0;
    cc.ring_units = 0;   /* (the anchors are counted on the whole device) */
    cc.ring_sectors = 0;
    if (sfs_setup(fs, &cc) || (cfg->sector_buf_size ? cfg->sector_buf_size : fs->geo.sector_size) < sfs_stride(fs))
        return STEADYFS_EINVAL;
    fs->buf = cfg->sector_buf;
    /* the anchors: the first sfs_anchors good units of the anchor area;
     * every checkpoint of a format carries the same format fields */
    for (a = 0, n = 0; a < sfs_reserved(fs) && n < fs->geo.anchors; a++) {
        uint32_t k, bad = 0;
        for (k = 0; k < fs->geo.dev_per_block; k++)
            bad |= sbd_is_bad(cfg->bd, a * fs->geo.dev_per_block + k) > 0;
        if (bad)
            continue;
        n++;
        for (i = 0; i < fs->geo.P; i++) {
            const uint8_t *b = fs->buf;
            uint32_t at = a * fs->geo.P + i;
            /* (media that erase: a pointer names the unit checkpoints went
             * to; any of them will do) */
            if (sfs_rd_tag(fs, at, &t) >= 0 && t.kind == TK_PTR && t.key < fs->geo.nblocks) {
                uint32_t u = t.key;
                for (k = 0; k < fs->geo.P; k++)
                    if (sfs_rd_tag(fs, u * fs->geo.P + k, &t) >= 0 && t.kind == TK_CKPT) {
                        at = u * fs->geo.P + k;
                        break;
                    }
            }
            if (sfs_rd_sector(fs, at, fs->buf, &t) < 0 || t.kind != TK_CKPT ||
                sfs_get32(b) != 0x31434653u || sfs_get32(b + 20) != fs->geo.sector_size ||
                sfs_get32(b + 100) != fs->geo.dev_per_block)
                continue;
            if (sfs_get32(b + 4) != SFS_CKPT_VERSION) {
                rc = STEADYFS_EFORMAT;
                continue;
            }
            cfg->sector_size = fs->geo.sector_size;
            cfg->erase_mult = fs->geo.dev_per_block;
            cfg->max_inodes = (uint16_t)(b[24] | b[25] << 8);
            cfg->file_pages_log2 = b[26];
            cfg->dir_pages = b[27];
            cfg->fill_permille = (uint16_t)(b[28] | b[29] << 8);
            cfg->ring_units = (uint16_t)(b[144] | b[145] << 8);
            cfg->ring_sectors = (uint16_t)(b[146] | b[147] << 8);
            return 0;
        }
    }
    return rc;
}
