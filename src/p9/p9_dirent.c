/* Readdir data: the server packs entries straight into the Rreaddir reply
 * (never splitting one, so a client resumes at the last entry's offset),
 * the client walks them with the same bounds discipline as the decoder.
 * Also the small string-view helpers both sides use. */
#include "p9/p9_wire.h"

struct p9_str p9_cstr(const char *s)
{
    struct p9_str r = { (const uint8_t *)s, 0 };
    if (s) {
        size_t n = strlen(s);
        r.len = (uint16_t)(n > 0xFFFFu ? 0xFFFFu : n);
    }
    return r;
}

bool p9_str_eq(struct p9_str a, const char *s)
{
    size_t n = strlen(s);
    return n == a.len && (n == 0 || memcmp(a.ptr, s, n) == 0);
}

int p9_readdir_begin(struct p9_readdir *rd, uint8_t *buf, size_t cap,
                     uint16_t tag, uint32_t count)
{
    if (buf == NULL || cap < P9_RREAD_HDR) return P9_E_NOSPACE;
    size_t room = cap - P9_RREAD_HDR;
    if (room > 0x7FFFFFFFu - P9_RREAD_HDR) room = 0x7FFFFFFFu - P9_RREAD_HDR;
    rd->buf = buf;
    rd->limit = count < room ? count : (uint32_t)room;
    rd->used = 0;
    rd->tag = tag;
    return 0;
}

int p9_readdir_add(struct p9_readdir *rd, const struct p9_qid *qid, uint64_t offset,
                   uint8_t dtype, const uint8_t *name, uint16_t namelen)
{
    if (namelen != 0 && name == NULL) return P9_E_INVAL;
    struct p9_buf w = { rd->buf + P9_RREAD_HDR, rd->limit, rd->used, 0 };
    if (P9_DIRENT_HDR + (uint32_t)namelen > w.len - w.pos) return P9_E_NOSPACE;
    struct p9_dirent d = { *qid, offset, dtype, { name, namelen } };
    p9_fields(&w, p9_dirent_layout, &d, 0, 1);   /* fits: checked above */
    rd->used = w.pos;
    return 0;
}

int p9_readdir_finish(struct p9_readdir *rd)
{
    uint32_t size = P9_RREAD_HDR + rd->used;
    p9_put_le(rd->buf, size, 4);
    rd->buf[4] = P9_RREADDIR;
    p9_put_le(rd->buf + 5, rd->tag, 2);
    p9_put_le(rd->buf + 7, rd->used, 4);
    return (int)size;
}

int p9_dirent_next(const uint8_t *data, uint32_t count, uint32_t *pos, struct p9_dirent *d)
{
    if (*pos >= count) return 0;
    struct p9_buf r = { (uint8_t *)(uintptr_t)data, count, *pos, 0 };   /* only read */
    p9_fields(&r, p9_dirent_layout, d, 0, 0);
    if (r.err != 0) return r.err;
    *pos = r.pos;
    return 1;
}
