/*
 * Board self-test over a block device: a ring log of self-checking record
 * pages.  Each record page carries a magic, a sequence number, the boot
 * that wrote it, a pattern derived from the sequence number and a
 * checksum, so a later boot can verify every byte an earlier boot wrote.
 * Records go page after page through the good blocks, wrapping around;
 * a block is erased when the log enters it.
 *
 * Record page (main area, little-endian):
 *   0 u32 magic 0x31574653 ("SFW1")   4 u32 seq   8 u32 boot
 *  12 u32 FNV-1a of bytes 0-11, 16-end and spare 0-7
 *  16..  pattern: xorshift32 bytes seeded with seq * 0x9E3779B9 + 1
 * Spare: 0 u32 seq, 4 u32 ~seq, the rest erased.
 * RAM: one page + spare buffer (2112 B for mt29f1g01) + fw_log.
 */
#ifndef FW_SELFTEST_H
#define FW_SELFTEST_H

#include <stdint.h>

#include "steadyfs/bd.h"

#define FW_LOG_PAGE_MAX 2048u
#define FW_LOG_SPARE_MAX 64u

typedef struct fw_log {
    const sbd *bd;
    /* scan results */
    uint32_t records;     /* valid records found */
    uint32_t corrupt;     /* record magic but wrong content */
    uint32_t foreign;     /* programmed pages that are not records (torn) */
    uint32_t seq_min, seq_max;
    uint32_t boot;        /* this boot's number: last boot found + 1 */
    /* where the next record goes */
    uint32_t next_block, next_page, next_seq;
    /* writes this boot */
    uint32_t written, verified, erases, skipped;
} fw_log;

/* Scan the device for records (reads every programmed page once).
 * 0 or a negative SBD_ERR_*. */
int fw_log_scan(fw_log *log, const sbd *bd);
/* Append one record, read it back and verify it.  0, 1 if the read-back
 * differs, or a negative SBD_ERR_*. */
int fw_log_append(fw_log *log);

#endif
