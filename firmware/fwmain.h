/* Firmware exit statuses (the semihosting exit status, which QEMU returns
 * as its own exit status, and `steady firmware run` returns in turn). */
#ifndef FW_FWMAIN_H
#define FW_FWMAIN_H

#define FW_EXIT_OK 0u
#define FW_EXIT_SELFTEST 1u /* a page read back differs, or a record is corrupt */
#define FW_EXIT_IMAGE 2u    /* the image could not be loaded, formatted or saved */
#define FW_EXIT_FAULT 3u    /* a CPU fault (reported over UART0) */
#define FW_EXIT_USAGE 4u    /* bad semihosting command line */

#endif
