/*
 * A steadyfs file system on a simulated-device image file (docs/SIM-IMAGE.md),
 * for the host tools (src/host/main/img_main.c).  The image header names
 * the device profile and block count, so an existing image needs nothing
 * but its path.  Read-only opens map the file privately (copy-on-write):
 * nothing a read-only command does can reach the file.
 */
#ifndef STEADYFS_HOST_IMGFS_H
#define STEADYFS_HOST_IMGFS_H

#include <stddef.h>
#include <stdint.h>

#include "steadyfs/sim.h"
#include "steadyfs/steadyfs.h"

typedef struct imgfs {
    int fd;
    uint8_t *map;
    size_t len;
    sim_dev sim;
    const sim_profile *prof;
    uint32_t blocks;
    uint64_t seed;   /* factory bad-block placement at create */
    steadyfs fs;
    steadyfs_config cfg;
    void *work;
    void *sector;
    int mounted;
    char *tmp, *dest;   /* imgfs_create: the file being made, where it goes */
    int replace;        /* imgfs_create: --force */
    char err[512];   /* why the last call failed, one line */
} imgfs;

/* Format options of mkfs (0: default). */
typedef struct imgfs_format {
    uint16_t max_inodes, fill_permille;
    uint8_t file_pages_log2, dir_pages;
    uint32_t sector_size, erase_mult;
    uint16_t ring_units, ring_sectors;   /* the record ring (steadyfs.h) */
} imgfs_format;

/* Create (or, with force, replace) an image of `profile` with `blocks`
 * blocks (0: the profile's), factory bad blocks from seed, and format it.
 * Leaves it mounted writable.  0 or -1 (m->err says why, naming the mkfs
 * option at fault when the format is refused).  Nothing happens to `path`
 * until imgfs_close() succeeds: the image is made in a temporary file in
 * the same directory and renamed over `path` then, so a failure (or
 * imgfs_discard) leaves no file behind and an existing one untouched. */
int imgfs_create(imgfs *m, const char *path, const char *profile, uint32_t blocks,
                 uint64_t seed, const imgfs_format *f, int force);
/* Give up an image being created: unmapped, the temporary file removed. */
void imgfs_discard(imgfs *m);
/* Open an existing image; profile NULL or the name it must have.  Reads
 * the format from the medium and mounts.  0, -1 (m->err) when the image
 * file cannot be used, -2 (m->err) when it holds no mountable file system. */
int imgfs_open(imgfs *m, const char *path, const char *profile, int writable);
/* Open without mounting (fsck mounts itself): m->cfg is ready. */
int imgfs_attach(imgfs *m, const char *path, const char *profile, int writable);
/* Unmount (committing) and unmap; a created image then takes its place
 * (imgfs_create).  Returns 0 or -1 (m->err). */
int imgfs_close(imgfs *m);

#endif
