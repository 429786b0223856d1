/* Where steady serve listens: tcp:HOST:PORT, unix:PATH, stdio, tty:DEVICE.
 * Plain sockets serve up to max_clients at once from one poll loop
 * (serve_clients.c: the server and the file system are single-threaded by
 * design, steadyfs.h).  stdio and a tty are one link; a framed socket
 * carries a UART's protocol and serves one client at a time, refusing
 * others while it does.  A client that disconnects, even mid-message,
 * leaves nothing half-done. */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "host/serve.h"

static const char *end_name(int end)
{
    switch (end) {
    case SERVE_EOF: return "disconnected";
    case SERVE_STOP: return "stopped";
    case SERVE_PROTO: return "dropped (protocol violation)";
    default: return "dropped (I/O error)";
    }
}

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)sa;
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return 0;
}

/* "HOST:PORT" or "[V6]:PORT" -> a bound, listening socket. */
static int listen_tcp(const char *spec, char *shown, size_t shown_len)
{
    char host[256];
    const char *port, *colon;
    struct addrinfo hints, *res = NULL, *ai;
    int fd = -1, one = 1, rc;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof host)
            return -1;
        memcpy(host, spec + 1, (size_t)(close - spec - 1));
        host[close - spec - 1] = '\0';
        port = close + 2;
    } else {
        colon = strrchr(spec, ':');
        if (!colon || (size_t)(colon - spec) >= sizeof host)
            return -1;
        memcpy(host, spec, (size_t)(colon - spec));
        host[colon - spec] = '\0';
        port = colon + 1;
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (rc) {
        fprintf(stderr, "steady serve: %s: %s\n", spec, gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0)
            break;
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        fprintf(stderr, "steady serve: cannot listen on %s: %s\n", spec, strerror(errno));
        freeaddrinfo(res);
        return -1;
    }
    {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        char addr[INET6_ADDRSTRLEN] = "?";
        uint16_t p = 0;
        getsockname(fd, (struct sockaddr *)&ss, &sl);
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *in = (void *)&ss;
            inet_ntop(AF_INET, &in->sin_addr, addr, sizeof addr);
            p = ntohs(in->sin_port);
            snprintf(shown, shown_len, "tcp:%s:%u", addr, (unsigned)p);
        } else {
            struct sockaddr_in6 *in6 = (void *)&ss;
            inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof addr);
            p = ntohs(in6->sin6_port);
            snprintf(shown, shown_len, "tcp:[%s]:%u", addr, (unsigned)p);
        }
        if (!is_loopback((struct sockaddr *)&ss))
            fprintf(stderr,
                    "steady serve: WARNING: %s is not a loopback address: anyone who can reach "
                    "it can read and change the device (9P here has no authentication)\n",
                    shown);
    }
    freeaddrinfo(res);
    return fd;
}

static int listen_unix(const char *path, char *shown, size_t shown_len)
{
    struct sockaddr_un un;
    struct stat st;
    int fd;
    if (strlen(path) >= sizeof un.sun_path) {
        fprintf(stderr, "steady serve: socket path too long: %s\n", path);
        return -1;
    }
    /* a socket left behind by an earlier run; never remove anything else */
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    memset(&un, 0, sizeof un);
    un.sun_family = AF_UNIX;
    strcpy(un.sun_path, path);
    if (bind(fd, (struct sockaddr *)&un, sizeof un) || listen(fd, 16)) {
        fprintf(stderr, "steady serve: cannot listen on unix:%s: %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    snprintf(shown, shown_len, "unix:%s", path);
    return fd;
}

static speed_t baud_const(uint32_t b)
{
    switch (b) {
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 230400: return B230400;
    case 460800: return B460800;
    case 921600: return B921600;
    default: return B115200;
    }
}

static int open_tty(const char *dev, uint32_t baud)
{
    struct termios t;
    int fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        fprintf(stderr, "steady serve: %s: %s\n", dev, strerror(errno));
        return -1;
    }
    if (tcgetattr(fd, &t) == 0) {
        cfmakeraw(&t);
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        cfsetispeed(&t, baud_const(baud));
        cfsetospeed(&t, baud_const(baud));
        tcsetattr(fd, TCSANOW, &t);
    }
    return fd;
}

static void ready(const char *shown, int to_stderr)
{
    FILE *f = to_stderr ? stderr : stdout;
    fprintf(f, "listening on %s\n", shown);
    fflush(f);
}

static int one_client(serve_conn *c, int fd_in, int fd_out, const char *who)
{
    int end;
    c->rfd = fd_in;
    c->wfd = fd_out;
    if (c->framed && serve_conn_frame_init(c)) {
        fprintf(stderr, "steady serve: bad framing configuration\n");
        return SERVE_IO;
    }
    end = serve_conn_run(c);
    fprintf(stderr, "steady serve: client %s %s after %llu messages (%llu errors)\n", who,
            end_name(end), (unsigned long long)c->msgs, (unsigned long long)c->errors);
    return end;
}

int serve_listen_run(const serve_opts *o, serve_conn *c)
{
    char shown[300];
    int lfd = -1, rc = 0;
    const char *spec = o->listen;
    c->framed = o->framed;
    c->verbose = o->verbose;
    if (!strcmp(spec, "stdio")) {
        ready("stdio", 1);
        one_client(c, 0, 1, "stdio");
        return 0;
    }
    if (!strncmp(spec, "tty:", 4)) {
        int fd = open_tty(spec + 4, o->baud ? o->baud : 115200);
        if (fd < 0)
            return -1;
        c->framed = 1;   /* a raw line needs the framing layer */
        snprintf(shown, sizeof shown, "%s (framed, %u baud)", spec,
                 (unsigned)(o->baud ? o->baud : 115200));
        ready(shown, 0);
        /* The line stays; a failed link (the peer went away) ends the
         * session and the link starts over with a RESET. */
        while (!(c->stop && *c->stop)) {
            int end = one_client(c, fd, fd, spec + 4);
            /* A dead line (the adapter unplugged, the peer silent) fails
             * every session at once: retry once a second, not in a loop. */
            if (end == SERVE_IO)
                poll(NULL, 0, 1000);
        }
        close(fd);
        return 0;
    }
    if (!strncmp(spec, "tcp:", 4))
        lfd = listen_tcp(spec + 4, shown, sizeof shown);
    else if (!strncmp(spec, "unix:", 5))
        lfd = listen_unix(spec + 5, shown, sizeof shown);
    else {
        fprintf(stderr, "steady serve: unknown endpoint '%s' (tcp:HOST:PORT, unix:PATH, stdio, "
                        "tty:DEVICE)\n", spec);
        return -1;
    }
    if (lfd < 0)
        return -1;
    ready(shown, 0);
    if (!c->framed) {
        serve_multi m;
        if (!o->pcfg || serve_multi_init(&m, lfd, o->pcfg, o->max_clients ? o->max_clients : 8)) {
            fprintf(stderr, "steady serve: cannot set up %u client slots\n",
                    (unsigned)o->max_clients);
            rc = -1;
        } else {
            m.stall_ms = o->stall_ms;
            m.idle_ms = c->idle_ms ? c->idle_ms : 100;
            m.verbose = o->verbose;
            rc = serve_multi_run(&m, c->stop);
            serve_multi_free(&m);
        }
    }
    c->refuse_fd = lfd;
    while (c->framed && !(c->stop && *c->stop)) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        char who[INET6_ADDRSTRLEN + 8] = "unix";
        int fd = accept(lfd, (struct sockaddr *)&ss, &sl);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "steady serve: accept: %s\n", strerror(errno));
            break;
        }
        if (ss.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, who, sizeof who);
        else if (ss.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, who, sizeof who);
        fprintf(stderr, "steady serve: client %s connected (framed: one at a time)\n", who);
        one_client(c, fd, fd, who);
        close(fd);
    }
    c->refuse_fd = 0;
    close(lfd);
    if (!strncmp(spec, "unix:", 5))
        unlink(spec + 5);
    return rc;
}
