/* Stack high-water measurement by painting: the unused part of the main
 * stack keeps a known pattern; the deepest overwritten word is the mark. */
#ifndef FW_STACK_H
#define FW_STACK_H

#include <stdint.h>

#define FW_STACK_PAINT 0xC0FFEE5Au

/* Paint the main stack below the caller's frame.  Called first at reset. */
void fw_stack_paint(void);
/* Bytes of the main stack ever used since fw_stack_paint (a few words of
 * the reset handler's own frame are always counted: conservative). */
uint32_t fw_stack_used(void);
uint32_t fw_stack_size(void);

#endif
