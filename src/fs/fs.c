/* Configuration, format, mount, unmount and info. */
#include "fs/fs_internal.h"


static uint32_t log2u(uint32_t v)
{
    uint32_t r = 0;
    while (v > 1) {
        v >>= 1;
        r++;
    }
    return r;
}


/* Bytes of a checkpoint with mi inodes: header, block table, L2 roots,
 * pending table, inode bitmap, the chunks' used and dying bitmaps (SPEC §7).
 * Geometry of the dense logical space with mi inodes into fs->geo. */
static uint32_t ckpt_bytes(steadyfs *fs, uint32_t mi)
{
    uint32_t live = (uint32_t)((uint64_t)fs->cfg.fill_permille *
                               (fs->geo.nblocks > sfs_reserved(fs) + SFS_GC_RESERVE
                                    ? fs->geo.nblocks - sfs_reserved(fs) - SFS_GC_RESERVE : 0) *
                               fs->geo.P / 1000u);
    uint32_t d;
    /* a file of pages 1.. in chunks of C: its chunk list (u16 each, after
     * the inode header) can hold all the live data */
    fs->geo.cmax = (fs->geo.payload - SFS_INODE_HDR) / 2u;
    for (fs->geo.C = 8; fs->geo.C < fs->geo.e1 && (uint64_t)fs->geo.cmax * fs->geo.C < live; fs->geo.C *= 2)
        ;
    fs->geo.S = 2;
    while (fs->geo.S < 1u + fs->cfg.dir_pages)
        fs->geo.S *= 2;
    /* every file with a page >= 1 may leave most of a chunk unused */
    fs->geo.n_c = (live + fs->geo.C - 1) / fs->geo.C + mi;
    fs->geo.cbase = fs->geo.S * mi;
    d = fs->geo.cbase + fs->geo.n_c * fs->geo.C;
    fs->geo.n_l1 = (d + fs->geo.e1 - 1) / fs->geo.e1;
    fs->geo.n_l2 = (fs->geo.n_l1 + fs->geo.e1 - 1) / fs->geo.e1;
    fs->geo.maxpg = fs->geo.cmax * fs->geo.C;
    /* a cycle of R records costs n_l1 sweep steps: ~4 per record, at most
     * SFS_RELOC_RECS records (and units held) at a time */
    fs->geo.R = fs->geo.n_l1 / 4u;
    if (fs->geo.R < 1u)
        fs->geo.R = 1u;
    if (fs->geo.R > SFS_RELOC_RECS)
        fs->geo.R = SFS_RELOC_RECS;
    if (fs->cfg.file_pages_log2 && fs->cfg.file_pages_log2 < 31 && fs->geo.maxpg > (1u << fs->cfg.file_pages_log2))
        fs->geo.maxpg = 1u << fs->cfg.file_pages_log2;
    return SFS_CKPT_HDR + fs->geo.nblocks + 4 * fs->geo.n_l2 + SFS_PEND_SIZE * fs->cfg.pending_max +
           (mi + 7u) / 8u + 2u * ((fs->geo.n_c + 7u) / 8u) + sfs_ring_map_bytes(&fs->cfg);
}

/* The work area's tables from w on (NULL: none, only their size), one
 * layout for steadyfs_work_size and the placing alike: its bytes. */
static uint32_t place(steadyfs *fs, uint8_t *w)
{
    uint32_t off = 0;
    fs->open = sfs_carve(w, &off, sizeof(struct sfs_open) * fs->cfg.open_max);   /* 8-aligned first */
    fs->chunk_win = sfs_carve(w, &off, 2u * fs->geo.cwin * fs->cfg.open_max);
    fs->pend = sfs_carve(w, &off, sizeof(struct sfs_pend) * fs->cfg.pending_max);
    fs->root = sfs_carve(w, &off, 4 * fs->geo.n_l2);
    fs->blk = sfs_carve(w, &off, fs->geo.nblocks);
    fs->chunk.used = sfs_carve(w, &off, (fs->geo.n_c + 7u) / 8u);
    fs->chunk.dying = sfs_carve(w, &off, (fs->geo.n_c + 7u) / 8u);
    fs->ibm = sfs_carve(w, &off, (fs->cfg.max_inodes + 7u) / 8u);
    /* on media without erase a sector's bit says it may be live (log.c) */
    if (STEADYFS_ERASELESS_MEDIA && !fs->cfg.bd->geo.needs_erase)
        fs->maybe_live = sfs_carve(w, &off, (fs->geo.nblocks * fs->geo.P + 7u) / 8u);
    sfs_reloc_place(fs, w, &off);
    sfs_ring_place(fs, w, &off);
    return off;
}

int sfs_setup(steadyfs *fs, const steadyfs_config *cfg)
{
    const sbd_geometry *g;
    uint32_t dsize, bbytes, cb, stride;
    int beside, bytewise;
    if (!fs || !cfg || !cfg->bd || !cfg->bd->ops)
        return STEADYFS_EINVAL;
    memset(fs, 0, sizeof *fs);
    sfs_budget_void(fs);
    sfs_cache_drop(fs);
    fs->anchor.unit = fs->anchor.spare = fs->anchor.keep = fs->anchor.cut_short = SFS_NO_UNIT;
    fs->anchor.last = fs->anchor.keep_last = SFS_NO_SECTOR;
    fs->cfg = *cfg;
    g = &cfg->bd->geo;
    if (!STEADYFS_ERASELESS_MEDIA && !g->needs_erase)
        return STEADYFS_EINVAL;   /* a build without that code (steadyfs.h) */
    if (!fs->cfg.open_max)
        fs->cfg.open_max = 4;
    /* byte-addressable media without erase (MRAM): a checkpoint or a map
     * merge costs as much as a data sector there, and a tag read at mount
     * a twentieth of one, so the defaults keep more changes in the
     * pending table and replay more sectors (DESIGN.md §9) */
    bytewise = !g->needs_erase && g->read_size == 1u && g->prog_size == 1u;
    if (!fs->cfg.pending_max)
        fs->cfg.pending_max = bytewise ? 64 : 32;
    if (!fs->cfg.replay_max)
        /* a head move checkpoints too, so a unit of 64 sectors costs
         * ceil(64 / R) checkpoints: 4 at R = 16..21, 3 from R = 22 (one
         * program less per 64 sectors of a log, 0.9 % of log4k's time);
         * mount's replay bound, one tag read per sector, is what R = 16
         * cost with two */
        fs->cfg.replay_max = bytewise ? 64 : 22;
    /* a chunk lookup (an inode sector's small read) costs a fifth of a 4 KiB
     * write there, so a random writer's whole 1 MiB file is in the window
     * (112 B more a handle); on NAND any read costs a page read and the 8
     * slots a log needs keep its RAM */
    fs->geo.cwin = bytewise ? SFS_CWIN_MAX : SFS_CWIN;
    if (!fs->cfg.fill_permille)
        fs->cfg.fill_permille = 750;
    if (!fs->cfg.dir_pages)
        fs->cfg.dir_pages = 8;
    /* (a page over 2048 bytes is the sector: a NAND page of 4 KiB must
     * be programmed whole, with its tag in its spare area) */
    if (!fs->cfg.sector_size)
        fs->cfg.sector_size = g->page_size > 2048u ? g->page_size : 2048u;
    /* erase unit: the device block on NAND, the 64 KiB sector on NOR (far
     * cheaper per byte than 4 KiB subsectors), 64 KiB without erase */
    if (!fs->cfg.erase_mult) {
        uint32_t db = g->page_size * g->pages_per_block;
        fs->cfg.erase_mult = g->spare_size >= SFS_TAG_SIZE ? 1u
                           : g->needs_erase ? (g->big_erase_blocks ? g->big_erase_blocks : 1u)
                           : (db >= 65536u ? 1u : 65536u / db);
    }
    fs->geo.sector_size = fs->cfg.sector_size;
    if (!g->page_size || fs->geo.sector_size % g->page_size || fs->geo.sector_size < 512 ||
        fs->cfg.pending_max < 8 || fs->cfg.fill_permille > 950 || fs->cfg.max_inodes > 0xFFF0u)
        return STEADYFS_EINVAL;
    fs->geo.tag_inline = !(g->spare_size >= SFS_TAG_SIZE && fs->geo.sector_size == g->page_size);
    /* Without a spare area the tag goes beside the sector where the medium
     * reads and programs in units that divide it (NOR, MRAM: byte units):
     * the payload is the whole sector, so a 4 KiB record fills two sectors
     * exactly (inside the sector it spilled into a third, which the next
     * record programmed again: 3.3-3.6 data sectors a record).  A medium
     * with larger units (an SD card's 512 bytes) keeps it inside. */
    dsize = g->page_size * g->pages_per_block;
    fs->geo.dev_per_block = fs->cfg.erase_mult;
    bbytes = dsize * fs->geo.dev_per_block;
    /* (and where a unit still holds 8 such sectors: 16 KiB NOR units keep
     * the tag inside, 8 sectors of 2048) */
    stride = fs->geo.sector_size + SFS_TAG_SIZE;
    beside = fs->geo.tag_inline && g->prog_size && g->read_size && SFS_TAG_SIZE % g->prog_size == 0 &&
             SFS_TAG_SIZE % g->read_size == 0 && bbytes / stride >= 8u;
    fs->geo.payload = fs->geo.sector_size;
    if (!beside) {
        stride = fs->geo.sector_size;
        if (fs->geo.tag_inline)
            fs->geo.payload -= SFS_TAG_SIZE;
        if (bbytes % stride)
            return STEADYFS_EINVAL;
    }
    fs->geo.P = bbytes / stride;   /* (beside: the unit's tail is not used) */
    fs->geo.nblocks = g->block_count / fs->geo.dev_per_block;
    /* the anchor ring: two units (fs_internal.h sfs_anchors; on media
     * that erase it holds pointers to the pool unit the checkpoints go
     * to, written once a unit of checkpoints); at the device's start, so
     * that probe finds it without knowing the record ring's size */
    fs->geo.anchors = 2u;
    /* the record ring's units are the device's last ones: the log's units
     * (geo.nblocks) end where it begins (ring.c) */
    if (!STEADYFS_WITH_HOLD && fs->cfg.hold_buf)
        return STEADYFS_EINVAL;   /* (a build without the held sector: steadyfs.h) */
    if (fs->cfg.ring_units) {
        if (!STEADYFS_WITH_RING)
            return STEADYFS_EINVAL;   /* (a build without the ring: steadyfs.h) */
        if (!fs->cfg.ring_sectors)
            fs->cfg.ring_sectors = 1;
        if (fs->cfg.ring_units < 2u || fs->cfg.ring_units >= fs->geo.nblocks ||
            fs->cfg.ring_sectors > fs->geo.P)
            return STEADYFS_EINVAL;
        fs->geo.nblocks -= fs->cfg.ring_units;
    } else if (fs->cfg.ring_sectors) {
        return STEADYFS_EINVAL;
    }
    if (fs->geo.P < 8 || fs->geo.P > 128 || fs->geo.nblocks < sfs_reserved(fs) + SFS_GC_RESERVE + 4)
        return STEADYFS_EINVAL;
    fs->geo.e1 = 1u << log2u(fs->geo.payload / 4u);
    if (!fs->cfg.max_inodes) {
        /* the most inodes (up to 1024) whose checkpoint still fits a sector */
        uint32_t mi = 1024;
        while (mi > 16 && ckpt_bytes(fs, mi) > fs->geo.payload)
            mi /= 2;
        fs->cfg.max_inodes = (uint16_t)mi;
    }
    if (fs->cfg.max_inodes < 4 || fs->cfg.dir_pages < 1 || fs->cfg.dir_pages > 15)
        return STEADYFS_EINVAL;
    cb = ckpt_bytes(fs, fs->cfg.max_inodes);   /* (sets the geometry) */
    if (cb > fs->geo.payload || fs->geo.n_c >= CHUNK_NONE)
        return STEADYFS_EINVAL;   /* checkpoint must fit one sector */
    fs->geo.txn_max = (fs->cfg.pending_max - 8u) / fs->cfg.open_max;
    /* On NAND the open files' transactions (txn_max + 1 entries each at
     * most: a write commits before a sector once txn_max are reached)
     * leave a quarter of the table and 4 entries to committed changes, so
     * a make-room round that merges the L2 sector takes at least K / 4 of
     * them (steadyfs_bound's q, DESIGN.md §7): mt29f1g01's write_4096_sync
     * is stated 398.9 ms in worst timing instead of 460.1 (19 entries, not
     * 24).  Not on NOR and MRAM, whose bounds are not issue 12's: there the
     * fill's earlier commits moved the records' erases and housekeeping
     * (mt25q128 log4k 12 -> 15 KiB at 100 kB/s, one em064lx random4k seed
     * over 0.2 ms). */
    if (!fs->geo.tag_inline) {
        /* (not below 2: eight open files keep (K - 8) / 8 = 3) */
        uint32_t k = fs->cfg.pending_max, most = (k - k / 4u - 4u) / fs->cfg.open_max;
        if (most >= 3u && fs->geo.txn_max > most - 1u)
            fs->geo.txn_max = most - 1u;
    }
    if (fs->geo.txn_max < 1)
        return STEADYFS_EINVAL;
    /* the orphan list follows the inode bitmap in the checkpoint (its
     * count, then one u16 each): what room the sector has left, at most
     * SFS_ORPHAN_CAP; none if inode numbers need the held bit */
    fs->geo.orphan_max = 0;
    if (cb + 4u <= fs->geo.payload && fs->cfg.max_inodes <= 0x8000u)
        fs->geo.orphan_max = (fs->geo.payload - cb - 2u) / 2u;
    if (fs->geo.orphan_max > SFS_ORPHAN_CAP)
        fs->geo.orphan_max = SFS_ORPHAN_CAP;
    fs->orphans.n = 0;
    if (cfg->work) {
        uint32_t n = place(fs, cfg->work);
        if (cfg->work_size < n || ((uintptr_t)cfg->work & 7u) || !cfg->sector_buf ||
            (cfg->sector_buf_size ? cfg->sector_buf_size : fs->geo.sector_size) < sfs_stride(fs))
            return STEADYFS_EINVAL;
        fs->buf = cfg->sector_buf;
        memset(cfg->work, 0, n);
        sfs_ring_reset(fs);
        if (fs->maybe_live)   /* what mount finds may be live until it dies */
            memset(fs->maybe_live, 0xFF, (fs->geo.nblocks * fs->geo.P + 7u) / 8u);
    }
    fs->log.head_block = SFS_NONE;
    fs->log.gh_block = SFS_NONE;
    fs->log.thread_next = SFS_NONE;
    fs->log.gh_idx = fs->geo.P;
    fs->gc.victim = SFS_NONE;
    fs->gc.waiting = SFS_NONE;
    fs->gc.wl_victim = SFS_NONE;
    fs->gc.low = SFS_Q_TARGET + 3;
    fs->health.retire[0] = fs->health.retire[1] = fs->health.retire[2] = fs->health.retire[3] = SFS_NONE;
    return 0;
}

/* The geometry cfg gives, without a work area (both sizes below). */
static int dry_setup(steadyfs *tmp, const steadyfs_config *cfg)
{
    steadyfs_config c;
    if (!cfg)
        return STEADYFS_EINVAL;
    c = *cfg;
    c.work = NULL;
    return sfs_setup(tmp, &c);
}

uint32_t steadyfs_work_size(const steadyfs_config *cfg)
{
    steadyfs tmp;
    return dry_setup(&tmp, cfg) ? 0 : place(&tmp, NULL);
}

uint32_t steadyfs_sector_buf_size(const steadyfs_config *cfg)
{
    steadyfs tmp;
    return dry_setup(&tmp, cfg) ? 0 : sfs_stride(&tmp);
}

static int block_bad(steadyfs *fs, uint32_t b)
{
    uint32_t i;
    for (i = 0; i < fs->geo.dev_per_block; i++)
        if (sbd_is_bad(fs->cfg.bd, b * fs->geo.dev_per_block + i) > 0)
            return 1;
    return 0;
}

static int find_anchors(steadyfs *fs)
{
    uint32_t b, n = 0;
    fs->anchor.bad = 0;
    for (b = 0; b < sfs_reserved(fs); b++) {
        if (block_bad(fs, b))
            fs->anchor.bad |= 1u << b;
        else
            n++;
    }
    return n >= 2u ? 0 : STEADYFS_EIO;   /* (fewer than geo.anchors: a shorter ring) */
}

/* Garbage-collection pace from the fill limit (DESIGN.md §6): with at most
 * v live sectors per closed unit on average, the greedy victim has at most
 * v, so 33 (P + sw) / (32 (P - v - sw)) steps per written sector (in
 * 1/SFS_PACE_ONE steps, rounded up) --
 * a victim's P sectors examined and its record's sw sweep steps -- free
 * space as fast as writes use it, the static wear-levelling copy (one per
 * SFS_WL_STEP = 32 sectors written) included. */
uint32_t sfs_pace_steps(const steadyfs *fs, uint32_t usable, uint32_t live_max)
{
    /* the units relocated victims hold until their records retire (R + 1)
     * are not in the pool collection picks from */
    uint32_t held = SFS_GC_RESERVE + fs->geo.R + 1u;
    uint32_t closed = usable > held ? usable - held : 1;
    uint32_t v = live_max / closed, sw = sfs_sweep_per_record(fs), net;
    if (v >= fs->geo.P)
        v = fs->geo.P - 1;
    /* a victim: P sectors examined and sw sweep steps free P - v - sw
     * sectors (each sweep step may program one) */
    net = fs->geo.P > v + sw ? fs->geo.P - v - sw : 1u;
    return (SFS_PACE_ONE * (SFS_WL_STEP + 1u) * (fs->geo.P + sw) + SFS_WL_STEP * net - 1) / (SFS_WL_STEP * net);
}

static void derive(steadyfs *fs)
{
    fs->gc.pace = sfs_pace_steps(fs, fs->geo.usable, fs->live_max);
    fs->gc.pace_carry = 0;
}

int steadyfs_format(steadyfs *fs, const steadyfs_config *cfg)
{
    uint32_t b, vol = 0x5EED0001u;
    sfs_tag t;
    struct sfs_where root;
    uint64_t aseq = 1;
    int rc = sfs_setup(fs, cfg);
    if (rc)
        return rc;
    if (!cfg->work)
        return STEADYFS_EINVAL;
    rc = find_anchors(fs);
    if (rc)
        return rc;
    /* an earlier file system's anchors: continue its numbering so that
     * nothing it left behind can pass for ours */
    for (b = 0; b < sfs_anchors(fs); b++) {
        uint32_t i;
        for (i = 0; i < fs->geo.P; i++) {
            if (sfs_rd_sector(fs, sfs_anchor_unit(fs, b) * fs->geo.P + i, fs->buf, &t) < 0 ||
                (t.kind != TK_CKPT && t.kind != TK_PTR))
                continue;
            /* (a pointer's unit numbers its sectors on from its seq + 1) */
            if (t.seq + 2u * fs->geo.P + 2u > aseq)
                aseq = t.seq + 2u * fs->geo.P + 2u;
            if (sfs_get32(fs->buf + (t.kind == TK_PTR ? 24 : 108)) + 1 > vol)
                vol = sfs_get32(fs->buf + (t.kind == TK_PTR ? 24 : 108)) + 1;
        }
    }
    fs->dead = 0;
    fs->geo.vol = vol;
    fs->anchor.seq = aseq;
    sfs_reloc_reset(fs);
    for (b = 0; b < fs->geo.nblocks; b++) {
        if (b < sfs_reserved(fs))
            fs->blk[b] = BS_RESERVED;
        else if (block_bad(fs, b))
            fs->blk[b] = BS_BAD;
        else {
            fs->blk[b] = BS_FREE;
            fs->log.nfree++;
            fs->geo.usable++;
        }
    }
    /* the checkpoints' unit and the one the log keeps for their next
     * switch are not the pool's (they come and go back in turn:
     * SFS_CK_UNITS) */
    if (sfs_ck_pool(fs))
        fs->geo.usable = fs->geo.usable > SFS_CK_UNITS ? fs->geo.usable - SFS_CK_UNITS : 0;
    fs->live_max = sfs_live_limit(fs);
    for (b = 0; b < fs->geo.n_l2; b++)
        fs->root[b] = SFS_NONE;
    for (b = 0; b < sfs_anchors(fs);) {
        uint32_t u = sfs_anchor_unit(fs, b);
        rc = sfs_erase(fs, u);
        if (rc == SFS_EFAIL) {
            /* gone bad, unmarked: marked now and out of the ring, as mount
             * will find it (the next good unit takes its slot) */
            if (sbd_mark_bad(fs->cfg.bd, u * fs->geo.dev_per_block) < 0 || find_anchors(fs))
                return STEADYFS_EIO;
            continue;
        }
        if (rc)
            return rc;
        b++;
    }
    rc = sfs_ring_format(fs);   /* (its bad units go into the first checkpoint) */
    if (rc)
        return rc;
    fs->anchor.cur = 0;
    fs->anchor.next_idx = 0;
    fs->log.seq = 1;
    fs->log.head_idx = fs->geo.P;
    fs->log.alloc_cursor = sfs_reserved(fs);
    fs->mounted = 1;
    fs->log.erase_budget = 4;
    fs->ibm[0] = 0x03;   /* 0 invalid, 1 root */
    /* the root directory: generation 1 (log.seq), mode 0755, its own parent */
    memset(&root, 0, sizeof root);
    root.parent = 1;
    rc = sfs_create(fs, &root, STEADYFS_TYPE_DIR, NULL, NULL, 0);
    if (!rc)
        rc = sfs_ckpt_write(fs);
    fs->mounted = 0;
    return rc;
}

int steadyfs_mount(steadyfs *fs, const steadyfs_config *cfg)
{
    int rc = sfs_setup(fs, cfg);
    if (rc)
        return rc;
    if (!cfg->work)
        return STEADYFS_EINVAL;
    sfs_budget_arm(fs, STEADYFS_CALL_MOUNT, 0);
    rc = find_anchors(fs);
    if (!rc)
        rc = sfs_ckpt_mount(fs);
    if (!rc)
        rc = sfs_ring_mount(fs);
    sfs_budget_check(fs);
    if (rc) {
        fs->mounted = 0;
        return rc == STEADYFS_EINVAL || rc == STEADYFS_EIO || rc == STEADYFS_EFORMAT
                   ? rc : STEADYFS_ECORRUPT;
    }
    derive(fs);
    /* a victim in progress keeps the full pace: its count when chosen is
     * not in the checkpoint (DESIGN.md §6) */
    fs->gc.c0 = fs->geo.P;
    fs->mounted = 1;
    return 0;
}

int steadyfs_unmount(steadyfs *fs)
{
    uint32_t i;
    int rc = 0, r2 = 0;
    if (!fs || !fs->mounted)
        return STEADYFS_EINVAL;
    for (i = 0; i < fs->cfg.open_max; i++) {
        if (fs->open[i].ino && fs->open[i].kind == STEADYFS_TYPE_FILE) {
            r2 = steadyfs_close(fs, (int)i);
            if (r2 && !rc)
                rc = r2;
        }
        fs->open[i].ino = 0;
    }
    /* no handle is left: removed directories still open and the orphans a
     * cut left behind die now; a deleted file's counts still settling
     * (DESIGN.md §5) are settled and checkpointed, so the next mount
     * (steady df after steady rm) shows its space free */
    sfs_orphan_release(fs, 0);
    if (!fs->dead && (r2 = sfs_begin(fs, 1)) == 0) {
        sfs_budget_arm(fs, STEADYFS_CALL_UNMOUNT, 0);
        while ((r2 = sfs_reap(fs, 0, 0)) > 0)
            ;
        /* dying chunks are trimmed, and the last trim checkpointed, so
         * the next mount (steady df after steady rm) shows the space free */
        fs->chunk.steps = fs->chunk.ndying;   /* each frees at least one chunk */
        while (!r2 && fs->chunk.ndying && (r2 = sfs_trim_step(fs, fs->rm)) > 0)
            r2 = sfs_ckpt_write(fs);
        /* and the log's last sector is followed by a checkpoint: replay
         * takes an unreadable last sector for a program the cut tore
         * (ckpt.c followed), so a commit left last in the log whose page
         * goes bad while the device is off would be undone -- its file
         * back at its previous version, with no error (DESIGN.md §6).
         * (Only where this mount programmed the log: a mount that only
         * read, steady fsck's or ls's, leaves the media as they were.) */
        if (!r2 && fs->log.since_ckpt)
            r2 = sfs_ckpt_write(fs);
        r2 = sfs_end(fs, r2);
    }
    if (r2 < 0 && !rc)
        rc = r2;
    fs->mounted = 0;
    return fs->dead ? STEADYFS_EIO : rc;
}

int steadyfs_info_get(steadyfs *fs, steadyfs_info *info)
{
    int rc = sfs_begin(fs, 0);
    if (rc)
        return rc;
    memset(info, 0, sizeof *info);
    info->capacity = (uint64_t)fs->live_max * fs->geo.payload;
    info->used = (uint64_t)sfs_live_charged(fs) * fs->geo.payload;
    info->free = info->capacity > info->used ? info->capacity - info->used : 0;
    info->sector_size = fs->geo.sector_size;
    info->data_per_sector = fs->geo.payload;
    info->block_sectors = fs->geo.P;
    info->blocks = fs->geo.nblocks;
    info->txn_sectors = fs->geo.txn_max;
    info->gc_ratio = sfs_pace_whole(fs->gc.pace);
    return 0;
}
