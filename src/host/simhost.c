/*
 * The host handle API (include/steadyfs/host.h): simulated devices on
 * images in RAM or in mapped files, operation wrappers, clock and stats,
 * fault control, an operation trace ring, and profiles as JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bd/sim_sd.h"
#include "host/sh_internal.h"

static char last_error[512];

void sh_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *sh_last_error(void) { return last_error; }

void sh_trace_hook(void *arg, enum sim_op op, uint32_t block, uint32_t off, uint32_t len,
                   uint64_t start_ns, uint64_t dur_ns, int rc)
{
    sh_dev *h = arg;
    sh_trace_rec *r;
    if (!h->ring_cap)
        return;
    r = &h->ring[h->ring_count % h->ring_cap];
    r->start_ns = start_ns;
    r->dur_ns = dur_ns;
    r->block = block;
    r->off = off;
    r->len = len;
    r->rc = rc;
    r->op = (uint32_t)op;
    h->ring_count++;
}

static sh_dev *fail(sh_dev *h, int *err, int code)
{
    if (err)
        *err = code;
    if (h)
        sh_close(h);
    return NULL;
}

sh_dev *sh_open_sim(const char *profile, const char *path, uint32_t blocks, int timing,
                    uint64_t seed, int fresh, int *err)
{
    const sim_profile *p = sim_profile_find(profile);
    sh_dev *h;
    uint64_t need;
    int rc;

    if (err)
        *err = 0;
    if (!p) {
        sh_set_error("unknown device profile '%s'", profile ? profile : "(null)");
        return fail(NULL, err, SBD_ERR_INVAL);
    }
    if (timing < SIM_TYPICAL || timing > SIM_WORST) {
        sh_set_error("bad timing mode %d", timing);
        return fail(NULL, err, SBD_ERR_INVAL);
    }
    h = calloc(1, sizeof *h);
    if (!h)
        return fail(NULL, err, SBD_ERR_IO);
    h->is_sim = 1;
    h->fd = -1;
    snprintf(h->name, sizeof h->name, "%s", p->name);
    need = sim_image_size(p, blocks);
    h->image_len = need;
    if (!path || !*path) {
        /* calloc'd zero pages are an erased device (images store data XOR
         * the erased value), so a RAM image costs only what is written */
        h->image = calloc(1, (size_t)need);
        if (!h->image) {
            sh_set_error("out of memory for a %llu-byte image", (unsigned long long)need);
            return fail(h, err, SBD_ERR_IO);
        }
        fresh = 1;
    } else {
        struct stat sb;
        h->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (h->fd < 0 || fstat(h->fd, &sb) != 0) {
            sh_set_error("%s: %s", path, strerror(errno));
            return fail(h, err, SBD_ERR_IO);
        }
        if (sb.st_size == 0) {
            fresh = 1;   /* created now: format on first use */
        } else if ((uint64_t)sb.st_size != need && !fresh) {
            sh_set_error("%s: image is %lld bytes, profile %s with %u blocks needs %llu "
                         "(use fresh to reformat)",
                         path, (long long)sb.st_size, p->name, blocks ? blocks : p->geo.block_count,
                         (unsigned long long)need);
            return fail(h, err, SBD_ERR_INVAL);
        }
        if ((uint64_t)sb.st_size != need && ftruncate(h->fd, (off_t)need) != 0) {
            sh_set_error("%s: cannot size image: %s", path, strerror(errno));
            return fail(h, err, SBD_ERR_IO);
        }
        h->image = mmap(NULL, (size_t)need, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
        if (h->image == MAP_FAILED) {
            h->image = NULL;
            sh_set_error("%s: mmap: %s", path, strerror(errno));
            return fail(h, err, SBD_ERR_IO);
        }
    }
    rc = sim_init(&h->sim, p, blocks, h->image, need, (sim_timing)timing, seed, fresh);
    if (rc) {
        sh_set_error("%s: not a %s image with %u blocks (bad header or geometry)",
                     path ? path : "image", p->name, blocks ? blocks : p->geo.block_count);
        return fail(h, err, rc);
    }
    h->sim.trace = sh_trace_hook;
    h->sim.trace_arg = h;
    return h;
}

sh_dev *sh_open_image(const char *path, const char *profile, uint32_t blocks, int timing,
                      int *err)
{
    uint8_t h[4096];
    char name[33];
    uint32_t hb;
    struct stat sb;
    ssize_t n = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        sh_set_error("%s: %s", path, strerror(errno));
        return fail(NULL, err, SBD_ERR_IO);
    }
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
        n = pread(fd, h, sizeof h, 0);
    close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h, "STDYSIM1", 8) != 0) {
        sh_set_error("%s: not a steadyfs device image (no STDYSIM1 header)", path);
        return fail(NULL, err, SBD_ERR_INVAL);
    }
    memcpy(name, h + 16, 32);
    name[32] = 0;
    hb = (uint32_t)h[64] | (uint32_t)h[65] << 8 | (uint32_t)h[66] << 16 | (uint32_t)h[67] << 24;
    if (profile && strcmp(profile, name) != 0) {
        sh_set_error("%s: image is of device %s, not %s", path, name, profile);
        return fail(NULL, err, SBD_ERR_INVAL);
    }
    if (blocks && blocks != hb) {
        sh_set_error("%s: image is of %s with %u blocks, not %u", path, name, hb, blocks);
        return fail(NULL, err, SBD_ERR_INVAL);
    }
    if (!sim_profile_find(name)) {
        sh_set_error("%s: image of unknown device profile '%s' (a chip from a profile file: give --profile-file FILE)", path, name);
        return fail(NULL, err, SBD_ERR_INVAL);
    }
    /* the file exists and is not empty: sh_open_sim neither creates nor
     * formats it, and checks the header whole */
    return sh_open_sim(name, path, hb, timing, 1, 0, err);
}

sh_dev *sh_create_image(const char *path, const char *profile, uint32_t blocks, int timing,
                        uint64_t seed, int *err)
{
    sh_dev *d;
    int fd;
    if (!sim_profile_find(profile)) {
        sh_set_error("unknown device profile '%s' (see `steady devices`)", profile);
        return fail(NULL, err, SBD_ERR_INVAL);
    }
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        sh_set_error("%s: %s", path, errno == EEXIST ? "exists" : strerror(errno));
        return fail(NULL, err, SBD_ERR_IO);
    }
    close(fd);
    d = sh_open_sim(profile, path, blocks, timing, seed, 1, err);
    if (!d)
        unlink(path);
    return d;
}

void sh_close(sh_dev *h)
{
    if (!h)
        return;
    if (h->is_sim) {
        if (h->fd >= 0) {
            if (h->image) {
                msync(h->image, (size_t)h->image_len, MS_SYNC);
                munmap(h->image, (size_t)h->image_len);
            }
            close(h->fd);
        } else {
            free(h->image);
        }
    } else {
        lx_close(&h->lx);
    }
    free(h->ring);
    free(h);
}

const sbd *sh_bd(sh_dev *h) { return h->is_sim ? &h->sim.bd : &h->lx.bd; }
sim_dev *sh_sim(sh_dev *h) { return h->is_sim ? &h->sim : NULL; }
const char *sh_name(const sh_dev *h) { return h->name; }

void sh_geometry(const sh_dev *h, sbd_geometry *out)
{
    *out = h->is_sim ? h->sim.bd.geo : h->lx.bd.geo;
}

int sh_read(sh_dev *h, uint32_t block, uint32_t off, void *buf, uint32_t len, void *spare,
            uint32_t spare_len)
{
    return sbd_read(sh_bd(h), block, off, buf, len, spare, spare_len);
}

int sh_prog(sh_dev *h, uint32_t block, uint32_t off, const void *buf, uint32_t len,
            const void *spare, uint32_t spare_len)
{
    return sbd_prog(sh_bd(h), block, off, buf, len, spare, spare_len);
}

int sh_erase(sh_dev *h, uint32_t block, uint32_t count)
{
    return sbd_erase(sh_bd(h), block, count);
}

int sh_sync(sh_dev *h) { return sbd_sync(sh_bd(h)); }
int sh_is_bad(sh_dev *h, uint32_t block) { return sbd_is_bad(sh_bd(h), block); }
int sh_mark_bad(sh_dev *h, uint32_t block) { return sbd_mark_bad(sh_bd(h), block); }

uint64_t sh_now_ns(const sh_dev *h) { return h->is_sim ? h->sim.now_ns : h->lx.now_ns; }
uint64_t sh_last_ns(const sh_dev *h) { return h->is_sim ? h->sim.last_ns : h->lx.last_ns; }

void sh_stats(const sh_dev *h, sim_stats *out) { *out = h->is_sim ? h->sim.stats : h->lx.stats; }

int sh_set_faults(sh_dev *h, const sim_faults *f)
{
    if (!h->is_sim)
        return SBD_ERR_INVAL;
    sim_set_faults(&h->sim, f);
    return 0;
}

int sh_set_timing(sh_dev *h, int timing)
{
    if (!h->is_sim || timing < SIM_TYPICAL || timing > SIM_WORST)
        return SBD_ERR_INVAL;
    sim_set_timing(&h->sim, (sim_timing)timing);
    return 0;
}

int sh_power_restore(sh_dev *h)
{
    if (!h->is_sim)
        return SBD_ERR_INVAL;
    sim_power_restore(&h->sim);
    return 0;
}

int sh_flip_bits(sh_dev *h, uint32_t block, uint32_t page, uint32_t nbits)
{
    if (!h->is_sim)
        return SBD_ERR_INVAL;
    return sim_flip_bits(&h->sim, block, page, nbits);
}

uint32_t sh_erase_count(const sh_dev *h, uint32_t block)
{
    return h->is_sim ? sim_erase_count(&h->sim, block) : 0;
}

int sh_trace_enable(sh_dev *h, uint64_t capacity)
{
    sh_trace_rec *r = NULL;
    if (capacity) {
        r = calloc((size_t)capacity, sizeof *r);
        if (!r)
            return SBD_ERR_IO;
    }
    free(h->ring);
    h->ring = r;
    h->ring_cap = capacity;
    h->ring_count = 0;
    return 0;
}

uint64_t sh_trace_count(const sh_dev *h)
{
    return h->ring_count < h->ring_cap ? h->ring_count : h->ring_cap;
}

uint64_t sh_trace_copy(const sh_dev *h, uint64_t first, sh_trace_rec *out, uint64_t n)
{
    uint64_t have = sh_trace_count(h), oldest = h->ring_count - have, i;
    if (first >= have)
        return 0;
    if (n > have - first)
        n = have - first;
    for (i = 0; i < n; i++)
        out[i] = h->ring[(oldest + first + i) % h->ring_cap];
    return n;
}

void sh_trace_clear(sh_dev *h) { h->ring_count = 0; }

/* ---- profiles as JSON --------------------------------------------------- */

typedef struct jbuf {
    char *p;
    size_t cap, len;
} jbuf;

static void jput(jbuf *j, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(j->len < j->cap ? j->p + j->len : NULL, j->len < j->cap ? j->cap - j->len : 0,
                  fmt, ap);
    va_end(ap);
    if (n > 0)
        j->len += (size_t)n;
}

static void jstr(jbuf *j, const char *s, size_t n)
{
    size_t i;
    jput(j, "\"");
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            jput(j, "\\%c", c);
        else if (c < 0x20)
            jput(j, "\\u%04x", c);
        else
            jput(j, "%c", c);
    }
    jput(j, "\"");
}

static const char *kind_name(sim_kind k)
{
    switch (k) {
    case SIM_NAND: return "nand";
    case SIM_NOR: return "nor";
    case SIM_MRAM: return "mram";
    case SIM_SD: return "sd";
    }
    return "unknown";
}

static void jrange(jbuf *j, const char *name, sim_range r, int comma)
{
    jput(j, "\"%s\": {\"typ_ns\": %llu, \"max_ns\": %llu}%s", name,
         (unsigned long long)r.typ_ns, (unsigned long long)r.max_ns, comma ? ", " : "");
}

static void jcost(jbuf *j, const sim_profile *p, const char *name, enum sim_op op,
                  uint32_t len, int comma)
{
    jput(j, "\"%s\": {\"bytes\": %u, \"typ_ns\": %llu, \"typical_bound_ns\": %llu, "
            "\"max_ns\": %llu}%s",
         name, len, (unsigned long long)sim_cost_ns(p, op, len, SIM_TYPICAL),
         (unsigned long long)sim_cost_bound_ns(p, op, len, SIM_TYPICAL),
         (unsigned long long)sim_cost_ns(p, op, len, SIM_WORST), comma ? ", " : "");
}

unsigned sh_profile_count(void) { return sim_profile_count(); }

int sh_profile_json(unsigned i, char *buf, size_t len)
{
    const sim_profile *p = sim_profile_at(i);
    const sbd_geometry *g;
    const char *s, *e;
    jbuf j = {buf, len, 0};
    uint64_t bsize, rate;

    if (!p)
        return -1;
    g = &p->geo;
    bsize = (uint64_t)g->page_size * g->pages_per_block;
    rate = p->bus.hz ? (uint64_t)p->bus.hz * (p->bus.data_lines ? p->bus.data_lines : 1u) / 8u
                     : 0;
    if (len)
        buf[0] = 0;
    jput(&j, "{\"name\": ");
    jstr(&j, p->name, strlen(p->name));
    jput(&j, ", \"part\": ");
    jstr(&j, p->part, strlen(p->part));
    jput(&j, ", \"kind\": \"%s\", ", kind_name(p->kind));
    jput(&j, "\"geometry\": {\"page_size\": %u, \"spare_size\": %u, \"pages_per_block\": %u, "
             "\"block_count\": %u, \"block_size\": %llu, \"capacity_bytes\": %llu, "
             "\"read_size\": %u, \"prog_size\": %u, \"big_erase_blocks\": %u, "
             "\"ecc_bits\": %u, \"ecc_codeword\": %u, \"nop\": %u, \"needs_erase\": %u, "
             "\"erased_byte\": %u, \"mid_erase_blocks\": %u}, ",
         g->page_size, g->spare_size, g->pages_per_block, g->block_count,
         (unsigned long long)bsize, (unsigned long long)(bsize * g->block_count), g->read_size,
         g->prog_size, g->big_erase_blocks, g->ecc_bits, g->ecc_codeword, g->nop,
         g->needs_erase, g->erased_byte, g->mid_erase_blocks);
    jput(&j, "\"times\": {");
    jrange(&j, "read", p->t_read, 1);
    jrange(&j, "prog", p->t_prog, 1);
    jrange(&j, "erase", p->t_erase, 1);
    jrange(&j, "erase_big", p->t_erase_big, 1);
    jrange(&j, "erase_mid", p->t_erase_mid, 0);
    jput(&j, "}, ");
    jput(&j, "\"bus\": {\"hz\": %u, \"cmd_lines\": %u, \"addr_lines\": %u, \"data_lines\": %u, "
             "\"addr_bytes\": %u, \"dummy_cycles\": %u, \"overhead_ns\": %u, "
             "\"data_bytes_per_s\": %llu}, ",
         p->bus.hz, p->bus.cmd_lines, p->bus.addr_lines, p->bus.data_lines, p->bus.addr_bytes,
         p->bus.dummy_cycles, p->bus.overhead_ns, (unsigned long long)rate);
    /* whole-operation costs from the same arithmetic the models use */
    jput(&j, "\"op_cost\": {");
    jcost(&j, p, "read_page", SIM_OP_READ, g->page_size, 1);
    jcost(&j, p, "prog_page", SIM_OP_PROG, g->page_size, 1);
    jcost(&j, p, "read_4096", SIM_OP_READ, 4096, 1);
    jcost(&j, p, "prog_4096", SIM_OP_PROG, 4096, 1);
    jcost(&j, p, "erase_block", SIM_OP_ERASE, 1, g->big_erase_blocks > 1);
    if (g->big_erase_blocks > 1)
        jcost(&j, p, "erase_big", SIM_OP_ERASE, g->big_erase_blocks, g->mid_erase_blocks > 1);
    if (g->mid_erase_blocks > 1)
        jcost(&j, p, "erase_mid", SIM_OP_ERASE, g->mid_erase_blocks, 0);
    jput(&j, "}, ");
    jput(&j, "\"endurance\": %u, \"factory_bad_max\": %u, \"jitter_permille\": %u, "
             "\"tail_ppm\": %u, ",
         p->endurance, p->factory_bad_max, p->jitter_permille, p->tail_ppm);
    if (p->sd) {
        const struct sim_sd_params *sp = p->sd;
        unsigned k;
        jput(&j, "\"sd\": {\"unit_bytes\": %u, \"au_bytes\": %u, \"open_aus\": %u, "
                 "\"t_cmd_ns\": %u, \"t_unit_prog_ns\": %u, \"t_unit_read_ns\": %u, "
                 "\"copy_unit_ns\": %u, \"t_au_open_ns\": %u, \"gc_period_units\": %u, "
                 "\"t_gc_step_ns\": %u, \"t_busy_max_ns\": %u, \"stalls\": [",
             sp->unit_bytes, sp->au_bytes, sp->open_aus, sp->t_cmd, sp->t_unit_prog,
             sp->t_unit_read, sp->copy_unit_ns, sp->t_au_open, sp->gc_period_units,
             sp->t_gc_step, sp->t_busy_max);
        for (k = 0; k < 3; k++)
            jput(&j, "{\"ppm\": %u, \"min_ns\": %u, \"max_ns\": %u}%s", sp->stall[k].ppm,
                 sp->stall[k].min_ns, sp->stall[k].max_ns, k < 2 ? ", " : "");
        jput(&j, "]}, ");
    }
    jput(&j, "\"notes\": [");
    for (s = p->notes; *s; s = *e ? e + 1 : e) {
        e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s);
        jstr(&j, s, (size_t)(e - s));
        if (*e)
            jput(&j, ", ");
    }
    jput(&j, "]}");
    return (int)j.len;
}

/* ---- user profiles -------------------------------------------------------- */

/* The numbers of a profile, by the key `steady devices --json` prints them
 * under; sh_profile_define takes them in this order. */
static const char *const profile_keys[] = {
    "geometry.page_size", "geometry.spare_size", "geometry.pages_per_block",
    "geometry.block_count", "geometry.read_size", "geometry.prog_size",
    "geometry.big_erase_blocks", "geometry.ecc_bits", "geometry.ecc_codeword", "geometry.nop",
    "geometry.needs_erase", "geometry.erased_byte",
    "times.read.typ_ns", "times.read.max_ns", "times.prog.typ_ns", "times.prog.max_ns",
    "times.erase.typ_ns", "times.erase.max_ns", "times.erase_big.typ_ns",
    "times.erase_big.max_ns",
    "bus.hz", "bus.cmd_lines", "bus.addr_lines", "bus.data_lines", "bus.addr_bytes",
    "bus.dummy_cycles", "bus.overhead_ns",
    "endurance", "factory_bad_max", "jitter_permille", "tail_ppm",
    "geometry.mid_erase_blocks", "times.erase_mid.typ_ns", "times.erase_mid.max_ns",
};
#define NKEYS (sizeof profile_keys / sizeof profile_keys[0])

const char *sh_profile_key(unsigned i) { return i < NKEYS ? profile_keys[i] : NULL; }

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int sh_profile_define(const char *name, const char *part, const char *notes, const char *kind,
                      const uint64_t *v, unsigned n)
{
    sim_profile *p;
    unsigned i;
    int rc;

    if (!name || !part || !notes || !kind || !v || n != NKEYS) {
        sh_set_error("profile: want a name, part, notes, kind and %u numbers", (unsigned)NKEYS);
        return SBD_ERR_INVAL;
    }
    for (i = 0; i < NKEYS; i++) {
        /* the time fields are 64-bit; every other field fits 32 bits, and
         * the narrower ones are checked against their own width below */
        if (strncmp(profile_keys[i], "times.", 6) != 0 && v[i] > 0xFFFFFFFFull) {
            sh_set_error("profile %s: %s = %llu is too large", name, profile_keys[i],
                         (unsigned long long)v[i]);
            return SBD_ERR_INVAL;
        }
    }
    if (v[7] > 0xFFFF || v[8] > 0xFFFF || v[9] > 0xFF || v[10] > 1 || v[11] > 0xFF ||
        v[21] > 0xFF || v[22] > 0xFF || v[23] > 0xFF || v[24] > 0xFF || v[25] > 0xFF ||
        v[29] > 0xFFFF || v[31] > 0xFF) {
        sh_set_error("profile %s: a field is out of its range (ecc_bits/ecc_codeword/"
                     "jitter_permille <= 65535, nop/erased_byte/mid_erase_blocks/bus lines/bytes/"
                     "cycles <= 255, "
                     "needs_erase 0 or 1)", name);
        return SBD_ERR_INVAL;
    }
    p = calloc(1, sizeof *p);
    if (!p) {
        sh_set_error("profile %s: out of memory", name);
        return SBD_ERR_IO;
    }
    p->kind = !strcmp(kind, "nand") ? SIM_NAND : !strcmp(kind, "nor") ? SIM_NOR
              : !strcmp(kind, "mram") ? SIM_MRAM : SIM_SD;
    p->geo.page_size = (uint32_t)v[0];
    p->geo.spare_size = (uint32_t)v[1];
    p->geo.pages_per_block = (uint32_t)v[2];
    p->geo.block_count = (uint32_t)v[3];
    p->geo.read_size = (uint32_t)v[4];
    p->geo.prog_size = (uint32_t)v[5];
    p->geo.big_erase_blocks = (uint32_t)v[6];
    p->geo.ecc_bits = (uint16_t)v[7];
    p->geo.ecc_codeword = (uint16_t)v[8];
    p->geo.nop = (uint8_t)v[9];
    p->geo.needs_erase = (uint8_t)v[10];
    p->geo.erased_byte = (uint8_t)v[11];
    p->t_read = (sim_range){v[12], v[13]};
    p->t_prog = (sim_range){v[14], v[15]};
    p->t_erase = (sim_range){v[16], v[17]};
    p->t_erase_big = (sim_range){v[18], v[19]};
    p->bus.hz = (uint32_t)v[20];
    p->bus.cmd_lines = (uint8_t)v[21];
    p->bus.addr_lines = (uint8_t)v[22];
    p->bus.data_lines = (uint8_t)v[23];
    p->bus.addr_bytes = (uint8_t)v[24];
    p->bus.dummy_cycles = (uint8_t)v[25];
    p->bus.overhead_ns = (uint32_t)v[26];
    p->endurance = (uint32_t)v[27];
    p->factory_bad_max = (uint32_t)v[28];
    p->jitter_permille = (uint16_t)v[29];
    p->tail_ppm = (uint32_t)v[30];
    p->geo.mid_erase_blocks = (uint8_t)v[31];
    p->t_erase_mid = (sim_range){v[32], v[33]};
    p->name = dupstr(name);
    p->part = dupstr(part);
    p->notes = dupstr(notes);
    if (!p->name || !p->part || !p->notes) {
        rc = SBD_ERR_IO;
        sh_set_error("profile %s: out of memory", name);
    } else if (sim_profile_find(name)) {
        rc = SBD_ERR_INVAL;
        sh_set_error("profile %s: a device profile of that name exists", name);
    } else if ((rc = sim_profile_register(p)) != 0) {
        if (rc == SBD_ERR_RANGE)
            sh_set_error("profile %s: no room for another profile (%u at most)", name,
                         SIM_USER_PROFILES_MAX);
        else
            sh_set_error("profile %s: not a device the models can run (kind nand, nor or "
                         "mram; power-of-two page >= 64 B; read, program and big-erase units "
                         "that divide page and device; page + spare <= 8 KiB; at most 16 ECC "
                         "codewords per page; every max >= its typ)", name);
    }
    if (rc) {
        free((void *)p->name);
        free((void *)p->part);
        free((void *)p->notes);
        free(p);
        return rc;
    }
    return 0;   /* registered for the life of the process */
}

int sh_profile_define_spec(const char *spec)
{
    uint64_t vals[2 * NKEYS];
    char kind[8], name[32], *end;
    const char *c1 = spec ? strchr(spec, ':') : NULL, *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *p;
    unsigned n = 0;
    if (!c1 || !c2 || (size_t)(c1 - spec) >= sizeof kind || c2 == c1 + 1 ||
        (size_t)(c2 - c1 - 1) >= sizeof name) {
        sh_set_error("profile definition: want KIND:NAME:N0,N1,... (a name of 1..31 characters)");
        return SBD_ERR_INVAL;
    }
    memcpy(kind, spec, (size_t)(c1 - spec));
    kind[c1 - spec] = 0;
    memcpy(name, c1 + 1, (size_t)(c2 - c1 - 1));
    name[c2 - c1 - 1] = 0;
    for (p = c2 + 1; *p; p = *end ? end + 1 : end) {
        if (n == sizeof vals / sizeof vals[0]) {
            sh_set_error("profile %s: more than %u numbers", name, (unsigned)NKEYS);
            return SBD_ERR_INVAL;
        }
        errno = 0;
        vals[n++] = strtoull(p, &end, 10);
        if (errno || end == p || *p == '-' || (*end && *end != ',')) {
            sh_set_error("profile %s: number %u is not a number >= 0", name, n);
            return SBD_ERR_INVAL;
        }
    }
    if (strcmp(kind, "nand") && strcmp(kind, "nor") && strcmp(kind, "mram")) {
        sh_set_error("profile %s: kind %s: want nand, nor or mram", name, kind);
        return SBD_ERR_INVAL;
    }
    return sh_profile_define(name, name, "", kind, vals, n);
}

int sh_profile_option(const char *prog, const char *spec)
{
    if (!sh_profile_define_spec(spec))
        return 0;
    fprintf(stderr, "%s: %s\n", prog, sh_last_error());
    return -1;
}

