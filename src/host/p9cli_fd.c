/* Host byte streams for the p9cli stub: file descriptors from a TCP or
 * Unix-socket dial, or a socketpair to a child server. */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host/p9cli_fd.h"

int p9cli_fd_send(void *io, const uint8_t *buf, size_t len)
{
    int fd = (int)(intptr_t)io;
    while (len > 0) {
        /* MSG_NOSIGNAL: a server that went away is an error, not SIGPIPE. */
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int p9cli_fd_recv(void *io, uint8_t *buf, size_t len)
{
    int fd = (int)(intptr_t)io;
    if (len > 0x7FFFFFFF) len = 0x7FFFFFFF;
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0) return (int)n;
        if (errno != EINTR) return -errno;
    }
}

static int dial_unix(const char *path, const char **why)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        *why = "unix socket path too long";
        return -ENAMETOOLONG;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int e = errno;
        close(fd);
        *why = strerror(e);
        return -e;
    }
    return fd;
}

static int dial_tcp(const char *hostport, const char **why)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (colon == NULL || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1]) {
        *why = "expected tcp:HOST:PORT";
        return -EINVAL;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(host, colon + 1, &hints, &res);
    if (g != 0) {
        *why = gai_strerror(g);
        return -EHOSTUNREACH;
    }
    int err = -ECONNREFUSED;
    for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            err = -errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
            /* Requests are small and answered one by one: no Nagle delay. */
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            freeaddrinfo(res);
            return fd;
        }
        err = -errno;
        close(fd);
    }
    freeaddrinfo(res);
    *why = strerror(-err);
    return err;
}

int p9cli_fd_dial(const char *spec, const char **why)
{
    static const char *dummy;
    if (why == NULL) why = &dummy;
    *why = "expected tcp:HOST:PORT or unix:PATH";
    if (spec == NULL) return -EINVAL;
    if (strncmp(spec, "tcp:", 4) == 0) return dial_tcp(spec + 4, why);
    if (strncmp(spec, "unix:", 5) == 0 && spec[5]) return dial_unix(spec + 5, why);
    return -EINVAL;
}

int p9cli_fd_spawn(char *const argv[], pid_t *pid)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return -errno;
    pid_t p = fork();
    if (p < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        return -e;
    }
    if (p == 0) {
        /* dup2 clears close-on-exec on the copies. */
        if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0) _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(sv[1]);
    *pid = p;
    return sv[0];
}
