/*
 * NAND rules: a page is programmed at most NOP times between erases, and a
 * program leaves already-programmed bytes unchanged (0xFF over them is
 * allowed).  Reads pass through the on-die ECC: per codeword, up to
 * ecc_bits bit errors are corrected (and counted), more are reported as
 * SBD_ERR_ECC with the raw data.
 */
#include <string.h>

#include "bd/sim_internal.h"

/* Codeword index of byte i of a page (main, then spare).  The spare is
 * split evenly over the main codewords, as the part's ECC protects it. */
static uint32_t cw_of(const sbd_geometry *g, uint32_t i)
{
    uint32_t ncw = g->page_size / g->ecc_codeword;
    if (i < g->page_size)
        return i / g->ecc_codeword;
    return (uint32_t)((uint64_t)(i - g->page_size) * ncw / (g->spare_size ? g->spare_size : 1));
}

#define NAND_MAX_CW 16u  /* codewords per page we track (2048/512 = 4) */

int sim_nand_read(sim_dev *d, uint32_t block, uint32_t off, uint8_t *buf, uint32_t len,
                  uint8_t *spare, uint32_t spare_len)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t ps = g->page_size;
    uint32_t page = off / ps, last = (len ? off + len - 1 : off) / ps;
    uint32_t ncw = g->ecc_codeword ? ps / g->ecc_codeword : 0;
    int worst = 0, uncorrectable = 0;

    sim_raw_read(d, block, off, buf, len, spare, spare_len);
    if (!ncw || ncw > NAND_MAX_CW)
        return 0;
    for (; page <= last; page++) {
        const sim_page_meta *m = sim_pg(d, block, page);
        uint32_t errs[NAND_MAX_CW], cw, k;
        uint16_t tflip[NAND_MAX_CW][SIM_FLIPS_MAX];
        uint32_t tcount[NAND_MAX_CW];
        uint32_t page_lo = page * ps;

        memset(errs, 0, sizeof errs);
        for (k = 0; k < m->nflips; k++)
            errs[cw_of(g, m->flips[k] / 8u)]++;
        /* transient read disturb: per codeword, flip_ppm chance of
         * flip_bits errors at seeded positions */
        for (cw = 0; cw < ncw; cw++) {
            tcount[cw] = 0;
            if (d->faults.flip_ppm && d->faults.flip_bits &&
                sim_rng_next(&d->rng_fault) % 1000000u < d->faults.flip_ppm) {
                tcount[cw] = d->faults.flip_bits;
                for (k = 0; k < SIM_FLIPS_MAX && k < tcount[cw]; k++)
                    tflip[cw][k] = (uint16_t)(cw * g->ecc_codeword * 8u +
                                              sim_rng_next(&d->rng_fault) %
                                                  (g->ecc_codeword * 8u));
                errs[cw] += tcount[cw];
            }
        }
        for (cw = 0; cw < ncw; cw++) {
            if (errs[cw] <= g->ecc_bits) {
                if ((int)errs[cw] > worst)
                    worst = (int)errs[cw];
                continue;
            }
            uncorrectable = 1;
            /* hand back the raw data: apply this codeword's errors that
             * fall in what the caller asked for */
            for (k = 0; k < m->nflips; k++) {
                uint32_t byte = m->flips[k] / 8u;
                if (cw_of(g, byte) != cw)
                    continue;
                if (byte < ps && page_lo + byte >= off && page_lo + byte < off + len)
                    buf[page_lo + byte - off] ^= (uint8_t)(1u << (m->flips[k] % 8u));
                else if (byte >= ps && byte - ps < spare_len && page == off / ps)
                    spare[byte - ps] ^= (uint8_t)(1u << (m->flips[k] % 8u));
            }
            for (k = 0; k < SIM_FLIPS_MAX && k < tcount[cw]; k++) {
                uint32_t byte = tflip[cw][k] / 8u;
                if (page_lo + byte >= off && page_lo + byte < off + len)
                    buf[page_lo + byte - off] ^= (uint8_t)(1u << (tflip[cw][k] % 8u));
            }
        }
    }
    return uncorrectable ? SBD_ERR_ECC : worst;
}

/* Program n bytes at p (stored XORed with 0xFF, so stored 0 = erased). */
static int nand_check(const uint8_t *raw, const uint8_t *src, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint8_t cur = (uint8_t)(raw[i] ^ 0xFFu), want = src[i];
        if (cur != 0xFF && want != 0xFF && want != cur)
            return SBD_ERR_RULE;
    }
    return 0;
}

/* Apply: bits going 1 -> 0.  Torn: a seeded subset of them. */
static void nand_apply(sim_dev *d, uint8_t *raw, const uint8_t *src, uint32_t n, int torn)
{
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint8_t clear = (uint8_t)(~src[i] & (raw[i] ^ 0xFFu)); /* 1 bits going to 0 */
        if (!clear)
            continue;
        if (torn)
            clear &= (uint8_t)sim_rng_next(&d->rng_fault);
        raw[i] |= clear; /* stored inverted: setting a stored bit clears it */
    }
}

int sim_nand_prog(sim_dev *d, uint32_t block, uint32_t off, const uint8_t *buf,
                  uint32_t len, const uint8_t *spare, uint32_t spare_len, int torn)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t ps = g->page_size;
    uint32_t page = off / ps, last = (len ? off + len - 1 : off) / ps, p, pos, n;

    /* check everything first: a refused program changes nothing */
    for (p = page; p <= last; p++) {
        if (g->nop && sim_pg(d, block, p)->nprog >= g->nop)
            return SBD_ERR_RULE;
    }
    for (pos = off; pos < off + len; pos += n) {
        p = pos / ps;
        n = (p + 1) * ps - pos;
        if (n > off + len - pos)
            n = off + len - pos;
        if (nand_check(sim_page_raw(d, block, p) + pos % ps, buf + (pos - off), n))
            return SBD_ERR_RULE;
    }
    if (spare_len && nand_check(sim_page_raw(d, block, page) + ps, spare, spare_len))
        return SBD_ERR_RULE;

    for (pos = off; pos < off + len; pos += n) {
        p = pos / ps;
        n = (p + 1) * ps - pos;
        if (n > off + len - pos)
            n = off + len - pos;
        nand_apply(d, sim_page_raw(d, block, p) + pos % ps, buf + (pos - off), n, torn);
    }
    if (spare_len)
        nand_apply(d, sim_page_raw(d, block, page) + ps, spare, spare_len, torn);
    for (p = page; p <= last; p++)
        if (sim_pg(d, block, p)->nprog < 0xFF)
            sim_pg(d, block, p)->nprog++;
    return 0;
}
