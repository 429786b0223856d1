/* Fault injection: torn program/erase determinism for a seed, power-cut
 * state, MRAM torn writes, wear-out and random program/erase failures,
 * reads that return no bytes. */
#include "check.h"
#include "sim_fixture.h"

static uint8_t buf[2048], back[2048];

/* Program pages until the cut; returns the number of successful programs. */
static int cut_run(fixture *f, uint64_t fseed, uint64_t after)
{
    sim_faults fl;
    int n = 0, rc;
    uint32_t p;
    memset(&fl, 0, sizeof fl);
    fl.seed = fseed;
    fl.powercut_after = after;
    sim_set_faults(&f->d, &fl);
    memset(buf, 0x00, sizeof buf);
    for (p = 0; p < 64; p++) {
        rc = sbd_prog(&f->d.bd, 8, p * 2048, buf, 2048, NULL, 0);
        if (rc)
            return rc == SBD_ERR_POWER ? n : -1;
        n++;
    }
    return n;
}

static uint32_t zero_bits(const uint8_t *p, uint32_t n)
{
    uint32_t z = 0, i, k;
    for (i = 0; i < n; i++)
        for (k = 0; k < 8; k++)
            z += !(p[i] >> k & 1u);
    return z;
}

static void test_torn_program(void)
{
    fixture a, b, c;
    uint32_t z;
    CHECK_EQ(fx_open(&a, "mt29f1g01", 32, SIM_TYPICAL, 5), 0);
    CHECK_EQ(fx_open(&b, "mt29f1g01", 32, SIM_TYPICAL, 5), 0);
    CHECK_EQ(fx_open(&c, "mt29f1g01", 32, SIM_TYPICAL, 5), 0);
    CHECK_EQ(cut_run(&a, 77, 10), 9);
    CHECK_EQ(cut_run(&b, 77, 10), 9);
    CHECK_EQ(cut_run(&c, 78, 10), 9);
    /* same seed: identical image bytes; different seed: different */
    CHECK(memcmp(a.img, b.img, (size_t)a.len) == 0);
    CHECK(memcmp(a.img, c.img, (size_t)a.len) != 0);
    /* the torn page is partly programmed: some, not all, bits cleared */
    CHECK_EQ(sbd_read(&a.d.bd, 8, 9 * 2048, back, 2048, NULL, 0), SBD_ERR_POWER);
    sim_power_restore(&a.d);
    CHECK_EQ(sbd_read(&a.d.bd, 8, 9 * 2048, back, 2048, NULL, 0), 0);
    z = zero_bits(back, 2048);
    CHECK(z > 2048 * 8 / 4 && z < 2048 * 8 * 3 / 4);
    /* the page before is whole, the one after untouched */
    CHECK_EQ(sbd_read(&a.d.bd, 8, 8 * 2048, back, 2048, NULL, 0), 0);
    CHECK_EQ(zero_bits(back, 2048), 2048 * 8);
    CHECK_EQ(sbd_read(&a.d.bd, 8, 10 * 2048, back, 2048, NULL, 0), 0);
    CHECK_EQ(zero_bits(back, 2048), 0);
    /* power-cut state: every op refused until restore, counted once */
    CHECK_EQ(b.d.stats.power_cuts, 1);
    CHECK_EQ(sbd_erase(&b.d.bd, 9, 1), SBD_ERR_POWER);
    CHECK_EQ(sbd_sync(&b.d.bd), SBD_ERR_POWER);
    CHECK_EQ(sbd_prog(&b.d.bd, 9, 0, buf, 512, NULL, 0), SBD_ERR_POWER);
    CHECK_EQ(b.d.stats.power_cuts, 1);
    sim_power_restore(&b.d);
    CHECK_EQ(sbd_erase(&b.d.bd, 9, 1), 0);
    /* the torn page was programmed once (NOP counts it) */
    CHECK_EQ(sbd_prog(&b.d.bd, 8, 9 * 2048, buf, 512, NULL, 0), SBD_ERR_RULE);
    fx_close(&a);
    fx_close(&b);
    fx_close(&c);
}

static void test_torn_erase(void)
{
    fixture a, b;
    sim_faults fl;
    uint32_t z;
    memset(&fl, 0, sizeof fl);
    CHECK_EQ(fx_open(&a, "mt29f1g01", 32, SIM_TYPICAL, 5), 0);
    CHECK_EQ(fx_open(&b, "mt29f1g01", 32, SIM_TYPICAL, 5), 0);
    memset(buf, 0, sizeof buf);
    CHECK_EQ(sbd_prog(&a.d.bd, 8, 0, buf, 2048, NULL, 0), 0);
    CHECK_EQ(sbd_prog(&b.d.bd, 8, 0, buf, 2048, NULL, 0), 0);
    fl.seed = 3;
    fl.powercut_after = 1;
    sim_set_faults(&a.d, &fl);
    sim_set_faults(&b.d, &fl);
    CHECK_EQ(sbd_erase(&a.d.bd, 8, 1), SBD_ERR_POWER);
    CHECK_EQ(sbd_erase(&b.d.bd, 8, 1), SBD_ERR_POWER);
    CHECK(memcmp(a.img, b.img, (size_t)a.len) == 0);
    sim_power_restore(&a.d);
    CHECK_EQ(sbd_read(&a.d.bd, 8, 0, back, 2048, NULL, 0), 0);
    z = zero_bits(back, 2048);
    CHECK(z > 0 && z < 2048 * 8);        /* partly erased */
    CHECK_EQ(sim_erase_count(&a.d, 8), 1);
    /* counting restarts at power-up: the next op would be cut again */
    fl.powercut_after = 0;
    sim_set_faults(&a.d, &fl);
    /* not erased: the page still counts as programmed */
    CHECK_EQ(sbd_prog(&a.d.bd, 8, 0, buf, 2048, NULL, 0), SBD_ERR_RULE);
    CHECK_EQ(sbd_erase(&a.d.bd, 8, 1), 0);
    CHECK_EQ(sbd_prog(&a.d.bd, 8, 0, buf, 2048, NULL, 0), 0);
    fx_close(&a);
    fx_close(&b);
}

static void test_mram_torn(void)
{
    fixture a, b;
    sim_faults fl;
    uint32_t i, n = 0;
    memset(&fl, 0, sizeof fl);
    CHECK_EQ(fx_open(&a, "em064lx", 0, SIM_TYPICAL, 5), 0);
    CHECK_EQ(fx_open(&b, "em064lx", 0, SIM_TYPICAL, 5), 0);
    fl.seed = 4;
    fl.powercut_after = 2;
    sim_set_faults(&a.d, &fl);
    sim_set_faults(&b.d, &fl);
    memset(buf, 0x12, sizeof buf);
    CHECK_EQ(sbd_prog(&a.d.bd, 1, 0, buf, 2048, NULL, 0), 0);
    CHECK_EQ(sbd_prog(&b.d.bd, 1, 0, buf, 2048, NULL, 0), 0);
    memset(buf, 0x34, sizeof buf);
    CHECK_EQ(sbd_prog(&a.d.bd, 1, 0, buf, 2048, NULL, 0), SBD_ERR_POWER);
    CHECK_EQ(sbd_prog(&b.d.bd, 1, 0, buf, 2048, NULL, 0), SBD_ERR_POWER);
    CHECK(memcmp(a.img, b.img, (size_t)a.len) == 0);
    sim_power_restore(&a.d);
    CHECK_EQ(sbd_read(&a.d.bd, 1, 0, back, 2048, NULL, 0), 0);
    /* a prefix of the new bytes, then the old ones */
    while (n < 2048 && back[n] == 0x34)
        n++;
    for (i = n; i < 2048; i++)
        CHECK_EQ(back[i], 0x12);
    CHECK(n < 2048);
    fx_close(&a);
    fx_close(&b);
}

static void test_wear(void)
{
    fixture f;
    sim_faults fl;
    uint32_t i;
    memset(&fl, 0, sizeof fl);
    CHECK_EQ(fx_open(&f, "mt29f1g01", 32, SIM_TYPICAL, 5), 0);
    fl.wear_limit = 3;
    sim_set_faults(&f.d, &fl);
    for (i = 0; i < 3; i++)
        CHECK_EQ(sbd_erase(&f.d.bd, 9, 1), 0);
    CHECK_EQ(sim_erase_count(&f.d, 9), 3);
    /* worn out: program and erase report failure */
    memset(buf, 0, sizeof buf);
    CHECK_EQ(sbd_prog(&f.d.bd, 9, 0, buf, 2048, NULL, 0), SBD_ERR_PROG);
    CHECK_EQ(sbd_erase(&f.d.bd, 9, 1), SBD_ERR_ERASE);
    /* other blocks are fine */
    CHECK_EQ(sbd_prog(&f.d.bd, 10, 0, buf, 2048, NULL, 0), 0);
    /* the profile's endurance is the default limit; ~0u never wears out */
    fl.wear_limit = 0xFFFFFFFFu;
    sim_set_faults(&f.d, &fl);
    CHECK_EQ(sbd_erase(&f.d.bd, 9, 1), 0);
    /* random failures */
    fl.wear_limit = 0;
    fl.fail_ppm = 1000000;
    sim_set_faults(&f.d, &fl);
    CHECK_EQ(sbd_prog(&f.d.bd, 11, 0, buf, 2048, NULL, 0), SBD_ERR_PROG);
    CHECK_EQ(sbd_erase(&f.d.bd, 11, 1), SBD_ERR_ERASE);
    fx_close(&f);
}

/* Reads that return no bytes (SBD_ERR_IO) in bursts of 1..read_io_burst:
 * every read of the device, each medium; counted in the stats; none at 0,
 * where the other faults' draws stay as they were. */
static void test_read_io(void)
{
    static const char *devs[] = {"mt29f1g01", "mt25q128", "em064lx"};
    uint8_t spare[64];
    unsigned d;
    for (d = 0; d < 3; d++) {
        fixture f;
        sim_faults fl;
        uint32_t i, failed = 0, run = 0, longest = 0;
        CHECK_EQ(fx_open(&f, devs[d], 32, SIM_TYPICAL, 7), 0);
        memset(&fl, 0, sizeof fl);
        fl.seed = 3;
        fl.read_io_ppm = 100000;   /* a burst starts at one read in ten */
        fl.read_io_burst = 4;
        sim_set_faults(&f.d, &fl);
        for (i = 0; i < 2000; i++) {
            int rc = sbd_read(&f.d.bd, 1, 0, buf, 256, f.d.bd.geo.spare_size ? spare : NULL,
                              f.d.bd.geo.spare_size ? 16u : 0u);
            CHECK(rc == SBD_ERR_IO || rc >= 0);
            failed += rc == SBD_ERR_IO;
            run = rc == SBD_ERR_IO ? run + 1u : 0u;
            longest = run > longest ? run : longest;
        }
        CHECK_EQ(f.d.stats.read_errors, failed);
        /* about 2000 x (0.1 x 2.5) / (1 + 0.1 x 2.5) = 400 reads in bursts of 1-4 */
        CHECK(failed > 250 && failed < 550);
        CHECK(longest >= 2 && longest <= 8);
        fl.read_io_ppm = 0;
        sim_set_faults(&f.d, &fl);
        for (i = 0; i < 200; i++)
            CHECK(sbd_read(&f.d.bd, 1, 0, buf, 256, NULL, 0) >= 0);
        CHECK_EQ(f.d.stats.read_errors, failed);
        fx_close(&f);
    }
}

int main(void)
{
    test_read_io();
    test_torn_program();
    test_torn_erase();
    test_mram_torn();
    test_wear();
    return check_done("test_sim_faults");
}
