/* Text output on the console (see print.h). */
#include "print.h"

#include "uart.h"

static void (*con_putc)(uint8_t) = fw_uart_putc;

void fw_console_uart1(void) { con_putc = fw_uart1_putc; }

void fw_puts(const char *s)
{
    while (*s)
        con_putc((uint8_t)*s++);
}

void fw_put_dec(uint64_t v)
{
    char buf[21];
    unsigned i = sizeof buf;
    buf[--i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    fw_puts(&buf[i]);
}

void fw_put_int(int32_t v)
{
    if (v < 0) {
        con_putc('-');
        fw_put_dec((uint64_t)(-(int64_t)v));
    } else {
        fw_put_dec((uint64_t)v);
    }
}

void fw_put_hex(uint32_t v, unsigned digits)
{
    fw_puts("0x");
    while (digits--)
        con_putc((uint8_t)"0123456789abcdef"[(v >> (4u * digits)) & 0xFu]);
}
