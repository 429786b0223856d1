/* The SPI NAND driver (src/drivers/spinand.c) against the command-level chip
 * model (src/bd/spinand_sim.c): init, data and spare, partial programs and
 * NOP, erase, ECC status mapping, factory and grown bad blocks, program and
 * erase failures, busy times on the virtual clock, write enable and block
 * lock, power cuts mid-command, and what the model refuses. */
#include "check.h"
#include "spinand_fixture.h"

static uint8_t page[2048], back[2048], sp[62], spb[62], devsp[64];

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 131u + seed * 7u + (i >> 8));
}

static uint32_t good_block(snfx *f, uint32_t from)
{
    while (sbd_is_bad(&f->drv.bd, from) == 1)
        from++;
    return from;
}

static void test_init(void)
{
    snfx f;
    uint8_t v;
    /* power-on: every block locked; ECC off and an OTP mode bit set here, so
     * the driver must turn ECC on and select the main array */
    CHECK_EQ(snfx_chip(&f, 64, SIM_TYPICAL, 1), 0);
    f.chip.config = 0x42;
    CHECK_EQ(f.chip.lock & 0x38, 0x38);
    f.cfg.xfer = sim_spinand_xfer;
    f.cfg.delay_us = sim_spinand_delay_us;
    f.cfg.ctx = &f.chip;
    f.cfg.blocks = 64;
    f.cfg.bad_map = f.map;
    f.cfg.bad_map_words = 1; /* too small for 64 blocks */
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), SBD_ERR_INVAL);
    f.cfg.bad_map_words = 2;
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), 0);
    CHECK_EQ(f.chip.lock, 0);
    CHECK(f.chip.config & SPINAND_CFG_ECC_EN);
    CHECK_EQ(f.chip.config & SPINAND_CFG_MODE, 0);
    CHECK(f.drv.part == &spinand_parts[0]);
    CHECK_EQ(f.drv.bd.geo.page_size, 2048);
    CHECK_EQ(f.drv.bd.geo.spare_size, 62);
    CHECK_EQ(f.drv.bd.geo.pages_per_block, 64);
    CHECK_EQ(f.drv.bd.geo.block_count, 64);
    CHECK_EQ(f.drv.bd.geo.prog_size, 512);
    CHECK_EQ(f.drv.bd.geo.ecc_bits, 8);
    CHECK_EQ(f.drv.bd.geo.nop, 4);
    CHECK_EQ(f.chip.stats.malformed, 0);
    /* READ ID as the chip answers it */
    uint8_t id[2] = {0, 0};
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_READ_ID, 0, 0, 1, NULL, id, 2), 0);
    CHECK_EQ(id[0], 0x2C);
    CHECK_EQ(id[1], 0x14);
    /* another chip: refused */
    f.chip.id[1] = 0x24;
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), SBD_ERR_INVAL);
    f.chip.id[1] = 0x14;
    /* more blocks than the part has: refused */
    f.cfg.blocks = 2048;
    f.cfg.bad_map_words = 64;
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), SBD_ERR_INVAL);
    (void)v;
    snfx_close(&f);
}

static void test_data_and_spare(int quad)
{
    snfx f;
    const sbd *bd;
    uint32_t b, i;
    int rc;

    CHECK_EQ(snfx_open(&f, 64, SIM_TYPICAL, 3, quad), 0);
    bd = &f.drv.bd;
    b = good_block(&f, 9);
    /* erased reads */
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, spb, 62), 0);
    for (i = 0; i < 2048 && back[i] == 0xFF; i++) {}
    CHECK_EQ(i, 2048);
    for (i = 0; i < 62 && spb[i] == 0xFF; i++) {}
    CHECK_EQ(i, 62);
    /* a page with spare, read back through the driver */
    fill(page, 2048, 1);
    fill(sp, 62, 2);
    CHECK_EQ(sbd_prog(bd, b, 2048, page, 2048, sp, 62), 0);
    memset(back, 0, sizeof back);
    CHECK_EQ(sbd_read(bd, b, 2048, back, 2048, spb, 62), 0);
    CHECK(memcmp(page, back, 2048) == 0);
    CHECK(memcmp(sp, spb, 62) == 0);
    /* and through the device directly: same bytes, the caller's spare at the
     * device's spare byte 0 (host tools read driver-written images) */
    memset(back, 0, sizeof back);
    CHECK_EQ(sbd_read(&f.dev.bd, b, 2048, back, 2048, devsp, 64), 0);
    CHECK(memcmp(page, back, 2048) == 0);
    CHECK(memcmp(sp, devsp, 62) == 0);
    CHECK_EQ(devsp[62], 0xFF); /* the marker bytes: untouched */
    CHECK_EQ(devsp[63], 0xFF);
    /* unaligned reads, across a page boundary */
    fill(page, 2048, 5);
    CHECK_EQ(sbd_prog(bd, b, 4096, page, 2048, NULL, 0), 0);
    CHECK_EQ(sbd_read(bd, b, 2048 + 2000, back, 100, NULL, 0), 0);
    fill(devsp, 64, 1); /* page 1's first bytes, recomputed */
    {
        uint8_t want[100];
        uint8_t p1[2048];
        fill(p1, 2048, 1);
        memcpy(want, p1 + 2000, 48);
        memcpy(want + 48, page, 52);
        CHECK(memcmp(back, want, 100) == 0);
    }
    /* a spare-only read */
    CHECK_EQ(sbd_read(bd, b, 2048, NULL, 0, spb, 10), 0);
    CHECK(memcmp(sp, spb, 10) == 0);

    /* partial programs: 4 x 512 B on one page, the 5th breaks NOP: the chip
     * reports P_FAIL, the model counts the rule broken */
    fill(page, 2048, 9);
    for (i = 0; i < 4; i++)
        CHECK_EQ(sbd_prog(bd, b, 6 * 2048 + i * 512, page + i * 512, 512, NULL, 0), 0);
    CHECK_EQ(sbd_read(bd, b, 6 * 2048, back, 2048, NULL, 0), 0);
    CHECK(memcmp(page, back, 2048) == 0);
    CHECK_EQ(f.chip.stats.rule_violations, 0);
    rc = sbd_prog(bd, b, 6 * 2048, page, 512, NULL, 0);
    CHECK_EQ(rc, SBD_ERR_PROG);
    CHECK_EQ(f.chip.stats.rule_violations, 1);
    CHECK_EQ(f.drv.stats.prog_fails, 1);
    /* alignment and range, refused before any SPI traffic */
    uint64_t x0 = f.chip.stats.xfers;
    CHECK_EQ(sbd_prog(bd, b, 100, page, 512, NULL, 0), SBD_ERR_RANGE);
    CHECK_EQ(sbd_prog(bd, b, 8192, page, 4096, sp, 8), SBD_ERR_RANGE);
    CHECK_EQ(sbd_read(bd, 64, 0, back, 16, NULL, 0), SBD_ERR_RANGE);
    CHECK_EQ(sbd_read(bd, b, 0, back, 16, spb, 63), SBD_ERR_RANGE);
    CHECK_EQ(sbd_erase(bd, b, 2), SBD_ERR_RULE);
    CHECK_EQ(f.chip.stats.xfers, x0);

    /* erase: erased again, counted on the device */
    CHECK_EQ(sim_erase_count(&f.dev, b), 0);
    CHECK_EQ(sbd_erase(bd, b, 1), 0);
    CHECK_EQ(sim_erase_count(&f.dev, b), 1);
    CHECK_EQ(sbd_read(bd, b, 2048, back, 2048, spb, 62), 0);
    for (i = 0; i < 2048 && back[i] == 0xFF; i++) {}
    CHECK_EQ(i, 2048);
    CHECK_EQ(spb[0], 0xFF);
    CHECK_EQ(sbd_sync(bd), 0);
    CHECK_EQ(f.chip.stats.malformed, 0);
    CHECK_EQ(f.chip.stats.ignored, 0);
    snfx_close(&f);
}

/* Bit errors injected on the device; the driver's return value is the top
 * of the range the chip's status field reports for that count. */
static void test_ecc_mapping(void)
{
    static const struct {
        uint32_t flips;
        int want;        /* driver's read result */
        uint8_t eccs;    /* status bits 6..4 */
    } c[] = {{0, 0, 0}, {1, 3, 1}, {3, 3, 1}, {4, 6, 3}, {6, 6, 3}, {7, 8, 5}, {8, 8, 5},
             {9, SBD_ERR_ECC, 2}, {12, SBD_ERR_ECC, 2}};
    snfx f;
    const sbd *bd;
    uint32_t b, k, before;

    CHECK_EQ(snfx_open(&f, 64, SIM_TYPICAL, 4, 0), 0);
    bd = &f.drv.bd;
    b = good_block(&f, 10);
    for (k = 0; k < sizeof c / sizeof c[0]; k++) {
        int direct;
        CHECK_EQ(sbd_erase(bd, b, 1), 0);
        fill(page, 2048, k);
        CHECK_EQ(sbd_prog(bd, b, 0, page, 2048, NULL, 0), 0);
        if (c[k].flips)
            CHECK_EQ(sim_flip_bits(&f.dev, b, 0, c[k].flips), 0);
        /* the device's own verdict, the oracle the chip's field encodes */
        direct = sbd_read(&f.dev.bd, b, 0, back, 2048, NULL, 0);
        CHECK_EQ(direct < 0 ? direct : (direct > 0 ? 1 : 0),
                 c[k].want < 0 ? c[k].want : (c[k].want > 0 ? 1 : 0));
        before = f.drv.stats.ecc_uncorrectable;
        CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), c[k].want);
        CHECK_EQ((snfx_status(&f) >> 4) & 7, c[k].eccs);
        if (c[k].want >= 0)
            CHECK(memcmp(page, back, 2048) == 0);
        else
            CHECK(memcmp(page, back, 2048) != 0); /* the raw bytes, as bd.h says */
        CHECK_EQ(f.drv.stats.ecc_uncorrectable - before, c[k].want < 0 ? 1 : 0);
    }
    /* ECC_EN cleared behind the driver's back: the field stays 000 */
    f.chip.config = 0;
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), 0);
    snfx_close(&f);
}

static void test_bad_blocks(void)
{
    snfx f;
    uint64_t seed;
    uint32_t b, nbad = 0, agree = 1;
    uint8_t v;

    /* a seed whose formatted device has factory bad blocks */
    for (seed = 1; seed < 200; seed++) {
        CHECK_EQ(snfx_open(&f, 64, SIM_TYPICAL, seed, 0), 0);
        if (f.drv.stats.scan_bad)
            break;
        snfx_close(&f);
    }
    CHECK(seed < 200);
    if (seed >= 200)
        return;
    for (b = 0; b < 64; b++) {
        int dev_bad = sbd_is_bad(&f.dev.bd, b), drv_bad = sbd_is_bad(&f.drv.bd, b);
        agree &= dev_bad == drv_bad;
        nbad += (uint32_t)drv_bad;
    }
    CHECK(agree);
    CHECK_EQ(nbad, f.drv.stats.scan_bad);
    for (b = 0; b < 64 && sbd_is_bad(&f.drv.bd, b) != 1; b++) {}
    CHECK(b < 64);
    /* the mark as the chip shows it: spare byte 0 of page 0 is 00h */
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_PAGE_READ, 3, b * 64, 0, NULL, NULL, 0), 0);
    sim_spinand_delay_us(&f.chip, 100);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_READ_CACHE_FAST, 2, 2048, 1, NULL, &v, 1), 0);
    CHECK_EQ(v, 0x00);
    /* the driver never programs or erases it */
    uint64_t x0 = f.chip.stats.xfers;
    CHECK_EQ(sbd_erase(&f.drv.bd, b, 1), SBD_ERR_BAD_BLOCK);
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 512, NULL, 0), SBD_ERR_BAD_BLOCK);
    CHECK_EQ(f.chip.stats.xfers, x0);
    /* the chip itself fails an erase of it (E_FAIL) */
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_WRITE_ENABLE, 0, 0, 0, NULL, NULL, 0), 0);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_BLOCK_ERASE, 3, b * 64, 0, NULL, NULL, 0), 0);
    sim_spinand_delay_us(&f.chip, 20000);
    CHECK(snfx_status(&f) & SPINAND_ST_E_FAIL);

    /* grown: mark_bad, then a power cycle and a new scan still finds it */
    b = good_block(&f, 12);
    fill(page, 2048, 3);
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 2048, sp, 62), 0);
    CHECK_EQ(sbd_is_bad(&f.drv.bd, b), 0);
    CHECK_EQ(sbd_mark_bad(&f.drv.bd, b), 0);
    CHECK_EQ(sbd_is_bad(&f.drv.bd, b), 1);
    CHECK_EQ(sbd_is_bad(&f.dev.bd, b), 1); /* the image agrees */
    sim_spinand_power_cut(&f.chip);
    CHECK_EQ(sbd_read(&f.drv.bd, 0, 0, back, 16, NULL, 0), SBD_ERR_POWER);
    sim_spinand_power_restore(&f.chip);
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), 0);
    CHECK_EQ(sbd_is_bad(&f.drv.bd, b), 1);
    CHECK_EQ(f.drv.stats.scan_bad, nbad + 1);
    snfx_close(&f);
}

static void test_failures(void)
{
    snfx f;
    sim_faults fl;
    uint32_t b;

    CHECK_EQ(snfx_open(&f, 64, SIM_TYPICAL, 6, 0), 0);
    b = good_block(&f, 20);
    memset(&fl, 0, sizeof fl);
    fl.fail_ppm = 1000000; /* every program and erase fails */
    sim_set_faults(&f.dev, &fl);
    fill(page, 2048, 4);
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 2048, NULL, 0), SBD_ERR_PROG);
    CHECK(snfx_status(&f) & SPINAND_ST_P_FAIL);
    CHECK_EQ(sbd_erase(&f.drv.bd, b, 1), SBD_ERR_ERASE);
    CHECK(snfx_status(&f) & SPINAND_ST_E_FAIL);
    CHECK_EQ(f.drv.stats.prog_fails, 1);
    CHECK_EQ(f.drv.stats.erase_fails, 1);
    /* wear-out: a block past the wear limit fails, others do not */
    fl.fail_ppm = 0;
    fl.wear_limit = 1;
    sim_set_faults(&f.dev, &fl);
    CHECK_EQ(sbd_erase(&f.drv.bd, b + 1, 1), 0); /* erase count 1 now */
    CHECK_EQ(sbd_erase(&f.drv.bd, b + 1, 1), SBD_ERR_ERASE);
    CHECK(snfx_status(&f) & SPINAND_ST_E_FAIL);
    CHECK_EQ(sbd_prog(&f.drv.bd, b + 2, 0, page, 2048, NULL, 0), 0);
    /* each fail bit clears when its kind of operation starts again */
    CHECK(!(snfx_status(&f) & SPINAND_ST_P_FAIL));
    CHECK_EQ(sbd_erase(&f.drv.bd, b + 3, 1), 0);
    CHECK(!(snfx_status(&f) & SPINAND_ST_E_FAIL));
    snfx_close(&f);
}

/* Busy times on the virtual clock, from the profile and the timing mode. */
static void test_timing(void)
{
    snfx f;
    const sim_profile *p = sim_profile_find("mt29f1g01");
    uint64_t t0, dt, single, quad;
    uint32_t b;

    CHECK_EQ(snfx_open(&f, 64, SIM_WORST, 7, 0), 0);
    b = good_block(&f, 20);
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_erase(&f.drv.bd, b, 1), 0);
    dt = f.dev.now_ns - t0;
    CHECK(dt >= p->t_erase.max_ns);            /* worst: tBERS max */
    CHECK(dt <= p->t_erase.max_ns + 20000);     /* + a few polls */
    t0 = f.dev.now_ns;
    fill(page, 2048, 1);
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 2048, NULL, 0), 0);
    dt = f.dev.now_ns - t0;
    CHECK(dt >= p->t_prog.max_ns);
    CHECK(dt <= p->t_prog.max_ns + 20000 + 2048u * 8u * 1000000000ull / p->bus.hz);
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_read(&f.drv.bd, b, 0, back, 2048, NULL, 0), 0);
    single = f.dev.now_ns - t0;
    CHECK(single >= p->t_read.max_ns + 2048u * 8u * 1000000000ull / p->bus.hz);
    snfx_close(&f);

    CHECK_EQ(snfx_open(&f, 64, SIM_WORST, 7, 1), 0);
    b = good_block(&f, 20);
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 2048, NULL, 0), 0);
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_read(&f.drv.bd, b, 0, back, 2048, NULL, 0), 0);
    quad = f.dev.now_ns - t0;
    CHECK(memcmp(page, back, 2048) == 0);
    CHECK(quad < single); /* x4 data phase */
    CHECK(quad >= p->t_read.max_ns + 2048u * 2u * 1000000000ull / p->bus.hz);

    /* the file system's bounds price a device operation with the profile
     * (sim_cost_op_ns); the driver's page operations on the model, polls
     * and extra transactions included, stay within those prices */
    fill(sp, 62, 3);
    CHECK_EQ(sbd_erase(&f.drv.bd, b + 1, 1), 0);
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_erase(&f.drv.bd, b + 1, 1), 0);
    CHECK(f.dev.now_ns - t0 <= sim_cost_op_ns(p, SIM_OP_ERASE, 0, 1, 0, SIM_WORST, 1));
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_prog(&f.drv.bd, b + 1, 0, page, 2048, sp, 62), 0);
    CHECK(f.dev.now_ns - t0 <= sim_cost_op_ns(p, SIM_OP_PROG, 0, 2048, 62, SIM_WORST, 1));
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_prog(&f.drv.bd, b + 1, 2048 + 512, page, 512, NULL, 0), 0);
    CHECK(f.dev.now_ns - t0 <= sim_cost_op_ns(p, SIM_OP_PROG, 512, 512, 0, SIM_WORST, 1));
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_read(&f.drv.bd, b + 1, 0, back, 2048, spb, 62), 0);
    CHECK(f.dev.now_ns - t0 <= sim_cost_op_ns(p, SIM_OP_READ, 0, 2048, 62, SIM_WORST, 1));
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_read(&f.drv.bd, b + 1, 0, NULL, 0, spb, 32), 0);
    CHECK(f.dev.now_ns - t0 <= sim_cost_op_ns(p, SIM_OP_READ, 0, 0, 32, SIM_WORST, 1));
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_read(&f.drv.bd, b + 1, 1000, back, 2048, NULL, 0), 0);
    CHECK(f.dev.now_ns - t0 <= sim_cost_op_ns(p, SIM_OP_READ, 1000, 2048, 0, SIM_WORST, 1));

    /* OIP by hand: set by PAGE READ for tR, everything but GET FEATURE
     * ignored meanwhile */
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_PAGE_READ, 3, b * 64, 0, NULL, NULL, 0), 0);
    CHECK(snfx_status(&f) & SPINAND_ST_OIP);
    uint64_t ign = f.chip.stats.ignored;
    uint8_t v = 0;
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_READ_CACHE_FAST, 2, 0, 1, NULL, &v, 1), 0);
    CHECK_EQ(f.chip.stats.ignored, ign + 1);
    sim_spinand_delay_us(&f.chip, (uint32_t)(p->t_read.max_ns / 1000u));
    CHECK(!(snfx_status(&f) & SPINAND_ST_OIP));
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_READ_CACHE_FAST, 2, 0, 1, NULL, &v, 1), 0);
    CHECK_EQ(v, page[0]);

    /* typical mode: within the jitter band around typical */
    snfx_close(&f);
    CHECK_EQ(snfx_open(&f, 64, SIM_TYPICAL, 7, 0), 0);
    b = good_block(&f, 20);
    t0 = f.dev.now_ns;
    CHECK_EQ(sbd_erase(&f.drv.bd, b, 1), 0);
    dt = f.dev.now_ns - t0;
    CHECK(dt >= p->t_erase.typ_ns * 95 / 100);
    CHECK(dt <= p->t_erase.typ_ns * 105 / 100 + 20000);
    snfx_close(&f);
}

/* A chip that never finishes: the driver gives up, it does not hang. */
static int stuck_xfer(void *ctx, const spinand_op *op)
{
    snfx *f = ctx;
    if (op->cmd == SPINAND_CMD_GET_FEATURE && op->addr == SPINAND_FEAT_STATUS && f->chip.powered) {
        int rc = sim_spinand_xfer(&f->chip, op);
        op->rx[0] |= SPINAND_ST_OIP;
        return rc;
    }
    return sim_spinand_xfer(&f->chip, op);
}

static void stuck_delay(void *ctx, uint32_t us)
{
    snfx *f = ctx;
    sim_spinand_delay_us(&f->chip, us);
}

static void test_stuck_and_protocol(void)
{
    snfx f;
    uint32_t b;
    uint8_t v[4];
    CHECK_EQ(snfx_open(&f, 64, SIM_TYPICAL, 8, 0), 0);
    b = good_block(&f, 20);
    f.drv.cfg.xfer = stuck_xfer;
    f.drv.cfg.delay_us = stuck_delay;
    f.drv.cfg.ctx = &f;
    uint64_t t0 = f.dev.now_ns;
    CHECK_EQ(sbd_erase(&f.drv.bd, b, 1), SBD_ERR_IO);
    /* gave up after 2 x tBERS max + 1 ms of delays, not before; the polls'
     * own bus time (~0.2 us each, one per 5 us) comes on top */
    CHECK(f.dev.now_ns - t0 >= 2u * 10000000u + 1000000u);
    CHECK(f.dev.now_ns - t0 <= (2u * 10000000u + 1000000u) * 105u / 100u);
    f.drv.cfg.delay_us = NULL;
    CHECK_EQ(sbd_read(&f.drv.bd, b, 0, back, 16, NULL, 0), SBD_ERR_IO);
    f.drv.cfg.xfer = sim_spinand_xfer;
    f.drv.cfg.delay_us = sim_spinand_delay_us;
    f.drv.cfg.ctx = &f.chip;

    /* write enable: PROGRAM EXECUTE without it is ignored, the page stays erased */
    uint64_t ign = f.chip.stats.ignored;
    sim_spinand_delay_us(&f.chip, 30000);
    fill(page, 2048, 2);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_PROG_LOAD, 2, 0, 0, page, NULL, 2048), 0);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_PROG_EXEC, 3, (b + 1) * 64, 0, NULL, NULL, 0), 0);
    CHECK_EQ(f.chip.stats.ignored, ign + 1);
    CHECK(!(snfx_status(&f) & SPINAND_ST_OIP));
    CHECK_EQ(sbd_read(&f.drv.bd, b + 1, 0, back, 16, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    /* block lock: with BP bits set, a program fails with P_FAIL */
    v[0] = 0x38;
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_SET_FEATURE, 1, SPINAND_FEAT_LOCK, 0, v, NULL, 1), 0);
    CHECK_EQ(sbd_prog(&f.drv.bd, b + 1, 0, page, 2048, NULL, 0), SBD_ERR_PROG);
    CHECK_EQ(sbd_read(&f.drv.bd, b + 1, 0, back, 16, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), 0); /* unlocks again */
    CHECK_EQ(sbd_prog(&f.drv.bd, b + 1, 0, page, 2048, NULL, 0), 0);

    /* malformed transactions: refused and counted */
    uint64_t bad = f.chip.stats.malformed;
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_PAGE_READ, 2, 0, 0, NULL, NULL, 0), SBD_ERR_INVAL);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_READ_CACHE_FAST, 2, 0, 0, NULL, v, 4), SBD_ERR_INVAL);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_GET_FEATURE, 1, 0x55, 0, NULL, v, 1), SBD_ERR_INVAL);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_PAGE_READ, 3, 64 * 64, 0, NULL, NULL, 0), SBD_ERR_INVAL);
    CHECK_EQ(snfx_op(&f, 0x5A, 0, 0, 0, NULL, NULL, 0), SBD_ERR_INVAL);
    CHECK_EQ(snfx_op(&f, SPINAND_CMD_PROG_LOAD, 2, 2100, 0, page, NULL, 2048), SBD_ERR_INVAL);
    CHECK_EQ(f.chip.stats.malformed, bad + 6);
    snfx_close(&f);
}

/* Power cuts: at an SPI transaction while a program or an erase is busy
 * (torn), and by the device's own counter (the Nth program/erase). */
static void test_power_cuts(void)
{
    snfx f;
    sim_faults fl;
    uint32_t b, i, zeros = 0, ones = 0;

    CHECK_EQ(snfx_open(&f, 64, SIM_TYPICAL, 9, 0), 0);
    b = good_block(&f, 20);
    memset(page, 0x00, sizeof page);
    /* WE, LOAD, EXECUTE, then the first status poll cuts power: torn */
    f.chip.cut_after_xfers = f.chip.stats.xfers + 4;
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 2048, NULL, 0), SBD_ERR_POWER);
    CHECK_EQ(f.dev.stats.power_cuts, 1);
    CHECK_EQ(sbd_read(&f.drv.bd, b, 0, back, 16, NULL, 0), SBD_ERR_POWER);
    CHECK_EQ(sbd_erase(&f.drv.bd, b, 1), SBD_ERR_POWER);
    sim_spinand_power_restore(&f.chip);
    f.chip.cut_after_xfers = 0;
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), 0);
    (void)sbd_read(&f.drv.bd, b, 0, back, 2048, NULL, 0);
    sbd_read(&f.dev.bd, b, 0, back, 2048, NULL, 0); /* raw view, ECC aside */
    for (i = 0; i < 2048; i++) {
        zeros += back[i] == 0x00;
        ones += back[i] == 0xFF;
    }
    /* some bits programmed, not all: neither erased nor complete */
    CHECK(zeros < 2048);
    CHECK(ones < 2048);

    /* a cut while loading (no operation busy): nothing changes on the array */
    b = good_block(&f, b + 1);
    f.chip.cut_after_xfers = f.chip.stats.xfers + 2;
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 2048, NULL, 0), SBD_ERR_POWER);
    sim_spinand_power_restore(&f.chip);
    f.chip.cut_after_xfers = 0;
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), 0);
    CHECK_EQ(sbd_read(&f.drv.bd, b, 0, back, 2048, NULL, 0), 0);
    for (i = 0; i < 2048 && back[i] == 0xFF; i++) {}
    CHECK_EQ(i, 2048);

    /* mid-erase: a programmed block comes back partly erased */
    fill(page, 2048, 11);
    for (i = 0; i < 64; i++)
        CHECK_EQ(sbd_prog(&f.drv.bd, b, i * 2048, page, 2048, NULL, 0), 0);
    f.chip.cut_after_xfers = f.chip.stats.xfers + 3; /* WE, ERASE, first poll */
    CHECK_EQ(sbd_erase(&f.drv.bd, b, 1), SBD_ERR_POWER);
    sim_spinand_power_restore(&f.chip);
    f.chip.cut_after_xfers = 0;
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), 0);
    {
        uint32_t erased = 0, p;
        for (p = 0; p < 64; p++) {
            sbd_read(&f.dev.bd, b, p * 2048, back, 2048, NULL, 0);
            erased += memcmp(back, page, 2048) != 0;
        }
        CHECK(erased > 0);    /* the erase did something ... */
        CHECK(sim_erase_count(&f.dev, b) >= 1);
    }

    /* the device's own counter: the 1st program from now is torn */
    memset(&fl, 0, sizeof fl);
    fl.powercut_after = 1;
    sim_set_faults(&f.dev, &fl);
    b = good_block(&f, b + 1);
    CHECK_EQ(sbd_prog(&f.drv.bd, b, 0, page, 2048, NULL, 0), SBD_ERR_POWER);
    CHECK_EQ(f.dev.stats.power_cuts, 4);
    sim_spinand_power_restore(&f.chip);
    sim_set_faults(&f.dev, NULL);
    CHECK_EQ(spinand_init(&f.drv, &f.cfg), 0);
    CHECK_EQ(f.chip.stats.malformed, 0);
    snfx_close(&f);
}

int main(void)
{
    test_init();
    test_data_and_spare(0);
    test_data_and_spare(1);
    test_ecc_mapping();
    test_bad_blocks();
    test_failures();
    test_timing();
    test_stuck_and_protocol();
    test_power_cuts();
    return check_done("test_spinand");
}
