/*
 * A raw byte pump between UART0 and a byte-stream service, used by the
 * self-test's `echo` word: it proves the bare path UART RX interrupt ->
 * ring -> service -> polled UART TX, with back-pressure.  The 9P service
 * runs its own loop over the framing layer instead (serve.h).
 */
#ifndef FW_LINK_H
#define FW_LINK_H

#include <stdint.h>

typedef struct fw_link_ops {
    /* Bytes received from the host; the service consumes them all. */
    void (*rx)(void *ctx, const uint8_t *buf, uint32_t n);
    /* Up to max bytes for the host; returns how many were put in buf. */
    uint32_t (*tx)(void *ctx, uint8_t *buf, uint32_t max);
    /* Non-zero when the service has finished (the loop returns). */
    int (*done)(void *ctx);
    /* Called once per loop pass for bounded background work (file-system
     * gc steps in idle time); may be NULL. */
    void (*idle)(void *ctx);
} fw_link_ops;

/* Pump until ops->done.  Sleeps (WFI) when nothing moves; the UART RX
 * interrupt and the 1 ms tick wake it.  Returns bytes received. */
uint32_t fw_link_run(const fw_link_ops *ops, void *ctx);

/* The echo service: sends back every byte; finishes on 0x04 (EOT). */
typedef struct fw_echo {
    uint8_t buf[64];
    uint32_t head, tail;
    int eot;
} fw_echo;
extern const fw_link_ops fw_link_echo;

#endif
