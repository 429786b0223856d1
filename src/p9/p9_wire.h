/* The bounds-checked little-endian cursor shared by the 9P codec
 * (p9_codec.c) and the readdir helpers (p9_dirent.c).  It latches its
 * first error, so a message is parsed as a straight sequence of field reads
 * and checked once at the end: no early return can be forgotten, and no
 * read ever passes `len`. */
#ifndef STEADYFS_P9_WIRE_H
#define STEADYFS_P9_WIRE_H

#include <string.h>

#include "steadyfs/p9.h"

/* One cursor for both directions: reading a message (p points at it,
 * len is its size) and writing one (len is the room).  A reader's bytes
 * are only ever read through it, so the const of the message is cast
 * away once where a reader is made; one type lets one walker (and one
 * bounds check) serve the decoder and the encoder. */
struct p9_buf {
    uint8_t *p;
    uint32_t len, pos;
    int err;
};

/* A pointer to the next n bytes, or NULL after latching `code` (TRUNC
 * reading, NOSPACE writing) unless an error is latched already. */
static inline uint8_t *p9_take(struct p9_buf *b, uint32_t n, int code)
{
    if (b->err != 0 || n > b->len - b->pos) {
        if (b->err == 0) b->err = code;
        return NULL;
    }
    uint8_t *q = b->p + b->pos;
    b->pos += n;
    return q;
}

static inline uint64_t p9_le(const uint8_t *q, unsigned n)
{
    uint64_t v = 0;
    while (n--) v = (v << 8) | q[n];
    return v;
}

static inline void p9_put_le(uint8_t *q, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8) q[i] = (uint8_t)v;
}

/* The table-driven walker of p9_codec.c: the fields a layout lists are
 * read from b into the struct at obj (put 0; msize bounds K_COUNT
 * fields), or written from it to b (put 1); errors latch as in p9_take. */
void p9_fields(struct p9_buf *b, const uint8_t *layout, void *obj, uint32_t msize, int put);
/* The layout of struct p9_dirent: qid[13] offset[8] type[1] name[s]. */
extern const uint8_t p9_dirent_layout[];

#endif
