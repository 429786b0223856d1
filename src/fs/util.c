/* Helpers every layer of the core uses (layer 0, fs_internal.h): bits of
 * a bitmap, the work area carved into tables, and the check a map word
 * carries on media (fs_internal.h sfs_map_get, SPEC §4).  Called, not inlined:
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

/* The bits a sector number of this device takes, with room for NONE,
 * UNKNOWN and LOST above the largest: a word's check is the rest. */
static uint32_t word_bits(const steadyfs *fs)
{
    /* (one instruction on Cortex-M3: every map word read or written asks) */
    return 32u - (uint32_t)__builtin_clz(fs->geo.nblocks * fs->geo.P + 3u);
}

uint32_t sfs_word_enc(const steadyfs *fs, uint32_t key, uint32_t ppn)
{
    uint32_t b = word_bits(fs), x;
    if (ppn >= SFS_LOST || b >= 32u)
        return ppn;
    /* (a multiplicative mix: any bit of the key or the sector changes
     * about half the check's) */
    x = (key ^ 0x5BD1E995u) * 0x9E3779B1u ^ (ppn + 0x7F4A7C15u) * 0x85EBCA77u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 13;
    return ppn | x << b;
}

uint32_t sfs_word_dec(const steadyfs *fs, uint32_t key, uint32_t w)
{
    uint32_t b = word_bits(fs), ppn;
    if (w >= SFS_LOST || b >= 32u)
        return w;
    ppn = w & ((1u << b) - 1u);
    return ppn < fs->geo.nblocks * fs->geo.P && sfs_word_enc(fs, key, ppn) == w ? ppn : SFS_LOST;
}

uint32_t sfs_map_get(const steadyfs *fs, const uint8_t *sec, uint32_t key0, uint32_t i)
{
    return sfs_word_dec(fs, key0 + i, sfs_get32(sec + 4u * i));
}

void sfs_map_put(const steadyfs *fs, uint8_t *sec, uint32_t key0, uint32_t i, uint32_t ppn)
{
    sfs_put32(sec + 4u * i, sfs_word_enc(fs, key0 + i, ppn));
}
