/*
 * Fault injection, deterministic from faults.seed: power cuts on the Nth
 * program/erase, transient and persistent bit errors, wear-out and random
 * program/erase failures, reads that return no bytes (bursts of
 * SBD_ERR_IO), and factory bad blocks at format time.
 */
#include "bd/sim_internal.h"

void sim_set_faults(sim_dev *d, const sim_faults *f)
{
    static const sim_faults none;
    d->faults = f ? *f : none;
    /* the fault PRNG restarts from the faults seed: the same faults on the
     * same call sequence give the same effects */
    d->rng_fault = d->faults.seed ^ 0xFA17FA17FA17FA17ull;
    d->pe_ops = 0;
    d->read_io_left = 0;
}

int sim_fault_read_io(sim_dev *d)
{
    uint32_t most = d->faults.read_io_burst ? d->faults.read_io_burst : 1u;
    /* (no draw while off: the other faults' sequence stays as it was) */
    if (!d->read_io_left && d->faults.read_io_ppm &&
        sim_rng_next(&d->rng_fault) % 1000000u < d->faults.read_io_ppm)
        d->read_io_left = 1u + (uint32_t)(sim_rng_next(&d->rng_fault) % most);
    if (!d->read_io_left)
        return 0;
    d->read_io_left--;
    d->stats.read_errors++;
    return 1;
}

int sim_fault_cut_next(const sim_dev *d)
{
    return d->faults.powercut_after && d->pe_ops + 1u == d->faults.powercut_after;
}

int sim_fault_pe_fails(sim_dev *d, uint32_t block)
{
    uint32_t limit = d->faults.wear_limit ? d->faults.wear_limit : d->prof->endurance;
    if (limit != 0xFFFFFFFFu && sim_blk(d, block)->erase_count >= limit)
        return 1;
    return d->faults.fail_ppm &&
           sim_rng_next(&d->rng_fault) % 1000000u < d->faults.fail_ppm;
}

uint32_t sim_fault_read_flips(sim_dev *d, uint8_t *cw, uint32_t cw_len)
{
    uint32_t k;
    if (!d->faults.flip_ppm || !d->faults.flip_bits || !cw_len ||
        sim_rng_next(&d->rng_fault) % 1000000u >= d->faults.flip_ppm)
        return 0;
    for (k = 0; k < d->faults.flip_bits; k++) {
        uint64_t bit = sim_rng_next(&d->rng_fault) % ((uint64_t)cw_len * 8u);
        cw[bit / 8u] ^= (uint8_t)(1u << (bit % 8u));
    }
    return d->faults.flip_bits;
}

int sim_flip_bits(sim_dev *d, uint32_t block, uint32_t page, uint32_t nbits)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t k;

    if (block >= g->block_count || page >= g->pages_per_block || d->prof->kind == SIM_SD)
        return SBD_ERR_RANGE;
    if (g->ecc_bits && g->ecc_codeword) {
        /* recorded, applied by the read path's ECC; all in one seeded
         * codeword, so nbits > ecc_bits makes it uncorrectable */
        sim_page_meta *m = sim_pg(d, block, page);
        uint32_t cw = (uint32_t)(sim_rng_next(&d->rng_fault) % (g->page_size / g->ecc_codeword));
        for (k = 0; k < nbits && m->nflips < SIM_FLIPS_MAX; k++)
            m->flips[m->nflips++] = (uint16_t)(cw * g->ecc_codeword * 8u +
                                               sim_rng_next(&d->rng_fault) %
                                                   (g->ecc_codeword * 8u));
        return k == nbits ? 0 : SBD_ERR_INVAL;
    }
    /* no ECC: the stored bits themselves change */
    for (k = 0; k < nbits; k++) {
        uint64_t bit = sim_rng_next(&d->rng_fault) % ((uint64_t)g->page_size * 8u);
        sim_page_raw(d, block, page)[bit / 8u] ^= (uint8_t)(1u << (bit % 8u));
    }
    return 0;
}

void sim_fault_place_bad(sim_dev *d, uint64_t seed)
{
    const sbd_geometry *g = &d->bd.geo;
    uint64_t rng = seed ^ 0xBADB10C4BADB10C4ull;
    /* MT29F1G01: blocks 0-7 are valid when shipped; keep them good */
    uint32_t first = g->block_count > 16 ? 8u : 1u, n, k, tries;

    if (!d->prof->factory_bad_max || g->block_count <= first)
        return;
    /* scale the datasheet's maximum with a scaled-down device, at least 1 */
    n = (uint32_t)((uint64_t)d->prof->factory_bad_max * g->block_count /
                   d->prof->geo.block_count);
    if (n == 0)
        n = 1;
    n = (uint32_t)(sim_rng_next(&rng) % (n + 1u));
    for (k = 0, tries = 0; k < n && tries < 8u * n + 8u; tries++) {
        uint32_t b = first + (uint32_t)(sim_rng_next(&rng) % (g->block_count - first));
        sim_blk_meta *bm = sim_blk(d, b);
        if (bm->flags & SIM_BLK_FACTORY_BAD)
            continue;
        bm->flags |= SIM_BLK_FACTORY_BAD;
        k++;
    }
}
