/* CMSDK APB UART (ARM Cortex-M System Design Kit TRM, "APB UART"):
 * DATA 0x00, STATE 0x04 (bit0 TX full, bit1 RX full), CTRL 0x08 (bit0 TX
 * enable, bit1 RX enable, bit3 RX interrupt enable), INTSTATUS 0x0C (write
 * 1 to clear; bit1 RX), BAUDDIV 0x10 (>= 16). */
#include "uart.h"

#define UART0_BASE 0x40004000u
#define REG(off) (*(volatile uint32_t *)(UART0_BASE + (off)))
#define UART_DATA REG(0x00u)
#define UART_STATE REG(0x04u)
#define UART_CTRL REG(0x08u)
#define UART_INTSTATUS REG(0x0Cu)
#define UART_BAUDDIV REG(0x10u)

#define STATE_TXFULL 0x1u
#define STATE_RXFULL 0x2u
#define CTRL_TXEN 0x1u
#define CTRL_RXEN 0x2u
#define CTRL_RXIRQ 0x8u
#define INT_RX 0x2u

#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define UART0_RX_IRQ 0u

static volatile uint8_t rx_ring[FW_UART_RXBUF];
static volatile uint32_t rx_head, rx_tail; /* head: the ISR writes it */

void fw_uart_init(uint32_t pclk_hz, uint32_t baud)
{
    rx_head = rx_tail = 0;
    UART_CTRL = 0;
    UART_BAUDDIV = pclk_hz / baud;
    UART_INTSTATUS = 0xFu;
    UART_CTRL = CTRL_TXEN | CTRL_RXEN | CTRL_RXIRQ;
    NVIC_ISER0 = 1u << UART0_RX_IRQ;
}

void fw_uart_putc(uint8_t c)
{
    while (UART_STATE & STATE_TXFULL) {
    }
    UART_DATA = c;
}

void fw_uart_write(const void *buf, uint32_t n)
{
    const uint8_t *p = buf;
    while (n--)
        fw_uart_putc(*p++);
}

/* Move bytes from the UART (it holds one) into the ring while there is
 * room.  When the ring is full the byte stays in the UART: QEMU (and a
 * host with flow control) then holds the next ones back, so nothing is
 * dropped; the RX interrupt is masked until fw_uart_getc makes room.
 * Runs with the interrupt masked or from the ISR: never concurrently. */
static void rx_drain(void)
{
    while ((UART_STATE & STATE_RXFULL) && rx_head - rx_tail < FW_UART_RXBUF) {
        rx_ring[rx_head % FW_UART_RXBUF] = (uint8_t)UART_DATA;
        rx_head++;
    }
}

void fw_uart0_rx_isr(void)
{
    UART_INTSTATUS = INT_RX;
    rx_drain();
    if (rx_head - rx_tail >= FW_UART_RXBUF)
        UART_CTRL &= ~CTRL_RXIRQ;
}

int fw_uart_getc(void)
{
    int c = -1;
    __asm__ volatile("cpsid i" ::: "memory");
    if (rx_tail != rx_head) {
        c = rx_ring[rx_tail % FW_UART_RXBUF];
        rx_tail++;
    }
    /* A byte can sit in the UART with no interrupt to come: one that
     * arrived while the RX interrupt was masked (INTSTATUS.RX is only set
     * for a byte that arrives with it enabled -- so in QEMU's model too).
     * Polling here picks it up; the main loop calls this at least once a
     * tick, so such a byte waits at most 1 ms. */
    rx_drain();
    if (!(UART_CTRL & CTRL_RXIRQ) && rx_head - rx_tail < FW_UART_RXBUF)
        UART_CTRL |= CTRL_RXIRQ;
    if (c < 0 && rx_tail != rx_head) {
        c = rx_ring[rx_tail % FW_UART_RXBUF];
        rx_tail++;
    }
    __asm__ volatile("cpsie i" ::: "memory");
    return c;
}

uint32_t fw_uart_rx_avail(void) { return rx_head - rx_tail; }

/* UART1: the same CMSDK block at the next 4 KiB, transmit only. */
#define UART1_BASE 0x40005000u
#define REG1(off) (*(volatile uint32_t *)(UART1_BASE + (off)))

void fw_uart1_init(uint32_t pclk_hz, uint32_t baud)
{
    REG1(0x08u) = 0;
    REG1(0x10u) = pclk_hz / baud;
    REG1(0x08u) = CTRL_TXEN;
}

void fw_uart1_putc(uint8_t c)
{
    while (REG1(0x04u) & STATE_TXFULL) {
    }
    REG1(0x00u) = c;
}
