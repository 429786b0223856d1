/* steady-relay: plain 9P on a TCP port <-> the framed link on the board's
 * UART0 (QEMU's chardev socket).  `steady firmware run --listen` starts it
 * with the two sockets already open (it binds the port and accepts QEMU's
 * UART connection itself, so nothing races) and stops it with SIGTERM.
 *
 * It runs the board's own layers, src/p9/frame.c (COBS, CRC-32,
 * stop-and-wait ARQ) and src/p9/p9link.c (messages, sessions), so what a
 * TCP client sees is exactly `steady serve`'s byte stream.  Clients are
 * served one after another: the board keeps one link by design
 * (docs/P9.md), so while a client is connected a newcomer's connection is
 * closed at once, with a log line, rather than left waiting (a Linux v9fs
 * mount waiting for an accept cannot be interrupted).  Each session starts and ends with SESS: the
 * board drops every fid and commits open files when a client goes away,
 * and replies still in flight for a departed client are dropped here.  One
 * T-message is forwarded at a time and the next only after its reply: the
 * board's server is synchronous, so nothing is lost by it, and the board
 * never has to refuse a frame for want of buffer.
 *
 * A board reboot (QMP system_reset) is seen as the link's RESET: the client
 * is disconnected (its fids died with the board) and the next client finds
 * the rebooted board.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "steadyfs/frame.h"
#include "steadyfs/p9link.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* The peer of a connected socket has closed it (EOF or reset pending). */
static int peer_gone(int fd)
{
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static void logf_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("relay: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

struct relay {
    int uart, lfd, cfd;
    int uart_eof;
    struct frame_link link;
    uint8_t *link_mem;
    struct p9link_rx rx;
    struct p9link_tx tx;
    uint8_t ctl[P9LINK_CTL_LEN];
    uint8_t *tbuf;           /* the client's T-message being read */
    uint32_t tcap, tlen, twant;
    int tready;              /* tbuf holds a whole T not yet forwarded */
    int outstanding;         /* a T was forwarded, its R is not back */
    int sess_pending, echo_owed, halt_pending, halt_sent, board_up;
    unsigned long clients, requests, replies, discarded, dropped_sessions, board_restarts;
    unsigned long client_requests;
};

static int uart_put(void *user, const uint8_t *buf, size_t len)
{
    struct relay *r = user;
    while (len) {
        ssize_t n = send(r->uart, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int uart_get(void *user, uint8_t *buf, size_t cap)
{
    struct relay *r = user;
    if (r->uart_eof)
        return 0;
    ssize_t n = recv(r->uart, buf, cap, MSG_DONTWAIT);
    if (n > 0)
        return (int)n;
    if (n == 0) {
        r->uart_eof = 1; /* QEMU exited: reported by the main loop */
        return 0;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
}

static uint32_t now_ms(void *user)
{
    struct timespec ts;
    (void)user;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static void close_client(struct relay *r, const char *why)
{
    if (r->cfd < 0)
        return;
    close(r->cfd);
    r->cfd = -1;
    logf_("client %lu gone (%s) after %lu requests", r->clients, why, r->client_requests);
    /* A T half-read is dropped; one being sent is finished (the board must
     * get whole messages), its reply dropped.  Then SESS: the board forgets
     * the client's fids and commits its open files now. */
    r->tlen = r->twant = 0;
    r->tready = 0;
    r->sess_pending = 1;
}

static int send_all(int fd, const uint8_t *buf, size_t len)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* A message or event from the board. */
static void from_board(struct relay *r, int32_t n)
{
    if (n == P9LINK_RESTARTED) {
        /* the board's first RESET at boot is no news; copies of one are
         * counted once (board_up is set again by the next echo) */
        if (r->board_up) {
            r->board_restarts++;
            logf_("the board restarted (reset or reboot)");
        }
        r->board_up = 0;
        close_client(r, "the board restarted");
        r->outstanding = 0;
        /* SESS sent before the restart may have died with the old board */
        r->echo_owed = 0;
        r->sess_pending = 1;
        return;
    }
    if (n == P9LINK_E_SIZE) {
        logf_("a message from the board had a bad size: resynchronising");
        close_client(r, "link lost step");
        r->outstanding = 0;
        r->sess_pending = 1;
        return;
    }
    int code = p9link_ctl_code(r->rx.buf, (uint32_t)n);
    if (code == P9LINK_SESS) {
        if (r->echo_owed > 0)
            r->echo_owed--;
        if (!r->echo_owed && !r->board_up) {
            r->board_up = 1;
            logf_("board ready");
        }
        return;
    }
    if (code == P9LINK_DROP) {
        r->dropped_sessions++;
        logf_("the board dropped the session (a message it could not take)");
        close_client(r, "dropped by the board");
        r->outstanding = 0;
        return;
    }
    if (code)
        return;
    if (r->echo_owed || r->cfd < 0 || !r->outstanding) {
        r->discarded++; /* the reply to a client that has gone */
        return;
    }
    r->outstanding = 0;
    r->replies++;
    if (send_all(r->cfd, r->rx.buf, (size_t)n) != 0)
        close_client(r, "write failed");
}

/* Reads what is there of the client's next T-message. */
static void from_client(struct relay *r)
{
    uint32_t need = r->twant ? r->twant - r->tlen : 4u - r->tlen;
    ssize_t n = recv(r->cfd, r->tbuf + r->tlen, need, MSG_DONTWAIT);
    if (n == 0) {
        close_client(r, "disconnected");
        return;
    }
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            close_client(r, strerror(errno));
        return;
    }
    r->tlen += (uint32_t)n;
    if (!r->twant && r->tlen == 4u) {
        uint32_t size = (uint32_t)r->tbuf[0] | (uint32_t)r->tbuf[1] << 8 |
                        (uint32_t)r->tbuf[2] << 16 | (uint32_t)r->tbuf[3] << 24;
        if (size < P9LINK_MSG_MIN || size > r->tcap) {
            logf_("client sent a message size of %u", (unsigned)size);
            close_client(r, "bad message size");
            return;
        }
        r->twant = size;
    }
    if (r->twant && r->tlen == r->twant) {
        r->tready = 1;
        r->tlen = r->twant = 0;
    }
}

/* Starts the next transmission if the link is free: SESS, HALT, a T. */
static void schedule_tx(struct relay *r)
{
    if (p9link_tx_busy(&r->tx))
        return;
    if (r->sess_pending) {
        r->sess_pending = 0;
        r->echo_owed++;
        r->outstanding = 0;
        p9link_ctl(r->ctl, P9LINK_SESS);
        p9link_tx_start(&r->tx, r->ctl, P9LINK_CTL_LEN);
    } else if (r->halt_pending) {
        r->halt_pending = 0;
        r->halt_sent = 1;
        p9link_ctl(r->ctl, P9LINK_HALT);
        p9link_tx_start(&r->tx, r->ctl, P9LINK_CTL_LEN);
    } else if (r->tready && !r->outstanding && r->cfd >= 0) {
        r->tready = 0;
        r->outstanding = 1;
        r->requests++;
        r->client_requests++;
        p9link_tx_start(&r->tx, r->tbuf, (uint32_t)r->tbuf[0] | (uint32_t)r->tbuf[1] << 8 |
                                             (uint32_t)r->tbuf[2] << 16 |
                                             (uint32_t)r->tbuf[3] << 24);
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: steady-relay --uart-fd FD --listen-fd FD [--mtu N] [--rto MS] "
                    "[--retries N] [--max-msg BYTES] [--halt-wait S]\n"
                    "  FDs: a connected stream socket to the board's UART0 (QEMU chardev) and a\n"
                    "  listening TCP socket; SIGTERM/SIGINT: send the board HALT, wait for it\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct relay r;
    struct frame_cfg cfg = { 256, 100, 30 };
    double halt_wait = 10.0;
    memset(&r, 0, sizeof r);
    r.uart = r.lfd = r.cfd = -1;
    r.tcap = 1u << 20;
    /* options come in pairs: --name value */
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        if (!strcmp(a, "--uart-fd"))
            r.uart = atoi(v);
        else if (!strcmp(a, "--listen-fd"))
            r.lfd = atoi(v);
        else if (!strcmp(a, "--mtu"))
            cfg.mtu = (uint16_t)atoi(v);
        else if (!strcmp(a, "--rto"))
            cfg.rto_ms = (uint16_t)atoi(v);
        else if (!strcmp(a, "--retries"))
            cfg.max_retries = (uint8_t)atoi(v);
        else if (!strcmp(a, "--max-msg"))
            r.tcap = (uint32_t)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--halt-wait"))
            halt_wait = atof(v);
        else
            return usage();
    }
    if (r.uart < 0 || r.lfd < 0 || r.tcap < 64)
        return usage();

    struct frame_io io = { &r, uart_put, uart_get, now_ms };
    r.link_mem = malloc(FRAME_MEM(cfg.mtu));
    r.tbuf = malloc(r.tcap);
    uint8_t *rbuf = malloc(r.tcap);
    if (!r.link_mem || !r.tbuf || !rbuf || frame_init(&r.link, &io, &cfg, r.link_mem, FRAME_MEM(cfg.mtu)) != 0) {
        fprintf(stderr, "relay: bad link configuration\n");
        return 2;
    }
    p9link_rx_init(&r.rx, rbuf, r.tcap, &r.link);
    r.sess_pending = 1;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    uint32_t halt_at = 0;
    int status = 0;
    for (;;) {
        if (stop_requested && !r.halt_pending && !r.halt_sent) {
            logf_("stopping: closing the client, sending the board HALT");
            close_client(&r, "relay stopping");
            r.halt_pending = 1;
            halt_at = now_ms(NULL);
        }
        int rc = frame_poll(&r.link);
        if (rc == FRAME_E_LINK) {
            logf_("the board does not answer (%u retries): starting the link over",
                  (unsigned)cfg.max_retries);
            close_client(&r, "the board does not answer");
            frame_restart(&r.link);
            p9link_rx_unsync(&r.rx);
            r.tx.len = r.tx.off = 0;
            r.echo_owed = 0;
            r.outstanding = 0;
            r.sess_pending = 1;
            if (r.halt_sent)
                r.halt_pending = 1, r.halt_sent = 0;
            continue;
        } else if (rc < 0) {
            logf_("the board's UART socket failed");
            status = 1;
            break;
        }
        int moved = 0;
        for (;;) {
            int32_t n = p9link_rx_poll(&r.rx, &r.link);
            if (n == 0)
                break;
            moved = 1;
            from_board(&r, n);
        }
        schedule_tx(&r);
        if (p9link_tx_busy(&r.tx)) {
            uint32_t off = r.tx.off;
            if (p9link_tx_poll(&r.tx, &r.link) < 0)
                continue;
            moved |= r.tx.off != off;
        }
        if (r.uart_eof) {
            if (r.halt_sent)
                logf_("the board stopped");
            else {
                logf_("the board's UART closed (QEMU exited)");
                status = 1;
            }
            break;
        }
        if (r.halt_sent && (double)(now_ms(NULL) - halt_at) > halt_wait * 1000.0) {
            logf_("the board did not stop within %.0f s of HALT", halt_wait);
            status = 1;
            break;
        }
        if (moved)
            continue;

        struct pollfd pf[3];
        int np = 0, ci = -1, ri = -1;
        pf[np].fd = r.uart;
        pf[np++].events = POLLIN;
        if (r.cfd < 0 && !stop_requested && !r.halt_sent) {
            pf[np].fd = r.lfd;
            pf[np].events = POLLIN;
            ci = np++;
        } else if (r.cfd >= 0 && !r.tready && !r.outstanding) {
            pf[np].fd = r.cfd;
            pf[np].events = POLLIN;
            ci = np++;
        }
        if (r.cfd >= 0 && !stop_requested) {
            pf[np].fd = r.lfd;
            pf[np].events = POLLIN;
            ri = np++;
        }
        /* wake for retransmission while a frame is in flight */
        int timeout = frame_tx_idle(&r.link) ? 200 : 5;
        int pr = poll(pf, (nfds_t)np, timeout);
        if (pr < 0 && errno != EINTR) {
            perror("relay: poll");
            status = 1;
            break;
        }
        if (pr > 0 && ci >= 0 && (pf[ci].revents & (POLLIN | POLLHUP | POLLERR))) {
            if (r.cfd < 0) {
                int fd = accept(r.lfd, NULL, NULL);
                if (fd >= 0) {
                    r.cfd = fd;
                    r.clients++;
                    r.client_requests = 0;
                    r.sess_pending = 1; /* a clean session whatever came before */
                    logf_("client %lu connected", r.clients);
                }
            } else {
                from_client(&r);
            }
        }
        /* A client that hung up just before the newcomer connected is not
         * a reason to refuse it: that client's end is handled first (above,
         * or on a later pass) and the newcomer is accepted then. */
        if (pr > 0 && ri >= 0 && (pf[ri].revents & POLLIN) && r.cfd >= 0 && !peer_gone(r.cfd)) {
            int fd = accept(r.lfd, NULL, NULL);
            if (fd >= 0) {
                close(fd);
                logf_("a second client refused: the board serves one client at a time "
                      "(client %lu is connected)", r.clients);
            }
        }
    }
    const struct frame_stats *s = &r.link.stats;
    logf_("%lu clients, %lu requests, %lu replies, %lu stale replies dropped, %lu sessions "
          "dropped by the board, %lu board restarts; link: %u frames sent, %u retransmits, "
          "%u crc errors, %u bad frames",
          r.clients, r.requests, r.replies, r.discarded, r.dropped_sessions,
          r.board_restarts, (unsigned)s->frames_sent,
          (unsigned)s->retransmits, (unsigned)s->crc_errors, (unsigned)s->bad_frames);
    if (r.cfd >= 0)
        close(r.cfd);
    free(r.link_mem);
    free(r.tbuf);
    free(rbuf);
    return status;
}
