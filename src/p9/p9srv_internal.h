/* Shared between the server's files: session and dispatch (p9srv.c), the
 * fid table (p9srv_fid.c), attributes (p9srv_attr.c), the data path
 * (p9srv_io.c) and the namespace (p9srv_ns.c). */
#ifndef STEADYFS_P9SRV_INTERNAL_H
#define STEADYFS_P9SRV_INTERNAL_H

#include <string.h>

#include "steadyfs/p9srv.h"

/* fid kinds */
#define FID_FREE 0u
#define FID_NODE 1u   /* a file or directory, maybe open */
#define FID_XATTR 2u  /* the (always empty) xattr list of Txattrwalk "" */

/* p9srv_fid.h: a steadyfs file handle (>= 0), or one of these.  An open
 * directory holds no steadyfs handle: each Treaddir opens, seeks to the
 * client's cookie, lists and closes, so directories never use up the file
 * system's open_max between messages. */
#define FID_H_NONE (-1)
#define FID_H_DIR (-2)
#define FID_H_RING (-3)   /* the record ring's view, open for reading (srv_ring_*) */

/* Linux errno values sent in Rlerror that steadyfs itself never returns. */
#define LX_EBADF 9
#define LX_EACCES 13
#define LX_EMFILE 24
#define LX_ENODATA 61
#define LX_EPROTO 71
#define LX_EOPNOTSUPP 95
#define LX_ESTALE 116

/* Linux open flags as 9P2000.L carries them (P9_DOTL_*, x86/arm values). */
#define LX_O_ACCMODE 03u
#define LX_O_CREAT 0100u
#define LX_O_EXCL 0200u
#define LX_O_TRUNC 01000u
#define LX_O_APPEND 02000u
#define LX_O_DSYNC 010000u      /* P9_DOTL_DSYNC */
#define LX_O_SYNC_ONLY 04000000u /* P9_DOTL_SYNC (__O_SYNC; O_SYNC sets both) */
#define LX_AT_REMOVEDIR 0x200u

/* ---- fid table (p9srv_fid.c) ---- */
struct p9srv_fid *srv_fid_find(p9srv *s, uint32_t fid);
/* A fresh fid slot (not yet in use); NULL with *err = -EBADF if fid is in
 * use or P9_NOFID, -EMFILE if the table is full. */
struct p9srv_fid *srv_fid_alloc(p9srv *s, uint32_t fid, int *err);
/* Closes the fid's handle (committing an open file) and frees the slot.
 * Returns the close's result. */
int srv_fid_clunk(p9srv *s, struct p9srv_fid *f);
char *srv_fid_path(const p9srv *s, const struct p9srv_fid *f);
/* Sets the fid's path (len bytes, fits: checked by the caller). */
void srv_fid_set_path(p9srv *s, struct p9srv_fid *f, const char *p, uint32_t len);
uint64_t srv_fid_id(const struct p9srv_fid *f);
void srv_fid_set_id(struct p9srv_fid *f, uint64_t id);

/* 0 if name may be a component to create or remove: not empty, no '/' or
 * NUL, not "." or "..", at most STEADYFS_NAME_MAX bytes; else -errno. */
int srv_name_new(struct p9_str name);
/* 0 if name may be walked (as srv_name_new, "." and ".." allowed). */
int srv_name_walk(struct p9_str name);
/* 1 if name is ".", 2 if "..", else 0. */
uint32_t srv_dots(struct p9_str name);
/* The start Tlcreate, Tmkdir, Tsymlink and Tunlinkat share, in the order
 * of its checks (after the dispatch's srv_node on dir, the request's
 * directory fid): a directory (srv_dir; Tlcreate: not open, else EINVAL),
 * read_only (EROFS), the new name (srv_name_new) and s->tmp[0] = its path
 * (srv_fid_join).  Returns the path's length or a negative errno. */
int32_t srv_dir_child(p9srv *s, struct p9srv_fid *dir);
/* dst = the path of fid dir, "/", name (srv_path_join). */
int32_t srv_fid_join(const p9srv *s, char *dst, const struct p9srv_fid *dir, struct p9_str name);
/* srv_may on the fid's path. */
int srv_may_fid(p9srv *s, const struct p9srv_fid *f, uint32_t want);
/* srv_may, write and search, on the directory holding fid f's file (its
 * path built in scratch; nothing done without access_user or for uid 0). */
int srv_may_parent(p9srv *s, const struct p9srv_fid *f, char *scratch);
/* rmdir (dir != 0) or unlink of path. */
int srv_unlink(p9srv *s, const char *path, uint32_t dir);
/* dst = dir "/" name (dir "/" is the root); NUL-terminated in path_max.
 * Returns the new length or -ENAMETOOLONG. */
int32_t srv_path_join(const p9srv *s, char *dst, const char *dir, uint32_t dlen,
                      struct p9_str name);
/* Length of the parent of p[0..len) ("/" stays "/"); writes the NUL. */
uint32_t srv_path_up(char *p, uint32_t len);
/* After "from" was renamed to "to": every fid at or under "from" follows. */
void srv_paths_renamed(p9srv *s, const char *from, uint32_t flen, const char *to, uint32_t tlen);

/* Marks a slot from srv_fid_alloc in use as a file or directory. */
void srv_fid_use(p9srv *s, struct p9srv_fid *f, uint8_t type, uint64_t id);
/* The fid naming a file or directory (not stale), or -EBADF / -ESTALE. */
int srv_node(p9srv *s, uint32_t fid, struct p9srv_fid **out);
/* 0 if fid f names a directory, else -ENOTDIR. */
int srv_dir(const struct p9srv_fid *f);
/* As srv_node, and a directory (srv_dir). */
int srv_dir_node(p9srv *s, uint32_t fid, struct p9srv_fid **out);
/* The fid's file's attributes; ESTALE if its path names another file now. */
int srv_fid_stat(p9srv *s, struct p9srv_fid *f, steadyfs_stat *st);

/* ---- the record ring's view (p9srv_ring.c): a read-only file at
 * SRV_RING_PATH when the file system has a ring (docs/P9.md) ---- */
#define SRV_RING_PATH "/.ring"
#if STEADYFS_WITH_RING
/* 1 if path is the ring's view (and the file system has a ring). */
int srv_ring_here(p9srv *s, const char *path);
/* steadyfs_stat_path, or the ring view's attributes. */
int srv_stat_path(p9srv *s, const char *path, steadyfs_stat *st);
/* Its bytes at off, at most count, into out: the count read (0: its end). */
int32_t srv_ring_read(p9srv *s, uint8_t *out, uint64_t off, uint32_t count);
#else   /* a build without the ring (steadyfs.h): no view, no code for it */
static inline int srv_ring_here(p9srv *s, const char *path)
{
    (void)s, (void)path;
    return 0;
}
static inline int srv_stat_path(p9srv *s, const char *path, steadyfs_stat *st)
{
    return steadyfs_stat_path(s->cfg.fs, path, st);
}
static inline int32_t srv_ring_read(p9srv *s, uint8_t *out, uint64_t off, uint32_t count)
{
    (void)s, (void)out, (void)off, (void)count;
    return STEADYFS_EIO;
}
#endif
/* A steadyfs handle on path (steadyfs_open_attr), checked to be file *id
 * (ESTALE, the handle closed, if not; *id 0: any, and *id becomes its id).
 * Returns the handle or a negative errno. */
int srv_open(p9srv *s, const char *path, int fl, const steadyfs_attr *attr, uint64_t *id);

/* ---- message handlers: fill s->rep's body and return 0, or a negative
 * errno that becomes Rlerror.  p9srv_handle has set s->rep.type (the
 * request's type + 1) and zeroed the rest.  f: the fid the request names
 * first, found by srv_node (p9srv.c's NODE messages), else NULL.
 * Tread/Treaddir build their reply in out (out_cap >= msize). ---- */
int srv_h_getattr(p9srv *s, struct p9srv_fid *f);     /* p9srv_attr.c */
int srv_h_setattr(p9srv *s, struct p9srv_fid *f);
int srv_h_readlink(p9srv *s, struct p9srv_fid *f);
int srv_h_statfs(p9srv *s, struct p9srv_fid *f);
int srv_h_xattrwalk(p9srv *s, struct p9srv_fid *f);
int srv_h_lopen(p9srv *s, struct p9srv_fid *f);       /* p9srv_io.c */
int srv_h_lcreate(p9srv *s, struct p9srv_fid *f);
int32_t srv_h_read(p9srv *s, uint8_t *out);
int srv_h_write(p9srv *s, struct p9srv_fid *f);
int srv_h_fsync(p9srv *s, struct p9srv_fid *f);
/* p9srv_lock.c: Tlock, Tgetlock; a session's locks go with it. */
int srv_h_lock(p9srv *s, struct p9srv_fid *unused);
int srv_h_getlock(p9srv *s, struct p9srv_fid *unused);
void srv_locks_drop(p9srv *s);
/* Returns the finished Rreaddir's length, or a negative errno. */
int32_t srv_h_readdir(p9srv *s, uint8_t *out, uint32_t out_cap);
int srv_h_walk(p9srv *s, struct p9srv_fid *f);        /* p9srv_ns.c */
int srv_h_clunk(p9srv *s, struct p9srv_fid *unused);
int srv_h_remove(p9srv *s, struct p9srv_fid *unused);
int srv_h_mknode(p9srv *s, struct p9srv_fid *f);      /* Tmkdir and Tsymlink */
int srv_h_unlinkat(p9srv *s, struct p9srv_fid *f);
int srv_h_renameat(p9srv *s, struct p9srv_fid *f);
int srv_h_rename(p9srv *s, struct p9srv_fid *f);

/* ---- attributes (p9srv_attr.c) ---- */
void srv_qid(struct p9_qid *q, uint8_t type, uint64_t id);
/* The file type bits of a mode (S_IFDIR, S_IFLNK, S_IFREG) for a steadyfs
 * type; shifted right by 12, the readdir entry's DT_ type. */
uint32_t srv_ifmt(uint8_t type);
/* access_user: 0 if the attached user may `want` (4 read, 2 write, 1
 * search) on the file st / at path, else -EACCES (or the stat's error).
 * Without access_user, or for uid 0: always 0 (path: no stat made). */
int srv_may_st(const p9srv *s, const steadyfs_stat *st, uint32_t want);
int srv_may(p9srv *s, const char *path, uint32_t want);
/* Attributes of a new file, directory or symlink: mode (permission bits)
 * and gid from the request, the attach's n_uname as owner.  Returns a. */
const steadyfs_attr *srv_new_attr(const p9srv *s, steadyfs_attr *a, uint32_t mode, uint32_t gid);
/* The Linux errno for a negative steadyfs (or server) result. */
uint32_t srv_errno(int rc);

#endif
