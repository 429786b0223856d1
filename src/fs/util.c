/* Helpers every layer of the core uses (layer 0, fs_internal.h): bits of
 * a bitmap, the work area carved into tables, and the checks a map word
 * and a chunk-list entry carry on media (fs_internal.h sfs_map_get,
 * sfs_chunk_dec; SPEC §4, §5).  Called, not inlined:
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

/* A multiplicative mix of a key and a value: any bit of either changes
 * about half the result's. */
static uint32_t mix(uint32_t key, uint32_t v)
{
    uint32_t x = (key ^ 0x5BD1E995u) * 0x9E3779B1u ^ (v + 0x7F4A7C15u) * 0x85EBCA77u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 13;
    return x;
}

uint32_t sfs_word_enc(const steadyfs *fs, uint32_t key, uint32_t ppn)
{
    uint32_t b = word_bits(fs);
    if (ppn >= SFS_LOST || b >= 32u)
        return ppn;
    return ppn | mix(key, ppn) << b;
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

/* The bits a chunk number of this device takes: every chunk is below
 * 2^b - 1, so an entry's low bits are never all ones, and no entry is
 * CHUNK_NONE.  The check is the 16 - b bits above. */
static uint32_t chunk_bits(const steadyfs *fs)
{
    return 32u - (uint32_t)__builtin_clz(fs->geo.n_c);
}

uint32_t sfs_chunk_enc(const steadyfs *fs, uint32_t ino, uint32_t slot, uint32_t c)
{
    uint32_t b = chunk_bits(fs);
    if (c >= fs->geo.n_c || b >= 16u)
        return c;
    /* (the key is 0x40000000 + ino << 16 + slot: apart from every map key) */
    return (c | mix(0x40000000u ^ (ino << 16) ^ slot, c) << b) & 0xFFFFu;
}

uint32_t sfs_chunk_dec(const steadyfs *fs, uint32_t ino, uint32_t slot, uint32_t e)
{
    uint32_t b = chunk_bits(fs), c;
    if (e == CHUNK_NONE)
        return e;
    c = b >= 16u ? e : e & ((1u << b) - 1u);
    return c < fs->geo.n_c && sfs_chunk_enc(fs, ino, slot, c) == e ? c : CHUNK_BAD;
}

uint32_t sfs_list_get(const steadyfs *fs, const uint8_t *sec, uint32_t ino, uint32_t slot)
{
    return sfs_chunk_dec(fs, ino, slot, sfs_get16(sec + SFS_INODE_HDR + 2u * slot));
}

void sfs_list_put(const steadyfs *fs, uint8_t *sec, uint32_t ino, uint32_t slot, uint32_t c)
{
    sfs_put16(sec + SFS_INODE_HDR + 2u * slot, (uint16_t)sfs_chunk_enc(fs, ino, slot, c));
}
