/*
 * steadyfs firmware for mps2-an385: banner, flash image (load or format
 * through semihosting), self-test over the device, stack high-water mark,
 * exit status through semihosting.  The 9P service will run in the link
 * loop (link.h) once the file system and server exist.
 *
 * Semihosting command line (set by `steady firmware run`):
 *   steadyfs-fw [records=N] [writes=N] [period=MS] [echo] [fault]
 *               [serve|p9echo] [format] [check=PATH] IMAGE-PATH
 *     records  self-test records written and read back this boot (8)
 *     writes   more records after the self-test, each acknowledged on
 *              UART0 ("write seq=S ok") only once it is on the host file
 *     period   milliseconds between those writes (0)
 *     echo     run the link loop with the echo service until EOT (0x04)
 *     fault    execute an undefined instruction (tests the fault report)
 *     serve    the File System On Chip: mount steadyfs (formatting a blank
 *              device) and serve 9P2000.L over UART0 through the framing
 *              layer until the host sends HALT; the console moves to UART1.
 *              No self-test records are written (the flash is the fs's).
 *     p9echo   the same link with the message echo service instead of the
 *              server (tests the plumbing; no file system)
 *     format   format the file system even if the device is not blank
 *     check    after mounting, read file PATH of the file system and print
 *              its size and CRC-32 (the demo's read-back on the board)
 *   IMAGE-PATH is the rest of the line (spaces allowed).
 *
 * Build option FW_SPINAND (make firmware-spinand): the file system and the
 * self-test reach the NAND through the reference SPI NAND driver
 * (src/drivers/spinand.c) talking SPI commands to the command-level chip
 * model (src/bd/spinand_sim.c) over the same device model and write-through
 * image, instead of calling the device model directly.
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "flash.h"
#include "fsoc.h"
#include "fwmain.h"
#include "link.h"
#include "print.h"
#include "selftest.h"
#include "semihost.h"
#include "serve.h"
#include "stack.h"
#include "tick.h"
#include "uart.h"
#ifdef FW_SPINAND
#include "steadyfs/sim_spinand.h"
#include "steadyfs/spinand.h"
#endif

#define FW_VERSION "0.1"
#define FW_BAUD 115200u
#define FW_PROFILE "mt29f1g01"
/* 32 of the part's 1024 blocks (4 MiB of its 128 MiB): the image, 4.3 MB
 * with metadata, must fit the board's 16 MiB PSRAM with room to spare and
 * load in a blink; steadyfs's RAM grows with the block count (one byte per
 * block, map roots), and 32 blocks still give it 2.1 MB of capacity, far
 * more than a ~14 kB/s UART moves in a test. */
#define FW_NAND_BLOCKS 32u
#define FW_FORMAT_SEED 1u

typedef struct fw_args {
    uint32_t records, writes, period_ms;
    int echo, fault, serve, p9echo, format;
    const char *image;
    const char *check;
} fw_args;

static char cmdline[512];
static fw_flash flash;
static fw_log logst;
static fw_echo echo;
static void nl(void) { fw_puts("\r\n"); }

/* What the file system and the self-test use: the device model's
 * write-through ops, or the SPI NAND driver's. */
static const sbd *fs_dev;

#ifdef FW_SPINAND
/* RAM of the driver: sizeof(spinand) + the bad-block map, 4 ceil(blocks/32)
 * bytes.  The chip model's cache register (page + 2 x spare) stands for
 * the chip's own, not the board's. */
static spinand nand;
static uint32_t nand_map[SPINAND_MAP_WORDS(FW_NAND_BLOCKS)];
static sim_spinand chip;
static uint8_t chip_cache[2048u + 2u * 64u];

/* The driver on the chip model on the write-through device (flash.bd). */
static int attach_spinand(void)
{
    spinand_config cfg;
    int rc = sim_spinand_init(&chip, &flash.sim, &flash.bd, chip_cache, sizeof chip_cache,
                              0x2C, 0x14, FW_FORMAT_SEED);
    if (rc)
        return rc;
    memset(&cfg, 0, sizeof cfg);
    cfg.xfer = sim_spinand_xfer;
    cfg.delay_us = sim_spinand_delay_us;
    cfg.ctx = &chip;
    cfg.blocks = FW_NAND_BLOCKS;
    cfg.quad = 1;
    cfg.bad_map = nand_map;
    cfg.bad_map_words = SPINAND_MAP_WORDS(FW_NAND_BLOCKS);
    rc = spinand_init(&nand, &cfg);
    if (rc)
        return rc;
    fs_dev = &nand.bd;
    return 0;
}

static void report_spinand(void)
{
    fw_puts("spinand: ");
    fw_puts(nand.part->name);
    fw_puts(", ");
    fw_put_dec(nand.bd.geo.block_count);
    fw_puts(" blocks, ");
    fw_put_dec(nand.stats.scan_bad);
    fw_puts(" marked bad; driver RAM ");
    fw_put_dec(sizeof nand);
    fw_puts(" + bad-block map ");
    fw_put_dec(sizeof nand_map);
    fw_puts(" bytes");
    nl();
}

static void report_spinand_stats(void)
{
    fw_puts("spinand: ");
    fw_put_dec(chip.stats.xfers);
    fw_puts(" SPI transactions, ");
    fw_put_dec(nand.stats.page_reads);
    fw_puts(" page reads, ");
    fw_put_dec(nand.stats.programs);
    fw_puts(" programs, ");
    fw_put_dec(nand.stats.erases);
    fw_puts(" erases, ");
    fw_put_dec(nand.stats.polls);
    fw_puts(" status polls, ");
    fw_put_dec(chip.stats.malformed + chip.stats.ignored);
    fw_puts(" refused");
    nl();
}
#endif

static int parse_u32(const char *s, uint32_t n, uint32_t *out)
{
    uint32_t v = 0;
    if (!n)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > 429496728u)
            return -1;
        v = v * 10u + (uint32_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

static int key_is(const char *tok, uint32_t len, const char *key)
{
    uint32_t k = (uint32_t)strlen(key);
    return len > k && strncmp(tok, key, k) == 0 && tok[k] == '=';
}

/* Options up to the first word that is not one; the rest is the path. */
static int parse_args(char *line, fw_args *a)
{
    char *p = line;
    a->records = 8;
    a->writes = 0;
    a->period_ms = 0;
    a->echo = 0;
    a->fault = 0;
    a->serve = a->p9echo = a->format = 0;
    a->image = NULL;
    a->check = NULL;
    while (*p && *p != ' ')
        p++; /* program name */
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        char *tok = p;
        uint32_t len = 0;
        while (tok[len] && tok[len] != ' ')
            len++;
        uint32_t *dst = key_is(tok, len, "records") ? &a->records
                        : key_is(tok, len, "writes") ? &a->writes
                        : key_is(tok, len, "period") ? &a->period_ms
                                                     : NULL;
        if (dst) {
            const char *v = tok;
            while (*v != '=')
                v++;
            v++;
            if (parse_u32(v, len - (uint32_t)(v - tok), dst))
                return -1;
        } else if (len == 4 && strncmp(tok, "echo", 4) == 0) {
            a->echo = 1;
        } else if (len == 5 && strncmp(tok, "fault", 5) == 0) {
            a->fault = 1;
        } else if (len == 5 && strncmp(tok, "serve", 5) == 0) {
            a->serve = 1;
        } else if (len == 6 && strncmp(tok, "p9echo", 6) == 0) {
            a->p9echo = 1;
        } else if (len == 6 && strncmp(tok, "format", 6) == 0) {
            a->format = 1;
        } else if (key_is(tok, len, "check")) {
            if (!tok[len])
                return -1; /* no image path after it */
            tok[len] = 0; /* the path ends here; the image path follows */
            a->check = tok + 6;
            p = tok + len + 1;
            continue;
        } else {
            a->image = tok;
            return 0;
        }
        p = tok + len;
    }
}

__attribute__((noreturn)) static void finish(uint32_t status)
{
    if (flash.handle >= 0 && fw_flash_close(&flash) != 0) {
        fw_puts("image: close failed");
        nl();
        if (status == FW_EXIT_OK)
            status = FW_EXIT_IMAGE;
    }
    fw_puts("stack: high-water ");
    fw_put_dec(fw_stack_used());
    fw_puts(" of ");
    fw_put_dec(fw_stack_size());
    fw_puts(" bytes");
    nl();
    fw_puts("uptime: ");
    fw_put_dec(fw_tick_ms());
    fw_puts(" ms");
    nl();
    fw_puts("exit: ");
    fw_put_dec(status);
    nl();
    sh_exit(status);
}

static void report_flash_stats(void)
{
    const sim_dev *d = &flash.sim;
    fw_puts("device: ");
    fw_put_dec(d->stats.reads);
    fw_puts(" reads, ");
    fw_put_dec(d->stats.progs);
    fw_puts(" programs, ");
    fw_put_dec(d->stats.erases);
    fw_puts(" erases, virtual time ");
    fw_put_dec(d->now_ns / 1000u);
    fw_puts(" us; persisted ");
    fw_put_dec(flash.persist_bytes);
    fw_puts(" bytes in ");
    fw_put_dec(flash.persist_calls);
    fw_puts(" host writes");
    nl();
#ifdef FW_SPINAND
    report_spinand_stats();
#endif
}

static uint32_t append(uint32_t n, uint32_t period_ms, int ack)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t seq = logst.next_seq;
        int rc = fw_log_append(&logst);
        if (rc != 0 || flash.persist_errors) {
            fw_puts("selftest: write seq=");
            fw_put_dec(seq);
            fw_puts(rc == 1 ? " read back differs" : " failed: ");
            if (rc < 0)
                fw_puts(sbd_strerror(rc));
            else if (flash.persist_errors)
                fw_puts(" (host write failed)");
            nl();
            return rc < 0 || flash.persist_errors ? FW_EXIT_IMAGE : FW_EXIT_SELFTEST;
        }
        if (ack) {
            fw_puts("write seq=");
            fw_put_dec(seq);
            fw_puts(" ok");
            nl();
        }
        if (period_ms)
            fw_delay_ms(period_ms);
    }
    return FW_EXIT_OK;
}

static void report_serve(const fw_serve_stats *st)
{
    const struct frame_stats *ls = fw_serve_link_stats();
    fw_puts("9p: ");
    fw_put_dec(st->sessions);
    fw_puts(" sessions, ");
    fw_put_dec(st->msgs);
    fw_puts(" messages (");
    fw_put_dec(st->bytes_in);
    fw_puts(" bytes in, ");
    fw_put_dec(st->bytes_out);
    fw_puts(" out), ");
    fw_put_dec(st->drops);
    fw_puts(" dropped, ");
    fw_put_dec(st->restarts);
    fw_puts(" host restarts, ");
    fw_put_dec(st->idle_steps);
    fw_puts(" idle gc steps");
    nl();
    fw_puts("link: ");
    fw_put_dec(ls->frames_sent);
    fw_puts(" frames sent, ");
    fw_put_dec(ls->retransmits);
    fw_puts(" retransmits, ");
    fw_put_dec(ls->crc_errors);
    fw_puts(" crc errors, ");
    fw_put_dec(ls->bad_frames);
    fw_puts(" bad frames, ");
    fw_put_dec(ls->dropped_busy);
    fw_puts(" busy, ");
    fw_put_dec(st->link_failures);
    fw_puts(" link failures");
    nl();
}

/* The File System On Chip (serve, p9echo, check): see fsoc.h. */
static uint32_t run_fsoc(const fw_args *a)
{
    fw_serve_stats st;
    uint32_t status = FW_EXIT_OK;
    memset(&st, 0, sizeof st);
    if (a->serve || a->p9echo) {
        fw_puts("console: UART1 from here; UART0 carries the framed 9P link");
        nl();
        fw_uart1_init(FW_SYSCLK_HZ, FW_BAUD);
        fw_console_uart1();
        fw_puts("steadyfs firmware " FW_VERSION " on mps2-an385: console on UART1");
        nl();
    }
    if (a->p9echo) {
        fw_echo_serve(&st);
        report_serve(&st);
        return FW_EXIT_OK;
    }
    if (fw_fs_attach(fs_dev, a->format) != 0)
        return FW_EXIT_IMAGE;
    if (a->check && fw_fs_check(a->check) != 0)
        status = FW_EXIT_SELFTEST;
    if (a->serve) {
        fw_fs_serve(&st);
        report_serve(&st);
    }
    if (fw_fs_detach() != 0 && status == FW_EXIT_OK)
        status = FW_EXIT_IMAGE;
    report_flash_stats();
    if (flash.persist_errors && status == FW_EXIT_OK)
        status = FW_EXIT_IMAGE;
    return status;
}

void fw_main(void)
{
    fw_args args;
    uint32_t status;
    int rc;

    fw_uart_init(FW_SYSCLK_HZ, FW_BAUD);
    fw_tick_init(FW_SYSCLK_HZ);
    fw_puts("steadyfs firmware " FW_VERSION " on mps2-an385 (Cortex-M3, 25 MHz)");
    nl();

    if (sh_get_cmdline(cmdline, sizeof cmdline) != 0 || parse_args(cmdline, &args) != 0) {
        fw_puts("usage: steadyfs-fw [records=N] [writes=N] [period=MS] [echo] [fault] "
                "[serve|p9echo] [format] [check=PATH] IMAGE");
        nl();
        finish(FW_EXIT_USAGE);
    }

    if (args.fault)
        __asm__ volatile("udf #0"); /* UsageFault, escalated to HardFault */

    const sim_profile *prof = sim_profile_find(FW_PROFILE);
    uint32_t cap = (uint32_t)(__flashimg_end - __flashimg_start);
    rc = prof ? fw_flash_open(&flash, args.image, prof, FW_NAND_BLOCKS, FW_FORMAT_SEED,
                              __flashimg_start, cap)
              : SBD_ERR_INVAL;
    fw_puts("flash: " FW_PROFILE " ");
    fw_put_dec(flash.sim.bd.geo.page_size);
    fw_puts("+");
    fw_put_dec(flash.sim.bd.geo.spare_size);
    fw_puts(" B pages, ");
    fw_put_dec(flash.sim.bd.geo.pages_per_block);
    fw_puts(" pages/block, ");
    fw_put_dec(FW_NAND_BLOCKS);
    fw_puts(" blocks (part: ");
    fw_put_dec(prof ? sim_profile_blocks(prof) : 0);
    fw_puts("), image ");
    fw_put_dec(prof ? sim_image_size(prof, FW_NAND_BLOCKS) : 0);
    fw_puts(" bytes at ");
    fw_put_hex((uint32_t)(uintptr_t)__flashimg_start, 8);
    nl();
    if (rc < 0) {
        fw_puts("image: cannot use ");
        fw_puts(args.image);
        fw_puts(": ");
        fw_puts(rc == SBD_ERR_INVAL ? "it holds another device's image (not overwritten)"
                                    : sbd_strerror(rc));
        nl();
        finish(FW_EXIT_IMAGE);
    }
    fw_puts(rc == FW_FLASH_LOADED ? "image: loaded " : "image: formatted new ");
    fw_puts(args.image);
    nl();
    fs_dev = &flash.bd;
#ifdef FW_SPINAND
    rc = attach_spinand();
    if (rc) {
        fw_puts("spinand: driver init failed: ");
        fw_puts(sbd_strerror(rc));
        nl();
        finish(FW_EXIT_IMAGE);
    }
    report_spinand();
#endif
    fw_puts("boot: ready in ");
    fw_put_dec(fw_tick_ms());
    fw_puts(" ms");
    nl();

    if (args.serve || args.p9echo || args.check)
        finish(run_fsoc(&args));

    rc = fw_log_scan(&logst, fs_dev);
    if (rc) {
        fw_puts("selftest: scan failed: ");
        fw_puts(sbd_strerror(rc));
        nl();
        finish(FW_EXIT_IMAGE);
    }
    fw_puts("selftest: boot ");
    fw_put_dec(logst.boot);
    fw_puts(", found ");
    fw_put_dec(logst.records);
    fw_puts(" records");
    if (logst.records) {
        fw_puts(" seq ");
        fw_put_dec(logst.seq_min);
        fw_puts("..");
        fw_put_dec(logst.seq_max);
    }
    fw_puts(", corrupt ");
    fw_put_dec(logst.corrupt);
    fw_puts(", foreign ");
    fw_put_dec(logst.foreign);
    nl();
    status = logst.corrupt ? FW_EXIT_SELFTEST : FW_EXIT_OK;

    uint32_t seq0 = logst.next_seq;
    uint32_t st = append(args.records, 0, 0);
    fw_puts("selftest: wrote ");
    fw_put_dec(logst.written);
    fw_puts(" records seq ");
    fw_put_dec(seq0);
    fw_puts("..");
    fw_put_dec(logst.next_seq - 1u);
    fw_puts(", read back ");
    fw_put_dec(logst.verified);
    fw_puts(" ok, ");
    fw_put_dec(logst.erases);
    fw_puts(" erases");
    nl();
    if (st)
        status = st;
    if (status == FW_EXIT_OK && args.writes) {
        fw_puts("writes: ");
        fw_put_dec(args.writes);
        fw_puts(" records, one every ");
        fw_put_dec(args.period_ms);
        fw_puts(" ms");
        nl();
        status = append(args.writes, args.period_ms, 1);
    }
    report_flash_stats();

    if (status == FW_EXIT_OK && args.echo) {
        fw_puts("link: echo until EOT");
        nl();
        uint32_t n = fw_link_run(&fw_link_echo, &echo);
        nl();
        fw_puts("link: ");
        fw_put_dec(n);
        fw_puts(" bytes received");
        nl();
    }
    fw_puts(status == FW_EXIT_OK ? "selftest: PASS" : "selftest: FAIL");
    nl();
    finish(status);
}
