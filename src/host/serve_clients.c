/* steady serve's many clients: every connection of a TCP or Unix listener
 * served from one poll() loop, each with its own p9srv session (fids,
 * msize, version) on the one mounted steadyfs.
 *
 * Why one thread and one loop rather than a thread per client: steadyfs
 * and p9srv are single-threaded by design (steadyfs.h: calls must not run
 * concurrently), so threads would serialise on a lock anyway, and a loop
 * makes the order of work explicit.  Each 9P message is handled to
 * completion before the next one (whoever sent it), which is what makes
 * every request atomic with respect to the others (docs/P9.md).
 *
 * Fairness and bounded work.  Sockets are non-blocking.  Per pass of the
 * loop a client gets at most one message handled (the reads stop at the
 * end of the current message, so pipelined requests wait in the kernel),
 * and a message's cost is bounded (docs/P9.md "Real-time bounds"), so
 * between two of its messages a client waits for at most one message of
 * every other client.  A client that sends half a message or does not
 * read its reply holds only its own slot: nobody waits for it; and after
 * stall_ms without finishing it is dropped.  While a reply is being
 * written no further request of that client is read (9P has one reply per
 * request, so this is the client's own back-pressure).
 *
 * Over the limit.  A connection beyond max_clients is accepted into one of
 * a few refusal slots: its first message header is read (so the answer
 * carries its tag, normally Tversion's NOTAG), answered with
 * Rlerror(EUSERS), and the connection is closed once the client hangs up
 * (closing with its unread bytes pending could reset the connection before
 * the client read the answer).  With every refusal slot busy a newcomer is
 * closed at once.  Both are logged in one line. */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "host/serve.h"

#define REFUSE_SLOTS 4u
#define REFUSE_MS 2000u   /* a refused client has this long to send a header */
#define LX_EUSERS 87u     /* "Too many users": the client count is the limit */

struct serve_client {
    int fd;               /* -1: free slot */
    p9srv srv;
    void *mem;            /* p9srv_mem_size bytes */
    uint8_t *buf;         /* msize_max bytes: the request, then its reply */
    uint32_t have, need;  /* request bytes read / wanted (4 until the size is known) */
    uint32_t out_off, out_len;   /* reply bytes written / to write (0: none pending) */
    uint64_t since_ms;    /* first byte of the current request (0: between messages) */
    uint64_t msgs, errors;
    char who[INET6_ADDRSTRLEN + 16];
};
typedef struct serve_client client;

struct serve_refusal {
    int fd;               /* -1: free */
    uint8_t hdr[7];       /* size[4] type[1] tag[2] of the first message */
    uint32_t have;
    uint8_t answered;     /* Rlerror sent, waiting for the client to hang up */
    uint64_t deadline_ms;
    char who[INET6_ADDRSTRLEN + 16];
};
typedef struct serve_refusal refusal;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* "127.0.0.1:40312", "[::1]:40312" or "unix#7" (the connection count):
 * every log line names one connection even when all come from one host. */
static void peer_name(const struct sockaddr_storage *ss, uint64_t seq, char *who, size_t len)
{
    char a[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)ss;
        inet_ntop(AF_INET, &in->sin_addr, a, sizeof a);
        snprintf(who, len, "%s:%u", a, (unsigned)ntohs(in->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)ss;
        inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof a);
        snprintf(who, len, "[%s]:%u", a, (unsigned)ntohs(in6->sin6_port));
    } else {
        snprintf(who, len, "unix#%llu", (unsigned long long)seq);
    }
}

/* ---- admitted clients -------------------------------------------------- */

/* Ends a client: its fids are clunked (files it had open are closed, which
 * commits them: steadyfs's close), it leaves the rename group, the
 * connection is closed and the slot freed. */
static void drop(serve_multi *m, client *c, const char *why)
{
    p9srv_disconnect(&c->srv);
    p9srv_ungroup(&c->srv);
    close(c->fd);
    c->fd = -1;
    m->active--;
    fprintf(stderr, "steady serve: client %s %s after %llu messages (%llu errors); %u of %u connected\n",
            c->who, why, (unsigned long long)c->msgs, (unsigned long long)c->errors,
            (unsigned)m->active, (unsigned)m->max_clients);
    free(c->mem);
    free(c->buf);
    c->mem = NULL;
    c->buf = NULL;
}

/* Writes what the socket takes of the pending reply.  0, or -1: dropped. */
static int flush_reply(serve_multi *m, client *c)
{
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->buf + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;   /* the rest when poll says POLLOUT */
            drop(m, c, errno == EPIPE || errno == ECONNRESET ? "disconnected" : "dropped (I/O error)");
            return -1;
        }
        c->out_off += (uint32_t)w;
    }
    c->out_off = c->out_len = 0;
    c->have = 0;
    c->need = 4;
    c->since_ms = 0;
    return 0;
}

/* The complete request in c->buf: handle it and start writing the reply. */
static void handle(serve_multi *m, client *c)
{
    int32_t r;
    if (m->verbose)
        fprintf(stderr, "  %s <- %s tag %u (%u bytes)\n", c->who, serve_type_name(c->buf[4]),
                (unsigned)(c->buf[5] | c->buf[6] << 8), (unsigned)c->need);
    r = p9srv_handle(&c->srv, c->buf, c->need, c->buf, m->cfg.msize_max);
    c->msgs++;
    if (r < 0) {
        fprintf(stderr, "steady serve: client %s: protocol violation (%d)\n", c->who, (int)r);
        drop(m, c, "dropped (protocol violation)");
        return;
    }
    if (c->buf[4] == P9_RLERROR) {
        c->errors++;
        if (m->verbose)
            fprintf(stderr, "  %s -> Rlerror %u\n", c->who,
                    (unsigned)(c->buf[7] | c->buf[8] << 8 | c->buf[9] << 16));
    }
    c->out_off = 0;
    c->out_len = (uint32_t)r;
    flush_reply(m, c);   /* most replies leave at once */
}

/* One step for a readable client: read at most up to the end of the
 * current message (header, then the rest), handle it when complete. */
static void serve_input(serve_multi *m, client *c)
{
    int step;
    for (step = 0; step < 2 && c->fd >= 0 && c->out_len == 0; step++) {
        ssize_t r = read(c->fd, c->buf + c->have, c->need - c->have);
        if (r == 0) {
            /* A client gone in the middle of a message: that message was
             * never handled; the drop commits what it had open. */
            drop(m, c, "disconnected");
            return;
        }
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                drop(m, c, errno == ECONNRESET ? "disconnected" : "dropped (I/O error)");
            return;
        }
        if (c->have == 0)
            c->since_ms = now_ms();
        c->have += (uint32_t)r;
        if (c->have < c->need)
            return;   /* partial: the rest on a later pass */
        if (c->need == 4) {
            int32_t n = p9srv_msg_len(&c->srv, c->buf);
            if (n < 0) {
                fprintf(stderr, "steady serve: client %s: message size %u out of range (msize %u)\n",
                        c->who,
                        (unsigned)(c->buf[0] | c->buf[1] << 8 | c->buf[2] << 16 |
                                   (uint32_t)c->buf[3] << 24),
                        (unsigned)p9srv_msize(&c->srv));
                drop(m, c, "dropped (protocol violation)");
                return;
            }
            c->need = (uint32_t)n;
            continue;   /* the body may be there already */
        }
        handle(m, c);
        return;   /* one message per client per pass */
    }
}

/* ---- refused clients ---------------------------------------------------- */

static void refusal_close(serve_multi *m, refusal *r)
{
    (void)m;
    close(r->fd);
    r->fd = -1;
}

static void refuse_input(serve_multi *m, refusal *r)
{
    uint8_t scratch[256];
    if (r->answered) {
        /* draining until the client hangs up */
        ssize_t n = read(r->fd, scratch, sizeof scratch);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK))
            refusal_close(m, r);
        return;
    }
    {
        ssize_t n = read(r->fd, r->hdr + r->have, sizeof r->hdr - r->have);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK)) {
            refusal_close(m, r);
            return;
        }
        if (n > 0)
            r->have += (uint32_t)n;
    }
    if (r->have == sizeof r->hdr) {
        uint8_t out[11];
        struct p9_msg e;
        int len;
        memset(&e, 0, sizeof e);
        e.type = P9_RLERROR;
        e.tag = (uint16_t)(r->hdr[5] | r->hdr[6] << 8);
        e.u.rlerror.ecode = LX_EUSERS;
        len = p9_encode(&e, out, sizeof out);
        /* 11 bytes into an empty socket buffer: one write takes them */
        if (len < 0 || write(r->fd, out, (size_t)len) != len) {
            refusal_close(m, r);
            return;
        }
        shutdown(r->fd, SHUT_WR);
        r->answered = 1;
    }
}

static void refuse(serve_multi *m, int fd, const char *who)
{
    uint32_t i;
    for (i = 0; i < REFUSE_SLOTS; i++) {
        refusal *r = &m->refused[i];
        if (r->fd >= 0)
            continue;
        memset(r, 0, sizeof *r);
        r->fd = fd;
        r->deadline_ms = now_ms() + REFUSE_MS;
        snprintf(r->who, sizeof r->who, "%s", who);
        fprintf(stderr, "steady serve: client %s refused: %u clients connected (--max-clients %u); "
                        "answering Rlerror EUSERS\n", who, (unsigned)m->active,
                (unsigned)m->max_clients);
        return;
    }
    fprintf(stderr, "steady serve: client %s refused: %u clients connected (--max-clients %u) "
                    "and %u refusals under way; connection closed\n",
            who, (unsigned)m->active, (unsigned)m->max_clients, (unsigned)REFUSE_SLOTS);
    close(fd);
}

/* ---- the loop ----------------------------------------------------------- */

static void admit(serve_multi *m, int fd, const char *who)
{
    uint32_t i;
    client *c = NULL, *peer = NULL;
    p9srv_config pc = m->cfg;
    for (i = 0; i < m->max_clients; i++) {
        if (m->clients[i].fd < 0) {
            if (!c)
                c = &m->clients[i];
        } else if (!peer) {
            peer = &m->clients[i];
        }
    }
    if (!c) {
        refuse(m, fd, who);
        return;
    }
    pc.mem_size = p9srv_mem_size(&pc);
    c->mem = calloc(1, pc.mem_size);
    c->buf = malloc(pc.msize_max);
    pc.mem = c->mem;
    if (!c->mem || !c->buf || p9srv_init(&c->srv, &pc) ||
        (peer && p9srv_group(&c->srv, &peer->srv))) {
        fprintf(stderr, "steady serve: client %s refused: out of memory\n", who);
        free(c->mem);
        free(c->buf);
        c->mem = NULL;
        c->buf = NULL;
        close(fd);
        return;
    }
    c->fd = fd;
    c->have = c->out_off = c->out_len = 0;
    c->need = 4;
    c->since_ms = 0;
    c->msgs = c->errors = 0;
    snprintf(c->who, sizeof c->who, "%s", who);
    m->active++;
    fprintf(stderr, "steady serve: client %s connected (%u of %u)\n", who, (unsigned)m->active,
            (unsigned)m->max_clients);
}

static void accept_one(serve_multi *m)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char who[INET6_ADDRSTRLEN + 16];
    int fd = accept(m->lfd, (struct sockaddr *)&ss, &sl);
    if (fd < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
            fprintf(stderr, "steady serve: accept: %s\n", strerror(errno));
        return;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    set_nonblock(fd);
    peer_name(&ss, ++m->accepted, who, sizeof who);
    admit(m, fd, who);
}

int serve_multi_init(serve_multi *m, int lfd, const p9srv_config *cfg, uint32_t max_clients)
{
    uint32_t i;
    memset(m, 0, sizeof *m);
    if (!max_clients || !cfg || !cfg->msize_max)
        return -1;
    m->lfd = lfd;
    m->cfg = *cfg;
    m->max_clients = max_clients;
    m->stall_ms = 60000;
    m->clients = calloc(max_clients, sizeof *m->clients);
    m->refused = calloc(REFUSE_SLOTS, sizeof *m->refused);
    m->pfd = calloc(1u + max_clients + REFUSE_SLOTS, sizeof *m->pfd);
    if (!m->clients || !m->refused || !m->pfd) {
        serve_multi_free(m);
        return -1;
    }
    for (i = 0; i < max_clients; i++)
        m->clients[i].fd = -1;
    for (i = 0; i < REFUSE_SLOTS; i++)
        m->refused[i].fd = -1;
    set_nonblock(lfd);
    return 0;
}

void serve_multi_free(serve_multi *m)
{
    uint32_t i;
    for (i = 0; m->clients && i < m->max_clients; i++)
        if (m->clients[i].fd >= 0)
            drop(m, &m->clients[i], "stopped");
    for (i = 0; m->refused && i < REFUSE_SLOTS; i++)
        if (m->refused[i].fd >= 0)
            refusal_close(m, &m->refused[i]);
    free(m->clients);
    free(m->refused);
    free(m->pfd);
    m->clients = NULL;
    m->refused = NULL;
    m->pfd = NULL;
}

/* Drops clients stuck in the middle of a message or a reply, and refused
 * clients past their deadline. */
static void check_stalls(serve_multi *m, uint64_t t)
{
    uint32_t i;
    for (i = 0; i < m->max_clients; i++) {
        client *c = &m->clients[i];
        /* since_ms may be later than t: a request can start while the
         * loop serves others after reading t (unsigned t - since_ms then
         * wrapped to ~4e9 ms and a busy client was dropped as stalled) */
        if (c->fd >= 0 && m->stall_ms && c->since_ms && c->since_ms < t &&
            t - c->since_ms > m->stall_ms) {
            char why[64];
            snprintf(why, sizeof why, "dropped (stalled mid-message for %u ms)",
                     (unsigned)(t - c->since_ms));
            drop(m, c, why);
        }
    }
    for (i = 0; i < REFUSE_SLOTS; i++)
        if (m->refused[i].fd >= 0 && t > m->refused[i].deadline_ms)
            refusal_close(m, &m->refused[i]);
}

int serve_multi_run(serve_multi *m, volatile sig_atomic_t *stop)
{
    uint64_t last_check = now_ms();
    while (!(stop && *stop)) {
        uint32_t i, n = 0, nc = 0;
        int r;
        uint64_t t;
        m->pfd[n].fd = m->lfd;
        m->pfd[n].events = POLLIN;
        m->pfd[n++].revents = 0;
        for (i = 0; i < m->max_clients; i++) {
            client *c = &m->clients[i];
            if (c->fd < 0)
                continue;
            m->pfd[n].fd = c->fd;
            m->pfd[n].events = c->out_len ? POLLOUT : POLLIN;
            m->pfd[n++].revents = 0;
        }
        nc = n;
        for (i = 0; i < REFUSE_SLOTS; i++) {
            if (m->refused[i].fd < 0)
                continue;
            m->pfd[n].fd = m->refused[i].fd;
            m->pfd[n].events = POLLIN;
            m->pfd[n++].revents = 0;
        }
        r = poll(m->pfd, n, (int)m->idle_ms);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "steady serve: poll: %s\n", strerror(errno));
            return -1;
        }
        t = now_ms();
        if (r == 0) {
            /* Nobody is waiting: idle time gets garbage collection ahead
             * so later writes find space ready. */
            steadyfs_gc_step(m->cfg.fs, 4);
        } else {
            uint32_t k = 1;
            /* clients in slot order, matching the pollfd order above */
            for (i = 0; i < m->max_clients && k < nc; i++) {
                client *c = &m->clients[i];
                short ev;
                if (c->fd < 0 || m->pfd[k].fd != c->fd)
                    continue;
                ev = m->pfd[k++].revents;
                if (!ev)
                    continue;
                if (c->out_len) {
                    if (ev & (POLLOUT | POLLERR | POLLHUP))
                        flush_reply(m, c);
                } else {
                    serve_input(m, c);
                }
            }
            for (i = 0, k = nc; i < REFUSE_SLOTS && k < n; i++) {
                refusal *rf = &m->refused[i];
                if (rf->fd < 0 || m->pfd[k].fd != rf->fd)
                    continue;
                if (m->pfd[k++].revents)
                    refuse_input(m, rf);
            }
            /* newcomers last: admitted clients are served first */
            if (m->pfd[0].revents & POLLIN)
                accept_one(m);
        }
        if (t - last_check >= 100) {
            check_stalls(m, now_ms());
            last_check = t;
        }
    }
    return 0;
}
