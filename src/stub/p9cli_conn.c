/* p9cli connection: message exchange over the caller's byte stream, reply
 * demultiplexing by tag (synchronous calls and non-blocking reads share one
 * stream), fid allocation, connect and disconnect.  A connection that loses
 * step with the stream is declared dead once, and stays dead, so no later
 * call can misread a stray reply as its own. */
#include <string.h>

#include "stub/p9cli_internal.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Ends the connection with err (the first cause is kept) and completes
 * every outstanding non-blocking read with it. */
static int die(struct p9cli *c, int err)
{
    if (c->dead == 0) c->dead = err;
    while (c->pending != NULL) {
        struct p9cli_aread *r = c->pending;
        c->pending = r->next;
        r->next = NULL;
        r->result = c->dead;
        r->busy = 0;
        r->done = 1;
    }
    c->sync_wait = 0;
    return c->dead;
}

int p9cli_dead(const struct p9cli *c)
{
    return c->dead;
}

uint32_t p9cli_iosize(const struct p9cli *c)
{
    return c->msize > P9_IOHDRSZ ? c->msize - P9_IOHDRSZ : 0;
}

int p9cli_lerror(uint32_t ecode)
{
    /* Linux errno values are 1..4095; anything else is a broken server. */
    return ecode == 0 || ecode > 4095u ? -P9CLI_EPROTO : -(int)ecode;
}

static int recv_exact(struct p9cli *c, uint8_t *buf, uint32_t n)
{
    while (n > 0) {
        int rc = c->cfg.recv(c->cfg.io, buf, n);
        if (rc == 0) return die(c, -P9CLI_ECONNRESET);
        if (rc < 0) return die(c, rc);
        if ((uint32_t)rc > n) return die(c, -P9CLI_EIO);   /* transport bug */
        buf += rc;
        n -= (uint32_t)rc;
    }
    return 0;
}

int p9cli_send_msg(struct p9cli *c)
{
    if (c->dead) return c->dead;
    int n = p9_encode(&c->m, c->cfg.buf, c->msize);
    /* Only names can make a request outgrow msize. */
    if (n == P9_E_NOSPACE) return -P9CLI_ENAMETOOLONG;
    if (n < 0) return -P9CLI_EINVAL;
    int rc = c->cfg.send(c->cfg.io, c->cfg.buf, (size_t)n);
    return rc < 0 ? die(c, rc) : 0;
}

/* A non-blocking read's reply: checked, copied out of the shared buffer. */
static void complete(struct p9cli *c, struct p9cli_aread *r, uint32_t size)
{
    int rc = p9_decode(c->cfg.buf, size, c->msize, &c->m);
    if (rc < 0)
        r->result = -P9CLI_EPROTO;
    else if (c->m.type == P9_RLERROR)
        r->result = p9cli_lerror(c->m.u.rlerror.ecode);
    else if (c->m.type != P9_RREAD || c->m.u.rread.count > r->count)
        r->result = -P9CLI_EPROTO;
    else {
        if (c->m.u.rread.count > 0) memcpy(r->buf, c->m.u.rread.data, c->m.u.rread.count);
        r->result = (int32_t)c->m.u.rread.count;
    }
    r->busy = 0;
    r->done = 1;
}

int p9cli_pump(struct p9cli *c)
{
    if (c->dead) return c->dead;
    uint8_t *b = c->cfg.buf;
    int rc = recv_exact(c, b, 4);
    if (rc) return rc;
    uint32_t size = le32(b);
    /* A size we cannot hold leaves no way to find the next message. */
    if (size < P9_HDR_SIZE || size > c->msize) return die(c, -P9CLI_EMSGSIZE);
    rc = recv_exact(c, b + 4, size - 4);
    if (rc) return rc;
    uint16_t tag = (uint16_t)(b[5] | b[6] << 8);
    if (c->sync_wait && tag == c->sync_tag) {
        c->sync_rc = p9_decode(b, size, c->msize, &c->m);
        c->sync_wait = 0;
        c->sync_done = 1;
        return 0;
    }
    for (struct p9cli_aread **pp = &c->pending; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->tag == tag) {
            struct p9cli_aread *r = *pp;
            *pp = r->next;
            r->next = NULL;
            complete(c, r, size);
            return 0;
        }
    }
    /* A reply nobody asked for: the server and we disagree on what is in
     * flight, so no later reply can be trusted either. */
    return die(c, -P9CLI_EPROTO);
}

static int rpc_tag(struct p9cli *c, uint16_t tag, uint8_t rtype)
{
    c->m.tag = tag;
    int rc = p9cli_send_msg(c);
    if (rc) return rc;
    c->sync_tag = tag;
    c->sync_wait = 1;
    c->sync_done = 0;
    while (!c->sync_done) {
        rc = p9cli_pump(c);
        if (rc) return rc;
    }
    if (c->sync_rc < 0) return -P9CLI_EPROTO;
    if (c->m.type == P9_RLERROR) return p9cli_lerror(c->m.u.rlerror.ecode);
    if (c->m.type != rtype) return -P9CLI_EPROTO;
    return 0;
}

int p9cli_rpc(struct p9cli *c, uint8_t rtype)
{
    return rpc_tag(c, P9CLI_SYNC_TAG, rtype);
}

int64_t p9cli_fid_alloc(struct p9cli *c)
{
    uint32_t n = c->cfg.nfids;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fid = (c->next_fid + i) % n;
        if (fid == P9CLI_ROOT_FID) continue;
        uint32_t bit = 1u << (fid % 32u);
        if (c->cfg.fidmap[fid / 32u] & bit) continue;
        c->cfg.fidmap[fid / 32u] |= bit;
        c->next_fid = (fid + 1u) % n;
        return fid;
    }
    return -P9CLI_EMFILE;
}

void p9cli_fid_free(struct p9cli *c, uint32_t fid)
{
    if (fid < c->cfg.nfids && fid != P9CLI_ROOT_FID)
        c->cfg.fidmap[fid / 32u] &= ~(1u << (fid % 32u));
}

int p9cli_clunk(struct p9cli *c, uint32_t fid)
{
    c->m.type = P9_TCLUNK;
    c->m.u.fid.fid = fid;
    int rc = p9cli_rpc(c, P9_RCLUNK);
    /* 9P: a clunked fid is gone even when the server reports an error. */
    p9cli_fid_free(c, fid);
    return rc;
}

int p9cli_connect(struct p9cli *c, const struct p9cli_config *cfg)
{
    if (c == NULL || cfg == NULL) return -P9CLI_EINVAL;
    memset(c, 0, sizeof *c);
    if (cfg->send == NULL || cfg->recv == NULL || cfg->buf == NULL || cfg->fidmap == NULL ||
        cfg->bufsize < P9CLI_BUF_MIN || cfg->nfids < 2 || cfg->nfids == P9_NOFID) {
        c->dead = -P9CLI_EINVAL;
        return c->dead;
    }
    c->cfg = *cfg;
    memset(c->cfg.fidmap, 0, ((cfg->nfids + 31u) / 32u) * sizeof(uint32_t));
    c->cfg.fidmap[0] = 1u;   /* the root */
    c->next_fid = 1;
    c->next_tag = 1;
    c->msize = cfg->bufsize;

    c->m.type = P9_TVERSION;
    c->m.u.version.msize = cfg->bufsize;
    c->m.u.version.version = p9_cstr("9P2000.L");
    int rc = rpc_tag(c, P9_NOTAG, P9_RVERSION);
    if (rc) return die(c, rc);
    if (!p9_str_eq(c->m.u.version.version, "9P2000.L")) return die(c, -P9CLI_EPROTONOSUPPORT);
    if (c->m.u.version.msize < P9_MSIZE_MIN || c->m.u.version.msize > cfg->bufsize)
        return die(c, -P9CLI_EPROTO);
    c->msize = c->m.u.version.msize;

    c->m.type = P9_TATTACH;
    c->m.u.tattach.fid = P9CLI_ROOT_FID;
    c->m.u.tattach.afid = P9_NOFID;
    c->m.u.tattach.uname = p9_cstr(cfg->uname ? cfg->uname : "");
    c->m.u.tattach.aname = p9_cstr(cfg->aname ? cfg->aname : "");
    c->m.u.tattach.n_uname = cfg->n_uname;
    rc = p9cli_rpc(c, P9_RATTACH);
    if (rc) return die(c, rc);
    if (!(c->m.u.qid.type & P9_QTDIR)) return die(c, -P9CLI_ENOTDIR);
    return 0;
}

int p9cli_disconnect(struct p9cli *c)
{
    if (c->dead) return c->dead;
    c->m.type = P9_TCLUNK;
    c->m.u.fid.fid = P9CLI_ROOT_FID;
    int rc = p9cli_rpc(c, P9_RCLUNK);
    die(c, -P9CLI_ENOTCONN);
    return rc;
}
