/* Minimal text output over UART0 (no printf: it would pull in newlib's
 * stdio, several KiB, for a banner and a few numbers). */
#ifndef FW_PRINT_H
#define FW_PRINT_H

#include <stdint.h>

void fw_puts(const char *s);               /* no newline added */
void fw_put_dec(uint64_t v);
void fw_put_int(int32_t v);
void fw_put_hex(uint32_t v, unsigned digits); /* "0x" + digits */

#endif
