/* Block erase on NAND and NOR (and the raw read every kind shares): erase
 * returns every bit to 1, counts the cycle and clears program counts and
 * recorded bit errors.  A torn erase returns only a seeded subset of bits
 * to 1 and leaves the block flagged as not erased. */
#include <string.h>

#include "bd/sim_internal.h"

void sim_flash_erase(sim_dev *d, uint32_t block, uint32_t count, int torn)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t stride = g->page_size + g->spare_size, b, p, i;

    for (b = block; b < block + count; b++) {
        sim_blk_meta *bm = sim_blk(d, b);
        if (bm->erase_count != 0xFFFFFFFFu)
            bm->erase_count++;
        for (p = 0; p < g->pages_per_block; p++) {
            uint8_t *raw = sim_page_raw(d, b, p);
            sim_page_meta *m = sim_pg(d, b, p);
            if (!torn) {
                /* stored XOR erased: zero is erased */
                memset(raw, 0, stride);
                m->nprog = 0;
                m->nflips = 0;
                continue;
            }
            for (i = 0; i < stride; i++)
                if (raw[i])
                    raw[i] &= (uint8_t)sim_rng_next(&d->rng_fault);
        }
        if (torn)
            bm->flags |= SIM_BLK_TORN_ERASE;
        else
            bm->flags &= (uint8_t)~SIM_BLK_TORN_ERASE;
    }
}

void sim_raw_read(const sim_dev *d, uint32_t block, uint32_t off, uint8_t *buf,
                  uint32_t len, uint8_t *spare, uint32_t spare_len)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t ps = g->page_size, pos, n, i;

    for (pos = off; pos < off + len; pos += n) {
        const uint8_t *raw = sim_page_raw(d, block, pos / ps) + pos % ps;
        n = ps - pos % ps;
        if (n > off + len - pos)
            n = off + len - pos;
        for (i = 0; i < n; i++)
            buf[pos - off + i] = (uint8_t)(raw[i] ^ g->erased_byte);
    }
    if (spare_len) {
        const uint8_t *raw = sim_page_raw(d, block, off / ps) + ps;
        for (i = 0; i < spare_len; i++)
            spare[i] = (uint8_t)(raw[i] ^ g->erased_byte);
    }
}
