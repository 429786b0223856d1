/* Adversarial worst states for the real-time issue, in worst timing.
 *
 * Random calls on a nearly empty device never meet the worst case, so this
 * test builds it: the whole default device (mt29f1g01, 1024 units, the
 * bench configuration: open_max 1), F files whose pages sit in distinct map
 * sectors, filled to STEADYFS_ADV_FILL % (default 90) of the live limit; then random unaligned 4 KiB
 * overwrites + sync over all of them (half through O_DSYNC, whose commit
 * rides in the last data sector), so that every unit holds about the fill
 * fraction live (the greedy victim is as full as the limit allows), every
 * pending map change is in a different map sector, and each write touches
 * three sectors.  Between them, calls that change nothing (stat, open
 * without create, read, opendir+readdir) must program and erase nothing.
 *
 * The first half of the calls mixes in namespace calls and 64 KiB writes;
 * the second half is a logger's stream (records, and calls that change
 * nothing), one long run of records for the rate guarantee, which starts
 * right after SMALL one-sector files are unlinked (a backlog of dying
 * chunks it inherits).
 *
 * Checked: no call takes longer than steadyfs_bound() states for its kind
 * (a bound that is exceeded is a bug), no write fails with ENOSPC while the
 * live data is below the live limit, every window of consecutive records
 * within a run stays within steadyfs_guarantee()'s n c + d, read-only calls
 * never program or erase, and at the end every unit's live count equals a
 * recount from the media.  Printed (the figures the closing notes and README quote): per call
 * kind, the largest measured time, the bound and their ratio; writes that
 * failed with ENOSPC while the live data was below the live limit.
 * STEADYFS_ADV_CALLS sets the number of write calls (default 100000, what `make test` runs; the documented soak is 10^7);
 * STEADYFS_ADV_DEVICE another device profile (NOR, MRAM: issue 16). */
#include <stdio.h>

/* test_fs_adversary_full.c includes this file with its own defaults */
#ifndef ADV_DEFAULT_FILL
#define ADV_DEFAULT_FILL 75
#endif
#ifndef ADV_DEFAULT_CALLS
#define ADV_DEFAULT_CALLS 100000
#endif
#ifndef ADV_HOLD
#define ADV_HOLD 0   /* 1: the held sector configured (STEADYFS_ADV_HOLD) */
#endif
#ifndef ADV_NAME
#define ADV_NAME "test_fs_adversary"
#endif
#ifndef ADV_DEFAULT_DEVICE
#define ADV_DEFAULT_DEVICE "mt29f1g01"
#endif
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "host/fs_bound.h"
#include "fs/fs_internal.h"
#include "fs_recount.h"

#define NFILES 200u
#define SMALL 40u   /* one-sector files, unlinked before the second half */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rn(uint32_t n) { return tdev_rand(&rng, n); }

static tdev T;

/* What a call did, from the device's and the file system's counters:
 * device reads, programs and erases, and of the sectors programmed the
 * data and inode sectors, collection copies, map (and relocation) sectors
 * and checkpoints; victims begun. */
typedef struct call_work {
    uint64_t reads, progs, erases;
    uint32_t data, copy, map, ckpt, victim;
} call_work;

typedef struct kind_stat {
    const char *name;
    steadyfs_call call;
    uint64_t n, count, max_ns, bound_ns;
    call_work slowest;   /* what the slowest call of the kind did */
} kind_stat;

static kind_stat K[] = {
    {"write_4096_sync (write + sync)", STEADYFS_CALL_WRITE_SYNC, 4096, 0, 0, 0, {0}},
    {"write_4096_dsync (O_DSYNC write)", STEADYFS_CALL_WRITE_DSYNC, 4096, 0, 0, 0, {0}},
    {"stat", STEADYFS_CALL_STAT, 2, 0, 0, 0, {0}},
    {"open (no create)", STEADYFS_CALL_OPEN, 2, 0, 0, 0, {0}},
    {"read_4096", STEADYFS_CALL_READ, 4096, 0, 0, 0, {0}},
    {"close", STEADYFS_CALL_CLOSE, 0, 0, 0, 0, {0}},
    {"readdir", STEADYFS_CALL_READDIR, 0, 0, 0, 0, {0}},
    {"stat (full directories)", STEADYFS_CALL_STAT, 2, 0, 0, 0, {0}},
    {"open (full directories)", STEADYFS_CALL_OPEN, 2, 0, 0, 0, {0}},
    {"create (full directories)", STEADYFS_CALL_CREATE, 2, 0, 0, 0, {0}},
    {"unlink (full directories)", STEADYFS_CALL_UNLINK, 2, 0, 0, 0, {0}},
    {"rename (full directories)", STEADYFS_CALL_RENAME, 2, 0, 0, 0, {0}},
    {"readdir (full directory)", STEADYFS_CALL_READDIR, 0, 0, 0, 0, {0}},
    {"create (filled device)", STEADYFS_CALL_CREATE, 2, 0, 0, 0, {0}},
    {"write_65536_sync (implicit commits)", STEADYFS_CALL_WRITE_SYNC, 65536, 0, 0, 0, {0}},
    {"rename (filled device)", STEADYFS_CALL_RENAME, 2, 0, 0, 0, {0}},
    {"unlink (filled device)", STEADYFS_CALL_UNLINK, 2, 0, 0, 0, {0}},
};
enum { K_WS, K_DS, K_STAT, K_OPEN, K_READ, K_CLOSE, K_READDIR, K_DSTAT, K_DOPEN, K_DCREATE,
       K_DUNLINK, K_DRENAME, K_DREADDIR, K_NCREATE, K_BIG, K_NRENAME, K_NUNLINK };

/* The counters now, as a call_work (a call's is the difference). */
static call_work work_now(void)
{
    call_work w = {T.dev.stats.reads, T.dev.stats.progs, T.dev.stats.erases, T.fs.stats.data,
                   T.fs.stats.copy, T.fs.stats.map, T.fs.stats.ckpt, T.fs.stats.victim};
    return w;
}

/* The counters when the call being measured began (started()). */
static call_work start_work;

/* Marks a measured call's start: returns the clock, keeps the counters. */
static uint64_t started(void)
{
    start_work = work_now();
    return T.dev.now_ns;
}

static void measured(int k, uint64_t t0)
{
    uint64_t dt = T.dev.now_ns - t0;
    kind_stat *s = &K[k];
    if (!s->bound_ns)
        s->bound_ns = steady_fs_bound_ns(T.dev.prof, &T.cfg, s->call, s->n, SIM_WORST);
    s->count++;
    if (dt > s->max_ns) {
        s->max_ns = dt;
        call_work w = work_now();
        s->slowest.reads = w.reads - start_work.reads;
        s->slowest.progs = w.progs - start_work.progs;
        s->slowest.erases = w.erases - start_work.erases;
        s->slowest.data = w.data - start_work.data;
        s->slowest.copy = w.copy - start_work.copy;
        s->slowest.map = w.map - start_work.map;
        s->slowest.ckpt = w.ckpt - start_work.ckpt;
        s->slowest.victim = w.victim - start_work.victim;
    }
    if (dt > s->bound_ns) {
        check_failed++;
        fprintf(stderr, "adversary: %s took %llu ns > bound %llu ns\n", s->name,
                (unsigned long long)dt, (unsigned long long)s->bound_ns);
    } else {
        check_passed++;
    }
}

/* The rate guarantee (steadyfs_guarantee): every window of n consecutive
 * records (write + sync, or an O_DSYNC write, each with the close after
 * it, which stores an O_DSYNC file's times; only calls that change nothing
 * between them) must take at most n c + d.  A namespace call or a larger
 * write ends a run of records (WINDOW_BREAK in rec): windows never span
 * one.  Checked for all windows at once, run by run: max over j of
 * (S_j - j c) - min over i < j of (S_i - i c) <= d, S the prefix sums.
 * Also reported: the largest average over windows of 1, 10, 100 and 1000
 * records (what a tight c would have to cover) and the longest run. */
#define WINDOW_BREAK UINT64_MAX

static void window_check(const uint64_t *rec, uint64_t n, uint32_t kind)
{
    steadyfs_cost cc, dc;
    uint64_t c, d, i, w, run_len = 0, longest = 0, records = 0;
    int64_t run = 0, low = 0, worst = INT64_MIN;
    static const uint64_t widths[] = {1, 10, 100, 1000};
    CHECK_EQ(steadyfs_guarantee_of(&T.cfg, &T.dev.prof->geo, 4096, kind, &cc, &dc), 0);
    c = steady_fs_cost_ns(T.dev.prof, &T.cfg, &cc, SIM_WORST);
    d = steady_fs_cost_ns(T.dev.prof, &T.cfg, &dc, SIM_WORST);
    for (i = 0; i < n; i++) {
        if (rec[i] == WINDOW_BREAK) {
            run = low = 0;
            run_len = 0;
            continue;
        }
        records++;
        if (++run_len > longest)
            longest = run_len;
        run += (int64_t)rec[i] - (int64_t)c;
        if (run - low > worst)
            worst = run - low;
        if (run < low)
            low = run;
    }
    CHECK(records == 0 || worst <= (int64_t)d);
    printf("adversary: guarantee (%s) c = %.3f ms, d = %.3f ms (worst timing); %llu records, longest "
           "run %llu; largest window excess over n c: %.3f ms (allowed d)\n",
           kind == (STEADYFS_RECORD_DSYNC | STEADYFS_RECORD_ALIGNED)
               ? "O_DSYNC writes at sector boundaries, file kept open"
           : kind == STEADYFS_RECORD_DSYNC ? "O_DSYNC writes, file kept open"
           : kind == (STEADYFS_RECORD_HELD | STEADYFS_RECORD_ALIGNED)
               ? "write + sync at sector boundaries, file kept open, held sector"
           : kind == STEADYFS_RECORD_HELD ? "write + sync, file kept open, held sector"
                                          : "write + sync or O_DSYNC + close",
           c / 1e6, d / 1e6,
           (unsigned long long)records, (unsigned long long)longest,
           worst == INT64_MIN ? 0.0 : worst / 1e6);
    for (w = 0; w < sizeof widths / sizeof widths[0] && widths[w] <= longest; w++) {
        uint64_t sum = 0, best = 0, in = 0;
        for (i = 0; i < n; i++) {
            if (rec[i] == WINDOW_BREAK) {
                sum = in = 0;
                continue;
            }
            sum += rec[i];
            if (++in > widths[w])
                sum -= rec[i - widths[w]];
            if (in >= widths[w] && sum > best)
                best = sum;
        }
        printf("  largest mean over %4llu consecutive records: %8.3f ms\n",
               (unsigned long long)widths[w], best / 1e6 / (double)widths[w]);
    }
}

static void read_only(const sim_stats *before, const char *what);

/* Reads directory dir to its end, each readdir measured as kind k and held
 * to program and erase nothing.  Returns the entries read. */
static uint32_t readdir_all(const char *dir, int k)
{
    steadyfs_dirent de;
    sim_stats s0;
    uint64_t t0;
    uint32_t n;
    int dd = steadyfs_opendir(&T.fs, dir);
    CHECK(dd >= 0);
    for (n = 0;; n++) {
        s0 = T.dev.stats;
        t0 = started();
        if (steadyfs_readdir(&T.fs, dd, &de) != 1)
            break;
        measured(k, t0);
        read_only(&s0, K[k].name);
    }
    steadyfs_closedir(&T.fs, dd);
    return n;
}

/* stat then open (read only) of path, each measured as kind k_stat /
 * k_open and held to program and erase nothing.  Returns the handle. */
static int stat_and_open(const char *path, int k_stat, int k_open)
{
    steadyfs_stat st;
    sim_stats s0 = T.dev.stats;
    uint64_t t0 = started();
    int fd;
    CHECK_EQ(steadyfs_stat_path(&T.fs, path, &st), 0);
    measured(k_stat, t0);
    read_only(&s0, K[k_stat].name);
    s0 = T.dev.stats;
    t0 = started();
    fd = steadyfs_open(&T.fs, path, STEADYFS_O_RDONLY);
    measured(k_open, t0);
    read_only(&s0, K[k_open].name);
    CHECK(fd >= 0);
    return fd;
}

/* A name of 255 bytes whose hash starts probing at bucket 0 of a
 * directory (dir.c: bucket = hash % dir_pages): tag makes it unique. */
static uint32_t colliding_name(char *out, uint32_t tag, uint32_t from)
{
    uint32_t k, len = STEADYFS_NAME_MAX;
    memset(out, 'n', len);
    out[len] = 0;
    for (k = from;; k++) {
        snprintf(out, 24, "%08x-%010u", tag, k);
        out[19] = 'n';   /* snprintf's NUL: keep the name 255 bytes long */
        if (sfs_name_hash(out, len) % T.fs.cfg.dir_pages == 0)
            return k;
    }
}

/* The worst directory state: every name hashes to bucket 0, buckets 0 to
 * dir_pages - 2 are full of 255-byte names (7 per sector), so a lookup of
 * a name in the last bucket, or of one that is absent, probes every
 * bucket -- at both levels of a two-component path.  Each path call is
 * measured against its own bound (path depth 2), read-only ones must not
 * program or erase. */
static void dir_phase(void)
{
    static char name[STEADYFS_NAME_MAX + 1], dname[STEADYFS_NAME_MAX + 1];
    static char path[2 * STEADYFS_NAME_MAX + 4], p2[2 * STEADYFS_NAME_MAX + 4];
    static char sdir[2 * STEADYFS_NAME_MAX + 4], deep[3 * STEADYFS_NAME_MAX + 6];
    uint32_t k = 0, i, per = (T.fs.geo.payload - 8u) / (10u + STEADYFS_NAME_MAX);
    uint32_t full = per * (T.fs.cfg.dir_pages - 1u);
    uint64_t t0;
    sim_stats s0;
    steadyfs_stat st;
    int fd;
    for (i = 0; i < full; i++) {                  /* the root's buckets 0.. */
        k = colliding_name(name, 1, k) + 1;
        snprintf(path, sizeof path, "/%s", name);
        fd = steadyfs_open(&T.fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
    k = colliding_name(dname, 2, 0) + 1;          /* lands in the last bucket */
    snprintf(path, sizeof path, "/%s", dname);
    CHECK_EQ(steadyfs_mkdir(&T.fs, path), 0);
    for (i = 0, k = 0; i < full; i++) {
        k = colliding_name(name, 3, k) + 1;
        snprintf(path, sizeof path, "/%s/%s", dname, name);
        fd = steadyfs_open(&T.fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
    k = colliding_name(name, 4, 0) + 1;           /* the target, in the last bucket */
    snprintf(path, sizeof path, "/%s/%s", dname, name);
    fd = steadyfs_open(&T.fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(&T.fs, fd, "x", 1), 1);
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    /* a directory at depth 2, in the last bucket, with every bucket of its
     * own full: its stat reads them all for the link count (ns.c) */
    colliding_name(name, 6, 0);
    snprintf(sdir, sizeof sdir, "/%s/%s", dname, name);
    CHECK_EQ(steadyfs_mkdir(&T.fs, sdir), 0);
    for (i = 0, k = 0; i < full + per; i++) {
        k = colliding_name(name, 7, k) + 1;
        snprintf(deep, sizeof deep, "%s/%s", sdir, name);
        fd = steadyfs_open(&T.fs, deep, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
    sim_set_timing(&T.dev, SIM_WORST);
    for (i = 0; i < 20; i++) {
        fd = stat_and_open(path, K_DSTAT, K_DOPEN);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
        s0 = T.dev.stats;
        t0 = started();
        CHECK_EQ(steadyfs_stat_path(&T.fs, sdir, &st), 0);
        measured(K_DSTAT, t0);
        read_only(&s0, "stat of a full directory");
        CHECK_EQ(st.nlink, 2u);
        /* absent: every bucket probed, nothing found */
        colliding_name(p2, 5, i * 1000u);
        memmove(p2 + strlen(dname) + 2, p2, STEADYFS_NAME_MAX + 1);
        p2[0] = '/';
        memcpy(p2 + 1, dname, strlen(dname));
        p2[strlen(dname) + 1] = '/';
        s0 = T.dev.stats;
        t0 = started();
        CHECK_EQ(steadyfs_stat_path(&T.fs, p2, &st), STEADYFS_ENOENT);
        measured(K_DSTAT, t0);
        read_only(&s0, "stat of an absent name");
        t0 = started();                        /* create in the last bucket */
        fd = steadyfs_open(&T.fs, p2, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        measured(K_DCREATE, t0);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
        t0 = started();
        CHECK_EQ(steadyfs_unlink(&T.fs, p2), 0);
        measured(K_DUNLINK, t0);
        t0 = started();                        /* rename within the full directory */
        CHECK_EQ(steadyfs_rename(&T.fs, path, p2), 0);
        measured(K_DRENAME, t0);
        CHECK_EQ(steadyfs_rename(&T.fs, p2, path), 0);
    }
    snprintf(p2, sizeof p2, "/%s", dname);
    CHECK_EQ(readdir_all(p2, K_DREADDIR), full + 2);   /* the full names, the target, sdir */
    /* readdir's worst: an entry in the first bucket and one in the last,
     * every bucket between written and emptied, so the call after the
     * first entry loads them all */
    sim_set_timing(&T.dev, SIM_TYPICAL);
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/e"), 0);
    for (i = 0; i < T.fs.cfg.dir_pages; i++) {
        char nm[24];
        uint32_t n;
        for (n = 0;; n++) {
            snprintf(nm, sizeof nm, "b%u-%u", i, n);
            if (sfs_name_hash(nm, (uint32_t)strlen(nm)) % T.fs.cfg.dir_pages == i)
                break;
        }
        snprintf(path, sizeof path, "/e/%s", nm);
        fd = steadyfs_open(&T.fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
        if (i && i + 1 < T.fs.cfg.dir_pages)
            CHECK_EQ(steadyfs_unlink(&T.fs, path), 0);
    }
    sim_set_timing(&T.dev, SIM_WORST);
    CHECK_EQ(readdir_all("/e", K_DREADDIR), 2);
    sim_set_timing(&T.dev, SIM_TYPICAL);
}

/* A call that changes nothing must not program or erase. */
static void read_only(const sim_stats *before, const char *what)
{
    if (T.dev.stats.progs != before->progs || T.dev.stats.erases != before->erases) {
        check_failed++;
        fprintf(stderr, "adversary: %s programmed %llu, erased %llu\n", what,
                (unsigned long long)(T.dev.stats.progs - before->progs),
                (unsigned long long)(T.dev.stats.erases - before->erases));
    } else {
        check_passed++;
    }
}

#ifdef ADV_GREEDY
/* The victims as full as the fill limit allows (issue 12 item 6): each
 * record overwrites a live sector of the closed unit that holds the most,
 * so the units drain evenly toward the fill fraction and the greedy victim
 * (the unit with the fewest) is as full as it can be, toward the state the
 * pace's pigeonhole assumes.  Random overwrites leave the victim, the
 * emptiest of ~1000 units, well below the average (24.5 copies a victim
 * against 30.6 here at 75 %: DESIGN.md §10).  The sector is
 * found by looking inside (tags, map lookups) on a copy of the file
 * system's state that is put back afterwards, device clock and counters
 * included: the look changes nothing the file system does, and costs no
 * device time. */
static struct {
    uint32_t *file_of;   /* logical page -> adversary file + 1 (0: none) */
    uint16_t *page_of;   /* logical page -> its file page */
    uint32_t pages;      /* logical pages covered */
    steadyfs saved;
    uint8_t *work, sector[4096];
    uint32_t hits, misses;
} G;

/* After the fill, before any overwrite: every data sector on the medium
 * is where its file's write put it, tagged with its inode and file page,
 * and an overwrite keeps the logical page (only the sector moves). */
static void greedy_map(const uint32_t *ino, uint32_t nfiles)
{
    uint32_t ppn, f, n = T.fs.geo.nblocks * T.fs.geo.P, *file_of_ino;
    sfs_tag t;
    G.pages = T.fs.geo.cbase + T.fs.geo.n_c * T.fs.geo.C;
    G.file_of = calloc(G.pages, sizeof *G.file_of);
    G.page_of = calloc(G.pages, sizeof *G.page_of);
    G.work = malloc(T.cfg.work_size);
    file_of_ino = calloc(T.fs.cfg.max_inodes, sizeof *file_of_ino);   /* inode -> file + 1 */
    CHECK(G.file_of && G.page_of && G.work && file_of_ino);
    if (!G.file_of || !G.page_of || !G.work || !file_of_ino)
        exit(1);
    for (f = 0; f < nfiles; f++)
        if (ino[f] < T.fs.cfg.max_inodes)
            file_of_ino[ino[f]] = f + 1;
    for (ppn = 0; ppn < n; ppn++)
        if (sfs_rd_tag(&T.fs, ppn, &t) >= 0 && t.kind == TK_DATA && t.key < G.pages &&
            t.owner < T.fs.cfg.max_inodes && file_of_ino[t.owner]) {
            G.file_of[t.key] = file_of_ino[t.owner];
            G.page_of[t.key] = t.fpage;
        }
    free(file_of_ino);
}

/* A live sector of an adversary file in the fullest closed unit: its file
 * and file page.  0 if none is found (then the record is a random one). */
static int greedy_target(uint32_t *file, uint32_t *page)
{
    uint32_t b, best = SFS_NONE, i, start, ppn, cur, bestc = 0;
    uint64_t now = T.dev.now_ns, last = T.dev.last_ns;
    sim_stats st = T.dev.stats;
    sfs_tag t;
    int found = 0;
    G.saved = T.fs;
    memcpy(G.work, T.cfg.work, T.cfg.work_size);
    memcpy(G.sector, T.sector, sizeof G.sector);
    for (b = 0; b < T.fs.geo.nblocks; b++)
        if (sfs_closed(&T.fs, b) && T.fs.blk[b] > bestc && b != T.fs.gc.victim) {
            best = b;
            bestc = T.fs.blk[b];
        }
    start = rn(T.fs.geo.P);
    for (i = 0; best != SFS_NONE && i < T.fs.geo.P && !found; i++) {
        ppn = best * T.fs.geo.P + (start + i) % T.fs.geo.P;
        if (sfs_rd_tag(&T.fs, ppn, &t) < 0 || t.kind != TK_DATA || t.key >= G.pages || !G.file_of[t.key])
            continue;
        if (sfs_lookup(&T.fs, t.key, 0, &cur) || sfs_copy_of(&T.fs, cur) != ppn)
            continue;
        *file = G.file_of[t.key] - 1;
        *page = G.page_of[t.key];
        found = 1;
    }
    T.fs = G.saved;
    memcpy(T.cfg.work, G.work, T.cfg.work_size);
    memcpy(T.sector, G.sector, sizeof G.sector);
    T.dev.now_ns = now;
    T.dev.last_ns = last;
    T.dev.stats = st;
    G.hits += found;
    G.misses += !found;
    return found;
}
#endif

/* A logger's stream (steadyfs_guarantee_of, STEADYFS_RECORD_DSYNC): O_DSYNC
 * writes of 4 KiB at random unaligned offsets (three sectors each), or with
 * aligned at random multiples of the sector payload (two sectors each:
 * STEADYFS_RECORD_ALIGNED), into a file kept open, reads between them;
 * every DSYNC_RUN records the stream
 * moves to another file (its close stores the times: a window ends there),
 * so the records' map changes spread over the files' map sectors.  Each
 * write is held to its bound; the record times go to rec.  Returns the
 * entries written to rec. */
#define DSYNC_RUN 256u
static uint64_t dsync_stream(uint64_t nrec_max, int aligned, uint32_t fsize, uint8_t *buf,
                             uint64_t *rec, uint32_t *enospc, uint32_t *enospc_low, int held)
{
    uint32_t pay = T.fs.geo.payload;
    uint64_t i, n = 0, t0;
    int fd = -1;
    char path[32];
    sim_stats s0;
    for (i = 0; i < nrec_max; i++) {
        int rc;
        if (i % DSYNC_RUN == 0) {
            if (fd >= 0)
                CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
            rec[n++] = WINDOW_BREAK;
            snprintf(path, sizeof path, "/a/%03u", rn(NFILES));
            fd = steadyfs_open(&T.fs, path, STEADYFS_O_RDWR | (held ? 0 : STEADYFS_O_DSYNC));
            CHECK(fd >= 0);
            if (fd < 0)
                break;
        }
        if (i % 8 == 7) {                             /* a read between records */
            steadyfs_seek(&T.fs, fd, rn(fsize - 4096), STEADYFS_SEEK_SET);
            s0 = T.dev.stats;
            t0 = started();
            CHECK_EQ(steadyfs_read(&T.fs, fd, buf + 4096, 4096), 4096);
            measured(K_READ, t0);
            read_only(&s0, "read");
        }
        steadyfs_seek(&T.fs, fd, aligned ? rn((fsize - 4096) / pay + 1) * pay : rn(fsize - 4096),
                      STEADYFS_SEEK_SET);
        t0 = started();
        rc = steadyfs_write(&T.fs, fd, buf + (i & 4095), 4096);
        if (held && rc == 4096)   /* (the sync commits in the held sector) */
            rc = steadyfs_sync(&T.fs, fd) ? -1 : 4096;
        measured(held ? K_WS : K_DS, t0);
        rec[n++] = T.dev.now_ns - t0;
        if (rc != 4096) {
            (*enospc)++;
            if (T.fs.live + SFS_RM_ROOM + 2 < T.fs.live_max)
                (*enospc_low)++;
        }
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    return n;
}

int main(void)
{
    static uint8_t buf[65536];
    const char *env = getenv("STEADYFS_ADV_CALLS");
    uint64_t ncalls = env ? strtoull(env, NULL, 10) : ADV_DEFAULT_CALLS, i, t0;
    uint64_t *records, nrec = 0;
    uint32_t f, fsize, enospc = 0, enospc_low = 0, b, bad = 0;
    uint32_t live_min_enospc = 0xFFFFFFFFu;
    steadyfs_info info;
    char path[32];
    int fd, rc, rc2;
    const char *fenv = getenv("STEADYFS_ADV_FILL");
    uint32_t fill = fenv ? (uint32_t)atoi(fenv) : ADV_DEFAULT_FILL;
    /* STEADYFS_ADV_SEED=N: another draw of the same adversary (make test
     * runs the default one) */
    const char *senv = getenv("STEADYFS_ADV_SEED");
    /* STEADYFS_ADV_DEVICE=P: the same adversary on another medium (issue
     * 16: mt25q128, em064lx; make test runs mt29f1g01 at 10^5 calls and,
     * in test_fs_adversary_nor and _mram, the other two) */
    const char *dev = getenv("STEADYFS_ADV_DEVICE") ? getenv("STEADYFS_ADV_DEVICE") : ADV_DEFAULT_DEVICE;
    /* STEADYFS_ADV_HOLD=1: with the held sector (test_fs_adversary_hold) */
    const char *henv = getenv("STEADYFS_ADV_HOLD");
    int hold = henv ? atoi(henv) != 0 : ADV_HOLD;
    static uint8_t hold_buf[4096];
    sim_stats s0;
    if (senv)
        rng ^= strtoull(senv, NULL, 10) * 0xD1B54A32D192ED03ull;
    if (!sim_profile_find(dev)) {
        fprintf(stderr, "%s: no device profile named '%s' (STEADYFS_ADV_DEVICE)\n", ADV_NAME, dev);
        return 2;
    }
    /* the worst directories first, on a device of their own */
    CHECK_EQ(tdev_open(&T, dev, 0, 6), 0);
    T.cfg.open_max = 1;
    T.cfg.work_size = steadyfs_work_size(&T.cfg);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    dir_phase();
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
    CHECK_EQ(tdev_open(&T, dev, 0, 5), 0);
    T.cfg.hold_buf = hold ? hold_buf : NULL;
    T.cfg.open_max = 1;
    T.cfg.work_size = steadyfs_work_size(&T.cfg);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_info_get(&T.fs, &info), 0);
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/a"), 0);
    /* 97 % of the live limit in NFILES files of whole sectors: each file
     * has its own L1 map sectors, so changes to different files never
     * share a map sector */
    fsize = (uint32_t)((uint64_t)info.capacity * fill / 100 / NFILES / 2048 * 2048);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 131u);
    for (f = 0; f < NFILES; f++) {
        uint32_t left = fsize;
        snprintf(path, sizeof path, "/a/%03u", f);
        fd = steadyfs_open(&T.fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        while (left) {
            uint32_t n = left < sizeof buf ? left : (uint32_t)sizeof buf;
            rc = steadyfs_write(&T.fs, fd, buf, n);
            if (rc != (int)n) {
                CHECK_EQ(rc, (int)n);
                break;
            }
            left -= n;
        }
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
    for (f = 0; f < SMALL; f++) {
        snprintf(path, sizeof path, "/a/s%02u", f);
        fd = steadyfs_open(&T.fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_write(&T.fs, fd, buf, 2048), 2048);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
#ifdef ADV_GREEDY
    {
        static uint32_t ino[NFILES];
        steadyfs_stat st;
        for (f = 0; f < NFILES; f++) {
            snprintf(path, sizeof path, "/a/%03u", f);
            CHECK_EQ(steadyfs_stat_path(&T.fs, path, &st), 0);
            ino[f] = (uint32_t)(st.id & 0xFFFFFFFFu);
        }
        greedy_map(ino, NFILES);
    }
#endif
    printf("adversary: %u files of %u bytes, live %u of %u sectors (%.1f %%)\n", NFILES, fsize,
           T.fs.live, T.fs.live_max, 100.0 * T.fs.live / T.fs.live_max);
    sim_set_timing(&T.dev, SIM_WORST);
    /* a record or a WINDOW_BREAK per call at most, and one more break per
     * namespace call or larger write */
    records = calloc(ncalls ? 2 * ncalls : 1, sizeof *records);
    if (!records)
        return 1;
    for (i = 0; i < ncalls; i++) {
        uint32_t off, kind = rn(100);
        int dsync = (int)(i & 1);
        if (2 * i == ncalls && ncalls) {
            /* the logger's stream starts with a backlog to inherit: the
             * SMALL one-sector files unlinked just before it, each chunk
             * of theirs dying (trim steps and their checkpoints) while
             * the live data hardly changes */
            for (f = 0; f < SMALL; f++) {
                snprintf(path, sizeof path, "/a/s%02u", f);
                CHECK_EQ(steadyfs_unlink(&T.fs, path), 0);
            }
            records[nrec++] = WINDOW_BREAK;
        }
        f = rn(NFILES);
        snprintf(path, sizeof path, "/a/%03u", f);
        if (kind < 4) {                                  /* read-only calls */
            fd = stat_and_open(path, K_STAT, K_OPEN);
            if (fd < 0)
                continue;
            steadyfs_seek(&T.fs, fd, rn(fsize - 4096), STEADYFS_SEEK_SET);
            s0 = T.dev.stats;
            t0 = started();
            CHECK_EQ(steadyfs_read(&T.fs, fd, buf, 4096), 4096);
            measured(K_READ, t0);
            read_only(&s0, "read");
            t0 = started();
            CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
            measured(K_CLOSE, t0);
            if (kind == 0) {
                steadyfs_dirent de;
                int dd = steadyfs_opendir(&T.fs, "/a");
                CHECK(dd >= 0);
                s0 = T.dev.stats;
                t0 = started();
                CHECK_EQ(steadyfs_readdir(&T.fs, dd, &de), 1);
                measured(K_READDIR, t0);
                read_only(&s0, "opendir+readdir");
                steadyfs_closedir(&T.fs, dd);
            }
            continue;
        }
        /* the first half mixes namespace calls and larger writes into the
         * records; the second half is a logger's stream, records and calls
         * that change nothing, whose windows the guarantee covers */
        if (i % 64 == 63 && 2 * i < ncalls) {           /* namespace calls under load */
            records[nrec++] = WINDOW_BREAK;
            t0 = started();
            fd = steadyfs_open(&T.fs, "/a/new", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
            measured(K_NCREATE, t0);
            if (fd >= 0) {
                CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
                t0 = started();
                rc = steadyfs_rename(&T.fs, "/a/new", "/a/renamed");
                measured(K_NRENAME, t0);
                t0 = started();
                rc2 = steadyfs_unlink(&T.fs, rc ? "/a/new" : "/a/renamed");
                measured(K_NUNLINK, t0);
                CHECK(rc == 0 || rc == STEADYFS_ENOSPC);
                CHECK_EQ(rc2, 0);
            } else {
                CHECK_EQ(fd, STEADYFS_ENOSPC);
            }
        }
        fd = steadyfs_open(&T.fs, path,
                           STEADYFS_O_RDWR | (dsync ? STEADYFS_O_DSYNC : 0));
        CHECK(fd >= 0);
        if (fd < 0)
            break;
        if (i % 128 == 101 && 2 * i < ncalls && fsize > 65536 + 4096) {
            records[nrec++] = WINDOW_BREAK;
            /* a write larger than a transaction holds commits on its own
             * partway (implicit commits), then the rest with the sync */
            off = rn(fsize - 65536 - 4096);
            steadyfs_seek(&T.fs, fd, off, STEADYFS_SEEK_SET);
            t0 = started();
            rc = steadyfs_write(&T.fs, fd, buf, 65536);
            if (rc == 65536 && !dsync)
                rc = steadyfs_sync(&T.fs, fd) ? -1 : 65536;
            measured(K_BIG, t0);
            if (rc != 65536)
                enospc++;
            rc2 = steadyfs_close(&T.fs, fd);
            CHECK(rc2 == 0 || (rc2 == STEADYFS_ENOSPC && rc != 65536));
            continue;
        }
        off = rn(fsize - 4096);   /* unaligned: three sectors */
#ifdef ADV_GREEDY
        {
            /* (unaligned from within the chosen page: three sectors) */
            uint32_t gf, gp;
            if (greedy_target(&gf, &gp)) {
                steadyfs_close(&T.fs, fd);
                snprintf(path, sizeof path, "/a/%03u", gf);
                fd = steadyfs_open(&T.fs, path, STEADYFS_O_RDWR | (dsync ? STEADYFS_O_DSYNC : 0));
                CHECK(fd >= 0);
                off = gp * T.fs.geo.payload + rn(T.fs.geo.payload);
                if (off + 4096 > fsize)
                    off = fsize - 4096;
            }
        }
#endif
        steadyfs_seek(&T.fs, fd, off, STEADYFS_SEEK_SET);
        t0 = started();
        rc = steadyfs_write(&T.fs, fd, buf + (i & 4095), 4096);
        if (rc == 4096 && !dsync)
            rc = steadyfs_sync(&T.fs, fd) ? -1 : 4096;
        measured(dsync ? K_DS : K_WS, t0);
        if (rc != 4096) {
            enospc++;
            if (T.fs.live + SFS_RM_ROOM + 2 < T.fs.live_max)
                enospc_low++;
            if (T.fs.live < live_min_enospc)
                live_min_enospc = T.fs.live;
        }
        rc2 = steadyfs_close(&T.fs, fd);
        /* the record's time, with its close (an O_DSYNC file's times) */
        records[nrec++] = T.dev.now_ns - t0;
        /* a close whose commit fails (after a failed write) drops it */
        if (rc2 == STEADYFS_ENOSPC && rc != 4096)
            rc2 = 0;
        CHECK_EQ(rc2, 0);
    }
    window_check(records, nrec, 0);
    nrec = dsync_stream(ncalls / 16, 0, fsize, buf, records, &enospc, &enospc_low, 0);
    window_check(records, nrec, STEADYFS_RECORD_DSYNC);
    nrec = dsync_stream(ncalls / 16, 1, fsize, buf, records, &enospc, &enospc_low, 0);
    window_check(records, nrec, STEADYFS_RECORD_DSYNC | STEADYFS_RECORD_ALIGNED);
    if (hold) {
        /* write + sync to a file kept open: the held sector's records */
        nrec = dsync_stream(ncalls / 16, 0, fsize, buf, records, &enospc, &enospc_low, 1);
        window_check(records, nrec, STEADYFS_RECORD_HELD);
        nrec = dsync_stream(ncalls / 16, 1, fsize, buf, records, &enospc, &enospc_low, 1);
        window_check(records, nrec, STEADYFS_RECORD_HELD | STEADYFS_RECORD_ALIGNED);
    }
    for (b = 0; b < T.fs.geo.nblocks; b++) {
        int want = fs_counted_unit(&T.fs, b);
        if (want >= 0 && fs_recount_unit(&T.fs, b) != want)
            bad++;
    }
    CHECK_EQ(bad, 0);
    if (enospc) {
        /* what idle time gives back: collection steps with no writes */
        int steps = steadyfs_gc_step(&T.fs, 100000);
        fd = steadyfs_open(&T.fs, "/a/000", STEADYFS_O_RDWR | STEADYFS_O_DSYNC);
        CHECK(fd >= 0);
        rc = fd >= 0 ? steadyfs_write(&T.fs, fd, buf, 4096) : fd;
        if (fd >= 0)
            CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
        printf("adversary: after the run, %d idle collection steps; a 4 KiB O_DSYNC write then %s "
               "(live %u of %u sectors, %u free units)\n", steps,
               rc == 4096 ? "succeeds" : "still fails", T.fs.live, T.fs.live_max,
               sfs_free_blocks(&T.fs));
        if (rc != 4096) {
            /* the promise to a user at ENOSPC: deleting a file frees space */
            rc2 = steadyfs_unlink(&T.fs, "/a/001");
            steps = steadyfs_gc_step(&T.fs, 100000);
            fd = steadyfs_open(&T.fs, "/a/000", STEADYFS_O_RDWR | STEADYFS_O_DSYNC);
            rc = fd >= 0 ? steadyfs_write(&T.fs, fd, buf, 4096) : fd;
            if (fd >= 0)
                steadyfs_close(&T.fs, fd);
            printf("adversary: unlink of a %u-byte file %s; then %d collection steps and a write %s "
                   "(live %u, %u free units)\n", fsize, rc2 ? "FAILS" : "works", steps,
                   rc == 4096 ? "succeeds" : "still fails", T.fs.live, sfs_free_blocks(&T.fs));
            /* whatever the churn did, a delete works and gives writes back */
            CHECK_EQ(rc2, 0);
            CHECK_EQ(rc, 4096);
        }
    }
    free(records);
    printf("adversary: %llu write calls in worst timing; per call kind: largest measured / stated "
           "bound\n", (unsigned long long)ncalls);
    for (f = 0; f < sizeof K / sizeof K[0]; f++)
        if (K[f].count)
            printf("  %-32s %8llu calls  max %9.3f ms  bound %9.3f ms  ratio %.3f\n", K[f].name,
                   (unsigned long long)K[f].count, K[f].max_ns / 1e6, K[f].bound_ns / 1e6,
                   (double)K[f].max_ns / (double)K[f].bound_ns);
    /* the slowest calls traced: what each was made of, so that a worst
     * case can be told from the bound's count of the same call */
    printf("adversary: each kind's slowest call: device reads / programs / erases; of the "
           "programs data and inode sectors / collection copies / map and relocation sectors / checkpoints; victims begun\n");
    for (f = 0; f < sizeof K / sizeof K[0]; f++)
        if (K[f].count && (K[f].slowest.progs || K[f].slowest.erases))
            printf("  %-32s %4llu / %4llu / %2llu   %3u / %4u / %3u / %2u   %u\n", K[f].name,
                   (unsigned long long)K[f].slowest.reads, (unsigned long long)K[f].slowest.progs,
                   (unsigned long long)K[f].slowest.erases, K[f].slowest.data, K[f].slowest.copy,
                   K[f].slowest.map, K[f].slowest.ckpt, K[f].slowest.victim);
#ifdef ADV_GREEDY
    printf("adversary: greedy targets: %u records overwrote a live sector of the fullest unit, %u found none\n",
           G.hits, G.misses);
    free(G.file_of);
    free(G.page_of);
    free(G.work);
#endif
    printf("adversary: %u writes failed (ENOSPC), %u of them with live data below the limit "
           "(lowest live %u of %u sectors); collection copies %u (%.1f a victim), map sectors %u, "
           "catch-up collections %u\n", enospc, enospc_low,
           live_min_enospc == 0xFFFFFFFFu ? 0 : live_min_enospc, T.fs.live_max, T.fs.stats.copy,
           T.fs.stats.victim ? (double)T.fs.stats.copy / T.fs.stats.victim : 0.0, T.fs.stats.map,
           T.fs.stats.catch_up);
    /* no write fails with ENOSPC while the live data is below the limit */
    CHECK_EQ(enospc_low, 0);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
    return check_done(ADV_NAME);
}
