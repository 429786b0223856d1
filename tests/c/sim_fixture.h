/* Test fixture: a simulated device on a RAM image. */
#ifndef STEADYFS_TEST_SIM_FIXTURE_H
#define STEADYFS_TEST_SIM_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "steadyfs/sim.h"

typedef struct fixture {
    sim_dev d;
    uint8_t *img;
    uint64_t len;
} fixture;

static inline int fx_open(fixture *f, const char *profile, uint32_t blocks, sim_timing t,
                          uint64_t seed)
{
    const sim_profile *p = sim_profile_find(profile);
    if (!p)
        return -1;
    f->len = sim_image_size(p, blocks);
    f->img = calloc(1, (size_t)f->len);
    return sim_init(&f->d, p, blocks, f->img, f->len, t, seed, 1);
}

static inline void fx_close(fixture *f) { free(f->img); }

static inline uint32_t fx_good_block(fixture *f, uint32_t from)
{
    while (sbd_is_bad(&f->d.bd, from) == 1)
        from++;
    return from;
}

#endif
