/* Seed corpus for fuzz_p9cli: the stub's call sequence (p9cli_script.h)
 * run against steadyfs's own 9P server on a simulated NAND, with every byte
 * the server sends back recorded: one well-formed session the fuzzer then
 * mutates.  Usage: p9cli_corpus_gen DIR */
#include <stdio.h>

#include "../c/fs_testdev.h"
#include "p9cli_script.h"
#include "steadyfs/p9srv.h"

static tdev T;
static p9srv S;
static uint32_t srvmem[4096];
static uint8_t sbuf[P9CLI_SCRIPT_BUF];
static uint8_t rec[1 << 16], q[1 << 14];
static size_t rec_len, qlen, qpos;

static int g_send(void *io, const uint8_t *buf, size_t len)
{
    (void)io;
    memcpy(sbuf, buf, len);
    int32_t r = p9srv_handle(&S, sbuf, (uint32_t)len, sbuf, sizeof sbuf);
    if (r < 0 || qlen + (size_t)r > sizeof q || rec_len + (size_t)r > sizeof rec) return -5;
    if (qpos == qlen) qpos = qlen = 0;
    memcpy(q + qlen, sbuf, (size_t)r);
    memcpy(rec + rec_len, sbuf, (size_t)r);
    qlen += (size_t)r;
    rec_len += (size_t)r;
    return 0;
}

static int g_recv(void *io, uint8_t *buf, size_t len)
{
    (void)io;
    size_t n = qlen - qpos < len ? qlen - qpos : len;
    memcpy(buf, q + qpos, n);
    qpos += n;
    return (int)n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: p9cli_corpus_gen DIR\n");
        return 2;
    }
    if (tdev_open(&T, "mt29f1g01", 64, 1) || steadyfs_format(&T.fs, &T.cfg) ||
        steadyfs_mount(&T.fs, &T.cfg))
        return 1;
    p9srv_config sc = { .fs = &T.fs, .mem = srvmem, .mem_size = sizeof srvmem,
                        .msize_max = sizeof sbuf, .fid_max = 16 };
    if (p9srv_init(&S, &sc)) return 1;
    static uint8_t buf[P9CLI_SCRIPT_BUF];
    static uint32_t map[(P9CLI_SCRIPT_FIDS + 31) / 32];
    struct p9cli c;
    struct p9cli_config cfg = { .send = g_send, .recv = g_recv, .buf = buf, .bufsize = sizeof buf,
                                .fidmap = map, .nfids = P9CLI_SCRIPT_FIDS, .uname = "fuzz" };
    if (p9cli_connect(&c, &cfg)) return 1;
    int sum = p9cli_script(&c);
    char path[512];
    snprintf(path, sizeof path, "%s/session", argv[1]);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(rec, 1, rec_len, f) != rec_len) return 1;
    fclose(f);
    printf("%s: %zu bytes of replies (script result %d)\n", path, rec_len, sum);
    tdev_close(&T);
    return 0;
}
