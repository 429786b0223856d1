/*
 * Private interfaces between the files of the simulated device layer:
 * the image layout (sim_image.c), timing (sim_time.c), fault injection
 * (faults.c) and the per-kind rules (nand.c, nor.c, mram.c, sd.c).
 * Nothing outside src/bd includes this.
 */
#ifndef STEADYFS_SIM_INTERNAL_H
#define STEADYFS_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "steadyfs/sim.h"

/* ---- image layout (docs/SIM-IMAGE.md) ---------------------------------- */

#define SIM_IMG_MAGIC "STDYSIM1"
#define SIM_IMG_VERSION 1u
#define SIM_IMG_HDR_SIZE 4096u

/* Block flags in sim_blk_meta.flags. */
#define SIM_BLK_FACTORY_BAD 0x01u
#define SIM_BLK_GROWN_BAD 0x02u
#define SIM_BLK_TORN_ERASE 0x04u /* last erase was interrupted */

/* Persistent bit errors per page (sim_flip_bits); enough to exceed any
 * modelled ECC strength (8 bits per codeword) in one codeword. */
#define SIM_FLIPS_MAX 16u

typedef struct sim_img_hdr {
    char magic[8];
    uint32_t version;
    uint32_t header_size;
    char profile[32];
    uint32_t kind;
    uint32_t page_size;
    uint32_t spare_size;
    uint32_t pages_per_block;
    uint32_t block_count;
    uint32_t page_meta_size;
    uint64_t block_meta_off;
    uint64_t page_meta_off;
    uint64_t data_off;
    uint64_t data_len;
    uint64_t format_seed;
} sim_img_hdr;

typedef struct sim_blk_meta {
    uint32_t erase_count;
    uint8_t flags;
    uint8_t pad[3];
} sim_blk_meta;

typedef struct sim_page_meta {
    uint8_t nprog;   /* programs since the last erase */
    uint8_t nflips;  /* persistent bit errors recorded in flips[] */
    uint16_t flips[SIM_FLIPS_MAX]; /* bit index in page main+spare */
    uint16_t pad;
} sim_page_meta;

/* Where each region starts, for a profile kind and geometry. */
typedef struct sim_layout {
    uint64_t block_meta_off, page_meta_off, data_off, data_len, total;
    uint32_t page_meta_size;   /* 0 for SD cards: no per-page state */
    uint32_t stride;           /* page_size + spare_size */
} sim_layout;

void sim_layout_of(const sim_profile *p, const sbd_geometry *g, sim_layout *out);
void sim_image_format(sim_dev *d, uint64_t seed);
int sim_image_check(const sim_dev *d);

sim_img_hdr *sim_img_header(const sim_dev *d);
sim_blk_meta *sim_blk(const sim_dev *d, uint32_t block);
sim_page_meta *sim_pg(const sim_dev *d, uint32_t block, uint32_t page);
/* Stored bytes of a page (main, then spare).  The image stores every byte
 * XORed with the erased value, so an all-zero image (a fresh sparse file,
 * calloc) is an erased device and formatting costs nothing. */
uint8_t *sim_page_raw(const sim_dev *d, uint32_t block, uint32_t page);
/* Flat sector array of an SD card image. */
uint8_t *sim_sd_data(const sim_dev *d);

/* ---- timing (sim_time.c) ----------------------------------------------- */

/* How an array time is chosen. */
typedef enum sim_pick {
    SIM_PICK_DRAW = 0,  /* draw from the device's PRNG per its timing mode */
    SIM_PICK_NOMINAL,   /* typical (no jitter) or maximum, per mode */
    SIM_PICK_BOUND,     /* the largest value the mode can draw */
} sim_pick;

uint64_t sim_rng_next(uint64_t *state);
/* Bus time of one command with n data bytes (dummy clocks for reads). */
uint64_t sim_xfer_ns(const sim_bus *b, uint32_t n, int with_dummy);
uint64_t sim_array_ns(const sim_profile *p, const sim_range *r, sim_timing mode,
                      uint64_t *rng, sim_pick pick);
/* Duration of one sbd call on a raw (NAND/NOR/MRAM) profile. */
/* Duration of one sbd call on a raw (NAND/NOR/MRAM) profile; spare_len
 * spare bytes travel with the page at `off` (one page operation). */
uint64_t sim_op_ns(const sim_profile *p, enum sim_op op, uint32_t off, uint32_t len,
                   uint32_t spare_len, sim_timing mode, uint64_t *rng, sim_pick pick);

/* ---- per-kind operations ------------------------------------------------ */

int sim_nand_read(sim_dev *d, uint32_t block, uint32_t off, uint8_t *buf, uint32_t len,
                  uint8_t *spare, uint32_t spare_len);
int sim_nand_prog(sim_dev *d, uint32_t block, uint32_t off, const uint8_t *buf,
                  uint32_t len, const uint8_t *spare, uint32_t spare_len, int torn);
int sim_nor_prog(sim_dev *d, uint32_t block, uint32_t off, const uint8_t *buf,
                 uint32_t len, int torn);
/* MRAM and SD cards program the n pieces' concatenation (len bytes):
 * a gathered program (sbd_ops.progv) or a plain one (n = 1). */
int sim_mram_prog(sim_dev *d, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n,
                  uint32_t len, int torn);
/* Plain read of stored bytes (NOR, MRAM, and NAND's raw path). */
void sim_raw_read(const sim_dev *d, uint32_t block, uint32_t off, uint8_t *buf,
                  uint32_t len, uint8_t *spare, uint32_t spare_len);
/* Erase `count` blocks from `block`; torn: a seeded partial erase. */
void sim_flash_erase(sim_dev *d, uint32_t block, uint32_t count, int torn);

/* SD cards (sd.c): the data plane is a flat sector array, the time plane
 * the FTL model kept in d->sd_state. */
void sim_sd_reset(sim_dev *d);
int sim_sd_read(sim_dev *d, uint32_t block, uint32_t off, uint8_t *buf, uint32_t len);
int sim_sd_prog(sim_dev *d, uint32_t block, uint32_t off, const sbd_iov *iov, uint32_t n,
                uint32_t len, int torn);
uint64_t sim_sd_read_ns(sim_dev *d, uint64_t lba, uint32_t nsec);
uint64_t sim_sd_prog_ns(sim_dev *d, uint64_t lba, uint32_t nsec);
uint64_t sim_sd_cost_ns(const sim_profile *p, enum sim_op op, uint32_t len, int maximum);

/* ---- faults (faults.c) ---------------------------------------------------- */

/* 1 when the next program/erase is the one the power cut tears. */
int sim_fault_cut_next(const sim_dev *d);
/* 1 when a program/erase of `block` fails (wear-out or random). */
int sim_fault_pe_fails(sim_dev *d, uint32_t block);
/* Transient read errors: flips bits of buf (one codeword per call) per
 * faults.flip_ppm; returns the number of bits flipped. */
uint32_t sim_fault_read_flips(sim_dev *d, uint8_t *cw, uint32_t cw_len);
/* 1 when this read returns no bytes (SBD_ERR_IO), per faults.read_io_ppm
 * and read_io_burst. */
int sim_fault_read_io(sim_dev *d);
/* Place factory bad blocks at format. */
void sim_fault_place_bad(sim_dev *d, uint64_t seed);

#endif /* STEADYFS_SIM_INTERNAL_H */
