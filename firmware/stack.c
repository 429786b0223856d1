/* Stack painting and high-water measurement (see stack.h). */
#include "stack.h"

#include "board.h"

void fw_stack_paint(void)
{
    uint32_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    /* Leave a margin below our own frame: painting must not clobber the
     * words this function's prologue and the caller still use. */
    volatile uint32_t *end = (volatile uint32_t *)(sp - 64u);
    for (volatile uint32_t *p = __stack_bottom; p < end; p++)
        *p = FW_STACK_PAINT;
}

uint32_t fw_stack_used(void)
{
    const volatile uint32_t *p = __stack_bottom;
    while (p < __stack_top && *p == FW_STACK_PAINT)
        p++;
    return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)p);
}

uint32_t fw_stack_size(void)
{
    return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)__stack_bottom);
}
