/* UART0 <-> service byte pump and the echo service (see link.h). */
#include "link.h"

#include "uart.h"

uint32_t fw_link_run(const fw_link_ops *ops, void *ctx)
{
    uint8_t buf[64];
    uint32_t total = 0;

    while (!ops->done(ctx)) {
        uint32_t n = 0, m;
        int c;
        while (n < sizeof buf && (c = fw_uart_getc()) >= 0)
            buf[n++] = (uint8_t)c;
        if (n)
            ops->rx(ctx, buf, n);
        total += n;
        m = ops->tx(ctx, buf, sizeof buf);
        fw_uart_write(buf, m);
        if (ops->idle)
            ops->idle(ctx);
        /* Sleep only if nothing moved.  A byte whose interrupt lands
         * between the check and WFI waits at most one tick (1 ms). */
        if (!n && !m && !fw_uart_rx_avail())
            __asm__ volatile("wfi");
    }
    return total;
}

static void echo_rx(void *ctx, const uint8_t *buf, uint32_t n)
{
    fw_echo *e = ctx;
    for (uint32_t i = 0; i < n; i++) {
        if (buf[i] == 0x04u)
            e->eot = 1;
        /* the pump drains tx every pass, so the ring never holds more than
         * one rx batch (64 bytes) */
        e->buf[e->head++ % sizeof e->buf] = buf[i];
    }
}

static uint32_t echo_tx(void *ctx, uint8_t *buf, uint32_t max)
{
    fw_echo *e = ctx;
    uint32_t n = 0;
    while (n < max && e->tail != e->head)
        buf[n++] = e->buf[e->tail++ % sizeof e->buf];
    return n;
}

static int echo_done(void *ctx)
{
    const fw_echo *e = ctx;
    return e->eot && e->tail == e->head;
}

const fw_link_ops fw_link_echo = {
    .rx = echo_rx,
    .tx = echo_tx,
    .done = echo_done,
    .idle = 0,
};
