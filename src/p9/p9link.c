/* 9P messages and session control over a frame link (p9link.h). */
#include <string.h>

#include "steadyfs/p9link.h"

static const uint8_t ctl_magic[3] = { 's', 'f', 'L' };

void p9link_ctl(uint8_t out[P9LINK_CTL_LEN], enum p9link_ctl code)
{
    memset(out, 0, 4);
    memcpy(out + 4, ctl_magic, sizeof ctl_magic);
    out[7] = (uint8_t)code;
}

int p9link_ctl_code(const uint8_t *buf, uint32_t len)
{
    if (len != P9LINK_CTL_LEN || buf[0] | buf[1] | buf[2] | buf[3] ||
        memcmp(buf + 4, ctl_magic, sizeof ctl_magic) != 0)
        return 0;
    return buf[7] == P9LINK_SESS || buf[7] == P9LINK_HALT || buf[7] == P9LINK_DROP ? buf[7] : 0;
}

void p9link_rx_init(struct p9link_rx *r, uint8_t *buf, uint32_t cap, const struct frame_link *l)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->cap = cap;
    r->resets_seen = l->stats.resets;
}

void p9link_rx_unsync(struct p9link_rx *r)
{
    r->synced = false;
    r->len = r->want = 0;
    r->complete = false;
}

/* Unsynced: whole frames only, kept only if one is exactly SESS.  A frame
 * partly read before the loss of step is finished and discarded. */
static int32_t rx_unsynced(struct p9link_rx *r, struct frame_link *l)
{
    while (l->rxd_len != 0) {
        bool whole = l->rxd_off == 0;
        uint32_t n = (uint32_t)frame_read(l, r->buf, r->cap);
        if (whole && l->rxd_len == 0 && p9link_ctl_code(r->buf, n) == P9LINK_SESS) {
            r->synced = true;
            r->complete = true;
            return (int32_t)n;
        }
        r->discarded++;
    }
    return 0;
}

int32_t p9link_rx_poll(struct p9link_rx *r, struct frame_link *l)
{
    if (r->complete) {
        r->complete = false;
        r->len = r->want = 0;
    }
    if (l->stats.resets != r->resets_seen) {
        /* Reported even when already unsynced: the host must send SESS
         * again, as the one it sent may have died with the old board. */
        r->resets_seen = l->stats.resets;
        p9link_rx_unsync(r);
        return P9LINK_RESTARTED;
    }
    if (!r->synced)
        return rx_unsynced(r, l);
    for (;;) {
        uint32_t need = r->want ? r->want - r->len : 4u - r->len;
        int got = frame_read(l, r->buf + r->len, need);
        if (got <= 0)
            return 0;
        r->len += (uint32_t)got;
        if (!r->want) {
            if (r->len < 4u)
                continue;
            uint32_t size = (uint32_t)r->buf[0] | (uint32_t)r->buf[1] << 8 |
                            (uint32_t)r->buf[2] << 16 | (uint32_t)r->buf[3] << 24;
            if (size == 0)
                size = P9LINK_CTL_LEN;
            else if (size < P9LINK_MSG_MIN || size > r->cap) {
                p9link_rx_unsync(r);
                return P9LINK_E_SIZE;
            }
            r->want = size;
        }
        if (r->len == r->want) {
            r->complete = true;
            return (int32_t)r->len;
        }
    }
}

void p9link_tx_start(struct p9link_tx *t, const uint8_t *buf, uint32_t len)
{
    t->buf = buf;
    t->len = len;
    t->off = 0;
}

int p9link_tx_poll(struct p9link_tx *t, struct frame_link *l)
{
    while (t->off < t->len) {
        int n = frame_write(l, t->buf + t->off, t->len - t->off);
        if (n < 0)
            return n;
        if (n == 0)
            return 0;
        t->off += (uint32_t)n;
    }
    return 1;
}
