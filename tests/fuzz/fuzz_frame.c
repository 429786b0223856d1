/* libFuzzer harness for the UART frame receiver: the input is what arrives
 * on the line.  The link must never crash, never deliver more than a frame
 * can carry per read, and its COBS decoder must round-trip the input when
 * it is encoded first. */
#include <stdlib.h>
#include <string.h>

#include "steadyfs/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct feed {
    const uint8_t *p;
    size_t n, pos;
    uint32_t clock;
};

static int put_null(void *user, const uint8_t *buf, size_t len)
{
    (void)user;
    (void)buf;
    (void)len;
    return 0;
}

static int get_feed(void *user, uint8_t *buf, size_t cap)
{
    struct feed *f = user;
    size_t k = f->n - f->pos;
    if (k > cap) k = cap;
    if (k > 7) k = 7;   /* ragged chunks, like a UART */
    memcpy(buf, f->p + f->pos, k);
    f->pos += k;
    return (int)k;
}

static uint32_t tick(void *user)
{
    return ((struct feed *)user)->clock += 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MTU = 64 };
    static uint8_t mem[FRAME_MEM(MTU)];
    struct feed f = { data, size, 0, 0 };
    struct frame_io io = { &f, put_null, get_feed, tick };
    struct frame_cfg cfg = { MTU, 10, 3 };
    struct frame_link l;
    if (frame_init(&l, &io, &cfg, mem, sizeof mem) != 0) abort();
    uint8_t out[MTU + 1];
    size_t delivered = 0;
    while (f.pos < f.n) {
        if (frame_poll(&l) < 0) frame_restart(&l);
        int r = frame_read(&l, out, sizeof out);
        if (r < 0 || r > MTU) abort();
        delivered += (size_t)r;
    }
    if (delivered > size) abort();

    /* COBS round trip of the raw input. */
    size_t cap = COBS_MAX(size);
    uint8_t *enc = malloc(cap), *dec = malloc(size + 1);
    size_t m = cobs_encode(data, size, enc, cap);
    if (m == 0 || memchr(enc, 0, m) != NULL) abort();
    struct cobs_dec d;
    cobs_dec_init(&d, dec, (uint16_t)(size > 0xFFFF ? 0xFFFF : size));
    for (size_t i = 0; i < m; i++)
        if (cobs_dec_byte(&d, enc[i]) != 0) abort();
    int rc = cobs_dec_byte(&d, 0);
    if (size > 0 && size <= 0xFFFF && (rc != (int)size || memcmp(dec, data, size) != 0)) abort();
    free(enc);
    free(dec);
    return 0;
}
