/* 9P2000.L codec, table-driven: one table says, for every message type,
 * which fields its body has (wire order, wire width, where the field sits
 * in struct p9_msg), and one walker per direction follows it.  Decoder and
 * encoder cannot disagree about a layout because there is only one, and a
 * message costs a few table bytes instead of its own code (the per-message
 * switches this replaced were 3.3 KB of Cortex-M3 code, docs/P9.md).
 *
 * Every read goes through the bounds-checked, error-latching reader of
 * p9_wire.h, limited to the message's own size field, so a malformed
 * message can only produce an error code, never an out-of-bounds access. */
#include <stddef.h>

#include "p9/p9_wire.h"

/* Messages larger than this cannot be returned as a positive int. */
#define P9_SIZE_MAX 0x7FFFFFFFu

/* ---- the table ----------------------------------------------------------
 * A layout is a string of fields ended by a 0 byte; a field is two bytes:
 *   kind | (run - 1) << 4 | F_ARRAY, offset
 * kind is one of K_*, run (1..8) the number of same-kind members that
 * follow each other in the struct (mode, uid, gid: one field), offset the
 * member's offset from the start of the struct the layout describes
 * (struct p9_msg, struct p9_dirent or struct p9_qid: < 256, checked when
 * the table compiles).  F_ARRAY: as many members as the last integer
 * field said (Twalk's names, Rwalk's qids; at most P9_MAXWELEM). */
enum {
    K_END, K_U8, K_U16, K_U32, K_U64,
    K_STR,    /* len[2] bytes: a struct p9_str view */
    K_QID,    /* type[1] version[4] path[8]: a struct p9_qid */
    K_DATA,   /* the last integer's count of bytes, all the rest of the
                 message: a const uint8_t * (Rread, Rreaddir, Twrite) */
    K_COUNT,  /* u32 whose reply (P9_RREAD_HDR + count) must fit msize */
    K_OPT32,  /* u32 that old clients leave out (Tfsync's datasync): 0 */
};
#define F_ARRAY 0x80u

/* Member sizes by kind, for runs and arrays. */
#define KSIZE(k)                                                                 \
    ((k) == K_U8 ? 1u : (k) == K_U16 ? 2u                                        \
     : (k) == K_U32 || (k) == K_COUNT || (k) == K_OPT32 ? 4u : (k) == K_U64 ? 8u \
     : (k) == K_STR ? (unsigned)sizeof(struct p9_str) : (unsigned)sizeof(struct p9_qid))
static const uint8_t ksize[] = {
    0, KSIZE(K_U8), KSIZE(K_U16), KSIZE(K_U32), KSIZE(K_U64), KSIZE(K_STR), KSIZE(K_QID),
    (unsigned)sizeof(const uint8_t *), KSIZE(K_COUNT), KSIZE(K_OPT32),
};
/* A compile-time check as a constant 0 (a negative array size fails). */
#define CHECK0(cond) (0u * (unsigned)sizeof(char[(cond) ? 1 : -1]))
#define OFFS(T, m) offsetof(T, m)
/* n members of kind k from `first` to `last`, laid out as an array would be. */
#define RUN_T(T, k, n, first, last)                                                   \
    (uint8_t)((k) | ((n) - 1u) << 4),                                                 \
    (uint8_t)(OFFS(T, first) + CHECK0(OFFS(T, last) < 256u && (n) >= 1u && (n) <= 8u && \
                                      OFFS(T, last) == OFFS(T, first) + ((n) - 1u) * KSIZE(k)))
#define RUN(k, n, first, last) RUN_T(struct p9_msg, k, n, u.first, u.last)
#define FLD(k, m) RUN(k, 1u, m, m)
#define ARR(k, m) (uint8_t)((k) | F_ARRAY), (uint8_t)(OFFS(struct p9_msg, u.m) + \
                                                      CHECK0(OFFS(struct p9_msg, u.m) < 256u))

/* Every layout, one member each (struct of byte arrays: no padding), so
 * the index below can name a layout by its offsetof.  Types that share a
 * struct member share its layout (Tclunk, Tremove, Tstatfs and Treadlink
 * are all `fid`); an R-message without a body points at `none`. */
static const struct layouts {
    uint8_t unknown;   /* offset 0: the index's "no such message" */
    uint8_t none[1];
    uint8_t version[5], tauth[7], tattach[7], qid[3], u32[3], tflush[3];
    uint8_t twalk[7], rwalk[5], tfsync[5], tgetattr[5], rgetattr[11], tsetattr[5];
    uint8_t tlopen[3], ropen[5], tlcreate[7], tread[7], rread[5], twrite[9];
    uint8_t tsymlink[7], rreadlink[3], tmkdir[7], tunlinkat[7], trenameat[9];
    uint8_t trename[5], rstatfs[7], rxattrwalk[3], txattrcreate[9], tlock[13];
    uint8_t rlock[3], tgetlock[11];   /* Rgetlock: the same without the fid */
} L = {
    0, { K_END },
    { FLD(K_U32, version.msize), FLD(K_STR, version.version), K_END },
    { FLD(K_U32, tauth.afid), RUN(K_STR, 2u, tauth.uname, tauth.aname),
      FLD(K_U32, tauth.n_uname), K_END },
    { RUN(K_U32, 2u, tattach.fid, tattach.afid), RUN(K_STR, 2u, tattach.uname, tattach.aname),
      FLD(K_U32, tattach.n_uname), K_END },
    { FLD(K_QID, qid), K_END },
    /* Tclunk Tremove Tstatfs Treadlink, Rlerror, Rwrite: one u32 first */
    { FLD(K_U32, fid.fid), K_END },
    { FLD(K_U16, tflush.oldtag), K_END },
    { RUN(K_U32, 2u, twalk.fid, twalk.newfid), FLD(K_U16, twalk.nwname),
      ARR(K_STR, twalk.wname), K_END },
    { FLD(K_U16, rwalk.nwqid), ARR(K_QID, rwalk.wqid), K_END },
    { FLD(K_U32, tfsync.fid), FLD(K_OPT32, tfsync.datasync), K_END },
    { FLD(K_U32, tgetattr.fid), FLD(K_U64, tgetattr.request_mask), K_END },
    { FLD(K_U64, rgetattr.valid), FLD(K_QID, rgetattr.qid),
      RUN(K_U32, 3u, rgetattr.mode, rgetattr.gid),
      RUN(K_U64, 8u, rgetattr.nlink, rgetattr.mtime_sec),
      RUN(K_U64, 7u, rgetattr.mtime_nsec, rgetattr.data_version), K_END },
    { RUN(K_U32, 5u, tsetattr.fid, tsetattr.gid),
      RUN(K_U64, 5u, tsetattr.size, tsetattr.mtime_nsec), K_END },
    { RUN(K_U32, 2u, tlopen.fid, tlopen.flags), K_END },
    { FLD(K_QID, ropen.qid), FLD(K_U32, ropen.iounit), K_END },
    { FLD(K_U32, tlcreate.fid), FLD(K_STR, tlcreate.name),
      RUN(K_U32, 3u, tlcreate.flags, tlcreate.gid), K_END },
    { FLD(K_U32, tread.fid), FLD(K_U64, tread.offset), FLD(K_COUNT, tread.count), K_END },
    { FLD(K_U32, rread.count), FLD(K_DATA, rread.data), K_END },
    { FLD(K_U32, twrite.fid), FLD(K_U64, twrite.offset), FLD(K_U32, twrite.count),
      FLD(K_DATA, twrite.data), K_END },
    { FLD(K_U32, tsymlink.dfid), RUN(K_STR, 2u, tsymlink.name, tsymlink.target),
      FLD(K_U32, tsymlink.gid), K_END },
    { FLD(K_STR, rreadlink.target), K_END },
    { FLD(K_U32, tmkdir.dfid), FLD(K_STR, tmkdir.name), RUN(K_U32, 2u, tmkdir.mode, tmkdir.gid),
      K_END },
    { FLD(K_U32, tunlinkat.dirfid), FLD(K_STR, tunlinkat.name), FLD(K_U32, tunlinkat.flags),
      K_END },
    { FLD(K_U32, trenameat.olddirfid), FLD(K_STR, trenameat.oldname),
      FLD(K_U32, trenameat.newdirfid), FLD(K_STR, trenameat.newname), K_END },
    /* Trename, and Txattrwalk (fid, newfid, name: the same offsets) */
    { RUN(K_U32, 2u, trename.fid, trename.dfid), FLD(K_STR, trename.name), K_END },
    { RUN(K_U32, 2u, rstatfs.type, rstatfs.bsize), RUN(K_U64, 6u, rstatfs.blocks, rstatfs.fsid),
      FLD(K_U32, rstatfs.namelen), K_END },
    { FLD(K_U64, rxattrwalk.size), K_END },
    { FLD(K_U32, txattrcreate.fid), FLD(K_STR, txattrcreate.name),
      FLD(K_U64, txattrcreate.attr_size), FLD(K_U32, txattrcreate.flags), K_END },
    { FLD(K_U32, tlock.fid), FLD(K_U8, tlock.type), FLD(K_U32, tlock.flags),
      RUN(K_U64, 2u, tlock.start, tlock.length), FLD(K_U32, tlock.proc_id),
      FLD(K_STR, tlock.client_id), K_END },
    { FLD(K_U8, rlock.status), K_END },
    { FLD(K_U32, getlock.fid), FLD(K_U8, getlock.type),
      RUN(K_U64, 2u, getlock.start, getlock.length), FLD(K_U32, getlock.proc_id),
      FLD(K_STR, getlock.client_id), K_END },
};

/* Txattrwalk reuses Trename's layout: the members must sit alike. */
#define SAME_PLACE(a, b) (offsetof(struct p9_msg, u.a) == offsetof(struct p9_msg, u.b))
_Static_assert(SAME_PLACE(txattrwalk.fid, trename.fid) &&
               SAME_PLACE(txattrwalk.newfid, trename.dfid) &&
               SAME_PLACE(txattrwalk.name, trename.name), "Txattrwalk and Trename layouts differ");
/* Rlerror and Rwrite reuse `fid`'s. */
_Static_assert(SAME_PLACE(rlerror.ecode, fid.fid) && SAME_PLACE(rwrite.count, fid.fid),
               "Rlerror/Rwrite and fid layouts differ");
_Static_assert(sizeof(struct layouts) < 256u, "layout offsets must fit a byte");

#define T0 P9_TLERROR   /* the lowest type number */
#define AT(type, member) [(type) - T0] = (uint8_t)offsetof(struct layouts, member)
/* type -> offset of its layout in L; 0 (L.unknown) for types not handled. */
static const uint8_t index_of[P9_RREMOVE - T0 + 1] = {
    AT(P9_TVERSION, version), AT(P9_RVERSION, version), AT(P9_TAUTH, tauth),
    AT(P9_TATTACH, tattach), AT(P9_RAUTH, qid), AT(P9_RATTACH, qid), AT(P9_RMKDIR, qid),
    AT(P9_RSYMLINK, qid), AT(P9_RLERROR, u32), AT(P9_TFLUSH, tflush), AT(P9_TWALK, twalk),
    AT(P9_RWALK, rwalk), AT(P9_TCLUNK, u32), AT(P9_TREMOVE, u32), AT(P9_TSTATFS, u32),
    AT(P9_TREADLINK, u32), AT(P9_TFSYNC, tfsync), AT(P9_TGETATTR, tgetattr),
    AT(P9_RGETATTR, rgetattr), AT(P9_TSETATTR, tsetattr), AT(P9_TLOPEN, tlopen),
    AT(P9_RLOPEN, ropen), AT(P9_RLCREATE, ropen), AT(P9_TLCREATE, tlcreate),
    AT(P9_TREAD, tread), AT(P9_TREADDIR, tread), AT(P9_RREAD, rread), AT(P9_RREADDIR, rread),
    AT(P9_TWRITE, twrite), AT(P9_RWRITE, u32), AT(P9_TSYMLINK, tsymlink),
    AT(P9_RREADLINK, rreadlink), AT(P9_TMKDIR, tmkdir), AT(P9_TUNLINKAT, tunlinkat),
    AT(P9_TRENAMEAT, trenameat), AT(P9_TRENAME, trename), AT(P9_RSTATFS, rstatfs),
    AT(P9_TXATTRWALK, trename), AT(P9_RXATTRWALK, rxattrwalk),
    AT(P9_TXATTRCREATE, txattrcreate), AT(P9_TLOCK, tlock), AT(P9_RLOCK, rlock),
    AT(P9_TGETLOCK, tgetlock),
    [P9_RGETLOCK - T0] = (uint8_t)(offsetof(struct layouts, tgetlock) + 2u),   /* no fid */
    AT(P9_RCLUNK, none), AT(P9_RREMOVE, none), AT(P9_RFLUSH, none), AT(P9_RSETATTR, none),
    AT(P9_RRENAME, none), AT(P9_RRENAMEAT, none), AT(P9_RUNLINKAT, none), AT(P9_RFSYNC, none),
    AT(P9_RXATTRCREATE, none),
};

static const uint8_t *layout_of(uint8_t type)
{
    uint32_t i = (uint32_t)type - T0;   /* below T0: wraps past the end */
    if (i >= sizeof index_of || index_of[i] == 0)
        return NULL;
    return (const uint8_t *)&L + index_of[i];
}

/* A qid inside any struct: type[1] version[4] path[8]. */
static const uint8_t qid_layout[] = {
    RUN_T(struct p9_qid, K_U8, 1u, type, type), RUN_T(struct p9_qid, K_U32, 1u, version, version),
    RUN_T(struct p9_qid, K_U64, 1u, path, path), K_END,
};
/* A readdir entry: qid[13] offset[8] type[1] name[s]. */
const uint8_t p9_dirent_layout[] = {
    RUN_T(struct p9_dirent, K_QID, 1u, qid, qid),
    RUN_T(struct p9_dirent, K_U64, 1u, offset, offset),
    RUN_T(struct p9_dirent, K_U8, 1u, type, type),
    RUN_T(struct p9_dirent, K_STR, 1u, name, name), K_END,
};

/* ---- the walker --------------------------------------------------------- */

/* Integer members: their width on the wire is their size in the struct
 * (ksize), and these move them. */
static uint64_t load(const uint8_t *f, uint32_t width)
{
    switch (width) {
    case 1: return *f;
    case 2: return *(const uint16_t *)(const void *)f;
    case 4: return *(const uint32_t *)(const void *)f;
    default: return *(const uint64_t *)(const void *)f;
    }
}

#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
static void store(uint8_t *f, uint32_t width, uint64_t v)
{
    switch (width) {
    case 1: *f = (uint8_t)v; break;
    case 2: *(uint16_t *)(void *)f = (uint16_t)v; break;
    case 4: *(uint32_t *)(void *)f = (uint32_t)v; break;
    default: *(uint64_t *)(void *)f = v; break;
    }
}
#endif

_Static_assert(offsetof(struct p9_str, ptr) == 0, "a string's bytes sit where DATA's pointer does");

/* One walker for both directions (the two it replaced were 660 B of
 * Cortex-M3 code that differed only in where each field's bytes go).
 * Reading, a short message latches TRUNC; writing, a short buffer NOSPACE. */
void p9_fields(struct p9_buf *b, const uint8_t *lay, void *obj, uint32_t msize, int put)
{
    uint8_t *base = obj;
    int shortfall = put ? P9_E_NOSPACE : P9_E_TRUNC;
    uint32_t last = 0;   /* the last integer moved: a count for DATA and arrays */
    for (; *lay != K_END; lay += 2) {
        uint32_t kind = lay[0] & 15u, n = (lay[0] >> 4 & 7u) + 1u, width = ksize[kind];
        uint8_t *f = base + lay[1];
        if (lay[0] & F_ARRAY) {
            n = last;
            if (n > P9_MAXWELEM) {
                /* writing, whatever else went wrong: a caller bug */
                if (put || b->err == 0)
                    b->err = P9_E_NWNAME;
                return;
            }
        }
        for (; n; n--, f += width) {
            uint8_t *q;
            uint64_t v;
            if (kind == K_QID) {
                p9_fields(b, qid_layout, f, msize, put);
                continue;
            }
            if (kind == K_STR || kind == K_DATA) {
                /* a string is its u16 length, then that many bytes; DATA
                 * the last integer's count of bytes (struct p9_str's ptr
                 * and DATA's pointer both sit at f) */
                const uint8_t **d = (const uint8_t **)(void *)f;
                uint16_t *slen = (uint16_t *)(void *)(f + offsetof(struct p9_str, len));
                uint32_t cnt = last;
                if (kind == K_STR) {
                    if (put && *slen != 0 && *d == NULL) {
                        if (b->err == 0)
                            b->err = P9_E_INVAL;   /* a caller bug */
                        continue;
                    }
                    q = p9_take(b, 2, shortfall);
                    if (put && q)
                        p9_put_le(q, *slen, 2);
                    else if (!put)
                        *slen = q ? (uint16_t)p9_le(q, 2) : 0;
                    cnt = *slen;
                } else if (put && last != 0 && *d == NULL) {
                    b->err = P9_E_INVAL;   /* NULL data with a count: a caller bug */
                    return;
                } else if (!put && b->err == 0 && last > b->len - b->pos) {
                    /* all that is left of the message, no more, no less
                     * (count beyond it is an overrun, bytes after it
                     * trailing garbage) */
                    b->err = P9_E_COUNT;
                }
                q = p9_take(b, cnt, shortfall);
                /* memmove, not memcpy: the caller may have placed the
                 * bytes in the output buffer already (zero-copy Rread),
                 * so source and destination can meet */
                if (put && q && cnt)
                    memmove(q, *d, cnt);
                else if (!put) {
                    *d = q;
                    if (q == NULL && kind == K_STR)
                        *slen = 0;
                }
                continue;
            }
            /* Linux before 3.x sent no datasync field in Tfsync (written:
             * always) */
            if (!put && kind == K_OPT32 && b->len - b->pos < 4)
                continue;
            q = p9_take(b, width, shortfall);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* the member's bytes are its wire bytes: one copy either way */
            if (q)
                memcpy(put ? q : f, put ? f : q, width);
            else if (!put)
                memset(f, 0, width);
            v = load(f, width);
#else
            if (put) {
                v = load(f, width);
                if (q)
                    p9_put_le(q, v, width);
            } else {
                v = q ? p9_le(q, width) : 0;
                store(f, width, v);
            }
#endif
            /* A Tread/Treaddir whose reply could not fit in msize is
             * refused rather than clamped: a conforming client asks for
             * at most msize - P9_IOHDRSZ. */
            if (!put && kind == K_COUNT && b->err == 0 &&
                v > (msize > P9_RREAD_HDR ? msize - P9_RREAD_HDR : 0u))
                b->err = P9_E_COUNT;
            last = (uint32_t)v;
        }
    }
}

/* ---- the API ------------------------------------------------------------ */

int p9_peek(const uint8_t *buf, size_t len, uint32_t msize,
            uint32_t *size, uint8_t *type, uint16_t *tag)
{
    if (buf == NULL || len < P9_HDR_SIZE) return P9_E_SHORT;
    uint32_t sz = (uint32_t)p9_le(buf, 4);
    if (msize > P9_SIZE_MAX) msize = P9_SIZE_MAX;
    if (sz < P9_HDR_SIZE || sz > msize) return P9_E_SIZE;
    if (size) *size = sz;
    if (type) *type = buf[4];
    if (tag) *tag = (uint16_t)p9_le(buf + 5, 2);
    return 0;
}

int p9_decode(const uint8_t *buf, size_t len, uint32_t msize, struct p9_msg *m)
{
    uint32_t size;
    uint8_t type;
    uint16_t tag;
    int rc = p9_peek(buf, len, msize, &size, &type, &tag);
    if (rc < 0) return rc;
    if (len < size) return P9_E_SHORT;
    memset(m, 0, sizeof *m);
    m->type = type;
    m->tag = tag;
    m->size = size;
    const uint8_t *lay = layout_of(type);
    if (lay == NULL) return P9_E_UNKNOWN;
    struct p9_buf r = { (uint8_t *)(uintptr_t)buf, size, P9_HDR_SIZE, 0 };   /* only read */
    p9_fields(&r, lay, m, msize, 0);
    if (r.err != 0) return r.err;
    if (r.pos != r.len) return P9_E_TRAILING;
    return (int)size;
}

int p9_encode(const struct p9_msg *m, uint8_t *buf, size_t cap)
{
    if (m == NULL || buf == NULL) return P9_E_INVAL;
    /* Sizes are 32-bit on the wire and returned as a positive int. */
    struct p9_buf w = { buf, cap > P9_SIZE_MAX ? P9_SIZE_MAX : (uint32_t)cap, 0, 0 };
    /* Reserve the header first so zero-copy data already placed at its
     * final offset is not moved by a prefix of different length. */
    if (p9_take(&w, P9_HDR_SIZE, P9_E_NOSPACE) == NULL) return P9_E_NOSPACE;
    const uint8_t *lay = layout_of(m->type);
    if (lay == NULL) return P9_E_UNKNOWN;
    p9_fields(&w, lay, (void *)(uintptr_t)m, 0, 1);   /* (only read) */
    if (w.err != 0) return w.err;
    p9_put_le(buf, w.pos, 4);
    buf[4] = m->type;
    p9_put_le(buf + 5, m->tag, 2);
    return (int)w.pos;
}
