/* Power-loss torture runner for steadyfs (host only). */
#ifndef STEADYFS_HOST_TORTURE_H
#define STEADYFS_HOST_TORTURE_H

#include <stdint.h>
#include <stdio.h>

/* The largest sector size the torture formats (--sector-size) */
#define TORTURE_SECTOR_MAX 8192u
/* The most open handles the model keeps (--handles) */
#define TORTURE_HANDLES_MAX 8u

typedef struct steady_torture_opts {
    const char *device;   /* profile name, e.g. "mt29f1g01" */
    uint64_t seed;
    uint32_t ops;         /* API calls to run */
    uint32_t powercut;    /* 0: none; N: a cut every N program/erase operations */
    int powercut_every;   /* 1: a cut armed within the next 1..8 program/erase ops */
    uint32_t blocks;      /* device blocks (0: a small default per profile) */
    int faults;           /* 1: bit flips (within ECC) and grown bad blocks */
    int spinand;          /* 1: through the SPI NAND driver and chip model
                             (mt29f1g01 only); half the cuts then fall on an
                             SPI transaction instead of a program/erase */
    int verbose;
    uint32_t erase_mult;  /* format's device blocks per erase unit (0: default) */
    uint32_t sector_size; /* format's sector size in bytes (0: default), at most
                             TORTURE_SECTOR_MAX */
    const char *profile_file;   /* the user's profile file `device` came from, for
                                   the replay line (NULL: a built-in profile) */
    uint32_t ring_units;  /* format a record ring of that many units (2 sectors a
                             record) and append to it among the other calls */
    int fsck;             /* 1: steadyfs_fsck after every cut's mount and at the
                             end; an error it finds is a failure */
    uint32_t pending_max; /* the format's pending_max (0: the medium's default).
                             A small table makes transactions small, so that
                             writes commit implicitly (steadyfs.h, "Durability") */
    uint32_t file_max;    /* the model's largest file in bytes (0: 6000, three
                             pages; larger: files of many chunks, whose writes
                             commit implicitly with any table) */
    uint32_t fill;        /* percent of the live limit a file of static data takes
                             before the first cut (0: none), 1..90 */
    int meta;             /* 1: setattr (mode, uid, gid) and symlinks among the
                             calls; modes, owners and targets checked after
                             every cut */
    int hold;             /* 1: the configuration's held sector (cfg.hold_buf):
                             a write's last sector waits for the next sync,
                             write, truncate or close */
    uint32_t handles;     /* open handles the model keeps, and cfg.open_max
                             (0: 2), 2..TORTURE_HANDLES_MAX.  More handles make
                             transactions smaller (steadyfs.h "Durability"):
                             --pending-max gives them room */
    uint32_t read_errors; /* per device read, the chance in a million that a
                             burst of 1-6 reads returns no bytes (SBD_ERR_IO:
                             a bus or host error); a call that fails with EIO
                             then is checked as a cut is: mounted again, the
                             files as before the call or after it (0: none) */
    uint32_t wear_limit;  /* units wear out at that erase count (sim_faults
                             wear_limit; 0: the profile's endurance), so a long
                             run meets anchor units retired and data units gone
                             bad under the cuts, and ends worn out: an ENOSPC or
                             an EIO once the units have used 90 % of it, or an
                             EIO once an anchor-area unit has reached it, is the
                             device's end, checked as a cut is */
} steady_torture_opts;

typedef struct steady_torture_result {
    uint64_t cuts, checks, failures;
    uint64_t fail_op;     /* op index of the first failure */
    int worn_out;         /* stopped early: grown bad units took the capacity */
    uint32_t most_live, live_max;   /* the most live sectors after a call, and the
                                       live limit at the end */
    /* --spinand: SPI transactions, and those the chip model refused
     * (malformed) or ignored (sent while busy / without write enable) */
    uint64_t xfers, xfer_malformed, xfer_ignored;
    /* after a cut, files found at a state a write's implicit commit made
     * (the state before that write), not at their last sync */
    uint64_t implicit_found;
    uint32_t largest_file;   /* the largest file the model held, in bytes */
    uint64_t setattrs, symlinks;   /* --meta: those calls that succeeded */
    uint64_t held;                 /* --hold: writes that left their last sector held */
    /* --read-errors: reads failed, and calls that failed with EIO for them */
    uint64_t read_errors, read_error_stops;
} steady_torture_result;

/* Runs the torture; prints progress and the final line
 * "N power cuts, M checks, F failures" to out.  Returns 0 if no failure. */
int steady_torture_run(const steady_torture_opts *o, steady_torture_result *r, FILE *out);
/* The line printed after a failure: "replay: steady torture ...", a
 * command line `steady torture` accepts as it is, with every option that
 * shapes the run (faults are on unless --no-faults) and --ops ops. */
void steady_torture_replay(const steady_torture_opts *o, uint64_t ops, FILE *out);

#endif
