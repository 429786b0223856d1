/*
 * Cortex-M3 reset and exception entry for mps2-an385: the vector table, the
 * reset handler (copy .data, zero .bss, paint the stack, call fw_main) and
 * the fault entry that hands the stacked frame to fw_fault_report.
 * Vector layout: ARMv7-M ARM B1.5.3; AN385 has 32 external interrupts
 * (UART0 RX is IRQ 0).
 */
#include <stdint.h>

#include "board.h"
#include "stack.h"
#include "tick.h"
#include "uart.h"

static void fw_fault_entry(void);

/* Naked: it must see the exception frame exactly as the core stacked it. */
__attribute__((naked)) static void fw_fault_entry(void)
{
    __asm__ volatile("tst lr, #4\n"
                     "ite eq\n"
                     "mrseq r0, msp\n"
                     "mrsne r0, psp\n"
                     "mov r1, lr\n"
                     "b fw_fault_report\n");
}

#define FW_IRQS 32u
#define VEC(fn) ((uint32_t)(uintptr_t)(fn))

__attribute__((used, section(".vectors"))) static const uint32_t fw_vectors[16u + FW_IRQS] = {
    [0] = VEC(__stack_top),
    [1] = VEC(fw_reset),
    [2] = VEC(fw_fault_entry),  /* NMI */
    [3] = VEC(fw_fault_entry),  /* HardFault */
    [4] = VEC(fw_fault_entry),  /* MemManage */
    [5] = VEC(fw_fault_entry),  /* BusFault */
    [6] = VEC(fw_fault_entry),  /* UsageFault */
    [11] = VEC(fw_fault_entry), /* SVCall: nothing here uses it */
    [12] = VEC(fw_fault_entry), /* DebugMonitor */
    [14] = VEC(fw_fault_entry), /* PendSV */
    [15] = VEC(fw_systick_isr),
    [16 + 0] = VEC(fw_uart0_rx_isr),
    /* every other IRQ is unexpected: report it like a fault */
    [17 ... 16u + FW_IRQS - 1u] = VEC(fw_fault_entry),
};

void fw_reset(void)
{
    /* Paint first, while almost nothing is on the stack. */
    fw_stack_paint();
    const uint32_t *src = __data_load;
    for (uint32_t *dst = __data_start; dst < __data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = __bss_start; dst < __bss_end;)
        *dst++ = 0;
    fw_main();
    for (;;)
        __asm__ volatile("wfi");
}
