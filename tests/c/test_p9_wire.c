/* 9P2000.L codec: known-answer byte vectors written out by hand from the
 * protocol definition (diod protocol.md), round trips of every message
 * kind against hand-computed sizes, and malformed input (every truncation,
 * oversized sizes, strings and counts past the end, nwname > 16, random
 * mutations) that must give errors, under ASan/UBSan. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "p9_samples.h"

/* Decodes from an exactly-sized heap copy so ASan sees any over-read. */
static int decode_exact(const uint8_t *src, size_t len, struct p9_msg *m)
{
    uint8_t *b = malloc(len ? len : 1);
    if (len) memcpy(b, src, len);
    int rc = p9_decode(b, len, MSIZE, m);
    free(b);
    return rc;
}

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

static void test_known_answers(void)
{
    struct p9_msg m;
    uint8_t out[64];
    /* Tversion tag NOTAG msize 8192 "9P2000.L" */
    static const uint8_t tversion[] = { 0x15, 0, 0, 0, 100, 0xff, 0xff, 0x00, 0x20, 0, 0, 8, 0,
                                        '9', 'P', '2', '0', '0', '0', '.', 'L' };
    CHECK_EQ(p9_decode(tversion, sizeof tversion, MSIZE, &m), 21);
    CHECK_EQ(m.type, P9_TVERSION);
    CHECK_EQ(m.tag, P9_NOTAG);
    CHECK_EQ(m.u.version.msize, 8192);
    CHECK(p9_str_eq(m.u.version.version, "9P2000.L"));
    memset(&m, 0, sizeof m);
    m.type = P9_TVERSION; m.tag = P9_NOTAG; m.u.version.msize = 8192; m.u.version.version = p9_cstr("9P2000.L");
    CHECK_EQ(p9_encode(&m, out, sizeof out), 21);
    CHECK(memcmp(out, tversion, 21) == 0);

    /* Rlerror tag 1 ecode 2 (ENOENT) */
    static const uint8_t rlerror[] = { 11, 0, 0, 0, 7, 1, 0, 2, 0, 0, 0 };
    memset(&m, 0, sizeof m);
    m.type = P9_RLERROR; m.tag = 1; m.u.rlerror.ecode = 2;
    CHECK_EQ(p9_encode(&m, out, sizeof out), 11);
    CHECK(memcmp(out, rlerror, 11) == 0);

    /* Twalk tag 1 fid 1 newfid 2 nwname 1 "foo" (diod's sample session) */
    static const uint8_t twalk[] = { 22, 0, 0, 0, 110, 1, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 3, 0, 'f', 'o', 'o' };
    CHECK_EQ(p9_decode(twalk, sizeof twalk, MSIZE, &m), 22);
    CHECK_EQ(m.type, P9_TWALK);
    CHECK_EQ(m.u.twalk.fid, 1);
    CHECK_EQ(m.u.twalk.newfid, 2);
    CHECK_EQ(m.u.twalk.nwname, 1);
    CHECK(p9_str_eq(m.u.twalk.wname[0], "foo"));

    /* Rattach tag 1 qid (dir, version 0, path 0x2c1fac) */
    static const uint8_t rattach[] = { 20, 0, 0, 0, 105, 1, 0, 0x80, 0, 0, 0, 0, 0xac, 0x1f, 0x2c, 0, 0, 0, 0, 0 };
    memset(&m, 0, sizeof m);
    m.type = P9_RATTACH; m.tag = 1; m.u.qid.type = P9_QTDIR; m.u.qid.path = 0x2c1fac;
    CHECK_EQ(p9_encode(&m, out, sizeof out), 20);
    CHECK(memcmp(out, rattach, 20) == 0);

    /* Tread tag 1 fid 5 offset 6 count 32768 */
    static const uint8_t tread[] = { 23, 0, 0, 0, 116, 1, 0, 5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0 };
    CHECK_EQ(p9_decode(tread, sizeof tread, 65536, &m), 23);
    CHECK_EQ(m.u.tread.fid, 5);
    CHECK_EQ(m.u.tread.offset, 6);
    CHECK_EQ(m.u.tread.count, 32768);
    /* ...which a reply at msize 8192 could not carry. */
    CHECK_EQ(p9_decode(tread, sizeof tread, 8192, &m), P9_E_COUNT);

    /* Tfsync as pre-3.x Linux sent it, without datasync */
    static const uint8_t tfsync_old[] = { 11, 0, 0, 0, 50, 3, 0, 7, 0, 0, 0 };
    CHECK_EQ(p9_decode(tfsync_old, sizeof tfsync_old, MSIZE, &m), 11);
    CHECK_EQ(m.u.tfsync.fid, 7);
    CHECK_EQ(m.u.tfsync.datasync, 0);
}

static void test_round_trips(void)
{
    struct sample s[64];
    int n = make_samples(s);
    CHECK(n >= 45);
    uint8_t buf[1024], again[1024];
    for (int i = 0; i < n; i++) {
        int sz = p9_encode(&s[i].m, buf, sizeof buf);
        if (sz != (int)s[i].want_size) fprintf(stderr, "type %u: size %d want %u\n", s[i].m.type, sz, s[i].want_size);
        CHECK_EQ(sz, s[i].want_size);
        if (sz < 0) continue;
        uint32_t psize; uint8_t ptype; uint16_t ptag;
        CHECK_EQ(p9_peek(buf, (size_t)sz, MSIZE, &psize, &ptype, &ptag), 0);
        CHECK_EQ(psize, sz);
        CHECK_EQ(ptype, s[i].m.type);
        CHECK_EQ(ptag, s[i].m.tag);
        struct p9_msg d;
        CHECK_EQ(p9_decode(buf, (size_t)sz, MSIZE, &d), sz);
        CHECK_EQ(d.type, s[i].m.type);
        CHECK_EQ(d.tag, s[i].m.tag);
        CHECK_EQ(d.size, sz);
        /* Field-for-field equality through a second encoding. */
        CHECK_EQ(p9_encode(&d, again, sizeof again), sz);
        CHECK(memcmp(buf, again, (size_t)sz) == 0);
        /* Exactly-sized buffer: no over-read. */
        CHECK_EQ(decode_exact(buf, (size_t)sz, &d), sz);
        /* Every smaller output buffer is refused, none overflowed. */
        for (int cap = 0; cap < sz; cap++) {
            uint8_t *small = malloc((size_t)cap + 1);
            int rc = p9_encode(&s[i].m, small, (size_t)cap);
            if (rc != P9_E_NOSPACE) CHECK_EQ(rc, P9_E_NOSPACE);
            free(small);
        }
    }
    /* Views point into the input buffer, no copies. */
    struct p9_msg d;
    int sz = p9_encode(&s[4].m, buf, sizeof buf);   /* Tattach */
    CHECK_EQ(p9_decode(buf, (size_t)sz, MSIZE, &d), sz);
    CHECK(d.u.tattach.uname.ptr == buf + 7 + 4 + 4 + 2);
    CHECK(p9_str_eq(d.u.tattach.aname, "/ex"));
    CHECK_EQ(d.u.tattach.n_uname, P9_NONUNAME);
    /* Rgetattr fields survive. */
    sz = p9_encode(&s[22].m, buf, sizeof buf);
    CHECK_EQ(s[22].m.type, P9_RGETATTR);
    CHECK_EQ(p9_decode(buf, (size_t)sz, MSIZE, &d), sz);
    CHECK_EQ(d.u.rgetattr.size, 123456789012ll);
    CHECK_EQ(d.u.rgetattr.qid.path, 0xdeadbeefcafell);
    CHECK_EQ(d.u.rgetattr.data_version, 10);
    CHECK_EQ(d.u.rgetattr.mode, 0100644);
}

static void test_malformed(void)
{
    struct sample s[64];
    int n = make_samples(s);
    uint8_t buf[1024];
    struct p9_msg d;
    long truncs = 0;
    for (int i = 0; i < n; i++) {
        int sz = p9_encode(&s[i].m, buf, sizeof buf);
        /* Every truncation of the buffer: incomplete. */
        for (int len = 0; len < sz; len++) {
            int rc = decode_exact(buf, (size_t)len, &d);
            if (rc != P9_E_SHORT) CHECK_EQ(rc, P9_E_SHORT);
            truncs++;
        }
        /* Every truncation with the size field rewritten to match: the
         * body is now short, which must be caught inside the message. */
        for (int len = 0; len < sz; len++) {
            uint8_t cut[1024];
            memcpy(cut, buf, (size_t)len);
            if (len >= 4) put32(cut, (uint32_t)len);
            int rc = decode_exact(cut, (size_t)len, &d);
            bool ok_fsync = s[i].m.type == P9_TFSYNC && len == 11;
            if (ok_fsync) CHECK_EQ(rc, 11);
            else if (rc >= 0) CHECK(rc < 0);
            else CHECK(rc == P9_E_SHORT || rc == P9_E_SIZE || rc == P9_E_TRUNC || rc == P9_E_COUNT ||
                       (rc == P9_E_TRAILING && s[i].m.type == P9_TFSYNC));   /* 12..14: half a datasync */
            truncs++;
        }
        /* One trailing byte. */
        memcpy(buf + sz, "\x5a", 1);
        put32(buf, (uint32_t)sz + 1);
        CHECK_EQ(decode_exact(buf, (size_t)sz + 1, &d), P9_E_TRAILING);
        /* Size field larger than the data present / than msize. */
        put32(buf, (uint32_t)sz + 100);
        CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_SHORT);
        put32(buf, MSIZE + 1);
        CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_SIZE);
        put32(buf, 0xFFFFFFFFu);
        CHECK_EQ(p9_decode(buf, (size_t)sz, 0xFFFFFFFFu, &d), P9_E_SIZE);
    }
    CHECK(truncs > 2000);

    /* size field below the header */
    uint8_t tiny[7] = { 6, 0, 0, 0, P9_TCLUNK, 0, 0 };
    CHECK_EQ(decode_exact(tiny, 7, &d), P9_E_SIZE);

    /* String length past the end: Tattach uname length 0xFFFF. */
    int sz = p9_encode(&s[4].m, buf, sizeof buf);
    buf[15] = 0xFF; buf[16] = 0xFF;
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_TRUNC);
    /* ...and one byte past. */
    sz = p9_encode(&s[4].m, buf, sizeof buf);
    buf[15] = 5;   /* "root" is 4 */
    CHECK(decode_exact(buf, (size_t)sz, &d) < 0);

    /* nwname 17 */
    struct p9_msg w = s[10].m;
    sz = p9_encode(&w, buf, sizeof buf);
    buf[15] = 17;
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_NWNAME);
    w.u.twalk.nwname = 17;
    CHECK_EQ(p9_encode(&w, buf, sizeof buf), P9_E_NWNAME);
    /* nwqid 17 */
    struct p9_msg rw = s[12].m;
    sz = p9_encode(&rw, buf, sizeof buf);
    buf[7] = 17;
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_NWNAME);

    /* Twrite and Rread counts past the data */
    sz = p9_encode(&s[31].m, buf, sizeof buf);
    CHECK_EQ(s[31].m.type, P9_TWRITE);
    put32(buf + 19, 13);
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_COUNT);
    put32(buf + 19, 0xFFFFFFFFu);
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_COUNT);
    put32(buf + 19, 11);
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_TRAILING);
    sz = p9_encode(&s[30].m, buf, sizeof buf);
    CHECK_EQ(s[30].m.type, P9_RREAD);
    put32(buf + 7, 0x7FFFFFFFu);
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_COUNT);

    /* Tread / Treaddir count > msize: refused; the largest that fits: fine. */
    struct p9_msg r = s[29].m;
    r.u.tread.count = MSIZE - P9_RREAD_HDR + 1;
    sz = p9_encode(&r, buf, sizeof buf);
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_COUNT);
    r.u.tread.count = MSIZE - P9_RREAD_HDR;
    sz = p9_encode(&r, buf, sizeof buf);
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), sz);
    r.type = P9_TREADDIR;
    r.u.tread.count = 0xFFFFFFFFu;
    sz = p9_encode(&r, buf, sizeof buf);
    CHECK_EQ(decode_exact(buf, (size_t)sz, &d), P9_E_COUNT);

    /* Unknown and unsupported types: header still readable for Rlerror. */
    static const uint8_t types[] = { 0, 1, P9_TLERROR, P9_TMKNOD, P9_TLINK, P9_TOPEN,
                                     P9_TERROR, P9_RERROR, 128, 200, 255 };
    for (size_t i = 0; i < sizeof types; i++) {
        uint8_t u[11] = { 11, 0, 0, 0, types[i], 0x34, 0x12, 1, 2, 3, 4 };
        CHECK_EQ(decode_exact(u, sizeof u, &d), P9_E_UNKNOWN);
        uint32_t psz; uint8_t pt; uint16_t ptag;
        CHECK_EQ(p9_peek(u, sizeof u, MSIZE, &psz, &pt, &ptag), 0);
        CHECK_EQ(ptag, 0x1234);
        memset(&w, 0, sizeof w);
        w.type = types[i];
        CHECK_EQ(p9_encode(&w, buf, sizeof buf), P9_E_UNKNOWN);
    }
    /* Encoding a NULL data pointer with a count is refused. */
    memset(&w, 0, sizeof w);
    w.type = P9_RREAD; w.u.rread.count = 3;
    CHECK_EQ(p9_encode(&w, buf, sizeof buf), P9_E_INVAL);
}

/* Seeded random mutations of valid messages: any result is fine except a
 * sanitizer report or a "success" that claims more bytes than it had. */
static void test_random_mutations(void)
{
    struct sample s[64];
    int n = make_samples(s);
    uint8_t buf[1024];
    uint32_t x = 12345;
    long accepted = 0, rejected = 0;
    for (int iter = 0; iter < 200000; iter++) {
        x = x * 1103515245u + 12345u;
        int i = (int)((x >> 8) % (uint32_t)n);
        int sz = p9_encode(&s[i].m, buf, sizeof buf);
        int flips = 1 + (int)((x >> 20) % 4);
        for (int k = 0; k < flips; k++) {
            x = x * 1103515245u + 12345u;
            buf[(x >> 8) % (uint32_t)sz] = (uint8_t)(x >> 24);
        }
        x = x * 1103515245u + 12345u;
        size_t len = (size_t)sz - ((x >> 16) % 3 == 0 ? (x >> 8) % (uint32_t)sz : 0);
        struct p9_msg d;
        int rc = decode_exact(buf, len, &d);
        if (rc >= 0) {
            accepted++;
            if (rc > (int)len) CHECK(rc <= (int)len);
        } else {
            rejected++;
        }
    }
    printf("random mutations: %ld accepted, %ld rejected\n", accepted, rejected);
    CHECK(accepted > 0);
    CHECK(rejected > 0);
}

static void test_zero_copy_rread(void)
{
    uint8_t buf[64];
    memcpy(buf + P9_RREAD_HDR, "file-bytes", 10);
    struct p9_msg m;
    memset(&m, 0, sizeof m);
    m.type = P9_RREAD; m.tag = 4; m.u.rread.count = 10; m.u.rread.data = buf + P9_RREAD_HDR;
    CHECK_EQ(p9_encode(&m, buf, sizeof buf), 21);
    struct p9_msg d;
    CHECK_EQ(p9_decode(buf, 21, MSIZE, &d), 21);
    CHECK_EQ(d.u.rread.count, 10);
    CHECK(d.u.rread.data == buf + P9_RREAD_HDR);
    CHECK(memcmp(d.u.rread.data, "file-bytes", 10) == 0);
}

static void test_readdir(void)
{
    /* count 100: entries of 24 + namelen; names "e0".."e9" are 26 bytes,
     * so exactly 3 fit (78), the 4th (104) does not. */
    uint8_t buf[256];
    struct p9_readdir rd;
    CHECK_EQ(p9_readdir_begin(&rd, buf, sizeof buf, 9, 100), 0);
    int added = 0;
    for (int i = 0; i < 10; i++) {
        char name[3] = { 'e', (char)('0' + i), 0 };
        struct p9_qid q = { (uint8_t)(i == 0 ? P9_QTDIR : 0), 0, 1000u + (uint64_t)i };
        int rc = p9_readdir_add(&rd, &q, (uint64_t)i + 1, (uint8_t)(i == 0 ? 4 : 8), (const uint8_t *)name, 2);
        if (rc != 0) {
            CHECK_EQ(rc, P9_E_NOSPACE);
            break;
        }
        added++;
    }
    CHECK_EQ(added, 3);
    int sz = p9_readdir_finish(&rd);
    CHECK_EQ(sz, 11 + 78);
    struct p9_msg d;
    CHECK_EQ(p9_decode(buf, (size_t)sz, MSIZE, &d), sz);
    CHECK_EQ(d.type, P9_RREADDIR);
    CHECK_EQ(d.tag, 9);
    CHECK_EQ(d.u.rread.count, 78);
    uint32_t pos = 0;
    struct p9_dirent e;
    int k = 0;
    while (p9_dirent_next(d.u.rread.data, d.u.rread.count, &pos, &e) == 1) {
        CHECK_EQ(e.qid.path, 1000 + k);
        CHECK_EQ(e.offset, k + 1);
        CHECK_EQ(e.type, k == 0 ? 4 : 8);
        CHECK_EQ(e.name.len, 2);
        CHECK_EQ(e.name.ptr[1], '0' + k);
        k++;
    }
    CHECK_EQ(k, 3);
    CHECK_EQ(pos, 78);
    /* Cut inside the last entry: an error, not a read past count. */
    pos = 0;
    uint8_t *cut = malloc(70);
    memcpy(cut, d.u.rread.data, 70);
    int rc, got = 0;
    while ((rc = p9_dirent_next(cut, 70, &pos, &e)) == 1) got++;
    CHECK_EQ(got, 2);
    CHECK_EQ(rc, P9_E_TRUNC);
    free(cut);
    /* A buffer smaller than the count limits instead. */
    CHECK_EQ(p9_readdir_begin(&rd, buf, 11 + 30, 1, 4000), 0);
    CHECK_EQ(p9_readdir_add(&rd, &e.qid, 1, 0, (const uint8_t *)"abcdef", 6), 0);
    CHECK_EQ(p9_readdir_add(&rd, &e.qid, 2, 0, (const uint8_t *)"a", 1), P9_E_NOSPACE);
    CHECK_EQ(p9_readdir_finish(&rd), 41);
    CHECK_EQ(p9_readdir_begin(&rd, buf, 10, 1, 4000), P9_E_NOSPACE);
}

int main(void)
{
    test_known_answers();
    test_round_trips();
    test_malformed();
    test_random_mutations();
    test_zero_copy_rread();
    test_readdir();
    return check_done("test_p9_wire");
}
