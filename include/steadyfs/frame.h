/* Reliable byte stream over a lossy serial line (UART): the layer under 9P
 * on the firmware's UART0 and in the host relay.  9P frames itself only by
 * its size prefix, so one lost or corrupted byte on a raw UART would
 * desynchronise it for good; this layer restores message boundaries
 * (COBS + 0x00 delimiter), detects damage (CRC-32) and repairs it
 * (stop-and-wait ARQ: sequence number, acknowledgement, retransmission
 * after a timeout, bounded retries, duplicate suppression).  Both ends run
 * the same code; everything is driven by three caller callbacks and lives
 * in caller memory.  Freestanding.
 *
 * Frame on the wire (see docs/P9.md):
 *   0x00  COBS( kind[1] seq[1] payload[0..mtu] crc32[4] )  0x00
 * crc32 is IEEE 802.3 (reflected, as zlib) over kind..payload, little-endian.
 * kind: FRAME_K_DATA, FRAME_K_ACK, FRAME_K_RESET, FRAME_K_RACK.
 *
 * RAM: sizeof(struct frame_link) (96 bytes on Cortex-M3, 128 on x86-64)
 * plus FRAME_MEM(mtu) = 3*mtu + 12 bytes of caller buffer (transmit frame,
 * receive frame, delivered payload), plus under 256 bytes of stack in
 * frame_poll (its 32-byte read chunk and the 32-byte COBS staging buffer
 * of a retransmission; -fstack-usage).  mtu 256 -> 96 + 780 = 876 bytes.
 *
 * Added latency per frame (error-free link, b = line rate in bytes/s):
 *   (FRAME_WIRE_MAX(n) + FRAME_WIRE_ACK) / b + peer turnaround,
 * and with losses at most (1 + max_retries) * rto_ms before the frame is
 * delivered or the link reports FRAME_E_LINK.
 */
#ifndef STEADYFS_FRAME_H
#define STEADYFS_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- CRC-32 (IEEE 802.3 / zlib) ---- */

/* ---- COBS (Cheshire & Baker, 1999) ---- */
/* Encoded size of n bytes, without delimiters. */
#define COBS_MAX(n) ((n) + (n) / 254u + 1u)
/* Encodes src[0..n) into out[0..cap) without delimiters; returns the
 * encoded length, or 0 if cap is too small. */
size_t cobs_encode(const uint8_t *src, size_t n, uint8_t *out, size_t cap);
/* Encodes src[0..n) through put() in small batches (no frame-sized
 * buffer).  Returns 0 or put()'s negative error. */
typedef int (*frame_put_fn)(void *user, const uint8_t *buf, size_t len);
int cobs_encode_put(const uint8_t *src, size_t n, frame_put_fn put, void *user);

/* Byte-at-a-time decoder into buf[0..cap).  A 0x00 ends a frame. */
struct cobs_dec {
    uint8_t *buf;
    uint16_t cap, len;
    uint8_t code, left;   /* current block's code byte and bytes still to copy */
    bool discard;         /* overflowed or malformed: skip to the next 0x00 */
};
void cobs_dec_init(struct cobs_dec *d, uint8_t *buf, uint16_t cap);
/* Returns the decoded length (> 0) when b completes a frame (in buf), 0 if
 * more bytes are needed (empty frames are skipped), COBS_BAD when b ends a
 * malformed or oversized frame. */
#define COBS_BAD (-1)
int cobs_dec_byte(struct cobs_dec *d, uint8_t b);

/* ---- the link ---- */
enum frame_kind {
    FRAME_K_DATA = 1,   /* seq, payload: deliver once, in order */
    FRAME_K_ACK = 2,    /* seq of the DATA frame received */
    FRAME_K_RESET = 3,  /* seq: "my next DATA is seq+1", resynchronises after a reboot */
    FRAME_K_RACK = 4,   /* seq of the RESET received */
};

#define FRAME_HDR       2u     /* kind, seq */
#define FRAME_CRC       4u
#define FRAME_OVERHEAD  (FRAME_HDR + FRAME_CRC)
#define FRAME_MTU_MAX   4096u
/* Caller buffer for a link of this mtu. */
#define FRAME_MEM(mtu)  (3u * (mtu) + 2u * FRAME_OVERHEAD)
/* Bytes on the wire for a DATA frame of n payload bytes (two delimiters,
 * COBS overhead), and for an ACK. */
#define FRAME_WIRE_MAX(n) (COBS_MAX((n) + FRAME_OVERHEAD) + 2u)
#define FRAME_WIRE_ACK    (FRAME_WIRE_MAX(0u))

enum frame_err {
    FRAME_E_LINK = -20,   /* retries exhausted: the peer is gone or the line is too bad */
    FRAME_E_IO = -21,     /* put() or get() failed */
    FRAME_E_INVAL = -22,  /* bad configuration or buffer */
};

struct frame_io {
    void *user;
    /* Sends all len bytes (may block on a UART FIFO); negative on error. */
    int (*put)(void *user, const uint8_t *buf, size_t len);
    /* Non-blocking: copies up to cap received bytes, returns how many (0:
     * none now), negative on error. */
    int (*get)(void *user, uint8_t *buf, size_t cap);
    /* Milliseconds on any monotonic clock; wraps at 2^32. */
    uint32_t (*now_ms)(void *user);
};

struct frame_cfg {
    uint16_t mtu;          /* payload bytes per frame, 1..FRAME_MTU_MAX */
    uint16_t rto_ms;       /* retransmission timeout, > 0 */
    uint8_t max_retries;   /* retransmissions of one frame before FRAME_E_LINK */
};

struct frame_stats {
    uint32_t frames_sent, retransmits, acks_sent;
    uint32_t crc_errors, bad_frames, duplicates, dropped_busy, delivered_bytes;
    /* RESET frames received: each restart of the peer (reboot, or
     * frame_restart after a link failure), plus retransmitted copies.  All
     * copies arrive before the peer's next DATA, so a user that watches
     * this count to learn "the peer started over" (p9link.h) sees every
     * restart before any data sent after it. */
    uint32_t resets;
};

struct frame_link {
    struct frame_io io;
    struct frame_cfg cfg;
    uint8_t *tx;          /* pending frame: kind, seq, payload, crc (mtu + 6) */
    uint8_t *rxd;         /* delivered payload not yet read (mtu) */
    struct cobs_dec dec;  /* over the receive frame buffer (mtu + 6) */
    uint32_t tx_time;     /* when the pending frame was last sent */
    uint16_t tx_len;      /* 0: no frame pending */
    uint16_t rxd_len, rxd_off;
    uint8_t tx_seq;       /* seq of the pending frame, or of the next one */
    uint8_t retries;
    uint8_t rx_expect;
    bool rx_synced;       /* false after init: accept the first DATA whatever its seq */
    bool tx_unsent;       /* pending frame (the RESET) not sent yet */
    int state;            /* 0, or FRAME_E_LINK / FRAME_E_IO once failed */
    struct frame_stats stats;
};

/* mem: FRAME_MEM(cfg->mtu) bytes, owned by the link until it is dropped.
 * Queues a RESET frame (sent by the first frame_poll): frame_write accepts
 * data once the peer has acknowledged it. */
int frame_init(struct frame_link *l, const struct frame_io *io, const struct frame_cfg *cfg,
               uint8_t *mem, size_t memlen);
/* After FRAME_E_LINK: clears the failure and starts over with a RESET. */
void frame_restart(struct frame_link *l);
/* Queues up to mtu bytes of data[0..len) if no frame is in flight and sends
 * them.  Returns the bytes taken (0: busy, poll and retry), or a negative
 * frame_err once the link has failed. */
int frame_write(struct frame_link *l, const uint8_t *data, size_t len);
/* Copies up to cap delivered bytes into buf.  Returns the count (0: none). */
int frame_read(struct frame_link *l, uint8_t *buf, size_t cap);
/* Processes received bytes (at most 2 * FRAME_WIRE_MAX(mtu) per call, so a
 * call's time is bounded), acknowledges, retransmits on timeout.  Returns 0
 * or the link's failure. */
int frame_poll(struct frame_link *l);
/* True when nothing is in flight (all written data acknowledged). */
bool frame_tx_idle(const struct frame_link *l);

#endif
