/* p9cli directories: Treaddir batches kept in the caller's buffer, handed
 * out one entry at a time.  A batch is checked whole when it arrives (every
 * entry parses, every name is a valid name, the offset moves on), so a
 * broken server gives -EPROTO, never a bad name or an endless listing. */
#include <string.h>

#include "stub/p9cli_internal.h"

static int valid_name(struct p9_str s)
{
    if (s.len == 0 || s.len > P9CLI_NAME_MAX) return 0;
    for (uint16_t i = 0; i < s.len; i++)
        if (s.ptr[i] == '/' || s.ptr[i] == 0) return 0;
    return 1;
}

int p9cli_opendir(struct p9cli *c, struct p9cli_dir *d, const char *path, uint8_t *buf, uint32_t cap)
{
    if (d == NULL || buf == NULL || cap < P9_DIRENT_HDR + P9CLI_NAME_MAX) return -P9CLI_EINVAL;
    int rc = p9cli_open(c, &d->f, path, P9CLI_O_RDONLY | P9CLI_O_DIRECTORY, 0);
    if (rc) return rc;
    if (!(d->f.qtype & P9_QTDIR)) {
        p9cli_close(c, &d->f);
        return -P9CLI_ENOTDIR;
    }
    d->buf = buf;
    d->cap = cap;
    p9cli_rewinddir(d);
    return 0;
}

static int fetch(struct p9cli *c, struct p9cli_dir *d)
{
    uint32_t want = p9cli_iosize(c);
    if (want > d->cap) want = d->cap;
    c->m.type = P9_TREADDIR;
    c->m.u.tread.fid = d->f.fid;
    c->m.u.tread.offset = d->offset;
    c->m.u.tread.count = want;
    int rc = p9cli_rpc(c, P9_RREADDIR);
    if (rc) return rc;
    uint32_t n = c->m.u.rread.count;
    if (n > want) return -P9CLI_EPROTO;
    if (n == 0) {
        d->eof = 1;
        return 0;
    }
    const uint8_t *data = c->m.u.rread.data;
    uint32_t pos = 0;
    struct p9_dirent e;
    uint64_t last = d->offset;
    while ((rc = p9_dirent_next(data, n, &pos, &e)) == 1) {
        if (!valid_name(e.name)) return -P9CLI_EPROTO;
        last = e.offset;
    }
    if (rc < 0 || last == d->offset) return -P9CLI_EPROTO;
    memcpy(d->buf, data, n);
    d->len = n;
    d->pos = 0;
    return 0;
}

int p9cli_readdir(struct p9cli *c, struct p9cli_dir *d, struct p9cli_dirent *e)
{
    if (d == NULL || d->f.fid == P9_NOFID) return -P9CLI_EBADF;
    if (e == NULL) return -P9CLI_EINVAL;
    if (d->pos >= d->len) {
        if (d->eof) return 0;
        int rc = fetch(c, d);
        if (rc) return rc;
        if (d->eof) return 0;
    }
    struct p9_dirent de;
    /* Checked in fetch(): parses, and the name is valid. */
    if (p9_dirent_next(d->buf, d->len, &d->pos, &de) != 1) return -P9CLI_EPROTO;
    e->ino = de.qid.path;
    e->qtype = de.qid.type;
    e->offset = de.offset;
    e->type = de.type;
    memcpy(e->name, de.name.ptr, de.name.len);
    e->name[de.name.len] = '\0';
    d->offset = de.offset;
    return 1;
}

void p9cli_rewinddir(struct p9cli_dir *d)
{
    d->len = d->pos = 0;
    d->offset = 0;
    d->eof = 0;
}

int p9cli_closedir(struct p9cli *c, struct p9cli_dir *d)
{
    if (d == NULL) return -P9CLI_EBADF;
    d->len = d->pos = 0;
    return p9cli_close(c, &d->f);
}
