/* libFuzzer harness for the p9cli host stub: the fuzz input is the byte
 * stream the "server" sends back, whatever the stub asked.  The stub runs
 * its whole call sequence (p9cli_script.h) on it; the checks are ASan/UBSan
 * plus the stub's own promises: results are counts within what was asked
 * or negative errno values, and names handed out are valid names. */
#include <stdlib.h>
#include <string.h>

#include "p9cli_script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *in;
static size_t in_len, in_pos;

static int f_send(void *io, const uint8_t *buf, size_t len)
{
    (void)io;
    /* every request the stub sends must itself be a valid message */
    struct p9_msg m;
    if (p9_decode(buf, len, P9CLI_SCRIPT_BUF, &m) != (int)len) abort();
    return 0;
}

static int f_recv(void *io, uint8_t *buf, size_t len)
{
    (void)io;
    size_t n = in_len - in_pos;
    if (n > len) n = len;
    memcpy(buf, in + in_pos, n);
    in_pos += n;
    return (int)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t buf[P9CLI_SCRIPT_BUF];
    static uint32_t map[(P9CLI_SCRIPT_FIDS + 31) / 32];
    struct p9cli c;
    struct p9cli_config cfg = {
        .send = f_send, .recv = f_recv, .buf = buf, .bufsize = sizeof buf,
        .fidmap = map, .nfids = P9CLI_SCRIPT_FIDS, .uname = "fuzz",
    };
    in = data;
    in_len = size;
    in_pos = 0;
    int rc = p9cli_connect(&c, &cfg);
    if (rc > 0 || rc < -4095) abort();
    if (rc == 0) {
        if (c.msize < P9_MSIZE_MIN || c.msize > sizeof buf) abort();
        (void)p9cli_script(&c);
    }
    return 0;
}
