/* libFuzzer harness for the 9P2000.L decoder.  Besides "no crash, no
 * sanitizer report", it checks the codec's own invariant: whatever decodes
 * re-encodes to exactly the bytes it came from (the one allowed exception
 * is a Tfsync without datasync, which is re-encoded with it). */
#include <stdlib.h>
#include <string.h>

#include "steadyfs/p9.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t msizes[] = { 8192u, 64u, 0xFFFFFFFFu };
    for (size_t k = 0; k < sizeof msizes / sizeof msizes[0]; k++) {
        struct p9_msg m;
        uint32_t psize;
        uint8_t ptype;
        uint16_t ptag;
        int peek = p9_peek(data, size, msizes[k], &psize, &ptype, &ptag);
        int rc = p9_decode(data, size, msizes[k], &m);
        if (rc < 0) continue;
        if (peek != 0 || (uint32_t)rc != psize || (size_t)rc > size || m.type != ptype || m.tag != ptag)
            abort();
        uint8_t *out = malloc((size_t)rc + 4);
        int enc = p9_encode(&m, out, (size_t)rc + 4);
        bool short_fsync = m.type == P9_TFSYNC && rc == 11;
        if (!short_fsync && (enc != rc || memcmp(out, data, (size_t)rc) != 0)) abort();
        free(out);
        if (m.type == P9_RREADDIR) {
            uint32_t pos = 0;
            struct p9_dirent d;
            int n;
            while ((n = p9_dirent_next(m.u.rread.data, m.u.rread.count, &pos, &d)) == 1)
                if (pos > m.u.rread.count || (d.name.len && d.name.ptr + d.name.len > m.u.rread.data + m.u.rread.count))
                    abort();
        }
    }
    return 0;
}
