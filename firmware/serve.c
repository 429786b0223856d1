/* The framed 9P service loop on UART0 (serve.h). */
#include "serve.h"

#include "steadyfs/frame.h"
#include "steadyfs/p9link.h"
#include "tick.h"
#include "uart.h"

static struct frame_link link;
static uint8_t link_mem[FRAME_MEM(FW_LINK_MTU)];
static struct p9link_rx rx;
static struct p9link_tx tx;
static uint8_t ctl[P9LINK_CTL_LEN];

static int uart_put(void *user, const uint8_t *buf, size_t len)
{
    (void)user;
    fw_uart_write(buf, (uint32_t)len);
    return 0;
}

static int uart_get(void *user, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    int c;
    (void)user;
    while (n < cap && (c = fw_uart_getc()) >= 0)
        buf[n++] = (uint8_t)c;
    return (int)n;
}

static uint32_t uart_now(void *user)
{
    (void)user;
    return fw_tick_ms();
}

const struct frame_stats *fw_serve_link_stats(void) { return &link.stats; }

static void send_ctl(enum p9link_ctl code)
{
    p9link_ctl(ctl, code);
    p9link_tx_start(&tx, ctl, P9LINK_CTL_LEN);
}

/* One message or event from the host.  Returns 1 on HALT. */
static int on_rx(const fw_svc *svc, uint8_t *buf, uint32_t cap, int32_t n, fw_serve_stats *st)
{
    if (n == P9LINK_RESTARTED) {
        /* the relay started over: whatever session there was is gone */
        st->restarts++;
        svc->disconnect(svc->ctx);
        return 0;
    }
    if (n == P9LINK_E_SIZE) {
        st->drops++;
        svc->disconnect(svc->ctx);
        send_ctl(P9LINK_DROP);
        return 0;
    }
    switch (p9link_ctl_code(buf, (uint32_t)n)) {
    case P9LINK_SESS:
        st->sessions++;
        svc->disconnect(svc->ctx);
        send_ctl(P9LINK_SESS);
        return 0;
    case P9LINK_HALT:
        svc->disconnect(svc->ctx);
        return 1;
    case P9LINK_DROP:
        return 0; /* only the board sends it */
    default:
        break;
    }
    st->msgs++;
    st->bytes_in += (uint32_t)n;
    int32_t r = svc->handle(svc->ctx, buf, (uint32_t)n, buf, cap);
    if (r < 0) {
        st->drops++;
        svc->disconnect(svc->ctx);
        p9link_rx_unsync(&rx);
        send_ctl(P9LINK_DROP);
    } else if (r > 0) {
        st->bytes_out += (uint32_t)r;
        p9link_tx_start(&tx, buf, (uint32_t)r);
    }
    return 0;
}

void fw_serve(const fw_svc *svc, uint8_t *buf, uint32_t cap, fw_serve_stats *st)
{
    static const struct frame_io io = { 0, uart_put, uart_get, uart_now };
    static const struct frame_cfg cfg = { FW_LINK_MTU, FW_LINK_RTO_MS, FW_LINK_RETRIES };
    int idle_more = 1;

    frame_init(&link, &io, &cfg, link_mem, sizeof link_mem);
    p9link_rx_init(&rx, buf, cap, &link);
    tx.len = tx.off = 0;
    for (;;) {
        int moved = 0;
        if (frame_poll(&link) < 0) {
            /* the host has been silent for (1 + retries) timeouts: start
             * over with a RESET; the session is gone */
            st->link_failures++;
            frame_restart(&link);
            p9link_rx_unsync(&rx);
            tx.len = tx.off = 0;
            svc->disconnect(svc->ctx);
            continue;
        }
        if (p9link_tx_busy(&tx)) {
            uint32_t off = tx.off;
            p9link_tx_poll(&tx, &link);
            moved = tx.off != off;
        } else {
            /* The next message only once the reply has gone: it is
             * received into the buffer the reply was built in. */
            int32_t n = p9link_rx_poll(&rx, &link);
            if (n != 0) {
                moved = 1;
                idle_more = 1;
                if (on_rx(svc, buf, cap, n, st)) {
                    /* let the last ACK and anything queued go out */
                    uint32_t t0 = fw_tick_ms();
                    while (!frame_tx_idle(&link) && fw_tick_ms() - t0 < 200u)
                        frame_poll(&link);
                    return;
                }
                if (p9link_tx_busy(&tx))
                    p9link_tx_poll(&tx, &link);
            }
        }
        if (moved || fw_uart_rx_avail())
            continue;
        if (idle_more && svc->idle && link.rxd_len == 0) {
            idle_more = svc->idle(svc->ctx);
            st->idle_steps += idle_more != 0;
            continue;
        }
        /* Nothing to do: sleep until a byte or the 1 ms tick (which also
         * drives retransmission). */
        __asm__ volatile("wfi");
    }
}

static int32_t echo_handle(void *ctx, const uint8_t *in, uint32_t n, uint8_t *out, uint32_t cap)
{
    (void)ctx;
    if (n > cap)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        out[i] = in[i];
    out[4]++;
    return (int32_t)n;
}

static void echo_disconnect(void *ctx) { (void)ctx; }

const fw_svc fw_echo_svc = {
    .handle = echo_handle,
    .disconnect = echo_disconnect,
    .idle = 0,
    .ctx = 0,
};
