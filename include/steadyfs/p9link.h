/* 9P messages over a frame link (frame.h), with session control: the layer
 * between the framing and the 9P server on the firmware's UART0, and
 * between the framing and TCP in the host relay (steady firmware run
 * --listen).  Both ends run this code.  Freestanding.
 *
 * The framing gives a reliable, ordered byte stream; this layer cuts it
 * back into size-prefixed messages and adds the one thing 9P over TCP gets
 * from the connection itself: a session boundary.  A TCP client that goes
 * away must make the server drop its fids (and commit its open files), and
 * replies still in flight for it must not reach the next client; after
 * either end restarts, neither may take the other's leftovers for a message.
 *
 * Rules on the wire:
 *   - every message (9P or control) starts at the start of a frame, and a
 *     frame never holds bytes of two messages;
 *   - a control message is 8 bytes: size field 0 (no 9P message is shorter
 *     than 7 bytes, so it cannot be one), then "sfL" and a code:
 *       SESS  host -> board: a new session starts (the previous client is
 *             gone): drop every fid; board -> host: the echo, "done";
 *       HALT  host -> board: drop every fid, unmount, stop;
 *       DROP  board -> host: the session was dropped (a message it could
 *             not take, or the server asked to disconnect): close the client.
 *   - a receiver that lost its place (it or its peer restarted, or it
 *     dropped a session) is "unsynced": it discards whole frames until one
 *     is exactly a SESS control message, and is in step again from there.
 *     Restarts are seen through the frame layer's RESET count, which
 *     changes before any data the restarted peer sends.
 *
 * RAM: sizeof(struct p9link_rx) (28 bytes on Cortex-M3) + the message
 * buffer (cap bytes: the largest message taken, the 9P msize), and
 * sizeof(struct p9link_tx) (12 bytes); no stack beyond frame_read/write.
 */
#ifndef STEADYFS_P9LINK_H
#define STEADYFS_P9LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "steadyfs/frame.h"

#define P9LINK_CTL_LEN 8u
/* The smallest 9P message: size[4] type[1] tag[2]. */
#define P9LINK_MSG_MIN 7u

enum p9link_ctl {
    P9LINK_SESS = 'S',
    P9LINK_HALT = 'H',
    P9LINK_DROP = 'D',
};

enum p9link_rc {
    P9LINK_RESTARTED = -40, /* the peer restarted: unsynced, the session is gone */
    P9LINK_E_SIZE = -41,    /* a size field < 7 (not 0) or > cap: unsynced */
};

struct p9link_rx {
    uint8_t *buf;       /* the message being received (cap bytes) */
    uint32_t cap;
    uint32_t len;       /* bytes of it so far */
    uint32_t want;      /* its size, once the size field is in; 0 before */
    uint32_t resets_seen;
    uint32_t discarded; /* frames discarded while unsynced (statistics) */
    bool synced;
    bool complete;      /* buf holds a whole message the caller has */
};

/* Starts unsynced: the first thing taken is a SESS control frame. */
void p9link_rx_init(struct p9link_rx *r, uint8_t *buf, uint32_t cap, const struct frame_link *l);
/* Discard until the next SESS (after this end dropped a session). */
void p9link_rx_unsync(struct p9link_rx *r);
/* Takes delivered bytes from the link.  Returns the length of a whole
 * message now in r->buf (a 9P message, or a control message: see
 * p9link_ctl_code), 0 if none is complete yet, or a negative p9link_rc.
 * The message stays in buf until the next call. */
int32_t p9link_rx_poll(struct p9link_rx *r, struct frame_link *l);

/* The 8 bytes of control message `code` into out. */
void p9link_ctl(uint8_t out[P9LINK_CTL_LEN], enum p9link_ctl code);
/* The code of a control message, or 0 if buf[0..len) is not one. */
int p9link_ctl_code(const uint8_t *buf, uint32_t len);

/* Sends one message through the link, frame by frame (the caller keeps
 * buf until it is done). */
struct p9link_tx {
    const uint8_t *buf;
    uint32_t len, off;
};
void p9link_tx_start(struct p9link_tx *t, const uint8_t *buf, uint32_t len);
/* Hands the link what it takes now.  Returns 1 once every byte was taken
 * (the link may still be waiting for the last acknowledgement), 0 while
 * more is to go, or the link's negative frame_err. */
int p9link_tx_poll(struct p9link_tx *t, struct frame_link *l);
static inline bool p9link_tx_busy(const struct p9link_tx *t) { return t->off < t->len; }

#endif
