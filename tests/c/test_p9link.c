/* p9link: 9P messages and session control over two frame links joined by
 * a lossy simulated line.  A "board" end answers every message with a
 * transformed copy (as the firmware's echo service does); a "host" end
 * sends sessions of messages and checks every reply byte.  Then the cases
 * the layer exists for: a message too big for the board (DROP, then a new
 * session works), a board restart in the middle of a message (RESTARTED,
 * leftovers never taken for a message, a new session works), and garbage
 * while unsynced. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "steadyfs/p9link.h"

#define QCAP (1u << 20)
#define MTU 64u
#define BOARD_CAP 1024u

struct line {
    uint8_t *q;
    uint32_t head, tail, rng, drop_ppm, corrupt_ppm;
};

static uint32_t vclock;

static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static int put(void *user, const uint8_t *buf, size_t len)
{
    struct line *ln = user;
    for (size_t i = 0; i < len; i++) {
        uint32_t r = rnd(&ln->rng) % 1000000u;
        uint8_t b = buf[i];
        if (r < ln->drop_ppm) continue;
        if (r < ln->drop_ppm + ln->corrupt_ppm) b ^= 0x10;
        if (ln->tail - ln->head < QCAP) ln->q[ln->tail++ % QCAP] = b;
    }
    return 0;
}

struct end {
    struct frame_link link;
    struct line *out, *in;
    uint8_t mem[FRAME_MEM(MTU)];
    struct p9link_rx rx;
    struct p9link_tx tx;
    uint8_t *buf, out_buf[BOARD_CAP + 8];
};

static int put_end(void *user, const uint8_t *buf, size_t len) { return put(((struct end *)user)->out, buf, len); }
static int get_end(void *user, uint8_t *buf, size_t cap)
{
    struct line *ln = ((struct end *)user)->in;
    size_t n = 0, burst = 1 + rnd(&ln->rng) % 40u;
    while (n < cap && n < burst && ln->head != ln->tail) buf[n++] = ln->q[ln->head++ % QCAP];
    return (int)n;
}
static uint32_t now(void *user) { (void)user; return vclock; }

static void end_init(struct end *e, struct line *out, struct line *in, uint32_t cap)
{
    static const struct frame_cfg cfg = { MTU, 20, 200 };
    struct frame_io io = { e, put_end, get_end, now };
    e->out = out;
    e->in = in;
    CHECK_EQ(frame_init(&e->link, &io, &cfg, e->mem, sizeof e->mem), 0);
    p9link_rx_init(&e->rx, e->buf, cap, &e->link);
    e->tx.len = e->tx.off = 0;
}

/* The board: echo each 9P message with its type byte + 1; SESS answered
 * with SESS; a bad size with DROP.  Counts what it saw. */
struct board_stats { uint32_t msgs, sess, drops, restarts; };

static void board_step(struct end *b, struct board_stats *st)
{
    CHECK_EQ(frame_poll(&b->link), 0);
    if (p9link_tx_busy(&b->tx)) {
        CHECK(p9link_tx_poll(&b->tx, &b->link) >= 0);
        return;
    }
    int32_t n = p9link_rx_poll(&b->rx, &b->link);
    if (n == P9LINK_RESTARTED) {
        st->restarts++;
    } else if (n == P9LINK_E_SIZE) {
        st->drops++;
        p9link_ctl(b->out_buf, P9LINK_DROP);
        p9link_tx_start(&b->tx, b->out_buf, P9LINK_CTL_LEN);
    } else if (n > 0) {
        int code = p9link_ctl_code(b->buf, (uint32_t)n);
        if (code == P9LINK_SESS) {
            st->sess++;
            p9link_ctl(b->out_buf, P9LINK_SESS);
            p9link_tx_start(&b->tx, b->out_buf, P9LINK_CTL_LEN);
        } else {
            CHECK_EQ(code, 0);
            st->msgs++;
            memcpy(b->out_buf, b->buf, (size_t)n);
            b->out_buf[4]++;
            p9link_tx_start(&b->tx, b->out_buf, (uint32_t)n);
        }
    }
    if (p9link_tx_busy(&b->tx)) CHECK(p9link_tx_poll(&b->tx, &b->link) >= 0);
}

static uint32_t make_msg(uint8_t *m, uint32_t size, uint32_t seed)
{
    m[0] = (uint8_t)size; m[1] = (uint8_t)(size >> 8); m[2] = (uint8_t)(size >> 16); m[3] = (uint8_t)(size >> 24);
    for (uint32_t i = 4; i < size; i++) m[i] = (uint8_t)(rnd(&seed) % 3 ? rnd(&seed) : 0);
    return size;
}

/* Host side: sends `msg` (len bytes; need not be a valid size), polls both
 * ends until a message or an event arrives at the host.  Returns what
 * p9link_rx_poll returned there (reply in h->buf), or 0 on timeout. */
static int32_t exchange(struct end *h, struct end *b, struct board_stats *st,
                        const uint8_t *msg, uint32_t len)
{
    if (len) p9link_tx_start(&h->tx, msg, len);
    for (int i = 0; i < 400000; i++) {
        vclock++;
        CHECK_EQ(frame_poll(&h->link), 0);
        if (p9link_tx_busy(&h->tx)) CHECK(p9link_tx_poll(&h->tx, &h->link) >= 0);
        int32_t n = p9link_rx_poll(&h->rx, &h->link);
        board_step(b, st);
        if (n != 0) return n;
    }
    return 0;
}

static void session(struct end *h, struct end *b, struct board_stats *st)
{
    uint8_t sess[P9LINK_CTL_LEN];
    p9link_ctl(sess, P9LINK_SESS);
    int32_t n = exchange(h, b, st, sess, sizeof sess);
    /* the peer's start (its first RESET) is seen once, before the echo */
    if (n == P9LINK_RESTARTED) n = exchange(h, b, st, NULL, 0);
    CHECK_EQ(n, (int32_t)P9LINK_CTL_LEN);
    CHECK_EQ(p9link_ctl_code(h->buf, (uint32_t)n), P9LINK_SESS);
}

int main(void)
{
    struct line hb = { malloc(QCAP), 0, 0, 11, 2000, 1000 };
    struct line bh = { malloc(QCAP), 0, 0, 12, 2000, 1000 };
    static uint8_t hbuf[1u << 16], bbuf[BOARD_CAP];
    static struct end host, board;
    struct board_stats st = { 0 };
    uint8_t msg[4096];

    host.buf = hbuf;
    board.buf = bbuf;
    end_init(&host, &hb, &bh, sizeof hbuf);
    end_init(&board, &bh, &hb, BOARD_CAP);

    CHECK_EQ(p9link_ctl_code((const uint8_t *)"\0\0\0\0sfLX", 8), 0);
    CHECK_EQ(p9link_ctl_code((const uint8_t *)"\0\0\0\0sfLS", 7), 0);

    /* 1. A session of messages of every size class over a lossy line. */
    session(&host, &board, &st);
    uint32_t seed = 99;
    for (uint32_t k = 0; k < 60; k++) {
        uint32_t size = k < 3 ? 7 + k : 7 + rnd(&seed) % (BOARD_CAP - 7 + 1);
        if (k == 3) size = BOARD_CAP;
        make_msg(msg, size, seed + k);
        int32_t n = exchange(&host, &board, &st, msg, size);
        CHECK_EQ(n, (int32_t)size);
        msg[4]++;
        CHECK(n == (int32_t)size && memcmp(host.buf, msg, size) == 0);
    }
    CHECK_EQ(st.msgs, 60);
    CHECK(host.link.stats.retransmits + board.link.stats.retransmits > 0);

    /* 2. Too big for the board: DROP; the rest of it is discarded while the
     * board is unsynced, and a new session works. */
    make_msg(msg, 3000, 5);
    CHECK_EQ(exchange(&host, &board, &st, msg, 3000), (int32_t)P9LINK_CTL_LEN);
    CHECK_EQ(p9link_ctl_code(host.buf, P9LINK_CTL_LEN), P9LINK_DROP);
    CHECK_EQ(st.drops, 1);
    while (p9link_tx_busy(&host.tx)) exchange(&host, &board, &st, NULL, 0);
    /* a size field < 7 is refused too */
    session(&host, &board, &st);
    make_msg(msg, 5, 6);
    CHECK_EQ(exchange(&host, &board, &st, msg, 5), (int32_t)P9LINK_CTL_LEN);
    CHECK_EQ(p9link_ctl_code(host.buf, P9LINK_CTL_LEN), P9LINK_DROP);
    /* garbage meanwhile (a frame of 9P-looking bytes) is not taken */
    make_msg(msg, 40, 7);
    CHECK_EQ(exchange(&host, &board, &st, msg, 40), 0);
    CHECK(board.rx.discarded > 0);
    session(&host, &board, &st);
    make_msg(msg, 100, 8);
    CHECK_EQ(exchange(&host, &board, &st, msg, 100), 100);
    uint32_t before = st.msgs;

    /* 3. The board restarts while the host is sending a message: the host
     * sees RESTARTED, the board never takes the tail of that message for one. */
    make_msg(msg, 900, 9);
    p9link_tx_start(&host.tx, msg, 900);
    for (int i = 0; i < 50; i++) {
        vclock++;
        frame_poll(&host.link);
        p9link_tx_poll(&host.tx, &host.link);
        board_step(&board, &st);
    }
    CHECK(host.tx.off > 0 && host.tx.off < 900);
    end_init(&board, &bh, &hb, BOARD_CAP); /* reboot: fresh link and rx */
    int32_t n = exchange(&host, &board, &st, NULL, 0);
    CHECK_EQ(n, P9LINK_RESTARTED);
    while (p9link_tx_busy(&host.tx)) exchange(&host, &board, &st, NULL, 0);
    CHECK_EQ(st.msgs, before);
    session(&host, &board, &st);
    make_msg(msg, 333, 10);
    CHECK_EQ(exchange(&host, &board, &st, msg, 333), 333);
    CHECK_EQ(st.msgs, before + 1);
    msg[4]++;
    CHECK(memcmp(host.buf, msg, 333) == 0);

    free(hb.q);
    free(bh.q);
    return check_done("test_p9link");
}
