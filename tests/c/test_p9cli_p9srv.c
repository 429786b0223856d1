/* The p9cli stub against steadyfs's own 9P server (p9srv) on a simulated
 * NAND, in one process: the stub's send hands each request to
 * p9srv_handle and queues the reply for its recv.  Every effect is checked
 * through steadyfs itself, and the overlapped reads of seed 002 §4.2 are
 * run against the real server. */
#include <string.h>

#include "check.h"
#include "fs_testdev.h"
#include "steadyfs/p9cli.h"
#include "steadyfs/p9srv.h"

#define MSIZE 4096u
#define NFIDS 16u

static tdev T;
static p9srv S;
static uint32_t srvmem[4096];
static uint8_t sbuf[MSIZE], cbuf[MSIZE];
static uint8_t q[4 * MSIZE];   /* replies not yet read by the stub */
static size_t qlen, qpos;
static uint32_t fidmap[(NFIDS + 31) / 32];
static int requests;

static int loop_send(void *io, const uint8_t *buf, size_t len)
{
    (void)io;
    requests++;
    memcpy(sbuf, buf, len);
    int32_t r = p9srv_handle(&S, sbuf, (uint32_t)len, sbuf, MSIZE);
    if (r < 0) return -P9CLI_ECONNRESET;   /* the server drops the link */
    if (qpos == qlen) qpos = qlen = 0;
    if (qlen + (size_t)r > sizeof q) return -P9CLI_EIO;
    memcpy(q + qlen, sbuf, (size_t)r);
    qlen += (size_t)r;
    return 0;
}

static int loop_recv(void *io, uint8_t *buf, size_t len)
{
    (void)io;
    if (qpos == qlen) return 0;   /* nothing pending: end of stream */
    size_t n = qlen - qpos < len ? qlen - qpos : len;
    memcpy(buf, q + qpos, n);
    qpos += n;
    return (int)n;
}

static int64_t fs_size(const char *path)
{
    steadyfs_stat st;
    int rc = steadyfs_stat_path(&T.fs, path, &st);
    return rc ? rc : (int64_t)st.size;
}

static int fs_read(const char *path, uint8_t *buf, uint32_t n)
{
    int fd = steadyfs_open(&T.fs, path, STEADYFS_O_RDONLY);
    if (fd < 0) return fd;
    int32_t r = steadyfs_read(&T.fs, fd, buf, n);
    steadyfs_close(&T.fs, fd);
    return r;
}

static uint8_t data[50000], back[50000];

int main(void)
{
    CHECK_EQ(tdev_open(&T, "mt29f1g01", 64, 1), 0);
    CHECK_EQ(steadyfs_format(&T.fs, &T.cfg), 0);
    CHECK_EQ(steadyfs_mount(&T.fs, &T.cfg), 0);
    p9srv_config sc = { .fs = &T.fs, .mem = srvmem, .mem_size = sizeof srvmem, .msize_max = MSIZE,
                        .fid_max = 16 };
    CHECK_EQ(p9srv_init(&S, &sc), 0);

    struct p9cli c;
    struct p9cli_config cfg = {
        .send = loop_send, .recv = loop_recv, .buf = cbuf, .bufsize = MSIZE,
        .fidmap = fidmap, .nfids = NFIDS, .uname = "host", .n_uname = 1000,
    };
    CHECK_EQ(p9cli_connect(&c, &cfg), 0);
    CHECK_EQ(c.msize, MSIZE);

    /* files: create, write over many messages, read back */
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 13u + (i >> 10));
    struct p9cli_file f;
    CHECK_EQ(p9cli_mkdir(&c, "log", 0755), 0);
    CHECK_EQ(p9cli_open(&c, &f, "log/a.bin", P9CLI_O_RDWR | P9CLI_O_CREAT | P9CLI_O_EXCL, 0644), 0);
    CHECK_EQ(p9cli_write(&c, &f, data, sizeof data), (int)sizeof data);
    CHECK_EQ(p9cli_fsync(&c, &f, 0), 0);
    CHECK_EQ(fs_size("/log/a.bin"), (int64_t)sizeof data);
    CHECK_EQ(p9cli_pread(&c, &f, 0, back, sizeof back), (int)sizeof data);
    CHECK(memcmp(data, back, sizeof data) == 0);
    CHECK_EQ(p9cli_close(&c, &f), 0);
    CHECK_EQ(fs_read("/log/a.bin", back, sizeof back), (int)sizeof data);
    CHECK(memcmp(data, back, sizeof data) == 0);
    CHECK_EQ(p9cli_open(&c, &f, "log/a.bin", P9CLI_O_RDWR | P9CLI_O_CREAT | P9CLI_O_EXCL, 0644), -P9CLI_EEXIST);
    CHECK_EQ(p9cli_open(&c, &f, "log/none", P9CLI_O_RDONLY, 0), -P9CLI_ENOENT);

    /* overlapped reads: issue, "compute", collect */
    CHECK_EQ(p9cli_open(&c, &f, "/log/a.bin", P9CLI_O_RDONLY, 0), 0);
    struct p9cli_aread r[2];
    static uint8_t b[2][4000];
    memset(r, 0, sizeof r);
    uint64_t off = 0, sum = 0, want = 0;
    int k = 0, ok = 1;
    CHECK_EQ(p9cli_read_start(&c, &f, 0, b[0], sizeof b[0], &r[0]), 0);
    for (;;) {
        int32_t n = p9cli_read_wait(&c, &r[k]);
        if (n <= 0) {
            CHECK_EQ(n, 0);
            break;
        }
        /* the next read is in flight while this block is processed */
        CHECK_EQ(p9cli_read_start(&c, &f, off + (uint64_t)n, b[!k], sizeof b[0], &r[!k]), 0);
        for (int32_t i = 0; i < n; i++) {
            sum += b[k][i];
            want += data[off + (uint64_t)i];
            ok &= b[k][i] == data[off + (uint64_t)i];
        }
        off += (uint64_t)n;
        k = !k;
    }
    CHECK(ok);
    CHECK_EQ(off, sizeof data);
    CHECK_EQ(sum, want);
    CHECK_EQ(p9cli_close(&c, &f), 0);

    /* O_TRUNC, O_APPEND, truncate */
    CHECK_EQ(p9cli_open(&c, &f, "log/a.bin", P9CLI_O_WRONLY | P9CLI_O_TRUNC, 0), 0);
    CHECK_EQ(p9cli_close(&c, &f), 0);
    CHECK_EQ(fs_size("/log/a.bin"), 0);
    CHECK_EQ(p9cli_open(&c, &f, "log/a.bin", P9CLI_O_WRONLY | P9CLI_O_APPEND, 0), 0);
    CHECK_EQ(p9cli_write(&c, &f, "abc", 3), 3);
    CHECK_EQ(p9cli_write(&c, &f, "def", 3), 3);
    CHECK_EQ(p9cli_close(&c, &f), 0);
    CHECK_EQ(fs_read("/log/a.bin", back, 100), 6);
    CHECK(memcmp(back, "abcdef", 6) == 0);
    CHECK_EQ(p9cli_truncate(&c, "log/a.bin", 2), 0);
    CHECK_EQ(fs_size("/log/a.bin"), 2);
    struct p9_stat st;
    CHECK_EQ(p9cli_stat(&c, "log/a.bin", &st), 0);
    CHECK_EQ(st.size, 2);
    CHECK((st.mode & 0170000) == 0100000);

    /* namespace */
    CHECK_EQ(p9cli_mkdir(&c, "log/sub", 0755), 0);
    CHECK_EQ(p9cli_rename(&c, "log/a.bin", "log/sub/b.bin"), 0);
    CHECK_EQ(fs_size("/log/a.bin"), STEADYFS_ENOENT);
    CHECK_EQ(fs_size("/log/sub/b.bin"), 2);
    for (int i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof name, "log/f%02d", i);
        CHECK_EQ(p9cli_open(&c, &f, name, P9CLI_O_WRONLY | P9CLI_O_CREAT, 0644), 0);
        CHECK_EQ(p9cli_close(&c, &f), 0);
    }
    struct p9cli_dir d;
    static uint8_t dbuf[300];   /* small: many Treaddir batches */
    static struct p9cli_dirent e;
    CHECK_EQ(p9cli_opendir(&c, &d, "log", dbuf, sizeof dbuf), 0);
    int files = 0, dirs = 0, rc;
    while ((rc = p9cli_readdir(&c, &d, &e)) == 1) {
        if (e.name[0] == 'f') files++;
        if (!strcmp(e.name, "sub")) dirs++;
    }
    CHECK_EQ(rc, 0);
    CHECK_EQ(files, 20);
    CHECK_EQ(dirs, 1);
    CHECK_EQ(p9cli_closedir(&c, &d), 0);
    CHECK_EQ(p9cli_rmdir(&c, "log/sub"), -P9CLI_ENOTEMPTY);
    CHECK_EQ(p9cli_unlink(&c, "log/sub/b.bin"), 0);
    CHECK_EQ(p9cli_rmdir(&c, "log/sub"), 0);
    CHECK_EQ(fs_size("/log/sub"), STEADYFS_ENOENT);
    CHECK_EQ(p9cli_unlink(&c, "log"), -P9CLI_EISDIR);
    struct p9_statfs sf;
    CHECK_EQ(p9cli_statfs(&c, &sf), 0);
    CHECK(sf.bsize > 0);
    CHECK_EQ(c.no_at, 0);   /* the server has Tunlinkat/Trenameat */
    CHECK_EQ(p9cli_disconnect(&c), 0);
    int nfid = 0;
    for (uint32_t i = 0; i < NFIDS; i++) nfid += (fidmap[i / 32] >> (i % 32)) & 1u;
    CHECK_EQ(nfid, 1);
    printf("p9cli <-> p9srv: %d requests\n", requests);
    p9srv_disconnect(&S);
    steadyfs_unmount(&T.fs);
    tdev_close(&T);
    return check_done("test_p9cli_p9srv");
}
