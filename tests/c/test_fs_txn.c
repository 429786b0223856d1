/* Transactions under power cuts (steadyfs.h, "Durability").
 *
 * A file's writes commit together at sync or close; a write that would
 * take its transaction past steadyfs_info.txn_sectors first commits the
 * file "as if steadyfs_sync() had been called just before that write"
 * (an implicit commit).  steady torture's model keeps its files too small
 * to reach that limit, so this test is where implicit commits meet power
 * cuts.
 *
 * On each medium (a small device, four open files allowed: on NAND a
 * transaction then holds 4 sectors), a file gets a committed base, then a
 * fixed stream of writes at random offsets with no sync, long enough to
 * commit implicitly several times.  The stream is run again for every
 * program and erase it makes (on NOR for an even sample of about 400),
 * with the power cut there; after each cut
 * the file must hold exactly the base or the state before one of the
 * stream's writes (never a mix, never a torn page), the state found must
 * never be older than one found at an earlier cut (what was durable
 * stays durable), fsck must be clean, and the live counts exact.  Run
 * whole, the stream must commit implicitly (the file after a cut at its
 * end is not the base), and a final sync commits everything.  A second
 * stream on each medium sends every fifth write through another handle on
 * the same file, opened with O_DSYNC: the transaction is the file's, so
 * that write commits what the first handle wrote too.  A third sends
 * writes of up to 8 pages into a 256 KiB span (several chunks), every
 * sixth operation a shrinking truncate (a commit point whose cut-off chunks
 * die): the writes that alone need more than a transaction holds may also
 * commit partway, at a page boundary inside them (the state before the
 * write with a prefix of it, the size at least that boundary), and only
 * those. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "fs/fs_internal.h"
#include "fs_recount.h"

#define SPAN (256u * 1024u)   /* the big stream writes within this span, the others 64 KiB */
#define WRITES 40u
#define BASE 5000u
#define WMAX (8u * 2048u)     /* a big stream's largest write */
#define PAGE 2048u            /* every medium's sector payload here (checked) */

static tdev T;
static uint8_t state[WRITES + 2][SPAN];   /* 0: the base; j + 1: before write j + 1 ... */
static uint32_t state_size[WRITES + 2];
static uint32_t woff[WRITES], wlen[WRITES];
static uint8_t wdata[WRITES][WMAX];
static uint8_t got[SPAN + 16];
static uint8_t cand[SPAN];
static uint32_t txn;   /* steadyfs_info.txn_sectors of the medium under test */
/* mixed streams: every fifth write goes through a second handle on the
 * same file opened with O_DSYNC, whose write commits the transaction the
 * two handles share (steadyfs.h) at its end */
static int mixed, big, fd_dsync = -1;

/* The stream: WRITES writes at random offsets (some past the end, some
 * unaligned, some whole pages), drawn once per medium. */
static void draw(uint64_t seed)
{
    uint64_t rng = seed;
    uint32_t j, i;
    state_size[0] = BASE;
    for (i = 0; i < BASE; i++)
        state[0][i] = (uint8_t)(i * 7u + 1u);
    for (j = 0; j < WRITES; j++) {
        uint32_t size = state_size[j], span = big ? SPAN : 64u * 1024u, most = big ? WMAX : 2048u;
        woff[j] = tdev_rand(&rng, 4) ? tdev_rand(&rng, span - most)
                                     : tdev_rand(&rng, (span - most) / PAGE) * PAGE;
        /* the small streams' writes touch at most two pages: each fits a
         * transaction (txn_sectors is 4 on NAND with four open files), so
         * it commits only at its start */
        wlen[j] = 1 + tdev_rand(&rng, most);
        for (i = 0; i < wlen[j]; i++)
            wdata[j][i] = (uint8_t)tdev_rand(&rng, 256);
        memcpy(state[j + 1], state[j], SPAN);
        if (big && j % 6 == 5 && size) {
            /* a shrinking truncate (wlen 0): a commit point of its own,
             * its chunks past the new end dying */
            woff[j] = tdev_rand(&rng, size);
            wlen[j] = 0;
            state_size[j + 1] = woff[j];
            continue;
        }
        /* state j + 1: after write j (the state before write j + 1) */
        if (woff[j] > size)
            memset(state[j + 1] + size, 0, woff[j] - size);
        memcpy(state[j + 1] + woff[j], wdata[j], wlen[j]);
        state_size[j + 1] = woff[j] + wlen[j] > size ? woff[j] + wlen[j] : size;
    }
}

/* Format, the committed base, the file left open for the stream. */
static int setup(const char *dev)
{
    int fd;
    /* a small device of each medium: 8 MiB of NAND, 4 MiB of NOR (4 KiB
     * blocks) and of MRAM */
    CHECK_EQ(tdev_open(&T, dev, strcmp(dev, "mt25q128") ? 64u : 1024u, 7), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    fd = steadyfs_open(&T.fs, "/f", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(&T.fs, fd, state[0], BASE), (int)BASE);
    CHECK_EQ(steadyfs_sync(&T.fs, fd), 0);
    fd_dsync = -1;
    if (mixed) {
        fd_dsync = steadyfs_open(&T.fs, "/f", STEADYFS_O_RDWR | STEADYFS_O_DSYNC);
        CHECK(fd_dsync >= 0);
    }
    return fd;
}

/* Operation j of the stream through handle h: a write (its bytes, or an
 * error), or a shrinking truncate (0, or an error). */
static int apply(int h, uint32_t j)
{
    if (!wlen[j])
        return steadyfs_truncate(&T.fs, h, woff[j]);
    steadyfs_seek(&T.fs, h, woff[j], STEADYFS_SEEK_SET);
    return steadyfs_write(&T.fs, h, wdata[j], wlen[j]);
}

/* Runs the stream until the power goes (a call fails with EIO).  Returns
 * the operations that returned in full. */
static uint32_t stream(int fd)
{
    uint32_t j;
    for (j = 0; j < WRITES; j++) {
        int rc = apply(mixed && j % 5 == 4 ? fd_dsync : fd, j);
        if (getenv("TXN_DEBUG"))   /* TXN_DEBUG=1: the stream and the states, call by call */
            fprintf(stderr, "  op %u: off %u len %u rc %d, ops %llu\n", j, woff[j], wlen[j], rc,
                    (unsigned long long)T.dev.pe_ops);
        if (rc == STEADYFS_EIO)
            return j;
        CHECK_EQ(rc, (int)wlen[j]);
    }
    return j;
}

/* The states a cut may leave, by rank: rank j RANKS is the state before
 * write j (j = WRITES: after the last); j RANKS + k, k >= 1, the state
 * before write j plus write j's bytes up to its k-th page boundary, which
 * only a write that alone needs more than a transaction holds may commit
 * (file.c: a write that fits commits at its start).  Builds the state in
 * cand and cand_size; 0 if rank names none. */
#define RANKS 16u
static uint32_t cand_size;
static int candidate(int rank)
{
    uint32_t j = (uint32_t)rank / RANKS, k = (uint32_t)rank % RANKS, first, h, b;
    if (j > WRITES || (j == WRITES && k))
        return 0;
    if (!k) {
        memcpy(cand, state[j], state_size[j]);
        cand_size = state_size[j];
        return 1;
    }
    if (!wlen[j])
        return 0;   /* a truncate: no state between its start and its end */
    first = woff[j] / PAGE;
    h = (woff[j] + wlen[j] - 1u) / PAGE - first + 1u;
    if (2u * (h - 1u) < txn || k >= h)
        return 0;
    b = (first + k) * PAGE;   /* the k-th page boundary inside the write */
    memcpy(cand, state[j], SPAN);
    if (woff[j] > state_size[j])
        memset(cand + state_size[j], 0, woff[j] - state_size[j]);
    memcpy(cand + woff[j], wdata[j], b - woff[j]);
    cand_size = b > state_size[j] ? b : state_size[j];
    return 1;
}

/* After a cut: mount, check the media, and find which state the file
 * holds: its rank (candidate()), -1 if none. */
static int which_state(const char *when)
{
    int fd, n, k, found = -1;
    uint32_t b;
    sim_power_restore(&T.dev);
    CHECK_EQ(tdev_fsck(&T, &T.fs, when), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    for (b = 0; b < T.fs.geo.nblocks; b++) {
        int want = fs_counted_unit(&T.fs, b);
        if (want >= 0 && fs_recount_unit(&T.fs, b) != want) {
            fprintf(stderr, "%s: unit %u counted %d live, holds %d\n", when, b, want,
                    fs_recount_unit(&T.fs, b));
            check_failed++;
        }
    }
    fd = steadyfs_open(&T.fs, "/f", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    n = 0;
    while (fd >= 0) {   /* (a read may return less than asked) */
        int r = steadyfs_read(&T.fs, fd, got + n, sizeof got - (size_t)n);
        if (r <= 0) {
            CHECK_EQ(r, 0);
            break;
        }
        n += r;
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    /* the newest state that matches (consecutive states may be equal) */
    for (k = (int)WRITES * RANKS; k >= 0 && found < 0; k--)
        if (candidate(k) && n == (int)cand_size && !memcmp(got, cand, (size_t)n))
            found = k;
    if (found < 0 && getenv("TXN_DEBUG")) {   /* how far each state agrees */
        for (k = 0; k <= (int)WRITES; k++) {
            int i = 0;
            while (i < n && i < (int)state_size[k] && got[i] == state[k][i])
                i++;
            fprintf(stderr, "  state %d: size %u (file %d), first difference at %d\n", k,
                    state_size[k], n, i);
        }
    }
    return found;
}

static void medium(const char *dev, uint64_t seed, int mixed_stream, int big_stream)
{
    sim_faults f;
    uint64_t ops, cut, stride;
    uint32_t implicit_seen = 0, partway = 0;
    int fd, k, last = 0, end_state;
    steadyfs_info info;
    mixed = mixed_stream;
    big = big_stream;
    draw(seed);
    /* the stream whole: how many programs and erases it makes */
    fd = setup(dev);
    CHECK_EQ(steadyfs_info_get(&T.fs, &info), 0);
    CHECK_EQ(info.data_per_sector, PAGE);
    txn = info.txn_sectors;
    memset(&f, 0, sizeof f);
    sim_set_faults(&T.dev, &f);
    CHECK_EQ(stream(fd), WRITES);
    ops = T.dev.pe_ops;
    /* the power goes right after it (no call of the file system in
     * between): the last implicit commit survives */
    end_state = which_state("after the whole stream, unsynced");
    CHECK(end_state > 0);   /* some write committed implicitly */
    /* and a sync commits the rest (write j again in full, then the others) */
    fd = steadyfs_open(&T.fs, "/f", STEADYFS_O_RDWR);
    CHECK(fd >= 0);
    for (k = end_state < 0 ? 0 : end_state / (int)RANKS; k < (int)WRITES; k++)
        CHECK_EQ(apply(fd, (uint32_t)k), (int)wlen[k]);
    CHECK_EQ(steadyfs_sync(&T.fs, fd), 0);
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    fd_dsync = -1;
    CHECK_EQ(which_state("after a sync"), (int)(WRITES * RANKS));
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
    /* every program and erase of the stream cut in turn (on NOR, whose
     * 64 KiB units make streams of 600-2400 operations, every
     * ceil(ops / 400)-th: make test's time) */
    stride = ops > 400u ? (ops + 399u) / 400u : 1u;
    for (cut = 1; cut <= ops; cut += stride) {
        char when[64];
        fd = setup(dev);
        memset(&f, 0, sizeof f);
        f.powercut_after = cut;
        sim_set_faults(&T.dev, &f);
        stream(fd);
        CHECK(T.fs.dead);
        memset(&f, 0, sizeof f);
        sim_set_faults(&T.dev, &f);
        snprintf(when, sizeof when, "%s, cut at operation %llu", dev, (unsigned long long)cut);
        k = which_state(when);
        if (k < 0 || k < last) {
            fprintf(stderr, "%s: the file holds %s (the state found at an earlier cut: %d)\n", when,
                    k < 0 ? "no state the writes made" : "an older state than before", last);
            check_failed++;
        } else {
            check_passed++;
            implicit_seen += k > last;
            partway += k > last && k % (int)RANKS;
            last = k;
        }
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        tdev_close(&T);
    }
    printf("%s: txn_sectors %u, stream of %u writes%s: %llu programs and erases, cut at every "
           "%llu; "
           "%u commits seen durable (%u of them partway through a write), unsynced end state "
           "%d.%d\n", dev, txn, WRITES,
           mixed ? " (every fifth through an O_DSYNC handle)"
           : big ? " of up to 8 pages and truncates" : "",
           (unsigned long long)ops, (unsigned long long)stride, implicit_seen, partway,
           end_state / (int)RANKS, end_state % (int)RANKS);
    if (!big)
        CHECK_EQ(partway, 0);
    CHECK(implicit_seen >= 2);
}

int main(void)
{
    /* each stream on each medium: small writes, mixed with O_DSYNC, big */
    static const char *const media[] = {"mt29f1g01", "mt25q128", "em064lx"};
    /* STEADYFS_TXN_SEED=N: other draws of the same streams (make test runs 0) */
    const char *env = getenv("STEADYFS_TXN_SEED");
    uint64_t base = env ? 1000u * strtoull(env, NULL, 10) : 0u;
    uint32_t kind, m;
    for (kind = 0; kind < 3; kind++)
        for (m = 0; m < 3; m++)
            medium(media[m], base + 11u + 10u * kind + m, kind == 1, kind == 2);
    return check_done("test_fs_txn");
}
