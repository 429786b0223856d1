/* 9P2000.L decoder: every field is read through the bounds-checked reader
 * of p9_wire.h, limited to the message's own size field, so a malformed
 * message can only produce an error code, never an out-of-bounds access. */
#include "p9/p9_wire.h"

/* Messages larger than this cannot be returned as a positive int. */
#define P9_SIZE_MAX 0x7FFFFFFFu

int p9_peek(const uint8_t *buf, size_t len, uint32_t msize,
            uint32_t *size, uint8_t *type, uint16_t *tag)
{
    if (buf == NULL || len < P9_HDR_SIZE) return P9_E_SHORT;
    uint32_t sz = (uint32_t)p9_le(buf, 4);
    if (msize > P9_SIZE_MAX) msize = P9_SIZE_MAX;
    if (sz < P9_HDR_SIZE || sz > msize) return P9_E_SIZE;
    if (size) *size = sz;
    if (type) *type = buf[4];
    if (tag) *tag = (uint16_t)p9_le(buf + 5, 2);
    return 0;
}

/* Data of `count` bytes: all that is left of the message, no more, no less
 * (count beyond it is an overrun, bytes after it are trailing garbage). */
static const uint8_t *rd_data(struct p9_rd *r, uint32_t count)
{
    if (r->err == 0 && count > r->len - r->pos) r->err = P9_E_COUNT;
    return p9_rd_take(r, count);
}

static void decode_body(struct p9_rd *r, uint32_t msize, struct p9_msg *m)
{
    /* A Tread/Treaddir whose reply could not fit in msize is refused
     * rather than clamped: a conforming client asks for at most
     * msize - P9_IOHDRSZ. */
    uint32_t max_count = msize > P9_RREAD_HDR ? msize - P9_RREAD_HDR : 0;

    switch (m->type) {
    case P9_TVERSION:
    case P9_RVERSION:
        m->u.version.msize = p9_rd32(r);
        m->u.version.version = p9_rdstr(r);
        break;
    case P9_TAUTH:
        m->u.tauth.afid = p9_rd32(r);
        m->u.tauth.uname = p9_rdstr(r);
        m->u.tauth.aname = p9_rdstr(r);
        m->u.tauth.n_uname = p9_rd32(r);
        break;
    case P9_TATTACH:
        m->u.tattach.fid = p9_rd32(r);
        m->u.tattach.afid = p9_rd32(r);
        m->u.tattach.uname = p9_rdstr(r);
        m->u.tattach.aname = p9_rdstr(r);
        m->u.tattach.n_uname = p9_rd32(r);
        break;
    case P9_RAUTH:
    case P9_RATTACH:
    case P9_RMKDIR:
    case P9_RSYMLINK:
        m->u.qid = p9_rdqid(r);
        break;
    case P9_RLERROR:
        m->u.rlerror.ecode = p9_rd32(r);
        break;
    case P9_TFLUSH:
        m->u.tflush.oldtag = p9_rd16(r);
        break;
    case P9_TWALK:
        m->u.twalk.fid = p9_rd32(r);
        m->u.twalk.newfid = p9_rd32(r);
        m->u.twalk.nwname = p9_rd16(r);
        if (r->err == 0 && m->u.twalk.nwname > P9_MAXWELEM) {
            r->err = P9_E_NWNAME;
            break;
        }
        for (uint16_t i = 0; i < m->u.twalk.nwname; i++) m->u.twalk.wname[i] = p9_rdstr(r);
        break;
    case P9_RWALK:
        m->u.rwalk.nwqid = p9_rd16(r);
        if (r->err == 0 && m->u.rwalk.nwqid > P9_MAXWELEM) {
            r->err = P9_E_NWNAME;
            break;
        }
        for (uint16_t i = 0; i < m->u.rwalk.nwqid; i++) m->u.rwalk.wqid[i] = p9_rdqid(r);
        break;
    case P9_TCLUNK:
    case P9_TREMOVE:
    case P9_TSTATFS:
    case P9_TREADLINK:
        m->u.fid.fid = p9_rd32(r);
        break;
    case P9_TFSYNC:
        m->u.tfsync.fid = p9_rd32(r);
        /* Linux before 3.x sent no datasync field. */
        m->u.tfsync.datasync = r->len - r->pos >= 4 ? p9_rd32(r) : 0;
        break;
    case P9_TGETATTR:
        m->u.tgetattr.fid = p9_rd32(r);
        m->u.tgetattr.request_mask = p9_rd64(r);
        break;
    case P9_RGETATTR: {
        struct p9_stat *s = &m->u.rgetattr;
        s->valid = p9_rd64(r);
        s->qid = p9_rdqid(r);
        s->mode = p9_rd32(r);
        s->uid = p9_rd32(r);
        s->gid = p9_rd32(r);
        s->nlink = p9_rd64(r);
        s->rdev = p9_rd64(r);
        s->size = p9_rd64(r);
        s->blksize = p9_rd64(r);
        s->blocks = p9_rd64(r);
        s->atime_sec = p9_rd64(r);
        s->atime_nsec = p9_rd64(r);
        s->mtime_sec = p9_rd64(r);
        s->mtime_nsec = p9_rd64(r);
        s->ctime_sec = p9_rd64(r);
        s->ctime_nsec = p9_rd64(r);
        s->btime_sec = p9_rd64(r);
        s->btime_nsec = p9_rd64(r);
        s->gen = p9_rd64(r);
        s->data_version = p9_rd64(r);
        break;
    }
    case P9_TSETATTR:
        m->u.tsetattr.fid = p9_rd32(r);
        m->u.tsetattr.valid = p9_rd32(r);
        m->u.tsetattr.mode = p9_rd32(r);
        m->u.tsetattr.uid = p9_rd32(r);
        m->u.tsetattr.gid = p9_rd32(r);
        m->u.tsetattr.size = p9_rd64(r);
        m->u.tsetattr.atime_sec = p9_rd64(r);
        m->u.tsetattr.atime_nsec = p9_rd64(r);
        m->u.tsetattr.mtime_sec = p9_rd64(r);
        m->u.tsetattr.mtime_nsec = p9_rd64(r);
        break;
    case P9_TLOPEN:
        m->u.tlopen.fid = p9_rd32(r);
        m->u.tlopen.flags = p9_rd32(r);
        break;
    case P9_RLOPEN:
    case P9_RLCREATE:
        m->u.ropen.qid = p9_rdqid(r);
        m->u.ropen.iounit = p9_rd32(r);
        break;
    case P9_TLCREATE:
        m->u.tlcreate.fid = p9_rd32(r);
        m->u.tlcreate.name = p9_rdstr(r);
        m->u.tlcreate.flags = p9_rd32(r);
        m->u.tlcreate.mode = p9_rd32(r);
        m->u.tlcreate.gid = p9_rd32(r);
        break;
    case P9_TREAD:
    case P9_TREADDIR:
        m->u.tread.fid = p9_rd32(r);
        m->u.tread.offset = p9_rd64(r);
        m->u.tread.count = p9_rd32(r);
        if (r->err == 0 && m->u.tread.count > max_count) r->err = P9_E_COUNT;
        break;
    case P9_RREAD:
    case P9_RREADDIR:
        m->u.rread.count = p9_rd32(r);
        m->u.rread.data = rd_data(r, m->u.rread.count);
        break;
    case P9_TWRITE:
        m->u.twrite.fid = p9_rd32(r);
        m->u.twrite.offset = p9_rd64(r);
        m->u.twrite.count = p9_rd32(r);
        m->u.twrite.data = rd_data(r, m->u.twrite.count);
        break;
    case P9_RWRITE:
        m->u.rwrite.count = p9_rd32(r);
        break;
    case P9_TSYMLINK:
        m->u.tsymlink.dfid = p9_rd32(r);
        m->u.tsymlink.name = p9_rdstr(r);
        m->u.tsymlink.target = p9_rdstr(r);
        m->u.tsymlink.gid = p9_rd32(r);
        break;
    case P9_RREADLINK:
        m->u.rreadlink.target = p9_rdstr(r);
        break;
    case P9_TMKDIR:
        m->u.tmkdir.dfid = p9_rd32(r);
        m->u.tmkdir.name = p9_rdstr(r);
        m->u.tmkdir.mode = p9_rd32(r);
        m->u.tmkdir.gid = p9_rd32(r);
        break;
    case P9_TUNLINKAT:
        m->u.tunlinkat.dirfid = p9_rd32(r);
        m->u.tunlinkat.name = p9_rdstr(r);
        m->u.tunlinkat.flags = p9_rd32(r);
        break;
    case P9_TRENAMEAT:
        m->u.trenameat.olddirfid = p9_rd32(r);
        m->u.trenameat.oldname = p9_rdstr(r);
        m->u.trenameat.newdirfid = p9_rd32(r);
        m->u.trenameat.newname = p9_rdstr(r);
        break;
    case P9_TRENAME:
        m->u.trename.fid = p9_rd32(r);
        m->u.trename.dfid = p9_rd32(r);
        m->u.trename.name = p9_rdstr(r);
        break;
    case P9_RSTATFS: {
        struct p9_statfs *s = &m->u.rstatfs;
        s->type = p9_rd32(r);
        s->bsize = p9_rd32(r);
        s->blocks = p9_rd64(r);
        s->bfree = p9_rd64(r);
        s->bavail = p9_rd64(r);
        s->files = p9_rd64(r);
        s->ffree = p9_rd64(r);
        s->fsid = p9_rd64(r);
        s->namelen = p9_rd32(r);
        break;
    }
    case P9_TXATTRWALK:
        m->u.txattrwalk.fid = p9_rd32(r);
        m->u.txattrwalk.newfid = p9_rd32(r);
        m->u.txattrwalk.name = p9_rdstr(r);
        break;
    case P9_RXATTRWALK:
        m->u.rxattrwalk.size = p9_rd64(r);
        break;
    case P9_TXATTRCREATE:
        m->u.txattrcreate.fid = p9_rd32(r);
        m->u.txattrcreate.name = p9_rdstr(r);
        m->u.txattrcreate.attr_size = p9_rd64(r);
        m->u.txattrcreate.flags = p9_rd32(r);
        break;
    case P9_TLOCK:
        m->u.tlock.fid = p9_rd32(r);
        m->u.tlock.type = p9_rd8(r);
        m->u.tlock.flags = p9_rd32(r);
        m->u.tlock.start = p9_rd64(r);
        m->u.tlock.length = p9_rd64(r);
        m->u.tlock.proc_id = p9_rd32(r);
        m->u.tlock.client_id = p9_rdstr(r);
        break;
    case P9_RLOCK:
        m->u.rlock.status = p9_rd8(r);
        break;
    case P9_TGETLOCK:
    case P9_RGETLOCK:
        if (m->type == P9_TGETLOCK)
            m->u.getlock.fid = p9_rd32(r);
        m->u.getlock.type = p9_rd8(r);
        m->u.getlock.start = p9_rd64(r);
        m->u.getlock.length = p9_rd64(r);
        m->u.getlock.proc_id = p9_rd32(r);
        m->u.getlock.client_id = p9_rdstr(r);
        break;
    case P9_RCLUNK:
    case P9_RREMOVE:
    case P9_RFLUSH:
    case P9_RSETATTR:
    case P9_RRENAME:
    case P9_RRENAMEAT:
    case P9_RUNLINKAT:
    case P9_RFSYNC:
    case P9_RXATTRCREATE:
        break;
    default:
        r->err = P9_E_UNKNOWN;
        break;
    }
}

int p9_decode(const uint8_t *buf, size_t len, uint32_t msize, struct p9_msg *m)
{
    uint32_t size;
    uint8_t type;
    uint16_t tag;
    int rc = p9_peek(buf, len, msize, &size, &type, &tag);
    if (rc < 0) return rc;
    if (len < size) return P9_E_SHORT;
    memset(m, 0, sizeof *m);
    m->type = type;
    m->tag = tag;
    m->size = size;
    struct p9_rd r = { buf, size, P9_HDR_SIZE, 0 };
    decode_body(&r, msize, m);
    if (r.err != 0) return r.err;
    if (r.pos != r.len) return P9_E_TRAILING;
    return (int)size;
}
