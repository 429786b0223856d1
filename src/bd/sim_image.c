/* The image layout of a simulated device: header, block metadata, page
 * metadata, data.  The exact format is docs/SIM-IMAGE.md. */
#include <string.h>

#include "bd/sim_internal.h"

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

void sim_layout_of(const sim_profile *p, const sbd_geometry *g, sim_layout *out)
{
    uint64_t pages = (uint64_t)g->block_count * g->pages_per_block;
    out->stride = g->page_size + g->spare_size;
    out->page_meta_size = p->kind == SIM_SD ? 0u : (uint32_t)sizeof(sim_page_meta);
    out->block_meta_off = SIM_IMG_HDR_SIZE;
    out->page_meta_off = align_up(out->block_meta_off +
                                  (uint64_t)g->block_count * sizeof(sim_blk_meta), 8);
    /* data page-aligned so a file-backed image maps and syncs cleanly */
    out->data_off = align_up(out->page_meta_off + pages * out->page_meta_size, 4096);
    out->data_len = pages * out->stride;
    out->total = out->data_off + out->data_len;
}

sim_img_hdr *sim_img_header(const sim_dev *d) { return (sim_img_hdr *)(void *)d->image; }

sim_blk_meta *sim_blk(const sim_dev *d, uint32_t block)
{
    return (sim_blk_meta *)(void *)(d->image + sim_img_header(d)->block_meta_off) + block;
}

sim_page_meta *sim_pg(const sim_dev *d, uint32_t block, uint32_t page)
{
    uint64_t i = (uint64_t)block * d->bd.geo.pages_per_block + page;
    return (sim_page_meta *)(void *)(d->image + sim_img_header(d)->page_meta_off) + i;
}

uint8_t *sim_page_raw(const sim_dev *d, uint32_t block, uint32_t page)
{
    const sbd_geometry *g = &d->bd.geo;
    uint64_t i = (uint64_t)block * g->pages_per_block + page;
    return d->image + sim_img_header(d)->data_off + i * (g->page_size + g->spare_size);
}

uint8_t *sim_sd_data(const sim_dev *d) { return d->image + sim_img_header(d)->data_off; }

void sim_image_format(sim_dev *d, uint64_t seed)
{
    sim_layout L;
    sim_img_hdr *h = sim_img_header(d);
    size_t n = strlen(d->prof->name);

    sim_layout_of(d->prof, &d->bd.geo, &L);
    /* Zero is "erased" in the XOR-stored data; a zero image is a blank
     * device.  Clearing it all keeps fresh == 1 independent of history. */
    memset(d->image, 0, (size_t)L.total);
    memcpy(h->magic, SIM_IMG_MAGIC, 8);
    h->version = SIM_IMG_VERSION;
    h->header_size = SIM_IMG_HDR_SIZE;
    memcpy(h->profile, d->prof->name, n < sizeof h->profile ? n : sizeof h->profile - 1);
    h->kind = (uint32_t)d->prof->kind;
    h->page_size = d->bd.geo.page_size;
    h->spare_size = d->bd.geo.spare_size;
    h->pages_per_block = d->bd.geo.pages_per_block;
    h->block_count = d->bd.geo.block_count;
    h->page_meta_size = L.page_meta_size;
    h->block_meta_off = L.block_meta_off;
    h->page_meta_off = L.page_meta_off;
    h->data_off = L.data_off;
    h->data_len = L.data_len;
    h->format_seed = seed;
    sim_fault_place_bad(d, seed);
}

int sim_image_check(const sim_dev *d)
{
    sim_layout L;
    const sim_img_hdr *h = sim_img_header(d);
    size_t n = strlen(d->prof->name);

    sim_layout_of(d->prof, &d->bd.geo, &L);
    if (memcmp(h->magic, SIM_IMG_MAGIC, 8) != 0 || h->version != SIM_IMG_VERSION)
        return SBD_ERR_INVAL;
    if (n >= sizeof h->profile || memcmp(h->profile, d->prof->name, n + 1) != 0)
        return SBD_ERR_INVAL;
    if (h->kind != (uint32_t)d->prof->kind || h->page_size != d->bd.geo.page_size ||
        h->spare_size != d->bd.geo.spare_size ||
        h->pages_per_block != d->bd.geo.pages_per_block ||
        h->block_count != d->bd.geo.block_count || h->page_meta_size != L.page_meta_size ||
        h->block_meta_off != L.block_meta_off || h->page_meta_off != L.page_meta_off ||
        h->data_off != L.data_off || h->data_len != L.data_len)
        return SBD_ERR_INVAL;
    return 0;
}

uint64_t sim_image_size(const sim_profile *p, uint32_t blocks)
{
    sim_layout L;
    sbd_geometry g = p->geo;
    if (blocks)
        g.block_count = blocks;
    sim_layout_of(p, &g, &L);
    return L.total;
}
