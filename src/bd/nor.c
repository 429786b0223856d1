/* NOR rules: a program may only turn bits 1 -> 0, anywhere and any number
 * of times between erases.  A torn program clears a seeded subset of the
 * bits it should have cleared. */
#include "bd/sim_internal.h"

int sim_nor_prog(sim_dev *d, uint32_t block, uint32_t off, const uint8_t *buf,
                 uint32_t len, int torn)
{
    const sbd_geometry *g = &d->bd.geo;
    uint32_t i;
    uint8_t *base = sim_page_raw(d, block, 0);   /* NOR has no spare: flat block */

    for (i = 0; i < len; i++) {
        uint8_t cur = (uint8_t)(base[off + i] ^ g->erased_byte);
        if ((uint8_t)(cur & buf[i]) != buf[i])
            return SBD_ERR_RULE;    /* a 0 bit would have to become 1 */
    }
    for (i = 0; i < len; i++) {
        uint8_t cur = (uint8_t)(base[off + i] ^ g->erased_byte);
        uint8_t clear = (uint8_t)(cur & ~buf[i]);
        if (torn)
            clear &= (uint8_t)sim_rng_next(&d->rng_fault);
        base[off + i] = (uint8_t)((cur & ~clear) ^ g->erased_byte);
    }
    return 0;
}
