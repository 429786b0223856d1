/* The 9P2000.L server's session and dispatch: one T-message in, one
 * R-message out.  Requests are decoded by the codec (p9.h) into s->req,
 * answered by one handler each (here, p9srv_attr.c, p9srv_io.c,
 * p9srv_ns.c), and the reply built in s->rep is encoded into the caller's
 * buffer.  Every handler either fills s->rep and returns 0, or returns a
 * negative errno that becomes Rlerror on the request's tag.  Handlers read the request
 * (whose strings point into the input buffer) completely before anything
 * is written to the output, so the two may be one buffer. */
#include <stddef.h>

#include "p9/p9srv_internal.h"

static int set_session_defaults(p9srv *s)
{
    s->msize = s->cfg.msize_max;
    s->uid = 0;
    s->versioned = 0;
    return 0;
}

uint32_t p9srv_mem_size(const p9srv_config *cfg)
{
    uint32_t fm, pm;
    if (!cfg)
        return 0;
    fm = cfg->fid_max ? cfg->fid_max : P9SRV_FID_MAX_DEFAULT;
    pm = cfg->path_max ? cfg->path_max : P9SRV_PATH_MAX_DEFAULT;
    if (pm < 16 || pm > 8192)
        return 0;
    pm = (pm + 3u) & ~3u;   /* keeps every path and the table 4-aligned */
    return fm * ((uint32_t)sizeof(struct p9srv_fid) + pm) + 2u * pm;
}

int p9srv_init(p9srv *s, const p9srv_config *cfg)
{
    uint32_t need, i;
    uint8_t *m;
    if (!s || !cfg || !cfg->fs || !cfg->mem)
        return P9SRV_E_INVAL;
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    if (!s->cfg.fid_max)
        s->cfg.fid_max = P9SRV_FID_MAX_DEFAULT;
    if (!s->cfg.path_max)
        s->cfg.path_max = P9SRV_PATH_MAX_DEFAULT;
    if (!s->cfg.msize_max)
        s->cfg.msize_max = P9SRV_MSIZE_DEFAULT;
    need = p9srv_mem_size(&s->cfg);
    if (!need || cfg->mem_size < need || ((uintptr_t)cfg->mem & 3u) ||
        s->cfg.msize_max < P9_MSIZE_MIN)
        return P9SRV_E_INVAL;
    s->cfg.path_max = (uint16_t)((s->cfg.path_max + 3u) & ~3u);
    m = cfg->mem;
    s->fids = (struct p9srv_fid *)(void *)m;
    m += (uint32_t)s->cfg.fid_max * sizeof(struct p9srv_fid);
    s->paths = (char *)m;
    m += (uint32_t)s->cfg.fid_max * s->cfg.path_max;
    s->tmp[0] = (char *)m;
    s->tmp[1] = (char *)m + s->cfg.path_max;
    for (i = 0; i < s->cfg.fid_max; i++) {
        s->fids[i].kind = FID_FREE;
        s->fids[i].h = -1;
    }
    return set_session_defaults(s);
}

uint32_t p9srv_msize(const p9srv *s) { return s->msize; }

uint32_t p9srv_fid_count(const p9srv *s) { return s->nfids; }

int32_t p9srv_msg_len(const p9srv *s, const uint8_t hdr[4])
{
    uint32_t n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 |
                 (uint32_t)hdr[3] << 24;
    if (n < P9_HDR_SIZE || n > s->msize)
        return P9SRV_E_FRAME;
    return (int32_t)n;
}

int p9srv_disconnect(p9srv *s)
{
    uint32_t i;
    int rc, first = 0;
    for (i = 0; i < s->cfg.fid_max; i++) {
        if (s->fids[i].kind == FID_FREE)
            continue;
        rc = srv_fid_clunk(s, &s->fids[i]);
        if (rc && !first)
            first = rc;
    }
    s->nfids = 0;
    srv_locks_drop(s);
    set_session_defaults(s);
    return first;
}

int p9srv_group(p9srv *s, p9srv *group)
{
    if (!s || !group || s == group || s->peer || s->cfg.fs != group->cfg.fs)
        return P9SRV_E_INVAL;
    /* Insert s after group in the ring; a lone group first becomes a ring
     * of one (peer NULL means alone, so a p9srv copied by value or freshly
     * initialised never points at itself). */
    s->peer = group->peer ? group->peer : group;
    group->peer = s;
    return 0;
}

void p9srv_ungroup(p9srv *s)
{
    p9srv *q;
    if (!s || !s->peer)
        return;
    for (q = s->peer; q->peer != s; q = q->peer)
        ;
    q->peer = s->peer == q ? NULL : s->peer;   /* the last other member is alone */
    s->peer = NULL;
}

/* ---- session ------------------------------------------------------------ */

static int h_version(p9srv *s, struct p9srv_fid *unused)
{
    uint32_t want = s->req.u.version.msize;
    bool ok = p9_str_eq(s->req.u.version.version, P9SRV_VERSION) && want >= P9_MSIZE_MIN;
    (void)unused;
    /* Tversion ends the previous session, whatever it asks for; msize is
     * msize_max again, what a refusal answers */
    p9srv_disconnect(s);
    if (ok) {
        s->msize = want < s->msize ? want : s->msize;
        s->versioned = 1;
    }
    s->rep.u.version.msize = s->msize;
    s->rep.u.version.version = p9_cstr(ok ? P9SRV_VERSION : "unknown");
    return 0;
}

static int h_attach(p9srv *s, struct p9srv_fid *unused)
{
    struct p9srv_fid *f;
    steadyfs_stat st;
    struct p9_str an = s->req.u.tattach.aname;
    int rc;
    (void)unused;
    if (s->req.u.tattach.afid != P9_NOFID)
        return -LX_EBADF;   /* no Tauth was ever granted */
    if (!(an.len == 0 || p9_str_eq(an, "/")))
        return STEADYFS_ENOENT;   /* one export: the root */
    f = srv_fid_alloc(s, s->req.u.tattach.fid, &rc);
    if (!f)
        return rc;
    rc = steadyfs_stat_path(s->cfg.fs, "/", &st);
    if (rc)
        return rc;
    srv_fid_set_path(s, f, "/", 1);
    srv_fid_use(s, f, STEADYFS_TYPE_DIR, st.id);
    if (s->req.u.tattach.n_uname != P9_NONUNAME)
        s->uid = s->req.u.tattach.n_uname;
    srv_qid(&s->rep.u.qid, st.type, st.id);
    return 0;
}

/* ---- dispatch ----------------------------------------------------------- */

/* Tauth: no authentication.  Rlerror(ENOENT) is how diod and its client
 * library say "not required" (the client then attaches with afid = NOFID). */
static int h_auth(p9srv *s, struct p9srv_fid *unused)
{
    (void)s;
    (void)unused;
    return STEADYFS_ENOENT;
}

/* Tflush: requests are answered one at a time, in order: by the time a
 * Tflush is read, the request it names has been answered (Rflush). */
static int h_flush(p9srv *s, struct p9srv_fid *unused)
{
    (void)s;
    (void)unused;
    return 0;
}

/* The T-messages answered here and their handlers, in the same order
 * (Tread and Treaddir, which reply in place, are dispatched apart).  Two
 * arrays, not one of structs: no padding, 5 bytes per message.  Anything
 * else that decodes (Txattrcreate, R-messages sent to a server) gets
 * EOPNOTSUPP.  NODE (bit 0: T-message numbers are even): the handler's
 * first check is srv_node on the fid the request names first, so the
 * dispatch makes it, once, and hands the handler the fid. */
#define NODE 1u
static const uint8_t op_type[] = {
    P9_TVERSION, P9_TAUTH, P9_TATTACH, P9_TFLUSH, P9_TWALK | NODE, P9_TCLUNK, P9_TREMOVE,
    P9_TGETATTR | NODE, P9_TSETATTR | NODE, P9_TSTATFS | NODE, P9_TXATTRWALK | NODE,
    P9_TLOPEN | NODE, P9_TLCREATE | NODE, P9_TWRITE | NODE, P9_TFSYNC | NODE, P9_TMKDIR | NODE,
    P9_TSYMLINK | NODE, P9_TREADLINK | NODE, P9_TUNLINKAT | NODE, P9_TRENAMEAT | NODE,
    P9_TRENAME | NODE, P9_TLOCK, P9_TGETLOCK,
};
static int (*const op_fn[])(p9srv *s, struct p9srv_fid *f) = {
    h_version, h_auth, h_attach, h_flush, srv_h_walk, srv_h_clunk, srv_h_remove,
    srv_h_getattr, srv_h_setattr, srv_h_statfs, srv_h_xattrwalk, srv_h_lopen, srv_h_lcreate,
    srv_h_write, srv_h_fsync, srv_h_mknode, srv_h_mknode, srv_h_readlink, srv_h_unlinkat,
    srv_h_renameat, srv_h_rename, srv_h_lock, srv_h_getlock,
};
_Static_assert(sizeof op_type == sizeof op_fn / sizeof op_fn[0], "one handler per type");
/* The NODE messages' first fid sits where Tclunk's does. */
#define FIRST_FID(m) (offsetof(struct p9_msg, u.m) == offsetof(struct p9_msg, u.fid.fid))
_Static_assert(FIRST_FID(twalk.fid) && FIRST_FID(tgetattr.fid) && FIRST_FID(tsetattr.fid) &&
               FIRST_FID(txattrwalk.fid) && FIRST_FID(tlopen.fid) && FIRST_FID(tlcreate.fid) &&
               FIRST_FID(twrite.fid) && FIRST_FID(tfsync.fid) && FIRST_FID(tmkdir.dfid) &&
               FIRST_FID(tsymlink.dfid) && FIRST_FID(tunlinkat.dirfid) &&
               FIRST_FID(trenameat.olddirfid) && FIRST_FID(trename.fid),
               "first fids differ");

int32_t p9srv_handle(p9srv *s, const uint8_t *in, uint32_t in_len, uint8_t *out,
                     uint32_t out_cap)
{
    uint32_t size, i, ecode = 0;
    uint8_t type;
    uint16_t tag;
    int32_t rc;
    if (!s || !in || !out)
        return P9SRV_E_INVAL;
    if (p9_peek(in, in_len, s->msize, &size, &type, &tag) || size != in_len)
        return P9SRV_E_FRAME;
    if (out_cap < s->msize)
        return P9SRV_E_NOSPACE;
    s->n_msgs++;
    rc = p9_decode(in, in_len, s->msize, &s->req);
    if (rc == P9_E_COUNT && (type == P9_TREAD || type == P9_TREADDIR)) {
        /* A count whose reply would not fit msize: answer with what fits,
         * as other servers do (counts are clamped in the handlers). */
        rc = p9_decode(in, in_len, 0xFFFFFFFFu, &s->req);
    }
    memset(&s->rep, 0, sizeof s->rep);
    s->rep.tag = tag;
    /* Every R-message's number is its T-message's + 1; handlers only fill
     * the body (an error below replaces the type with Rlerror). */
    s->rep.type = (uint8_t)(type + 1u);
    if (rc < 0) {
        /* no hard links, FIFOs or device nodes: EPERM, as link(2) and
         * mknod(2) say for a file system that has none */
        ecode = rc != P9_E_UNKNOWN ? LX_EPROTO
              : type == P9_TLINK || type == P9_TMKNOD ? 1u : LX_EOPNOTSUPP;
    } else if (!s->versioned && type != P9_TVERSION) {
        ecode = LX_EPROTO;
    } else {
        if (type == P9_TREAD) {
            rc = srv_h_read(s, out);
        } else if (type == P9_TREADDIR) {
            rc = srv_h_readdir(s, out, out_cap);
            if (rc >= 0)
                return rc;   /* built in place */
        } else {
            rc = -LX_EOPNOTSUPP;
            for (i = 0; i < sizeof op_type; i++)
                if ((op_type[i] & ~NODE) == type) {
                    struct p9srv_fid *f = NULL;
                    rc = op_type[i] & NODE ? srv_node(s, s->req.u.fid.fid, &f) : 0;
                    if (!rc)
                        rc = op_fn[i](s, f);
                    break;
                }
        }
        if (rc < 0)
            ecode = srv_errno(rc);
    }
    if (ecode) {   /* srv_errno never answers 0 */
        s->n_errors++;
        s->rep.type = P9_RLERROR;
        s->rep.u.rlerror.ecode = ecode;
    }
    rc = p9_encode(&s->rep, out, out_cap);
    return rc < 0 ? P9SRV_E_NOSPACE : rc;
}
