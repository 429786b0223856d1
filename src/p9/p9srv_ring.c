/* The record ring's view (format 15, docs/DESIGN.md §13, docs/P9.md): a
 * file system with a record ring shows it to 9P clients as one read-only
 * file, /.ring (not listed in the root: walked to by name).  Record n of
 * the ring is at byte n * slot (slot = ring_sectors * payload), its bytes
 * and then zeros to the slot's end; a record the ring no longer holds (or
 * never held: a cut stopped its append, its unit went bad) reads as zeros;
 * the file ends after the last record.  So offsets never move as the ring
 * turns: `tail -c` or a read at the last offset seen picks up new records.
 * Nothing writes, truncates, removes, renames or creates it (EROFS; a new
 * name .ring in the root: EEXIST). */
#include "p9/p9srv_internal.h"

#if STEADYFS_WITH_RING
/* qid.path of the view: above every inode id steadyfs gives (inode number
 * and generation in 32 bits each; generations count from 1) */
#define RING_ID 0xFFFFFFFFFFFFFF00ull

static int span(p9srv *s, uint64_t *first, uint64_t *next, uint32_t *slot)
{
    steadyfs_info info;
    steadyfs *fs = s->cfg.fs;
    if (steadyfs_ring_span(fs, first, next) || steadyfs_info_get(fs, &info))
        return -1;
    *slot = (uint32_t)fs->cfg.ring_sectors * info.data_per_sector;
    return 0;
}

int srv_ring_here(p9srv *s, const char *path)
{
    uint64_t first, next;
    uint32_t slot;
    return strcmp(path, SRV_RING_PATH) == 0 && span(s, &first, &next, &slot) == 0;
}

int srv_stat_path(p9srv *s, const char *path, steadyfs_stat *st)
{
    uint64_t first, next;
    uint32_t slot;
    if (strcmp(path, SRV_RING_PATH) || span(s, &first, &next, &slot))
        return steadyfs_stat_path(s->cfg.fs, path, st);
    memset(st, 0, sizeof *st);
    st->id = RING_ID;
    st->size = next * slot;
    st->type = STEADYFS_TYPE_FILE;
    st->mode = 0444;
    st->nlink = 1;
    return 0;
}

int32_t srv_ring_read(p9srv *s, uint8_t *out, uint64_t off, uint32_t count)
{
    uint64_t first, next;
    uint32_t slot, pos = 0;
    if (span(s, &first, &next, &slot))
        return STEADYFS_EIO;
    while (pos < count) {
        uint64_t n = (off + pos) / slot;
        uint32_t in = (uint32_t)((off + pos) % slot), want = slot - in;
        int32_t got = 0;
        if (n >= next)
            break;   /* the end */
        if (want > count - pos)
            want = count - pos;
        if (n >= first)
            got = steadyfs_ring_read_at(s->cfg.fs, n, in, out + pos, want);
        if (got == STEADYFS_ENOENT)
            got = 0;   /* no such record any more (or ever): zeros */
        if (got < 0)
            return pos ? (int32_t)pos : got;
        memset(out + pos + got, 0, want - (uint32_t)got);
        pos += want;
    }
    return (int32_t)pos;
}
#else
typedef int srv_ring_none;   /* (a build without the ring: p9srv_internal.h) */
#endif
