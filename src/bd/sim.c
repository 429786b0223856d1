/*
 * The simulated device: the sbd operations every kind shares -- argument
 * and alignment checks, bad blocks, power state, the virtual clock, stats
 * and the trace hook -- dispatching the physics to nand.c, nor.c, mram.c
 * and sd.c.
 */
#include <string.h>

#include "bd/sim_internal.h"

static int sim_read_op(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len,
                       void *spare, uint32_t spare_len);
static int sim_prog_op(void *ctx, uint32_t block, uint32_t off, const void *buf,
                       uint32_t len, const void *spare, uint32_t spare_len);
static int sim_erase_op(void *ctx, uint32_t block, uint32_t count);
static int sim_sync_op(void *ctx);
static int sim_is_bad_op(void *ctx, uint32_t block);
static int sim_mark_bad_op(void *ctx, uint32_t block);
static int sim_progv_op(void *ctx, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n);

static const sbd_ops sim_ops = {
    .read = sim_read_op,
    .prog = sim_prog_op,
    .erase = sim_erase_op,
    .sync = sim_sync_op,
    .is_bad = sim_is_bad_op,
    .mark_bad = sim_mark_bad_op,
};

/* Media without erase (MRAM, SD) also take gathered programs: one command
 * for the pieces together, as their SPI or SD bus does. */
static const sbd_ops sim_ops_gather = {
    .read = sim_read_op,
    .prog = sim_prog_op,
    .erase = sim_erase_op,
    .sync = sim_sync_op,
    .is_bad = sim_is_bad_op,
    .mark_bad = sim_mark_bad_op,
    .progv = sim_progv_op,
};

/* Clock, stats and trace for every completed (or refused) operation. */
static int finish(sim_dev *d, enum sim_op op, uint32_t block, uint32_t off, uint32_t len,
                  uint64_t dur, int rc)
{
    uint64_t start = d->now_ns;
    d->now_ns += dur;
    d->last_ns = dur;
    if (d->trace)
        d->trace(d->trace_arg, op, block, off, len, start, dur, rc);
    return rc;
}

/* Range and alignment of a read/program. */
static int check_span(const sim_dev *d, uint32_t block, uint32_t off, uint32_t len,
                      uint32_t spare_len, uint32_t unit)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t bsize = g->page_size * g->pages_per_block;
    if (block >= g->block_count || off > bsize || len > bsize - off)
        return SBD_ERR_RANGE;
    if (unit && (off % unit || len % unit))
        return SBD_ERR_RANGE;
    if (spare_len) {
        if (spare_len > g->spare_size)
            return SBD_ERR_RANGE;
        if (off >= bsize || (len && off / g->page_size != (off + len - 1) / g->page_size))
            return SBD_ERR_RANGE;
    }
    return 0;
}

static int block_bad(const sim_dev *d, uint32_t block)
{
    return (sim_blk(d, block)->flags & (SIM_BLK_FACTORY_BAD | SIM_BLK_GROWN_BAD)) != 0;
}

static int sim_read_op(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len,
                       void *spare, uint32_t spare_len)
{
    sim_dev *d = ctx;
    uint64_t dur;
    int rc;

    if (!d->powered)
        return finish(d, SIM_OP_READ, block, off, len, 0, SBD_ERR_POWER);
    rc = check_span(d, block, off, len, spare_len, d->bd.geo.read_size);
    if (rc || (!buf && len) || (!spare && spare_len))
        return finish(d, SIM_OP_READ, block, off, len, 0, rc ? rc : SBD_ERR_INVAL);
    if (sim_fault_read_io(d)) {
        /* the bus or the host failed: no bytes, the buffers undefined */
        if (len)
            memset(buf, 0xA5, len);
        if (spare_len)
            memset(spare, 0xA5, spare_len);
        return finish(d, SIM_OP_READ, block, off, len, 0, SBD_ERR_IO);
    }
    switch (d->prof->kind) {
    case SIM_NAND:
        rc = sim_nand_read(d, block, off, buf, len, spare, spare_len);
        break;
    case SIM_SD:
        rc = sim_sd_read(d, block, off, buf, len);
        dur = sim_sd_read_ns(d, (uint64_t)block * d->bd.geo.pages_per_block +
                                    off / d->bd.geo.page_size,
                             len / d->bd.geo.page_size);
        goto done;
    default:
        sim_raw_read(d, block, off, buf, len, spare, spare_len);
        /* no ECC: transient errors reach the caller unnoticed */
        (void)sim_fault_read_flips(d, buf, len);
        rc = 0;
        break;
    }
    dur = sim_op_ns(d->prof, SIM_OP_READ, off, len, spare_len, d->timing, &d->rng_time,
                    SIM_PICK_DRAW);
done:
    d->stats.reads++;
    d->stats.read_bytes += len;
    return finish(d, SIM_OP_READ, block, off, len, dur, rc);
}

/* A program of the n pieces' concatenation, len bytes (n > 1: a gathered
 * program, media without erase only). */
static int prog_pieces(sim_dev *d, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n,
                       uint32_t len, const void *spare, uint32_t spare_len)
{
    const uint8_t *buf = n ? iov[0].buf : NULL;
    int rc, cut, fail;
    uint64_t dur;

    if (!d->powered)
        return finish(d, SIM_OP_PROG, block, off, len, 0, SBD_ERR_POWER);
    rc = check_span(d, block, off, len, spare_len, d->bd.geo.prog_size);
    /* (flash takes one piece: progv is offered on media without erase) */
    if (rc || (!buf && len) || (!spare && spare_len) || (!len && !spare_len) ||
        (n != 1 && (d->prof->kind == SIM_NAND || d->prof->kind == SIM_NOR)))
        return finish(d, SIM_OP_PROG, block, off, len, 0, rc ? rc : SBD_ERR_INVAL);
    if (block_bad(d, block))
        return finish(d, SIM_OP_PROG, block, off, len, 0, SBD_ERR_BAD_BLOCK);

    cut = sim_fault_cut_next(d);
    fail = !cut && sim_fault_pe_fails(d, block);
    /* A failing program leaves a partial page, like a torn one. */
    switch (d->prof->kind) {
    case SIM_NAND:
        rc = sim_nand_prog(d, block, off, buf, len, spare, spare_len, cut || fail);
        break;
    case SIM_NOR:
        rc = sim_nor_prog(d, block, off, buf, len, cut || fail);
        break;
    case SIM_MRAM:
        rc = sim_mram_prog(d, block, off, iov, n, len, cut || fail);
        break;
    case SIM_SD:
    default:
        rc = sim_sd_prog(d, block, off, iov, n, len, cut || fail);
        break;
    }
    if (rc == SBD_ERR_RULE)
        return finish(d, SIM_OP_PROG, block, off, len, 0, rc);
    d->pe_ops++;
    if (d->prof->kind == SIM_SD)
        dur = sim_sd_prog_ns(d, (uint64_t)block * d->bd.geo.pages_per_block +
                                    off / d->bd.geo.page_size,
                             len / d->bd.geo.page_size);
    else
        dur = sim_op_ns(d->prof, SIM_OP_PROG, off, len, spare_len, d->timing, &d->rng_time,
                        SIM_PICK_DRAW);
    d->stats.progs++;
    d->stats.prog_bytes += len;
    if (cut) {
        d->powered = 0;
        d->stats.power_cuts++;
        rc = SBD_ERR_POWER;
    } else if (fail) {
        rc = SBD_ERR_PROG;
    }
    return finish(d, SIM_OP_PROG, block, off, len, dur, rc);
}

static int sim_prog_op(void *ctx, uint32_t block, uint32_t off, const void *buf,
                       uint32_t len, const void *spare, uint32_t spare_len)
{
    sbd_iov one;
    one.buf = buf;
    one.len = len;
    return prog_pieces(ctx, block, off, &one, 1, len, spare, spare_len);
}

static int sim_erase_op(void *ctx, uint32_t block, uint32_t count)
{
    sim_dev *d = ctx;
    const sbd_geometry *g = &d->bd.geo;
    uint32_t i;
    int cut, fail = 0;
    uint64_t dur;

    if (!d->powered)
        return finish(d, SIM_OP_ERASE, block, 0, count, 0, SBD_ERR_POWER);
    if (count == 0 || block >= g->block_count || count > g->block_count - block)
        return finish(d, SIM_OP_ERASE, block, 0, count, 0, SBD_ERR_RANGE);
    if (count != 1 && ((count != g->big_erase_blocks && (g->mid_erase_blocks < 2 ||
                                                          count != g->mid_erase_blocks)) ||
                       block % count))
        return finish(d, SIM_OP_ERASE, block, 0, count, 0, SBD_ERR_RULE);
    d->stats.erases++;
    if (!g->needs_erase)   /* the contract: a free no-op, data unchanged */
        return finish(d, SIM_OP_ERASE, block, 0, count, 0, 0);
    for (i = 0; i < count; i++)
        if (block_bad(d, block + i))
            return finish(d, SIM_OP_ERASE, block, 0, count, 0, SBD_ERR_BAD_BLOCK);

    cut = sim_fault_cut_next(d);
    for (i = 0; i < count && !cut; i++)
        fail |= sim_fault_pe_fails(d, block + i);
    sim_flash_erase(d, block, count, cut || fail);
    d->pe_ops++;
    dur = sim_op_ns(d->prof, SIM_OP_ERASE, 0, count, 0, d->timing, &d->rng_time,
                    SIM_PICK_DRAW);
    if (cut) {
        d->powered = 0;
        d->stats.power_cuts++;
        return finish(d, SIM_OP_ERASE, block, 0, count, dur, SBD_ERR_POWER);
    }
    return finish(d, SIM_OP_ERASE, block, 0, count, dur, fail ? SBD_ERR_ERASE : 0);
}

static int sim_sync_op(void *ctx)
{
    sim_dev *d = ctx;
    if (!d->powered)
        return finish(d, SIM_OP_SYNC, 0, 0, 0, 0, SBD_ERR_POWER);
    d->stats.syncs++;
    return finish(d, SIM_OP_SYNC, 0, 0, 0, 0, 0);
}

static int sim_is_bad_op(void *ctx, uint32_t block)
{
    sim_dev *d = ctx;
    if (!d->powered)
        return SBD_ERR_POWER;
    if (block >= d->bd.geo.block_count)
        return SBD_ERR_RANGE;
    return block_bad(d, block);
}

static int sim_mark_bad_op(void *ctx, uint32_t block)
{
    sim_dev *d = ctx;
    if (!d->powered)
        return SBD_ERR_POWER;
    if (block >= d->bd.geo.block_count)
        return SBD_ERR_RANGE;
    sim_blk(d, block)->flags |= SIM_BLK_GROWN_BAD;
    return 0;
}

/* A gathered program is prog() of the pieces' concatenation: the same
 * checks, physics, clock (one command), stats and power cuts (the tear
 * falls anywhere in the whole), of any length prog() takes (the pieces
 * are written where they go: no gather buffer; up to the twentieth
 * session an 8 KiB one refused two 4 KiB sectors with their tags). */
static int sim_progv_op(void *ctx, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n)
{
    uint32_t i, len = 0;
    for (i = 0; i < n; i++) {
        if ((!iov[i].buf && iov[i].len) || iov[i].len > UINT32_MAX - len)
            return finish(ctx, SIM_OP_PROG, block, off, len, 0, SBD_ERR_INVAL);
        len += iov[i].len;
    }
    return prog_pieces(ctx, block, off, iov, n, len, NULL, 0);
}

int sim_init(sim_dev *d, const sim_profile *p, uint32_t blocks, void *image,
             uint64_t image_len, sim_timing timing, uint64_t seed, int fresh)
{
    int rc;
    if (!d || !p || !image)
        return SBD_ERR_INVAL;
    memset(d, 0, sizeof *d);
    d->prof = p;
    d->bd.ops = p->geo.needs_erase ? &sim_ops : &sim_ops_gather;
    d->bd.ctx = d;
    d->bd.geo = p->geo;
    if (blocks) {
        /* a NOR device keeps whole 64 KiB sectors */
        if (p->geo.big_erase_blocks > 1 && blocks % p->geo.big_erase_blocks)
            return SBD_ERR_INVAL;
        d->bd.geo.block_count = blocks;
    }
    if (image_len < sim_image_size(p, blocks))
        return SBD_ERR_INVAL;
    d->image = image;
    d->image_len = image_len;
    d->timing = timing;
    d->rng_time = seed ^ 0x5EEDF00D5EEDF00Dull;
    d->rng_fault = seed ^ 0xFA17FA17FA17FA17ull;
    d->powered = 1;
    if (fresh) {
        sim_image_format(d, seed);
    } else if ((rc = sim_image_check(d)) != 0) {
        return rc;
    }
    if (p->kind == SIM_SD)
        sim_sd_reset(d);
    return 0;
}

void sim_set_timing(sim_dev *d, sim_timing timing) { d->timing = timing; }

void sim_power_restore(sim_dev *d)
{
    d->powered = 1;
    d->pe_ops = 0;
    /* a power cycle drops the SD card's volatile FTL state (open AUs, cache) */
    if (d->prof->kind == SIM_SD)
        sim_sd_reset(d);
}

uint32_t sim_erase_count(const sim_dev *d, uint32_t block)
{
    if (block >= d->bd.geo.block_count)
        return 0;
    return sim_blk(d, block)->erase_count;
}

int sim_wear_block(sim_dev *d, uint32_t block, uint32_t erases)
{
    if (block >= d->bd.geo.block_count)
        return SBD_ERR_RANGE;
    sim_blk(d, block)->erase_count = erases;
    return 0;
}
