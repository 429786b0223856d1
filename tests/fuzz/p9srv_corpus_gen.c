/* Writes the seed corpus of fuzz_p9srv (tests/fuzz/corpus/fuzz_p9srv/):
 * message sequences a client would send, in the harness's record format
 * (flags[1], then len[2] message[len] ...), encoded by the codec.
 * `make fuzz-corpus` runs it. */
#include <stdio.h>
#include <string.h>

#include "steadyfs/p9.h"

static uint8_t rec[8192];
static size_t rlen;
static uint16_t tag = 2;

static void add(struct p9_msg *m)
{
    int n;
    m->tag = tag++;
    n = p9_encode(m, rec + rlen + 2, sizeof rec - rlen - 2);
    if (n < 0)
        return;
    rec[rlen] = (uint8_t)n;
    rec[rlen + 1] = (uint8_t)(n >> 8);
    rlen += 2 + (size_t)n;
}

static void raw(const char *b, size_t n)
{
    rec[rlen] = (uint8_t)n;
    rec[rlen + 1] = (uint8_t)(n >> 8);
    memcpy(rec + rlen + 2, b, n);
    rlen += 2 + n;
}

static void walk(uint32_t fid, uint32_t nfid, const char *a, const char *b)
{
    struct p9_msg m = {.type = P9_TWALK};
    m.u.twalk.fid = fid;
    m.u.twalk.newfid = nfid;
    if (a)
        m.u.twalk.wname[m.u.twalk.nwname++] = p9_cstr(a);
    if (b)
        m.u.twalk.wname[m.u.twalk.nwname++] = p9_cstr(b);
    add(&m);
}

static void fidmsg(uint8_t type, uint32_t fid)
{
    struct p9_msg m = {.type = type};
    m.u.fid.fid = fid;
    add(&m);
}

static void lopen(uint32_t fid, uint32_t flags)
{
    struct p9_msg m = {.type = P9_TLOPEN};
    m.u.tlopen.fid = fid;
    m.u.tlopen.flags = flags;
    add(&m);
}

static void rd(uint8_t type, uint32_t fid, uint64_t off, uint32_t count)
{
    struct p9_msg m = {.type = type};
    m.u.tread.fid = fid;
    m.u.tread.offset = off;
    m.u.tread.count = count;
    add(&m);
}

static void named(uint8_t type, uint32_t fid, const char *name, uint32_t flags)
{
    struct p9_msg m = {.type = type};
    switch (type) {
    case P9_TLCREATE: m.u.tlcreate.fid = fid; m.u.tlcreate.name = p9_cstr(name); m.u.tlcreate.flags = flags; break;
    case P9_TMKDIR: m.u.tmkdir.dfid = fid; m.u.tmkdir.name = p9_cstr(name); break;
    case P9_TUNLINKAT: m.u.tunlinkat.dirfid = fid; m.u.tunlinkat.name = p9_cstr(name); m.u.tunlinkat.flags = flags; break;
    case P9_TXATTRWALK: m.u.txattrwalk.fid = fid; m.u.txattrwalk.newfid = flags; m.u.txattrwalk.name = p9_cstr(name); break;
    case P9_TRENAME: m.u.trename.fid = fid; m.u.trename.dfid = flags; m.u.trename.name = p9_cstr(name); break;
    default: return;
    }
    add(&m);
}

static int emit(const char *dir, const char *name, uint8_t flags)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f)
        return 1;
    fputc(flags, f);
    fwrite(rec, 1, rlen, f);
    fclose(f);
    rlen = 0;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    struct p9_msg m;
    int bad = 0;

    walk(0, 1, "d", "f"); lopen(1, 0); rd(P9_TREAD, 1, 0, 100); rd(P9_TREAD, 1, 5, 2000);
    fidmsg(P9_TGETATTR, 1); fidmsg(P9_TCLUNK, 1);
    bad |= emit(dir, "read", 0);

    walk(0, 1, NULL, NULL); named(P9_TLCREATE, 1, "new", 2);
    memset(&m, 0, sizeof m); m.type = P9_TWRITE; m.u.twrite.fid = 1; m.u.twrite.offset = 3;
    m.u.twrite.count = 5; m.u.twrite.data = (const uint8_t *)"abcde"; add(&m);
    memset(&m, 0, sizeof m); m.type = P9_TFSYNC; m.u.tfsync.fid = 1; add(&m);
    memset(&m, 0, sizeof m); m.type = P9_TSETATTR; m.u.tsetattr.fid = 1;
    m.u.tsetattr.valid = P9_SETATTR_SIZE | P9_SETATTR_MODE; m.u.tsetattr.size = 2; add(&m);
    fidmsg(P9_TGETATTR, 1); fidmsg(P9_TCLUNK, 1);
    bad |= emit(dir, "create_write", 0);

    named(P9_TMKDIR, 0, "dir", 0); walk(0, 2, "d", NULL); lopen(2, 0);
    rd(P9_TREADDIR, 2, 0, 40); rd(P9_TREADDIR, 2, 0, 1000); fidmsg(P9_TCLUNK, 2);
    named(P9_TUNLINKAT, 0, "dir", 0x200); named(P9_TUNLINKAT, 0, "g", 0);
    bad |= emit(dir, "readdir_unlink", 1);

    memset(&m, 0, sizeof m); m.type = P9_TRENAMEAT; m.u.trenameat.olddirfid = 0;
    m.u.trenameat.oldname = p9_cstr("d"); m.u.trenameat.newdirfid = 0;
    m.u.trenameat.newname = p9_cstr("d2"); add(&m);
    walk(0, 3, "d2", "e"); named(P9_TRENAME, 3, "e2", 0); fidmsg(P9_TREMOVE, 3);
    walk(0, 4, "..", ".."); fidmsg(P9_TSTATFS, 4);
    bad |= emit(dir, "rename_remove", 0);

    named(P9_TXATTRWALK, 0, "", 5); rd(P9_TREAD, 5, 0, 100); named(P9_TXATTRWALK, 0, "user.x", 6);
    memset(&m, 0, sizeof m); m.type = P9_TFLUSH; m.u.tflush.oldtag = 3; add(&m);
    memset(&m, 0, sizeof m); m.type = P9_TAUTH; m.u.tauth.afid = 9; add(&m);
    memset(&m, 0, sizeof m); m.type = P9_TVERSION; m.u.version.msize = 512;
    m.u.version.version = p9_cstr("9P2000.L"); add(&m);
    memset(&m, 0, sizeof m); m.type = P9_TATTACH; m.u.tattach.fid = 7; m.u.tattach.afid = P9_NOFID;
    add(&m);
    bad |= emit(dir, "session", 2);

    {
        static uint8_t big[900];
        memset(big, 'x', sizeof big);
        walk(0, 1, "d", "f"); lopen(1, 2);
        memset(&m, 0, sizeof m); m.type = P9_TWRITE; m.u.twrite.fid = 1; m.u.twrite.offset = 4000;
        m.u.twrite.count = sizeof big; m.u.twrite.data = big; add(&m);
        rd(P9_TREAD, 1, 3990, 1013); fidmsg(P9_TREMOVE, 1);
        bad |= emit(dir, "bigwrite_remove", 1);
    }

    /* issue 14: symlinks, attributes, links and device nodes refused; as
     * uid 1000 with permission checks (flags bit 2) */
    memset(&m, 0, sizeof m); m.type = P9_TSYMLINK; m.u.tsymlink.dfid = 0;
    m.u.tsymlink.name = p9_cstr("ln"); m.u.tsymlink.target = p9_cstr("d/f"); add(&m);
    walk(0, 1, "ln", NULL); fidmsg(P9_TREADLINK, 1); fidmsg(P9_TGETATTR, 1); lopen(1, 0);
    memset(&m, 0, sizeof m); m.type = P9_TSETATTR; m.u.tsetattr.fid = 1;
    m.u.tsetattr.valid = P9_SETATTR_MODE | P9_SETATTR_UID | P9_SETATTR_GID | P9_SETATTR_MTIME |
                         P9_SETATTR_MTIME_SET | P9_SETATTR_CTIME;
    m.u.tsetattr.mode = 0600; m.u.tsetattr.uid = 7; m.u.tsetattr.gid = 8;
    m.u.tsetattr.mtime_sec = 1234567890; add(&m);
    fidmsg(P9_TGETATTR, 1); fidmsg(P9_TCLUNK, 1);
    raw("\x0f\x00\x00\x00\x46\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 15);   /* Tlink */
    raw("\x0b\x00\x00\x00\x12\x01\x00\x00\x00\x00\x00", 11);   /* Tmknod, cut short */
    bad |= emit(dir, "symlink_setattr", 0);
    walk(0, 1, "d", NULL); named(P9_TLCREATE, 1, "mine", 2); fidmsg(P9_TCLUNK, 1);
    named(P9_TMKDIR, 0, "top", 0); walk(0, 2, "d", "f"); lopen(2, 2);
    fidmsg(P9_TGETATTR, 2);
    bad |= emit(dir, "access_user", 4);

    raw("\x07\x00\x00\x00\x78\x01\x00", 7);
    raw("\x0b\x00\x00\x00\xc8\x01\x00\x00\x00\x00\x00", 11);
    raw("\xff\xff\x00\x00\x78\x01\x00", 7);
    walk(0, 1, "d", NULL);
    bad |= emit(dir, "malformed", 0);
    return bad;
}
