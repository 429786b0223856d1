/*
 * The service on UART0: 9P messages through the framing layer (frame.h:
 * COBS, CRC-32, stop-and-wait ARQ) and the message/session layer
 * (p9link.h), handed one whole message at a time to a service -- the 9P
 * server (p9srv.h), or the message echo that tests the plumbing.  The host
 * end is the relay of `steady firmware run --listen` (src/host/main/
 * relay_main.c), which runs the same two layers.
 *
 * Session control from the host: SESS (a client went away or a new one
 * comes: the service's disconnect drops every fid and commits open files,
 * the board answers SESS), HALT (disconnect, then fw_serve returns so the
 * caller unmounts and stops).  A message the board cannot take (size field
 * < 7 or > the buffer) or one the service refuses ends the session with
 * DROP.  A restart of the host's link end is a session end too.
 *
 * RAM: FRAME_MEM(FW_LINK_MTU) = 780 bytes of link buffers + struct
 * frame_link (96) + p9link state (40) + 8 bytes of control message, all
 * static here; the message buffer is the caller's (the 9P msize: requests
 * are received into it and replies built in place).
 */
#ifndef FW_SERVE_H
#define FW_SERVE_H

#include <stdint.h>

#include "steadyfs/frame.h"

/* Frame payload: 256 bytes keep the link's buffers at 780 B (3 x 260) and a
 * frame under 23 ms at 115200 baud; the per-frame overhead (8 bytes on the
 * wire + an 8-byte ACK) stays ~6 %.  Timeout 100 ms: above the time of a
 * whole frame at 115200 baud, and at what QEMU's one-byte UART model
 * delivers to the board (~10 KB/s: a frame in ~25 ms), so a slow frame is
 * not sent twice; 30 retries: the link survives 3 s of silence (a board
 * reboot takes ~10 ms).  The relay uses the same figures. */
#define FW_LINK_MTU 256u
#define FW_LINK_RTO_MS 100u
#define FW_LINK_RETRIES 30u

typedef struct fw_svc {
    /* One whole message in[0..n); the reply into out[0..cap) (out == in).
     * Returns the reply length, or < 0: drop the session. */
    int32_t (*handle)(void *ctx, const uint8_t *in, uint32_t n, uint8_t *out, uint32_t cap);
    /* The session ended: forget the client. */
    void (*disconnect)(void *ctx);
    /* Idle time, nothing to receive or send: bounded background work.
     * Returns non-zero if it did some (it is called again soon). May be NULL. */
    int (*idle)(void *ctx);
    void *ctx;
} fw_svc;

typedef struct fw_serve_stats {
    uint32_t sessions, msgs, drops, restarts, link_failures, idle_steps;
    uint32_t bytes_in, bytes_out;
} fw_serve_stats;

/* Serves until the host sends HALT.  buf: cap bytes, the largest message. */
void fw_serve(const fw_svc *svc, uint8_t *buf, uint32_t cap, fw_serve_stats *st);
/* Frame-layer statistics of the link (retransmits, CRC errors, ...). */
const struct frame_stats *fw_serve_link_stats(void);

/* The message echo service: the reply is the request with its type byte
 * plus one (so a reply is never mistaken for the request). */
extern const fw_svc fw_echo_svc;

#endif
