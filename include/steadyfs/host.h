/*
 * steadyfs host handle API: what Python (ctypes) and host tools bind to.
 * Host-only (malloc, files, mmap).  A handle is a simulated device on an
 * image in RAM or in a file, or a Linux file / block device; either way
 * sh_bd() gives the sbd interface the file system runs on, and every
 * operation leaves its duration in sh_last_ns() and advances sh_now_ns()
 * (virtual time for simulated devices, CLOCK_MONOTONIC for real ones).
 *
 * Functions returning int return 0 (or a count) on success and a negative
 * SBD_ERR_* code on failure; sbd_strerror() names it.
 */
#ifndef STEADYFS_HOST_H
#define STEADYFS_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "steadyfs/bd.h"
#include "steadyfs/sim.h"
#include "steadyfs/steadyfs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sh_dev sh_dev;

/* One recorded operation (sh_trace_enable). */
typedef struct sh_trace_rec {
    uint64_t start_ns;
    uint64_t dur_ns;
    uint32_t block;
    uint32_t off;
    uint32_t len;     /* bytes (erase: block count) */
    int32_t rc;
    uint32_t op;      /* enum sim_op */
} sh_trace_rec;

/* Open a simulated device.  path NULL or "": image in RAM.  Otherwise the
 * image file is mapped MAP_SHARED (created and sized on first use, which
 * formats it), so the device survives a process restart.  fresh != 0
 * formats.  blocks 0: the profile's block count.  timing: enum sim_timing.
 * On failure returns NULL and sets *err. */
sh_dev *sh_open_sim(const char *profile, const char *path, uint32_t blocks, int timing,
                    uint64_t seed, int fresh, int *err);

/* Open an existing image file as its header describes it (docs/SIM-IMAGE.md:
 * profile name and block count): nothing is created or formatted.  profile
 * (NULL: any) and blocks (0: any) are checks: if given they must be what
 * the header records.  NULL with *err set and sh_last_error() one line
 * naming the file (missing, not an image, another device, ...). */
sh_dev *sh_open_image(const char *path, const char *profile, uint32_t blocks, int timing,
                      int *err);
/* Create a new image file (refused if path exists) of profile with blocks
 * (0: the profile's) and open it fresh (erased, factory bad blocks from
 * seed).  On failure nothing is left at path. */
sh_dev *sh_create_image(const char *path, const char *profile, uint32_t blocks, int timing,
                        uint64_t seed, int *err);

/* Open a Linux regular file or block device (src/host/linuxdev.c).
 * allow_write == 0 opens read-only and every prog/erase fails with
 * SBD_ERR_INVAL.  With allow_write, a block device that is mounted (or any
 * of its partitions is) is refused with SBD_ERR_INVAL, and the reason is
 * left for sh_last_error().  page_size / block_size 0: 512 / 65536.
 * size_bytes: regular files are created/extended to it (0: keep). */
sh_dev *sh_open_path(const char *path, int allow_write, uint32_t page_size,
                     uint32_t block_size, uint64_t size_bytes, int *err);
/* 1 if a real device was opened with O_DIRECT (0: a regular file on a file
 * system without O_DIRECT, written with O_DSYNC only; or a simulated one). */
int sh_is_direct(const sh_dev *h);
/* A human-readable reason for the last failed sh_open_* in this process. */
const char *sh_last_error(void);

void sh_close(sh_dev *h);

/* The host's real clock for steadyfs_config.clock: nanoseconds since the
 * epoch (CLOCK_REALTIME), or SOURCE_DATE_EPOCH's seconds when the
 * environment sets it (the same tree then gives the same image, byte for
 * byte).  Every host tool sets it; C tests give their own clock. */
int64_t sh_clock_ns(void);

/* steadyfs_strerror, except for STEADYFS_EFORMAT: a sentence saying the
 * image was made by another format version and is not migrated. */
const char *sh_fs_strerror(int rc);

/* After format by a user other than root: the root directory becomes that
 * user's (uid and gid of this process, mode 0755), as a new file system
 * made by a user is usable by that user over 9P with permission checks.
 * 0 or a steadyfs error. */
int sh_fs_own_root(steadyfs *fs);
/* The format fields of cfg (max_inodes, fill_permille, file_pages_log2,
 * dir_pages, sector_size, erase_mult, ring_units, ring_sectors) from the
 * newest checkpoint on cfg->bd, the run-time ones left as they are: what
 * `steady serve` and `steady mount` need to mount an image made with any
 * `steady mkfs` options.  0, or the probe's error (cfg unchanged). */
int sh_probe_config(steadyfs_config *cfg);

const sbd *sh_bd(sh_dev *h);
sim_dev *sh_sim(sh_dev *h);                 /* NULL for real devices */
const char *sh_name(const sh_dev *h);       /* profile name, or the path */
void sh_geometry(const sh_dev *h, sbd_geometry *out);

int sh_read(sh_dev *h, uint32_t block, uint32_t off, void *buf, uint32_t len, void *spare,
            uint32_t spare_len);
int sh_prog(sh_dev *h, uint32_t block, uint32_t off, const void *buf, uint32_t len,
            const void *spare, uint32_t spare_len);
int sh_erase(sh_dev *h, uint32_t block, uint32_t count);
int sh_sync(sh_dev *h);
int sh_is_bad(sh_dev *h, uint32_t block);
int sh_mark_bad(sh_dev *h, uint32_t block);

uint64_t sh_now_ns(const sh_dev *h);
uint64_t sh_last_ns(const sh_dev *h);
void sh_stats(const sh_dev *h, sim_stats *out);

/* Simulated devices only (SBD_ERR_INVAL / 0 on real ones). */
int sh_set_faults(sh_dev *h, const sim_faults *f);
int sh_set_timing(sh_dev *h, int timing);
int sh_power_restore(sh_dev *h);
int sh_flip_bits(sh_dev *h, uint32_t block, uint32_t page, uint32_t nbits);
uint32_t sh_erase_count(const sh_dev *h, uint32_t block);

/* Record every operation into a ring of `capacity` records (0: stop). */
int sh_trace_enable(sh_dev *h, uint64_t capacity);
/* Records recorded so far (capped at capacity: the oldest are overwritten). */
uint64_t sh_trace_count(const sh_dev *h);
/* Copy up to n records, oldest first, starting at index first; returns the
 * number copied. */
uint64_t sh_trace_copy(const sh_dev *h, uint64_t first, sh_trace_rec *out, uint64_t n);
void sh_trace_clear(sh_dev *h);

/* Profiles as JSON, so Python never mirrors C structs: one profile with
 * all its parameters.  Returns the length of the JSON text (like
 * snprintf: if >= len, the buffer was too small), or < 0 past the end. */
unsigned sh_profile_count(void);
int sh_profile_json(unsigned i, char *buf, size_t len);

/* A device profile from a user's file (python/steadyfs/userprofile.py):
 * sh_profile_key(i) names the i-th number (dotted keys of the JSON above,
 * "geometry.page_size", ...; NULL past the end); sh_profile_define takes
 * name, part, notes (lines joined by '\n'), kind ("nand", "nor", "mram")
 * and the n numbers in that order, checks them (sim_profile_check) and
 * registers the profile for the life of the process.  0, or < 0 with
 * sh_last_error() saying why. */
const char *sh_profile_key(unsigned i);
int sh_profile_define(const char *name, const char *part, const char *notes, const char *kind,
                      const uint64_t *v, unsigned n);
/* The same from one word, "KIND:NAME:N0,N1,...", as the host programs
 * `steady` execs take it (--profile-def: the Python side reads and checks
 * the user's file, the program is another process).  0, or < 0 with
 * sh_last_error() saying why. */
int sh_profile_define_spec(const char *spec);
/* A host program's --profile-def option: sh_profile_define_spec, and on
 * failure one line "PROG: why" on stderr; 0 or -1. */
int sh_profile_option(const char *prog, const char *spec);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_HOST_H */

/* ---- a steadyfs file system on a handle (src/host/fshost.c) --------------
 * Appended after the guard above (other parts append here too), so it has
 * its own.  The host owns what firmware provides statically: the context,
 * the work area (steadyfs_work_size) and the sector buffer, all malloc'd
 * here, so a binding mirrors no steadyfs struct but the plain records
 * below.  Every sh_fs_config field 0 takes the steadyfs_config default
 * (include/steadyfs/steadyfs.h); all are 32-bit so bindings mirror it
 * trivially.  Functions returning int return 0 or a negative STEADYFS_E*
 * code (steadyfs_strerror names it). */
#ifndef STEADYFS_SH_FS_DECLARED
#define STEADYFS_SH_FS_DECLARED
#include "steadyfs/host.h"
#include "steadyfs/steadyfs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sh_fs sh_fs;

typedef struct sh_fs_config {
    uint32_t open_max, pending_max, replay_max, max_inodes, fill_permille;
    uint32_t file_pages_log2, dir_pages, sector_size, erase_mult;
    uint32_t ring_units, ring_sectors;   /* the record ring (steadyfs.h) */
    uint32_t hold;   /* 1: a held-sector buffer of a sector's bytes (steadyfs_config.hold_buf) */
} sh_fs_config;

/* The core's statistics (sectors written as data / GC copies / map /
 * checkpoints, erases, victims picked), since the context was mounted. */
typedef struct sh_fs_counters {
    uint64_t data, copy, map, ckpt, erase, victim;
} sh_fs_counters;

/* Allocate a file system context on h (config NULL: every default).
 * Neither formats nor mounts.  On failure returns NULL and sets *err
 * (STEADYFS_EINVAL: a configuration the geometry rejects; STEADYFS_EIO:
 * out of memory); sh_last_error() says why.  h must outlive it. */
sh_fs *sh_fs_new(sh_dev *h, const sh_fs_config *config, int *err);
/* Unmounts if mounted (errors ignored: call sh_fs_unmount first to see
 * them) and frees. */
void sh_fs_free(sh_fs *f);
int sh_fs_format(sh_fs *f);    /* destroys the device's content; leaves it unmounted */
int sh_fs_mount(sh_fs *f);
int sh_fs_unmount(sh_fs *f);
int sh_fs_mounted(const sh_fs *f);
/* The context every steadyfs_* call takes. */
steadyfs *sh_fs_ctx(sh_fs *f);
/* RAM the core needs: sizeof(steadyfs) + work area + sector buffer + the
 * held sector's buffer if configured (what firmware would reserve; the
 * host-only read bounce buffer not counted). */
uint32_t sh_fs_ram(const sh_fs *f);
/* The same, in parts: out[0] sizeof(steadyfs), out[1] the work area
 * (steadyfs_work_size), out[2] the sector buffer, out[3] the held sector's
 * buffer (0: none). */
void sh_fs_ram_parts(const sh_fs *f, uint32_t out[4]);
void sh_fs_counters_get(const sh_fs *f, sh_fs_counters *out);
/* Read an existing file system's format from h's medium (steadyfs_probe),
 * so it mounts with no option repeated: fills config's format fields
 * (max_inodes, fill_permille, file_pages_log2, dir_pages, sector_size).
 * sector_size 0 tries every size the core accepts; erase_mult is taken as
 * given (0: the medium's default) and must be the format's.  0, or
 * STEADYFS_ECORRUPT when no checkpoint is found (sh_last_error() says so). */
int sh_fs_probe(sh_dev *h, sh_fs_config *config);

#ifdef __cplusplus
}
#endif
#endif /* STEADYFS_SH_FS_DECLARED */
