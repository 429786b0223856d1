/* steadyfs_repair: the namespace put right after media damage.
 *
 * A tree of directories, files and symlinks is written, then sectors of
 * its metadata are made uncorrectable in the device model (sim_flip_bits
 * past the ECC): a directory bucket, a file's, a directory's or the root's
 * inode sector, the L1 map sector that maps a directory, the L2 sector,
 * or several at random.  After steadyfs_repair every file and symlink whose own inode
 * sector is intact must be reachable again -- at its path, or under
 * /lost+found when the name that held it is gone -- with every byte as
 * written; every directory survives (a lost inode sector is written anew);
 * nothing else appears; fsck finds nothing; a second repair does nothing.
 * And power cuts: the repair of the random draws cut at each of its
 * programs and erases in turn, the next mount and repair must end at the
 * same guarantee.
 *
 * On mt29f1g01 (64 units; ECC: damage is a page past what it corrects),
 * em064lx and mt25q128 (1024 blocks of 4 KiB; no ECC: a payload byte changed, its
 * data CRC fails).  STEADYFS_REPAIR_SEEDS=N: the random draws 1..N on
 * NAND (default 12), half as many on MRAM, a quarter on NOR, from draw
 * STEADYFS_REPAIR_FIRST (default 1); STEADYFS_REPAIR_SEED=S: draw S
 * alone on each medium, with the cuts; STEADYFS_REPAIR_L2=1: the random
 * draws may damage the L2 sector too; STEADYFS_REPAIR_ANYBYTE=1: on NOR
 * and MRAM they change a byte anywhere in a sector's payload.  Beside them, damage built to hit
 * what a small read does not check on NOR and MRAM: a changed map word,
 * chunk-list entry or L2 word, an inode header under a kill that must
 * find its chunks by their tags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs/fs_internal.h"
#include "fs_testdev.h"
#include "read_errors.h"

#define NMAX 128
#define FILE_MAX 12288u
#define BLOCKS 64u
#define HOT_SIZE (192u * 1024u)   /* /hot, overwritten at random: collection goes over the device */
#define PAGES_MAX (HOT_SIZE / 2048u)

typedef struct mentry {
    char path[64];
    char target[32];   /* a symlink's */
    uint32_t ino, len, id;
    uint32_t l1_inode, l1_page[PAGES_MAX];   /* the L1 sectors that map them */
    uint8_t type;
} mentry;

static uint8_t l1_hit[512];   /* L1 sectors damaged in this draw */

static mentry model[NMAX];
static uint32_t nmodel;

static uint8_t byte_of(uint32_t id, uint32_t i) { return (uint8_t)((id * 167u + i * 13u + (i >> 9)) ^ 0xA5u); }

static uint8_t hot_bytes[HOT_SIZE];   /* /hot as written */
static uint8_t hot_saved[HOT_SIZE];   /* ... when the damage came */
static uint32_t hot_id = ~0u;         /* its model entry */

static uint8_t expect(const mentry *m, uint32_t i) { return m->id == hot_id ? hot_bytes[i] : byte_of(m->id, i); }

/* n random unaligned 4 KiB write + sync of the file at path (the model's
 * /hot), which must all succeed. */
static void churn(tdev *t, const char *path, uint64_t *rng, uint32_t n)
{
    static uint8_t rec[4096];
    uint32_t k, i, off;
    int fd = steadyfs_open(&t->fs, path, STEADYFS_O_RDWR);
    CHECK(fd >= 0);
    for (k = 0; fd >= 0 && k < n; k++) {
        off = tdev_rand(rng, HOT_SIZE - sizeof rec);
        for (i = 0; i < sizeof rec; i++)
            rec[i] = hot_bytes[off + i] = (uint8_t)tdev_rand(rng, 256);
        CHECK_EQ(steadyfs_seek(&t->fs, fd, off, STEADYFS_SEEK_SET), (int64_t)off);
        CHECK_EQ(steadyfs_write(&t->fs, fd, rec, sizeof rec), (int)sizeof rec);
        CHECK_EQ(steadyfs_sync(&t->fs, fd), 0);
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
}

static void add(tdev *t, const char *path, uint8_t type, uint32_t len, const char *target)
{
    static uint8_t buf[FILE_MAX];
    mentry *m = &model[nmodel];
    steadyfs_stat st;
    uint32_t i;
    int fd;
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    m->type = type;
    m->id = nmodel;
    m->len = len;
    if (type == STEADYFS_TYPE_DIR) {
        CHECK_EQ(steadyfs_mkdir(&t->fs, path), 0);
    } else if (type == STEADYFS_TYPE_SYMLINK) {
        snprintf(m->target, sizeof m->target, "%s", target);
        CHECK_EQ(steadyfs_symlink(&t->fs, target, path, NULL), 0);
    } else if (!strcmp(path, "/hot")) {
        int hfd = steadyfs_open(&t->fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        hot_id = m->id;
        for (i = 0; i < HOT_SIZE; i++)
            hot_bytes[i] = byte_of(m->id, i);
        CHECK(hfd >= 0);
        for (i = 0; hfd >= 0 && i < HOT_SIZE; i += 4096u)
            CHECK_EQ(steadyfs_write(&t->fs, hfd, hot_bytes + i, 4096), 4096);
        if (hfd >= 0)
            CHECK_EQ(steadyfs_close(&t->fs, hfd), 0);
    } else {
        steadyfs_attr at;
        memset(&at, 0, sizeof at);
        at.mask = STEADYFS_ATTR_MODE;
        at.mode = 0640;   /* (a rebuilt inode sector says 0644) */
        for (i = 0; i < len; i++)
            buf[i] = byte_of(m->id, i);
        fd = steadyfs_open_attr(&t->fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT, &at);
        CHECK(fd >= 0);
        if (len)
            CHECK_EQ(steadyfs_write(&t->fs, fd, buf, len), (int)len);
        CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
    }
    CHECK_EQ(steadyfs_stat_path(&t->fs, path, &st), 0);
    m->ino = (uint32_t)st.id;
    nmodel++;
}

/* The tree: /d with 60 files, a symlink and /d/sub (10 files) and
 * /d/sub/deep (5 files); /e (5 files, a symlink); 4 files in the root. */
static void build(tdev *t, uint64_t *rng)
{
    char p[64];
    uint32_t i;
    nmodel = 0;
    add(t, "/d", STEADYFS_TYPE_DIR, 0, NULL);
    add(t, "/d/sub", STEADYFS_TYPE_DIR, 0, NULL);
    add(t, "/d/sub/deep", STEADYFS_TYPE_DIR, 0, NULL);
    add(t, "/e", STEADYFS_TYPE_DIR, 0, NULL);
    for (i = 0; i < 60; i++) {
        snprintf(p, sizeof p, "/d/f%u", i);
        add(t, p, STEADYFS_TYPE_FILE, i % 17 == 3 ? 0 : 1 + tdev_rand(rng, FILE_MAX), NULL);
    }
    for (i = 0; i < 10; i++) {
        snprintf(p, sizeof p, "/d/sub/g%u", i);
        add(t, p, STEADYFS_TYPE_FILE, 1 + tdev_rand(rng, FILE_MAX), NULL);
    }
    for (i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "/d/sub/deep/h%u", i);
        add(t, p, STEADYFS_TYPE_FILE, 1 + tdev_rand(rng, FILE_MAX), NULL);
        snprintf(p, sizeof p, "/e/x%u", i);
        add(t, p, STEADYFS_TYPE_FILE, 1 + tdev_rand(rng, FILE_MAX), NULL);
    }
    for (i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "/t%u", i);
        add(t, p, STEADYFS_TYPE_FILE, 1 + tdev_rand(rng, FILE_MAX), NULL);
    }
    add(t, "/d/l0", STEADYFS_TYPE_SYMLINK, 0, "f1");
    add(t, "/e/l1", STEADYFS_TYPE_SYMLINK, 0, "../d/f2");
    add(t, "/hot", STEADYFS_TYPE_FILE, HOT_SIZE, NULL);
    /* collection over the device: relocation records, pending changes
     * and a moving log when the damage comes */
    churn(t, "/hot", rng, 1200);
}

/* fsck's findings: those of a page whose word a rebuilt map sector lost
 * (counted in *ctx: what repair leaves, EIO on read) apart */
static void fsck_say(void *ctx, const char *msg)
{
    if (strstr(msg, "error: data key") && strstr(msg, "lost (its map sector was rebuilt")) {
        (*(uint32_t *)ctx)++;
        if (getenv("STEADYFS_REPAIR_VERBOSE"))
            printf("    fsck: %s\n", msg);
    } else if (strncmp(msg, "note:", 5))
        printf("    fsck: %s\n", msg);
}

/* fsck of the unmounted media: its errors but the lost pages (*lost),
 * -1 if it could not run */
static int fsck_errors(tdev *t, uint32_t *lost)
{
    steadyfs_fsck_report rep;
    uint32_t fws = steadyfs_fsck_work_size(&t->cfg);
    void *fw = malloc(fws);
    int rc;
    *lost = 0;
    rc = fw ? steadyfs_fsck(&t->fs, &t->cfg, fw, fws, fsck_say, lost, &rep) : -1;
    free(fw);
    return rc < 0 ? -1 : (int)(rep.errors - *lost);
}

typedef struct seen {
    char path[160];
    uint32_t ino;
    uint8_t type;
} seen;

static seen found[NMAX + 8];
static uint32_t nfound;
static uint32_t rebuilt_files, rebuilt_short;   /* files with a lost inode sector, read back */

/* Every entry reachable from the root, by path (entries of a directory
 * listed before going down: the open table holds one handle). */
static void walk(tdev *t, const char *dir)
{
    steadyfs_dirent ents[80];
    uint32_t n = 0, i;
    int dd = steadyfs_opendir(&t->fs, dir), rc;
    CHECK(dd >= 0);
    if (dd < 0)
        return;
    while (n < 80 && (rc = steadyfs_readdir(&t->fs, dd, &ents[n])) == 1)
        n++;
    CHECK_EQ(steadyfs_closedir(&t->fs, dd), 0);
    for (i = 0; i < n && nfound < NMAX + 8; i++) {
        seen *s = &found[nfound++];
        snprintf(s->path, sizeof s->path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", ents[i].name);
        s->ino = (uint32_t)ents[i].id;
        s->type = ents[i].type;
        if (s->type == STEADYFS_TYPE_DIR)
            walk(t, s->path);
    }
}

/* The guarantee after a repair: each model entry reachable once with its
 * bytes (at its path, or under /lost+found), but for the files and
 * symlinks whose own inode sector is lost (in lost[], never reachable);
 * nothing else.  Where an L1 sector was damaged, a file whose inode
 * sector it maps may be gone (the damage may have changed that word),
 * and a page it maps may read EIO (counted in *eio), never other bytes.
 * The number of entries found under /lost+found. */
static uint32_t verify(tdev *t, const uint8_t *lost, const char *what, uint32_t *eio)
{
    static uint8_t buf[2048];
    uint32_t i, k, moved = 0, bad = 0;
    *eio = 0;
    nfound = 0;
    walk(t, "/");
    for (i = 0; i < nmodel; i++) {
        const mentry *m = &model[i];
        const seen *s = NULL;
        for (k = 0; k < nfound; k++)
            if (found[k].ino == m->ino && found[k].type == m->type)
                s = &found[k];
        if (lost[m->ino] && m->type == STEADYFS_TYPE_SYMLINK) {
            if (s) {
                printf("  %s: %s (inode %u, its sector lost) still reachable as %s\n", what, m->path, m->ino,
                       s->path);
                bad++;
            }
            continue;
        }
        if (!s && m->type != STEADYFS_TYPE_DIR && l1_hit[m->l1_inode])
            continue;
        /* (an empty file whose name went with its inode sector: nothing of
         * it is left, and the repair removes it, as e2fsck clears an
         * unattached zero-length inode -- draw 1019) */
        if (!s && m->type == STEADYFS_TYPE_FILE && !m->len && lost[m->ino])
            continue;
        if (!s) {
            printf("  %s: %s (inode %u) not reachable\n", what, m->path, m->ino);
            bad++;
            continue;
        }
        if (strcmp(s->path, m->path)) {
            if (strncmp(s->path, "/lost+found/", 12)) {
                printf("  %s: %s found as %s\n", what, m->path, s->path);
                bad++;
            }
            moved++;
        }
        if (m->type == STEADYFS_TYPE_FILE) {
            int fd = steadyfs_open(&t->fs, s->path, STEADYFS_O_RDONLY);
            uint32_t pg, len = m->len;
            steadyfs_stat st;
            CHECK(fd >= 0);
            CHECK_EQ(steadyfs_stat_path(&t->fs, s->path, &st), 0);
            /* (its inode sector lost, or its word with a damaged L1 sector) */
            if (lost[m->ino] || l1_hit[m->l1_inode]) {
                /* rebuilt from its chunks: its size as its commits
                 * carried it, or to its last page's end; shorter only
                 * where a chunk could not be told apart (from its end) */
                if (st.size > (m->len + 2047u) / 2048u * 2048u)
                    printf("  %s: %s (rebuilt) is %llu bytes, was %u\n", what, m->path, (unsigned long long)st.size,
                           m->len);
                CHECK(st.size <= (m->len + 2047u) / 2048u * 2048u);
                if (st.size < m->len) {
                    rebuilt_short++;
                    len = (uint32_t)st.size;
                }
                rebuilt_files += lost[m->ino];
            } else {
                CHECK_EQ(st.size, m->len);
            }
            /* only a file whose inode sector was lost has a new one */
            if (!l1_hit[m->l1_inode] && m->id != hot_id)
                CHECK_EQ(st.mode, lost[m->ino] ? 0644 : 0640);
            for (pg = 0; fd >= 0 && pg * 2048u < len; pg++) {
                uint32_t n = len - pg * 2048u < 2048u ? len - pg * 2048u : 2048u;
                int32_t rc = steadyfs_read(&t->fs, fd, buf, n);
                if (rc == STEADYFS_EIO && l1_hit[m->l1_page[pg]]) {
                    (*eio)++;
                    CHECK_EQ(steadyfs_seek(&t->fs, fd, (int64_t)(pg + 1u) * 2048, STEADYFS_SEEK_SET),
                             (int64_t)(pg + 1u) * 2048);
                    continue;
                }
                for (k = 0; rc == (int32_t)n && k < n && buf[k] == expect(m, pg * 2048u + k); k++)
                    ;
                if (rc != (int32_t)n || k < n) {
                    printf("  %s: %s (as %s) page %u: read %d of %u bytes, first wrong at %u\n", what, m->path,
                           s->path, pg, rc, n, k);
                    bad++;
                }
            }
            if (fd >= 0 && len == st.size)
                CHECK_EQ(steadyfs_read(&t->fs, fd, buf, 1), 0);
            if (fd >= 0)
                CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
        } else if (m->type == STEADYFS_TYPE_SYMLINK) {
            char tg[64];
            int32_t n = steadyfs_readlink(&t->fs, s->path, tg, sizeof tg - 1);
            if (n != (int32_t)strlen(m->target) || memcmp(tg, m->target, (size_t)n)) {
                printf("  %s: symlink %s (as %s): readlink %d\n", what, m->path, s->path, n);
                bad++;
            }
        }
    }
    for (k = 0; k < nfound; k++) {
        for (i = 0; i < nmodel && !(model[i].ino == found[k].ino && model[i].type == found[k].type); i++)
            ;
        if (i == nmodel && strcmp(found[k].path, "/lost+found")) {
            printf("  %s: %s (inode %u) was never written\n", what, found[k].path, found[k].ino);
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
    return moved;
}

static int repair(tdev *t, steadyfs_repair_report *rep)
{
    static uint8_t work[4096];
    CHECK(steadyfs_repair_work_size(&t->fs) <= sizeof work);
    return steadyfs_repair(&t->fs, work, sizeof work, rep);
}

static void say(const char *what, const steadyfs_repair_report *r, uint32_t moved)
{
    printf("  %s: map %u, holes %u, buckets %u, names %u, files rebuilt %u, symlinks %u, dirs %u, reconnected "
           "%u, lost %u, chunks freed %u, counts %u; %u entries under /lost+found\n",
           what, r->map_rebuilt, r->holes_restored, r->buckets_reset, r->names_removed, r->files_rebuilt,
           r->files_removed, r->dirs_rebuilt, r->reconnected, r->lost_removed, r->chunks_freed, r->counts_fixed,
           moved);
}

/* Where things are, read on a mount that writes nothing (then dropped:
 * the media are as the last unmount left them). */
static uint32_t ino_of(tdev *t, const char *path)
{
    steadyfs_stat st;
    CHECK_EQ(steadyfs_stat_path(&t->fs, path, &st), 0);
    return (uint32_t)st.id;
}

static uint32_t place(tdev *t, uint32_t ino, uint32_t k)
{
    uint32_t ppn = SFS_NONE;
    CHECK_EQ(sfs_lookup(&t->fs, sfs_shared_lpn(&t->fs, ino, k), 0, &ppn), 0);
    return ppn;
}

/* The logical page of file page pg (>= 1: in a chunk) of the file at path. */
static uint32_t chunk_page_lpn(tdev *t, const char *path, uint32_t pg)
{
    steadyfs_stat st;
    uint32_t ino, c;
    CHECK_EQ(steadyfs_stat_path(&t->fs, path, &st), 0);
    ino = (uint32_t)st.id;
    CHECK_EQ(sfs_rd_buf(&t->fs, place(t, ino, 0)), 0);
    c = sfs_list_get(&t->fs, t->fs.buf, ino, pg / t->fs.geo.C);
    CHECK(c < t->fs.geo.n_c);
    return sfs_chunk_lpn(&t->fs, c, pg);
}

/* Sector ppn damaged: on NAND more bit errors than the ECC corrects in
 * its page (sim_flip_bits), on MRAM (no ECC) a byte of its payload
 * changed in the image (docs/SIM-IMAGE.md: data XOR the erased byte, page
 * by page with the spare after each), so its data CRC fails. */
/* A formatted, mounted device (what most tests below start from). */
static void fresh_fs(tdev *t, const char *dev, uint32_t blocks, uint64_t seed)
{
    CHECK_EQ(tdev_open(t, dev, blocks, seed), 0);
    CHECK_EQ(steadyfs_format(&t->fs, &t->cfg), 0);
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
}

/* A test's file bytes: byte i is i * mul + add. */
static void fill_bytes(uint8_t *a, uint32_t len, uint32_t mul, uint32_t add)
{
    uint32_t i;
    for (i = 0; i < len; i++)
        a[i] = (uint8_t)(i * mul + add);
}

static void damage_at(tdev *t, uint32_t ppn, uint32_t byte)
{
    const sbd_geometry *g = &t->dev.bd.geo;
    uint64_t at, off;
    CHECK(ppn < t->fs.geo.nblocks * t->fs.geo.P);
    if (g->ecc_bits) {
        CHECK_EQ(sim_flip_bits(&t->dev, ppn / t->fs.geo.P, ppn % t->fs.geo.P, g->ecc_bits + 1u), 0);
        return;
    }
    at = (uint64_t)(ppn / t->fs.geo.P) * t->fs.geo.dev_per_block * g->page_size * g->pages_per_block +
         (uint64_t)(ppn % t->fs.geo.P) * sfs_stride(&t->fs) + byte;
    memcpy(&off, (uint8_t *)t->image + 88, sizeof off);
    off += at / g->page_size * (g->page_size + g->spare_size) + at % g->page_size;
    ((uint8_t *)t->image)[off] ^= 0x24u;
}

static void damage(tdev *t, uint32_t ppn) { damage_at(t, ppn, 16u); }

/* Byte `byte` of sector ppn's payload set to v on a medium without ECC
 * (NOR, MRAM: the image holds data XOR the erased byte). */
static void set_at(tdev *t, uint32_t ppn, uint32_t byte, uint8_t v)
{
    const sbd_geometry *g = &t->dev.bd.geo;
    uint64_t at, off;
    CHECK(ppn < t->fs.geo.nblocks * t->fs.geo.P && !g->ecc_bits);
    at = (uint64_t)(ppn / t->fs.geo.P) * t->fs.geo.dev_per_block * g->page_size * g->pages_per_block +
         (uint64_t)(ppn % t->fs.geo.P) * sfs_stride(&t->fs) + byte;
    memcpy(&off, (uint8_t *)t->image + 88, sizeof off);
    off += at / g->page_size * (g->page_size + g->spare_size) + at % g->page_size;
    ((uint8_t *)t->image)[off] = (uint8_t)(v ^ g->erased_byte);
}

/* Word i of map sector ppn made lost for good on a medium without ECC:
 * two of its bytes changed (each XOR 0x24), which no candidate of
 * map.c sfs_word_fix explains (one byte replaced, or two bits of
 * different bytes flipped), so its sector must be found another way.
 * (One changed byte is put right since the twenty-seventh session: a test
 * that needs the word lost changes two.) */
static void lose_word(tdev *t, uint32_t ppn, uint32_t i)
{
    damage_at(t, ppn, 4u * i);
    damage_at(t, ppn, 4u * i + 2u);
}

/* A device that has met many reads that return no bytes since its mount
 * (a flaky link, months of uptime) must still rebuild a damaged map
 * sector when a later call merges it.  The media layer counts such reads
 * (fs->no_bytes, saturating at 255) so that a rebuild or a repair acts on
 * no verdict a failed read made; until the thirtieth session the count
 * ran from the mount, so after 255 of them every rebuild failed with EIO
 * until the next mount: here the overwrites of /s, whose L1 sector is
 * damaged, failed.  Now each call counts from 0. */
static void errors_long_before(const char *dev, uint32_t blocks)
{
    static uint8_t a[2048];
    read_errors re;
    uint32_t i, pay, pages, l1, lpn, failed = 0, eio = 0, wrong = 0;
    int fd, rc;
    tdev t;
    CHECK_EQ(tdev_open(&t, dev, blocks, 5), 0);
    read_errors_wrap(&re, &t.dev.bd, 5);
    t.cfg.bd = &re.bd;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    pay = t.fs.geo.payload;
    CHECK(pay <= sizeof a);
    {
        steadyfs_info info;
        CHECK_EQ(steadyfs_info_get(&t.fs, &info), 0);
        pages = (uint32_t)(info.capacity / 5u / pay);   /* (merged many times over) */
    }
    fd = steadyfs_open(&t.fs, "/s", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    for (i = 0; i < pages; i++) {
        fill_bytes(a, pay, 3u, i);
        CHECK_EQ(steadyfs_write(&t.fs, fd, a, pay), (int)pay);
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    lpn = chunk_page_lpn(&t, "/s", pages / 2u);
    CHECK_EQ(sfs_l1_locate(&t.fs, lpn / t.fs.geo.e1, &l1), 0);
    CHECK(l1 < SFS_LOST);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    damage(&t, l1);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    /* 300 reads of /s whose every device read returns no bytes (each
     * fails with EIO) */
    fd = steadyfs_open(&t.fs, "/s", STEADYFS_O_RDWR);
    CHECK(fd >= 0);
    read_errors_window(&re, 0, UINT64_MAX);
    for (i = 0; fd >= 0 && i < 300u; i++) {
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)(i % pages) * pay, STEADYFS_SEEK_SET),
                 (int64_t)(i % pages) * pay);
        eio += steadyfs_read(&t.fs, fd, a, pay) == STEADYFS_EIO;
    }
    read_errors_window(&re, 0, 0);
    CHECK_EQ(eio, 300u);
    /* every page of /s overwritten, synced every 16: the merges of /s's
     * L1 sectors rebuild the damaged one */
    CHECK_EQ(steadyfs_seek(&t.fs, fd, 0, STEADYFS_SEEK_SET), 0);
    for (i = 0; fd >= 0 && i < pages; i++) {
        fill_bytes(a, pay, 5u, i);
        rc = steadyfs_write(&t.fs, fd, a, pay);
        failed += rc != (int)pay;
        if (i % 16u == 15u)
            failed += steadyfs_sync(&t.fs, fd) != 0;
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fd = steadyfs_open(&t.fs, "/s", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    for (i = 0; fd >= 0 && i < pages; i++) {
        static uint8_t back[2048];
        fill_bytes(a, pay, 5u, i);
        wrong += steadyfs_read(&t.fs, fd, back, pay) != (int)pay || memcmp(a, back, pay) != 0;
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    printf("  %s: an L1 sector damaged, 300 calls failed by reads that returned no bytes, then %u pages "
           "overwritten: %u calls failed, %u pages read back other than written\n",
           dev, pages, failed, wrong);
    CHECK_EQ(failed, 0u);
    CHECK_EQ(wrong, 0u);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(tdev_fsck(&t, &t.fs, "after the errors long before"), 0);
    t.cfg.bd = &t.dev.bd;
    tdev_close(&t);
}

/* (C_L2 after C_RANDOM: a case's number seeds its draw, and the random
 * draws stay the ones earlier sessions' soaks named) */
enum { C_BUCKET, C_FILE_INODE, C_DIR_INODE, C_ROOT_INODE, C_L1, C_RANDOM, C_L2 };
static const char *const case_name[] = {"the fullest bucket of /d", "the inode sector of /d/f7",
                                        "the inode sector of /d/sub", "the root's inode sector",
                                        "the L1 sector that maps /d", "random metadata", "the L2 sector"};

/* Damage for case c (draw seed); lost[ino] set for each inode sector hit.
 * Returns the sectors damaged. */
/* The random draws take the L2 sector among their candidates too (a
 * soak's option, STEADYFS_REPAIR_L2; one draw of make test below) */
static int with_l2;

static uint32_t hit(tdev *t, int c, uint64_t *rng, uint8_t *lost)
{
    uint32_t cand[600], n = 0, i, k, d, best = 0, bestn = 0, ppn, picks, done = 0;
    const char *verbose = getenv("STEADYFS_REPAIR_VERBOSE");
    steadyfs_dirent e;
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
    memset(l1_hit, 0, sizeof l1_hit);
    for (i = 0; i < nmodel; i++) {
        mentry *m = &model[i];
        m->l1_inode = sfs_shared_lpn(&t->fs, m->ino, 0) / t->fs.geo.e1;
        for (k = 0; m->type == STEADYFS_TYPE_FILE && k * 2048u < m->len; k++) {
            uint32_t ch = CHUNK_NONE;
            if (k)
                CHECK_EQ(sfs_chunk_get(&t->fs, m->ino, k / t->fs.geo.C, 0, &ch), 0);
            m->l1_page[k] = (k ? sfs_chunk_lpn(&t->fs, ch, k) : sfs_shared_lpn(&t->fs, m->ino, 1)) / t->fs.geo.e1;
        }
    }
    if (c == C_BUCKET) {
        uint32_t dino = ino_of(t, "/d");
        for (d = 0; d < t->fs.cfg.dir_pages; d++) {
            for (k = 0; sfs_dir_entry(&t->fs, dino, d, k, &e) == 1; k++)
                ;
            if (k > bestn) {
                bestn = k;
                best = d;
            }
        }
        cand[n++] = place(t, dino, 1 + best);
    } else if (c == C_FILE_INODE) {
        cand[n++] = place(t, ino_of(t, "/d/f7"), 0);
        lost[ino_of(t, "/d/f7")] = 1;
    } else if (c == C_DIR_INODE) {
        cand[n++] = place(t, ino_of(t, "/d/sub"), 0);
        lost[ino_of(t, "/d/sub")] = 1;
    } else if (c == C_ROOT_INODE) {
        cand[n++] = place(t, 1, 0);
    } else if (c == C_L2) {
        /* (its lost words' L1 sectors are found by their tags: no page
         * may be lost) */
        CHECK(t->fs.root[0] != SFS_NONE);
        cand[n++] = t->fs.root[0];
    } else if (c == C_L1) {
        d = sfs_shared_lpn(&t->fs, ino_of(t, "/d"), 0) / t->fs.geo.e1;
        CHECK_EQ(sfs_l1_locate(&t->fs, d, &ppn), 0);
        cand[n++] = ppn | 0x80000000u | d << 20;
    } else {
        /* every metadata sector: inode sectors, buckets, L1 sectors */
        for (i = 0; i < nmodel; i++) {
            cand[n++] = place(t, model[i].ino, 0) | (model[i].ino << 20);
            for (d = 0; model[i].type == STEADYFS_TYPE_DIR && d < t->fs.cfg.dir_pages; d++)
                if ((ppn = place(t, model[i].ino, 1 + d)) != SFS_NONE)
                    cand[n++] = ppn;
        }
        for (d = 0; d < t->fs.cfg.dir_pages; d++)
            if ((ppn = place(t, 1, 1 + d)) != SFS_NONE)
                cand[n++] = ppn;
        for (i = 0; i < t->fs.geo.n_l1; i++)
            if (!sfs_l1_locate(&t->fs, i, &ppn) && ppn != SFS_NONE)
                cand[n++] = ppn | 0x80000000u | i << 20;
        /* the L2 sector too, with STEADYFS_REPAIR_L2 (a soak's option: it
         * would change the draws make test runs) */
        if ((getenv("STEADYFS_REPAIR_L2") || with_l2) && t->fs.root[0] != SFS_NONE)
            cand[n++] = t->fs.root[0];
    }
    picks = c == C_RANDOM ? 1 + tdev_rand(rng, 4) : 1;
    for (i = 0; i < picks && n; i++) {
        k = tdev_rand(rng, n);
        /* (an inode sector carries its inode in the top bits) */
        if (verbose)
            printf("    damaged: sector %u (%s %u)\n", cand[k] & 0xFFFFFu,
                   cand[k] >> 31 ? "an L1 sector" : (cand[k] >> 20) ? "the inode sector of" : "a bucket",
                   (cand[k] >> 20) & 0x7FFu);
        /* (an inode sector collection has copied is whole in its copy,
         * which reads take where the original fails: cache.c sfs_rd_live;
         * draw 11040 with the L2 sector, a symlink) */
        if ((cand[k] >> 20) && !(cand[k] >> 31))
            lost[cand[k] >> 20] = sfs_copy_of(&t->fs, cand[k] & 0xFFFFFu) == (cand[k] & 0xFFFFFu);
        if (cand[k] >> 31)
            l1_hit[(cand[k] >> 20) & 0x7FFu] = 1;
        /* (STEADYFS_REPAIR_ANYBYTE, a soak's option: on NOR and MRAM the
         * byte changed is anywhere in the payload, not at offset 16) */
        if (getenv("STEADYFS_REPAIR_ANYBYTE") && !t->dev.bd.geo.ecc_bits)
            damage_at(t, cand[k] & 0xFFFFFu, (uint32_t)tdev_rand(rng, t->fs.geo.payload));
        else
            damage(t, cand[k] & 0xFFFFFu);
        cand[k] = cand[--n];
        done++;
    }
    return done;
}

/* One case: a fresh format of `blocks` units of device `dev`, the tree,
 * the damage, a mount, the repair; with cuts, the repair cut at each of
 * its programs and erases in turn. */
static void run_case(const char *dev, uint32_t blocks, int c, uint64_t seed, int cuts)
{
    static uint8_t lost[4096];
    steadyfs_repair_report rep, again;
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + (uint64_t)c;
    uint64_t pe0, pe_repair, reads_repair, r, stride;
    uint32_t moved, sectors, k, cut_runs = 0, eio = 0, eio2 = 0, lostw = 0, read_runs = 0, read_eio = 0;
    static read_errors re;
    void *saved;
    tdev t;
    memset(lost, 0, sizeof lost);
    CHECK_EQ(tdev_open(&t, dev, blocks, seed), 0);
    t.cfg.open_max = 2;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    build(&t, &rng);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    sectors = hit(&t, c, &rng, lost);
    read_errors_wrap(&re, &t.dev.bd, seed);
    t.cfg.bd = &re.bd;   /* (no errors yet: it counts the repair's reads) */
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    saved = malloc((size_t)t.image_len);
    CHECK(saved != NULL);
    memcpy(saved, t.image, (size_t)t.image_len);
    memcpy(hot_saved, hot_bytes, sizeof hot_saved);
    pe0 = t.dev.pe_ops;
    read_errors_window(&re, 0, 0);
    CHECK_EQ(repair(&t, &rep), 0);
    pe_repair = t.dev.pe_ops - pe0;
    reads_repair = re.reads;
    moved = verify(&t, lost, case_name[c], &eio);
    {
        char what[120];
        snprintf(what, sizeof what, "%s, %s (seed %llu, %u sectors damaged, %llu programs and erases)", dev,
                 case_name[c], (unsigned long long)seed, sectors, (unsigned long long)pe_repair);
        say(what, &rep, moved);
        if (eio)
            printf("    %u file pages read EIO (their words lost with a damaged L1 sector)\n", eio);
    }
    /* (one L1 sector damaged, by this draw in its holes only: the
     * commits replay met on it left their replaced sectors flagged, and
     * the merge that rebuilt it uncounted them -- no count to set) */
    if (c == C_L1)
        CHECK_EQ(rep.counts_fixed, 0);
    CHECK_EQ(repair(&t, &again), 0);
    CHECK_EQ(again.map_rebuilt + again.holes_restored + again.buckets_reset + again.names_removed +
                 again.files_removed + again.dirs_rebuilt + again.reconnected + again.lost_removed + again.counts_fixed +
                 again.files_rebuilt + again.chunks_freed,
             0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lostw), 0);
    CHECK_EQ(lostw, eio);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    (void)verify(&t, lost, case_name[c], &eio2);
    CHECK_EQ(eio2, eio);
    /* the repaired file system goes on: /hot (wherever it is now)
     * overwritten until collection has gone over the device again, then
     * fsck and every byte once more (not where pages were lost: a
     * partial write of one fails, as its read does) */
    for (k = 0; !eio && k < nfound && found[k].ino != model[hot_id].ino; k++)
        ;
    if (!eio && k < nfound) {
        churn(&t, found[k].path, &rng, 1200);
        CHECK_EQ(steadyfs_unmount(&t.fs), 0);
        CHECK_EQ(fsck_errors(&t, &lostw), 0);
        CHECK_EQ(lostw, 0);
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        (void)verify(&t, lost, "after more writes", &eio2);
    }
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    /* the same repair cut at each of its programs and erases in turn */
    memcpy(hot_bytes, hot_saved, sizeof hot_saved);
    for (k = 1; cuts && k <= pe_repair; k++) {
        sim_faults f;
        int rc;
        memcpy(t.image, saved, (size_t)t.image_len);
        CHECK_EQ(sim_init(&t.dev, t.dev.prof, blocks, t.image, t.image_len, SIM_TYPICAL, seed, 0), 0);
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        memset(&f, 0, sizeof f);
        f.seed = seed + k;
        f.powercut_after = t.dev.pe_ops + k;
        sim_set_faults(&t.dev, &f);
        rc = repair(&t, &rep);
        CHECK(rc == STEADYFS_EIO || rc == 0);
        sim_power_restore(&t.dev);
        memset(&f, 0, sizeof f);
        sim_set_faults(&t.dev, &f);
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        CHECK_EQ(repair(&t, &rep), 0);
        (void)verify(&t, lost, "after a cut", &eio2);
        CHECK_EQ(steadyfs_unmount(&t.fs), 0);
        CHECK_EQ(fsck_errors(&t, &lostw), 0);
        CHECK_EQ(lostw, eio2);
        cut_runs++;
    }
    if (cuts)
        printf("  cut at each of its %u programs and erases: every next repair ended clean\n", cut_runs);
    /* the same repair with its r-th device read returning no bytes for
     * good (all three of the media layer's tries), for every r (every
     * stride-th where there are many): it fails with EIO or succeeds, and
     * a repair after it gives what the repair without errors gave -- the
     * walk takes a sector it cannot read for damaged, and made fixes on
     * that verdict (a whole file removed or given up for lost) before the
     * twenty-ninth session */
    stride = reads_repair > 20u ? (reads_repair + 19u) / 20u : 1u;
    for (r = 0; cuts && r < reads_repair; r += stride) {
        int rc;
        memcpy(t.image, saved, (size_t)t.image_len);
        CHECK_EQ(sim_init(&t.dev, t.dev.prof, blocks, t.image, t.image_len, SIM_TYPICAL, seed, 0), 0);
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        memcpy(hot_bytes, hot_saved, sizeof hot_saved);
        read_errors_window(&re, r, 3);
        rc = repair(&t, &rep);
        read_errors_window(&re, 0, 0);
        CHECK(rc == STEADYFS_EIO || rc == 0);
        read_eio += rc != 0;
        CHECK_EQ(steadyfs_unmount(&t.fs) < 0 && rc == 0, 0);
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        CHECK_EQ(repair(&t, &rep), 0);
        (void)verify(&t, lost, "after a repair that met a read error", &eio2);
        if (eio2 != eio)
            printf("    read %llu failed (repair %d): %u file pages read EIO after the next repair, %u without\n",
                   (unsigned long long)r, rc, eio2, eio);
        CHECK_EQ(eio2, eio);
        CHECK_EQ(steadyfs_unmount(&t.fs), 0);
        CHECK_EQ(fsck_errors(&t, &lostw), 0);
        read_runs++;
    }
    if (cuts)
        printf("  with its r-th of %llu reads failed, every %llu-th r: %u repairs, %u failed with EIO; every "
               "next repair gave the same files\n", (unsigned long long)reads_repair, (unsigned long long)stride,
               read_runs, read_eio);
    t.cfg.bd = &t.dev.bd;
    free(saved);
    tdev_close(&t);
}

/* A logger's O_DSYNC file kept open while its inode sector goes bad
 * (written at its create, read again only at its close): its records go
 * on -- each commit rides in its last data sector's tag -- its close
 * fails (the inode program reads the committed sector back), and after a
 * mount the repair gives it a new inode sector from its chunks and the
 * size its last record's tag carried: every record it acknowledged reads
 * back. */
static void open_logger(const char *dev, uint32_t blocks)
{
    static uint8_t rec[4096];
    uint32_t i, k, ino, ppn, slots = 64, n = 3000, bad = 0;
    steadyfs_repair_report rep;
    steadyfs_stat st;
    uint32_t lostw = 0;
    int fd, rc;
    tdev t;
    CHECK_EQ(tdev_open(&t, dev, blocks, 7), 0);
    t.cfg.open_max = 2;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fd = steadyfs_open(&t.fs, "/log", STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_stat_path(&t.fs, "/log", &st), 0);
    ino = (uint32_t)st.id;
    CHECK_EQ(sfs_lookup(&t.fs, sfs_shared_lpn(&t.fs, ino, 0), 0, &ppn), 0);
    damage(&t, ppn);
    for (i = 0; fd >= 0 && i < n; i++) {
        memset(rec, (int)(i % 251u), sizeof rec);
        sfs_put32(rec, i);
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)(i % slots) * 4096, STEADYFS_SEEK_SET), (int64_t)(i % slots) * 4096);
        CHECK_EQ(steadyfs_write(&t.fs, fd, rec, sizeof rec), (int)sizeof rec);
    }
    rc = steadyfs_close(&t.fs, fd);
    CHECK(rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK(steadyfs_stat_path(&t.fs, "/log", &st) < 0);
    CHECK_EQ(repair(&t, &rep), 0);
    CHECK_EQ(rep.files_rebuilt, 1);
    CHECK_EQ(steadyfs_stat_path(&t.fs, "/log", &st), 0);
    CHECK_EQ(st.size, slots * 4096u);
    fd = steadyfs_open(&t.fs, "/log", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    for (k = 0; fd >= 0 && k < slots; k++) {
        uint32_t last = n - 1u - ((n - 1u - k) % slots);   /* the newest record at slot k */
        if (steadyfs_read(&t.fs, fd, rec, sizeof rec) != (int)sizeof rec || sfs_get32(rec) != last ||
            rec[4095] != (uint8_t)(last % 251u))
            bad++;
    }
    CHECK_EQ(bad, 0);
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lostw), 0);
    printf("  %s, an O_DSYNC logger's inode sector damaged while open: %u records went on, its close failed "
           "(%d); repaired: every one of its %u slots reads its newest record\n",
           dev, n, rc, slots - bad);
    tdev_close(&t);
}

/* The log's last sector damaged after a clean unmount: a file's second
 * version written + synced and closed (its close's inode sector, the
 * commit, is the last program in the log), then that sector's page goes
 * bad while the device is off.  Replay takes an unreadable last sector
 * for a program a cut tore, so with the commit still in the replay window
 * the file came back at its first version, with no error (soak-repair's
 * draws 247 and 252 of 400, /hot's last record).  The unmount's
 * checkpoint after the last sector holds the commit: the repair rebuilds
 * the file's inode sector, and every byte reads its second version. */
static void last_commit(const char *dev, uint32_t blocks)
{
    static uint8_t v1[3 * 2048], v2[3 * 2048], back[3 * 2048];
    steadyfs_repair_report rep;
    uint32_t i, ino, ppn, lostw = 0;
    steadyfs_stat st;
    int fd;
    tdev t;
    for (i = 0; i < sizeof v1; i++) {
        v1[i] = (uint8_t)(i * 13u + 1u);
        v2[i] = (uint8_t)(i * 7u + 5u);
    }
    fresh_fs(&t, dev, blocks, 11);
    fd = steadyfs_open(&t.fs, "/f", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(&t.fs, fd, v1, sizeof v1), (int)sizeof v1);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    /* a checkpoint now, so that the second version is all in the log */
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fd = steadyfs_open(&t.fs, "/f", STEADYFS_O_RDWR);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(&t.fs, fd, v2, sizeof v2), (int)sizeof v2);
    CHECK_EQ(steadyfs_sync(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_stat_path(&t.fs, "/f", &st), 0);
    ino = (uint32_t)st.id;
    CHECK_EQ(sfs_lookup(&t.fs, sfs_shared_lpn(&t.fs, ino, 0), 0, &ppn), 0);
    /* (the close's commit is the log's last sector) */
    CHECK_EQ(ppn + 1u, t.fs.log.head_block * t.fs.geo.P + t.fs.log.head_idx);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    damage(&t, ppn);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK(steadyfs_stat_path(&t.fs, "/f", &st) < 0);   /* its inode sector is lost, not undone */
    CHECK_EQ(repair(&t, &rep), 0);
    CHECK_EQ(rep.files_rebuilt, 1);
    fd = steadyfs_open(&t.fs, "/f", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_read(&t.fs, fd, back, sizeof back), (int)sizeof back);
    CHECK(!memcmp(back, v2, sizeof back));
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lostw), 0);
    printf("  %s, the log's last sector (a commit) damaged after a clean unmount: the file reads its "
           "last version after the repair\n", dev);
    tdev_close(&t);
}

/* One byte of a file's L1 map word changed (NOR, MRAM: no ECC, and a
 * small read of map words does not cover the sector's CRC), for its page
 * 0 (in the shared table) and a page in its first chunk; both pages are
 * then written whole and synced, and another file is overwritten until
 * collection has gone over the device a few times.  Before map words
 * carried a check (format 16), the commit looked up the changed word,
 * uncounted the sector it named -- a live sector of the file -- and
 * collection later erased that sector's unit with it still live: a page
 * never damaged read EIO, and fsck failed.  Now the changed word reads as
 * lost, its old sector stays counted until collection finds it dead, and
 * every byte reads back. */
/* The pages of file `path` (len bytes from a[]) that do not read back
 * as written, each named on stdout after `what`. */
static uint32_t pages_bad(tdev *t, const char *path, const uint8_t *a, uint32_t len, const char *what)
{
    static uint8_t back[2048];
    uint32_t i, pay = t->fs.geo.payload, bad = 0;
    int fd = steadyfs_open(&t->fs, path, STEADYFS_O_RDONLY);
    CHECK(fd >= 0 && pay <= sizeof back);
    for (i = 0; fd >= 0 && i < len / pay; i++)
        if (steadyfs_read(&t->fs, fd, back, pay) != (int)pay || memcmp(back, a + i * pay, pay)) {
            printf("  %s: %s page %u does not read back\n", what, path, i);
            bad++;
            CHECK_EQ(steadyfs_seek(&t->fs, fd, (int64_t)(i + 1u) * pay, STEADYFS_SEEK_SET), (int64_t)(i + 1u) * pay);
        }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
    return bad;
}

static void changed_word(const char *dev, uint32_t blocks)
{
    static uint8_t a[64 * 2048], page[2048], rec[4096];
    uint32_t i, k, lpn[2] = {0, 0}, fp[2] = {0, 5}, ppn, l1, ino, lostw = 0, rounds;
    uint64_t rng = 5;
    steadyfs_stat st;
    sfs_tag tg;
    int fd;
    tdev t;
    fill_bytes(a, sizeof a, 7u, 3u);
    fresh_fs(&t, dev, blocks, 3);
    fd = steadyfs_open(&t.fs, "/a", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_write(&t.fs, fd, a, sizeof a), (int)sizeof a);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    fd = steadyfs_open(&t.fs, "/hot", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_write(&t.fs, fd, a, sizeof a), (int)sizeof a);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_stat_path(&t.fs, "/a", &st), 0);
    ino = (uint32_t)st.id;
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);   /* (the words are in their L1 sectors now) */
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    lpn[0] = sfs_shared_lpn(&t.fs, ino, 1);
    for (i = t.fs.geo.cbase; !lpn[1] && i < t.fs.geo.n_l1 * t.fs.geo.e1; i++)
        if (!sfs_lookup(&t.fs, i, 0, &ppn) && ppn < SFS_LOST && sfs_rd_tag_in(&t.fs, ppn, &tg, 1) == 0 &&
            tg.kind == TK_DATA && tg.owner == ino && tg.fpage == fp[1])
            lpn[1] = i;
    CHECK(lpn[1] != 0);
    for (k = 0; k < 2; k++) {
        CHECK_EQ(sfs_l1_locate(&t.fs, lpn[k] / t.fs.geo.e1, &l1), 0);
        CHECK(l1 < SFS_LOST);
        damage_at(&t, l1, 4u * (lpn[k] % t.fs.geo.e1));
    }
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fd = steadyfs_open(&t.fs, "/a", STEADYFS_O_RDWR);
    CHECK(fd >= 0);
    for (k = 0; k < 2; k++) {
        memset(page, 0xA5 + (int)k, sizeof page);
        memcpy(a + fp[k] * 2048u, page, sizeof page);
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)fp[k] * 2048, STEADYFS_SEEK_SET), (int64_t)fp[k] * 2048);
        CHECK_EQ(steadyfs_write(&t.fs, fd, page, sizeof page), (int)sizeof page);
    }
    CHECK_EQ(steadyfs_sync(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    /* collection over the whole device, a few times */
    fd = steadyfs_open(&t.fs, "/hot", STEADYFS_O_RDWR);
    rounds = 4u * t.fs.geo.nblocks * t.fs.geo.P / 2u;
    for (i = 0; fd >= 0 && i < rounds; i++) {
        CHECK_EQ(steadyfs_seek(&t.fs, fd, tdev_rand(&rng, sizeof a - sizeof rec), STEADYFS_SEEK_SET) >= 0, 1);
        memset(rec, (int)i, sizeof rec);
        CHECK_EQ(steadyfs_write(&t.fs, fd, rec, sizeof rec), (int)sizeof rec);
        CHECK_EQ(steadyfs_sync(&t.fs, fd), 0);
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(pages_bad(&t, "/a", a, sizeof a, "a changed L1 word"), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lostw), 0);
    printf("  %s, one byte of two L1 words changed, their pages rewritten, %u records after: every page "
           "reads back, fsck clean\n", dev, rounds);
    tdev_close(&t);
}

/* A fresh volume on dev with files `first` and `second` of a's len bytes
 * each (their inode numbers into ino[]), then 4 x pending_max records to
 * /c, so that their chunk entries are merged into their inode sectors,
 * and a remount. */
static void two_files(tdev *t, const char *dev, uint32_t blocks, const char *first, const char *second,
                      const uint8_t *a, uint32_t len, uint32_t *ino)
{
    steadyfs_stat st;
    uint32_t i;
    int fd;
    fresh_fs(t, dev, blocks, 3);
    for (i = 0; i < 2; i++) {
        fd = steadyfs_open(&t->fs, i ? second : first, STEADYFS_O_RDWR | STEADYFS_O_CREAT);
        CHECK_EQ(steadyfs_write(&t->fs, fd, a, len), (int)len);
        CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
        CHECK_EQ(steadyfs_stat_path(&t->fs, i ? second : first, &st), 0);
        ino[i] = (uint32_t)st.id;
    }
    fd = steadyfs_open(&t->fs, "/c", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    for (i = 0; i < 4u * t->fs.cfg.pending_max; i++)
        CHECK_EQ(steadyfs_write(&t->fs, fd, a, t->fs.geo.payload), (int)t->fs.geo.payload);
    CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t->fs), 0);
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
}

/* A chunk-list entry of an open file changed to name another file's chunk
 * (format 17: the entry carries a check).  NOR and MRAM fill an open
 * file's chunk window with a small read that the inode sector's data CRC
 * does not cover: before the check, an O_DSYNC write into that slot
 * committed over the other file's page (its commit in its own tag reads
 * nothing else).  Now it fails (ECORRUPT), as does a shrink through the
 * slot, and the other file reads back whole. */
static void changed_entry(const char *dev, uint32_t blocks)
{
    static uint8_t a[40 * 2048], page[2048];
    uint32_t i, ia, ib, s, cb = CHUNK_NONE, ca = CHUNK_NONE, ippn, w, bad = 0, pay, ino[2];
    int fd, rc;
    tdev t;
    fill_bytes(a, sizeof a, 11u, 1u);
    two_files(&t, dev, blocks, "/a", "/b", a, sizeof a, ino);
    ia = ino[0];
    ib = ino[1];
    pay = t.fs.geo.payload;
    CHECK(sizeof a >= (3u * t.fs.geo.C + 2u) * pay);
    /* a slot of /a that only its inode sector lists, whose entry changed
     * to /b's chunk for the same slot (its bits unchecked) would pass as
     * a chunk number */
    CHECK_EQ(sfs_lookup(&t.fs, sfs_shared_lpn(&t.fs, ia, 0), 0, &ippn), 0);
    for (s = 1; s <= 3u && cb == CHUNK_NONE; s++) {
        if (sfs_chunk_entry(&t.fs, ia, s, 0) != CHUNK_NONE)
            continue;
        CHECK_EQ(sfs_rd_words(&t.fs, ippn, (SFS_INODE_HDR + 2u * s) / 4u, 1, &w), 0);
        ca = sfs_chunk_dec(&t.fs, ia, s, s & 1u ? w >> 16 : w & 0xFFFFu);
        CHECK_EQ(sfs_chunk_get(&t.fs, ib, s, 0, &cb), 0);
        if (ca >= t.fs.geo.n_c || cb >= t.fs.geo.n_c || sfs_chunk_enc(&t.fs, ia, s, cb) == cb)
            cb = CHUNK_NONE;
    }
    CHECK(cb != CHUNK_NONE);
    s--;
    /* (O_DSYNC: the write's commit rides in its sector's tag and reads
     * nothing of the inode sector, whose data CRC would fail) */
    fd = steadyfs_open(&t.fs, "/a", STEADYFS_O_RDWR | STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    set_at(&t, ippn, SFS_INODE_HDR + 2u * s, (uint8_t)cb);
    set_at(&t, ippn, SFS_INODE_HDR + 2u * s + 1u, (uint8_t)(cb >> 8));
    memset(page, 0x5A, sizeof page);
    CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)(s * t.fs.geo.C + 1u) * pay, STEADYFS_SEEK_SET),
             (int64_t)(s * t.fs.geo.C + 1u) * pay);
    rc = steadyfs_write(&t.fs, fd, page, pay);
    CHECK_EQ(rc, STEADYFS_ECORRUPT);
    rc = steadyfs_sync(&t.fs, fd);
    CHECK_EQ(rc, 0);
    /* a shrink through that slot */
    rc = steadyfs_truncate(&t.fs, fd, (uint64_t)(s * t.fs.geo.C + 2u) * pay + 100u);
    CHECK_EQ(rc, STEADYFS_ECORRUPT);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    for (i = 0; i < 2; i++) {
        if (i) {
            CHECK_EQ(steadyfs_unmount(&t.fs), 0);
            CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        }
        bad += pages_bad(&t, "/b", a, sizeof a, "a changed chunk entry of /a");
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    printf("  %s, /a's entry for slot %u changed from chunk %u to /b's %u while open: its write and "
           "its shrink there fail, /b reads back whole\n", dev, s, ca, cb);
    tdev_close(&t);
}

/* The kill of a file whose inode sector cannot be located (its map word
 * lost) finds its chunks as the used ones no other file lists.  Another
 * file /y whose inode sector is damaged -- here its type byte, which NOR
 * and MRAM read with a small read and no CRC -- listed nothing there, so
 * its chunks died too, and a repair had nothing to rebuild /y from.  Now
 * such a sector stops the scavenge (nothing dies; a repair frees what no
 * file's tags claim), and /y comes back whole. */
static void scavenge_spares(const char *dev, uint32_t blocks)
{
    static uint8_t a[40 * 2048];
    uint32_t i, ix, iy, l1, yppn, ino[2];
    steadyfs_repair_report rep;
    tdev t;
    fill_bytes(a, sizeof a, 5u, 9u);
    two_files(&t, dev, blocks, "/x", "/y", a, sizeof a, ino);
    ix = ino[0];
    iy = ino[1];
    /* /x's inode word changed (it reads lost), /y's type byte changed */
    CHECK_EQ(sfs_l1_locate(&t.fs, sfs_shared_lpn(&t.fs, ix, 0) / t.fs.geo.e1, &l1), 0);
    CHECK(l1 < SFS_LOST);
    CHECK_EQ(sfs_lookup(&t.fs, sfs_shared_lpn(&t.fs, iy, 0), 0, &yppn), 0);
    CHECK(yppn < SFS_LOST);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    lose_word(&t, l1, sfs_shared_lpn(&t.fs, ix, 0) % t.fs.geo.e1);
    damage_at(&t, yppn, 12u);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_unlink(&t.fs, "/x"), 0);
    /* the trim steps of whatever died */
    for (i = 0; i < 64u; i++)
        CHECK(steadyfs_gc_step(&t.fs, 8) >= 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(repair(&t, &rep), 0);
    CHECK(rep.files_rebuilt >= 1u);
    CHECK_EQ(pages_bad(&t, "/y", a, sizeof a, "/x killed with its inode word lost"), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    printf("  %s, /x unlinked with its inode word lost while /y's inode sector was damaged: the repair "
           "brought /y back whole (%u files rebuilt, %u chunks freed)\n",
           dev, rep.files_rebuilt, rep.chunks_freed);
    tdev_close(&t);
}

/* The same kill while other files hold chunks that only RAM knows of: /w's
 * committed chunk entries not yet in its inode sector (O_DSYNC writes
 * commit in their last sector's tag), /v's uncommitted ones, and the chunk
 * /v's held sector took by the hold alone (nothing is programmed there
 * yet, so no tag names /v: the chunk is not used until the program, and
 * the scavenge passes it as allocation does).  `make test` had never run
 * the scavenge's look at other files' pending chunk entries. */
static void scavenge_spares_open(const char *dev, uint32_t blocks)
{
    static uint8_t a[40 * 2048], hb[4096];
    uint32_t i, ix, l1, ino[2], pay, C, vino, held, lost;
    steadyfs_repair_report rep;
    steadyfs_stat st;
    int fw, fv;
    tdev t;
    fill_bytes(a, sizeof a, 11u, 5u);
    two_files(&t, dev, blocks, "/x", "/y", a, sizeof a, ino);
    ix = ino[0];
    CHECK_EQ(sfs_l1_locate(&t.fs, sfs_shared_lpn(&t.fs, ix, 0) / t.fs.geo.e1, &l1), 0);
    CHECK(l1 < SFS_LOST);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    lose_word(&t, l1, sfs_shared_lpn(&t.fs, ix, 0) % t.fs.geo.e1);
    t.cfg.hold_buf = hb;
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    pay = t.fs.geo.payload;
    C = t.fs.geo.C;
    CHECK((C + 1u) * pay <= sizeof a);
    fw = steadyfs_open(&t.fs, "/w", STEADYFS_O_RDWR | STEADYFS_O_CREAT | STEADYFS_O_DSYNC);
    CHECK_EQ(steadyfs_write(&t.fs, fw, a, (C + 1u) * pay), (int)((C + 1u) * pay));
    fv = steadyfs_open(&t.fs, "/v", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK_EQ(steadyfs_write(&t.fs, fv, a, (C + 1u) * pay), (int)((C + 1u) * pay));
    CHECK_EQ(steadyfs_stat_path(&t.fs, "/v", &st), 0);
    vino = (uint32_t)st.id;
    /* /v's page C is held, in a chunk of slot 1 that nothing else names */
    CHECK(t.fs.hold.ino == vino && t.fs.hold.pg == C && (t.fs.hold.flags & TF_NEWCHUNK));
    held = (t.fs.hold.lpn - t.fs.geo.cbase) / C;
    CHECK_EQ(steadyfs_unlink(&t.fs, "/x"), 0);
    CHECK(!sfs_bit(t.fs.chunk.used, held) && !sfs_bit(t.fs.chunk.dying, held));
    CHECK_EQ(steadyfs_sync(&t.fs, fv), 0);
    CHECK_EQ(steadyfs_close(&t.fs, fv), 0);
    CHECK_EQ(steadyfs_close(&t.fs, fw), 0);
    for (i = 0; i < 64u; i++)
        CHECK(steadyfs_gc_step(&t.fs, 8) >= 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(pages_bad(&t, "/v", a, (C + 1u) * pay, "/x killed while /v held a new chunk"), 0);
    CHECK_EQ(pages_bad(&t, "/w", a, (C + 1u) * pay, "/x killed while /w's chunks were in RAM"), 0);
    CHECK_EQ(pages_bad(&t, "/y", a, sizeof a, "/x killed while /v held a new chunk"), 0);
    /* (the damaged L1 sector stays until a merge or a repair rewrites it) */
    CHECK_EQ(repair(&t, &rep), 0);
    CHECK_EQ(pages_bad(&t, "/v", a, (C + 1u) * pay, "after the repair"), 0);
    CHECK_EQ(pages_bad(&t, "/w", a, (C + 1u) * pay, "after the repair"), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lost), 0);
    CHECK_EQ(lost, 0);
    printf("  %s, /x unlinked with its inode word lost while /v held a new chunk (%u) and /w's chunk entries "
           "were in RAM: all kept, fsck clean after the repair\n",
           dev, held);
    tdev_close(&t);
}

/* An orphan (a file unlinked while open) that a cut left, whose inode
 * sector is then damaged: the first calls after mount reap it, its chunk
 * list cannot be read, and its kill takes the chunks whose tags name it
 * (kill.c reap, scavenge).  `make test` had never run that reap.  Its
 * chunks must die (fsck: no chunk used that no file lists) and /y must
 * keep every page. */
static void orphan_lost(const char *dev, uint32_t blocks)
{
    static uint8_t a[40 * 2048];
    uint32_t i, ino[2], ippn, lost;
    int fd;
    tdev t;
    fill_bytes(a, sizeof a, 13u, 1u);
    two_files(&t, dev, blocks, "/o", "/y", a, sizeof a, ino);
    fd = steadyfs_open(&t.fs, "/o", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_unlink(&t.fs, "/o"), 0);
    CHECK_EQ(t.fs.orphans.n, 1u);
    ippn = place(&t, ino[0], 0);
    CHECK(ippn < SFS_LOST);
    /* the cut: no close, no unmount; the sector goes bad meanwhile */
    damage_at(&t, ippn, 4u);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    for (i = 0; i < 16u && t.fs.orphans.n; i++)
        CHECK(steadyfs_gc_step(&t.fs, 8) >= 0);
    CHECK_EQ(t.fs.orphans.n, 0u);
    for (i = 0; i < 64u; i++)
        CHECK(steadyfs_gc_step(&t.fs, 8) >= 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(pages_bad(&t, "/y", a, sizeof a, "an orphan reaped with its inode sector lost"), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lost), 0);
    CHECK_EQ(lost, 0);
    printf("  %s, an orphan left by a cut with its inode sector damaged: reaped after mount, its chunks freed, "
           "/y whole, fsck clean\n",
           dev);
    tdev_close(&t);
}

/* Churn over a damaged L1 sector of static data: /s's pages were written
 * between overwrites of /c, so its units hold dead sectors collection (or,
 * on MRAM, the threaded head) reaches, and the L1 sector that maps /s is
 * damaged (NAND: past its ECC; NOR, MRAM: a byte of a word).  The first
 * merge that meets it rebuilds it.  Every churn write must succeed, each page
 * of /s read back as written (never other bytes), and a repair leave fsck
 * clean.  bytes 1: the damage changes one byte of a word (NOR, MRAM) or
 * nine bits of a NAND codeword, spread over its words: each word is put
 * right (map.c sfs_word_fix).  Before that, 9 of 408 pages read EIO on mt29f1g01 and 1 on each of the
 * others, for good.  bytes 2 (NOR, MRAM): two bytes of the word changed,
 * which no candidate explains: that one page is lost (it reads EIO, and
 * collection, whose liveness test finds its word lost, lets its sector
 * go; on MRAM, where nothing collects, the mount's exact bits leave it
 * uncounted, ckpt.c), counted lost by fsck after the repair; no other
 * page of the sector is, and no churn write fails. */
static void churn_damaged_l1(const char *dev, uint32_t blocks, uint32_t bytes)
{
    static uint8_t a[2048], back[2048];
    uint8_t word[4];
    uint32_t i, pay, spages, l1, lpn, sino, v0, eio = 0, eio_at = ~0u, wrong = 0, lost, rounds;
    steadyfs_repair_report rep;
    steadyfs_stat st;
    steadyfs_info info;
    int fs_, fc, rc;
    tdev t;
    fresh_fs(&t, dev, blocks, 11);
    pay = t.fs.geo.payload;
    CHECK(pay <= sizeof a);
    CHECK_EQ(steadyfs_info_get(&t.fs, &info), 0);
    /* (a fifth of the capacity, interleaved with as many overwrites) */
    spages = (uint32_t)(info.capacity / 5u / pay);
    fs_ = steadyfs_open(&t.fs, "/s", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    fc = steadyfs_open(&t.fs, "/c", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fs_ >= 0 && fc >= 0);
    for (i = 0; i < spages; i++) {
        memset(a, (int)(i * 7u + 1u), pay);
        sfs_put32(a, i);
        CHECK_EQ(steadyfs_write(&t.fs, fs_, a, pay), (int)pay);
        CHECK_EQ(steadyfs_seek(&t.fs, fc, (int64_t)(i % 8u) * pay, STEADYFS_SEEK_SET), (int64_t)(i % 8u) * pay);
        CHECK_EQ(steadyfs_write(&t.fs, fc, a, pay), (int)pay);
        if (i % 16u == 15u) {
            CHECK_EQ(steadyfs_sync(&t.fs, fs_), 0);
            CHECK_EQ(steadyfs_sync(&t.fs, fc), 0);
        }
    }
    CHECK_EQ(steadyfs_close(&t.fs, fs_), 0);
    CHECK_EQ(steadyfs_stat_path(&t.fs, "/s", &st), 0);
    sino = (uint32_t)st.id;
    /* the L1 sector of /s's page spages / 2 (its chunk, after the first) */
    lpn = chunk_page_lpn(&t, "/s", spages / 2u);
    CHECK_EQ(sfs_l1_locate(&t.fs, lpn / t.fs.geo.e1, &l1), 0);
    CHECK(l1 < SFS_LOST);
    CHECK_EQ(sfs_rd_buf(&t.fs, l1), 0);
    memcpy(word, t.fs.buf + 4u * (lpn % t.fs.geo.e1), 4);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    if (bytes == 1u) {
        damage_at(&t, l1, 4u * (lpn % t.fs.geo.e1));
    } else {
        set_at(&t, l1, 4u * (lpn % t.fs.geo.e1), (uint8_t)(word[0] ^ 0x5Au));
        set_at(&t, l1, 4u * (lpn % t.fs.geo.e1) + 1u, (uint8_t)(word[1] ^ 0xC3u));
    }
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fc = steadyfs_open(&t.fs, "/c", STEADYFS_O_RDWR);
    CHECK(fc >= 0);
    v0 = t.fs.stats.victim + t.fs.stats.threaded;
    /* the churn: every write succeeds while collection meets /s's pages */
    rounds = 6u * spages;
    for (i = 0; i < rounds; i++) {
        memset(a, (int)i, pay);
        CHECK_EQ(steadyfs_seek(&t.fs, fc, (int64_t)(i % 8u) * pay, STEADYFS_SEEK_SET), (int64_t)(i % 8u) * pay);
        rc = steadyfs_write(&t.fs, fc, a, pay);
        if (rc != (int)pay) {
            printf("  %s: churn write %u of %u failed (%d)\n", dev, i, rounds, rc);
            CHECK_EQ(rc, (int)pay);
            break;
        }
        if (i % 16u == 15u)
            CHECK_EQ(steadyfs_sync(&t.fs, fc), 0);
    }
    CHECK_EQ(steadyfs_close(&t.fs, fc), 0);
    v0 = t.fs.stats.victim + t.fs.stats.threaded - v0;
    CHECK(v0 > 0u);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    fs_ = steadyfs_open(&t.fs, "/s", STEADYFS_O_RDONLY);
    CHECK(fs_ >= 0);
    for (i = 0; fs_ >= 0 && i < spages; i++) {
        CHECK_EQ(steadyfs_seek(&t.fs, fs_, (int64_t)i * pay, STEADYFS_SEEK_SET), (int64_t)i * pay);
        rc = steadyfs_read(&t.fs, fs_, back, pay);
        memset(a, (int)(i * 7u + 1u), pay);
        sfs_put32(a, i);
        if (rc == STEADYFS_EIO) {
            eio++;
            eio_at = i;
        } else if (rc != (int)pay || memcmp(a, back, pay)) {
            wrong++;
        }
    }
    if (fs_ >= 0)
        CHECK_EQ(steadyfs_close(&t.fs, fs_), 0);
    CHECK_EQ(wrong, 0);
    /* (two bytes: at most the page of the word, spages / 2) */
    CHECK(eio == 0u || (bytes > 1u && eio == 1u && eio_at == spages / 2u));
    CHECK_EQ(repair(&t, &rep), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lost), 0);
    CHECK_EQ(lost, eio);
    printf("  %s, the L1 sector of /s (inode %u) damaged under churn (%u byte%s of a word): %u writes, %u victims "
           "or threaded moves, /s: %u of %u pages read back, %u EIO, none wrong; fsck clean after the repair\n",
           dev, sino, bytes, bytes == 1u ? "" : "s", rounds, v0, spages - eio, spages, eio);
    tdev_close(&t);
}

/* A sector collection has copied stays readable where it was until its
 * record retires, and the map word still names it meanwhile ("reads need
 * no record", DESIGN §6).  Damage to that original while its copy is
 * whole: /y's inode sector and one of its data pages, each with a copy.
 * Before, /y's open failed (EIO) and the page read EIO until the sweep
 * rewrote their L1 sectors; now a read that fails there reads the copy
 * (cache.c sfs_rd_buf, file.c read_page). */
static void copied_original(const char *dev, uint32_t blocks)
{
    static uint8_t a[40 * 2048], back[2048];
    uint32_t i, k, iy, ip = SFS_NONE, cp, dp = SFS_NONE, dcp = SFS_NONE, dpg = 0, ino[2], pay, c;
    int fd;
    tdev t;
    fill_bytes(a, sizeof a, 19u, 7u);
    two_files(&t, dev, blocks, "/x", "/y", a, sizeof a, ino);
    iy = ino[1];
    pay = t.fs.geo.payload;
    /* records to /c until /y's inode sector and one of its data pages
     * have copies that their map words do not name yet */
    fd = steadyfs_open(&t.fs, "/c", STEADYFS_O_RDWR);
    CHECK(fd >= 0);
    for (i = 0; fd >= 0 && i < 20000u; i++) {
        ip = place(&t, iy, 0);
        cp = sfs_copy_of(&t.fs, ip);
        /* the unit of /y's inode sector as the next greedy victim: the
         * rule takes it once it is the emptiest, which /c's churn, whose
         * units die whole, puts off for tens of thousands of records
         * since ties go to the unit written longest ago (gc.c
         * pick_victim); collection may take any closed unit (static wear
         * levelling does), so it is named here as pick_victim names one */
        if (cp == ip && t.fs.gc.victim == SFS_NONE && sfs_closed(&t.fs, ip / t.fs.geo.P) &&
            ip / t.fs.geo.P != t.fs.gc.wl_victim && sfs_reloc_room(&t.fs)) {
            t.fs.gc.victim = ip / t.fs.geo.P;
            t.fs.gc.idx = 0;
            t.fs.gc.c0 = t.fs.blk[t.fs.gc.victim];
        }
        if (cp != ip && dp == SFS_NONE) {
            CHECK_EQ(sfs_rd_buf(&t.fs, ip), 0);
            for (k = 1; k < 40u && dp == SFS_NONE; k++) {
                c = sfs_list_get(&t.fs, t.fs.buf, iy, k / t.fs.geo.C);
                if (c < t.fs.geo.n_c && !sfs_lookup(&t.fs, sfs_chunk_lpn(&t.fs, c, k), 0, &dp) &&
                    (dcp = sfs_copy_of(&t.fs, dp)) != dp)
                    dpg = k;
                else
                    dp = SFS_NONE;
            }
        }
        if (cp != ip && dp != SFS_NONE)
            break;
        dp = SFS_NONE;
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)(i % 48u) * pay, STEADYFS_SEEK_SET), (int64_t)(i % 48u) * pay);
        CHECK_EQ(steadyfs_write(&t.fs, fd, a, pay), (int)pay);
        CHECK_EQ(steadyfs_sync(&t.fs, fd), 0);
    }
    CHECK(dp != SFS_NONE);
    if (dp == SFS_NONE) {
        tdev_close(&t);
        return;
    }
    /* the cut (no unmount: the records stay as they are), the originals
     * damaged meanwhile */
    damage(&t, ip);
    damage(&t, dp);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK(sfs_copy_of(&t.fs, place(&t, iy, 0)) != place(&t, iy, 0));
    fd = steadyfs_open(&t.fs, "/y", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)dpg * pay, STEADYFS_SEEK_SET), (int64_t)dpg * pay);
        CHECK_EQ(steadyfs_read(&t.fs, fd, back, pay), (int)pay);
        CHECK(!memcmp(back, a + dpg * pay, pay));
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    }
    CHECK_EQ(pages_bad(&t, "/y", a, sizeof a, "originals damaged, copies whole"), 0);
    printf("  %s, /y's inode sector and page %u damaged where they were, their copies whole (after %u records): "
           "/y opens and reads back\n",
           dev, dpg, i);
    tdev_close(&t);
}

/* Every word of the L2 sector that names an L1 sector changed (on NOR and
 * MRAM a byte each: its check fails, it reads lost).  Before, each such L1
 * sector's pages were lost for good: reads of them failed, and the next
 * merge of the L2 sector wrote the words lost.  Now the rebuild finds each
 * L1 sector's newest copy by its tag (map.c find_lost_l1), and every page
 * reads back. */
static void damaged_l2(const char *dev, uint32_t blocks, uint32_t bytes)
{
    /* (three files of 400 pages: L1 sectors the records after them do
     * not touch, whose L2 changes the table merges away) */
    static uint8_t a[400 * 2048];
    uint32_t i, f, l1, l2, pay, n = 0, bad = 0, lostw = 0, len;
    uint64_t slowest = 0, mount_ns, read_ns;
    steadyfs_info info;
    steadyfs_repair_report rep;
    int fd;
    tdev t;
    fill_bytes(a, sizeof a, 3u, 7u);
    fresh_fs(&t, dev, blocks, 3);
    pay = t.fs.geo.payload;
    /* (each file at most a fifth of the capacity) */
    CHECK_EQ(steadyfs_info_get(&t.fs, &info), 0);
    len = info.capacity / 5u < sizeof a ? (uint32_t)(info.capacity / 5u / pay * pay) : (uint32_t)sizeof a;
    for (f = 0; f < 3; f++) {
        char name[8] = "/f0";
        name[2] = (char)('0' + f);
        fd = steadyfs_open(&t.fs, name, STEADYFS_O_RDWR | STEADYFS_O_CREAT);
        CHECK_EQ(steadyfs_write(&t.fs, fd, a, len), (int)len);
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    }
    /* records to another file, so that the L1 sectors and the L2 sector
     * are written (an L2 change older than 4 K sectors is merged) */
    fd = steadyfs_open(&t.fs, "/c", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    for (i = 0; fd >= 0 && i < 12u * t.fs.cfg.pending_max; i++) {
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)(i % 16u) * pay, STEADYFS_SEEK_SET), (int64_t)(i % 16u) * pay);
        CHECK_EQ(steadyfs_write(&t.fs, fd, a, pay), (int)pay);
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(t.fs.geo.n_l2, 1u);
    l2 = t.fs.root[0];
    CHECK(l2 < SFS_LOST);
    /* (a word a pending L2 change overrides is not read) */
    for (i = 0; l2 < SFS_LOST && i < t.fs.geo.n_l1; i++)
        if (!sfs_pend_find(&t.fs, PT_L2, i, 0) && !sfs_l1_locate(&t.fs, i, &l1) && l1 < SFS_LOST) {
            /* (one byte: the word is put right, map.c sfs_word_fix; two
             * bytes: past that, the scan of the tags finds its L1 sector) */
            damage_at(&t, l2, 4u * i + (i & 3u));
            if (bytes == 2u)
                damage_at(&t, l2, 4u * i + ((i + 2u) & 3u));
            n++;
        }
    CHECK(n >= 1u);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    mount_ns = t.dev.now_ns;
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    mount_ns = t.dev.now_ns - mount_ns;
    /* records to another file: merges, and the L2 sector's rebuild (the
     * slowest record timed: what the fault handling costs, outside the
     * bound) */
    fd = steadyfs_open(&t.fs, "/c", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    for (i = 0; fd >= 0 && i < 4u * t.fs.cfg.pending_max; i++) {
        uint64_t t0 = t.dev.now_ns;
        CHECK_EQ(steadyfs_seek(&t.fs, fd, (int64_t)(i % 16u) * pay, STEADYFS_SEEK_SET), (int64_t)(i % 16u) * pay);
        CHECK_EQ(steadyfs_write(&t.fs, fd, a, pay), (int)pay);
        CHECK_EQ(steadyfs_sync(&t.fs, fd), 0);
        if (t.dev.now_ns - t0 > slowest)
            slowest = t.dev.now_ns - t0;
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    read_ns = t.dev.now_ns;
    for (f = 0; f < 3; f++) {
        char name[8] = "/f0";
        name[2] = (char)('0' + f);
        bad += pages_bad(&t, name, a, len, "a changed L2 word");
    }
    read_ns = t.dev.now_ns - read_ns;
    if (bad)
        printf("  %s, %u words of the L2 sector changed: %u file pages do not read back\n", dev, n, bad);
    CHECK_EQ(bad, 0);
    /* the damaged L2 sector itself: a repair merges it (its lost words
     * found the same way), and fsck finds nothing */
    CHECK_EQ(repair(&t, &rep), 0);
    CHECK(rep.map_rebuilt >= 1u);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(fsck_errors(&t, &lostw), 0);
    printf("  %s, the %u words of the L2 sector that name L1 sectors changed in %u byte%s: %s (slowest record "
           "%.2f ms, the mount after the damage %.2f ms, reading the three files %.2f ms, typical timing), every "
           "page reads back; repaired (%u map sectors), fsck clean\n",
           dev, n, bytes, bytes == 1u ? "" : "s", bytes == 1u ? "each word put right" : "each L1 sector found by its tag",
           (double)slowest / 1e6, (double)mount_ns / 1e6, (double)read_ns / 1e6, rep.map_rebuilt);
    tdev_close(&t);
}

int main(void)
{
    const char *env = getenv("STEADYFS_REPAIR_SEEDS");
    uint64_t seeds = 12, first = 1, s;
    int c;
    if (env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (!*env || *end || v < 1 || v > 100000)
            printf("STEADYFS_REPAIR_SEEDS=%s is not a number of draws (1..100000): %llu taken\n", env,
                   (unsigned long long)seeds);
        else
            seeds = v;
    }
    env = getenv("STEADYFS_REPAIR_FIRST");
    if (env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (!*env || *end || v < 1 || v > 100000000)
            printf("STEADYFS_REPAIR_FIRST=%s is not a draw (1..100000000): 1 taken\n", env);
        else
            first = v;
    }
    printf("test_fs_repair:\n");
    env = getenv("STEADYFS_REPAIR_SEED");
    if (env) {
        /* one random draw alone, on each medium (what a soak's failure names) */
        s = strtoull(env, NULL, 10);
        run_case("mt29f1g01", BLOCKS, C_RANDOM, s, 1);
        run_case("em064lx", 0, C_RANDOM, s, 1);
        run_case("mt25q128", 1024, C_RANDOM, s, 0);
        return check_done("test_fs_repair");
    }
    for (c = C_BUCKET; c < C_RANDOM; c++)
        run_case("mt29f1g01", BLOCKS, c, 1, c == C_BUCKET || c == C_L1);
    run_case("mt29f1g01", BLOCKS, C_L2, 1, 1);
    for (s = first; s < first + seeds; s++)
        run_case("mt29f1g01", BLOCKS, C_RANDOM, s, s <= 4);
    /* (draw 998: a file whose name and inode sector are gone, in a block
     * whose damaged L1 sector lost its holes past page 0 -- it came back
     * as a directory until lost words stopped counting as buckets) */
    if (seeds < 998)
        run_case("mt29f1g01", BLOCKS, C_RANDOM, 998, 0);
    /* (draw 1278: a directory or symlink of the tree whose inode sector
     * and name are both gone, nothing of it left -- it came back as an
     * empty file under /lost+found until a repair removed such an inode,
     * kill.c sfs_kill_lost) */
    if (seeds < 1278)
        run_case("mt29f1g01", BLOCKS, C_RANDOM, 1278, 1);
    /* (draw 9075 with the L2 sector among the candidates: it and an inode
     * sector past their ECC, and replay takes in an L1 merge the
     * checkpoint did not hold, which looks the L1 sector it replaces up
     * through the L2 sector -- every mount failed with EIO, the whole
     * volume unreadable, until a lookup read the map words of a page past
     * its ECC raw, each checked: media.c sfs_rd_words_in) */
    with_l2 = 1;
    run_case("mt29f1g01", BLOCKS, C_RANDOM, 9075, 1);
    with_l2 = 0;
    /* MRAM: no ECC, damage is a sector whose data CRC fails */
    for (c = C_BUCKET; c < C_RANDOM; c++)
        run_case("em064lx", 0, c, 1, c == C_L1);
    run_case("em064lx", 0, C_L2, 1, 1);
    for (s = first; s < first + (seeds + 1) / 2; s++)
        run_case("em064lx", 0, C_RANDOM, s, s == 1);
    /* NOR: tags beside the sectors, as on MRAM, and units that erase */
    run_case("mt25q128", 1024, C_BUCKET, 1, 0);
    run_case("mt25q128", 1024, C_L1, 1, 1);
    run_case("mt25q128", 1024, C_L2, 1, 0);
    for (s = first; s < first + (seeds + 3) / 4; s++)
        run_case("mt25q128", 1024, C_RANDOM, s, 0);
    open_logger("mt29f1g01", BLOCKS);
    open_logger("em064lx", 0);
    last_commit("mt29f1g01", BLOCKS);
    last_commit("em064lx", 0);
    last_commit("mt25q128", 1024);
    changed_word("mt25q128", 1024);
    changed_word("em064lx", 0);
    changed_entry("mt25q128", 1024);
    changed_entry("em064lx", 0);
    scavenge_spares("mt25q128", 1024);
    scavenge_spares("em064lx", 0);
    scavenge_spares_open("mt25q128", 1024);
    scavenge_spares_open("em064lx", 0);
    orphan_lost("mt29f1g01", BLOCKS);
    orphan_lost("mt25q128", 1024);
    orphan_lost("em064lx", 0);
    churn_damaged_l1("mt29f1g01", BLOCKS, 1);
    churn_damaged_l1("mt25q128", 1024, 1);
    churn_damaged_l1("em064lx", 0, 1);
    churn_damaged_l1("mt25q128", 1024, 2);
    churn_damaged_l1("em064lx", 0, 2);
    copied_original("mt29f1g01", BLOCKS);
    damaged_l2("mt25q128", 0, 1);
    damaged_l2("mt25q128", 0, 2);
    damaged_l2("em064lx", 0, 1);
    damaged_l2("em064lx", 0, 2);
    errors_long_before("mt29f1g01", BLOCKS);
    errors_long_before("mt25q128", 1024);
    errors_long_before("em064lx", 0);
    printf("  files whose inode sector was lost, read back after the repair: %u, %u of them shorter (a chunk "
           "no file could be told to own)\n",
           rebuilt_files, rebuilt_short);
    return check_done("test_fs_repair");
}
