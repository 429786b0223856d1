/*
 * Parameters of the SD card FTL timing model (sd.c, docs/DEVICES.md).
 *
 * The card is a flat array of 512-byte sectors (the data plane).  Its
 * time plane models what the card's controller does behind the interface:
 *   - NAND is programmed in `unit_bytes` units (16 KiB, seed 004); a write
 *     command that covers a whole unit costs t_unit_prog; one that covers
 *     part of a unit costs a read-modify-write (t_unit_read + t_unit_prog),
 *     unless it appends sequentially to the unit held in the card's write
 *     cache (the last unit written), which skips the read;
 *   - writes go to allocation units (`au_bytes`); the card keeps at most
 *     `open_aus` AUs open.  Opening another one closes the least recently
 *     used: the part of it never written is copied from the old data
 *     (a merge, copy_unit_ns per unit);  opening an AU costs t_au_open
 *     (erase and mapping update);
 *   - every gc_period_units units programmed, a garbage-collection step
 *     of t_gc_step (industrial cards: the regular pattern of seed 001);
 *   - random background stalls per write command, three classes (seed 004:
 *     "2 ms frequent, 10-30 ms common, 500 ms sometimes");
 *   - no write command is busy longer than t_busy_max (the SD spec's
 *     250 ms write-busy limit per block): longer work is capped there.
 * Times are nanoseconds; probabilities parts per million.
 */
#ifndef STEADYFS_SIM_SD_H
#define STEADYFS_SIM_SD_H

#include <stdint.h>

#define SIM_SD_MAX_OPEN_AUS 8u

typedef struct sim_sd_stall {
    uint32_t ppm;        /* chance per write command */
    uint32_t min_ns;     /* drawn uniformly in [min_ns, max_ns] */
    uint32_t max_ns;
} sim_sd_stall;

struct sim_sd_params {
    uint32_t unit_bytes;     /* internal program unit */
    uint32_t au_bytes;       /* allocation unit */
    uint32_t open_aus;       /* AUs open at once (<= SIM_SD_MAX_OPEN_AUS) */
    uint32_t t_cmd;          /* controller overhead per command */
    uint32_t t_unit_prog;    /* program one unit */
    uint32_t t_unit_read;    /* read one unit back for a read-modify-write */
    uint32_t copy_unit_ns;   /* merge: copy one unit of an AU being closed */
    uint32_t t_au_open;      /* open a fresh AU (erase, mapping update) */
    uint32_t gc_period_units;/* units between GC steps (0: none) */
    uint32_t t_gc_step;      /* one GC step */
    uint32_t t_busy_max;     /* cap on one command's busy time */
    sim_sd_stall stall[3];   /* random background stalls */
};

#endif /* STEADYFS_SIM_SD_H */
