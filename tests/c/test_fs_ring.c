/* The record ring (format 15, steadyfs.h "The record ring", DESIGN.md §13).
 *
 * On each medium (mt29f1g01, mt25q128, em064lx; small devices, a ring of
 * RING_UNITS units of 4 KiB records):
 *   - appends of every length from 1 byte to a whole record, three laps of
 *     the ring, with a file written and synced between some of them: each
 *     append timed in worst timing against steadyfs_bound (ring_append, its
 *     length), every window of appends against the ring guarantee's
 *     n c + d, every read against its bound; the span ([first, next)) as
 *     documented, every record in it read back exact, the ones before it
 *     ENOENT; after a remount the same, the file intact, fsck clean;
 *   - a power cut at each program and erase of a stream of appends that
 *     crosses unit ends and wraps (NOR: an even sample): after it, every
 *     acknowledged record the span holds reads back exact, the one in
 *     flight exact or ENOENT, the next number is the acknowledged count or
 *     one more, new appends work, fsck clean;
 *   - random program and erase failures on NAND: units go bad, records move
 *     on, nothing acknowledged is lost, across a remount. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "read_errors.h"
#include "host/fs_bound.h"
#include "fs/fs_internal.h"

#define RING_UNITS 6u
#define RING_K 2u

static tdev T;
static uint8_t rec[8192], got[8192];
static uint32_t max_len;   /* RING_K * payload */

static void setup(const char *dev, uint32_t blocks, uint64_t seed, uint32_t units)
{
    steadyfs_info info;
    CHECK_EQ(tdev_open(&T, dev, blocks, seed), 0);
    T.cfg.open_max = 1;
    T.cfg.ring_units = (uint16_t)units;
    T.cfg.ring_sectors = RING_K;
    T.cfg.work_size = steadyfs_work_size(&T.cfg);
    CHECK(T.cfg.work_size > 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_info_get(&T.fs, &info), 0);
    max_len = RING_K * info.data_per_sector;
}

/* Record n: its length (every length turns up, whole records often) and bytes. */
static uint32_t rec_len(uint64_t n)
{
    uint32_t x = (uint32_t)(n * 2654435761u >> 7);
    return n % 3 == 0 ? max_len : 1u + x % max_len;
}

static void rec_fill(uint8_t *b, uint64_t n, uint32_t len)
{
    uint32_t i;
    for (i = 0; i < len; i++)
        b[i] = (uint8_t)(n * 131u + i * 7u + (i >> 8));
}

/* Record n reads back exact: 1, or 0 (and a message). */
static int rec_ok(uint64_t n, const char *when)
{
    uint32_t len = rec_len(n);
    int32_t rc = steadyfs_ring_read(&T.fs, n, got, sizeof got);
    rec_fill(rec, n, len);
    if (rc != (int32_t)len || memcmp(got, rec, len)) {
        fprintf(stderr, "%s: record %llu: read gives %d, wants %u bytes%s\n", when,
                (unsigned long long)n, rc, len, rc == (int32_t)len ? " (content differs)" : "");
        return 0;
    }
    return 1;
}

/* Parts of record n (steadyfs_ring_read_at) at offsets around its sector
 * edges, exact: the number of parts that were not. */
static uint32_t parts_bad(uint64_t n)
{
    uint32_t len = rec_len(n), pay = max_len / RING_K, k, bad = 0;
    const uint32_t offs[] = {0, 1, pay - 1, pay, pay + 7, len ? len - 1 : 0, len, len + 3};
    rec_fill(rec, n, len);
    for (k = 0; k < sizeof offs / sizeof offs[0]; k++) {
        uint32_t cap = 1 + (uint32_t)((n * 37u + k * 911u) % (max_len + 9u));
        uint32_t o = offs[k], want = o >= len ? 0 : (len - o < cap ? len - o : cap);
        int32_t rc = steadyfs_ring_read_at(&T.fs, n, o, got, cap);
        if (rc != (int32_t)want || (want && memcmp(got, rec + o, want)))
            bad++;
    }
    return bad;
}

static int append(uint64_t n, uint64_t *got_n)
{
    uint32_t len = rec_len(n);
    rec_fill(rec, n, len);
    return steadyfs_ring_append(&T.fs, rec, len, got_n);
}

/* Every record in the span reads back exact, the ones before it are gone. */
static void check_span(const char *when, uint64_t want_next)
{
    uint64_t first = 0, next = 0, n;
    uint32_t bad = 0;
    CHECK_EQ(steadyfs_ring_span(&T.fs, &first, &next), 0);
    CHECK_EQ(next, want_next);
    for (n = first; n < next; n++)
        bad += !rec_ok(n, when);
    CHECK_EQ(bad, 0);
    if (first)
        CHECK_EQ(steadyfs_ring_read(&T.fs, first - 1, got, sizeof got), STEADYFS_ENOENT);
    CHECK_EQ(steadyfs_ring_read(&T.fs, next, got, sizeof got), STEADYFS_ENOENT);
}

static void laps(const char *dev, uint32_t blocks)
{
    steadyfs_cost cc, dc;
    uint64_t n, total, c, d, b, rb, worst = 0, worst_read = 0, t0, *dt;
    int64_t run = 0, low = 0, excess = INT64_MIN;
    uint32_t rpu, i, fsize = 0;
    int fd;
    setup(dev, blocks, 1, RING_UNITS);
    rpu = T.fs.geo.P / RING_K;
    total = 3ull * RING_UNITS * rpu + rpu / 2u;
    dt = calloc(total, sizeof *dt);
    CHECK(dt != NULL);
    if (!dt)
        return;
    CHECK_EQ(steadyfs_guarantee_of(&T.cfg, &T.dev.bd.geo, max_len, STEADYFS_RECORD_RING, &cc, &dc), 0);
    c = steady_fs_cost_ns(T.dev.prof, &T.cfg, &cc, SIM_WORST);
    d = steady_fs_cost_ns(T.dev.prof, &T.cfg, &dc, SIM_WORST);
    rb = steady_fs_bound_ns(T.dev.prof, &T.cfg, STEADYFS_CALL_RING_READ, 0, SIM_WORST);
    CHECK(c > 0 && rb > 0);
    fd = steadyfs_open(&T.fs, "/f", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    sim_set_timing(&T.dev, SIM_WORST);
    for (n = 0; n < total; n++) {
        uint64_t got_n = ~0ull;
        uint32_t len = rec_len(n);
        b = steady_fs_bound_ns(T.dev.prof, &T.cfg, STEADYFS_CALL_RING_APPEND, len, SIM_WORST);
        t0 = T.dev.now_ns;
        CHECK_EQ(append(n, &got_n), 0);
        dt[n] = T.dev.now_ns - t0;
        CHECK_EQ(got_n, n);
        if (dt[n] > b) {
            fprintf(stderr, "%s: append %llu took %llu ns > bound %llu\n", dev,
                    (unsigned long long)n, (unsigned long long)dt[n], (unsigned long long)b);
            check_failed++;
        }
        if (dt[n] > worst)
            worst = dt[n];
        /* windows: max over j of (S_j - j c) - min over i < j <= d */
        run += (int64_t)dt[n] - (int64_t)c;
        if (run - low > excess)
            excess = run - low;
        if (run < low)
            low = run;
        /* the files go on beside it (outside the windows: only the
         * appends are timed) */
        if (n % 7 == 3 && fd >= 0) {
            rec_fill(rec, n, 3000);
            steadyfs_seek(&T.fs, fd, fsize % 40000u, STEADYFS_SEEK_SET);
            CHECK_EQ(steadyfs_write(&T.fs, fd, rec, 3000), 3000);
            CHECK_EQ(steadyfs_sync(&T.fs, fd), 0);
            if (fsize % 40000u + 3000u > fsize)
                fsize = fsize % 40000u + 3000u;
        }
        if (n % 97 == 0 && n) {
            uint64_t first = 0, next = 0, r;
            CHECK_EQ(steadyfs_ring_span(&T.fs, &first, &next), 0);
            CHECK_EQ(next, n + 1);
            r = first + (n * 7919u) % (next - first);
            CHECK_EQ(parts_bad(r), 0);
            t0 = T.dev.now_ns;
            CHECK(rec_ok(r, dev));
            if (T.dev.now_ns - t0 > worst_read)
                worst_read = T.dev.now_ns - t0;
        }
    }
    CHECK(excess <= (int64_t)d);
    CHECK(worst_read <= rb);
    b = steady_fs_bound_ns(T.dev.prof, &T.cfg, STEADYFS_CALL_RING_APPEND, max_len, SIM_WORST);
    printf("%s: ring of %u units, %u records of up to %u bytes a unit: %llu appends in worst "
           "timing, slowest %.3f ms (bound %.3f ms), slowest read %.3f ms (bound %.3f ms); "
           "guarantee c = %.3f ms, d = %.3f ms, largest window excess over n c %.3f ms\n",
           dev, RING_UNITS, rpu, max_len, (unsigned long long)total, worst / 1e6, b / 1e6,
           worst_read / 1e6, rb / 1e6, c / 1e6, d / 1e6, excess / 1e6);
    sim_set_timing(&T.dev, SIM_TYPICAL);
    check_span(dev, total);
    CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    {
        uint64_t t1 = T.dev.now_ns, mb;
        sim_set_timing(&T.dev, SIM_WORST);
        CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
        mb = steady_fs_bound_ns(T.dev.prof, &T.cfg, STEADYFS_CALL_MOUNT, 0, SIM_WORST);
        CHECK(T.dev.now_ns - t1 <= mb);
        sim_set_timing(&T.dev, SIM_TYPICAL);
    }
    check_span("after a remount", total);
    fd = steadyfs_open(&T.fs, "/f", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    for (i = 0; fd >= 0 && i < fsize; i += 3000u) {
        uint32_t k = fsize - i < 3000u ? fsize - i : 3000u;
        CHECK_EQ(steadyfs_read(&T.fs, fd, got, k), (int)k);
    }
    if (fd >= 0)
        CHECK_EQ(steadyfs_close(&T.fs, fd), 0);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    CHECK_EQ(tdev_fsck(&T, &T.fs, dev), 0);
    free(dt);
    tdev_close(&T);
}

/* A stream of appends until the power goes (or `count` made): the
 * acknowledged count. */
static uint64_t stream(uint64_t from, uint64_t count)
{
    uint64_t n;
    for (n = from; n < from + count; n++)
        if (append(n, NULL))
            break;
    return n;
}

static void cuts(const char *dev, uint32_t blocks)
{
    sim_faults f;
    uint64_t ops, cut, stride, count, acked, first, next;
    uint32_t rpu, checked = 0, in_flight_kept = 0;
    char when[80];
    setup(dev, blocks, 2, 3);
    rpu = T.fs.geo.P / RING_K;
    /* (an earlier lap first: the stream's erases take back full units) */
    count = 3ull * rpu + rpu / 2u;
    CHECK_EQ(stream(0, 4ull * rpu), 4ull * rpu);
    ops = T.dev.pe_ops;
    CHECK_EQ(stream(4ull * rpu, count), 4ull * rpu + count);
    ops = T.dev.pe_ops - ops;
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    tdev_close(&T);
    stride = ops > 300u ? (ops + 299u) / 300u : 1u;
    for (cut = 1; cut <= ops; cut += stride) {
        setup(dev, blocks, 2, 3);
        CHECK_EQ(stream(0, 4ull * rpu), 4ull * rpu);
        memset(&f, 0, sizeof f);
        f.powercut_after = cut;   /* (counted from here: sim_set_faults) */
        sim_set_faults(&T.dev, &f);
        acked = stream(4ull * rpu, count);
        CHECK(T.fs.dead);
        memset(&f, 0, sizeof f);
        sim_set_faults(&T.dev, &f);
        sim_power_restore(&T.dev);
        snprintf(when, sizeof when, "%s, cut at operation %llu", dev, (unsigned long long)cut);
        CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
        CHECK_EQ(steadyfs_ring_span(&T.fs, &first, &next), 0);
        CHECK(next == acked || next == acked + 1);
        for (; first < acked; first++)
            CHECK(rec_ok(first, when));
        if (next == acked + 1) {
            int32_t rc = steadyfs_ring_read(&T.fs, acked, got, sizeof got);
            CHECK(rc == STEADYFS_ENOENT || rec_ok(acked, when));
            in_flight_kept += rc > 0;
        }
        /* and on from there */
        CHECK_EQ(stream(next, rpu + 1u), next + rpu + 1u);
        CHECK(rec_ok(next + rpu, when));
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        CHECK_EQ(tdev_fsck(&T, &T.fs, when), 0);
        tdev_close(&T);
        checked++;
    }
    printf("%s: a stream of %llu appends (%llu programs and erases) cut at every %llu: %u cuts, "
           "the record in flight kept %u times\n", dev, (unsigned long long)count,
           (unsigned long long)ops, (unsigned long long)stride, checked, in_flight_kept);
}

/* A mount whose k-th device read returns no bytes for good (three
 * times: all the media layer's tries), for every k, on a ring two and a
 * half laps on and not unmounted: the mount fails with EIO, or it finds
 * the same span with every record in it exact.  (Until the twenty-ninth
 * session the search for the newest unit took a unit whose first tag
 * could not be read for an unwritten one.) */
static void read_errors_at_mount(const char *dev, uint32_t blocks)
{
    static read_errors re;
    uint64_t first, next, f2, n2, k, reads, n;
    uint32_t rpu, failed = 0, mounted = 0, bad = 0;
    char when[80];
    setup(dev, blocks, 3, 3);
    rpu = T.fs.geo.P / RING_K;
    CHECK_EQ(stream(0, 7ull * rpu + rpu / 2u), 7ull * rpu + rpu / 2u);
    CHECK_EQ(steadyfs_ring_span(&T.fs, &first, &next), 0);
    read_errors_wrap(&re, &T.dev.bd, 3);
    T.cfg.bd = &re.bd;
    read_errors_window(&re, 0, 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    reads = re.reads;
    for (k = 0; k < reads && !bad; k++) {
        int rc;
        read_errors_window(&re, k, 3);
        rc = steadyfs_mount(&T.fs, &T.cfg);
        read_errors_window(&re, 0, 0);
        if (rc == STEADYFS_EIO) {
            failed++;
            continue;
        }
        CHECK_EQ(rc, 0);
        mounted++;
        snprintf(when, sizeof when, "%s, read %llu of a mount failed", dev, (unsigned long long)k);
        CHECK_EQ(steadyfs_ring_span(&T.fs, &f2, &n2), 0);
        bad += f2 != first || n2 != next;
        for (n = f2; n < n2 && !bad; n++)
            bad += !rec_ok(n, when);
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK_EQ(stream(next, 1), next + 1u);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    CHECK_EQ(tdev_fsck(&T, &T.fs, dev), 0);
    printf("%s: a mount of a ring %llu records on whose k-th read failed, for every k of %llu: %u failed "
           "with EIO, %u found the same %llu records\n", dev, (unsigned long long)next,
           (unsigned long long)reads, failed, mounted, (unsigned long long)(next - first));
    tdev_close(&T);
}

/* Power cuts and program/erase failures together (NAND): a unit that
 * fails right before a cut holds the newest records while its successor
 * holds none yet -- mount must not take the end from the good units alone
 * (the checkpoint the failure wrote says where the next record goes).
 * Every acknowledged record the span holds reads back exact, the span
 * goes past the last, fsck clean. */
static void cuts_and_failures(void)
{
    sim_faults f;
    uint64_t cut, first, next, n, *keys, number;
    uint32_t checked = 0, worn = 0, i, units = 6, max = 400;
    char when[80];
    keys = calloc(64ull * 64u, sizeof *keys);
    CHECK(keys != NULL);
    if (!keys)
        return;
    for (cut = 1; cut <= 240; cut++) {
        uint64_t acked_max = 0, appended = 0;
        setup("mt29f1g01", 96, 4, units);
        memset(keys, 0, 64ull * 64u * sizeof *keys);
        memset(&f, 0, sizeof f);
        f.seed = cut;
        f.fail_ppm = 15000;
        f.powercut_after = cut;
        sim_set_faults(&T.dev, &f);
        for (i = 0; i < max; i++) {
            uint32_t len = rec_len(i);
            int rc;
            rec_fill(rec, i, len);
            rc = steadyfs_ring_append(&T.fs, rec, len, &number);
            if (rc == STEADYFS_ENOSPC) {
                worn++;
                break;
            }
            if (rc)
                break;
            CHECK(number < 64ull * 64u);
            if (number >= 64ull * 64u)
                break;
            keys[number] = i + 1;
            acked_max = number + 1;
            appended++;
        }
        memset(&f, 0, sizeof f);
        sim_set_faults(&T.dev, &f);
        sim_power_restore(&T.dev);
        snprintf(when, sizeof when, "cut %llu with failures", (unsigned long long)cut);
        CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
        CHECK_EQ(steadyfs_ring_span(&T.fs, &first, &next), 0);
        if (next < acked_max) {
            fprintf(stderr, "%s: the ring ends at %llu, record %llu was acknowledged\n", when,
                    (unsigned long long)next, (unsigned long long)(acked_max - 1));
            check_failed++;
        }
        for (n = first; n < acked_max; n++) {
            int32_t rc;
            if (!keys[n])
                continue;
            rc = steadyfs_ring_read(&T.fs, n, got, sizeof got);
            rec_fill(rec, keys[n] - 1, rec_len(keys[n] - 1));
            if (rc != (int32_t)rec_len(keys[n] - 1) || memcmp(got, rec, (size_t)rc)) {
                fprintf(stderr, "%s: record %llu reads %d\n", when, (unsigned long long)n, rc);
                check_failed++;
            } else {
                check_passed++;
            }
        }
        CHECK_EQ(steadyfs_unmount(&T.fs), 0);
        CHECK_EQ(tdev_fsck(&T, &T.fs, when), 0);
        tdev_close(&T);
        checked++;
        (void)appended;
    }
    free(keys);
    printf("ring with power cuts and program/erase failures together (15000 ppm): %u cuts, ring "
           "worn out in %u of them\n", checked, worn);
}

/* Random program and erase failures: units go bad, the record moves on to
 * the next unit (its number is its new place), nothing acknowledged is
 * lost, across a remount. */
static void failures(void)
{
    sim_faults f;
    uint64_t i, first, next, gone = 0, number, *key;
    uint32_t rpu, appended = 0, bad = 0, units = 12;
    setup("mt29f1g01", 96, 3, units);
    rpu = T.fs.geo.P / RING_K;
    key = calloc(8ull * units * rpu, sizeof *key);   /* record number -> 1 + the bytes' key */
    CHECK(key != NULL);
    if (!key)
        return;
    memset(&f, 0, sizeof f);
    f.seed = 17;
    f.fail_ppm = 3000;
    sim_set_faults(&T.dev, &f);
    for (i = 0; i < 2ull * units * rpu; i++) {
        uint32_t len = rec_len(i);
        rec_fill(rec, i, len);
        if (steadyfs_ring_append(&T.fs, rec, len, &number))
            break;
        CHECK(number < 8ull * units * rpu);
        if (number >= 8ull * units * rpu)
            break;
        key[number] = i + 1;
        appended++;
    }
    memset(&f, 0, sizeof f);
    sim_set_faults(&T.dev, &f);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_ring_span(&T.fs, &first, &next), 0);
    CHECK(appended > units * rpu);
    for (number = first; number < next; number++) {
        int32_t rc = steadyfs_ring_read(&T.fs, number, got, sizeof got);
        if (!key[number]) {
            gone++;
            CHECK_EQ(rc, STEADYFS_ENOENT);
            continue;
        }
        rec_fill(rec, key[number] - 1, rec_len(key[number] - 1));
        if (rc != (int32_t)rec_len(key[number] - 1) || memcmp(got, rec, (size_t)rc))
            bad++;
    }
    CHECK_EQ(bad, 0);
    for (i = 0, number = 0; i < units; i++)
        number += (T.fs.ring->bad[i / 8] >> (i % 8)) & 1u;
    printf("ring with program/erase failures (%u ppm): %u appends, %llu units bad, %llu numbers "
           "in the span with no record (skipped with the units gone bad)\n", f.fail_ppm ? f.fail_ppm : 3000,
           appended, (unsigned long long)number, (unsigned long long)gone);
    CHECK(number > 0);
    CHECK_EQ(steadyfs_unmount(&T.fs), 0);
    CHECK_EQ(tdev_fsck(&T, &T.fs, "ring with failures"), 0);
    free(key);
    tdev_close(&T);
}

int main(void)
{
    steadyfs_cost c;
    steadyfs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    laps("mt29f1g01", 96);
    laps("mt25q128", 0);
    laps("em064lx", 0);
    cuts("mt29f1g01", 96);
    cuts("em064lx", 0);
    cuts("mt25q128", 0);
    read_errors_at_mount("mt29f1g01", 96);
    read_errors_at_mount("mt25q128", 0);
    read_errors_at_mount("em064lx", 0);
    failures();
    cuts_and_failures();
    /* without a ring: the ring's calls and bounds refuse */
    CHECK_EQ(steadyfs_bound(&cfg, &sim_profile_find("mt29f1g01")->geo, STEADYFS_CALL_RING_APPEND, 4096,
                            &c), STEADYFS_EINVAL);
    return check_done("test_fs_ring");
}
