/*
 * Reference SPI NAND driver (spinand.h is its manual): MT29F1G01-class
 * command set behind the six block-device callbacks of bd.h.
 */
#include "steadyfs/spinand.h"

#include <stddef.h>

const spinand_part spinand_parts[] = {
    {
        /* MT29F1G01ABAFD datasheet: ID 2Ch 14h; 2048+128 B pages, 64 pages
         * per block, 1024 blocks, one plane; on-die ECC 8 bits per 512 B;
         * bad-block mark in spare byte 0 of page 0.  Times as the simulated
         * mt29f1g01 profile (src/bd/profiles.c, sources in its notes): tR 70
         * us, tPROG 220 us typ / 600 max, tBERS 2 ms typ / 10 ms max. */
        .name = "MT29F1G01ABAFD",
        .mfr_id = 0x2C,
        .dev_id = 0x14,
        .planes = 1,
        .nop = 4,
        .page_size = 2048,
        .spare_size = 128,
        .user_spare_off = 2,
        .user_spare_len = 62,
        .pages_per_block = 64,
        .ecc_bits = 8,
        .ecc_codeword = 512,
        .ecc_scheme = SPINAND_ECC_MICRON3,
        .reserved = 0,
        .blocks = 1024,
        .t_read_us = 70,
        .t_prog_us = 220,
        .t_erase_us = 2000,
        .t_read_max_us = 70,
        .t_prog_max_us = 600,
        .t_erase_max_us = 10000,
    },
};
const uint32_t spinand_part_count = sizeof spinand_parts / sizeof spinand_parts[0];

static int xfer(spinand *d, uint8_t cmd, uint8_t addr_len, uint32_t addr, uint8_t dummy,
                uint8_t lines, const uint8_t *tx, uint8_t *rx, uint32_t len)
{
    spinand_op op;
    op.cmd = cmd;
    op.addr_len = addr_len;
    op.dummy_len = dummy;
    op.data_lines = lines;
    op.addr = addr;
    op.tx = tx;
    op.rx = rx;
    op.len = len;
    return d->cfg.xfer(d->cfg.ctx, &op);
}

static int cmd_only(spinand *d, uint8_t cmd) { return xfer(d, cmd, 0, 0, 0, 1, NULL, NULL, 0); }

static int get_feature(spinand *d, uint8_t reg, uint8_t *v)
{
    return xfer(d, SPINAND_CMD_GET_FEATURE, 1, reg, 0, 1, NULL, v, 1);
}

static int set_feature(spinand *d, uint8_t reg, uint8_t v)
{
    return xfer(d, SPINAND_CMD_SET_FEATURE, 1, reg, 0, 1, &v, NULL, 1);
}

static void delay(spinand *d, uint32_t us)
{
    if (d->cfg.delay_us && us)
        d->cfg.delay_us(d->cfg.ctx, us);
}

/* Wait for OIP to clear; *st is the final status.  The first wait is the
 * typical time, so a chip on time is asked once or twice, not thousands of
 * times (each poll holds the bus). */
static int wait_ready(spinand *d, uint32_t typ_us, uint32_t max_us, uint8_t *st)
{
    uint32_t waited = 0, polls = 0, step = d->cfg.poll_us ? d->cfg.poll_us : 5u;
    uint32_t limit = 2u * max_us + 1000u;
    int rc;

    if (d->cfg.delay_us) {
        delay(d, typ_us);
        waited = typ_us;
    }
    for (;;) {
        d->stats.polls++;
        rc = get_feature(d, SPINAND_FEAT_STATUS, st);
        if (rc)
            return rc;
        if (!(*st & SPINAND_ST_OIP))
            return 0;
        if (d->cfg.delay_us) {
            if (waited >= limit)
                return SBD_ERR_IO;   /* the chip is stuck busy */
            delay(d, step);
            waited += step;
        } else if (++polls >= SPINAND_POLLS_MAX) {
            return SBD_ERR_IO;
        }
    }
}

static uint32_t row_of(const spinand *d, uint32_t block, uint32_t page)
{
    return block * d->part->pages_per_block + page;
}

/* Column address: a two-plane part selects the plane in bit 12. */
static uint32_t col_of(const spinand *d, uint32_t block, uint32_t col)
{
    return d->part->planes == 2 ? col | ((block & 1u) << 12) : col;
}

/* Bit errors the status register reports for the last page read: >= 0
 * corrected (top of the reported range), or SBD_ERR_ECC. */
static int ecc_of(const spinand *d, uint8_t st)
{
    if (d->part->ecc_scheme == SPINAND_ECC_2BIT) {
        switch ((st >> 4) & 3u) {
        case 0:
            return 0;
        case 1:
            return d->part->ecc_bits;   /* no count: assume the worst */
        default:
            return SBD_ERR_ECC;
        }
    }
    switch ((st >> 4) & 7u) {
    case 0:
        return 0;
    case 1:
        return 3;
    case 3:
        return 6;
    case 5:
        return 8;
    default:   /* 010 uncorrectable; the rest are reserved: treat as lost */
        return SBD_ERR_ECC;
    }
}

/* PAGE READ to the cache register and wait; the ECC outcome. */
static int load_page(spinand *d, uint32_t block, uint32_t page)
{
    uint8_t st;
    int rc = xfer(d, SPINAND_CMD_PAGE_READ, 3, row_of(d, block, page), 0, 1, NULL, NULL, 0);
    if (!rc)
        rc = wait_ready(d, d->part->t_read_us, d->part->t_read_max_us, &st);
    if (rc)
        return rc;
    d->stats.page_reads++;
    rc = ecc_of(d, st);
    if (rc == SBD_ERR_ECC)
        d->stats.ecc_uncorrectable++;
    else if (rc > 0)
        d->stats.ecc_corrected++;
    return rc;
}

static int read_cache(spinand *d, uint32_t block, uint32_t col, uint8_t *buf, uint32_t len)
{
    return xfer(d, d->cfg.quad ? SPINAND_CMD_READ_CACHE_X4 : SPINAND_CMD_READ_CACHE_FAST, 2,
                col_of(d, block, col), 1, d->cfg.quad ? 4 : 1, NULL, buf, len);
}

/* Argument checks shared by read and prog (bd.h's rules). */
static int check_span(const spinand *d, uint32_t block, uint32_t off, uint32_t len,
                      uint32_t spare_len, uint32_t unit)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t bsize = g->page_size * g->pages_per_block;
    if (block >= g->block_count || off > bsize || len > bsize - off)
        return SBD_ERR_RANGE;
    if (off % unit || len % unit)
        return SBD_ERR_RANGE;
    if (spare_len && (spare_len > g->spare_size || off >= bsize ||
                      (len && off / g->page_size != (off + len - 1u) / g->page_size)))
        return SBD_ERR_RANGE;
    return 0;
}

static int sn_read(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len,
                   void *spare, uint32_t spare_len)
{
    spinand *d = ctx;
    uint32_t ps = d->bd.geo.page_size, n;
    uint8_t *out = buf;
    int rc, worst = 0, lost = 0;

    rc = check_span(d, block, off, len, spare_len, 1);
    if (rc)
        return rc;
    if ((len && !buf) || (spare_len && !spare) || (!len && !spare_len))
        return SBD_ERR_INVAL;
    do {
        uint32_t page = off / ps, col = off % ps;
        n = ps - col < len ? ps - col : len;
        rc = load_page(d, block, page);
        if (rc == SBD_ERR_ECC)
            lost = 1;   /* hand back the raw bytes, report at the end */
        else if (rc < 0)
            return rc;
        else if (rc > worst)
            worst = rc;
        if (n && (rc = read_cache(d, block, col, out, n)) != 0)
            return rc;
        /* the spare travels with the page that holds `off` (bd.h) */
        if (spare_len) {
            rc = read_cache(d, block, ps + d->part->user_spare_off, spare, spare_len);
            if (rc)
                return rc;
            spare_len = 0;
        }
        out += n;
        off += n;
        len -= n;
    } while (len);
    return lost ? SBD_ERR_ECC : worst;
}

/* WRITE ENABLE, loads, PROGRAM EXECUTE, wait.  *st: the final status. */
static int program_page(spinand *d, uint32_t block, uint32_t page, uint32_t col,
                        const uint8_t *data, uint32_t n, uint32_t spare_col,
                        const uint8_t *spare, uint32_t spare_len, uint8_t *st)
{
    uint8_t lines = d->cfg.quad ? 4 : 1;
    int rc = cmd_only(d, SPINAND_CMD_WRITE_ENABLE);
    /* PROGRAM LOAD sets the whole cache to FFh first, so bytes not loaded
     * program nothing; RANDOM LOAD adds the spare without that reset. */
    if (!rc && n)
        rc = xfer(d, d->cfg.quad ? SPINAND_CMD_PROG_LOAD_X4 : SPINAND_CMD_PROG_LOAD, 2,
                  col_of(d, block, col), 0, lines, data, NULL, n);
    if (!rc && spare_len)
        rc = xfer(d,
                  n ? (d->cfg.quad ? SPINAND_CMD_PROG_LOAD_RANDOM_X4 : SPINAND_CMD_PROG_LOAD_RANDOM)
                    : (d->cfg.quad ? SPINAND_CMD_PROG_LOAD_X4 : SPINAND_CMD_PROG_LOAD),
                  2, col_of(d, block, spare_col), 0, lines, spare, NULL, spare_len);
    if (!rc)
        rc = xfer(d, SPINAND_CMD_PROG_EXEC, 3, row_of(d, block, page), 0, 1, NULL, NULL, 0);
    if (!rc)
        rc = wait_ready(d, d->part->t_prog_us, d->part->t_prog_max_us, st);
    if (!rc)
        d->stats.programs++;
    return rc;
}

static int sn_prog(void *ctx, uint32_t block, uint32_t off, const void *buf, uint32_t len,
                   const void *spare, uint32_t spare_len)
{
    spinand *d = ctx;
    uint32_t ps = d->bd.geo.page_size, n;
    const uint8_t *in = buf;
    uint8_t st;
    int rc;

    rc = check_span(d, block, off, len, spare_len, d->bd.geo.prog_size);
    if (rc)
        return rc;
    if ((len && !buf) || (spare_len && !spare) || (!len && !spare_len))
        return SBD_ERR_INVAL;
    if (d->cfg.bad_map[block / 32u] & (1u << (block % 32u)))
        return SBD_ERR_BAD_BLOCK;
    do {
        uint32_t page = off / ps, col = off % ps;
        n = ps - col < len ? ps - col : len;
        rc = program_page(d, block, page, col, in, n, ps + d->part->user_spare_off, spare,
                          spare_len, &st);
        if (rc)
            return rc;
        if (st & SPINAND_ST_P_FAIL) {
            d->stats.prog_fails++;
            return SBD_ERR_PROG;
        }
        spare_len = 0;
        in += n;
        off += n;
        len -= n;
    } while (len);
    return 0;
}

static int sn_erase(void *ctx, uint32_t block, uint32_t count)
{
    spinand *d = ctx;
    uint8_t st;
    int rc;

    if (count != 1 || block >= d->bd.geo.block_count)
        return count == 0 || block >= d->bd.geo.block_count ? SBD_ERR_RANGE : SBD_ERR_RULE;
    /* never erase a bad block: a factory mark would be gone for good */
    if (d->cfg.bad_map[block / 32u] & (1u << (block % 32u)))
        return SBD_ERR_BAD_BLOCK;
    rc = cmd_only(d, SPINAND_CMD_WRITE_ENABLE);
    if (!rc)
        rc = xfer(d, SPINAND_CMD_BLOCK_ERASE, 3, row_of(d, block, 0), 0, 1, NULL, NULL, 0);
    if (!rc)
        rc = wait_ready(d, d->part->t_erase_us, d->part->t_erase_max_us, &st);
    if (rc)
        return rc;
    d->stats.erases++;
    if (st & SPINAND_ST_E_FAIL) {
        d->stats.erase_fails++;
        return SBD_ERR_ERASE;
    }
    return 0;
}

static int sn_sync(void *ctx)
{
    (void)ctx;   /* every program/erase completed before its call returned */
    return 0;
}

static int sn_is_bad(void *ctx, uint32_t block)
{
    spinand *d = ctx;
    if (block >= d->bd.geo.block_count)
        return SBD_ERR_RANGE;
    return (d->cfg.bad_map[block / 32u] >> (block % 32u)) & 1u;
}

static int sn_mark_bad(void *ctx, uint32_t block)
{
    spinand *d = ctx;
    static const uint8_t mark[2] = {0x00, 0x00};
    uint8_t st;
    int rc;

    if (block >= d->bd.geo.block_count)
        return SBD_ERR_RANGE;
    d->cfg.bad_map[block / 32u] |= 1u << (block % 32u);
    /* The mark for the next power cycle: the marker bytes before the
     * caller's spare.  P_FAIL is expected on a worn block and ignored;
     * only a failed transaction (power, bus) is an error. */
    rc = program_page(d, block, 0, 0, NULL, 0, d->part->page_size, mark,
                      d->part->user_spare_off ? d->part->user_spare_off : 1u, &st);
    return rc;
}

static const sbd_ops spinand_ops = {
    .read = sn_read,
    .prog = sn_prog,
    .erase = sn_erase,
    .sync = sn_sync,
    .is_bad = sn_is_bad,
    .mark_bad = sn_mark_bad,
};

static const spinand_part *identify(spinand *d, const uint8_t id[2])
{
    uint32_t i;
    if (d->cfg.part)
        return d->cfg.part->mfr_id == id[0] && d->cfg.part->dev_id == id[1] ? d->cfg.part
                                                                              : NULL;
    for (i = 0; i < spinand_part_count; i++)
        if (spinand_parts[i].mfr_id == id[0] && spinand_parts[i].dev_id == id[1])
            return &spinand_parts[i];
    return NULL;
}

int spinand_init(spinand *d, const spinand_config *cfg)
{
    const spinand_part *p;
    uint8_t id[2], v, st;
    uint32_t blocks, b;
    int rc;

    if (!d || !cfg || !cfg->xfer || !cfg->bad_map)
        return SBD_ERR_INVAL;
    d->cfg = *cfg;
    d->part = NULL;
    d->stats = (spinand_stats){0};
    /* RESET aborts nothing we own and puts the chip in a known state; it is
     * busy briefly afterwards (tRST), so wait as after an erase */
    rc = cmd_only(d, SPINAND_CMD_RESET);
    if (rc)
        return rc;
    rc = wait_ready(d, 0, 1000, &st);
    if (rc)
        return rc;
    rc = xfer(d, SPINAND_CMD_READ_ID, 0, 0, 1, 1, NULL, id, 2);
    if (rc)
        return rc;
    p = identify(d, id);
    if (!p)
        return SBD_ERR_INVAL;
    blocks = cfg->blocks ? cfg->blocks : p->blocks;
    if (blocks > p->blocks || cfg->bad_map_words < SPINAND_MAP_WORDS(blocks) ||
        p->user_spare_off + p->user_spare_len > p->spare_size || !p->ecc_codeword)
        return SBD_ERR_INVAL;
    d->part = p;

    /* Every block unlocked (power-on locks them all on most parts), the
     * on-die ECC on; each read back, as a chip that ignored us would
     * otherwise fail every program silently or hand back uncorrected data. */
    rc = set_feature(d, SPINAND_FEAT_LOCK, 0x00);
    if (!rc)
        rc = get_feature(d, SPINAND_FEAT_LOCK, &v);
    if (rc)
        return rc;
    if (v & 0x38u)   /* BP2..BP0 */
        return SBD_ERR_INVAL;
    rc = get_feature(d, SPINAND_FEAT_CONFIG, &v);
    if (!rc)
        rc = set_feature(d, SPINAND_FEAT_CONFIG,
                         (uint8_t)((v | SPINAND_CFG_ECC_EN) & ~SPINAND_CFG_MODE));
    if (!rc)
        rc = get_feature(d, SPINAND_FEAT_CONFIG, &v);
    if (rc)
        return rc;
    if (!(v & SPINAND_CFG_ECC_EN) || (v & SPINAND_CFG_MODE))
        return SBD_ERR_INVAL;

    d->bd.ops = &spinand_ops;
    d->bd.ctx = d;
    d->bd.geo = (sbd_geometry){
        .page_size = p->page_size,
        .spare_size = p->user_spare_len,
        .pages_per_block = p->pages_per_block,
        .block_count = blocks,
        .read_size = 1,
        .prog_size = p->ecc_codeword,
        .big_erase_blocks = 1,
        .ecc_bits = p->ecc_bits,
        .ecc_codeword = p->ecc_codeword,
        .nop = p->nop,
        .needs_erase = 1,
        .erased_byte = 0xFF,
        .mid_erase_blocks = 0,
    };

    /* The bad-block scan: spare byte 0 of each block's first page. */
    for (b = 0; b < SPINAND_MAP_WORDS(blocks); b++)
        d->cfg.bad_map[b] = 0;
    for (b = 0; b < blocks; b++) {
        rc = load_page(d, b, 0);
        if (rc < 0 && rc != SBD_ERR_ECC)
            return rc;   /* the mark is outside ECC: its byte counts as read */
        rc = read_cache(d, b, p->page_size, &v, 1);
        if (rc)
            return rc;
        if (v != 0xFF) {
            d->cfg.bad_map[b / 32u] |= 1u << (b % 32u);
            d->stats.scan_bad++;
        }
    }
    d->stats.page_reads = d->stats.polls = 0;
    d->stats.ecc_corrected = d->stats.ecc_uncorrectable = 0;
    return 0;
}
