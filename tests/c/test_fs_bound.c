/* Property test for the real-time issue: in worst timing mode, random
 * sequences of every call, each call's measured virtual duration (the
 * device clock before and after) must never exceed steadyfs_bound() for
 * that call.  A bound that is exceeded is a bug, never a tolerance.
 * STEADYFS_BOUND_CALLS sets the number of calls (default 100000; the soak
 * is 10^7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "host/fs_bound.h"
#include "fs/fs_internal.h"
#include "fs_recount.h"

static uint64_t rng = 88172645463325252ull;
static uint32_t rn(uint32_t n) { return tdev_rand(&rng, n); }

static tdev T;
static uint32_t last_op;

/* Every unit's live count equals its recount (a count that drifts low
 * frees a unit that still holds data).  Returns 0 on a mismatch. */
static int counts_ok(const char *when, uint64_t i)
{
    uint32_t b;
    int bad = 0;
    if (!T.fs.mounted || T.fs.dead)
        return 1;
    for (b = 0; b < T.fs.geo.nblocks; b++) {
        int want = fs_counted_unit(&T.fs, b);
        int got;
        if (want < 0)
            continue;
        got = fs_recount_unit(&T.fs, b);
        if (got != want) {
            fprintf(stderr, "%s: %s, call %llu (op %u): unit %u counted %d live, holds %d\n",
                    T.dev.prof->name, when, (unsigned long long)i, last_op, b, want, got);
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
    return !bad;
}

static uint64_t calls, worst_ratio_num, worst_ratio_den = 1;
/* Per call kind, the call that came closest to its own bound (its size's:
 * never a maximum of one size against the bound of another). */
static uint64_t top_dt[STEADYFS_CALL_COUNT], top_b[STEADYFS_CALL_COUNT];

static void check_call(steadyfs_call call, uint64_t n, uint64_t t0, int rc)
{
    uint64_t dt = T.dev.now_ns - t0;
    uint64_t b = steady_fs_bound_ns(T.dev.prof, &T.cfg, call, n, SIM_WORST);
    if (T.fs.dead)
        return;   /* cut by power loss: did not complete */
    calls++;
    if (dt > b || rc == STEADYFS_EIO || rc == STEADYFS_ECORRUPT) {
        check_failed++;
        fprintf(stderr, "%s: call %s(n=%llu) took %llu ns > bound %llu ns (rc %d)\n",
                T.dev.prof->name, steadyfs_call_name(call), (unsigned long long)n,
                (unsigned long long)dt, (unsigned long long)b, rc);
    } else {
        check_passed++;
    }
    if (dt * worst_ratio_den > worst_ratio_num * (b ? b : 1)) {
        worst_ratio_num = dt;
        worst_ratio_den = b ? b : 1;
    }
    if (b && (!top_b[call] || dt * top_b[call] > top_dt[call] * b)) {
        top_dt[call] = dt;
        top_b[call] = b;
    }
}

static int depth(const char *p)
{
    int d = 0;
    for (; *p; p++)
        d += *p == '/';
    return d;
}

/* Arm a power cut within the next `window` program/erase operations. */
static void arm(uint32_t window)
{
    sim_faults f;
    memset(&f, 0, sizeof f);
    f.powercut_after = window ? 1 + rn(window) : 0;
    sim_set_faults(&T.dev, &f);
}

/* Static files up to `permille` of the capacity, so that collection works
 * near the fill limit (not timed). */
static void fill(uint32_t permille, uint8_t *buf, uint32_t len)
{
    steadyfs_info in;
    char name[32];
    uint32_t n = 0;
    steadyfs_mkdir(&T.fs, "/s");
    for (;;) {
        int fd, k;
        CHECK_EQ(steadyfs_info_get(&T.fs, &in), 0);
        if (in.used >= in.capacity * permille / 1000u)
            return;
        snprintf(name, sizeof name, "/s/%u", n++);
        fd = steadyfs_open(&T.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        for (k = 0; k < 16; k++)
            CHECK_EQ(steadyfs_write(&T.fs, fd, buf, len), len);
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    }
}

/* Random calls, each checked against its bound.  With cut_window != 0,
 * power is cut within every cut_window program/erase operations: the call
 * that was cut is not checked (it did not complete), the mount after it
 * is, and so is every call after that mount (collection state abandoned
 * by the cut: the worst history). */
/* the held sector configured in the runs that set it (steadyfs.h) */
static int with_hold;
static uint8_t hold_buf[4096];

static void run(const char *profile, uint32_t blocks, uint64_t ncalls, uint32_t fill_permille,
                uint32_t cut_window)
{
    static uint8_t buf[16384];
    char path[64], path2[64];
    int fds[3] = {-1, -1, -1}, dsync[3] = {0, 0, 0};
    uint64_t i, t0, cuts = 0;
    uint32_t emerg = 0;
    int rc, k;
    static int run_no;
    const char *only = getenv("STEADYFS_BOUND_ONLY");   /* debugging: one run */
    const char *seed = getenv("STEADYFS_BOUND_SEED");
    rng = 88172645463325252ull ^ ((uint64_t)(seed ? atoi(seed) : 0) << 32) ^
          (uint64_t)run_no * 0x9E3779B97F4A7C15ull;
    const char *ev = getenv("STEADYFS_BOUND_RECOUNT");   /* calls between recounts */
    uint64_t every = ev ? strtoull(ev, NULL, 0) : 64;
    if (only && atoi(only) != run_no++)
        return;
    if (!only)
        run_no++;
    CHECK_EQ(tdev_open(&T, profile, blocks, 7), 0);
    T.cfg.hold_buf = with_hold ? hold_buf : NULL;
    sim_init(&T.dev, T.dev.prof, blocks, T.image, T.image_len, SIM_WORST, 7, 1);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    t0 = T.dev.now_ns;
    CHECK_EQ(rc = steadyfs_mount(&T.fs, &T.cfg), 0);
    check_call(STEADYFS_CALL_MOUNT, 0, t0, rc);
    for (k = 0; k < (int)sizeof buf; k++)
        buf[k] = (uint8_t)(k * 7);
    steadyfs_mkdir(&T.fs, "/d0");
    steadyfs_mkdir(&T.fs, "/d1");
    steadyfs_mkdir(&T.fs, "/d0/e");
    if (fill_permille)
        fill(fill_permille, buf, 4096);
    arm(cut_window);
    for (i = 0; i < ncalls; i++) {
        if (cut_window && i % every == 0 && !counts_ok("periodic recount", i))
            break;
        if (T.fs.dead) {
            /* power cut: on again, mount (checked), handles are gone */
            cuts++;
            emerg += T.fs.stats.catch_up;
            sim_power_restore(&T.dev);
            arm(0);
            t0 = T.dev.now_ns;
            rc = steadyfs_mount(&T.fs, &T.cfg);
            check_call(STEADYFS_CALL_MOUNT, 0, t0, rc);
            if (rc)
                break;
            if (!counts_ok("after a cut and mount", i))
                break;
            fds[0] = fds[1] = fds[2] = -1;
            arm(cut_window);
        }
        uint32_t op = rn(100), n;
        last_op = op;
        snprintf(path, sizeof path, "/%s/f%u", rn(2) ? "d0" : rn(2) ? "d1" : "d0/e", rn(12));
        snprintf(path2, sizeof path2, "/%s/f%u", rn(2) ? "d0" : "d1", rn(12));
        k = (int)rn(3);
        t0 = T.dev.now_ns;
        if (op < 10) {
            if (fds[k] >= 0)
                continue;
            dsync[k] = rn(3) == 0;   /* O_DSYNC: each write commits itself */
            rc = steadyfs_open(&T.fs, path, STEADYFS_O_RDWR | STEADYFS_O_CREAT |
                                                 (rn(4) ? 0 : STEADYFS_O_APPEND) |
                                                 (dsync[k] ? STEADYFS_O_DSYNC : 0));
            if (rc >= 0)
                fds[k] = rc;
            /* create when it did not exist: the create bound covers both */
            check_call(STEADYFS_CALL_CREATE, (uint64_t)depth(path), t0, rc < 0 ? rc : 0);
        } else if (op < 40) {
            if (fds[k] < 0)
                continue;
            n = rn(3) ? 4096 : 1 + rn(12000);
            rc = steadyfs_write(&T.fs, fds[k], buf, n);
            if (rc == STEADYFS_ENOSPC || rc == STEADYFS_EFBIG) {
                steadyfs_truncate(&T.fs, fds[k], 0);
                continue;
            }
            if (dsync[k]) {
                check_call(STEADYFS_CALL_WRITE_DSYNC, n, t0, rc < 0 ? rc : 0);
            } else if (rn(2)) {
                rc = rc < 0 ? rc : steadyfs_sync(&T.fs, fds[k]);
                check_call(STEADYFS_CALL_WRITE_SYNC, n, t0, rc == STEADYFS_ENOSPC ? 0 : rc);
            } else {
                check_call(STEADYFS_CALL_WRITE, n, t0, rc < 0 ? rc : 0);
            }
        } else if (op < 48) {
            if (fds[k] < 0)
                continue;
            n = 1 + rn(8000);
            steadyfs_seek(&T.fs, fds[k], rn(20000), STEADYFS_SEEK_SET);
            t0 = T.dev.now_ns;
            rc = steadyfs_read(&T.fs, fds[k], buf, n);
            check_call(STEADYFS_CALL_READ, n, t0, rc < 0 ? rc : 0);
        } else if (op < 56) {
            if (fds[k] < 0)
                continue;
            rc = steadyfs_close(&T.fs, fds[k]);
            fds[k] = -1;
            check_call(STEADYFS_CALL_CLOSE, 0, t0, rc);
        } else if (op < 61) {
            if (fds[k] < 0)
                continue;
            rc = steadyfs_truncate(&T.fs, fds[k], rn(30000));
            check_call(STEADYFS_CALL_TRUNCATE, 0, t0, rc);
        } else if (op < 68) {
            rc = steadyfs_unlink(&T.fs, path);
            check_call(STEADYFS_CALL_UNLINK, (uint64_t)depth(path), t0, rc < 0 && rc != STEADYFS_EIO ? 0 : rc);
        } else if (op < 74) {
            rc = steadyfs_rename(&T.fs, path, path2);
            check_call(STEADYFS_CALL_RENAME, (uint64_t)depth(path), t0, rc < 0 && rc != STEADYFS_EIO ? 0 : rc);
        } else if (op < 78) {
            /* stat, setattr, symlink (a create) and readlink (a stat) */
            steadyfs_stat st;
            steadyfs_attr a = {STEADYFS_ATTR_MODE | STEADYFS_ATTR_MTIME, 0600, 0, 0, 5};
            char lnk[64];
            uint32_t w = rn(4);
            steadyfs_call call = w == 1 ? STEADYFS_CALL_SETATTR : w == 2 ? STEADYFS_CALL_CREATE
                                                                         : STEADYFS_CALL_STAT;
            rc = w == 0 ? steadyfs_stat_path(&T.fs, path, &st)
               : w == 1 ? steadyfs_setattr(&T.fs, path, &a)
               : w == 2 ? steadyfs_symlink(&T.fs, path2, path, NULL)
                        : steadyfs_readlink(&T.fs, path, lnk, sizeof lnk);
            check_call(call, (uint64_t)depth(path), t0, rc < 0 && rc != STEADYFS_EIO ? 0 : rc);
        } else if (op < 82) {
            snprintf(path, sizeof path, "/d%u/x%u", rn(2), rn(3));
            rc = rn(2) ? steadyfs_mkdir(&T.fs, path) : steadyfs_rmdir(&T.fs, path);
            check_call(STEADYFS_CALL_MKDIR, 2, t0, rc < 0 && rc != STEADYFS_EIO ? 0 : rc);
        } else if (op < 88) {
            steadyfs_dirent e;
            int dd = steadyfs_opendir(&T.fs, rn(2) ? "/d0" : "/d1");
            check_call(STEADYFS_CALL_OPENDIR, 1, t0, dd < 0 ? dd : 0);
            while (dd >= 0) {
                t0 = T.dev.now_ns;
                rc = steadyfs_readdir(&T.fs, dd, &e);
                check_call(STEADYFS_CALL_READDIR, 1, t0, rc < 0 ? rc : 0);
                if (rc <= 0)
                    break;
            }
            if (dd >= 0)
                steadyfs_closedir(&T.fs, dd);
        } else if (op < 97) {
            n = 1 + rn(16);
            rc = steadyfs_gc_step(&T.fs, n);
            check_call(STEADYFS_CALL_GC_STEP, n, t0, rc < 0 ? rc : 0);
        } else {
            for (k = 0; k < 3; k++) {
                if (fds[k] >= 0) {
                    t0 = T.dev.now_ns;
                    rc = steadyfs_close(&T.fs, fds[k]);
                    check_call(STEADYFS_CALL_CLOSE, 0, t0, rc);
                }
                fds[k] = -1;
            }
            t0 = T.dev.now_ns;
            rc = steadyfs_unmount(&T.fs);
            check_call(STEADYFS_CALL_UNMOUNT, 0, t0, rc);
            emerg += T.fs.stats.catch_up;
            t0 = T.dev.now_ns;
            rc = steadyfs_mount(&T.fs, &T.cfg);
            check_call(STEADYFS_CALL_MOUNT, 0, t0, rc);
            if (rc && !T.fs.dead)
                break;
        }
    }
    printf("%s%s: %llu calls, %llu power cuts, %u catch-up collections; per call kind, the "
           "call closest to its own bound: measured/bound (ms, worst timing):", profile, fill_permille ? " (filled)" : "",
           (unsigned long long)calls, (unsigned long long)cuts, emerg + T.fs.stats.catch_up);
    for (k = 0; k < STEADYFS_CALL_COUNT; k++)
        if (top_b[k]) {
            printf(" %s %.2f/%.2f", steadyfs_call_name((steadyfs_call)k), top_dt[k] / 1e6,
                   top_b[k] / 1e6);
            top_dt[k] = top_b[k] = 0;
        }
    printf("\n");
    steadyfs_unmount(&T.fs);
    tdev_close(&T);
    calls = 0;
}

/* steadyfs_bound_without (`steady bound --explain`): with no part left out
 * it is steadyfs_bound, leaving a part out never raises a bound or a
 * guarantee, leaving all out is at most any one left out, and an unknown
 * part is refused; on each default device, every call kind and the
 * guarantee of four record kinds. */
static void parts_apart(const char *profile)
{
    static const uint32_t kinds[] = {0, STEADYFS_RECORD_DSYNC, STEADYFS_RECORD_DSYNC | STEADYFS_RECORD_ALIGNED,
                                     STEADYFS_RECORD_ALIGNED};
    uint32_t call, part, k;
    uint64_t full, one, all, c0, d0, c1, d1, ca, da;
    steadyfs_cost a, b;
    steady_fmt ring = {0, 0, 0, 0, 8, 2, 0};
    const sim_profile *p = sim_profile_find(profile);
    steadyfs_config cfg;
    CHECK(p != NULL);
    if (!p)
        return;
    memset(&cfg, 0, sizeof cfg);
    cfg.open_max = 1;
    for (call = 0; call < STEADYFS_CALL_COUNT; call++) {
        const steady_fmt *f = call == STEADYFS_CALL_RING_APPEND || call == STEADYFS_CALL_RING_READ ? &ring : NULL;
        uint64_t n = call == STEADYFS_CALL_READ || call == STEADYFS_CALL_WRITE || call == STEADYFS_CALL_WRITE_SYNC ||
                             call == STEADYFS_CALL_WRITE_DSYNC || call == STEADYFS_CALL_RING_APPEND
                         ? 4096u : 2u;
        full = steady_fs_bound_ns_fmt(profile, (int)call, n, SIM_WORST, f);
        CHECK_EQ(steady_fs_bound_ns_without(profile, (int)call, n, SIM_WORST, f, 0), full);
        all = steady_fs_bound_ns_without(profile, (int)call, n, SIM_WORST, f, STEADYFS_PARTS_ALL);
        CHECK(all <= full && (all > 0) == (full > 0));   /* (0: info, seek, closedir) */
        for (part = 1; part <= STEADYFS_PARTS_ALL; part <<= 1) {
            one = steady_fs_bound_ns_without(profile, (int)call, n, SIM_WORST, f, part);
            CHECK(one >= all && one <= full);
        }
    }
    /* the counts themselves, part by part, for the record a logger makes */
    CHECK_EQ(steadyfs_bound(&cfg, &p->geo, STEADYFS_CALL_WRITE_SYNC, 4096, &a), 0);
    CHECK_EQ(steadyfs_bound_without(&cfg, &p->geo, STEADYFS_CALL_WRITE_SYNC, 4096, 0, &b), 0);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    for (part = 1; part <= STEADYFS_PARTS_ALL; part <<= 1) {
        CHECK_EQ(steadyfs_bound_without(&cfg, &p->geo, STEADYFS_CALL_WRITE_SYNC, 4096, part, &b), 0);
        CHECK(b.reads <= a.reads && b.progs <= a.progs && b.erases <= a.erases);
    }
    CHECK_EQ(steadyfs_bound_without(&cfg, &p->geo, STEADYFS_CALL_WRITE_SYNC, 4096, STEADYFS_PARTS_ALL + 1u, &b),
             STEADYFS_EINVAL);
    CHECK_EQ(steadyfs_guarantee_without(&cfg, &p->geo, 4096, 0, 64u, &a, &b), STEADYFS_EINVAL);
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        CHECK_EQ(steady_fs_guarantee_ns_kind(profile, 4096, 0, SIM_WORST, kinds[k], NULL, &c0, &d0, NULL), 0);
        CHECK_EQ(steady_fs_guarantee_ns_without(profile, 4096, SIM_WORST, kinds[k], NULL, 0, &c1, &d1), 0);
        CHECK_EQ(c1, c0);
        CHECK_EQ(d1, d0);
        CHECK_EQ(steady_fs_guarantee_ns_without(profile, 4096, SIM_WORST, kinds[k], NULL, STEADYFS_PARTS_ALL,
                                                &ca, &da), 0);
        CHECK(ca > 0 && ca <= c0);
        for (part = 1; part <= STEADYFS_PARTS_ALL; part <<= 1) {
            CHECK_EQ(steady_fs_guarantee_ns_without(profile, 4096, SIM_WORST, kinds[k], NULL, part, &c1, &d1), 0);
            CHECK(c1 >= ca && c1 <= c0);
        }
    }
}

int main(void)
{
    const char *env = getenv("STEADYFS_BOUND_CALLS");
    uint64_t n = env ? strtoull(env, NULL, 0) : 100000;
    parts_apart("mt29f1g01");
    parts_apart("mt25q128");
    parts_apart("em064lx");
    run("mt29f1g01", 48, n * 6 / 10, 0, 0);
    run("mt25q128", 512, n * 2 / 10, 0, 0);
    run("em064lx", 32, n * 2 / 10, 0, 0);
    /* near the fill limit, power cut every few hundred programs */
    run("mt29f1g01", 48, n * 3 / 10, 700, 300);
    run("mt25q128", 512, n * 1 / 10, 700, 300);
    run("em064lx", 32, n * 1 / 10, 700, 300);
    /* with the held sector: every call against the bound that counts it */
    with_hold = 1;
    run("mt29f1g01", 48, n * 2 / 10, 700, 300);
    run("em064lx", 32, n * 1 / 10, 700, 300);
    with_hold = 0;
    printf("largest measured/bound ratio: %.3f\n", (double)worst_ratio_num / (double)worst_ratio_den);
    return check_done("test_fs_bound");
}
