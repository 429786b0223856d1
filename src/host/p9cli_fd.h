/* Host transports for the p9cli stub (include/steadyfs/p9cli.h): a byte
 * stream on a file descriptor, reached by dialling tcp:HOST:PORT or
 * unix:PATH, or a child process (a 9P server) talking on its stdin/stdout
 * through a socketpair.  Host-only (sockets, fork). */
#ifndef STEADYFS_HOST_P9CLI_FD_H
#define STEADYFS_HOST_P9CLI_FD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* p9cli send/recv over (int)(intptr_t)io: send writes everything, recv
 * returns what one read(2) gives; EINTR is retried; errors are -errno. */
int p9cli_fd_send(void *io, const uint8_t *buf, size_t len);
int p9cli_fd_recv(void *io, uint8_t *buf, size_t len);

/* Connects to "tcp:HOST:PORT" or "unix:PATH".  Returns the fd, or -errno
 * (-EINVAL for a spec it cannot parse); *why names the failure. */
int p9cli_fd_dial(const char *spec, const char **why);

/* Starts argv[0] (looked up in PATH) with one end of a socketpair as its
 * stdin and stdout; returns our end, *pid the child's, or -errno. */
int p9cli_fd_spawn(char *const argv[], pid_t *pid);

#endif
