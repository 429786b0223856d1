/* UART framing layer: CRC and COBS known answers, then two symmetric
 * endpoints over a simulated serial line (seeded) that drops, corrupts,
 * duplicates and reorders bytes; the streams delivered in both directions
 * must be byte-exact, and a dead line must end in FRAME_E_LINK within
 * (1 + max_retries) * rto of virtual time, not hang. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "steadyfs/crc32.h"
#include "steadyfs/frame.h"

/* ---- the simulated line ---- */
#define QCAP (1u << 20)

struct line {
    uint8_t *q;
    uint32_t head, tail;   /* bytes in flight: q[head..tail) */
    uint32_t rng;
    /* per-byte fault probabilities in parts per million */
    uint32_t drop, corrupt, dup, reorder;
    bool dead;
    bool held_valid;
    uint8_t held;
    uint32_t faults;
};

static uint32_t vclock;   /* virtual milliseconds */

static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void line_push(struct line *ln, uint8_t b)
{
    if (ln->tail - ln->head < QCAP) ln->q[ln->tail++ % QCAP] = b;
}

static int line_put(void *user, const uint8_t *buf, size_t len)
{
    struct line *ln = user;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = buf[i];
        if (ln->dead) continue;
        uint32_t r = rnd(&ln->rng) % 1000000u;
        if (r < ln->drop) { ln->faults++; continue; }
        r -= ln->drop;
        if (r < ln->corrupt) { ln->faults++; b ^= (uint8_t)(1u << (rnd(&ln->rng) % 8)); }
        else if ((r -= ln->corrupt) < ln->dup) { ln->faults++; line_push(ln, b); }
        else if ((r -= ln->dup) < ln->reorder && !ln->held_valid) {
            ln->faults++;
            ln->held = b;          /* sent after the next byte */
            ln->held_valid = true;
            continue;
        }
        line_push(ln, b);
        if (ln->held_valid) {
            line_push(ln, ln->held);
            ln->held_valid = false;
        }
    }
    return 0;
}

struct end {
    struct line *in;   /* where get() reads */
};

static int line_get(void *user, uint8_t *buf, size_t cap)
{
    struct end *e = user;
    struct line *ln = e->in;
    size_t n = 0;
    /* A UART delivers a few bytes per poll, not the whole backlog. */
    size_t burst = 1 + rnd(&ln->rng) % 48u;
    while (n < cap && n < burst && ln->head != ln->tail) buf[n++] = ln->q[ln->head++ % QCAP];
    return (int)n;
}

static uint32_t now_ms(void *user)
{
    (void)user;
    return vclock;
}

/* An endpoint with its own outgoing line: put() writes to `out`. */
struct node {
    struct frame_link link;
    struct end end;
    uint8_t *mem;
    const uint8_t *src;
    size_t src_len, sent;
    uint8_t *sink;
    size_t got, sink_cap;
};

static int put_to(void *user, const uint8_t *b, size_t n);
struct io_user {
    struct line *out;
    struct end *in;
};
static int put_to(void *user, const uint8_t *b, size_t n) { return line_put(((struct io_user *)user)->out, b, n); }
static int get_from(void *user, uint8_t *b, size_t cap) { return line_get(((struct io_user *)user)->in, b, cap); }

static void node_init(struct node *nd, struct io_user *u, const struct frame_cfg *cfg)
{
    struct frame_io io = { u, put_to, get_from, now_ms };
    nd->mem = malloc(FRAME_MEM(cfg->mtu));
    CHECK_EQ(frame_init(&nd->link, &io, cfg, nd->mem, FRAME_MEM(cfg->mtu)), 0);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rnd(&seed);
        /* plenty of zeros and 0xFF runs so COBS is exercised */
        p[i] = (r % 5 == 0) ? 0 : (r % 7 == 0) ? 0xFF : (uint8_t)(r >> 8);
    }
}

/* One step of an endpoint: poll, push what fits, drain what arrived.  Returns the poll result. */
static int node_step(struct node *nd, bool reading)
{
    int rc = frame_poll(&nd->link);
    if (rc < 0) return rc;
    if (nd->sent < nd->src_len) {
        int w = frame_write(&nd->link, nd->src + nd->sent, nd->src_len - nd->sent);
        if (w < 0) return w;
        nd->sent += (size_t)w;
    }
    if (reading && nd->got < nd->sink_cap) {
        int r = frame_read(&nd->link, nd->sink + nd->got, nd->sink_cap - nd->got);
        nd->got += (size_t)r;
    }
    return 0;
}

struct result {
    bool exact;
    uint32_t steps, retransmits, crc_errors, bad, dups, busy, faults;
    int err;
};

/* Sends n bytes each way between two endpoints over two lines. */
static struct result transfer(const struct frame_cfg *cfg, size_t n, uint32_t seed,
                              uint32_t drop, uint32_t corrupt, uint32_t dup, uint32_t reorder,
                              uint32_t ack_drop_only, uint32_t slow_reader)
{
    struct line ab = { malloc(QCAP), 0, 0, seed | 1u, drop, corrupt, dup, reorder, false, false, 0, 0 };
    struct line ba = { malloc(QCAP), 0, 0, (seed * 7919u) | 1u, drop, corrupt, dup, reorder, false, false, 0, 0 };
    if (ack_drop_only) {
        ab.drop = ab.corrupt = ab.dup = ab.reorder = 0;
        ba.drop = ack_drop_only;
    }
    struct end ea = { &ba }, eb = { &ab };
    struct io_user ua = { &ab, &ea }, ub = { &ba, &eb };
    struct node a = { 0 }, b = { 0 };
    node_init(&a, &ua, cfg);
    node_init(&b, &ub, cfg);
    uint8_t *sa = malloc(n), *sb = malloc(n);
    fill(sa, n, seed + 1);
    fill(sb, n, seed + 2);
    a.src = sa; a.src_len = n; a.sink = malloc(n); a.sink_cap = n;
    b.src = sb; b.src_len = n; b.sink = malloc(n); b.sink_cap = n;
    struct result res = { 0 };
    uint32_t limit = 2000000;
    for (res.steps = 0; res.steps < limit; res.steps++) {
        vclock++;
        int ra = node_step(&a, true);
        /* slow_reader: B reads only every Nth step, so its delivery slot is
         * often full and A must retransmit. */
        int rb = node_step(&b, slow_reader == 0 || res.steps % slow_reader == 0);
        if (ra < 0 || rb < 0) {
            res.err = ra < 0 ? ra : rb;
            break;
        }
        if (a.got == n && b.got == n && frame_tx_idle(&a.link) && frame_tx_idle(&b.link)) break;
    }
    res.exact = a.got == n && b.got == n && memcmp(a.sink, sb, n) == 0 && memcmp(b.sink, sa, n) == 0;
    res.retransmits = a.link.stats.retransmits + b.link.stats.retransmits;
    res.crc_errors = a.link.stats.crc_errors + b.link.stats.crc_errors;
    res.bad = a.link.stats.bad_frames + b.link.stats.bad_frames;
    res.dups = a.link.stats.duplicates + b.link.stats.duplicates;
    res.busy = a.link.stats.dropped_busy + b.link.stats.dropped_busy;
    res.faults = ab.faults + ba.faults;
    free(ab.q); free(ba.q); free(sa); free(sb); free(a.sink); free(b.sink); free(a.mem); free(b.mem);
    return res;
}

static void test_crc_cobs(void)
{
    CHECK_EQ(steady_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
    CHECK_EQ(steady_crc32(0, NULL, 0), 0);
    /* running CRC equals one-shot */
    CHECK_EQ(steady_crc32(steady_crc32(0, (const uint8_t *)"1234", 4), (const uint8_t *)"56789", 5), 0xCBF43926u);

    struct { const uint8_t *in; size_t n; const uint8_t *out; size_t m; } kat[] = {
        { (const uint8_t *)"\x00", 1, (const uint8_t *)"\x01\x01", 2 },
        { (const uint8_t *)"\x00\x00", 2, (const uint8_t *)"\x01\x01\x01", 3 },
        { (const uint8_t *)"\x11\x22\x00\x33", 4, (const uint8_t *)"\x03\x11\x22\x02\x33", 5 },
        { (const uint8_t *)"\x11\x22\x33\x44", 4, (const uint8_t *)"\x05\x11\x22\x33\x44", 5 },
        { (const uint8_t *)"\x11\x00\x00\x00", 4, (const uint8_t *)"\x02\x11\x01\x01\x01", 5 },
        { (const uint8_t *)"", 0, (const uint8_t *)"\x01", 1 },
    };
    uint8_t out[600], dec[600];
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        size_t m = cobs_encode(kat[i].in, kat[i].n, out, sizeof out);
        CHECK_EQ(m, kat[i].m);
        CHECK(memcmp(out, kat[i].out, kat[i].m) == 0);
    }
    /* 254 non-zero bytes: one full block; 255: a full block then 02 FF. */
    uint8_t seq[300];
    for (int i = 0; i < 300; i++) seq[i] = (uint8_t)(i % 255 + 1);
    CHECK_EQ(cobs_encode(seq, 254, out, sizeof out), 255);
    CHECK_EQ(out[0], 0xFF);
    CHECK_EQ(out[254], 254);
    CHECK_EQ(cobs_encode(seq, 255, out, sizeof out), 257);
    CHECK_EQ(out[255], 0x02);
    CHECK_EQ(out[256], 0xFF);
    CHECK_EQ(cobs_encode(seq, 255, out, 256), 0);   /* too small */

    /* Random round trips through the byte decoder, lengths 1..600. */
    uint32_t s = 99;
    struct cobs_dec d;
    int ok = 0;
    for (int iter = 0; iter < 2000; iter++) {
        size_t n = 1 + rnd(&s) % 520;
        uint8_t in[520];
        for (size_t i = 0; i < n; i++) in[i] = (rnd(&s) % 3 == 0) ? 0 : (uint8_t)rnd(&s);
        if (iter % 10 == 0) memset(in, 0x5A, n);   /* long zero-free runs */
        size_t m = cobs_encode(in, n, out, sizeof out);
        CHECK(m > 0 && m <= COBS_MAX(n));
        CHECK(memchr(out, 0, m) == NULL);
        cobs_dec_init(&d, dec, 520);
        int rc = 0;
        for (size_t i = 0; i < m; i++) rc |= cobs_dec_byte(&d, out[i]);
        CHECK_EQ(rc, 0);
        rc = cobs_dec_byte(&d, 0);
        if (rc == (int)n && memcmp(dec, in, n) == 0) ok++;
    }
    CHECK_EQ(ok, 2000);
    /* Overflow and a block cut short by a delimiter are reported, then the
     * decoder is clean for the next frame. */
    cobs_dec_init(&d, dec, 4);
    for (int i = 0; i < 5; i++) cobs_dec_byte(&d, 0x06);
    CHECK_EQ(cobs_dec_byte(&d, 0), COBS_BAD);
    CHECK_EQ(cobs_dec_byte(&d, 0x03), 0);
    CHECK_EQ(cobs_dec_byte(&d, 0x41), 0);
    CHECK_EQ(cobs_dec_byte(&d, 0), COBS_BAD);
    CHECK_EQ(cobs_dec_byte(&d, 0x02), 0);
    CHECK_EQ(cobs_dec_byte(&d, 0x41), 0);
    CHECK_EQ(cobs_dec_byte(&d, 0), 1);
    CHECK_EQ(dec[0], 0x41);
    CHECK_EQ(cobs_dec_byte(&d, 0), 0);   /* empty frame skipped */
}

static void test_clean_link(void)
{
    struct frame_cfg cfg = { 256, 50, 8 };
    struct result r = transfer(&cfg, 20000, 1, 0, 0, 0, 0, 0, 0);
    CHECK(r.exact);
    CHECK_EQ(r.err, 0);
    CHECK_EQ(r.retransmits, 0);
    CHECK_EQ(r.crc_errors, 0);
    CHECK_EQ(r.dups, 0);
    /* the frame format on the wire: one DATA frame's bytes */
    CHECK_EQ(FRAME_WIRE_MAX(256u), 256 + 6 + 2 + 2);
    CHECK_EQ(FRAME_WIRE_ACK, 9);
    CHECK_EQ(FRAME_MEM(256u), 780);
}

static void test_lossy_links(void)
{
    struct frame_cfg cfg = { 128, 40, 30 };
    for (uint32_t seed = 1; seed <= 6; seed++) {
        /* per byte: 0.1% each of drop, corruption, duplication, reordering */
        struct result r = transfer(&cfg, 16384, seed, 1000, 1000, 1000, 1000, 0, 0);
        if (seed == 1)
            printf("0.1%% faults/byte, mtu 128, 2x16 KiB: %u faults, %u retransmits, %u crc errors, "
                   "%u bad frames, %u duplicates, %u ms\n", r.faults, r.retransmits, r.crc_errors, r.bad, r.dups, r.steps);
        CHECK(r.exact);
        CHECK_EQ(r.err, 0);
        CHECK(r.faults > 50);
        CHECK(r.retransmits > 0);
        CHECK(r.crc_errors + r.bad > 0);
    }
    /* A harsh line: 1% of each, small frames. */
    struct frame_cfg small = { 32, 20, 60 };
    for (uint32_t seed = 11; seed <= 13; seed++) {
        struct result r = transfer(&small, 8192, seed, 10000, 10000, 10000, 10000, 0, 0);
        if (seed == 11)
            printf("1%% faults/byte, mtu 32, 2x8 KiB: %u faults, %u retransmits, %u crc errors, "
                   "%u bad frames, %u duplicates, %u ms\n", r.faults, r.retransmits, r.crc_errors, r.bad, r.dups, r.steps);
        CHECK(r.exact);
        CHECK_EQ(r.err, 0);
        CHECK(r.retransmits > 20);
    }
}

static void test_lost_acks_and_slow_reader(void)
{
    struct frame_cfg cfg = { 64, 30, 40 };
    /* Only the B->A line loses bytes: A's DATA arrives, B's ACKs are lost,
     * A retransmits and B must suppress the duplicates. */
    struct result r = transfer(&cfg, 8192, 21, 0, 0, 0, 0, 20000, 0);
    CHECK(r.exact);
    CHECK(r.dups > 0);
    /* B reads only every 97th step: its slot is full, frames go
     * unacknowledged and are sent again; nothing lost or doubled. */
    r = transfer(&cfg, 4096, 22, 0, 0, 0, 0, 0, 97);
    CHECK(r.exact);
    CHECK(r.busy > 0);
}

static void test_dead_link(void)
{
    struct frame_cfg cfg = { 64, 25, 5 };
    struct line ab = { malloc(QCAP), 0, 0, 5, 0, 0, 0, 0, false, false, 0, 0 };
    struct line ba = { malloc(QCAP), 0, 0, 6, 0, 0, 0, 0, false, false, 0, 0 };
    struct end ea = { &ba }, eb = { &ab };
    struct io_user ua = { &ab, &ea }, ub = { &ba, &eb };
    struct node a = { 0 }, b = { 0 };
    node_init(&a, &ua, &cfg);
    node_init(&b, &ub, &cfg);
    uint8_t msg[200];
    fill(msg, sizeof msg, 3);
    a.src = msg; a.src_len = sizeof msg;
    uint8_t sink[200];
    b.sink = sink; b.sink_cap = sizeof sink;
    /* Working at first... */
    for (int i = 0; i < 200 && b.got < 64; i++) {
        vclock++;
        node_step(&a, true);
        node_step(&b, true);
    }
    CHECK(b.got >= 64);
    /* ...then the line goes dead in both directions. */
    ab.dead = ba.dead = true;
    uint32_t t0 = vclock;
    int rc = 0;
    for (int i = 0; i < 100000 && rc == 0; i++) {
        vclock++;
        rc = node_step(&a, true);
        node_step(&b, true);
    }
    CHECK_EQ(rc, FRAME_E_LINK);
    uint32_t took = vclock - t0;
    CHECK(took <= (1u + cfg.max_retries) * cfg.rto_ms + 2u);
    CHECK(took >= cfg.max_retries * cfg.rto_ms);
    CHECK_EQ(frame_write(&a.link, msg, 1), FRAME_E_LINK);
    CHECK_EQ(frame_poll(&a.link), FRAME_E_LINK);

    /* The peer reboots (fresh state, new RESET), the line comes back, A
     * restarts: both directions carry data again. */
    ab.dead = ba.dead = false;
    free(b.mem);
    uint32_t resets_a = a.link.stats.resets;
    node_init(&b, &ub, &cfg);
    frame_restart(&a.link);
    static const uint8_t hello_a[] = "after-reboot-from-a", hello_b[] = "after-reboot-from-b";
    a.src = hello_a; a.src_len = sizeof hello_a; a.sent = 0;
    b.src = hello_b; b.src_len = sizeof hello_b; b.sent = 0;
    uint8_t sa[64], sb[64];
    a.sink = sa; a.sink_cap = sizeof hello_b; a.got = 0;
    b.sink = sb; b.sink_cap = sizeof hello_a; b.got = 0;
    for (int i = 0; i < 5000 && (a.got < a.sink_cap || b.got < b.sink_cap); i++) {
        vclock++;
        CHECK_EQ(node_step(&a, true), 0);
        CHECK_EQ(node_step(&b, true), 0);
    }
    CHECK(a.got == sizeof hello_b && memcmp(sa, hello_b, sizeof hello_b) == 0);
    CHECK(b.got == sizeof hello_a && memcmp(sb, hello_a, sizeof hello_a) == 0);
    /* each side saw the other start over (p9link relies on this count) */
    CHECK(a.link.stats.resets > resets_a);
    CHECK(b.link.stats.resets >= 1);
    free(ab.q); free(ba.q); free(a.mem); free(b.mem);
}

static void test_garbage_input(void)
{
    /* Random bytes into a receiver: counted as bad, never delivered. */
    struct frame_cfg cfg = { 64, 25, 5 };
    struct line in = { malloc(QCAP), 0, 0, 77, 0, 0, 0, 0, false, false, 0, 0 };
    struct line out = { malloc(QCAP), 0, 0, 78, 0, 0, 0, 0, false, false, 0, 0 };
    struct end e = { &in };
    struct io_user u = { &out, &e };
    struct node nd = { 0 };
    node_init(&nd, &u, &cfg);
    uint32_t s = 4242;
    for (int i = 0; i < 100000; i++) line_push(&in, (uint8_t)(rnd(&s) % 3 == 0 ? 0 : rnd(&s)));
    uint8_t sink[64];
    size_t got = 0;
    for (int i = 0; i < 20000 && in.head != in.tail; i++) {
        frame_poll(&nd.link);
        got += (size_t)frame_read(&nd.link, sink, sizeof sink);
    }
    CHECK_EQ(got, 0);
    CHECK(nd.link.stats.crc_errors + nd.link.stats.bad_frames > 1000);
    CHECK(frame_init(&nd.link, &(struct frame_io){ &u, put_to, get_from, now_ms }, &(struct frame_cfg){ 64, 25, 5 }, nd.mem, FRAME_MEM(64u) - 1) == FRAME_E_INVAL);
    free(in.q); free(out.q); free(nd.mem);
}

int main(void)
{
    test_crc_cobs();
    test_clean_link();
    test_lossy_links();
    test_lost_acks_and_slow_reader();
    test_dead_link();
    test_garbage_input();
    return check_done("test_frame");
}
