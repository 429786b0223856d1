/* MRAM rules: none -- any byte is rewritten in place, no erase.  A torn
 * write stores a seeded prefix of the bytes. */
#include <string.h>

#include "bd/sim_internal.h"

int sim_mram_prog(sim_dev *d, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n,
                  uint32_t len, int torn)
{
    const sbd_geometry *g = &d->bd.geo;
    uint8_t *base = sim_page_raw(d, block, 0) + off;
    uint32_t i, k, left = len;

    /* torn: a seeded prefix of the whole, wherever the pieces meet */
    if (torn)
        left = (uint32_t)(sim_rng_next(&d->rng_fault) % ((uint64_t)len + 1u));
    for (k = 0; k < n && left; k++) {
        const uint8_t *src = iov[k].buf;
        uint32_t m = iov[k].len < left ? iov[k].len : left;
        for (i = 0; i < m; i++)
            base[i] = (uint8_t)(src[i] ^ g->erased_byte);
        base += m;
        left -= m;
    }
    return 0;
}
