/* One sample of every 9P2000.L message kind the codec handles, with its
 * size worked out by hand from the field list (7 + field widths).  Shared
 * by the codec test and the fuzz corpus generator. */
#ifndef STEADYFS_TEST_P9_SAMPLES_H
#define STEADYFS_TEST_P9_SAMPLES_H

#include <string.h>

#include "steadyfs/p9.h"

#ifndef MSIZE
#define MSIZE 8192u
#endif

static inline struct p9_str S(const char *s) { return p9_cstr(s); }

static const uint8_t payload[] = "hello, flash";

struct sample {
    struct p9_msg m;
    uint32_t want_size;   /* by hand from the field list */
};

static inline struct p9_qid Q(uint8_t t, uint32_t v, uint64_t p)
{
    struct p9_qid q = { t, v, p };
    return q;
}

/* One sample per message kind, sizes = 7 + the field widths. */
static inline int make_samples(struct sample *s)
{
    int n = 0;
    struct p9_msg *m;
#define NEW(T, SZ) (memset(&s[n], 0, sizeof s[n]), s[n].want_size = (SZ), m = &s[n++].m, m->type = (T), m->tag = (uint16_t)(n * 7))
    NEW(P9_TVERSION, 7 + 4 + 2 + 8); m->u.version.msize = 8192; m->u.version.version = S("9P2000.L");
    NEW(P9_RVERSION, 7 + 4 + 2 + 8); m->u.version.msize = 4096; m->u.version.version = S("9P2000.L");
    NEW(P9_TAUTH, 7 + 4 + 2 + 4 + 2 + 0 + 4); m->u.tauth.afid = 9; m->u.tauth.uname = S("root"); m->u.tauth.aname = S(""); m->u.tauth.n_uname = 0;
    NEW(P9_RAUTH, 7 + 13); m->u.qid = Q(P9_QTAUTH, 1, 2);
    NEW(P9_TATTACH, 7 + 4 + 4 + 2 + 4 + 2 + 3 + 4); m->u.tattach.fid = 1; m->u.tattach.afid = P9_NOFID; m->u.tattach.uname = S("root"); m->u.tattach.aname = S("/ex"); m->u.tattach.n_uname = P9_NONUNAME;
    NEW(P9_RATTACH, 7 + 13); m->u.qid = Q(P9_QTDIR, 0, 0x2c1facull);
    NEW(P9_RLERROR, 7 + 4); m->u.rlerror.ecode = 2;
    NEW(P9_TFLUSH, 7 + 2); m->u.tflush.oldtag = 77;
    NEW(P9_RFLUSH, 7);
    NEW(P9_TWALK, 7 + 4 + 4 + 2 + (2 + 1) + (2 + 2) + (2 + 3)); m->u.twalk.fid = 1; m->u.twalk.newfid = 2; m->u.twalk.nwname = 3;
    m->u.twalk.wname[0] = S("a"); m->u.twalk.wname[1] = S("bb"); m->u.twalk.wname[2] = S("ccc");
    NEW(P9_TWALK, 7 + 4 + 4 + 2 + 16 * (2 + 2)); m->u.twalk.fid = 3; m->u.twalk.newfid = 4; m->u.twalk.nwname = 16;
    for (int i = 0; i < 16; i++) m->u.twalk.wname[i] = S("dd");
    NEW(P9_TWALK, 7 + 4 + 4 + 2); m->u.twalk.fid = 5; m->u.twalk.newfid = 6; m->u.twalk.nwname = 0;
    NEW(P9_RWALK, 7 + 2 + 2 * 13); m->u.rwalk.nwqid = 2; m->u.rwalk.wqid[0] = Q(P9_QTDIR, 1, 10); m->u.rwalk.wqid[1] = Q(0, 2, 11);
    NEW(P9_TCLUNK, 7 + 4); m->u.fid.fid = 12;
    NEW(P9_RCLUNK, 7);
    NEW(P9_TREMOVE, 7 + 4); m->u.fid.fid = 13;
    NEW(P9_RREMOVE, 7);
    NEW(P9_TSTATFS, 7 + 4); m->u.fid.fid = 14;
    NEW(P9_RSTATFS, 7 + 4 + 4 + 6 * 8 + 4); m->u.rstatfs.type = 0x01021997; m->u.rstatfs.bsize = 2048; m->u.rstatfs.blocks = 65536;
    m->u.rstatfs.bfree = 1000; m->u.rstatfs.bavail = 900; m->u.rstatfs.files = 77; m->u.rstatfs.ffree = 5; m->u.rstatfs.fsid = 0x1122334455667788ull; m->u.rstatfs.namelen = 255;
    NEW(P9_TFSYNC, 7 + 4 + 4); m->u.tfsync.fid = 15; m->u.tfsync.datasync = 1;
    NEW(P9_RFSYNC, 7);
    NEW(P9_TGETATTR, 7 + 4 + 8); m->u.tgetattr.fid = 16; m->u.tgetattr.request_mask = P9_GETATTR_ALL;
    NEW(P9_RGETATTR, 7 + 8 + 13 + 3 * 4 + 15 * 8);
    {
        struct p9_stat *st = &m->u.rgetattr;
        st->valid = P9_GETATTR_BASIC; st->qid = Q(0, 3, 0xdeadbeefcafeull); st->mode = 0100644; st->uid = 500; st->gid = 501;
        st->nlink = 1; st->rdev = 0; st->size = 123456789012ull; st->blksize = 4096; st->blocks = 8;
        st->atime_sec = 1; st->atime_nsec = 2; st->mtime_sec = 3; st->mtime_nsec = 4; st->ctime_sec = 5; st->ctime_nsec = 6;
        st->btime_sec = 7; st->btime_nsec = 8; st->gen = 9; st->data_version = 10;
    }
    NEW(P9_TSETATTR, 7 + 5 * 4 + 5 * 8); m->u.tsetattr.fid = 17; m->u.tsetattr.valid = P9_SETATTR_SIZE | P9_SETATTR_MTIME_SET;
    m->u.tsetattr.mode = 0644; m->u.tsetattr.size = 4096; m->u.tsetattr.mtime_sec = 1700000000; m->u.tsetattr.mtime_nsec = 999;
    NEW(P9_RSETATTR, 7);
    NEW(P9_TLOPEN, 7 + 4 + 4); m->u.tlopen.fid = 18; m->u.tlopen.flags = 02;
    NEW(P9_RLOPEN, 7 + 13 + 4); m->u.ropen.qid = Q(0, 0, 99); m->u.ropen.iounit = 4072;
    NEW(P9_TLCREATE, 7 + 4 + 2 + 3 + 4 + 4 + 4); m->u.tlcreate.fid = 19; m->u.tlcreate.name = S("foo"); m->u.tlcreate.flags = 0x8241; m->u.tlcreate.mode = 0100644; m->u.tlcreate.gid = 500;
    NEW(P9_RLCREATE, 7 + 13 + 4); m->u.ropen.qid = Q(0, 1, 100); m->u.ropen.iounit = 0;
    NEW(P9_TREAD, 7 + 4 + 8 + 4); m->u.tread.fid = 20; m->u.tread.offset = 1ull << 40; m->u.tread.count = MSIZE - P9_IOHDRSZ;
    NEW(P9_RREAD, 7 + 4 + 12); m->u.rread.count = 12; m->u.rread.data = payload;
    NEW(P9_TWRITE, 7 + 4 + 8 + 4 + 12); m->u.twrite.fid = 21; m->u.twrite.offset = 6; m->u.twrite.count = 12; m->u.twrite.data = payload;
    NEW(P9_RWRITE, 7 + 4); m->u.rwrite.count = 12;
    NEW(P9_TREADDIR, 7 + 4 + 8 + 4); m->u.tread.fid = 22; m->u.tread.offset = 2147483647; m->u.tread.count = 4000;
    NEW(P9_RREADDIR, 7 + 4 + 12); m->u.rread.count = 12; m->u.rread.data = payload;   /* opaque to the decoder */
    NEW(P9_TMKDIR, 7 + 4 + 2 + 6 + 4 + 4); m->u.tmkdir.dfid = 23; m->u.tmkdir.name = S("newdir"); m->u.tmkdir.mode = 040755; m->u.tmkdir.gid = 500;
    NEW(P9_RMKDIR, 7 + 13); m->u.qid = Q(P9_QTDIR, 0, 101);
    NEW(P9_TSYMLINK, 7 + 4 + 2 + 4 + 2 + 6 + 4); m->u.tsymlink.dfid = 31; m->u.tsymlink.name = S("link"); m->u.tsymlink.target = S("../tgt"); m->u.tsymlink.gid = 100;
    NEW(P9_RSYMLINK, 7 + 13); m->u.qid = Q(P9_QTSYMLINK, 0, 102);
    NEW(P9_TREADLINK, 7 + 4); m->u.fid.fid = 32;
    NEW(P9_RREADLINK, 7 + 2 + 6); m->u.rreadlink.target = S("../tgt");
    NEW(P9_TUNLINKAT, 7 + 4 + 2 + 1 + 4); m->u.tunlinkat.dirfid = 24; m->u.tunlinkat.name = S("x"); m->u.tunlinkat.flags = 0x200;
    NEW(P9_RUNLINKAT, 7);
    NEW(P9_TRENAMEAT, 7 + 4 + 2 + 3 + 4 + 2 + 4); m->u.trenameat.olddirfid = 25; m->u.trenameat.oldname = S("old"); m->u.trenameat.newdirfid = 26; m->u.trenameat.newname = S("new1");
    NEW(P9_RRENAMEAT, 7);
    NEW(P9_TRENAME, 7 + 4 + 4 + 2 + 2); m->u.trename.fid = 27; m->u.trename.dfid = 28; m->u.trename.name = S("zz");
    NEW(P9_RRENAME, 7);
    NEW(P9_TXATTRWALK, 7 + 4 + 4 + 2 + 0); m->u.txattrwalk.fid = 29; m->u.txattrwalk.newfid = 30; m->u.txattrwalk.name = S("");
    NEW(P9_RXATTRWALK, 7 + 8); m->u.rxattrwalk.size = 0;
    NEW(P9_TXATTRCREATE, 7 + 4 + 2 + 14 + 8 + 4); m->u.txattrcreate.fid = 31; m->u.txattrcreate.name = S("security.selin"); m->u.txattrcreate.attr_size = 8; m->u.txattrcreate.flags = 1;
    NEW(P9_RXATTRCREATE, 7);
    NEW(P9_TLOCK, 7 + 4 + 1 + 4 + 8 + 8 + 4 + 2 + 5);
    m->u.tlock.fid = 9; m->u.tlock.type = P9_LOCK_TYPE_WRLCK; m->u.tlock.flags = P9_LOCK_FLAGS_BLOCK;
    m->u.tlock.start = 100; m->u.tlock.length = 0; m->u.tlock.proc_id = 4242; m->u.tlock.client_id = S("guest");
    NEW(P9_RLOCK, 7 + 1); m->u.rlock.status = P9_LOCK_BLOCKED;
    NEW(P9_TGETLOCK, 7 + 4 + 1 + 8 + 8 + 4 + 2 + 5);
    m->u.getlock.fid = 9; m->u.getlock.type = P9_LOCK_TYPE_RDLCK; m->u.getlock.start = 0;
    m->u.getlock.length = 4096; m->u.getlock.proc_id = 7; m->u.getlock.client_id = S("guest");
    NEW(P9_RGETLOCK, 7 + 1 + 8 + 8 + 4 + 2 + 4);
    m->u.getlock.type = P9_LOCK_TYPE_WRLCK; m->u.getlock.start = 100; m->u.getlock.length = 0;
    m->u.getlock.proc_id = 4242; m->u.getlock.client_id = S("host");
#undef NEW
    return n;
}

#endif
