/* The device-side 9P2000.L server: steadyfs exported as a "File System On
 * Chip".  One complete T-message in, one R-message out; the transport (TCP,
 * a Unix socket, stdio, a UART with the frame.h layer) only moves bytes.
 * Freestanding like the core: no malloc, no stdio, caller memory.  This
 * header is the manual; docs/P9.md has the per-message costs.
 *
 * ---------------------------------------------------------------------------
 * Using it (one connection at a time per p9srv)
 *   static p9srv srv;
 *   static uint8_t mem[...];                 // p9srv_mem_size(&cfg) bytes
 *   static uint8_t buf[4096];                // msize_max bytes
 *   p9srv_config cfg = { .fs = &fs, .mem = mem, .mem_size = sizeof mem,
 *                        .msize_max = sizeof buf, .fid_max = 16 };
 *   p9srv_init(&srv, &cfg);
 *   for (;;) {                               // per message
 *       read 4 bytes into buf; n = p9srv_msg_len(&srv, buf); // < 0: drop the link
 *       read the remaining n - 4 bytes into buf + 4;
 *       r = p9srv_handle(&srv, buf, n, buf, sizeof buf); // in place is fine
 *       if (r < 0) { p9srv_disconnect(&srv); drop the link; }
 *       else write buf[0..r);
 *   }
 *   on EOF or a link error: p9srv_disconnect(&srv);
 *
 * Framing.  Every 9P message starts with size[4] (little-endian, counting
 * the size field itself) type[1] tag[2].  p9srv_msg_len() reads the size
 * field and judges it against the current msize (msize_max until Tversion
 * negotiates a smaller one): a size < 7 or > msize cannot be resynchronised
 * on a byte stream and means "drop the connection".
 *
 * Memory.  The caller provides:
 *   - sizeof(p9srv): the fixed state (two struct p9_msg, one directory
 *     entry, counters); 896 bytes on Cortex-M3, 944 on x86-64
 *     (tests/c/test_p9srv.c prints it);
 *   - mem: p9srv_mem_size(cfg) bytes, 4-aligned =
 *         fid_max * (P9SRV_FID_SIZE + path_max)   fid table with one path each
 *       + 2 * path_max                            two scratch paths (rename)
 *     P9SRV_FID_SIZE = 20; path_max is rounded up to a multiple of 4.
 *     fid_max 16, path_max 128: 16 * 148 + 256 = 2624 B;
 *   - the message buffer(s): msize_max bytes each; in and out may be the
 *     same buffer (the reply is built only after the request has been
 *     consumed);
 *   - the steadyfs itself: each fid open on a file holds one steadyfs
 *     handle; an open directory holds none (each Treaddir opens, seeks to
 *     the client's cookie, lists and closes).  Treaddir and Tsetattr of the
 *     size on a fid not open for writing need one free handle while they
 *     run, so open_max = files open at once + 1.  A full table answers
 *     ENFILE (a failed Tlcreate leaves no name behind).
 *   At msize 4096, fid_max 16, path_max 128, one shared buffer:
 *   896 + 2624 + 4096 = 7616 bytes on Cortex-M3.
 *
 * Paths.  steadyfs is path-based, so each fid remembers the absolute path of
 * its file (at most path_max - 1 bytes; default path_max 128).  A walk or a
 * create that would make a longer path fails with ENAMETOOLONG; a rename
 * rewrites the paths of the fids under it (a fid whose new path would not
 * fit becomes stale: ESTALE).  Each fid also remembers its file's 64-bit id
 * (qid.path), so a fid whose file was removed and whose name was reused
 * answers ESTALE instead of acting on the newcomer.
 *
 * Who gets in.  A client acts only through fids it was given (attach,
 * walk); walks never leave the export root (".." at the root stays there);
 * names containing '/' or NUL, empty names, "." and ".." where a new name is
 * meant (create, mkdir, unlink, rename), and names over 255 bytes are
 * refused (EINVAL, or ENAMETOOLONG for length; a walk whose path would
 * exceed path_max: ENAMETOOLONG).  read_only makes every change fail with
 * EROFS.  There is no authentication: Tauth answers ENOENT, which diod's
 * client library reads as "not required", and Tattach wants afid = NOFID
 * and aname "" or "/".  Use it on trusted links only (steady serve listens
 * on loopback unless told otherwise).
 *
 * Attributes.  Rgetattr reports steadyfs's mode, uid, gid, nlink
 * (directories: 2 + subdirectories), size, mtime and ctime (atime is not
 * kept: reported as mtime); Tsetattr changes mode, uid, gid and mtime
 * (steadyfs_setattr; ATIME alone changes nothing) and the size.  Tlcreate,
 * Tmkdir and Tsymlink create with the request's mode and gid and the
 * attach's n_uname as owner.  Treadlink answers a symlink's target (at most
 * path_max - 1 bytes).  Tlink and Tmknod answer EPERM: steadyfs has no hard
 * links, FIFOs, sockets or device nodes.
 *
 * Permissions (access_user).  Each change and open is checked against the
 * mode bits for the attach's n_uname, as diod with access=user: the owner
 * gets the owner bits, everyone else the "other" bits (the attach carries
 * no group list, so group bits grant nothing); uid 0 (and a client that
 * sent no n_uname) may do anything.  A walk needs search (x) on each
 * directory, Tlopen read and/or write on the file, a create, mkdir,
 * symlink, unlink or rename write and search on the directory, chmod,
 * chgrp and setting times to a given value the owner, chown root; EACCES
 * or EPERM otherwise (docs/P9.md).
 *
 * Not kept, and reported so:
 *   - xattrs: none.  Txattrwalk with a name answers ENODATA, the list (empty
 *     name) is empty; Txattrcreate answers EOPNOTSUPP;
 *   - Treaddir returns no "." or ".." entries; offsets are steadyfs
 *     directory cookies (stable across changes to the directory).
 *
 * Tlcreate behaves as open(2) with O_CREAT (an existing file is opened,
 * EEXIST only with O_EXCL); the fid becomes the open file.
 *
 * Durability.  Data written through a fid is committed (atomically, see
 * steadyfs.h) at Tfsync, at Tclunk/Tremove of the fid, at Tversion (which
 * ends the session) and at p9srv_disconnect; on a fid opened with O_SYNC
 * or O_DSYNC (Tlopen/Tlcreate flags) every Twrite is itself a commit
 * (steadyfs's O_DSYNC), durable when Rwrite is sent.  A file that is open through
 * a fid may be unlinked or renamed over, as in steadyfs: its open fids go on
 * reading and writing it (an orphan) until the last is clunked (EBUSY only
 * when steadyfs has as many orphans as it can keep; docs/P9.md).
 *
 * Real-time.  Each message makes a bounded number of steadyfs calls (at
 * most 16 path lookups for a walk, one seek + one read/write for
 * Tread/Twrite, (count / 24) + 1 readdir steps for Treaddir; docs/P9.md),
 * so steadyfs_bound() carries through.  The server's own work is O(size of
 * the message + fid_max * path_max) byte operations.
 *
 * Several clients (a host serving many connections).  Each connection
 * gets its own p9srv (its own fids, msize and version) on the same
 * steadyfs; p9srv_group() links them so that a rename through one moves
 * the paths of every session's fids, as it moves its own.  Each message
 * is handled to completion before the next (whichever session sends it),
 * so every 9P request is atomic with respect to the others.  steadyfs
 * handles (open_max) are shared by all sessions.
 *
 * Threads: none; calls on the p9srvs of one steadyfs must not run
 * concurrently with each other or with other users of that steadyfs.
 */
#ifndef STEADYFS_P9SRV_H
#define STEADYFS_P9SRV_H

#include <stdint.h>

#include "steadyfs/p9.h"
#include "steadyfs/steadyfs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P9SRV_FID_SIZE 20u
#define P9SRV_PATH_MAX_DEFAULT 128u
/* Hosts (steady serve, steady mount --local): a path of PATH_MAX - 1 bytes
 * below a mount's root arrives with the export root's "/" in front (FUSE
 * and v9fs alike) and needs a NUL: 4097 bytes, 4100 aligned. */
#define P9SRV_PATH_MAX_HOST 4100u
/* Lock entries hosts give their servers (steady serve: all clients). */
#define P9SRV_LOCKS_HOST 1024u
#define P9SRV_FID_MAX_DEFAULT 16u
#define P9SRV_MSIZE_DEFAULT 8192u
#define P9SRV_VERSION "9P2000.L"

/* Negative results of p9srv_handle / p9srv_msg_len / p9srv_init: the
 * connection must be dropped (or, for init, the configuration is bad).
 * Everything a client can fix gets an Rlerror instead. */
enum p9srv_err {
    P9SRV_E_FRAME = -1,   /* size field < 7, > msize, or != in_len */
    P9SRV_E_NOSPACE = -2, /* out_cap too small for the reply (transport bug) */
    P9SRV_E_INVAL = -3,   /* bad configuration or argument */
};

/* POSIX byte-range locks (Tlock, Tgetlock: Linux v9fs sends fcntl and
 * lockf locks to the server).  One table serves every session of a group
 * (p9srv_group), so clients see each other's locks; the caller provides
 * the entries (host: 1024).  A session alone without a table answers
 * every lock as granted: Linux v9fs keeps them in its own kernel first,
 * so one client needs nothing more (the firmware); with peers and no
 * table, EOPNOTSUPP.  Locks are advisory, as POSIX's: reads and
 * writes never look at them.  An owner is (session, proc_id, client_id);
 * a session's locks go when it disconnects. */
struct p9srv_lock {
    uint64_t file;        /* steadyfs id of the file (qid.path) */
    uint64_t start, end;  /* bytes start..end inclusive; end ~0: to any end */
    const void *session;  /* NULL: a free entry */
    uint32_t proc_id, client;   /* client: a hash of client_id */
    uint8_t type;         /* P9_LOCK_TYPE_RDLCK / _WRLCK */
};
typedef struct p9srv_locks p9srv_locks;
struct p9srv_locks {
    struct p9srv_lock *e;
    uint32_t n;           /* entries; a split or a new lock that finds none
                             free is refused (Rlock ERROR: ENOLCK) */
    /* set by p9srv_locks_init (so the table's code is linked only where a
     * table exists): one Tlock/Tgetlock into rep, or with req NULL the
     * session's locks dropped */
    void (*request)(p9srv_locks *t, const void *session, uint64_t file,
                    const struct p9_msg *req, struct p9_msg *rep);
};
/* A table of n entries for p9srv_config.locks (every session of a group
 * gets the same one). */
void p9srv_locks_init(p9srv_locks *t, struct p9srv_lock *entries, uint32_t n);

typedef struct p9srv_config {
    steadyfs *fs;         /* mounted; the server does not mount or unmount it */
    void *mem;            /* p9srv_mem_size() bytes, 4-aligned */
    uint32_t mem_size;
    uint32_t msize_max;   /* largest msize offered in Rversion (0: 8192; >= P9_MSIZE_MIN) */
    uint16_t fid_max;     /* fids at once (0: 16) */
    uint16_t path_max;    /* bytes per path with its NUL (0: 128; 16..8192) */
    uint8_t read_only;    /* 1: every change fails with EROFS */
    uint8_t access_user;  /* 1: mode bits are checked for the attached user
                             (diod's access=user; uid 0 bypasses), docs/P9.md */
    p9srv_locks *locks;   /* NULL: no table (above) */
    /* access_user: is user uid a member of group gid (primary or
     * supplementary)?  Then the group bits apply to it, and an owner may
     * chgrp only to such a group.  NULL: nobody is in any group (the group
     * bits grant nothing; chgrp by the owner to any group).  A host looks
     * it up (steady serve: getgrouplist); the firmware has no user
     * database. */
    int (*in_group)(void *ctx, uint32_t uid, uint32_t gid);
    void *group_ctx;
} p9srv_config;

/* One fid (private). */
struct p9srv_fid {
    uint32_t fid;
    uint32_t id_lo, id_hi; /* steadyfs id of the file (qid.path); two words so
                              the table needs only 4-byte alignment */
    int16_t h;            /* steadyfs handle (file or directory), -1 if not open */
    uint16_t plen;        /* path length without NUL */
    uint8_t kind;         /* free, node, xattr list */
    uint8_t type;         /* STEADYFS_TYPE_FILE / _DIR / _SYMLINK */
    uint8_t omode;        /* open access: STEADYFS_O_RDONLY/WRONLY/RDWR */
    uint8_t stale;        /* path no longer valid (rename made it too long) */
};

/* The server (fields private; only sizeof matters to callers). */
typedef struct p9srv {
    p9srv_config cfg;
    struct p9srv_fid *fids;
    char *paths;          /* fid_max * path_max */
    char *tmp[2];         /* scratch paths */
    uint32_t msize;       /* negotiated; msize_max before Tversion */
    uint32_t uid;         /* n_uname of the attach: owner of what it creates,
                             the user access_user checks */
    uint8_t versioned;    /* a Tversion has been answered */
    uint16_t nfids;
    struct p9srv *peer;   /* next session on the same steadyfs (a ring), NULL alone */
    struct p9_msg req, rep;
    steadyfs_dirent dent;
    /* statistics */
    uint32_t n_msgs, n_errors, n_fid_full;
} p9srv;

/* Bytes of mem the configuration needs (0 if it is invalid). */
uint32_t p9srv_mem_size(const p9srv_config *cfg);

/* Prepares s; no fid exists until a client attaches.  Returns 0 or
 * P9SRV_E_INVAL. */
int p9srv_init(p9srv *s, const p9srv_config *cfg);

/* Length of the message whose first 4 bytes are hdr (its size field), or
 * P9SRV_E_FRAME if it is < 7 or > the current msize (drop the link).  The
 * transport reads that many bytes in all and hands them to p9srv_handle. */
int32_t p9srv_msg_len(const p9srv *s, const uint8_t hdr[4]);

/* Current msize: msize_max before Tversion, the negotiated one after.  A
 * transport needs buffers of msize_max bytes. */
uint32_t p9srv_msize(const p9srv *s);

/* Handles one complete T-message in[0..in_len) (in_len must equal its size
 * field) and writes the R-message to out[0..out_cap); out may equal in.
 * Returns the reply's length (> 0), or a negative p9srv_err meaning
 * "protocol violation: drop the connection" (then call p9srv_disconnect).
 * Every other problem, including undecodable bodies, unknown types and
 * messages before Tversion, is answered with Rlerror on the message's tag.
 * out_cap must be at least the negotiated msize (Rread/Rreaddir fill up to
 * the client's count, which the codec bounds by msize). */
int32_t p9srv_handle(p9srv *s, const uint8_t *in, uint32_t in_len, uint8_t *out,
                     uint32_t out_cap);

/* The transport went away: every fid is clunked (open files committed as by
 * close) and the session forgotten; the next client starts with Tversion.
 * Returns 0 or the first error a close returned (nothing else to do about
 * it: the fids are gone either way). */
int p9srv_disconnect(p9srv *s);

/* Puts s in the group of sessions serving the same steadyfs as `group`
 * (a session alone or any member of a group): from then on a rename
 * through any member moves the paths of the fids of all of them.  s must
 * be alone (not yet grouped) and serve the same steadyfs.  A rename then
 * costs O(sessions * fid_max * path_max) byte operations instead of
 * O(fid_max * path_max).  Returns 0 or P9SRV_E_INVAL. */
int p9srv_group(p9srv *s, p9srv *group);

/* Takes s out of its group (call it after p9srv_disconnect, before s's
 * memory is reused); s is alone afterwards.  O(sessions in the group). */
void p9srv_ungroup(p9srv *s);

/* Fids in use, for tests and statistics. */
uint32_t p9srv_fid_count(const p9srv *s);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_P9SRV_H */
