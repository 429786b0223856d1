/* The p9cli stub against a fake server that answers well, then badly:
 * wrong sizes, types, tags, counts, versions, names, early end of stream,
 * transport errors, replies out of order, and random corruption.  Each bad
 * reply must give a clear error (and kill the connection only when the
 * stream can no longer be trusted); nothing may touch memory out of bounds
 * (this test runs under ASan/UBSan). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "steadyfs/p9cli.h"

#define NFIDS 32u
#define NHELD 8

struct fake;
typedef int (*mutate_fn)(struct fake *, const struct p9_msg *req, uint8_t *rep, int len);

struct fake {
    uint8_t out[1 << 16];
    size_t olen, opos;
    uint8_t held[NHELD][8192];
    int hlen[NHELD], nheld;
    int hold_reads;        /* keep Rread replies back ... */
    int release_on_send;   /* ... until the next request (else: until the queue is empty) */
    mutate_fn mutate;
    int mutate_type;       /* only mutate replies to this request type (0: all) */
    int recv_err;          /* returned once the queue is empty (0: end of stream) */
    int chunk;             /* recv gives at most this many bytes (0: all) */
    uint32_t max_msize, file_size;
    int nreq, nwalk;
    uint32_t max_req;      /* largest request seen */
    uint8_t isdir[256];    /* per fid */
    uint32_t arg;          /* for mutators */
};

static struct fake fk;
static uint8_t pattern[1 << 16];
static uint8_t cbuf[8192];
static uint32_t fidmap[(NFIDS + 31) / 32];

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* A correct reply to req (rep->type 0 if none is known). */
static void good_reply(const struct p9_msg *req, struct p9_msg *rep, uint8_t *dirbuf)
{
    static const char *names[3] = { "a", "b", "c" };
    memset(rep, 0, sizeof *rep);
    rep->tag = req->tag;
    struct p9_qid file = { P9_QTFILE, 0, 42 }, dir = { P9_QTDIR, 0, 7 };
    switch (req->type) {
    case P9_TVERSION:
        rep->type = P9_RVERSION;
        rep->u.version.msize = req->u.version.msize < fk.max_msize ? req->u.version.msize : fk.max_msize;
        rep->u.version.version = p9_cstr("9P2000.L");
        break;
    case P9_TATTACH:
        rep->type = P9_RATTACH;
        rep->u.qid = dir;
        break;
    case P9_TWALK: {
        rep->type = P9_RWALK;
        rep->u.rwalk.nwqid = req->u.twalk.nwname;
        int d = 1;
        for (int i = 0; i < req->u.twalk.nwname; i++) {
            d = req->u.twalk.wname[i].ptr[0] == 'd';
            rep->u.rwalk.wqid[i] = d ? dir : file;
        }
        if (req->u.twalk.nwname == 0) d = fk.isdir[req->u.twalk.fid & 255];
        fk.isdir[req->u.twalk.newfid & 255] = (uint8_t)d;
        fk.nwalk++;
        break;
    }
    case P9_TLOPEN:
        rep->type = P9_RLOPEN;
        rep->u.ropen.qid = fk.isdir[req->u.tlopen.fid & 255] ? dir : file;
        break;
    case P9_TLCREATE:
        rep->type = P9_RLCREATE;
        rep->u.ropen.qid = file;
        fk.isdir[req->u.tlcreate.fid & 255] = 0;
        break;
    case P9_TREAD: {
        uint64_t off = req->u.tread.offset;
        uint32_t n = off >= fk.file_size ? 0 : (uint32_t)(fk.file_size - off);
        if (n > req->u.tread.count) n = req->u.tread.count;
        rep->type = P9_RREAD;
        rep->u.rread.count = n;
        rep->u.rread.data = pattern + (off % 256);
        break;
    }
    case P9_TWRITE:
        rep->type = P9_RWRITE;
        rep->u.rwrite.count = req->u.twrite.count;
        break;
    case P9_TREADDIR: {
        struct p9_readdir rd;
        p9_readdir_begin(&rd, dirbuf, 8192, req->tag, req->u.tread.count);
        for (uint64_t i = req->u.tread.offset; i < 3; i++)
            p9_readdir_add(&rd, &file, i + 1, 8, (const uint8_t *)names[i], 1);
        rep->type = P9_RREADDIR;
        rep->u.rread.count = rd.used;
        rep->u.rread.data = dirbuf + P9_RREAD_HDR;
        break;
    }
    case P9_TGETATTR:
        rep->type = P9_RGETATTR;
        rep->u.rgetattr.valid = P9_GETATTR_BASIC;
        rep->u.rgetattr.qid = fk.isdir[req->u.tgetattr.fid & 255] ? dir : file;
        rep->u.rgetattr.mode = fk.isdir[req->u.tgetattr.fid & 255] ? 040755 : 0100644;
        rep->u.rgetattr.size = fk.file_size;
        break;
    case P9_TCLUNK: rep->type = P9_RCLUNK; break;
    case P9_TREMOVE: rep->type = P9_RREMOVE; break;
    case P9_TMKDIR: rep->type = P9_RMKDIR; rep->u.qid = dir; break;
    case P9_TUNLINKAT: rep->type = P9_RUNLINKAT; break;
    case P9_TRENAMEAT: rep->type = P9_RRENAMEAT; break;
    case P9_TFSYNC: rep->type = P9_RFSYNC; break;
    case P9_TSETATTR: rep->type = P9_RSETATTR; break;
    case P9_TSTATFS: rep->type = P9_RSTATFS; rep->u.rstatfs.bsize = 4096; break;
    default: rep->type = P9_RLERROR; rep->u.rlerror.ecode = P9CLI_EOPNOTSUPP; break;
    }
}

static void queue(const uint8_t *b, int n)
{
    if (n > 0 && fk.olen + (size_t)n <= sizeof fk.out) {
        memcpy(fk.out + fk.olen, b, (size_t)n);
        fk.olen += (size_t)n;
    }
}

static void release_held(void)
{
    while (fk.nheld > 0) {   /* newest first: the reverse of the requests */
        fk.nheld--;
        queue(fk.held[fk.nheld], fk.hlen[fk.nheld]);
    }
}

static int fake_send(void *io, const uint8_t *buf, size_t len)
{
    (void)io;
    static struct p9_msg req, rep;
    static uint8_t rbuf[8192 + 64], dirbuf[8192];
    CHECK(le32(buf) == len);
    if (len > fk.max_req) fk.max_req = (uint32_t)len;
    fk.nreq++;
    if (p9_decode(buf, len, 1u << 20, &req) < 0) {
        CHECK(0);   /* the stub sent something undecodable */
        return -P9CLI_EIO;
    }
    if (fk.release_on_send) release_held();
    good_reply(&req, &rep, dirbuf);
    int n = p9_encode(&rep, rbuf, 8192);
    CHECK(n > 0);
    if (fk.mutate && (fk.mutate_type == 0 || fk.mutate_type == req.type)) n = fk.mutate(&fk, &req, rbuf, n);
    if (fk.hold_reads && req.type == P9_TREAD && fk.nheld < NHELD) {
        memcpy(fk.held[fk.nheld], rbuf, (size_t)n);
        fk.hlen[fk.nheld++] = n;
    } else {
        queue(rbuf, n);
    }
    return 0;
}

static int fake_recv(void *io, uint8_t *buf, size_t len)
{
    (void)io;
    if (fk.opos == fk.olen) {
        fk.opos = fk.olen = 0;
        release_held();
    }
    if (fk.opos == fk.olen) return fk.recv_err;
    size_t n = fk.olen - fk.opos;
    if (n > len) n = len;
    if (fk.chunk > 0 && n > (size_t)fk.chunk) n = (size_t)fk.chunk;
    memcpy(buf, fk.out + fk.opos, n);
    fk.opos += n;
    return (int)n;
}

static struct p9cli_config cfg_of(uint32_t bufsize)
{
    struct p9cli_config cfg = {
        .send = fake_send, .recv = fake_recv, .io = NULL, .buf = cbuf, .bufsize = bufsize,
        .fidmap = fidmap, .nfids = NFIDS, .uname = "u", .aname = "", .n_uname = 0, .gid = 0,
    };
    return cfg;
}

static int start(struct p9cli *c, uint32_t bufsize)
{
    memset(&fk, 0, sizeof fk);
    fk.max_msize = 8192;
    fk.file_size = 10000;
    fk.isdir[0] = 1;
    struct p9cli_config cfg = cfg_of(bufsize);
    return p9cli_connect(c, &cfg);
}

static int fids_in_use(void)
{
    int n = 0;
    for (uint32_t i = 0; i < NFIDS; i++) n += (fidmap[i / 32] >> (i % 32)) & 1u;
    return n;
}

/* ---- mutators ---------------------------------------------------------- */
static int m_version(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)f, (void)q;
    memcpy(r + n - 8, "9P2000.u", 8);
    return n;
}
static int m_msize(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)q;
    put32(r + 7, f->arg);
    return n;
}
static int m_size(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)q;
    put32(r, f->arg);
    return n;
}
static int m_cut(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)q, (void)r;
    return n - (int)f->arg;
}
static int m_type(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)q;
    r[4] = (uint8_t)f->arg;
    return n;
}
static int m_tag(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)f, (void)q;
    r[5] ^= 0x55;
    return n;
}
static int m_lerror(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)n;
    struct p9_msg e;
    memset(&e, 0, sizeof e);
    e.type = P9_RLERROR;
    e.tag = q->tag;
    e.u.rlerror.ecode = f->arg;
    return p9_encode(&e, r, 64);
}
static int m_trailing(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)f, (void)q;
    r[n] = 0xAB;
    put32(r, (uint32_t)n + 1);
    return n + 1;
}
static int m_count(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)q;
    put32(r + 7, f->arg);   /* Rread/Rwrite/Rreaddir count field */
    return n;
}
static int m_nwqid(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    /* Rwalk with arg qids, whatever was asked */
    struct p9_msg w;
    memset(&w, 0, sizeof w);
    w.type = P9_RWALK;
    w.tag = q->tag;
    w.u.rwalk.nwqid = (uint16_t)f->arg;
    (void)n;
    return p9_encode(&w, r, 8192);
}
static int m_dirent(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)q;
    if (n <= (int)P9_RREAD_HDR) return n;
    uint8_t *e = r + P9_RREAD_HDR;   /* first entry: qid[13] offset[8] type[1] len[2] name */
    if (f->arg == 1) e[24] = '/';                      /* name "/" */
    if (f->arg == 2) memset(e + 13, 0, 8);             /* every offset 0: no progress */
    if (f->arg == 4) e[22] = e[23] = 0;                /* empty name: entry parses, name invalid */
    if (f->arg == 5) e[22] = 0xFF;                     /* name length past the data */
    if (f->arg == 2)
        for (int i = 0; i < 3; i++) memset(e + i * 25 + 13, 0, 8);
    if (f->arg == 3) {   /* last entry cut short, count and size agreeing */
        put32(r, (uint32_t)n - 1);
        put32(r + 7, le32(r + 7) - 1);
        return n - 1;
    }
    return n;
}
static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}
static int m_random(struct fake *f, const struct p9_msg *q, uint8_t *r, int n)
{
    (void)f, (void)q;
    int flips = 1 + (int)(rnd() % 4);
    for (int i = 0; i < flips; i++) r[rnd() % (uint32_t)n] ^= (uint8_t)(1u << (rnd() % 8));
    if (rnd() % 8 == 0) n = (int)(rnd() % (uint32_t)n);   /* and sometimes cut short */
    return n;
}

/* ---- tests ------------------------------------------------------------- */
static void test_connect(void)
{
    struct p9cli c;
    CHECK_EQ(start(&c, 4096), 0);
    CHECK_EQ(c.msize, 4096);
    CHECK_EQ(p9cli_dead(&c), 0);
    CHECK_EQ(fids_in_use(), 1);

    struct p9cli_config bad = cfg_of(100);   /* below P9CLI_BUF_MIN */
    CHECK_EQ(p9cli_connect(&c, &bad), -P9CLI_EINVAL);
    bad = cfg_of(4096);
    bad.recv = NULL;
    CHECK_EQ(p9cli_connect(&c, &bad), -P9CLI_EINVAL);

    memset(&fk, 0, sizeof fk);
    fk.max_msize = 2048;   /* the server negotiates down */
    struct p9cli_config cfg = cfg_of(8192);
    CHECK_EQ(p9cli_connect(&c, &cfg), 0);
    CHECK_EQ(c.msize, 2048);
    CHECK_EQ(p9cli_iosize(&c), 2048 - P9_IOHDRSZ);

    struct { mutate_fn fn; uint32_t arg; int type; int want; } cases[] = {
        { m_version, 0, P9_TVERSION, -P9CLI_EPROTONOSUPPORT },
        { m_msize, 9000, P9_TVERSION, -P9CLI_EPROTO },         /* more than proposed */
        { m_msize, 10, P9_TVERSION, -P9CLI_EPROTO },           /* below P9_MSIZE_MIN */
        { m_lerror, P9CLI_EACCES, P9_TATTACH, -P9CLI_EACCES },
        { m_type, P9_RCLUNK, P9_TATTACH, -P9CLI_EPROTO },
        { m_cut, 3, P9_TVERSION, -P9CLI_ECONNRESET },          /* stream ends mid-reply */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&fk, 0, sizeof fk);
        fk.max_msize = 8192;
        fk.mutate = cases[i].fn;
        fk.mutate_type = cases[i].type;
        fk.arg = cases[i].arg;
        cfg = cfg_of(8192);
        CHECK_EQ(p9cli_connect(&c, &cfg), cases[i].want);
        CHECK_EQ(p9cli_dead(&c), cases[i].want);
    }
}

static void test_fatal_replies(void)
{
    struct p9cli c;
    struct p9_stat st;
    /* size field < 7 or > msize: the stream cannot be resynchronised */
    uint32_t sizes[] = { 3, 6, 4097, 0xFFFFFFFFu };
    for (size_t i = 0; i < 4; i++) {
        CHECK_EQ(start(&c, 4096), 0);
        fk.mutate = m_size;
        fk.mutate_type = P9_TGETATTR;
        fk.arg = sizes[i];
        CHECK_EQ(p9cli_stat(&c, "f", &st), -P9CLI_EMSGSIZE);
        int before = fk.nreq;
        CHECK_EQ(p9cli_stat(&c, "f", &st), -P9CLI_EMSGSIZE);   /* dead: nothing sent */
        CHECK_EQ(fk.nreq, before);
        CHECK_EQ(p9cli_dead(&c), -P9CLI_EMSGSIZE);
    }
    /* a reply on a tag nobody asked on */
    CHECK_EQ(start(&c, 4096), 0);
    fk.mutate = m_tag;
    fk.mutate_type = P9_TGETATTR;
    CHECK_EQ(p9cli_stat(&c, "f", &st), -P9CLI_EPROTO);
    CHECK_EQ(p9cli_dead(&c), -P9CLI_EPROTO);
    /* end of stream, transport error */
    CHECK_EQ(start(&c, 4096), 0);
    fk.mutate = m_cut;
    fk.mutate_type = P9_TREAD;
    fk.arg = 5;
    struct p9cli_file f;
    CHECK_EQ(p9cli_open(&c, &f, "f", P9CLI_O_RDONLY, 0), 0);
    uint8_t buf[100];
    CHECK_EQ(p9cli_read(&c, &f, buf, sizeof buf), -P9CLI_ECONNRESET);
    CHECK_EQ(p9cli_close(&c, &f), -P9CLI_ECONNRESET);
    CHECK_EQ(start(&c, 4096), 0);
    fk.recv_err = -110;   /* ETIMEDOUT from the transport */
    fk.mutate = m_cut;
    fk.mutate_type = P9_TGETATTR;
    fk.arg = 1;
    CHECK_EQ(p9cli_stat(&c, "f", &st), -110);
    CHECK_EQ(p9cli_mkdir(&c, "d", 0755), -110);
    /* after disconnect */
    CHECK_EQ(start(&c, 4096), 0);
    CHECK_EQ(p9cli_disconnect(&c), 0);
    CHECK_EQ(p9cli_stat(&c, "f", &st), -P9CLI_ENOTCONN);
}

static void test_recoverable_replies(void)
{
    struct p9cli c;
    struct p9_stat st;
    struct { mutate_fn fn; uint32_t arg; int type; int want; } cases[] = {
        { m_type, P9_RCLUNK, P9_TGETATTR, -P9CLI_EPROTO },     /* wrong type */
        { m_type, 250, P9_TGETATTR, -P9CLI_EPROTO },           /* unknown type */
        { m_lerror, P9CLI_ENOENT, P9_TWALK, -P9CLI_ENOENT },
        { m_lerror, 0, P9_TGETATTR, -P9CLI_EPROTO },           /* "error 0" */
        { m_lerror, 99999, P9_TGETATTR, -P9CLI_EPROTO },       /* not an errno */
        { m_trailing, 0, P9_TGETATTR, -P9CLI_EPROTO },
        { m_nwqid, 2, P9_TWALK, -P9CLI_EPROTO },               /* more qids than names */
        { m_nwqid, 0, P9_TWALK, -P9CLI_ENOENT },               /* walk stopped */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_EQ(start(&c, 4096), 0);
        fk.mutate = cases[i].fn;
        fk.mutate_type = cases[i].type;
        fk.arg = cases[i].arg;
        CHECK_EQ(p9cli_stat(&c, "f", &st), cases[i].want);
        CHECK_EQ(p9cli_dead(&c), 0);
        fk.mutate = NULL;
        CHECK_EQ(p9cli_stat(&c, "f", &st), 0);   /* the connection still works */
        CHECK_EQ(st.size, 10000);
        CHECK_EQ(fids_in_use(), 1);              /* no fid leaked on the error path */
    }
}

static void test_data_replies(void)
{
    struct p9cli c;
    struct p9cli_file f;
    static uint8_t buf[20000];
    CHECK_EQ(start(&c, 4096), 0);
    CHECK_EQ(p9cli_open(&c, &f, "f", P9CLI_O_RDWR, 0), 0);
    CHECK_EQ(p9cli_read(&c, &f, buf, sizeof buf), 10000);   /* three Treads + the empty one */
    int ok = 1;
    for (int i = 0; i < 10000; i++) ok &= buf[i] == pattern[i % 256];
    CHECK(ok);
    /* Rread with more than asked: count field raised, data too */
    fk.mutate = m_count;
    fk.mutate_type = P9_TREAD;
    fk.arg = 5000;
    CHECK_EQ(p9cli_pread(&c, &f, 0, buf, 100), -P9CLI_EPROTO);   /* count past the data */
    fk.arg = 0;
    CHECK_EQ(p9cli_pread(&c, &f, 0, buf, 100), -P9CLI_EPROTO);   /* data past the count: trailing */
    fk.mutate_type = P9_TWRITE;
    fk.arg = 0;
    CHECK_EQ(p9cli_pwrite(&c, &f, 0, buf, 100), -P9CLI_EIO);     /* no progress */
    fk.arg = 101;
    CHECK_EQ(p9cli_pwrite(&c, &f, 0, buf, 100), -P9CLI_EPROTO);  /* more than sent */
    fk.arg = 40;
    CHECK_EQ(p9cli_pwrite(&c, &f, 0, buf, 80), 80);              /* short writes: the rest resent */
    CHECK_EQ(p9cli_pwrite(&c, &f, 0, buf, 100), 80);             /* then a bad count: what was done */
    CHECK_EQ(p9cli_dead(&c), 0);
    fk.mutate = NULL;
    CHECK_EQ(p9cli_close(&c, &f), 0);
    CHECK_EQ(fids_in_use(), 1);
    CHECK_EQ(p9cli_read(&c, &f, buf, 10), -P9CLI_EBADF);
}

static void test_readdir_replies(void)
{
    struct p9cli c;
    struct p9cli_dir d;
    static uint8_t dbuf[1024];
    static struct p9cli_dirent e;
    CHECK_EQ(start(&c, 4096), 0);
    CHECK_EQ(p9cli_opendir(&c, &d, "dir", dbuf, sizeof dbuf), 0);
    char got[4] = "";
    int n = 0;
    while (p9cli_readdir(&c, &d, &e) == 1 && n < 3) got[n++] = e.name[0];
    CHECK(n == 3 && memcmp(got, "abc", 3) == 0);
    CHECK_EQ(p9cli_readdir(&c, &d, &e), 0);
    p9cli_rewinddir(&d);
    CHECK_EQ(p9cli_readdir(&c, &d, &e), 1);
    CHECK(strcmp(e.name, "a") == 0 && e.ino == 42 && e.offset == 1);
    CHECK_EQ(p9cli_closedir(&c, &d), 0);
    CHECK_EQ(p9cli_opendir(&c, &d, "file", dbuf, sizeof dbuf), -P9CLI_ENOTDIR);
    CHECK_EQ(p9cli_opendir(&c, &d, "dir", dbuf, 100), -P9CLI_EINVAL);   /* buffer too small for a name */
    for (uint32_t k = 1; k <= 5; k++) {
        fk.mutate = m_dirent;
        fk.mutate_type = P9_TREADDIR;
        fk.arg = k;
        CHECK_EQ(p9cli_opendir(&c, &d, "dir", dbuf, sizeof dbuf), 0);
        int rc = p9cli_readdir(&c, &d, &e);
        CHECK_EQ(rc, -P9CLI_EPROTO);
        CHECK_EQ(p9cli_dead(&c), 0);
        fk.mutate = NULL;
        CHECK_EQ(p9cli_closedir(&c, &d), 0);
    }
    CHECK_EQ(fids_in_use(), 1);
}

static void test_nonblocking_reads(void)
{
    struct p9cli c;
    struct p9cli_file f;
    struct p9cli_aread r[3];
    static uint8_t b[3][1000];
    struct p9_stat st;
    memset(r, 0, sizeof r);
    CHECK_EQ(start(&c, 4096), 0);
    CHECK_EQ(p9cli_open(&c, &f, "f", P9CLI_O_RDONLY, 0), 0);
    CHECK_EQ(p9cli_read_wait(&c, &r[0]), -P9CLI_EINVAL);   /* never started */

    /* answered in reverse order, after a synchronous call that overtakes them */
    fk.hold_reads = 1;
    for (int i = 0; i < 3; i++) CHECK_EQ(p9cli_read_start(&c, &f, (uint64_t)i * 1000, b[i], 1000, &r[i]), 0);
    CHECK(r[0].tag != r[1].tag && r[1].tag != r[2].tag && r[0].tag != r[2].tag);
    CHECK_EQ(p9cli_stat(&c, "f", &st), 0);
    CHECK_EQ(p9cli_read_wait(&c, &r[0]), 1000);   /* r[2], r[1] arrive first */
    CHECK(r[1].done && r[2].done);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(p9cli_read_wait(&c, &r[i]), 1000);
        CHECK(memcmp(b[i], pattern + (i * 1000) % 256, 1000) == 0);
    }
    /* replies that arrive while a synchronous call waits for its own */
    fk.release_on_send = 1;
    for (int i = 0; i < 2; i++) CHECK_EQ(p9cli_read_start(&c, &f, 9500, b[i], 1000, &r[i]), 0);
    CHECK_EQ(p9cli_stat(&c, "f", &st), 0);
    CHECK(r[0].done && r[1].done);
    CHECK_EQ(p9cli_read_wait(&c, &r[1]), 500);   /* short at end of file */
    CHECK_EQ(p9cli_read_wait(&c, &r[0]), 500);
    /* an error reply completes just that read */
    fk.hold_reads = 0;
    fk.release_on_send = 0;
    fk.mutate = m_lerror;
    fk.mutate_type = P9_TREAD;
    fk.arg = P9CLI_EIO;
    CHECK_EQ(p9cli_read_start(&c, &f, 0, b[0], 1000, &r[0]), 0);
    CHECK_EQ(p9cli_read_wait(&c, &r[0]), -P9CLI_EIO);
    fk.mutate = m_count;
    fk.arg = 2000;   /* more than asked */
    CHECK_EQ(p9cli_read_start(&c, &f, 0, b[0], 1000, &r[0]), 0);
    CHECK_EQ(p9cli_read_wait(&c, &r[0]), -P9CLI_EPROTO);
    CHECK_EQ(p9cli_dead(&c), 0);
    /* the connection dies with reads outstanding: all complete with it */
    fk.hold_reads = 1;
    fk.mutate = m_size;
    fk.arg = 2;
    CHECK_EQ(p9cli_read_start(&c, &f, 0, b[0], 1000, &r[0]), 0);
    CHECK_EQ(p9cli_read_start(&c, &f, 0, b[1], 1000, &r[1]), 0);
    CHECK_EQ(p9cli_read_wait(&c, &r[0]), -P9CLI_EMSGSIZE);
    CHECK(r[1].done);
    CHECK_EQ(p9cli_read_wait(&c, &r[1]), -P9CLI_EMSGSIZE);
    CHECK_EQ(p9cli_read_start(&c, &f, 0, b[0], 1000, &r[0]), -P9CLI_EMSGSIZE);
}

static void test_paths_and_sizes(void)
{
    struct p9cli c;
    struct p9_stat st;
    char path[3000];
    /* small msize: a deep path of long names goes out as several Twalks,
     * each within msize */
    memset(&fk, 0, sizeof fk);
    fk.max_msize = 600;
    fk.file_size = 1;
    struct p9cli_config cfg = cfg_of(4096);
    CHECK_EQ(p9cli_connect(&c, &cfg), 0);
    CHECK_EQ(c.msize, 600);
    path[0] = 0;
    for (int i = 0; i < 20; i++) {
        size_t l = strlen(path);
        path[l] = '/';
        memset(path + l + 1, 'd', 120);
        path[l + 121] = 0;
    }
    fk.nwalk = 0;
    fk.max_req = 0;
    CHECK_EQ(p9cli_stat(&c, path, &st), 0);
    CHECK(fk.nwalk >= 5);          /* 4 names of 122 bytes fit in 600 */
    CHECK(fk.max_req <= 600);
    CHECK_EQ(fids_in_use(), 1);
    /* a failure in a later walk clunks the half-walked fid */
    fk.mutate = m_nwqid;
    fk.mutate_type = P9_TWALK;
    fk.arg = 0;
    CHECK_EQ(p9cli_stat(&c, path, &st), -P9CLI_ENOENT);
    CHECK_EQ(fids_in_use(), 1);
    fk.mutate = NULL;
    /* names: too long, or nothing to name */
    memset(path, 'x', 256);
    path[256] = 0;
    int before = fk.nreq;
    CHECK_EQ(p9cli_stat(&c, path, &st), -P9CLI_ENAMETOOLONG);
    CHECK_EQ(p9cli_unlink(&c, path), -P9CLI_ENAMETOOLONG);
    CHECK_EQ(p9cli_unlink(&c, "/"), -P9CLI_EINVAL);
    CHECK_EQ(p9cli_rmdir(&c, "a/.."), -P9CLI_EINVAL);
    CHECK_EQ(p9cli_mkdir(&c, "a/./", 0755), -P9CLI_EINVAL);
    CHECK_EQ(fk.nreq, before);   /* refused before anything was sent */
    struct p9cli_file f;
    CHECK_EQ(p9cli_open(&c, &f, "f", 3, 0), -P9CLI_EINVAL);   /* O_ACCMODE 3 */
    /* fid table exhaustion: an error, not a crash */
    struct p9cli_file fs[NFIDS];
    int opened = 0, rc = 0;
    for (uint32_t i = 0; i < NFIDS; i++) {
        rc = p9cli_open(&c, &fs[i], "f", P9CLI_O_RDONLY, 0);
        if (rc) break;
        opened++;
    }
    CHECK_EQ(opened, NFIDS - 1);
    CHECK_EQ(rc, -P9CLI_EMFILE);
    for (int i = 0; i < opened; i++) CHECK_EQ(p9cli_close(&c, &fs[i]), 0);
    CHECK_EQ(fids_in_use(), 1);
}

static void test_byte_at_a_time(void)
{
    struct p9cli c;
    memset(&fk, 0, sizeof fk);
    fk.max_msize = 8192;
    fk.file_size = 5000;
    fk.chunk = 1;
    struct p9cli_config cfg = cfg_of(8192);
    CHECK_EQ(p9cli_connect(&c, &cfg), 0);
    struct p9cli_file f;
    static uint8_t buf[6000];
    CHECK_EQ(p9cli_open(&c, &f, "f", P9CLI_O_RDONLY, 0), 0);
    CHECK_EQ(p9cli_read(&c, &f, buf, sizeof buf), 5000);
    CHECK(memcmp(buf, pattern, 256) == 0);
}

/* Random corruption of every kind of reply: any result, never a crash,
 * and every error a negative errno. */
static void test_random_corruption(void)
{
    static const int types[] = { P9_TWALK, P9_TGETATTR, P9_TREAD, P9_TREADDIR, P9_TLOPEN,
                                 P9_TCLUNK, P9_TWRITE, P9_TLCREATE };
    int errors = 0, bad_codes = 0;
    for (int it = 0; it < 3000; it++) {
        struct p9cli c;
        CHECK_EQ(start(&c, 4096), 0);
        fk.mutate = m_random;
        fk.mutate_type = types[it % 8];
        struct p9cli_file f;
        struct p9_stat st;
        struct p9cli_dir d;
        static uint8_t dbuf[512], buf[3000];
        static struct p9cli_dirent e;
        int rc = p9cli_stat(&c, "a/b", &st);
        if (rc < 0) errors++, bad_codes += rc < -4095;
        rc = p9cli_open(&c, &f, "f", P9CLI_O_RDWR | P9CLI_O_CREAT, 0644);
        if (rc == 0) {
            rc = p9cli_pread(&c, &f, 0, buf, sizeof buf);
            bad_codes += rc < -4095 || rc > (int)sizeof buf;
            rc = p9cli_pwrite(&c, &f, 0, buf, 100);
            bad_codes += rc < -4095 || rc > 100;
            p9cli_close(&c, &f);
        }
        if (p9cli_opendir(&c, &d, "dir", dbuf, sizeof dbuf) == 0) {
            int k = 0;
            while ((rc = p9cli_readdir(&c, &d, &e)) == 1 && k < 100) {
                bad_codes += strlen(e.name) == 0 || strchr(e.name, '/') != NULL;
                k++;
            }
            bad_codes += rc < -4095 || k >= 100;
            p9cli_closedir(&c, &d);
        }
    }
    CHECK(errors > 100);   /* the corruption did reach the stub */
    CHECK_EQ(bad_codes, 0);
}

int main(void)
{
    for (size_t i = 0; i < sizeof pattern; i++) pattern[i] = (uint8_t)(i * 31u + 7u);
    test_connect();
    test_fatal_replies();
    test_recoverable_replies();
    test_data_replies();
    test_readdir_replies();
    test_nonblocking_reads();
    test_paths_and_sizes();
    test_byte_at_a_time();
    test_random_corruption();
    return check_done("test_p9cli");
}
