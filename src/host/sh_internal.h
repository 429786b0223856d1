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

#endif
