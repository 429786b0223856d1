/* p9cli: the host stub of a File System On Chip (seed 002, the *_cli side).
 *
 * A small 9P2000.L client with a POSIX-like API: the host asks for files,
 * the device (steadyfs's 9P server, or any 9P2000.L server such as diod)
 * does the file system work.  Freestanding like the core: no malloc, no
 * stdio, no OS calls; the caller gives the message buffer, the fid bitmap
 * and a byte stream as two callbacks, so the same code runs on a Linux host
 * (build/steady-mount, the FUSE front end) and on a host microcontroller.
 *
 * Not thread-safe: one thread uses one struct p9cli (callers serialise).
 *
 * Paths are relative to the attached export root; "/a/b", "a/b" and
 * "a//b/" name the same file, "." components are dropped, ".." is sent to
 * the server (which keeps it inside the export).  Each component is at most
 * P9CLI_NAME_MAX bytes (else -P9CLI_ENAMETOOLONG).
 *
 * Errors: every function returns a negative Linux errno (the P9CLI_E*
 * values below, fixed so they do not depend on the target's errno.h).
 * Errors the server reports (Rlerror) come back unchanged.  The stub's own:
 *   -P9CLI_EPROTO      a reply that does not decode, has the wrong type or
 *                      claims more data than was asked for; the stream is
 *                      still in step, the connection stays usable.
 *   -P9CLI_ECONNRESET  the transport hit end-of-stream;
 *   -P9CLI_EMSGSIZE    a reply's size field is < 7 or > msize: the stream
 *                      cannot be resynchronised.
 *   After ECONNRESET, EMSGSIZE, a reply on a tag nobody asked on, or a
 *   transport error, the connection is dead: every later call returns the
 *   same error (p9cli_dead()), and outstanding non-blocking reads complete
 *   with it.  The stub never reads or writes outside the caller's buffers,
 *   whatever the server sends (tests/c/test_p9cli.c feeds it bad replies).
 *
 * Non-blocking read (seed 002 §4.2, overlapped I/O): p9cli_read_start()
 * sends a Tread on its own tag and returns at once; the host computes;
 * p9cli_read_wait() collects the data.  Several reads may be outstanding
 * together, and synchronous calls may be made meanwhile: replies are matched
 * to requests by tag, whatever order the server answers in.
 *
 * RAM (all caller-provided, nothing static, no heap):
 *   - one message buffer of B bytes (B = the msize proposed; the server may
 *     negotiate it down).  Requests and replies share it: a request is sent
 *     whole before any reply is read.  B >= P9CLI_BUF_MIN;
 *   - the fid bitmap: 4 * ceil(F / 32) bytes for F fids (one per open file
 *     or directory, one per path lookup in flight, fid 0 is the root);
 *   - struct p9cli: sizeof(struct p9cli), 344 bytes on Cortex-M3 (it holds
 *     one struct p9_msg, 272) and 392 on x86-64;
 *   - per open file a struct p9cli_file (24 bytes on Cortex-M3), per open
 *     directory a struct p9cli_dir (56) plus its entry buffer, per
 *     outstanding non-blocking read a struct p9cli_aread (20);
 *   - stack: under 512 bytes (no recursion; the deepest path is a call
 *     that walks then encodes/decodes).
 *   Total for B = 4096, F = 32: 4096 + 4 + 344 = 4444 bytes + files.
 */
#ifndef STEADYFS_P9CLI_H
#define STEADYFS_P9CLI_H

#include <stddef.h>
#include <stdint.h>

#include "steadyfs/p9.h"

/* Linux errno values (asm-generic/errno*.h), as negative returns. */
enum {
    P9CLI_EPERM = 1, P9CLI_ENOENT = 2, P9CLI_EIO = 5, P9CLI_EBADF = 9,
    P9CLI_EAGAIN = 11, P9CLI_EACCES = 13, P9CLI_EBUSY = 16, P9CLI_EEXIST = 17,
    P9CLI_ENOTDIR = 20, P9CLI_EISDIR = 21, P9CLI_EINVAL = 22,
    P9CLI_EMFILE = 24, P9CLI_ENOSPC = 28, P9CLI_EROFS = 30,
    P9CLI_ENAMETOOLONG = 36, P9CLI_ENOSYS = 38, P9CLI_ENOTEMPTY = 39,
    P9CLI_EPROTO = 71, P9CLI_EMSGSIZE = 90, P9CLI_EPROTONOSUPPORT = 93,
    P9CLI_EOPNOTSUPP = 95, P9CLI_ECONNRESET = 104, P9CLI_ENOTCONN = 107,
};

/* Open flags: 9P2000.L's (Linux's generic O_* values, P9_DOTL_* in Linux's
 * net/9p), so they go on the wire unchanged.  A host maps its own O_*. */
#define P9CLI_O_RDONLY    00u
#define P9CLI_O_WRONLY    01u
#define P9CLI_O_RDWR      02u
#define P9CLI_O_ACCMODE   03u
#define P9CLI_O_CREAT     0100u
#define P9CLI_O_EXCL      0200u
#define P9CLI_O_TRUNC     01000u
#define P9CLI_O_APPEND    02000u
#define P9CLI_O_DIRECTORY 0200000u

/* Tunlinkat flag (Linux AT_REMOVEDIR). */
#define P9CLI_AT_REMOVEDIR 0x200u

#define P9CLI_NAME_MAX 255u
/* Smallest message buffer: a Trenameat of two P9CLI_NAME_MAX names is 529
 * bytes.  (Walks are split to fit the msize, so any depth works.)  A server
 * may still negotiate msize below this (down to P9_MSIZE_MIN); names that
 * then do not fit give -ENAMETOOLONG. */
#define P9CLI_BUF_MIN 576u

/* Transport.  send: write all len bytes; 0 or a negative errno.
 * recv: read 1..len bytes (may return fewer); the count, 0 at end of
 * stream, or a negative errno (a timeout is the transport's choice). */
typedef int (*p9cli_send_fn)(void *io, const uint8_t *buf, size_t len);
typedef int (*p9cli_recv_fn)(void *io, uint8_t *buf, size_t len);

struct p9cli_config {
    p9cli_send_fn send;
    p9cli_recv_fn recv;
    void *io;               /* passed to send/recv */
    uint8_t *buf;           /* message buffer, bufsize bytes */
    uint32_t bufsize;       /* >= P9CLI_BUF_MIN; proposed as msize */
    uint32_t *fidmap;       /* (nfids + 31) / 32 words, any contents */
    uint32_t nfids;         /* >= 2 (the root and one more) */
    const char *uname;      /* Tattach uname (NULL: "") */
    const char *aname;      /* Tattach aname: the export (NULL: "") */
    uint32_t n_uname;       /* Tattach n_uname: numeric uid */
    uint32_t gid;           /* gid for Tlcreate/Tmkdir */
};

/* Out-of-order completion of non-blocking reads: private fields, the caller
 * only provides the storage. */
struct p9cli_aread {
    struct p9cli_aread *next;
    uint8_t *buf;
    uint32_t count;
    int32_t result;
    uint16_t tag;
    uint8_t busy, done;
};

struct p9cli {
    struct p9cli_config cfg;
    uint32_t msize;         /* negotiated */
    int32_t dead;           /* 0, or the error that ended the connection */
    uint16_t next_tag;      /* next tag tried for a non-blocking read */
    uint16_t sync_tag;      /* tag of the synchronous request in flight */
    uint8_t sync_wait, sync_done;
    uint8_t no_at;          /* server lacks Tunlinkat/Trenameat: use Tremove/Trename */
    int32_t sync_rc;        /* decode result of the synchronous reply */
    uint32_t next_fid;      /* where the fid search starts */
    struct p9cli_aread *pending;
    struct p9_msg m;        /* the request being encoded / reply decoded */
};

/* An open file.  pos is the offset p9cli_read/p9cli_write use and advance;
 * the caller may set it (lseek).  Fields other than pos are private. */
struct p9cli_file {
    uint32_t fid;           /* P9_NOFID when closed */
    uint32_t iounit;        /* max bytes per Tread/Twrite */
    uint64_t pos;
    uint32_t flags;         /* P9CLI_O_* given to open */
    uint8_t qtype;          /* qid.type: P9_QTDIR for a directory */
};

/* An open directory; buf (caller's, cap bytes) holds one Rreaddir. */
struct p9cli_dir {
    struct p9cli_file f;
    uint8_t *buf;
    uint32_t cap, len, pos;
    uint64_t offset;        /* Treaddir offset of the next batch */
    uint8_t eof;
};

struct p9cli_dirent {
    uint64_t ino;           /* qid.path */
    uint64_t offset;        /* resume position after this entry */
    uint8_t type;           /* Linux DT_* */
    uint8_t qtype;          /* qid.type */
    char name[P9CLI_NAME_MAX + 1];   /* NUL-terminated */
};

/* Attribute change (Tsetattr): valid is a set of P9_SETATTR_* bits. */
struct p9cli_attr {
    uint32_t valid, mode, uid, gid;
    uint64_t size, atime_sec, atime_nsec, mtime_sec, mtime_nsec;
};

/* Tversion (msize negotiation; the version must be "9P2000.L", else
 * -P9CLI_EPROTONOSUPPORT) then Tattach of the root as fid 0.  Returns 0;
 * on error the connection is dead. */
int p9cli_connect(struct p9cli *c, const struct p9cli_config *cfg);
/* Clunks the root.  The transport is the caller's to close. */
int p9cli_disconnect(struct p9cli *c);
/* 0 while the connection is usable, else the error that ended it. */
int p9cli_dead(const struct p9cli *c);
/* Largest data count one Tread/Twrite can carry at the negotiated msize. */
uint32_t p9cli_iosize(const struct p9cli *c);

/* open(2): P9CLI_O_* flags; mode (07777 bits) for O_CREAT.  O_CREAT|O_EXCL
 * on an existing name is -EEXIST.  With O_APPEND every write goes to the
 * file's current end (its size is fetched first).  Returns 0. */
int p9cli_open(struct p9cli *c, struct p9cli_file *f, const char *path,
               uint32_t flags, uint32_t mode);
/* Clunks the fid; f is closed even if the server errs. */
int p9cli_close(struct p9cli *c, struct p9cli_file *f);

/* read(2)/write(2) at f->pos, advancing it; pread/pwrite at off.  They
 * loop over as many messages as needed: a read returns fewer than n bytes
 * only at end of file, a write returns n; an error after some bytes were
 * moved returns that count (the next call reports the error). */
int32_t p9cli_read(struct p9cli *c, struct p9cli_file *f, void *buf, uint32_t n);
int32_t p9cli_write(struct p9cli *c, struct p9cli_file *f, const void *buf, uint32_t n);
int32_t p9cli_pread(struct p9cli *c, struct p9cli_file *f, uint64_t off, void *buf, uint32_t n);
int32_t p9cli_pwrite(struct p9cli *c, struct p9cli_file *f, uint64_t off,
                     const void *buf, uint32_t n);

/* Non-blocking read of up to min(n, p9cli_iosize()) bytes at off (one
 * Tread): returns 0 once sent.  r and buf must stay untouched until
 * p9cli_read_wait(r) returns the byte count (0 at end of file) or an
 * error.  A completed read may be waited on again (same result). */
int p9cli_read_start(struct p9cli *c, struct p9cli_file *f, uint64_t off,
                     void *buf, uint32_t n, struct p9cli_aread *r);
int32_t p9cli_read_wait(struct p9cli *c, struct p9cli_aread *r);

/* fsync(2) (datasync nonzero: fdatasync). */
int p9cli_fsync(struct p9cli *c, struct p9cli_file *f, int datasync);

int p9cli_unlink(struct p9cli *c, const char *path);
int p9cli_mkdir(struct p9cli *c, const char *path, uint32_t mode);
int p9cli_rmdir(struct p9cli *c, const char *path);
/* symlink(2): a symbolic link at path holding target (Tsymlink, the
 * config's gid).  readlink(2): the target into buf, NUL-terminated; its
 * length, or -ENAMETOOLONG if it needs more than cap - 1 bytes. */
int p9cli_symlink(struct p9cli *c, const char *target, const char *path);
int32_t p9cli_readlink(struct p9cli *c, const char *path, char *buf, uint32_t cap);
/* rename(2): replaces an existing target as the server allows. */
int p9cli_rename(struct p9cli *c, const char *from, const char *to);

/* stat(2) as Rgetattr (P9_GETATTR_BASIC asked for; st->valid says what
 * came back). */
int p9cli_stat(struct p9cli *c, const char *path, struct p9_stat *st);
int p9cli_fstat(struct p9cli *c, struct p9cli_file *f, struct p9_stat *st);
/* chmod/chown/truncate/utimens in one: Tsetattr. */
int p9cli_setattr(struct p9cli *c, const char *path, const struct p9cli_attr *a);
int p9cli_fsetattr(struct p9cli *c, struct p9cli_file *f, const struct p9cli_attr *a);
int p9cli_truncate(struct p9cli *c, const char *path, uint64_t size);
int p9cli_statfs(struct p9cli *c, struct p9_statfs *st);

/* opendir/readdir/closedir.  buf (cap bytes, >= P9_DIRENT_HDR +
 * P9CLI_NAME_MAX; more means fewer round trips) holds one Rreaddir batch.
 * readdir returns 1 with an entry ("." and ".." included, as the server
 * sends them), 0 at the end, or an error. */
int p9cli_opendir(struct p9cli *c, struct p9cli_dir *d, const char *path,
                  uint8_t *buf, uint32_t cap);
int p9cli_readdir(struct p9cli *c, struct p9cli_dir *d, struct p9cli_dirent *e);
/* rewinddir(3): the next readdir starts over (no message sent). */
void p9cli_rewinddir(struct p9cli_dir *d);
int p9cli_closedir(struct p9cli *c, struct p9cli_dir *d);

#endif
