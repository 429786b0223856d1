/*
 * SD cards: a flat array of 512-byte sectors whose data must read back
 * exactly (the data plane), timed by a model of the card's FTL (the time
 * plane, kept in sim_dev.sd_state).  The model and its calibration are in
 * src/bd/sim_sd.h and docs/DEVICES.md.
 */
#include <string.h>

#include "bd/sim_internal.h"
#include "bd/sim_sd.h"

#define SD_SECTOR 512u
#define SD_NONE 0xFFFFFFFFu
#define SD_MAX_UNITS_PER_AU 256u   /* 4 MiB / 16 KiB */

typedef struct sd_state {
    uint64_t rng;
    uint64_t tick;                         /* LRU clock */
    uint64_t au_used[SIM_SD_MAX_OPEN_AUS]; /* last use, for LRU */
    uint32_t au[SIM_SD_MAX_OPEN_AUS];      /* open AU numbers, SD_NONE if free */
    uint8_t written[SIM_SD_MAX_OPEN_AUS][SD_MAX_UNITS_PER_AU / 8u];
    uint32_t cache_unit;                   /* unit in the write cache */
    uint32_t cache_end;                    /* bytes of it written in sequence */
    uint32_t units_programmed;
} sd_state;

_Static_assert(sizeof(sd_state) <= sizeof(((sim_dev *)0)->sd_state),
               "SD FTL state must fit sim_dev.sd_state");

/* sim_dev.sd_state is a byte array with no alignment promise: the state is
 * copied in and out rather than cast. */
static void load(const sim_dev *d, sd_state *s) { memcpy(s, d->sd_state, sizeof *s); }
static void store(sim_dev *d, const sd_state *s) { memcpy(d->sd_state, s, sizeof *s); }

void sim_sd_reset(sim_dev *d)
{
    sd_state s;
    uint32_t i;
    memset(&s, 0, sizeof s);
    s.rng = d->rng_time ^ 0x5DCA4D5DCA4D5DCAull;
    for (i = 0; i < SIM_SD_MAX_OPEN_AUS; i++)
        s.au[i] = SD_NONE;
    s.cache_unit = SD_NONE;
    store(d, &s);
}

int sim_sd_read(sim_dev *d, uint32_t block, uint32_t off, uint8_t *buf, uint32_t len)
{
    uint64_t pos = (uint64_t)block * sbd_block_size(&d->bd) + off;
    memcpy(buf, sim_sd_data(d) + pos, len);
    return 0;
}

int sim_sd_prog(sim_dev *d, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n,
                uint32_t len, int torn)
{
    uint8_t *dst = sim_sd_data(d) + (uint64_t)block * sbd_block_size(&d->bd) + off;
    uint32_t k;
    /* torn: the card committed a seeded prefix of the sectors */
    if (torn)
        len = (uint32_t)(sim_rng_next(&d->rng_fault) % (len / SD_SECTOR + 1u)) * SD_SECTOR;
    for (k = 0; k < n && len; k++) {
        uint32_t m = iov[k].len < len ? iov[k].len : len;
        memcpy(dst, iov[k].buf, m);
        dst += m;
        len -= m;
    }
    return 0;
}

static uint64_t draw_range(uint64_t *rng, uint64_t lo, uint64_t hi)
{
    return lo + (hi > lo ? sim_rng_next(rng) % (hi - lo + 1u) : 0u);
}

/* Make `au` open; returns the time spent closing (merging) the least
 * recently used AU and opening this one. */
static uint64_t open_au(const struct sim_sd_params *sp, sd_state *s, uint32_t au,
                        uint32_t *slot_out)
{
    uint32_t i, slot = 0, n = sp->open_aus < SIM_SD_MAX_OPEN_AUS ? sp->open_aus
                                                                 : SIM_SD_MAX_OPEN_AUS;
    uint32_t units = sp->au_bytes / sp->unit_bytes, k, missing = 0;
    uint64_t t = 0;

    if (units > SD_MAX_UNITS_PER_AU)
        units = SD_MAX_UNITS_PER_AU;
    for (i = 0; i < n; i++)
        if (s->au[i] == au) {
            *slot_out = i;
            return 0;
        }
    for (i = 0; i < n; i++) {
        if (s->au[i] == SD_NONE) {
            slot = i;
            break;
        }
        if (s->au_used[i] < s->au_used[slot])
            slot = i;
    }
    if (s->au[slot] != SD_NONE) {
        /* closing: copy the units of the old AU that were never written */
        for (k = 0; k < units; k++)
            if (!(s->written[slot][k / 8u] & (1u << (k % 8u))))
                missing++;
        t += (uint64_t)missing * sp->copy_unit_ns;
    }
    s->au[slot] = au;
    memset(s->written[slot], 0, sizeof s->written[slot]);
    *slot_out = slot;
    return t + sp->t_au_open;
}

uint64_t sim_sd_prog_ns(sim_dev *d, uint64_t lba, uint32_t nsec)
{
    const sim_profile *p = d->prof;
    const struct sim_sd_params *sp = p->sd;
    sd_state st, *s = &st;
    uint64_t start = lba * SD_SECTOR, end = start + (uint64_t)nsec * SD_SECTOR;
    uint64_t busy = sp->t_cmd, host, u;
    uint32_t ub = sp->unit_bytes, k;

    load(d, s);
    host = p->bus.overhead_ns + sim_xfer_ns(&p->bus, 0, 0) +
           sim_xfer_ns(&p->bus, nsec * SD_SECTOR, 0);
    for (u = start / ub; u * ub < end; u++) {
        uint32_t au = (uint32_t)(u * ub / sp->au_bytes), slot, a, b;
        uint32_t unit_in_au = (uint32_t)(u - (uint64_t)au * (sp->au_bytes / ub));
        uint64_t lo = u * ub, hi = lo + ub;

        busy += open_au(sp, s, au, &slot);
        s->au_used[slot] = ++s->tick;
        a = (uint32_t)((start > lo ? start : lo) - lo);
        b = (uint32_t)((end < hi ? end : hi) - lo);
        if (a == 0 && b == ub) {
            busy += sp->t_unit_prog;               /* whole unit */
        } else if ((u == s->cache_unit && a == s->cache_end) ||
                   (a == 0 && s->cache_unit != SD_NONE && u == s->cache_unit + 1u &&
                    s->cache_end == ub)) {
            busy += sp->t_unit_prog;               /* append in the write cache */
        } else {
            busy += sp->t_unit_read + sp->t_unit_prog; /* read-modify-write */
        }
        if (unit_in_au < SD_MAX_UNITS_PER_AU)
            s->written[slot][unit_in_au / 8u] |= (uint8_t)(1u << (unit_in_au % 8u));
        s->cache_unit = (uint32_t)u;
        s->cache_end = b;
        s->units_programmed++;
        if (sp->gc_period_units && s->units_programmed % sp->gc_period_units == 0)
            busy += sp->t_gc_step;
    }
    /* timing mode: jitter on the modelled work, then background stalls */
    if (d->timing == SIM_WORST) {
        store(d, s);
        return host + sp->t_busy_max;
    }
    if (p->jitter_permille) {
        uint64_t band = busy * p->jitter_permille / 1000u;
        busy = busy - band + sim_rng_next(&s->rng) % (2u * band + 1u);
    }
    for (k = 0; k < 3u; k++)
        if (sp->stall[k].ppm && sim_rng_next(&s->rng) % 1000000u < sp->stall[k].ppm)
            busy += draw_range(&s->rng, sp->stall[k].min_ns, sp->stall[k].max_ns);
    if (d->timing == SIM_TAIL && sim_rng_next(&s->rng) % 1000000u < p->tail_ppm)
        busy = sp->t_busy_max;
    if (busy > sp->t_busy_max)
        busy = sp->t_busy_max;
    store(d, s);
    return host + busy;
}

uint64_t sim_sd_read_ns(sim_dev *d, uint64_t lba, uint32_t nsec)
{
    const sim_profile *p = d->prof;
    sd_state s;
    uint64_t t;
    (void)lba;
    load(d, &s);
    t = p->bus.overhead_ns + sim_xfer_ns(&p->bus, 0, 0) +
        sim_xfer_ns(&p->bus, nsec * SD_SECTOR, 0) +
        sim_array_ns(p, &p->t_read, d->timing, &s.rng, SIM_PICK_DRAW);
    store(d, &s);
    return t;
}

uint64_t sim_sd_cost_ns(const sim_profile *p, enum sim_op op, uint32_t len, int maximum)
{
    const struct sim_sd_params *sp = p->sd;
    uint64_t host = p->bus.overhead_ns + sim_xfer_ns(&p->bus, 0, 0) +
                    sim_xfer_ns(&p->bus, len, 0);
    uint32_t units = (len + sp->unit_bytes - 1u) / sp->unit_bytes;
    switch (op) {
    case SIM_OP_READ:
        return host + (maximum ? p->t_read.max_ns : p->t_read.typ_ns);
    case SIM_OP_PROG:
        return host + (maximum ? sp->t_busy_max
                               : sp->t_cmd + (uint64_t)(units ? units : 1u) * sp->t_unit_prog);
    default:
        return 0;
    }
}
