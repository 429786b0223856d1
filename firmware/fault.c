/* Fault reporting: which exception, where, and the fault status registers
 * (ARMv7-M ARM B3.2: CFSR 0xE000ED28, HFSR 0xE000ED2C, MMFAR, BFAR), over
 * UART0; then the board stops (semihosting exit with FW_EXIT_FAULT, so a
 * run under QEMU ends instead of hanging). */
#include "board.h"
#include "fwmain.h"
#include "print.h"
#include "semihost.h"

#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)

static const char *exc_name(uint32_t n)
{
    switch (n) {
    case 2: return "NMI";
    case 3: return "HardFault";
    case 4: return "MemManage";
    case 5: return "BusFault";
    case 6: return "UsageFault";
    case 11: return "SVCall";
    case 12: return "DebugMonitor";
    case 14: return "PendSV";
    default: return n >= 16 ? "unexpected IRQ" : "reserved exception";
    }
}

void fw_fault_report(const uint32_t *frame, uint32_t exc_return)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    ipsr &= 0x1FFu;
    fw_puts("\r\nFAULT: ");
    fw_puts(exc_name(ipsr));
    fw_puts(" (exception ");
    fw_put_dec(ipsr);
    fw_puts(")\r\n  pc ");
    fw_put_hex(frame[6], 8);
    fw_puts(" lr ");
    fw_put_hex(frame[5], 8);
    fw_puts(" xpsr ");
    fw_put_hex(frame[7], 8);
    fw_puts(" exc_return ");
    fw_put_hex(exc_return, 8);
    fw_puts("\r\n  cfsr ");
    fw_put_hex(SCB_CFSR, 8);
    fw_puts(" hfsr ");
    fw_put_hex(SCB_HFSR, 8);
    fw_puts(" mmfar ");
    fw_put_hex(SCB_MMFAR, 8);
    fw_puts(" bfar ");
    fw_put_hex(SCB_BFAR, 8);
    fw_puts("\r\n  r0 ");
    fw_put_hex(frame[0], 8);
    fw_puts(" r1 ");
    fw_put_hex(frame[1], 8);
    fw_puts(" r2 ");
    fw_put_hex(frame[2], 8);
    fw_puts(" r3 ");
    fw_put_hex(frame[3], 8);
    fw_puts("\r\nexit: ");
    fw_put_dec(FW_EXIT_FAULT);
    fw_puts("\r\n");
    sh_exit(FW_EXIT_FAULT);
}
