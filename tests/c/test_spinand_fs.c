/* The file system through the SPI NAND driver and the chip model: API use
 * (files, directories, rename, truncate, remount, a power cycle of the
 * chip, data near the device's ECC limit), the image then mounted on the
 * device directly (what the host tools do with a board's image), and the
 * power-loss torture with cuts at program/erase and at SPI transactions. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host/torture.h"
#include "spinand_fixture.h"
#include "steadyfs/steadyfs.h"

static snfx F;
static steadyfs fs;
static steadyfs_config cfg;
static void *work;
static uint8_t sector[4096];

static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

static int put(const char *path, const uint8_t *d, uint32_t n)
{
    int fd = steadyfs_open(&fs, path, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
    if (fd < 0)
        return fd;
    if (steadyfs_write(&fs, fd, d, n) != (int32_t)n) {
        steadyfs_close(&fs, fd);
        return -1;
    }
    return steadyfs_close(&fs, fd);
}

/* 1 if path holds exactly d[0..n) */
static int same(const char *path, const uint8_t *d, uint32_t n)
{
    static uint8_t b[40000];
    int fd = steadyfs_open(&fs, path, STEADYFS_O_RDONLY), r;
    if (fd < 0)
        return 0;
    r = steadyfs_read(&fs, fd, b, sizeof b);
    steadyfs_close(&fs, fd);
    return r == (int)n && !memcmp(b, d, n);
}

static void setup_cfg(const sbd *bd)
{
    uint32_t ws;
    memset(&cfg, 0, sizeof cfg);
    cfg.bd = bd;
    cfg.open_max = 4;
    ws = steadyfs_work_size(&cfg);
    free(work);
    work = calloc(1, ws);
    cfg.work = work;
    cfg.work_size = ws;
    cfg.sector_buf = sector;
    cfg.sector_buf_size = sizeof sector;
}

static void test_api(void)
{
    static uint8_t a[30000], b[5000];
    uint32_t k;
    steadyfs_info info;

    CHECK_EQ(snfx_open(&F, 64, SIM_TYPICAL, 21, 1), 0);
    setup_cfg(&F.drv.bd);
    CHECK_EQ(steadyfs_format(&fs, &cfg), 0);
    CHECK_EQ(steadyfs_mount(&fs, &cfg), 0);
    fill(a, sizeof a, 1);
    fill(b, sizeof b, 2);
    CHECK_EQ(steadyfs_mkdir(&fs, "/logs"), 0);
    CHECK_EQ(put("/logs/a.bin", a, sizeof a), 0);
    CHECK_EQ(put("/logs/b.bin", b, sizeof b), 0);
    for (k = 0; k < 20; k++) {
        char name[32];
        snprintf(name, sizeof name, "/logs/f%u", k);
        CHECK_EQ(put(name, a + k * 100, 1000 + k * 37), 0);
    }
    CHECK_EQ(steadyfs_rename(&fs, "/logs/b.bin", "/b.moved"), 0);
    CHECK_EQ(steadyfs_unlink(&fs, "/logs/f3"), 0);
    {
        int fd = steadyfs_open(&fs, "/logs/f4", STEADYFS_O_RDWR);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_truncate(&fs, fd, 10), 0);
        CHECK_EQ(steadyfs_close(&fs, fd), 0);
    }
    CHECK(same("/logs/a.bin", a, sizeof a));
    CHECK(same("/b.moved", b, sizeof b));
    CHECK_EQ(steadyfs_unmount(&fs), 0);

    /* a power cycle of the chip: the driver starts again from the marks */
    sim_spinand_power_cut(&F.chip);
    sim_spinand_power_restore(&F.chip);
    CHECK_EQ(spinand_init(&F.drv, &F.cfg), 0);
    CHECK_EQ(steadyfs_mount(&fs, &cfg), 0);
    CHECK(same("/logs/a.bin", a, sizeof a));
    CHECK(same("/b.moved", b, sizeof b));
    CHECK(same("/logs/f4", a + 400, 10));
    CHECK(!same("/logs/f3", a + 300, 1000 + 3 * 37));
    CHECK(same("/logs/f19", a + 1900, 1000 + 19 * 37));
    CHECK_EQ(steadyfs_info_get(&fs, &info), 0);
    CHECK(info.used > sizeof a);

    /* bit errors close to the ECC limit on every written page: the chip
     * reports 7-8, the driver 8, and everything still mounts and reads right */
    uint32_t blk, pg, flipped = 0;
    CHECK_EQ(steadyfs_unmount(&fs), 0);
    for (blk = 0; blk < 64; blk++) {
        if (sbd_is_bad(&F.drv.bd, blk) == 1)
            continue;
        for (pg = 0; pg < 64; pg++) {
            uint8_t t[16];
            if (sbd_read(&F.dev.bd, blk, pg * 2048, t, 16, NULL, 0) == 0 && t[0] != 0xFF &&
                sim_flip_bits(&F.dev, blk, pg, 7) == 0)
                flipped++;
        }
    }
    CHECK(flipped > 0);
    uint32_t corrected0 = F.drv.stats.ecc_corrected;
    CHECK_EQ(steadyfs_mount(&fs, &cfg), 0);
    CHECK(same("/logs/a.bin", a, sizeof a));
    CHECK(same("/b.moved", b, sizeof b));
    for (k = 0; k < 20; k++) {
        char name[32];
        snprintf(name, sizeof name, "/logs/f%u", k);
        if (k != 3 && k != 4)
            CHECK(same(name, a + k * 100, 1000 + k * 37));
    }
    CHECK(F.drv.stats.ecc_corrected > corrected0);
    CHECK_EQ(steadyfs_unmount(&fs), 0);

    /* the same image mounted on the device directly, as `steady fsck` and
     * `steady cat` do with a board's image */
    setup_cfg(&F.dev.bd);
    CHECK_EQ(steadyfs_mount(&fs, &cfg), 0);
    CHECK(same("/logs/a.bin", a, sizeof a));
    CHECK(same("/b.moved", b, sizeof b));
    CHECK(same("/logs/f4", a + 400, 10));
    CHECK_EQ(steadyfs_unmount(&fs), 0);
    CHECK_EQ(F.chip.stats.malformed, 0);
    CHECK_EQ(F.chip.stats.ignored, 0);
    CHECK_EQ(F.chip.stats.rule_violations, 0);
    snfx_close(&F);
}

static void test_torture(void)
{
    unsigned s;
    for (s = 0; s < 3; s++) {
        steady_torture_opts o = {0};
        steady_torture_result r;
        o.device = "mt29f1g01";
        o.seed = 2000 + s;
        o.ops = 2000;
        o.powercut_every = 1;
        o.faults = 1;
        o.spinand = 1;
        CHECK_EQ(steady_torture_run(&o, &r, stdout), 0);
        CHECK_EQ(r.failures, 0);
        CHECK(r.cuts >= 20);
        CHECK(r.checks >= 200);
        CHECK(r.xfers > 10000);
        CHECK_EQ(r.xfer_malformed, 0);
        CHECK_EQ(r.xfer_ignored, 0);
    }
    /* the replay line a failure prints reruns the same kind of run */
    {
        steady_torture_opts o = {0};
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        o.device = "mt29f1g01";
        o.seed = 7;
        o.powercut_every = 1;
        o.faults = 1;
        o.spinand = 1;
        steady_torture_replay(&o, 40, f);
        fclose(f);
        CHECK(buf && !strcmp(buf, "replay: steady torture --device mt29f1g01 --seed 7 --ops 40 "
                                  "--powercut every --spinand\n"));
        free(buf);
    }
    /* --spinand is for the SPI NAND part only */
    {
        steady_torture_opts o = {0};
        steady_torture_result r;
        FILE *null = fopen("/dev/null", "w");
        o.device = "mt25q128";
        o.seed = 1;
        o.ops = 10;
        o.spinand = 1;
        CHECK(steady_torture_run(&o, &r, null ? null : stdout) != 0);
        if (null)
            fclose(null);
    }
}

int main(void)
{
    test_api();
    test_torture();
    free(work);
    return check_done("test_spinand_fs");
}
