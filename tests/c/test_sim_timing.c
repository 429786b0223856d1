/* Timing: durations of a known sequence, computed here independently from
 * the datasheet numbers and the bus shape, in all three modes; determinism
 * for a seed. */
#include "check.h"
#include "sim_fixture.h"

/* QSPI 1-4-4 at 120 MHz: ns for `clocks` clocks, rounded up. */
static uint64_t clk(uint64_t clocks) { return (clocks * 1000000000ull + 119999999ull) / 120000000ull; }

#define HOST 17750ull            /* per-operation host overhead (seed 003 calibration) */
#define NAND_CMD (8 + 2 * 8 / 4) /* command on 1 line + 2 address bytes on 4 lines */

static uint8_t buf[4096];

static void test_nand_worst_sum(void)
{
    fixture f;
    const sbd *bd;
    uint64_t expect = 0, e;

    CHECK_EQ(fx_open(&f, "mt29f1g01", 64, SIM_WORST, 7), 0);
    bd = &f.d.bd;
    /* erase: tBERS max 10 ms */
    CHECK_EQ(sbd_erase(bd, 8, 1), 0);
    e = HOST + clk(NAND_CMD) + 10000000ull;
    CHECK_EQ(f.d.last_ns, e);
    expect += e;
    /* program one page: load 2048 B on 4 lines, execute, tPROG max 600 us */
    memset(buf, 0, sizeof buf);
    CHECK_EQ(sbd_prog(bd, 8, 0, buf, 2048, NULL, 0), 0);
    e = HOST + clk(NAND_CMD + 2048 * 2) + clk(NAND_CMD) + 600000ull;
    CHECK_EQ(f.d.last_ns, e);
    expect += e;
    /* two pages in one call: two page operations */
    CHECK_EQ(sbd_prog(bd, 8, 2048, buf, 4096, NULL, 0), 0);
    e = 2 * (HOST + clk(NAND_CMD + 2048 * 2) + clk(NAND_CMD) + 600000ull);
    CHECK_EQ(f.d.last_ns, e);
    expect += e;
    /* read 100 B with 16 spare bytes: tR 70 us, 4 dummy clocks */
    CHECK_EQ(sbd_read(bd, 8, 300, buf, 100, buf + 200, 16), 0);
    e = HOST + clk(NAND_CMD) + 70000ull + clk(NAND_CMD + 4 + 116 * 2);
    CHECK_EQ(f.d.last_ns, e);
    expect += e;
    /* sync on a simulated device: free */
    CHECK_EQ(sbd_sync(bd), 0);
    CHECK_EQ(f.d.last_ns, 0);
    CHECK_EQ(f.d.now_ns, expect);
    /* the cost functions give the same numbers */
    CHECK_EQ(sim_cost_ns(f.d.prof, SIM_OP_ERASE, 1, SIM_WORST), HOST + clk(NAND_CMD) + 10000000ull);
    CHECK_EQ(sim_cost_ns(f.d.prof, SIM_OP_PROG, 4096, SIM_WORST), 2 * (HOST + clk(NAND_CMD + 4096) + clk(NAND_CMD) + 600000ull));
    CHECK_EQ(sim_cost_op_ns(f.d.prof, SIM_OP_READ, 300, 100, 16, SIM_WORST, 1), HOST + clk(NAND_CMD) + 70000ull + clk(NAND_CMD + 4 + 116 * 2));
    /* nominal typical: tPROG 220 us, tBERS 2 ms, tR 70 us */
    CHECK_EQ(sim_cost_ns(f.d.prof, SIM_OP_PROG, 2048, SIM_TYPICAL), HOST + clk(NAND_CMD + 4096) + clk(NAND_CMD) + 220000ull);
    CHECK_EQ(sim_cost_ns(f.d.prof, SIM_OP_ERASE, 1, SIM_TYPICAL), HOST + clk(NAND_CMD) + 2000000ull);
    /* typical bound: top of the +-5 % band */
    CHECK_EQ(sim_cost_bound_ns(f.d.prof, SIM_OP_ERASE, 1, SIM_TYPICAL), HOST + clk(NAND_CMD) + 2100000ull);
    CHECK_EQ(sim_cost_bound_ns(f.d.prof, SIM_OP_ERASE, 1, SIM_TAIL), HOST + clk(NAND_CMD) + 10000000ull);
    fx_close(&f);
}

static void test_nor_sum(void)
{
    fixture f;
    const sbd *bd;
    uint64_t e;
    CHECK_EQ(fx_open(&f, "mt25q128", 32, SIM_WORST, 7), 0);
    bd = &f.d.bd;
    /* 300 B from offset 200: pages split at 256: 56 + 244 bytes */
    memset(buf, 0, sizeof buf);
    CHECK_EQ(sbd_prog(bd, 1, 200, buf, 300, NULL, 0), 0);
    e = 2 * HOST + clk(8 + 6 + 56 * 2) + clk(8 + 6 + 244 * 2) + 2 * 1800000ull;
    CHECK_EQ(f.d.last_ns, e);
    /* read streams in one command with 10 dummy clocks, no array time */
    CHECK_EQ(sbd_read(bd, 1, 0, buf, 4096, NULL, 0), 0);
    CHECK_EQ(f.d.last_ns, HOST + clk(8 + 6 + 10 + 4096 * 2));
    CHECK_EQ(sbd_erase(bd, 16, 16), 0);
    CHECK_EQ(f.d.last_ns, HOST + clk(8 + 6) + 1000000000ull);
    fx_close(&f);
}

/* Typical mode: every array time in the +-5 % band; tail: about tail_ppm
 * of them at max; both deterministic for a seed. */
static void run_seq(sim_timing t, uint64_t seed, uint64_t *durs, uint32_t n)
{
    fixture f;
    uint32_t i;
    CHECK_EQ(fx_open(&f, "mt29f1g01", 64, t, seed), 0);
    memset(buf, 0, sizeof buf);
    for (i = 0; i < n; i++) {
        uint32_t page = i % 64, block = 8 + (i / 64) % 32;
        if (page == 0)
            CHECK_EQ(sbd_erase(&f.d.bd, block, 1), 0);
        CHECK_EQ(sbd_prog(&f.d.bd, block, page * 2048, buf, 2048, NULL, 0), 0);
        durs[i] = f.d.last_ns;
    }
    fx_close(&f);
}

static uint64_t a[20000], b[20000];

static void test_modes(void)
{
    const uint64_t bus = HOST + clk(NAND_CMD + 4096) + clk(NAND_CMD);
    uint32_t i, at_max = 0, differ = 0, inband = 0;
    uint64_t sum = 0;

    run_seq(SIM_TYPICAL, 11, a, 20000);
    run_seq(SIM_TYPICAL, 11, b, 20000);
    for (i = 0; i < 20000; i++) {
        CHECK_EQ(a[i], b[i]);
        inband += a[i] >= bus + 209000 && a[i] <= bus + 231000;
        sum += a[i] - bus;
    }
    CHECK_EQ(inband, 20000);
    /* the mean of the band is the datasheet typical (within 0.2 %) */
    CHECK(sum / 20000 > 219560 && sum / 20000 < 220440);
    run_seq(SIM_TYPICAL, 12, b, 20000);
    for (i = 0; i < 20000; i++)
        differ += a[i] != b[i];
    CHECK(differ > 15000);

    run_seq(SIM_TAIL, 11, a, 20000);
    for (i = 0; i < 20000; i++) {
        at_max += a[i] == bus + 600000;
        CHECK(a[i] == bus + 600000 || (a[i] >= bus + 209000 && a[i] <= bus + 231000));
    }
    /* 1000 ppm of 20000 = 20 expected */
    CHECK(at_max >= 5 && at_max <= 45);

    run_seq(SIM_WORST, 11, a, 2000);
    for (i = 0; i < 2000; i++)
        CHECK_EQ(a[i], bus + 600000);
}

int main(void)
{
    test_nand_worst_sum();
    test_nor_sum();
    test_modes();
    return check_done("test_sim_timing");
}
