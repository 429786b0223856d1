/* Chunks: the dense logical space's allocation unit (DESIGN.md §4).
 *
 * A file's data pages >= 1 live in chunks of C logical pages; the used
 * and dying bitmaps (n_c bits each, in RAM and in every checkpoint) say
 * which chunks a file holds and which a kill gave up.  A dying chunk's map
 * words still point at its dead sectors, which stay counted (collection
 * knows them dead by the dying bit and does not copy them); a trim step
 * rewrites the L1 sector that holds it with those words none, uncounts the
 * sectors and frees the chunk.  Because chunks are numbered densely from
 * the bottom of the space, the map has at most n_l1 L1 sectors whatever
 * the files look like: what collection without map writes needs. */
#include "fs/fs_internal.h"

/* A chunk an uncommitted transaction took (its first sector written). */
static int taken(const steadyfs *fs, uint32_t c)
{
    uint32_t i;
    for (i = 0; i < fs->npend; i++)
        if (fs->pend[i].type == PT_CHUNK && (fs->pend[i].flags & PF_UNC) && (fs->pend[i].ppn & 0xFFFFu) == c)
            return 1;
    return 0;
}

int sfs_chunk_find(steadyfs *fs, uint32_t *c, uint32_t exclude)
{
    uint32_t k, i;
    for (k = 0; k < fs->geo.n_c; k++) {
        i = (fs->chunk.cursor + k) % fs->geo.n_c;
        /* a whole byte of used chunks at once */
        if ((i & 7u) == 0 && fs->chunk.used[i >> 3] == 0xFFu && i + 8 <= fs->geo.n_c) {
            k += 7;
            continue;
        }
        if (!sfs_bit(fs->chunk.used, i) && !sfs_bit(fs->chunk.dying, i) && !taken(fs, i) && i != exclude) {
            /* sequential: a log's chunks share L1 sectors, so trimming it
             * after its deletion touches few */
            fs->chunk.cursor = i;
            *c = i;
            return 0;
        }
    }
    return STEADYFS_ENOSPC;
}

void sfs_chunk_die(steadyfs *fs, uint32_t c)
{
    if (c >= fs->geo.n_c || sfs_bit(fs->chunk.dying, c))
        return;
    sfs_bit_set(fs->chunk.dying, c, 1);
    if (!fs->chunk.ndying++)
        fs->chunk.age = (uint32_t)fs->log.seq;
}
