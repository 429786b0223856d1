/* Uncorrectable media errors (NAND pages whose bit errors exceed the ECC).
 *
 * A page can go bad between a program and a read (retention, read
 * disturb past what the ECC corrects).  What a user may rely on then
 * (DESIGN.md §6, "Bad blocks and ECC"): a read of a damaged page of a
 * file fails with EIO -- never returns other bytes -- every other file
 * reads back whole, the file system goes on writing up to its live limit
 * (collection that meets the damaged page gives up only that page), and
 * it mounts again.
 *
 * The test writes static files, makes random programmed pages of their
 * data uncorrectable in the device model (sim_flip_bits with more bits
 * than the ECC corrects, in one codeword: every read of the page fails),
 * then overwrites a hot file at random until collection has gone over the
 * device several times, reading the static files back page by page
 * throughout, remounting between rounds.  Each page of a static file must
 * read back as written or fail with EIO, and a page that failed must fail
 * again (its bytes are gone: no later read may return other bytes for it).
 *
 * STEADYFS_MEDIA_SEED picks another draw; STEADYFS_MEDIA_ROUNDS sets the
 * number of rounds (default 6); STEADYFS_MEDIA_ANY=1 damages sectors of
 * every kind, =0 data pages only (unset: both, main()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "read_errors.h"

#define NFILES 48
#define FILE_MAX (24u * 1024u)
#define PAGE 2048u
#define HOT_SIZE (256u * 1024u)
#define R_PAGES 10u   /* the file rewritten in the replay window */
#define SFS_PAGE_NONE 0xFFFFFFFFu

static uint32_t file_len[NFILES];
static uint32_t file_ino[NFILES];
/* per static file and page: 0 not failed yet, 1 failed with EIO */
static uint8_t failed[NFILES][FILE_MAX / PAGE];

/* STEADYFS_MEDIA_ANY: damage any sector kind (inode sectors, directory
 * buckets, map sectors too), not handled yet (DESIGN.md §6): only "never
 * other bytes" and a mount that works are checked */
static int any_damage;

static uint8_t byte_of(uint32_t f, uint32_t i) { return (uint8_t)((f * 131u + i * 7u + (i >> 11)) ^ 0x5Au); }

/* Read every static file page by page; 0 if every page is as written or
 * fails with EIO (and one that failed before fails again). */
static int check_static(tdev *t, uint32_t *bad_pages)
{
    static uint8_t buf[PAGE];
    uint32_t f, pg, i, bad = 0;
    int ok = 1;
    for (f = 0; f < NFILES; f++) {
        char name[32];
        int fd;
        snprintf(name, sizeof name, "/s/%u", f);
        fd = steadyfs_open(&t->fs, name, STEADYFS_O_RDONLY);
        if (fd < 0) {
            /* (with metadata damaged: its inode sector, its bucket or an
             * L1 sector on its way is lost) */
            if (!any_damage || (fd != STEADYFS_EIO && fd != STEADYFS_ECORRUPT)) {
                fprintf(stderr, "open %s: %d\n", name, fd);
                ok = 0;
            }
            bad++;
            continue;
        }
        for (pg = 0; pg * PAGE < file_len[f]; pg++) {
            uint32_t n = file_len[f] - pg * PAGE < PAGE ? file_len[f] - pg * PAGE : PAGE;
            int32_t rc;
            if (steadyfs_seek(&t->fs, fd, (int64_t)pg * PAGE, STEADYFS_SEEK_SET) != (int64_t)pg * PAGE) {
                ok = 0;
                break;
            }
            rc = steadyfs_read(&t->fs, fd, buf, n);
            if (rc == STEADYFS_EIO) {
                failed[f][pg] = 1;
                bad++;
                continue;
            }
            if (rc != (int32_t)n) {
                fprintf(stderr, "read %s page %u: %d\n", name, pg, rc);
                ok = 0;
                continue;
            }
            /* (a page whose map sector was damaged may come back once
             * that sector is rebuilt, map.c; one whose bytes are gone
             * never does) */
            if (failed[f][pg] && !any_damage) {
                fprintf(stderr, "%s page %u read after it had failed\n", name, pg);
                ok = 0;
            }
            for (i = 0; i < n; i++)
                if (buf[i] != byte_of(f, pg * PAGE + i)) {
                    fprintf(stderr, "%s page %u: wrong byte at %u\n", name, pg, i);
                    ok = 0;
                    break;
                }
        }
        steadyfs_close(&t->fs, fd);
    }
    *bad_pages = bad;
    return ok;
}

/* /r after the replay window: every rewritten page but victim reads back
 * new, victim fails with EIO. */
static void replayed_ok(tdev *t, uint32_t victim)
{
    static uint8_t buf[PAGE];
    uint32_t pg, i;
    int fd = steadyfs_open(&t->fs, "/r", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    for (pg = 0; pg < R_PAGES && fd >= 0; pg++) {
        int32_t rc;
        CHECK_EQ(steadyfs_seek(&t->fs, fd, (int64_t)pg * PAGE, STEADYFS_SEEK_SET), (int64_t)pg * PAGE);
        rc = steadyfs_read(&t->fs, fd, buf, PAGE);
        if (pg == victim) {
            CHECK_EQ(rc, STEADYFS_EIO);
            continue;
        }
        CHECK_EQ(rc, (int)PAGE);
        for (i = 0; i < PAGE && buf[i] == byte_of(200, pg * PAGE + i); i++)
            ;
        if (i < PAGE)
            fprintf(stderr, "/r page %u: not its synced bytes (%s)\n", pg,
                    buf[i] == byte_of(100, pg * PAGE + i) ? "its old ones" : "other ones");
        CHECK_EQ(i, PAGE);
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&t->fs, fd), 0);
}

/* A page damaged in the log mount replays (after the last checkpoint):
 * the pages of /r rewritten one O_DSYNC write each (each durable on
 * return, its commit in its own tag), power lost right after the last,
 * then the sector of one rewrite in the middle made uncorrectable.  Mount
 * must replay past it: every other rewritten page reads back new (a
 * replay that ended at the damaged page would give the pages after it
 * their old bytes: synced data lost), the damaged one fails with EIO. */
static void replay_window(tdev *t, uint64_t *rng)
{
    static uint8_t buf[PAGE];
    static read_errors re;
    uint64_t k, n = 0;
    uint32_t mount_eio = 0;
    uint32_t pg, i, blk, hit = SFS_PAGE_NONE, owner = 0, victim = 1u + tdev_rand(rng, R_PAGES - 3u);
    uint64_t best = 0;
    steadyfs_stat st;
    int fd;
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
    CHECK_EQ(steadyfs_stat_path(&t->fs, "/r", &st), 0);
    owner = (uint32_t)(st.id & 0xFFFFu);
    fd = steadyfs_open(&t->fs, "/r", STEADYFS_O_WRONLY | STEADYFS_O_DSYNC);
    CHECK(fd >= 0);
    for (pg = 0; pg < R_PAGES; pg++) {
        for (i = 0; i < PAGE; i++)
            buf[i] = byte_of(200, pg * PAGE + i);
        CHECK_EQ(steadyfs_seek(&t->fs, fd, (int64_t)pg * PAGE, STEADYFS_SEEK_SET), (int64_t)pg * PAGE);
        CHECK_EQ(steadyfs_write(&t->fs, fd, buf, PAGE), (int)PAGE);
    }
    /* power lost here: no close, no unmount; the newest sector of page
     * `victim` of /r (its tag: DATA, owner, file page, sequence) damaged */
    for (blk = 0; blk < t->dev.bd.geo.block_count; blk++)
        for (pg = 0; pg < t->dev.bd.geo.pages_per_block; pg++) {
            uint8_t sp[32];
            uint64_t seq;
            if (sbd_read(&t->dev.bd, blk, pg * PAGE, NULL, 0, sp, sizeof sp) < 0 || sp[0] != 1u ||
                ((uint32_t)sp[2] | (uint32_t)sp[3] << 8) != owner ||
                ((uint32_t)sp[10] | (uint32_t)sp[11] << 8) != victim)
                continue;
            seq = (uint64_t)sp[4] | (uint64_t)sp[5] << 8 | (uint64_t)sp[6] << 16 | (uint64_t)sp[7] << 24 |
                  (uint64_t)sp[8] << 32 | (uint64_t)sp[9] << 40;
            if (seq >= best) {
                best = seq;
                hit = blk * t->dev.bd.geo.pages_per_block + pg;
            }
        }
    CHECK(hit != SFS_PAGE_NONE);
    if (hit == SFS_PAGE_NONE)
        return;
    CHECK_EQ(sim_flip_bits(&t->dev, hit / t->dev.bd.geo.pages_per_block, hit % t->dev.bd.geo.pages_per_block,
                           t->dev.bd.geo.ecc_bits + 1u),
             0);
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
    replayed_ok(t, victim);
    /* and a mount whose k-th read returns no bytes for good (all three of
     * the media layer's tries), for every k: it fails with EIO, or replays
     * past the damaged page as above (a neighbour's tag that tells whether
     * the log goes on after it, taken for none, ended replay there) */
    read_errors_wrap(&re, &t->dev.bd, 5);
    t->cfg.bd = &re.bd;
    read_errors_window(&re, 0, 0);
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
    n = re.reads;
    for (k = 0; k < n; k++) {
        int rc;
        read_errors_window(&re, k, 3);
        rc = steadyfs_mount(&t->fs, &t->cfg);
        read_errors_window(&re, 0, 0);
        CHECK(rc == 0 || rc == STEADYFS_EIO);
        mount_eio += rc != 0;
        if (!rc)
            replayed_ok(t, victim);
    }
    t->cfg.bd = &t->dev.bd;
    CHECK_EQ(steadyfs_mount(&t->fs, &t->cfg), 0);
    printf("  replay window: page %u of %u synced pages damaged (sector %u), the others read back; also "
           "after a mount whose k-th read failed, for every k of %llu (%u failed with EIO)\n", victim, R_PAGES, hit,
           (unsigned long long)n, mount_eio);
    CHECK_EQ(steadyfs_unmount(&t->fs), 0);
}

/* Media without ECC (MRAM, NOR): damage is a sector whose data CRC
 * fails.  An L1 map sector damaged on em064lx: mount (which reads every
 * L1 sector there for its live bits) must work, no read may return other
 * bytes, writes go on, and the damaged sector is rebuilt when collection
 * or a write merges it. */
static void no_ecc(uint64_t seed)
{
    static uint8_t buf[4096];
    const sim_profile *pr;
    uint32_t f, i, ppn, hit = SFS_PAGE_NONE, stride, unit_bytes, bad = 0, wrong = 0, wfailed = 0;
    uint64_t rng = seed * 7919u + 3u;
    tdev t;
    int fd;
    CHECK_EQ(tdev_open(&t, "em064lx", 0, seed), 0);
    t.cfg.open_max = 2;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    for (f = 0; f < 24; f++) {
        char name[32];
        for (i = 0; i < sizeof buf; i++)
            buf[i] = byte_of(f, i);
        snprintf(name, sizeof name, "/m%u", f);
        fd = steadyfs_open(&t.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        for (i = 0; i < 4; i++)
            CHECK_EQ(steadyfs_write(&t.fs, fd, buf, sizeof buf), (int)sizeof buf);
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    }
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    /* the newest L1 sector (its tag beside its payload: kind 2), one byte
     * of its payload changed in the image (which stores data XOR 0xFF,
     * docs/SIM-IMAGE.md) */
    pr = t.dev.prof;
    stride = t.fs.geo.payload + 32u;
    unit_bytes = t.fs.geo.dev_per_block * pr->geo.page_size * pr->geo.pages_per_block;
    {
        uint64_t best = 0;
        for (ppn = 0; ppn < t.fs.geo.nblocks * t.fs.geo.P; ppn++) {
            uint8_t tag[32];
            uint64_t at = (uint64_t)(ppn / t.fs.geo.P) * unit_bytes + (uint64_t)(ppn % t.fs.geo.P) * stride +
                          t.fs.geo.payload, seq;
            if (sbd_read(&t.dev.bd, (uint32_t)(at / (pr->geo.page_size * pr->geo.pages_per_block)),
                         (uint32_t)(at % (pr->geo.page_size * pr->geo.pages_per_block)), tag, 32, NULL, 0) < 0 ||
                tag[0] != 2u)
                continue;
            seq = (uint64_t)tag[4] | (uint64_t)tag[5] << 8 | (uint64_t)tag[6] << 16 | (uint64_t)tag[7] << 24;
            if (seq >= best) {
                best = seq;
                hit = ppn;
            }
        }
    }
    CHECK(hit != SFS_PAGE_NONE);
    if (hit == SFS_PAGE_NONE) {
        tdev_close(&t);
        return;
    }
    {
        uint8_t *img = t.image;
        uint64_t at = (uint64_t)(hit / t.fs.geo.P) * unit_bytes + (uint64_t)(hit % t.fs.geo.P) * stride +
                      tdev_rand(&rng, 4u * t.fs.geo.e1);
        uint64_t off = *(uint64_t *)(void *)(img + 88) +
                       at / pr->geo.page_size * (pr->geo.page_size + pr->geo.spare_size) + at % pr->geo.page_size;
        img[off] ^= 0x24;
    }
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    for (f = 0; f < 24; f++) {
        char name[32];
        snprintf(name, sizeof name, "/m%u", f);
        fd = steadyfs_open(&t.fs, name, STEADYFS_O_RDWR);
        if (fd < 0) {
            bad++;
            continue;
        }
        for (i = 0; i < 8; i++) {
            int32_t rc = steadyfs_read(&t.fs, fd, buf, 2048);
            uint32_t k;
            if (rc != 2048) {
                bad += rc < 0;
                continue;
            }
            for (k = 0; k < 2048 && buf[k] == byte_of(f, (i % 2) * 2048 + k); k++)
                ;
            wrong += k < 2048;
        }
        /* a write + sync over a random page of it (the lost ones too:
         * written whole, a page has a place again) */
        CHECK_EQ(steadyfs_seek(&t.fs, fd, tdev_rand(&rng, 8) * 2048, STEADYFS_SEEK_SET) >= 0, 1);
        if (steadyfs_write(&t.fs, fd, buf, 2048) != 2048 || steadyfs_sync(&t.fs, fd) != 0)
            wfailed++;
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    }
    printf("  em064lx, an L1 sector damaged (sector %u): mount ok, %u pages or files fail with EIO, %u wrong, "
           "%u writes failed\n",
           hit, bad, wrong, wfailed);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(wfailed, 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    tdev_close(&t);
}

/* fsck's findings: each a lost page's ("payload CRC mismatch": a lost
 * page's copy; "unreadable": a damaged page not moved yet) */
static void count_finding(void *ctx, const char *msg)
{
    if (strstr(msg, "error: data key") &&
        (strstr(msg, "payload CRC mismatch") || strstr(msg, "unreadable (uncorrectable")))
        (*(uint32_t *)ctx)++;
    else
        printf("    fsck: %s\n", msg);
}

/* The path of inode ino in the tree below dir (depth-first, one directory
 * handle at a time), into out: 1 found, 0 not. */
static int find_ino(tdev *t, const char *dir, uint32_t ino, char *out, size_t cap, int depth)
{
    steadyfs_dirent ents[64];
    uint32_t n = 0, i;
    int dd = steadyfs_opendir(&t->fs, dir);
    if (dd < 0)
        return 0;
    while (n < 64 && steadyfs_readdir(&t->fs, dd, &ents[n]) == 1)
        n++;
    steadyfs_closedir(&t->fs, dd);
    for (i = 0; i < n; i++) {
        snprintf(out, cap, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", ents[i].name);
        if ((uint32_t)ents[i].id == ino)
            return 1;
        if (ents[i].type == STEADYFS_TYPE_DIR && depth < 4) {
            char sub[128];
            snprintf(sub, sizeof sub, "%s", out);
            if (find_ino(t, sub, ino, out, cap, depth + 1))
                return 1;
        }
    }
    return 0;
}

/* fsck's findings but the lost pages (their bytes gone, each read EIO):
 * none may be left after a repair */
static void other_finding(void *ctx, const char *msg)
{
    if (!strncmp(msg, "note:", 5) ||
        (strstr(msg, "error: data key") &&
         (strstr(msg, "payload CRC mismatch") || strstr(msg, "unreadable (uncorrectable") ||
          strstr(msg, "lost (its map sector"))))
        return;
    printf("    fsck after the repair: %s\n", msg);
    (*(uint32_t *)ctx)++;
}

/* Every sector kind damaged, collection gone over the device: a repair on
 * a copy of the media (steadyfs_repair, DESIGN.md §6) must bring every
 * static file back -- at its name or under /lost+found, rebuilt where its
 * inode sector was lost -- each page as written or EIO, and leave fsck
 * nothing but lost pages. */
static void repair_copy(tdev *t, uint64_t seed)
{
    static uint8_t work[8192], page[PAGE];
    steadyfs_repair_report rr;
    steadyfs_fsck_report rep;
    uint32_t f, pg, i, found = 0, moved = 0, eio = 0, shorter = 0, others = 0, fws;
    void *fw;
    tdev c;
    CHECK_EQ(tdev_open(&c, "mt29f1g01", 64, seed), 0);
    memcpy(c.image, t->image, (size_t)t->image_len);
    CHECK_EQ(sim_init(&c.dev, t->dev.prof, 64, c.image, c.image_len, SIM_TYPICAL, seed, 0), 0);
    c.cfg.open_max = 2;
    CHECK_EQ(steadyfs_mount(&c.fs, &c.cfg), 0);
    CHECK_EQ(steadyfs_repair(&c.fs, work, sizeof work, &rr), 0);
    for (f = 0; f < NFILES; f++) {
        char path[160];
        steadyfs_stat st;
        int fd;
        if (!find_ino(&c, "/", file_ino[f], path, sizeof path, 0)) {
            printf("  repaired: static file %u (inode %u) not found\n", f, file_ino[f]);
            CHECK(0);
            continue;
        }
        found++;
        moved += !!strncmp(path, "/s/", 3);
        CHECK_EQ(steadyfs_stat_path(&c.fs, path, &st), 0);
        CHECK(st.size <= (file_len[f] + PAGE - 1u) / PAGE * PAGE);
        shorter += st.size < file_len[f];
        fd = steadyfs_open(&c.fs, path, STEADYFS_O_RDONLY);
        CHECK(fd >= 0);
        for (pg = 0; fd >= 0 && pg * PAGE < file_len[f] && pg * PAGE < st.size; pg++) {
            uint32_t n = file_len[f] - pg * PAGE < PAGE ? file_len[f] - pg * PAGE : PAGE;
            int32_t r;
            if (n > st.size - pg * PAGE)
                n = (uint32_t)(st.size - pg * PAGE);
            CHECK_EQ(steadyfs_seek(&c.fs, fd, (int64_t)pg * PAGE, STEADYFS_SEEK_SET), (int64_t)pg * PAGE);
            r = steadyfs_read(&c.fs, fd, page, n);
            if (r == STEADYFS_EIO) {
                eio++;
                continue;
            }
            for (i = 0; r == (int32_t)n && i < n && page[i] == byte_of(f, pg * PAGE + i); i++)
                ;
            if (r != (int32_t)n || i < n)
                printf("  repaired: %s page %u: read %d of %u, first wrong at %u\n", path, pg, r, n, i);
            CHECK(r == (int32_t)n && i == n);
        }
        if (fd >= 0)
            CHECK_EQ(steadyfs_close(&c.fs, fd), 0);
    }
    CHECK_EQ(steadyfs_unmount(&c.fs), 0);
    fws = steadyfs_fsck_work_size(&c.cfg);
    fw = malloc(fws);
    CHECK(fw && steadyfs_fsck(&c.fs, &c.cfg, fw, fws, other_finding, &others, &rep) >= 0);
    CHECK_EQ(others, 0);
    free(fw);
    printf("  repaired a copy: map %u, holes %u, buckets %u, files rebuilt %u, dirs %u, into /lost+found %u, "
           "chunks freed %u, counts %u; %u of %u static files back (%u moved, %u shorter), %u pages EIO\n",
           rr.map_rebuilt, rr.holes_restored, rr.buckets_reset, rr.files_rebuilt, rr.dirs_rebuilt, rr.reconnected,
           rr.chunks_freed, rr.counts_fixed, found, NFILES, moved, shorter, eio);
    tdev_close(&c);
}

/* One draw: static files, damage (data pages, or with any_damage every
 * sector kind), the rounds, then the checks that draw's kind allows. */
static void run(uint64_t seed, uint32_t rounds)
{
    static uint8_t buf[FILE_MAX];
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    uint32_t r, f, i, blk, pg, damaged = 0;
    uint32_t bad_pages = 0, writes_failed = 0;
    int fd;
    tdev t;
    memset(failed, 0, sizeof failed);
    CHECK_EQ(tdev_open(&t, "mt29f1g01", 64, seed), 0);
    t.cfg.open_max = 2;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mkdir(&t.fs, "/s"), 0);
    for (f = 0; f < NFILES; f++) {
        char name[32];
        file_len[f] = 1 + tdev_rand(&rng, FILE_MAX);
        for (i = 0; i < file_len[f]; i++)
            buf[i] = byte_of(f, i);
        snprintf(name, sizeof name, "/s/%u", f);
        fd = steadyfs_open(&t.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_write(&t.fs, fd, buf, file_len[f]), (int)file_len[f]);
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
        {
            steadyfs_stat st;
            CHECK_EQ(steadyfs_stat_path(&t.fs, name, &st), 0);
            file_ino[f] = (uint32_t)st.id;
        }
    }
    fd = steadyfs_open(&t.fs, "/r", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    for (i = 0; i < R_PAGES * PAGE; i++)
        buf[i] = byte_of(100, i);
    CHECK_EQ(steadyfs_write(&t.fs, fd, buf, R_PAGES * PAGE), (int)(R_PAGES * PAGE));
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    fd = steadyfs_open(&t.fs, "/hot", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    for (i = 0; i < HOT_SIZE; i += 4096)
        CHECK_EQ(steadyfs_write(&t.fs, fd, buf, 4096), 4096);
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&t.fs), 0);

    /* damage data pages of the static files: a DATA tag whose owner is one
     * of their inodes (the tag in the spare area, read raw) */
    for (blk = 0; blk < t.dev.bd.geo.block_count; blk++)
        for (pg = 0; pg < t.dev.bd.geo.pages_per_block; pg++) {
            uint8_t spare[32];
            uint32_t owner;
            if (sbd_read(&t.dev.bd, blk, pg * PAGE, NULL, 0, spare, sizeof spare) < 0)
                continue;
            /* a file page >= 1 (page 0 shares the inode's logical block,
             * fpage 0, with its inode sector) */
            owner = (uint32_t)spare[2] | (uint32_t)spare[3] << 8;
            if (any_damage ? spare[0] < 1u || spare[0] > 3u
                    : spare[0] != 1u || owner < 3u || owner > 2u + NFILES || (spare[10] | spare[11]) == 0)
                continue;
            if (tdev_rand(&rng, 40) == 0 && sim_flip_bits(&t.dev, blk, pg, t.dev.bd.geo.ecc_bits + 1u) == 0)
                damaged++;
        }
    printf("test_fs_media_errors: seed %llu, %u pages made uncorrectable\n", (unsigned long long)seed, damaged);
    CHECK(damaged > 0);

    for (r = 0; r < rounds; r++) {
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        CHECK(check_static(&t, &bad_pages));
        /* idle time: collection moves first what the reads found damaged
         * (the units queued for refresh) */
        {
            int g = steadyfs_gc_step(&t.fs, 2000);
            if (g < 0)
                printf("  gc_step: %d\n", g);
            CHECK(g >= 0);
        }
        CHECK(check_static(&t, &bad_pages));
        fd = steadyfs_open(&t.fs, "/hot", STEADYFS_O_RDWR);
        CHECK(fd >= 0 || any_damage);
        /* about the device's sectors again: collection goes over it */
        for (i = 0; i < 4096; i++) {
            uint32_t off = tdev_rand(&rng, HOT_SIZE / 4096) * 4096;
            int32_t w = 0, sy = 0;
            if (fd < 0 || steadyfs_seek(&t.fs, fd, off, STEADYFS_SEEK_SET) != off ||
                (w = steadyfs_write(&t.fs, fd, buf, 4096)) != 4096 || (sy = steadyfs_sync(&t.fs, fd)) != 0) {
                if (writes_failed++ < 3)
                    printf("  hot write + sync at %u failed: open %d, write %d, sync %d\n", off, fd, w, sy);
                /* (with every kind damaged its open may fail: its inode
                 * sector or bucket lost; once open, its writes may not --
                 * collection stopped at a damaged L1 sector before map.c
                 * rebuild, and every write failed with EIO) */
                CHECK(fd < 0);
            }
            if (i % 1024 == 1023)
                CHECK(check_static(&t, &bad_pages));
        }
        if (fd >= 0)
            CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
        CHECK(check_static(&t, &bad_pages));
        CHECK_EQ(steadyfs_unmount(&t.fs), 0);
        printf("  round %u: %u static pages (or files) fail with EIO, %u hot writes failed\n", r,
               bad_pages, writes_failed);
    }
    if (!any_damage)
        CHECK_EQ(writes_failed, 0);
    if (!any_damage)
        replay_window(&t, &rng);
    if (any_damage)
        repair_copy(&t, seed);
    if (any_damage) {
        /* every static file removed: one whose inode sector is lost too
         * (its chunks found as the ones no other file lists, kill.c) */
        uint32_t gone = 0, kept = 0;
        CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
        for (f = 0; f < NFILES; f++) {
            char name[32];
            int rc;
            snprintf(name, sizeof name, "/s/%u", f);
            rc = steadyfs_unlink(&t.fs, name);
            if (rc) {
                /* (only where the name itself is out of reach: its
                 * bucket lost) */
                CHECK(rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT);
                kept++;
            } else {
                gone++;
            }
        }
        printf("  unlinked %u static files, %u not\n", gone, kept);
        CHECK_EQ(steadyfs_unmount(&t.fs), 0);
    }
    {
        /* fsck runs, and finds the lost pages (each a live sector whose
         * bytes fail their check), and nothing else */
        steadyfs_fsck_report rep;
        uint32_t fws = steadyfs_fsck_work_size(&t.cfg);
        void *fw = malloc(fws);
        uint32_t lost = 0;
        int rc = steadyfs_fsck(&t.fs, &t.cfg, fw, fws, count_finding, &lost, &rep);
        printf("  fsck: %d errors, %u of them lost pages, %u files\n", rc, lost, rep.files);
        if (any_damage) {
            CHECK(rc >= 0);
        } else {
            /* (and /r's damaged page) */
            CHECK_EQ(rc, (int)bad_pages + 1);
            CHECK_EQ(lost, bad_pages + 1u);
            CHECK_EQ(rep.files, NFILES + 2u);
        }
        free(fw);
    }
    tdev_close(&t);
    if (!any_damage)
        no_ecc(seed);
}

/* Environment variable `name` as a whole number in lo..hi, or `dflt`
 * (said once) where it is unset or anything else. */
static uint64_t env_num(const char *name, uint64_t lo, uint64_t hi, uint64_t dflt)
{
    const char *e = getenv(name);
    char *end;
    unsigned long long v;
    if (!e)
        return dflt;
    v = strtoull(e, &end, 10);
    if (*e < '0' || *e > '9' || *end || v < lo || v > hi) {
        printf("test_fs_media_errors: %s=%s is not a number in %llu..%llu: %llu taken\n", name, e,
               (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)dflt);
        return dflt;
    }
    return v;
}

int main(void)
{
    const char *ae = getenv("STEADYFS_MEDIA_ANY");
    uint64_t seed = env_num("STEADYFS_MEDIA_SEED", 0, 0xFFFFFFFFull, 1);
    uint32_t rounds = (uint32_t)env_num("STEADYFS_MEDIA_ROUNDS", 1, 1000, 6);
    /* STEADYFS_MEDIA_ANY=0|1: that kind alone; unset: data pages on the
     * seed, then every sector kind on draw 9 of it (3 rounds: with the
     * default seed a draw whose damaged L1 sector stopped collection and
     * every write before map.c rebuild) */
    if (ae) {
        if (strcmp(ae, "0") != 0 && strcmp(ae, "1") != 0)
            printf("test_fs_media_errors: STEADYFS_MEDIA_ANY=%s is neither 0 nor 1: 1 taken\n", ae);
        any_damage = strcmp(ae, "0") != 0;
        run(seed, rounds);
    } else {
        run(seed, rounds);
        any_damage = 1;
        run(seed + 8u, 3);
    }
    return check_done("test_fs_media_errors");
}
