/* steady-serve: a simulated steadyfs device exported over 9P2000.L (the
 * "File System On Chip" of issue 6, on the host).  `steady serve ...`
 * execs this binary.  The image file persists between runs (sh_open_sim
 * maps it); SIGINT/SIGTERM end the current client, commit its open files
 * and unmount. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            "usage: steady-serve --device PROFILE --image IMG [--blocks N] [--format]\n"
            "                    [--read-only] [--listen tcp:127.0.0.1:5640|unix:PATH|stdio|tty:DEV]\n"
            "                    [--framed] [--baud N] [--msize N] [--fids N] [--open-max N]\n"
            "                    [--max-clients N] [--verbose]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *device = "mt29f1g01", *image = NULL;
    uint32_t blocks = 0, msize = 65536, fids = 256, open_max = 8;
    int format = 0, read_only = 0, i, rc;
    serve_opts so;
    serve_conn c;
    sh_dev *h;
    steadyfs fs;
    steadyfs_config cfg;
    p9srv srv;
    p9srv_config pc;
    void *work = NULL, *sector = NULL, *mem = NULL, *buf = NULL, *lmem = NULL;
    struct sigaction sa;

    memset(&so, 0, sizeof so);
    so.listen = "tcp:127.0.0.1:5640";
    so.baud = 115200;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && v)
            device = v, i++;
        else if (!strcmp(a, "--image") && v)
            image = v, i++;
        else if (!strcmp(a, "--blocks") && v)
            blocks = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--listen") && v)
            so.listen = v, i++;
        else if (!strcmp(a, "--baud") && v)
            so.baud = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--msize") && v)
            msize = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--fids") && v)
            fids = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--open-max") && v)
            open_max = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--max-clients") && v)
            so.max_clients = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--format"))
            format = 1;
        else if (!strcmp(a, "--read-only"))
            read_only = 1;
        else if (!strcmp(a, "--framed"))
            so.framed = 1;
        else if (!strcmp(a, "--verbose"))
            so.verbose = 1;
        else
            return usage();
    }
    if (!image || msize < P9_MSIZE_MIN || msize > (1u << 20) || !fids || fids > 65535)
        return usage();

    h = sh_open_sim(device, image, blocks, SIM_TYPICAL, 1, 0, &rc);
    if (!h) {
        fprintf(stderr, "steady serve: cannot open %s on %s: %s\n", device, image, sh_last_error());
        return 1;
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.bd = sh_bd(h);
    cfg.open_max = (uint16_t)open_max;
    {
        sbd_geometry g;
        sh_geometry(h, &g);
        sector = calloc(1, g.page_size > 4096 ? g.page_size : 4096);
    }
    cfg.work_size = steadyfs_work_size(&cfg);
    work = calloc(1, cfg.work_size ? cfg.work_size : 1);
    cfg.work = work;
    cfg.sector_buf = sector;
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
    if (rc) {
        fprintf(stderr, "steady serve: mount %s: %s%s\n", image, steadyfs_strerror(rc),
                format ? "" : " (a new image needs --format)");
        rc = 1;
        goto out_dev;
    }

    memset(&pc, 0, sizeof pc);
    pc.fs = &fs;
    pc.msize_max = msize;
    pc.fid_max = (uint16_t)fids;
    pc.path_max = 4096;   /* PATH_MAX: a host has the RAM (fids x 4 KiB) */
    pc.read_only = (uint8_t)read_only;
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

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;   /* no SA_RESTART: blocking calls return EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    fprintf(stderr, "steady serve: %s on %s, msize %u, %u fids%s\n", device, image,
            (unsigned)msize, (unsigned)fids, pc.read_only ? ", read-only" : "");
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
    free(work);
    free(sector);
    free(mem);
    free(buf);
    free(lmem);
    return rc;
}
