/* NAND model rules: program-once / NOP, unchanged bytes, spare, alignment,
 * bad blocks, ECC correction and uncorrectable reads. */
#include "check.h"
#include "sim_fixture.h"

static uint8_t page[2048], back[2048], sp[64], spb[64];

static void test_program_rules(void)
{
    fixture f;
    const sbd *bd;
    uint32_t b, i;

    CHECK_EQ(fx_open(&f, "mt29f1g01", 64, SIM_TYPICAL, 1), 0);
    bd = &f.d.bd;
    CHECK_EQ(bd->geo.page_size, 2048);
    CHECK_EQ(bd->geo.spare_size, 64);
    CHECK_EQ(bd->geo.nop, 4);
    b = fx_good_block(&f, 8);

    /* a never-written page reads erased */
    memset(back, 0, sizeof back);
    CHECK_EQ(sbd_read(bd, b, 2048, back, 2048, spb, 64), 0);
    for (i = 0; i < 2048 && back[i] == 0xFF; i++) {}
    CHECK_EQ(i, 2048);
    CHECK_EQ(spb[0], 0xFF);

    /* program a page with spare, read it back */
    for (i = 0; i < 2048; i++)
        page[i] = (uint8_t)(i * 7 + 3);
    for (i = 0; i < 64; i++)
        sp[i] = (uint8_t)(0xA0 + i);
    CHECK_EQ(sbd_prog(bd, b, 0, page, 2048, sp, 64), 0);
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, spb, 64), 0);
    CHECK(memcmp(page, back, 2048) == 0);
    CHECK(memcmp(sp, spb, 64) == 0);

    /* changing a programmed byte is a rule violation and changes nothing */
    page[100] ^= 0x01;
    CHECK_EQ(sbd_prog(bd, b, 0, page, 512, NULL, 0), SBD_ERR_RULE);
    page[100] ^= 0x01;
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), 0);
    CHECK(memcmp(page, back, 2048) == 0);
    /* writing 0xFF over programmed bytes is allowed (counts as a program) */
    memset(back, 0xFF, 512);
    CHECK_EQ(sbd_prog(bd, b, 512, back, 512, NULL, 0), 0);

    /* NOP: page 1 takes 4 partial programs of 512 B, the 5th is refused */
    memset(page, 0x11, sizeof page);
    for (i = 0; i < 4; i++)
        CHECK_EQ(sbd_prog(bd, b, 2048 + i * 512, page, 512, NULL, 0), 0);
    memset(back, 0xFF, 512);
    CHECK_EQ(sbd_prog(bd, b, 2048, back, 512, NULL, 0), SBD_ERR_RULE);
    /* spare programs count too: page 2, 4 spare-only programs then refused */
    for (i = 0; i < 4; i++) {
        memset(sp, 0xFF, sizeof sp);
        sp[i] = (uint8_t)i;
        CHECK_EQ(sbd_prog(bd, b, 4096, NULL, 0, sp, 64), 0);
    }
    CHECK_EQ(sbd_prog(bd, b, 4096, NULL, 0, sp, 64), SBD_ERR_RULE);
    CHECK_EQ(sbd_read(bd, b, 4096, back, 16, spb, 4), 0);
    CHECK_EQ(spb[0], 0);
    CHECK_EQ(spb[3], 3);

    /* alignment and range */
    CHECK_EQ(sbd_prog(bd, b, 100, page, 512, NULL, 0), SBD_ERR_RANGE);
    CHECK_EQ(sbd_prog(bd, b, 0, page, 100, NULL, 0), SBD_ERR_RANGE);
    CHECK_EQ(sbd_prog(bd, b, 63 * 2048, page, 4096, NULL, 0), SBD_ERR_RANGE);
    CHECK_EQ(sbd_prog(bd, 64, 0, page, 512, NULL, 0), SBD_ERR_RANGE);
    /* spare with an operation spanning two pages */
    CHECK_EQ(sbd_prog(bd, b, 8192, page, 4096, sp, 8), SBD_ERR_RANGE);
    CHECK_EQ(sbd_prog(bd, b, 8192, page, 2048, sp, 65), SBD_ERR_RANGE);
    /* multi-page program without spare is fine */
    memset(page, 0x5A, sizeof page);
    CHECK_EQ(sbd_prog(bd, b, 10 * 2048, page, 2048, NULL, 0), 0);
    CHECK_EQ(sbd_prog(bd, b, 11 * 2048, page, 1024, NULL, 0), 0);

    /* erase: everything erased again, counters reset, erase counted */
    CHECK_EQ(sim_erase_count(&f.d, b), 0);
    CHECK_EQ(sbd_erase(bd, b, 1), 0);
    CHECK_EQ(sim_erase_count(&f.d, b), 1);
    CHECK_EQ(sbd_read(bd, b, 2048, back, 2048, NULL, 0), 0);
    CHECK_EQ(back[0], 0xFF);
    CHECK_EQ(back[2047], 0xFF);
    for (i = 0; i < 4; i++)
        CHECK_EQ(sbd_prog(bd, b, 2048 + i * 512, page, 512, NULL, 0), 0);
    /* NAND has no big erase */
    CHECK_EQ(sbd_erase(bd, 16, 2), SBD_ERR_RULE);
    fx_close(&f);
}

static void test_bad_blocks(void)
{
    fixture f;
    const sbd *bd;
    uint32_t b, nbad = 0, seed_differs = 0;
    uint8_t first[1024];

    CHECK_EQ(fx_open(&f, "mt29f1g01", 0, SIM_TYPICAL, 42), 0);
    bd = &f.d.bd;
    for (b = 0; b < 1024; b++) {
        int r = sbd_is_bad(bd, b);
        CHECK(r == 0 || r == 1);
        first[b] = (uint8_t)r;
        nbad += (uint32_t)r;
        if (b < 8)
            CHECK_EQ(r, 0);   /* blocks 0-7 valid when shipped */
    }
    CHECK(nbad <= 20);
    /* factory bad blocks refuse program and erase */
    for (b = 8; b < 1024 && !first[b]; b++) {}
    if (b < 1024) {
        CHECK_EQ(sbd_prog(bd, b, 0, page, 512, NULL, 0), SBD_ERR_BAD_BLOCK);
        CHECK_EQ(sbd_erase(bd, b, 1), SBD_ERR_BAD_BLOCK);
    }
    /* grown bad: marking is persistent in the image and enforced */
    CHECK_EQ(sbd_is_bad(bd, 5), 0);
    CHECK_EQ(sbd_mark_bad(bd, 5), 0);
    CHECK_EQ(sbd_is_bad(bd, 5), 1);
    CHECK_EQ(sbd_prog(bd, 5, 0, page, 512, NULL, 0), SBD_ERR_BAD_BLOCK);
    CHECK_EQ(sbd_erase(bd, 5, 1), SBD_ERR_BAD_BLOCK);
    {   /* reattach without formatting: the mark survives */
        sim_dev d2;
        CHECK_EQ(sim_init(&d2, f.d.prof, 0, f.img, f.len, SIM_TYPICAL, 42, 0), 0);
        CHECK_EQ(sbd_is_bad(&d2.bd, 5), 1);
    }
    /* the placement depends on the seed (several seeds: some differ) */
    for (uint64_t s = 1; s < 6; s++) {
        fixture g;
        CHECK_EQ(fx_open(&g, "mt29f1g01", 0, SIM_TYPICAL, s), 0);
        for (b = 0; b < 1024; b++)
            if ((uint8_t)sbd_is_bad(&g.d.bd, b) != first[b]) {
                seed_differs++;
                break;
            }
        fx_close(&g);
    }
    CHECK(seed_differs > 0);
    fx_close(&f);
}

static void test_ecc(void)
{
    fixture f;
    const sbd *bd;
    uint32_t b, i, diff;
    sim_faults fl;

    CHECK_EQ(fx_open(&f, "mt29f1g01", 64, SIM_TYPICAL, 3), 0);
    bd = &f.d.bd;
    b = fx_good_block(&f, 8);
    for (i = 0; i < 2048; i++)
        page[i] = (uint8_t)(i ^ 0x3C);
    CHECK_EQ(sbd_prog(bd, b, 0, page, 2048, NULL, 0), 0);
    CHECK_EQ(sbd_prog(bd, b, 2048, page, 2048, NULL, 0), 0);

    /* persistent errors within ECC strength: corrected, counted */
    CHECK_EQ(sim_flip_bits(&f.d, b, 0, 3), 0);
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), 3);
    CHECK(memcmp(back, page, 2048) == 0);
    CHECK_EQ(sim_flip_bits(&f.d, b, 1, 8), 0);
    CHECK_EQ(sbd_read(bd, b, 2048, back, 2048, NULL, 0), 8);
    CHECK(memcmp(back, page, 2048) == 0);
    /* beyond it: SBD_ERR_ECC and the raw (wrong) data */
    CHECK_EQ(sbd_erase(bd, b, 1), 0);
    CHECK_EQ(sbd_prog(bd, b, 0, page, 2048, NULL, 0), 0);
    CHECK_EQ(sim_flip_bits(&f.d, b, 0, 9), 0);
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), SBD_ERR_ECC);
    for (i = 0, diff = 0; i < 2048; i++)
        diff += back[i] != page[i];
    CHECK(diff > 0);
    /* erase clears recorded errors */
    CHECK_EQ(sbd_erase(bd, b, 1), 0);
    CHECK_EQ(sbd_prog(bd, b, 0, page, 2048, NULL, 0), 0);
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), 0);

    /* transient read errors on every codeword: 2 bits corrected */
    memset(&fl, 0, sizeof fl);
    fl.seed = 9;
    fl.flip_ppm = 1000000;
    fl.flip_bits = 2;
    sim_set_faults(&f.d, &fl);
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), 2);
    CHECK(memcmp(back, page, 2048) == 0);
    fl.flip_bits = 9;
    sim_set_faults(&f.d, &fl);
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), SBD_ERR_ECC);
    fl.flip_ppm = 0;
    sim_set_faults(&f.d, &fl);
    CHECK_EQ(sbd_read(bd, b, 0, back, 2048, NULL, 0), 0);
    CHECK(memcmp(back, page, 2048) == 0);
    fx_close(&f);
}

static void test_clock(void)
{
    fixture f;
    uint64_t t0;
    CHECK_EQ(fx_open(&f, "mt29f1g01", 64, SIM_TYPICAL, 1), 0);
    CHECK_EQ(f.d.now_ns, 0);
    CHECK_EQ(sbd_read(&f.d.bd, 8, 0, back, 16, NULL, 0), 0);
    CHECK(f.d.last_ns > 60000);
    t0 = f.d.now_ns;
    CHECK_EQ(t0, f.d.last_ns);
    CHECK_EQ(sbd_erase(&f.d.bd, 8, 1), 0);
    CHECK_EQ(f.d.now_ns, t0 + f.d.last_ns);
    CHECK_EQ(f.d.stats.reads, 1);
    CHECK_EQ(f.d.stats.erases, 1);
    fx_close(&f);
}

int main(void)
{
    test_program_rules();
    test_bad_blocks();
    test_ecc();
    test_clock();
    return check_done("test_sim_nand");
}
