/* NOR model rules: bits only go 1 -> 0, byte-granular repeated programs,
 * 4 KiB and 32 KiB subsector and 64 KiB sector erase granularity. */
#include "check.h"
#include "sim_fixture.h"

int main(void)
{
    fixture f;
    const sbd *bd;
    uint8_t buf[4096], back[4096];
    uint32_t i;

    CHECK_EQ(fx_open(&f, "mt25q128", 64, SIM_TYPICAL, 1), 0);
    bd = &f.d.bd;
    CHECK_EQ(bd->geo.page_size, 256);
    CHECK_EQ(bd->geo.pages_per_block, 16);
    CHECK_EQ(bd->geo.big_erase_blocks, 16);
    CHECK_EQ(bd->geo.mid_erase_blocks, 8);
    CHECK_EQ(bd->geo.prog_size, 1);
    CHECK_EQ(bd->geo.spare_size, 0);

    CHECK_EQ(sbd_read(bd, 3, 0, back, 4096, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    CHECK_EQ(back[4095], 0xFF);
    /* byte-granular programs, any offset, many times: 1 -> 0 is fine */
    buf[0] = 0xF0;
    CHECK_EQ(sbd_prog(bd, 3, 7, buf, 1, NULL, 0), 0);
    buf[0] = 0x30;
    CHECK_EQ(sbd_prog(bd, 3, 7, buf, 1, NULL, 0), 0);
    CHECK_EQ(sbd_read(bd, 3, 7, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], 0x30);
    /* 0 -> 1 is refused and changes nothing */
    buf[0] = 0x31;
    CHECK_EQ(sbd_prog(bd, 3, 7, buf, 1, NULL, 0), SBD_ERR_RULE);
    CHECK_EQ(sbd_read(bd, 3, 7, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], 0x30);
    /* a multi-byte program with one offending byte changes nothing */
    memset(buf, 0x00, 16);
    buf[0] = 0xFF;
    CHECK_EQ(sbd_prog(bd, 3, 7, buf, 16, NULL, 0), SBD_ERR_RULE);
    CHECK_EQ(sbd_read(bd, 3, 8, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    /* programs across 256 B pages within the block */
    for (i = 0; i < 4096; i++)
        buf[i] = (uint8_t)(i * 13);
    CHECK_EQ(sbd_prog(bd, 4, 100, buf, 1000, NULL, 0), 0);
    CHECK_EQ(sbd_read(bd, 4, 100, back, 1000, NULL, 0), 0);
    CHECK(memcmp(buf, back, 1000) == 0);
    /* ... but not across a block */
    CHECK_EQ(sbd_prog(bd, 4, 4000, buf, 200, NULL, 0), SBD_ERR_RANGE);

    /* subsector erase: one block */
    CHECK_EQ(sbd_erase(bd, 3, 1), 0);
    CHECK_EQ(sbd_read(bd, 3, 7, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    CHECK_EQ(sbd_read(bd, 4, 100, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], buf[0]);           /* the neighbour is untouched */
    /* sector erase: 16 blocks aligned to 16 */
    CHECK_EQ(sbd_erase(bd, 0, 16), 0);
    CHECK_EQ(sbd_read(bd, 4, 100, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    for (i = 0; i < 16; i++)
        CHECK_EQ(sim_erase_count(&f.d, i), i == 3 ? 2 : 1);
    CHECK_EQ(sim_erase_count(&f.d, 16), 0);
    /* granularity violations */
    CHECK_EQ(sbd_erase(bd, 8, 16), SBD_ERR_RULE);
    CHECK_EQ(sbd_erase(bd, 4, 8), SBD_ERR_RULE);   /* 32 KiB not aligned to 32 KiB */
    CHECK_EQ(sbd_erase(bd, 0, 2), SBD_ERR_RULE);
    CHECK_EQ(sbd_erase(bd, 0, 32), SBD_ERR_RULE);
    CHECK_EQ(sbd_erase(bd, 60, 16), SBD_ERR_RANGE);
    CHECK_EQ(sbd_erase(bd, 64, 1), SBD_ERR_RANGE);
    CHECK_EQ(sbd_erase(bd, 0, 0), SBD_ERR_RANGE);
    /* timing: the big erase takes the 64 KiB sector time, not 16 subsectors */
    CHECK_EQ(sbd_erase(bd, 16, 16), 0);
    CHECK(f.d.last_ns >= 150000000ull * 95 / 100 && f.d.last_ns <= 150000000ull * 105 / 100 + 30000);
    CHECK_EQ(sbd_erase(bd, 16, 1), 0);
    CHECK(f.d.last_ns >= 50000000ull * 95 / 100 && f.d.last_ns <= 50000000ull * 105 / 100 + 30000);
    /* 32 KiB subsector erase: 8 blocks aligned to 8, its own time, only
     * those blocks erased */
    buf[0] = 0x00;
    CHECK_EQ(sbd_prog(bd, 32, 0, buf, 1, NULL, 0), 0);
    CHECK_EQ(sbd_prog(bd, 40, 0, buf, 1, NULL, 0), 0);
    CHECK_EQ(sbd_erase(bd, 32, 8), 0);
    CHECK(f.d.last_ns >= 100000000ull * 95 / 100 && f.d.last_ns <= 100000000ull * 105 / 100 + 30000);
    CHECK_EQ(sbd_read(bd, 32, 0, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    CHECK_EQ(sbd_read(bd, 40, 0, back, 1, NULL, 0), 0);
    CHECK_EQ(back[0], 0x00);            /* the next 32 KiB is untouched */
    for (i = 32; i < 48; i++)
        CHECK_EQ(sim_erase_count(&f.d, i), i < 40 ? 1 : 0);
    CHECK_EQ(sim_cost_ns(sim_profile_find("mt25q128"), SIM_OP_ERASE, 8, SIM_WORST),
             sim_cost_ns(sim_profile_find("mt25q128"), SIM_OP_ERASE, 16, SIM_WORST));
    /* a block count that breaks whole sectors is refused at init */
    {
        sim_dev d2;
        const sim_profile *p = sim_profile_find("mt25q128");
        CHECK_EQ(sim_init(&d2, p, 40, f.img, f.len, SIM_TYPICAL, 1, 1), SBD_ERR_INVAL);
    }
    fx_close(&f);
    return check_done("test_sim_nor");
}
