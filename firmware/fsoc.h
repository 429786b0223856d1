/*
 * The File System On Chip: steadyfs on the board's NAND, exported by the
 * 9P2000.L server (p9srv.h) over UART0 (serve.h).  Static memory only; the
 * figures are printed at boot ("ram:" line) and in docs/FIRMWARE.md:
 *
 *   sizeof(steadyfs)                   file system context
 *   + steadyfs_work_size(cfg)          its work area (32 blocks, open_max 4)
 *   + FW_FS_SECTOR                     one sector buffer (the NAND page)
 *   + sizeof(p9srv) + p9srv_mem_size   server state, fid table (16 fids,
 *                                      128-byte paths)
 *   + FW_MSIZE                         the one message buffer: requests are
 *                                      received into it, replies built in place
 *   + serve.h's link buffers           780 B at MTU 256
 *
 * msize 4096: the smallest msize Linux's v9fs accepts from a server (it
 * refuses a smaller Rversion), and one NAND page of Twrite/Rread payload
 * per message minus the 24-byte header.
 */
#ifndef FW_FSOC_H
#define FW_FSOC_H

#include <stdint.h>

#include "serve.h"
#include "steadyfs/bd.h"

#define FW_MSIZE 4096u
#define FW_FS_SECTOR 2048u
#define FW_FS_OPEN_MAX 4u
#define FW_P9_FID_MAX 16u

/* Mount steadyfs on bd.  Formats only a blank device (or when `force`):
 * a device holding anything else that does not mount is refused.
 * Prints what it did.  Returns 0 or a negative steadyfs error. */
int fw_fs_attach(const sbd *bd, int force);
/* Reads the file at path and prints "check: PATH N bytes crc32 0x..." (the
 * demo's read-back on the board).  Returns 0 or a negative error. */
int fw_fs_check(const char *path);
/* Serves 9P over UART0 until HALT. */
void fw_fs_serve(fw_serve_stats *st);
/* The message echo service over the same link (plumbing test, no fs). */
void fw_echo_serve(fw_serve_stats *st);
/* Unmount (commits open files). */
int fw_fs_detach(void);

#endif
