/* Private: the handle behind include/steadyfs/host.h, shared by simhost.c
 * (simulated devices) and linuxdev.c (real files and block devices). */
#ifndef STEADYFS_SH_INTERNAL_H
#define STEADYFS_SH_INTERNAL_H

#include "steadyfs/host.h"

/* A real device: the sbd plus a wall clock kept like the sim clock. */
typedef struct lx_dev {
    sbd bd;
    int fd;
    int direct;            /* opened with O_DIRECT */
    int writable;
    uint32_t align;        /* bounce buffer alignment (logical block size) */
    uint64_t size;         /* bytes */
    uint64_t now_ns, last_ns;
    sim_stats stats;
    sim_trace_fn trace;
    void *trace_arg;
    uint8_t *bounce;
    uint32_t bounce_len;
} lx_dev;

struct sh_dev {
    int is_sim;
    sim_dev sim;
    lx_dev lx;
    char name[256];
    uint8_t *image;
    uint64_t image_len;
    int fd;                /* image file, -1 for RAM */
    sh_trace_rec *ring;
    uint64_t ring_cap, ring_count;
};

void sh_set_error(const char *fmt, ...);
void sh_trace_hook(void *arg, enum sim_op op, uint32_t block, uint32_t off, uint32_t len,
                   uint64_t start_ns, uint64_t dur_ns, int rc);
int lx_open(sh_dev *h, const char *path, int allow_write, uint32_t page_size,
            uint32_t block_size, uint64_t size_bytes);
void lx_close(lx_dev *lx);

/* The largest sector a format may have, so a probe's buffer fits any. */
#define SH_PROBE_SECTOR_MAX 65536u
/* Fill cfg's format fields from a checkpoint on cfg->bd (steadyfs_probe):
 * sector_size 0 tries the default and every other size the core accepts
 * (the image header does not record it), else only the one given.
 * cfg->sector_buf holds SH_PROBE_SECTOR_MAX bytes; scratch is any context.
 * 0, or STEADYFS_ECORRUPT when no size finds a checkpoint.  Shared by
 * sh_fs_probe (fshost.c) and the image tools (imgfs.c). */
int sh_probe_format(steadyfs *scratch, steadyfs_config *cfg);

#endif
