/* One 9P connection: read a size-prefixed message, hand it to the server,
 * write the reply; over a plain stream (TCP, Unix socket, stdio) or over
 * the frame.h link (a raw UART).  Idle time runs garbage collection so
 * writes find space ready. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/serve.h"

const char *serve_type_name(uint8_t t)
{
    switch (t) {
    case P9_TVERSION: return "Tversion";
    case P9_TATTACH: return "Tattach";
    case P9_TWALK: return "Twalk";
    case P9_TCLUNK: return "Tclunk";
    case P9_TREMOVE: return "Tremove";
    case P9_TGETATTR: return "Tgetattr";
    case P9_TSETATTR: return "Tsetattr";
    case P9_TSTATFS: return "Tstatfs";
    case P9_TXATTRWALK: return "Txattrwalk";
    case P9_TLOPEN: return "Tlopen";
    case P9_TLCREATE: return "Tlcreate";
    case P9_TREAD: return "Tread";
    case P9_TWRITE: return "Twrite";
    case P9_TFSYNC: return "Tfsync";
    case P9_TREADDIR: return "Treaddir";
    case P9_TMKDIR: return "Tmkdir";
    case P9_TUNLINKAT: return "Tunlinkat";
    case P9_TRENAMEAT: return "Trenameat";
    case P9_TRENAME: return "Trename";
    case P9_TFLUSH: return "Tflush";
    default: return "T?";
    }
}

/* ---- the framed link's callbacks ---- */

static int link_put(void *user, const uint8_t *b, size_t n)
{
    serve_conn *c = user;
    while (n) {
        ssize_t w = write(c->wfd, b, n);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN) {
                struct pollfd p = {.fd = c->wfd, .events = POLLOUT};
                if (c->stop && *c->stop)
                    return FRAME_E_IO;
                poll(&p, 1, 100);
                continue;
            }
            return FRAME_E_IO;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static int link_get(void *user, uint8_t *b, size_t cap)
{
    serve_conn *c = user;
    ssize_t r = read(c->rfd, b, cap);
    if (r > 0)
        return (int)r;
    if (r == 0)
        return isatty(c->rfd) ? 0 : FRAME_E_IO;   /* a socket's EOF: the peer is gone */
    return errno == EAGAIN || errno == EINTR ? 0 : FRAME_E_IO;
}

static uint32_t link_now(void *user)
{
    struct timespec ts;
    (void)user;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

int serve_conn_frame_init(serve_conn *c)
{
    struct frame_io io = {.user = c, .put = link_put, .get = link_get, .now_ms = link_now};
    int fl = fcntl(c->rfd, F_GETFL);
    if (fl >= 0)
        fcntl(c->rfd, F_SETFL, fl | O_NONBLOCK);
    return frame_init(&c->link, &io, &c->fcfg, c->link_mem, FRAME_MEM(c->fcfg.mtu));
}

/* ---- reading and writing whole messages ---- */

/* Waits up to ms for input; on a quiet link runs a little garbage
 * collection.  Returns 1 readable, 0 timeout, -1 stop. */
static int wait_input(serve_conn *c, int ms, int may_gc)
{
    struct pollfd p[2] = {{.fd = c->rfd, .events = POLLIN}, {.fd = c->refuse_fd, .events = POLLIN}};
    int r;
    if (c->stop && *c->stop)
        return -1;
    r = poll(p, c->refuse_fd > 0 ? 2 : 1, ms);
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    /* A newcomer is refused only while this client shows no input: if it
     * has just hung up, its EOF is read first, the session ends and the
     * newcomer is accepted next. */
    if (c->refuse_fd > 0 && (p[1].revents & POLLIN) &&
        !(p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        /* A framed link is a UART's protocol: one peer.  A second client
         * is told so by a closed connection, not left waiting. */
        int fd = accept(c->refuse_fd, NULL, NULL);
        if (fd >= 0) {
            close(fd);
            fprintf(stderr, "steady serve: a client refused: a framed link serves one client "
                            "at a time; connection closed\n");
        }
        return 0;
    }
    if (r == 0 && may_gc)
        steadyfs_gc_step(c->fs, 4);
    return (p[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

/* Reads exactly n bytes.  first: nothing of the message read yet (idle
 * time).  Returns 0, or a serve_end. */
static int read_full(serve_conn *c, uint8_t *b, uint32_t n, int first)
{
    uint32_t have = 0;
    while (have < n) {
        if (c->stop && *c->stop)
            return SERVE_STOP;
        if (c->framed) {
            int r = frame_read(&c->link, b + have, n - have);
            if (r > 0) {
                have += (uint32_t)r;
                continue;
            }
            if (frame_poll(&c->link) < 0)
                return SERVE_IO;
            r = frame_read(&c->link, b + have, n - have);
            if (r > 0) {
                have += (uint32_t)r;
                continue;
            }
            if (wait_input(c, 10, first && have == 0) < 0)
                return SERVE_STOP;
        } else {
            ssize_t r;
            int w = wait_input(c, (int)c->idle_ms, first && have == 0);
            if (w < 0)
                return SERVE_STOP;
            if (w == 0)
                continue;
            r = read(c->rfd, b + have, n - have);
            if (r == 0)
                return SERVE_EOF;
            if (r < 0) {
                if (errno == EINTR || errno == EAGAIN)
                    continue;
                return errno == ECONNRESET ? SERVE_EOF : SERVE_IO;
            }
            have += (uint32_t)r;
        }
    }
    return 0;
}

static int write_full(serve_conn *c, const uint8_t *b, uint32_t n)
{
    uint32_t off = 0;
    while (off < n) {
        if (c->stop && *c->stop)
            return SERVE_STOP;
        if (c->framed) {
            int r = frame_write(&c->link, b + off, n - off);
            if (r < 0)
                return SERVE_IO;
            off += (uint32_t)r;
            if (r == 0) {
                if (frame_poll(&c->link) < 0)
                    return SERVE_IO;
                if (wait_input(c, 5, 0) < 0)
                    return SERVE_STOP;
            }
        } else {
            ssize_t w = write(c->wfd, b + off, n - off);
            if (w < 0) {
                if (errno == EINTR || errno == EAGAIN)
                    continue;
                return errno == EPIPE || errno == ECONNRESET ? SERVE_EOF : SERVE_IO;
            }
            off += (uint32_t)w;
        }
    }
    return 0;
}

int serve_conn_run(serve_conn *c)
{
    int end;
    c->msgs = c->errors = 0;
    if (!c->idle_ms)
        c->idle_ms = 100;
    for (;;) {
        int32_t n, r;
        end = read_full(c, c->buf, 4, 1);
        if (end)
            break;
        n = p9srv_msg_len(c->srv, c->buf);
        if (n < 0) {
            fprintf(stderr, "steady serve: message size %u out of range (msize %u): dropping the client\n",
                    (unsigned)(c->buf[0] | c->buf[1] << 8 | c->buf[2] << 16 | (uint32_t)c->buf[3] << 24),
                    (unsigned)p9srv_msize(c->srv));
            end = SERVE_PROTO;
            break;
        }
        /* A client that goes away in the middle of a message: nothing of
         * it was handled; the disconnect below commits the open files. */
        end = read_full(c, c->buf + 4, (uint32_t)n - 4u, 0);
        if (end)
            break;
        if (c->verbose)
            fprintf(stderr, "  <- %s tag %u (%d bytes)\n", serve_type_name(c->buf[4]),
                    (unsigned)(c->buf[5] | c->buf[6] << 8), (int)n);
        r = p9srv_handle(c->srv, c->buf, (uint32_t)n, c->buf, c->cap);
        c->msgs++;
        if (r < 0) {
            fprintf(stderr, "steady serve: protocol violation (%d): dropping the client\n", (int)r);
            end = SERVE_PROTO;
            break;
        }
        if (c->buf[4] == P9_RLERROR) {
            c->errors++;
            if (c->verbose)
                fprintf(stderr, "  -> Rlerror %u\n",
                        (unsigned)(c->buf[7] | c->buf[8] << 8 | c->buf[9] << 16));
        }
        end = write_full(c, c->buf, (uint32_t)r);
        if (end)
            break;
    }
    p9srv_disconnect(c->srv);
    return end;
}
