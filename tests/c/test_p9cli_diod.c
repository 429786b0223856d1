/* The p9cli stub against an implementation nobody here wrote: Debian's
 * diod serves a temporary directory on a socketpair (diod -r 0 -w 1), the
 * stub makes every call, and each effect is checked on the directory
 * itself with POSIX calls. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "host/p9cli_fd.h"
#include "steadyfs/p9cli.h"

#define BUFSZ 8192u
#define NFIDS 64u

static char root[64];
static uint8_t msgbuf[BUFSZ];
static uint32_t fidmap[(NFIDS + 31) / 32];

static const char *hp(const char *rel)
{
    static char p[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", root, rel);
    return p[i];
}

/* Reads a whole host file; returns its size or -1. */
static long host_read(const char *rel, uint8_t *buf, size_t cap)
{
    int fd = open(hp(rel), O_RDONLY);
    if (fd < 0) return -1;
    long n = (long)read(fd, buf, cap);
    close(fd);
    return n;
}

static void host_write(const char *rel, const void *data, size_t n)
{
    int fd = open(hp(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, n) != (ssize_t)n) fprintf(stderr, "host write %s failed\n", rel);
    if (fd >= 0) close(fd);
}

static int fids_in_use(void)
{
    int n = 0;
    for (uint32_t i = 0; i < NFIDS; i++) n += (fidmap[i / 32] >> (i % 32)) & 1u;
    return n;
}

static uint8_t big[300000], back[300000];

static void test_files(struct p9cli *c)
{
    struct p9cli_file f;
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7u + (i >> 9));

    /* create + multi-message write */
    CHECK_EQ(p9cli_open(c, &f, "/a.bin", P9CLI_O_WRONLY | P9CLI_O_CREAT | P9CLI_O_EXCL, 0640), 0);
    CHECK_EQ(p9cli_write(c, &f, big, sizeof big), (int)sizeof big);
    CHECK_EQ(p9cli_fsync(c, &f, 0), 0);
    CHECK_EQ(p9cli_read(c, &f, back, 10), -P9CLI_EBADF);   /* write-only */
    CHECK_EQ(p9cli_close(c, &f), 0);
    CHECK_EQ(p9cli_close(c, &f), -P9CLI_EBADF);
    CHECK_EQ(host_read("a.bin", back, sizeof back), (long)sizeof big);
    CHECK(memcmp(big, back, sizeof big) == 0);
    struct stat hs;
    CHECK(stat(hp("a.bin"), &hs) == 0 && (hs.st_mode & 0777) == 0640);

    CHECK_EQ(p9cli_open(c, &f, "a.bin", P9CLI_O_RDWR | P9CLI_O_CREAT | P9CLI_O_EXCL, 0644), -P9CLI_EEXIST);
    CHECK_EQ(p9cli_open(c, &f, "nope", P9CLI_O_RDONLY, 0), -P9CLI_ENOENT);
    CHECK_EQ(p9cli_open(c, &f, "nodir/x", P9CLI_O_RDWR | P9CLI_O_CREAT, 0644), -P9CLI_ENOENT);

    /* read back in odd chunks, pread, EOF */
    CHECK_EQ(p9cli_open(c, &f, "a.bin", P9CLI_O_RDONLY, 0), 0);
    memset(back, 0, sizeof back);
    uint32_t got = 0;
    int32_t n;
    while ((n = p9cli_read(c, &f, back + got, 12345)) > 0) got += (uint32_t)n;
    CHECK_EQ(n, 0);
    CHECK_EQ(got, sizeof big);
    CHECK(memcmp(big, back, sizeof big) == 0);
    CHECK_EQ(p9cli_pread(c, &f, 250000, back, 100), 100);
    CHECK(memcmp(back, big + 250000, 100) == 0);
    CHECK_EQ(p9cli_pread(c, &f, sizeof big - 5, back, 100), 5);
    CHECK_EQ(p9cli_write(c, &f, "x", 1), -P9CLI_EBADF);   /* read-only */
    struct p9_stat st;
    CHECK_EQ(p9cli_fstat(c, &f, &st), 0);
    CHECK_EQ(st.size, sizeof big);

    /* non-blocking reads: two in flight, a synchronous call between,
     * collected in the other order */
    struct p9cli_aread r1, r2;
    static uint8_t b1[4096], b2[4096];
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    CHECK_EQ(p9cli_read_start(c, &f, 0, b1, sizeof b1, &r1), 0);
    CHECK_EQ(p9cli_read_start(c, &f, 100000, b2, sizeof b2, &r2), 0);
    CHECK_EQ(p9cli_read_start(c, &f, 0, b1, sizeof b1, &r1), -P9CLI_EBUSY);
    CHECK_EQ(p9cli_stat(c, "a.bin", &st), 0);
    CHECK_EQ(st.size, sizeof big);
    CHECK_EQ(p9cli_read_wait(c, &r2), 4096);
    CHECK_EQ(p9cli_read_wait(c, &r1), 4096);
    CHECK_EQ(p9cli_read_wait(c, &r1), 4096);
    CHECK(memcmp(b1, big, 4096) == 0);
    CHECK(memcmp(b2, big + 100000, 4096) == 0);
    CHECK_EQ(p9cli_read_start(c, &f, sizeof big, b1, sizeof b1, &r1), 0);
    CHECK_EQ(p9cli_read_wait(c, &r1), 0);
    CHECK_EQ(p9cli_close(c, &f), 0);

    /* O_TRUNC, O_APPEND (also against a write made on the host meanwhile) */
    CHECK_EQ(p9cli_open(c, &f, "a.bin", P9CLI_O_WRONLY | P9CLI_O_TRUNC, 0), 0);
    CHECK_EQ(p9cli_close(c, &f), 0);
    CHECK(stat(hp("a.bin"), &hs) == 0 && hs.st_size == 0);
    CHECK_EQ(p9cli_open(c, &f, "a.bin", P9CLI_O_WRONLY | P9CLI_O_APPEND, 0), 0);
    CHECK_EQ(p9cli_write(c, &f, "abc", 3), 3);
    host_write("a.bin", "abcXY", 5);
    CHECK_EQ(p9cli_write(c, &f, "def", 3), 3);
    CHECK_EQ(p9cli_close(c, &f), 0);
    CHECK_EQ(host_read("a.bin", back, sizeof back), 8);
    CHECK(memcmp(back, "abcXYdef", 8) == 0);

    /* truncate and setattr */
    CHECK_EQ(p9cli_truncate(c, "a.bin", 4), 0);
    CHECK(stat(hp("a.bin"), &hs) == 0 && hs.st_size == 4);
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    a.valid = P9_SETATTR_MODE | P9_SETATTR_MTIME | P9_SETATTR_MTIME_SET;
    a.mode = 0600;
    a.mtime_sec = 1000000000;
    CHECK_EQ(p9cli_setattr(c, "a.bin", &a), 0);
    CHECK(stat(hp("a.bin"), &hs) == 0 && (hs.st_mode & 0777) == 0600 && hs.st_mtime == 1000000000);
    CHECK_EQ(p9cli_stat(c, "a.bin", &st), 0);
    CHECK_EQ(st.mtime_sec, 1000000000);
    CHECK_EQ(st.mode & 0777, 0600);
    CHECK(S_ISREG(st.mode));
}

static void test_namespace(struct p9cli *c)
{
    struct stat hs;
    struct p9_stat st;
    CHECK_EQ(p9cli_mkdir(c, "d", 0755), 0);
    CHECK_EQ(p9cli_mkdir(c, "d/e/", 0700), 0);
    CHECK(stat(hp("d/e"), &hs) == 0 && S_ISDIR(hs.st_mode) && (hs.st_mode & 0777) == 0700);
    CHECK_EQ(p9cli_mkdir(c, "d", 0755), -P9CLI_EEXIST);
    CHECK_EQ(p9cli_mkdir(c, "/", 0755), -P9CLI_EINVAL);
    CHECK_EQ(p9cli_stat(c, "d/./e", &st), 0);
    CHECK(S_ISDIR(st.mode));
    CHECK(st.qid.type & P9_QTDIR);

    CHECK_EQ(p9cli_rename(c, "a.bin", "d/e/b.bin"), 0);
    CHECK(access(hp("a.bin"), F_OK) != 0 && access(hp("d/e/b.bin"), F_OK) == 0);
    CHECK_EQ(p9cli_rename(c, "gone", "d/x"), -P9CLI_ENOENT);

    /* many entries with long names: several Treaddir batches through a
     * small entry buffer */
    CHECK_EQ(mkdir(hp("many"), 0755), 0);
    char name[300];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "many/%03d-%0200d", i, i);
        host_write(name, name, 10);
    }
    struct p9cli_dir d;
    static uint8_t dbuf[1024];
    CHECK_EQ(p9cli_opendir(c, &d, "many", dbuf, sizeof dbuf), 0);
    static struct p9cli_dirent e;
    int seen[200] = { 0 }, others = 0, rc;
    while ((rc = p9cli_readdir(c, &d, &e)) == 1) {
        int i;
        if (strlen(e.name) == 204 && sscanf(e.name, "%3d-", &i) == 1 && i >= 0 && i < 200)
            seen[i]++;
        else if (!strcmp(e.name, ".") || !strcmp(e.name, ".."))
            CHECK(e.type == DT_DIR);
        else
            others++;
    }
    CHECK_EQ(rc, 0);
    CHECK_EQ(others, 0);
    int once = 0;
    for (int i = 0; i < 200; i++) once += seen[i] == 1;
    CHECK_EQ(once, 200);
    CHECK_EQ(p9cli_closedir(c, &d), 0);
    CHECK_EQ(p9cli_opendir(c, &d, "d/e/b.bin", dbuf, sizeof dbuf), -P9CLI_ENOTDIR);

    /* a path deeper than one Twalk (16 names) */
    char deep[400] = "";
    for (int i = 0; i < 20; i++) {
        strcat(deep, i ? "/l" : "l");
        CHECK_EQ(mkdir(hp(deep), 0755), 0);
    }
    strcat(deep, "/f.txt");
    CHECK_EQ(p9cli_open(c, &(struct p9cli_file){ 0 }, deep, P9CLI_O_RDONLY, 0), -P9CLI_ENOENT);
    struct p9cli_file f;
    CHECK_EQ(p9cli_open(c, &f, deep, P9CLI_O_RDWR | P9CLI_O_CREAT, 0644), 0);
    CHECK_EQ(p9cli_write(c, &f, "deep", 4), 4);
    CHECK_EQ(p9cli_close(c, &f), 0);
    CHECK_EQ(host_read(deep, (uint8_t *)name, sizeof name), 4);
    memset(name, 'n', 256);
    name[256] = 0;
    CHECK_EQ(p9cli_stat(c, name, &st), -P9CLI_ENAMETOOLONG);
    CHECK_EQ(p9cli_mkdir(c, name, 0755), -P9CLI_ENAMETOOLONG);

    /* removal */
    CHECK_EQ(p9cli_rmdir(c, "d"), -P9CLI_ENOTEMPTY);
    CHECK_EQ(p9cli_unlink(c, "d/e/b.bin"), 0);
    CHECK_EQ(p9cli_unlink(c, "d/e/b.bin"), -P9CLI_ENOENT);
    CHECK_EQ(p9cli_rmdir(c, "d/e"), 0);
    CHECK_EQ(p9cli_rmdir(c, "d"), 0);
    CHECK(access(hp("d"), F_OK) != 0);

    struct p9_statfs sf;
    CHECK_EQ(p9cli_statfs(c, &sf), 0);
    CHECK(sf.bsize > 0 && sf.blocks > 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    snprintf(root, sizeof root, "/tmp/p9cli-diod-XXXXXX");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    char *argv[] = { "diod", "-f", "-n", "-N", "-r", "0", "-w", "1", "-e", root, "-L", "stderr", NULL };
    setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 0);
    if (access("/usr/sbin/diod", X_OK) != 0) {
        fprintf(stderr, "test_p9cli_diod: diod not installed (scripts/debian-packages.txt lists it)\n");
        CHECK(0);
        return check_done("test_p9cli_diod");
    }
    pid_t pid;
    int fd = p9cli_fd_spawn(argv, &pid);
    CHECK(fd >= 0);
    struct p9cli c;
    struct p9cli_config cfg = {
        .send = p9cli_fd_send, .recv = p9cli_fd_recv, .io = (void *)(intptr_t)fd,
        .buf = msgbuf, .bufsize = BUFSZ, .fidmap = fidmap, .nfids = NFIDS,
        .uname = "root", .aname = root, .n_uname = (uint32_t)getuid(), .gid = (uint32_t)getgid(),
    };
    int rc = p9cli_connect(&c, &cfg);
    CHECK_EQ(rc, 0);
    if (rc == 0) {
        CHECK(c.msize <= BUFSZ && c.msize >= 4096);
        test_files(&c);
        test_namespace(&c);
        CHECK_EQ(fids_in_use(), 1);   /* only the root: nothing leaked */
        CHECK_EQ(p9cli_disconnect(&c), 0);
        CHECK_EQ(p9cli_stat(&c, "x", &(struct p9_stat){ 0 }), -P9CLI_ENOTCONN);
    }
    close(fd);
    int status;
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return check_done("test_p9cli_diod");
}
