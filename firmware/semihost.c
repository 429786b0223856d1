/* Semihosting calls (see semihost.h).  Operation numbers from the ARM
 * semihosting specification v2.0, section 6. */
#include "semihost.h"

#include <string.h>

enum {
    SYS_OPEN = 0x01,
    SYS_CLOSE = 0x02,
    SYS_WRITE = 0x05,
    SYS_READ = 0x06,
    SYS_SEEK = 0x0A,
    SYS_FLEN = 0x0C,
    SYS_GET_CMDLINE = 0x15,
    SYS_EXIT = 0x18,
    SYS_EXIT_EXTENDED = 0x20,
};
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static int32_t sh_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    /* "memory": the host reads and writes the parameter block and buffers */
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return (int32_t)r0;
}

int32_t sh_open(const char *path, uint32_t mode)
{
    uint32_t blk[3] = {(uint32_t)(uintptr_t)path, mode, (uint32_t)strlen(path)};
    return sh_call(SYS_OPEN, blk);
}

int32_t sh_close(int32_t h)
{
    uint32_t blk[1] = {(uint32_t)h};
    return sh_call(SYS_CLOSE, blk);
}

int32_t sh_flen(int32_t h)
{
    uint32_t blk[1] = {(uint32_t)h};
    return sh_call(SYS_FLEN, blk);
}

int32_t sh_seek(int32_t h, uint32_t pos)
{
    uint32_t blk[2] = {(uint32_t)h, pos};
    return sh_call(SYS_SEEK, blk);
}

uint32_t sh_read(int32_t h, void *buf, uint32_t len)
{
    uint32_t blk[3] = {(uint32_t)h, (uint32_t)(uintptr_t)buf, len};
    return (uint32_t)sh_call(SYS_READ, blk);
}

uint32_t sh_write(int32_t h, const void *buf, uint32_t len)
{
    uint32_t blk[3] = {(uint32_t)h, (uint32_t)(uintptr_t)buf, len};
    return (uint32_t)sh_call(SYS_WRITE, blk);
}

int32_t sh_get_cmdline(char *buf, uint32_t len)
{
    uint32_t blk[2] = {(uint32_t)(uintptr_t)buf, len};
    return sh_call(SYS_GET_CMDLINE, blk);
}

void sh_exit(uint32_t status)
{
    uint32_t blk[2] = {ADP_STOPPED_APPLICATION_EXIT, status};
    sh_call(SYS_EXIT_EXTENDED, blk);
    /* A host without SYS_EXIT_EXTENDED: plain exit (status lost). */
    sh_call(SYS_EXIT, (const void *)(uintptr_t)ADP_STOPPED_APPLICATION_EXIT);
    for (;;)
        __asm__ volatile("wfi");
}
