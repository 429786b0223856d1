/*
 * The device profiles: one real part each, parameters from its datasheet.
 * Every value's source is in the profile's notes; "assumed" marks a value
 * that is not from a datasheet or a measurement.
 */
#include <string.h>

#include "bd/sim_sd.h"
#include "steadyfs/sim.h"

#define US 1000ull
#define MS 1000000ull

/* The seed 003 host: STM32H755 Cortex-M7 at 240 MHz, QSPI 1-4-4 at
 * 120 MHz.  The per-operation host overhead (driver, DMA set-up) is
 * calibrated so the em064lx model reproduces seed 003's measured MRAM write
 * latencies (52/86/154/291/564/1109 us for 2..64 KiB: 60 MB/s plus
 * ~17.8 us per access); the same host and driver ran all three parts, so
 * the same overhead is used for each. */
#define SEED003_OVERHEAD_NS 17750u

static const struct sim_sd_params sd_consumer = {
    .unit_bytes = 16384,
    .au_bytes = 4u << 20,
    .open_aus = 2,
    .t_cmd = 150000,
    .t_unit_prog = 1450000,
    .t_unit_read = 900000,
    .copy_unit_ns = 1700000,
    .t_au_open = 9000000,
    .gc_period_units = 0,
    .t_gc_step = 0,
    .t_busy_max = 250000000,
    .stall = {
        {30000, 2000000, 2000000},      /* 3 %: 2 ms */
        {5000, 10000000, 30000000},     /* 0.5 %: 10-30 ms */
        {300, 100000000, 250000000},    /* 0.03 %: 100-250 ms (capped, see notes) */
    },
};

static const struct sim_sd_params sd_industrial = {
    .unit_bytes = 16384,
    .au_bytes = 4u << 20,
    .open_aus = 6,
    .t_cmd = 130000,
    .t_unit_prog = 1050000,
    .t_unit_read = 800000,
    .copy_unit_ns = 1000000,
    .t_au_open = 14000000,
    .gc_period_units = 64,
    .t_gc_step = 6000000,
    .t_busy_max = 250000000,
    .stall = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
};

static const sim_profile profiles[] = {
    {
        .name = "mt29f1g01",
        .part = "Micron MT29F1G01ABAFD 1 Gbit SLC SPI NAND (on-die ECC on)",
        .notes =
            "geometry 2048+128 B pages, 64 pages/block, 1024 blocks, 1 plane: MT29F1G01ABAFD datasheet (m78a_1gb_3v_nand_spi.pdf Rev. H) features page\n"
            "spare: 128 B per page; with on-die ECC on, half the spare holds ECC parity, so 64 B are exposed to the caller (split of the spare: assumed from the datasheet's spare-area map)\n"
            "tR 70 us MAX with on-die ECC (25 us with ECC off): datasheet features page; the typical value is assumed equal to the max (seed 003 uses 70 us as the page load time)\n"
            "tPROG 220 us TYP with on-die ECC (200 us ECC off): datasheet features page; max 600 us assumed (not located in the searched pages)\n"
            "tBERS 2 ms TYP: datasheet features page; 10 ms MAX: seed 000 (\"specified maximum block erase time of 10 ms\")\n"
            "ECC 8 bits per 512 B sector: datasheet features page\n"
            "NOP 4 partial programs per page: assumed (usual for Micron SLC NAND; not located in the searched pages); program unit 512 B = one ECC sector\n"
            "endurance 100,000 P/E cycles: datasheet; factory bad blocks at most 20 (blocks 0-7 valid when shipped): datasheet\n"
            "bus QSPI 1-4-4 at 120 MHz (seed 003 set-up; datasheet max 133 MHz), 2 address bytes, 4 dummy clocks on reads (assumed)\n"
            "host overhead 17.75 us per page operation: calibrated on seed 003 MRAM latencies (same host and driver)\n"
            "busy polling (GET FEATURE) is folded into the array time; jitter +-5 % in typical mode, 0.1 % of array times at max in tail mode (assumed)",
        .kind = SIM_NAND,
        .geo = {.page_size = 2048, .spare_size = 64, .pages_per_block = 64,
                .block_count = 1024, .read_size = 1, .prog_size = 512,
                .big_erase_blocks = 1, .ecc_bits = 8, .ecc_codeword = 512, .nop = 4,
                .needs_erase = 1, .erased_byte = 0xFF},
        .t_read = {70 * US, 70 * US},
        .t_prog = {220 * US, 600 * US},
        .t_erase = {2 * MS, 10 * MS},
        .t_erase_big = {0, 0},
        .bus = {.hz = 120000000, .cmd_lines = 1, .addr_lines = 4, .data_lines = 4,
                .addr_bytes = 2, .dummy_cycles = 4, .overhead_ns = SEED003_OVERHEAD_NS},
        .endurance = 100000,
        .factory_bad_max = 20,
        .jitter_permille = 50,
        .tail_ppm = 1000,
        .sd = NULL,
    },
    {
        .name = "mt25q128",
        .part = "Micron MT25QL128ABA 128 Mbit 3 V QSPI NOR",
        .notes =
            "geometry 256 B program page, 4 KiB subsector (the block), 64 KiB sector (big erase of 16 blocks), 4096 blocks: MT25QL128ABA datasheet features page\n"
            "tPP 256 B page program 0.12 ms TYP (consistent with the family's \"program performance 2 MB/s\"), 1.8 ms MAX: MT25Q datasheet AC table as recalled, max assumed (not located in the searched pages)\n"
            "tSSE 4 KiB subsector erase 50 ms TYP (\"80 KB/s (4KB sub-sector)\", MT25QL256ABA features page), 400 ms MAX assumed\n"
            "tSE 64 KiB sector erase 150 ms TYP, 1 s MAX: seed 003 (and \"400 KB/s (64KB sector)\" on the MT25Q features page)\n"
            "32 KiB subsector erase (52h; \"Subsector erase 4KB, 32KB granularity\": MT25QL128ABA features page) 1 s MAX: ST's MT25QL512ABB BSP component (mt25ql512abb.h, SUBSECTOR_32K_ERASE_MAX_TIME 1000 ms beside SUBSECTOR_4K 400 ms and SECTOR 1000 ms, from the MT25Q AC table); 100 ms TYP assumed (not located in the searched pages; between tSSE 4 KiB 50 ms and tSE 150 ms)\n"
            "endurance 100,000 erase cycles per sector: datasheet features page; no ECC, no bad blocks\n"
            "bus QSPI 1-4-4 at 120 MHz (seed 003; datasheet max 133 MHz STR), 3 address bytes, 10 dummy clocks for quad I/O fast read (datasheet default, assumed)\n"
            "host overhead 17.75 us per command: calibrated on seed 003 MRAM latencies (same host and driver)\n"
            "jitter +-5 % in typical mode, 0.1 % of array times at max in tail mode (assumed)",
        .kind = SIM_NOR,
        .geo = {.page_size = 256, .spare_size = 0, .pages_per_block = 16,
                .block_count = 4096, .read_size = 1, .prog_size = 1,
                .big_erase_blocks = 16, .ecc_bits = 0, .ecc_codeword = 0, .nop = 0,
                .needs_erase = 1, .erased_byte = 0xFF, .mid_erase_blocks = 8},
        .t_read = {0, 0},
        .t_prog = {120 * US, 1800 * US},
        .t_erase = {50 * MS, 400 * MS},
        .t_erase_big = {150 * MS, 1000 * MS},
        .t_erase_mid = {100 * MS, 1000 * MS},
        .bus = {.hz = 120000000, .cmd_lines = 1, .addr_lines = 4, .data_lines = 4,
                .addr_bytes = 3, .dummy_cycles = 10, .overhead_ns = SEED003_OVERHEAD_NS},
        .endurance = 100000,
        .factory_bad_max = 0,
        .jitter_permille = 50,
        .tail_ppm = 1000,
        .sd = NULL,
    },
    {
        .name = "em064lx",
        .part = "Everspin EM064LX 64 Mbit xSPI STT-MRAM (QSPI 1-4-4)",
        .notes =
            "8 MiB, byte-writable, no erase, reads and writes at bus speed: Everspin EMxxLX product brief via jblopen.com \"First look\" and seed 003\n"
            "page 256 B and 64 KiB blocks (128 of them) are nominal, for allocation convenience only: the part has no page or erase unit; 64 KiB blocks let one call write the largest seed 003 access\n"
            "no array time: writes at QSPI speed (seed 003: symmetric ~60 MB/s at 120 MHz 1-4-4)\n"
            "host overhead 17.75 us per access: calibrated so writes of 2..64 KiB take 52.0/86.1/154.4/290.9/564.0/1110.1 us vs seed 003's measured 52/86/154/291/564/1109 us\n"
            "3 address bytes, 8 dummy clocks on reads (assumed); erased/initial content 0xFF (assumed)\n"
            "endurance unlimited (EMxxLX brief); no ECC modelled (\"no external ECC required\"), no bad blocks",
        .kind = SIM_MRAM,
        .geo = {.page_size = 256, .spare_size = 0, .pages_per_block = 256,
                .block_count = 128, .read_size = 1, .prog_size = 1,
                .big_erase_blocks = 1, .ecc_bits = 0, .ecc_codeword = 0, .nop = 0,
                .needs_erase = 0, .erased_byte = 0xFF},
        .t_read = {0, 0},
        .t_prog = {0, 0},
        .t_erase = {0, 0},
        .t_erase_big = {0, 0},
        .bus = {.hz = 120000000, .cmd_lines = 1, .addr_lines = 4, .data_lines = 4,
                .addr_bytes = 3, .dummy_cycles = 8, .overhead_ns = SEED003_OVERHEAD_NS},
        .endurance = 0xFFFFFFFFu,
        .factory_bad_max = 0,
        .jitter_permille = 0,
        .tail_ppm = 0,
        .sd = NULL,
    },
    {
        .name = "sd-consumer",
        .part = "consumer microSD card (class 4/10, TLC/MLC) behind a 512 B sector interface",
        .notes =
            "capacity scaled down to 256 MiB (4096 x 64 KiB blocks) so images stay small; the FTL model does not depend on capacity\n"
            "16 KiB internal program unit, 512 B and 16 KiB writes cost about the same: seed 004\n"
            "4 MiB allocation units: SD Physical Layer spec AU sizes for 8 GB class 4/10 cards (assumed value within the spec's range)\n"
            "2 open AUs, unit program 1.45 ms, RMW read 0.9 ms, AU open 9 ms, merge copy 1.7 ms per unit: assumed, calibrated to seed 001's consumer averages\n"
            "random stalls per write command: 3 % +2 ms, 0.5 % +10-30 ms, 0.03 % +100-250 ms: seed 004 (\"2 ms frequent, 10-30 ms common, 500 ms sometimes\"); capped at the SD spec's 250 ms write busy per block, so 500 ms shows only when two stalls meet in one file-system call\n"
            "bus: 4-bit SD at 50 MHz (25 MB/s, high speed; assumed for the seed 001 LPC43xx SDMMC and seed 004 hosts); read access 0.25 ms typ (assumed), 100 ms max (SD spec read timeout)\n"
            "typical mode keeps the modelled stalls; tail adds 0.1 % of commands at 250 ms; worst makes every write 250 ms",
        .kind = SIM_SD,
        .geo = {.page_size = 512, .spare_size = 0, .pages_per_block = 128,
                .block_count = 4096, .read_size = 512, .prog_size = 512,
                .big_erase_blocks = 1, .ecc_bits = 0, .ecc_codeword = 0, .nop = 0,
                .needs_erase = 0, .erased_byte = 0x00},
        .t_read = {250 * US, 100 * MS},
        .t_prog = {1450 * US, 250 * MS},
        .t_erase = {0, 0},
        .t_erase_big = {0, 0},
        .bus = {.hz = 50000000, .cmd_lines = 1, .addr_lines = 1, .data_lines = 4,
                .addr_bytes = 5, .dummy_cycles = 0, .overhead_ns = 20000},
        .endurance = 0xFFFFFFFFu,
        .factory_bad_max = 0,
        .jitter_permille = 100,
        .tail_ppm = 1000,
        .sd = &sd_consumer,
    },
    {
        .name = "sd-industrial",
        .part = "industrial microSD card (SLC / pSLC) behind a 512 B sector interface",
        .notes =
            "capacity scaled down to 256 MiB (4096 x 64 KiB blocks); the FTL model does not depend on capacity\n"
            "16 KiB internal program unit: seed 004; 4 MiB allocation units (assumed)\n"
            "6 open AUs, unit program 1.05 ms, RMW read 0.8 ms, AU open 14 ms, GC step 6 ms every 64 units (1 MiB): assumed, calibrated to seed 001's industrial cards (max block latency 15-25 ms, regular pattern, averages 100/390/1300 KB/s)\n"
            "no random stalls (seed 001: industrial latency is regular and stable between runs)\n"
            "bus: 4-bit SD at 50 MHz (25 MB/s high speed, assumed); read access 0.2 ms typ (assumed), 100 ms max (SD spec read timeout); busy capped at 250 ms (SD spec)\n"
            "typical mode: +-10 % jitter on modelled times; tail adds 0.1 % of commands at 250 ms; worst makes every write 250 ms",
        .kind = SIM_SD,
        .geo = {.page_size = 512, .spare_size = 0, .pages_per_block = 128,
                .block_count = 4096, .read_size = 512, .prog_size = 512,
                .big_erase_blocks = 1, .ecc_bits = 0, .ecc_codeword = 0, .nop = 0,
                .needs_erase = 0, .erased_byte = 0x00},
        .t_read = {200 * US, 100 * MS},
        .t_prog = {1050 * US, 250 * MS},
        .t_erase = {0, 0},
        .t_erase_big = {0, 0},
        .bus = {.hz = 50000000, .cmd_lines = 1, .addr_lines = 1, .data_lines = 4,
                .addr_bytes = 5, .dummy_cycles = 0, .overhead_ns = 20000},
        .endurance = 0xFFFFFFFFu,
        .factory_bad_max = 0,
        .jitter_permille = 100,
        .tail_ppm = 1000,
        .sd = &sd_industrial,
    },
};

#define BUILTIN_COUNT ((unsigned)(sizeof profiles / sizeof profiles[0]))

/* Profiles registered at run time (a user's chip, given as a file to the
 * host tools): pointers only, the caller owns the profiles. */
static const sim_profile *user_profiles[SIM_USER_PROFILES_MAX];
static unsigned user_count;

unsigned sim_profile_count(void) { return BUILTIN_COUNT + user_count; }

const sim_profile *sim_profile_at(unsigned i)
{
    if (i < BUILTIN_COUNT)
        return &profiles[i];
    return i - BUILTIN_COUNT < user_count ? user_profiles[i - BUILTIN_COUNT] : NULL;
}

const sim_profile *sim_profile_find(const char *name)
{
    unsigned i;
    if (!name)
        return NULL;
    for (i = 0; i < sim_profile_count(); i++)
        if (strcmp(sim_profile_at(i)->name, name) == 0)
            return sim_profile_at(i);
    return NULL;
}

static int pow2(uint32_t v) { return v && !(v & (v - 1u)); }

int sim_profile_check(const sim_profile *p)
{
    const sbd_geometry *g = &p->geo;
    if (!p->name || !p->name[0] || strlen(p->name) >= 32u || !p->part || !p->notes)
        return SBD_ERR_INVAL;
    if (p->kind != SIM_NAND && p->kind != SIM_NOR && p->kind != SIM_MRAM)
        return SBD_ERR_INVAL;   /* SD cards need FTL parameters: built in only */
    if (!pow2(g->page_size) || g->page_size < 64u || !g->pages_per_block || !g->block_count ||
        !g->read_size || g->page_size % g->read_size || !g->prog_size ||
        g->page_size % g->prog_size || !g->big_erase_blocks ||
        g->block_count % g->big_erase_blocks)
        return SBD_ERR_INVAL;
    /* a middle-size erase lies inside the big one (NOR: 32 KiB in 64 KiB) */
    if (g->mid_erase_blocks > 1 && (g->big_erase_blocks % g->mid_erase_blocks ||
                                    g->mid_erase_blocks >= g->big_erase_blocks))
        return SBD_ERR_INVAL;
    /* the NAND model's limits: persistent bit errors are 16-bit bit indexes
     * in page + spare; at most 16 codewords per page */
    if ((uint64_t)(g->page_size + g->spare_size) * 8u > 65536u)
        return SBD_ERR_INVAL;
    if (g->ecc_bits && (!g->ecc_codeword || g->page_size % g->ecc_codeword ||
                        g->page_size / g->ecc_codeword > 16u))
        return SBD_ERR_INVAL;
    if (p->kind != SIM_NAND && (g->spare_size || g->ecc_bits))
        return SBD_ERR_INVAL;
    if (p->t_read.max_ns < p->t_read.typ_ns || p->t_prog.max_ns < p->t_prog.typ_ns ||
        p->t_erase.max_ns < p->t_erase.typ_ns || p->t_erase_big.max_ns < p->t_erase_big.typ_ns ||
        p->t_erase_mid.max_ns < p->t_erase_mid.typ_ns ||
        p->jitter_permille > 1000u || p->tail_ppm > 1000000u || p->sd)
        return SBD_ERR_INVAL;
    return 0;
}

int sim_profile_register(const sim_profile *p)
{
    int rc;
    if (!p)
        return SBD_ERR_INVAL;
    rc = sim_profile_check(p);
    if (rc)
        return rc;
    if (sim_profile_find(p->name))
        return SBD_ERR_INVAL;
    if (user_count >= SIM_USER_PROFILES_MAX)
        return SBD_ERR_RANGE;
    user_profiles[user_count++] = p;
    return 0;
}

uint32_t sim_profile_blocks(const sim_profile *p) { return p->geo.block_count; }
