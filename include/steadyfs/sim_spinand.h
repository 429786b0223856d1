/*
 * A command-level model of an SPI NAND chip (MT29F1G01 class) on top of a
 * simulated NAND device (sim.h): it decodes the SPI transactions a driver
 * sends (spinand_op, spinand.h) -- opcodes, addresses, dummy bytes, data --
 * and keeps what the chip keeps: the cache register, the status,
 * configuration and block-lock registers, write enable, the operation in
 * flight and its busy time.  The array underneath -- data, spare, NOP and
 * program rules, on-die ECC, bit errors, wear and random program/erase
 * failures, factory bad blocks, power cuts -- is the simulated device's,
 * reached through its sbd operations, so nothing of it is duplicated here.
 *
 * Time.  One virtual clock: the device's now_ns.  A transaction takes its
 * bus time: (8 + 8 x addr_len + 8 x dummy_len + 8 x len / data_lines) clocks
 * at the profile's bus.hz (the profile's per-operation host overhead is not
 * charged: on a board that is the driver's own CPU time).  PAGE READ,
 * PROGRAM EXECUTE and BLOCK ERASE set OIP for an array time drawn from the
 * profile (tR, tPROG, tBERS) in the device's timing mode, from the model's
 * own seeded stream; sim_spinand_delay_us moves the clock on (the driver's
 * delay_us).  The operation takes effect on the array when its busy time
 * has passed, at the first transaction after that; the array call's own
 * duration is not added (the model already charged the chip's).
 *
 * While OIP is set the chip takes only GET FEATURE; anything else is
 * ignored (counted in `ignored`).  PROGRAM EXECUTE and BLOCK ERASE without
 * WEL are ignored too (counted), as on the chip.  A transaction whose shape
 * does not fit its opcode (address or dummy length, data direction,
 * unknown opcode or feature, column past the cache, a row past the device,
 * an erase row that is not a block's first page -- the chip would ignore
 * the page bits, a driver sending them has a bug) returns SBD_ERR_INVAL
 * and is counted in `malformed`: the model is a test bench for drivers.
 * Not modelled: the OTP and parameter-page modes of the configuration
 * register (its bits are kept as written; the array is always used),
 * two planes, continuous read, cache read, read/program of the ECC
 * parity bytes.
 *
 * Spare layout.  The chip's spare area is 2 x spare_size bytes of the
 * profile (128 for mt29f1g01): bytes 0-1 the bad-block marker, bytes
 * 2..spare_size-1 free for the user (ECC-protected), then spare_size bytes
 * of ECC parity (read as FFh here: the model keeps no parity; writes to
 * them are dropped).  In the device image, chip spare byte 2+i is stored at
 * the device's spare byte i and the two marker bytes at its last two, so a
 * file system written through driver + model reads the same through the
 * device directly (steady fsck / cat on the image).
 *
 * Bad blocks.  A PAGE READ of page 0 of a block the device has marked bad
 * (factory or grown) shows 00h in both marker bytes.  A program of page 0
 * that writes a marker byte other than FFh marks the block bad on the
 * device (sbd mark_bad) whatever the program's own outcome, so the image
 * and the chip agree on bad blocks.  Program/erase of a bad block fails
 * (P_FAIL / E_FAIL).
 *
 * ECC.  The device's read outcome becomes the status ECC field: 0 bits ->
 * 000, 1-3 -> 001, 4-6 -> 011, 7-8 -> 101, uncorrectable -> 010 (the cache
 * then holds the uncorrected bytes).  With ECC_EN clear the field stays 000
 * and the data is still the device's corrected data (the model has no raw
 * path: a driver must turn ECC on, which the tests check).
 *
 * Failures.  The device's P_FAIL / E_FAIL (sim_faults fail_ppm, wear limit,
 * bad block, and a NAND rule broken: NOP or changed bytes, counted in
 * `rule_violations`) set P_FAIL / E_FAIL.  Any set BP bit in the lock
 * register locks the whole array: programs and erases fail.
 *
 * Power.  The device's own cuts (sim_faults.powercut_after: the Nth program
 * or erase is torn) happen when that operation takes effect.
 * cut_after_xfers = N cuts power at the Nth transaction instead: an
 * operation in flight is torn (its array call made with a forced cut).
 * After a cut every transaction returns SBD_ERR_POWER until
 * sim_spinand_power_restore, which also restores the device and puts the
 * chip in its power-on state (all blocks locked, status clear, cache FFh).
 *
 * RAM: sizeof(sim_spinand) + the cache register,
 * sim_spinand_cache_size(dev) = page_size + 2 x spare_size bytes.
 * Freestanding, like the device models.
 */
#ifndef STEADYFS_SIM_SPINAND_H
#define STEADYFS_SIM_SPINAND_H

#include <stdint.h>

#include "steadyfs/sim.h"
#include "steadyfs/spinand.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_spinand_stats {
    uint64_t xfers;            /* transactions */
    uint64_t polls;            /* GET FEATURE of the status register */
    uint64_t page_reads, programs, erases;
    uint64_t ignored;          /* while busy, or without WEL */
    uint64_t malformed;        /* returned SBD_ERR_INVAL */
    uint64_t rule_violations;  /* programs the device refused (NOP, changed bytes) */
} sim_spinand_stats;

typedef struct sim_spinand {
    sim_dev *dev;              /* profile, clock, faults, power */
    const sbd *array;          /* the device's operations (dev->bd or a wrapper) */
    uint8_t *cache;            /* cache register: page, then chip spare */
    uint32_t cache_len;
    uint8_t id[2];             /* READ ID: manufacturer, device */
    uint8_t status;            /* C0h without OIP (computed from busy_until) */
    uint8_t config;            /* B0h: power-on ECC_EN; tests may change it */
    uint8_t lock;              /* A0h: power-on 38h (all locked) */
    uint8_t pending;           /* operation in flight (private) */
    uint8_t powered;
    uint8_t reserved;
    uint32_t pend_row;
    uint64_t busy_until;       /* ns on dev->now_ns */
    uint64_t cut_after_xfers;  /* power cut at this transaction (0: never) */
    uint64_t rng;              /* array-time draws */
    sim_spinand_stats stats;
} sim_spinand;

/* Bytes of cache register the model needs for dev. */
uint32_t sim_spinand_cache_size(const sim_dev *dev);

/* Attach a chip to a simulated NAND device.  array: the operations the
 * model calls on the array (NULL: &dev->bd; the firmware passes its
 * write-through wrapper of dev).  id: the READ ID bytes (2Ch 14h for the
 * MT29F1G01ABAFD).  Returns 0 or SBD_ERR_INVAL (not a NAND device, cache
 * too small, spare under 4 bytes). */
int sim_spinand_init(sim_spinand *c, sim_dev *dev, const sbd *array, uint8_t *cache,
                     uint32_t cache_len, uint8_t mfr_id, uint8_t dev_id, uint64_t seed);

/* spinand_config.xfer and .delay_us, with ctx = the sim_spinand. */
int sim_spinand_xfer(void *chip, const spinand_op *op);
void sim_spinand_delay_us(void *chip, uint32_t us);

/* Cut power now (an operation in flight is torn). */
void sim_spinand_power_cut(sim_spinand *c);
/* Power on again: the device (sim_power_restore) and the chip's registers. */
void sim_spinand_power_restore(sim_spinand *c);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_SIM_SPINAND_H */
