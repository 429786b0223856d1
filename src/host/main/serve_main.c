/* steady-serve: a simulated steadyfs device exported over 9P2000.L (the
 * "File System On Chip" of issue 6, on the host).  `steady serve ...`
 * execs this binary.  The image file persists between runs (sh_open_image
 * maps it, as its header describes it); nothing is created or formatted
 * unless asked (--create, --format).  TCP and Unix sockets serve up to
 * --max-clients at once (serve_clients.c).  SIGINT/SIGTERM end every
 * client, commit their open files and unmount. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/serve.h"
#include "steadyfs/host.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: steady-serve --image IMG [--device PROFILE] [--blocks N] [--create] [--format]\n"
            "                    [--read-only] [--access user|none]\n"
            "                    [--listen tcp:127.0.0.1:5640|unix:PATH|stdio|tty:DEV]\n"
            "                    [--framed] [--baud N] [--msize N] [--fids N] [--open-max N]\n"
            "                    [--max-clients N] [--stall-timeout S] [--no-hold] [--verbose]\n");
    return 2;
}

/* A number option: all digits, in range; else a one-line error. */
static int num(const char *opt, const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    unsigned long x;
    errno = 0;
    x = strtoul(v, &end, 0);
    if (errno || !*v || *end || v[0] == '-' || x < lo || x > hi) {
        fprintf(stderr, "steady serve: %s %s: want a number %u..%u\n", opt, v, (unsigned)lo,
                (unsigned)hi);
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *image = NULL;
    uint32_t blocks = 0, msize = 65536, fids = 256, open_max = 8;
    int format = 0, create = 0, read_only = 0, started = 0, access_user = 1, hold = 1, i, rc;
    serve_opts so;
    serve_conn c;
    sh_dev *h;
    steadyfs fs;
    steadyfs_config cfg;
    p9srv srv;
    p9srv_config pc;
    static struct p9srv_lock lock_entries[P9SRV_LOCKS_HOST];
    static p9srv_locks locks;
    void *work = NULL, *sector = NULL, *mem = NULL, *buf = NULL, *lmem = NULL;
    struct sigaction sa;

    memset(&so, 0, sizeof so);
    so.listen = "tcp:127.0.0.1:5640";
    so.baud = 115200;
    so.max_clients = 8;
    so.stall_ms = 60000;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && v)
            device = v, i++;
        else if (!strcmp(a, "--profile-def") && v) {
            /* a user's device profile (`steady serve --profile-file`) */
            if (sh_profile_option("steady serve", v))
                return 2;
            i++;
        } else if (!strcmp(a, "--image") && v)
            image = v, i++;
        else if (!strcmp(a, "--blocks") && v) {
            if (num(a, v, 0, 0xFFFFFFFFu, &blocks))
                return 2;
            i++;
        } else if (!strcmp(a, "--listen") && v)
            so.listen = v, i++;
        else if (!strcmp(a, "--baud") && v) {
            if (num(a, v, 1, 0xFFFFFFFFu, &so.baud))
                return 2;
            i++;
        } else if (!strcmp(a, "--msize") && v) {
            if (num(a, v, P9_MSIZE_MIN, 1u << 20, &msize))
                return 2;
            i++;
        } else if (!strcmp(a, "--fids") && v) {
            if (num(a, v, 1, 65535, &fids))
                return 2;
            i++;
        } else if (!strcmp(a, "--open-max") && v) {
            if (num(a, v, 1, 0xFFFF, &open_max))
                return 2;
            i++;
        } else if (!strcmp(a, "--max-clients") && v) {
            /* each client costs its fid table (--fids x path_max) and a
             * message buffer while connected: a bound keeps that finite */
            if (num(a, v, 1, 1024, &so.max_clients))
                return 2;
            i++;
        } else if (!strcmp(a, "--stall-timeout") && v) {
            uint32_t sec;
            if (num(a, v, 0, 86400, &sec))
                return 2;
            so.stall_ms = sec * 1000u;
            i++;
        } else if (!strcmp(a, "--format"))
            format = 1;
        else if (!strcmp(a, "--create"))
            create = 1;
        else if (!strcmp(a, "--read-only"))
            read_only = 1;
        else if (!strcmp(a, "--no-hold"))
            hold = 0;
        else if (!strcmp(a, "--access") && v && (!strcmp(v, "user") || !strcmp(v, "none")))
            access_user = !strcmp(v, "user"), i++;
        else if (!strcmp(a, "--framed"))
            so.framed = 1;
        else if (!strcmp(a, "--verbose"))
            so.verbose = 1;
        else
            return usage();
    }
    if (!image)
        return usage();
    if (create && !device) {
        fprintf(stderr, "steady serve: --create needs --device PROFILE (see `steady devices`)\n");
        return 2;
    }

    /* an existing image as its header describes it (--device and --blocks,
     * if given, must agree); a new one only with --create */
    if (create) {
        h = sh_create_image(image, device, blocks, SIM_TYPICAL, 1, &rc);
        format = 1;
    } else {
        h = sh_open_image(image, device, blocks, SIM_TYPICAL, &rc);
    }
    if (!h) {
        fprintf(stderr, "steady serve: %s%s\n", sh_last_error(),
                create ? (rc == SBD_ERR_IO && access(image, F_OK) == 0 ?
                          " (serve it without --create; --format makes a new file system on it)" : "")
                       : (access(image, F_OK) != 0 ? " (--create makes a new image)" : ""));
        return 1;
    }
    device = sh_name(h);
    memset(&cfg, 0, sizeof cfg);
    cfg.bd = sh_bd(h);
    cfg.open_max = (uint16_t)open_max;
    /* the format the image was made with (steady mkfs options: inode
     * count, record ring, ...), as the image tools read it; a failed probe
     * leaves the defaults, and the mount below says what is wrong */
    if (!format)
        sh_probe_config(&cfg);
    cfg.sector_buf_size = steadyfs_sector_buf_size(&cfg);
    sector = calloc(1, cfg.sector_buf_size ? cfg.sector_buf_size : 1);
    /* the held sector (steadyfs.h): a client's write + fsync is one
     * program fewer, its small sequential writes merge in RAM; host RAM
     * has room for it (the board's firmware is built without) */
    if (hold && !(cfg.hold_buf = calloc(1, cfg.sector_buf_size ? cfg.sector_buf_size : 1))) {
        fprintf(stderr, "steady serve: out of memory\n");
        rc = 1;
        goto out_dev;
    }
    cfg.work_size = steadyfs_work_size(&cfg);
    work = calloc(1, cfg.work_size ? cfg.work_size : 1);
    cfg.work = work;
    cfg.sector_buf = sector;
    cfg.clock = sh_clock_ns;
    if (!cfg.work_size || !work || !sector) {
        fprintf(stderr, "steady serve: bad configuration for %s (--open-max %u)\n", device,
                (unsigned)open_max);
        rc = 1;
        goto out_dev;
    }
    if (format) {
        rc = steadyfs_format(&fs, &cfg);
        if (rc) {
            fprintf(stderr, "steady serve: format: %s\n", steadyfs_strerror(rc));
            rc = 1;
            goto out_dev;
        }
    }
    rc = steadyfs_mount(&fs, &cfg);
    if (!rc && format)
        rc = sh_fs_own_root(&fs);
    if (rc) {
        fprintf(stderr, "steady serve: mount %s: %s%s\n", image, sh_fs_strerror(rc),
                format || rc == STEADYFS_EFORMAT ? ""
                                                 : " (not formatted? --format makes a new file system)");
        rc = 1;
        goto out_dev;
    }

    memset(&pc, 0, sizeof pc);
    pc.fs = &fs;
    pc.msize_max = msize;
    pc.fid_max = (uint16_t)fids;
    /* PATH_MAX - 1 bytes below a mount's root (p9srv.h); a host has the
     * RAM (fids x 4 KiB) */
    pc.path_max = P9SRV_PATH_MAX_HOST;
    pc.read_only = (uint8_t)read_only;
    pc.access_user = (uint8_t)access_user;
    pc.in_group = serve_in_group;   /* group bits by the host's groups */
    /* POSIX locks of every client, one table (docs/P9.md "Locks") */
    p9srv_locks_init(&locks, lock_entries, P9SRV_LOCKS_HOST);
    pc.locks = &locks;
    pc.mem_size = p9srv_mem_size(&pc);
    mem = calloc(1, pc.mem_size);
    buf = calloc(1, msize);
    pc.mem = mem;
    memset(&c, 0, sizeof c);
    c.fcfg.mtu = 256;
    c.fcfg.rto_ms = 100;
    c.fcfg.max_retries = 20;
    lmem = calloc(1, FRAME_MEM(c.fcfg.mtu));
    if (!mem || !buf || !lmem || p9srv_init(&srv, &pc)) {
        fprintf(stderr, "steady serve: bad server configuration\n");
        rc = 1;
        goto out_fs;
    }
    c.srv = &srv;
    c.fs = &fs;
    c.buf = buf;
    c.cap = msize;
    c.link_mem = lmem;
    c.stop = &stop_flag;
    so.pcfg = &pc;   /* the template of every socket client's session */

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;   /* no SA_RESTART: blocking calls return EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    fprintf(stderr, "steady serve: %s on %s, msize %u, %u fids, %u steadyfs handles, "
                    "up to %u clients%s\n", device, image, (unsigned)msize, (unsigned)fids,
            (unsigned)open_max, (unsigned)so.max_clients, pc.read_only ? ", read-only" : "");
    started = 1;
    rc = serve_listen_run(&so, &c) ? 1 : 0;

out_fs:
    {
        int u = steadyfs_unmount(&fs);
        if (u) {
            fprintf(stderr, "steady serve: unmount: %s\n", steadyfs_strerror(u));
            rc = 1;
        } else {
            fprintf(stderr, "steady serve: unmounted\n");
        }
    }
out_dev:
    sh_sync(h);
    sh_close(h);
    if (rc && create && !started)
        unlink(image);   /* nothing half-made left behind */
    free(work);
    free(sector);
    free(cfg.hold_buf);
    free(mem);
    free(buf);
    free(lmem);
    return rc;
}
