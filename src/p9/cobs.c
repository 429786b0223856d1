/* Consistent Overhead Byte Stuffing (Cheshire & Baker, IEEE/ACM ToN 1999):
 * removes every 0x00 from a frame at a cost of one byte per 254, so 0x00
 * can delimit frames and a receiver resynchronises at the next delimiter
 * after any loss or corruption. */
#include <string.h>

#include "steadyfs/frame.h"

/* Batching so a UART driver or a socket sees a few calls per frame, not
 * two per COBS block. */
#define COBS_STAGE 32u

struct cobs_out {
    frame_put_fn put;
    void *user;
    uint8_t stage[COBS_STAGE];
    size_t n;
    int err;
};

static void out_flush(struct cobs_out *o)
{
    if (o->err == 0 && o->n > 0) {
        int rc = o->put(o->user, o->stage, o->n);
        if (rc < 0) o->err = rc;
    }
    o->n = 0;
}

static void out_bytes(struct cobs_out *o, const uint8_t *p, size_t n)
{
    while (n > 0 && o->err == 0) {
        size_t k = COBS_STAGE - o->n;
        if (k > n) k = n;
        memcpy(o->stage + o->n, p, k);
        o->n += k;
        p += k;
        n -= k;
        if (o->n == COBS_STAGE) out_flush(o);
    }
}

int cobs_encode_put(const uint8_t *src, size_t n, frame_put_fn put, void *user)
{
    struct cobs_out o = { put, user, { 0 }, 0, 0 };
    size_t pos = 0;
    for (;;) {
        size_t k = 0;
        while (pos + k < n && k < 254u && src[pos + k] != 0) k++;
        uint8_t code = (uint8_t)(k + 1);
        out_bytes(&o, &code, 1);
        out_bytes(&o, src + pos, k);
        pos += k;
        if (pos == n) break;
        /* A short block ended at a zero, which its code implies; a full
         * 254-byte block implies none. */
        if (k < 254u) pos++;
    }
    out_flush(&o);
    return o.err;
}

struct cobs_buf {
    uint8_t *out;
    size_t cap, len;
};

static int buf_put(void *user, const uint8_t *p, size_t n)
{
    struct cobs_buf *b = user;
    if (n > b->cap - b->len) return -1;
    memcpy(b->out + b->len, p, n);
    b->len += n;
    return 0;
}

size_t cobs_encode(const uint8_t *src, size_t n, uint8_t *out, size_t cap)
{
    struct cobs_buf b = { out, cap, 0 };
    if (cobs_encode_put(src, n, buf_put, &b) < 0) return 0;
    return b.len;
}

void cobs_dec_init(struct cobs_dec *d, uint8_t *buf, uint16_t cap)
{
    d->buf = buf;
    d->cap = cap;
    d->len = 0;
    d->code = 0;
    d->left = 0;
    d->discard = false;
}

static void dec_append(struct cobs_dec *d, uint8_t b)
{
    if (d->len >= d->cap) {
        d->discard = true;
        return;
    }
    d->buf[d->len++] = b;
}

int cobs_dec_byte(struct cobs_dec *d, uint8_t b)
{
    if (b == 0) {
        int rc;
        if (d->discard || d->left != 0) rc = COBS_BAD;   /* overflow, or a block cut short */
        else rc = d->code == 0 ? 0 : (int)d->len;       /* 0: empty frame, skipped */
        d->code = 0;
        d->left = 0;
        d->discard = false;
        return rc;
    }
    if (d->discard) return 0;
    if (d->code == 0) d->len = 0;   /* first byte of a new frame */
    if (d->left == 0) {
        /* A code byte: the previous block's implied zero is real only now
         * that we know the frame goes on. */
        if (d->code != 0 && d->code != 0xFFu) dec_append(d, 0);
        d->code = b;
        d->left = (uint8_t)(b - 1u);
    } else {
        dec_append(d, b);
        d->left--;
    }
    return 0;
}
