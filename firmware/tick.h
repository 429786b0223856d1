/* A millisecond tick from the Cortex-M3 SysTick timer. */
#ifndef FW_TICK_H
#define FW_TICK_H

#include <stdint.h>

/* Start SysTick on the processor clock at 1 kHz. */
void fw_tick_init(uint32_t cpu_hz);
/* Milliseconds since fw_tick_init (wraps after 49 days). */
uint32_t fw_tick_ms(void);
/* Busy-wait (sleeping between ticks) for at least ms milliseconds. */
void fw_delay_ms(uint32_t ms);
/* SysTick exception handler (vector table). */
void fw_systick_isr(void);

#endif
