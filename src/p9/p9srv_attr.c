/* What a 9P2000.L client sees of a steadyfs file: qids, Rgetattr, Rstatfs
 * and errno values.  steadyfs keeps no mode, owner or times; the values
 * reported instead are fixed and documented in p9srv.h, so a client never
 * sees an attribute change that did not happen. */
#include "p9/p9srv_internal.h"

#define MODE_DIR 0040755u
#define MODE_FILE 0100644u
/* Rstatfs f_type: "STDY", so `stat -f` names no other file system. */
#define STEADYFS_MAGIC 0x59445453u

void srv_qid(struct p9_qid *q, uint8_t type, uint64_t id)
{
    q->type = type == STEADYFS_TYPE_DIR ? P9_QTDIR : P9_QTFILE;
    q->version = 0;
    q->path = id;
}

void srv_getattr(const p9srv *s, const steadyfs_stat *st, uint32_t blksize, struct p9_stat *out)
{
    memset(out, 0, sizeof *out);
    /* Everything in BASIC is answered (times as 0: the epoch) plus the
     * generation; BTIME and DATA_VERSION are not kept. */
    out->valid = P9_GETATTR_BASIC | P9_GETATTR_GEN;
    srv_qid(&out->qid, st->type, st->id);
    out->mode = st->type == STEADYFS_TYPE_DIR ? MODE_DIR : MODE_FILE;
    out->uid = s->uid;
    out->gid = s->uid;
    out->nlink = 1;
    out->size = st->size;
    out->blksize = blksize;
    out->blocks = (st->size + 511u) / 512u;
    out->gen = st->id >> 32;
}

int srv_statfs(p9srv *s, struct p9_statfs *out)
{
    steadyfs_info info;
    int rc = steadyfs_info_get(s->cfg.fs, &info);
    uint32_t bs;
    if (rc)
        return rc;
    bs = info.data_per_sector ? info.data_per_sector : 1u;
    memset(out, 0, sizeof *out);
    out->type = STEADYFS_MAGIC;
    out->bsize = bs;
    out->blocks = info.capacity / bs;
    out->bfree = info.free / bs;
    out->bavail = out->bfree;
    /* files/ffree: steadyfs_info does not report inode counts; 0 means
     * "unknown" to df -i. */
    out->namelen = STEADYFS_NAME_MAX;
    return 0;
}

uint32_t srv_errno(int rc)
{
    /* steadyfs errors are already -errno (steadyfs.h); anything outside the
     * errno range is a bug somewhere and is reported as EIO. */
    if (rc < 0 && rc >= -133)
        return (uint32_t)-rc;
    return 5u;
}
