/* 9P2000.L message codec: one typed struct for every message the steadyfs
 * server and its host stub exchange, decoded from and encoded into
 * caller-owned buffers.  Freestanding (no malloc, no stdio), used on both
 * sides: a server decodes T-messages and encodes R-messages, a client does
 * the reverse, with the same two functions.
 *
 * Wire format (diod's protocol.md; Linux include/net/9p/9p.h message
 * numbers): size[4] type[1] tag[2] body, integers little-endian, strings
 * len[2] bytes[len] without NUL, qid = type[1] version[4] path[8].
 *
 * Zero copy: decoded strings and data are views (pointer + length) into the
 * caller's input buffer; they stay valid while that buffer does.  Strings
 * are NOT NUL-terminated.
 *
 * RAM (all caller-provided, nothing static, no heap):
 *   - one message buffer of msize bytes for input and one for output (a
 *     server may reuse the input buffer for the reply only after it has
 *     finished with the decoded views, which point into it);
 *   - one struct p9_msg: sizeof(struct p9_msg), 272 bytes on Cortex-M3
 *     (the largest member is Rwalk's 16 qids of 16 bytes each) and 280 on
 *     x86-64;
 *   - struct p9_readdir (reply builder): 16 bytes on Cortex-M3 (24 on x86-64);
 *   - stack (arm-none-eabi-gcc -Os -fstack-usage; one level of recursion:
 *     a qid inside a message, never deeper): p9_decode under 160 bytes,
 *     p9_encode under 144, p9_readdir_add under 192 (newlib's mem* leaves
 *     not counted).
 *
 * Both directions follow one table of message layouts (src/p9/p9_codec.c):
 * per type, its fields in wire order with their width and place in the
 * struct, so the decoder and the encoder cannot disagree.
 */
#ifndef STEADYFS_P9_H
#define STEADYFS_P9_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Message types (9P2000.L subset plus the 9P2000 base it keeps). */
enum p9_type {
    P9_TLERROR = 6, P9_RLERROR = 7,
    P9_TSTATFS = 8, P9_RSTATFS = 9,
    P9_TLOPEN = 12, P9_RLOPEN = 13,
    P9_TLCREATE = 14, P9_RLCREATE = 15,
    P9_TSYMLINK = 16, P9_RSYMLINK = 17,
    P9_TMKNOD = 18, P9_RMKNOD = 19,
    P9_TRENAME = 20, P9_RRENAME = 21,
    P9_TREADLINK = 22, P9_RREADLINK = 23,
    P9_TGETATTR = 24, P9_RGETATTR = 25,
    P9_TSETATTR = 26, P9_RSETATTR = 27,
    P9_TXATTRWALK = 30, P9_RXATTRWALK = 31,
    P9_TXATTRCREATE = 32, P9_RXATTRCREATE = 33,
    P9_TREADDIR = 40, P9_RREADDIR = 41,
    P9_TFSYNC = 50, P9_RFSYNC = 51,
    P9_TLOCK = 52, P9_RLOCK = 53,
    P9_TGETLOCK = 54, P9_RGETLOCK = 55,
    P9_TLINK = 70, P9_RLINK = 71,
    P9_TMKDIR = 72, P9_RMKDIR = 73,
    P9_TRENAMEAT = 74, P9_RRENAMEAT = 75,
    P9_TUNLINKAT = 76, P9_RUNLINKAT = 77,
    P9_TVERSION = 100, P9_RVERSION = 101,
    P9_TAUTH = 102, P9_RAUTH = 103,
    P9_TATTACH = 104, P9_RATTACH = 105,
    P9_TERROR = 106, P9_RERROR = 107,
    P9_TFLUSH = 108, P9_RFLUSH = 109,
    P9_TWALK = 110, P9_RWALK = 111,
    P9_TOPEN = 112, P9_ROPEN = 113,
    P9_TCREATE = 114, P9_RCREATE = 115,
    P9_TREAD = 116, P9_RREAD = 117,
    P9_TWRITE = 118, P9_RWRITE = 119,
    P9_TCLUNK = 120, P9_RCLUNK = 121,
    P9_TREMOVE = 122, P9_RREMOVE = 123,
};

#define P9_NOTAG     0xFFFFu
#define P9_NOFID     0xFFFFFFFFu
#define P9_NONUNAME  0xFFFFFFFFu
#define P9_MAXWELEM  16u
#define P9_HDR_SIZE  7u    /* size[4] type[1] tag[2] */
#define P9_QID_SIZE  13u
/* Rread/Rreaddir header: data starts this far into the reply. */
#define P9_RREAD_HDR 11u
/* Twrite header: data starts this far into the request. */
#define P9_TWRITE_HDR 23u
/* Largest Tread/Twrite header (Linux's P9_IOHDRSZ): clients ask for at most
 * msize - P9_IOHDRSZ bytes per read or write. */
#define P9_IOHDRSZ   24u
/* Smallest msize this codec accepts in Tversion/Rversion: a header, a
 * qid-sized reply and a little data must fit. */
#define P9_MSIZE_MIN 64u
/* Bytes a readdir entry takes besides its name: qid[13] offset[8] type[1]
 * len[2]. */
#define P9_DIRENT_HDR 24u

/* qid.type bits */
#define P9_QTDIR     0x80u
#define P9_QTAPPEND  0x40u
#define P9_QTEXCL    0x20u
#define P9_QTAUTH    0x08u
#define P9_QTTMP     0x04u
#define P9_QTSYMLINK 0x02u
#define P9_QTFILE    0x00u

/* Tgetattr request_mask / Rgetattr valid bits */
#define P9_GETATTR_MODE         0x00000001ull
#define P9_GETATTR_NLINK        0x00000002ull
#define P9_GETATTR_UID          0x00000004ull
#define P9_GETATTR_GID          0x00000008ull
#define P9_GETATTR_RDEV         0x00000010ull
#define P9_GETATTR_ATIME        0x00000020ull
#define P9_GETATTR_MTIME        0x00000040ull
#define P9_GETATTR_CTIME        0x00000080ull
#define P9_GETATTR_INO          0x00000100ull
#define P9_GETATTR_SIZE         0x00000200ull
#define P9_GETATTR_BLOCKS       0x00000400ull
#define P9_GETATTR_BTIME        0x00000800ull
#define P9_GETATTR_GEN          0x00001000ull
#define P9_GETATTR_DATA_VERSION 0x00002000ull
#define P9_GETATTR_BASIC        0x000007ffull
#define P9_GETATTR_ALL          0x00003fffull

/* Tlock / Tgetlock */
#define P9_LOCK_TYPE_RDLCK 0u
#define P9_LOCK_TYPE_WRLCK 1u
#define P9_LOCK_TYPE_UNLCK 2u
#define P9_LOCK_FLAGS_BLOCK   1u   /* the client waits: it retries after BLOCKED */
#define P9_LOCK_FLAGS_RECLAIM 2u
#define P9_LOCK_SUCCESS 0u          /* Rlock status */
#define P9_LOCK_BLOCKED 1u
#define P9_LOCK_ERROR   2u
#define P9_LOCK_GRACE   3u

/* Tsetattr valid bits */
#define P9_SETATTR_MODE      0x00000001u
#define P9_SETATTR_UID       0x00000002u
#define P9_SETATTR_GID       0x00000004u
#define P9_SETATTR_SIZE      0x00000008u
#define P9_SETATTR_ATIME     0x00000010u
#define P9_SETATTR_MTIME     0x00000020u
#define P9_SETATTR_CTIME     0x00000040u
#define P9_SETATTR_ATIME_SET 0x00000080u
#define P9_SETATTR_MTIME_SET 0x00000100u

/* Codec errors (negative).  Distinct so a server can tell "answer with
 * Rlerror" (the header was sound: UNKNOWN, TRUNC, TRAILING, NWNAME, COUNT)
 * from "resynchronise or disconnect" (SHORT with a full buffer, SIZE). */
enum p9_err {
    P9_E_SHORT    = -1,  /* fewer bytes than the header or its size field: incomplete */
    P9_E_SIZE     = -2,  /* size field < 7 or > msize */
    P9_E_TRUNC    = -3,  /* a field or string runs past the message end */
    P9_E_TRAILING = -4,  /* bytes left after the last field */
    P9_E_UNKNOWN  = -5,  /* message type this codec does not handle */
    P9_E_NWNAME   = -6,  /* nwname/nwqid > P9_MAXWELEM */
    P9_E_COUNT    = -7,  /* count past the data present, or a reply of count bytes would exceed msize */
    P9_E_NOSPACE  = -8,  /* encode: output buffer too small */
    P9_E_INVAL    = -9,  /* encode: invalid argument (NULL data with count, msize too small) */
};

/* A view into a buffer; not NUL-terminated. */
struct p9_str {
    const uint8_t *ptr;
    uint16_t len;
};

struct p9_qid {
    uint8_t type;
    uint32_t version;
    uint64_t path;
};

/* Rgetattr body (diod protocol.md "getattr"). */
struct p9_stat {
    uint64_t valid;
    struct p9_qid qid;
    uint32_t mode, uid, gid;
    uint64_t nlink, rdev, size, blksize, blocks;
    uint64_t atime_sec, atime_nsec, mtime_sec, mtime_nsec;
    uint64_t ctime_sec, ctime_nsec, btime_sec, btime_nsec;
    uint64_t gen, data_version;
};

/* Rstatfs body. */
struct p9_statfs {
    uint32_t type, bsize;
    uint64_t blocks, bfree, bavail, files, ffree, fsid;
    uint32_t namelen;
};

/* One decoded (or to-be-encoded) message.  `type` selects the union member
 * named in the comment. */
struct p9_msg {
    uint8_t type;
    uint16_t tag;
    uint32_t size;   /* decode: the size field; encode: ignored */
    union {
        struct { uint32_t msize; struct p9_str version; } version;            /* T/Rversion */
        struct { uint32_t afid; struct p9_str uname, aname; uint32_t n_uname; } tauth;
        struct { uint32_t fid, afid; struct p9_str uname, aname; uint32_t n_uname; } tattach;
        struct p9_qid qid;                /* Rauth Rattach Rmkdir Rsymlink */
        struct { uint32_t ecode; } rlerror;
        struct { uint16_t oldtag; } tflush;
        struct { uint32_t fid, newfid; uint16_t nwname; struct p9_str wname[P9_MAXWELEM]; } twalk;
        struct { uint16_t nwqid; struct p9_qid wqid[P9_MAXWELEM]; } rwalk;
        struct { uint32_t fid; } fid;     /* Tclunk Tremove Tstatfs Treadlink */
        struct { uint32_t fid; uint32_t datasync; } tfsync;  /* datasync: 0 if absent (pre-3.x clients) */
        struct { uint32_t fid; uint64_t request_mask; } tgetattr;
        struct p9_stat rgetattr;
        struct {
            uint32_t fid, valid, mode, uid, gid;
            uint64_t size, atime_sec, atime_nsec, mtime_sec, mtime_nsec;
        } tsetattr;
        struct { uint32_t fid, flags; } tlopen;
        struct { struct p9_qid qid; uint32_t iounit; } ropen;   /* Rlopen Rlcreate */
        struct { uint32_t fid; struct p9_str name; uint32_t flags, mode, gid; } tlcreate;
        struct { uint32_t fid; uint64_t offset; uint32_t count; } tread;  /* Tread Treaddir */
        struct { uint32_t count; const uint8_t *data; } rread;  /* Rread Rreaddir */
        struct { uint32_t fid; uint64_t offset; uint32_t count; const uint8_t *data; } twrite;
        struct { uint32_t count; } rwrite;
        struct { uint32_t dfid; struct p9_str name; uint32_t mode, gid; } tmkdir;
        struct { uint32_t dfid; struct p9_str name, target; uint32_t gid; } tsymlink;
        struct { struct p9_str target; } rreadlink;
        struct { uint32_t dirfid; struct p9_str name; uint32_t flags; } tunlinkat;
        struct { uint32_t olddirfid; struct p9_str oldname; uint32_t newdirfid; struct p9_str newname; } trenameat;
        struct { uint32_t fid, dfid; struct p9_str name; } trename;
        struct p9_statfs rstatfs;
        struct { uint32_t fid, newfid; struct p9_str name; } txattrwalk;
        struct { uint64_t size; } rxattrwalk;
        struct { uint32_t fid; struct p9_str name; uint64_t attr_size; uint32_t flags; } txattrcreate;
        /* POSIX byte-range locks (diod protocol.md "lock", "getlock") */
        struct {
            uint32_t fid;
            uint8_t type;          /* P9_LOCK_TYPE_ */
            uint32_t flags;        /* P9_LOCK_FLAGS_ */
            uint64_t start, length;   /* length 0: to the end of the file */
            uint32_t proc_id;
            struct p9_str client_id;
        } tlock;
        struct { uint8_t status; } rlock;   /* P9_LOCK_ */
        /* Tgetlock (fid and the lock asked about) and Rgetlock (fid unused:
         * the conflicting lock, or type UNLCK if none) */
        struct {
            uint32_t fid;
            uint8_t type;
            uint64_t start, length;
            uint32_t proc_id;
            struct p9_str client_id;
        } getlock;
        /* Rclunk Rremove Rflush Rsetattr Rrename Rrenameat Runlinkat Rfsync
         * Rxattrcreate carry no body. */
    } u;
};

/* Reads the 7-byte header without judging the body: the server uses it to
 * answer an undecodable message with Rlerror on the right tag.  Returns 0,
 * P9_E_SHORT if len < 7, P9_E_SIZE if the size field is < 7 or > msize. */
int p9_peek(const uint8_t *buf, size_t len, uint32_t msize,
            uint32_t *size, uint8_t *type, uint16_t *tag);

/* Decodes one T- or R-message from buf[0..len).  msize bounds the size
 * field and the count of Tread/Treaddir (a reply of count bytes must fit in
 * msize).  Returns the message size (bytes consumed) or a negative p9_err;
 * never reads outside buf[0..min(len, size)). */
int p9_decode(const uint8_t *buf, size_t len, uint32_t msize, struct p9_msg *m);

/* Encodes m into buf[0..cap).  Returns the message size or a negative
 * p9_err (P9_E_NOSPACE if it does not fit).  For Rread/Rreaddir/Twrite the
 * data may already sit at buf + P9_RREAD_HDR / P9_TWRITE_HDR (zero copy:
 * the server reads file data straight into the reply). */
int p9_encode(const struct p9_msg *m, uint8_t *buf, size_t cap);

/* A string view of a NUL-terminated C string (strlen; truncated at 65535). */
struct p9_str p9_cstr(const char *s);
/* True if the view equals the NUL-terminated string s. */
bool p9_str_eq(struct p9_str a, const char *s);

/* Rreaddir builder: entries are appended straight into the reply buffer,
 * each whole or not at all, until the client's count or the buffer is
 * full. */
struct p9_readdir {
    uint8_t *buf;     /* reply buffer; entries start at buf + P9_RREAD_HDR */
    uint32_t limit;   /* max data bytes: min(count, cap - P9_RREAD_HDR) */
    uint32_t used;    /* data bytes so far */
    uint16_t tag;
};
/* Returns 0, or P9_E_NOSPACE if cap cannot hold even the header. */
int p9_readdir_begin(struct p9_readdir *rd, uint8_t *buf, size_t cap,
                     uint16_t tag, uint32_t count);
/* Appends one entry.  Returns 0, or P9_E_NOSPACE (nothing appended: the
 * caller stops and resumes at this entry's offset in the next Treaddir). */
int p9_readdir_add(struct p9_readdir *rd, const struct p9_qid *qid, uint64_t offset,
                   uint8_t dtype, const uint8_t *name, uint16_t namelen);
/* Writes the header; returns the reply's size. */
int p9_readdir_finish(struct p9_readdir *rd);

/* One entry of Rreaddir data (client side). */
struct p9_dirent {
    struct p9_qid qid;
    uint64_t offset;
    uint8_t type;
    struct p9_str name;
};
/* Parses the entry at *pos of data[0..count) and advances *pos.  Returns 1
 * with an entry, 0 at the end, P9_E_TRUNC if an entry runs past count. */
int p9_dirent_next(const uint8_t *data, uint32_t count, uint32_t *pos, struct p9_dirent *d);

#endif
