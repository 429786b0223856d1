#define _DEFAULT_SOURCE /* mkstemp */
/* The sbd interface over a Linux regular file: round trip, wall-clock
 * timing, read-only refusal without the write flag. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "steadyfs/host.h"

int main(void)
{
    char path[] = "/tmp/steadyfs-test-lxXXXXXX";
    int fd = mkstemp(path), err = 0;
    uint8_t buf[4096], back[4096];
    sbd_geometry g;
    sh_dev *h;
    uint32_t i;

    CHECK(fd >= 0);
    close(fd);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 5 + 1);

    h = sh_open_path(path, 1, 512, 65536, 1u << 20, &err);
    CHECK(h != NULL);
    if (!h)
        return check_done("test_linuxdev");
    sh_geometry(h, &g);
    CHECK_EQ(g.page_size, 512);
    CHECK_EQ(g.pages_per_block, 128);
    CHECK_EQ(g.block_count, 16);
    CHECK_EQ(g.needs_erase, 0);
    CHECK_EQ(sh_prog(h, 3, 1024, buf, 4096, NULL, 0), 0);
    CHECK(sh_last_ns(h) > 0);
    CHECK_EQ(sh_now_ns(h), sh_last_ns(h));
    CHECK_EQ(sh_read(h, 3, 1024, back, 4096, NULL, 0), 0);
    CHECK(memcmp(buf, back, 4096) == 0);
    CHECK_EQ(sh_prog(h, 3, 100, buf, 512, NULL, 0), SBD_ERR_RANGE);   /* misaligned */
    CHECK_EQ(sh_prog(h, 16, 0, buf, 512, NULL, 0), SBD_ERR_RANGE);
    CHECK_EQ(sh_erase(h, 3, 1), 0);                                   /* free no-op */
    CHECK_EQ(sh_sync(h), 0);
    CHECK(sh_set_faults(h, NULL) < 0);                                /* not simulated */
    sh_close(h);

    /* without allow_write: reads work, writes are refused */
    h = sh_open_path(path, 0, 512, 65536, 0, &err);
    CHECK(h != NULL);
    if (h) {
        CHECK_EQ(sh_read(h, 3, 1024, back, 4096, NULL, 0), 0);
        CHECK(memcmp(buf, back, 4096) == 0);
        CHECK_EQ(sh_prog(h, 3, 0, buf, 512, NULL, 0), SBD_ERR_INVAL);
        sh_close(h);
    }
    /* a missing file is not created without the flag */
    unlink(path);
    CHECK(sh_open_path(path, 0, 512, 65536, 1u << 20, &err) == NULL);
    CHECK(access(path, F_OK) != 0);
    /* not a file or block device */
    CHECK(sh_open_path("/dev/null", 1, 512, 65536, 0, &err) == NULL);
    CHECK_EQ(err, SBD_ERR_INVAL);
    return check_done("test_linuxdev");
}
