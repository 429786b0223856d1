/* Stop-and-wait ARQ over COBS frames.  One frame in flight per direction:
 * at UART rates a 256-byte frame takes ~22 ms at 115200 baud and its ACK
 * under 1 ms, so a window would gain a few percent for a lot of RAM and
 * state; the bound on added latency also stays a one-line formula. */
#include <string.h>

#include "steadyfs/crc32.h"
#include "steadyfs/frame.h"

#define FRAME_READ_CHUNK 32u

static int send_frame(struct frame_link *l, const uint8_t *f, size_t n)
{
    static const uint8_t delim = 0;
    /* Leading delimiter: line noise since the last frame is cut off here
     * instead of corrupting this frame. */
    int rc = l->io.put(l->io.user, &delim, 1);
    if (rc >= 0) rc = cobs_encode_put(f, n, l->io.put, l->io.user);
    if (rc >= 0) rc = l->io.put(l->io.user, &delim, 1);
    if (rc < 0) {
        l->state = FRAME_E_IO;
        return FRAME_E_IO;
    }
    return 0;
}

static void seal(uint8_t *f, size_t body)
{
    uint32_t crc = steady_crc32(0, f, body);
    for (unsigned i = 0; i < 4; i++) f[body + i] = (uint8_t)(crc >> (8 * i));
}

static void send_ctl(struct frame_link *l, uint8_t kind, uint8_t seq)
{
    uint8_t f[FRAME_OVERHEAD] = { kind, seq };
    seal(f, FRAME_HDR);
    if (send_frame(l, f, sizeof f) == 0) l->stats.acks_sent++;
}

/* Puts a frame in the transmit slot and sends it the first time. */
static void start_tx(struct frame_link *l, uint8_t kind, const uint8_t *data, size_t n)
{
    l->tx[0] = kind;
    l->tx[1] = l->tx_seq;
    if (n) memcpy(l->tx + FRAME_HDR, data, n);
    seal(l->tx, FRAME_HDR + n);
    l->tx_len = (uint16_t)(FRAME_OVERHEAD + n);
    l->retries = 0;
    l->tx_unsent = false;
    l->tx_time = l->io.now_ms(l->io.user);
    if (send_frame(l, l->tx, l->tx_len) == 0) l->stats.frames_sent++;
}

int frame_init(struct frame_link *l, const struct frame_io *io, const struct frame_cfg *cfg,
               uint8_t *mem, size_t memlen)
{
    if (l == NULL || io == NULL || cfg == NULL || mem == NULL || io->put == NULL ||
        io->get == NULL || io->now_ms == NULL || cfg->mtu == 0 || cfg->mtu > FRAME_MTU_MAX ||
        cfg->rto_ms == 0 || memlen < FRAME_MEM(cfg->mtu))
        return FRAME_E_INVAL;
    memset(l, 0, sizeof *l);
    l->io = *io;
    l->cfg = *cfg;
    size_t fl = (size_t)cfg->mtu + FRAME_OVERHEAD;
    l->tx = mem;
    cobs_dec_init(&l->dec, mem + fl, (uint16_t)fl);
    l->rxd = mem + 2 * fl;
    frame_restart(l);
    return 0;
}

void frame_restart(struct frame_link *l)
{
    l->state = 0;
    l->rx_synced = false;
    /* The RESET goes out on the first poll, so init never calls put(). */
    l->tx[0] = FRAME_K_RESET;
    l->tx[1] = l->tx_seq;
    seal(l->tx, FRAME_HDR);
    l->tx_len = FRAME_OVERHEAD;
    l->retries = 0;
    l->tx_unsent = true;
}

bool frame_tx_idle(const struct frame_link *l)
{
    return l->tx_len == 0;
}

int frame_write(struct frame_link *l, const uint8_t *data, size_t len)
{
    if (l->state < 0) return l->state;
    if (l->tx_len != 0 || len == 0) return 0;
    size_t n = len < l->cfg.mtu ? len : l->cfg.mtu;
    start_tx(l, FRAME_K_DATA, data, n);
    return l->state < 0 ? l->state : (int)n;
}

int frame_read(struct frame_link *l, uint8_t *buf, size_t cap)
{
    size_t n = (size_t)(l->rxd_len - l->rxd_off);
    if (n > cap) n = cap;
    if (n) memcpy(buf, l->rxd + l->rxd_off, n);
    l->rxd_off = (uint16_t)(l->rxd_off + n);
    if (l->rxd_off == l->rxd_len) l->rxd_off = l->rxd_len = 0;
    return (int)n;
}

static void on_frame(struct frame_link *l, const uint8_t *f, size_t n)
{
    if (n < FRAME_OVERHEAD) {
        l->stats.bad_frames++;
        return;
    }
    size_t body = n - FRAME_CRC;
    uint32_t crc = steady_crc32(0, f, body);
    uint32_t got = (uint32_t)f[body] | (uint32_t)f[body + 1] << 8 |
                   (uint32_t)f[body + 2] << 16 | (uint32_t)f[body + 3] << 24;
    if (crc != got) {
        l->stats.crc_errors++;
        return;
    }
    uint8_t kind = f[0], seq = f[1];
    size_t plen = body - FRAME_HDR;
    switch (kind) {
    case FRAME_K_ACK:
    case FRAME_K_RACK:
        /* An ACK matches only the frame in flight of the same kind, so a
         * stale DATA ACK can never complete a RESET. */
        if (l->tx_len != 0 && seq == l->tx_seq &&
            (l->tx[0] == FRAME_K_RESET) == (kind == FRAME_K_RACK)) {
            l->tx_len = 0;
            l->tx_seq++;
        }
        break;
    case FRAME_K_RESET:
        /* Idempotent, so a retransmitted RESET is harmless: on a FIFO line
         * all its copies arrive before the peer's next DATA. */
        l->rx_expect = (uint8_t)(seq + 1u);
        l->rx_synced = true;
        l->stats.resets++;
        send_ctl(l, FRAME_K_RACK, seq);
        break;
    case FRAME_K_DATA:
        if (plen > l->cfg.mtu) {
            l->stats.bad_frames++;
        } else if (l->rx_synced && seq == (uint8_t)(l->rx_expect - 1u)) {
            /* Our ACK was lost: acknowledge again, deliver nothing. */
            l->stats.duplicates++;
            send_ctl(l, FRAME_K_ACK, seq);
        } else if (!l->rx_synced || seq == l->rx_expect) {
            if (l->rxd_len != 0) {
                /* Reader is behind: no ACK, the peer retransmits later. */
                l->stats.dropped_busy++;
                break;
            }
            memcpy(l->rxd, f + FRAME_HDR, plen);
            l->rxd_len = (uint16_t)plen;
            l->rxd_off = 0;
            l->rx_expect = (uint8_t)(seq + 1u);
            l->rx_synced = true;
            l->stats.delivered_bytes += (uint32_t)plen;
            send_ctl(l, FRAME_K_ACK, seq);
        } else {
            l->stats.bad_frames++;
        }
        break;
    default:
        l->stats.bad_frames++;
        break;
    }
}

int frame_poll(struct frame_link *l)
{
    if (l->state < 0) return l->state;
    uint8_t chunk[FRAME_READ_CHUNK];
    size_t budget = 2u * FRAME_WIRE_MAX((size_t)l->cfg.mtu);
    while (budget > 0 && l->state == 0) {
        size_t want = budget < sizeof chunk ? budget : sizeof chunk;
        int got = l->io.get(l->io.user, chunk, want);
        if (got < 0) {
            l->state = FRAME_E_IO;
            break;
        }
        if (got == 0) break;
        budget -= (size_t)got;
        for (int i = 0; i < got; i++) {
            int rc = cobs_dec_byte(&l->dec, chunk[i]);
            if (rc > 0) on_frame(l, l->dec.buf, (size_t)rc);
            else if (rc == COBS_BAD) l->stats.bad_frames++;
        }
    }
    if (l->state != 0 || l->tx_len == 0) return l->state;
    uint32_t now = l->io.now_ms(l->io.user);
    if (l->tx_unsent) {
        l->tx_unsent = false;
        l->tx_time = now;
        if (send_frame(l, l->tx, l->tx_len) == 0) l->stats.frames_sent++;
    } else if ((uint32_t)(now - l->tx_time) >= l->cfg.rto_ms) {
        /* 1 + max_retries sends, each given rto_ms: then the link is
         * declared broken instead of waiting forever. */
        if (l->retries >= l->cfg.max_retries) {
            l->state = FRAME_E_LINK;
        } else {
            l->retries++;
            l->stats.retransmits++;
            l->tx_time = now;
            send_frame(l, l->tx, l->tx_len);
        }
    }
    return l->state;
}
