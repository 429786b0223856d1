/* SD card model: exact data plane; FTL time plane (16 KiB unit, RMW,
 * write cache, AU opens, 250 ms busy cap, stalls), determinism. */
#include "check.h"
#include "sim_fixture.h"

static uint8_t buf[65536], back[65536];

/* duration of one write of `len` bytes at byte address `addr` */
static uint64_t wr(fixture *f, uint64_t addr, uint32_t len)
{
    uint32_t bs = sbd_block_size(&f->d.bd);
    CHECK_EQ(sbd_prog(&f->d.bd, (uint32_t)(addr / bs), (uint32_t)(addr % bs), buf, len, NULL, 0), 0);
    return f->d.last_ns;
}

int main(void)
{
    fixture f, g;
    uint32_t i, over = 0;
    uint64_t t_full, t_rmw, t_app, t, maxd = 0;
    const sim_profile *ind = sim_profile_find("sd-industrial");

    CHECK_EQ(fx_open(&f, "sd-industrial", 256, SIM_TYPICAL, 1), 0);
    CHECK_EQ(f.d.bd.geo.page_size, 512);
    CHECK_EQ(f.d.bd.geo.needs_erase, 0);
    /* data plane: exact, any sector, rewrites allowed */
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7);
    CHECK_EQ(sbd_prog(&f.d.bd, 3, 512, buf, 4096, NULL, 0), 0);
    CHECK_EQ(sbd_read(&f.d.bd, 3, 512, back, 4096, NULL, 0), 0);
    CHECK(memcmp(buf, back, 4096) == 0);
    buf[0] ^= 0xFF;
    CHECK_EQ(sbd_prog(&f.d.bd, 3, 512, buf, 512, NULL, 0), 0);
    CHECK_EQ(sbd_read(&f.d.bd, 3, 512, back, 512, NULL, 0), 0);
    CHECK_EQ(back[0], buf[0]);
    CHECK_EQ(sbd_prog(&f.d.bd, 3, 100, buf, 512, NULL, 0), SBD_ERR_RANGE);
    CHECK_EQ(sbd_read(&f.d.bd, 0, 0, back, 512, NULL, 0), 0);
    CHECK_EQ(back[0], 0);                     /* never written: zeros */
    fx_close(&f);

    /* worst mode: every write takes the 250 ms busy limit plus the bus */
    CHECK_EQ(fx_open(&f, "sd-industrial", 256, SIM_WORST, 1), 0);
    t = wr(&f, 0, 512);
    CHECK(t >= 250000000ull && t < 251000000ull);
    CHECK_EQ(t, sim_cost_ns(ind, SIM_OP_PROG, 512, SIM_WORST));
    fx_close(&f);

    /* time plane, consumer card without jitter noise: compare medians of
     * many writes of each pattern (stalls are rare) */
    CHECK_EQ(fx_open(&f, "sd-industrial", 1024, SIM_TYPICAL, 2), 0);
    /* open the AU once so AU-open time does not enter */
    (void)wr(&f, 0, 512);
    t_full = t_rmw = t_app = 0;
    for (i = 0; i < 64; i++) {
        t_full += wr(&f, 1u << 20 | (uint64_t)i * 16384, 16384);     /* whole units */
    }
    for (i = 0; i < 64; i++)
        t_rmw += wr(&f, (2u << 20) + (uint64_t)i * 16384 * 2 + 4096, 512); /* scattered partial */
    for (i = 0; i < 64; i++)
        t_app += wr(&f, (3u << 20) + (uint64_t)i * 512, 512);           /* sequential appends */
    /* seed 004: a 512 B append costs about as much as a whole 16 KiB unit,
     * a scattered partial write costs more (read-modify-write) */
    CHECK(t_app < t_full);
    CHECK(t_app * 10 > t_full * 6);
    CHECK(t_rmw > t_app + 64 * 500000ull);
    fx_close(&f);

    /* consumer: random stalls, but no command busier than 250 ms */
    CHECK_EQ(fx_open(&f, "sd-consumer", 1024, SIM_TYPICAL, 4), 0);
    CHECK_EQ(fx_open(&g, "sd-consumer", 1024, SIM_TYPICAL, 4), 0);
    for (i = 0; i < 20000; i++) {
        uint64_t a = (uint64_t)(i % 4000) * 512 + (i & 1 ? (32u << 20) : 0);
        uint64_t t1 = wr(&f, a, 512), t2 = wr(&g, a, 512);
        CHECK(t1 == t2);                      /* same seed, same durations */
        if (t1 > 5000000)
            over++;
        if (t1 > maxd)
            maxd = t1;
    }
    CHECK(maxd <= 250000000ull + 100000ull);
    CHECK(maxd > 50000000ull);
    CHECK(over > 20);                          /* 10-30 ms stalls: 0.5 % */
    fx_close(&f);
    fx_close(&g);
    return check_done("test_sim_sd");
}
