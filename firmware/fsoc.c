/* steadyfs + 9P server on the board (fsoc.h). */
#include "fsoc.h"

#include "print.h"
#include "tick.h"
#include "steadyfs/crc32.h"
#include "steadyfs/p9srv.h"

#include "steadyfs/steadyfs.h"

/* Work area: steadyfs_work_size() of the config below is checked at
 * attach; this is its ceiling with a little room (format 9: 2032 B on
 * the 32-block device, of which 612 B the relocation state). */
#define FW_FS_WORK 2048u
#define FW_P9_PATH_MAX 128u
#define FW_P9_MEM (FW_P9_FID_MAX * (P9SRV_FID_SIZE + FW_P9_PATH_MAX) + 2u * FW_P9_PATH_MAX)

static steadyfs fs;
static uint8_t fs_work[FW_FS_WORK] __attribute__((aligned(8)));
static uint8_t fs_sector[FW_FS_SECTOR] __attribute__((aligned(4)));
static p9srv srv;
static uint8_t srv_mem[FW_P9_MEM] __attribute__((aligned(4)));

static uint8_t msg[FW_MSIZE] __attribute__((aligned(4)));
static uint32_t work_used;

static void nl(void) { fw_puts("\r\n"); }

static void say_err(const char *what, int rc)
{
    fw_puts(what);
    fw_puts(steadyfs_strerror(rc));
    fw_puts(" (");
    fw_put_int(rc);
    fw_puts(")");
    nl();
}

/* Every page reads back erased: nothing here to lose by formatting. */
static int device_blank(const sbd *bd)
{
    uint32_t ps = bd->geo.page_size, ppb = bd->geo.pages_per_block;
    for (uint32_t b = 0; b < bd->geo.block_count; b++) {
        if (sbd_is_bad(bd, b) > 0)
            continue;
        for (uint32_t p = 0; p < ppb; p++) {
            if (sbd_read(bd, b, p * ps, fs_sector, ps, 0, 0) < 0)
                return 0;
            for (uint32_t i = 0; i < ps; i++)
                if (fs_sector[i] != 0xFFu)
                    return 0;
        }
    }
    return 1;
}

/* File times: the board has no RTC on QEMU's mps2-an385, so times are the
 * SysTick milliseconds since boot (they order events; a board with an RTC
 * returns wall-clock nanoseconds here instead). */
static int64_t fw_clock(void)
{
    return (int64_t)fw_tick_ms() * 1000000;
}

int fw_fs_attach(const sbd *bd, int force)
{
    steadyfs_config cfg = {
        .bd = bd,
        .work = fs_work,
        .work_size = sizeof fs_work,
        .sector_buf = fs_sector,
        .sector_buf_size = sizeof fs_sector,
        .open_max = FW_FS_OPEN_MAX,
        .clock = fw_clock,
    };
    int rc;
    work_used = steadyfs_work_size(&cfg);
    if (work_used == 0 || work_used > sizeof fs_work) {
        fw_puts("fs: work area needs ");
        fw_put_dec(work_used);
        fw_puts(" bytes, have ");
        fw_put_dec(sizeof fs_work);
        nl();
        return STEADYFS_EINVAL;
    }
    uint32_t t0 = fw_tick_ms();
    rc = force ? STEADYFS_ECORRUPT : steadyfs_mount(&fs, &cfg);
    if (rc) {
        if (!force && !device_blank(bd)) {
            say_err("fs: mount failed, the device is not blank, not formatting: ", rc);
            return rc;
        }
        fw_puts(force ? "fs: formatting (asked)" : "fs: blank device, formatting");
        nl();
        rc = steadyfs_format(&fs, &cfg);
        if (!rc)
            rc = steadyfs_mount(&fs, &cfg);
        if (rc) {
            say_err("fs: format failed: ", rc);
            return rc;
        }
    }
    steadyfs_info info;
    if (steadyfs_info_get(&fs, &info) == 0) {
        fw_puts("fs: mounted in ");
        fw_put_dec(fw_tick_ms() - t0);
        fw_puts(" ms, capacity ");
        fw_put_dec(info.capacity);
        fw_puts(" bytes, used ");
        fw_put_dec(info.used);
        nl();
    }
    return 0;
}

int fw_fs_check(const char *path)
{
    int fd = steadyfs_open(&fs, path, STEADYFS_O_RDONLY);
    if (fd < 0) {
        fw_puts("check: ");
        fw_puts(path);
        say_err(": ", fd);
        return fd;
    }
    uint32_t crc = 0;
    uint64_t total = 0;
    int32_t n;
    while ((n = steadyfs_read(&fs, fd, msg, sizeof msg)) > 0) {
        crc = steady_crc32(crc, msg, (size_t)n);
        total += (uint32_t)n;
    }
    steadyfs_close(&fs, fd);
    fw_puts("check: ");
    fw_puts(path);
    if (n < 0) {
        say_err(": read failed: ", n);
        return n;
    }
    fw_puts(" ");
    fw_put_dec(total);
    fw_puts(" bytes crc32 ");
    fw_put_hex(crc, 8);
    nl();
    return 0;
}

static int32_t p9_handle(void *ctx, const uint8_t *in, uint32_t n, uint8_t *out, uint32_t cap)
{
    return p9srv_handle(ctx, in, n, out, cap);
}

static void p9_disconnect(void *ctx)
{
    int rc = p9srv_disconnect(ctx);
    if (rc)
        say_err("9p: disconnect: a close failed: ", rc);
}

/* Idle time: one garbage-collection step (bounded, steadyfs_bound). */
static int p9_idle(void *ctx)
{
    (void)ctx;
    return steadyfs_gc_step(&fs, 1) > 0;
}

void fw_fs_serve(fw_serve_stats *st)
{
    p9srv_config pc = {
        .fs = &fs,
        .mem = srv_mem,
        .mem_size = sizeof srv_mem,
        .msize_max = FW_MSIZE,
        .fid_max = FW_P9_FID_MAX,
        .path_max = FW_P9_PATH_MAX,
        .access_user = 1,
        /* no lock table: one link, whose kernel keeps its locks (p9srv.h) */
    };
    uint32_t need = p9srv_mem_size(&pc);
    if (need == 0 || need > sizeof srv_mem || p9srv_init(&srv, &pc) != 0) {
        fw_puts("9p: server init failed (mem ");
        fw_put_dec(need);
        fw_puts(")");
        nl();
        return;
    }
    fw_puts("ram: fs ");
    fw_put_dec(sizeof fs);
    fw_puts(" + work ");
    fw_put_dec(work_used);
    fw_puts(" + sector ");
    fw_put_dec(sizeof fs_sector);
    fw_puts("; 9p ");
    fw_put_dec(sizeof srv);
    fw_puts(" + fids ");
    fw_put_dec(need);
    fw_puts(" + msize ");
    fw_put_dec(sizeof msg);
    fw_puts("; link MTU ");
    fw_put_dec(FW_LINK_MTU);
    fw_puts(" -> ");
    fw_put_dec(FRAME_MEM(FW_LINK_MTU));
    fw_puts(" bytes");
    nl();
    static const fw_svc svc = { p9_handle, p9_disconnect, p9_idle, &srv };
    fw_puts("9p: serving 9P2000.L on UART0 (framed), msize ");
    fw_put_dec(FW_MSIZE);
    nl();
    fw_serve(&svc, msg, sizeof msg, st);
}

void fw_echo_serve(fw_serve_stats *st)
{
    fw_puts("9p: message echo on UART0 (framed), up to ");
    fw_put_dec(sizeof msg);
    fw_puts(" bytes");
    nl();
    fw_serve(&fw_echo_svc, msg, sizeof msg, st);
}

int fw_fs_detach(void)
{
    int rc = steadyfs_unmount(&fs);
    if (rc)
        say_err("fs: unmount: ", rc);
    else {
        fw_puts("fs: unmounted");
        nl();
    }
    return rc;
}
