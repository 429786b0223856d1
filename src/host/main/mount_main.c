/* steady-mount: a FUSE file system whose every call goes through the p9cli
 * stub to a 9P2000.L server, so unmodified programs (ls, cp, cat, gzip,
 * find) use a File System On Chip through the VFS.  `steady mount` execs
 * this binary.
 *
 *   steady-mount --fsoc tcp:HOST:PORT|unix:PATH MOUNTPOINT [options]
 *   steady-mount IMAGE MOUNTPOINT [--device PROFILE] [--create] [--format] [options]
 *
 * The second form serves a local steadyfs image (like littlefs-fuse) with
 * steadyfs's own 9P server (p9srv) in this process: the stub's send hands
 * each request to p9srv_handle and its recv reads the reply back, so the
 * image is reached through exactly the path a device would serve.  The
 * image's header gives its profile and block count; a new image needs
 * --create (and --device), which formats it; --format makes a new file
 * system on an existing one.  The 9P session is set up before
 * FUSE mounts, so a server that cannot be reached or an image that does not
 * mount is reported at once with a non-zero exit; then the process goes to
 * the background (unless -f) and serves until `fusermount3 -u MOUNTPOINT`,
 * when the image is synced and unmounted.
 *
 * FUSE runs single-threaded: the stub serves one call at a time. */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "host/p9cli_fd.h"
#include "steadyfs/host.h"
#include "steadyfs/p9cli.h"
#include "steadyfs/p9srv.h"
#include "steadyfs/steadyfs.h"

#define NFIDS 4096u
#define DIRBUF 8192u

static struct p9cli cli;
static uint32_t fidmap[(NFIDS + 31) / 32];
static uint8_t *msgbuf;

static uint32_t to_p9flags(int fl)
{
    uint32_t f = (uint32_t)(fl & O_ACCMODE);
    if (fl & O_CREAT) f |= P9CLI_O_CREAT;
    if (fl & O_EXCL) f |= P9CLI_O_EXCL;
    if (fl & O_TRUNC) f |= P9CLI_O_TRUNC;
    if (fl & O_APPEND) f |= P9CLI_O_APPEND;
    return f;
}

static void to_stat(const struct p9_stat *p, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = (ino_t)p->qid.path;
    st->st_mode = (mode_t)p->mode;
    st->st_nlink = (nlink_t)p->nlink;
    st->st_uid = p->uid;
    st->st_gid = p->gid;
    st->st_rdev = (dev_t)p->rdev;
    st->st_size = (off_t)p->size;
    st->st_blksize = (blksize_t)(p->blksize ? p->blksize : 4096);
    st->st_blocks = (blkcnt_t)p->blocks;
    st->st_atim.tv_sec = (time_t)p->atime_sec;
    st->st_atim.tv_nsec = (long)p->atime_nsec;
    st->st_mtim.tv_sec = (time_t)p->mtime_sec;
    st->st_mtim.tv_nsec = (long)p->mtime_nsec;
    st->st_ctim.tv_sec = (time_t)p->ctime_sec;
    st->st_ctim.tv_nsec = (long)p->ctime_nsec;
}

static struct p9cli_file *fh(const struct fuse_file_info *fi)
{
    return fi ? (struct p9cli_file *)(uintptr_t)fi->fh : NULL;
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->use_ino = 1;
    /* An open file unlinked or renamed over is renamed to .fuse_hiddenN by
     * libfuse and removed at its last release (libfuse's default): the
     * server would keep it as an orphan under hard_remove, but libfuse
     * then answers fstat(2) and the other calls the kernel sends without
     * a file handle with ESTALE (a stress-ng "seek" worker's SEEK_HOLE,
     * for one).  Other clients see the hidden name meanwhile (docs/P9.md). */
    cfg->hard_remove = 0;
    return NULL;
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    struct p9_stat p;
    struct p9cli_file *f = fh(fi);
    int rc = f ? p9cli_fstat(&cli, f, &p) : p9cli_stat(&cli, path, &p);
    if (rc == 0) to_stat(&p, st);
    return rc;
}

static int do_open(const char *path, int flags, mode_t mode, struct fuse_file_info *fi)
{
    struct p9cli_file *f = malloc(sizeof *f);
    if (f == NULL) return -ENOMEM;
    int rc = p9cli_open(&cli, f, path, to_p9flags(flags), mode);
    if (rc) {
        free(f);
        return rc;
    }
    fi->fh = (uint64_t)(uintptr_t)f;
    return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
    return do_open(path, fi->flags, 0, fi);
}

static int owned(const char *path, int rc);
static void as_caller(void);

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    as_caller();
    return owned(path, do_open(path, fi->flags | O_CREAT, mode, fi));
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct p9cli_file *f = fh(fi);
    int rc = p9cli_close(&cli, f);
    free(f);
    return rc;
}

static int op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    return p9cli_pread(&cli, fh(fi), (uint64_t)off, buf, (uint32_t)size);
}

static int op_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    /* The kernel gives the offset, O_APPEND included (it knows i_size). */
    return p9cli_pwrite(&cli, fh(fi), (uint64_t)off, buf, (uint32_t)size);
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    return p9cli_fsync(&cli, fh(fi), datasync);
}

static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    a.valid = P9_SETATTR_SIZE;
    a.size = (uint64_t)size;
    struct p9cli_file *f = fh(fi);
    return f ? p9cli_fsetattr(&cli, f, &a) : p9cli_setattr(&cli, path, &a);
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    a.valid = P9_SETATTR_MODE;
    a.mode = mode & 07777;
    struct p9cli_file *f = fh(fi);
    return f ? p9cli_fsetattr(&cli, f, &a) : p9cli_setattr(&cli, path, &a);
}

static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    if (uid != (uid_t)-1) a.valid |= P9_SETATTR_UID, a.uid = uid;
    if (gid != (gid_t)-1) a.valid |= P9_SETATTR_GID, a.gid = gid;
    if (a.valid == 0) return 0;
    struct p9cli_file *f = fh(fi);
    return f ? p9cli_fsetattr(&cli, f, &a) : p9cli_setattr(&cli, path, &a);
}

static int op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    /* 9P: the time bit alone means "now"; with *_SET the value given. */
    if (tv[0].tv_nsec != UTIME_OMIT) {
        a.valid |= P9_SETATTR_ATIME;
        if (tv[0].tv_nsec != UTIME_NOW) {
            a.valid |= P9_SETATTR_ATIME_SET;
            a.atime_sec = (uint64_t)tv[0].tv_sec;
            a.atime_nsec = (uint64_t)tv[0].tv_nsec;
        }
    }
    if (tv[1].tv_nsec != UTIME_OMIT) {
        a.valid |= P9_SETATTR_MTIME;
        if (tv[1].tv_nsec != UTIME_NOW) {
            a.valid |= P9_SETATTR_MTIME_SET;
            a.mtime_sec = (uint64_t)tv[1].tv_sec;
            a.mtime_nsec = (uint64_t)tv[1].tv_nsec;
        }
    }
    if (a.valid == 0) return 0;
    struct p9cli_file *f = fh(fi);
    return f ? p9cli_fsetattr(&cli, f, &a) : p9cli_setattr(&cli, path, &a);
}

/* A new name belongs to the calling process's user and group: the gid
 * rides in the create message; the owner is the attach's user, so when
 * another user creates through an allow_other mount the owner is set
 * afterwards (a server that checks permissions lets only root do that). */
static void as_caller(void)
{
    cli.cfg.gid = (uint32_t)fuse_get_context()->gid;
}

static int owned(const char *path, int rc)
{
    uid_t uid = fuse_get_context()->uid;
    if (rc || uid == getuid()) return rc;
    struct p9cli_attr a;
    memset(&a, 0, sizeof a);
    a.valid = P9_SETATTR_UID;
    a.uid = uid;
    return p9cli_setattr(&cli, path, &a);
}

static int op_mkdir(const char *path, mode_t mode)
{
    as_caller();
    return owned(path, p9cli_mkdir(&cli, path, mode));
}

static int op_symlink(const char *target, const char *path)
{
    as_caller();
    return owned(path, p9cli_symlink(&cli, target, path));
}

static int op_readlink(const char *path, char *buf, size_t size)
{
    static char t[4096];
    int32_t n = p9cli_readlink(&cli, path, t, sizeof t);
    if (n < 0) return n;
    if (size == 0) return -EINVAL;
    /* FUSE: NUL-terminated, cut to the buffer if longer */
    if ((size_t)n >= size) n = (int32_t)size - 1;
    memcpy(buf, t, (size_t)n);
    buf[n] = 0;
    return 0;
}

/* steadyfs keeps no hard links, FIFOs, sockets or device nodes: EPERM, as
 * link(2) and mknod(2) answer on a file system without them (regular
 * files come through create) */
static int op_link(const char *from, const char *to)
{
    (void)from;
    (void)to;
    return -EPERM;
}

static int op_mknod(const char *path, mode_t mode, dev_t rdev)
{
    (void)rdev;
    if (S_ISREG(mode)) {
        struct fuse_file_info fi;
        memset(&fi, 0, sizeof fi);
        fi.flags = O_WRONLY | O_CREAT | O_EXCL;
        as_caller();
        int rc = do_open(path, fi.flags, mode, &fi);
        if (rc == 0) {
            struct p9cli_file *f = fh(&fi);
            rc = p9cli_close(&cli, f);
            free(f);
        }
        return owned(path, rc);
    }
    return -EPERM;
}

static int op_unlink(const char *path)
{
    return p9cli_unlink(&cli, path);
}

static int op_rmdir(const char *path)
{
    return p9cli_rmdir(&cli, path);
}

static int op_rename(const char *from, const char *to, unsigned int flags)
{
    /* RENAME_NOREPLACE / RENAME_EXCHANGE have no 9P2000.L equivalent. */
    if (flags != 0) return -EINVAL;
    return p9cli_rename(&cli, from, to);
}

struct dirh {
    struct p9cli_dir d;
    uint8_t buf[DIRBUF];
};

static int op_opendir(const char *path, struct fuse_file_info *fi)
{
    struct dirh *h = malloc(sizeof *h);
    if (h == NULL) return -ENOMEM;
    int rc = p9cli_opendir(&cli, &h->d, path, h->buf, sizeof h->buf);
    if (rc) {
        free(h);
        return rc;
    }
    fi->fh = (uint64_t)(uintptr_t)h;
    return 0;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)path;
    (void)off;
    (void)flags;
    struct dirh *h = (struct dirh *)(uintptr_t)fi->fh;
    /* Offset-less mode: the whole listing in one call, from the start. */
    p9cli_rewinddir(&h->d);
    static struct p9cli_dirent e;
    int rc;
    /* "." and ".." always, whether or not the server lists them (steadyfs's
     * does not, diod's does). */
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    while ((rc = p9cli_readdir(&cli, &h->d, &e)) == 1) {
        if (!strcmp(e.name, ".") || !strcmp(e.name, "..")) continue;
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = (ino_t)e.ino;
        st.st_mode = (mode_t)(e.type << 12);   /* DT_* is S_IFMT >> 12 */
        if (fill(buf, e.name, &st, 0, 0)) break;
    }
    return rc < 0 ? rc : 0;
}

static int op_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct dirh *h = (struct dirh *)(uintptr_t)fi->fh;
    int rc = p9cli_closedir(&cli, &h->d);
    free(h);
    return rc;
}

static int op_statfs(const char *path, struct statvfs *sv)
{
    (void)path;
    struct p9_statfs s;
    int rc = p9cli_statfs(&cli, &s);
    if (rc) return rc;
    memset(sv, 0, sizeof *sv);
    sv->f_bsize = sv->f_frsize = s.bsize;
    sv->f_blocks = (fsblkcnt_t)s.blocks;
    sv->f_bfree = (fsblkcnt_t)s.bfree;
    sv->f_bavail = (fsblkcnt_t)s.bavail;
    sv->f_files = (fsfilcnt_t)s.files;
    sv->f_ffree = sv->f_favail = (fsfilcnt_t)s.ffree;
    sv->f_fsid = (unsigned long)s.fsid;
    sv->f_namemax = s.namelen ? s.namelen : P9CLI_NAME_MAX;
    return 0;
}

/* ---- in-process server for IMAGE mounts ---- */
static struct {
    sh_dev *dev;
    steadyfs fs;
    steadyfs_config cfg;
    p9srv srv;
    uint8_t *buf;          /* the server's message buffer */
    uint8_t *q;            /* replies not yet read by the stub */
    size_t qcap, qlen, qpos;
    int on;
    int created;           /* this process made the image file (--create) */
} local;

static int local_send(void *io, const uint8_t *buf, size_t len)
{
    (void)io;
    if (len > local.srv.msize) return -EMSGSIZE;
    memcpy(local.buf, buf, len);
    int32_t r = p9srv_handle(&local.srv, local.buf, (uint32_t)len, local.buf, local.srv.msize);
    if (r < 0) return -ECONNRESET;   /* the server drops the link */
    if (local.qpos == local.qlen) local.qpos = local.qlen = 0;
    if (local.qlen + (size_t)r > local.qcap) return -ENOBUFS;
    memcpy(local.q + local.qlen, local.buf, (size_t)r);
    local.qlen += (size_t)r;
    return 0;
}

static int local_recv(void *io, uint8_t *buf, size_t len)
{
    (void)io;
    size_t n = local.qlen - local.qpos;
    if (n == 0) return 0;   /* no reply pending: end of stream */
    if (n > len) n = len;
    memcpy(buf, local.q + local.qpos, n);
    local.qpos += n;
    return (int)n;
}

/* IMAGE as its header describes it (profile and blocks, if given, must
 * agree); created only with --create, formatted only with --create or
 * --format. */
static int local_open(const char *image, const char *profile, uint32_t blocks, int format,
                      int create, uint32_t msize)
{
    /* One user of an image at a time: the lock is held (across the FUSE
     * daemon's fork) until the process ends, after the unmount has been
     * written, so an immediate remount waits for it instead of reading a
     * half-written image.  A new image is created (O_EXCL) and locked
     * before it is formatted. */
    int lfd = open(image, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0666);
    for (int i = 0; lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB) != 0; i++) {
        if (lfd < 0 || errno != EWOULDBLOCK || i >= 100) {
            fprintf(stderr, "steady-mount: %s: %s%s\n", image,
                    lfd < 0 ? strerror(errno) : "in use (mounted elsewhere?)",
                    lfd >= 0 ? "" : errno == ENOENT ? " (--create makes a new image)"
                                  : errno == EEXIST ? " (mount it without --create; --format "
                                                      "makes a new file system on it)" : "");
            return -1;
        }
        usleep(100000);
    }
    local.created = create;
    int err = 0;
    local.dev = create ? sh_open_sim(profile, image, blocks, SIM_TYPICAL, 1, 1, &err)
                       : sh_open_image(image, profile, blocks, SIM_TYPICAL, &err);
    if (local.dev == NULL) {
        fprintf(stderr, "steady-mount: %s\n", sh_last_error());
        return -1;
    }
    if (create) format = 1;
    profile = sh_name(local.dev);
    local.cfg.bd = sh_bd(local.dev);
    local.cfg.open_max = 16;   /* files FUSE may hold open at once */
    if (!format)
        sh_probe_config(&local.cfg);   /* the image's format (mkfs options, a ring) */
    uint32_t ws = steadyfs_work_size(&local.cfg);
    local.cfg.work = aligned_alloc(8, (ws + 7u) & ~7u);
    local.cfg.work_size = ws;
    local.cfg.sector_buf = malloc(2048 * 8 + 32);   /* any sector size up to 16 KiB, with its tag */
    local.cfg.sector_buf_size = 2048 * 8 + 32;
    local.cfg.clock = sh_clock_ns;
    if (ws == 0 || !local.cfg.work || !local.cfg.sector_buf) {
        fprintf(stderr, "steady-mount: no steadyfs configuration for %s\n", profile);
        return -1;
    }
    int rc = format ? steadyfs_format(&local.fs, &local.cfg) : 0;
    if (rc == 0) rc = steadyfs_mount(&local.fs, &local.cfg);
    if (rc == 0 && format) rc = sh_fs_own_root(&local.fs);
    if (rc) {
        fprintf(stderr, "steady-mount: %s: %s%s\n", image, sh_fs_strerror(rc),
                format || rc == STEADYFS_EFORMAT ? "" : " (not formatted? --format makes a new file system)");
        return -1;
    }
    /* path_max as `steady serve` (PATH_MAX): names up to 255 bytes at any
     * depth a host path reaches, like the image tools (the default 128 is
     * the firmware's RAM budget) */
    p9srv_config sc = { .fs = &local.fs, .msize_max = msize, .fid_max = 64, .path_max = P9SRV_PATH_MAX_HOST,
                        .access_user = 1 };
    sc.mem_size = p9srv_mem_size(&sc);
    sc.mem = aligned_alloc(8, (sc.mem_size + 7u) & ~7u);
    local.buf = malloc(msize);
    local.qcap = 4u * msize;
    local.q = malloc(local.qcap);
    if (!sc.mem || !local.buf || !local.q || p9srv_init(&local.srv, &sc) != 0) {
        fprintf(stderr, "steady-mount: cannot start the 9P server\n");
        return -1;
    }
    local.on = 1;
    return 0;
}

static void op_destroy(void *priv)
{
    (void)priv;
    p9cli_disconnect(&cli);
    if (local.on) {
        /* commits whatever the session left open, then the file system */
        p9srv_disconnect(&local.srv);
        steadyfs_unmount(&local.fs);
        sh_sync(local.dev);
        sh_close(local.dev);
        local.on = 0;
    }
}

static const struct fuse_operations ops = {
    .init = op_init,
    .destroy = op_destroy,
    .getattr = op_getattr,
    .open = op_open,
    .create = op_create,
    .release = op_release,
    .read = op_read,
    .write = op_write,
    .fsync = op_fsync,
    .truncate = op_truncate,
    .chmod = op_chmod,
    .chown = op_chown,
    .utimens = op_utimens,
    .mkdir = op_mkdir,
    .symlink = op_symlink,
    .readlink = op_readlink,
    .link = op_link,
    .mknod = op_mknod,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .rename = op_rename,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_releasedir,
    .statfs = op_statfs,
};

static int usage(void)
{
    fprintf(stderr,
            "usage: steady-mount --fsoc tcp:HOST:PORT|unix:PATH MOUNTPOINT [options]\n"
            "       steady-mount IMAGE MOUNTPOINT [--device PROFILE] [--blocks N] [options]\n"
            "options: --aname PATH (export to attach, default \"\")  --uname NAME\n"
            "         --msize N (default 65536)\n"
            "         --create (IMAGE: a new image file of --device PROFILE, --blocks N\n"
            "           (0: the profile's), formatted)  --format (IMAGE: a new file system)\n"
            "         IMAGE's header gives its profile and blocks: --device/--blocks, if\n"
            "         given, must agree\n"
            "         --allow-other (other users may use the mount: FUSE's allow_other;\n"
            "           for a user other than root, /etc/fuse.conf needs user_allow_other)\n"
            "         -f (foreground)  -d (FUSE debug)  -o OPTS (FUSE mount options)\n"
            "         the kernel checks mode bits (default_permissions)\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *fsoc = NULL, *device = NULL, *aname = "", *uname = "root";
    const char *pos[2] = { NULL, NULL }, *fuse_opts = NULL;
    int npos = 0, foreground = 0, debug = 0, format = 0, create = 0, allow_other = 0;
    unsigned long blocks = 0;
    unsigned long msize = 65536;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--fsoc") && v) fsoc = v, i++;
        else if (!strcmp(a, "--device") && v) device = v, i++;
        else if (!strcmp(a, "--profile-def") && v) {
            /* a user's device profile (`steady mount --profile-file`) */
            if (sh_profile_option("steady mount", v))
                return 2;
            i++;
        }
        else if (!strcmp(a, "--aname") && v) aname = v, i++;
        else if (!strcmp(a, "--uname") && v) uname = v, i++;
        else if (!strcmp(a, "--msize") && v) msize = strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--blocks") && v) blocks = strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--format")) format = 1;
        else if (!strcmp(a, "--create")) create = 1;
        else if (!strcmp(a, "--allow-other")) allow_other = 1;
        else if (!strcmp(a, "-o") && v) fuse_opts = v, i++;
        else if (!strcmp(a, "-f")) foreground = 1;
        else if (!strcmp(a, "-d")) debug = 1, foreground = 1;
        else if (a[0] != '-' && npos < 2) pos[npos++] = a;
        else return usage();
    }
    const char *mountpoint = fsoc ? pos[0] : pos[1];
    if (mountpoint == NULL || (fsoc && npos != 1) || (!fsoc && npos != 2))
        return usage();
    if (create && !device) {
        fprintf(stderr, "steady-mount: --create needs --device PROFILE (see `steady devices`)\n");
        return 2;
    }
    if (msize < P9CLI_BUF_MIN || msize > (1u << 24)) {
        fprintf(stderr, "steady-mount: --msize must be %u..%u\n", P9CLI_BUF_MIN, 1u << 24);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);

    struct p9cli_config cfg = {
        .buf = NULL, .bufsize = (uint32_t)msize, .fidmap = fidmap, .nfids = NFIDS,
        .uname = uname, .aname = aname, .n_uname = (uint32_t)getuid(), .gid = (uint32_t)getgid(),
    };
    if (fsoc) {
        const char *why = NULL;
        int fd = p9cli_fd_dial(fsoc, &why);
        if (fd < 0) {
            fprintf(stderr, "steady-mount: cannot reach %s: %s\n", fsoc, why);
            return 1;
        }
        cfg.send = p9cli_fd_send;
        cfg.recv = p9cli_fd_recv;
        cfg.io = (void *)(intptr_t)fd;
    } else {
        if (local_open(pos[0], device, (uint32_t)blocks, format, create, (uint32_t)msize) != 0) {
            if (local.created) unlink(pos[0]);   /* nothing half-made left behind */
            return 1;
        }
        cfg.send = local_send;
        cfg.recv = local_recv;
    }
    msgbuf = malloc(msize);
    if (msgbuf == NULL) return 1;
    cfg.buf = msgbuf;
    int rc = p9cli_connect(&cli, &cfg);
    if (rc) {
        fprintf(stderr, "steady-mount: 9P session with %s failed: %s\n",
                fsoc ? fsoc : pos[0], strerror(-rc));
        return 1;
    }

    char opts[1024];
    /* default_permissions: the kernel checks each caller against the mode
     * bits (its groups included), as on a local file system; the server
     * checks the mount's user as well (docs/P9.md) */
    snprintf(opts, sizeof opts, "fsname=%s,subtype=steadyfs,default_permissions%s%s%s",
             fsoc ? fsoc : pos[0], allow_other ? ",allow_other" : "", fuse_opts ? "," : "",
             fuse_opts ? fuse_opts : "");
    char *fargv[8];
    int fargc = 0;
    fargv[fargc++] = argv[0];
    fargv[fargc++] = (char *)mountpoint;
    fargv[fargc++] = "-s";
    fargv[fargc++] = "-o";
    fargv[fargc++] = opts;
    if (foreground) fargv[fargc++] = "-f";
    if (debug) fargv[fargc++] = "-d";
    fargv[fargc] = NULL;
    rc = fuse_main(fargc, fargv, &ops, NULL);
    op_destroy(NULL);   /* if FUSE never mounted: still leave the image clean */
    return rc;
}
