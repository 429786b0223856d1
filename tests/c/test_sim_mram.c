/* MRAM model: byte rewrites in place, no erase (a free no-op), constant
 * latency per access size (seed 003 calibration). */
#include "check.h"
#include "sim_fixture.h"

int main(void)
{
    fixture f;
    const sbd *bd;
    uint8_t buf[65536], back[65536];
    /* seed 003's measured worst write latency, us, for 2..64 KiB */
    static const double seed003[6] = {52, 86, 154, 291, 564, 1109};
    uint32_t i, k;

    CHECK_EQ(fx_open(&f, "em064lx", 0, SIM_TYPICAL, 1), 0);
    bd = &f.d.bd;
    CHECK_EQ(bd->geo.needs_erase, 0);
    CHECK_EQ(bd->geo.prog_size, 1);
    CHECK_EQ(bd->geo.spare_size, 0);
    CHECK_EQ((uint64_t)sbd_block_size(bd) * bd->geo.block_count, 8u << 20);

    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 31 + 1);
    CHECK_EQ(sbd_prog(bd, 2, 10, buf, 100, NULL, 0), 0);
    /* rewrite: any value over any value */
    memset(buf, 0xA5, 100);
    CHECK_EQ(sbd_prog(bd, 2, 10, buf, 100, NULL, 0), 0);
    CHECK_EQ(sbd_read(bd, 2, 10, back, 100, NULL, 0), 0);
    CHECK(memcmp(buf, back, 100) == 0);
    /* erase is a no-op in zero time, data unchanged */
    {
        uint64_t t = f.d.now_ns;
        CHECK_EQ(sbd_erase(bd, 2, 1), 0);
        CHECK_EQ(f.d.now_ns, t);
        CHECK_EQ(f.d.last_ns, 0);
        CHECK_EQ(sbd_read(bd, 2, 10, back, 100, NULL, 0), 0);
        CHECK(memcmp(buf, back, 100) == 0);
        CHECK_EQ(sim_erase_count(&f.d, 2), 0);
    }
    /* latency: within 1 % of seed 003, identical on every repetition */
    for (k = 0; k < 6; k++) {
        uint32_t len = 2048u << k;
        uint64_t first;
        double us;
        CHECK_EQ(sbd_prog(bd, 5, 0, buf, len, NULL, 0), 0);
        first = f.d.last_ns;
        us = (double)first / 1000.0;
        CHECK(us > seed003[k] * 0.99 && us < seed003[k] * 1.01);
        for (i = 0; i < 20; i++) {
            CHECK_EQ(sbd_prog(bd, 5 + i % 3, 0, buf, len, NULL, 0), 0);
            CHECK_EQ(f.d.last_ns, first);
        }
        CHECK_EQ(sim_cost_ns(f.d.prof, SIM_OP_PROG, len, SIM_WORST), first);
    }
    fx_close(&f);
    return check_done("test_sim_mram");
}
