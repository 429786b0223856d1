/* Device reads that return no bytes (SBD_ERR_IO: a bus, link or host
 * error, which the device models never inject): a wrapper around a block
 * device that fails reads in bursts at a rate, a window of reads by their
 * number, or every read of an address range, and passes everything else
 * to the device it wraps.  Shared by test_fs_io_errors, test_fs_ring and
 * test_fs_repair. */
#ifndef STEADYFS_TEST_READ_ERRORS_H
#define STEADYFS_TEST_READ_ERRORS_H

#include <stdint.h>
#include <string.h>

#include "fs_testdev.h"
#include "steadyfs/bd.h"

typedef struct read_errors {
    sbd bd;                  /* the wrapped device, to put in cfg.bd */
    sbd_ops ops;
    const sbd *inner;
    uint64_t rng;
    uint32_t one_in;         /* a burst starts at one read in one_in (0: none) */
    uint32_t burst_max;      /* a burst fails 1..burst_max consecutive reads */
    uint32_t burst_left;
    uint64_t reads;          /* reads since the caller last set it */
    uint64_t window_at;      /* reads window_at .. + window_len - 1 fail */
    uint64_t window_len;
    uint64_t injected;       /* reads failed */
    uint32_t at_block;       /* the next at_left reads of block at_block */
    uint32_t at_lo, at_hi;   /* that touch bytes at_lo .. at_hi - 1 fail */
    uint32_t at_left;
} read_errors;

static int re_read(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len, void *spare,
                   uint32_t spare_len)
{
    read_errors *w = ctx;
    int fail = w->reads++ - w->window_at < w->window_len;
    if (!fail && w->at_left && block == w->at_block && off < w->at_hi && off + (len ? len : 1u) > w->at_lo) {
        w->at_left--;
        fail = 1;
    }
    if (!fail && w->one_in && !w->burst_left && tdev_rand(&w->rng, w->one_in) == 0)
        w->burst_left = 1u + tdev_rand(&w->rng, w->burst_max);
    if (!fail && w->one_in && w->burst_left) {
        w->burst_left--;
        fail = 1;
    }
    if (fail) {
        w->injected++;
        /* (no bytes: what the buffers hold is undefined) */
        if (buf && len)
            memset(buf, 0xA5, len);
        if (spare && spare_len)
            memset(spare, 0xA5, spare_len);
        return SBD_ERR_IO;
    }
    return w->inner->ops->read(w->inner->ctx, block, off, buf, len, spare, spare_len);
}

static int re_prog(void *ctx, uint32_t b, uint32_t o, const void *buf, uint32_t l, const void *s, uint32_t sl)
{
    const sbd *in = ((read_errors *)ctx)->inner;
    return in->ops->prog(in->ctx, b, o, buf, l, s, sl);
}

static int re_erase(void *ctx, uint32_t b, uint32_t n)
{
    const sbd *in = ((read_errors *)ctx)->inner;
    return in->ops->erase(in->ctx, b, n);
}

static int re_sync(void *ctx)
{
    const sbd *in = ((read_errors *)ctx)->inner;
    return in->ops->sync(in->ctx);
}

static int re_is_bad(void *ctx, uint32_t b)
{
    const sbd *in = ((read_errors *)ctx)->inner;
    return in->ops->is_bad(in->ctx, b);
}

static int re_mark_bad(void *ctx, uint32_t b)
{
    const sbd *in = ((read_errors *)ctx)->inner;
    return in->ops->mark_bad(in->ctx, b);
}

static int re_progv(void *ctx, uint32_t b, uint32_t o, const sbd_iov *iov, uint32_t n)
{
    const sbd *in = ((read_errors *)ctx)->inner;
    return in->ops->progv(in->ctx, b, o, iov, n);
}

/* w wraps inner, with no errors yet; the rng from seed. */
static inline void read_errors_wrap(read_errors *w, const sbd *inner, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->inner = inner;
    w->rng = seed * 104729u + 1u;
    w->window_at = UINT64_MAX;
    w->ops.read = re_read;
    w->ops.prog = re_prog;
    w->ops.erase = re_erase;
    w->ops.sync = re_sync;
    w->ops.is_bad = re_is_bad;
    w->ops.mark_bad = re_mark_bad;
    w->ops.progv = inner->ops->progv ? re_progv : NULL;
    w->bd = *inner;
    w->bd.ops = &w->ops;
    w->bd.ctx = w;
}

/* Fail the next n reads that touch bytes lo .. hi - 1 of block b (n 0:
 * none; UINT32_MAX: every one), as a link that fails on one address
 * would. */
static inline void read_errors_at(read_errors *w, uint32_t b, uint32_t lo, uint32_t hi, uint32_t n)
{
    w->at_block = b;
    w->at_lo = lo;
    w->at_hi = hi;
    w->at_left = n;
}

/* Fail the n reads from the k-th on, counted from now (n 0: none). */
static inline void read_errors_window(read_errors *w, uint64_t k, uint64_t n)
{
    w->reads = 0;
    w->window_at = n ? k : UINT64_MAX;
    w->window_len = n;
}

#endif
