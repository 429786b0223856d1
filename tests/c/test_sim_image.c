#define _DEFAULT_SOURCE /* mkstemp */
/* File-backed images: a device survives close and reopen (a process
 * restart), a mismatched profile or size is refused, fresh reformats. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "steadyfs/host.h"

int main(void)
{
    char path[] = "/tmp/steadyfs-test-imgXXXXXX";
    int fd = mkstemp(path), err = 0;
    uint8_t buf[2048], back[2048];
    sh_dev *h;
    uint32_t i;

    CHECK(fd >= 0);
    close(fd);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 3);

    h = sh_open_sim("mt29f1g01", path, 32, SIM_TYPICAL, 1, 0, &err);
    CHECK(h != NULL);
    if (!h)
        return check_done("test_sim_image");
    CHECK_EQ(sh_erase(h, 9, 1), 0);
    CHECK_EQ(sh_erase(h, 9, 1), 0);
    CHECK_EQ(sh_prog(h, 9, 2048, buf, 2048, buf, 64), 0);
    CHECK_EQ(sh_mark_bad(h, 20), 0);
    CHECK(sh_now_ns(h) > 4000000);
    sh_close(h);

    /* reopen without fresh: data, spare, program counts, erase counts and
     * bad marks are all there; the clock starts again at 0 */
    h = sh_open_sim("mt29f1g01", path, 32, SIM_TYPICAL, 1, 0, &err);
    CHECK(h != NULL);
    if (!h)
        return check_done("test_sim_image");
    CHECK_EQ(sh_now_ns(h), 0);
    memset(back, 0, sizeof back);
    CHECK_EQ(sh_read(h, 9, 2048, back, 2048, NULL, 0), 0);
    CHECK(memcmp(buf, back, 2048) == 0);
    CHECK_EQ(sh_read(h, 9, 2048, NULL, 0, back, 64), 0);
    CHECK(memcmp(buf, back, 64) == 0);
    CHECK_EQ(sh_erase_count(h, 9), 2);
    CHECK_EQ(sh_is_bad(h, 20), 1);
    CHECK_EQ(sh_prog(h, 9, 2048, buf, 2048, NULL, 0), 0);        /* same bytes: fine */
    buf[0] ^= 1;
    CHECK_EQ(sh_prog(h, 9, 2048, buf, 2048, NULL, 0), SBD_ERR_RULE); /* still programmed */
    buf[0] ^= 1;
    sh_close(h);

    /* wrong profile or block count: refused, with a reason */
    CHECK(sh_open_sim("mt25q128", path, 0, SIM_TYPICAL, 1, 0, &err) == NULL);
    CHECK_EQ(err, SBD_ERR_INVAL);
    CHECK(strlen(sh_last_error()) > 0);
    CHECK(sh_open_sim("mt29f1g01", path, 64, SIM_TYPICAL, 1, 0, &err) == NULL);
    CHECK(sh_open_sim("nonesuch", path, 0, SIM_TYPICAL, 1, 0, &err) == NULL);

    /* fresh: formatted again */
    h = sh_open_sim("mt29f1g01", path, 32, SIM_TYPICAL, 1, 1, &err);
    CHECK(h != NULL);
    if (h) {
        CHECK_EQ(sh_read(h, 9, 2048, back, 2048, NULL, 0), 0);
        CHECK_EQ(back[5], 0xFF);
        CHECK_EQ(sh_erase_count(h, 9), 0);
        CHECK_EQ(sh_is_bad(h, 20), 0);
        sh_close(h);
    }
    /* RAM images and the trace ring */
    h = sh_open_sim("em064lx", NULL, 0, SIM_TYPICAL, 1, 0, &err);
    CHECK(h != NULL);
    if (h) {
        sh_trace_rec r[4];
        CHECK_EQ(sh_trace_enable(h, 3), 0);
        for (i = 0; i < 5; i++)
            CHECK_EQ(sh_prog(h, 0, i * 256, buf, 256, NULL, 0), 0);
        CHECK_EQ(sh_trace_count(h), 3);
        CHECK_EQ(sh_trace_copy(h, 0, r, 4), 3);
        CHECK_EQ(r[0].off, 512);
        CHECK_EQ(r[2].off, 1024);
        CHECK_EQ(r[2].op, SIM_OP_PROG);
        CHECK_EQ(r[2].dur_ns, sh_last_ns(h));
        CHECK_EQ(r[2].start_ns + r[2].dur_ns, sh_now_ns(h));
        sh_close(h);
    }
    /* profile JSON renders every profile */
    for (i = 0; i < sh_profile_count(); i++) {
        char js[16384];
        int n = sh_profile_json(i, js, sizeof js);
        CHECK(n > 100 && n < (int)sizeof js);
        CHECK(strstr(js, "\"name\"") != NULL);
    }
    CHECK(sh_profile_json(sh_profile_count(), NULL, 0) < 0);
    unlink(path);
    return check_done("test_sim_image");
}
