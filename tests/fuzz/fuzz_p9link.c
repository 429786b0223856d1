/* libFuzzer harness for the message/session layer (p9link.h) on the
 * receiving end of a frame link.  The input is cut into frame payloads
 * (one length byte each, then the bytes); each becomes a valid DATA frame
 * (COBS, CRC, the next sequence number) -- or, when its length byte has the
 * top bit set, a RESET from a restarted peer -- so what reaches p9link is
 * every payload sequence a peer could send.  p9link must never read or
 * write outside its buffer, never return a message longer than it or one
 * whose size field disagrees, and keep returning whole frames only while
 * unsynced. */
#include <stdlib.h>
#include <string.h>

#include "steadyfs/crc32.h"
#include "steadyfs/frame.h"
#include "steadyfs/p9link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MTU = 64, CAP = 300 };

struct line {
    uint8_t buf[1 << 16];
    size_t n, pos;
    uint32_t clock;
};

static int put_null(void *user, const uint8_t *b, size_t len)
{
    (void)user;
    (void)b;
    (void)len;
    return 0;
}

static int get_line(void *user, uint8_t *b, size_t cap)
{
    struct line *ln = user;
    size_t k = ln->n - ln->pos;
    if (k > cap) k = cap;
    if (k > 11) k = 11;
    memcpy(b, ln->buf + ln->pos, k);
    ln->pos += k;
    return (int)k;
}

static uint32_t tick(void *user) { return ((struct line *)user)->clock += 1; }

static void emit(struct line *ln, uint8_t kind, uint8_t seq, const uint8_t *p, size_t n)
{
    uint8_t f[MTU + FRAME_OVERHEAD];
    f[0] = kind;
    f[1] = seq;
    if (n) memcpy(f + 2, p, n);
    uint32_t crc = steady_crc32(0, f, n + 2);
    for (int i = 0; i < 4; i++) f[n + 2 + (size_t)i] = (uint8_t)(crc >> (8 * i));
    if (ln->n + COBS_MAX(n + FRAME_OVERHEAD) + 2 > sizeof ln->buf) return;
    ln->buf[ln->n++] = 0;
    ln->n += cobs_encode(f, n + FRAME_OVERHEAD, ln->buf + ln->n, sizeof ln->buf - ln->n);
    ln->buf[ln->n++] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct line ln;
    static uint8_t mem[FRAME_MEM(MTU)];
    static uint8_t buf[CAP + 16];
    ln.n = ln.pos = 0;
    ln.clock = 0;
    uint8_t seq = 0;
    for (size_t i = 0; i < size;) {
        uint8_t lb = data[i++];
        if (lb & 0x80) {
            emit(&ln, FRAME_K_RESET, seq++, NULL, 0);
            continue;
        }
        size_t n = lb % (MTU + 1);
        if (n > size - i) n = size - i;
        emit(&ln, FRAME_K_DATA, seq++, data + i, n);
        i += n;
    }
    struct frame_io io = { &ln, put_null, get_line, tick };
    struct frame_cfg cfg = { MTU, 1000, 3 };
    struct frame_link l;
    struct p9link_rx rx;
    if (frame_init(&l, &io, &cfg, mem, sizeof mem) != 0) abort();
    memset(buf + CAP, 0xA5, 16); /* guard: must stay untouched */
    p9link_rx_init(&rx, buf, CAP, &l);
    for (int guard = 0; ln.pos < ln.n || l.rxd_len; guard++) {
        if (guard > 1000000) abort();
        frame_poll(&l);
        int32_t r = p9link_rx_poll(&rx, &l);
        if (r > 0) {
            if ((uint32_t)r > CAP) abort();
            uint32_t sz = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
                          (uint32_t)buf[3] << 24;
            if (sz == 0 ? (uint32_t)r != P9LINK_CTL_LEN : (sz != (uint32_t)r || sz < P9LINK_MSG_MIN))
                abort();
        } else if (r != 0 && r != P9LINK_RESTARTED && r != P9LINK_E_SIZE) {
            abort();
        }
    }
    for (int i = 0; i < 16; i++)
        if (buf[CAP + i] != 0xA5) abort();
    return 0;
}
