/* The 9P2000.L server driven message by message on a simulated NAND: every
 * message kind, the errors a client can provoke, fid exhaustion, root
 * escape, a read-only export, malformed input, and file operations checked
 * afterwards through steadyfs itself. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "steadyfs/p9srv.h"

#define MSIZE 4096u
#define FIDS 16u

static tdev T;
#define FS (&T.fs)
static p9srv S;
static uint32_t mem[4096];
static uint8_t buf[MSIZE], obuf[MSIZE];
static struct p9_msg R;   /* the last reply */
static int split;         /* 1: separate output buffer, 0: in place */
static uint16_t next_tag = 1;

/* Sends m; returns the reply's type (R filled), or the negative result of
 * p9srv_handle. */
static int rpc(p9srv *s, struct p9_msg *m)
{
    int n = p9_encode(m, buf, sizeof buf);
    int32_t r;
    uint8_t *out = split ? obuf : buf;
    if (n < 0)
        return -100;
    if (m->tag == 0)
        m->tag = next_tag++;
    buf[5] = (uint8_t)m->tag;
    buf[6] = (uint8_t)(m->tag >> 8);
    r = p9srv_handle(s, buf, (uint32_t)n, out, MSIZE);
    if (r < 0)
        return r;
    if (p9_decode(out, (size_t)r, MSIZE, &R) != r)
        return -101;
    CHECK_EQ(R.tag, m->tag);
    return R.type;
}

/* Reply is Rlerror(code)? */
static int lerr(int type) { return type == P9_RLERROR ? (int)R.u.rlerror.ecode : -1; }

static int version(p9srv *s, uint32_t msize, const char *v)
{
    struct p9_msg m = {.type = P9_TVERSION, .tag = P9_NOTAG};
    m.u.version.msize = msize;
    m.u.version.version = p9_cstr(v);
    return rpc(s, &m);
}

static int attach_as(p9srv *s, uint32_t fid, const char *aname, uint32_t uid)
{
    struct p9_msg m = {.type = P9_TATTACH};
    m.u.tattach.fid = fid;
    m.u.tattach.afid = P9_NOFID;
    m.u.tattach.uname = p9_cstr("tester");
    m.u.tattach.aname = p9_cstr(aname);
    m.u.tattach.n_uname = uid;
    return rpc(s, &m);
}

static int attach(p9srv *s, uint32_t fid, const char *aname)
{
    return attach_as(s, fid, aname, 1000);
}

/* names: up to 16, separated by '/' in one string ("" = clone). */
static int walk(p9srv *s, uint32_t fid, uint32_t newfid, const char *path)
{
    struct p9_msg m = {.type = P9_TWALK};
    const char *p = path;
    m.u.twalk.fid = fid;
    m.u.twalk.newfid = newfid;
    while (*p && m.u.twalk.nwname < P9_MAXWELEM) {
        const char *e = strchr(p, '/');
        uint16_t len = (uint16_t)(e ? (size_t)(e - p) : strlen(p));
        m.u.twalk.wname[m.u.twalk.nwname].ptr = (const uint8_t *)p;
        m.u.twalk.wname[m.u.twalk.nwname].len = len;
        m.u.twalk.nwname++;
        p += len;
        if (*p == '/')
            p++;
    }
    return rpc(s, &m);
}

static int walk1(p9srv *s, uint32_t fid, uint32_t newfid, const uint8_t *name, uint16_t len)
{
    struct p9_msg m = {.type = P9_TWALK};
    m.u.twalk.fid = fid;
    m.u.twalk.newfid = newfid;
    m.u.twalk.nwname = 1;
    m.u.twalk.wname[0].ptr = name;
    m.u.twalk.wname[0].len = len;
    return rpc(s, &m);
}

static int clunk(p9srv *s, uint32_t fid)
{
    struct p9_msg m = {.type = P9_TCLUNK};
    m.u.fid.fid = fid;
    return rpc(s, &m);
}

static int lopen(p9srv *s, uint32_t fid, uint32_t flags)
{
    struct p9_msg m = {.type = P9_TLOPEN};
    m.u.tlopen.fid = fid;
    m.u.tlopen.flags = flags;
    return rpc(s, &m);
}

static int lcreate(p9srv *s, uint32_t fid, const char *name, uint32_t flags)
{
    struct p9_msg m = {.type = P9_TLCREATE};
    m.u.tlcreate.fid = fid;
    m.u.tlcreate.name = p9_cstr(name);
    m.u.tlcreate.flags = flags;
    m.u.tlcreate.mode = 0644;
    return rpc(s, &m);
}

static int twrite(p9srv *s, uint32_t fid, uint64_t off, const void *data, uint32_t n)
{
    struct p9_msg m = {.type = P9_TWRITE};
    m.u.twrite.fid = fid;
    m.u.twrite.offset = off;
    m.u.twrite.count = n;
    m.u.twrite.data = data;
    return rpc(s, &m);
}

static int tread(p9srv *s, uint32_t fid, uint64_t off, uint32_t n)
{
    struct p9_msg m = {.type = P9_TREAD};
    m.u.tread.fid = fid;
    m.u.tread.offset = off;
    m.u.tread.count = n;
    return rpc(s, &m);
}

static int treaddir(p9srv *s, uint32_t fid, uint64_t off, uint32_t n)
{
    struct p9_msg m = {.type = P9_TREADDIR};
    m.u.tread.fid = fid;
    m.u.tread.offset = off;
    m.u.tread.count = n;
    return rpc(s, &m);
}

static int getattr(p9srv *s, uint32_t fid)
{
    struct p9_msg m = {.type = P9_TGETATTR};
    m.u.tgetattr.fid = fid;
    m.u.tgetattr.request_mask = P9_GETATTR_ALL;
    return rpc(s, &m);
}

static int setattr(p9srv *s, uint32_t fid, uint32_t valid, uint64_t size)
{
    struct p9_msg m = {.type = P9_TSETATTR};
    m.u.tsetattr.fid = fid;
    m.u.tsetattr.valid = valid;
    m.u.tsetattr.mode = 0600;
    m.u.tsetattr.size = size;
    return rpc(s, &m);
}

static int mkdir9(p9srv *s, uint32_t dfid, const char *name)
{
    struct p9_msg m = {.type = P9_TMKDIR};
    m.u.tmkdir.dfid = dfid;
    m.u.tmkdir.name = p9_cstr(name);
    m.u.tmkdir.mode = 0755;
    return rpc(s, &m);
}

static int unlinkat9(p9srv *s, uint32_t dfid, const char *name, uint32_t flags)
{
    struct p9_msg m = {.type = P9_TUNLINKAT};
    m.u.tunlinkat.dirfid = dfid;
    m.u.tunlinkat.name = p9_cstr(name);
    m.u.tunlinkat.flags = flags;
    return rpc(s, &m);
}

static int renameat9(p9srv *s, uint32_t od, const char *on, uint32_t nd, const char *nn)
{
    struct p9_msg m = {.type = P9_TRENAMEAT};
    m.u.trenameat.olddirfid = od;
    m.u.trenameat.oldname = p9_cstr(on);
    m.u.trenameat.newdirfid = nd;
    m.u.trenameat.newname = p9_cstr(nn);
    return rpc(s, &m);
}

static int fidop(p9srv *s, uint8_t type, uint32_t fid)
{
    struct p9_msg m = {.type = type};
    if (type == P9_TFSYNC)
        m.u.tfsync.fid = fid;
    else
        m.u.fid.fid = fid;
    return rpc(s, &m);
}

static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

static void start(p9srv *s, uint8_t ro, uint16_t path_max)
{
    p9srv_config c = {.fs = FS, .mem = mem, .mem_size = sizeof mem, .msize_max = MSIZE,
                      .fid_max = FIDS, .path_max = path_max, .read_only = ro};
    CHECK_EQ(p9srv_init(s, &c), 0);
    CHECK_EQ(version(s, 1u << 20, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(R.u.version.msize, MSIZE);
    CHECK_EQ(attach(s, 0, ""), P9_RATTACH);
}

/* steadyfs's own view of a file: size, or -errno. */
static int64_t fs_size(const char *path)
{
    steadyfs_stat st;
    int rc = steadyfs_stat_path(FS, path, &st);
    return rc ? rc : (int64_t)st.size;
}

static void test_config(void)
{
    p9srv s;
    p9srv_config c = {.fs = FS, .mem = mem, .mem_size = 100, .fid_max = 16};
    CHECK_EQ(p9srv_mem_size(&c), 16u * (P9SRV_FID_SIZE + 128u) + 256u);
    CHECK_EQ(sizeof(struct p9srv_fid), P9SRV_FID_SIZE);
    CHECK_EQ(p9srv_init(&s, &c), P9SRV_E_INVAL);          /* mem too small */
    c.mem_size = sizeof mem;
    c.mem = (uint8_t *)mem + 1;
    CHECK_EQ(p9srv_init(&s, &c), P9SRV_E_INVAL);          /* misaligned */
    c.mem = mem;
    c.msize_max = 32;
    CHECK_EQ(p9srv_init(&s, &c), P9SRV_E_INVAL);          /* msize below the codec's minimum */
    c.msize_max = 0;
    c.path_max = 8;
    CHECK_EQ(p9srv_mem_size(&c), 0);
    c.path_max = 0;
    CHECK_EQ(p9srv_init(&s, &c), 0);
    CHECK_EQ(p9srv_msize(&s), P9SRV_MSIZE_DEFAULT);
    printf("sizeof(p9srv) %zu, mem at fid_max 16 path_max 128: %u, per fid %u\n", sizeof(p9srv),
           p9srv_mem_size(&c), (unsigned)(P9SRV_FID_SIZE + 128u));
}

static void test_version(void)
{
    p9srv_config c = {.fs = FS, .mem = mem, .mem_size = sizeof mem, .msize_max = MSIZE};
    uint8_t hdr[4] = {0};
    CHECK_EQ(p9srv_init(&S, &c), 0);
    /* before Tversion: out of sequence */
    CHECK_EQ(lerr(attach(&S, 0, "")), 71);
    CHECK_EQ(version(&S, 8192, "9P2000.u"), P9_RVERSION);
    CHECK(p9_str_eq(R.u.version.version, "unknown"));
    CHECK_EQ(lerr(attach(&S, 0, "")), 71);
    CHECK_EQ(version(&S, 40, "9P2000.L"), P9_RVERSION);  /* msize too small to work */
    CHECK(p9_str_eq(R.u.version.version, "unknown"));
    CHECK_EQ(version(&S, 512, "9P2000.L"), P9_RVERSION);
    CHECK(p9_str_eq(R.u.version.version, "9P2000.L"));
    CHECK_EQ(R.u.version.msize, 512);
    CHECK_EQ(p9srv_msize(&S), 512);
    hdr[0] = 0x01; hdr[1] = 0x02;   /* 513 > msize */
    CHECK_EQ(p9srv_msg_len(&S, hdr), P9SRV_E_FRAME);
    hdr[0] = 0x00;   /* 512 */
    CHECK_EQ(p9srv_msg_len(&S, hdr), 512);
    hdr[0] = 6; hdr[1] = 0;
    CHECK_EQ(p9srv_msg_len(&S, hdr), P9SRV_E_FRAME);
    CHECK_EQ(version(&S, 1u << 20, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(R.u.version.msize, MSIZE);
    /* attach: afid must be NOFID, the only export is the root */
    {
        struct p9_msg m = {.type = P9_TATTACH};
        m.u.tattach.fid = 0;
        m.u.tattach.afid = 5;
        m.u.tattach.n_uname = P9_NONUNAME;
        CHECK_EQ(lerr(rpc(&S, &m)), 9);
    }
    CHECK_EQ(lerr(attach(&S, 0, "/etc")), 2);
    CHECK_EQ(attach(&S, 0, "/"), P9_RATTACH);
    CHECK_EQ(R.u.qid.type, P9_QTDIR);
    CHECK_EQ(lerr(attach(&S, 0, "")), 9);   /* fid 0 in use */
    CHECK_EQ(p9srv_fid_count(&S), 1);
    /* Tauth is not needed, Txattrcreate not supported; Tflush is answered */
    {
        struct p9_msg m = {.type = P9_TAUTH};
        m.u.tauth.afid = 7;
        m.u.tauth.uname = p9_cstr("x");
        CHECK_EQ(lerr(rpc(&S, &m)), 2);   /* "authentication not required" */
        memset(&m, 0, sizeof m);
        m.type = P9_TXATTRCREATE;
        m.u.txattrcreate.fid = 0;
        m.u.txattrcreate.name = p9_cstr("user.a");
        CHECK_EQ(lerr(rpc(&S, &m)), 95);
        memset(&m, 0, sizeof m);
        m.type = P9_TFLUSH;
        m.u.tflush.oldtag = 3;
        CHECK_EQ(rpc(&S, &m), P9_RFLUSH);
        /* an R-message sent to the server */
        memset(&m, 0, sizeof m);
        m.type = P9_RCLUNK;
        CHECK_EQ(lerr(rpc(&S, &m)), 95);
    }
    /* a second Tversion ends the session: fid 0 is gone */
    CHECK_EQ(version(&S, MSIZE, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(p9srv_fid_count(&S), 0);
    CHECK_EQ(lerr(getattr(&S, 0)), 9);
}

static void test_walk(void)
{
    uint64_t root;
    static uint8_t longname[300];
    start(&S, 0, 0);
    CHECK_EQ(getattr(&S, 0), P9_RGETATTR);
    root = R.u.rgetattr.qid.path;
    CHECK_EQ(R.u.rgetattr.mode, 040755);
    CHECK_EQ(R.u.rgetattr.uid, 0);   /* the root is made by format, owned by 0 */
    CHECK_EQ(mkdir9(&S, 0, "d"), P9_RMKDIR);
    CHECK_EQ(mkdir9(&S, 0, "d"), P9_RLERROR);
    CHECK_EQ(R.u.rlerror.ecode, 17);
    /* a clone, then walks */
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(R.u.rwalk.nwqid, 0);
    CHECK_EQ(walk(&S, 1, 2, "d"), P9_RWALK);
    CHECK_EQ(R.u.rwalk.nwqid, 1);
    CHECK_EQ(R.u.rwalk.wqid[0].type, P9_QTDIR);
    /* root escape: ".." at the root stays at the root, however many */
    CHECK_EQ(walk(&S, 2, 3, "../../../.."), P9_RWALK);
    CHECK_EQ(R.u.rwalk.nwqid, 4);
    CHECK_EQ(R.u.rwalk.wqid[3].path, root);
    CHECK_EQ(getattr(&S, 3), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.qid.path, root);
    CHECK_EQ(walk(&S, 3, 3, "d/./.."), P9_RWALK);   /* newfid == fid moves it */
    CHECK_EQ(R.u.rwalk.nwqid, 3);
    CHECK_EQ(R.u.rwalk.wqid[2].path, root);
    /* errors: first name fails -> Rlerror; a later one -> partial Rwalk */
    CHECK_EQ(lerr(walk(&S, 0, 4, "nope")), 2);
    CHECK_EQ(walk(&S, 0, 4, "d/nope/x"), P9_RWALK);
    CHECK_EQ(R.u.rwalk.nwqid, 1);
    CHECK_EQ(lerr(getattr(&S, 4)), 9);   /* newfid was not created */
    CHECK_EQ(lerr(walk(&S, 0, 2, "d")), 9);   /* newfid in use */
    CHECK_EQ(lerr(walk(&S, 77, 4, "d")), 9);   /* unknown fid */
    /* bad names */
    CHECK_EQ(lerr(walk1(&S, 0, 4, (const uint8_t *)"d/x", 3)), 22);
    CHECK_EQ(lerr(walk1(&S, 0, 4, (const uint8_t *)"d\0x", 3)), 22);
    CHECK_EQ(lerr(walk1(&S, 0, 4, (const uint8_t *)"", 0)), 22);
    memset(longname, 'a', sizeof longname);
    CHECK_EQ(lerr(walk1(&S, 0, 4, longname, 256)), 36);
    CHECK_EQ(lerr(walk1(&S, 0, 4, longname, 255)), 36);  /* a legal name, but past path_max 128 */
    CHECK_EQ(lerr(walk1(&S, 0, 4, longname, 100)), 2);   /* legal, absent */
    CHECK_EQ(lerr(mkdir9(&S, 0, "")), 22);
    CHECK_EQ(lerr(mkdir9(&S, 0, ".")), 22);
    CHECK_EQ(lerr(mkdir9(&S, 0, "..")), 22);
    CHECK_EQ(lerr(mkdir9(&S, 0, "a/b")), 22);
    CHECK_EQ(lerr(lcreate(&S, 1, "..", 2)), 22);
    CHECK_EQ(lerr(unlinkat9(&S, 0, "..", 0x200)), 22);
    CHECK_EQ(lerr(renameat9(&S, 0, "d", 0, "..")), 22);
    CHECK_EQ(lerr(renameat9(&S, 0, ".", 0, "e")), 22);
    /* walking through a file */
    CHECK_EQ(lcreate(&S, 1, "f", 2), P9_RLCREATE);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK_EQ(lerr(walk(&S, 0, 4, "f/x")), -1);   /* partial: f is found */
    CHECK_EQ(R.u.rwalk.nwqid, 1);
    CHECK_EQ(walk(&S, 0, 4, "f"), P9_RWALK);
    CHECK_EQ(lerr(walk(&S, 4, 5, "x")), 20);
    CHECK_EQ(lerr(walk(&S, 4, 5, "..")), 20);
    CHECK_EQ(walk(&S, 4, 5, ""), P9_RWALK);   /* cloning a file is fine */
    CHECK_EQ(lerr(mkdir9(&S, 4, "x")), 20);
    /* 16 names at once */
    CHECK_EQ(walk(&S, 0, 6, "d/../d/../d/../d/../d/../d/../d/../d/.."), P9_RWALK);
    CHECK_EQ(R.u.rwalk.nwqid, 16);
    p9srv_disconnect(&S);
    CHECK_EQ(p9srv_fid_count(&S), 0);
}

static void test_files(void)
{
    static uint8_t a[20000], b[20000];
    uint32_t off, n;
    int fd;
    fill(a, sizeof a, 3);
    start(&S, 0, 0);
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 1, "data.bin", 2), P9_RLCREATE);
    CHECK_EQ(R.u.ropen.iounit, MSIZE - P9_IOHDRSZ);
    CHECK_EQ(lerr(lcreate(&S, 1, "x", 2)), 20);   /* now an (open) file */
    for (off = 0; off < sizeof a; off += n) {
        n = sizeof a - off < 4000 ? sizeof a - off : 4000;
        CHECK_EQ(twrite(&S, 1, off, a + off, n), P9_RWRITE);
        CHECK_EQ(R.u.rwrite.count, n);
    }
    CHECK_EQ(getattr(&S, 1), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.size, sizeof a);
    CHECK_EQ(R.u.rgetattr.mode, 0100644);
    CHECK_EQ(R.u.rgetattr.blocks, (sizeof a + 511) / 512);
    /* read back through the same (RDWR) fid, clamped to msize */
    for (off = 0; off < sizeof a; off += R.u.rread.count) {
        CHECK_EQ(tread(&S, 1, off, 100000), P9_RREAD);
        CHECK(R.u.rread.count > 0 && R.u.rread.count <= MSIZE - P9_RREAD_HDR);
        if (R.u.rread.count == 0)
            break;
        memcpy(b + off, R.u.rread.data, R.u.rread.count);
    }
    CHECK(!memcmp(a, b, sizeof a));
    CHECK_EQ(tread(&S, 1, sizeof a, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 0);
    CHECK_EQ(fidop(&S, P9_TFSYNC, 1), P9_RFSYNC);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK_EQ(lerr(clunk(&S, 1)), 9);
    /* the file as steadyfs sees it */
    fd = steadyfs_open(FS, "/data.bin", STEADYFS_O_RDONLY);
    CHECK(fd >= 0);
    memset(b, 0, sizeof b);
    CHECK_EQ(steadyfs_read(FS, fd, b, sizeof b), sizeof a);
    CHECK(!memcmp(a, b, sizeof a));
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    /* open modes */
    CHECK_EQ(walk(&S, 0, 2, "data.bin"), P9_RWALK);
    CHECK_EQ(lopen(&S, 2, 0), P9_RLOPEN);
    CHECK_EQ(lerr(lopen(&S, 2, 0)), 22);   /* already open */
    CHECK_EQ(lerr(twrite(&S, 2, 0, a, 10)), 9);   /* read-only fid */
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 2, "data.bin"), P9_RWALK);
    CHECK_EQ(lopen(&S, 2, 01), P9_RLOPEN);   /* O_WRONLY */
    CHECK_EQ(lerr(tread(&S, 2, 0, 10)), 9);
    CHECK_EQ(twrite(&S, 2, 30000, "tail", 4), P9_RWRITE);   /* leaves a hole */
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(fs_size("/data.bin"), 30004);
    CHECK_EQ(walk(&S, 0, 2, "data.bin"), P9_RWALK);
    CHECK_EQ(lopen(&S, 2, 0), P9_RLOPEN);
    CHECK_EQ(tread(&S, 2, 25000, 8), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 8);
    CHECK(!memcmp(R.u.rread.data, "\0\0\0\0\0\0\0\0", 8));
    CHECK_EQ(lerr(tread(&S, 2, (uint64_t)1 << 63, 8)), 22);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    /* O_TRUNC, O_APPEND */
    CHECK_EQ(walk(&S, 0, 2, "data.bin"), P9_RWALK);
    CHECK_EQ(lopen(&S, 2, 01 | 01000), P9_RLOPEN);
    CHECK_EQ(fs_size("/data.bin"), 0);
    CHECK_EQ(twrite(&S, 2, 0, "abc", 3), P9_RWRITE);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 2, "data.bin"), P9_RWALK);
    CHECK_EQ(lopen(&S, 2, 02 | 02000), P9_RLOPEN);
    CHECK_EQ(twrite(&S, 2, 0, "def", 3), P9_RWRITE);
    CHECK_EQ(tread(&S, 2, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 6);
    CHECK(!memcmp(R.u.rread.data, "abcdef", 6));
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    /* Tsetattr: size on an unopened fid, mode kept */
    CHECK_EQ(walk(&S, 0, 2, "data.bin"), P9_RWALK);
    CHECK_EQ(setattr(&S, 2, P9_SETATTR_SIZE, 2), P9_RSETATTR);
    CHECK_EQ(fs_size("/data.bin"), 2);
    CHECK_EQ(setattr(&S, 2, P9_SETATTR_SIZE, 9000), P9_RSETATTR);
    CHECK_EQ(fs_size("/data.bin"), 9000);
    CHECK_EQ(setattr(&S, 2, P9_SETATTR_MODE | P9_SETATTR_MTIME | P9_SETATTR_ATIME, 0),
             P9_RSETATTR);
    CHECK_EQ(getattr(&S, 2), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.mode, 0100600);
    CHECK_EQ(R.u.rgetattr.size, 9000);
    CHECK_EQ(lerr(setattr(&S, 0, P9_SETATTR_SIZE, 0)), 21);   /* a directory */
    /* on an open fid */
    CHECK_EQ(lopen(&S, 2, 02), P9_RLOPEN);
    CHECK_EQ(setattr(&S, 2, P9_SETATTR_SIZE, 5), P9_RSETATTR);
    CHECK_EQ(getattr(&S, 2), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.size, 5);
    /* an open file unlinked: the name goes, the open fid reads, writes
     * and stats on (a steadyfs orphan) until it is clunked */
    CHECK_EQ(unlinkat9(&S, 0, "data.bin", 0), P9_RUNLINKAT);
    CHECK_EQ(fs_size("/data.bin"), STEADYFS_ENOENT);
    CHECK_EQ(tread(&S, 2, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 5);
    CHECK_EQ(setattr(&S, 2, P9_SETATTR_SIZE, 3), P9_RSETATTR);
    CHECK_EQ(getattr(&S, 2), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.size, 3);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    /* the file is back for what follows */
    CHECK_EQ(walk(&S, 0, 2, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 2, "data.bin", 2), P9_RLCREATE);
    CHECK_EQ(twrite(&S, 2, 0, "12345", 5), P9_RWRITE);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(fs_size("/data.bin"), 5);
    /* Tlcreate of an existing name: EEXIST with O_EXCL, else opened */
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lerr(lcreate(&S, 1, "data.bin", 2 | 0200)), 17);
    CHECK_EQ(lcreate(&S, 1, "data.bin", 2), P9_RLCREATE);
    CHECK_EQ(tread(&S, 1, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 5);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 1, "data.bin", 1 | 01000), P9_RLCREATE);   /* O_TRUNC */
    CHECK_EQ(fs_size("/data.bin"), 0);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lerr(lcreate(&S, 1, "d", 1)), 21);   /* a directory */
    /* statfs */
    CHECK_EQ(fidop(&S, P9_TSTATFS, 1), P9_RSTATFS);
    CHECK(R.u.rstatfs.blocks > 0 && R.u.rstatfs.bfree <= R.u.rstatfs.blocks);
    CHECK_EQ(R.u.rstatfs.namelen, 255);
    CHECK_EQ(fidop(&S, P9_TFSYNC, 1), P9_RFSYNC);   /* nothing open: nothing to do */
    /* xattrs: named ones do not exist, the list is empty */
    {
        struct p9_msg m = {.type = P9_TXATTRWALK};
        m.u.txattrwalk.fid = 1;
        m.u.txattrwalk.newfid = 9;
        m.u.txattrwalk.name = p9_cstr("security.selinux");
        CHECK_EQ(lerr(rpc(&S, &m)), 61);
        m.u.txattrwalk.name = p9_cstr("");
        m.tag = 0;
        CHECK_EQ(rpc(&S, &m), P9_RXATTRWALK);
        CHECK_EQ(R.u.rxattrwalk.size, 0);
        CHECK_EQ(tread(&S, 9, 0, 100), P9_RREAD);
        CHECK_EQ(R.u.rread.count, 0);
        CHECK_EQ(lerr(getattr(&S, 9)), 9);
        CHECK_EQ(clunk(&S, 9), P9_RCLUNK);
    }
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    p9srv_disconnect(&S);
}

static void test_namespace(void)
{
    static char seen[40];
    uint64_t off = 0;
    uint32_t i, calls = 0, total = 0;
    char name[16];
    memset(seen, 0, sizeof seen);
    start(&S, 0, 0);
    CHECK_EQ(mkdir9(&S, 0, "dir"), P9_RMKDIR);
    CHECK_EQ(R.u.qid.type, P9_QTDIR);
    CHECK_EQ(walk(&S, 0, 1, "dir"), P9_RWALK);
    for (i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "file%02u", (unsigned)i);
        CHECK_EQ(walk(&S, 1, 2, ""), P9_RWALK);
        CHECK_EQ(lcreate(&S, 2, name, 1), P9_RLCREATE);
        CHECK_EQ(twrite(&S, 2, 0, name, (uint32_t)strlen(name)), P9_RWRITE);
        CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    }
    CHECK_EQ(mkdir9(&S, 1, "sub"), P9_RMKDIR);
    /* readdir in small pieces: every entry exactly once */
    CHECK_EQ(walk(&S, 1, 3, ""), P9_RWALK);
    CHECK_EQ(lerr(treaddir(&S, 3, 0, 200)), 9);   /* not open */
    CHECK_EQ(lerr(lopen(&S, 3, 02)), 21);          /* directories open read-only */
    CHECK_EQ(lopen(&S, 3, 0), P9_RLOPEN);
    CHECK_EQ(R.u.ropen.qid.type, P9_QTDIR);
    CHECK_EQ(lerr(tread(&S, 3, 0, 10)), 21);
    for (;;) {
        struct p9_dirent d;
        uint32_t pos = 0;
        int k = 0;
        CHECK_EQ(treaddir(&S, 3, off, 100), P9_RREADDIR);
        calls++;
        if (R.u.rread.count == 0 || calls > 100)
            break;
        CHECK(R.u.rread.count <= 100);
        while ((k = p9_dirent_next(R.u.rread.data, R.u.rread.count, &pos, &d)) == 1) {
            unsigned idx;
            total++;
            off = d.offset;
            if (p9_str_eq(d.name, "sub")) {
                CHECK_EQ(d.type, 4);
                CHECK_EQ(d.qid.type, P9_QTDIR);
            } else if (d.name.len == 6 && sscanf((const char *)d.name.ptr, "file%2u", &idx) == 1 &&
                       idx < 40) {
                CHECK_EQ(d.type, 8);
                seen[idx]++;
            } else {
                CHECK(0);
            }
        }
        CHECK_EQ(k, 0);
    }
    CHECK_EQ(total, 41);
    for (i = 0; i < 40; i++)
        CHECK_EQ(seen[i], 1);
    CHECK(calls > 5);
    CHECK_EQ(clunk(&S, 3), P9_RCLUNK);
    /* unlinkat: files, AT_REMOVEDIR, wrong kinds */
    CHECK_EQ(unlinkat9(&S, 1, "file00", 0), P9_RUNLINKAT);
    CHECK_EQ(fs_size("/dir/file00"), STEADYFS_ENOENT);
    CHECK_EQ(lerr(unlinkat9(&S, 1, "file00", 0)), 2);
    CHECK_EQ(lerr(unlinkat9(&S, 1, "sub", 0)), 21);
    CHECK_EQ(lerr(unlinkat9(&S, 1, "file01", 0x200)), 20);
    CHECK_EQ(lerr(unlinkat9(&S, 0, "dir", 0x200)), 39);
    CHECK_EQ(unlinkat9(&S, 1, "sub", 0x200), P9_RUNLINKAT);
    /* renameat; a fid under a renamed directory follows it */
    CHECK_EQ(walk(&S, 1, 4, "file01"), P9_RWALK);
    CHECK_EQ(renameat9(&S, 0, "dir", 0, "moved"), P9_RRENAMEAT);
    CHECK_EQ(fs_size("/moved/file01"), 6);
    CHECK_EQ(getattr(&S, 4), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.size, 6);
    CHECK_EQ(lopen(&S, 4, 0), P9_RLOPEN);
    CHECK_EQ(tread(&S, 4, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 6);
    CHECK(!memcmp(R.u.rread.data, "file01", 6));
    /* renaming over an open file: its fid reads the old file on */
    CHECK_EQ(renameat9(&S, 1, "file02", 1, "file01"), P9_RRENAMEAT);
    CHECK_EQ(tread(&S, 4, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 6);
    CHECK(!memcmp(R.u.rread.data, "file01", 6));
    CHECK_EQ(clunk(&S, 4), P9_RCLUNK);
    CHECK_EQ(fs_size("/moved/file02"), STEADYFS_ENOENT);
    /* Trename (the old form): fid 5 moves to the root as "top" */
    CHECK_EQ(walk(&S, 1, 5, "file03"), P9_RWALK);
    {
        struct p9_msg m = {.type = P9_TRENAME};
        m.u.trename.fid = 5;
        m.u.trename.dfid = 0;
        m.u.trename.name = p9_cstr("top");
        CHECK_EQ(rpc(&S, &m), P9_RRENAME);
    }
    CHECK_EQ(fs_size("/top"), 6);
    CHECK_EQ(getattr(&S, 5), P9_RGETATTR);   /* still valid under its new name */
    /* a directory cannot move under itself; the root cannot move */
    CHECK_EQ(mkdir9(&S, 1, "inner"), P9_RMKDIR);
    CHECK_EQ(lerr(renameat9(&S, 0, "moved", 1, "inner")), 22);
    /* Tremove: the fid goes away whether or not the removal worked */
    CHECK_EQ(fidop(&S, P9_TREMOVE, 5), P9_RREMOVE);
    CHECK_EQ(fs_size("/top"), STEADYFS_ENOENT);
    CHECK_EQ(lerr(getattr(&S, 5)), 9);
    CHECK_EQ(walk(&S, 0, 6, "moved"), P9_RWALK);
    CHECK_EQ(lerr(fidop(&S, P9_TREMOVE, 6)), 39);
    CHECK_EQ(lerr(getattr(&S, 6)), 9);
    CHECK_EQ(walk(&S, 0, 6, ""), P9_RWALK);
    CHECK_EQ(lerr(fidop(&S, P9_TREMOVE, 6)), 16);   /* the root */
    /* a stale fid: its file was removed and the name reused */
    CHECK_EQ(walk(&S, 1, 7, "file04"), P9_RWALK);
    CHECK_EQ(unlinkat9(&S, 1, "file04", 0), P9_RUNLINKAT);
    CHECK_EQ(lerr(getattr(&S, 7)), 2);
    CHECK_EQ(walk(&S, 1, 8, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 8, "file04", 1), P9_RLCREATE);
    CHECK_EQ(clunk(&S, 8), P9_RCLUNK);
    CHECK_EQ(lerr(getattr(&S, 7)), 116);
    CHECK_EQ(lerr(lopen(&S, 7, 0)), 116);
    CHECK_EQ(lerr(setattr(&S, 7, P9_SETATTR_SIZE, 0)), 116);
    CHECK_EQ(lerr(fidop(&S, P9_TREMOVE, 7)), 116);
    CHECK_EQ(fs_size("/moved/file04"), 0);
    p9srv_disconnect(&S);
}

static void test_limits(void)
{
    uint32_t i;
    int type;
    start(&S, 0, 0);
    /* fid exhaustion: an error, and the table works again after a clunk */
    for (i = 1; i < FIDS; i++)
        CHECK_EQ(walk(&S, 0, i, ""), P9_RWALK);
    CHECK_EQ(p9srv_fid_count(&S), FIDS);
    CHECK_EQ(lerr(walk(&S, 0, 100, "")), 24);
    CHECK_EQ(lerr(attach(&S, 101, "")), 24);
    CHECK_EQ(S.n_fid_full, 2);
    CHECK_EQ(clunk(&S, 5), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 100, ""), P9_RWALK);
    p9srv_disconnect(&S);
    /* steadyfs's own open table (open_max 8) is the other limit, for
     * files; open directories hold no handle */
    start(&S, 0, 0);
    CHECK_EQ(mkdir9(&S, 0, "lim"), P9_RMKDIR);
    for (i = 1; i <= 4; i++) {
        CHECK_EQ(walk(&S, 0, i, "lim"), P9_RWALK);
        CHECK_EQ(lopen(&S, i, 0), P9_RLOPEN);
    }
    CHECK_EQ(walk(&S, 0, 11, "lim"), P9_RWALK);
    for (i = 0; i < 10; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "f%u", (unsigned)i);
        CHECK_EQ(walk(&S, 11, 20 + i, ""), P9_RWALK);
        type = lcreate(&S, 20 + i, nm, 2);
        if (i < 8) {
            CHECK_EQ(type, P9_RLCREATE);
        } else {
            CHECK_EQ(lerr(type), 23);
            snprintf(nm, sizeof nm, "/lim/f%u", (unsigned)i);
            CHECK_EQ(fs_size(nm), STEADYFS_ENOENT);   /* a failed create leaves no name */
        }
    }
    /* a Treaddir needs one free handle for its duration */
    CHECK_EQ(lerr(treaddir(&S, 1, 0, 1000)), 23);
    CHECK_EQ(clunk(&S, 20), P9_RCLUNK);
    CHECK_EQ(treaddir(&S, 1, 0, 1000), P9_RREADDIR);
    CHECK(R.u.rread.count > 0);
    CHECK_EQ(lcreate(&S, 28, "f8", 2), P9_RLCREATE);   /* the slot is free again */
    p9srv_disconnect(&S);
    /* deep paths: path_max 32 gives paths of up to 31 bytes */
    start(&S, 0, 32);
    CHECK_EQ(mkdir9(&S, 0, "aaaaaaaaaaaaaa"), P9_RMKDIR);           /* /aaaaaaaaaaaaaa: 15 */
    CHECK_EQ(walk(&S, 0, 1, "aaaaaaaaaaaaaa"), P9_RWALK);
    CHECK_EQ(mkdir9(&S, 1, "bbbbbbbbbbbbbbb"), P9_RMKDIR);          /* 31 */
    CHECK_EQ(lerr(mkdir9(&S, 1, "bbbbbbbbbbbbbbbb")), 36);          /* 32 */
    CHECK_EQ(walk(&S, 1, 2, "bbbbbbbbbbbbbbb"), P9_RWALK);
    CHECK_EQ(lerr(walk(&S, 2, 3, "c")), 36);
    CHECK_EQ(lerr(lcreate(&S, 2, "c", 1)), 36);
    /* a rename that makes fid 2's path too long makes it stale */
    CHECK_EQ(renameat9(&S, 0, "aaaaaaaaaaaaaa", 0, "aaaaaaaaaaaaaaaaaa"), P9_RRENAMEAT);
    CHECK_EQ(lerr(getattr(&S, 2)), 116);
    CHECK_EQ(getattr(&S, 1), P9_RGETATTR);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    p9srv_disconnect(&S);
}

static void test_read_only(void)
{
    start(&S, 1, 0);
    CHECK_EQ(lerr(mkdir9(&S, 0, "x")), 30);
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lerr(lcreate(&S, 1, "x", 1)), 30);
    CHECK_EQ(walk(&S, 0, 2, "moved/file01"), P9_RWALK);
    CHECK_EQ(lerr(lopen(&S, 2, 1)), 30);
    CHECK_EQ(lerr(lopen(&S, 2, 01000)), 30);
    CHECK_EQ(lerr(setattr(&S, 2, P9_SETATTR_SIZE, 0)), 30);
    CHECK_EQ(lerr(setattr(&S, 2, P9_SETATTR_MODE, 0)), 30);
    CHECK_EQ(lerr(unlinkat9(&S, 0, "moved", 0x200)), 30);
    CHECK_EQ(lerr(renameat9(&S, 0, "moved", 0, "m2")), 30);
    CHECK_EQ(lerr(fidop(&S, P9_TREMOVE, 2)), 30);
    CHECK_EQ(walk(&S, 0, 2, "moved/file01"), P9_RWALK);
    CHECK_EQ(lopen(&S, 2, 0), P9_RLOPEN);
    CHECK_EQ(tread(&S, 2, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 6);
    CHECK_EQ(fs_size("/moved/file01"), 6);
    p9srv_disconnect(&S);
}

/* Raw byte messages: the server must answer or ask for a disconnect, and
 * never read outside what it was given (ASan checks that). */
static void test_malformed(void)
{
    uint8_t m[64], out[MSIZE];
    int32_t r;
    uint32_t i;
    struct p9_msg rep;
    start(&S, 0, 0);
    /* too short for a header; size field disagreeing with the length */
    memcpy(m, "\x07\x00\x00\x00\x78\x01\x00", 7);   /* Tclunk without its fid */
    CHECK_EQ(p9srv_handle(&S, m, 6, out, sizeof out), P9SRV_E_FRAME);
    CHECK_EQ(p9srv_handle(&S, m, 8, out, sizeof out), P9SRV_E_FRAME);
    r = p9srv_handle(&S, m, 7, out, sizeof out);   /* a truncated body: Rlerror EPROTO */
    CHECK(r > 0);
    CHECK_EQ(p9_decode(out, (size_t)r, MSIZE, &rep), r);
    CHECK_EQ(rep.type, P9_RLERROR);
    CHECK_EQ(rep.tag, 1);
    CHECK_EQ(rep.u.rlerror.ecode, 71);
    /* trailing bytes */
    memcpy(m, "\x0c\x00\x00\x00\x78\x02\x00\x00\x00\x00\x00\xff", 12);
    r = p9srv_handle(&S, m, 12, out, sizeof out);
    CHECK(r > 0 && p9_decode(out, (size_t)r, MSIZE, &rep) == r && rep.u.rlerror.ecode == 71);
    /* unknown type */
    memcpy(m, "\x07\x00\x00\x00\xc8\x03\x00", 7);
    r = p9srv_handle(&S, m, 7, out, sizeof out);
    CHECK(r > 0 && p9_decode(out, (size_t)r, MSIZE, &rep) == r && rep.type == P9_RLERROR &&
          rep.u.rlerror.ecode == 95 && rep.tag == 3);
    /* size field over msize, and under the header */
    memcpy(m, "\x01\x10\x00\x00\x78\x04\x00", 7);
    CHECK_EQ(p9srv_handle(&S, m, 7, out, sizeof out), P9SRV_E_FRAME);
    memcpy(m, "\x03\x00\x00\x00\x78\x04\x00", 7);
    CHECK_EQ(p9srv_handle(&S, m, 7, out, sizeof out), P9SRV_E_FRAME);
    /* an output buffer smaller than msize is the transport's bug */
    memcpy(m, "\x0b\x00\x00\x00\x78\x05\x00\x00\x00\x00\x00", 11);
    CHECK_EQ(p9srv_handle(&S, m, 11, out, 100), P9SRV_E_NOSPACE);
    /* Twalk with nwname 17 */
    memcpy(m, "\x11\x00\x00\x00\x6e\x06\x00\x00\x00\x00\x00\x01\x00\x00\x00\x11\x00", 17);
    r = p9srv_handle(&S, m, 17, out, sizeof out);
    CHECK(r > 0 && p9_decode(out, (size_t)r, MSIZE, &rep) == r && rep.type == P9_RLERROR);
    /* every truncation of a valid Twalk gives Rlerror or a disconnect */
    {
        struct p9_msg w = {.type = P9_TWALK, .tag = 9};
        int n;
        w.u.twalk.fid = 0;
        w.u.twalk.newfid = 50;
        w.u.twalk.nwname = 2;
        w.u.twalk.wname[0] = p9_cstr("moved");
        w.u.twalk.wname[1] = p9_cstr("file01");
        n = p9_encode(&w, m, sizeof m);
        CHECK(n > 0);
        for (i = 0; i < (uint32_t)n; i++) {
            uint8_t cut[64];
            memcpy(cut, m, i);
            if (i >= 4) {
                cut[0] = (uint8_t)i;   /* a consistent size field over a cut body */
                r = p9srv_handle(&S, cut, i, out, sizeof out);
                if (i < 7)
                    CHECK_EQ(r, P9SRV_E_FRAME);
                else
                    CHECK(r > 0 && p9_decode(out, (size_t)r, MSIZE, &rep) == r &&
                          rep.type == P9_RLERROR);
            } else {
                CHECK_EQ(p9srv_handle(&S, cut, i, out, sizeof out), P9SRV_E_FRAME);
            }
        }
        CHECK_EQ(p9srv_fid_count(&S), 1);
        r = p9srv_handle(&S, m, (uint32_t)n, out, sizeof out);
        CHECK(r > 0 && p9_decode(out, (size_t)r, MSIZE, &rep) == r && rep.type == P9_RWALK);
    }
    p9srv_disconnect(&S);
}

/* What a client wrote is committed when it goes away without clunking. */
static void test_disconnect(void)
{
    static uint8_t a[6000];
    fill(a, sizeof a, 9);
    start(&S, 0, 0);
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 1, "left-open", 1), P9_RLCREATE);
    CHECK_EQ(twrite(&S, 1, 0, a, 3000), P9_RWRITE);
    CHECK_EQ(twrite(&S, 1, 3000, a + 3000, 3000), P9_RWRITE);
    CHECK_EQ(p9srv_disconnect(&S), 0);
    CHECK_EQ(p9srv_fid_count(&S), 0);
    CHECK_EQ(steadyfs_unmount(FS), 0);   /* would fail if a handle were still open? it commits */
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    CHECK_EQ(fs_size("/left-open"), 6000);
    {
        int fd = steadyfs_open(FS, "/left-open", STEADYFS_O_RDONLY);
        static uint8_t b[6000];
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_read(FS, fd, b, sizeof b), 6000);
        CHECK(!memcmp(a, b, sizeof a));
        CHECK_EQ(steadyfs_close(FS, fd), 0);
    }
    /* the next client starts over */
    CHECK_EQ(lerr(getattr(&S, 0)), 71);
    start(&S, 0, 0);
    CHECK_EQ(walk(&S, 0, 1, "left-open"), P9_RWALK);
    CHECK_EQ(unlinkat9(&S, 0, "left-open", 0), P9_RUNLINKAT);
    p9srv_disconnect(&S);
}

/* steadyfs's own view of a file's first n bytes equal to want? */
static int fs_holds(const char *path, const uint8_t *want, uint32_t n)
{
    static uint8_t b[8192];
    int fd = steadyfs_open(FS, path, STEADYFS_O_RDONLY), same;
    if (fd < 0 || n > sizeof b)
        return 0;
    same = steadyfs_read(FS, fd, b, n) == (int32_t)n && !memcmp(b, want, n);
    steadyfs_close(FS, fd);
    return same;
}

/* O_DSYNC and O_SYNC in Tlcreate/Tlopen: each Twrite is committed when
 * answered, so a power cut right after it (no Tfsync, no clunk) keeps it;
 * without the flag the same write is lost. */
static void test_dsync(void)
{
    static uint8_t a[3000], b[100];
    fill(a, sizeof a, 21);
    fill(b, sizeof b, 22);
    start(&S, 0, 0);
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 1, "old", 1), P9_RLCREATE);
    CHECK_EQ(twrite(&S, 1, 0, a, sizeof a), P9_RWRITE);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);                        /* committed */
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 1, "dsync", 1 | 010000), P9_RLCREATE);   /* O_WRONLY|O_DSYNC */
    CHECK_EQ(twrite(&S, 1, 0, a, sizeof a), P9_RWRITE);
    CHECK_EQ(walk(&S, 0, 2, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 2, "plain", 1), P9_RLCREATE);
    CHECK_EQ(twrite(&S, 2, 0, a, sizeof a), P9_RWRITE);
    CHECK_EQ(walk(&S, 0, 3, "old"), P9_RWALK);
    CHECK_EQ(lopen(&S, 3, 2 | 04010000), P9_RLOPEN);          /* O_RDWR|O_SYNC */
    CHECK_EQ(twrite(&S, 3, 0, b, sizeof b), P9_RWRITE);
    /* power cut: no Tfsync, no Tclunk, no disconnect */
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    CHECK_EQ(fs_size("/dsync"), sizeof a);
    CHECK(fs_holds("/dsync", a, sizeof a));
    CHECK_EQ(fs_size("/plain"), 0);                           /* created; its data never committed */
    CHECK_EQ(fs_size("/old"), sizeof a);
    CHECK(fs_holds("/old", b, sizeof b));
    CHECK_EQ(steadyfs_unlink(FS, "/dsync"), 0);
    CHECK_EQ(steadyfs_unlink(FS, "/plain"), 0);
    CHECK_EQ(steadyfs_unlink(FS, "/old"), 0);
}

/* Several sessions on one steadyfs (steady serve's many clients): each has
 * its own fids and msize, all see one file system, and a rename through
 * one moves the fids of the others while they are grouped. */
static void test_sessions(void)
{
    static uint32_t mem2[4096], mem3[4096];
    static p9srv S2, S3, X;
    static steadyfs other;
    p9srv_config c = {.fs = FS, .mem = mem2, .mem_size = sizeof mem2, .msize_max = MSIZE,
                      .fid_max = FIDS};
    start(&S, 0, 0);
    CHECK_EQ(p9srv_init(&S2, &c), 0);
    c.mem = mem3;
    CHECK_EQ(p9srv_init(&S3, &c), 0);
    CHECK_EQ(version(&S2, 1024, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(version(&S3, 2048, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(p9srv_msize(&S), MSIZE);
    CHECK_EQ(p9srv_msize(&S2), 1024);
    CHECK_EQ(p9srv_msize(&S3), 2048);
    CHECK_EQ(attach(&S2, 0, ""), P9_RATTACH);
    CHECK_EQ(attach(&S3, 0, ""), P9_RATTACH);
    CHECK_EQ(p9srv_group(&S2, &S), 0);
    CHECK_EQ(p9srv_group(&S3, &S2), 0);
    CHECK_EQ(p9srv_group(&S3, &S), P9SRV_E_INVAL);   /* already grouped */
    CHECK_EQ(p9srv_group(&S, &S), P9SRV_E_INVAL);
    X = S3;
    X.peer = NULL;
    X.cfg.fs = &other;                              /* another file system */
    CHECK_EQ(p9srv_group(&X, &S), P9SRV_E_INVAL);
    /* the same fid numbers, independent tables */
    CHECK_EQ(mkdir9(&S, 0, "shared"), P9_RMKDIR);
    CHECK_EQ(walk(&S, 0, 1, "shared"), P9_RWALK);
    CHECK_EQ(lcreate(&S, 1, "a", 2), P9_RLCREATE);
    CHECK_EQ(twrite(&S, 1, 0, "one", 3), P9_RWRITE);
    CHECK_EQ(fidop(&S, P9_TFSYNC, 1), P9_RFSYNC);
    CHECK_EQ(walk(&S2, 0, 1, "shared/a"), P9_RWALK);
    CHECK_EQ(walk(&S3, 0, 1, "shared"), P9_RWALK);
    CHECK_EQ(walk(&S3, 1, 2, "a"), P9_RWALK);
    CHECK_EQ(lopen(&S2, 1, 0), P9_RLOPEN);
    CHECK_EQ(tread(&S2, 1, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 3);
    CHECK(!memcmp(R.u.rread.data, "one", 3));
    /* open in one session, unlinked by another: the open fid reads on */
    CHECK_EQ(walk(&S, 0, 4, "shared"), P9_RWALK);
    CHECK_EQ(lcreate(&S, 4, "c", 2), P9_RLCREATE);
    CHECK_EQ(twrite(&S, 4, 0, "cc", 2), P9_RWRITE);
    CHECK_EQ(unlinkat9(&S3, 1, "c", 0), P9_RUNLINKAT);
    CHECK_EQ(lerr(walk(&S3, 1, 5, "c")), 2);
    CHECK_EQ(tread(&S, 4, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 2);
    CHECK_EQ(clunk(&S, 4), P9_RCLUNK);
    /* a rename through S moves the fids of S2 and S3 (S3's directory fid
     * and the open file fid of S2 alike) */
    CHECK_EQ(renameat9(&S, 0, "shared", 0, "grp-moved"), P9_RRENAMEAT);
    CHECK_EQ(getattr(&S3, 2), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.size, 3);
    CHECK_EQ(walk(&S3, 1, 3, "a"), P9_RWALK);         /* relative to the moved directory */
    CHECK_EQ(lcreate(&S3, 1, "b", 1), P9_RLCREATE);   /* fid 1 is now /moved/b, open */
    CHECK_EQ(fs_size("/grp-moved/b"), 0);
    CHECK_EQ(clunk(&S3, 1), P9_RCLUNK);
    CHECK_EQ(tread(&S2, 1, 1, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 2);
    CHECK_EQ(clunk(&S2, 1), P9_RCLUNK);
    CHECK_EQ(walk(&S2, 0, 1, "grp-moved"), P9_RWALK);
    /* S2 leaves the group: its fids no longer follow; S and S3 still do */
    p9srv_ungroup(&S2);
    CHECK(S2.peer == NULL);
    CHECK_EQ(renameat9(&S, 0, "grp-moved", 0, "grp-again"), P9_RRENAMEAT);
    CHECK_EQ(getattr(&S3, 2), P9_RGETATTR);
    CHECK_EQ(lerr(getattr(&S2, 1)), 2);              /* still names /grp-moved */
    CHECK_EQ(clunk(&S2, 1), P9_RCLUNK);
    CHECK_EQ(walk(&S2, 0, 1, "grp-again"), P9_RWALK);
    p9srv_ungroup(&S3);
    CHECK(S.peer == NULL && S3.peer == NULL);        /* S alone again */
    p9srv_ungroup(&S3);                               /* harmless when alone */
    /* a disconnect clunks only its own session's fids */
    CHECK_EQ(p9srv_disconnect(&S3), 0);
    CHECK_EQ(getattr(&S2, 1), P9_RGETATTR);
    /* S still has it open: S2 unlinks it all the same, S reads on */
    CHECK_EQ(unlinkat9(&S2, 1, "a", 0), P9_RUNLINKAT);
    CHECK_EQ(tread(&S, 1, 0, 100), P9_RREAD);
    CHECK_EQ(R.u.rread.count, 3);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK_EQ(unlinkat9(&S2, 1, "b", 0), P9_RUNLINKAT);
    CHECK_EQ(unlinkat9(&S2, 0, "grp-again", 0x200), P9_RUNLINKAT);
    p9srv_disconnect(&S2);
    p9srv_disconnect(&S);
}

/* ---- the file system's bounds carry through ----------------------------
 * Each message's device operations (counted by the simulator) stay within
 * the sum of steadyfs_bound() over the steadyfs calls the server makes for
 * it (docs/P9.md's table).  The virtual time is printed per message. */
static steadyfs_cost budget;
static sim_stats before;
static uint64_t t_before;

/* A deterministic clock for the file times: 1 ms per call. */
static int64_t clk_ns = 1600000000000000000LL;
static int64_t test_clock(void)
{
    clk_ns += 1000000;
    return clk_ns;
}

/* A raw message of a type the codec does not encode (Tlink, Tmknod). */
static int raw_lerror(p9srv *s, uint8_t type)
{
    uint8_t in[32] = {0};
    int32_t r;
    in[0] = sizeof in;
    in[4] = type;
    in[5] = 0x77;
    r = p9srv_handle(s, in, sizeof in, obuf, MSIZE);
    if (r < 0 || p9_decode(obuf, (size_t)r, MSIZE, &R) != r)
        return -1;
    return lerr(R.type);
}

/* Metadata through 9P: modes, owners, times and link counts in Rgetattr;
 * Tsetattr; creation with the request's mode and gid; symlinks; EPERM for
 * links and device nodes; the permission model (access_user) for uid 1000
 * and its bypass for uid 0. */
static void test_meta(void)
{
    static uint8_t mem2[16384];
    p9srv root;
    steadyfs_attr a = {STEADYFS_ATTR_MODE | STEADYFS_ATTR_UID, 0755, 1000, 0, 0};
    p9srv_config c = {.fs = FS, .mem = mem, .mem_size = sizeof mem, .msize_max = MSIZE,
                      .fid_max = FIDS, .access_user = 1};
    struct p9_msg m;
    int fd;
    /* set up through steadyfs: a home of 1000, a root-only file and dirs */
    CHECK_EQ(steadyfs_mkdir_attr(FS, "/home", &a), 0);
    a.mode = 0600;
    a.uid = 0;
    fd = steadyfs_open_attr(FS, "/home/secret", STEADYFS_O_WRONLY | STEADYFS_O_CREAT, &a);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    a.mode = 0700;
    CHECK_EQ(steadyfs_mkdir_attr(FS, "/priv", &a), 0);
    CHECK_EQ(steadyfs_mkdir(FS, "/pub"), 0);   /* 0755, root's */
    CHECK_EQ(p9srv_init(&S, &c), 0);
    CHECK_EQ(version(&S, MSIZE, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(attach(&S, 0, ""), P9_RATTACH);
    /* nothing to create in root's directories */
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lerr(lcreate(&S, 1, "x", 02)), 13);
    CHECK_EQ(lerr(mkdir9(&S, 0, "x")), 13);
    CHECK_EQ(lerr(walk(&S, 0, 2, "priv")), -1);   /* walking to it needs x on "/" only */
    CHECK_EQ(lerr(walk(&S, 2, 3, "anything")), 13);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 2, "pub"), P9_RWALK);
    CHECK_EQ(lerr(lopen(&S, 2, 0)), -1);         /* r-x for others */
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 2, "pub"), P9_RWALK);
    CHECK_EQ(lerr(setattr(&S, 2, P9_SETATTR_MODE, 0)), 1);   /* not the owner */
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(lerr(unlinkat9(&S, 0, "pub", 0x200)), 13);
    CHECK_EQ(lerr(renameat9(&S, 0, "pub", 0, "pub2")), 13);
    /* in the home: a file with the request's mode and gid, owner 1000 */
    CHECK_EQ(walk(&S, 0, 2, "home"), P9_RWALK);
    memset(&m, 0, sizeof m);
    m.type = P9_TLCREATE;
    m.u.tlcreate.fid = 2;
    m.u.tlcreate.name = p9_cstr("f");
    m.u.tlcreate.flags = 02;
    m.u.tlcreate.mode = 0640;
    m.u.tlcreate.gid = 100;
    CHECK_EQ(rpc(&S, &m), P9_RLCREATE);
    CHECK_EQ(twrite(&S, 2, 0, "hello", 5), P9_RWRITE);
    CHECK_EQ(getattr(&S, 2), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.mode, 0100640);
    CHECK_EQ(R.u.rgetattr.uid, 1000);
    CHECK_EQ(R.u.rgetattr.gid, 100);
    CHECK_EQ(R.u.rgetattr.nlink, 1);
    CHECK_EQ(R.u.rgetattr.size, 5);
    CHECK_EQ(R.u.rgetattr.mtime_sec, (uint64_t)(clk_ns / 1000000000));
    CHECK_EQ(R.u.rgetattr.mtime_nsec, (uint64_t)(clk_ns % 1000000000));
    CHECK_EQ(R.u.rgetattr.atime_sec, R.u.rgetattr.mtime_sec);
    /* cp -a's order: write, times, chmod, close; the times stay */
    memset(&m, 0, sizeof m);
    m.type = P9_TSETATTR;
    m.u.tsetattr.fid = 2;
    m.u.tsetattr.valid = P9_SETATTR_MTIME | P9_SETATTR_MTIME_SET | P9_SETATTR_ATIME |
                         P9_SETATTR_ATIME_SET;
    m.u.tsetattr.mtime_sec = 1234567890;
    m.u.tsetattr.mtime_nsec = 987654321;
    CHECK_EQ(rpc(&S, &m), P9_RSETATTR);
    m.u.tsetattr.mtime_nsec = 1000000000;
    CHECK_EQ(lerr(rpc(&S, &m)), 22);
    m.u.tsetattr.mtime_nsec = 0;
    m.u.tsetattr.mtime_sec = 1ull << 62;
    CHECK_EQ(lerr(rpc(&S, &m)), 22);
    m.u.tsetattr.valid = P9_SETATTR_MODE | P9_SETATTR_GID | P9_SETATTR_CTIME;
    m.u.tsetattr.mode = 0100604;
    m.u.tsetattr.gid = 200;
    CHECK_EQ(rpc(&S, &m), P9_RSETATTR);
    m.u.tsetattr.valid = P9_SETATTR_UID;
    m.u.tsetattr.uid = 0;
    CHECK_EQ(lerr(rpc(&S, &m)), 1);                 /* chown: root only */
    m.u.tsetattr.uid = 1000;
    CHECK_EQ(rpc(&S, &m), P9_RSETATTR);             /* to itself: allowed */
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 2, "home/f"), P9_RWALK);
    CHECK_EQ(getattr(&S, 2), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.mode, 0100604);
    CHECK_EQ(R.u.rgetattr.gid, 200);
    CHECK_EQ(R.u.rgetattr.size, 5);
    CHECK_EQ(R.u.rgetattr.mtime_sec, 1234567890);
    CHECK_EQ(R.u.rgetattr.mtime_nsec, 987654321);
    CHECK(R.u.rgetattr.ctime_sec > 1234567890);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    /* root's file in the home: no reading it, no chmod, but removable
     * (the directory is ours) */
    CHECK_EQ(walk(&S, 0, 2, "home/secret"), P9_RWALK);
    CHECK_EQ(lerr(lopen(&S, 2, 0)), 13);
    CHECK_EQ(lerr(setattr(&S, 2, P9_SETATTR_MODE, 0)), 1);
    CHECK_EQ(lerr(setattr(&S, 2, P9_SETATTR_SIZE, 0)), 13);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    /* symlinks */
    CHECK_EQ(walk(&S, 0, 2, "home"), P9_RWALK);
    memset(&m, 0, sizeof m);
    m.type = P9_TSYMLINK;
    m.u.tsymlink.dfid = 2;
    m.u.tsymlink.name = p9_cstr("l");
    m.u.tsymlink.target = p9_cstr("f");
    m.u.tsymlink.gid = 100;
    CHECK_EQ(rpc(&S, &m), P9_RSYMLINK);
    CHECK_EQ(R.u.qid.type, P9_QTSYMLINK);
    CHECK_EQ(lerr(rpc(&S, &m)), 17);
    m.u.tsymlink.name = p9_cstr("bad");
    m.u.tsymlink.target = (struct p9_str){(const uint8_t *)"a\0b", 3};
    CHECK_EQ(lerr(rpc(&S, &m)), 22);
    m.u.tsymlink.target = p9_cstr("");
    CHECK_EQ(lerr(rpc(&S, &m)), 2);
    CHECK_EQ(walk(&S, 2, 3, "l"), P9_RWALK);
    CHECK_EQ(R.u.rwalk.wqid[0].type, P9_QTSYMLINK);
    memset(&m, 0, sizeof m);
    m.type = P9_TREADLINK;
    m.u.fid.fid = 3;
    CHECK_EQ(rpc(&S, &m), P9_RREADLINK);
    CHECK_EQ(R.u.rreadlink.target.len, 1);
    CHECK(!memcmp(R.u.rreadlink.target.ptr, "f", 1));
    m.u.fid.fid = 2;
    CHECK_EQ(lerr(rpc(&S, &m)), 22);                /* not a symlink */
    CHECK_EQ(getattr(&S, 3), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.mode, 0120777);
    CHECK_EQ(R.u.rgetattr.uid, 1000);
    CHECK_EQ(R.u.rgetattr.gid, 100);
    CHECK_EQ(R.u.rgetattr.size, 1);
    CHECK_EQ(lerr(lopen(&S, 3, 0)), 40);
    CHECK_EQ(lerr(walk(&S, 3, 4, "x")), 20);
    CHECK_EQ(clunk(&S, 3), P9_RCLUNK);
    /* link counts: the home has two subdirectories now */
    CHECK_EQ(mkdir9(&S, 2, "d1"), P9_RMKDIR);
    CHECK_EQ(mkdir9(&S, 2, "d2"), P9_RMKDIR);
    CHECK_EQ(getattr(&S, 2), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.nlink, 4);
    CHECK_EQ(R.u.rgetattr.mode, 040755);
    CHECK_EQ(unlinkat9(&S, 2, "d2", 0x200), P9_RUNLINKAT);
    CHECK_EQ(unlinkat9(&S, 2, "secret", 0), P9_RUNLINKAT);
    /* no hard links, no FIFOs or devices */
    CHECK_EQ(raw_lerror(&S, P9_TLINK), 1);
    CHECK_EQ(raw_lerror(&S, P9_TMKNOD), 1);
    CHECK_EQ(raw_lerror(&S, P9_TLOCK), 71);   /* decoded now: a truncated body is EPROTO */
    /* root bypasses the bits */
    c.mem = mem2;
    c.mem_size = sizeof mem2;
    c.fid_max = 8;
    CHECK_EQ(p9srv_init(&root, &c), 0);
    CHECK_EQ(version(&root, MSIZE, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(attach_as(&root, 0, "", 0), P9_RATTACH);
    CHECK_EQ(walk(&root, 0, 1, "priv"), P9_RWALK);
    CHECK_EQ(lcreate(&root, 1, "mine", 02), P9_RLCREATE);
    CHECK_EQ(getattr(&root, 1), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.uid, 0);
    CHECK_EQ(clunk(&root, 1), P9_RCLUNK);
    p9srv_disconnect(&root);
    p9srv_disconnect(&S);
}

static void expect(steadyfs_call call, uint64_t n)
{
    steadyfs_cost c;
    CHECK_EQ(steadyfs_bound(&T.cfg, &T.dev.bd.geo, call, n, &c), 0);
    budget.reads += c.reads;
    budget.progs += c.progs;
    budget.erases += c.erases;
}

static void measure_start(void)
{
    memset(&budget, 0, sizeof budget);
    before = T.dev.stats;
    t_before = T.dev.now_ns;
}

static void measure_end(const char *what)
{
    uint64_t r = T.dev.stats.reads - before.reads, p = T.dev.stats.progs - before.progs,
             e = T.dev.stats.erases - before.erases;
    CHECK(r <= budget.reads);
    CHECK(p <= budget.progs);
    CHECK(e <= budget.erases);
    if (r > budget.reads || p > budget.progs || e > budget.erases || !split)
        printf("  %-28s reads %3llu/%-4u progs %2llu/%-3u erases %llu/%u  %7.1f us\n", what,
               (unsigned long long)r, (unsigned)budget.reads, (unsigned long long)p,
               (unsigned)budget.progs, (unsigned long long)e, (unsigned)budget.erases,
               (double)(T.dev.now_ns - t_before) / 1000.0);
}

static void test_bounds(void)
{
    static uint8_t a[4000];
    uint32_t i;
    int k;
    fill(a, sizeof a, 5);
    start(&S, 0, 0);
    CHECK_EQ(mkdir9(&S, 0, "b1"), P9_RMKDIR);
    CHECK_EQ(walk(&S, 0, 1, "b1"), P9_RWALK);
    CHECK_EQ(mkdir9(&S, 1, "b2"), P9_RMKDIR);
    CHECK_EQ(walk(&S, 1, 2, "b2"), P9_RWALK);
    for (i = 0; i < 12; i++) {
        char nm[8];
        snprintf(nm, sizeof nm, "x%u", (unsigned)i);
        CHECK_EQ(walk(&S, 2, 3, ""), P9_RWALK);
        CHECK_EQ(lcreate(&S, 3, nm, 1), P9_RLCREATE);
        CHECK_EQ(twrite(&S, 3, 0, a, 1000), P9_RWRITE);
        CHECK_EQ(clunk(&S, 3), P9_RCLUNK);
    }
    if (!split)
        printf("device operations per message / bound (steadyfs_bound summed), virtual time:\n");
    measure_start();
    expect(STEADYFS_CALL_STAT, 1);
    expect(STEADYFS_CALL_STAT, 2);
    expect(STEADYFS_CALL_STAT, 3);
    CHECK_EQ(walk(&S, 0, 3, "b1/b2/x3"), P9_RWALK);
    measure_end("Twalk 3 names");
    measure_start();
    expect(STEADYFS_CALL_STAT, 3);
    expect(STEADYFS_CALL_INFO, 0);
    CHECK_EQ(getattr(&S, 3), P9_RGETATTR);
    measure_end("Tgetattr");
    measure_start();
    expect(STEADYFS_CALL_OPEN, 3);
    expect(STEADYFS_CALL_STAT, 0);
    CHECK_EQ(lopen(&S, 3, 2), P9_RLOPEN);
    measure_end("Tlopen O_RDWR");
    for (k = 0; k < 3; k++) {
        measure_start();
        expect(STEADYFS_CALL_SEEK, 0);
        expect(STEADYFS_CALL_WRITE, sizeof a);
        CHECK_EQ(twrite(&S, 3, (uint64_t)k * sizeof a, a, sizeof a), P9_RWRITE);
        measure_end("Twrite 4000 B");
    }
    measure_start();
    expect(STEADYFS_CALL_SYNC, 0);
    CHECK_EQ(fidop(&S, P9_TFSYNC, 3), P9_RFSYNC);
    measure_end("Tfsync");
    measure_start();
    expect(STEADYFS_CALL_SEEK, 0);
    expect(STEADYFS_CALL_READ, sizeof a);
    CHECK_EQ(tread(&S, 3, 1000, sizeof a), P9_RREAD);
    measure_end("Tread 4000 B");
    measure_start();
    expect(STEADYFS_CALL_CLOSE, 0);
    CHECK_EQ(clunk(&S, 3), P9_RCLUNK);
    measure_end("Tclunk (open file)");
    measure_start();
    expect(STEADYFS_CALL_STAT, 3);
    CHECK_EQ(walk(&S, 2, 3, "x4"), P9_RWALK);
    measure_end("Twalk 1 name");
    measure_start();
    expect(STEADYFS_CALL_OPEN, 3);
    expect(STEADYFS_CALL_STAT, 0);
    expect(STEADYFS_CALL_TRUNCATE, 0);
    expect(STEADYFS_CALL_CLOSE, 0);
    CHECK_EQ(setattr(&S, 3, P9_SETATTR_SIZE, 10), P9_RSETATTR);
    measure_end("Tsetattr size (unopened)");
    CHECK_EQ(clunk(&S, 3), P9_RCLUNK);
    CHECK_EQ(walk(&S, 2, 4, ""), P9_RWALK);
    CHECK_EQ(lopen(&S, 4, 0), P9_RLOPEN);
    measure_start();
    expect(STEADYFS_CALL_OPENDIR, 2);
    expect(STEADYFS_CALL_SEEK, 0);
    for (i = 0; i < 13; i++)
        expect(STEADYFS_CALL_READDIR, 0);
    expect(STEADYFS_CALL_CLOSEDIR, 0);
    CHECK_EQ(treaddir(&S, 4, 0, 1000), P9_RREADDIR);
    measure_end("Treaddir 12 entries");
    measure_start();
    CHECK_EQ(walk(&S, 2, 5, ""), P9_RWALK);   /* a clone touches nothing */
    measure_end("Twalk clone");
    measure_start();
    expect(STEADYFS_CALL_STAT, 3);
    expect(STEADYFS_CALL_CREATE, 3);
    expect(STEADYFS_CALL_STAT, 0);
    CHECK_EQ(lcreate(&S, 5, "newfile", 1), P9_RLCREATE);
    measure_end("Tlcreate");
    CHECK_EQ(clunk(&S, 5), P9_RCLUNK);
    measure_start();
    expect(STEADYFS_CALL_MKDIR, 3);
    expect(STEADYFS_CALL_STAT, 3);
    CHECK_EQ(mkdir9(&S, 2, "sub"), P9_RMKDIR);
    measure_end("Tmkdir");
    measure_start();
    expect(STEADYFS_CALL_RENAME, 3);
    CHECK_EQ(renameat9(&S, 2, "x5", 1, "y5"), P9_RRENAMEAT);
    measure_end("Trenameat");
    measure_start();
    expect(STEADYFS_CALL_UNLINK, 3);
    CHECK_EQ(unlinkat9(&S, 2, "x6", 0), P9_RUNLINKAT);
    measure_end("Tunlinkat");
    measure_start();
    expect(STEADYFS_CALL_RMDIR, 3);
    CHECK_EQ(unlinkat9(&S, 2, "sub", 0x200), P9_RUNLINKAT);
    measure_end("Tunlinkat AT_REMOVEDIR");
    measure_start();
    expect(STEADYFS_CALL_INFO, 0);
    CHECK_EQ(fidop(&S, P9_TSTATFS, 0), P9_RSTATFS);
    measure_end("Tstatfs");
    p9srv_disconnect(&S);
}

/* ---- group bits (p9srv_config.in_group) ----------------------------------- */

static int member_of_50(void *ctx, uint32_t uid, uint32_t gid)
{
    (*(int *)ctx)++;
    return uid == 1000 && gid == 50;
}

static void test_groups(void)
{
    int asked = 0, fd;
    steadyfs_attr a = {STEADYFS_ATTR_MODE | STEADYFS_ATTR_UID | STEADYFS_ATTR_GID, 0640, 0, 50, 0};
    p9srv_config c = {.fs = FS, .mem = mem, .mem_size = sizeof mem, .msize_max = MSIZE,
                      .fid_max = FIDS, .access_user = 1, .in_group = member_of_50,
                      .group_ctx = &asked};
    fd = steadyfs_open_attr(FS, "/g50", STEADYFS_O_WRONLY | STEADYFS_O_CREAT, &a);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    a.gid = 60;
    fd = steadyfs_open_attr(FS, "/g60", STEADYFS_O_WRONLY | STEADYFS_O_CREAT, &a);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    a.uid = 1000;
    a.gid = 0;
    a.mode = 0600;
    fd = steadyfs_open_attr(FS, "/mine", STEADYFS_O_WRONLY | STEADYFS_O_CREAT, &a);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_close(FS, fd), 0);
    CHECK_EQ(p9srv_init(&S, &c), 0);
    CHECK_EQ(version(&S, MSIZE, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(attach(&S, 0, ""), P9_RATTACH);   /* uid 1000 */
    /* a member of the file's group gets the group bits (r--), others "---" */
    CHECK_EQ(walk(&S, 0, 1, "g50"), P9_RWALK);
    CHECK_EQ(lopen(&S, 1, 0), P9_RLOPEN);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 1, "g50"), P9_RWALK);
    CHECK_EQ(lerr(lopen(&S, 1, 1)), 13);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK_EQ(walk(&S, 0, 1, "g60"), P9_RWALK);
    CHECK_EQ(lerr(lopen(&S, 1, 0)), 13);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    /* chgrp of one's own file: to a group of one's own only */
    CHECK_EQ(walk(&S, 0, 1, "mine"), P9_RWALK);
    {
        struct p9_msg m = {.type = P9_TSETATTR};
        m.u.tsetattr.fid = 1;
        m.u.tsetattr.valid = P9_SETATTR_GID;
        m.u.tsetattr.gid = 60;
        CHECK_EQ(lerr(rpc(&S, &m)), 1);   /* EPERM: not one of its groups */
        m.u.tsetattr.gid = 50;
        CHECK_EQ(rpc(&S, &m), P9_RSETATTR);
    }
    CHECK_EQ(getattr(&S, 1), P9_RGETATTR);
    CHECK_EQ(R.u.rgetattr.gid, 50);
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    CHECK(asked > 0);
    p9srv_disconnect(&S);
    CHECK_EQ(steadyfs_unlink(FS, "/g50"), 0);
    CHECK_EQ(steadyfs_unlink(FS, "/g60"), 0);
    CHECK_EQ(steadyfs_unlink(FS, "/mine"), 0);
}

/* ---- POSIX locks (Tlock, Tgetlock) --------------------------------------- */

static int tlock(p9srv *s, uint32_t fid, uint8_t type, uint64_t start, uint64_t len, uint32_t pid)
{
    struct p9_msg m = {.type = P9_TLOCK};
    m.u.tlock.fid = fid;
    m.u.tlock.type = type;
    m.u.tlock.flags = P9_LOCK_FLAGS_BLOCK;
    m.u.tlock.start = start;
    m.u.tlock.length = len;
    m.u.tlock.proc_id = pid;
    m.u.tlock.client_id = p9_cstr("guest");
    return rpc(s, &m) == P9_RLOCK ? R.u.rlock.status : -1;
}

/* Tgetlock: the conflicting lock's type (UNLCK: none); R holds the rest. */
static int getlock(p9srv *s, uint32_t fid, uint8_t type, uint64_t start, uint64_t len,
                   uint32_t pid)
{
    struct p9_msg m = {.type = P9_TGETLOCK};
    m.u.getlock.fid = fid;
    m.u.getlock.type = type;
    m.u.getlock.start = start;
    m.u.getlock.length = len;
    m.u.getlock.proc_id = pid;
    m.u.getlock.client_id = p9_cstr("guest");
    return rpc(s, &m) == P9_RGETLOCK ? R.u.getlock.type : -1;
}

static void test_locks(void)
{
    static uint32_t mem2[4096];
    static struct p9srv_lock ent[4];
    static p9srv_locks locks;
    static p9srv S2;
    p9srv_config c = {.fs = FS, .mem = mem, .mem_size = sizeof mem, .msize_max = MSIZE,
                      .fid_max = FIDS};
    p9srv_locks_init(&locks, ent, 4);
    /* without a table, alone (the firmware): granted, the client's kernel
     * keeps its locks; with a peer: EOPNOTSUPP */
    start(&S, 0, 0);
    CHECK_EQ(walk(&S, 0, 1, ""), P9_RWALK);
    CHECK_EQ(lcreate(&S, 1, "locked", 2), P9_RLCREATE);
    CHECK_EQ(tlock(&S, 1, P9_LOCK_TYPE_WRLCK, 0, 0, 1), P9_LOCK_SUCCESS);
    CHECK_EQ(getlock(&S, 1, P9_LOCK_TYPE_WRLCK, 0, 0, 2), P9_LOCK_TYPE_UNLCK);
    c.mem = mem2;
    CHECK_EQ(p9srv_init(&S2, &c), 0);
    CHECK_EQ(p9srv_group(&S2, &S), 0);
    CHECK_EQ(tlock(&S, 1, P9_LOCK_TYPE_WRLCK, 0, 0, 1), -1);
    CHECK_EQ(R.u.rlerror.ecode, 95);
    p9srv_ungroup(&S2);
    c.mem = mem;
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    p9srv_disconnect(&S);
    /* two sessions of a group share one table */
    c.locks = &locks;
    CHECK_EQ(p9srv_init(&S, &c), 0);
    CHECK_EQ(version(&S, MSIZE, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(attach(&S, 0, ""), P9_RATTACH);
    c.mem = mem2;
    CHECK_EQ(p9srv_init(&S2, &c), 0);
    CHECK_EQ(p9srv_group(&S2, &S), 0);
    CHECK_EQ(version(&S2, MSIZE, "9P2000.L"), P9_RVERSION);
    CHECK_EQ(attach(&S2, 0, ""), P9_RATTACH);
    CHECK_EQ(walk(&S, 0, 1, "locked"), P9_RWALK);
    CHECK_EQ(lopen(&S, 1, 2), P9_RLOPEN);
    CHECK_EQ(walk(&S2, 0, 1, "locked"), P9_RWALK);
    CHECK_EQ(lopen(&S2, 1, 2), P9_RLOPEN);
    /* a lock needs an open fid */
    CHECK_EQ(walk(&S, 0, 2, "locked"), P9_RWALK);
    CHECK_EQ(tlock(&S, 2, P9_LOCK_TYPE_WRLCK, 0, 0, 1), -1);
    CHECK_EQ(R.u.rlerror.ecode, 9);
    CHECK_EQ(clunk(&S, 2), P9_RCLUNK);
    /* S pid 1 write-locks bytes 100..199; readers elsewhere overlap: blocked */
    CHECK_EQ(tlock(&S, 1, P9_LOCK_TYPE_WRLCK, 100, 100, 1), P9_LOCK_SUCCESS);
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_RDLCK, 150, 10, 1), P9_LOCK_BLOCKED);
    CHECK_EQ(tlock(&S, 1, P9_LOCK_TYPE_RDLCK, 199, 1, 2), P9_LOCK_BLOCKED);   /* other pid */
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 200, 0, 1), P9_LOCK_SUCCESS);  /* 200..end */
    CHECK_EQ(getlock(&S2, 1, P9_LOCK_TYPE_RDLCK, 0, 0, 1), P9_LOCK_TYPE_WRLCK);
    CHECK_EQ(R.u.getlock.start, 100);
    CHECK_EQ(R.u.getlock.length, 100);
    CHECK_EQ(R.u.getlock.proc_id, 1);
    CHECK_EQ(getlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 0, 100, 1), P9_LOCK_TYPE_UNLCK);
    /* the owner itself never conflicts: it turns its lock to a read lock
     * and cuts a hole in the middle (a split) */
    CHECK_EQ(tlock(&S, 1, P9_LOCK_TYPE_RDLCK, 100, 100, 1), P9_LOCK_SUCCESS);
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_RDLCK, 150, 10, 3), P9_LOCK_SUCCESS);   /* readers share */
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_UNLCK, 150, 10, 3), P9_LOCK_SUCCESS);
    CHECK_EQ(tlock(&S, 1, P9_LOCK_TYPE_UNLCK, 140, 20, 1), P9_LOCK_SUCCESS);
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 145, 10, 3), P9_LOCK_SUCCESS);   /* in the hole */
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 135, 10, 4), P9_LOCK_BLOCKED);   /* 100..139 */
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 165, 10, 4), P9_LOCK_BLOCKED);   /* 160..199 */
    /* 4 entries: S 100..139 and 160..199, S2 pid 1 200.., S2 pid 3 145..154 */
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 50, 10, 5), P9_LOCK_ERROR);      /* ENOLCK */
    CHECK_EQ(getlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 50, 10, 5), P9_LOCK_TYPE_UNLCK); /* nothing set */
    /* bad type */
    CHECK_EQ(tlock(&S, 1, 7, 0, 0, 1), -1);
    CHECK_EQ(R.u.rlerror.ecode, 22);
    /* a session's locks go with it: S2's writers get all of S's range */
    CHECK_EQ(clunk(&S, 1), P9_RCLUNK);
    p9srv_disconnect(&S);
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_WRLCK, 0, 145, 6), P9_LOCK_SUCCESS);
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_UNLCK, 0, 0, 6), P9_LOCK_SUCCESS);
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_UNLCK, 0, 0, 3), P9_LOCK_SUCCESS);
    CHECK_EQ(tlock(&S2, 1, P9_LOCK_TYPE_UNLCK, 0, 0, 1), P9_LOCK_SUCCESS);
    CHECK(!ent[0].session && !ent[1].session && !ent[2].session && !ent[3].session);
    CHECK_EQ(clunk(&S2, 1), P9_RCLUNK);
    p9srv_ungroup(&S2);
    p9srv_disconnect(&S2);
    CHECK_EQ(steadyfs_unlink(FS, "/locked"), 0);
}

int main(void)
{
    uint32_t ws;
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 1), 0);
    /* eight open handles: enough for the server's open fids */
    free(T.work);
    T.cfg.open_max = 8;
    ws = steadyfs_work_size(&T.cfg);
    T.work = calloc(1, ws);
    T.cfg.work = T.work;
    T.cfg.work_size = ws;
    T.cfg.clock = test_clock;
    CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
    test_config();
    for (split = 0; split < 2; split++) {
        /* once with the reply built in the request's buffer, once apart */
        if (split) {
            CHECK_EQ(steadyfs_unmount(FS), 0);
            CHECK_EQ(steadyfs_format(FS, &T.cfg), 0);
            CHECK_EQ(steadyfs_mount(FS, &T.cfg), 0);
        }
        test_version();
        test_walk();
        test_files();
        test_namespace();
        test_limits();
        test_read_only();
        test_malformed();
        test_disconnect();
        test_sessions();
        test_dsync();
        test_locks();
        test_groups();
        test_meta();
        test_bounds();
    }
    CHECK_EQ(steadyfs_unmount(FS), 0);
    tdev_close(&T);
    return check_done("test_p9srv");
}
