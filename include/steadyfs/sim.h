/*
 * steadyfs simulated devices: timed models of NAND, NOR, MRAM and SD cards
 * on a deterministic virtual clock, with fault injection.
 *
 * Freestanding (the firmware links the same models): the whole persistent
 * state of a device -- data, spare, per-page program counts, per-block erase
 * counts and bad marks -- lives in one caller-provided byte array, the
 * *image*, laid out as SPEC'd in docs/SIM-IMAGE.md.  The host maps it from
 * a file so a device survives a process restart; the firmware keeps it in
 * RAM and saves it through semihosting.
 *
 * Time: every operation advances the device's virtual clock `now_ns` by its
 * exact duration, also left in `last_ns`.  Durations are computed in one
 * place (sim_time.c) from the profile: bus transfer at the profile's bus
 * shape plus the array time (tR, tPROG, tBERS) chosen by the timing mode.
 * For a given profile, timing mode, seed and sequence of calls the
 * durations are identical on every run and every machine.
 *
 * Power cuts: with faults.powercut_after = N, the Nth program or erase
 * (counting from 1 since sim_init or the last sim_power_restore) is torn --
 * a seeded, partial effect is left on the medium -- and it and every later
 * operation return SBD_ERR_POWER until sim_power_restore().
 */
#ifndef STEADYFS_SIM_H
#define STEADYFS_SIM_H

#include <stdint.h>

#include "steadyfs/bd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sim_kind { SIM_NAND = 0, SIM_NOR = 1, SIM_MRAM = 2, SIM_SD = 3 } sim_kind;

/* typical: each array time drawn with seeded jitter in a narrow band
 *          (+-jitter_permille) around the datasheet typical value;
 * tail:    typical, but a fraction tail_ppm of operations take the
 *          datasheet maximum;
 * worst:   every operation takes the datasheet maximum.              */
typedef enum sim_timing { SIM_TYPICAL = 0, SIM_TAIL = 1, SIM_WORST = 2 } sim_timing;

/* A datasheet time: typical and maximum, nanoseconds. */
typedef struct sim_range {
    uint64_t typ_ns;
    uint64_t max_ns;
} sim_range;

/* The host bus (QSPI 1-4-4 etc.): clocks for command, address, dummy and
 * data phases, plus a fixed per-operation host overhead (driver, DMA set-up).
 * Transfer time of n data bytes =
 *   (8/cmd_lines + 8*addr_bytes/addr_lines + dummy_cycles + 8*n/data_lines) / hz
 *   + overhead_ns. */
typedef struct sim_bus {
    uint32_t hz;
    uint8_t cmd_lines;
    uint8_t addr_lines;
    uint8_t data_lines;
    uint8_t addr_bytes;
    uint8_t dummy_cycles;   /* for reads */
    uint8_t reserved[3];
    uint32_t overhead_ns;   /* per operation, host side */
} sim_bus;

struct sim_sd_params;       /* the SD card FTL model's parameters (sim_sd.h) */

/* A device profile: one real part, parameters from its datasheet.  Where a
 * value is assumed rather than cited, `notes` says so. */
typedef struct sim_profile {
    const char *name;        /* "mt29f1g01" */
    const char *part;        /* "Micron MT29F1G01ABAFD 1 Gbit SLC QSPI NAND" */
    const char *notes;       /* sources and assumptions, one line each */
    sim_kind kind;
    sbd_geometry geo;
    sim_range t_read;        /* array to cache (NAND tR); 0 if none */
    sim_range t_prog;        /* one program operation (page / NOR page) */
    sim_range t_erase;       /* one block erase */
    sim_range t_erase_big;   /* one large erase (NOR 64 KiB), 0 if none */
    sim_range t_erase_mid;   /* one middle-size erase (NOR 32 KiB), 0 if none */
    sim_bus bus;
    uint32_t endurance;      /* erase cycles before wear-out failures */
    uint32_t factory_bad_max;/* factory bad blocks at most */
    uint16_t jitter_permille;/* typical mode: +- band around typical */
    uint32_t tail_ppm;       /* tail mode: operations at max, per million */
    const struct sim_sd_params *sd; /* SD cards only */
} sim_profile;

unsigned sim_profile_count(void);
const sim_profile *sim_profile_at(unsigned i);          /* NULL past the end */
const sim_profile *sim_profile_find(const char *name);  /* NULL if unknown */

/* A profile not built in (a user's chip, read from a file by the host
 * tools: python/steadyfs/userprofile.py).  sim_profile_check: 0 if the
 * models can run it (NAND, NOR or MRAM -- SD cards need FTL parameters --,
 * a power-of-two page of 64 B or more, units that divide it, page + spare
 * <= 8 KiB, at most 16 ECC codewords per page, max >= typ for every time),
 * else SBD_ERR_INVAL.  sim_profile_register: checks it and appends it to
 * the table sim_profile_at / _find search after the built-in ones; the
 * caller keeps *p alive for good.  SBD_ERR_INVAL: check failed or the name
 * is taken; SBD_ERR_RANGE: the table is full.  RAM: SIM_USER_PROFILES_MAX
 * pointers + a count.  Not thread-safe: register before using devices. */
#define SIM_USER_PROFILES_MAX 8u
int sim_profile_check(const sim_profile *p);
int sim_profile_register(const sim_profile *p);

/* Deterministic fault injection.  All zero: no faults. */
typedef struct sim_faults {
    uint64_t seed;            /* faults PRNG seed (independent of timing) */
    uint64_t powercut_after;  /* tear the Nth program/erase; 0: never */
    uint32_t flip_ppm;        /* per codeword read: chance of bit errors */
    uint16_t flip_bits;       /* bits flipped when it happens (> ecc_bits: uncorrectable) */
    uint16_t reserved;
    uint32_t wear_limit;      /* erase count after which program/erase of a
                                 block fails (0: profile endurance, ~0u: never) */
    uint32_t fail_ppm;        /* random program/erase failure chance per op */
    /* Reads that return no bytes (SBD_ERR_IO: a bus, link or host error,
     * not the medium's): per read, the chance that a burst of 1 ..
     * read_io_burst (0: 1) consecutive failed reads starts. */
    uint32_t read_io_ppm;
    uint32_t read_io_burst;
} sim_faults;

enum sim_op { SIM_OP_READ = 0, SIM_OP_PROG = 1, SIM_OP_ERASE = 2, SIM_OP_SYNC = 3 };

/* Called after every device operation, if set (per-op traces, op counting). */
typedef void (*sim_trace_fn)(void *arg, enum sim_op op, uint32_t block, uint32_t off,
                             uint32_t len, uint64_t start_ns, uint64_t dur_ns, int rc);

/* Operation counters since sim_init. */
typedef struct sim_stats {
    uint64_t reads, progs, erases, syncs;
    uint64_t read_bytes, prog_bytes;
    uint64_t power_cuts;
    uint64_t read_errors;     /* reads failed by faults.read_io_ppm */
} sim_stats;

/* One simulated device.  Treat as opaque except the documented fields. */
typedef struct sim_dev {
    sbd bd;                   /* the block-device interface; bd.ctx == this */
    const sim_profile *prof;
    sim_timing timing;
    uint64_t now_ns;          /* virtual clock */
    uint64_t last_ns;         /* duration of the last operation */
    sim_stats stats;
    sim_faults faults;
    sim_trace_fn trace;
    void *trace_arg;
    /* private below */
    uint8_t *image;
    uint64_t image_len;
    uint64_t rng_time;        /* timing jitter PRNG */
    uint64_t rng_fault;       /* fault PRNG */
    uint64_t pe_ops;          /* program/erase ops since power up */
    uint32_t read_io_left;    /* reads the current SBD_ERR_IO burst still fails */
    uint8_t powered;
    uint8_t sd_state[512];    /* SD FTL timing state (sim_sd.c) */
} sim_dev;

/* Bytes of image a profile needs with `blocks` blocks (0: the profile's). */
uint64_t sim_image_size(const sim_profile *p, uint32_t blocks);

/* Attach a device to an image.  fresh != 0 formats the image: every block
 * erased, factory bad blocks placed from `seed` (at most factory_bad_max,
 * never block 0), erase counts 0.  fresh == 0 checks the image header and
 * continues with its state.  The clock starts at 0.
 * Returns 0 or SBD_ERR_INVAL (wrong size, bad header, profile mismatch). */
int sim_init(sim_dev *d, const sim_profile *p, uint32_t blocks, void *image,
             uint64_t image_len, sim_timing timing, uint64_t seed, int fresh);

void sim_set_faults(sim_dev *d, const sim_faults *f);
/* Change the timing mode of an attached device (the clock keeps running). */
void sim_set_timing(sim_dev *d, sim_timing timing);
/* Power back on after a cut: operations work again, counting restarts. */
void sim_power_restore(sim_dev *d);
/* Flip nbits bits of a page's stored data (retention errors), seeded. */
int sim_flip_bits(sim_dev *d, uint32_t block, uint32_t page, uint32_t nbits);
uint32_t sim_erase_count(const sim_dev *d, uint32_t block);
/* Tests: set a block's erase count, a block that wore faster than the
 * others (with faults.wear_limit at or below it, its next program or
 * erase fails).  0 or SBD_ERR_RANGE. */
int sim_wear_block(sim_dev *d, uint32_t block, uint32_t erases);

/* Deterministic durations for worst-case bound calculators.  The models
 * time every operation with this same arithmetic (sim_time.c), so a bound
 * computed from it is exact, never an estimate.
 *   op READ/PROG: len bytes starting at the beginning of a page (NAND and
 *     NOR split them per page exactly as the models do);
 *   op ERASE: len is the block count of one erase call (1, or
 *     geo.big_erase_blocks for a NOR 64 KiB erase, geo.mid_erase_blocks
 *     for a NOR 32 KiB erase; any other count is priced as that many
 *     one-block erases);
 *   op SYNC: 0 (simulated devices have no write cache to flush).
 * sim_cost_ns: mode SIM_TYPICAL gives the nominal typical duration (no
 *   jitter); SIM_TAIL and SIM_WORST the datasheet maximum.
 * sim_cost_bound_ns: the largest duration one operation can take in that
 *   mode: typical gives the top of the jitter band, tail and worst the
 *   maximum.
 * SD cards: PROG gives the card's fast path (typical) or its 250 ms
 * per-block busy limit (maximum) -- an SD write has no smaller bound. */
uint64_t sim_cost_ns(const sim_profile *p, enum sim_op op, uint32_t len, sim_timing mode);
uint64_t sim_cost_bound_ns(const sim_profile *p, enum sim_op op, uint32_t len,
                           sim_timing mode);
/* The general form: an operation at byte offset `off` in its block with
 * spare_len spare bytes (they travel with the page containing `off`);
 * bound = 0 is sim_cost_ns, 1 is sim_cost_bound_ns. */
uint64_t sim_cost_op_ns(const sim_profile *p, enum sim_op op, uint32_t off, uint32_t len,
                        uint32_t spare_len, sim_timing mode, int bound);

/* Block count a profile has when sim_init is given blocks == 0. */
uint32_t sim_profile_blocks(const sim_profile *p);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_SIM_H */
