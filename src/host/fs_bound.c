/* steadyfs_bound() in nanoseconds.  Uses the device models' own cost
 * arithmetic (sim_cost_op_ns, the same code that times every simulated
 * operation), so a bound and a measurement are in the same units.  Each
 * operation's worst time is affine in its length, so reads, programs and
 * bytes moved sum to a bound. */
#include "host/fs_bound.h"

#include <string.h>

static uint64_t slope_ns(uint64_t full, uint64_t zero, uint64_t bytes, uint64_t unit)
{
    return full > zero ? ((full - zero) * bytes + unit - 1) / unit : 0;
}

uint64_t steady_fs_cost_ns(const sim_profile *p, const steadyfs_config *cfg,
                           const steadyfs_cost *c, sim_timing mode)
{
    const sbd_geometry *g = &p->geo;
    uint32_t S = cfg->sector_size ? cfg->sector_size : 2048;
    uint32_t spare = g->spare_size >= 32 && S == g->page_size ? 32 : 0;
    uint32_t punit = spare || !g->needs_erase ? S : g->page_size;
    uint32_t mult = cfg->erase_mult;
    uint64_t r0, rS, p0, pU, e, ns;
    if (!mult)
        mult = spare ? 1 : g->needs_erase ? (g->big_erase_blocks ? g->big_erase_blocks : 1) : 1;
    r0 = sim_cost_op_ns(p, SIM_OP_READ, 0, 0, 0, mode, 1);
    rS = sim_cost_op_ns(p, SIM_OP_READ, 0, S, spare, mode, 1);
    p0 = sim_cost_op_ns(p, SIM_OP_PROG, 0, 0, 0, mode, 1);
    pU = sim_cost_op_ns(p, SIM_OP_PROG, 0, punit, spare, mode, 1);
    e = sim_cost_op_ns(p, SIM_OP_ERASE, 0, mult, 0, mode, 1);
    if (!g->needs_erase)
        e = 0;
    ns = c->reads * r0 + slope_ns(rS, r0, c->read_bytes, S + spare);
    ns += c->progs * p0 + slope_ns(pU, p0, c->prog_bytes, punit + spare);
    ns += c->erases * e;
    /* each operation's time is rounded up on its own (sim_time.c): a
     * nanosecond each that the summed slopes miss */
    ns += (uint64_t)c->reads + c->progs + c->erases;
    /* (a guarantee's per-record counts are for `per` records) */
    if (c->per > 1)
        ns = (ns + c->per - 1) / c->per;
    return ns;
}

uint64_t steady_fs_bound_ns(const sim_profile *p, const steadyfs_config *cfg, steadyfs_call call,
                            uint64_t n, sim_timing mode)
{
    steadyfs_cost c;
    if (steadyfs_bound(cfg, &p->geo, call, n, &c))
        return 0;
    return steady_fs_cost_ns(p, cfg, &c, mode);
}

static void default_cfg(steadyfs_config *cfg, const sim_profile *p, const steady_fmt *fmt)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->open_max = 1;
    /* a sector is a whole number of pages: the file system's 2048-byte
     * default does not fit a larger page (a user's 4 KiB-page NAND) */
    if (p->geo.page_size > 2048u)
        cfg->sector_size = p->geo.page_size;
    if (!fmt)
        return;
    if (fmt->sector_size)
        cfg->sector_size = fmt->sector_size;
    cfg->erase_mult = fmt->erase_mult;
    /* (beyond 16 bits: a value the configuration cannot hold, refused) */
    cfg->pending_max = (uint16_t)(fmt->pending_max > 0xFFFFu ? 1u : fmt->pending_max);
    cfg->replay_max = (uint16_t)(fmt->replay_max > 0xFFFFu ? 1u : fmt->replay_max);
    cfg->ring_units = (uint16_t)(fmt->ring_units > 0xFFFFu ? 1u : fmt->ring_units);
    cfg->ring_sectors = (uint16_t)(fmt->ring_sectors > 0xFFFFu ? 0xFFFFu : fmt->ring_sectors);
    /* (the bound only asks whether there is one: any address) */
    cfg->hold_buf = fmt->hold ? (void *)cfg : NULL;
}

uint64_t steady_fs_bound_ns_fmt(const char *profile, int call, uint64_t n, int mode,
                                const steady_fmt *fmt)
{
    const sim_profile *p = sim_profile_find(profile);
    steadyfs_config cfg;
    if (!p)
        return 0;
    default_cfg(&cfg, p, fmt);
    return steady_fs_bound_ns(p, &cfg, (steadyfs_call)call, n, (sim_timing)mode);
}

uint64_t steady_fs_bound_ns_without(const char *profile, int call, uint64_t n, int mode,
                                    const steady_fmt *fmt, uint32_t parts)
{
    const sim_profile *p = sim_profile_find(profile);
    steadyfs_config cfg;
    steadyfs_cost c;
    if (!p)
        return 0;
    default_cfg(&cfg, p, fmt);
    if (steadyfs_bound_without(&cfg, &p->geo, (steadyfs_call)call, n, parts, &c))
        return 0;
    return steady_fs_cost_ns(p, &cfg, &c, (sim_timing)mode);
}

int steady_fs_guarantee_ns_without(const char *profile, uint32_t record_size, int mode,
                                   uint32_t flags, const steady_fmt *fmt, uint32_t parts,
                                   uint64_t *c_ns, uint64_t *d_ns)
{
    const sim_profile *p = sim_profile_find(profile);
    steadyfs_config cfg;
    steadyfs_cost c, d;
    if (!p || !c_ns || !d_ns)
        return -1;
    default_cfg(&cfg, p, fmt);
    if (steadyfs_guarantee_without(&cfg, &p->geo, record_size, flags, parts, &c, &d))
        return -1;
    *c_ns = steady_fs_cost_ns(p, &cfg, &c, (sim_timing)mode);
    *d_ns = steady_fs_cost_ns(p, &cfg, &d, (sim_timing)mode);
    return 0;
}

uint64_t steady_fs_bound_ns_default(const char *profile, int call, uint64_t n, int mode)
{
    return steady_fs_bound_ns_fmt(profile, call, n, mode, NULL);
}

int steady_fs_guarantee_ns_kind(const char *profile, uint32_t record_size, uint32_t fill_permille,
                                int mode, uint32_t flags, const steady_fmt *fmt, uint64_t *c_ns,
                                uint64_t *d_ns, uint64_t *b_ns)
{
    const sim_profile *p = sim_profile_find(profile);
    steadyfs_config cfg;
    steadyfs_cost c, d;
    if (!p || !c_ns || !d_ns || fill_permille > 1000)
        return -1;
    default_cfg(&cfg, p, fmt);
    cfg.fill_permille = (uint16_t)fill_permille;
    if (steadyfs_guarantee_of(&cfg, &p->geo, record_size, flags, &c, &d))
        return -1;
    *c_ns = steady_fs_cost_ns(p, &cfg, &c, (sim_timing)mode);
    *d_ns = steady_fs_cost_ns(p, &cfg, &d, (sim_timing)mode);
    if (b_ns) {
        /* one record alone: an O_DSYNC write's bound, or a write + sync's,
         * or a ring append's (a ring of records of that size) */
        if (flags & STEADYFS_RECORD_RING)
            cfg.ring_units = 2;   /* (any ring: an append's bound is its record's sectors) */
        if (steadyfs_bound(&cfg, &p->geo,
                           flags & STEADYFS_RECORD_RING ? STEADYFS_CALL_RING_APPEND
                           : flags & STEADYFS_RECORD_DSYNC ? STEADYFS_CALL_WRITE_DSYNC
                                                           : STEADYFS_CALL_WRITE_SYNC,
                           record_size, &c))
            return -1;
        *b_ns = steady_fs_cost_ns(p, &cfg, &c, (sim_timing)mode);
    }
    return 0;
}

int steady_fs_guarantee_ns_default(const char *profile, uint32_t record_size,
                                   uint32_t fill_permille, int mode, uint64_t *c_ns,
                                   uint64_t *d_ns)
{
    return steady_fs_guarantee_ns_kind(profile, record_size, fill_permille, mode, 0, NULL, c_ns,
                                       d_ns, NULL);
}

int steady_fs_bound_ops_fmt(const char *profile, int call, uint64_t n, const steady_fmt *fmt,
                            steadyfs_cost *out)
{
    const sim_profile *p = sim_profile_find(profile);
    steadyfs_config cfg;
    if (!p)
        return -1;
    default_cfg(&cfg, p, fmt);
    return steadyfs_bound(&cfg, &p->geo, (steadyfs_call)call, n, out);
}

int steady_fs_geometry_fmt(const char *profile, const steady_fmt *fmt, steadyfs_info *out)
{
    const sim_profile *p = sim_profile_find(profile);
    steadyfs_config cfg;
    if (!p || !out)
        return -1;
    default_cfg(&cfg, p, fmt);
    return steadyfs_geometry(&cfg, &p->geo, out) ? -1 : 0;
}

int steady_fs_bound_ops_default(const char *profile, int call, uint64_t n, steadyfs_cost *out)
{
    return steady_fs_bound_ops_fmt(profile, call, n, NULL, out);
}
