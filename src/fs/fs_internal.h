/*
 * Private interfaces between the files of the steadyfs core (src/fs).
 * Layout on media: docs/SPEC.md.  Why it is built this way: docs/DESIGN.md.
 *
 * The core is layered: a file calls only files of its own layer and of
 * the layers below (`make layers` checks it from the objects' symbols,
 * scripts/check-layers.py, which reads this table):
 *   layer 0 helpers:     util.c errors.c
 *   layer 1 media:       media.c
 *   layer 2 log:         log.c reloc.c
 *   layer 3 map:         map.c cache.c chunk.c inode.c
 *   layer 4 checkpoint:  ckpt.c
 *   layer 5 collection:  gc.c
 *   layer 6 files:       call.c file.c dir.c kill.c ns.c ring.c
 *   layer 7 volume:      fs.c
 *   layer 8 tools:       bound.c budget.c fsck.c repair.c
 * A lower layer that needs what only a higher one can do (a checkpoint,
 * collection) returns an internal code that says so (SFS_NEED_CKPT,
 * SFS_NEED_ROOM) and the caller's layer does it and retries.
 */
#ifndef STEADYFS_FS_INTERNAL_H
#define STEADYFS_FS_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "steadyfs/crc32.h"
#include "steadyfs/steadyfs.h"

#define SFS_NONE 0xFFFFFFFFu      /* no sector */
#define SFS_UNKNOWN 0xFFFFFFFEu   /* committed old location not known yet */
/* A map word that names no sector because the page's place is lost: its
 * map sector was rebuilt after damage (map.c rebuild) and the word read
 * raw could not be confirmed.  Reads of the page are EIO; a write of the
 * whole page gives it a place again.  On media (SPEC §4), and outside
 * every unit: what counts sectors passes it by. */
#define SFS_LOST 0xFFFFFFFDu
#define SFS_TAG_SIZE 32u
#define SFS_CKPT_VERSION ((uint32_t)STEADYFS_FORMAT_VERSION)       /* the on-media format (SPEC.md; ckpt.c says what changed) */
/* the checkpoint's fixed header (SPEC §7): 128..131 the relocation sector
 * (format 9); 132..135 the host head's passed slots (11); 136..143 the
 * unit named for it to go on in and its passed slots (12); 144..147 the
 * record ring's units and sectors a record, 148..155 its next record then
 * (15) */
#define SFS_CKPT_HDR 156u
#define SFS_RETRY 1               /* a program failed and was moved: redo */
#define SFS_EFAIL (-1005)         /* device reported program/erase failure */
/* What a lower layer needs done before it can go on (log.c's reserve),
 * by a layer above it: sfs_serve (gc.c) does it, and the caller calls the
 * same function again (SFS_SERVED).  Never returned by an API call. */
/* The mode of a write, passed down to the log's reserve (DESIGN.md §6):
 * the kind of API call -- what a host-head move keeps erased, whether
 * collection may take the last units -- and whether collection is the
 * writer (it keeps fewer units, may go to the collection head, runs no
 * catch-up and adds no debt).  The call frame (call.c) records the call's
 * kind (fs->rm); every layer below gets the mode as a parameter. */
typedef uint32_t sfs_mode;
#define SFS_MODE_WRITE 0u    /* data writes, creates, setattr: a host-head move keeps 4 units */
#define SFS_MODE_COMMIT 1u   /* close, sync, truncate: keeps 3 */
#define SFS_MODE_REMOVE 2u   /* unlink, rmdir, rename: keeps 2; collection may take the last */
#define SFS_MODE_KIND 3u     /* (the call's kind: those two) */
#define SFS_MODE_GC 4u       /* collection's own programs: keeps 3, no catch-up, no debt */
#define SFS_DAMAGED (-1008)       /* (repair.c's walk) a sector that cannot be read: uncorrectable,
                                     a lost page's copy, or its map word lost */
#define SFS_NO_BYTES (-1009)      /* (sfs_rd_sector_in) the device returned no bytes: not damage */
#define SFS_NEED_CKPT (-1006)     /* a checkpoint first (replay_max sectors since the last,
                                     a head in a unit none named, units in LIMBO) */
#define SFS_NEED_ROOM (-1007)     /* the host head needs a unit and erased units are
                                     short: collection's catch-up, then the move */
#define SFS_READ_TRIES 3u         /* device reads that return no bytes (SBD_ERR_IO) before the read fails (media.c rd) */
#define SFS_Q_TARGET 3u           /* erased blocks kept ready (erase-ahead) */
#define SFS_ERASE_COOL 2u         /* records after an erase-ahead that are not light (sfs_end) */
#define SFS_BACKLOG_PROG 2u       /* gc.backlog per program beyond a record's two (sfs_end) */
#define SFS_BACKLOG_DRAIN 3u      /* gc.backlog a call of 1-2 programs drains (sfs_end) */
#define SFS_BACKLOG_LIGHT 12u     /* above it the stream is not light: no wait (sfs_end) */
#define SFS_NS_PERIOD_MIN 8u      /* calls between namespace changes that make a period (ns.c) */
#define SFS_RECORD_ENTRIES 4u     /* pending entries a 4 KiB record may add (sfs_write_start_erase) */
/* gc.erase_next: none; an optional erase an append's end chose for the
 * next write's start; that erase done, at the start of the running call */
#define SFS_ERASE_NONE 0u
#define SFS_ERASE_CHOSEN 1u
#define SFS_ERASE_DONE 2u
#define SFS_NS_AHEAD 4u           /* calls before the next expected one without optional erase */
#define SFS_WL_PERIOD 8u         /* greedy victims per static wear-levelling pick */
#define SFS_WL_STEP 32u           /* sectors written per static wear-levelling step (power of 2) */
#define SFS_ANCHOR_SPARE 2u       /* units of the anchor area bad ones may take */
#define SFS_RM_ROOM 8u            /* live sectors writes and creates leave to removals */
#define SFS_RM_UNITS 2u           /* erased units collection leaves to removals */
#define SFS_GC_RESERVE (SFS_Q_TARGET + 3u)   /* units outside the fill limit */
/* Media without erase: the host head goes on in a closed unit with at
 * least P / SFS_THREAD_DIV dead sectors, writing only those, when the
 * erased units are down to where collection would run (log.c head_move) */
#define SFS_THREAD_DIV 4u

/* Block table states (values 0..P are closed blocks with that many live
 * sectors). */
#define BS_HEAD 0xF0u
#define BS_QUEUED 0xF1u   /* erased, ready to become the head */
#define BS_FREE 0xF2u     /* holds nothing live, needs an erase */
#define BS_LIMBO 0xF3u    /* emptied since the last checkpoint: not erasable yet */
#define BS_BAD 0xF4u
#define BS_RESERVED 0xF5u /* anchor area */
#define BS_NEXT 0xF6u     /* erased, named by the checkpoint as the host head's next
                             unit: the head moves into it without a checkpoint */
#define BS_GNEXT 0xF7u    /* the same for the collection head */
#define BS_MOVED 0xF8u    /* relocated: every live sector copied (a relocation
                             record says where); still readable, erasable
                             once the record retires (reloc.c) */
#define BS_CKPT 0xF9u     /* media that erase: the unit checkpoints go to (format
                             18, ckpt.c; the anchor ring names it) */
#define BS_CKNEXT 0xFAu   /* erased, held for the next checkpoint unit */

/* Chunks (format 8, DESIGN.md §4): a file's data pages >= 1 live in chunks
 * of geo.C logical pages each; the inode lists its chunks (u16, CHUNK_NONE
 * for none).  A chunk is used, dying (its file or pages died: its map words
 * are trimmed by sfs_trim_step, then it is free) or free. */
#define CHUNK_NONE 0xFFFFu

/* Sector kinds (tag.kind). */
#define TK_DATA 1u
#define TK_MAP1 2u
#define TK_MAP2 3u
#define TK_CKPT 4u
#define TK_RELOC 5u       /* the relocation records (the checkpoint's unit, just
                             before the checkpoint that names it) */
#define TK_RING 6u        /* a record ring sector (format 15, ring.c): seq its place
                             in the ring's sector stream (record number x sectors a
                             record + its index), key / fpage the record number's
                             low 32 / high 16 bits, txn its index in the record,
                             aux the record's length; COMMIT on the record's last */
#define TK_PTR 7u         /* media that erase (format 18): an anchor ring sector
                             naming the checkpoint unit (key), the unit that held
                             the newest checkpoint before it (aux, 0xFFFFFFFF:
                             none) and the sequence number of the unit's first
                             sector (the pointer's seq + 1) */

/* Tag flags. */
#define TF_COMMIT 0x01u   /* commits transaction (owner, txn) */
#define TF_COPY 0x02u     /* DATA: a collection copy of the sector at aux (its
                             relocation record: reloc.c); with COMMIT (owner
                             OWNER_GC) a committed sector, without it a sector
                             of the open transaction (owner, txn) */
/* 0x04: KILLALL in format 2; kills are committed by a checkpoint since
 * format 3 (sfs_commit_kill), never in a tag */
/* 0x08: KILLMERGE (MAP2 merging a kill) until format 7; since the
 * twenty-fourth session on DATA: */
#define TF_OWNED 0x08u    /* a committed collection copy (owner OWNER_GC) whose txn
                             holds the owner of the sector it copies, kept for a
                             repair that finds a lost file's chunks by their
                             sectors (repair.c); a copy commits itself, so its
                             txn names no other transaction (a build before it
                             ignores the flag) */
#define TF_EMPTY 0x10u    /* MAP1/MAP2 mapping nothing: its parent entry becomes none */
#define TF_SIZE 0x20u     /* with COMMIT on a data sector: aux is the file's new size
                             (the commit rides in the tag, no inode program) */
#define TF_NEWCHUNK 0x40u /* DATA: the first sector written into a chunk its file
                             took in this transaction: chunk list entry fpage / C
                             of inode `owner` is this sector's chunk */
#define TF_TRIM 0x80u     /* MAP1 written by a trim step: replay skips it (the
                             checkpoint that follows it at once is its commit) */
/* 0x04 in RAM only, never on media (tag_pack clears it): program the
 * sector with a data CRC that fails.  Collection copies a live data sector
 * whose bytes it cannot read (uncorrectable) that way, so that the map
 * goes on naming a sector of that page and every read of the page is EIO
 * -- never the bytes of whatever a reused sector holds later (DESIGN.md
 * §6, "Bad blocks and ECC"). */
#define TF_LOST 0x04u

#define OWNER_GC 0xFFFEu  /* a garbage-collection copy: commits itself */
#define OWNER_NS 0xFFFFu  /* a namespace operation (create, rename, ...) */

/* Pending entry types. */
#define PT_L1 1u          /* lpn -> sector */
#define PT_L2 2u          /* L1 map index -> map sector */
/* 3: KILL until format 7 (kills now mark chunks dying) */
#define PT_SIZE 4u        /* inode `key`: committed size is `ppn` bytes (newer than
                             its inode sector; from a TF_SIZE commit) */
#define PT_CHUNK 5u       /* inode `key`: chunk list entry ppn >> 16 is chunk
                             ppn & 0xFFFF (newer than its inode sector); a
                             committed one covers `owner` slots from there,
                             taken by consecutive chunks (a log's run) */
#define PF_UNC 0x01u      /* uncommitted (belongs to transaction owner/txn) */
#define PF_NEW 0x04u      /* uncommitted L1 of a page with no committed location
                             (an append): its commit replaces nothing.  Other
                             uncommitted changes look their old location up at
                             commit (two small reads, in the bound): keeping it
                             in every entry cost 4 bytes x K of RAM */
#define PF_OLD 0x08u      /* committed L1 change whose replaced location, the
                             word its L1 sector holds, still counts live:
                             uncounted when the merge of that sector reads the
                             word, or at mount on media without erase.  Set for
                             a chunk page there when collection never runs
                             (map.c old_later: the lookup at commit was a small
                             read a record), and on any medium when the lookup
                             at commit failed on a damaged map sector (the
                             merge that rebuilds it reads the word) */

#define SFS_PEND_SIZE 16u  /* bytes of a pending entry in the checkpoint (SPEC §7) */
struct sfs_pend {
    uint32_t key;
    uint32_t ppn;
    uint32_t txn;
    uint16_t owner;
    uint8_t type;
    uint8_t flags;
};

/* Open handle.  File state lives in the first handle of an inode (the
 * primary); other handles of the same inode only keep a position. */
#define SFS_ACC_APPEND 0x80u
#define SFS_ACC_DSYNC 0x40u   /* every write commits (in its last sector's tag) */
#define SFS_ACC_NOMTIME 0x20u /* writes leave the times (STEADYFS_O_NOMTIME) */
struct sfs_open {
    uint32_t ino;      /* 0: free slot */
    uint8_t kind;      /* STEADYFS_TYPE_FILE / _DIR */
    uint8_t acc;       /* O_ACCMODE bits | SFS_ACC_APPEND | SFS_ACC_DSYNC */
    uint8_t dirty;     /* transaction has changes */
    uint8_t tdirty;    /* a write or shrink set mtime (= ctime) since the inode
                          sector was last written: the next commit stores them */
    uint32_t gen;
    uint32_t ino_ppn;  /* committed inode sector */
    uint32_t txn;      /* transaction id (0: none yet) */
    uint32_t nunc;     /* uncommitted sectors */
    uint64_t size;     /* working size */
    uint64_t csize;    /* committed size */
    uint64_t pos;      /* file position, or directory cookie */
    int64_t mtime;     /* working mtime (ns); ctime = mtime when tdirty */
    /* The first slot of the handle's chunk window: the chunks of
     * geo.cwin slots from here on (primary handle; file.c cw_of(); its
     * CHUNK_UNKNOWN: not known).  A log's next page and a random writer's
     * pages in a window of cwin * C pages cost no read of the inode's
     * chunk list (one small read fills the window). */
    uint16_t cw_base;
};
/* Slots in a handle's chunk window: 8, SFS_CWIN_MAX on byte-addressable
 * media without erase (fs.c); a window fill is one read of cwin / 2 words. */
#define SFS_CWIN 8u
#define SFS_CWIN_MAX 64u
#define CHUNK_UNKNOWN 0xFFFEu

typedef struct sfs_tag {
    uint8_t kind, flags;
    uint16_t owner;
    uint16_t fpage;   /* DATA: the file page (0: an inode sector, a directory
                         bucket, page 0), for TF_NEWCHUNK */
    uint64_t seq;     /* 48 bits on media */
    uint32_t key, txn, aux, dcrc;
} sfs_tag;

/* Whose a data sector is: its owner, or for a committed collection copy
 * (OWNER_GC) the owner it keeps in txn (TF_OWNED); OWNER_GC where a copy
 * keeps none. */
static inline uint32_t sfs_tag_whose(const sfs_tag *t)
{
    return t->owner != OWNER_GC ? t->owner : (t->flags & TF_OWNED) ? t->txn : OWNER_GC;
}

/* Inode sector payload. */
#define INODE_MAGIC 0x31494653u  /* "SFI1" */
#define SFS_INODE_HDR 64u        /* a symlink's target follows (SPEC §5) */
typedef struct sfs_inode {
    uint32_t ino, gen;
    uint8_t type;
    uint16_t mode;
    uint32_t parent, uid, gid;
    uint64_t size;
    int64_t mtime, ctime;
} sfs_inode;

/* crc.c */

/* little-endian helpers.  On a little-endian target the bytes are the
 * value's own, so memcpy says it: the compiler makes it one (unaligned)
 * load or store where the core allows it (Cortex-M3) instead of four byte
 * accesses and shifts -- ~1 KB of the core's code on the firmware */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SFS_LE 1   /* RAM integers are laid out as on media */
static inline void sfs_put32(uint8_t *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }
static inline uint32_t sfs_get32(const uint8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}
static inline void sfs_put16(uint8_t *p, uint32_t v)
{
    uint16_t h = (uint16_t)v;
    __builtin_memcpy(p, &h, 2);
}
static inline uint32_t sfs_get16(const uint8_t *p)
{
    uint16_t h;
    __builtin_memcpy(&h, p, 2);
    return h;
}
#else
#define SFS_LE 0
static inline void sfs_put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline uint32_t sfs_get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline void sfs_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t sfs_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
#endif
static inline void sfs_put64(uint8_t *p, uint64_t v)
{
    sfs_put32(p, (uint32_t)v); sfs_put32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t sfs_get64(const uint8_t *p)
{
    return (uint64_t)sfs_get32(p) | (uint64_t)sfs_get32(p + 4) << 32;
}

/* Map words on media (format 16, SPEC §4).  A word that names a sector
 * carries a check of that sector number and of the key the word maps, in
 * the bits above what the device's sector numbers need (15 on
 * mt29f1g01).  NOR and MRAM hand back a word of a damaged map sector
 * unchecked (a small read does not cover the sector's CRC, and there is
 * no ECC): without the check such a word named some other sector, a
 * commit uncounted that sector's unit, and collection later erased the
 * unit with a live sector in it.  NONE and LOST are written as they are.
 * sfs_map_get gives the sector, NONE, or LOST where the check fails;
 * key0: the logical page of word 0 of an L1 sector, or sfs_l2_key of an
 * L2 sector's (the L1 index of word 0, in a key space of its own). */
uint32_t sfs_word_enc(const steadyfs *fs, uint32_t key, uint32_t ppn);
uint32_t sfs_word_dec(const steadyfs *fs, uint32_t key, uint32_t w);
static inline uint32_t sfs_l2_key(uint32_t m) { return 0x80000000u | m; }
uint32_t sfs_map_get(const steadyfs *fs, const uint8_t *sec, uint32_t key0, uint32_t i);
void sfs_map_put(const steadyfs *fs, uint8_t *sec, uint32_t key0, uint32_t i, uint32_t ppn);

/* Chunk-list entries on media (format 17, SPEC §5): a chunk number carries
 * a check of itself and of the inode and slot that list it, in the bits of
 * the u16 above what the device's chunk numbers need (6 on mt29f1g01, 5
 * on mt25q128 and em064lx).
 * NOR and MRAM read an open file's list with small reads that its CRC does
 * not cover: without the check a changed entry named another file's
 * chunk, and an O_DSYNC write there committed over that file's page.
 * sfs_chunk_dec gives the chunk, CHUNK_NONE, or CHUNK_BAD where the check
 * fails (a value >= n_c, as callers test); sfs_list_get / _put do the
 * same on an inode sector in RAM. */
#define CHUNK_BAD 0xFFFDu
uint32_t sfs_chunk_enc(const steadyfs *fs, uint32_t ino, uint32_t slot, uint32_t c);
uint32_t sfs_chunk_dec(const steadyfs *fs, uint32_t ino, uint32_t slot, uint32_t e);
uint32_t sfs_list_get(const steadyfs *fs, const uint8_t *sec, uint32_t ino, uint32_t slot);
void sfs_list_put(const steadyfs *fs, uint8_t *sec, uint32_t ino, uint32_t slot, uint32_t c);

static inline uint32_t sfs_blk(const steadyfs *fs, uint32_t ppn) { return ppn / fs->geo.P; }
/* A closed unit (no head, not erased, free, bad or moved): its block
 * table value is its live count. */
static inline int sfs_closed(const steadyfs *fs, uint32_t b) { return fs->blk[b] <= fs->geo.P; }
/* Bytes a sector takes in its unit, and in the sector buffer: the payload
 * and, where the tag is not in the spare area, the tag after it (inside
 * the sector_size bytes, or beside them: SPEC §2). */
/* A sector's maybe-live bits (media without erase: log.c), or NULL: none
 * kept, or none compiled in (STEADYFS_ERASELESS_MEDIA 0, steadyfs.h). */
static inline uint8_t *sfs_maybe(const steadyfs *fs) { return STEADYFS_ERASELESS_MEDIA ? fs->maybe_live : NULL; }
/* The live sectors the fill limit charges: fs->live, less one for each
 * committed change whose replaced sector still counts (PF_OLD, map.c):
 * that sector is dead.  (A flagged change of a page that had no sector, a
 * hole, so charges its own sector only at its merge.)  Either way the
 * sectors counted stay within the limit plus K, what sfs_thread_min
 * allows for, and writes meet ENOSPC at the limit, not K sectors before
 * it. */
static inline uint32_t sfs_live_charged(const steadyfs *fs)
{
    uint32_t i, n = 0;
    if (!sfs_maybe(fs))
        return fs->live;
    for (i = 0; i < fs->npend; i++)
        n += (fs->pend[i].flags & PF_OLD) != 0;
    return fs->live > n ? fs->live - n : 0;
}

/* Would `need` more sectors pass the fill limit?  The live count first
 * (a bound of the charged one, no scan: the common case on every host
 * sector), the charged count only near the limit. */
static inline int sfs_live_over(const steadyfs *fs, uint32_t need)
{
    return fs->live + need > fs->live_max && sfs_live_charged(fs) + need > fs->live_max;
}


static inline uint32_t sfs_stride(const steadyfs *fs)
{
    return fs->geo.payload + (fs->geo.tag_inline ? SFS_TAG_SIZE : 0u);
}
/* Logical pages (SPEC §3).  The shared table holds, for every inode number
 * ino, a block of S (a power of two > dir_pages) logical pages: its inode
 * sector (k = 0) and its sectors k = 1 + d, d < dir_pages: a file's page 0,
 * a directory's bucket d.  Small files and directories need no chunk, and
 * an inode's block lies in one map sector. */
static inline uint32_t sfs_shared_lpn(const steadyfs *fs, uint32_t ino, uint32_t k)
{
    return ino * fs->geo.S + k;
}
/* The inode whose shared block holds lpn (lpn < cbase), and which sector k. */
static inline uint32_t sfs_shared_ino(const steadyfs *fs, uint32_t lpn) { return lpn / fs->geo.S; }
static inline uint32_t sfs_shared_k(const steadyfs *fs, uint32_t lpn) { return lpn % fs->geo.S; }
/* Logical page of file page i >= 1 held by chunk `chunk`: slot i / C,
 * offset i % C (offset 0 of slot 0 stays unused: page 0 is in the shared
 * table; so a 4 KiB-aligned pair of pages shares a run of 4 map words, one
 * small read for both) */
static inline uint32_t sfs_chunk_lpn(const steadyfs *fs, uint32_t chunk, uint32_t i)
{
    return fs->geo.cbase + chunk * fs->geo.C + i % fs->geo.C;
}
/* The chunk a logical page is in, or CHUNK_NONE (the shared table). */
static inline uint32_t sfs_chunk_of_lpn(const steadyfs *fs, uint32_t lpn)
{
    return lpn < fs->geo.cbase ? CHUNK_NONE : (lpn - fs->geo.cbase) / fs->geo.C;
}
/* The first chunk slot whose pages are all >= page `from`: a cut at
 * `from` gives up the chunks of the slots from there on. */
static inline uint32_t sfs_first_dead_slot(const steadyfs *fs, uint32_t from)
{
    return from <= 1u ? 0u : (from + fs->geo.C - 1u) / fs->geo.C;
}
/* Bit i of a bitmap (chunk.c: called, not inlined -- ~25 places). */
int sfs_bit(const uint8_t *map, uint32_t i);
void sfs_bit_set(uint8_t *map, uint32_t i, int on);

/* media.c: sector I/O.  Reads return >= 0 (bit errors corrected in the
 * worst codeword) or an error; ECORRUPT when the tag or checksum fails. */
/* damaged_ok: also the tag of a page whose read failed its ECC (the
 * device hands back the raw bytes), trusted when the tag's own CRC holds
 * -- collection must know what a damaged sector held -- and then 1 (its
 * unit is queued for refresh); else such a page is ECORRUPT, as a torn
 * program's (replay ends there). */
int sfs_rd_tag_in(steadyfs *fs, uint32_t ppn, sfs_tag *t, int damaged_ok);
static inline int sfs_rd_tag(steadyfs *fs, uint32_t ppn, sfs_tag *t) { return sfs_rd_tag_in(fs, ppn, t, 0); }
/* A whole sector: the device's correction count (>= 0), ECORRUPT (CRC),
 * EIO (past its ECC, or no bytes).  With no_bytes_apart, a read the
 * device returns no bytes for (SBD_ERR_IO after media.c rd's tries: the
 * link or the device, not the page) is SFS_NO_BYTES instead, for a caller
 * that takes a sector it cannot read for damaged (rebuilds it, marks its
 * page lost, falls back past it): it fails with EIO instead. */
int sfs_rd_sector_in(steadyfs *fs, uint32_t ppn, uint8_t *buf, sfs_tag *t, int no_bytes_apart);
/* Has a device read returned no bytes (after media.c rd's tries) since
 * fs->no_bytes was `before`?  For fault handling that judges sectors by
 * many reads (a map sector's rebuild, the repair's walk): a read that
 * failed so says nothing of the sector, and the verdicts are not acted
 * on.  255 (saturated) always counts: a device failing that often in one
 * call (sfs_begin counts from 0). */
static inline int sfs_no_bytes_since(const steadyfs *fs, uint8_t before)
{
    return fs->no_bytes != before || fs->no_bytes == 255u;
}
static inline int sfs_rd_sector(steadyfs *fs, uint32_t ppn, uint8_t *buf, sfs_tag *t)
{
    return sfs_rd_sector_in(fs, ppn, buf, t, 0);
}
/* n 32-bit words from word idx of sector ppn's payload (a small read; no
 * CRC).  damaged_ok: also the raw words of a page whose read failed its
 * ECC (its unit is queued for refresh) -- for map words only, each of
 * which carries its own check (sfs_word_dec); else such a page is EIO. */
int sfs_rd_words_in(steadyfs *fs, uint32_t ppn, uint32_t idx, uint32_t n, uint32_t *out, int damaged_ok);
static inline int sfs_rd_words(steadyfs *fs, uint32_t ppn, uint32_t idx, uint32_t n, uint32_t *out)
{
    return sfs_rd_words_in(fs, ppn, idx, n, out, 0);
}
/* The sector with its tag as on the medium (sfs_stride bytes into buf, the
 * spare tag into spare): a device code, not checked. */
int sfs_rd_raw(steadyfs *fs, uint32_t ppn, uint8_t *buf, uint8_t *spare);
int sfs_rd_erased(steadyfs *fs, uint32_t ppn);  /* 1 all erased, 0 not, <0 err */
int sfs_prog_sector(steadyfs *fs, uint32_t ppn, uint8_t *buf, const sfs_tag *t);
/* Runs: up to SFS_RUN_MAX consecutive sectors in one gathered device
 * program, whole payloads from the caller's memory (media without erase
 * whose device offers progv: a command's fixed cost paid once). */
#define SFS_RUN_MAX 2u
static inline int sfs_runs_offered(const steadyfs *fs)
{
    /* the tag right after its payload (beside or inside the sector) */
    return STEADYFS_ERASELESS_MEDIA && fs->cfg.bd->ops->progv && fs->geo.tag_inline && !fs->cfg.bd->geo.needs_erase;
}
/* (and sectors ppn .. ppn + n - 1 lie in one device block) */
int sfs_run_fits(const steadyfs *fs, uint32_t ppn, uint32_t n);
int sfs_prog_run(steadyfs *fs, uint32_t ppn, const uint8_t *src, const sfs_tag *t, uint32_t n);
int sfs_erase(steadyfs *fs, uint32_t block);
int sfs_dev_err(steadyfs *fs, int rc);           /* map SBD errors; power: dead */
void sfs_note_flips(steadyfs *fs, uint32_t ppn, int corrected);

/* alloc.c: blocks, head, erase-ahead, garbage collection. */
void sfs_count_inc(steadyfs *fs, uint32_t ppn);
void sfs_count_dec(steadyfs *fs, uint32_t ppn);
/* The host head has a free sector, or SFS_NEED_ROOM / SFS_NEED_CKPT. */
int sfs_log_reserve(steadyfs *fs, sfs_mode mode);
/* A full host head moves (after the catch-up SFS_NEED_ROOM asked for):
 * ENOSPC with fewer erased units than the call keeps. */
int sfs_log_host_move(steadyfs *fs, sfs_mode mode);
int sfs_log_reserve_gc(steadyfs *fs, sfs_mode mode);   /* collection head has one */
int sfs_log_prog(steadyfs *fs, uint8_t *buf, sfs_tag *t, uint32_t *ppn_out);
/* May the host head, reserved, take n sectors in a row as one run (no
 * passed slot, no checkpoint due between them, sfs_run_fits)?  Then
 * sfs_log_prog_run programs them (ppn_out: where each went). */
int sfs_log_run_ok(const steadyfs *fs, uint32_t n);
int sfs_log_prog_run(steadyfs *fs, const uint8_t *src, sfs_tag *t, uint32_t n, uint32_t *ppn_out);
int sfs_erase_ahead(steadyfs *fs);
/* after a host sector: collection for at most `most` sectors' worth of
 * debt (SFS_DEBT_STEP; 1 where the call writes one sector, a commit) */
int sfs_gc_pace(steadyfs *fs, sfs_mode mode, uint32_t most);
int sfs_gc_one(steadyfs *fs, sfs_mode mode);    /* one step; 0 nothing to do */
/* Would the pace of the next `sectors` host sectors do nothing (no trim
 * by age, no wear-levelling step, the pool full: no collection)? */
int sfs_pace_quiet(const steadyfs *fs, uint32_t sectors);
/* *rc is what a lower layer asked for (SFS_NEED_CKPT, SFS_NEED_ROOM): do
 * it (*rc its result) and return 1 if the caller should call again;
 * any other *rc: 0, *rc unchanged. */
int sfs_serve(steadyfs *fs, int *rc, sfs_mode mode);
/* sfs_prep (room in the pending table and a free sector at the head for
 * one data sector, and pending room for `more` sectors of a run after it),
 * with what the log asks for first done: how the files layer prepares
 * every sector it writes. */
int sfs_room(steadyfs *fs, uint32_t more, sfs_mode mode);
/* rc = expr, again after each need served (layers 5 and up). */
#define SFS_SERVED(fs, mode, rc, expr)                                                               \
    do {                                                                                             \
        (rc) = (expr);                                                                               \
    } while (sfs_serve((fs), &(rc), (mode)))
/* A collection step (sfs_gc_one, sfs_wl_one) as collection's own work:
 * mode | SFS_MODE_GC, and what it programs adds no debt. */
int sfs_collect(steadyfs *fs, int (*step)(steadyfs *, sfs_mode), sfs_mode mode);
/* One static wear-levelling step (its own victim slot); 0 nothing to do. */
int sfs_wl_one(steadyfs *fs, sfs_mode mode);
/* Erased or erasable units (queued, named, held, free) and those the next
 * checkpoint makes erasable (LIMBO), less the one kept for a
 * checkpoint-unit switch (sfs_ck_kept); sfs_ready_units: the same without
 * LIMBO.  Every floor of the pace and the heads counts these.  log.c. */
uint32_t sfs_free_blocks(const steadyfs *fs);
uint32_t sfs_ready_units(const steadyfs *fs);
/* Units a checkpoint-unit switch may take: queued (not named for a head),
 * held (BS_CKNEXT) or free.  A scan of the table.  log.c. */
uint32_t sfs_switch_units(const steadyfs *fs);
/* Name an erased unit as the next unit of each head that has none (at a
 * checkpoint, which records it: DESIGN.md §5). */
void sfs_name_next(steadyfs *fs);
/* The unit named as head gc's next (0 host, 1 collection), or SFS_NONE. */
uint32_t sfs_next_unit(steadyfs *fs, int gc);
/* The host head goes past the slots of its unit it passes (head_skip:
 * live when it entered the unit; run time and replay alike). */
void sfs_log_skip_live(steadyfs *fs);
/* Media without erase: can the host head go on in a closed unit's dead
 * sectors (then collection has nothing to pay for)? */
int sfs_log_can_thread(steadyfs *fs);
/* Replay: head gc, full, moves into its named next unit; the host head
 * into the closed unit named for it to go on in (log.thread_next). */
void sfs_enter_next(steadyfs *fs, int gc);
void sfs_enter_thread(steadyfs *fs);
/* The live limit for the units still good: fill_permille of them, less
 * the collection reserve (format, and every unit that goes bad). */
uint32_t sfs_live_limit(const steadyfs *fs);
/* Media without erase (bits: the maybe-live bits are kept): the dead
 * sectors the host head is sure to find in some closed unit whenever the
 * erased units run low, so that collection never runs (DESIGN.md §9); 0
 * where that cannot be shown (a small pool, media that erase, a build
 * without that code). */
uint32_t sfs_thread_min(const steadyfs *fs, int bits);
/* May a commit leave the sector it replaced counted until its L1
 * sector's merge (map.c PF_OLD)?  Where the pigeonhole holds with K such
 * sectors counted (log.c). */
int sfs_old_later_ok(const steadyfs *fs, int bits);
int sfs_begin(steadyfs *fs, int modify);         /* API call prologue: 0 reads, 1 writes,
                                                    2 commits, 4 removes (reserves, §6) */
int sfs_end(steadyfs *fs, int rc);               /* API call epilogue */
/* A write's epilogue (SFS_END_SHORT: a short write, never light; the rest
 * below): an append may leave its optional erase to the next
 * write's start (sfs_write_start_erase), so that a close coming first (a
 * logger's rotation) drops it; writes elsewhere in a file (random, in
 * place) erase as any call; a write that leaves its last sector held
 * is never light (SFS_END_HELD: its record's light work, housekeeping or
 * an erase, goes to the sync that programs that sector, one piece a
 * record as for an O_DSYNC write). */
typedef enum { SFS_END_CALL, SFS_END_APPEND, SFS_END_HELD, SFS_END_SHORT } sfs_end_kind;
/* log.call_marks: what the running call has done and what the call before
 * it did, for sfs_end's one erase and one piece of housekeeping a record
 * (a write and the sync after it are one record). */
enum {
    SFS_MARK_ERASED = 1u,           /* this call erased a unit */
    SFS_MARK_PREV_ERASED = 2u,      /* the call before it did (sfs_begin: one up) */
    SFS_MARK_KEPT = 4u,             /* this call programmed housekeeping: a map
                                       sector, a copy or a checkpoint */
    SFS_MARK_HELD_KEPT = 8u,        /* ... and left its last sector held */
    SFS_MARK_PREV_HELD_KEPT = 16u   /* the call before it did both (one up) */
};
int sfs_end_write(steadyfs *fs, int rc, sfs_end_kind kind);
/* A write's start (len bytes, ending at file offset `end`): the erase an
 * append's end chose, or a large write's refill of the erase queue
 * (NAND). */
int sfs_write_start_erase(steadyfs *fs, uint32_t len, uint64_t end);

/* budget.c: in test builds (STEADYFS_CHECK_BUDGET) every call spends
 * against the budget steadyfs_bound states for it (DESIGN.md §7, issue 12
 * item 4); elsewhere these cost nothing. */
enum { SFS_SPEND_READ, SFS_SPEND_PROG, SFS_SPEND_ERASE };
#ifdef STEADYFS_CHECK_BUDGET
void sfs_budget_arm(steadyfs *fs, steadyfs_call call, uint64_t n);
/* A path call: n is the deeper path's component count (path2 may be NULL). */
void sfs_budget_arm_path(steadyfs *fs, steadyfs_call call, const char *path, const char *path2);
void sfs_budget_spend(steadyfs *fs, uint32_t what, uint32_t n);
void sfs_budget_void(steadyfs *fs);
void sfs_budget_check(steadyfs *fs);
/* After a call that does not end in sfs_end (the read-only ones). */
static inline void sfs_budget_end(steadyfs *fs)
{
    if (fs && fs->mounted)
        sfs_budget_check(fs);
}
#else
static inline void sfs_budget_arm(steadyfs *fs, steadyfs_call call, uint64_t n)
{
    (void)fs; (void)call; (void)n;
}
static inline void sfs_budget_spend(steadyfs *fs, uint32_t what, uint32_t n)
{
    (void)fs; (void)what; (void)n;
}
static inline void sfs_budget_void(steadyfs *fs) { (void)fs; }
static inline void sfs_budget_check(steadyfs *fs) { (void)fs; }
static inline void sfs_budget_end(steadyfs *fs) { (void)fs; }
/* a macro: the paths are not even walked outside test builds */
#define sfs_budget_arm_path(fs, call, path, path2) ((void)(fs))
#endif

/* map.c: the map, pending changes, transactions. */
struct sfs_pend *sfs_pend_find(steadyfs *fs, uint8_t type, uint32_t key, int unc);
void sfs_pend_del(steadyfs *fs, struct sfs_pend *p);
/* A committed change of lpn to none (kill.c); ENOSPC without room. */
int sfs_pend_none(steadyfs *fs, uint32_t lpn);
/* The size entry of inode ino goes (its inode sector has the size). */
void sfs_drop_size(steadyfs *fs, uint32_t ino);
int sfs_lookup(steadyfs *fs, uint32_t lpn, int working, uint32_t *ppn);
int sfs_l1_locate(steadyfs *fs, uint32_t m, uint32_t *ppn);
int sfs_make_room(steadyfs *fs, uint32_t need, sfs_mode mode);
/* With the table within need + 1 of full, the first step of the round
 * sfs_make_room would run (one merge: an inode sector, an L1 or an L2
 * sector), and no more: 1 done, 0 none due. */
#if STEADYFS_ERASELESS_MEDIA
int sfs_room_step(steadyfs *fs, uint32_t need, sfs_mode mode);
#else   /* (called on MRAM only: sfs_end) */
static inline int sfs_room_step(steadyfs *fs, uint32_t need, sfs_mode mode)
{
    (void)fs, (void)need, (void)mode;
    return 0;
}
#endif
int sfs_apply_prog(steadyfs *fs, uint32_t lpn, uint32_t ppn, uint16_t owner, uint32_t txn,
                   uint32_t old_hint);
int sfs_apply_commit(steadyfs *fs, uint16_t owner, uint32_t txn);
int sfs_apply_map(steadyfs *fs, const sfs_tag *t, uint32_t ppn);
/* A TF_SIZE commit: inode ino's committed size becomes `size`. */
int sfs_apply_size(steadyfs *fs, uint32_t ino, uint32_t size);
/* Effect of one replayed or just-written data sector (tag t at ppn). */
int sfs_apply_data(steadyfs *fs, const sfs_tag *t, uint32_t ppn, uint32_t old_hint);
/* 0 if `need` more live sectors fit under the live limit (after at most
 * two trim steps, if dying chunks still count sectors), else ENOSPC. */
int sfs_live_room(steadyfs *fs, uint32_t need, sfs_mode mode);
int sfs_merge_l1(steadyfs *fs, uint32_t m, sfs_mode mode);
/* A light call's housekeeping: with the pending table within 8 entries of
 * full, merge the L1 sector of the oldest committed change outside the
 * sector the newest one went to (a log being appended keeps gathering its
 * changes; the cold ones go one per light call instead of all together
 * when the table fills).  1 if it merged. */
int sfs_merge_cold(steadyfs *fs, sfs_mode mode);
int sfs_merge_l2(steadyfs *fs, uint32_t l2, sfs_mode mode);
/* What a trim merge of an L1 sector removes: the words of every dying
 * chunk in it (dying), of the shared block of inode blk (0: none), and of
 * chunk tail_c from offset tail_o on (tail_c CHUNK_NONE: none). */
struct sfs_trim {
    int dying;
    uint32_t blk, tail_c, tail_o;
    int counted;   /* its words have been uncounted in this attempt: 0 to
                      start; a failed program counts them again (map.c
                      trim_recount) before the checkpoint it asks for */
};
int sfs_trim_l1(steadyfs *fs, uint32_t m, struct sfs_trim *tr, sfs_mode mode);
void sfs_abort(steadyfs *fs, int any, uint16_t owner, uint32_t txn);
/* Write one data sector of lpn from fs->buf as part of (owner, txn). */
int sfs_prep(steadyfs *fs, uint32_t more, sfs_mode mode);
int sfs_write_lpn(steadyfs *fs, uint32_t lpn, uint16_t owner, uint32_t *txn, uint8_t flags,
                  uint32_t old_hint, uint32_t *ppn_out);
/* The same for file page fpage of a file (tag.fpage: TF_NEWCHUNK). */
int sfs_write_page(steadyfs *fs, uint32_t lpn, uint32_t fpage, uint16_t owner, uint32_t *txn,
                   uint8_t flags, uint32_t aux, uint32_t old_hint, uint32_t *ppn_out);
/* File pages fpage .. fpage + n - 1 (logical pages lpn[], tag flags
 * flags[], old-location hints hint[]) as one run (sfs_log_run_ok) from
 * whole payloads at src; the last one's tag carries aux. */
int sfs_write_run(steadyfs *fs, const uint32_t *lpn, uint32_t fpage, uint16_t owner, uint32_t *txn,
                  const uint8_t *flags, uint32_t aux, const uint32_t *hint, const uint8_t *src, uint32_t n);

/* chunk.c: chunks of the dense logical space. */
/* A free chunk (neither used nor dying nor taken by an uncommitted
 * transaction), from the allocation cursor on: *c, or ENOSPC. */
/* A free chunk: not used, not dying, not taken by an uncommitted
 * transaction's sector, not `exclude` (a chunk the caller holds for a
 * sector not programmed yet; SFS_NONE: none). */
int sfs_chunk_find(steadyfs *fs, uint32_t *c, uint32_t exclude);
/* Chunk c dies: its words are trimmed by a later trim step. */
void sfs_chunk_die(steadyfs *fs, uint32_t c);
/* One trim step: the next L1 sector (from the trim cursor) holding dying
 * chunks is merged with their words none, their sectors uncounted and the
 * chunks freed (one sector read, one program, and the checkpoint that
 * must follow).  1 if it did one, 0 if no chunk is dying. */
int sfs_trim_step(steadyfs *fs, sfs_mode mode);
/* The L2 word of the L1 sector the next trim step takes, if no pending
 * change or cached word says where that sector is: 1 read now, 0 known
 * (or nothing dying).  On MRAM a light call reads it and leaves the trim
 * to the next (DESIGN.md §9). */
#if STEADYFS_ERASELESS_MEDIA
int sfs_trim_place(steadyfs *fs);
#else
static inline int sfs_trim_place(steadyfs *fs)
{
    (void)fs;
    return 0;
}
#endif
/* Sectors after which the pace takes a trim step if light calls did not. */
#define SFS_TRIM_AGE 32u
/* Trim steps one API call may take (the pace's, a light call's, two for a
 * write short of live room; steadyfs_bound counts them); unmount and idle
 * steadyfs_gc_step take as many as they need. */
#define SFS_TRIMS_PER_CALL 3u
/* Live room below which a light call trims without waiting for a
 * checkpoint due anyway: four units' worth. */
#define SFS_TRIM_ROOM(fs) (4u * (fs)->geo.P)
/* reloc.c: relocation records and the sweep (DESIGN.md §6). */
/* Records one sweep cycle spans: each completed record calls for
 * ceil(n_l1 / SFS_RELOC_RECS) sweep steps, so a record retires within
 * SFS_RELOC_RECS later ones. */
/* (34: mt29f1g01's n_l1 / 4, so its records cost the sweep 4 steps each,
 * not ceil(136 / 32) = 5, and the pace s is 7, not 8: DESIGN.md §6) */
#define SFS_RELOC_RECS 34u
/* Records kept: the R + 1 run time holds at most, and replay's: replay
 * starts from the relocation sector the last checkpoint names and adds a
 * record for each victim whose copies follow it, but retires none (sweep
 * steps are not replayed), so after a cut it holds the records that
 * sector held plus those begun since -- those that retired since
 * included.  Run time begins a victim only while that sum stays within
 * the cap (sfs_reloc_room: `saved` + `added`); SFS_RELOC_SLACK more than
 * the R + 1 let a few victims begin between two checkpoints while the
 * records are full (with a cap of R + 2, a fixed 34, two retired and two
 * begun between checkpoints made the mount after a cut fail with
 * ECORRUPT: DESIGN.md §10). */
#ifndef SFS_RELOC_SLACK   /* (test_fs_replay_room builds with 0) */
#define SFS_RELOC_SLACK 2u
#endif
#define SFS_RELOC_CAP(fs) ((fs)->geo.R + 2u + SFS_RELOC_SLACK)
/* Copy runs kept: a victim is started only with SFS_RELOC_RUN_ROOM runs
 * free, and replay adds one run per sector at most after the checkpoint
 * without the retirements run time made (sweep steps are not replayed). */
#define SFS_RELOC_RUN_ROOM 3u
#define SFS_RELOC_RUNS(fs) (SFS_RELOC_RECS + 8u + (fs)->cfg.replay_max + 2u)
/* The relocation tables in work area w (NULL: none) from *off on. */
void sfs_reloc_place(steadyfs *fs, uint8_t *w, uint32_t *off);
/* The next n bytes (4-aligned) of work area w at *off (moved past them),
 * NULL without a work area (sizes only: steadyfs_work_size). */
void *sfs_carve(uint8_t *w, uint32_t *off, uint32_t n);
/* Where the live copy of the sector at ppn is (ppn itself if it was not
 * copied, or its record retired). */
uint32_t sfs_copy_of(const steadyfs *fs, uint32_t ppn);
/* Can collection start another victim (room for its record and runs)? */
int sfs_reloc_room(const steadyfs *fs);
/* A copy (tag t, TF_COPY) of the sector at src was programmed at dst: its
 * record and run, the counts, the pending change that named src, the L1
 * index made dirty (run time and replay alike). */
int sfs_reloc_copy(steadyfs *fs, const sfs_tag *t, uint32_t src, uint32_t dst);
/* Collection is done with the victim unit b (every sector examined):
 * its record, if it has one, is complete (b becomes MOVED if nothing is
 * counted in it any more).  1 if b had a record. */
int sfs_reloc_end(steadyfs *fs, uint32_t b);
/* The closed unit b counts nothing any more: it may be erased after the
 * next checkpoint (LIMBO), or, while a record still names it, once that
 * record retires (MOVED). */
void sfs_reloc_empty(steadyfs *fs, uint32_t b);
/* Does a record still name unit b (so it must not be erased)? */
int sfs_reloc_holds(const steadyfs *fs, uint32_t b);
/* One step of the sweep the completed records call for: L1 indices are
 * passed (free while clean) until one dirty sector is merged.  1 if it
 * merged one, 0 if no step is owed. */
int sfs_sweep_step(steadyfs *fs, sfs_mode mode);
/* Records the sweep has passed a whole walk since they completed retire,
 * oldest first: their units become erasable after the next checkpoint. */
void sfs_reloc_retire(steadyfs *fs);
/* The words of an L1 image (index m) resolved (sfs_resolve); its dirty
 * bit goes once it is written (sfs_reloc_written). */
void sfs_reloc_l1(steadyfs *fs, uint8_t *buf, uint32_t m);
void sfs_reloc_written(steadyfs *fs, uint32_t m);
/* The relocation sector's payload from RAM, and back (mount). */
void sfs_reloc_save(steadyfs *fs, uint8_t *buf);
int sfs_reloc_load(steadyfs *fs, const uint8_t *buf);
/* Mount: no record and nothing dirty until the relocation sector is
 * loaded; after replay, the victim of the last record continues. */
void sfs_reloc_reset(steadyfs *fs);
void sfs_reloc_mounted(steadyfs *fs);
/* alloc.c: a unit's state (counts of queued, free, limbo units kept). */
void sfs_set_state(steadyfs *fs, uint32_t b, uint8_t s);
void sfs_note_erase(steadyfs *fs);
void sfs_count_dec_raw(steadyfs *fs, uint32_t ppn);
/* Repair (repair.c): unit b, a head or closed, counts n live sectors (a
 * recount where damage left the count wrong); 1 if it did not before. */
int sfs_count_fix(steadyfs *fs, uint32_t b, uint32_t n);

/* kill.c: kills and orphans.  Commit transaction (owner, txn), whose
 * sectors are all programmed and none with COMMIT, together with a kill of
 * inode ino (its pages >= from die; all: the inode itself): the chunks of
 * what dies become dying, the inode's own sectors are unmapped, and a
 * checkpoint is the commit record.  So the log holds no kill and mount
 * never replays one; a cut before the checkpoint is durable leaves the
 * transaction without a commit, and replay drops it (DESIGN.md §5). */
#define SFS_KILL_FROM 0u    /* data pages >= from die (a shrink) */
#define SFS_KILL_ALL 1u     /* the inode dies (unlink, rmdir, rename over it) */
#define SFS_KILL_ORPHAN 2u  /* the inode loses its name but is open: an orphan
                               (fs->orphans) until its last handle closes */
/* type: what its directory entry says it is (0: not known), taken where
 * its inode sector is lost (uncorrectable): the name goes, and a file's
 * chunks are found by what no other file lists (kill.c scavenge). */
int sfs_commit_kill(steadyfs *fs, uint16_t owner, uint32_t txn, uint32_t ino, uint32_t from,
                    uint32_t how, uint8_t type);
/* Repair (repair.c): inode ino, which no directory names and whose inode
 * sector is lost, dies as a `type` (a file: its chunks are the ones no
 * other file lists; a directory: its block is trimmed), committed by a
 * checkpoint. */
int sfs_kill_lost(steadyfs *fs, uint32_t ino, uint8_t type);
/* Orphans (DESIGN.md §5): kill the orphan ino (0: any that no handle holds
 * open; lazy: a light call's, only with the pending room the kill needs at
 * hand), committed by a checkpoint.  1 if one died, 0 if none did. */
int sfs_reap(steadyfs *fs, uint32_t ino, int lazy);
/* fs->orphans.ino[]: an orphan's inode number, | SFS_ORPHAN_HELD while a
 * handle has it open (RAM only: no handle survives a mount). */
#define SFS_ORPHAN_HELD 0x8000u
#define SFS_ORPHAN_CAP 16u   /* sizeof fs->orphans.ino / 2 */
/* No handle holds orphan ino (0: any) open any more. */
void sfs_orphan_release(steadyfs *fs, uint32_t ino);
/* Is inode ino an orphan? */
int sfs_is_orphan(const steadyfs *fs, uint32_t ino);
static inline uint32_t sfs_orphans(const steadyfs *fs) { return fs->orphans.n; }

/* ckpt.c: checkpoints, anchor, mount. */
int sfs_ckpt_write(steadyfs *fs);
/* Media that erase: in a light call, the checkpoints moved on to the unit
 * held for them (its pointer record: one program) when their unit is
 * within SFS_CK_EARLY sectors of its end, so that the switch does not
 * come in a call that is busy already.  1 done, 0 not, or an error. */
int sfs_ckpt_switch_early(steadyfs *fs);
int sfs_ckpt_mount(steadyfs *fs);

/* inode.c-like helpers (file.c) */
void sfs_inode_pack(steadyfs *fs, uint8_t *buf, const sfs_inode *in);
int sfs_inode_unpack(steadyfs *fs, const uint8_t *buf, sfs_inode *in);
/* Inode ino's sector into fs->buf and *in, with its committed size entry
 * applied: with working, the newest (a transaction's uncommitted sector:
 * the one a shrink writes before its kill commits it); without, the
 * committed one, which is what a sector that commits on its own (a size
 * merge) may build on. */
int sfs_inode_read(steadyfs *fs, uint32_t ino, int working, sfs_inode *in, uint32_t *ppn);
/* Into the chunk list of inode ino's sector in fs->buf: its committed
 * chunk entries, and with owner ino the uncommitted ones of (owner, txn). */
void sfs_inode_chunks(steadyfs *fs, uint32_t ino, uint16_t owner, uint32_t txn);
/* The chunk a pending chunk entry gives slot `slot` of inode ino (the
 * uncommitted one of its own transaction, with working, first; else a
 * committed run covering it), or CHUNK_NONE. */
uint32_t sfs_chunk_entry(steadyfs *fs, uint32_t ino, uint32_t slot, int working);
/* The chunk of slot `slot` of inode ino (working: its transaction's own
 * too), or CHUNK_NONE: a pending chunk entry, else the inode sector. */
int sfs_chunk_get(steadyfs *fs, uint32_t ino, uint32_t slot, int working, uint32_t *chunk);
/* Program inode ino again as part of (owner, *txn) with tag flags: its
 * committed sector read after the pending room is made (a symlink's target
 * stays), the fields `mask` names taken from `set`.  One inode read and
 * one program: the commit() term of bound.c. */
#define SFS_SET_MODE 0x01u       /* the STEADYFS_ATTR_ bits, and: */
#define SFS_SET_UID 0x02u
#define SFS_SET_GID 0x04u
#define SFS_SET_MTIME 0x08u
#define SFS_SET_SIZE 0x20u
#define SFS_SET_CTIME 0x40u
#define SFS_SET_PARENT 0x80u
#define SFS_SET_CUT 0x100u       /* a shrink: a file's chunk list is cleared from
                                    slot set->parent on (the pages it removes) */
int sfs_inode_edit(steadyfs *fs, uint32_t ino, const sfs_inode *set, uint32_t mask,
                   uint16_t owner, uint32_t *txn, uint8_t flags, uint32_t *ppn);
/* Commit o's file if it has changes (times: also if only its times
 * changed, as close does). */
int sfs_file_commit(steadyfs *fs, struct sfs_open *o, int times);
struct sfs_open *sfs_primary(steadyfs *fs, uint32_t ino);
/* Handle fd if it is open as `kind`, or NULL. */
struct sfs_open *sfs_handle(steadyfs *fs, int fd, uint8_t kind);
struct sfs_open *sfs_slot(steadyfs *fs);
int sfs_open_ino(steadyfs *fs, uint32_t ino, int flags);

int64_t sfs_now(const steadyfs *fs);   /* the clock, or 0 without one (fs.c) */

/* dir.c */
uint32_t sfs_name_hash(const char *name, uint32_t len);
int sfs_dir_lookup(steadyfs *fs, uint32_t dir, const char *name, uint32_t len,
                   uint32_t *ino, uint8_t *type);
/* Insert (or re-point) / remove a name, writing the bucket sector as part
 * of namespace transaction *txn with tag flags `flags`. */
int sfs_dir_insert2(steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t ino,
                    uint8_t type, uint32_t *txn, uint8_t flags);
int sfs_dir_remove2(steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t *txn,
                    uint8_t flags);
int sfs_dir_empty(steadyfs *fs, uint32_t dir);
int sfs_dir_next(steadyfs *fs, uint32_t dir, uint64_t cookie, steadyfs_dirent *ent);
/* Repair (repair.c): entry i of bucket d (1, or 0 past its last;
 * SFS_DAMAGED: the bucket cannot be read), and a bucket rewritten empty. */
int sfs_dir_entry(steadyfs *fs, uint32_t dir, uint32_t d, uint32_t i, steadyfs_dirent *ent);
int sfs_dir_reset(steadyfs *fs, uint32_t dir, uint32_t d, uint32_t *txn);
/* Entries of type directory in dir (its link count less 2), or an error;
 * *changed: the latest time a bucket's entries changed (0: none known). */
int sfs_dir_subdirs(steadyfs *fs, uint32_t dir, int64_t *changed);
/* A bucket sector's header (SPEC §6): u16 count, u16 bytes used, u8
 * overflow, 3 zero, s64 when its entries last changed (format 20). */
#define SFS_DIR_HDR 16u

/* ns.c */
int sfs_ino_alloc(steadyfs *fs, uint32_t *ino);
/* What a path resolves to (ns.c): the parent directory and the last name
 * in it (name, nlen), the inode it names (0: none) and its type. */
struct sfs_where {
    const char *name;
    uint32_t parent, nlen, ino;
    uint8_t type;
};
/* A new inode named r->name in r->parent (its number into r->ino), in one
 * namespace transaction: a file, a directory or a symlink (its target, tlen
 * bytes, in the inode sector after the header); generation the log's
 * sequence number, mode and owner from attr or the type's defaults, times
 * now.  r->name NULL: no entry, no room to make; the root directory at
 * format (r->ino 0: inode 1, its own parent, replacing nothing), or
 * (repair.c) a directory's inode sector written anew in place of a lost
 * one (inode r->ino, parent r->parent). */
int sfs_create(steadyfs *fs, struct sfs_where *r, uint8_t type, const steadyfs_attr *attr,
               const char *target, uint32_t tlen);
/* stat of inode ino: its inode sector, an open handle's size and times,
 * a directory's link count (its buckets read). */
int sfs_inode_stat(steadyfs *fs, uint32_t ino, steadyfs_stat *st);

/* cache.c: read savers (exact facts, dropped when they may change). */
void sfs_cache_drop(steadyfs *fs);               /* all of them */
void sfs_xc_drop(steadyfs *fs);                  /* all map words (mount) */
/* The cached words of map sector `map` (lvl 0: L1 index, 1: L2 index),
 * which a new map sector just replaced. */
void sfs_xc_drop_map(steadyfs *fs, uint32_t lvl, uint32_t map);
/* Word `key % e1` of map sector `map` (lvl 0: an L1 sector, key a logical
 * page; lvl 1: an L2 sector, key an L1 index), read as a run of 4. */
int sfs_xc_word(steadyfs *fs, uint32_t lvl, uint32_t map, uint32_t key, uint32_t *val);
/* A map word that fails its check, put right where one value explains it
 * (map.c): kind TK_MAP1 for a word of an L1 sector (key its logical
 * page), TK_MAP2 for one of an L2 sector (key the L1 index); SFS_LOST if
 * none or several do. */
uint32_t sfs_word_fix(steadyfs *fs, uint8_t kind, uint32_t key, uint32_t raw);
/* Word `key` of level lvl, if cached, is val from now on: a lost L2 word
 * whose L1 sector was found by its tag (map.c l1_by_tags). */
void sfs_xc_fix(steadyfs *fs, uint32_t lvl, uint32_t key, uint32_t val);
/* Does the cache hold word `key` of level lvl? */
int sfs_xc_cached(const steadyfs *fs, uint32_t lvl, uint32_t key);
#if STEADYFS_ERASELESS_MEDIA   /* (used on MRAM only) */
/* The run of 4 words holding `key` of a map sector just programmed from
 * `sector` (its payload), kept as read (a fact: what the medium holds). */
void sfs_xc_keep(steadyfs *fs, uint32_t lvl, uint32_t key, const uint8_t *sector);
/* The runs of map sector `map` (level lvl) the cache holds: their first
 * keys into out[0..3], most recently used first; how many. */
uint32_t sfs_xc_runs(const steadyfs *fs, uint32_t lvl, uint32_t map, uint32_t *out);
/* The same as sfs_xc_cached (0 in builds without MRAM's code) */
int sfs_xc_has(const steadyfs *fs, uint32_t lvl, uint32_t key);
#else
static inline void sfs_xc_keep(steadyfs *fs, uint32_t lvl, uint32_t key, const uint8_t *sector)
{
    (void)fs, (void)lvl, (void)key, (void)sector;
}
static inline uint32_t sfs_xc_runs(const steadyfs *fs, uint32_t lvl, uint32_t map, uint32_t *out)
{
    (void)fs, (void)lvl, (void)map, (void)out;
    return 0;
}
static inline int sfs_xc_has(const steadyfs *fs, uint32_t lvl, uint32_t key)
{
    (void)fs, (void)lvl, (void)key;
    return 0;
}
#endif
/* Sector ppn as sfs_rd_sector reads it, or, where that fails on damage
 * and collection has copied the sector, its copy (cache.c). */
int sfs_rd_live(steadyfs *fs, uint32_t ppn, uint8_t *buf, sfs_tag *t);
/* The same for sfs_rd_words (an inode sector's chunk list, cache.c). */
int sfs_rd_words_live(steadyfs *fs, uint32_t ppn, uint32_t idx, uint32_t n, uint32_t *out);
int sfs_rd_buf(steadyfs *fs, uint32_t ppn);      /* sector ppn into fs->buf (payload) */
int sfs_dc_get(const steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t *ino);
void sfs_dc_put(steadyfs *fs, uint32_t dir, const char *name, uint32_t len, uint32_t ino);

/* Collection steps per sector programmed outside collection (DESIGN.md
 * §6): from the format's usable units and live limit (fs.c; steadyfs_bound
 * uses the same), in 1/SFS_PACE_ONE steps, rounded up, so that a pace of
 * 6.375 steps a sector is not run as 7 (gc.c keeps the fraction owed). */
#define SFS_PACE_ONE 256u
uint32_t sfs_pace_steps(const steadyfs *fs, uint32_t usable, uint32_t live_max);
/* ... and in whole steps, rounded up (gc_ratio). */
static inline uint32_t sfs_pace_whole(uint32_t pace) { return (pace + SFS_PACE_ONE - 1u) / SFS_PACE_ONE; }
/* The steps a catch-up may run (gc.c catch_up): twice a sector's pace and
 * one, 2 (s + 1), rounded up (15 on mt29f1g01, where s = 6.375). */
static inline uint32_t sfs_catch_up_steps(uint32_t pace) { return sfs_pace_whole(2u * (pace + SFS_PACE_ONE)); }
/* The anchor ring (DESIGN.md §5): two units.  On media that erase
 * (format 18) it holds only pointer records, one each time checkpoints
 * move to another unit of the pool (sfs_ck_pool); without erase it holds
 * the checkpoints themselves.  The anchor area is the first sfs_anchors +
 * SFS_ANCHOR_SPARE units; the ring is its good ones, in order. */
static inline int sfs_ck_pool(const steadyfs *fs) { return fs->cfg.bd->geo.needs_erase; }
#define SFS_NO_UNIT 0xFFFFu   /* anchor.unit, spare, keep: none */
#define SFS_NO_SECTOR 0xFFu   /* anchor.last: no durable checkpoint in the unit yet */
/* Units the checkpoints hold out of the pool on media that erase (format
 * 19): the current one, and SFS_CK_SWITCH units the log keeps for a switch
 * to the next, whatever the state -- queued (not named for a head), held
 * (BS_CKNEXT) or free.  geo.usable leaves both out, so the live limit and
 * the pace are those of a device that many units smaller, and the log's
 * counts of erased units (sfs_free_blocks, sfs_ready_units) leave the kept
 * one out: a head takes the last unit a switch could use only where that
 * smaller device would have had no unit at all, and then it has none
 * (ENOSPC at the live limit, as there).  Format 18 kept none: with the pool
 * empty near the live limit, a checkpoint whose unit a cut had left full
 * found no unit to switch to (DESIGN.md §5). */
#define SFS_CK_SWITCH 1u
#define SFS_CK_UNITS (1u + SFS_CK_SWITCH)
static inline uint32_t sfs_ck_kept(const steadyfs *fs) { return sfs_ck_pool(fs) ? SFS_CK_SWITCH : 0u; }
/* Pool units a checkpoint may move on from, their programs failing, before
 * its three tries count them (ckpt.c sfs_ckpt_write). */
#define SFS_CK_MOVES 8u
/* A light call moves the checkpoints on early, within this many sectors
 * of their unit's end (ckpt.c sfs_ckpt_switch_early). */
#define SFS_CK_EARLY 4u
static inline uint32_t sfs_reserved(const steadyfs *fs) { return fs->geo.anchors + SFS_ANCHOR_SPARE; }
/* The ring's units: geo.anchors, or the area's good units where more
 * than SFS_ANCHOR_SPARE of it are bad (at least 2: find_anchors).
 * log.c. */
uint32_t sfs_anchors(const steadyfs *fs);
/* The unit of anchor ring slot i (< sfs_anchors): the i-th good unit of
 * the anchor area (anchor.bad: a bit per bad unit there).  log.c. */
uint32_t sfs_anchor_unit(const steadyfs *fs, uint32_t i);
/* Good units of the anchor area: the ring's and its spares.  log.c. */
uint32_t sfs_anchor_good(const steadyfs *fs);
/* Media that erase, the checkpoints' units (ckpt.c): an erased unit of the
 * queue, in allocation order, else a free one erased now (*u; its state
 * stays the queue's until the caller sets it): 0, ENOSPC, or an error.
 * sfs_hold_erased: one of the queue held as BS_CKNEXT, where it has three
 * or more, or SFS_NO_UNIT.  sfs_erase_free_unit: free unit b erased now
 * (queued, or lost where its erase fails): 0 or an error.  log.c. */
int sfs_take_erased(steadyfs *fs, uint32_t *u);
uint32_t sfs_hold_erased(steadyfs *fs);
int sfs_erase_free_unit(steadyfs *fs, uint32_t b);
/* Sweep steps a completed relocation record calls for: ceil(n_l1 / R). */
static inline uint32_t sfs_sweep_per_record(const steadyfs *fs)
{
    return (fs->geo.n_l1 + fs->geo.R - 1u) / fs->geo.R;
}
/* Sectors' worth of pace one host sector pays at most (the rest waits for
 * the next ones): itself and a map merge its change caused. */
#define SFS_DEBT_STEP 2u

/* ring.c: the record ring (format 15, DESIGN.md §13), units geo.nblocks ..
 * geo.nblocks + units - 1, apart from the log's. */
struct sfs_ring {
    uint64_t next;     /* the next append's record number (mount: at least the
                          checkpoint's, which a unit gone bad left past it) */
    uint32_t units;    /* R: the ring's units */
    uint32_t k;        /* sectors a record */
    uint32_t rpu;      /* records a unit: P / k */
    uint32_t good;     /* units not bad (format, mount, a unit that fails) */
    uint8_t bad[];     /* a bit per ring unit: bad (ceil(R / 8) bytes) */
};
#if STEADYFS_WITH_RING
/* The ring's state in work area w (NULL: none) from *off on, if the
 * configuration has a ring. */
void sfs_ring_place(steadyfs *fs, uint8_t *w, uint32_t *off);
/* Its state from the configuration, no record, no bad unit (the work
 * area just placed and cleared). */
void sfs_ring_reset(steadyfs *fs);
/* Format: the ring's factory-bad units found, the others erased. */
int sfs_ring_format(steadyfs *fs);
/* Mount: where the ring ends (binary searches, DESIGN.md §13). */
int sfs_ring_mount(steadyfs *fs);
#else   /* (a build without the ring: sfs_setup refuses ring_units) */
static inline void sfs_ring_place(steadyfs *fs, uint8_t *w, uint32_t *off)
{
    (void)w, (void)off;
    fs->ring = NULL;
}
static inline void sfs_ring_reset(steadyfs *fs) { (void)fs; }
static inline int sfs_ring_format(steadyfs *fs)
{
    (void)fs;
    return 0;
}
static inline int sfs_ring_mount(steadyfs *fs)
{
    (void)fs;
    return 0;
}
#endif
/* Bytes of the ring's bad-unit bitmap (in the checkpoint after the chunk
 * bitmaps): 0 without a ring. */
static inline uint32_t sfs_ring_map_bytes(const steadyfs_config *cfg)
{
    return (cfg->ring_units + 7u) / 8u;
}

/* geometry derived from config (fs.c) */
int sfs_setup(steadyfs *fs, const steadyfs_config *cfg);

#endif
