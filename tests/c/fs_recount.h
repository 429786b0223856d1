/* Test helper: a unit's live sectors recounted from the media the way
 * garbage collection judges them (map lookups), independently of the
 * counts the file system keeps.  Header-only (static), for tests that look
 * inside the core (src/fs/fs_internal.h). */
#ifndef STEADYFS_TEST_FS_RECOUNT_H
#define STEADYFS_TEST_FS_RECOUNT_H

#include <stdio.h>

#include "fs/fs_internal.h"

static inline int fs_recount_unit(steadyfs *fs, uint32_t b)
{
    uint32_t i, j, n = 0, cur, ppn;
    sfs_tag t;
    for (i = 0; i < fs->geo.P; i++) {
        int live = 0;
        ppn = b * fs->geo.P + i;
        if (sfs_rd_tag(fs, ppn, &t) < 0)
            continue;
        if (t.kind == TK_DATA) {
            for (j = 0; j < fs->npend && !live; j++)
                live = fs->pend[j].type == PT_L1 && (fs->pend[j].flags & PF_UNC) &&
                       fs->pend[j].key == t.key && fs->pend[j].ppn == ppn;
            /* a dying chunk's pages are still mapped (and counted) until
             * the trim step that frees the chunk */
            if (!live && sfs_lookup(fs, t.key, 0, &cur) == 0)
                live = sfs_copy_of(fs, cur) == ppn;   /* collection may have copied it */
            /* the sector a committed change replaced stays counted until
             * its L1 sector's merge (PF_OLD: the word that sector holds) */
            for (j = 0; j < fs->npend && !live; j++) {
                uint32_t l1, w;
                const struct sfs_pend *p = &fs->pend[j];
                if (p->type != PT_L1 || (p->flags & PF_UNC) || !(p->flags & PF_OLD) || p->key != t.key)
                    continue;
                live = sfs_l1_locate(fs, t.key / fs->geo.e1, &l1) == 0 && l1 != SFS_NONE &&
                       sfs_xc_word(fs, 0, l1, t.key, &w) == 0 && sfs_copy_of(fs, w) == ppn;
            }
        } else if (t.kind == TK_MAP1) {
            live = sfs_l1_locate(fs, t.key, &cur) == 0 && cur == ppn;
        } else if (t.kind == TK_MAP2) {
            live = t.key < fs->geo.n_l2 && fs->root[t.key] == ppn;
        }
        n += live != 0;
    }
    return (int)n;
}

/* The count the file system keeps for unit b (closed units and the two
 * heads), or -1 for a unit that holds nothing countable. */
static inline int fs_counted_unit(const steadyfs *fs, uint32_t b)
{
    return fs->blk[b] <= fs->geo.P ? fs->blk[b]
         : b == fs->log.head_block ? (int)fs->log.head_count
         : b == fs->log.gh_block ? (int)fs->log.gh_count : -1;
}

/* Units whose kept count differs from their recount (each one printed with
 * `when`): 0 when the counts are exact. */
static inline int fs_counts_differ(steadyfs *fs, const char *when)
{
    uint32_t b;
    int bad = 0;
    for (b = 0; b < fs->geo.nblocks; b++) {
        int want = fs_counted_unit(fs, b), have;
        if (want < 0 || (have = fs_recount_unit(fs, b)) == want)
            continue;
        fprintf(stderr, "%s: unit %u counted %d, holds %d\n", when, b, want, have);
        bad++;
    }
    return bad;
}

#endif
