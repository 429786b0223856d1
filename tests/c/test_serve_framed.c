/* steady serve's framed transport (the host side of a raw UART link): the
 * server loop of src/host/serve_conn.c runs in a child process on one end of
 * a socket pair; the parent is a 9P client behind its own frame.h link
 * whose line drops and corrupts bytes in both directions.  A 16 KiB file is
 * written, synced and read back through the damaged line; the child then
 * checks the file through steadyfs itself.  Then the same over steady
 * serve's tty: endpoint on a pseudo-terminal (raw mode, framing forced). */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fs_testdev.h"
#include "host/serve.h"

#define MSIZE 4096u
#define FILE_LEN 16384u

static uint8_t pattern[FILE_LEN];

/* ---- the lossy line, as the client sees it ---- */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t n_dropped, n_corrupted;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 32);
}
/* Per byte: 1 in 1000 lost, 1 in 2000 flipped. */
static int damage(uint8_t *b)
{
    uint32_t r = rnd() % 2000u;
    if (r < 2) {
        n_dropped++;
        return 0;
    }
    if (r == 2) {
        *b ^= (uint8_t)(1u + rnd() % 255u);
        n_corrupted++;
    }
    return 1;
}

static int cfd;
static int c_put(void *u, const uint8_t *b, size_t n)
{
    size_t i;
    (void)u;
    for (i = 0; i < n; i++) {
        uint8_t x = b[i];
        if (damage(&x) && write(cfd, &x, 1) != 1)
            return FRAME_E_IO;
    }
    return 0;
}
static int c_get(void *u, uint8_t *b, size_t cap)
{
    uint8_t tmp[256];
    ssize_t r, i;
    int n = 0;
    (void)u;
    r = read(cfd, tmp, cap < sizeof tmp ? cap : sizeof tmp);
    if (r <= 0)
        return 0;
    for (i = 0; i < r; i++) {
        uint8_t x = tmp[i];
        if (damage(&x))
            b[n++] = x;
    }
    return n;
}
static uint32_t c_now(void *u)
{
    struct timespec ts;
    (void)u;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static struct frame_link L;
static uint8_t lmem[FRAME_MEM(256)];
static uint8_t tx[MSIZE], rx[MSIZE];
static struct p9_msg R;
static uint16_t tag;

static void idle(void)
{
    struct pollfd p = {.fd = cfd, .events = POLLIN};
    poll(&p, 1, 2);
}

/* One request/reply over the framed link; returns the reply type or -1. */
static int rpc(struct p9_msg *m)
{
    int n, off = 0, have = 0, need = 4, spins = 0;
    m->tag = m->type == P9_TVERSION ? P9_NOTAG : ++tag;
    n = p9_encode(m, tx, sizeof tx);
    if (n < 0)
        return -1;
    while (off < n) {
        int r = frame_write(&L, tx + off, (size_t)(n - off));
        if (r < 0)
            return -1;
        off += r;
        if (frame_poll(&L) < 0)
            return -1;
        if (r == 0)
            idle();
    }
    while (have < need) {
        int r = frame_read(&L, rx + have, (size_t)(need - have));
        if (r > 0) {
            have += r;
            if (have == 4 && need == 4) {
                need = (int)(rx[0] | rx[1] << 8 | rx[2] << 16 | (uint32_t)rx[3] << 24);
                if (need < 7 || need > (int)MSIZE)
                    return -1;
            }
            continue;
        }
        if (frame_poll(&L) < 0 || ++spins > 20000)
            return -1;
        idle();
    }
    if (p9_decode(rx, (size_t)have, MSIZE, &R) != have || R.tag != m->tag)
        return -1;
    return R.type;
}

static int server_child(int fd)
{
    tdev t;
    p9srv srv;
    static uint32_t mem[2048];
    static uint8_t buf[MSIZE], smem[FRAME_MEM(256)], back[FILE_LEN];
    p9srv_config pc;
    serve_conn c;
    int fdh, ok;
    if (tdev_open(&t, "mt29f1g01", 64, 1) || steadyfs_format(&t.fs, &t.cfg) ||
        steadyfs_mount(&t.fs, &t.cfg))
        return 10;
    memset(&pc, 0, sizeof pc);
    pc.fs = &t.fs;
    pc.mem = mem;
    pc.mem_size = sizeof mem;
    pc.msize_max = MSIZE;
    if (p9srv_init(&srv, &pc))
        return 11;
    memset(&c, 0, sizeof c);
    c.srv = &srv;
    c.fs = &t.fs;
    c.buf = buf;
    c.cap = MSIZE;
    c.rfd = c.wfd = fd;
    c.framed = 1;
    c.fcfg.mtu = 256;
    c.fcfg.rto_ms = 25;
    c.fcfg.max_retries = 200;
    c.link_mem = smem;
    c.idle_ms = 20;
    if (serve_conn_frame_init(&c))
        return 12;
    serve_conn_run(&c);   /* until the client's end closes */
    fdh = steadyfs_open(&t.fs, "/framed.bin", STEADYFS_O_RDONLY);
    ok = fdh >= 0 && steadyfs_read(&t.fs, fdh, back, FILE_LEN) == (int32_t)FILE_LEN &&
         !memcmp(back, pattern, FILE_LEN) && steadyfs_close(&t.fs, fdh) == 0 &&
         steadyfs_unmount(&t.fs) == 0;
    fprintf(stderr, "server: %llu messages over the framed link, file %s\n",
            (unsigned long long)c.msgs, ok ? "intact" : "WRONG");
    tdev_close(&t);
    return ok ? 0 : 13;
}

/* The client's whole session; returns after hanging up. */
static void client_session(int fd)
{
    uint32_t i, off;
    struct p9_msg m;
    struct frame_io io = {.user = NULL, .put = c_put, .get = c_get, .now_ms = c_now};
    struct frame_cfg fc = {.mtu = 256, .rto_ms = 25, .max_retries = 200};
    static uint8_t back[FILE_LEN];
    cfd = fd;
    tag = 0;
    n_dropped = n_corrupted = 0;
    fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) | O_NONBLOCK);
    CHECK_EQ(frame_init(&L, &io, &fc, lmem, sizeof lmem), 0);

    memset(&m, 0, sizeof m);
    m.type = P9_TVERSION;
    m.u.version.msize = MSIZE;
    m.u.version.version = p9_cstr("9P2000.L");
    CHECK_EQ(rpc(&m), P9_RVERSION);
    memset(&m, 0, sizeof m);
    m.type = P9_TATTACH;
    m.u.tattach.afid = P9_NOFID;
    m.u.tattach.n_uname = P9_NONUNAME;
    CHECK_EQ(rpc(&m), P9_RATTACH);
    memset(&m, 0, sizeof m);
    m.type = P9_TWALK;
    m.u.twalk.newfid = 1;
    CHECK_EQ(rpc(&m), P9_RWALK);
    memset(&m, 0, sizeof m);
    m.type = P9_TLCREATE;
    m.u.tlcreate.fid = 1;
    m.u.tlcreate.name = p9_cstr("framed.bin");
    m.u.tlcreate.flags = 2;
    CHECK_EQ(rpc(&m), P9_RLCREATE);
    for (off = 0; off < FILE_LEN; off += 2000) {
        uint32_t n = FILE_LEN - off < 2000 ? FILE_LEN - off : 2000;
        memset(&m, 0, sizeof m);
        m.type = P9_TWRITE;
        m.u.twrite.fid = 1;
        m.u.twrite.offset = off;
        m.u.twrite.count = n;
        m.u.twrite.data = pattern + off;
        CHECK_EQ(rpc(&m), P9_RWRITE);
        CHECK_EQ(R.u.rwrite.count, n);
    }
    memset(&m, 0, sizeof m);
    m.type = P9_TFSYNC;
    m.u.tfsync.fid = 1;
    CHECK_EQ(rpc(&m), P9_RFSYNC);
    memset(back, 0, sizeof back);
    for (off = 0; off < FILE_LEN;) {
        memset(&m, 0, sizeof m);
        m.type = P9_TREAD;
        m.u.tread.fid = 1;
        m.u.tread.offset = off;
        m.u.tread.count = 3000;
        if (rpc(&m) != P9_RREAD || R.u.rread.count == 0) {
            CHECK(0);
            break;
        }
        memcpy(back + off, R.u.rread.data, R.u.rread.count);
        off += R.u.rread.count;
    }
    CHECK(!memcmp(back, pattern, FILE_LEN));
    memset(&m, 0, sizeof m);
    m.type = P9_TCLUNK;
    m.u.fid.fid = 1;
    CHECK_EQ(rpc(&m), P9_RCLUNK);
    /* the line was really damaged, and the link repaired it */
    printf("line damage: %u bytes dropped, %u corrupted; %u retransmissions, %u CRC errors\n",
           (unsigned)n_dropped, (unsigned)n_corrupted, (unsigned)L.stats.retransmits,
           (unsigned)L.stats.crc_errors);
    CHECK(n_dropped > 10);
    CHECK(n_corrupted > 5);
    CHECK(L.stats.retransmits > 0);
    /* let the last ACKs through */
    for (i = 0; i < 200 && !frame_tx_idle(&L); i++) {
        frame_poll(&L);
        idle();
    }
}

static volatile sig_atomic_t child_stop;
static void on_term(int sig)
{
    (void)sig;
    child_stop = 1;
}

/* steady serve's tty endpoint on the slave of a pseudo-terminal. */
static int tty_child(const char *slave)
{
    tdev t;
    p9srv srv;
    static uint32_t mem[2048];
    static uint8_t buf[MSIZE], smem[FRAME_MEM(256)], back[FILE_LEN];
    p9srv_config pc;
    serve_conn c;
    serve_opts o;
    char spec[128];
    struct sigaction sa;
    int fdh, ok;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    if (tdev_open(&t, "mt29f1g01", 64, 1) || steadyfs_format(&t.fs, &t.cfg) ||
        steadyfs_mount(&t.fs, &t.cfg))
        return 10;
    memset(&pc, 0, sizeof pc);
    pc.fs = &t.fs;
    pc.mem = mem;
    pc.mem_size = sizeof mem;
    pc.msize_max = MSIZE;
    if (p9srv_init(&srv, &pc))
        return 11;
    memset(&c, 0, sizeof c);
    c.srv = &srv;
    c.fs = &t.fs;
    c.buf = buf;
    c.cap = MSIZE;
    c.fcfg.mtu = 256;
    c.fcfg.rto_ms = 25;
    c.fcfg.max_retries = 200;
    c.link_mem = smem;
    c.idle_ms = 20;
    c.stop = &child_stop;
    memset(&o, 0, sizeof o);
    snprintf(spec, sizeof spec, "tty:%s", slave);
    o.listen = spec;
    o.baud = 115200;
    if (serve_listen_run(&o, &c))   /* until SIGTERM */
        return 12;
    fdh = steadyfs_open(&t.fs, "/framed.bin", STEADYFS_O_RDONLY);
    ok = fdh >= 0 && steadyfs_read(&t.fs, fdh, back, FILE_LEN) == (int32_t)FILE_LEN &&
         !memcmp(back, pattern, FILE_LEN) && steadyfs_close(&t.fs, fdh) == 0 &&
         steadyfs_unmount(&t.fs) == 0;
    fprintf(stderr, "tty server: file %s\n", ok ? "intact" : "WRONG");
    tdev_close(&t);
    return ok ? 0 : 13;
}

int main(void)
{
    int sv[2], status = -1, master;
    uint32_t i;
    pid_t pid;
    for (i = 0; i < FILE_LEN; i++)
        pattern[i] = (uint8_t)(i * 31u + (i >> 9));

    /* 1: a socket pair */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        close(sv[0]);
        _exit(server_child(sv[1]));
    }
    close(sv[1]);
    client_session(sv[0]);
    close(sv[0]);
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* 2: tty:/dev/pts/N, the host side of a raw serial line */
    master = posix_openpt(O_RDWR | O_NOCTTY);
    CHECK(master >= 0);
    if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0) {
        char slave[64];
        struct termios tio;
        int sfd;
        snprintf(slave, sizeof slave, "%s", ptsname(master));
        /* raw before anything crosses, so nothing is echoed back */
        sfd = open(slave, O_RDWR | O_NOCTTY);
        if (sfd >= 0 && tcgetattr(sfd, &tio) == 0) {
            cfmakeraw(&tio);
            tcsetattr(sfd, TCSANOW, &tio);
        }
        fflush(NULL);
        pid = fork();
        if (pid == 0) {
            close(master);
            _exit(tty_child(slave));
        }
        client_session(master);
        kill(pid, SIGTERM);
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (sfd >= 0)
            close(sfd);
    }
    if (master >= 0)
        close(master);
    return check_done("test_serve_framed");
}
