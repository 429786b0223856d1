/* Minimal text output on the console, UART0 or UART1 (no printf: it would pull in newlib's
 * stdio, several KiB, for a banner and a few numbers). */
#ifndef FW_PRINT_H
#define FW_PRINT_H

#include <stdint.h>

/* The console: UART0 at reset; UART1 once UART0 carries the 9P link. */
void fw_console_uart1(void);
void fw_puts(const char *s);               /* no newline added */
void fw_put_dec(uint64_t v);
void fw_put_int(int32_t v);
void fw_put_hex(uint32_t v, unsigned digits); /* "0x" + digits */

#endif
