/*
 * steadyfs: a power-loss-safe flash file system with a stated worst-case
 * cost for every call.  This header is the manual.  docs/DESIGN.md says how
 * it works and why; docs/SPEC.md gives the exact on-media format.
 *
 * ---------------------------------------------------------------------------
 * Using it
 *   steadyfs fs;                          // the context (fixed size)
 *   static uint8_t work[...];             // steadyfs_work_size(&cfg) bytes
 *   static uint8_t sector[2048];          // one sector buffer (2080 on NOR, MRAM)
 *   steadyfs_config cfg = { .bd = &dev.bd, .work = work,
 *                           .work_size = sizeof work, .sector_buf = sector,
 *                           .sector_buf_size = sizeof sector };
 *   steadyfs_format(&fs, &cfg);           // once, destroys the device
 *   steadyfs_mount(&fs, &cfg);
 *   int fd = steadyfs_open(&fs, "/log/a.bin", STEADYFS_O_WRONLY |
 *                          STEADYFS_O_CREAT | STEADYFS_O_APPEND);
 *   steadyfs_write(&fs, fd, buf, 4096);
 *   steadyfs_sync(&fs, fd);               // durable, atomically
 *   // (or open with STEADYFS_O_DSYNC: each write is durable on return, in
 *   //  two sector programs for 4 KiB on NAND instead of three)
 *   steadyfs_close(&fs, fd);
 *   steadyfs_unmount(&fs);
 *
 *   // A logger's records, at the raw device's own worst case whatever the
 *   // files do: format with a record ring ("The record ring" below)
 *   cfg.ring_units = 64;                  // the device's last 64 erase units
 *   cfg.ring_sectors = 2;                 // 4 KiB records on a 2 KiB sector
 *   uint64_t n;
 *   steadyfs_ring_append(&fs, rec, 4096, &n);   // durable on return
 *   steadyfs_ring_read(&fs, n, buf, sizeof buf);
 *
 * Memory.  No malloc.  The caller provides the context `steadyfs` (its size
 * is sizeof(steadyfs)), one sector buffer of steadyfs_sector_buf_size(cfg)
 * bytes (sector_size on NAND, sector_size + 32 on NOR and MRAM, where the
 * sector's 32-byte tag is programmed beside it) and a work area of
 * steadyfs_work_size(cfg) bytes:
 *
 *   work = (64 + 2 * W) * open_max         open files and directories
 *        + 16 * pending_max                pending map changes
 *        + 4 * n_l2                        map roots
 *        + nblocks                         block table: 1 byte per erase unit
 *        + 2 * ceil(n_c / 8)               chunks: used and dying bitmaps
 *        + ceil(max_inodes / 8)            inode allocation bitmap
 *        + (R + 4) * (6 + ceil(P / 8))     relocation records (unit, the
 *                                          copy count before it, a bitmap;
 *                                          R = min(n_l1 / 4, 34), at least 1)
 *        + 4 * (44 + replay_max)           copy runs (unit, first, count)
 *        + ceil(n_l1 / 8)                  the sweep's dirty L1 bits
 *        + ceil(nblocks * P / 8)           maybe-live bits (media without
 *                                          erase only)
 *        + 24 + ceil(ring_units / 8)       the record ring (with one; 8-aligned)
 *   and, optionally, the held sector's sector_size bytes (cfg.hold_buf).
 *   each term rounded up to 4.  The dense logical space (docs/SPEC.md §3):
 *   P    = sectors per erase unit; E = largest power of two <= sector
 *          payload / 4 (512 on NAND);
 *   live = fill_permille / 1000 * (nblocks - (A + 2) - 6) * P, A = 2
 *          the anchor ring's units (docs/SPEC.md §9);
 *   C    = chunk size, the smallest power of two >= 8 with
 *          (payload - 64) / 2 * C >= live;
 *   S    = smallest power of two >= 1 + dir_pages (2 at least);
 *   n_c  = ceil(live / C) + max_inodes,
 *   n_l1 = ceil((S * max_inodes + C * n_c) / E), n_l2 = ceil(n_l1 / E).
 *   nblocks = the erase units less ring_units (the log's units).
 *   The default max_inodes is the largest power of two <= 1024 whose
 *   checkpoint (148 + nblocks + 4 n_l2 + 16 pending_max + max_inodes / 8
 *   + 2 n_c / 8 + ring_units / 8 bytes) fits one sector payload: 256 on a
 *   full mt29f1g01 (512 with a ring of 64 units).
 *   An open handle is 64 B of file state, position and working mtime and a
 *   window of W chunk numbers, 2 B each (a log's next page, and a random
 *   writer's pages within W * C pages, cost no chunk lookup): W = 8, and
 *   64 on MRAM (byte-addressable without erase), where a lookup costs a
 *   fifth of a 4 KiB write; 80 B a handle (192 B on MRAM).
 *
 *   sizeof(steadyfs) is fixed (no config term): 728 B on Cortex-M3, with
 *   the read savers (src/fs/cache.c: the sector the buffer holds, 4 runs
 *   of 4 map words, the last directory path component), the clock pointer
 *   in the configuration, the orphan list (16 inode numbers of open files
 *   whose name is gone), the relocation state's counters, the chunk
 *   windows' place, the record ring's (its two configuration fields and
 *   a pointer: +8 B since format 15) and the held sector's place and
 *   pointer (+16 B).
 *
 *   mt29f1g01 (1024 blocks) defaults, 256 inodes, one open file (open_max = 1):
 *     work 80 + 512 + 4 + 1024 + 2 * 128 + 32 + 820 = 2728 B (n_c = 1006,
 *     n_l1 = 136, R = 34, C = 64), + 2048 B sector buffer, + sizeof(steadyfs)
 *     (728 B on Cortex-M3) = 5504 B; 7552 B with the held sector's 2048.
 *     On media without erase (MRAM) the work
 *     area holds a bit per sector more: ceil(blocks * P / 8) B, 496 B on
 *     em064lx (the host head goes on in a closed unit's dead sectors),
 *     MRAM's defaults (pending_max 64, replay_max 64) add 16 * 32 + 4 * 42,
 *     and its 64-slot chunk window 112 B a handle: em064lx, one open
 *     file, 840 + 2928 + 2080 = 5848 B on the host (R = 13: 17 records).
 *
 * Threads.  None: calls on one steadyfs must not run concurrently.
 *
 * ---------------------------------------------------------------------------
 * Durability (what survives a power cut at any instant)
 *   - Every change to a file made through a handle (write, truncate, the
 *     truncation of O_TRUNC) belongs to that file's open transaction.  The
 *     transaction commits at steadyfs_sync() and steadyfs_close(): data and
 *     metadata (size) become durable together, as one atomic step.  After a
 *     power cut the file is exactly as it was at its last commit: never a
 *     mix of two states, never a torn page.  With STEADYFS_O_DSYNC every
 *     steadyfs_write() is such a commit, carried by the write's last data
 *     sector (no separate inode program); a short O_DSYNC write commits
 *     what it wrote.
 *   - One exception, forced by bounded RAM: a transaction holds at most
 *     steadyfs_info.txn_sectors distinct sectors ((pending_max - 8) /
 *     open_max; on NAND at most (pending_max - pending_max / 4 - 4) /
 *     open_max - 1 where that is 2 or more, which leaves a quarter of the
 *     table to committed changes and lowers the stated bounds,
 *     docs/DESIGN.md §7: 19 with the defaults and one open file on NAND, 4
 *     with four, 3 with eight; 24 on NOR, 56 on MRAM).  A write that fits
 *     in a transaction (counting a change for each page it touches and one
 *     for each chunk they lie in) but could take the file's past the
 *     limit first commits the file as if steadyfs_sync() had been called
 *     just before that write, so a cut leaves the file as it was between
 *     two calls.  A write that alone
 *     needs more than a transaction holds commits partway instead, at page
 *     boundaries, each time the limit is reached (the first time with what
 *     earlier writes left).  Applications that need all-or-nothing larger
 *     updates write a new file and rename it over the old one.
 *   - Shrinking a file (steadyfs_truncate to a smaller size, O_TRUNC on a
 *     non-empty file) is itself a commit point: it commits the file's
 *     pending writes and the new size together, durable when it returns.
 *   - A file or directory that is open may be unlinked, removed or
 *     replaced by rename, as in POSIX: the name goes at once (durable when
 *     the call returns); the open handles go on reading and writing the
 *     inode, an *orphan*, and its space returns when the last of them
 *     closes (a directory's: in a later changing call, as closedir never
 *     writes).  After a power cut the orphans the device holds die in the
 *     first calls after mount that have time for it, or at unmount.  At
 *     most open_max orphans exist at once (fewer when the pending table is
 *     too small to give them and the transactions room: then unlinking
 *     one more open file is EBUSY).  Several handles may be open on one
 *     file and share its transaction (closing or syncing any of them
 *     commits it).
 *   - A call that returns an error other than EIO changed nothing durable
 *     beyond what it reports (a short write returns the bytes written).
 *     EIO after a power loss: every later call returns EIO until the device
 *     is powered and mounted again.
 *   - A device read that returns no bytes (SBD_ERR_IO: a bus, link or host
 *     error) is tried three times in all.  One that persists fails the
 *     call with EIO, as above, and is never taken for damaged media:
 *     nothing is rebuilt, marked lost or skipped for it, and a mount that
 *     meets it fails with EIO and can simply be tried again.
 *   - Units that go bad: a data unit's capacity leaves with it (writes
 *     stop with ENOSPC where the good units' live limit is reached), and
 *     so does a unit the checkpoints were in (their next one takes over);
 *     an anchor unit (below, "Space") is retired and a spare of the anchor
 *     area takes its place, twice.  With fewer than two good anchor units
 *     left, a call that must write a checkpoint returns EIO: the device
 *     is at its end, and what was committed stays readable.
 *   - create, unlink, mkdir, rmdir and rename are each atomic and durable
 *     when they return: after a cut the name is either fully old or fully
 *     new.  rename replaces an existing target atomically.
 *   - Nothing committed is ever lost by a later cut, a later bad block or a
 *     later garbage collection.
 *   - The held sector (cfg.hold_buf set: sector_size bytes of RAM more).
 *     A write (not O_DSYNC) keeps the last sector it touches in hold_buf
 *     instead of programming it; steadyfs_sync() then programs that sector
 *     with the commit and the new size in its tag, so a 4 KiB write + sync
 *     at a sector boundary on NAND is two sector programs, as with
 *     O_DSYNC, and its file's times are stored by its close (as O_DSYNC
 *     files' are).  Smaller writes into the held sector program nothing
 *     until it is left.  One sector is held for the whole file system: a
 *     write elsewhere (another page, another file) programs it first, as
 *     an uncommitted sector of its file, and a close, truncate or sync of
 *     the file programs it too.  Reads see it.  A cut loses it as it loses
 *     any unsynced write; it is never committed except by its file's own
 *     commit.
 *   - Mount after a cut needs no repair step and no scan: it reads the last
 *     checkpoint and replays at most `replay_max` sectors.
 *
 * Real-time.  Every call performs a bounded number of device operations
 * whatever the fill level (up to the format-time fill limit) and history;
 * steadyfs_bound() states the bound per call kind.  Garbage collection is
 * paced by writes; steadyfs_gc_step() lets idle time get ahead.  Space:
 * capacity (steadyfs_info) is fill_permille of the sectors outside a
 * reserve of 4 anchor-area units (a ring of 2 and their spares), on media
 * that erase the unit the checkpoints take from the pool in turn (so
 * they wear as the data do, and the device's life ends when its units
 * have used their endurance: docs/SPEC.md §9, DESIGN.md §5 "End of
 * life") and 6 collection units -- less (by a quarter
 * at most) where collection would then net under P/8 sectors a victim,
 * with the units relocation records hold (mt25q128, em064lx: DESIGN.md
 * §6); writes and creates
 * stop with ENOSPC, cleanly, 8 sectors before it, and keep erased units
 * back: a close, sync, unlink, rmdir or rename on a full device still
 * works (delete to recover).  A close whose commit fails drops the file's
 * uncommitted changes (it keeps its committed state).  If pacing falls
 * behind, a call catches up once by a bounded collection counted in its
 * stated bound; in adversarial patterns that may not be enough and the
 * write returns ENOSPC early (docs/DESIGN.md §6, §10).
 *
 * Identity.  Each file and directory has a 64-bit id (steadyfs_stat.id):
 * inode number in the low 32 bits, a generation in the high 32 bits, so an
 * id is never reused for a different file (9P qid.path).
 *
 * Directory positions.  steadyfs_telldir() returns a 64-bit cookie; after
 * any other changes to the directory, steadyfs_seekdir() with that cookie
 * resumes the listing: every entry that existed throughout is returned
 * exactly once, entries added or removed meanwhile may or may not be.
 * Cookies are usable as 9P Treaddir offsets (0 = start).
 *
 * Errors are negative numbers whose magnitude is the Linux errno of the
 * same meaning (so 9P's Rlerror can pass -err through).
 */
#ifndef STEADYFS_STEADYFS_H
#define STEADYFS_STEADYFS_H

#include <stddef.h>
#include <stdint.h>

#include "steadyfs/bd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum steadyfs_err {
    STEADYFS_OK = 0,
    STEADYFS_EPERM = -1,      /* operation not permitted (e.g. rename root) */
    STEADYFS_ENOENT = -2,     /* no such file or directory */
    STEADYFS_EIO = -5,        /* device error, uncorrectable data, power lost */
    STEADYFS_EBADF = -9,      /* bad handle, or not open for this access */
    STEADYFS_EBUSY = -16,     /* object in use (the root; too many open files unlinked) */
    STEADYFS_EEXIST = -17,    /* exists (O_EXCL, mkdir) */
    STEADYFS_EXDEV = -18,     /* reserved */
    STEADYFS_ENOTDIR = -20,   /* a path component is not a directory */
    STEADYFS_EISDIR = -21,    /* is a directory */
    STEADYFS_EINVAL = -22,    /* bad argument or configuration */
    STEADYFS_ENFILE = -23,    /* open table full (open_max) */
    STEADYFS_EFBIG = -27,     /* file larger than the format allows */
    STEADYFS_ENOSPC = -28,    /* no space (or directory full) */
    STEADYFS_EROFS = -30,     /* file system not mounted writable */
    STEADYFS_ENAMETOOLONG = -36, /* name longer than 255 bytes, symlink target too long */
    STEADYFS_ENOTEMPTY = -39, /* directory not empty */
    STEADYFS_ELOOP = -40,     /* open of a symbolic link (the core never follows one) */
    STEADYFS_ECORRUPT = -117, /* on-media structure invalid (EUCLEAN) */
    STEADYFS_EFORMAT = -124,  /* a steadyfs of another format version (EMEDIUMTYPE):
                                 mount and probe refuse it, no migration */
};

/* Open flags. */
/* The on-media format this build reads and writes (docs/SPEC.md); an image
 * of any other version is refused with STEADYFS_EFORMAT. */
#define STEADYFS_FORMAT_VERSION 21

/* Build option: 1 (default) compiles in what only media without erase
 * use (MRAM: a maybe-live bit per sector, the host head going on in a
 * closed unit, two sectors in one gathered program); 0 leaves it out --
 * about 2 KB of Cortex-M3 code a NAND- or NOR-only firmware never runs --
 * and format and mount then refuse a device without erase (EINVAL). */
#ifndef STEADYFS_ERASELESS_MEDIA
#define STEADYFS_ERASELESS_MEDIA 1
#endif
/* Build option: 1 (default) compiles in the record ring (steadyfs_ring_*,
 * a format's ring_units); 0 leaves it out -- ~2 KB of Cortex-M3 code a
 * firmware that keeps no records never runs (the board's 9P firmware) --
 * and format and mount then refuse ring_units (EINVAL), the ring calls
 * return EINVAL. */
#ifndef STEADYFS_WITH_RING
#define STEADYFS_WITH_RING 1
#endif
/* Build option: 1 (default) compiles in the held sector (cfg.hold_buf,
 * "Durability" below); 0 leaves it out -- ~920 B of Cortex-M3 code --
 * and format and mount then refuse a hold_buf (EINVAL). */
#ifndef STEADYFS_WITH_HOLD
#define STEADYFS_WITH_HOLD 1
#endif

#define STEADYFS_O_RDONLY 0x0000
#define STEADYFS_O_WRONLY 0x0001
#define STEADYFS_O_RDWR 0x0002
#define STEADYFS_O_ACCMODE 0x0003
#define STEADYFS_O_CREAT 0x0100
#define STEADYFS_O_EXCL 0x0200
#define STEADYFS_O_TRUNC 0x0400
#define STEADYFS_O_APPEND 0x0800
/* Every steadyfs_write() commits before it returns, as if steadyfs_sync()
 * followed it, but the commit costs no program of its own: it rides in the
 * tag of the write's last data sector (with the new size).  A 4 KiB write
 * on NAND is then two sector programs, durable and atomic; a later
 * steadyfs_sync() finds nothing to do.  The fast path of a logger. */
#define STEADYFS_O_DSYNC 0x1000
/* Writes through this handle leave the file's mtime and ctime as they are
 * (as O_NOATIME does for atime elsewhere).  For loggers whose records carry
 * their own time: an O_DSYNC file's times are otherwise stored by its
 * close, one inode program more in the call that rotates the log (log4k
 * on mt29f1g01: max 3.8-5.9 ms instead of 3.3-3.9 ms over 10 seeds). */
#define STEADYFS_O_NOMTIME 0x2000

#define STEADYFS_SEEK_SET 0
#define STEADYFS_SEEK_CUR 1
#define STEADYFS_SEEK_END 2

#define STEADYFS_NAME_MAX 255

#define STEADYFS_TYPE_FILE 1
#define STEADYFS_TYPE_DIR 2
#define STEADYFS_TYPE_SYMLINK 3

/* Clock for file times: nanoseconds since 1970-01-01 00:00 UTC (a board
 * without an RTC may count from boot: times then only order events).
 * Called once per call that sets a time (create, mkdir, symlink, setattr,
 * write, growing or shrinking truncate); it must not call steadyfs. */
typedef int64_t (*steadyfs_clock)(void);
/* Configuration.  Zero fields take the documented default.  The fields
 * marked (format) are written to the medium by steadyfs_format and must
 * have the same value (or 0 with the same default) at mount. */
typedef struct steadyfs_config {
    const sbd *bd;            /* the device */
    void *work;               /* work area, steadyfs_work_size() bytes, 8-aligned */
    uint32_t work_size;
    void *sector_buf;         /* the sector buffer: steadyfs_sector_buf_size()
                                 bytes (sector_size, + 32 on NOR and MRAM) */
    uint32_t sector_buf_size; /* its bytes (0: sector_size, too few where the
                                 tag goes beside the sector: EINVAL) */
    uint16_t open_max;        /* open files + directories (default 4) */
    uint16_t pending_max;     /* pending map changes K (default 32, >= 8; 64 on
                                 byte-addressable media without erase, MRAM:
                                 a merge costs as much as a data sector there) */
    uint16_t replay_max;      /* sectors between checkpoints R (default 22; 64 on
                                 MRAM, where mount reads a tag in ~18 us) */
    uint16_t max_inodes;      /* (format) files + directories, root included (0:
                                 the most whose checkpoint fits, <= 1024) */
    uint16_t fill_permille;   /* (format) live data limit, per mille of the
                                 sectors outside the reserve (default 750;
                                 lowered where the pace needs it, §6) */
    uint8_t file_pages_log2;  /* (format) max sectors per file, log2 (0: what the
                                 inode's chunk list holds, (payload - 64) / 2 chunks) */
    uint8_t dir_pages;        /* (format) hash bucket sectors per directory (8) */
    uint32_t sector_size;     /* (format) 0: 2048, or the page where it is larger
                                 (must be a multiple of the page) */
    uint32_t erase_mult;      /* (format) device blocks per erase unit; 0: 1 on
                                 NAND, the big erase on NOR, 16 without erase */
    steadyfs_clock clock;     /* file times; NULL: every time the file system
                                 sets is 0 (explicit ones, steadyfs_setattr's
                                 STEADYFS_ATTR_MTIME, are still kept) */
    uint16_t ring_units;      /* (format) erase units at the end of the device
                                 kept for the record ring (0: no ring; else >= 2);
                                 the files get the rest (see "The record ring") */
    uint16_t ring_sectors;    /* (format) sectors a ring record takes (0: 1); a
                                 record holds up to ring_sectors * payload bytes */
    void *hold_buf;           /* NULL, or sector_size bytes for the held sector: a
                                 write keeps its last sector here instead of
                                 programming it, and the sync that follows
                                 programs it with the commit in its tag ("The
                                 held sector" below) */
} steadyfs_config;

/* The context.  Fields are private; only sizeof matters to callers. */
typedef struct steadyfs {
    /* Order matters to code size only: Cortex-M3's short loads and stores
     * reach the first 128 bytes (bytes: 32), so the fields most code uses
     * come first (about 500 B less code than in topic order). */
    uint8_t mounted, dead, rm;
    uint8_t no_bytes;   /* device reads that returned no bytes (SBD_ERR_IO) every
                           time the media layer tried them, since the call
                           began (or the mount), up to 255: a map sector's
                           rebuild and the repair act on no verdict after one */
    steadyfs_config cfg;
    uint8_t *buf;
    struct sfs_pend *pend;
    uint8_t *blk;
    uint32_t npend, uncommitted;
    struct sfs_open *open;
    uint16_t *chunk_win;   /* each handle's window of geo.cwin chunk numbers (file.c) */
    uint32_t *root;
    uint8_t *ibm;
    uint8_t *maybe_live;   /* media without erase: a bit per sector, 0 only if dead (log.c) */
    uint32_t live, live_max;
    /* Geometry, derived from the configuration at format and mount (the
     * most used first: see above). */
    struct {
        uint32_t P, payload, nblocks, e1, n_l1;
        /* the dense logical space (format 8): the shared table (S sectors
         * per inode number), then n_c chunks of C pages from cbase on; a
         * file has at most cmax chunks and maxpg pages */
        uint32_t S, n_c, C, cbase, cmax, sector_size;
        uint32_t n_l2, tag_inline, dev_per_block, vol, usable, txn_max;
        uint32_t orphan_max;   /* orphans the checkpoint has room for (<= 16) */
        uint32_t maxpg;
        /* relocation records a sweep cycle spans (reloc.c) */
        uint32_t R;
        /* slots in a handle's chunk window (file.c): 8, 64 on MRAM */
        uint32_t cwin;
        /* units in the anchor ring (fs.c sfs_setup, fs_internal.h
         * sfs_anchors) */
        uint32_t anchors;
    } geo;
    /* The log: the host head, the collection head (copies), sequence
     * numbers, checkpoint and erase-ahead state, the erased-unit queue. */
    struct {
        uint64_t seq;
        uint32_t head_block, head_idx, head_count;
        uint32_t gh_block, gh_idx, gh_count;
        uint32_t since_ckpt, call_ops, erase_credit, alloc_cursor;
        uint32_t call_io;   /* device accesses this call: reads, programs (a gathered run: one) */
        uint32_t nqueued, nfree, nlimbo;
        uint32_t nheld;     /* units held erased for the next checkpoint unit (0 or 1,
                               BS_CKNEXT: counted free, taken by a head move before an
                               erase) */
        uint32_t head_skip;   /* slots of the host head's unit it passes: live when it
                                 entered a unit without erasing it (MRAM, log.c) */
        uint32_t thread_next, thread_skip;   /* the closed unit the last checkpoint
                                                named for the host head to go on in,
                                                and the slots it would pass (log.c) */
        uint32_t debt;      /* sectors programmed outside collection since it last paid */
        uint8_t need_ckpt, erase_budget, to_gh;
        uint8_t call_marks;   /* what this call and the one before it did: erased a
                                 unit, programmed housekeeping beside a held
                                 sector (SFS_MARK_*, fs_internal.h; sfs_end) */
    } log;
    /* Collection: the greedy victim and its pace, static wear levelling. */
    struct {
        uint32_t victim, idx, c0, low, drift, victims;
        uint32_t pace;   /* steps a sector of debt, in 1/256 steps (sfs_pace_steps) */
        uint32_t waiting;   /* a victim examined whole that still counts dying
                               chunks' sectors: not picked again until trimmed */
        uint32_t wl_victim, wl_idx, wl_next, wl_tick, wl_cursor;
        /* calls that programmed; that count at the last namespace change,
         * and the calls between the last two that were 8 or more apart:
         * the next rotation of a logger's fixed-size files (sfs_end) */
        uint32_t calls, ns_last, ns_period;
        uint8_t busy;           /* calls that program left without housekeeping or erase-ahead (sfs_end) */
        uint8_t caught_up;      /* this call ran its catch-up (sfs_serve): one a call */
        uint8_t backlog;        /* extra programs of recent calls not yet drained, in half
                                   programs: an optional erase waits (sfs_end) */
        uint8_t erase_next;     /* an optional erase a light call chose, done at the start of
                                   the next write unless a close or namespace change comes
                                   first (sfs_end, sfs_write_start_erase) */
        uint8_t pace_carry;     /* the fraction of a step (1/256) the pace owes beyond the
                                   whole steps it ran (sfs_gc_pace) */
    } gc;
    /* Units whose data must move (a program or erase failed on them, or a
     * read corrected bits near the ECC limit; bit 31: a refresh, the unit
     * stays good): the media and the log note them, collection evacuates
     * them first (SFS_NONE: free slot). */
    struct {
        uint32_t retire[4];
    } health;
    /* The anchor ring (sfs_anchors units; bad: the anchor area's bad
     * units, a bit each; cur: the ring slot in use; dirty_next: the next
     * slot's unit still needs its erase), and on media that erase the
     * pool unit checkpoints go to (unit, its next sector idx, last: the
     * sector of its newest durable checkpoint, 0xFF none yet; spare: the
     * unit held erased for the next; keep, keep_last: where the newest
     * durable checkpoint is while unit holds none; cut_short: a unit a
     * switch cut short had begun, which that checkpoint calls erased;
     * 0xFFFF: no unit). */
    struct {
        uint32_t bad, cur, next_idx, dirty_next, epoch;
        uint32_t has_ckpt;   /* the current ring unit holds a durable record */
        uint64_t seq;
        uint16_t unit, spare, keep, cut_short;
        uint8_t idx, last, keep_last;
    } anchor;
    /* Chunks: used and dying bitmaps (n_c bits each), the next chunk to
     * try, the trim cursor (the next L1 index a trim step looks at) and the
     * number of dying chunks. */
    struct {
        uint8_t *used, *dying;
        uint32_t cursor, trim, ndying, age;   /* age: log seq of the last trim step */
        uint32_t steps;                       /* trim steps the running call may take */
    } chunk;
    /* Relocation (DESIGN.md §6, collection without map writes): records
     * of the victims whose live sectors were copied, and where the copies
     * went.  A record is a victim unit, the sweep tick at which it was
     * completed and the bitmap (mb = ceil(P / 8) bytes) of the sectors
     * copied; copies are numbered in the order they were programmed (copy
     * addresses), record 0's first at `base`; the copy runs `cu` (unit,
     * first index, count) say where each copy address is, run 0's first at
     * `cu_base`.  `dirty`: one bit per L1 index whose sector may still
     * point at a copied sector; the sweep walks the L1 indices (`cursor`,
     * `ticks` steps so far, `owed` steps the completed records still call
     * for).  `table`: the relocation sector the last checkpoint names;
     * `saved` the records it holds, `added` the records begun since (what
     * a replay after a cut would hold: saved + added). */
    struct {
        uint16_t *unit, *cu_unit;
        uint32_t *done;
        uint8_t *map, *cu_off, *cu_n, *dirty;
        uint32_t nrec, ncu, base, cu_base, cursor, ticks, owed, table, nsrc;
        uint16_t saved, added;
        uint8_t active, changed;
    } reloc;
    /* Counters since mount (statistics; nothing depends on them). */
    struct {
        uint32_t data, copy, map, ckpt, erase, victim, catch_up;
        uint32_t threaded;   /* host-head moves into a closed unit (MRAM), those
                                replay followed included */
    } stats;
    /* Read savers (src/fs/cache.c), exact or empty, never a guess:
     * buf_ppn: the sector whose payload buf holds as read or programmed
     * since the last write to buf or the device (SFS_NONE: none);
     * xc: runs of 4 map words read from media (L1 words of logical pages,
     * L2 words of L1 sectors) until their map sector is replaced; dc: the
     * last directory found as a path component (name <= 14 bytes). */
    struct {
        uint32_t buf_ppn, xc_key[4], xc_val[4][4], dc_dir, dc_ino;
        uint8_t xc_next, dc_len;
        char dc_name[14];
    } cache;
    /* Orphans: inodes unlinked (or renamed over) while open, which die at
     * their last close; listed in every checkpoint, so that after a cut
     * they die in the next mount's light calls.  ino | 0x8000 while a
     * handle holds it. */
    struct {
        uint16_t ino[16];
        uint32_t n;
    } orphans;
    /* A make-room round (map.c) interrupted by what its caller had to
     * serve first (a checkpoint, the catch-up): the step it resumes at (0:
     * none), the inode or map sector it works on, the table's count at its
     * start. */
    struct {
        uint32_t key;
        uint16_t n0;
        uint8_t step;
    } room;
    /* The held sector (cfg.hold_buf, file.c): page pg of file ino (0:
     * none) as a write left it, not programmed yet; lpn, flags and hint
     * are what its program will use. */
    struct {
        uint32_t pg, lpn, hint;
        uint16_t ino;
        uint8_t flags;
    } hold;
    /* The record ring's state, in the work area (NULL: no ring; ring.c) */
    struct sfs_ring *ring;
    /* last: the context's size stays what it was on every target, test
     * builds' fields below included */
    uint32_t ino_cursor;
#ifdef STEADYFS_CHECK_BUDGET
    /* Test builds only (DESIGN.md §7): the running call's budget from
     * steadyfs_bound and what it has spent (reads, programs, erases); a
     * call that overspends stops the test.  chk_call < 0: nothing armed,
     * or the call met a device fault (whose handling is outside the bound).
     * chk_kept: the call began with a unit kept for a checkpoint-unit
     * switch (media that erase, SFS_CK_SWITCH), so it must end with one. */
    int32_t chk_call;
    uint32_t chk_limit[3], chk_used[3];
    uint32_t chk_kept;
    uint64_t chk_n;
#endif
} steadyfs;

/* Metadata (format 4).  Each inode sector keeps mode, uid, gid, mtime and
 * ctime; no atime: keeping it would make every read program a sector, and
 * read-only calls program nothing (clients report atime = mtime).
 *   - mtime, ctime: nanoseconds since the epoch, from cfg.clock.  Create,
 *     mkdir and symlink set both to now.  A write or shrink through a
 *     handle sets both to now in RAM; they are stored by the file's next
 *     commit (sync, close, a shrink, an implicit commit; an O_DSYNC write
 *     commits data and size in its tag and leaves the times to close, which
 *     then programs the inode sector once, or, if the device has no room
 *     left even for that, keeps the committed times and still succeeds; a
 *     sync with nothing else to commit stays free, as fdatasync).  stat
 *     and fstat
 *     show the handle's times at once.  steadyfs_setattr sets ctime to now.
 *     A directory's mtime and ctime are those of its last entry change
 *     (create, mkdir, symlink, unlink, rmdir, rename into or out of it:
 *     format 20 keeps the time in the bucket sector the change programs,
 *     so it costs no program and no read) or of its mkdir or last
 *     setattr, whichever came later: a setattr after the entries (cp -a,
 *     tar) is kept until the next entry change.
 *   - mode: permission bits only (07777); the type is `type`.  Defaults at
 *     creation: 0644 files, 0755 directories, 0777 symlinks, uid = gid = 0;
 *     steadyfs_open_attr / steadyfs_mkdir_attr / steadyfs_symlink take
 *     others.  steadyfs checks no permission: that is its caller's policy
 *     (the 9P server checks them for the attached user, docs/P9.md).
 *   - nlink: 1 for files and symlinks (no hard links); 2 + the number of
 *     subdirectories for a directory, counted by steadyfs_stat_path from
 *     its buckets (so a directory's stat reads its dir_pages buckets; its
 *     bound, STEADYFS_CALL_STAT, counts them). */
typedef struct steadyfs_stat {
    uint64_t id;      /* stable identity: ino | generation << 32 */
    uint64_t size;    /* bytes (directories: 0; symlinks: target length) */
    uint8_t type;     /* STEADYFS_TYPE_FILE / _DIR / _SYMLINK */
    uint16_t mode;    /* permission bits, 07777 */
    uint32_t uid, gid;
    uint32_t nlink;
    int64_t mtime;    /* ns since the epoch (0: never set, or no clock) */
    int64_t ctime;
} steadyfs_stat;

/* steadyfs_setattr / steadyfs_open_attr / steadyfs_mkdir_attr /
 * steadyfs_symlink: which fields of steadyfs_attr apply. */
#define STEADYFS_ATTR_MODE 0x01u       /* mode & 07777 */
#define STEADYFS_ATTR_UID 0x02u
#define STEADYFS_ATTR_GID 0x04u
#define STEADYFS_ATTR_MTIME 0x08u      /* mtime = attr.mtime (setattr only) */
#define STEADYFS_ATTR_MTIME_NOW 0x10u  /* mtime = the clock's now (setattr only) */
typedef struct steadyfs_attr {
    uint32_t mask;
    uint16_t mode;
    uint32_t uid, gid;
    int64_t mtime;
} steadyfs_attr;

typedef struct steadyfs_dirent {
    uint64_t id;
    uint64_t next;    /* cookie of the entry after this one */
    uint8_t type;
    uint8_t name_len;
    char name[STEADYFS_NAME_MAX + 1];
} steadyfs_dirent;

typedef struct steadyfs_info {
    uint64_t capacity;     /* bytes of file data the format allows */
    uint64_t used;         /* bytes in live sectors (data and metadata) */
    uint64_t free;         /* capacity - used, never negative */
    uint32_t sector_size, data_per_sector, block_sectors, blocks;
    uint32_t txn_sectors;  /* sectors one transaction may hold */
    uint32_t gc_ratio;     /* victim sectors examined per sector written */
} steadyfs_info;

/* Bytes of work area the configuration needs (0 if the config is invalid). */
uint32_t steadyfs_work_size(const steadyfs_config *cfg);

/* Bytes of sector buffer the configuration needs (0 if the config is
 * invalid): sector_size where the tag goes in the page's spare area (NAND)
 * or inside the sector (a medium that reads or programs in units above 32
 * bytes, such as an SD card), sector_size + 32 where it goes beside the
 * sector (NOR, MRAM: a sector's payload is the whole sector_size, so a 4
 * KiB record fills two sectors exactly). */
uint32_t steadyfs_sector_buf_size(const steadyfs_config *cfg);

/* Erase the device and write an empty file system (root directory only).
 * Leaves fs unmounted. */
int steadyfs_format(steadyfs *fs, const steadyfs_config *cfg);
/* Attach: reads the newest checkpoint and replays what followed it.  Reads a
 * bounded number of sectors; writes nothing.  EIO where the device returns
 * no bytes for a sector it needs (try again; nothing is lost). */
int steadyfs_mount(steadyfs *fs, const steadyfs_config *cfg);
/* Commits every open handle (as close would) and detaches, with a
 * checkpoint last where this mount wrote anything since the one before:
 * then no commit depends on replay, which takes an unreadable last sector
 * of the log for a program a cut tore (a commit whose page fails while
 * the device is off would be undone).  A mount that only read writes
 * nothing here. */
int steadyfs_unmount(steadyfs *fs);
int steadyfs_info_get(steadyfs *fs, steadyfs_info *info);
/* What steadyfs_info_get would say of a file system cfg formats on a
 * device of geometry geo, every unit good, nothing used -- without a device:
 * capacity, sector payload, sectors a unit, the log's units (the record
 * ring's apart), txn_sectors, the collection ratio.  For sizing (`steady
 * plan --ring`: a ring's retention and wear).  0 or STEADYFS_EINVAL. */
int steadyfs_geometry(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs_info *info);

/* Paths.  Absolute ("/a/b"); repeated and trailing '/' are ignored.  A
 * name is 1..255 bytes, any but '/' and NUL.  "." and ".." are not names
 * and are not resolved: a path with such a component is refused with
 * STEADYFS_EINVAL by every call (so no entry can be named "." or ".."),
 * except that steadyfs_mkdir() of a path whose last component is "." or
 * ".." (of an existing directory) returns STEADYFS_EEXIST, as POSIX does.
 * Callers that accept such paths (a shell's, a 9P client's) resolve them
 * first; steadyfs_fsck() reports an entry named "." or ".." that an older
 * version created.
 *
 * Returns a handle >= 0 or an error. */
int steadyfs_open(steadyfs *fs, const char *path, int flags);
/* Commits the file's transaction (like sync), then frees the handle. */
int steadyfs_close(steadyfs *fs, int fd);
/* Bytes read (0 at end of file) or an error. */
int32_t steadyfs_read(steadyfs *fs, int fd, void *buf, uint32_t len);
/* Bytes written (all of len unless an error after some progress: then the
 * bytes done, the position past them) or an error (nothing written; or
 * EIO where the device is gone, or where an O_DSYNC write's commit failed:
 * nothing of it is durable). */
int32_t steadyfs_write(steadyfs *fs, int fd, const void *buf, uint32_t len);
/* New position or an error.  Seeking past the end is allowed; a later write
 * there leaves a hole that reads as zeros. */
int64_t steadyfs_seek(steadyfs *fs, int fd, int64_t off, int whence);
int64_t steadyfs_tell(steadyfs *fs, int fd);
int64_t steadyfs_size(steadyfs *fs, int fd);
int steadyfs_truncate(steadyfs *fs, int fd, uint64_t size);
/* Commit: the file's data and size become durable together (and its
 * times, unless the commit rides in a data sector's tag -- an O_DSYNC
 * file's, or the held sector's: then the close stores them). */
int steadyfs_sync(steadyfs *fs, int fd);
/* Reads the inode sector (mode, owner): bounded as STEADYFS_CALL_STAT. */
int steadyfs_fstat(steadyfs *fs, int fd, steadyfs_stat *st);

int steadyfs_stat_path(steadyfs *fs, const char *path, steadyfs_stat *st);
/* Removes a file (an open one lives on, nameless, until its last close). */
int steadyfs_unlink(steadyfs *fs, const char *path);
/* Atomic; replaces an existing target (a file, or an empty directory when
 * the source is a directory); a replaced file that is open lives on,
 * nameless, until its last close.  The root is neither moved nor
 * replaced, and a directory open with steadyfs_opendir() is not moved
 * while it is (STEADYFS_EBUSY; the 9P server holds a directory open only
 * within one readdir request). */
int steadyfs_rename(steadyfs *fs, const char *from, const char *to);
int steadyfs_mkdir(steadyfs *fs, const char *path);
int steadyfs_rmdir(steadyfs *fs, const char *path);
/* As steadyfs_open / steadyfs_mkdir; a file or directory they create
 * gets the attr fields its mask names (MODE, UID, GID) instead of the
 * defaults, in the same inode program (attr may be NULL). */
int steadyfs_open_attr(steadyfs *fs, const char *path, int flags, const steadyfs_attr *attr);
int steadyfs_mkdir_attr(steadyfs *fs, const char *path, const steadyfs_attr *attr);

/* Change mode, uid, gid and mtime (attr->mask says which; ctime becomes
 * now) of a file, directory or symlink: one inode-sector program, atomic
 * and durable on return, bound STEADYFS_CALL_SETATTR.  On an open file
 * the new mtime also replaces the handle's (a later write sets it to now
 * again).  Size changes are steadyfs_truncate's.  EINVAL: unknown mask
 * bits or mode bits outside 07777. */
int steadyfs_setattr(steadyfs *fs, const char *path, const steadyfs_attr *attr);

/* Symbolic links.  The target (1..steadyfs_symlink_max() bytes, any but
 * NUL; not checked, not resolved) is kept in the link's inode sector, so a
 * symlink costs one inode and no data page; it is created as a file is
 * (bound STEADYFS_CALL_CREATE) and read as a stat (bound STEADYFS_CALL_STAT).
 * The core never follows a symlink: as a path component it is ENOTDIR,
 * opened it is ELOOP; unlink and rename treat it as a file.  steadyfs_readlink
 * returns the target's length (no NUL is added; a target longer than cap
 * is ENAMETOOLONG, nothing copied) or EINVAL if path is not a symlink. */
int steadyfs_symlink(steadyfs *fs, const char *target, const char *path, const steadyfs_attr *attr);
int32_t steadyfs_readlink(steadyfs *fs, const char *path, char *buf, uint32_t cap);
/* Longest symlink target: the inode sector's payload less its 64-byte
 * header, at most 4095 (PATH_MAX - 1): 1984 on 2048-byte NAND sectors,
 * 1952 inline (NOR, MRAM). */
uint32_t steadyfs_symlink_max(const steadyfs *fs);

/* Directory listing (no "." or ".." entries). */
int steadyfs_opendir(steadyfs *fs, const char *path);
/* 1 and *ent filled, 0 at the end, or an error. */
int steadyfs_readdir(steadyfs *fs, int dd, steadyfs_dirent *ent);
uint64_t steadyfs_telldir(steadyfs *fs, int dd);
int steadyfs_seekdir(steadyfs *fs, int dd, uint64_t cookie);
int steadyfs_closedir(steadyfs *fs, int dd);

/* ---- The record ring (format 15; docs/DESIGN.md §13) ------------------------
 * A flight recorder's or a sensor logger's data: records of up to
 * ring_sectors * payload bytes appended to a ring of ring_units erase units
 * kept at the end of the device, apart from the files.  The ring keeps the
 * newest records; each append past the last unit's end takes the oldest
 * unit back (its records are gone).  No map, no collection and no
 * checkpoint is involved, so whatever the files do (full, churned, any
 * call in between), an append costs exactly its record's sector programs,
 * plus one erase when it starts a unit (none on MRAM):
 *   steadyfs_bound(STEADYFS_CALL_RING_APPEND, len): ceil(len / payload)
 *   programs (at most ring_sectors) and 1 erase; n consecutive appends:
 *   their programs and at most ceil(n / rpu) erases (rpu = P / ring_sectors
 *   records a unit), the guarantee of steadyfs_guarantee_of(...,
 *   STEADYFS_RECORD_RING, ...): c = the record's programs + 1/rpu of an
 *   erase, d = one erase.
 * Durability: an append is durable and atomic when it returns (its last
 * sector's tag commits it, as an O_DSYNC write's does); a power cut loses
 * at most the record being appended, never an earlier one.  Mount finds
 * the ring's end by a binary search over the units and then over the last
 * unit (a few reads more in mount's bound).  Records are numbered from 0
 * at format, one number per record slot: a record lost to a cut, or the
 * slots of a unit that went bad, leave numbers no record has.
 * Bad units: factory-bad units of the ring are skipped; a unit whose
 * erase or program fails is marked bad (a checkpoint records it; that
 * handling is outside the bound, as a device fault is everywhere) and the
 * record goes to the next unit. */
/* Appends len (1 .. ring_sectors * payload) bytes as the next record; its
 * number into *number (may be NULL).  EINVAL without a ring; ENOSPC once
 * fewer than two of its units are good (worn out: the files go on). */
int steadyfs_ring_append(steadyfs *fs, const void *rec, uint32_t len, uint64_t *number);
/* Record `number` into buf (at most cap bytes): its length, ENOENT if the
 * ring holds no such record (older than the ring keeps, not yet appended,
 * lost to a power cut during its append), ECORRUPT if its sectors fail
 * their checksums.  Bounded as STEADYFS_CALL_RING_READ. */
int32_t steadyfs_ring_read(steadyfs *fs, uint64_t number, void *buf, uint32_t cap);
/* Bytes off .. off + cap - 1 of record `number` (fewer past its end) into
 * buf, reading only the sectors they lie in: the bytes copied (0 at or
 * past the end), ENOENT and ECORRUPT as steadyfs_ring_read.  (The 9P
 * server's view of the ring as a file, docs/P9.md.) */
int32_t steadyfs_ring_read_at(steadyfs *fs, uint64_t number, uint32_t off, void *buf, uint32_t cap);
/* The numbers the ring may hold: [*first, *next) (next: the next append's
 * number); reads nothing. */
int steadyfs_ring_span(steadyfs *fs, uint64_t *first, uint64_t *next);

/* Idle-time work: up to `budget` garbage-collection steps (a step examines
 * one victim sector, or erases one block).  Returns steps done (0: nothing
 * left to do) or an error. */
int steadyfs_gc_step(steadyfs *fs, uint32_t budget);

const char *steadyfs_strerror(int err);

/* ---- worst-case cost ------------------------------------------------------
 * Device operations a call may perform, whatever the fill level (up to the
 * format-time fill limit) and the history.  Derivation: docs/DESIGN.md. */
typedef enum steadyfs_call {
    STEADYFS_CALL_MOUNT = 0,
    STEADYFS_CALL_UNMOUNT,
    STEADYFS_CALL_INFO,
    STEADYFS_CALL_OPEN,         /* open of an existing file */
    STEADYFS_CALL_CREATE,       /* open with O_CREAT of a new file */
    STEADYFS_CALL_CLOSE,
    STEADYFS_CALL_READ,         /* n bytes */
    STEADYFS_CALL_WRITE,        /* n bytes */
    STEADYFS_CALL_SYNC,
    STEADYFS_CALL_WRITE_SYNC,   /* write of n bytes followed by sync, or an O_DSYNC write */
    STEADYFS_CALL_TRUNCATE,
    STEADYFS_CALL_SEEK,
    STEADYFS_CALL_STAT,
    STEADYFS_CALL_UNLINK,
    STEADYFS_CALL_RENAME,
    STEADYFS_CALL_MKDIR,
    STEADYFS_CALL_RMDIR,
    STEADYFS_CALL_OPENDIR,
    STEADYFS_CALL_READDIR,      /* one entry */
    STEADYFS_CALL_CLOSEDIR,
    STEADYFS_CALL_GC_STEP,      /* budget n */
    STEADYFS_CALL_SETATTR,      /* steadyfs_setattr (symlink: CREATE, readlink: STAT) */
    STEADYFS_CALL_WRITE_DSYNC,  /* an O_DSYNC write of n bytes (within WRITE_SYNC: one call, no
                                   sync after it) */
    STEADYFS_CALL_RING_APPEND,  /* steadyfs_ring_append of an n-byte record */
    STEADYFS_CALL_RING_READ,    /* steadyfs_ring_read of one record */
    STEADYFS_CALL_COUNT
} steadyfs_call;

typedef struct steadyfs_cost {
    uint32_t reads;        /* sector (or part-sector) reads */
    uint32_t progs;        /* sector programs */
    uint32_t erases;       /* erase-unit erases */
    uint64_t read_bytes;   /* bytes moved by the reads (main + spare) */
    uint64_t prog_bytes;   /* bytes moved by the programs (main + spare) */
    uint32_t per;          /* records the counts are for (0 or 1: one call or one
                              record; steadyfs_guarantee's per_record: 1024, so
                              that an erase every 32 records is 1/32 of one) */
} steadyfs_cost;

/* Bound for one call of kind `call` with size argument n (bytes for
 * read/write, steps for gc_step, ignored otherwise), for a file system
 * formatted with `cfg` on `geo`.  Returns 0 or STEADYFS_EINVAL. */
int steadyfs_bound(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs_call call,
                   uint64_t n, steadyfs_cost *out);
/* Rate guarantee (a rate-latency service curve) for a stream of records:
 * any n consecutive records of record_size bytes each -- a write and its
 * sync, or an O_DSYNC write and the close that stores its times, with only
 * calls that change nothing between them -- on a file system formatted
 * with `cfg` on `geo`, perform at most n * per_record + burst device
 * operations (each field), whatever came before them and whatever the fill
 * level (up to the format's fill limit).  Priced in a timing mode (host:
 * steady_fs_guarantee_ns), n * c + d bounds the time of the n records;
 * with b, the write_sync bound of one record, n records take at most
 * min(n b, n c + d), and `steady plan` turns that into the RAM that absorbs
 * an input rate (docs/DESIGN.md §7).  per_record counts a window's
 * collection, map merges, checkpoints and erases by its totals; burst is
 * what a window may inherit (a full pending table, dying chunks and
 * orphans to trim and kill, a queue to refill).  Returns 0 or
 * STEADYFS_EINVAL. */
int steadyfs_guarantee(const steadyfs_config *cfg, const sbd_geometry *geo, uint32_t record_size,
                       steadyfs_cost *per_record, steadyfs_cost *burst);
/* What a record is, for steadyfs_guarantee_of: 0 (what steadyfs_guarantee
 * covers: a write and its sync, or an O_DSYNC write and a close after it,
 * at any offset), or these or'd: */
#define STEADYFS_RECORD_DSYNC 1u    /* an O_DSYNC write, the file kept open: a logger's
                                       record.  Its last data sector carries the commit, so
                                       no inode sector is written; the times wait for the
                                       close, which is not one of the stream's calls */
#define STEADYFS_RECORD_ALIGNED 2u  /* every record starts at a multiple of the sector
                                       payload (steadyfs_info.data_per_sector; an append of
                                       whole sectors, as a logger of 4 KiB records makes): it
                                       shares no page with its neighbours */
#define STEADYFS_RECORD_RING 4u     /* a steadyfs_ring_append (alone: no other flag); cfg
                                       and geo then only give the sector and unit sizes */
#define STEADYFS_RECORD_HELD 8u     /* a write and its sync, the file kept open, with the
                                       held sector configured (cfg->hold_buf, else
                                       EINVAL; not with STEADYFS_RECORD_DSYNC): the sync
                                       commits in the record's last sector, so no inode
                                       sector is written, as for an O_DSYNC record */
/* steadyfs_guarantee for records of the kind `flags` names: the same
 * promise, for n consecutive records of that kind with only calls that
 * change nothing between them.  O_DSYNC records write no inode sector (no
 * program, its pace or its map changes a record) and aligned ones one
 * sector and one read-back fewer than a record at any offset, so their
 * per_record is smaller (docs/DESIGN.md §7).  Returns 0 or STEADYFS_EINVAL
 * (also for an unknown flag). */
int steadyfs_guarantee_of(const steadyfs_config *cfg, const sbd_geometry *geo, uint32_t record_size,
                          uint32_t flags, steadyfs_cost *per_record, steadyfs_cost *burst);
/* What each part of a bound costs (`steady bound --explain`): the same
 * counts with some parts left out, each with everything the count gives it
 * (the reads and programs of its own, and the checkpoints, head moves and
 * erases its programs bring).  A part's cost is the bound less the bound
 * without it; parts overlap (rounds follow the pace's changes, erases
 * every part's programs), so the costs of several add up to more than the
 * bound without all of them.  The bound itself is steadyfs_bound's. */
#define STEADYFS_PART_PACE 1u         /* collection steps the pace runs (sfs_gc_pace) */
#define STEADYFS_PART_CATCH_UP 2u     /* a host-head move's catch-up collection */
#define STEADYFS_PART_ROUNDS 4u       /* make-room rounds: merges a full pending table forces */
#define STEADYFS_PART_CHECKPOINTS 8u  /* checkpoints and checkpoint-unit switches */
#define STEADYFS_PART_ERASES 16u      /* every erase */
#define STEADYFS_PART_UPKEEP 32u      /* trims, wear levelling, a light call's kill or cold merge */
#define STEADYFS_PARTS_ALL 63u
/* steadyfs_bound and steadyfs_guarantee_of without the STEADYFS_PART_*
 * or'd in `parts` (0: the same as those).  0 or STEADYFS_EINVAL (also for
 * an unknown part). */
int steadyfs_bound_without(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs_call call,
                           uint64_t n, uint32_t parts, steadyfs_cost *out);
int steadyfs_guarantee_without(const steadyfs_config *cfg, const sbd_geometry *geo, uint32_t record_size,
                               uint32_t flags, uint32_t parts, steadyfs_cost *per_record,
                               steadyfs_cost *burst);
/* Name of a call kind ("write_sync", ...), NULL past the end. */
const char *steadyfs_call_name(steadyfs_call call);

/* ---- checking (src/fs/fsck.c) ---------------------------------------------
 * steadyfs_fsck mounts the file system with cfg (mount writes nothing),
 * verifies every invariant of docs/SPEC.md §9 and every checksum it can
 * reach, reports each finding through cb, and leaves fs unmounted.  It
 * never writes to the device (steadyfs_repair below puts right what
 * media damage did to the namespace).  Checked: the current checkpoint
 * unit's checkpoints (sequence, payload CRC, header) and that the sectors after
 * them are erased; the checkpoint state (pending changes, roots, block
 * table states, bad units against the device, retire list, inode bitmap);
 * every sector the map reaches through L2, L1 and pending changes (in
 * range, in a unit in use and below the log head, tag CRC, payload CRC,
 * kind and logical page as the map expects, reached once: no two logical
 * pages share a sector); each unit's live count in the block table against
 * the sectors reached, and the total; queued units and the head's unused
 * sectors erased; every allocated inode has a valid inode sector and vice
 * versa; from the root, every directory bucket (header, entries in bounds,
 * FNV-1a hash of each name, (hash, inode) order, probing over overflowed
 * buckets, types), every allocated inode named exactly once, directory
 * parent fields, no data pages of a free inode, file sizes covering every
 * mapped page; format 4's inode fields (type, mode <= 07777, zero bytes,
 * a symlink's target: no NUL, no data pages).
 *
 * Memory: the caller's work area of steadyfs_fsck_work_size(cfg) bytes =
 *   2 * sector_size + ceil(nblocks * P / 8) + nblocks + 4 * max_inodes
 *   + 3 * ceil(max_inodes / 8)   (each term rounded up to 4)
 * (mt29f1g01, 1024 units of P = 64: 4096 + 8192 + 1024 + 1024 + 96 =
 * 14432 B), besides the mount's own work area and sector buffer in cfg.
 * Time: every map sector and every mapped sector is read (twice: tag, then
 * whole), every directory bucket twice, each inode sector a few times.
 *
 * Returns the number of errors found (0: clean) or a negative error if it
 * could not check: EINVAL (bad arguments or work area), or mount's error
 * (ECORRUPT: no valid checkpoint; EIO), reported through cb as well.
 * Messages are one line each, "error: ..." (counted in errors) or
 * "note: ..." (counted in notes).  Notes are states a power cut leaves
 * and the file system handles: a single torn checkpoint at the end of the
 * current checkpoint unit (indistinguishable from damage to that one sector;
 * mount uses the previous checkpoint), and a free unit the device reports
 * bad (an erase failed after the last checkpoint; the next erase retires
 * it). */
typedef struct steadyfs_fsck_report {
    uint32_t errors;        /* findings that break an invariant */
    uint32_t files, dirs;   /* reachable from the root (dirs: root included) */
    uint64_t bytes;         /* sum of file sizes */
    uint32_t live_sectors;  /* sectors the map reaches (data, inodes, map) */
    uint32_t data_sectors;  /* of which data and inode sectors */
    uint32_t map_sectors;   /* of which L1 and L2 map sectors */
    uint32_t checkpoints;   /* valid checkpoints in the current checkpoint unit */
    uint32_t bad_blocks;    /* units retired as bad */
    uint32_t notes;         /* harmless findings of a power cut: a torn
                               checkpoint (mount steps over it), a unit marked
                               bad after the checkpoint (retired at its next
                               erase) */
} steadyfs_fsck_report;

typedef void (*steadyfs_fsck_cb)(void *ctx, const char *msg);

uint32_t steadyfs_fsck_work_size(const steadyfs_config *cfg);
int steadyfs_fsck(steadyfs *fs, const steadyfs_config *cfg, void *work, uint32_t work_size,
                  steadyfs_fsck_cb cb, void *ctx, steadyfs_fsck_report *rep);

/* ---- repair after media damage (src/fs/repair.c) ---------------------------
 * A power cut never needs a repair (mount replays).  Damage does: a NAND
 * page that went uncorrectable after it was programmed (retention, read
 * disturb), a sector whose checksum fails on NOR or MRAM.  Where it hits
 * file data, that page reads EIO until it is written again and nothing
 * else is lost.  Where it hits metadata, a read of that sector alone
 * cannot tell what was there, and steadyfs_repair puts the namespace right
 * on a mounted file system, keeping every byte that still reads:
 *   - an L1 map sector that cannot be read is rebuilt first (each word
 *     kept where the sector it names confirms it), so that what it maps
 *     is judged by its own sector; a word it cannot confirm is a page
 *     lost, or a hole the damage changed: where the structure says
 *     nothing can be there (past a file's end, a free inode's or chunk's
 *     page) it is a hole again;
 *   - a directory bucket that cannot be read is rewritten empty (marked
 *     overflowed, so names that went on past it are still found);
 *   - an entry naming no valid, allocated inode goes;
 *   - a file whose inode sector is lost gets a new one (mode 0644, owner
 *     0, times now): its chunks are found among the used ones no other
 *     file lists, by the inode that the tags of their sectors name as
 *     owner (a collection copy keeps its original's; one that names none,
 *     made by an older build, is its own only where it is the only inode
 *     lost -- with more, such chunks die first), each in the
 *     slot its sectors' file pages give; its size is a pending size entry,
 *     or the size its last commit's tag carried, or the end of its last
 *     page, and it ends before a slot with no chunk (a hole, or a chunk no
 *     file could be told to own: never zeros where its bytes were);
 *   - an entry naming a symlink whose inode sector is lost goes (its
 *     target was in that sector);
 *   - a directory whose inode sector is lost gets a new one (mode 0755,
 *     owner 0, times now, the parent that names it): its entries, in
 *     their own sectors, are kept, and so is everything below it;
 *   - an inode no directory reachable from the root names (the names in a
 *     lost bucket) is linked into /lost+found (made if missing) as
 *     "#<inode number>", a directory with its subtree; one whose inode
 *     sector is lost too gets a new one first, as above (a directory if a
 *     bucket past its first is mapped, else a file);
 *   - used chunks no file lists after all that die.
 * Orphans (open files whose name went) are left to their reap.  Pages of
 * files that are lost are left as they are (each read EIO: what was
 * there is gone; fsck lists them).  Each fix is one namespace transaction
 * committed on its own, so a power cut during a repair leaves a file
 * system that mounts, and the next repair finishes the job.
 *
 * Last, every unit's live count is set to what the map reaches there:
 * the sector a lost word named stays counted otherwise, which only
 * collection finds dead.
 *
 * Memory: the caller's work area of steadyfs_repair_work_size(fs) bytes
 * = 3 * ceil(max_inodes / 8) + nblocks + ceil(n_c / 8), each rounded up
 * to 4 (96 + 1024 + 128 = 1248 B with 256 inodes on mt29f1g01).
 * Time: no stated bound (a maintenance call, as fsck): each pass reads
 * every allocated directory's buckets and inode sectors, a fix costs at
 * most a rename's bound, and the passes end when one fixes nothing.
 * Returns 0 (rep says what it did), EBUSY if a file or directory is open,
 * ENOTDIR if /lost+found is not a directory, EINVAL (not mounted, work
 * area too small), or the error of a fix that failed (ENOSPC: no room to
 * write one; EIO). */
typedef struct steadyfs_repair_report {
    uint32_t map_rebuilt;        /* unreadable L1 map sectors rebuilt (each word kept that
                                    the sector it names confirms) */
    uint32_t holes_restored;     /* words such a rebuild lost where nothing can be (a page
                                    past its file's end, of a free inode or chunk): holes */
    uint32_t buckets_reset;      /* unreadable directory buckets rewritten empty */
    uint32_t names_removed;      /* entries naming a free or invalid inode */
    uint32_t files_rebuilt;      /* files given a new inode sector (chunks and size found) */
    uint32_t files_removed;      /* symlinks whose inode sector was lost */
    uint32_t chunks_freed;       /* used chunks no file lists any more */
    uint32_t dirs_rebuilt;       /* directories given a new inode sector */
    uint32_t reconnected;        /* inodes linked into /lost+found */
    uint32_t lost_removed;       /* unnamed inodes whose inode sector was lost */
    uint32_t counts_fixed;       /* units whose live count was set to what the map reaches */
} steadyfs_repair_report;

uint32_t steadyfs_repair_work_size(const steadyfs *fs);
int steadyfs_repair(steadyfs *fs, void *work, uint32_t work_size, steadyfs_repair_report *rep);

/* Fill the (format) fields of cfg (max_inodes, file_pages_log2, dir_pages,
 * fill_permille) from a checkpoint on the medium, so a tool can mount an
 * image formatted with options it was not told.  cfg->bd and
 * cfg->sector_buf must be set, with sector_buf_size for the medium
 * (steadyfs_sector_buf_size); sector_size and erase_mult are taken as
 * given (0: defaults) and must be the format's.  fs is scratch.  Returns 0
 * or ECORRUPT (no checkpoint found) / EFORMAT (checkpoints of another
 * format version only: an image of an older steadyfs) / EINVAL. */
int steadyfs_probe(steadyfs *fs, steadyfs_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_STEADYFS_H */
