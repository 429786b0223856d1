/*
 * CMSDK APB UART driver for UART0 of mps2-an385 (0x40004000, RX IRQ 0).
 * TX is polled.  RX is interrupt-driven into a ring buffer so that reads
 * never block and the main loop can sleep (WFI) until a byte arrives.
 * RAM: FW_UART_RXBUF bytes + 2 indices.
 */
#ifndef FW_UART_H
#define FW_UART_H

#include <stdint.h>

#define FW_UART_RXBUF 256u /* power of two */

void fw_uart_init(uint32_t pclk_hz, uint32_t baud);
void fw_uart_putc(uint8_t c);
void fw_uart_write(const void *buf, uint32_t n);
/* Next received byte, or -1 at once if none is waiting. */
int fw_uart_getc(void);
/* Bytes waiting in the receive ring. */
uint32_t fw_uart_rx_avail(void);
/* UART0 RX interrupt handler (vector table). */
void fw_uart0_rx_isr(void);

/* UART1 (0x40005000), transmit only, polled: the console while UART0
 * carries the 9P link (steadyfs-fw serve).  QEMU maps its second -serial
 * to it. */
void fw_uart1_init(uint32_t pclk_hz, uint32_t baud);
void fw_uart1_putc(uint8_t c);

#endif
