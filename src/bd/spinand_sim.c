/*
 * Command-level SPI NAND chip model (sim_spinand.h is its manual): decodes
 * SPI transactions, keeps the chip's registers and busy time, and applies
 * array operations to the simulated device underneath through its sbd.
 */
#include "steadyfs/sim_spinand.h"

#include <string.h>

#include "bd/sim_internal.h"

enum { PEND_NONE = 0, PEND_READ, PEND_PROG, PEND_ERASE };

#define LOCK_BP 0x38u      /* BP2..BP0: any set locks the array (model) */
#define LOCK_WRITABLE 0xBEu
/* configuration bits kept as written: the mode bits (Micron CFG2..CFG0,
 * others' OTP_PRT / OTP_EN) and ECC_EN; the OTP and parameter-page modes
 * they select are not modelled (reads and programs always reach the array) */
#define CFG_WRITABLE 0xD2u
#define T_RST_NS 5000u     /* RESET busy on an idle chip: assumed (a few us) */

uint32_t sim_spinand_cache_size(const sim_dev *dev)
{
    return dev->bd.geo.page_size + 2u * dev->bd.geo.spare_size;
}

static void power_on_state(sim_spinand *c)
{
    c->status = 0;
    c->config = SPINAND_CFG_ECC_EN;
    c->lock = LOCK_BP;
    c->pending = PEND_NONE;
    c->busy_until = c->dev->now_ns;
    c->powered = 1;
    memset(c->cache, 0xFF, c->cache_len);
}

int sim_spinand_init(sim_spinand *c, sim_dev *dev, const sbd *array, uint8_t *cache,
                     uint32_t cache_len, uint8_t mfr_id, uint8_t dev_id, uint64_t seed)
{
    if (!c || !dev || !cache || dev->prof->kind != SIM_NAND || dev->bd.geo.spare_size < 4u ||
        cache_len < sim_spinand_cache_size(dev))
        return SBD_ERR_INVAL;
    memset(c, 0, sizeof *c);
    c->dev = dev;
    c->array = array ? array : &dev->bd;
    c->cache = cache;
    c->cache_len = sim_spinand_cache_size(dev);
    c->id[0] = mfr_id;
    c->id[1] = dev_id;
    c->rng = seed ^ 0x5B1AA5D5B1AA5D00ull;
    power_on_state(c);
    return 0;
}

/* Clocks of one transaction on the profile's bus, rounded up to ns. */
static uint64_t xfer_ns(const sim_spinand *c, const spinand_op *op)
{
    uint64_t hz = c->dev->prof->bus.hz, lines = op->data_lines ? op->data_lines : 1u;
    uint64_t clocks = 8u + 8u * (uint64_t)op->addr_len + 8u * (uint64_t)op->dummy_len +
                      (8u * (uint64_t)op->len + lines - 1u) / lines;
    return hz ? (clocks * 1000000000ull + hz - 1u) / hz : 0;
}

static uint64_t draw(sim_spinand *c, const sim_range *r)
{
    return sim_array_ns(c->dev->prof, r, c->dev->timing, &c->rng, SIM_PICK_DRAW);
}

static uint8_t eccs_of(int rc)
{
    if (rc < 0)
        return 2u;   /* 010 uncorrectable */
    return rc == 0 ? 0u : rc <= 3 ? 1u : rc <= 6 ? 3u : 5u;
}

/* The device's spare (S bytes) <-> the chip's (2 S): chip byte 2+i is device
 * byte i, chip bytes 0-1 (the marker) are device bytes S-2, S-1. */
static void spare_to_chip(uint8_t *chip, const uint8_t *dev, uint32_t s)
{
    uint8_t m0 = dev[s - 2u], m1 = dev[s - 1u];
    memmove(chip + 2, dev, s - 2u);
    chip[0] = m0;
    chip[1] = m1;
}

static void spare_to_dev(uint8_t *dev, const uint8_t *chip, uint32_t s)
{
    memcpy(dev, chip + 2, s - 2u);
    dev[s - 2u] = chip[0];
    dev[s - 1u] = chip[1];
}

/* Apply the operation in flight to the array.  The array call's duration
 * is dropped: the busy time was charged when the command came. */
static void complete(sim_spinand *c)
{
    sim_dev *d = c->dev;
    const sbd_geometry *g = &d->bd.geo;
    uint32_t ps = g->page_size, s = g->spare_size;
    uint32_t block = c->pend_row / g->pages_per_block, page = c->pend_row % g->pages_per_block;
    uint8_t *chip_spare = c->cache + ps, *scratch = c->cache + ps + s; /* the parity half */
    uint64_t now = d->now_ns;
    int rc;

    switch (c->pending) {
    case PEND_READ:
        c->stats.page_reads++;
        rc = sbd_read(c->array, block, page * ps, c->cache, ps, scratch, s);
        spare_to_chip(chip_spare, scratch, s);
        memset(scratch, 0xFF, s);
        if (page == 0 && sbd_is_bad(c->array, block) > 0)
            chip_spare[0] = chip_spare[1] = 0x00;
        if (rc == SBD_ERR_POWER)
            c->powered = 0;
        c->status = (uint8_t)((c->status & 0x0Fu) |
                              ((c->config & SPINAND_CFG_ECC_EN) ? (uint32_t)eccs_of(rc) << 4 : 0u));
        break;
    case PEND_PROG:
        c->stats.programs++;
        c->status &= (uint8_t)~SPINAND_ST_WEL;
        if (c->lock & LOCK_BP) {
            c->status |= SPINAND_ST_P_FAIL;
            break;
        }
        spare_to_dev(scratch, chip_spare, s);
        rc = sbd_prog(c->array, block, page * ps, c->cache, ps, scratch, s);
        memset(scratch, 0xFF, s);
        if (rc == SBD_ERR_RULE)
            c->stats.rule_violations++;
        if (rc == SBD_ERR_POWER)
            c->powered = 0;
        else if (rc)
            c->status |= SPINAND_ST_P_FAIL;
        /* a marker written: the device keeps the block bad from now on */
        if (c->powered && page == 0 && (chip_spare[0] != 0xFF || chip_spare[1] != 0xFF))
            (void)sbd_mark_bad(c->array, block);
        break;
    case PEND_ERASE:
        c->stats.erases++;
        c->status &= (uint8_t)~SPINAND_ST_WEL;
        if (c->lock & LOCK_BP) {
            c->status |= SPINAND_ST_E_FAIL;
            break;
        }
        rc = sbd_erase(c->array, block, 1);
        if (rc == SBD_ERR_POWER)
            c->powered = 0;
        else if (rc)
            c->status |= SPINAND_ST_E_FAIL;
        break;
    default:
        break;
    }
    d->now_ns = now;
    c->pending = PEND_NONE;
}

void sim_spinand_power_cut(sim_spinand *c)
{
    sim_dev *d = c->dev;
    if (!c->powered)
        return;
    if (c->pending == PEND_PROG || c->pending == PEND_ERASE) {
        /* torn: the device's own cut machinery on this very operation */
        uint64_t keep = d->faults.powercut_after;
        d->faults.powercut_after = d->pe_ops + 1u;
        complete(c);
        d->faults.powercut_after = keep;
    }
    c->pending = PEND_NONE;
    if (d->powered) {   /* no array operation took it down: do it here */
        d->powered = 0;
        d->stats.power_cuts++;
    }
    c->powered = 0;
}

void sim_spinand_power_restore(sim_spinand *c)
{
    sim_power_restore(c->dev);
    power_on_state(c);
}

void sim_spinand_delay_us(void *chip, uint32_t us)
{
    sim_spinand *c = chip;
    c->dev->now_ns += (uint64_t)us * 1000u;
}

static int shape(const spinand_op *op, uint8_t addr_len, uint8_t dummy, int dir)
{
    /* dir: 0 no data, 1 data in (rx), 2 data out (tx) */
    if (op->addr_len != addr_len || op->dummy_len != dummy)
        return 0;
    if (dir == 0)
        return op->len == 0;
    if (op->len == 0)
        return 0;
    return dir == 1 ? op->rx && !op->tx : op->tx && !op->rx;
}

static int malformed(sim_spinand *c)
{
    c->stats.malformed++;
    return SBD_ERR_INVAL;
}

/* Row address -> busy operation; a row past the device is malformed. */
static int start(sim_spinand *c, const spinand_op *op, int what, const sim_range *t)
{
    const sbd_geometry *g = &c->dev->bd.geo;
    if (!shape(op, 3, 0, 0))
        return malformed(c);
    if (op->addr / g->pages_per_block >= g->block_count)
        return malformed(c);
    if (what != PEND_READ && !(c->status & SPINAND_ST_WEL)) {
        c->stats.ignored++;
        return 0;
    }
    if (what == PEND_ERASE && op->addr % g->pages_per_block)
        return malformed(c);   /* the driver meant a page, not a block */
    c->pending = (uint8_t)what;
    c->pend_row = op->addr;
    c->status &= (uint8_t)~(what == PEND_PROG ? SPINAND_ST_P_FAIL
                            : what == PEND_ERASE ? SPINAND_ST_E_FAIL : 0u);
    c->busy_until = c->dev->now_ns + draw(c, t);
    return 0;
}

int sim_spinand_xfer(void *chip, const spinand_op *op)
{
    sim_spinand *c = chip;
    sim_dev *d = c->dev;
    uint32_t col, i, lines;
    uint8_t v;

    c->stats.xfers++;
    if (c->cut_after_xfers && c->stats.xfers == c->cut_after_xfers)
        sim_spinand_power_cut(c);
    if (!c->powered || !d->powered)
        return SBD_ERR_POWER;
    lines = op->data_lines;
    if (lines != 1u && lines != 4u)
        return malformed(c);
    d->now_ns += xfer_ns(c, op);
    if (c->pending != PEND_NONE && d->now_ns >= c->busy_until) {
        complete(c);
        if (!c->powered || !d->powered)
            return SBD_ERR_POWER;   /* the device's cut tore that operation */
    }
    if (d->now_ns < c->busy_until && op->cmd != SPINAND_CMD_GET_FEATURE) {
        c->stats.ignored++;
        if (op->rx)
            memset(op->rx, 0xFF, op->len);
        return 0;
    }
    switch (op->cmd) {
    case SPINAND_CMD_RESET:
        if (!shape(op, 0, 0, 0))
            return malformed(c);
        c->status = 0;
        c->busy_until = d->now_ns + T_RST_NS;
        return 0;
    case SPINAND_CMD_READ_ID:
        if (!shape(op, 0, 1, 1))
            return malformed(c);
        for (i = 0; i < op->len; i++)
            op->rx[i] = i < 2u ? c->id[i] : 0x00;
        return 0;
    case SPINAND_CMD_GET_FEATURE:
        if (!shape(op, 1, 0, 1) || op->len != 1)
            return malformed(c);
        switch (op->addr) {
        case SPINAND_FEAT_LOCK:
            v = c->lock;
            break;
        case SPINAND_FEAT_CONFIG:
            v = c->config;
            break;
        case SPINAND_FEAT_STATUS:
            c->stats.polls++;
            v = (uint8_t)(c->status | (d->now_ns < c->busy_until ? SPINAND_ST_OIP : 0u));
            break;
        default:
            return malformed(c);
        }
        op->rx[0] = v;
        return 0;
    case SPINAND_CMD_SET_FEATURE:
        if (!shape(op, 1, 0, 2) || op->len != 1)
            return malformed(c);
        if (op->addr == SPINAND_FEAT_LOCK)
            c->lock = (uint8_t)(op->tx[0] & LOCK_WRITABLE);
        else if (op->addr == SPINAND_FEAT_CONFIG)
            c->config = (uint8_t)(op->tx[0] & CFG_WRITABLE);
        else
            return malformed(c);
        return 0;
    case SPINAND_CMD_WRITE_ENABLE:
    case SPINAND_CMD_WRITE_DISABLE:
        if (!shape(op, 0, 0, 0))
            return malformed(c);
        if (op->cmd == SPINAND_CMD_WRITE_ENABLE)
            c->status |= SPINAND_ST_WEL;
        else
            c->status &= (uint8_t)~SPINAND_ST_WEL;
        return 0;
    case SPINAND_CMD_PAGE_READ:
        return start(c, op, PEND_READ, &d->prof->t_read);
    case SPINAND_CMD_PROG_EXEC:
        return start(c, op, PEND_PROG, &d->prof->t_prog);
    case SPINAND_CMD_BLOCK_ERASE:
        return start(c, op, PEND_ERASE, &d->prof->t_erase);
    case SPINAND_CMD_READ_CACHE:
    case SPINAND_CMD_READ_CACHE_FAST:
    case SPINAND_CMD_READ_CACHE_X4:
        if (!shape(op, 2, 1, 1) || (op->cmd == SPINAND_CMD_READ_CACHE_X4) != (lines == 4u))
            return malformed(c);
        col = op->addr & 0x0FFFu;   /* bit 12: plane select, one plane here */
        if (col >= c->cache_len)
            return malformed(c);
        for (i = 0; i < op->len; i++)   /* past the end of the cache: FFh */
            op->rx[i] = col + i < c->cache_len ? c->cache[col + i] : 0xFF;
        return 0;
    case SPINAND_CMD_PROG_LOAD:
    case SPINAND_CMD_PROG_LOAD_X4:
    case SPINAND_CMD_PROG_LOAD_RANDOM:
    case SPINAND_CMD_PROG_LOAD_RANDOM_X4:
        if (!shape(op, 2, 0, 2) ||
            (op->cmd == SPINAND_CMD_PROG_LOAD_X4 || op->cmd == SPINAND_CMD_PROG_LOAD_RANDOM_X4) !=
                (lines == 4u))
            return malformed(c);
        col = op->addr & 0x0FFFu;
        if (col > c->cache_len || op->len > c->cache_len - col)
            return malformed(c);
        if (op->cmd == SPINAND_CMD_PROG_LOAD || op->cmd == SPINAND_CMD_PROG_LOAD_X4)
            memset(c->cache, 0xFF, c->cache_len);
        memcpy(c->cache + col, op->tx, op->len);
        /* the parity half is the chip's own: a load there is dropped */
        memset(c->cache + d->bd.geo.page_size + d->bd.geo.spare_size, 0xFF,
               d->bd.geo.spare_size);
        return 0;
    default:
        return malformed(c);
    }
}
