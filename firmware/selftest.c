/* Self-checking record log over a block device (see selftest.h). */
#include "selftest.h"

#include <string.h>

#define REC_MAGIC 0x31574653u
#define REC_HDR 16u

static uint8_t page_buf[FW_LOG_PAGE_MAX];
static uint8_t spare_buf[FW_LOG_SPARE_MAX];

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t fnv1a(uint32_t h, const uint8_t *p, uint32_t n)
{
    while (n--)
        h = (h ^ *p++) * 16777619u;
    return h;
}

static uint32_t record_sum(const uint8_t *page, uint32_t page_size, const uint8_t *spare)
{
    uint32_t h = fnv1a(2166136261u, page, 12);
    h = fnv1a(h, page + REC_HDR, page_size - REC_HDR);
    return fnv1a(h, spare, 8);
}

/* The pattern: 4 bytes per xorshift32 step, little-endian. */
static void pattern_fill(uint8_t *p, uint32_t n, uint32_t seq)
{
    uint32_t x = seq * 0x9E3779B9u + 1u, w = 0;
    for (uint32_t i = 0; i < n; i++) {
        if ((i & 3u) == 0) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            w = x;
        }
        p[i] = (uint8_t)(w >> (8u * (i & 3u)));
    }
}

static int pattern_check(const uint8_t *p, uint32_t n, uint32_t seq)
{
    uint32_t x = seq * 0x9E3779B9u + 1u, w = 0;
    for (uint32_t i = 0; i < n; i++) {
        if ((i & 3u) == 0) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            w = x;
        }
        if (p[i] != (uint8_t)(w >> (8u * (i & 3u))))
            return 0;
    }
    return 1;
}

static uint32_t spare_len(const sbd *bd)
{
    return bd->geo.spare_size < FW_LOG_SPARE_MAX ? bd->geo.spare_size : FW_LOG_SPARE_MAX;
}

/* 1 if page_buf/spare_buf hold a valid record with this seq. */
static int record_ok(const sbd *bd)
{
    uint32_t ps = bd->geo.page_size, seq = get32(page_buf + 4);
    if (get32(page_buf) != REC_MAGIC || get32(page_buf + 12) != record_sum(page_buf, ps, spare_buf))
        return 0;
    if (get32(spare_buf) != seq || get32(spare_buf + 4) != ~seq)
        return 0;
    return pattern_check(page_buf + REC_HDR, ps - REC_HDR, seq);
}

static int read_page(const sbd *bd, uint32_t b, uint32_t pg)
{
    int rc = sbd_read(bd, b, pg * bd->geo.page_size, page_buf, bd->geo.page_size, spare_buf,
                      spare_len(bd));
    return rc < 0 ? rc : 0;
}

static int all_erased(const uint8_t *p, uint32_t n, uint8_t e)
{
    for (uint32_t i = 0; i < n; i++)
        if (p[i] != e)
            return 0;
    return 1;
}

/* The next good position after (b, pg), wrapping. */
static void advance(const sbd *bd, uint32_t *b, uint32_t *pg)
{
    if (++*pg < bd->geo.pages_per_block)
        return;
    *pg = 0;
    for (uint32_t i = 0; i < bd->geo.block_count; i++) {
        *b = (*b + 1u) % bd->geo.block_count;
        if (sbd_is_bad(bd, *b) == 0)
            return;
    }
}

int fw_log_scan(fw_log *log, const sbd *bd)
{
    uint32_t boot_max = 0, have = 0, head_b = 0, head_p = 0, first_good = UINT32_MAX;
    int rc;

    memset(log, 0, sizeof *log);
    log->bd = bd;
    if (bd->geo.page_size > FW_LOG_PAGE_MAX || bd->geo.page_size <= REC_HDR)
        return SBD_ERR_INVAL;
    for (uint32_t b = 0; b < bd->geo.block_count; b++) {
        if ((rc = sbd_is_bad(bd, b)) != 0) {
            if (rc < 0)
                return rc;
            continue;
        }
        if (first_good == UINT32_MAX)
            first_good = b;
        for (uint32_t pg = 0; pg < bd->geo.pages_per_block; pg++) {
            /* the header first: most pages of a young log are erased */
            rc = sbd_read(bd, b, pg * bd->geo.page_size, page_buf, REC_HDR, NULL, 0);
            if (rc < 0 && rc != SBD_ERR_ECC)
                return rc;
            if (rc >= 0 && all_erased(page_buf, REC_HDR, bd->geo.erased_byte))
                continue;
            if (rc < 0 || get32(page_buf) != REC_MAGIC) {
                log->foreign++;
                continue;
            }
            rc = read_page(bd, b, pg);
            if (rc < 0 && rc != SBD_ERR_ECC)
                return rc;
            if (rc < 0 || !record_ok(bd)) {
                log->corrupt++;
                continue;
            }
            uint32_t seq = get32(page_buf + 4), boot = get32(page_buf + 8);
            if (!have || seq > log->seq_max) {
                log->seq_max = seq;
                head_b = b;
                head_p = pg;
            }
            if (!have || seq < log->seq_min)
                log->seq_min = seq;
            if (boot > boot_max)
                boot_max = boot;
            have = 1;
            log->records++;
        }
    }
    if (first_good == UINT32_MAX)
        return SBD_ERR_BAD_BLOCK;
    log->boot = boot_max + 1u;
    if (have) {
        log->next_block = head_b;
        log->next_page = head_p;
        advance(bd, &log->next_block, &log->next_page);
        log->next_seq = log->seq_max + 1u;
    } else {
        log->next_block = first_good;
        log->next_page = 0;
        log->next_seq = 0;
    }
    return 0;
}

int fw_log_append(fw_log *log)
{
    const sbd *bd = log->bd;
    uint32_t ps = bd->geo.page_size, sl = spare_len(bd), seq = log->next_seq;
    uint32_t b = 0, pg = 0;
    int rc = SBD_ERR_RULE;

    for (uint32_t tries = 0; tries < bd->geo.pages_per_block && rc == SBD_ERR_RULE; tries++) {
        b = log->next_block;
        pg = log->next_page;
        if (pg == 0) {
            /* entering a block: it may hold the oldest records */
            if ((rc = sbd_erase(bd, b, 1)) != 0)
                return rc;
            log->erases++;
        }
        put32(page_buf, REC_MAGIC);
        put32(page_buf + 4, seq);
        put32(page_buf + 8, log->boot);
        pattern_fill(page_buf + REC_HDR, ps - REC_HDR, seq);
        memset(spare_buf, bd->geo.erased_byte, sizeof spare_buf);
        put32(spare_buf, seq);
        put32(spare_buf + 4, ~seq);
        put32(page_buf + 12, record_sum(page_buf, ps, spare_buf));
        rc = sbd_prog(bd, b, pg * ps, page_buf, ps, spare_buf, sl);
        advance(bd, &log->next_block, &log->next_page);
        if (rc == SBD_ERR_RULE)
            log->skipped++; /* a page left programmed by a torn write */
    }
    if (rc)
        return rc;
    log->next_seq = seq + 1u;
    log->written++;
    /* read back, buffers cleared first so stale bytes cannot pass */
    memset(page_buf, 0, sizeof page_buf);
    memset(spare_buf, 0, sizeof spare_buf);
    if ((rc = read_page(bd, b, pg)) != 0)
        return rc;
    if (!record_ok(bd) || get32(page_buf + 4) != seq)
        return 1;
    log->verified++;
    return 0;
}
