/* Worst-case call durations: steadyfs_bound() counts turned into virtual
 * nanoseconds with a device profile's timings (host only). */
#ifndef STEADYFS_HOST_FS_BOUND_H
#define STEADYFS_HOST_FS_BOUND_H

#include <stdint.h>

#include "steadyfs/sim.h"
#include "steadyfs/steadyfs.h"

/* Upper bound in ns of the operations in *c on profile p in timing mode
 * `mode`, for a file system whose sector is sector_size bytes. */
uint64_t steady_fs_cost_ns(const sim_profile *p, const steadyfs_config *cfg,
                           const steadyfs_cost *c, sim_timing mode);
/* steadyfs_bound() and steady_fs_cost_ns() in one: 0 on a bad config. */
uint64_t steady_fs_bound_ns(const sim_profile *p, const steadyfs_config *cfg, steadyfs_call call,
                            uint64_t n, sim_timing mode);

/* For bindings: the bound of call kind `call` (steadyfs_call) with the
 * default configuration and one open file, on the named profile, in timing
 * mode `mode` (sim_timing).  0 if the profile is unknown. */
uint64_t steady_fs_bound_ns_default(const char *profile, int call, uint64_t n, int mode);
/* The same configuration's operation counts (steadyfs_bound): 0, or -1 if
 * the profile is unknown. */
int steady_fs_bound_ops_default(const char *profile, int call, uint64_t n, steadyfs_cost *out);

/* Configuration options a bound depends on (0: the default; steadyfs_config
 * has each): `steady bound --param erase_mult=8 --param pending_max=32`. */
typedef struct steady_fmt {
    uint32_t sector_size, erase_mult, pending_max, replay_max;
    uint32_t ring_units, ring_sectors;   /* the record ring (0: none) */
    uint32_t hold;   /* 1: the held sector configured (cfg.hold_buf) */
} steady_fmt;

/* The same three with those options (fmt NULL: all default).  A
 * configuration the file system refuses gives 0 / -1 as an unknown
 * profile does. */
uint64_t steady_fs_bound_ns_fmt(const char *profile, int call, uint64_t n, int mode,
                                const steady_fmt *fmt);
int steady_fs_bound_ops_fmt(const char *profile, int call, uint64_t n, const steady_fmt *fmt,
                            steadyfs_cost *out);
/* The guarantee with those options, for records of the kind `flags` names
 * (steadyfs_guarantee_of: STEADYFS_RECORD_DSYNC, STEADYFS_RECORD_ALIGNED
 * or'd, 0 a write + sync at any offset); b_ns (may be NULL) one record's
 * own bound: write_dsync for O_DSYNC records, else write_sync. */
int steady_fs_guarantee_ns_kind(const char *profile, uint32_t record_size, uint32_t fill_permille,
                                int mode, uint32_t flags, const steady_fmt *fmt, uint64_t *c_ns,
                                uint64_t *d_ns, uint64_t *b_ns);

/* The same bound and guarantee with the STEADYFS_PART_* in `parts` left out
 * (steadyfs_bound_without, steadyfs_guarantee_without: `steady bound
 * --explain`); 0 / -1 as above. */
uint64_t steady_fs_bound_ns_without(const char *profile, int call, uint64_t n, int mode,
                                    const steady_fmt *fmt, uint32_t parts);
int steady_fs_guarantee_ns_without(const char *profile, uint32_t record_size, int mode,
                                   uint32_t flags, const steady_fmt *fmt, uint32_t parts,
                                   uint64_t *c_ns, uint64_t *d_ns);

/* steadyfs_geometry() for the named profile with those options (one open
 * file): 0, or -1 if the profile is unknown or the configuration refused. */
int steady_fs_geometry_fmt(const char *profile, const steady_fmt *fmt, steadyfs_info *out);

/* steadyfs_guarantee() priced: c and d in ns for records of record_size
 * bytes on the named profile with the default configuration (one open
 * file) and fill limit fill_permille (0: the format default); with b (the
 * _kind form), n records take at most min(n b, n c + d).  0, or -1 if the
 * profile is unknown or the arguments invalid. */
int steady_fs_guarantee_ns_default(const char *profile, uint32_t record_size,
                                   uint32_t fill_permille, int mode, uint64_t *c_ns,
                                   uint64_t *d_ns);

#endif
