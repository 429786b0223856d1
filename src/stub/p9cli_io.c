/* p9cli file data: read and write (looping over as many Tread/Twrite as the
 * negotiated msize needs), the non-blocking read of seed 002 §4.2 (a Tread
 * on its own tag, collected later), and fsync. */
#include <string.h>

#include "stub/p9cli_internal.h"

#define I32_MAX 0x7FFFFFFFu

static int can_read(const struct p9cli_file *f)
{
    if (f == NULL || f->fid == P9_NOFID) return -P9CLI_EBADF;
    if ((f->flags & P9CLI_O_ACCMODE) == P9CLI_O_WRONLY) return -P9CLI_EBADF;
    if (f->qtype & P9_QTDIR) return -P9CLI_EISDIR;
    return 0;
}

static int can_write(const struct p9cli_file *f)
{
    if (f == NULL || f->fid == P9_NOFID) return -P9CLI_EBADF;
    if ((f->flags & P9CLI_O_ACCMODE) == P9CLI_O_RDONLY) return -P9CLI_EBADF;
    return 0;
}

int32_t p9cli_pread(struct p9cli *c, struct p9cli_file *f, uint64_t off, void *buf, uint32_t n)
{
    int rc = can_read(f);
    if (rc) return rc;
    if (buf == NULL && n > 0) return -P9CLI_EINVAL;
    if (n > I32_MAX) n = I32_MAX;
    uint8_t *out = buf;
    uint32_t done = 0;
    /* A short Tread is not necessarily the end (a server may cap it), so
     * only an empty one ends the loop. */
    while (done < n) {
        uint32_t want = n - done < f->iounit ? n - done : f->iounit;
        c->m.type = P9_TREAD;
        c->m.u.tread.fid = f->fid;
        c->m.u.tread.offset = off + done;
        c->m.u.tread.count = want;
        rc = p9cli_rpc(c, P9_RREAD);
        if (rc == 0 && c->m.u.rread.count > want) rc = -P9CLI_EPROTO;
        if (rc) return done > 0 ? (int32_t)done : rc;
        uint32_t got = c->m.u.rread.count;
        if (got == 0) break;
        memcpy(out + done, c->m.u.rread.data, got);
        done += got;
    }
    return (int32_t)done;
}

int32_t p9cli_pwrite(struct p9cli *c, struct p9cli_file *f, uint64_t off, const void *buf, uint32_t n)
{
    int rc = can_write(f);
    if (rc) return rc;
    if (buf == NULL && n > 0) return -P9CLI_EINVAL;
    if (n > I32_MAX) n = I32_MAX;
    const uint8_t *in = buf;
    uint32_t done = 0;
    while (done < n) {
        uint32_t want = n - done < f->iounit ? n - done : f->iounit;
        c->m.type = P9_TWRITE;
        c->m.u.twrite.fid = f->fid;
        c->m.u.twrite.offset = off + done;
        c->m.u.twrite.count = want;
        c->m.u.twrite.data = in + done;
        rc = p9cli_rpc(c, P9_RWRITE);
        /* Zero bytes accepted would loop forever; more than sent is a lie. */
        if (rc == 0 && (c->m.u.rwrite.count > want || c->m.u.rwrite.count == 0))
            rc = c->m.u.rwrite.count == 0 ? -P9CLI_EIO : -P9CLI_EPROTO;
        if (rc) return done > 0 ? (int32_t)done : rc;
        done += c->m.u.rwrite.count;
    }
    return (int32_t)done;
}

int32_t p9cli_read(struct p9cli *c, struct p9cli_file *f, void *buf, uint32_t n)
{
    if (f == NULL) return -P9CLI_EBADF;
    int32_t rc = p9cli_pread(c, f, f->pos, buf, n);
    if (rc > 0) f->pos += (uint32_t)rc;
    return rc;
}

int32_t p9cli_write(struct p9cli *c, struct p9cli_file *f, const void *buf, uint32_t n)
{
    int rc = can_write(f);
    if (rc) return rc;
    if (f->flags & P9CLI_O_APPEND) {
        /* The end as the server sees it now, so appends from elsewhere
         * are not overwritten. */
        struct p9_stat st;
        rc = p9cli_fstat(c, f, &st);
        if (rc) return rc;
        f->pos = st.size;
    }
    int32_t w = p9cli_pwrite(c, f, f->pos, buf, n);
    if (w > 0) f->pos += (uint32_t)w;
    return w;
}

int p9cli_read_start(struct p9cli *c, struct p9cli_file *f, uint64_t off, void *buf,
                     uint32_t n, struct p9cli_aread *r)
{
    int rc = can_read(f);
    if (rc) return rc;
    if (r == NULL || (buf == NULL && n > 0)) return -P9CLI_EINVAL;
    if (r->busy) return -P9CLI_EBUSY;
    if (c->dead) return c->dead;
    if (n > f->iounit) n = f->iounit;
    /* A tag no outstanding read holds (the synchronous tag and NOTAG are
     * never used here). */
    uint16_t tag = 0;
    for (uint32_t tries = 0; tries < 0x10000u && tag == 0; tries++) {
        uint16_t t = c->next_tag;
        c->next_tag = (uint16_t)(t + 1u);
        if (t == P9CLI_SYNC_TAG || t == P9_NOTAG) continue;
        const struct p9cli_aread *q = c->pending;
        while (q != NULL && q->tag != t) q = q->next;
        if (q == NULL) tag = t;
    }
    if (tag == 0) return -P9CLI_EAGAIN;
    c->m.type = P9_TREAD;
    c->m.tag = tag;
    c->m.u.tread.fid = f->fid;
    c->m.u.tread.offset = off;
    c->m.u.tread.count = n;
    rc = p9cli_send_msg(c);
    if (rc) return rc;
    r->buf = buf;
    r->count = n;
    r->tag = tag;
    r->result = 0;
    r->done = 0;
    r->busy = 1;
    r->next = c->pending;
    c->pending = r;
    return 0;
}

int32_t p9cli_read_wait(struct p9cli *c, struct p9cli_aread *r)
{
    if (r == NULL || (!r->busy && !r->done)) return -P9CLI_EINVAL;
    while (!r->done) {
        /* A failed pump kills the connection, which completes r. */
        if (p9cli_pump(c) < 0 && !r->done) return c->dead;
    }
    return r->result;
}

int p9cli_fsync(struct p9cli *c, struct p9cli_file *f, int datasync)
{
    if (f == NULL || f->fid == P9_NOFID) return -P9CLI_EBADF;
    c->m.type = P9_TFSYNC;
    c->m.u.tfsync.fid = f->fid;
    c->m.u.tfsync.datasync = datasync ? 1u : 0u;
    return p9cli_rpc(c, P9_RFSYNC);
}
