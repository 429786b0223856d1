/* The worst state, searched (issue 12 item 6; issue 16 for NOR and MRAM).
 *
 * test_fs_adversary*.c build the worst states someone thought of: random
 * or greedy churn at the fill limit, full directories, implicit commits.
 * The stated bounds are still 5-10 times what they reach, and nothing says
 * whether the gap is in the bound's count or in states nobody built.  This
 * test searches for the states instead.  From a device filled to a
 * fraction of its live limit and churned (so that units hold about the fill
 * fraction live), one search per call kind:
 *
 *   at every step, draw C candidate actions (public API calls that change
 *   the state: unaligned 4 KiB write + sync, O_DSYNC writes that leave size
 *   entries behind, single-page writes scattered over files so the pending
 *   table fills with changes in distinct map sectors, 64 KiB writes,
 *   creates, unlinks, renames, truncates, mkdir, setattr); try each in a
 *   forked child, where the candidate is followed by one *probe*: a call of
 *   the kind under search, timed in worst timing; then take the candidate
 *   whose probe was slowest, apply it, and go on from that state.
 *
 * Every state a probe runs in is reached by API calls alone, so its time is
 * a reachable time.  Each probe is held to steadyfs_bound() for its kind
 * and size (a bound exceeded is a bug; the test build's budget checks also
 * abort any call whose reads, programs or erases exceed its budget, and a
 * child that dies is a failure, with the step and candidate that killed
 * it).  Printed per kind: the slowest probe found, the bound, their ratio,
 * and the device operations of that probe.
 *
 * Environment (make test runs a short search on a small device; the soak,
 * `make soak-search`, the whole default device):
 *   STEADYFS_SEARCH_DEVICE  profile (mt29f1g01)
 *   STEADYFS_SEARCH_BLOCKS  device blocks (0: the whole part; default 96)
 *   STEADYFS_SEARCH_FILL    percent of the live limit filled (90)
 *   STEADYFS_SEARCH_WARM    unaligned write + sync calls of churn before
 *                           the search (default 40 per unit)
 *   STEADYFS_SEARCH_STEPS   greedy steps per kind (12)
 *   STEADYFS_SEARCH_CANDS   candidates per step (8)
 *   STEADYFS_SEARCH_KINDS   comma-separated probe names (all)
 *   STEADYFS_SEARCH_SEED    another draw */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS, fork */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fs_testdev.h"
#include "host/fs_bound.h"

#define NBIG 48u     /* files holding the fill, in whole sectors */
#define NSMALL 64u   /* one-byte files (inode sector and page 0) */
#define NDIRS 8u

static tdev T;
static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rn(uint64_t *s, uint32_t n) { return tdev_rand(s, n); }
static uint8_t buf[65536];

/* The searched state beside the file system: what exists, how large. */
static struct {
    uint32_t big_size[NBIG];
    uint8_t small[NSMALL];   /* exists */
    uint8_t dir[NDIRS];      /* exists */
    uint32_t fill_size;      /* a big file's size after the fill */
    uint32_t created;        /* names for probes' creates */
} S;

/* ---- probes: one call of a kind, timed ---------------------------------- */

typedef struct probe {
    const char *name;
    steadyfs_call call;
    uint64_t n;
} probe;

enum { P_WS, P_DS, P_WRITE, P_SYNC, P_CLOSE, P_CREATE, P_UNLINK, P_RENAME, P_TRUNC, P_MKDIR,
       P_RMDIR, P_SETATTR, P_GC, P_COUNT };

static const probe PROBES[P_COUNT] = {
    {"write_4096_sync", STEADYFS_CALL_WRITE_SYNC, 4096},
    {"write_4096_dsync", STEADYFS_CALL_WRITE_DSYNC, 4096},
    {"write_4096", STEADYFS_CALL_WRITE, 4096},
    {"sync", STEADYFS_CALL_SYNC, 0},
    {"close", STEADYFS_CALL_CLOSE, 0},
    {"create", STEADYFS_CALL_CREATE, 2},
    {"unlink", STEADYFS_CALL_UNLINK, 2},
    {"rename", STEADYFS_CALL_RENAME, 2},
    {"truncate", STEADYFS_CALL_TRUNCATE, 0},
    {"mkdir", STEADYFS_CALL_MKDIR, 2},
    {"rmdir", STEADYFS_CALL_RMDIR, 2},
    {"setattr", STEADYFS_CALL_SETATTR, 2},
    {"gc_step", STEADYFS_CALL_GC_STEP, 1},
};

static void big_path(char *p, size_t n, uint32_t f) { snprintf(p, n, "/a/%03u", f); }
static void small_path(char *p, size_t n, uint32_t f) { snprintf(p, n, "/s/%03u", f); }

/* An unaligned offset for a 4 KiB write inside big file f (three sectors). */
static uint32_t rec_off(uint64_t *s, uint32_t f)
{
    uint32_t size = S.big_size[f];
    return size > 8192u ? rn(s, size - 4096u) : 0;
}

/* Runs probe k in the current state; returns its duration in ns, or 0 if
 * the call failed (ENOSPC or the state lacks what it needs: not counted).
 * Whatever it sets up first (open, an unsynced write) is not timed. */
static uint64_t run_probe(int k, uint64_t *s)
{
    char p[32], q[32];
    uint32_t f = rn(s, NBIG), i;
    uint64_t t0 = 0, t1;
    int fd = -1, rc = -1;
    steadyfs_attr a;
    switch (k) {
    case P_WS:
    case P_DS:
    case P_WRITE:
    case P_SYNC:
    case P_CLOSE:
        big_path(p, sizeof p, f);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR | (k == P_DS ? STEADYFS_O_DSYNC : 0));
        if (fd < 0)
            return 0;
        steadyfs_seek(&T.fs, fd, rec_off(s, f), STEADYFS_SEEK_SET);
        if (k == P_SYNC || k == P_CLOSE) {
            /* a transaction to commit: up to txn_sectors changes (an
             * unaligned 4 KiB write touches three pages) */
            uint32_t w = 1u + rn(s, 3u);
            for (i = 0; i < w; i++) {
                steadyfs_seek(&T.fs, fd, rec_off(s, f), STEADYFS_SEEK_SET);
                if (steadyfs_write(&T.fs, fd, buf, 4096) != 4096)
                    return 0;
            }
        }
        t0 = T.dev.now_ns;
        if (k == P_SYNC)
            rc = steadyfs_sync(&T.fs, fd);
        else if (k == P_CLOSE)
            rc = steadyfs_close(&T.fs, fd);
        else {
            rc = steadyfs_write(&T.fs, fd, buf + rn(s, 4096), 4096) == 4096 ? 0 : -1;
            if (!rc && k == P_WS)
                rc = steadyfs_sync(&T.fs, fd);
        }
        break;
    case P_CREATE:
        snprintf(p, sizeof p, "/s/n%07u", S.created + rn(s, 1000000u));
        t0 = T.dev.now_ns;
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_EXCL);
        rc = fd >= 0 ? 0 : fd;
        break;
    case P_UNLINK:
        /* a big file (its chunks die) or a small one */
        if (rn(s, 2)) {
            big_path(p, sizeof p, f);
        } else {
            f = rn(s, NSMALL);
            if (!S.small[f])
                return 0;
            small_path(p, sizeof p, f);
        }
        t0 = T.dev.now_ns;
        rc = steadyfs_unlink(&T.fs, p);
        break;
    case P_RENAME:
        /* over an existing file (its inode dies) */
        f = rn(s, NSMALL);
        i = rn(s, NSMALL);
        if (!S.small[f] || f == i)
            return 0;
        small_path(p, sizeof p, f);
        if (rn(s, 2))
            big_path(q, sizeof q, rn(s, NBIG));
        else
            small_path(q, sizeof q, i);
        t0 = T.dev.now_ns;
        rc = steadyfs_rename(&T.fs, p, q);
        break;
    case P_TRUNC:
        big_path(p, sizeof p, f);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR);
        if (fd < 0 || S.big_size[f] < 4096u)
            return 0;
        t0 = T.dev.now_ns;
        rc = steadyfs_truncate(&T.fs, fd, rn(s, S.big_size[f]));
        break;
    case P_MKDIR:
        snprintf(p, sizeof p, "/d/m%07u", rn(s, 1000000u));
        t0 = T.dev.now_ns;
        rc = steadyfs_mkdir(&T.fs, p);
        break;
    case P_RMDIR:
        f = rn(s, NDIRS);
        if (!S.dir[f])
            return 0;
        snprintf(p, sizeof p, "/d/%02u", f);
        t0 = T.dev.now_ns;
        rc = steadyfs_rmdir(&T.fs, p);
        break;
    case P_SETATTR:
        big_path(p, sizeof p, f);
        memset(&a, 0, sizeof a);
        a.mask = STEADYFS_ATTR_MODE;
        a.mode = (uint16_t)(0600u + rn(s, 0100u));
        t0 = T.dev.now_ns;
        rc = steadyfs_setattr(&T.fs, p, &a);
        break;
    case P_GC:
        t0 = T.dev.now_ns;
        rc = steadyfs_gc_step(&T.fs, 1) >= 0 ? 0 : -1;
        break;
    default:
        return 0;
    }
    t1 = T.dev.now_ns;
    return rc == 0 ? (t1 > t0 ? t1 - t0 : 1) : 0;
}

/* ---- actions: what the search may do between probes ---------------------- */

enum { A_WS, A_DS, A_SCATTER, A_BIG, A_CREATE, A_UNLINK, A_RENAME, A_TRUNC, A_REFILL, A_MKDIR,
       A_RMDIR, A_SETATTR, A_COUNT };
static const char *const ANAMES[A_COUNT] = {
    "write+sync", "O_DSYNC write", "scatter", "64 KiB write+sync", "create", "unlink", "rename",
    "truncate", "refill", "mkdir", "rmdir", "setattr"};

/* Grows big file f back towards the fill size (writes at its end). */
static void refill(uint32_t f, uint32_t most)
{
    char p[32];
    int fd;
    uint32_t n;
    big_path(p, sizeof p, f);
    fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    if (fd < 0)
        return;
    steadyfs_seek(&T.fs, fd, S.big_size[f], STEADYFS_SEEK_SET);
    while (S.big_size[f] < S.fill_size && most) {
        n = S.fill_size - S.big_size[f];
        if (n > sizeof buf)
            n = sizeof buf;
        if (n > most)
            n = most;
        if (steadyfs_write(&T.fs, fd, buf, n) != (int32_t)n)
            break;
        S.big_size[f] += n;
        most -= n;
    }
    steadyfs_close(&T.fs, fd);
}

/* Applies action a with the draws of *s (the same *s gives the same
 * action: the parent repeats what the child tried). */
static void apply(int a, uint64_t *s)
{
    char p[32], q[32];
    uint32_t f = rn(s, NBIG), i, n;
    int fd;
    steadyfs_attr at;
    switch (a) {
    case A_WS:
    case A_DS:
        big_path(p, sizeof p, f);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR |
                                         (a == A_DS ? STEADYFS_O_DSYNC | STEADYFS_O_NOMTIME : 0));
        if (fd < 0)
            return;
        steadyfs_seek(&T.fs, fd, rec_off(s, f), STEADYFS_SEEK_SET);
        if (steadyfs_write(&T.fs, fd, buf, 4096) == 4096 && a == A_WS)
            steadyfs_sync(&T.fs, fd);
        steadyfs_close(&T.fs, fd);
        return;
    case A_SCATTER:
        /* single bytes into 2..9 files at pages far apart (distinct map
         * sectors), each an O_DSYNC write whose size entry stays behind */
        n = 2u + rn(s, 8u);
        for (i = 0; i < n; i++) {
            f = rn(s, NBIG);
            big_path(p, sizeof p, f);
            fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR | STEADYFS_O_DSYNC | STEADYFS_O_NOMTIME);
            if (fd < 0)
                return;
            if (S.big_size[f])
                steadyfs_seek(&T.fs, fd, rn(s, S.big_size[f]), STEADYFS_SEEK_SET);
            steadyfs_write(&T.fs, fd, buf, 1);
            steadyfs_close(&T.fs, fd);
        }
        return;
    case A_BIG:
        big_path(p, sizeof p, f);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR);
        if (fd < 0)
            return;
        if (S.big_size[f] > 65536u + 4096u)
            steadyfs_seek(&T.fs, fd, rn(s, S.big_size[f] - 65536u), STEADYFS_SEEK_SET);
        if (steadyfs_write(&T.fs, fd, buf, 65536) == 65536)
            steadyfs_sync(&T.fs, fd);
        steadyfs_close(&T.fs, fd);
        return;
    case A_CREATE:
        f = rn(s, NSMALL);
        if (S.small[f])
            return;
        small_path(p, sizeof p, f);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        if (fd < 0)
            return;
        steadyfs_write(&T.fs, fd, "x", 1);
        if (steadyfs_close(&T.fs, fd) == 0)
            S.small[f] = 1;
        return;
    case A_UNLINK:
        f = rn(s, NSMALL);
        small_path(p, sizeof p, f);
        if (S.small[f] && steadyfs_unlink(&T.fs, p) == 0)
            S.small[f] = 0;
        return;
    case A_RENAME:
        f = rn(s, NSMALL);
        i = rn(s, NSMALL);
        if (!S.small[f] || f == i)
            return;
        small_path(p, sizeof p, f);
        small_path(q, sizeof q, i);
        if (steadyfs_rename(&T.fs, p, q) == 0) {
            S.small[f] = 0;
            S.small[i] = 1;
        }
        return;
    case A_TRUNC:
        big_path(p, sizeof p, f);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_RDWR);
        if (fd < 0)
            return;
        n = S.big_size[f] ? rn(s, S.big_size[f]) : 0;
        if (steadyfs_truncate(&T.fs, fd, n) == 0)
            S.big_size[f] = n;
        steadyfs_close(&T.fs, fd);
        return;
    case A_REFILL:
        refill(f, 1u << 20);
        return;
    case A_MKDIR:
        f = rn(s, NDIRS);
        snprintf(p, sizeof p, "/d/%02u", f);
        if (!S.dir[f] && steadyfs_mkdir(&T.fs, p) == 0)
            S.dir[f] = 1;
        return;
    case A_RMDIR:
        f = rn(s, NDIRS);
        snprintf(p, sizeof p, "/d/%02u", f);
        if (S.dir[f] && steadyfs_rmdir(&T.fs, p) == 0)
            S.dir[f] = 0;
        return;
    case A_SETATTR:
        big_path(p, sizeof p, f);
        memset(&at, 0, sizeof at);
        at.mask = STEADYFS_ATTR_MODE;
        at.mode = 0640;
        steadyfs_setattr(&T.fs, p, &at);
        return;
    default:
        return;
    }
}

/* ---- the search ------------------------------------------------------------ */

/* What one child reports. */
typedef struct trial {
    uint64_t dt;               /* the probe's duration, 0: the probe failed */
    uint64_t reads, progs, erases;
    int done;                  /* the child got to the end */
} trial;

typedef struct kind_result {
    uint64_t best_ns, bound_ns, probes;
    uint64_t reads, progs, erases;   /* of the slowest probe */
    uint32_t over, died, step_best;
    char path[96];                   /* the actions that led to it, by number */
} kind_result;

static uint64_t bound_of(int k)
{
    steadyfs_cost c;
    if (steadyfs_bound(&T.cfg, &T.dev.bd.geo, PROBES[k].call, PROBES[k].n, &c))
        return 0;
    return steady_fs_cost_ns(T.dev.prof, &T.cfg, &c, SIM_WORST);
}

/* Tries action a (draws from seed sa), then probe k (draws from seed sp),
 * in a child; fills *t. */
static void trial_child(int a, uint64_t sa, int k, uint64_t sp, trial *t)
{
    sim_stats s0;
    if (a >= 0)
        apply(a, &sa);
    s0 = T.dev.stats;
    t->dt = run_probe(k, &sp);
    t->reads = T.dev.stats.reads - s0.reads;
    t->progs = T.dev.stats.progs - s0.progs;
    t->erases = T.dev.stats.erases - s0.erases;
    t->done = 1;
}

static void search(int k, uint32_t steps, uint32_t cands, uint64_t seed, kind_result *r)
{
    trial *tr = mmap(NULL, sizeof(trial) * cands, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int *act = calloc(cands, sizeof *act);
    uint64_t *sa = calloc(cands, sizeof *sa), *sp = calloc(cands, sizeof *sp);
    uint32_t step, c, best, plen = 0;
    uint64_t s = seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(k + 1));
    memset(r, 0, sizeof *r);
    r->bound_ns = bound_of(k);
    if (tr == MAP_FAILED || !act || !sa || !sp) {
        r->died++;
        return;
    }
    for (step = 0; step < steps; step++) {
        for (c = 0; c < cands; c++) {
            pid_t pid;
            int st = 0;
            act[c] = (int)rn(&s, A_COUNT);
            sa[c] = s ^ 0xA5A5A5A5A5A5A5A5ull ^ (step * 131u + c);
            sp[c] = s ^ 0x5A5A5A5A5A5A5A5Aull ^ (step * 137u + c);
            rn(&sa[c], 1);
            rn(&sp[c], 1);
            memset(&tr[c], 0, sizeof tr[c]);
            fflush(NULL);
            pid = fork();
            if (pid == 0) {
                trial_child(act[c], sa[c], k, sp[c], &tr[c]);
                _exit(0);
            }
            if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) ||
                !tr[c].done) {
                r->died++;
                fprintf(stderr, "search %s: step %u candidate %u (%s) died (status %d); "
                        "STEADYFS_SEARCH_SEED=%llu\n", PROBES[k].name, step, c, ANAMES[act[c]], st,
                        (unsigned long long)seed);
                tr[c].dt = 0;
                continue;
            }
            if (!tr[c].dt)
                continue;
            r->probes++;
            if (r->bound_ns && tr[c].dt > r->bound_ns) {
                r->over++;
                fprintf(stderr, "search %s: step %u candidate %u (%s): %llu ns > bound %llu ns; "
                        "STEADYFS_SEARCH_SEED=%llu\n", PROBES[k].name, step, c, ANAMES[act[c]],
                        (unsigned long long)tr[c].dt, (unsigned long long)r->bound_ns,
                        (unsigned long long)seed);
            }
            if (tr[c].dt > r->best_ns) {
                r->best_ns = tr[c].dt;
                r->reads = tr[c].reads;
                r->progs = tr[c].progs;
                r->erases = tr[c].erases;
                r->step_best = step;
            }
        }
        /* go on from the candidate whose probe was slowest */
        for (best = 0, c = 1; c < cands; c++)
            if (tr[c].dt > tr[best].dt)
                best = c;
        apply(act[best], &sa[best]);
        if (plen + 4 < sizeof r->path)
            plen += (uint32_t)snprintf(r->path + plen, sizeof r->path - plen, "%s%d",
                                       plen ? "," : "", act[best]);
    }
    munmap(tr, sizeof(trial) * cands);
    free(act);
    free(sa);
    free(sp);
}

/* Is `name` one of the comma-separated names in list (NULL: all)? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;
    if (!list)
        return 1;
    for (; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

static uint32_t env_u32(const char *name, uint32_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? (uint32_t)strtoul(v, NULL, 10) : dflt;
}

int main(void)
{
    const char *dev = getenv("STEADYFS_SEARCH_DEVICE") ? getenv("STEADYFS_SEARCH_DEVICE") : "mt29f1g01";
    const char *kinds = getenv("STEADYFS_SEARCH_KINDS");
    uint32_t blocks = env_u32("STEADYFS_SEARCH_BLOCKS", 96);
    uint32_t fill = env_u32("STEADYFS_SEARCH_FILL", 90);
    uint32_t steps = env_u32("STEADYFS_SEARCH_STEPS", 12);
    uint32_t cands = env_u32("STEADYFS_SEARCH_CANDS", 8);
    uint64_t seed = env_u32("STEADYFS_SEARCH_SEED", 0);
    uint32_t warm, f, i;
    uint64_t i64;
    steadyfs_info info;
    kind_result *res;
    char p[32];
    int k, fd;
    if (!sim_profile_find(dev)) {
        fprintf(stderr, "test_fs_search: no device profile named '%s' (STEADYFS_SEARCH_DEVICE)\n", dev);
        return 2;
    }
    if (fill < 1 || fill > 100 || !steps || !cands) {
        fprintf(stderr, "test_fs_search: STEADYFS_SEARCH_FILL must be 1..100, _STEPS and _CANDS above 0\n");
        return 2;
    }
    rng ^= seed * 0xD1B54A32D192ED03ull;
    res = mmap(NULL, sizeof(kind_result) * P_COUNT, PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(res != MAP_FAILED);
    if (res == MAP_FAILED)
        return check_done("test_fs_search");
    memset(res, 0, sizeof(kind_result) * P_COUNT);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 131u + 7u);
    CHECK_EQ(tdev_open(&T, dev, blocks, 11 + seed), 0);
    T.cfg.open_max = 1;   /* the configuration `steady bound` states */
    T.cfg.work_size = steadyfs_work_size(&T.cfg);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_info_get(&T.fs, &info), 0);
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/a"), 0);
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/s"), 0);
    CHECK_EQ(steadyfs_mkdir(&T.fs, "/d"), 0);
    /* the fill, in whole sectors, then the small files and directories */
    S.fill_size = (uint32_t)((uint64_t)info.capacity * fill / 100u / NBIG / 2048u * 2048u);
    for (f = 0; f < NBIG; f++)
        refill(f, 0xFFFFFFFFu);
    for (f = 0; f < NSMALL / 2u; f++) {
        small_path(p, sizeof p, f);
        fd = steadyfs_open(&T.fs, p, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        if (fd >= 0) {
            steadyfs_write(&T.fs, fd, "x", 1);
            CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
            S.small[f] = 1;
        }
    }
    for (f = 0; f < NDIRS / 2u; f++) {
        snprintf(p, sizeof p, "/d/%02u", f);
        CHECK_EQ(steadyfs_mkdir(&T.fs, p), 0);
        S.dir[f] = 1;
    }
    /* churn: every unit about as full as the fill lets it be */
    warm = env_u32("STEADYFS_SEARCH_WARM", 40u * T.fs.geo.nblocks);
    for (i64 = 0; i64 < warm; i64++)
        apply(A_WS, &rng);
    printf("search: %s, %u units, %u files of %u bytes, live %u of %u sectors (%.1f %%), "
           "%u calls of churn; %u steps x %u candidates per kind, worst timing\n",
           dev, T.fs.geo.nblocks, NBIG, S.fill_size, T.fs.live, T.fs.live_max,
           100.0 * T.fs.live / T.fs.live_max, warm, steps, cands);
    sim_set_timing(&T.dev, SIM_WORST);
    /* one search per kind, each from the same state (a process each) */
    for (k = 0; k < P_COUNT; k++) {
        pid_t pid;
        int st = 0;
        if (!listed(kinds, PROBES[k].name))
            continue;
        fflush(NULL);
        pid = fork();
        if (pid == 0) {
            search(k, steps, cands, seed + 1, &res[k]);
            _exit(0);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "search %s: the search process died (status %d)\n", PROBES[k].name, st);
            res[k].died++;
        }
    }
    printf("search: per call kind, the slowest probe found / stated bound (worst timing)\n");
    for (k = 0; k < P_COUNT; k++) {
        kind_result *r = &res[k];
        if (!listed(kinds, PROBES[k].name))
            continue;
        printf("  %-17s %5llu probes  max %9.3f ms  bound %9.3f ms  ratio %.3f  (%llu reads, %llu "
               "programs, %llu erases; step %u; path %s)\n",
               PROBES[k].name, (unsigned long long)r->probes, r->best_ns / 1e6, r->bound_ns / 1e6,
               r->bound_ns ? (double)r->best_ns / (double)r->bound_ns : 0.0,
               (unsigned long long)r->reads, (unsigned long long)r->progs,
               (unsigned long long)r->erases, r->step_best, r->path);
        CHECK(r->bound_ns > 0);
        CHECK(r->probes > 0);    /* the kind was probed at all */
        CHECK_EQ(r->over, 0);    /* no probe above its bound */
        CHECK_EQ(r->died, 0);    /* no budget abort, no sanitizer report */
    }
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    CHECK_EQ(tdev_fsck(&T, &T.fs, "search: after the searches"), 0);
    tdev_close(&T);
    munmap(res, sizeof(kind_result) * P_COUNT);
    return check_done("test_fs_search");
}
