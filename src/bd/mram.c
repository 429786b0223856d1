/* MRAM rules: none -- any byte is rewritten in place, no erase.  A torn
 * write stores a seeded prefix of the bytes. */
#include <string.h>

#include "bd/sim_internal.h"

int sim_mram_prog(sim_dev *d, uint32_t block, uint32_t off, const uint8_t *buf,
                  uint32_t len, int torn)
{
    const sbd_geometry *g = &d->bd.geo;
    uint8_t *base = sim_page_raw(d, block, 0);
    uint32_t i, n = len;

    if (torn)
        n = (uint32_t)(sim_rng_next(&d->rng_fault) % ((uint64_t)len + 1u));
    for (i = 0; i < n; i++)
        base[off + i] = (uint8_t)(buf[i] ^ g->erased_byte);
    return 0;
}
