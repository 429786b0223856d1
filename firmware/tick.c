/* SysTick millisecond tick (see tick.h).  SysTick registers: ARMv7-M ARM,
 * B3.3 (SYST_CSR 0xE000E010, SYST_RVR, SYST_CVR). */
#include "tick.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_CSR_ENABLE 0x1u
#define SYST_CSR_TICKINT 0x2u
#define SYST_CSR_CLKSOURCE_CPU 0x4u

static volatile uint32_t ms_count;

void fw_systick_isr(void) { ms_count++; }

void fw_tick_init(uint32_t cpu_hz)
{
    SYST_CSR = 0;
    SYST_RVR = cpu_hz / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE_CPU;
}

uint32_t fw_tick_ms(void) { return ms_count; }

void fw_delay_ms(uint32_t ms)
{
    uint32_t t0 = ms_count;
    /* +1: the first tick may come at once, so wait for ms whole periods */
    while (ms_count - t0 < ms + 1u)
        __asm__ volatile("wfi");
}
