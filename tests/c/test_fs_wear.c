/* Wear-levelling endurance (issue 4): half of the device holds static
 * files, one hot 64 KiB file is rewritten 4 KiB + sync at a time.  The
 * erase counts the simulator keeps per block must stay within the spread
 * DESIGN.md §6 states: every unit outside the anchors erased (static data
 * moves), max/mean <= 2.5 and the hottest unit within 3x the mean.
 * STEADYFS_WEAR_SYNCS sets the number of rewrites (default 60000). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fs_testdev.h"

int main(void)
{
    static uint8_t buf[65536];
    const char *env = getenv("STEADYFS_WEAR_SYNCS");
    uint32_t syncs = env ? (uint32_t)strtoul(env, NULL, 0) : 60000, i, b, n = 0, mn = ~0u, mx = 0;
    uint64_t sum = 0;
    steadyfs_info in;
    tdev t;
    int fd;
    /* STEADYFS_WEAR_SEED: the device seed (factory bad units); 3 in make test */
    CHECK_EQ(tdev_open(&t, "mt29f1g01", 64,
                       getenv("STEADYFS_WEAR_SEED") ? strtoull(getenv("STEADYFS_WEAR_SEED"), NULL, 10) : 3),
             0);
    t.cfg.open_max = 1;
    CHECK_EQ(steadyfs_format(&t.fs, &t.cfg), 0);
    CHECK_EQ(steadyfs_mount(&t.fs, &t.cfg), 0);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    /* static half: 64 KiB files up to half the capacity */
    CHECK_EQ(steadyfs_mkdir(&t.fs, "/static"), 0);
    for (i = 0;; i++) {
        char name[32];
        CHECK_EQ(steadyfs_info_get(&t.fs, &in), 0);
        if (in.used >= in.capacity / 2)
            break;
        snprintf(name, sizeof name, "/static/%u", i);
        fd = steadyfs_open(&t.fs, name, STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        CHECK(fd >= 0);
        CHECK_EQ(steadyfs_write(&t.fs, fd, buf, sizeof buf), (int)sizeof buf);
        CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    }
    fd = steadyfs_open(&t.fs, "/hot", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    CHECK(fd >= 0);
    CHECK_EQ(steadyfs_write(&t.fs, fd, buf, sizeof buf), (int)sizeof buf);
    for (i = 0; i < syncs; i++) {
        uint32_t off = (i % 16) * 4096;
        if (steadyfs_seek(&t.fs, fd, off, STEADYFS_SEEK_SET) != off ||
            steadyfs_write(&t.fs, fd, buf + off, 4096) != 4096 || steadyfs_sync(&t.fs, fd)) {
            CHECK(0);
            break;
        }
    }
    CHECK_EQ(steadyfs_close(&t.fs, fd), 0);
    /* erase counts of every good unit outside the anchor area */
    for (b = 4; b < 64; b++) {
        uint32_t c;
        if (sbd_is_bad(&t.dev.bd, b) > 0)
            continue;
        c = sim_erase_count(&t.dev, b);
        if (getenv("WEAR_UNITS"))
            printf("%u:%u ", b, c);
        sum += c;
        n++;
        if (c < mn)
            mn = c;
        if (c > mx)
            mx = c;
    }
    printf("wear: %u syncs of 4 KiB, half static: erase counts of %u units min %u max %u mean %.1f "
           "(max/mean %.2f, max-min %u); anchors %u/%u\n",
           syncs, n, mn, mx, (double)sum / n, (double)mx * n / (double)sum, mx - mn,
           sim_erase_count(&t.dev, 0), sim_erase_count(&t.dev, 1));
    CHECK(n >= 50);
    CHECK(mn >= 1);                      /* static data moved: no unit left unerased */
    CHECK(mx * (uint64_t)n <= 5 * sum / 2); /* max/mean <= 2.5 */
    steadyfs_unmount(&t.fs);
    tdev_close(&t);
    return check_done("test_fs_wear");
}
