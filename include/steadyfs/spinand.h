/*
 * steadyfs reference SPI NAND driver: the MT29F1G01 class command set behind
 * the block-device interface (bd.h), so the file system runs on a real chip
 * unchanged.  Freestanding: no libc I/O, no malloc, no OS calls; every byte
 * of RAM is in the caller's `spinand` and bad-block map.
 *
 * What you supply: one function that runs one SPI transaction (chip select
 * low, opcode, address, dummy bytes, data, chip select high) and, if you
 * can, one that waits.  What you get: spinand.bd, an sbd whose six
 * callbacks the file system calls.
 *
 * Commands used (datasheet command set of the MT29F1G01ABAFD and the many
 * SPI NANDs that copy it):
 *   FFh RESET             at init
 *   9Fh READ ID           at init, one dummy byte, then manufacturer, device
 *   0Fh GET FEATURE       A0h block lock, B0h configuration, C0h status
 *   1Fh SET FEATURE       A0h := 00h (unlock every block), B0h: ECC_EN set,
 *                         the mode bits clear (the main array, not OTP)
 *   13h PAGE READ         array page -> cache register (busy tR)
 *   0Bh READ FROM CACHE   (6Bh with quad) 2 address bytes (column), 1 dummy
 *   06h WRITE ENABLE      before every program execute and block erase
 *   02h PROGRAM LOAD      (32h with quad) cache := FFh, then data at column
 *   84h RANDOM LOAD       (34h with quad) data at column, cache kept: the
 *                         spare bytes, without a bounce buffer
 *   10h PROGRAM EXECUTE   cache -> array page (busy tPROG), P_FAIL
 *   D8h BLOCK ERASE       (busy tBERS), E_FAIL
 * Row addresses (13h, 10h, D8h) are 3 bytes: block * pages_per_block + page.
 * Column addresses are 2 bytes; a two-plane part takes the plane (block's
 * lowest bit) in column bit 12 (spinand_part.planes).
 *
 * Status register C0h: OIP (bit 0, busy), WEL (1), E_FAIL (2), P_FAIL (3),
 * ECC status in bits 4-6 (Micron 3-bit field) or 4-5 (the 2-bit field of
 * most other vendors), spinand_part.ecc_scheme.
 *
 * Mapping to the block-device contract (bd.h):
 *   read     one PAGE READ per page touched; the return value is the
 *            largest bit-error count the on-die ECC reports for those pages.
 *            The chip reports a range, the driver the top of it (Micron:
 *            1-3 -> 3, 4-6 -> 6, 7-8 -> 8), so the file system's "close to
 *            the limit" test errs toward moving data early.  A 2-bit field
 *            ("corrected", no count) reports ecc_bits.  Uncorrectable:
 *            SBD_ERR_ECC with the chip's (uncorrected) cache contents.
 *   prog     per page: WRITE ENABLE, PROGRAM LOAD (main bytes at their
 *            column; the rest of the cache is FFh, which programs nothing),
 *            RANDOM LOAD of the spare bytes, PROGRAM EXECUTE, poll.
 *            P_FAIL -> SBD_ERR_PROG.  prog_size is the ECC codeword: a
 *            partial program must cover whole codewords, as the on-die ECC
 *            computes parity per codeword.
 *   erase    WRITE ENABLE, BLOCK ERASE, poll.  E_FAIL -> SBD_ERR_ERASE.
 *   sync     nothing to flush: every program and erase has completed (OIP
 *            clear) before its call returned.  Returns 0.
 *   is_bad   from the RAM bitmap: no SPI traffic, constant time.
 *   mark_bad sets the bitmap bit and programs 00h into the bad-block
 *            marker of the block's first page, ignoring P_FAIL (a worn
 *            block may fail it; the bits that do clear are enough).
 * Spare: the caller's spare byte 0 is the chip's spare byte
 * part->user_spare_off (2 on the MT29F1G01: bytes 0-1 are the bad-block
 * marker, which the file system must never program), up to
 * part->user_spare_len bytes (62: the ECC-protected half of the 128-byte
 * spare less the marker; the other half is ECC parity).
 *
 * Factory bad blocks: a block is bad when the first byte of the spare area of
 * its first page is not FFh (datasheet: the factory marks bad blocks there;
 * never erase a factory bad block, the mark would be lost).  spinand_init
 * reads that byte of every block once (one PAGE READ each: about 75 ms on a
 * 1024-block part at 120 MHz) into the bitmap.  Blocks marked by mark_bad
 * carry the same mark, so the scan finds them after a power cycle.
 *
 * Busy waiting: after a PAGE READ / PROGRAM EXECUTE / BLOCK ERASE the
 * driver calls delay_us(typical time), then polls GET FEATURE C0h until OIP
 * clears, calling delay_us(poll_us) between polls.  Without delay_us it
 * polls back to back.  It gives up (SBD_ERR_IO) once it has waited
 * 2 x the datasheet maximum + 1 ms (with delay_us), or after
 * SPINAND_POLLS_MAX polls (without).
 *
 * Timing seen by the file system: a page read costs tR + the transfer of the
 * bytes asked for (plus a second short transfer when spare is asked for); a
 * program tPROG + the transfer; an erase tBERS -- the same terms the
 * simulated mt29f1g01 profile uses, so `steady bound` holds once the
 * profile's times and bus match your chip and clock (docs/PORTING.md).
 *
 * Threads: a spinand is not reentrant.  Calls must not overlap (the file
 * system serialises its own calls; give the chip select to nothing else
 * while a call runs, or share the bus under a lock taken in xfer).
 *
 * RAM: sizeof(spinand) (120 bytes on Cortex-M3; `make cross` prints it) +
 * 4 x ceil(blocks / 32) bytes of bad-block map (128 bytes for 1024 blocks).
 * No page buffer: data moves between the caller's buffers and the chip's
 * cache register.  Stack: about 240 bytes on Cortex-M3 at -Os (deepest
 * path: prog -> program_page -> wait_ready -> get_feature -> xfer, from
 * -fstack-usage), plus what your xfer and delay_us use.
 */
#ifndef STEADYFS_SPINAND_H
#define STEADYFS_SPINAND_H

#include <stdint.h>

#include "steadyfs/bd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One SPI transaction, framed by chip select:
 *   opcode (8 clocks, 1 line), then addr_len address bytes MSB first
 *   (1 line), then dummy_len dummy bytes (8 clocks each; send anything),
 *   then len data bytes on data_lines lines (1, or 4 for the quad
 *   opcodes): sent from tx, or received into rx (exactly one of them is
 *   non-NULL when len > 0).
 * On a plain full-duplex SPI: CS low; write cmd, the address bytes and
 * dummy_len zero bytes; then write tx[0..len) or read len bytes into rx
 * (clocking out 0xFF); CS high.  On a QSPI / SPI-memory peripheral the
 * fields map onto its instruction, address, dummy-cycle and data phases.
 * xfer returns 0, or a negative SBD_ERR_* code (SBD_ERR_IO for a bus
 * failure), which the driver passes on to the file system unchanged. */
typedef struct spinand_op {
    uint8_t cmd;
    uint8_t addr_len;    /* 0, 1, 2 or 3 */
    uint8_t dummy_len;   /* 0 or 1 */
    uint8_t data_lines;  /* 1 or 4 */
    uint32_t addr;
    const uint8_t *tx;
    uint8_t *rx;
    uint32_t len;
} spinand_op;

/* Opcodes (datasheet command table). */
enum {
    SPINAND_CMD_RESET = 0xFF,
    SPINAND_CMD_READ_ID = 0x9F,
    SPINAND_CMD_GET_FEATURE = 0x0F,
    SPINAND_CMD_SET_FEATURE = 0x1F,
    SPINAND_CMD_PAGE_READ = 0x13,
    SPINAND_CMD_READ_CACHE = 0x03,     /* no dummy byte at low clock rates */
    SPINAND_CMD_READ_CACHE_FAST = 0x0B,
    SPINAND_CMD_READ_CACHE_X4 = 0x6B,
    SPINAND_CMD_WRITE_ENABLE = 0x06,
    SPINAND_CMD_WRITE_DISABLE = 0x04,
    SPINAND_CMD_PROG_LOAD = 0x02,
    SPINAND_CMD_PROG_LOAD_X4 = 0x32,
    SPINAND_CMD_PROG_LOAD_RANDOM = 0x84,
    SPINAND_CMD_PROG_LOAD_RANDOM_X4 = 0x34,
    SPINAND_CMD_PROG_EXEC = 0x10,
    SPINAND_CMD_BLOCK_ERASE = 0xD8,
};

/* Feature addresses and bits. */
enum {
    SPINAND_FEAT_LOCK = 0xA0,    /* BP2..BP0 in bits 5..3 etc.; 00h: all unlocked */
    SPINAND_FEAT_CONFIG = 0xB0,
    SPINAND_FEAT_STATUS = 0xC0,
    SPINAND_CFG_ECC_EN = 0x10,
    /* mode bits: Micron CFG2, CFG1, CFG0 (bits 7, 6, 1), OTP_PRT / OTP_EN
     * (bits 7, 6) on others; all clear selects the main array */
    SPINAND_CFG_MODE = 0xC2,
    SPINAND_ST_OIP = 0x01,
    SPINAND_ST_WEL = 0x02,
    SPINAND_ST_E_FAIL = 0x04,
    SPINAND_ST_P_FAIL = 0x08,
};

/* How the status register reports on-die ECC. */
typedef enum spinand_ecc_scheme {
    /* Micron, bits 6..4: 000 none, 001 1-3 corrected, 011 4-6 corrected,
     * 101 7-8 corrected, 010 uncorrectable */
    SPINAND_ECC_MICRON3 = 0,
    /* bits 5..4: 00 none, 01 corrected (no count), 10 and 11 uncorrectable */
    SPINAND_ECC_2BIT = 1,
} spinand_ecc_scheme;

/* One chip: what the datasheet says.  spinand_parts[] holds the ones this
 * driver knows; for another chip, fill one in (docs/PORTING.md, bring-up
 * checklist) and pass it in spinand_config.part. */
typedef struct spinand_part {
    const char *name;
    uint8_t mfr_id, dev_id;        /* READ ID bytes after the dummy byte */
    uint8_t planes;                /* 2: plane select in column bit 12 */
    uint8_t nop;                   /* partial programs per page between erases */
    uint16_t page_size;            /* main bytes */
    uint16_t spare_size;           /* spare bytes in the cache register */
    uint16_t user_spare_off;       /* first spare byte handed to the caller */
    uint16_t user_spare_len;       /* spare bytes handed to the caller */
    uint16_t pages_per_block;
    uint16_t ecc_bits;             /* bits corrected per codeword */
    uint16_t ecc_codeword;         /* bytes per codeword (the program unit) */
    uint8_t ecc_scheme;            /* spinand_ecc_scheme */
    uint8_t reserved;
    uint32_t blocks;
    uint32_t t_read_us, t_prog_us, t_erase_us;          /* typical: first poll */
    uint32_t t_read_max_us, t_prog_max_us, t_erase_max_us; /* datasheet maximum */
} spinand_part;

extern const spinand_part spinand_parts[];
extern const uint32_t spinand_part_count;

/* Back-to-back polls before giving up when there is no delay_us. */
#define SPINAND_POLLS_MAX 2000000u

typedef struct spinand_config {
    /* One SPI transaction (spinand_op).  Required. */
    int (*xfer)(void *ctx, const spinand_op *op);
    /* Wait at least `us` microseconds (sleep, yield, or spin).  Optional. */
    void (*delay_us)(void *ctx, uint32_t us);
    void *ctx;
    /* The chip; NULL: identified by READ ID among spinand_parts[]. */
    const spinand_part *part;
    /* Blocks used, from block 0 (0: every block of the part). */
    uint32_t blocks;
    /* 1: quad data phases (6Bh, 32h, 34h); 0: single line (0Bh, 02h, 84h). */
    uint8_t quad;
    uint8_t reserved[3];
    /* Microseconds between status polls after the first (0: 5). */
    uint32_t poll_us;
    /* The bad-block bitmap: bad_map_words >= SPINAND_MAP_WORDS(blocks). */
    uint32_t *bad_map;
    uint32_t bad_map_words;
} spinand_config;

#define SPINAND_MAP_WORDS(blocks) (((blocks) + 31u) / 32u)

/* What the driver saw since spinand_init. */
typedef struct spinand_stats {
    uint32_t page_reads, programs, erases, polls;
    uint32_t ecc_corrected;      /* page reads with corrected bit errors */
    uint32_t ecc_uncorrectable;
    uint32_t prog_fails, erase_fails;
    uint32_t scan_bad;           /* blocks the init scan found marked bad */
} spinand_stats;

typedef struct spinand {
    sbd bd;                      /* hand &spinand.bd to the file system */
    spinand_config cfg;
    const spinand_part *part;
    spinand_stats stats;
} spinand;

/* Reset the chip, identify it (READ ID must match part, or one of
 * spinand_parts[] when cfg->part is NULL), unlock every block, enable the
 * on-die ECC (and check both took), scan the bad-block marks, and fill
 * d->bd.  Call again after a power cycle of the chip.
 * Returns 0, SBD_ERR_INVAL (bad config, too small a bitmap, unknown chip,
 * features did not take) or the error of a failed transaction. */
int spinand_init(spinand *d, const spinand_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_SPINAND_H */
