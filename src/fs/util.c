/* Helpers every layer of the core uses (layer 0, fs_internal.h): bits of
 * a bitmap, and the work area carved into tables.  Called, not inlined:
 * the bit helpers have ~25 callers, and inline copies cost firmware code. */
#include "fs/fs_internal.h"

int sfs_bit(const uint8_t *map, uint32_t i) { return map[i >> 3] >> (i & 7u) & 1u; }

void sfs_bit_set(uint8_t *map, uint32_t i, int on)
{
    if (on)
        map[i >> 3] |= (uint8_t)(1u << (i & 7u));
    else
        map[i >> 3] &= (uint8_t)~(1u << (i & 7u));
}

void *sfs_carve(uint8_t *w, uint32_t *off, uint32_t n)
{
    void *p = w ? w + *off : NULL;
    *off += ((n + 3u) & ~3u);
    return p;
}
