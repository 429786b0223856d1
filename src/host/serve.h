/* steady serve: the 9P2000.L server (p9srv.h) on host transports (host
 * only: sockets, termios, poll).  serve_conn.c runs one connection's
 * message loop over a plain or framed (frame.h) byte stream;
 * serve_listen.c parses endpoints and accepts clients one after another;
 * src/host/main/serve_main.c is the program. */
#ifndef STEADYFS_HOST_SERVE_H
#define STEADYFS_HOST_SERVE_H

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

typedef struct serve_opts {
    const char *listen;    /* tcp:HOST:PORT | unix:PATH | stdio | tty:DEVICE */
    int framed;            /* frame.h framing (always on for tty:) */
    uint32_t baud;         /* tty: line rate */
    int verbose;
    uint32_t max_clients;  /* 0: serve until stopped */
} serve_opts;

/* Listens on o->listen and serves clients one after the other with c (its
 * srv/fs/buf set) until *c->stop or max_clients.  Prints
 * "listening on ..." to stdout (stderr for stdio) when ready, and a
 * warning when a TCP address is not a loopback one.  Returns 0 or -1
 * (with a message on stderr). */
int serve_listen_run(const serve_opts *o, serve_conn *c);

#endif
