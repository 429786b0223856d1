/* Seed corpus of fuzz_image: one file per chosen damage of the base image
 * (fuzz_image_dev.h), aimed at each structure: the newest checkpoint's
 * fields, map sectors, inode sectors, directory buckets, tags, payloads --
 * most re-sealed (CRCs recomputed) so the bad values reach the parsers.
 * Usage: image_corpus_gen DIR.  Deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_image_dev.h"

static const char *dir;
static int nfiles;

/* One seed: records of (flags, sector index, offset, bytes). */
static void seed(const char *name, int nrec, const uint8_t *recs, size_t len)
{
    char path[512];
    FILE *f;
    (void)nrec;
    snprintf(path, sizeof path, "%s/%02d-%s", dir, nfiles++, name);
    f = fopen(path, "wb");
    if (!f || fwrite(recs, 1, len, f) != len) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

static size_t rec(uint8_t *out, uint8_t flags, uint32_t sec, uint32_t off, const void *v,
                  uint8_t n)
{
    out[0] = flags;
    out[1] = (uint8_t)sec;
    out[2] = (uint8_t)off;
    out[3] = (uint8_t)(off >> 8);
    out[4] = n;
    memcpy(out + 5, v, n);
    return 5u + n;
}

static void one(const char *name, uint8_t flags, uint32_t sec, uint32_t off, uint32_t v,
                uint8_t n)
{
    uint8_t b[32], w[4];
    fi_put32(w, v);
    seed(name, 1, b, rec(b, flags, sec, off, w, n));
}

int main(int argc, char **argv)
{
    static fi_base b;
    uint32_t i, newest_ck = 0, map1 = 0, map2 = 0, inode = 0, bucket = 0, data = 0, mi = 0;
    uint64_t ckseq = 0, m1seq = 0, m2seq = 0;
    int have_m2 = 0;
    if (argc != 2)
        return fprintf(stderr, "usage: image_corpus_gen DIR\n"), 2;
    dir = argv[1];
    if (fi_build(&b))
        return fprintf(stderr, "image_corpus_gen: cannot build the base image\n"), 1;
    if (b.nsec > 256)
        return fprintf(stderr, "image_corpus_gen: %u sectors, more than a seed can name\n",
                       b.nsec), 1;
    /* classify the programmed sectors by their tags (stored XOR 0xFF) */
    for (i = 0; i < b.nsec; i++) {
        const uint8_t *pg = fi_page(&b, b.img, b.sec[i]);
        uint8_t t[32], p0[32];
        uint64_t seq;
        uint32_t k, owner;
        for (k = 0; k < 32; k++) {
            t[k] = pg[FI_SECTOR + k] ^ 0xFF;
            p0[k] = pg[k] ^ 0xFF;
        }
        seq = fi_get32(t + 4) | (uint64_t)fi_get32(t + 8) << 32;
        owner = (uint32_t)(t[2] | t[3] << 8);
        if (t[0] == 4 && seq >= ckseq) {
            ckseq = seq;
            newest_ck = i;
            mi = (uint32_t)(pg[24] ^ 0xFF) | (uint32_t)(pg[25] ^ 0xFF) << 8;
        } else if (t[0] == 2 && seq >= m1seq) {
            m1seq = seq;
            map1 = i;
        } else if (t[0] == 3 && seq >= m2seq) {
            m2seq = seq;
            map2 = i;
            have_m2 = 1;
        } else if (t[0] == 1 && fi_get32(p0) == 0x31494653u) {
            inode = i;
        } else if (t[0] == 1 && owner == 0xFFFFu && p0[0] > 0 && p0[0] < 40) {
            bucket = i;
        } else if (t[0] == 1) {
            data = i;
        }
    }
    printf("image_corpus_gen: %u programmed sectors, max_inodes %u; checkpoint %u, L1 %u, "
           "L2 %s%u, inode %u, bucket %u, data %u\n", b.nsec, mi, newest_ck, map1,
           have_m2 ? "" : "(none) ", map2, inode, bucket, data);
    seed("clean", 0, (const uint8_t *)"", 0);
    /* checkpoint fields (SPEC.md §7), re-sealed */
    one("ck-epoch", 1, newest_ck, 8, 0xFFFFFFFFu, 4);
    one("ck-blocks", 1, newest_ck, 12, 17, 4);
    one("ck-maxinodes", 1, newest_ck, 24, 0xFFFF, 2);
    one("ck-seq", 1, newest_ck, 32, 0, 4);
    one("ck-headblock", 1, newest_ck, 40, 3, 4);
    one("ck-headidx", 1, newest_ck, 44, 64, 4);
    one("ck-headcount", 1, newest_ck, 48, 0xFFFFFFF0u, 4);
    one("ck-live", 1, newest_ck, 52, 0, 4);
    one("ck-victim", 1, newest_ck, 56, 1000000, 4);
    one("ck-retire", 1, newest_ck, 76, 0x8000FFFFu, 4);
    one("ck-npend", 1, newest_ck, 92, 31, 4);
    one("ck-nl2", 1, newest_ck, 96, 1, 4);
    one("ck-vol", 1, newest_ck, 108, 7, 4);
    one("ck-table-head", 1, newest_ck, 128 + 5, 0xF0, 1);
    one("ck-table-count", 1, newest_ck, 128 + 6, 64, 1);
    one("ck-table-bad", 1, newest_ck, 128 + 7, 0xF4, 1);
    one("ck-root", 1, newest_ck, 128 + 16, 0x7FFF, 4);
    one("ck-root-none", 1, newest_ck, 128 + 16, 0xFFFFFFFFu, 4);
    one("ck-ibm", 1, newest_ck, 2040 - 200, 0xFF, 1);
    one("ck-torn", 0, newest_ck, 700, 0x5A5A5A5Au, 4);
    /* map sectors: words re-pointed */
    one("l1-word0", 1, map1, 0, 0x7FFFFFFFu, 4);
    one("l1-word-unknown", 1, map1, 4, 0xFFFFFFFEu, 4);
    one("l1-word-self", 1, map1, 8, b.sec[map1], 4);
    one("l1-key", 1, map1, FI_SECTOR + 12, 70000, 4);
    one("l1-crc", 0, map1, 16, 0x11, 1);
    if (have_m2) {
        one("l2-word0", 1, map2, 0, 0x7FFFFFFFu, 4);
        one("l2-key", 1, map2, FI_SECTOR + 12, 3, 4);
    }
    /* inode sector fields (SPEC.md §5) */
    one("ino-size", 1, inode, 24, 0xFFFFFFFFu, 4);
    one("ino-size-hi", 1, inode, 28, 0x7FFFFFFFu, 4);
    one("ino-type-dir", 1, inode, 12, 2, 1);
    one("ino-type-bad", 1, inode, 12, 9, 1);
    one("ino-number", 1, inode, 4, 5, 4);
    one("ino-parent", 1, inode, 16, 0xFFFF, 4);
    one("ino-magic", 1, inode, 0, 0, 4);
    /* directory bucket (SPEC.md §6) */
    one("dir-count", 1, bucket, 0, 0xFFFF, 2);
    one("dir-used", 1, bucket, 2, 0xFFFF, 2);
    one("dir-used-small", 1, bucket, 2, 3, 2);
    one("dir-overflow", 1, bucket, 4, 1, 1);
    one("dir-hash", 1, bucket, 8, 0x12345678u, 4);
    one("dir-ino-root", 1, bucket, 12, 1, 4);
    one("dir-ino-big", 1, bucket, 12, 0xFFFFFFu, 4);
    one("dir-type", 1, bucket, 16, 7, 1);
    one("dir-namelen0", 1, bucket, 17, 0, 1);
    one("dir-namelen-big", 1, bucket, 17, 255, 1);
    one("dir-name-slash", 1, bucket, 18, '/', 1);
    /* tags and payloads */
    one("tag-kind", 1, data, FI_SECTOR, 3, 1);
    one("tag-key", 1, data, FI_SECTOR + 12, 1, 4);
    one("tag-seq", 1, data, FI_SECTOR + 4, 0xFFFFFFFFu, 4);
    one("tag-flip", 2, data, FI_SECTOR + 20, 0x80, 1);
    one("data-flip", 2, data, 1000, 0x01, 1);
    one("data-resealed", 1, data, 0, 0xDEADBEEFu, 4);
    {
        /* two records: a bucket and an inode at once */
        uint8_t r2[64], w[4];
        size_t n;
        fi_put32(w, 3);
        n = rec(r2, 1, bucket, 12, w, 4);
        fi_put32(w, 0);
        n += rec(r2 + n, 1, inode, 12, w, 1);
        seed("two-records", 2, r2, n);
    }
    printf("image_corpus_gen: %d seeds in %s\n", nfiles, dir);
    return 0;
}
