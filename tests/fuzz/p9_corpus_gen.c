/* Writes the fuzz seed corpora: every sample 9P message encoded (and a few
 * framed byte streams) as one file each, so the fuzzers start from valid
 * inputs instead of discovering the format byte by byte.
 * Usage: p9_corpus_gen DIR_FOR_fuzz_p9_wire DIR_FOR_fuzz_frame */
#include <stdio.h>
#include <string.h>

#include "../c/p9_samples.h"
#include "steadyfs/crc32.h"
#include "steadyfs/frame.h"

static int write_file(const char *dir, const char *name, int i, const uint8_t *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s-%02d", dir, name, i);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        perror(path);
        return 1;
    }
    fclose(f);
    return 0;
}

/* One wire frame: 0x00 COBS(kind seq payload crc32) 0x00. */
static size_t frame(uint8_t *out, size_t cap, uint8_t kind, uint8_t seq, const uint8_t *p, size_t n)
{
    uint8_t raw[600];
    raw[0] = kind;
    raw[1] = seq;
    memcpy(raw + 2, p, n);
    uint32_t crc = steady_crc32(0, raw, n + 2);
    for (int i = 0; i < 4; i++) raw[n + 2 + i] = (uint8_t)(crc >> (8 * i));
    out[0] = 0;
    size_t m = cobs_encode(raw, n + 6, out + 1, cap - 2);
    out[m + 1] = 0;
    return m + 2;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s P9_DIR FRAME_DIR\n", argv[0]);
        return 2;
    }
    struct sample s[64];
    int n = make_samples(s), bad = 0;
    uint8_t buf[1024], stream[4096];
    size_t slen = 0;
    uint8_t seq = 1;
    slen += frame(stream + slen, sizeof stream - slen, FRAME_K_RESET, 0, NULL, 0);
    for (int i = 0; i < n; i++) {
        int sz = p9_encode(&s[i].m, buf, sizeof buf);
        if (sz < 0) return 1;
        bad |= write_file(argv[1], "msg", i, buf, (size_t)sz);
        uint8_t one[700];
        size_t m = frame(one, sizeof one, FRAME_K_DATA, (uint8_t)i, buf, (size_t)(sz > 64 ? 64 : sz));
        bad |= write_file(argv[2], "data", i, one, m);
        if (slen + 80 < sizeof stream) slen += frame(stream + slen, sizeof stream - slen, FRAME_K_DATA, seq++, buf, (size_t)(sz > 64 ? 64 : sz));
    }
    bad |= write_file(argv[2], "stream", 0, stream, slen);
    size_t m = frame(buf, sizeof buf, FRAME_K_ACK, 5, NULL, 0);
    bad |= write_file(argv[2], "ack", 0, buf, m);
    m = frame(buf, sizeof buf, FRAME_K_RACK, 0, NULL, 0);
    bad |= write_file(argv[2], "rack", 0, buf, m);
    return bad;
}
