/*
 * ARM semihosting (ARM "Semihosting for AArch32 and AArch64", v2.0): the
 * debugger -- here QEMU with -semihosting-config enable=on,target=native --
 * performs file I/O on the host for the target.  On M-profile the call is
 * BKPT 0xAB with the operation in r0 and a parameter block in r1.
 * Without a debugger attached a BKPT faults: this is for QEMU and debug
 * probes only.
 */
#ifndef FW_SEMIHOST_H
#define FW_SEMIHOST_H

#include <stdint.h>

/* SYS_OPEN modes (fopen strings): */
#define SH_MODE_RB 1   /* "rb"  */
#define SH_MODE_RPB 3  /* "r+b" */
#define SH_MODE_WPB 7  /* "w+b": create or truncate */

/* Host handle, or -1. */
int32_t sh_open(const char *path, uint32_t mode);
int32_t sh_close(int32_t h);
/* File length, or -1. */
int32_t sh_flen(int32_t h);
/* Absolute seek; 0 or negative. */
int32_t sh_seek(int32_t h, uint32_t pos);
/* Both return the number of bytes NOT transferred (0: all). */
uint32_t sh_read(int32_t h, void *buf, uint32_t len);
uint32_t sh_write(int32_t h, const void *buf, uint32_t len);
/* The command line given to QEMU (-semihosting-config arg=...), NUL
 * terminated; 0 or -1. */
int32_t sh_get_cmdline(char *buf, uint32_t len);
/* End the program with an exit status (SYS_EXIT_EXTENDED, so the status
 * reaches the host: QEMU exits with it). */
__attribute__((noreturn)) void sh_exit(uint32_t status);

#endif
