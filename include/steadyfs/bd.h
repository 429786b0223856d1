/*
 * steadyfs block-device interface.
 *
 * This is the one boundary between the file system (and the benchmarks) and
 * storage: simulated NAND/NOR/MRAM/SD models, Linux files and block devices,
 * and the flash of a Cortex-M board all sit behind it.  It is freestanding:
 * no libc I/O, no malloc, no OS calls.
 *
 * Addressing
 *   A device is `geo.block_count` erase blocks of `geo.pages_per_block`
 *   pages of `geo.page_size` main-area bytes.  Operations address a block
 *   and a byte offset inside the block's main area.  A page may also carry
 *   `geo.spare_size` spare (out-of-band) bytes, which are read and
 *   programmed together with the page that contains `off`, in the same
 *   device operation (on NAND that is one tPROG and one partial-program
 *   count, exactly as on the real part).
 *
 * Physical rules (enforced by the models; SBD_ERR_RULE when broken)
 *   - reads and programs are aligned to read_size / prog_size and do not
 *     cross a block;  an operation that passes spare must stay in one page;
 *   - needs_erase: a programmed bit can only return to 1 by erasing its
 *     block.  NAND: a page may be programmed at most `nop` times between
 *     erases, and every program must leave already-programmed bytes
 *     unchanged (NAND: writing 0xFF over them).  NOR: any program may only
 *     turn bits 1 -> 0;
 *   - erase(block, count): count is 1, geo.big_erase_blocks or (when > 1)
 *     geo.mid_erase_blocks, with block a multiple of count (NOR 64 KiB
 *     sector erase, 32 KiB subsector erase).  On a device with
 *     needs_erase == 0 erase is a no-op that takes no time and leaves the
 *     data unchanged: a file system must not rely on it.
 *
 * Errors are negative SBD_ERR_* codes; 0 is success.  read() returns
 * >= 0 on success: the largest number of bit errors the device's ECC
 * corrected in one codeword of the data returned, so a caller can move
 * data that is close to the ECC limit before it becomes uncorrectable.
 */
#ifndef STEADYFS_BD_H
#define STEADYFS_BD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sbd_err {
    SBD_OK = 0,
    /* read: more bit errors in a codeword than the ECC corrects.  The
     * buffer holds the raw (wrong) data. */
    SBD_ERR_ECC = -101,
    /* program reported fail status: the page content is undefined and the
     * block should be retired (after moving what it holds). */
    SBD_ERR_PROG = -102,
    /* erase reported fail status: the block should be retired. */
    SBD_ERR_ERASE = -103,
    /* power was lost, during this operation (which is torn) or before it.
     * Every operation fails with this until power is restored. */
    SBD_ERR_POWER = -104,
    /* the caller broke a physical rule: NAND page programmed beyond NOP or
     * with changed bytes, NOR bit 0 -> 1, bad erase granularity. */
    SBD_ERR_RULE = -105,
    /* address or length outside the device, or not aligned to its unit. */
    SBD_ERR_RANGE = -106,
    /* program/erase addressed to a block marked bad. */
    SBD_ERR_BAD_BLOCK = -107,
    /* host I/O error (real devices, image files). */
    SBD_ERR_IO = -108,
    /* bad argument or an operation the device does not support. */
    SBD_ERR_INVAL = -109,
};

/* The shape of a device.  Every field is fixed for the device's lifetime. */
typedef struct sbd_geometry {
    uint32_t page_size;        /* main-area bytes per page */
    uint32_t spare_size;       /* spare bytes per page for the caller (0: none) */
    uint32_t pages_per_block;  /* pages per erase block */
    uint32_t block_count;      /* erase blocks, bad ones included */
    uint32_t read_size;        /* read unit and alignment, bytes */
    uint32_t prog_size;        /* program unit and alignment, bytes */
    uint32_t big_erase_blocks; /* blocks one large erase covers (1: none) */
    uint16_t ecc_bits;         /* bit errors corrected per codeword (0: no ECC) */
    uint16_t ecc_codeword;     /* bytes per ECC codeword */
    uint8_t  nop;              /* programs per page between erases (0: unlimited) */
    uint8_t  needs_erase;      /* 1: programmed bits need an erase to return to 1 */
    uint8_t  erased_byte;      /* value of erased memory */
    uint8_t  mid_erase_blocks; /* blocks one middle-size erase covers (0, 1: none;
                                  NOR 32 KiB subsector = 8) */
} sbd_geometry;

/* One piece of a gathered program (sbd_ops.progv). */
typedef struct sbd_iov {
    const void *buf;
    uint32_t len;
} sbd_iov;

/* Operations.  ctx is sbd.ctx.  See the rules above. */
typedef struct sbd_ops {
    int (*read)(void *ctx, uint32_t block, uint32_t off, void *buf, uint32_t len,
                void *spare, uint32_t spare_len);
    int (*prog)(void *ctx, uint32_t block, uint32_t off, const void *buf, uint32_t len,
                const void *spare, uint32_t spare_len);
    int (*erase)(void *ctx, uint32_t block, uint32_t count);
    /* Make every completed program/erase durable (write caches, O_DSYNC). */
    int (*sync)(void *ctx);
    /* 1 if the block is marked bad (factory or grown), 0 if good, < 0 error. */
    int (*is_bad)(void *ctx, uint32_t block);
    /* Mark a block bad so that is_bad reports it from now on, across power
     * cycles.  Marking never fails for a failed block's sake. */
    int (*mark_bad)(void *ctx, uint32_t block);
    /* Optional (NULL: not offered).  Program the n pieces, in order, as
     * one operation at (block, off): exactly what prog() of their
     * concatenation does, without a spare, on a device where programs
     * need no erase.  Where each command costs a fixed time before its
     * first byte (MRAM on SPI: seed 003's ~17.8 us), the file system
     * writes two whole sectors of one call, each with its tag beside it,
     * straight from the caller's memory in one command instead of two. */
    int (*progv)(void *ctx, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n);
} sbd_ops;

/* A device: its operations, their context and its geometry. */
typedef struct sbd {
    const sbd_ops *ops;
    void *ctx;
    sbd_geometry geo;
} sbd;

static inline uint32_t sbd_block_size(const sbd *bd)
{
    return bd->geo.page_size * bd->geo.pages_per_block;
}

static inline int sbd_read(const sbd *bd, uint32_t block, uint32_t off, void *buf,
                           uint32_t len, void *spare, uint32_t spare_len)
{
    return bd->ops->read(bd->ctx, block, off, buf, len, spare, spare_len);
}

static inline int sbd_prog(const sbd *bd, uint32_t block, uint32_t off, const void *buf,
                           uint32_t len, const void *spare, uint32_t spare_len)
{
    return bd->ops->prog(bd->ctx, block, off, buf, len, spare, spare_len);
}

static inline int sbd_progv(const sbd *bd, uint32_t block, uint32_t off, const sbd_iov *iov,
                            uint32_t n)
{
    return bd->ops->progv(bd->ctx, block, off, iov, n);
}

static inline int sbd_erase(const sbd *bd, uint32_t block, uint32_t count)
{
    return bd->ops->erase(bd->ctx, block, count);
}

static inline int sbd_sync(const sbd *bd) { return bd->ops->sync(bd->ctx); }

static inline int sbd_is_bad(const sbd *bd, uint32_t block)
{
    return bd->ops->is_bad(bd->ctx, block);
}

static inline int sbd_mark_bad(const sbd *bd, uint32_t block)
{
    return bd->ops->mark_bad(bd->ctx, block);
}

/* The name of an SBD_ERR_* code ("ECC uncorrectable", ...). */
const char *sbd_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* STEADYFS_BD_H */
