/*
 * The mps2-an385 board as the firmware sees it: what the linker script
 * places (mps2-an385.ld), the clock, and the entry points startup.c calls.
 */
#ifndef FW_BOARD_H
#define FW_BOARD_H

#include <stdint.h>

/* AN385 SYSCLK, which also clocks the CPU (QEMU: SYSCLK_FRQ in mps2.c). */
#define FW_SYSCLK_HZ 25000000u

/* Linker-script symbols: only their addresses mean anything. */
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_bottom[], __stack_top[];
extern uint8_t __flashimg_start[], __flashimg_end[];

/* Reset handler (vector 1; also the ELF entry point). */
void fw_reset(void);

/* The firmware proper; startup.c calls it once .data and .bss are set up.
 * It must not return (it leaves through semihosting). */
void fw_main(void);

/* Called by the fault entry stubs with the stacked exception frame
 * (r0-r3, r12, lr, pc, xpsr) and EXC_RETURN; reports over UART0, stops. */
void fw_fault_report(const uint32_t *frame, uint32_t exc_return);

#endif
