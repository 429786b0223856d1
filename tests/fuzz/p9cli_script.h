/* The call sequence the stub fuzzer runs (and its corpus generator records
 * a real server's answers to): every kind of request the stub makes, so
 * every kind of reply it parses is reached. */
#ifndef STEADYFS_P9CLI_SCRIPT_H
#define STEADYFS_P9CLI_SCRIPT_H

#include <string.h>

#include "steadyfs/p9cli.h"

#define P9CLI_SCRIPT_BUF 2048u
#define P9CLI_SCRIPT_FIDS 32u

/* Returns a checksum of the results, so nothing is optimised away. */
static inline int p9cli_script(struct p9cli *c)
{
    static uint8_t data[3000], dbuf[600];
    static struct p9cli_dirent e;
    struct p9cli_file f;
    struct p9cli_dir d;
    struct p9cli_aread r[2];
    struct p9_stat st;
    struct p9_statfs sf;
    int sum = 0;
    memset(r, 0, sizeof r);
    for (unsigned i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7u);
    sum += p9cli_mkdir(c, "d", 0755);
    if (p9cli_open(c, &f, "d/f", P9CLI_O_RDWR | P9CLI_O_CREAT | P9CLI_O_TRUNC, 0644) == 0) {
        sum += p9cli_write(c, &f, data, sizeof data);
        sum += p9cli_pread(c, &f, 0, data, sizeof data);
        if (p9cli_read_start(c, &f, 0, data, 1000, &r[0]) == 0) {
            if (p9cli_read_start(c, &f, 1000, data + 1000, 1000, &r[1]) == 0)
                sum += p9cli_read_wait(c, &r[1]);
            sum += p9cli_read_wait(c, &r[0]);
        }
        sum += p9cli_fstat(c, &f, &st);
        sum += p9cli_fsync(c, &f, 0);
        sum += p9cli_close(c, &f);
    }
    sum += p9cli_stat(c, "d/f", &st);
    sum += p9cli_truncate(c, "d/f", 10);
    if (p9cli_opendir(c, &d, "d", dbuf, sizeof dbuf) == 0) {
        int k = 0;
        while (k++ < 64 && p9cli_readdir(c, &d, &e) == 1) sum += e.name[0];
        sum += p9cli_closedir(c, &d);
    }
    sum += p9cli_rename(c, "d/f", "d/g");
    sum += p9cli_unlink(c, "d/g");
    sum += p9cli_rmdir(c, "d");
    sum += p9cli_statfs(c, &sf);
    sum += p9cli_disconnect(c);
    return sum;
}

#endif
