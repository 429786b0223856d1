/* CI-sized power-loss torture on the three raw media (the long soak is
 * `steady torture --ops N` with other seeds).  Every run must end with 0
 * failures, and must have cut power often enough to mean something. */
#include <stdio.h>

#include "check.h"
#include "host/torture.h"

int main(void)
{
    static const char *devs[] = {"mt29f1g01", "mt25q128", "em064lx"};
    unsigned d, s;
    for (d = 0; d < 3; d++)
        for (s = 0; s < 3; s++) {
            steady_torture_opts o = {0};
            steady_torture_result r;
            o.device = devs[d];
            o.seed = 1000 + s;
            o.ops = 2000;
            o.powercut_every = s != 2;
            o.powercut = s == 2 ? 5 : 0;
            o.faults = 1;
            CHECK_EQ(steady_torture_run(&o, &r, stdout), 0);
            CHECK_EQ(r.failures, 0);
            CHECK(r.cuts >= 20);
            CHECK(r.checks >= 200);
        }
    return check_done("test_fs_torture");
}
