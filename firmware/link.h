/*
 * The main loop's byte pump between UART0 and a byte-stream service.
 *
 * This is where the 9P server plugs in: `rx` will feed received bytes to
 * the framing layer's decoder (src/p9/frame.c, COBS/SLIP + CRC +
 * retransmission, from the FSOC issue), which hands whole 9P messages to
 * the server; `tx` will drain the encoded replies.  Until those exist the
 * firmware offers an echo service (fw_link_echo) that proves the path:
 * UART RX interrupt -> ring -> service -> polled UART TX.
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
