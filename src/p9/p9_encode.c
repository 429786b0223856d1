/* 9P2000.L encoder: the mirror of p9_decode.c, field for field, so a
 * message encoded here decodes to the same struct (the tests check every
 * kind both ways). */
#include "p9/p9_wire.h"

static void encode_body(struct p9_wr *w, const struct p9_msg *m)
{
    switch (m->type) {
    case P9_TVERSION:
    case P9_RVERSION:
        p9_wr32(w, m->u.version.msize);
        p9_wrstr(w, m->u.version.version);
        break;
    case P9_TAUTH:
        p9_wr32(w, m->u.tauth.afid);
        p9_wrstr(w, m->u.tauth.uname);
        p9_wrstr(w, m->u.tauth.aname);
        p9_wr32(w, m->u.tauth.n_uname);
        break;
    case P9_TATTACH:
        p9_wr32(w, m->u.tattach.fid);
        p9_wr32(w, m->u.tattach.afid);
        p9_wrstr(w, m->u.tattach.uname);
        p9_wrstr(w, m->u.tattach.aname);
        p9_wr32(w, m->u.tattach.n_uname);
        break;
    case P9_RAUTH:
    case P9_RATTACH:
    case P9_RMKDIR:
    case P9_RSYMLINK:
        p9_wrqid(w, &m->u.qid);
        break;
    case P9_RLERROR:
        p9_wr32(w, m->u.rlerror.ecode);
        break;
    case P9_TFLUSH:
        p9_wr16(w, m->u.tflush.oldtag);
        break;
    case P9_TWALK:
        if (m->u.twalk.nwname > P9_MAXWELEM) {
            w->err = P9_E_NWNAME;
            break;
        }
        p9_wr32(w, m->u.twalk.fid);
        p9_wr32(w, m->u.twalk.newfid);
        p9_wr16(w, m->u.twalk.nwname);
        for (uint16_t i = 0; i < m->u.twalk.nwname; i++) p9_wrstr(w, m->u.twalk.wname[i]);
        break;
    case P9_RWALK:
        if (m->u.rwalk.nwqid > P9_MAXWELEM) {
            w->err = P9_E_NWNAME;
            break;
        }
        p9_wr16(w, m->u.rwalk.nwqid);
        for (uint16_t i = 0; i < m->u.rwalk.nwqid; i++) p9_wrqid(w, &m->u.rwalk.wqid[i]);
        break;
    case P9_TCLUNK:
    case P9_TREMOVE:
    case P9_TSTATFS:
    case P9_TREADLINK:
        p9_wr32(w, m->u.fid.fid);
        break;
    case P9_TFSYNC:
        p9_wr32(w, m->u.tfsync.fid);
        p9_wr32(w, m->u.tfsync.datasync);
        break;
    case P9_TGETATTR:
        p9_wr32(w, m->u.tgetattr.fid);
        p9_wr64(w, m->u.tgetattr.request_mask);
        break;
    case P9_RGETATTR: {
        const struct p9_stat *s = &m->u.rgetattr;
        p9_wr64(w, s->valid);
        p9_wrqid(w, &s->qid);
        p9_wr32(w, s->mode);
        p9_wr32(w, s->uid);
        p9_wr32(w, s->gid);
        p9_wr64(w, s->nlink);
        p9_wr64(w, s->rdev);
        p9_wr64(w, s->size);
        p9_wr64(w, s->blksize);
        p9_wr64(w, s->blocks);
        p9_wr64(w, s->atime_sec);
        p9_wr64(w, s->atime_nsec);
        p9_wr64(w, s->mtime_sec);
        p9_wr64(w, s->mtime_nsec);
        p9_wr64(w, s->ctime_sec);
        p9_wr64(w, s->ctime_nsec);
        p9_wr64(w, s->btime_sec);
        p9_wr64(w, s->btime_nsec);
        p9_wr64(w, s->gen);
        p9_wr64(w, s->data_version);
        break;
    }
    case P9_TSETATTR:
        p9_wr32(w, m->u.tsetattr.fid);
        p9_wr32(w, m->u.tsetattr.valid);
        p9_wr32(w, m->u.tsetattr.mode);
        p9_wr32(w, m->u.tsetattr.uid);
        p9_wr32(w, m->u.tsetattr.gid);
        p9_wr64(w, m->u.tsetattr.size);
        p9_wr64(w, m->u.tsetattr.atime_sec);
        p9_wr64(w, m->u.tsetattr.atime_nsec);
        p9_wr64(w, m->u.tsetattr.mtime_sec);
        p9_wr64(w, m->u.tsetattr.mtime_nsec);
        break;
    case P9_TLOPEN:
        p9_wr32(w, m->u.tlopen.fid);
        p9_wr32(w, m->u.tlopen.flags);
        break;
    case P9_RLOPEN:
    case P9_RLCREATE:
        p9_wrqid(w, &m->u.ropen.qid);
        p9_wr32(w, m->u.ropen.iounit);
        break;
    case P9_TLCREATE:
        p9_wr32(w, m->u.tlcreate.fid);
        p9_wrstr(w, m->u.tlcreate.name);
        p9_wr32(w, m->u.tlcreate.flags);
        p9_wr32(w, m->u.tlcreate.mode);
        p9_wr32(w, m->u.tlcreate.gid);
        break;
    case P9_TREAD:
    case P9_TREADDIR:
        p9_wr32(w, m->u.tread.fid);
        p9_wr64(w, m->u.tread.offset);
        p9_wr32(w, m->u.tread.count);
        break;
    case P9_RREAD:
    case P9_RREADDIR:
        if (m->u.rread.count != 0 && m->u.rread.data == NULL) {
            w->err = P9_E_INVAL;
            break;
        }
        p9_wr32(w, m->u.rread.count);
        p9_wrbytes(w, m->u.rread.data, m->u.rread.count);
        break;
    case P9_TWRITE:
        if (m->u.twrite.count != 0 && m->u.twrite.data == NULL) {
            w->err = P9_E_INVAL;
            break;
        }
        p9_wr32(w, m->u.twrite.fid);
        p9_wr64(w, m->u.twrite.offset);
        p9_wr32(w, m->u.twrite.count);
        p9_wrbytes(w, m->u.twrite.data, m->u.twrite.count);
        break;
    case P9_RWRITE:
        p9_wr32(w, m->u.rwrite.count);
        break;
    case P9_TSYMLINK:
        p9_wr32(w, m->u.tsymlink.dfid);
        p9_wrstr(w, m->u.tsymlink.name);
        p9_wrstr(w, m->u.tsymlink.target);
        p9_wr32(w, m->u.tsymlink.gid);
        break;
    case P9_RREADLINK:
        p9_wrstr(w, m->u.rreadlink.target);
        break;
    case P9_TMKDIR:
        p9_wr32(w, m->u.tmkdir.dfid);
        p9_wrstr(w, m->u.tmkdir.name);
        p9_wr32(w, m->u.tmkdir.mode);
        p9_wr32(w, m->u.tmkdir.gid);
        break;
    case P9_TUNLINKAT:
        p9_wr32(w, m->u.tunlinkat.dirfid);
        p9_wrstr(w, m->u.tunlinkat.name);
        p9_wr32(w, m->u.tunlinkat.flags);
        break;
    case P9_TRENAMEAT:
        p9_wr32(w, m->u.trenameat.olddirfid);
        p9_wrstr(w, m->u.trenameat.oldname);
        p9_wr32(w, m->u.trenameat.newdirfid);
        p9_wrstr(w, m->u.trenameat.newname);
        break;
    case P9_TRENAME:
        p9_wr32(w, m->u.trename.fid);
        p9_wr32(w, m->u.trename.dfid);
        p9_wrstr(w, m->u.trename.name);
        break;
    case P9_RSTATFS: {
        const struct p9_statfs *s = &m->u.rstatfs;
        p9_wr32(w, s->type);
        p9_wr32(w, s->bsize);
        p9_wr64(w, s->blocks);
        p9_wr64(w, s->bfree);
        p9_wr64(w, s->bavail);
        p9_wr64(w, s->files);
        p9_wr64(w, s->ffree);
        p9_wr64(w, s->fsid);
        p9_wr32(w, s->namelen);
        break;
    }
    case P9_TXATTRWALK:
        p9_wr32(w, m->u.txattrwalk.fid);
        p9_wr32(w, m->u.txattrwalk.newfid);
        p9_wrstr(w, m->u.txattrwalk.name);
        break;
    case P9_RXATTRWALK:
        p9_wr64(w, m->u.rxattrwalk.size);
        break;
    case P9_TXATTRCREATE:
        p9_wr32(w, m->u.txattrcreate.fid);
        p9_wrstr(w, m->u.txattrcreate.name);
        p9_wr64(w, m->u.txattrcreate.attr_size);
        p9_wr32(w, m->u.txattrcreate.flags);
        break;
    case P9_TLOCK:
        p9_wr32(w, m->u.tlock.fid);
        p9_wr8(w, m->u.tlock.type);
        p9_wr32(w, m->u.tlock.flags);
        p9_wr64(w, m->u.tlock.start);
        p9_wr64(w, m->u.tlock.length);
        p9_wr32(w, m->u.tlock.proc_id);
        p9_wrstr(w, m->u.tlock.client_id);
        break;
    case P9_RLOCK:
        p9_wr8(w, m->u.rlock.status);
        break;
    case P9_TGETLOCK:
    case P9_RGETLOCK:
        if (m->type == P9_TGETLOCK)
            p9_wr32(w, m->u.getlock.fid);
        p9_wr8(w, m->u.getlock.type);
        p9_wr64(w, m->u.getlock.start);
        p9_wr64(w, m->u.getlock.length);
        p9_wr32(w, m->u.getlock.proc_id);
        p9_wrstr(w, m->u.getlock.client_id);
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
        w->err = P9_E_UNKNOWN;
        break;
    }
}

int p9_encode(const struct p9_msg *m, uint8_t *buf, size_t cap)
{
    if (m == NULL || buf == NULL) return P9_E_INVAL;
    /* Sizes are 32-bit on the wire and returned as a positive int. */
    struct p9_wr w = { buf, cap > 0x7FFFFFFFu ? 0x7FFFFFFFu : (uint32_t)cap, 0, 0 };
    /* Reserve the header first so zero-copy data already placed at its
     * final offset is not moved by a prefix of different length. */
    if (p9_wr_take(&w, P9_HDR_SIZE) == NULL) return P9_E_NOSPACE;
    encode_body(&w, m);
    if (w.err != 0) return w.err;
    p9_put_le(buf, w.pos, 4);
    buf[4] = m->type;
    p9_put_le(buf + 5, m->tag, 2);
    return (int)w.pos;
}
