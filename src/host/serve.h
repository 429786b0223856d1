/* steady serve: the 9P2000.L server (p9srv.h) on host transports (host
 * only: sockets, termios, poll).  serve_conn.c runs one connection's
 * message loop over a plain or framed (frame.h) byte stream (stdio, a tty,
 * a framed socket); serve_clients.c serves many plain socket clients at
 * once from one poll loop; serve_listen.c parses endpoints and picks one
 * of the two; src/host/main/serve_main.c is the program. */
#ifndef STEADYFS_HOST_SERVE_H
#define STEADYFS_HOST_SERVE_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>

#include "steadyfs/frame.h"
#include "steadyfs/p9srv.h"

/* One connection's state.  buf: msize_max bytes (request and reply share
 * it).  With framed != 0, link/link_mem carry the UART framing. */
typedef struct serve_conn {
    p9srv *srv;
    steadyfs *fs;
    uint8_t *buf;
    uint32_t cap;
    int rfd, wfd;
    int framed;
    struct frame_link link;
    struct frame_cfg fcfg;
    uint8_t *link_mem;
    int verbose;
    volatile sig_atomic_t *stop;   /* set by a signal: return as soon as possible */
    int refuse_fd;                 /* > 0: a listening socket whose newcomers are
                                      refused (closed, logged) while this link runs */
    uint64_t msgs, errors;
    uint32_t idle_ms;              /* poll interval; idle time runs steadyfs_gc_step */
} serve_conn;

/* Why serve_conn_run returned. */
enum serve_end {
    SERVE_EOF = 1,       /* the peer closed the stream */
    SERVE_STOP = 2,      /* *stop was set */
    SERVE_PROTO = 3,     /* protocol violation: connection dropped */
    SERVE_IO = 4,        /* read/write error or the framed link failed */
};

/* Serves messages on c->rfd / c->wfd until the stream ends.  The fids of
 * the session are clunked (p9srv_disconnect) before it returns, so every
 * file the client left open is committed. */
int serve_conn_run(serve_conn *c);

/* Prepares the framed link on c (c->link_mem: FRAME_MEM(c->fcfg.mtu)). */
int serve_conn_frame_init(serve_conn *c);

/* "Tversion", ... for logs. */
const char *serve_type_name(uint8_t type);

/* Many clients on one listening socket (serve_clients.c): each connection
 * gets its own p9srv (cfg's fs, msize_max, fid_max, path_max, read_only;
 * its own fid memory and message buffer, allocated while it is connected),
 * all grouped (p9srv_group) on the one steadyfs. */
typedef struct serve_multi {
    int lfd;
    p9srv_config cfg;            /* template; mem and mem_size are per client */
    uint32_t max_clients;        /* connected at once; one more is refused */
    uint32_t stall_ms;           /* a message or reply unfinished this long: drop (0: never) */
    uint32_t idle_ms;            /* poll timeout; an idle one runs steadyfs_gc_step */
    int verbose;
    uint32_t active;
    uint64_t accepted;           /* connections so far (names unix clients in logs) */
    struct serve_client *clients;    /* max_clients slots */
    struct serve_refusal *refused;   /* a few connections being refused */
    struct pollfd *pfd;
} serve_multi;

/* 0 or -1 (bad arguments, no memory).  Sets lfd non-blocking. */
int serve_multi_init(serve_multi *m, int lfd, const p9srv_config *cfg, uint32_t max_clients);
/* Serves until *stop (a signal).  0, or -1 if poll fails. */
int serve_multi_run(serve_multi *m, volatile sig_atomic_t *stop);
/* Disconnects every client (their open files are committed) and frees. */
void serve_multi_free(serve_multi *m);

typedef struct serve_opts {
    const char *listen;    /* tcp:HOST:PORT | unix:PATH | stdio | tty:DEVICE */
    int framed;            /* frame.h framing (always on for tty:) */
    uint32_t baud;         /* tty: line rate */
    int verbose;
    uint32_t max_clients;  /* plain sockets: clients at once (0: 8) */
    uint32_t stall_ms;     /* plain sockets: see serve_multi */
    const p9srv_config *pcfg;   /* plain sockets: the sessions' configuration */
} serve_opts;

/* Listens on o->listen until *c->stop.  Plain TCP and Unix sockets: up to
 * max_clients at once (serve_multi).  stdio and tty: the one link with c
 * (its srv/fs/buf set); a framed socket: one client at a time with c,
 * newcomers refused while it is served.  Prints "listening on ..." to
 * stdout (stderr for stdio) when ready, and a warning when a TCP address
 * is not a loopback one.  Returns 0 or -1 (with a message on stderr). */
int serve_listen_run(const serve_opts *o, serve_conn *c);

/* groups.c: p9srv_config.in_group from the host's user database. */
int serve_in_group(void *ctx, uint32_t uid, uint32_t gid);

#endif
