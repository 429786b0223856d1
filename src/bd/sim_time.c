/*
 * Every duration of the raw device models, in one place: bus transfers at
 * the profile's bus shape, and array times (tR, tPROG, tBERS) chosen by the
 * timing mode.  The models (through sim_op_ns with SIM_PICK_DRAW) and the
 * worst-case bound calculators (sim_cost_ns / sim_cost_bound_ns) use this
 * same arithmetic, so a bound is exact.
 */
#include "bd/sim_internal.h"

/* splitmix64: tiny, full-period, and the same on every target. */
uint64_t sim_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t sim_xfer_ns(const sim_bus *b, uint32_t n, int with_dummy)
{
    uint64_t clocks;
    if (!b->hz)
        return 0;
    clocks = 8u / (b->cmd_lines ? b->cmd_lines : 1u) +
             8u * (uint64_t)b->addr_bytes / (b->addr_lines ? b->addr_lines : 1u) +
             (with_dummy ? b->dummy_cycles : 0u) +
             8u * (uint64_t)n / (b->data_lines ? b->data_lines : 1u);
    /* rounded up: a started clock period is spent */
    return (clocks * 1000000000ull + b->hz - 1) / b->hz;
}

uint64_t sim_array_ns(const sim_profile *p, const sim_range *r, sim_timing mode,
                      uint64_t *rng, sim_pick pick)
{
    uint64_t typ = r->typ_ns, max = r->max_ns > r->typ_ns ? r->max_ns : r->typ_ns;
    uint64_t band = typ * p->jitter_permille / 1000u, v;

    if (typ == 0 && max == 0)
        return 0;
    if (mode == SIM_WORST)
        return max;
    if (pick == SIM_PICK_NOMINAL)
        return mode == SIM_TYPICAL ? typ : max;
    if (pick == SIM_PICK_BOUND)
        return mode == SIM_TYPICAL ? (typ + band < max ? typ + band : max) : max;
    /* One draw per array time in both drawing modes, so the sequence of draws
     * (and so every later duration) does not depend on earlier outcomes. */
    v = sim_rng_next(rng);
    if (mode == SIM_TAIL && (v >> 40) % 1000000u < p->tail_ppm)
        return max;
    v = typ - band + (v & 0xFFFFFFFFFFull) % (2u * band + 1u);
    return v < max ? v : max;
}

/* One NAND page operation of n bytes. */
static uint64_t nand_page_ns(const sim_profile *p, enum sim_op op, uint32_t n,
                             sim_timing mode, uint64_t *rng, sim_pick pick)
{
    const sim_bus *b = &p->bus;
    switch (op) {
    case SIM_OP_READ: /* PAGE READ (13h) to cache, wait tR, READ FROM CACHE */
        return b->overhead_ns + sim_xfer_ns(b, 0, 0) +
               sim_array_ns(p, &p->t_read, mode, rng, pick) + sim_xfer_ns(b, n, 1);
    case SIM_OP_PROG: /* PROGRAM LOAD, PROGRAM EXECUTE, wait tPROG */
        return b->overhead_ns + sim_xfer_ns(b, n, 0) + sim_xfer_ns(b, 0, 0) +
               sim_array_ns(p, &p->t_prog, mode, rng, pick);
    default:
        return 0;
    }
}

uint64_t sim_op_ns(const sim_profile *p, enum sim_op op, uint32_t off, uint32_t len,
                   uint32_t spare_len, sim_timing mode, uint64_t *rng, sim_pick pick)
{
    const sim_bus *b = &p->bus;
    uint32_t unit, first, n;
    uint64_t t = 0;

    if (op == SIM_OP_SYNC)
        return 0;
    if (op == SIM_OP_ERASE) {
        if (!p->geo.needs_erase)
            return 0;   /* the contract: a free no-op */
        /* len = blocks: one command, the big-erase time if it is one */
        if (len > 1 && len == p->geo.big_erase_blocks)
            return b->overhead_ns + sim_xfer_ns(b, 0, 0) +
                   sim_array_ns(p, &p->t_erase_big, mode, rng, pick);
        if (len > 1 && len == p->geo.mid_erase_blocks)
            return b->overhead_ns + sim_xfer_ns(b, 0, 0) +
                   sim_array_ns(p, &p->t_erase_mid, mode, rng, pick);
        for (n = 0; n < (len ? len : 1u); n++)
            t += b->overhead_ns + sim_xfer_ns(b, 0, 0) +
                 sim_array_ns(p, &p->t_erase, mode, rng, pick);
        return t;
    }
    switch (p->kind) {
    case SIM_NAND:
        /* one page operation per page touched */
        unit = p->geo.page_size;
        break;
    case SIM_NOR:
        if (op == SIM_OP_READ) /* reads stream across pages in one command */
            return b->overhead_ns + sim_xfer_ns(b, len + spare_len, 1);
        unit = p->geo.page_size; /* page program never crosses a 256 B page */
        break;
    case SIM_MRAM:
        /* byte-writable at bus speed: one command, no array time */
        return b->overhead_ns + sim_xfer_ns(b, len + spare_len, op == SIM_OP_READ) +
               (op == SIM_OP_PROG ? sim_array_ns(p, &p->t_prog, mode, rng, pick) : 0u);
    default:
        return 0;
    }
    do {
        first = unit - off % unit;
        n = len < first ? len : first;
        /* spare bytes ride with the first (only) page of the operation */
        if (p->kind == SIM_NAND)
            t += nand_page_ns(p, op, n + spare_len, mode, rng, pick);
        else
            t += b->overhead_ns + sim_xfer_ns(b, n + spare_len, 0) +
                 sim_array_ns(p, &p->t_prog, mode, rng, pick);
        spare_len = 0;
        off += n;
        len -= n;
    } while (len);
    return t;
}

uint64_t sim_cost_op_ns(const sim_profile *p, enum sim_op op, uint32_t off, uint32_t len,
                        uint32_t spare_len, sim_timing mode, int bound)
{
    if (p->kind == SIM_SD)
        return sim_sd_cost_ns(p, op, len, bound || mode != SIM_TYPICAL);
    return sim_op_ns(p, op, off, len, spare_len, mode, NULL,
                     bound ? SIM_PICK_BOUND : SIM_PICK_NOMINAL);
}

uint64_t sim_cost_ns(const sim_profile *p, enum sim_op op, uint32_t len, sim_timing mode)
{
    return sim_cost_op_ns(p, op, 0, len, 0, mode, 0);
}

uint64_t sim_cost_bound_ns(const sim_profile *p, enum sim_op op, uint32_t len,
                           sim_timing mode)
{
    return sim_cost_op_ns(p, op, 0, len, 0, mode, 1);
}
