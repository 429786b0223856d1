/* Bounds-checked little-endian readers and writers shared by the 9P codec
 * (p9_codec.c) and the readdir helpers (p9_dirent.c).  Each latches its
 * first error, so a message is parsed as a straight sequence of field reads
 * and checked once at the end: no early return can be forgotten, and no
 * read ever passes `len`. */
#ifndef STEADYFS_P9_WIRE_H
#define STEADYFS_P9_WIRE_H

#include <string.h>

#include "steadyfs/p9.h"

struct p9_rd {
    const uint8_t *p;
    uint32_t len, pos;
    int err;
};

/* Returns a pointer to the next n bytes, or NULL (and latches TRUNC). */
static inline const uint8_t *p9_rd_take(struct p9_rd *r, uint32_t n)
{
    if (r->err != 0 || n > r->len - r->pos) {
        if (r->err == 0) r->err = P9_E_TRUNC;
        return NULL;
    }
    const uint8_t *q = r->p + r->pos;
    r->pos += n;
    return q;
}

static inline uint64_t p9_le(const uint8_t *q, unsigned n)
{
    uint64_t v = 0;
    while (n--) v = (v << 8) | q[n];
    return v;
}

static inline uint8_t p9_rd8(struct p9_rd *r)
{
    const uint8_t *q = p9_rd_take(r, 1);
    return q ? q[0] : 0;
}
static inline uint16_t p9_rd16(struct p9_rd *r)
{
    const uint8_t *q = p9_rd_take(r, 2);
    return q ? (uint16_t)p9_le(q, 2) : 0;
}
static inline uint32_t p9_rd32(struct p9_rd *r)
{
    const uint8_t *q = p9_rd_take(r, 4);
    return q ? (uint32_t)p9_le(q, 4) : 0;
}
static inline uint64_t p9_rd64(struct p9_rd *r)
{
    const uint8_t *q = p9_rd_take(r, 8);
    return q ? p9_le(q, 8) : 0;
}
static inline struct p9_str p9_rdstr(struct p9_rd *r)
{
    struct p9_str s;
    s.len = p9_rd16(r);
    s.ptr = p9_rd_take(r, s.len);
    if (s.ptr == NULL) s.len = 0;
    return s;
}
static inline struct p9_qid p9_rdqid(struct p9_rd *r)
{
    struct p9_qid q;
    q.type = p9_rd8(r);
    q.version = p9_rd32(r);
    q.path = p9_rd64(r);
    return q;
}

struct p9_wr {
    uint8_t *p;
    uint32_t cap, pos;
    int err;
};

static inline uint8_t *p9_wr_take(struct p9_wr *w, uint32_t n)
{
    if (w->err != 0 || n > w->cap - w->pos) {
        if (w->err == 0) w->err = P9_E_NOSPACE;
        return NULL;
    }
    uint8_t *q = w->p + w->pos;
    w->pos += n;
    return q;
}

static inline void p9_put_le(uint8_t *q, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8) q[i] = (uint8_t)v;
}

static inline void p9_wrn(struct p9_wr *w, uint64_t v, unsigned n)
{
    uint8_t *q = p9_wr_take(w, n);
    if (q) p9_put_le(q, v, n);
}
#define p9_wr8(w, v)  p9_wrn((w), (v), 1)
#define p9_wr16(w, v) p9_wrn((w), (v), 2)
#define p9_wr32(w, v) p9_wrn((w), (v), 4)
#define p9_wr64(w, v) p9_wrn((w), (v), 8)

/* memmove, not memcpy: the caller may have placed the bytes in the output
 * buffer already (zero-copy Rread), so source and destination can meet. */
static inline void p9_wrbytes(struct p9_wr *w, const uint8_t *src, uint32_t n)
{
    uint8_t *q = p9_wr_take(w, n);
    if (q && n) memmove(q, src, n);
}
static inline void p9_wrstr(struct p9_wr *w, struct p9_str s)
{
    if (s.len != 0 && s.ptr == NULL) {
        if (w->err == 0) w->err = P9_E_INVAL;
        return;
    }
    p9_wr16(w, s.len);
    p9_wrbytes(w, s.ptr, s.len);
}
static inline void p9_wrqid(struct p9_wr *w, const struct p9_qid *q)
{
    p9_wr8(w, q->type);
    p9_wr32(w, q->version);
    p9_wr64(w, q->path);
}

/* The table-driven walkers of p9_codec.c: the fields a layout lists are
 * read from r into the struct at obj (msize bounds K_COUNT fields), or
 * written from it to w; errors latch as in the readers above. */
void p9_get_fields(struct p9_rd *r, const uint8_t *layout, void *obj, uint32_t msize);
void p9_put_fields(struct p9_wr *w, const uint8_t *layout, const void *obj);
/* The layout of struct p9_dirent: qid[13] offset[8] type[1] name[s]. */
extern const uint8_t p9_dirent_layout[];

#endif
